/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `axe run --check` compares with (docs/cli.md, `--reference`): the
 * reference interpreter on the CPU with its race detector
 * (axe_program_reference_races), or the naive variant of the program
 * (axe_kernel_options.naive: every operator on its simplest schedule, no
 * vector loads, shuffles, tensor cores or cp.async; docs/compiler.md "The
 * naive variant") built beside the kernel and run where it runs, on the
 * same inputs. The interpreter is bounded by RUN_MAX_WORK; a GPU run past
 * it is checked against the naive variant, up to RUN_MAX_GPU_WORK.
 * Invariant: c->pref is the naive variant of c->p's source and options,
 * and is compiled only when some run's reference is RUN_REF_NAIVE.
 */
#include <string.h>

#include "kernel_run.h"

int kernel_ref_parse(const char *v, run_args *a)
{
    if (strcmp(v, "auto") == 0)
        a->reference = RUN_REF_AUTO;
    else if (strcmp(v, "cpu") == 0)
        a->reference = RUN_REF_CPU;
    else if (strcmp(v, "gpu-naive") == 0)
        a->reference = RUN_REF_NAIVE;
    else
        return cli_usage("run",
                         "--reference wants auto, cpu or gpu-naive, not "
                         "'%.40s'",
                         v);
    return CLI_EXIT_OK;
}

const char *kernel_ref_name(run_ref ref)
{
    return ref == RUN_REF_NAIVE ? "gpu-naive" : "cpu";
}

/* Run "r" refused: its work "w" is past "limit" (exit 1). */
static int too_much(const run_ctx *c, const run_args *a, int64_t w,
                    int64_t limit)
{
    if (c->mode == RUN_CUDA_GPU && a->check && a->reference == RUN_REF_CPU &&
        w <= RUN_MAX_GPU_WORK)
        return kernel_fail("run", "CAPACITY",
                           "the kernel does %lld element operations, beyond "
                           "the CPU reference's limit of %lld: --reference "
                           "gpu-naive (the default past it) checks it "
                           "against the naive variant on the GPU",
                           (long long)w, (long long)limit);
    return kernel_fail("run", "CAPACITY",
                       "the kernel does %lld element operations, beyond "
                       "axe run's limit of %lld (axe compile still "
                       "compiles it)",
                       (long long)w, (long long)limit);
}

/* The reference of a run whose bound program does "w" element
 * operations: the CPU's unless asked otherwise, or a GPU run past the
 * CPU's limit; the limit is then the GPU's, else the CPU's (which bounds
 * the C target and the emulation too). */
int kernel_ref_plan(run_ctx *c, const run_args *a, int r, bool *naive)
{
    int64_t w = axe_program_work(c->p), limit = RUN_MAX_WORK;
    bool gpu = c->mode == RUN_CUDA_GPU;
    run_ref ref = a->reference == RUN_REF_NAIVE ? RUN_REF_NAIVE : RUN_REF_CPU;
    if (gpu && a->reference == RUN_REF_AUTO && w > RUN_MAX_WORK)
        ref = RUN_REF_NAIVE;
    if (gpu && (ref == RUN_REF_NAIVE || !a->check))
        limit = RUN_MAX_GPU_WORK;
    if (w > limit)
        return too_much(c, a, w, limit);
    c->reference[r] = ref;
    if (a->check && ref == RUN_REF_NAIVE)
        *naive = true;
    return CLI_EXIT_OK;
}

int kernel_ref_compile(run_ctx *c, const run_args *a, const kernel_src *src)
{
    axe_kernel_options o = a->opts;
    int rc;
    o.nforced = 0; /* the kernel's options; its schedules are its own */
    o.naive = true;
    rc = kernel_compile(src, &o, &c->pref);
    if (rc != CLI_EXIT_OK) {
        c->pref = NULL;
        return kernel_fail("run", "RUN",
                           "the naive variant (the GPU reference) does not "
                           "compile (above): --reference cpu checks against "
                           "the CPU");
    }
    return CLI_EXIT_OK;
}

/* The interpreter on c->ref with race detection (a race fails the
 * check); past the detector's limits without it, with a note. */
static int interpret(run_ctx *c, run_result *res, axe_race_report *races)
{
    bool mesh = c->ranks > 0;
    axe_diag d;
    axe_status st;
    st = mesh ? axe_program_reference_mesh_races(c->p, c->ref, races, &d)
              : axe_program_reference_races(c->p, c->ref, races, &d);
    if (st == AXE_ERR_CAPACITY) {
        fprintf(stderr, "axe: run: note: races not detected: %s\n", d.message);
        st = mesh ? axe_program_reference_mesh(c->p, c->ref, &d)
                  : axe_program_reference(c->p, c->ref, &d);
    } else if (st == AXE_OK) {
        res->races = races;
        res->pass = races->count == 0;
    }
    if (st != AXE_OK)
        return kernel_fail("run", axe_status_name(st), "reference failed: %s",
                           d.message);
    return CLI_EXIT_OK;
}

int kernel_ref_run(run_ctx *c, int r, run_result *res, axe_race_report *races)
{
    bool emu = c->mode == RUN_CUDA_EMULATED;
    int rc;
    res->reference = c->reference[r];
    if (c->reference[r] != RUN_REF_NAIVE)
        return interpret(c, res, races);
    rc = kernel_run_naive(c, emu ? races : NULL);
    if (rc == CLI_EXIT_OK && emu) {
        res->races = races; /* the emulated naive variant's */
        res->pass = races->count == 0;
    }
    return rc;
}
