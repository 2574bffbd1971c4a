/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe render LAYOUT [options]`: pictures of a CuTe layout (`(4,8):(1,4)`,
 * swizzled `Sw<3,4,3> o 0 o (8,64):(64,1)`) or an Axe layout
 * (`S[...] + R[...] + 5@warp`) as text, ANSI text, SVG, TikZ or HTML
 * (include/axe/render.h). This file parses the options and the operands,
 * calls the render layer and writes the result to stdout or -o FILE.
 * --help or -h anywhere prints the help and exits 0.
 * Invariant: every failure prints one "axe: render: ..." line and exits 1
 * (no picture: too large, bad color axis, unsupported view) or 2 (usage or
 * syntax); nothing is written to -o FILE unless the picture is complete.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "axe/notation.h"
#include "axe/render.h"
#include "axe_ops.h"
#include "cli.h"

static const char render_help[] =
    "usage: axe render LAYOUT [--shape S] [--as grid|tv|axe|physical|banks]\n"
    "                  [--color-by AXIS] [--format text|svg|tex|html]\n"
    "                  [--color=auto|always|never] [--elem-bytes N]\n"
    "                  [--access LAYOUT] [-o FILE]\n"
    "Draws a layout. LAYOUT is a CuTe layout, a swizzled (composed) CuTe\n"
    "layout or an Axe layout. Views (--as):\n"
    "  grid      cell (i,j) shows L at element (i,j) (default; CuTe layouts\n"
    "            are indexed colexicographically, i + j*rows)\n"
    "  axe       the same for Axe layouts: every point of the set L(i,j)\n"
    "  tv        a CuTe (T,V) -> index layout over the tile --shape (M,N):\n"
    "            cell (m,n) shows T<t> V<v>, colored by thread\n"
    "  physical  from the hardware side: rows are thread/device\n"
    "            coordinates, columns memory coordinates, cells the logical\n"
    "            elements stored there\n"
    "  banks     shared-memory address, bank (floor(addr*bytes/4) mod 32)\n"
    "            and the thread of one warp reading each element; thread t\n"
    "            reads index --access(t) (default t), conflicts are marked\n"
    "            with !; 8-byte elements are read in 2 phases of 16\n"
    "            threads (LDS.64), 16-byte ones in 4 phases of 8 (LDS.128,\n"
    "            ldmatrix rows), conflicts counted per phase\n"
    "--shape S is the logical shape ([8,16] or (8,16); its size must be\n"
    "the layout's), --color-by the axis that colors the cells, --elem-bytes\n"
    "the element size for banks (1, 2, 4, 8 or 16; default 2). At most 65536\n"
    "cells and 262144 points: slice larger layouts first. --color: ANSI\n"
    "colors in text (auto: when stdout is a terminal). --format html\n"
    "writes one self-contained page.\n"
    "examples:\n"
    "  axe render \"(4,8):(1,4)\"\n"
    "  axe render \"S[(2,8,8):(8@F,1@P,1@F)]\" --shape [2,8,8] --as axe\n"
    "  axe render \"((4,8),(2,2)):((32,1),(16,8))\" --as tv --shape "
    "\"(8,16)\"\n"
    "  axe render \"S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] "
    "+ 5@warp\" \\\n"
    "      --shape [8,16] --color-by warp --format svg -o tile.svg\n"
    "  axe render \"S[(2,4,2,8):(1@gpuid,8,2@gpuid,1)]\" --shape [8,16] "
    "--as physical\n"
    "  axe render \"Sw<3,3,3> o 0 o (8,64):(64,1)\" --as banks --access "
    "\"32:64\"\n"
    "  axe render \"Sw<3,0,3> o 0 o (8,8):(8,1)\" --as banks --elem-bytes 16 "
    "--access 8:1\n"
    "  axe render \"(16,16):(16,1)\" --format tex -o grid.tex\n"
    "  axe render \"S[(2,4,2,8):(1@gpuid,8,2@gpuid,1)]\" --shape [8,16] "
    "--format html -o mesh.html\n"
    "exit status: 0 ok, 1 no picture (the reason on stderr), 2 usage or "
    "syntax\n";

typedef struct render_cli {
    const char *layout, *shape, *view, *format, *color, *out, *access;
    const char *color_by, *elem_bytes;
} render_cli;

/* The value of option "name" at argv[*i] ("--x V" or "--x=V"), or NULL. */
static const char *option(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0' || *i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

/* Options and the one LAYOUT operand into "c"; 2 on a usage error. */
static int parse_args(int argc, char **argv, render_cli *c)
{
    static const char *const names[] = {"--shape",    "--as",        "--format",
                                        "--color",    "-o",          "--access",
                                        "--color-by", "--elem-bytes"};
    memset(c, 0, sizeof *c);
    for (int i = 1; i < argc; i++) {
        const char **slot[] = {&c->shape,    &c->view,      &c->format,
                               &c->color,    &c->out,       &c->access,
                               &c->color_by, &c->elem_bytes};
        const char *v = NULL;
        int k = 0;
        for (; k < 8 && v == NULL; k++)
            v = option(argc, argv, &i, names[k]);
        if (v != NULL)
            *slot[k - 1] = v;
        else if (argv[i][0] == '-' && argv[i][1] != '\0' &&
                 !(argv[i][1] >= '0' && argv[i][1] <= '9'))
            return cli_usage("render",
                             "unknown option or missing value "
                             "'%.40s'",
                             argv[i]);
        else if (c->layout != NULL)
            return cli_usage("render", "one LAYOUT only");
        else
            c->layout = argv[i];
    }
    if (c->layout == NULL)
        return cli_usage("render", "no LAYOUT given");
    return CLI_EXIT_OK;
}

/* The index of "v" in "names", "dflt" for NULL, -1 if unknown. */
static int pick(const char *v, const char *const *names, int n, int dflt)
{
    if (v == NULL)
        return dflt;
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

typedef struct operand {
    bool cute;          /* given in CuTe notation */
    bool has_tv;        /* a plain CuTe layout (usable as a TV layout) */
    axe_cute_layout tv; /* the CuTe layout (the inner one if composed) */
    axe_layout axe;
} operand;

/* Report a failed parse of "what" ("text"): exit 2 for syntax, else 1. */
static int parse_fail(const char *what, const char *text, axe_status st,
                      const axe_diag *diag)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "render: %s: ", what);
    return cli_parse_fail(st == AXE_ERR_SYNTAX ? CLI_EXIT_USAGE : CLI_EXIT_FAIL,
                          prefix, text, st, diag);
}

/* Whether "s" is in the Axe notation (`S[` or `Swizzle<`). */
static bool is_axe_text(const char *s)
{
    while (*s == ' ')
        s++;
    return strncmp(s, "S[", 2) == 0 || strncmp(s, "Swizzle<", 8) == 0;
}

/* The layout operand in both forms it may be used in. */
static int parse_layout(const char *text, operand *op)
{
    axe_cute_object o;
    axe_diag d;
    axe_status st;
    memset(op, 0, sizeof *op);
    if (is_axe_text(text)) {
        st = axe_parse_layout(text, strlen(text), &op->axe, &d);
        return st == AXE_OK ? CLI_EXIT_OK : parse_fail("layout", text, st, &d);
    }
    op->cute = true;
    st = axe_parse_cute(text, strlen(text), &o, &d);
    if (st != AXE_OK)
        return parse_fail("layout", text, st, &d);
    if (o.kind == AXE_CUTE_KIND_LAYOUT) {
        op->has_tv = true;
        op->tv = o.layout;
        st = axe_layout_from_cute(&o.layout, &op->axe, &d);
    } else if (o.kind == AXE_CUTE_KIND_COMPOSED) {
        op->tv = o.composed.inner;
        st = axe_layout_from_cute_composed(&o.composed, &op->axe, &d);
    } else {
        return cli_usage("render", "LAYOUT must be a layout, not a %s",
                         o.kind == AXE_CUTE_KIND_TUPLE ? "tuple" : "tiler");
    }
    return st == AXE_OK ? CLI_EXIT_OK : parse_fail("layout", text, st, &d);
}

/* --shape as [8,16] or (8,16) (leaves of a nested tuple in order). */
static int parse_shape(const char *text, axe_render_options *o)
{
    axe_diag d;
    axe_status st;
    if (text[0] == '[') {
        axop_ints ints;
        st = axop_parse_ints(text, strlen(text), &ints, &d);
        if (st == AXE_OK && ints.n > AXE_LAYOUT_MAX_DIMS)
            return cli_usage("render", "--shape has more than %d dims",
                             AXE_LAYOUT_MAX_DIMS);
        if (st == AXE_OK) {
            o->ndims = ints.n;
            memcpy(o->shape, ints.v, (size_t)ints.n * sizeof(int64_t));
        }
    } else {
        axe_tuple t, flat;
        st = axe_parse_tuple(text, strlen(text), &t, &d);
        axe_tuple_flatten(&t, &flat);
        if (st == AXE_OK && flat.nleaf > AXE_LAYOUT_MAX_DIMS)
            return cli_usage("render", "--shape has more than %d dims",
                             AXE_LAYOUT_MAX_DIMS);
        if (st == AXE_OK) {
            o->ndims = flat.nleaf;
            memcpy(o->shape, flat.v, (size_t)flat.nleaf * sizeof(int64_t));
        }
    }
    return st == AXE_OK ? CLI_EXIT_OK : parse_fail("shape", text, st, &d);
}

/* CuTe layouts without --shape: (size of mode 0, the rest) columns. */
static int default_shape(const operand *op, axe_render_options *o)
{
    axe_cute_layout mode;
    int64_t size, rows;
    if (!op->cute || axe_cute_rank(&op->tv) < 2)
        return CLI_EXIT_OK;
    if (axe_cute_get(&op->tv, 0, &mode) != AXE_OK ||
        axe_cute_size(&mode, &rows) != AXE_OK ||
        axe_cute_size(&op->tv, &size) != AXE_OK)
        return cli_usage("render", "the layout's size overflows");
    o->ndims = 2;
    o->shape[0] = rows;
    o->shape[1] = size / rows;
    return CLI_EXIT_OK;
}

/* Report the reason of a failed render and return 1. */
static int render_fail(axe_status st, const axe_diag *d)
{
    json_buf line;
    int rc;
    json_buf_init(&line, NULL, NULL);
    json_buf_put_rawz(&line, "render: no picture: ");
    cli_put_reason(&line, st, d);
    rc = cli_report(CLI_EXIT_FAIL, &line);
    json_buf_free(&line);
    return rc;
}

/* The options that are not the layout or the shape. */
static int fill_options(const render_cli *c, const operand *op,
                        axe_render_options *o)
{
    static const char *const views[] = {"grid", "tv", "axe", "physical",
                                        "banks"};
    static const axe_render_view view_of[] = {
        AXE_RENDER_GRID, AXE_RENDER_TV, AXE_RENDER_GRID, AXE_RENDER_PHYSICAL,
        AXE_RENDER_BANKS};
    static const char *const formats[] = {"text", "svg", "tex", "html"};
    static const axe_render_format format_of[] = {
        AXE_RENDER_TEXT, AXE_RENDER_SVG, AXE_RENDER_TEX, AXE_RENDER_HTML};
    static const char *const colors[] = {"auto", "always", "never"};
    int v = pick(c->view, views, 5, 0), f = pick(c->format, formats, 4, 0);
    int col = pick(c->color, colors, 3, 0);
    if (v < 0 || f < 0 || col < 0)
        return cli_usage("render", "unknown %s '%.20s'",
                         v < 0   ? "view"
                         : f < 0 ? "format"
                                 : "color mode",
                         v < 0   ? c->view
                         : f < 0 ? c->format
                                 : c->color);
    o->view = view_of[v];
    o->format = format_of[f];
    if (f == 0 && (col == 1 || (col == 0 && c->out == NULL && isatty(1))))
        o->format = AXE_RENDER_ANSI;
    o->colex = op->cute;
    o->title = c->layout;
    o->color_by = c->color_by;
    return CLI_EXIT_OK;
}

/* --elem-bytes and --access. */
static int fill_banks(const render_cli *c, axe_render_options *o)
{
    axe_diag d;
    axe_status st;
    if (c->elem_bytes != NULL) {
        st = cli_parse_int(c->elem_bytes, strlen(c->elem_bytes), &o->elem_bytes,
                           &d);
        if (st != AXE_OK)
            return parse_fail("--elem-bytes", c->elem_bytes, st, &d);
    }
    if (c->access != NULL) {
        st =
            axe_parse_cute_layout(c->access, strlen(c->access), &o->access, &d);
        if (st != AXE_OK)
            return parse_fail("--access", c->access, st, &d);
        o->has_access = true;
    }
    return CLI_EXIT_OK;
}

/* Write the picture to "path" (NULL: stdout); 1 if writing fails. */
static int write_out(const char *path, const axe_render_buf *b)
{
    FILE *f = path != NULL ? fopen(path, "wb") : stdout;
    bool ok;
    if (f == NULL) {
        fprintf(stderr, "axe: render: cannot open '%.200s' for writing\n",
                path);
        return CLI_EXIT_FAIL;
    }
    ok = cli_write(f, b->data != NULL ? b->data : "", b->len);
    if (path != NULL)
        ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "axe: render: writing the picture failed\n");
    return ok ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}

/* Render and write the picture; the exit status. */
static int run(const render_cli *c, const operand *op,
               const axe_render_options *o)
{
    axe_render_buf b;
    axe_diag d;
    axe_status st;
    int rc;
    if (o->view == AXE_RENDER_TV && !op->has_tv)
        return cli_usage("render", "--as tv draws a CuTe layout (T,V) -> "
                                   "index, e.g. \"((4,8),2):((16,1),8)\"");
    axe_render_buf_init(&b, NULL, NULL);
    if (o->view == AXE_RENDER_TV)
        st = axe_render_tv(o, &op->tv, &b, &d);
    else
        st = axe_render_layout(o, &op->axe, &b, &d);
    rc = st == AXE_OK ? write_out(c->out, &b) : render_fail(st, &d);
    axe_render_buf_free(&b);
    return rc;
}

/* `axe render LAYOUT [options]`; the exit status (0, 1 or 2). */
int cli_render_main(int argc, char **argv)
{
    render_cli c;
    operand op;
    axe_render_options o;
    int rc;
    for (int i = 1; i < argc; i++)
        if (cli_is_help(argv[i])) {
            fputs(render_help, stdout);
            return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
        }
    axe_render_options_init(&o);
    rc = parse_args(argc, argv, &c);
    if (rc == CLI_EXIT_OK)
        rc = parse_layout(c.layout, &op);
    if (rc == CLI_EXIT_OK)
        rc = fill_options(&c, &op, &o);
    if (rc == CLI_EXIT_OK && c.shape != NULL)
        rc = parse_shape(c.shape, &o);
    else if (rc == CLI_EXIT_OK)
        rc = default_shape(&op, &o);
    if (rc == CLI_EXIT_OK)
        rc = fill_banks(&c, &o);
    return rc == CLI_EXIT_OK ? run(&c, &op, &o) : rc;
}
