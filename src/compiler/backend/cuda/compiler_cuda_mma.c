/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's analysis of a tensor-core gemm (gemm.mma_atom,
 * gemm.mma_smem): which instructions it takes, decided from the plan's
 * fragment tables (compiler_mma.c) and the operands' addresses, shared
 * by the check, --explain and the emitter (compiler_emit_cuda_mma.c).
 *   - The atom: `mma.sync.aligned` per dtypes (f16/bf16 m16n8k16, s8
 *     m16n8k32, e4m3/e5m2 m16n8k32 from sm_89, f64 m8n8k4, tf32 m16n8k8
 *     for an f32 gemm that asks for it: gemm(C, A, B, tf32)); an f32 gemm
 *     without tf32 has no atom here: tf32 rounds the inputs to 10
 *     mantissa bits, so by default an f32 gemm keeps f32 accuracy with FMA
 *     on the atom's fragments (as the C backend, which computes m16n8k8
 *     in f32).
 *   - Each fragment in "quad form": its value u * j + e of lane l lies at
 *     (r0[j] + l / 4, c0[j] + u * (l % 4) + e) of the atom tile, u the
 *     elements of one 32-bit register (2 for b16, 4 for b8, 1 for f32 and
 *     f64). Every PTX atom has it; the emitter addresses by it.
 *   - ldmatrix for A or B when the operand is shared, b16 or b8, every
 *     16-byte row of the 8x8 b16 matrices is contiguous and aligned in
 *     the tile addresses (along K: no .trans; along M or N, b16 only:
 *     .trans), checked by evaluating the plan's digits over the whole
 *     operand, and a swizzle keeps such runs (2^M >= the run); else the
 *     instruction choice's cheapest other leaf: per-thread vector loads
 *     of 1, 2 or 4 fragment registers (ld.shared.b32/.v2/.v4, legal on
 *     every lane, atom tile and K step) or each lane loads its fragment's
 *     elements (swizzled address per access).
 *   - The warps' atom tiles (gemm.mma_smem): every warp holds the tiles of
 *     warp 0 shifted by its own first (row, column) of tiles, at the same
 *     register offsets, so the registers of the generated code are
 *     compile-time indices. gemm.mma_reg_a: A's atom tiles likewise, and
 *     an atom (tf32 for f32): the A fragment is the thread's registers.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_synth_inst.h"

static const axe__cuda_atom atoms[] = {
    /* the m16n8k8 that compiler_mma.c's shape choice takes for an f16
     * or bf16 gemm (s->mma->mnk[2] == 8), before the default m16n8k16 */
    {AXE_DTYPE_F16, AXE_DTYPE_F16, AXE_DTYPE_F32, 80,
     "axe_ptx_mma_m16n8k8_f32_f16",
     "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", 8, 2, 1},
    {AXE_DTYPE_F16, AXE_DTYPE_F16, AXE_DTYPE_F32, 80,
     "axe_ptx_mma_m16n8k16_f32_f16",
     "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 0, 0, 0},
    {AXE_DTYPE_BF16, AXE_DTYPE_BF16, AXE_DTYPE_F32, 80,
     "axe_ptx_mma_m16n8k8_f32_bf16",
     "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 8, 2, 1},
    {AXE_DTYPE_BF16, AXE_DTYPE_BF16, AXE_DTYPE_F32, 80,
     "axe_ptx_mma_m16n8k16_f32_bf16",
     "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 0, 0, 0},
    {AXE_DTYPE_I8, AXE_DTYPE_I8, AXE_DTYPE_I32, 80,
     "axe_ptx_mma_m16n8k32_s32_s8",
     "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 0, 0, 0},
    {AXE_DTYPE_E4M3, AXE_DTYPE_E4M3, AXE_DTYPE_F32, 89,
     "axe_ptx_mma_m16n8k32_f32_e4m3",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 0, 0, 0},
    {AXE_DTYPE_E5M2, AXE_DTYPE_E5M2, AXE_DTYPE_F32, 89,
     "axe_ptx_mma_m16n8k32_f32_e5m2",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", 0, 0, 0},
    {AXE_DTYPE_E4M3, AXE_DTYPE_E5M2, AXE_DTYPE_F32, 89,
     "axe_ptx_mma_m16n8k32_f32_e4m3_e5m2",
     "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", 0, 0, 0},
    {AXE_DTYPE_E5M2, AXE_DTYPE_E4M3, AXE_DTYPE_F32, 89,
     "axe_ptx_mma_m16n8k32_f32_e5m2_e4m3",
     "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", 0, 0, 0},
    {AXE_DTYPE_F64, AXE_DTYPE_F64, AXE_DTYPE_F64, 80, "axe_ptx_mma_m8n8k4_f64",
     "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 0, 0, 0},
    /* gemm(C, A, B, tf32) only: f32 fragments rounded by cvt.rna.tf32 */
    {AXE_DTYPE_F32, AXE_DTYPE_F32, AXE_DTYPE_F32, 80,
     "axe_ptx_mma_m16n8k8_f32_tf32",
     "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 0, 0, 0},
};
#define NATOMS ((int)(sizeof atoms / sizeof atoms[0]))

/* Atom i of the table (NULL past its end). */
const axe__cuda_atom *axe__cuda_atom_at(int i)
{
    return i >= 0 && i < NATOMS ? &atoms[i] : NULL;
}

const axe__cuda_atom *axe__cuda_atom_of(const axe_program *p, const ax_stmt *s)
{
    axe_dtype a = p->tensors[s->args[1].tensor].dtype,
              b = p->tensors[s->args[2].tensor].dtype,
              c = p->tensors[s->args[0].tensor].dtype;
    int i;
    for (i = 0; i < NATOMS; i++)
        if (atoms[i].a == a && atoms[i].b == b && atoms[i].c == c &&
            (a != AXE_DTYPE_F32 || s->tf32) &&
            (atoms[i].k == 0 ||
             (s->mma != NULL && s->mma->mnk[2] == atoms[i].k)))
            return &atoms[i];
    return NULL;
}

/* Elements of dtype "d" per 32-bit register (1 for 4- and 8-byte). */
int axe__cuda_unit(axe_dtype d)
{
    int size = axe_dtype_size(d);
    return size < 4 ? 4 / size : 1;
}

/* The quad form of fragment "f" in units of "unit" elements (see the file
 * comment); false when it has none. */
bool axe__cuda_frag_form(const ax_frag *f, int unit, axe__cuda_form *out)
{
    int64_t r[32][16], c[32][16], x, n = f->shape[0] * f->shape[1];
    int l, j, e;
    if (f->nvals > 16 || f->nvals % unit != 0 || n != 32 * f->nvals)
        return false;
    for (x = 0; x < n; x++) {
        r[f->lane[x]][f->val[x]] = x / f->shape[1];
        c[f->lane[x]][f->val[x]] = x % f->shape[1];
    }
    out->unit = unit;
    out->nregs = (int)(f->nvals / unit);
    for (j = 0; j < out->nregs; j++) {
        out->r0[j] = r[0][unit * j];
        out->c0[j] = c[0][unit * j];
        for (l = 0; l < 32; l++)
            for (e = 0; e < unit; e++)
                if (r[l][unit * j + e] != out->r0[j] + l / 4 ||
                    c[l][unit * j + e] != out->c0[j] + unit * (l % 4) + e)
                    return false;
    }
    return true;
}

/* The tile address of operand "i" (1 A, 2 B) of "s" at the gemm
 * coordinates (m, n, k), without the base: the plan's digits. */
static int64_t digit_off(const ax_plan *plan, int i, const int64_t *coord)
{
    int64_t off = 0;
    int k;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].stride[i] != 0)
            off += coord[plan->loops[k].dim] / plan->loops[k].weight %
                   plan->loops[k].extent * plan->loops[k].stride[i];
    return off;
}

/* Every run of "w" addresses of operand "i" starting at a multiple of w
 * along dimension "along" (0 rows, 2 K) is contiguous and starts at a
 * multiple of w, over the whole operand (rows x K). */
static bool runs_hold(const ax_stmt *s, int i, int along, int64_t w)
{
    int rd = i == 1 ? 0 : 1;
    int64_t rows = axe__ref_len(&s->args[i], 0),
            ks = axe__ref_len(&s->args[i], 1), co[3] = {0, 0, 0}, r, k, d, o;
    if (rows % w != 0 && along == 0)
        return false;
    if (ks % w != 0 && along == 2)
        return false;
    for (r = 0; r < rows; r += along == 0 ? w : 1)
        for (k = 0; k < ks; k += along == 2 ? w : 1) {
            co[rd] = r;
            co[2] = k;
            o = digit_off(s->plan, i, co);
            if (o % w != 0)
                return false;
            for (d = 1; d < w; d++) {
                co[along == 0 ? rd : 2] = (along == 0 ? r : k) + d;
                if (digit_off(s->plan, i, co) != o + d)
                    return false;
            }
            co[rd] = r;
            co[2] = k;
        }
    return true;
}

/* The instruction choice's leaf (compiler_synth_inst.c) of operand "o"
 * that is no ldmatrix: into "out" (its vector registers per load and
 * their order; 0: per-thread element loads or no leaf), and whether it is
 * the chosen one. The choice is made once per operand. */
static bool threads_cheaper(const axe_program *p, const ax_stmt *s, int o,
                            axe__cuda_operand *out)
{
    ax_inst_choice ch;
    axe_diag d;
    int fb;
    out->vec = 0;
    if (axe__inst_choose(p, s, o, &ch, &d) != AXE_OK)
        return false;
    fb = axe__inst_thread_leaf(&ch);
    if (fb < 0)
        return false;
    out->vec = axe__inst_vec_regs((ax_inst_kind)fb);
    memcpy(out->order, ch.leaf[fb].order, sizeof out->order);
    return ch.chosen == fb;
}

/* Operand "o" without ldmatrix: the instruction choice's vector leaf
 * when it has one ("out->vec", from threads_cheaper), else per-thread
 * loads, for "reason". */
static void no_ldmatrix(axe__cuda_operand *out, const char *reason)
{
    out->why = reason;
    out->how = out->vec > 0 ? AXE_CUDA_LOAD_VEC : AXE_CUDA_LOAD_THREAD;
}

/* Whether ldmatrix can address operand "o" (its base, swizzle run and
 * fragment columns on 16-byte rows; "w" elements per row). */
static bool ldmatrix_aligned(const axe_program *p, const ax_stmt *s, int o,
                             const axe__cuda_form *f, int64_t w)
{
    const ax_ref *r = &s->args[o + 1];
    ax_base b;
    bool ok;
    int k;
    axe__plan_base(p, r, &b);
    ok = b.cst % w == 0 && axe__swizzle_run(p, r) >= w;
    for (k = 0; ok && k < b.ndyn; k++)
        ok = (axe__expr_gcd(b.dyn[k]) * b.scale[k]) % w == 0;
    for (k = 0; ok && k < f->nregs; k++)
        ok = f->c0[k] % w == 0;
    return ok;
}

/* How operand "o" (0 A, 1 B) of gemm.mma_smem "s" reaches its registers:
 * ldmatrix (with "trans") or, without it, the instruction choice's
 * per-thread vector loads or else element loads, with the reason. */
void axe__cuda_load_of(const axe_program *p, const ax_stmt *s, int o,
                       axe__cuda_operand *out)
{
    const ax_tensor *t = &p->tensors[s->args[o + 1].tensor];
    int size = axe_dtype_size(t->dtype), k;
    int64_t w = 16 / (size > 0 ? size : 1), rk, rr;
    axe__cuda_form f;
    bool ok, cheaper;
    memset(out, 0, sizeof *out);
    out->how = AXE_CUDA_LOAD_THREAD;
    if (p->opts.naive) { /* a kept gemm.mma_reg_a: mma.sync only */
        out->why = "the naive variant has no ldmatrix";
        return;
    }
    if (t->mem != AX_MEM_SHARED) {
        out->why = "in global memory";
        return;
    }
    cheaper = threads_cheaper(p, s, o, out);
    if (size > 2) {
        no_ldmatrix(out, "ldmatrix moves 16- and 8-bit elements only");
        return;
    }
    if (!axe__cuda_frag_form(&s->mma->frag[o], axe__cuda_unit(t->dtype), &f) ||
        (f.nregs != 1 && f.nregs != 2 && f.nregs != 4)) {
        no_ldmatrix(out, "the fragment is no tile of ldmatrix's");
        return;
    }
    ok = ldmatrix_aligned(p, s, o, &f, w);
    if (ok && cheaper) {
        no_ldmatrix(out, "the instruction choice takes per-thread loads "
                         "(cheaper by the bank model, or no ldmatrix row "
                         "holds on the evaluated addresses)");
        return;
    }
    rk = ok && runs_hold(s, o + 1, 2, w) ? w : 1;
    for (k = 0; ok && k < f.nregs; k++)
        ok = f.r0[k] % 8 == 0;
    rr = ok && rk < w && runs_hold(s, o + 1, 0, w) ? w : 1;
    out->how = axe__cuda_ldsm_form(size, rk, rr);
    if ((out->how == AXE_CUDA_LOAD_LDMATRIX ? rk : rr) < w) {
        no_ldmatrix(out, "its shared addresses have no aligned 16-byte rows");
        return;
    }
    out->why = out->how == AXE_CUDA_LOAD_LDMATRIX ? "16-byte rows along K"
               : o == 0                           ? "16-byte rows along M"
                                                  : "16-byte rows along N";
}

axe__cuda_load axe__cuda_ldsm_form(int size, int64_t along_k,
                                   int64_t along_rows)
{
    return size == 2 && along_rows > along_k ? AXE_CUDA_LOAD_LDMATRIX_TRANS
                                             : AXE_CUDA_LOAD_LDMATRIX;
}

static int cmp_tile(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    int i;
    for (i = 0; i < 3; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* The tiles of warp "w" of "m" (relative to its first row and column of
 * tiles, sorted by register offset) into "tl" (triples: offset, row,
 * column), its first row and column into *mi0, *ni0; their count. */
static int warp_tiles(const ax_mma *m, int64_t w, int64_t *tl, int64_t *mi0,
                      int64_t *ni0)
{
    int64_t x, n = m->tiles[0] * m->tiles[1];
    int cnt = 0;
    *mi0 = *ni0 = INT64_MAX;
    for (x = 0; x < n; x++)
        if (m->owner[x] == w) {
            *mi0 = x / m->tiles[1] < *mi0 ? x / m->tiles[1] : *mi0;
            *ni0 = x % m->tiles[1] < *ni0 ? x % m->tiles[1] : *ni0;
        }
    for (x = 0; x < n; x++)
        if (m->owner[x] == w) {
            if (cnt < AXE_CUDA_MAX_TILES) {
                tl[3 * cnt] = m->offset[2][x];
                tl[3 * cnt + 1] = x / m->tiles[1] - *mi0;
                tl[3 * cnt + 2] = x % m->tiles[1] - *ni0;
            }
            cnt++;
        }
    qsort(tl, (size_t)(cnt < AXE_CUDA_MAX_TILES ? cnt : AXE_CUDA_MAX_TILES),
          3 * sizeof(int64_t), cmp_tile);
    return cnt;
}

static int64_t scope_warps(const axe_program *p, const ax_stmt *s)
{
    return s->scope == AX_SCOPE_CTA         ? p->threads / 32
           : s->scope == AX_SCOPE_WARPGROUP ? 4
                                            : 1;
}

/* The warps' atom tiles of gemm.mma_smem "s" (see the file comment);
 * false with the reason when they are not shifts of warp 0's. */
bool axe__cuda_warp_tiles(const axe_program *p, const ax_stmt *s,
                          axe__cuda_tiles *out, const char **why)
{
    const ax_mma *m = s->mma;
    int64_t n = m->tiles[0] * m->tiles[1], x, w, other[3 * AXE_CUDA_MAX_TILES];
    int i, cnt;
    out->nwarps = scope_warps(p, s);
    if (out->nwarps > 32) {
        *why = "gemm.mma_smem over more than 32 warps";
        return false;
    }
    for (x = 0; x < n; x++)
        if (m->owner[x] < 0 || m->owner[x] >= out->nwarps) {
            *why = "an atom tile of gemm.mma_smem belongs to no warp of "
                   "its scope";
            return false;
        }
    out->n = warp_tiles(m, 0, out->tile, &out->mi0[0], &out->ni0[0]);
    if (out->n > AXE_CUDA_MAX_TILES || out->n == 0) {
        *why = out->n == 0 ? "warp 0 holds no atom tile of gemm.mma_smem"
                           : "gemm.mma_smem with more than 64 atom tiles per "
                             "warp on the cuda backend";
        return false;
    }
    for (w = 1; w < out->nwarps; w++) {
        cnt = warp_tiles(m, w, other, &out->mi0[w], &out->ni0[w]);
        for (i = 0; cnt == out->n && i < 3 * cnt; i++)
            if (other[i] != out->tile[i])
                cnt = -1;
        if (cnt != out->n) {
            *why = "the atom tiles of gemm.mma_smem's warps are not warp "
                   "0's shifted at the same registers (the cuda backend "
                   "indexes registers at compile time)";
            return false;
        }
    }
    return true;
}

/* The f32 register gemm's shuffles (compiler_emit_cuda_mma.c) find, for
 * each C register's row block and each 4-wide K block, one A register and
 * one B register (B's rows the atom's 8 columns). */
static bool f32_shuffles_hold(const ax_mma *m, const axe__cuda_form *f)
{
    int64_t kb;
    int jc, j, na, nb;
    if (f[0].unit != 1 || f[1].unit != 1 || m->frag[1].shape[0] != 8 ||
        m->frag[0].shape[1] % 4 != 0)
        return false;
    for (j = 0; j < f[1].nregs; j++)
        if (f[1].r0[j] != 0)
            return false;
    for (jc = 0; jc < f[2].nregs; jc++)
        for (kb = 0; kb < m->frag[0].shape[1]; kb += 4) {
            for (na = 0, j = 0; j < f[0].nregs; j++)
                na += f[0].r0[j] == f[2].r0[jc] && f[0].c0[j] == kb;
            for (nb = 0, j = 0; j < f[1].nregs; j++)
                nb += f[1].c0[j] == kb;
            if (na != 1 || nb != 1)
                return false;
        }
    return true;
}

/* gemm.mma_reg_a (mma_reg_b): every warp holds the A (B) atom tiles of
 * its C rows (columns) with each value at the register where warp 0
 * holds its own's (the emitter packs the fragments from compile-time
 * register indices). */
static bool reg_uniform(const ax_mma *m, const axe__cuda_tiles *tl)
{
    int o = m->reg - 1;
    const int64_t *first = o == 0 ? tl->mi0 : tl->ni0;
    int64_t w, ki, rel, v, nv = m->frag[o].nvals;
    int i;
    for (w = 1; w < tl->nwarps; w++)
        for (i = 0; i < tl->n; i++)
            for (ki = 0; ki < m->tiles[2]; ki++)
                for (v = 0; v < nv; v++) {
                    rel = tl->tile[3 * i + 1 + o];
                    if (m->regs[o][((first[w] + rel) * m->tiles[2] + ki) * nv +
                                   v] !=
                        m->regs[o]
                               [((first[0] + rel) * m->tiles[2] + ki) * nv + v])
                        return false;
                }
    return true;
}

/* What the cuda backend cannot emit of gemm "s" (NULL: nothing). */
const char *axe__cuda_mma_refusal(const axe_program *p, const ax_stmt *s)
{
    const axe__cuda_atom *a = axe__cuda_atom_of(p, s);
    axe__cuda_tiles tiles;
    axe__cuda_form f[3];
    const char *why = NULL;
    int o;
    if (p->threads % 32 != 0)
        return "a tensor-core gemm needs whole warps on the cuda backend "
               "(threads a multiple of 32)";
    if (a != NULL && a->arch > axe__backend_arch(p))
        return "gemm on e4m3/e5m2 tensor cores (mma.sync m16n8k32 "
               ".e4m3/.e5m2) needs --arch sm_89 or later";
    for (o = 0; o < 3; o++)
        if (!axe__cuda_frag_form(
                &s->mma->frag[o],
                o == 2
                    ? 2
                    : axe__cuda_unit(p->tensors[s->args[o + 1].tensor].dtype),
                &f[o]))
            return "an mma fragment is not in the PTX quad form";
    if (a == NULL && !s->mma->from_memory && !f32_shuffles_hold(s->mma, f))
        return "the f32 register gemm's fragments do not let each lane "
               "fetch its A and B values by shuffles";
    if (s->mma->from_memory && !axe__cuda_warp_tiles(p, s, &tiles, &why))
        return why;
    if (s->mma->reg != 0 && a == NULL)
        return s->mma->reg == 1
                   ? "an f32 gemm with A in registers (gemm.mma_reg_a) has "
                     "no tensor-core atom on the cuda backend without tf32 "
                     "(mma_smem reads A from memory)"
                   : "an f32 gemm with B in registers (gemm.mma_reg_b) has "
                     "no tensor-core atom on the cuda backend without tf32 "
                     "(mma_smem reads B from memory)";
    if (s->mma->reg != 0 && !reg_uniform(s->mma, &tiles))
        return s->mma->reg == 1
                   ? "the A atom tiles of gemm.mma_reg_a's warps are not at "
                     "the registers of warp 0's (the cuda backend indexes "
                     "registers at compile time)"
                   : "the B atom tiles of gemm.mma_reg_b's warps are not at "
                     "the registers of warp 0's (the cuda backend indexes "
                     "registers at compile time)";
    return NULL;
}
