/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tiling and direct sums of Axe layouts: tile, tile_to, is_tile_inner,
 * is_tile_outer, direct_sum, is_direct_sum_right/left and the iter
 * intersection. Four parts: every case of these ops in
 * ../shared/vectors/axe.jsonl (read at run time from $AXE_SHARED_DIR),
 * the Axe paper's examples (e) and (h) with the proof that no C has
 * C ⊗ B = S[16:1], tables (reasons, scope splitting, swizzles, axe's
 * policy), and laws on seeded random layouts checked against a brute-force
 * evaluation of L(x) = { D(x) + r + O } written here from the definition:
 *   tile        f_T(x || y) = D_A(x) ⊙ span(B) + R_A + O_A + f_B(y)
 *   tile-of     the recovered factor tiles back to T (as maps), and a
 *               factor is found for every random tile
 *   direct sum  f_S(a0, b0, a1, b1, ...) = f_A(a) + f_B(b), recoveries
 *   intersect   both layouts are tiles of the result, which is at least
 *               as large as a planted common inner tile.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>

#include "json.h"
#include "testlib.h"

/* ---- helpers ------------------------------------------------------------ */

static axe_layout lay(const char *s)
{
    axe_layout l;
    axe_diag d;
    if (axe_parse_layout(s, strlen(s), &l, &d) != AXE_OK) {
        fprintf(stderr, "bad Axe layout in test table: %s (%s)\n", s,
                d.message);
        exit(2);
    }
    return l;
}

static const char *lstr(const axe_layout *l)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    axe_print_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

/* a == b structurally after canonicalizing both (cmp axe_struct). */
static bool same_canon(const axe_layout *a, const axe_layout *b, axe_target t)
{
    axe_layout ca, cb;
    return axe_layout_canonicalize(a, t, &ca, NULL) == AXE_OK &&
           axe_layout_canonicalize(b, t, &cb, NULL) == AXE_OK &&
           axe_layout_equal(&ca, &cb);
}

static int64_t prod(const int64_t *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* ---- brute-force evaluation of L(x) = { D(x) + r + O } ------------------ */

#define NAX 16
#define MAXPTS 256

typedef struct bpt {
    int64_t v[NAX];
} bpt;

static char ax_names[NAX][AXE_AXIS_NAME_MAX];
static int nax;

/* The axis "name" denotes: the Axe paper's lane and warp are TIRx's laneid
 * and warpid (docs/algebra.md). */
static const char *axis_of(const char *name)
{
    if (strcmp(name, "lane") == 0)
        return "laneid";
    return strcmp(name, "warp") == 0 ? "warpid" : name;
}

static int ax_id(const char *name)
{
    name = axis_of(name);
    for (int i = 0; i < nax; i++)
        if (strcmp(ax_names[i], name) == 0)
            return i;
    if (nax == NAX) {
        fprintf(stderr, "too many axes in the test\n");
        exit(2);
    }
    snprintf(ax_names[nax], AXE_AXIS_NAME_MAX, "%s", name);
    return nax++;
}

static int64_t bf_size(const axe_layout *l)
{
    int64_t n = 1;
    for (int k = 0; k < l->nshard; k++)
        n *= l->shard[k].extent;
    return n;
}

static int64_t bf_combos(const axe_layout *l)
{
    int64_t n = 1;
    for (int k = 0; k < l->nreplica; k++)
        n *= l->replica[k].extent;
    return n;
}

/* D(x): the shard part only (digits lexicographic, last iter fastest). */
static bpt bf_shard(const axe_layout *l, int64_t x)
{
    bpt p;
    memset(&p, 0, sizeof p);
    for (int k = l->nshard - 1; k >= 0; k--) {
        int64_t e = l->shard[k].extent, d = k > 0 ? x % e : x;
        x /= e;
        p.v[ax_id(l->shard[k].axis)] += d * l->shard[k].stride;
    }
    return p;
}

/* p + replica combination "r" + O. */
static bpt bf_rest(const axe_layout *l, bpt p, int64_t r)
{
    for (int k = l->nreplica - 1; k >= 0; k--) {
        int64_t e = l->replica[k].extent;
        p.v[ax_id(l->replica[k].axis)] += (r % e) * l->replica[k].stride;
        r /= e;
    }
    for (int i = 0; i < l->noffset; i++)
        p.v[ax_id(l->offset[i].axis)] += l->offset[i].value;
    return p;
}

static int bpt_cmp(const void *a, const void *b)
{
    const bpt *x = a, *y = b;
    for (int i = 0; i < NAX; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

static bpt bpt_add(bpt a, const bpt *b)
{
    for (int i = 0; i < NAX; i++)
        a.v[i] += b->v[i];
    return a;
}

static int64_t axe_gcd_test(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The multiset L(x), sorted; its count. */
static int bf_set(const axe_layout *l, int64_t x, bpt *out)
{
    int64_t n = bf_combos(l);
    bpt d = bf_shard(l, x);
    if (n > MAXPTS) {
        fprintf(stderr, "replica too large for the test\n");
        exit(2);
    }
    for (int64_t r = 0; r < n; r++)
        out[r] = bf_rest(l, d, r);
    qsort(out, (size_t)n, sizeof *out, bpt_cmp);
    return (int)n;
}

static bool same_sets(const bpt *a, int na, const bpt *b, int nb)
{
    return na == nb && memcmp(a, b, (size_t)na * sizeof *a) == 0;
}

/* Same size and L_a(x) == L_b(x) as multisets for every x. */
static bool bf_same(const axe_layout *a, const axe_layout *b)
{
    static bpt pa[MAXPTS], pb[MAXPTS];
    int64_t n = bf_size(a);
    if (n != bf_size(b))
        return false;
    for (int64_t x = 0; x < n; x++) {
        int ca = bf_set(a, x, pa), cb = bf_set(b, x, pb);
        if (!same_sets(pa, ca, pb, cb))
            return false;
    }
    return true;
}

/* Row-major coordinate <-> index over "shape". */
static void unflatten(int64_t x, const int64_t *shape, int n, int64_t *c)
{
    for (int d = n - 1; d >= 0; d--) {
        c[d] = x % shape[d];
        x /= shape[d];
    }
}

static int64_t flatten(const int64_t *c, const int64_t *shape, int n)
{
    int64_t x = 0;
    for (int d = 0; d < n; d++)
        x = x * shape[d] + c[d];
    return x;
}

/* span(B, a) per axis from the definition: 1 + sum (e-1) s over the shard
 * and replica iters on a + O[a]; "on[a]" = whether a is an axis of B's
 * shard (TIRx scales exactly those). */
static void bf_span(const axe_layout *b, int64_t *span, bool *on)
{
    for (int i = 0; i < NAX; i++) {
        span[i] = 1;
        on[i] = false;
    }
    for (int k = 0; k < b->nshard; k++) {
        int a = ax_id(b->shard[k].axis);
        span[a] += (b->shard[k].extent - 1) * b->shard[k].stride;
        on[a] = true;
    }
    for (int k = 0; k < b->nreplica; k++)
        span[ax_id(b->replica[k].axis)] +=
            (b->replica[k].extent - 1) * b->replica[k].stride;
    for (int k = 0; k < b->noffset; k++)
        span[ax_id(b->offset[k].axis)] += b->offset[k].value;
}

/* ---- the shared vectors ------------------------------------------------- */

typedef struct vcase {
    const char *id, *op;
    const json_value *args, *expect;
    bool expect_error, canon;
    axe_target target;
    axe_rule rule; /* AXE_RULE_TIRX for "tirx": true */
} vcase;

static bool arg_layout(const vcase *c, const char *key, axe_layout *l)
{
    const char *s = json_get_string(json_object_get(c->args, key), NULL);
    return s != NULL && axe_parse_layout(s, strlen(s), l, NULL) == AXE_OK;
}

static int arg_ints(const vcase *c, const char *key, int64_t *out)
{
    const json_value *v = json_object_get(c->args, key);
    int n = (int)json_array_len(v);
    if (!json_is_array(v) || n > 2 * AXE_LAYOUT_MAX_DIMS)
        return -1;
    for (int i = 0; i < n; i++)
        if (json_get_int(json_array_at(v, (size_t)i), &out[i]) != JSON_OK)
            return -1;
    return n;
}

/* The answer of a layout op: status, layout, found. */
typedef struct answer {
    axe_status st;
    axe_layout l;
    bool found;
    axe_diag diag;
} answer;

/* Two shapes of the same rank (the C API takes one rank; a mismatch is
 * what TIRx rejects with "... shape size must match"). */
static bool two_shapes(const vcase *c, const char *k0, const char *k1,
                       int64_t *s0, int64_t *s1, int *n, int twice)
{
    int n0 = arg_ints(c, k0, s0), n1 = arg_ints(c, k1, s1);
    *n = n1;
    return n0 >= 0 && n1 >= 0 && n0 == twice * n1;
}

static void run_tile_ops(const vcase *c, answer *a)
{
    axe_layout x, y;
    int64_t s0[32], s1[32];
    int n;
    a->found = true;
    if (strcmp(c->op, "axe.tile") == 0) {
        if (!arg_layout(c, "outer", &x) || !arg_layout(c, "inner", &y) ||
            !two_shapes(c, "outer_shape", "inner_shape", s0, s1, &n, 1)) {
            a->st = AXE_ERR_INVALID;
            return;
        }
        a->st = axe_layout_tile_rule(&x, s0, &y, s1, n, c->target, c->rule,
                                     &a->l, &a->diag);
    } else if (strcmp(c->op, "axe.tile_to") == 0) {
        if (!arg_layout(c, "layout", &x) ||
            !two_shapes(c, "to_shape", "current_shape", s0, s1, &n, 1)) {
            a->st = AXE_ERR_INVALID;
            return;
        }
        a->st = axe_layout_tile_to_rule(&x, s0, s1, n, c->target, c->rule,
                                        &a->l, &a->diag);
    } else if (strcmp(c->op, "axe.is_tile_inner") == 0 ||
               strcmp(c->op, "axe.is_tile_outer") == 0) {
        bool inner = strcmp(c->op, "axe.is_tile_inner") == 0;
        const char *k = inner ? "inner" : "outer";
        if (!arg_layout(c, k, &x) || !arg_layout(c, "tiled", &y) ||
            !two_shapes(c, "tiled_shape", inner ? "inner_shape" : "outer_shape",
                        s0, s1, &n, 1)) {
            a->st = AXE_ERR_INVALID;
            return;
        }
        a->st = inner ? axe_layout_is_tile_inner_rule(&x, &y, s0, s1, n,
                                                      c->target, c->rule, &a->l,
                                                      &a->found, &a->diag)
                      : axe_layout_is_tile_outer_rule(&x, &y, s0, s1, n,
                                                      c->target, c->rule, &a->l,
                                                      &a->found, &a->diag);
    }
}

static void run_sum_ops(const vcase *c, answer *a)
{
    axe_layout x, y;
    int64_t s0[32], s1[32];
    int n;
    bool right = strcmp(c->op, "axe.is_direct_sum_right") == 0;
    a->found = true;
    if (strcmp(c->op, "axe.direct_sum") == 0) {
        if (!arg_layout(c, "a", &x) || !arg_layout(c, "b", &y) ||
            !two_shapes(c, "a_shape", "b_shape", s0, s1, &n, 1)) {
            a->st = AXE_ERR_INVALID;
            return;
        }
        a->st = axe_layout_direct_sum(&x, s0, &y, s1, n, &a->l, &a->diag);
        return;
    }
    if (!arg_layout(c, right ? "b" : "a", &x) || !arg_layout(c, "sum", &y) ||
        !two_shapes(c, "interleaved_shape", right ? "b_shape" : "a_shape", s0,
                    s1, &n, 2)) {
        a->st = AXE_ERR_INVALID;
        return;
    }
    a->st = right ? axe_layout_is_direct_sum_right(&x, &y, s0, s1, n, &a->l,
                                                   &a->found, &a->diag)
                  : axe_layout_is_direct_sum_left(&x, &y, s0, s1, n, &a->l,
                                                  &a->found, &a->diag);
}

/* Compare the answer with the case's expectation (axe_struct / null). */
static void check_case(const vcase *c, answer *a)
{
    const char *want = json_get_string(c->expect, NULL);
    axe_layout w;
    if (c->expect_error) {
        TL_CHECK(a->st != AXE_OK, "%s: expected an error, got %s", c->id,
                 a->found ? lstr(&a->l) : "null");
        return;
    }
    if (a->st != AXE_OK) {
        TL_CHECK(false, "%s: %s (%s)", c->id, axe_status_name(a->st),
                 a->diag.message);
        return;
    }
    if (want == NULL) {
        TL_CHECK(!a->found, "%s: expected null, got %s", c->id, lstr(&a->l));
        return;
    }
    if (!a->found) {
        TL_CHECK(false, "%s: expected %s, got null (%s)", c->id, want,
                 a->diag.message);
        return;
    }
    w = lay(want);
    if (c->canon)
        TL_CHECK(same_canon(&a->l, &w, c->target), "%s: got %s want %s", c->id,
                 lstr(&a->l), want);
    else
        TL_CHECK(axe_layout_equal(&a->l, &w), "%s: got %s want %s", c->id,
                 lstr(&a->l), want);
}

static bool is_my_op(const char *op)
{
    static const char *const ops[] = {"axe.tile",
                                      "axe.tile_to",
                                      "axe.is_tile_inner",
                                      "axe.is_tile_outer",
                                      "axe.direct_sum",
                                      "axe.is_direct_sum_right",
                                      "axe.is_direct_sum_left"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op != NULL && strcmp(op, ops[i]) == 0)
            return true;
    return false;
}

static void run_case(const json_value *v, int *ncases)
{
    vcase c;
    answer a;
    const json_value *t, *cn, *ee;
    int flag = 0;
    memset(&c, 0, sizeof c);
    memset(&a, 0, sizeof a);
    c.op = json_get_string(json_object_get(v, "op"), NULL);
    if (!is_my_op(c.op))
        return;
    (*ncases)++;
    c.id = json_get_string(json_object_get(v, "id"), NULL);
    c.args = json_object_get(v, "args");
    c.expect = json_object_get(v, "expect");
    ee = json_object_get(v, "expect_error");
    c.expect_error = ee != NULL && json_get_bool(ee, &flag) == JSON_OK && flag;
    t = json_object_get(c.args, "target");
    c.target = t != NULL && strcmp(json_get_string(t, NULL), "cuda") == 0
                   ? AXE_TARGET_CUDA
                   : AXE_TARGET_NONE;
    cn = json_object_get(c.args, "canonicalize");
    c.canon = cn != NULL && json_get_bool(cn, &flag) == JSON_OK && flag;
    cn = json_object_get(c.args, "tirx");
    c.rule = cn != NULL && json_get_bool(cn, &flag) == JSON_OK && flag
                 ? AXE_RULE_TIRX
                 : AXE_RULE_PAPER;
    if (strstr(c.op, "sum") != NULL)
        run_sum_ops(&c, &a);
    else
        run_tile_ops(&c, &a);
    check_case(&c, &a);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf == NULL || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Every case of the tiling and direct-sum ops; false if the file is
 * missing. */
static bool test_vectors(void)
{
    char path[4096];
    const char *dir = getenv("AXE_SHARED_DIR");
    size_t len;
    char *text, *line, *save = NULL;
    int ncases = 0;
    snprintf(path, sizeof path, "%s/vectors/axe.jsonl",
             dir != NULL ? dir : "../shared");
    text = read_file(path, &len);
    if (text == NULL)
        return false;
    for (line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        json_arena *ar = json_arena_new(NULL, NULL);
        json_value *v;
        if (ar != NULL &&
            json_parse(ar, line, strlen(line), &v, NULL, 0) == JSON_OK)
            run_case(v, &ncases);
        json_arena_free(ar);
    }
    free(text);
    printf("vectors: %d cases of the tiling and direct-sum ops\n", ncases);
    TL_CHECK(ncases >= 67, "only %d vector cases found", ncases);
    return true;
}

/* ---- the Axe paper ------------------------------------------------------ */

/* (e): A ⊗ B with the 2x3 grid A = S[(2,3):(3,1)] and the 8x8 tile B =
 * S[(8,8):(8,1)] is S[(2,8,3,8):(192,8,64,1)]; both factors come back. */
static void test_paper_e(void)
{
    axe_layout a = lay("S[(2,3):(3,1)]"), b = lay("S[(8,8):(8,1)]"), t, f;
    axe_layout want = lay("S[(2,8,3,8):(192,8,64,1)]");
    int64_t as[] = {2, 3}, bs[] = {8, 8}, ts[] = {16, 24};
    bool found;
    TL_CHECK(axe_layout_tile(&a, as, &b, bs, 2, AXE_TARGET_NONE, &t, NULL) ==
                     AXE_OK &&
                 axe_layout_equal(&t, &want),
             "paper (e): tile gives %s", lstr(&t));
    TL_CHECK(axe_layout_is_tile_inner(&b, &t, ts, bs, 2, AXE_TARGET_NONE, &f,
                                      &found, NULL) == AXE_OK &&
                 found && same_canon(&f, &a, AXE_TARGET_NONE),
             "paper (e): is_tile_inner");
    TL_CHECK(axe_layout_is_tile_outer(&a, &t, ts, as, 2, AXE_TARGET_NONE, &f,
                                      &found, NULL) == AXE_OK &&
                 found && same_canon(&f, &b, AXE_TARGET_NONE),
             "paper (e): is_tile_outer");
}

/* (h): the direct sum S[(2,2):(8,2)] + S[(2,2):(4,1)] = S[16:1], but no C
 * has C ⊗ B = S[16:1] for B = S[(2,2):(4,1)]: span(B) = 1 + 4 + 1 = 6, so
 * C ⊗ B (over [4,4]) maps index 0 to o (the offset of C, with B's 0) and
 * index 2 = (x, y) = ((0,1), (0,0)) to 6 c1 + o; S[16:1] needs o = 0 and
 * 6 c1 = 2, which has no integer solution. Checked here: the recovery
 * answers "not found", and every C = S[(2,2):(c0,c1)] + o with small
 * strides and offsets tiles to something else. */
static void test_paper_h(void)
{
    axe_layout a = lay("S[(2,2):(8,2)]"), b = lay("S[(2,2):(4,1)]");
    axe_layout s16 = lay("S[16:1]"), s, f;
    int64_t sh[] = {2, 2}, ts[] = {4, 4}, inter[] = {2, 2, 2, 2};
    bool found = true;
    int hits = 0;
    TL_CHECK(axe_layout_direct_sum(&a, sh, &b, sh, 2, &s, NULL) == AXE_OK &&
                 axe_layout_equal(&s, &s16),
             "paper (h): direct sum gives %s", lstr(&s));
    TL_CHECK(axe_layout_is_direct_sum_right(&b, &s16, inter, sh, 2, &f, &found,
                                            NULL) == AXE_OK &&
                 found && same_canon(&f, &a, AXE_TARGET_NONE),
             "paper (h): is_direct_sum_right");
    TL_CHECK(axe_layout_is_tile_inner(&b, &s16, ts, sh, 2, AXE_TARGET_NONE, &f,
                                      &found, NULL) == AXE_OK &&
                 !found,
             "paper (h): a C with C (x) B = S[16:1] was found: %s", lstr(&f));
    for (int64_t c0 = -24; c0 <= 24; c0++)
        for (int64_t c1 = -24; c1 <= 24; c1++)
            for (int64_t o = -6; o <= 6; o++) {
                axe_layout c, t;
                char text[96];
                snprintf(text, sizeof text, "S[(2,2):(%lld,%lld)] + %lld",
                         (long long)c0, (long long)c1, (long long)o);
                c = lay(text);
                if (axe_layout_tile(&c, sh, &b, sh, 2, AXE_TARGET_NONE, &t,
                                    NULL) == AXE_OK &&
                    bf_same(&t, &s16))
                    hits++;
            }
    TL_CHECK(hits == 0, "paper (h): %d layouts C with C (x) B = S[16:1]", hits);
}

/* ---- tables ------------------------------------------------------------- */

/* Rejections: the status and a word of the reason. */
static void test_errors(void)
{
    axe_layout a = lay("S[(3,4):(4,1)]"), b = lay("S[4:1]"), sw, out;
    axe_layout t = lay("S[(3,2):(16@tx,1@tx)]"), i = lay("S[2:1@laneid]");
    int64_t s26[] = {2, 6}, s4[] = {4}, s3[] = {3}, s6[] = {6}, s2[] = {2};
    int64_t big[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    axe_diag d;
    bool found;
    sw = lay("Swizzle<3,3,3>(S[512:1])");
    TL_CHECK(axe_layout_tile(&a, s26, &b, s4, 1, AXE_TARGET_NONE, &out, &d) !=
                     AXE_OK &&
                 strstr(d.message, "grouped") != NULL,
             "ungroupable outer: %s", d.message);
    TL_CHECK(axe_layout_tile(&b, big, &b, big, 17, AXE_TARGET_NONE, &out, &d) ==
                 AXE_ERR_CAPACITY,
             "17 dims");
    TL_CHECK(axe_layout_tile(&sw, s4, &b, s4, 1, AXE_TARGET_NONE, &out, &d) ==
                 AXE_ERR_UNSUPPORTED,
             "swizzled outer");
    TL_CHECK(axe_layout_tile_to(&b, s6, s4, 1, AXE_TARGET_NONE, &out, &d) ==
                     AXE_ERR_DIVISIBILITY &&
                 strstr(d.message, "multiple") != NULL,
             "tile_to 6 from 4: %s", d.message);
    TL_CHECK(axe_layout_is_tile_inner(&b, &b, s4, s3, 1, AXE_TARGET_NONE, &out,
                                      &found, &d) == AXE_ERR_DIVISIBILITY &&
                 strstr(d.message, "Shape[i] must be divisible") != NULL,
             "tiled 4 by inner 3: %s", d.message);
    TL_CHECK(axe_layout_direct_sum(&sw, s4, &b, s4, 1, &out, &d) ==
                 AXE_ERR_UNSUPPORTED,
             "swizzled left summand");
    TL_CHECK(axe_layout_is_tile_inner(&i, &t, s6, s2, 1, AXE_TARGET_CUDA, &out,
                                      &found, &d) == AXE_ERR_INCOMPATIBLE &&
                 strstr(d.message, "straddles") != NULL,
             "tx iter (3,16) split at 32: %s", d.message);
}

/* "Not found" answers carry the reason. */
static void test_not_found(void)
{
    static const struct {
        const char *known, *tiled;
        int64_t ks, ts;
        bool inner;
        axe_target target;
        const char *why;
    } rows[] = {
        {"S[4:2]", "S[(2,4):(8,2)]", 4, 8, true, AXE_TARGET_NONE, "span"},
        {"S[(2,2):(4,1)]", "S[16:1]", 4, 16, true, AXE_TARGET_NONE,
         "is not inner iter"},
        {"S[8:1]", "S[(8,8):(1,8)]", 8, 64, true, AXE_TARGET_NONE,
         "is not inner iter"},
        {"S[8:1@tx]", "S[(8,4):(4@laneid,1@laneid)]", 8, 32, true,
         AXE_TARGET_NONE, "is not inner iter"},
        {"S[8:2]", "S[(8,8):(1,8)]", 8, 64, false, AXE_TARGET_NONE,
         "tile back"},
        {"Swizzle<3,3,3>(S[64:1])", "S[4096:1]", 64, 4096, true,
         AXE_TARGET_NONE, "swizzle"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout k = lay(rows[r].known), t = lay(rows[r].tiled), out;
        axe_diag d;
        bool found = true;
        axe_status st =
            rows[r].inner
                ? axe_layout_is_tile_inner(&k, &t, &rows[r].ts, &rows[r].ks, 1,
                                           rows[r].target, &out, &found, &d)
                : axe_layout_is_tile_outer(&k, &t, &rows[r].ts, &rows[r].ks, 1,
                                           rows[r].target, &out, &found, &d);
        TL_CHECK(st == AXE_OK && !found && strstr(d.message, rows[r].why),
                 "row %zu: %s found %d (%s)", r, axe_status_name(st), found,
                 d.message);
    }
}

/* One recovery and its expected answer (compared after canonicalizing). */
static void check_recovery_rule(const char *known, const char *tiled,
                                int64_t ks, int64_t ts, bool inner,
                                axe_target target, axe_rule rule,
                                const char *want)
{
    axe_layout k = lay(known), t = lay(tiled), out, w = lay(want);
    axe_diag d;
    bool found = false;
    axe_status st =
        inner ? axe_layout_is_tile_inner_rule(&k, &t, &ts, &ks, 1, target, rule,
                                              &out, &found, &d)
              : axe_layout_is_tile_outer_rule(&k, &t, &ts, &ks, 1, target, rule,
                                              &out, &found, &d);
    TL_CHECK(st == AXE_OK && found && same_canon(&out, &w, target),
             "%s%s of %s in %s: %s %s", rule == AXE_RULE_TIRX ? "tirx " : "",
             inner ? "outer" : "inner", known, tiled,
             st == AXE_OK && found ? lstr(&out) : "none",
             st == AXE_OK && found ? "" : d.message);
}

static void check_recovery(const char *known, const char *tiled, int64_t ks,
                           int64_t ts, bool inner, axe_target target,
                           const char *want)
{
    check_recovery_rule(known, tiled, ks, ts, inner, target, AXE_RULE_PAPER,
                        want);
}

/* SplitAxesByScope (CUDA): tx is written over warpid and laneid to match a
 * warp-scope factor; axe's policy where TIRx answers wrongly or not at all:
 * replicas are a multiset and unscaled, offsets on every axis. */
static void test_recovery_table(void)
{
    check_recovery("S[32:1@laneid]", "S[64:1@tx]", 32, 64, true,
                   AXE_TARGET_CUDA, "S[2:1@warpid]");
    check_recovery("S[2:1@warpid]", "S[64:1@tx]", 2, 64, false, AXE_TARGET_CUDA,
                   "S[32:1@laneid]");
    check_recovery("S[32:1@lane]", "S[64:1@tx]", 32, 64, true, AXE_TARGET_CUDA,
                   "S[2:1@warp]");
    check_recovery("S[2:1@warp]", "S[64:1@tx]", 2, 64, false, AXE_TARGET_CUDA,
                   "S[32:1@lane]");
    check_recovery("S[(4,32):(1@wid_in_wg,1@laneid)]", "S[256:1@tx]", 128, 256,
                   true, AXE_TARGET_CUDA, "S[2:1@wgid]");
    /* TIRx: replicas a multiset and unscaled */
    check_recovery_rule("S[4:1] + R[2:1]", "S[(2,4):(40,1)] + R[(2,2):(1,1)]",
                        4, 8, true, AXE_TARGET_NONE, AXE_RULE_TIRX,
                        "S[2:8] + R[2:1]");
    check_recovery_rule("S[4:1]", "S[8:1] + R[2:1]", 4, 8, true,
                        AXE_TARGET_NONE, AXE_RULE_TIRX, "S[2:1] + R[2:1]");
    /* the paper (Appendix D): span(B) = 5, so R[2:5] of T is R[2:1] of C */
    check_recovery("S[4:1] + R[2:1]", "S[(2,4):(40,1)] + R[(2,2):(1,5)]", 4, 8,
                   true, AXE_TARGET_NONE, "S[2:8] + R[2:1]");
    check_recovery("S[4:1]", "S[8:1] + R[2:4]", 4, 8, true, AXE_TARGET_NONE,
                   "S[2:1] + R[2:1]");
    /* issue 12: S[2:1] + 1 is recovered with O_C = (6 - 2) / 4 */
    check_recovery("S[4:1] + 2", "S[(2,4):(4,1)] + 6", 4, 8, true,
                   AXE_TARGET_NONE, "S[2:1] + 1");
    check_recovery("S[2:1] + 1", "S[(2,4):(4,1)] + 6", 2, 8, false,
                   AXE_TARGET_NONE, "S[4:1] + 2");
    check_recovery("S[2:1] + R[2:2]", "S[8:1] + R[2:8]", 2, 8, false,
                   AXE_TARGET_NONE, "S[4:1]");
    check_recovery("S[2:1]", "S[(2,4):(4,-1)]", 2, 8, false, AXE_TARGET_NONE,
                   "S[4:-1]");
    check_recovery("S[4:-1]", "S[(2,4):(4,-1)]", 4, 8, true, AXE_TARGET_NONE,
                   "S[2:1]");
    check_recovery("S[4:1] + 2@warpid", "S[(2,4):(16,1)]", 4, 8, true,
                   AXE_TARGET_NONE, "S[2:4] + -2@warpid");
    check_recovery("S[2:4] + -2@warpid", "S[(2,4):(16,1)]", 2, 8, false,
                   AXE_TARGET_NONE, "S[4:1] + 2@warpid");
}

/* Tiles mixing the paper's lane and warp with TIRx's laneid and warpid:
 * under CUDA the pair fuses into tx like laneid and warpid do; without a
 * target the spellings are kept. Rows compared as printed text. */
static void test_paper_axis_tiles(void)
{
    static const struct {
        const char *a, *b;
        int64_t sa, sb;
        axe_target target;
        const char *want;
    } rows[] = {
        {"S[2:1@warpid]", "S[32:1@lane]", 2, 32, AXE_TARGET_CUDA, "S[64:1@tx]"},
        {"S[2:1@warp]", "S[32:1@laneid]", 2, 32, AXE_TARGET_CUDA, "S[64:1@tx]"},
        {"S[(2,2):(1@warp,1)]", "S[(8,4):(4@lane,1@lane)]", 4, 32,
         AXE_TARGET_CUDA, "S[(2,2,32):(32@tx,1,1@tx)]"},
        {"S[2:1@warp]", "S[32:1@lane]", 2, 32, AXE_TARGET_NONE,
         "S[(2,32):(1@warp,1@lane)]"},
        {"S[2:1@laneid]", "S[32:1@lane]", 2, 32, AXE_TARGET_NONE,
         "S[64:1@laneid]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout a = lay(rows[i].a), b = lay(rows[i].b), t;
        axe_diag d = {0};
        axe_status st = axe_layout_tile(&a, &rows[i].sa, &b, &rows[i].sb, 1,
                                        rows[i].target, &t, &d);
        TL_CHECK(st == AXE_OK && strcmp(lstr(&t), rows[i].want) == 0 &&
                     axe_layout_verify_well_formed(&t, &d) == AXE_OK,
                 "tile %s [%lld] (x) %s [%lld] = %s, want %s (%s)", rows[i].a,
                 (long long)rows[i].sa, rows[i].b, (long long)rows[i].sb,
                 st == AXE_OK ? lstr(&t) : "error", rows[i].want, d.message);
    }
}

/* Swizzles (spec §11) beyond the vectors. */
static void test_swizzle_table(void)
{
    axe_layout atom = lay("Swizzle<3,3,3>(S[512:1])"), out, f;
    axe_layout want = lay("Swizzle<3,3,3>(S[4096:1])");
    axe_layout plain = lay("S[(2,2):(8,2)]"), b = lay("Swizzle<3,2,3>(S[4:1])");
    axe_layout sum = lay("Swizzle<3,2,3>(S[(2,2,4):(8,2,1)])");
    int64_t to[] = {64, 64}, cur[] = {8, 64}, sh[] = {2, 2};
    int64_t inter[] = {2, 2, 2, 2};
    bool found;
    TL_CHECK(axe_layout_tile_to(&atom, to, cur, 2, AXE_TARGET_NONE, &out,
                                NULL) == AXE_OK &&
                 same_canon(&out, &want, AXE_TARGET_NONE),
             "tile_to of a bare swizzle: %s", lstr(&out));
    TL_CHECK(axe_layout_direct_sum(&plain, sh, &b, sh, 2, &out, NULL) ==
                     AXE_OK &&
                 axe_layout_equal(&out, &sum),
             "direct sum into a bare swizzle: %s", lstr(&out));
    TL_CHECK(axe_layout_is_direct_sum_right(&b, &out, inter, sh, 2, &f, &found,
                                            NULL) == AXE_OK &&
                 found && same_canon(&f, &plain, AXE_TARGET_NONE),
             "is_direct_sum_right through a swizzle");
    TL_CHECK(axe_layout_is_direct_sum_right(&plain, &out, inter, sh, 2, &f,
                                            &found, NULL) == AXE_OK &&
                 !found,
             "a plain summand of a swizzled sum");
}

/* The iter intersection: hand-computed rows. */
static void test_intersect_table(void)
{
    static const struct {
        const char *a, *b, *axis, *want;
    } rows[] = {
        {"S[(4,32):(1@F,1@P)]", "S[(2,64):(2@F,1@P)]", "P", "S[32:1@P]"},
        {"S[(4,32):(1@F,1@P)]", "S[(2,64):(2@F,1@P)]", NULL, "S[32:1@P]"},
        {"S[(4,128):(1@F,1@P)]", "S[(8,64):(1@F,1@P)]", "P", "S[64:1@P]"},
        {"S[(4,8):(8,1)]", "S[(4,8):(8,1)]", NULL, "S[32:1]"},
        {"S[(4,8):(8,1)]", "S[(2,16):(16,1)]", "m", "S[32:1]"},
        {"S[8:1@P]", "S[8:1@F]", "P", "S[1:1@P]"},
        {"S[18:1]", "S[8:1]", NULL, "S[2:1]"},
        {"S[(2,4):(16,2)]", "S[(3,4):(8,2)]", NULL, "S[1:1]"},
        {"S[(2,16):(1@F,1@P)] + R[2:1@gpuid]", "S[32:1@P] + 3@F", "P",
         "S[16:1@P]"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout a = lay(rows[r].a), b = lay(rows[r].b),
                   w = lay(rows[r].want);
        axe_layout out;
        axe_diag d;
        axe_status st = axe_layout_intersect_iters(&a, &b, rows[r].axis,
                                                   AXE_TARGET_NONE, &out, &d);
        TL_CHECK(st == AXE_OK && axe_layout_equal(&out, &w),
                 "intersect row %zu: %s %s", r,
                 st == AXE_OK ? lstr(&out) : axe_status_name(st),
                 st == AXE_OK ? "" : d.message);
    }
}

/* The paper's iter intersection (§3.4): rows by hand, values of both sets
 * listed in the comments; NULL want = INCOMPATIBLE. */
static void test_iter_intersection_table(void)
{
    static const struct {
        const char *a, *b, *axis, *want;
    } rows[] = {
        /* {0,2,..,14} ∩ {0,4,8,12} (issue 12) */
        {"S[8:2@P]", "S[4:4@P]", NULL, "S[4:4@P]"},
        /* {0,-2,..,-14} ∩ {0,-3,..,-15} = {0,-6,-12} */
        {"S[8:-2]", "S[6:-3]", NULL, "S[3:-6]"},
        {"S[8:2]", "S[6:-3]", NULL, "S[1:1]"},
        {"S[8:1@P]", "S[8:1@F]", NULL, "S[1:1]"},
        {"S[8:1@P]", "S[8:1@F]", "P", "S[1:1@P]"},
        /* {0..4095} ∩ {0..511} */
        {"S[(8,8,8,8):(512,8,64,1)]", "S[(4,8,2,8):(128,8,64,1)]", NULL,
         "S[512:1]"},
        {"S[(4,32):(1@F,1@P)]", "S[(2,64):(2@F,1@P)]", "P", "S[32:1@P]"},
        /* {0..3}@F x {0..31}@P ∩ {0,2}@F x {0..63}@P: two axes */
        {"S[(4,32):(1@F,1@P)]", "S[(2,64):(2@F,1@P)]", NULL, NULL},
        /* {0,1,8,9} ∩ {0,1,4,5,8,9,12,13} = {0,1,8,9} */
        {"S[(2,2):(8,1)]", "S[(4,2):(4,1)]", NULL, NULL},
        /* {0,3,6,9,12} ∩ {-4,0,4,8} = {0}; then {-4,0,4,8}: both signs */
        {"S[5:3]", "S[(2,3):(-4,4)]", NULL, "S[1:1]"},
        {"S[(2,3):(-4,4)]", "S[(3,2):(4,-4)]", NULL, NULL},
        {"S[18:1]", "S[8:1]", NULL, "S[8:1]"},
        /* {0,2,..,14} ∩ {0,3}: only 0, printed on m */
        {"S[8:2@P]", "S[2:3@P]", NULL, "S[1:1]"},
        {"S[(3,4):(0,1)]", "S[4:2]", NULL, "S[2:2]"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout a = lay(rows[r].a), b = lay(rows[r].b), out, w;
        axe_diag d = {0};
        axe_status st = axe_layout_intersect(&a, &b, rows[r].axis,
                                             AXE_TARGET_NONE, &out, &d);
        if (rows[r].want == NULL) {
            TL_CHECK(st == AXE_ERR_INCOMPATIBLE &&
                         strstr(d.message, "no single iter") != NULL,
                     "iter intersection row %zu: %s, want INCOMPATIBLE", r,
                     st == AXE_OK ? lstr(&out) : axe_status_name(st));
            continue;
        }
        w = lay(rows[r].want);
        TL_CHECK(st == AXE_OK && axe_layout_equal(&out, &w),
                 "iter intersection row %zu: %s %s", r,
                 st == AXE_OK ? lstr(&out) : axe_status_name(st), d.message);
    }
    {
        axe_layout a = lay("S[8:1] + R[2:4]"), b = lay("S[8:1]"), out;
        axe_layout big = lay("S[(65537,2):(3,1)]"),
                   big2 = lay("S[(65537,2):(5,1)]");
        axe_diag d = {0};
        TL_CHECK(axe_layout_intersect(&a, &b, NULL, AXE_TARGET_NONE, &out,
                                      &d) == AXE_ERR_UNSUPPORTED &&
                     strstr(d.message, "\"a\" has a replica") != NULL,
                 "iter intersection of a replica: %s", d.message);
        TL_CHECK(axe_layout_intersect(&big, &big2, NULL, AXE_TARGET_NONE, &out,
                                      &d) == AXE_ERR_CAPACITY &&
                     strstr(d.message, "limit") != NULL,
                 "iter intersection over the limit: %s", d.message);
    }
}

/* ---- laws on random layouts --------------------------------------------- */

#define NLAWS 1500

static const char *const law_axes[] = {
    "m", "m", "m", "P", "laneid", "warpid", "gpuid", "lane", "warp"};

static const char *rand_axis(void)
{
    return law_axes[tl_range(0, sizeof law_axes / sizeof law_axes[0] - 1)];
}

static void push(axe_layout *l, bool replica, int64_t e, int64_t s,
                 const char *axis)
{
    axe_status st = replica ? axe_layout_push_replica(l, e, s, axis)
                            : axe_layout_push_shard(l, e, s, axis);
    if (st != AXE_OK) {
        fprintf(stderr, "test generator: push failed\n");
        exit(2);
    }
}

/* A random layout over "n" dims: at most 8 shard iters in all (1 to 8 / n
 * per dim), the first of a dim of extent up to "maxdim", the others 1 or 2
 * while the dim stays within 2 maxdim (the brute force enumerates tiles
 * of two such layouts); strides in [-6, 6]
 * or, one time in three, the stride that continues the next iter (so that
 * canonicalize fuses and group must split again); with "extras" up to 3
 * replica iters (negative strides too) and up to 2 offsets. */
static axe_layout rand_layout(int n, int64_t maxdim, int64_t *shape,
                              bool extras)
{
    axe_layout l;
    axe_iter it[8];
    int ni = 0;
    int64_t cap = 2 * maxdim;
    axe_layout_init(&l);
    for (int d = 0; d < n; d++) {
        int k = (int)tl_range(1, 8 / n);
        shape[d] = 1;
        for (int j = 0; j < k; j++) {
            it[ni].extent = j == 0                ? tl_range(1, maxdim)
                            : 2 * shape[d] <= cap ? tl_range(1, 2)
                                                  : 1;
            shape[d] *= it[ni].extent;
            snprintf(it[ni].axis, sizeof it[ni].axis, "%s", rand_axis());
            ni++;
        }
    }
    for (int j = ni - 1; j >= 0; j--) {
        bool cont = j + 1 < ni && tl_range(0, 2) == 0;
        it[j].stride =
            cont ? it[j + 1].extent * it[j + 1].stride : tl_range(-6, 6);
        if (cont)
            memcpy(it[j].axis, it[j + 1].axis, sizeof it[j].axis);
    }
    for (int j = 0; j < ni; j++)
        push(&l, false, it[j].extent, it[j].stride, it[j].axis);
    for (int j = extras ? (int)tl_range(0, 3) : 0; j > 0; j--)
        push(&l, true, tl_range(1, 2), tl_range(-4, 4), rand_axis());
    for (int j = extras ? (int)tl_range(0, 2) : 0; j > 0; j--)
        if (axe_layout_add_offset(&l, rand_axis(), tl_range(-5, 5)) != AXE_OK)
            exit(2);
    return l;
}

/* The axes TIRx scales: those of B's canonical shard (iters of extent > 1;
 * the first iter's axis when all are units). */
static void scaled_axes(const axe_layout *b, bool *on)
{
    bool any = false;
    for (int i = 0; i < NAX; i++)
        on[i] = false;
    for (int k = 0; k < b->nshard; k++)
        if (b->shard[k].extent > 1) {
            on[ax_id(b->shard[k].axis)] = true;
            any = true;
        }
    if (!any && b->nshard > 0)
        on[ax_id(b->shard[0].axis)] = true;
}

/* The paper's span(B, a) (Lemma C.1) from the set: 1 + max - min of the
 * a-values over every point of every B(y) (offset cancels). */
static void bf_span_paper(const axe_layout *b, int64_t *span)
{
    static bpt q[MAXPTS];
    int64_t lo[NAX], hi[NAX];
    for (int64_t y = 0; y < bf_size(b); y++) {
        int nq = bf_set(b, y, q);
        for (int j = 0; j < nq; j++)
            for (int i = 0; i < NAX; i++) {
                bool first = y == 0 && j == 0;
                lo[i] = first || q[j].v[i] < lo[i] ? q[j].v[i] : lo[i];
                hi[i] = first || q[j].v[i] > hi[i] ? q[j].v[i] : hi[i];
            }
    }
    for (int i = 0; i < NAX; i++)
        span[i] = 1 + hi[i] - lo[i];
}

/* The right-hand side of the tile law at (x, y), sorted: the paper's
 * (Theorem C.2) multiset { (D_A(x) + r + O_A) ⊙ span(B) + q : r in R_A,
 * q in f_B(y) } on every axis; TIRx's { D_A(x) ⊙ span(B) + r + O_A + q }
 * with only the axes of B's shard scaled by TIRx's span. */
static int tile_rhs(const axe_layout *a, int64_t x, const axe_layout *b,
                    int64_t y, axe_rule rule, bpt *out)
{
    static bpt qb[MAXPTS];
    int64_t span[NAX];
    bool on[NAX], dummy[NAX];
    bpt d = bf_shard(a, x);
    int nq = bf_set(b, y, qb), m = 0;
    bf_span(b, span, dummy);
    scaled_axes(b, on);
    if (rule == AXE_RULE_PAPER)
        bf_span_paper(b, span);
    for (int i = 0; i < NAX && rule == AXE_RULE_TIRX; i++)
        if (on[i])
            d.v[i] *= span[i];
    for (int64_t r = 0; r < bf_combos(a); r++) {
        bpt p = bf_rest(a, d, r);
        for (int i = 0; i < NAX && rule == AXE_RULE_PAPER; i++)
            p.v[i] *= span[i];
        for (int j = 0; j < nq; j++)
            out[m++] = bpt_add(p, &qb[j]);
    }
    qsort(out, (size_t)m, sizeof *out, bpt_cmp);
    return m;
}

/* f_T(x || y) == tile_rhs(x, y) for every x, y. With "sum" the law of the
 * direct sum instead: f_S(a0, b0, ...) = f_A(a) + f_B(b) (no scaling). */
static bool law_holds(const axe_layout *t, const axe_layout *a,
                      const int64_t *as, const axe_layout *b, const int64_t *bs,
                      int n, bool sum, axe_rule rule)
{
    static bpt lhs[MAXPTS], rhs[MAXPTS];
    int64_t ts[2 * AXE_LAYOUT_MAX_DIMS], ca[AXE_LAYOUT_MAX_DIMS];
    int64_t cb[AXE_LAYOUT_MAX_DIMS], c[2 * AXE_LAYOUT_MAX_DIMS];
    for (int d = 0; d < n; d++) {
        ts[2 * d] = as[d];
        ts[2 * d + 1] = bs[d];
    }
    for (int64_t x = 0; x < prod(as, n); x++)
        for (int64_t y = 0; y < prod(bs, n); y++) {
            int nl, nr;
            unflatten(x, as, n, ca);
            unflatten(y, bs, n, cb);
            for (int d = 0; d < n; d++) {
                c[2 * d] = ca[d];
                c[2 * d + 1] = cb[d];
            }
            nl = bf_set(t, flatten(c, ts, 2 * n), lhs);
            nr = sum ? 0 : tile_rhs(a, x, b, y, rule, rhs);
            if (sum) {
                static bpt pa[MAXPTS], pb[MAXPTS];
                int na = bf_set(a, x, pa), nb = bf_set(b, y, pb);
                for (int i = 0; i < na; i++)
                    for (int j = 0; j < nb; j++)
                        rhs[nr++] = bpt_add(pa[i], &pb[j]);
                qsort(rhs, (size_t)nr, sizeof *rhs, bpt_cmp);
            }
            if (!same_sets(lhs, nl, rhs, nr))
                return false;
        }
    return true;
}

static void per_dim_product(const int64_t *as, const int64_t *bs, int n,
                            int64_t *ts)
{
    for (int d = 0; d < n; d++)
        ts[d] = as[d] * bs[d];
}

/* Whether span(B, a) is 0 on an axis a of B's shard: tile then zeroes the
 * outer's strides on a, adjacent outer iters fuse, and is_tile_outer,
 * which matches the outer's iters one by one, may miss the factor. */
static bool zero_span(const axe_layout *b)
{
    int64_t span[NAX];
    bool on[NAX];
    bf_span(b, span, on);
    for (int i = 0; i < NAX; i++)
        if (on[i] && span[i] == 0)
            return true;
    return false;
}

/* The tile law under "rule", and both recoveries answer with a factor that
 * tiles back (completeness on random tiles, replicas and offsets
 * included). Under TIRx's rule a zero span on an axis of B may hide the
 * outer factor (docs/algebra.md §25); the paper's span is never 0. */
static void law_tile(axe_rule rule, int *nfound)
{
    int n = (int)tl_range(1, 3);
    int64_t as[AXE_LAYOUT_MAX_DIMS], bs[AXE_LAYOUT_MAX_DIMS];
    int64_t ts[AXE_LAYOUT_MAX_DIMS];
    axe_layout a = rand_layout(n, n == 1 ? 8 : 3, as, true);
    axe_layout b = rand_layout(n, n == 1 ? 8 : 3, bs, true), t, f, t2;
    axe_target none = AXE_TARGET_NONE;
    const char *r = rule == AXE_RULE_TIRX ? "tirx " : "";
    axe_diag d;
    bool found;
    axe_status st = axe_layout_tile_rule(&a, as, &b, bs, n, none, rule, &t, &d);
    TL_CHECK(st == AXE_OK, "%stile %s (x) %s: %s", r, lstr(&a), lstr(&b),
             d.message);
    if (st != AXE_OK)
        return;
    TL_CHECK(law_holds(&t, &a, as, &b, bs, n, false, rule),
             "%stile law: %s (x) %s = %s", r, lstr(&a), lstr(&b), lstr(&t));
    per_dim_product(as, bs, n, ts);
    st = axe_layout_is_tile_inner_rule(&b, &t, ts, bs, n, none, rule, &f,
                                       &found, &d);
    TL_CHECK(st == AXE_OK && found, "%sis_tile_inner %s in %s: %s", r, lstr(&b),
             lstr(&t), d.message);
    if (st == AXE_OK && found) {
        (*nfound)++;
        TL_CHECK(axe_layout_tile_rule(&f, as, &b, bs, n, none, rule, &t2,
                                      NULL) == AXE_OK &&
                     bf_same(&t2, &t),
                 "%sis_tile_inner %s in %s gave %s", r, lstr(&b), lstr(&t),
                 lstr(&f));
    }
    st = axe_layout_is_tile_outer_rule(&a, &t, ts, as, n, none, rule, &f,
                                       &found, &d);
    TL_CHECK(st == AXE_OK &&
                 (found || (rule == AXE_RULE_TIRX && zero_span(&b))),
             "%sis_tile_outer %s in %s: %s", r, lstr(&a), lstr(&t), d.message);
    if (st == AXE_OK && found)
        TL_CHECK(axe_layout_tile_rule(&a, as, &f, bs, n, none, rule, &t2,
                                      NULL) == AXE_OK &&
                     bf_same(&t2, &t),
                 "%sis_tile_outer %s in %s gave %s", r, lstr(&a), lstr(&t),
                 lstr(&f));
}

/* A random layout T (not made by tile): whenever is_tile_inner answers,
 * the factor tiles back to T (soundness off the image of tile). */
static void law_tile_sound(int *nanswers)
{
    int64_t ts[1], ks[1];
    axe_layout t = rand_layout(1, 8, ts, true), k, f, t2;
    bool found, inner = tl_range(0, 1) == 0;
    axe_status st;
    k = rand_layout(1, 4, ks, tl_range(0, 1) == 0);
    if (ts[0] % ks[0] != 0)
        return;
    if (inner)
        st = axe_layout_is_tile_inner(&k, &t, ts, ks, 1, AXE_TARGET_NONE, &f,
                                      &found, NULL);
    else
        st = axe_layout_is_tile_outer(&k, &t, ts, ks, 1, AXE_TARGET_NONE, &f,
                                      &found, NULL);
    if (st != AXE_OK || !found)
        return;
    (*nanswers)++;
    ks[0] = ts[0] / ks[0];
    if (inner)
        st = axe_layout_tile(&f, ks, &k, (int64_t[]){ts[0] / ks[0]}, 1,
                             AXE_TARGET_NONE, &t2, NULL);
    else
        st = axe_layout_tile(&k, (int64_t[]){ts[0] / ks[0]}, &f, ks, 1,
                             AXE_TARGET_NONE, &t2, NULL);
    TL_CHECK(st == AXE_OK && bf_same(&t2, &t), "%s of %s in %s: %s",
             inner ? "outer" : "inner", lstr(&k), lstr(&t), lstr(&f));
}

/* The direct-sum law and both recoveries. */
static void law_sum(void)
{
    int n = (int)tl_range(1, 3);
    int64_t as[AXE_LAYOUT_MAX_DIMS], bs[AXE_LAYOUT_MAX_DIMS];
    int64_t inter[2 * AXE_LAYOUT_MAX_DIMS];
    axe_layout a = rand_layout(n, n == 1 ? 8 : 3, as, true);
    axe_layout b = rand_layout(n, n == 1 ? 8 : 3, bs, true), s, f, s2;
    axe_diag d;
    bool found;
    axe_status st = axe_layout_direct_sum(&a, as, &b, bs, n, &s, &d);
    TL_CHECK(st == AXE_OK, "sum %s + %s: %s", lstr(&a), lstr(&b), d.message);
    if (st != AXE_OK)
        return;
    TL_CHECK(law_holds(&s, &a, as, &b, bs, n, true, AXE_RULE_PAPER),
             "sum law: %s + %s = %s", lstr(&a), lstr(&b), lstr(&s));
    for (int i = 0; i < n; i++) {
        inter[2 * i] = as[i];
        inter[2 * i + 1] = bs[i];
    }
    st = axe_layout_is_direct_sum_right(&b, &s, inter, bs, n, &f, &found, &d);
    TL_CHECK(st == AXE_OK && found, "is_direct_sum_right %s in %s: %s",
             lstr(&b), lstr(&s), d.message);
    if (st == AXE_OK && found)
        TL_CHECK(axe_layout_direct_sum(&f, as, &b, bs, n, &s2, NULL) ==
                         AXE_OK &&
                     bf_same(&s2, &s),
                 "is_direct_sum_right gave %s", lstr(&f));
    st = axe_layout_is_direct_sum_left(&a, &s, inter, as, n, &f, &found, &d);
    TL_CHECK(st == AXE_OK && found, "is_direct_sum_left %s in %s: %s", lstr(&a),
             lstr(&s), d.message);
    if (st == AXE_OK && found)
        TL_CHECK(axe_layout_direct_sum(&a, as, &f, bs, n, &s2, NULL) ==
                         AXE_OK &&
                     bf_same(&s2, &s),
                 "is_direct_sum_left gave %s", lstr(&f));
}

static bool all_on(const axe_layout *l, const char *axis)
{
    for (int k = 0; k < l->nshard; k++)
        if (strcmp(l->shard[k].axis, axis) != 0)
            return false;
    return true;
}

/* A 1-D tile of "i" (size "ni") by a random outer factor. */
static axe_layout tile_1d(const axe_layout *i, int64_t ni)
{
    int64_t os[1];
    axe_layout o = rand_layout(1, 6, os, tl_range(0, 2) == 0), t;
    if (axe_layout_tile(&o, os, i, &ni, 1, AXE_TARGET_NONE, &t, NULL) !=
        AXE_OK) {
        fprintf(stderr, "tile_1d: %s (x) %s failed\n", lstr(&o), lstr(i));
        exit(2);
    }
    return t;
}

/* The intersection of two tiles of a planted inner I0 on axis P: both are
 * tiles of the answer, which is on P and at least as large as I0. */
static void law_intersect(void)
{
    axe_layout i0, a, b, r, f;
    int64_t n0 = 1, na, nb, nr;
    bool fa = false, fb = false;
    axe_status st;
    axe_layout_init(&i0);
    for (int k = (int)tl_range(1, 2); k > 0; k--) {
        int64_t e = tl_range(2, 4);
        push(&i0, false, e, tl_range(1, 3), "P");
        n0 *= e;
    }
    a = tile_1d(&i0, n0);
    b = tile_1d(&i0, n0);
    st = axe_layout_intersect_iters(&a, &b, "P", AXE_TARGET_NONE, &r, NULL);
    TL_CHECK(st == AXE_OK, "intersect %s, %s", lstr(&a), lstr(&b));
    if (st != AXE_OK)
        return;
    na = bf_size(&a);
    nb = bf_size(&b);
    nr = bf_size(&r);
    if (axe_layout_is_tile_inner(&r, &a, &na, &nr, 1, AXE_TARGET_NONE, &f, &fa,
                                 NULL) != AXE_OK ||
        axe_layout_is_tile_inner(&r, &b, &nb, &nr, 1, AXE_TARGET_NONE, &f, &fb,
                                 NULL) != AXE_OK)
        fa = false;
    TL_CHECK(fa && fb && all_on(&r, "P") && nr >= n0,
             "intersect %s, %s = %s (planted %s)", lstr(&a), lstr(&b), lstr(&r),
             lstr(&i0));
}

/* V(D): the distinct points of the shard of "l", sorted; their count. */
static int bf_values(const axe_layout *l, bpt *out)
{
    int m = 0;
    for (int64_t x = 0; x < bf_size(l); x++) {
        bpt p = bf_shard(l, x);
        bool seen = false;
        for (int j = 0; j < m && !seen; j++)
            seen = bpt_cmp(&out[j], &p) == 0;
        if (!seen)
            out[m++] = p;
    }
    qsort(out, (size_t)m, sizeof *out, bpt_cmp);
    return m;
}

/* Whether the sorted set w[0 .. n) is { c s@a : 0 <= c < e } of one iter. */
static bool is_one_iter(const bpt *w, int n)
{
    int axis = -1;
    int64_t g = 0, mx = 0, sign = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < NAX; i++) {
            int64_t v = w[j].v[i], sg = v < 0 ? -1 : 1;
            if (v == 0)
                continue;
            if ((axis >= 0 && axis != i) || (sign != 0 && sign != sg))
                return false;
            axis = i;
            sign = sg;
            g = axe_gcd_test(g, v < 0 ? -v : v);
            mx = (v < 0 ? -v : v) > mx ? (v < 0 ? -v : v) : mx;
        }
    return g == 0 || mx / g + 1 == n;
}

/* A random iter list on P and F (1-3 iters, extents 1-4, strides -6..6). */
static axe_layout rand_iters(void)
{
    axe_layout l;
    axe_layout_init(&l);
    for (int k = (int)tl_range(1, 3); k > 0; k--)
        push(&l, false, tl_range(1, 4), tl_range(-6, 6),
             tl_range(0, 3) ? "P" : "F");
    return l;
}

/* "l" with only its iters on "axis". */
static axe_layout only_on(const axe_layout *l, const char *axis)
{
    axe_layout r;
    axe_layout_init(&r);
    for (int k = 0; k < l->nshard; k++)
        if (strcmp(l->shard[k].axis, axis) == 0)
            push(&r, false, l->shard[k].extent, l->shard[k].stride, axis);
    return r;
}

/* The paper's iter intersection against sets: W = V(D_a) ∩ V(D_b) by
 * enumeration; when W is one iter's, the answer (an iter) produces
 * exactly W, otherwise the answer is INCOMPATIBLE. With an axis, the
 * operands' iters on it only. */
static void law_iter_intersection(void)
{
    static bpt va[MAXPTS], vb[MAXPTS], w[MAXPTS], vr[MAXPTS];
    axe_layout a = rand_iters(), b = rand_iters(), ra, rb, r;
    const char *axis = tl_range(0, 1) ? "P" : NULL;
    int na, nb, nw = 0, nr;
    axe_diag d = {0};
    axe_status st;
    ra = axis != NULL ? only_on(&a, axis) : a;
    rb = axis != NULL ? only_on(&b, axis) : b;
    na = bf_values(&ra, va);
    nb = bf_values(&rb, vb);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (bpt_cmp(&va[i], &vb[j]) == 0)
                w[nw++] = va[i];
    st = axe_layout_intersect(&a, &b, axis, AXE_TARGET_NONE, &r, &d);
    if (!is_one_iter(w, nw)) {
        TL_CHECK(st == AXE_ERR_INCOMPATIBLE && d.message[0] != '\0',
                 "intersect %s, %s (axis %s): %s, want INCOMPATIBLE", lstr(&a),
                 lstr(&b), axis ? axis : "-",
                 st == AXE_OK ? lstr(&r) : axe_status_name(st));
        return;
    }
    nr = st == AXE_OK ? bf_values(&r, vr) : -1;
    TL_CHECK(st == AXE_OK && r.nshard == 1 && same_sets(vr, nr, w, nw),
             "intersect %s, %s (axis %s): %s (%s), %d common values", lstr(&a),
             lstr(&b), axis ? axis : "-",
             st == AXE_OK ? lstr(&r) : axe_status_name(st), d.message, nw);
}

/* A random 1-D layout on "axis": 1-2 iters, extents "lo".."hi", compact
 * strides (the product of the extents after) times "unit". */
static axe_layout rand_on(const char *axis, int64_t lo, int64_t hi,
                          int64_t unit, int64_t *size)
{
    axe_layout l;
    int64_t e[2], st = unit;
    int k = (int)tl_range(1, 2);
    axe_layout_init(&l);
    *size = 1;
    for (int j = 0; j < k; j++) {
        e[j] = tl_range(lo, hi);
        *size *= e[j];
    }
    for (int j = k - 1; j >= 0; j--) {
        st *= j == k - 1 ? 1 : e[j + 1];
        push(&l, false, e[j], st, axis);
    }
    for (int j = 0; j < k / 2; j++) {
        axe_iter t = l.shard[j];
        l.shard[j] = l.shard[k - 1 - j];
        l.shard[k - 1 - j] = t;
    }
    return l;
}

/* Under the CUDA target a warp grid A on warpid (or the paper's warp)
 * tiled by a lane layout B on laneid (or lane) fuses into one tx layout
 * T; both recoveries split tx by scope again (SplitAxesByScope) and find
 * the factor, which tiles back to T. */
static void law_cuda(void)
{
    int64_t na, nb, nt;
    axe_layout a = rand_on(tl_range(0, 1) ? "warpid" : "warp", 1, 4, 1, &na);
    axe_layout b = rand_on(tl_range(0, 1) ? "laneid" : "lane", 1, 4,
                           tl_range(1, 2), &nb),
               t, f, t2;
    axe_diag d;
    bool found;
    if (axe_layout_tile(&a, &na, &b, &nb, 1, AXE_TARGET_CUDA, &t, &d) !=
        AXE_OK) {
        TL_CHECK(false, "cuda tile %s (x) %s: %s", lstr(&a), lstr(&b),
                 d.message);
        return;
    }
    nt = na * nb;
    TL_CHECK(axe_layout_verify_well_formed(&t, &d) == AXE_OK,
             "cuda tile %s (x) %s = %s: %s", lstr(&a), lstr(&b), lstr(&t),
             d.message);
    TL_CHECK(axe_layout_is_tile_inner(&b, &t, &nt, &nb, 1, AXE_TARGET_CUDA, &f,
                                      &found, &d) == AXE_OK &&
                 found &&
                 axe_layout_tile(&f, &na, &b, &nb, 1, AXE_TARGET_CUDA, &t2,
                                 NULL) == AXE_OK &&
                 bf_same(&t2, &t),
             "cuda is_tile_inner %s in %s: %s", lstr(&b), lstr(&t), d.message);
    TL_CHECK(axe_layout_is_tile_outer(&a, &t, &nt, &na, 1, AXE_TARGET_CUDA, &f,
                                      &found, &d) == AXE_OK &&
                 found &&
                 axe_layout_tile(&a, &na, &f, &nb, 1, AXE_TARGET_CUDA, &t2,
                                 NULL) == AXE_OK &&
                 bf_same(&t2, &t),
             "cuda is_tile_outer %s in %s: %s", lstr(&a), lstr(&t), d.message);
}

static void test_laws(void)
{
    int inner_found = 0, answers = 0;
    for (int i = 0; i < NLAWS; i++) {
        law_tile(AXE_RULE_PAPER, &inner_found);
        law_tile(AXE_RULE_TIRX, &inner_found);
        law_iter_intersection();
        law_sum();
        law_intersect();
        law_cuda();
    }
    for (int i = 0; i < 4 * NLAWS; i++)
        law_tile_sound(&answers);
    printf("laws: %d random tiles, sums and intersections; %d answers of "
           "tile-of on random layouts\n",
           NLAWS, answers);
}

int main(void)
{
    tl_seed("test_layout_tile", 20260122);
    if (!test_vectors())
        printf("vectors: %s/vectors/axe.jsonl not found, skipped\n",
               getenv("AXE_SHARED_DIR"));
    test_paper_e();
    test_paper_h();
    test_errors();
    test_not_found();
    test_recovery_table();
    test_paper_axis_tiles();
    test_swizzle_table();
    test_intersect_table();
    test_iter_intersection_table();
    test_laws();
    return tl_finish();
}
