/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe run FILE.axe [-D NAME=VALUE]... [--schedule OP=NAME]... [--seed N]
 * [--check] [--bench] [--json]`: compile the kernel through the C backend,
 * build it with the system C compiler ($CC, default cc), fill every tensor
 * parameter with seeded random data, run it, and with --check run the
 * kernel twice more with the threads of each phase in descending and in
 * seeded random order, run the reference interpreter with its race
 * detector (axe_program_reference_races: the operators' logical
 * semantics; a race fails the check) and compare every element of every
 * parameter of each of the three runs with it within
 * axe_dtype_tolerance: integers exactly; f32 within 1e-6 + 1e-5 R, f64
 * within 1e-12 + 1e-12 R, f16 within 5e-3 + 5e-3 R, bf16 within 4e-2 +
 * 4e-2 R, e4m3 within 0.125 + 0.125 R, e5m2 within 0.25 + 0.25 R, where
 * R is the largest finite |ref| of that tensor (normwise);
 * a NaN matches only a NaN and an infinity only the same infinity. Exit 0
 * when the check passes (or is not asked for), 1 when it fails or the program
 * is wrong, 2 for usage and syntax errors. `--target cuda --emulate` runs
 * the CUDA backend's .cu on the CPU instead (kernel_run.c: the same
 * inputs, orders and comparison; the emulation's races fail the check
 * too); `--target cuda` alone runs it on a GPU, or without one prints
 * "skipped": "no GPU" and exits 77. `--reference` chooses what --check
 * compares with (kernel_ref.c): the CPU reference above, or the naive
 * variant of the CUDA program (built beside it, run on the same inputs),
 * which a GPU run past the CPU reference's work limit uses.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel_run.h"

static const char usage[] =
    "usage: axe run FILE.axe [-D NAME=VALUE]... [--arg NAME=V[,V...]]... "
    "[--schedule OP=NAME]... [--seed N] [--check] [--bench] [--json]\n"
    "       [--target c|cuda|trn-sim [--emulate] [--arch ARCH]] "
    "[--reference auto|cpu|gpu-naive] [--ranks N]\n"
    "Compile a kernel to C, build it with $CC (default cc), run it on "
    "seeded random data.\n"
    "  --arg NAME=V  the value of runtime scalar NAME (`M: i32`, or a finite\n"
    "            number for `eps: f32`, f64, f16, bf16) at launch;\n"
    "            V1,V2,... runs the one build once per value (lists zip)\n"
    "  --range NAME=LO:HI  random values of integer tensor NAME in [LO, HI]\n"
    "  --schedule OP=NAME  force schedule NAME for every OP operator;\n"
    "            OP#N=NAME for operator N only (N as in 'schedules: N:OP=..')\n"
    "  --trn KEY=VALUE  a field of the accelerator model (docs/compiler.md)\n"
    "  --check   compare every output element with the reference semantics\n"
    "  --bench   time 5 or more runs (until 10 ms) and report seconds per\n"
    "            run and bytes/s\n"
    "  --json    one JSON object on one line instead of text\n"
    "  --target cuda --emulate [--arch ARCH]  run the CUDA backend's .cu on\n"
    "            the CPU (C++ by $CXX, default c++, against the emulation)\n"
    "  --target cuda  run it on a GPU (nvcc); without one: skipped, exit 77\n"
    "  --target trn-sim  a core kernel's engine instructions on the\n"
    "            accelerator simulator ($CC); adds the simulated cycles\n"
    "  --reference R  what --check compares with: cpu (the reference\n"
    "            interpreter), gpu-naive (the naive variant of the CUDA\n"
    "            program, every operator on its simplest schedule, run\n"
    "            where the kernel runs), auto (the default: cpu, but a GPU\n"
    "            run past the CPU's work limit of 2^30 uses gpu-naive)\n"
    "  --ranks N  a program with a device mesh of N devices: --target mpi,\n"
    "            built with $MPICC (mpicc), run by $MPIRUN (mpirun) -np N;\n"
    "            --bench: wall-clock, the slowest rank's seconds per run\n";

/* One value of --arg "k": an integer, or a finite number (strtod; for
 * a float scalar, match_args checks which the scalar needs). */
static axe_status parse_value(const char *v, size_t len, run_args *a, int k,
                              axe_diag *d)
{
    int j = a->arg_count[k];
    char buf[64], *end;
    double x;
    a->arg_int[k][j] = cli_parse_int(v, len, &a->arg_value[k][j], d) == AXE_OK;
    if (a->arg_int[k][j]) {
        a->arg_fvalue[k][j] = (double)a->arg_value[k][j];
        return AXE_OK;
    }
    if (len == 0 || len >= sizeof buf)
        return AXE_ERR_SYNTAX;
    memcpy(buf, v, len);
    buf[len] = '\0';
    x = strtod(buf, &end);
    if (*end != '\0' || isspace((unsigned char)buf[0]) || !(x - x == 0))
        return AXE_ERR_SYNTAX;
    a->arg_fvalue[k][j] = x;
    return AXE_OK;
}

/* `--arg NAME=V[,V...]`: one value list; the runs zip the lists. */
static int parse_arg(const char *arg, run_args *a)
{
    const char *eq = strchr(arg, '='), *v;
    int k = a->nargs, i;
    if (eq == NULL || eq == arg || (size_t)(eq - arg) >= sizeof a->arg_name[0])
        return cli_usage("run", "--arg wants NAME=VALUE, not '%.40s'", arg);
    if (k == RUN_MAX_ARGS)
        return cli_usage("run", "more than %d --arg options", RUN_MAX_ARGS);
    memcpy(a->arg_name[k], arg, (size_t)(eq - arg));
    a->arg_name[k][eq - arg] = '\0';
    for (i = 0; i < k; i++)
        if (strcmp(a->arg_name[i], a->arg_name[k]) == 0)
            return cli_usage("run", "--arg %s is given twice", a->arg_name[k]);
    for (v = eq + 1;; v++) {
        const char *end = strchr(v, ',');
        size_t len = end != NULL ? (size_t)(end - v) : strlen(v);
        axe_diag d;
        if (a->arg_count[k] == RUN_MAX_RUNS)
            return cli_usage("run", "--arg %s: more than %d values",
                             a->arg_name[k], RUN_MAX_RUNS);
        if (parse_value(v, len, a, k, &d) != AXE_OK)
            return cli_usage("run",
                             "--arg %s: '%.*s' is not an integer (nor a "
                             "finite number for a float scalar)",
                             a->arg_name[k], (int)(len < 40 ? len : 40), v);
        a->arg_count[k]++;
        if (end == NULL)
            break;
        v = end;
    }
    a->nargs++;
    return CLI_EXIT_OK;
}

/* `--range NAME=LO:HI` (LO <= HI; the dtype is checked against the
 * kernel later). */
static int parse_range(const char *arg, run_args *a)
{
    const char *eq = strchr(arg, '='), *colon;
    int k = a->nranges, i;
    axe_diag d;
    if (eq == NULL || eq == arg ||
        (size_t)(eq - arg) >= sizeof a->range_name[0] ||
        (colon = strchr(eq + 1, ':')) == NULL)
        return cli_usage("run", "--range wants NAME=LO:HI, not '%.40s'", arg);
    if (k == RUN_MAX_ARGS)
        return cli_usage("run", "more than %d --range options", RUN_MAX_ARGS);
    memcpy(a->range_name[k], arg, (size_t)(eq - arg));
    a->range_name[k][eq - arg] = '\0';
    for (i = 0; i < k; i++)
        if (strcmp(a->range_name[i], a->range_name[k]) == 0)
            return cli_usage("run", "--range %s is given twice",
                             a->range_name[k]);
    if (cli_parse_int(eq + 1, (size_t)(colon - eq - 1), &a->range_lo[k], &d) !=
            AXE_OK ||
        cli_parse_int(colon + 1, strlen(colon + 1), &a->range_hi[k], &d) !=
            AXE_OK ||
        a->range_lo[k] > a->range_hi[k])
        return cli_usage("run",
                         "--range %s: '%.40s' is not LO:HI with LO <= "
                         "HI",
                         a->range_name[k], eq + 1);
    a->nranges++;
    return CLI_EXIT_OK;
}

/* The number of runs: the longest list; every other has 1 value or as
 * many. */
static int count_runs(run_args *a)
{
    int i;
    a->nruns = 1;
    for (i = 0; i < a->nargs; i++)
        if (a->arg_count[i] > 1 && a->nruns > 1 && a->arg_count[i] != a->nruns)
            return cli_usage("run",
                             "--arg lists of %d and %d values: lists "
                             "of several values must be equally long",
                             a->nruns, a->arg_count[i]);
        else if (a->arg_count[i] > 1)
            a->nruns = a->arg_count[i];
    return CLI_EXIT_OK;
}

/* --target, --arch and --emulate into the options (the library checks
 * the target and architecture). */
static int set_target(run_args *a)
{
    axe_diag d;
    bool cuda = a->target != NULL && strcmp(a->target, "cuda") == 0;
    if (a->emulate && !cuda)
        return cli_usage("run", "--emulate runs the CUDA target on the CPU: "
                                "it needs --target cuda");
    if (a->reference == RUN_REF_NAIVE && !cuda)
        return cli_usage("run", "--reference gpu-naive runs the naive "
                                "variant of the CUDA program: it needs "
                                "--target cuda");
    if (a->reference_given && !a->check)
        return cli_usage("run", "--reference chooses what --check compares "
                                "with: it needs --check");
    if (a->ranks > 0 && a->target != NULL && strcmp(a->target, "mpi") != 0 &&
        !cuda)
        return cli_usage("run",
                         "--ranks runs the mpi or the cuda target, not %.20s",
                         a->target);
    if (a->ranks > 0 && !cuda)
        a->target = "mpi";
    if (a->ranks == 0 && a->target != NULL && strcmp(a->target, "mpi") == 0)
        return cli_usage("run", "--target mpi runs on --ranks N ranks");
    if (a->target == NULL && a->arch == NULL)
        return CLI_EXIT_OK;
    if (axe_kernel_options_target(&a->opts, a->target != NULL ? a->target : "c",
                                  a->arch, &d) != AXE_OK)
        return cli_usage("run", "%s", d.message);
    return CLI_EXIT_OK;
}

static int parse_args(int argc, char **argv, run_args *a)
{
    int i, r;
    memset(a, 0, sizeof *a);
    a->seed = 1;
    axe_kernel_options_init(&a->opts);
    for (i = 1; i < argc; i++) {
        r = kernel_opt_parse("run", argc, argv, &i, &a->opts);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--check") == 0)
            a->check = true;
        else if (strcmp(argv[i], "--bench") == 0)
            a->bench = true;
        else if (strcmp(argv[i], "--json") == 0)
            a->json = true;
        else if (strcmp(argv[i], "--emulate") == 0)
            a->emulate = true;
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
            a->target = argv[++i];
        else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
            a->arch = argv[++i];
        else if (strcmp(argv[i], "--reference") == 0 && i + 1 < argc) {
            if (kernel_ref_parse(argv[++i], a) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
            a->reference_given = true;
        } else if (strcmp(argv[i], "--ranks") == 0 && i + 1 < argc) {
            int64_t v;
            axe_diag d;
            i++;
            if (cli_parse_int(argv[i], strlen(argv[i]), &v, &d) != AXE_OK ||
                v < 1 || v > 1024)
                return cli_usage("run", "--ranks wants a number of ranks "
                                        "in [1, 1024]");
            a->ranks = (int)v;
        } else if (strcmp(argv[i], "--arg") == 0 && i + 1 < argc) {
            if (parse_arg(argv[++i], a) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--range") == 0 && i + 1 < argc) {
            if (parse_range(argv[++i], a) != CLI_EXIT_OK)
                return CLI_EXIT_USAGE;
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            int64_t v;
            axe_diag d;
            i++;
            if (cli_parse_int(argv[i], strlen(argv[i]), &v, &d) != AXE_OK ||
                v < 0)
                return cli_usage("run", "--seed wants a non-negative "
                                        "integer");
            a->seed = (uint64_t)v;
        } else if (argv[i][0] == '-' || a->file != NULL)
            return cli_usage("run", "unexpected argument '%.40s'", argv[i]);
        else
            a->file = argv[i];
    }
    if (a->file == NULL)
        return cli_usage("run", "no FILE.axe given");
    r = set_target(a);
    return r == CLI_EXIT_OK ? count_runs(a) : r;
}

/* The --arg values in the program's scalar order, for run "r": exit 1
 * for an --arg the kernel does not declare or a scalar without one. */
static int match_args(const axe_program *p, const run_args *a, int r,
                      int64_t *out, double *fout)
{
    int i, j, k, n = axe_program_scalar_count(p);
    for (k = 0; k < a->nargs; k++) {
        for (i = 0; i < n; i++)
            if (strcmp(axe_program_scalar(p, i).name, a->arg_name[k]) == 0)
                break;
        if (i == n) {
            return kernel_fail("run", "INVALID",
                               "--arg %s: the kernel has no runtime scalar "
                               "'%s'",
                               a->arg_name[k], a->arg_name[k]);
        }
        j = a->arg_count[k] > 1 ? r : 0;
        out[i] = a->arg_value[k][j];
        fout[i] = a->arg_fvalue[k][j];
        if (!a->arg_int[k][j] &&
            axe_program_scalar(p, i).dtype == AXE_DTYPE_I32)
            return kernel_fail("run", "INVALID",
                               "--arg %s: %g is not an integer ('%s' is an "
                               "i32 scalar)",
                               a->arg_name[k], fout[i], a->arg_name[k]);
    }
    for (i = 0; i < n; i++) {
        for (k = 0; k < a->nargs; k++)
            if (strcmp(axe_program_scalar(p, i).name, a->arg_name[k]) == 0)
                break;
        if (k == a->nargs) {
            return kernel_fail("run", "INVALID",
                               "runtime scalar '%s' has no value: give it "
                               "with --arg %s=VALUE",
                               axe_program_scalar(p, i).name,
                               axe_program_scalar(p, i).name);
        }
    }
    return CLI_EXIT_OK;
}

/* Each --range names an i32, i8 or i4 tensor parameter and fits its
 * dtype (exit 1 otherwise). */
static int check_ranges(const axe_program *p, const run_args *a)
{
    int k, i, n = axe_program_tensor_count(p);
    for (k = 0; k < a->nranges; k++) {
        axe_kernel_tensor t;
        int64_t lim;
        for (i = 0; i < n; i++)
            if (strcmp(axe_program_tensor(p, i).name, a->range_name[k]) == 0)
                break;
        t = axe_program_tensor(p, i < n ? i : 0);
        lim = t.dtype == AXE_DTYPE_I4   ? 8
              : t.dtype == AXE_DTYPE_I8 ? 128
                                        : (int64_t)1 << 31;
        if (i == n ||
            (t.dtype != AXE_DTYPE_I32 && t.dtype != AXE_DTYPE_I8 &&
             t.dtype != AXE_DTYPE_I4) ||
            a->range_lo[k] < -lim || a->range_hi[k] > lim - 1) {
            fprintf(stderr, "axe: run: --range %s: %s\n", a->range_name[k],
                    i == n ? "the kernel has no such tensor parameter"
                           : "it needs an i32, i8 or i4 tensor and values "
                             "of its dtype");
            return CLI_EXIT_FAIL;
        }
    }
    return CLI_EXIT_OK;
}

static void free_buffers(run_ctx *c)
{
    int i;
    for (i = 0; c->in != NULL && i < c->n; i++) {
        free(c->in[i]);
        free(c->ref[i]);
    }
    free(c->in);
    free(c->ref);
    free(c->bytes);
    c->in = c->ref = NULL;
    c->bytes = NULL;
}

static int setup(run_ctx *c, const run_args *a)
{
    uint64_t s = a->seed;
    int i;
    free_buffers(c);
    c->n = axe_program_tensor_count(c->p);
    c->in = calloc((size_t)c->n + 1, sizeof(void *));
    c->ref = calloc((size_t)c->n + 1, sizeof(void *));
    c->bytes = calloc((size_t)c->n + 1, sizeof(size_t));
    if (c->in == NULL || c->ref == NULL || c->bytes == NULL)
        return CLI_EXIT_FAIL;
    for (i = 0; i < c->n; i++) {
        axe_kernel_tensor t = axe_program_tensor(c->p, i);
        c->bytes[i] = (size_t)axe_dtype_storage(t.dtype, t.elems);
        c->in[i] = malloc(c->bytes[i] > 0 ? c->bytes[i] : 1);
        c->ref[i] = malloc(c->bytes[i] > 0 ? c->bytes[i] : 1);
        if (c->in[i] == NULL || c->ref[i] == NULL)
            return CLI_EXIT_FAIL;
        kernel_data_fill(a, t, c->in[i], &s);
        memcpy(c->ref[i], c->in[i], c->bytes[i]);
    }
    c->nparams = c->n;
    return c->ranks > 0 ? kernel_mpi_locals(c) : CLI_EXIT_OK;
}

static void cleanup(run_ctx *c)
{
    int i;
    for (i = 0; i < RUN_NPATHS; i++)
        if (c->path[i][0] != '\0')
            (void)unlink(c->path[i]);
    if (c->dir[0] != '\0')
        (void)rmdir(c->dir);
    free_buffers(c);
    free(c->races);
    free(c->emu_races);
    axe_program_free(c->pref);
    c->pref = NULL;
}

static const char *const mode_names[] = {"c", "cuda-emulated", "cuda", "mpi",
                                         "trn-sim"};

/* The schedules of "p": the members of a JSON object (a repeated
 * operator keyed op#INDEX), or " 0:copy=vector ..." as text. */
static void print_schedules(const axe_program *p, bool json)
{
    int i, k;
    const char *op, *sched;
    for (i = 0; (sched = axe_program_schedule(p, i, &op)) != NULL; i++) {
        int dup = 0;
        for (k = 0; k < i; k++) {
            const char *o2;
            (void)axe_program_schedule(p, k, &o2);
            dup += strcmp(o2, op) == 0;
        }
        if (json && dup)
            printf("%s\"%s#%d\":\"%s\"", i ? "," : "", op, i, sched);
        else if (json)
            printf("%s\"%s\":\"%s\"", i ? "," : "", op, sched);
        else
            printf(" %d:%s=%s", i, op, sched);
    }
}

static void print_result(const run_ctx *c, const run_args *a)
{
    printf(a->json ? "{\"kernel\":\"%s\",\"target\":\"%s\""
                   : "kernel %s, target %s",
           axe_program_name(c->p), mode_names[c->mode]);
    if (c->ranks > 0)
        printf(a->json ? ",\"ranks\":%d" : ", ranks %d", c->ranks);
    printf(a->json ? ",\"schedules\":{" : ", schedules:");
    print_schedules(c->p, a->json);
}

/* The total's reference: each run's, or "mixed" (each run names its). */
static const char *ref_total(const run_ctx *c, const run_args *a)
{
    int r;
    for (r = 1; r < a->nruns; r++)
        if (c->reference[r] != c->reference[0])
            return "mixed";
    return kernel_ref_name(c->reference[0]);
}

/* Whether the run names its reference: the CUDA targets, which have a
 * choice (the C and MPI targets' lines are as they were: the CPU's). */
static bool names_reference(const run_ctx *c, const run_args *a)
{
    return a->check &&
           (c->mode == RUN_CUDA_EMULATED || c->mode == RUN_CUDA_GPU);
}

/* With --check on a CUDA target: `"reference":"cpu"` (and the naive
 * variant's schedules when it was used), or a text line naming the naive
 * variant. */
static void print_reference(const run_ctx *c, const run_args *a)
{
    if (!names_reference(c, a))
        return;
    if (a->json)
        printf(",\"reference\":\"%s\"", ref_total(c, a));
    if (c->pref == NULL)
        return;
    printf(a->json ? ",\"reference_schedules\":{"
                   : "reference: the naive variant (gpu-naive), schedules:");
    print_schedules(c->pref, a->json);
    printf(a->json ? "}" : "\n");
}

/* A JSON number, or null when it was not measured or is not finite
 * (JSON has no NaN). */
static void json_num(const char *key, double v, bool measured)
{
    if (measured && isfinite(v))
        printf(",\"%s\":%.9g", key, v);
    else
        printf(",\"%s\":null", key);
}

/* The totals; "runs" when print_run printed the per-run lines (the
 * JSON schedules object is then closed already). */
static const char *const order_names[3] = {"ascending", "descending", "random"};

/* `, in thread order descending, random` naming the orders that failed;
 * as JSON `,"orders":{"ascending":true,...}`. */
static void print_orders(const run_result *res, bool json)
{
    int k, n = 0;
    for (k = 0; k < 3; k++) {
        if (json)
            printf("%s\"%s\":%s", k ? "," : ",\"orders\":{", order_names[k],
                   res->order_pass[k] ? "true" : "false");
        else if (!res->order_pass[k])
            printf("%s%s", n++ ? ", " : ", in thread order ", order_names[k]);
    }
    if (json)
        printf("}");
}

/* With --json, a failed check's one-line reason on stderr (the result
 * object on stdout has it too): `axe: run: check failed: max_abs_err E,
 * max_rel_err R, in thread order descending, 3 racing accesses`. */
static void fail_line(const run_result *res)
{
    long long races = res->races != NULL ? res->races->count : 0;
    int k, n = 0;
    if (res->emu_races != NULL)
        races += res->emu_races->count;
    fprintf(stderr,
            "axe: run: check failed: max_abs_err %.3g, max_rel_err %.3g",
            res->max_abs, res->max_rel);
    for (k = 0; k < 3; k++)
        if (!res->order_pass[k])
            fprintf(stderr, "%s%s", n++ ? ", " : ", in thread order ",
                    order_names[k]);
    if (races > 0)
        fprintf(stderr, ", %lld racing access%s", races,
                races == 1 ? "" : "es");
    fprintf(stderr, "\n");
}

/* trn-sim: `,"cycles":N,"engines":{"tensor":{"instructions":N,
 * "busy":N},...}`, the simulator's timing model's (docs/compiler.md). */
static void trn_json(const run_ctx *c)
{
    int k;
    if (c->mode != RUN_TRN || !c->trn_have)
        return;
    printf(",\"cycles\":%lld,\"engines\":{", c->trn_cycles);
    for (k = 0; k < RUN_TRN_ENGINES; k++)
        printf("%s\"%s\":{\"instructions\":%lld,\"busy\":%lld}", k ? "," : "",
               kernel_trn_engines[k], c->trn_engine[k][0], c->trn_engine[k][1]);
    printf("}");
}

static void trn_text(const run_ctx *c)
{
    int k;
    if (c->mode != RUN_TRN || !c->trn_have)
        return;
    printf("simulated cycles %lld; engines (instructions, busy cycles):",
           c->trn_cycles);
    for (k = 0; k < RUN_TRN_ENGINES; k++)
        printf("%s %s %lld, %lld", k ? ";" : "", kernel_trn_engines[k],
               c->trn_engine[k][0], c->trn_engine[k][1]);
    printf("\n");
}

static void print_tail(const run_ctx *c, const run_args *a,
                       const run_result *res, bool runs)
{
    bool fl = res->flops > 0;
    double rate = res->seconds <= 0 ? 0
                  : fl              ? (double)res->flops / res->seconds
                                    : (double)res->bytes / res->seconds;
    if (a->json) {
        printf("%s", runs ? "" : "}");
        json_num("max_abs_err", res->max_abs, a->check);
        json_num("max_rel_err", res->max_rel, a->check);
        printf(",\"pass\":%s", !a->check   ? "null"
                               : res->pass ? "true"
                                           : "false");
        if (a->check) {
            print_reference(c, a);
            kernel_races_json(res->races);
            if (res->emu_races != NULL)
                kernel_races_json_named("emulated_races", res->emu_races);
            print_orders(res, true);
        }
        if (a->bench && res->emu_races != NULL)
            printf(",\"timing\":\"emulation\"");
        trn_json(c);
        json_num("seconds", res->seconds, a->bench && res->seconds > 0);
        json_num(fl ? "flops_per_s" : "bytes_per_s", rate,
                 a->bench && res->seconds > 0);
        printf("}\n");
        return;
    }
    if (!runs)
        printf("\n");
    if (a->check)
        print_reference(c, a);
    if (a->check) {
        printf("check %s: max_abs_err %.3g, max_rel_err %.3g",
               res->pass ? "passed" : "FAILED", res->max_abs, res->max_rel);
        print_orders(res, false);
        printf("%s\n",
               res->races != NULL && res->races->count > 0 ? ", races:" : "");
    }
    if (a->check && res->races != NULL)
        kernel_races_text(res->races);
    if (a->check && res->emu_races != NULL && res->emu_races->count > 0) {
        printf("races in the emulated CUDA:\n");
        kernel_races_text(res->emu_races);
    }
    trn_text(c);
    if (a->bench && res->seconds > 0)
        printf("%.6g s per run (%ld runs%s), %.4g %s/s\n", res->seconds,
               res->runs,
               res->emu_races != NULL ? "; emulation: CPU time of the "
                                        "emulated CUDA, not a GPU's"
                                      : "",
               rate, fl ? "flops" : "bytes");
    else if (a->bench)
        printf("%ld runs took no measurable time (timer resolution): no "
               "time per run or rate\n",
               res->runs);
}

/* "M=37, N=8" for run "r" of a kernel with runtime scalars. */
static void args_text(const run_ctx *c, const int64_t *v, const double *fv,
                      char *buf, size_t cap)
{
    size_t n = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; i < c->nscalars && n < cap; i++)
        if (axe_program_scalar(c->p, i).dtype != AXE_DTYPE_I32)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%.9g", i ? ", " : "",
                                  axe_program_scalar(c->p, i).name, fv[i]);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%s=%lld", i ? ", " : "",
                                  axe_program_scalar(c->p, i).name,
                                  (long long)v[i]);
}

/* Compare the outputs in c->in with the reference (compare), as the
 * outputs of thread order "k". */
static void compare_order(run_ctx *c, run_result *res, int k)
{
    bool before = res->pass;
    double tol[2];
    int i;
    res->pass = true;
    for (i = 0; i < c->n; i++) {
        if (!kernel_run_tolerance(c, i, tol))
            res->pass = false; /* not a parameter: nothing matches */
        else
            kernel_data_compare(kernel_run_tensor(c, i), tol, c->in[i],
                                c->ref[i], res);
    }
    res->order_pass[k] = res->pass;
    res->pass = before && res->pass;
}

/* Run the kernel again with the threads of each phase in descending and
 * in seeded random order (seed --seed + 1), comparing each. */
static int other_orders(run_ctx *c, const run_args *a, run_result *res)
{
    long long order[3] = {0, -1, 0};
    int k, rc;
    order[2] = (long long)(a->seed % 0x7ffffffffffffffeULL) + 1;
    for (k = 1; k < 3; k++) {
        rc = kernel_run_order(c, order[k]);
        if (rc != CLI_EXIT_OK)
            return rc;
        compare_order(c, res, k);
    }
    return CLI_EXIT_OK;
}

static bool has_float_scalar(const run_ctx *c)
{
    int i;
    for (i = 0; i < c->nscalars; i++)
        if (axe_program_scalar(c->p, i).dtype != AXE_DTYPE_I32)
            return true;
    return false;
}

/* Bind run "r"'s scalars (its --arg values) to c->p. */
static int bind_run(run_ctx *c, const run_args *a, int r)
{
    axe_diag d;
    axe_status st;
    int rc = match_args(c->p, a, r, c->scalar, c->fscalar);
    if (rc == CLI_EXIT_OK)
        rc = check_ranges(c->p, a);
    if (rc != CLI_EXIT_OK)
        return rc;
    st = has_float_scalar(c) ? axe_program_bind_f(c->p, c->fscalar, &d)
                             : axe_program_bind(c->p, c->scalar, &d);
    if (st != AXE_OK)
        return kernel_fail("run", axe_status_name(st), "%s", d.message);
    return CLI_EXIT_OK;
}

/* Every run's reference (kernel_ref_plan: exit 1 past the work
 * limits), and the naive variant compiled when some run needs it. */
static int plan_runs(run_ctx *c, const run_args *a, const kernel_src *src)
{
    bool naive = false;
    int r, rc = CLI_EXIT_OK;
    for (r = 0; rc == CLI_EXIT_OK && r < a->nruns; r++) {
        rc = bind_run(c, a, r);
        if (rc == CLI_EXIT_OK)
            rc = kernel_ref_plan(c, a, r, &naive);
    }
    if (rc == CLI_EXIT_OK && naive)
        rc = kernel_ref_compile(c, a, src);
    return rc;
}

/* Bind run "r"'s scalars, build the buffers, run, check into "res". */
static int run_once(run_ctx *c, const run_args *a, int r, run_result *res,
                    axe_race_report *races)
{
    int i, rc = bind_run(c, a, r);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (setup(c, a) != CLI_EXIT_OK)
        return kernel_fail("run", "NO_MEMORY", "out of memory");
    c->emu_cur = c->emu_races != NULL ? &c->emu_races[r] : NULL;
    res->emu_races = c->emu_cur;
    rc = kernel_run_exec(c, a->bench, res);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (a->check) {
        rc = kernel_ref_run(c, r, res, races);
        if (rc != CLI_EXIT_OK)
            return rc;
        compare_order(c, res, 0);
        rc = other_orders(c, a, res);
        if (rc != CLI_EXIT_OK)
            return rc;
        if (c->emu_cur != NULL && c->emu_cur->count > 0)
            res->pass = false;
    }
    for (i = 0; i < c->n; i++) /* RUN_MPI: every device's buffers */
        res->bytes += (int64_t)c->bytes[i];
    res->flops = axe_program_flops(c->p); /* RUN_MPI: every device's */
    if (c->ranks > 0 && res->flops > INT64_MAX / c->ranks)
        res->flops = 0; /* no rate rather than a wrong one */
    else if (c->ranks > 0)
        res->flops *= c->ranks;
    return CLI_EXIT_OK;
}

/* One run's line: text "M=37: check passed: ..." or a JSON object. */
static void print_run(const run_ctx *c, const run_args *a,
                      const run_result *res, const int64_t *v, const double *fv,
                      int r)
{
    char buf[RUN_MAX_ARGS * 48];
    int i;
    if (!a->json) {
        args_text(c, v, fv, buf, sizeof buf);
        if (a->check)
            printf("%s: check %s: max_abs_err %.3g, max_rel_err %.3g\n", buf,
                   res->pass ? "passed" : "FAILED", res->max_abs, res->max_rel);
        return;
    }
    printf("%s{\"args\":{", r ? "," : "");
    for (i = 0; i < c->nscalars; i++)
        if (axe_program_scalar(c->p, i).dtype != AXE_DTYPE_I32)
            printf("%s\"%s\":%.17g", i ? "," : "",
                   axe_program_scalar(c->p, i).name, fv[i]);
        else
            printf("%s\"%s\":%lld", i ? "," : "",
                   axe_program_scalar(c->p, i).name, (long long)v[i]);
    printf("}");
    json_num("max_abs_err", res->max_abs, a->check);
    json_num("max_rel_err", res->max_rel, a->check);
    printf(",\"pass\":%s", !a->check ? "null" : res->pass ? "true" : "false");
    if (names_reference(c, a))
        printf(",\"reference\":\"%s\"", kernel_ref_name(res->reference));
    printf("}");
}

/* The worse of two results (the last one's time and rate). */
static void merge(run_result *all, const run_result *one)
{
    bool pass = all->pass && one->pass;
    double ma = all->max_abs, mr = all->max_rel;
    const axe_race_report *races = all->races, *emu = all->emu_races;
    bool order_pass[3];
    int k;
    for (k = 0; k < 3; k++)
        order_pass[k] = all->order_pass[k] && one->order_pass[k];
    *all = *one;
    all->pass = pass;
    memcpy(all->order_pass, order_pass, sizeof order_pass);
    if (races != NULL && races->count > 0)
        all->races = races; /* the first run's races that has some */
    if (emu != NULL && emu->count > 0)
        all->emu_races = emu;
    if (ma > all->max_abs || isnan(ma))
        all->max_abs = ma;
    if (mr > all->max_rel || isnan(mr))
        all->max_rel = mr;
}

static int run_program(run_ctx *c, const run_args *a, const kernel_src *src)
{
    run_result all = {0,    0,          0,
                      true, 0,          0,
                      0,    NULL,       {true, true, true},
                      NULL, RUN_REF_CPU},
               res[RUN_MAX_RUNS];
    int64_t v[RUN_MAX_RUNS][RUN_MAX_ARGS];
    double fv[RUN_MAX_RUNS][RUN_MAX_ARGS];
    int r, rc = CLI_EXIT_OK;
    c->nscalars = axe_program_scalar_count(c->p);
    if (c->nscalars > RUN_MAX_ARGS)
        return kernel_fail("run", "CAPACITY", "more than %d runtime scalars",
                           RUN_MAX_ARGS);
    c->races = calloc((size_t)a->nruns, sizeof *c->races);
    if (c->mode == RUN_CUDA_EMULATED)
        c->emu_races = calloc((size_t)a->nruns, sizeof *c->emu_races);
    if (c->races == NULL ||
        (c->mode == RUN_CUDA_EMULATED && c->emu_races == NULL))
        return kernel_fail("run", "NO_MEMORY", "out of memory");
    rc = plan_runs(c, a, src);
    if (rc == CLI_EXIT_OK)
        rc = kernel_run_build(c);
    for (r = 0; rc == CLI_EXIT_OK && r < a->nruns; r++) {
        run_result zero = {
            0,    0,          0, true, 0, 0, 0, NULL, {true, true, true},
            NULL, RUN_REF_CPU};
        res[r] = zero;
        rc = run_once(c, a, r, &res[r], &c->races[r]);
        memcpy(v[r], c->scalar, sizeof v[r]);
        memcpy(fv[r], c->fscalar, sizeof fv[r]);
        merge(&all, &res[r]);
    }
    if (rc != CLI_EXIT_OK)
        return rc;
    c->printed = true;
    print_result(c, a);
    if (c->nscalars > 0 && a->json)
        printf("},\"runs\":[");
    for (r = 0; c->nscalars > 0 && r < a->nruns; r++) {
        if (r == 0 && !a->json)
            printf("\n");
        print_run(c, a, &res[r], v[r], fv[r], r);
    }
    if (c->nscalars > 0 && a->json)
        printf("]");
    print_tail(c, a, &all, c->nscalars > 0);
    if (a->json && a->check && !all.pass)
        fail_line(&all);
    return all.pass ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Whether this machine has an NVIDIA GPU (its device node). */
static bool has_gpu(void)
{
    return access("/dev/nvidia0", F_OK) == 0 ||
           access("/dev/nvidiactl", F_OK) == 0;
}

/* Whether the command line asks for --json (before it is parsed, so that
 * a usage error is reported as JSON too). */
static bool wants_json(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0)
            return true;
    return false;
}

/* With --json, a failure that printed no result is one JSON object
 * (kernel_err.c): the kept failure, or the last usage error. */
static int report_json(const run_ctx *c, int rc)
{
    const char *name = c->p != NULL ? axe_program_name(c->p) : NULL;
    if (kernel_err_json(name, rc == CLI_EXIT_USAGE ? "USAGE" : "RUN",
                        rc == CLI_EXIT_USAGE ? cli_last_usage()
                                             : "the run failed") != CLI_EXIT_OK)
        return CLI_EXIT_FAIL;
    return rc;
}

/* --ranks N against the program's mesh, and OpenMPI being there. */
static int mpi_ranks(const axe_program *p, int ranks)
{
    int64_t P = axe_program_mesh_devices(p);
    if (P != ranks)
        return kernel_fail("run", "INVALID",
                           "--ranks %d, but kernel '%s' has a mesh of %lld "
                           "devices: run it with --ranks %lld",
                           ranks, axe_program_name(p), (long long)P,
                           (long long)P);
    return kernel_mpi_tools();
}

int cli_run_main(int argc, char **argv)
{
    run_args a;
    kernel_src src;
    run_ctx c;
    bool json = wants_json(argc, argv);
    int rc;
    if (argc >= 2 && cli_is_help(argv[1])) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    memset(&c, 0, sizeof c);
    rc = parse_args(argc, argv, &a);
    if (rc == CLI_EXIT_OK)
        rc = kernel_load("run", a.file, &a.opts, &src, &c.p);
    if (rc != CLI_EXIT_OK)
        return json ? report_json(&c, rc) : rc;
    if (a.ranks == 0 && axe_program_mesh_devices(c.p) > 0) {
        rc = kernel_fail("run", "UNSUPPORTED",
                         "kernel '%s' declares a mesh of %lld devices: run "
                         "it on that many ranks with --ranks %lld (the "
                         "--target mpi backend, or --target cuda with NCCL), "
                         "not on one process of the %s target",
                         axe_program_name(c.p),
                         (long long)axe_program_mesh_devices(c.p),
                         (long long)axe_program_mesh_devices(c.p),
                         a.target != NULL ? a.target : "c");
        if (json)
            rc = report_json(&c, rc);
        axe_program_free(c.p);
        free(src.text);
        return rc;
    }
    c.mode = a.target != NULL && strcmp(a.target, "mpi") == 0       ? RUN_MPI
             : a.target != NULL && strcmp(a.target, "trn-sim") == 0 ? RUN_TRN
             : a.target == NULL || strcmp(a.target, "cuda") != 0    ? RUN_C
             : a.emulate ? RUN_CUDA_EMULATED
                         : RUN_CUDA_GPU;
    c.ranks = a.ranks;
    if (c.ranks > 0) {
        rc = mpi_ranks(c.p, a.ranks);
        if (rc != CLI_EXIT_OK) {
            if (json)
                rc = report_json(&c, rc);
            axe_program_free(c.p);
            free(src.text);
            return rc;
        }
    }
    if (c.mode == RUN_CUDA_GPU && !has_gpu()) {
        if (json)
            printf("{\"kernel\":\"%s\",\"target\":\"cuda\",\"pass\":null,"
                   "\"skipped\":\"no GPU\"}\n",
                   axe_program_name(c.p));
        else
            printf("kernel %s, target cuda: skipped: no GPU (--emulate runs "
                   "the CUDA on the CPU)\n",
                   axe_program_name(c.p));
        axe_program_free(c.p);
        free(src.text);
        return 77; /* skipped, as the test scripts exit */
    }
    rc = run_program(&c, &a, &src);
    if (json && rc != CLI_EXIT_OK && !c.printed)
        rc = report_json(&c, rc);
    cleanup(&c);
    axe_program_free(c.p);
    free(src.text);
    return rc;
}
