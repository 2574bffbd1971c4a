/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` in a mesh program's .cu (docs/compiler.md, "The
 * NCCL path"), planned as on --target mpi (axe__dist_gemm): per device
 * operator K
 *   - ax_devK_gemm_k, the local GEMM as a CUDA kernel: one thread per
 *     element [i, j] of the rank's partial sums (row-major [Mloc, Nloc]),
 *     each the dot product of its local rows of A and B in increasing k
 *     (the reference's order within a slice of K; the MPI backend's
 *     arithmetic, axe__emit_dist_gemm_dot: i32 wraps), the shards read
 *     through their local layouts;
 *   - ax_devK_run: the operand copied first where the plan says so (its
 *     exchange through the NCCL runtime into a device buffer), the
 *     kernel, then the device reduce of the partial sums into C through
 *     the NCCL runtime (ncclReduceScatter, ncclAllReduce, grouped
 *     ncclSend/ncclRecv, or local copies, as the schedule takes them).
 * The partial and copy buffers are device memory allocated at the first
 * run and freed by ax_mpi_free. chunks(N) runs unchunked here (--explain
 * says so): the partial sums reduce in NCCL's order, not the
 * reference's, so f32 results match within the check's tolerance and
 * i32 exactly (docs/compiler.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_dist.h"

/* The kernel of device gemm "s" (see the file comment). */
static void put_kernel(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const ax_dist_gemm *g)
{
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    const char *ct = axe__dtype_ctype(a->dtype);
    int k = s->index;
    axe__text_put(t,
                  "\n/* device op %d (line %d): the local GEMM, partial[i, "
                  "j] = A_local[i, :] . B_local[j, :]\n * (k in increasing "
                  "order), partial row-major [%lld, %lld]; one thread per "
                  "element. */\n"
                  "static __global__ void ax_dev%d_gemm_k(const %s "
                  "*__restrict__ a, const %s *__restrict__ b,\n"
                  "                                    %s *__restrict__ c)\n"
                  "{\n"
                  "    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + "
                  "threadIdx.x; e < %lldL;\n"
                  "         e += (int64_t)gridDim.x * blockDim.x) {\n"
                  "        const int64_t i = e / %lldL, j = e %% %lldL;\n"
                  "        int64_t k;\n"
                  "        %s acc = 0;\n"
                  "        (void)i, (void)j;\n",
                  k, s->line, (long long)g->mloc, (long long)g->nloc, k, ct, ct,
                  ct, (long long)(g->mloc * g->nloc), (long long)g->nloc,
                  (long long)g->nloc,
                  a->dtype == AXE_DTYPE_I32 ? "uint32_t" : ct);
    axe__emit_dist_gemm_dot(t, p, s, g, "        ");
    axe__text_put(t, "        c[e] = (%s)acc;\n    }\n}\n", ct);
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
                      ct, k, p->tensors[s->args[g->copied].tensor].name);
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
                  "    AXE_LAUNCH(ax_dev%d_gemm_k, dim3(ax_nccl_grid(%lld)), "
                  "dim3(AXE_NCCL_THREADS), st)\n"
                  "    (%s, %s, ax_dev%d_part);\n"
                  "    rc = (int)cudaGetLastError();\n"
                  "    if (rc == 0)\n"
                  "        rc = ax_nccl_devop(%d, %d, 0, &ax_dev%d, "
                  "&ax_dev%d_sched, ax_dev%d_part, c, st);\n"
                  "    return rc;\n}\n",
                  k, (long long)n, g->copied == 1 ? mv : "a",
                  g->copied == 2 ? mv : "b", k, k, s->line, k, k, k);
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
    "/* The blocks of a kernel of one thread per element of n (at most "
    "65535). */\n"
    "static unsigned ax_nccl_grid(int64_t n)\n{\n"
    "    int64_t g = (n + AXE_NCCL_THREADS - 1) / AXE_NCCL_THREADS;\n"
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
        x = &p->tensors[s->args[g->copied].tensor];
        if (axe__dist_plan_copy(x->gshape, 2, &x->glayout, &g->moved.glayout,
                                p->ndev, pl, &d) == AXE_OK)
            axe__cuda_plan_explain(t, pl, x->dtype, "copy first: ");
    }
    axe__text_put(t,
                  "  cuda: the local GEMM as a CUDA kernel, one thread per "
                  "element of the %lld x %lld partial sums (k in increasing "
                  "order), into a device buffer\n",
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
