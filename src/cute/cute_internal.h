/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal CuTe services: a layout builder (shape tokens plus per-leaf
 * stride and basis, appended together with capacity checks; its steps
 * inline) and helpers shared by the algebra files. A layout under
 * construction may be unbalanced; callers close what they open. Copies
 * move only the tokens and leaves in use, never a whole 744-byte value.
 */
#ifndef AXE_CUTE_INTERNAL_H
#define AXE_CUTE_INTERNAL_H

#include "axe/cute.h"
#include "tuple_internal.h"

/* "a" divides "b", for a > 0; a mask when a is a power of two, as the
 * extents and strides of most layouts are (a division costs tens of
 * cycles). */
static inline bool axe__divides(int64_t a, int64_t b)
{
    if ((a & (a - 1)) == 0)
        return (b & (a - 1)) == 0;
    return b % a == 0;
}

/* floor(b / a) for a > 0, b >= 0; a shift when a is a power of two. */
static inline int64_t axe__quot(int64_t b, int64_t a)
{
    if ((a & (a - 1)) == 0)
        return b >> __builtin_ctzll((unsigned long long)a);
    return b / a;
}

/* ceil(b / a) for a > 0, b >= 0, as axe__ceildiv; by a shift when a is a
 * power of two. */
static inline int64_t axe__ceil_quot(int64_t b, int64_t a)
{
    if ((a & (a - 1)) == 0)
        return (b >> __builtin_ctzll((unsigned long long)a)) +
               ((b & (a - 1)) != 0);
    return axe__ceildiv(b, a);
}

void axe__cute_clear(axe_cute_layout *l);
AXE_NODISCARD static inline axe_status axe__cute_open(axe_cute_layout *l)
{
    return axe__tuple_open(&l->shape);
}

AXE_NODISCARD static inline axe_status axe__cute_close(axe_cute_layout *l)
{
    return axe__tuple_close(&l->shape);
}

/* Append the leaf "shape":"stride" (basis code "basis"); inline, as the
 * tuple builder's steps. */
AXE_NODISCARD static inline axe_status axe__cute_push(axe_cute_layout *l,
                                                      int64_t shape,
                                                      int64_t stride,
                                                      uint32_t basis)
{
    int i = l->shape.nleaf;
    AXE_TRY(axe__tuple_push(&l->shape, shape));
    l->stride[i] = stride;
    l->basis[i] = stride == 0 ? 0 : basis;
    return AXE_OK;
}

/* Append the subtree of "src" at span "sp" as one element. */
AXE_NODISCARD static inline axe_status
axe__cute_append_span(axe_cute_layout *l, const axe_cute_layout *src,
                      const axe__span *sp)
{
    int at = l->shape.nleaf, n = sp->le - sp->lb;
    AXE_TRY(axe__tuple_append_span(&l->shape, &src->shape, sp));
    axe__copy(l->stride + at, src->stride + sp->lb, (size_t)n * sizeof(int64_t),
              axe__room(AXE_CUTE_MAX_LEAVES, at, sp->lb, sizeof(int64_t)));
    axe__copy(l->basis + at, src->basis + sp->lb, (size_t)n * sizeof(uint32_t),
              axe__room(AXE_CUTE_MAX_LEAVES, at, sp->lb, sizeof(uint32_t)));
    return AXE_OK;
}

/* Append all of "src" as one element. */
AXE_NODISCARD static inline axe_status
axe__cute_append(axe_cute_layout *l, const axe_cute_layout *src)
{
    axe__span sp = {0, src->shape.ntok, 0, src->shape.nleaf};
    return axe__cute_append_span(l, src, &sp);
}

/* Append each top-level mode of "src" as its own element. */
AXE_NODISCARD axe_status axe__cute_append_modes(axe_cute_layout *l,
                                                const axe_cute_layout *src);
/* out = (x, y), "x" and "y" each one element or, with "xm" / "ym", their
 * modes; "out" is written only if the result fits (AXE_ERR_CAPACITY
 * without a reason otherwise), directly unless it is "x" or "y". */
AXE_NODISCARD axe_status axe__cute_join(const axe_cute_layout *x, bool xm,
                                        const axe_cute_layout *y, bool ym,
                                        axe_cute_layout *out);
/* The spans of the top-level modes (see axe__tuple_spans). */
int axe__cute_spans(const axe_cute_layout *l, axe__span *out, int max);
/* A rank-1 scalar layout s:d. */
void axe__cute_leaf(int64_t shape, int64_t stride, axe_cute_layout *out);

/*
 * A layout read as a list of modes (cute_inverse.c): its leaves of extent
 * > 1 in order, each with its stride, basis code (0 when the stride is 0),
 * index stride (the product of the extents of the leaves before it, so the
 * index of a coordinate c is sum c_i * istride_i) and leaf number. With
 * "coalesce", consecutive leaves that CuTe's coalesce merges (same basis,
 * stride = previous extent * previous stride) become one mode. "bases":
 * whether some mode has a nonzero basis code.
 */
typedef struct axe__cute_modes {
    int n;
    bool bases;
    int64_t shape[AXE_CUTE_MAX_LEAVES];
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    int64_t istride[AXE_CUTE_MAX_LEAVES];
    uint32_t basis[AXE_CUTE_MAX_LEAVES];
    int leaf[AXE_CUTE_MAX_LEAVES];
} axe__cute_modes;

/* AXE_ERR_OVERFLOW if size(l) does not fit. */
AXE_NODISCARD axe_status axe__cute_modes_of(const axe_cute_layout *l,
                                            bool coalesce,
                                            axe__cute_modes *out);
/* The same with a reason in "diag". */
AXE_NODISCARD axe_status axe__cute_read_modes(const axe_cute_layout *l,
                                              bool coalesce,
                                              axe__cute_modes *out,
                                              axe_diag *diag);
/* Sort the indices idx[0..n) (n <= AXE_CUTE_MAX_LEAVES) by key[idx[i]],
 * stably: by insertion up to 8, above by merging runs in O(n log n), O(n)
 * if sorted, strictly decreasing or two sorted halves. */
void axe__cute_sort(const int64_t *key, int *idx, int n);
/* The modes of nonzero stride, ordered by stride (stable), into "ord";
 * returns their number. */
int axe__cute_modes_sorted(const axe__cute_modes *m, int *ord);
/* Append shape[i]:stride[i] (i < n, basis "basis") as one element of "l":
 * `1:0` when n == 0, a leaf when n == 1, a tuple otherwise. */
AXE_NODISCARD axe_status axe__cute_push_group(axe_cute_layout *l,
                                              const int64_t *shape,
                                              const int64_t *stride, int n,
                                              uint32_t basis);
/* The modes shape[i]:stride[i], i < n, of one flat element before it is
 * appended (one more than the leaves: a complement or a left inverse may
 * add a mode to those of its layout). */
typedef struct axe__cute_group {
    int n;
    int64_t shape[AXE_CUTE_MAX_LEAVES + 1];
    int64_t stride[AXE_CUTE_MAX_LEAVES + 1];
} axe__cute_group;
/* "g" (basis "basis") as the whole of "out", as axe__cute_push_group
 * appends it to an empty layout: AXE_ERR_CAPACITY with a reason in "diag"
 * if it has more modes than a layout has leaves, and "out" untouched. */
AXE_NODISCARD axe_status axe__cute_set_group(axe_cute_layout *out,
                                             const axe__cute_group *g,
                                             uint32_t basis, axe_diag *diag);
/* *out = *r, copying only the ntok tokens and nleaf leaves in use. */
void axe__cute_copy(axe_cute_layout *out, const axe_cute_layout *r);
/*
 * Builders for the divides and products, appending to "out" without a
 * copy of an operand or of the result; AXE_ERR_CAPACITY carries no reason.
 * compose: (subtree "sp" of "a") ∘ "b" as one element, as axe_cute_compose
 * finds it; with "rest" not NULL the parts of the result shaped like the
 * spans halves[0] and halves[1] of "b" (its two modes) go to "out" and
 * "rest". complement: axe_cute_complement_shape of "a" with the subtree
 * "sp" of "cotarget" as the cotarget.
 */
AXE_NODISCARD axe_status axe__cute_compose_append(
    const axe_cute_layout *a, const axe__span *sp, const axe_cute_layout *b,
    const axe__span *halves, axe_cute_layout *out, axe_cute_layout *rest,
    axe_diag *diag);
AXE_NODISCARD axe_status axe__cute_complement_append(const axe_cute_layout *a,
                                                     const axe_tuple *cotarget,
                                                     const axe__span *sp,
                                                     axe_cute_layout *out,
                                                     axe_diag *diag);
/* "s", with a reason in "diag" when it is AXE_ERR_CAPACITY. */
AXE_NODISCARD axe_status axe__cute_capacity(axe_status s, axe_diag *diag);

/*
 * The codomain of scaled-basis strides is a tree of basis coordinates: the
 * node E<k0,..,k_{d-1}> (depth d; the root is code 0, depth 0) has the
 * children 0..last, last the largest index k_d that a nonzero stride of
 * "m" below it uses. kind: whether the nonzero strides are scaled bases
 * (AXE_ERR_UNSUPPORTED if integer ones mix in). child: the code of child
 * "k". select: the modes on exactly "code" into "sub", and whether some
 * mode lies strictly below "code" (AXE_ERR_UNSUPPORTED if both).
 */
AXE_NODISCARD axe_status axe__cute_codomain_kind(const axe__cute_modes *m,
                                                 bool *basis, axe_diag *diag);
int axe__cute_codomain_last(const axe__cute_modes *m, uint32_t node, int depth);
uint32_t axe__cute_codomain_child(uint32_t node, int depth, int k);
AXE_NODISCARD axe_status axe__cute_codomain_select(const axe__cute_modes *m,
                                                   uint32_t code, int depth,
                                                   axe__cute_modes *sub,
                                                   bool *deeper,
                                                   axe_diag *diag);

/*
 * The leaves [lb, le) of a layout coalesced (cute_coalesce.c): leaves of
 * extent 1 dropped, neighbours merged where the stride equals the previous
 * extent times the previous stride (same basis). Same function on [0,
 * size); with "extended" also past the size, where evaluation continues
 * along the last leaf (CuTe's coalesce_x): a last leaf of extent 1 is then
 * kept unless it merges. No leaf left gives the one mode 1:0.
 */
typedef struct axe__cute_flat {
    int n;
    int64_t shape[AXE_CUTE_MAX_LEAVES];
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    uint32_t basis[AXE_CUTE_MAX_LEAVES];
} axe__cute_flat;

/* "out" is scratch when it fails. */
AXE_NODISCARD axe_status axe__cute_coalesce_leaves(const axe_cute_layout *l,
                                                   int lb, int le,
                                                   bool extended,
                                                   axe__cute_flat *out);

/*
 * Composition's parts (cute_compose.c, the general path in
 * cute_compose_exact.c). fn: a (a subtree of it) as the function
 * a(x) = sum_j beta_j floor(x / M_j): its modes coalesced in the extended
 * sense, boundaries prefix[j] = M_j (modes past an overflowing M_j are
 * unreachable and cut) and each stride's basis code as a component index
 * into code[]. pool: the modes of R per leaf, leaf k of b owning
 * [off[k], off[k] + cnt[k]). bleaves: leaves of b that index the same
 * part of a, x_k = c * d_k for c < s_k. cctx: where reasons go, and the
 * evaluations of a left before a check gives up (AXE_ERR_UNSUPPORTED).
 */
#define AXE_CUTE_COMPOSE_BUDGET (1L << 22)

/* The exhaustive right-inverse search (cute_inverse_search.c): layouts of
 * size up to AXE__CUTE_SEARCH_MAX, at most AXE__CUTE_SEARCH_BUDGET
 * evaluations. */
#define AXE__CUTE_SEARCH_MAX 1024
#define AXE__CUTE_SEARCH_BUDGET (1L << 22)
/* The largest right inverse of the integer modes "m" by exhaustive
 * search, into "g" when it is larger than "have" (true then); *done when
 * the search was exhaustive (so the answer, "g" or the one of size
 * "have", is the largest). False, *done false, for scaled bases, negative
 * strides or a size above the table. */
bool axe__cute_right_search(const axe__cute_modes *m, int64_t have,
                            axe__cute_group *g, bool *done);

/* The left inverse of the modes "m" of one codomain coordinate (strides
 * >= 0) by exhaustive search (cute_inverse_left.c), for strides that do
 * not divide each other: the R of least size, then of the
 * lexicographically least shape, with R(x) = sum c_j w_j at every point x
 * = sum c_j d_j of the nonzero-stride modes, into "g". AXE_ERR_DIVISIBILITY
 * when none exists, AXE_ERR_NOT_INJECTIVE with a witness,
 * AXE_ERR_UNSUPPORTED past AXE__CUTE_SEARCH_MAX points, values at or above
 * AXE__CUTE_LEFT_MAX_VALUE or the budget (when nothing was found). */
#define AXE__CUTE_LEFT_MAX_VALUE (1L << 16)
AXE_NODISCARD axe_status axe__cute_left_search(const axe__cute_modes *m,
                                               axe__cute_group *g,
                                               axe_diag *diag);

typedef struct axe__cute_fn {
    axe__cute_flat m;
    int64_t prefix[AXE_CUTE_MAX_LEAVES];
    uint8_t comp[AXE_CUTE_MAX_LEAVES];
    int ncomp;
    uint32_t code[AXE_CUTE_MAX_LEAVES];
} axe__cute_fn;

typedef struct axe__cute_pool {
    int n;
    int64_t shape[AXE_CUTE_MAX_LEAVES];
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    uint32_t basis[AXE_CUTE_MAX_LEAVES];
    int off[AXE_CUTE_MAX_LEAVES];
    int cnt[AXE_CUTE_MAX_LEAVES];
} axe__cute_pool;

typedef struct axe__cute_bleaves {
    int n;
    int leaf[AXE_CUTE_MAX_LEAVES];
    int64_t s[AXE_CUTE_MAX_LEAVES], d[AXE_CUTE_MAX_LEAVES];
} axe__cute_bleaves;

typedef struct axe__cute_cctx {
    axe_diag *diag;
    long budget;
} axe__cute_cctx;

/* Append the mode s:d (basis "b", 0 for d == 0) to "p". */
AXE_NODISCARD static inline axe_status
axe__cute_pool_put(axe__cute_pool *p, int64_t s, int64_t d, uint32_t b)
{
    if (p->n >= AXE_CUTE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    p->shape[p->n] = s;
    p->stride[p->n] = d;
    p->basis[p->n++] = d == 0 ? 0 : b;
    return AXE_OK;
}

/* The modes of a ∘ (s:d), d > 0, for leaf "leaf" of b, in general (the
 * divisor chain, else a scan bounded by the period; cute_compose_exact.c),
 * appended to "p". */
AXE_NODISCARD axe_status axe__cute_compose_leaf_exact(axe__cute_cctx *c,
                                                      const axe__cute_fn *f,
                                                      int leaf, int64_t s,
                                                      int64_t d,
                                                      axe__cute_pool *p);
/* a adds over the leaves of "g": per boundary where no carry is possible,
 * else pairs first, for a precise reason, then all of them. */
AXE_NODISCARD axe_status axe__cute_compose_adds_exact(
    axe__cute_cctx *c, const axe__cute_fn *f, const axe__cute_bleaves *g);

#endif
