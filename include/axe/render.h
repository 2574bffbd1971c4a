/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pictures of layouts (the render layer): a layout is evaluated once into a
 * grid of cells, each cell listing the points (or coordinates) it shows,
 * and the grid is written as an ASCII table (optionally ANSI-colored), a
 * standalone SVG, a TikZ picture or a self-contained interactive HTML page.
 * Views: the logical grid of a layout (CuTe print_layout; the Axe paper's
 * Figure 2 with every replica), a CuTe thread-value layout over its tile
 * (print_latex_tv), the physical view (which logical elements each thread,
 * device or memory partition holds) and a shared-memory bank view with the
 * bank conflicts of one warp's access. Output grows in a caller-owned
 * axe_render_buf whose allocator is a hook, so tests can make any
 * allocation fail. Invariant: output is deterministic (a function of the
 * layout and the options only) and a picture never has more than
 * AXE_RENDER_MAX_CELLS cells or AXE_RENDER_MAX_POINTS points: larger ones
 * fail with AXE_ERR_CAPACITY and a reason that suggests slicing, never
 * silently truncated.
 */
#ifndef AXE_RENDER_H
#define AXE_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axe/cute.h"
#include "axe/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most cells one picture may have (a 256x256 grid), and the most
 * points its cells may list in all (every replica counts). */
#define AXE_RENDER_MAX_CELLS 65536
#define AXE_RENDER_MAX_POINTS (4 * AXE_RENDER_MAX_CELLS)
/* The most distinct axes (or logical dims) a cell may list. */
#define AXE_RENDER_MAX_AXES 8

/*
 * The allocator hook (Lua's lua_Alloc): with "new_size" 0 free "ptr" and
 * return NULL, otherwise resize "ptr" (NULL: a new block) from "old_size"
 * to "new_size" bytes, or return NULL leaving "ptr" intact. A NULL hook
 * selects realloc/free.
 */
typedef void *axe_alloc_fn(void *ud, void *ptr, size_t old_size,
                           size_t new_size);

/* Growing text with a sticky status: after a failed allocation "status"
 * is AXE_ERR_NO_MEMORY and nothing more is appended. When status is
 * AXE_OK, "data" holds "len" bytes and a NUL (or is NULL when len is 0). */
typedef struct axe_render_buf {
    char *data;
    size_t len;
    size_t cap;
    axe_status status;
    axe_alloc_fn *alloc;
    void *ud;
} axe_render_buf;

/* An empty buffer using "alloc" with "ud" (NULL: realloc/free). */
AXE_API void axe_render_buf_init(axe_render_buf *b, axe_alloc_fn *alloc,
                                 void *ud);
/* Free the text of "b" (NULL accepted); "b" is empty afterwards. */
AXE_API void axe_render_buf_free(axe_render_buf *b);

typedef enum axe_render_view {
    AXE_RENDER_GRID,     /* cell (i,j) shows L at logical element (i,j) */
    AXE_RENDER_TV,       /* cell (m,n) of the tile shows T<t> V<v> */
    AXE_RENDER_PHYSICAL, /* rows/cols are hardware coordinates */
    AXE_RENDER_BANKS     /* address, bank and accessing thread per cell */
} axe_render_view;

typedef enum axe_render_format {
    AXE_RENDER_TEXT, /* ASCII table */
    AXE_RENDER_ANSI, /* ASCII table with ANSI background colors */
    AXE_RENDER_SVG,  /* standalone SVG 1.1 */
    AXE_RENDER_TEX,  /* standalone LaTeX document with one tikzpicture */
    AXE_RENDER_HTML  /* one self-contained page: SVG + script */
} axe_render_format;

typedef struct axe_render_options {
    axe_render_view view;
    axe_render_format format;
    /* The heading (e.g. the layout's text); NULL: none. */
    const char *title;
    /* Axis whose value (on the cell's first point) colors a cell: a
     * layout axis (GRID, PHYSICAL), T or V (TV), addr, bank or thread
     * (BANKS). NULL: the widest device or thread axis, else the first
     * axis; TV by thread (T), BANKS by bank. */
    const char *color_by;
    /* The logical shape (GRID, PHYSICAL, BANKS; its size must be the
     * layout's) or the tile (TV); ndims 0 means the layout's size as one
     * row. A 2-D grid shows more dims folded: into the rows (row-major,
     * all but the last dim) or, with "colex", into the columns (all but
     * the first). */
    int ndims;
    int64_t shape[AXE_LAYOUT_MAX_DIMS];
    /* Logical index of a 2-D cell (i,j): colexicographic i + j*rows as in
     * CuTe (true), or the coordinate (i,j) of the shape as in Axe. */
    bool colex;
    /* BANKS: bytes per element (1, 2, 4, 8 or 16; default 2; 8 and 16
     * are read in 2 phases of 16 and 4 phases of 8 threads) and the access
     * of one warp: thread t < 32 reads logical index access(t) (default:
     * t). */
    int64_t elem_bytes;
    bool has_access;
    axe_cute_layout access;
    /* Allocator for the intermediate grid (NULL: realloc/free). */
    axe_alloc_fn *alloc;
    void *ud;
} axe_render_options;

/* GRID, TEXT, colex false, elem_bytes 2, everything else empty. */
AXE_API void axe_render_options_init(axe_render_options *o);

/*
 * Append the picture of Axe layout "l" (CuTe layouts enter through
 * axe_layout_from_cute / axe_layout_from_cute_composed, which keep the
 * index -> value map) in view o->view (GRID, PHYSICAL or BANKS) and format
 * o->format to "out". Every number drawn is axe_layout_apply_set of the
 * cell's logical element. AXE_ERR_CAPACITY (with a suggestion) when the
 * picture would exceed AXE_RENDER_MAX_CELLS; AXE_ERR_INVALID for an
 * unknown color axis; AXE_ERR_NO_MEMORY when the allocator fails.
 */
AXE_NODISCARD AXE_API axe_status axe_render_layout(const axe_render_options *o,
                                                   const axe_layout *l,
                                                   axe_render_buf *out,
                                                   axe_diag *diag);
/*
 * Append the picture of CuTe thread-value layout "tv" ((T,V) -> index into
 * the tile o->shape, read colexicographically as CuTe's print_latex_tv
 * does): cell (m,n) lists every T<t> V<v> with tv(t,v) = m + n*M,
 * colored by t. Integer strides only; an index outside the tile is
 * AXE_ERR_DOMAIN with the offending (t,v).
 */
AXE_NODISCARD AXE_API axe_status axe_render_tv(const axe_render_options *o,
                                               const axe_cute_layout *tv,
                                               axe_render_buf *out,
                                               axe_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
