/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Swizzles Sw<B,M,S> (CuTe's Swizzle<B,M,S>): y = x ^ ((x & Y) >> S) where
 * the B "yyy" bits start at bit M + max(0,S) and are xored into the B bits
 * starting at M - min(0,S) (a negative S shifts left). Invariant: B >= 0,
 * M >= 0, |S| >= B (the two bit fields do not overlap), B + M + |S| <= 62.
 */
#ifndef AXE_SWIZZLE_H
#define AXE_SWIZZLE_H

#include <stdbool.h>
#include <stdint.h>

#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct axe_swizzle {
    int32_t bits;  /* B */
    int32_t base;  /* M */
    int32_t shift; /* S */
} axe_swizzle;

/* Sw<"bits","base","shift">, or AXE_ERR_INVALID with a reason. */
AXE_NODISCARD AXE_API axe_status axe_swizzle_make(int bits, int base, int shift,
                                                  axe_swizzle *out,
                                                  axe_diag *diag);
/* The swizzle function; it is an involution on nonnegative integers. */
AXE_API int64_t axe_swizzle_apply(const axe_swizzle *sw, int64_t x);
AXE_API bool axe_swizzle_is_identity(const axe_swizzle *sw);

#ifdef __cplusplus
}
#endif

#endif
