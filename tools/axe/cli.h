/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the files of the axe CLI share: the subcommand entry points, the
 * exit codes and the one-line error reports. Every report is one line on
 * stderr that starts with "axe: "; quoted input is truncated and escaped so
 * that no input (control bytes, non-ASCII, megabytes) can break the line.
 * Invariant: only this layer turns statuses into messages and exit codes:
 * 0 ok, 1 the operation has no answer, 2 usage or syntax.
 */
#ifndef AXE_TOOLS_CLI_H
#define AXE_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "axe/status.h"
#include "json.h"

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/* `axe cute ...` and `axe batch`: "argv[0]" is the subcommand's name. */
int cli_cute_main(int argc, char **argv);
int cli_batch_main(int argc, char **argv);
/* `axe render LAYOUT [options]` (cmd_render.c). */
int cli_render_main(int argc, char **argv);
/* `axe map <op> ...`: mapping expressions (cmd_map.c). */
int cli_map_main(int argc, char **argv);
/* The top-level Axe commands (`axe canon`, `axe tile`, ...; cmd_axe.c):
 * whether "name" is one, the list for `axe --help`, and the entry point
 * ("argv[0]" is the command's name). */
bool cli_axe_has(const char *name);
void cli_axe_list(FILE *f);
int cli_axe_main(int argc, char **argv);

/* `axe compile` and `axe run` (cmd_compile.c, cmd_run.c; the kernel
 * compiler, docs/compiler.md). */
int cli_compile_main(int argc, char **argv);
/* `axe synth` (cmd_synth.c): layout synthesis of `layout auto` tensors. */
int cli_synth_main(int argc, char **argv);
int cli_run_main(int argc, char **argv);

/* Answer every request line of "in" on "out" (the `axe batch` protocol);
 * CLI_EXIT_OK at the end of "in", CLI_EXIT_FAIL if reading or writing
 * fails. */
int cli_batch_run(FILE *in, FILE *out);

/* Whether "arg" asks for help: "--help" or "-h". */
bool cli_is_help(const char *arg);

/* Append "len" bytes of "s" in double quotes, escaped (\" \\ \xNN) and cut
 * after a few dozen bytes with "...". */
void cli_put_quoted(json_buf *out, const char *s, size_t len);
/* Append "<what> at offset N in "<text>": <reason>" for a failed parse. */
void cli_put_parse_error(json_buf *out, const char *text, size_t len,
                         axe_status st, const axe_diag *diag);
/* Append the reason of a failed operation: the diagnostic's message, or
 * the status's description when there is none. */
void cli_put_reason(json_buf *out, axe_status st, const axe_diag *diag);

/* Print "axe: <prefix><parse error of "text">" (cli_put_parse_error) to
 * stderr and return "code"; "prefix" (e.g. "render: shape: ") may be "". */
int cli_parse_fail(int code, const char *prefix, const char *text,
                   axe_status st, const axe_diag *diag);
/* Print "axe: <line>" to stderr and return "code". */
int cli_report(int code, const json_buf *line);
/* "axe: <cmd>: <printf text> (try 'axe <cmd> --help')"; returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The message of the last cli_usage report ("" if none). */
const char *cli_last_usage(void);

/* Parse "text" as a decimal integer ([-]digits, no spaces); AXE_ERR_SYNTAX
 * or AXE_ERR_OVERFLOW with the offset in "diag". */
axe_status cli_parse_int(const char *text, size_t len, int64_t *out,
                         axe_diag *diag);

/* Write "len" bytes of "s" to "f" and flush; false if that failed. */
bool cli_write(FILE *f, const char *s, size_t len);

#endif
