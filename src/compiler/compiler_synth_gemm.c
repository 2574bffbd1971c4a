/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The gemm anchor and the gemm constraint of layout synthesis (issue 15
 * §2). C[M,N] += A[M,K] B[N,K]^T.
 *
 *   mma:   when the dtypes have a tensor-core atom (an f32 gemm with A
 *          and B in memory only with tf32; K a multiple of the atom's K),
 *          C is
 *          tiled by the atom's C fragment over the scope's W warps as
 *          wm x wn (rows of warps by columns), each warp holding MI x NI
 *          atom tiles, register order (atom row, atom column, fragment
 *          value): rows (wm:wn@warp, MI:NI*v, fragment rows), columns
 *          (wn:1@warp, NI:v, fragment columns). Leaves: every wm dividing
 *          W that tiles C within the registers. Cost: fragment loads per
 *          warp per atom K step, MI + NI.
 *   fma:   otherwise (no atom, or K not a multiple of its K), at cta,
 *          warpgroup or warp scope with A and B in memory, the T threads
 *          form a tm x tn grid and each holds a bm x bn block of C
 *          (bm = M / tm, bn = N / tn) in row-major registers: rows
 *          (tm:tn@axis, bm:bn), columns (tn:1@axis, bn:1). Cost: operand
 *          loads per thread per k, bm + bn (for bm * bn FMAs).
 *   Theorem 1 (the gemm constraint, for the mma atom at warp scope): a C
 *          tiled as above with MI x NI tiles gives A the MI x KI tiling of
 *          the A fragment and B the NI x KI tiling of the B fragment (the
 *          projections of the (M, N, K) tile grid on (M, K) and (N, K)).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth.h"

typedef struct sy_gemm {
    int64_t m, n, k, warps, es;
    int64_t mnk[3];
    const char *warp;
} sy_gemm;

/* The tiling of fragment "o" (0 A, 1 B, 2 C) of "s"'s atom by t0 x t1
 * tiles, over wm x wn warps (C only; 1 x 1 otherwise). */
static axe_status frag_tiling(const axe_program *p, const ax_stmt *s, int o,
                              const int64_t *tiles, const int64_t *wgrid,
                              const char *warp, axe_layout *out)
{
    axe_layout f;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], dim, i;
    int64_t nv, mnk[3];
    AXE_TRY(axe__mma_frag_grouped(p, s, o, &f, seps, &nv, mnk));
    axe_layout_init(out);
    for (dim = 0; dim < 2; dim++) {
        if (wgrid[dim] > 1)
            AXE_TRY(axe_layout_push_shard(out, wgrid[dim],
                                          dim == 0 ? wgrid[1] : 1, warp));
        if (tiles[dim] > 1)
            AXE_TRY(axe_layout_push_shard(out, tiles[dim],
                                          dim == 0 ? tiles[1] * nv : nv, "m"));
        for (i = seps[dim]; i < seps[dim + 1]; i++)
            AXE_TRY(axe_layout_push_shard(out, f.shard[i].extent,
                                          f.shard[i].stride, f.shard[i].axis));
    }
    return AXE_OK;
}

static axe_status gemm_setup(const axe_program *p, const ax_stmt *s, sy_gemm *g,
                             axe_diag *diag)
{
    int64_t c[AX_MAX_DIMS], a[AX_MAX_DIMS];
    int64_t threads = axe__scope_threads(p, s->scope);
    memset(g, 0, sizeof *g);
    if (axe__synth_ref_shape(p, &s->args[0], c) != 2 ||
        axe__synth_ref_shape(p, &s->args[1], a) != 2)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "gemm operands are not 2-dimensional");
    g->m = c[0];
    g->n = c[1];
    g->k = a[1];
    g->warps = threads / 32;
    g->warp = s->scope == AX_SCOPE_WARPGROUP ? "wid_in_wg" : "warpid";
    g->es = axe_dtype_size(p->tensors[s->args[0].tensor].dtype);
    return AXE_OK;
}

static bool operands_in_memory(const axe_program *p, const ax_stmt *s)
{
    return p->tensors[s->args[1].tensor].mem != AX_MEM_REGISTER &&
           p->tensors[s->args[2].tensor].mem != AX_MEM_REGISTER;
}

/* An f32 gemm without tf32 has no tensor-core instruction (the CUDA
 * backend runs f32 FMA on the m16n8k8 fragments): with A and B in memory
 * it anchors as FMA; with A and B in registers (warp scope) the fragment
 * tiles are the only register gemm (gemm.mma_atom), so it keeps them. */
static bool tensor_core(const axe_program *p, const ax_stmt *s)
{
    return p->tensors[s->args[1].tensor].dtype != AXE_DTYPE_F32 || s->tf32 ||
           !operands_in_memory(p, s);
}

/* The mma leaves; false when the atom does not apply. */
static bool mma_search(const axe_program *p, const ax_stmt *s, sy_gemm *g,
                       int64_t *best, ax_synth_choice *ch)
{
    axe_layout f;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    int64_t nv, wm;
    bool have = false;
    if (!tensor_core(p, s) ||
        axe__mma_frag_grouped(p, s, 2, &f, seps, &nv, g->mnk) != AXE_OK ||
        g->k % g->mnk[2] != 0 || axe__scope_threads(p, s->scope) % 32 != 0 ||
        (s->scope != AX_SCOPE_WARP && !operands_in_memory(p, s)))
        return false;
    if (s->scope == AX_SCOPE_WARP)
        g->warps = 1;
    for (wm = 1; wm <= g->warps; wm++) {
        int64_t wn = g->warps / wm, mi, ni;
        char text[AX_SYNTH_TEXT];
        if (g->warps % wm != 0 || g->m % (wm * g->mnk[0]) != 0 ||
            g->n % (wn * g->mnk[1]) != 0)
            continue;
        mi = g->m / (wm * g->mnk[0]);
        ni = g->n / (wn * g->mnk[1]);
        if (mi * ni * nv * g->es > AX_MAX_REGISTER_BYTES)
            continue;
        (void)snprintf(text, sizeof text,
                       "mma atom m%lldn%lldk%lld tiles of C, warps %lld x "
                       "%lld, %lld x %lld atom tiles per warp",
                       (long long)g->mnk[0], (long long)g->mnk[1],
                       (long long)g->mnk[2], (long long)wm, (long long)wn,
                       (long long)mi, (long long)ni);
        if (!have || (double)(mi + ni) < ch->cost)
            *best = wm;
        axe__synth_keep(ch, (double)(mi + ni), text, &have);
    }
    return have;
}

static axe_status mma_layout(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, int64_t wm, axe_layout *out)
{
    int64_t wgrid[2], tiles[2];
    wgrid[0] = wm;
    wgrid[1] = g->warps / wm;
    tiles[0] = g->m / (wgrid[0] * g->mnk[0]);
    tiles[1] = g->n / (wgrid[1] * g->mnk[1]);
    return frag_tiling(p, s, 2, tiles, wgrid, g->warp, out);
}

/* The per-thread FMA leaves: thread grids tm x tn of the scope. */
static bool fma_search(const axe_program *p, const ax_stmt *s, const sy_gemm *g,
                       int64_t *best, ax_synth_choice *ch)
{
    int64_t t = axe__scope_threads(p, s->scope), tm;
    bool have = false;
    if (!operands_in_memory(p, s))
        return false;
    for (tm = 1; tm <= t; tm++) {
        int64_t tn = t / tm, bm, bn;
        char text[AX_SYNTH_TEXT];
        if (t % tm != 0 || g->m % tm != 0 || g->n % tn != 0)
            continue;
        bm = g->m / tm;
        bn = g->n / tn;
        if (bm * bn * g->es > AX_MAX_REGISTER_BYTES)
            continue;
        (void)snprintf(text, sizeof text,
                       "per-thread FMA blocks of C, threads %lld x %lld, a "
                       "%lld x %lld block per thread",
                       (long long)tm, (long long)tn, (long long)bm,
                       (long long)bn);
        if (!have || (double)(bm + bn) < ch->cost)
            *best = tm;
        axe__synth_keep(ch, (double)(bm + bn), text, &have);
    }
    return have;
}

static axe_status fma_layout(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, int64_t tm, axe_layout *out)
{
    int64_t tn = axe__scope_threads(p, s->scope) / tm;
    int64_t bm = g->m / tm, bn = g->n / tn;
    const char *axis = s->scope == AX_SCOPE_WARP        ? "laneid"
                       : s->scope == AX_SCOPE_WARPGROUP ? "tid_in_wg"
                                                        : "tx";
    axe_layout_init(out);
    AXE_TRY(axe_layout_push_shard(out, tm, tn, axis));
    AXE_TRY(axe_layout_push_shard(out, bm, bn, "m"));
    AXE_TRY(axe_layout_push_shard(out, tn, 1, axis));
    return axe_layout_push_shard(out, bn, 1, "m");
}

axe_status axe__synth_gemm_anchor(const axe_program *p, const ax_stmt *s,
                                  axe_layout *out, ax_synth_choice *ch,
                                  axe_diag *diag)
{
    sy_gemm g;
    int64_t best = 0;
    AXE_TRY(gemm_setup(p, s, &g, diag));
    memset(ch, 0, sizeof *ch);
    if (mma_search(p, s, &g, &best, ch))
        return mma_layout(p, s, &g, best, out);
    memset(ch, 0, sizeof *ch);
    if (fma_search(p, s, &g, &best, ch))
        return fma_layout(p, s, &g, best, out);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                     "no mma atom tiling and no thread grid of the %s "
                     "tiles C (%lld x %lld) within the registers with A and "
                     "B in memory",
                     axe__scope_name(s->scope), (long long)g.m, (long long)g.n);
}

axe_status axe__synth_gemm_operand(const axe_program *p, const ax_stmt *s,
                                   int o, axe_layout *out)
{
    sy_gemm g;
    axe_layout c;
    axe_diag why;
    int64_t tiles[2], one[2] = {1, 1};
    bool same = false;
    if (s->scope != AX_SCOPE_WARP)
        return AXE_ERR_UNSUPPORTED;
    AXE_TRY(gemm_setup(p, s, &g, &why));
    {
        axe_layout f;
        int seps[AXE_LAYOUT_MAX_DIMS + 1];
        int64_t nv;
        if (axe__mma_frag_grouped(p, s, 2, &f, seps, &nv, g.mnk) != AXE_OK ||
            g.k % g.mnk[2] != 0 || g.m % g.mnk[0] != 0 || g.n % g.mnk[1] != 0)
            return AXE_ERR_UNSUPPORTED;
    }
    g.warps = 1;
    AXE_TRY(mma_layout(p, s, &g, 1, &c));
    AXE_TRY(axe_layout_equivalent(&c, &p->tensors[s->args[0].tensor].layout,
                                  &same, NULL));
    if (!same)
        return AXE_ERR_UNSUPPORTED;
    tiles[0] = (o == 1 ? g.m / g.mnk[0] : g.n / g.mnk[1]);
    tiles[1] = g.k / g.mnk[2];
    return frag_tiling(p, s, o - 1, tiles, one, NULL, out);
}
