/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Integer expressions of the kernel language: constants, variables (block
 * and thread ids, loop variables), + - * and floor division / modulo.
 * Folding replaces constant subtrees by their value with overflow checks;
 * after folding every divisor is a positive constant (the generated code
 * never divides by a run-time value). Ranges are interval bounds over the
 * variables' ranges; gcds give the alignment every value of an expression
 * shares.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

/* The constant "v" at text offset "off" (NULL when the arena is full). */
ax_expr *axe__expr_int(ax_arena *a, int64_t v, long off)
{
    ax_expr *e = axe__arena_alloc(a, sizeof *e);
    if (e != NULL) {
        e->kind = AX_EX_INT;
        e->value = v;
        e->off = off;
        e->depth = 1;
    }
    return e;
}

static axe_status fold_binary(ax_ex_kind k, int64_t x, int64_t y, int64_t *r)
{
    switch (k) {
    case AX_EX_ADD:
        return axe__add(x, y, r);
    case AX_EX_SUB:
        return axe__sub(x, y, r);
    case AX_EX_MUL:
        return axe__mul(x, y, r);
    case AX_EX_DIV:
        *r = axe__floordiv(x, y);
        return AXE_OK;
    case AX_EX_MOD:
        *r = axe__floormod(x, y);
        return AXE_OK;
    case AX_EX_INT:
    case AX_EX_VAR:
    case AX_EX_NEG:
    case AX_EX_LOAD:
        break;
    }
    return AXE_ERR_INVALID;
}

static axe_status check_divisor(const ax_expr *e, const ax_expr *b,
                                axe_diag *diag)
{
    if (b->kind != AX_EX_INT)
        return axe__fail(diag, AXE_ERR_INVALID, e->off,
                         "the divisor of '%s' must be a compile-time "
                         "constant",
                         e->kind == AX_EX_DIV ? "//" : "%");
    if (b->value <= 0)
        return axe__fail(diag, AXE_ERR_DOMAIN, e->off,
                         "the divisor of '%s' must be positive, not %lld",
                         e->kind == AX_EX_DIV ? "//" : "%",
                         (long long)b->value);
    return AXE_OK;
}

/* Fold "e" into "*out" (a new node only where something folded). */
axe_status axe__expr_fold(ax_arena *a, ax_expr *e, ax_expr **out,
                          axe_diag *diag)
{
    ax_expr *x = NULL, *y = NULL;
    int64_t r;
    if (e->kind == AX_EX_INT || e->kind == AX_EX_VAR || e->kind == AX_EX_LOAD) {
        *out = e;
        return AXE_OK;
    }
    AXE_TRY(axe__expr_fold(a, e->a, &x, diag));
    if (e->kind == AX_EX_NEG) {
        e->a = x;
        if (x->kind != AX_EX_INT) {
            *out = e;
            return AXE_OK;
        }
        if (axe__sub(0, x->value, &r) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, e->off,
                             "integer overflow");
        *out = axe__expr_int(a, r, e->off);
        return *out != NULL ? AXE_OK : AXE_ERR_NO_MEMORY;
    }
    AXE_TRY(axe__expr_fold(a, e->b, &y, diag));
    e->a = x;
    e->b = y;
    if (e->kind == AX_EX_DIV || e->kind == AX_EX_MOD)
        AXE_TRY(check_divisor(e, y, diag));
    if (x->kind != AX_EX_INT || y->kind != AX_EX_INT) {
        *out = e;
        return AXE_OK;
    }
    if (fold_binary(e->kind, x->value, y->value, &r) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, e->off, "integer overflow");
    *out = axe__expr_int(a, r, e->off);
    return *out != NULL ? AXE_OK : AXE_ERR_NO_MEMORY;
}

/* The number of values of variable "v" (an id, or a loop variable). */
int64_t axe__var_extent(const axe_program *p, int v)
{
    int64_t t = p->threads;
    switch (v) {
    case AX_VAR_BX:
    case AX_VAR_BY:
    case AX_VAR_BZ:
        return p->grid[v - AX_VAR_BX];
    case AX_VAR_TX:
        return t;
    case AX_VAR_LANEID:
        return t < 32 ? t : 32;
    case AX_VAR_WARPID:
        return axe__ceildiv(t, 32);
    case AX_VAR_WGID:
        return axe__ceildiv(t, 128);
    case AX_VAR_TID_IN_WG:
        return t < 128 ? t : 128;
    case AX_VAR_WID_IN_WG:
        return axe__ceildiv(t < 128 ? t : 128, 32);
    default:
        return p->var_trip[v];
    }
}

/* The values of variable "v" before any guard: [0, extent - 1] for ids
 * and loop variables, the i32 range for a runtime scalar. */
void axe__var_range(const axe_program *p, int v, int64_t *lo, int64_t *hi)
{
    *lo = p->var_scalar[v] != 0 ? INT32_MIN : 0;
    *hi = p->var_scalar[v] != 0 ? INT32_MAX : axe__var_extent(p, v) - 1;
}

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a < b ? a : b;
    m = m < c ? m : c;
    return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t m = a > b ? a : b;
    m = m > c ? m : c;
    return m > d ? m : d;
}

static axe_status range_mul(int64_t al, int64_t ah, int64_t bl, int64_t bh,
                            int64_t *lo, int64_t *hi)
{
    int64_t p[4];
    AXE_TRY(axe__mul(al, bl, &p[0]));
    AXE_TRY(axe__mul(al, bh, &p[1]));
    AXE_TRY(axe__mul(ah, bl, &p[2]));
    AXE_TRY(axe__mul(ah, bh, &p[3]));
    *lo = min4(p[0], p[1], p[2], p[3]);
    *hi = max4(p[0], p[1], p[2], p[3]);
    return AXE_OK;
}

static axe_status range_binary(const ax_expr *e, int64_t al, int64_t ah,
                               int64_t bl, int64_t bh, int64_t *lo, int64_t *hi)
{
    switch (e->kind) {
    case AX_EX_ADD:
        AXE_TRY(axe__add(al, bl, lo));
        return axe__add(ah, bh, hi);
    case AX_EX_SUB:
        AXE_TRY(axe__sub(al, bh, lo));
        return axe__sub(ah, bl, hi);
    case AX_EX_MUL:
        return range_mul(al, ah, bl, bh, lo, hi);
    case AX_EX_DIV:
        *lo = axe__floordiv(al, bl);
        *hi = axe__floordiv(ah, bl);
        return AXE_OK;
    case AX_EX_MOD:
        *lo = 0;
        *hi = bl - 1;
        if (al >= 0 && ah < bl) {
            *lo = al;
            *hi = ah;
        }
        return AXE_OK;
    case AX_EX_INT:
    case AX_EX_VAR:
    case AX_EX_NEG:
    case AX_EX_LOAD:
        break;
    }
    return AXE_ERR_INVALID;
}

/* Interval bounds of a folded expression (divisors are constants). */
axe_status axe__expr_range(const axe_program *p, const ax_expr *e, int64_t *lo,
                           int64_t *hi)
{
    int64_t al, ah, bl, bh;
    switch (e->kind) {
    case AX_EX_INT:
        *lo = *hi = e->value;
        return AXE_OK;
    case AX_EX_VAR:
        axe__var_range(p, e->var, lo, hi);
        if (p->var_lo[e->var] <= p->var_hi[e->var]) {
            *lo = *lo > p->var_lo[e->var] ? *lo : p->var_lo[e->var];
            *hi = *hi < p->var_hi[e->var] ? *hi : p->var_hi[e->var];
        }
        return AXE_OK;
    case AX_EX_NEG:
        AXE_TRY(axe__expr_range(p, e->a, &al, &ah));
        AXE_TRY(axe__sub(0, ah, lo));
        return axe__sub(0, al, hi);
    case AX_EX_LOAD: /* an i8 or i32 element */
        *lo = p->tensors[e->load->tensor].dtype == AXE_DTYPE_I8 ? -128
                                                                : INT32_MIN;
        *hi =
            p->tensors[e->load->tensor].dtype == AXE_DTYPE_I8 ? 127 : INT32_MAX;
        return AXE_OK;
    case AX_EX_ADD:
    case AX_EX_SUB:
    case AX_EX_MUL:
    case AX_EX_DIV:
    case AX_EX_MOD:
        break;
    }
    AXE_TRY(axe__expr_range(p, e->a, &al, &ah));
    AXE_TRY(axe__expr_range(p, e->b, &bl, &bh));
    return range_binary(e, al, ah, bl, bh, lo, hi);
}

/* g with g | e for all variable values (1 when nothing better is known). */
bool axe__expr_same(const ax_expr *a, const ax_expr *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    if (a->kind != b->kind || a->kind == AX_EX_LOAD ||
        (a->kind == AX_EX_INT && a->value != b->value) ||
        (a->kind == AX_EX_VAR && a->var != b->var))
        return false;
    return axe__expr_same(a->a, b->a) && axe__expr_same(a->b, b->b);
}

int64_t axe__expr_gcd(const ax_expr *e)
{
    int64_t x, y, r;
    switch (e->kind) {
    case AX_EX_INT:
        return axe__abs(e->value);
    case AX_EX_ADD:
    case AX_EX_SUB:
        return axe__gcd(axe__expr_gcd(e->a), axe__expr_gcd(e->b));
    case AX_EX_NEG:
        return axe__expr_gcd(e->a);
    case AX_EX_MUL:
        x = axe__expr_gcd(e->a);
        y = axe__expr_gcd(e->b);
        return axe__mul(x, y, &r) == AXE_OK ? r : 1;
    case AX_EX_VAR:
    case AX_EX_DIV:
    case AX_EX_MOD:
    case AX_EX_LOAD:
        break;
    }
    return 1;
}

/* Evaluate with floor division (divisors positive after folding). */
int64_t axe__expr_eval_ld(const ax_expr *e, const int64_t *env,
                          const ax_loader *ld)
{
    int64_t idx[AX_MAX_DIMS];
    int d;
    switch (e->kind) {
    case AX_EX_INT:
        return e->value;
    case AX_EX_VAR:
        return env[e->var];
    case AX_EX_ADD:
        return axe__expr_eval_ld(e->a, env, ld) +
               axe__expr_eval_ld(e->b, env, ld);
    case AX_EX_SUB:
        return axe__expr_eval_ld(e->a, env, ld) -
               axe__expr_eval_ld(e->b, env, ld);
    case AX_EX_MUL:
        return axe__expr_eval_ld(e->a, env, ld) *
               axe__expr_eval_ld(e->b, env, ld);
    case AX_EX_DIV:
        return axe__floordiv(axe__expr_eval_ld(e->a, env, ld), e->b->value);
    case AX_EX_MOD:
        return axe__floormod(axe__expr_eval_ld(e->a, env, ld), e->b->value);
    case AX_EX_NEG:
        return -axe__expr_eval_ld(e->a, env, ld);
    case AX_EX_LOAD:
        if (ld == NULL)
            return 0;
        for (d = 0; d < e->load->ndim; d++)
            idx[d] = e->load->start[d] != NULL
                         ? axe__expr_eval_ld(e->load->start[d], env, ld)
                         : 0;
        return ld->fn(ld->ctx, e->load, idx);
    }
    return 0;
}

int64_t axe__expr_eval(const ax_expr *e, const int64_t *env)
{
    return axe__expr_eval_ld(e, env, NULL);
}

/* The first LOAD of "e" (NULL: none) and, in "*count", how many. */
const ax_expr *axe__expr_load(const ax_expr *e, int *count)
{
    const ax_expr *a, *b;
    int na = 0, nb = 0;
    *count = 0;
    if (e == NULL)
        return NULL;
    if (e->kind == AX_EX_LOAD) {
        *count = 1;
        return e;
    }
    a = axe__expr_load(e->a, &na);
    b = axe__expr_load(e->b, &nb);
    *count = na + nb;
    return a != NULL ? a : b;
}

/* The first product of two non-constant factors in the folded "e"
 * (NULL: "e" is affine in its variables, up to // and % by constants). */
const ax_expr *axe__expr_nonaffine(const ax_expr *e)
{
    const ax_expr *r;
    int d;
    if (e != NULL && e->kind == AX_EX_LOAD) {
        for (d = 0; d < e->load->ndim; d++)
            if ((r = axe__expr_nonaffine(e->load->start[d])) != NULL)
                return r;
        return NULL;
    }
    if (e == NULL || e->kind == AX_EX_INT || e->kind == AX_EX_VAR)
        return NULL;
    if (e->kind == AX_EX_MUL && e->a->kind != AX_EX_INT &&
        e->b->kind != AX_EX_INT)
        return e;
    r = axe__expr_nonaffine(e->a);
    return r != NULL ? r : axe__expr_nonaffine(e->b);
}

static size_t put(char *buf, size_t cap, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n < cap)
        memcpy(buf + n, s, n + k < cap ? k : cap - n - 1);
    if (n < cap)
        buf[n + k < cap ? n + k : cap - 1] = '\0';
    return n + k;
}

const char *axe__cmp_text(int cmp)
{
    static const char *const cmps[] = {"<", "<=", ">", ">=", "==", "!="};
    return cmps[cmp];
}

/* "e" into "out" (side + 1 bytes), cut as axe__cond_text says. */
static void side_text(const axe_program *p, const ax_expr *e, size_t side,
                      char *out)
{
    if (axe__expr_text(p, e, out, side + 1, 0) > side)
        strcpy(out + side - 3, "...");
}

void axe__cond_text(const axe_program *p, const ax_guard *g, size_t side,
                    char *buf, size_t cap)
{
    char a[AX_COND_SIDE_MAX + 1], b[AX_COND_SIDE_MAX + 1];
    if (side > AX_COND_SIDE_MAX)
        side = AX_COND_SIDE_MAX;
    side_text(p, g->lhs, side, a);
    side_text(p, g->rhs, side, b);
    snprintf(buf, cap, "%s %s %s", a, axe__cmp_text(g->cmp), b);
}

/* "e" in the language's syntax into "buf" (snprintf-style; a binary
 * operand of * // % and the right operand of - are parenthesized). */
size_t axe__expr_text(const axe_program *p, const ax_expr *e, char *buf,
                      size_t cap, size_t n)
{
    static const char *const ops[] = {"",    "",     " + ", " - ",
                                      " * ", " // ", " % ", ""};
    char num[24];
    bool pa, pb;
    int d;
    switch (e->kind) {
    case AX_EX_INT:
        snprintf(num, sizeof num, "%lld", (long long)e->value);
        return put(buf, cap, n, num);
    case AX_EX_LOAD:
        n = put(buf, cap, n, p->tensors[e->load->tensor].name);
        for (d = 0; d < e->load->ndim; d++) {
            n = put(buf, cap, n, d ? ", " : "[");
            n = axe__expr_text(p, e->load->start[d], buf, cap, n);
        }
        return put(buf, cap, n, "]");
    case AX_EX_VAR:
        return put(buf, cap, n, p->vars[e->var]);
    case AX_EX_NEG:
        n = put(buf, cap, n, "-(");
        n = axe__expr_text(p, e->a, buf, cap, n);
        return put(buf, cap, n, ")");
    case AX_EX_ADD:
    case AX_EX_SUB:
    case AX_EX_MUL:
    case AX_EX_DIV:
    case AX_EX_MOD:
        break;
    }
    pa = e->kind >= AX_EX_MUL && e->a->kind >= AX_EX_ADD &&
         e->a->kind <= AX_EX_SUB;
    pb = (e->kind >= AX_EX_MUL || e->kind == AX_EX_SUB) &&
         e->b->kind >= AX_EX_ADD && e->b->kind != AX_EX_NEG &&
         e->b->kind != AX_EX_LOAD;
    n = put(buf, cap, n, pa ? "(" : "");
    n = axe__expr_text(p, e->a, buf, cap, n);
    n = put(buf, cap, n, pa ? ")" : "");
    n = put(buf, cap, n, ops[e->kind]);
    n = put(buf, cap, n, pb ? "(" : "");
    n = axe__expr_text(p, e->b, buf, cap, n);
    return put(buf, cap, n, pb ? ")" : "");
}

/* Whether "e" reads variable "v" (in a LOAD's coordinates too). */
bool axe__expr_uses(const ax_expr *e, int v)
{
    int d;
    if (e == NULL)
        return false;
    if (e->kind == AX_EX_VAR)
        return e->var == v;
    for (d = 0; e->kind == AX_EX_LOAD && d < e->load->ndim; d++)
        if (axe__expr_uses(e->load->start[d], v))
            return true;
    return axe__expr_uses(e->a, v) || axe__expr_uses(e->b, v);
}

/* The first runtime scalar that "e" reads (its variable), or -1. */
int axe__expr_scalar(const axe_program *p, const ax_expr *e)
{
    int v;
    if (e == NULL)
        return -1;
    if (e->kind == AX_EX_VAR)
        return p->var_scalar[e->var] != 0 ? e->var : -1;
    v = axe__expr_scalar(p, e->a);
    return v >= 0 ? v : axe__expr_scalar(p, e->b);
}

/* The first variable of "e" that is not a runtime scalar, or -1. */
int axe__expr_nonscalar(const axe_program *p, const ax_expr *e)
{
    int v;
    if (e == NULL)
        return -1;
    if (e->kind == AX_EX_VAR)
        return p->var_scalar[e->var] == 0 ? e->var : -1;
    v = axe__expr_nonscalar(p, e->a);
    return v >= 0 ? v : axe__expr_nonscalar(p, e->b);
}

static const char *const c_ops[] = {"", "", " + ", " - ", " * ", "", "", ""};

/* C text of "e"; variables print by name, floor div/mod as macros. */
void axe__expr_print_c(ax_text *t, const axe_program *p, const ax_expr *e)
{
    switch (e->kind) {
    case AX_EX_INT: /* -2^63 has no literal: 2^63 is no long */
        if (e->value == INT64_MIN)
            axe__text_put(t, "(-%lldL - 1)", (long long)INT64_MAX);
        else
            axe__text_put(t, "%lldL", (long long)e->value);
        return;
    case AX_EX_VAR:
        axe__text_put(t, "%s%s",
                      p->var_scalar[e->var] != 0  ? "s_"
                      : e->var >= AX_VAR_NBUILTIN ? "v_"
                                                  : "",
                      p->vars[e->var]);
        return;
    case AX_EX_NEG:
        axe__text_put(t, "(-");
        axe__expr_print_c(t, p, e->a);
        axe__text_put(t, ")");
        return;
    case AX_EX_DIV:
    case AX_EX_MOD:
        axe__text_put(t, "%s(", e->kind == AX_EX_DIV ? "AXE_FDIV" : "AXE_FMOD");
        axe__expr_print_c(t, p, e->a);
        axe__text_put(t, ", %lldL)", (long long)e->b->value);
        return;
    case AX_EX_LOAD:
        axe__emit_load(t, p, e->load);
        return;
    case AX_EX_ADD:
    case AX_EX_SUB:
    case AX_EX_MUL:
        break;
    }
    axe__text_put(t, "(");
    axe__expr_print_c(t, p, e->a);
    axe__text_put(t, "%s", c_ops[e->kind]);
    axe__expr_print_c(t, p, e->b);
    axe__text_put(t, ")");
}

void axe__cond_print_c(ax_text *t, const axe_program *p, const ax_guard *g)
{
    axe__expr_print_c(t, p, g->lhs);
    axe__text_put(t, " %s ", axe__cmp_text(g->cmp));
    axe__expr_print_c(t, p, g->rhs);
}

/* Whether "g" and every enclosing guard hold for "env". */
bool axe__guard_holds(const ax_guard *g, const int64_t *env)
{
    for (; g != NULL; g = g->up) {
        int64_t a = axe__expr_eval(g->lhs, env),
                b = axe__expr_eval(g->rhs, env);
        bool r = g->cmp == 0   ? a < b
                 : g->cmp == 1 ? a <= b
                 : g->cmp == 2 ? a > b
                 : g->cmp == 3 ? a >= b
                 : g->cmp == 4 ? a == b
                               : a != b;
        if (r == g->negate)
            return false;
    }
    return true;
}
