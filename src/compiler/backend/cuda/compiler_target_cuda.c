/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's ax_backend value (compiler_backend.h): its
 * architectures, the schedules it emits so far, what else it refuses
 * (checked after dispatch, each with its reason and place) and the
 * instructions it chooses for each operator (--explain). The code is
 * compiler_emit_cuda.c's. Invariant: every program that passes "check"
 * is emitted as CUDA that nvcc compiles for every architecture listed.
 */
#include "compiler_backend.h"
#include "compiler_copy_ldsm.h"
#include "compiler_cuda.h"

static const ax_arch archs[] = {
    {80, "sm_80"}, {86, "sm_86"}, {89, "sm_89"}, {90, "sm_90"}};

/* Per-thread plans (thread_loop, split, vector) of every operator that
 * has them, the lane butterfly of reduce.warp_shuffle, the staged
 * schedules through shared memory (reduce.smem, reduce.tree, copy.smem)
 * and the grid-scope ones (reduce.grid, gemm.split_k, with atomics), and
 * the tensor-core gemms (mma.sync; e4m3/e5m2 from sm_89, refused below
 * by "check"). */
static const ax_backend_sched schedules[] = {
    {NULL, "vector", 80},       {NULL, "thread_loop", 80},
    {NULL, "split", 80},        {"reduce", "warp_shuffle", 80},
    {"reduce", "smem", 80},     {"reduce", "tree", 80},
    {"reduce", "grid", 80},     {"copy", "smem", 80},
    {"gemm", "thread_fma", 80}, {"gemm", "split_k", 80},
    {"gemm", "mma_atom", 80},   {"gemm", "mma_smem", 80},
    {"gemm", "mma_reg_a", 80},  {"gemm", "mma_reg_b", 80},
};

static const char *const vec_types[] = {"unsigned int", "uint2", "uint4"};
static const char *const async_copies[] = {
    "axe_ptx_cp_async_ca4", "axe_ptx_cp_async_ca8", "axe_ptx_cp_async_cg16"};

#define CUDA_MAX_THREADS 1024

/* The first operator of block "s" the backend cannot emit, and why. */
static const ax_stmt *refused_op(const axe_program *p, const ax_stmt *s,
                                 const char **why)
{
    const ax_stmt *r;
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_FOR || s->kind == AX_ST_IF) {
            if ((r = refused_op(p, s->body, why)) != NULL ||
                (r = refused_op(p, s->else_body, why)) != NULL)
                return r;
            continue;
        }
        if (s->kind != AX_ST_OP || s->dead)
            continue;
        if (s->op == AX_OP_REDUCE && axe__red_is_arg(s->rkind) &&
            p->tensors[s->args[0].tensor].mem != AX_MEM_REGISTER) {
            *why = "argmax/argmin into shared or global memory is not "
                   "supported by the cuda backend yet (it keeps each "
                   "thread's best values in registers)";
            return s;
        }
        if (s->mma != NULL && (*why = axe__cuda_mma_refusal(p, s)) != NULL)
            return s;
        if (s->nmasks > 0 && p->threads % 32 != 0) {
            *why = "reduce.warp_shuffle needs whole warps on the cuda "
                   "backend (threads a multiple of 32)";
            return s;
        }
    }
    return NULL;
}

/* Before dispatch: CTA and grid kernels, with or without a mesh. */
static axe_status scope(const axe_program *p, axe_diag *diag)
{
    if (p->core)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "kernel '%s' is a core kernel (sbuf, psum): the "
                         "cuda backend has no accelerator core (--target c "
                         "runs it)",
                         p->name);
    return AXE_OK;
}

static axe_status check(const axe_program *p, axe_diag *diag)
{
    static const int64_t limit[] = {2147483647, 65535, 65535};
    const char *why = NULL;
    const ax_stmt *s = refused_op(p, p->body, &why);
    int d, arch = axe__backend_arch(p);
    if (s != NULL)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off, "%s", why);
    if (p->threads > CUDA_MAX_THREADS)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%lld threads per CTA: a CUDA block has at most %d",
                         (long long)p->threads, CUDA_MAX_THREADS);
    if (axe__cuda_shared_bytes(p) > axe__cuda_shared_limit(arch))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%lld bytes of shared memory (tensors at 16-byte "
                         "offsets): a CTA on %s has at most %lld",
                         (long long)axe__cuda_shared_bytes(p),
                         axe__backend_arch_name(&axe__backend_cuda, arch),
                         (long long)axe__cuda_shared_limit(arch));
    for (d = 0; d < 3; d++)
        if (p->grid[d] > limit[d])
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "grid dimension %d is %lld: CUDA launches at "
                             "most %lld",
                             d, (long long)p->grid[d], (long long)limit[d]);
    if (p->ndev > 0) /* one rank per GPU: the MPI backend's limits */
        AXE_TRY(axe__cuda_mesh_check(p, diag));
    AXE_TRY(axe__cuda_i4_cast_explain(p, p->body));
    AXE_TRY(axe__cuda_half2_explain(p, p->body));
    return axe__cuda_pipe_explain(p);
}

/* The end of a per-thread explain line: a copy where ldmatrix was a
 * candidate but not legal says why. */
static void end_line(ax_text *t, const ax_stmt *s)
{
    const char *why = axe__ldsm_why(s);
    if (why != NULL)
        axe__text_put(t, "; no ldmatrix: %s", why);
    axe__text_put(t, "\n");
}

/* "  cuda sm_80: ..." after the operator's chosen schedule. */
static void explain(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const char *arch =
        axe__backend_arch_name(&axe__backend_cuda, axe__backend_arch(p));
    int64_t bytes;
    int j;
    axe__text_put(t, "  cuda %s: ", arch);
    if (axe__program_has_loads(p))
        axe__text_put(t, "run-time checks of data-dependent starts "
                         "(a failure recorded for the launcher); ");
    if (s->mma != NULL) {
        axe__cuda_mma_explain(t, p, s);
        return;
    }
    if (axe__cuda_explain_collective(t, p, s))
        return;
    if (axe__cuda_async_copy(p, s)) {
        axe__cuda_explain_async(t, p, s);
        return;
    }
    if (axe__cuda_explain_ldsm(t, p, s))
        return;
    if (s->nmasks > 0) {
        axe__text_put(t, "in-thread partials, then __shfl_xor_sync "
                         "(shfl.sync.bfly) over lane masks");
        for (j = 0; j < s->nmasks; j++)
            axe__text_put(t, " %lld", (long long)s->masks[j]);
        axe__text_put(t, "\n");
        return;
    }
    if (s->plan != NULL && s->plan->vec > 1) {
        bytes = axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype,
                                     s->plan->vec);
        axe__text_put(t,
                      "%lld-byte vector loads and stores (%s: %s for "
                      "global memory)",
                      (long long)bytes,
                      bytes == 16  ? "uint4"
                      : bytes == 8 ? "uint2"
                                   : "unsigned int",
                      bytes == 16  ? "ld.global.v4.u32 / st.global.v4.u32"
                      : bytes == 8 ? "ld.global.v2.u32 / st.global.v2.u32"
                                   : "ld.global.u32 / st.global.u32");
        end_line(t, s);
        return;
    }
    axe__text_put(t, "%s",
                  s->op == AX_OP_ATOMIC_ADD
                      ? "atomicAdd (red.global.add / atom.add) per element"
                      : "per-thread loops, one element per access");
    end_line(t, s);
}

const ax_backend axe__backend_cuda = {
    .name = "cuda",
    .what = "CUDA C++ (one .cu: __global__ kernel and a C launcher)",
    .archs = archs,
    .narchs = (int)(sizeof archs / sizeof archs[0]),
    .schedules = schedules,
    .nschedules = (int)(sizeof schedules / sizeof schedules[0]),
    .reg_index = "",
    .unroll = "AXE_UNROLL",
    .vec_type = vec_types,
    .async_copy = async_copies,
    .start_error = axe__cuda_start_error,
    .access_macros = true,
    .smem_load_insts = true,
    .scope = scope,
    .check = check,
    .explain = explain,
    .devop_explain = axe__cuda_devop_explain,
    .prepare = axe__cuda_prepare,
    .emit = axe__emit_cuda,
};
