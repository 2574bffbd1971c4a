/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Inverses of CuTe layouts (right_inverse, left_inverse, nullspace) and the
 * codomain machinery they share with complement. A layout is read as a
 * mode list (axe__cute_modes): its leaves of extent > 1 with stride, basis
 * code and index stride, so that a's index of a coordinate c is
 * sum c_i * istride_i. The codomain of a layout with scaled-basis strides
 * is the tuple of its basis coordinates E<p>, p a path k0[,k1[,k2]]; the
 * inverses act on each coordinate separately and their results are tuples
 * shaped like the codomain: modes 0..max at every level, each leaf holding
 * the element built from the modes that move E<p> (`1:0` when none does).
 * A codomain point x is then the index sum x_p * W_p, W_p the product of
 * the extents of the codomain leaves before p (docs/algebra.md).
 * Invariant: a result satisfies its defining equation by construction; an
 * input for which the construction does not apply gets a status and a
 * reason, never a result that is not an inverse.
 */
#include <string.h>

#include "cute_internal.h"

/* Mode j of "m" and leaf "s":"d" at "b" merge under CuTe's coalesce. */
static bool merges(const axe__cute_modes *m, int j, int64_t d, uint32_t b)
{
    int64_t next;
    return m->basis[j] == b &&
           !__builtin_mul_overflow(m->shape[j], m->stride[j], &next) &&
           next == d;
}

axe_status axe__cute_modes_of(const axe_cute_layout *l, bool coalesce,
                              axe__cute_modes *out)
{
    int64_t w = 1;
    int n = 0;
    bool bases = false;
    for (int i = 0; i < l->shape.nleaf; i++) {
        int64_t s = l->shape.v[i], d = l->stride[i], istride = w;
        uint32_t b = d == 0 ? 0 : l->basis[i];
        if (s < 1)
            return AXE_ERR_INVALID;
        AXE_TRY(axe__mul(w, s, &w));
        if (s == 1)
            continue;
        if (coalesce && n > 0 && merges(out, n - 1, d, b)) {
            out->shape[n - 1] *= s;
            continue;
        }
        out->shape[n] = s;
        out->stride[n] = d;
        out->istride[n] = istride;
        out->basis[n] = b;
        out->leaf[n++] = i;
        bases = bases || b != 0;
    }
    out->n = n;
    out->bases = bases;
    return AXE_OK;
}

/* Merge the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi),
 * the left run first among equal keys. */
static void merge_runs(const int64_t *key, const int *src, int lo, int mid,
                       int hi, int *dst)
{
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi)
        dst[k++] = key[src[j]] < key[src[i]] ? src[j++] : src[i++];
    while (i < mid)
        dst[k++] = src[i++];
    while (j < hi)
        dst[k++] = src[j++];
}

static void insertion_sort(const int64_t *key, int *idx, int n)
{
    for (int i = 1; i < n; i++) {
        int v = idx[i], j = i;
        for (; j > 0 && key[idx[j - 1]] > key[v]; j--)
            idx[j] = idx[j - 1];
        idx[j] = v;
    }
}

/* The starts of the maximal non-decreasing runs of key[idx[]], then n;
 * returns the number of runs. */
static int find_runs(const int64_t *key, const int *idx, int n, int *start)
{
    int r = 0;
    start[r++] = 0;
    for (int i = 1; i < n; i++)
        if (key[idx[i]] < key[idx[i - 1]])
            start[r++] = i;
    start[r] = n;
    return r;
}

/* Natural merge sort: merge neighbouring runs until one is left, so that
 * a sorted input costs one pass and two sorted halves one merge. */
static void merge_sort(const int64_t *key, int *idx, int n)
{
    int tmp[AXE_CUTE_MAX_LEAVES], start[AXE_CUTE_MAX_LEAVES + 1];
    int *src = idx, *dst = tmp, *t, r = find_runs(key, idx, n, start);
    while (r > 1) {
        int k = 0;
        for (int i = 0; i < r; i += 2, k++) {
            int hi = start[i + 2 <= r ? i + 2 : r];
            merge_runs(key, src, start[i], start[i + 1], hi, dst);
            start[k] = start[i];
        }
        start[k] = n;
        r = k;
        t = src;
        src = dst;
        dst = t;
    }
    if (src != idx)
        memcpy(idx, src, (size_t)n * sizeof(int));
}

/* True if key[idx[]] strictly decreases (more than one element). */
static bool decreasing(const int64_t *key, const int *idx, int n)
{
    for (int i = 1; i < n; i++)
        if (key[idx[i - 1]] <= key[idx[i]])
            return false;
    return n > 1;
}

void axe__cute_sort(const int64_t *key, int *idx, int n)
{
    if (n <= 8) {
        insertion_sort(key, idx, n);
        return;
    }
    if (decreasing(key, idx, n)) {
        for (int i = 0; i < n / 2; i++) {
            int v = idx[i];
            idx[i] = idx[n - 1 - i];
            idx[n - 1 - i] = v;
        }
        return;
    }
    merge_sort(key, idx, n);
}

int axe__cute_modes_sorted(const axe__cute_modes *m, int *ord)
{
    int n = 0;
    for (int j = 0; j < m->n; j++)
        if (m->stride[j] != 0)
            ord[n++] = j;
    axe__cute_sort(m->stride, ord, n);
    return n;
}

axe_status axe__cute_set_group(axe_cute_layout *out, const axe__cute_group *g,
                               uint32_t basis, axe_diag *diag)
{
    if (g->n > AXE_CUTE_MAX_LEAVES)
        return axe__cute_capacity(AXE_ERR_CAPACITY, diag);
    axe__cute_clear(out);
    return axe__cute_push_group(out, g->shape, g->stride, g->n, basis);
}

axe_status axe__cute_push_group(axe_cute_layout *l, const int64_t *shape,
                                const int64_t *stride, int n, uint32_t basis)
{
    if (n == 0)
        return axe__cute_push(l, 1, 0, 0);
    if (n == 1)
        return axe__cute_push(l, shape[0], stride[0], basis);
    AXE_TRY(axe__cute_open(l));
    for (int i = 0; i < n; i++)
        AXE_TRY(axe__cute_push(l, shape[i], stride[i], basis));
    return axe__cute_close(l);
}

/* ---- the codomain of scaled-basis strides ------------------------------ */

/* The code bits of the levels [0, depth). */
static uint32_t prefix_mask(int depth)
{
    return 0xffffffu & ~((1u << (24 - 8 * depth)) - 1u);
}

/* "code" lies strictly below the codomain node "node" of depth "depth". */
static bool below(uint32_t code, uint32_t node, int depth)
{
    return AXE_CUTE_BASIS_DEPTH(code) > depth &&
           ((code ^ node) & prefix_mask(depth)) == 0;
}

uint32_t axe__cute_codomain_child(uint32_t node, int depth, int k)
{
    return ((uint32_t)(depth + 1) << 24) | (node & prefix_mask(depth)) |
           ((uint32_t)k << (16 - 8 * depth));
}

int axe__cute_codomain_last(const axe__cute_modes *m, uint32_t node, int depth)
{
    int last = -1;
    for (int j = 0; j < m->n; j++) {
        uint32_t c = m->basis[j];
        if (m->stride[j] != 0 && below(c, node, depth) &&
            AXE_CUTE_BASIS_MODE(c, depth) > last)
            last = AXE_CUTE_BASIS_MODE(c, depth);
    }
    return last;
}

axe_status axe__cute_codomain_select(const axe__cute_modes *m, uint32_t code,
                                     int depth, axe__cute_modes *sub,
                                     bool *deeper, axe_diag *diag)
{
    sub->n = 0;
    sub->bases = code != 0;
    *deeper = false;
    for (int j = 0; j < m->n; j++) {
        if (m->stride[j] == 0)
            continue;
        if (m->basis[j] != code) {
            *deeper = *deeper || below(m->basis[j], code, depth);
            continue;
        }
        sub->shape[sub->n] = m->shape[j];
        sub->stride[sub->n] = m->stride[j];
        sub->istride[sub->n] = m->istride[j];
        sub->basis[sub->n] = code;
        sub->leaf[sub->n++] = m->leaf[j];
    }
    if (*deeper && sub->n > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "leaf %d's basis is both a coordinate and a tuple "
                         "of coordinates of other leaves' bases",
                         sub->leaf[0]);
    return AXE_OK;
}

axe_status axe__cute_codomain_kind(const axe__cute_modes *m, bool *basis,
                                   axe_diag *diag)
{
    int lint = -1, lbasis = -1;
    for (int j = 0; m->bases && j < m->n; j++) {
        int depth = AXE_CUTE_BASIS_DEPTH(m->basis[j]);
        if (m->stride[j] == 0)
            continue;
        if (m->basis[j] != 0 && (depth < 1 || depth > 3))
            return AXE_ERR_INVALID;
        if (m->basis[j] == 0)
            lint = m->leaf[j];
        else
            lbasis = m->leaf[j];
    }
    if (lint >= 0 && lbasis >= 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "leaf %d has an integer stride and leaf %d a "
                         "scaled-basis stride: the codomain is not defined",
                         lint, lbasis);
    *basis = lbasis >= 0;
    return AXE_OK;
}

axe_status axe__cute_read_modes(const axe_cute_layout *a, bool coalesce,
                                axe__cute_modes *m, axe_diag *diag)
{
    axe_status s = axe__cute_modes_of(a, coalesce, m);
    if (s == AXE_ERR_OVERFLOW)
        return axe__fail(diag, s, -1, "the size of the layout overflows");
    return s;
}

axe_status axe__cute_capacity(axe_status s, axe_diag *diag)
{
    if (s != AXE_ERR_CAPACITY)
        return s;
    return axe__fail(diag, s, -1,
                     "the result needs more than %d leaves or %d tokens",
                     AXE_CUTE_MAX_LEAVES, AXE_TUPLE_MAX_TOKENS);
}

/* An inverse on the modes "m" of one codomain coordinate: the modes of
 * its element into "g". */
typedef axe_status (*mode_fn)(const axe__cute_modes *m, axe__cute_group *g,
                              axe_diag *diag);

static axe_status node_rec(const axe__cute_modes *m, uint32_t node, int depth,
                           mode_fn fn, axe_cute_layout *out, axe_diag *diag);

/* The element of codomain node "code" (depth "depth"): "fn" on the modes
 * moving E<code>, or the tuple of its children. */
static axe_status child_rec(const axe__cute_modes *m, uint32_t code, int depth,
                            mode_fn fn, axe_cute_layout *out, axe_diag *diag)
{
    axe__cute_modes sub;
    axe__cute_group g;
    bool deeper;
    AXE_TRY(axe__cute_codomain_select(m, code, depth, &sub, &deeper, diag));
    if (deeper)
        return node_rec(m, code, depth, fn, out, diag);
    AXE_TRY(fn(&sub, &g, diag));
    return axe__cute_push_group(out, g.shape, g.stride, g.n, 0);
}

/* The tuple of the children 0..last of codomain node "node". */
static axe_status node_rec(const axe__cute_modes *m, uint32_t node, int depth,
                           mode_fn fn, axe_cute_layout *out, axe_diag *diag)
{
    int last = axe__cute_codomain_last(m, node, depth);
    AXE_TRY(axe__cute_open(out));
    for (int k = 0; k <= last; k++)
        AXE_TRY(child_rec(m, axe__cute_codomain_child(node, depth, k),
                          depth + 1, fn, out, diag));
    return axe__cute_close(out);
}

/* "fn" per codomain coordinate of a: once on all of "m" for integer
 * strides, its element then the whole result (written once known, as
 * "m" holds all of a that is read), else over the codomain tree. */
static axe_status by_codomain(const axe_cute_layout *a, mode_fn fn,
                              axe_cute_layout *out, axe_diag *diag)
{
    axe__cute_modes m;
    axe__cute_group g;
    axe_cute_layout r;
    bool basis;
    AXE_TRY(axe__cute_read_modes(a, true, &m, diag));
    AXE_TRY(axe__cute_codomain_kind(&m, &basis, diag));
    if (!basis) {
        AXE_TRY(fn(&m, &g, diag));
        return axe__cute_set_group(out, &g, 0, diag);
    }
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_capacity(node_rec(&m, 0, 0, fn, &r, diag), diag));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* ---- right inverse ------------------------------------------------------ */

/*
 * The chain of "m" (CuTe's inverse_seq): from x = 1, take the first mode of
 * stride x and continue from x * its extent (one pass over the modes sorted
 * by stride, stably: x only grows, and a mode of the stride x just left is
 * never wanted again). The chain's modes s_j:d_j have
 * d_0 = 1 and d_{j+1} = s_j d_j, so they map their coordinates onto
 * [0, x_final) digit by digit; R takes x to the index whose chain
 * coordinates are those digits: R = (s_j...):(istride_j...), a(R(x)) = x.
 */
static int64_t chain(const axe__cute_modes *m, axe__cute_group *g)
{
    int64_t x = 1;
    int ord[AXE_CUTE_MAX_LEAVES], nz = axe__cute_modes_sorted(m, ord);
    g->n = 0;
    for (int i = 0; i < nz; i++) {
        int j = ord[i];
        if (m->stride[j] != x)
            continue;
        g->shape[g->n] = m->shape[j];
        g->stride[g->n++] = m->istride[j];
        if (axe__mul(x, m->shape[j], &x) != AXE_OK)
            break;
    }
    return x;
}

/* The chain, or a larger right inverse found by the exhaustive search
 * (cute_inverse_search.c) when a is not injective: (3,2):(1,2) has the
 * chain 3:1 but the largest is (2,2):(1,3). */
static axe_status right_fn(const axe__cute_modes *m, axe__cute_group *g,
                           axe_diag *diag)
{
    axe__cute_group found;
    bool done;
    int64_t x = chain(m, g);
    (void)diag;
    if (axe__cute_right_search(m, x, &found, &done))
        *g = found;
    return AXE_OK;
}

/*
 * right_inverse(a): R with a(R(x)) == x for every codomain point x <
 * size(R), built from the chain of coalesce(a) per codomain coordinate.
 * For a with nonnegative strides size(R) is not in a's image unless a is
 * not injective: then [0, size(R)] is not covered and R is the largest
 * such layout. A non-injective a with integer strides >= 0 and size(a) <=
 * AXE__CUTE_SEARCH_MAX is searched exhaustively (within the budget) for
 * the largest R.
 */
axe_status axe_cute_right_inverse(const axe_cute_layout *a,
                                  axe_cute_layout *out, axe_diag *diag)
{
    return by_codomain(a, right_fn, out, diag);
}

/* ---- left inverse ------------------------------------------------------- */

/* Modes "i" < "j" adjacent by stride, d_i | d_j: d_j must be at least
 * s_i d_i, else a(c) repeats. */
static axe_status check_injective(const axe__cute_modes *m, int i, int j,
                                  axe_diag *diag)
{
    int64_t d = m->stride[i], e = m->stride[j];
    if (e / d < m->shape[i])
        return axe__fail(diag, AXE_ERR_NOT_INJECTIVE, -1,
                         "a is not injective: stride %lld (leaf %d) is %lld "
                         "times stride %lld of the mode %lld:%lld at leaf %d",
                         (long long)e, m->leaf[j], (long long)(e / d),
                         (long long)d, (long long)m->shape[i], (long long)d,
                         m->leaf[i]);
    return AXE_OK;
}

/*
 * The left inverse on one codomain coordinate. With the nonzero strides
 * sorted, d_0 | d_1 | ... and d_{i+1} >= s_i d_i, a point x = sum c_i d_i
 * (c_i < s_i) has the mixed-radix digits (x mod d_0 = 0, c_0, c_1, ...) in
 * the radices (d_0, d_1/d_0, ..., s_last), so R = (d_0, d_1/d_0, ...,
 * s_last):(0, istride_0, ...) gives R(a(k)) = the index of those c_i
 * (CuTe's and pycute's result). Strides that do not divide each other
 * are searched exhaustively (cute_inverse_left.c).
 */
static axe_status left_fn(const axe__cute_modes *m, axe__cute_group *g,
                          axe_diag *diag)
{
    int ord[AXE_CUTE_MAX_LEAVES], n = axe__cute_modes_sorted(m, ord), k = 0;
    int64_t size;
    bool dividing = true;
    if (n > 0 && m->stride[ord[0]] < 0)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "left inverse of a negative stride (%lld, leaf %d): "
                         "a layout is not defined on negative points",
                         (long long)m->stride[ord[0]], m->leaf[ord[0]]);
    for (int i = 0; i + 1 < n; i++)
        if (m->stride[ord[i + 1]] % m->stride[ord[i]] != 0)
            dividing = false;
        else
            AXE_TRY(check_injective(m, ord[i], ord[i + 1], diag));
    if (!dividing)
        return axe__cute_left_search(m, g, diag);
    if (n > 0 && m->stride[ord[0]] > 1) {
        g->shape[k] = m->stride[ord[0]];
        g->stride[k++] = 0;
    }
    for (int i = 0; i < n; i++) {
        int j = ord[i];
        g->shape[k] =
            i + 1 < n ? m->stride[ord[i + 1]] / m->stride[j] : m->shape[j];
        g->stride[k++] = m->istride[j];
    }
    if (n > 0 &&
        axe__mul(m->stride[ord[n - 1]], m->shape[ord[n - 1]], &size) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the left inverse's size overflows");
    g->n = k;
    return AXE_OK;
}

/*
 * left_inverse(a): R with a(R(a(k))) == a(k) for every k < size(a), and
 * R(a(k)) == k when a has no stride-0 mode of extent > 1. Built when the
 * nonzero strides of each codomain coordinate, sorted, divide each other
 * and do not overlap (left_fn), else found by exhaustive search when one
 * exists; AXE_ERR_NOT_INJECTIVE with a witness, AXE_ERR_DIVISIBILITY when
 * none exists, AXE_ERR_UNSUPPORTED past the search's limits.
 */
axe_status axe_cute_left_inverse(const axe_cute_layout *a, axe_cute_layout *out,
                                 axe_diag *diag)
{
    return by_codomain(a, left_fn, out, diag);
}

/* ---- nullspace ---------------------------------------------------------- */

/* Sum of (s-1)|d| over the modes of "m" at basis "b" with stride sign
 * "sign", and the least such |d| (INT64_MAX if none). */
static axe_status signed_span(const axe__cute_modes *m, uint32_t b, int sign,
                              int64_t *span, int64_t *least)
{
    int64_t r = 0, lo = INT64_MAX, t, d;
    for (int j = 0; j < m->n; j++) {
        if (m->basis[j] != b || m->stride[j] == 0 ||
            (m->stride[j] > 0) != (sign > 0))
            continue;
        AXE_TRY(axe__mul(m->stride[j], sign, &d));
        AXE_TRY(axe__mul(m->shape[j] - 1, d, &t));
        AXE_TRY(axe__add(r, t, &r));
        lo = d < lo ? d : lo;
    }
    *span = r;
    *least = lo;
    return AXE_OK;
}

/* a(c) == 0 only where every nonzero-stride coordinate is 0: on each basis
 * the positive terms reach at most P and the negative ones at most N, so
 * no cancellation exists if P < least |negative| or N < least positive. */
static axe_status check_no_cancel(const axe__cute_modes *m, axe_diag *diag)
{
    for (int j = 0; j < m->n; j++) {
        int64_t p, n, pmin, nmin;
        if (m->stride[j] == 0)
            continue;
        if (signed_span(m, m->basis[j], 1, &p, &pmin) != AXE_OK ||
            signed_span(m, m->basis[j], -1, &n, &nmin) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the layout's values overflow");
        if (p >= nmin && n >= pmin)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "positive and negative strides can cancel (up "
                             "to %lld against up to -%lld): the zero set of "
                             "a need not be the image of a layout",
                             (long long)p, (long long)n);
    }
    return AXE_OK;
}

/*
 * nullspace(a): K over the stride-0 modes of a, K = (s_z...):(istride_z...),
 * so that a(K(i)) == 0 for i < size(K); its image is exactly the set of
 * k < size(a) with a(k) == 0 when no nonzero strides can cancel
 * (check_no_cancel; always so for nonnegative strides), and otherwise
 * AXE_ERR_UNSUPPORTED. `1:0` when a has no stride-0 mode.
 */
axe_status axe_cute_nullspace(const axe_cute_layout *a, axe_cute_layout *out,
                              axe_diag *diag)
{
    axe__cute_modes m;
    axe__cute_group g;
    AXE_TRY(axe__cute_read_modes(a, true, &m, diag));
    AXE_TRY(check_no_cancel(&m, diag));
    g.n = 0;
    for (int j = 0; j < m.n; j++) {
        if (m.stride[j] != 0)
            continue;
        g.shape[g.n] = m.shape[j];
        g.stride[g.n++] = m.istride[j];
    }
    return axe__cute_set_group(out, &g, 0, diag);
}
