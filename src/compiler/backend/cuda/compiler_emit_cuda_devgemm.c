/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` in a mesh program's .cu (docs/compiler.md, "The
 * NCCL path"), planned as on --target mpi (axe__dist_gemm): per device
 * operator K
 *   - ax_devK_gemm_k, the local GEMM as a tiled CUDA kernel: a CTA per
 *     64 x 64 tile of the rank's partial sums (row-major [Mloc, Nloc];
 *     tiles grid-strided), K in steps of 16 through shared memory (the
 *     shards read through their local layouts, zero beyond the local
 *     shapes): f32, f64 and i32 by FMA steps rounded as the reference
 *     rounds (compiler_emit_cuda_devgemm_fma.c, exact), f16 or bf16 A
 *     and B (an f32 C) on tensor cores (compiler_emit_cuda_devgemm_mma.c);
 *     both share the stage loader (axe__cuda_devgemm_load) and the tile
 *     loop;
 *   - ax_devK_run: the operand copied first where the plan says so (its
 *     exchange through the NCCL runtime into a device buffer), the
 *     kernel (not launched on a rank holding no partial sums:
 *     ax_devK_busy, as on --target mpi), then the device reduce of the
 *     partial sums into C through the NCCL runtime (ncclReduceScatter,
 *     ncclAllReduce, grouped ncclSend/ncclRecv, or local copies, as the
 *     schedule takes them).
 * With chunks(N) (a reduce-scatter of the partial sums) the kernel runs
 * per chunk on the rows of the partial sums that chunk sends
 * (ax_devK_rows, called by the NCCL runtime's axe_nccl_gemm_chunked,
 * which overlaps chunk i's grouped ncclSend/ncclRecv on a second stream
 * with chunk i+1's rows and sums the pieces in slice order at the end).
 * The partial and copy buffers are device memory allocated at the first
 * run and freed by ax_mpi_free. The reduce sums in the reference's order
 * (the runtime's ordered form), so results are exact in f32, f64 and i32
 * (docs/compiler.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_dist.h"

/* The vector path of axe__cuda_devgemm_load: st->vec elements per
 * cp.async along k into a [row][k] stage, or along the rows into a
 * [k][row] stage (st->k_major), zeros past the local shapes (the runs
 * never straddle them: axe__cuda_devgemm_vec). */
static void put_load_vec(ax_text *t, const axe_program *p, const ax_stmt *s,
                         const ax_dist_gemm *g, int which,
                         const axe__cuda_stage *st)
{
    const char *x = which == 1 ? "i" : "j", *sh = which == 1 ? "as" : "bs",
               *in = st->ind, *run = st->k_major ? "AX_GEMM_T" : st->tk;
    long long rows = (long long)(which == 1 ? g->mloc : g->nloc),
              kl = (long long)g->kloc;
    axe__text_put(t,
                  "%sfor (int l = (int)threadIdx.x; l < %s * AX_GEMM_T / "
                  "%d; l += %s) {\n"
                  "%s    const int %s = l / (%s / %d), %s = l %% (%s / %d) * "
                  "%d;\n"
                  "%s    const int64_t %s = %s0 + r, k = k0 + kk;\n"
                  "%s    if (%s < %lldL && k < %lldL)\n"
                  "%s        %s(&%s%s[%s][%s], &%c[",
                  in, st->tk, st->vec, st->threads, in,
                  st->k_major ? "kk" : "r", run, st->vec,
                  st->k_major ? "r" : "kk", run, st->vec, st->vec, in, x, x, in,
                  x, rows, kl, in,
                  st->vec == 8   ? "axe_ptx_cp_async_cg16"
                  : st->vec == 4 ? "axe_ptx_cp_async_ca8"
                                 : "axe_ptx_cp_async_ca4",
                  sh, st->stage, st->k_major ? "kk" : "r",
                  st->k_major ? "r" : "kk", which == 1 ? 'a' : 'b');
    axe__emit_dist_gemm_addr(t, p, s, g, which, x, "k");
    axe__text_put(t,
                  "]);\n%s    else\n"
                  "%s        for (int e = 0; e < %d; e++)\n"
                  "%s            %s%s[%s][%s + e] = %s;\n%s}\n",
                  in, in, st->vec, in, sh, st->stage, st->k_major ? "kk" : "r",
                  st->k_major ? "r" : "kk", st->zero, in);
}

void axe__cuda_devgemm_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                            const ax_dist_gemm *g, int which,
                            const axe__cuda_stage *st)
{
    const char *x = which == 1 ? "i" : "j", *sh = which == 1 ? "as" : "bs",
               *in = st->ind;
    long long rows = (long long)(which == 1 ? g->mloc : g->nloc),
              kl = (long long)g->kloc;
    if (st->vec > 1) {
        put_load_vec(t, p, s, g, which, st);
        return;
    }
    axe__text_put(t,
                  "%s%sfor (int l = (int)threadIdx.x; l < %s * AX_GEMM_T; l "
                  "+= %s) {\n"
                  "%s    const int64_t %s = %s0 + l / %s, k = k0 + l %% %s;\n"
                  "%s    %s%s[l %s %s][l %s %s] =\n"
                  "%s        %s < %lldL && k < %lldL ? %c[",
                  in, st->pragma, st->tk, st->threads, in, x, x, st->tk, st->tk,
                  in, sh, st->stage, st->k_major ? "%" : "/", st->tk,
                  st->k_major ? "/" : "%", st->tk, in, x, rows, kl,
                  which == 1 ? 'a' : 'b');
    axe__emit_dist_gemm_addr(t, p, s, g, which, x, "k");
    axe__text_put(t, "] : %s;\n%s}\n", st->zero, in);
}

void axe__cuda_devgemm_tiles(ax_text *t, const ax_dist_gemm *g)
{
    axe__text_put(t,
                  "    const int64_t tn = (%lldL + AX_GEMM_T - 1) / "
                  "AX_GEMM_T;\n"
                  "    const int64_t tiles = (r1 - r0 + AX_GEMM_T - 1) / "
                  "AX_GEMM_T * tn;\n"
                  "    for (int64_t tile = blockIdx.x; tile < tiles; tile += "
                  "gridDim.x) {\n"
                  "        const int64_t i0 = r0 + tile / tn * AX_GEMM_T, j0 = "
                  "tile %% tn * AX_GEMM_T;\n",
                  (long long)g->nloc);
}

/* The threads of device gemm "s"'s kernel (a macro of the helpers). */
static const char *threads_of(const axe_program *p, const ax_stmt *s)
{
    return axe__cuda_devgemm_mma(p, s) ? "AX_MMA_THREADS" : "AX_GEMM_THREADS";
}

/* chunks(N): the launch of rows [r0, r1) of the local GEMM (the
 * runtime's axe_nccl_rows_fn) and the chunked state of device gemm
 * "s". No busy guard: every device holds partial sums of a chunked gemm
 * (compiler_dist.h, axe__dist_gemm_idle). */
static void put_rows(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const ax_dist_gemm *g)
{
    const char *ct, *ot, *at;
    int k = s->index;
    axe__dist_gemm_types(p, s, &ct, &ot, &at);
    axe__text_put(t,
                  "\n/* device op %d: rows [r0, r1) of the local GEMM on "
                  "\"st\" (chunks(%d)) */\n"
                  "typedef struct ax_dev%d_ctx {\n    const %s *a, *b;\n"
                  "} ax_dev%d_ctx;\n"
                  "static int ax_dev%d_rows(void *ctx, int64_t r0, int64_t "
                  "r1, cudaStream_t st)\n{\n"
                  "    const ax_dev%d_ctx *x = (const ax_dev%d_ctx *)ctx;\n"
                  "    AXE_LAUNCH(ax_dev%d_gemm_k, dim3(ax_gemm_grid(r1 - r0, "
                  "%lldL)), dim3(%s), st)\n"
                  "    (x->a, x->b, ax_dev%d_part, r0, r1);\n"
                  "    return (int)cudaGetLastError();\n}\n"
                  "static axe_nccl_chunked ax_dev%d_chunked;\n",
                  k, s->chunks, k, ct, k, k, k, k, k, (long long)g->nloc,
                  threads_of(p, s), k, k);
}

/* The buffers and runner of device gemm "s" (see the file comment). */
static void put_run(ax_text *t, const axe_program *p, const ax_stmt *s,
                    const ax_dist_gemm *g)
{
    static const char *const first[] = {
        "", "A copied first, ", "B copied first, ", "A and B copied first, "};
    const ax_tensor *a = &p->tensors[s->args[1].tensor];
    const ax_tensor *c = &p->tensors[s->args[0].tensor];
    const char *ct, *ot, *at, *x[2] = {"a", "b"};
    int64_t es = axe_dtype_size(a->dtype), n = g->mloc * g->nloc;
    bool idle = axe__dist_gemm_idle(g, p->ndev);
    const char *in = idle ? "    " : "";
    int k = s->index, w;
    char mv[2][32];
    axe__dist_gemm_types(p, s, &ct, &ot, &at);
    axe__text_put(t,
                  "static %s *ax_dev%d_part; /* the partial sums (device "
                  "memory, at the first run) */\n",
                  ot, k);
    for (w = 0; w < 2; w++)
        if (g->copied & (w + 1))
            axe__text_put(t,
                          "static %s *ax_dev%d_mv%s; /* %s copied first "
                          "(device memory) */\n",
                          ct, k, x[w], axe__devop_text(p, s, w + 1));
    if (s->chunks > 0)
        put_rows(t, p, s, g);
    else
        axe__emit_dist_gemm_busy(t, p, s, g);
    axe__text_put(t,
                  "\n/* device op %d: %sthe local GEMM, the partial sums' "
                  "reduce into c; a CUDA error\n * code (a device "
                  "operator's failure ends the MPI job). */\n"
                  "static int ax_dev%d_run(const %s *a, const %s *b, %s *c, "
                  "cudaStream_t st)\n{\n"
                  "    int rc = ax_nccl_buffer((void **)&ax_dev%d_part, "
                  "%lld);\n",
                  k, first[g->copied & 3], k, ct, ct, ot, k,
                  (long long)(n * axe_dtype_size(c->dtype)));
    for (w = 0; w < 2; w++) {
        snprintf(mv[w], sizeof mv[w], "ax_dev%d_mv%s", k, x[w]);
        if (!(g->copied & (w + 1)))
            continue;
        axe__text_put(t,
                      "    if (rc == 0)\n"
                      "        rc = ax_nccl_buffer((void **)&%s, %lld);\n"
                      "    if (rc == 0)\n"
                      "        rc = ax_nccl_devop(%d, %d, %d, &ax_dev%d_cp%s, "
                      "&ax_dev%d_cp%s_sched, %s, %s, st);\n",
                      mv[w], (long long)(g->moved[w].span * es), k, s->line,
                      w + 1, k, x[w], k, x[w], x[w], mv[w]);
        x[w] = mv[w];
    }
    axe__text_put(t, "    if (rc != 0)\n        return rc;\n");
    if (s->chunks > 0) {
        axe__text_put(t,
                      "    {\n        ax_dev%d_ctx ctx = {%s, %s};\n"
                      "        rc = ax_nccl_gemm_devop(%d, %d, &ax_dev%d, "
                      "&ax_dev%d_chunked, %d, %lldL, ax_dev%d_rows, &ctx,\n"
                      "                                ax_dev%d_part, c, "
                      "st);\n    }\n    return rc;\n}\n",
                      k, x[0], x[1], k, s->line, k, k, s->chunks,
                      (long long)g->nloc, k, k);
        return;
    }
    if (idle) /* a rank holding no partial sums skips the kernel */
        axe__text_put(t, "    if (ax_dev%d_busy())\n", k);
    axe__text_put(t,
                  "%s    AXE_LAUNCH(ax_dev%d_gemm_k, dim3(ax_gemm_grid(%lldL, "
                  "%lldL)), dim3(%s), st)\n"
                  "%s    (%s, %s, ax_dev%d_part, 0, %lldL);\n"
                  "    rc = (int)cudaGetLastError();\n"
                  "    if (rc == 0)\n"
                  "        rc = ax_nccl_devop(%d, %d, 0, &ax_dev%d, "
                  "&ax_dev%d_sched, ax_dev%d_part, c, st);\n"
                  "    return rc;\n}\n",
                  in, k, (long long)g->mloc, (long long)g->nloc,
                  threads_of(p, s), in, x[0], x[1], k, (long long)g->mloc, k,
                  s->line, k, k, k);
}

/* The runner of chunked device gemms (a failure ends the job). */
static const char chunked_runner[] =
    "\n/* Device gemm k (line L) in chunks through the NCCL runtime "
    "(axe_nccl_gemm_chunked);\n * a failure ends the job. */\n"
    "static int ax_nccl_gemm_devop(int k, int line, const axe_mpi_plan *p, "
    "axe_nccl_chunked *c,\n"
    "                              int chunks, int64_t cols, "
    "axe_nccl_rows_fn fn, void *ctx,\n"
    "                              const void *part, void *dst, cudaStream_t "
    "stream)\n{\n"
    "    char err[256], tag[32];\n    int rank;\n"
    "    snprintf(tag, sizeof tag, \"%%d\", k);\n"
    "    if (axe_nccl_gemm_chunked(tag, p, c, chunks, cols, fn, ctx, part, "
    "dst, ax_nccl_comm,\n"
    "                              MPI_COMM_WORLD, stream, err, sizeof err) "
    "== 0)\n        return 0;\n"
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "    fprintf(stderr, \"rank %%d: device op %%d (line %%d): %%s\\n\", "
    "rank, k, line, err);\n"
    "    MPI_Abort(MPI_COMM_WORLD, 1);\n    return 1;\n}\n";

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

int64_t axe__cuda_devgemm_align(ax_text *t, const axe_program *p, int ti)
{
    ax_dist_gemm *g;
    int64_t w = 1, b;
    int k, which, vec;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++) {
        const ax_stmt *s = p->devops[k];
        if (s->op != AX_OP_GEMM ||
            (s->args[1].tensor != ti && s->args[2].tensor != ti))
            continue;
        if ((g = plan_of(t, p, s)) == NULL)
            break;
        for (which = 1; which <= 2; which++) {
            if (s->args[which].tensor != ti || (g->copied & which))
                continue; /* a copy first: a buffer of the launcher's */
            vec = axe__cuda_devgemm_mma(p, s)
                      ? axe__cuda_devgemm_mma_vec(p, s, g, which)
                      : axe__cuda_devgemm_vec(p, s, g, which, 0);
            b = vec * axe_dtype_size(p->tensors[ti].dtype);
            w = vec > 1 && b > w ? b : w;
        }
        free(g);
    }
    return w;
}

void axe__cuda_devgemm_decls(ax_text *t, const axe_program *p)
{
    ax_dist_gemm *g;
    int k, n = 0, nch = 0, nmma = 0;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++) {
        if (p->devops[k]->op != AX_OP_GEMM)
            continue;
        if (n++ == 0)
            axe__text_put(t, helpers);
        if (p->devops[k]->chunks > 0 && nch++ == 0)
            axe__text_put(t, chunked_runner);
        if (axe__cuda_devgemm_mma(p, p->devops[k]) && nmma++ == 0)
            axe__cuda_devgemm_mma_helpers(t);
        if ((g = plan_of(t, p, p->devops[k])) == NULL)
            return;
        if (axe__cuda_devgemm_mma(p, p->devops[k]))
            axe__cuda_devgemm_mma_kernel(t, p, p->devops[k], g);
        else
            axe__cuda_devgemm_fma_kernel(t, p, p->devops[k], g);
        put_run(t, p, p->devops[k], g);
        free(g);
    }
}

bool axe__cuda_devops_exchange(const axe_program *p)
{
    ax_dist_gemm *g;
    axe_diag d;
    bool any = false;
    int k;
    for (k = 0; k < p->ndevops && !any; k++) {
        const ax_stmt *s = p->devops[k];
        if (s->op != AX_OP_GEMM || s->chunks == 0)
            return true;
        if ((g = malloc(sizeof *g)) == NULL)
            return true; /* (the emitter reports the memory) */
        any = axe__dist_gemm(p, s, g, &d) != AXE_OK || g->copied > 0;
        free(g);
    }
    return any;
}

void axe__cuda_devgemm_free(ax_text *t, const axe_program *p)
{
    ax_dist_gemm *g;
    int k, w;
    for (k = 0; k < p->ndevops && t->status == AXE_OK; k++) {
        if (p->devops[k]->op != AX_OP_GEMM)
            continue;
        if ((g = plan_of(t, p, p->devops[k])) == NULL)
            return;
        axe__text_put(t, "    cudaFree(ax_dev%d_part), ax_dev%d_part = NULL;\n",
                      k, k);
        if (p->devops[k]->chunks > 0)
            axe__text_put(t, "    axe_nccl_chunked_free(&ax_dev%d_chunked);\n",
                          k);
        for (w = 0; w < 2; w++)
            if (g->copied & (w + 1))
                axe__text_put(
                    t,
                    "    cudaFree(ax_dev%d_mv%c), ax_dev%d_mv%c = "
                    "NULL;\n"
                    "    axe_nccl_sched_free(&ax_dev%d_cp%c_sched);\n",
                    k, "ab"[w], k, "ab"[w], k, "ab"[w]);
        free(g);
    }
}

void axe__cuda_devgemm_explain(ax_text *t, const axe_program *p,
                               const ax_stmt *s)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *pl = malloc(sizeof *pl);
    axe_diag d;
    int which;
    if (g == NULL || pl == NULL || axe__dist_gemm(p, s, g, &d) != AXE_OK) {
        free(g), free(pl);
        return;
    }
    for (which = 1; which <= 2; which++)
        if ((g->copied & which) &&
            axe__dist_gemm_copy_plan(p, s, g, which, pl, &d) == AXE_OK)
            axe__cuda_plan_explain(t, pl, axe__devop_tensor(p, s, which)->dtype,
                                   which == 1 ? "copy of A first: "
                                              : "copy of B first: ");
    if (axe__cuda_devgemm_mma(p, s))
        axe__cuda_devgemm_mma_explain(t, p, s, g);
    else
        axe__cuda_devgemm_fma_explain(t, p, s, g);
    if (s->chunks > 0)
        axe__text_put(t,
                      "  cuda: NCCL ncclSend/ncclRecv (grouped) in "
                      "chunks(%d), overlapped: per chunk its rows of the "
                      "local GEMM and its packing on the main stream, an "
                      "event, then the chunk's piece of every device's block "
                      "to that device on a second stream waiting on the "
                      "event while the next chunk computes; after the last "
                      "chunk the main stream waits and one kernel sums the "
                      "P pieces in slice order (exact, as --target mpi)\n",
                      s->chunks);
    else if (axe__mpi_plan(p, s, pl, &d) == AXE_OK)
        axe__cuda_plan_explain(t, pl, p->tensors[s->args[0].tensor].dtype, "");
    free(g), free(pl);
}
