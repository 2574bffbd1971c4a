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
 * a step moves on two axes at once, no layout of g exists at all.
 * A level does not visit every index: with Q_k the product of the extents
 * inside iter k, the step f(x + p) - f(x) is a function of the carries
 * D_k = floor((x + p) / Q_k) - floor(x / Q_k), and D_k changes only where
 * x mod Q_k is 0 or Q_k - (p mod Q_k) (never when Q_k divides p). A level
 * evaluates one step per run of equal carries (a bad run of two or more
 * indices makes the gcd 1), so its cost is the number of such runs, not
 * n. Inner iters the region covers whole are peeled first (they are iters
 * of g; the search starts past them, where their carries never change).
 * The search gives up after AXE__SLICE_STEPS_MAX runs in all and says
 * so. Invariant: "slot[k]" is the index of iter k's axis among the
 * block's distinct axes; value vectors hold one sum per slot; "inner[k]"
 * is Q_k.
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
    int64_t inner[AXE_LAYOUT_MAX_SHARD];
    int64_t budget; /* runs of equal carries left to visit */
} steps;

/* inner[k] = Q_k, the product of the extents inside iter k (the block's
 * size fits: the region lies within it). */
static axe_status inner_products(steps *q)
{
    int64_t prod = 1;
    for (int k = q->m - 1; k >= 0; k--) {
        q->inner[k] = prod;
        AXE_TRY(axe__mul(prod, q->it[k].extent, &prod));
    }
    return AXE_OK;
}

/* The distance from "x" to the first x' > x where x' mod "qk" is 0 or
 * qk - "r" (0 < r < qk): where the carry floor((x' + p) / qk) -
 * floor(x' / qk) may change. At most qk. */
static int64_t carry_change_gap(int64_t x, int64_t qk, int64_t r)
{
    int64_t off = x % qk, a = qk - off, b = qk - r - off;
    if (b <= 0)
        b += qk;
    return a < b ? a : b;
}

/* The first v' > "v" (at most "n") whose step f(begin + v' p) -
 * f(begin + (v' - 1) p) may differ from the step at "v": the first v'
 * with begin + (v' - 1) p at or past a change of some carry. */
static int64_t next_run(const steps *q, int64_t p, int64_t v, int64_t n)
{
    int64_t x = q->begin + (v - 1) * p, best = n;
    for (int k = 0; k < q->m; k++) {
        int64_t r = p % q->inner[k], w;
        if (r == 0)
            continue;
        w = carry_change_gap(x, q->inner[k], r);
        w = v + w / p + (w % p != 0);
        best = w < best ? w : best;
    }
    return best;
}

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
 * v whose step g(v p) - g((v - 1) p) is not s in "bad" (0 if none). The
 * steps are constant on each run [v, next_run); a run of two or more bad
 * steps holds two consecutive v, so e becomes 1. *capped: the budget of
 * runs ran out (e and bad are then not known). */
static axe_status level(steps *q, int64_t p, int64_t n, int64_t *s, int64_t *e,
                        int64_t *bad, bool *capped)
{
    int64_t prev[AXE_LAYOUT_MAX_SHARD], cur[AXE_LAYOUT_MAX_SHARD];
    int64_t step[AXE_LAYOUT_MAX_SHARD];
    AXE_TRY(value(q, 0, prev));
    AXE_TRY(value(q, p, cur));
    AXE_TRY(minus(q, cur, prev, s));
    *e = n;
    *bad = 0;
    *capped = false;
    for (int64_t v = 1, next; v<n && * e> 1; v = next) {
        if (q->budget-- == 0) {
            *capped = true;
            return AXE_OK;
        }
        next = next_run(q, p, v, n);
        AXE_TRY(value(q, (v - 1) * p, prev));
        AXE_TRY(value(q, v * p, cur));
        AXE_TRY(minus(q, cur, prev, step));
        if (!same(q, step, s)) {
            *e = axe__gcd(*e, v);
            *e = next > v + 1 ? axe__gcd(*e, v + 1) : *e;
            *bad = *bad == 0 ? v : *bad;
        }
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

/* Peel the innermost iters the region covers whole (begin and n multiples
 * of their product P): g(v P + i) = g(v P) + (their layout)(i), so they
 * are iters of g, found[0 ..) innermost first, each as the level search
 * would name it (a zero stride on the block's innermost axis, else on the
 * first iter of its axis). The search then starts at p = P, where their
 * carries never change. Returns the count; P in "*p". */
static int peel(const steps *q, int64_t n, axe_iter *found, int64_t *p)
{
    int nf = 0;
    *p = 1;
    for (int k = q->m - 1; k >= 0; k--) {
        const axe_iter *it = &q->it[k];
        int64_t pe;
        if (axe__mul(*p, it->extent, &pe) != AXE_OK || q->begin % pe != 0 ||
            n % pe != 0)
            break;
        *p = pe;
        if (it->extent == 1)
            continue;
        found[nf] = *it;
        axe__axis_copy(found[nf].axis, it->stride == 0
                                           ? q->it[q->m - 1].axis
                                           : q->it[first_of_slot(q, k)].axis);
        nf++;
    }
    return nf;
}

/* Fuse each peeled iter found[j] (j < "npeeled") with the next one when
 * it continues it (stride e_j s_j, on its axis unless s_j is 0), as the
 * level search, which finds the largest linear blocks, would have. */
static int merge_peeled(axe_iter *found, int nf, int npeeled)
{
    int j = 0;
    while (j < npeeled && j + 1 < nf) {
        const axe_iter *a = &found[j], *b = &found[j + 1];
        int64_t span;
        if (axe__mul(a->extent, a->stride, &span) != AXE_OK ||
            b->stride != span ||
            (a->stride != 0 && !axe__axis_eq(a->axis, b->axis))) {
            j++;
            continue;
        }
        found[j].extent *= b->extent;
        memmove(&found[j + 1], &found[j + 2],
                (size_t)(nf - j - 2) * sizeof found[0]);
        nf--;
        npeeled--;
    }
    return nf;
}

/* Append the iters of g, outermost first, to "res" (see the file
 * comment); *ok false with the reason in "diag" when g has no layout. */
axe_status axe__slice_by_steps(const axe_iter *it, int m, int64_t begin,
                               int64_t n, int dim, axe_layout *res, bool *ok,
                               axe_diag *diag)
{
    steps q = {it, m, begin, {0}, 0, {0}, AXE__SLICE_STEPS_MAX};
    axe_iter found[64];
    int nf, npeeled;
    int64_t p, left, s[AXE_LAYOUT_MAX_SHARD];
    *ok = false;
    number_axes(&q);
    AXE_TRY(inner_products(&q));
    nf = npeeled = peel(&q, n, found, &p);
    left = n / p;
    while (left > 1) {
        int64_t e, bad;
        bool capped;
        AXE_TRY(level(&q, p, left, s, &e, &bad, &capped));
        if (capped)
            return axe__fail(diag, AXE_OK, -1,
                             "dim %d: region [%lld, %lld) is none of TIRx's "
                             "slice forms, and axe's search by steps gave up "
                             "after %lld changes of step: a layout may exist "
                             "but none is given",
                             dim, (long long)begin, (long long)(begin + n),
                             (long long)AXE__SLICE_STEPS_MAX);
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
    nf = merge_peeled(found, nf, npeeled);
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
