/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The backward map of Axe layouts: the smallest logical index x < size
 * with D(x) + O = p (or D(x) + r + O = p for some replica r). The digits
 * of x are independent per axis (each shard iter moves one axis), so the
 * problem splits: on axis a, find digits c_k in [0, e_k) of the iters on a
 * with sum c_k s_k = q_a; the lexicographically smallest digit vector is
 * the combination of the per-axis smallest ones, and gives the smallest x.
 * Each axis is solved digit by digit, outermost first, keeping only digits
 * for which the rest can still reach the target (the range of the rest and
 * the gcd of its strides): for mixed-radix (injective) axes every step has
 * one candidate. A node budget bounds the search; past it a brute force
 * over x < size (bounded too) answers. Invariant: an answer is verified by
 * applying the layout to it before it is returned.
 */
#include "layout_internal.h"

#define NODE_BUDGET 200000
#define BRUTE_MAX ((int64_t)1 << 22)
#define MAX_AXES                                                               \
    (AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA + AXE_LAYOUT_MAX_OFFSET +   \
     AXE_POINT_MAX_AXES)

/* The shard iters on one axis: suffix ranges and gcds of their sums. */
typedef struct axis_problem {
    const axe_iter *it[AXE_LAYOUT_MAX_SHARD];
    int64_t lo[AXE_LAYOUT_MAX_SHARD + 1]; /* min of sum over it[j ..] */
    int64_t hi[AXE_LAYOUT_MAX_SHARD + 1]; /* max of sum over it[j ..] */
    int64_t g[AXE_LAYOUT_MAX_SHARD + 1];  /* gcd of strides of it[j ..] */
    int64_t c[AXE_LAYOUT_MAX_SHARD];
    int n;
    long budget;
} axis_problem;

/* Suffix bounds of the sums of "pr"; OVERFLOW if they do not fit. */
static axe_status prepare(axis_problem *pr)
{
    pr->lo[pr->n] = 0;
    pr->hi[pr->n] = 0;
    pr->g[pr->n] = 0;
    for (int j = pr->n - 1; j >= 0; j--) {
        int64_t span;
        AXE_TRY(axe__mul(pr->it[j]->extent - 1, pr->it[j]->stride, &span));
        AXE_TRY(axe__add(pr->lo[j + 1], span < 0 ? span : 0, &pr->lo[j]));
        AXE_TRY(axe__add(pr->hi[j + 1], span > 0 ? span : 0, &pr->hi[j]));
        if (pr->it[j]->stride == INT64_MIN)
            return AXE_ERR_OVERFLOW;
        pr->g[j] = axe__gcd(pr->g[j + 1], pr->it[j]->stride);
    }
    return AXE_OK;
}

/* Whether the iters it[j ..] can sum to "t" (range and gcd test). */
static bool reachable(const axis_problem *pr, int j, int64_t t)
{
    if (t < pr->lo[j] || t > pr->hi[j])
        return false;
    return pr->g[j] == 0 ? t == 0 : t % pr->g[j] == 0;
}

/* floor(a / b) for b != 0 (a / b must not overflow). */
static int64_t fdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t cdiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

/* The digits c in [0, e) with t - c s inside the range of it[j+1 ..]:
 * [*clo, *chi] (empty when *clo > *chi); s != 0. */
static void digit_range(const axis_problem *pr, int j, int64_t t, int64_t *clo,
                        int64_t *chi)
{
    int64_t s = pr->it[j]->stride, a, b, lo = 0, hi = pr->it[j]->extent - 1;
    if (!__builtin_sub_overflow(t, pr->lo[j + 1], &a) &&
        !__builtin_sub_overflow(t, pr->hi[j + 1], &b) && s != -1) {
        int64_t x = s > 0 ? fdiv(a, s) : fdiv(b, s);
        int64_t y = s > 0 ? cdiv(b, s) : cdiv(a, s);
        hi = x < hi ? x : hi;
        lo = y > lo ? y : lo;
    }
    *clo = lo;
    *chi = hi;
}

/* (a * b) mod m for 0 <= a, b < m (no overflow: doubling). */
static int64_t mulmod(int64_t a, int64_t b, int64_t m)
{
    uint64_t r = 0, x = (uint64_t)a, um = (uint64_t)m;
    for (uint64_t y = (uint64_t)b; y != 0; y >>= 1) {
        if (y & 1)
            r = (r + x) % um;
        x = (x + x) % um;
    }
    return (int64_t)r;
}

/* The inverse of a modulo m, gcd(a, m) = 1, m >= 1. */
static int64_t inverse(int64_t a, int64_t m)
{
    int64_t r0 = m, r1 = a % m, t0 = 0, t1 = 1;
    while (r1 != 0) {
        int64_t q = r0 / r1, tmp;
        tmp = r0 - q * r1, r0 = r1, r1 = tmp;
        tmp = t0 - q * t1, t0 = t1, t1 = tmp;
    }
    return axe__floormod(t0, m);
}

/* The smallest c >= clo with c s == t (mod g), g > 0, and the period of
 * such c, or false when there is none. */
static bool first_congruent(int64_t s, int64_t t, int64_t g, int64_t clo,
                            int64_t *c, int64_t *period)
{
    int64_t d = axe__gcd(s, g), m = g / d, sm, tm, c0;
    if (axe__floormod(t, d) != 0)
        return false;
    sm = axe__floormod(s / d, m);
    tm = axe__floormod(t / d, m);
    c0 = m == 1 ? 0 : mulmod(tm, inverse(sm, m), m);
    *period = m;
    return !__builtin_add_overflow(
        clo, axe__floormod(c0 - axe__floormod(clo, m), m), c);
}

/* Digits c[j ..] (lexicographically smallest) summing to "t": 1 found,
 * 0 none, -1 budget exhausted. */
static int solve(axis_problem *pr, int j, int64_t t)
{
    int64_t s, clo, chi, c, period;
    if (j == pr->n)
        return t == 0;
    if (--pr->budget < 0)
        return -1;
    s = pr->it[j]->stride;
    if (s == 0) {
        pr->c[j] = 0;
        return solve(pr, j + 1, t);
    }
    digit_range(pr, j, t, &clo, &chi);
    if (pr->g[j + 1] == 0) {
        if ((s == -1 && t == INT64_MIN) || t % s != 0 || t / s < clo ||
            t / s > chi)
            return 0;
        pr->c[j] = t / s;
        return solve(pr, j + 1, 0);
    }
    if (clo > chi || !first_congruent(s, t, pr->g[j + 1], clo, &c, &period))
        return 0;
    for (; c <= chi; c += period) {
        int64_t rest;
        int r = 0;
        pr->c[j] = c;
        if (!__builtin_sub_overflow(t, c * s, &rest))
            r = solve(pr, j + 1, rest);
        if (r != 0)
            return r;
        if (period > chi - c)
            break;
    }
    return 0;
}

/* The distinct axes a point of "l" or "p" can carry. */
typedef struct axis_set {
    int n;
    char name[MAX_AXES][AXE_AXIS_NAME_MAX];
} axis_set;

static void set_add(axis_set *a, const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (axe__axis_eq(a->name[i], name))
            return;
    axe__axis_copy(a->name[a->n++], name);
}

static void collect_axes(const axe_layout *l, const axe_point *p, axis_set *a)
{
    a->n = 0;
    for (int k = 0; k < l->nshard; k++)
        set_add(a, l->shard[k].axis);
    for (int k = 0; k < l->nreplica; k++)
        set_add(a, l->replica[k].axis);
    for (int i = 0; i < l->noffset; i++)
        set_add(a, l->offset[i].axis);
    for (int i = 0; i < p->n; i++)
        set_add(a, p->axis[i]);
}

/* The iters of "l" on "axis", in shard order, with their indices. */
static int gather(const axe_layout *l, const char *axis, axis_problem *pr,
                  int *index)
{
    pr->n = 0;
    for (int k = 0; k < l->nshard; k++)
        if (axe__axis_eq(l->shard[k].axis, axis)) {
            index[pr->n] = k;
            pr->it[pr->n++] = &l->shard[k];
        }
    return pr->n;
}

/* Solve axis "axis" for the shard sum "q": digits into "digits" at the
 * iters' indices; 1 found, 0 none, -1 budget exhausted. */
static int solve_axis(const axe_layout *l, const char *axis, int64_t q,
                      int64_t *digits, long *budget)
{
    axis_problem pr;
    int index[AXE_LAYOUT_MAX_SHARD], r;
    if (gather(l, axis, &pr, index) == 0)
        return q == 0;
    if (prepare(&pr) != AXE_OK || !reachable(&pr, 0, q))
        return 0;
    pr.budget = *budget;
    r = solve(&pr, 0, q);
    *budget = pr.budget;
    for (int j = 0; r == 1 && j < pr.n; j++)
        digits[index[j]] = pr.c[j];
    return r;
}

/* The smallest x with tile point D(x) + O + "r" = "tp" on every axis of
 * "axes": 1 found (x in *x), 0 none, -1 budget exhausted. */
static int solve_point(const axe_layout *l, const axis_set *axes,
                       const axe_point *tp, const axe_point *r, int64_t *x,
                       long *budget)
{
    int64_t digits[AXE_LAYOUT_MAX_SHARD], acc = 0;
    for (int i = 0; i < axes->n; i++) {
        const char *a = axes->name[i];
        int64_t q, t;
        int got;
        if (__builtin_sub_overflow(axe__point_get(tp, a),
                                   axe__layout_offset_get(l, a), &t) ||
            __builtin_sub_overflow(t, axe__point_get(r, a), &q))
            return 0;
        got = solve_axis(l, a, q, digits, budget);
        if (got != 1)
            return got;
    }
    for (int k = 0; k < l->nshard; k++)
        acc = acc * l->shard[k].extent + digits[k];
    *x = acc;
    return 1;
}

/* The point of "l" at x with replica combination j (j < 0: none). */
static axe_status point_at(const axe_layout *l, int64_t x, int64_t j,
                           axe_point *out, axe_diag *diag)
{
    axe_point t;
    axe_status st = axe__tile_point_linear(l, x, &t);
    if (st == AXE_OK && j >= 0)
        st = axe__replica_add(l, j, &t);
    if (st != AXE_OK)
        return axe__fail(diag, st, -1, "the point of index %lld does not fit",
                         (long long)x);
    return axe__point_finish(l, &t, out, diag);
}

/* Brute force: the smallest x < size with "p" among its points. */
static axe_status brute(const axe_layout *l, const axe_point *p, int64_t size,
                        int64_t combos, bool with_replicas, int64_t *x,
                        bool *found, axe_diag *diag)
{
    if (size > BRUTE_MAX / combos)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "backward map: the search exceeded its budget "
                         "(size %lld, %lld replica combinations)",
                         (long long)size, (long long)combos);
    for (int64_t i = 0; i < size; i++)
        for (int64_t j = 0; j < combos; j++) {
            axe_point q;
            AXE_TRY(point_at(l, i, with_replicas ? j : -1, &q, diag));
            if (axe_point_equal(&q, p)) {
                *x = i;
                *found = true;
                return AXE_OK;
            }
        }
    *found = false;
    return AXE_OK;
}

/* Size, replica combinations and the target tile point (swizzle undone on
 * m: addr is an involution) of a backward query. */
static axe_status setup(const axe_layout *l, const axe_point *p,
                        bool with_replicas, int64_t *size, int64_t *combos,
                        axe_point *tp, axe_diag *diag)
{
    int64_t m;
    *combos = 1;
    if (p->n < 0 || p->n > AXE_POINT_MAX_AXES)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "malformed point");
    for (int t = 0; with_replicas && t < l->nreplica; t++)
        if (l->replica[t].extent < 1 ||
            axe__mul(*combos, l->replica[t].extent, combos) != AXE_OK)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "replica extents must be >= 1 and their "
                             "product must fit in int64");
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shard iter %d has extent < 1", k);
    if (axe_layout_size(l, NULL, size) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the layout's size does not fit in int64");
    if (axe__point_merge(p, tp) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the point's entries on one axis sum past int64");
    if (!l->swizzle.present)
        return AXE_OK;
    if (axe__swizzle_addr(&l->swizzle, axe__point_get(tp, axe__name_m.s), &m) !=
        AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the swizzle is not well-formed");
    AXE_TRY(axe__point_add(tp, axe__name_m.s,
                           m - axe__point_get(tp, axe__name_m.s)));
    return AXE_OK;
}

/* The smallest x < size whose base point (or, "with_replicas", one of
 * whose points) is "p"; the per-axis solve, verified by applying "l". */
axe_status axe_layout_backward(const axe_layout *l, const axe_point *p,
                               bool with_replicas, int64_t *x, bool *found,
                               axe_diag *diag)
{
    axe_point tp, q;
    axis_set axes;
    int64_t size, combos, best = -1, bestj = -1;
    long budget = NODE_BUDGET;
    AXE_TRY(setup(l, p, with_replicas, &size, &combos, &tp, diag));
    collect_axes(l, &tp, &axes);
    for (int64_t j = 0; j < combos; j++) {
        axe_point r = {0};
        int64_t xj;
        int got;
        if (with_replicas && axe__replica_add(l, j, &r) != AXE_OK)
            continue;
        got = solve_point(l, &axes, &tp, &r, &xj, &budget);
        if (got < 0 || --budget < 0)
            return brute(l, p, size, combos, with_replicas, x, found, diag);
        if (got == 1 && (best < 0 || xj < best))
            best = xj, bestj = with_replicas ? j : -1;
    }
    if (best >= 0) {
        AXE_TRY(point_at(l, best, bestj, &q, diag));
        if (!axe_point_equal(&q, p))
            best = -1;
    }
    *found = best >= 0;
    if (best >= 0)
        *x = best;
    return AXE_OK;
}
