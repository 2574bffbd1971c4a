/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the kernel compiler's library API and passes: the allocation-
 * failure sweep (every allocation of compile and emit fails in turn: each
 * run returns AXE_ERR_NO_MEMORY, with "out of memory" as the complete
 * diagnostic, or succeeds, never crashes or leaks);
 * plans checked against brute force on seeded random layouts (a register
 * layout distributed over tx binds elements to threads: walking the plan's
 * thread digits and loops visits each element exactly once, on the thread
 * the layout's tx value names, at the register and global addresses the
 * layouts' apply gives; a split plan deals each element to exactly one
 * thread at the right addresses); the options API; schedule and explain
 * accessors. AXE_TEST_SEED=N replays.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

typedef struct budget {
    long left;
    long count;
} budget;

static void *budget_alloc(void *ctx, size_t n)
{
    budget *b = ctx;
    b->count++;
    if (b->left == 0)
        return NULL;
    b->left--;
    return malloc(n);
}

static void budget_release(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
}

static const char fig5[] =
    "param M = 64;\n"
    "kernel f(C: global f32[M, 128], D: global f32[16, 64]) grid(1) "
    "threads(128) {\n"
    "  register r: f32[16, 64] layout S[(16,8,8):(8@tx,1@tx,1)];\n"
    "  shared s: f32[16, 64];\n"
    "  cta copy(r, C[16:32, 64:128]);\n"
    "  for k in range(2) { cta add(r, r, r); sync; }\n"
    "  cta copy(s, r); sync; cta copy(D, s);\n"
    "}\n";

static void test_alloc_failures(void)
{
    long n;
    bool done = false;
    for (n = 0; n < 100000 && !done; n++) {
        budget b = {n, 0};
        axe_allocator al = {budget_alloc, budget_release, &b};
        axe_program *p = NULL;
        axe_diag d;
        char full[64];
        size_t full_len = 0;
        axe_status st =
            axe_program_compile_full(fig5, strlen(fig5), NULL, &al, &p, &d,
                                     full, sizeof full, &full_len);
        if (st == AXE_OK) {
            char buf[64];
            size_t len = axe_program_emit_c(p, "f.axe", buf, sizeof buf);
            TL_CHECK(len == 0 || b.left > 0 || len > 0, "emit with budget %ld",
                     n);
            done = b.left > 1000;
            axe_program_free(p);
            TL_CHECK(true, "ok");
        } else {
            TL_CHECK(st == AXE_ERR_NO_MEMORY && p == NULL,
                     "budget %ld: status %s (%s)", n, axe_status_name(st),
                     d.message);
            TL_CHECK(strcmp(full, "out of memory") == 0 && full_len == 13,
                     "budget %ld: full diagnostic '%s'", n, full);
        }
    }
    TL_CHECK(done, "compile never succeeded with a large budget");
}

/* Emitting with a budget that runs out during emit returns 0. */
static void test_emit_failure(void)
{
    long n;
    int failures = 0, successes = 0;
    for (n = 0; n < 400; n++) {
        budget b = {1000000, 0};
        axe_allocator al = {budget_alloc, budget_release, &b};
        axe_program *p = NULL;
        axe_diag d;
        if (axe_program_compile(fig5, strlen(fig5), NULL, &al, &p, &d) !=
            AXE_OK) {
            TL_CHECK(false, "compile failed: %s", d.message);
            return;
        }
        b.left = n;
        if (axe_program_emit_c(p, "f.axe", NULL, 0) == 0)
            failures++;
        else
            successes++;
        axe_program_free(p);
    }
    TL_CHECK(failures > 0 && successes > 0, "emit: %d failures, %d successes",
             failures, successes);
}

/* ---- plans against brute force ------------------------------------------ */

typedef struct rand_layout {
    int n;
    int64_t extent[12], stride[12];
    bool thread[12];
    int dim_of[12];
} rand_layout;

static void shuffle(int *a, int n)
{
    int i;
    for (i = n - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* Factors of T (threads) and V (values per thread) spread over 2 dims, in
 * random order; thread iters get a random chain of tx strides, memory
 * iters a random chain of m strides. */
static void random_layout(int64_t T, rand_layout *l, int64_t shape[2])
{
    int order[12], i, n = 0, nt = 0;
    int64_t tr = T, vr = tl_range(1, 3) * 2, ts = 1, ms = 1;
    memset(l, 0, sizeof *l);
    while (tr > 1) {
        int64_t f = tr >= 4 && tl_range(0, 1) ? 4 : 2;
        l->extent[n] = f, l->thread[n++] = true, tr /= f, nt++;
    }
    while (vr > 1 && n < 12) {
        int64_t f = vr % 3 == 0 ? 3 : 2;
        l->extent[n] = f, l->thread[n++] = false, vr /= f;
    }
    l->n = n;
    for (i = 0; i < n; i++)
        order[i] = i;
    shuffle(order, n);
    for (i = 0; i < n; i++) {
        int k = order[i];
        l->stride[k] = l->thread[k] ? ts : ms;
        if (l->thread[k])
            ts *= l->extent[k];
        else
            ms *= l->extent[k];
    }
    shape[0] = shape[1] = 1;
    for (i = 0; i < n; i++) {
        l->dim_of[i] = i < n / 2 ? 0 : 1;
        shape[l->dim_of[i]] *= l->extent[i];
    }
}

static size_t put_layout(char *buf, size_t cap, const rand_layout *l)
{
    size_t k = (size_t)snprintf(buf, cap, "S[(");
    int i;
    for (i = 0; i < l->n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                              (long long)l->extent[i]);
    k += (size_t)snprintf(buf + k, cap - k, "):(");
    for (i = 0; i < l->n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld%s", i ? "," : "",
                              (long long)l->stride[i],
                              l->thread[i] ? "@tx" : "");
    return k + (size_t)snprintf(buf + k, cap - k, ")]");
}

static int64_t m_of(const axe_layout *l, int64_t x, int64_t *tx)
{
    axe_point pt;
    int k;
    int64_t m = 0;
    *tx = 0;
    if (axe_layout_apply_base(l, x, &pt, NULL) != AXE_OK)
        return -1;
    for (k = 0; k < pt.n; k++) {
        if (strcmp(pt.axis[k], "m") == 0)
            m = pt.v[k];
        if (strcmp(pt.axis[k], "tx") == 0)
            *tx = pt.v[k];
    }
    return m;
}

typedef struct walk {
    const axe_program *p;
    const ax_stmt *s;
    int64_t rank;
    int64_t digit[AX_MAX_LOOPS];
    int *seen;
    int bad;
} walk;

static int64_t addr_of(const walk *w, int i)
{
    ax_base b;
    int64_t a;
    int k;
    axe__plan_base(w->p, &w->s->args[i], &b);
    a = b.cst;
    for (k = 0; k < w->s->plan->nloops; k++)
        a += w->digit[k] * w->s->plan->loops[k].stride[i];
    return a;
}

/* One element: coordinates from the digits, then the layouts' answers. */
static void visit(walk *w)
{
    const ax_plan *pl = w->s->plan;
    const ax_tensor *t0 = &w->p->tensors[w->s->args[0].tensor];
    const ax_tensor *t1 = &w->p->tensors[w->s->args[1].tensor];
    int64_t c[2] = {0, 0}, x, tx0, tx1, m0, m1;
    int k;
    for (k = 0; k < pl->nloops; k++)
        c[pl->loops[k].dim] += w->digit[k] * pl->loops[k].weight;
    x = c[0] * t0->shape[1] + c[1];
    w->seen[x]++;
    m0 = m_of(&t0->layout, x, &tx0);
    m1 = m_of(&t1->layout, x, &tx1);
    if (pl->kind == AX_PLAN_BOUND && tx0 != w->rank)
        w->bad++;
    if (m0 != addr_of(w, 0) || m1 != addr_of(w, 1))
        w->bad++;
}

static void walk_loops(walk *w, int k)
{
    const ax_plan *pl = w->s->plan;
    if (k == pl->nloops) {
        visit(w);
        return;
    }
    if (pl->loops[k].thread) {
        w->digit[k] = w->rank / pl->loops[k].rank_div % pl->loops[k].extent;
        walk_loops(w, k + 1);
        return;
    }
    for (w->digit[k] = 0; w->digit[k] < pl->loops[k].extent; w->digit[k]++)
        walk_loops(w, k + 1);
}

static void walk_split(walk *w)
{
    const ax_plan *pl = w->s->plan;
    int64_t u, e, wgt;
    int k;
    for (u = w->rank; u < pl->total * pl->vec; u += pl->nthreads) {
        wgt = 1;
        for (k = pl->nloops - 1; k >= 0; k--) {
            e = pl->loops[k].extent;
            w->digit[k] = u / wgt % e;
            wgt *= e;
        }
        visit(w);
    }
}

static void check_plan(const axe_program *p, const char *src)
{
    walk w;
    int64_t n = p->tensors[0].shape[0] * p->tensors[0].shape[1], i;
    int ones = 0;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.s = p->body;
    w.seen = calloc((size_t)n, sizeof(int));
    if (w.seen == NULL)
        return;
    for (w.rank = 0; w.rank < p->threads; w.rank++) {
        if (w.s->plan->kind == AX_PLAN_SPLIT)
            walk_split(&w);
        else
            walk_loops(&w, 0);
    }
    for (i = 0; i < n; i++)
        ones += w.seen[i] == 1;
    TL_CHECK(ones == n && w.bad == 0,
             "plan %s.%s: %d of %lld elements once, %d wrong: %s",
             axe__op_name(w.s->op), w.s->schedule, ones, (long long)n, w.bad,
             src);
    free(w.seen);
}

static void compile_and_check(const char *src)
{
    axe_program *p = NULL;
    axe_diag d;
    axe_status st = axe_program_compile(src, strlen(src), NULL, NULL, &p, &d);
    TL_CHECK(st == AXE_OK, "compile failed (%s): %s", d.message, src);
    if (st != AXE_OK)
        return;
    check_plan(p, src);
    axe_program_free(p);
}

/* A register layout over tx bound to a global tensor that is row-major or
 * column-major. */
static void test_bound_plans(int rounds)
{
    int r;
    for (r = 0; r < rounds; r++) {
        char text[1024], lay[256], glay[64] = "";
        int64_t T = (int64_t)1 << tl_range(1, 7), shape[2];
        rand_layout l;
        random_layout(T, &l, shape);
        put_layout(lay, sizeof lay, &l);
        if (tl_range(0, 1))
            snprintf(glay, sizeof glay, " layout S[(%lld,%lld):(1,%lld)]",
                     (long long)shape[0], (long long)shape[1],
                     (long long)shape[0]);
        snprintf(text, sizeof text,
                 "kernel k(A: f32[%lld, %lld]%s) grid(1) threads(%lld) {\n"
                 "  register r: f32[%lld, %lld] layout %s;\n"
                 "  cta %s(r, A);\n}\n",
                 (long long)shape[0], (long long)shape[1], glay, (long long)T,
                 (long long)shape[0], (long long)shape[1], lay,
                 tl_range(0, 1) ? "copy" : "neg");
        compile_and_check(text);
    }
}

/* A global tensor dealt to a random number of threads into a shared
 * tensor with a padded column-major layout. */
static void test_split_plans(int rounds)
{
    int r;
    for (r = 0; r < rounds; r++) {
        char text[1024];
        int64_t m = tl_range(1, 24), n = tl_range(1, 24);
        snprintf(text, sizeof text,
                 "kernel k(A: f32[%lld, %lld]) grid(1) threads(%lld) {\n"
                 "  shared s: f32[%lld, %lld] layout S[(%lld,%lld):(1,%lld)];"
                 "\n  cta copy(s, A);\n}\n",
                 (long long)m, (long long)n, (long long)tl_range(1, 96),
                 (long long)m, (long long)n, (long long)m, (long long)n,
                 (long long)(m + tl_range(0, 2)));
        compile_and_check(text);
    }
}

static void test_options(void)
{
    axe_kernel_options o;
    int i;
    char name[24];
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_define(&o, "", 1) == AXE_ERR_INVALID, "empty");
    TL_CHECK(axe_kernel_options_define(&o, "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
                                       1) == AXE_ERR_INVALID,
             "too long");
    for (i = 0; i < AXE_KERNEL_MAX_DEFINES; i++) {
        snprintf(name, sizeof name, "P%d", i);
        TL_CHECK(axe_kernel_options_define(&o, name, i) == AXE_OK, "%s", name);
    }
    TL_CHECK(axe_kernel_options_define(&o, "Q", 1) == AXE_ERR_CAPACITY,
             "capacity");
    TL_CHECK(axe_kernel_options_define(&o, "P3", 9) == AXE_OK &&
                 o.define_value[3] == 9,
             "redefine");
    for (i = 0; i < AXE_KERNEL_MAX_FORCED; i++) {
        snprintf(name, sizeof name, "copy#%d", i);
        TL_CHECK(axe_kernel_options_force(&o, name, "split") == AXE_OK, "%s",
                 name);
    }
    TL_CHECK(axe_kernel_options_force(&o, "copy", "split") == AXE_ERR_CAPACITY,
             "force capacity");
    TL_CHECK(axe_kernel_options_force(&o, "copy#1", "split") == AXE_ERR_INVALID,
             "forced twice");
}

/* --schedule rows: operator, schedule, expected reason ("" if valid). */
static void test_force_check(void)
{
    static const char *const rows[][3] = {
        {"copy", "thread_loop", ""},
        {"copy#12", "smem", ""},
        {"gemm#0", "mma_smem", ""},
        {"relu", "split", ""},
        {"foo", "thread_loop", "'foo' is not an operator (copy, fill,"},
        {"copy#4x", "split", "'copy#4x' is not OP or OP#N"},
        {"copy#", "split", "'copy#' is not OP or OP#N"},
        {"copy#-1", "split", "'copy#-1' is not OP or OP#N"},
        {"copy#123456", "split", "'copy#123456' is not OP or OP#N"},
        {"#3", "split", "'' is not an operator"},
        {"copy", "bogus",
         "copy has no schedule 'bogus' (vector, thread_loop, "
         "split, smem)"},
        {"add", "vector", "add has no schedule 'vector' (thread_loop, split)"},
        {"reduce", "split",
         "reduce has no schedule 'split' (thread_loop, "
         "warp_shuffle, tree, smem, grid)"},
        {"gemm", "smem",
         "gemm has no schedule 'smem' (mma_atom, mma_smem, "
         "thread_fma, split_k)"},
        {"add", "split",
         "add is forced twice (add=thread_loop and add=split)"}};
    axe_kernel_options o;
    axe_diag d;
    size_t i;
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_force(&o, "add", "thread_loop") == AXE_OK,
             "add");
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_status st =
            axe_kernel_options_check_force(&o, rows[i][0], rows[i][1], &d);
        if (rows[i][2][0] == '\0')
            TL_CHECK(st == AXE_OK, "%s=%s: %s", rows[i][0], rows[i][1],
                     d.message);
        else
            TL_CHECK(st == AXE_ERR_INVALID &&
                         strstr(d.message, rows[i][2]) != NULL,
                     "%s=%s: got '%s'", rows[i][0], rows[i][1], d.message);
    }
}

/* The complete diagnostic of axe_program_compile_full: every schedule's
 * whole reason as a note line, where the diag's one line is cut. */
static void test_full_diag(void)
{
    static const char bad[] =
        "kernel k(A: f32[16, 8]) grid(1) threads(32) {\n"
        "  register a: f32[16, 8] layout "
        "S[(2,8,4,2):(2,4@laneid,1@laneid,1)];\n"
        "  register b: f32[8, 8] layout S[(8,2,4):(4@laneid,1,1@laneid)];\n"
        "  register c: f32[16, 8] layout "
        "S[(2,8,4,2):(2,4@laneid,1@laneid,1)];\n"
        "  warp copy(a, A);\n  warp gemm(c, a, b);\n}\n";
    static const char want[] =
        "no schedule for gemm: none of mma_atom, mma_smem, thread_fma, "
        "split_k applies (reasons below)\n"
        "gemm.mma_atom: 'a' is not a tile of the A fragment [16, 8] "
        "S[(2,8,2,4):(1,4@laneid,2,1@laneid)]: dim 0: tiled iter (2,2@m) is "
        "not inner iter (2,1@m)\n"
        "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from "
        "shared or global memory\n"
        "gemm.thread_fma: 'b' holds element digit (dim 0, weight 1) on a "
        "different thread than the binding operand: thread ownership "
        "disagrees\n"
        "gemm.split_k: not at kernel scope (it splits the reduced dimension "
        "over the grid's threads)\n";
    axe_program *p = NULL;
    axe_diag d;
    char full[2048], small[10];
    size_t n = 99;
    size_t len;
    TL_CHECK(axe_program_compile_full(bad, strlen(bad), NULL, NULL, &p, &d,
                                      full, sizeof full,
                                      &n) == AXE_ERR_UNSUPPORTED,
             "no schedule");
    TL_CHECK(strcmp(full, want) == 0, "full: %s", full);
    TL_CHECK(n == strlen(want), "full length %zu", n);
    len = strlen(d.message);
    TL_CHECK(len == AXE_DIAG_MESSAGE_MAX - 1 &&
                 strcmp(d.message + len - 3, "...") == 0,
             "the diag is cut: %s", d.message);
    TL_CHECK(axe_program_compile_full(bad, strlen(bad), NULL, NULL, &p, &d,
                                      small, sizeof small,
                                      &n) == AXE_ERR_UNSUPPORTED &&
                 n == strlen(want) && strcmp(small, "no schedu") == 0,
             "snprintf-style: %zu '%s'", n, small);
    TL_CHECK(axe_program_compile_full("kernal", 6, NULL, NULL, &p, &d, full,
                                      sizeof full, &n) == AXE_ERR_SYNTAX &&
                 strcmp(full, d.message) == 0 && n == strlen(d.message),
             "without notes: the message: %s", full);
    TL_CHECK(axe_program_compile_full("kernal", 6, NULL, NULL, &p, NULL, small,
                                      sizeof small, &n) == AXE_ERR_SYNTAX &&
                 n == strlen(d.message) && strncmp(small, d.message, 9) == 0,
             "without a diag: the message still: %zu '%s'", n, small);
    TL_CHECK(axe_program_compile_full(fig5, strlen(fig5), NULL, NULL, &p, &d,
                                      full, sizeof full, &n) == AXE_OK &&
                 full[0] == '\0' && n == 0,
             "success: empty");
    axe_program_free(p);
}

static void test_accessors(void)
{
    axe_program *p = NULL;
    axe_diag d;
    axe_kernel_options o;
    const char *op = NULL;
    char buf[4096];
    axe_kernel_options_init(&o);
    TL_CHECK(axe_kernel_options_define(&o, "M", 40) == AXE_OK, "define");
    if (axe_program_compile(fig5, strlen(fig5), &o, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(strcmp(axe_program_name(p), "f") == 0, "name");
    TL_CHECK(axe_program_tensor_count(p) == 2, "tensor count");
    TL_CHECK(axe_program_tensor(p, 0).elems == 40 * 128, "-D M=40 elems");
    TL_CHECK(!axe_program_tensor(p, 0).written &&
                 axe_program_tensor(p, 1).written,
             "written flags");
    TL_CHECK(axe_program_tensor(p, 0).ndim == 2 &&
                 axe_program_tensor(p, 0).shape[0] == 40 &&
                 axe_program_tensor(p, 0).shape[1] == 128 &&
                 axe_program_tensor(p, 1).shape[0] == 16 &&
                 axe_program_tensor(p, 1).shape[1] == 64,
             "logical shapes");
    TL_CHECK(axe_program_tensor(p, 0).row_major &&
                 axe_program_tensor(p, 1).row_major,
             "tensors without a layout are row-major");
    TL_CHECK(strcmp(axe_program_schedule(p, 0, &op), "vector") == 0 &&
                 strcmp(op, "copy") == 0,
             "schedule 0");
    TL_CHECK(strcmp(axe_program_schedule(p, 1, &op), "thread_loop") == 0 &&
                 strcmp(op, "add") == 0,
             "schedule 1");
    TL_CHECK(strcmp(axe_program_schedule(p, 3, &op), "vector") == 0,
             "schedule 3");
    TL_CHECK(axe_program_schedule(p, 4, &op) == NULL, "past the end");
    TL_CHECK(axe_program_explain(p, buf, sizeof buf) < sizeof buf &&
                 strstr(buf, "chosen copy.vector") != NULL,
             "explain");
    TL_CHECK(axe_program_explain(p, buf, 8) > 8 && strlen(buf) < 8,
             "explain truncates with a NUL");
    axe_program_free(p);
    axe_program_free(NULL);
}

/* Whether each tensor parameter's buffer is the plain row-major array
 * of its shape (axe_program_tensor's row_major), with its span, by hand:
 * a row-major layout written out (grouped differently) is; a padded, a
 * transposed and an offset one are not. */
static void test_tensor_row_major(void)
{
    static const char src[] =
        "kernel k(A: f32[4, 8] layout S[(2, 2, 8):(16, 8, 1)],\n"
        "         P: f32[4, 8] layout S[(4, 8):(9, 1)],\n"
        "         T: f32[4, 8] layout S[(4, 8):(1, 4)],\n"
        "         O: f32[4, 8] layout S[(4, 8):(8, 1)] + 3,\n"
        "         V: i8[5]) grid(1) threads(1) {\n"
        "  thread copy(P, A); thread copy(T, A); thread copy(O, A);\n"
        "}\n";
    static const struct {
        int64_t elems;
        bool row_major;
    } want[] = {{32, true}, {35, false}, {32, false}, {35, false}, {5, true}};
    axe_program *p = NULL;
    axe_diag d;
    int i;
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    for (i = 0; i < 5; i++) {
        axe_kernel_tensor t = axe_program_tensor(p, i);
        TL_CHECK(t.elems == want[i].elems && t.row_major == want[i].row_major,
                 "%s: elems %lld row_major %d", t.name, (long long)t.elems,
                 (int)t.row_major);
    }
    TL_CHECK(axe_program_tensor(p, 4).ndim == 1 &&
                 axe_program_tensor(p, 4).shape[0] == 5,
             "V: shape [5]");
    axe_program_free(p);
}

/* The check's tolerances per dtype (docs/compiler.md), one row each. */
static void test_tolerance(void)
{
    static const struct {
        axe_dtype t;
        double atol, rtol;
    } rows[] = {{AXE_DTYPE_F16, 5e-3, 5e-3},    {AXE_DTYPE_BF16, 4e-2, 4e-2},
                {AXE_DTYPE_F32, 1e-6, 1e-5},    {AXE_DTYPE_F64, 1e-12, 1e-12},
                {AXE_DTYPE_I8, 0, 0},           {AXE_DTYPE_I32, 0, 0},
                {AXE_DTYPE_E4M3, 0.125, 0.125}, {AXE_DTYPE_E5M2, 0.25, 0.25}};
    double a = -1, r = -1;
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        TL_CHECK(axe_dtype_tolerance(rows[i].t, &a, &r) == AXE_OK &&
                     a == rows[i].atol && r == rows[i].rtol,
                 "%s: %g %g", axe_dtype_name(rows[i].t), a, r);
    TL_CHECK(
        axe_dtype_tolerance((axe_dtype)99, &a, &r) == AXE_ERR_INVALID &&
            axe_dtype_tolerance((axe_dtype)-1, &a, &r) == AXE_ERR_INVALID &&
            axe_dtype_tolerance(AXE_DTYPE_F32, NULL, &r) == AXE_ERR_INVALID,
        "not a dtype, no output: INVALID");
}

/* Integer semantics of the reference (docs/compiler.md, "Integer
 * arithmetic and conversions"): i32/i8 arithmetic wraps (two's
 * complement), float -> integer casts and fills truncate and saturate,
 * NaN -> 0. Expected values are worked out by hand (mod 2^32, mod 2^8). */
static const char int_src[] =
    "kernel k(A: i32[4], B: i8[3], C: i8[1], F: f32[5], I: i32[5],\n"
    "         J: i8[5], G: i32[1, 1], M: i32[1, 2]) grid(1) threads(1) {\n"
    "  thread fill(A[0:1], 96059601.0);\n"
    "  thread mul(A[0:1], A[0:1], A[0:1]);\n"
    "  thread fill(A[1:2], 2147483647.0);\n"
    "  thread add(A[1:2], A[1:2], A[1:2]);\n"
    "  thread fill(A[2:3], -2147483648.0);\n"
    "  thread neg(A[2:3], A[2:3]);\n"
    "  thread fill(A[3:4], 5000000000.0);\n"
    "  thread fill(B[0:1], 100.0);\n"
    "  thread mul(B[0:1], B[0:1], B[0:1]);\n"
    "  thread fill(B[1:2], -128.0);\n"
    "  thread neg(B[1:2], B[1:2]);\n"
    "  thread fill(B[2:3], 100.0);\n"
    "  thread add(B[2:3], B[2:3], B[2:3]);\n"
    "  thread cast(C, A[0:1]);\n"
    "  thread fill(F[0:1], 1000.5);\n"
    "  thread fill(F[1:2], -3000000000.0);\n"
    "  thread fill(F[2:3], 3000000000.0);\n"
    "  thread fill(F[3:4], -1.0);\n"
    "  thread sqrt(F[3:4], F[3:4]);\n"
    "  thread fill(F[4:5], -2.75);\n"
    "  thread cast(I, F);\n"
    "  thread cast(J, F);\n"
    "  thread fill(G, 5.0);\n"
    "  thread fill(M, 2000000000.0);\n"
    "  thread gemm(G, M, M);\n"
    "}\n";

static void test_int_semantics(void)
{
    static const int32_t a[4] = {1766599329, -2, INT32_MIN, INT32_MAX};
    static const int8_t b[3] = {16, -128, -56};
    static const int32_t i[5] = {1000, INT32_MIN, INT32_MAX, 0, -2};
    static const int8_t j[5] = {127, -128, 127, 0, -2};
    int32_t A[4] = {0}, I[5] = {0}, G[1] = {0}, M[2] = {0};
    int8_t B[3] = {0}, C[1] = {0}, J[5] = {0};
    float F[5] = {0};
    void *bufs[8] = {A, B, C, F, I, J, G, M};
    axe_program *p = NULL;
    axe_diag d;
    int k;
    if (axe_program_compile(int_src, strlen(int_src), NULL, NULL, &p, &d) !=
        AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    for (k = 0; k < 4; k++)
        TL_CHECK(A[k] == a[k], "i32 wraps: A[%d] = %d, want %d", k, A[k], a[k]);
    for (k = 0; k < 3; k++)
        TL_CHECK(B[k] == b[k], "i8 wraps: B[%d] = %d, want %d", k, B[k], b[k]);
    TL_CHECK(C[0] == -95, "i32 -> i8 wraps: %d", C[0]);
    for (k = 0; k < 5; k++)
        TL_CHECK(I[k] == i[k] && J[k] == j[k],
                 "f32 -> int saturates: %d: %d %d, want %d %d", k, I[k], J[k],
                 i[k], j[k]);
    TL_CHECK(G[0] == 991952901, "i32 gemm wraps: %d", G[0]);
    axe_program_free(p);
}

/* Runtime scalars: declared after the tensors that use them; before
 * axe_program_bind a tensor of runtime extent has 0 elements and the
 * reference refuses to run; bind checks i32 and the extents; the
 * reference then runs the guarded tail at the bound M (Y[r] = X[r] + X[r]
 * for r < M, the padding element after Y's M rows untouched). */
static const char scalar_src[] =
    "kernel s(X: global f32[M], Y: global f32[M + 1], M: i32)\n"
    "    grid((M + 3) // 4) threads(4)\n"
    "{\n"
    "  register r: f32[1];\n"
    "  if (bx * 4 + tx < M) {\n"
    "    thread copy(r, X[bx * 4 + tx : +1]);\n"
    "    thread add(r, r, r);\n"
    "    thread copy(Y[bx * 4 + tx : +1], r);\n"
    "  }\n"
    "}\n";

static void test_scalars(void)
{
    float X[6] = {1, 2, 3, 4, 5, 6}, Y[7] = {0, 0, 0, 0, 0, 0, -1};
    void *bufs[2] = {X, Y};
    int64_t v[1] = {-1};
    axe_program *p = NULL;
    axe_diag d;
    int k;
    if (axe_program_compile(scalar_src, strlen(scalar_src), NULL, NULL, &p,
                            &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_scalar_count(p) == 1 &&
                 strcmp(axe_program_scalar(p, 0).name, "M") == 0 &&
                 axe_program_scalar(p, 0).dtype == AXE_DTYPE_I32,
             "scalar M: i32");
    TL_CHECK(axe_program_tensor(p, 0).elems == 0, "unbound: 0 elements");
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_ERR_INVALID,
             "unbound: the reference refuses");
    TL_CHECK(axe_program_bind(p, v, &d) == AXE_ERR_DOMAIN &&
                 strstr(d.message, "the extent of 'X' (dimension 0), M, is "
                                   "-1 at launch") != NULL,
             "M = -1: %s", d.message);
    v[0] = (int64_t)INT32_MAX + 1;
    TL_CHECK(axe_program_bind(p, v, &d) == AXE_ERR_DOMAIN, "M beyond i32");
    v[0] = 6;
    TL_CHECK(axe_program_bind(p, v, &d) == AXE_OK, "bind M = 6");
    TL_CHECK(axe_program_tensor(p, 0).elems == 6 &&
                 axe_program_tensor(p, 1).elems == 7 &&
                 axe_program_tensor(p, 1).shape[0] == 7 &&
                 axe_program_tensor(p, 1).row_major,
             "elements and shape at M = 6");
    TL_CHECK(axe_program_work(p) == 8 * 3 + 13, "work at M = 6: %lld",
             (long long)axe_program_work(p));
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    for (k = 0; k < 6; k++)
        TL_CHECK(Y[k] == 2 * X[k], "Y[%d] = %g", k, (double)Y[k]);
    TL_CHECK(Y[6] == -1, "Y[6] untouched");
    axe_program_free(p);
}

/* Float runtime scalars: fill reads the value bound by
 * axe_program_bind_f, rounded to the scalar's dtype (f16: 0.1 ->
 * 0.0999755859375); an i32 value must be an integer, a float one finite
 * in its dtype. */
static const char fscalar_src[] =
    "kernel k(Y: f32[M, 2], M: i32, e: f32, h: f16)\n"
    "    grid(1) threads(1)\n"
    "{\n"
    "  register r: f32[1, 2];\n"
    "  for i in range(M) {\n"
    "    thread fill(r[0 : +1, 0 : +1], e);\n"
    "    thread fill(r[0 : +1, 1 : +1], h);\n"
    "    thread copy(Y[i : +1, 0 : +2], r);\n"
    "  }\n"
    "}\n";

static void test_float_scalars(void)
{
    float Y[4] = {0};
    void *bufs[1] = {Y};
    double v[3] = {1.5, 0.1, 0.1};
    axe_program *p = NULL;
    axe_diag d;
    if (axe_program_compile(fscalar_src, strlen(fscalar_src), NULL, NULL, &p,
                            &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_scalar(p, 1).dtype == AXE_DTYPE_F32 &&
                 axe_program_scalar(p, 2).dtype == AXE_DTYPE_F16,
             "dtypes of e and h");
    TL_CHECK(axe_program_bind_f(p, v, &d) == AXE_ERR_DOMAIN &&
                 strstr(d.message, "'M' = 1.5 is not an i32") != NULL,
             "M = 1.5: %s", d.message);
    v[0] = 2;
    v[2] = 1e5;
    TL_CHECK(axe_program_bind_f(p, v, &d) == AXE_ERR_DOMAIN &&
                 strstr(d.message, "is not a finite f16") != NULL,
             "h = 1e5: %s", d.message);
    v[2] = 0.1;
    TL_CHECK(axe_program_bind_f(p, v, &d) == AXE_OK, "bind: %s", d.message);
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    TL_CHECK(Y[0] == 0.1f && Y[2] == 0.1f && Y[1] == 0.0999755859375f &&
                 Y[3] == Y[1],
             "Y = %g %g %g %g", (double)Y[0], (double)Y[1], (double)Y[2],
             (double)Y[3]);
    axe_program_free(p);
}

/* Masks, new operators and reductions on hand-chosen values: argmax and
 * argmin take the lowest index on ties and skip NaN (a row of NaN: 0),
 * max and min skip NaN; comparisons are false on NaN but ne; iota adds
 * its start; select reads pred != 0; the math operators against their
 * mathematical values (to f32 accuracy); -inf fills. */
static const char tile_src[] =
    "kernel k(X: f32[2, 8], Z: i32[4], M: f32[4], F: f32[12], P: i8[7],\n"
    "         I: i32[2, 3], S: f32[3], A: f32[6]) grid(1) threads(1) {\n"
    "  register k: i32[2];\n"
    "  register m: f32[2];\n"
    "  register i: i32[2, 3];\n"
    "  register c: i8[3];\n"
    "  register u: f32[3];\n"
    "  register v: f32[3];\n"
    "  thread reduce(k, X, argmax, 1);\n"
    "  thread copy(Z[0:2], k);\n"
    "  thread reduce(k, X, argmin, 1);\n"
    "  thread copy(Z[2:4], k);\n"
    "  thread reduce(m, X, max, 1);\n"
    "  thread copy(M[0:2], m);\n"
    "  thread reduce(m, X, min, 1);\n"
    "  thread copy(M[2:4], m);\n"
    "  thread gelu(F[0:1], A[0:1]);\n"
    "  thread gelu_tanh(F[1:2], A[0:1]);\n"
    "  thread sigmoid(F[2:3], A[1:2]);\n"
    "  thread silu(F[3:4], A[0:1]);\n"
    "  thread erf(F[4:5], A[0:1]);\n"
    "  thread tanh(F[5:6], A[0:1]);\n"
    "  thread fill(F[6:7], 4.0);\n"
    "  thread rsqrt(F[6:7], F[6:7]);\n"
    "  thread fill(F[7:8], 8.0);\n"
    "  thread log2(F[7:8], F[7:8]);\n"
    "  thread fill(F[8:9], 3.0);\n"
    "  thread exp2(F[8:9], F[8:9]);\n"
    "  thread fill(F[9:10], 2.0);\n"
    "  thread fill(F[10:11], 10.0);\n"
    "  thread pow(F[9:10], F[9:10], F[10:11]);\n"
    "  thread fill(F[10:11], -3.0);\n"
    "  thread abs(F[10:11], F[10:11]);\n"
    "  thread log(F[11:12], A[0:1]);\n"
    "  thread lt(P[0:1], A[3:4], A[2:3]);\n"
    "  thread le(P[1:2], A[3:4], A[5:6]);\n"
    "  thread gt(P[2:3], A[3:4], A[2:3]);\n"
    "  thread ge(P[3:4], A[4:5], A[4:5]);\n"
    "  thread eq(P[4:5], A[4:5], A[4:5]);\n"
    "  thread ne(P[5:6], A[4:5], A[4:5]);\n"
    "  thread eq(P[6:7], A[3:4], A[5:6]);\n"
    "  thread iota(i, 1, 5);\n"
    "  thread iota(i[1:2, 0:3], 0, 0 - 7);\n"
    "  thread copy(I, i);\n"
    "  thread iota(c, 0, -1);\n"
    "  thread fill(u, 1.5);\n"
    "  thread fill(v, -inf);\n"
    "  thread select(S, c, u, v);\n"
    "}\n";

static void test_tile_semantics(void)
{
    static const float f[12] = {0.8413447460685429f,
                                0.8411919906082768f,
                                0.5f,
                                0.7310585786300049f,
                                0.8427007929497149f,
                                0.7615941559557649f,
                                0.5f,
                                3.0f,
                                8.0f,
                                1024.0f,
                                3.0f,
                                0.0f};
    static const int32_t z[4] = {1, 0, 4, 0}, ii[6] = {5, 6, 7, -7, -7, -7};
    static const int8_t pp[7] = {0, 1, 1, 0, 0, 1, 1};
    float X[16] = {1,   3,   NAN, 3,   -2,  3,   -2,  0,
                   NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    float A[6] = {1.0f, 0.0f, 1.0f, 3.0f, NAN, 3.0f}, M[4] = {0}, F[12] = {0},
          S[3] = {0};
    int32_t Z[4] = {0}, I[6] = {0};
    int8_t P[7] = {0};
    void *bufs[8] = {X, Z, M, F, P, I, S, A};
    axe_program *p = NULL;
    axe_diag d;
    int k;
    if (axe_program_compile(tile_src, strlen(tile_src), NULL, NULL, &p, &d) !=
        AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    for (k = 0; k < 4; k++)
        TL_CHECK(Z[k] == z[k], "arg reduce %d: %d, want %d", k, Z[k], z[k]);
    TL_CHECK(M[0] == 3 && M[1] != M[1] && M[2] == -2 && M[3] != M[3],
             "max/min skip NaN: %g %g %g %g", M[0], M[1], M[2], M[3]);
    for (k = 0; k < 12; k++)
        TL_CHECK(fabsf(F[k] - f[k]) <= 2e-7f * (1 + fabsf(f[k])),
                 "math %d: %.9g, want %.9g", k, F[k], f[k]);
    for (k = 0; k < 7; k++)
        TL_CHECK(P[k] == pp[k], "compare %d: %d, want %d", k, P[k], pp[k]);
    for (k = 0; k < 6; k++)
        TL_CHECK(I[k] == ii[k], "iota %d: %d, want %d", k, I[k], ii[k]);
    TL_CHECK(S[0] == 1.5f && S[1] == -INFINITY && S[2] == 1.5f,
             "select, -inf: %g %g %g", S[0], S[1], S[2]);
    axe_program_free(p);
}

/* A data-dependent start: the reference gathers rows ids[t] of E, and an
 * id out of range stops it with DOMAIN and the message the C backend
 * prints (the failing instance is skipped, no access out of bounds;
 * the other tokens and operators still run). */
static const char gather_src[] =
    "kernel g(E: global f32[4, 2], ids: global i32[3], O: global f32[3, 2])\n"
    "    grid(1) threads(3)\n"
    "{\n"
    "  register r: f32[1, 2];\n"
    "  thread copy(r, E[ids[tx] : +1, 0 : +2]);\n"
    "  thread copy(O[tx : +1, 0 : +2], r);\n"
    "}\n";

static void test_gather(void)
{
    float E[8] = {0, 1, 10, 11, 20, 21, 30, 31}, O[6] = {0};
    int32_t ids[3] = {2, 0, 3};
    void *bufs[3] = {E, ids, O};
    axe_program *p = NULL;
    axe_diag d;
    if (axe_program_compile(gather_src, strlen(gather_src), NULL, NULL, &p,
                            &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    TL_CHECK(O[0] == 20 && O[1] == 21 && O[2] == 0 && O[3] == 1 && O[4] == 30 &&
                 O[5] == 31,
             "gathered rows 2, 0, 3");
    ids[1] = 4;
    O[2] = O[3] = -1;
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_ERR_DOMAIN &&
                 strcmp(d.message,
                        "region of 'E' out of bounds at run time (line 5): "
                        "dimension 0 starts at 4 with length 1 but the "
                        "extent is 4; the start reads ids[1] = 4") == 0,
             "id 4: %s", d.message);
    TL_CHECK(O[2] == 0 && O[3] == 0 && O[4] == 30,
             "token 1's gather skipped (its register stays 0)");
    axe_program_free(p);
}

/* A masked region reads its fill outside the tensor and skips writes
 * there (hand-computed: O = {9, 1, 2, 9}, then Y[1] = O[0] only). */
static const char masked_src[] =
    "kernel m(X: global f32[2], O: global f32[4], Y: global f32[2])\n"
    "    grid(1) threads(1)\n"
    "{\n"
    "  thread copy(O, X[-1 : +4 masked 9.0]);\n"
    "  thread copy(Y[1 : +3 masked 0.0], O[0 : +3]);\n"
    "}\n";

static void test_masked(void)
{
    float X[2] = {1, 2}, O[4] = {0}, Y[2] = {-1, -1};
    void *bufs[3] = {X, O, Y};
    axe_program *p = NULL;
    axe_diag d;
    if (axe_program_compile(masked_src, strlen(masked_src), NULL, NULL, &p,
                            &d) != AXE_OK) {
        TL_CHECK(false, "compile: %s", d.message);
        return;
    }
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_OK, "reference");
    TL_CHECK(O[0] == 9 && O[1] == 1 && O[2] == 2 && O[3] == 9,
             "masked read: %g %g %g %g", O[0], O[1], O[2], O[3]);
    TL_CHECK(Y[0] == -1 && Y[1] == 9, "masked write: %g %g", Y[0], Y[1]);
    axe_program_free(p);
}

int main(void)
{
    tl_seed("test_compiler", 20261125);
    test_alloc_failures();
    test_emit_failure();
    test_bound_plans(300);
    test_split_plans(200);
    test_options();
    test_force_check();
    test_full_diag();
    test_accessors();
    test_tensor_row_major();
    test_tolerance();
    test_scalars();
    test_float_scalars();
    test_gather();
    test_masked();
    test_int_semantics();
    test_tile_semantics();
    return tl_finish();
}
