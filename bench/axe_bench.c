/* SPDX-License-Identifier: Apache-2.0 */
/*
 * axe-bench: nanoseconds per operation of the CuTe algebra and of the Axe
 * layout algebra. For each case (bench_cases.c, bench_axe.c) the operands
 * are parsed once and the operation is run once; a case whose operation
 * fails, or finds no answer (a tile recovery or slice with found = false,
 * reported as INCOMPATIBLE), is reported with its status, never timed.
 * Otherwise the iteration count doubles until one repeat lasts the target
 * time (2 ms; 0.2 ms with --quick), one more repeat warms up, and
 * the median over the repeats (11; 3 with --quick) of the time per call is
 * reported, per element for per-element ops. Calls go through a function
 * pointer into the static library, followed by a compiler barrier, and
 * their statuses feed a volatile sink, so none can be optimized away.
 * Time is CLOCK_MONOTONIC, or with --cpu-time the thread's CPU clock, which
 * leaves out the time other processes take on a loaded machine.
 * Output: a text table, or with --json one object per line
 * {"op": ..., "case": ..., "modes": ..., "ns": ...} (plus "label" for the
 * rows that have one; "ns": null and an "error" with the status name for a
 * failing case).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "axe/version.h"
#include "bench.h"

#if defined(__GNUC__)
#define BARRIER() __asm__ __volatile__("" ::: "memory")
#else
#define BARRIER() ((void)0)
#endif

#define MAX_CASES 256
#define MAX_REPEATS 101

typedef struct options {
    int json;
    int cpu_time;
    int list;
    int repeats;
    double target_ns;
    const char *filter;
} options;

typedef struct result {
    axe_status status;
    int modes;
    double ns;
    double min_ns;
} result;

static bench_io io;
static volatile unsigned long sink;
static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The wall time of "iters" calls of "run". */
static double time_calls(bench_fn run, long iters)
{
    unsigned long acc = 0;
    double t0 = now_ns(), t1;
    for (long i = 0; i < iters; i++) {
        acc += (unsigned long)run(&io);
        BARRIER();
    }
    t1 = now_ns();
    sink += acc;
    return t1 - t0;
}

/* The smallest power-of-two count of calls that lasts "target" ns. */
static long calibrate(bench_fn run, double target)
{
    long iters = 1;
    while (time_calls(run, iters) < target && iters < (1L << 40))
        iters *= 2;
    return iters;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Time "run" (after calibration and one warm-up repeat) into "r", in ns per
 * call divided by "per". */
static void measure(bench_fn run, double per, const options *o, result *r)
{
    double t[MAX_REPEATS];
    long iters = calibrate(run, o->target_ns);
    time_calls(run, iters);
    for (int k = 0; k < o->repeats; k++)
        t[k] = time_calls(run, iters) / (double)iters / per;
    qsort(t, (size_t)o->repeats, sizeof t[0], cmp_double);
    r->ns = t[o->repeats / 2];
    r->min_ns = t[0];
}

/* Run case "c" into "r": an error status, or the timing. */
static void run_case(const bench_case *c, const options *o, result *r)
{
    const bench_op *op = bench_op_find(c->op);
    r->modes = 0;
    r->status =
        op == NULL ? AXE_ERR_UNKNOWN_OP : bench_prepare(c, op, &io, &r->modes);
    if (r->status == AXE_OK)
        r->status = op->run(&io);
    if (r->status == AXE_OK && op->operands[0] == 'X' && !io.axe.found)
        r->status = AXE_ERR_INCOMPATIBLE;
    if (r->status == AXE_OK)
        measure(op->run, (double)io.elems, o, r);
}

static void print_json(const bench_case *c, const result *r)
{
    printf("{\"op\": \"%s\", \"case\": \"%s\", ", c->op, c->name);
    if (c->label != NULL)
        printf("\"label\": \"%s\", ", c->label);
    printf("\"modes\": %d, ", r->modes);
    if (r->status == AXE_OK)
        printf("\"ns\": %.2f}\n", r->ns);
    else
        printf("\"ns\": null, \"error\": \"%s\"}\n",
               axe_status_name(r->status));
}

static void print_row(const bench_case *c, const result *r)
{
    const bench_op *op = bench_op_find(c->op);
    const char *unit = op != NULL && op->per_element ? "/elem" : "";
    printf("%-18s %-24s %5d ", c->op, c->label != NULL ? c->label : c->name,
           r->modes);
    if (r->status == AXE_OK)
        printf("%10.1f %10.1f%-5s", r->ns, r->min_ns, unit);
    else
        printf("%21s%-5s", axe_status_name(r->status), "");
    printf("  %.60s%s%.60s\n", c->a, c->b != NULL ? "  |  " : "",
           c->b != NULL ? c->b : "");
}

static void print_header(const options *o)
{
    printf("axe-bench %s: ns per call (\"/elem\": per element), median of "
           "%d repeats of >= %.1f ms (%s clock) each, after warm-up\n",
           axe_version(), o->repeats, o->target_ns / 1e6,
           o->cpu_time ? "CPU" : "wall");
    printf("%-18s %-24s %5s %10s %10s%-5s  %s\n", "op", "case", "modes", "ns",
           "min", "", "operands");
}

static int matches(const bench_case *c, const options *o)
{
    return o->filter == NULL || strstr(c->op, o->filter) != NULL ||
           strstr(c->name, o->filter) != NULL ||
           (c->label != NULL && strstr(c->label, o->filter) != NULL);
}

static void usage(FILE *f)
{
    fputs("usage: axe-bench [--json] [--filter SUBSTR] [--quick] "
          "[--repeats N] [--list]\n"
          "  --json         one JSON object per line: "
          "{\"op\", \"case\", \"modes\", \"ns\"}\n"
          "  --filter S     only cases whose op, case or label contains S "
          "(e.g. suite,\n"
          "                 scaling, compose, axe_suite, axe_scaling)\n"
          "  --quick        a short run: 3 repeats of >= 0.2 ms\n"
          "  --repeats N    repeats per case, median reported (1..101)\n"
          "  --cpu-time     time with the thread's CPU clock, not the "
          "monotonic\n"
          "                 wall clock (for a loaded machine)\n"
          "  --list         list the cases without timing them\n",
          f);
}

/* Parse the command line into "o"; 0 on success, else the exit code. */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){0, 0, 0, 11, 2e6, NULL};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(s, "--cpu-time") == 0) {
            o->cpu_time = 1;
        } else if (strcmp(s, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(s, "--quick") == 0) {
            o->repeats = 3;
            o->target_ns = 2e5;
        } else if (strcmp(s, "--filter") == 0 && i + 1 < argc) {
            o->filter = argv[++i];
        } else if (strcmp(s, "--repeats") == 0 && i + 1 < argc) {
            o->repeats = atoi(argv[++i]);
            if (o->repeats < 1 || o->repeats > MAX_REPEATS)
                return 2;
        } else if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            usage(stdout);
            return 1;
        } else {
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    static bench_case cases[MAX_CASES];
    const bench_case *fixed;
    options o;
    int n = bench_fixed_cases(&fixed), rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        if (rc == 2)
            usage(stderr);
        return rc == 1 ? 0 : 2;
    }
    if (o.cpu_time)
        clock_id = CLOCK_THREAD_CPUTIME_ID;
    memcpy(cases, fixed, (size_t)n * sizeof cases[0]);
    n += bench_scaling_cases(cases + n, MAX_CASES - n);
    n += bench_axe_cases(cases + n, MAX_CASES - n);
    if (!o.json && !o.list)
        print_header(&o);
    for (int i = 0; i < n; i++) {
        result r;
        if (!matches(&cases[i], &o))
            continue;
        if (o.list) {
            printf("%-18s %-24s %s%s%s\n", cases[i].op,
                   cases[i].label != NULL ? cases[i].label : cases[i].name,
                   cases[i].a, cases[i].b ? "  |  " : "",
                   cases[i].b ? cases[i].b : "");
            continue;
        }
        run_case(&cases[i], &o, &r);
        if (o.json)
            print_json(&cases[i], &r);
        else
            print_row(&cases[i], &r);
        fflush(stdout);
    }
    return 0;
}
