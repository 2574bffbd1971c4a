/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mapping expressions (FuriosaAI VISA, ../shared/spec/mapping_semantics.md):
 * `m![A, B / 64, B % 64, D # 64, D = 2]` over `axes![A = 8, B = 512, D =
 * 61]` describes a linear buffer of |E| cells; map(i) gives, for each buffer
 * position i, a cell: a tensor index (axis -> coordinate), a padding cell of
 * a kind (top, zero, bottom) or out of bounds. The read is the library's
 * decoded one (spec §5.2): a chain of `/` and `%` over an operand X with
 * stride product mu contributes the position mu*i of X, positions add per
 * operand, and composite operands are decoded at their summed position.
 *
 * Representation: a fixed-capacity value struct holding its axis table and
 * a node array (children before parents, the root last); a node's size is
 * computed when it is pushed. Invariant: every node satisfies the size
 * rules of spec §4 (stride and modulo divide, resize <= size <= padding, no
 * 64-bit overflow), children indices are below the node's own, and symbols
 * index the axis table. Exceeding a capacity is AXE_ERR_CAPACITY.
 */
#ifndef AXE_MAPPING_H
#define AXE_MAPPING_H

#include <stdbool.h>
#include <stdint.h>

#include "axe/layout.h"
#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_MAPPING_MAX_AXES 16
#define AXE_MAPPING_MAX_NODES 96
#define AXE_MAPPING_NAME_MAX 32

typedef enum axe_mapping_op {
    AXE_MAPPING_SYMBOL,    /* an axis: size of the axis */
    AXE_MAPPING_BROADCAST, /* n: n live cells holding no coordinate */
    AXE_MAPPING_PAIR,      /* L, R: |L| * |R|, R fastest */
    AXE_MAPPING_STRIDE,    /* L / n */
    AXE_MAPPING_MODULO,    /* L % n */
    AXE_MAPPING_RESIZE,    /* L = n */
    AXE_MAPPING_PADDING    /* L # n, L #{0} n, L #{!} n */
} axe_mapping_op;

/* Padding kinds in the reference's order Bottom < Zero < Top. */
typedef enum axe_padding_kind {
    AXE_PADDING_BOTTOM,
    AXE_PADDING_ZERO,
    AXE_PADDING_TOP
} axe_padding_kind;

typedef struct axe_mapping_axes {
    int n;
    char name[AXE_MAPPING_MAX_AXES][AXE_MAPPING_NAME_MAX];
    int64_t size[AXE_MAPPING_MAX_AXES];
} axe_mapping_axes;

/* One node: "a" the operand (left of a pair), "b" the right of a pair,
 * "n" the axis index (symbol) or the number after the operator. */
typedef struct axe_mapping_node {
    uint8_t op;
    uint8_t kind; /* axe_padding_kind of a padding node */
    int16_t a, b;
    int64_t n;
    int64_t size;
} axe_mapping_node;

typedef struct axe_mapping {
    axe_mapping_axes axes;
    int nnodes;
    axe_mapping_node node[AXE_MAPPING_MAX_NODES];
} axe_mapping;

typedef enum axe_cell_kind {
    AXE_CELL_INDEX,
    AXE_CELL_PADDING,
    AXE_CELL_OUT_OF_BOUNDS
} axe_cell_kind;

/* A cell; an index holds one coordinate per axis of the table (0 when the
 * axis is absent). */
typedef struct axe_mapping_cell {
    axe_cell_kind kind;
    axe_padding_kind padding;
    int64_t coord[AXE_MAPPING_MAX_AXES];
} axe_mapping_cell;

/* ---- construction ------------------------------------------------------ */

/* Add axis "name" of "size" >= 1 to "axes" (names unique). */
AXE_NODISCARD AXE_API axe_status axe_mapping_axes_add(axe_mapping_axes *axes,
                                                      const char *name,
                                                      int64_t size,
                                                      axe_diag *diag);
/* The index of axis "name" (len bytes) in "axes", or -1. */
AXE_API int axe_mapping_axes_find(const axe_mapping_axes *axes,
                                  const char *name, size_t len);
/* The empty expression over "axes" (no node yet). */
AXE_API void axe_mapping_init(axe_mapping *m, const axe_mapping_axes *axes);
/* Push a node; *id is its index. "a", "b" are earlier node indices (-1
 * when unused); the size rules of spec §4 are checked with a reason. */
AXE_NODISCARD AXE_API axe_status axe_mapping_push(axe_mapping *m,
                                                  axe_mapping_op op, int a,
                                                  int b, int64_t n,
                                                  axe_padding_kind kind,
                                                  int *id, axe_diag *diag);
/* Copy the subtree "root" of "src" into "m" (same axis table); *id is the
 * copy's root. */
AXE_NODISCARD AXE_API axe_status axe_mapping_copy_subtree(
    axe_mapping *m, const axe_mapping *src, int root, int *id);

/* ---- queries ----------------------------------------------------------- */

/* The root node (the last pushed); -1 for an empty expression. */
AXE_API int axe_mapping_root(const axe_mapping *m);
/* |E|, the number of buffer cells. */
AXE_API int64_t axe_mapping_size(const axe_mapping *m);
/* Whether axis "axis" occurs in the subtree of node "root". */
AXE_API bool axe_mapping_uses_axis(const axe_mapping *m, int root, int axis);
/* Whether the subtrees "x" of "m" and "y" of "n" are the same tree. */
AXE_API bool axe_mapping_same_tree(const axe_mapping *m, int x,
                                   const axe_mapping *n, int y);

/* ---- the map ------------------------------------------------------------ */

/* The decoded map (spec §5.2): the cell at buffer position "i" (out of
 * bounds for i < 0 or i >= |E|); a coordinate at or above its axis size
 * (an overshoot) is AXE_ERR_DOMAIN with the reason. */
AXE_NODISCARD AXE_API axe_status axe_mapping_map(const axe_mapping *m,
                                                 int64_t i,
                                                 axe_mapping_cell *out,
                                                 axe_diag *diag);
/* The cell of node "root" at position "i" of that node. */
AXE_NODISCARD AXE_API axe_status axe_mapping_map_node(const axe_mapping *m,
                                                      int root, int64_t i,
                                                      axe_mapping_cell *out,
                                                      axe_diag *diag);
/* Combine two cells as a pair does (spec §5.1): a non-live "a" wins, then
 * a non-live "b", else the coordinates add (AXE_ERR_OVERFLOW). */
AXE_NODISCARD AXE_API axe_status
axe_mapping_cell_combine(const axe_mapping_cell *a, const axe_mapping_cell *b,
                         axe_mapping_cell *out);
/* Cells equal: same kind, same padding kind, same coordinates (zero
 * coordinates and absent axes are the same). */
AXE_API bool axe_mapping_cell_equal(const axe_mapping_cell *a,
                                    const axe_mapping_cell *b);
/* A live cell with every coordinate zero. */
AXE_API void axe_mapping_cell_zero(axe_mapping_cell *c);

/* Every buffer position p < |E| with map(p) equal to the cell "t", in
 * increasing order into pos[0 .. *count) (AXE_ERR_CAPACITY above "cap");
 * the inverse of map. Read off the Axe layout (with holes) of the normal
 * form of E when that converts (any size), by evaluation otherwise (at
 * most AXE_MAPPING_EVAL_MAX positions). */
AXE_NODISCARD AXE_API axe_status axe_mapping_inverse(const axe_mapping *m,
                                                     const axe_mapping_cell *t,
                                                     int64_t *pos, int cap,
                                                     int *count,
                                                     axe_diag *diag);

/* ---- equivalence and normal form --------------------------------------- */

/* Positions an evaluation may visit (equivalence, inverse, tile checks). */
#define AXE_MAPPING_EVAL_MAX (INT64_C(1) << 24)

/* E1 == E2 (spec §8): the same size and the same cell at every position,
 * zero coordinates dropped; decided on the normal forms (identical trees,
 * the Axe layouts with holes, matching pairs / padding / resize around
 * operands decided so), by evaluation otherwise (AXE_ERR_CAPACITY above
 * AXE_MAPPING_EVAL_MAX positions). Both are over the same axis names. */
AXE_NODISCARD AXE_API axe_status axe_mapping_equivalent(const axe_mapping *a,
                                                        const axe_mapping *b,
                                                        bool *out,
                                                        axe_diag *diag);
/* A simpler expression with the same map: pairs right-nested without the
 * identity, trivial stride / modulo / resize / padding dropped, chains over
 * an axis as `X / mu % n`, adjacent digits `X / (mu n2) % n1, X / mu % n2`
 * merged, a chain inside one side of a pair moved onto it. Idempotent;
 * preserves map at every position. */
AXE_NODISCARD AXE_API axe_status axe_mapping_normalize(const axe_mapping *m,
                                                       axe_mapping *out,
                                                       axe_diag *diag);

/* ---- tiles (spec §9) ---------------------------------------------------- */

typedef struct axe_mapping_tile {
    const axe_mapping *source; /* E */
    const axe_mapping *index;  /* I: where the tile lies */
    int64_t len;               /* how many I cells it spans */
    const axe_mapping *view;   /* E2: the view's expression */
    int64_t start;             /* logical coordinate along I */
    bool write;                /* mutable view: holes must be bottom */
} axe_mapping_tile;

/* Check that the view is a valid tile of the source (spec §9: |E2| = |E|,
 * E2 agrees with E where the I-digit is below len, holes of the mode's
 * kind elsewhere, source padding kept, start + len <= |I|) and give its
 * offset I.map(start). */
AXE_NODISCARD AXE_API axe_status axe_mapping_tile_check(
    const axe_mapping_tile *t, axe_mapping_cell *offset, axe_diag *diag);
/* The view's cell at "p": E2.map(p) + offset where live, else E2's cell
 * (checks the view first, each call: see _checked to read many cells). */
AXE_NODISCARD AXE_API axe_status axe_mapping_tile_map(const axe_mapping_tile *t,
                                                      int64_t p,
                                                      axe_mapping_cell *out,
                                                      axe_diag *diag);
/* The same without the check: "offset" is the one a successful
 * axe_mapping_tile_check of "t" gave (validate once, read every cell). */
AXE_NODISCARD AXE_API axe_status axe_mapping_tile_map_checked(
    const axe_mapping_tile *t, const axe_mapping_cell *offset, int64_t p,
    axe_mapping_cell *out, axe_diag *diag);

/* The view expression E2 of the tiles of "len" cells along "index" of
 * "source" (spec §9's doc examples): the digit of "source" that holds the
 * index's digit X / mu % n is split at it and that part becomes
 * `X / mu % n = len # n` with a top hole (bottom with "write"), e.g.
 * `m![A, B]` along `m![B / 32]` by 2 gives `m![A, B / 32 = 2 # 16, B %
 * 32]`. The result passes axe_mapping_tile_check (checked). Needs a
 * source affine per axis after normalization and an index on one axis. */
AXE_NODISCARD AXE_API axe_status axe_mapping_tile_view(
    const axe_mapping *source, const axe_mapping *index, int64_t len,
    bool write, axe_mapping *out, axe_diag *diag);
/* The tile at logical coordinate "start" along "index" (spec §9's
 * `tile(start)`): the view expression E2 of axe_mapping_tile_view (the same
 * at every start) checked once at "start" (start + len <= |I|, I.map(start)
 * live; DOMAIN otherwise) and its "offset" I.map(start) (NULL accepted):
 * view cell p is E2.map(p) + offset where live. */
AXE_NODISCARD AXE_API axe_status axe_mapping_tile_view_at(
    const axe_mapping *source, const axe_mapping *index, int64_t len,
    int64_t start, bool write, axe_mapping *out, axe_mapping_cell *offset,
    axe_diag *diag);

/* ---- conversion to Axe layouts (spec §10) ------------------------------ */

/* One part of a buffer: expression "expr" laid out on hardware axis "axis"
 * (`m` for memory) with every buffer stride multiplied by "scale". */
typedef struct axe_mapping_part {
    const axe_mapping *expr;
    const char *axis;
    int64_t scale;
    bool holes; /* padding becomes holes in the span instead of a failure */
} axe_mapping_part;

/* The Axe layout L of the parts (summed per tensor index) over the tensor
 * axes "tensor" (ntensor names, major first): L(x) = every buffer point
 * holding the lexicographically flattened tensor index x. Fails with the
 * reason (padding, resize, partial cover, overshoot, composite operand)
 * when the expression is not affine per axis; a part with "holes" lays a
 * padding's operand out inside the padded block instead (the padded cells
 * are in no L(x)), and a resize's when it cuts only padded cells. */
AXE_NODISCARD AXE_API axe_status axe_mapping_to_layout(
    const axe_mapping_part *parts, int nparts, const char *const *tensor,
    int ntensor, axe_layout *out, axe_diag *diag);

/* The mapping expression of an Axe layout "l" on the memory axis `m`
 * whose points are exactly the positions 0 .. |E|-1, each once (shard and
 * replica modes of distinct, compact strides): the logical index is the
 * lexicographic flattening over "tensor" (its axes, major first; sizes
 * multiply to size(l)); position p holds the index x with p in L(x). The
 * shard is grouped by the tensor shape, each mode becomes the digit
 * `T / mu % e` of its tensor axis and each replica a broadcast, in
 * decreasing stride order, then normalized (`S[(4,4,4):(16,4,1)]` over A =
 * 4, B = 16 is `m![A, B]`). Fails with the reason otherwise (holes,
 * overlaps, offsets, swizzles, other axes). */
AXE_NODISCARD AXE_API axe_status
axe_mapping_from_layout(const axe_layout *l, const axe_mapping_axes *tensor,
                        axe_mapping *out, axe_diag *diag);
/* The same with holes: modes sorted by stride may skip positions, a
 * stride s above the block b of the faster modes padding that block to s
 * (`S[(4,4):(8,1)]` over A = 4, B = 4 gives `m![A, B # 8]`, `S[4:2]` gives
 * `m![A, 1 # 2]`): the positions in no L(x) are exactly the padded cells (top
 * padding). Its conversion back with holes is the same layout; the expression's
 * size may exceed the layout's span by trailing padding. */
AXE_NODISCARD AXE_API axe_status axe_mapping_from_layout_holes(
    const axe_layout *l, const axe_mapping_axes *tensor, axe_mapping *out,
    axe_diag *diag);

/* ---- linear combinations and skewed axes (doc-only forms, spec §11) ---- */

#define AXE_LINCOMB_MAX 8

/* `$(e1:n1, ..., ed:nd)`: position s relates to t = sum ek.map(sk) for
 * every choice sk < |ek| with s = sum sk nk. */
typedef struct axe_mapping_lincomb {
    int n;
    axe_mapping term[AXE_LINCOMB_MAX];
    int64_t scale[AXE_LINCOMB_MAX];
} axe_mapping_lincomb;

/* 1 + sum (|ek| - 1) nk. */
AXE_NODISCARD AXE_API axe_status
axe_mapping_lincomb_size(const axe_mapping_lincomb *c, int64_t *out);
/* The distinct live indices related to position "s", sorted by their
 * coordinates in axis-table order, into out[0 .. *count). */
AXE_NODISCARD AXE_API axe_status axe_mapping_lincomb_map(
    const axe_mapping_lincomb *c, int64_t s, axe_mapping_cell *out, int cap,
    int *count, axe_diag *diag);

/* Undo a skewed axis: "derived" = "base" - "by" (mod |base|), so the cell's
 * base coordinate becomes (derived + by) mod |base| and derived becomes 0. */
AXE_NODISCARD AXE_API axe_status
axe_mapping_cell_unskew(const axe_mapping_axes *axes, int derived, int base,
                        int by, axe_mapping_cell *cell);

#ifdef __cplusplus
}
#endif

#endif
