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
 * the same sign. AXE_TEST_SEED=N replays.
 */
#include <float.h>
#include <math.h>
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
    return tl_finish();
}
