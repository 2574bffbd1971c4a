/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slicing an Axe layout to a rectangular region (spec §10, the paper's
 * Appendix E): L[R:S] with f_{L[R:S]}(u) = f_L(u + begin) for every u in
 * the region's shape. The layout is canonicalized as a whole (with the
 * target, so scope fusion is global), grouped by the shape, and each dim's
 * block of shard iters is sliced on its own: peel whole inner iters, then
 * a no-wrap pivot iter or the midpoint two-piece wrap; any other region is
 * recovered from its steps (layout_slice_steps.c), which finds a layout
 * whenever one exists (found = false with the reason otherwise). Unlike TIRx,
 * the region is checked against the shape (a status naming the dim and the
 * boundary), and the midpoint wrap follows its carry to the nearest outer iter
 * that can take it (TIRx assumes iter k-1 can and then returns a wrong layout).
 * Invariant: the result's shard is the concatenation of the per-dim
 * answers, so dim d owns a contiguous block whose extents multiply to
 * end_d - begin_d; replicas are the canonical layout's and the offset is
 * the canonical offset plus each dim's nonzero digit offsets. The result
 * is not canonicalized (it may hold unit iters). A swizzled layout slices
 * its tile (an identity tile when the tile is trivial, spec §11).
 */
#include "layout_tile_internal.h"

/* One dim's block of iters, normalized, with begin's digits over it. */
typedef struct block {
    int m;
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int64_t digit[AXE_LAYOUT_MAX_SHARD];
} block;

/* Where a dim's answer goes and what to say when there is none. */
typedef struct slice_ctx {
    int dim;
    int64_t begin;
    int64_t end;
    axe_diag *diag;
} slice_ctx;

/* The iters "g[0 .. n)" without unit iters, adjacent iters on one axis with
 * e_next * s_next == s_prev fused (spec §4 steps 1 and 4); all-unit blocks
 * become (1, 1, axis of the first). Same map. TIRx canonicalizes the group
 * as a layout, which also re-runs the scope analysis on the group's axes
 * alone (failing or re-fusing); the whole layout is already canonical. */
static void normalize_block(const axe_iter *g, int n, block *b)
{
    b->m = 0;
    for (int i = 0; i < n; i++) {
        axe_iter *last = b->m > 0 ? &b->it[b->m - 1] : NULL;
        int64_t prod;
        if (g[i].extent == 1)
            continue;
        if (last != NULL && axe__axis_eq(last->axis, g[i].axis) &&
            !__builtin_mul_overflow(g[i].extent, g[i].stride, &prod) &&
            prod == last->stride &&
            !__builtin_mul_overflow(last->extent, g[i].extent, &prod)) {
            last->extent = prod;
            last->stride = g[i].stride;
            continue;
        }
        b->it[b->m++] = g[i];
    }
    if (b->m == 0 && n > 0) {
        b->it[0] = g[0];
        b->it[0].stride = 1;
        b->m = 1;
    }
}

/* The digits of "begin" over the block (last iter fastest) and their
 * offset sum_k d_k s_k added into "res". */
static axe_status block_digits(block *b, int64_t begin, axe_layout *res)
{
    int64_t x = begin;
    for (int k = b->m - 1; k >= 0; k--) {
        int64_t off;
        b->digit[k] = k > 0 ? x % b->it[k].extent : x;
        x /= b->it[k].extent;
        AXE_TRY(axe__mul(b->digit[k], b->it[k].stride, &off));
        if (off != 0)
            AXE_TRY(axe__layout_offset_add(res, b->it[k].axis, off));
    }
    return AXE_OK;
}

static axe_status push_iter(axe_layout *res, int64_t e, int64_t s,
                            const char *axis)
{
    return axe__iter_append(res->shard, &res->nshard, AXE_LAYOUT_MAX_SHARD, e,
                            s, axis);
}

/* Append the pivot's iters and then the peeled iters b->it[k+1 .. m). */
static axe_status emit(const block *b, int k, const axe_iter *pre, int npre,
                       axe_layout *res)
{
    for (int i = 0; i < npre; i++)
        AXE_TRY(push_iter(res, pre[i].extent, pre[i].stride, pre[i].axis));
    for (int i = k + 1; i < b->m; i++)
        AXE_TRY(
            push_iter(res, b->it[i].extent, b->it[i].stride, b->it[i].axis));
    return AXE_OK;
}

/* The outer iter j < k the midpoint wrap at pivot k carries into: the
 * nearest one whose digit is below its extent - 1 (the iters between wrap
 * from E-1 to 0); why there is none, or why the wrap is not the midpoint
 * form (rem = 2c with d_k + c = E_k, iters j..k on one axis), in "why". */
static int carry_iter(const block *b, int k, int64_t rem, const char **why)
{
    int j = k - 1;
    *why = NULL;
    if (rem % 2 != 0 || b->digit[k] + rem / 2 != b->it[k].extent) {
        *why = "the wrap is not at the midpoint of the region";
        return -1;
    }
    while (j >= 0 && b->digit[j] + 1 == b->it[j].extent)
        j--;
    if (j < 0) {
        *why = "the region runs past the group";
        return -1;
    }
    for (int i = j; i < k; i++)
        if (!axe__axis_eq(b->it[i].axis, b->it[k].axis)) {
            *why = "the carry reaches an iter on another axis";
            return -1;
        }
    return j;
}

/* The midpoint wrap at pivot k carrying into iter j: [(2, delta), (c,
 * S_k)] with delta = S_j - sum_{j<i<k} (E_i - 1) S_i - (E_k - c) S_k, so
 * the second half lands at digits d_j + 1, 0, ..., 0, 0..c-1 (TIRx: j =
 * k-1 only, and a wrong layout when iter k-1 is at its last digit). */
static axe_status midpoint(const block *b, int k, int64_t rem,
                           const slice_ctx *cx, axe_layout *res, bool *ok)
{
    const axe_iter *p = &b->it[k];
    const char *why;
    int j = carry_iter(b, k, rem, &why);
    axe_iter pre[2];
    int64_t c = rem / 2, delta = b->it[j < 0 ? 0 : j].stride, t;
    *ok = j >= 0;
    if (j < 0)
        return axe__fail(cx->diag, AXE_OK, -1,
                         "dim %d: region [%lld, %lld) wraps around iter "
                         "(%lld:%lld) of its group and is not the midpoint "
                         "two-piece form (%s), so no layout is found",
                         cx->dim, (long long)cx->begin, (long long)cx->end,
                         (long long)p->extent, (long long)p->stride, why);
    for (int i = j + 1; i <= k; i++) {
        AXE_TRY(axe__mul(i < k ? b->it[i].extent - 1 : p->extent - c,
                         b->it[i].stride, &t));
        AXE_TRY(axe__sub(delta, t, &delta));
    }
    pre[0] = *p;
    pre[0].extent = 2;
    pre[0].stride = delta;
    pre[1] = *p;
    pre[1].extent = c;
    return emit(b, k, pre, 2, res);
}

/*
 * SlicePerGroup (spec §10) of [begin, begin + n) over the block's iters,
 * appended to "res": peel inner iters whose digit is 0 and whose extent
 * divides what is left, then the pivot without wrap, else the midpoint
 * wrap, else the layout recovered from the region's steps. A single-iter
 * block is a plain (n, S_0) (bounds checked before).
 */
static axe_status slice_block(block *b, int64_t begin, int64_t n,
                              const slice_ctx *cx, axe_layout *res, bool *ok)
{
    int k = b->m - 1;
    int64_t rem = n;
    AXE_TRY(block_digits(b, begin, res));
    *ok = true;
    if (b->m == 1)
        return push_iter(res, n, b->it[0].stride, b->it[0].axis);
    while (k >= 0 && b->digit[k] == 0 && rem % b->it[k].extent == 0) {
        rem /= b->it[k].extent;
        k--;
    }
    if (k < 0) {
        AXE_ASSERT(rem == 1);
        return emit(b, k, NULL, 0, res);
    }
    if (b->digit[k] + rem <= b->it[k].extent) {
        axe_iter piv = b->it[k];
        piv.extent = rem;
        return emit(b, k, &piv, 1, res);
    }
    AXE_TRY(midpoint(b, k, rem, cx, res, ok));
    if (*ok)
        return AXE_OK;
    return axe__slice_by_steps(b->it, b->m, begin, n, cx->dim, res, ok,
                               cx->diag);
}

/* 0 <= begin < end <= shape for every dim, with the dim and boundary. */
static axe_status check_region(const int64_t *shape, const int64_t *begin,
                               const int64_t *end, int n, axe_diag *diag)
{
    for (int d = 0; d < n; d++) {
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d: shape extent %lld must be >= 1", d,
                             (long long)shape[d]);
        if (begin[d] < 0 || begin[d] >= shape[d])
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "dim %d: begin %lld is outside [0, %lld)", d,
                             (long long)begin[d], (long long)shape[d]);
        if (end[d] <= begin[d] || end[d] > shape[d])
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "dim %d: end %lld is outside (begin %lld, "
                             "extent %lld]",
                             d, (long long)end[d], (long long)begin[d],
                             (long long)shape[d]);
    }
    return AXE_OK;
}

/* Slice the (unswizzled) tile "t": canonicalize, group, slice each dim. */
static axe_status slice_tile(const axe_layout *t, const int64_t *shape,
                             const int64_t *begin, const int64_t *end, int n,
                             axe_target target, axe_layout *res, bool *found,
                             axe_diag *diag)
{
    axe_layout canon, g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    AXE_TRY(axe_layout_canonicalize(t, target, &canon, diag));
    AXE_TRY(axe_layout_group(&canon, shape, n, &g, seps, diag));
    res->nshard = 0;
    res->nreplica = g.nreplica;
    res->noffset = g.noffset;
    axe__iters_copy(res->replica, g.replica, g.nreplica);
    axe__offsets_copy(res->offset, g.offset, g.noffset);
    memset(&res->swizzle, 0, sizeof res->swizzle);
    for (int d = 0; d < n; d++) {
        block b;
        slice_ctx cx = {d, begin[d], end[d], diag};
        normalize_block(&g.shard[seps[d]], seps[d + 1] - seps[d], &b);
        if (b.m == 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d owns no shard iter after grouping", d);
        AXE_TRY(slice_block(&b, begin[d], end[d] - begin[d], &cx, res, found));
        if (!*found)
            return AXE_OK;
    }
    return AXE_OK;
}

axe_status axe_layout_slice(const axe_layout *l, const int64_t *shape,
                            const int64_t *begin, const int64_t *end, int n,
                            axe_target target, axe_layout *out, bool *found,
                            axe_diag *diag)
{
    axe_layout tile, res;
    bool ok = true;
    if (l == NULL || out == NULL || found == NULL || n < 0 ||
        (n > 0 && (shape == NULL || begin == NULL || end == NULL)))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "slice: missing layout, shape, region or output");
    if (n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "slice: %d dims exceed the limit of %d", n,
                         AXE_LAYOUT_MAX_DIMS);
    AXE_TRY(check_region(shape, begin, end, n, diag));
    if (l->swizzle.present)
        AXE_TRY(axe__swizzle_tile(l, shape, n, &tile, diag));
    AXE_TRY(slice_tile(l->swizzle.present ? &tile : l, shape, begin, end, n,
                       target, &res, &ok, diag));
    if (ok) {
        res.swizzle = l->swizzle;
        axe__layout_copy(out, &res);
    }
    *found = ok;
    return AXE_OK;
}
