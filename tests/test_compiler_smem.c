/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared-memory bank conflicts and swizzle choice (compiler_smem.h):
 * the bank model against a brute-force count written here (every byte of
 * every active lane, banks scanned one by one), against `axe render --as
 * banks` (the library's picture) on random layouts, accesses and element
 * sizes; the swizzle choice against exhaustive enumeration (legal by an
 * independent closure check, no legal candidate strictly better); and the
 * classic cases of issue 15 §4 with their measured ways.
 */
#include <stdlib.h>
#include <string.h>

#include "axe/layout.h"
#include "axe/notation.h"
#include "axe/render.h"
#include "compiler_copy_ldsm.h"
#include "compiler_smem.h"
#include "compiler_synth.h"
#include "testlib.h"

static void must(axe_status st)
{
    if (st != AXE_OK) {
        fprintf(stderr, "test setup failed: %s\n", axe_status_name(st));
        exit(2);
    }
}

/* ---- the bank model against brute force ------------------------------ */

/* Ways by brute force: per phase and bank, the distinct words holding a
 * byte some active lane of the phase touches. */
static int brute_ways(const ax_warp_access *a, int *wavefronts)
{
    int phases = a->width > 4 ? a->width / 4 : 1, worst = 0;
    *wavefronts = 0;
    for (int p = 0; p < phases; p++) {
        int pw = 0;
        for (int bank = 0; bank < 32; bank++) {
            int64_t seen[128];
            int n = 0;
            for (int t = p * 32 / phases; t < (p + 1) * 32 / phases; t++)
                for (int64_t b = a->byte[t];
                     a->active[t] && b < a->byte[t] + a->width; b++) {
                    int64_t w = b >= 0 ? b / 4 : -((-b + 3) / 4);
                    int64_t bk = ((w % 32) + 32) % 32, k = 0;
                    while (k < n && seen[k] != w)
                        k++;
                    if (bk == bank && k == n)
                        seen[n++] = w;
                }
            pw = n > pw ? n : pw;
        }
        worst = pw > worst ? pw : worst;
        *wavefronts += pw;
    }
    return worst;
}

static void test_model_brute(int rounds)
{
    static const int widths[5] = {1, 2, 4, 8, 16};
    for (int r = 0; r < rounds; r++) {
        ax_warp_access a;
        ax_bank_count c;
        int64_t stride = tl_range(-70, 70), base = tl_range(-300, 300);
        int wf, ways;
        a.width = widths[tl_range(0, 4)];
        for (int t = 0; t < AX_WARP; t++) {
            int64_t u = tl_range(0, 3) == 0 ? tl_range(0, 31) : t;
            a.active[t] = tl_range(0, 7) != 0;
            a.byte[t] = (base + u * stride) * a.width;
        }
        must(axe__bank_count(&a, &c, NULL));
        ways = brute_ways(&a, &wf);
        TL_CHECK(c.ways == ways && c.wavefronts == wf,
                 "round %d width %d: ways %d wavefronts %d, brute %d %d", r,
                 a.width, c.ways, c.wavefronts, ways, wf);
    }
}

/* Rows worked by hand. */
static void test_model_table(void)
{
    static const struct {
        int width;
        int64_t lane_stride; /* byte address of lane t: t * stride */
        int lanes, ways, wavefronts;
    } rows[] = {
        {4, 4, 32, 1, 1},     /* consecutive words */
        {4, 128, 32, 32, 32}, /* a column of a 32x32 f32 tile */
        {4, 132, 32, 1, 1},   /* the same, rows padded to 33 */
        {2, 2, 32, 1, 1},     /* 16 words, two lanes each */
        {4, 0, 32, 1, 1},     /* one word: broadcast */
        {8, 8, 32, 1, 2},     /* LDS.64: 2 phases of 16 */
        {8, 16, 32, 2, 4},    /* lanes t, t+8 share banks */
        {16, 16, 32, 1, 4},   /* LDS.128: 4 phases of 8 */
        {16, 128, 8, 8, 8},   /* ldmatrix rows of a 128-byte-row tile */
        {16, 144, 8, 1, 1},   /* rows padded by 16 bytes */
        {1, 1, 32, 1, 1},     /* 8 words */
        {1, 128, 32, 32, 32},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ax_warp_access a;
        ax_bank_count c;
        a.width = rows[i].width;
        for (int t = 0; t < AX_WARP; t++) {
            a.active[t] = t < rows[i].lanes;
            a.byte[t] = t * rows[i].lane_stride;
        }
        must(axe__bank_count(&a, &c, NULL));
        TL_CHECK(c.ways == rows[i].ways && c.wavefronts == rows[i].wavefronts,
                 "row %zu: ways %d wavefronts %d, want %d %d", i, c.ways,
                 c.wavefronts, rows[i].ways, rows[i].wavefronts);
    }
}

static void test_model_rejects(void)
{
    ax_warp_access a;
    ax_bank_count c;
    axe_diag d;
    memset(&a, 0, sizeof a);
    a.width = 12;
    TL_CHECK(axe__bank_count(&a, &c, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "not 12") != NULL,
             "width 12 refused: %s", d.message);
    a.width = 8;
    a.active[3] = true;
    a.byte[3] = 4;
    TL_CHECK(axe__bank_count(&a, &c, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "lane 3") != NULL,
             "misaligned lane refused: %s", d.message);
}

/* ---- agreement with axe render --as banks ---------------------------- */

/* CuTe's Sw<b,m,s> of "x" (xor of bits [m+s, m+s+b) into [m, m+b)). */
static int64_t cute_swizzle(int b, int m, int s, int64_t x)
{
    int64_t mask = ((((int64_t)1 << b) - 1) << (m + s));
    return x ^ ((x & mask) >> s);
}

/* The ways the bank view reports in its summary line. */
static int render_ways(const char *text)
{
    const char *w = strstr(text, "-way bank conflict");
    if (strstr(text, "no bank conflict") != NULL)
        return 1;
    if (w == NULL)
        return -1;
    while (w > text && w[-1] >= '0' && w[-1] <= '9')
        w--;
    return atoi(w);
}

static int render_banks(const char *lay, int64_t rows, int64_t cols, int64_t eb,
                        int64_t n, int64_t k)
{
    axe_cute_object c;
    axe_render_options o;
    axe_render_buf b;
    axe_layout l;
    char acc[32];
    int ways = -1;
    axe_render_options_init(&o);
    o.view = AXE_RENDER_BANKS;
    o.colex = true;
    o.ndims = 2;
    o.shape[0] = rows;
    o.shape[1] = cols;
    o.elem_bytes = eb;
    o.has_access = true;
    (void)snprintf(acc, sizeof acc, "%lld:%lld", (long long)n, (long long)k);
    must(axe_parse_cute_layout(acc, strlen(acc), &o.access, NULL));
    must(axe_parse_cute(lay, strlen(lay), &c, NULL));
    must(c.kind == AXE_CUTE_KIND_LAYOUT
             ? axe_layout_from_cute(&c.layout, &l, NULL)
             : axe_layout_from_cute_composed(&c.composed, &l, NULL));
    axe_render_buf_init(&b, NULL, NULL);
    if (axe_render_layout(&o, &l, &b, NULL) == AXE_OK)
        ways = render_ways(b.data);
    axe_render_buf_free(&b);
    return ways;
}

static void test_agrees_with_render(int rounds)
{
    static const int64_t ebs[5] = {1, 2, 4, 8, 16};
    for (int r = 0; r < rounds; r++) {
        int64_t rows = tl_range(1, 16), cols = tl_range(1, 16);
        int64_t sr = tl_range(1, 40), sc = tl_range(0, 70);
        int64_t eb = ebs[tl_range(0, 4)], n = tl_range(1, 32);
        int64_t k = tl_range(0, (rows * cols - 1) / (n > 1 ? n - 1 : 1));
        int sb = (int)tl_range(0, 3), sm = (int)tl_range(0, 3);
        int ss = sb + (int)tl_range(0, 3);
        char lay[96];
        ax_warp_access a;
        ax_bank_count c;
        if (tl_range(0, 1))
            (void)snprintf(lay, sizeof lay, "(%lld,%lld):(%lld,%lld)",
                           (long long)rows, (long long)cols, (long long)sr,
                           (long long)sc);
        else
            (void)snprintf(lay, sizeof lay,
                           "Sw<%d,%d,%d> o 0 o (%lld,%lld):(%lld,%lld)", sb, sm,
                           ss, (long long)rows, (long long)cols, (long long)sr,
                           (long long)sc);
        memset(&a, 0, sizeof a);
        a.width = (int)eb;
        for (int64_t t = 0; t < n; t++) {
            int64_t x = t * k, addr = (x % rows) * sr + (x / rows) * sc;
            if (lay[0] == 'S')
                addr = cute_swizzle(sb, sm, ss, addr);
            a.active[t] = true;
            a.byte[t] = addr * eb;
        }
        must(axe__bank_count(&a, &c, NULL));
        int want = render_banks(lay, rows, cols, eb, n, k);
        TL_CHECK(c.ways == want,
                 "%s, %lld-byte elements, access %lld:%lld: "
                 "ways %d, render says %d",
                 lay, (long long)eb, (long long)n, (long long)k, c.ways, want);
    }
}

/* ---- the swizzle choice ---------------------------------------------- */

/* A tensor of "rows" x "cols" elements at row stride "ld" (row-major). */
typedef struct tile {
    int64_t rows, cols, ld;
    int64_t *addr, n;
    ax_tile_access acc[256];
    int nacc;
} tile;

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void tile_init(tile *t, int64_t rows, int64_t cols, int64_t ld)
{
    t->rows = rows;
    t->cols = cols;
    t->ld = ld;
    t->n = rows * cols;
    t->addr = malloc((size_t)t->n * sizeof(int64_t));
    if (t->addr == NULL)
        exit(2);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < cols; c++)
            t->addr[r * cols + c] = r * ld + c;
    qsort(t->addr, (size_t)t->n, sizeof(int64_t), cmp64);
    t->nacc = 0;
}

/* Lane l accesses "vec" elements from (r0 + dr(l), c0 + dc(l)), given as
 * lane strides: dr = (l / rdiv) % rmod * rmul + (l / rdiv2) % rmod2 * rmul2. */
typedef struct lane_map {
    int64_t rdiv, rmod, rmul, cdiv, cmod, cmul, rdiv2, rmod2, rmul2;
} lane_map;

static void add_access(tile *t, int64_t vec, int64_t r0, int64_t c0,
                       const lane_map *m)
{
    ax_tile_access *a = &t->acc[t->nacc++];
    a->vec = vec;
    for (int l = 0; l < AX_WARP; l++) {
        int64_t r = r0 + l / m->rdiv % m->rmod * m->rmul +
                    l / m->rdiv2 % m->rmod2 * m->rmul2;
        int64_t c = c0 + l / m->cdiv % m->cmod * m->cmul;
        a->active[l] = true;
        a->elem[l] = r * t->ld + c;
    }
}

static bool is_swizzle(const axe_layout_swizzle *sw, int m, int b, int s)
{
    return sw->present && sw->inner && sw->per_element == m && sw->len == b &&
           sw->atom == s;
}

/* Rows of 16-byte vectors: lane l at row r0 + l / 8, columns (l % 8) * 8
 * of a 64-element row (cp.async or LDS.128 row-wise). */
static const lane_map row_vectors = {8, 4, 1, 1, 8, 8, 1, 1, 0};

/* f16 64x64 (128-byte rows) written by 16-byte row vectors and read as
 * ldmatrix.x4 A fragments (lanes 0-7 rows 0-7 of columns 0-7, 8-15 rows
 * 8-15, 16-23 rows 0-7 of columns 8-15, 24-31 rows 8-15): each phase of 8
 * row addresses hits the same 4 banks (8-way) until Swizzle<3,3,3> (CuTe
 * Sw<3,3,3>) puts row r's 16-byte chunk c at c ^ (r % 8). */
static void test_pick_ldmatrix(void)
{
    static const lane_map ldm = {1, 8, 1, 16, 2, 8, 8, 2, 8};
    tile t;
    axe_layout_swizzle sw;
    ax_ways before, after;
    tile_init(&t, 64, 64, 64);
    for (int64_t r = 0; r < 64; r += 4)
        add_access(&t, 8, r, 0, &row_vectors);
    for (int64_t r = 0; r < 64; r += 16)
        for (int64_t c = 0; c < 64; c += 16)
            add_access(&t, 8, r, c, &ldm);
    must(axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, 16, &sw, &before, &after,
                           NULL));
    TL_CHECK(before.max == 8 && after.max == 1 && is_swizzle(&sw, 3, 3, 3),
             "f16 64x64 ldmatrix: ways %d -> %d with Swizzle<%d,%d,%d>",
             before.max, after.max, sw.per_element, sw.len, sw.atom);
    free(t.addr);
}

/* An element width below 1 bit (or above 64) is refused with the width
 * named (the whole-byte loop would not end on 0 or a negative width). */
static void test_pick_rejects_widths(void)
{
    static const lane_map row = {1, 1, 0, 1, 32, 1, 1, 1, 0};
    static const int64_t widths[] = {0, -4, 65};
    tile t;
    tile_init(&t, 32, 32, 32);
    add_access(&t, 1, 0, 0, &row);
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        axe_layout_swizzle sw;
        ax_ways before, after;
        axe_diag d;
        char want[32];
        axe_status st = axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, widths[i],
                                          &sw, &before, &after, &d);
        (void)snprintf(want, sizeof want, "of %lld bits", (long long)widths[i]);
        TL_CHECK(st == AXE_ERR_INVALID && strstr(d.message, want) != NULL,
                 "element width %lld refused: %d %s", (long long)widths[i],
                 (int)st, st == AXE_OK ? "" : d.message);
    }
    free(t.addr);
}

/* f32 32x32 transpose: rows written by 32 lanes (lane l at column l),
 * columns read (lane l at row l): 32-way until Swizzle<0,5,5>. */
static void test_pick_transpose(void)
{
    static const lane_map row = {1, 1, 0, 1, 32, 1, 1, 1, 0};
    static const lane_map col = {1, 32, 1, 1, 1, 0, 1, 1, 0};
    tile t;
    axe_layout_swizzle sw;
    ax_ways before, after;
    tile_init(&t, 32, 32, 32);
    for (int64_t i = 0; i < 32; i++) {
        add_access(&t, 1, i, 0, &row);
        add_access(&t, 1, 0, i, &col);
    }
    must(axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, 32, &sw, &before, &after,
                           NULL));
    TL_CHECK(before.max == 32 && after.max == 1 && is_swizzle(&sw, 0, 5, 5),
             "f32 transpose: ways %d -> %d with Swizzle<%d,%d,%d>", before.max,
             after.max, sw.per_element, sw.len, sw.atom);
    free(t.addr);
}

/* bf16 64x64 (128-byte rows) written by 16-byte row vectors. Read by
 * ldmatrix.trans (row addresses of 8 rows of one 16-byte column chunk per
 * phase): 8-way until Swizzle<3,3,3>, then 1. Read column-wise by 2-byte
 * lanes (lane l at row r0 + l): 32-way; the writes keep M >= 3 (runs of 8
 * elements in order), so a column element stays at its place in its
 * 16-byte chunk and the 32 rows share the 8 chunks' 8 banks of that
 * place: 4 ways is the least any legal swizzle gives, and the choice
 * reaches it. */
static void test_pick_bf16_columns(void)
{
    static const lane_map trans = {1, 8, 1, 8, 4, 8, 1, 1, 0};
    static const lane_map col = {1, 32, 1, 1, 1, 0, 1, 1, 0};
    tile t;
    axe_layout_swizzle sw;
    ax_ways before, after;
    tile_init(&t, 64, 64, 64);
    for (int64_t r = 0; r < 64; r += 4)
        add_access(&t, 8, r, 0, &row_vectors);
    for (int64_t r = 0; r < 64; r += 8)
        add_access(&t, 8, r, 0, &trans);
    must(axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, 16, &sw, &before, &after,
                           NULL));
    TL_CHECK(before.max == 8 && after.max == 1 && sw.per_element == 3 &&
                 sw.len == 3,
             "bf16 ldmatrix.trans: ways %d -> %d with Swizzle<%d,%d,%d>",
             before.max, after.max, sw.per_element, sw.len, sw.atom);
    t.nacc = 16;
    for (int64_t r = 0; r < 64; r += 32)
        for (int64_t c = 0; c < 64; c++)
            add_access(&t, 1, r, c, &col);
    must(axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, 16, &sw, &before, &after,
                           NULL));
    TL_CHECK(before.max == 32 && after.max == 4 && sw.per_element >= 3,
             "bf16 column reads: ways %d -> %d with Swizzle<%d,%d,%d>",
             before.max, after.max, sw.per_element, sw.len, sw.atom);
    free(t.addr);
}

/* A tensor with no access keeps its layout: no candidate has fewer than
 * the (0, 0) ways of none, so the choice is no swizzle, bounded or not
 * (a count that reported every candidate below with no access took the
 * last legal one). */
static void test_pick_no_access(void)
{
    tile t;
    axe_layout_swizzle sw = {false, true, 0, 0, 0};
    ax_ways before, after, b = {0, 0, 0}, w = {0, 0, 0};
    bool below = true;
    tile_init(&t, 32, 32, 32);
    must(axe__swizzle_pick(t.addr, t.n, t.acc, 0, 32, &sw, &before, &after,
                           NULL));
    TL_CHECK(!sw.present && after.max == 0 && after.sum == 0,
             "no access: Swizzle<%d,%d,%d> (present %d), ways (%d,%lld)",
             sw.per_element, sw.len, sw.atom, sw.present, after.max,
             (long long)after.sum);
    must(axe__tile_ways_below(t.acc, 0, 32, NULL, &b, &w, &below, NULL));
    TL_CHECK(!below, "no access: (0, 0) ways reported below a (0, 0) bound");
    b.max = 1;
    must(axe__swizzle_pick_below(t.addr, t.n, t.acc, 0, 32, &b, &sw, &before,
                                 &after, &below, NULL));
    TL_CHECK(below && !sw.present && after.max == 0,
             "no access under (1, 0): below %d, present %d, max %d", below,
             sw.present, after.max);
    free(t.addr);
}

/* Brute-force (max, sum) ways of the accesses of "t" under CuTe
 * Sw<b,m,s> (b = 0: none), with "bits"-bit elements (a single packed i4
 * reads its byte: width 1 at its address / 2); -1 when a vector
 * is longer than the runs of 2^m the swizzle keeps in order (a vector
 * must stay contiguous wherever the kernel places it, not only at the
 * addresses sampled here), when an accessed vector does not stay in
 * order, or the tensor's addresses are not closed. */
static int64_t brute_pick_ways(const tile *t, int64_t bits, int b, int m, int s,
                               int *max)
{
    int64_t sum = 0;
    *max = 0;
    for (int i = 0; i < t->nacc; i++) {
        ax_warp_access a;
        int wf, w;
        if (b > 0 && t->acc[i].vec > ((int64_t)1 << m))
            return -1;
        a.width =
            (int)(t->acc[i].vec * bits < 8 ? 1 : t->acc[i].vec * bits / 8);
        for (int l = 0; l < AX_WARP; l++) {
            int64_t e = t->acc[i].elem[l];
            a.active[l] = t->acc[i].active[l];
            a.byte[l] = cute_swizzle(b, m, s, e) * bits / 8;
            for (int64_t k = 1; b > 0 && a.active[l] && k < t->acc[i].vec; k++)
                if (cute_swizzle(b, m, s, e + k) !=
                    cute_swizzle(b, m, s, e) + k)
                    return -1;
        }
        w = brute_ways(&a, &wf);
        *max = w > *max ? w : *max;
        sum += w;
    }
    for (int64_t k = 0; b > 0 && k < t->n; k++) {
        int64_t x = cute_swizzle(b, m, s, t->addr[k]);
        if (bsearch(&x, t->addr, (size_t)t->n, sizeof(int64_t), cmp64) == NULL)
            return -1;
    }
    return sum;
}

/* axe__swizzle_pick_below against bound "b" agrees with the unbounded
 * choice "sw" with counts "after": below exactly when "after" is below
 * "b" (a smaller max, or the same max and a smaller sum), and then the
 * same swizzle and counts. */
static void check_below(const tile *t, int64_t eb, const axe_layout_swizzle *sw,
                        const ax_ways *after, ax_ways b, int r)
{
    axe_layout_swizzle got = {false, true, 0, 0, 0};
    ax_ways before, w = {0, 0, 0};
    bool below = false, want = after->max < b.max ||
                               (after->max == b.max && after->sum < b.sum);
    must(axe__swizzle_pick_below(t->addr, t->n, t->acc, t->nacc, eb, &b, &got,
                                 &before, &w, &below, NULL));
    TL_CHECK(below == want &&
                 (!below || (got.present == sw->present &&
                             (!got.present ||
                              (got.per_element == sw->per_element &&
                               got.len == sw->len && got.atom == sw->atom)) &&
                             w.max == after->max && w.sum == after->sum)),
             "round %d: bounded by (%d,%lld): below %d (want %d), counts "
             "(%d,%lld) against (%d,%lld)",
             r, b.max, (long long)b.sum, below, want, w.max, (long long)w.sum,
             after->max, (long long)after->sum);
}

/* Random tiles (rows padded or not) and accesses of 4- (packed i4), 8-,
 * 16-, 32- and 64-bit elements: the choice is legal, its counts are the
 * brute force's, no candidate of the family does strictly better, and
 * none as good has fewer xor bits (for i4 the family keeps whole bytes:
 * M >= 1); the bounded choice agrees with it (check_below). */
static void test_pick_brute(int rounds)
{
    static const int64_t ebs[5] = {4, 8, 16, 32, 64};
    for (int r = 0; r < rounds; r++) {
        tile t;
        axe_layout_swizzle sw;
        ax_ways before, after;
        int64_t eb = ebs[tl_range(0, 4)], rows = (int64_t)1 << tl_range(1, 5);
        int64_t cols = (int64_t)1 << tl_range(1, 6), bits = 0;
        int bmax, fewer = 0, strictly = 0;
        tile_init(&t, rows, cols,
                  cols + (tl_range(0, 2) == 0 ? 8 * tl_range(1, 2) : 0));
        t.nacc = (int)tl_range(1, 6);
        for (int i = 0; i < t.nacc; i++) {
            int64_t vec = (int64_t)1 << tl_range(0, 2);
            if (eb == 4 && tl_range(0, 2) == 0) /* whole i4 bytes */
                vec = (int64_t)1 << tl_range(3, 5);
            while (vec * eb > 128 || vec > cols)
                vec /= 2;
            lane_map m = {tl_range(1, 4),
                          tl_range(1, 32),
                          tl_range(0, 2),
                          tl_range(1, 4),
                          tl_range(1, 32),
                          tl_range(0, 3) * vec,
                          1,
                          1,
                          0};
            ax_tile_access *a = &t.acc[i];
            a->vec = vec;
            for (int l = 0; l < AX_WARP; l++) {
                int64_t rr = l / m.rdiv % m.rmod * m.rmul % rows;
                int64_t cc = l / m.cdiv % m.cmod * m.cmul % cols / vec * vec;
                a->active[l] = tl_range(0, 5) != 0;
                a->elem[l] = rr * t.ld + cc;
            }
        }
        must(axe__swizzle_pick(t.addr, t.n, t.acc, t.nacc, eb, &sw, &before,
                               &after, NULL));
        int bm, bs = sw.present ? sw.len : 0;
        int64_t bsum =
            brute_pick_ways(&t, eb, bs, sw.per_element, sw.atom, &bm);
        TL_CHECK(bsum == after.sum && bm == after.max,
                 "round %d: chosen Swizzle<%d,%d,%d> counts (%d,%lld), brute "
                 "(%d,%lld)",
                 r, sw.per_element, bs, sw.atom, after.max,
                 (long long)after.sum, bm, (long long)bsum);
        check_below(&t, eb, &sw, &after, after, r);
        check_below(&t, eb, &sw, &after, (ax_ways){after.max, after.sum + 1, 0},
                    r);
        check_below(&t, eb, &sw, &after, before, r);
        check_below(&t, eb, &sw, &after, (ax_ways){after.max + 1, 0, 0}, r);
        while (((int64_t)1 << bits) <= t.addr[t.n - 1])
            bits++;
        bmax = (int)bits;
        for (int b = 1; b <= bmax; b++)
            for (int m = eb < 8 ? 1 : 0; m + b <= bmax; m++)
                for (int s = b; m + b + s <= bmax; s++) {
                    int cm;
                    int64_t cs = brute_pick_ways(&t, eb, b, m, s, &cm);
                    if (cs < 0)
                        continue;
                    strictly +=
                        cm < after.max || (cm == after.max && cs < after.sum);
                    fewer += cm == after.max && cs == after.sum && b < bs;
                }
        TL_CHECK(strictly == 0 && fewer == 0,
                 "round %d: %d candidates better than Swizzle<%d,%d,%d>, %d "
                 "as good with fewer bits",
                 r, strictly, sw.per_element, bs, sw.atom, fewer);
        free(t.addr);
    }
}

/* ---- alignment constraints --------------------------------------------- */

static axe_cute_layout cute_of(const char *text)
{
    axe_cute_layout l;
    must(axe_parse_cute_layout(text, strlen(text), &l, NULL));
    return l;
}

/* Hexcute §5.2: a 4x64 f16 tile loaded with 16-byte vectors (thread t at
 * row t / 8, columns 8 (t % 8) ..) gives (4,8,8):(d2,1,d1). */
static void test_align_paper(void)
{
    static const int64_t shape[2] = {4, 64};
    axe_cute_layout tv = cute_of("((8,4),8):((8,64),1)");
    ax_run r;
    ax_free_layout f;
    char cute[64], axe[64];
    must(axe__smem_run_of_tv(shape, 2, &tv, 32, 8, "copy#0", &r, NULL));
    must(axe__smem_candidate(shape, 2, &r, &f, NULL));
    (void)axe__free_layout_text(&f, true, cute, sizeof cute);
    (void)axe__free_layout_text(&f, false, axe, sizeof axe);
    TL_CHECK(r.dim == 1 && r.len == 8 &&
                 strcmp(cute, "(4,8,8):(d2,1,d1)") == 0 &&
                 strcmp(axe, "S[(4,8,8):(d2,d1,1)]") == 0,
             "paper example: run %d x %lld, %s, %s", r.dim, (long long)r.len,
             cute, axe);
}

/* Thread-value layouts refused or read along the rows. */
static void test_align_tv_table(void)
{
    static const int64_t shape[2] = {8, 8};
    static const struct {
        const char *tv;
        int64_t nt, len;
        int dim; /* -1: refused */
    } rows[] = {
        {"(8,8):(8,1)", 8, 8, 1},          /* thread = row, values along it */
        {"(8,8):(1,8)", 8, 8, 0},          /* thread = column */
        {"(8,(2,2)):(8,(1,4))", 8, 2, 1},  /* pairs: columns 0-1, 4-5 */
        {"(8,(2,2)):(8,(1,4))", 8, 4, -1}, /* 4 values skip 2-3 */
        {"(16,4):(4,1)", 16, 4, 1},
        {"(16,4):(3,1)", 16, 4, -1}, /* starts not aligned */
        {"(8,8):(8,2)", 8, 2, -1},   /* step 2: no dimension's */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_cute_layout tv = cute_of(rows[i].tv);
        ax_run r;
        axe_status st = axe__smem_run_of_tv(shape, 2, &tv, rows[i].nt,
                                            rows[i].len, "copy#1", &r, NULL);
        TL_CHECK(rows[i].dim < 0 ? st == AXE_ERR_UNSUPPORTED
                                 : st == AXE_OK && r.dim == rows[i].dim &&
                                       r.len == rows[i].len,
                 "tv %s len %lld: status %s dim %d", rows[i].tv,
                 (long long)rows[i].len, axe_status_name(st),
                 st == AXE_OK ? r.dim : -1);
    }
}

/* The layout's address of row-major element "x" (m only). */
static int64_t addr_at(const axe_layout *l, int64_t x)
{
    return axe__smem_tile_addr(l, x);
}

/* Every aligned run of "len" along "dim" is at consecutive addresses. */
static bool runs_hold(const axe_layout *l, const int64_t *shape, int ndim,
                      int dim, int64_t len)
{
    int64_t n = 1, step = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    for (int d = dim + 1; d < ndim; d++)
        step *= shape[d];
    for (int64_t x = 0; x < n; x++) {
        int64_t c = x / step % shape[dim];
        for (int64_t e = 1; c % len == 0 && e < len; e++)
            if (addr_at(l, x + e * step) != addr_at(l, x) + e)
                return false;
    }
    return true;
}

/* Random shapes and runs: every instance of the candidate (free strides
 * given random padded values in a random nesting) satisfies the run
 * pointwise; the compact instance is a bijection onto [0, size). */
static void test_align_laws(int rounds)
{
    for (int r = 0; r < rounds; r++) {
        int ndim = (int)tl_range(1, 3);
        int64_t shape[3], n = 1;
        ax_run run;
        ax_free_layout f;
        axe_layout inst, compact;
        for (int d = 0; d < ndim; d++)
            n *= shape[d] = (int64_t)1 << tl_range(0, 4);
        run.dim = (int)tl_range(0, ndim - 1);
        run.len = (int64_t)1 << tl_range(0, 3);
        while (shape[run.dim] % run.len != 0)
            run.len /= 2;
        must(axe__smem_candidate(shape, ndim, &run, &f, NULL));
        /* a random instance: free modes nested in random order over the
         * fixed one, each padded by 0..2 */
        int64_t next = run.len > 1 ? run.len : 1, stride[AX_FREE_MAX];
        int order[AX_FREE_MAX], nf = 0;
        for (int k = 0; k < f.n; k++)
            if (f.stride[k] < 0)
                order[nf++] = k;
        for (int i = nf - 1; i > 0; i--) {
            int j = (int)tl_range(0, i), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < nf; i++) {
            stride[order[i]] = next + tl_range(0, 2);
            next = stride[order[i]] * f.extent[order[i]];
        }
        axe_layout_init(&inst);
        for (int k = 0; k < f.n; k++)
            must(axe_layout_push_shard(
                &inst, f.extent[k], f.stride[k] > 0 ? f.stride[k] : stride[k],
                "m"));
        must(axe__free_layout_compact(&f, &compact, NULL));
        char *seen = calloc((size_t)n, 1);
        bool bij = seen != NULL;
        for (int64_t x = 0; bij && x < n; x++) {
            int64_t a = addr_at(&compact, x);
            bij = a >= 0 && a < n && !seen[a];
            if (bij)
                seen[a] = 1;
        }
        free(seen);
        TL_CHECK(runs_hold(&inst, shape, ndim, run.dim, run.len) &&
                     runs_hold(&compact, shape, ndim, run.dim, run.len) && bij,
                 "round %d: runs of %lld along %d of a %d-d shape", r,
                 (long long)run.len, run.dim, ndim);
    }
}

/* Runs along two dimensions: no bijection of a 2x4 tile has both (all
 * 8! permutations tried), and the meet says so naming both operators;
 * runs of 2 and 4 along one dimension meet in runs of 4. */
static bool next_perm(int64_t *a, int n)
{
    int i = n - 2, j = n - 1;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    while (a[j] <= a[i])
        j--;
    int64_t t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, h = n - 1; l < h; l++, h--) {
        t = a[l];
        a[l] = a[h];
        a[h] = t;
    }
    return true;
}

static void test_align_meet(void)
{
    static const int64_t shape[2] = {2, 4};
    ax_run a = {"copy#1", 0, 2}, b = {"gemm#4", 1, 2}, c = {"copy#2", 1, 4};
    ax_run m;
    axe_diag d;
    int64_t perm[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int found = 0;
    do {
        bool rows = true, cols = true;
        for (int64_t x = 0; x < 8; x++) {
            if (x / 4 % 2 == 0)
                rows = rows && perm[x + 4] == perm[x] + 1;
            if (x % 2 == 0)
                cols = cols && perm[x + 1] == perm[x] + 1;
        }
        found += rows && cols;
    } while (next_perm(perm, 8));
    TL_CHECK(found == 0, "%d permutations have runs along both dims", found);
    TL_CHECK(axe__smem_runs_meet(shape, 2, &a, &b, &m, &d) ==
                     AXE_ERR_UNSUPPORTED &&
                 strstr(d.message, "copy#1") != NULL &&
                 strstr(d.message, "gemm#4") != NULL,
             "two dims refused naming both: %s", d.message);
    must(axe__smem_runs_meet(shape, 2, &b, &c, &m, NULL));
    TL_CHECK(m.dim == 1 && m.len == 4, "meet: %d x %lld", m.dim,
             (long long)m.len);
}

/* ---- the example kernels ---------------------------------------------- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (buf = malloc((size_t)n + 1)) == NULL) {
        fclose(f);
        return NULL;
    }
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

/* Every (operator, operand) of "p" whose operand is a whole shared tensor
 * (no view, every region start 0 and every length the extent): the
 * union of its accesses' elements (index + axe__smem_offset(e), e < vec) is the
 * whole tensor. */
static void check_coverage(axe_program *p, const char *name)
{
    ax_smem_list l;
    axe_diag d;
    must(axe__smem_accesses(p, &l, &d));
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *s = p->ops[k];
        for (int i = 0; i < s->nargs && !s->dead; i++) {
            const ax_ref *r = &s->args[i];
            const ax_tensor *t = &p->tensors[r->tensor];
            int64_t n = 1, hit = 0;
            bool whole = t->mem == AX_MEM_SHARED && !r->is_view &&
                         s->stage[0] == NULL && s->tree == NULL;
            for (int dd = 0; whole && dd < r->ndim; dd++) {
                whole = r->start[dd] == NULL && r->len[dd] == t->shape[dd];
                n *= t->shape[dd];
            }
            if (!whole)
                continue;
            char *seen = calloc((size_t)n, 1);
            if (seen == NULL)
                exit(2);
            for (int a = 0; a < l.n; a++) {
                const ax_smem_access *x = &l.a[a];
                if (x->op != s->index || x->arg != i)
                    continue;
                for (int ln = 0; ln < AX_WARP; ln++)
                    for (int64_t e = 0; x->active[ln] && e < x->vec; e++) {
                        int64_t y = x->index[ln] + axe__smem_offset(x, e);
                        if (y >= 0 && y < n && !seen[y]) {
                            seen[y] = 1;
                            hit++;
                        }
                    }
            }
            TL_CHECK(hit == n,
                     "%s op %d operand %d: %lld of %lld elements "
                     "of '%s' accessed",
                     name, s->index, i, (long long)hit, (long long)n, t->name);
            free(seen);
        }
    }
}

/* Per shared tensor of "p": the meet of its accesses' runs, its candidate
 * layout, and whether the written layout satisfies the runs (it must: the
 * plans vectorized on it), as "name tensor: runs L along D -> CAND"
 * lines appended at "k" of "out". */
static size_t runs_report(axe_program *p, const char *name, char *out,
                          size_t cap, size_t k)
{
    ax_smem_list l;
    must(axe__smem_accesses(p, &l, NULL));
    for (int ti = 0; ti < p->ntensors && k < cap; ti++) {
        const ax_tensor *t = &p->tensors[ti];
        ax_run run;
        ax_free_layout f;
        axe_diag d;
        char text[128];
        if (t->mem != AX_MEM_SHARED)
            continue;
        if (axe__smem_tensor_run(p, &l, ti, &run, &d) != AXE_OK) {
            TL_CHECK(false, "%s %s: %s", name, t->name, d.message);
            continue;
        }
        must(axe__smem_candidate(t->shape, t->ndim, &run, &f, NULL));
        (void)axe__free_layout_text(&f, false, text, sizeof text);
        TL_CHECK(runs_hold(&t->layout, t->shape, t->ndim, run.dim, run.len),
                 "%s %s: the written layout breaks runs of %lld along %d", name,
                 t->name, (long long)run.len, run.dim);
        k += (size_t)snprintf(out + k, cap - k,
                              "%s %s: runs of %lld along dim %d -> %s\n", name,
                              t->name, (long long)run.len, run.dim, text);
    }
    return k;
}

/* The report of example kernel "name" printed as "name op#N(arg) tensor
 * before -> after" lines into "out" (cap bytes). */
static void example_report(const char *name, char *out, size_t cap)
{
    const char *dir = getenv("AXE_SOURCE_DIR");
    char path[512];
    size_t len = 0, k = 0;
    char *src;
    axe_program *p = NULL;
    axe_diag d;
    ax_smem_report r;
    out[0] = '\0';
    (void)snprintf(path, sizeof path, "%s/examples/kernels/%s.axe",
                   dir ? dir : ".", name);
    src = slurp(path, &len);
    TL_CHECK(src != NULL, "cannot read %s", path);
    if (src == NULL)
        return;
    if (axe_program_compile(src, len, NULL, NULL, &p, &d) == AXE_OK)
        check_coverage(p, name);
    if (p == NULL || axe__smem_report(p, &r, &d) != AXE_OK) {
        TL_CHECK(false, "%s: %s", name, d.message);
        free(src);
        axe_program_free(p);
        return;
    }
    for (int i = 0; i < r.nways && k < cap; i++)
        k += (size_t)snprintf(
            out + k, cap - k, "%s %s#%d(%d) %s %d -> %d, compact %d\n", name,
            axe__op_name(p->ops[r.ways[i].op]->op), r.ways[i].op, r.ways[i].arg,
            p->tensors[r.ways[i].tensor].name, r.ways[i].before,
            r.ways[i].after, r.ways[i].compact);
    k = runs_report(p, name, out, cap, k);
    for (int i = 0; i < r.nchoices && k < cap; i++) {
        const ax_smem_choice *c = &r.choice[i];
        k += (size_t)snprintf(
            out + k, cap - k,
            "%s %s%s: max %d -> %d Swizzle<%d,%d,%d>%s (sums %lld -> "
            "%lld)\n",
            name, p->tensors[c->tensor].name,
            c->compact ? (c->ok ? " compact" : " compact n/a") : "",
            c->before.max, c->after.max, c->sw.per_element, c->sw.len,
            c->sw.atom, c->sw.present ? "" : " (none)",
            (long long)c->before.sum, (long long)c->after.sum);
    }
    free(src);
    axe_program_free(p);
}

/* Rows worked by hand (docs/compiler.md, "Shared-memory bank conflicts"):
 *  - transpose: T padded to 33 floats: a row (32 lanes, consecutive
 *    words) and a column (words 33t, banks t) are conflict-free; compact
 *    (32 floats a row) a column is 32-way until Swizzle<0,5,5>.
 *  - gemm (f32, gemm.thread_fma): lane l < 16 reads Bs row 8l + j at
 *    column k, word 33(8l + j) + k: banks 8l + c mod 32, 4 banks for 16
 *    words, 4-way (lanes 16-31 read the same words); compact: word
 *    32(8l + j) + k, one bank, 16-way, until Swizzle<0,4,8> xors l (row
 *    bits 3-6, address bits 8-11) into the word's low 4 bits.
 *  - gemm_mma: cp.async 16-byte rows into As (rows of 80 bytes): a phase
 *    of 8 lanes writes 2 rows, words 20r .. 20r + 15 and 20r + 20 ..
 *    20r + 35, which share banks 0-3: 2-way; ldmatrix rows at words 20r
 *    (r < 8) fall in 8 distinct 4-bank groups: 1; compact (64-byte rows)
 *    ldmatrix rows r and r + 2 share banks: 4-way, until Swizzle<3,2,3>
 *    xors row bits 1-2 into the 16-byte chunk index.
 *  - warp_slices: lane l reads As (16 floats a row) at row l / 4, column
 *    l % 4 + c: banks 16 (l / 4) + l % 4 mod 32, 8 banks for 32 words:
 *    4-way; Swizzle<2,2,3> xors row bits 1-2 into column bits 2-3: 32
 *    banks.
 *  - row_reduce: sub reads row[8 tx + i]: banks 8l + i, 4 of them: 8-way;
 *    the copy's 16-byte vectors keep M >= 2, so the bank's low 2 bits are
 *    i's and 3 of the 5 bank bits vary: 8 banks, 4-way at best.
 * Runs: transpose's copies are scalar (rows of 33 floats keep no vector):
 * no run, every stride free; gemm_mma's cp.async writes and ldmatrix
 * rows both move 8 halves along K: As splits K as (4, 8) with stride 1
 * inside (the written S[(128,32):(40,1)] is d1 = 8, d2 = 40).
 * transpose's sums: 32 row writes of 1 way and 32 column reads of 32
 * (compact) or 1 (swizzled). */
static const char *const example_rows[] = {
    "transpose copy#0(0) T 1 -> 1, compact 1\n",
    "transpose copy#1(1) T 1 -> 1, compact 1\n",
    "transpose T compact: max 32 -> 1 Swizzle<0,5,5> (sums 1056 -> 64)\n",
    "gemm gemm#3(2) Bs 4 -> 4, compact 1\n",
    "gemm Bs compact: max 16 -> 1 Swizzle<0,4,8> (",
    "gemm_mma copy#1(0) As 2 -> 2, compact 1\n",
    "gemm_mma gemm#3(1) As 1 -> 1, compact 1\n",
    "gemm_mma As compact: max 4 -> 1 Swizzle<3,2,3> (",
    "warp_slices copy#1(1) As 4 -> 1, compact 1\n",
    "warp_slices As: max 4 -> 1 Swizzle<2,2,3> (",
    "row_reduce sub#6(1) row 8 -> 4, compact 4\n",
    "transpose T: runs of 1 along dim 1 -> S[(32,32):(d2,d1)]\n",
    "gemm_mma As: runs of 8 along dim 1 -> S[(128,4,8):(d2,d1,1)]\n",
};

static void test_examples(void)
{
    static const char *const names[] = {
        "transpose",      "transpose_swizzle", "gemm",    "gemm_mma",
        "gemm_pipelined", "gemm_fp8",          "gemm_i8", "gemm_splitk",
        "row_reduce",     "warp_slices",
    };
    static char all[65536];
    char out[8192];
    size_t k = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        example_report(names[i], out, sizeof out);
        printf("%s", out);
        k += (size_t)snprintf(all + k, sizeof all - k, "%s", out);
    }
    for (size_t i = 0; i < sizeof example_rows / sizeof example_rows[0]; i++)
        TL_CHECK(strstr(all, example_rows[i]) != NULL, "no row: %s",
                 example_rows[i]);
}

/* ---- synthesized shared layouts against hand-written ones ------------- */

static axe_program *compile_file(const char *rel)
{
    const char *dir = getenv("AXE_SOURCE_DIR");
    char path[512];
    size_t len = 0;
    axe_program *p = NULL;
    axe_diag d;
    (void)snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", rel);
    char *src = slurp(path, &len);
    if (src == NULL ||
        axe_program_compile(src, len, NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "cannot compile %s", path);
        p = NULL;
    }
    free(src);
    return p;
}

static axe_program *compile_src(const char *src)
{
    axe_program *p = NULL;
    axe_diag d;
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "cannot compile: %s", d.message);
        p = NULL;
    }
    return p;
}

static int tensor_named(const axe_program *p, const char *name)
{
    for (int i = 0; i < p->ntensors; i++)
        if (strcmp(p->tensors[i].name, name) == 0)
            return i;
    return -1;
}

/* The layout synthesized for "tensor" of kernel "from" (from its own
 * accesses) is equivalent to the hand-written layout of the same tensor
 * in kernel "to", and every access of "to" is conflict-free (measured on
 * its own plans): gemm_mma's padded As and Bs give the Swizzle<3,2,3>
 * tiles of tests/kernels/gemm_swizzle.axe, transpose's padded T the
 * Swizzle<0,5,5> tile of transpose_swizzle.axe. */
static void synth_matches(const char *from, const char *to, const char *tensor)
{
    axe_program *p = compile_file(from), *q = compile_file(to);
    axe_layout got;
    ax_smem_choice c;
    ax_smem_report r;
    axe_diag d;
    bool eq = false;
    if (p == NULL || q == NULL) {
        axe_program_free(p);
        axe_program_free(q);
        return;
    }
    int tp = tensor_named(p, tensor), tq = tensor_named(q, tensor);
    must(axe__smem_synthesize(p, tp, false, &got, &c, &d));
    must(axe_layout_equivalent(&got, &q->tensors[tq].layout, &eq, NULL));
    char a[256], b[256];
    (void)axe_print_layout(&got, a, sizeof a);
    (void)axe_print_layout(&q->tensors[tq].layout, b, sizeof b);
    TL_CHECK(eq && c.after.max == 1,
             "%s %s: synthesized %s (max ways %d), "
             "hand-written in %s %s",
             from, tensor, a, c.after.max, to, b);
    must(axe__smem_report(q, &r, NULL));
    for (int i = 0; i < r.nways; i++)
        TL_CHECK(r.ways[i].tensor != tq || r.ways[i].before == 1,
                 "%s: op %d on %s has %d ways", to, r.ways[i].op, tensor,
                 r.ways[i].before);
    axe_program_free(p);
    axe_program_free(q);
}

static void test_synth_examples(void)
{
    synth_matches("examples/kernels/gemm_mma.axe",
                  "tests/kernels/gemm_swizzle.axe", "As");
    synth_matches("examples/kernels/gemm_mma.axe",
                  "tests/kernels/gemm_swizzle.axe", "Bs");
    synth_matches("examples/kernels/transpose.axe",
                  "examples/kernels/transpose_swizzle.axe", "T");
}

/* ---- the "accesses" records of `layout auto` kernels ------------------ */

/* The address (in elements, swizzle applied) of row-major element "x"
 * under "l", by the library's forward map. */
static int64_t swizzled_addr(const axe_layout *l, int64_t x)
{
    axe_point pt;
    must(axe_layout_apply_base(l, x, &pt, NULL));
    for (int k = 0; k < pt.n; k++)
        if (strcmp(pt.axis[k], "m") == 0)
            return pt.v[k];
    return 0;
}

/* The ways of access "a" under "l" by brute force: one access of vec
 * elements when they lie at consecutive addresses, else the worst of its
 * single elements. */
static int brute_access(const axe_layout *l, int64_t bits,
                        const ax_smem_access *a)
{
    ax_warp_access w;
    bool run = true;
    int worst = 0, wf;
    for (int t = 0; t < AX_WARP; t++)
        for (int64_t e = 1; a->active[t] && e < a->vec; e++)
            run =
                run && swizzled_addr(l, a->index[t] + axe__smem_offset(a, e)) ==
                           swizzled_addr(l, a->index[t]) + e;
    for (int64_t e = 0; e < (run ? 1 : a->vec); e++) {
        memset(&w, 0, sizeof w);
        int64_t wb = (run ? a->vec : 1) * bits; /* a lone i4: its byte */
        w.width = (int)(wb < 8 ? 1 : wb / 8);
        for (int t = 0; t < AX_WARP; t++) {
            w.active[t] = a->active[t];
            w.byte[t] = a->active[t]
                            ? bits *
                                  swizzled_addr(l, a->index[t] +
                                                       axe__smem_offset(a, e)) /
                                  8
                            : 0;
        }
        int v = brute_ways(&w, &wf);
        worst = v > worst ? v : worst;
    }
    return worst;
}

/* Kernel "rel" with `layout auto` tensors: every (operator, shared
 * tensor) pair of its accesses has one record, whose ways before (row-major
 * for an auto tensor, the written layout unswizzled otherwise) and after
 * (the layout used) equal the brute-force counts, and, with "one", after
 * is 1 (no extra way) for each of these classic kernels. */
static void records_of(axe_program *p, const char *rel, bool one)
{
    ax_smem_list l;
    int seen[AX_SYNTH_MAX_ITEMS] = {0};
    if (p == NULL)
        return;
    TL_CHECK(p->synth != NULL && p->synth->naccesses > 0 &&
                 p->synth->accesses_note[0] == '\0',
             "%s: no accesses records (%s)", rel,
             p->synth ? p->synth->accesses_note : "no report");
    must(axe__smem_accesses(p, &l, NULL));
    for (int k = 0; p->synth != NULL && k < l.n; k++) {
        const ax_smem_access *a = &l.a[k];
        const ax_tensor *t = &p->tensors[a->tensor];
        axe_layout before = t->layout;
        int64_t eb = axe_dtype_bit_width(t->dtype);
        int i = 0;
        if (t->autolayout)
            must(axe_layout_row_major(t->shape, t->ndim, &before));
        before.swizzle.present = false;
        while (i < p->synth->naccesses &&
               (p->synth->accesses[i].op != a->op ||
                p->synth->accesses[i].tensor != a->tensor))
            i++;
        TL_CHECK(i < p->synth->naccesses, "%s: op %d on %s has no record", rel,
                 a->op, t->name);
        if (i == p->synth->naccesses)
            continue;
        int b = brute_access(&before, eb, a),
            f = brute_access(&t->layout, eb, a);
        seen[i] |= 1;
        if (b == p->synth->accesses[i].ways_before)
            seen[i] |= 2;
        if (f == p->synth->accesses[i].ways_after)
            seen[i] |= 4;
        TL_CHECK(b <= p->synth->accesses[i].ways_before &&
                     f <= p->synth->accesses[i].ways_after && (f == 1 || !one),
                 "%s: op %d on %s: brute force %d -> %d, record %lld -> %lld",
                 rel, a->op, t->name, b, f,
                 (long long)p->synth->accesses[i].ways_before,
                 (long long)p->synth->accesses[i].ways_after);
    }
    /* each record is some access's count (the largest over them) */
    for (int i = 0; p->synth != NULL && i < p->synth->naccesses; i++)
        TL_CHECK(seen[i] == 7, "%s: record %d is no access's count (%d)", rel,
                 i, seen[i]);
    axe_program_free(p);
}

static void synth_records(const char *rel, bool one)
{
    records_of(compile_file(rel), rel, one);
}

/* A view (16 x 16, of a 32 x 32 tile) whose swizzle is not its
 * tensor's: the physical addresses of the walker's elements of the view
 * operand (through the tensor's layout, swizzle applied, by the library's
 * forward map) are exactly the image of the view's layout (its swizzle
 * applied) over its domain, a part of the tile that depends on the
 * view's swizzle. */
static void view_swizzle_case(const char *tensor_layout, const char *view)
{
    char text[1024];
    axe_program *p = NULL;
    axe_diag d;
    ax_smem_list l;
    (void)snprintf(text, sizeof text,
                   "kernel v(A: f32[32, 32], B: f32[16, 16]) grid(1) "
                   "threads(256)\n{\n    shared T: f32[32, 32] layout %s;\n"
                   "    cta copy(T, A);\n    sync;\n"
                   "    cta copy(B, T.view(%s));\n}\n",
                   tensor_layout, view);
    if (axe_program_compile(text, strlen(text), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "view case %s / %s: %s", tensor_layout, view,
                 d.message);
        return;
    }
    axe_status st = axe__smem_accesses(p, &l, &d);
    TL_CHECK(st == AXE_OK, "view case %s / %s: %s", tensor_layout, view,
             d.message);
    char walked[1024] = {0}, image[1024] = {0};
    const axe_layout *tl = &p->tensors[tensor_named(p, "T")].layout;
    const ax_stmt *s = p->ops[1];
    for (int k = 0; st == AXE_OK && k < l.n; k++)
        for (int t = 0; l.a[k].op == s->index && t < AX_WARP; t++)
            for (int64_t e = 0; l.a[k].active[t] && e < l.a[k].vec; e++) {
                int64_t a = swizzled_addr(tl, l.a[k].index[t] +
                                                  axe__smem_offset(&l.a[k], e));
                if (a >= 0 && a < 1024)
                    walked[a] = 1;
            }
    int64_t n = 0;
    for (int64_t x = 0; x < 256; x++) {
        int64_t a = swizzled_addr(&s->args[1].view, x);
        if (a >= 0 && a < 1024)
            n += !image[a], image[a] = 1;
    }
    TL_CHECK(memcmp(walked, image, sizeof walked) == 0 && n == 256,
             "view case %s / %s: the walked addresses are not the view's "
             "image",
             tensor_layout, view);
    axe_program_free(p);
}

static void test_view_swizzles(void)
{
    view_swizzle_case("Swizzle<0, 5, 5>(S[(32, 32):(32, 1)])",
                      "S[(16, 16):(1, 32)] + 8");
    view_swizzle_case("S[(32, 32):(32, 1)]",
                      "Swizzle<0, 5, 5>(S[(16, 16):(1, 32)] + 520)");
    view_swizzle_case("Swizzle<2, 3, 3>(S[(32, 32):(32, 1)])",
                      "Swizzle<0, 5, 5>(S[(16, 16):(1, 32)])");
    view_swizzle_case("Swizzle<1, 2, 5>(S[(32, 32):(32, 1)])",
                      "Swizzle<0, 4, 5>(S[(16, 16):(32, 1)] + 16)");
}

/* reduce.tree's steps in kernel "rel": per tree operator, over every
 * scratch row (instance, outer, inner coordinates) that its stage 1
 * writes, the positions along the reduced dim of the step accesses are
 * exactly [0, n/2) combined into (operand nargs) and [1, n) combined
 * with (nargs + 1): a step at length m pairs i < m/2 with i + ceil(m/2),
 * and the lengths n, ceil(n/2), ... down to 1 cover those ranges; no
 * step access leaves the written rows. */
static void tree_law(const char *rel)
{
    axe_program *p = compile_file(rel);
    ax_smem_list l;
    int ntrees = 0;
    if (p == NULL)
        return;
    must(axe__smem_accesses(p, &l, NULL));
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *s = p->ops[k];
        if (s->tree == NULL || s->dead)
            continue;
        const ax_tree *tr = s->tree;
        int64_t span = p->tensors[tr->scratch].span, rows = span / tr->n;
        /* per row: bit 0 written by stage 1; per position: side masks */
        char *row = calloc((size_t)rows, 1), *pos = calloc((size_t)span, 1);
        if (row == NULL || pos == NULL)
            exit(2);
        ntrees++;
        for (int a = 0; a < l.n; a++)
            for (int t = 0; l.a[a].op == s->index && t < AX_WARP; t++) {
                int64_t x = l.a[a].index[t];
                if (!l.a[a].active[t] || l.a[a].tensor != tr->scratch)
                    continue;
                int64_t within = x % tr->size;
                int64_t key = x / tr->size * (tr->size / tr->n) +
                              within / (tr->n * tr->inner) * tr->inner +
                              within % tr->inner;
                if (l.a[a].arg < s->nargs)
                    row[key] |= 1;
                else
                    pos[x] |= (char)(2 << (l.a[a].arg - s->nargs));
            }
        int bad = 0;
        for (int64_t x = 0; x < span; x++) {
            int64_t within = x % tr->size, i = within / tr->inner % tr->n;
            int64_t key = x / tr->size * (tr->size / tr->n) +
                          within / (tr->n * tr->inner) * tr->inner +
                          within % tr->inner;
            char want = row[key]
                            ? (char)((i < tr->n / 2 ? 2 : 0) | (i >= 1 ? 4 : 0))
                            : 0;
            bad += pos[x] != want;
        }
        TL_CHECK(bad == 0, "%s op %d: %d scratch elements break the tree law",
                 rel, s->index, bad);
        free(row);
        free(pos);
    }
    TL_CHECK(ntrees > 0, "%s: no reduce.tree operator", rel);
    axe_program_free(p);
}

/* ---- packed i4 ------------------------------------------------------- */

/* Hand-counted i4 accesses (4-bit elements; a lone i4 reads its byte):
 * 32 consecutive nibbles are 16 bytes, 4 words: 1 way; one nibble per
 * lane 64 elements (32 bytes, 8 words) apart: words 8 l, banks 0, 8,
 * 16, 24: 8 ways; 16-byte vectors of 32 nibbles, lane l at element 32 l:
 * 4 phases of 128 contiguous bytes: 1 way; the same at element 64 l: 2
 * ways per phase. Each also against the brute force on the bytes. */
static void test_i4_table(void)
{
    static const struct {
        int64_t vec, step;
        int ways;
    } rows[] = {{1, 1, 1}, {1, 64, 8}, {32, 32, 1}, {32, 64, 2}, {8, 8, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        ax_tile_access a;
        ax_warp_access w;
        ax_ways got;
        int wf;
        a.vec = rows[i].vec;
        w.width = rows[i].vec == 1 ? 1 : (int)(rows[i].vec / 2);
        for (int l = 0; l < AX_WARP; l++) {
            a.active[l] = w.active[l] = true;
            a.elem[l] = rows[i].step * l;
            w.byte[l] = rows[i].step * l / 2;
        }
        must(axe__tile_ways(&a, 1, 4, NULL, &got, NULL));
        TL_CHECK(got.max == rows[i].ways && brute_ways(&w, &wf) == got.max,
                 "i4 row %zu: %d ways, want %d (brute force %d)", i, got.max,
                 rows[i].ways, brute_ways(&w, &wf));
    }
}

/* Hexcute's packed shared layout of a 128 x 128 i4 tile, (k, n) ->
 * ((8,2,8),(2,64)):((4,2,2048),(1,32)) (the paper's FP16xINT4 GEMM),
 * written out. */
static int64_t hexcute_i4(int64_t k, int64_t n)
{
    return k % 8 * 4 + k / 8 % 2 * 2 + k / 16 * 2048 + n % 2 + n / 2 * 32;
}

/* The layout against what it is for: a bijection onto 16384 nibbles;
 * every 16-byte run (an ldmatrix row: 32 addresses from 32 j) holds one
 * 16 x 2 block, and lane l's 32-bit word of it (word l % 4 = q) holds
 * the m16n8k16 B fragment of the PTX ISA in the order of the lop3
 * dequantization: nibbles e and e + 4 are (k, k + 1) at k = 16 kb + 2 q
 * + 8 (e / 2 % 2), column n = 2 (j % 64) + e % 2 (two n8 atoms, N
 * interleaved by 2); a warp's ldmatrix.x4 of 32 consecutive rows costs
 * 1 way by the bank model, per-nibble loads of the same fragments from
 * the row-major tile 4 ways. */
static void test_hexcute_i4(void)
{
    static int64_t kof[16384], nof[16384];
    static bool seen[16384];
    bool bij = true, frag = true;
    memset(seen, 0, sizeof seen);
    for (int64_t k = 0; k < 128; k++)
        for (int64_t n = 0; n < 128; n++) {
            int64_t a = hexcute_i4(k, n);
            bij = bij && a >= 0 && a < 16384 && !seen[a];
            if (a >= 0 && a < 16384) {
                seen[a] = true;
                kof[a] = k;
                nof[a] = n;
            }
        }
    TL_CHECK(bij, "Hexcute's i4 layout is not a bijection onto 16384");
    for (int64_t j = 0; bij && j < 512; j++)
        for (int64_t q = 0; q < 4; q++)
            for (int64_t e = 0; e < 4; e++) {
                int64_t a = 32 * j + 8 * q + e;
                int64_t k = 16 * (j / 64) + 2 * q + 8 * (e / 2 % 2);
                int64_t n = 2 * (j % 64) + e % 2;
                frag = frag && kof[a] == k && nof[a] == n &&
                       kof[a + 4] == k + 1 && nof[a + 4] == n;
            }
    TL_CHECK(frag, "Hexcute's i4 words are not the m16n8k16 B fragments");
    /* the written-out map is the paper's text read by the library (CuTe
     * colex coordinates (k, n) at index k + 128 n) and, as a kernel's
     * shared layout in Axe's order, the compiler's tile address of
     * row-major element 128 k + n */
    axe_cute_layout paper = cute_of("((8,2,8),(2,64)):((4,2,2048),(1,32))");
    axe_layout axl;
    static const char axe_text[] = "S[(8,2,8,64,2):(2048,2,4,32,1)]";
    bool same = true;
    must(axe_parse_layout(axe_text, strlen(axe_text), &axl, NULL));
    for (int64_t k = 0; k < 128; k++)
        for (int64_t n = 0; n < 128; n++) {
            int64_t c = -1;
            must(axe_cute_eval(&paper, k + 128 * n, &c));
            same = same && c == hexcute_i4(k, n) &&
                   axe__smem_tile_addr(&axl, 128 * k + n) == c;
        }
    TL_CHECK(same,
             "Hexcute's i4 text, its Axe form %s and the written-out "
             "map disagree",
             axe_text);
    ax_tile_access x4, one;
    ax_ways hx, rm;
    x4.vec = 32;
    one.vec = 1;
    for (int l = 0; l < AX_WARP; l++) {
        x4.active[l] = one.active[l] = true;
        x4.elem[l] = 32 * l;                           /* rows j = l */
        one.elem[l] = 2 * (l % 4) * 128 + 2 * (l / 4); /* (k, n) row-major */
    }
    must(axe__tile_ways(&x4, 1, 4, NULL, &hx, NULL));
    must(axe__tile_ways(&one, 1, 4, NULL, &rm, NULL));
    TL_CHECK(hx.max == 1 && rm.max == 4,
             "Hexcute's ldmatrix.x4 %d ways (want 1), row-major per-nibble "
             "%d (want 4)",
             hx.max, rm.max);
}

/* Hexcute's layout from its register's ldmatrix rows: the candidate of
 * i4_ldsm_hexcute.axe's bq (compiler_smem_ldsm.c), compact, is the
 * written-out map; i4_ldsm_hexcute_auto.axe synthesizes it for Bs (no
 * swizzle), and the 16-byte vectors of its copy from the prepacked X
 * (16 k x 2 n each) are counted as such: every lane's element e is the
 * one at the row's address + e. */
static void test_hexcute_rows(void)
{
    axe_program *h = compile_file("tests/kernels/i4_ldsm_hexcute.axe");
    axe_program *a = compile_file("tests/kernels/i4_ldsm_hexcute_auto.axe");
    ax_free_layout f;
    axe_layout c;
    int perm[AX_FREE_MAX] = {0};
    bool cand = true, synth = true, rows = true;
    int nvec = 0;
    ax_smem_list l;
    if (h == NULL || a == NULL) {
        axe_program_free(h);
        axe_program_free(a);
        return;
    }
    const ax_tensor *bq = &h->tensors[tensor_named(h, "bq")];
    const ax_tensor *bs = &a->tensors[tensor_named(a, "Bs")];
    TL_CHECK(
        axe__smem_ldsm_free(&bq->layout, bq->shape, bq->ndim, 4, false, &f),
        "i4_ldsm_hexcute's bq gives no ldmatrix-row candidate");
    for (int i = 0; i < AX_FREE_MAX; i++)
        perm[i] = i + 1;
    must(axe__free_layout_instance(&f, perm, 0, &c, NULL));
    for (int64_t k = 0; k < 128; k++)
        for (int64_t n = 0; n < 128; n++) {
            cand = cand &&
                   axe__smem_tile_addr(&c, 128 * k + n) == hexcute_i4(k, n);
            synth = synth && axe__smem_tile_addr(&bs->layout, 128 * k + n) ==
                                 hexcute_i4(k, n);
        }
    TL_CHECK(cand, "the ldmatrix-row candidate of bq is not Hexcute's map");
    TL_CHECK(synth && !bs->layout.swizzle.present,
             "i4_ldsm_hexcute_auto's Bs is not Hexcute's map");
    must(axe__smem_accesses(a, &l, NULL));
    for (int i = 0; i < l.n; i++) {
        const ax_smem_access *x = &l.a[i];
        if (x->op != 0 || x->tensor != tensor_named(a, "Bs"))
            continue;
        nvec += x->vec == 32 && x->nlev > 0;
        for (int t = 0; t < AX_WARP; t++)
            for (int64_t e = 0; x->active[t] && e < x->vec; e++) {
                int64_t y = x->index[t] + axe__smem_offset(x, e);
                rows = rows &&
                       hexcute_i4(y / 128, y % 128) ==
                           hexcute_i4(x->index[t] / 128, x->index[t] % 128) + e;
            }
    }
    /* 16384 nibbles in 32-element vectors over 32 lanes: 16 accesses */
    TL_CHECK(rows && nvec == 16,
             "copy#0's 16-byte vectors into Bs: %d of 16 crossing "
             "dimensions, elements %s",
             nvec, rows ? "at their addresses" : "misplaced");
    axe_program_free(h);
    axe_program_free(a);
}

/* ldmatrix rows of 16-bit elements (compiler_smem_ldsm.c): ldsm_f16.axe's
 * copy of f16 s into q counts as ldmatrix (2 f16 per 32-bit word, 8 per
 * 16-byte row). Its candidate puts lane 4r + c's word g (elements 2g,
 * 2g + 1) at bytes 4c of the row lane 4r's word g starts; its ldmatrix
 * rows on the written row-major s (64-byte rows) are 4-way as
 * tests/compiler_i4_ldsm.sh's own bank count finds them (ldmatrix.x4
 * cost 34: 2 instructions, 32 wavefronts per warp; 4 warps). */
static void test_ldsm_rows_f16(void)
{
    axe_program *p = compile_file("tests/kernels/ldsm_f16.axe");
    const ax_stmt *cp = NULL;
    ax_free_layout f;
    axe_layout c;
    ax_ways w = {0, 0, 0};
    int perm[AX_FREE_MAX];
    bool rows = true;
    if (p == NULL)
        return;
    int si = tensor_named(p, "s"), qi = tensor_named(p, "q");
    const ax_tensor *q = &p->tensors[qi];
    for (int k = 0; k < p->nops; k++)
        if (p->ops[k]->op == AX_OP_COPY && p->ops[k]->nargs == 2 &&
            p->ops[k]->args[0].tensor == qi && p->ops[k]->args[1].tensor == si)
            cp = p->ops[k];
    TL_CHECK(cp != NULL && axe__smem_ldsm_copy(p, cp, si),
             "ldsm_f16's copy into q does not count as ldmatrix rows");
    TL_CHECK(axe__smem_ldsm_free(&q->layout, q->shape, q->ndim, 16, false, &f),
             "ldsm_f16's q gives no ldmatrix-row candidate");
    for (int i = 0; i < AX_FREE_MAX; i++)
        perm[i] = i + 1;
    must(axe__free_layout_instance(&f, perm, 0, &c, NULL));
    /* x4[warp][lane / 4][word]: the address of lane 4r's word start */
    int64_t x4[4][8][8];
    axe_point pt;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t x = 0; x < 64 * 32; x++) {
            int64_t v[3] = {0, 0, 0};
            must(axe_layout_apply_base(&q->layout, x, &pt, NULL));
            for (int k = 0; k < pt.n; k++)
                v[strcmp(pt.axis[k], "warpid") == 0   ? 0
                  : strcmp(pt.axis[k], "laneid") == 0 ? 1
                                                      : 2] = pt.v[k];
            int64_t a = axe__smem_tile_addr(&c, x);
            if (pass == 0 && v[1] % 4 == 0 && v[2] % 2 == 0)
                x4[v[0]][v[1] / 4][v[2] / 2] = a;
            if (pass == 1)
                rows = rows && x4[v[0]][v[1] / 4][v[2] / 2] % 8 == 0 &&
                       a == x4[v[0]][v[1] / 4][v[2] / 2] + 2 * (v[1] % 4) +
                                v[2] % 2;
        }
    TL_CHECK(rows, "ldsm_f16's candidate does not put q's words in rows");
    must(axe__smem_ldsm_ways(p, cp, false, &w, NULL));
    TL_CHECK(w.max == 4 && w.wavefronts == 4 * 32,
             "ldsm_f16's ldmatrix rows: %d ways (want 4), %lld wavefronts "
             "(want 128)",
             w.max, (long long)w.wavefronts);
    axe_program_free(p);
}

/* A copy that names the whole shared tensor and register by ranges
 * (`s[:, :]`, `s[0 : 64, 0 : 32]`: starts folded to 0, not absent) is
 * an ldmatrix-row copy as `copy(q, s)` is (axe__synth_ref_whole); a
 * masked one is not. */
static void test_ldsm_copy_whole(void)
{
    static const char *const reads[] = {"q, s[:, :]",
                                        "q[0 : 64, :], s[0 : 64, 0 : 32]",
                                        "q, s[0 : +64 masked 0, :]"};
    for (int i = 0; i < 3; i++) {
        char text[1024];
        axe_program *p = NULL;
        axe_diag d;
        (void)snprintf(text, sizeof text,
                       "kernel k(X: f16[64, 32], F: f16[64, 32]) grid(1) "
                       "threads(128)\n{\n    shared s: f16[64, 32];\n"
                       "    register q: f16[64, 32] layout S[(4, 2, 8, 4, 4, "
                       "2):(1@warpid, 2, 4@laneid, 4, 1@laneid, 1)];\n"
                       "    cta copy(s, X);\n    sync;\n"
                       "    cta copy(%s);\n    cta copy(F, q);\n}\n",
                       reads[i]);
        if (axe_program_compile(text, strlen(text), NULL, NULL, &p, &d) !=
            AXE_OK) {
            TL_CHECK(false, "copy(%s): %s", reads[i], d.message);
            continue;
        }
        TL_CHECK(axe__smem_ldsm_copy(p, p->ops[1], tensor_named(p, "s")) ==
                     (i < 2),
                 "copy(%s) %s an ldmatrix-row copy", reads[i],
                 i < 2 ? "is not" : "is");
        axe_program_free(p);
    }
}

/* Packed i4 stores into shared memory. One nibble alone is a
 * read-modify-write of its byte (ax_put4 in the emitted code): a thread
 * copy of 35 elements into s from element 1 (odd: no byte is whole)
 * stores one nibble per access, each listed as its write and as the read
 * of the same bytes. Where a thread stores both nibbles of each byte the
 * byte is stored whole (ax_pack4: axe__i4_plan_pair), one write of 2
 * elements: i4_ldsm_hexcute.axe's copy of x (a row of 128 i4 per thread)
 * into Hexcute's Bs, 128 threads x 64 bytes over 32 lanes = 256
 * warp-wide byte stores, no read, each lane's elements n and n + 1 of
 * its row k at tile addresses a and a + 1 with a even (hexcute_i4). */
static void test_i4_store_rmw(void)
{
    static const char src[] =
        "kernel k(X: i4[37], Z: i4[37]) grid(1) threads(1)\n{\n"
        "    shared s: i4[37];\n    thread copy(s[1:+35], X[0:+35]);\n"
        "    sync;\n    thread copy(Z, s);\n}\n";
    axe_program *n = compile_src(src);
    axe_program *h = compile_file("tests/kernels/i4_ldsm_hexcute.axe");
    ax_smem_list l;
    int writes = 0, reads = 0, paired = 0, bytes = 0, whole = 0, other = 0;
    if (n == NULL || h == NULL)
        return;
    must(axe__smem_accesses(n, &l, NULL));
    for (int i = 0; i < l.n; i++) {
        const ax_smem_access *x = &l.a[i];
        if (x->op != 0)
            continue;
        writes += !x->rmw && x->vec == 1;
        reads += x->rmw && x->vec == 1;
        for (int j = 0; x->rmw && j < l.n; j++)
            paired +=
                l.a[j].op == 0 && !l.a[j].rmw && l.a[j].index[0] == x->index[0];
    }
    TL_CHECK(writes == 35 && reads == 35 && paired == 35,
             "odd nibble stores: %d writes, %d byte reads, %d paired (want "
             "35 each)",
             writes, reads, paired);
    int bs = tensor_named(h, "Bs");
    must(axe__smem_accesses(h, &l, NULL));
    for (int i = 0; i < l.n; i++) {
        const ax_smem_access *x = &l.a[i];
        bool ok = x->vec == 2 && !x->rmw;
        if (x->op != 1 || x->tensor != bs)
            continue;
        for (int t = 0; ok && t < AX_WARP; t++) {
            int64_t y = x->index[t], z = y + axe__smem_offset(x, 1);
            ok = x->active[t] && hexcute_i4(y / 128, y % 128) % 2 == 0 &&
                 hexcute_i4(z / 128, z % 128) ==
                     hexcute_i4(y / 128, y % 128) + 1;
        }
        bytes++;
        whole += ok;
        other += x->rmw;
    }
    TL_CHECK(bytes == 256 && whole == 256 && other == 0,
             "i4_ldsm_hexcute copy#1: %d stores, %d whole bytes, %d reads "
             "(want 256, 256, 0)",
             bytes, whole, other);
    /* the candidate walker counts no pair plan (it would see only the
     * low elements): a status, not a count */
    const ax_stmt *st = NULL;
    for (int k = 0; k < h->nops; k++)
        if (h->ops[k]->args[0].tensor == bs && h->ops[k]->plan != NULL &&
            h->ops[k]->plan->pair > 0)
            st = h->ops[k];
    ax_ways w = {0, 0, 0};
    TL_CHECK(st != NULL && axe__plan_ways(h, st, st->plan, &w, NULL) != AXE_OK,
             "axe__plan_ways counted a whole-byte i4 store plan of 'Bs'");
    axe_program_free(n);
    axe_program_free(h);
}

/* ldmatrix.trans rows (compiler_smem_ldsm.c): ldsm_f16_trans.axe's copy
 * into q on the written row-major s (128-byte rows): row i of matrix j
 * is k = 8j + i at n = 16 warp + 8 q, so a phase's 8 rows are 128 bytes
 * apart on the same 4 banks: 8 ways, 8 wavefronts a phase, 32 an
 * instruction, 2 instructions a warp, 4 warps: 256. */
static void test_ldsm_rows_trans(void)
{
    axe_program *p = compile_file("tests/kernels/ldsm_f16_trans.axe");
    const ax_stmt *cp = NULL;
    ax_ways w = {0, 0, 0};
    if (p == NULL)
        return;
    int si = tensor_named(p, "s"), qi = tensor_named(p, "q");
    for (int k = 0; k < p->nops; k++)
        if (p->ops[k]->op == AX_OP_COPY && p->ops[k]->nargs == 2 &&
            p->ops[k]->args[0].tensor == qi && p->ops[k]->args[1].tensor == si)
            cp = p->ops[k];
    TL_CHECK(cp != NULL, "ldsm_f16_trans has no copy of s into q");
    if (cp != NULL)
        must(axe__smem_ldsm_ways(p, cp, true, &w, NULL));
    TL_CHECK(w.max == 8 && w.wavefronts == 256 && w.sum == 8 * 8,
             "ldsm_f16_trans's ldmatrix.trans rows: %d ways (want 8), %lld "
             "wavefronts (want 256), sum %lld (want 64)",
             w.max, (long long)w.wavefronts, (long long)w.sum);
    axe_program_free(p);
}

static void test_tree_steps(void)
{
    tree_law("tests/kernels/reduce_tree.axe");
    tree_law("tests/kernels/wg_reduce.axe");
    tree_law("tests/kernels/cta_reduce.axe");
    tree_law("examples/kernels/row_reduce.axe");
}

static void test_synth_records(void)
{
    synth_records("examples/kernels/gemm_mma_auto.axe", true);
    synth_records("examples/kernels/transpose_auto.axe", true);
    /* 1-byte elements: rows of 32 bytes, Swizzle<4,1,3> */
    synth_records("examples/kernels/gemm_i8_auto.axe", true);
    synth_records("tests/kernels/smem_ldmatrix_f16.axe", true);
    synth_records("tests/kernels/smem_trans_bf16.axe", true);
    /* packed i4: 16-byte vector writes (1 way), column reads (4 ways) */
    synth_records("tests/kernels/i4_synth.axe", false);
    /* 16-byte vectors across dimensions (Hexcute's rows): 1 way after */
    synth_records("tests/kernels/i4_ldsm_hexcute_auto.axe", true);
    synth_records("tests/kernels/ldsm_f16_trans_auto.axe", true);
}

/* A shared tensor with 5 free strides whose compact order no swizzle
 * makes conflict-free: s (f32[32, 32, 1, 1, 8]) is written with the
 * lanes along dim 0 and read with them along dim 1, both single
 * elements. Compact (row-major) puts dim 1 at word address bits 3-7 and
 * dim 0 at bits 8-12; a swizzle xors one group of bits into the bank
 * bits 0-4, so one of the two keeps conflicts (the best, Swizzle<0,5,6>,
 * leaves 4 and 2 ways: the order synthesis took when it tried only the
 * compact order of more than 4 free strides). Dim 1 at stride 1 and dim
 * 0 above dim 4 (bits 8-12), xored into the bank bits by Swizzle<0,5,8>,
 * makes both 1 way, by brute force. */
static void test_free_orders5(void)
{
    const char *src =
        "kernel k(A: f32[32, 32, 1, 1, 8], B: f32[32, 32, 1, 1, 8])\n"
        "    grid(1) threads(32)\n{\n"
        "    shared s: f32[32, 32, 1, 1, 8] layout auto;\n"
        "    for i in range(32) {\n"
        "        thread copy(s[tx : +1, i : +1, 0 : +1, 0 : +1, 0 : +1],\n"
        "                    A[tx : +1, i : +1, 0 : +1, 0 : +1, 0 : +1]);\n"
        "    }\n    sync;\n"
        "    for i in range(32) {\n"
        "        thread copy(B[i : +1, tx : +1, 0 : +1, 0 : +1, 0 : +1],\n"
        "                    s[i : +1, tx : +1, 0 : +1, 0 : +1, 0 : +1]);\n"
        "    }\n}\n";
    axe_program *p = compile_src(src);
    char text[256];
    if (p == NULL)
        return;
    (void)axe_print_layout(&p->tensors[tensor_named(p, "s")].layout, text,
                           sizeof text);
    TL_CHECK(strcmp(text, "Swizzle<0,5,8>(S[(32,32,1,1,8):(256,1,1,1,32)])") ==
                 0,
             "5 free strides: s is %s", text);
    records_of(p, "5 free strides", true);
}

/* Two orders that tie on ways, and the later one has fewer iters: it
 * wins (better_order), so the bound it is counted against (bound_of)
 * lets a tie through when it has fewer iters. s (f32[8, 4]) is copied
 * by 4 lanes (lane tx: column tx) in 16-byte vectors along dim 0, so
 * dim 0 is (2, 4) with the 4 at stride 1 and its outer 2 and dim 1 are
 * free. The first order tried, (2,4,4):(16,1,4) (3 iters), puts the 4
 * lanes' vectors one after another, the second, (8,4):(1,8) (2 iters),
 * 8 words apart (banks 0-3, 8-11, 16-19, 24-27): both 1 way on each of
 * the 4 accesses. Counted against the first's (1, 4) exactly, the
 * second would be dropped as not below. */
static void test_order_tie_iters(void)
{
    const char *src =
        "kernel k(A: f32[8, 4] layout S[(8,4):(1,8)], B: f32[8, 4] layout "
        "S[(8,4):(1,8)])\n    grid(1) threads(4)\n{\n"
        "    shared s: f32[8, 4] layout auto;\n"
        "    for j in range(2) {\n"
        "        thread copy(s[j * 4 : +4, tx : +1], A[j * 4 : +4, tx : +1]);\n"
        "    }\n    sync;\n"
        "    for j in range(2) {\n"
        "        thread copy(B[j * 4 : +4, tx : +1], s[j * 4 : +4, tx : +1]);\n"
        "    }\n}\n";
    axe_program *p = compile_src(src);
    char text[256];
    if (p == NULL)
        return;
    (void)axe_print_layout(&p->tensors[tensor_named(p, "s")].layout, text,
                           sizeof text);
    TL_CHECK(strcmp(text, "S[(8,4):(1,8)]") == 0,
             "a tie on ways with fewer iters: s is %s", text);
    axe_program_free(p);
}

/* test_ldsm_other_rows's kernel, s's layout between the two. */
static const char rows_head[] =
    "kernel k(X: f16[32, 64] layout S[(32, 8, 8):(64, 1, 8)], "
    "F: f16[32, 64], G: f16[32, 64]) grid(1) threads(128)\n{\n"
    "    shared s: f16[32, 64] layout ";
static const char rows_tail[] =
    ";\n    register q: f16[32, 64] layout S[(4, 4, 2, 8, 4, 2):(2, "
    "1@laneid, 1, 4@laneid, 1@warpid, 8)];\n"
    "    register q2: f16[32, 64] layout S[(4, 8, 4, 2, 8):(1@warpid, "
    "2, 1@laneid, 1, 4@laneid)];\n"
    "    cta copy(s, X);\n    sync;\n    cta copy(q, s);\n"
    "    cta copy(q2, s);\n    cta copy(F, q);\n    cta copy(G, q2);\n"
    "}\n";

/* The candidate is legal for q: compiled with s on it (printed and
 * parsed back), q's copy still runs as ldmatrix .trans. */
static void ldsm_other_rows_legal(const axe_layout *c)
{
    char src[1024], text[256];
    axe_program *p = NULL;
    axe_diag d;
    const ax_ldsm *ls;
    TL_CHECK(axe_print_layout(c, text, sizeof text) < sizeof text,
             "other rows: candidate text too long");
    (void)snprintf(src, sizeof src, "%s%s%s", rows_head, text, rows_tail);
    TL_CHECK(axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) ==
                 AXE_OK,
             "other rows on %s: %s", text, d.message);
    if (p == NULL)
        return;
    ls = axe__ldsm_of(p->ops[1]);
    TL_CHECK(ls != NULL && ls->chosen && ls->trans,
             "other rows on %s: q's copy is not ldmatrix .trans", text);
    axe_program_free(p);
}

/* A candidate places the other ldmatrix copies of its tensor by the rows
 * they read (place_and_pick). s (f16[32, 64], n = 8 a + b at (k, a, b)
 * -> 64 k + a + 8 b, unswizzled) is read by q2 (plain: lane 4r + c's
 * word g the two a = 2c, 2c + 1 of row k = 8 warp + g, b = r; its 8 rows
 * per matrix are 8 consecutive 16-byte chunks, conflict-free whatever
 * the swizzle) and by q (.trans: lane l's word g the k rows 8 (g / 2) +
 * 2 (l % 4) and + 1 of column a = l / 4, b = 2 warp + g % 2; its 8 rows
 * per matrix are 8 consecutive k, 128 bytes apart, 1 way only under a
 * swizzle that xors the three low bits of k into the chunk bits).
 * Placed by its per-thread 2-byte loads (4 of the 8 rows each), q asks
 * less, and the candidate of q2's rows took a swizzle on which q's
 * .trans rows are 2-way; placed by its rows, they are 1 way. */
static void test_ldsm_other_rows(void)
{
    char src[1024];
    axe_program *p = NULL;
    axe_diag d;
    axe_layout c;
    ax_ways w = {0, 0, 0};
    bool have = false;
    (void)snprintf(src, sizeof src, "%s%s%s", rows_head,
                   "S[(32, 8, 8):(64, 1, 8)]", rows_tail);
    TL_CHECK(axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) ==
                 AXE_OK,
             "other rows: %s", d.message);
    if (p == NULL)
        return;
    int si = tensor_named(p, "s");
    TL_CHECK(axe__smem_ldsm_copy(p, p->ops[1], si) &&
                 axe__smem_ldsm_copy(p, p->ops[2], si),
             "other rows: q and q2 do not both read s whole");
    must(axe__smem_ldsm_candidate(p, si, 2, false, &c, &have, NULL));
    TL_CHECK(have, "other rows: q2 gives no candidate");
    p->tensors[si].layout = c;
    must(axe__smem_ldsm_ways(p, p->ops[1], true, &w, NULL));
    TL_CHECK(w.max == 1,
             "other rows: q's .trans rows %d-way on q2's "
             "candidate (want 1)",
             w.max);
    axe_program_free(p);
    ldsm_other_rows_legal(&c);
}

int main(void)
{
    tl_seed("test_compiler_smem", 20261129);
    test_model_table();
    test_model_brute(3000);
    test_model_rejects();
    test_agrees_with_render(400);
    test_pick_ldmatrix();
    test_pick_transpose();
    test_pick_rejects_widths();
    test_pick_bf16_columns();
    test_pick_brute(150);
    test_pick_no_access();
    test_i4_table();
    test_hexcute_i4();
    test_hexcute_rows();
    test_ldsm_rows_f16();
    test_ldsm_other_rows();
    test_ldsm_rows_trans();
    test_ldsm_copy_whole();
    test_i4_store_rmw();
    test_align_paper();
    test_align_tv_table();
    test_align_laws(300);
    test_align_meet();
    test_examples();
    test_synth_examples();
    test_synth_records();
    test_free_orders5();
    test_order_tie_iters();
    test_view_swizzles();
    test_tree_steps();
    return tl_finish();
}
