/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Device operators whose region starts read kept loops' variables
 * (docs/compiler.md, "Kept loops and ifs", "Region starts on a kept
 * loop's variable"): one exchange plan per value of the starts. The
 * starts take finitely many values: every variable they read enters
 * them only through `X % C` with X a polynomial in it (period C), or
 * its loop's largest trip count, or the bound the kept ifs around the
 * operator put on it (`if (k < 8)`), is at most AX_VARIANT_ENUM. Every
 * assignment of the variables over one period (where the variable takes
 * more values than that) or over that trip count or bound is evaluated,
 * unless a kept if around the operator rejects it: only an if that can
 * be tested there (it reads only these variables, and each one
 * enumerated over a period only through `X % C` with C dividing that
 * period: a residue stands for every value of the variable with it; the
 * period is widened to the lcm with an if's own where the assignments
 * stay few, so that the if can be tested).
 * Each distinct tuple of start values must lie within its tensor's
 * extent and becomes one copy of the operator with constant starts,
 * under kept ifs `if (START == VALUE)` (one per distinct start
 * expression whose value the others do not determine): the rest of
 * the compiler (sema, planning, the reference, the MPI and NCCL
 * backends, the race detector on the segments) sees kept ifs around
 * device operators with constant starts.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_parse.h"

/* Enumerated assignments at most; distinct start tuples at most. */
#define AX_VARIANT_ENUM 4096
#define AX_MAX_VARIANTS 64

typedef struct dv_ctx {
    ax_parser *ps;
    ax_stmt *s;
    int nv, vars[AX_MAX_VARS];
    int64_t trip[AX_MAX_VARS]; /* its values: 0 .. trip - 1 */
    int64_t dom[AX_MAX_VARS];  /* values 0 .. dom - 1 per variable */
    bool cyclic[AX_MAX_VARS];  /* dom is a period: its values are residues */
    bool tested[AX_MAX_LOOPS]; /* kept if i is tested at the values */
    int ne;                    /* distinct start expressions */
    ax_expr *e[AX_MAX_DIMS * 3];
    char text[AX_MAX_DIMS * 3][AX_COND_SIDE_MAX + 1]; /* cut with "..." */
    int which[3][AX_MAX_DIMS];    /* operand, dim -> e index, -1: constant */
    bool needed[AX_MAX_DIMS * 3]; /* tested by a kept if (not implied) */
    int nt;                       /* distinct tuples */
    int64_t tup[AX_MAX_VARIANTS][AX_MAX_DIMS * 3];
} dv_ctx;

bool axe__var_is_kept(const axe_program *p, int v)
{
    return v >= AX_VAR_NBUILTIN && p->var_scalar[v] == 0 &&
           p->var_dtrip[v] != NULL;
}

/* The first variable or element "e" reads that is not a kept loop's
 * variable, or NULL. */
static const ax_expr *not_kept(const axe_program *p, const ax_expr *e)
{
    const ax_expr *r;
    if (e == NULL || e->kind == AX_EX_LOAD ||
        (e->kind == AX_EX_VAR && !axe__var_is_kept(p, e->var)))
        return e;
    if (e->kind == AX_EX_VAR)
        return NULL;
    r = not_kept(p, e->a);
    return r != NULL ? r : not_kept(p, e->b);
}

bool axe__start_kept_only(const axe_program *p, const ax_expr *e)
{
    return not_kept(p, e) == NULL;
}

static bool is_poly(const ax_expr *e)
{
    if (e == NULL)
        return true;
    if (e->kind == AX_EX_DIV || e->kind == AX_EX_MOD || e->kind == AX_EX_LOAD)
        return false;
    return is_poly(e->a) && is_poly(e->b);
}

static int64_t lcm(int64_t a, int64_t b)
{
    int64_t x = a, y = b, t;
    if (a < 0 || b < 0)
        return -1;
    if (a == 0 || b == 0)
        return a + b;
    while (y != 0)
        t = x % y, x = y, y = t;
    return a / x > AX_VARIANT_ENUM / b ? -1 : a / x * b;
}

/* The period of "e" in variable "v": 0 when it does not read v, -1 when
 * it reads v other than through `X % C` (X a polynomial: floor modulo
 * repeats every C) or the period passes AX_VARIANT_ENUM. */
static int64_t period(const ax_expr *e, int v)
{
    int64_t pa, pb;
    if (e == NULL || e->kind == AX_EX_INT)
        return 0;
    if (e->kind == AX_EX_VAR)
        return e->var == v ? -1 : 0;
    pa = period(e->a, v);
    pb = period(e->b, v);
    if (e->kind == AX_EX_MOD && pa < 0 && pb == 0 && is_poly(e->a) &&
        e->b->kind == AX_EX_INT && e->b->value > 0)
        return e->b->value <= AX_VARIANT_ENUM ? e->b->value : -1;
    return lcm(pa, pb);
}

static bool reads_only(const ax_expr *e, const int *vars, int nv)
{
    int i;
    if (e == NULL)
        return true;
    if (e->kind == AX_EX_LOAD)
        return false;
    if (e->kind == AX_EX_VAR) {
        for (i = 0; i < nv && vars[i] != e->var; i++)
            ;
        return i < nv;
    }
    return reads_only(e->a, vars, nv) && reads_only(e->b, vars, nv);
}

static void add_vars(dv_ctx *c, const ax_expr *e)
{
    int i;
    if (e == NULL)
        return;
    if (e->kind == AX_EX_VAR) {
        for (i = 0; i < c->nv && c->vars[i] != e->var; i++)
            ;
        if (i == c->nv)
            c->vars[c->nv++] = e->var;
        return;
    }
    add_vars(c, e->a);
    add_vars(c, e->b);
}

/* The distinct start expressions and their variables; their text for
 * messages (cut to AX_COND_SIDE_MAX characters, the last 3 "..."). */
static void collect(dv_ctx *c)
{
    const ax_stmt *s = c->s;
    int i, d, j;
    for (i = 0; i < s->nargs; i++)
        for (d = 0; d < AX_MAX_DIMS; d++) {
            const ax_expr *e = d < s->args[i].ndim ? s->args[i].start[d] : NULL;
            c->which[i][d] = -1;
            if (e == NULL || e->kind == AX_EX_INT)
                continue;
            for (j = 0; j < c->ne && !axe__expr_same(c->e[j], e); j++)
                ;
            if (j == c->ne) {
                if (axe__expr_text(c->ps->p, e, c->text[j], sizeof c->text[0],
                                   0) >= sizeof c->text[0])
                    strcpy(c->text[j] + sizeof c->text[0] - 4, "...");
                c->e[c->ne++] = s->args[i].start[d];
                add_vars(c, e);
            }
            c->which[i][d] = j;
        }
}

/* The largest value of "v" the user's kept ifs around the operator
 * allow through a linear condition on v alone (`k < 8`, `2 * k <= n`
 * not: it reads n; the else of `k >= 4`), or INT64_MAX. */
static int64_t guard_hi(const ax_parser *ps, int v)
{
    int64_t hi = INT64_MAX, c, k, a, b, h;
    int i, u, cmp;
    for (i = 0; i < ps->nkept; i++) {
        if (!ps->kept_is_if[i] ||
            !axe__guard_one_var(&ps->kept_cond[i], &u, &c, &k, &cmp) ||
            u != v || c == 0 || c == INT64_MIN || k == INT64_MIN)
            continue;
        /* as a * v + b < 0 (cmp 0, 2) or <= 0 (1, 3, 4), a > 0 */
        if ((cmp == 0 || cmp == 1 || cmp == 4) && c > 0)
            a = c, b = k;
        else if ((cmp == 2 || cmp == 3 || cmp == 4) && c < 0)
            a = -c, b = -k;
        else
            continue;
        h = cmp == 0 || cmp == 2 ? axe__floordiv(-b - 1, a)
                                 : axe__floordiv(-b, a);
        hi = h < hi ? h : hi;
    }
    return hi;
}

/* Variable i enumerated at the period "per" (0: its starts repeat
 * never): over its values, or one period where it takes more (cyclic:
 * residues). */
static void set_dom(dv_ctx *c, int i, int64_t per)
{
    c->cyclic[i] = per > 0 && per < c->trip[i];
    c->dom[i] = c->cyclic[i] ? per : c->trip[i];
}

/* The values each variable is enumerated over: its values (0 .. its
 * largest trip or the user's ifs' bound, minus 1), or one period of the
 * starts where it takes more (cyclic: residues). */
static axe_status domains(dv_ctx *c)
{
    const axe_program *p = c->ps->p;
    int64_t n = 1, per, trip, hi;
    int i, j;
    for (i = 0; i < c->nv; i++) {
        int v = c->vars[i];
        for (per = 0, j = 0; j < c->ne && per >= 0; j++)
            per = lcm(per, period(c->e[j], v));
        trip = p->var_trip[v];
        if ((hi = guard_hi(c->ps, v)) < trip - 1)
            trip = hi < 0 ? 0 : hi + 1;
        if (per < 0 && trip > AX_VARIANT_ENUM)
            return axe__fail(
                c->ps->diag, AXE_ERR_UNSUPPORTED, c->e[j - 1]->off,
                "the region start '%s' reads the variable '%s' of a kept "
                "device loop of up to %lld trips other than through 'X %% "
                "C' (X a polynomial in it): one plan per value needs few "
                "values (write '%s %% C' or bound it by an if, <= %d)",
                c->text[j - 1], p->vars[v], (long long)trip, p->vars[v],
                AX_VARIANT_ENUM);
        c->trip[i] = trip;
        set_dom(c, i, per);
        n *= c->dom[i] < 1 ? 1 : c->dom[i];
        if (n > AX_VARIANT_ENUM)
            return axe__fail(c->ps->diag, AXE_ERR_CAPACITY, c->e[0]->off,
                             "the region starts of a device operator read "
                             "kept loops' variables over more than %d "
                             "combinations of their values",
                             AX_VARIANT_ENUM);
    }
    return AXE_OK;
}

/* The periods of the cyclic variables widened to the lcm with those of
 * the user's kept if "g" into "per" (the others' domains as they are):
 * whether "g" reads only the enumerated variables, each cyclic one only
 * through `X % C` (X a polynomial), and the assignments stay at most
 * AX_VARIANT_ENUM. */
static bool widened(const dv_ctx *c, const ax_guard *g, int64_t *per)
{
    int64_t n = 1, q, d;
    int i;
    if (!reads_only(g->lhs, c->vars, c->nv) ||
        !reads_only(g->rhs, c->vars, c->nv))
        return false;
    for (i = 0; i < c->nv; i++) {
        per[i] = c->dom[i];
        if (c->cyclic[i]) {
            q = lcm(period(g->lhs, c->vars[i]), period(g->rhs, c->vars[i]));
            if (q < 0 || (per[i] = lcm(per[i], q)) < 0)
                return false;
        }
        d = per[i] < c->trip[i] ? per[i] : c->trip[i];
        n *= d < 1 ? 1 : d;
        if (n > AX_VARIANT_ENUM)
            return false;
    }
    return true;
}

/* A user's kept if around the operator that repeats with its variables
 * but not with the starts (`if (k % 6 == 0)` around `k % 8`): the
 * variables enumerated over the lcm of both periods (or all their values
 * where fewer), so that it is tested and only the plans it admits are
 * made (k = 0, 6, 12, 18: 4 plans); where that would pass
 * AX_VARIANT_ENUM assignments the if is left to run time (every plan).
 * Each if in turn, outermost first. */
static void widen(dv_ctx *c)
{
    const ax_parser *ps = c->ps;
    int64_t per[AX_MAX_VARS];
    int i, j;
    for (i = 0; i < ps->nkept; i++)
        if (ps->kept_is_if[i] && widened(c, &ps->kept_cond[i], per))
            for (j = 0; j < c->nv; j++)
                if (c->cyclic[j])
                    set_dom(c, j, per[j]);
}

/* Whether the user's kept if "g" gives its value at every value of the
 * variables by its value at the enumerated ones: it reads only them, and
 * a cyclic one only through `X % C` with C dividing its period (it
 * repeats with it; `k >= 6` does not: k = 14 has the residue 6 of
 * k % 8 but not its value there). */
static bool testable(const dv_ctx *c, const ax_guard *g)
{
    int i;
    if (!reads_only(g->lhs, c->vars, c->nv) ||
        !reads_only(g->rhs, c->vars, c->nv))
        return false;
    for (i = 0; i < c->nv; i++) {
        int64_t q = lcm(period(g->lhs, c->vars[i]), period(g->rhs, c->vars[i]));
        if (c->cyclic[i] && (q < 0 || (q > 0 && c->dom[i] % q != 0)))
            return false;
    }
    return true;
}

/* Whether the tested kept ifs around the operator hold at "env" (the
 * others may hold at values with the same residues: not evaluated). */
static bool admitted(const dv_ctx *c, const int64_t *env)
{
    const ax_parser *ps = c->ps;
    int i;
    for (i = 0; i < ps->nkept; i++)
        if (c->tested[i] && !axe__guard_holds(&ps->kept_cond[i], env))
            return false;
    return true;
}

/* The assignment of the variables "e" reads at "env" ("k = 3, j = 1")
 * into "buf". */
static void env_text(const dv_ctx *c, const ax_expr *e, const int64_t *env,
                     char *buf, size_t cap)
{
    size_t n = 0;
    int i, w;
    buf[0] = '\0';
    for (i = 0; i < c->nv && n < cap; i++)
        if (axe__expr_uses(e, c->vars[i]) &&
            (w = snprintf(buf + n, cap - n, "%s%s = %lld", n > 0 ? ", " : "",
                          c->ps->p->vars[c->vars[i]],
                          (long long)env[c->vars[i]])) > 0)
            n += (size_t)w;
}

/* The tuple of start values at "env": within every extent, then added
 * when new. */
static axe_status add_tuple(dv_ctx *c, const int64_t *env)
{
    const axe_program *p = c->ps->p;
    const ax_stmt *s = c->s;
    int64_t val[AX_MAX_DIMS * 3];
    char at[160];
    int i, d, j;
    for (j = 0; j < c->ne; j++)
        val[j] = axe__expr_eval(c->e[j], env);
    for (i = 0; i < s->nargs; i++)
        for (d = 0; d < s->args[i].ndim; d++) {
            const ax_tensor *t = &p->tensors[s->args[i].tensor];
            int64_t v, hi = t->shape[d] - s->args[i].len[d];
            if ((j = c->which[i][d]) < 0 || d >= t->ndim)
                continue;
            if ((v = val[j]) >= 0 && v <= hi)
                continue;
            env_text(c, c->e[j], env, at, sizeof at);
            return axe__fail(c->ps->diag, AXE_ERR_DOMAIN, c->e[j]->off,
                             "the region start '%s' of '%s' (dim %d) is %lld "
                             "at %s, outside [0, %lld] (the extent %lld "
                             "minus the length %lld)",
                             c->text[j], t->name, d, (long long)v, at,
                             (long long)hi, (long long)t->shape[d],
                             (long long)s->args[i].len[d]);
        }
    for (i = 0;
         i < c->nt && memcmp(c->tup[i], val, sizeof val[0] * (size_t)c->ne);
         i++)
        ;
    if (i < c->nt)
        return AXE_OK;
    if (c->nt == AX_MAX_VARIANTS)
        return axe__fail(c->ps->diag, AXE_ERR_CAPACITY, c->e[0]->off,
                         "the region starts of a device operator take more "
                         "than %d values (one exchange plan each)",
                         AX_MAX_VARIANTS);
    memcpy(c->tup[c->nt++], val, sizeof val[0] * (size_t)c->ne);
    return AXE_OK;
}

/* Every admitted assignment, the first variable fastest (none when a
 * variable takes no value). */
static axe_status enumerate(dv_ctx *c)
{
    int64_t env[AX_MAX_VARS] = {0};
    int i;
    for (i = 0; i < c->ps->nkept; i++)
        c->tested[i] =
            c->ps->kept_is_if[i] && testable(c, &c->ps->kept_cond[i]);
    for (i = 0; i < c->nv; i++)
        if (c->dom[i] <= 0)
            return AXE_OK;
    for (;;) {
        if (admitted(c, env))
            AXE_TRY(add_tuple(c, env));
        for (i = 0; i < c->nv && ++env[c->vars[i]] >= c->dom[i]; i++)
            env[c->vars[i]] = 0;
        if (i == c->nv)
            return AXE_OK;
    }
}

/* Expression j is tested unless the values of the tested ones before it
 * determine its value in every tuple. */
static void mark_needed(dv_ctx *c)
{
    int j, a, b, i;
    for (j = 0; j < c->ne; j++) {
        c->needed[j] = false;
        for (a = 0; a < c->nt && !c->needed[j]; a++)
            for (b = a + 1; b < c->nt && !c->needed[j]; b++) {
                for (i = 0;
                     i < j && (!c->needed[i] || c->tup[a][i] == c->tup[b][i]);
                     i++)
                    ;
                c->needed[j] = i == j && c->tup[a][j] != c->tup[b][j];
            }
    }
}

/* Copy "t" of the operator: constant starts, the next index. */
static axe_status variant(dv_ctx *c, int t, ax_stmt **out)
{
    axe_program *p = c->ps->p;
    ax_stmt *v = axe__arena_alloc(p->arena, sizeof *v);
    int i, d;
    if (v == NULL)
        return AXE_ERR_NO_MEMORY;
    *v = *c->s;
    v->next = NULL;
    if (t > 0) {
        if (p->ndevops == AX_MAX_DEVOPS)
            return axe__fail(c->ps->diag, AXE_ERR_CAPACITY, c->s->off,
                             "more than %d device operators (counted after "
                             "unrolling the loops around them and one per "
                             "value of region starts on kept loops' "
                             "variables)",
                             AX_MAX_DEVOPS);
        v->index = p->ndevops++;
        v->seq = p->nops + v->index;
    }
    for (i = 0; i < v->nargs; i++)
        for (d = 0; d < v->args[i].ndim; d++)
            if (c->which[i][d] >= 0 &&
                (v->args[i].start[d] =
                     axe__expr_int(p->arena, c->tup[t][c->which[i][d]],
                                   c->s->args[i].start[d]->off)) == NULL)
                return AXE_ERR_NO_MEMORY;
    *out = v;
    return AXE_OK;
}

/* The next expression from "j" on that is tested. */
static int next_needed(const dv_ctx *c, int j)
{
    while (j < c->ne && !c->needed[j])
        j++;
    return j;
}

/* Kept if `if (e[j] == tup[t][j])` around "body" (nested for the tested
 * expressions from j on; the last one's note numbers the plan). */
static axe_status guard_nest(dv_ctx *c, int t, int j, ax_stmt **out)
{
    ax_parser *ps = c->ps;
    ax_stmt *s;
    char cond[2 * AX_COND_SIDE_MAX + 8];
    int n;
    if ((j = next_needed(c, j)) == c->ne) {
        AXE_TRY(variant(c, t, out));
        return axe__unroll_note(ps, &(*out)->iter);
    }
    if (ps->nkept == AX_MAX_LOOPS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, c->s->off,
                         "more than %d kept device loops and ifs around a "
                         "statement",
                         AX_MAX_LOOPS);
    if ((s = axe__arena_alloc(ps->p->arena, sizeof *s)) == NULL)
        return AXE_ERR_NO_MEMORY;
    s->kind = AX_ST_IF;
    s->off = c->e[j]->off;
    s->line = c->s->line;
    s->kept = true;
    s->cond.lhs = c->e[j];
    s->cond.cmp = 4; /* == (ax_guard's numbering, axe__cmp_text) */
    if ((s->cond.rhs = axe__expr_int(ps->p->arena, c->tup[t][j], s->off)) ==
        NULL)
        return AXE_ERR_NO_MEMORY;
    axe__cond_text(ps->p, &s->cond, AX_COND_SIDE_MAX, cond, sizeof cond);
    n = snprintf(ps->kept_note[ps->nkept], sizeof ps->kept_note[0],
                 "if (%s) kept", cond);
    if (next_needed(c, j + 1) == c->ne && n > 0)
        snprintf(ps->kept_note[ps->nkept] + n,
                 sizeof ps->kept_note[0] - (size_t)n,
                 ": plan %d of %d for the starts", t + 1, c->nt);
    ps->kept_is_if[ps->nkept] = false; /* not a user's condition */
    ps->kept_depth[ps->nkept++] = ps->nparams;
    AXE_TRY(guard_nest(c, t, j + 1, &s->body));
    ps->nkept--;
    *out = s;
    return AXE_OK;
}

axe_status axe__devop_variants(ax_parser *ps, ax_stmt *s)
{
    dv_ctx *c = axe__arena_alloc(ps->p->arena, sizeof *c);
    ax_stmt *first = NULL, **tail = &first;
    int t;
    if (c == NULL)
        return AXE_ERR_NO_MEMORY;
    memset(c, 0, sizeof *c);
    c->ps = ps;
    c->s = s;
    collect(c);
    if (c->ne == 0)
        return AXE_OK;
    AXE_TRY(domains(c));
    widen(c);
    AXE_TRY(enumerate(c));
    mark_needed(c);
    for (t = 0; t < c->nt; t++) {
        AXE_TRY(guard_nest(c, t, 0, tail));
        tail = &(*tail)->next;
    }
    if (first == NULL) /* no admitted value: the operator never runs */
        return axe__fail(ps->diag, AXE_ERR_INVALID, s->off,
                         "device %s: the kept ifs around it admit no value "
                         "of its region starts",
                         axe__op_name(s->op));
    *s = *first;
    return AXE_OK;
}
