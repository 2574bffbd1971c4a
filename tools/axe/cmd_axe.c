/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The top-level Axe-layout commands (`axe canon L`, `axe tile A AS B BS`,
 * ...): the command table, option parsing, and the commands that are one
 * operation of the shared table (axe_ops.h) with operands in fixed slots.
 * `axe apply` and `axe back` live in cmd_axe_apply.c. Layouts are in the
 * Axe notation (docs/notation.md), shapes `[8,16]`, regions
 * `[[0,8],[8,24]]`, points `{laneid: 8, m: 1}` or `laneid=8,m=1`.
 * Invariant: every exit goes through one report of cli.h, so a failure
 * prints exactly one line on stderr.
 */
#include <string.h>

#include "cmd_axe.h"
#include "layout_internal.h"

static int cmd_canon(axe_invocation *inv);
static int cmd_group(axe_invocation *inv);
static int cmd_tile(axe_invocation *inv);
static int cmd_tile_of(axe_invocation *inv);
static int cmd_intersect(axe_invocation *inv);
static int cmd_slice(axe_invocation *inv);
static int cmd_sum(axe_invocation *inv);
static int cmd_size(axe_invocation *inv);
static int cmd_span(axe_invocation *inv);
static int cmd_equal(axe_invocation *inv);
static int cmd_check(axe_invocation *inv);
static int cmd_convert(axe_invocation *inv);
static int cmd_axis(axe_invocation *inv);

static const axe_cmd cmds[] = {
    {"canon", "full target=", "L", "the canonical form of L",
     "Drops unit shard iters and zero offsets, fuses adjacent shard iters\n"
     "on one axis (e1*s1 == s0) and sorts the replica (TIRx's canonical\n"
     "form). --target cuda also fuses thread axes as on a GPU (warpid*32 +\n"
     "laneid -> tx). --full gives the paper's normal form, which also\n"
     "normalizes replica and offset per axis and decides equivalence.\n",
     cmd_canon},
    {"group", "", "L SHAPE [SHAPE...]",
     "split the shard of L so that each dim of SHAPE owns a block",
     "Prints the refined layout and the separators: dim d owns the shard\n"
     "iters [seps[d], seps[d+1]). With several shapes, their common\n"
     "refinement (one separator list per shape).\n",
     cmd_group},
    {"tile", "target= tirx", "A A_SHAPE B B_SHAPE",
     "the tile A (x) B: A's tiles, each laid out by B",
     "The Kronecker product over the shape (A_SHAPE[d] * B_SHAPE[d])_d\n"
     "(the Axe paper's Theorem C.2): f(x||y) = f_A(x) (.) span(B) + f_B(y),\n"
     "canonicalized: every component of A on an axis a (shard and replica\n"
     "strides, offset) times span(B, a) = 1 + sum |s|(e-1) over B's shard\n"
     "and replica iters on a. A is the outer layout over A_SHAPE, B the\n"
     "inner one over B_SHAPE. --tirx: TIRx's tile (only A's shard iters on\n"
     "the axes of B's shard scaled, by TIRx's span: signed, B's offset\n"
     "included).\n",
     cmd_tile},
    {"tile-of", "inner outer raw target= tirx", "T T_SHAPE F F_SHAPE",
     "is T a tile of F? print the other factor",
     "--inner (the default): F is the inner layout over F_SHAPE; prints C\n"
     "with C (x) F == T. --outer: F is the outer layout; prints C with\n"
     "F (x) C == T. Exit 1 when no such C exists. The result is\n"
     "canonicalized unless --raw. --tirx: TIRx's tile (see tile).\n",
     cmd_tile_of},
    {"intersect", "axis= target= tile tirx", "A B",
     "the iter both layouts' shards produce in common",
     "The Axe paper's iter intersection (section 3.4): the single iter\n"
     "producing exactly the values both shards produce (with --axis, their\n"
     "iters on that axis), printed as a layout: S[8:2@P] and S[4:4@P] give\n"
     "S[4:4@P]; S[1:1] when only 0 is common. Exit 1, with the reason,\n"
     "when no single iter produces them; replicas and offsets are refused.\n"
     "--tile: the largest layout I (without replica or offset) with\n"
     "A = C_a (x) I and B = C_b (x) I over 1-D shapes, S[1:1] when nothing\n"
     "larger is common; --tirx: the same with TIRx's tile.\n",
     cmd_intersect},
    {"slice", "raw target=", "L SHAPE REGION",
     "the layout of REGION of L over SHAPE",
     "f(u) = f_L(u + begin) for u in the region [begin_d, end_d) of each\n"
     "dim, e.g. REGION [[0,8],[8,24]]. Exit 1 with the reason when no\n"
     "layout describes the region. Canonicalized unless --raw.\n",
     cmd_slice},
    {"sum", "recover-a recover-b raw", "A A_SHAPE B B_SHAPE",
     "the direct sum A + B, or recover a summand",
     "A + B over the interleaved shape (A0,B0,A1,B1,...):\n"
     "sum(a0,b0,a1,b1,...) = A(a) + B(b).\n"
     "--recover-a SUM I_SHAPE B B_SHAPE: A with A + B == SUM.\n"
     "--recover-b SUM I_SHAPE A A_SHAPE: B with A + B == SUM.\n"
     "Recovered summands are canonicalized unless --raw.\n",
     cmd_sum},
    {"size", "axis=", "L", "the number of logical indices of L",
     "The product of the shard extents (replicas do not count); with\n"
     "--axis, of the shard iters on that axis.\n",
     cmd_size},
    {"span", "axis= tirx", "L", "the extent L covers on its memory axes",
     "The Axe paper's span (Lemma C.1): 1 + sum of (e-1)*|s| over shard and\n"
     "replica iters, offset excluded; with --axis on that axis, without it\n"
     "over all memory axes together. --tirx: TIRx's span, 1 + sum of\n"
     "(e-1)*s plus the offset (signed: S[4:-1] has span -2).\n",
     cmd_span},
    {"apply", "base digits list shape=", "L [X|CRD]", "the points of L",
     "L(x) = { D(x) + r + O : r in R }, the paper's set, one point a line:\n"
     "  axe apply L X                  at the linear index X\n"
     "  axe apply L --shape S CRD      at coordinate CRD of S, e.g. [1,2]\n"
     "  axe apply L --shape S          a table of every coordinate of S\n"
     "  axe apply L                    a table of every linear index\n"
     "--base prints TIRx's base point D(x) + O instead of the set;\n"
     "--digits CRD gives one digit per shard iter (implies --base).\n"
     "A 2-D table is a grid (--list: one line per coordinate). In tables, axes "
     "are abbreviated (the legend is printed first) and\n"
     "' | ' separates the points of a replicated cell.\n",
     axe_cmd_apply},
    {"back", "replicas shape=", "L POINT", "the index of a point of L",
     "The smallest linear index whose base point is POINT (zero entries\n"
     "ignored), e.g. POINT {laneid: 8, m: 1} or laneid=8,m=1; with\n"
     "--replicas any point of its set. --shape S prints the coordinate in\n"
     "S (row-major) instead. Exit 1 when POINT is not an image.\n",
     axe_cmd_back},
    {"equal", "canonicalize equivalent target=", "A B",
     "whether A and B are the same layout",
     "Prints true or false. By default structural equality (shard in\n"
     "order, replica as a multiset, offsets ignoring zeros, swizzle);\n"
     "--canonicalize compares the canonical forms; --equivalent asks\n"
     "whether they induce the same set-valued map.\n",
     cmd_equal},
    {"check", "", "L", "whether L is well formed",
     "The thread axes of L must form one scope chain (TIRx's\n"
     "VerifyWellFormed); prints the scope they span, or the reason.\n",
     cmd_check},
    {"convert", "to-axe to-cute to= axes= holes shape= invert from= mesh=", "L",
     "CuTe / Axe / mapping / linear layouts",
     "A CuTe layout (4,8):(1,4) becomes the Axe layout S[(8,4):(4,1)]\n"
     "(modes reversed: CuTe is colexicographic, Axe lexicographic; a\n"
     "scaled basis E<k> goes to the axis named k), and back. The direction\n"
     "is guessed from the text unless --to-axe or --to-cute is given.\n"
     "--to cute|axe|mapping|linear|triton prints L (a CuTe or Axe layout, a\n"
     "Triton linear layout's text, or a mapping expression m![...] over\n"
     "--axes 'axes![A = 8, B = 4]') in\n"
     "that notation, or why it has none there (docs/cli.md); --holes\n"
     "turns a mapping's padding into holes of the Axe layout's span\n"
     "and a layout's holes into padding;\n"
     "--shape 4,8 names the linear layout's inputs dim0, dim1 and\n"
     "--invert prints its inverse (Triton's hardware -> dims form).\n"
     "--to triton prints Triton's distributed layout (register, lane,\n"
     "warp, block -> dim0, dim1 of --shape) of a layout on reg, laneid,\n"
     "warpid, cbx; --to axe reads such a text back (zero bases become\n"
     "replicas).\n"
     "--from jax|dtensor|alpa --mesh x=2,y=4 --shape [8,16] SPEC prints\n"
     "the Axe layout of a sharding spec (P('x', None), [Shard(0),\n"
     "Replicate()], S0R); --to jax|dtensor|alpa with --mesh and --shape\n"
     "prints a layout's spec, or why no spec expresses it.\n",
     cmd_convert},
    {"axis", "", "NAME", "what an axis name denotes",
     "Thread axes (with the scopes they index, subscope -> scope), memory\n"
     "axes and device axes; unknown names are memory axes.\n",
     cmd_axis},
};

#define NCMDS (sizeof cmds / sizeof cmds[0])

static const char help_footer[] =
    "Layouts are in the Axe notation, e.g. \"S[(8,4):(4@laneid,1)] + "
    "R[2:1@warpid] + 5\";\nshapes [8,16], regions [[0,8],[8,24]], points "
    "{laneid: 8, m: 1} (docs/cli.md).\nExit status: 0 ok, 1 no answer, 2 "
    "usage or syntax.\n";

/* ---- options ------------------------------------------------------------- */

/* The index of option "name" ("len" bytes) in "spec"; -1 if absent.
 * "*takes" says whether it takes a value. */
static int option_index(const char *spec, const char *name, size_t len,
                        bool *takes)
{
    int i = 0;
    for (const char *p = spec; *p != '\0'; i++) {
        size_t k = strcspn(p, " ");
        bool v = k > 0 && p[k - 1] == '=';
        if (k - v == len && len > 0 && strncmp(p, name, len) == 0) {
            *takes = v;
            return i;
        }
        p += k + (p[k] == ' ');
    }
    return -1;
}

bool axe_inv_has(const axe_invocation *inv, const char *name)
{
    bool takes;
    int i = option_index(inv->cmd->options, name, strlen(name), &takes);
    return i >= 0 && (inv->given & (1u << i));
}

const char *axe_inv_value(const axe_invocation *inv, const char *name)
{
    bool takes;
    int i = option_index(inv->cmd->options, name, strlen(name), &takes);
    return i >= 0 && (inv->given & (1u << i)) ? inv->value[i] : NULL;
}

static void print_cmd_help(const axe_cmd *c, FILE *f)
{
    fprintf(f, "usage: axe %s ", c->name);
    for (const char *p = c->options; *p != '\0';) {
        int k = (int)strcspn(p, " ");
        bool v = p[k - 1] == '=';
        fprintf(f, "[--%.*s%s] ", k - v, p, v ? " X" : "");
        p += k + (p[k] == ' ');
    }
    fprintf(f, "%s\n%s.\n%s%s", c->usage, c->summary, c->help, help_footer);
}

/* One option "arg" (argv[*i]); -1 to go on, else an exit code. */
static int take_option(axe_invocation *inv, int argc, char **argv, int *i)
{
    const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
    size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    bool takes;
    int k = option_index(inv->cmd->options, arg, len, &takes);
    if (k < 0 || (!takes && eq != NULL))
        return cli_usage(inv->cmd->name, "unknown option '%.40s'", argv[*i]);
    if (k >= AXE_CMD_MAX_OPTIONS) /* a table longer than the slots */
        return cli_usage(inv->cmd->name,
                         "option '%.40s' is beyond the %d options a command "
                         "may have (an internal limit)",
                         argv[*i], AXE_CMD_MAX_OPTIONS);
    if (inv->given & (1u << k))
        return cli_usage(inv->cmd->name, "option '--%.*s' given twice",
                         (int)len, arg);
    inv->given |= 1u << k;
    inv->value[k] = NULL;
    if (!takes)
        return -1;
    if (eq != NULL) {
        inv->value[k] = eq + 1;
    } else if (*i + 1 < argc) {
        inv->value[k] = argv[++*i];
    } else {
        return cli_usage(inv->cmd->name, "option '--%.*s' needs a value",
                         (int)len, arg);
    }
    return -1;
}

/* Sort argv into options and operands; -1 to go on, else an exit code. */
static int split_args(axe_invocation *inv, int argc, char **argv)
{
    bool operands_only = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        int code;
        if (!operands_only && strcmp(arg, "--") == 0) {
            operands_only = true;
        } else if (!operands_only && cli_is_help(arg)) {
            print_cmd_help(inv->cmd, stdout);
            return CLI_EXIT_OK;
        } else if (!operands_only && strncmp(arg, "--", 2) == 0) {
            if ((code = take_option(inv, argc, argv, &i)) >= 0)
                return code;
        } else if (inv->npos >= AXE_CMD_MAX_OPERANDS) {
            return cli_usage(inv->cmd->name, "too many operands");
        } else {
            inv->pos[inv->npos++] = arg;
        }
    }
    return -1;
}

/* ---- operands ------------------------------------------------------------ */

static int syntax_error(const char *text, axe_status st, const axe_diag *diag)
{
    return cli_parse_fail(CLI_EXIT_USAGE, "", text, st, diag);
}

static axe_status fill_text(axop_args *args, axop_key key, const char *text,
                            axe_diag *diag)
{
    size_t len = strlen(text);
    switch (axop_key_kind(key)) {
    case AXOP_K_LAYOUT:
        return axe_parse_layout(text, len, &args->layout[key - AXOP_LAYOUT],
                                diag);
    case AXOP_K_INTS:
        return axop_parse_ints(text, len, &args->list[key - AXOP_SHAPE], diag);
    case AXOP_K_REGION:
        return axop_parse_region(text, len, args->region, &args->nregion, diag);
    case AXOP_K_POINT:
        return axop_parse_point(text, len, &args->point, diag);
    case AXOP_K_INT:
        return cli_parse_int(text, len, &args->num[key - AXOP_NUM], diag);
    case AXOP_K_TEXT:
        args->text = text;
        args->text_len = len;
        return AXE_OK;
    case AXOP_K_SHAPES:
    case AXOP_K_STR:
    case AXOP_K_BOOL:
        break;
    }
    if (len >= AXOP_STR_MAX) {
        diag->offset = AXOP_STR_MAX - 1;
        snprintf(diag->message, sizeof diag->message, "longer than %d bytes",
                 AXOP_STR_MAX - 1);
        return AXE_ERR_SYNTAX;
    }
    memcpy(args->str[key - AXOP_AXIS], text, len + 1);
    return AXE_OK;
}

int axe_inv_fill(const axe_invocation *inv, axop_args *args, axop_key key,
                 const char *text)
{
    axe_diag diag;
    axe_status st;
    (void)inv;
    axe_diag_clear(&diag);
    st = fill_text(args, key, text, &diag);
    if (st != AXE_OK)
        return syntax_error(text, st, &diag);
    args->have |= AXOP_BIT(key);
    return -1;
}

int axe_inv_count(const axe_invocation *inv, int n)
{
    if (inv->npos < n)
        return cli_usage(inv->cmd->name, "expects %s", inv->cmd->usage);
    if (inv->npos > n)
        return cli_usage(inv->cmd->name, "too many operands; expects %s",
                         inv->cmd->usage);
    return -1;
}

int axe_inv_common(const axe_invocation *inv, axop_args *args)
{
    const char *target = axe_inv_value(inv, "target");
    const char *axis = axe_inv_value(inv, "axis");
    int code;
    if (target != NULL) {
        if (strcmp(target, "cuda") != 0 && strcmp(target, "none") != 0)
            return cli_usage(inv->cmd->name,
                             "--target is 'cuda' or 'none', not '%.40s'",
                             target);
        if ((code = axe_inv_fill(inv, args, AXOP_TARGET, target)) >= 0)
            return code;
    }
    if (axis != NULL && (code = axe_inv_fill(inv, args, AXOP_AXIS, axis)) >= 0)
        return code;
    if (axe_inv_has(inv, "tirx")) {
        args->have |= AXOP_BIT(AXOP_TIRX);
        args->flag[AXOP_TIRX - AXOP_CANONICALIZE] = true;
    }
    if (axe_inv_has(inv, "tile")) {
        args->have |= AXOP_BIT(AXOP_TILE);
        args->flag[AXOP_TILE - AXOP_CANONICALIZE] = true;
    }
    return -1;
}

/* ---- running ------------------------------------------------------------- */

int axe_inv_fail(const axe_invocation *inv, axe_status st, const axe_diag *diag)
{
    json_buf line;
    int code;
    json_buf_init(&line, NULL, NULL);
    json_buf_put_rawz(&line, inv->cmd->name);
    json_buf_put_rawz(&line, ": ");
    if (st == AXE_OK) {
        json_buf_put_rawz(&line, "no answer: ");
        json_buf_put_rawz(&line, diag->message);
    } else {
        cli_put_reason(&line, st, diag);
        json_buf_put_rawz(&line, " (");
        json_buf_put_rawz(&line, axe_status_name(st));
        json_buf_put_rawz(&line, ")");
    }
    code = cli_report(CLI_EXIT_FAIL, &line);
    json_buf_free(&line);
    return code;
}

int axe_inv_run(const axe_invocation *inv, const char *name, axop_args *args,
                axop_result *res)
{
    const axop *op = axop_find(name, strlen(name));
    axe_diag diag;
    axe_status st;
    if (op == NULL)
        return cli_usage(inv->cmd->name, "no operation %s", name);
    axe_diag_clear(&diag);
    st = axop_run(op, args, res, &diag);
    if (st != AXE_OK)
        return axe_inv_fail(inv, st, &diag);
    if (res->kind == AXOP_R_NULL) {
        if (diag.message[0] == '\0')
            snprintf(diag.message, sizeof diag.message, "no such layout");
        return axe_inv_fail(inv, AXE_OK, &diag);
    }
    return -1;
}

int axe_inv_print(const json_buf *text)
{
    bool ok = !text->failed &&
              cli_write(stdout, json_buf_str(text), text->len) &&
              cli_write(stdout, "\n", 1);
    if (!ok)
        fprintf(stderr, "axe: cannot write the result\n");
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Fill "keys" from the operands in order, set --target / --axis and
 * "canonicalize", run "op" and print its result. */
static int simple(axe_invocation *inv, const char *op, const axop_key *keys,
                  int n, bool canonicalize)
{
    static axop_args args;
    static axop_result res;
    json_buf out;
    int code;
    axop_args_init(&args);
    if ((code = axe_inv_count(inv, n)) >= 0)
        return code;
    for (int i = 0; i < n; i++)
        if ((code = axe_inv_fill(inv, &args, keys[i], inv->pos[i])) >= 0)
            return code;
    if ((code = axe_inv_common(inv, &args)) >= 0)
        return code;
    args.have |= canonicalize ? AXOP_BIT(AXOP_CANONICALIZE) : 0;
    args.flag[AXOP_CANONICALIZE - AXOP_CANONICALIZE] = canonicalize;
    axop_result_init(&res);
    code = axe_inv_run(inv, op, &args, &res);
    if (code < 0) {
        json_buf_init(&out, NULL, NULL);
        axop_result_write_text(&res, &out);
        code = axe_inv_print(&out);
        json_buf_free(&out);
    }
    axop_result_free(&res);
    return code;
}

/* Reject giving two of the options "a" and "b". */
static int exclusive(const axe_invocation *inv, const char *a, const char *b)
{
    if (axe_inv_has(inv, a) && axe_inv_has(inv, b))
        return cli_usage(inv->cmd->name, "give --%s or --%s, not both", a, b);
    return -1;
}

/* ---- the commands -------------------------------------------------------- */

static int cmd_canon(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_LAYOUT};
    if (axe_inv_has(inv, "full") && axe_inv_has(inv, "target"))
        return cli_usage(inv->cmd->name, "--full takes no --target");
    return simple(inv, axe_inv_has(inv, "full") ? "normalize" : "canonicalize",
                  keys, 1, false);
}

static int cmd_tile(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_OUTER, AXOP_OUTER_SHAPE, AXOP_INNER,
                                    AXOP_INNER_SHAPE};
    return simple(inv, "tile", keys, 4, false);
}

static int cmd_tile_of(axe_invocation *inv)
{
    static const axop_key inner[] = {AXOP_TILED, AXOP_TILED_SHAPE, AXOP_INNER,
                                     AXOP_INNER_SHAPE};
    static const axop_key outer[] = {AXOP_TILED, AXOP_TILED_SHAPE, AXOP_OUTER,
                                     AXOP_OUTER_SHAPE};
    bool canon = !axe_inv_has(inv, "raw");
    int code = exclusive(inv, "inner", "outer");
    if (code >= 0)
        return code;
    if (axe_inv_has(inv, "outer"))
        return simple(inv, "is_tile_outer", outer, 4, canon);
    return simple(inv, "is_tile_inner", inner, 4, canon);
}

static int cmd_intersect(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_A, AXOP_B};
    return simple(inv, "intersect_iters", keys, 2, false);
}

static int cmd_slice(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_LAYOUT, AXOP_SHAPE, AXOP_REGION};
    return simple(inv, "slice", keys, 3, !axe_inv_has(inv, "raw"));
}

static int cmd_sum(axe_invocation *inv)
{
    static const axop_key sum[] = {AXOP_A, AXOP_A_SHAPE, AXOP_B, AXOP_B_SHAPE};
    static const axop_key ra[] = {AXOP_SUM, AXOP_INTERLEAVED_SHAPE, AXOP_B,
                                  AXOP_B_SHAPE};
    static const axop_key rb[] = {AXOP_SUM, AXOP_INTERLEAVED_SHAPE, AXOP_A,
                                  AXOP_A_SHAPE};
    bool canon = !axe_inv_has(inv, "raw");
    int code = exclusive(inv, "recover-a", "recover-b");
    if (code >= 0)
        return code;
    if (axe_inv_has(inv, "recover-a"))
        return simple(inv, "is_direct_sum_right", ra, 4, canon);
    if (axe_inv_has(inv, "recover-b"))
        return simple(inv, "is_direct_sum_left", rb, 4, canon);
    if (axe_inv_has(inv, "raw"))
        return cli_usage(inv->cmd->name, "--raw goes with --recover-a or "
                                         "--recover-b");
    return simple(inv, "direct_sum", sum, 4, false);
}

static int cmd_size(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_LAYOUT};
    return simple(inv, "size", keys, 1, false);
}

static int cmd_span(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_LAYOUT};
    return simple(inv, "span", keys, 1, false);
}

static int cmd_equal(axe_invocation *inv)
{
    static const axop_key keys[] = {AXOP_A, AXOP_B};
    int code = exclusive(inv, "canonicalize", "equivalent");
    if (code >= 0)
        return code;
    return simple(inv, axe_inv_has(inv, "equivalent") ? "equivalent" : "equal",
                  keys, 2, axe_inv_has(inv, "canonicalize"));
}

/* `axe group L S` is group; with several shapes, group_many. */
static int cmd_group(axe_invocation *inv)
{
    static const axop_key one[] = {AXOP_LAYOUT, AXOP_SHAPE};
    static axop_args args;
    static axop_result res;
    json_buf out;
    int code;
    if (inv->npos <= 2)
        return simple(inv, "group", one, 2, false);
    if (inv->npos - 1 > AXOP_SHAPES_MAX)
        return cli_usage(inv->cmd->name, "at most %d shapes", AXOP_SHAPES_MAX);
    axop_args_init(&args);
    if ((code = axe_inv_fill(inv, &args, AXOP_LAYOUT, inv->pos[0])) >= 0)
        return code;
    for (int k = 1; k < inv->npos; k++) {
        if ((code = axe_inv_fill(inv, &args, AXOP_SHAPE, inv->pos[k])) >= 0)
            return code;
        args.shapes[k - 1] = args.list[0];
    }
    args.have = AXOP_BIT(AXOP_LAYOUT) | AXOP_BIT(AXOP_SHAPES);
    args.nshapes = inv->npos - 1;
    axop_result_init(&res);
    code = axe_inv_run(inv, "group_many", &args, &res);
    if (code < 0) {
        json_buf_init(&out, NULL, NULL);
        axop_result_write_text(&res, &out);
        code = axe_inv_print(&out);
        json_buf_free(&out);
    }
    axop_result_free(&res);
    return code;
}

/* "well-formed" and the scope chain of the thread axes. */
static int cmd_check(axe_invocation *inv)
{
    static axop_args args;
    axe_diag diag;
    axe_status st;
    bool has;
    axe_scope sub, scope;
    json_buf out;
    int code;
    axop_args_init(&args);
    if ((code = axe_inv_count(inv, 1)) >= 0 ||
        (code = axe_inv_fill(inv, &args, AXOP_LAYOUT, inv->pos[0])) >= 0)
        return code;
    axe_diag_clear(&diag);
    st = axe_layout_verify_well_formed(&args.layout[0], &diag);
    if (st == AXE_OK)
        st = axe_layout_get_scope(&args.layout[0], &has, &sub, &scope, &diag);
    if (st != AXE_OK)
        return axe_inv_fail(inv, st, &diag);
    json_buf_init(&out, NULL, NULL);
    json_buf_put_rawz(&out, "well-formed: ");
    if (!has) {
        json_buf_put_rawz(&out, "no thread axes in the shard");
    } else {
        json_buf_put_rawz(&out, "scope ");
        json_buf_put_rawz(&out, axe_scope_name(sub));
        json_buf_put_rawz(&out, " -> ");
        json_buf_put_rawz(&out, axe_scope_name(scope));
        json_buf_put_rawz(&out, " (its thread axes pick one ");
        json_buf_put_rawz(&out, axe_scope_name(sub));
        json_buf_put_rawz(&out, " within a ");
        json_buf_put_rawz(&out, axe_scope_name(scope));
        json_buf_put_rawz(&out, ")");
    }
    code = axe_inv_print(&out);
    json_buf_free(&out);
    return code;
}

/* Whether "text" reads as a CuTe layout, plain or swizzled (else it is
 * taken as an Axe layout). */
static bool looks_cute(const char *text)
{
    static axe_cute_object o;
    axe_diag d;
    return axe_parse_cute(text, strlen(text), &o, &d) == AXE_OK &&
           (o.kind == AXE_CUTE_KIND_LAYOUT || o.kind == AXE_CUTE_KIND_COMPOSED);
}

/* A syntax error in the CuTe layout "text" (exit 2), or -1. */
static int check_cute(const char *text)
{
    static axe_cute_object o;
    axe_diag d;
    axe_status st;
    axe_diag_clear(&d);
    st = axe_parse_cute(text, strlen(text), &o, &d);
    return st == AXE_OK ? -1 : syntax_error(text, st, &d);
}

static int cmd_convert(axe_invocation *inv)
{
    static const axop_key axe_in[] = {AXOP_LAYOUT};
    static const axop_key cute_in[] = {AXOP_TEXT};
    bool to_axe;
    const char *to = axe_inv_value(inv, "to");
    int code = exclusive(inv, "to-axe", "to-cute");
    if (code < 0 && axe_inv_has(inv, "from"))
        return to != NULL ? cli_usage("convert", "--from and --to exclude "
                                                 "each other")
                          : axe_cmd_convert_shard(
                                inv, axe_inv_value(inv, "from"), NULL);
    if (code < 0 && to != NULL &&
        (strcmp(to, "jax") == 0 || strcmp(to, "dtensor") == 0 ||
         strcmp(to, "alpa") == 0))
        return axe_cmd_convert_shard(inv, NULL, to);
    if (code < 0 && axe_inv_has(inv, "to"))
        return axe_cmd_convert_to(inv, axe_inv_value(inv, "to"));
    if (code >= 0 || (code = axe_inv_count(inv, 1)) >= 0)
        return code;
    to_axe = axe_inv_has(inv, "to-axe") ||
             (!axe_inv_has(inv, "to-cute") && looks_cute(inv->pos[0]));
    if (to_axe && (code = check_cute(inv->pos[0])) >= 0)
        return code;
    return to_axe ? simple(inv, "from_cute", cute_in, 1, false)
                  : simple(inv, "to_cute", axe_in, 1, false);
}

/* Where "name" (padded) is one spelling of an axis with two
 * (axe__axis_id: the paper's lane and warp are laneid and warpid), say
 * so. */
static void put_spelling(json_buf *out, const char *name)
{
    static const char *const paper[] = {"lane", "warp"};
    const char *id = axe__axis_id(name);
    char p[AXE_AXIS_NAME_MAX];
    size_t i;
    if (id != name) {
        json_buf_put_rawz(out, " (the paper's spelling of ");
        json_buf_put_rawz(out, id);
        json_buf_put_rawz(out, ": the same axis)");
    }
    for (i = 0; i < sizeof paper / sizeof paper[0]; i++) {
        memset(p, 0, sizeof p);
        memcpy(p, paper[i], strlen(paper[i]));
        if (strcmp(axe__axis_id(p), name) == 0 && strcmp(p, name) != 0) {
            json_buf_put_rawz(out, " (the paper spells it ");
            json_buf_put_rawz(out, paper[i]);
            json_buf_put_rawz(out, ": the same axis)");
        }
    }
}

static int cmd_axis(axe_invocation *inv)
{
    axe_axis_info info;
    axe_diag diag;
    axe_status st;
    json_buf out;
    int code;
    if ((code = axe_inv_count(inv, 1)) >= 0)
        return code;
    axe_diag_clear(&diag);
    st = axe_axis_lookup(inv->pos[0], &info, &diag);
    if (st != AXE_OK)
        return axe_inv_fail(inv, st, &diag);
    json_buf_init(&out, NULL, NULL);
    json_buf_put_rawz(&out, info.name);
    json_buf_put_rawz(&out, ": ");
    json_buf_put_rawz(&out, axe_axis_kind_name(info.kind));
    json_buf_put_rawz(&out, " axis");
    if (info.kind == AXE_AXIS_THREAD) {
        json_buf_put_rawz(&out, ", one step is a ");
        json_buf_put_rawz(&out, axe_scope_name(info.subscope));
        json_buf_put_rawz(&out, ", ranging within a ");
        json_buf_put_rawz(&out, axe_scope_name(info.scope));
    }
    put_spelling(&out, info.name);
    if (!info.registered)
        json_buf_put_rawz(&out, " (not registered: unknown names are "
                                "memory axes)");
    code = axe_inv_print(&out);
    json_buf_free(&out);
    return code;
}

/* ---- entry --------------------------------------------------------------- */

bool cli_axe_has(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return true;
    return false;
}

void cli_axe_list(FILE *f)
{
    for (size_t i = 0; i < NCMDS; i++)
        fprintf(f, "  %-8s %-20s %s\n", cmds[i].name, cmds[i].usage,
                cmds[i].summary);
}

int cli_axe_main(int argc, char **argv)
{
    static axe_invocation inv;
    int code;
    memset(&inv, 0, sizeof inv);
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(cmds[i].name, argv[0]) == 0)
            inv.cmd = &cmds[i];
    if (inv.cmd == NULL)
        return cli_usage("axe", "unknown command '%.40s'", argv[0]);
    code = split_args(&inv, argc - 1, argv + 1);
    return code >= 0 ? code : inv.cmd->run(&inv);
}
