/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local GEMM of a mixed-precision `device gemm` (f16 or bf16 A and B,
 * an f32 C) on tensor cores (docs/compiler.md, "The NCCL path"): the
 * kernel ax_devK_gemm_k of compiler_emit_cuda_devgemm.c's signature,
 * with mma.sync.aligned.m16n8k16 (the atom compiler_cuda_mma.c lists;
 * the CPU emulation defines it from the PTX ISA). A CTA of
 * AX_MMA_THREADS (4 warps) per 64 x 64 tile of the rank's partial sums
 * (tiles grid-strided, as the FMA kernel's), each warp a 32 x 32 block
 * of it (2 x 4 atom tiles); K in steps of 16 through shared memory, the
 * shards read through their local layouts as bit patterns, zero outside
 * the local shapes: rows past M or N are zero and never stored, and K is
 * zero-padded to a multiple of 16 (a zero product adds exactly 0).
 * Fragments are packed from shared memory in the PTX ISA's m16n8k16
 * layout (groupID = lane / 4, t = lane % 4; A: rows g and g + 8, k
 * 2t + {0, 1} and 2t + 8 + {0, 1}; B, stored [N, K]: column g, the same
 * k's; C: rows g and g + 8, columns 2t + {0, 1}), the lower k in the low
 * 16 bits. Each element is summed in f32 by mma.sync, 16 k's at a time
 * in increasing K steps: the products are exact in f32, but the order
 * and rounding inside an mma are the hardware's, so the partial sums
 * match the reference within the bound of docs/compiler.md
 * (axe_program_tensor_tolerance), not bit for bit.
 */
#include "compiler_cuda.h"

bool axe__cuda_devgemm_mma(const axe_program *p, const ax_stmt *s)
{
    axe_dtype a = p->tensors[s->args[1].tensor].dtype;
    return s->op == AX_OP_GEMM && (a == AXE_DTYPE_F16 || a == AXE_DTYPE_BF16);
}

/* The loads of one K step of operand "which" (1: A's rows i, 2: B's rows
 * j) into shared "as" or "bs" ([row][k], bit patterns), zero outside the
 * local shapes. */
static void put_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g, int which)
{
    const char *x = which == 1 ? "i" : "j";
    axe__text_put(t,
                  "            for (int l = (int)threadIdx.x; l < AX_MMA_TK "
                  "* AX_GEMM_T; l += AX_MMA_THREADS) {\n"
                  "                const int64_t %s = %s0 + l / AX_MMA_TK, "
                  "k = k0 + l %% AX_MMA_TK;\n"
                  "                %s[l / AX_MMA_TK][l %% AX_MMA_TK] =\n"
                  "                    %s < %lldL && k < %lldL ? %s[",
                  x, x, which == 1 ? "as" : "bs", x,
                  (long long)(which == 1 ? g->mloc : g->nloc),
                  (long long)g->kloc, which == 1 ? "a" : "b");
    axe__emit_dist_gemm_addr(t, p, s, g, which, x, "k");
    axe__text_put(t, "] : (uint16_t)0;\n            }\n");
}

/* The fragments of one K step and the warp's 2 x 4 mma.sync (see the file
 * comment), "wrap" the atom's wrapper. */
static void put_step(ax_text *t, const char *wrap)
{
    axe__text_put(
        t,
        "            __syncthreads();\n"
        "            uint32_t fa[2][4], fb[4][2];\n"
        "            for (int mi = 0; mi < 2; mi++) {\n"
        "                const int r = wm + mi * 16 + gr;\n"
        "                fa[mi][0] = AX_MMA_PACK(as[r], 2 * tq);\n"
        "                fa[mi][1] = AX_MMA_PACK(as[r + 8], 2 * tq);\n"
        "                fa[mi][2] = AX_MMA_PACK(as[r], 2 * tq + 8);\n"
        "                fa[mi][3] = AX_MMA_PACK(as[r + 8], 2 * tq + 8);\n"
        "            }\n"
        "            for (int ni = 0; ni < 4; ni++) {\n"
        "                const int r = wn + ni * 8 + gr;\n"
        "                fb[ni][0] = AX_MMA_PACK(bs[r], 2 * tq);\n"
        "                fb[ni][1] = AX_MMA_PACK(bs[r], 2 * tq + 8);\n"
        "            }\n"
        "            for (int mi = 0; mi < 2; mi++)\n"
        "                for (int ni = 0; ni < 4; ni++)\n"
        "                    %s(acc[mi][ni], fa[mi], fb[ni], acc[mi][ni]);\n"
        "            __syncthreads();\n",
        wrap);
}

void axe__cuda_devgemm_mma_kernel(ax_text *t, const axe_program *p,
                                  const ax_stmt *s, const ax_dist_gemm *g)
{
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    bool bf = a->dtype == AXE_DTYPE_BF16;
    long long m = (long long)g->mloc, n = (long long)g->nloc,
              kl = (long long)g->kloc;
    int k = s->index;
    axe__text_put(
        t,
        "\n/* device op %d (line %d%s%s): the local GEMM on tensor cores "
        "(mma.sync m16n8k16, %s A and B,\n * f32 accumulate), partial[i, j] "
        "= A_local[i, :] . B_local[j, :], partial row-major\n * [%lld, %lld] "
        "(K %lld, zero-padded to a multiple of 16), rows r0 <= i < r1: a "
        "CTA\n * per 64 x 64 tile (grid-strided), each warp a 32 x 32 block "
        "of it. */\n"
        "static __global__ void __launch_bounds__(AX_MMA_THREADS)\n"
        "ax_dev%d_gemm_k(const uint16_t *__restrict__ a, const uint16_t "
        "*__restrict__ b, float *__restrict__ c,\n"
        "               int64_t r0, int64_t r1)\n{\n"
        "    __shared__ uint16_t as[AX_GEMM_T][AX_MMA_TK + AX_MMA_PAD], "
        "bs[AX_GEMM_T][AX_MMA_TK + AX_MMA_PAD];\n"
        "    const int lane = (int)threadIdx.x %% 32, warp = "
        "(int)threadIdx.x / 32;\n"
        "    const int gr = lane / 4, tq = lane %% 4;\n"
        "    const int wm = warp / 2 * 32, wn = warp %% 2 * 32;\n"
        "    const int64_t tn = (%lldL + AX_GEMM_T - 1) / AX_GEMM_T;\n"
        "    const int64_t tiles = (r1 - r0 + AX_GEMM_T - 1) / AX_GEMM_T * "
        "tn;\n"
        "    for (int64_t tile = blockIdx.x; tile < tiles; tile += "
        "gridDim.x) {\n"
        "        const int64_t i0 = r0 + tile / tn * AX_GEMM_T, j0 = tile %% "
        "tn * AX_GEMM_T;\n"
        "        float acc[2][4][4] = {};\n"
        "        for (int64_t k0 = 0; k0 < %lldL; k0 += AX_MMA_TK) {\n",
        k, s->line, axe__iter_sep(s), axe__iter(s), bf ? "bf16" : "f16", m, n,
        kl, k, n, kl);
    put_load(t, p, s, g, 1);
    put_load(t, p, s, g, 2);
    put_step(t, bf ? "axe_ptx_mma_m16n8k16_f32_bf16"
                   : "axe_ptx_mma_m16n8k16_f32_f16");
    axe__text_put(t,
                  "        }\n"
                  "        for (int mi = 0; mi < 2; mi++)\n"
                  "            for (int ni = 0; ni < 4; ni++)\n"
                  "                for (int e = 0; e < 4; e++) {\n"
                  "                    const int64_t i = i0 + wm + mi * 16 + "
                  "gr + e / 2 * 8;\n"
                  "                    const int64_t j = j0 + wn + ni * 8 + "
                  "2 * tq + e %% 2;\n"
                  "                    if (i < r1 && j < %lldL)\n"
                  "                        c[i * %lldL + j] = "
                  "acc[mi][ni][e];\n"
                  "                }\n    }\n}\n",
                  n, n);
}

/* The tensor-core kernels' tiling (after the FMA kernels' AX_GEMM_T). */
void axe__cuda_devgemm_mma_helpers(ax_text *t)
{
    axe__text_put(
        t,
        "\n/* The tensor-core local GEMMs: AX_GEMM_T x AX_GEMM_T tiles, 4 "
        "warps of 32 x 32, K in\n * steps of AX_MMA_TK (the atom's K) "
        "through shared rows padded by AX_MMA_PAD; a\n * fragment register "
        "packs elements k and k + 1 of a row, k in the low half. */\n"
        "#define AX_MMA_THREADS 128\n#define AX_MMA_TK 16\n"
        "#define AX_MMA_PAD 8\n"
        "#define AX_MMA_PACK(row, k) ((uint32_t)(row)[k] | (uint32_t)(row)[(k) "
        "+ 1] << 16)\n");
}

void axe__cuda_devgemm_mma_explain(ax_text *t, const axe_program *p,
                                   const ax_stmt *s, const ax_dist_gemm *g)
{
    const char *d = axe_dtype_name(p->tensors[s->args[1].tensor].dtype);
    axe__text_put(t,
                  "  cuda: the local GEMM on tensor cores "
                  "(mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32: 64 x 64 "
                  "tiles of the %lld x %lld partial sums, 4 warps of 32 x 32, "
                  "K in steps of 16 through shared memory, zero-padded to a "
                  "multiple of 16), into a device buffer; f32 sums in the "
                  "tensor cores' order, checked within 2 K eps_f32 of the "
                  "reference (K = %lld)\n",
                  d, d, (long long)g->mloc, (long long)g->nloc,
                  (long long)axe__devop_tensor(p, s, 1)->gshape[1]);
}
