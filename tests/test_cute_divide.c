/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Divides, products and tile_to_shape: tables (the CuTe paper's worked
 * examples and NVIDIA's test cases) and laws checked by evaluation on random
 * layouts:
 *   logical_divide(a, b)(j + size(b) k) == a(b(j) + c(k)),
 *       c = complement(b, size(a));
 *   zipped / tiled / flat divide have the same value multiset as logical;
 *   logical_product(a, b)(i + size(a) j) == a(i) + c(b(j)),
 *       c = complement(a, size(a) cosize(b));
 *   blocked / raked products have the same value multiset as logical;
 *   tile_to_shape restricted to the first block equals the block.
 */
#include "testlib.h"

typedef struct row {
    const char *op, *a, *b, *expect;
} row;

static const row rows[] = {
    /* CuTe paper / docs */
    {"logical_divide", "(8,16):(20,1)", "<4:1, 8:2>",
     "((4,2),(8,2)):((20,80),(2,1))"},
    {"logical_divide", "(8,8):(8,1)", "32:2", "((4,8),2):((16,1),8)"},
    {"logical_divide", "96:1", "32:2", "(32,(2,2)):(2,(1,64))"},
    {"logical_divide", "6:2", "2:3", "(2,3):(6,2)"},
    {"logical_divide", "(4,2,3):(2,1,8)", "4:2", "((2,2),(2,3)):((4,1),(2,8))"},
    {"logical_divide", "(6,6):(12,1)", "(6,3):(3,1)",
     "(((2,3),3),2):(((36,1),12),3)"},
    {"logical_divide", "(6,8):(8,1)", "[(3):(1);(4):(1)]",
     "(((3),2),((4),2)):(((8),24),((1),4))"},
    {"zipped_divide", "(8,32):(1,8)", "[4:1]", "((4),(2,32)):((1),(4,8))"},
    {"zipped_divide", "(6,8):(8,1)", "(3,4)", "((3,4),(2,2)):((8,1),(24,4))"},
    {"zipped_divide", "((8,8),(8,8),1):((512,64),(1,8),4096)", "[128:1;128:1]",
     "(((8,16),128),(1,1,1)):(((512,64),1),(1024,128,4096))"},
    {"tiled_divide", "(8,32):(1,8)", "[4:1]", "((4),2,32):((1),4,8)"},
    {"tiled_divide", "((2,(128,16)),(2,4,2)):((1,(2,256)),(4096,8192,32768))",
     "[_;[2:1;1:1]]",
     "((2,(2,1)),(128,16),(1,4,2)):((1,(4096,8192)),(2,256),(8192,8192,"
     "32768))"},
    {"tiled_divide", "(6,8):(8,1)", "(3,4):(1,3)",
     "((3,(2,2)),4):((8,(24,1)),2)"},
    {"flat_divide", "(6,8):(8,1)", "(3,4)", "(3,4,2,2):(8,1,24,4)"},
    {"flat_divide", "(6,8):(8,1)", "(3,4):(1,3)", "(3,(2,2),4):(8,(24,1),2)"},
    {"flat_divide", "(6,8):(8,1)", "[(3):(1);(4):(1)]",
     "((3),(4),2,2):((8),(1),24,4)"},
    {"logical_product", "(2,2):(4,1)", "6:1", "((2,2),(2,3)):((4,1),(2,8))"},
    {"logical_product", "(3,4):(4,1)", "(2,5):(1,2)",
     "((3,4),(2,5)):((4,1),(12,24))"},
    {"logical_product", "3:32", "(8,8):(8,1)", "(3,((4,2),8)):(32,((8,96),1))"},
    {"logical_product", "(4,2):(1,16)", "(4,2):(2,1)",
     "((4,2),((2,2),2)):((1,16),((8,32),4))"},
    {"zipped_product", "(3,4):(1,3)", "(4,5):(5,1)",
     "((3,4),(4,5)):((1,3),(60,12))"},
    {"tiled_product", "(5,4,2):(8,2,1)", "(2,3,5):(1,2,6)",
     "((5,4,2),2,3,5):((8,2,1),40,80,240)"},
    {"flat_product", "(5,4,2):(8,2,1)", "(2,3,5):(1,2,6)",
     "(5,4,2,2,3,5):(8,2,1,40,80,240)"},
    {"blocked_product", "(2,5):(5,1)", "(3,4):(1,3)",
     "((2,3),(5,4)):((5,10),(1,30))"},
    {"blocked_product", "(3,4,2):(8,2,1)", "(2,3,5):(1,2,6)",
     "((3,2),(4,3),(2,5)):((8,24),(2,48),(1,144))"},
    {"raked_product", "(2,5):(5,1)", "(3,4):(1,3)",
     "((3,2),(4,5)):((10,5),(30,1))"},
    {"raked_product", "128:1", "(4,4):(1,4)", "((4,128),4):((128,1),512)"},
    {"tile_to_shape", "(3,2):(1,3)", "(6,8)", "((3,2),(2,4)):((1,6),(3,12))"},
    {"tile_to_shape", "(3,3):(1,3)", "(5,8)", "((3,2),(3,3)):((1,9),(3,18))"},
    {"tile_to_shape", "(8,64):(64,1)", "(64,128,2)",
     "((8,8),(64,2),(1,2)):((64,512),(1,4096),(0,8192))"},
    {"tile_to_shape", "((32,4),(32,4)):((16,4),(0,1))", "(1024,256,2)",
     "(((32,4),8),((32,4),2),(1,2)):(((16,4),512),((0,1),4096),(0,8192))"},
};

static const char *divide_names[] = {"logical_divide", "zipped_divide",
                                     "tiled_divide", "flat_divide"};
static const char *product_names[] = {"logical_product", "zipped_product",
                                      "tiled_product",   "flat_product",
                                      "blocked_product", "raked_product"};

static int find(const char *const *names, int n, const char *op)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], op) == 0)
            return i;
    return -1;
}

/* Run a divide with "b" given as text: a layout, a tiler or a shape. */
static axe_status run_divide(int kind, const axe_cute_layout *a, const char *b,
                             axe_cute_layout *out, axe_diag *d)
{
    static axe_cute_object o;
    axe_cute_tiler t;
    if (axe_parse_cute(b, strlen(b), &o, NULL) != AXE_OK)
        return AXE_ERR_SYNTAX;
    if (o.kind == AXE_CUTE_KIND_LAYOUT)
        return axe_cute_divide_layout((axe_cute_divide_kind)kind, a, &o.layout,
                                      out, d);
    if (o.kind == AXE_CUTE_KIND_TUPLE) {
        axe_status s = axe_cute_tiler_from_shape(&o.tuple, &t);
        if (s != AXE_OK)
            return s;
        return axe_cute_divide((axe_cute_divide_kind)kind, a, &t, out, d);
    }
    return axe_cute_divide((axe_cute_divide_kind)kind, a, &o.tiler, out, d);
}

static void check_row(const row *r)
{
    axe_cute_layout a = tl_layout(r->a), e = tl_layout(r->expect), got;
    axe_diag d = {-1, ""};
    axe_status s;
    int k;
    if ((k = find(divide_names, 4, r->op)) >= 0) {
        s = run_divide(k, &a, r->b, &got, &d);
    } else if ((k = find(product_names, 6, r->op)) >= 0) {
        axe_cute_layout b = tl_layout(r->b);
        s = axe_cute_product((axe_cute_product_kind)k, &a, &b, &got, &d);
    } else {
        axe_tuple shape = tl_tuple(r->b);
        s = axe_cute_tile_to_shape(&a, &shape, NULL, &got, &d);
    }
    TL_CHECK(s == AXE_OK && tl_layout_matches(&got, &e),
             "%s(%s, %s): expected %s, got %s (%s %s)", r->op, r->a, r->b,
             r->expect, s == AXE_OK ? tl_str(&got) : "-", axe_status_name(s),
             d.message);
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* True if "l" has holes: cosize(l) > size(l) (the complement of such a
 * layout may not be composable with an arbitrary tiler). */
static int has_gaps(const axe_cute_layout *l)
{
    int64_t n, c;
    return axe_cute_size(l, &n) != AXE_OK || axe_cute_cosize(l, &c) != AXE_OK ||
           c > n;
}

/* Sorted values of "l" over its domain into "v" (size <= cap). */
static int64_t sorted_values(const axe_cute_layout *l, int64_t *v, int64_t cap)
{
    int64_t n;
    if (axe_cute_size(l, &n) != AXE_OK || n > cap)
        return -1;
    for (int64_t i = 0; i < n; i++)
        if (axe_cute_eval(l, i, &v[i]) != AXE_OK)
            return -1;
    qsort(v, (size_t)n, sizeof v[0], cmp_i64);
    return n;
}

static int same_multiset(const axe_cute_layout *x, const axe_cute_layout *y)
{
    static int64_t vx[4096], vy[4096];
    int64_t nx = sorted_values(x, vx, 4096), ny = sorted_values(y, vy, 4096);
    return nx >= 0 && nx == ny &&
           memcmp(vx, vy, (size_t)nx * sizeof(int64_t)) == 0;
}

/* logical_divide(a, b)(j + size(b) k) == a(b(j) + c(k)). */
static void law_divide(void)
{
    axe_cute_layout a = tl_random_layout(3, 2, 256, 9, 1);
    axe_cute_layout b = tl_random_injective(3, 2, 64), r, c, z;
    int64_t sa, sb, sc, ok = 1;
    axe_status s;
    if (axe_cute_size(&a, &sa) != AXE_OK || axe_cute_size(&b, &sb) != AXE_OK)
        return;
    s = axe_cute_divide_layout(AXE_CUTE_DIVIDE_LOGICAL, &a, &b, &r, NULL);
    if (s != AXE_OK || axe_cute_complement(&b, sa, &c, NULL) != AXE_OK ||
        axe_cute_size(&c, &sc) != AXE_OK) {
        TL_CHECK(s == AXE_ERR_NOT_COMPOSABLE || s == AXE_ERR_DIVISIBILITY ||
                     s == AXE_ERR_CAPACITY || s == AXE_ERR_OVERFLOW,
                 "logical_divide(%s, %s) failed with %s", tl_str(&a),
                 tl_str(&b), axe_status_name(s));
        return;
    }
    for (int64_t k = 0; k < sc && ok; k++)
        for (int64_t j = 0; j < sb && ok; j++) {
            int64_t bj, ck, x, y;
            ok = axe_cute_eval(&b, j, &bj) == AXE_OK &&
                 axe_cute_eval(&c, k, &ck) == AXE_OK &&
                 axe_cute_eval(&a, bj + ck, &x) == AXE_OK &&
                 axe_cute_eval(&r, j + sb * k, &y) == AXE_OK && x == y;
        }
    TL_CHECK(ok, "logical_divide(%s, %s) = %s violates a(b(j)+c(k))",
             tl_str(&a), tl_str(&b), tl_str(&r));
    for (int kind = 1; kind < 4; kind++) {
        s = axe_cute_divide_layout((axe_cute_divide_kind)kind, &a, &b, &z,
                                   NULL);
        TL_CHECK(s == AXE_OK && same_multiset(&z, &r),
                 "%s(%s, %s) is not a rearrangement of logical",
                 divide_names[kind], tl_str(&a), tl_str(&b));
    }
}

/* logical_product(a, b)(i + size(a) j) == a(i) + c(b(j)). */
static void law_product(void)
{
    axe_cute_layout a = tl_random_injective(3, 2, 64);
    axe_cute_layout b = tl_random_layout(3, 2, 32, 6, 0), r, c, z;
    int64_t sa, sb, cb, sc, ok = 1;
    axe_status s;
    if (axe_cute_size(&a, &sa) != AXE_OK || axe_cute_size(&b, &sb) != AXE_OK ||
        axe_cute_cosize(&b, &cb) != AXE_OK)
        return;
    s = axe_cute_product(AXE_CUTE_PRODUCT_LOGICAL, &a, &b, &r, NULL);
    if (s != AXE_OK) {
        TL_CHECK(s == AXE_ERR_NOT_COMPOSABLE && has_gaps(&a),
                 "logical_product(%s, %s) failed: %s", tl_str(&a), tl_str(&b),
                 axe_status_name(s));
        return;
    }
    (void)sc;
    TL_CHECK(axe_cute_complement(&a, sa * cb, &c, NULL) == AXE_OK,
             "complement(%s, %" PRId64 ") failed", tl_str(&a), sa * cb);
    for (int64_t j = 0; j < sb && ok; j++)
        for (int64_t i = 0; i < sa && ok; i++) {
            int64_t ai, bj, cbj, y;
            ok = axe_cute_eval(&a, i, &ai) == AXE_OK &&
                 axe_cute_eval(&b, j, &bj) == AXE_OK &&
                 axe_cute_eval(&c, bj, &cbj) == AXE_OK &&
                 axe_cute_eval(&r, i + sa * j, &y) == AXE_OK && y == ai + cbj;
        }
    TL_CHECK(ok, "logical_product(%s, %s) = %s violates a(i)+c(b(j))",
             tl_str(&a), tl_str(&b), tl_str(&r));
    for (int kind = 1; kind < 6; kind++) {
        s = axe_cute_product((axe_cute_product_kind)kind, &a, &b, &z, NULL);
        TL_CHECK(s == AXE_OK && same_multiset(&z, &r),
                 "%s(%s, %s) is not a rearrangement of logical",
                 product_names[kind], tl_str(&a), tl_str(&b));
    }
}

/* tile_to_shape: per-mode sizes rounded up, first block equals a. */
static void law_tile_to_shape(void)
{
    axe_cute_layout a = tl_random_injective(2, 1, 64), r, blk;
    axe_tuple shape;
    int64_t v[2] = {tl_range(1, 40), tl_range(1, 40)};
    int ok = 1;
    axe_status s;
    if (axe_tuple_from_array(v, 2, &shape) != AXE_OK || axe_cute_rank(&a) != 2)
        return;
    s = axe_cute_tile_to_shape(&a, &shape, NULL, &r, NULL);
    TL_CHECK(s == AXE_OK || (s == AXE_ERR_NOT_COMPOSABLE && has_gaps(&a)),
             "tile_to_shape(%s) failed: %s", tl_str(&a), axe_status_name(s));
    if (s != AXE_OK)
        return;
    for (int m = 0; m < 2 && ok; m++) {
        axe_cute_layout am, rm;
        int64_t sa, sr;
        ok = axe_cute_get(&a, m, &am) == AXE_OK &&
             axe_cute_get(&r, m, &rm) == AXE_OK &&
             axe_cute_get(&rm, 0, &blk) == AXE_OK &&
             axe_cute_size(&am, &sa) == AXE_OK &&
             axe_cute_size(&rm, &sr) == AXE_OK && sr >= v[m] &&
             sr - sa < v[m] && tl_same_function(&blk, &am);
    }
    TL_CHECK(ok, "tile_to_shape(%s, (%" PRId64 ",%" PRId64 ")) = %s",
             tl_str(&a), v[0], v[1], tl_str(&r));
}

int main(void)
{
    tl_seed("test_cute_divide", 20261122);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_row(&rows[i]);
    for (int i = 0; i < 2000; i++) {
        law_divide();
        law_product();
        law_tile_to_shape();
    }
    return tl_finish();
}
