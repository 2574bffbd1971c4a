/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The left inverse by exhaustive search, for a layout whose sorted strides
 * do not divide each other, where the construction of cute_inverse.c does
 * not apply: (2,2):(2,3) has the image {0, 2, 3, 5} and the left inverse
 * (2,3):(1,1). The modes of nonzero stride give the points x = sum c_j d_j
 * with the targets t(x) = sum c_j w_j (w_j the index strides); a layout R
 * = (n_0, ..., n_k):(r_0, ..., r_k) is a left inverse when R(x) = t(x) for
 * every point, and its domain covers M = max x + 1. R is built mode by
 * mode: with P the product of the extents so far, the points x < P fix
 * the digits of every extension, so a prefix whose points admit no
 * strides is cut; the last mode has extent ceil(M / P). For a fixed shape
 * the strides solve the linear system sum_j digit_j(x) r_j = t(x) over
 * the integers, kept as the affine lattice r = r0 + B z and narrowed one
 * equation at a time by unimodular column operations (Euclid), so a
 * prefix is feasible exactly when its system has an integer solution.
 * Every shape is tried (extents ascending, depth first), so the search is
 * complete: it finds a left inverse exactly when one exists.
 * Invariant: at most AXE__CUTE_SEARCH_MAX points below
 * AXE__CUTE_LEFT_MAX_VALUE and AXE__CUTE_SEARCH_BUDGET arithmetic steps;
 * past any of them, or on an intermediate overflow, the search says that
 * it did not finish and never claims that no left inverse exists.
 */
#include <stdlib.h>

#include "cute_internal.h"

/* Variables of R: one per mode, log2(AXE__CUTE_LEFT_MAX_VALUE) + 1. */
#define NVAR 18

typedef struct lattice {
    int nv, nb;            /* variables, basis columns */
    int64_t r0[NVAR];      /* a particular solution */
    int64_t b[NVAR][NVAR]; /* b[col][var]: the solutions are r0 + B z */
} lattice;

typedef struct point {
    int64_t x, t;
} point;

typedef struct lsearch {
    int n, nbest;
    point p[AXE__CUTE_SEARCH_MAX]; /* by increasing x */
    int64_t m;                     /* max x + 1 */
    int64_t shape[NVAR];
    int64_t best, best_shape[NVAR], best_stride[NVAR];
    long budget;
    bool overflow;
} lsearch;

/* col_p -= q col_j over the "nv" variables: false on overflow. */
static bool col_sub(int64_t *cp, const int64_t *cj, int64_t q, int nv)
{
    for (int i = 0; i < nv; i++) {
        int64_t t;
        if (__builtin_mul_overflow(q, cj[i], &t) ||
            __builtin_sub_overflow(cp[i], t, &cp[i]))
            return false;
    }
    return true;
}

static void col_swap(lattice *l, int64_t *v, int p, int j)
{
    int64_t t = v[p];
    v[p] = v[j];
    v[j] = t;
    for (int i = 0; i < l->nv; i++) {
        t = l->b[p][i];
        l->b[p][i] = l->b[j][i];
        l->b[j][i] = t;
    }
}

/* v = a B: the equation's coefficients on the lattice's columns, and
 * rem = t - a r0. False on overflow. */
static bool project(const lattice *l, const int64_t *a, int64_t t, int64_t *v,
                    int64_t *rem)
{
    int64_t u;
    for (int c = 0; c < l->nb; c++) {
        v[c] = 0;
        for (int i = 0; i < l->nv; i++)
            if (__builtin_mul_overflow(a[i], l->b[c][i], &u) ||
                __builtin_add_overflow(v[c], u, &v[c]))
                return false;
    }
    *rem = t;
    for (int i = 0; i < l->nv; i++)
        if (__builtin_mul_overflow(a[i], l->r0[i], &u) ||
            __builtin_sub_overflow(*rem, u, rem))
            return false;
    return true;
}

/*
 * Narrow "l" to the solutions of a . r = t. With v = aB, unimodular column
 * operations (Euclid on pairs) turn v into (g, 0, ..., 0), g = gcd(v), the
 * lattice unchanged; then a . r = t has integer solutions exactly when g
 * divides rem = t - a r0: r0 += (rem / g) col_0 and col_0 leaves the
 * basis. 1: narrowed, 0: no integer solution, -1: an overflow.
 */
static int narrow(lattice *l, const int64_t *a, int64_t t)
{
    int64_t v[NVAR], rem, f;
    int p = -1;
    if (!project(l, a, t, v, &rem))
        return -1;
    for (int j = 0; j < l->nb; j++) {
        if (v[j] == 0)
            continue;
        if (p < 0) {
            p = j;
            continue;
        }
        while (v[j] != 0) {
            int64_t q = v[p] / v[j];
            v[p] -= q * v[j];
            if (!col_sub(l->b[p], l->b[j], q, l->nv))
                return -1;
            col_swap(l, v, p, j);
        }
    }
    if (p < 0)
        return rem == 0;
    if (rem % v[p] != 0)
        return 0;
    f = rem / v[p];
    if (!col_sub(l->r0, l->b[p], -f, l->nv))
        return -1;
    l->nb--;
    for (int i = 0; i < l->nv; i++)
        l->b[p][i] = l->b[l->nb][i];
    return 1;
}

/* A new variable, free: r0 = 0 on it, and the unit column. */
static void add_var(lattice *l)
{
    int v = l->nv++;
    l->r0[v] = 0;
    for (int c = 0; c < l->nb; c++)
        l->b[c][v] = 0;
    for (int i = 0; i < l->nv; i++)
        l->b[l->nb][i] = i == v;
    l->nb++;
}

/* The points p[lo, hi) on the "k" modes of s->shape (the last unbounded)
 * narrow "l": false when they admit no strides. */
static bool admit(lsearch *s, lattice *l, int k, int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        int64_t a[NVAR], x = s->p[i].x;
        int r;
        for (int j = 0; j + 1 < k; j++) {
            a[j] = x % s->shape[j];
            x /= s->shape[j];
        }
        a[k - 1] = x;
        s->budget -= (long)(l->nb + 1) * l->nv;
        if (s->budget < 0)
            return false;
        r = narrow(l, a, s->p[i].t);
        s->overflow = s->overflow || r < 0;
        if (r <= 0)
            return false;
    }
    return true;
}

static void keep_best(lsearch *s, const lattice *l, int k, int64_t size)
{
    if (size >= s->best)
        return;
    s->best = size;
    s->nbest = k;
    for (int j = 0; j < k; j++) {
        s->best_shape[j] = s->shape[j];
        s->best_stride[j] = l->r0[j];
    }
}

/* The first point index at or above "from" with x >= "bound". */
static int first_at(const lsearch *s, int from, int64_t bound)
{
    while (from < s->n && s->p[from].x < bound)
        from++;
    return from;
}

/* Every R extending the "k" modes of product "p" (points below p at
 * indices < "lo" already in "l"): extents e = 2, 3, ... up to ceil(M/p),
 * the last of which closes R. */
static void grow(lsearch *s, const lattice *l, int k, int64_t p, int lo)
{
    int64_t top = (s->m + p - 1) / p;
    if (k == NVAR)
        return;
    for (int64_t e = 2; e <= top && s->best > s->m && s->budget >= 0; e++) {
        lattice nl = *l;
        int hi = e == top ? s->n : first_at(s, lo, p * e);
        s->shape[k] = e;
        add_var(&nl);
        if (!admit(s, &nl, k + 1, lo, hi))
            continue;
        if (e == top)
            keep_best(s, &nl, k + 1, p * e);
        else
            grow(s, &nl, k + 1, p * e, hi);
    }
}

static int by_x(const void *a, const void *b)
{
    const point *u = a, *v = b;
    return (u->x > v->x) - (u->x < v->x);
}

/* The points of the nonzero-stride modes of "m" (strides > 0), sorted:
 * AXE_ERR_UNSUPPORTED past the limits, AXE_ERR_NOT_INJECTIVE with two
 * coordinates of one value. */
static axe_status tabulate(const axe__cute_modes *m, lsearch *s, axe_diag *diag)
{
    int64_t c[AXE_CUTE_MAX_LEAVES] = {0}, n = 1, u;
    for (int j = 0; j < m->n; j++)
        if (m->stride[j] != 0 && m->shape[j] > AXE__CUTE_SEARCH_MAX / n)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "the strides do not divide each other and the "
                             "left-inverse search takes at most %d points "
                             "(modes of nonzero stride)",
                             AXE__CUTE_SEARCH_MAX);
        else if (m->stride[j] != 0)
            n *= m->shape[j];
    for (s->n = 0; s->n < n; s->n++) {
        point *q = &s->p[s->n];
        int j;
        q->x = q->t = 0;
        for (j = 0; j < m->n; j++)
            if (m->stride[j] != 0 &&
                (axe__mul(c[j], m->stride[j], &u) != AXE_OK ||
                 axe__add(q->x, u, &q->x) != AXE_OK ||
                 q->x >= AXE__CUTE_LEFT_MAX_VALUE))
                return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                                 "the strides do not divide each other and "
                                 "the left-inverse search takes values "
                                 "below %lld",
                                 (long long)AXE__CUTE_LEFT_MAX_VALUE);
            else if (m->stride[j] != 0)
                q->t += c[j] * m->istride[j];
        for (j = 0; j < m->n; j++) /* the next coordinate */
            if (m->stride[j] != 0 && ++c[j] < m->shape[j])
                break;
            else
                c[j] = 0;
    }
    qsort(s->p, (size_t)s->n, sizeof s->p[0], by_x);
    for (int i = 1; i < s->n; i++)
        if (s->p[i].x == s->p[i - 1].x)
            return axe__fail(diag, AXE_ERR_NOT_INJECTIVE, -1,
                             "a is not injective: indices %lld and %lld both "
                             "map to %lld",
                             (long long)s->p[i - 1].t, (long long)s->p[i].t,
                             (long long)s->p[i].x);
    s->m = s->p[s->n - 1].x + 1;
    return AXE_OK;
}

/* The outcome of a search that found nothing: none exists, or it stopped. */
static axe_status none_found(const lsearch *s, axe_diag *diag)
{
    if (s->budget < 0 || s->overflow)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the strides do not divide each other and the "
                         "left-inverse search over %d points below %lld "
                         "stopped (%s) before it found one",
                         s->n, (long long)s->m,
                         s->budget < 0 ? "its budget of steps is spent"
                                       : "an intermediate value overflows");
    return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                     "no layout inverts a: its strides do not divide each "
                     "other and no shape of R has integer strides with "
                     "R(a(k)) = k (exhaustive search, %d points below %lld)",
                     s->n, (long long)s->m);
}

axe_status axe__cute_left_search(const axe__cute_modes *m, axe__cute_group *g,
                                 axe_diag *diag)
{
    lsearch s;
    lattice l;
    l.nv = l.nb = 0;
    s.overflow = false;
    AXE_TRY(tabulate(m, &s, diag));
    s.best = INT64_MAX;
    s.nbest = 0;
    s.budget = AXE__CUTE_SEARCH_BUDGET;
    grow(&s, &l, 0, 1, 1);
    if (s.best == INT64_MAX)
        return none_found(&s, diag);
    g->n = s.nbest;
    for (int j = 0; j < s.nbest; j++) {
        g->shape[j] = s.best_shape[j];
        g->stride[j] = s.best_stride[j];
    }
    return AXE_OK;
}
