/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of Axe slicing, the CuTe <-> Axe conversions and the helper
 * constructors: every shared vector case of axe.slice, axe.storage,
 * axe.pack, axe.unpack, axe.broadcast, axe.permute_dims,
 * axe.permute_by_groups, axe.trainium, axe.tmem_datapath_layout,
 * axe.tmem_mma_operand_layout, axe.wg_local_layout and axe.mma_shared_layout
 * as a table row compared by its `cmp` rule, the paper's and the spec's
 * worked examples, and laws checked against a brute-force evaluator (written
 * here, independent of the library's apply) on seeded random layouts.
 * Invariant: each law is stated above its checker.
 */
#include "core_internal.h"
#include "testlib.h"

/* ---- parsing, printing and a brute-force evaluator ------------------- */

static axe_layout tl_axe(const char *s)
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

static const char *tl_axe_str(const axe_layout *l)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    axe_print_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

static void padd(axe_point *p, const char *axis, int64_t v)
{
    if (axe_point_add(p, axis, v) != AXE_OK) {
        fprintf(stderr, "point capacity in the test evaluator\n");
        exit(2);
    }
}

static int64_t brute_size(const axe_layout *l)
{
    int64_t s = 1;
    for (int i = 0; i < l->nshard; i++)
        s *= l->shard[i].extent;
    return s;
}

/* addr(m) of spec §11, straight from the definition. */
static int64_t brute_swizzle(const axe_layout_swizzle *sw, int64_t m)
{
    int64_t lo, x, mask;
    if (!sw->present)
        return m;
    lo = axe__floormod(m, (int64_t)1 << sw->per_element);
    x = axe__floordiv(m, (int64_t)1 << sw->per_element);
    mask = ((int64_t)1 << sw->len) - 1;
    if (sw->inner)
        x ^= (x & (mask << sw->atom)) >> sw->atom;
    else
        x ^= (x & mask) << sw->atom;
    return x * ((int64_t)1 << sw->per_element) + lo;
}

/* D(x) + O + r for the replica digits "rd" (NULL: r = 0), swizzled. */
static void brute_point(const axe_layout *l, int64_t x, const int64_t *rd,
                        axe_point *p)
{
    p->n = 0;
    for (int i = l->nshard - 1; i >= 0; i--) {
        int64_t e = l->shard[i].extent;
        int64_t d = i > 0 ? axe__floormod(x, e) : x;
        x = i > 0 ? axe__floordiv(x, e) : 0;
        padd(p, l->shard[i].axis, d * l->shard[i].stride);
    }
    for (int i = 0; i < l->noffset; i++)
        padd(p, l->offset[i].axis, l->offset[i].value);
    for (int i = 0; rd != NULL && i < l->nreplica; i++)
        padd(p, l->replica[i].axis, rd[i] * l->replica[i].stride);
    for (int i = 0; l->swizzle.present && i < p->n; i++)
        if (strcmp(p->axis[i], "m") == 0)
            p->v[i] = brute_swizzle(&l->swizzle, p->v[i]);
}

#define SETMAX 64

/* The set L(x) as a list (replica digits in lexicographic order). */
static int brute_set(const axe_layout *l, int64_t x, axe_point *out)
{
    int64_t rd[AXE_LAYOUT_MAX_REPLICA] = {0};
    int n = 0;
    for (;;) {
        int i = l->nreplica - 1;
        if (n < SETMAX)
            brute_point(l, x, rd, &out[n]);
        n++;
        while (i >= 0 && ++rd[i] == l->replica[i].extent)
            rd[i--] = 0;
        if (i < 0)
            return n;
    }
}

/* Two lists of points equal as multisets. */
static int same_points(const axe_point *a, int na, const axe_point *b, int nb)
{
    bool used[SETMAX] = {false};
    if (na != nb || na > SETMAX)
        return 0;
    for (int i = 0; i < na; i++) {
        int j = 0;
        while (j < nb && (used[j] || !axe_point_equal(&a[i], &b[j])))
            j++;
        if (j == nb)
            return 0;
        used[j] = true;
    }
    return 1;
}

/* cmp axe_function: same size, same set-valued map on every index. */
static int same_function(const axe_layout *a, const axe_layout *b)
{
    axe_point pa[SETMAX], pb[SETMAX];
    int64_t n = brute_size(a);
    if (n != brute_size(b))
        return 0;
    for (int64_t x = 0; x < n; x++)
        if (!same_points(pa, brute_set(a, x, pa), pb, brute_set(b, x, pb)))
            return 0;
    return 1;
}

static axe_layout canon(const axe_layout *l, axe_target t)
{
    axe_layout c;
    axe_diag d;
    if (axe_layout_canonicalize(l, t, &c, &d) != AXE_OK) {
        fprintf(stderr, "canonicalize failed on %s: %s\n", tl_axe_str(l),
                d.message);
        exit(2);
    }
    return c;
}

/* Compare "got" with "expect" by "cmp" ("struct" or "function"),
 * canonicalizing "got" first when "canonicalize". */
static int matches(const axe_layout *got, const char *expect, bool function,
                   bool canonicalize, axe_target t)
{
    axe_layout e = tl_axe(expect), g = *got;
    if (canonicalize)
        g = canon(&g, t);
    return function ? same_function(&g, &e) : axe_layout_equal(&g, &e);
}

/* ---- axe.slice vectors and worked examples ----------------------------- */

/* A slice request: region [begin_d, end_d) of "layout" over "shape";
 * "expect" NULL for no layout; "function": cmp axe_function. */
typedef struct slice_row {
    const char *id, *layout;
    int n;
    int64_t shape[3], begin[3], end[3];
    bool cuda, canonicalize, function;
    const char *expect;
} slice_row;

/* From ../shared/vectors/axe.jsonl (op axe.slice). */
static const slice_row slice_vectors[] = {
    {"tirx-test_slice-0",
     "S[(8,8):(8,1)]",
     1,
     {64},
     {5},
     {8},
     false,
     false,
     true,
     "S[3:1] + 5"},
    {"tirx-test_slice-1",
     "S[(4,4,4,4):(64,4,16,1)]",
     2,
     {16, 16},
     {2, 6},
     {3, 10},
     false,
     false,
     true,
     "S[(2,2):(14,1)] + 26"},
    {"tirx-test_slice-2",
     "S[(2,8,3,8):(192,8,64,1)]",
     2,
     {16, 24},
     {2, 4},
     {6, 12},
     false,
     false,
     true,
     "S[(4,2,4):(8,60,1)] + 20"},
    {"tirx-test_slice-3",
     "S[(128,2,64):(64,8192,1)]",
     2,
     {128, 128},
     {0, 32},
     {128, 96},
     false,
     false,
     true,
     "S[(128,2,32):(64,8160,1)] + 32"},
    {"tirx-test_slice-4",
     "S[(4,64):(64,1)] + 0",
     2,
     {4, 64},
     {2, 0},
     {4, 64},
     false,
     true,
     false,
     "S[128:1] + 128"},
    {"tirx-test_slice-5",
     "S[(4,64):(64,1)] + 64",
     2,
     {4, 64},
     {2, 0},
     {4, 64},
     false,
     true,
     false,
     "S[128:1] + 192"},
    {"tirx-test_slice-6",
     "S[(4,64):(64,1)] + 192",
     2,
     {4, 64},
     {2, 0},
     {4, 64},
     false,
     true,
     false,
     "S[128:1] + 320"},
    {"tirx-test_slice-8",
     "Swizzle<3,3,3>(S[(8,64):(64,1)])",
     1,
     {512},
     {64},
     {128},
     false,
     false,
     true,
     "Swizzle<3,3,3>(S[64:1] + 64)"},
    {"tirx-test_slice-10",
     "S[(4,4):(4,1)]",
     1,
     {16},
     {3},
     {6},
     false,
     false,
     false,
     "S[3:1] + 3"},
    {"tirx-test_slice-12",
     "S[(2,8,3,8):(192,8,64,1)]",
     2,
     {16, 24},
     {0, 8},
     {8, 24},
     false,
     true,
     false,
     "S[(8,2,8):(8,64,1)] + 64"},
    {"tirx-test_slice_single_shard_skips_defensive_floormod-0",
     "S[(3,128,128):(16384,128,1)]",
     3,
     {3, 128, 128},
     {0, 0, 0},
     {1, 128, 128},
     false,
     true,
     false,
     "S[16384:1]"},
    {"tirx-test_slice_single_shard_skips_defensive_floormod-1",
     "S[(3,128,128):(16384,128,1)]",
     3,
     {3, 128, 128},
     {1, 0, 0},
     {2, 128, 128},
     false,
     true,
     false,
     "S[16384:1] + 16384"},
    {"tirx-test_slice_single_shard_skips_defensive_floormod-3",
     "S[(2,128):(8192,64)]",
     1,
     {256},
     {96},
     {128},
     false,
     true,
     false,
     "S[32:64] + 6144"},
    {"tirx-test_slice_tcgen05_frag_layout_scope_consistent-0",
     "S[(4,2,2,8,4,4,2):(1@wid_in_wg,16,2,4@laneid,4,1@laneid,1)]",
     2,
     {128, 32},
     {0, 0},
     {128, 32},
     true,
     false,
     true,
     "S[(4,2,2,8,4,4,2):(32@tid_in_wg,16,2,4@tid_in_wg,4,1@tid_in_wg,1)]"},
    {"tirx-test_slice_tcgen05_frag_layout_scope_consistent-1",
     "S[(4,2,2,8,4,4,2):(1@wid_in_wg,16,2,4@laneid,4,1@laneid,1)]",
     2,
     {128, 32},
     {0, 16},
     {128, 32},
     true,
     false,
     true,
     "S[(4,2,2,8,2,4,2):(32@tid_in_wg,16,2,4@tid_in_wg,4,1@tid_in_wg,1)] + "
     "8"},
    {"paper-f-1",
     "S[(2,8,3,8):(192,8,64,1)]",
     2,
     {16, 24},
     {0, 8},
     {8, 24},
     false,
     true,
     false,
     "S[(8,2,8):(8,64,1)] + 64"},
};

/* Hand-written rows: spec §10's raw (un-canonicalized) result; a carry
 * past iter k-1 (TIRx returns a wrong layout, axe follows the carry); a
 * wrap that is not the midpoint form (no layout). */
static const slice_row slice_extra[] = {
    {"spec-10-raw",
     "S[(2,8,3,8):(192,8,64,1)]",
     2,
     {16, 24},
     {0, 8},
     {8, 24},
     false,
     false,
     false,
     "S[(1,8,2,8):(192,8,64,1)] + 64"},
    {"carry-past-k-1",
     "S[(2,2,4):(100,10,1)]",
     1,
     {16},
     {6},
     {10},
     false,
     false,
     false,
     "S[(2,2):(88,1)] + 12"},
    {"carry-two-iters",
     "S[(2,2,2,4):(1000,100,10,1)]",
     1,
     {32},
     {14},
     {18},
     false,
     false,
     true,
     "S[(2,2):(888,1)] + 112"},
    {"other-form",
     "S[(3,4):(100,1)]",
     1,
     {12},
     {2},
     {10},
     false,
     false,
     false,
     "S[(2,2,2):(100,98,1)] + 2"},
    {"no-midpoint",
     "S[(3,8):(64,1)]",
     1,
     {24},
     {4},
     {14},
     false,
     false,
     false,
     NULL},
    {"steps-past-2^20",
     "S[(3,2097152):(100000000,1)]",
     1,
     {6291456},
     {1048576},
     {5242880},
     false,
     true,
     false,
     "S[(2,2,1048576):(100000000,98951424,1)] + 1048576"},
    {"steps-2^41",
     "S[(3,1099511627776):(2199023255552,1)]",
     1,
     {3298534883328},
     {549755813888},
     {2748779069440},
     false,
     true,
     false,
     "S[(2,2,549755813888):(2199023255552,1649267441664,1)] + "
     "549755813888"},
    {"steps-large-none",
     "S[(3,2097152):(100000000,1)]",
     1,
     {6291456},
     {1048576},
     {4194304},
     false,
     false,
     false,
     NULL},
    {"carry-other-axis",
     "S[(2,4):(1@P,1)]",
     1,
     {8},
     {2},
     {6},
     false,
     false,
     false,
     NULL},
};

static void check_slice_row(const slice_row *r)
{
    axe_layout l = tl_axe(r->layout), out;
    axe_target t = r->cuda ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
    axe_diag d = {-1, ""};
    bool found = false;
    axe_status st = axe_layout_slice(&l, r->shape, r->begin, r->end, r->n, t,
                                     &out, &found, &d);
    if (st != AXE_OK || r->expect == NULL) {
        TL_CHECK(st == AXE_OK && !found &&
                     strstr(d.message, "no layout exists") != NULL,
                 "%s: status %s found %d (%s)", r->id, axe_status_name(st),
                 found, d.message);
        return;
    }
    TL_CHECK(found && matches(&out, r->expect, r->function, r->canonicalize, t),
             "%s: got %s, expected %s (%s)", r->id,
             found ? tl_axe_str(&out) : "no layout", r->expect, d.message);
}

static void test_slice_vectors(void)
{
    size_t nv = sizeof slice_vectors / sizeof slice_vectors[0];
    size_t ne = sizeof slice_extra / sizeof slice_extra[0];
    for (size_t i = 0; i < nv; i++)
        check_slice_row(&slice_vectors[i]);
    for (size_t i = 0; i < ne; i++)
        check_slice_row(&slice_extra[i]);
}

/* Bad input: a status and a reason naming the dim and the boundary. */
static void test_slice_rejects(void)
{
    static const struct {
        int64_t begin, end;
        const char *word;
    } rows[] = {
        {-1, 4, "begin"}, {0, 17, "end"}, {5, 5, "end"}, {16, 17, "begin"}};
    axe_layout l = tl_axe("S[(4,4):(4,1)]"), out;
    int64_t shape[2] = {4, 16};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int64_t b[2] = {0, rows[i].begin}, e[2] = {4, rows[i].end};
        axe_diag d = {-1, ""};
        bool found = true;
        axe_status st = axe_layout_slice(&l, shape, b, e, 2, AXE_TARGET_NONE,
                                         &out, &found, &d);
        TL_CHECK(st == AXE_ERR_DOMAIN && strstr(d.message, "dim 1") &&
                     strstr(d.message, rows[i].word),
                 "region [%lld, %lld): %s (%s)", (long long)rows[i].begin,
                 (long long)rows[i].end, axe_status_name(st), d.message);
    }
    {
        int64_t s1[1] = {12}, b[1] = {0}, e[1] = {4};
        axe_diag d = {-1, ""};
        bool found;
        axe_status st = axe_layout_slice(&l, s1, b, e, 1, AXE_TARGET_NONE, &out,
                                         &found, &d);
        TL_CHECK(st != AXE_OK && d.message[0] != '\0',
                 "group failure must be a status: %s", axe_status_name(st));
    }
}

/* ---- random layouts ---------------------------------------------------- */

static const char *const law_axes[] = {"m",      "m",      "P",
                                       "laneid", "warpid", "gpuid"};

static const char *random_axis(void)
{
    return law_axes[tl_range(0, sizeof law_axes / sizeof law_axes[0] - 1)];
}

static int64_t random_stride(void)
{
    int64_t s = tl_range(-6, 12);
    return tl_range(0, 3) == 0 ? s * tl_range(1, 64) : s;
}

static void push_or_die(axe_status st)
{
    if (st != AXE_OK) {
        fprintf(stderr, "test generator: %s\n", axe_status_name(st));
        exit(2);
    }
}

/* Replicas (<= 3, negative strides too) and offsets (<= 2) on "l". */
static void random_extras(axe_layout *l)
{
    int nr = tl_range(0, 3) == 0 ? (int)tl_range(1, 3) : 0;
    int no = (int)tl_range(0, 2);
    for (int i = 0; i < nr; i++)
        push_or_die(axe_layout_push_replica(l, tl_range(2, 3), random_stride(),
                                            random_axis()));
    for (int i = 0; i < no; i++)
        push_or_die(axe_layout_add_offset(l, random_axis(), tl_range(-20, 40)));
}

/*
 * A random layout built dim by dim (1..3 dims of 1..3 iters, extents 1..4,
 * at most 8 iters), with "shape" the product of each dim's extents; with
 * "memory_only" every iter is on `m` (for swizzles).
 */
static axe_layout random_layout(int64_t *shape, int *n, bool memory_only)
{
    axe_layout l;
    int total = 0;
    axe_layout_init(&l);
    *n = (int)tl_range(1, 3);
    for (int d = 0; d < *n; d++) {
        int k = (int)tl_range(1, 3);
        shape[d] = 1;
        for (int i = 0; i < k && total < 8; i++, total++) {
            int64_t e = tl_range(1, 4);
            shape[d] *= e;
            push_or_die(axe_layout_push_shard(
                &l, e, random_stride(), memory_only ? "m" : random_axis()));
        }
    }
    if (!memory_only)
        random_extras(&l);
    return l;
}

/* A swizzle that keeps addresses small: M <= 2, B <= 2, S in [B, 3]. */
static void random_swizzle(axe_layout *l)
{
    int b = (int)tl_range(0, 2);
    l->swizzle.present = true;
    l->swizzle.inner = tl_range(0, 1) == 0;
    l->swizzle.per_element = (int)tl_range(0, 2);
    l->swizzle.len = b;
    l->swizzle.atom = (int)tl_range(b, 3);
}

/* Row-major linear index of "crd" in "shape". */
static int64_t flat_index(const int64_t *crd, const int64_t *shape, int n)
{
    int64_t x = 0;
    for (int d = 0; d < n; d++)
        x = x * shape[d] + crd[d];
    return x;
}

/* ---- slice laws -------------------------------------------------------- */

typedef struct slice_stats {
    int answered, refused, aligned;
} slice_stats;

/* The coordinate of index "x" in "ext" (row-major) plus "b". */
static void unflatten_plus(int64_t x, const int64_t *ext, const int64_t *b,
                           int n, int64_t *crd)
{
    for (int d = n - 1; d >= 0; d--) {
        crd[d] = x % ext[d] + b[d];
        x /= ext[d];
    }
}

/*
 * Law (slice, spec §10): whenever slice answers, for every u in the
 * region's shape, f_{L[R:S]}(u) = f_{L'}(u + begin) as sets, L' = L (or its
 * CUDA canonical form, whose axes the result uses, under the CUDA target).
 * Refusals carry a reason. Returns whether it answered.
 */
static bool check_slice_law(const axe_layout *l, const int64_t *shape, int n,
                            const int64_t *b, const int64_t *e, axe_target t)
{
    axe_layout out, ref = t == AXE_TARGET_NONE ? *l : canon(l, t);
    axe_point pa[SETMAX], pb[SETMAX];
    int64_t ext[3], size = 1, crd[3];
    axe_diag d = {-1, ""};
    bool found = false;
    axe_status st = axe_layout_slice(l, shape, b, e, n, t, &out, &found, &d);
    if (st != AXE_OK || !found) {
        TL_CHECK(d.message[0] != '\0', "slice of %s refused without reason",
                 tl_axe_str(l));
        return false;
    }
    for (int k = 0; k < n; k++)
        size *= ext[k] = e[k] - b[k];
    TL_CHECK(brute_size(&out) == size, "slice of %s: size %lld, region %lld",
             tl_axe_str(l), (long long)brute_size(&out), (long long)size);
    for (int64_t x = 0; x < size; x++) {
        unflatten_plus(x, ext, b, n, crd);
        if (!same_points(pa, brute_set(&out, x, pa), pb,
                         brute_set(&ref, flat_index(crd, shape, n), pb))) {
            TL_CHECK(0, "slice of %s over index %lld: %s differs",
                     tl_axe_str(l), (long long)x, tl_axe_str(&out));
            return true;
        }
    }
    tl_passed++;
    return true;
}

/* A region of whole sub-iters of dim d's block g[0 .. m) of the grouped
 * canonical layout: pivot k, c whole steps of it from digit d_k, any
 * digits above, zeros below: begin = sum_{j<=k} d_j B_j, n = c B_k. */
static void aligned_range(const axe_iter *g, int m, int64_t *b, int64_t *e)
{
    int64_t bj[AXE_LAYOUT_MAX_SHARD], c, acc = 1;
    int k = (int)tl_range(0, m - 1);
    for (int j = m - 1; j >= 0; j--) {
        bj[j] = acc;
        acc *= g[j].extent;
    }
    c = tl_range(1, g[k].extent);
    *b = tl_range(0, g[k].extent - c) * bj[k];
    for (int j = 0; j < k; j++)
        *b += tl_range(0, g[j].extent - 1) * bj[j];
    *e = *b + c * bj[k];
}

/* Law (completeness on whole sub-iters): slice answers for every region
 * that is a product of aligned_range regions of the grouped canonical
 * layout (and the answer satisfies the slice law). */
static void check_slice_complete(const axe_layout *l, const int64_t *shape,
                                 int n, axe_target t, slice_stats *stats)
{
    axe_layout c = canon(l, t), g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    int64_t b[3], e[3];
    if (axe_layout_group(&c, shape, n, &g, seps, NULL) != AXE_OK) {
        TL_CHECK(0, "group of %s failed", tl_axe_str(&c));
        return;
    }
    for (int d = 0; d < n; d++)
        aligned_range(&g.shard[seps[d]], seps[d + 1] - seps[d], &b[d], &e[d]);
    stats->aligned++;
    TL_CHECK(check_slice_law(l, shape, n, b, e, t),
             "slice of %s refused an aligned region", tl_axe_str(l));
}

static void random_region(const int64_t *shape, int n, int64_t *b, int64_t *e)
{
    for (int d = 0; d < n; d++) {
        b[d] = tl_range(0, shape[d] - 1);
        e[d] = tl_range(b[d] + 1, shape[d]);
    }
}

static void test_slice_laws(void)
{
    slice_stats stats = {0, 0, 0};
    for (int iter = 0; iter < 3000; iter++) {
        int64_t shape[3], b[3], e[3];
        int n;
        bool sw = iter % 5 == 0;
        axe_layout l = random_layout(shape, &n, sw);
        axe_target t = !sw && iter % 3 == 0 ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
        if (sw)
            random_swizzle(&l);
        random_region(shape, n, b, e);
        if (check_slice_law(&l, shape, n, b, e, t))
            stats.answered++;
        else
            stats.refused++;
        check_slice_complete(&l, shape, n, t, &stats);
    }
    printf("slice laws: %d random regions answered, %d refused; %d aligned "
           "regions\n",
           stats.answered, stats.refused, stats.aligned);
}

/* a - b (entries may be zero). */
static axe_point pdiff(const axe_point *a, const axe_point *b)
{
    axe_point d = *a;
    for (int i = 0; i < b->n; i++)
        padd(&d, b->axis[i], -b->v[i]);
    return d;
}

static int nonzero(const axe_point *p)
{
    int c = 0;
    for (int i = 0; i < p->n; i++)
        c += p->v[i] != 0;
    return c;
}

/* Whether p[u] - p[0] = sum_k digit_k(u) s_k for every u < n, with the
 * extents fac[0 .. r) (innermost first) and their forced strides s_k =
 * p[B_k] - p[0] (B_k the product of the extents inside k), each on one
 * axis at most. */
static bool fits(const axe_point *p, int64_t n, const int64_t *fac, int r)
{
    axe_point s[8], acc, diff;
    int64_t span = 1;
    for (int k = 0; k < r; k++) {
        s[k] = pdiff(&p[span], &p[0]);
        if (nonzero(&s[k]) > 1)
            return false;
        span *= fac[k];
    }
    for (int64_t u = 0; u < n; u++) {
        int64_t q = u;
        acc = p[0];
        for (int k = 0; k < r; k++) {
            for (int i = 0; i < s[k].n; i++)
                padd(&acc, s[k].axis[i], (q % fac[k]) * s[k].v[i]);
            q /= fac[k];
        }
        diff = pdiff(&acc, &p[u]);
        if (nonzero(&diff) != 0)
            return false;
    }
    return true;
}

/* Brute force: whether any layout without replicas maps u -> p[u] for
 * u < n, by trying every ordered factorization of n into extents >= 2. */
static bool exists_1d(const axe_point *p, int64_t n, int64_t *fac, int r,
                      int64_t left)
{
    if (left == 1)
        return fits(p, n, fac, r);
    for (int64_t f = 2; f <= left; f++) {
        if (left % f != 0)
            continue;
        fac[r] = f;
        if (exists_1d(p, n, fac, r + 1, left / f))
            return true;
    }
    return false;
}

/* Law (slice has no size cap): with an inner iter (2^21, 1@big) added to
 * a random layout L, the region [b 2^21, e 2^21) has a layout exactly when
 * [b, e) of L has one, and then it is that layout with the inner iter
 * added (compared by axe_layout_equivalent). Regions of up to 2^27
 * elements, far past the 2^20 steps the search may take. */
static void test_slice_large_1d(void)
{
    const int64_t big = (int64_t)1 << 21;
    int answered = 0;
    for (int iter = 0; iter < 500; iter++) {
        int64_t shape[3], size = 1, b, e, bb, eb, sizeb;
        int n;
        axe_layout l = random_layout(shape, &n, false), lb, out, outb;
        axe_diag d = {-1, ""};
        bool found = false, foundb = false, same = false;
        l.nreplica = 0;
        l.noffset = 0;
        for (int k = 0; k < n; k++)
            size *= shape[k];
        b = tl_range(0, size - 1);
        e = tl_range(b + 1, b + 64 < size ? b + 64 : size);
        lb = l;
        if (axe_layout_push_shard(&lb, big, 1, "big") != AXE_OK)
            continue;
        sizeb = size * big;
        bb = b * big;
        eb = e * big;
        TL_CHECK(axe_layout_slice(&l, &size, &b, &e, 1, AXE_TARGET_NONE, &out,
                                  &found, NULL) == AXE_OK &&
                     axe_layout_slice(&lb, &sizeb, &bb, &eb, 1, AXE_TARGET_NONE,
                                      &outb, &foundb, &d) == AXE_OK &&
                     found == foundb,
                 "slice of %s, [%lld, %lld) x 2^21: found %d, small %d (%s)",
                 tl_axe_str(&lb), (long long)b, (long long)e, foundb, found,
                 d.message);
        if (!found || !foundb)
            continue;
        answered++;
        if (axe_layout_push_shard(&out, big, 1, "big") != AXE_OK)
            continue;
        TL_CHECK(
            axe_layout_equivalent(&out, &outb, &same, NULL) == AXE_OK && same,
            "slice of %s, [%lld, %lld) x 2^21 = %s, want %s", tl_axe_str(&lb),
            (long long)b, (long long)e, tl_axe_str(&outb), tl_axe_str(&out));
    }
    printf("slice past 2^20: %d large regions answered\n", answered);
}

/* The search by steps gives up after 2^20 changes of step and says so
 * (a region whose inner iter of extent 2 it cannot peel). */
static void test_slice_capped(void)
{
    axe_layout l = tl_axe("S[(3,1048576,2):(1000000000,10,1)]"), out;
    int64_t shape = 6291456, b = 1, e = 4194305;
    axe_diag d = {-1, ""};
    bool found = true;
    TL_CHECK(axe_layout_slice(&l, &shape, &b, &e, 1, AXE_TARGET_NONE, &out,
                              &found, &d) == AXE_OK &&
                 !found && strstr(d.message, "gave up after 1048576") &&
                 strstr(d.message, "a layout may exist"),
             "capped search: found %d (%s)", found, d.message);
}

/* Law (slice is complete): on 1-D regions of at most 64 elements of random
 * layouts, slice answers exactly when the brute force finds a layout (and
 * then the slice law holds); refusals say why. */
static void test_slice_complete_1d(void)
{
    int answered = 0, none = 0;
    for (int iter = 0; iter < 3000; iter++) {
        int64_t shape[3], size = 1, b, e, fac[8];
        int n;
        axe_layout l = random_layout(shape, &n, false), out;
        axe_point p[64];
        axe_diag d = {-1, ""};
        bool found = false, want;
        axe_status st;
        l.nreplica = 0;
        for (int k = 0; k < n; k++)
            size *= shape[k];
        b = tl_range(0, size - 1);
        e = tl_range(b + 1, b + 64 < size ? b + 64 : size);
        for (int64_t u = 0; u < e - b; u++)
            brute_point(&l, b + u, NULL, &p[u]);
        want = exists_1d(p, e - b, fac, 0, e - b);
        st = axe_layout_slice(&l, &size, &b, &e, 1, AXE_TARGET_NONE, &out,
                              &found, &d);
        TL_CHECK(st == AXE_OK && found == want && (found || d.message[0]),
                 "slice of %s over [%lld], region [%lld, %lld): %s, found "
                 "%d, brute force %d (%s)",
                 tl_axe_str(&l), (long long)size, (long long)b, (long long)e,
                 axe_status_name(st), found, want, d.message);
        if (found)
            check_slice_law(&l, &size, 1, &b, &e, AXE_TARGET_NONE);
        answered += found;
        none += !want;
    }
    printf("slice completeness: %d regions answered, %d have no layout\n",
           answered, none);
}

/* ---- CuTe <-> Axe ------------------------------------------------------ */

static const uint32_t law_bases[] = {0,
                                     0,
                                     AXE_CUTE_BASIS1(0),
                                     AXE_CUTE_BASIS1(1),
                                     AXE_CUTE_BASIS2(1, 0),
                                     AXE_CUTE_BASIS1(12)};

/* A random CuTe layout (hierarchical, signed strides, some scaled-basis
 * strides E<0>, E<1>, E<1,0>, E<12>). */
static axe_cute_layout random_cute(bool integer_only)
{
    axe_cute_layout c = tl_random_layout(6, 3, 512, 9, 1);
    for (int i = 0; i < c.shape.nleaf && !integer_only; i++)
        c.basis[i] = law_bases[tl_range(0, 5)];
    return c;
}

/* The Axe point of a CuTe point: code 0 on `m`, E<k0,k1> on "k0_k1". */
static void cute_to_axe_point(const axe_cute_point *cp, axe_point *p)
{
    p->n = 0;
    for (int k = 0; k < cp->n; k++) {
        uint32_t code = cp->basis[k];
        char name[AXE_AXIS_NAME_MAX] = "m";
        if (code != 0 && AXE_CUTE_BASIS_DEPTH(code) == 1)
            snprintf(name, sizeof name, "%d", AXE_CUTE_BASIS_MODE(code, 0));
        else if (code != 0)
            snprintf(name, sizeof name, "%d_%d", AXE_CUTE_BASIS_MODE(code, 0),
                     AXE_CUTE_BASIS_MODE(code, 1));
        padd(p, name, cp->v[k]);
    }
}

/* Law (from_cute): apply_base(from_cute(c), x) = c(x) for every x >= 0
 * (also past size, where both continue along the outermost leaf), by the
 * library's apply and by the brute-force evaluator. */
static void check_from_cute(const axe_cute_layout *c)
{
    axe_layout a;
    int64_t size;
    axe_diag d;
    if (axe_layout_from_cute(c, &a, &d) != AXE_OK ||
        axe_cute_size(c, &size) != AXE_OK) {
        TL_CHECK(0, "from_cute(%s): %s", tl_str(c), d.message);
        return;
    }
    for (int64_t x = 0; x < size + 4; x++) {
        axe_cute_point cp;
        axe_point want, lib, brute;
        if (axe_cute_eval_point(c, x, &cp) != AXE_OK)
            continue;
        cute_to_axe_point(&cp, &want);
        brute_point(&a, x, NULL, &brute);
        if (axe_layout_apply_base(&a, x, &lib, &d) != AXE_OK ||
            !axe_point_equal(&lib, &want) || !axe_point_equal(&brute, &want)) {
            TL_CHECK(0, "from_cute(%s) = %s differs at %lld", tl_str(c),
                     tl_axe_str(&a), (long long)x);
            return;
        }
    }
    tl_passed++;
}

/* Law (round trip): to_cute(from_cute(c)) is c flattened (same leaves,
 * strides and bases in order; a single leaf is a scalar). */
static void check_cute_round_trip(const axe_cute_layout *c)
{
    axe_layout a;
    axe_cute_layout back;
    bool same;
    if (axe_layout_from_cute(c, &a, NULL) != AXE_OK ||
        axe_layout_to_cute(&a, &back, NULL) != AXE_OK) {
        TL_CHECK(0, "round trip of %s failed", tl_str(c));
        return;
    }
    same = back.shape.nleaf == c->shape.nleaf &&
           axe_tuple_depth(&back.shape) == (c->shape.nleaf > 1);
    for (int i = 0; same && i < c->shape.nleaf; i++)
        same = back.shape.v[i] == c->shape.v[i] &&
               back.stride[i] == c->stride[i] && back.basis[i] == c->basis[i];
    TL_CHECK(same, "to_cute(from_cute(%s)) = %s", tl_str(c), tl_str(&back));
}

/* Law (round trip): from_cute(to_cute(L)) == L for layouts on `m` and
 * basis axes without replica or offset. */
static void check_axe_round_trip(void)
{
    static const char *const names[] = {"m", "0", "1", "1_0", "2_1_0"};
    axe_layout l, back;
    axe_cute_layout c;
    axe_layout_init(&l);
    for (int i = (int)tl_range(0, 6); i > 0; i--)
        push_or_die(axe_layout_push_shard(&l, tl_range(1, 5), random_stride(),
                                          names[tl_range(0, 4)]));
    TL_CHECK(axe_layout_to_cute(&l, &c, NULL) == AXE_OK &&
                 axe_layout_from_cute(&c, &back, NULL) == AXE_OK &&
                 axe_layout_equal(&l, &back),
             "from_cute(to_cute(%s))", tl_axe_str(&l));
}

/* A random swizzled CuTe layout Sw<B,M,S> o off o L (S of either sign). */
static axe_cute_composed random_composed(void)
{
    axe_cute_composed c;
    int b = (int)tl_range(0, 3), s = (int)tl_range(b, 5);
    memset(&c, 0, sizeof c);
    c.kind = AXE_CUTE_OUTER_SWIZZLE;
    if (axe_swizzle_make(b, (int)tl_range(0, 4), tl_range(0, 1) ? s : -s,
                         &c.swizzle, NULL) != AXE_OK)
        exit(2);
    axe_tuple_scalar(tl_range(0, 1) ? tl_range(0, 200) : 0, &c.offset);
    c.inner = random_cute(true);
    return c;
}

/* Law (swizzles): from_cute_composed(c)(x) = c(x) on c's domain, and
 * to_cute_composed inverts it (same swizzle, offset and leaves). */
static void check_composed(void)
{
    axe_cute_composed c = random_composed(), back;
    axe_layout a;
    int64_t size;
    axe_diag d;
    if (axe_layout_from_cute_composed(&c, &a, &d) != AXE_OK ||
        axe_cute_composed_size(&c, &size) != AXE_OK) {
        TL_CHECK(0, "from_cute_composed: %s", d.message);
        return;
    }
    for (int64_t x = 0; x < size; x++) {
        axe_cute_point cp;
        axe_point want, lib;
        if (axe_cute_composed_eval_point(&c, x, &cp) != AXE_OK)
            exit(2);
        cute_to_axe_point(&cp, &want);
        if (axe_layout_apply_base(&a, x, &lib, &d) != AXE_OK ||
            !axe_point_equal(&lib, &want)) {
            TL_CHECK(0, "Sw<%d,%d,%d> o %lld o %s = %s differs at %lld",
                     c.swizzle.bits, c.swizzle.base, c.swizzle.shift,
                     (long long)c.offset.v[0], tl_str(&c.inner), tl_axe_str(&a),
                     (long long)x);
            return;
        }
    }
    TL_CHECK(axe_layout_to_cute_composed(&a, &back, &d) == AXE_OK &&
                 memcmp(&back.swizzle, &c.swizzle, sizeof c.swizzle) == 0 &&
                 back.offset.v[0] == c.offset.v[0] &&
                 tl_same_function(&back.inner, &c.inner),
             "to_cute_composed(%s): %s", tl_axe_str(&a), d.message);
}

static void test_conversions(void)
{
    static const char *const rows[][2] = {
        {"((2,3),4):((1,2),6)", "S[(4,3,2):(6,2,1)]"},
        {"(4,8):(1@0,1@1)", "S[(8,4):(1@1,1@0)]"},
        {"(2,3):(1@1@0,5)", "S[(3,2):(5,1@0_1)]"},
        {"7:3", "S[7:3]"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_cute_layout c = tl_layout(rows[i][0]);
        axe_layout a, want = tl_axe(rows[i][1]);
        TL_CHECK(axe_layout_from_cute(&c, &a, NULL) == AXE_OK &&
                     axe_layout_equal(&a, &want),
                 "from_cute(%s) = %s, expected %s", rows[i][0], tl_axe_str(&a),
                 rows[i][1]);
    }
    for (int iter = 0; iter < 1000; iter++) {
        axe_cute_layout c = random_cute(false);
        check_from_cute(&c);
        check_cute_round_trip(&c);
        check_axe_round_trip();
        if (iter % 2 == 0)
            check_composed();
    }
}

/* ---- helper constructors: vector cases --------------------------------- */

/* Check one helper result: "expect" compared as axe_struct (after
 * canonicalize when "canonicalize"), or NULL for a rejection whose reason
 * contains "word". */
static void expect_result(const char *id, axe_status st, const axe_layout *out,
                          const axe_diag *d, const char *expect,
                          bool canonicalize, const char *word)
{
    if (expect == NULL) {
        TL_CHECK(st != AXE_OK && strstr(d->message, word) != NULL,
                 "%s: expected a rejection with \"%s\", got %s (%s)", id, word,
                 axe_status_name(st), d->message);
        return;
    }
    TL_CHECK(st == AXE_OK &&
                 matches(out, expect, false, canonicalize, AXE_TARGET_NONE),
             "%s: got %s (%s), expected %s", id,
             st == AXE_OK ? tl_axe_str(out) : axe_status_name(st), d->message,
             expect);
}

#define EXPECT(id, call, expect, canonicalize, word)                           \
    do {                                                                       \
        axe_layout out_;                                                       \
        axe_diag d_ = {-1, ""};                                                \
        axe_status st_ = (call);                                               \
        expect_result(id, st_, &out_, &d_, expect, canonicalize, word);        \
    } while (0)

static void test_storage_pack_vectors(void)
{
    static const char *const st[][2] = {
        {"S[(8,8):(8,1)]", "S[(8,8):(8,1)]"},
        {"Swizzle<3,3,3>(S[512:1])", "Swizzle<3,3,3>(S[512:1])"},
        {"S[(2,8,8,4,2):(2,4@laneid,4,1@laneid,1)]", "S[(2,8,2):(2,4,1)]"},
        {"S[(16,8,8):(8@tx,1@tx,1)]", "S[8:1]"},
    };
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
        axe_layout l = tl_axe(st[i][0]);
        EXPECT("tirx-test_storage", axe_layout_storage(&l, &out_, &d_),
               st[i][1], i == 2, NULL);
    }
    {
        axe_layout a = tl_axe("Swizzle<4,3,3>(S[1024:1])"),
                   b = tl_axe("Swizzle<4,3,3>(S[(8,128):(128,1)])"),
                   c = tl_axe("S[(8,16):(1,8)]");
        EXPECT("tirx-test_pack-1", axe_layout_pack(&a, 2, &out_, &d_),
               "Swizzle<3,3,3>(S[512:1])", true, NULL);
        EXPECT("tirx-test_pack-2", axe_layout_pack(&b, 2, &out_, &d_),
               "Swizzle<3,3,3>(S[512:1])", true, NULL);
        EXPECT("tirx-test_pack-3", axe_layout_pack(&c, 2, &out_, &d_), NULL,
               false, "can not be packed into 2 elements");
    }
    {
        axe_layout a = tl_axe("S[(8,8):(8,1)]"),
                   b = tl_axe("Swizzle<3,3,3>(S[(8,64):(64,1)])");
        EXPECT("tirx-test_unpack-0", axe_layout_unpack(&a, 2, &out_, &d_),
               "S[128:1]", true, NULL);
        EXPECT("tirx-test_unpack-2", axe_layout_unpack(&b, 2, &out_, &d_),
               "Swizzle<4,3,3>(S[1024:1])", true, NULL);
        EXPECT("tirx-test_pack-4",
               axe_layout_broadcast(&a, 4, -1, "m", &out_, &d_),
               "S[(8,8,4):(8,1,0)]", false, NULL);
        EXPECT("tirx-test_pack-5",
               axe_layout_broadcast(&a, 4, 0, "m", &out_, &d_),
               "S[(4,8,8):(0,8,1)]", false, NULL);
    }
}

static void test_permute_trainium_vectors(void)
{
    axe_layout l = tl_axe("S[(8,8,8,8):(512,8,64,1)]");
    int perm[4] = {2, 3, 0, 1}, seps[3] = {0, 2, 4}, p01[2] = {0, 1},
        p00[2] = {0, 0};
    int64_t s1[3] = {32, 512, 512}, s2[4] = {2, 4, 32, 512};
    EXPECT("tirx-test_permute_by_groups-1",
           axe_layout_permute_dims(&l, perm, 4, &out_, &d_),
           "S[(8,8,8,8):(64,1,512,8)]", false, NULL);
    EXPECT("tirx-test_permute_by_groups-2",
           axe_layout_permute_by_groups(&l, seps, 3, p01, 2, &out_, &d_),
           "S[(8,8,8,8):(512,8,64,1)]", false, NULL);
    EXPECT("tirx-test_permute_by_groups-3",
           axe_layout_permute_by_groups(&l, seps, 3, p00, 2, &out_, &d_), NULL,
           false, "invalid perm");
    EXPECT("tirx-test_size_span-22",
           axe_layout_trainium("FPF", s1, 3, &out_, &d_),
           "S[(32,4,128,512):(512@F,16384@F,1@P,1@F)]", false, NULL);
    EXPECT("tirx-test_size_span-23",
           axe_layout_trainium("FPPF", s2, 4, &out_, &d_),
           "S[(2,4,32,512):(512@F,32@P,1@P,1@F)]", false, NULL);
}

/* axe_layout_trainium_parts: TIRx's rule over a core of "parts"
 * partitions (written by hand from the rule: one P dim above "parts" is
 * split into parts on P and the rest on F with the largest F stride). */
static void test_trainium_parts_vectors(void)
{
    int64_t a[2] = {128, 4}, b[2] = {96, 4}, c[3] = {8, 16, 4},
            e[3] = {32, 512, 512};
    EXPECT("trainium_parts-64-split",
           axe_layout_trainium_parts("PF", a, 2, 64, &out_, &d_),
           "S[(2,64,4):(4@F,1@P,1@F)]", false, NULL);
    EXPECT("trainium_parts-64-fits",
           axe_layout_trainium_parts("PF", a, 2, 128, &out_, &d_),
           "S[(128,4):(1@P,1@F)]", false, NULL);
    EXPECT("trainium_parts-64-not-multiple",
           axe_layout_trainium_parts("PF", b, 2, 64, &out_, &d_), NULL, false,
           "multiple of 64");
    EXPECT("trainium_parts-64-two-P",
           axe_layout_trainium_parts("PPF", c, 3, 64, &out_, &d_), NULL, false,
           "less than or equal to 64");
    EXPECT("trainium_parts-128-is-trainium",
           axe_layout_trainium_parts("FPF", e, 3, 128, &out_, &d_),
           "S[(32,4,128,512):(512@F,16384@F,1@P,1@F)]", false, NULL);
    EXPECT("trainium_parts-0",
           axe_layout_trainium_parts("PF", a, 2, 0, &out_, &d_), NULL, false,
           "at least 1 partition");
}

static void test_tmem_vectors(void)
{
    int64_t d2[2] = {64, 512}, a3[3] = {1, 128, 64}, a2[2] = {64, 64},
            g3[3] = {2, 2, 128}, g2[2] = {4, 128};
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-6",
           axe_layout_tmem_datapath('D', 128, 64, 0, &out_, &d_),
           "S[(128,64):(1@TLane,1@TCol)]", false, NULL);
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-7",
           axe_layout_tmem_datapath('F', 64, 32, 0, &out_, &d_),
           "S[(4,16,32):(32@TLane,1@TLane,1@TCol)]", false, NULL);
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-8",
           axe_layout_tmem_datapath('F', 64, 32, 1, &out_, &d_),
           "S[(4,16,32):(32@TLane,1@TLane,1@TCol)] + 16@TLane", false, NULL);
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-10",
           axe_layout_tmem_datapath('D', 128, 64, 1, &out_, &d_), NULL, false,
           "sub_slab must be 0");
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-1",
           axe_layout_tmem_mma_operand('D', d2, 2, "float32", 128, 2, false, g3,
                                       3, &out_, &d_),
           "S[(64,2,2,128):(1@TLane,128@TCol,64@TLane,1@TCol)]", false, NULL);
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-3",
           axe_layout_tmem_mma_operand('D', d2, 2, "float32", 64, 1, true, g2,
                                       2, &out_, &d_),
           NULL, false, "group must be");
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-4",
           axe_layout_tmem_mma_operand('A', a3, 3, "bfloat16", 128, 1, false,
                                       NULL, 0, &out_, &d_),
           NULL, false, "identity needs 2D");
    EXPECT("tirx-test_tmem_mma_operand_layout_grouped_d-5",
           axe_layout_tmem_mma_operand('A', a2, 2, "float32", 64, 1, false,
                                       NULL, 0, &out_, &d_),
           "S[(64,64):(1@TLane,1@TCol)]", false, NULL);
    EXPECT("tirx-test_wg_local_layout_helper-1",
           axe_layout_wg_local(8, 64, &out_, &d_), "S[(64,8):(1@tid_in_wg,1)]",
           true, NULL);
}

static void test_mma_shared_vectors(void)
{
    int64_t s[3] = {3, 64, 256};
    EXPECT("tirx-test_pool_allocator_alloc_mma-0",
           axe_layout_mma_shared("uint8", 3, s, 3, &out_, &d_),
           "Swizzle<4,3,3>(S[(3,64,2,128):(16384,128,8192,1)])", false, NULL);
    EXPECT("tirx-test_pool_allocator_alloc_mma-2",
           axe_layout_mma_shared("bfloat16", 3, s, 3, &out_, &d_),
           "Swizzle<3,3,3>(S[(3,64,4,64):(16384,64,4096,1)])", false, NULL);
    EXPECT("tirx-test_pool_allocator_alloc_mma-4",
           axe_layout_mma_shared("float4_e2m1fn", 3, s, 3, &out_, &d_),
           "Swizzle<5,3,3>(S[49152:1])", false, NULL);
    EXPECT("tirx-test_pool_allocator_alloc_mma-6",
           axe_layout_mma_shared("float16", 0, s, 3, &out_, &d_),
           "S[(3,64,32,8):(16384,8,512,1)]", false, NULL);
}

/* ---- helper constructors: laws ----------------------------------------- */

/* The point of the per-iter digits "dg" (one per shard iter) plus O. */
static void brute_digits(const axe_layout *l, const int64_t *dg, axe_point *p)
{
    p->n = 0;
    for (int i = 0; i < l->nshard; i++)
        padd(p, l->shard[i].axis, dg[i] * l->shard[i].stride);
    for (int i = 0; i < l->noffset; i++)
        padd(p, l->offset[i].axis, l->offset[i].value);
}

static void random_digits(const axe_layout *l, int64_t *dg)
{
    for (int i = 0; i < l->nshard; i++)
        dg[i] = tl_range(0, l->shard[i].extent - 1);
}

/*
 * Law (unpack): f_{unpack(L,n)}(x n + j) = n D_L(x) + O + j@m for j < n
 * (every shard stride scaled, the offset not, TIRx); with a swizzle and no
 * offset, addr_{M + log2 n}(n a + j) = n addr_M(a) + j gives
 * f_U(x n + j) = n f_L(x) + j. Law (pack inverts unpack):
 * pack(unpack(L, n), n) = L followed by the unit iter (1:1@m).
 */
static void check_pack_unpack(const axe_layout *l, int64_t n)
{
    axe_layout u, back, want = *l, base = *l;
    axe_point pu, pl;
    bool ok = true;
    push_or_die(axe_layout_push_shard(&want, 1, 1, "m"));
    if (axe_layout_unpack(l, n, &u, NULL) != AXE_OK ||
        axe_layout_pack(&u, n, &back, NULL) != AXE_OK) {
        TL_CHECK(0, "unpack/pack of %s by %lld failed", tl_axe_str(l),
                 (long long)n);
        return;
    }
    TL_CHECK(axe_layout_equal(&back, &want), "pack(unpack(%s, %lld)) = %s",
             tl_axe_str(l), (long long)n, tl_axe_str(&back));
    base.noffset = 0;
    for (int t = 0, size = (int)brute_size(&u); ok && t < 64; t++) {
        int64_t y = size <= 64 ? t % size : tl_range(0, size - 1);
        brute_point(&u, y, NULL, &pu);
        brute_point(l->swizzle.present ? l : &base, y / n, NULL, &pl);
        for (int i = 0; i < pl.n; i++)
            pl.v[i] *= n;
        padd(&pl, "m", y % n);
        for (int i = 0; !l->swizzle.present && i < l->noffset; i++)
            padd(&pl, l->offset[i].axis, l->offset[i].value);
        ok = axe_point_equal(&pu, &pl);
    }
    TL_CHECK(ok, "unpack(%s, %lld) = %s is not n f(x) + j", tl_axe_str(l),
             (long long)n, tl_axe_str(&u));
}

/* Law (permute_dims): P = permute_dims(L, p) has f_P(d') = f_L(d) for
 * d'_i = d_{p_i}, and permuting back by p^-1 gives L; permute_by_groups
 * equals permute_dims of the concatenated groups. */
static void check_permute(const axe_layout *l)
{
    int n = l->nshard, p[AXE_LAYOUT_MAX_SHARD], inv[AXE_LAYOUT_MAX_SHARD];
    int seps[3] = {0, n / 2, n}, gp[2] = {1, 0}, flat[AXE_LAYOUT_MAX_SHARD];
    int64_t d[AXE_LAYOUT_MAX_SHARD], dp[AXE_LAYOUT_MAX_SHARD];
    axe_layout pl, back, byg, byd;
    axe_point a, b;
    for (int i = 0; i < n; i++)
        p[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    for (int i = 0; i < n; i++)
        inv[p[i]] = i;
    random_digits(l, d);
    for (int i = 0; i < n; i++)
        dp[i] = d[p[i]];
    for (int i = 0; i < n; i++)
        flat[i] = i < n - n / 2 ? n / 2 + i : i - (n - n / 2);
    if (axe_layout_permute_dims(l, p, n, &pl, NULL) != AXE_OK ||
        axe_layout_permute_dims(&pl, inv, n, &back, NULL) != AXE_OK ||
        axe_layout_permute_by_groups(l, seps, 3, gp, 2, &byg, NULL) != AXE_OK ||
        axe_layout_permute_dims(l, flat, n, &byd, NULL) != AXE_OK) {
        TL_CHECK(0, "permute of %s failed", tl_axe_str(l));
        return;
    }
    brute_digits(l, d, &a);
    brute_digits(&pl, dp, &b);
    TL_CHECK(axe_point_equal(&a, &b) && axe_layout_equal(&back, l) &&
                 axe_layout_equal(&byg, &byd),
             "permute laws on %s", tl_axe_str(l));
}

/* Law (broadcast): inserting (n, 0, axis) at position p leaves the map of
 * the other digits unchanged whatever the new digit; storage keeps exactly
 * the non-thread part: f_{storage(L)}(d restricted) = f_L(d) without its
 * thread axes. */
static void check_broadcast_storage(const axe_layout *l)
{
    int64_t d[AXE_LAYOUT_MAX_SHARD], db[AXE_LAYOUT_MAX_SHARD];
    int64_t ds[AXE_LAYOUT_MAX_SHARD];
    int pos = (int)tl_range(-(l->nshard + 1), l->nshard), at, k = 0;
    axe_layout b, st;
    axe_point pa, pb, ps, pt = {0};
    at = pos >= 0 ? pos : l->nshard + 1 + pos;
    if (axe_layout_broadcast(l, 3, pos, "P", &b, NULL) != AXE_OK ||
        axe_layout_storage(l, &st, NULL) != AXE_OK) {
        TL_CHECK(0, "broadcast/storage of %s failed", tl_axe_str(l));
        return;
    }
    random_digits(l, d);
    for (int i = 0, j = 0; i < b.nshard; i++)
        db[i] = i == at ? tl_range(0, 2) : d[j++];
    for (int i = 0; i < l->nshard; i++)
        if (strcmp(l->shard[i].axis, "laneid") != 0 &&
            strcmp(l->shard[i].axis, "warpid") != 0)
            ds[k++] = d[i];
    brute_digits(l, d, &pa);
    brute_digits(&b, db, &pb);
    brute_digits(&st, ds, &ps);
    for (int i = 0; i < pa.n; i++)
        if (strcmp(pa.axis[i], "laneid") != 0 &&
            strcmp(pa.axis[i], "warpid") != 0)
            padd(&pt, pa.axis[i], pa.v[i]);
    TL_CHECK(axe_point_equal(&pa, &pb) && axe_point_equal(&ps, &pt) &&
                 k == st.nshard,
             "broadcast/storage laws on %s (position %d)", tl_axe_str(l), pos);
}

/* A random annotation of 1..4 dims and a shape for it: F dims 1..16, one P
 * dim up to 512 (a multiple of 128 when above) or several P dims whose
 * product is at most 128. */
static int random_trainium(char *ann, int64_t *shape)
{
    int n = (int)tl_range(1, 4), np = 0;
    int64_t pprod = 1;
    for (int d = 0; d < n; d++) {
        ann[d] = tl_range(0, 2) == 0 ? 'P' : 'F';
        np += ann[d] == 'P';
        shape[d] = tl_range(1, 8);
    }
    ann[n] = '\0';
    for (int d = 0; d < n; d++) {
        if (ann[d] != 'P')
            continue;
        if (np == 1 && tl_range(0, 1))
            shape[d] = 128 * tl_range(1, 4);
        else
            shape[d] = tl_range(1, 128 / pprod < 8 ? 128 / pprod : 8);
        pprod *= shape[d];
    }
    return n;
}

/* The value of "p" on "axis" (0 when absent). */
static int64_t pget(const axe_point *p, const char *axis)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->axis[i], axis) == 0)
            return p->v[i];
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Law (trainium): the layout is injective on the shape and its P values lie
 * in [0, 128); Law (to_psum): F = F' + 512 Bank' and P is unchanged, or a
 * rejection with a reason. */
static void check_trainium(void)
{
    char ann[8];
    int64_t shape[8];
    static int64_t keys[1 << 16];
    int n = random_trainium(ann, shape), nk = 0;
    axe_layout l, ps;
    axe_diag d = {-1, ""};
    bool ok = true, psum;
    if (axe_layout_trainium(ann, shape, n, &l, &d) != AXE_OK) {
        TL_CHECK(0, "trainium(%s): %s", ann, d.message);
        return;
    }
    psum = axe_layout_to_psum(&l, &ps, &d) == AXE_OK;
    TL_CHECK(psum || strstr(d.message, "psum") != NULL,
             "to_psum(%s) rejected without reason", tl_axe_str(&l));
    for (int64_t x = 0; ok && x < brute_size(&l) && nk < (1 << 16); x++) {
        axe_point p, q;
        brute_point(&l, x, NULL, &p);
        keys[nk++] = pget(&p, "F") * 128 + pget(&p, "P");
        ok = pget(&p, "P") >= 0 && pget(&p, "P") < 128;
        if (psum) {
            brute_point(&ps, x, NULL, &q);
            ok = ok && pget(&p, "P") == pget(&q, "P") &&
                 pget(&p, "F") == pget(&q, "F") + 512 * pget(&q, "Bank");
        }
    }
    qsort(keys, (size_t)nk, sizeof keys[0], cmp_i64);
    for (int i = 0; ok && i + 1 < nk; i++)
        ok = keys[i] != keys[i + 1];
    TL_CHECK(ok, "trainium(%s) = %s / psum %s", ann, tl_axe_str(&l),
             psum ? tl_axe_str(&ps) : "-");
}

/* Law (TMEM datapaths, TIRx's docs): with r < rows, c < cols, k = cols/f
 * for the fold f (2 for B/E, 4 for G): A/D lane r, col c; B/E/G lane
 * r + (128/f)(c div k)... (B/E: 64, G: 32), col c mod k; C/F lane
 * 32 (r div 16) + 16 sub_slab + r mod 16, col c. */
static void check_tmem(void)
{
    static const char dps[] = "ABCDEFG";
    char dp = dps[tl_range(0, 6)];
    int fold = dp == 'G' ? 4 : (dp == 'B' || dp == 'E') ? 2 : 1;
    int64_t rows = dp == 'G' ? 32 : (dp == 'A' || dp == 'D') ? 128 : 64;
    int64_t cols = fold * tl_range(1, 8), k = cols / fold;
    int sub = (dp == 'C' || dp == 'F') ? (int)tl_range(0, 1) : 0;
    axe_layout l;
    bool ok = true;
    if (axe_layout_tmem_datapath(dp, rows, cols, sub, &l, NULL) != AXE_OK) {
        TL_CHECK(0, "tmem_datapath(%c, %lld) failed", dp, (long long)cols);
        return;
    }
    for (int64_t r = 0; ok && r < rows; r++)
        for (int64_t c = 0; ok && c < cols; c++) {
            axe_point p;
            int64_t lane = r + (fold == 1 ? 0 : (128 / fold) * (c / k));
            if (dp == 'C' || dp == 'F')
                lane = 32 * (r / 16) + 16 * sub + r % 16;
            brute_point(&l, r * cols + c, NULL, &p);
            ok = pget(&p, "TLane") == lane && pget(&p, "TCol") == c % k;
        }
    TL_CHECK(ok, "tmem_datapath(%c, %lld, sub %d) = %s", dp, (long long)cols,
             sub, tl_axe_str(&l));
}

static void test_helper_laws(void)
{
    for (int iter = 0; iter < 2000; iter++) {
        int64_t shape[3];
        int n;
        bool sw = iter % 4 == 0;
        axe_layout l = random_layout(shape, &n, sw);
        if (sw)
            random_swizzle(&l);
        check_pack_unpack(&l,
                          sw ? (int64_t)1 << tl_range(0, 2) : tl_range(1, 4));
        if (!sw) {
            check_permute(&l);
            check_broadcast_storage(&l);
        }
        if (iter % 8 == 0) {
            check_trainium();
            check_tmem();
        }
    }
}

int main(void)
{
    tl_seed("test_layout_slice", 20260115);
    test_slice_vectors();
    test_slice_rejects();
    test_slice_laws();
    test_slice_complete_1d();
    test_slice_large_1d();
    test_slice_capped();
    test_conversions();
    test_storage_pack_vectors();
    test_permute_trainium_vectors();
    test_trainium_parts_vectors();
    test_tmem_vectors();
    test_mma_shared_vectors();
    test_helper_laws();
    return tl_finish();
}
