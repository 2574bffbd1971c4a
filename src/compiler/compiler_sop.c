/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scalar operands (docs/compiler.md, "Scalar operands"): a literal or a
 * runtime scalar in place of a source tensor of an elementwise binary
 * operator, pow, a comparison or select, broadcast over the region. The
 * scalar converts to the dtype of the other operands (a comparison's
 * tensor source, else the destination's), as a tensor of that dtype
 * filled with it would hold it; this file parses them, maps source
 * positions to tensor operands and checks the conversions (sema).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "compiler_parse.h"

/* Whether operand position "pos" of "op" may be a scalar (a literal or
 * a runtime scalar): a source of an elementwise binary operator, pow or
 * a comparison, or select's values (not its predicate). */
static bool sop_allowed(ax_op op, int pos)
{
    if (op == AX_OP_SELECT)
        return pos >= 2;
    return pos >= 1 && (op == AX_OP_ADD || op == AX_OP_SUB || op == AX_OP_MUL ||
                        op == AX_OP_DIV || op == AX_OP_MAX || op == AX_OP_MIN ||
                        op == AX_OP_POW || (op >= AX_OP_LT && op <= AX_OP_NE));
}

static int param_at(const ax_parser *ps)
{
    int i, t;
    if (ps->tok.kind != AX_TOK_IDENT)
        return -1;
    for (t = 0; t < ps->p->ntensors; t++)
        if (axe__tok_is(ps, ps->p->tensors[t].name))
            return -1;
    for (i = 0; i < ps->nparams; i++)
        if (axe__tok_is(ps, ps->param_name[i]))
            return i;
    return -1;
}

/* The kept device loop variable the token names (innermost first), or
 * -1 (another loop's variable is no operand). */
static int kept_at(const ax_parser *ps)
{
    const axe_program *p = ps->p;
    int i;
    if (ps->tok.kind != AX_TOK_IDENT)
        return -1;
    for (i = ps->nscope_vars - 1; i >= 0; i--) {
        int v = ps->scope_vars[i];
        if (axe__tok_is(ps, p->vars[v]))
            return axe__var_is_kept(p, v) ? v : -1;
    }
    return -1;
}

int axe__scalar_at(const ax_parser *ps)
{
    int i;
    if (ps->tok.kind != AX_TOK_IDENT)
        return 0;
    for (i = 0; i < ps->p->nscalars; i++)
        if (axe__tok_is(ps, ps->p->scalar_name[i]))
            return i + 1;
    return 0;
}

/* A literal operand after its optional '-': INT, a param, FLOAT or inf. */
static axe_status sop_literal(ax_parser *ps, ax_sop *o)
{
    if (ps->tok.kind == AX_TOK_INT || param_at(ps) >= 0) {
        o->kind = AX_SOP_INT;
        o->value = ps->tok.kind == AX_TOK_INT
                       ? (double)ps->tok.value
                       : (double)ps->param_value[param_at(ps)];
        if (fabs(o->value) >= 0x1p53)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, o->off,
                             "the literal lies beyond 2^53 in magnitude");
        return AXE_OK;
    }
    if (ps->tok.kind == AX_TOK_FLOAT || axe__tok_is(ps, "inf")) {
        o->kind = AX_SOP_FLOAT;
        o->value = ps->tok.kind == AX_TOK_FLOAT ? ps->tok.fvalue : HUGE_VAL;
        return AXE_OK;
    }
    return axe__syntax(ps, "a number, inf, a param or a runtime scalar "
                           "after '-'");
}

bool axe__at_sop(const ax_parser *ps)
{
    return ps->tok.kind == AX_TOK_INT || ps->tok.kind == AX_TOK_FLOAT ||
           axe__tok_is(ps, "-") || axe__tok_is(ps, "inf") ||
           param_at(ps) >= 0 || axe__scalar_at(ps) != 0 || kept_at(ps) >= 0;
}

axe_status axe__parse_sop(ax_parser *ps, ax_stmt *s, int pos)
{
    ax_sop *o = &s->sop[pos];
    bool neg = axe__tok_is(ps, "-");
    o->off = (long)ps->tok.pos;
    if (!sop_allowed(s->op, pos))
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, o->off,
                         pos == 0 ? "the destination of %s must be a "
                                    "tensor, not a scalar"
                                  : "%s takes tensor operands only: a "
                                    "scalar (a literal or a runtime "
                                    "scalar) is an operand of the "
                                    "elementwise binary operators, pow, "
                                    "the comparisons and select's values "
                                    "(fill a register with it)",
                         axe__op_name(s->op));
    if (neg)
        AXE_TRY(axe__lex_next(ps));
    if ((axe__scalar_at(ps) != 0 || kept_at(ps) >= 0) && neg)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, o->off,
                         "a negated %s is not an operand (use sub, or neg "
                         "on a register)",
                         kept_at(ps) >= 0 ? "kept loop variable"
                                          : "runtime scalar");
    if (axe__scalar_at(ps) != 0) {
        o->kind = AX_SOP_SCALAR;
        o->scalar = axe__scalar_at(ps) - 1;
    } else if (kept_at(ps) >= 0) {
        o->kind = AX_SOP_KEPT;
        o->scalar = kept_at(ps);
    } else {
        AXE_TRY(sop_literal(ps, o));
    }
    if (neg)
        o->value = -o->value;
    s->nsops++;
    return axe__lex_next(ps);
}

int axe__operand_arg(const ax_stmt *s, int pos)
{
    int i, n = 0;
    if (s->sop[pos].kind != AX_SOP_NONE)
        return -1;
    for (i = 0; i < pos; i++)
        n += s->sop[i].kind == AX_SOP_NONE;
    return n;
}

int axe__operand_count(const ax_stmt *s) { return s->nargs + s->nsops; }

static bool is_compare(ax_op op)
{
    return op == AX_OP_LT || op == AX_OP_LE || op == AX_OP_GT ||
           op == AX_OP_GE || op == AX_OP_EQ || op == AX_OP_NE;
}

axe_dtype axe__sop_dtype(const axe_program *p, const ax_stmt *s)
{
    if (is_compare(s->op) && s->nargs > 1)
        return p->tensors[s->args[1].tensor].dtype;
    return p->tensors[s->args[0].tensor].dtype;
}

/* The shortest %g text that reads back as "v" (at most 17 digits). */
static void shortest(double v, char *buf, size_t cap)
{
    int prec;
    for (prec = 1; prec < 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
    snprintf(buf, cap, "%.17g", v);
}

void axe__sop_text(const axe_program *p, const ax_sop *o, char *buf, size_t cap)
{
    if (o->kind == AX_SOP_SCALAR)
        snprintf(buf, cap, "%s", p->scalar_name[o->scalar]);
    else if (o->kind == AX_SOP_KEPT)
        snprintf(buf, cap, "%s", p->vars[o->scalar]);
    else if (o->kind == AX_SOP_INT)
        snprintf(buf, cap, "%lld", (long long)o->value);
    else if (isinf(o->value))
        snprintf(buf, cap, "%sinf", o->value < 0 ? "-" : "");
    else
        shortest(o->value, buf, cap);
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32 || d == AXE_DTYPE_I4;
}

/* The largest finite value of the float dtype "d". */
static double max_finite(axe_dtype d)
{
    switch (d) {
    case AXE_DTYPE_F16:
        return 65504.0;
    case AXE_DTYPE_BF16:
        return 0x1.fep127;
    case AXE_DTYPE_E4M3:
        return 448.0;
    case AXE_DTYPE_E5M2:
        return 57344.0;
    case AXE_DTYPE_F32:
        return FLT_MAX;
    case AXE_DTYPE_F64:
    case AXE_DTYPE_I4:
    case AXE_DTYPE_I8:
    case AXE_DTYPE_I32:
        break;
    }
    return DBL_MAX;
}

/* Scalar operand "o" of "s" converts to the operands' dtype "d". */
static axe_status check_one(const axe_program *p, const ax_stmt *s,
                            const ax_sop *o, axe_dtype d, axe_diag *diag)
{
    const char *op = axe__op_name(s->op), *dn = axe_dtype_name(d);
    bool kept = o->kind == AX_SOP_KEPT;
    char txt[64];
    axe__sop_text(p, o, txt, sizeof txt);
    if (o->kind == AX_SOP_SCALAR && is_int(d) &&
        p->scalar_dtype[o->scalar] != AXE_DTYPE_I32)
        return axe__fail(diag, AXE_ERR_INVALID, o->off,
                         "'%s' is a runtime %s scalar, but %s computes in "
                         "%s here: a float scalar is no operand of an "
                         "integer operator (cast the tensors to a float "
                         "dtype)",
                         txt, axe_dtype_name(p->scalar_dtype[o->scalar]), op,
                         dn);
    if ((kept || o->kind == AX_SOP_SCALAR) && d == AXE_DTYPE_I8)
        return axe__fail(diag, AXE_ERR_INVALID, o->off,
                         "'%s' is %s, but %s computes in i8 here: %s is not "
                         "narrowed (cast the tensors to i32)",
                         txt,
                         kept ? "a kept device loop's variable (an i32 value)"
                              : "a runtime i32 scalar",
                         op, kept ? "it" : "an i32 scalar");
    if (kept || o->kind == AX_SOP_SCALAR)
        return AXE_OK;
    if (is_int(d)) {
        int64_t lo = d == AXE_DTYPE_I8 ? -128 : INT32_MIN;
        int64_t hi = d == AXE_DTYPE_I8 ? 127 : INT32_MAX;
        if (o->kind == AX_SOP_FLOAT)
            return axe__fail(diag, AXE_ERR_INVALID, o->off,
                             "the literal %s is not an integer, but %s "
                             "computes in %s here (write an integer, or "
                             "cast the tensors to a float dtype)",
                             txt, op, dn);
        if (o->value < (double)lo || o->value > (double)hi)
            return axe__fail(diag, AXE_ERR_DOMAIN, o->off,
                             "the literal %s lies outside %s's range [%lld, "
                             "%lld], in which %s computes here",
                             txt, dn, (long long)lo, (long long)hi, op);
        return AXE_OK;
    }
    if (isfinite(o->value) && fabs(o->value) > max_finite(d))
        return axe__fail(diag, AXE_ERR_DOMAIN, o->off,
                         "the literal %s exceeds the largest finite %s "
                         "(%.17g), in which %s computes here",
                         txt, dn, max_finite(d), op);
    return AXE_OK;
}

axe_status axe__sop_check(const axe_program *p, const ax_stmt *s,
                          axe_diag *diag)
{
    axe_dtype d;
    int pos;
    if (s->nsops == 0)
        return AXE_OK;
    if (s->op != AX_OP_SELECT && s->nargs < 2)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "both sources of %s are scalars: at least one must "
                         "be a tensor (use fill for a constant)",
                         axe__op_name(s->op));
    d = axe__sop_dtype(p, s);
    for (pos = 1; pos < axe__operand_count(s); pos++)
        if (s->sop[pos].kind != AX_SOP_NONE)
            AXE_TRY(check_one(p, s, &s->sop[pos], d, diag));
    return AXE_OK;
}
