/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Axe layout model: the axis registry, size, span, the forward maps
 * (base point, per-iter digits, with a shape, the paper's set), the
 * backward map, scopes and well-formedness. Three parts: tables (the
 * registry, the paper's worked examples), every case of the model's ops in
 * ../shared/vectors/axe.jsonl (read at run time from $AXE_SHARED_DIR; exit
 * 77 when it is missing), and laws on seeded random layouts checked
 * against an independent reference evaluation and brute-force search.
 */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include "axe/linear.h"
#include "json.h"
#include "layout_internal.h"
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

static const char *pstr(const axe_point *p)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    axe_print_point(p, buf[k], sizeof buf[k]);
    return buf[k];
}

/* A point from "axis=v,axis=v" text. */
static axe_point pt(const char *s)
{
    axe_point p = {0};
    char name[32];
    long long v;
    int used;
    while (*s != '\0' &&
           sscanf(s, " %31[A-Za-z0-9_] = %lld%n", name, &v, &used) == 2) {
        if (axe_point_add(&p, name, v) != AXE_OK)
            exit(2);
        s += used;
        if (*s == ',')
            s++;
    }
    return p;
}

/* ---- the registry ------------------------------------------------------- */

static void test_registry(void)
{
    static const struct {
        const char *name;
        axe_axis_kind kind;
        axe_scope scope, sub;
        bool registered;
    } rows[] = {
        {"bx", AXE_AXIS_THREAD, AXE_SCOPE_THREAD, AXE_SCOPE_CTA, true},
        {"cbz", AXE_AXIS_THREAD, AXE_SCOPE_CLUSTER, AXE_SCOPE_CTA, true},
        {"tx", AXE_AXIS_THREAD, AXE_SCOPE_CTA, AXE_SCOPE_THREAD, true},
        {"warpid", AXE_AXIS_THREAD, AXE_SCOPE_CTA, AXE_SCOPE_WARP, true},
        {"laneid", AXE_AXIS_THREAD, AXE_SCOPE_WARP, AXE_SCOPE_THREAD, true},
        {"wgid", AXE_AXIS_THREAD, AXE_SCOPE_CTA, AXE_SCOPE_WARPGROUP, true},
        {"tid_in_wg", AXE_AXIS_THREAD, AXE_SCOPE_WARPGROUP, AXE_SCOPE_THREAD,
         true},
        {"wid_in_wg", AXE_AXIS_THREAD, AXE_SCOPE_WARPGROUP, AXE_SCOPE_WARP,
         true},
        {"lane", AXE_AXIS_THREAD, AXE_SCOPE_WARP, AXE_SCOPE_THREAD, true},
        {"warp", AXE_AXIS_THREAD, AXE_SCOPE_CTA, AXE_SCOPE_WARP, true},
        {"m", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"TLane", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"reg", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"Col", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"gpuid", AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"device", AXE_AXIS_DEVICE, AXE_SCOPE_NONE, AXE_SCOPE_NONE, true},
        {"foo", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, false},
        {"0", AXE_AXIS_MEMORY, AXE_SCOPE_NONE, AXE_SCOPE_NONE, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_axis_info a;
        axe_status st = axe_axis_lookup(rows[i].name, &a, NULL);
        TL_CHECK(st == AXE_OK && a.kind == rows[i].kind &&
                     a.scope == rows[i].scope && a.subscope == rows[i].sub &&
                     a.registered == rows[i].registered &&
                     strcmp(a.name, rows[i].name) == 0,
                 "axis_lookup(%s): st %d kind %s scope %s sub %s", rows[i].name,
                 st, axe_axis_kind_name(a.kind), axe_scope_name(a.scope),
                 axe_scope_name(a.subscope));
    }
}

static void test_registry_errors(void)
{
    static const char *bad[] = {"", "a-b", "0123456789abcdef", "x y", "é"};
    axe_axis_info a;
    axe_diag d;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        TL_CHECK(axe_axis_lookup(bad[i], &a, &d) == AXE_ERR_INVALID &&
                     d.message[0] != '\0',
                 "lookup(\"%s\") must fail", bad[i]);
    TL_CHECK(axe_axis_lookup(NULL, &a, NULL) == AXE_ERR_INVALID, "NULL");
    TL_CHECK(strcmp(axe_scope_name(AXE_SCOPE_WARPGROUP), "warpgroup") == 0 &&
                 strcmp(axe_scope_name(AXE_SCOPE_NONE), "none") == 0 &&
                 strcmp(axe_scope_name(AXE_SCOPE_KERNEL), "kernel") == 0,
             "scope names");
    TL_CHECK(strcmp(axe_axis_kind_name(AXE_AXIS_DEVICE), "device") == 0 &&
                 strcmp(axe_axis_kind_name(AXE_AXIS_MEMORY), "memory") == 0 &&
                 strcmp(axe_axis_kind_name(AXE_AXIS_THREAD), "thread") == 0,
             "kind names");
}

static void test_declare(void)
{
    axe_axis_info a;
    axe_diag d;
    TL_CHECK(axe_axis_declare("node", AXE_AXIS_DEVICE, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, &d) == AXE_OK,
             "declare node: %s", d.message);
    TL_CHECK(axe_axis_lookup("node", &a, NULL) == AXE_OK &&
                 a.kind == AXE_AXIS_DEVICE && a.registered,
             "node is a device axis");
    TL_CHECK(axe_axis_declare("node", AXE_AXIS_DEVICE, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, NULL) == AXE_OK,
             "same redeclaration is fine");
    TL_CHECK(axe_axis_declare("node", AXE_AXIS_MEMORY, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, &d) == AXE_ERR_INVALID,
             "different redeclaration fails");
    TL_CHECK(axe_axis_declare("qid", AXE_AXIS_THREAD, AXE_SCOPE_THREAD,
                              AXE_SCOPE_WARP, NULL) == AXE_OK,
             "declare a thread axis");
    TL_CHECK(axe_axis_lookup("qid", &a, NULL) == AXE_OK &&
                 a.kind == AXE_AXIS_THREAD && a.scope == AXE_SCOPE_WARP &&
                 a.subscope == AXE_SCOPE_THREAD,
             "qid: thread -> warp");
    TL_CHECK(axe_axis_declare("bad", AXE_AXIS_THREAD, AXE_SCOPE_WARP,
                              AXE_SCOPE_THREAD, &d) == AXE_ERR_INVALID,
             "scope must be wider than subscope");
    TL_CHECK(axe_axis_declare("laneid", AXE_AXIS_MEMORY, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, &d) == AXE_ERR_INVALID,
             "built-in axes cannot change");
    TL_CHECK(axe_axis_declare("laneid", AXE_AXIS_THREAD, AXE_SCOPE_THREAD,
                              AXE_SCOPE_WARP, &d) == AXE_OK,
             "declaring a built-in as it is is fine");
    TL_CHECK(axe_axis_declare("a-b", AXE_AXIS_DEVICE, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, &d) == AXE_ERR_INVALID,
             "bad name");
}

/* Filling the declaration table ends in CAPACITY, never overflow. */
static void test_declare_capacity(void)
{
    axe_status st = AXE_OK;
    int k;
    for (k = 0; k < AXE_AXIS_DECLARED_MAX + 2 && st == AXE_OK; k++) {
        char name[16];
        snprintf(name, sizeof name, "dev%d", k);
        st = axe_axis_declare(name, AXE_AXIS_DEVICE, AXE_SCOPE_NONE,
                              AXE_SCOPE_NONE, NULL);
    }
    TL_CHECK(st == AXE_ERR_CAPACITY && k <= AXE_AXIS_DECLARED_MAX,
             "declaration table fills with CAPACITY (st %d after %d)", st, k);
}

/* ---- size, span, apply tables ------------------------------------------ */

static void test_size_span(void)
{
    /* span: the paper's (|s|, no offset); tspan: TIRx's */
    static const struct {
        const char *l, *axis;
        int64_t size, span, tspan;
    } rows[] = {
        {"S[(8,8):(8,1)]", NULL, 64, 64, 64},
        {"S[():()]", NULL, 1, 1, 1},
        {"S[():()] + 5", NULL, 1, 1, 6},
        {"S[(4,2):(2,1)] + R[2:100] + 5", NULL, 8, 108, 113},
        {"S[4:-1]", NULL, 4, 4, -2},
        {"S[(2,3):(1@tx,1)] + R[4:1@tx]", NULL, 6, 3, 3},
        {"S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", NULL, 28672, 351, 351},
        {"S[(2,128,112):(112@TCol,1@TLane,1@TCol)]", "TCol", 224, 224, 224},
        {"S[8:4@laneid] + R[4:1@laneid] + 1@laneid", "laneid", 8, 32, 33},
        {"S[(8,8):(8,1)]", "laneid", 1, 1, 1},
        {"S[(2,32,128):(1@gpuid,128,1)] + R[2:2@gpuid]", "gpuid", 2, 4, 4},
        {"S[(2,32,128):(1@gpuid,128,1)] + R[2:2@gpuid]", NULL, 8192, 4096,
         4096},
        {"S[(4,4):(1@foo,4@foo)] + 3@foo", NULL, 16, 16, 19},
        {"S[(4,4):(1@gpuid,4)]", NULL, 16, 13, 13},
        {"S[(2,4):(-4,1)] + R[2:-16] + -3", NULL, 8, 24, -19},
        {"Swizzle<3,3,3>(S[(8,64):(64,1)])", NULL, 512, 512, 512},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        int64_t size = 0, span = 0, tspan = 0;
        axe_status a = axe_layout_size(&l, rows[i].axis, &size);
        axe_status b = axe_layout_span(&l, rows[i].axis, &span);
        axe_status c =
            axe_layout_span_rule(&l, rows[i].axis, AXE_RULE_TIRX, &tspan);
        TL_CHECK(a == AXE_OK && b == AXE_OK && c == AXE_OK &&
                     size == rows[i].size && span == rows[i].span &&
                     tspan == rows[i].tspan,
                 "%s axis %s: size %lld span %lld tirx %lld (want %lld %lld "
                 "%lld)",
                 rows[i].l, rows[i].axis ? rows[i].axis : "-", (long long)size,
                 (long long)span, (long long)tspan, (long long)rows[i].size,
                 (long long)rows[i].span, (long long)rows[i].tspan);
    }
}

static void test_size_span_errors(void)
{
    axe_layout l = lay("Swizzle<3,3,3>(S[512:1])");
    axe_layout big = lay("S[(4294967296,4294967296):(1,1)]");
    int64_t v;
    TL_CHECK(axe_layout_size(&l, "m", &v) == AXE_ERR_INVALID,
             "axis_name is not supported for compose layout (size)");
    TL_CHECK(axe_layout_span(&l, "m", &v) == AXE_ERR_INVALID,
             "axis_name is not supported for compose layout (span)");
    TL_CHECK(axe_layout_size(&big, NULL, &v) == AXE_ERR_OVERFLOW,
             "size overflow");
    TL_CHECK(axe_layout_span(&big, "m", &v) == AXE_OK, "span fits");
    TL_CHECK(axe_layout_span(&big, "a-b", &v) == AXE_ERR_INVALID,
             "bad axis name");
}

/* A point of "l" by the dispatch of the vectors: one coordinate without a
 * shape is linear, several are per-iter digits. */
static axe_status apply_any(const axe_layout *l, const int64_t *crd, int n,
                            const int64_t *shape, axe_point *out, axe_diag *d)
{
    if (shape != NULL)
        return axe_layout_apply_shape(l, crd, shape, n, out, d);
    if (n == 1)
        return axe_layout_apply_base(l, crd[0], out, d);
    return axe_layout_apply_digits(l, crd, n, out, d);
}

static void test_apply_table(void)
{
    static const struct {
        const char *l;
        int n;
        int64_t crd[4], shape[4];
        const char *expect; /* NULL: DOMAIN with the reason */
    } rows[] = {
        /* the paper's §2.2 tensor-core tile, element (2, 9) of 8x16 */
        {"S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp",
         2,
         {2, 9},
         {8, 16},
         "warp=6,lane=8,reg=1"},
        {"S[(8,8):(8,1)]", 1, {32}, {0}, "m=32"},
        {"S[(8,8):(8,1)]", 1, {100}, {0}, "m=100"},
        /* past the size the outermost digit absorbs the rest (spec §6);
         * a negative index is outside the domain */
        {"S[(8,8):(8,1)]", 1, {-1}, {0}, NULL},
        {"S[8:1] + 3", 1, {INT64_MIN}, {0}, NULL},
        {"S[(8,8):(8,1)]", 2, {1, 2}, {0}, "m=10"},
        {"S[(8,8):(10,1)]", 1, {9}, {0}, "m=11"},
        {"S[(8,1,4,2):(4@laneid,2,1@laneid,1)]",
         4,
         {1, 1, 1, 1},
         {0},
         "laneid=5,m=3"},
        {"S[8:4@laneid] + 1@laneid + 2@warpid",
         1,
         {3},
         {0},
         "laneid=13,warpid=2"},
        {"Swizzle<3,3,3>(S[512:1])", 1, {720}, {0}, "m=712"},
        {"Swizzle<3,3,3>(S[(8,8):(64,1)] + -3)", 1, {9}, {0}, "m=62"},
        {"Swizzle<3,3,3,outer>(S[(8,8):(64,1)] + 8)", 2, {2, 0}, {0}, "m=200"},
        {"Swizzle<3,3,3>(S[(1,8,8):(-1,64,1)] + 8)", 3, {5, 1, 0}, {0}, "m=64"},
        {"S[(2,128,112):(112@Col,1@Lane,1@Col)]",
         3,
         {1, 127, 111},
         {2, 128, 112},
         "Col=223,Lane=127"},
        {"S[(16,4,4):(16,4,1)]", 2, {5, 7}, {16, 16}, "m=87"},
        {"S[():()] + 4@warpid", 1, {7}, {0}, "warpid=4"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        axe_point got, want;
        axe_diag d;
        const int64_t *shape = rows[i].shape[0] != 0 ? rows[i].shape : NULL;
        axe_status st = apply_any(&l, rows[i].crd, rows[i].n, shape, &got, &d);
        if (rows[i].expect == NULL) {
            TL_CHECK(st == AXE_ERR_DOMAIN &&
                         strstr(d.message, "negative") != NULL,
                     "apply %s at %lld: st %d (%s), want DOMAIN with a reason",
                     rows[i].l, (long long)rows[i].crd[0], st,
                     st == AXE_OK ? "" : d.message);
            continue;
        }
        want = pt(rows[i].expect);
        TL_CHECK(st == AXE_OK && axe_point_equal(&got, &want),
                 "apply %s: got %s (st %d %s), want %s", rows[i].l,
                 st == AXE_OK ? pstr(&got) : "-", st,
                 st == AXE_OK ? "" : d.message, pstr(&want));
    }
}

static void test_apply_errors(void)
{
    axe_layout l = lay("S[(8,8):(8,1)]");
    axe_layout sw = lay("Swizzle<3,3,3>(S[(8,8):(8,1@laneid)])");
    axe_layout big = lay("S[(4,2305843009213693952):(4611686018427387904,1)]");
    int64_t c3[3] = {1, 1, 1}, shape[2] = {8, 0}, neg = -1;
    axe_point p, set[2];
    axe_diag d;
    int count = 0;
    TL_CHECK(axe_layout_apply_digits(&l, c3, 3, &p, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "Coordinate size must match the number "
                                   "of shard axes") != NULL,
             "digit count: %s", d.message);
    TL_CHECK(axe_layout_apply_shape(&l, c3, shape, 2, &p, &d) ==
                 AXE_ERR_INVALID,
             "shape extent 0");
    TL_CHECK(axe_layout_apply_base(&sw, 3, &p, &d) == AXE_ERR_INVALID,
             "a swizzled tile must map to m only");
    TL_CHECK(axe_layout_apply_base(&big, 4611686018427387904, &p, &d) ==
                 AXE_ERR_OVERFLOW,
             "overflow is reported: %s", d.message);
    TL_CHECK(axe_layout_apply_set(&l, &neg, NULL, 1, set, 2, &count, &d) ==
                     AXE_ERR_DOMAIN &&
                 strstr(d.message, "index -1 is negative") != NULL,
             "apply_set of a negative linear index: %s", d.message);
}

/* The points of S[4:1] + R[(2,3):(1@gpuid,10@gpuid)] at 1, last replica
 * iter fastest. */
static bool gpuid_order(const axe_point *out)
{
    static const int64_t want[6] = {0, 10, 20, 1, 11, 21};
    for (int j = 0; j < 6; j++) {
        axe_point w = {0};
        if (axe_point_add(&w, "m", 1) != AXE_OK ||
            axe_point_add(&w, "gpuid", want[j]) != AXE_OK ||
            !axe_point_equal(&out[j], &w))
            return false;
    }
    return true;
}

/* A replica-free set has one point: a capacity below 1 is refused and
 * nothing is written (Python's apply_set(x, None, 0) wrote one point past a
 * zero-length buffer). */
static void apply_set_capacity_without_replicas(void)
{
    axe_layout one = lay("S[(2,8):(1,2)]");
    axe_point out[2], mark = pt("laneid=7");
    int64_t x = 3;
    int count = -1;
    for (int cap = -1; cap <= 0; cap++) {
        out[0] = mark;
        TL_CHECK(axe_layout_apply_set(&one, &x, NULL, 1, out, cap, &count,
                                      NULL) == AXE_ERR_CAPACITY &&
                     count == -1 && axe_point_equal(&out[0], &mark),
                 "capacity %d refused, nothing written", cap);
    }
    TL_CHECK(axe_layout_apply_set(&one, &x, NULL, 1, out, 1, &count, NULL) ==
                     AXE_OK &&
                 count == 1,
             "capacity 1 holds the one point");
}

/* The paper's (a) example as a set, and a replica-free set of one point. */
static void test_apply_set_table(void)
{
    axe_layout l = lay("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + "
                       "R[2:4@warpid] + 5@warpid");
    axe_layout two = lay("S[4:1] + R[(2,3):(1@gpuid,10@gpuid)]");
    int64_t crd[2] = {2, 9}, shape[2] = {8, 16}, x = 1;
    axe_point out[8], a = pt("laneid=8,warpid=6,m=1"),
                      b = pt("laneid=8,warpid=10,m=1");
    int count = 0;
    TL_CHECK(axe_layout_apply_set(&l, crd, shape, 2, out, 8, &count, NULL) ==
                     AXE_OK &&
                 count == 2 && axe_point_equal(&out[0], &a) &&
                 axe_point_equal(&out[1], &b),
             "paper (a): {warp 6, warp 10}");
    TL_CHECK(axe_layout_apply_set(&two, &x, NULL, 1, out, 8, &count, NULL) ==
                     AXE_OK &&
                 count == 6 && gpuid_order(out),
             "lexicographic replica order");
    TL_CHECK(axe_layout_apply_set(&two, &x, NULL, 1, out, 5, &count, NULL) ==
                 AXE_ERR_CAPACITY,
             "capacity");
    apply_set_capacity_without_replicas();
}

/* ---- the paper's worked examples ---------------------------------------- */

/* apply_set rows of the paper's examples, expected points worked out by
 * hand from L(x) = { D(x) + r + O } (spec §6), in replica order: the
 * Trainium SBUF layout (c) (partition P, free axis F: element (i, j, k) at
 * F = 512 i + k, P = j), the 2x2 GPU mesh (b) fully sharded (row r, column
 * c on gpuid r/32 + 2 (c/64), m = 128 (r mod 32) + c mod 64) and sharded on
 * rows, replicated over the other mesh dimension (gpuid r/32 and r/32 + 2,
 * m = 128 (r mod 32) + c), and the Blackwell TMEM layout (d) (element
 * (i, j, k) at TMEM lane j, column 112 i + k). */
static void test_paper_apply_rows(void)
{
    static const char sbuf[] = "S[(2,128,512):(512@F,1@P,1@F)]",
                      sharded[] = "S[(2,32,2,64):(1@gpuid,128@m,2@gpuid,1@m)]",
                      replicated[] =
                          "S[(2,32,128):(1@gpuid,128@m,1@m)] + R[2:2@gpuid]",
                      tmem[] = "S[(2,128,112):(112@Col,1@Lane,1@Col)]";
    static const struct {
        const char *l;
        int n;
        int64_t crd[3], shape[3];
        const char *expect[2];
    } rows[] = {
        {sbuf, 3, {0, 0, 0}, {2, 128, 512}, {"F=0,P=0", NULL}},
        {sbuf, 3, {0, 5, 3}, {2, 128, 512}, {"F=3,P=5", NULL}},
        {sbuf, 3, {1, 0, 0}, {2, 128, 512}, {"F=512,P=0", NULL}},
        {sbuf, 3, {1, 64, 256}, {2, 128, 512}, {"F=768,P=64", NULL}},
        {sbuf, 3, {1, 127, 511}, {2, 128, 512}, {"F=1023,P=127", NULL}},
        {sharded, 2, {0, 64}, {64, 128}, {"gpuid=2,m=0", NULL}},
        {sharded, 2, {63, 127}, {64, 128}, {"gpuid=3,m=4031", NULL}},
        {sharded, 2, {40, 100}, {64, 128}, {"gpuid=3,m=1060", NULL}},
        {replicated, 2, {0, 0}, {64, 128}, {"gpuid=0,m=0", "gpuid=2,m=0"}},
        {replicated,
         2,
         {31, 63},
         {64, 128},
         {"gpuid=0,m=4031", "gpuid=2,m=4031"}},
        {replicated, 2, {32, 0}, {64, 128}, {"gpuid=1,m=0", "gpuid=3,m=0"}},
        {replicated,
         2,
         {40, 100},
         {64, 128},
         {"gpuid=1,m=1124", "gpuid=3,m=1124"}},
        {replicated,
         2,
         {63, 127},
         {64, 128},
         {"gpuid=1,m=4095", "gpuid=3,m=4095"}},
        {tmem, 3, {0, 0, 0}, {2, 128, 112}, {"Col=0,Lane=0", NULL}},
        {tmem, 3, {0, 5, 3}, {2, 128, 112}, {"Col=3,Lane=5", NULL}},
        {tmem, 3, {1, 0, 0}, {2, 128, 112}, {"Col=112,Lane=0", NULL}},
        {tmem, 3, {1, 100, 50}, {2, 128, 112}, {"Col=162,Lane=100", NULL}},
        {tmem, 3, {1, 127, 111}, {2, 128, 112}, {"Col=223,Lane=127", NULL}},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        axe_point out[4];
        int count = 0, want = rows[i].expect[1] != NULL ? 2 : 1;
        axe_status st = axe_layout_apply_set(&l, rows[i].crd, rows[i].shape,
                                             rows[i].n, out, 4, &count, NULL);
        bool ok = st == AXE_OK && count == want;
        for (int k = 0; ok && k < want; k++) {
            axe_point w = pt(rows[i].expect[k]);
            ok = axe_point_equal(&out[k], &w);
        }
        TL_CHECK(ok,
                 "paper apply_set %s at (%lld,%lld,...): %d points, first "
                 "%s, want %s",
                 rows[i].l, (long long)rows[i].crd[0],
                 (long long)rows[i].crd[1], count,
                 st == AXE_OK && count > 0 ? pstr(&out[0]) : "-",
                 rows[i].expect[0]);
    }
}

/* The paper's (c) comes from TIRx's constructor: a P dim of 256 splits
 * into 2 on F (outside the F dim of 512) and 128 on P. Blackwell TMEM
 * datapath C (64 rows, spec §12): row r sits in lane 32 (r / 16) + r mod
 * 16 (16 lanes of each warp's 32), column c in TMEM column c; sub-slab 1
 * moves it 16 lanes on. */
static void test_paper_constructors(void)
{
    static const int64_t pf[2] = {256, 512}, dp[2] = {64, 32};
    static const struct {
        int64_t crd[2];
        int sub_slab;
        const char *expect;
    } rows[] = {
        {{0, 0}, 0, "TLane=0,TCol=0"},   {{15, 7}, 0, "TLane=15,TCol=7"},
        {{17, 5}, 0, "TLane=33,TCol=5"}, {{63, 31}, 0, "TLane=111,TCol=31"},
        {{17, 5}, 1, "TLane=49,TCol=5"}, {{48, 0}, 1, "TLane=112,TCol=0"},
    };
    axe_layout t, want = lay("S[(2,128,512):(512@F,1@P,1@F)]");
    TL_CHECK(axe_layout_trainium("PF", pf, 2, &t, NULL) == AXE_OK &&
                 axe_layout_equal(&t, &want),
             "trainium(PF, [256,512]) = %s, want the paper's (c)", lstr(&t));
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l;
        axe_point got, w = pt(rows[i].expect);
        bool ok = axe_layout_tmem_datapath('C', 64, 32, rows[i].sub_slab, &l,
                                           NULL) == AXE_OK &&
                  axe_layout_apply_shape(&l, rows[i].crd, dp, 2, &got, NULL) ==
                      AXE_OK &&
                  axe_point_equal(&got, &w);
        TL_CHECK(ok, "tmem datapath C (sub_slab %d) at (%lld,%lld): want %s",
                 rows[i].sub_slab, (long long)rows[i].crd[0],
                 (long long)rows[i].crd[1], rows[i].expect);
    }
}

/* The basis of input bit "i" of "lin" (one input) on output "axis". */
static int64_t basis_on(const axe_linear *lin, int i, const char *axis)
{
    for (int o = 0; o < lin->nout; o++)
        if (strcmp(lin->out_name[o], axis) == 0)
            return lin->basis[0][i][o];
    return 0;
}

/* §3.1: one layout, two views. S[(4,2,4):(2,1,8)] is the CuTe layout
 * (4,2,4):(8,1,2) (modes reversed: CuTe is colexicographic) and the
 * Triton linear layout whose index bits 0..4 go to 8, 16, 1, 2, 4 (the
 * inner iter (4, 8) owns bits 0-1, (2, 1) bit 2, (4, 2) bits 3-4); all
 * three agree at every index. The paper's (a) layout on lanes and warps,
 * S[(8,2,4,2):(4@lane,1@warp,1@lane,1)], is Triton's distributed layout
 * with index bits 0..6 on m 1, lane 1, lane 2, warp 1, lane 4, 8, 16. */
static void test_paper_views(void)
{
    static const int64_t mem_bits[5] = {8, 16, 1, 2, 4};
    static const char *const a_axis[7] = {"m",    "lane", "lane", "warp",
                                          "lane", "lane", "lane"};
    static const int64_t a_bits[7] = {1, 1, 2, 1, 4, 8, 16};
    axe_layout l = lay("S[(4,2,4):(2,1,8)]");
    axe_layout a = lay("S[(8,2,4,2):(4@lane,1@warp,1@lane,1)]");
    axe_cute_layout c;
    axe_linear lin, la;
    char buf[128];
    bool ok = axe_layout_to_cute(&l, &c, NULL) == AXE_OK &&
              axe_linear_from_layout(&l, NULL, 0, &lin, NULL) == AXE_OK &&
              lin.nin == 1 && lin.in_bits[0] == 5;
    axe_print_cute_layout(&c, buf, sizeof buf);
    TL_CHECK(ok && strcmp(buf, "(4,2,4):(8,1,2)") == 0,
             "CuTe view of S[(4,2,4):(2,1,8)]: %s", buf);
    for (int i = 0; ok && i < 5; i++)
        TL_CHECK(basis_on(&lin, i, "m") == mem_bits[i],
                 "Triton view: bit %d on m is %lld, want %lld", i,
                 (long long)basis_on(&lin, i, "m"), (long long)mem_bits[i]);
    for (int64_t x = 0; ok && x < 32; x++) {
        axe_point p;
        int64_t cx = 0, tx = 0;
        ok = axe_layout_apply_base(&l, x, &p, NULL) == AXE_OK &&
             axe_cute_eval(&c, x, &cx) == AXE_OK &&
             axe_linear_apply(&lin, &x, &tx) == AXE_OK &&
             axe__point_get(&p, axe__name_m.s) == cx && cx == tx;
        TL_CHECK(ok, "the three views differ at index %lld", (long long)x);
    }
    TL_CHECK(axe_linear_from_layout(&a, NULL, 0, &la, NULL) == AXE_OK &&
                 la.in_bits[0] == 7,
             "Triton view of the paper's (a)");
    for (int i = 0; i < 7; i++)
        TL_CHECK(basis_on(&la, i, a_axis[i]) == a_bits[i],
                 "Triton view of (a): bit %d on %s is %lld, want %lld", i,
                 a_axis[i], (long long)basis_on(&la, i, a_axis[i]),
                 (long long)a_bits[i]);
}

/* ---- scopes and well-formedness ----------------------------------------- */

static void test_scope_table(void)
{
    static const struct {
        const char *l;
        axe_status st;
        bool has;
        axe_scope sub, scope;
        const char *msg;
    } rows[] = {
        {"S[8:1@laneid]", AXE_OK, true, AXE_SCOPE_THREAD, AXE_SCOPE_WARP, NULL},
        {"S[(2,32):(1@warpid,1@laneid)]", AXE_OK, true, AXE_SCOPE_THREAD,
         AXE_SCOPE_CTA, NULL},
        {"S[(2,32):(1@wid_in_wg,1@laneid)]", AXE_OK, true, AXE_SCOPE_THREAD,
         AXE_SCOPE_WARPGROUP, NULL},
        {"S[(2,32):(1@lane,1@warp)]", AXE_OK, true, AXE_SCOPE_THREAD,
         AXE_SCOPE_CTA, NULL},
        {"S[4:1@warpid]", AXE_OK, true, AXE_SCOPE_WARP, AXE_SCOPE_CTA, NULL},
        {"S[4:1@cbx]", AXE_OK, true, AXE_SCOPE_CTA, AXE_SCOPE_CLUSTER, NULL},
        {"S[4:1@bx]", AXE_OK, true, AXE_SCOPE_CTA, AXE_SCOPE_THREAD, NULL},
        {"S[8:1]", AXE_OK, false, AXE_SCOPE_NONE, AXE_SCOPE_NONE, NULL},
        {"S[8:1] + R[4:1@laneid]", AXE_OK, false, AXE_SCOPE_NONE,
         AXE_SCOPE_NONE, NULL},
        {"S[8:1@gpuid]", AXE_OK, false, AXE_SCOPE_NONE, AXE_SCOPE_NONE, NULL},
        {"S[8:1@laneid] + 2@warpid", AXE_OK, true, AXE_SCOPE_THREAD,
         AXE_SCOPE_CTA, NULL},
        {"S[(2,32):(1@wgid,1@laneid)]", AXE_ERR_INVALID, false, 0, 0,
         "Ill-formed tile layout: disconnected scope chain"},
        {"S[(2,32):(1@tx,1@laneid)]", AXE_ERR_INVALID, false, 0, 0,
         "Ill-formed tile layout: conflicting scopes for thread"},
        {"S[(2,32):(1@bx,1@tx)]", AXE_ERR_INVALID, false, 0, 0,
         "Ill-formed tile layout: cyclic scope chain"},
        {"S[8:1@laneid] + R[2:1@bx] + 1@tx", AXE_ERR_INVALID, false, 0, 0,
         "Ill-formed tile layout: conflicting scopes for thread"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        bool has = false;
        axe_scope sub = AXE_SCOPE_KERNEL, scope = AXE_SCOPE_KERNEL;
        axe_diag d = {0};
        axe_status st = axe_layout_get_scope(&l, &has, &sub, &scope, &d);
        axe_status wf = axe_layout_verify_well_formed(&l, NULL);
        bool ok = st == rows[i].st && wf == rows[i].st;
        if (ok && st == AXE_OK)
            ok = has == rows[i].has &&
                 (!has || (sub == rows[i].sub && scope == rows[i].scope));
        if (ok && st != AXE_OK)
            ok = strstr(d.message, rows[i].msg) != NULL;
        TL_CHECK(ok, "get_scope %s: st %d has %d (%s, %s) %s", rows[i].l, st,
                 has, axe_scope_name(sub), axe_scope_name(scope), d.message);
    }
}

static void test_well_formed_swizzle(void)
{
    static const int32_t rows[][4] = {
        /* M, B, S, ok */
        {3, 3, 3, 1},  {0, 0, 0, 1}, {4, 2, 5, 1},  {-1, 3, 3, 0},
        {3, -1, 3, 0}, {3, 3, 2, 0}, {63, 0, 0, 0}, {0, 31, 32, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay("S[64:1]");
        axe_diag d;
        axe_status st;
        l.swizzle.present = true;
        l.swizzle.inner = true;
        l.swizzle.per_element = rows[i][0];
        l.swizzle.len = rows[i][1];
        l.swizzle.atom = rows[i][2];
        st = axe_layout_verify_well_formed(&l, &d);
        TL_CHECK(rows[i][3] ? st == AXE_OK
                            : st == AXE_ERR_INVALID &&
                                  strstr(d.message, "The compose layout is "
                                                    "not well-formed") != NULL,
                 "Swizzle<%d,%d,%d>: st %d", rows[i][0], rows[i][1], rows[i][2],
                 st);
    }
}

/* ---- the shared vectors ------------------------------------------------- */

typedef enum verdict { V_FAIL, V_PASS, V_NOT_MINE } verdict;

typedef struct vcase {
    const char *id, *op;
    const json_value *args, *expect;
    bool expect_error;
    char why[512];
} vcase;

static const char *arg_str(const vcase *c, const char *key)
{
    return json_get_string(json_object_get(c->args, key), NULL);
}

/* args.layout, with args.swizzle_inner applied. */
static bool arg_layout(vcase *c, const char *key, axe_layout *l)
{
    const char *s = arg_str(c, key);
    const json_value *inner = json_object_get(c->args, "swizzle_inner");
    axe_diag d;
    int flag;
    if (s == NULL || axe_parse_layout(s, strlen(s), l, &d) != AXE_OK) {
        snprintf(c->why, sizeof c->why, "cannot parse %s: %s", s ? s : "(none)",
                 s ? d.message : "");
        return false;
    }
    if (inner != NULL && json_get_bool(inner, &flag) == JSON_OK)
        l->swizzle.inner = flag != 0;
    return true;
}

/* An integer list argument (absent: *n = -1). */
static bool arg_ints(const json_value *v, int64_t *out, int cap, int *n)
{
    *n = -1;
    if (v == NULL)
        return true;
    if ((int)json_array_len(v) > cap)
        return false;
    *n = (int)json_array_len(v);
    for (int i = 0; i < *n; i++)
        if (json_get_int(json_array_at(v, (size_t)i), &out[i]) != JSON_OK)
            return false;
    return true;
}

static bool json_to_point(const json_value *v, axe_point *p)
{
    p->n = 0;
    if (!json_is_object(v))
        return false;
    for (size_t i = 0; i < json_object_len(v); i++) {
        int64_t x;
        if (json_get_int(json_object_value_at(v, i), &x) != JSON_OK ||
            axe_point_add(p, json_object_key_at(v, i, NULL), x) != AXE_OK)
            return false;
    }
    return true;
}

/* An error case passes on any failure; else the status must be OK. */
static verdict status_verdict(vcase *c, axe_status st, const axe_diag *d)
{
    if (c->expect_error) {
        if (st != AXE_OK)
            return V_PASS;
        snprintf(c->why, sizeof c->why, "expected an error, got OK");
        return V_FAIL;
    }
    if (st == AXE_OK)
        return V_PASS;
    snprintf(c->why, sizeof c->why, "status %s: %s", axe_status_name(st),
             d != NULL ? d->message : "");
    return V_FAIL;
}

static verdict int_verdict(vcase *c, axe_status st, int64_t got)
{
    int64_t want;
    if (status_verdict(c, st, NULL) == V_FAIL || c->expect_error)
        return status_verdict(c, st, NULL);
    if (json_get_int(c->expect, &want) == JSON_OK && want == got)
        return V_PASS;
    snprintf(c->why, sizeof c->why, "got %lld", (long long)got);
    return V_FAIL;
}

static verdict run_size_span(vcase *c, bool span)
{
    axe_layout l;
    int64_t v = 0;
    axe_status st;
    const json_value *tirx = json_object_get(c->args, "tirx");
    int flag = 0;
    axe_rule rule =
        tirx != NULL && json_get_bool(tirx, &flag) == JSON_OK && flag
            ? AXE_RULE_TIRX
            : AXE_RULE_PAPER;
    if (!arg_layout(c, "layout", &l))
        return V_FAIL;
    st = span ? axe_layout_span_rule(&l, arg_str(c, "axis"), rule, &v)
              : axe_layout_size(&l, arg_str(c, "axis"), &v);
    return int_verdict(c, st, v);
}

static verdict point_verdict(vcase *c, axe_status st, const axe_diag *d,
                             const axe_point *got)
{
    axe_point want;
    if (c->expect_error || st != AXE_OK)
        return status_verdict(c, st, d);
    if (json_to_point(c->expect, &want) && axe_point_equal(got, &want))
        return V_PASS;
    snprintf(c->why, sizeof c->why, "got %s", pstr(got));
    return V_FAIL;
}

static verdict run_apply(vcase *c)
{
    axe_layout l;
    int64_t crd[AXE_LAYOUT_MAX_SHARD], shape[AXE_LAYOUT_MAX_SHARD];
    int n, ns;
    axe_point p = {0};
    axe_diag d = {0};
    axe_status st;
    if (!arg_layout(c, "layout", &l) ||
        !arg_ints(json_object_get(c->args, "coord"), crd, 32, &n) ||
        !arg_ints(json_object_get(c->args, "shape"), shape, 32, &ns))
        return V_FAIL;
    if (ns >= 0 && ns != n)
        st = AXE_ERR_INVALID;
    else
        st = apply_any(&l, crd, n, ns >= 0 ? shape : NULL, &p, &d);
    return point_verdict(c, st, &d, &p);
}

/* Lists of points equal as multisets. */
static bool points_match(const axe_point *got, int n, const json_value *want)
{
    bool used[64] = {false};
    if ((int)json_array_len(want) != n || n > 64)
        return false;
    for (int i = 0; i < n; i++) {
        axe_point w;
        int j = 0;
        if (!json_to_point(json_array_at(want, (size_t)i), &w))
            return false;
        while (j < n && (used[j] || !axe_point_equal(&got[j], &w)))
            j++;
        if (j == n)
            return false;
        used[j] = true;
    }
    return true;
}

static verdict run_apply_set(vcase *c)
{
    static axe_point out[64];
    axe_layout l;
    int64_t crd[32], shape[32];
    int n, ns, count = 0;
    axe_diag d = {0};
    axe_status st;
    if (!arg_layout(c, "layout", &l) ||
        !arg_ints(json_object_get(c->args, "coord"), crd, 32, &n) ||
        !arg_ints(json_object_get(c->args, "shape"), shape, 32, &ns))
        return V_FAIL;
    st = axe_layout_apply_set(&l, crd, ns >= 0 ? shape : NULL, n, out, 64,
                              &count, &d);
    if (c->expect_error || st != AXE_OK)
        return status_verdict(c, st, &d);
    if (points_match(out, count, c->expect))
        return V_PASS;
    snprintf(c->why, sizeof c->why, "got %d points, first %s", count,
             count > 0 ? pstr(&out[0]) : "-");
    return V_FAIL;
}

static verdict run_apply_to_shape(vcase *c)
{
    axe_layout l;
    int64_t crd[32], shape[32], digits[AXE_LAYOUT_MAX_SHARD], want;
    int n, ns, nd = 0;
    axe_diag d = {0};
    axe_status st;
    if (!arg_layout(c, "layout", &l) ||
        !arg_ints(json_object_get(c->args, "coord"), crd, 32, &n) ||
        !arg_ints(json_object_get(c->args, "shape"), shape, 32, &ns) || n != ns)
        return V_FAIL;
    st = axe_layout_digits_of(&l, crd, shape, n, digits, &nd, &d);
    if (c->expect_error || st != AXE_OK)
        return status_verdict(c, st, &d);
    if ((int)json_array_len(c->expect) != nd)
        return V_FAIL;
    for (int i = 0; i < nd; i++)
        if (json_get_int(json_array_at(c->expect, (size_t)i), &want) !=
                JSON_OK ||
            want != digits[i])
            return V_FAIL;
    return V_PASS;
}

static bool str_is(const json_value *v, const char *s)
{
    const char *t = json_get_string(v, NULL);
    return t != NULL && strcmp(t, s) == 0;
}

static verdict run_get_scope(vcase *c)
{
    axe_layout l;
    bool has = false;
    axe_scope sub = AXE_SCOPE_NONE, scope = AXE_SCOPE_NONE;
    axe_diag d = {0};
    axe_status st;
    if (!arg_layout(c, "layout", &l))
        return V_FAIL;
    st = axe_layout_get_scope(&l, &has, &sub, &scope, &d);
    if (c->expect_error || st != AXE_OK)
        return status_verdict(c, st, &d);
    if (has ? json_array_len(c->expect) == 2 &&
                  str_is(json_array_at(c->expect, 0), axe_scope_name(sub)) &&
                  str_is(json_array_at(c->expect, 1), axe_scope_name(scope))
            : json_is_null(c->expect))
        return V_PASS;
    snprintf(c->why, sizeof c->why, "got has=%d (%s, %s)", has,
             axe_scope_name(sub), axe_scope_name(scope));
    return V_FAIL;
}

static verdict run_well_formed(vcase *c)
{
    axe_layout l;
    axe_diag d = {0};
    int want;
    axe_status st;
    if (!arg_layout(c, "layout", &l))
        return V_FAIL;
    st = axe_layout_verify_well_formed(&l, &d);
    if (c->expect_error || st != AXE_OK)
        return status_verdict(c, st, &d);
    return json_get_bool(c->expect, &want) == JSON_OK && want ? V_PASS : V_FAIL;
}

/* {"is_thread", "is_memory", "scope", "subscope"} of an axis. */
static verdict run_axis_info(vcase *c)
{
    axe_axis_info a;
    int t, m;
    const json_value *sc = json_object_get(c->expect, "scope");
    const json_value *sub = json_object_get(c->expect, "subscope");
    if (axe_axis_lookup(arg_str(c, "axis"), &a, NULL) != AXE_OK ||
        json_get_bool(json_object_get(c->expect, "is_thread"), &t) != JSON_OK ||
        json_get_bool(json_object_get(c->expect, "is_memory"), &m) != JSON_OK)
        return V_FAIL;
    if ((a.kind == AXE_AXIS_THREAD) != (t != 0) ||
        (a.kind == AXE_AXIS_MEMORY) != (m != 0))
        return V_FAIL;
    if (a.kind != AXE_AXIS_THREAD)
        return json_is_null(sc) && json_is_null(sub) ? V_PASS : V_FAIL;
    return str_is(sc, axe_scope_name(a.scope)) &&
                   str_is(sub, axe_scope_name(a.subscope))
               ? V_PASS
               : V_FAIL;
}

/* Append `[[e,s,"axis"],...]` of "it" to "buf". */
static void iters_json(json_buf *buf, const axe_iter *it, int n)
{
    json_buf_put_rawz(buf, "[");
    for (int k = 0; k < n; k++) {
        json_buf_put_rawz(buf, k > 0 ? ",[" : "[");
        json_buf_put_int(buf, it[k].extent);
        json_buf_put_rawz(buf, ",");
        json_buf_put_int(buf, it[k].stride);
        json_buf_put_rawz(buf, ",");
        json_buf_put_string(buf, it[k].axis, strlen(it[k].axis));
        json_buf_put_rawz(buf, "]");
    }
    json_buf_put_rawz(buf, "]");
}

/* The layout as the vectors' {"shard", "replica", "offset"} object. */
static void layout_json(json_buf *buf, const axe_layout *l)
{
    json_buf_put_rawz(buf, "{\"shard\":");
    iters_json(buf, l->shard, l->nshard);
    json_buf_put_rawz(buf, ",\"replica\":");
    iters_json(buf, l->replica, l->nreplica);
    json_buf_put_rawz(buf, ",\"offset\":{");
    for (int i = 0; i < l->noffset; i++) {
        json_buf_put_rawz(buf, i > 0 ? "," : "");
        json_buf_put_string(buf, l->offset[i].axis, strlen(l->offset[i].axis));
        json_buf_put_rawz(buf, ":");
        json_buf_put_int(buf, l->offset[i].value);
    }
    json_buf_put_rawz(buf, "}}");
}

static verdict run_parse(vcase *c)
{
    axe_layout l;
    json_buf buf;
    json_arena *a;
    json_value *got = NULL;
    verdict v = V_FAIL;
    if (!arg_layout(c, "text", &l))
        return c->expect_error ? V_PASS : V_FAIL;
    json_buf_init(&buf, NULL, NULL);
    layout_json(&buf, &l);
    a = json_arena_new(NULL, NULL);
    if (a != NULL && !buf.failed &&
        json_parse(a, buf.data, buf.len, &got, NULL, 0) == JSON_OK &&
        json_equal(got, c->expect))
        v = V_PASS;
    snprintf(c->why, sizeof c->why, "got %s", json_buf_str(&buf));
    json_arena_free(a);
    json_buf_free(&buf);
    return v;
}

static verdict run_equal(vcase *c)
{
    axe_layout a, b;
    int want;
    if (!arg_layout(c, "a", &a) || !arg_layout(c, "b", &b) ||
        json_get_bool(c->expect, &want) != JSON_OK)
        return V_FAIL;
    return axe_layout_equal(&a, &b) == (want != 0) ? V_PASS : V_FAIL;
}

static verdict run_case(vcase *c)
{
    static const struct {
        const char *op;
        verdict (*fn)(vcase *);
    } ops[] = {
        {"axe.apply", run_apply},
        {"axe.apply_set", run_apply_set},
        {"axe.apply_to_shape", run_apply_to_shape},
        {"axe.get_scope", run_get_scope},
        {"axe.verify_well_formed", run_well_formed},
        {"axe.axis_info", run_axis_info},
        {"axe.parse", run_parse},
        {"axe.equal", run_equal},
    };
    if (strcmp(c->op, "axe.size") == 0 || strcmp(c->op, "axe.span") == 0)
        return run_size_span(c, strcmp(c->op, "axe.span") == 0);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(c->op, ops[i].op) == 0)
            return ops[i].fn(c);
    return V_NOT_MINE;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        *len = fread(buf, 1, (size_t)n, f);
        buf[*len] = '\0';
    }
    fclose(f);
    return buf;
}

/* Run one JSON line; returns V_NOT_MINE for other families' ops. */
static verdict run_line(const char *line, size_t len, int *ran)
{
    json_arena *a = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    vcase c = {0};
    int err = 0;
    verdict r = V_NOT_MINE;
    if (a == NULL || json_parse(a, line, len, &v, NULL, 0) != JSON_OK) {
        json_arena_free(a);
        return V_FAIL;
    }
    c.id = json_get_string(json_object_get(v, "id"), NULL);
    c.op = json_get_string(json_object_get(v, "op"), NULL);
    c.args = json_object_get(v, "args");
    c.expect = json_object_get(v, "expect");
    c.expect_error =
        json_get_bool(json_object_get(v, "expect_error"), &err) == JSON_OK &&
        err;
    if (c.op != NULL && c.args != NULL)
        r = run_case(&c);
    if (r != V_NOT_MINE)
        (*ran)++;
    TL_CHECK(r != V_FAIL, "vector %s (%s): %.*s -- %s", c.id ? c.id : "?",
             c.op ? c.op : "?", (int)(len < 300 ? len : 300), line, c.why);
    json_arena_free(a);
    return r;
}

/* Every case of the model's ops in axe.jsonl; false when the file is not
 * there. */
static bool test_vectors(void)
{
    const char *dir = getenv("AXE_SHARED_DIR");
    char path[4096];
    size_t len = 0;
    char *text, *line;
    int ran = 0;
    if (dir == NULL || dir[0] == '\0')
        return false;
    snprintf(path, sizeof path, "%s/vectors/axe.jsonl", dir);
    if ((text = slurp(path, &len)) == NULL)
        return false;
    for (line = text; line < text + len;) {
        char *end = memchr(line, '\n', (size_t)(text + len - line));
        size_t n = end ? (size_t)(end - line) : (size_t)(text + len - line);
        if (n > 0)
            run_line(line, n, &ran);
        line += n + 1;
    }
    printf("vectors: %d cases of the model's ops ran\n", ran);
    free(text);
    return true;
}

/* ---- laws on random layouts --------------------------------------------- */

static const char *const pool[] = {"m", "laneid", "warpid", "F", "gpuid"};

static const char *random_axis(int naxes)
{
    return pool[tl_range(0, naxes - 1)];
}

/* Up to "maxshard" shard iters (extents 1..maxext, strides in
 * [-maxstride, maxstride]), up to "maxrep" replicas, up to 2 offsets. */
static axe_layout random_layout(int maxshard, int maxrep, int64_t maxext,
                                int64_t maxstride, int naxes)
{
    axe_layout l;
    int ns = (int)tl_range(0, maxshard), nr = (int)tl_range(0, maxrep);
    int no = (int)tl_range(0, 2);
    axe_layout_init(&l);
    for (int k = 0; k < ns; k++)
        if (axe_layout_push_shard(&l, tl_range(1, maxext),
                                  tl_range(-maxstride, maxstride),
                                  random_axis(naxes)) != AXE_OK)
            exit(2);
    for (int k = 0; k < nr; k++)
        if (axe_layout_push_replica(&l, tl_range(1, 3),
                                    tl_range(-maxstride, maxstride),
                                    random_axis(naxes)) != AXE_OK)
            exit(2);
    for (int k = 0; k < no; k++)
        if (axe_layout_add_offset(&l, random_axis(naxes), tl_range(-20, 20)) !=
            AXE_OK)
            exit(2);
    return l;
}

/* Reference evaluation of D(x) + O, written from the definition. */
static void ref_point(const axe_layout *l, int64_t x, axe_point *p)
{
    int64_t c[AXE_LAYOUT_MAX_SHARD];
    for (int k = l->nshard - 1; k > 0; k--) {
        int64_t e = l->shard[k].extent, r = x % e;
        if (r < 0)
            r += e;
        c[k] = r;
        x = (x - r) / e;
    }
    if (l->nshard > 0)
        c[0] = x;
    p->n = 0;
    for (int k = 0; k < l->nshard; k++)
        if (axe_point_add(p, l->shard[k].axis, c[k] * l->shard[k].stride))
            exit(2);
    for (int i = 0; i < l->noffset; i++)
        if (axe_point_add(p, l->offset[i].axis, l->offset[i].value))
            exit(2);
}

static int64_t size_of(const axe_layout *l)
{
    int64_t s = 1;
    for (int k = 0; k < l->nshard; k++)
        s *= l->shard[k].extent;
    return s;
}

/* apply_base = the reference on [0, size) and past it (spec §6), DOMAIN
 * below 0; apply_digits of the split = apply_base. */
static void law_apply_base(void)
{
    for (int t = 0; t < 3000; t++) {
        axe_layout l = random_layout(8, 3, 5, 9, 5);
        int64_t size = size_of(&l);
        for (int i = 0; i < 100; i++) {
            axe_point got, want, dg;
            int64_t c[AXE_LAYOUT_MAX_SHARD], x = tl_range(-size, 2 * size - 1),
                                             y = x;
            if (x < 0) {
                TL_CHECK(axe_layout_apply_base(&l, x, &got, NULL) ==
                             AXE_ERR_DOMAIN,
                         "apply_base %s at %lld is outside the domain",
                         lstr(&l), (long long)x);
                continue;
            }
            ref_point(&l, x, &want);
            for (int k = l.nshard - 1; k > 0; k--) {
                c[k] = ((y % l.shard[k].extent) + l.shard[k].extent) %
                       l.shard[k].extent;
                y = (y - c[k]) / l.shard[k].extent;
            }
            if (l.nshard > 0)
                c[0] = y;
            TL_CHECK(axe_layout_apply_base(&l, x, &got, NULL) == AXE_OK &&
                         axe_point_equal(&got, &want) && got.n == want.n,
                     "apply_base %s at %lld: %s, want %s", lstr(&l),
                     (long long)x, pstr(&got), pstr(&want));
            if (x >= 0 && x < size)
                TL_CHECK(axe_layout_apply_digits(&l, c, l.nshard, &dg, NULL) ==
                                 AXE_OK &&
                             axe_point_equal(&dg, &want),
                         "apply_digits %s at %lld", lstr(&l), (long long)x);
        }
    }
}

/* A random shape whose row-major domain is the layout's: consecutive
 * extents merged into dims, or [size] split by a divisor. */
static int random_shape(const axe_layout *l, int64_t *shape)
{
    int n = 0;
    if (l->nshard == 0 || tl_range(0, 3) == 0) {
        int64_t size = size_of(l), a = tl_range(1, size);
        while (size % a != 0)
            a--;
        shape[n++] = a;
        shape[n++] = size / a;
        return n;
    }
    shape[0] = 1;
    for (int k = 0; k < l->nshard; k++) {
        if (k > 0 && tl_range(0, 1) == 0 && n + 1 < AXE_LAYOUT_MAX_DIMS)
            shape[++n] = 1;
        shape[n] *= l->shard[k].extent;
    }
    return n + 1;
}

/* apply_shape(crd) = apply_base(row-major index of crd) for in-range crd;
 * digits_of(crd, shard extents) = crd. */
static void law_apply_shape(void)
{
    for (int t = 0; t < 2000; t++) {
        axe_layout l = random_layout(8, 3, 5, 9, 3);
        int64_t shape[AXE_LAYOUT_MAX_DIMS], crd[AXE_LAYOUT_MAX_DIMS];
        int64_t ext[AXE_LAYOUT_MAX_SHARD], dig[AXE_LAYOUT_MAX_SHARD];
        int n = random_shape(&l, shape), nd = 0;
        for (int i = 0; i < 20; i++) {
            int64_t x = 0;
            axe_point got, want;
            for (int d = 0; d < n; d++) {
                crd[d] = tl_range(0, shape[d] - 1);
                x = x * shape[d] + crd[d];
            }
            ref_point(&l, x, &want);
            TL_CHECK(axe_layout_apply_shape(&l, crd, shape, n, &got, NULL) ==
                             AXE_OK &&
                         axe_point_equal(&got, &want),
                     "apply_shape %s at index %lld: %s, want %s", lstr(&l),
                     (long long)x, pstr(&got), pstr(&want));
        }
        for (int k = 0; k < l.nshard; k++) {
            ext[k] = l.shard[k].extent;
            crd[k] = tl_range(0, ext[k] - 1);
        }
        TL_CHECK(axe_layout_digits_of(&l, crd, ext, l.nshard, dig, &nd, NULL) ==
                         AXE_OK &&
                     nd == l.nshard &&
                     memcmp(dig, crd, (size_t)nd * sizeof dig[0]) == 0,
                 "digits_of %s by its own extents", lstr(&l));
    }
}

/* apply_set(x) = [ D(x) + O + r_j ] with r_j lexicographic, last replica
 * iter fastest. */
static void law_apply_set(void)
{
    static axe_point out[64];
    for (int t = 0; t < 2000; t++) {
        axe_layout l = random_layout(8, 3, 4, 9, 5);
        int64_t x = tl_range(0, size_of(&l) - 1), total = 1;
        int count = -1;
        axe_point base;
        for (int k = 0; k < l.nreplica; k++)
            total *= l.replica[k].extent;
        ref_point(&l, x, &base);
        TL_CHECK(axe_layout_apply_set(&l, &x, NULL, 1, out, 64, &count, NULL) ==
                         AXE_OK &&
                     count == total,
                 "apply_set count %s", lstr(&l));
        for (int j = 0; j < count; j++) {
            axe_point want = base;
            int64_t r = j;
            for (int k = l.nreplica - 1; k >= 0; k--) {
                if (axe_point_add(&want, l.replica[k].axis,
                                  (r % l.replica[k].extent) *
                                      l.replica[k].stride) != AXE_OK)
                    exit(2);
                r /= l.replica[k].extent;
            }
            TL_CHECK(axe_point_equal(&out[j], &want),
                     "apply_set %s at %lld point %d: %s, want %s", lstr(&l),
                     (long long)x, j, pstr(&out[j]), pstr(&want));
        }
    }
}

/* The paper's span from the set (Lemma C.1): on axis a, 1 + max - min of
 * the a-values of every point of every L(x) (the offset cancels, strides
 * count by magnitude); without an axis, 1 + the sum of max - min over the
 * memory axes m and F. Brute force over small random layouts with
 * replicas, offsets and negative strides. */
static void law_span_paper(void)
{
    static axe_point out[64];
    for (int t = 0; t < 1500; t++) {
        axe_layout l = random_layout(4, 3, 4, 9, 5);
        int64_t lo[5] = {0}, hi[5] = {0}, got;
        for (int64_t x = 0; x < size_of(&l); x++) {
            int count = 0;
            if (axe_layout_apply_set(&l, &x, NULL, 1, out, 64, &count, NULL) !=
                AXE_OK)
                exit(2);
            for (int j = 0; j < count; j++)
                for (int a = 0; a < 5; a++) {
                    int64_t v = 0;
                    for (int i = 0; i < out[j].n; i++)
                        if (strcmp(out[j].axis[i], pool[a]) == 0)
                            v = out[j].v[i];
                    if ((x == 0 && j == 0) || v < lo[a])
                        lo[a] = v;
                    if ((x == 0 && j == 0) || v > hi[a])
                        hi[a] = v;
                }
        }
        for (int a = -1; a < 5; a++) {
            int64_t want = 1;
            for (int b = 0; b < 5; b++)
                if (a < 0
                        ? strcmp(pool[b], "m") == 0 || strcmp(pool[b], "F") == 0
                        : b == a)
                    want += hi[b] - lo[b];
            TL_CHECK(axe_layout_span(&l, a < 0 ? NULL : pool[a], &got) ==
                             AXE_OK &&
                         got == want,
                     "paper span %s on %s: %lld, want %lld (max - min + 1)",
                     lstr(&l), a < 0 ? "memory" : pool[a], (long long)got,
                     (long long)want);
        }
    }
}

/* size and TIRx's span from their definitions (spec §5). */
static void law_size_span(void)
{
    for (int t = 0; t < 3000; t++) {
        axe_layout l = random_layout(8, 3, 6, 20, 5);
        for (int a = -1; a < 5; a++) {
            int64_t size = 1, span = 1, gs, gp;
            for (int k = 0; k < l.nshard; k++) {
                bool on = a < 0 ? strcmp(l.shard[k].axis, "m") == 0 ||
                                      strcmp(l.shard[k].axis, "F") == 0
                                : strcmp(l.shard[k].axis, pool[a]) == 0;
                if (a < 0 || on)
                    size *= l.shard[k].extent;
                if (on)
                    span += (l.shard[k].extent - 1) * l.shard[k].stride;
            }
            for (int k = 0; k < l.nreplica; k++)
                if (a < 0 ? strcmp(l.replica[k].axis, "m") == 0 ||
                                strcmp(l.replica[k].axis, "F") == 0
                          : strcmp(l.replica[k].axis, pool[a]) == 0)
                    span += (l.replica[k].extent - 1) * l.replica[k].stride;
            for (int i = 0; i < l.noffset; i++)
                if (a < 0 ? strcmp(l.offset[i].axis, "m") == 0 ||
                                strcmp(l.offset[i].axis, "F") == 0
                          : strcmp(l.offset[i].axis, pool[a]) == 0)
                    span += l.offset[i].value;
            TL_CHECK(axe_layout_size(&l, a < 0 ? NULL : pool[a], &gs) ==
                             AXE_OK &&
                         axe_layout_span_rule(&l, a < 0 ? NULL : pool[a],
                                              AXE_RULE_TIRX, &gp) == AXE_OK &&
                         gs == size && gp == span,
                     "size/span %s on %s: %lld %lld, want %lld %lld", lstr(&l),
                     a < 0 ? "memory" : pool[a], (long long)gs, (long long)gp,
                     (long long)size, (long long)span);
        }
    }
}

/* Brute force: the smallest x < size with "p" among the points of x (all
 * of L(x) with replicas, else the base point); -1 if none. */
static int64_t brute_backward(const axe_layout *l, const axe_point *p,
                              bool with_replicas)
{
    static axe_point out[64];
    for (int64_t x = 0; x < size_of(l); x++) {
        int count = 0;
        if (axe_layout_apply_set(l, &x, NULL, 1, out, 64, &count, NULL) !=
            AXE_OK)
            exit(2);
        if (!with_replicas) {
            if (axe_layout_apply_base(l, x, &out[0], NULL) != AXE_OK)
                exit(2);
            count = 1;
        }
        for (int j = 0; j < count; j++)
            if (axe_point_equal(&out[j], p))
                return x;
    }
    return -1;
}

static void check_backward(const axe_layout *l, const axe_point *p,
                           bool with_replicas)
{
    int64_t want = brute_backward(l, p, with_replicas), x = -7;
    bool found = true;
    axe_diag d = {0};
    axe_status st = axe_layout_backward(l, p, with_replicas, &x, &found, &d);
    TL_CHECK(st == AXE_OK && found == (want >= 0) && (!found || x == want),
             "backward %s of %s (replicas %d): st %d %s found %d x %lld, "
             "want %lld",
             lstr(l), pstr(p), with_replicas, st, d.message, found,
             (long long)x, (long long)want);
}

/* backward = the brute-force smallest preimage, for points in the image
 * and random points near it, with and without replicas. */
static void law_backward(void)
{
    for (int t = 0; t < 2500; t++) {
        axe_layout l = random_layout(8, 3, 4, 6, 3);
        int64_t size = size_of(&l);
        for (int i = 0; i < 6; i++) {
            axe_point p;
            int64_t x = tl_range(0, size - 1);
            ref_point(&l, x, &p);
            if (i >= 3)
                for (int k = 0; k < p.n; k++)
                    p.v[k] += tl_range(-3, 3);
            if (i == 5 && axe_point_add(&p, pool[tl_range(0, 2)],
                                        tl_range(-2, 2)) != AXE_OK)
                exit(2);
            check_backward(&l, &p, i % 2 == 1);
        }
    }
}

/* A random injective layout: mixed-radix strides on each axis (signs and
 * gaps allowed), iters shuffled. */
static axe_layout random_injective(int maxshard, int64_t maxext, int naxes)
{
    axe_layout l;
    int64_t pitch[5] = {1, 1, 1, 1, 1};
    int n = (int)tl_range(1, maxshard);
    axe_layout_init(&l);
    for (int k = 0; k < n; k++) {
        int a = (int)tl_range(0, naxes - 1);
        int64_t e = tl_range(1, maxext);
        int64_t s = tl_range(0, 1) ? pitch[a] : -pitch[a];
        if (axe_layout_push_shard(&l, e, s, pool[a]) != AXE_OK)
            exit(2);
        pitch[a] *= e * tl_range(1, 2);
    }
    for (int k = n - 1; k > 0; k--) {
        int j = (int)tl_range(0, k);
        axe_iter tmp = l.shard[k];
        l.shard[k] = l.shard[j];
        l.shard[j] = tmp;
    }
    if (tl_range(0, 1) &&
        axe_layout_add_offset(&l, pool[tl_range(0, naxes - 1)],
                              tl_range(-50, 50)) != AXE_OK)
        exit(2);
    return l;
}

/* backward(apply_base(x)) = x on injective layouts, including large ones
 * (up to 2^40 indices) where a search over x is out of the question. */
static void law_backward_injective(void)
{
    for (int t = 0; t < 3000; t++) {
        bool large = t % 2 == 1;
        axe_layout l = random_injective(large ? 10 : 6, large ? 16 : 4, 3);
        int64_t size = size_of(&l);
        for (int i = 0; i < 10; i++) {
            int64_t x = tl_range(0, size - 1), y = -1;
            bool found = false;
            axe_point p;
            axe_diag d = {0};
            axe_status st;
            if (axe_layout_apply_base(&l, x, &p, NULL) != AXE_OK)
                exit(2);
            st = axe_layout_backward(&l, &p, false, &y, &found, &d);
            TL_CHECK(st == AXE_OK && found && y == x,
                     "backward round trip %s at %lld: st %d %s y %lld",
                     lstr(&l), (long long)x, st, d.message, (long long)y);
        }
    }
}

/* Swizzles: addr is an involution; a swizzled layout's point is addr of
 * its tile's; per-iter apply zeroes extent-1 digits; backward inverts. */
static void law_swizzle(void)
{
    for (int t = 0; t < 2000; t++) {
        axe_layout_swizzle sw = {true, tl_range(0, 1) != 0, 0, 0, 0};
        axe_layout l = random_injective(4, 8, 1), tile;
        int64_t x, y = -1, m, back;
        axe_point p, q;
        bool found = false;
        sw.per_element = (int32_t)tl_range(0, 4);
        sw.len = (int32_t)tl_range(0, 3);
        sw.atom = (int32_t)tl_range(sw.len, 4);
        tile = l;
        l.swizzle = sw;
        x = tl_range(0, size_of(&l) - 1);
        if (axe_layout_apply_base(&tile, x, &q, NULL) != AXE_OK ||
            axe_layout_apply_base(&l, x, &p, NULL) != AXE_OK ||
            axe__swizzle_addr(&sw, axe__point_get(&q, axe__name_m.s), &m) ||
            axe__swizzle_addr(&sw, m, &back))
            exit(2);
        TL_CHECK(back == axe__point_get(&q, axe__name_m.s) && p.n == 1 &&
                     p.v[0] == m,
                 "swizzle %s at %lld", lstr(&l), (long long)x);
        TL_CHECK(axe_layout_backward(&l, &p, false, &y, &found, NULL) ==
                         AXE_OK &&
                     found && y == x,
                 "swizzled backward %s at %lld: %lld", lstr(&l), (long long)x,
                 (long long)y);
    }
}

/* Structural equality: replicas as a multiset, offsets as maps without
 * zeros, shard in order. */
static void law_equal(void)
{
    for (int t = 0; t < 2000; t++) {
        axe_layout a = random_layout(8, 3, 5, 9, 5), b = a;
        for (int k = b.nreplica - 1; k > 0; k--) {
            int j = (int)tl_range(0, k);
            axe_iter tmp = b.replica[k];
            b.replica[k] = b.replica[j];
            b.replica[j] = tmp;
        }
        for (int i = b.noffset - 1; i > 0; i--) {
            axe_offset tmp = b.offset[i];
            b.offset[i] = b.offset[0];
            b.offset[0] = tmp;
        }
        if (axe_layout_add_offset(&b, pool[tl_range(0, 4)], 0) != AXE_OK)
            continue;
        TL_CHECK(axe_layout_equal(&a, &b) && axe_layout_equal(&b, &a),
                 "equal %s vs %s", lstr(&a), lstr(&b));
        if (b.nshard > 0) {
            b.shard[tl_range(0, b.nshard - 1)].stride += 1;
            TL_CHECK(!axe_layout_equal(&a, &b), "unequal stride %s vs %s",
                     lstr(&a), lstr(&b));
        }
    }
    {
        axe_layout a = lay("Swizzle<3,3,3>(S[64:1])"), b = a;
        b.swizzle.inner = false;
        TL_CHECK(!axe_layout_equal(&a, &b), "swizzle flag compared");
        b = lay("S[64:1]");
        TL_CHECK(!axe_layout_equal(&a, &b), "swizzle presence compared");
        a = lay("S[8:1] + 0@laneid");
        TL_CHECK(axe_layout_equal(&a, &b) == false, "extent differs");
        b = lay("S[8:1]");
        TL_CHECK(axe_layout_equal(&a, &b), "zero offset ignored");
    }
}

static void test_points(void)
{
    axe_point a = pt("m=1,laneid=0"), b = pt("m=1"), c = {0};
    TL_CHECK(axe_point_equal(&a, &b) && axe_point_equal(&b, &a),
             "zero entries ignored");
    TL_CHECK(axe_point_add(&c, "m", 2) == AXE_OK &&
                 axe_point_add(&c, "m", -1) == AXE_OK && c.n == 1 &&
                 axe_point_equal(&c, &b),
             "point_add adds");
    TL_CHECK(axe_point_add(&c, "m", INT64_MAX) == AXE_ERR_OVERFLOW &&
                 c.v[0] == 1,
             "point_add overflow");
    TL_CHECK(axe_point_add(&c, "-", 1) == AXE_ERR_INVALID, "bad name");
    for (int i = 0; i < AXE_POINT_MAX_AXES; i++) {
        char name[16];
        snprintf(name, sizeof name, "a%d", i);
        if (axe_point_add(&c, name, 1) != AXE_OK)
            break;
    }
    TL_CHECK(c.n == AXE_POINT_MAX_AXES &&
                 axe_point_add(&c, "zz", 1) == AXE_ERR_CAPACITY,
             "point capacity");
}

/* A point written entry by entry, as a struct filler or a parser might:
 * an axis may appear twice, under one spelling or two ("lane" and
 * "laneid" are one axis); no merging happens here. */
static axe_point raw_pt(const char *s)
{
    axe_point p = {0};
    char name[32];
    long long v;
    int used;
    while (*s != '\0' &&
           sscanf(s, " %15[A-Za-z0-9_] = %lld%n", name, &v, &used) == 2) {
        memset(p.axis[p.n], 0, sizeof p.axis[p.n]);
        memcpy(p.axis[p.n], name, strlen(name));
        p.v[p.n++] = v;
        s += used;
        if (*s == ',')
            s++;
    }
    return p;
}

/* An axis given twice in a point adds (notation.md §11), across the
 * spellings of one axis: equality and the backward map read the point as
 * the sum of its entries per axis. */
static void test_points_repeated(void)
{
    static const struct {
        const char *l, *point;
        int64_t x; /* -1: not in the image */
    } rows[] = {
        {"S[32:1@lane]", "lane=3,laneid=4", 7},
        {"S[32:1@laneid]", "laneid=3,lane=4", 7},
        {"S[32:1@lane]", "laneid=7", 7},
        {"S[32:1]", "m=3,m=4", 7},
        {"S[(4,8):(1@warp,1@lane)]", "warpid=2,lane=1,warp=1", 25},
        {"S[(4,8):(1@warp,1@lane)] + R[2:4@warpid]", "warp=5,warpid=2,lane=1",
         -1},
        {"S[32:1@lane]", "lane=3,warpid=4", -1},
        {"S[32:1@lane]", "lane=3,laneid=-3", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        axe_point p = raw_pt(rows[i].point);
        int64_t x = -7;
        bool found = false;
        axe_diag d = {0};
        axe_status st = axe_layout_backward(&l, &p, false, &x, &found, &d);
        TL_CHECK(st == AXE_OK && found == (rows[i].x >= 0) &&
                     (!found || x == rows[i].x),
                 "backward %s of {%s}: st %d %s found %d x %lld, want %lld",
                 rows[i].l, rows[i].point, st, d.message, found, (long long)x,
                 (long long)rows[i].x);
    }
    {
        axe_point a = raw_pt("lane=3,laneid=4"), b = raw_pt("laneid=7"),
                  c = raw_pt("m=2,m=-2"), z = {0}, w = raw_pt("lane=3");
        TL_CHECK(axe_point_equal(&a, &b) && axe_point_equal(&b, &a),
                 "lane=3,laneid=4 equals laneid=7");
        TL_CHECK(axe_point_equal(&c, &z) && axe_point_equal(&z, &c),
                 "m=2,m=-2 equals the origin");
        TL_CHECK(!axe_point_equal(&a, &w) && !axe_point_equal(&w, &a),
                 "lane=3,laneid=4 is not lane=3");
    }
}

static void test_construction(void)
{
    axe_layout l;
    int64_t shape[3] = {2, 3, 4}, bad[2] = {2, 0};
    axe_layout_init(&l);
    TL_CHECK(axe_layout_push_shard(&l, 0, 1, "m") == AXE_ERR_INVALID &&
                 axe_layout_push_shard(&l, 2, 1, "a b") == AXE_ERR_INVALID &&
                 axe_layout_push_replica(&l, -1, 1, "m") == AXE_ERR_INVALID &&
                 l.nshard == 0 && l.nreplica == 0,
             "push rejects bad iters");
    for (int k = 0; k < AXE_LAYOUT_MAX_SHARD; k++)
        if (axe_layout_push_shard(&l, 1, 1, "m") != AXE_OK)
            break;
    TL_CHECK(l.nshard == AXE_LAYOUT_MAX_SHARD &&
                 axe_layout_push_shard(&l, 1, 1, "m") == AXE_ERR_CAPACITY,
             "shard capacity");
    TL_CHECK(axe_layout_row_major(shape, 3, &l) == AXE_OK &&
                 strcmp(lstr(&l), "S[(2,3,4):(12,4,1)]") == 0,
             "row_major text %s", lstr(&l));
    TL_CHECK(axe_layout_row_major(bad, 2, &l) == AXE_ERR_INVALID,
             "row_major rejects extent 0");
    axe_layout_init(&l);
    TL_CHECK(axe_layout_add_offset(&l, "warpid", 3) == AXE_OK &&
                 axe_layout_add_offset(&l, "warpid", 2) == AXE_OK &&
                 l.noffset == 1 && l.offset[0].value == 5,
             "repeated offsets add");
    TL_CHECK(axe_layout_add_offset(&l, "warpid", INT64_MAX) ==
                     AXE_ERR_OVERFLOW &&
                 l.offset[0].value == 5,
             "offset overflow");
}

/* Informational: nanoseconds per apply_base on an 8-iter layout. */
static void bench_apply(void)
{
    axe_layout l = lay("S[(2,2,8,2,2,4,2,2):(2@wgid,2@wid_in_wg,4@laneid,"
                       "1@wgid,1@wid_in_wg,1@laneid,64,1)]");
    struct timespec t0, t1;
    int64_t acc = 0, n = 200000;
    axe_point p;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int64_t x = 0; x < n; x++) {
        if (axe_layout_apply_base(&l, x, &p, NULL) != AXE_OK)
            exit(2);
        acc += p.v[0];
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("apply_base (8 iters): %.1f ns/call (checksum %lld)\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
            (double)(t1.tv_nsec - t0.tv_nsec)) /
               (double)n,
           (long long)acc);
}

int main(void)
{
    bool vectors;
    tl_seed("test_layout_model", 20240611);
    test_registry();
    test_registry_errors();
    test_declare();
    test_size_span();
    test_size_span_errors();
    test_apply_table();
    test_apply_errors();
    test_apply_set_table();
    test_paper_apply_rows();
    test_paper_constructors();
    test_paper_views();
    test_scope_table();
    test_well_formed_swizzle();
    test_points();
    test_points_repeated();
    test_construction();
    law_apply_base();
    law_apply_shape();
    law_apply_set();
    law_size_span();
    law_span_paper();
    law_backward();
    law_backward_injective();
    law_swizzle();
    law_equal();
    bench_apply();
    vectors = test_vectors();
    test_declare_capacity();
    if (!vectors) {
        printf("AXE_SHARED_DIR/vectors/axe.jsonl not found: vectors skipped\n");
        tl_finish();
        return tl_failed == 0 ? 77 : 1;
    }
    return tl_finish();
}
