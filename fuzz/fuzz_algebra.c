/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the CuTe algebra (axe/cute.h). Operands come from
 * the bytes: either NUL-separated texts `A \0 B [\0 C]` read with
 * axe_parse_cute (A a layout, composed layout or swizzle; B a layout,
 * tiler, shape or composed layout; C a coordinate or an integer), or,
 * when there is no NUL, a byte-driven generator of small layouts. Every
 * operation of axe/cute.h runs on them. A non-OK status is always fine;
 * an OK result must satisfy its defining law, checked by evaluating both
 * sides on the whole domain whenever it has at most DOMAIN_MAX points
 * (larger inputs skip the check, and so do indices where evaluation
 * itself overflows). A violation prints the law, the operands and the
 * result to stderr and traps. Invariant: no law is checked that the
 * header of the operation does not state.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/notation.h"

#define DOMAIN_MAX 4096
#define PAIRS_MAX 1024 /* for laws over pairs (i, j) of two domains */
#define COVER_MAX 16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The operands of one input. */
typedef struct operands {
    axe_cute_layout a, b;
    axe_cute_tiler tiler;
    bool has_tiler;
    axe_tuple crd;
    bool has_crd;
    axe_tuple order; /* a mode order for tile_to_shape of b's shape */
    bool has_order;
    axe_tuple order_a; /* a leaf order in a's profile, for make_ordered */
    int64_t n;         /* cast factor, >= 1 */
    int64_t cotarget;  /* complement cotarget, < 0: default */
} operands;

static const operands *cur;

static const char *lstr(const axe_cute_layout *l)
{
    static char buf[4][2048];
    static int k;
    k = (k + 1) % 4;
    if (l == NULL)
        return "-";
    axe_print_cute_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

/* Report the violated "law" with the operands and the result "r". */
static void violated(const char *law, const axe_cute_layout *r)
{
    char crd[1024] = "-";
    if (cur->has_crd)
        axe_print_tuple(&cur->crd, crd, sizeof crd);
    fprintf(stderr,
            "fuzz_algebra: law violated: %s\n  a = %s\n  b = %s\n"
            "  crd = %s\n  n = %" PRId64 ", cotarget = %" PRId64
            "\n  result = %s\n",
            law, lstr(&cur->a), lstr(&cur->b), crd, cur->n, cur->cotarget,
            lstr(r));
    __builtin_trap();
}

#define LAW(cond, law, r)                                                      \
    do {                                                                       \
        if (!(cond))                                                           \
            violated(law, r);                                                  \
    } while (0)

/* ---- evaluation helpers -------------------------------------------- */

/* l(i) as a point; false where evaluation overflows. */
static bool value(const axe_cute_layout *l, int64_t i, axe_cute_point *out)
{
    return axe_cute_eval_point(l, i, out) == AXE_OK;
}

/* l(i) as an integer; false for a scaled-basis value or on overflow. */
static bool ivalue(const axe_cute_layout *l, int64_t i, int64_t *out)
{
    axe_cute_point p;
    if (!value(l, i, &p) || p.n > 1 || (p.n == 1 && p.basis[0] != 0))
        return false;
    *out = p.n == 0 ? 0 : p.v[0];
    return true;
}

/* size(l), when it is known and at most "max". */
static bool small(const axe_cute_layout *l, int64_t max, int64_t *size)
{
    return axe_cute_size(l, size) == AXE_OK && *size <= max;
}

static int64_t size_or(const axe_cute_layout *l, int64_t dflt)
{
    int64_t s;
    return axe_cute_size(l, &s) == AXE_OK ? s : dflt;
}

/* size(x) and size(y) are equal, or both overflow. */
static bool same_size(const axe_cute_layout *x, const axe_cute_layout *y)
{
    int64_t s, t;
    axe_status sx = axe_cute_size(x, &s), sy = axe_cute_size(y, &t);
    return sx == sy && (sx != AXE_OK || s == t);
}

/* x(i) == y(i) for i < n, wherever both evaluate. */
static bool same_function(const axe_cute_layout *x, const axe_cute_layout *y,
                          int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        axe_cute_point p, q;
        if (value(x, i, &p) && value(y, i, &q) && !axe_cute_point_equal(&p, &q))
            return false;
    }
    return true;
}

static void drop_zeros(axe_cute_point *p)
{
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if (p->v[i] == 0)
            continue;
        p->basis[k] = p->basis[i];
        p->v[k++] = p->v[i];
    }
    p->n = k;
}

/* "x" + "y" as points; false on overflow or too many components. */
static bool point_add(const axe_cute_point *x, const axe_cute_point *y,
                      axe_cute_point *out)
{
    axe_cute_point r = *x;
    for (int j = 0; j < y->n; j++) {
        int i = 0;
        while (i < r.n && r.basis[i] < y->basis[j])
            i++;
        if (i < r.n && r.basis[i] == y->basis[j]) {
            if (__builtin_add_overflow(r.v[i], y->v[j], &r.v[i]))
                return false;
            continue;
        }
        if (r.n >= AXE_CUTE_POINT_MAX)
            return false;
        memmove(&r.basis[i + 1], &r.basis[i],
                (size_t)(r.n - i) * sizeof r.basis[0]);
        memmove(&r.v[i + 1], &r.v[i], (size_t)(r.n - i) * sizeof r.v[0]);
        r.basis[i] = y->basis[j];
        r.v[i] = y->v[j];
        r.n++;
    }
    drop_zeros(&r);
    *out = r;
    return true;
}

static int cmp64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The integer values l(0..n-1), sorted; false if any is not an integer. */
static bool sorted_values(const axe_cute_layout *l, int64_t n, int64_t *out)
{
    for (int64_t i = 0; i < n; i++)
        if (!ivalue(l, i, &out[i]))
            return false;
    qsort(out, (size_t)n, sizeof out[0], cmp64);
    return true;
}

/* x and y take the same multiset of values on [0, n) (true when that
 * cannot be told: a scaled-basis value or an overflow). */
static bool same_multiset(const axe_cute_layout *x, const axe_cute_layout *y,
                          int64_t n)
{
    static int64_t u[DOMAIN_MAX], v[DOMAIN_MAX];
    if (n > DOMAIN_MAX || !sorted_values(x, n, u) || !sorted_values(y, n, v))
        return true;
    return memcmp(u, v, (size_t)n * sizeof u[0]) == 0;
}

static bool has_duplicates(const int64_t *v, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (v[i] == v[i - 1])
            return true;
    return false;
}

static bool contains(const int64_t *sorted, int64_t n, int64_t x)
{
    return bsearch(&x, sorted, (size_t)n, sizeof x, cmp64) != NULL;
}

/* ---- evaluation and structure --------------------------------------- */

/* eval, eval_crd(idx2crd(i)) and eval_point agree; for nonnegative
 * integer strides cosize is the largest value plus one. */
static void law_eval(const axe_cute_layout *a)
{
    int64_t size, cos, top = 0;
    bool nonneg = !axe_cute_has_basis(a);
    if (!small(a, DOMAIN_MAX, &size))
        return;
    for (int i = 0; i < a->shape.nleaf; i++)
        nonneg = nonneg && a->stride[i] >= 0;
    for (int64_t i = 0; i < size && !axe_cute_has_basis(a); i++) {
        int64_t x, y, z;
        axe_tuple c;
        if (axe_cute_eval(a, i, &x) != AXE_OK)
            return;
        LAW(ivalue(a, i, &y) && x == y, "eval == eval_point", NULL);
        LAW(axe_tuple_idx2crd(i, &a->shape, &c) == AXE_OK &&
                axe_cute_eval_crd(a, &c, &z) == AXE_OK && x == z,
            "eval_crd(idx2crd(i)) == eval(i)", NULL);
        top = x > top ? x : top;
    }
    if (nonneg && axe_cute_cosize(a, &cos) == AXE_OK)
        LAW(cos == top + 1, "cosize == max value + 1", NULL);
}

/* flatten, group and take keep the function; the modes' sizes multiply
 * to the size. */
static void law_structure(const axe_cute_layout *a)
{
    axe_cute_layout r;
    int64_t size, prod = 1;
    int rank = axe_cute_rank(a);
    bool sm = small(a, DOMAIN_MAX, &size);
    if (axe_cute_flatten(a, &r) == AXE_OK) {
        LAW(axe_cute_depth(&r) <= 1 && same_size(a, &r), "flatten: shape", &r);
        LAW(!sm || same_function(a, &r, size), "flatten: same function", &r);
    }
    if (rank >= 1 && axe_cute_group(a, 0, rank, &r) == AXE_OK)
        LAW(!sm || same_function(a, &r, size), "group: same function", &r);
    if (axe_cute_take(a, 0, rank, &r) == AXE_OK)
        LAW(!sm || same_function(a, &r, size), "take(0,rank): function", &r);
    for (int i = 0; i < rank && sm; i++) {
        if (axe_cute_get(a, i, &r) != AXE_OK)
            return;
        prod *= size_or(&r, 0);
    }
    LAW(!sm || prod == size, "product of the modes' sizes == size", NULL);
}

/* append, prepend and pair all satisfy R(i + size(a) j) == a(i) + b(j). */
static void law_concat(const axe_cute_layout *a, const axe_cute_layout *b)
{
    static const char *names[3] = {"append", "prepend", "pair"};
    int64_t sa, sb;
    if (!small(a, PAIRS_MAX, &sa) || !small(b, PAIRS_MAX / sa, &sb))
        return;
    for (int k = 0; k < 3; k++) {
        axe_cute_layout r;
        axe_status st = k == 0   ? axe_cute_append(a, b, &r)
                        : k == 1 ? axe_cute_prepend(a, b, &r)
                                 : axe_cute_pair(a, b, &r);
        if (st != AXE_OK)
            continue;
        for (int64_t i = 0; i < sa; i++)
            for (int64_t j = 0; j < sb; j++) {
                axe_cute_point x, y, s, t;
                if (value(a, i, &x) && value(b, j, &y) &&
                    point_add(&x, &y, &s) && value(&r, i + sa * j, &t))
                    LAW(axe_cute_point_equal(&s, &t), names[k], &r);
            }
    }
}

/* The values of "l" on [0, size) are exactly 0..size-1. */
static bool is_bijection(const axe_cute_layout *l, int64_t size)
{
    static int64_t v[DOMAIN_MAX];
    if (!sorted_values(l, size, v))
        return false;
    for (int64_t i = 0; i < size; i++)
        if (v[i] != i)
            return false;
    return true;
}

/* Compact layouts of a's shape: col-major is the identity on [0, size),
 * row-major and ordered are bijections onto it, and identity maps a flat
 * coordinate to itself. */
static void law_make(const operands *o)
{
    const axe_tuple *s = &o->a.shape;
    axe_cute_layout r;
    int64_t size;
    if (axe_cute_make_col_major(s, &r) != AXE_OK ||
        !small(&r, DOMAIN_MAX, &size))
        return;
    for (int64_t i = 0; i < size; i++) {
        int64_t x;
        LAW(ivalue(&r, i, &x) && x == i, "make_col_major(i) == i", &r);
    }
    if (axe_cute_make_row_major(s, &r) == AXE_OK)
        LAW(is_bijection(&r, size), "make_row_major: bijection", &r);
    if (axe_cute_make_ordered(s, &o->order_a, &r) == AXE_OK)
        LAW(is_bijection(&r, size), "make_ordered: bijection", &r);
    if (axe_cute_make_identity(s, &r) == AXE_OK && axe_tuple_depth(s) == 1)
        for (int64_t i = 0; i < size; i++) {
            axe_tuple c;
            axe_cute_point p;
            int k = 0;
            if (axe_tuple_idx2crd(i, s, &c) != AXE_OK || !value(&r, i, &p))
                continue;
            for (int m = 0; m < c.nleaf; m++)
                if (c.v[m] != 0)
                    LAW(k < p.n && p.basis[k] == AXE_CUTE_BASIS1(m) &&
                            p.v[k++] == c.v[m],
                        "make_identity(c) == c", &r);
            LAW(k == p.n, "make_identity(c) == c", &r);
        }
}

/* ---- coalesce and filter ------------------------------------------- */

/* No leaf of extent 1 (unless the whole result is `1:0`) and no two
 * adjacent leaves that would merge: d1 == s0 * d0 on the same basis. */
static bool fewest_modes(const axe_cute_layout *r)
{
    int n = r->shape.nleaf;
    if (n == 1 && r->shape.v[0] == 1)
        return r->stride[0] == 0;
    for (int i = 0; i < n; i++) {
        int64_t p;
        if (r->shape.v[i] == 1)
            return false;
        if (i + 1 < n && r->basis[i] == r->basis[i + 1] &&
            !__builtin_mul_overflow(r->shape.v[i], r->stride[i], &p) &&
            p == r->stride[i + 1])
            return false;
    }
    return true;
}

static void law_coalesce(const axe_cute_layout *a)
{
    axe_cute_layout r;
    int64_t size;
    if (axe_cute_coalesce(a, &r) != AXE_OK)
        return;
    LAW(same_size(a, &r), "coalesce: size(R) == size(a)", &r);
    LAW(axe_cute_depth(&r) <= 1, "coalesce: depth(R) <= 1", &r);
    LAW(fewest_modes(&r), "coalesce: fewest modes, size 1 is 1:0", &r);
    if (small(a, DOMAIN_MAX, &size))
        LAW(same_function(a, &r, size), "coalesce: R(i) == a(i)", &r);
}

/* coalesce_by with the profile (1,...,1) of a's rank: the same function,
 * and each mode coalesced on its own (same function, depth <= 1). */
static void law_coalesce_by(const axe_cute_layout *a)
{
    int64_t ones[AXE_TUPLE_MAX_LEAVES], size;
    int rank = axe_cute_rank(a);
    axe_tuple prof;
    axe_cute_layout r, ai, ri;
    for (int i = 0; i < AXE_TUPLE_MAX_LEAVES; i++)
        ones[i] = 1;
    if (axe_tuple_is_scalar(&a->shape))
        axe_tuple_scalar(1, &prof);
    else if (axe_tuple_from_array(ones, rank, &prof) != AXE_OK)
        return;
    if (axe_cute_coalesce_by(a, &prof, &r) != AXE_OK ||
        !small(a, DOMAIN_MAX, &size))
        return;
    LAW(same_size(a, &r) && same_function(a, &r, size),
        "coalesce_by: R(i) == a(i)", &r);
    if (axe_tuple_is_scalar(&a->shape))
        return;
    LAW(axe_cute_rank(&r) == rank, "coalesce_by: rank kept", &r);
    for (int i = 0; i < rank; i++) {
        if (axe_cute_get(a, i, &ai) != AXE_OK ||
            axe_cute_get(&r, i, &ri) != AXE_OK)
            return;
        LAW(axe_cute_depth(&ri) <= 1 &&
                same_function(&ai, &ri, size_or(&ai, 0)),
            "coalesce_by: each mode coalesced", &r);
    }
}

/* The sorted distinct integer values of "l" on [0, size); false if the
 * values are not all integers. */
static bool image(const axe_cute_layout *l, int64_t size, int64_t *v,
                  int64_t *n)
{
    int64_t k = 0;
    if (!sorted_values(l, size, v))
        return false;
    for (int64_t i = 0; i < size; i++)
        if (k == 0 || v[i] != v[k - 1])
            v[k++] = v[i];
    *n = k;
    return true;
}

/* filter: the same image, no zero-stride mode, size the product of the
 * extents with nonzero stride; filter_zeros: zero-stride leaves become
 * extent 1, the rest is kept. */
static void law_filter(const axe_cute_layout *a)
{
    static int64_t u[DOMAIN_MAX], v[DOMAIN_MAX];
    axe_cute_layout r;
    int64_t size, rsize, nu, nv, want = 1;
    if (!small(a, DOMAIN_MAX, &size))
        return;
    for (int i = 0; i < a->shape.nleaf; i++)
        if (a->stride[i] != 0)
            want *= a->shape.v[i];
    if (axe_cute_filter(a, &r) == AXE_OK) {
        LAW(small(&r, DOMAIN_MAX, &rsize) && rsize == want,
            "filter: size is the product of nonzero-stride extents", &r);
        for (int i = 0; i < r.shape.nleaf; i++)
            LAW(r.shape.v[i] == 1 || r.stride[i] != 0,
                "filter: no zero-stride mode", &r);
        if (image(a, size, u, &nu) && image(&r, rsize, v, &nv))
            LAW(nu == nv && memcmp(u, v, (size_t)nu * 8) == 0,
                "filter: same image", &r);
    }
    if (axe_cute_filter_zeros(a, &r) != AXE_OK)
        return;
    LAW(axe_tuple_is_congruent(&a->shape, &r.shape),
        "filter_zeros: keeps the profile", &r);
    for (int i = 0; i < a->shape.nleaf; i++)
        LAW(a->stride[i] == 0
                ? r.shape.v[i] == 1
                : r.shape.v[i] == a->shape.v[i] &&
                      r.stride[i] == a->stride[i] && r.basis[i] == a->basis[i],
            "filter_zeros: leaf rule", &r);
}

/* ---- composition ------------------------------------------------------ */

/* r(i) == a(b(i)) for i < size(b), wherever b(i) is an integer >= 0. */
static bool composes(const axe_cute_layout *r, const axe_cute_layout *a,
                     const axe_cute_layout *b, int64_t size_b)
{
    for (int64_t i = 0; i < size_b; i++) {
        axe_cute_point p, q;
        int64_t x;
        if (ivalue(b, i, &x) && x >= 0 && value(a, x, &p) && value(r, i, &q) &&
            !axe_cute_point_equal(&p, &q))
            return false;
    }
    return true;
}

static void law_compose(const axe_cute_layout *a, const axe_cute_layout *b)
{
    axe_cute_layout r;
    int64_t size;
    if (axe_cute_compose(a, b, &r, NULL) != AXE_OK)
        return;
    LAW(same_size(b, &r), "compose: size(R) == size(b)", &r);
    LAW(axe_tuple_is_compatible(&b->shape, &r.shape),
        "compose: shape(b) compatible with shape(R)", &r);
    if (small(b, DOMAIN_MAX, &size))
        LAW(composes(&r, a, b, size), "compose: R(i) == a(b(i))", &r);
}

/* Element "i" of a tiler at top-level token "tok" ('L', '_' or '['),
 * with the layout index "elem" of its first layout. */
typedef struct tiler_elem {
    char tok;
    int elem;
} tiler_elem;

/* The top-level elements of "t"; returns their number. */
static int tiler_elems(const axe_cute_tiler *t, tiler_elem *out)
{
    int n = 0, depth = 0, e = 0;
    for (int k = 0; k < t->ntok; k++) {
        char c = t->tok[k];
        if (depth == 1 && c != ']')
            out[n++] = (tiler_elem){c, e};
        depth += c == '[' ? 1 : c == ']' ? -1 : 0;
        e += c == 'L';
    }
    return n;
}

/* By-mode composition: mode i of R is a_i ∘ t_i for a layout element and
 * a_i for `_`; rank(R) == rank(t) (nested elements are not checked). */
static void law_compose_tiler(const axe_cute_layout *a, const axe_cute_tiler *t)
{
    tiler_elem el[AXE_CUTE_TILER_MAX_TOKENS];
    axe_cute_layout r, ai, ri;
    int n = tiler_elems(t, el);
    if (axe_cute_compose_tiler(a, t, &r, NULL) != AXE_OK)
        return;
    LAW(axe_cute_rank(&r) == n, "compose_tiler: rank(R) == rank(t)", &r);
    for (int i = 0; i < n; i++) {
        int64_t size;
        if (axe_cute_get(a, i, &ai) != AXE_OK ||
            axe_cute_get(&r, i, &ri) != AXE_OK)
            return;
        if (el[i].tok == '_' && small(&ai, DOMAIN_MAX, &size))
            LAW(same_size(&ai, &ri) && same_function(&ai, &ri, size),
                "compose_tiler: `_` keeps the mode", &r);
        if (el[i].tok == 'L' && small(&t->elem[el[i].elem], DOMAIN_MAX, &size))
            LAW(composes(&ri, &ai, &t->elem[el[i].elem], size),
                "compose_tiler: R_i(k) == a_i(t_i(k))", &r);
    }
}

/* tiler_from_shape: the leaves become s:1 in the shape's profile;
 * tiler_from_layout: the tiler [l]. */
static void law_tiler_builders(const axe_cute_layout *b)
{
    axe_cute_tiler t;
    if (axe_cute_tiler_from_shape(&b->shape, &t) == AXE_OK) {
        bool ok = t.nelem == b->shape.nleaf;
        for (int i = 0; ok && i < t.nelem; i++)
            ok = axe_tuple_is_scalar(&t.elem[i].shape) &&
                 t.elem[i].shape.v[0] == b->shape.v[i] &&
                 t.elem[i].stride[0] == 1 && t.elem[i].basis[0] == 0;
        LAW(ok, "tiler_from_shape: leaves s:1", NULL);
        LAW(axe_cute_tiler_rank(&t) == axe_tuple_rank(&b->shape),
            "tiler_from_shape: rank", NULL);
    }
    if (axe_cute_tiler_from_layout(b, &t) == AXE_OK)
        LAW(t.ntok == 3 && memcmp(t.tok, "[L]", 3) == 0 && t.nelem == 1 &&
                axe_cute_equal(&t.elem[0], b) &&
                axe_tuple_equal(&t.elem[0].shape, &b->shape),
            "tiler_from_layout: [l]", NULL);
}

/* ---- complement and inverses ---------------------------------------- */

/* Integer strides >= 0, no scaled basis. */
static bool plain(const axe_cute_layout *l)
{
    for (int i = 0; i < l->shape.nleaf; i++)
        if (l->basis[i] != 0 || l->stride[i] < 0)
            return false;
    return true;
}

/* Strides of the leaves of extent > 1 are positive and increasing. */
static bool ordered(const axe_cute_layout *r)
{
    int64_t last = 0;
    for (int i = 0; i < r->shape.nleaf; i++) {
        if (r->shape.v[i] == 1)
            continue;
        if (r->basis[i] != 0 || r->stride[i] <= last)
            return false;
        last = r->stride[i];
    }
    return true;
}

/* (a, r) covers [0, m): every x < m is a(i) + r(j) for some i, j. */
static bool covers(const axe_cute_layout *a, int64_t sa,
                   const axe_cute_layout *r, int64_t sr, int64_t m)
{
    static uint8_t hit[COVER_MAX];
    memset(hit, 0, (size_t)m);
    for (int64_t i = 0; i < sa; i++)
        for (int64_t j = 0; j < sr; j++) {
            int64_t x, y;
            if (ivalue(a, i, &x) && ivalue(r, j, &y) &&
                !__builtin_add_overflow(x, y, &x) && x >= 0 && x < m)
                hit[x] = 1;
        }
    for (int64_t x = 0; x < m; x++)
        if (!hit[x])
            return false;
    return true;
}

/* The leaves of extent > 1 and nonzero stride, sorted by stride, each
 * have a stride that is a multiple of the previous one's extent s d (CuTe's
 * condition for a complement that fills every gap). */
static bool complementable(const axe_cute_layout *a)
{
    int64_t s[AXE_CUTE_MAX_LEAVES], d[AXE_CUTE_MAX_LEAVES], x = 1;
    int n = 0;
    for (int i = 0; i < a->shape.nleaf; i++) {
        int k = n;
        if (a->shape.v[i] == 1 || a->stride[i] == 0)
            continue;
        for (; k > 0 && d[k - 1] > a->stride[i]; k--) {
            s[k] = s[k - 1];
            d[k] = d[k - 1];
        }
        s[k] = a->shape.v[i];
        d[k] = a->stride[i];
        n++;
    }
    for (int k = 0; k < n; k++) {
        if (d[k] % x != 0 || __builtin_mul_overflow(s[k], d[k], &x))
            return false;
    }
    return true;
}

/* The complement R of a plain "a" with respect to "cotarget": ordered,
 * image(R) meets image(a) only in 0, and, when "a" is complementable,
 * (a, R) covers [0, cotarget). (Where it is not, CuTe's complement and
 * the shared vectors leave gaps: `(4,2):(1,10)` gives `2:4`.) */
static void law_complement(const axe_cute_layout *a, int64_t cotarget)
{
    static int64_t img[DOMAIN_MAX];
    axe_cute_layout r;
    int64_t sa, sr, ni, m = cotarget;
    if (axe_cute_complement(a, cotarget, &r, NULL) != AXE_OK)
        return;
    if (!plain(a))
        return;
    LAW(ordered(&r), "complement: ordered (strides increasing)", &r);
    if (m < 0 && axe_cute_cosize(a, &m) != AXE_OK)
        return;
    if (!small(a, DOMAIN_MAX, &sa) || !small(&r, DOMAIN_MAX, &sr) ||
        !image(a, sa, img, &ni))
        return;
    for (int64_t j = 1; j < sr; j++) {
        int64_t y;
        if (ivalue(&r, j, &y))
            LAW(y != 0 && !contains(img, ni, y),
                "complement: disjoint from image(a)", &r);
    }
    if (m <= COVER_MAX && sa * sr <= COVER_MAX && complementable(a))
        LAW(covers(a, sa, &r, sr, m), "complement: (a, R) covers", &r);
}

/* Right inverse: a(R(k)) == k with R(k) in a's domain. */
static void law_right_inverse(const axe_cute_layout *a)
{
    axe_cute_layout r;
    int64_t sa, sr;
    if (axe_cute_right_inverse(a, &r, NULL) != AXE_OK ||
        axe_cute_has_basis(a) || !small(&r, DOMAIN_MAX, &sr) ||
        axe_cute_size(a, &sa) != AXE_OK)
        return;
    for (int64_t k = 0; k < sr; k++) {
        int64_t x, y;
        if (!ivalue(&r, k, &x))
            continue;
        LAW(x >= 0 && x < sa, "right_inverse: R(k) in a's domain", &r);
        if (ivalue(a, x, &y))
            LAW(y == k, "right_inverse: a(R(k)) == k", &r);
    }
}

/* Left inverse: R(a(k)) == k for an injective "a", else at least
 * a(R(a(k))) == a(k). */
static void law_left_inverse(const axe_cute_layout *a)
{
    static int64_t v[DOMAIN_MAX];
    axe_cute_layout r;
    int64_t sa;
    bool injective;
    if (axe_cute_left_inverse(a, &r, NULL) != AXE_OK || axe_cute_has_basis(a) ||
        !small(a, DOMAIN_MAX, &sa) || !sorted_values(a, sa, v))
        return;
    injective = !has_duplicates(v, sa);
    for (int64_t k = 0; k < sa; k++) {
        int64_t x, y, z;
        if (!ivalue(a, k, &x) || x < 0 || !ivalue(&r, x, &y))
            continue;
        if (injective)
            LAW(y == k, "left_inverse: R(a(k)) == k", &r);
        else if (y >= 0 && ivalue(a, y, &z))
            LAW(z == x, "left_inverse: a(R(a(k))) == a(k)", &r);
    }
}

/* Nullspace: K is a bijection onto {k < size(a) : a(k) == 0}, K(0) = 0. */
static void law_nullspace(const axe_cute_layout *a)
{
    static int64_t v[DOMAIN_MAX];
    axe_cute_layout r;
    int64_t sa, sr, zeros = 0, x;
    if (axe_cute_nullspace(a, &r, NULL) != AXE_OK || axe_cute_has_basis(a) ||
        !small(a, DOMAIN_MAX, &sa))
        return;
    for (int64_t k = 0; k < sa; k++)
        if (ivalue(a, k, &x) && x == 0)
            zeros++;
    LAW(small(&r, DOMAIN_MAX, &sr) && sr == zeros,
        "nullspace: size(K) == |{k : a(k) == 0}|", &r);
    if (!sorted_values(&r, sr, v))
        return;
    LAW(!has_duplicates(v, sr) && v[0] >= 0 && v[sr - 1] < sa,
        "nullspace: K injective into a's domain", &r);
    LAW(ivalue(&r, 0, &x) && x == 0, "nullspace: K(0) == 0", &r);
    for (int64_t j = 0; j < sr; j++)
        LAW(ivalue(a, v[j], &x) && x == 0, "nullspace: a(K(j)) == 0", &r);
}

/* ---- divides and products -------------------------------------------- */

static const char *const divide_names[4] = {"logical_divide", "zipped_divide",
                                            "tiled_divide", "flat_divide"};
static const char *const product_names[6] = {
    "logical_product", "zipped_product",  "tiled_product",
    "flat_product",    "blocked_product", "raked_product"};

/* logical_divide(a, b) == a ∘ (b, complement(b, size(a))) for an integer
 * "b" (a scaled-basis divisor is complemented against a's shape), and
 * every other kind rearranges its modes: same size, same multiset. */
static void law_divide_layout(const axe_cute_layout *a,
                              const axe_cute_layout *b)
{
    axe_cute_layout logical, r, c, l;
    int64_t size;
    if (axe_cute_divide_layout(AXE_CUTE_DIVIDE_LOGICAL, a, b, &logical, NULL) !=
        AXE_OK)
        return;
    if (!axe_cute_has_basis(b) &&
        axe_cute_complement(b, size_or(a, -1), &c, NULL) == AXE_OK &&
        axe_cute_pair(b, &c, &l) == AXE_OK) {
        LAW(same_size(&l, &logical), "logical_divide: size", &logical);
        if (small(&l, DOMAIN_MAX, &size))
            LAW(composes(&logical, a, &l, size),
                "logical_divide: R(i) == a((b, b*)(i))", &logical);
    }
    for (int k = 1; k < 4; k++) {
        if (axe_cute_divide_layout((axe_cute_divide_kind)k, a, b, &r, NULL) !=
            AXE_OK)
            continue;
        LAW(same_size(&r, &logical), divide_names[k], &r);
        if (small(&r, DOMAIN_MAX, &size))
            LAW(same_multiset(&r, &logical, size), divide_names[k], &r);
    }
}

/* By-mode logical divide by a tiler: mode i of R is the divide of a_i by
 * a layout element, a_i for `_`; other kinds rearrange its modes. */
static void law_divide_tiler(const axe_cute_layout *a, const axe_cute_tiler *t)
{
    tiler_elem el[AXE_CUTE_TILER_MAX_TOKENS];
    axe_cute_layout logical, r, ai, ri, want;
    int n = tiler_elems(t, el);
    int64_t size;
    if (axe_cute_divide(AXE_CUTE_DIVIDE_LOGICAL, a, t, &logical, NULL) !=
        AXE_OK)
        return;
    for (int i = 0; i < n && !axe_tuple_is_scalar(&a->shape); i++) {
        if (axe_cute_get(a, i, &ai) != AXE_OK ||
            axe_cute_get(&logical, i, &ri) != AXE_OK)
            break;
        if (el[i].tok == 'L' &&
            axe_cute_divide_layout(AXE_CUTE_DIVIDE_LOGICAL, &ai,
                                   &t->elem[el[i].elem], &want,
                                   NULL) == AXE_OK &&
            small(&want, DOMAIN_MAX, &size))
            LAW(same_size(&want, &ri) && same_function(&want, &ri, size),
                "logical_divide by tiler: by mode", &logical);
        if (el[i].tok == '_' && small(&ai, DOMAIN_MAX, &size))
            LAW(same_size(&ai, &ri) && same_function(&ai, &ri, size),
                "logical_divide by tiler: `_` keeps the mode", &logical);
    }
    for (int k = 1; k < 4; k++) {
        if (axe_cute_divide((axe_cute_divide_kind)k, a, t, &r, NULL) != AXE_OK)
            continue;
        LAW(same_size(&r, &logical), divide_names[k], &r);
        if (small(&r, DOMAIN_MAX, &size))
            LAW(same_multiset(&r, &logical, size), divide_names[k], &r);
    }
}

/* R(i + size(a) j) == a(i) + c(b(j)) with c = complement(a,
 * size(a) * cosize(b)): the logical product of plain layouts. */
static void check_logical_product(const axe_cute_layout *a,
                                  const axe_cute_layout *b,
                                  const axe_cute_layout *r)
{
    axe_cute_layout c;
    int64_t sa, sb, cob, m;
    if (!plain(a) || !plain(b) || !small(a, PAIRS_MAX, &sa) ||
        !small(b, PAIRS_MAX / sa, &sb) || axe_cute_cosize(b, &cob) != AXE_OK ||
        __builtin_mul_overflow(sa, cob, &m) ||
        axe_cute_complement(a, m, &c, NULL) != AXE_OK)
        return;
    for (int64_t i = 0; i < sa; i++)
        for (int64_t j = 0; j < sb; j++) {
            int64_t x, y, z, w;
            if (ivalue(a, i, &x) && ivalue(b, j, &y) && ivalue(&c, y, &z) &&
                !__builtin_add_overflow(x, z, &x) && ivalue(r, i + sa * j, &w))
                LAW(w == x,
                    "logical_product: R(i + |a| j) == a(i) + "
                    "a*(b(j))",
                    r);
        }
}

static void law_product(const axe_cute_layout *a, const axe_cute_layout *b)
{
    axe_cute_layout logical, r;
    int64_t sa, sb, size;
    if (axe_cute_product(AXE_CUTE_PRODUCT_LOGICAL, a, b, &logical, NULL) !=
        AXE_OK)
        return;
    if (axe_cute_size(a, &sa) == AXE_OK && axe_cute_size(b, &sb) == AXE_OK &&
        !__builtin_mul_overflow(sa, sb, &size))
        LAW(size_or(&logical, -1) == size,
            "logical_product: size(R) == size(a) size(b)", &logical);
    check_logical_product(a, b, &logical);
    for (int k = 1; k < 6; k++) {
        if (axe_cute_product((axe_cute_product_kind)k, a, b, &r, NULL) !=
            AXE_OK)
            continue;
        LAW(same_size(&r, &logical), product_names[k], &r);
        if (small(&r, DOMAIN_MAX, &size))
            LAW(same_multiset(&r, &logical, size), product_names[k], &r);
    }
}

/* R at the coordinate (c_0, c_1, ...) of x in the block sizes "bt" is
 * a(x) for x < size(a): the first tile of tile_to_shape is "a". */
static void check_first_tile(const axe_cute_layout *a, const axe_tuple *bt,
                             const axe_cute_layout *r)
{
    int64_t sa;
    if (axe_cute_has_basis(a) || !small(a, DOMAIN_MAX, &sa))
        return;
    for (int64_t x = 0; x < sa; x++) {
        int64_t want, got;
        axe_tuple c;
        if (axe_tuple_idx2crd(x, bt, &c) == AXE_OK && ivalue(a, x, &want) &&
            axe_cute_eval_crd(r, &c, &got) == AXE_OK)
            LAW(got == want, "tile_to_shape: the first tile is a", r);
    }
}

/* tile_to_shape: mode i of R has size ceil(s_i / b_i) b_i, b_i the size
 * of a's mode i (1 past rank(a)), and R's first tile is "a". */
static void law_tile_to_shape(const operands *o)
{
    const axe_tuple *s = &o->b.shape;
    int64_t blk[AXE_TUPLE_MAX_LEAVES];
    int rank = axe_tuple_rank(s), ra = axe_cute_rank(&o->a);
    axe_cute_layout r, m;
    axe_tuple bt, si;
    if (axe_cute_tile_to_shape(&o->a, s, o->has_order ? &o->order : NULL, &r,
                               NULL) != AXE_OK ||
        ra > rank || axe_tuple_is_scalar(s))
        return;
    LAW(axe_cute_rank(&r) == rank, "tile_to_shape: rank(R) == rank(s)", &r);
    for (int i = 0; i < rank; i++) {
        int64_t want, si_size;
        blk[i] = 1;
        if (i < ra && axe_cute_get(&o->a, i, &m) == AXE_OK)
            blk[i] = size_or(&m, 1);
        if (axe_tuple_get(s, i, &si) != AXE_OK ||
            axe_tuple_size(&si, &si_size) != AXE_OK ||
            axe_cute_get(&r, i, &m) != AXE_OK ||
            __builtin_mul_overflow(si_size / blk[i] + (si_size % blk[i] != 0),
                                   blk[i], &want))
            return;
        LAW(size_or(&m, -1) == want, "tile_to_shape: mode sizes", &r);
    }
    if (axe_tuple_from_array(blk, rank, &bt) == AXE_OK)
        check_first_tile(&o->a, &bt, &r);
}

/* ---- slicing ----------------------------------------------------------- */

/* How a coordinate splits a shape: its `_` leaves ("free") and its fixed
 * leaves, each with the size and the leaf range of the shape subtree it
 * covers, in preorder. */
typedef struct part {
    int crd_leaf;      /* index of the coordinate leaf */
    int shape_leaf, n; /* the subtree's leaves in the shape */
    int64_t size;
} part;

typedef struct split {
    int nfree, nfixed;
    part free[AXE_TUPLE_MAX_LEAVES], fixed[AXE_TUPLE_MAX_LEAVES];
    bool in_range; /* every fixed value lies in [0, size of its subtree) */
} split;

static int subtree_end(const char *tok, int k)
{
    int depth = 0;
    do {
        depth += tok[k] == '(' ? 1 : tok[k] == ')' ? -1 : 0;
        k++;
    } while (depth > 0);
    return k;
}

/* Record the coordinate leaf at "*ic"/"*lc" against the shape subtree at
 * "*is"/"*ls"; false on overflow. */
static bool split_leaf(const axe_tuple *crd, int *ic, int *lc,
                       const axe_tuple *shape, int *is, int *ls, split *out)
{
    int e = subtree_end(shape->tok, *is), n = 0;
    int64_t size = 1, v = crd->v[*lc];
    for (int k = *is; k < e; k++)
        n += shape->tok[k] == 'x';
    for (int k = 0; k < n; k++)
        if (__builtin_mul_overflow(size, shape->v[*ls + k], &size))
            return false;
    if (v == AXE_UNDERSCORE)
        out->free[out->nfree++] = (part){*lc, *ls, n, size};
    else
        out->fixed[out->nfixed++] = (part){*lc, *ls, n, size};
    out->in_range =
        out->in_range && (v == AXE_UNDERSCORE || (v >= 0 && v < size));
    (*ic)++;
    (*lc)++;
    *is = e;
    *ls += n;
    return true;
}

/* Walk "crd" against "shape" (weak congruence); false on a mismatch. */
static bool split_walk(const axe_tuple *crd, int *ic, int *lc,
                       const axe_tuple *shape, int *is, int *ls, split *out)
{
    if (crd->tok[*ic] == 'x')
        return split_leaf(crd, ic, lc, shape, is, ls, out);
    if (shape->tok[*is] != '(')
        return false;
    (*ic)++;
    (*is)++;
    while (crd->tok[*ic] != ')') {
        if (shape->tok[*is] == ')' ||
            !split_walk(crd, ic, lc, shape, is, ls, out))
            return false;
    }
    if (shape->tok[*is] != ')')
        return false;
    (*ic)++;
    (*is)++;
    return true;
}

static bool split_crd(const axe_tuple *crd, const axe_tuple *shape, split *out)
{
    int ic = 0, lc = 0, is = 0, ls = 0;
    out->nfree = out->nfixed = 0;
    out->in_range = true;
    return split_walk(crd, &ic, &lc, shape, &is, &ls, out);
}

static int64_t parts_size(const part *p, int n)
{
    int64_t s = 1;
    for (int k = 0; k < n; k++)
        if (__builtin_mul_overflow(s, p[k].size, &s))
            return -1;
    return s;
}

/* "crd" with the leaves of "p" set to the colex digits of "j" over the
 * parts' sizes and the leaves of "zero" set to 0; the index of that
 * coordinate in "shape". */
static bool fill_index(const axe_tuple *crd, const part *p, int n,
                       const part *zero, int nzero, int64_t j,
                       const axe_tuple *shape, int64_t *idx)
{
    axe_tuple full = *crd;
    for (int k = 0; k < n; k++) {
        full.v[p[k].crd_leaf] = j % p[k].size;
        j /= p[k].size;
    }
    for (int k = 0; k < nzero; k++)
        full.v[zero[k].crd_leaf] = 0;
    return axe_tuple_crd2idx(&full, shape, idx) == AXE_OK;
}

/* The leaves of the shape subtrees of "p", concatenated, are the leaves
 * of "t". */
static bool same_leaves(const axe_tuple *t, const axe_tuple *shape,
                        const part *p, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int m = 0; m < p[i].n; m++, k++)
            if (k >= t->nleaf || t->v[k] != shape->v[p[i].shape_leaf + m])
                return false;
    return k == t->nleaf;
}

/* slice: R(j) + offset == a(crd with its `_` subtrees at the digits of j);
 * dice: R(j) == a(crd with the `_` at 0 and the fixed subtrees at the
 * digits of j); tuple slice and dice keep the leaves of those subtrees. */
static void law_slice(const operands *o)
{
    const axe_cute_layout *a = &o->a;
    const axe_tuple *crd = &o->crd;
    axe_cute_layout r;
    axe_cute_point off, p, q;
    axe_tuple t;
    split sp;
    int64_t want, idx;
    bool ok = split_crd(crd, &a->shape, &sp) && sp.in_range;
    if (axe_cute_slice(a, crd, &r, &off, NULL) == AXE_OK && ok) {
        want = parts_size(sp.free, sp.nfree);
        LAW(size_or(&r, -2) == want, "slice: size of the `_` modes", &r);
        for (int64_t j = 0; want <= DOMAIN_MAX && j < want; j++)
            if (fill_index(crd, sp.free, sp.nfree, NULL, 0, j, &a->shape,
                           &idx) &&
                value(a, idx, &p) && value(&r, j, &q) &&
                point_add(&q, &off, &q))
                LAW(axe_cute_point_equal(&p, &q),
                    "slice: R(j) + offset == a(crd filled with j)", &r);
    }
    LAW(axe_cute_slice(a, crd, &r, NULL, NULL) != AXE_OK || !ok ||
            size_or(&r, -2) == parts_size(sp.free, sp.nfree),
        "slice with offset NULL", &r);
    if (axe_cute_dice(a, crd, &r, NULL) == AXE_OK && ok) {
        want = parts_size(sp.fixed, sp.nfixed);
        LAW(size_or(&r, -2) == want, "dice: size of the fixed modes", &r);
        for (int64_t j = 0; want <= DOMAIN_MAX && j < want; j++)
            if (fill_index(crd, sp.fixed, sp.nfixed, sp.free, sp.nfree, j,
                           &a->shape, &idx) &&
                value(a, idx, &p) && value(&r, j, &q))
                LAW(axe_cute_point_equal(&p, &q),
                    "dice: R(j) == a(fixed modes at j)", &r);
    }
    if (axe_tuple_slice(&a->shape, crd, &t, NULL) == AXE_OK && ok)
        LAW(same_leaves(&t, &a->shape, sp.free, sp.nfree),
            "tuple_slice: the `_` subtrees", NULL);
    if (axe_tuple_dice(&a->shape, crd, &t, NULL) == AXE_OK && ok)
        LAW(same_leaves(&t, &a->shape, sp.fixed, sp.nfixed),
            "tuple_dice: the fixed subtrees", NULL);
}

/* ---- vectors and casts ----------------------------------------------- */

/* a(R(k)) == b(R(k)); max_common_vector == size(R). Checked for integer
 * layouts only: the implementation compares scaled-basis values by their
 * index, so that k and k@0 count as equal. */
static void law_common(const axe_cute_layout *a, const axe_cute_layout *b)
{
    axe_cute_layout r;
    axe_cute_point p, q;
    int64_t size, x, v;
    if (axe_cute_max_common_layout(a, b, &r) != AXE_OK)
        return;
    if (axe_cute_max_common_vector(a, b, &v) == AXE_OK)
        LAW(size_or(&r, -1) == v, "max_common_vector == size(R)", &r);
    if (axe_cute_has_basis(a) || axe_cute_has_basis(b))
        return;
    for (int64_t k = 0; small(&r, DOMAIN_MAX, &size) && k < size; k++)
        if (ivalue(&r, k, &x) && x >= 0 && value(a, x, &p) && value(b, x, &q))
            LAW(axe_cute_point_equal(&p, &q),
                "max_common_layout: a(R(k)) == b(R(k))", &r);
}

/* Leaf 0 has stride 1 and no other leaf has stride +-1 (integer). */
static bool unit_first(const axe_cute_layout *a)
{
    if (axe_cute_has_basis(a) || a->shape.nleaf == 0 || a->stride[0] != 1)
        return false;
    for (int i = 1; i < a->shape.nleaf; i++)
        if (a->stride[i] == 1 || a->stride[i] == -1)
            return false;
    return true;
}

/* Leaf 0 is m:1 with n | m and n divides every other stride. */
static bool upcastable(const axe_cute_layout *a, int64_t n)
{
    if (!unit_first(a) || a->shape.v[0] % n != 0)
        return false;
    for (int i = 1; i < a->shape.nleaf; i++)
        if (a->stride[i] % n != 0)
            return false;
    return true;
}

/* downcast by n: R(q + n i) == n a(i) + q for q < n (leaf 0 of stride 1
 * absorbs the factor); upcast by n: n R(i) == a(n i). */
static void law_casts(const axe_cute_layout *a, int64_t n)
{
    axe_cute_layout r;
    int64_t sa, x, y;
    if (axe_cute_downcast(a, n, &r, NULL) == AXE_OK && unit_first(a) &&
        small(a, DOMAIN_MAX / n, &sa)) {
        LAW(size_or(&r, -1) == sa * n, "downcast: size(R) == n size(a)", &r);
        for (int64_t i = 0; i < sa; i++)
            for (int64_t q = 0; q < n; q++)
                if (ivalue(a, i, &x) && ivalue(&r, q + n * i, &y) &&
                    !__builtin_mul_overflow(x, n, &x) &&
                    !__builtin_add_overflow(x, q, &x))
                    LAW(y == x, "downcast: R(q + n i) == n a(i) + q", &r);
    }
    if (axe_cute_upcast(a, n, &r, NULL) == AXE_OK && upcastable(a, n) &&
        small(a, DOMAIN_MAX, &sa)) {
        LAW(size_or(&r, -1) == sa / n, "upcast: size(R) == size(a) / n", &r);
        for (int64_t i = 0; i < sa / n; i++)
            if (ivalue(a, n * i, &x) && ivalue(&r, i, &y) &&
                !__builtin_mul_overflow(y, n, &y))
                LAW(y == x, "upcast: n R(i) == a(n i)", &r);
    }
}

/* recast from 8 to 8n bits is upcast by n; from 8n to 8 downcast by n. */
static void law_recast(const axe_cute_layout *a, int64_t n)
{
    axe_cute_layout r, s;
    int64_t size;
    if (axe_cute_recast(a, 8, 8 * n, &r, NULL) == AXE_OK &&
        axe_cute_upcast(a, n, &s, NULL) == AXE_OK &&
        small(&s, DOMAIN_MAX, &size))
        LAW(same_size(&r, &s) && same_function(&r, &s, size),
            "recast<8,8n> == upcast<n>", &r);
    if (axe_cute_recast(a, 8 * n, 8, &r, NULL) == AXE_OK &&
        axe_cute_downcast(a, n, &s, NULL) == AXE_OK &&
        small(&s, DOMAIN_MAX, &size))
        LAW(same_size(&r, &s) && same_function(&r, &s, size),
            "recast<8n,8> == downcast<n>", &r);
}

/* ---- swizzles and composed layouts ------------------------------------ */

static void law_swizzle(const axe_swizzle *sw)
{
    for (int64_t x = 0; x < DOMAIN_MAX; x++)
        LAW(axe_swizzle_apply(sw, axe_swizzle_apply(sw, x)) == x,
            "swizzle: an involution", NULL);
}

/* c(i) == Sw(offset + inner(i)) for a swizzle outer. */
static void law_composed_eval(const axe_cute_composed *c)
{
    int64_t size, v;
    axe_cute_point p;
    if (axe_cute_composed_size(c, &size) == AXE_OK)
        LAW(size == size_or(&c->inner, -1), "composed: size == size(inner)",
            &c->inner);
    if (c->kind != AXE_CUTE_OUTER_SWIZZLE || !axe_tuple_is_scalar(&c->offset) ||
        !small(&c->inner, DOMAIN_MAX, &size))
        return;
    for (int64_t i = 0; i < size; i++) {
        if (!ivalue(&c->inner, i, &v) ||
            __builtin_add_overflow(v, c->offset.v[0], &v) || v < 0 ||
            axe_cute_composed_eval_point(c, i, &p) != AXE_OK)
            continue;
        v = axe_swizzle_apply(&c->swizzle, v);
        LAW(v == 0 ? p.n == 0 : p.n == 1 && p.basis[0] == 0 && p.v[0] == v,
            "composed: c(i) == Sw(offset + inner(i))", &c->inner);
    }
}

/* composed_slice: c(crd filled with j) == result(j). */
static void law_composed_slice(const axe_cute_composed *c, const operands *o)
{
    static axe_cute_composed r;
    axe_cute_point p, q;
    split sp;
    int64_t size, idx;
    if (!o->has_crd ||
        axe_cute_composed_slice(c, &o->crd, &r, NULL) != AXE_OK ||
        !split_crd(&o->crd, &c->inner.shape, &sp) || !sp.in_range ||
        !small(&r.inner, DOMAIN_MAX, &size))
        return;
    for (int64_t j = 0; j < size; j++)
        if (fill_index(&o->crd, sp.free, sp.nfree, NULL, 0, j, &c->inner.shape,
                       &idx) &&
            axe_cute_composed_eval_point(c, idx, &p) == AXE_OK &&
            axe_cute_composed_eval_point(&r, j, &q) == AXE_OK)
            LAW(axe_cute_point_equal(&p, &q),
                "composed_slice: c(crd filled with j) == R(j)", &r.inner);
}

/* ---- operands from bytes ---------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t n, k;
} reader;

static unsigned next_byte(reader *r) { return r->k < r->n ? r->p[r->k++] : 0; }

/* A value in [lo, hi] from the next byte. */
static int64_t pick(reader *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next_byte(r) % (unsigned)(hi - lo + 1));
}

/* A profile with "leaves" leaves, depth <= 3. */
static void gen_tree(reader *r, axe_tuple *t, int leaves, int depth)
{
    if (leaves == 1 && (depth >= 3 || next_byte(r) % 3 != 0)) {
        t->tok[t->ntok++] = 'x';
        return;
    }
    t->tok[t->ntok++] = '(';
    while (leaves > 0) {
        int take = depth + 1 < 3 ? (int)pick(r, 1, leaves) : 1;
        gen_tree(r, t, take, depth + 1);
        leaves -= take;
    }
    t->tok[t->ntok++] = ')';
}

/* Strides of a compact layout in a byte-chosen leaf order, with a gap
 * factor 1..3 after some leaves when "gaps". */
static void gen_compact(reader *r, axe_cute_layout *l, bool gaps)
{
    int n = l->shape.nleaf, perm[AXE_TUPLE_MAX_LEAVES];
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)pick(r, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; i++) {
        l->stride[perm[i]] = p;
        p *= l->shape.v[perm[i]] * (gaps ? pick(r, 1, 3) : 1);
    }
}

/* A layout of 1..6 leaves of extent 1..8 (mostly <= 4): random strides
 * in [-4, 20], compact, compact with gaps, or compact with some
 * scaled-basis leaves. */
static void gen_layout(reader *r, axe_cute_layout *l)
{
    unsigned style = next_byte(r) % 4;
    int n = (int)pick(r, 1, 6);
    memset(l, 0, sizeof *l);
    gen_tree(r, &l->shape, n, 0);
    l->shape.nleaf = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        l->shape.v[i] = pick(r, 1, next_byte(r) % 4 == 0 ? 8 : 4);
        l->stride[i] = pick(r, -4, 20);
    }
    if (style != 0)
        gen_compact(r, l, style == 2);
    for (int i = 0; style == 3 && i < n; i++)
        if (next_byte(r) % 3 == 0)
            l->basis[i] = AXE_CUTE_BASIS1(pick(r, 0, 2));
}

/* A coordinate for "shape": its own profile (or the top-level modes),
 * each leaf `_` or a value in range. */
static void gen_crd(reader *r, const axe_cute_layout *a, axe_tuple *out)
{
    int64_t v[AXE_TUPLE_MAX_LEAVES];
    int rank = axe_cute_rank(a);
    axe_cute_layout m;
    if (next_byte(r) % 2 == 0 || axe_tuple_is_scalar(&a->shape)) {
        *out = a->shape;
        for (int i = 0; i < out->nleaf; i++)
            out->v[i] = next_byte(r) % 3 == 0 ? AXE_UNDERSCORE
                                              : pick(r, 0, a->shape.v[i] - 1);
        return;
    }
    for (int i = 0; i < rank; i++) {
        int64_t s = axe_cute_get(a, i, &m) == AXE_OK ? size_or(&m, 1) : 1;
        v[i] = next_byte(r) % 3 == 0 ? AXE_UNDERSCORE
                                     : pick(r, 0, s > 255 ? 255 : s - 1);
    }
    if (axe_tuple_from_array(v, rank, out) != AXE_OK)
        *out = a->shape;
}

/* The tiler of b's top-level modes, some replaced by `_`. */
static void gen_tiler(reader *r, const axe_cute_layout *b, axe_cute_tiler *t)
{
    int rank = axe_cute_rank(b);
    t->ntok = t->nelem = 0;
    t->tok[t->ntok++] = '[';
    for (int i = 0; i < rank && i < AXE_CUTE_TILER_MAX; i++) {
        if (next_byte(r) % 4 == 0 ||
            axe_cute_get(b, i, &t->elem[t->nelem]) != AXE_OK) {
            t->tok[t->ntok++] = '_';
            continue;
        }
        t->nelem++;
        t->tok[t->ntok++] = 'L';
    }
    t->tok[t->ntok++] = ']';
}

/* A flat permutation of 0..rank-1 (a mode order). */
static void gen_order(reader *r, int rank, axe_tuple *out, bool *has)
{
    int64_t v[AXE_TUPLE_MAX_LEAVES];
    for (int i = 0; i < rank; i++)
        v[i] = i;
    for (int i = rank - 1; i > 0; i--) {
        int j = (int)pick(r, 0, i);
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    *has = rank > 1 && axe_tuple_from_array(v, rank, out) == AXE_OK;
}

static void gen_operands(const uint8_t *data, size_t size, operands *o)
{
    reader r = {data, size, 0};
    gen_layout(&r, &o->a);
    gen_layout(&r, &o->b);
    gen_crd(&r, &o->a, &o->crd);
    o->has_crd = true;
    gen_tiler(&r, &o->b, &o->tiler);
    o->has_tiler = true;
    gen_order(&r, axe_tuple_rank(&o->b.shape), &o->order, &o->has_order);
    o->order_a = o->a.shape;
    for (int i = 0; i < o->a.shape.nleaf; i++)
        o->order_a.v[i] = pick(&r, 0, 7);
    o->n = pick(&r, 1, 8);
    o->cotarget = pick(&r, -1, 64);
}

/* ---- operands from text ------------------------------------------------ */

/* The first operand: a layout, or a composed layout (its inner layout is
 * the operand, and its own laws run), or a swizzle (only its law runs).
 * Returns false when there is nothing to run the algebra on. */
static bool text_first(const axe_cute_object *x, operands *o)
{
    switch (x->kind) {
    case AXE_CUTE_KIND_LAYOUT:
        o->a = x->layout;
        return true;
    case AXE_CUTE_KIND_COMPOSED:
        o->a = x->composed.inner;
        return true;
    case AXE_CUTE_KIND_SWIZZLE:
        law_swizzle(&x->swizzle);
        return false;
    case AXE_CUTE_KIND_TUPLE:
    case AXE_CUTE_KIND_TILER:
        return false;
    }
    return false;
}

/* The second operand: a layout, a tiler (b its first layout), a shape (b
 * its column-major layout, the tiler its own) or a coordinate for a. */
static void text_second(const axe_cute_object *y, operands *o)
{
    switch (y->kind) {
    case AXE_CUTE_KIND_LAYOUT:
        o->b = y->layout;
        break;
    case AXE_CUTE_KIND_COMPOSED:
        o->b = y->composed.inner;
        break;
    case AXE_CUTE_KIND_TILER:
        o->tiler = y->tiler;
        o->has_tiler = true;
        if (y->tiler.nelem > 0)
            o->b = y->tiler.elem[0];
        break;
    case AXE_CUTE_KIND_TUPLE:
        if (axe_tuple_is_weakly_congruent(&y->tuple, &o->a.shape)) {
            o->crd = y->tuple;
            o->has_crd = true;
        }
        if (axe_cute_make_col_major(&y->tuple, &o->b) == AXE_OK)
            o->has_tiler =
                axe_cute_tiler_from_shape(&y->tuple, &o->tiler) == AXE_OK;
        break;
    case AXE_CUTE_KIND_SWIZZLE:
        break;
    }
}

/* The third operand: an integer (cast factor and cotarget) or a
 * coordinate. */
static void text_third(const axe_cute_object *z, operands *o)
{
    if (z->kind != AXE_CUTE_KIND_TUPLE)
        return;
    if (axe_tuple_is_scalar(&z->tuple) && z->tuple.v[0] != AXE_UNDERSCORE) {
        o->cotarget = z->tuple.v[0];
        o->n = z->tuple.v[0] >= 1 && z->tuple.v[0] <= 64 ? z->tuple.v[0] : 2;
        return;
    }
    o->crd = z->tuple;
    o->has_crd = true;
}

/* Split "data" at NUL bytes into up to three parts and parse them; false
 * when the first part is not an operand. */
static bool text_operands(const uint8_t *data, size_t size, operands *o,
                          axe_cute_object *x)
{
    static axe_cute_object y;
    const char *s = (const char *)data;
    const char *end = s + size, *p1 = memchr(s, '\0', size), *p2;
    if (axe_parse_cute(s, (size_t)(p1 - s), x, NULL) != AXE_OK ||
        !text_first(x, o))
        return false;
    o->b = o->a;
    p1++;
    p2 = memchr(p1, '\0', (size_t)(end - p1));
    if (p2 == NULL)
        p2 = end;
    if (axe_parse_cute(p1, (size_t)(p2 - p1), &y, NULL) == AXE_OK)
        text_second(&y, o);
    if (p2 < end &&
        axe_parse_cute(p2 + 1, (size_t)(end - p2 - 1), &y, NULL) == AXE_OK)
        text_third(&y, o);
    if (!o->has_tiler)
        o->has_tiler = axe_cute_tiler_from_layout(&o->b, &o->tiler) == AXE_OK;
    return true;
}

/* ---- the target ------------------------------------------------------- */

static void run_algebra(const operands *o)
{
    const axe_cute_layout *a = &o->a, *b = &o->b;
    law_eval(a);
    law_structure(a);
    law_concat(a, b);
    law_make(o);
    law_coalesce(a);
    law_coalesce_by(a);
    law_filter(a);
    law_compose(a, b);
    law_tiler_builders(b);
    if (o->has_tiler) {
        law_compose_tiler(a, &o->tiler);
        law_divide_tiler(a, &o->tiler);
    }
    law_complement(a, o->cotarget);
    law_complement(b, -1);
    law_right_inverse(a);
    law_left_inverse(a);
    law_nullspace(a);
    law_divide_layout(a, b);
    law_product(a, b);
    law_tile_to_shape(o);
    if (o->has_crd)
        law_slice(o);
    law_common(a, b);
    law_casts(a, o->n);
    law_recast(a, o->n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static operands o;
    static axe_cute_object x;
    memset(&o, 0, sizeof o);
    o.n = 2;
    o.cotarget = -1;
    cur = &o;
    if (memchr(data, '\0', size) == NULL) {
        gen_operands(data, size, &o);
    } else {
        if (!text_operands(data, size, &o, &x))
            return 0;
        if (x.kind == AXE_CUTE_KIND_COMPOSED) {
            law_composed_eval(&x.composed);
            law_composed_slice(&x.composed, &o);
        }
    }
    run_algebra(&o);
    return 0;
}
