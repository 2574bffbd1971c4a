/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tokens and integer expressions of the kernel language. Tokens: decimal
 * integers, decimal floats (fill values), identifiers [A-Za-z_][A-Za-z0-9_]*,
 * `//` and single-character punctuation; `#` starts a comment to the end
 * of the line. Expressions: + - (lowest), * // / % (floor division), unary
 * -, parentheses; names resolve to compile-time params (folded), block and
 * thread ids (bx by bz tx laneid warpid wgid tid_in_wg wid_in_wg) and the
 * loop variables in scope. Diagnostics point at the offending token.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_parse.h"

static const char *const builtin_names[AX_VAR_NBUILTIN] = {
    "bx",     "by",   "bz",        "tx",       "laneid",
    "warpid", "wgid", "tid_in_wg", "wid_in_wg"};

static void skip_space(ax_parser *ps)
{
    const char *s = ps->p->text;
    size_t n = ps->p->len;
    while (ps->pos < n) {
        if (s[ps->pos] == '#') {
            while (ps->pos < n && s[ps->pos] != '\n')
                ps->pos++;
        } else if (isspace((unsigned char)s[ps->pos])) {
            ps->line += s[ps->pos] == '\n';
            ps->pos++;
        } else {
            break;
        }
    }
}

/* The end of the fraction and exponent of a number whose digits end at
 * "i" ('.' digits, then [eE] [+-] digits); "i" when it has neither. */
static size_t float_end(const char *s, size_t i, size_t n)
{
    size_t j = i;
    if (j < n && s[j] == '.')
        for (j++; j < n && isdigit((unsigned char)s[j]);)
            j++;
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-'))
            k++;
        if (k < n && isdigit((unsigned char)s[k])) {
            while (k < n && isdigit((unsigned char)s[k]))
                k++;
            j = k;
        }
    }
    return j;
}

/* An integer, or a number with a fraction or an exponent (1.5, 1e-5). */
static axe_status lex_number(ax_parser *ps)
{
    const char *s = ps->p->text;
    size_t i = ps->pos, n = ps->p->len, j;
    int64_t v = 0;
    bool overflow = false;
    while (i < n && isdigit((unsigned char)s[i])) {
        if (axe__mul(v, 10, &v) != AXE_OK ||
            axe__add(v, s[i] - '0', &v) != AXE_OK)
            overflow = true;
        i++;
    }
    ps->tok.kind = AX_TOK_INT;
    ps->tok.value = v;
    if ((j = float_end(s, i, n)) > i) {
        char tmp[64];
        if (j - ps->pos >= sizeof tmp)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->pos,
                             "number too long");
        memcpy(tmp, s + ps->pos, j - ps->pos);
        tmp[j - ps->pos] = '\0';
        ps->tok.kind = AX_TOK_FLOAT;
        ps->tok.fvalue = strtod(tmp, NULL);
        if (!isfinite(ps->tok.fvalue))
            return axe__fail(ps->diag, AXE_ERR_OVERFLOW, (long)ps->pos,
                             "number %s is beyond the range of double", tmp);
        i = j;
    } else if (overflow) {
        return axe__fail(ps->diag, AXE_ERR_OVERFLOW, (long)ps->pos,
                         "integer does not fit in 64 bits");
    }
    ps->tok.len = i - ps->pos;
    return AXE_OK;
}

/* Advance to the next token. */
axe_status axe__lex_next(ax_parser *ps)
{
    const char *s = ps->p->text;
    size_t n = ps->p->len;
    ps->pos += ps->tok.len;
    ps->prev_end = ps->pos;
    skip_space(ps);
    ps->tok.pos = ps->pos;
    ps->tok.line = ps->line;
    ps->tok.len = 0;
    if (ps->pos >= n) {
        ps->tok.kind = AX_TOK_EOF;
        return AXE_OK;
    }
    if (isdigit((unsigned char)s[ps->pos]))
        return lex_number(ps);
    if (isalpha((unsigned char)s[ps->pos]) || s[ps->pos] == '_') {
        size_t i = ps->pos;
        while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
            i++;
        ps->tok.kind = AX_TOK_IDENT;
        ps->tok.len = i - ps->pos;
        return AXE_OK;
    }
    if (strchr("()[]{},:;=+-*/%@.<>!", s[ps->pos]) == NULL || s[ps->pos] == 0)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->pos,
                         "unexpected character '%c'",
                         isprint((unsigned char)s[ps->pos]) ? s[ps->pos] : '?');
    ps->tok.kind = AX_TOK_PUNCT;
    ps->tok.len =
        (s[ps->pos] == '/' && ps->pos + 1 < n && s[ps->pos + 1] == '/') ? 2 : 1;
    return AXE_OK;
}

/* Token text equals "s" (identifier or punctuation). */
bool axe__tok_is(const ax_parser *ps, const char *s)
{
    size_t n = strlen(s);
    return (ps->tok.kind == AX_TOK_IDENT || ps->tok.kind == AX_TOK_PUNCT) &&
           ps->tok.len == n && memcmp(ps->p->text + ps->tok.pos, s, n) == 0;
}

/* "expected <what>, found '<tok>'" at text offset "off". */
static axe_status syntax_at(ax_parser *ps, size_t off, const char *what)
{
    if (ps->tok.kind == AX_TOK_EOF)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)off,
                         "expected %s, found the end of the file", what);
    return axe__fail(
        ps->diag, AXE_ERR_SYNTAX, (long)off, "expected %s, found '%.*s'", what,
        (int)(ps->tok.len > 24 ? 24 : ps->tok.len), ps->p->text + ps->tok.pos);
}

/* "expected <what>, found '<tok>'" at the token. */
axe_status axe__syntax(ax_parser *ps, const char *what)
{
    return syntax_at(ps, ps->tok.pos, what);
}

/* Consume "s" or fail. A missing ';' is reported right after the token
 * before it (where it belongs), as C compilers do, not at the next
 * statement. */
axe_status axe__expect(ax_parser *ps, const char *s, const char *what)
{
    if (!axe__tok_is(ps, s))
        return syntax_at(ps, strcmp(s, ";") == 0 ? ps->prev_end : ps->tok.pos,
                         what);
    return axe__lex_next(ps);
}

/* Consume an identifier of fewer than "cap" bytes into "out". */
static axe_status expect_name(ax_parser *ps, char *out, size_t cap,
                              const char *what)
{
    if (ps->tok.kind != AX_TOK_IDENT)
        return axe__syntax(ps, what);
    if (ps->tok.len >= cap)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "%s longer than %zu bytes",
                         cap == AXE_AXIS_NAME_MAX ? "axis name" : "name",
                         cap - 1);
    memcpy(out, ps->p->text + ps->tok.pos, ps->tok.len);
    out[ps->tok.len] = '\0';
    return axe__lex_next(ps);
}

axe_status axe__expect_ident(ax_parser *ps, char *out, const char *what)
{
    return expect_name(ps, out, AXE_KERNEL_NAME_MAX, what);
}

axe_status axe__expect_axis(ax_parser *ps, char *out)
{
    return expect_name(ps, out, AXE_AXIS_NAME_MAX, "an axis name");
}

static axe_status too_deep(ax_parser *ps, long off)
{
    return axe__fail(ps->diag, AXE_ERR_CAPACITY, off,
                     "expression nested deeper than %d levels (operators, "
                     "parentheses and unary minuses)",
                     AX_MAX_EXPR_DEPTH);
}

/* A node "a k b" (b NULL for NEG, both NULL for VAR) at "off"; refused
 * when deeper than AX_MAX_EXPR_DEPTH. A binary node of two constants is
 * folded at once, so a long constant sum stays one node deep. */
static axe_status new_node(ax_parser *ps, ax_ex_kind k, ax_expr *a, ax_expr *b,
                           long off, ax_expr **out)
{
    ax_expr *e = axe__arena_alloc(ps->p->arena, sizeof *e);
    int da = a != NULL ? a->depth : 0, db = b != NULL ? b->depth : 0;
    if (e == NULL)
        return AXE_ERR_NO_MEMORY;
    e->kind = k;
    e->a = a;
    e->b = b;
    e->off = off;
    e->depth = 1 + (da > db ? da : db);
    if (e->depth > AX_MAX_EXPR_DEPTH)
        return too_deep(ps, off);
    *out = e;
    if (a != NULL && b != NULL && a->kind == AX_EX_INT && b->kind == AX_EX_INT)
        return axe__expr_fold(ps->p->arena, e, out, ps->diag);
    return AXE_OK;
}

static int find_var(const ax_parser *ps, const char *name)
{
    int i;
    for (i = ps->nscope_vars - 1; i >= 0; i--)
        if (strcmp(ps->p->vars[ps->scope_vars[i]], name) == 0)
            return ps->scope_vars[i];
    for (i = 0; i < ps->p->nscalars; i++)
        if (strcmp(ps->p->scalar_name[i], name) == 0)
            return ps->p->scalar_var[i];
    for (i = 0; i < AX_VAR_NBUILTIN; i++)
        if (strcmp(builtin_names[i], name) == 0)
            return i;
    return -1;
}

/* What already names "name" in expressions at this point of the parse:
 * "a param", "a block/thread id", "an enclosing loop variable", or NULL.
 * A new param or loop variable may not reuse such a name (it would
 * shadow it, or be shadowed: a param wins over everything). */
const char *axe__name_taken(const ax_parser *ps, const char *name)
{
    int i, v;
    for (i = 0; i < ps->nparams; i++)
        if (strcmp(ps->param_name[i], name) == 0)
            return ps->param_loop[i] ? "an enclosing loop variable" : "a param";
    v = find_var(ps, name);
    if (v < 0)
        return NULL;
    return v < AX_VAR_NBUILTIN ? "a block/thread id"
                               : "an enclosing loop variable";
}

static axe_status resolve_name(ax_parser *ps, const char *name, long off,
                               ax_expr **out)
{
    int i, v;
    if (axe__tok_is(ps, "[")) {
        AXE_TRY(axe__parse_load(ps, name, off, out));
        if (*out != NULL)
            return AXE_OK;
    }
    for (i = 0; i < ps->nparams; i++)
        if (strcmp(ps->param_name[i], name) == 0) {
            *out = axe__expr_int(ps->p->arena, ps->param_value[i], off);
            return *out != NULL ? AXE_OK : AXE_ERR_NO_MEMORY;
        }
    v = find_var(ps, name);
    if (v < 0)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "unknown name '%s' (not a param, a runtime scalar, "
                         "a loop variable or a block/thread id)",
                         name);
    if (ps->p->var_scalar[v] != 0 &&
        ps->p->scalar_dtype[ps->p->var_scalar[v] - 1] != AXE_DTYPE_I32)
        return axe__fail(
            ps->diag, AXE_ERR_UNSUPPORTED, off,
            "'%s' is a runtime %s scalar: a value (for `fill` and operator "
            "operands), "
            "not an integer (it cannot be an extent, an index, "
            "a trip count or part of a condition)",
            name,
            axe_dtype_name(ps->p->scalar_dtype[ps->p->var_scalar[v] - 1]));
    AXE_TRY(new_node(ps, AX_EX_VAR, NULL, NULL, off, out));
    (*out)->var = v;
    return AXE_OK;
}

static axe_status parse_primary(ax_parser *ps, ax_expr **out)
{
    long off = (long)ps->tok.pos;
    char name[AXE_KERNEL_NAME_MAX];
    if (ps->tok.kind == AX_TOK_INT) {
        *out = axe__expr_int(ps->p->arena, ps->tok.value, off);
        if (*out == NULL)
            return AXE_ERR_NO_MEMORY;
        return axe__lex_next(ps);
    }
    if ((axe__tok_is(ps, "(") || axe__tok_is(ps, "-")) &&
        ps->nest == AX_MAX_EXPR_DEPTH)
        return too_deep(ps, off);
    if (axe__tok_is(ps, "(")) {
        ps->nest++;
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(axe__parse_expr(ps, out));
        ps->nest--;
        return axe__expect(ps, ")", "')'");
    }
    if (axe__tok_is(ps, "-")) {
        ax_expr *a;
        ps->nest++;
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(parse_primary(ps, &a));
        ps->nest--;
        return new_node(ps, AX_EX_NEG, a, NULL, off, out);
    }
    if (ps->tok.kind != AX_TOK_IDENT)
        return axe__syntax(ps, "an integer expression");
    AXE_TRY(axe__expect_ident(ps, name, "a name"));
    return resolve_name(ps, name, off, out);
}

static axe_status parse_term(ax_parser *ps, ax_expr **out)
{
    AXE_TRY(parse_primary(ps, out));
    for (;;) {
        ax_ex_kind k;
        long off = (long)ps->tok.pos;
        ax_expr *b;
        if (axe__tok_is(ps, "*"))
            k = AX_EX_MUL;
        else if (axe__tok_is(ps, "//") || axe__tok_is(ps, "/"))
            k = AX_EX_DIV;
        else if (axe__tok_is(ps, "%"))
            k = AX_EX_MOD;
        else
            return AXE_OK;
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(parse_primary(ps, &b));
        AXE_TRY(new_node(ps, k, *out, b, off, out));
    }
}

/* expr := term {(+|-) term}, folded. */
axe_status axe__parse_expr(ax_parser *ps, ax_expr **out)
{
    ax_expr *e;
    AXE_TRY(parse_term(ps, &e));
    for (;;) {
        ax_ex_kind k;
        long off = (long)ps->tok.pos;
        ax_expr *b;
        if (axe__tok_is(ps, "+"))
            k = AX_EX_ADD;
        else if (axe__tok_is(ps, "-"))
            k = AX_EX_SUB;
        else
            break;
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(parse_term(ps, &b));
        AXE_TRY(new_node(ps, k, e, b, off, &e));
    }
    return axe__expr_fold(ps->p->arena, e, out, ps->diag);
}

/* term := primary {(*|//|/|%) primary}, folded (no top-level + or -). */
axe_status axe__parse_term(ax_parser *ps, ax_expr **out)
{
    ax_expr *e;
    AXE_TRY(parse_term(ps, &e));
    return axe__expr_fold(ps->p->arena, e, out, ps->diag);
}

/* A constant expression ("what" names it in the error). */
axe_status axe__parse_const(ax_parser *ps, int64_t *out, const char *what)
{
    long off = (long)ps->tok.pos;
    ax_expr *e;
    int v;
    AXE_TRY(axe__parse_expr(ps, &e));
    v = axe__expr_scalar(ps->p, e);
    if (e->kind != AX_EX_INT && v >= 0)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "'%s' is a runtime scalar (given at launch), but "
                         "%s must be a compile-time constant",
                         ps->p->vars[v], what);
    if (e->kind != AX_EX_INT)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "%s must be a compile-time constant", what);
    *out = e->value;
    return AXE_OK;
}

/* An extent, grid size or trip count: a constant, or an expression of
 * runtime scalars only ("*dyn", with "*out" its largest value over
 * every i32 value of the scalars, at least 1, at most "cap"). */
axe_status axe__parse_extent(ax_parser *ps, int64_t *out, const ax_expr **dyn,
                             int64_t cap, const char *what)
{
    long off = (long)ps->tok.pos;
    ax_expr *e;
    int64_t lo, hi;
    int v;
    *dyn = NULL;
    AXE_TRY(axe__parse_expr(ps, &e));
    if (e->kind == AX_EX_INT) {
        *out = e->value;
        return AXE_OK;
    }
    v = axe__expr_nonscalar(ps->p, e);
    if (v >= 0)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "%s may read runtime scalars, not '%s'", what,
                         ps->p->vars[v]);
    if (axe__expr_range(ps->p, e, &lo, &hi) != AXE_OK)
        return axe__fail(ps->diag, AXE_ERR_OVERFLOW, off,
                         "%s overflows 64-bit integers for some values of "
                         "its runtime scalars",
                         what);
    *out = hi < 1 ? 1 : hi > cap ? cap : hi;
    *dyn = e;
    return AXE_OK;
}
