/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe cute <command> [options] operands...`: one command per CuTe
 * operation. Each command names an entry of the op table (cute_ops.h) and
 * says how its positional operands fill cute_args ("slots": a, b, c are
 * CuTe objects, n an integer, * any number of mode indices; slots after
 * '|' are optional). Divide and product pick their variant with a flag.
 * Invariant: every exit goes through one of the reports of cli.h, so a
 * failure prints exactly one line on stderr.
 */
#include <string.h>

#include "cli.h"
#include "cute_ops.h"

#define MAX_OPERANDS 24

typedef struct cute_cmd {
    const char *name;     /* "compose", "swizzle apply" */
    const char *op;       /* op table name, or its suffix with variants */
    const char *variants; /* "logical zipped ...": --logical etc. */
    const char *slots;    /* "ab|c" */
    const char *usage;    /* "A SHAPE [ORDER]" */
    const char *summary;
} cute_cmd;

static const cute_cmd cmds[] = {
    {"print", "print", NULL, "a", "L",
     "draw a rank-2 layout as a table of L(i,j) (CuTe's print_layout)"},
    {"eval", "eval", NULL, "ab", "L IDX|CRD",
     "L at an index (5) or a coordinate (\"(1,2)\")"},
    {"size", "size", NULL, "a|*", "L [I...]",
     "the size of L, or of its mode get<I...>(L)"},
    {"cosize", "cosize", NULL, "a|*", "L [I...]",
     "the cosize of L, or of its mode get<I...>(L)"},
    {"rank", "rank", NULL, "a|*", "L [I...]", "the number of top modes"},
    {"depth", "depth", NULL, "a|*", "L [I...]", "the nesting depth"},
    {"coalesce", "coalesce", NULL, "a|b", "L [PROFILE]",
     "the same function with the fewest modes (by mode with PROFILE)"},
    {"filter", "filter", NULL, "a", "L",
     "drop size-1 and stride-0 modes, then coalesce"},
    {"flatten", "flatten", NULL, "a", "L", "all leaves as top modes"},
    {"compose", "composition", NULL, "ab", "A B",
     "A o B: R(i) = A(B(i)); B a layout, a tiler <..>/[..] or a shape"},
    {"complement", "complement", NULL, "a|b", "[--extended] A [COTARGET]",
     "the ordered layout disjoint from A that fills its gaps up to "
     "COTARGET (default: cosize; all of them only when each stride is a "
     "multiple of size x stride of the mode below it); --extended keeps "
     "its last mode (the CuTe paper's)"},
    {"right-inverse", "right_inverse", NULL, "a", "L",
     "the largest R with L(R(k)) = k"},
    {"left-inverse", "left_inverse", NULL, "a", "L",
     "R with R(L(k)) = k for an injective L"},
    {"nullspace", "nullspace", NULL, "a", "L",
     "a layout onto the indices k with L(k) = 0"},
    {"divide", "divide", "logical zipped tiled flat", "ab", "A T",
     "split A into tiles of T (a layout, tiler or shape)"},
    {"product", "product", "logical zipped tiled flat blocked raked", "ab",
     "A B", "repeat the tile A in the layout B"},
    {"tile-to-shape", "tile_to_shape", NULL, "ab|c", "A SHAPE [ORDER]",
     "repeat A to cover SHAPE, tiles ordered by ORDER"},
    {"slice", "slice", NULL, "ab", "L CRD", "the modes of L where CRD has '_'"},
    {"dice", "dice", NULL, "ab", "L CRD", "the modes of L where CRD is fixed"},
    {"max-common-layout", "max_common_layout", NULL, "ab", "A B",
     "the largest compact R with A o R = B o R"},
    {"max-common-vector", "max_common_vector", NULL, "ab", "A B",
     "the size of max-common-layout"},
    {"upcast", "upcast", NULL, "an", "L N", "N elements become one"},
    {"downcast", "downcast", NULL, "an", "L N", "one element becomes N"},
    {"recast", "recast_layout", NULL, "ann", "L OLD NEW",
     "reinterpret OLD-bit elements as NEW-bit elements"},
    {"identity", "identity", NULL, "a", "SHAPE",
     "the layout mapping each coordinate of SHAPE to itself"},
    {"swizzle apply", "swizzle_apply", NULL, "an", "S X",
     "the swizzle S applied to the offset X"},
};

#define NCMDS (sizeof cmds / sizeof cmds[0])

/* The boolean flag of command "c" (--extended sets CUTE_ARG_EXTENDED), or
 * NULL. */
static const char *cmd_option(const cute_cmd *c)
{
    return strcmp(c->name, "complement") == 0 ? "extended" : NULL;
}

/* "[--a|--b|...] " for the space-separated "variants"; nothing if NULL. */
static void print_variants(FILE *f, const char *variants)
{
    if (variants == NULL)
        return;
    fputc('[', f);
    for (const char *p = variants; *p != '\0';) {
        int k = (int)strcspn(p, " ");
        fprintf(f, "%s--%.*s", p == variants ? "" : "|", k, p);
        p += k + (p[k] == ' ');
    }
    fputs("] ", f);
}

static void print_cmd_help(const cute_cmd *c, FILE *f)
{
    fprintf(f, "usage: axe cute %s ", c->name);
    print_variants(f, c->variants);
    fprintf(f, "%s\n%s.\n", c->usage, c->summary);
    if (c->variants != NULL)
        fprintf(f, "A flag chooses the kind; the default is the first.\n");
    fprintf(f, "Operands are in the CuTe notation (docs/notation.md).\n"
               "Exit status: 0 ok, 1 no answer, 2 usage or syntax.\n");
}

static void print_cute_help(FILE *f)
{
    fprintf(f, "usage: axe cute <command> [options] operands...\n"
               "CuTe layout algebra; operands in the CuTe notation, e.g. "
               "\"(4,8):(1,4)\".\ncommands:\n");
    for (size_t i = 0; i < NCMDS; i++) {
        fprintf(f, "  %-18s ", cmds[i].name);
        print_variants(f, cmds[i].variants);
        fprintf(f, "%s\n      %s\n", cmds[i].usage, cmds[i].summary);
    }
    fprintf(f, "'axe cute <command> --help' describes a command.\n");
}

/* The command named by argv[0] (argv[0..1] for "swizzle apply"). */
static const cute_cmd *find_cmd(int argc, char **argv, int *used)
{
    char two[64];
    *used = 1;
    if (argc >= 2 && strcmp(argv[0], "swizzle") == 0 && strlen(argv[1]) < 32) {
        snprintf(two, sizeof two, "swizzle %s", argv[1]);
        *used = 2;
    } else {
        snprintf(two, sizeof two, "%.60s", argv[0]);
    }
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(cmds[i].name, two) == 0)
            return &cmds[i];
    return NULL;
}

/* Whether "flag" is one of the space-separated "variants". */
static bool is_variant(const char *variants, const char *flag)
{
    size_t n = strlen(flag);
    for (const char *p = variants; *p != '\0';) {
        size_t k = strcspn(p, " ");
        if (k == n && n > 0 && strncmp(p, flag, n) == 0)
            return true;
        p += k + (p[k] == ' ');
    }
    return false;
}

/* The invocation after options are taken apart. */
typedef struct invocation {
    const cute_cmd *cmd;
    char label[40]; /* "cute compose" */
    char variant[16];
    bool option; /* the command's boolean flag was given */
    int npos;
    const char *pos[MAX_OPERANDS];
} invocation;

/* Sort argv into flags and operands; -1 to go on, else an exit code. */
static int split_args(invocation *inv, int argc, char **argv)
{
    bool operands_only = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!operands_only && strcmp(arg, "--") == 0) {
            operands_only = true;
        } else if (!operands_only && cli_is_help(arg)) {
            print_cmd_help(inv->cmd, stdout);
            return CLI_EXIT_OK;
        } else if (!operands_only && cmd_option(inv->cmd) != NULL &&
                   strncmp(arg, "--", 2) == 0 &&
                   strcmp(arg + 2, cmd_option(inv->cmd)) == 0) {
            inv->option = true;
        } else if (!operands_only && strncmp(arg, "--", 2) == 0) {
            if (inv->cmd->variants == NULL ||
                !is_variant(inv->cmd->variants, arg + 2))
                return cli_usage(inv->label, "unknown option '%.40s'", arg);
            if (inv->variant[0] != '\0')
                return cli_usage(inv->label, "give only one kind flag");
            snprintf(inv->variant, sizeof inv->variant, "%s", arg + 2);
        } else if (inv->npos >= MAX_OPERANDS) {
            return cli_usage(inv->label, "too many operands");
        } else {
            inv->pos[inv->npos++] = arg;
        }
    }
    return -1;
}

/* An integer operand: "n" (slot 'n') or a mode index (slot '*'). */
static int fill_int(const invocation *inv, char slot, const char *text,
                    cute_args *args)
{
    axe_diag diag;
    axe_status st;
    int64_t v;
    if ((slot == 'n' && args->nn >= 2) ||
        (slot == '*' && args->nmode >= CUTE_MODE_MAX))
        return cli_usage(inv->label, "too many integer operands");
    axe_diag_clear(&diag);
    st = cli_parse_int(text, strlen(text), &v, &diag);
    if (st != AXE_OK)
        return cli_parse_fail(CLI_EXIT_USAGE, "", text, st, &diag);
    if (slot == 'n') {
        args->n[args->nn++] = v;
        args->have |= CUTE_ARG_N;
    } else {
        args->mode[args->nmode++] = v;
        args->have |= CUTE_ARG_MODE;
    }
    return -1;
}

/* Put operand "text" into the slot "slot" of "args"; -1 or an exit code. */
static int fill_slot(const invocation *inv, char slot, const char *text,
                     cute_args *args)
{
    axe_cute_object *o = &args->a;
    unsigned bit = CUTE_ARG_A;
    axe_diag diag;
    axe_status st;
    if (slot == 'n' || slot == '*')
        return fill_int(inv, slot, text, args);
    if (slot == 'b') {
        o = &args->b;
        bit = CUTE_ARG_B;
    } else if (slot == 'c') {
        o = &args->c;
        bit = CUTE_ARG_C;
    }
    axe_diag_clear(&diag);
    st = axe_parse_cute(text, strlen(text), o, &diag);
    if (st != AXE_OK)
        return cli_parse_fail(CLI_EXIT_USAGE, "", text, st, &diag);
    args->have |= bit;
    return -1;
}

/* Fill "args" from the operands by the command's slots. */
static int fill_args(const invocation *inv, cute_args *args)
{
    const char *s = inv->cmd->slots;
    bool optional = false;
    int k = 0;
    for (; *s != '\0'; s++) {
        int code;
        if (*s == '|') {
            optional = true;
            continue;
        }
        if (k >= inv->npos) {
            if (optional)
                return -1;
            return cli_usage(inv->label, "expects %s", inv->cmd->usage);
        }
        do {
            code = fill_slot(inv, *s, inv->pos[k++], args);
            if (code >= 0)
                return code;
        } while (*s == '*' && k < inv->npos);
    }
    if (k < inv->npos)
        return cli_usage(inv->label, "too many operands; expects %s",
                         inv->cmd->usage);
    return -1;
}

static int report_failure(const invocation *inv, axe_status st,
                          const axe_diag *diag)
{
    json_buf line;
    int code;
    json_buf_init(&line, NULL, NULL);
    json_buf_put_rawz(&line, inv->label);
    json_buf_put_rawz(&line, ": ");
    cli_put_reason(&line, st, diag);
    json_buf_put_rawz(&line, " (");
    json_buf_put_rawz(&line, axe_status_name(st));
    json_buf_put_rawz(&line, ")");
    code = cli_report(CLI_EXIT_FAIL, &line);
    json_buf_free(&line);
    return code;
}

static int print_result(const cute_result *res)
{
    json_buf out;
    bool ok;
    json_buf_init(&out, NULL, NULL);
    cute_result_write(res, &out);
    if (out.len == 0 || json_buf_str(&out)[out.len - 1] != '\n')
        json_buf_put_rawz(&out, "\n");
    ok = !out.failed && cli_write(stdout, json_buf_str(&out), out.len);
    json_buf_free(&out);
    if (!ok)
        fprintf(stderr, "axe: cannot write the result\n");
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Look the op up (variant + "_" + op for divide/product) and run it. */
static int run_op(const invocation *inv, const cute_args *args)
{
    char name[64];
    const cute_op *op;
    cute_result res;
    axe_diag diag;
    axe_status st;
    int code;
    if (inv->cmd->variants == NULL)
        snprintf(name, sizeof name, "%s", inv->cmd->op);
    else
        snprintf(name, sizeof name, "%s_%s",
                 inv->variant[0] != '\0' ? inv->variant : "logical",
                 inv->cmd->op);
    op = cute_op_find(name, strlen(name));
    if (op == NULL)
        return cli_usage(inv->label, "no operation %s", name);
    axe_diag_clear(&diag);
    cute_result_init(&res);
    st = cute_op_run(op, args, &res, &diag);
    code = st == AXE_OK ? print_result(&res) : report_failure(inv, st, &diag);
    cute_result_free(&res);
    return code;
}

int cli_cute_main(int argc, char **argv)
{
    static cute_args args;
    invocation inv;
    int used, code;
    if (argc < 2)
        return cli_usage("cute", "no command given");
    if (cli_is_help(argv[1])) {
        print_cute_help(stdout);
        return CLI_EXIT_OK;
    }
    memset(&inv, 0, sizeof inv);
    inv.cmd = find_cmd(argc - 1, argv + 1, &used);
    if (inv.cmd == NULL)
        return cli_usage("cute", "unknown command '%.40s'", argv[1]);
    snprintf(inv.label, sizeof inv.label, "cute %s", inv.cmd->name);
    code = split_args(&inv, argc - 1 - used, argv + 1 + used);
    if (code >= 0)
        return code;
    cute_args_init(&args);
    if (inv.option) {
        args.have |= CUTE_ARG_EXTENDED;
        args.extended = true;
    }
    code = fill_args(&inv, &args);
    return code >= 0 ? code : run_op(&inv, &args);
}
