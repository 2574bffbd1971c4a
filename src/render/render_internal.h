/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal model of the render layer: a picture is a grid of rows x cols
 * cells; cell k (row-major) lists the entries first[k] .. first[k+1], each
 * entry "naxes" values over the model's axes (AXE__RENDER_NONE: absent),
 * printed as abbreviated points `w5 l8 r1` or as coordinates `(2,9)`. Row
 * and column headers are tuples over their own axes. Each cell has a color
 * key (AXE__RENDER_NONE: no color) and a mark (a bank conflict). The
 * emitters (text, SVG, TikZ, HTML) only read a model. Invariant: rows *
 * cols <= AXE_RENDER_MAX_CELLS, first[] is nondecreasing with first[0] = 0
 * and first[rows*cols] = nent once built, and every array was allocated
 * through the options' allocator hook.
 */
#ifndef AXE_RENDER_INTERNAL_H
#define AXE_RENDER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "axe/render.h"
#include "core_internal.h"

#define AXE__RENDER_NONE INT64_MIN
#define AXE__RENDER_NAME (AXE_AXIS_NAME_MAX + 2)
#define AXE__RENDER_PALETTE 32
#define AXE__RENDER_LEGEND 40 /* most legend swatches */

typedef struct axe__render_axes {
    int n;
    bool tuple; /* header labels print as (a,b) (folded logical dims) */
    char name[AXE_RENDER_MAX_AXES][AXE_AXIS_NAME_MAX];
    char abbr[AXE_RENDER_MAX_AXES][AXE__RENDER_NAME];
} axe__render_axes;

typedef struct axe__render_model {
    axe_alloc_fn *alloc;
    void *ud;
    int64_t rows, cols;
    axe__render_axes ax;  /* entry axes */
    bool coord_style;     /* entries print as (a,b) */
    axe__render_axes rax; /* row header axes (n 0: the row index) */
    axe__render_axes cax; /* column header axes (n 0: the column index) */
    int64_t *rowlab;      /* rows * rax.n */
    int64_t *collab;      /* cols * cax.n */
    int64_t *first;       /* rows * cols + 1 */
    int64_t *val;         /* nent * ax.n */
    int64_t nent, capent;
    int64_t *key;                       /* per cell */
    uint8_t *mark;                      /* per cell */
    char color_axis[AXE_AXIS_NAME_MAX]; /* legend heading; "" none */
    bool bands;           /* SVG/TikZ/HTML: one band per entry, colored by it */
    axe__render_axes wax; /* axes of the point each cell stands for */
    int64_t *where;       /* cells * wax.n (physical view; else NULL) */
    axe_render_buf notes; /* lines printed under the grid */
    /* A logical grid (grid, banks, TV views): cell k stands for the
     * coordinate axe__render_cell_coord of the shape lshape (lnd dims, 0:
     * one row of indices), folded into rows x cols row-major or, with
     * lcolex, colexicographically (CuTe). */
    bool logical;
    bool lcolex;
    int lnd;
    int64_t lshape[AXE_LAYOUT_MAX_DIMS];
} axe__render_model;

/* ---- buffers (render_buf.c) ---------------------------------------------- */

void *axe__render_alloc(axe_alloc_fn *alloc, void *ud, void *p, size_t old,
                        size_t size);
void axe__render_put(axe_render_buf *b, const char *s, size_t len);
void axe__render_puts(axe_render_buf *b, const char *s);
void axe__render_putf(axe_render_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "s" with & < > " escaped for XML text and attributes. */
void axe__render_put_xml(axe_render_buf *b, const char *s);
/* "s" with TeX's special characters escaped. */
void axe__render_put_tex(axe_render_buf *b, const char *s);
/* The text of "b" ("" when empty or failed). */
static inline const char *axe__render_str(const axe_render_buf *b)
{
    return b->status == AXE_OK && b->len > 0 ? b->data : "";
}
/* "n" spaces (none when n <= 0). */
void axe__render_pad(axe_render_buf *b, int64_t n);

/* ---- the model (render_model.c) ----------------------------------------- */

void axe__render_model_init(axe__render_model *m, const axe_render_options *o);
void axe__render_model_free(axe__render_model *m);
/* Allocate a rows x cols grid; AXE_ERR_CAPACITY past the cell limit with
 * "what" naming the picture and "hint" what to do instead in the reason. */
axe_status axe__render_model_grid(axe__render_model *m, int64_t rows,
                                  int64_t cols, const char *what,
                                  const char *hint, axe_diag *diag);
/* The suggestion for a logical picture that is too large. */
#define AXE__RENDER_HINT_SLICE                                                 \
    "slice the layout first (axe slice) or pick a smaller --shape"
/* Start cell "k" (cells are filled in order). */
void axe__render_model_cell(axe__render_model *m, int64_t k);
/* Append one entry of m->ax.n values to the current cell. */
axe_status axe__render_model_push(axe__render_model *m, const int64_t *v);
/* Close the last cell. */
void axe__render_model_done(axe__render_model *m);
/* Abbreviations of the axes: shortest distinct prefixes, ':' after one
 * ending in a digit; a single axis with "bare" gets none. */
void axe__render_abbreviate(axe__render_axes *ax, bool bare);
/* Sort axis names device, thread (widest scope first), memory. */
void axe__render_sort_axes(axe__render_axes *ax);
/* The index of "name" in "ax" or -1 (one axis under either spelling). */
int axe__render_axis_find(const axe__render_axes *ax, const char *name);
/* Add "name" if new; AXE_ERR_CAPACITY past AXE_RENDER_MAX_AXES. */
axe_status axe__render_axis_add(axe__render_axes *ax, const char *name,
                                axe_diag *diag);
/* Color cells by the first entry's value on axis "name" (INVALID with
 * the axes listed when there is no such axis). */
axe_status axe__render_recolor(axe__render_model *m, const char *name,
                               axe_diag *diag);
/* Palette slot of a color key; the colors as "#rrggbb" and xterm codes. */
int axe__render_slot(int64_t key);
extern const char *const axe__render_rgb[AXE__RENDER_PALETTE];
extern const int axe__render_xterm[AXE__RENDER_PALETTE];

/* With m->bands, the index of the color axis in m->ax (every entry is a
 * band colored by its own value there), else -1 (the cell's key). */
int axe__render_band_axis(const axe__render_model *m);
/* The color key of entry "e" of cell "k" (AXE__RENDER_NONE: white). */
int64_t axe__render_band_key(const axe__render_model *m, int64_t k, int64_t e);
/* The label of band "e" of cell "k": the entry without the band axis
 * (unless it is the only one), "!" after the last band of a marked cell. */
void axe__render_band_text(const axe__render_model *m, int64_t k, int64_t e,
                           axe_render_buf *b);
/* The smallest distinct band color keys in use, ascending, at most "cap";
 * "*more" when some key in use is not among them. The count. */
int axe__render_legend_keys(const axe__render_model *m, int64_t *keys, int cap,
                            bool *more);
/* The most entries of a cell (at least 1) and the widest band label. */
axe_status axe__render_band_widths(const axe__render_model *m, int64_t *lines,
                                   int64_t *width);

/* Text of cell "k" (entries joined by " / ", "!" when marked) and of
 * header label "i" of "ax" over "lab". */
void axe__render_cell_text(const axe__render_model *m, int64_t k,
                           axe_render_buf *b);
void axe__render_label_text(const axe__render_axes *ax, const int64_t *lab,
                            int64_t i, axe_render_buf *b);
/* "rows: warp lane, columns: reg" (no newline) when the headers are
 * tuples over axes; whether anything was written. */
bool axe__render_caption(const axe__render_model *m, axe_render_buf *b);
/* The widest cell text and header label, in bytes. */
axe_status axe__render_widths(const axe__render_model *m, int64_t *cell,
                              int64_t *row, int64_t *col);

/* ---- views (render_view.c, render_physical.c, render_banks.c) ------------ */

axe_status axe__render_view_grid(axe__render_model *m,
                                 const axe_render_options *o,
                                 const axe_layout *l, axe_diag *diag);
axe_status axe__render_view_tv(axe__render_model *m,
                               const axe_render_options *o,
                               const axe_cute_layout *tv, axe_diag *diag);
axe_status axe__render_view_physical(axe__render_model *m,
                                     const axe_render_options *o,
                                     const axe_layout *l, axe_diag *diag);
axe_status axe__render_view_banks(axe__render_model *m,
                                  const axe_render_options *o,
                                  const axe_layout *l, axe_diag *diag);
/* Allocate the logical grid of "o" over "l" ("what" names the picture):
 * the shape's size must be the layout's; more than two dims fold into the
 * rows (row-major: all but the last) or, with o->colex, into the columns
 * (all but the first), whose header labels are then coordinate tuples. */
axe_status axe__render_logical_model(axe__render_model *m,
                                     const axe_render_options *o,
                                     const axe_layout *l, const char *what,
                                     axe_diag *diag);
/* The logical coordinate of cell "k" of logical model "m" into "crd";
 * the number of coordinates (at least 1: a linear index when m->lnd is
 * 0). */
int axe__render_cell_coord(const axe__render_model *m, int64_t k, int64_t *crd);
/* The set L of the element of cell "k" of logical model "m". */
axe_status axe__render_apply_cell(const axe__render_model *m,
                                  const axe_layout *l, int64_t k,
                                  axe_point *pts, int cap, int *npts,
                                  axe_diag *diag);

/* ---- emitters ------------------------------------------------------------ */

axe_status axe__render_emit_text(const axe__render_model *m, bool ansi,
                                 const char *title, axe_render_buf *out);
/* "interactive": cells carry data-k (HTML); "id" names the <svg>. */
axe_status axe__render_emit_svg(const axe__render_model *m, const char *title,
                                const char *id, bool interactive,
                                axe_render_buf *out);
axe_status axe__render_emit_tex(const axe__render_model *m, const char *title,
                                axe_render_buf *out);
/* The page for the logical model and (may be NULL) the physical one;
 * "note" (NULL: none) says why a physical view is missing. */
axe_status axe__render_emit_html(const axe__render_model *logical,
                                 const axe__render_model *physical,
                                 const char *note, const char *title,
                                 axe_render_buf *out);

#endif
