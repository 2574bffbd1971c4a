/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The local GEMM of an f32, f64 or i32 `device gemm` (docs/compiler.md,
 * "The NCCL path"): the kernel ax_devK_gemm_k of
 * compiler_emit_cuda_devgemm.c's signature, a CTA of AX_GEMM_THREADS
 * threads per 64 x 64 tile of the rank's partial sums (tiles
 * grid-strided), each thread 4 x 4 elements strided by AX_GEMM_TX, K in
 * steps of AX_GEMM_TK through [k][row] shared stages. An operand whose
 * shard runs along its rows (a column-major A, a B stored [K, N]: runs
 * that axe__cuda_devgemm_vec finds along M or N) fills its stage by
 * cp.async of 16, 8 or 4 bytes along the rows (rows padded by one group;
 * A's tiles with chunks(N) start anywhere, so its groups start at the
 * multiple of the group at or before the tile's first row, ao rows
 * before it, and the compute reads row ao + i of the stage); any other
 * operand by a load and a store per element (rows padded by one element:
 * the stores of a warp, 16 k's of a row each, hit distinct banks). Zero
 * beyond the local shapes. Every element is summed in increasing k, each
 * step rounded as the reference rounds (__fadd_rn(acc, __fmul_rn(a, b)):
 * no fused multiply-add; i32 wraps), so the partial sums are the
 * reference's bits (the MPI backend's arithmetic,
 * axe__emit_dist_gemm_dot). Invariant, whichever way the stages are
 * filled: no row before r0 is computed, and the stores write rows
 * [r0, r1) only (a chunk's last tile computes its rows from r1 to the
 * tile's end too, which the store's guard drops). */
#include <stdio.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_dist.h"

int axe__cuda_devgemm_vec(const axe_program *p, const ax_stmt *s,
                          const ax_dist_gemm *g, int which, int along)
{
    const ax_tensor *x = axe__dist_gemm_operand(p, s, g, which);
    int64_t bits = 0, run = 1;
    bool inner = true;
    int k, w;
    for (k = 0; k < x->layout.noffset; k++)
        bits |= x->layout.offset[k].value;
    for (k = x->seps[1 - along]; k < x->seps[2 - along]; k++) /* the other */
        if (x->grouped.shard[k].extent > 1)
            bits |= x->grouped.shard[k].stride;
    for (k = x->seps[along + 1] - 1; k >= x->seps[along]; k--) { /* inner */
        const axe_iter *it = &x->grouped.shard[k];
        if (it->extent == 1)
            continue;
        if (inner && it->stride == run)
            run *= it->extent;
        else
            inner = false, bits |= it->stride;
    }
    bits |= run;
    for (w = (int)(16 / axe_dtype_size(x->dtype)); w > 1 && (bits & (w - 1));
         w /= 2)
        ;
    return w;
}

/* acc = acc + x * y in the dtype "dt", rounded after each operation as
 * the reference rounds (no fused multiply-add, which nvcc would contract
 * a * b + c to), i32 wrapping (acc is uint32_t). */
static void put_step(ax_text *t, axe_dtype dt, const char *acc, const char *x,
                     const char *y)
{
    if (dt == AXE_DTYPE_F32)
        axe__text_put(t, "__fadd_rn(%s, __fmul_rn(%s, %s))", acc, x, y);
    else if (dt == AXE_DTYPE_F64)
        axe__text_put(t, "__dadd_rn(%s, __dmul_rn(%s, %s))", acc, x, y);
    else
        axe__text_put(t, "%s + (uint32_t)%s * (uint32_t)%s", acc, x, y);
}

/* The cp.async of "bytes" bytes. */
static const char *async_of(int64_t bytes)
{
    return bytes == 16  ? "axe_ptx_cp_async_cg16"
           : bytes == 8 ? "axe_ptx_cp_async_ca8"
                        : "axe_ptx_cp_async_ca4";
}

/* Operand "which"'s loads of the K step at k0 by cp.async of "vec"
 * elements along its rows: AX_GEMM_TK rows of ag (A) or bg (B) groups,
 * from row i0 - ao (A) or j0 (B); zero past the local shapes (a group
 * lies inside them or outside: the runs are multiples of vec). */
static void put_load_vec(ax_text *t, const axe_program *p, const ax_stmt *s,
                         const ax_dist_gemm *g, int which, int vec)
{
    const char *x = which == 1 ? "i" : "j", *sh = which == 1 ? "as" : "bs",
               *n = which == 1 ? "ag" : "bg";
    int64_t es = axe_dtype_size(axe__dist_gemm_operand(p, s, g, which)->dtype);
    axe__text_put(t,
                  "            for (int l = (int)threadIdx.x; l < AX_GEMM_TK * "
                  "%s; l += AX_GEMM_THREADS) {\n"
                  "                const int kk = l / %s, r = l %% %s * %d;\n"
                  "                const int64_t %s = %s0%s + r, k = k0 + kk;\n"
                  "                if (%s < %lldL && k < %lldL)\n"
                  "                    %s(&%s[kk][r], &%c[",
                  n, n, n, vec, x, x, which == 1 ? " - ao" : "", x,
                  (long long)(which == 1 ? g->mloc : g->nloc),
                  (long long)g->kloc, async_of(es * vec), sh,
                  which == 1 ? 'a' : 'b');
    axe__emit_dist_gemm_addr(t, p, s, g, which, x, "k");
    axe__text_put(t,
                  "]);\n                else\n"
                  "                    for (int e = 0; e < %d; e++)\n"
                  "                        %s[kk][r + e] = 0;\n            }\n",
                  vec, sh);
}

/* Operand "which"'s loads of the K step at k0 into its stage. */
static void put_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g, int which, int vec)
{
    static const axe__cuda_stage st = {
        "AX_GEMM_TK", "AX_GEMM_THREADS", "", "0", "            ", "", true, 1};
    if (vec > 1)
        put_load_vec(t, p, s, g, which, vec);
    else
        axe__cuda_devgemm_load(t, p, s, g, which, &st);
}

/* How operand "which" moves to shared memory (the kernel's comment and
 * --explain). */
static const char *load_text(int which, int vec, int64_t es, char *buf,
                             size_t n)
{
    if (vec == 1)
        return "a load and a store per element";
    (void)snprintf(buf, n, "cp.async of %lld bytes along %c",
                   (long long)(es * vec), which == 1 ? 'M' : 'N');
    return buf;
}

/* The kernel's head: its comment, signature, stages and the groups of
 * the vector loads (ao, ag: A's; bg: B's). */
static void put_head(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g, const int *vec)
{
    const char *ct, *ot, *at;
    char la[64], lb[64];
    int64_t es = axe_dtype_size(p->tensors[s->args[1].tensor].dtype);
    axe__dist_gemm_types(p, s, &ct, &ot, &at);
    axe__text_put(
        t,
        "\n/* device op %d (line %d%s%s): the local GEMM, partial[i, j] = "
        "A_local[i, :] . B_local[j, :],\n * partial row-major [%lld, %lld] "
        "(K %lld), rows r0 <= i < r1: a CTA per tile (grid-strided), K\n * "
        "in steps through shared memory, every element summed in increasing "
        "k. */\n",
        s->index, s->line, axe__iter_sep(s), axe__iter(s), (long long)g->mloc,
        (long long)g->nloc, (long long)g->kloc);
    if (vec[0] > 1 || vec[1] > 1)
        axe__text_put(t, "/* A by %s, B by %s. */\n",
                      load_text(1, vec[0], es, la, sizeof la),
                      load_text(2, vec[1], es, lb, sizeof lb));
    axe__text_put(t,
                  "static __global__ void __launch_bounds__(AX_GEMM_THREADS)\n"
                  "ax_dev%d_gemm_k(const %s *__restrict__ a, const %s "
                  "*__restrict__ b, %s *__restrict__ c, int64_t r0,\n"
                  "               int64_t r1)\n{\n    __shared__ %s%s ",
                  s->index, ct, ct, ot,
                  vec[0] > 1 || vec[1] > 1 ? "__align__(16) " : "", at);
    if (vec[0] > 1)
        axe__text_put(t, "as[AX_GEMM_TK][AX_GEMM_T + %d], ", vec[0]);
    else
        axe__text_put(t, "as[AX_GEMM_TK][AX_GEMM_T + 1], ");
    axe__text_put(t, vec[1] > 1 ? "bs[AX_GEMM_TK][AX_GEMM_T];\n"
                                : "bs[AX_GEMM_TK][AX_GEMM_T + 1];\n");
    axe__text_put(t, "    const int tx = (int)threadIdx.x %% AX_GEMM_TX, ty = "
                     "(int)threadIdx.x / AX_GEMM_TX;\n");
    if (vec[0] > 1)
        axe__text_put(t,
                      "    /* A's groups of %d rows start at multiples of %d: "
                      "ao rows before a tile's */\n"
                      "    const int ao = (int)(r0 %% %d), ag = (ao + "
                      "AX_GEMM_T + %d) / %d;\n",
                      vec[0], vec[0], vec[0], vec[0] - 1, vec[0]);
    if (vec[1] > 1)
        axe__text_put(t, "    const int bg = AX_GEMM_T / %d;\n", vec[1]);
}

void axe__cuda_devgemm_fma_kernel(ax_text *t, const axe_program *p,
                                  const ax_stmt *s, const ax_dist_gemm *g)
{
    const ax_tensor *c = &p->tensors[s->args[0].tensor];
    const char *ct, *ot, *at;
    long long n = (long long)g->nloc, kl = (long long)g->kloc;
    int vec[2] = {axe__cuda_devgemm_vec(p, s, g, 1, 0),
                  axe__cuda_devgemm_vec(p, s, g, 2, 0)};
    axe__dist_gemm_types(p, s, &ct, &ot, &at);
    put_head(t, p, s, g, vec);
    axe__cuda_devgemm_tiles(t, g);
    axe__text_put(
        t,
        "        %s acc[AX_GEMM_R][AX_GEMM_R] = {};\n"
        "        for (int64_t k0 = 0; k0 < %lldL; k0 += AX_GEMM_TK) {\n"
        "            const int kn = %lldL - k0 < AX_GEMM_TK ? (int)(%lldL - "
        "k0) "
        ": AX_GEMM_TK;\n",
        at, kl, kl, kl);
    put_load(t, p, s, g, 1, vec[0]);
    put_load(t, p, s, g, 2, vec[1]);
    if (vec[0] > 1 || vec[1] > 1)
        axe__text_put(t, "            axe_ptx_cp_async_commit();\n"
                         "            axe_ptx_cp_async_wait<0>();\n");
    axe__text_put(t, "            __syncthreads();\n"
                     "            for (int kk = 0; kk < kn; kk++)\n"
                     "                for (int r = 0; r < AX_GEMM_R; r++)\n"
                     "                    for (int q = 0; q < AX_GEMM_R; q++)\n"
                     "                        acc[r][q] = ");
    put_step(t, c->dtype, "acc[r][q]",
             vec[0] > 1 ? "as[kk][ao + ty + r * AX_GEMM_TX]"
                        : "as[kk][ty + r * AX_GEMM_TX]",
             "bs[kk][tx + q * AX_GEMM_TX]");
    axe__text_put(t,
                  ";\n            __syncthreads();\n        }\n"
                  "        for (int r = 0; r < AX_GEMM_R; r++)\n"
                  "            for (int q = 0; q < AX_GEMM_R; q++) {\n"
                  "                const int64_t i = i0 + ty + r * AX_GEMM_TX, "
                  "j = j0 + tx + q * AX_GEMM_TX;\n"
                  "                if (i < r1 && j < %lldL)\n"
                  "                    c[i * %lldL + j] = (%s)acc[r][q];\n"
                  "            }\n    }\n}\n",
                  n, n, ot);
}

void axe__cuda_devgemm_fma_explain(ax_text *t, const axe_program *p,
                                   const ax_stmt *s, const ax_dist_gemm *g)
{
    int vec[2] = {axe__cuda_devgemm_vec(p, s, g, 1, 0),
                  axe__cuda_devgemm_vec(p, s, g, 2, 0)};
    int64_t es = axe_dtype_size(p->tensors[s->args[1].tensor].dtype);
    char la[64], lb[64];
    axe__text_put(t,
                  "  cuda: the local GEMM as a tiled CUDA kernel (64 x 64 "
                  "tiles of the %lld x %lld partial sums, K in steps of 16 "
                  "through shared memory, every element summed in "
                  "increasing k without fused multiply-adds",
                  (long long)g->mloc, (long long)g->nloc);
    if (vec[0] > 1 || vec[1] > 1)
        axe__text_put(t, "; A by %s, B by %s",
                      load_text(1, vec[0], es, la, sizeof la),
                      load_text(2, vec[1], es, lb, sizeof lb));
    axe__text_put(t, "), into a device buffer\n");
}
