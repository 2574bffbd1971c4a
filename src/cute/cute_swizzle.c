/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Swizzle functions Sw<B,M,S> (axe/swizzle.h): xor the B bits at
 * M + max(0,S) into the B bits at M - min(0,S).
 */
#include "cute_internal.h"

axe_status axe_swizzle_make(int bits, int base, int shift, axe_swizzle *out,
                            axe_diag *diag)
{
    int s = shift < 0 ? -shift : shift;
    if (bits < 0 || base < 0 || s < bits)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Sw<%d,%d,%d>: need B >= 0, M >= 0 and |S| >= B", bits,
                         base, shift);
    if (bits + base + s > 62)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Sw<%d,%d,%d>: B + M + |S| must be <= 62", bits, base,
                         shift);
    out->bits = bits;
    out->base = base;
    out->shift = shift;
    return AXE_OK;
}

int64_t axe_swizzle_apply(const axe_swizzle *sw, int64_t x)
{
    uint64_t mask = ((uint64_t)1 << sw->bits) - 1;
    int hi = sw->base + (sw->shift > 0 ? sw->shift : 0);
    uint64_t y = (uint64_t)x & (mask << hi);
    uint64_t moved = sw->shift >= 0 ? y >> sw->shift : y << -sw->shift;
    return (int64_t)((uint64_t)x ^ moved);
}

bool axe_swizzle_is_identity(const axe_swizzle *sw) { return sw->bits == 0; }
