/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The grammar of mapping expressions (spec §3) over the token stream of
 * notation_mapping_lex.c: `list := postfix ("," list)? | postfix ","`,
 * `postfix := atom (op num)*` (one left-associative level), `atom :=
 * SYMBOL | NAT | ESCAPED | "(" list ")" | "[" list "]"`, plus the
 * assignment lists of `i![...]` and `$(...)` and the `axes![...]` table.
 * Nodes are pushed into the caller's expression as they are recognized;
 * escapes naming a definition parse its text into the same expression.
 * Invariant: a parser position never passes its range's end, and every
 * failure carries the offset of the token that caused it.
 */
#include <string.h>

#include "notation_mapping_internal.h"

#define DEFS_DEPTH_MAX 8

typedef struct mparser {
    const axe__mlex *lx;
    int k, end;
    const axe_mapping_env *env;
    axe_mapping *m;
    axe_diag *diag;
    int depth;
} mparser;

static axe_status parse_list(mparser *p, int *id);

static const axe__mtok *cur(const mparser *p)
{
    return &p->lx->tok[p->k < p->end ? p->k : p->end];
}

static bool at_punct(const mparser *p, char c)
{
    return p->k < p->end && cur(p)->kind == AXE__MT_PUNCT && cur(p)->c == c;
}

static axe_status expected(const mparser *p, const char *what)
{
    const axe__mtok *t = cur(p);
    return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                     "expected %s, found %s", what,
                     p->k < p->end ? axe__mtok_describe(t) : "the end");
}

/* "unexpected name 'B'", "unexpected number '64'", "unexpected '('", then
 * "after". */
static axe_status unexpected(const mparser *p, const char *after)
{
    const axe__mtok *t = cur(p);
    const char *what = t->kind == AXE__MT_IDENT ? "name "
                       : t->kind == AXE__MT_NAT ? "number "
                                                : "";
    return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                     "unexpected %s'%.*s'%s", what, (int)t->len,
                     p->lx->text + t->offset, after);
}

static bool tok_text_is(const mparser *p, int k, const char *s)
{
    const axe__mtok *t = &p->lx->tok[k];
    return t->len == strlen(s) &&
           memcmp(p->lx->text + t->offset, s, t->len) == 0;
}

static int lookup(const char *const *names, int n, const char *s, size_t len)
{
    for (int i = 0; i < n; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return i;
    return -1;
}

/* `{ N }`, `{ NAME }` (a constant) or `{ AXIS::SIZE }` between "open" and
 * its partner. */
static axe_status escaped_number(mparser *p, int open, int64_t *out)
{
    const axe__mlex *lx = p->lx;
    int close = lx->tok[open].match, a = open + 1;
    const axe__mtok *t = &lx->tok[a];
    const char *s = lx->text + t->offset;
    if (close == a + 1 && t->kind == AXE__MT_NAT) {
        *out = t->value;
        return AXE_OK;
    }
    if (close == a + 1 && t->kind == AXE__MT_IDENT) {
        int c = lookup(p->env->const_name, p->env->nconsts, s, t->len);
        if (c >= 0) {
            *out = p->env->const_value[c];
            return AXE_OK;
        }
        return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                         "unknown constant '%.*s'", (int)t->len, s);
    }
    if (close == a + 4 && t->kind == AXE__MT_IDENT &&
        tok_text_is(p, a + 1, ":") && tok_text_is(p, a + 2, ":") &&
        tok_text_is(p, a + 3, "SIZE")) {
        int x = axe_mapping_axes_find(&p->m->axes, s, t->len);
        if (x >= 0) {
            *out = p->m->axes.size[x];
            return AXE_OK;
        }
        return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                         "unknown axis '%.*s'", (int)t->len, s);
    }
    return axe__fail(p->diag, AXE_ERR_SYNTAX, lx->tok[open].offset,
                     "expected a constant inside '{ }'");
}

static axe_status parse_num(mparser *p, int64_t *out)
{
    const axe__mtok *t = cur(p);
    if (p->k < p->end && t->kind == AXE__MT_NAT) {
        *out = t->value;
        p->k++;
        return AXE_OK;
    }
    if (at_punct(p, '{')) {
        AXE_TRY(escaped_number(p, p->k, out));
        p->k = t->match + 1;
        return AXE_OK;
    }
    return expected(p, "a number after an operator");
}

/* Parse tokens [first, last) as a whole list into the same expression. */
static axe_status parse_range(mparser *p, int first, int last, int *id)
{
    mparser q = *p;
    q.k = first;
    q.end = last;
    if (first == last)
        return expected(&q, "a mapping");
    AXE_TRY(parse_list(&q, id));
    if (q.k < last)
        return unexpected(&q, "");
    return AXE_OK;
}

/* The text of definition "text" parsed into the same expression. */
static axe_status parse_definition(mparser *p, const char *text, long at,
                                   int *id)
{
    axe__mlex lx;
    mparser q = *p;
    int first, last;
    axe_status st;
    if (p->depth == DEFS_DEPTH_MAX)
        return axe__fail(p->diag, AXE_ERR_CAPACITY, at,
                         "definitions nested deeper than %d", DEFS_DEPTH_MAX);
    st = axe__mlex_run(&lx, text, strlen(text), p->env->primes, p->diag);
    if (st == AXE_OK)
        st = axe__mlex_unwrap(&lx, "m", true, &first, &last, p->diag);
    q.lx = &lx;
    q.depth++;
    if (st == AXE_OK)
        st = parse_range(&q, first, last, id);
    if (st != AXE_OK && p->diag != NULL)
        p->diag->offset = at;
    return st;
}

/* `{ NAME }` (a definition) or `{ m![...] }` in operand position. */
static axe_status escaped_mapping(mparser *p, int open, int *id)
{
    const axe__mlex *lx = p->lx;
    int close = lx->tok[open].match, a = open + 1;
    const axe__mtok *t = &lx->tok[a];
    if (close == a + 1 && t->kind == AXE__MT_IDENT) {
        int d = lookup(p->env->def_name, p->env->ndefs, lx->text + t->offset,
                       t->len);
        if (d < 0)
            return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                             "unknown escaped mapping '%.*s'", (int)t->len,
                             lx->text + t->offset);
        return parse_definition(p, p->env->def_text[d], t->offset, id);
    }
    if (close > a + 3 && tok_text_is(p, a, "m") && tok_text_is(p, a + 1, "!") &&
        tok_text_is(p, a + 2, "[") && lx->tok[a + 2].match == close - 1)
        return parse_range(p, a + 3, close - 1, id);
    return axe__fail(p->diag, AXE_ERR_SYNTAX, lx->tok[open].offset,
                     "expected a mapping name or m![...] inside '{ }'");
}

static axe_status parse_atom(mparser *p, int *id)
{
    const axe__mtok *t = cur(p);
    const char *s = p->lx->text + t->offset;
    axe_status st;
    if (p->k >= p->end)
        return expected(p, "a mapping");
    if (t->kind == AXE__MT_IDENT) {
        int x = axe_mapping_axes_find(&p->m->axes, s, t->len);
        if (x < 0)
            return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                             "unknown axis '%.*s'", (int)t->len, s);
        st = axe_mapping_push(p->m, AXE_MAPPING_SYMBOL, -1, -1, x,
                              AXE_PADDING_TOP, id, p->diag);
    } else if (t->kind == AXE__MT_NAT) {
        st = axe_mapping_push(p->m, AXE_MAPPING_BROADCAST, -1, -1, t->value,
                              AXE_PADDING_TOP, id, p->diag);
    } else if (at_punct(p, '(') || at_punct(p, '[')) {
        st = parse_range(p, p->k + 1, t->match, id);
        p->k = t->match;
    } else if (at_punct(p, '{')) {
        st = escaped_mapping(p, p->k, id);
        p->k = t->match;
    } else {
        return expected(p, "a mapping");
    }
    if (st != AXE_OK && p->diag != NULL && p->diag->offset < 0)
        p->diag->offset = t->offset;
    p->k++;
    return st;
}

/* The operator at the current token, if any. */
static bool postfix_op(const mparser *p, axe_mapping_op *op,
                       axe_padding_kind *kind)
{
    const axe__mtok *t = cur(p);
    *kind = AXE_PADDING_TOP;
    if (p->k >= p->end)
        return false;
    if (t->kind == AXE__MT_FILL) {
        *op = AXE_MAPPING_PADDING;
        *kind = t->c == '0'   ? AXE_PADDING_ZERO
                : t->c == '!' ? AXE_PADDING_BOTTOM
                              : AXE_PADDING_TOP;
        return true;
    }
    if (t->kind != AXE__MT_PUNCT)
        return false;
    switch (t->c) {
    case '/':
        *op = AXE_MAPPING_STRIDE;
        return true;
    case '%':
        *op = AXE_MAPPING_MODULO;
        return true;
    case '=':
        *op = AXE_MAPPING_RESIZE;
        return true;
    case '#':
        *op = AXE_MAPPING_PADDING;
        return true;
    default:
        return false;
    }
}

static axe_status parse_postfix(mparser *p, int *id)
{
    axe_mapping_op op, next;
    axe_padding_kind kind, next_kind;
    AXE_TRY(parse_atom(p, id));
    while (postfix_op(p, &op, &kind)) {
        long at = cur(p)->offset;
        int64_t n;
        axe_status st;
        p->k++;
        AXE_TRY(parse_num(p, &n));
        if (p->k < p->end && !at_punct(p, ',') && !at_punct(p, ':') &&
            !postfix_op(p, &next, &next_kind))
            return unexpected(p, " after the number of an operator");
        st = axe_mapping_push(p->m, op, *id, -1, n, kind, id, p->diag);
        if (st != AXE_OK) {
            if (p->diag != NULL)
                p->diag->offset = at;
            return st;
        }
    }
    return AXE_OK;
}

static axe_status parse_list(mparser *p, int *id)
{
    int right;
    long comma;
    axe_status st;
    AXE_TRY(parse_postfix(p, id));
    if (!at_punct(p, ','))
        return AXE_OK;
    comma = cur(p)->offset;
    p->k++;
    if (p->k >= p->end || at_punct(p, ':'))
        return AXE_OK;
    AXE_TRY(parse_list(p, &right));
    st = axe_mapping_push(p->m, AXE_MAPPING_PAIR, *id, right, 0,
                          AXE_PADDING_TOP, id, p->diag);
    if (st != AXE_OK && p->diag != NULL)
        p->diag->offset = comma;
    return st;
}

/* Lex "text" and find the inside of `name![...]`. */
static axe_status start(mparser *p, axe__mlex *lx, const char *text, size_t len,
                        const char *name, bool bare, const axe_mapping_env *env,
                        axe_diag *diag)
{
    memset(p, 0, sizeof *p);
    p->lx = lx;
    p->env = env;
    p->diag = diag;
    axe_diag_clear(diag);
    AXE_TRY(axe__mlex_run(lx, text, len, env != NULL && env->primes, diag));
    return axe__mlex_unwrap(lx, name, bare, &p->k, &p->end, diag);
}

axe_status axe_parse_mapping(const char *text, size_t len,
                             const axe_mapping_env *env, axe_mapping *out,
                             axe_diag *diag)
{
    static const axe_mapping_axes none;
    axe__mlex lx;
    mparser p;
    axe_mapping m;
    int id;
    if (text == NULL || env == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    AXE_TRY(start(&p, &lx, text, len, "m", true, env, diag));
    axe_mapping_init(&m, env->axes != NULL ? env->axes : &none);
    p.m = &m;
    if (p.k == p.end)
        return axe__fail(diag, AXE_ERR_SYNTAX, cur(&p)->offset,
                         "empty mapping: a mapping needs at least one element");
    AXE_TRY(parse_range(&p, p.k, p.end, &id));
    *out = m;
    return AXE_OK;
}

/* ---- assignment lists: i![M: v, ...] and $(e: n, ...) ------------ */

typedef axe_status assign_fn(void *ctx, const axe_mapping *m, int64_t v,
                             long at, axe_diag *diag);

static axe_status parse_assignments(mparser *p, assign_fn *fn, void *ctx)
{
    static const axe_mapping_axes none;
    axe_mapping m;
    while (p->k < p->end) {
        long at = cur(p)->offset;
        int64_t v;
        int id;
        axe_mapping_init(&m, p->env->axes != NULL ? p->env->axes : &none);
        p->m = &m;
        AXE_TRY(parse_list(p, &id));
        if (!at_punct(p, ':'))
            return expected(p, "':'");
        p->k++;
        AXE_TRY(parse_num(p, &v));
        AXE_TRY(fn(ctx, &m, v, at, p->diag));
        if (p->k < p->end && !at_punct(p, ','))
            return expected(p, "',' or the end");
        p->k += p->k < p->end;
    }
    return AXE_OK;
}

static axe_status assign_index(void *ctx, const axe_mapping *m, int64_t v,
                               long at, axe_diag *diag)
{
    axe_mapping_index *ix = ctx;
    axe_mapping_cell c;
    axe_status st = axe_mapping_map(m, v, &c, diag);
    if (st != AXE_OK) {
        if (diag != NULL)
            diag->offset = at;
        return st;
    }
    for (int k = 0; k < m->axes.n; k++)
        if (axe_mapping_uses_axis(m, axe_mapping_root(m), k))
            ix->used |= UINT32_C(1) << k;
    if (axe_mapping_cell_combine(&ix->cell, &c, &ix->cell))
        return axe__fail(diag, AXE_ERR_OVERFLOW, at, "coordinate overflows");
    return AXE_OK;
}

/* Run the assignment list inside `name![...]` (or `$(...)`) of "text". */
static axe_status run_assignments(const char *text, size_t len,
                                  const axe_mapping_env *env, const char *name,
                                  assign_fn *fn, void *ctx, axe_diag *diag)
{
    axe__mlex lx;
    mparser p;
    if (text == NULL || env == NULL || env->axes == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    AXE_TRY(start(&p, &lx, text, len, name, name[0] != '$', env, diag));
    return parse_assignments(&p, fn, ctx);
}

axe_status axe_parse_mapping_index(const char *text, size_t len,
                                   const axe_mapping_env *env,
                                   axe_mapping_index *out, axe_diag *diag)
{
    axe_mapping_index ix;
    axe_mapping_cell_zero(&ix.cell);
    ix.used = 0;
    if (out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    AXE_TRY(run_assignments(text, len, env, "i", assign_index, &ix, diag));
    for (int k = 0; ix.cell.kind == AXE_CELL_INDEX && k < env->axes->n; k++)
        if (ix.cell.coord[k] >= env->axes->size[k])
            return axe__fail(diag, AXE_ERR_DOMAIN, 0,
                             "coordinate %s = %lld overshoots size %lld",
                             env->axes->name[k], (long long)ix.cell.coord[k],
                             (long long)env->axes->size[k]);
    *out = ix;
    return AXE_OK;
}

static axe_status assign_term(void *ctx, const axe_mapping *m, int64_t v,
                              long at, axe_diag *diag)
{
    axe_mapping_lincomb *c = ctx;
    if (c->n == AXE_LINCOMB_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, at, "more than %d terms",
                         AXE_LINCOMB_MAX);
    if (v < 1)
        return axe__fail(diag, AXE_ERR_DOMAIN, at,
                         "the coefficient of a term must be positive");
    c->term[c->n] = *m;
    c->scale[c->n++] = v;
    return AXE_OK;
}

axe_status axe_parse_mapping_lincomb(const char *text, size_t len,
                                     const axe_mapping_env *env,
                                     axe_mapping_lincomb *out, axe_diag *diag)
{
    axe_mapping_lincomb c;
    c.n = 0;
    if (out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    AXE_TRY(run_assignments(text, len, env, "$", assign_term, &c, diag));
    if (c.n == 0)
        return axe__fail(diag, AXE_ERR_SYNTAX, (long)len,
                         "a linear combination needs at least one term");
    *out = c;
    return AXE_OK;
}

/* ---- axes![NAME = SIZE, ...] ------------------------------------- */

static axe_status parse_axis(mparser *p, axe_mapping_axes *axes)
{
    const axe__mtok *t = cur(p);
    char name[AXE_MAPPING_NAME_MAX];
    axe_status st;
    if (p->k >= p->end || t->kind != AXE__MT_IDENT)
        return expected(p, "NAME = SIZE");
    if (p->lx->text[t->offset] < 'A' || p->lx->text[t->offset] > 'Z')
        return axe__fail(p->diag, AXE_ERR_SYNTAX, t->offset,
                         "axis name '%.*s' must start with an uppercase "
                         "ASCII letter",
                         (int)t->len, p->lx->text + t->offset);
    if (t->len >= sizeof name)
        return axe__fail(p->diag, AXE_ERR_CAPACITY, t->offset,
                         "axis name longer than %d bytes",
                         AXE_MAPPING_NAME_MAX - 1);
    memcpy(name, p->lx->text + t->offset, t->len);
    name[t->len] = '\0';
    p->k++;
    if (!at_punct(p, '='))
        return expected(p, "'=' SIZE after the axis name");
    p->k++;
    if (p->k >= p->end || cur(p)->kind != AXE__MT_NAT)
        return expected(p, "an integer size");
    st = axe_mapping_axes_add(axes, name, cur(p)->value, p->diag);
    if (st != AXE_OK && p->diag != NULL)
        p->diag->offset = t->offset;
    p->k++;
    return st;
}

axe_status axe_parse_mapping_axes(const char *text, size_t len,
                                  axe_mapping_axes *out, axe_diag *diag)
{
    static const axe_mapping_env env;
    axe__mlex lx;
    mparser p;
    axe_mapping_axes axes;
    if (text == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "NULL argument");
    AXE_TRY(start(&p, &lx, text, len, "axes", true, &env, diag));
    axes.n = 0;
    while (p.k < p.end) {
        AXE_TRY(parse_axis(&p, &axes));
        if (p.k < p.end && !at_punct(&p, ','))
            return expected(&p, "',' or the end");
        p.k += p.k < p.end;
    }
    *out = axes;
    return AXE_OK;
}
