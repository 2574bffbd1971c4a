/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Statements, the kernel header and whole programs of the kernel language
 * (docs/compiler.md): `param N = 64;` (overridden by -D), one `kernel`
 * with tensor parameters, `grid(...)`, `threads(...)` and a body of
 * declarations, operator statements `cta copy(D, S);`, `for i in
 * range(4) { ... }` and `sync;`. Operator arity and argument kinds are
 * checked here; everything about shapes and layouts is left to sema.
 */
#include <math.h>
#include <string.h>

#include "compiler_parse.h"

static const char *const scope_words[] = {"kernel", "cta", "warpgroup", "warp",
                                          "thread"};
/* The items between the parentheses: operands, a fill value, iota's
 * dimension and start. */
static int op_arity(ax_op op)
{
    switch (op) {
    case AX_OP_ADD:
    case AX_OP_SUB:
    case AX_OP_MUL:
    case AX_OP_DIV:
    case AX_OP_MAX:
    case AX_OP_MIN:
    case AX_OP_GEMM:
    case AX_OP_POW:
    case AX_OP_IOTA:
    case AX_OP_LT:
    case AX_OP_LE:
    case AX_OP_GT:
    case AX_OP_GE:
    case AX_OP_EQ:
    case AX_OP_NE:
        return 3;
    case AX_OP_SELECT:
        return 4;
    case AX_OP_COPY:
    case AX_OP_FILL:
    case AX_OP_NEG:
    case AX_OP_RELU:
    case AX_OP_EXP:
    case AX_OP_CAST:
    case AX_OP_REDUCE:
    case AX_OP_SQRT:
    case AX_OP_ATOMIC_ADD:
    case AX_OP_LOG:
    case AX_OP_LOG2:
    case AX_OP_EXP2:
    case AX_OP_TANH:
    case AX_OP_ERF:
    case AX_OP_RSQRT:
    case AX_OP_ABS:
    case AX_OP_SIGMOID:
    case AX_OP_SILU:
    case AX_OP_GELU:
    case AX_OP_GELU_TANH:
        break;
    }
    return 2;
}

/* fill(dst, NAME) with NAME a runtime scalar: a float scalar fills a
 * float tensor only (an integer fill would saturate at run time), an
 * i32 scalar an i32 or a float one (never narrowed to i8). */
static axe_status parse_fill_scalar(ax_parser *ps, ax_stmt *s)
{
    const axe_program *p = ps->p;
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    long off = (long)ps->tok.pos;
    int k = axe__scalar_at(ps) - 1;
    s->fscalar = k + 1;
    if (p->scalar_dtype[k] != AXE_DTYPE_I32 &&
        (d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32))
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "'%s' is a runtime float scalar: it can fill a "
                         "float tensor only, and '%s' is %s",
                         p->scalar_name[k], p->tensors[s->args[0].tensor].name,
                         axe_dtype_name(d));
    if (p->scalar_dtype[k] == AXE_DTYPE_I32 && d == AXE_DTYPE_I8)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "'%s' is a runtime i32 scalar: it fills i32 and "
                         "float tensors (not narrowed), and '%s' is i8",
                         p->scalar_name[k], p->tensors[s->args[0].tensor].name);
    return axe__lex_next(ps);
}

static axe_status parse_fill_value(ax_parser *ps, double *out)
{
    bool neg = axe__tok_is(ps, "-");
    if (neg)
        AXE_TRY(axe__lex_next(ps));
    if (ps->tok.kind == AX_TOK_INT)
        *out = (double)ps->tok.value;
    else if (ps->tok.kind == AX_TOK_FLOAT)
        *out = ps->tok.fvalue;
    else if (axe__tok_is(ps, "inf"))
        *out = HUGE_VAL;
    else
        return axe__syntax(ps, "a number or inf");
    if (neg)
        *out = -*out;
    AXE_TRY(axe__lex_next(ps));
    if (axe__tok_is(ps, "/") || axe__tok_is(ps, "*")) {
        bool div = axe__tok_is(ps, "/");
        long off;
        int64_t v;
        AXE_TRY(axe__lex_next(ps));
        off = (long)ps->tok.pos;
        AXE_TRY(axe__parse_const(ps, &v, "a fill scale"));
        if (div && v == 0)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "division of the fill value by zero");
        *out = div ? *out / (double)v : *out * (double)v;
        if (*out != *out)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "the fill value is NaN (infinity times 0)");
    }
    return AXE_OK;
}

/* A constant dimension index in [0, AX_MAX_DIMS) into "out". */
static axe_status parse_dim(ax_parser *ps, int *out, const char *what)
{
    long off = (long)ps->tok.pos;
    int64_t d;
    AXE_TRY(axe__parse_const(ps, &d, what));
    if (d < 0 || d >= AX_MAX_DIMS)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "dimension %lld outside [0, %d)", (long long)d,
                         AX_MAX_DIMS);
    *out = (int)d;
    return AXE_OK;
}

/* reduce(dst, src ',' ('sum' | 'max' | 'min' | 'argmax' | 'argmin') ','
 * dim). */
static axe_status parse_reduce_tail(ax_parser *ps, ax_stmt *s)
{
    int k;
    AXE_TRY(axe__expect(ps, ",", "',' and sum, max, min, argmax or argmin"));
    for (k = 0; k <= (int)AX_RED_ARGMIN; k++)
        if (axe__tok_is(ps, axe__red_name((ax_red)k)))
            break;
    if (k > (int)AX_RED_ARGMIN)
        return axe__syntax(ps, "sum, max, min, argmax or argmin");
    s->rkind = (ax_red)k;
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(axe__expect(ps, ",", "',' and the reduced dimension"));
    return parse_dim(ps, &s->rdim, "the reduced dimension");
}

/* iota(dst ',' dim ',' start): "start" an integer expression. */
static axe_status parse_iota_tail(ax_parser *ps, ax_stmt *s)
{
    ax_expr *e;
    AXE_TRY(parse_dim(ps, &s->idim, "iota's dimension"));
    AXE_TRY(axe__expect(ps, ",", "',' and iota's start"));
    AXE_TRY(axe__parse_expr(ps, &e));
    s->istart = e;
    return AXE_OK;
}

/* gemm(C, A, B ',' 'tf32'): A and B rounded to tf32 (the ',' read). */
static axe_status parse_gemm_tail(ax_parser *ps, ax_stmt *s)
{
    if (!axe__tok_is(ps, "tf32"))
        return axe__syntax(
            ps, "tf32 (the only option of gemm after its 3 operands)");
    s->tf32 = true;
    s->tf32_off = (long)ps->tok.pos;
    return axe__lex_next(ps);
}

static const char *operands_text(int n)
{
    return n == 3 ? "',' (3 operands)" : "',' (4 operands)";
}

static const char *close_text(int n)
{
    return n == 2   ? "')' (2 operands)"
           : n == 3 ? "')' (3 operands)"
                    : "')' (4 operands)";
}

static axe_status parse_args(ax_parser *ps, ax_stmt *s)
{
    int i, n = op_arity(s->op);
    AXE_TRY(axe__expect(ps, "(", "'('"));
    for (i = 0; i < n; i++) {
        if (i > 0)
            AXE_TRY(axe__expect(ps, ",", n == 2 ? "','" : operands_text(n)));
        if (s->op == AX_OP_FILL && i == 1 && axe__scalar_at(ps))
            AXE_TRY(parse_fill_scalar(ps, s));
        else if (s->op == AX_OP_FILL && i == 1)
            AXE_TRY(parse_fill_value(ps, &s->imm));
        else if (s->op == AX_OP_IOTA && i == 1) {
            AXE_TRY(parse_iota_tail(ps, s));
            break;
        } else if (s->op == AX_OP_SELECT && i == 1 && axe__at_sop(ps))
            return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, (long)ps->tok.pos,
                             "select's predicate must be an i8 tensor, not "
                             "a scalar");
        else if (axe__at_sop(ps))
            AXE_TRY(axe__parse_sop(ps, s, i));
        else
            AXE_TRY(axe__parse_ref(ps, &s->args[s->nargs++]));
    }
    if (s->op == AX_OP_REDUCE)
        AXE_TRY(parse_reduce_tail(ps, s));
    if (s->op == AX_OP_GEMM && axe__tok_is(ps, ",")) {
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(parse_gemm_tail(ps, s));
    }
    AXE_TRY(axe__expect(ps, ")", close_text(n)));
    return axe__expect(ps, ";", "';'");
}

static axe_status parse_op(ax_parser *ps, ax_stmt *s, ax_scope scope)
{
    int i;
    s->kind = AX_ST_OP;
    s->scope = scope;
    s->rearrange = axe__tok_is(ps, "rearrange");
    for (i = 0; i <= (int)AX_OP_LAST && !s->rearrange; i++)
        if (axe__tok_is(ps, axe__op_name((ax_op)i)))
            break;
    if (s->rearrange)
        i = (int)AX_OP_COPY;
    else if (i > (int)AX_OP_LAST)
        return axe__syntax(
            ps, "an operator (docs/compiler.md: copy, "
                "rearrange, fill, elementwise, iota, comparisons, select, "
                "reduce, gemm, atomic_add)");
    s->op = (ax_op)i;
    s->off = (long)ps->tok.pos;
    s->line = ps->tok.line;
    s->seq = ps->p->nops + ps->p->ndevops;
    s->index = ps->p->nops++;
    AXE_TRY(axe__unroll_note(ps, &s->iter));
    AXE_TRY(axe__lex_next(ps));
    return parse_args(ps, s);
}

/* `core OP(...)`: an operator of a core kernel, run once by its core
 * (the kernel's one CTA of one thread, so AX_SCOPE_CTA). */
static axe_status parse_core_op(ax_parser *ps, ax_stmt *s)
{
    if (!ps->p->core)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "core scope belongs to a core kernel ('kernel "
                         "NAME(...) core { ... }')");
    AXE_TRY(axe__lex_next(ps));
    return parse_op(ps, s, AX_SCOPE_CTA);
}

/* A new param or loop variable named "name" (at "off") shadows nothing. */
axe_status axe__check_fresh(ax_parser *ps, const char *name, long off,
                            const char *what)
{
    const char *taken = axe__name_taken(ps, name);
    if (taken == NULL)
        return AXE_OK;
    if (strcmp(what, taken) == 0)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "param '%s' is declared twice", name);
    return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                     "%s cannot be named '%s': %s has that name", what, name,
                     taken);
}

static axe_status parse_for(ax_parser *ps, ax_stmt *s)
{
    axe_program *p = ps->p;
    long off = (long)ps->tok.pos;
    int i;
    s->kind = AX_ST_FOR;
    if (p->nvars == AX_MAX_VARS || ps->nscope_vars == AX_MAX_LOOPS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, off, "too many loops");
    AXE_TRY(axe__parse_user_name(ps, p->vars[p->nvars], "a loop variable"));
    for (i = 0; i < p->nscalars; i++)
        if (strcmp(p->scalar_name[i], p->vars[p->nvars]) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                             "loop variable '%s' reuses a runtime scalar's "
                             "name",
                             p->scalar_name[i]);
    AXE_TRY(axe__check_fresh(ps, p->vars[p->nvars], off, "a loop variable"));
    s->var = p->nvars++;
    AXE_TRY(axe__expect(ps, "in", "'in'"));
    AXE_TRY(axe__expect(ps, "range", "'range'"));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    off = (long)ps->tok.pos;
    AXE_TRY(
        axe__parse_extent(ps, &s->trip, &s->dtrip, INT32_MAX, "a trip count"));
    if (s->trip <= 0)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "trip count %lld is not positive", (long long)s->trip);
    p->var_trip[s->var] = s->trip;
    p->var_dtrip[s->var] = s->dtrip;
    AXE_TRY(axe__expect(ps, ")", "')'"));
    ps->scope_vars[ps->nscope_vars++] = s->var;
    AXE_TRY(axe__parse_block(ps, &s->body));
    ps->nscope_vars--;
    return AXE_OK;
}

axe_status axe__parse_cond(ax_parser *ps, ax_guard *cond)
{
    char op[3] = {0};
    ax_expr *lhs, *rhs;
    int i;
    AXE_TRY(axe__parse_expr(ps, &lhs));
    cond->lhs = lhs;
    if (ps->tok.kind != AX_TOK_PUNCT ||
        strchr("<>=!", ps->p->text[ps->tok.pos]) == NULL)
        return axe__syntax(ps, "a comparison (<, <=, >, >=, ==, !=)");
    op[0] = ps->p->text[ps->tok.pos];
    AXE_TRY(axe__lex_next(ps));
    if (axe__tok_is(ps, "=")) {
        op[1] = '=';
        AXE_TRY(axe__lex_next(ps));
    }
    for (i = 0; i < 6 && strcmp(op, axe__cmp_text(i)) != 0; i++)
        ;
    if (i == 6)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "'%s' is not a comparison", op);
    cond->cmp = i;
    AXE_TRY(axe__parse_expr(ps, &rhs));
    cond->rhs = rhs;
    return AXE_OK;
}

static axe_status parse_if(ax_parser *ps, ax_stmt *s)
{
    s->kind = AX_ST_IF;
    AXE_TRY(axe__expect(ps, "(", "'('"));
    AXE_TRY(axe__parse_cond(ps, &s->cond));
    AXE_TRY(axe__expect(ps, ")", "')'"));
    AXE_TRY(axe__parse_block(ps, &s->body));
    if (!axe__tok_is(ps, "else"))
        return AXE_OK;
    AXE_TRY(axe__lex_next(ps));
    return axe__parse_block(ps, &s->else_body);
}

static axe_status parse_stmt(ax_parser *ps, ax_stmt *s)
{
    int i;
    s->off = (long)ps->tok.pos;
    if (axe__tok_is(ps, "sync")) {
        s->kind = AX_ST_SYNC;
        AXE_TRY(axe__lex_next(ps));
        return axe__expect(ps, ";", "';'");
    }
    if (axe__tok_is(ps, "for")) {
        AXE_TRY(axe__lex_next(ps));
        return parse_for(ps, s);
    }
    if (axe__tok_is(ps, "if")) {
        AXE_TRY(axe__lex_next(ps));
        return parse_if(ps, s);
    }
    if (axe__tok_is(ps, "device")) {
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(axe__parse_devop(ps, s));
        return axe__devop_variants(ps, s);
    }
    if (axe__tok_is(ps, "core"))
        return parse_core_op(ps, s);
    for (i = 0; i < 5; i++)
        if (axe__tok_is(ps, scope_words[i])) {
            if (ps->p->core)
                return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                                 "a core kernel's operators run at core "
                                 "scope ('core OP(...)'), not at %s scope",
                                 scope_words[i]);
            AXE_TRY(axe__lex_next(ps));
            return parse_op(ps, s, (ax_scope)i);
        }
    return axe__syntax(ps, "a statement (shared, register, sbuf, psum, an "
                           "execution scope device/kernel/cta/warpgroup/warp/"
                           "thread/core, for, if, sync or '}')");
}

/* `sbuf NAME: ...` and `psum NAME: ...`: scratchpads of a core kernel,
 * shared-class tensors (per core) of their space. */
static axe_status parse_scratch(ax_parser *ps)
{
    ax_space space = axe__tok_is(ps, "sbuf") ? AX_SPACE_SBUF : AX_SPACE_PSUM;
    if (!ps->p->core)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "%s tensors belong to a core kernel ('kernel "
                         "NAME(...) core { ... }')",
                         space == AX_SPACE_SBUF ? "sbuf" : "psum");
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(axe__parse_tensor(ps, AX_MEM_SHARED, space));
    return axe__expect(ps, ";", "';'");
}

/* Declarations produce no statement ("*s" stays NULL). */
static axe_status parse_item(ax_parser *ps, ax_stmt **s)
{
    *s = NULL;
    if ((axe__tok_is(ps, "sbuf") || axe__tok_is(ps, "psum") ||
         axe__tok_is(ps, "shared") || axe__tok_is(ps, "register")) &&
        ps->ndevblocks > 0)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, (long)ps->tok.pos,
                         "a tensor is declared outside the loops and ifs "
                         "that hold device operators (they are unrolled "
                         "and folded at compile time)");
    AXE_TRY(axe__count_unrolled(ps));
    if (axe__at_devblock(ps))
        return axe__parse_devblock(ps, s);
    if (axe__tok_is(ps, "sbuf") || axe__tok_is(ps, "psum"))
        return parse_scratch(ps);
    if (axe__tok_is(ps, "shared") || axe__tok_is(ps, "register")) {
        ax_mem mem =
            axe__tok_is(ps, "shared") ? AX_MEM_SHARED : AX_MEM_REGISTER;
        if (ps->p->core)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                             "a core kernel declares sbuf and psum tensors, "
                             "not %s ones",
                             axe__mem_name(mem));
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(axe__parse_tensor(ps, mem, AX_SPACE_NONE));
        return axe__expect(ps, ";", "';'");
    }
    *s = axe__arena_alloc(ps->p->arena, sizeof **s);
    if (*s == NULL)
        return AXE_ERR_NO_MEMORY;
    return parse_stmt(ps, *s);
}

/* A device block's item is a list of statements (possibly none). */
axe_status axe__parse_block(ax_parser *ps, ax_stmt **out)
{
    ax_stmt **tail = out;
    *out = NULL;
    if (axe__tok_is(ps, "{") && ps->depth == AX_MAX_BLOCK_DEPTH)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                         "blocks nested deeper than %d", AX_MAX_BLOCK_DEPTH);
    AXE_TRY(axe__expect(ps, "{", "'{'"));
    ps->depth++;
    while (!axe__tok_is(ps, "}")) {
        ax_stmt *s;
        if (ps->tok.kind == AX_TOK_EOF)
            return axe__syntax(ps, "'}'");
        AXE_TRY(parse_item(ps, &s));
        for (*tail = s; *tail != NULL; tail = &(*tail)->next)
            ;
    }
    ps->depth--;
    return axe__lex_next(ps);
}

static axe_status parse_launch(ax_parser *ps)
{
    axe_program *p = ps->p;
    int n = 0;
    long off = (long)ps->tok.pos;
    p->grid[0] = p->grid[1] = p->grid[2] = 1;
    if (axe__tok_is(ps, "core")) {
        p->core = true;
        p->threads = 1;
        return axe__lex_next(ps);
    }
    AXE_TRY(axe__expect(ps, "grid", "'grid' or 'core'"));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    do {
        if (n == 3)
            return axe__syntax(ps, "')' (a grid has at most 3 dimensions)");
        off = (long)ps->tok.pos;
        AXE_TRY(axe__parse_extent(ps, &p->grid[n], &p->dgrid[n],
                                  n == 0 ? INT32_MAX : 65535, "a grid extent"));
        if (p->grid[n++] <= 0)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "grid extent is not positive");
        if (p->grid[n - 1] > (n == 1 ? INT32_MAX : 65535))
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "grid dimension %d is %lld, beyond %lld (CUDA's "
                             "limits: 2^31-1, 65535, 65535)",
                             n - 1, (long long)p->grid[n - 1],
                             (long long)(n == 1 ? INT32_MAX : 65535));
    } while (axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    AXE_TRY(axe__expect(ps, ")", "',' or ')'"));
    AXE_TRY(axe__expect(ps, "threads", "'threads'"));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_const(ps, &p->threads, "the thread count"));
    if (p->threads <= 0 || p->threads > 1024)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "threads per CTA must lie in [1, 1024], not %lld",
                         (long long)p->threads);
    return axe__expect(ps, ")", "')'");
}

/* Whether the tokens from "ps" on read NAME ':' DTYPE (',' | ')'): a
 * runtime scalar parameter (a tensor has a shape after its dtype). */
static bool at_scalar(ax_parser *ps)
{
    ax_parser look = *ps;
    if (look.tok.kind != AX_TOK_IDENT || axe__lex_next(&look) != AXE_OK ||
        !axe__tok_is(&look, ":") || axe__lex_next(&look) != AXE_OK ||
        look.tok.kind != AX_TOK_IDENT || axe__lex_next(&look) != AXE_OK)
        return false;
    return axe__tok_is(&look, ",") || axe__tok_is(&look, ")");
}

static axe_status add_scalar(ax_parser *ps, const char *name, long off)
{
    axe_program *p = ps->p;
    int i;
    if (p->nscalars == AX_MAX_SCALARS || p->nvars == AX_MAX_VARS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, off,
                         "more than %d runtime scalars", AX_MAX_SCALARS);
    for (i = 0; i < p->nvars; i++)
        if (strcmp(p->vars[i], name) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                             "'%s' is declared twice or names a block/"
                             "thread id",
                             name);
    for (i = 0; i < ps->nparams; i++)
        if (strcmp(ps->param_name[i], name) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                             "'%s' is a param and a runtime scalar", name);
    strcpy(p->vars[p->nvars], name);
    strcpy(p->scalar_name[p->nscalars], name);
    p->scalar_var[p->nscalars] = p->nvars;
    p->var_scalar[p->nvars++] = ++p->nscalars;
    return AXE_OK;
}

/* The dtype of the scalar just registered, "look" at its ':' (so that
 * a tensor before it sees whether it is a float): parse_scalar checks
 * it. */
static axe_status scan_dtype(ax_parser *ps, const ax_parser *look)
{
    static const char *const names[] = {"f32", "f64", "f16", "bf16"};
    static const axe_dtype types[] = {AXE_DTYPE_F32, AXE_DTYPE_F64,
                                      AXE_DTYPE_F16, AXE_DTYPE_BF16};
    ax_parser d = *look;
    int i;
    ps->p->scalar_dtype[ps->p->nscalars - 1] = AXE_DTYPE_I32;
    if (axe__lex_next(&d) != AXE_OK)
        return AXE_OK;
    for (i = 0; i < 4; i++)
        if (axe__tok_is(&d, names[i]))
            ps->p->scalar_dtype[ps->p->nscalars - 1] = types[i];
    return AXE_OK;
}

/* Register every runtime scalar of the parameter list before the
 * tensors, whose extents may name scalars declared after them. */
static axe_status scan_scalars(ax_parser *ps)
{
    ax_parser look = *ps;
    int depth = 0;
    bool start = true;
    while (look.tok.kind != AX_TOK_EOF && depth >= 0) {
        if (start && depth == 0 && at_scalar(&look)) {
            char name[AXE_KERNEL_NAME_MAX];
            long off = (long)look.tok.pos;
            AXE_TRY(axe__parse_user_name(&look, name, "a scalar name"));
            AXE_TRY(add_scalar(ps, name, off));
            AXE_TRY(scan_dtype(ps, &look));
        }
        start = depth == 0 && axe__tok_is(&look, ",");
        depth += axe__tok_is(&look, "(") || axe__tok_is(&look, "[");
        depth -= axe__tok_is(&look, ")") || axe__tok_is(&look, "]");
        if (depth >= 0 && axe__lex_next(&look) != AXE_OK)
            break;
    }
    return AXE_OK;
}

/* NAME ':' DTYPE, registered by scan_scalars: i32, or a float value
 * (f32, f64, f16, bf16) that only `fill` reads. */
static axe_status parse_scalar(ax_parser *ps)
{
    axe_program *p = ps->p;
    char name[AXE_KERNEL_NAME_MAX];
    long off;
    int i;
    AXE_TRY(axe__expect_ident(ps, name, "a scalar name"));
    AXE_TRY(axe__expect(ps, ":", "':'"));
    off = (long)ps->tok.pos;
    for (i = 0; i < p->nscalars && strcmp(p->scalar_name[i], name); i++)
        ;
    if (i == p->nscalars) /* scan_scalars registers every one */
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off, "a tensor shape");
    if (axe__tok_is(ps, "i32"))
        p->scalar_dtype[i] = AXE_DTYPE_I32;
    else if (axe__tok_is(ps, "f32"))
        p->scalar_dtype[i] = AXE_DTYPE_F32;
    else if (axe__tok_is(ps, "f64"))
        p->scalar_dtype[i] = AXE_DTYPE_F64;
    else if (axe__tok_is(ps, "f16"))
        p->scalar_dtype[i] = AXE_DTYPE_F16;
    else if (axe__tok_is(ps, "bf16"))
        p->scalar_dtype[i] = AXE_DTYPE_BF16;
    else
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "runtime scalar '%s': only i32, f32, f64, f16 and "
                         "bf16 scalars are supported (a tensor needs a "
                         "shape '[...]')",
                         name);
    return axe__lex_next(ps);
}

static axe_status parse_kernel(ax_parser *ps)
{
    int n = 0;
    AXE_TRY(axe__parse_user_name(ps, ps->p->name, "the kernel's name"));
    AXE_TRY(axe__expect(ps, "(", "'('"));
    AXE_TRY(scan_scalars(ps));
    while (!axe__tok_is(ps, ")")) {
        if (n++ > 0)
            AXE_TRY(axe__expect(ps, ",", "',' or ')'"));
        if (at_scalar(ps))
            AXE_TRY(parse_scalar(ps));
        else
            AXE_TRY(axe__parse_tensor(ps, AX_MEM_GLOBAL, AX_SPACE_NONE));
    }
    AXE_TRY(axe__lex_next(ps));
    AXE_TRY(parse_launch(ps));
    return axe__parse_block(ps, &ps->p->body);
}

static axe_status parse_param(ax_parser *ps)
{
    const axe_kernel_options *o = &ps->p->opts;
    long off = (long)ps->tok.pos;
    int i, k = ps->nparams;
    if (k == AX_MAX_PARAMS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, off, "too many params");
    AXE_TRY(axe__parse_user_name(ps, ps->param_name[k], "a param name"));
    AXE_TRY(axe__check_fresh(ps, ps->param_name[k], off, "a param"));
    AXE_TRY(axe__expect(ps, "=", "'='"));
    AXE_TRY(axe__parse_const(ps, &ps->param_value[k], "a param's value"));
    for (i = 0; i < o->ndefines; i++)
        if (strcmp(o->define_name[i], ps->param_name[k]) == 0)
            ps->param_value[k] = o->define_value[i];
    ps->nparams++;
    return axe__expect(ps, ";", "';'");
}

static axe_status check_defines(ax_parser *ps)
{
    const axe_kernel_options *o = &ps->p->opts;
    int i, j;
    for (i = 0; i < o->ndefines; i++) {
        for (j = 0; j < ps->nparams; j++)
            if (strcmp(o->define_name[i], ps->param_name[j]) == 0)
                break;
        if (j == ps->nparams)
            return axe__fail(ps->diag, AXE_ERR_INVALID, -1,
                             "-D %s: the program declares no param '%s'",
                             o->define_name[i], o->define_name[i]);
    }
    return AXE_OK;
}

/* Record every operator statement of block "s" in p->ops (device
 * operators in p->devops). */
static void index_ops(axe_program *p, ax_stmt *s)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP)
            p->ops[s->index] = s;
        if (s->kind == AX_ST_DEVICE)
            p->devops[s->index] = s;
        index_ops(p, s->body);
        index_ops(p, s->else_body);
    }
}

/* program := {'param' NAME '=' const ';'} [mesh] 'kernel' ... EOF; then
 * the operator indexes p->ops and p->devops. */
axe_status axe__program_parse(axe_program *p, axe_diag *diag)
{
    static ax_parser zero;
    ax_parser ps = zero;
    ps.p = p;
    ps.diag = diag;
    ps.line = 1;
    AXE_TRY(axe__lex_next(&ps));
    while (axe__tok_is(&ps, "param")) {
        AXE_TRY(axe__lex_next(&ps));
        AXE_TRY(parse_param(&ps));
    }
    AXE_TRY(check_defines(&ps));
    if (axe__tok_is(&ps, "mesh")) {
        long off = (long)ps.tok.pos;
        AXE_TRY(axe__lex_next(&ps));
        AXE_TRY(axe__parse_mesh(&ps, off));
    }
    AXE_TRY(axe__expect(&ps, "kernel", "'param', 'mesh' or 'kernel'"));
    AXE_TRY(parse_kernel(&ps));
    if (ps.tok.kind != AX_TOK_EOF)
        return axe__syntax(&ps, "the end of the file (one kernel per file)");
    p->ops = axe__arena_alloc(p->arena, sizeof *p->ops * (size_t)(p->nops + 1));
    p->devops = axe__arena_alloc(p->arena,
                                 sizeof *p->devops * (size_t)(p->ndevops + 1));
    if (p->ops == NULL || p->devops == NULL)
        return AXE_ERR_NO_MEMORY;
    index_ops(p, p->body);
    p->bound = p->nscalars == 0;
    return axe__seg_number(p);
}
