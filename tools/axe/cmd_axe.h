/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the files of the top-level Axe commands share (cmd_axe.c: the
 * command table, option parsing and the simple commands; cmd_axe_apply.c:
 * `axe apply` and `axe back`). An invocation is argv taken apart into
 * options (each declared by the command) and positional operands.
 * Invariant: every handler ends in exactly one exit code of cli.h, with
 * exactly one line on stderr when it is not 0.
 */
#ifndef AXE_TOOLS_CMD_AXE_H
#define AXE_TOOLS_CMD_AXE_H

#include "axe_ops.h"
#include "cli.h"

#define AXE_CMD_MAX_OPERANDS 24
#define AXE_CMD_MAX_OPTIONS 16 /* at most 32: "given" is a bit set */

_Static_assert(AXE_CMD_MAX_OPTIONS <= 32,
               "the option set \"given\" is 32 bits");

typedef struct axe_invocation axe_invocation;

typedef struct axe_cmd {
    const char *name;    /* "tile-of" */
    const char *options; /* "inner outer raw target=": '=' takes a value */
    const char *usage;   /* "T T_SHAPE F F_SHAPE" */
    const char *summary; /* one line */
    const char *help;    /* the rest of --help (operands, options) */
    int (*run)(axe_invocation *inv);
} axe_cmd;

struct axe_invocation {
    const axe_cmd *cmd;
    unsigned given;                         /* bit i: option i given */
    const char *value[AXE_CMD_MAX_OPTIONS]; /* option i's value */
    int npos;
    const char *pos[AXE_CMD_MAX_OPERANDS];
};

/* Whether option "name" (without "--") was given; its value or NULL. */
bool axe_inv_has(const axe_invocation *inv, const char *name);
const char *axe_inv_value(const axe_invocation *inv, const char *name);

/* Parse "text" into the slot "key" of "args" by its kind; -1 on success,
 * else the exit code after a one-line report (2 for a syntax error). */
int axe_inv_fill(const axe_invocation *inv, axop_args *args, axop_key key,
                 const char *text);
/* The positional operands must be exactly "n" (a usage error if not). */
int axe_inv_count(const axe_invocation *inv, int n);
/* Copy --target and --axis into "args"; -1 or an exit code. */
int axe_inv_common(const axe_invocation *inv, axop_args *args);

/* Run op "name" and leave its result in "res"; -1 on success, else the
 * exit code after the report (1: no answer; "no layout" is a failure). */
int axe_inv_run(const axe_invocation *inv, const char *name, axop_args *args,
                axop_result *res);
/* Report a failed operation as "axe: <cmd>: <reason> (<STATUS>)"; 1. */
int axe_inv_fail(const axe_invocation *inv, axe_status st,
                 const axe_diag *diag);
/* Print "text" and a newline on stdout; 0, or 1 if writing fails. */
int axe_inv_print(const json_buf *text);

int axe_cmd_apply(axe_invocation *inv);
int axe_cmd_back(axe_invocation *inv);
/* `axe convert --to cute|axe|mapping|linear` (cmd_convert_to.c). */
int axe_cmd_convert_to(axe_invocation *inv, const char *to);
/* --from jax|dtensor|alpa (a spec to a layout) or --to one of those (a
 * layout to a spec; "from" NULL), over --mesh and --shape. */
int axe_cmd_convert_shard(axe_invocation *inv, const char *from,
                          const char *to);

#endif
