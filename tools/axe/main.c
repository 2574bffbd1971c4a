/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The axe command line: `axe <command> [args]`. This file only dispatches
 * to the subcommand families (cmd_cute.c, the Axe-layout commands of
 * cmd_axe.c, cmd_batch.c) and answers --help
 * and --version; exit codes are 0 (ok), 1 (no answer) and 2 (usage or
 * syntax), as cli.h says.
 */
#include <stdio.h>
#include <string.h>

#include "axe/status.h"
#include "cli.h"

static void print_usage(FILE *f)
{
    fprintf(f, "usage: axe <command> [args]\n"
               "Tensor layouts: Axe and CuTe layout algebra on the command "
               "line.\n"
               "Axe layouts, e.g. axe tile \"S[(8,8):(8,1)]\" [8,8] "
               "\"S[(8,8):(8,1)]\" [8,8]:\n");
    cli_axe_list(f);
    fprintf(f, "other commands:\n"
               "  cute <op> ...  one CuTe operation, e.g. axe cute compose "
               "\"(4,8):(1,4)\" \"(2,4)\"\n"
               "  map <op> ...   mapping expressions, e.g. axe map size "
               "--axes \"axes![A = 8]\" \"m![A / 2]\"\n"
               "  batch          answer JSON Lines requests from stdin, one "
               "JSON line each\n"
               "  render L       a picture of a layout (text, SVG, TikZ, "
               "HTML)\n"
               "  compile FILE   compile a kernel (.axe) to C; run FILE: "
               "compile, run and --check it\n"
               "  synth FILE     the layouts synthesized for a kernel's "
               "'layout auto' tensors\n"
               "  --help         this text; 'axe <command> --help' for a "
               "command\n"
               "  --version      the version of axe\n"
               "exit status: 0 ok, 1 the operation has no answer, 2 usage or "
               "syntax error\n");
}

int main(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2) {
        fprintf(stderr, "axe: no command given (try 'axe --help')\n");
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("axe %s\n", axe_version());
        return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
    }
    if (strcmp(cmd, "cute") == 0)
        return cli_cute_main(argc - 1, argv + 1);
    if (strcmp(cmd, "batch") == 0)
        return cli_batch_main(argc - 1, argv + 1);
    if (strcmp(cmd, "render") == 0)
        return cli_render_main(argc - 1, argv + 1);
    if (strcmp(cmd, "compile") == 0)
        return cli_compile_main(argc - 1, argv + 1);
    if (strcmp(cmd, "synth") == 0)
        return cli_synth_main(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return cli_run_main(argc - 1, argv + 1);
    if (strcmp(cmd, "map") == 0)
        return cli_map_main(argc - 1, argv + 1);
    if (cli_axe_has(cmd))
        return cli_axe_main(argc - 1, argv + 1);
    fprintf(stderr, "axe: unknown command '%.40s' (try 'axe --help')\n", cmd);
    return CLI_EXIT_USAGE;
}
