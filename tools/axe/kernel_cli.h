/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `axe compile` (cmd_compile.c) and `axe run` (cmd_run.c) share:
 * reading a `.axe` file, the common options (-D NAME=VALUE, --schedule
 * op=name), compiling with a diagnostic printed as `axe: FILE:LINE:COL:
 * message`, the source line and a caret under the column. Exit codes as
 * cli.h: 2 for syntax and usage, 1 for programs that are wrong.
 */
#ifndef AXE_TOOLS_KERNEL_CLI_H
#define AXE_TOOLS_KERNEL_CLI_H

#include "axe/kernel.h"
#include "cli.h"

typedef struct kernel_src {
    const char *path;
    char *text;
    size_t len;
} kernel_src;

/* Read "path" whole (at most 16 MiB); CLI_EXIT_OK or an exit code after a
 * report. Free with free(src->text). */
int kernel_src_read(const char *cmd, const char *path, kernel_src *src);
/* If argv[*i] is -D / --schedule (with its value), record it, advance *i
 * and answer 1; 0 if it is no such option; -1 after a usage report. */
int kernel_opt_parse(const char *cmd, int argc, char **argv, int *i,
                     axe_kernel_options *o);
/* Compile, reporting a failure with its location; CLI_EXIT_OK or the exit
 * code. */
int kernel_compile(const kernel_src *src, const axe_kernel_options *o,
                   axe_program **out);
/* Read "file" and compile it: kernel_src_read then kernel_compile. */
int kernel_load(const char *cmd, const char *file, const axe_kernel_options *o,
                kernel_src *src, axe_program **out);
/* The last path component of "path". */
const char *kernel_basename(const char *path);

#endif
