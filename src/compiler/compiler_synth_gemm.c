/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The gemm anchor and the gemm constraint of layout synthesis (issue 15
 * §2). C[M,N] += A[M,K] B[N,K]^T.
 *
 *   mma:   for each tensor-core atom of the dtypes whose K divides the
 *          gemm's K (an f32 gemm with A and B in memory only with tf32;
 *          f16: m16n8k16, m16n8k8), C is
 *          tiled by the atom's C fragment over the scope's W warps as
 *          wm x wn (rows of warps by columns), each warp holding MI x NI
 *          atom tiles, register order (atom row, atom column, fragment
 *          value): rows (wm:wn@warp, MI:NI*v, fragment rows), columns
 *          (wn:1@warp, NI:v, fragment columns). Leaves: every atom and
 *          every wm dividing W that tiles C within the registers; a
 *          layout that an earlier leaf already has (f16's two atoms share
 *          the C fragment) is kept once, at the lower cost. Cost: fragment
 *          loads per warp over the gemm's K, (MI + NI) x KI (KI = K / the
 *          atom's K).
 *   fma:   otherwise (no atom, or K not a multiple of its K), at cta,
 *          warpgroup or warp scope with A and B in memory, the T threads
 *          form a tm x tn grid and each holds a bm x bn block of C
 *          (bm = M / tm, bn = N / tn) in row-major registers: rows
 *          (tm:tn@axis, bm:bn), columns (tn:1@axis, bn:1). Cost: operand
 *          loads per thread per k, bm + bn (for bm * bn FMAs).
 *   Theorem 1 (the gemm constraint): a C tiled as above with MI x NI
 *          tiles gives A the MI x KI tiling of the A fragment and B the
 *          NI x KI tiling of the B fragment (the projections of the
 *          (M, N, K) tile grid on (M, K) and (N, K)), of the first atom
 *          (table order) whose K divides K and whose tiling is C's; over
 *          wm x wn warps A is on C's row warps and replicated over its
 *          wn column warps, B on its column warps and replicated over its
 *          wm row warps.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth.h"

typedef struct sy_gemm {
    int64_t m, n, k, warps, es;
    int atom; /* the atom of the dtypes (axe__mma_frag_grouped's "which") */
    int64_t mnk[3];
    const char *warp;
} sy_gemm;

/* The tiling of fragment "o" (0 A, 1 B, 2 C) of "s"'s atom "atom" by
 * t0 x t1 tiles, C's warps a wm x wn grid "wgrid" (warp wm_i * wn + wn_i):
 * C's rows on wm_i and columns on wn_i; A's rows on wm_i, replicated over
 * wn_i (each warp holds the A tiles of its C rows); B's rows (N) on wn_i,
 * replicated over wm_i. */
static axe_status frag_tiling(const axe_program *p, const ax_stmt *s, int atom,
                              int o, const int64_t *tiles, const int64_t *wgrid,
                              const char *warp, axe_layout *out)
{
    axe_layout f;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], dim, i;
    int64_t nv, mnk[3];
    /* per dim of the fragment: the warp grid's extent and warp stride */
    int64_t we[2], ws[2];
    AXE_TRY(axe__mma_frag_grouped(p, s, atom, o, &f, seps, &nv, mnk));
    we[0] = o == 1 ? wgrid[1] : wgrid[0];
    ws[0] = o == 1 ? 1 : wgrid[1];
    we[1] = o == 2 ? wgrid[1] : 1;
    ws[1] = 1;
    axe_layout_init(out);
    for (dim = 0; dim < 2; dim++) {
        if (we[dim] > 1)
            AXE_TRY(axe_layout_push_shard(out, we[dim], ws[dim], warp));
        if (tiles[dim] > 1)
            AXE_TRY(axe_layout_push_shard(out, tiles[dim],
                                          dim == 0 ? tiles[1] * nv : nv, "m"));
        for (i = seps[dim]; i < seps[dim + 1]; i++)
            AXE_TRY(axe_layout_push_shard(out, f.shard[i].extent,
                                          f.shard[i].stride, f.shard[i].axis));
    }
    if (o == 0 && wgrid[1] > 1)
        AXE_TRY(axe_layout_push_replica(out, wgrid[1], 1, warp));
    if (o == 1 && wgrid[0] > 1)
        AXE_TRY(axe_layout_push_replica(out, wgrid[0], wgrid[1], warp));
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

static bool in_memory(const axe_program *p, const ax_stmt *s, int o)
{
    return p->tensors[s->args[o].tensor].mem != AX_MEM_REGISTER;
}

static bool operands_in_memory(const axe_program *p, const ax_stmt *s)
{
    return in_memory(p, s, 1) && in_memory(p, s, 2);
}

/* A in registers, B in memory: gemm.mma_reg_a, or thread_fma with A the
 * projection of C over N. */
static bool reg_a(const axe_program *p, const ax_stmt *s)
{
    return !in_memory(p, s, 1) && in_memory(p, s, 2);
}

/* B in registers, A in memory: gemm.mma_reg_b. */
static bool reg_b(const axe_program *p, const ax_stmt *s)
{
    return in_memory(p, s, 1) && !in_memory(p, s, 2);
}

/* An f32 gemm without tf32 has no tensor-core instruction (the CUDA
 * backend runs f32 FMA on the m16n8k8 fragments): with B in memory it
 * anchors as FMA; with A and B in registers (warp scope) the fragment
 * tiles are the only register gemm (gemm.mma_atom), so it keeps them. */
static bool tensor_core(const axe_program *p, const ax_stmt *s)
{
    return p->tensors[s->args[1].tensor].dtype != AXE_DTYPE_F32 || s->tf32 ||
           (!in_memory(p, s, 1) && !in_memory(p, s, 2));
}

static bool equal_to(const axe_layout *a, const axe_layout *b)
{
    bool same = false;
    return axe_layout_equivalent(a, b, &same, NULL) == AXE_OK && same;
}

/* Keep leaf "l" of cost "cost" in the list (AXE_ERR_CAPACITY past
 * AX_SYNTH_MAX_LEAVES); a layout already there keeps the lower cost (the
 * earlier leaf on ties). */
static axe_status add_leaf(ax_synth_leaves *lv, const axe_layout *l,
                           double cost, const char *text)
{
    ax_synth_leaf *f = NULL;
    for (int i = 0; i < lv->n && f == NULL; i++)
        if (equal_to(&lv->leaf[i].layout, l))
            f = &lv->leaf[i];
    if (f != NULL && f->cost <= cost)
        return AXE_OK;
    if (f == NULL && lv->n == AX_SYNTH_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    if (f == NULL)
        f = &lv->leaf[lv->n++];
    f->layout = *l;
    f->cost = cost;
    (void)snprintf(f->text, sizeof f->text, "%s", text);
    return AXE_OK;
}

static axe_status mma_layout(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, int64_t wm, axe_layout *out);

/* The leaves of atom g->atom: every warp grid wm x wn that tiles C
 * within the registers (a register A at a collective scope is then
 * replicated over the wn warps of its C rows: gemm.mma_reg_a); "nv" C
 * fragment values per lane. */
static axe_status atom_leaves(const axe_program *p, const ax_stmt *s,
                              const sy_gemm *g, int64_t nv, ax_synth_leaves *lv)
{
    int64_t wm, ki = g->k / g->mnk[2];
    for (wm = 1; wm <= g->warps; wm++) {
        int64_t wn = g->warps / wm, mi, ni;
        char text[AX_SYNTH_TEXT];
        axe_layout l;
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
        AXE_TRY(mma_layout(p, s, g, wm, &l));
        AXE_TRY(add_leaf(lv, &l, (double)((mi + ni) * ki), text));
    }
    return AXE_OK;
}

/* The mma leaves: those of every atom of the dtypes whose K divides K
 * (atom_leaves). */
static axe_status mma_leaves(const axe_program *p, const ax_stmt *s, sy_gemm *g,
                             ax_synth_leaves *lv)
{
    axe_layout f;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    int64_t nv;
    if (!tensor_core(p, s) || axe__scope_threads(p, s->scope) % 32 != 0 ||
        (s->scope != AX_SCOPE_WARP && !operands_in_memory(p, s) &&
         !reg_a(p, s) && !reg_b(p, s)))
        return AXE_OK;
    if (s->scope == AX_SCOPE_WARP)
        g->warps = 1;
    for (g->atom = 0; axe__mma_frag_grouped(p, s, g->atom, 2, &f, seps, &nv,
                                            g->mnk) == AXE_OK;
         g->atom++)
        if (g->k % g->mnk[2] == 0)
            AXE_TRY(atom_leaves(p, s, g, nv, lv));
    return AXE_OK;
}
static axe_status mma_layout(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, int64_t wm, axe_layout *out)
{
    int64_t wgrid[2], tiles[2];
    wgrid[0] = wm;
    wgrid[1] = g->warps / wm;
    tiles[0] = g->m / (wgrid[0] * g->mnk[0]);
    tiles[1] = g->n / (wgrid[1] * g->mnk[1]);
    return frag_tiling(p, s, g->atom, 2, tiles, wgrid, g->warp, out);
}

static const char *fma_axis(ax_scope sc)
{
    return sc == AX_SCOPE_WARP        ? "laneid"
           : sc == AX_SCOPE_WARPGROUP ? "tid_in_wg"
                                      : "tx";
}

static axe_status fma_layout(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, int64_t tm, axe_layout *out)
{
    int64_t tn = axe__scope_threads(p, s->scope) / tm;
    int64_t bm = g->m / tm, bn = g->n / tn;
    const char *axis = fma_axis(s->scope);
    axe_layout_init(out);
    AXE_TRY(axe_layout_push_shard(out, tm, tn, axis));
    AXE_TRY(axe_layout_push_shard(out, bm, bn, "m"));
    AXE_TRY(axe_layout_push_shard(out, tn, 1, axis));
    return axe_layout_push_shard(out, bn, 1, "m");
}

/* The per-thread FMA leaves: thread grids tm x tn of the scope (B in
 * memory; A in memory, or a register that takes C's rows). */
static axe_status fma_leaves(const axe_program *p, const ax_stmt *s,
                             const sy_gemm *g, ax_synth_leaves *lv)
{
    int64_t t = axe__scope_threads(p, s->scope), tm;
    if (!in_memory(p, s, 2))
        return AXE_OK;
    for (tm = 1; tm <= t; tm++) {
        int64_t tn = t / tm, bm, bn;
        char text[AX_SYNTH_TEXT];
        axe_layout l;
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
        AXE_TRY(fma_layout(p, s, g, tm, &l));
        AXE_TRY(add_leaf(lv, &l, (double)(bm + bn), text));
    }
    return AXE_OK;
}

/* Cheapest first, the search order kept on ties (insertion sort). */
static void sort_leaves(ax_synth_leaves *lv)
{
    ax_synth_leaf tmp;
    int i, j;
    for (i = 1; i < lv->n; i++) {
        tmp = lv->leaf[i];
        for (j = i; j > 0 && lv->leaf[j - 1].cost > tmp.cost; j--)
            lv->leaf[j] = lv->leaf[j - 1];
        lv->leaf[j] = tmp;
    }
}

axe_status axe__synth_gemm_leaves(const axe_program *p, const ax_stmt *s,
                                  ax_synth_leaves *lv, axe_diag *diag)
{
    sy_gemm g;
    AXE_TRY(gemm_setup(p, s, &g, diag));
    lv->n = 0;
    AXE_TRY(mma_leaves(p, s, &g, lv));
    if (lv->n == 0)
        AXE_TRY(fma_leaves(p, s, &g, lv));
    sort_leaves(lv);
    if (lv->n == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "no mma atom tiling and no thread grid of the %s "
                         "tiles C (%lld x %lld) within the registers with B "
                         "in memory",
                         axe__scope_name(s->scope), (long long)g.m,
                         (long long)g.n);
    return AXE_OK;
}

/* A register A of an FMA grid tm x tn: C's rows, all of K in each
 * thread, replicated over the tn threads of a row (the projection of C
 * over N). */
static axe_status fma_operand(const axe_program *p, const ax_stmt *s,
                              const sy_gemm *g, int64_t tm, axe_layout *out)
{
    int64_t tn = axe__scope_threads(p, s->scope) / tm, bm = g->m / tm;
    const char *axis = fma_axis(s->scope);
    axe_layout_init(out);
    AXE_TRY(axe_layout_push_shard(out, tm, tn, axis));
    AXE_TRY(axe_layout_push_shard(out, bm, g->k, "m"));
    AXE_TRY(axe_layout_push_shard(out, g->k, 1, "m"));
    if (tn > 1)
        AXE_TRY(axe_layout_push_replica(out, tn, 1, axis));
    return AXE_OK;
}

/* The layout of register operand "o" (1 A, 2 B) implied by C's (Theorem
 * 1): C an mma tiling over wm x wn warps gives A the MI x KI tiling of
 * the A fragment over the same wm warps, replicated over the wn warps of
 * its row (the projection of C over N) and B the NI x KI tiling of the B
 * fragment over the wn warps, replicated over the wm warps of each column
 * (the projection over M); C
 * an FMA grid gives A C's rows with all of K (fma_operand). */
axe_status axe__synth_gemm_operand(const axe_program *p, const ax_stmt *s,
                                   int o, axe_layout *out)
{
    const axe_layout *c = &p->tensors[s->args[0].tensor].layout;
    sy_gemm g;
    axe_layout l, f;
    axe_diag why;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    int64_t nv, w;
    AXE_TRY(gemm_setup(p, s, &g, &why));
    if (s->scope == AX_SCOPE_WARP)
        g.warps = 1;
    for (g.atom = 0;
         axe__mma_frag_grouped(p, s, g.atom, 2, &f, seps, &nv, g.mnk) == AXE_OK;
         g.atom++) {
        if (g.k % g.mnk[2] != 0 || g.m % g.mnk[0] != 0 || g.n % g.mnk[1] != 0)
            continue;
        for (w = 1; w <= g.warps; w++) {
            int64_t tiles[2], wgrid[2] = {w, g.warps / w};
            if (g.warps % w != 0 || g.m % (w * g.mnk[0]) != 0 ||
                g.n % (g.warps / w * g.mnk[1]) != 0 ||
                mma_layout(p, s, &g, w, &l) != AXE_OK || !equal_to(&l, c))
                continue;
            tiles[0] =
                o == 1 ? g.m / (w * g.mnk[0]) : g.n / (wgrid[1] * g.mnk[1]);
            tiles[1] = g.k / g.mnk[2];
            return frag_tiling(p, s, g.atom, o - 1, tiles, wgrid,
                               g.warps > 1 ? g.warp : NULL, out);
        }
    }
    for (w = 1; o == 1 && w <= axe__scope_threads(p, s->scope); w++)
        if (axe__scope_threads(p, s->scope) % w == 0 && g.m % w == 0 &&
            g.n % (axe__scope_threads(p, s->scope) / w) == 0 &&
            fma_layout(p, s, &g, w, &l) == AXE_OK && equal_to(&l, c))
            return fma_operand(p, s, &g, w, out);
    return AXE_ERR_UNSUPPORTED;
}
