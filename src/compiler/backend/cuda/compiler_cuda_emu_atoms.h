/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA emulation's warp-collective atoms (issue 13 §3.3), written from
 * the PTX ISA's definitions, for the CPU emulation of the CUDA backend's
 * output (a warp's 32 lanes are emulated together: the emulator gathers
 * every lane's operands at the collective and scatters the results):
 *   - mma.sync.aligned fragments and the product: for each shape, value i
 *     of lane l of A, B and C/D lies at the (row, column) the PTX ISA's
 *     "Matrix fragments for mma.m16n8k*" figures give (groupID = l >> 2,
 *     threadID_in_group = l % 4); D = A B + C;
 *   - ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16: lanes 8j ..
 *     8j + 7 address the rows of matrix j; lane l receives in register j
 *     the pair of b16 elements (row l / 4, columns 2 (l % 4), +1) of
 *     matrix j, or with .trans (rows 2 (l % 4), +1, column l / 4);
 *   - cvt.rna.tf32.f32: the ISA's "round to nearest, ties away from
 *     zero" to tf32's 10 mantissa bits, the result a .b32 whose 13 low
 *     bits are zero (an infinity stays, NaN a quiet NaN of its sign);
 *   - prmt.b32, lop3.b32 and fma.rn.f16x2 (per thread; the i4 -> f16
 *     cast by bit tricks): the ISA's byte select, truth table, and one
 *     rounding to nearest even of each half's a * b + c;
 *   - add.rn.f16x2, sub.rn.f16x2, mul.rn.f16x2 (per thread; f16
 *     arithmetic a word at a time): one rounding to nearest even of
 *     each half's exact result;
 *   - add.rn.bf16x2, sub.rn.bf16x2, mul.rn.bf16x2 (sm_90) and
 *     fma.rn.bf16x2 (sm_80; bf16 arithmetic a word at a time): the same,
 *     to bf16 (8 significant bits, float's exponent range, subnormals
 *     kept, NaN the canonical 0x7fff);
 *   - max/min.f16x2 and max/min.bf16x2 (sm_80): a NaN loses to a number,
 *     two NaN give 0x7fff, and of two zeros +0.0 > -0.0 (the ISA's
 *     notes: max(+0, -0) = +0, min(+0, -0) = -0 in either order);
 *   - shfl.sync.{up,down,bfly,idx}.b32: the source lane of each lane from
 *     b and c (clamp c[4:0], segment mask c[12:8]), as the ISA's
 *     pseudocode, its own lane when the source is out of range.
 * Header-only, C99 and C++ alike (the emulation compiles the generated
 * .cu as C++ against it), no dependency on libaxe. The fragment tables of
 * ../shared/spec/atoms.md (CuTe's TV layouts) are the independent check
 * (tests/test_cuda_emu_atoms.c). Invariant: every function is total on
 * its documented domain (lanes 0..31, value indices below the counts of
 * ax_emu_mma_shape) and touches no memory outside its arguments.
 */
#ifndef AXE_COMPILER_CUDA_EMU_ATOMS_H
#define AXE_COMPILER_CUDA_EMU_ATOMS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The mma.sync shapes (one per fragment geometry). */
typedef enum ax_emu_mma_kind {
    AX_EMU_M16N8K16,     /* f16/bf16 inputs, f16 or f32 accumulate */
    AX_EMU_M16N8K8_F16,  /* f16 inputs */
    AX_EMU_M16N8K8_TF32, /* tf32 inputs */
    AX_EMU_M8N8K4_F64,   /* f64 */
    AX_EMU_M16N8K32_8BIT /* s8/u8 -> s32, e4m3/e5m2 -> f32 (sm_89+) */
} ax_emu_mma_kind;
#define AX_EMU_MMA_NKINDS 5

/* M, N, K and the values per lane of A, B and C/D. */
typedef struct ax_emu_mma_shape {
    int m, n, k, na, nb, nc;
} ax_emu_mma_shape;

static inline ax_emu_mma_shape ax_emu_mma_shape_of(ax_emu_mma_kind kind)
{
    static const ax_emu_mma_shape shapes[AX_EMU_MMA_NKINDS] = {
        {16, 8, 16, 8, 4, 4},
        {16, 8, 8, 4, 2, 4},
        {16, 8, 8, 4, 2, 4},
        {8, 8, 4, 1, 1, 2},
        {16, 8, 32, 16, 8, 4}};
    return shapes[kind];
}

/* Value i of lane "lane" of A (M x K): its row and column. */
static inline void ax_emu_mma_a(ax_emu_mma_kind kind, int lane, int i, int *row,
                                int *col)
{
    int g = lane >> 2, t = lane % 4;
    switch (kind) {
    case AX_EMU_M16N8K16: /* a0,a1,a4,a5: row g; a2,a3,a6,a7: g + 8 */
        *row = g + 8 * ((i >> 1) & 1);
        *col = 2 * t + (i & 1) + 8 * (i >> 2);
        return;
    case AX_EMU_M16N8K8_F16: /* a0,a1: row g; a2,a3: g + 8 */
        *row = g + 8 * (i >> 1);
        *col = 2 * t + (i & 1);
        return;
    case AX_EMU_M16N8K8_TF32: /* a0,a2: row g; a1,a3: g + 8; a2,a3: +4 */
        *row = g + 8 * (i & 1);
        *col = t + 4 * (i >> 1);
        return;
    case AX_EMU_M8N8K4_F64:
        *row = g;
        *col = t;
        return;
    case AX_EMU_M16N8K32_8BIT: /* a4..a7, a12..a15: row g + 8 */
        *row = g + 8 * ((i >> 2) & 1);
        *col = 4 * t + (i & 3) + 16 * (i >> 3);
        return;
    }
    *row = *col = 0;
}

/* Value i of lane "lane" of B (K x N): its row k and column n. */
static inline void ax_emu_mma_b(ax_emu_mma_kind kind, int lane, int i, int *k,
                                int *n)
{
    int g = lane >> 2, t = lane % 4;
    *n = g;
    switch (kind) {
    case AX_EMU_M16N8K16:
        *k = 2 * t + (i & 1) + 8 * (i >> 1);
        return;
    case AX_EMU_M16N8K8_F16:
        *k = 2 * t + i;
        return;
    case AX_EMU_M16N8K8_TF32:
        *k = t + 4 * i;
        return;
    case AX_EMU_M8N8K4_F64:
        *k = t;
        return;
    case AX_EMU_M16N8K32_8BIT:
        *k = 4 * t + (i & 3) + 16 * (i >> 2);
        return;
    }
    *k = 0;
}

/* Value i of lane "lane" of C and D (M x N): its row and column. */
static inline void ax_emu_mma_c(ax_emu_mma_kind kind, int lane, int i, int *row,
                                int *col)
{
    int g = lane >> 2, t = lane % 4;
    if (kind == AX_EMU_M8N8K4_F64) {
        *row = g;
        *col = 2 * t + i;
        return;
    }
    *row = g + 8 * (i >> 1);
    *col = 2 * t + (i & 1);
}

/* D = A B + C for the warp: lane l's value i of A at a[16 l + i], of B at
 * b[8 l + i], of C and D at c[4 l + i] and d[4 l + i] (already converted
 * from the input type); the products and their sum exact in double (to
 * 2^53), in k order; the caller rounds d to the accumulator type (f32:
 * once; s32: modulo 2^32, ax_emu_wrap_s32). */
static inline void ax_emu_mma(ax_emu_mma_kind kind, const double *a,
                              const double *b, const double *c, double *d)
{
    double am[16][32], bm[32][8];
    ax_emu_mma_shape s = ax_emu_mma_shape_of(kind);
    int l, i, r, q, k;
    memset(am, 0, sizeof am);
    memset(bm, 0, sizeof bm);
    for (l = 0; l < 32; l++) {
        for (i = 0; i < s.na; i++) {
            ax_emu_mma_a(kind, l, i, &r, &q);
            am[r][q] = a[16 * l + i];
        }
        for (i = 0; i < s.nb; i++) {
            ax_emu_mma_b(kind, l, i, &k, &q);
            bm[k][q] = b[8 * l + i];
        }
    }
    for (l = 0; l < 32; l++)
        for (i = 0; i < s.nc; i++) {
            double acc = c[4 * l + i];
            ax_emu_mma_c(kind, l, i, &r, &q);
            for (k = 0; k < s.k; k++)
                acc += am[r][k] * bm[k][q];
            d[4 * l + i] = acc;
        }
}

/* cvt.rna.tf32.f32 d, a: the bits of "a" rounded to tf32. A finite
 * magnitude m (its bits below 2^31) lies between the tf32 values lo = m
 * with its 13 low bits cleared and lo + 2^13 (the next tf32 magnitude,
 * the carry running into the exponent, up to infinity); m rounds to hi
 * when its dropped bits are at least half of 2^13 (ties away from zero). */
static inline uint32_t ax_emu_cvt_rna_tf32(float a)
{
    uint32_t x, m, lo;
    memcpy(&x, &a, sizeof x);
    m = x & 0x7fffffffu;
    if (m > 0x7f800000u)
        return (x & 0xffffe000u) | 0x00400000u;
    if (m == 0x7f800000u)
        return x;
    lo = m & ~0x1fffu;
    if ((m & 0x1fffu) >= 0x1000u)
        lo += 0x2000u;
    return (x & 0x80000000u) | lo;
}

/* prmt.b32 d, a, b, c (the default mode): byte k of d is byte c[4k+2 :
 * 4k] of the eight bytes {b, a} (0 .. 3 of a, 4 .. 7 of b), or, with
 * c[4k+3] set, that byte's sign bit replicated. */
static inline uint32_t ax_emu_prmt(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t x = (uint64_t)b << 32 | a;
    uint32_t d = 0, sel, byte;
    int k;
    for (k = 0; k < 4; k++) {
        sel = c >> (4 * k) & 0xfu;
        byte = (uint32_t)(x >> (8 * (sel & 7u))) & 0xffu;
        if (sel & 8u)
            byte = byte & 0x80u ? 0xffu : 0u;
        d |= byte << (8 * k);
    }
    return d;
}

/* lop3.b32 d, a, b, c, lut: bit i of d is bit 4 a_i + 2 b_i + c_i of
 * "lut" (the ISA's F(0xf0, 0xcc, 0xaa) encoding: 0x6a is (a & b) ^ c). */
static inline uint32_t ax_emu_lop3(uint32_t a, uint32_t b, uint32_t c,
                                   unsigned lut)
{
    uint32_t d = 0;
    unsigned k;
    int i;
    for (i = 0; i < 32; i++) {
        k = (a >> i & 1u) << 2 | (b >> i & 1u) << 1 | (c >> i & 1u);
        d |= (uint32_t)(lut >> k & 1u) << i;
    }
    return d;
}

/* The value of the f16 bits "h". */
static inline double ax_emu_f16_value(uint32_t h)
{
    int e = (int)(h >> 10 & 31u), m = (int)(h & 1023u);
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(m + 1024, e - 25);
    return h & 0x8000u ? -v : v;
}

/* The f16 bits of "v" rounded to nearest, ties to even: the multiple q
 * of the ulp 2^(E - 10) of v's binade E (2^-24 below 2^-14) nearest v,
 * whose bits are (E + 15) 2^10 + q - 1024 (a q of 2048 carries into the
 * exponent); 65520 and above (the tie with 2^16) infinity; NaN the
 * canonical 0x7fff. */
static inline uint16_t ax_emu_f16_rn(double v)
{
    uint32_t s = v < 0 || (v == 0 && 1 / v < 0) ? 0x8000u : 0u;
    double a = fabs(v), x, q;
    int e;
    if (a != a)
        return 0x7fffu;
    if (a >= 65520.0)
        return (uint16_t)(s | 0x7c00u);
    if (a < 0x1p-14) {
        x = ldexp(a, 24);
        q = floor(x);
        if (x - q > 0.5 || (x - q == 0.5 && fmod(q, 2) != 0))
            q += 1;
        return (uint16_t)(s | (uint32_t)q);
    }
    (void)frexp(a, &e); /* a = m 2^e, m in [1/2, 1): binade e - 1 */
    x = ldexp(a, 11 - e);
    q = floor(x);
    if (x - q > 0.5 || (x - q == 0.5 && fmod(q, 2) != 0))
        q += 1;
    return (uint16_t)(s | (((uint32_t)(e + 14) << 10) + (uint32_t)q - 1024u));
}

/* fma.rn.f16x2 d, a, b, c: each half x = a * b + c rounded once. The
 * product is exact in a double (22 significant bits); the sum's double
 * d rounds to f16 as x does unless d is an f16 tie (an odd multiple of
 * 2^(E - 11) in x's binade E) that x is not. Then |x - d| <= 2^(E - 53),
 * so a b has a bit below 2^(E - 52), |a b| < 2^(E - 31), and x lies that
 * close to c, an f16 value, which is at least 2^(E - 11) from any tie:
 * impossible. */
static inline uint32_t ax_emu_fma_rn_f16x2(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d = 0;
    int h;
    for (h = 0; h < 2; h++)
        d |= (uint32_t)ax_emu_f16_rn(
                 ax_emu_f16_value(a >> (16 * h) & 0xffffu) *
                     ax_emu_f16_value(b >> (16 * h) & 0xffffu) +
                 ax_emu_f16_value(c >> (16 * h) & 0xffffu))
             << (16 * h);
    return d;
}

typedef enum ax_emu_f16x2_kind {
    AX_EMU_F16X2_ADD,
    AX_EMU_F16X2_SUB,
    AX_EMU_F16X2_MUL
} ax_emu_f16x2_kind;

/* add.rn.f16x2, sub.rn.f16x2, mul.rn.f16x2 d, a, b: each half a + b,
 * a - b or a * b rounded once to nearest even (NaN the canonical
 * 0x7fff). The double holds the exact result: a product has 22
 * significant bits, a sum or difference of two f16 values is a multiple
 * of 2^-24 below 2^17 (41 bits); infinities and NaN as IEEE (inf - inf
 * NaN, a zero's sign as the double's under round to nearest). */
static inline uint32_t ax_emu_f16x2_op(ax_emu_f16x2_kind k, uint32_t a,
                                       uint32_t b)
{
    uint32_t d = 0;
    double x, y, v;
    int h;
    for (h = 0; h < 2; h++) {
        x = ax_emu_f16_value(a >> (16 * h) & 0xffffu);
        y = ax_emu_f16_value(b >> (16 * h) & 0xffffu);
        v = k == AX_EMU_F16X2_ADD   ? x + y
            : k == AX_EMU_F16X2_SUB ? x - y
                                    : x * y;
        d |= (uint32_t)ax_emu_f16_rn(v) << (16 * h);
    }
    return d;
}

/* The value of the bf16 bits "h" (float's upper half: exact in a
 * double). */
static inline double ax_emu_bf16_value(uint32_t h)
{
    int e = (int)(h >> 7 & 255u), m = (int)(h & 127u);
    double v = e == 0     ? ldexp(m, -133)
               : e == 255 ? (m ? NAN : INFINITY)
                          : ldexp(m + 128, e - 134);
    return h & 0x8000u ? -v : v;
}

/* The bf16 bits of the exact value v + e rounded to nearest, ties to
 * even, where v is that value rounded to a double and e the rest
 * (|e| <= half an ulp of v; 0 where v is exact). v + e is on v's side of
 * any bf16 tie other than v itself (a tie has 9 significant bits, a
 * double, at least an ulp of v from v), so only a tie v needs e's sign.
 * The multiple q of the ulp 2^(E - 7) of v's binade E (2^-133 below
 * 2^-126) nearest v + e; bits (E + 127) 2^7 + q - 128 (a q of 256
 * carries into the exponent, 0x7f80 infinity beyond 0x7f7f); NaN the
 * canonical 0x7fff. */
static inline uint16_t ax_emu_bf16_rn2(double v, double e)
{
    uint32_t s = v < 0 || (v == 0 && 1 / v < 0) ? 0x8000u : 0u;
    double a = fabs(v), r = v < 0 ? -e : e, x, q;
    int ex = 0;
    if (a != a)
        return 0x7fffu;
    if (a >= 0x1p128)
        return (uint16_t)(s | 0x7f80u);
    if (a < 0x1p-126)
        x = ldexp(a, 133);
    else {
        (void)frexp(a, &ex); /* a = m 2^ex, m in [1/2, 1) */
        x = ldexp(a, 8 - ex);
    }
    q = floor(x);
    if (x - q > 0.5 || (x - q == 0.5 && (r > 0 || (r == 0 && fmod(q, 2) != 0))))
        q += 1;
    if (a < 0x1p-126)
        return (uint16_t)(s | (uint32_t)q);
    return (uint16_t)(s | (((uint32_t)(ex + 126) << 7) + (uint32_t)q - 128u));
}

/* x + y rounded to a double, and in *e the rest (Knuth's TwoSum: x + y
 * = s + *e exactly, no overflow below 2^1023); 0 for an infinite or
 * NaN sum. */
static inline double ax_emu_two_sum(double x, double y, double *e)
{
    double s = x + y, b = s - x;
    *e = s - s == 0 ? (x - (s - b)) + (y - b) : 0;
    return s;
}

/* add.rn.bf16x2, sub.rn.bf16x2, mul.rn.bf16x2 d, a, b (sm_90): each
 * half a + b, a - b or a * b rounded once to bf16. A product has 16
 * significant bits and an exponent within a double's: exact; a sum of
 * two bf16 values (exponents up to 260 apart) is the double s and the
 * rest e of ax_emu_two_sum, rounded as s + e. */
static inline uint32_t ax_emu_bf16x2_op(ax_emu_f16x2_kind k, uint32_t a,
                                        uint32_t b)
{
    uint32_t d = 0;
    double x, y, v, e = 0;
    int h;
    for (h = 0; h < 2; h++) {
        x = ax_emu_bf16_value(a >> (16 * h) & 0xffffu);
        y = ax_emu_bf16_value(b >> (16 * h) & 0xffffu);
        v = k == AX_EMU_F16X2_MUL
                ? x * y
                : ax_emu_two_sum(x, k == AX_EMU_F16X2_ADD ? y : -y, &e);
        d |= (uint32_t)ax_emu_bf16_rn2(v, k == AX_EMU_F16X2_MUL ? 0 : e)
             << (16 * h);
    }
    return d;
}

/* fma.rn.bf16x2 d, a, b, c (sm_80): each half a * b + c rounded once to
 * bf16 (the product exact in a double, the sum as above). */
static inline uint32_t ax_emu_fma_rn_bf16x2(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d = 0;
    double v, e;
    int h;
    for (h = 0; h < 2; h++) {
        v = ax_emu_two_sum(ax_emu_bf16_value(a >> (16 * h) & 0xffffu) *
                               ax_emu_bf16_value(b >> (16 * h) & 0xffffu),
                           ax_emu_bf16_value(c >> (16 * h) & 0xffffu), &e);
        d |= (uint32_t)ax_emu_bf16_rn2(v, e) << (16 * h);
    }
    return d;
}

/* max.f16x2, min.f16x2, max.bf16x2, min.bf16x2 d, a, b (sm_80; "bf16"
 * selects the format, "is_max" the operation): each half, as the ISA's
 * semantics, the canonical NaN 0x7fff where both are NaN, the other
 * operand where one is, else (a > b) ? a : b (min: a < b), where of two
 * zeros +0.0 > -0.0 (the ISA's notes): the sign bit of max is set only
 * when both are -0, of min when either is (ha & hb, ha | hb). */
static inline uint32_t ax_emu_minmax16x2(int is_max, int bf16, uint32_t a,
                                         uint32_t b)
{
    uint32_t d = 0, ha, hb, r;
    double x, y;
    int h;
    for (h = 0; h < 2; h++) {
        ha = a >> (16 * h) & 0xffffu;
        hb = b >> (16 * h) & 0xffffu;
        x = bf16 ? ax_emu_bf16_value(ha) : ax_emu_f16_value(ha);
        y = bf16 ? ax_emu_bf16_value(hb) : ax_emu_f16_value(hb);
        if (x != x && y != y)
            r = 0x7fffu;
        else if (x != x)
            r = hb;
        else if (y != y)
            r = ha;
        else if (x == 0 && y == 0)
            r = is_max ? ha & hb : ha | hb;
        else
            r = (is_max ? x > y : x < y) ? ha : hb;
        d |= r << (16 * h);
    }
    return d;
}

/* An integer sum modulo 2^32 as an s32 (|v| < 2^53). */
static inline int32_t ax_emu_wrap_s32(double v)
{
    int64_t x = (int64_t)v;
    uint32_t u = (uint32_t)((uint64_t)x & 0xffffffffu);
    return u < 0x80000000u ? (int32_t)u
                           : (int32_t)(u - 0x80000000u) - 0x7fffffff - 1;
}

/* ldmatrix.sync.aligned.m8n8.x"n".shared.b16 (n 1, 2 or 4; "trans":
 * .trans): row r of matrix j is the 16 bytes at smem + addr[8 j + r]
 * (little-endian b16 elements); lane l's register j is two b16 elements,
 * the first in the low half. The addresses of lanes 8 n .. 31 are not
 * read. */
static inline void ax_emu_ldmatrix(const unsigned char *smem,
                                   const uint32_t addr[32], int n, int trans,
                                   uint32_t d[32][4])
{
    int l, j, h;
    for (l = 0; l < 32; l++)
        for (j = 0; j < n; j++) {
            uint32_t v = 0;
            for (h = 0; h < 2; h++) {
                int row = trans ? 2 * (l % 4) + h : l / 4;
                int col = trans ? l / 4 : 2 * (l % 4) + h;
                const unsigned char *e = smem + addr[8 * j + row] + 2 * col;
                v |= (uint32_t)(e[0] | (e[1] << 8)) << (16 * h);
            }
            d[l][j] = v;
        }
}

typedef enum ax_emu_shfl_mode {
    AX_EMU_SHFL_UP,
    AX_EMU_SHFL_DOWN,
    AX_EMU_SHFL_BFLY,
    AX_EMU_SHFL_IDX
} ax_emu_shfl_mode;

/* shfl.sync."mode".b32 d, a, b, c: the lane whose a lane "lane" receives
 * (the ISA's pseudocode; its own lane when the source is out of range,
 * then *pval is 0). */
static inline int ax_emu_shfl_src(ax_emu_shfl_mode mode, int lane, uint32_t b,
                                  uint32_t c, int *pval)
{
    int bval = (int)(b & 31u), cval = (int)(c & 31u);
    int seg = (int)((c >> 8) & 31u);
    int max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg;
    int j, ok;
    switch (mode) {
    case AX_EMU_SHFL_UP:
        j = lane - bval;
        ok = j >= max_lane;
        break;
    case AX_EMU_SHFL_DOWN:
        j = lane + bval;
        ok = j <= max_lane;
        break;
    case AX_EMU_SHFL_BFLY:
        j = lane ^ bval;
        ok = j <= max_lane;
        break;
    case AX_EMU_SHFL_IDX:
    default:
        j = min_lane | (bval & ~seg);
        ok = j <= max_lane;
        break;
    }
    *pval = ok;
    return ok ? j : lane;
}

/* The whole warp's shfl.sync: d[l] = a[src(l)]. */
static inline void ax_emu_shfl(ax_emu_shfl_mode mode, const uint32_t a[32],
                               uint32_t b, uint32_t c, uint32_t d[32])
{
    int l, p;
    uint32_t in[32];
    memcpy(in, a, sizeof in);
    for (l = 0; l < 32; l++)
        d[l] = in[ax_emu_shfl_src(mode, l, b, c, &p)];
}

#endif
