/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Recursive-descent parser for the CuTe notation (grammar in
 * docs/notation.md). Every failure names the byte offset and what was
 * expected; nesting deeper than AXE_TUPLE_MAX_DEPTH, numbers that overflow
 * int64 and objects beyond the value capacities are errors, never UB.
 */
#include <string.h>

#include "notation_internal.h"

typedef struct scanner {
    const char *s;
    size_t len;
    size_t pos;
    size_t elem; /* start of the tiler element being added */
    int depth;
    axe_diag *diag;
} scanner;

static axe_status fail(scanner *p, axe_status st, const char *what)
{
    return axe__fail(p->diag, st, (long)p->pos, "%s", what);
}

static bool is_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(scanner *p)
{
    while (p->pos < p->len && is_space(p->s[p->pos]))
        p->pos++;
}

static int peek(scanner *p)
{
    skip_ws(p);
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int peek_at(scanner *p, size_t k)
{
    return p->pos + k < p->len ? (unsigned char)p->s[p->pos + k] : -1;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static axe_status expect(scanner *p, char c, const char *what)
{
    if (peek(p) != c)
        return fail(p, AXE_ERR_SYNTAX, what);
    p->pos++;
    return AXE_OK;
}

/* At `_` followed by a digit, or by `-` and a digit: the prefix of a CuTe
 * C++ static integer (`_4`, `_-1`). */
static bool at_static_prefix(scanner *p)
{
    return peek_at(p, 0) == '_' &&
           (is_digit(peek_at(p, 1)) ||
            (peek_at(p, 1) == '-' && is_digit(peek_at(p, 2))));
}

/* [_][-][_]digits: an integer (CuTe static integers print as `_4`, `_-1`).
 * INT64_MIN is the code of `_` (AXE_UNDERSCORE) and is out of range. */
static axe_status parse_int(scanner *p, int64_t *out)
{
    bool neg = false;
    int64_t v = 0;
    size_t at = (skip_ws(p), p->pos);
    if (at_static_prefix(p))
        p->pos++;
    if (peek_at(p, 0) == '-') {
        neg = true;
        p->pos++;
    }
    if (peek_at(p, 0) == '_' && is_digit(peek_at(p, 1)))
        p->pos++;
    if (!is_digit(peek_at(p, 0)))
        return fail(p, AXE_ERR_SYNTAX, "expected an integer");
    while (is_digit(peek_at(p, 0))) {
        int d = p->s[p->pos++] - '0';
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_sub_overflow(v, d, &v) || v == INT64_MIN) {
            p->pos = at;
            return fail(p, AXE_ERR_OVERFLOW,
                        "integer out of range (|n| must be < 2^63)");
        }
    }
    *out = neg ? v : -v;
    return AXE_OK;
}

/* `s@k1@...@k0` after the integer s: the basis code E<k0,...,k1>. */
static axe_status parse_basis(scanner *p, uint32_t *code)
{
    int modes[AXE_CUTE_BASIS_MAX_DEPTH];
    int n = 0;
    *code = 0;
    while (peek_at(p, 0) == '@') {
        int64_t k;
        p->pos++;
        if (!is_digit(peek_at(p, 0)))
            return fail(p, AXE_ERR_SYNTAX, "expected a mode index after '@'");
        AXE_TRY(parse_int(p, &k));
        if (k > AXE_CUTE_BASIS_MAX_MODE || n >= AXE_CUTE_BASIS_MAX_DEPTH)
            return fail(p, AXE_ERR_CAPACITY, "scaled basis too deep or wide");
        modes[n++] = (int)k;
    }
    if (n > 0) {
        *code = (uint32_t)n << 24;
        for (int lvl = 0; lvl < n; lvl++)
            *code |= (uint32_t)modes[n - 1 - lvl] << (16 - 8 * lvl);
    }
    return AXE_OK;
}

typedef enum leaf_kind { LEAF_SHAPE, LEAF_COORD, LEAF_STRIDE } leaf_kind;

static bool is_underscore(scanner *p)
{
    return peek(p) == '_' && !at_static_prefix(p);
}

static axe_status parse_leaf(scanner *p, leaf_kind kind, axe_tuple *t,
                             uint32_t *basis)
{
    int64_t v;
    uint32_t code = 0;
    size_t at = (skip_ws(p), p->pos);
    if (is_underscore(p)) {
        if (kind != LEAF_COORD)
            return fail(p, AXE_ERR_SYNTAX,
                        "'_' is only allowed in a coordinate");
        p->pos++;
        v = AXE_UNDERSCORE;
    } else {
        AXE_TRY(parse_int(p, &v));
        if (kind == LEAF_STRIDE)
            AXE_TRY(parse_basis(p, &code));
        if (kind == LEAF_SHAPE && v < 1) {
            p->pos = at;
            return fail(p, AXE_ERR_SYNTAX, "a shape extent must be >= 1");
        }
    }
    if (basis != NULL && t->nleaf < AXE_TUPLE_MAX_LEAVES)
        basis[t->nleaf] = code;
    if (axe__tuple_push(t, v) != AXE_OK) {
        p->pos = at;
        return fail(p, AXE_ERR_CAPACITY, "too many elements in a tuple");
    }
    return AXE_OK;
}

/* A leaf or `(e, e, ...)`; a sole element may have a trailing comma
 * (`(64,)`, Python's print of a 1-tuple). */
static axe_status parse_tree(scanner *p, leaf_kind kind, axe_tuple *t,
                             uint32_t *basis)
{
    if (peek(p) != '(')
        return parse_leaf(p, kind, t, basis);
    if (++p->depth > AXE_TUPLE_MAX_DEPTH)
        return fail(p, AXE_ERR_CAPACITY, "tuple nested too deeply");
    p->pos++;
    if (axe__tuple_open(t) != AXE_OK)
        return fail(p, AXE_ERR_CAPACITY, "tuple too long");
    if (peek(p) != ')') {
        int n = 1;
        AXE_TRY(parse_tree(p, kind, t, basis));
        while (peek(p) == ',') {
            p->pos++;
            if (n == 1 && peek(p) == ')')
                break;
            AXE_TRY(parse_tree(p, kind, t, basis));
            n++;
        }
    }
    AXE_TRY(expect(p, ')', "expected ',' or ')'"));
    if (axe__tuple_close(t) != AXE_OK)
        return fail(p, AXE_ERR_CAPACITY, "tuple too long");
    p->depth--;
    return AXE_OK;
}

static axe_status parse_tuple_kind(scanner *p, leaf_kind kind, axe_tuple *t,
                                   uint32_t *basis)
{
    axe__tuple_clear(t);
    return parse_tree(p, kind, t, basis);
}

/* After a shape: ':' and a congruent stride. */
static axe_status parse_stride(scanner *p, const axe_tuple *shape,
                               axe_cute_layout *out)
{
    axe_tuple st;
    size_t at;
    AXE_TRY(expect(p, ':', "expected ':' between shape and stride"));
    at = (skip_ws(p), p->pos);
    AXE_TRY(parse_tuple_kind(p, LEAF_STRIDE, &st, out->basis));
    if (!axe_tuple_is_congruent(shape, &st)) {
        p->pos = at;
        return fail(p, AXE_ERR_SYNTAX, "stride is not congruent to the shape");
    }
    out->shape = *shape;
    memcpy(out->stride, st.v, (size_t)st.nleaf * sizeof(int64_t));
    for (int i = 0; i < st.nleaf; i++)
        if (st.v[i] == 0)
            out->basis[i] = 0;
    return AXE_OK;
}

static axe_status parse_layout(scanner *p, axe_cute_layout *out)
{
    axe_tuple shape;
    AXE_TRY(parse_tuple_kind(p, LEAF_SHAPE, &shape, NULL));
    return parse_stride(p, &shape, out);
}

static axe_status parse_swizzle(scanner *p, axe_swizzle *out)
{
    int64_t v[3];
    size_t at;
    p->pos++;
    if (peek_at(p, 0) == 'w')
        p->pos++;
    at = p->pos;
    AXE_TRY(expect(p, '<', "expected '<' after 'Sw'"));
    for (int i = 0; i < 3; i++) {
        size_t field;
        if (i > 0)
            AXE_TRY(expect(p, ',', "expected ',' in Sw<B,M,S>"));
        field = (skip_ws(p), p->pos);
        AXE_TRY(parse_int(p, &v[i]));
        if (v[i] < -63 || v[i] > 63) {
            p->pos = field;
            return fail(p, AXE_ERR_SYNTAX, "swizzle field out of range");
        }
    }
    AXE_TRY(expect(p, '>', "expected '>' after Sw<B,M,S"));
    if (axe_swizzle_make((int)v[0], (int)v[1], (int)v[2], out, p->diag) !=
        AXE_OK) {
        p->diag != NULL ? (void)(p->diag->offset = (long)at) : (void)0;
        return AXE_ERR_SYNTAX;
    }
    return AXE_OK;
}

/* A tiler capacity failure, reported at the element being added. */
static axe_status tiler_full(scanner *p, const char *what)
{
    p->pos = p->elem;
    return fail(p, AXE_ERR_CAPACITY, what);
}

static axe_status tiler_token(scanner *p, axe_cute_tiler *t, char c)
{
    if (t->ntok >= AXE_CUTE_TILER_MAX_TOKENS)
        return tiler_full(p, "tiler too long");
    t->tok[t->ntok++] = c;
    return AXE_OK;
}

static axe_status tiler_layout(scanner *p, axe_cute_tiler *t,
                               const axe_cute_layout *l)
{
    if (t->nelem >= AXE_CUTE_TILER_MAX)
        return tiler_full(p, "tiler has too many layouts");
    t->elem[t->nelem++] = *l;
    return tiler_token(p, t, 'L');
}

/* A shape inside a tiler: a scalar n is `n:1`, a tuple a nested tiler. */
static axe_status tiler_shape(scanner *p, axe_cute_tiler *t, const axe_tuple *s,
                              int *tok, int *leaf)
{
    if (s->tok[*tok] == 'x') {
        axe_cute_layout l;
        axe__cute_leaf(s->v[(*leaf)++], 1, &l);
        (*tok)++;
        return tiler_layout(p, t, &l);
    }
    AXE_TRY(tiler_token(p, t, '['));
    for ((*tok)++; s->tok[*tok] != ')';)
        AXE_TRY(tiler_shape(p, t, s, tok, leaf));
    (*tok)++;
    return tiler_token(p, t, ']');
}

static axe_status parse_tiler_body(scanner *p, axe_cute_tiler *t);

static axe_status parse_tiler_elem(scanner *p, axe_cute_tiler *t)
{
    int c = peek(p);
    axe_tuple shape;
    p->elem = p->pos;
    if (c == '<' || c == '[')
        return parse_tiler_body(p, t);
    if (is_underscore(p)) {
        p->pos++;
        return tiler_token(p, t, '_');
    }
    AXE_TRY(parse_tuple_kind(p, LEAF_SHAPE, &shape, NULL));
    if (peek(p) == ':') {
        axe_cute_layout l;
        AXE_TRY(parse_stride(p, &shape, &l));
        return tiler_layout(p, t, &l);
    }
    {
        int tok = 0, leaf = 0;
        return tiler_shape(p, t, &shape, &tok, &leaf);
    }
}

static axe_status parse_tiler_body(scanner *p, axe_cute_tiler *t)
{
    char open = (char)peek(p), close = open == '<' ? '>' : ']';
    char sep = open == '<' ? ',' : ';';
    size_t start = p->pos;
    if (++p->depth > AXE_TUPLE_MAX_DEPTH)
        return fail(p, AXE_ERR_CAPACITY, "tiler nested too deeply");
    p->pos++;
    p->elem = start;
    AXE_TRY(tiler_token(p, t, '['));
    if (peek(p) != close) {
        AXE_TRY(parse_tiler_elem(p, t));
        while (peek(p) == sep) {
            p->pos++;
            AXE_TRY(parse_tiler_elem(p, t));
        }
    }
    if (peek(p) != close)
        return fail(p, AXE_ERR_SYNTAX,
                    open == '<' ? "expected ',' or '>'"
                                : "expected ';' or ']'");
    p->pos++;
    p->depth--;
    p->elem = start;
    return tiler_token(p, t, ']');
}

static bool at_compose_op(scanner *p)
{
    int c = peek(p), n = peek_at(p, 1);
    return c == 'o' && (n == -1 || is_space(n));
}

static axe_status parse_composed_rest(scanner *p, axe_cute_object *o)
{
    axe_cute_composed *c = &o->composed;
    size_t at;
    p->pos++;
    at = (skip_ws(p), p->pos);
    AXE_TRY(parse_tuple_kind(p, LEAF_COORD, &c->offset, NULL));
    for (int i = 0; i < c->offset.nleaf; i++) {
        if (c->offset.v[i] == AXE_UNDERSCORE) {
            p->pos = at;
            return fail(p, AXE_ERR_SYNTAX, "'_' in a composed offset");
        }
    }
    if (!at_compose_op(p))
        return fail(p, AXE_ERR_SYNTAX, "expected 'o' after the offset");
    p->pos++;
    AXE_TRY(parse_layout(p, &c->inner));
    o->kind = AXE_CUTE_KIND_COMPOSED;
    return AXE_OK;
}

static axe_status parse_object(scanner *p, axe_cute_object *o)
{
    int c = peek(p);
    if (c == '<' || c == '[') {
        o->tiler.ntok = 0;
        o->tiler.nelem = 0;
        o->kind = AXE_CUTE_KIND_TILER;
        return parse_tiler_body(p, &o->tiler);
    }
    if (c == 'S') {
        AXE_TRY(parse_swizzle(p, &o->composed.swizzle));
        o->swizzle = o->composed.swizzle;
        o->kind = AXE_CUTE_KIND_SWIZZLE;
        o->composed.kind = AXE_CUTE_OUTER_SWIZZLE;
    } else {
        size_t at = (skip_ws(p), p->pos);
        AXE_TRY(parse_tuple_kind(p, LEAF_COORD, &o->tuple, NULL));
        o->kind = AXE_CUTE_KIND_TUPLE;
        if (peek(p) != ':')
            return AXE_OK;
        p->pos = at;
        AXE_TRY(parse_layout(p, &o->layout));
        o->kind = AXE_CUTE_KIND_LAYOUT;
        o->composed.outer = o->layout;
        o->composed.kind = AXE_CUTE_OUTER_LAYOUT;
    }
    return at_compose_op(p) ? parse_composed_rest(p, o) : AXE_OK;
}

static axe_status finish(scanner *p)
{
    if (peek(p) != -1)
        return fail(p, AXE_ERR_SYNTAX, "unexpected text after the end");
    return AXE_OK;
}

static void scanner_init(scanner *p, const char *text, size_t len,
                         axe_diag *diag)
{
    p->s = text;
    p->len = len;
    p->pos = 0;
    p->elem = 0;
    p->depth = 0;
    p->diag = diag;
}

axe_status axe_parse_cute(const char *text, size_t len, axe_cute_object *out,
                          axe_diag *diag)
{
    scanner p;
    axe_cute_object o;
    scanner_init(&p, text, len, diag);
    if (peek(&p) == -1)
        return fail(&p, AXE_ERR_SYNTAX, "empty input");
    AXE_TRY(parse_object(&p, &o));
    AXE_TRY(finish(&p));
    *out = o;
    return AXE_OK;
}

axe_status axe_parse_tuple(const char *text, size_t len, axe_tuple *out,
                           axe_diag *diag)
{
    scanner p;
    axe_tuple t;
    scanner_init(&p, text, len, diag);
    AXE_TRY(parse_tuple_kind(&p, LEAF_COORD, &t, NULL));
    AXE_TRY(finish(&p));
    *out = t;
    return AXE_OK;
}

axe_status axe_parse_cute_layout(const char *text, size_t len,
                                 axe_cute_layout *out, axe_diag *diag)
{
    scanner p;
    axe_cute_layout l;
    scanner_init(&p, text, len, diag);
    AXE_TRY(parse_layout(&p, &l));
    AXE_TRY(finish(&p));
    *out = l;
    return AXE_OK;
}
