/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The state of one `axe run` (cmd_run.c) and the step that builds and
 * executes the generated C (kernel_run.c). Invariant: every path in
 * "path" that is not empty names a file this run created in "dir".
 */
#ifndef AXE_TOOLS_KERNEL_RUN_H
#define AXE_TOOLS_KERNEL_RUN_H

#include "kernel_cli.h"

/* `--arg NAME=V[,V...]`: a value list per runtime scalar; the runs zip
 * the lists (lists of one value repeat). */
#define RUN_MAX_ARGS 16
#define RUN_MAX_RUNS 16

/* What --check compares with (`--reference`, kernel_ref.c): "auto" the
 * CPU reference within its work limit, else (a GPU run) the naive
 * variant; "cpu" the reference interpreter; "gpu-naive" the naive variant
 * of the CUDA program run where the kernel runs. */
typedef enum run_ref { RUN_REF_AUTO, RUN_REF_CPU, RUN_REF_NAIVE } run_ref;

typedef struct run_args {
    const char *file;
    uint64_t seed;
    bool check, bench, json;
    /* --target, --arch (NULL: not given) and --emulate */
    const char *target, *arch;
    bool emulate;
    int ranks; /* --ranks N (0: not given): an MPI run of a mesh program */
    run_ref reference;    /* --reference (RUN_REF_AUTO: not given) */
    bool reference_given; /* whether --reference was given */
    axe_kernel_options opts;
    int nargs, nruns, nranges;
    /* `--range NAME=LO:HI`: an integer tensor's random values */
    char range_name[RUN_MAX_ARGS][AXE_KERNEL_NAME_MAX];
    int64_t range_lo[RUN_MAX_ARGS], range_hi[RUN_MAX_ARGS];
    char arg_name[RUN_MAX_ARGS][AXE_KERNEL_NAME_MAX];
    int arg_count[RUN_MAX_ARGS];
    int64_t arg_value[RUN_MAX_ARGS][RUN_MAX_RUNS];
    /* the same as a double (a float scalar's value); arg_int: whether it
     * was written as an integer (arg_value holds it then) */
    double arg_fvalue[RUN_MAX_ARGS][RUN_MAX_RUNS];
    bool arg_int[RUN_MAX_ARGS][RUN_MAX_RUNS];
} run_args;

typedef struct run_result {
    double max_abs, max_rel, seconds; /* seconds per run, 0: not measured */
    bool pass;
    int64_t bytes, flops;
    long runs;                        /* timed runs */
    const axe_race_report *races;     /* NULL: not detected */
    bool order_pass[3];               /* ascending, descending, seeded random */
    const axe_race_report *emu_races; /* the emulation's; NULL: none run */
    run_ref reference;                /* the run's: RUN_REF_CPU or _NAIVE */
} run_result;

/* How the kernel runs: the C target's program, the CUDA target's .cu
 * emulated on the CPU (C++ against compiler_cuda_emu.h), or built with
 * nvcc for a GPU. */
typedef enum run_mode {
    RUN_C,
    RUN_CUDA_EMULATED,
    RUN_CUDA_GPU,
    RUN_MPI, /* --ranks N: mpicc, mpirun -np N */
    RUN_TRN  /* --target trn-sim: $CC against the simulator */
} run_mode;

/* c->path: k.c (k.cu), k, in, out, err (the kernel's stderr), the
 * shard list (with ranks), the headers the generated code includes
 * (kernel_run.c: the emulation's two, the MPI runtime, the NCCL runtime
 * and its emulation, as the run needs), the naive variant's kref.cu and
 * kref; for trn-sim the simulator compiler_trn_sim.h. */
#define RUN_PATH_SHARDS 5
#define RUN_PATH_HEADERS 6
#define RUN_NHEADERS 6
#define RUN_PATH_KREF (RUN_PATH_HEADERS + RUN_NHEADERS)
#define RUN_NPATHS (RUN_PATH_KREF + 2)
#define RUN_TRN_ENGINES 5
extern const char *const kernel_trn_engines[RUN_TRN_ENGINES];
typedef struct run_ctx {
    char dir[64];
    char path[RUN_NPATHS][96];
    run_mode mode;
    /* --ranks N (0: one process): the mesh's devices, one rank each, for
     * RUN_MPI and for a mesh program under RUN_CUDA_EMULATED (MPI and the
     * NCCL emulation) or RUN_CUDA_GPU (MPI and NCCL) */
    int ranks;
    axe_program *p;
    /* The naive variant (axe_kernel_options.naive) of the same source and
     * options, built when some run checks against it; NULL otherwise. */
    axe_program *pref;
    run_ref reference[RUN_MAX_RUNS]; /* each run's (kernel_ref_plan) */
    /* one buffer per tensor parameter; with ranks: per device d and
     * parameter i, buffer d * nparams + i (its local buffer) */
    int n, nparams;
    void **in, **ref;
    size_t *bytes;
    int nscalars;
    int64_t scalar[RUN_MAX_ARGS]; /* this run's runtime scalar values */
    double fscalar[RUN_MAX_ARGS]; /* the same as doubles (float scalars) */
    axe_race_report *races;       /* one report per run */
    axe_race_report *emu_races;   /* the emulation's, one per run */
    axe_race_report *emu_cur;     /* where execute adds them (NULL: no) */
    bool printed;                 /* the result is on stdout */
    /* RUN_TRN: the last run's simulated cycles and, per engine of the
     * simulator (tensor, vector, scalar, dma_in, dma_out), its
     * instructions and busy cycles; trn_have: they were read */
    bool trn_have;
    long long trn_cycles, trn_engine[RUN_TRN_ENGINES][2];
} run_ctx;

/* The races of a check as the JSON member "races" (null for NULL) and
 * as text lines (kernel_races.c). */
void kernel_races_json(const axe_race_report *rep);
/* The same as the member "key" (the emulation's: "emulated_races"). */
void kernel_races_json_named(const char *key, const axe_race_report *rep);
void kernel_races_text(const axe_race_report *rep);

/* Make the private directory, write the C and build it with $CC (the
 * emulated .cu with $CXX, default c++; for a GPU with $NVCC, default
 * nvcc). */
int kernel_run_build(run_ctx *c);
/* Run the built kernel on c->in (replaced by the outputs; threads in
 * ascending order) at the scalar values c->scalar and, with "bench", time at
 * least 5 more runs (more until they take 10 ms, at most 2^22) into
 * res->seconds (per run; 0 when the clock did not advance) and res->runs. */
int kernel_run_exec(run_ctx *c, bool bench, run_result *res);
/* Run the kernel of kernel_run_exec again on the same inputs, with the
 * threads of each phase in "order" (the harness's AXE_THREAD_ORDER: 0
 * ascending, -1 descending, a positive seed: seeded random), the outputs
 * into c->in. */
int kernel_run_order(run_ctx *c, long long order);
/* Run the naive variant (c->pref, built by kernel_run_build) on the
 * inputs c->ref, replaced by its outputs; under emulation its races into
 * "races" (NULL: dropped). */
int kernel_run_naive(run_ctx *c, axe_race_report *races);

/* Tensor "t"'s seeded random values into "buf" (a --range of "a" gives
 * its integers instead), advancing the seed "s" (kernel_data.c). */
void kernel_data_fill(const run_args *a, axe_kernel_tensor t, void *buf,
                      uint64_t *s);
/* Compare "got" with the reference "want" element by element within
 * "tol" (atol, rtol: kernel_run_tolerance's), normwise; a mismatch clears
 * res->pass, the largest errors go to res->max_abs and res->max_rel. */
void kernel_data_compare(axe_kernel_tensor t, const double tol[2],
                         const void *got, const void *want, run_result *res);

/* The work limits of a run (kernel_ref.c): the CPU's (the reference
 * interpreter, the C target, the emulation), and a GPU run's checked
 * against the naive variant or not checked. */
#define RUN_MAX_WORK ((int64_t)1 << 30)
#define RUN_MAX_GPU_WORK ((int64_t)1 << 42)
/* `--reference auto|cpu|gpu-naive` into "a" (a usage error otherwise). */
int kernel_ref_parse(const char *v, run_args *a);
/* Run "r"'s reference (c->reference[r]) from its bound program's work and
 * the mode, or exit 1 past the limits; with "naive" (some run needs it)
 * the caller compiles c->pref (kernel_ref_compile). */
int kernel_ref_plan(run_ctx *c, const run_args *a, int r, bool *naive);
/* Compile the naive variant of "src" with the options of "a" (its forced
 * schedules dropped) into c->pref; its notes go to stderr. */
int kernel_ref_compile(run_ctx *c, const run_args *a, const kernel_src *src);
/* The reference outputs of run "r" into c->ref: the interpreter with its
 * race detector (races into "races"; past the detector's limits without
 * it, with a note) or the naive variant (under emulation its races into
 * "races"; on a GPU none: res->races stays NULL). */
int kernel_ref_run(run_ctx *c, int r, run_result *res, axe_race_report *races);
/* "cpu" or "gpu-naive". */
const char *kernel_ref_name(run_ref ref);

/* An MPI run (kernel_run_mpi.c). Buffer "i" of c->in as a tensor: the
 * parameter's, or for RUN_MPI its local buffer's (elems: local_elems). */
axe_kernel_tensor kernel_run_tensor(const run_ctx *c, int i);
/* The check's tolerances (atol, rtol) of buffer "i" (as kernel_run_tensor
 * numbers them): axe_program_tensor_tolerance's; false if it has none. */
bool kernel_run_tolerance(const run_ctx *c, int i, double tol[2]);
/* RUN_MPI: the logical inputs c->in (one per parameter, filled) dealt out
 * into every device's local buffers (c->in, c->ref, c->bytes replaced,
 * c->n = ranks * nparams). */
int kernel_mpi_locals(run_ctx *c);
/* with ranks: the shard list into c->path[RUN_PATH_SHARDS] (the generated
 * program's
 * --shards FILE): a line NAME DTYPE [SHAPE] ELEMS CHECKSUM per device and
 * tensor parameter, device after device. */
int kernel_mpi_shards(const run_ctx *c);
/* Whether mpicc ($MPICC) and mpirun ($MPIRUN) are there; the error
 * naming the missing one and the packages otherwise. */
int kernel_mpi_tools(void);

#endif
