/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local GEMM of a mixed-precision `device gemm` (f16 or bf16 A and B,
 * an f32 C) on tensor cores (docs/compiler.md, "The NCCL path"): the
 * kernel ax_devK_gemm_k of compiler_emit_cuda_devgemm.c's signature,
 * with the m16n8k16 atom of compiler_cuda_mma.c's table
 * (axe__cuda_atom_of: its wrapper and PTX; the CPU emulation defines it
 * from the PTX ISA). A CTA of AX_MMA_THREADS (4 warps) per 64 x 64 tile
 * of the rank's partial sums (tiles grid-strided, as the FMA kernel's),
 * each warp a 32 x 32 block of it (2 x 4 atom tiles); K in steps of 16
 * through two shared stages per operand, each laid out along the
 * operand's longer aligned runs in its shard (operand_of: along k,
 * [row][k] bit patterns, rows padded to 24 halves, 48 bytes; along M or
 * N, [k][row], rows of 72 halves, 144 bytes; either way the 8 rows of
 * an ldmatrix phase hit 8 distinct 16-byte bank groups): step s + 1's
 * tiles are issued by cp.async (16, 8 or 4 bytes along the stage's rows
 * where the shard's local layout holds such runs,
 * axe__cuda_devgemm_vec; else a load
 * and a store per element) into the other stage while step s computes,
 * one commit group per step, `cp.async.wait_group 1` and a barrier
 * before a step's fragments. Zero outside the local shapes: rows past M
 * or N are zero and never stored, and K is zero-padded to a multiple of
 * 16 (a zero product adds exactly 0). Fragments come from shared memory
 * by ldmatrix.x4 in the PTX ISA's m16n8k16 layout, .trans from a
 * [k][row] stage (axe__cuda_ldsm_form, gemm.mma_smem's choice between
 * the two): A's 16 x 16 atom tile as its four 8 x 8 matrices (rows 0-7
 * and 8-15 by k 0-7, then by k 8-15: a0..a3), B two 8-column atom tiles
 * per ldmatrix (columns 0-7 by k 0-7 and 8-15, then columns 8-15: b0,
 * b1 of each). Each element is summed in f32 by mma.sync, 16 k's at a time in
 * increasing K steps: the products are exact in f32, but the order and
 * rounding inside an mma are the hardware's, so the partial sums match
 * the reference within the bound of docs/compiler.md
 * (axe_program_tensor_tolerance), not bit for bit.
 */
#include <stdio.h>

#include "compiler_cuda.h"

bool axe__cuda_devgemm_mma(const axe_program *p, const ax_stmt *s)
{
    axe_dtype a = p->tensors[s->args[1].tensor].dtype;
    return s->op == AX_OP_GEMM && (a == AXE_DTYPE_F16 || a == AXE_DTYPE_BF16);
}

/* How operand "which" (1: A, 2: B) reaches its stage: the elements per
 * cp.async (1: a load and a store each) and whether the stage is
 * [k][row] with .trans fragments. */
typedef struct mma_operand {
    int vec;
    bool trans;
} mma_operand;

/* Operand "which"'s stage: along its rows with .trans where
 * axe__cuda_ldsm_form takes that for its runs (longer along M or N than
 * along K), else along K. */
static mma_operand operand_of(const axe_program *p, const ax_stmt *s,
                              const ax_dist_gemm *g, int which)
{
    const ax_tensor *x = axe__dist_gemm_operand(p, s, g, which);
    int rk = axe__cuda_devgemm_vec(p, s, g, which, 1),
        rr = axe__cuda_devgemm_vec(p, s, g, which, 0);
    mma_operand o = {rk, false};
    if (axe__cuda_ldsm_form(axe_dtype_size(x->dtype), rk, rr) ==
        AXE_CUDA_LOAD_LDMATRIX_TRANS)
        o.vec = rr, o.trans = true;
    return o;
}

int axe__cuda_devgemm_mma_vec(const axe_program *p, const ax_stmt *s,
                              const ax_dist_gemm *g, int which)
{
    return operand_of(p, s, g, which).vec;
}

/* Both operands' loads of the K step at k0 into stage "stage", indented
 * by "ind" (see mma_operand). */
static void put_loads(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const ax_dist_gemm *g, const mma_operand *op,
                      const char *stage, const char *ind)
{
    axe__cuda_stage st = {"AX_MMA_TK", "AX_MMA_THREADS", stage, "(uint16_t)0",
                          ind,         "AX_MMA_ROLLED ", false, 0};
    int which;
    for (which = 1; which <= 2; which++) {
        st.vec = op[which - 1].vec;
        st.k_major = op[which - 1].trans;
        axe__cuda_devgemm_load(t, p, s, g, which, &st);
    }
}

/* One K step from stage cs (see the file comment), "wrap" the atom's
 * wrapper: A's fragments and B's by ldmatrix.x4, .trans from a [k][row]
 * stage (the row and k of each lane's matrix row are put_head's ar, ak,
 * br, bk). Where "from" (a chunk's tiles from r0 rounded down to 8, see
 * put_head) a warp runs the mma of atom tile mi only where its 16 rows
 * hold a row of the chunk's [rs, r1): the rows before rs share their
 * atom tile with row rs (at most 7 of them, from a multiple of 8), so
 * they cost no mma, and a tile past r1 (the rounding's extra one) none
 * either (warp-uniform: i0, wm, mi, rs and r1 are the warp's). */
static void put_mmas(ax_text *t, const char *wrap, bool from)
{
    if (from)
        axe__text_put(t, "            AXE_UNROLL for (int mi = 0; mi < 2; "
                         "mi++) {\n"
                         "                if (i0 + wm + mi * 16 + 16 <= rs || "
                         "i0 + wm + mi * 16 >= r1)\n"
                         "                    continue; /* no row of [rs, r1) "
                         "in atom tile mi */\n");
    else
        axe__text_put(t, "            AXE_UNROLL for (int mi = 0; mi < 2; "
                         "mi++)\n");
    axe__text_put(t,
                  "                AXE_UNROLL for (int ni = 0; ni < 4; ni++)\n"
                  "                    %s(acc[mi][ni], fa[mi], fb[ni], "
                  "acc[mi][ni]);\n%s",
                  wrap, from ? "            }\n" : "");
}

static void put_step(ax_text *t, const char *wrap, const mma_operand *op,
                     bool from)
{
    axe__text_put(t,
                  "            axe_ptx_cp_async_commit();\n"
                  "            axe_ptx_cp_async_wait<1>(); /* step k1's tiles "
                  "arrived */\n"
                  "            __syncthreads();\n"
                  "            uint32_t fa[2][4], fb[4][2];\n"
                  "            AXE_UNROLL for (int mi = 0; mi < 2; mi++)\n");
    if (op[0].trans)
        axe__text_put(t, "                axe_ptx_ldmatrix_x4_trans(fa[mi], "
                         "&as[cs][ak][wm + mi * 16 + ar]);\n");
    else
        axe__text_put(t, "                axe_ptx_ldmatrix_x4(fa[mi], "
                         "&as[cs][wm + mi * 16 + ar][ak]);\n");
    axe__text_put(t, "            AXE_UNROLL for (int nj = 0; nj < 2; nj++) {\n"
                     "                uint32_t r[4];\n");
    if (op[1].trans)
        axe__text_put(t, "                axe_ptx_ldmatrix_x4_trans(r, "
                         "&bs[cs][bk][wn + nj * 16 + br]);\n");
    else
        axe__text_put(t, "                axe_ptx_ldmatrix_x4(r, "
                         "&bs[cs][wn + nj * 16 + br][bk]);\n");
    axe__text_put(
        t, "                fb[2 * nj][0] = r[0], fb[2 * nj][1] = r[1];\n"
           "                fb[2 * nj + 1][0] = r[2], fb[2 * nj + 1][1] = "
           "r[3];\n"
           "            }\n");
    put_mmas(t, wrap, from);
    axe__text_put(t, "            __syncthreads(); /* stage cs is refilled "
                     "next step */\n");
}

/* How operand "o" moves to shared memory, "rows" its rows' name (M or
 * N; --explain and the kernel's comment): "cp.async of 16 bytes" (along
 * k), "... along M" ([k][row] stage), or a load and a store per
 * element. */
static const char *load_text(mma_operand o, char rows, char *buf, size_t n)
{
    if (o.vec == 1)
        return "a load and a store per element";
    if (o.trans)
        (void)snprintf(buf, n, "cp.async of %d bytes along %c", 2 * o.vec,
                       rows);
    else
        (void)snprintf(buf, n, "cp.async of %d bytes", 2 * o.vec);
    return buf;
}

/* The fragments' instructions (--explain and the kernel's comment). */
static const char *frag_text(const mma_operand *op)
{
    return op[0].trans && op[1].trans ? "ldmatrix.x4.trans"
           : op[0].trans              ? "ldmatrix.x4.trans (A), ldmatrix.x4 (B)"
           : op[1].trans              ? "ldmatrix.x4 (A), ldmatrix.x4.trans (B)"
                                      : "ldmatrix.x4";
}

/* Each lane's ldmatrix row (see put_step): its matrix q = lane / 8 is
 * A's rows 0-7, 8-15 by k 0-7, then k 8-15, B's columns 0-7 by k 0-7,
 * k 8-15, then columns 8-15; row lane % 8 of it lies along k ([row][k]
 * stage) or along the rows ([k][row], .trans). */
static void put_lane_rows(ax_text *t, const mma_operand *op)
{
    axe__text_put(t, "    /* this lane's ldmatrix.x4 row (matrix lane / 8, "
                     "its row lane %% 8): A's matrices rows 0-7,\n     * "
                     "8-15 by k 0-7, then k 8-15; B's columns 0-7 by k 0-7, "
                     "k 8-15, then columns 8-15 */\n");
    axe__text_put(t, op[0].trans ? "    const int ar = lane / 8 %% 2 * 8, ak = "
                                   "lane %% 8 + lane / 16 * 8;\n"
                                 : "    const int ar = lane %% 16, ak = lane / "
                                   "16 * 8;\n");
    axe__text_put(t, op[1].trans ? "    const int br = lane / 16 * 8, bk = "
                                   "lane %% 8 + lane / 8 %% 2 * 8;\n"
                                 : "    const int br = lane %% 8 + lane / 16 * "
                                   "8, bk = lane / 8 %% 2 * 8;\n");
}

/* The kernel's head: its comment, signature, shared stages, each lane's
 * ldmatrix rows and the tile loop's start. Where "from" (A's tiles by
 * cp.async along M from rows [r0, r1) of a chunk) they start at a
 * multiple of 8 rows (the groups' alignment, and ldmatrix's 16-byte
 * rows: no offset into the stage can start them at r0); the rows before
 * r0 run no mma of their own (put_mmas) and are not stored. */
static void put_head(ax_text *t, const ax_stmt *s, const ax_dist_gemm *g,
                     const axe__cuda_atom *at, const mma_operand *op, bool from)
{
    static const char *const stage[] = {"[AX_GEMM_T][AX_MMA_ROW]",
                                        "[AX_MMA_TK][AX_MMA_COL]"};
    char la[64], lb[64];
    int k = s->index;
    axe__text_put(
        t,
        "\n/* device op %d (line %d%s%s): the local GEMM on tensor cores "
        "(%s),\n * partial[i, j] = A_local[i, :] . B_local[j, :], partial "
        "row-major [%lld, %lld] (K %lld,\n * zero-padded to a multiple of "
        "16), rows r0 <= i < r1: a CTA per 64 x 64 tile\n * (grid-strided), "
        "each warp a 32 x 32 block of it; K steps double-buffered (A by "
        "%s,\n * B by %s), fragments by %s. */\n"
        "static __global__ void __launch_bounds__(AX_MMA_THREADS)\n"
        "ax_dev%d_gemm_k(const uint16_t *__restrict__ a, const uint16_t "
        "*__restrict__ b, float *__restrict__ c,\n"
        "               int64_t r0, int64_t r1)\n{\n"
        "    __shared__ __align__(16) uint16_t as[2]%s, bs[2]%s;\n"
        "    const int lane = (int)threadIdx.x %% 32, warp = "
        "(int)threadIdx.x / 32;\n"
        "    const int gr = lane / 4, tq = lane %% 4;\n"
        "    const int wm = warp / 2 * 32, wn = warp %% 2 * 32;\n",
        k, s->line, axe__iter_sep(s), axe__iter(s), at->ptx, (long long)g->mloc,
        (long long)g->nloc, (long long)g->kloc,
        load_text(op[0], 'M', la, sizeof la),
        load_text(op[1], 'N', lb, sizeof lb), frag_text(op), k,
        stage[op[0].trans], stage[op[1].trans]);
    put_lane_rows(t, op);
    if (from)
        axe__text_put(t, "    const int64_t rs = r0; /* the first row stored; "
                         "A's cp.async groups of rows\n       start at "
                         "multiples of 8 */\n"
                         "    r0 -= r0 %% 8;\n");
    axe__cuda_devgemm_tiles(t, g);
    axe__text_put(t,
                  "        float acc[2][4][4] = {};\n"
                  "        int cs = 0; /* the stage step k1 computes from */\n"
                  "        {\n            const int64_t k0 = 0;\n");
}

void axe__cuda_devgemm_mma_kernel(ax_text *t, const axe_program *p,
                                  const ax_stmt *s, const ax_dist_gemm *g)
{
    const axe__cuda_atom *at = axe__cuda_atom_of(p, s);
    long long n = (long long)g->nloc, kl = (long long)g->kloc;
    mma_operand op[2] = {operand_of(p, s, g, 1), operand_of(p, s, g, 2)};
    /* a [k][row] stage loads by cp.async (its runs along the rows are
     * the longer, so at least 2 elements) */
    bool from = op[0].trans && s->chunks > 0;
    if (at == NULL) { /* the check accepts f16/bf16 A and B, f32 C only */
        t->status = AXE_ERR_UNSUPPORTED;
        return;
    }
    put_head(t, s, g, at, op, from);
    put_loads(t, p, s, g, op, "[0]", "            ");
    axe__text_put(t,
                  "        }\n"
                  "        axe_ptx_cp_async_commit(); /* step 0's group */\n"
                  "        for (int64_t k1 = 0; k1 < %lldL; k1 += AX_MMA_TK, "
                  "cs ^= 1) {\n"
                  "            if (k1 + AX_MMA_TK < %lldL) { /* step k1 + 16 "
                  "into the other stage */\n"
                  "                const int64_t k0 = k1 + AX_MMA_TK;\n",
                  kl, kl);
    put_loads(t, p, s, g, op, "[cs ^ 1]", "                ");
    axe__text_put(t, "            }\n");
    put_step(t, at->wrap, op, from);
    axe__text_put(t,
                  "        }\n"
                  "        axe_ptx_cp_async_wait<0>(); /* the last (empty) "
                  "group */\n"
                  "        AXE_UNROLL for (int mi = 0; mi < 2; mi++)\n"
                  "            AXE_UNROLL for (int ni = 0; ni < 4; ni++)\n"
                  "                AXE_UNROLL for (int e = 0; e < 4; e++) {\n"
                  "                    const int64_t i = i0 + wm + mi * 16 + "
                  "gr + e / 2 * 8;\n"
                  "                    const int64_t j = j0 + wn + ni * 8 + "
                  "2 * tq + e %% 2;\n"
                  "                    if (%si < r1 && j < %lldL)\n"
                  "                        c[i * %lldL + j] = "
                  "acc[mi][ni][e];\n"
                  "                }\n    }\n}\n",
                  from ? "i >= rs && " : "", n, n);
}

/* The tensor-core kernels' tiling (after the FMA kernels' AX_GEMM_T). */
void axe__cuda_devgemm_mma_helpers(ax_text *t)
{
    axe__text_put(t, "\n/* The tensor-core local GEMMs: AX_GEMM_T x AX_GEMM_T "
                     "tiles, 4 warps of 32 x 32, K in\n * steps of AX_MMA_TK "
                     "(the atom's K) through two shared stages of rows of "
                     "AX_MMA_ROW\n * halves ([row][k]) or AX_MMA_COL "
                     "([k][row]; padded: ldmatrix rows on distinct\n * "
                     "banks). */\n"
                     "#define AX_MMA_THREADS 128\n#define AX_MMA_TK 16\n"
                     "#define AX_MMA_ROW (AX_MMA_TK + 8)\n"
                     "#define AX_MMA_COL (AX_GEMM_T + 8)\n"
                     "/* A loop of one element per iteration stays rolled "
                     "(unrolled, ptxas spills on sm_80). */\n"
                     "#ifdef AXE_CUDA_EMULATE\n#define AX_MMA_ROLLED\n#else\n"
                     "#define AX_MMA_ROLLED _Pragma(\"unroll 1\")\n#endif\n");
}

void axe__cuda_devgemm_mma_explain(ax_text *t, const axe_program *p,
                                   const ax_stmt *s, const ax_dist_gemm *g)
{
    const axe__cuda_atom *at = axe__cuda_atom_of(p, s);
    mma_operand op[2] = {operand_of(p, s, g, 1), operand_of(p, s, g, 2)};
    double atol = 0, rtol = 0, f32_rtol = 0, f32_atol_unstated = 0;
    char la[64], lb[64];
    if (at == NULL ||
        axe_program_tensor_tolerance(p, s->args[0].tensor, &atol, &rtol) !=
            AXE_OK ||
        axe_dtype_tolerance(AXE_DTYPE_F32, &f32_atol_unstated, &f32_rtol) !=
            AXE_OK)
        return;
    axe__text_put(t,
                  "  cuda: the local GEMM on tensor cores (%s: 64 x 64 tiles "
                  "of the %lld x %lld partial sums, 4 warps of 32 x 32, K in "
                  "steps of 16 through shared memory, zero-padded to a "
                  "multiple of 16, double-buffered: A by %s, B by %s; "
                  "fragments by %s), into a device buffer; f32 sums "
                  "in the tensor cores' order, checked within %g + max(%g, "
                  "2 K eps_f32) R = %g + %.3g R of the reference (K = %lld, "
                  "R its largest |value|)\n",
                  at->ptx, (long long)g->mloc, (long long)g->nloc,
                  load_text(op[0], 'M', la, sizeof la),
                  load_text(op[1], 'N', lb, sizeof lb), frag_text(op), atol,
                  f32_rtol, atol, rtol,
                  (long long)axe__devop_tensor(p, s, 1)->gshape[1]);
}
