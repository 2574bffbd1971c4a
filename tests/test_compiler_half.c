/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The f16 and bf16 conversions (axe_f16_to_float, axe_f16_from_float,
 * axe_bf16_to_float, axe_bf16_from_float) against brute force: every one
 * of the 65536 bit patterns decodes to sign * 2^(e - bias) * (1 + m/2^M)
 * (sign * 2^(1 - bias) * m/2^M when e = 0) computed with ldexp; every
 * finite pattern's value, the midpoint to its successor and the floats
 * just below and above that midpoint, and seeded random float bit patterns
 * round to the pattern whose value is nearest, found by binary search over
 * the ordered positive patterns, ties to the even pattern, at or beyond
 * the largest finite value plus half an ulp to infinity; NaN stays NaN of
 * the same sign. The fp8 conversions (axe_e4m3_*, axe_e5m2_*) likewise
 * over all 256 patterns, against a linear search over the finite
 * values, with satfinite saturation (beyond the largest finite value,
 * infinities included, the largest of the sign) and NaN -> S.1111111.
 * axe_tf32_round (PTX cvt.rna.tf32.f32) over every tf32 pattern (19 bits:
 * 8 exponent, 10 mantissa): its value, the midpoint to the next pattern
 * and the floats just below and above it, of both signs, and seeded
 * random float bit patterns round to the value nearest by binary search
 * over the ordered patterns, ties away from zero, at or beyond the
 * largest finite value plus half an ulp to infinity, the 13 low bits
 * zero; NaN stays a NaN of the same sign.
 * AXE_TEST_SEED=N replays.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "axe/kernel.h"
#include "testlib.h"

typedef struct fmt {
    const char *name;
    int ebits, mbits, bias;
    float (*to_float)(uint16_t);
    uint16_t (*from_float)(float);
} fmt;

static const fmt fmts[] = {
    {"f16", 5, 10, 15, axe_f16_to_float, axe_f16_from_float},
    {"bf16", 8, 7, 127, axe_bf16_to_float, axe_bf16_from_float}};

/* The value of pattern "h" from the format's definition (NaN for NaNs). */
static double decode(const fmt *f, uint16_t h)
{
    int emax = (1 << f->ebits) - 1;
    int e = (h >> f->mbits) & emax, m = h & ((1 << f->mbits) - 1);
    double s = (h >> 15) ? -1.0 : 1.0;
    if (e == emax)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp(m, 1 - f->bias - f->mbits);
    return s * ldexp((1 << f->mbits) + m, e - f->bias - f->mbits);
}

/* The pattern nearest to "x" (ties to even), by search over the values. */
static uint16_t nearest(const fmt *f, double x)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0, inf, lo = 0, hi, mid;
    double a = fabs(x), top;
    inf = (uint16_t)(((1 << f->ebits) - 1) << f->mbits);
    hi = (uint16_t)(inf - 1); /* the largest finite pattern */
    top = decode(f, hi);
    if (a >= top + (top - decode(f, (uint16_t)(hi - 1))) / 2)
        return (uint16_t)(sign | inf);
    if (a >= top)
        return (uint16_t)(sign | hi);
    while (hi - lo > 1) { /* decode(lo) <= a < decode(hi) */
        mid = (uint16_t)((lo + hi) / 2);
        if (decode(f, mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    if (a - decode(f, lo) < decode(f, hi) - a)
        return (uint16_t)(sign | lo);
    if (a - decode(f, lo) > decode(f, hi) - a)
        return (uint16_t)(sign | hi);
    return (uint16_t)(sign | ((lo & 1) ? hi : lo));
}

static void check_round(const fmt *f, float x)
{
    uint16_t got = f->from_float(x), want;
    if (isnan(x)) {
        TL_CHECK(isnan(decode(f, got)) && (got >> 15) == (signbit(x) != 0),
                 "%s: NaN %a -> 0x%04x", f->name, x, got);
        return;
    }
    want = nearest(f, x);
    TL_CHECK(got == want, "%s: %a -> 0x%04x, nearest 0x%04x", f->name, x, got,
             want);
}

static void check_all_patterns(const fmt *f)
{
    uint32_t h;
    for (h = 0; h < 0x10000u; h++) {
        double want = decode(f, (uint16_t)h);
        float got = f->to_float((uint16_t)h);
        if (isnan(want)) {
            TL_CHECK(isnan(got), "%s: 0x%04x is NaN", f->name, h);
            check_round(f, got);
            continue;
        }
        TL_CHECK((double)got == want && !signbit(got) == !signbit(want),
                 "%s: 0x%04x -> %a, want %a", f->name, h, got, want);
        TL_CHECK(f->from_float(got) == h, "%s: 0x%04x does not round-trip",
                 f->name, h);
        if (!isinf(want)) {
            double next = decode(f, (uint16_t)(h + 1));
            float midf =
                (float)((want + (isinf(next)
                                     ? 2 * want - decode(f, (uint16_t)(h - 1))
                                     : next)) /
                        2);
            check_round(f, midf);
            check_round(f, nextafterf(midf, 0.0f));
            check_round(f, nextafterf(midf, midf * 2));
        }
    }
}

/* ---- fp8: e4m3 and e5m2 (OCP FP8), saturating as cvt.rn.satfinite ---- */

typedef struct fmt8 {
    const char *name;
    int ebits, mbits, bias;
    bool ieee;      /* the top exponent holds infinities and NaNs (e5m2) */
    uint8_t maxpat; /* the largest finite pattern */
    float (*to_float)(uint8_t);
    uint8_t (*from_float)(float);
} fmt8;

static const fmt8 fmts8[] = {
    {"e4m3", 4, 3, 7, false, 0x7e, axe_e4m3_to_float, axe_e4m3_from_float},
    {"e5m2", 5, 2, 15, true, 0x7b, axe_e5m2_to_float, axe_e5m2_from_float}};

/* The value of pattern "x" from the format's definition (the OCP FP8
 * specification): NaN for S.1111.111 (e4m3) or the top exponent with a
 * non-zero mantissa (e5m2), infinity for the top exponent with a zero
 * mantissa (e5m2). */
static double decode8(const fmt8 *f, uint8_t x)
{
    int emax = (1 << f->ebits) - 1;
    int e = (x >> f->mbits) & emax, m = x & ((1 << f->mbits) - 1);
    double s = (x >> 7) ? -1.0 : 1.0;
    if (f->ieee && e == emax)
        return m ? NAN : s * INFINITY;
    if (!f->ieee && (x & 0x7f) == 0x7f)
        return NAN;
    if (e == 0)
        return s * ldexp(m, 1 - f->bias - f->mbits);
    return s * ldexp((1 << f->mbits) + m, e - f->bias - f->mbits);
}

/* The pattern nearest to "x" among the finite ones (ties to the even
 * pattern), found by a linear search over all of them; beyond the largest
 * finite value (infinities included) the largest of x's sign. */
static uint8_t nearest8(const fmt8 *f, double x)
{
    static const fmt8 *cached;
    static double val[128];
    uint8_t sign = signbit(x) ? 0x80 : 0, best = 0;
    double a = fabs(x), bd = INFINITY;
    int p;
    if (cached != f)
        for (cached = f, p = 0; p < 128; p++)
            val[p] = decode8(f, (uint8_t)p);
    if (a >= val[f->maxpat])
        return (uint8_t)(sign | f->maxpat);
    for (p = 0; p <= f->maxpat; p++) {
        double d = fabs(val[p] - a);
        if (d < bd || (d == bd && (p & 1) == 0))
            bd = d, best = (uint8_t)p;
    }
    return (uint8_t)(sign | best);
}

static void check_round8(const fmt8 *f, float x)
{
    uint8_t got = f->from_float(x), want;
    if (isnan(x)) {
        TL_CHECK(got == ((signbit(x) ? 0x80 : 0) | 0x7f),
                 "%s: NaN %a -> 0x%02x, want 0x%02x", f->name, x, got,
                 (signbit(x) ? 0x80 : 0) | 0x7f);
        return;
    }
    want = nearest8(f, x);
    TL_CHECK(got == want, "%s: %a -> 0x%02x, nearest 0x%02x", f->name, x, got,
             want);
}

/* Every pattern decodes exactly; every finite one round-trips; the
 * midpoints to the next pattern (and the floats beside them) round to
 * the nearest, ties to even. */
static void check_all_patterns8(const fmt8 *f)
{
    int h;
    for (h = 0; h < 256; h++) {
        double want = decode8(f, (uint8_t)h), next;
        float got = f->to_float((uint8_t)h), mid;
        if (isnan(want)) {
            TL_CHECK(isnan(got) && !signbit(got) == !(h & 0x80),
                     "%s: 0x%02x is NaN, got %a", f->name, h, got);
            check_round8(f, got);
            continue;
        }
        TL_CHECK((double)got == want && !signbit(got) == !signbit(want),
                 "%s: 0x%02x -> %a, want %a", f->name, h, got, want);
        if (isinf(want)) {
            check_round8(f, got);
            continue;
        }
        TL_CHECK(f->from_float(got) == h, "%s: 0x%02x does not round-trip",
                 f->name, h);
        next = (h & 0x7f) == f->maxpat ? 2 * want - decode8(f, (uint8_t)(h - 1))
                                       : decode8(f, (uint8_t)(h + 1));
        mid = (float)((want + next) / 2);
        check_round8(f, mid);
        check_round8(f, nextafterf(mid, 0.0f));
        check_round8(f, nextafterf(mid, mid * 2));
    }
}

/* Seeded random floats: any bit pattern, and values of random sign with
 * exponents from below the smallest subnormal to beyond the largest. */
static void check_random8(const fmt8 *f)
{
    long k;
    for (k = 0; k < 200000; k++) {
        uint32_t bits = (uint32_t)tl_rand();
        float x;
        memcpy(&x, &bits, sizeof x);
        check_round8(f, x);
        x = ldexpf(1.0f + (float)(tl_rand() % 1000000) / 1000000.0f,
                   (int)(tl_rand() % 44) - 28);
        check_round8(f, (tl_rand() & 1) ? -x : x);
    }
    check_round8(f, INFINITY);
    check_round8(f, -INFINITY);
    check_round8(f, FLT_MAX);
    check_round8(f, -FLT_MAX);
    check_round8(f, -0.0f);
    check_round8(f, 0.0f);
    check_round8(f, NAN);
    check_round8(f, -NAN);
}

/* Worked values (written by hand from the OCP FP8 definitions). */
static void check_known8(void)
{
    TL_CHECK(axe_e4m3_to_float(0x7e) == 448.0f, "e4m3 max");
    TL_CHECK(axe_e4m3_to_float(0x01) == 0x1p-9f, "e4m3 min subnormal");
    TL_CHECK(axe_e4m3_to_float(0x38) == 1.0f, "e4m3 one");
    TL_CHECK(axe_e4m3_from_float(1000.0f) == 0x7e, "e4m3 saturates");
    TL_CHECK(axe_e4m3_from_float(-INFINITY) == 0xfe, "e4m3 -inf -> -448");
    TL_CHECK(axe_e4m3_from_float(464.0f) == 0x7e, "e4m3 464 -> 448");
    TL_CHECK(axe_e4m3_from_float(0x1p-10f) == 0x00, "e4m3 tie to 0");
    TL_CHECK(axe_e4m3_from_float(0x1.8p-9f) == 0x02, "e4m3 1.5 ulp -> 2");
    TL_CHECK(axe_e5m2_to_float(0x7b) == 57344.0f, "e5m2 max");
    TL_CHECK(axe_e5m2_to_float(0x7c) == INFINITY, "e5m2 inf");
    TL_CHECK(axe_e5m2_to_float(0x01) == 0x1p-16f, "e5m2 min subnormal");
    TL_CHECK(axe_e5m2_to_float(0x3c) == 1.0f, "e5m2 one");
    TL_CHECK(axe_e5m2_from_float(INFINITY) == 0x7b, "e5m2 inf -> 57344");
    TL_CHECK(axe_e5m2_from_float(61440.0f) == 0x7b, "e5m2 61440 -> max");
    TL_CHECK(axe_e5m2_from_float(1.125f) == 0x3c, "e5m2 tie to even 1");
    TL_CHECK(axe_e5m2_from_float(1.375f) == 0x3e, "e5m2 tie to even 1.5");
}

/* ---- tf32: PTX cvt.rna.tf32.f32, round to nearest, ties away ---- */

#define TF32_TOP 0x3fbffu /* the largest finite positive pattern */

/* The value of the 19-bit tf32 pattern "t" (sign in bit 18). */
static double decode_tf32(uint32_t t)
{
    int e = (int)((t >> 10) & 0xffu), m = (int)(t & 0x3ffu);
    double s = (t >> 18) ? -1.0 : 1.0;
    if (e == 0xff)
        return m ? NAN : s * INFINITY;
    if (e == 0)
        return s * ldexp(m, -136);
    return s * ldexp(1024 + m, e - 137);
}

/* The tf32 value nearest to the finite "x", ties away from zero. */
static double nearest_tf32(double x)
{
    uint32_t lo = 0, hi = TF32_TOP, mid;
    double a = fabs(x), top = decode_tf32(TF32_TOP), r;
    if (a >= top + ldexp(1, 116)) /* half an ulp of the largest */
        r = INFINITY;
    else if (a >= top)
        r = top;
    else {
        while (hi - lo > 1) { /* decode(lo) <= a < decode(hi) */
            mid = (lo + hi) / 2;
            if (decode_tf32(mid) <= a)
                lo = mid;
            else
                hi = mid;
        }
        r = a - decode_tf32(lo) < decode_tf32(hi) - a ? decode_tf32(lo)
                                                      : decode_tf32(hi);
    }
    return signbit(x) ? -r : r;
}

static void check_tf32(float x)
{
    float got = axe_tf32_round(x);
    uint32_t g;
    double want;
    memcpy(&g, &got, sizeof g);
    TL_CHECK((g & 0x1fffu) == 0, "tf32: %a -> %a has low bits", x, got);
    if (isnan(x)) {
        TL_CHECK(isnan(got) && !signbit(got) == !signbit(x),
                 "tf32: NaN %a -> %a", x, got);
        return;
    }
    want = isinf(x) ? x : nearest_tf32(x);
    TL_CHECK((double)got == want && !signbit(got) == !signbit(want),
             "tf32: %a -> %a, nearest %a", x, got, want);
}

static void check_tf32_patterns(void)
{
    static const uint32_t nans[] = {0x7f800001u, 0x7fc00000u, 0xffffffffu,
                                    0x7f801fffu, 0xff802000u};
    uint32_t t, bits;
    size_t i;
    long k;
    for (t = 0; t <= TF32_TOP; t++) {
        double v = decode_tf32(t);
        double next = t == TF32_TOP ? v + ldexp(1, 117) : decode_tf32(t + 1);
        float mid = (float)((v + next) / 2); /* 11 bits: exact */
        float xs[4];
        xs[0] = (float)v;
        xs[1] = mid;
        xs[2] = nextafterf(mid, 0.0f);
        xs[3] = nextafterf(mid, INFINITY);
        TL_CHECK((double)mid == (v + next) / 2, "tf32: midpoint of 0x%05x", t);
        for (i = 0; i < 4; i++) {
            check_tf32(xs[i]);
            check_tf32(-xs[i]);
        }
    }
    for (k = 0; k < 300000; k++) {
        bits = (uint32_t)tl_rand();
        float x;
        memcpy(&x, &bits, sizeof x);
        check_tf32(x);
    }
    for (i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        float x;
        memcpy(&x, &nans[i], sizeof x);
        check_tf32(x);
    }
    check_tf32(INFINITY);
    check_tf32(-INFINITY);
    check_tf32(FLT_MAX);
    check_tf32(-0.0f);
    TL_CHECK(axe_tf32_round(1.00048828125f) == 1.0009765625f,
             "tf32: 1 + 2^-11 ties away to 1 + 2^-10");
    TL_CHECK(axe_tf32_round(-1.00146484375f) == -1.001953125f,
             "tf32: -(1 + 3 2^-11) ties away to -(1 + 2^-9)");
}

int main(void)
{
    size_t i;
    long k;
    tl_seed("test_compiler_half", 20260525u);
    for (i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        check_all_patterns(&fmts[i]);
        for (k = 0; k < 300000; k++) {
            uint32_t bits = (uint32_t)tl_rand();
            float x;
            memcpy(&x, &bits, sizeof x);
            check_round(&fmts[i], x);
        }
        check_round(&fmts[i], INFINITY);
        check_round(&fmts[i], -INFINITY);
        check_round(&fmts[i], FLT_MAX);
        check_round(&fmts[i], -0.0f);
    }
    for (i = 0; i < sizeof fmts8 / sizeof fmts8[0]; i++) {
        check_all_patterns8(&fmts8[i]);
        check_random8(&fmts8[i]);
    }
    check_known8();
    check_tf32_patterns();
    return tl_finish();
}
