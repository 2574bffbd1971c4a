/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` in a mesh program's .cu (docs/compiler.md, "The
 * NCCL path"), planned as on --target mpi (axe__dist_gemm): per device
 * operator K
 *   - ax_devK_gemm_k, the local GEMM as a tiled CUDA kernel: a CTA of
 *     AX_GEMM_THREADS threads per 64 x 64 tile of the rank's partial sums
 *     (row-major [Mloc, Nloc]; tiles grid-strided), K in steps of 16
 *     through shared memory (the shards read through their local
 *     layouts, zero beyond the local shapes), each thread 4 x 4 elements;
 *     every element summed in increasing k, each step rounded as the
 *     reference rounds (__fadd_rn(acc, __fmul_rn(a, b)): no fused
 *     multiply-add; i32 wraps), so the partial sums are the reference's
 *     bits (the MPI backend's arithmetic, axe__emit_dist_gemm_dot);
 *   - ax_devK_run: the operand copied first where the plan says so (its
 *     exchange through the NCCL runtime into a device buffer), the
 *     kernel, then the device reduce of the partial sums into C through
 *     the NCCL runtime (ncclReduceScatter, ncclAllReduce, grouped
 *     ncclSend/ncclRecv, or local copies, as the schedule takes them).
 * The partial and copy buffers are device memory allocated at the first
 * run and freed by ax_mpi_free. chunks(N) runs unchunked here (--explain
 * says so). The reduce sums in the reference's order (the runtime's
 * ordered form), so results are exact in f32, f64 and i32
 * (docs/compiler.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_dist.h"

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

/* The loads of one K step of operand "which" (1: A's rows i, 2: B's rows
 * j) into shared "sh", zero outside the local shapes. */
static void put_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g, int which)
{
    const char *x = which == 1 ? "i" : "j";
    axe__text_put(t,
                  "            for (int l = (int)threadIdx.x; l < AX_GEMM_TK "
                  "* AX_GEMM_T; l += AX_GEMM_THREADS) {\n"
                  "                const int64_t %s = %s0 + l / AX_GEMM_TK, "
                  "k = k0 + l %% AX_GEMM_TK;\n"
                  "                %s[l %% AX_GEMM_TK][l / AX_GEMM_TK] =\n"
                  "                    %s < %lldL && k < %lldL ? %s[",
                  x, x, which == 1 ? "as" : "bs", x,
                  (long long)(which == 1 ? g->mloc : g->nloc),
                  (long long)g->kloc, which == 1 ? "a" : "b");
    axe__emit_dist_gemm_addr(t, p, s, g, which, x, "k");
    axe__text_put(t, "] : 0;\n            }\n");
}

/* The kernel of device gemm "s" (see the file comment). */
static void put_kernel(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const ax_dist_gemm *g)
{
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    const char *ct = axe__dtype_ctype(a->dtype);
    const char *at = a->dtype == AXE_DTYPE_I32 ? "uint32_t" : ct;
    long long m = (long long)g->mloc, n = (long long)g->nloc,
              kl = (long long)g->kloc;
    int k = s->index;
    axe__text_put(
        t,
        "\n/* device op %d (line %d): the local GEMM, partial[i, j] = "
        "A_local[i, :] . B_local[j, :],\n * partial row-major [%lld, %lld] "
        "(K %lld): a CTA per tile (grid-strided), K in steps\n * through "
        "shared memory, every element summed in increasing k. */\n"
        "static __global__ void __launch_bounds__(AX_GEMM_THREADS)\n"
        "ax_dev%d_gemm_k(const %s *__restrict__ a, const %s *__restrict__ "
        "b, %s *__restrict__ c)\n{\n"
        "    __shared__ %s as[AX_GEMM_TK][AX_GEMM_T + 1], "
        "bs[AX_GEMM_TK][AX_GEMM_T + 1];\n"
        "    const int tx = (int)threadIdx.x %% AX_GEMM_TX, ty = "
        "(int)threadIdx.x / AX_GEMM_TX;\n"
        "    const int64_t tn = (%lldL + AX_GEMM_T - 1) / AX_GEMM_T;\n"
        "    const int64_t tiles = (%lldL + AX_GEMM_T - 1) / AX_GEMM_T * tn;\n"
        "    for (int64_t tile = blockIdx.x; tile < tiles; tile += "
        "gridDim.x) {\n"
        "        const int64_t i0 = tile / tn * AX_GEMM_T, j0 = tile %% tn * "
        "AX_GEMM_T;\n"
        "        %s acc[AX_GEMM_R][AX_GEMM_R] = {};\n"
        "        for (int64_t k0 = 0; k0 < %lldL; k0 += AX_GEMM_TK) {\n"
        "            const int kn = %lldL - k0 < AX_GEMM_TK ? (int)(%lldL - "
        "k0) "
        ": AX_GEMM_TK;\n",
        k, s->line, m, n, kl, k, ct, ct, ct, at, n, m, at, kl, kl, kl);
    put_load(t, p, s, g, 1);
    put_load(t, p, s, g, 2);
    axe__text_put(t, "            __syncthreads();\n"
                     "            for (int kk = 0; kk < kn; kk++)\n"
                     "                for (int r = 0; r < AX_GEMM_R; r++)\n"
                     "                    for (int q = 0; q < AX_GEMM_R; q++)\n"
                     "                        acc[r][q] = ");
    put_step(t, a->dtype, "acc[r][q]", "as[kk][ty + r * AX_GEMM_TX]",
             "bs[kk][tx + q * AX_GEMM_TX]");
    axe__text_put(t,
                  ";\n            __syncthreads();\n        }\n"
                  "        for (int r = 0; r < AX_GEMM_R; r++)\n"
                  "            for (int q = 0; q < AX_GEMM_R; q++) {\n"
                  "                const int64_t i = i0 + ty + r * AX_GEMM_TX, "
                  "j = j0 + tx + q * AX_GEMM_TX;\n"
                  "                if (i < %lldL && j < %lldL)\n"
                  "                    c[i * %lldL + j] = (%s)acc[r][q];\n"
                  "            }\n    }\n}\n",
                  m, n, n, ct);
}

/* The buffers and runner of device gemm "s" (see the file comment). */
static void put_run(ax_text *t, const axe_program *p, const ax_stmt *s,
                    const ax_dist_gemm *g)
{
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    const char *ct = axe__dtype_ctype(a->dtype);
    int64_t es = axe_dtype_size(a->dtype), n = g->mloc * g->nloc;
    int k = s->index;
    char mv[32];
    axe__text_put(t,
                  "static %s *ax_dev%d_part; /* the partial sums (device "
                  "memory, at the first run) */\n",
                  ct, k);
    if (g->copied > 0)
        axe__text_put(t,
                      "static %s *ax_dev%d_mv; /* %s copied first (device "
                      "memory) */\n",
                      ct, k, axe__devop_text(p, s, g->copied));
    axe__text_put(t,
                  "\n/* device op %d: %sthe local GEMM, the partial sums' "
                  "reduce into c; a CUDA error\n * code (a device "
                  "operator's failure ends the MPI job). */\n"
                  "static int ax_dev%d_run(const %s *a, const %s *b, %s *c, "
                  "cudaStream_t st)\n{\n"
                  "    int rc = ax_nccl_buffer((void **)&ax_dev%d_part, "
                  "%lld);\n",
                  k,
                  g->copied == 1   ? "A copied first, "
                  : g->copied == 2 ? "B copied first, "
                                   : "",
                  k, ct, ct, ct, k, (long long)(n * es));
    if (g->copied > 0)
        axe__text_put(t,
                      "    if (rc == 0)\n"
                      "        rc = ax_nccl_buffer((void **)&ax_dev%d_mv, "
                      "%lld);\n"
                      "    if (rc == 0)\n"
                      "        rc = ax_nccl_devop(%d, %d, 1, &ax_dev%d_cp, "
                      "&ax_dev%d_cp_sched, %s, ax_dev%d_mv, st);\n",
                      k, (long long)(g->moved.span * es), k, s->line, k, k,
                      g->copied == 1 ? "a" : "b", k);
    snprintf(mv, sizeof mv, "ax_dev%d_mv", k);
    axe__text_put(t,
                  "    if (rc != 0)\n        return rc;\n"
                  "    AXE_LAUNCH(ax_dev%d_gemm_k, dim3(ax_gemm_grid(%lldL, "
                  "%lldL)), dim3(AX_GEMM_THREADS), st)\n"
                  "    (%s, %s, ax_dev%d_part);\n"
                  "    rc = (int)cudaGetLastError();\n"
                  "    if (rc == 0)\n"
                  "        rc = ax_nccl_devop(%d, %d, 0, &ax_dev%d, "
                  "&ax_dev%d_sched, ax_dev%d_part, c, st);\n"
                  "    return rc;\n}\n",
                  k, (long long)g->mloc, (long long)g->nloc,
                  g->copied == 1 ? mv : "a", g->copied == 2 ? mv : "b", k, k,
                  s->line, k, k, k);
}

/* The helpers every device gemm's runner calls. */
static const char helpers[] =
    "\n/* *p: \"bytes\" of device memory, allocated at the first call "
    "(ax_mpi_free frees\n * it); a CUDA error code. */\n"
    "static int ax_nccl_buffer(void **p, size_t bytes)\n{\n"
    "    cudaError_t e = cudaSuccess;\n"
    "    if (*p == NULL && (e = cudaMalloc(p, bytes)) != cudaSuccess)\n"
    "        *p = NULL;\n"
    "    return (int)e;\n}\n\n"
    "/* The local GEMM kernels' tiling: AX_GEMM_T x AX_GEMM_T tiles of the "
    "partial sums, K in\n * steps of AX_GEMM_TK, AX_GEMM_TX x AX_GEMM_TX "
    "threads of AX_GEMM_R x AX_GEMM_R\n * elements each (strided by "
    "AX_GEMM_TX). */\n"
    "#define AX_GEMM_T 64\n#define AX_GEMM_TK 16\n#define AX_GEMM_TX 16\n"
    "#define AX_GEMM_R (AX_GEMM_T / AX_GEMM_TX)\n"
    "#define AX_GEMM_THREADS (AX_GEMM_TX * AX_GEMM_TX)\n\n"
    "/* The CTAs of a local GEMM of m x n partial sums: one per tile, at "
    "most 65535. */\n"
    "static unsigned ax_gemm_grid(int64_t m, int64_t n)\n{\n"
    "    int64_t g = (m + AX_GEMM_T - 1) / AX_GEMM_T * ((n + AX_GEMM_T - 1) "
    "/ AX_GEMM_T);\n"
    "    return (unsigned)(g < 1 ? 1 : g < 65535 ? g : 65535);\n}\n";

/* Device op "s"'s plan "g", or NULL (with t's status set: the check
 * refused it). The caller frees it. */
static ax_dist_gemm *plan_of(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_diag d;
    if (g == NULL || axe__dist_gemm(p, s, g, &d) != AXE_OK) {
        t->status = g == NULL ? AXE_ERR_NO_MEMORY : AXE_ERR_UNSUPPORTED;
        free(g);
        return NULL;
    }
    return g;
}

void axe__cuda_devgemm_decls(ax_text *t, const axe_program *p)
{
    ax_dist_gemm *g;
    int k, n = 0;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++) {
        if (p->devops[k]->op != AX_OP_GEMM)
            continue;
        if (n++ == 0)
            axe__text_put(t, helpers);
        if ((g = plan_of(t, p, p->devops[k])) == NULL)
            return;
        put_kernel(t, p, p->devops[k], g);
        put_run(t, p, p->devops[k], g);
        free(g);
    }
}

void axe__cuda_devgemm_free(ax_text *t, const axe_program *p)
{
    ax_dist_gemm *g;
    int k;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++) {
        if (p->devops[k]->op != AX_OP_GEMM)
            continue;
        if ((g = plan_of(t, p, p->devops[k])) == NULL)
            return;
        axe__text_put(t, "    cudaFree(ax_dev%d_part), ax_dev%d_part = NULL;\n",
                      k, k);
        if (g->copied > 0)
            axe__text_put(t,
                          "    cudaFree(ax_dev%d_mv), ax_dev%d_mv = NULL;\n"
                          "    axe_nccl_sched_free(&ax_dev%d_cp_sched);\n",
                          k, k, k);
        free(g);
    }
}

void axe__cuda_devgemm_explain(ax_text *t, const axe_program *p,
                               const ax_stmt *s)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *pl = malloc(sizeof *pl);
    const ax_tensor *x;
    axe_diag d;
    if (g == NULL || pl == NULL || axe__dist_gemm(p, s, g, &d) != AXE_OK) {
        free(g), free(pl);
        return;
    }
    if (g->copied > 0) {
        x = axe__devop_tensor(p, s, g->copied);
        if (axe__dist_plan_copy(x->gshape, 2, &x->glayout, &g->moved.glayout,
                                p->ndev, pl, &d) == AXE_OK)
            axe__cuda_plan_explain(t, pl, x->dtype, "copy first: ");
    }
    axe__text_put(t,
                  "  cuda: the local GEMM as a tiled CUDA kernel (64 x 64 "
                  "tiles of the %lld x %lld partial sums, K in steps of 16 "
                  "through shared memory, every element summed in "
                  "increasing k without fused multiply-adds), into a device "
                  "buffer\n",
                  (long long)g->mloc, (long long)g->nloc);
    if (axe__mpi_plan(p, s, pl, &d) == AXE_OK)
        axe__cuda_plan_explain(t, pl, p->tensors[s->args[0].tensor].dtype, "");
    if (s->chunks > 0)
        axe__text_put(t,
                      "  cuda: chunks(%d): not overlapped on this target: "
                      "the local GEMM runs whole, then the partial sums "
                      "reduce once (--target mpi overlaps the chunks)\n",
                      s->chunks);
    free(g), free(pl);
}
