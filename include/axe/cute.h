/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CuTe layouts: hierarchical `shape:stride` maps from a colexicographic
 * (first mode fastest) coordinate space to integers or, with scaled-basis
 * strides `s@k`, to multi-dimensional coordinates.  L(c) = sum_i c_i d_i.
 *
 * Representation: "shape" holds the hierarchy and the extents; "stride" and
 * "basis" are flat, one entry per leaf, in the same preorder. basis[i] == 0
 * means an integer stride; otherwise stride[i] is scaled by the basis vector
 * E<k0,k1,...> encoded by AXE_CUTE_BASIS (k0 outermost; printed
 * `s@kn@...@k0`, so `1@1@4` is E<4,1>). Invariant: every shape leaf >= 1.
 * Layouts are fixed-capacity values: no heap; copy with `=`.
 *
 * Size-1 modes: a mode of extent 1 contributes nothing to L; its stride is
 * kept as given by constructors; coalesce drops size-1 modes (a size-1
 * layout coalesces to `1:0`). Algebra
 * results may contain size-1 modes wherever CuTe's would; comparisons and
 * laws treat any stride of a size-1 mode as equivalent (docs/algebra.md).
 */
#ifndef AXE_CUTE_H
#define AXE_CUTE_H

#include "axe/swizzle.h"
#include "axe/tuple.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_CUTE_MAX_LEAVES AXE_TUPLE_MAX_LEAVES
#define AXE_CUTE_BASIS_MAX_DEPTH 3
#define AXE_CUTE_BASIS_MAX_MODE 255

/* The basis code of E<k0> / E<k0,k1> / E<k0,k1,k2>. */
#define AXE_CUTE_BASIS1(k0) ((1u << 24) | ((uint32_t)(k0) << 16))
#define AXE_CUTE_BASIS2(k0, k1)                                                \
    ((2u << 24) | ((uint32_t)(k0) << 16) | ((uint32_t)(k1) << 8))
#define AXE_CUTE_BASIS_DEPTH(code) ((int)((code) >> 24))
#define AXE_CUTE_BASIS_MODE(code, level)                                       \
    ((int)(((code) >> (16 - 8 * (level))) & 0xffu))

typedef struct axe_cute_layout {
    axe_tuple shape;
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    uint32_t basis[AXE_CUTE_MAX_LEAVES];
} axe_cute_layout;

/* A value of a layout with scaled-basis strides: the nonzero components
 * (basis code, value), sorted by code; an integer result has code 0. */
#define AXE_CUTE_POINT_MAX AXE_CUTE_MAX_LEAVES
typedef struct axe_cute_point {
    int n;
    uint32_t basis[AXE_CUTE_POINT_MAX];
    int64_t v[AXE_CUTE_POINT_MAX];
} axe_cute_point;

/* ---- construction and structure ------------------------------------- */

/* shape:stride with integer strides; "stride" congruent to "shape". */
AXE_NODISCARD AXE_API axe_status axe_cute_make(const axe_tuple *shape,
                                               const axe_tuple *stride,
                                               axe_cute_layout *out);
/* Compact column-major (CuTe's default, LayoutLeft) layout of "shape". */
AXE_NODISCARD AXE_API axe_status axe_cute_make_col_major(const axe_tuple *shape,
                                                         axe_cute_layout *out);
/* Compact row-major (LayoutRight) layout of "shape". */
AXE_NODISCARD AXE_API axe_status axe_cute_make_row_major(const axe_tuple *shape,
                                                         axe_cute_layout *out);
/* Compact layout whose leaves are ordered by "order" (congruent; smaller
 * order = smaller stride, ties broken left to right). */
AXE_NODISCARD AXE_API axe_status axe_cute_make_ordered(const axe_tuple *shape,
                                                       const axe_tuple *order,
                                                       axe_cute_layout *out);
/* The identity layout of "shape": strides E<i> (E<i,j> nested), mapping a
 * coordinate to itself. */
AXE_NODISCARD AXE_API axe_status axe_cute_make_identity(const axe_tuple *shape,
                                                        axe_cute_layout *out);

AXE_API bool axe_cute_has_basis(const axe_cute_layout *l);
AXE_API int axe_cute_rank(const axe_cute_layout *l);
AXE_API int axe_cute_depth(const axe_cute_layout *l);
AXE_NODISCARD AXE_API axe_status axe_cute_size(const axe_cute_layout *l,
                                               int64_t *out);
/* cosize: L(size-1) + 1 for integer layouts with nonnegative strides, and
 * in general 1 + sum of (shape-1)*|stride| (CuTe); with scaled bases the
 * product over the basis modes of their per-mode cosizes. */
AXE_NODISCARD AXE_API axe_status axe_cute_cosize(const axe_cute_layout *l,
                                                 int64_t *out);
/* Mode "i" (a rank-1 layout's mode 0 of a scalar profile is itself). */
AXE_NODISCARD AXE_API axe_status axe_cute_get(const axe_cute_layout *l, int i,
                                              axe_cute_layout *out);
/* get<path[0], path[1], ...>; n = 0 is the layout itself; a scalar
 * layout is its own mode 0 at the top; an index past a leaf is DOMAIN. */
AXE_NODISCARD AXE_API axe_status axe_cute_get_path(const axe_cute_layout *l,
                                                   const int *path, int n,
                                                   axe_cute_layout *out);
/* Modes [b, e) as a tuple layout. */
AXE_NODISCARD AXE_API axe_status axe_cute_take(const axe_cute_layout *l, int b,
                                               int e, axe_cute_layout *out);
/* Modes idx[0..n) in that order. */
AXE_NODISCARD AXE_API axe_status axe_cute_select(const axe_cute_layout *l,
                                                 const int *idx, int n,
                                                 axe_cute_layout *out);
/* Modes [b, e) grouped into one mode. */
AXE_NODISCARD AXE_API axe_status axe_cute_group(const axe_cute_layout *l, int b,
                                                int e, axe_cute_layout *out);
/* All leaves as one flat tuple layout (depth <= 1). */
AXE_NODISCARD AXE_API axe_status axe_cute_flatten(const axe_cute_layout *l,
                                                  axe_cute_layout *out);
/* (modes of a..., b) and (a, modes of b...). */
AXE_NODISCARD AXE_API axe_status axe_cute_append(const axe_cute_layout *a,
                                                 const axe_cute_layout *b,
                                                 axe_cute_layout *out);
AXE_NODISCARD AXE_API axe_status axe_cute_prepend(const axe_cute_layout *a,
                                                  const axe_cute_layout *b,
                                                  axe_cute_layout *out);
/* (a, b) as a rank-2 layout. */
AXE_NODISCARD AXE_API axe_status axe_cute_pair(const axe_cute_layout *a,
                                               const axe_cute_layout *b,
                                               axe_cute_layout *out);
/* Same shape, and the same stride (and basis) wherever the extent is > 1. */
AXE_API bool axe_cute_equal(const axe_cute_layout *a, const axe_cute_layout *b);

/* ---- evaluation ------------------------------------------------------ */

/* L(idx) for an integer-stride layout ("idx" unflattened colex; indices
 * >= size continue along the last mode as in CuTe). */
AXE_NODISCARD AXE_API axe_status axe_cute_eval(const axe_cute_layout *l,
                                               int64_t idx, int64_t *out);
/* L(crd) for a coordinate weakly congruent to the shape. */
AXE_NODISCARD AXE_API axe_status axe_cute_eval_crd(const axe_cute_layout *l,
                                                   const axe_tuple *crd,
                                                   int64_t *out);
/* L(idx) for any layout, as a point (scaled-basis components). */
AXE_NODISCARD AXE_API axe_status axe_cute_eval_point(const axe_cute_layout *l,
                                                     int64_t idx,
                                                     axe_cute_point *out);
AXE_API bool axe_cute_point_equal(const axe_cute_point *a,
                                  const axe_cute_point *b);

/* ---- the algebra (each defined in docs/algebra.md) ------------------ */

/* Same function, depth <= 1, fewest modes; a size-1 result is `1:0`. */
AXE_NODISCARD AXE_API axe_status axe_cute_coalesce(const axe_cute_layout *l,
                                                   axe_cute_layout *out);
/* Coalesce each mode selected by "profile" separately: a leaf of "profile"
 * at mode i coalesces that mode whole; a tuple recurses. */
AXE_NODISCARD AXE_API axe_status axe_cute_coalesce_by(const axe_cute_layout *l,
                                                      const axe_tuple *profile,
                                                      axe_cute_layout *out);
/* Same function on every index i >= 0, also past size(l) where evaluation
 * continues along the last leaf; depth <= 1, fewest modes. A last leaf of
 * extent 1 is kept (its stride carries the continuation) unless it merges:
 * `(2,1,6,1):(1,7,8,0)` gives `(2,6,1):(1,8,0)`. CuTe's detail::coalesce_x,
 * cutegen's coalesce_x; what composition reads its left operand as. */
AXE_NODISCARD AXE_API axe_status
axe_cute_coalesce_extended(const axe_cute_layout *l, axe_cute_layout *out);
/* Drop size-1 modes and stride-0 modes, then coalesce; same image. */
AXE_NODISCARD AXE_API axe_status axe_cute_filter(const axe_cute_layout *l,
                                                 axe_cute_layout *out);
/* Replace stride-0 modes by size 1 (keeps the profile). */
AXE_NODISCARD AXE_API axe_status axe_cute_filter_zeros(const axe_cute_layout *l,
                                                       axe_cute_layout *out);

/*
 * The composition "a" ∘ "b": R with R(i) = a(b(i)) for every i < size(b),
 * with R's shape compatible with b's: each leaf s of b becomes a flat mode
 * of size s (fewest modes; `1:0` for s == 1). "a" is read as eval reads
 * it, indices past size(a) continuing along a's last mode, and as odd,
 * a(-x) = -a(x), for negative values of b (CuTe's truncating idx2crd); a
 * scaled-basis stride v@k of b indexes mode k of a. Succeeds whenever such
 * a layout exists; otherwise AXE_ERR_NOT_COMPOSABLE with the violated
 * condition in "diag" (shape or stride divisibility at a mode boundary of
 * a, or b's leaves not independent under a). AXE_ERR_UNSUPPORTED if b
 * mixes integer and scaled-basis strides, or if deciding would take more
 * than 2^22 evaluations (a non-dividing stride over a huge period).
 */
AXE_NODISCARD AXE_API axe_status axe_cute_compose(const axe_cute_layout *a,
                                                  const axe_cute_layout *b,
                                                  axe_cute_layout *out,
                                                  axe_diag *diag);

/*
 * The complement of "a" with respect to "cotarget" M (CuTe's): R strictly
 * increasing, (a, R) injective on a's image (so R(j) is not in it for
 * j > 0) with every value below ceil(M / x) x, x the extent of a's mode of
 * largest stride; when every stride of a, sorted, is a multiple of the
 * extent of the modes below it, (a, R) is onto [0, ceil(M / x) x). M < 0
 * means cosize(a). Scaled-basis layouts are complemented per basis
 * coordinate, M flattened over them (docs/algebra.md). Fails if a sorted
 * stride is below the extent of the modes under it.
 */
AXE_NODISCARD AXE_API axe_status axe_cute_complement(const axe_cute_layout *a,
                                                     int64_t cotarget,
                                                     axe_cute_layout *out,
                                                     axe_diag *diag);
/*
 * The extended complement (the CuTe paper's Eqs. 28-29): complement(a, M)
 * whose last mode ceil(M / x):x is kept even at extent 1, so that on
 * CuTe's extended domain (the last mode taking every index past size(R))
 * R continues as R(q size(R) + j) = q B + R(j), B = ceil(M / x) x, and
 * (a, R) stays injective (onto [0, q B) when the strides divide):
 * complement((4,8):(1,4)) = 1:32, of (4,8):(1,8) (2,1):(4,64).
 */
AXE_NODISCARD AXE_API axe_status
axe_cute_complement_extended(const axe_cute_layout *a, int64_t cotarget,
                             axe_cute_layout *out, axe_diag *diag);
/* The complement with respect to a shape: its size for integer strides;
 * for scaled bases mode k of "cotarget" bounds basis coordinate k (CuTe's
 * complement(b, shape(a)) in logical_divide). */
AXE_NODISCARD AXE_API axe_status
axe_cute_complement_shape(const axe_cute_layout *a, const axe_tuple *cotarget,
                          axe_cute_layout *out, axe_diag *diag);
/* Right inverse R: a(R(k)) == k for every codomain point k < size(R)
 * (scaled bases: k unflattened over the codomain); for a injective with
 * strides >= 0, size(R) is the least value not in a's image. */
AXE_NODISCARD AXE_API axe_status axe_cute_right_inverse(
    const axe_cute_layout *a, axe_cute_layout *out, axe_diag *diag);
/* Left inverse R: a(R(a(k))) == a(k) for all k < size(a), and R(a(k)) == k
 * when a has no stride-0 mode; needs strides >= 0 whose sorted values (of
 * coalesce(a), per basis coordinate) divide each other without overlap. */
AXE_NODISCARD AXE_API axe_status axe_cute_left_inverse(const axe_cute_layout *a,
                                                       axe_cute_layout *out,
                                                       axe_diag *diag);
/* Nullspace: a layout K onto the indices k with a(k) == 0 (K(0) = 0), over
 * a's stride-0 modes; AXE_ERR_UNSUPPORTED if strides of both signs can
 * cancel. */
AXE_NODISCARD AXE_API axe_status axe_cute_nullspace(const axe_cute_layout *a,
                                                    axe_cute_layout *out,
                                                    axe_diag *diag);

/* ---- tilers ----------------------------------------------------------- */

/*
 * A tiler: a tuple whose leaves are layouts or `_` (keep the mode), e.g.
 * `<4:1, 8:2>`, CuTe-IR `[4:1;8:2]`, nested `[[8:1;4:1];_;2:1]`. A shape
 * `(3,8)` used as a tiler means `<3:1, 8:1>`. Representation: tokens over
 * '[' ']' 'L' '_' (each 'L' is the next entry of "elem"), always wrapped in
 * one outer '[' ']'.
 */
#define AXE_CUTE_TILER_MAX 8
#define AXE_CUTE_TILER_MAX_TOKENS 32
typedef struct axe_cute_tiler {
    uint8_t ntok;
    uint8_t nelem;
    char tok[AXE_CUTE_TILER_MAX_TOKENS];
    axe_cute_layout elem[AXE_CUTE_TILER_MAX];
} axe_cute_tiler;

/* The tiler <s0:1, s1:1, ...> of a shape (nested tuples nest). */
AXE_NODISCARD AXE_API axe_status
axe_cute_tiler_from_shape(const axe_tuple *shape, axe_cute_tiler *out);
/* The one-element tiler [l]. */
AXE_NODISCARD AXE_API axe_status
axe_cute_tiler_from_layout(const axe_cute_layout *l, axe_cute_tiler *out);
/* Top-level elements of "t". */
AXE_API int axe_cute_tiler_rank(const axe_cute_tiler *t);

/* By-mode composition: mode i of "a" composed with element i of "t"
 * (`_` keeps the mode, a nested tiler recurses); as in CuTe, modes of "a"
 * beyond rank(t) are dropped, and rank(t) > rank(a) is an error. */
AXE_NODISCARD AXE_API axe_status
axe_cute_compose_tiler(const axe_cute_layout *a, const axe_cute_tiler *t,
                       axe_cute_layout *out, axe_diag *diag);

/* ---- divides and products -------------------------------------------- */

/* logical_divide(a, b) = a ∘ (b, complement_shape(b, shape(a))) — the
 * complement up to size(a) for integer strides, per coordinate of a's shape
 * for scaled-basis b; by mode for a tiler (`_` keeps a mode, modes beyond
 * the tiler are kept). zipped: ((tiles), (rest)); tiled: ((tiles),
 * rest...); flat: (tiles..., rest...). */
typedef enum axe_cute_divide_kind {
    AXE_CUTE_DIVIDE_LOGICAL,
    AXE_CUTE_DIVIDE_ZIPPED,
    AXE_CUTE_DIVIDE_TILED,
    AXE_CUTE_DIVIDE_FLAT
} axe_cute_divide_kind;
AXE_NODISCARD AXE_API axe_status axe_cute_divide(axe_cute_divide_kind kind,
                                                 const axe_cute_layout *a,
                                                 const axe_cute_tiler *b,
                                                 axe_cute_layout *out,
                                                 axe_diag *diag);
/* Divide by a plain layout (the tiler of one layout applied to all of a). */
AXE_NODISCARD AXE_API axe_status axe_cute_divide_layout(
    axe_cute_divide_kind kind, const axe_cute_layout *a,
    const axe_cute_layout *b, axe_cute_layout *out, axe_diag *diag);

/* logical_product(a, b) = (a, complement(a, size(a)*cosize(b)) ∘ b);
 * zipped/tiled/flat rearrange modes as for divide; blocked and raked
 * interleave the modes of a and of the product with b per mode. */
typedef enum axe_cute_product_kind {
    AXE_CUTE_PRODUCT_LOGICAL,
    AXE_CUTE_PRODUCT_ZIPPED,
    AXE_CUTE_PRODUCT_TILED,
    AXE_CUTE_PRODUCT_FLAT,
    AXE_CUTE_PRODUCT_BLOCKED,
    AXE_CUTE_PRODUCT_RAKED
} axe_cute_product_kind;
AXE_NODISCARD AXE_API axe_status axe_cute_product(axe_cute_product_kind kind,
                                                  const axe_cute_layout *a,
                                                  const axe_cute_layout *b,
                                                  axe_cute_layout *out,
                                                  axe_diag *diag);

/* Replicate "a" to cover "shape" (rounded up per mode), in mode "order"
 * (NULL: column-major); CuTe's tile_to_shape. */
AXE_NODISCARD AXE_API axe_status axe_cute_tile_to_shape(
    const axe_cute_layout *a, const axe_tuple *shape, const axe_tuple *order,
    axe_cute_layout *out, axe_diag *diag);

/* ---- slicing ----------------------------------------------------------- */

/* slice: the modes where "crd" has `_`, with the fixed coordinates' offset
 * returned in "offset" (may be NULL): L(crd filled with x) == offset +
 * slice(L)(x); dice: the modes where "crd" is fixed. "crd" must be weakly
 * congruent to the shape (AXE_ERR_INCOMPATIBLE), and a fixed coordinate of
 * slice must lie inside the mode it indexes (AXE_ERR_DOMAIN). */
AXE_NODISCARD AXE_API axe_status axe_cute_slice(const axe_cute_layout *l,
                                                const axe_tuple *crd,
                                                axe_cute_layout *out,
                                                axe_cute_point *offset,
                                                axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_cute_dice(const axe_cute_layout *l,
                                               const axe_tuple *crd,
                                               axe_cute_layout *out,
                                               axe_diag *diag);
/* The same on integer tuples (shapes, coordinates). */
AXE_NODISCARD AXE_API axe_status axe_tuple_slice(const axe_tuple *t,
                                                 const axe_tuple *crd,
                                                 axe_tuple *out,
                                                 axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_tuple_dice(const axe_tuple *t,
                                                const axe_tuple *crd,
                                                axe_tuple *out, axe_diag *diag);

/* ---- vectors and recasting ------------------------------------------ */

/* max_common_layout: the longest prefix R of right_inverse(b) with
 * a(R(i)) == b(R(i)) == i for i < size(R) (the elements both layouts store
 * contiguously from 0); `1:0` when even a(R(1)) != 1. max_common_vector =
 * size(R). */
AXE_NODISCARD AXE_API axe_status axe_cute_max_common_layout(
    const axe_cute_layout *a, const axe_cute_layout *b, axe_cute_layout *out);
AXE_NODISCARD AXE_API axe_status axe_cute_max_common_vector(
    const axe_cute_layout *a, const axe_cute_layout *b, int64_t *out);
/* Reinterpret element units: upcast by n (n elements become one), downcast
 * by n (one element becomes n), recast from "old_bits" to "new_bits". */
AXE_NODISCARD AXE_API axe_status axe_cute_upcast(const axe_cute_layout *l,
                                                 int64_t n,
                                                 axe_cute_layout *out,
                                                 axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_cute_downcast(const axe_cute_layout *l,
                                                   int64_t n,
                                                   axe_cute_layout *out,
                                                   axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_cute_recast(const axe_cute_layout *l,
                                                 int64_t old_bits,
                                                 int64_t new_bits,
                                                 axe_cute_layout *out,
                                                 axe_diag *diag);

/* ---- composed layouts ------------------------------------------------ */

/*
 * A composed layout `outer o offset o inner`: i -> outer(offset + inner(i)),
 * where "outer" is a swizzle or a layout and "offset" an integer or a
 * coordinate of outer's domain (converted by colex crd2idx). CuTe's
 * ComposedLayout; swizzled smem layouts are `Sw<B,M,S> o 0 o L`. Algebra on
 * a composed layout acts on "inner" (divides, products, composition on the
 * right, flatten, coalesce, tile_to_shape); slicing moves the sliced-off
 * part into "offset".
 */
typedef enum axe_cute_outer_kind {
    AXE_CUTE_OUTER_SWIZZLE,
    AXE_CUTE_OUTER_LAYOUT
} axe_cute_outer_kind;

typedef struct axe_cute_composed {
    axe_cute_outer_kind kind;
    axe_swizzle swizzle;
    axe_cute_layout outer;
    axe_tuple offset;
    axe_cute_layout inner;
} axe_cute_composed;

/* c(idx) as a point. */
AXE_NODISCARD AXE_API axe_status axe_cute_composed_eval_point(
    const axe_cute_composed *c, int64_t idx, axe_cute_point *out);

/* ---- composed layouts: pass-through operations ----------------------- */

/* size(c) = size(inner). */
AXE_NODISCARD AXE_API axe_status
axe_cute_composed_size(const axe_cute_composed *c, int64_t *out);
/* cosize(c) = cosize(inner), as in CuTe (the extent of outer's domain
 * that c reaches, not the extent of c's values). */
AXE_NODISCARD AXE_API axe_status
axe_cute_composed_cosize(const axe_cute_composed *c, int64_t *out);
/* "c" with its inner layout replaced by "inner" (same outer and offset),
 * so that an operation on the inner layout (divide, product, flatten,
 * coalesce, tile_to_shape, get) lifts to composed layouts. AXE_ERR_INVALID
 * if the result is not well formed (a swizzle needs a scalar offset and
 * integer inner strides; a layout outer needs inner basis modes and an
 * offset that index its shape). */
AXE_NODISCARD AXE_API axe_status axe_cute_composed_with_inner(
    const axe_cute_composed *c, const axe_cute_layout *inner,
    axe_cute_composed *out);
/* outer o (offset + o) o slice(inner, crd), o the offset slicing inner cuts
 * off, so c(crd filled with x) == result(x); "crd" needs at least one `_`
 * (AXE_ERR_DOMAIN otherwise). */
AXE_NODISCARD AXE_API axe_status
axe_cute_composed_slice(const axe_cute_composed *c, const axe_tuple *crd,
                        axe_cute_composed *out, axe_diag *diag);
/* recast_layout<"old_bits","new_bits"> of outer, offset and inner (CuTe);
 * a swizzle outer is recast by powers of two only. */
AXE_NODISCARD AXE_API axe_status axe_cute_composed_recast(
    const axe_cute_composed *c, int64_t old_bits, int64_t new_bits,
    axe_cute_composed *out, axe_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
