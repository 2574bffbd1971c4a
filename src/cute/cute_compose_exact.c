/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Composition a ∘ b, the general path (cute_compose.c has the shortcuts
 * and the whole of b; its comment has the argument): for one leaf s:d of
 * b, the divisor chain of i -> a(i*d), i < s, read off a's boundaries
 * when every one it crosses is crossed at a whole multiple of d, else
 * found by a scan bounded by the sequence's period; and whether a adds
 * over a group of b's leaves, per boundary when their residues cannot
 * carry, else by evaluating every combination of residues (modulo the
 * largest boundary reached when the strides have one sign). Invariant:
 * each answer is exact; a scan or check that would take more than
 * AXE_CUTE_COMPOSE_BUDGET evaluations of a answers AXE_ERR_UNSUPPORTED.
 */
#include "cute_internal.h"

#define MAXL AXE_CUTE_MAX_LEAVES

typedef axe__cute_fn fn;
typedef axe__cute_pool pool;
typedef axe__cute_cctx ctx;
typedef axe__cute_bleaves group;

static axe_status over_budget(ctx *c)
{
    if (--c->budget >= 0)
        return AXE_OK;
    return axe__fail(c->diag, AXE_ERR_UNSUPPORTED, -1,
                     "composition not decided: verifying it needs more "
                     "than %ld evaluations",
                     AXE_CUTE_COMPOSE_BUDGET);
}

/* ---- a as a function ------------------------------------------------- */

/* a(x) per component into v[0..ncomp): the extended, odd function. */
static axe_status fn_eval(const fn *f, int64_t x, int64_t *v)
{
    int64_t q;
    if (x == INT64_MIN)
        return AXE_ERR_OVERFLOW;
    q = x < 0 ? -x : x;
    for (int k = 0; k < f->ncomp; k++)
        v[k] = 0;
    for (int j = 0; j < f->m.n && q != 0; j++) {
        int64_t s = f->m.shape[j], t;
        int64_t digit = j + 1 < f->m.n ? q % s : q;
        q /= s;
        AXE_TRY(axe__mul(digit, f->m.stride[j], &t));
        AXE_TRY(axe__add(v[f->comp[j]], t, &v[f->comp[j]]));
    }
    for (int k = 0; x < 0 && k < f->ncomp; k++) {
        if (v[k] == INT64_MIN)
            return AXE_ERR_OVERFLOW;
        v[k] = -v[k];
    }
    return AXE_OK;
}

static bool vec_equal(const int64_t *x, const int64_t *y, int n)
{
    for (int k = 0; k < n; k++)
        if (x[k] != y[k])
            return false;
    return true;
}

/* z = x + sign * y, checked. */
static axe_status vec_add(const int64_t *x, const int64_t *y, int sign, int n,
                          int64_t *z)
{
    for (int k = 0; k < n; k++) {
        if (sign > 0)
            AXE_TRY(axe__add(x[k], y[k], &z[k]));
        else
            AXE_TRY(axe__sub(x[k], y[k], &z[k]));
    }
    return AXE_OK;
}

/* The value v as one stride: at most one nonzero component. */
static axe_status to_stride(ctx *c, const fn *f, const int64_t *v, int leaf,
                            int64_t *d, uint32_t *b)
{
    int nz = 0;
    *d = 0;
    *b = 0;
    for (int k = 0; k < f->ncomp; k++) {
        if (v[k] != 0) {
            nz++;
            *d = v[k];
            *b = f->code[k];
        }
    }
    if (nz > 1)
        return axe__fail(c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                         "no layout equals a o b: a step along b's leaf %d "
                         "would be a sum of different scaled bases",
                         leaf);
    return AXE_OK;
}

/* ---- one leaf of b --------------------------------------------------- */

/* Append the mode t : a(x) (x = the index of its first step). */
static axe_status put_step(ctx *c, const fn *f, int leaf, int64_t t, int64_t x,
                           pool *p)
{
    int64_t v[MAXL], d;
    uint32_t b;
    AXE_TRY(fn_eval(f, x, v));
    AXE_TRY(to_stride(c, f, v, leaf, &d, &b));
    return axe__cute_pool_put(p, t, d, b);
}

/* The denominator q of M / d in lowest terms, and p mod q for the
 * numerator p: floor(i*d / M) = floor(i*p / q). */
static void reduce(int64_t d, int64_t m, int64_t *q, int64_t *r)
{
    int64_t u;
    if (d % m == 0) {
        *q = 1;
        *r = 0;
        return;
    }
    u = m % d == 0 ? d : axe__gcd(d, m);
    *q = m / u;
    *r = (d / u) % *q;
}

/* beta_j, the jump of a's slope at boundary j, added into acc. */
static axe_status add_beta(const fn *f, int j, int64_t *acc)
{
    int64_t t;
    AXE_TRY(axe__add(acc[f->comp[j]], f->m.stride[j], &acc[f->comp[j]]));
    AXE_TRY(axe__mul(f->m.shape[j - 1], f->m.stride[j - 1], &t));
    return axe__sub(acc[f->comp[j - 1]], t, &acc[f->comp[j - 1]]);
}

/* True if the boundaries cand[lo..hi) (same N) jump by a nonzero sum. */
static axe_status jumps(const fn *f, const int *cj, int lo, int hi, bool *out)
{
    int64_t acc[MAXL] = {0};
    if (hi - lo == 1) {
        *out = true;
        return AXE_OK;
    }
    for (int i = lo; i < hi; i++)
        AXE_TRY(add_beta(f, cj[i], acc));
    *out = false;
    for (int k = 0; k < f->ncomp; k++)
        *out = *out || acc[k] != 0;
    return AXE_OK;
}

/* The leaf s:d (d > 0, x_max = (s-1)*d) as one step and a chain of
 * boundaries N (N | s) where the slope of i -> a(i*d) changes, when every
 * boundary of a is crossed at whole steps (floor(i*p/q) with p = 1 mod q);
 * otherwise *slow = the first boundary that is not. */
static axe_status leaf_chain(ctx *c, const fn *f, int leaf, int64_t s,
                             int64_t d, int64_t xmax, int64_t *chain,
                             int *nchain, int64_t *slow)
{
    int64_t cand[MAXL], q, r, t;
    int cj[MAXL], nc = 0;
    *nchain = 0;
    *slow = 0;
    for (int j = 1; j < f->m.n && f->prefix[j] <= xmax; j++) {
        reduce(d, f->prefix[j], &q, &r);
        if (r == 1 && q < s) {
            cand[nc] = q;
            cj[nc++] = j;
        } else if (r > 1 && (__builtin_mul_overflow(s - 1, r, &t) || t >= q)) {
            *slow = f->prefix[j];
            return AXE_OK;
        }
    }
    for (int lo = 0, hi; lo < nc; lo = hi) {
        bool nz;
        for (hi = lo + 1; hi < nc && cand[hi] == cand[lo]; hi++)
            ;
        AXE_TRY(jumps(f, cj, lo, hi, &nz));
        if (!nz)
            continue;
        if (s % cand[lo] != 0)
            return axe__fail(
                c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                "shape divisibility: b's leaf %d (%lld:%lld) crosses a's "
                "mode boundary at index %lld every %lld steps, and %lld "
                "does not divide %lld",
                leaf, (long long)s, (long long)d, (long long)f->prefix[cj[lo]],
                (long long)cand[lo], (long long)cand[lo], (long long)s);
        chain[(*nchain)++] = cand[lo];
    }
    return AXE_OK;
}

/* The period of the steps of i -> a(i*d) on [0, s): the largest reduced
 * denominator over the boundaries reached (they divide each other). */
static int64_t period(const fn *f, int64_t s, int64_t d)
{
    int64_t q = 1, r, xmax = (s - 1) * d;
    for (int j = 1; j < f->m.n && f->prefix[j] <= xmax; j++)
        reduce(d, f->prefix[j], &q, &r);
    return q;
}

typedef struct scan {
    int leaf;
    int64_t s, d, bound; /* the leaf, and the boundary that needs a scan */
} scan;

static axe_status scan_fail(ctx *c, const scan *sc, int64_t at, int64_t per)
{
    if (per > 0)
        return axe__fail(c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                         "stride divisibility: b's leaf %d (%lld:%lld) "
                         "crosses a's mode boundary at index %lld in a "
                         "pattern of period %lld, which does not divide "
                         "%lld",
                         sc->leaf, (long long)sc->s, (long long)sc->d,
                         (long long)sc->bound, (long long)per,
                         (long long)sc->s);
    return axe__fail(c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                     "stride divisibility: stride %lld of b's leaf %d "
                     "(%lld:%lld) neither divides nor is a multiple of a's "
                     "mode boundary at index %lld, and a(i*%lld) steps "
                     "irregularly at i = %lld",
                     (long long)sc->d, sc->leaf, (long long)sc->s,
                     (long long)sc->d, (long long)sc->bound, (long long)sc->d,
                     (long long)at);
}

/* The first i in [2, s) where the step of g(i) = a(i*d) differs from
 * g(1), with every later differing step a multiple of it (*t = s if
 * there is none). By periodicity (period q) the scan stops at t + q. */
static axe_status scan_level(ctx *c, const fn *f, const scan *sc, int64_t s,
                             int64_t d, int64_t n, int64_t *t)
{
    int64_t l[MAXL], prev[MAXL], cur[MAXL], step[MAXL];
    int64_t q = period(f, s, d), lim = q < s - 1 ? q : s - 1;
    *t = 0;
    AXE_TRY(fn_eval(f, d, l));
    AXE_TRY(fn_eval(f, d, prev));
    for (int64_t i = 2; i <= lim; i++) {
        AXE_TRY(over_budget(c));
        AXE_TRY(fn_eval(f, i * d, cur));
        AXE_TRY(vec_add(cur, prev, -1, f->ncomp, step));
        for (int k = 0; k < f->ncomp; k++)
            prev[k] = cur[k];
        if (vec_equal(step, l, f->ncomp))
            continue;
        if (*t == 0 && s % i != 0)
            return scan_fail(c, sc, 0, n * i);
        if (*t != 0 && i % *t != 0)
            return scan_fail(c, sc, n * i, 0);
        if (*t == 0) {
            *t = i;
            lim = q < s - 1 - i ? i + q : s - 1;
        }
    }
    if (*t == 0)
        *t = s;
    return AXE_OK;
}

/* The leaf s:d (d > 0) by the exact greedy: each level's first irregular
 * step t becomes a mode t : g(1), then recurse on i -> g(t*i). */
static axe_status leaf_scan(ctx *c, const fn *f, const scan *sc, pool *p)
{
    int64_t s = sc->s, d = sc->d, n = 1, t;
    for (;;) {
        AXE_TRY(scan_level(c, f, sc, s, d, n, &t));
        AXE_TRY(put_step(c, f, sc->leaf, t, d, p));
        if (t == s)
            return AXE_OK;
        s /= t;
        d *= t;
        n *= t;
    }
}

/* Modes for the leaf s:d, d > 0. */
axe_status axe__cute_compose_leaf_exact(ctx *c, const fn *f, int leaf,
                                        int64_t s, int64_t d, pool *p)
{
    int64_t chain[MAXL], xmax, bound, prev = 1;
    int nc;
    if (__builtin_mul_overflow(s - 1, d, &xmax))
        return axe__fail(c->diag, AXE_ERR_OVERFLOW, -1,
                         "b's leaf %d (%lld:%lld) reaches past 64 bits", leaf,
                         (long long)s, (long long)d);
    AXE_TRY(leaf_chain(c, f, leaf, s, d, xmax, chain, &nc, &bound));
    if (bound != 0) {
        scan sc = {leaf, s, d, bound};
        return leaf_scan(c, f, &sc, p);
    }
    for (int k = 0; k <= nc; k++) {
        int64_t next = k < nc ? chain[k] : s;
        AXE_TRY(put_step(c, f, leaf, next / prev, prev * d, p));
        prev = next;
    }
    return AXE_OK;
}

/* ---- a adds over b's leaves ------------------------------------------ */

/* An upper bound on (c*d) mod m over c < s, d >= 0 (exact unless it wraps
 * with a stride that neither divides m nor repeats within s). */
static int64_t max_residue(int64_t s, int64_t d, int64_t m)
{
    int64_t r = d % m, t;
    if (r == 0)
        return 0;
    if (!__builtin_mul_overflow(s - 1, r, &t) && t < m)
        return t;
    return m - axe__gcd(r, m);
}

/* The largest |sum of x_k| (values lie in [-neg, pos]), and whether the
 * strides have both signs. */
static axe_status reach(const group *g, int64_t *out, bool *mixed)
{
    int64_t pos = 0, neg = 0, t;
    for (int k = 0; k < g->n; k++) {
        if (g->d[k] == INT64_MIN ||
            __builtin_mul_overflow(g->s[k] - 1, axe__abs(g->d[k]), &t))
            return AXE_ERR_OVERFLOW;
        AXE_TRY(
            axe__add(g->d[k] > 0 ? pos : neg, t, g->d[k] > 0 ? &pos : &neg));
    }
    *out = pos > neg ? pos : neg;
    *mixed = pos > 0 && neg > 0;
    return AXE_OK;
}

/* True if the leaves cannot carry into boundary "m": with one sign, the
 * largest residues mod m sum below m; with both, all residues are 0. */
static bool no_carry(const group *g, int64_t m, bool mixed)
{
    int64_t sum = 0;
    for (int k = 0; k < g->n && sum < m; k++) {
        int64_t r = max_residue(g->s[k], axe__abs(g->d[k]), m);
        if (mixed && r != 0)
            return false;
        if (__builtin_add_overflow(sum, r, &sum))
            return false;
    }
    return sum < m;
}

/* True if no boundary of a reached by the leaves can receive a carry,
 * which makes every floor(x / M_j), and so a, additive on them; "top"
 * gets the largest boundary reached (0 if none). */
static axe_status carry_free(const fn *f, const group *g, bool *out,
                             int64_t *top)
{
    int64_t r;
    bool mixed;
    AXE_TRY(reach(g, &r, &mixed));
    *out = true;
    *top = 0;
    for (int j = 1; j < f->m.n && f->prefix[j] <= r; j++) {
        *top = f->prefix[j];
        *out = *out && no_carry(g, f->prefix[j], mixed);
    }
    return AXE_OK;
}

/* The next value of leaf k's x: c*d, or with "mod" its residue mod top. */
static axe_status advance(const group *g, int k, int64_t mod, int64_t *x)
{
    int64_t d = mod > 0 ? axe__abs(g->d[k]) % mod : g->d[k];
    if (mod > 0) {
        *x = *x >= mod - d ? *x - (mod - d) : *x + d;
        return AXE_OK;
    }
    return axe__add(*x, d, x);
}

/* Is a(sum x_k) == sum a(x_k)? */
static axe_status adds(ctx *c, const fn *f, const group *g, const int64_t *x,
                       bool *out)
{
    int64_t tot[MAXL] = {0}, v[MAXL], sum = 0;
    AXE_TRY(over_budget(c));
    for (int k = 0; k < g->n; k++) {
        AXE_TRY(axe__add(sum, x[k], &sum));
        AXE_TRY(fn_eval(f, x[k], v));
        AXE_TRY(vec_add(tot, v, 1, f->ncomp, tot));
    }
    AXE_TRY(fn_eval(f, sum, v));
    *out = vec_equal(tot, v, f->ncomp);
    return AXE_OK;
}

/* Every combination of the leaves' values adds under a; "crd" gets the
 * c_k of a counterexample. With one sign only the residues mod "top"
 * matter (floor((L h + r) / M) = (L / M) h + floor(r / M) for M | L), so
 * each leaf runs over at most top / gcd(d, top) values. */
static axe_status all_add(ctx *c, const fn *f, const group *g, int64_t top,
                          int64_t *crd, bool *out)
{
    int64_t lim[MAXL], x[MAXL], r;
    bool mixed;
    AXE_TRY(reach(g, &r, &mixed));
    for (int k = 0; k < g->n; k++) {
        int64_t per = top / axe__gcd(axe__abs(g->d[k]) % top, top);
        lim[k] = mixed || per > g->s[k] ? g->s[k] : per;
        x[k] = 0;
        crd[k] = 0;
    }
    for (int k = 0; k < g->n;) {
        AXE_TRY(adds(c, f, g, x, out));
        if (!*out)
            return AXE_OK;
        for (k = 0; k < g->n; k++) {
            if (++crd[k] < lim[k]) {
                AXE_TRY(advance(g, k, mixed ? 0 : top, &x[k]));
                break;
            }
            crd[k] = 0;
            x[k] = 0;
        }
    }
    return AXE_OK;
}

static axe_status not_independent(ctx *c, const group *g, const int64_t *crd)
{
    int64_t x[2] = {crd[0] * g->d[0], crd[1] * g->d[1]};
    if (g->n == 2)
        return axe__fail(c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                         "b's leaves %d and %d are not independent under a: "
                         "a(%lld + %lld) != a(%lld) + a(%lld), they carry "
                         "across a mode boundary",
                         g->leaf[0], g->leaf[1], (long long)x[0],
                         (long long)x[1], (long long)x[0], (long long)x[1]);
    return axe__fail(c->diag, AXE_ERR_NOT_COMPOSABLE, -1,
                     "b's leaves are not independent under a: their "
                     "parts carry across a mode boundary of a");
}

/* a adds over the leaves of "g". */
static axe_status check_adds(ctx *c, const fn *f, const group *g)
{
    int64_t top, crd[MAXL];
    bool ok;
    AXE_TRY(carry_free(f, g, &ok, &top));
    if (!ok)
        AXE_TRY(all_add(c, f, g, top, crd, &ok));
    return ok ? AXE_OK : not_independent(c, g, crd);
}

axe_status axe__cute_compose_adds_exact(ctx *c, const fn *f, const group *g)
{
    int64_t top;
    bool ok;
    AXE_TRY(carry_free(f, g, &ok, &top));
    if (ok)
        return AXE_OK;
    for (int k = 0; k < g->n; k++)
        for (int l = k + 1; l < g->n; l++) {
            group p = {2,
                       {g->leaf[k], g->leaf[l]},
                       {g->s[k], g->s[l]},
                       {g->d[k], g->d[l]}};
            AXE_TRY(check_adds(c, f, &p));
        }
    return g->n > 2 ? check_adds(c, f, g) : AXE_OK;
}
