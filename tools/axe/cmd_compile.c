/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe compile FILE.axe [--target c|cuda|mpi|trn-sim] [--arch ARCH]
 * [-D NAME=VALUE]... [--schedule OP=NAME]... [--naive] [-o OUT]
 * [--explain]`: the generated code (C99, one CUDA `.cu` file, or C99 over
 * the accelerator simulator; with --naive the naive variant,
 * every operator on its simplest schedule) on stdout or in OUT; with
 * --explain, each
 * operator's schedule, derived layouts, the target's instructions and
 * rejected schedules instead, in the same place (docs/cli.md,
 * docs/compiler.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_cli.h"

static const char usage[] =
    "usage: axe compile FILE.axe [--target c|cuda|mpi|trn-sim] [--arch "
    "ARCH]\n"
    "                   [-D NAME=VALUE]...\n"
    "                   [--schedule OP=NAME]... [--naive] [--trn "
    "KEY=VALUE]...\n"
    "                   [-o OUT] [--explain]\n"
    "Compile a kernel of the axe kernel language to C99 or CUDA "
    "(docs/compiler.md).\n"
    "  --target c     C99 that runs the thread hierarchy on one CPU thread\n"
    "                 (the default)\n"
    "  --target cuda  one .cu file: the __global__ kernel and the launcher\n"
    "                 extern \"C\" int axe_launch_NAME(...)\n"
    "  --target trn-sim  C99 running a core kernel's engine instructions on\n"
    "                 the accelerator simulator (compiler_trn_sim.h)\n"
    "  --arch ARCH    the target's architecture (cuda: sm_80 (default),\n"
    "                 sm_86, sm_89, sm_90)\n"
    "  -D NAME=VALUE  override a 'param NAME = ...;' of the file\n"
    "  --schedule OP=NAME  force schedule NAME for every OP operator;\n"
    "                 OP#N=NAME for operator N only (--explain's 'op N')\n"
    "  --naive        the naive variant (axe run's GPU reference): every\n"
    "                 operator on its simplest schedule, no vector loads,\n"
    "                 shuffles, tensor cores or cp.async (no --schedule)\n"
    "  --trn KEY=VALUE  a field of the accelerator model that sbuf and psum\n"
    "                 tensors are checked against (partitions=64, ...)\n"
    "  -o OUT         write the code (or the explanation) to OUT instead of\n"
    "                 stdout\n"
    "  --explain      print each operator's schedule, derived layouts, the\n"
    "                 target's instructions and rejected schedules with\n"
    "                 reasons instead of the code\n";

typedef struct compile_args {
    const char *file, *out, *target, *arch;
    bool explain;
    axe_kernel_options opts;
} compile_args;

/* --target and --arch into the options (the library checks them). */
static int set_target(compile_args *a)
{
    axe_diag d;
    if (a->target == NULL && a->arch == NULL)
        return CLI_EXIT_OK;
    if (axe_kernel_options_target(&a->opts, a->target != NULL ? a->target : "c",
                                  a->arch, &d) != AXE_OK)
        return cli_usage("compile", "%s", d.message);
    return CLI_EXIT_OK;
}

static int parse_args(int argc, char **argv, compile_args *a)
{
    int i, r;
    memset(a, 0, sizeof *a);
    axe_kernel_options_init(&a->opts);
    for (i = 1; i < argc; i++) {
        r = kernel_opt_parse("compile", argc, argv, &i, &a->opts);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--explain") == 0)
            a->explain = true;
        else if (strcmp(argv[i], "--naive") == 0)
            a->opts.naive = true;
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            a->out = argv[++i];
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
            a->target = argv[++i];
        else if (strcmp(argv[i], "--arch") == 0 && i + 1 < argc)
            a->arch = argv[++i];
        else if (argv[i][0] == '-' || a->file != NULL)
            return cli_usage("compile", "unexpected argument '%.40s'", argv[i]);
        else
            a->file = argv[i];
    }
    if (a->file == NULL)
        return cli_usage("compile", "no FILE.axe given");
    if (a->opts.naive && a->opts.nforced > 0)
        return cli_usage("compile", "--naive chooses every operator's "
                                    "schedule: it takes no --schedule");
    return set_target(a);
}

/* "text" into "path" (NULL: stdout); a failed open, write or close (a
 * full disk, /dev/full) is exit 1 with the reason. */
static int write_text(const char *path, const char *text, size_t len)
{
    FILE *f = path != NULL ? fopen(path, "wb") : stdout;
    bool ok = f != NULL && fwrite(text, 1, len, f) == len;
    if (f != NULL && f != stdout)
        ok = fclose(f) == 0 && ok;
    else if (f == stdout)
        ok = fflush(stdout) == 0 && ok;
    if (!ok)
        return kernel_fail("compile", "IO", "cannot write %s: %s",
                           path != NULL ? path : "stdout",
                           errno != 0 ? strerror(errno) : "write error");
    return CLI_EXIT_OK;
}

/* A mesh program's device operators need a multi-device target: the C
 * target runs one device (mpi and cuda run one rank per device). */
static int mesh_refused(const axe_program *p)
{
    const char *target = axe_program_target(p, NULL);
    if (axe_program_mesh_devices(p) == 0 || strcmp(target, "c") != 0)
        return CLI_EXIT_OK;
    return kernel_fail("compile", "UNSUPPORTED",
                       "kernel '%s' declares a mesh of %lld devices: the %s "
                       "target runs one device (compile it with --target "
                       "mpi or --target cuda; --explain shows its "
                       "operators)",
                       axe_program_name(p),
                       (long long)axe_program_mesh_devices(p), target);
}

static int emit(axe_program *p, const compile_args *a)
{
    size_t n = a->explain
                   ? axe_program_explain(p, NULL, 0)
                   : axe_program_emit(p, kernel_basename(a->file), NULL, 0);
    char *buf = malloc(n + 1);
    int rc;
    if (buf == NULL || (!a->explain && n == 0)) {
        free(buf);
        fprintf(stderr, "axe: compile: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    if (a->explain)
        (void)axe_program_explain(p, buf, n + 1);
    else
        (void)axe_program_emit(p, kernel_basename(a->file), buf, n + 1);
    errno = 0;
    rc = write_text(a->out, buf, n);
    free(buf);
    return rc;
}

int cli_compile_main(int argc, char **argv)
{
    compile_args a;
    kernel_src src;
    axe_program *p = NULL;
    int rc;
    if (argc >= 2 && cli_is_help(argv[1])) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    rc = parse_args(argc, argv, &a);
    if (rc == CLI_EXIT_OK)
        rc = kernel_load("compile", a.file, &a.opts, &src, &p);
    if (rc != CLI_EXIT_OK)
        return rc;
    if (!a.explain)
        rc = mesh_refused(p);
    if (rc == CLI_EXIT_OK)
        rc = emit(p, &a);
    axe_program_free(p);
    free(src.text);
    return rc;
}
