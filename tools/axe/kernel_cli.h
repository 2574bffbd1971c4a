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
/* If argv[*i] is -D / --schedule / --trn (with its value), record it, advance
 * *i and answer 1; 0 if it is no such option; -1 after a usage report. */
int kernel_opt_parse(const char *cmd, int argc, char **argv, int *i,
                     axe_kernel_options *o);
/* Compile, reporting a failure with its location; CLI_EXIT_OK or the exit
 * code. */
int kernel_compile(const kernel_src *src, const axe_kernel_options *o,
                   axe_program **out);
/* Read "file" and compile it: kernel_src_read then kernel_compile. */
int kernel_load(const char *cmd, const char *file, const axe_kernel_options *o,
                kernel_src *src, axe_program **out);
/* The first failure of the command (kernel_err.c), for `axe run --json`:
 * "kind" a status name, USAGE, IO or RUN; "line" and "column" 0 when it
 * has no location in the source; "notes" the further lines of a compile
 * diagnostic. */
typedef struct kernel_err {
    bool set;
    char kind[24];
    char message[1024];
    char notes[8192];
    int line, column;
} kernel_err;
/* Keep this failure unless one is kept already. */
void kernel_err_record(const char *kind, int line, int column,
                       const char *message, const char *notes);
/* The kept failure, or NULL. */
const kernel_err *kernel_err_first(void);
/* Print `axe: CMD: MESSAGE` on stderr, keep it as a failure of "kind";
 * CLI_EXIT_FAIL. */
int kernel_fail(const char *cmd, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Print the failure as one JSON object on stdout (the fallback kind and
 * message when none was kept; "kernel" NULL: not compiled);
 * CLI_EXIT_OK, or CLI_EXIT_FAIL when it could only print "out of
 * memory". */
int kernel_err_json(const char *kernel, const char *fallback_kind,
                    const char *fallback_message);
/* The last path component of "path". */
const char *kernel_basename(const char *path);

#endif
