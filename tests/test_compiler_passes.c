/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's passes one at a time, through the internal API
 * (src/compiler/compiler_internal.h): parse builds the IR (statement
 * kinds, operator kinds, numbers and lines, tensor declarations, regions
 * as expression text); check records derived facts (spans, owners,
 * distributed and written flags, enclosing guards, reduce broadcasts) or
 * rejects with a status and a reason; dispatch picks a schedule per
 * operator, and each rejected schedule's predicate, called through the
 * registry (axe__schedule_try), gives its reason; emit is deterministic
 * and labels every operator. Expected values are written by hand from
 * docs/compiler.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

/* A program after the passes up to "upto" (0 parse, 1 check, 2 dispatch),
 * or NULL (the failing status in *st, the reason in *d). */
static axe_program *run_upto(const char *src, int upto,
                             const axe_kernel_options *o, axe_status *st,
                             axe_diag *d)
{
    axe_program *p = NULL;
    axe_diag_clear(d);
    *st = axe__program_new(src, strlen(src), o, NULL, &p);
    if (*st == AXE_OK)
        *st = axe__program_parse(p, d);
    if (*st == AXE_OK && upto >= 1)
        *st = axe__program_check(p, d);
    if (*st == AXE_OK && upto >= 2)
        *st = axe__program_dispatch(p, d);
    if (*st != AXE_OK) {
        axe_program_free(p);
        return NULL;
    }
    return p;
}

static axe_program *must_run(const char *src, int upto)
{
    axe_status st;
    axe_diag d;
    axe_program *p = run_upto(src, upto, NULL, &st, &d);
    TL_CHECK(p != NULL, "pass %d: %s: %s", upto, axe_status_name(st),
             d.message);
    return p;
}

/* ---- text of the IR, for comparison with hand-written rows ---------------
 */

/* snprintf-style appends at "n" of "buf" (past "cap": only counted). */
#define AT (n < cap ? n : cap)
#define LEFT (n < cap ? cap - n : 0)
#define PUT(...) (n += (size_t)snprintf(buf + AT, LEFT, __VA_ARGS__))

/* Block "s" as letters: O op, S sync, F{body}, I{then}{else}. */
static size_t tree_text(const ax_stmt *s, char *buf, size_t cap, size_t n)
{
    static const char kind[] = "OFSI";
    for (; s != NULL && n < cap; s = s->next) {
        PUT("%s%c", n > 0 && buf[n - 1] != '{' ? " " : "", kind[s->kind]);
        if (s->kind == AX_ST_FOR || s->kind == AX_ST_IF) {
            PUT("{");
            n = tree_text(s->body, buf, cap, n);
            PUT("}");
        }
        if (s->kind == AX_ST_IF) {
            PUT("{");
            n = tree_text(s->else_body, buf, cap, n);
            PUT("}");
        }
    }
    return n;
}

/* "NAME[start:+len, ...]", ".view(LAYOUT)", ".bcast(DIM, EXT)". */
static size_t ref_text(const axe_program *p, const ax_ref *r, char *buf,
                       size_t cap, size_t n)
{
    int d;
    PUT(" %s", p->tensors[r->tensor].name);
    if (r->is_view) {
        PUT(".view(");
        n += axe_print_layout(&r->view, buf + AT, LEFT);
        PUT(")");
    }
    for (d = 0; d < r->ndim && !r->is_view; d++) {
        PUT("%s", d == 0 ? "[" : ", ");
        if (r->start[d] == NULL)
            PUT("0");
        else
            n = axe__expr_text(p, r->start[d], buf, cap, n);
        PUT(":+%lld%s", (long long)r->len[d], d + 1 == r->ndim ? "]" : "");
    }
    if (r->bdim >= 0)
        PUT(".bcast(%d, %lld)", r->bdim, (long long)r->bext);
    return n;
}

/* "op N line L SCOPE OP ARGS [imm | sum/max dim D]". */
static void op_text(const axe_program *p, const ax_stmt *s, char *buf,
                    size_t cap)
{
    size_t n = 0;
    int i;
    PUT("op %d line %d %s %s", s->index, s->line, axe__scope_name(s->scope),
        axe__op_name(s->op));
    for (i = 0; i < axe__operand_count(s); i++) {
        char txt[64];
        if (axe__operand_arg(s, i) >= 0) {
            n = ref_text(p, &s->args[axe__operand_arg(s, i)], buf, cap, n);
            continue;
        }
        axe__sop_text(p, &s->sop[i], txt, sizeof txt);
        PUT(" %s:%s", s->sop[i].kind == AX_SOP_SCALAR ? "scalar" : "lit", txt);
    }
    if (s->op == AX_OP_FILL)
        PUT(" %g", s->imm);
    if (s->op == AX_OP_REDUCE)
        PUT(" %s dim %d", axe__red_name(s->rkind), s->rdim);
    if (s->op == AX_OP_IOTA) {
        PUT(" dim %d start ", s->idim);
        n = axe__expr_text(p, s->istart, buf, cap, n);
    }
}

/* "NAME MEM DTYPE [SHAPE] LAYOUT". */
static void tensor_text(const ax_tensor *t, char *buf, size_t cap)
{
    size_t n = 0;
    int d;
    PUT("%s %s %s [", t->name, axe__mem_name(t->mem), axe_dtype_name(t->dtype));
    for (d = 0; d < t->ndim; d++)
        PUT("%s%lld", d ? "," : "", (long long)t->shape[d]);
    PUT("] ");
    n += axe_print_layout(&t->layout, buf + AT, LEFT);
}

/* Line "i" (0-based) of "text", into "out". */
static const char *line_of(const char *text, int i, char *out, size_t cap)
{
    const char *e;
    while (i-- > 0 && text != NULL)
        text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
    if (text == NULL)
        return "";
    e = strchr(text, '\n') ? strchr(text, '\n') : text + strlen(text);
    snprintf(out, cap, "%.*s", (int)(e - text), text);
    return out;
}

/* ---- programs ---------------------------------------------------------- */

static const char src_a[] =
    "param N = 8;\n"
    "kernel k(A: f32[N, 32], B: global f32[N, 32]) grid(2) threads(32) {\n"
    "  register r: f32[8, 32] layout S[(8,32):(1,1@laneid)];\n"
    "  shared s: f32[8, 32];\n"
    "  warp copy(r, A[0:8, 0:32]);\n"
    "  for i in range(2) {\n"
    "    thread fill(s[i * 4:+4, laneid], 1.5);\n"
    "  }\n"
    "  sync;\n"
    "  if (bx == 0) { warp add(r, r, r); } else { warp neg(r, r); }\n"
    "  cta copy(B, s);\n"
    "}\n";

static const char src_b[] =
    "kernel rowsum(X: f32[4, 32], Y: f32[4]) grid(1) threads(1) {\n"
    "  register acc: f32[4];\n"
    "  thread reduce(acc, X, sum, 1);\n"
    "  thread copy(Y, acc);\n"
    "  thread mul(X, X, acc.bcast(1, 32));\n"
    "  thread copy(Y, X.view(S[4:32] + 1));\n"
    "}\n";

/* A reduce destination replicated over lanes that hold other rows (op
 * 1: a butterfly would leave each lane its own row's total) and one
 * replicated over the reduced lanes only (op 2). */
static const char src_c[] =
    "kernel k(X: f32[4, 16]) grid(1) threads(32) {\n"
    "  register r: f32[4, 16] layout S[(4,2,8):(8@laneid,1,1@laneid)];\n"
    "  register m: f32[4] layout S[4:1] + R[32:1@laneid];\n"
    "  register o: f32[4] layout S[4:8@laneid] + R[8:1@laneid];\n"
    "  warp copy(r, X);\n"
    "  warp reduce(m, r, sum, 1);\n"
    "  warp reduce(o, r, max, 1);\n"
    "}\n";

/* Masks in tiles: iota from the tile's origin, a comparison into an i8
 * predicate, select with a -inf fill, argmax, gelu, an iota in shared
 * memory. */
static const char src_d[] =
    "kernel tile(X: f32[64, 32], Y: f32[64, 32], Z: i32[64]) grid(2) "
    "threads(32) {\n"
    "  register s: f32[32, 32] layout S[(32,32):(1@tx,1)];\n"
    "  register c: i32[32, 32] layout S[(32,32):(1@tx,1)];\n"
    "  register m: i8[32, 32] layout S[(32,32):(1@tx,1)];\n"
    "  register q: i32[32] layout S[32:1@tx];\n"
    "  register f: f32[32] layout S[32:1@tx];\n"
    "  shared z: i32[32];\n"
    "  cta copy(s, X[bx * 32:+32, 0:+32]);\n"
    "  cta iota(c, 1, 0);\n"
    "  cta iota(q, 0, bx * 32);\n"
    "  cta le(m, c, q.bcast(1, 32));\n"
    "  cta fill(f, -inf);\n"
    "  cta select(s, m, s, f.bcast(1, 32));\n"
    "  cta reduce(q, s, argmax, 1);\n"
    "  cta copy(Z[bx * 32:+32], q);\n"
    "  cta gelu(s, s);\n"
    "  cta copy(Y[bx * 32:+32, 0:+32], s);\n"
    "  cta iota(z, 0, 1);\n"
    "}\n";

/* Swizzled shared tiles (inner and outer), the fp8 and i8 dtypes. */
static const char src_e[] =
    "kernel sw(A: f32[5, 8], H: e4m3[5, 8], G: e5m2[5, 8], C: i8[5, 8]) "
    "grid(1) threads(32) {\n"
    "  shared s: f32[5, 8] layout Swizzle<0, 3, 3>(S[(5, 8):(8, 1)]);\n"
    "  shared u: f32[5, 8] layout Swizzle<0, 1, 3, outer>(S[(5, 8):(8, 1)]);\n"
    "  shared v: f32[5, 8] layout Swizzle<2, 1, 3>(S[(5, 8):(8, 1)]);\n"
    "  cta copy(s, A);\n"
    "  cta copy(u, A);\n"
    "  cta copy(v, A);\n"
    "}\n";

/* Scalar operands: literals (integer, fractional, -inf, a param) and
 * runtime scalars at every source position that takes one. */
static const char src_s[] =
    "param P = 7;\n"
    "kernel so(A: f32[4, 8], I: i32[4, 8], e: f32, n: i32) grid(1) "
    "threads(1) {\n"
    "  register p: i8[4, 8];\n"
    "  thread add(A, A, e);\n"
    "  thread mul(A, 0.125, A);\n"
    "  thread lt(p, I, n);\n"
    "  thread ge(p, -3, I);\n"
    "  thread select(A, p, -inf, A);\n"
    "  thread select(A, p, P, e);\n"
    "  thread pow(A, A, -2.5);\n"
    "}\n";

/* Grid-scope work: a kernel-scope reduce and gemm (ops 0, 1: chunks of
 * the reduced dimension and atomics; op 2: an f64 gemm, no atomics) and
 * atomic_add at thread and kernel scope (ops 3, 4). */
static const char src_g[] =
    "kernel k(X: f32[4, 64], s: f32[4], A: f32[2, 64], B: f32[3, 64],\n"
    "         C: f32[2, 3], D: f64[2, 64], E: f64[3, 64], F: f64[2, 3])\n"
    "    grid(2) threads(32) {\n"
    "  kernel reduce(s, X, sum, 1);\n"
    "  kernel gemm(C, A, B);\n"
    "  kernel gemm(F, D, E);\n"
    "  thread atomic_add(s, X.view(S[4:64] + tx));\n"
    "  kernel atomic_add(A, X[0 : +2, 0 : +64]);\n"
    "}\n";

/* ---- parse ------------------------------------------------------------- */

typedef struct parse_row {
    const char *src;
    const char *define; /* -D NAME=value, or NULL */
    int64_t value;
    const char *tree;
    const char *tensors; /* one line per tensor */
    const char *ops;     /* one line per operator */
} parse_row;

static const parse_row parse_rows[] = {
    {src_a, NULL, 0, "O F{O} S I{O}{O} O",
     "A global f32 [8,32] S[(8,32):(32,1)]\n"
     "B global f32 [8,32] S[(8,32):(32,1)]\n"
     "r register f32 [8,32] S[(8,32):(1,1@laneid)]\n"
     "s shared f32 [8,32] S[(8,32):(32,1)]",
     "op 0 line 5 warp copy r A[0:+8, 0:+32]\n"
     "op 1 line 7 thread fill s[i * 4:+4, laneid:+1] 1.5\n"
     "op 2 line 10 warp add r r r\n"
     "op 3 line 10 warp neg r r\n"
     "op 4 line 11 cta copy B s"},
    /* The define overrides the param before shapes are folded. */
    {src_a, "N", 3, "O F{O} S I{O}{O} O",
     "A global f32 [3,32] S[(3,32):(32,1)]\n"
     "B global f32 [3,32] S[(3,32):(32,1)]\n"
     "r register f32 [8,32] S[(8,32):(1,1@laneid)]\n"
     "s shared f32 [8,32] S[(8,32):(32,1)]",
     NULL},
    {src_b, NULL, 0, "O O O O",
     "X global f32 [4,32] S[(4,32):(32,1)]\n"
     "Y global f32 [4] S[4:1]\n"
     "acc register f32 [4] S[4:1]",
     "op 0 line 3 thread reduce acc X sum dim 1\n"
     "op 1 line 4 thread copy Y acc\n"
     "op 2 line 5 thread mul X X acc.bcast(1, 32)\n"
     "op 3 line 6 thread copy Y X.view(S[4:32] + 1)"},
    {src_d, NULL, 0, "O O O O O O O O O O O",
     "X global f32 [64,32] S[(64,32):(32,1)]\n"
     "Y global f32 [64,32] S[(64,32):(32,1)]\n"
     "Z global i32 [64] S[64:1]\n"
     "s register f32 [32,32] S[(32,32):(1@tx,1)]\n"
     "c register i32 [32,32] S[(32,32):(1@tx,1)]\n"
     "m register i8 [32,32] S[(32,32):(1@tx,1)]\n"
     "q register i32 [32] S[32:1@tx]\n"
     "f register f32 [32] S[32:1@tx]\n"
     "z shared i32 [32] S[32:1]",
     "op 0 line 8 cta copy s X[bx * 32:+32, 0:+32]\n"
     "op 1 line 9 cta iota c dim 1 start 0\n"
     "op 2 line 10 cta iota q dim 0 start bx * 32\n"
     "op 3 line 11 cta le m c q.bcast(1, 32)\n"
     "op 4 line 12 cta fill f -inf\n"
     "op 5 line 13 cta select s m s f.bcast(1, 32)\n"
     "op 6 line 14 cta reduce q s argmax dim 1\n"
     "op 7 line 15 cta copy Z[bx * 32:+32] q\n"
     "op 8 line 16 cta gelu s s\n"
     "op 9 line 17 cta copy Y[bx * 32:+32, 0:+32] s\n"
     "op 10 line 18 cta iota z dim 0 start 1"},
    {src_e, NULL, 0, "O O O",
     "A global f32 [5,8] S[(5,8):(8,1)]\n"
     "H global e4m3 [5,8] S[(5,8):(8,1)]\n"
     "G global e5m2 [5,8] S[(5,8):(8,1)]\n"
     "C global i8 [5,8] S[(5,8):(8,1)]\n"
     "s shared f32 [5,8] Swizzle<0,3,3>(S[(5,8):(8,1)])\n"
     "u shared f32 [5,8] Swizzle<0,1,3,outer>(S[(5,8):(8,1)])\n"
     "v shared f32 [5,8] Swizzle<2,1,3>(S[(5,8):(8,1)])",
     "op 0 line 5 cta copy s A\n"
     "op 1 line 6 cta copy u A\n"
     "op 2 line 7 cta copy v A"},
    {src_s, NULL, 0, "O O O O O O O",
     "A global f32 [4,8] S[(4,8):(8,1)]\n"
     "I global i32 [4,8] S[(4,8):(8,1)]\n"
     "p register i8 [4,8] S[(4,8):(8,1)]",
     "op 0 line 4 thread add A A scalar:e\n"
     "op 1 line 5 thread mul A lit:0.125 A\n"
     "op 2 line 6 thread lt p I scalar:n\n"
     "op 3 line 7 thread ge p lit:-3 I\n"
     "op 4 line 8 thread select A p lit:-inf A\n"
     "op 5 line 9 thread select A p lit:7 scalar:e\n"
     "op 6 line 10 thread pow A A lit:-2.5"},
};

static void check_lines(const char *what, const char *want, int count,
                        const axe_program *p, bool ops)
{
    char got[512], line[512];
    int i;
    for (i = 0; i < count; i++) {
        if (ops)
            op_text(p, p->ops[i], got, sizeof got);
        else
            tensor_text(&p->tensors[i], got, sizeof got);
        TL_CHECK(strcmp(got, line_of(want, i, line, sizeof line)) == 0,
                 "%s %d: got '%s', want '%s'", what, i, got, line);
    }
    TL_CHECK(line_of(want, count, line, sizeof line)[0] == '\0',
             "%s: %d parsed, more expected", what, count);
}

static void test_parse(void)
{
    size_t k;
    for (k = 0; k < sizeof parse_rows / sizeof parse_rows[0]; k++) {
        const parse_row *r = &parse_rows[k];
        axe_kernel_options o;
        axe_status st;
        axe_diag d;
        axe_program *p;
        char tree[256];
        axe_kernel_options_init(&o);
        if (r->define != NULL)
            TL_CHECK(axe_kernel_options_define(&o, r->define, r->value) ==
                         AXE_OK,
                     "define");
        p = run_upto(r->src, 0, &o, &st, &d);
        TL_CHECK(p != NULL, "row %zu: parse: %s", k, d.message);
        if (p == NULL)
            continue;
        tree_text(p->body, tree, sizeof tree, 0);
        TL_CHECK(strcmp(tree, r->tree) == 0, "row %zu: tree '%s'", k, tree);
        check_lines("tensor", r->tensors, p->ntensors, p, false);
        if (r->ops != NULL)
            check_lines("op", r->ops, p->nops, p, true);
        TL_CHECK(p->tensors[0].param && !p->tensors[p->ntensors - 1].param,
                 "row %zu: parameters first", k);
        axe_program_free(p);
    }
}

/* ---- check ------------------------------------------------------------- */

/* "NAME span S dist D owner SCOPE written W" per tensor; per operator its
 * enclosing guard ("-" none, "!" negated) and its operands' regions. */
static void fact_text(const axe_program *p, int i, char *buf, size_t cap)
{
    size_t n = 0;
    int k;
    if (i < p->ntensors) {
        const ax_tensor *t = &p->tensors[i];
        PUT("%s span %lld dist %d owner %s written %d", t->name,
            (long long)t->span, t->distributed, axe__scope_name(t->owner),
            t->written);
        return;
    }
    {
        static const char *const cmp[] = {"<", "<=", ">", ">=", "==", "!="};
        const ax_stmt *s = p->ops[i - p->ntensors];
        const ax_guard *g = s->guard;
        PUT("op %d guard ", s->index);
        if (g == NULL)
            PUT("-");
        else {
            PUT("%s", g->negate ? "!" : "");
            n = axe__expr_text(p, g->lhs, buf, cap, n);
            PUT(" %s ", cmp[g->cmp]);
            n = axe__expr_text(p, g->rhs, buf, cap, n);
        }
        for (k = 0; k < s->nargs; k++)
            n = ref_text(p, &s->args[k], buf, cap, n);
    }
}

typedef struct check_row {
    const char *src;
    const char *facts; /* tensors, then operators, one per line */
} check_row;

static const check_row check_rows[] = {
    /* Whole-tensor operands get the tensor's region. */
    {src_a, "A span 256 dist 0 owner thread written 0\n"
            "B span 256 dist 0 owner thread written 1\n"
            "r span 8 dist 1 owner warp written 1\n"
            "s span 256 dist 0 owner thread written 1\n"
            "op 0 guard - r[0:+8, 0:+32] A[0:+8, 0:+32]\n"
            "op 1 guard - s[i * 4:+4, laneid:+1]\n"
            "op 2 guard bx == 0 r[0:+8, 0:+32] r[0:+8, 0:+32] "
            "r[0:+8, 0:+32]\n"
            "op 3 guard !bx == 0 r[0:+8, 0:+32] r[0:+8, 0:+32]\n"
            "op 4 guard - B[0:+8, 0:+32] s[0:+8, 0:+32]"},
    /* The reduce destination gets a broadcast of the reduced dimension
     * (its extent, 32, from the source); the view S[4:32] + 1 reads X at
     * 1, 33, 65, 97, inside X's span. */
    {src_b, "X span 128 dist 0 owner thread written 1\n"
            "Y span 4 dist 0 owner thread written 1\n"
            "acc span 4 dist 0 owner thread written 1\n"
            "op 0 guard - acc[0:+4].bcast(1, 32) X[0:+4, 0:+32]\n"
            "op 1 guard - Y[0:+4] acc[0:+4]\n"
            "op 2 guard - X[0:+4, 0:+32] X[0:+4, 0:+32] "
            "acc[0:+4].bcast(1, 32)\n"
            "op 3 guard - Y[0:+4] X.view(S[4:32] + 1)"},
    /* A swizzled tensor's span is its largest swizzled address plus one:
     * s keeps each row (bits [3, 6) xored into [0, 3)), 40; u moves
     * element (4, 7) at 39 to 39 XOR 8 = 47, so 48; v (M = 2: bit 5
     * into bit 2) keeps each row, 40. */
    {src_e, "A span 40 dist 0 owner thread written 0\n"
            "H span 40 dist 0 owner thread written 0\n"
            "G span 40 dist 0 owner thread written 0\n"
            "C span 40 dist 0 owner thread written 0\n"
            "s span 40 dist 0 owner thread written 1\n"
            "u span 48 dist 0 owner thread written 1\n"
            "v span 40 dist 0 owner thread written 1\n"
            "op 0 guard - s[0:+5, 0:+8] A[0:+5, 0:+8]\n"
            "op 1 guard - u[0:+5, 0:+8] A[0:+5, 0:+8]\n"
            "op 2 guard - v[0:+5, 0:+8] A[0:+5, 0:+8]"},
};

/* Programs that parse but that check rejects: status and reason. */
typedef struct reject_row {
    const char *body; /* inside kernel k(A: f32[4]) grid(1) threads(32) */
    axe_status status;
    const char *reason;
} reject_row;

static const reject_row reject_rows[] = {
    /* scalar operands: check converts them to the operands' dtype */
    {"register r: i32[4]; thread add(r, r, 0.5);", AXE_ERR_INVALID,
     "the literal 0.5 is not an integer, but add computes in i32 here"},
    {"register r: i8[4]; thread mul(r, r, -129);", AXE_ERR_DOMAIN,
     "the literal -129 lies outside i8's range [-128, 127]"},
    {"register r: f16[4]; thread sub(r, r, -65536);", AXE_ERR_DOMAIN,
     "the literal -65536 exceeds the largest finite f16 (65504)"},
    {"register r: e4m3[4]; thread max(r, r, 449);", AXE_ERR_DOMAIN,
     "the literal 449 exceeds the largest finite e4m3 (448)"},
    {"register r: f32[4]; thread min(r, 1, 2);", AXE_ERR_INVALID,
     "both sources of min are scalars"},
    {"register r: f32[4] layout S[8:1]; thread copy(r, A);", AXE_ERR_INVALID,
     "the layout of 'r' has 8 elements but its shape has 4"},
    {"shared s: f32[60000]; cta fill(s, 0.0);", AXE_ERR_CAPACITY,
     "shared memory of one CTA reaches 240000 bytes with 's'"},
    {"register r: f32[32] layout S[32:1@laneid]; thread fill(r, 1.0);",
     AXE_ERR_INVALID,
     "'r' is distributed over the warp's threads; a thread-scope operator "
     "needs a per-thread register"},
    {"shared s: f32[4]; kernel copy(A, s);", AXE_ERR_INVALID,
     "'s' is shared memory of one CTA; a kernel-scope operator takes "
     "global tensors only"},
    {"shared s: f32[4]; cta atomic_add(s, A);", AXE_ERR_INVALID,
     "atomic_add updates a global tensor, but 's' is shared memory"},
    {"register r: f32[4]; thread atomic_add(r, A);", AXE_ERR_INVALID,
     "atomic_add updates a global tensor, but 'r' is register memory"},
    {"register p: f32[4]; thread select(A, p, A, A);", AXE_ERR_INVALID,
     "the predicate 'p' of select is f32; it must be i8"},
    {"register p: i8[4]; thread select(A, p, A[0:2], A);", AXE_ERR_INVALID,
     "operand shape differs from the destination's in dimension 0 (2 vs 4)"},
    {"register p: i8[4]; register i: i32[4]; thread lt(p, A, i);",
     AXE_ERR_INVALID, "'i' is i32 but the other operand is f32"},
    {"thread gt(A, A, A);", AXE_ERR_INVALID,
     "gt writes an i8 predicate (0 or 1); 'A' is f32"},
    {"register k: i32[4]; thread iota(k, 1, 0);", AXE_ERR_INVALID,
     "iota along dimension 1 of a 1-dimensional destination"},
    {"register b: i8[4]; thread iota(b, 0, 125);", AXE_ERR_DOMAIN,
     "iota's values lie in [125, 128], beyond the integers that i8 holds"},
    {"register b: e5m2[4]; thread iota(b, 0, 6);", AXE_ERR_DOMAIN,
     "iota's values lie in [6, 9], beyond the integers that e5m2 holds "
     "exactly ([-8, 8])"},
    {"register b: i8[4]; thread iota(b, 0, laneid * 5);", AXE_ERR_DOMAIN,
     "iota's values lie in [0, 158], beyond"},
    {"register m: f32[2, 4]; register v: f32[2]; "
     "thread reduce(v, m, argmin, 1);",
     AXE_ERR_INVALID, "argmin writes an i32 index; 'v' is f32"},
    {"register m: f32[4, 4]; thread reduce(A, m, argmax, 1);", AXE_ERR_INVALID,
     "argmax writes an i32 index; 'A' is f32"},
    {"register i: i32[4]; thread erf(i, i);", AXE_ERR_INVALID,
     "erf needs a floating-point destination, not i32"},
};

static void test_check(void)
{
    size_t k;
    int i;
    char got[512], line[512], src[512];
    for (k = 0; k < sizeof check_rows / sizeof check_rows[0]; k++) {
        axe_program *p = must_run(check_rows[k].src, 1);
        for (i = 0; p != NULL && i < p->ntensors + p->nops; i++) {
            fact_text(p, i, got, sizeof got);
            line_of(check_rows[k].facts, i, line, sizeof line);
            TL_CHECK(strcmp(got, line) == 0, "row %zu: got '%s', want '%s'", k,
                     got, line);
        }
        axe_program_free(p);
    }
    for (k = 0; k < sizeof reject_rows / sizeof reject_rows[0]; k++) {
        const reject_row *r = &reject_rows[k];
        axe_status st;
        axe_diag d;
        axe_program *p;
        snprintf(src, sizeof src,
                 "kernel k(A: f32[4]) grid(1) threads(32) { %s }\n", r->body);
        axe_program_free(must_run(src, 0)); /* parse accepts it */
        p = run_upto(src, 1, NULL, &st, &d);
        TL_CHECK(p == NULL && st == r->status &&
                     strstr(d.message, r->reason) != NULL,
                 "reject %zu: %s: %s", k, axe_status_name(st), d.message);
        axe_program_free(p);
    }
}

/* ---- dispatch ---------------------------------------------------------- */

/* Per operator: the chosen schedule, or a schedule that dispatch rejects
 * with its reason. */
typedef struct sched_row {
    const char *src;
    int op;
    const char *schedule;
    const char *reason; /* NULL: chosen */
} sched_row;

static const sched_row sched_rows[] = {
    {src_a, 0, "thread_loop", NULL},
    {src_a, 0, "vector", "max_common_vector of the per-thread layouts is 1"},
    {src_a, 0, "split", "'r' is distributed: its layout binds"},
    {src_a, 1, "thread_loop", NULL},
    {src_a, 2, "thread_loop", NULL},
    {src_a, 3, "thread_loop", NULL},
    {src_a, 4, "vector", NULL},
    {src_a, 4, "thread_loop", "no register operand distributed"},
    {src_b, 0, "thread_loop", NULL},
    {src_b, 0, "smem", "a thread-scope operator has no threads to share data"},
    {src_b, 0, "warp_shuffle", "not at thread scope"},
    {src_b, 2, "thread_loop", NULL},
    {src_c, 1, "tree", NULL},
    {src_c, 1, "thread_loop", "thread ownership disagrees"},
    {src_c, 1, "warp_shuffle",
     "the destination 'm' is replicated over the threads of digit "
     "(rank/8)%4 (dim 0), which compute different elements"},
    {src_c, 2, "warp_shuffle", NULL},
    {src_d, 1, "thread_loop", NULL},
    {src_d, 1, "split", "'c' is distributed: its layout binds"},
    {src_d, 3, "thread_loop", NULL},
    {src_d, 5, "thread_loop", NULL},
    {src_d, 6, "thread_loop", NULL},
    {src_d, 6, "warp_shuffle", "not at cta scope"},
    {src_d, 8, "thread_loop", NULL},
    {src_d, 10, "split", NULL},
    {src_d, 10, "thread_loop", "no register operand distributed"},
    /* A vector only where the swizzle keeps it contiguous (2^M). */
    {src_e, 0, "split", NULL},
    {src_e, 0, "vector",
     "max_common_vector of the per-thread layouts is 40, but 's' is "
     "swizzled by Swizzle<0,3,3>, which keeps aligned runs of only 1 "
     "element contiguous"},
    {src_e, 1, "vector", "'u' is swizzled by Swizzle<0,1,3,outer>"},
    {src_e, 2, "vector", NULL},
    {src_g, 0, "grid", NULL},
    {src_g, 0, "thread_loop", "a kernel-scope operator has no register"},
    {src_g, 1, "split_k", NULL},
    {src_g, 1, "thread_fma", "a kernel-scope operator has no register"},
    {src_g, 2, "split_k", NULL},
    {src_g, 3, "thread_loop", NULL},
    {src_g, 3, "split", "a thread-scope operator has no threads to split"},
    {src_g, 4, "split", NULL},
    {src_c, 1, "grid", "not at kernel scope"},
};

static void test_dispatch(void)
{
    size_t k;
    for (k = 0; k < sizeof sched_rows / sizeof sched_rows[0]; k++) {
        const sched_row *r = &sched_rows[k];
        axe_program *p = must_run(r->src, 2);
        axe_diag why;
        axe_status st;
        const char *other;
        if (p == NULL)
            continue;
        st = axe__schedule_try(p, p->ops[r->op], r->schedule, &why);
        if (r->reason == NULL)
            TL_CHECK(strcmp(p->ops[r->op]->schedule, r->schedule) == 0 &&
                         st == AXE_OK,
                     "row %zu: op %d chose %s (%s applies: %s)", k, r->op,
                     p->ops[r->op]->schedule, r->schedule, why.message);
        else
            TL_CHECK(st == AXE_ERR_UNSUPPORTED &&
                         strstr(why.message, r->reason) != NULL &&
                         strcmp(p->ops[r->op]->schedule, r->schedule) != 0,
                     "row %zu: op %d %s: %s: %s", k, r->op, r->schedule,
                     axe_status_name(st), why.message);
        /* A schedule of another family is no schedule of this one. */
        other = p->ops[r->op]->op == AX_OP_GEMM ? "vector" : "mma_atom";
        TL_CHECK(axe__schedule_try(p, p->ops[r->op], other, &why) ==
                     AXE_ERR_INVALID,
                 "row %zu: %s is a schedule of another family", k, other);
        axe_program_free(p);
    }
}

/* The items of the grid schedules and the atomic flags of src_g, worked
 * out by hand: op 0 has 4 elements over 64 threads, so 16 chunks of 4 of
 * K = 64; op 1 6 elements, 11 chunks of 6 (the last of 4); op 2 (f64)
 * one chunk, no atomics; atomic_add is atomic. Coordinate (2, 37) of op
 * 0 is in chunk 9, item 9 * 4 + 2 = 38, rank 38; (1, 2, 63) of op 1 in
 * chunk 10, item 10 * 6 + 5 = 65, rank 1. */
static void test_grid(void)
{
    static const int64_t want[3][4] = {
        {4, 4, 16, 1}, {6, 6, 11, 1}, {6, 64, 1, 0}}; /* cells chunk n at */
    static const int64_t c0[2] = {2, 37}, c1[3] = {1, 2, 63};
    axe_program *p = must_run(src_g, 2);
    int i;
    if (p == NULL)
        return;
    for (i = 0; i < 3; i++) {
        const ax_grid *g = p->ops[i]->grid;
        TL_CHECK(g != NULL && g->cells == want[i][0] &&
                     g->chunk == want[i][1] && g->nchunk == want[i][2] &&
                     g->len == 64 && g->threads == 64 &&
                     p->ops[i]->atomic == (want[i][3] != 0),
                 "op %d: cells %lld chunk %lld nchunk %lld atomic %d", i,
                 g ? (long long)g->cells : -1, g ? (long long)g->chunk : -1,
                 g ? (long long)g->nchunk : -1, p->ops[i]->atomic);
    }
    TL_CHECK(axe__grid_rank(p->ops[0]->grid, p->ops[0], c0) == 38,
             "rank of (2, 37)");
    TL_CHECK(axe__grid_rank(p->ops[1]->grid, p->ops[1], c1) == 1,
             "rank of (1, 2, 63)");
    TL_CHECK(p->ops[3]->atomic && p->ops[4]->atomic && p->ops[3]->grid == NULL,
             "atomic_add is atomic");
    axe_program_free(p);
}

/* Forced schedules: dispatch alone chooses the forced one where it
 * applies, and fails with a status and reason where it does not. */
typedef struct force_row {
    const char *target, *schedule;
    axe_status status;
    const char *result; /* the op's schedule, or a fragment of the reason */
} force_row;

static const force_row force_rows[] = {
    {"copy#4", "split", AXE_OK, "split"},
    {"copy#0", "split", AXE_ERR_UNSUPPORTED,
     "no schedule for copy (forced): split: 'r' is distributed"},
    {"add", "split", AXE_ERR_UNSUPPORTED, "no schedule for add (forced)"},
    {"fill#0", "thread_loop", AXE_ERR_INVALID, "operator 0 is 'copy'"},
};

static void test_dispatch_forced(void)
{
    size_t k;
    for (k = 0; k < sizeof force_rows / sizeof force_rows[0]; k++) {
        const force_row *r = &force_rows[k];
        axe_kernel_options o;
        axe_status st;
        axe_diag d;
        axe_program *p = must_run(src_a, 1);
        if (p == NULL)
            continue;
        axe_kernel_options_init(&o);
        TL_CHECK(axe_kernel_options_force(&o, r->target, r->schedule) == AXE_OK,
                 "force");
        p->opts = o;
        axe_diag_clear(&d);
        st = axe__program_dispatch(p, &d);
        TL_CHECK(st == r->status &&
                     strstr(st == AXE_OK ? p->ops[4]->schedule : d.message,
                            r->result) != NULL,
                 "row %zu: %s: %s", k, axe_status_name(st), d.message);
        axe_program_free(p);
    }
}

/* ---- emit -------------------------------------------------------------- */

static const char *const labels[] = {
    "{ /* op 0 (line 5): warp copy -- schedule copy.thread_loop",
    "{ /* op 1 (line 7): thread fill -- schedule fill.thread_loop",
    "{ /* op 2 (line 10): warp add -- schedule add.thread_loop",
    "{ /* op 3 (line 10): warp neg -- schedule neg.thread_loop",
    "{ /* op 4 (line 11): cta copy -- schedule copy.vector",
};

static char *emit(const char *src)
{
    axe_program *p = must_run(src, 2);
    size_t n;
    char *buf;
    if (p == NULL)
        return NULL;
    n = axe_program_emit_c(p, "k.axe", NULL, 0);
    buf = malloc(n + 1);
    if (buf != NULL)
        TL_CHECK(axe_program_emit_c(p, "k.axe", buf, n + 1) == n,
                 "emit length");
    axe_program_free(p);
    return buf;
}

static void test_emit(void)
{
    char *a = emit(src_a), *b = emit(src_a);
    size_t k;
    TL_CHECK(a != NULL && b != NULL && strcmp(a, b) == 0,
             "two emissions differ");
    for (k = 0; a != NULL && k < sizeof labels / sizeof labels[0]; k++)
        TL_CHECK(strstr(a, labels[k]) != NULL, "no label '%s'", labels[k]);
    free(a);
    free(b);
}

int main(void)
{
    test_parse();
    test_check();
    test_dispatch();
    test_grid();
    test_dispatch_forced();
    test_emit();
    return tl_finish();
}
