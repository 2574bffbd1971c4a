/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA emulation's warp atoms (src/compiler/backend/cuda/
 * compiler_cuda_emu_atoms.h, written from the PTX ISA) against the
 * fragment tables of ../shared/spec/atoms.md (CuTe's TV layouts, read at
 * run time from $AXE_SHARED_DIR and evaluated with the library):
 *   - mma.sync: for every shape, lane and value, the emulation's (row,
 *     column) of A, B and C is the position the table's layout gives; and
 *     D = A B + C on seeded random integer tiles distributed to the lanes
 *     by the table's layouts equals the brute-force product exactly;
 *   - ldmatrix x1/x2/x4 (.trans): rows placed at random 16-byte slots of
 *     shared memory, lanes addressing them as the source layout says
 *     (replica lanes get a garbage address, which must not be read): every
 *     bit of every lane's registers is the bit the destination layout
 *     names;
 *   - shfl.sync: the ISA's pseudocode, with the c operand each CUDA
 *     intrinsic passes, agrees with the CUDA Programming Guide's
 *     definitions of __shfl_sync, __shfl_up_sync, __shfl_down_sync and
 *     __shfl_xor_sync for every width, lane and operand;
 *   - prmt.b32 against the bytes of its operands as an array; lop3.b32
 *     against the C expressions of ten truth tables; fma.rn.f16x2 against
 *     the library's f16 rounding (axe_f16_from_float) wherever the exact
 *     a * b + c is a float, and at ties, the overflow edge, subnormals
 *     and zeros; the f16 values its sums read (ax_emu_f16_value) equal
 *     axe_f16_to_float's for all 65536 bit patterns;
 *   - add.rn.f16x2, sub.rn.f16x2 and mul.rn.f16x2 against the per-element
 *     path's f16 (the library's, through float) on every pair of 1024
 *     values of every class and a million random pairs;
 *   - add.rn.bf16x2, sub.rn.bf16x2, mul.rn.bf16x2 (sm_90) and their sm_80
 *     forms by fma.rn.bf16x2 (a * 1 + b, b * -1 + a, a * b + -0) against
 *     the per-element path's bf16 (the library's, through float) on every
 *     pair of 1536 values (each sign and exponent, zeros, subnormals,
 *     infinities, NaNs, random) and a million random pairs; the bf16
 *     values they read equal axe_bf16_to_float's for all 65536 patterns;
 *   - max/min.f16x2 and max/min.bf16x2 against the per-element path's
 *     fmaxf/fminf through float on every pair of 1024 values of each
 *     format (NaNs, zeros, subnormals, infinities, random);
 *   - cvt.rna.tf32.f32: the emulation's bits equal the library's
 *     axe_tf32_round (tested by brute force in test_compiler_half.c) bit
 *     for bit for every sign, exponent and tf32 mantissa with the 13 low
 *     bits 0, 1, just below, at and above the tie, all ones, and random.
 * Exit 77 when atoms.md is not found. AXE_TEST_SEED=N replays.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../src/compiler/backend/cuda/compiler_cuda_emu_atoms.h"
#include "axe/cute.h"
#include "axe/kernel.h"
#include "axe/notation.h"
#include "testlib.h"

static char *slurp(const char *path)
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
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The backquoted fields of table line "line" (up to "max"), copied into
 * "out" (each up to 127 bytes); their number. */
static int fields(const char *line, char out[][128], int max)
{
    int n = 0;
    const char *a, *b;
    const char *end = strchr(line, '\n');
    for (a = strchr(line, '`');
         a != NULL && (end == NULL || a < end) && n < max;
         a = strchr(b + 1, '`')) {
        b = strchr(a + 1, '`');
        if (b == NULL || (size_t)(b - a - 1) >= sizeof out[0])
            break;
        memcpy(out[n], a + 1, (size_t)(b - a - 1));
        out[n][b - a - 1] = '\0';
        n++;
    }
    return n;
}

static bool layout_of(const char *text, axe_cute_layout *l)
{
    axe_diag d;
    bool ok = axe_parse_cute_layout(text, strlen(text), l, &d) == AXE_OK;
    TL_CHECK(ok, "'%s': %s", text, d.message);
    return ok;
}

/* The table position of (lane, value) in layout "l". */
static int64_t pos(const axe_cute_layout *l, int lane, int v)
{
    int64_t out = -1;
    TL_CHECK(axe_cute_eval(l, lane + 32 * (int64_t)v, &out) == AXE_OK, "eval");
    return out;
}

/* Whether the table line at "line" (to its newline) contains "what". */
static bool line_has(const char *line, const char *what)
{
    const char *end = strchr(line, '\n'), *at = strstr(line, what);
    return at != NULL && (end == NULL || at < end);
}

/* The mma row "line" of atoms.md, by its instruction and text. */
static int mma_kind(const char *line, const char *name)
{
    if (strstr(name, "m16n8k16") != NULL)
        return AX_EMU_M16N8K16;
    if (strstr(name, "m16n8k8") != NULL)
        return line_has(line, "tf32") ? AX_EMU_M16N8K8_TF32
                                      : AX_EMU_M16N8K8_F16;
    if (strstr(name, "m8n8k4") != NULL)
        return AX_EMU_M8N8K4_F64;
    if (strstr(name, "m16n8k32") != NULL)
        return AX_EMU_M16N8K32_8BIT;
    return -1;
}

/* Every (lane, value) of A, B and C at the table's position. */
static void check_fragments(ax_emu_mma_kind kind, const axe_cute_layout *tv)
{
    ax_emu_mma_shape s = ax_emu_mma_shape_of(kind);
    int l, i, r, c;
    int64_t size;
    TL_CHECK(axe_cute_size(&tv[0], &size) == AXE_OK && size == 32 * s.na &&
                 axe_cute_size(&tv[1], &size) == AXE_OK && size == 32 * s.nb &&
                 axe_cute_size(&tv[2], &size) == AXE_OK && size == 32 * s.nc,
             "kind %d: value counts", (int)kind);
    for (l = 0; l < 32; l++) {
        for (i = 0; i < s.na; i++) {
            int64_t p = pos(&tv[0], l, i);
            ax_emu_mma_a(kind, l, i, &r, &c);
            TL_CHECK(p == r + (int64_t)s.m * c,
                     "kind %d A lane %d value %d: table %lld, emu (%d,%d)",
                     (int)kind, l, i, (long long)p, r, c);
        }
        for (i = 0; i < s.nb; i++) {
            int64_t p = pos(&tv[1], l, i);
            ax_emu_mma_b(kind, l, i, &r, &c); /* r: k, c: n */
            TL_CHECK(p == c + (int64_t)s.n * r,
                     "kind %d B lane %d value %d: table %lld, emu (k %d, n %d)",
                     (int)kind, l, i, (long long)p, r, c);
        }
        for (i = 0; i < s.nc; i++) {
            int64_t p = pos(&tv[2], l, i);
            ax_emu_mma_c(kind, l, i, &r, &c);
            TL_CHECK(p == r + (int64_t)s.m * c,
                     "kind %d C lane %d value %d: table %lld, emu (%d,%d)",
                     (int)kind, l, i, (long long)p, r, c);
        }
    }
}

/* D = A B + C through the emulation, lanes loaded and read by the
 * table's layouts, against the brute-force product. */
static void check_product(ax_emu_mma_kind kind, const axe_cute_layout *tv)
{
    ax_emu_mma_shape s = ax_emu_mma_shape_of(kind);
    static double am[16 * 32], bm[32 * 8], cm[16 * 8];
    double a[32 * 16], b[32 * 8], c[32 * 4], d[32 * 4];
    int l, i, r, q, k, bad = 0;
    for (i = 0; i < s.m * s.k; i++) /* col-major (M, K) */
        am[i] = (double)tl_range(-8, 8);
    for (i = 0; i < s.n * s.k; i++) /* col-major (N, K) */
        bm[i] = (double)tl_range(-8, 8);
    for (i = 0; i < s.m * s.n; i++) /* col-major (M, N) */
        cm[i] = (double)tl_range(-64, 64);
    for (l = 0; l < 32; l++) {
        for (i = 0; i < s.na; i++)
            a[16 * l + i] = am[pos(&tv[0], l, i)];
        for (i = 0; i < s.nb; i++)
            b[8 * l + i] = bm[pos(&tv[1], l, i)];
        for (i = 0; i < s.nc; i++)
            c[4 * l + i] = cm[pos(&tv[2], l, i)];
    }
    ax_emu_mma(kind, a, b, c, d);
    for (l = 0; l < 32; l++)
        for (i = 0; i < s.nc; i++) {
            int64_t p = pos(&tv[2], l, i);
            double want;
            r = (int)(p % s.m);
            q = (int)(p / s.m);
            want = cm[p];
            for (k = 0; k < s.k; k++)
                want += am[r + s.m * k] * bm[q + s.n * k];
            bad += d[4 * l + i] != want;
        }
    TL_CHECK(bad == 0, "kind %d: %d values of D differ", (int)kind, bad);
}

static int test_mma(const char *md)
{
    const char *line;
    int rows = 0, kinds = 0, round;
    for (line = strstr(md, "\n| `mma.sync"); line != NULL;
         line = strstr(line + 1, "\n| `mma.sync")) {
        char f[4][128];
        axe_cute_layout tv[3];
        int n = fields(line + 1, f, 4), kind = mma_kind(line + 1, f[0]);
        rows++;
        if (n == 1 && line_has(line + 1, "same as s8"))
            continue; /* e4m3/e5m2: the s8 fragments */
        TL_CHECK(n == 4 && kind >= 0, "row %d: %d fields", rows, n);
        if (n != 4 || kind < 0 || !layout_of(f[1], &tv[0]) ||
            !layout_of(f[2], &tv[1]) || !layout_of(f[3], &tv[2]))
            continue;
        kinds |= 1 << kind;
        check_fragments((ax_emu_mma_kind)kind, tv);
        for (round = 0; round < 20; round++)
            check_product((ax_emu_mma_kind)kind, tv);
    }
    TL_CHECK(kinds == (1 << AX_EMU_MMA_NKINDS) - 1,
             "atoms.md covers every mma shape (mask %x)", (unsigned)kinds);
    return rows;
}

/* One ldmatrix row of the table: x"n", "trans", its two layouts. */
static void check_ldmatrix(int n, int trans, const axe_cute_layout *src,
                           const axe_cute_layout *dst)
{
    enum { SLOTS = 48 };
    unsigned char smem[SLOTS * 16];
    int slot_of_row[32], perm[SLOTS], row_of_lane[32];
    uint32_t addr[32], d[32][4];
    int l, j, b, i, bad = 0, garbage;
    for (i = 0; i < (int)sizeof smem; i++)
        smem[i] = (unsigned char)tl_range(0, 255);
    for (i = 0; i < SLOTS; i++)
        perm[i] = i;
    for (i = SLOTS - 1; i > 0; i--) {
        int k = (int)tl_range(0, i), t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (i = 0; i < 8 * n; i++)
        slot_of_row[i] = perm[i];
    garbage = perm[8 * n];
    for (l = 0; l < 32; l++) {
        int64_t off = pos(src, l, 0), o2;
        row_of_lane[l] = (int)(off / 128);
        TL_CHECK(off % 128 == 0 && off / 128 < 8 * n, "x%d lane %d: row %lld",
                 n, l, (long long)off);
        for (b = 0; b < 128; b += 37) {
            o2 = pos(src, l, b);
            TL_CHECK(o2 == off + b, "x%d lane %d: row bits contiguous", n, l);
        }
        addr[l] = 16u * (uint32_t)slot_of_row[row_of_lane[l] % (8 * n)];
        for (i = 0; i < l; i++)
            if (row_of_lane[i] == row_of_lane[l])
                addr[l] = 16u * (uint32_t)garbage; /* a replica lane */
    }
    ax_emu_ldmatrix(smem, addr, n, trans, d);
    for (l = 0; l < 32; l++)
        for (j = 0; j < n; j++)
            for (b = 0; b < 32; b++) {
                int64_t off = pos(dst, l, b + 32 * j);
                int row = (int)(off / 128), bit = (int)(off % 128);
                const unsigned char *r = smem + 16 * slot_of_row[row % (8 * n)];
                unsigned want = ((unsigned)r[bit / 8] >> (bit % 8)) & 1u;
                bad += ((d[l][j] >> b) & 1u) != want;
            }
    TL_CHECK(bad == 0, "ldmatrix x%d%s: %d bits differ", n,
             trans ? ".trans" : "", bad);
}

static int test_ldmatrix(const char *md)
{
    const char *line;
    int rows = 0, seen = 0, round;
    for (line = strstr(md, "\n| `ldmatrix"); line != NULL;
         line = strstr(line + 1, "\n| `ldmatrix")) {
        char f[3][128];
        axe_cute_layout src, dst;
        int n, trans;
        rows++;
        if (fields(line + 1, f, 3) != 3) {
            TL_CHECK(false, "ldmatrix row %d: fields", rows);
            continue;
        }
        n = strstr(f[0], "x1") ? 1 : strstr(f[0], "x2") ? 2 : 4;
        trans = strstr(f[0], ".trans") != NULL;
        if (!layout_of(f[1], &src) || !layout_of(f[2], &dst))
            continue;
        seen |= 1 << ((n == 4 ? 2 : n - 1) + 3 * trans);
        for (round = 0; round < 10; round++)
            check_ldmatrix(n, trans, &src, &dst);
    }
    TL_CHECK(seen == 63,
             "atoms.md covers x1/x2/x4 with and without .trans "
             "(mask %x)",
             (unsigned)seen);
    return rows;
}

/* The CUDA Programming Guide's shuffles (width w, a power of 2 <= 32):
 * the lane whose value lane "l" receives. */
static int guide_src(ax_emu_shfl_mode mode, int l, int b, int w)
{
    int base = l / w * w, j;
    switch (mode) {
    case AX_EMU_SHFL_UP:
        return l % w >= b ? l - b : l;
    case AX_EMU_SHFL_DOWN:
        return l % w + b < w ? l + b : l;
    case AX_EMU_SHFL_BFLY:
        j = l ^ b;
        return j < base + w ? j : l; /* later groups: own value */
    case AX_EMU_SHFL_IDX:
    default:
        return base + b % w;
    }
}

/* The c operand of the intrinsic for width w. */
static uint32_t guide_c(ax_emu_shfl_mode mode, int w)
{
    uint32_t seg = (uint32_t)(32 - w) << 8;
    return mode == AX_EMU_SHFL_UP ? seg : seg | 0x1fu;
}

static void test_shfl(void)
{
    uint32_t a[32], d[32];
    int mode, w, l, b, bad = 0, p;
    for (l = 0; l < 32; l++)
        a[l] = 1000u + (uint32_t)l;
    for (mode = 0; mode < 4; mode++)
        for (w = 1; w <= 32; w *= 2)
            for (b = 0; b < 32; b++) {
                if (mode == AX_EMU_SHFL_BFLY && b >= 32)
                    continue;
                ax_emu_shfl((ax_emu_shfl_mode)mode, a, (uint32_t)b,
                            guide_c((ax_emu_shfl_mode)mode, w), d);
                for (l = 0; l < 32; l++) {
                    int want = guide_src((ax_emu_shfl_mode)mode, l, b, w);
                    bad += d[l] != a[want];
                    if (d[l] != a[want] && bad < 5)
                        fprintf(stderr, "mode %d w %d b %d lane %d: %u, %d\n",
                                mode, w, b, l, d[l], want);
                }
            }
    TL_CHECK(bad == 0, "shfl: %d lanes differ from the guide", bad);
    TL_CHECK(ax_emu_shfl_src(AX_EMU_SHFL_DOWN, 31, 1, 0x1f, &p) == 31 && p == 0,
             "down past the warp: own lane, pval 0");
}

static void test_cvt_tf32(void)
{
    static const uint32_t lows[] = {0, 1, 0xfffu, 0x1000u, 0x1001u, 0x1fffu};
    uint32_t hi, bits, got, want;
    size_t i;
    float x, r;
    int bad = 0;
    for (hi = 0; hi < (1u << 19); hi++)
        for (i = 0; i <= sizeof lows / sizeof lows[0]; i++) {
            bits = hi << 13 | (i < sizeof lows / sizeof lows[0]
                                   ? lows[i]
                                   : (uint32_t)tl_rand() & 0x1fffu);
            memcpy(&x, &bits, sizeof x);
            got = ax_emu_cvt_rna_tf32(x);
            r = axe_tf32_round(x);
            memcpy(&want, &r, sizeof want);
            if (got != want && bad++ < 5)
                TL_CHECK(0,
                         "cvt.rna.tf32.f32 of 0x%08x: 0x%08x, the library "
                         "0x%08x",
                         bits, got, want);
        }
    TL_CHECK(bad == 0, "cvt.rna.tf32.f32: %d patterns differ", bad);
}

/* prmt.b32 by the bytes of {b, a} as an array (little-endian): the
 * identity, b, a's bytes reversed, the sign replication, and random. */
static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c)
{
    unsigned char x[8], d[4];
    uint32_t r;
    int k;
    for (k = 0; k < 4; k++) {
        x[k] = (unsigned char)(a >> (8 * k));
        x[4 + k] = (unsigned char)(b >> (8 * k));
    }
    for (k = 0; k < 4; k++) {
        unsigned s = c >> (4 * k) & 0xfu;
        d[k] = x[s & 7u];
        if (s & 8u)
            d[k] = d[k] >= 0x80u ? 0xffu : 0u;
    }
    r = (uint32_t)d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16 |
        (uint32_t)d[3] << 24;
    return r;
}

static void test_prmt_lop3(void)
{
    static const unsigned luts[] = {0x6a, 0xf0, 0xcc, 0xaa, 0x80,
                                    0xfe, 0x96, 0xe8, 0x00, 0xff};
    uint32_t a, b, c, want;
    int i, j, bad = 0;
    TL_CHECK(
        ax_emu_prmt(0x44332211u, 0x88776655u, 0x3210u) == 0x44332211u &&
            ax_emu_prmt(0x44332211u, 0x88776655u, 0x7654u) == 0x88776655u &&
            ax_emu_prmt(0x44332211u, 0x88776655u, 0x0123u) == 0x11223344u &&
            ax_emu_prmt(0x7f0080ffu, 0, 0x89abu) == 0xffff0000u,
        "prmt.b32: identity, b, reversed, sign replication");
    for (i = 0; i < 100000; i++) {
        a = (uint32_t)tl_rand(), b = (uint32_t)tl_rand();
        c = (uint32_t)tl_rand();
        if (ax_emu_prmt(a, b, c & 0xffffu) != prmt_ref(a, b, c & 0xffffu) &&
            bad++ < 5)
            TL_CHECK(0, "prmt.b32 0x%08x 0x%08x 0x%04x", a, b, c & 0xffffu);
        for (j = 0; j < 10; j++) {
            want = j == 0   ? (a & b) ^ c
                   : j == 1 ? a
                   : j == 2 ? b
                   : j == 3 ? c
                   : j == 4 ? a & b & c
                   : j == 5 ? a | b | c
                   : j == 6 ? a ^ b ^ c
                   : j == 7 ? (a & b) | (a & c) | (b & c)
                   : j == 8 ? 0u
                            : 0xffffffffu;
            if (ax_emu_lop3(a, b, c, luts[j]) != want && bad++ < 5)
                TL_CHECK(0, "lop3.b32 lut 0x%02x", luts[j]);
        }
    }
    TL_CHECK(bad == 0, "prmt.b32 / lop3.b32: %d results differ", bad);
}

/* Two random finite f16 (an infinite or NaN exponent made 15). */
static uint32_t rand_f16x2(void)
{
    uint32_t r = (uint32_t)tl_rand(), h;
    for (h = 0; h < 32; h += 16)
        if ((r >> h & 0x7c00u) == 0x7c00u)
            r ^= 0x4000u << h;
    return r;
}

/* fma.rn.f16x2 on random f16 halves (and both halves independent): where
 * a * b + c is a float, the library's f16 rounding of it; the ties to
 * even, the overflow edge, subnormals and signed zeros by value. */
/* ax_emu_f16_value, which test_fma_f16x2's sums read, against the
 * library's f16 for every bit pattern (NaN: both NaN; zeros by sign). */
static void test_f16_value(void)
{
    uint32_t u;
    int bad = 0;
    for (u = 0; u < 65536; u++) {
        double v = ax_emu_f16_value(u);
        float f = axe_f16_to_float((uint16_t)u);
        bool same = isnan(v) ? isnan(f)
                             : !isnan(f) && v == (double)f &&
                                   !signbit(v) == !signbit(f);
        if (!same && bad++ < 5)
            TL_CHECK(0, "f16 0x%04x: %a, the library %a", (unsigned)u, v,
                     (double)f);
    }
    TL_CHECK(bad == 0, "f16 values: %d of 65536 differ", bad);
}

static void test_fma_f16x2(void)
{
    static const struct {
        double v;
        uint16_t h;
    } rows[] = {{1 + 0x1p-11, 0x3c00}, {1 + 3 * 0x1p-11, 0x3c02},
                {65504, 0x7bff},       {65519.99, 0x7bff},
                {65520, 0x7c00},       {-65520, 0xfc00},
                {0x1p-25, 0x0000},     {3 * 0x1p-25, 0x0002},
                {0x1p-14, 0x0400},     {0x1p-14 - 0x1p-25, 0x0400},
                {-0.0, 0x8000},        {0.0, 0x0000}};
    uint32_t a, b, c, d;
    double v;
    size_t i;
    int h, n = 0, bad = 0;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        TL_CHECK(ax_emu_f16_rn(rows[i].v) == rows[i].h,
                 "f16 of %a: 0x%04x, want 0x%04x", rows[i].v,
                 ax_emu_f16_rn(rows[i].v), rows[i].h);
    for (i = 0; i < 200000; i++) {
        a = rand_f16x2();
        b = rand_f16x2();
        c = rand_f16x2();
        d = ax_emu_fma_rn_f16x2(a, b, c);
        for (h = 0; h < 2; h++) {
            v = ax_emu_f16_value(a >> (16 * h) & 0xffffu) *
                    ax_emu_f16_value(b >> (16 * h) & 0xffffu) +
                ax_emu_f16_value(c >> (16 * h) & 0xffffu);
            if ((double)(float)v != v || v == 0)
                continue;
            n++;
            if ((d >> (16 * h) & 0xffffu) != axe_f16_from_float((float)v) &&
                bad++ < 5)
                TL_CHECK(0, "fma.rn.f16x2 half %d of 0x%08x 0x%08x 0x%08x", h,
                         a, b, c);
        }
    }
    TL_CHECK(bad == 0 && n > 100000, "fma.rn.f16x2: %d of %d float sums differ",
             bad, n);
}

/* The f16 bits of a op b computed as the per-element path does (each
 * f16 to float, the float operation, rounded back: the library's f16). */
static uint16_t f16_by_float(ax_emu_f16x2_kind k, uint16_t a, uint16_t b)
{
    float x = axe_f16_to_float(a), y = axe_f16_to_float(b);
    return axe_f16_from_float(k == AX_EMU_F16X2_ADD   ? x + y
                              : k == AX_EMU_F16X2_SUB ? x - y
                                                      : x * y);
}

/* Whether both f16 bit patterns are NaN, or they are the same bits. */
static bool f16_same(uint16_t a, uint16_t b)
{
    bool na = (a & 0x7fffu) > 0x7c00u, nb = (b & 0x7fffu) > 0x7c00u;
    return na || nb ? na && nb : a == b;
}

/* Operation "k" on the word of halves (a, b) and (b, a) against
 * f16_by_float for both halves; the number of halves that differ. */
static int f16x2_pair(ax_emu_f16x2_kind k, uint16_t a, uint16_t b)
{
    uint32_t d = ax_emu_f16x2_op(k, (uint32_t)a | (uint32_t)b << 16,
                                 (uint32_t)b | (uint32_t)a << 16);
    int bad = !f16_same((uint16_t)d, f16_by_float(k, a, b)) +
              !f16_same((uint16_t)(d >> 16), f16_by_float(k, b, a));
    if (bad > 0)
        TL_CHECK(0, "f16x2 op %d on 0x%04x 0x%04x: 0x%08x", (int)k, a, b, d);
    return bad;
}

/* add.rn.f16x2, sub.rn.f16x2 and mul.rn.f16x2 (one rounding of the exact
 * result) give the per-element path's f16 (through float) for every pair
 * of 1024 values (each sign and exponent with the mantissas 0, 1, 2,
 * 0x155, 0x200, 0x2aa, 0x3fe and 0x3ff: zeros, subnormals, the normal
 * edges, infinities and NaNs; and 512 random patterns), both orders,
 * and a million random pairs: f16 products are exact in float and f16
 * sums round innocuously twice (24 >= 2 * 11 + 2). A separate run over
 * all 2^32 pairs found no difference either (commit message). */
static void test_f16x2_ops(void)
{
    static const uint16_t mant[8] = {0,     1,     2,     0x155,
                                     0x200, 0x2aa, 0x3fe, 0x3ff};
    uint16_t v[1024];
    int i, j, k, bad = 0;
    for (i = 0; i < 512; i++)
        v[i] = (uint16_t)((i / 8) << 10 | mant[i % 8]);
    for (; i < 1024; i++)
        v[i] = (uint16_t)tl_rand();
    for (k = 0; k < 3 && bad < 5; k++)
        for (i = 0; i < 1024 && bad < 5; i++)
            for (j = i; j < 1024 && bad < 5; j++)
                bad += f16x2_pair((ax_emu_f16x2_kind)k, v[i], v[j]);
    for (i = 0; i < 1000000 / 2 && bad < 5; i++)
        bad += f16x2_pair((ax_emu_f16x2_kind)(i % 3), (uint16_t)tl_rand(),
                          (uint16_t)tl_rand());
    TL_CHECK(bad == 0, "f16x2 add/sub/mul: %d halves differ", bad);
}

/* The bf16 bits of a op b computed as the per-element path does (each
 * bf16 to float, the float operation, rounded back: the library's). */
static uint16_t bf16_by_float(ax_emu_f16x2_kind k, uint16_t a, uint16_t b)
{
    float x = axe_bf16_to_float(a), y = axe_bf16_to_float(b);
    return axe_bf16_from_float(k == AX_EMU_F16X2_ADD   ? x + y
                               : k == AX_EMU_F16X2_SUB ? x - y
                                                       : x * y);
}

/* Whether both bf16 bit patterns are NaN, or they are the same bits. */
static bool bf16_same(uint16_t a, uint16_t b)
{
    bool na = (a & 0x7fffu) > 0x7f80u, nb = (b & 0x7fffu) > 0x7f80u;
    return na || nb ? na && nb : a == b;
}

/* Operation "k" on words a, b as sm_80 emits it: fma.rn.bf16x2 with the
 * constants 1 (a * 1 + b), -1 (b * -1 + a) and -0 (a * b + -0, so that a
 * product -0 stays -0). */
static uint32_t bf16x2_by_fma(ax_emu_f16x2_kind k, uint32_t a, uint32_t b)
{
    return k == AX_EMU_F16X2_ADD   ? ax_emu_fma_rn_bf16x2(a, 0x3f803f80u, b)
           : k == AX_EMU_F16X2_SUB ? ax_emu_fma_rn_bf16x2(b, 0xbf80bf80u, a)
                                   : ax_emu_fma_rn_bf16x2(a, b, 0x80008000u);
}

/* Operation "k" on the word of halves (a, b) and (b, a), by the sm_90
 * instruction and by the sm_80 fma, against bf16_by_float for both
 * halves; the number of halves that differ. */
static int bf16x2_pair(ax_emu_f16x2_kind k, uint16_t a, uint16_t b)
{
    uint32_t wa = (uint32_t)a | (uint32_t)b << 16,
             wb = (uint32_t)b | (uint32_t)a << 16;
    uint32_t d[2] = {ax_emu_bf16x2_op(k, wa, wb), bf16x2_by_fma(k, wa, wb)};
    int bad = 0, f;
    for (f = 0; f < 2; f++) {
        int n = !bf16_same((uint16_t)d[f], bf16_by_float(k, a, b)) +
                !bf16_same((uint16_t)(d[f] >> 16), bf16_by_float(k, b, a));
        if (n > 0)
            TL_CHECK(0, "bf16x2 op %d (%s) on 0x%04x 0x%04x: 0x%08x", (int)k,
                     f ? "fma" : "sm_90", a, b, d[f]);
        bad += n;
    }
    return bad;
}

/* bf16 add, sub and mul a word at a time, by add/sub/mul.rn.bf16x2 and by
 * fma.rn.bf16x2, give the per-element path's bf16 (through float) for
 * every pair of 1536 values (each sign and exponent with two of the
 * mantissas 0, 1, 2, 0x2a, 0x40, 0x55, 0x7e, 0x7f: zeros, subnormals, the
 * normal edges, infinities and NaNs; and 512 random patterns), both
 * orders, and a million random pairs: bf16 products are exact in float
 * (16 significant bits; below 2^-149 both give zero), sums of values
 * below 2^-126 too, and bf16 sums round innocuously twice (24 >= 2 * 8 +
 * 2). A separate run over all 2^32 pairs found no difference either
 * (commit message). */
static void test_bf16x2_ops(void)
{
    static const uint16_t mant[8] = {0, 1, 2, 0x2a, 0x40, 0x55, 0x7e, 0x7f};
    uint16_t v[1536];
    int i, j, k, bad = 0;
    for (i = 0; i < 65536; i++)
        bad += ax_emu_bf16_value((uint32_t)i) !=
                   (double)axe_bf16_to_float((uint16_t)i) &&
               !((i & 0x7fff) > 0x7f80);
    TL_CHECK(bad == 0, "ax_emu_bf16_value: %d patterns differ", bad);
    /* fma's exact sum: 1.75 * 1.15625 = 2.0234375 is a bf16 tie (259 / 128
     * between 2 + 2^-6 and 2 + 2^-5); -+2^-60 puts the exact result
     * below and above it, where the sum rounded to a double is the tie. */
    TL_CHECK(ax_emu_fma_rn_bf16x2(0x3fe0u, 0x3f94u, 0xa180u) == 0x4001u &&
                 ax_emu_fma_rn_bf16x2(0x3fe0u, 0x3f94u, 0x2180u) == 0x4002u,
             "fma.rn.bf16x2 near a tie: one rounding of the exact sum");
    for (i = 0; i < 1024; i++)
        v[i] = (uint16_t)((i / 2) << 7 | mant[(i % 2) * 4 + (i / 2) % 4]);
    for (; i < 1536; i++)
        v[i] = (uint16_t)tl_rand();
    for (k = 0; k < 3 && bad < 5; k++)
        for (i = 0; i < 1536 && bad < 5; i++)
            for (j = i; j < 1536 && bad < 5; j++)
                bad += bf16x2_pair((ax_emu_f16x2_kind)k, v[i], v[j]);
    for (i = 0; i < 1000000 / 2 && bad < 5; i++)
        bad += bf16x2_pair((ax_emu_f16x2_kind)(i % 3), (uint16_t)tl_rand(),
                           (uint16_t)tl_rand());
    TL_CHECK(bad == 0, "bf16x2 add/sub/mul: %d halves differ", bad);
}

/* Whether 16-bit patterns a and b of format "bf16" are both NaN, the
 * same bits, or both zeros (max and min: a zero's sign unspecified). */
static bool minmax_same(int bf16, uint16_t a, uint16_t b)
{
    return bf16 ? bf16_same(a, b) || ((a | b) & 0x7fffu) == 0
                : f16_same(a, b) || ((a | b) & 0x7fffu) == 0;
}

/* The per-element path's max or min of 16-bit patterns a and b: each to
 * float, fmaxf or fminf (maxNum: a NaN loses to a number), rounded back
 * (exact: the result is one of the two). A NaN is made quiet first: the
 * language ignores any NaN, as CUDA's fmaxf does, where glibc's returns
 * NaN for a signaling one (IEEE 754-2008's minNum). */
static uint16_t minmax_by_float(int is_max, int bf16, uint16_t a, uint16_t b)
{
    float x = bf16 ? axe_bf16_to_float(a) : axe_f16_to_float(a);
    float y = bf16 ? axe_bf16_to_float(b) : axe_f16_to_float(b);
    x = x != x ? NAN : x;
    y = y != y ? NAN : y;
    float r = is_max ? fmaxf(x, y) : fminf(x, y);
    return bf16 ? axe_bf16_from_float(r) : axe_f16_from_float(r);
}

/* max/min.f16x2 and max/min.bf16x2 give the per-element path's value for
 * every pair of 1024 values of each format (each sign and exponent with
 * mantissas 0, 1 and all ones: zeros, subnormals, infinities, NaNs; and
 * random patterns), both orders: the word-at-a-time max and min are
 * exact, NaN handled alike (a NaN loses to a number). */
static void test_minmax16x2(void)
{
    uint16_t v[1024];
    int f, i, j, m, bad = 0;
    for (f = 0; f < 2; f++) {
        int mb = f ? 7 : 10;
        for (i = 0; i < 1024; i++) { /* bf16: exponents 0, 2, .., 252, 255 */
            uint32_t k = (uint32_t)(i / 3), q = (uint32_t)(i % 3);
            uint32_t e =
                f ? (k >> 1 == 127 ? 255u : (k >> 1) * 2) : (k >> 1) % 32;
            uint32_t w = (k & 1) << 15 | e << mb |
                         (q == 0   ? 0u
                          : q == 1 ? 1u
                                   : (1u << mb) - 1);
            v[i] = (uint16_t)(i < 768 ? w : (uint32_t)tl_rand());
        }
        for (m = 0; m < 2; m++)
            for (i = 0; i < 1024 && bad < 5; i++)
                for (j = 0; j < 1024 && bad < 5; j++) {
                    uint32_t d = ax_emu_minmax16x2(
                        m, f, (uint32_t)v[i] | (uint32_t)v[j] << 16,
                        (uint32_t)v[j] | (uint32_t)v[i] << 16);
                    int n = !minmax_same(f, (uint16_t)d,
                                         minmax_by_float(m, f, v[i], v[j])) +
                            !minmax_same(f, (uint16_t)(d >> 16),
                                         minmax_by_float(m, f, v[j], v[i]));
                    if (n > 0)
                        TL_CHECK(0, "%s.%s on 0x%04x 0x%04x: 0x%08x",
                                 m ? "max" : "min", f ? "bf16x2" : "f16x2",
                                 v[i], v[j], d);
                    bad += n;
                }
    }
    TL_CHECK(bad == 0, "max/min f16x2, bf16x2: %d halves differ", bad);
}

/* max/min.f16x2 and .bf16x2 of two zeros, exact: the ISA's notes say
 * "+0.0 > -0.0", so max(+0, -0) = +0 and min(+0, -0) = -0 in either order
 * (the table, from that rule alone; the low half is (a, b), the high
 * half (b, a)). */
static void test_minmax16x2_zeros(void)
{
    static const uint16_t t[4][4] = {/* a, b, max, min */
                                     {0x0000, 0x0000, 0x0000, 0x0000},
                                     {0x0000, 0x8000, 0x0000, 0x8000},
                                     {0x8000, 0x0000, 0x0000, 0x8000},
                                     {0x8000, 0x8000, 0x8000, 0x8000}};
    int f, m, i;
    for (f = 0; f < 2; f++)
        for (m = 0; m < 2; m++)
            for (i = 0; i < 4; i++) {
                uint32_t a = (uint32_t)t[i][0] | (uint32_t)t[i][1] << 16;
                uint32_t b = (uint32_t)t[i][1] | (uint32_t)t[i][0] << 16;
                uint32_t want = t[i][m ? 2 : 3] * 0x10001u;
                uint32_t d = ax_emu_minmax16x2(m, f, a, b);
                TL_CHECK(d == want,
                         "%s.%s of zeros 0x%04x 0x%04x: 0x%08x, "
                         "want 0x%08x",
                         m ? "max" : "min", f ? "bf16x2" : "f16x2", t[i][0],
                         t[i][1], d, want);
            }
}

int main(void)
{
    const char *dir = getenv("AXE_SHARED_DIR");
    char path[4096];
    char *md;
    tl_seed("test_cuda_emu_atoms", 13);
    test_shfl();
    test_cvt_tf32();
    test_prmt_lop3();
    test_f16_value();
    test_fma_f16x2();
    test_f16x2_ops();
    test_bf16x2_ops();
    test_minmax16x2();
    test_minmax16x2_zeros();
    snprintf(path, sizeof path, "%s/spec/atoms.md", dir ? dir : "../shared");
    md = slurp(path);
    if (md == NULL) {
        printf("%s not found: the atoms.md checks skipped\n", path);
        (void)tl_finish();
        return 77;
    }
    TL_CHECK(test_mma(md) == 6, "six mma rows");
    TL_CHECK(test_ldmatrix(md) == 6, "six ldmatrix rows");
    free(md);
    return tl_finish();
}
