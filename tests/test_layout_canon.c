/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Canonical forms and grouping of Axe layouts: canonicalize (TIRx's form,
 * with and without CUDA axis fusion), normalize (the paper's full normal
 * form), equivalent, group and group_many. Three parts: tables (reasons,
 * normal forms, equivalences, axe's policy cases), every case of these ops
 * in ../shared/vectors/axe.jsonl (read at run time from $AXE_SHARED_DIR;
 * exit 77 when it is missing), and laws on seeded random layouts checked
 * against a brute-force evaluation of the set-valued map
 * L(x) = { D(x) + r + O } written here from the definition.
 */
#define _POSIX_C_SOURCE 200809L

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

/* Exactly the same value: counts, every field in order, swizzle. */
static bool same_exact(const axe_layout *a, const axe_layout *b)
{
    if (a->nshard != b->nshard || a->nreplica != b->nreplica ||
        a->noffset != b->noffset || a->swizzle.present != b->swizzle.present)
        return false;
    for (int k = 0; k < a->nshard; k++)
        if (a->shard[k].extent != b->shard[k].extent ||
            a->shard[k].stride != b->shard[k].stride ||
            strcmp(a->shard[k].axis, b->shard[k].axis) != 0)
            return false;
    for (int k = 0; k < a->nreplica; k++)
        if (a->replica[k].extent != b->replica[k].extent ||
            a->replica[k].stride != b->replica[k].stride ||
            strcmp(a->replica[k].axis, b->replica[k].axis) != 0)
            return false;
    for (int k = 0; k < a->noffset; k++)
        if (a->offset[k].value != b->offset[k].value ||
            strcmp(a->offset[k].axis, b->offset[k].axis) != 0)
            return false;
    return true;
}

/* ---- brute-force evaluation of L(x) = { D(x) + r + O } ------------------ */

#define NAX 16
#define MAXPTS 4096

typedef struct bpt {
    int64_t v[NAX];
} bpt;

static char ax_names[NAX][AXE_AXIS_NAME_MAX];
static int nax;

/* The axis "name" denotes: the Axe paper's lane and warp are the hardware
 * lane and warp ids, TIRx's laneid and warpid (docs/algebra.md). */
static const char *axis_of(const char *name)
{
    if (strcmp(name, "lane") == 0)
        return "laneid";
    return strcmp(name, "warp") == 0 ? "warpid" : name;
}

static bool same_axis(const char *a, const char *b)
{
    return strcmp(axis_of(a), axis_of(b)) == 0;
}

/* A dense index for the axis "name" (registered on first use). */
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

/* A layout with its axes resolved to dense indices (evaluated often). */
typedef struct bf_layout {
    int ns, nr, no;
    int64_t se[AXE_LAYOUT_MAX_SHARD], ss[AXE_LAYOUT_MAX_SHARD];
    int sa[AXE_LAYOUT_MAX_SHARD];
    int64_t re[AXE_LAYOUT_MAX_REPLICA], rs[AXE_LAYOUT_MAX_REPLICA];
    int ra[AXE_LAYOUT_MAX_REPLICA];
    int64_t ov[AXE_LAYOUT_MAX_OFFSET];
    int oa[AXE_LAYOUT_MAX_OFFSET];
} bf_layout;

static bf_layout bf_prep(const axe_layout *l)
{
    bf_layout b;
    b.ns = l->nshard;
    b.nr = l->nreplica;
    b.no = l->noffset;
    for (int k = 0; k < b.ns; k++) {
        b.se[k] = l->shard[k].extent;
        b.ss[k] = l->shard[k].stride;
        b.sa[k] = ax_id(l->shard[k].axis);
    }
    for (int k = 0; k < b.nr; k++) {
        b.re[k] = l->replica[k].extent;
        b.rs[k] = l->replica[k].stride;
        b.ra[k] = ax_id(l->replica[k].axis);
    }
    for (int i = 0; i < b.no; i++) {
        b.ov[i] = l->offset[i].value;
        b.oa[i] = ax_id(l->offset[i].axis);
    }
    return b;
}

/* D(x) + O (digits lexicographic over the extents, last iter fastest). */
static bpt bf_base(const bf_layout *b, int64_t x)
{
    bpt p;
    memset(&p, 0, sizeof p);
    for (int k = b->ns - 1; k >= 0; k--) {
        int64_t d = k > 0 ? x % b->se[k] : x;
        x /= b->se[k];
        p.v[b->sa[k]] += d * b->ss[k];
    }
    for (int i = 0; i < b->no; i++)
        p.v[b->oa[i]] += b->ov[i];
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

/* L(x) = { D(x) + r + O } sorted into "out" (duplicates removed when
 * "as_set"); the count. Replica combinations r are lexicographic too. */
static int bf_set(const bf_layout *b, int64_t x, bool as_set, bpt *out)
{
    int n = 1, m = 0;
    out[0] = bf_base(b, x);
    for (int k = 0; k < b->nr; k++) {
        if (n * b->re[k] > MAXPTS) {
            fprintf(stderr, "replica too large for the test\n");
            exit(2);
        }
        for (int j = n - 1; j >= 0; j--)
            for (int64_t c = b->re[k] - 1; c >= 0; c--) {
                out[j * b->re[k] + c] = out[j];
                out[j * b->re[k] + c].v[b->ra[k]] += c * b->rs[k];
            }
        n *= (int)b->re[k];
    }
    qsort(out, (size_t)n, sizeof *out, bpt_cmp);
    if (!as_set)
        return n;
    for (int r = 0; r < n; r++)
        if (m == 0 || bpt_cmp(&out[m - 1], &out[r]) != 0)
            out[m++] = out[r];
    return m;
}

/* Same size and L_a(x) == L_b(x) for every x < size, as multisets or as
 * sets. */
static bool bf_same(const axe_layout *a, const axe_layout *b, bool as_set)
{
    static bpt pa[MAXPTS], pb[MAXPTS];
    bf_layout ba = bf_prep(a), bb = bf_prep(b);
    int64_t n = bf_size(a);
    if (n != bf_size(b))
        return false;
    for (int64_t x = 0; x < n; x++) {
        int ca = bf_set(&ba, x, as_set, pa), cb = bf_set(&bb, x, as_set, pb);
        if (ca != cb || memcmp(pa, pb, (size_t)ca * sizeof *pa) != 0)
            return false;
    }
    return true;
}

/* ---- tables ------------------------------------------------------------- */

/* canonicalize rows beyond the vectors: axe's policy (offsets fused into
 * one axis add; wgid at (warp, cta) becomes warpid * 4), scope errors, the
 * replica order, empty and zero-stride shards. NULL expect: an error whose
 * reason contains "why". */
static void test_canonicalize_table(void)
{
    static const struct {
        const char *in;
        axe_target target;
        const char *expect, *why;
    } rows[] = {
        {"S[(2,32):(1@warpid,1@laneid)] + 1@warpid + 3@laneid", AXE_TARGET_CUDA,
         "S[64:1@tx] + 35@tx", NULL},
        {"S[(2,32):(1@warpid,1@laneid)] + 1@warpid + -32@laneid",
         AXE_TARGET_CUDA, "S[64:1@tx]", NULL},
        {"S[(2,32):(1@warpid,1@laneid)] + 1@warpid", AXE_TARGET_NONE,
         "S[(2,32):(1@warpid,1@laneid)] + 1@warpid", NULL},
        {"S[(2,4):(1@wgid,1@wid_in_wg)] + 1@wgid", AXE_TARGET_CUDA,
         "S[8:1@warpid] + 4@warpid", NULL},
        {"S[(4,32):(1@wid_in_wg,1@laneid)] + R[2:1@wid_in_wg]", AXE_TARGET_CUDA,
         "S[128:1@tid_in_wg] + R[2:32@tid_in_wg]", NULL},
        {"S[(2,2):(1@laneid,1@tx)]", AXE_TARGET_NONE, NULL,
         "conflicting scopes"},
        {"S[(2,2):(1@wgid,1@laneid)]", AXE_TARGET_CUDA, NULL,
         "disconnected scope chain"},
        {"S[(1,4):(1@tx,1@laneid)]", AXE_TARGET_CUDA, "S[4:1@laneid]", NULL},
        {"S[4:1] + R[2:1@tx] + 2@tx", AXE_TARGET_CUDA,
         "S[4:1] + R[2:1@tx] + 2@tx", NULL},
        {"S[():()] + 3 + 0@laneid", AXE_TARGET_NONE, "S[():()] + 3", NULL},
        {"S[(2,4):(0,0)]", AXE_TARGET_NONE, "S[8:0]", NULL},
        {"S[(3,1,1):(1,7,0@laneid)]", AXE_TARGET_NONE, "S[3:1]", NULL},
        {"S[(1,1):(3@laneid,1)]", AXE_TARGET_NONE, "S[1:1@laneid]", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout in = lay(rows[i].in), got;
        axe_diag d = {0};
        axe_status st = axe_layout_canonicalize(&in, rows[i].target, &got, &d);
        if (rows[i].expect == NULL) {
            TL_CHECK(st != AXE_OK && strstr(d.message, rows[i].why) != NULL,
                     "canonicalize %s: want error '%s', got %d (%s)",
                     rows[i].in, rows[i].why, st, d.message);
            continue;
        }
        axe_layout want = lay(rows[i].expect);
        TL_CHECK(st == AXE_OK && axe_layout_equal(&got, &want),
                 "canonicalize %s = %s, want %s (%s)", rows[i].in,
                 st == AXE_OK ? lstr(&got) : "error", rows[i].expect,
                 d.message);
    }
}

/* The paper's lane and warp are laneid and warpid spelled differently:
 * CUDA fusion and scopes treat every mix of spellings alike, the result is
 * printed with the spelling it was written with (rows compared as text). */
static void test_paper_axis_names(void)
{
    static const struct {
        const char *in;
        axe_target target;
        const char *expect;
    } rows[] = {
        {"S[(2,32):(1@warpid,1@lane)]", AXE_TARGET_CUDA, "S[64:1@tx]"},
        {"S[(2,32):(1@warp,1@laneid)]", AXE_TARGET_CUDA, "S[64:1@tx]"},
        {"S[(2,32):(1@warp,1@lane)] + 1@warp + 3@lane", AXE_TARGET_CUDA,
         "S[64:1@tx] + 35@tx"},
        {"S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + "
         "5@warp",
         AXE_TARGET_CUDA,
         "S[(8,2,4,2):(4@tx,32@tx,1@tx,1)] + R[2:128@tx] + 160@tx"},
        {"S[(4,32):(1@wid_in_wg,1@lane)]", AXE_TARGET_CUDA,
         "S[128:1@tid_in_wg]"},
        {"S[(2,4):(1@wgid,1@warp)]", AXE_TARGET_CUDA, NULL},
        {"S[(2,32):(32@laneid,1@lane)]", AXE_TARGET_NONE, "S[64:1@laneid]"},
        {"S[(2,32):(1@warp,1@lane)] + R[2:1@laneid] + 2@lane", AXE_TARGET_NONE,
         "S[(2,32):(1@warp,1@lane)] + R[2:1@laneid] + 2@lane"},
        {"S[4:1] + R[(2,2):(1@warpid,1@lane)]", AXE_TARGET_NONE,
         "S[4:1] + R[(2,2):(1@lane,1@warpid)]"},
        {"S[4:1] + R[(2,3):(1@laneid,1@lane)]", AXE_TARGET_NONE,
         "S[4:1] + R[(2,3):(1@laneid,1@lane)]"},
        {"S[(2,2):(1@lane,1@tx)]", AXE_TARGET_CUDA, NULL},
        {"S[(2,32):(32@tx,1@lane)]", AXE_TARGET_CUDA, NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout in = lay(rows[i].in), got, again;
        axe_diag d = {0};
        axe_status st = axe_layout_canonicalize(&in, rows[i].target, &got, &d);
        if (rows[i].expect == NULL) {
            TL_CHECK(st == AXE_ERR_INVALID &&
                         strstr(d.message, "Ill-formed") != NULL,
                     "canonicalize %s: want ill-formed, got %d (%s)",
                     rows[i].in, st, d.message);
            continue;
        }
        TL_CHECK(st == AXE_OK && strcmp(lstr(&got), rows[i].expect) == 0,
                 "canonicalize %s = %s, want %s (%s)", rows[i].in,
                 st == AXE_OK ? lstr(&got) : "error", rows[i].expect,
                 d.message);
        TL_CHECK(st == AXE_OK &&
                     axe_layout_verify_well_formed(&got, &d) == AXE_OK &&
                     axe_layout_canonicalize(&got, rows[i].target, &again,
                                             &d) == AXE_OK &&
                     same_exact(&got, &again),
                 "canonicalize %s: result not well formed or not idempotent "
                 "(%s)",
                 rows[i].in, d.message);
    }
}

/* Replicas come out sorted by axis, extent, stride. */
static void test_replica_order(void)
{
    axe_layout in = lay("S[4:1] + R[(2,3,2):(1@warpid,5,-1)]"), got;
    axe_layout want = lay("S[4:1] + R[(2,3,2):(-1,5,1@warpid)]");
    TL_CHECK(axe_layout_canonicalize(&in, AXE_TARGET_NONE, &got, NULL) ==
                     AXE_OK &&
                 same_exact(&got, &want),
             "replica order: %s", lstr(&got));
}

static void test_normalize_table(void)
{
    static const char *const rows[][2] = {
        {"S[(2,4):(4,1)] + R[3:-2] + 0@laneid", "S[8:1] + R[3:2] + -4"},
        {"S[4:0@laneid]", "S[4:0]"},
        {"S[(2,2):(0@laneid,0@warpid)]", "S[4:0]"},
        {"S[1:1@laneid] + 5", "S[():()] + 5"},
        {"S[2:1] + R[(2,2):(1,2)]", "S[2:1] + R[4:1]"},
        {"S[2:1] + R[(3,2):(1,2)]", "S[2:1] + R[5:1]"},
        {"S[2:1] + R[(2,2):(1,1)]", "S[2:1] + R[3:1]"},
        {"S[2:1] + R[(1,3,2):(7,0,3@warpid)]", "S[2:1] + R[2:3@warpid]"},
        {"S[2:1] + R[(2,2):(1@laneid,-2@laneid)]",
         "S[2:1] + R[4:1@laneid] + -2@laneid"},
        {"S[2:1] + R[(3,2):(2,3)]", "S[2:1] + R[(3,2):(2,3)]"},
        {"S[2:1] + R[(2,2,2):(1,2,4)] + 3", "S[2:1] + R[8:1] + 3"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout in = lay(rows[i][0]), want = lay(rows[i][1]), got;
        axe_diag d = {0};
        axe_status st = axe_layout_normalize(&in, &got, &d);
        TL_CHECK(st == AXE_OK && axe_layout_equal(&got, &want),
                 "normalize %s = %s, want %s (%s)", rows[i][0],
                 st == AXE_OK ? lstr(&got) : "error", rows[i][1], d.message);
    }
}

/* equivalent: 1 true, 0 false, -1 AXE_ERR_CAPACITY. */
static void test_equivalent_table(void)
{
    static const struct {
        const char *a, *b;
        int want;
    } rows[] = {
        {"S[(2,4):(4,1)]", "S[8:1]", 1},
        {"S[4:1] + R[3:-2]", "S[4:1] + R[3:2] + -4", 1},
        {"S[4:0@laneid]", "S[(2,2):(0,0@warpid)]", 1},
        {"S[1:1@laneid]", "S[():()]", 1},
        {"S[1:1] + R[(3,2):(1,2)]", "S[1:1] + R[5:1]", 1},
        {"S[1:1] + R[(3,6):(2,3)]", "S[1:1] + R[(4,6):(3,2)]", 1},
        {"S[8:1]", "S[8:2]", 0},
        {"S[8:1]", "S[4:1]", 0},
        {"S[2:1] + R[2:3]", "S[2:1] + R[2:4]", 0},
        {"S[2:1] + R[(3,2):(2,3)]", "S[2:1] + R[(2,2):(3,4)]", 0},
        {"S[2:1] + 1@laneid", "S[2:1] + 1@warpid", 0},
        {"S[4:1@warp]", "S[4:1@warpid]", 1},
        {"S[(2,32):(1@warp,1@lane)]", "S[(2,32):(1@warpid,1@laneid)]", 1},
        {"S[2:1] + R[2:3@lane] + 1@laneid", "S[2:1] + R[2:3@laneid] + 1@lane",
         1},
        {"S[2:1] + 1@lane", "S[2:1] + 1@warp", 0},
        {"S[4:1@lane]", "S[4:1@Lane]", 0},
        {"S[1:1] + R[(3,2):(20000,30000)]", "S[1:1] + R[(2,2):(30000,40000)]",
         -1},
        {"S[1:1] + R[(3,2):(20000,30000)]", "S[1:1] + R[(3,2):(20000,30001)]",
         0},
        {"Swizzle<3,3,3>(S[512:1])", "S[512:1]", 0},
        {"Swizzle<3,0,3>(S[512:1])", "S[512:1]", 1},
        {"Swizzle<1,1,1>(S[2:1])", "S[2:1]", 1},
        {"Swizzle<3,3,3>(S[512:1])", "Swizzle<3,3,3>(S[(8,64):(64,1)])", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout a = lay(rows[i].a), b = lay(rows[i].b);
        axe_diag d = {0};
        bool got = false;
        axe_status st = axe_layout_equivalent(&a, &b, &got, &d);
        TL_CHECK(rows[i].want < 0
                     ? st == AXE_ERR_CAPACITY && d.message[0] != '\0'
                     : st == AXE_OK && got == (rows[i].want == 1),
                 "equivalent(%s, %s) = st %d got %d, want %d (%s)", rows[i].a,
                 rows[i].b, st, got, rows[i].want, d.message);
    }
}

/* A shape "[8,4]" (at most 16 dims) into "v"; its rank. */
static int ints(const char *s, int64_t *v)
{
    int n = 0;
    while (*s != '\0' && n < AXE_LAYOUT_MAX_DIMS) {
        char *end;
        long long x = strtoll(s, &end, 10);
        if (end == s) {
            s++;
            continue;
        }
        v[n++] = x;
        s = end;
    }
    return n;
}

/* group rows: expect layout and seps "[0,2,3]", or an error whose reason
 * contains "why" (then expect is NULL). */
static void test_group_table(void)
{
    static const struct {
        const char *in, *shape, *expect, *seps, *why;
    } rows[] = {
        {"S[(4,8):(8,1)]", "[32,1]", "S[(4,8,1):(8,1,1)]", "[0,2,3]", NULL},
        {"S[(4,8):(8,1)]", "[8,4]", "S[(4,2,4):(8,4,1)]", "[0,2,3]", NULL},
        {"S[8:1]", "[2,1,4]", "S[(2,1,4):(4,4,1)]", "[0,1,2,3]", NULL},
        {"S[(2,1,2):(2,9,1)] + R[2:3] + 4", "[4]",
         "S[(2,2):(2,1)] + R[2:3] + 4", "[0,2]", NULL},
        {"S[():()] + 3", "[]", "S[():()] + 3", "[0]", NULL},
        {"S[(6,5):(5,1)]", "[5,6]", NULL, NULL,
         "can not be grouped by shape [5,6]: boundary 5 after dim 0 falls "
         "inside iter 0 (6:5@m)"},
        {"S[(3,4):(4,1@laneid)]", "[2,6]", NULL, NULL,
         "boundary 2 after dim 0 falls inside iter 0 (3:4@m)"},
        {"S[(2,6):(6,1@laneid)]", "[3,4]", NULL, NULL,
         "boundary 3 after dim 0 falls inside iter 1 (6:1@laneid)"},
        {"S[(2,6):(6,1@laneid)]", "[4,3]", "S[(2,2,3):(6,3@laneid,1@laneid)]",
         "[0,2,3]", NULL},
        {"S[(6,5):(5,1)]", "[6,6]", NULL, NULL,
         "the layout has 30 elements, the shape 36"},
        {"S[():()]", "[1]", NULL, NULL, "the shard is empty"},
        {"S[8:1]", "[0,8]", NULL, NULL, "dims must be >= 1"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout in = lay(rows[i].in), got;
        int64_t shape[AXE_LAYOUT_MAX_DIMS], seps[AXE_LAYOUT_MAX_DIMS + 1];
        int sp[AXE_LAYOUT_MAX_DIMS + 1], n = ints(rows[i].shape, shape);
        axe_diag d = {0};
        axe_status st = axe_layout_group(&in, shape, n, &got, sp, &d);
        bool ok;
        if (rows[i].expect == NULL) {
            TL_CHECK(st != AXE_OK && strstr(d.message, rows[i].why) != NULL,
                     "group %s by %s: want '%s', got %d (%s)", rows[i].in,
                     rows[i].shape, rows[i].why, st, d.message);
            continue;
        }
        axe_layout want = lay(rows[i].expect);
        ok = st == AXE_OK && axe_layout_equal(&got, &want) &&
             ints(rows[i].seps, seps) == n + 1;
        for (int k = 0; ok && k <= n; k++)
            ok = sp[k] == seps[k];
        TL_CHECK(ok, "group %s by %s = %s, want %s %s (%s)", rows[i].in,
                 rows[i].shape, st == AXE_OK ? lstr(&got) : "error",
                 rows[i].expect, rows[i].seps, d.message);
    }
}

/* group_many's reasons (TIRx's messages). */
static void test_group_many_errors(void)
{
    static const struct {
        const char *in, *shapes[3], *why;
    } rows[] = {
        {"S[6:1]", {NULL}, "group_many requires at least one shape"},
        {"S[6:1]", {"[6]", "[]"}, "group_many shape 1 must not be empty"},
        {"S[6:1]",
         {"[6]", "[5]"},
         "equal total products for shape 0 and shape 1: 6 vs 5"},
        {"S[6:1]",
         {"[5]"},
         "the layout and shapes have equal total products: 6 vs 5"},
        {"S[6:1]",
         {"[2,0,3]"},
         "cumulative boundary order for shape 0 at dimension 1: 2 <= 0"},
        {"S[6:1]",
         {"[2,3]", "[3,2]"},
         "incompatible cumulative boundaries: 2 does not divide 3"},
        {"S[(2,3):(3,1)]",
         {"[3,2]"},
         "incompatible cumulative boundaries: 2 does not divide 3"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout in = lay(rows[i].in), got;
        int64_t v[3][AXE_LAYOUT_MAX_DIMS];
        const int64_t *shapes[3];
        int ns[3], n = 0, seps[3][AXE_LAYOUT_MAX_DIMS + 1];
        axe_diag d = {0};
        axe_status st;
        for (; n < 3 && rows[i].shapes[n] != NULL; n++) {
            ns[n] = ints(rows[i].shapes[n], v[n]);
            shapes[n] = v[n];
        }
        st = axe_layout_group_many(&in, shapes, ns, n, &got, seps, &d);
        TL_CHECK(st != AXE_OK && strstr(d.message, rows[i].why) != NULL,
                 "group_many row %zu: want '%s', got %d (%s)", i, rows[i].why,
                 st, d.message);
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

/* args[key] parsed, with args.swizzle_inner applied. */
static bool arg_layout(vcase *c, const char *key, axe_layout *l)
{
    const char *s = json_get_string(json_object_get(c->args, key), NULL);
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

static bool json_ints(const json_value *v, int64_t *out, int cap, int *n)
{
    if (!json_is_array(v) || (int)json_array_len(v) > cap)
        return false;
    *n = (int)json_array_len(v);
    for (int i = 0; i < *n; i++)
        if (json_get_int(json_array_at(v, (size_t)i), &out[i]) != JSON_OK)
            return false;
    return true;
}

/* "seps" equal to the JSON list "want". */
static bool seps_match(const int *seps, int n, const json_value *want)
{
    int64_t w[AXE_LAYOUT_MAX_SHARD + 1];
    int nw;
    if (!json_ints(want, w, AXE_LAYOUT_MAX_SHARD + 1, &nw) || nw != n)
        return false;
    for (int i = 0; i < n; i++)
        if (seps[i] != w[i])
            return false;
    return true;
}

/* The expected layout (cmp axe_struct / the "layout" of axe_group). */
static bool expect_layout(vcase *c, const json_value *v, const axe_layout *got)
{
    const char *s = json_get_string(v, NULL);
    axe_layout want;
    if (s == NULL || axe_parse_layout(s, strlen(s), &want, NULL) != AXE_OK)
        return false;
    snprintf(c->why, sizeof c->why, "got %s", lstr(got));
    return axe_layout_equal(got, &want);
}

static verdict run_canonicalize(vcase *c)
{
    axe_layout l, got;
    axe_diag d = {0};
    const char *t = json_get_string(json_object_get(c->args, "target"), NULL);
    axe_target target =
        t != NULL && strcmp(t, "cuda") == 0 ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
    if (!arg_layout(c, "layout", &l))
        return V_FAIL;
    if (axe_layout_canonicalize(&l, target, &got, &d) != AXE_OK) {
        snprintf(c->why, sizeof c->why, "error: %s", d.message);
        return c->expect_error ? V_PASS : V_FAIL;
    }
    return !c->expect_error && expect_layout(c, c->expect, &got) ? V_PASS
                                                                 : V_FAIL;
}

static verdict run_group(vcase *c)
{
    axe_layout l, got;
    int64_t shape[AXE_LAYOUT_MAX_DIMS];
    int n, seps[AXE_LAYOUT_MAX_DIMS + 1];
    axe_diag d = {0};
    if (!arg_layout(c, "layout", &l) ||
        !json_ints(json_object_get(c->args, "shape"), shape,
                   AXE_LAYOUT_MAX_DIMS, &n))
        return V_FAIL;
    if (axe_layout_group(&l, shape, n, &got, seps, &d) != AXE_OK) {
        snprintf(c->why, sizeof c->why, "error: %s", d.message);
        return c->expect_error && d.message[0] != '\0' ? V_PASS : V_FAIL;
    }
    return !c->expect_error &&
                   expect_layout(c, json_object_get(c->expect, "layout"),
                                 &got) &&
                   seps_match(seps, n + 1, json_object_get(c->expect, "seps"))
               ? V_PASS
               : V_FAIL;
}

static verdict run_group_many(vcase *c)
{
    axe_layout l, got;
    const json_value *sh = json_object_get(c->args, "shapes"), *ws;
    int64_t v[AXE_LAYOUT_MAX_DIMS][AXE_LAYOUT_MAX_DIMS];
    const int64_t *shapes[AXE_LAYOUT_MAX_DIMS];
    int ns[AXE_LAYOUT_MAX_DIMS], n, seps[AXE_LAYOUT_MAX_DIMS][17];
    axe_diag d = {0};
    bool ok;
    if (!arg_layout(c, "layout", &l) || !json_is_array(sh) ||
        (n = (int)json_array_len(sh)) > AXE_LAYOUT_MAX_DIMS)
        return V_FAIL;
    for (int k = 0; k < n; k++) {
        if (!json_ints(json_array_at(sh, (size_t)k), v[k], AXE_LAYOUT_MAX_DIMS,
                       &ns[k]))
            return V_FAIL;
        shapes[k] = v[k];
    }
    if (axe_layout_group_many(&l, shapes, ns, n, &got, seps, &d) != AXE_OK) {
        snprintf(c->why, sizeof c->why, "error: %s", d.message);
        return c->expect_error && d.message[0] != '\0' ? V_PASS : V_FAIL;
    }
    ws = json_object_get(c->expect, "seps");
    ok = !c->expect_error &&
         expect_layout(c, json_object_get(c->expect, "layout"), &got) &&
         json_is_array(ws) && (int)json_array_len(ws) == n;
    for (int k = 0; ok && k < n; k++)
        ok = seps_match(seps[k], ns[k] + 1, json_array_at(ws, (size_t)k));
    return ok ? V_PASS : V_FAIL;
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
        {"axe.canonicalize", run_canonicalize},
        {"axe.group", run_group},
        {"axe.group_many", run_group_many},
        {"axe.equal", run_equal},
    };
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

/* Run one JSON line; counts the cases of this file's ops in "ran". */
static void run_line(const char *line, size_t len, int *ran)
{
    json_arena *a = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    vcase c = {0};
    int err = 0;
    verdict r = V_FAIL;
    if (a != NULL && json_parse(a, line, len, &v, NULL, 0) == JSON_OK) {
        c.id = json_get_string(json_object_get(v, "id"), NULL);
        c.op = json_get_string(json_object_get(v, "op"), NULL);
        c.args = json_object_get(v, "args");
        c.expect = json_object_get(v, "expect");
        c.expect_error = json_get_bool(json_object_get(v, "expect_error"),
                                       &err) == JSON_OK &&
                         err;
        r = c.op != NULL && c.args != NULL ? run_case(&c) : V_FAIL;
    }
    if (r != V_NOT_MINE) {
        (*ran)++;
        TL_CHECK(r == V_PASS, "vector %s (%s): %.*s -- %s", c.id ? c.id : "?",
                 c.op ? c.op : "?", (int)(len < 300 ? len : 300), line, c.why);
    }
    json_arena_free(a);
}

/* Every case of this file's ops in axe.jsonl; false when it is missing. */
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
    printf("vectors: %d cases of canonicalize, group, group_many, equal\n",
           ran);
    free(text);
    return true;
}

/* ---- random layouts ------------------------------------------------------ */

static const char *const mem_axes[] = {"m", "P", "F", "gpuid"};

/* Thread-axis families: the first NGOOD are well formed in every
 * combination, the rest are not (conflicting scopes, broken chains). The
 * paper's spellings lane and warp appear alone and mixed with laneid and
 * warpid. */
static const char *const fams[][3] = {
    {NULL},
    {"laneid", NULL},
    {"laneid", "warpid", NULL},
    {"tx", NULL},
    {"laneid", "wid_in_wg", NULL},
    {"wgid", "tid_in_wg", NULL},
    {"wgid", "wid_in_wg", NULL},
    {"warpid", NULL},
    {"lane", "warp", NULL},
    {"lane", "warpid", "laneid"},
    {"warp", "laneid", NULL},
    {"lane", "wid_in_wg", NULL},
    {"laneid", "tx", NULL},
    {"wgid", "laneid", NULL},
    {"wgid", "wid_in_wg", "laneid"},
    {"lane", "tx", NULL},
    {"warp", "wid_in_wg", "lane"},
};
#define NGOOD 12
#define NFAM ((int)(sizeof fams / sizeof fams[0]))

/* A memory axis (60%) or one of family "fam"'s thread axes. */
static const char *pick_axis(int fam)
{
    int nt = 0;
    while (nt < 3 && fams[fam][nt] != NULL)
        nt++;
    if (nt == 0 || tl_range(0, 9) < 6)
        return mem_axes[tl_range(0, 3)];
    return fams[fam][tl_range(0, nt - 1)];
}

static void push_shard(axe_layout *l, int64_t e, int64_t s, const char *a)
{
    if (axe_layout_push_shard(l, e, s, a) != AXE_OK)
        exit(2);
}

static void push_replica(axe_layout *l, int64_t e, int64_t s, const char *a)
{
    if (axe_layout_push_replica(l, e, s, a) != AXE_OK)
        exit(2);
}

/* Up to 8 shard iters (size <= 256, a third continuing their inner
 * neighbour so that they fuse), strides in [-8, 8]. */
static void random_shard(axe_layout *l, int fam)
{
    int n = (int)tl_range(0, 8);
    int64_t e[8], s[8], size = 1;
    const char *a[8];
    for (int k = n - 1; k >= 0; k--) {
        int64_t lim = 256 / size < 4 ? 256 / size : 4;
        e[k] = tl_range(1, lim);
        size *= e[k];
        if (k + 1 < n && tl_range(0, 2) == 0) {
            a[k] = a[k + 1];
            s[k] = e[k + 1] * s[k + 1];
        } else {
            a[k] = pick_axis(fam);
            s[k] = tl_range(-8, 8);
        }
    }
    for (int k = 0; k < n; k++)
        push_shard(l, e[k], s[k], a[k]);
}

/* Up to 3 replica iters; "separated" ones on one axis with each stride
 * past the span of the smaller ones (the gap condition), random signs. */
static void random_replica(axe_layout *l, int fam, bool separated)
{
    int n = (int)tl_range(0, 3);
    const char *a = pick_axis(fam);
    int64_t span = 0;
    for (int k = 0; k < n; k++) {
        int64_t e = tl_range(separated ? 2 : 1, 4), s = tl_range(-6, 6);
        if (separated) {
            s = span + tl_range(1, 3);
            span += (e - 1) * s;
            s = tl_range(0, 1) ? -s : s;
        } else {
            a = pick_axis(fam);
        }
        push_replica(l, e, s, a);
    }
}

static axe_layout random_layout(int fam, bool separated)
{
    axe_layout l;
    int no = (int)tl_range(0, 3);
    axe_layout_init(&l);
    random_shard(&l, fam);
    random_replica(&l, fam, separated);
    for (int k = 0; k < no; k++)
        if (axe_layout_add_offset(&l, pick_axis(fam), tl_range(-5, 5)) !=
            AXE_OK)
            exit(2);
    return l;
}

/* ---- laws: canonicalize -------------------------------------------------- */

/* Spec §4 steps 1 and 2, written from the text: the layout GetScope sees. */
static axe_layout units_and_zeros_dropped(const axe_layout *l)
{
    axe_layout r = *l;
    int n = 0, m = 0;
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent != 1)
            r.shard[n++] = l->shard[k];
    if (n == 0 && l->nshard > 0) {
        r.shard[0] = l->shard[0];
        r.shard[0].stride = 1;
        n = 1;
    }
    for (int i = 0; i < l->noffset; i++)
        if (l->offset[i].value != 0)
            r.offset[m++] = l->offset[i];
    r.nshard = (uint8_t)n;
    r.noffset = (uint8_t)m;
    return r;
}

/* The CUDA fusion table of spec §4 with axe's wgid rule. */
static const struct {
    const char *axis;
    axe_scope sub, scope;
    const char *to;
    int64_t factor;
} fusion[] = {
    {"warpid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 32},
    {"laneid", AXE_SCOPE_THREAD, AXE_SCOPE_WARPGROUP, "tid_in_wg", 1},
    {"laneid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 1},
    {"wgid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 128},
    {"wgid", AXE_SCOPE_WARP, AXE_SCOPE_CTA, "warpid", 4},
    {"tid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 1},
    {"wid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_WARPGROUP, "tid_in_wg", 32},
    {"wid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 32},
    {"wid_in_wg", AXE_SCOPE_WARP, AXE_SCOPE_CTA, "warpid", 1},
};

#define NFUSION ((int)(sizeof fusion / sizeof fusion[0]))

/* The point "p" with thread axes fused at scope (sub, scope). */
static bpt fuse_point(bpt p, axe_scope sub, axe_scope scope)
{
    static int from[NFUSION], to[NFUSION];
    bpt q = p;
    if (from[0] == to[0])
        for (int r = 0; r < NFUSION; r++) {
            from[r] = ax_id(fusion[r].axis);
            to[r] = ax_id(fusion[r].to);
        }
    for (int r = 0; r < NFUSION; r++) {
        if (fusion[r].sub != sub || fusion[r].scope != scope)
            continue;
        q.v[from[r]] -= p.v[from[r]];
        q.v[to[r]] += p.v[from[r]] * fusion[r].factor;
    }
    return q;
}

/* L_c(x) == fuse(L_l(x)) as multisets for every x < size. */
static bool bf_same_fused(const axe_layout *l, const axe_layout *c,
                          axe_scope sub, axe_scope scope)
{
    static bpt pl[MAXPTS], pc[MAXPTS];
    bf_layout bl = bf_prep(l), bc = bf_prep(c);
    int64_t n = bf_size(l);
    if (n != bf_size(c))
        return false;
    for (int64_t x = 0; x < n; x++) {
        int cl = bf_set(&bl, x, false, pl), cc = bf_set(&bc, x, false, pc);
        for (int i = 0; i < cl; i++)
            pl[i] = fuse_point(pl[i], sub, scope);
        qsort(pl, (size_t)cl, sizeof *pl, bpt_cmp);
        if (cl != cc || memcmp(pl, pc, (size_t)cl * sizeof *pl) != 0)
            return false;
    }
    return true;
}

/* The shape of a canonical layout: no unit iter but a lone (1, 1, a), no
 * zero offset, no neighbours that continue each other, replicas sorted. */
static bool canonical_shape(const axe_layout *c)
{
    for (int k = 0; k < c->nshard; k++)
        if (c->shard[k].extent == 1 &&
            (c->nshard > 1 || c->shard[k].stride != 1))
            return false;
    for (int k = 0; k + 1 < c->nshard; k++)
        if (same_axis(c->shard[k].axis, c->shard[k + 1].axis) &&
            c->shard[k + 1].extent * c->shard[k + 1].stride ==
                c->shard[k].stride)
            return false;
    for (int i = 0; i < c->noffset; i++)
        if (c->offset[i].value == 0)
            return false;
    for (int k = 0; k + 1 < c->nreplica; k++) {
        const axe_iter *a = &c->replica[k], *b = &c->replica[k + 1];
        int o = strcmp(axis_of(a->axis), axis_of(b->axis));
        if (o > 0 ||
            (o == 0 && (a->extent > b->extent ||
                        (a->extent == b->extent && a->stride > b->stride))))
            return false;
    }
    return true;
}

/* canonicalize: fails exactly when the scope of the layout without unit
 * iters and zero offsets is ill formed (with that status); otherwise it
 * keeps the multiset L(x) of every x (fused through the table at a CUDA
 * scope), has the canonical shape and is idempotent. */
static void law_canonicalize(int iters)
{
    int fused = 0;
    for (int i = 0; i < iters; i++) {
        axe_layout l = random_layout((int)tl_range(0, NFAM - 1), false);
        axe_layout p = units_and_zeros_dropped(&l), c, c2;
        axe_target t = tl_range(0, 1) ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
        bool has;
        axe_scope sub, scope;
        axe_status ss = axe_layout_get_scope(&p, &has, &sub, &scope, NULL);
        axe_status st = axe_layout_canonicalize(&l, t, &c, NULL);
        if (ss != AXE_OK || st != AXE_OK) {
            TL_CHECK(st == ss, "canonicalize %s: %d, scope says %d", lstr(&l),
                     st, ss);
            continue;
        }
        if (has && t == AXE_TARGET_CUDA) {
            fused++;
            TL_CHECK(bf_same_fused(&l, &c, sub, scope),
                     "canonicalize (cuda) %s = %s changes the fused map",
                     lstr(&l), lstr(&c));
        } else {
            TL_CHECK(bf_same(&l, &c, false),
                     "canonicalize %s = %s changes the map", lstr(&l),
                     lstr(&c));
        }
        TL_CHECK(canonical_shape(&c), "canonicalize %s = %s: not canonical",
                 lstr(&l), lstr(&c));
        TL_CHECK(axe_layout_canonicalize(&c, t, &c2, NULL) == AXE_OK &&
                     same_exact(&c, &c2),
                 "canonicalize not idempotent: %s -> %s -> %s", lstr(&l),
                 lstr(&c), lstr(&c2));
    }
    printf("canonicalize: %d of %d random layouts fused at a CUDA scope\n",
           fused, iters);
}

/* ---- laws: normalize and equivalent -------------------------------------- */

/* The gap condition, from its definition: on each axis every replica
 * stride exceeds sum (e - 1) s over the replicas of smaller stride. */
static bool gap_holds(const axe_layout *nf)
{
    for (int i = 0; i < nf->nreplica; i++) {
        int64_t span = 0;
        for (int j = 0; j < nf->nreplica; j++) {
            const axe_iter *a = &nf->replica[i], *b = &nf->replica[j];
            if (j == i || !same_axis(a->axis, b->axis) || b->stride > a->stride)
                continue;
            if (b->stride == a->stride)
                return false;
            span += (b->extent - 1) * b->stride;
        }
        if (nf->replica[i].stride <= span)
            return false;
    }
    return true;
}

/* The shape of a full normal form: canonical, no stride-0 shard iter off
 * `m`, no size-1 shard, replica extents >= 2 with strides > 0 and no pair
 * where one absorbs the other (s | s' with s' / s <= e). */
static bool normal_shape(const axe_layout *nf)
{
    for (int k = 0; k < nf->nshard; k++)
        if ((nf->shard[k].stride == 0 && strcmp(nf->shard[k].axis, "m")) ||
            nf->shard[k].extent == 1)
            return false;
    for (int i = 0; i < nf->nreplica; i++) {
        const axe_iter *a = &nf->replica[i];
        if (a->extent < 2 || a->stride <= 0)
            return false;
        for (int j = 0; j < nf->nreplica; j++) {
            const axe_iter *b = &nf->replica[j];
            if (j != i && same_axis(a->axis, b->axis) &&
                a->stride <= b->stride && b->stride % a->stride == 0 &&
                b->stride / a->stride <= a->extent)
                return false;
        }
    }
    return canonical_shape(nf);
}

/* normalize keeps L(x) as sets, has the normal shape, is idempotent and a
 * canonical form already. */
static void law_normalize(int iters)
{
    for (int i = 0; i < iters; i++) {
        axe_layout l =
            random_layout((int)tl_range(0, NGOOD - 1), tl_range(0, 1) == 0);
        axe_layout nf, nf2, c;
        axe_diag d = {0};
        if (axe_layout_normalize(&l, &nf, &d) != AXE_OK) {
            TL_CHECK(false, "normalize %s: %s", lstr(&l), d.message);
            continue;
        }
        TL_CHECK(bf_same(&l, &nf, true), "normalize %s = %s changes the map",
                 lstr(&l), lstr(&nf));
        TL_CHECK(normal_shape(&nf), "normalize %s = %s: not normal", lstr(&l),
                 lstr(&nf));
        TL_CHECK(axe_layout_normalize(&nf, &nf2, NULL) == AXE_OK &&
                     same_exact(&nf, &nf2),
                 "normalize not idempotent: %s -> %s", lstr(&nf), lstr(&nf2));
        TL_CHECK(axe_layout_canonicalize(&nf, AXE_TARGET_NONE, &c, NULL) ==
                         AXE_OK &&
                     same_exact(&nf, &c),
                 "normalize %s = %s is not canonical", lstr(&l), lstr(&nf));
    }
}

/* Insert "it" at position "at" of arr[0 .. *n). */
static void insert_iter(axe_iter *arr, uint8_t *n, int at, axe_iter it)
{
    memmove(&arr[at + 1], &arr[at], (size_t)(*n - at) * sizeof *arr);
    arr[at] = it;
    (*n)++;
}

static axe_iter mk_iter(int64_t e, int64_t s, const char *axis)
{
    axe_iter it;
    memset(&it, 0, sizeof it);
    it.extent = e;
    it.stride = s;
    snprintf(it.axis, sizeof it.axis, "%s", axis);
    return it;
}

/* A divisor of e in (1, e), or 0 when e is prime or < 4. */
static int64_t some_divisor(int64_t e)
{
    for (int64_t d = 2; d * d <= e; d++)
        if (e % d == 0)
            return tl_range(0, 1) ? d : e / d;
    return 0;
}

/* Split shard (replica when "rep") iter k: (e1 e2, s) -> (e1, e2 s), (e2, s).
 */
static void split_iter(axe_iter *arr, uint8_t *n, int k)
{
    int64_t e2 = some_divisor(arr[k].extent);
    if (e2 == 0)
        return;
    insert_iter(arr, n, k + 1, mk_iter(e2, arr[k].stride, arr[k].axis));
    arr[k].extent /= e2;
    arr[k].stride *= e2;
}

/* Negate replica iter k's stride, the offset compensating: (e, s) + O ->
 * (e, -s) + O + (e - 1) s. */
static void negate_replica(axe_layout *l, int k)
{
    axe_iter *it = &l->replica[k];
    if (axe_layout_add_offset(l, it->axis, (it->extent - 1) * it->stride) !=
        AXE_OK)
        return;
    it->stride = -it->stride;
}

/* Replica (e, s) with e >= 3 -> (e - c, s) + (2, c s), c <= e / 2: the same
 * set (C2 backwards). */
static void unabsorb_replica(axe_layout *l, int k)
{
    axe_iter *it = &l->replica[k];
    int64_t c;
    if (it->extent < 3 || l->nreplica >= AXE_LAYOUT_MAX_REPLICA)
        return;
    c = tl_range(1, it->extent / 2);
    it->extent -= c;
    insert_iter(l->replica, &l->nreplica, l->nreplica,
                mk_iter(2, c * it->stride, it->axis));
}

/* One random rewrite of "l" that keeps the set-valued map (family "fam"
 * supplies the axes of new iters). */
static void rewrite(axe_layout *l, int fam)
{
    int ks = l->nshard ? (int)tl_range(0, l->nshard - 1) : -1;
    int kr = l->nreplica ? (int)tl_range(0, l->nreplica - 1) : -1;
    bool rs = l->nshard < AXE_LAYOUT_MAX_SHARD;
    bool rr = l->nreplica < AXE_LAYOUT_MAX_REPLICA;
    switch (tl_range(0, 8)) {
    case 0:
        if (ks >= 0 && rs)
            split_iter(l->shard, &l->nshard, ks);
        break;
    case 1:
        if (rs)
            insert_iter(l->shard, &l->nshard, (int)tl_range(0, l->nshard),
                        mk_iter(1, tl_range(-9, 9), pick_axis(fam)));
        break;
    case 2:
        if (kr >= 0 && rr)
            split_iter(l->replica, &l->nreplica, kr);
        break;
    case 3:
        if (kr >= 0)
            negate_replica(l, kr);
        break;
    case 4:
        if (rr)
            insert_iter(l->replica, &l->nreplica, l->nreplica,
                        tl_range(0, 1)
                            ? mk_iter(tl_range(1, 2), 0, pick_axis(fam))
                            : mk_iter(1, tl_range(-5, 5), pick_axis(fam)));
        break;
    case 5:
        if (kr >= 0) {
            axe_iter t = l->replica[kr];
            l->replica[kr] = l->replica[l->nreplica - 1];
            l->replica[l->nreplica - 1] = t;
        }
        break;
    case 6:
        if (axe_layout_add_offset(l, pick_axis(fam), 0) != AXE_OK)
            return;
        break;
    case 7:
        if (ks >= 0 && l->shard[ks].stride == 0)
            l->shard[ks] = mk_iter(l->shard[ks].extent, 0, pick_axis(fam));
        break;
    default:
        if (kr >= 0)
            unabsorb_replica(l, kr);
        break;
    }
}

/* One random change that usually changes the map. */
static void perturb(axe_layout *l, int fam)
{
    int ks = l->nshard ? (int)tl_range(0, l->nshard - 1) : -1;
    int kr = l->nreplica ? (int)tl_range(0, l->nreplica - 1) : -1;
    switch (tl_range(0, 3)) {
    case 0:
        if (ks >= 0)
            l->shard[ks].stride += tl_range(0, 1) ? 1 : -1;
        break;
    case 1:
        if (kr >= 0)
            l->replica[kr].stride += tl_range(0, 1) ? 1 : -1;
        break;
    case 2:
        if (kr >= 0)
            l->replica[kr].extent += 1;
        break;
    default:
        if (axe_layout_add_offset(l, pick_axis(fam), 1) != AXE_OK)
            return;
        break;
    }
}

/* Whether two replica iters of "l" share an axis. */
static int shared_axis(const axe_layout *l)
{
    for (int i = 0; i < l->nreplica; i++)
        for (int j = i + 1; j < l->nreplica; j++)
            if (strcmp(l->replica[i].axis, l->replica[j].axis) == 0)
                return 1;
    return 0;
}

/* Map-preserving rewrites give equivalent layouts, with equal normal
 * forms whenever both meet the gap condition. */
static void law_rewrites(int iters)
{
    int gapped = 0, deep = 0;
    for (int i = 0; i < iters; i++) {
        int fam = (int)tl_range(0, NGOOD - 1);
        axe_layout l = random_layout(fam, tl_range(0, 2) > 0), r = l, nl, nr;
        bool eq = false;
        axe_diag d = {0};
        for (int k = (int)tl_range(1, 6); k > 0; k--)
            rewrite(&r, fam);
        TL_CHECK(bf_same(&l, &r, true), "test bug: rewrite %s -> %s", lstr(&l),
                 lstr(&r));
        TL_CHECK(axe_layout_equivalent(&l, &r, &eq, &d) == AXE_OK && eq,
                 "equivalent(%s, %s) is not true (%s)", lstr(&l), lstr(&r),
                 d.message);
        if (axe_layout_normalize(&l, &nl, NULL) != AXE_OK ||
            axe_layout_normalize(&r, &nr, NULL) != AXE_OK) {
            TL_CHECK(false, "normalize %s or %s failed", lstr(&l), lstr(&r));
            continue;
        }
        if (!gap_holds(&nl) || !gap_holds(&nr))
            continue;
        gapped++;
        deep += shared_axis(&nl);
        TL_CHECK(axe_layout_equal(&nl, &nr),
                 "gap condition holds but normal forms differ: %s -> %s, %s "
                 "-> %s",
                 lstr(&l), lstr(&nl), lstr(&r), lstr(&nr));
    }
    printf("normal forms: %d of %d rewritten pairs met the gap condition, "
           "%d with two replicas on one axis\n",
           gapped, iters, deep);
}

/* equivalent agrees with the brute-force comparison of the set maps. */
static void law_equivalent(int iters)
{
    int yes = 0;
    for (int i = 0; i < iters; i++) {
        int fam = (int)tl_range(0, NGOOD - 1);
        axe_layout a = random_layout(fam, tl_range(0, 1) == 0), b = a;
        bool eq = false, want;
        axe_diag d = {0};
        axe_status st;
        for (int k = (int)tl_range(0, 4); k > 0; k--)
            rewrite(&b, fam);
        if (tl_range(0, 1))
            perturb(&b, fam);
        want = bf_same(&a, &b, true);
        yes += want;
        st = axe_layout_equivalent(&a, &b, &eq, &d);
        TL_CHECK(st == AXE_OK && eq == want,
                 "equivalent(%s, %s) = %d (st %d: %s), brute force %d",
                 lstr(&a), lstr(&b), eq, st, d.message, want);
    }
    printf("equivalent: %d of %d random pairs equivalent\n", yes, iters);
}

/* ---- laws: group and group_many ------------------------------------------ */

/* The extents of "l" split into random factors (units kept), into f. */
static int refined_extents(const axe_layout *l, int64_t *f)
{
    int n = 0;
    for (int k = 0; k < l->nshard; k++) {
        int64_t e = l->shard[k].extent, d = some_divisor(e);
        if (d != 0 && tl_range(0, 1)) {
            f[n++] = e / d;
            e = d;
        }
        f[n++] = e;
    }
    return n;
}

/* A shape whose dims are products of consecutive runs of f[0 .. nf), with
 * random extra dims of 1; at most AXE_LAYOUT_MAX_DIMS dims. */
static int shape_from(const int64_t *f, int nf, int64_t *shape)
{
    int n = 0;
    for (int i = 0; i < nf && n < AXE_LAYOUT_MAX_DIMS - 1;) {
        int64_t p = 1;
        for (int take = (int)tl_range(1, 3); take > 0 && i < nf; take--)
            p *= f[i++];
        if (i == nf || n == AXE_LAYOUT_MAX_DIMS - 2) {
            while (i < nf)
                p *= f[i++];
        }
        if (tl_range(0, 5) == 0)
            shape[n++] = 1;
        shape[n++] = p;
    }
    if (n == 0 || (n < AXE_LAYOUT_MAX_DIMS && tl_range(0, 5) == 0))
        shape[n++] = 1;
    return n;
}

/* A random shape of 0..4 dims in [1, 6]. */
static int random_shape(int64_t *shape)
{
    int n = (int)tl_range(0, 4);
    for (int d = 0; d < n; d++)
        shape[d] = tl_range(1, 6);
    return n;
}

/* Group is possible, from its meaning: equal sizes, every boundary
 * between dims at an iter edge or at a divisor of an iter's extent, and a
 * shard to split when there are dims (TIRx gives no unit iter to an empty
 * shard). */
static bool group_possible(const axe_layout *l, const int64_t *shape, int n)
{
    int64_t b = 1, size = bf_size(l);
    for (int d = 0; d < n; d++)
        b *= shape[d];
    if (b != size || (n > 0 && l->nshard == 0))
        return false;
    b = 1;
    for (int d = 0; d + 1 < n; d++) {
        int64_t before = 1;
        bool ok = false;
        b *= shape[d];
        for (int k = 0; k < l->nshard && !ok; k++) {
            int64_t e = l->shard[k].extent;
            ok = b % before == 0 && b <= before * e && e % (b / before) == 0;
            before *= e;
        }
        if (!ok && b != size)
            return false;
    }
    return true;
}

/* seps[0 .. n] partitions the shard of "g" into blocks of sizes shape[d]. */
static bool blocks_ok(const axe_layout *g, const int *seps,
                      const int64_t *shape, int n)
{
    if (seps[0] != 0 || seps[n] != g->nshard)
        return false;
    for (int d = 0; d < n; d++) {
        int64_t p = 1;
        if (seps[d + 1] < seps[d])
            return false;
        for (int k = seps[d]; k < seps[d + 1]; k++)
            p *= g->shard[k].extent;
        if (p != shape[d])
            return false;
    }
    return true;
}

/* The replica and offset of "a" and "b" are the same values. */
static bool same_rest(const axe_layout *a, const axe_layout *b)
{
    axe_layout x = *a, y = *b;
    x.nshard = 0;
    y.nshard = 0;
    return same_exact(&x, &y);
}

/* group: succeeds exactly when a grouping exists; then it keeps the map,
 * replica and offset, and dim d owns a block of size shape[d]. */
static void law_group(int iters)
{
    int grouped = 0;
    for (int i = 0; i < iters; i++) {
        axe_layout l = random_layout((int)tl_range(0, NFAM - 1), false), g;
        int64_t f[2 * AXE_LAYOUT_MAX_SHARD], shape[AXE_LAYOUT_MAX_DIMS];
        int seps[AXE_LAYOUT_MAX_DIMS + 1], n;
        axe_diag d = {0};
        axe_status st;
        bool want;
        n = tl_range(0, 3) ? shape_from(f, refined_extents(&l, f), shape)
                           : random_shape(shape);
        want = group_possible(&l, shape, n);
        st = axe_layout_group(&l, shape, n, &g, seps, &d);
        grouped += st == AXE_OK;
        TL_CHECK((st == AXE_OK) == want,
                 "group %s (rank %d): st %d, want %d "
                 "(%s)",
                 lstr(&l), n, st, want, d.message);
        if (st != AXE_OK) {
            TL_CHECK(strstr(d.message, "can not be grouped by shape") &&
                         (l.nshard == 0 || !strstr(d.message, "is empty")),
                     "group %s: reason '%s'", lstr(&l), d.message);
            continue;
        }
        TL_CHECK(bf_same(&l, &g, false) && same_rest(&l, &g) &&
                     blocks_ok(&g, seps, shape, n),
                 "group %s (rank %d) = %s", lstr(&l), n, lstr(&g));
    }
    printf("group: %d of %d random shapes grouped\n", grouped, iters);
}

/* The number of common boundaries: each distinct value as often as one
 * sequence (a shape's or the layout's cumulative products) holds it. */
static int common_count(const axe_layout *l, const int64_t *const *shapes,
                        const int *ns, int nshapes)
{
    int64_t seq[AXE_LAYOUT_MAX_DIMS + 1][AXE_LAYOUT_MAX_SHARD + 1];
    int len[AXE_LAYOUT_MAX_DIMS + 1], total = 0;
    for (int k = 0; k <= nshapes; k++) {
        int n = k < nshapes ? ns[k] : l->nshard;
        seq[k][0] = 1;
        for (int d = 0; d < n; d++)
            seq[k][d + 1] =
                seq[k][d] * (k < nshapes ? shapes[k][d] : l->shard[d].extent);
        len[k] = n + 1;
    }
    for (int k = 0; k <= nshapes; k++)
        for (int i = 0; i < len[k]; i++) {
            int best = 0, fresh = 1;
            for (int q = 0; q <= nshapes; q++) {
                int cnt = 0;
                for (int j = 0; j < len[q]; j++) {
                    cnt += seq[q][j] == seq[k][i];
                    fresh &= !(seq[q][j] == seq[k][i] &&
                               (q < k || (q == k && j < i)));
                }
                best = cnt > best ? cnt : best;
            }
            total += fresh ? best : 0;
        }
    return total;
}

/* group_many is possible: equal totals and the distinct boundaries of all
 * sequences form a chain under divisibility. */
static bool many_possible(const axe_layout *l, const int64_t *const *shapes,
                          const int *ns, int nshapes)
{
    int64_t v[(AXE_LAYOUT_MAX_DIMS + 1) * (AXE_LAYOUT_MAX_SHARD + 1)];
    int n = 0;
    for (int k = 0; k <= nshapes; k++) {
        int64_t p = 1;
        int len = k < nshapes ? ns[k] : l->nshard;
        v[n++] = 1;
        for (int d = 0; d < len; d++) {
            p *= k < nshapes ? shapes[k][d] : l->shard[d].extent;
            v[n++] = p;
        }
        if (p != bf_size(l))
            return false;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (v[i] <= v[j] && v[j] % v[i] != 0)
                return false;
    return true;
}

/* group_many(l, [shape]) and group(l, shape) agree when neither has units. */
static void check_single(const axe_layout *l, const axe_layout *gm,
                         const int *sm, const int64_t *shape, int n)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    bool units = false, ok;
    for (int d = 0; d < n; d++)
        units |= shape[d] == 1;
    for (int k = 0; k < l->nshard; k++)
        units |= l->shard[k].extent == 1;
    if (units)
        return;
    ok = axe_layout_group(l, shape, n, &g, seps, NULL) == AXE_OK &&
         same_exact(&g, gm) &&
         memcmp(seps, sm, (size_t)(n + 1) * sizeof *sm) == 0;
    TL_CHECK(ok, "group_many and group differ on %s: %s vs %s", lstr(l),
             lstr(gm), lstr(&g));
}

/* group_many: succeeds exactly when the boundaries chain; then it keeps
 * the map, every shape's dims own blocks of their sizes, and the shard has
 * one iter per step of the common boundary list (minimal). */
static void law_group_many(int iters)
{
    for (int i = 0; i < iters; i++) {
        axe_layout l = random_layout((int)tl_range(0, NFAM - 1), false), g;
        int64_t f[2 * AXE_LAYOUT_MAX_SHARD], v[3][AXE_LAYOUT_MAX_DIMS];
        const int64_t *shapes[3];
        int ns[3], nshapes = (int)tl_range(1, 3), nf = refined_extents(&l, f);
        int seps[3][AXE_LAYOUT_MAX_DIMS + 1], want;
        axe_diag d = {0};
        axe_status st;
        for (int k = 0; k < nshapes; k++) {
            ns[k] =
                tl_range(0, 4) ? shape_from(f, nf, v[k]) : random_shape(v[k]);
            shapes[k] = v[k];
        }
        want = many_possible(&l, shapes, ns, nshapes) && l.nshard > 0 &&
               ns[0] > 0 && (nshapes < 2 || ns[1] > 0) &&
               (nshapes < 3 || ns[2] > 0);
        if (want &&
            common_count(&l, shapes, ns, nshapes) - 1 > AXE_LAYOUT_MAX_SHARD)
            want = -1;
        st = axe_layout_group_many(&l, shapes, ns, nshapes, &g, seps, &d);
        TL_CHECK(want < 0 ? st == AXE_ERR_CAPACITY : (st == AXE_OK) == want,
                 "group_many %s (%d shapes): st %d, want %d (%s)", lstr(&l),
                 nshapes, st, want, d.message);
        if (st != AXE_OK)
            continue;
        TL_CHECK(bf_same(&l, &g, false) && same_rest(&l, &g) &&
                     g.nshard == common_count(&l, shapes, ns, nshapes) - 1,
                 "group_many %s = %s", lstr(&l), lstr(&g));
        for (int k = 0; k < nshapes; k++)
            TL_CHECK(blocks_ok(&g, seps[k], shapes[k], ns[k]),
                     "group_many %s = %s: shape %d's seps", lstr(&l), lstr(&g),
                     k);
        if (nshapes == 1)
            check_single(&l, &g, seps[0], shapes[0], ns[0]);
    }
}

/* ---- main ---------------------------------------------------------------- */

int main(void)
{
    bool vectors;
    tl_seed("test_layout_canon", 20260507);
    test_canonicalize_table();
    test_paper_axis_names();
    test_replica_order();
    test_normalize_table();
    test_equivalent_table();
    test_group_table();
    test_group_many_errors();
    vectors = test_vectors();
    law_canonicalize(3000);
    law_normalize(2000);
    law_rewrites(2000);
    law_equivalent(2000);
    law_group(3000);
    law_group_many(2000);
    if (!vectors) {
        printf("AXE_SHARED_DIR/vectors/axe.jsonl not found\n");
        tl_finish();
        return 77;
    }
    return tl_finish();
}
