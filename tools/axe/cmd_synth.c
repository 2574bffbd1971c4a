/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe synth FILE.axe [--json] [--target c|cuda] [-D NAME=VALUE]...
 * [--trn KEY=VALUE]...`: the
 * layouts that layout synthesis gave the file's `layout auto` tensors,
 * each anchor's instruction choice (chosen, cost, runner-up) and each
 * rearrange (docs/cli.md, docs/compiler.md "Layout synthesis"). The file
 * is compiled whole, so the synthesized layouts have passed sema and
 * dispatch.
 */
#include <stdlib.h>
#include <string.h>

#include "kernel_cli.h"

static const char usage[] =
    "usage: axe synth FILE.axe [--json] [--target c|cuda] [-D NAME=VALUE]...\n"
    "                [--trn KEY=VALUE]...\n"
    "Print the layouts that layout synthesis chose for the 'layout auto'\n"
    "tensors of a kernel, each anchor's instruction choice (chosen, cost,\n"
    "runner-up) and each rearrange through shared memory "
    "(docs/compiler.md).\n"
    "  --json         one JSON object: {\"tensors\": {NAME: LAYOUT}, "
    "\"accesses\": [...],\n"
    "                 \"instructions\": {OP: {\"chosen\", \"cost\", "
    "\"runner_up\"}}, \"rearranges\": [...]}\n"
    "                 (a tensor-core gemm's OP also gemm#N.A, gemm#N.B: "
    "operand loads,\n"
    "                 gemm#N.shape: the mma shape)\n"
    "  --target T     compile for target T (c, the default, or cuda)\n"
    "  -D NAME=VALUE  override a 'param NAME = ...;' of the file\n"
    "  --trn KEY=VALUE  a field of the accelerator model that sbuf and psum\n"
    "                 tensors are synthesized for (docs/compiler.md)\n";

typedef struct synth_args {
    const char *file, *target;
    bool json;
    axe_kernel_options opts;
} synth_args;

static int parse_args(int argc, char **argv, synth_args *a)
{
    int i, r;
    axe_diag d;
    memset(a, 0, sizeof *a);
    axe_kernel_options_init(&a->opts);
    for (i = 1; i < argc; i++) {
        r = kernel_opt_parse("synth", argc, argv, &i, &a->opts);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0)
            continue;
        if (strcmp(argv[i], "--json") == 0)
            a->json = true;
        else if (strcmp(argv[i], "--target") == 0 && i + 1 < argc)
            a->target = argv[++i];
        else if (argv[i][0] == '-' || a->file != NULL)
            return cli_usage("synth", "unexpected argument '%.40s'", argv[i]);
        else
            a->file = argv[i];
    }
    if (a->file == NULL)
        return cli_usage("synth", "no FILE.axe given");
    if (a->target != NULL &&
        axe_kernel_options_target(&a->opts, a->target, NULL, &d) != AXE_OK)
        return cli_usage("synth", "%s", d.message);
    return CLI_EXIT_OK;
}

static int print_report(const axe_program *p, bool json)
{
    size_t n = axe_program_synth(p, json, NULL, 0);
    char *buf = malloc(n + 1);
    bool ok;
    if (buf == NULL || n == 0) {
        free(buf);
        fprintf(stderr, "axe: synth: out of memory\n");
        return CLI_EXIT_FAIL;
    }
    (void)axe_program_synth(p, json, buf, n + 1);
    ok = fwrite(buf, 1, n, stdout) == n && fflush(stdout) == 0;
    free(buf);
    return ok ? CLI_EXIT_OK : kernel_fail("synth", "IO", "cannot write stdout");
}

int cli_synth_main(int argc, char **argv)
{
    synth_args a;
    kernel_src src;
    axe_program *p = NULL;
    int rc;
    if (argc >= 2 && cli_is_help(argv[1])) {
        fputs(usage, stdout);
        return CLI_EXIT_OK;
    }
    rc = parse_args(argc, argv, &a);
    if (rc == CLI_EXIT_OK)
        rc = kernel_load("synth", a.file, &a.opts, &src, &p);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = print_report(p, a.json);
    axe_program_free(p);
    free(src.text);
    return rc;
}
