/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The segments of mesh programs (docs/compiler.md, "Kept loops and ifs";
 * src/compiler/compiler_segments.c), through the internal API: the table
 * numbered once parsing ends against rows written by hand from the
 * docs' numbering (the order a walk of the kernel body meets the runs),
 * and every emitter against the table: the C backend's CTA functions and
 * the driver's launches (mpi target), the CUDA kernel's `ax_seg == K`
 * branches and its launcher's ax_seg_launch_NAME calls each meet runs 0
 * .. n - 1 in text order (the launcher's run follows the last runtime
 * scalar), and a kept if's else branch starts with the table's run there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

/* Nested kept blocks: an if with an else branch, a loop around an if
 * with one, an if without. Lines 4 .. 20. */
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
    "    } else {\n"
    "        device reduce(Y, W, sum, 0);\n" /* 12 */
    "    }\n"
    "    for k in range(nk) {\n" /* 14 */
    "        cta add(X, X, X);\n"
    "        if (k < n) {\n"           /* 16 */
    "            device copy(Y, X);\n" /* 17 */
    "        } else {\n"
    "            device copy(Z, X);\n" /* 19 */
    "        }\n"
    "        cta add(W, W, 1);\n"
    "    }\n"
    "    if (mode == 2) {\n"                 /* 23 */
    "        device reduce(Z, W, sum, 0);\n" /* 24 */
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
 * "where" as in ax_seg. */
typedef struct run_row {
    int line, where;
} run_row;

static const run_row kept_rows[] = {
    {0, 0},  {9, 1},  {10, 0}, {9, 2},  {12, 0}, {9, 0},  {14, 1}, {16, 1},
    {17, 0}, {16, 2}, {19, 0}, {16, 0}, {14, 0}, {23, 1}, {24, 0}, {23, 0},
};
static const run_row plain_rows[] = {{0, 0}, {7, 0}, {8, 0}, {10, 0}};

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
        if (rows[k].line != 0)
            TL_CHECK(b != NULL && axe__seg_after(p, b, rows[k].where) == k,
                     "%s: axe__seg_after of line %d where %d is run %d, "
                     "expected %d",
                     p->name, rows[k].line, rows[k].where,
                     b != NULL ? axe__seg_after(p, b, rows[k].where) : -2, k);
    }
}

/* The numbers following each "pat" in "text" from "from" on (up to a
 * "stop" text, NULL: the end) are 0 .. n - 1 in order. */
static void check_order(const char *text, const char *from, const char *pat,
                        const char *stop, int n, const char *what)
{
    const char *s = strstr(text, from), *end;
    int k = 0;
    end = s != NULL && stop != NULL ? strstr(s, stop) : NULL;
    TL_CHECK(s != NULL, "%s: no '%s'", what, from);
    while (s != NULL && (s = strstr(s, pat)) != NULL &&
           (end == NULL || s < end)) {
        s += strlen(pat);
        TL_CHECK(atoi(s) == k, "%s: launch %d is of run %d", what, k, atoi(s));
        k++;
    }
    TL_CHECK(k == n, "%s: %d launches of %d runs", what, k, n);
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

/* The else branches of the kept ifs on lines 9 and 16 start at runs 3
 * and 9 in the table and in each emitter. */
static void check_else(const axe_program *p, const char *c, const char *cu)
{
    int i, k;
    for (i = 0; i < 2; i++) {
        const ax_stmt *s = stmt_at(p->body, i == 0 ? 9 : 16);
        k = s != NULL ? axe__seg_after(p, s, 2) : -2;
        TL_CHECK(k == (i == 0 ? 3 : 9), "else %d: run %d", i, k);
        if (c != NULL)
            TL_CHECK(after(c, "} else {", i, "k_segs_cta_s") == k,
                     "C: else %d starts at run %d", i,
                     after(c, "} else {", i, "k_segs_cta_s"));
        if (cu != NULL) {
            TL_CHECK(after(cu, "/* its else branch */", i, "ax_seg == ") == k,
                     "CUDA kernel: else %d", i);
            TL_CHECK(after(strstr(cu, "int axe_launch_segs("), "} else {", i,
                           "s_mode, ") == k,
                     "CUDA launcher: else %d", i);
        }
    }
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
        check_order(c, "static void k_segs_cta_s0(", "static void k_segs_cta_s",
                    NULL, n, "C CTA functions");
        check_order(c, "\nvoid k_segs(", "k_segs_cta_s", "\n}\n", n,
                    "C driver");
    }
    if (cu != NULL) {
        check_order(cu, "if (ax_seg == 0)", "if (ax_seg == ", "\n}\n", n,
                    "CUDA kernel");
        check_order(cu, "ax_rc = ax_seg_launch_segs(", "s_mode, ", "\n}\n", n,
                    "CUDA launcher");
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
        check_order(c, "\nvoid k_plain(", "k_plain_cta_s", "\n}\n", n,
                    "C driver");
    free(c);
    axe_program_free(p);
}

int main(void)
{
    test_kept();
    test_plain();
    return tl_finish();
}
