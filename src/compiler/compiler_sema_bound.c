/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Symbolic bounds proofs of region starts under the enclosing `if`
 * conditions (sema), for what interval bounds cannot prove: the CUDA
 * tail guard `if (bx * 32 + tx < M) { ... A[bx * 32 + tx : +1, ...] }`
 * against a compile-time or a runtime extent M. Expressions are turned
 * into linear forms (a constant plus integer coefficients per variable;
 * a form exists when the expression has no // or %). Each enclosing
 * condition (its negation under `else`) gives facts G <= 0: `a < b` is
 * a - b + 1 <= 0, `a <= b` a - b <= 0, `a > b` b - a + 1 <= 0, `a >= b`
 * b - a <= 0, `a == b` both of the latter two, `a != b` none; the empty
 * fact 0 <= 0 is always there, a loop `for i in range(T)` with a
 * runtime trip count T gives i - T + 1 <= 0, and a runtime grid extent
 * `grid(G)` gives bx - G + 1 <= 0 (by, bz likewise; a form exists only
 * when G is linear, so not for `(M + 31) // 32`). A claim X <= 0 is proved
 * by one fact G when the interval maximum of H = X - G over the
 * variables' ranges (the ids, the loop variables, the scalars' i32
 * range, each narrowed by the `VAR op CONST` conditions) is at most 0,
 * since X = G + H <= 0 + max H.
 * Runtime scalars have the whole i32 range, so a proof holds for every
 * value given at launch exactly when their coefficients cancel in H.
 * Invariant: every sum and product is overflow-checked; an overflow only
 * loses the proof.
 */
#include <string.h>

#include "compiler_internal.h"

typedef struct lin {
    int64_t c;
    int64_t coef[AX_MAX_VARS];
} lin;

static bool lin_add(lin *x, const lin *y, int64_t k)
{
    int64_t t;
    int v;
    if (axe__mul(y->c, k, &t) || axe__add(x->c, t, &x->c))
        return false;
    for (v = 0; v < AX_MAX_VARS; v++)
        if (y->coef[v] != 0 && (axe__mul(y->coef[v], k, &t) ||
                                axe__add(x->coef[v], t, &x->coef[v])))
            return false;
    return true;
}

/* "*out" = k * "e" added to "*out"; false when "e" is not linear (//, %)
 * or a coefficient overflows. */
static bool lin_of(const ax_expr *e, int64_t k, lin *out)
{
    int64_t t;
    if (e == NULL)
        return true;
    switch (e->kind) {
    case AX_EX_INT:
        return !axe__mul(e->value, k, &t) && !axe__add(out->c, t, &out->c);
    case AX_EX_VAR:
        return !axe__add(out->coef[e->var], k, &out->coef[e->var]);
    case AX_EX_ADD:
        return lin_of(e->a, k, out) && lin_of(e->b, k, out);
    case AX_EX_SUB:
        return lin_of(e->a, k, out) && !axe__sub(0, k, &t) &&
               lin_of(e->b, t, out);
    case AX_EX_NEG:
        return !axe__sub(0, k, &t) && lin_of(e->a, t, out);
    case AX_EX_MUL:
        if (e->a->kind == AX_EX_INT)
            return !axe__mul(e->a->value, k, &t) && lin_of(e->b, t, out);
        if (e->b->kind == AX_EX_INT)
            return !axe__mul(e->b->value, k, &t) && lin_of(e->a, t, out);
        return false;
    case AX_EX_DIV:
    case AX_EX_MOD:
    case AX_EX_LOAD:
        break;
    }
    return false;
}

/* See compiler_internal.h. */
bool axe__expr_diff(const ax_expr *a, const ax_expr *b, int64_t *d)
{
    lin x;
    memset(&x, 0, sizeof x);
    if (!lin_of(a, 1, &x) || !lin_of(b, -1, &x))
        return false;
    for (int v = 0; v < AX_MAX_VARS; v++)
        if (x.coef[v] != 0)
            return false;
    *d = x.c;
    return true;
}

/* The interval maximum of "h" over the variables' ranges. */
static bool lin_max(const axe_program *p, const lin *h, int64_t *out)
{
    int64_t m = h->c, lo, hi, t;
    int v;
    for (v = 0; v < AX_MAX_VARS; v++) {
        ax_expr var;
        if (h->coef[v] == 0)
            continue;
        memset(&var, 0, sizeof var);
        var.kind = AX_EX_VAR;
        var.var = v;
        if (axe__expr_range(p, &var, &lo, &hi) != AXE_OK ||
            axe__mul(h->coef[v], h->coef[v] > 0 ? hi : lo, &t) ||
            axe__add(m, t, &m))
            return false;
    }
    *out = m;
    return true;
}

/* The fact G <= 0 tightened over the integers: with g the gcd of its
 * coefficients, G = g L + c <= 0 holds exactly when L + ceil(c / g) <= 0
 * (`2 * i + 1 < 11` is i - 4 <= 0). */
static void tighten(lin *g)
{
    int64_t d = 0;
    int v;
    for (v = 0; v < AX_MAX_VARS; v++)
        if (g->coef[v] == INT64_MIN)
            return;
    for (v = 0; v < AX_MAX_VARS; v++)
        if (g->coef[v] != 0)
            d = d == 0 ? axe__abs(g->coef[v]) : axe__gcd(d, g->coef[v]);
    if (d <= 1)
        return;
    for (v = 0; v < AX_MAX_VARS; v++)
        g->coef[v] /= d;
    g->c = g->c / d + (g->c % d > 0);
}

/* X <= 0 follows from q X = p G + H with G <= 0 and max H <= 0 (q, p >
 * 0): H = q X - p G. */
static bool by_multiple(const axe_program *p, const lin *x, const lin *g,
                        int64_t q, int64_t k)
{
    lin h;
    int64_t m;
    memset(&h, 0, sizeof h);
    return lin_add(&h, x, q) && lin_add(&h, g, -k) && lin_max(p, &h, &m) &&
           m <= 0;
}

/* X <= 0 follows from the fact "a - b + one <= 0", tightened, as it is
 * or scaled by p/q to cancel a variable X and the fact share with one
 * sign (`if (2 * i + 1 < N)` for X = i + 1 - N / 2 ...). */
static bool by_fact(const axe_program *p, const lin *x, const ax_expr *a,
                    const ax_expr *b, int64_t one)
{
    lin g;
    int v;
    memset(&g, 0, sizeof g);
    g.c = one;
    if (!lin_of(a, 1, &g) || !lin_of(b, -1, &g))
        return false;
    tighten(&g);
    if (by_multiple(p, x, &g, 1, 1))
        return true;
    for (v = 0; v < AX_MAX_VARS; v++) {
        int64_t xs = x->coef[v], gs = g.coef[v], d;
        if (xs == 0 || gs == 0 || (xs > 0) != (gs > 0) || xs == INT64_MIN ||
            gs == INT64_MIN)
            continue;
        d = axe__gcd(xs, gs);
        if (by_multiple(p, x, &g, axe__abs(gs) / d, axe__abs(xs) / d))
            return true;
    }
    return false;
}

/* X <= 0 follows from the condition "g" (negated under `else`). */
static bool by_guard(const axe_program *p, const lin *x, const ax_guard *g)
{
    static const int negated[] = {3, 2, 1, 0, 5, 4};
    int cmp = g->negate ? negated[g->cmp] : g->cmp;
    switch (cmp) {
    case 0:
        return by_fact(p, x, g->lhs, g->rhs, 1);
    case 1:
        return by_fact(p, x, g->lhs, g->rhs, 0);
    case 2:
        return by_fact(p, x, g->rhs, g->lhs, 1);
    case 3:
        return by_fact(p, x, g->rhs, g->lhs, 0);
    case 4:
        return by_fact(p, x, g->lhs, g->rhs, 0) ||
               by_fact(p, x, g->rhs, g->lhs, 0);
    default:
        return false;
    }
}

/* The runtime bound of variable "v": a loop's trip count T (i < T) or a
 * runtime grid extent G (bx < G), or NULL. */
static const ax_expr *runtime_bound(const axe_program *p, int v)
{
    if (v >= AX_VAR_BX && v <= AX_VAR_BZ)
        return p->dgrid[v - AX_VAR_BX];
    return p->var_dtrip[v];
}

static bool proved(const axe_program *p, const lin *x, const ax_guard *g)
{
    int64_t m;
    int v;
    if (lin_max(p, x, &m) && m <= 0)
        return true;
    for (v = 0; v < AX_MAX_VARS; v++) {
        ax_expr var;
        if (runtime_bound(p, v) == NULL || x->coef[v] == 0)
            continue;
        memset(&var, 0, sizeof var);
        var.kind = AX_EX_VAR;
        var.var = v;
        if (by_fact(p, x, &var, runtime_bound(p, v), 1))
            return true;
    }
    for (; g != NULL; g = g->up)
        if (by_guard(p, x, g))
            return true;
    return false;
}

/* Dimension "d" of region "r" starts at 0 or later ("upper" false), or
 * ends at its extent or earlier ("upper"), for every value of the
 * variables allowed by the enclosing conditions "g" (file comment). */
bool axe__bound_proved(const axe_program *p, const ax_guard *g, const ax_ref *r,
                       int d, bool upper)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    lin x;
    memset(&x, 0, sizeof x);
    if (!upper)
        return lin_of(r->start[d], -1, &x) && proved(p, &x, g);
    if (!lin_of(r->start[d], 1, &x) || axe__add(x.c, r->len[d], &x.c))
        return false;
    if (d == 0 && t->dyn_extent != NULL) {
        if (!lin_of(t->dyn_extent, -1, &x))
            return false;
    } else if (axe__sub(x.c, t->shape[d], &x.c)) {
        return false;
    }
    return proved(p, &x, g);
}

bool axe__claim_proved(const axe_program *p, const ax_guard *g,
                       const ax_expr *e, int64_t k, int64_t c)
{
    lin x;
    memset(&x, 0, sizeof x);
    x.c = c;
    return lin_of(e, k, &x) && proved(p, &x, g);
}

bool axe__guard_one_var(const ax_guard *g, int *v, int64_t *c, int64_t *k,
                        int *cmp)
{
    static const int negated[] = {3, 2, 1, 0, 5, 4};
    lin x;
    int u, n = 0;
    memset(&x, 0, sizeof x);
    if (!lin_of(g->lhs, 1, &x) || !lin_of(g->rhs, -1, &x))
        return false;
    for (u = 0; u < AX_MAX_VARS; u++)
        if (x.coef[u] != 0) {
            *v = u;
            n++;
        }
    if (n != 1)
        return false;
    *c = x.coef[*v];
    *k = x.c;
    *cmp = g->negate ? negated[g->cmp] : g->cmp;
    return true;
}

const char *axe__guard_no_fact(const ax_guard *g)
{
    lin x;
    memset(&x, 0, sizeof x);
    if (!lin_of(g->lhs, 1, &x) || !lin_of(g->rhs, -1, &x))
        return "it is not linear (//, %, a loaded value or a product)";
    if ((g->cmp == 5 && !g->negate) || (g->cmp == 4 && g->negate))
        return "'!=' (or the else of '==') only removes an end of a "
               "variable's range";
    return NULL;
}
