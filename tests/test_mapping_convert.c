/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conversions between mapping expressions, Axe layouts and Triton linear
 * layouts: table rows (the reasons for layouts without a counterpart, e.g.
 * the Axe paper's Appendix G 24x24 layout and a non-bit-linear one) and
 * laws on seeded random inputs (AXE_TEST_SEED replays): an Axe layout made
 * of compact modes (or, with holes, of modes with gaps) converts to a
 * mapping expression (with padding) whose conversion back is the same
 * set-valued map; a mapping expression affine per axis survives
 * mapping -> Axe -> mapping as an equivalent expression; a layout converts
 * to a linear layout exactly when l(x) is the XOR of l(2^i) at every x
 * (checked here by brute force), the linear layout then evaluates like the
 * layout, prints and parses back to itself, and converts back to an Axe
 * layout with the same map whenever its bases on each axis share no bit
 * (and, for random swizzles of bit permutations on `m`, always: the
 * swizzle is recognized);
 * it inverts exactly when it is a bijection (brute force), and the inverse
 * undoes it.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/linear.h"
#include "axe/mapping.h"
#include "axe/notation_mapping.h"
#include "testlib.h"

#define RANDOM_CASES 300

static axe_layout layout_of(const char *text)
{
    axe_layout l;
    axe_cute_object o;
    axe_diag d;
    if (axe_parse_cute(text, strlen(text), &o, &d) == AXE_OK &&
        o.kind == AXE_CUTE_KIND_LAYOUT &&
        axe_layout_from_cute(&o.layout, &l, &d) == AXE_OK)
        return l;
    if (axe_parse_cute(text, strlen(text), &o, &d) == AXE_OK &&
        o.kind == AXE_CUTE_KIND_COMPOSED &&
        axe_layout_from_cute_composed(&o.composed, &l, &d) == AXE_OK)
        return l;
    if (axe_parse_layout(text, strlen(text), &l, &d) != AXE_OK) {
        fprintf(stderr, "bad table row %s: %s\n", text, d.message);
        exit(2);
    }
    return l;
}

/* The points of "a" and "b" agree at every logical index. */
static bool same_layout_map(const axe_layout *a, const axe_layout *b)
{
    static axe_point pa[256], pb[256];
    int64_t na, nb;
    if (axe_layout_size(a, NULL, &na) != AXE_OK ||
        axe_layout_size(b, NULL, &nb) != AXE_OK || na != nb)
        return false;
    for (int64_t x = 0; x < na; x++) {
        int ca, cb;
        if (axe_layout_apply_set(a, &x, NULL, 1, pa, 256, &ca, NULL) !=
                AXE_OK ||
            axe_layout_apply_set(b, &x, NULL, 1, pb, 256, &cb, NULL) !=
                AXE_OK ||
            ca != cb)
            return false;
        for (int i = 0; i < ca; i++) {
            bool found = false;
            for (int j = 0; j < cb && !found; j++)
                found = axe_point_equal(&pa[i], &pb[j]);
            if (!found)
                return false;
        }
    }
    return true;
}

/* ---- tables ----------------------------------------------------------- */

static void table_linear(void)
{
    static const struct {
        const char *layout;
        const char *reason; /* NULL: converts */
    } rows[] = {
        {"S[(4,8):(8,1)]", NULL},
        {"(8,4):(4,1)", NULL},
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", NULL},
        {"S[(2,16):(1@laneid,2)]", NULL},
        {"(24,24):(1,24)", "not a power of two"},
        {"S[4:3]", "not bit-linear"},
        {"S[8:1] + R[2:8]", "replica"},
        {"S[8:1] + 4", "offset"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout);
        axe_linear lin;
        axe_diag d;
        axe_status st;
        axe_diag_clear(&d);
        st = axe_linear_from_layout(&l, NULL, 0, &lin, &d);
        TL_CHECK(rows[r].reason == NULL
                     ? st == AXE_OK
                     : st != AXE_OK && strstr(d.message, rows[r].reason),
                 "linear of %s: %s (%s)", rows[r].layout, axe_status_name(st),
                 d.message);
    }
}

/* Linear layouts back to Axe layouts: the printed Axe layout (a swizzle
 * recognized on `m`), or the reason. */
static void table_linear_back(void)
{
    static const struct {
        const char *layout, *axe;
    } rows[] = {
        {"S[(4,8):(8,1)]", "S[32:1]"},
        {"Sw<3,4,3> o 0 o (8,128):(128,1)",
         "Swizzle<4,3,3>(S[(128,8):(1,128)])"},
        /* 9 address bits: bit 9 is never read, the smallest swizzle */
        {"Sw<3,4,3> o 0 o (8,64):(64,1)", "Swizzle<4,2,3>(S[(64,8):(1,64)])"},
        {"Sw<2,0,2> o 0 o (4,4):(4,1)", "Swizzle<0,2,2>(S[(4,4):(1,4)])"},
        {"Sw<3,4,-3> o 0 o 1024:1", "Swizzle<4,3,3,outer>(S[1024:1])"},
        {"S[(2,16):(1@laneid,2)]", "S[(2,16):(1@laneid,2)]"},
    };
    static const char *const no_swizzle =
        " - index=1 -> (1)\n   index=2 -> (1)\nwhere out dims are: [m (size "
        "2)]";
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout), back;
        axe_linear lin;
        axe_diag d;
        char text[256] = "";
        axe_status st = axe_linear_from_layout(&l, NULL, 0, &lin, &d);
        if (st == AXE_OK)
            st = axe_linear_to_layout(&lin, &back, &d);
        if (st == AXE_OK)
            axe_print_layout(&back, text, sizeof text);
        TL_CHECK(st == AXE_OK && strcmp(text, rows[r].axe) == 0 &&
                     same_layout_map(&l, &back),
                 "linear of %s back: %s, want %s", rows[r].layout,
                 st == AXE_OK ? text : d.message, rows[r].axe);
    }
    {
        axe_linear lin;
        axe_layout back;
        axe_diag d;
        axe_status st =
            axe_parse_linear(no_swizzle, strlen(no_swizzle), &lin, &d);
        if (st == AXE_OK)
            st = axe_linear_to_layout(&lin, &back, &d);
        TL_CHECK(st == AXE_ERR_UNSUPPORTED && strstr(d.message, "share bits"),
                 "equal bases back: %s (%s)", axe_status_name(st), d.message);
    }
}

static void table_linear_shape(void)
{
    static const struct {
        const char *layout;
        int64_t shape[2];
        bool invert;
        const char *text; /* NULL: rejected */
    } rows[] = {
        {"(4,8):(8,1)",
         {8, 4},
         false,
         " - dim0=1 -> (1)\n   dim0=2 -> (2)\n   dim0=4 -> (4)\n"
         " - dim1=1 -> (8)\n   dim1=2 -> (16)\n"
         "where out dims are: [m (size 32)]"},
        {"S[(2,4):(1@laneid,1)]",
         {2, 4},
         true,
         " - laneid=1 -> (1, 0)\n - m=1 -> (0, 1)\n   m=2 -> (0, 2)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 4)]"},
        {"S[(2,4):(1@laneid,2)]", {2, 4}, true, NULL},
        {"S[(2,4):(1,1)]", {2, 4}, false, NULL},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout);
        axe_linear lin, inv;
        axe_diag d;
        char text[1024] = "";
        axe_status st = axe_linear_from_layout(&l, rows[r].shape, 2, &lin, &d);
        if (st == AXE_OK && rows[r].invert)
            st = axe_linear_invert(&lin, &inv, &d);
        if (st == AXE_OK)
            axe_print_linear(rows[r].invert ? &inv : &lin, text, sizeof text);
        TL_CHECK(rows[r].text == NULL ? st == AXE_ERR_UNSUPPORTED
                                      : strcmp(text, rows[r].text) == 0,
                 "linear of %s: got\n%s\n(%s)", rows[r].layout, text,
                 d.message);
    }
}

static void table_from_layout(void)
{
    static const struct {
        const char *layout, *axes, *expr;
        bool holes;
    } rows[] = {
        {"S[(8,2,32):(64,1,2)]", "axes![B = 512]",
         "m![B / 64, B % 32, B / 32 % 2]", false},
        {"S[(8,512):(1,8)]", "axes![A = 8, B = 512]", "m![B, A]", false},
        {"S[4:2] + R[2:1]", "axes![A = 4]", "m![A, 2]", false},
        {"S[(4,4,4):(16,4,1)]", "axes![A = 4, B = 16]", "m![A, B]", false},
        {"S[(4,4,4):(32,8,1)]", "axes![A = 4, B = 16]",
         "m![A, B / 4, B % 4 # 8]", true},
        {"S[(4,8):(16,1)]", "axes![A = 4, B = 8]", NULL, false},
        {"S[(4,8):(1@laneid,4)]", "axes![A = 4, B = 8]", NULL, false},
        {"S[(4,8):(16,1)]", "axes![A = 4, B = 8]", "m![A, B # 16]", true},
        {"S[(4,4):(8,1)]", "axes![A = 4, B = 4]", "m![A, B # 8]", true},
        {"S[4:2]", "axes![A = 4]", "m![A, 1 # 2]", true},
        {"S[(4,8):(1,8)]", "axes![A = 4, B = 8]", "m![B, A # 8]", true},
        {"S[(4,8):(64,2)]", "axes![A = 4, B = 8]", "m![A, (B, 1 # 2) # 64]",
         true},
        {"S[4:4] + R[2:1]", "axes![A = 4]", "m![A, 2 # 4]", true},
        {"S[(8,2,32):(64,1,2)]", "axes![B = 512]",
         "m![B / 64, B % 32, B / 32 % 2]", true},
        {"S[(4,8):(12,1)]", "axes![A = 4, B = 8]", "m![A, B # 12]", true},
        {"S[(4,8):(3,1)]", "axes![A = 4, B = 8]", NULL, true},
        {"S[8:1] + 2", "axes![A = 8]", NULL, true},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout);
        axe_mapping_axes axes;
        axe_mapping m;
        axe_diag d;
        char text[256] = "";
        axe_status st = axe_parse_mapping_axes(rows[r].axes,
                                               strlen(rows[r].axes), &axes, &d);
        if (st == AXE_OK && rows[r].holes)
            st = axe_mapping_from_layout_holes(&l, &axes, &m, &d);
        else if (st == AXE_OK)
            st = axe_mapping_from_layout(&l, &axes, &m, &d);
        if (st == AXE_OK)
            axe_print_mapping_macro(&m, text, sizeof text);
        TL_CHECK(rows[r].expr == NULL ? st == AXE_ERR_UNSUPPORTED
                                      : strcmp(text, rows[r].expr) == 0,
                 "mapping of %s: got %s (%s)", rows[r].layout, text, d.message);
    }
}

/* The reason a layout has no mapping expression: the first that applies
 * of positions below 0, a reversed (negative-stride) mode, an offset. */
static void table_from_layout_reasons(void)
{
    static const struct {
        const char *layout, *axes;
        bool holes;
        const char *reason;
    } rows[] = {
        {"S[4:-1] + 3", "axes![A = 4]", false,
         "negative stride -1: mapping expressions cannot reverse an axis"},
        {"S[4:-1] + 3", "axes![A = 4]", true,
         "negative stride -1: mapping expressions cannot reverse an axis"},
        {"S[(2,2):(-2,1)] + 2", "axes![A = 2, B = 2]", false,
         "negative stride -2: mapping expressions cannot reverse an axis"},
        {"S[(2,2):(2,-1)] + 1", "axes![A = 2, B = 2]", false,
         "negative stride -1: mapping expressions cannot reverse an axis"},
        {"S[4:-1]", "axes![A = 4]", false, "reaches position -3 below 0"},
        {"S[4:-1] + R[2:-4] + 6", "axes![A = 4]", false,
         "reaches position -1 below 0"},
        {"S[4:1] + R[2:-4] + 4", "axes![A = 4]", true,
         "negative stride -4: mapping expressions cannot reverse an axis"},
        {"S[(4,1):(1,-5)] + 3", "axes![A = 4]", false,
         "the offset 3@m leaves a hole before it"},
        {"S[8:1] + 2", "axes![A = 8]", false,
         "the offset 2@m leaves a hole before it"},
        {"S[(4,8):(16,1)]", "axes![A = 4, B = 8]", false,
         "the layout skips positions"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout);
        axe_mapping_axes axes;
        axe_mapping m;
        axe_diag d = {0};
        axe_status st = axe_parse_mapping_axes(rows[r].axes,
                                               strlen(rows[r].axes), &axes, &d);
        if (st == AXE_OK)
            st = rows[r].holes
                     ? axe_mapping_from_layout_holes(&l, &axes, &m, &d)
                     : axe_mapping_from_layout(&l, &axes, &m, &d);
        TL_CHECK(st == AXE_ERR_UNSUPPORTED &&
                     strstr(d.message, rows[r].reason) != NULL,
                 "mapping of %s (holes %d): %s %s, want '%s'", rows[r].layout,
                 rows[r].holes, axe_status_name(st), d.message, rows[r].reason);
    }
}

/* ---- random layouts ----------------------------------------------------- */

/* A random compact layout on m: modes of random extents whose strides are
 * a random order of the compact strides (with "gaps", each block of the
 * faster modes grows by 0 to 3 positions); some modes become replicas. */
static void random_compact(axe_layout *l, axe_mapping_axes *axes, bool gaps)
{
    int64_t ext[5], stride[5], acc = 1;
    int perm[5], n = (int)tl_range(1, 4);
    char name[2] = "A";
    for (int k = 0; k < n; k++) {
        ext[k] = tl_range(2, 5);
        perm[k] = k;
    }
    for (int k = n - 1; k > 0; k--) {
        int j = (int)tl_range(0, k), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (int k = 0; k < n; k++) {
        stride[perm[k]] = acc;
        acc = acc * ext[perm[k]] + (gaps ? tl_range(0, 3) : 0);
    }
    axe_layout_init(l);
    axes->n = 0;
    for (int k = 0; k < n; k++) {
        bool replica = k > 0 && tl_range(0, 4) == 0;
        axe_status st = replica
                            ? axe_layout_push_replica(l, ext[k], stride[k], "m")
                            : axe_layout_push_shard(l, ext[k], stride[k], "m");
        name[0] = (char)('A' + axes->n);
        if (!replica && st == AXE_OK)
            st = axe_mapping_axes_add(axes, name, ext[k], NULL);
        TL_CHECK(st == AXE_OK, "building a random layout");
    }
}

static void law_from_layout(bool holes)
{
    static axe_layout l, back;
    static axe_mapping m, again;
    axe_mapping_axes axes;
    const char *tensor[AXE_MAPPING_MAX_AXES];
    for (int r = 0; r < RANDOM_CASES; r++) {
        axe_diag d;
        axe_mapping_part part = {&m, "m", 1, holes};
        axe_status st;
        bool eq = false;
        random_compact(&l, &axes, holes);
        for (int k = 0; k < axes.n; k++)
            tensor[k] = axes.name[k];
        st = holes ? axe_mapping_from_layout_holes(&l, &axes, &m, &d)
                   : axe_mapping_from_layout(&l, &axes, &m, &d);
        TL_CHECK(st == AXE_OK, "from_layout: %s", d.message);
        if (st != AXE_OK)
            continue;
        st = axe_mapping_to_layout(&part, 1, tensor, axes.n, &back, &d);
        TL_CHECK(st == AXE_OK && same_layout_map(&l, &back),
                 "Axe -> mapping -> Axe changes the map (%s)", d.message);
        st = holes ? axe_mapping_from_layout_holes(&back, &axes, &again, &d)
                   : axe_mapping_from_layout(&back, &axes, &again, &d);
        TL_CHECK(st == AXE_OK &&
                     axe_mapping_equivalent(&m, &again, &eq, &d) == AXE_OK &&
                     eq,
                 "mapping -> Axe -> mapping is not equivalent");
    }
}

/* A random layout of power-of-two extents with random small strides on
 * one or two axes. */
static void random_pow2(axe_layout *l)
{
    int n = (int)tl_range(1, 4);
    axe_layout_init(l);
    for (int k = 0; k < n; k++) {
        int64_t s =
            tl_range(0, 3) == 0 ? tl_range(0, 9) : INT64_C(1) << tl_range(0, 6);
        TL_CHECK(axe_layout_push_shard(l, INT64_C(1) << tl_range(1, 3), s,
                                       tl_range(0, 2) ? "m" : "laneid") ==
                     AXE_OK,
                 "building a random layout");
    }
}

/* A random swizzle over a random permutation of k address bits on `m`
 * (F2-linear, so it converts to a linear layout and back). */
static void random_swizzled(axe_layout *l)
{
    int k = (int)tl_range(2, 9), perm[9];
    int b = (int)tl_range(1, k / 2), a = (int)tl_range(b, k - b);
    for (int i = 0; i < k; i++)
        perm[i] = i;
    for (int i = k - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    axe_layout_init(l);
    for (int i = 0; i < k; i++)
        TL_CHECK(axe_layout_push_shard(l, 2, INT64_C(1) << perm[i], "m") ==
                     AXE_OK,
                 "building a random swizzled layout");
    l->swizzle = (axe_layout_swizzle){true, tl_range(0, 1) == 1,
                                      (int32_t)tl_range(0, k - a - b), b, a};
}

/* Brute force: l(x) == XOR of l(2^i) on every axis at every x. */
static bool xor_linear(const axe_layout *l)
{
    int64_t n;
    axe_point px, pb;
    if (axe_layout_size(l, NULL, &n) != AXE_OK)
        return false;
    for (int64_t x = 0; x < n; x++) {
        const char *axes[] = {"m", "laneid"};
        if (axe_layout_apply_base(l, x, &px, NULL) != AXE_OK)
            return false;
        for (int a = 0; a < 2; a++) {
            int64_t want = 0, got = 0;
            for (int i = 0; (INT64_C(1) << i) < n; i++) {
                if (!(x >> i & 1))
                    continue;
                if (axe_layout_apply_base(l, INT64_C(1) << i, &pb, NULL) !=
                    AXE_OK)
                    return false;
                for (int j = 0; j < pb.n; j++)
                    if (strcmp(pb.axis[j], axes[a]) == 0)
                        want ^= pb.v[j];
            }
            for (int j = 0; j < px.n; j++)
                if (strcmp(px.axis[j], axes[a]) == 0)
                    got = px.v[j];
            if (got != want)
                return false;
        }
    }
    return true;
}

static void check_linear(const axe_layout *l, const axe_linear *lin)
{
    static char text[4096];
    static axe_linear back;
    static axe_layout again;
    int64_t n, out[AXE_LINEAR_MAX_DIMS];
    axe_point p;
    axe_diag d;
    size_t len = axe_print_linear(lin, text, sizeof text);
    TL_CHECK(axe_parse_linear(text, len, &back, &d) == AXE_OK &&
                 memcmp(&back, lin, sizeof back) == 0,
             "linear text does not parse back: %s\n%s", d.message, text);
    TL_CHECK(axe_layout_size(l, NULL, &n) == AXE_OK, "size");
    for (int64_t x = 0; x < n; x++) {
        bool ok = axe_linear_apply(lin, &x, out) == AXE_OK &&
                  axe_layout_apply_base(l, x, &p, NULL) == AXE_OK;
        for (int k = 0; ok && k < p.n; k++)
            for (int o = 0; o < lin->nout; o++)
                if (strcmp(lin->out_name[o], p.axis[k]) == 0)
                    ok = out[o] == p.v[k];
        TL_CHECK(ok, "linear layout differs at %" PRId64, x);
    }
    if (axe_linear_to_layout(lin, &again, NULL) == AXE_OK)
        TL_CHECK(same_layout_map(l, &again),
                 "linear -> Axe changes the map:\n%s", text);
}

/* The output values of "lin" at flat index "x" as one number (outputs
 * concatenated, the first most significant). */
static int64_t packed_output(const axe_linear *lin, int64_t x)
{
    int64_t out[AXE_LINEAR_MAX_DIMS], v = 0;
    if (axe_linear_apply(lin, &x, out) != AXE_OK)
        return -1;
    for (int o = 0; o < lin->nout; o++)
        v = (v << lin->out_bits[o]) | out[o];
    return v;
}

/* The inverse exists iff the map is a bijection onto the output box
 * (brute force: distinct values, as many as the box holds); then
 * inv(lin(x)) = x at every x. */
static int invertible;

static void check_invert(const axe_linear *lin)
{
    static axe_linear inv;
    static unsigned char seen[1 << 12];
    int64_t n = INT64_C(1) << lin->in_bits[0], box = 1, in[8], back[8];
    bool injective = true;
    axe_status st;
    for (int o = 0; o < lin->nout; o++)
        box <<= lin->out_bits[o];
    memset(seen, 0, sizeof seen);
    for (int64_t x = 0; x < n && box <= (int64_t)sizeof seen; x++) {
        int64_t v = packed_output(lin, x);
        injective &= v >= 0 && v < box && !seen[v];
        if (v >= 0 && v < box)
            seen[v] = 1;
    }
    if (box > (int64_t)sizeof seen)
        return;
    st = axe_linear_invert(lin, &inv, NULL);
    TL_CHECK((st == AXE_OK) == (injective && box == n),
             "invert says %s, brute force bijective %d", axe_status_name(st),
             injective && box == n);
    invertible += st == AXE_OK;
    for (int64_t x = 0; st == AXE_OK && x < n; x++) {
        bool ok = axe_linear_apply(lin, &x, in) == AXE_OK &&
                  axe_linear_apply(&inv, in, back) == AXE_OK && back[0] == x;
        TL_CHECK(ok, "inverse(lin(%" PRId64 ")) != x", x);
    }
}

static void law_linear(void)
{
    static axe_layout l;
    static axe_linear lin;
    int linear = 0;
    for (int r = 0; r < RANDOM_CASES; r++) {
        axe_diag d;
        axe_status st;
        random_pow2(&l);
        axe_diag_clear(&d);
        st = axe_linear_from_layout(&l, NULL, 0, &lin, &d);
        TL_CHECK((st == AXE_OK) == xor_linear(&l),
                 "from_layout says %s (%s), brute force %d",
                 axe_status_name(st), d.message, xor_linear(&l));
        if (st == AXE_OK) {
            linear++;
            check_linear(&l, &lin);
            check_invert(&lin);
        }
    }
    for (int r = 0; r < RANDOM_CASES / 3; r++) {
        axe_layout back;
        axe_diag d;
        axe_status st;
        random_swizzled(&l);
        axe_diag_clear(&d);
        st = axe_linear_from_layout(&l, NULL, 0, &lin, &d);
        if (st == AXE_OK)
            st = axe_linear_to_layout(&lin, &back, &d);
        TL_CHECK(st == AXE_OK && xor_linear(&l) && same_layout_map(&l, &back),
                 "swizzled layout to linear and back: %s (%s)",
                 axe_status_name(st), d.message);
    }
    printf("%d random power-of-two layouts, %d bit-linear, %d invertible\n",
           RANDOM_CASES, linear, invertible);
}

/* A random small linear layout, every form the printer has: inputs with
 * no bits (size 1), outputs of size 1, no inputs or no outputs, names
 * starting with a digit or spelled like the text's words. */
static void random_linear(axe_linear *lin)
{
    static const char *names[] = {"index", "0", "where", "is", "m",
                                  "dim1",  "_", "lane",  "w2", "register"};
    int first = (int)tl_range(0, 9);
    memset(lin, 0, sizeof *lin);
    lin->nin = (int)tl_range(0, 3);
    lin->nout = (int)tl_range(0, 3);
    for (int o = 0; o < lin->nout; o++) {
        strcpy(lin->out_name[o], names[(first + 3 * o + 1) % 10]);
        lin->out_bits[o] = (int)tl_range(0, 3);
    }
    for (int d = 0; d < lin->nin; d++) {
        strcpy(lin->in_name[d], names[(first + d) % 10]);
        lin->in_bits[d] = (int)tl_range(0, 3);
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; o < lin->nout; o++)
                lin->basis[d][i][o] =
                    tl_range(0, (INT64_C(1) << lin->out_bits[o]) - 1);
    }
}

/* A random layout of size 1, 2 or 4 per iter (extent-1 iters too), and a
 * random shape of its size with dims of 1. */
static int random_tiny(axe_layout *l, int64_t *shape)
{
    int n = (int)tl_range(0, 3), nshape = 0;
    int64_t size = 1;
    axe_layout_init(l);
    for (int k = 0; k < n; k++) {
        int64_t e = INT64_C(1) << tl_range(0, 2);
        size *= e;
        TL_CHECK(axe_layout_push_shard(l, e, INT64_C(1) << tl_range(0, 4),
                                       tl_range(0, 2) ? "m" : "laneid") ==
                     AXE_OK,
                 "building a tiny layout");
    }
    while (size > 1 || tl_range(0, 2) == 0) {
        int64_t f = size > 1 && tl_range(0, 2) ? 2 : 1;
        shape[nshape++] = f;
        size /= f;
        if (nshape == 6) {
            shape[nshape - 1] *= size;
            break;
        }
    }
    return nshape;
}

/* parse(print(lin)) == lin (notation.md §16) for random linear layouts
 * and for those of random tiny layouts, with and without a shape. */
static void law_linear_text(void)
{
    static axe_linear lin, back;
    static char text[8192];
    int tiny = 0;
    for (int r = 0; r < RANDOM_CASES * 3; r++) {
        axe_layout l;
        int64_t shape[6];
        axe_diag d = {0};
        size_t len;
        if (r % 3 == 0) {
            random_linear(&lin);
        } else {
            int nshape = random_tiny(&l, shape);
            if (axe_linear_from_layout(&l, r % 3 == 1 ? NULL : shape,
                                       r % 3 == 1 ? 0 : nshape, &lin,
                                       NULL) != AXE_OK)
                continue;
            tiny++;
        }
        len = axe_print_linear(&lin, text, sizeof text);
        TL_CHECK(len < sizeof text &&
                     axe_parse_linear(text, len, &back, &d) == AXE_OK &&
                     memcmp(&back, &lin, sizeof back) == 0,
                 "linear text does not parse back: %s\n%s", d.message, text);
    }
    TL_CHECK(tiny > RANDOM_CASES, "only %d tiny layouts were linear", tiny);
}

/* ---- Triton distributed layouts ---------------------------------------- */

/* Triton's blocked layout sizePerThread [1,4], threadsPerWarp [8,4],
 * warpsPerCTA [2,2], order [1,0] on a 16x32 tensor, by hand from Triton's
 * definition (dim1 fastest: registers take dim1 bits 0-1, lanes dim1 bits
 * 2-3 then dim0 bits 0-2, warps dim1 bit 4 then dim0 bit 3), and as the
 * Axe layout of row-major index r*32 + c. */
#define BLOCKED_TEXT                                                           \
    " - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n"                       \
    " - lane=1 -> (0, 4)\n   lane=2 -> (0, 8)\n   lane=4 -> (1, 0)\n"          \
    "   lane=8 -> (2, 0)\n   lane=16 -> (4, 0)\n"                              \
    " - warp=1 -> (0, 16)\n   warp=2 -> (8, 0)\n"                              \
    " - block is a size 1 dimension\n"                                         \
    "where out dims are: [dim0 (size 16), dim1 (size 32)]"
#define BLOCKED_AXE "S[(2,8,2,4,4):(2@warpid,4@laneid,1@warpid,1@laneid,1@reg)]"
/* The mma.m16n8 accumulator (Triton's NVIDIA mma v2, one warp): lane l
 * holds rows l/4 and l/4 + 8, columns 2(l%4) + {0,1}; register bit 0 is
 * the column's bit 0, register bit 1 the row's bit 3. */
#define MMA_TEXT                                                               \
    " - register=1 -> (0, 1)\n   register=2 -> (8, 0)\n"                       \
    " - lane=1 -> (0, 2)\n   lane=2 -> (0, 4)\n   lane=4 -> (1, 0)\n"          \
    "   lane=8 -> (2, 0)\n   lane=16 -> (4, 0)\n"                              \
    " - warp is a size 1 dimension\n - block is a size 1 dimension\n"          \
    "where out dims are: [dim0 (size 16), dim1 (size 8)]"
#define MMA_AXE "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
/* The blocked layout on an 8x32 tensor: the warp bit for dim0 bit 3
 * falls off the tensor, so warp=2 is a broadcast (zero basis, replica). */
#define BCAST_TEXT                                                             \
    " - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n"                       \
    " - lane=1 -> (0, 4)\n   lane=2 -> (0, 8)\n   lane=4 -> (1, 0)\n"          \
    "   lane=8 -> (2, 0)\n   lane=16 -> (4, 0)\n"                              \
    " - warp=1 -> (0, 16)\n   warp=2 -> (0, 0)\n"                              \
    " - block is a size 1 dimension\n"                                         \
    "where out dims are: [dim0 (size 8), dim1 (size 32)]"
#define BCAST_AXE                                                              \
    "S[(8,2,4,4):(4@laneid,1@warpid,1@laneid,1@reg)] + R[2:2@warpid]"

static void table_to_triton(void)
{
    static const struct {
        const char *layout;
        int64_t shape[2];
        const char *want; /* the text, or a piece of the reason */
    } rows[] = {
        {BLOCKED_AXE, {16, 32}, BLOCKED_TEXT},
        {MMA_AXE, {16, 8}, MMA_TEXT},
        {BCAST_AXE, {8, 32}, BCAST_TEXT},
        {"S[(2,8,4,2):(2@reg,4@lane,1@lane,1@reg)]", {16, 8}, MMA_TEXT},
        {"S[(2,2):(1@bx,1@laneid)]",
         {2, 2},
         " - register is a size 1 dimension\n - lane=1 -> (0, 1)\n"
         " - warp is a size 1 dimension\n - block=1 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]"},
        {"S[(2,4):(1@m,1@laneid)]", {2, 4}, "axis laneid beside a memory axis"},
        {"S[(2,4):(1@m,1@smem)]", {2, 4}, "two axes are Triton's offset"},
        /* shared layouts: the memory axis is Triton's offset */
        {"S[(2,4):(4,1)]",
         {2, 4},
         " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (1, 0)\n"
         " - block is a size 1 dimension\n"
         "where out dims are: [dim0 (size 2), dim1 (size 4)]"},
        {"S[(2,4):(1@smem,2@smem)]",
         {2, 4},
         " - offset=1 -> (1, 0)\n   offset=2 -> (0, 1)\n   offset=4 -> (0, 2)\n"
         " - block is a size 1 dimension\n"
         "where out dims are: [dim0 (size 2), dim1 (size 4)]"},
        {"S[(2,4):(1@cbx,1)] + R[2:4]",
         {2, 4},
         " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (0, 0)\n"
         " - block=1 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 4)]"},
        {"Swizzle<0,1,1>(S[(2,2):(2,1)])",
         {2, 2},
         " - offset=1 -> (0, 1)\n   offset=2 -> (1, 1)\n"
         " - block is a size 1 dimension\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]"},
        {"S[(2,4):(1,4)]", {2, 4}, "some hardware input holds no element"},
        {"S[8:2@laneid]", {2, 4}, "some hardware input holds no element"},
        {"S[(2,2):(0@laneid,1@laneid)]", {2, 2}, "two elements"},
        {"S[4:1@laneid] + R[2:1@laneid]", {2, 2}, "shares bits"},
        {"S[4:1@laneid] + R[3:4@laneid]", {2, 2}, "power-of-two extent"},
        {"S[4:1@laneid] + R[2:4@m]", {2, 2}, "axis laneid beside a memory"},
        {"S[4:1] + R[2:4@laneid]", {2, 2}, "axis laneid beside a memory"},
        {"S[4:1@laneid] + 1@laneid", {2, 2}, "a linear layout maps 0 to 0"},
        {"S[4:1@laneid]", {2, 4}, "the shape has 8 elements"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_layout l = layout_of(rows[r].layout);
        axe_linear tri;
        axe_diag d;
        char text[1024] = "";
        axe_diag_clear(&d);
        axe_status st = axe_linear_to_triton(&l, rows[r].shape, 2, &tri, &d);
        if (st == AXE_OK)
            axe_print_linear(&tri, text, sizeof text);
        TL_CHECK(st == AXE_OK ? strcmp(text, rows[r].want) == 0
                              : strstr(d.message, rows[r].want) != NULL,
                 "triton of %s: got\n%s\n(%s)", rows[r].layout, text,
                 d.message);
    }
}

static void table_from_triton(void)
{
    static const struct {
        const char *text;
        const char *want; /* the layout, or a piece of the reason */
    } rows[] = {
        {BLOCKED_TEXT, BLOCKED_AXE},
        /* MMA_AXE's lane modes (8,4):(4,1) merge into 32:1 */
        {MMA_TEXT, "S[(2,32,2):(2@reg,1@laneid,1@reg)]"},
        {" - register=1 -> (0, 1)\n - lane=1 -> (1, 0)\n - warp=1 -> (0, 0)\n"
         " - block=1 -> (2, 0)\n"
         "where out dims are: [dim0 (size 4), dim1 (size 2)]",
         "S[(2,2,2):(1@cbx,1@laneid,1@reg)] + R[2:1@warpid]"},
        {BCAST_TEXT, BCAST_AXE},
        {" - register=1 -> (0, 1)\n - lane=1 -> (0, 1)\n   lane=2 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "not a basis of the tensor's bits"},
        {" - lane=1 -> (0, 1)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "not a basis of the tensor's bits"},
        /* laneid and cbx without warpid: no tile (canonicalize) */
        {" - lane=1 -> (1, 0)\n - block=1 -> (0, 1)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "disconnected scope chain"},
        /* shared layouts: offset is the memory axis m, block cbx */
        {" - offset=1 -> (0, 1)\n   offset=2 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "S[4:1]"},
        {" - offset=1 -> (0, 1)\n   offset=2 -> (0, 0)\n"
         " - block=1 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "S[(2,2):(1@cbx,1)] + R[2:2]"},
        {" - offset=1 -> (0, 1)\n   offset=2 -> (1, 1)\n"
         " - block is a size 1 dimension\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "Swizzle<0,1,1>(S[4:1])"},
        {" - offset=1 -> (0, 1)\n - lane=1 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "input lane beside offset"},
        {" - offset=1 -> (0, 1)\n   offset=2 -> (0, 1)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "not a basis of the tensor's bits"},
        {" - lane=1 -> (1, 1)\n   lane=2 -> (1, 0)\n"
         "where out dims are: [dim0 (size 2), dim1 (size 2)]",
         "bases on laneid share bits"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_linear lin;
        axe_layout l, want;
        axe_diag d;
        char text[512] = "";
        axe_diag_clear(&d);
        axe_status st =
            axe_parse_linear(rows[r].text, strlen(rows[r].text), &lin, &d);
        if (st == AXE_OK)
            st = axe_linear_from_triton(&lin, &l, &d);
        if (st == AXE_OK)
            axe_print_layout(&l, text, sizeof text);
        TL_CHECK(st == AXE_OK ? strcmp(text, rows[r].want) == 0
                              : strstr(d.message, rows[r].want) != NULL,
                 "axe of triton row %zu: got %s (%s)", r, text, d.message);
        if (st == AXE_OK) {
            want = layout_of(rows[r].want);
            TL_CHECK(same_layout_map(&l, &want), "row %zu: map differs", r);
        }
    }
}

/* The value of point "p" on hardware axis h (reg, laneid, warpid, bx;
 * `lane`, `warp` spelled either way), entries of one axis added. */
static int64_t hw_value(const axe_point *p, int h)
{
    static const char *const names[4][2] = {
        {"reg", "reg"}, {"laneid", "lane"}, {"warpid", "warp"}, {"cbx", "bx"}};
    int64_t v = 0;
    for (int k = 0; k < p->n; k++)
        if (strcmp(p->axis[k], names[h][0]) == 0 ||
            strcmp(p->axis[k], names[h][1]) == 0)
            v += p->v[k];
    return v;
}

/* A random bijection from tensor bits plus replica bits onto the bits of
 * reg, laneid, warpid (cbx sometimes, with warpid: a layout on laneid
 * and cbx alone is not a tile, its scope chain has a gap); "broken": one
 * iter then moved to a random bit (a gap or a collision, or the same
 * bijection). Shards 2:2^b@axis in
 * a random order, some hardware bits replicas 2:2^b@axis; a random shape of its
 * size. */
static int random_distributed(axe_layout *l, int64_t *shape, bool broken)
{
    static const char *const axes[4] = {"reg", "laneid", "warpid", "cbx"};
    int hw[16], bit[16], nb = 0, nshape = (int)tl_range(1, 3), nt = 0;
    int64_t cap[4] = {tl_range(0, 3), tl_range(0, 5), tl_range(0, 3), 0};
    cap[3] = cap[2] > 0 && tl_range(0, 3) == 0; /* cbx needs warpid */
    for (int h = 0; h < 4; h++)
        for (int b = 0; b < cap[h]; b++, nb++)
            hw[nb] = h, bit[nb] = b;
    for (int k = nb - 1; k > 0; k--) {
        int j = (int)tl_range(0, k), t = hw[k], u = bit[k];
        hw[k] = hw[j], bit[k] = bit[j], hw[j] = t, bit[j] = u;
    }
    axe_layout_init(l);
    for (int k = 0; k < nb; k++) {
        bool rep = k > 0 && l->nreplica < 4 && tl_range(0, 3) == 0;
        axe_status st = rep ? axe_layout_push_replica(
                                  l, 2, INT64_C(1) << bit[k], axes[hw[k]])
                            : axe_layout_push_shard(l, 2, INT64_C(1) << bit[k],
                                                    axes[hw[k]]);
        TL_CHECK(st == AXE_OK, "building a random distributed layout");
        nt += !rep;
    }
    if (nb == 0)
        TL_CHECK(axe_layout_push_shard(l, 1, 0, "reg") == AXE_OK, "empty");
    else if (broken) { /* one iter on a random bit: a gap or a collision */
        int k = (int)tl_range(0, nb - 1);
        axe_iter *it =
            k < l->nshard ? &l->shard[k] : &l->replica[k - l->nshard];
        it->stride = INT64_C(1) << tl_range(0, 5);
    }
    for (int d = 0; d < nshape; d++)
        shape[d] = 1;
    for (int t = 0; t < nt; t++)
        shape[tl_range(0, nshape - 1)] *= 2;
    return nshape;
}

/* Every hardware input of "tri" maps to an element x whose set L(x)
 * holds that input, and the inputs number size(l) times the replicas. */
static void check_triton(const axe_layout *l, const int64_t *shape, int n,
                         const axe_linear *tri)
{
    static axe_point set[256];
    int64_t total = 1, size, in[4], at[AXE_LINEAR_MAX_DIMS];
    for (int h = 0; h < 4; h++)
        total <<= tri->in_bits[h];
    TL_CHECK(axe_layout_size(l, NULL, &size) == AXE_OK, "size");
    for (int k = 0; k < l->nreplica; k++)
        size *= l->replica[k].extent;
    TL_CHECK(total == size, "%lld hardware inputs, %lld points",
             (long long)total, (long long)size);
    for (int64_t t = 0; t < total; t++) {
        int64_t rest = t, x = 0;
        int count = 0;
        bool found = false;
        for (int h = 3; h >= 0; h--) {
            in[h] = rest & ((INT64_C(1) << tri->in_bits[h]) - 1);
            rest >>= tri->in_bits[h];
        }
        TL_CHECK(axe_linear_apply(tri, in, at) == AXE_OK, "apply");
        for (int d = 0; d < n; d++)
            x = x * shape[d] + at[d];
        TL_CHECK(axe_layout_apply_set(l, &x, NULL, 1, set, 256, &count, NULL) ==
                     AXE_OK,
                 "apply_set");
        for (int c = 0; c < count && !found; c++)
            found = hw_value(&set[c], 0) == in[0] &&
                    hw_value(&set[c], 1) == in[1] &&
                    hw_value(&set[c], 2) == in[2] &&
                    hw_value(&set[c], 3) == in[3];
        TL_CHECK(found,
                 "register %lld lane %lld warp %lld block %lld -> "
                 "x = %lld, not in L(x)",
                 (long long)in[0], (long long)in[1], (long long)in[2],
                 (long long)in[3], (long long)x);
    }
}

/* Random bit-linear layouts over reg/laneid/warpid(/bx), replicas
 * included: the Triton layout holds the same pairs (brute force), prints
 * and parses back to itself, and reads back as a layout with the same
 * points at every index. */
static void law_triton(void)
{
    static char text[4096];
    for (int c = 0; c < RANDOM_CASES; c++) {
        axe_layout l, back;
        axe_linear tri, parsed;
        int64_t shape[3];
        axe_diag d;
        int n = random_distributed(&l, shape, false);
        axe_status st = axe_linear_to_triton(&l, shape, n, &tri, &d);
        TL_CHECK(st == AXE_OK, "triton of a random layout: %s", d.message);
        if (st != AXE_OK)
            continue;
        check_triton(&l, shape, n, &tri);
        size_t len = axe_print_linear(&tri, text, sizeof text);
        TL_CHECK(axe_parse_linear(text, len, &parsed, &d) == AXE_OK &&
                     memcmp(&parsed, &tri, sizeof tri) == 0,
                 "triton text does not parse back:\n%s", text);
        st = axe_linear_from_triton(&tri, &back, &d);
        TL_CHECK(st == AXE_OK && same_layout_map(&l, &back),
                 "triton back to axe:\n%s\n(%s)", text,
                 st == AXE_OK ? "map differs" : d.message);
    }
}

/* Brute force: the points of every L(x) are distinct and fill the box
 * [0, 2^bits) of each hardware axis (bits to hold its largest value). */
static bool bijective_onto_box(const axe_layout *l)
{
    static axe_point set[256];
    static int64_t seen[4096];
    int64_t size, box = 1, max[4] = {0}, n = 0;
    TL_CHECK(axe_layout_size(l, NULL, &size) == AXE_OK, "size");
    for (int64_t x = 0; x < size; x++) {
        int count = 0;
        TL_CHECK(axe_layout_apply_set(l, &x, NULL, 1, set, 256, &count, NULL) ==
                     AXE_OK,
                 "apply_set");
        for (int c = 0; c < count && n < 4096; c++) {
            int64_t key = 0;
            for (int h = 0; h < 4; h++) {
                int64_t v = hw_value(&set[c], h);
                max[h] = v > max[h] ? v : max[h];
                key = key << 8 | v;
            }
            for (int64_t j = 0; j < n; j++)
                if (seen[j] == key)
                    return false;
            seen[n++] = key;
        }
    }
    for (int h = 0; h < 4; h++)
        while (max[h] > 0)
            box *= 2, max[h] >>= 1;
    return n == box;
}

/* With one iter moved to a random bit: the Triton layout exists exactly
 * when brute force finds the points a bijection onto the hardware box,
 * and then holds the same pairs. */
static void law_triton_iff(void)
{
    int found = 0;
    for (int c = 0; c < RANDOM_CASES; c++) {
        axe_layout l;
        axe_linear tri;
        int64_t shape[3];
        axe_diag d;
        int n = random_distributed(&l, shape, true);
        bool want = bijective_onto_box(&l);
        axe_status st = axe_linear_to_triton(&l, shape, n, &tri, &d);
        char text[512];
        axe_print_layout(&l, text, sizeof text);
        TL_CHECK((st == AXE_OK) == want, "triton of %s: %s, brute force %s",
                 text, st == AXE_OK ? "OK" : d.message,
                 want ? "bijective" : "not bijective");
        if (st == AXE_OK && want)
            check_triton(&l, shape, n, &tri);
        found += want;
    }
    printf("%d broken distributed layouts, %d still bijections\n", RANDOM_CASES,
           found);
}

/* The value of point "p" on axis "name" (entries added). */
static int64_t axis_value(const axe_point *p, const char *name)
{
    int64_t v = 0;
    for (int k = 0; k < p->n; k++)
        if (strcmp(p->axis[k], name) == 0)
            v += p->v[k];
    return v;
}

/* A random bijection from tensor bits plus replica bits onto the bits of
 * the memory axis "mem" (`m` or `smem`) and sometimes `cbx`, shards
 * 2:2^b in a random order, some bits replicas; on `m` without cbx or
 * replicas sometimes a random swizzle on top (swizzles map to `m` only).
 * A random shape of its size. */
static int random_shared(axe_layout *l, int64_t *shape, const char **mem)
{
    int bits[12], hw[12], nb = 0, nshape = (int)tl_range(1, 3), nt = 0;
    int cap[2] = {(int)tl_range(1, 8), tl_range(0, 3) == 0 ? 2 : 0};
    const char *axes[2] = {tl_range(0, 1) ? "m" : "smem", "cbx"};
    char text[512], sw[600];
    axe_diag d;
    *mem = axes[0];
    for (int h = 0; h < 2; h++)
        for (int b = 0; b < cap[h]; b++, nb++)
            hw[nb] = h, bits[nb] = b;
    for (int k = nb - 1; k > 0; k--) {
        int j = (int)tl_range(0, k), t = hw[k], u = bits[k];
        hw[k] = hw[j], bits[k] = bits[j], hw[j] = t, bits[j] = u;
    }
    axe_layout_init(l);
    for (int k = 0; k < nb; k++) {
        bool rep = k > 0 && l->nreplica < 3 && tl_range(0, 4) == 0;
        axe_status st = rep ? axe_layout_push_replica(
                                  l, 2, INT64_C(1) << bits[k], axes[hw[k]])
                            : axe_layout_push_shard(l, 2, INT64_C(1) << bits[k],
                                                    axes[hw[k]]);
        TL_CHECK(st == AXE_OK, "building a random shared layout");
        nt += !rep;
    }
    if (cap[1] == 0 && l->nreplica == 0 && cap[0] >= 2 &&
        strcmp(axes[0], "m") == 0 && tl_range(0, 1)) {
        int b = (int)tl_range(1, cap[0] / 2);
        int a = (int)tl_range(b, cap[0] - b);
        int m = (int)tl_range(0, cap[0] - a - b);
        axe_print_layout(l, text, sizeof text);
        snprintf(sw, sizeof sw, "Swizzle<%d,%d,%d>(%s)", m, b, a, text);
        TL_CHECK(axe_parse_layout(sw, strlen(sw), l, &d) == AXE_OK,
                 "parse %s: %s", sw, d.message);
    }
    for (int k = 0; k < nshape; k++)
        shape[k] = 1;
    for (int t = 0; t < nt; t++)
        shape[tl_range(0, nshape - 1)] *= 2;
    return nshape;
}

/* Every (offset, block) input of the shared layout "tri" maps to an
 * element x whose set L(x) holds (mem = offset, cbx = block), the inputs
 * numbering size(l) times the replicas. */
static void check_shared(const axe_layout *l, const char *mem,
                         const int64_t *shape, int n, const axe_linear *tri)
{
    static axe_point set[256];
    int64_t total = INT64_C(1) << (tri->in_bits[0] + tri->in_bits[1]), size;
    int64_t in[2], at[AXE_LINEAR_MAX_DIMS];
    TL_CHECK(tri->nin == 2 && strcmp(tri->in_name[0], "offset") == 0 &&
                 strcmp(tri->in_name[1], "block") == 0,
             "shared layout inputs");
    TL_CHECK(axe_layout_size(l, NULL, &size) == AXE_OK, "size");
    for (int k = 0; k < l->nreplica; k++)
        size *= l->replica[k].extent;
    TL_CHECK(total == size, "%lld inputs, %lld points", (long long)total,
             (long long)size);
    for (int64_t t = 0; t < total; t++) {
        int64_t x = 0;
        int count = 0;
        bool found = false;
        in[0] = t & ((INT64_C(1) << tri->in_bits[0]) - 1);
        in[1] = t >> tri->in_bits[0];
        TL_CHECK(axe_linear_apply(tri, in, at) == AXE_OK, "apply");
        for (int k = 0; k < n; k++)
            x = x * shape[k] + at[k];
        TL_CHECK(axe_layout_apply_set(l, &x, NULL, 1, set, 256, &count, NULL) ==
                     AXE_OK,
                 "apply_set");
        for (int c = 0; c < count && !found; c++)
            found = axis_value(&set[c], mem) == in[0] &&
                    axis_value(&set[c], "cbx") == in[1];
        TL_CHECK(found, "offset %lld block %lld -> x = %lld, not in L(x)",
                 (long long)in[0], (long long)in[1], (long long)x);
    }
}

/* Random shared layouts (memory axis, cbx, replicas, swizzles): the
 * Triton shared layout holds the same pairs (brute force), prints and
 * parses back to itself, and reads back as a layout with the same points
 * at every index (the memory axis read back as `m`). */
static void law_triton_shared(void)
{
    static char text[4096];
    for (int c = 0; c < RANDOM_CASES; c++) {
        axe_layout l, back, want;
        axe_linear tri, parsed;
        int64_t shape[3];
        const char *mem;
        char ltext[512];
        axe_diag d;
        int n = random_shared(&l, shape, &mem);
        axe_status st = axe_linear_to_triton(&l, shape, n, &tri, &d);
        axe_print_layout(&l, ltext, sizeof ltext);
        TL_CHECK(st == AXE_OK, "triton of %s: %s", ltext, d.message);
        if (st != AXE_OK)
            continue;
        check_shared(&l, mem, shape, n, &tri);
        size_t len = axe_print_linear(&tri, text, sizeof text);
        TL_CHECK(axe_parse_linear(text, len, &parsed, &d) == AXE_OK &&
                     memcmp(&parsed, &tri, sizeof tri) == 0,
                 "triton text does not parse back:\n%s", text);
        st = axe_linear_from_triton(&tri, &back, &d);
        want = l;
        for (int k = 0; k < want.nshard + want.nreplica; k++) {
            axe_iter *it = k < want.nshard ? &want.shard[k]
                                           : &want.replica[k - want.nshard];
            if (strcmp(it->axis, mem) == 0) {
                memset(it->axis, 0, sizeof it->axis);
                it->axis[0] = 'm';
            }
        }
        TL_CHECK(st == AXE_OK && same_layout_map(&want, &back),
                 "%s: triton back to axe:\n%s\n(%s)", ltext, text,
                 st == AXE_OK ? "map differs" : d.message);
    }
}

int main(void)
{
    tl_seed("test_mapping_convert", 20261125);
    table_linear();
    table_linear_shape();
    table_linear_back();
    table_from_layout();
    table_from_layout_reasons();
    law_from_layout(false);
    law_from_layout(true);
    law_linear();
    law_linear_text();
    table_to_triton();
    table_from_triton();
    law_triton();
    law_triton_iff();
    law_triton_shared();
    return tl_finish();
}
