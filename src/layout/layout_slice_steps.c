/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The general slice of one dim's block of iters, by its steps: when the
 * region [begin, begin + n) of a block is none of TIRx's forms (peeling,
 * no wrap, the midpoint wrap), the layout of g(u) = f(begin + u) - f(begin)
 * is recovered from the values themselves. The innermost iter of any
 * layout of g has extent e dividing n and stride s = g(1) - g(0), and g
 * steps by s everywhere except where u + 1 is a multiple of e; the
 * largest such e is gcd(n, every u + 1 where the step is not s). Its
 * blocks of e are linear, so g(v e + i) = g(v e) + i s and the rest is the
 * layout of v -> g(v e), found the same way. Each level is exact, so the
 * result equals g on every index by construction; a canonical layout of
 * g has a step other than s at its first carry, so when the gcd is 1, or
 * a step moves on two axes at once, no layout of g exists at all. Each
 * level evaluates g once per index of what is left: at most 2n
 * evaluations of m digits, with n capped at AXE__SLICE_STEPS_MAX.
 * Invariant: "slot[k]" is the index of iter k's axis among the block's
 * distinct axes; value vectors hold one sum per slot.
 */
#include "layout_internal.h"

/* One dim's block: iters "it[0 .. m)" (last fastest) and the region's
 * start, with the block's distinct axes numbered. */
typedef struct steps {
    const axe_iter *it;
    int m;
    int64_t begin;
    int slot[AXE_LAYOUT_MAX_SHARD];
    int nslot;
} steps;

static void number_axes(steps *q)
{
    q->nslot = 0;
    for (int k = 0; k < q->m; k++) {
        int j = 0;
        while (j < k && !axe__axis_eq(q->it[j].axis, q->it[k].axis))
            j++;
        q->slot[k] = j < k ? q->slot[j] : q->nslot++;
    }
}

/* The first iter on the axis of iter "k". */
static int first_of_slot(const steps *q, int k)
{
    int j = 0;
    while (q->slot[j] != q->slot[k])
        j++;
    return j;
}

/* v = f(begin + u) per slot: sum_k digit_k S_k over the block's iters. */
static axe_status value(const steps *q, int64_t u, int64_t *v)
{
    int64_t x = q->begin + u, t;
    for (int j = 0; j < q->nslot; j++)
        v[j] = 0;
    for (int k = q->m - 1; k >= 0; k--) {
        int64_t d = k > 0 ? x % q->it[k].extent : x;
        x /= q->it[k].extent;
        AXE_TRY(axe__mul(d, q->it[k].stride, &t));
        AXE_TRY(axe__add(v[q->slot[k]], t, &v[q->slot[k]]));
    }
    return AXE_OK;
}

/* d = b - a per slot. */
static axe_status minus(const steps *q, const int64_t *b, const int64_t *a,
                        int64_t *d)
{
    for (int j = 0; j < q->nslot; j++)
        AXE_TRY(axe__sub(b[j], a[j], &d[j]));
    return AXE_OK;
}

static bool same(const steps *q, const int64_t *a, const int64_t *b)
{
    for (int j = 0; j < q->nslot; j++)
        if (a[j] != b[j])
            return false;
    return true;
}

/* One level over v -> g(v p), v < n: its step "s" = g(p) - g(0), the
 * largest extent "e" of blocks on which every step is s, and the first
 * v whose step g(v p) - g((v - 1) p) is not s in "bad" (0 if none). */
static axe_status level(const steps *q, int64_t p, int64_t n, int64_t *s,
                        int64_t *e, int64_t *bad)
{
    int64_t prev[AXE_LAYOUT_MAX_SHARD], cur[AXE_LAYOUT_MAX_SHARD];
    int64_t step[AXE_LAYOUT_MAX_SHARD];
    AXE_TRY(value(q, 0, prev));
    AXE_TRY(value(q, p, cur));
    AXE_TRY(minus(q, cur, prev, s));
    *e = n;
    *bad = 0;
    for (int64_t v = 1; v<n && * e> 1; v++) {
        AXE_TRY(value(q, v * p, cur));
        AXE_TRY(minus(q, cur, prev, step));
        if (!same(q, step, s)) {
            *e = axe__gcd(*e, v);
            *bad = *bad == 0 ? v : *bad;
        }
        memcpy(prev, cur, (size_t)q->nslot * sizeof cur[0]);
    }
    return AXE_OK;
}

/* The iter of step "s" (extent "e") on the axis of its nonzero slot,
 * the innermost iter's axis for a zero step; false when s is on two. */
static bool step_iter(const steps *q, const int64_t *s, int64_t e,
                      axe_iter *out)
{
    int nz = 0;
    out->extent = e;
    out->stride = 0;
    axe__axis_copy(out->axis, q->it[q->m - 1].axis);
    for (int k = 0; k < q->m; k++) {
        if (s[q->slot[k]] == 0 || first_of_slot(q, k) != k)
            continue;
        out->stride = s[q->slot[k]];
        axe__axis_copy(out->axis, q->it[k].axis);
        nz++;
    }
    return nz <= 1;
}

/* Append the iters of g, outermost first, to "res" (see the file
 * comment); *ok false with the reason in "diag" when g has no layout. */
axe_status axe__slice_by_steps(const axe_iter *it, int m, int64_t begin,
                               int64_t n, int dim, axe_layout *res, bool *ok,
                               axe_diag *diag)
{
    steps q = {it, m, begin, {0}, 0};
    axe_iter found[64];
    int nf = 0;
    int64_t p = 1, left = n, s[AXE_LAYOUT_MAX_SHARD];
    *ok = false;
    if (n > AXE__SLICE_STEPS_MAX)
        return axe__fail(diag, AXE_OK, -1,
                         "dim %d: the region has %lld elements and is none "
                         "of TIRx's slice forms; axe searches other forms "
                         "up to %lld elements, so no layout is given",
                         dim, (long long)n, (long long)AXE__SLICE_STEPS_MAX);
    number_axes(&q);
    while (left > 1) {
        int64_t e, bad;
        AXE_TRY(level(&q, p, left, s, &e, &bad));
        if (!step_iter(&q, s, e, &found[nf]))
            return axe__fail(diag, AXE_OK, -1,
                             "dim %d: no layout exists for region [%lld, "
                             "%lld): taken every %lld, its first step moves "
                             "on two axes at once",
                             dim, (long long)begin, (long long)(begin + n),
                             (long long)p);
        if (e == 1)
            return axe__fail(diag, AXE_OK, -1,
                             "dim %d: no layout exists for region [%lld, "
                             "%lld): taken every %lld, its %lld values step "
                             "by %lld on %s from index 0 to 1, and the "
                             "indices where the step changes (the first is "
                             "%lld) fit no block size dividing %lld",
                             dim, (long long)begin, (long long)(begin + n),
                             (long long)p, (long long)left,
                             (long long)found[nf].stride, found[nf].axis,
                             (long long)bad, (long long)left);
        nf++;
        p *= e;
        left /= e;
    }
    if (nf == 0) {
        found[nf++] = (axe_iter){1, 1, {0}};
        axe__axis_copy(found[0].axis, it[m - 1].axis);
    }
    while (nf > 0) {
        const axe_iter *f = &found[--nf];
        if (axe__iter_append(res->shard, &res->nshard, AXE_LAYOUT_MAX_SHARD,
                             f->extent, f->stride, f->axis) != AXE_OK)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "dim %d: the slice needs more than %d shard "
                             "iters",
                             dim, AXE_LAYOUT_MAX_SHARD);
    }
    *ok = true;
    return AXE_OK;
}
