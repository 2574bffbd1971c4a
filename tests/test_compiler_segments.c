/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The segments of mesh programs (docs/compiler.md, "Kept loops and ifs";
 * src/compiler/compiler_segments.c), through the internal API: the table
 * numbered once parsing ends against rows written by hand from the
 * docs' numbering (the order a walk of the kernel body meets the runs)
 * and which runs hold more than syncs (axe__seg_runs: only those run),
 * and every emitter against the table: the CUDA kernel's `ax_seg == K`
 * branches, the C backend's CTA functions and the driver's launches (mpi
 * target) and the CUDA launcher's ax_seg_launch_NAME calls (the run
 * follows the last runtime scalar) meet the runs that run, in order, and
 * no other; a kept if's else branch starts with the table's run there,
 * and the launches and branches after it with the first of its runs that
 * runs; the CUDA launcher tests a launch's code before a device operator
 * only where one comes right after the launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

/* Nested kept blocks: an if with an else branch, a loop around an if
 * with one, an if without; runs holding operators, syncs alone (after
 * the first if, the inner else's first) and nothing. */
static const char src_kept[] =
    "param P = 2;\n"
    "mesh(P);\n"
    "kernel segs(nk: i32, n: i32, mode: i32,\n"
    "    X: i32[8,8] layout S[(P,8 / P,8):(1@gpuid,8,1)],\n"
    "    Y: i32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid],\n"
    "    W: i32[P,8,8] layout S[(P,8,8):(1@gpuid,8,1)],\n"
    "    Z: i32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid])\n"
    "    grid(1) threads(32) {\n"
    "    if (mode > 0) {\n"                  /* 9 */
    "        device reduce(Z, W, max, 0);\n" /* 10 */
    "        cta add(X, X, 1);\n"
    "    } else {\n"
    "        cta add(X, X, 2);\n"
    "        device reduce(Y, W, sum, 0);\n" /* 14 */
    "    }\n"
    "    sync;\n"
    "    for k in range(nk) {\n" /* 17 */
    "        cta add(X, X, X);\n"
    "        if (k < n) {\n"           /* 19 */
    "            device copy(Y, X);\n" /* 20 */
    "        } else {\n"
    "            sync;\n"
    "            device copy(Z, X);\n" /* 23 */
    "        }\n"
    "        cta add(W, W, 1);\n"
    "    }\n"
    "    if (mode == 2) {\n"                 /* 27 */
    "        device reduce(Z, W, sum, 0);\n" /* 28 */
    "    }\n"
    "}\n";

/* Device operators only (no kept block): run k between operators k - 1
 * and k. */
static const char src_plain[] =
    "param P = 2;\n"
    "mesh(P);\n"
    "kernel plain(X: i32[8,8] layout S[(P,8 / P,8):(1@gpuid,8,1)],\n"
    "    Y: i32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid])\n"
    "    grid(1) threads(32) {\n"
    "    cta add(X, X, X);\n"
    "    device copy(Y, X);\n" /* 7 */
    "    device copy(Y, X);\n" /* 8 */
    "    cta add(X, X, 1);\n"
    "    device copy(Y, X);\n" /* 10 */
    "}\n";

/* Run k starts at the boundary on line "line" (0: the body's first run),
 * "where" as in ax_seg; "runs": it holds more than syncs. */
typedef struct run_row {
    int line, where;
    bool runs;
} run_row;

static const run_row kept_rows[] = {
    {0, 0, false},  {9, 1, false},  {10, 0, true},  {9, 2, true},
    {14, 0, false}, {9, 0, false},  {17, 1, true},  {19, 1, false},
    {20, 0, false}, {19, 2, false}, {23, 0, false}, {19, 0, true},
    {17, 0, false}, {27, 1, false}, {28, 0, false}, {27, 0, false},
};
static const run_row plain_rows[] = {
    {0, 0, true}, {7, 0, false}, {8, 0, true}, {10, 0, false}};

static axe_program *compile(const char *src, const char *target)
{
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    axe_status st;
    axe_kernel_options_init(&o);
    st = axe_kernel_options_target(&o, target, NULL, &d);
    if (st == AXE_OK)
        st = axe_program_compile(src, strlen(src), &o, NULL, &p, &d);
    TL_CHECK(st == AXE_OK, "%s: %s", target, d.message);
    return st == AXE_OK ? p : NULL;
}

static char *emit(axe_program *p)
{
    size_t n = axe_program_emit(p, "segs.axe", NULL, 0);
    char *buf = malloc(n + 1);
    if (buf != NULL)
        TL_CHECK(axe_program_emit(p, "segs.axe", buf, n + 1) == n,
                 "emit length");
    return buf;
}

/* The first statement on line "line" of the list "s" and the blocks in
 * it (a walk of the parsed body, not of the segment table). */
static const ax_stmt *stmt_at(const ax_stmt *s, int line)
{
    for (; s != NULL; s = s->next) {
        const ax_stmt *in = s->line == line ? s : stmt_at(s->body, line);
        if (in == NULL)
            in = stmt_at(s->else_body, line);
        if (in != NULL)
            return in;
    }
    return NULL;
}

/* The table of "p" is "rows" ("n" of them), and axe__seg_after of each
 * row's statement (found by its line in the body) is the row's run. */
static void check_table(const axe_program *p, const run_row *rows, int n)
{
    int k;
    TL_CHECK(axe__seg_count(p) == n, "%s: %d runs, expected %d", p->name,
             axe__seg_count(p), n);
    for (k = 0; k < n && k < axe__seg_count(p); k++) {
        const ax_seg *r = &p->segs.run[k];
        const ax_stmt *b = stmt_at(p->body, rows[k].line);
        TL_CHECK((r->from == NULL ? 0 : r->from->line) == rows[k].line &&
                     r->where == rows[k].where,
                 "%s: run %d starts at line %d where %d, expected %d/%d",
                 p->name, k, r->from == NULL ? 0 : r->from->line, r->where,
                 rows[k].line, rows[k].where);
        TL_CHECK(axe__seg_runs(p, k) == rows[k].runs,
                 "%s: run %d runs: %d, expected %d", p->name, k,
                 axe__seg_runs(p, k), rows[k].runs);
        if (rows[k].line != 0)
            TL_CHECK(b != NULL && axe__seg_after(p, b, rows[k].where) == k,
                     "%s: axe__seg_after of line %d where %d is run %d, "
                     "expected %d",
                     p->name, rows[k].line, rows[k].where,
                     b != NULL ? axe__seg_after(p, b, rows[k].where) : -2, k);
    }
}

/* The numbers following each "pat" in "text" from "from" on (up to a
 * "stop" text, NULL: the end) are the runs of "rows" ("n" of them) in
 * order: all of them, or ("all" false) those that run. */
static void check_order(const char *text, const char *from, const char *pat,
                        const char *stop, const run_row *rows, int n, bool all,
                        const char *what)
{
    const char *s = strstr(text, from), *end;
    int i = 0, k = 0;
    end = s != NULL && stop != NULL ? strstr(s, stop) : NULL;
    TL_CHECK(s != NULL, "%s: no '%s'", what, from);
    while (s != NULL && (s = strstr(s, pat)) != NULL &&
           (end == NULL || s < end)) {
        s += strlen(pat);
        while (k < n && !all && !rows[k].runs)
            k++;
        TL_CHECK(k < n && atoi(s) == k,
                 "%s: launch %d is of run %d, expected %d (-1: none)", what, i,
                 atoi(s), k < n ? k : -1);
        i++, k++;
    }
    while (k < n && !all && !rows[k].runs)
        k++;
    TL_CHECK(k == n, "%s: %d launches, none of run %d", what, i, k);
}

/* The first number after "pat" following the "nth" (0-based) "at". */
static int after(const char *text, const char *at, int nth, const char *pat)
{
    const char *s = text;
    int i;
    TL_CHECK(s != NULL, "no text before '%s'", at);
    for (i = 0; s != NULL && i <= nth; i++)
        if ((s = strstr(s, at)) != NULL)
            s += strlen(at);
    s = s != NULL ? strstr(s, pat) : NULL;
    return s != NULL ? atoi(s + strlen(pat)) : -1;
}

/* The else branches of the kept ifs on lines 9 and 19 start at runs 3
 * and 9 in the table; the first launch and CUDA kernel branch after them
 * are of run 3 (it runs) and 11 (runs 9 and 10, a sync and nothing, do
 * not run: the branch launches none and has no branch in the kernel). */
static void check_else(const axe_program *p, const char *c, const char *cu)
{
    static const int first[2] = {3, 11};
    int i, k;
    for (i = 0; i < 2; i++) {
        const ax_stmt *s = stmt_at(p->body, i == 0 ? 9 : 19);
        k = s != NULL ? axe__seg_after(p, s, 2) : -2;
        TL_CHECK(k == (i == 0 ? 3 : 9), "else %d: run %d", i, k);
        if (c != NULL)
            TL_CHECK(after(c, "} else {", i, "k_segs_cta_s") == first[i],
                     "C: else %d launches run %d first", i,
                     after(c, "} else {", i, "k_segs_cta_s"));
        if (cu != NULL) {
            TL_CHECK(after(cu, "/* its else branch */", i, "ax_seg == ") ==
                         first[i],
                     "CUDA kernel: else %d", i);
            TL_CHECK(after(strstr(cu, "int axe_launch_segs("), "} else {", i,
                           "s_mode, ") == first[i],
                     "CUDA launcher: else %d", i);
        }
    }
}

/* The CUDA launcher runs a device operator under `if (ax_rc == 0)`
 * only right after a launch: the reduce on line 14 after run 3's; the
 * others follow a check, a kept block's start or the launcher's start. */
static void check_guard(const char *cu)
{
    const char *l = strstr(cu, "int axe_launch_segs("), *g, *op;
    g = l != NULL ? strstr(l, "if (ax_rc == 0)\n") : NULL;
    op = g != NULL ? strstr(g, "ax_rc = ") : NULL;
    TL_CHECK(op != NULL && strncmp(op, "ax_rc = ax_nccl_devop(1, 14,", 28) == 0,
             "CUDA launcher: the reduce on line 14 is not guarded");
    g = g != NULL ? strstr(g + 1, "if (ax_rc == 0)") : NULL;
    TL_CHECK(g == NULL || g > strstr(l, "\n}\n"),
             "CUDA launcher: a device operator guarded after no launch");
}

static void test_kept(void)
{
    axe_program *p = compile(src_kept, "mpi"), *q = compile(src_kept, "cuda");
    char *c = p != NULL ? emit(p) : NULL, *cu = q != NULL ? emit(q) : NULL;
    int n = (int)(sizeof kept_rows / sizeof kept_rows[0]);
    if (p != NULL)
        check_table(p, kept_rows, n);
    if (q != NULL)
        check_table(q, kept_rows, n);
    if (c != NULL) {
        check_order(c, "static void k_segs_cta", "static void k_segs_cta_s",
                    NULL, kept_rows, n, false, "C CTA functions");
        check_order(c, "\nvoid k_segs(", "k_segs_cta_s", "\n}\n", kept_rows, n,
                    false, "C driver");
    }
    if (cu != NULL) {
        check_order(cu, "k_segs(", "if (ax_seg == ", "\n}\n", kept_rows, n,
                    false, "CUDA kernel");
        check_guard(cu);
        check_order(cu, "int axe_launch_segs(", "s_n, s_mode, ", "\n}\n",
                    kept_rows, n, false, "CUDA launcher");
        /* its first launch comes after kept blocks that read it */
        TL_CHECK(strstr(cu, "int ax_rc = 0;\n") != NULL,
                 "CUDA launcher: ax_rc not set before its first read");
    }
    if (p != NULL && c != NULL && cu != NULL)
        check_else(p, c, cu);
    free(c);
    free(cu);
    axe_program_free(p);
    axe_program_free(q);
}

static void test_plain(void)
{
    axe_program *p = compile(src_plain, "mpi");
    char *c = p != NULL ? emit(p) : NULL;
    int n = (int)(sizeof plain_rows / sizeof plain_rows[0]);
    if (p != NULL)
        check_table(p, plain_rows, n);
    if (c != NULL)
        check_order(c, "\nvoid k_plain(", "k_plain_cta_s", "\n}\n", plain_rows,
                    n, false, "C driver");
    free(c);
    axe_program_free(p);
}

int main(void)
{
    test_kept();
    test_plain();
    return tl_finish();
}
