/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI backend's ax_backend value (compiler_backend.h): a program with
 * a device mesh as C that every MPI rank runs (compiler_emit_mpi.c): the
 * C backend's code for the local operators on the rank's shards and, for
 * each device operator, a call into the runtime compiler_mpi_rt.h with
 * the operator's exchange plan. It has every schedule of the C backend;
 * its check refuses a program without a mesh and device operators the
 * planner or the runtime cannot run (a plan of more digits than the
 * runtime's AX_MPI_MAX_DIGITS), with the reason. Runtime scalars pass
 * through: every rank's harness reads them.
 */
#include <limits.h>
#include <stdlib.h>

#include "compiler_backend.h"
#include "compiler_mpi.h"

axe_status axe__mpi_plan(const axe_program *p, const ax_stmt *s,
                         ax_dist_plan *out, axe_diag *diag)
{
    const ax_tensor *dst = axe__devop_tensor(p, s, 0);
    const ax_tensor *src = axe__devop_tensor(p, s, 1);
    if (s->op == AX_OP_GEMM) {
        ax_dist_gemm *g = malloc(sizeof *g);
        axe_status st;
        if (g == NULL)
            return axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
        st = axe__dist_gemm(p, s, g, diag);
        if (st == AXE_OK)
            st = axe__dist_plan_reduce(g->part.gshape, 3, &g->part.glayout,
                                       &dst->glayout, 0, AX_RED_SUM, p->ndev,
                                       out, diag);
        free(g);
        return st;
    }
    if (s->op == AX_OP_REDUCE)
        return axe__dist_plan_reduce(src->gshape, src->ndim, &src->glayout,
                                     &dst->glayout, s->rdim, s->rkind, p->ndev,
                                     out, diag);
    return axe__dist_plan_copy(src->gshape, src->ndim, &src->glayout,
                               &dst->glayout, p->ndev, out, diag);
}

/* Bytes of one device's local buffers of every tensor parameter: what
 * the harness reads and MPI scatters (an int). */
static int64_t local_bytes(const axe_program *p)
{
    int64_t n = 0;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            n += p->tensors[i].span * axe_dtype_size(p->tensors[i].dtype);
    return n;
}

/* A device gemm's copies of operands first: the runtime runs their
 * plans. */
static axe_status copy_check(const axe_program *p, const ax_stmt *s,
                             axe_diag *diag)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *pl = malloc(sizeof *pl);
    axe_status st = AXE_OK;
    int which;
    if (g == NULL || pl == NULL)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    else
        st = axe__dist_gemm(p, s, g, diag);
    for (which = 1; which <= 2 && st == AXE_OK; which++) {
        if (!(g->copied & which))
            continue;
        st = axe__dist_gemm_copy_plan(p, s, g, which, pl, diag);
        if (st == AXE_OK && pl->ndigits > AX_MPI_MAX_DIGITS)
            st = axe__fail(diag, AXE_ERR_CAPACITY, s->off,
                           "device gemm (line %d): the copy of '%s' first "
                           "has %d digits, beyond the mpi runtime's %d",
                           s->line, axe__devop_text(p, s, which),
                           (int)pl->ndigits, AX_MPI_MAX_DIGITS);
    }
    free(g);
    free(pl);
    return st;
}

/* chunks(N) launches every device's local GEMM (no busy guard): a
 * device holding no partial sums would compute into a buffer the
 * reduce-scatter never reads. Not expected after the reduce-scatter
 * check (compiler_dist.h, axe__dist_gemm_idle), kept as its guard. */
static axe_status chunks_check(const axe_program *p, const ax_stmt *s,
                               axe_diag *diag)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_status st;
    if (g == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    st = axe__dist_gemm(p, s, g, diag);
    if (st == AXE_OK && axe__dist_gemm_idle(g, p->ndev))
        st = axe__fail(diag, AXE_ERR_UNSUPPORTED, s->chunks_off,
                       "device gemm (line %d): chunks(%d) runs the local "
                       "GEMM on every device, but some hold no partial "
                       "sums (drop chunks)",
                       s->line, s->chunks);
    free(g);
    return st;
}

static axe_status devop_check(const axe_program *p, const ax_stmt *s,
                              axe_diag *diag)
{
    ax_dist_plan plan;
    axe_dtype d = axe__devop_dtype(p, s); /* the dtype combined */
    axe_status st = axe__mpi_plan(p, s, &plan, diag);
    if (st != AXE_OK) {
        if (diag != NULL && diag->offset < 0)
            diag->offset = s->off; /* the planner's reason, at the operator */
        return st;
    }
    if (s->op == AX_OP_GEMM)
        AXE_TRY(copy_check(p, s, diag));
    if (s->chunks > 0 && p->ndev > 1 &&
        (plan.kind != AX_COLL_REDUCE_SCATTER || plan.groups != 1))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->chunks_off,
                         "device gemm (line %d): chunks(%d) overlaps the "
                         "local GEMM with a reduce-scatter of its partial "
                         "sums over all %lld devices, but C's layout makes "
                         "it %s%s (drop chunks)",
                         s->line, s->chunks, (long long)p->ndev,
                         axe__dist_kind_name((ax_coll)plan.kind),
                         plan.groups > 1 ? " in groups" : "");
    if (s->chunks > 0)
        AXE_TRY(chunks_check(p, s, diag));
    if (plan.ndigits > AX_MPI_MAX_DIGITS)
        return axe__fail(diag, AXE_ERR_CAPACITY, s->off,
                         "device %s (line %d): its exchange plan has %d "
                         "digits, beyond the mpi runtime's %d (layouts "
                         "whose iters split the coordinates at fewer "
                         "places need fewer)",
                         axe__op_name(s->op), s->line, (int)plan.ndigits,
                         AX_MPI_MAX_DIGITS);
    if (s->op != AX_OP_COPY && d != AXE_DTYPE_F32 && d != AXE_DTYPE_F64 &&
        d != AXE_DTYPE_I32)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "device %s of %s: the mpi backend combines "
                         "f32, f64 and i32 only",
                         axe__op_name(s->op), axe_dtype_name(d));
    return AXE_OK;
}

/* Before dispatch: a mesh program of CTA and grid kernels. */
static axe_status mpi_scope(const axe_program *p, axe_diag *diag)
{
    if (p->core)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "kernel '%s' is a core kernel (sbuf, psum): the mpi "
                         "backend has no accelerator core",
                         p->name);
    if (p->ndev == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "kernel '%s' declares no mesh: the mpi target runs "
                         "a program with a device mesh (`mesh(P);`) on P "
                         "ranks (--target c runs one device)",
                         p->name);
    return AXE_OK;
}

axe_status axe__mpi_check(const axe_program *p, axe_diag *diag)
{
    int k;
    if (local_bytes(p) > INT_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "kernel '%s': %lld bytes of local buffers per "
                         "device, beyond the mpi harness's %d",
                         p->name, (long long)local_bytes(p), INT_MAX);
    for (k = 0; k < p->ndevops; k++)
        AXE_TRY(devop_check(p, p->devops[k], diag));
    return AXE_OK;
}

const ax_backend axe__backend_mpi = {
    .name = "mpi",
    .what = "C99 for every rank of an MPI run of a device mesh (mpicc)",
    .archs = NULL,
    .narchs = 0,
    .schedules = NULL,
    .nschedules = 0,
    .reg_index = "[ax_tid]",
    .vec_type = NULL,
    .scope = mpi_scope,
    .check = axe__mpi_check,
    .explain = NULL,
    .emit = axe__emit_mpi,
};
