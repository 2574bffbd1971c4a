/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel language's parser (grammar: docs/compiler.md): params, the
 * kernel header (tensor parameters, grid, threads), declarations of shared
 * and register tensors, operator statements at an execution scope, `for`
 * loops and `sync`. Layouts are written in the Axe notation with integer
 * expressions for extents, strides and offsets; a view's memory offset may
 * be dynamic. Every failure is one diagnostic at the offending token.
 */
#include <math.h>
#include <string.h>

#include "compiler_parse.h"

static const char *const reserved[] = {
    "auto",   "break",  "case",   "char",     "const",   "continue", "default",
    "do",     "double", "else",   "enum",     "extern",  "float",    "for",
    "goto",   "if",     "int",    "long",     "return",  "short",    "signed",
    "sizeof", "static", "struct", "switch",   "typedef", "union",    "unsigned",
    "void",   "while",  "main",   "restrict", "inline"};

/* A user name usable as a C identifier in generated code. */
static axe_status expect_user_name(ax_parser *ps, char *out, const char *what)
{
    long off = (long)ps->tok.pos;
    size_t i;
    AXE_TRY(axe__expect_ident(ps, out, what));
    for (i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
        if (strcmp(out, reserved[i]) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                             "'%s' is reserved (a C keyword)", out);
    if (strncmp(out, "ax_", 3) == 0 || strncmp(out, "AXE_", 4) == 0)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "names starting with 'ax_' or 'AXE_' are reserved");
    return AXE_OK;
}

static axe_status parse_tuple(ax_parser *ps, int64_t *v, int *n,
                              char (*axis)[AXE_AXIS_NAME_MAX], bool strides)
{
    bool paren = axe__tok_is(ps, "(");
    *n = 0;
    if (paren)
        AXE_TRY(axe__lex_next(ps));
    do {
        if (*n == AXE_LAYOUT_MAX_SHARD)
            return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                             "more than %d iters", AXE_LAYOUT_MAX_SHARD);
        AXE_TRY(
            axe__parse_const(ps, &v[*n], strides ? "a stride" : "an extent"));
        strcpy(axis[*n], "m");
        if (strides && axe__tok_is(ps, "@")) {
            AXE_TRY(axe__lex_next(ps));
            AXE_TRY(axe__expect_axis(ps, axis[*n]));
        }
        (*n)++;
    } while (paren && axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    return paren ? axe__expect(ps, ")", "',' or ')'") : AXE_OK;
}

static axe_status parse_iters(ax_parser *ps, axe_layout *l, bool replica)
{
    int64_t e[AXE_LAYOUT_MAX_SHARD], s[AXE_LAYOUT_MAX_SHARD];
    char axis[AXE_LAYOUT_MAX_SHARD][AXE_AXIS_NAME_MAX];
    int ne, ns, i;
    long off = (long)ps->tok.pos;
    AXE_TRY(axe__expect(ps, "[", "'['"));
    AXE_TRY(parse_tuple(ps, e, &ne, axis, false));
    AXE_TRY(axe__expect(ps, ":", "':'"));
    off = (long)ps->tok.pos;
    AXE_TRY(parse_tuple(ps, s, &ns, axis, true));
    if (ne != ns)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "%d extents but %d strides", ne, ns);
    for (i = 0; i < ne; i++) {
        axe_status st = replica
                            ? axe_layout_push_replica(l, e[i], s[i], axis[i])
                            : axe_layout_push_shard(l, e[i], s[i], axis[i]);
        if (st != AXE_OK)
            return axe__fail(ps->diag, st, off, "bad iter %lld:%lld@%s (%s)",
                             (long long)e[i], (long long)s[i], axis[i],
                             axe_status_message(st));
    }
    return axe__expect(ps, "]", "']'");
}

static axe_status parse_offset(ax_parser *ps, axe_layout *l, ax_expr **dyn)
{
    long off = (long)ps->tok.pos;
    char axis[AXE_AXIS_NAME_MAX] = "m";
    ax_expr *e;
    AXE_TRY(axe__parse_term(ps, &e));
    if (axe__tok_is(ps, "@")) {
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(axe__expect_axis(ps, axis));
    }
    if (e->kind == AX_EX_INT) {
        axe_status st = axe_layout_add_offset(l, axis, e->value);
        return st == AXE_OK ? AXE_OK
                            : axe__fail(ps->diag, st, off, "bad offset (%s)",
                                        axe_status_message(st));
    }
    if (dyn == NULL || strcmp(axis, "m") != 0 || *dyn != NULL)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "a layout offset must be a compile-time constant "
                         "(only a view may add one dynamic offset on m)");
    *dyn = e;
    return AXE_OK;
}

static axe_status parse_layout(ax_parser *ps, axe_layout *l, ax_expr **dyn);

/* One swizzle parameter: a constant in [0, 62]. */
static axe_status swizzle_param(ax_parser *ps, int32_t *out, const char *what)
{
    long off = (long)ps->tok.pos;
    int64_t v;
    AXE_TRY(axe__parse_const(ps, &v, what));
    if (v < 0 || v > 62)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "swizzle parameter %s = %lld is not in [0, 62]", what,
                         (long long)v);
    *out = (int32_t)v;
    return AXE_OK;
}

/* 'Swizzle' '<' M ',' B ',' S [',' ('inner' | 'outer')] '>' '(' layout ')'
 * (docs/notation.md: TIRx's ComposeLayout, inner by default), the
 * 'Swizzle' already read at "off". */
static axe_status parse_swizzle(ax_parser *ps, axe_layout *l, ax_expr **dyn,
                                long off)
{
    axe_layout_swizzle sw = {true, true, 0, 0, 0};
    AXE_TRY(axe__expect(ps, "<", "'<' after Swizzle"));
    AXE_TRY(swizzle_param(ps, &sw.per_element, "M"));
    AXE_TRY(axe__expect(ps, ",", "',' after M"));
    AXE_TRY(swizzle_param(ps, &sw.len, "B"));
    AXE_TRY(axe__expect(ps, ",", "',' after B"));
    AXE_TRY(swizzle_param(ps, &sw.atom, "S"));
    if (axe__tok_is(ps, ",")) {
        AXE_TRY(axe__lex_next(ps));
        sw.inner = axe__tok_is(ps, "inner");
        if (!sw.inner && !axe__tok_is(ps, "outer"))
            return axe__syntax(ps, "'inner' or 'outer'");
        AXE_TRY(axe__lex_next(ps));
    }
    if (sw.atom < sw.len || sw.atom + sw.len > 62)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "Swizzle<%d,%d,%d> is not well-formed: need S >= B "
                         "and S + B <= 62",
                         (int)sw.per_element, (int)sw.len, (int)sw.atom);
    AXE_TRY(axe__expect(ps, ">", "'>' after the swizzle parameters"));
    AXE_TRY(axe__expect(ps, "(", "'(' and the swizzled layout"));
    AXE_TRY(parse_layout(ps, l, dyn));
    if (l->swizzle.present)
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "Swizzle<M,B,S>(...) can only wrap the whole "
                         "layout");
    l->swizzle = sw;
    AXE_TRY(axe__expect(ps, ")", "')' after the swizzled layout"));
    if (axe__tok_is(ps, "+"))
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, (long)ps->tok.pos,
                         "Swizzle<M,B,S>(...) wraps the whole layout: put "
                         "this term inside its parentheses");
    return AXE_OK;
}

/* layout := 'Swizzle' '<' ... '>' '(' layout ')' | term {'+' term};
 * term := S[..] | R[..] | offset. A swizzle wraps the whole layout (of a
 * tensor, or of a view: the view's addresses go through it). */
static axe_status parse_layout(ax_parser *ps, axe_layout *l, ax_expr **dyn)
{
    axe_layout_init(l);
    if (axe__tok_is(ps, "Swizzle") || axe__tok_is(ps, "Sw")) {
        long off = (long)ps->tok.pos;
        if (axe__tok_is(ps, "Sw"))
            return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                             "the CuTe swizzle Sw<B,M,S> is not supported in "
                             "a kernel layout: write the Axe notation "
                             "Swizzle<M,B,S>(layout) (docs/notation.md)");
        AXE_TRY(axe__lex_next(ps));
        return parse_swizzle(ps, l, dyn, off);
    }
    do {
        if (axe__tok_is(ps, "S")) {
            AXE_TRY(axe__lex_next(ps));
            AXE_TRY(parse_iters(ps, l, false));
        } else if (axe__tok_is(ps, "R")) {
            AXE_TRY(axe__lex_next(ps));
            AXE_TRY(parse_iters(ps, l, true));
        } else {
            AXE_TRY(parse_offset(ps, l, dyn));
        }
    } while (axe__tok_is(ps, "+") && axe__lex_next(ps) == AXE_OK);
    if (axe__tok_is(ps, "o"))
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, (long)ps->tok.pos,
                         "CuTe composition 'o' is not supported in a kernel "
                         "layout: write an Axe layout, swizzled as "
                         "Swizzle<M,B,S>(layout) (docs/notation.md)");
    return AXE_OK;
}

static axe_status parse_dtype(ax_parser *ps, axe_dtype *out)
{
    static const char *const names[] = {"f16", "bf16", "f32",  "f64", "i8",
                                        "i32", "e4m3", "e5m2", "i4"};
    /* Dtypes a kernel author may expect that are not (yet) supported:
     * named as such rather than as a syntax error. */
    static const char *const unsupported[] = {
        "u4",       "u8",   "i16", "u16",  "u32",  "i64",
        "u64",      "f8",   "fp8", "tf32", "bool", "e4m3fn",
        "e5m2fnuz", "e8m0", "fp4", "e2m1", "fp6"};
    int i;
    for (i = 0; i < 9; i++)
        if (axe__tok_is(ps, names[i])) {
            *out = (axe_dtype)i;
            return axe__lex_next(ps);
        }
    for (i = 0; i < (int)(sizeof unsupported / sizeof unsupported[0]); i++)
        if (axe__tok_is(ps, unsupported[i]))
            return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, (long)ps->tok.pos,
                             "the dtype '%s' is not supported in kernels "
                             "(f16, bf16, f32, f64, i8, i32, e4m3, e5m2, i4)",
                             unsupported[i]);
    return axe__syntax(ps, "a dtype (f16, bf16, f32, f64, i8, i32, e4m3, e5m2, "
                           "i4)");
}

/* The largest runtime extent of a tensor: its elements stay below 2^40
 * bytes for any i32 scalars, so spans and addresses never overflow. */
#define AX_MAX_DYN_EXTENT ((int64_t)INT32_MAX)

/* A runtime extent is allowed in dim 0 of a global tensor only: there it
 * changes no stride of the row-major layout. */
static axe_status check_dyn_extent(ax_parser *ps, const ax_tensor *t, int d,
                                   const ax_expr *dyn, long off)
{
    const char *name = ps->p->vars[axe__expr_scalar(ps->p, dyn)];
    if (t->mem != AX_MEM_GLOBAL)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "'%s' is a runtime scalar (given at launch), but "
                         "the extents of %s tensor '%s' must be "
                         "compile-time constants",
                         name, axe__mem_name(t->mem), t->name);
    if (d > 0)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "'%s' is a runtime scalar: only dimension 0 of a "
                         "global tensor may have a runtime extent (the "
                         "strides of its row-major layout must be "
                         "compile-time constants), not dimension %d of '%s'",
                         name, d, t->name);
    return AXE_OK;
}

static axe_status parse_shape(ax_parser *ps, ax_tensor *t)
{
    AXE_TRY(axe__expect(ps, "[", "'[' and the shape"));
    t->ndim = 0;
    do {
        long off = (long)ps->tok.pos;
        const ax_expr *dyn;
        if (t->ndim == AX_MAX_DIMS)
            return axe__fail(ps->diag, AXE_ERR_CAPACITY, off,
                             "more than %d dimensions", AX_MAX_DIMS);
        AXE_TRY(axe__parse_extent(ps, &t->shape[t->ndim], &dyn,
                                  AX_MAX_DYN_EXTENT, "an extent"));
        if (dyn != NULL) {
            AXE_TRY(check_dyn_extent(ps, t, t->ndim, dyn, off));
            t->dyn_extent = dyn;
            t->shape[0] = t->shape[0] < 2 ? 2 : t->shape[0];
        }
        if (t->shape[t->ndim] <= 0)
            return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                             "extent %lld is not positive",
                             (long long)t->shape[t->ndim]);
        t->ndim++;
    } while (axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    return axe__expect(ps, "]", "',' or ']'");
}

static axe_status new_tensor(ax_parser *ps, ax_tensor **out)
{
    axe_program *p = ps->p;
    if (p->ntensors == AX_MAX_TENSORS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                         "more than %d tensors", AX_MAX_TENSORS);
    *out = &p->tensors[p->ntensors++];
    memset(*out, 0, sizeof **out);
    (*out)->off = (long)ps->tok.pos;
    return AXE_OK;
}

static axe_status default_layout(const axe_program *p, ax_tensor *t);

/* `layout auto` (issue 15): the synthesis pass (compiler_synth.c) gives
 * the tensor its layout before sema; until then it holds the row-major
 * layout (a scratchpad tensor: the default one), so that a pass run
 * without synthesis sees a valid one. */
static axe_status parse_auto(ax_parser *ps, ax_tensor *t)
{
    if (t->mem == AX_MEM_GLOBAL)
        return axe__fail(ps->diag, AXE_ERR_INVALID, (long)ps->tok.pos,
                         "'%s' is a global tensor: its layout is the "
                         "caller's, so it cannot be 'auto' (only register, "
                         "shared, sbuf and psum tensors)",
                         t->name);
    t->autolayout = true;
    if (t->space != AX_SPACE_NONE)
        AXE_TRY(default_layout(ps->p, t));
    else
        AXE_TRY(axe_layout_row_major(t->shape, t->ndim, &t->layout));
    return axe__lex_next(ps);
}

/* The default layout of a tensor without `layout`: row-major on m, or
 * for an sbuf or psum tensor dim 0 on P and the others row-major on F
 * (TIRx's trainium layout of annotation "PF...F", over the model's
 * partitions; a count below 1, which sema refuses, as 128). */
static axe_status default_layout(const axe_program *p, ax_tensor *t)
{
    char ann[AX_MAX_DIMS + 1];
    int64_t parts = p->opts.trn.partitions;
    int d;
    if (t->space == AX_SPACE_NONE)
        return axe_layout_row_major(t->shape, t->ndim, &t->layout);
    for (d = 0; d < t->ndim; d++)
        ann[d] = d == 0 ? 'P' : 'F';
    ann[t->ndim] = '\0';
    if (parts < 1)
        parts = 128;
    return axe_layout_trainium_parts(ann, t->shape, t->ndim, parts, &t->layout,
                                     NULL);
}

/* NAME ':' dtype shape ['layout' (layout | 'auto')] (the memory kind
 * already read; "space": sbuf, psum or none). */
static axe_status parse_tensor(ax_parser *ps, ax_mem mem, ax_space space)
{
    ax_tensor *t;
    int i;
    AXE_TRY(new_tensor(ps, &t));
    t->mem = mem;
    t->space = space;
    t->param = mem == AX_MEM_GLOBAL;
    AXE_TRY(expect_user_name(ps, t->name, "a tensor name"));
    for (i = 0; i + 1 < ps->p->ntensors; i++)
        if (strcmp(ps->p->tensors[i].name, t->name) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, t->off,
                             "tensor '%s' is declared twice", t->name);
    for (i = 0; i < ps->p->nscalars; i++)
        if (strcmp(ps->p->scalar_name[i], t->name) == 0)
            return axe__fail(ps->diag, AXE_ERR_SYNTAX, t->off,
                             "'%s' names a runtime scalar and a tensor",
                             t->name);
    strcpy(t->cname, "t_"); /* never a libc, math.h or ax_ name */
    strcat(t->cname, t->name);
    AXE_TRY(axe__expect(ps, ":", "':'"));
    if (mem == AX_MEM_GLOBAL && axe__tok_is(ps, "global"))
        AXE_TRY(axe__lex_next(ps));
    AXE_TRY(parse_dtype(ps, &t->dtype));
    AXE_TRY(parse_shape(ps, t));
    if (!axe__tok_is(ps, "layout")) {
        axe_status st = default_layout(ps->p, t);
        return st == AXE_OK
                   ? AXE_OK
                   : axe__fail(ps->diag, st, t->off, "no default layout (%s)",
                               axe_status_message(st));
    }
    if (t->dyn_extent != NULL)
        return axe__fail(ps->diag, AXE_ERR_INVALID, (long)ps->tok.pos,
                         "'%s' has a runtime extent, so its layout is "
                         "row-major: an explicit layout needs compile-time "
                         "extents",
                         t->name);
    AXE_TRY(axe__lex_next(ps));
    if (axe__tok_is(ps, "auto"))
        return parse_auto(ps, t);
    return parse_layout(ps, &t->layout, NULL);
}

static axe_status find_tensor(ax_parser *ps, const char *name, long off,
                              int *out)
{
    int i;
    for (i = 0; i < ps->p->ntensors; i++)
        if (strcmp(ps->p->tensors[i].name, name) == 0) {
            *out = i;
            return AXE_OK;
        }
    if (axe__name_taken(ps, name) != NULL) /* an id or a loop variable */
        return axe__fail(ps->diag, AXE_ERR_SYNTAX, off,
                         "'%s' is %s, not a tensor: an operand is a tensor "
                         "region, or where the operator takes one a "
                         "literal, a runtime scalar or a kept device loop's "
                         "variable (iota writes coordinates)",
                         name, axe__name_taken(ps, name));
    return axe__fail(ps->diag, AXE_ERR_SYNTAX, off, "unknown tensor '%s'",
                     name);
}

/* `T[i, ...]` after the name T (see compiler_parse.h): each coordinate an
 * expression, itself without loads. */
axe_status axe__parse_load(ax_parser *ps, const char *name, long off,
                           ax_expr **out)
{
    ax_ref *r;
    int t, d;
    bool allow = ps->allow_load;
    *out = NULL;
    for (t = 0; t < ps->p->ntensors; t++)
        if (strcmp(ps->p->tensors[t].name, name) == 0)
            break;
    if (t == ps->p->ntensors)
        return AXE_OK;
    if (!allow)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "'%s[...]' reads a tensor element: allowed in a "
                         "region start only (a data-dependent start), not "
                         "inside another element or here",
                         name);
    r = axe__arena_alloc(ps->p->arena, sizeof *r);
    *out = axe__arena_alloc(ps->p->arena, sizeof **out);
    if (r == NULL || *out == NULL)
        return AXE_ERR_NO_MEMORY;
    r->tensor = t;
    r->bdim = -1;
    r->off = off;
    ps->allow_load = false;
    AXE_TRY(axe__lex_next(ps));
    do {
        if (r->ndim == AX_MAX_DIMS)
            return axe__fail(ps->diag, AXE_ERR_CAPACITY, (long)ps->tok.pos,
                             "more than %d dimensions", AX_MAX_DIMS);
        AXE_TRY(axe__parse_expr(ps, &r->start[r->ndim]));
        r->len[r->ndim++] = 1;
    } while (axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    ps->allow_load = allow;
    (*out)->kind = AX_EX_LOAD;
    (*out)->load = r;
    (*out)->off = off;
    (*out)->depth = 1;
    for (d = 0; d < r->ndim; d++)
        if (r->start[d]->depth + 1 > (*out)->depth)
            (*out)->depth = r->start[d]->depth + 1;
    return axe__expect(ps, "]", "',' or ']'");
}

/* 'masked' ['-'] NUMBER after a dimension's length: its fill value,
 * the same for every masked dimension of the region. */
static axe_status parse_mask(ax_parser *ps, ax_ref *r, int d)
{
    long off;
    bool neg;
    double v;
    AXE_TRY(axe__lex_next(ps));
    off = (long)ps->tok.pos;
    neg = axe__tok_is(ps, "-");
    if (neg)
        AXE_TRY(axe__lex_next(ps));
    if (ps->tok.kind == AX_TOK_INT)
        v = (double)ps->tok.value;
    else if (ps->tok.kind == AX_TOK_FLOAT)
        v = ps->tok.fvalue;
    else if (axe__tok_is(ps, "inf"))
        v = HUGE_VAL;
    else
        return axe__syntax(ps, "the fill value of a masked dimension");
    v = neg ? -v : v;
    if (r->any_masked && v != r->fill)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "the masked dimensions of one region need one fill "
                         "value (%g, then %g)",
                         r->fill, v);
    r->masked[d] = r->any_masked = true;
    r->fill = v;
    return axe__lex_next(ps);
}

/* ':' alone: the whole of dimension "d" of the region's tensor (start 0,
 * its extent; not a runtime extent, which has no length to write). */
static axe_status parse_whole(ax_parser *ps, ax_ref *r, int d, long off)
{
    const ax_tensor *t = &ps->p->tensors[r->tensor];
    if (d >= t->ndim)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "':' is the whole of dimension %d, but '%s' has %d "
                         "dimension%s",
                         d, t->name, t->ndim, t->ndim == 1 ? "" : "s");
    if (d == 0 && t->dyn_extent != NULL)
        return axe__fail(ps->diag, AXE_ERR_UNSUPPORTED, off,
                         "':' is the whole of dimension 0 of '%s', whose "
                         "extent is set at launch: write 'start : +length'",
                         t->name);
    r->start[d] = axe__expr_int(ps->p->arena, 0, off);
    if (r->start[d] == NULL)
        return axe__fail(ps->diag, AXE_ERR_NO_MEMORY, off, "out of memory");
    r->len[d] = t->shape[d];
    r->ndim++;
    return axe__lex_next(ps);
}

/* range := expr ':' '+' const ['masked' fill] | const ':' const | expr
 * (length 1) | ':' (the whole dimension). */
static axe_status parse_range(ax_parser *ps, ax_ref *r)
{
    long off = (long)ps->tok.pos;
    ax_expr *start;
    int64_t end;
    int d = r->ndim;
    axe_status st;
    if (d == AX_MAX_DIMS)
        return axe__fail(ps->diag, AXE_ERR_CAPACITY, off,
                         "more than %d dimensions", AX_MAX_DIMS);
    if (axe__tok_is(ps, ":"))
        return parse_whole(ps, r, d, off);
    ps->allow_load = true;
    st = axe__parse_expr(ps, &start);
    ps->allow_load = false;
    AXE_TRY(st);
    r->start[d] = start;
    r->len[d] = 1;
    r->ndim++;
    if (!axe__tok_is(ps, ":"))
        return AXE_OK;
    AXE_TRY(axe__lex_next(ps));
    if (axe__tok_is(ps, "+")) {
        AXE_TRY(axe__lex_next(ps));
        AXE_TRY(axe__parse_const(ps, &r->len[d], "a region length"));
        return axe__tok_is(ps, "masked") ? parse_mask(ps, r, d) : AXE_OK;
    }
    if (start->kind != AX_EX_INT)
        return axe__fail(ps->diag, AXE_ERR_INVALID, off,
                         "a dynamic start needs a length: write 'start : "
                         "+length'");
    AXE_TRY(axe__parse_const(ps, &end, "a region end"));
    if (axe__sub(end, start->value, &r->len[d]) != AXE_OK)
        return axe__fail(ps->diag, AXE_ERR_OVERFLOW, off, "integer overflow");
    return AXE_OK;
}

/* '.' 'bcast' '(' dim ',' extent ')': a stride-0 operand dim. */
static axe_status parse_bcast(ax_parser *ps, ax_ref *r)
{
    long off = (long)ps->tok.pos;
    int64_t d;
    AXE_TRY(axe__expect(ps, "(", "'('"));
    AXE_TRY(axe__parse_const(ps, &d, "a dimension"));
    if (d < 0 || d >= AX_MAX_DIMS)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "bcast dimension %lld outside [0, %d)", (long long)d,
                         AX_MAX_DIMS);
    r->bdim = (int)d;
    AXE_TRY(axe__expect(ps, ",", "','"));
    off = (long)ps->tok.pos;
    AXE_TRY(axe__parse_const(ps, &r->bext, "a bcast extent"));
    if (r->bext <= 0)
        return axe__fail(ps->diag, AXE_ERR_DOMAIN, off,
                         "bcast extent %lld is not positive",
                         (long long)r->bext);
    return axe__expect(ps, ")", "')'");
}

static axe_status parse_region(ax_parser *ps, ax_ref *r)
{
    AXE_TRY(axe__lex_next(ps));
    do
        AXE_TRY(parse_range(ps, r));
    while (axe__tok_is(ps, ",") && axe__lex_next(ps) == AXE_OK);
    return axe__expect(ps, "]", "',' or ']'");
}

/* ref := NAME ['[' range {',' range} ']' | '.' 'view' '(' layout ')']
 *        ['.' 'bcast' '(' dim ',' extent ')']. */
static axe_status parse_ref(ax_parser *ps, ax_ref *r)
{
    char name[AXE_KERNEL_NAME_MAX];
    memset(r, 0, sizeof *r);
    r->bdim = -1;
    r->off = (long)ps->tok.pos;
    AXE_TRY(axe__expect_ident(ps, name, "a tensor"));
    AXE_TRY(find_tensor(ps, name, r->off, &r->tensor));
    if (axe__tok_is(ps, "["))
        AXE_TRY(parse_region(ps, r));
    while (axe__tok_is(ps, ".") && r->bdim < 0) {
        AXE_TRY(axe__lex_next(ps));
        if (axe__tok_is(ps, "bcast")) {
            AXE_TRY(axe__lex_next(ps));
            AXE_TRY(parse_bcast(ps, r));
            continue;
        }
        if (r->is_view || r->ndim > 0)
            return axe__syntax(ps, "'bcast'");
        AXE_TRY(axe__expect(ps, "view", "'view' or 'bcast'"));
        AXE_TRY(axe__expect(ps, "(", "'('"));
        r->is_view = true;
        AXE_TRY(parse_layout(ps, &r->view, &r->view_dyn));
        AXE_TRY(axe__expect(ps, ")", "'+' or ')'"));
    }
    return AXE_OK;
}

/* Token helpers shared with compiler_parse_stmt.c. */
axe_status axe__parse_ref(ax_parser *ps, ax_ref *r) { return parse_ref(ps, r); }
axe_status axe__parse_tensor(ax_parser *ps, ax_mem mem, ax_space space)
{
    return parse_tensor(ps, mem, space);
}
axe_status axe__parse_user_name(ax_parser *ps, char *out, const char *what)
{
    return expect_user_name(ps, out, what);
}
