/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The shared-memory bank model (docs/compiler.md, "Shared-memory bank
 * conflicts"), the same as `axe render --as banks` (src/render/
 * render_banks.c): 32 banks of 4 bytes; a warp's access of up to 4 bytes
 * per lane is one phase of 32 lanes, of 8 bytes two phases of 16 lanes, of
 * 16 bytes (LDS.128, cp.async, an ldmatrix row) four phases of 8 lanes (a
 * phase moves at most 128 bytes). Within a phase, a bank serving k
 * distinct words takes k wavefronts; lanes reading the same word share
 * it (broadcast). Invariant: every count is taken over the words the
 * active lanes touch, each word counted once per phase.
 */
#include "compiler_smem.h"

/* The words of one phase: distinct, at most 32 (a phase moves 128 bytes). */
typedef struct phase_words {
    int n;
    int64_t word[AX_WARP];
} phase_words;

static void add_word(phase_words *pw, int64_t w)
{
    for (int i = 0; i < pw->n; i++)
        if (pw->word[i] == w)
            return;
    pw->word[pw->n++] = w;
}

/* The largest number of distinct words of "pw" in one bank. */
static int phase_ways(const phase_words *pw)
{
    int per_bank[AX_BANKS] = {0}, worst = 0;
    for (int i = 0; i < pw->n; i++) {
        int b = (int)axe__floormod(pw->word[i], AX_BANKS);
        per_bank[b]++;
        worst = per_bank[b] > worst ? per_bank[b] : worst;
    }
    return worst;
}

static axe_status check_access(const ax_warp_access *a, axe_diag *diag)
{
    int w = a->width;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a shared-memory access moves 1, 2, 4, 8 or 16 "
                         "bytes per lane, not %d",
                         w);
    for (int t = 0; t < AX_WARP; t++)
        if (a->active[t] && axe__floormod(a->byte[t], w) != 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "lane %d accesses %d bytes at byte address "
                             "%lld, which is not a multiple of %d",
                             t, w, (long long)a->byte[t], w);
    return AXE_OK;
}

/* The bank count of a warp-wide access (compiler_smem.h). */
axe_status axe__bank_count(const ax_warp_access *a, ax_bank_count *out,
                           axe_diag *diag)
{
    int words = a->width > 4 ? a->width / 4 : 1;
    int per_phase = AX_WARP / words;
    ax_bank_count c = {0, 0};
    AXE_TRY(check_access(a, diag));
    for (int p = 0; p < words; p++) {
        phase_words pw = {0, {0}};
        for (int t = p * per_phase; t < (p + 1) * per_phase; t++)
            for (int k = 0; a->active[t] && k < words; k++)
                add_word(&pw, axe__floordiv(a->byte[t], 4) + k);
        int ways = phase_ways(&pw);
        c.ways = ways > c.ways ? ways : c.ways;
        c.wavefronts += ways;
    }
    *out = c;
    return AXE_OK;
}

/* Tile address "a" through swizzle "sw" (NULL: none), the library's
 * Swizzle<M,B,S> (layout_apply.c). */
static axe_status swizzled(const axe_layout_swizzle *sw, int64_t a,
                           int64_t *out, axe_diag *diag)
{
    if (sw == NULL) {
        *out = a;
        return AXE_OK;
    }
    if (axe__swizzle_addr(sw, a, out) != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Swizzle<%d,%d,%d> is not a valid swizzle",
                         (int)sw->per_element, (int)sw->len, (int)sw->atom);
    return AXE_OK;
}

/* The warp access of tile access "ta" under "sw": byte addresses of the
 * swizzled element addresses, vec * elem_bits / 8 bytes per lane. An
 * access narrower than a byte (one packed i4) reads the byte holding it
 * (width 1 at floor(bit address / 8)); a wider one must be whole bytes
 * from a byte boundary. */
static axe_status to_bytes(const ax_tile_access *ta, int64_t elem_bits,
                           const axe_layout_swizzle *sw, ax_warp_access *wa,
                           axe_diag *diag)
{
    int64_t bits;
    if (elem_bits < 1 || axe__mul(ta->vec, elem_bits, &bits) != AXE_OK ||
        bits > 128 || bits < 1 || (bits > 8 && bits % 8 != 0))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "an access of %lld elements of %lld bits is not "
                         "a 1- to 16-byte shared-memory access",
                         (long long)ta->vec, (long long)elem_bits);
    wa->width = bits < 8 ? 1 : (int)(bits / 8);
    for (int t = 0; t < AX_WARP; t++) {
        int64_t e = 0, at = 0;
        wa->active[t] = ta->active[t];
        wa->byte[t] = 0;
        if (ta->active[t])
            AXE_TRY(swizzled(sw, ta->elem[t], &e, diag));
        if (ta->active[t] && axe__mul(e, elem_bits, &at) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "address %lld in bits overflows",
                             (long long)ta->elem[t]);
        if (ta->active[t] && bits >= 8 && at % 8 != 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "lane %d's access of %lld bytes starts at "
                             "element %lld, inside a byte",
                             t, (long long)(bits / 8), (long long)e);
        wa->byte[t] = axe__floordiv(at, 8);
    }
    return AXE_OK;
}

/* Whether counts "w" can still end below "bound" (max, then sum), every
 * further access adding at least 0 ways: max above it, or at it with the
 * sum not below, cannot. */
static bool can_beat(const ax_ways *w, const ax_ways *bound)
{
    return w->max < bound->max || (w->max == bound->max && w->sum < bound->sum);
}

/* The counts of the accesses, stopping once they cannot end below
 * "bound" (NULL: no bound); "*below" whether they did not stop (with no
 * access, whether (0, 0) is below the bound). */
static axe_status count_ways(const ax_tile_access *acc, int n,
                             int64_t elem_bits, const axe_layout_swizzle *sw,
                             const ax_ways *bound, ax_ways *out, bool *below,
                             axe_diag *diag)
{
    ax_ways w = {0, 0, 0};
    *below = bound == NULL || can_beat(&w, bound);
    if (!*below)
        return AXE_OK;
    for (int i = 0; i < n; i++) {
        ax_warp_access wa;
        ax_bank_count c;
        AXE_TRY(to_bytes(&acc[i], elem_bits, sw, &wa, diag));
        AXE_TRY(axe__bank_count(&wa, &c, diag));
        w.max = c.ways > w.max ? c.ways : w.max;
        w.sum += c.ways;
        w.wavefronts += c.wavefronts;
        if (bound != NULL && !can_beat(&w, bound)) {
            *below = false;
            return AXE_OK;
        }
    }
    *out = w;
    return AXE_OK;
}

/* The largest and summed ways of the accesses (compiler_smem.h). */
axe_status axe__tile_ways(const ax_tile_access *acc, int n, int64_t elem_bits,
                          const axe_layout_swizzle *sw, ax_ways *out,
                          axe_diag *diag)
{
    bool below;
    return count_ways(acc, n, elem_bits, sw, NULL, out, &below, diag);
}

/* The counts of the accesses when below "bound" (compiler_smem.h). */
axe_status axe__tile_ways_below(const ax_tile_access *acc, int n,
                                int64_t elem_bits, const axe_layout_swizzle *sw,
                                const ax_ways *bound, ax_ways *out, bool *below,
                                axe_diag *diag)
{
    return count_ways(acc, n, elem_bits, sw, bound, out, below, diag);
}
