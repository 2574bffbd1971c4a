/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The data of `axe run` (cmd_run.c): seeded random inputs (splitmix64;
 * floats uniform in [-1, 1) rounded to the dtype, i8 in [-50, 50], i32
 * in [-100, 100], i4 in [-8, 7] (packed two per byte, the low nibble
 * first; an odd count's last high nibble is 0), or a --range's integers)
 * and the normwise comparison
 * of a kernel's outputs with the reference's within
 * axe_program_tensor_tolerance (axe_dtype_tolerance's but for a mixed
 * device gemm's C).
 * Invariant: the same seed gives the same inputs on every machine (the
 * reference and the kernel see the same bytes).
 */
#include <math.h>
#include <string.h>

#include "kernel_run.h"

static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Element "i" of a packed i4 buffer: nibble i % 2 (0: the low one) of
 * byte i / 2, sign-extended; the store writes the byte whole at an even
 * "i" (high nibble 0), else its high nibble. */
static int i4_get(const void *b, int64_t i)
{
    unsigned u = (unsigned)(((const uint8_t *)b)[i / 2] >> (4 * (i % 2))) & 15u;
    return u < 8u ? (int)u : (int)u - 16;
}

static void i4_put(void *b, int64_t i, int64_t v)
{
    uint8_t *byte = (uint8_t *)b + i / 2;
    unsigned n = (unsigned)(uint64_t)v & 15u;
    *byte = (uint8_t)(i % 2 == 0 ? n : (*byte & 15u) | (n << 4));
}

static void fill_random(axe_kernel_tensor t, void *buf, uint64_t *s)
{
    int64_t i;
    for (i = 0; i < t.elems; i++) {
        uint64_t r = next_rand(s);
        double u = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        if (t.dtype == AXE_DTYPE_F32)
            ((float *)buf)[i] = (float)u;
        else if (t.dtype == AXE_DTYPE_F64)
            ((double *)buf)[i] = u;
        else if (t.dtype == AXE_DTYPE_F16)
            ((uint16_t *)buf)[i] = axe_f16_from_float((float)u);
        else if (t.dtype == AXE_DTYPE_BF16)
            ((uint16_t *)buf)[i] = axe_bf16_from_float((float)u);
        else if (t.dtype == AXE_DTYPE_E4M3)
            ((uint8_t *)buf)[i] = axe_e4m3_from_float((float)u);
        else if (t.dtype == AXE_DTYPE_E5M2)
            ((uint8_t *)buf)[i] = axe_e5m2_from_float((float)u);
        else if (t.dtype == AXE_DTYPE_I8)
            ((int8_t *)buf)[i] = (int8_t)(r % 101) - 50;
        else if (t.dtype == AXE_DTYPE_I4)
            i4_put(buf, i, (int64_t)(r % 16) - 8);
        else
            ((int32_t *)buf)[i] = (int32_t)(r % 201) - 100;
    }
}

/* The --range of tensor "t" replaces its random values by integers in
 * [LO, HI] (uniform up to a bias below 2^-32). */
static void fill_range(const run_args *a, axe_kernel_tensor t, void *buf,
                       uint64_t *s)
{
    int64_t i, span;
    int k;
    for (k = 0; k < a->nranges; k++)
        if (strcmp(a->range_name[k], t.name) == 0)
            break;
    if (k == a->nranges)
        return;
    span = a->range_hi[k] - a->range_lo[k] + 1;
    for (i = 0; i < t.elems; i++) {
        int64_t v = a->range_lo[k] + (int64_t)(next_rand(s) % (uint64_t)span);
        if (t.dtype == AXE_DTYPE_I8)
            ((int8_t *)buf)[i] = (int8_t)v;
        else if (t.dtype == AXE_DTYPE_I4)
            i4_put(buf, i, v);
        else
            ((int32_t *)buf)[i] = (int32_t)v;
    }
}

static double elem(axe_dtype d, const void *b, int64_t i)
{
    if (d == AXE_DTYPE_F32)
        return ((const float *)b)[i];
    if (d == AXE_DTYPE_F64)
        return ((const double *)b)[i];
    if (d == AXE_DTYPE_F16)
        return axe_f16_to_float(((const uint16_t *)b)[i]);
    if (d == AXE_DTYPE_BF16)
        return axe_bf16_to_float(((const uint16_t *)b)[i]);
    if (d == AXE_DTYPE_E4M3)
        return axe_e4m3_to_float(((const uint8_t *)b)[i]);
    if (d == AXE_DTYPE_E5M2)
        return axe_e5m2_to_float(((const uint8_t *)b)[i]);
    if (d == AXE_DTYPE_I8)
        return ((const int8_t *)b)[i];
    if (d == AXE_DTYPE_I4)
        return i4_get(b, i);
    return ((const int32_t *)b)[i];
}

/* Whether "g" (the kernel's element) matches "w" (the reference's): both
 * NaN, or both the same infinity, or both finite with |g - w| <= "atol" +
 * "rtol" "scale" (integers have zero tolerances: exact). A non-finite value
 * against a finite one, or +inf against -inf, never matches. */
static bool elem_matches(double g, double w, double atol, double rtol,
                         double scale)
{
    if (isnan(g) || isnan(w))
        return isnan(g) && isnan(w);
    if (isinf(g) || isinf(w))
        return g == w;
    return fabs(g - w) <= atol + rtol * scale;
}

/* The largest finite |w| over the reference's "n" elements (0 if none). */
static double finite_norm(axe_dtype d, const void *want, int64_t n)
{
    double m = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        double w = fabs(elem(d, want, i));
        if (isfinite(w) && w > m)
            m = w;
    }
    return m;
}

/* Compare "got" with "want" element by element (elem_matches), normwise:
 * the relative tolerance scales with the largest finite |ref| of the
 * tensor, so a sum a schedule reorders (warp butterfly, shared-memory
 * tree) passes where it cancels; the largest errors are over the elements
 * that are not matching non-finite pairs (a NaN against a number gives
 * error NaN, an infinity against a finite value or the other infinity
 * error inf). */
void kernel_data_compare(axe_kernel_tensor t, const double tol[2],
                         const void *got, const void *want, run_result *res)
{
    double atol = tol[0], rtol = tol[1];
    double scale = finite_norm(t.dtype, want, t.elems);
    int64_t i;
    for (i = 0; i < t.elems; i++) {
        double g = elem(t.dtype, got, i), w = elem(t.dtype, want, i);
        double err, rel;
        bool ok = elem_matches(g, w, atol, rtol, scale);
        if (ok && !(isfinite(g) && isfinite(w)))
            continue;
        err = fabs(g - w);
        rel = w != 0 && isfinite(w) ? err / fabs(w) : err;
        if (!ok)
            res->pass = false;
        if (err > res->max_abs || isnan(err))
            res->max_abs = err;
        if (rel > res->max_rel || isnan(rel))
            res->max_rel = rel;
    }
}

void kernel_data_fill(const run_args *a, axe_kernel_tensor t, void *buf,
                      uint64_t *s)
{
    fill_random(t, buf, s);
    fill_range(a, t, buf, s);
}
