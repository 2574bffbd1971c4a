/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CuTe layout basics: construction (compact column-major, row-major,
 * ordered, identity), structure (rank, depth, size, cosize, get, take,
 * select, group, flatten, append, prepend) and evaluation on indices and
 * hierarchical coordinates, as tables and as laws on random layouts:
 *   eval_crd(L, idx2crd(i, shape)) == eval(L, i);
 *   col-major(S)(i) == i;
 *   flatten preserves the function (take, select, group: tables).
 */
#include "testlib.h"

static void check_print(const char *what, const axe_cute_layout *l,
                        const char *expect)
{
    const char *got = tl_str(l);
    TL_CHECK(strcmp(got, expect) == 0, "%s: expected %s, got %s", what, expect,
             got);
}

static void table_make(void)
{
    axe_tuple s = tl_tuple("(2,(3,4))"), o = tl_tuple("(2,(0,1))");
    axe_cute_layout l;
    TL_CHECK(axe_cute_make_col_major(&s, &l) == AXE_OK, "col-major");
    check_print("col-major", &l, "(2,(3,4)):(1,(2,6))");
    TL_CHECK(axe_cute_make_row_major(&s, &l) == AXE_OK, "row-major");
    check_print("row-major", &l, "(2,(3,4)):(12,(4,1))");
    TL_CHECK(axe_cute_make_ordered(&s, &o, &l) == AXE_OK, "ordered");
    check_print("ordered", &l, "(2,(3,4)):(12,(1,3))");
    TL_CHECK(axe_cute_make_identity(&s, &l) == AXE_OK, "identity");
    check_print("identity", &l, "(2,(3,4)):(1@0,(1@0@1,1@1@1))");
    s = tl_tuple("(4,8)");
    TL_CHECK(axe_cute_make_identity(&s, &l) == AXE_OK, "identity 2");
    check_print("identity 2", &l, "(4,8):(1@0,1@1)");
    s = tl_tuple("(0,2)");
    TL_CHECK(axe_cute_make_col_major(&s, &l) == AXE_ERR_DOMAIN,
             "a zero extent is rejected");
}

static void table_structure(void)
{
    axe_cute_layout l = tl_layout("((4,3),((3,(2,2)),2)):((1,4),((12,(36,72)),"
                                  "144))"),
                    r;
    int64_t n;
    int path[3] = {1, 0, 1};
    TL_CHECK(axe_cute_rank(&l) == 2 && axe_cute_depth(&l) == 4, "rank/depth");
    TL_CHECK(axe_cute_size(&l, &n) == AXE_OK && n == 288, "size");
    TL_CHECK(axe_cute_cosize(&l, &n) == AXE_OK && n == 288, "cosize");
    TL_CHECK(axe_cute_get_path(&l, path, 3, &r) == AXE_OK, "get<1,0,1>");
    check_print("get<1,0,1>", &r, "(2,2):(36,72)");
    TL_CHECK(axe_cute_cosize(&r, &n) == AXE_OK && n == 109, "cosize mode");
    r = tl_layout("4:1");
    path[0] = 0;
    TL_CHECK(axe_cute_get_path(&r, path, 1, &r) == AXE_OK,
             "a scalar is its own mode 0");
    path[1] = 0;
    TL_CHECK(axe_cute_get_path(&r, path, 2, &r) == AXE_ERR_DOMAIN,
             "no index past a leaf");
    l = tl_layout("(2,3,4,5):(1,2,6,24)");
    TL_CHECK(axe_cute_take(&l, 1, 3, &r) == AXE_OK, "take");
    check_print("take", &r, "(3,4):(2,6)");
    {
        int idx[3] = {3, 0, 2};
        TL_CHECK(axe_cute_select(&l, idx, 3, &r) == AXE_OK, "select");
        check_print("select", &r, "(5,2,4):(24,1,6)");
    }
    TL_CHECK(axe_cute_group(&l, 1, 3, &r) == AXE_OK, "group");
    check_print("group", &r, "(2,(3,4),5):(1,(2,6),24)");
    TL_CHECK(axe_cute_group(&l, 2, 2, &r) == AXE_ERR_DOMAIN, "empty group");
    TL_CHECK(axe_cute_take(&l, 3, 5, &r) == AXE_ERR_DOMAIN, "take range");
    l = tl_layout("(3,(4,5)):(8,(1,4))");
    TL_CHECK(axe_cute_flatten(&l, &r) == AXE_OK, "flatten");
    check_print("flatten", &r, "(3,4,5):(8,1,4)");
    {
        axe_cute_layout a = tl_layout("(2,3):(1,2)"), b = tl_layout("4:6");
        TL_CHECK(axe_cute_append(&a, &b, &r) == AXE_OK, "append");
        check_print("append", &r, "(2,3,4):(1,2,6)");
        TL_CHECK(axe_cute_prepend(&b, &a, &r) == AXE_OK, "prepend");
        check_print("prepend", &r, "(4,2,3):(6,1,2)");
        TL_CHECK(axe_cute_pair(&a, &b, &r) == AXE_OK, "pair");
        check_print("pair", &r, "((2,3),4):((1,2),6)");
    }
    TL_CHECK(axe_cute_equal(&l, &l), "equal to itself");
    r = tl_layout("(3,1,(4,5)):(8,7,(1,4))");
    TL_CHECK(!axe_cute_equal(&l, &r), "different profiles");
    l = tl_layout("(3,1):(8,3)");
    r = tl_layout("(3,1):(8,0)");
    TL_CHECK(axe_cute_equal(&l, &r), "size-1 strides do not matter");
}

static void table_eval(void)
{
    axe_cute_layout l = tl_layout("(3,(2,3)):(3,(12,1))");
    axe_tuple c = tl_tuple("(1,(1,2))");
    axe_cute_point p;
    int64_t v;
    TL_CHECK(axe_cute_eval_crd(&l, &c, &v) == AXE_OK && v == 17,
             "paper: L(1,(1,2)) = 17");
    c = tl_tuple("(1,5)");
    TL_CHECK(axe_cute_eval_crd(&l, &c, &v) == AXE_OK && v == 3 + 12 + 2,
             "a scalar coordinate indexes its whole mode: (1,5) -> 17");
    TL_CHECK(axe_cute_eval(&l, 16, &v) == AXE_OK && v == 17, "L(16) = 17");
    TL_CHECK(axe_cute_eval(&l, 18, &v) == AXE_OK && v == 3,
             "past the end the last mode continues: L(18) = 3");
    c = tl_tuple("(1,2,3)");
    TL_CHECK(axe_cute_eval_crd(&l, &c, &v) == AXE_ERR_INCOMPATIBLE,
             "a coordinate of the wrong rank");
    l = tl_layout("(4,8):(1@0,1@1)");
    TL_CHECK(axe_cute_eval_point(&l, 13, &p) == AXE_OK && p.n == 2 &&
                 p.v[0] == 1 && p.v[1] == 3,
             "identity(4,8)(13) = (1,3)");
    TL_CHECK(axe_cute_eval(&l, 13, &v) == AXE_ERR_UNSUPPORTED,
             "integer eval of a scaled-basis layout");
    l = tl_layout("(2,2):(4611686018427387904,4611686018427387904)");
    TL_CHECK(axe_cute_eval(&l, 3, &v) == AXE_ERR_OVERFLOW, "overflow");
}

static void law_eval(void)
{
    axe_cute_layout l = tl_random_layout(4, 3, 4096, 50, 1), cm, rm, id;
    int64_t n, ok = 1;
    if (axe_cute_size(&l, &n) != AXE_OK)
        return;
    TL_CHECK(axe_cute_make_col_major(&l.shape, &cm) == AXE_OK &&
                 axe_cute_make_identity(&l.shape, &id) == AXE_OK,
             "construct over %s", tl_str(&l));
    for (int64_t i = 0; i < n && ok; i++) {
        axe_tuple c;
        axe_cute_point p;
        int64_t a, b, ci;
        ok = axe_tuple_idx2crd(i, &l.shape, &c) == AXE_OK &&
             axe_cute_eval(&l, i, &a) == AXE_OK &&
             axe_cute_eval_crd(&l, &c, &b) == AXE_OK && a == b &&
             axe_cute_eval(&cm, i, &ci) == AXE_OK && ci == i &&
             axe_cute_eval_point(&id, i, &p) == AXE_OK;
    }
    TL_CHECK(ok, "eval laws fail on %s", tl_str(&l));
    TL_CHECK(axe_cute_make_row_major(&l.shape, &rm) == AXE_OK,
             "row-major of %s", tl_str(&l));
    {
        axe_cute_layout f;
        TL_CHECK(axe_cute_flatten(&l, &f) == AXE_OK && tl_same_function(&f, &l),
                 "flatten changes %s", tl_str(&l));
    }
}

int main(void)
{
    tl_seed("test_cute_layout", 7);
    table_make();
    table_structure();
    table_eval();
    for (int i = 0; i < 3000; i++)
        law_eval();
    return tl_finish();
}
