/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of slicing, dicing, recasting, composed layouts and the max common
 * vector: every shared vector case of cute.slice, cute.dice,
 * cute.recast_layout, cute.size, cute.cosize, cute.flatten and cute.eval as
 * a table row compared by its `cmp` rule, hand-written rows, and laws
 * checked by brute-force evaluation on seeded random inputs. Invariant:
 * every law is stated in the notation above its checker and names the
 * defining equation it checks (docs/algebra.md).
 */
#include "core_internal.h"
#include "testlib.h"

/* A shared vector case: "mode" is a get<> path ("1,0,1"), "n0"/"n1" the
 * integer arguments, "expect" NULL when the input must be rejected. */
typedef struct vrow {
    const char *id, *op, *a, *b, *mode;
    int64_t n0, n1;
    const char *expect, *cmp;
} vrow;

/* From ../shared/vectors/cute.jsonl. */
static const vrow vectors[] = {
    {"cuteir-cosize-00581132", "cosize",
     "S<3,4,6> o 0 o ((4,3),((3,(2,2)),2)):((1,4),((12,(36,72)),144))", NULL,
     NULL, 0, 0, "288", "int"},
    {"cuteir-cosize-029ada60", "cosize",
     "(1,(2,(3,(4,2,1)))):(4,(3,(2,(1,4,8))))", NULL, "1,1,1", 0, 0, "8",
     "int"},
    {"cuteir-cosize-0b59e780", "cosize",
     "S<3,4,6> o 0 o ((4,3),((3,(2,2)),2)):((1,4),((12,(36,72)),144))", NULL,
     "1,0,1", 0, 0, "109", "int"},
    {"cuteir-cosize-1bfff207", "cosize",
     "((4,3),((3,(2,2)),2)):((1,4),((12,(36,72)),144))", NULL, "1,0,1", 0, 0,
     "109", "int"},
    {"cuteir-cosize-1fed076e", "cosize", "(1,(2,(3,4))):(4,(3,(2,1)))", NULL,
     "0", 0, 0, "1", "int"},
    {"cuteir-cosize-2cfd1fa5", "cosize", "(4,3,2):(1,4,12)", NULL, "1", 0, 0,
     "9", "int"},
    {"cuteir-cosize-40dfca04", "cosize", "(4,3,2):(1,4,12)", NULL, "3", 0, 0,
     NULL, "error"},
    {"cuteir-cosize-42457555", "cosize",
     "((4,3),((3,(2,2)),2)):((1,4),((12,(36,72)),144))", NULL, NULL, 0, 0,
     "288", "int"},
    {"cuteir-cosize-5c637105", "cosize", "4:1", NULL, "0", 0, 0, "4", "int"},
    {"cuteir-cosize-66651745", "cosize", "S<3,4,6> o 0 o (3,4):(4,1)", NULL,
     NULL, 0, 0, "12", "int"},
    {"cuteir-cosize-8f902d80", "cosize", "(4,(3,2)):(1,(4,12))", NULL, "1,-1",
     0, 0, NULL, "error"},
    {"cuteir-cosize-91dc450d", "cosize", "(1,(2,(3,4))):(4,(3,(2,1)))", NULL,
     "1,1,0", 0, 0, "5", "int"},
    {"cuteir-cosize-c7af9755", "cosize", "(2,3):(1@0,1@1)", NULL, NULL, 0, 0,
     "6", "int"},
    {"cuteir-cosize-d44d29c0", "cosize", "(4,3,2):(1,4,12)", NULL, "-1", 0, 0,
     NULL, "error"},
    {"cuteir-cosize-dfa20d6a", "cosize", "(4,3,2):(1,4,12)", NULL, "1,0,0", 0,
     0, NULL, "error"},
    {"cuteir-dice-0ab73f09", "dice", "((2,4),3):((1,2),8)", "((1,_),_)", NULL,
     0, 0, "(2):(1)", "layout"},
    {"cuteir-dice-3027417b", "dice", "(2,3,4):(1,2,6)", "1", NULL, 0, 0,
     "(2,3,4):(1,2,6)", "layout"},
    {"cuteir-dice-4c3c8051", "dice", "S<3,5,4>", "(0,_)", NULL, 0, 0, NULL,
     "error"},
    {"cuteir-dice-606ffdd4", "dice", "((2,4),3):((1,2),8)", "(1,_)", NULL, 0, 0,
     "((2,4)):((1,2))", "layout"},
    {"cuteir-dice-beefc4d7", "dice", "(2,3,4)", "(1,_,_)", NULL, 0, 0, "(2)",
     "exact"},
    {"cuteir-dice-c4063ef5", "dice", "(1,8,16)", "(_,1,_)", NULL, 0, 0, "(8)",
     "exact"},
    {"cuteir-dice-d2e2f209", "dice", "((2,4),3):((1,2),8)", "(_,1)", NULL, 0, 0,
     "(3):(8)", "layout"},
    {"cuteir-dice-d65ed0ae", "dice", "(8,4):(1,8)", "(1,_,1)", NULL, 0, 0, NULL,
     "error"},
    {"cuteir-dice-e21f6a3f", "dice", "(2,3,4):(1,2,6)", "(_,1,_)", NULL, 0, 0,
     "(3):(2)", "layout"},
    {"cuteir-flatten-224a348f", "flatten", "S<3,5,4> o 0 o (3,(4,5)):(8,(1,4))",
     NULL, NULL, 0, 0, "S<3,5,4> o 0 o (3,4,5):(8,1,4)", "layout"},
    {"cuteir-flatten-4adf952e", "flatten", "(1,(_,3))", NULL, NULL, 0, 0,
     "(1,_,3)", "exact"},
    {"cuteir-flatten-6016356a", "flatten", "[[(8):(1);(4):(1)];_;(2):(1)]",
     NULL, NULL, 0, 0, "[(8):(1);(4):(1);_;(2):(1)]", "layout"},
    {"cuteir-flatten-67c1403f", "flatten", "(2,(3,(4,5))):(1,(2,(6,24)))", NULL,
     NULL, 0, 0, "(2,3,4,5):(1,2,6,24)", "layout"},
    {"cuteir-flatten-9bb32de2", "flatten",
     "(4,5):(1,4) o 2 o (3,(4,5)):(8,(1,4))", NULL, NULL, 0, 0,
     "(4,5):(1,4) o 2 o (3,4,5):(8,1,4)", "layout"},
    {"cuteir-flatten-bbac8ec6", "flatten", "[(8):(1);(4):(1);(2):(1)]", NULL,
     NULL, 0, 0, "[(8):(1);(4):(1);(2):(1)]", "layout"},
    {"cuteir-flatten-ecb4b03b", "flatten", "(4,3):(1,2)", NULL, NULL, 0, 0,
     "(4,3):(1,2)", "layout"},
    {"cuteir-flatten-f6fd34a5", "flatten", "(3,(4,5)):(8,(1,4))", NULL, NULL, 0,
     0, "(3,4,5):(8,1,4)", "layout"},
    {"cuteir-recast_layout-03455069", "recast_layout", "(8,4):(1,8)", NULL,
     NULL, 32, 8, "(32,4):(1,32)", "layout"},
    {"cuteir-recast_layout-0cd8fff0", "recast_layout", "(32,4):(1,32)", NULL,
     NULL, 8, -8, NULL, "error"},
    {"cuteir-recast_layout-4d051ff3", "recast_layout",
     "(2,3):(1,3) o (0,0) o (2,3):(1@0,1@1)", NULL, NULL, 8, 32, NULL, "error"},
    {"cuteir-recast_layout-5c9bc57b", "recast_layout", "(8,4):(1,8)", NULL,
     NULL, 8, 32, "(2,4):(1,2)", "layout"},
    {"cuteir-recast_layout-7cb5b84c", "recast_layout",
     "(4,5):(1,4) o 2 o (8,4):(1,8)", NULL, NULL, 16, 32,
     "(2,5):(1,2) o 1 o (4,4):(1,4)", "layout"},
    {"cuteir-recast_layout-7fc90562", "recast_layout", "(32,4):(1,32)", NULL,
     NULL, -4, 8, NULL, "error"},
    {"cuteir-recast_layout-85c75a0e", "recast_layout", "(32,4):(1,32)", NULL,
     NULL, 8, 0, NULL, "error"},
    {"cuteir-recast_layout-b54184e6", "recast_layout", "(128,64):(1,128)", NULL,
     NULL, 4, 32, "(16,64):(1,16)", "layout"},
    {"cuteir-recast_layout-b72955e9", "recast_layout", "(2,3):(1@0,1@1)", NULL,
     NULL, 8, 32, NULL, "error"},
    {"cuteir-size-584d96c0", "size", "(4,3)", NULL, NULL, 0, 0, "12", "int"},
    {"cuteir-size-605fab9c", "size", "(4,3)", NULL, "2", 0, 0, NULL, "error"},
    {"cuteir-size-60b1c030", "size", "(4,2)", NULL, "0,0,0,0", 0, 0, NULL,
     "error"},
    {"cuteir-size-66cda248", "size", "S<3,4,6> o 0 o (3,4):(4,1)", NULL, NULL,
     0, 0, "12", "int"},
    {"cuteir-size-6c465fcf", "size", "(4,(16,32)):(1,(4,64))", NULL, NULL, 0, 0,
     "2048", "int"},
    {"cuteir-size-7a662670", "size", "(2,3):(1@0,1@1)", NULL, "0", 0, 0, "2",
     "int"},
    {"cuteir-size-8a0b6560", "size", "(4,(16,32)):(1,(4,64))", NULL, "1", 0, 0,
     "512", "int"},
    {"cuteir-slice-06cd7de2", "slice", "((2,3),4):((1@0,1@1),1@2)", "((_,0),_)",
     NULL, 0, 0, "(2,4):(1@0,1@2)", "layout"},
    {"cuteir-slice-1498c221", "slice", "(8,4):(1,8)", "(0,_)", NULL, 0, 0,
     "(4):(8)", "layout"},
    {"cuteir-slice-394ccb12", "slice", "(0,_,1)", "(_,_,1)", NULL, 0, 0,
     "(0,_)", "exact"},
    {"cuteir-slice-41c826bd", "slice", "S<3,5,4>", "(0,_)", NULL, 0, 0, NULL,
     "error"},
    {"cuteir-slice-6cac6b24", "slice", "((2,4),3):((1,2),8)", "(0,_)", NULL, 0,
     0, "(3):(8)", "layout"},
    {"cuteir-slice-80c8f6b3", "slice", "S<3,5,4> o 0 o (8,4):(1,8)", "(2,1)",
     NULL, 0, 0, NULL, "error"},
    {"cuteir-slice-9afb7f6e", "slice", "(2,3,4):(1,2,6)", "(_,_,_)", NULL, 0, 0,
     "(2,3,4):(1,2,6)", "layout"},
    {"cuteir-slice-9ef35b26", "slice", "(2,3,4):(1,2,6)", "1", NULL, 0, 0,
     "():()", "layout"},
    {"cuteir-slice-a087f0f0", "slice", "(1,(2,3))", "(0,_)", NULL, 0, 0,
     "((2,3))", "exact"},
    {"cuteir-slice-c1e9c7cb", "slice", "(((2,3),4),(5,(6,7)))", "((_,1),_)",
     NULL, 0, 0, "((2,3),(5,(6,7)))", "exact"},
    {"cuteir-slice-c8531fcd", "slice", "(4,5):(1,4) o 2 o (4,3):(1,4)", "(0,_)",
     NULL, 0, 0, "(4,5):(1,4) o 2 o (3):(4)", "layout"},
    {"cuteir-slice-cbed2cff", "slice", "(4,5):(1,4) o 2 o (4,3):(1,4)",
     "(0,_,1)", NULL, 0, 0, NULL, "error"},
    {"cuteir-slice-d66e697f", "slice", "((2,4),3):((1,2),8)", "(_,0)", NULL, 0,
     0, "((2,4)):((1,2))", "layout"},
    {"cuteir-slice-d7dbbd60", "slice", "(1,8,16)", "(_,1,_)", NULL, 0, 0,
     "(1,16)", "exact"},
    {"cuteir-slice-ee45e69e", "slice", "(8,4):(1,8)", "(0,_,1)", NULL, 0, 0,
     NULL, "error"},
    {"cuteir-slice-f6446633", "slice", "((2,4),3):((1,2),8)", "((_,0),_)", NULL,
     0, 0, "(2,3):(1,8)", "layout"},
    {"paper-cosize-81c09b5d", "cosize", "(3,(2,3)):(3,(12,1))", NULL, NULL, 0,
     0, "21", "int"},
    {"paper-eval-7c950a58", "eval", "(3,(2,3)):(3,(12,1))", "(1,(1,2))", NULL,
     0, 0, "17", "int"},
    {"paper-size-04d1028c", "size", "(3,(2,3)):(3,(12,1))", NULL, NULL, 0, 0,
     "18", "int"},
};

static int nskipped;

static axe_cute_object tl_object(const char *s)
{
    axe_cute_object o;
    axe_diag d;
    if (axe_parse_cute(s, strlen(s), &o, &d) != AXE_OK) {
        fprintf(stderr, "bad object in test table: %s (%s)\n", s, d.message);
        exit(2);
    }
    return o;
}

/* The get<> path "s" ("1,0,1") into "path"; returns its length. */
static int parse_mode(const char *s, int *path)
{
    int n = 0;
    char *end;
    while (*s != '\0') {
        path[n++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

/*
 * get<path...>("l") as CuTe IR defines the "mode" argument: the top level
 * is a tuple (a scalar layout is its own mode 0), every index must be in
 * range, and the path must stop at a leaf.
 */
static axe_status layout_mode(const axe_cute_layout *l, const int *path, int n,
                              axe_cute_layout *out)
{
    axe_cute_layout r = *l;
    for (int k = 0; k < n; k++) {
        if (axe_tuple_is_scalar(&r.shape) && (k > 0 || path[k] != 0))
            return AXE_ERR_DOMAIN;
        if (axe_cute_get(&r, path[k], &r) != AXE_OK)
            return AXE_ERR_DOMAIN;
    }
    *out = r;
    return AXE_OK;
}

static axe_status tuple_mode(const axe_tuple *t, const int *path, int n,
                             axe_tuple *out)
{
    axe_tuple r = *t;
    for (int k = 0; k < n; k++) {
        if (axe_tuple_is_scalar(&r) && (k > 0 || path[k] != 0))
            return AXE_ERR_DOMAIN;
        if (axe_tuple_get(&r, path[k], &r) != AXE_OK)
            return AXE_ERR_DOMAIN;
    }
    *out = r;
    return AXE_OK;
}

/* size or cosize ("co") of "a" after the get<> path of "r". */
static axe_status run_size(const vrow *r, const axe_cute_object *a, bool co,
                           int64_t *out)
{
    int path[16], n = r->mode != NULL ? parse_mode(r->mode, path) : 0;
    axe_cute_layout l;
    axe_cute_composed c;
    axe_tuple t;
    switch (a->kind) {
    case AXE_CUTE_KIND_TUPLE:
        AXE_TRY(tuple_mode(&a->tuple, path, n, &t));
        return co ? AXE_ERR_UNSUPPORTED : axe_tuple_size(&t, out);
    case AXE_CUTE_KIND_LAYOUT:
        AXE_TRY(layout_mode(&a->layout, path, n, &l));
        return co ? axe_cute_cosize(&l, out) : axe_cute_size(&l, out);
    case AXE_CUTE_KIND_COMPOSED:
        AXE_TRY(layout_mode(&a->composed.inner, path, n, &l));
        AXE_TRY(axe_cute_composed_with_inner(&a->composed, &l, &c));
        return co ? axe_cute_composed_cosize(&c, out)
                  : axe_cute_composed_size(&c, out);
    case AXE_CUTE_KIND_TILER:
    case AXE_CUTE_KIND_SWIZZLE:
        break;
    }
    return AXE_ERR_UNSUPPORTED;
}

/* slice ("dice" false) or dice of "a" by the coordinate "b". A swizzle on
 * its own has no coordinates: there is nothing to slice. */
static axe_status run_slice(const axe_cute_object *a, const axe_tuple *b,
                            bool dice, axe_cute_object *res)
{
    axe_diag d;
    res->kind = a->kind;
    switch (a->kind) {
    case AXE_CUTE_KIND_TUPLE:
        return dice ? axe_tuple_dice(&a->tuple, b, &res->tuple, &d)
                    : axe_tuple_slice(&a->tuple, b, &res->tuple, &d);
    case AXE_CUTE_KIND_LAYOUT:
        return dice ? axe_cute_dice(&a->layout, b, &res->layout, &d)
                    : axe_cute_slice(&a->layout, b, &res->layout, NULL, &d);
    case AXE_CUTE_KIND_COMPOSED:
        if (dice)
            return AXE_ERR_UNSUPPORTED;
        return axe_cute_composed_slice(&a->composed, b, &res->composed, &d);
    case AXE_CUTE_KIND_TILER:
    case AXE_CUTE_KIND_SWIZZLE:
        break;
    }
    return AXE_ERR_UNSUPPORTED;
}

/* flatten of a tuple, layout or composed layout (flatten of the inner). */
static axe_status run_flatten(const axe_cute_object *a, axe_cute_object *res)
{
    axe_cute_layout l;
    res->kind = a->kind;
    switch (a->kind) {
    case AXE_CUTE_KIND_TUPLE:
        axe_tuple_flatten(&a->tuple, &res->tuple);
        return AXE_OK;
    case AXE_CUTE_KIND_LAYOUT:
        return axe_cute_flatten(&a->layout, &res->layout);
    case AXE_CUTE_KIND_COMPOSED:
        AXE_TRY(axe_cute_flatten(&a->composed.inner, &l));
        return axe_cute_composed_with_inner(&a->composed, &l, &res->composed);
    case AXE_CUTE_KIND_TILER:
    case AXE_CUTE_KIND_SWIZZLE:
        break;
    }
    return AXE_ERR_UNSUPPORTED;
}

static axe_status run_recast(const vrow *r, const axe_cute_object *a,
                             axe_cute_object *res)
{
    axe_diag d;
    res->kind = a->kind;
    if (a->kind == AXE_CUTE_KIND_LAYOUT)
        return axe_cute_recast(&a->layout, r->n0, r->n1, &res->layout, &d);
    if (a->kind == AXE_CUTE_KIND_COMPOSED)
        return axe_cute_composed_recast(&a->composed, r->n0, r->n1,
                                        &res->composed, &d);
    return AXE_ERR_UNSUPPORTED;
}

/* Run the case "r": an object result in "res" or an integer in "ival". */
static axe_status run_vector(const vrow *r, axe_cute_object *res, int64_t *ival)
{
    axe_cute_object a = tl_object(r->a);
    axe_tuple b;
    if (r->b != NULL)
        b = tl_tuple(r->b);
    if (strcmp(r->op, "slice") == 0 || strcmp(r->op, "dice") == 0)
        return run_slice(&a, &b, r->op[0] == 'd', res);
    if (strcmp(r->op, "size") == 0 || strcmp(r->op, "cosize") == 0)
        return run_size(r, &a, r->op[0] == 'c', ival);
    if (strcmp(r->op, "flatten") == 0)
        return run_flatten(&a, res);
    if (strcmp(r->op, "recast_layout") == 0)
        return run_recast(r, &a, res);
    if (strcmp(r->op, "eval") == 0 && a.kind == AXE_CUTE_KIND_LAYOUT)
        return axe_cute_eval_crd(&a.layout, &b, ival);
    return AXE_ERR_UNKNOWN_OP;
}

/* "s" without spaces into "out" (cap bytes). */
static void strip_spaces(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s != '\0' && n + 1 < cap; s++)
        if (*s != ' ')
            out[n++] = *s;
    out[n] = '\0';
}

/* The offset of a composed layout as one index into outer's domain. */
static int64_t offset_index(const axe_cute_composed *c)
{
    int64_t x = -1;
    if (axe_tuple_is_scalar(&c->offset))
        return c->offset.v[0];
    if (axe_tuple_crd2idx(&c->offset, &c->outer.shape, &x) != AXE_OK)
        return -1;
    return x;
}

/* cmp "layout" for composed layouts: the same outer and offset, inner
 * profiles equal up to rank-1 wrappers and size-1 leaves, and the same
 * function c(i) on every index. */
static int composed_matches(const axe_cute_composed *got,
                            const axe_cute_composed *want)
{
    axe_cute_layout gi = got->inner, wi = want->inner;
    int64_t n;
    if (got->kind != want->kind || offset_index(got) != offset_index(want))
        return 0;
    if (got->kind == AXE_CUTE_OUTER_SWIZZLE
            ? memcmp(&got->swizzle, &want->swizzle, sizeof got->swizzle) != 0
            : !tl_layout_matches(&got->outer, &want->outer))
        return 0;
    for (int i = 0; i < gi.shape.nleaf; i++)
        gi.stride[i] = gi.basis[i] = 0;
    for (int i = 0; i < wi.shape.nleaf; i++)
        wi.stride[i] = wi.basis[i] = 0;
    if (!tl_layout_matches(&gi, &wi) ||
        axe_cute_composed_size(got, &n) != AXE_OK)
        return 0;
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point pg, pw;
        if (axe_cute_composed_eval_point(got, i, &pg) != AXE_OK ||
            axe_cute_composed_eval_point(want, i, &pw) != AXE_OK ||
            !axe_cute_point_equal(&pg, &pw))
            return 0;
    }
    return 1;
}

/* The vectors/README.md rule "cmp" of "r" applied to the result. */
static int vector_matches(const vrow *r, const axe_cute_object *res,
                          int64_t ival)
{
    char got[1024], a[1024], b[1024];
    axe_cute_object want;
    if (strcmp(r->cmp, "int") == 0)
        return ival == strtoll(r->expect, NULL, 10);
    if (strcmp(r->cmp, "exact") == 0) {
        axe_print_cute(res, got, sizeof got);
        strip_spaces(got, a, sizeof a);
        strip_spaces(r->expect, b, sizeof b);
        return strcmp(a, b) == 0;
    }
    want = tl_object(r->expect);
    if (want.kind != res->kind)
        return 0;
    if (want.kind == AXE_CUTE_KIND_LAYOUT)
        return tl_layout_matches(&res->layout, &want.layout);
    if (want.kind == AXE_CUTE_KIND_COMPOSED)
        return composed_matches(&res->composed, &want.composed);
    return 0;
}

/* Every shared vector case of this family. Tilers have no flatten in the
 * library yet; those rows are skipped (and counted). */
static void test_vectors(void)
{
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
        const vrow *r = &vectors[k];
        axe_cute_object res;
        int64_t ival = 0;
        axe_status s;
        if (r->a[0] == '[' || r->a[0] == '<') {
            nskipped++;
            continue;
        }
        s = run_vector(r, &res, &ival);
        if (r->expect == NULL) {
            TL_CHECK(s != AXE_OK, "%s: %s must be rejected", r->id, r->a);
            continue;
        }
        TL_CHECK(s == AXE_OK && vector_matches(r, &res, ival),
                 "%s: %s %s %s: status %s, want %s", r->id, r->op, r->a,
                 r->b != NULL ? r->b : "", axe_status_name(s), r->expect);
    }
}

/* ---- hand-written rows --------------------------------------------- */

/* slice with its offset: L(crd) == offset + slice(L)(the `_` part). */
static void test_slice_rows(void)
{
    static const struct {
        const char *l, *crd, *slice;
        int64_t offset;
    } rows[] = {
        {"((2,4),3):((1,2),8)", "(_,2)", "((2,4)):((1,2))", 16},
        {"((2,4),3):((1,2),8)", "(5,_)", "(3):(8)", 5},
        {"((2,4),3):((1,2),8)", "((1,_),1)", "(4):(2)", 9},
        {"((2,4),3):((1,2),8)", "1", "():()", 1},
        {"((2,4),3):((1,2),8)", "23", "():()", 23},
        {"((2,4),3):((1,2),8)", "_", "((2,4),3):((1,2),8)", 0},
        {"((2,4),3):((1,2),8)", "((_,_),_)", "(2,4,3):(1,2,8)", 0},
        {"(8,4):(-1,8)", "(3,_)", "(4):(8)", -3},
        {"(8,(4,2)):(1,(8,32))", "(_,(3,1))", "(8):(1)", 56},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_layout l = tl_layout(rows[k].l),
                        want = tl_layout(rows[k].slice);
        axe_tuple crd = tl_tuple(rows[k].crd);
        axe_cute_layout got;
        axe_cute_point off;
        axe_status s = axe_cute_slice(&l, &crd, &got, &off, NULL);
        int64_t v = off.n == 0 ? 0 : off.v[0];
        TL_CHECK(s == AXE_OK && tl_layout_matches(&got, &want) && off.n <= 1 &&
                     (off.n == 0 || off.basis[0] == 0) && v == rows[k].offset,
                 "slice %s by %s: %s, want %s offset %lld", rows[k].l,
                 rows[k].crd, s == AXE_OK ? tl_str(&got) : "error",
                 rows[k].slice, (long long)rows[k].offset);
    }
}

/* Scaled-basis strides: the offset is a point. */
static void test_slice_basis(void)
{
    axe_cute_layout l = tl_layout("((2,3),4):((1@0,1@1),1@2)");
    axe_cute_layout want = tl_layout("(2):(1@0)"), got;
    axe_tuple crd = tl_tuple("((_,2),3)");
    axe_cute_point off;
    axe_status s = axe_cute_slice(&l, &crd, &got, &off, NULL);
    TL_CHECK(s == AXE_OK && tl_layout_matches(&got, &want) && off.n == 2 &&
                 off.basis[0] == AXE_CUTE_BASIS1(1) && off.v[0] == 2 &&
                 off.basis[1] == AXE_CUTE_BASIS1(2) && off.v[1] == 3,
             "slice of a scaled-basis layout: offset 2@1 + 3@2");
}

static void test_slice_rejects(void)
{
    static const struct {
        const char *l, *crd;
        axe_status want;
    } rows[] = {
        {"(8,4):(1,8)", "(0,_,1)", AXE_ERR_INCOMPATIBLE},
        {"8:1", "(_)", AXE_ERR_INCOMPATIBLE},
        {"((2,4),3):((1,2),8)", "((_,0,1),_)", AXE_ERR_INCOMPATIBLE},
        {"((2,4),3):((1,2),8)", "(_,(0,1))", AXE_ERR_INCOMPATIBLE},
        {"(8,4):(1,8)", "(8,_)", AXE_ERR_DOMAIN},
        {"(8,4):(1,8)", "(-1,_)", AXE_ERR_DOMAIN},
        {"((2,4),3):((1,2),8)", "(8,_)", AXE_ERR_DOMAIN},
        {"((2,4),3):((1,2),8)", "24", AXE_ERR_DOMAIN},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_layout l = tl_layout(rows[k].l), got = l;
        axe_tuple crd = tl_tuple(rows[k].crd);
        axe_diag d;
        axe_status s = axe_cute_slice(&l, &crd, &got, NULL, &d);
        TL_CHECK(s == rows[k].want && d.message[0] != '\0',
                 "slice %s by %s: %s, want %s", rows[k].l, rows[k].crd,
                 axe_status_name(s), axe_status_name(rows[k].want));
        if (rows[k].want == AXE_ERR_INCOMPATIBLE) {
            s = axe_cute_dice(&l, &crd, &got, NULL);
            TL_CHECK(s == AXE_ERR_INCOMPATIBLE, "dice %s by %s: %s", rows[k].l,
                     rows[k].crd, axe_status_name(s));
        }
    }
}

/* Tuples: slice keeps the subtrees under `_`, dice those under fixed
 * leaves; op 's' or 'd'. */
static void test_tuple_rows(void)
{
    static const struct {
        const char *t, *crd;
        char op;
        const char *want;
    } rows[] = {
        {"(1,(2,3))", "(0,_)", 'd', "(1)"},
        {"(0,_,1)", "_", 's', "(0,_,1)"},
        {"(0,_,1)", "_", 'd', "()"},
        {"((2,3),4)", "((_,1),_)", 's', "(2,4)"},
        {"((2,3),4)", "((_,1),_)", 'd', "(3)"},
        {"7", "_", 's', "7"},
        {"7", "3", 's', "()"},
        {"7", "3", 'd', "7"},
        {"(2,(3,4))", "(1,_)", 's', "((3,4))"},
        {"(2,(3,4))", "(1,(_,2))", 's', "(3)"},
        {"(2,3)", "(1,(_,2))", 's', NULL},
        {"(2,3)", "(1,_,2)", 'd', NULL},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_tuple t = tl_tuple(rows[k].t), crd = tl_tuple(rows[k].crd), got;
        axe_status s = rows[k].op == 's' ? axe_tuple_slice(&t, &crd, &got, NULL)
                                         : axe_tuple_dice(&t, &crd, &got, NULL);
        char buf[256] = "error";
        if (s == AXE_OK)
            axe_print_tuple(&got, buf, sizeof buf);
        TL_CHECK(rows[k].want == NULL
                     ? s == AXE_ERR_INCOMPATIBLE
                     : s == AXE_OK && strcmp(buf, rows[k].want) == 0,
                 "%s %c %s: %s, want %s", rows[k].t, rows[k].op, rows[k].crd,
                 buf, rows[k].want ? rows[k].want : "error");
    }
}

/* upcast ('u'), downcast ('d') or recast ('r' from n0 to n1 bits). */
static void test_recast_rows(void)
{
    static const struct {
        const char *l;
        char op;
        int64_t n0, n1;
        const char *want;
    } rows[] = {
        {"(8,4):(1,8)", 'u', 4, 0, "(2,4):(1,2)"},
        {"(4,2):(2,1)", 'u', 4, 0, "(2,1):(1,1)"},
        {"(3,2):(1,3)", 'u', 3, 0, "(1,2):(1,1)"},
        {"8:-1", 'u', 2, 0, "4:-1"},
        {"(5,3):(1,8)", 'u', 2, 0, "(3,3):(1,4)"},
        {"(4,1):(2,3)", 'u', 2, 0, "(4,1):(1,0)"},
        {"(4,3):(0,-8)", 'u', 4, 0, "(4,3):(0,-2)"},
        {"(6,4):(1,6)", 'u', 4, 0, NULL},
        {"(4,2):(1,3)", 'u', 0, 0, NULL},
        {"(4,3):(3,12)", 'd', 2, 0, "(4,3):(6,24)"},
        {"4:-1", 'd', 2, 0, "8:-1"},
        {"(2,4):(1,2)", 'd', 4, 0, "(8,4):(1,8)"},
        {"(4,2):(1,0)", 'd', 2, 0, "(8,2):(1,0)"},
        {"(4,2):(1,3)", 'd', -2, 0, NULL},
        {"(4,2):(1@0,1@1)", 'd', 2, 0, NULL},
        {"(8,4):(1,8)", 'r', 24, 16, "(12,4):(1,12)"},
        {"(8,4):(1,8)", 'r', 16, 16, "(8,4):(1,8)"},
        {"(9,4):(1,9)", 'r', 16, 48, "(3,4):(1,3)"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_layout l = tl_layout(rows[k].l), got;
        axe_diag d;
        axe_status s =
            rows[k].op == 'u' ? axe_cute_upcast(&l, rows[k].n0, &got, &d)
            : rows[k].op == 'd'
                ? axe_cute_downcast(&l, rows[k].n0, &got, &d)
                : axe_cute_recast(&l, rows[k].n0, rows[k].n1, &got, &d);
        if (rows[k].want == NULL) {
            TL_CHECK(s != AXE_OK && d.message[0] != '\0',
                     "%c %s by %lld must be rejected", rows[k].op, rows[k].l,
                     (long long)rows[k].n0);
            continue;
        }
        axe_cute_layout want = tl_layout(rows[k].want);
        TL_CHECK(s == AXE_OK && axe_cute_equal(&got, &want),
                 "%c %s by %lld: %s, want %s", rows[k].op, rows[k].l,
                 (long long)rows[k].n0, s == AXE_OK ? tl_str(&got) : "error",
                 rows[k].want);
    }
}

static axe_cute_composed tl_composed(const char *s)
{
    axe_cute_object o = tl_object(s);
    if (o.kind != AXE_CUTE_KIND_COMPOSED) {
        fprintf(stderr, "not a composed layout in test table: %s\n", s);
        exit(2);
    }
    return o.composed;
}

/* c(i) for i = 0, 1, ... against the listed values. */
static void test_composed_eval_rows(void)
{
    static const struct {
        const char *c, *values;
    } rows[] = {
        {"Sw<1,0,1> o 0 o 4:1", "0 1 3 2"},
        {"Sw<1,0,1> o 1 o 3:1", "1 3 2"},
        {"Sw<2,0,2> o 0 o (2,2):(8,1)", "0 10 1 11"},
        {"(2,3):(1,3) o (0,0) o (2,3):(1@0,1@1)", "0 1 3 4 6 7"},
        {"(2,3):(1,3) o (1,1) o 2:1@1", "4 7"},
        {"(4,5):(1,4) o 2 o (4,3):(1,4)", "2 3 4 5 6 7 8 9 10 11 12 13"},
        {"(4,2):(2,1) o 1 o 3:2", "2 6 3"},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_composed c = tl_composed(rows[k].c);
        const char *p = rows[k].values;
        int64_t n, i = 0;
        int ok = axe_cute_composed_size(&c, &n) == AXE_OK;
        while (ok && *p != '\0') {
            char *end;
            int64_t want = strtoll(p, &end, 10);
            axe_cute_point v;
            ok = axe_cute_composed_eval_point(&c, i++, &v) == AXE_OK &&
                 v.n <= 1 && (v.n == 0 ? want == 0 : v.v[0] == want) &&
                 (v.n == 0 || v.basis[0] == 0);
            p = end;
        }
        TL_CHECK(ok && i == n, "%s: values %s", rows[k].c, rows[k].values);
    }
}

/* Composed slice: the sliced-off offset moves into the composed offset. */
static void test_composed_slice_rows(void)
{
    static const struct {
        const char *c, *crd, *want;
    } rows[] = {
        {"(4,5):(1,4) o (1,2) o (4,3):(1,4)", "(1,_)",
         "(4,5):(1,4) o 10 o (3):(4)"},
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", "(_,3)", "Sw<3,4,3> o 3 o (8):(64)"},
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", "(_,_)",
         "Sw<3,4,3> o 0 o (8,64):(64,1)"},
        {"Sw<3,4,3> o 5 o (8,64):(64,1)", "_", "Sw<3,4,3> o 5 o (8,64):(64,1)"},
        {"(2,3):(1,3) o (0,0) o (2,3):(1@0,1@1)", "(1,_)",
         "(2,3):(1,3) o 1 o (3):(1@1)"},
        {"(4,5):(1,4) o 2 o (4,3):(1,4)", "(1,2)", NULL},
        {"(4,5):(1,4) o 2 o (4,3):(1,4)", "(1,(2,_))", NULL},
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", "(8,_)", NULL},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_composed c = tl_composed(rows[k].c), got;
        axe_tuple crd = tl_tuple(rows[k].crd);
        axe_diag d;
        axe_status s = axe_cute_composed_slice(&c, &crd, &got, &d);
        if (rows[k].want == NULL) {
            TL_CHECK(s != AXE_OK && d.message[0] != '\0',
                     "slice %s by %s must be rejected", rows[k].c, rows[k].crd);
            continue;
        }
        axe_cute_composed want = tl_composed(rows[k].want);
        TL_CHECK(s == AXE_OK && composed_matches(&got, &want),
                 "slice %s by %s: %s, want %s", rows[k].c, rows[k].crd,
                 axe_status_name(s), rows[k].want);
    }
}

/* Composed recast from n0 to n1 bits. */
static void test_composed_recast_rows(void)
{
    static const struct {
        const char *c;
        int64_t n0, n1;
        const char *want;
    } rows[] = {
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", 16, 32,
         "Sw<3,3,3> o 0 o (8,32):(32,1)"},
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", 32, 16,
         "Sw<3,5,3> o 0 o (8,128):(128,1)"},
        {"Sw<2,1,3> o 0 o (8,64):(64,1)", 8, 32,
         "Sw<1,0,3> o 0 o (8,16):(16,1)"},
        {"Sw<3,4,3> o 8 o 64:1", 8, 64, "Sw<3,1,3> o 1 o 8:1"},
        {"(4,5):(1,4) o (2,1) o (8,4):(1,8)", 16, 32,
         "(2,5):(1,2) o 3 o (4,4):(1,4)"},
        {"Sw<2,1,-3> o 0 o 64:1", 8, 32, NULL},
        {"Sw<3,4,3> o 0 o 64:1", 8, 24, NULL},
        {"Sw<3,4,3> o 3 o 64:1", 8, 16, NULL},
        {"Sw<3,4,3> o 0 o 64:1", 0, 16, NULL},
        {"Sw<3,4,3> o 0 o (2,3):(1@0,1@1)", 8, 16, NULL},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_composed c = tl_composed(rows[k].c), got;
        axe_diag d;
        axe_status s =
            axe_cute_composed_recast(&c, rows[k].n0, rows[k].n1, &got, &d);
        if (rows[k].want == NULL) {
            TL_CHECK(s != AXE_OK && d.message[0] != '\0',
                     "recast %s must be rejected", rows[k].c);
            continue;
        }
        axe_cute_composed want = tl_composed(rows[k].want);
        TL_CHECK(s == AXE_OK && composed_matches(&got, &want),
                 "recast %s [%lld,%lld]: %s, want %s", rows[k].c,
                 (long long)rows[k].n0, (long long)rows[k].n1,
                 axe_status_name(s), rows[k].want);
    }
}

/* with_inner checks that the result is well formed. */
static void test_composed_with_inner(void)
{
    static const struct {
        const char *c, *inner;
        int ok;
    } rows[] = {
        {"Sw<3,4,3> o 0 o 8:1", "(4,2):(2,1)", 1},
        {"Sw<3,4,3> o 0 o 8:1", "(4,2):(1@0,1@1)", 0},
        {"Sw<3,4,3> o (1,2) o 8:1", "8:1", 0},
        {"(2,3):(1,3) o (0,0) o 6:1", "(2,3):(1@0,1@1)", 1},
        {"(2,3):(1,3) o (0,0) o 6:1", "(2,3):(1@0,1@2)", 0},
        {"(2,3):(1,3) o (0,0,0) o 6:1", "6:1", 0},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_composed c = tl_composed(rows[k].c), got;
        axe_cute_layout inner = tl_layout(rows[k].inner);
        axe_status s = axe_cute_composed_with_inner(&c, &inner, &got);
        TL_CHECK((s == AXE_OK) == rows[k].ok &&
                     (!rows[k].ok || axe_cute_equal(&got.inner, &inner)),
                 "%s with inner %s: %s", rows[k].c, rows[k].inner,
                 axe_status_name(s));
    }
}

/* max_common_vector on known pairs. */
static void test_common_rows(void)
{
    static const struct {
        const char *a, *b;
        int64_t want;
    } rows[] = {
        {"(8,4):(1,8)", "(8,4):(1,8)", 32},
        {"(8,4):(1,8)", "(8,4):(4,1)", 1},
        {"(4,8):(1,4)", "(4,8):(1,8)", 4},
        {"8:1", "(2,4):(1,2)", 8},
        {"(2,4):(2,1)", "8:1", 1},
        {"(4,2):(1,8)", "(4,2):(1,4)", 4},
        {"((2,4),8):((1,2),16)", "(8,8):(1,8)", 8},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        axe_cute_layout a = tl_layout(rows[k].a), b = tl_layout(rows[k].b);
        int64_t got = -1;
        axe_status s = axe_cute_max_common_vector(&a, &b, &got);
        TL_CHECK(s == AXE_OK && got == rows[k].want,
                 "max_common_vector(%s, %s) = %lld, want %lld", rows[k].a,
                 rows[k].b, (long long)got, (long long)rows[k].want);
    }
}

/* ---- helpers for the laws -------------------------------------------- */

static int subtree_end(const char *tok, int tb)
{
    int d = 0, i = tb;
    do {
        d += tok[i] == '(' ? 1 : tok[i] == ')' ? -1 : 0;
        i++;
    } while (d > 0);
    return i;
}

/* Append a random coordinate of the shape subtree at token "*tok" (leaf
 * "*leaf"): `_` (when "wild"), a fixed index inside the subtree, or for a
 * tuple sometimes a tuple of coordinates of its modes. */
static void random_crd_rec(const axe_tuple *shape, int *tok, int *leaf,
                           int wild, axe_tuple *out)
{
    int e = subtree_end(shape->tok, *tok);
    int64_t size = 1;
    if (shape->tok[*tok] == '(' && tl_range(0, 3) != 0) {
        out->tok[out->ntok++] = '(';
        (*tok)++;
        while (shape->tok[*tok] != ')')
            random_crd_rec(shape, tok, leaf, wild, out);
        (*tok)++;
        out->tok[out->ntok++] = ')';
        return;
    }
    for (int i = *tok; i < e; i++)
        if (shape->tok[i] == 'x')
            size *= shape->v[(*leaf)++];
    out->tok[out->ntok++] = 'x';
    out->v[out->nleaf++] =
        wild && tl_range(0, 1) ? AXE_UNDERSCORE : tl_range(0, size - 1);
    *tok = e;
}

static axe_tuple random_crd(const axe_tuple *shape, int wild)
{
    axe_tuple r;
    int tok = 0, leaf = 0;
    memset(&r, 0, sizeof r);
    random_crd_rec(shape, &tok, &leaf, wild, &r);
    return r;
}

static bool has_wild(const axe_tuple *crd)
{
    for (int i = 0; i < crd->nleaf; i++)
        if (crd->v[i] == AXE_UNDERSCORE)
            return true;
    return false;
}

/* "crd" with its m-th `_` replaced by element m of "x" (by "x" itself when
 * "crd" is the scalar `_`). */
static axe_tuple fill_crd(const axe_tuple *crd, const axe_tuple *x)
{
    axe_tuple r;
    int m = 0, leaf = 0;
    if (axe_tuple_is_scalar(crd))
        return crd->v[0] == AXE_UNDERSCORE ? *x : *crd;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < crd->ntok; i++) {
        axe_tuple e;
        int64_t v = crd->tok[i] == 'x' ? crd->v[leaf++] : 0;
        if (crd->tok[i] != 'x' || v != AXE_UNDERSCORE) {
            r.tok[r.ntok++] = crd->tok[i];
            if (crd->tok[i] == 'x')
                r.v[r.nleaf++] = v;
            continue;
        }
        if (axe_tuple_get(x, m++, &e) != AXE_OK)
            return r;
        memcpy(r.tok + r.ntok, e.tok, (size_t)e.ntok);
        memcpy(r.v + r.nleaf, e.v, (size_t)e.nleaf * sizeof(int64_t));
        r.ntok = (uint8_t)(r.ntok + e.ntok);
        r.nleaf = (uint8_t)(r.nleaf + e.nleaf);
    }
    return r;
}

/* L(crd) as a point, for an in-range coordinate. */
static int crd_point(const axe_cute_layout *l, const axe_tuple *crd,
                     axe_cute_point *out)
{
    int64_t idx;
    return axe_tuple_crd2idx(crd, &l->shape, &idx) == AXE_OK &&
           axe_cute_eval_point(l, idx, out) == AXE_OK;
}

/* a + b, componentwise by basis. */
static axe_cute_point point_sum(const axe_cute_point *a,
                                const axe_cute_point *b)
{
    axe_cute_point r = *a;
    int k = 0;
    for (int j = 0; j < b->n; j++) {
        int i = 0;
        while (i < r.n && r.basis[i] < b->basis[j])
            i++;
        if (i < r.n && r.basis[i] == b->basis[j]) {
            r.v[i] += b->v[j];
            continue;
        }
        memmove(r.basis + i + 1, r.basis + i,
                (size_t)(r.n - i) * sizeof r.basis[0]);
        memmove(r.v + i + 1, r.v + i, (size_t)(r.n - i) * sizeof r.v[0]);
        r.basis[i] = b->basis[j];
        r.v[i] = b->v[j];
        r.n++;
    }
    for (int i = 0; i < r.n; i++)
        if (r.v[i] != 0) {
            r.basis[k] = r.basis[i];
            r.v[k++] = r.v[i];
        }
    r.n = k;
    return r;
}

/* A random layout whose leaves sometimes have scaled-basis strides. */
static axe_cute_layout random_mixed_layout(void)
{
    axe_cute_layout l = tl_random_layout(6, 3, 256, 9, 1);
    if (tl_range(0, 2) == 0)
        for (int i = 0; i < l.shape.nleaf; i++)
            if (l.stride[i] != 0 && tl_range(0, 1))
                l.basis[i] = AXE_CUTE_BASIS1(tl_range(0, 2));
    return l;
}

/* ---- laws: slice and dice --------------------------------------------- */

/*
 * For a random layout L and coordinate crd with `_`: with S = slice(L,
 * crd), o its offset, D = dice(L, crd) and f = dice(crd, crd), for every
 * coordinate x of S: L(crd filled with x) == o + S(x) == D(f) + S(x);
 * the leaves of S and D together are those of L; and slicing and dicing
 * the shape tuple gives the shapes of S and D.
 */
static void law_slice_one(void)
{
    axe_cute_layout l = random_mixed_layout(), s, d;
    axe_tuple crd = random_crd(&l.shape, 1), f, ts, td;
    axe_cute_point off, fd;
    int64_t n, bad = -1;
    if (axe_cute_slice(&l, &crd, &s, &off, NULL) != AXE_OK ||
        axe_cute_dice(&l, &crd, &d, NULL) != AXE_OK ||
        axe_tuple_dice(&crd, &crd, &f, NULL) != AXE_OK ||
        axe_tuple_slice(&l.shape, &crd, &ts, NULL) != AXE_OK ||
        axe_tuple_dice(&l.shape, &crd, &td, NULL) != AXE_OK ||
        axe_cute_size(&s, &n) != AXE_OK || !crd_point(&d, &f, &fd)) {
        TL_CHECK(0, "slice/dice of %s failed", tl_str(&l));
        return;
    }
    TL_CHECK(axe_cute_point_equal(&off, &fd) &&
                 axe_tuple_equal(&ts, &s.shape) &&
                 axe_tuple_equal(&td, &d.shape) &&
                 s.shape.nleaf + d.shape.nleaf == l.shape.nleaf,
             "slice/dice of %s: offset or shapes disagree", tl_str(&l));
    for (int64_t j = 0; bad < 0 && j < n; j++) {
        axe_tuple x, full;
        axe_cute_point lhs, sx, r1, r2;
        int ok = axe_tuple_idx2crd(j, &s.shape, &x) == AXE_OK;
        full = fill_crd(&crd, &x);
        ok = ok && crd_point(&l, &full, &lhs) &&
             axe_cute_eval_point(&s, j, &sx) == AXE_OK;
        r1 = point_sum(&off, &sx);
        r2 = point_sum(&fd, &sx);
        if (!ok || !axe_cute_point_equal(&lhs, &r1) ||
            !axe_cute_point_equal(&lhs, &r2))
            bad = j;
    }
    TL_CHECK(bad < 0, "slice law: %s at index %lld of the slice by %s",
             tl_str(&l), (long long)bad, tl_str(&s));
}

/* Coordinates that are not weakly congruent (an extra mode) or out of
 * range are rejected with AXE_ERR_INCOMPATIBLE / AXE_ERR_DOMAIN. */
static void law_slice_reject_one(void)
{
    axe_cute_layout l = tl_random_layout(5, 3, 256, 9, 1), r;
    axe_tuple crd = random_crd(&l.shape, 1), bad = crd;
    axe_status s;
    if (!axe_tuple_is_scalar(&crd)) {
        bad.tok[bad.ntok - 1] = 'x';
        bad.tok[bad.ntok++] = ')';
        bad.v[bad.nleaf++] = AXE_UNDERSCORE;
    } else {
        bad = tl_tuple("(_,_,_,_,_,_)");
    }
    s = axe_cute_slice(&l, &bad, &r, NULL, NULL);
    TL_CHECK(s == AXE_ERR_INCOMPATIBLE, "slice %s by a wider coordinate: %s",
             tl_str(&l), axe_status_name(s));
    bad = crd;
    for (int i = 0; i < bad.nleaf; i++)
        if (bad.v[i] != AXE_UNDERSCORE) {
            bad.v[i] = tl_range(0, 1) ? -1 - bad.v[i] : 1000000;
            s = axe_cute_slice(&l, &bad, &r, NULL, NULL);
            TL_CHECK(s == AXE_ERR_DOMAIN, "slice %s out of range: %s",
                     tl_str(&l), axe_status_name(s));
            break;
        }
}

/* ---- laws: recast ------------------------------------------------------ */

/* Leaf coordinates of "i" over the leaves of "l" (colex, no absorption). */
static void leaf_coords(const axe_cute_layout *l, int64_t i, int64_t *c)
{
    for (int k = 0; k < l->shape.nleaf; k++) {
        c[k] = i % l->shape.v[k];
        i /= l->shape.v[k];
    }
}

static int64_t leaf_index(const axe_cute_layout *l, const int64_t *c)
{
    int64_t i = 0;
    for (int k = l->shape.nleaf - 1; k >= 0; k--)
        i = i * l->shape.v[k] + c[k];
    return i;
}

/* sum c_k d_k over the leaves, by hand. */
static int64_t brute_eval(const axe_cute_layout *l, const int64_t *c)
{
    int64_t r = 0;
    for (int k = 0; k < l->shape.nleaf; k++)
        r += c[k] * l->stride[k];
    return r;
}

/* Laws over large domains check PROBES indices: all of them when the
 * domain is that small, else random ones. */
#define PROBES 512

static int64_t probes(int64_t m) { return m < PROBES ? m : PROBES; }

static int64_t probe(int64_t j, int64_t m)
{
    return m <= PROBES ? j : tl_range(0, m - 1);
}

static int64_t size_of(const axe_cute_layout *l)
{
    int64_t n = 0;
    return axe_cute_size(l, &n) == AXE_OK ? n : -1;
}

/* A random layout that upcast by "n" accepts: every stride 0, a multiple
 * of n or a divisor of n, either sign; "unit" forces exactly one stride-1
 * leaf and nonnegative multiples of n elsewhere. */
static axe_cute_layout random_upcastable(int64_t n, int unit)
{
    axe_cute_layout l = tl_random_layout(5, 2, 256, 1, 0);
    int u = (int)tl_range(0, l.shape.nleaf - 1);
    for (int k = 0; k < l.shape.nleaf; k++) {
        int64_t d;
        do
            d = tl_range(1, n);
        while (n % d != 0);
        l.stride[k] = tl_range(0, 5) == 0 ? 0
                      : tl_range(0, 1)    ? n * tl_range(1, 8)
                                          : d;
        if (unit)
            l.stride[k] = k == u ? 1 : n * tl_range(0, 8);
        else if (tl_range(0, 3) == 0)
            l.stride[k] = -l.stride[k];
    }
    return l;
}

static const int64_t factors[] = {2, 3, 4, 6, 8};

static int64_t random_factor(void)
{
    return factors[tl_range(0, sizeof factors / sizeof factors[0] - 1)];
}

/*
 * upcast: for every leaf coordinate x of U = upcast(L, n), lift(x) (x_k
 * times n/|d_k| on the leaves whose stride d_k is not a multiple of n) is
 * a coordinate of L and L(lift(x)) == n * U(x).
 */
static void law_upcast_one(void)
{
    int64_t n = random_factor();
    axe_cute_layout l = random_upcastable(n, 0), u;
    int64_t c[AXE_CUTE_MAX_LEAVES], lc[AXE_CUTE_MAX_LEAVES], m, bad = -1;
    if (axe_cute_upcast(&l, n, &u, NULL) != AXE_OK) {
        TL_CHECK(0, "upcast %s by %lld failed", tl_str(&l), (long long)n);
        return;
    }
    m = size_of(&u);
    for (int64_t j = 0; bad < 0 && j < m; j++) {
        int ok = 1;
        leaf_coords(&u, j, c);
        for (int k = 0; k < l.shape.nleaf; k++) {
            int64_t d = l.stride[k];
            lc[k] = d != 0 && d % n != 0 ? c[k] * (n / (d < 0 ? -d : d)) : c[k];
            ok = ok && lc[k] < l.shape.v[k];
        }
        if (!ok || brute_eval(&l, lc) != n * brute_eval(&u, c))
            bad = j;
    }
    TL_CHECK(bad < 0, "upcast law: %s by %lld = %s at %lld", tl_str(&l),
             (long long)n, tl_str(&u), (long long)bad);
}

/*
 * upcast with one unit-stride leaf k and multiples of n elsewhere: for
 * every coordinate c of L, U(c with c_k / n) == floor(L(c) / n); so U
 * addresses the n-element vector that holds each element of L.
 */
static void law_upcast_floor_one(void)
{
    int64_t n = random_factor();
    axe_cute_layout l = random_upcastable(n, 1), u;
    int64_t c[AXE_CUTE_MAX_LEAVES], m = size_of(&l), bad = -1;
    if (axe_cute_upcast(&l, n, &u, NULL) != AXE_OK) {
        TL_CHECK(0, "upcast %s by %lld failed", tl_str(&l), (long long)n);
        return;
    }
    for (int64_t i = 0; bad < 0 && i < m; i++) {
        int64_t v;
        leaf_coords(&l, i, c);
        v = brute_eval(&l, c);
        for (int k = 0; k < l.shape.nleaf; k++)
            if (l.stride[k] == 1)
                c[k] /= n;
        if (brute_eval(&u, c) != v / n)
            bad = i;
    }
    TL_CHECK(bad < 0, "upcast floor law: %s by %lld at %lld", tl_str(&l),
             (long long)n, (long long)bad);
}

/*
 * downcast: for every leaf coordinate x of W = downcast(L, n),
 * W(x) == n * L(x') + sum over the unit leaves k (d_k = +-1) of
 * d_k * (x_k mod n), where x' is x with x_k / n on those leaves. And
 * upcast(downcast(L, n), n) == L.
 */
static void law_downcast_one(void)
{
    int64_t n = random_factor(), m, bad = -1;
    axe_cute_layout l = tl_random_layout(5, 2, 128, 6, 1), w, back;
    int64_t c[AXE_CUTE_MAX_LEAVES];
    for (int k = 0; k < l.shape.nleaf; k++)
        if (tl_range(0, 2) == 0)
            l.stride[k] = tl_range(0, 1) ? 1 : -1;
    if (axe_cute_downcast(&l, n, &w, NULL) != AXE_OK ||
        axe_cute_upcast(&w, n, &back, NULL) != AXE_OK) {
        TL_CHECK(0, "downcast %s by %lld failed", tl_str(&l), (long long)n);
        return;
    }
    TL_CHECK(axe_cute_equal(&back, &l), "upcast(downcast(%s, %lld)) = %s",
             tl_str(&l), (long long)n, tl_str(&back));
    m = size_of(&w);
    for (int64_t j = 0; bad < 0 && j < probes(m); j++) {
        int64_t want, rest = 0;
        leaf_coords(&w, probe(j, m), c);
        want = brute_eval(&w, c);
        for (int k = 0; k < l.shape.nleaf; k++)
            if (l.stride[k] == 1 || l.stride[k] == -1) {
                rest += l.stride[k] * (c[k] % n);
                c[k] /= n;
            }
        if (want != n * brute_eval(&l, c) + rest)
            bad = j;
    }
    TL_CHECK(bad < 0, "downcast law: %s by %lld at %lld", tl_str(&l),
             (long long)n, (long long)bad);
}

/* recast(L, old, new) == downcast(upcast(L, new/g), old/g), g the gcd. */
static void law_recast_one(void)
{
    int64_t bits[] = {4, 8, 16, 24, 32, 48, 64};
    int64_t o = bits[tl_range(0, 6)], w = bits[tl_range(0, 6)], g = o, t = w;
    axe_cute_layout l = tl_random_layout(4, 2, 256, 64, 0), a, b;
    axe_status s1, s2;
    while (t != 0) {
        int64_t r = g % t;
        g = t;
        t = r;
    }
    s1 = axe_cute_recast(&l, o, w, &a, NULL);
    s2 = axe_cute_upcast(&l, w / g, &b, NULL);
    if (s2 == AXE_OK)
        s2 = axe_cute_downcast(&b, o / g, &b, NULL);
    TL_CHECK(s1 == s2 && (s1 != AXE_OK || axe_cute_equal(&a, &b)),
             "recast %s from %lld to %lld bits", tl_str(&l), (long long)o,
             (long long)w);
}

/* ---- laws: composed layouts -------------------------------------------- */

static axe_swizzle random_swizzle(void)
{
    axe_swizzle sw;
    int b = (int)tl_range(0, 3), m = (int)tl_range(0, 4);
    int s = (int)tl_range(b > 0 ? b : 0, 5);
    if (axe_swizzle_make(b, m, tl_range(0, 1) ? s : -s, &sw, NULL) != AXE_OK)
        exit(2);
    return sw;
}

/* A random composed layout: a swizzle over an integer inner layout, or a
 * layout outer with an integer or coordinate offset. */
static axe_cute_composed random_composed(void)
{
    axe_cute_composed c;
    memset(&c, 0, sizeof c);
    c.inner = tl_random_layout(5, 3, 256, 12, 0);
    if (tl_range(0, 1)) {
        c.kind = AXE_CUTE_OUTER_SWIZZLE;
        c.swizzle = random_swizzle();
        axe_tuple_scalar(tl_range(0, 64), &c.offset);
        return c;
    }
    c.kind = AXE_CUTE_OUTER_LAYOUT;
    c.outer = tl_random_layout(4, 2, 64, 8, 1);
    if (tl_range(0, 1))
        c.offset = random_crd(&c.outer.shape, 0);
    else
        axe_tuple_scalar(tl_range(0, 64), &c.offset);
    return c;
}

/*
 * c(i) == outer(offset + inner(i)), evaluated by hand: a swizzle applied
 * to the sum, or the outer layout at the index crd2idx(offset) + inner(i);
 * for a swizzle also S(c(i)) == offset + inner(i) (an involution).
 */
static void law_composed_eval_one(void)
{
    axe_cute_composed c = random_composed();
    int64_t n = size_of(&c.inner), off = offset_index(&c), bad = -1;
    for (int64_t i = 0; bad < 0 && i < n; i++) {
        axe_cute_point p;
        int64_t x, want = -1;
        int ok = axe_cute_eval(&c.inner, i, &x) == AXE_OK;
        x += off;
        if (c.kind == AXE_CUTE_OUTER_SWIZZLE)
            want = axe_swizzle_apply(&c.swizzle, x);
        else
            ok = ok && axe_cute_eval(&c.outer, x, &want) == AXE_OK;
        ok = ok && axe_cute_composed_eval_point(&c, i, &p) == AXE_OK &&
             p.n <= 1 && (p.n == 0 ? want == 0 : p.v[0] == want);
        if (c.kind == AXE_CUTE_OUTER_SWIZZLE)
            ok = ok && axe_swizzle_apply(&c.swizzle, want) == x;
        if (!ok)
            bad = i;
    }
    TL_CHECK(bad < 0, "composed eval of inner %s at %lld", tl_str(&c.inner),
             (long long)bad);
}

/* outer o 0 o identity(shape(outer)) is outer itself (scaled-basis inner
 * values are coordinates of outer's domain). */
static void law_composed_identity_one(void)
{
    axe_cute_composed c;
    int64_t n, bad = -1;
    memset(&c, 0, sizeof c);
    c.kind = AXE_CUTE_OUTER_LAYOUT;
    c.outer = tl_random_layout(5, 2, 256, 16, 1);
    axe_tuple_scalar(0, &c.offset);
    if (axe_cute_make_identity(&c.outer.shape, &c.inner) != AXE_OK ||
        axe_cute_size(&c.outer, &n) != AXE_OK) {
        TL_CHECK(0, "identity of %s", tl_str(&c.outer));
        return;
    }
    for (int64_t i = 0; bad < 0 && i < n; i++) {
        axe_cute_point p, q;
        if (axe_cute_composed_eval_point(&c, i, &p) != AXE_OK ||
            axe_cute_eval_point(&c.outer, i, &q) != AXE_OK ||
            !axe_cute_point_equal(&p, &q))
            bad = i;
    }
    TL_CHECK(bad < 0, "%s o 0 o identity at %lld", tl_str(&c.outer),
             (long long)bad);
}

/* c(crd filled with x) == slice(c, crd)(x) for every x; a coordinate
 * without `_` is rejected. */
static void law_composed_slice_one(void)
{
    axe_cute_composed c = random_composed(), s;
    axe_tuple crd = random_crd(&c.inner.shape, 1);
    axe_status st = axe_cute_composed_slice(&c, &crd, &s, NULL);
    int64_t n, bad = -1;
    if (!has_wild(&crd)) {
        TL_CHECK(st == AXE_ERR_DOMAIN, "composed slice without _: %s",
                 axe_status_name(st));
        return;
    }
    n = size_of(&s.inner);
    TL_CHECK(st == AXE_OK, "composed slice of %s", tl_str(&c.inner));
    for (int64_t j = 0; st == AXE_OK && bad < 0 && j < n; j++) {
        axe_tuple x, full;
        axe_cute_point p, q;
        int64_t idx;
        int ok = axe_tuple_idx2crd(j, &s.inner.shape, &x) == AXE_OK;
        full = fill_crd(&crd, &x);
        ok = ok && axe_tuple_crd2idx(&full, &c.inner.shape, &idx) == AXE_OK &&
             axe_cute_composed_eval_point(&c, idx, &p) == AXE_OK &&
             axe_cute_composed_eval_point(&s, j, &q) == AXE_OK &&
             axe_cute_point_equal(&p, &q);
        if (!ok)
            bad = j;
    }
    TL_CHECK(bad < 0, "composed slice law: inner %s at %lld", tl_str(&c.inner),
             (long long)bad);
}

/* The value of a swizzle composed layout at leaf coordinates "lc". */
static int64_t swz_at(const axe_cute_composed *c, const int64_t *lc)
{
    axe_cute_point p;
    int64_t i = leaf_index(&c->inner, lc);
    if (axe_cute_composed_eval_point(c, i, &p) != AXE_OK)
        return -1;
    return p.n == 0 ? 0 : p.v[0];
}

/* A swizzle composed layout with offset a multiple of n and an inner
 * layout with one unit-stride leaf and multiples of n elsewhere. */
static axe_cute_composed random_swizzled(int64_t n)
{
    axe_cute_composed c;
    memset(&c, 0, sizeof c);
    c.kind = AXE_CUTE_OUTER_SWIZZLE;
    c.swizzle = random_swizzle();
    c.inner = random_upcastable(n, 1);
    axe_tuple_scalar(n * tl_range(0, 16), &c.offset);
    return c;
}

/*
 * Swizzle composed upcast by n = 2^k: up(c)(x) == c(lift(x)) >> k, lift as
 * for layouts; refused exactly when the shift is negative and M < k.
 */
static void law_composed_upcast_one(void)
{
    int k = (int)tl_range(1, 3);
    int64_t n = (int64_t)1 << k, c0[AXE_CUTE_MAX_LEAVES], m;
    int64_t c1[AXE_CUTE_MAX_LEAVES], bad = -1;
    axe_cute_composed c = random_swizzled(n), up;
    axe_status s = axe_cute_composed_recast(&c, 8, 8 * n, &up, NULL);
    TL_CHECK((s == AXE_OK) == !(c.swizzle.shift < 0 && c.swizzle.bits > 0 &&
                                c.swizzle.base < k),
             "swizzle upcast accepted iff exact: %s", axe_status_name(s));
    m = s == AXE_OK ? size_of(&up.inner) : 0;
    for (int64_t j = 0; bad < 0 && j < probes(m); j++) {
        leaf_coords(&up.inner, probe(j, m), c1);
        for (int i = 0; i < c.inner.shape.nleaf; i++)
            c0[i] = c.inner.stride[i] == 1 ? c1[i] * n : c1[i];
        if (swz_at(&up, c1) != swz_at(&c, c0) >> k)
            bad = j;
    }
    TL_CHECK(bad < 0, "swizzle upcast law at probe %lld", (long long)bad);
}

/*
 * Swizzle composed downcast by n = 2^k, u the unit-stride leaf of inner:
 * down(c)(x) == c(x') * n + (x_u mod n), x' = x with x_u / n.
 */
static void law_composed_downcast_one(void)
{
    int64_t n = (int64_t)1 << tl_range(1, 3), c0[AXE_CUTE_MAX_LEAVES], m;
    int64_t c1[AXE_CUTE_MAX_LEAVES], bad = -1;
    axe_cute_composed c = random_swizzled(n), down;
    axe_status s = axe_cute_composed_recast(&c, 8 * n, 8, &down, NULL);
    TL_CHECK(s == AXE_OK, "swizzle downcast: %s", axe_status_name(s));
    m = s == AXE_OK ? size_of(&down.inner) : 0;
    for (int64_t j = 0; bad < 0 && j < probes(m); j++) {
        int64_t r = 0;
        leaf_coords(&down.inner, probe(j, m), c1);
        memcpy(c0, c1, sizeof c0);
        for (int i = 0; i < c.inner.shape.nleaf; i++)
            if (c.inner.stride[i] == 1) {
                r = c1[i] % n;
                c0[i] = c1[i] / n;
            }
        if (swz_at(&down, c1) != swz_at(&c, c0) * n + r)
            bad = j;
    }
    TL_CHECK(bad < 0, "swizzle downcast law at probe %lld", (long long)bad);
}

/* ---- laws: max common vector ------------------------------------------ */

/* A random partner for "b": b itself, b with two leaves' strides swapped,
 * b's shape with some strides changed, or an unrelated random layout (for
 * which a ∘ right_inverse(b) is often not a layout). */
static axe_cute_layout random_partner(const axe_cute_layout *b)
{
    axe_cute_layout a = *b;
    int n = b->shape.nleaf, i = (int)tl_range(0, n - 1);
    int j = (int)tl_range(0, n - 1);
    int64_t t;
    switch (tl_range(0, 3)) {
    case 0:
        return a;
    case 2:
        return tl_random_layout(5, 2, 512, 8, 0);
    case 1:
        t = a.stride[i];
        a.stride[i] = a.stride[j];
        a.stride[j] = t;
        return a;
    default:
        a = tl_random_injective(6, 2, 512);
        a.shape = b->shape;
        for (int k = 0; k < n; k++)
            a.stride[k] = tl_range(0, 3) == 0 ? tl_range(0, 64) : b->stride[k];
        return a;
    }
}

/* The longest t <= size(inv) with a(inv(i)) == i for all i < t, by brute
 * force. */
static int64_t identity_run(const axe_cute_layout *a,
                            const axe_cute_layout *inv)
{
    int64_t m = size_of(inv), t = 0, x, y;
    while (t < m && axe_cute_eval(inv, t, &x) == AXE_OK &&
           axe_cute_eval(a, x, &y) == AXE_OK && y == t)
        t++;
    return t < 1 ? 1 : t;
}

/*
 * R = max_common_layout(a, b): a(R(i)) == b(R(i)) == i for all i < size(R)
 * and size(R) == max_common_vector(a, b). With inv = right_inverse(b):
 * R(i) == inv(i), size(R) <= identity_run(a, inv), with equality where
 * a ∘ inv is a layout (CuTe's case): there R is the longest such prefix.
 */
static void law_common_one(void)
{
    axe_cute_layout b = tl_random_injective(6, 2, 512);
    axe_cute_layout a = random_partner(&b), r, inv, ai;
    int64_t v, n, m, bad = -1;
    axe_status s = axe_cute_max_common_layout(&a, &b, &r);
    if (s != AXE_OK || axe_cute_max_common_vector(&a, &b, &v) != AXE_OK ||
        axe_cute_right_inverse(&b, &inv, NULL) != AXE_OK) {
        TL_CHECK(0, "max_common_layout(%s, %s): %s", tl_str(&a), tl_str(&b),
                 axe_status_name(s));
        return;
    }
    n = size_of(&r);
    m = size_of(&inv);
    TL_CHECK(v == n && n <= m, "max_common_vector(%s, %s) = %lld, |R| %lld",
             tl_str(&a), tl_str(&b), (long long)v, (long long)n);
    for (int64_t i = 0; bad < 0 && i < n; i++) {
        int64_t x, y, ya, yb;
        if (axe_cute_eval(&r, i, &x) != AXE_OK ||
            axe_cute_eval(&inv, i, &y) != AXE_OK || x != y ||
            axe_cute_eval(&a, x, &ya) != AXE_OK ||
            axe_cute_eval(&b, x, &yb) != AXE_OK || ya != i || yb != i)
            bad = i;
    }
    TL_CHECK(bad < 0, "common layout %s of %s and %s at %lld", tl_str(&r),
             tl_str(&a), tl_str(&b), (long long)bad);
    m = identity_run(&a, &inv);
    TL_CHECK(axe_cute_compose(&a, &inv, &ai, NULL) == AXE_OK ? n == m : n <= m,
             "max_common_layout(%s, %s) = %s, the identity run is %lld",
             tl_str(&a), tl_str(&b), tl_str(&r), (long long)m);
}

/* ---- main ------------------------------------------------------------- */

static void repeat(void (*law)(void), int times)
{
    for (int k = 0; k < times; k++)
        law();
}

/* A reason longer than the diag holds is cut with "..." (never silently),
 * one that fits is kept whole; brute force over every length up to twice the
 * bound. */
static void test_diag_cut(void)
{
    char want[AXE_DIAG_MESSAGE_MAX * 2];
    for (int n = 0; n < (int)sizeof want - 1; n++) {
        axe_diag d;
        memset(want, 'a' + n % 26, (size_t)n);
        want[n] = '\0';
        axe_status s = axe__fail(&d, AXE_ERR_DOMAIN, 3, "%s", want);
        size_t len = strlen(d.message);
        bool fits = n <= AXE_DIAG_MESSAGE_MAX - 1;
        TL_CHECK(s == AXE_ERR_DOMAIN && d.offset == 3, "status/offset kept");
        if (fits)
            TL_CHECK(strcmp(d.message, want) == 0, "length %d kept whole", n);
        else
            TL_CHECK(len == AXE_DIAG_MESSAGE_MAX - 1 &&
                         strcmp(d.message + len - 3, "...") == 0 &&
                         strncmp(d.message, want, len - 3) == 0,
                     "length %d: cut with '...' (got %zu bytes)", n, len);
    }
}

int main(void)
{
    tl_seed("test_cute_misc", 20261122);
    test_vectors();
    test_slice_rows();
    test_slice_basis();
    test_slice_rejects();
    test_tuple_rows();
    test_recast_rows();
    test_composed_eval_rows();
    test_composed_slice_rows();
    test_composed_recast_rows();
    test_composed_with_inner();
    test_common_rows();
    test_diag_cut();
    repeat(law_slice_one, 2000);
    repeat(law_slice_reject_one, 1000);
    repeat(law_upcast_one, 2000);
    repeat(law_upcast_floor_one, 2000);
    repeat(law_downcast_one, 2000);
    repeat(law_recast_one, 2000);
    repeat(law_composed_eval_one, 1000);
    repeat(law_composed_identity_one, 500);
    repeat(law_composed_slice_one, 2000);
    repeat(law_composed_upcast_one, 1000);
    repeat(law_composed_downcast_one, 1000);
    repeat(law_common_one, 3000);
    printf("skipped %d vector rows (cute.flatten of a tiler: the library "
           "has no tiler flatten)\n",
           nskipped);
    return tl_finish();
}
