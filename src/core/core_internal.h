/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal core services: overflow-checked 64-bit arithmetic, floor
 * division, gcd/lcm and diagnostics. Every extent/stride/size computation in
 * the library goes through the checked helpers; each returns AXE_OK or
 * AXE_ERR_OVERFLOW and writes its out-parameter only on success.
 */
#ifndef AXE_CORE_INTERNAL_H
#define AXE_CORE_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>

#include "axe/status.h"

#ifndef NDEBUG
#include <assert.h>
#define AXE_ASSERT(c) assert(c)
#else
#define AXE_ASSERT(c) ((void)0)
#endif

/* Propagate a non-OK status. */
#define AXE_TRY(expr)                                                          \
    do {                                                                       \
        axe_status axe__s = (expr);                                            \
        if (axe__s != AXE_OK)                                                  \
            return axe__s;                                                     \
    } while (0)

AXE_NODISCARD static inline axe_status axe__mul(int64_t a, int64_t b,
                                                int64_t *out)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return AXE_ERR_OVERFLOW;
    *out = r;
    return AXE_OK;
}

AXE_NODISCARD static inline axe_status axe__add(int64_t a, int64_t b,
                                                int64_t *out)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return AXE_ERR_OVERFLOW;
    *out = r;
    return AXE_OK;
}

AXE_NODISCARD static inline axe_status axe__sub(int64_t a, int64_t b,
                                                int64_t *out)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return AXE_ERR_OVERFLOW;
    *out = r;
    return AXE_OK;
}

/* |a| for a > INT64_MIN (callers check). */
static inline int64_t axe__abs(int64_t a) { return a < 0 ? -a : a; }

/* Floor division and modulo, b > 0. */
static inline int64_t axe__floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t axe__floormod(int64_t a, int64_t b)
{
    int64_t r = a % b;
    return r < 0 ? r + b : r;
}

/* Ceil division of a >= 0 by b > 0 (never overflows). */
static inline int64_t axe__ceildiv(int64_t a, int64_t b)
{
    return a / b + (a % b != 0);
}

/* gcd(|a|, |b|) >= 0; a, b > INT64_MIN. */
static inline int64_t axe__gcd(int64_t a, int64_t b)
{
    a = axe__abs(a);
    b = axe__abs(b);
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

AXE_NODISCARD static inline axe_status axe__lcm(int64_t a, int64_t b,
                                                int64_t *out)
{
    int64_t g = axe__gcd(a, b);
    if (g == 0) {
        *out = 0;
        return AXE_OK;
    }
    return axe__mul(axe__abs(a) / g, axe__abs(b), out);
}

/*
 * Write a formatted reason into "diag" (NULL accepted) with text offset
 * "offset" (-1 for none) and return "status", so callers can write
 * `return axe__fail(diag, AXE_ERR_NOT_COMPOSABLE, -1, "...", ...);`.
 */
axe_status axe__fail(axe_diag *diag, axe_status status, long offset,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * Format into diag->message ("diag" not NULL). A reason longer than
 * AXE_DIAG_MESSAGE_MAX - 1 bytes ends in "..." so a cut is never silent.
 */
void axe__diag_vput(axe_diag *diag, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

#endif
