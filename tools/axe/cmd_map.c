/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe map <op> [--axes DECL] [--def NAME=M] [--const NAME=N] OPERANDS`:
 * the mapping-expression operations on the command line. The operands and
 * options become the JSON "args" of the same `mapping.<op>` operation that
 * `axe batch` runs (mapping_ops.c), so both always answer alike. A string
 * result is printed as text, anything else as JSON. Invariant: exit 0 with
 * one answer on stdout, or one reason on stderr with exit 1 (no answer) or
 * 2 (usage or syntax).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mapping_ops.h"

typedef struct map_cmd {
    const char *name;  /* as typed */
    const char *op;    /* mapping.<op> */
    const char *usage; /* operands */
    const char *keys;  /* their argument names; '#' marks an integer */
} map_cmd;

static const map_cmd cmds[] = {
    {"map", "map", "EXPR I", "expr #i"},
    {"size", "size", "EXPR", "expr"},
    {"print", "print", "EXPR", "expr"},
    {"normalize", "normalize", "EXPR", "expr"},
    {"equal", "equivalent", "A B", "a b"},
    {"index", "index", "I", "i"},
    {"inverse", "inverse", "EXPR INDEX", "expr index"},
    {"tile", "tile", "EXPR INDEX LEN VIEW START P",
     "expr index #len view #start #i"},
    {"tile-view", "tile_view", "EXPR INDEX LEN", "expr index #len"},
    {"tile-at", "tile_view", "EXPR INDEX LEN START", "expr index #len #start"},
    {"convert", "to_axe", "EXPR", "expr"},
};

#define NCMDS (sizeof cmds / sizeof cmds[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: axe map <op> [--axes 'axes![A = 8, B = 512]'] "
               "[--def NAME='m![...]'] [--const NAME=N]\n"
               "               [--write] [--holes] [--tensor A,B] OPERANDS\n"
               "ops:\n");
    for (size_t k = 0; k < NCMDS; k++)
        fprintf(f, "  %-10s %s\n", cmds[k].name, cmds[k].usage);
    fprintf(f, "Expressions are m![...] (docs/notation.md); equal decides "
               "spec §8's equivalence,\nconvert prints the Axe layout "
               "(tensor axes: --tensor, default the axes the\nexpression "
               "names; --holes: padding as holes of the span).\n");
}

/* Append the decimal integer "s" (no overflow); false if it is none. */
static bool put_int(json_buf *b, const char *s)
{
    int64_t v;
    axe_diag d;
    if (cli_parse_int(s, strlen(s), &v, &d) != AXE_OK)
        return false;
    json_buf_put_int(b, v);
    return true;
}

/* Append "NAME": "VALUE" (or an integer) of "--opt NAME=VALUE". */
static bool put_pair(json_buf *b, const char *nv, bool integer)
{
    const char *eq = strchr(nv, '=');
    if (eq == NULL || eq == nv)
        return false;
    json_buf_put_string(b, nv, (size_t)(eq - nv));
    json_buf_put_rawz(b, ":");
    if (!integer) {
        json_buf_put_string(b, eq + 1, strlen(eq + 1));
        return true;
    }
    return put_int(b, eq + 1);
}

/* The options --def and --const as "defs" / "consts" objects. */
static bool put_escapes(json_buf *b, int argc, char **argv, const char *opt,
                        const char *key)
{
    bool any = false, ok = true;
    for (int k = 0; k + 1 < argc; k++) {
        if (strcmp(argv[k], opt) != 0)
            continue;
        json_buf_put_rawz(b, any ? "," : ",\"");
        if (!any) {
            json_buf_put_rawz(b, key);
            json_buf_put_rawz(b, "\":{");
        }
        any = true;
        ok &= put_pair(b, argv[k + 1], strcmp(opt, "--const") == 0);
    }
    if (any)
        json_buf_put_rawz(b, "}");
    return ok;
}

static void put_option(json_buf *b, int argc, char **argv, const char *opt,
                       const char *key)
{
    for (int k = 0; k + 1 < argc; k++)
        if (strcmp(argv[k], opt) == 0) {
            json_buf_put_rawz(b, ",\"");
            json_buf_put_rawz(b, key);
            json_buf_put_rawz(b, "\":");
            json_buf_put_string(b, argv[k + 1], strlen(argv[k + 1]));
        }
}

/* "--tensor A,B" as "tensor_axes": ["A", "B"]. */
static void put_tensor(json_buf *b, int argc, char **argv)
{
    for (int k = 0; k + 1 < argc; k++) {
        const char *s = argv[k + 1], *c;
        if (strcmp(argv[k], "--tensor") != 0)
            continue;
        json_buf_put_rawz(b, ",\"tensor_axes\":[");
        for (bool first = true;; first = false, s = c + 1) {
            c = strchr(s, ',');
            json_buf_put_rawz(b, first ? "" : ",");
            json_buf_put_string(b, s, c != NULL ? (size_t)(c - s) : strlen(s));
            if (c == NULL)
                break;
        }
        json_buf_put_rawz(b, "]");
    }
}

/* The operands in "pos" under the names of "keys". */
static bool put_operands(json_buf *b, const char *keys, char **pos, int npos)
{
    char key[16];
    int k = 0;
    for (const char *s = keys; *s != '\0'; k++) {
        size_t n = strcspn(s, " ");
        bool integer = *s == '#';
        if (k == npos || n - integer >= sizeof key)
            return false;
        memcpy(key, s + integer, n - integer);
        key[n - integer] = '\0';
        json_buf_put_rawz(b, ",\"");
        json_buf_put_rawz(b, key);
        json_buf_put_rawz(b, "\":");
        if (integer) {
            if (!put_int(b, pos[k]))
                return false;
        } else {
            json_buf_put_string(b, pos[k], strlen(pos[k]));
        }
        s += n + (s[n] == ' ');
    }
    return k == npos;
}

/* Positional operands: everything that is not an option or its value. */
static int operands(int argc, char **argv, char **pos)
{
    int n = 0;
    for (int k = 0; k < argc; k++) {
        if (strcmp(argv[k], "--write") == 0 || strcmp(argv[k], "--holes") == 0)
            continue;
        if (strncmp(argv[k], "--", 2) == 0) {
            k++;
            continue;
        }
        pos[n++] = argv[k];
    }
    return n;
}

static bool has_flag(int argc, char **argv, const char *flag)
{
    for (int k = 0; k < argc; k++)
        if (strcmp(argv[k], flag) == 0)
            return true;
    return false;
}

static int answer(const map_cmd *c, const json_buf *args)
{
    json_arena *arena = json_arena_new(NULL, NULL);
    json_value *v = NULL;
    json_buf result, msg;
    axe_status st = AXE_ERR_NO_MEMORY;
    int code;
    json_buf_init(&result, NULL, NULL);
    json_buf_init(&msg, NULL, NULL);
    if (arena != NULL && json_parse(arena, json_buf_str(args), args->len, &v,
                                    NULL, 0) == JSON_OK)
        st = mapop_batch_answer(c->op, strlen(c->op), v, &result, &msg);
    if (st == AXE_OK) {
        json_value *r = NULL;
        if (json_parse(arena, json_buf_str(&result), result.len, &r, NULL, 0) ==
                JSON_OK &&
            json_is_string(r))
            printf("%s\n", json_get_string(r, NULL));
        else
            printf("%s\n", json_buf_str(&result));
        code = CLI_EXIT_OK;
    } else {
        fprintf(stderr, "axe: map %s: %s (%s)\n", c->name, json_buf_str(&msg),
                axe_status_name(st));
        code = st == AXE_ERR_SYNTAX ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
    }
    json_buf_free(&result);
    json_buf_free(&msg);
    json_arena_free(arena);
    return code;
}

int cli_map_main(int argc, char **argv)
{
    static char *pos[64];
    const map_cmd *c = NULL;
    json_buf args;
    int npos, code;
    if (argc < 2 || cli_is_help(argv[1])) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    for (size_t k = 0; k < NCMDS; k++)
        if (strcmp(cmds[k].name, argv[1]) == 0)
            c = &cmds[k];
    if (c == NULL)
        return cli_usage("map", "unknown op '%.40s'", argv[1]);
    if (argc - 2 > 64)
        return cli_usage("map", "too many operands");
    npos = operands(argc - 2, argv + 2, pos);
    json_buf_init(&args, NULL, NULL);
    json_buf_put_rawz(&args, "{\"mode\":");
    json_buf_put_rawz(&args, has_flag(argc, argv, "--write") ? "\"write\""
                                                             : "\"read\"");
    if (has_flag(argc, argv, "--holes"))
        json_buf_put_rawz(&args, ",\"holes\":true");
    put_option(&args, argc - 2, argv + 2, "--axes", "axes");
    put_tensor(&args, argc - 2, argv + 2);
    if (!put_escapes(&args, argc - 2, argv + 2, "--def", "defs") ||
        !put_escapes(&args, argc - 2, argv + 2, "--const", "consts") ||
        !put_operands(&args, c->keys, pos, npos)) {
        json_buf_free(&args);
        return cli_usage("map",
                         "%s takes %s (integers where shown as I, "
                         "LEN, START, P; NAME=VALUE for --def and "
                         "--const)",
                         c->name, c->usage);
    }
    json_buf_put_rawz(&args, "}");
    code = answer(c, &args);
    json_buf_free(&args);
    return code;
}
