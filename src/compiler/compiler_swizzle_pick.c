/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The swizzle of a shared tensor chosen against bank conflicts (Hexcute
 * §5.2, Appendix C; docs/compiler.md, "Shared-memory bank conflicts"):
 * every inner Swizzle<M,B,S> (axe's order, CuTe's Sw<B,M,S>) with
 * S >= B >= 1 whose bits stay within the tensor's addresses is a
 * candidate; a candidate is legal when it maps the tensor's addresses
 * onto themselves and keeps every access's vector contiguous; the legal
 * one with the fewest conflict ways over all of the tensor's warp-wide
 * accesses wins (max, then sum), ties to the fewest xor bits. Invariant:
 * the counts returned are the bank model's (compiler_banks.c) on the
 * swizzled addresses, and the winner is checked legal.
 */
#include <stdio.h>

#include "compiler_smem.h"

/* Whether "a" is in the ascending array "addr" of "n". */
static bool has_addr(const int64_t *addr, int64_t n, int64_t a)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (addr[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && addr[lo] == a;
}

/* Every access keeps its vector in order: vec <= 2^M, starts aligned. */
static bool vectors_kept(const axe_layout_swizzle *sw,
                         const ax_tile_access *acc, int nacc, char *why,
                         size_t cap)
{
    for (int i = 0; i < nacc; i++) {
        if (acc[i].vec > ((int64_t)1 << sw->per_element)) {
            (void)snprintf(why, cap,
                           "access %d moves %lld elements at once but "
                           "Swizzle<%d,%d,%d> keeps runs of only %lld in "
                           "order",
                           i, (long long)acc[i].vec, (int)sw->per_element,
                           (int)sw->len, (int)sw->atom,
                           (long long)((int64_t)1 << sw->per_element));
            return false;
        }
        for (int t = 0; t < AX_WARP; t++)
            if (acc[i].active[t] && acc[i].elem[t] % acc[i].vec != 0) {
                (void)snprintf(why, cap,
                               "access %d: lane %d's vector of %lld starts "
                               "at %lld, not a multiple of %lld",
                               i, t, (long long)acc[i].vec,
                               (long long)acc[i].elem[t],
                               (long long)acc[i].vec);
                return false;
            }
    }
    return true;
}

/* Legal swizzle (compiler_smem.h). */
bool axe__swizzle_legal(const axe_layout_swizzle *sw, const int64_t *addr,
                        int64_t n, const ax_tile_access *acc, int nacc,
                        char *why, size_t cap)
{
    if (!vectors_kept(sw, acc, nacc, why, cap))
        return false;
    for (int64_t k = 0; k < n; k++) {
        int64_t s = -1;
        if (axe__swizzle_addr(sw, addr[k], &s) != AXE_OK ||
            !has_addr(addr, n, s)) {
            (void)snprintf(why, cap,
                           "Swizzle<%d,%d,%d> moves address %lld to %lld, "
                           "which the tensor does not occupy",
                           (int)sw->per_element, (int)sw->len, (int)sw->atom,
                           (long long)addr[k], (long long)s);
            return false;
        }
    }
    return true;
}

/* The bits of the largest address: 2^bits > addr[n-1]. */
static int addr_bits(const int64_t *addr, int64_t n)
{
    int bits = 0;
    while (bits < 40 && ((int64_t)1 << bits) <= addr[n - 1])
        bits++;
    return bits;
}

static bool better(const ax_ways *a, const ax_ways *b)
{
    return a->max < b->max || (a->max == b->max && a->sum < b->sum);
}

static axe_status check_addrs(const int64_t *addr, int64_t n, axe_diag *diag)
{
    if (n < 1 || addr[0] < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a tensor's tile addresses must be >= 0 and at "
                         "least one");
    for (int64_t k = 1; k < n; k++)
        if (addr[k] <= addr[k - 1])
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "tile addresses must ascend strictly (%lld "
                             "after %lld)",
                             (long long)addr[k], (long long)addr[k - 1]);
    return AXE_OK;
}

/* The candidate "c" replaces "best" when it has fewer ways and is legal
 * (checked last: the closure walks every address); its count stops once
 * it cannot have fewer. */
static axe_status consider(const int64_t *addr, int64_t n,
                           const ax_tile_access *acc, int nacc,
                           int64_t elem_bits, const axe_layout_swizzle *c,
                           axe_layout_swizzle *best, ax_ways *best_ways,
                           bool *found)
{
    char why[160];
    ax_ways w;
    bool below;
    if (!vectors_kept(c, acc, nacc, why, sizeof why))
        return AXE_OK;
    AXE_TRY(axe__tile_ways_below(acc, nacc, elem_bits, c, best_ways, &w, &below,
                                 NULL));
    if (below && axe__swizzle_legal(c, addr, n, acc, nacc, why, sizeof why)) {
        *best = *c;
        *best_ways = w;
        *found = true;
    }
    return AXE_OK;
}

/* Every candidate swizzle of "addr" considered against "*best" with its
 * counts "*best_ways" ("*found" set when one replaces it). */
static axe_status scan(const int64_t *addr, int64_t n,
                       const ax_tile_access *acc, int nacc, int64_t elem_bits,
                       axe_layout_swizzle *best, ax_ways *best_ways,
                       bool *found)
{
    int bits = addr_bits(addr, n), m_min = 0;
    /* whole bytes for sub-byte elements: Sw<B,0,S> moves nibbles within
     * bytes by its bit 0 and counts as Sw<B-1,1,S>, which ties with
     * fewer xor bits, so this skips candidates that never win */
    while (elem_bits < 8 && (elem_bits << m_min) < 8)
        m_min++;
    for (int b = 1; b <= bits / 2; b++)
        for (int m = m_min; m + 2 * b <= bits; m++)
            for (int s = b; m + b + s <= bits; s++) {
                axe_layout_swizzle c = {true, true, m, b, s};
                AXE_TRY(consider(addr, n, acc, nacc, elem_bits, &c, best,
                                 best_ways, found));
            }
    return AXE_OK;
}

static axe_status check_bits(int64_t elem_bits, axe_diag *diag)
{
    if (elem_bits < 1 || elem_bits > 64)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "swizzle choice: an element of %lld bits (1 to "
                         "64)",
                         (long long)elem_bits);
    return AXE_OK;
}

/* The swizzle against bank conflicts (compiler_smem.h). */
axe_status axe__swizzle_pick(const int64_t *addr, int64_t n,
                             const ax_tile_access *acc, int nacc,
                             int64_t elem_bits, axe_layout_swizzle *sw,
                             ax_ways *before, ax_ways *after, axe_diag *diag)
{
    axe_layout_swizzle best = {false, true, 0, 0, 0};
    ax_ways none, best_ways;
    bool found = false;
    AXE_TRY(check_bits(elem_bits, diag));
    AXE_TRY(check_addrs(addr, n, diag));
    AXE_TRY(axe__tile_ways(acc, nacc, elem_bits, NULL, &none, diag));
    best_ways = none;
    AXE_TRY(scan(addr, n, acc, nacc, elem_bits, &best, &best_ways, &found));
    *sw = best;
    *before = none;
    *after = best_ways;
    return AXE_OK;
}

/* Whether some swizzle's counts of "acc" could be below "bound": each
 * access with an active lane takes at least 1 way, so none is below
 * (1, the number of such accesses). */
static bool can_go_below(const ax_tile_access *acc, int nacc,
                         const ax_ways *bound)
{
    ax_ways least = {0, 0, 0};
    for (int i = 0; i < nacc; i++)
        for (int t = 0; t < AX_WARP; t++)
            if (acc[i].active[t]) {
                least.max = 1;
                least.sum++;
                break;
            }
    return better(&least, bound);
}

/* The swizzle against bank conflicts where it beats a bound
 * (compiler_smem.h). The scan keeps the first candidate strictly below
 * the best so far. Started from the bound instead of "none", its best
 * differs from the unbounded scan's only while that one is at or above
 * the bound (then it is the bound), so where the unbounded choice ends
 * below the bound this scan takes the same candidate with the same
 * counts; a candidate's count that stops early could not have been
 * taken by either. */
axe_status axe__swizzle_pick_below(const int64_t *addr, int64_t n,
                                   const ax_tile_access *acc, int nacc,
                                   int64_t elem_bits, const ax_ways *bound,
                                   axe_layout_swizzle *sw, ax_ways *before,
                                   ax_ways *after, bool *below, axe_diag *diag)
{
    axe_layout_swizzle best = {false, true, 0, 0, 0};
    ax_ways none, best_ways = *bound;
    bool found = false;
    AXE_TRY(check_bits(elem_bits, diag));
    AXE_TRY(check_addrs(addr, n, diag));
    AXE_TRY(axe__tile_ways(acc, nacc, elem_bits, NULL, &none, diag));
    if (better(&none, bound)) {
        best_ways = none;
        found = true;
    }
    if (can_go_below(acc, nacc, &best_ways))
        AXE_TRY(scan(addr, n, acc, nacc, elem_bits, &best, &best_ways, &found));
    *below = found;
    if (found) {
        *sw = best;
        *before = none;
        *after = best_ways;
    }
    return AXE_OK;
}
