/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Uniformity of the `if` conditions around an operator (sema). An
 * operator at warp, warpgroup or cta scope runs collectively on the
 * threads of each instance of its scope, so the enclosing conditions
 * (their conjunction, else branches negated) must have one value on all
 * threads of an instance. A condition that reads no thread id finer than
 * the scope is uniform by construction; one that does is decided exactly
 * by evaluating the conjunction on every thread of every instance, for
 * every value of the other variables it reads (block ids, loop
 * variables), within a budget of evaluations per operator and per
 * program (operators under the same conditions at the same scope are
 * decided once). E.g. `tx >= 128` is uniform over warps and warpgroups,
 * `tx >= 100` splits warp 3, `tx < 256` with 256 threads is uniform over
 * the CTA. The same enumeration decides dead code: a chain that holds
 * for no thread and no value of the other variables. Invariant: the
 * variables are
 * enumerated over their whole extents, and every expression is evaluated
 * only after its interval bounds were computed without overflow.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* Evaluations of the conjunction one operator's check may spend (about
 * a tenth of a second), and all of a program's checks together. */
#define UNIFORM_MAX_EVALS ((int64_t)1 << 22)
#define UNIFORM_MAX_TOTAL ((int64_t)1 << 24)
/* The same for deciding that a chain never holds (dead code). */
#define DEAD_MAX_EVALS ((int64_t)1 << 20)
#define DEAD_MAX_TOTAL ((int64_t)1 << 24)

/* The chain "g" reads a thread id that varies within one instance of
 * "scope" (warp: tx laneid tid_in_wg; warpgroup: also warpid wid_in_wg;
 * cta: also wgid). */
static bool reads_finer_id(const ax_guard *g, ax_scope scope)
{
    static const ax_builtin ids[] = {AX_VAR_TX,        AX_VAR_LANEID,
                                     AX_VAR_TID_IN_WG, AX_VAR_WARPID,
                                     AX_VAR_WID_IN_WG, AX_VAR_WGID};
    int n = scope == AX_SCOPE_WARP ? 3 : scope == AX_SCOPE_WARPGROUP ? 5 : 6;
    int i;
    for (; g != NULL; g = g->up)
        for (i = 0; i < n; i++)
            if (axe__expr_uses(g->lhs, (int)ids[i]) ||
                axe__expr_uses(g->rhs, (int)ids[i]))
                return true;
    return false;
}

/* The enumeration: the variables other than thread ids that the chain
 * reads ("vars", with extents "ext") and the environment. */
typedef struct walk {
    const axe_program *p;
    const ax_guard *chain;
    int nv;
    int vars[AX_MAX_VARS];
    int64_t ext[AX_MAX_VARS];
    int64_t env[AX_MAX_VARS];
} walk;

static bool is_thread_id(int v)
{
    return v >= AX_VAR_TX && v < AX_VAR_NBUILTIN;
}

/* A runtime scalar takes every i32 value: beyond any budget. */
static int64_t extent(const axe_program *p, int v)
{
    if (p->var_scalar[v] != 0)
        return INT64_MAX;
    return v <= AX_VAR_BZ ? p->grid[v - AX_VAR_BX] : p->var_trip[v];
}

/* Collect the chain's other variables; the number of evaluations the
 * check needs in "evals" (INT64_MAX past the budget). */
static axe_status collect(walk *w, const ax_guard *chain, int64_t *evals)
{
    const ax_guard *g;
    int64_t n = w->p->threads, lo, hi;
    int v;
    w->chain = chain;
    w->nv = 0;
    for (g = chain; g != NULL; g = g->up) {
        AXE_TRY(axe__expr_range(w->p, g->lhs, &lo, &hi));
        AXE_TRY(axe__expr_range(w->p, g->rhs, &lo, &hi));
    }
    for (v = 0; v < w->p->nvars && v < AX_MAX_VARS; v++) {
        bool used = false;
        for (g = chain; g != NULL && !used; g = g->up)
            used = axe__expr_uses(g->lhs, v) || axe__expr_uses(g->rhs, v);
        if (!used || is_thread_id(v))
            continue;
        w->vars[w->nv] = v;
        w->ext[w->nv++] = extent(w->p, v);
        if (axe__mul(n, extent(w->p, v), &n) != AXE_OK || n > UNIFORM_MAX_EVALS)
            n = INT64_MAX;
    }
    *evals = n;
    return AXE_OK;
}

static void set_thread(int64_t *env, int64_t tid)
{
    env[AX_VAR_TX] = tid;
    env[AX_VAR_LANEID] = tid % 32;
    env[AX_VAR_WARPID] = tid / 32;
    env[AX_VAR_WGID] = tid / 128;
    env[AX_VAR_TID_IN_WG] = tid % 128;
    env[AX_VAR_WID_IN_WG] = tid % 128 / 32;
}

static bool holds_at(walk *w, int64_t tid)
{
    set_thread(w->env, tid);
    return axe__guard_holds(w->chain, w->env);
}

/* The first thread of the instance starting at "t0" (of "n" threads)
 * whose answer differs from thread t0's, or -1. */
static int64_t split_at(walk *w, int64_t t0, int64_t n)
{
    bool first = holds_at(w, t0);
    int64_t t;
    for (t = t0 + 1; t < t0 + n && t < w->p->threads; t++)
        if (holds_at(w, t) != first)
            return t;
    return -1;
}

/* Advance the other variables like an odometer; false after the last. */
static bool next_values(walk *w)
{
    int i;
    for (i = 0; i < w->nv; i++) {
        if (++w->env[w->vars[i]] < w->ext[i])
            return true;
        w->env[w->vars[i]] = 0;
    }
    return false;
}

/* "when i = 1, bx = 0" for the other variables, or "". */
static void values_text(const walk *w, char *buf, size_t cap)
{
    size_t n = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; i < w->nv && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s = %lld",
                              i ? ", " : " when ", w->p->vars[w->vars[i]],
                              (long long)w->env[w->vars[i]]);
}

/* The value of "g" alone (not negated, without its enclosing chain). */
static bool cond_holds(walk *w, const ax_guard *g, int64_t tid)
{
    ax_guard one = {g->lhs, g->rhs, g->cmp, false, NULL};
    set_thread(w->env, tid);
    return axe__guard_holds(&one, w->env);
}

/* The diagnostic for the instance at "t0" split between threads t - 1 and
 * t: the innermost condition whose value differs between them. */
static axe_status report(walk *w, const ax_stmt *s, int64_t t0, int64_t t,
                         axe_diag *diag)
{
    const ax_guard *g = w->chain;
    int64_t n = axe__scope_threads(w->p, s->scope), last;
    char cond[96], vals[96], inst[48];
    while (g->up != NULL && cond_holds(w, g, t - 1) == cond_holds(w, g, t))
        g = g->up;
    last = (t0 + n < w->p->threads ? t0 + n : w->p->threads) - 1;
    axe__cond_text(w->p, g, 40, cond, sizeof cond);
    values_text(w, vals, sizeof vals);
    if (s->scope == AX_SCOPE_CTA)
        snprintf(inst, sizeof inst, "the CTA");
    else
        snprintf(inst, sizeof inst, "%s %lld", axe__scope_name(s->scope),
                 (long long)(t0 / n));
    return axe__fail(
        diag, AXE_ERR_INVALID, s->off,
        "a %s-scope operator under a condition that splits %s "
        "(threads %lld..%lld)%s: '%s' is %s for thread %lld and "
        "%s for thread %lld",
        axe__scope_name(s->scope), inst, (long long)t0, (long long)last, vals,
        cond, cond_holds(w, g, t - 1) ? "true" : "false", (long long)(t - 1),
        cond_holds(w, g, t) ? "true" : "false", (long long)t);
}

/* The first runtime scalar a condition of "chain" reads (its variable
 * index), or -1. */
static int chain_scalar(const axe_program *p, const ax_guard *chain)
{
    const ax_guard *g;
    int v;
    for (g = chain; g != NULL; g = g->up) {
        if ((v = axe__expr_scalar(p, g->lhs)) >= 0)
            return v;
        if ((v = axe__expr_scalar(p, g->rhs)) >= 0)
            return v;
    }
    return -1;
}

bool axe__guard_reads_thread_id(const ax_guard *g)
{
    return reads_finer_id(g, AX_SCOPE_CTA);
}

/* The enclosing conditions of "s" have one value on all threads of each
 * instance of its scope (see the file comment; a thread-scope instance is
 * one thread, so any condition is). */
axe_status axe__guard_check_uniform(axe_program *p, const ax_stmt *s,
                                    axe_diag *diag)
{
    walk w;
    int64_t evals, n = axe__scope_threads(p, s->scope), t0, t;
    int v;
    char cond[96];
    if (s->scope == AX_SCOPE_THREAD || s->guard == NULL ||
        !reads_finer_id(s->guard, s->scope) ||
        (s->guard == p->uniform_chain && s->scope == p->uniform_scope))
        return AXE_OK;
    memset(&w, 0, sizeof w);
    w.p = p;
    if (collect(&w, s->guard, &evals) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, s->off,
                         "a condition around this operator overflows 64-bit "
                         "integers");
    if (evals == INT64_MAX && (v = chain_scalar(p, s->guard)) >= 0) {
        axe__cond_text(p, s->guard, 40, cond, sizeof cond);
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "cannot decide whether '%s' is uniform over each "
                         "%s: it reads thread ids and the runtime scalar "
                         "'%s', whose value is known only at launch (put "
                         "the operator at thread scope, or compare a "
                         "coarser id such as warpid)",
                         cond, axe__scope_name(s->scope), p->vars[v]);
    }
    if (evals == INT64_MAX) {
        axe__cond_text(p, s->guard, 40, cond, sizeof cond);
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "cannot decide whether '%s' is uniform over each "
                         "%s: it reads thread ids and variables of more "
                         "than %lld combinations",
                         cond, axe__scope_name(s->scope),
                         (long long)UNIFORM_MAX_EVALS);
    }
    if (p->uniform_evals + evals > UNIFORM_MAX_TOTAL) {
        axe__cond_text(p, s->guard, 40, cond, sizeof cond);
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "cannot decide whether '%s' is uniform over each "
                         "%s: the program's uniformity checks would pass "
                         "%lld evaluations",
                         cond, axe__scope_name(s->scope),
                         (long long)UNIFORM_MAX_TOTAL);
    }
    p->uniform_evals += evals;
    do {
        for (t0 = 0; t0 < p->threads; t0 += n)
            if ((t = split_at(&w, t0, n)) >= 0)
                return report(&w, s, t0, t, diag);
    } while (next_values(&w));
    p->uniform_chain = s->guard;
    p->uniform_scope = s->scope;
    return AXE_OK;
}

/* Whether "g" holds for no thread of any CTA and no value of the other
 * variables it reads (dead code; the chain's conditions are overflow-free
 * over the whole ranges, checked when sema enters each if). Undecided,
 * so false, past DEAD_MAX_EVALS evaluations for the chain or
 * DEAD_MAX_TOTAL for the program; a chain is decided once. */
bool axe__guard_never_holds(axe_program *p, const ax_guard *g)
{
    walk w;
    int64_t evals, nt, t;
    if (g == NULL)
        return false;
    if (g == p->dead_chain)
        return p->dead_value;
    memset(&w, 0, sizeof w);
    w.p = p;
    if (collect(&w, g, &evals) != AXE_OK || evals > DEAD_MAX_EVALS ||
        p->dead_evals + evals > DEAD_MAX_TOTAL)
        return false;
    p->dead_evals += evals;
    p->dead_chain = g;
    p->dead_value = false;
    nt = reads_finer_id(g, AX_SCOPE_CTA) ? p->threads : 1;
    do {
        for (t = 0; t < nt; t++)
            if (holds_at(&w, t))
                return false;
    } while (next_values(&w));
    p->dead_value = true;
    return true;
}
