/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of hierarchical integer tuples (axe/tuple.h): tables written in the
 * notation for rank, depth, size, flatten, get, congruence, weak
 * congruence, compatibility, colexicographic idx2crd/crd2idx (the last mode
 * absorbing out-of-range indices, CuTe paper §2.2.2), prefix and suffix
 * products, shape_div and ceil_div, overflow and capacity statuses; then
 * seeded random laws (AXE_TEST_SEED=N replays) against a brute-force
 * colexicographic counter. Invariant: every failing row prints itself, and
 * the last line is "N passed, N failed".
 */
#include "testlib.h"

#define NONE INT64_MIN

/* The canonical text of "t" in a rotating static buffer. */
static const char *tstr(const axe_tuple *t)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    axe_print_tuple(t, buf[k], sizeof buf[k]);
    return buf[k];
}

static void test_structure(void)
{
    static const struct {
        const char *t;
        int rank, depth;
        int64_t size;
        const char *flat;
    } rows[] = {
        {"4", 1, 0, 4, "4"},
        {"(4)", 1, 1, 4, "(4)"},
        {"()", 0, 1, 1, "()"},
        {"(2,3)", 2, 1, 6, "(2,3)"},
        {"((2,2),3)", 2, 2, 12, "(2,2,3)"},
        {"(((4)))", 1, 3, 4, "(4)"},
        {"(2,(3,(4,5)),6)", 3, 3, 720, "(2,3,4,5,6)"},
        {"((),4)", 2, 2, 4, "(4)"},
        {"(1,1,1)", 3, 1, 1, "(1,1,1)"},
        {"(0,5)", 2, 1, 0, "(0,5)"},
        {"(-2,3)", 2, 1, -6, "(-2,3)"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple t = tl_tuple(rows[i].t), f;
        int64_t size = -1;
        axe_status st = axe_tuple_size(&t, &size);
        axe_tuple_flatten(&t, &f);
        TL_CHECK(axe_tuple_rank(&t) == rows[i].rank, "rank %s = %d", rows[i].t,
                 axe_tuple_rank(&t));
        TL_CHECK(axe_tuple_depth(&t) == rows[i].depth, "depth %s = %d",
                 rows[i].t, axe_tuple_depth(&t));
        TL_CHECK(st == AXE_OK && size == rows[i].size,
                 "size %s = %" PRId64 " (%s)", rows[i].t, size,
                 axe_status_name(st));
        TL_CHECK(strcmp(tstr(&f), rows[i].flat) == 0, "flatten %s = %s",
                 rows[i].t, tstr(&f));
        TL_CHECK(axe_tuple_is_scalar(&t) == (rows[i].depth == 0),
                 "is_scalar %s", rows[i].t);
    }
}

static void test_get(void)
{
    static const struct {
        const char *t;
        int i;
        axe_status st;
        const char *want;
    } rows[] = {
        {"((2,2),3)", 0, AXE_OK, "(2,2)"},
        {"((2,2),3)", 1, AXE_OK, "3"},
        {"((2,2),3)", 2, AXE_ERR_DOMAIN, NULL},
        {"((2,2),3)", -1, AXE_ERR_DOMAIN, NULL},
        {"(2,(3,(4,5)),6)", 1, AXE_OK, "(3,(4,5))"},
        {"(4)", 0, AXE_OK, "4"},
        {"7", 0, AXE_OK, "7"},
        {"7", 1, AXE_ERR_DOMAIN, NULL},
        {"()", 0, AXE_ERR_DOMAIN, NULL},
        {"((),4)", 0, AXE_OK, "()"},
        {"(1,_,3)", 1, AXE_OK, "_"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple t = tl_tuple(rows[i].t), out;
        axe_status st = axe_tuple_get(&t, rows[i].i, &out);
        TL_CHECK(st == rows[i].st &&
                     (st != AXE_OK || strcmp(tstr(&out), rows[i].want) == 0),
                 "get<%d> %s = %s (%s)", rows[i].i, rows[i].t,
                 st == AXE_OK ? tstr(&out) : "-", axe_status_name(st));
    }
}

static void test_relations(void)
{
    static const struct {
        const char *a, *b;
        int congruent, weak, compatible;
    } rows[] = {
        {"4", "4", 1, 1, 1},
        {"4", "5", 1, 1, 0},
        {"(2,3)", "(1,2)", 1, 1, 0},
        {"(2,3)", "(2,3)", 1, 1, 1},
        {"6", "(2,3)", 0, 1, 1},
        {"12", "((2,2),3)", 0, 1, 1},
        {"(4,3)", "((2,2),3)", 0, 1, 1},
        {"(4,3)", "(3,4)", 1, 1, 0},
        {"(2,3)", "((1,1),2)", 0, 1, 0},
        {"((1,1),2)", "(4,3)", 0, 0, 0},
        {"(2,3)", "6", 0, 0, 0},
        {"(2,3)", "(2,3,1)", 0, 0, 0},
        {"(2,3,1)", "(2,3)", 0, 0, 0},
        {"(6,2)", "((2,3),2)", 0, 1, 1},
        {"(_,2)", "((2,3),2)", 0, 1, 0},
        {"()", "()", 1, 1, 1},
        {"()", "(4)", 0, 0, 0},
        {"1", "()", 0, 1, 1},
        {"((4))", "(4)", 0, 0, 0},
        {"(4)", "((4))", 0, 1, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple a = tl_tuple(rows[i].a), b = tl_tuple(rows[i].b);
        TL_CHECK(axe_tuple_is_congruent(&a, &b) == (rows[i].congruent != 0),
                 "congruent %s %s", rows[i].a, rows[i].b);
        TL_CHECK(axe_tuple_is_weakly_congruent(&a, &b) == (rows[i].weak != 0),
                 "weakly congruent %s %s", rows[i].a, rows[i].b);
        TL_CHECK(axe_tuple_is_compatible(&a, &b) == (rows[i].compatible != 0),
                 "compatible %s %s", rows[i].a, rows[i].b);
        TL_CHECK(axe_tuple_equal(&a, &b) == (strcmp(rows[i].a, rows[i].b) == 0),
                 "equal %s %s", rows[i].a, rows[i].b);
    }
}

static void test_idx2crd(void)
{
    static const struct {
        int64_t idx;
        const char *shape;
        axe_status st;
        const char *want;
    } rows[] = {
        {0, "(2,3)", AXE_OK, "(0,0)"},
        {5, "(2,3)", AXE_OK, "(1,2)"},
        {3, "(2,3)", AXE_OK, "(1,1)"},
        {7, "(2,3)", AXE_OK, "(1,3)"},
        {13, "(2,3)", AXE_OK, "(1,6)"},
        {7, "4", AXE_OK, "7"},
        {11, "((2,2),3)", AXE_OK, "((1,1),2)"},
        {13, "((2,2),3)", AXE_OK, "((1,0),3)"},
        {13, "(3,(2,2))", AXE_OK, "(1,(0,2))"},
        {23, "(2,(3,(4,5)),6)", AXE_OK, "(1,(2,(3,0)),0)"},
        {9, "(4)", AXE_OK, "(9)"},
        {0, "()", AXE_OK, "()"},
        {5, "(1,1)", AXE_OK, "(0,5)"},
        {-1, "(2,3)", AXE_ERR_DOMAIN, NULL},
        {0, "((4294967296,4294967296),2)", AXE_ERR_OVERFLOW, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple s = tl_tuple(rows[i].shape), c;
        axe_status st = axe_tuple_idx2crd(rows[i].idx, &s, &c);
        TL_CHECK(st == rows[i].st &&
                     (st != AXE_OK || strcmp(tstr(&c), rows[i].want) == 0),
                 "idx2crd(%" PRId64 ", %s) = %s (%s)", rows[i].idx,
                 rows[i].shape, st == AXE_OK ? tstr(&c) : "-",
                 axe_status_name(st));
    }
}

static void test_crd2idx(void)
{
    static const struct {
        const char *crd, *shape;
        axe_status st;
        int64_t want;
    } rows[] = {
        {"(0,0)", "(2,3)", AXE_OK, 0},
        {"(1,2)", "(2,3)", AXE_OK, 5},
        {"(1,3)", "(2,3)", AXE_OK, 7},
        {"(1,6)", "(2,3)", AXE_OK, 13},
        {"(3,0)", "(2,3)", AXE_OK, 3},
        {"5", "(2,3)", AXE_OK, 5},
        {"9", "((2,2),3)", AXE_OK, 9},
        {"(3,2)", "((2,2),3)", AXE_OK, 11},
        {"((1,1),2)", "((2,2),3)", AXE_OK, 11},
        {"((1,0),3)", "((2,2),3)", AXE_OK, 13},
        {"(1,5)", "(2,(3,4))", AXE_OK, 11},
        {"(1,(2,3))", "(2,(3,4))", AXE_OK, 23},
        {"7", "4", AXE_OK, 7},
        {"()", "()", AXE_OK, 0},
        {"(_,1)", "(2,3)", AXE_ERR_INVALID, NONE},
        {"_", "4", AXE_ERR_INVALID, NONE},
        {"(1,2,3)", "(2,3)", AXE_ERR_INCOMPATIBLE, NONE},
        {"(1)", "(2,3)", AXE_ERR_INCOMPATIBLE, NONE},
        {"((1,1),2)", "(4,3)", AXE_ERR_INCOMPATIBLE, NONE},
        {"(1,2)", "6", AXE_ERR_INCOMPATIBLE, NONE},
        {"(1,4611686018427387904)", "(2,4)", AXE_ERR_OVERFLOW, NONE},
        {"(9223372036854775807,1)", "(2,2)", AXE_ERR_OVERFLOW, NONE},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple c = tl_tuple(rows[i].crd), s = tl_tuple(rows[i].shape);
        int64_t idx = NONE;
        axe_status st = axe_tuple_crd2idx(&c, &s, &idx);
        TL_CHECK(st == rows[i].st && (st != AXE_OK || idx == rows[i].want),
                 "crd2idx(%s, %s) = %" PRId64 " (%s)", rows[i].crd,
                 rows[i].shape, idx, axe_status_name(st));
    }
}

static void test_products(void)
{
    static const struct {
        const char *t;
        axe_status st;
        const char *prefix, *suffix;
    } rows[] = {
        {"4", AXE_OK, "1", "1"},
        {"(2,3)", AXE_OK, "(1,2)", "(3,1)"},
        {"((2,2),3)", AXE_OK, "((1,2),4)", "((6,3),1)"},
        {"(2,(3,(4,5)),6)", AXE_OK, "(1,(2,(6,24)),120)",
         "(360,(120,(30,6)),1)"},
        {"()", AXE_OK, "()", "()"},
        {"((),4)", AXE_OK, "((),1)", "((),1)"},
        {"(4294967296,4294967296,2)", AXE_ERR_OVERFLOW, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_tuple t = tl_tuple(rows[i].t), p, s;
        axe_status sp = axe_tuple_prefix_product(&t, &p);
        axe_status ss = axe_tuple_suffix_product(&t, &s);
        TL_CHECK(sp == rows[i].st &&
                     (sp != AXE_OK || strcmp(tstr(&p), rows[i].prefix) == 0),
                 "prefix_product %s = %s (%s)", rows[i].t,
                 sp == AXE_OK ? tstr(&p) : "-", axe_status_name(sp));
        TL_CHECK(ss == rows[i].st &&
                     (ss != AXE_OK || strcmp(tstr(&s), rows[i].suffix) == 0),
                 "suffix_product %s = %s (%s)", rows[i].t,
                 ss == AXE_OK ? tstr(&s) : "-", axe_status_name(ss));
    }
}

static void test_divisions(void)
{
    static const struct {
        int shape_div; /* 1: shape_div, 0: ceil_div */
        int64_t a, b;
        axe_status st;
        int64_t want;
    } rows[] = {
        {1, 12, 4, AXE_OK, 3},
        {1, 4, 12, AXE_OK, 1},
        {1, 4, 4, AXE_OK, 1},
        {1, 6, 4, AXE_ERR_DIVISIBILITY, NONE},
        {1, -12, 4, AXE_OK, -3},
        {1, -4, 12, AXE_OK, -1},
        {1, 4, -12, AXE_OK, -1},
        {1, 0, 4, AXE_OK, 0},
        {1, 4, 0, AXE_ERR_DIVISIBILITY, NONE},
        {1, INT64_MIN, 2, AXE_ERR_DIVISIBILITY, NONE},
        {1, INT64_MAX, INT64_MAX, AXE_OK, 1},
        {0, 7, 2, AXE_OK, 4},
        {0, 8, 2, AXE_OK, 4},
        {0, 0, 3, AXE_OK, 0},
        {0, 1, 3, AXE_OK, 1},
        {0, INT64_MAX, 1, AXE_OK, INT64_MAX},
        {0, INT64_MAX, 2, AXE_OK, INT64_MAX / 2 + 1},
        {0, -1, 2, AXE_ERR_DOMAIN, NONE},
        {0, 3, 0, AXE_ERR_DOMAIN, NONE},
        {0, 3, -1, AXE_ERR_DOMAIN, NONE},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int64_t r = NONE;
        axe_status st = rows[i].shape_div
                            ? axe_shape_div(rows[i].a, rows[i].b, &r)
                            : axe_ceil_div(rows[i].a, rows[i].b, &r);
        TL_CHECK(st == rows[i].st && (st != AXE_OK || r == rows[i].want),
                 "%s(%" PRId64 ", %" PRId64 ") = %" PRId64 " (%s)",
                 rows[i].shape_div ? "shape_div" : "ceil_div", rows[i].a,
                 rows[i].b, r, axe_status_name(st));
    }
}

static void test_builders(void)
{
    int64_t v[AXE_TUPLE_MAX_LEAVES + 1];
    axe_tuple t, keep;
    for (int i = 0; i <= AXE_TUPLE_MAX_LEAVES; i++)
        v[i] = i + 1;
    TL_CHECK(axe_tuple_from_array(v, 3, &t) == AXE_OK &&
                 strcmp(tstr(&t), "(1,2,3)") == 0,
             "from_array 3 = %s", tstr(&t));
    TL_CHECK(axe_tuple_from_array(v, 0, &t) == AXE_OK &&
                 strcmp(tstr(&t), "()") == 0,
             "from_array 0 = %s", tstr(&t));
    TL_CHECK(axe_tuple_from_array(v, AXE_TUPLE_MAX_LEAVES, &t) == AXE_OK &&
                 axe_tuple_rank(&t) == AXE_TUPLE_MAX_LEAVES,
             "from_array at capacity");
    keep = t;
    TL_CHECK(axe_tuple_from_array(v, AXE_TUPLE_MAX_LEAVES + 1, &t) ==
                     AXE_ERR_CAPACITY &&
                 axe_tuple_equal(&t, &keep),
             "from_array over capacity: CAPACITY, out untouched");
    TL_CHECK(axe_tuple_from_array(v, -1, &t) == AXE_ERR_INVALID,
             "from_array -1: INVALID");
    axe_tuple_scalar(-5, &t);
    TL_CHECK(strcmp(tstr(&t), "-5") == 0 && axe_tuple_is_scalar(&t),
             "scalar -5 = %s", tstr(&t));
}

/* Text with "n" leaves wrapped as `(1,1,...)`, each leaf in "wrap" extra
 * parentheses; the caller checks what parsing it gives. */
static void nested_text(char *buf, size_t cap, int n, int wrap)
{
    size_t k = 0;
    buf[k++] = '(';
    for (int i = 0; i < n && k + 2 * (size_t)wrap + 4 < cap; i++) {
        for (int w = 0; w < wrap; w++)
            buf[k++] = '(';
        buf[k++] = '1';
        for (int w = 0; w < wrap; w++)
            buf[k++] = ')';
        buf[k++] = i + 1 < n ? ',' : ')';
    }
    buf[k] = '\0';
}

static void test_capacity(void)
{
    static const struct {
        int n, wrap;
        axe_status st;
    } rows[] = {
        {AXE_TUPLE_MAX_LEAVES, 0, AXE_OK},
        {AXE_TUPLE_MAX_LEAVES + 1, 0, AXE_ERR_CAPACITY},
        {(AXE_TUPLE_MAX_TOKENS - 2) / 3, 1, AXE_OK},
        {(AXE_TUPLE_MAX_TOKENS - 2) / 3 + 1, 1, AXE_ERR_CAPACITY},
        {1, AXE_TUPLE_MAX_DEPTH - 1, AXE_OK},
        {1, AXE_TUPLE_MAX_DEPTH, AXE_ERR_CAPACITY},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[1024];
        axe_tuple t;
        axe_status st;
        nested_text(buf, sizeof buf, rows[i].n, rows[i].wrap);
        st = axe_parse_tuple(buf, strlen(buf), &t, NULL);
        TL_CHECK(st == rows[i].st, "parse %d leaves wrapped %d: %s", rows[i].n,
                 rows[i].wrap, axe_status_name(st));
    }
}

/* A random shape with 1..8 leaves, depth <= 3, size <= 512. */
static axe_tuple random_shape(void)
{
    axe_cute_layout l = tl_random_layout(8, 3, 512, 1, 0);
    return l.shape;
}

/* The colex successor of the coordinate "c" (leaves only) in "shape",
 * without absorption: the brute-force oracle for idx2crd. */
static void colex_next(int64_t *c, const axe_tuple *shape)
{
    for (int k = 0; k < shape->nleaf; k++) {
        if (++c[k] < shape->v[k])
            return;
        c[k] = 0;
    }
}

/* One random shape: crd2idx(idx2crd(i)) == i for i < size + 8, the
 * coordinate congruent to the shape and, below size, equal to the
 * colexicographic counter (past size the last mode absorbs). */
static void law_shape(void)
{
    axe_tuple s = random_shape();
    int64_t size, i, c[AXE_TUPLE_MAX_LEAVES] = {0};
    bool ok = axe_tuple_size(&s, &size) == AXE_OK;
    for (i = 0; ok && i < size + 8; i++) {
        axe_tuple crd;
        int64_t back = -1;
        ok = axe_tuple_idx2crd(i, &s, &crd) == AXE_OK &&
             axe_tuple_crd2idx(&crd, &s, &back) == AXE_OK && back == i &&
             axe_tuple_is_congruent(&crd, &s);
        for (int k = 0; ok && i < size && k < s.nleaf; k++)
            ok = crd.v[k] == c[k];
        colex_next(c, &s);
    }
    TL_CHECK(ok, "law idx2crd/crd2idx at %" PRId64 " in %s", i - 1, tstr(&s));
}

/* Shape laws that need no oracle: the prefix product is congruent and
 * its last-in-colex entry times that leaf is the size; size(s) and s are
 * compatible with s; s is weakly congruent to itself; flatten keeps the
 * leaves. */
static void law_shape_relations(void)
{
    axe_tuple s = random_shape(), p, n, f;
    int64_t size = 0;
    int last = s.nleaf - 1;
    TL_CHECK(axe_tuple_size(&s, &size) == AXE_OK &&
                 axe_tuple_prefix_product(&s, &p) == AXE_OK &&
                 axe_tuple_is_congruent(&p, &s) &&
                 p.v[last] * s.v[last] == size,
             "law prefix_product %s", tstr(&s));
    axe_tuple_scalar(size, &n);
    TL_CHECK(axe_tuple_is_compatible(&n, &s) &&
                 axe_tuple_is_compatible(&s, &s) &&
                 axe_tuple_is_weakly_congruent(&s, &s) &&
                 axe_tuple_is_weakly_congruent(&n, &s),
             "law compatible/weakly congruent %s", tstr(&s));
    axe_tuple_flatten(&s, &f);
    TL_CHECK(f.nleaf == s.nleaf &&
                 memcmp(f.v, s.v, (size_t)s.nleaf * sizeof s.v[0]) == 0 &&
                 axe_tuple_depth(&f) <= 1,
             "law flatten %s", tstr(&s));
}

int main(void)
{
    tl_seed("test_tuple", 20240601);
    test_structure();
    test_get();
    test_relations();
    test_idx2crd();
    test_crd2idx();
    test_products();
    test_divisions();
    test_builders();
    test_capacity();
    for (int k = 0; k < 2000; k++) {
        law_shape();
        law_shape_relations();
    }
    return tl_finish();
}
