/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared CuTe vectors (vectors/cute.jsonl) through `axe batch`: the
 * whole file is piped into one run of $AXE_BIN (vectors_runner.h), and
 * every answer is compared with the case's "expect" by its "cmp" rule
 * (vectors/README.md), implemented here against brute-force evaluation. An
 * UNSUPPORTED answer is a failure, not a skip; a case is skipped only when
 * it is listed in "skips" with a reason. Every failing case is printed with
 * its id, input, expectation and answer; then a pass/fail/skip table by op
 * and "N passed, N failed".
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cute_ops.h"
#include "json.h"
#include "testlib.h"
#include "vectors_runner.h"

#define MAX_DOMAIN (INT64_C(1) << 24)

/* Cases that may not run, each with the reason (none so far). */
static const vr_skip skips[] = {
    {NULL, NULL},
};

/* ---- evaluation ---------------------------------------------------------- */

/* The colex weight of basis "code" = E<k0,k1,...> in "shape": the sizes
 * of the modes before k0, before k1 inside mode k0, and so on. */
static int basis_weight(const axe_tuple *shape, uint32_t code, int64_t *out)
{
    axe_tuple t = *shape, m;
    int64_t w = 1, s;
    for (int lv = 0; lv < AXE_CUTE_BASIS_DEPTH(code); lv++) {
        int k = AXE_CUTE_BASIS_MODE(code, lv);
        if (k >= axe_tuple_rank(&t) || (axe_tuple_is_scalar(&t) && k > 0))
            return 0;
        for (int j = 0; j < k; j++)
            if (axe_tuple_get(&t, j, &m) != AXE_OK ||
                axe_tuple_size(&m, &s) != AXE_OK ||
                __builtin_mul_overflow(w, s, &w))
                return 0;
        if (axe_tuple_get(&t, k, &t) != AXE_OK)
            return 0;
    }
    *out = w;
    return 1;
}

/* The index of point "q" in the colex domain of "outer". */
static int point_index(const axe_cute_layout *outer, const axe_cute_point *q,
                       int64_t *out)
{
    int64_t idx = 0, w, t;
    for (int i = 0; i < q->n; i++) {
        if (!basis_weight(&outer->shape, q->basis[i], &w) ||
            __builtin_mul_overflow(w, q->v[i], &t) ||
            __builtin_add_overflow(idx, t, &idx))
            return 0;
    }
    *out = idx;
    return 1;
}

/* The oracle for composed layouts: outer(offset + inner(i)), a coordinate
 * offset taken as its colex index in outer's domain. */
static int composed_eval(const axe_cute_composed *c, int64_t i,
                         axe_cute_point *out)
{
    axe_cute_point q;
    int64_t off = c->offset.v[0], x;
    if (axe_cute_eval_point(&c->inner, i, &q) != AXE_OK)
        return 0;
    if (!axe_tuple_is_scalar(&c->offset) &&
        (c->kind != AXE_CUTE_OUTER_LAYOUT ||
         axe_tuple_crd2idx(&c->offset, &c->outer.shape, &off) != AXE_OK))
        return 0;
    if (c->kind == AXE_CUTE_OUTER_SWIZZLE) {
        if (q.n > 1 || (q.n == 1 && q.basis[0] != 0))
            return 0;
        x = off + (q.n == 1 ? q.v[0] : 0);
        out->n = 1;
        out->basis[0] = 0;
        out->v[0] = axe_swizzle_apply(&c->swizzle, x);
        out->n = out->v[0] != 0;
        return x >= 0;
    }
    if (!point_index(&c->outer, &q, &x) || x > INT64_MAX - off)
        return 0;
    return axe_cute_eval_point(&c->outer, off + x, out) == AXE_OK;
}

/* "o" at index "i": layouts, tuples (compact) and composed layouts. */
static int eval_object(const axe_cute_object *o, int64_t i, axe_cute_point *out)
{
    axe_cute_layout l;
    if (o->kind == AXE_CUTE_KIND_COMPOSED)
        return composed_eval(&o->composed, i, out);
    if (o->kind == AXE_CUTE_KIND_TUPLE) {
        if (axe_cute_make_col_major(&o->tuple, &l) != AXE_OK)
            return 0;
        return axe_cute_eval_point(&l, i, out) == AXE_OK;
    }
    if (o->kind != AXE_CUTE_KIND_LAYOUT)
        return 0;
    return axe_cute_eval_point(&o->layout, i, out) == AXE_OK;
}

/* The domain layout of "o" (inner layout of a composed layout). */
static int domain_of(const axe_cute_object *o, axe_cute_layout *out)
{
    if (o->kind == AXE_CUTE_KIND_COMPOSED) {
        *out = o->composed.inner;
        return 1;
    }
    if (o->kind == AXE_CUTE_KIND_TUPLE)
        return axe_cute_make_col_major(&o->tuple, out) == AXE_OK;
    if (o->kind != AXE_CUTE_KIND_LAYOUT)
        return 0;
    *out = o->layout;
    return 1;
}

static int size_of(const axe_cute_object *o, int64_t *n)
{
    axe_cute_layout l;
    return domain_of(o, &l) && axe_cute_size(&l, n) == AXE_OK &&
           *n <= MAX_DOMAIN;
}

/* ---- the cmp rules --------------------------------------------------------
 */

/* "different value at index i: got X, expected Y". */
static int fail_values(int64_t i, const axe_cute_point *got,
                       const axe_cute_point *want)
{
    json_buf g, w;
    json_buf_init(&g, NULL, NULL);
    json_buf_init(&w, NULL, NULL);
    cute_point_write(got, 0, &g);
    cute_point_write(want, 0, &w);
    vr_fail("different value at index %" PRId64 ": got %s, expected %s", i,
            json_buf_str(&g), json_buf_str(&w));
    json_buf_free(&g);
    json_buf_free(&w);
    return 0;
}

static int point_is_int(const axe_cute_point *p, int64_t *v)
{
    if (p->n > 1 || (p->n == 1 && p->basis[0] != 0))
        return 0;
    *v = p->n == 0 ? 0 : p->v[0];
    return 1;
}

/* got(i) == want(i) for i < n. */
static int same_values(const axe_cute_object *got, const axe_cute_object *want,
                       int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point pg, pw;
        if (!eval_object(got, i, &pg))
            return vr_fail("cannot evaluate the answer at %" PRId64, i);
        if (!eval_object(want, i, &pw))
            return vr_fail("cannot evaluate the expectation at %" PRId64, i);
        if (!axe_cute_point_equal(&pg, &pw))
            return fail_values(i, &pg, &pw);
    }
    return 1;
}

static int cmp_function(const axe_cute_object *got, const axe_cute_object *want,
                        int prefix)
{
    int64_t ng, nw;
    if (!size_of(want, &nw))
        return vr_fail("the expectation has no evaluable domain");
    if (!prefix && (!size_of(got, &ng) || ng != nw))
        return vr_fail("different size");
    return same_values(got, want, nw);
}

/* The shape profiles agree, ignoring rank-1 wrappers and size-1 leaves. */
static int same_profile(const axe_tuple *a, const axe_tuple *b)
{
    char ta[AXE_TUPLE_MAX_TOKENS], tb[AXE_TUPLE_MAX_TOKENS];
    int64_t va[AXE_TUPLE_MAX_LEAVES], vb[AXE_TUPLE_MAX_LEAVES];
    int na, nb, la, lb;
    tl_loose_profile(a, ta, &na, va, &la);
    tl_loose_profile(b, tb, &nb, vb, &lb);
    return na == nb && la == lb && memcmp(ta, tb, (size_t)na) == 0 &&
           memcmp(va, vb, (size_t)la * sizeof(int64_t)) == 0;
}

/* cmp "layout" on one layout or composed layout. */
static int cmp_layout_object(const axe_cute_object *got,
                             const axe_cute_object *want)
{
    axe_cute_layout lg, lw;
    if ((got->kind == AXE_CUTE_KIND_COMPOSED) !=
        (want->kind == AXE_CUTE_KIND_COMPOSED))
        return vr_fail("one is a composed layout, the other is not");
    if (!domain_of(got, &lg) || !domain_of(want, &lw))
        return vr_fail("not a layout");
    if (!same_profile(&lg.shape, &lw.shape))
        return vr_fail("different shape profile");
    return cmp_function(got, want, 0);
}

static int cmp_tiler(const axe_cute_tiler *got, const axe_cute_tiler *want)
{
    if (got->ntok != want->ntok || got->nelem != want->nelem ||
        memcmp(got->tok, want->tok, got->ntok) != 0)
        return vr_fail("different tiler structure");
    for (int i = 0; i < got->nelem; i++) {
        axe_cute_object g, w;
        g.kind = w.kind = AXE_CUTE_KIND_LAYOUT;
        g.layout = got->elem[i];
        w.layout = want->elem[i];
        if (!cmp_layout_object(&g, &w))
            return 0;
    }
    return 1;
}

static int cmp_layout(const axe_cute_object *got, const axe_cute_object *want)
{
    if (want->kind == AXE_CUTE_KIND_TILER || got->kind == AXE_CUTE_KIND_TILER) {
        if (got->kind != want->kind)
            return vr_fail("one is a tiler, the other is not");
        return cmp_tiler(&got->tiler, &want->tiler);
    }
    return cmp_layout_object(got, want);
}

/* Integer value of "o" at "i", or 0 when it is no integer. */
static int eval_int(const axe_cute_object *o, int64_t i, int64_t *v)
{
    axe_cute_point p;
    return eval_object(o, i, &p) && point_is_int(&p, v);
}

/* cmp "right_inverse": size(R) == size(expected) and a(R(k)) == k. */
static int cmp_right_inverse(const axe_cute_object *a,
                             const axe_cute_object *got,
                             const axe_cute_object *want)
{
    int64_t ng, nw, r, y;
    if (!size_of(got, &ng) || !size_of(want, &nw) || ng != nw)
        return vr_fail("different size");
    for (int64_t k = 0; k < ng; k++) {
        if (!eval_int(got, k, &r) || r < 0 || !eval_int(a, r, &y))
            return vr_fail("cannot evaluate a(R(%" PRId64 "))", k);
        if (y != k)
            return vr_fail("a(R(%" PRId64 ")) = %" PRId64, k, y);
    }
    return 1;
}

/* cmp "left_inverse": a(R(a(k))) == a(k) for every k of a's domain. */
static int cmp_left_inverse(const axe_cute_object *a,
                            const axe_cute_object *got)
{
    int64_t n, y, r, z;
    if (!size_of(a, &n))
        return vr_fail("\"a\" has no evaluable domain");
    for (int64_t k = 0; k < n; k++) {
        if (!eval_int(a, k, &y) || y < 0 || !eval_int(got, y, &r) || r < 0 ||
            !eval_int(a, r, &z))
            return vr_fail("cannot evaluate a(R(a(%" PRId64 ")))", k);
        if (z != y)
            return vr_fail("a(R(a(%" PRId64 "))) = %" PRId64 " != %" PRId64, k,
                           z, y);
    }
    return 1;
}

/* r(i) == a(b(i)) for i < size(b), all three plain functions. */
static int composes(const axe_cute_object *r, const axe_cute_object *a,
                    const axe_cute_object *b)
{
    int64_t n, x;
    axe_cute_point pr, pa;
    if (!size_of(b, &n))
        return vr_fail("\"b\" has no evaluable domain");
    for (int64_t i = 0; i < n; i++) {
        if (!eval_int(b, i, &x) || x < 0 || !eval_object(a, x, &pa) ||
            !eval_object(r, i, &pr))
            return vr_fail("cannot evaluate at %" PRId64, i);
        if (!axe_cute_point_equal(&pr, &pa))
            return vr_fail("R(%" PRId64 ") != a(b(%" PRId64 "))", i, i);
    }
    return 1;
}

static void as_layout(axe_cute_object *o, const axe_cute_layout *l)
{
    o->kind = AXE_CUTE_KIND_LAYOUT;
    o->layout = *l;
}

/* Mode "m" of a flat tiler or shape "b": 1 a layout in "out", 0 the mode
 * is kept (`_` or past the end), -1 cannot tell (nested). */
static int tiler_mode(const axe_cute_object *b, int m, axe_cute_layout *out)
{
    int e = 0;
    if (b->kind == AXE_CUTE_KIND_TUPLE) {
        axe_tuple t;
        if (m >= axe_tuple_rank(&b->tuple))
            return 0;
        if (axe_tuple_get(&b->tuple, m, &t) != AXE_OK ||
            !axe_tuple_is_scalar(&t))
            return -1;
        if (t.v[0] == AXE_UNDERSCORE)
            return 0;
        return axe_cute_make_col_major(&t, out) == AXE_OK ? 1 : -1;
    }
    if (m + 2 >= b->tiler.ntok || b->tiler.tok[m + 1] == '_')
        return 0;
    if (b->tiler.tok[m + 1] != 'L')
        return -1;
    for (int k = 1; k < m + 1; k++)
        e += b->tiler.tok[k] == 'L';
    *out = b->tiler.elem[e];
    return 1;
}

/* The number of top-level modes of a tiler or shape "b". */
static int top_rank(const axe_cute_object *b)
{
    int depth = 0, n = 0;
    if (b->kind == AXE_CUTE_KIND_TUPLE)
        return axe_tuple_rank(&b->tuple);
    for (int k = 0; k < b->tiler.ntok; k++) {
        char c = b->tiler.tok[k];
        n += depth == 1 && c != ']';
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    }
    return n;
}

/* By-mode composition with a flat tiler: R_m = a_m o b_m, and R_m = a_m
 * where b keeps the mode. */
static int composes_by_mode(const axe_cute_object *r, const axe_cute_object *a,
                            const axe_cute_object *b)
{
    int rank = axe_cute_rank(&a->layout);
    if (r->kind != AXE_CUTE_KIND_LAYOUT || a->kind != AXE_CUTE_KIND_LAYOUT ||
        axe_cute_rank(&r->layout) != rank)
        return vr_fail("cannot verify this composition by mode");
    if (top_rank(b) > rank)
        return vr_fail("the tiler has more modes than \"a\"");
    for (int m = 0; m < rank; m++) {
        axe_cute_layout rm, am, bm;
        axe_cute_object ro, ao, bo;
        int64_t n;
        int kind = tiler_mode(b, m, &bm);
        if (kind < 0 || axe_cute_get(&r->layout, m, &rm) != AXE_OK ||
            axe_cute_get(&a->layout, m, &am) != AXE_OK ||
            axe_cute_size(&am, &n) != AXE_OK)
            return vr_fail("cannot verify mode %d by brute force", m);
        if (kind == 0) {
            axe_tuple_scalar(n, &bm.shape);
            bm.stride[0] = 1;
            bm.basis[0] = 0;
        }
        as_layout(&ro, &rm);
        as_layout(&ao, &am);
        as_layout(&bo, &bm);
        if (!composes(&ro, &ao, &bo))
            return 0;
    }
    return 1;
}

/* ---- cases ----------------------------------------------------------------
 */

/* Parse the JSON string "v" as a CuTe object. */
static int parse_object(const json_value *v, axe_cute_object *out)
{
    size_t len;
    const char *s = json_get_string(v, &len);
    axe_diag d;
    if (json_is_int(v)) {
        int64_t n;
        out->kind = AXE_CUTE_KIND_TUPLE;
        axe_tuple_scalar(json_get_int(v, &n) == JSON_OK ? n : 0, &out->tuple);
        return 1;
    }
    return s != NULL && axe_parse_cute(s, len, out, &d) == AXE_OK;
}

/* An error case: rejected, or a composition verified by brute force. */
static int judge_error(const json_value *c, const json_value *ans, int ok)
{
    static axe_cute_object a, b, r;
    const json_value *args = json_object_get(c, "args");
    const char *op = json_get_string(json_object_get(c, "op"), NULL);
    if (!ok)
        return 1;
    if (op == NULL || strcmp(op, "cute.composition") != 0)
        return vr_fail("accepted a request that must be rejected");
    if (!parse_object(json_object_get(args, "a"), &a) ||
        !parse_object(json_object_get(args, "b"), &b) ||
        !parse_object(json_object_get(ans, "result"), &r))
        return vr_fail("accepted, and the answer does not parse");
    if (b.kind == AXE_CUTE_KIND_LAYOUT ||
        (b.kind == AXE_CUTE_KIND_TUPLE && axe_tuple_is_scalar(&b.tuple)))
        return composes(&r, &a, &b);
    if (b.kind == AXE_CUTE_KIND_TUPLE || b.kind == AXE_CUTE_KIND_TILER)
        return composes_by_mode(&r, &a, &b);
    return vr_fail("accepted, and cannot be verified");
}

/* Equal strings when spaces are ignored. */
static int same_text(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ')
            a++;
        while (*b == ' ')
            b++;
        if (*a != *b)
            return 0;
        if (*a == '\0')
            return 1;
        a++;
        b++;
    }
}

/* cmp rules whose operands are CuTe objects. */
static int judge_objects(const char *cmp, const json_value *c,
                         const json_value *got, const json_value *want)
{
    static axe_cute_object g, w, a;
    const json_value *args = json_object_get(c, "args");
    if (!parse_object(got, &g))
        return vr_fail("the answer does not parse");
    if (!parse_object(want, &w))
        return vr_fail("the expectation does not parse");
    if (strcmp(cmp, "layout") == 0)
        return cmp_layout(&g, &w);
    if (strcmp(cmp, "function") == 0 || strcmp(cmp, "function_prefix") == 0)
        return cmp_function(&g, &w, cmp[8] == '_');
    if (!parse_object(json_object_get(args, "a"), &a))
        return vr_fail("args.a does not parse");
    if (strcmp(cmp, "right_inverse") == 0)
        return cmp_right_inverse(&a, &g, &w);
    if (strcmp(cmp, "left_inverse") == 0)
        return cmp_left_inverse(&a, &g);
    return vr_fail("unknown cmp \"%s\"", cmp);
}

/* Whether answer "ans" satisfies case "c". */
static int judge(const json_value *c, const json_value *ans)
{
    const char *cmp = json_get_string(json_object_get(c, "cmp"), NULL);
    const json_value *got = json_object_get(ans, "result");
    const json_value *want = json_object_get(c, "expect");
    const json_value *exp_err = json_object_get(c, "expect_error");
    int ok = 0, want_err = 0;
    if (json_get_bool(json_object_get(ans, "ok"), &ok) != JSON_OK)
        return vr_fail("the answer has no \"ok\"");
    if (exp_err != NULL && json_get_bool(exp_err, &want_err) != JSON_OK)
        return vr_fail("bad expect_error");
    if (cmp == NULL)
        return vr_fail("the case has no cmp");
    if (want_err || strcmp(cmp, "error") == 0)
        return judge_error(c, ans, ok);
    if (!ok)
        return vr_fail("rejected");
    if (strcmp(cmp, "int") == 0 || strcmp(cmp, "json") == 0)
        return json_equal(got, want) ? 1 : vr_fail("different value");
    if (strcmp(cmp, "exact") == 0) {
        const char *sg = json_get_string(got, NULL);
        const char *sw = json_get_string(want, NULL);
        return sg != NULL && sw != NULL && same_text(sg, sw)
                   ? 1
                   : vr_fail("different text");
    }
    return judge_objects(cmp, c, got, want);
}

int main(void) { return vr_main("test_vectors", "cute.jsonl", judge, skips); }
