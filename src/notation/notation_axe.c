/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parser and canonical printer of Axe layouts (docs/notation.md):
 *   layout := tile | `Swizzle<M,B,S` [`,outer` | `,inner`] `>(` tile `)`
 *   tile   := term (('+' | '-') term)*  (one S term, at most one R term)
 *   term   := `S[` iters `]` | `R[` iters `]` | int [`@` axis]
 *   iters  := `():()` | `(` ext,... `)` [`:(` stride,... `)`]
 *           | ext [`:` stride] | ext `,` ext,...
 *   stride := int [`@` axis]
 * Whitespace may separate any two tokens (`S [`, `4 @ laneid`).
 * Extents-only lists get row-major strides on `m`; a stride or offset
 * without `@` is on `m`; repeated offsets on one axis add; `- t` negates an
 * offset term. The printer writes `S[e:s@a]` for one iter, `S[(e,..):(s,..)]`
 * for several, `S[():()]` for none, ` + R[...]` when there are replicas,
 * then every stored offset as ` + v@a` (` + v` on m, ` + -3@a` negative), so
 * print(parse(s)) == s for every canonical s. Every failure carries the
 * byte offset of the offending token.
 */
#include "layout_internal.h"
#include "notation_internal.h"

typedef struct scan {
    const char *s;
    size_t len;
    size_t pos;
    axe_diag *diag;
    bool has_shard;
    bool has_replica;
} scan;

static axe_status fail_at(scan *p, size_t at, axe_status st, const char *what)
{
    return axe__fail(p->diag, st, (long)at, "%s", what);
}

static axe_status fail(scan *p, axe_status st, const char *what)
{
    return fail_at(p, p->pos, st, what);
}

static int peek(scan *p)
{
    while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' ||
                               p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
        p->pos++;
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static int peek_at(const scan *p, size_t k)
{
    return p->pos + k < p->len ? (unsigned char)p->s[p->pos + k] : -1;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

static bool eat(scan *p, char c)
{
    if (peek(p) != c)
        return false;
    p->pos++;
    return true;
}

static axe_status expect(scan *p, char c, const char *what)
{
    return eat(p, c) ? AXE_OK : fail(p, AXE_ERR_SYNTAX, what);
}

/* [-]digits into "out"; OVERFLOW beyond int64. */
static axe_status parse_int(scan *p, bool allow_sign, int64_t *out)
{
    size_t at = (peek(p), p->pos);
    bool neg = allow_sign && peek_at(p, 0) == '-';
    int64_t v = 0;
    if (neg)
        p->pos++;
    if (!is_digit(peek_at(p, 0)))
        return fail(p, AXE_ERR_SYNTAX, "expected an integer");
    while (is_digit(peek_at(p, 0))) {
        int d = p->s[p->pos++] - '0';
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_sub_overflow(v, d, &v) || (!neg && v == INT64_MIN))
            return fail_at(p, at, AXE_ERR_OVERFLOW,
                           "integer out of range (|n| must be < 2^63)");
    }
    *out = neg ? v : -v;
    return AXE_OK;
}

/* An extent: an integer >= 1. */
static axe_status parse_extent(scan *p, int64_t *out)
{
    size_t at = (peek(p), p->pos);
    AXE_TRY(parse_int(p, false, out));
    if (*out < 1)
        return fail_at(p, at, AXE_ERR_SYNTAX, "an extent must be >= 1");
    return AXE_OK;
}

/* [`@` axis] after a value: the padded axis name (m when absent). */
static axe_status parse_axis(scan *p, char *axis)
{
    size_t start, n = 0;
    axe__axis_copy(axis, axe__name_m.s);
    if (peek(p) != '@')
        return AXE_OK;
    p->pos++;
    start = (peek(p), p->pos);
    while (p->pos < p->len && axe__axis_name_valid(p->s + p->pos, 1))
        p->pos++, n++;
    if (n == 0)
        return fail(p, AXE_ERR_SYNTAX, "expected an axis name after '@'");
    if (n >= AXE_AXIS_NAME_MAX)
        return fail_at(p, start, AXE_ERR_SYNTAX,
                       "axis names are at most 15 bytes");
    memset(axis, 0, AXE_AXIS_NAME_MAX);
    memcpy(axis, p->s + start, n);
    return AXE_OK;
}

/* A list of iters being read: extents first, strides after ':'. */
typedef struct iter_list {
    int n;
    int64_t extent[AXE_LAYOUT_MAX_SHARD];
    int64_t stride[AXE_LAYOUT_MAX_SHARD];
    char axis[AXE_LAYOUT_MAX_SHARD][AXE_AXIS_NAME_MAX];
} iter_list;

static axe_status add_extent(scan *p, iter_list *it)
{
    size_t at = (peek(p), p->pos);
    if (it->n >= AXE_LAYOUT_MAX_SHARD)
        return fail_at(p, at, AXE_ERR_CAPACITY, "too many iters");
    return parse_extent(p, &it->extent[it->n++]);
}

/* The strides `s@a, ...` of the "it->n" extents read before. */
static axe_status parse_strides(scan *p, iter_list *it, bool paren)
{
    for (int k = 0; k < it->n; k++) {
        if (k > 0)
            AXE_TRY(expect(p, ',',
                           "expected ',' and another stride "
                           "(one stride per extent)"));
        AXE_TRY(parse_int(p, true, &it->stride[k]));
        AXE_TRY(parse_axis(p, it->axis[k]));
    }
    if (paren)
        AXE_TRY(expect(p, ')',
                       it->n == 0 ? "expected ')': an empty extent "
                                    "list has no strides"
                                  : "expected ')' after as many "
                                    "strides as extents"));
    return AXE_OK;
}

/* Row-major strides on m for an extents-only list. */
static axe_status default_strides(scan *p, iter_list *it, size_t at)
{
    int64_t stride = 1;
    for (int k = it->n - 1; k >= 0; k--) {
        it->stride[k] = stride;
        axe__axis_copy(it->axis[k], axe__name_m.s);
        if (axe__mul(stride, it->extent[k], &stride) != AXE_OK)
            return fail_at(p, at, AXE_ERR_OVERFLOW,
                           "row-major strides overflow");
    }
    return AXE_OK;
}

/* `(e,...)` [`:(s,...)`] */
static axe_status parse_paren_iters(scan *p, iter_list *it, size_t at)
{
    p->pos++;
    if (peek(p) != ')') {
        AXE_TRY(add_extent(p, it));
        while (eat(p, ','))
            AXE_TRY(add_extent(p, it));
    }
    AXE_TRY(expect(p, ')', "expected ',' or ')' in the extent list"));
    if (!eat(p, ':')) {
        if (it->n == 0)
            return fail(p, AXE_ERR_SYNTAX, "expected ':()' after '()'");
        return default_strides(p, it, at);
    }
    AXE_TRY(expect(p, '(', "expected '(' before the strides"));
    return parse_strides(p, it, true);
}

/* The inside of `S[...]` / `R[...]`. */
static axe_status parse_iters(scan *p, iter_list *it)
{
    size_t at = (peek(p), p->pos);
    it->n = 0;
    if (peek(p) == '(')
        return parse_paren_iters(p, it, at);
    AXE_TRY(add_extent(p, it));
    if (eat(p, ':'))
        return parse_strides(p, it, false);
    while (eat(p, ','))
        AXE_TRY(add_extent(p, it));
    return default_strides(p, it, at);
}

static axe_status store_iters(scan *p, const iter_list *it, bool shard,
                              axe_layout *l, size_t at)
{
    for (int k = 0; k < it->n; k++) {
        axe_status st =
            shard ? axe__iter_push(l->shard, &l->nshard, AXE_LAYOUT_MAX_SHARD,
                                   it->extent[k], it->stride[k], it->axis[k])
                  : axe__iter_push(l->replica, &l->nreplica,
                                   AXE_LAYOUT_MAX_REPLICA, it->extent[k],
                                   it->stride[k], it->axis[k]);
        if (st != AXE_OK)
            return fail_at(p, at, st,
                           shard ? "too many shard iters (at most 32)"
                                 : "too many replica iters (at most 8)");
    }
    return AXE_OK;
}

/* `S[...]` or `R[...]` (the letter at the current position), at most once
 * each. */
static axe_status parse_iter_term(scan *p, axe_layout *l, bool negated)
{
    size_t at = p->pos;
    bool shard = p->s[p->pos] == 'S';
    bool *seen = shard ? &p->has_shard : &p->has_replica;
    iter_list it;
    if (negated)
        return fail_at(p, at, AXE_ERR_SYNTAX, "only an offset can follow '-'");
    if (*seen)
        return fail_at(p, at, AXE_ERR_SYNTAX,
                       shard ? "a layout has one shard S[...]"
                             : "a layout has at most one replica R[...]");
    *seen = true;
    p->pos++;
    AXE_TRY(expect(p, '[', "expected '['"));
    AXE_TRY(parse_iters(p, &it));
    AXE_TRY(expect(p, ']', "expected ']'"));
    return store_iters(p, &it, shard, l, at);
}

/* An offset term `v` or `v@axis`, negated after '-'. */
static axe_status parse_offset(scan *p, axe_layout *l, bool negated)
{
    size_t at = p->pos;
    char axis[AXE_AXIS_NAME_MAX];
    int64_t v;
    axe_status st;
    if (!is_digit(peek_at(p, 0)) &&
        !(peek_at(p, 0) == '-' && is_digit(peek_at(p, 1))))
        return fail(p, AXE_ERR_SYNTAX,
                    "expected S[...], R[...] or an offset like 5@warpid");
    AXE_TRY(parse_int(p, true, &v));
    AXE_TRY(parse_axis(p, axis));
    if (negated && axe__sub(0, v, &v) != AXE_OK)
        return fail_at(p, at, AXE_ERR_OVERFLOW, "offset out of range");
    st = axe__layout_offset_add(l, axis, v);
    if (st == AXE_ERR_CAPACITY)
        return fail_at(p, at, st, "offsets on more than 8 axes");
    if (st != AXE_OK)
        return fail_at(p, at, st, "offsets on this axis overflow");
    return AXE_OK;
}

static bool at_word(scan *p, const char *w)
{
    size_t n = strlen(w);
    return peek(p) >= 0 && p->len - p->pos >= n &&
           memcmp(p->s + p->pos, w, n) == 0;
}

static axe_status parse_term(scan *p, axe_layout *l, bool negated)
{
    int c = peek(p);
    if (at_word(p, "Swizzle"))
        return fail(p, AXE_ERR_SYNTAX,
                    "Swizzle<M,B,S>(...) can only wrap the whole layout");
    if (c == 'S' || c == 'R')
        return parse_iter_term(p, l, negated);
    return parse_offset(p, l, negated);
}

/* term (('+' | '-') term)* with one S term. */
static axe_status parse_tile(scan *p, axe_layout *l)
{
    size_t start = (peek(p), p->pos);
    AXE_TRY(parse_term(p, l, false));
    for (;;) {
        int c = peek(p);
        if (c != '+' && c != '-')
            break;
        p->pos++;
        AXE_TRY(parse_term(p, l, c == '-'));
    }
    if (!p->has_shard)
        return fail_at(p, start, AXE_ERR_SYNTAX,
                       "a layout needs a shard S[...]");
    return AXE_OK;
}

/* A swizzle parameter: an integer in [0, 62]. */
static axe_status parse_param(scan *p, int32_t *out)
{
    size_t at = (peek(p), p->pos);
    int64_t v;
    AXE_TRY(parse_int(p, true, &v));
    if (v < 0 || v > 62)
        return fail_at(p, at, AXE_ERR_INVALID,
                       "The compose layout is not well-formed: swizzle "
                       "parameters are in [0, 62]");
    *out = (int32_t)v;
    return AXE_OK;
}

/* `<M,B,S[,outer|inner]>` */
static axe_status parse_swizzle_params(scan *p, axe_layout_swizzle *sw)
{
    size_t at = p->pos;
    AXE_TRY(expect(p, '<', "expected '<' after Swizzle"));
    AXE_TRY(parse_param(p, &sw->per_element));
    AXE_TRY(expect(p, ',', "expected ',' after M"));
    AXE_TRY(parse_param(p, &sw->len));
    AXE_TRY(expect(p, ',', "expected ',' after B"));
    AXE_TRY(parse_param(p, &sw->atom));
    sw->present = true;
    sw->inner = true;
    if (eat(p, ',')) {
        if (at_word(p, "outer"))
            sw->inner = false;
        else if (!at_word(p, "inner"))
            return fail(p, AXE_ERR_SYNTAX, "expected 'outer' or 'inner'");
        p->pos += 5;
    }
    AXE_TRY(expect(p, '>', "expected '>' after the swizzle parameters"));
    if (!axe__swizzle_ok(sw))
        return fail_at(p, at, AXE_ERR_INVALID,
                       "The compose layout is not well-formed: need S >= B "
                       "and S + B <= 62");
    return AXE_OK;
}

static axe_status parse_layout(scan *p, axe_layout *l)
{
    if (at_word(p, "Swizzle")) {
        p->pos += 7;
        AXE_TRY(parse_swizzle_params(p, &l->swizzle));
        AXE_TRY(expect(p, '(', "expected '(' before the swizzled layout"));
        AXE_TRY(parse_tile(p, l));
        AXE_TRY(expect(p, ')', "expected ')' after the swizzled layout"));
    } else {
        AXE_TRY(parse_tile(p, l));
    }
    if (peek(p) != -1)
        return fail(p, AXE_ERR_SYNTAX, "unexpected text after the layout");
    return AXE_OK;
}

axe_status axe_parse_layout(const char *text, size_t len, axe_layout *out,
                            axe_diag *diag)
{
    scan p = {text, len, 0, diag, false, false};
    axe_layout l;
    if (text == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "no text or no output");
    axe_layout_init(&l);
    AXE_TRY(parse_layout(&p, &l));
    *out = l;
    return AXE_OK;
}

static void put_axis(axe__writer *w, const char *axis)
{
    char name[AXE_AXIS_NAME_MAX + 1];
    if (axe__axis_eq(axis, axe__name_m.s))
        return;
    memcpy(name, axis, AXE_AXIS_NAME_MAX);
    name[AXE_AXIS_NAME_MAX] = '\0';
    axe__put(w, "@");
    axe__put(w, name);
}

/* `e:s@a`, `(e,...):(s@a,...)` or `():()`. */
static void put_iters(axe__writer *w, const axe_iter *it, int n)
{
    if (n == 1) {
        axe__put_int(w, it[0].extent);
        axe__put(w, ":");
        axe__put_int(w, it[0].stride);
        put_axis(w, it[0].axis);
        return;
    }
    axe__put(w, "(");
    for (int k = 0; k < n; k++) {
        axe__put(w, k > 0 ? "," : "");
        axe__put_int(w, it[k].extent);
    }
    axe__put(w, "):(");
    for (int k = 0; k < n; k++) {
        axe__put(w, k > 0 ? "," : "");
        axe__put_int(w, it[k].stride);
        put_axis(w, it[k].axis);
    }
    axe__put(w, ")");
}

static void put_tile(axe__writer *w, const axe_layout *l)
{
    axe__put(w, "S[");
    put_iters(w, l->shard, l->nshard);
    axe__put(w, "]");
    if (l->nreplica > 0) {
        axe__put(w, " + R[");
        put_iters(w, l->replica, l->nreplica);
        axe__put(w, "]");
    }
    for (int i = 0; i < l->noffset; i++) {
        axe__put(w, " + ");
        axe__put_int(w, l->offset[i].value);
        put_axis(w, l->offset[i].axis);
    }
}

size_t axe_print_layout(const axe_layout *l, char *buf, size_t cap)
{
    axe__writer w;
    const axe_layout_swizzle *sw = &l->swizzle;
    axe__writer_init(&w, buf, cap);
    if (sw->present) {
        axe__put(&w, "Swizzle<");
        axe__put_int(&w, sw->per_element);
        axe__put(&w, ",");
        axe__put_int(&w, sw->len);
        axe__put(&w, ",");
        axe__put_int(&w, sw->atom);
        axe__put(&w, sw->inner ? ">(" : ",outer>(");
    }
    put_tile(&w, l);
    if (sw->present)
        axe__put(&w, ")");
    return axe__writer_end(&w);
}

size_t axe_print_point(const axe_point *p, char *buf, size_t cap)
{
    axe__writer w;
    char name[AXE_AXIS_NAME_MAX + 1];
    axe__writer_init(&w, buf, cap);
    axe__put(&w, "{");
    for (int i = 0; i < p->n; i++) {
        memcpy(name, p->axis[i], AXE_AXIS_NAME_MAX);
        name[AXE_AXIS_NAME_MAX] = '\0';
        axe__put(&w, i > 0 ? ", " : "");
        axe__put(&w, name);
        axe__put(&w, ": ");
        axe__put_int(&w, p->v[i]);
    }
    axe__put(&w, "}");
    return axe__writer_end(&w);
}
