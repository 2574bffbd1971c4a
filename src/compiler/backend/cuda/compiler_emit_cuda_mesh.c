/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A mesh program under --target cuda (docs/compiler.md, "The NCCL path"):
 * one .cu that every rank runs, one MPI process per GPU. The kernel k_NAME
 * takes the segment to run (ax_seg: a run of statements between device
 * operators and kept loops, compiler_segments.c, compiler_emit_cuda.c)
 * and the kept loops' variables; axe_launch_NAME runs the launcher's
 * checks (axe__cuda_launch_checks: runtime extents, finite float scalars,
 * alignment; the segments' launchers leave them to it), launches segment 0,
 * runs device operator 0 with NCCL on the same stream, launches segment 1,
 * and so on, looping over a kept loop's segments and device operators.
 * Each device operator is a call into the NCCL runtime
 * compiler_nccl_rt.h with the operator's exchange plan as static data
 * (the MPI backend's, axe__emit_mpi_plans), which builds the MPI runtime's
 * schedule (compiler_mpi_rt.h, included first) and runs it with NCCL and
 * packing kernels. The main() is the MPI backend's (rank 0 scatters the
 * inputs and gathers the outputs) with a setup step: cudaSetDevice(rank %
 * devices), rank 0's ncclUniqueId broadcast with MPI, ncclCommInitRank.
 * A failure of a device operator prints the rank, the operator and the
 * reason and aborts the MPI job (the other ranks wait in a collective).
 */
#include "compiler_backend.h"
#include "compiler_cuda.h"
#include "compiler_dist.h"

static const char setup[] =
    "\n/* The communicator of the ranks (ax_nccl_init). */\n"
    "static ncclComm_t ax_nccl_comm;\n\n"
    "/* Every rank: its GPU (rank %% devices) and the NCCL communicator "
    "from rank 0's\n * unique id sent with MPI; 0, or 1 on every rank "
    "with the reason printed. */\n"
    "static int ax_nccl_init(int rank, int size)\n{\n"
    "    ncclUniqueId id;\n    ncclResult_t r = ncclSuccess;\n"
    "    int count = 0, ok, all = 0;\n"
    "    cudaError_t e = cudaGetDeviceCount(&count);\n"
    "    if (e == cudaSuccess && count < 1)\n"
    "        e = cudaErrorNoDevice;\n"
    "    if (e == cudaSuccess)\n        e = cudaSetDevice(rank %% count);\n"
    "    ok = e == cudaSuccess;\n"
    "    if (!ok)\n"
    "        fprintf(stderr, \"rank %%d: no CUDA device to run on: %%s\\n\", "
    "rank,\n                cudaGetErrorString(e));\n"
    "    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);\n"
    "    if (!all)\n        return 1;\n"
    "    memset(&id, 0, sizeof id);\n"
    "    if (rank == 0)\n        r = ncclGetUniqueId(&id);\n"
    "    ok = r == ncclSuccess;\n"
    "    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);\n"
    "    if (!ok) {\n"
    "        if (rank == 0)\n"
    "            fprintf(stderr, \"rank 0: ncclGetUniqueId: %%s\\n\", "
    "ncclGetErrorString(r));\n"
    "        return 1;\n    }\n"
    "    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);\n"
    "    r = ncclCommInitRank(&ax_nccl_comm, size, id, rank);\n"
    "    ok = r == ncclSuccess;\n"
    "    if (!ok) {\n"
    "        fprintf(stderr, \"rank %%d: ncclCommInitRank: %%s\\n\", rank, "
    "ncclGetErrorString(r));\n"
    "        ax_nccl_comm = NULL;\n    }\n"
    "    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);\n"
    "    if (!all && ax_nccl_comm != NULL) {\n"
    "        ncclCommDestroy(ax_nccl_comm);\n        ax_nccl_comm = NULL;\n"
    "    }\n    return !all;\n}\n";

/* The call of a device operator through the runtime's exchange. */
static const char devop_fn[] =
    "\n/* Device operator k (line L) on this rank's device buffers "
    "(\"copy\": "
    "a device\n * gemm's copy of A (1) or B (2) first); a failure ends the "
    "job. */\n"
    "static int ax_nccl_devop(int k, int line, int copy,\n"
    "                         const axe_mpi_plan *p, axe_nccl_sched *s,\n"
    "                         const void *src, void *dst, cudaStream_t "
    "stream)\n{\n"
    "    char err[256], tag[32];\n    int rank;\n"
    "    snprintf(tag, sizeof tag, \"%%d%%s\", k,\n"
    "             copy == 1 ? \" copy A\" : copy == 2 ? \" copy B\" : \"\");\n"
    "    if (axe_nccl_exchange(tag, p, s, src, dst, ax_nccl_comm, "
    "MPI_COMM_WORLD, stream, err,\n"
    "                          sizeof err) == 0)\n        return 0;\n"
    "    MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n"
    "    fprintf(stderr, \"rank %%d: device op %%d (line %%d)%%s: "
    "%%s\\n\", "
    "rank, k, line,\n"
    "            copy == 1   ? \" (its copy of A first)\"\n"
    "            : copy == 2 ? \" (its copy of B first)\"\n"
    "                        : \"\",\n"
    "            err);\n"
    "    MPI_Abort(MPI_COMM_WORLD, 1);\n    return 1;\n}\n";

void axe__cuda_mesh_decls(ax_text *t, const axe_program *p)
{
    int k;
    axe__text_put(t, "\n/* MPI's C API only (no C++ bindings to link). */\n"
                     "#define OMPI_SKIP_MPICXX 1\n#define MPICH_SKIP_MPICXX 1\n"
                     "#include <mpi.h>\n#include \"compiler_mpi_rt.h\"\n"
                     "#include \"compiler_nccl_rt.h\"\n");
    axe__emit_mpi_plans(t, p, "axe_nccl_sched", false);
    axe__text_put(t, setup);
    if (axe__cuda_devops_exchange(p))
        axe__text_put(t, devop_fn);
    axe__cuda_devgemm_decls(t, p);
    axe__text_put(t, "\n/* The schedules, buffers and the communicator, at "
                     "the end of main(). */\nstatic void ax_mpi_free(void)"
                     "\n{\n");
    for (k = 0; k < p->ndevops; k++)
        axe__text_put(t, "    axe_nccl_sched_free(&ax_dev%d_sched);\n", k);
    axe__cuda_devgemm_free(t, p);
    axe__text_put(t, "    if (ax_nccl_comm != NULL)\n"
                     "        ncclCommDestroy(ax_nccl_comm);\n"
                     "    ax_nccl_comm = NULL;\n}\n");
    axe__emit_mesh_timing(t, "    (void)cudaDeviceSynchronize();\n");
}

/* The tensor parameters' names, then the runtime scalars',
 * comma-separated. */
static int args(ax_text *t, const axe_program *p)
{
    int i, n = 0;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            axe__text_put(t, "%s%s", n++ ? ", " : "", p->tensors[i].cname);
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, "%ss_%s", n++ ? ", " : "", p->scalar_name[i]);
    return n;
}

/* Device operator "s" between the segments' launches, indented by
 * "in". */
static void devop_call(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const char *in)
{
    int k = s->index;
    if (s->op == AX_OP_GEMM) {
        axe__text_put(t, "%sax_rc = ax_dev%d_run(%s, %s, %s, ax_stream);\n", in,
                      k, p->tensors[s->args[1].tensor].cname,
                      p->tensors[s->args[2].tensor].cname,
                      p->tensors[s->args[0].tensor].cname);
        return;
    }
    axe__text_put(t,
                  "%sax_rc = ax_nccl_devop(%d, %d, 0, &ax_dev%d, "
                  "&ax_dev%d_sched, %s, %s, ax_stream);\n",
                  in, k, s->line, k, k, p->tensors[s->args[1].tensor].cname,
                  p->tensors[s->args[0].tensor].cname);
}

/* The launch of segment "k". */
static void launch(ax_text *t, const axe_program *p, int k)
{
    axe__text_put(t, "    ax_rc = ax_seg_launch_%s(", p->name);
    axe__text_put(t, "%s%dL", args(t, p) > 0 ? ", " : "", k);
    axe__kept_vars_put(t, p, "", ", ", "");
    axe__text_put(t, ", ax_stream);\n");
}

static const char ret_rc[] = "    if (ax_rc != 0)\n        return ax_rc;\n";

/* Device operator "s" right after a launch: run if the launch
 * succeeded. */
static void devop_launched(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe__text_put(t, "    if (ax_rc == 0)\n");
    devop_call(t, p, s, "        ");
    axe__text_put(t, "%s", ret_rc);
}

/* Device operator "s" with no launch before it since the last check
 * (ax_rc is 0 there). */
static void devop_put(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    devop_call(t, p, s, "    ");
    axe__text_put(t, "%s", ret_rc);
}

/* The launcher's checks (axe__cuda_launch_checks) where it has some. */
static void launch_checks(ax_text *t, const axe_program *p)
{
    ax_text c;
    axe__text_init(&c, p->arena);
    axe__cuda_launch_checks(&c, p);
    if (c.status != AXE_OK)
        t->status = c.status;
    else if (c.buf != NULL && c.buf[0] != '\0')
        axe__text_put(t, "    long ax_v;\n    (void)ax_v;\n%s", c.buf);
}

void axe__cuda_mesh_launcher(ax_text *t, const axe_program *p)
{
    ax_seg_driver d = {launch, devop_put, devop_launched, ret_rc};
    int i, n = 0;
    axe__text_put(t,
                  "\n/* Every segment of k_%s on \"stream\", each device "
                  "operator between them\n * (NCCL on the same stream); "
                  "the tensors are this rank's device buffers.\n * Returns "
                  "the CUDA error code of its checks (first) or a launch (a "
                  "device\n * operator's failure ends the MPI job). The "
                  "runtime scalars follow the tensors, as\n * on one device. "
                  "*/\nextern \"C\" "
                  "int axe_launch_%s(",
                  p->name, p->name);
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].param)
            axe__text_put(t, "%s%s *%s", n++ ? ", " : "",
                          axe__dtype_ctype(p->tensors[i].dtype),
                          p->tensors[i].cname);
    for (i = 0; i < p->nscalars; i++)
        axe__text_put(t, "%s%s s_%s", n++ ? ", " : "",
                      p->scalar_dtype[i] != AXE_DTYPE_I32 ? "double"
                                                          : "int32_t",
                      p->scalar_name[i]);
    axe__text_put(t, "%scudaStream_t ax_stream)\n{\n    int ax_rc = 0;\n",
                  n ? ", " : "");
    launch_checks(t, p);
    axe__kept_vars_put(t, p, "", "    long ",
                       " = 0; /* a kept device loop's */\n");
    axe__seg_driver_put(t, p, &d);
    axe__text_put(t, "    return ax_rc;\n}\n");
}

void axe__cuda_mesh_main(ax_text *t, const axe_program *p)
{
    axe__emit_mpi_main(t, p,
                       "    if (ax_nccl_init(rank, size) != 0) {\n"
                       "        free(mine);\n        MPI_Finalize();\n"
                       "        return 1;\n    }\n");
}

axe_status axe__cuda_mesh_check(const axe_program *p, axe_diag *diag)
{
    return axe__mpi_check(p, diag);
}

/* The NCCL call the plan's collective becomes when the schedule's pieces
 * allow it (one contiguous run per device, in rank order). On one device
 * a reduce is the runtime's fold and a one-rank ncclAllReduce. */
static const char *nccl_call(const ax_dist_plan *pl)
{
    if (pl->ndev == 1 && pl->reduce)
        return "ncclAllReduce";
    if (pl->kind == AX_COLL_LOCAL)
        return NULL;
    if (pl->groups == 1 && pl->kind == AX_COLL_ALLGATHER)
        return "ncclAllGather";
    if (pl->groups == 1 && pl->kind == AX_COLL_BROADCAST)
        return "ncclBroadcast";
    if (pl->groups == 1 && pl->kind == AX_COLL_ALLREDUCE)
        return "ncclAllReduce";
    if (pl->groups == 1 && pl->kind == AX_COLL_REDUCE_SCATTER)
        return "ncclReduceScatter";
    return "";
}

/* Whether plan "pl" of elements "dtype" is a float sum whose reduce
 * collective the runtime takes in its ordered form (compiler_nccl_rt.h:
 * more than one device, AXE_NCCL_UNORDERED not defined). */
static bool ordered_sum(const ax_dist_plan *pl, axe_dtype dtype)
{
    return pl->ndev > 1 && pl->reduce && pl->op == AX_RED_SUM &&
           (dtype == AXE_DTYPE_F32 || dtype == AXE_DTYPE_F64) &&
           (pl->kind == AX_COLL_ALLREDUCE ||
            pl->kind == AX_COLL_REDUCE_SCATTER);
}

void axe__cuda_plan_explain(ax_text *t, const ax_dist_plan *pl, axe_dtype dtype,
                            const char *what)
{
    const char *call = nccl_call(pl);
    if (call == NULL)
        axe__text_put(t,
                      "  cuda: %snothing crosses devices: copies by a "
                      "packing kernel, no NCCL call\n",
                      what);
    else if (call[0] != '\0' && ordered_sum(pl, dtype))
        axe__text_put(t,
                      "  cuda: %sNCCL ncclSend/ncclRecv (grouped) of the "
                      "partials' pieces, piece r to device r, a kernel sums "
                      "the P copies in slice order (exact, as --target "
                      "mpi)%s; with -DAXE_NCCL_UNORDERED, %s in NCCL's "
                      "order when each device's piece is one contiguous run "
                      "in rank order\n",
                      what,
                      pl->kind == AX_COLL_ALLREDUCE
                          ? ", then grouped ncclSend/ncclRecv of the summed "
                            "pieces to every device"
                          : "",
                      call);
    else if (call[0] == '\0')
        axe__text_put(t,
                      "  cuda: %sNCCL ncclSend/ncclRecv, one pair per peer "
                      "with data inside ncclGroupStart/ncclGroupEnd, "
                      "strided pieces packed and unpacked by kernels\n",
                      what);
    else
        axe__text_put(t,
                      "  cuda: %sNCCL %s when each device's piece is one "
                      "contiguous run in rank order (the runtime's schedule "
                      "checks it on every rank at the first call), else "
                      "grouped ncclSend/ncclRecv with packing kernels\n",
                      what, call);
}

void axe__cuda_devop_explain(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    ax_dist_plan pl;
    axe_diag d;
    if (p->ndev == 0)
        return;
    if (s->op == AX_OP_GEMM)
        axe__cuda_devgemm_explain(t, p, s);
    else if (axe__mpi_plan(p, s, &pl, &d) == AXE_OK)
        axe__cuda_plan_explain(t, &pl, p->tensors[s->args[0].tensor].dtype, "");
}
