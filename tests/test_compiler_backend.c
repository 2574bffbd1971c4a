/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the compiler's backends (docs/compiler.md, "Backends"): the
 * target and architecture options (valid and invalid spellings, each
 * refusal with its reason, the options untouched on failure); a program
 * compiled for a target reports it; a schedule the target lacks is
 * rejected with the reason in --explain, and an operator whose preferred
 * schedule the target lacks is refused naming that schedule unless the
 * fallback is forced; options that name no backend (filled in by hand)
 * are refused by compile; axe_program_emit is the C of
 * axe_program_emit_c for target c and a .cu with the kernel and its
 * launcher for target cuda, the same text every time (an f16 register
 * the .cu holds in 32-bit words is an array of elements again in the C
 * emitted after it). The naive variant
 * (axe_kernel_options.naive) takes the simplest schedule that applies
 * (thread_loop before vector, reduce.smem before tree, thread_fma before
 * mma) and emits no vector access, cp.async or mma.sync; it keeps an
 * atom only where nothing simpler applies, with a note, and refuses a
 * forced schedule.
 */
#include <stdlib.h>
#include <string.h>

#include "axe/kernel.h"
#include "testlib.h"

static const char copy_kernel[] =
    "kernel k(A: global f32[128, 64], B: global f32[128, 64]) grid(1) "
    "threads(128) {\n"
    "  register r: f32[128, 64] layout S[(128,16,4):(1@tx,4,1)];\n"
    "  cta copy(r, A);\n"
    "  cta add(r, r, r);\n"
    "  cta copy(B, r);\n"
    "}\n";

/* An f16 register that CUDA holds two to a 32-bit word (words16). */
static const char words_kernel[] =
    "kernel k(A: f32[32, 2], B: f32[32, 2]) grid(1) threads(32) {\n"
    "  register h: f16[32, 2] layout S[(32, 2):(1@laneid, 1)];\n"
    "  warp cast(h, A);\n"
    "  warp cast(B, h);\n"
    "}\n";

static const char tree_kernel[] =
    "kernel k(A: global f32[4, 256], B: global f32[4]) grid(1) "
    "threads(256) {\n"
    "  shared s: f32[4, 256];\n"
    "  shared d: f32[4];\n"
    "  cta copy(s, A);\n"
    "  sync;\n"
    "  cta reduce(d, s, sum, 1);\n"
    "  sync;\n"
    "  cta copy(B, d);\n"
    "}\n";

/* A row sum per warp over registers: reduce.warp_shuffle fits (the
 * naive variant's reduce.smem too). */
static const char warp_sum_kernel[] =
    "kernel k(X: f32[4, 64], Y: f32[4, 64]) grid(1) threads(128) {\n"
    "  register r: f32[1, 64] layout S[(1, 2, 32):(0, 1, 1@laneid)];\n"
    "  register m: f32[1] layout S[1:1] + R[32:1@laneid];\n"
    "  warp copy(r, X[warpid : +1, 0 : +64]);\n"
    "  warp reduce(m, r, sum, 1);\n"
    "  warp div(r, r, m.bcast(1, 64));\n"
    "  warp copy(Y[warpid : +1, 0 : +64], r);\n"
    "}\n";

/* A warp's m16n8k8 (tf32) C fragment tile, A and B from global memory:
 * gemm.mma_smem fits, gemm.thread_fma applies too. */
static const char gemm_kernel[] =
    "kernel k(A: f32[16, 16], B: f32[16, 16], C: f32[16, 16]) grid(1) "
    "threads(32) {\n"
    "  register c: f32[16, 16] layout S[(2, 8, 2, 4, 2):(2, 4@laneid, 4, "
    "1@laneid, 1)];\n"
    "  warp fill(c, 0);\n"
    "  warp gemm(c, A, B);\n"
    "  warp copy(C, c);\n"
    "}\n";

/* The m16n8k32 atom on e4m3 A, e5m2 B (sm_89+), registers of one warp. */
static const char fp8_kernel[] =
    "kernel k(A: e4m3[16, 32], B: e5m2[8, 32], C: f32[16, 8]) grid(1) "
    "threads(32) {\n"
    "  register a: e4m3[16, 32] layout S[(2, 8, 2, 4, 4):(4, 4@laneid, 8, "
    "1@laneid, 1)];\n"
    "  register b: e5m2[8, 32] layout S[(8, 2, 4, 4):(4@laneid, 4, 1@laneid, "
    "1)];\n"
    "  register c: f32[16, 8] layout S[(2, 8, 4, 2):(2, 4@laneid, 1@laneid, "
    "1)];\n"
    "  warp copy(a, A);\n"
    "  warp copy(b, B);\n"
    "  warp fill(c, 0);\n"
    "  warp gemm(c, a, b);\n"
    "  warp copy(C, c);\n"
    "}\n";

/* Target rows: target, arch (NULL: default), expected reason ("" valid),
 * expected target and arch of the options. */
static void test_target_option(void)
{
    static const struct {
        const char *target, *arch, *reason;
        const char *want_target;
        int want_arch;
    } rows[] = {
        {"c", NULL, "", "c", 0},
        {"cuda", NULL, "", "cuda", 0},
        {"cuda", "sm_80", "", "cuda", 80},
        {"cuda", "sm_86", "", "cuda", 86},
        {"cuda", "sm_89", "", "cuda", 89},
        {"cuda", "sm_90", "", "cuda", 90},
        {"cuda", "sm_75",
         "'sm_75' is no architecture of target cuda (sm_80, "
         "sm_86, sm_89, sm_90)",
         NULL, 0},
        {"cuda", "sm_800", "'sm_800' is no architecture", NULL, 0},
        {"cuda", "", "'' is no architecture", NULL, 0},
        {"cuda", "80", "'80' is no architecture", NULL, 0},
        {"c", "sm_80", "target c has no architectures ('sm_80' given)", NULL,
         0},
        {"", NULL, "unknown target '' (targets: c, cuda, mpi, trn-sim)", NULL,
         0},
        {"CUDA", NULL, "unknown target 'CUDA' (targets: c, cuda, mpi, trn-sim)",
         NULL, 0},
        {"ptx", "sm_80", "unknown target 'ptx'", NULL, 0},
    };
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_kernel_options o;
        axe_diag d;
        axe_status st;
        axe_kernel_options_init(&o);
        TL_CHECK(axe_kernel_options_define(&o, "N", 4) == AXE_OK, "define");
        st = axe_kernel_options_target(&o, rows[i].target, rows[i].arch, &d);
        if (rows[i].reason[0] == '\0') {
            TL_CHECK(st == AXE_OK, "row %zu: %s", i, d.message);
            TL_CHECK(strcmp(o.target, rows[i].want_target) == 0 &&
                         o.arch == rows[i].want_arch,
                     "row %zu: target '%s' arch %d", i, o.target, o.arch);
        } else {
            TL_CHECK(st == AXE_ERR_INVALID &&
                         strstr(d.message, rows[i].reason) != NULL,
                     "row %zu: %d '%s'", i, (int)st, d.message);
            TL_CHECK(o.target[0] == '\0' && o.arch == 0,
                     "row %zu: options changed on failure", i);
        }
        TL_CHECK(o.ndefines == 1 && o.define_value[0] == 4,
                 "row %zu: defines kept", i);
    }
    TL_CHECK(axe_kernel_options_target(NULL, "c", NULL, NULL) ==
                 AXE_ERR_INVALID,
             "NULL options");
}

static axe_status compile(const char *text, const axe_kernel_options *o,
                          axe_program **p, axe_diag *d)
{
    return axe_program_compile(text, strlen(text), o, NULL, p, d);
}

static void cuda_options(axe_kernel_options *o, const char *arch)
{
    axe_diag d;
    axe_kernel_options_init(o);
    TL_CHECK(axe_kernel_options_target(o, "cuda", arch, &d) == AXE_OK, "%s",
             d.message);
}

/* Options filled in by hand: unknown target, unterminated, bad arch. */
static void test_bad_options(void)
{
    static const struct {
        const char *target;
        int arch;
        const char *reason;
    } rows[] = {
        {"vulkan", 0,
         "unknown target 'vulkan' (targets: c, cuda, mpi, trn-sim)"},
        {"cuda", 75, "target cuda has no architecture 75 (sm_80, sm_86"},
        {"c", 80, "target c has no architectures (arch 80 given)"},
        {"cuda", -1, "target cuda has no architecture -1"},
    };
    size_t i;
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_kernel_options_init(&o);
        strcpy(o.target, rows[i].target);
        o.arch = rows[i].arch;
        TL_CHECK(compile(copy_kernel, &o, &p, &d) == AXE_ERR_INVALID &&
                     p == NULL && strstr(d.message, rows[i].reason) != NULL,
                 "row %zu: '%s'", i, d.message);
    }
    axe_kernel_options_init(&o);
    memset(o.target, 'x', sizeof o.target);
    TL_CHECK(compile(copy_kernel, &o, &p, &d) == AXE_ERR_INVALID && p == NULL &&
                 strstr(d.message, "not terminated") != NULL,
             "unterminated: '%s'", d.message);
}

static char *emit(axe_program *p, bool c_only)
{
    size_t n = c_only ? axe_program_emit_c(p, "k.axe", NULL, 0)
                      : axe_program_emit(p, "k.axe", NULL, 0);
    char *buf = malloc(n + 1);
    if (buf == NULL)
        return NULL;
    if (c_only)
        (void)axe_program_emit_c(p, "k.axe", buf, n + 1);
    else
        (void)axe_program_emit(p, "k.axe", buf, n + 1);
    return buf;
}

static void test_emit(void)
{
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    const char *arch = NULL;
    char *a, *b;
    TL_CHECK(compile(copy_kernel, NULL, &p, &d) == AXE_OK, "%s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strcmp(axe_program_target(p, &arch), "c") == 0 &&
                 strcmp(arch, "") == 0,
             "default target c");
    a = emit(p, false);
    b = emit(p, true);
    TL_CHECK(a != NULL && b != NULL && strcmp(a, b) == 0,
             "target c emits the C");
    free(a);
    free(b);
    axe_program_free(p);
    cuda_options(&o, "sm_90");
    TL_CHECK(compile(copy_kernel, &o, &p, &d) == AXE_OK, "%s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strcmp(axe_program_target(p, &arch), "cuda") == 0 &&
                 strcmp(arch, "sm_90") == 0,
             "target cuda sm_90");
    a = emit(p, false);
    b = emit(p, false);
    TL_CHECK(a != NULL && b != NULL && strcmp(a, b) == 0, "deterministic");
    TL_CHECK(a != NULL && strstr(a, "__global__ void") != NULL &&
                 strstr(a, "extern \"C\" int axe_launch_k(float *t_A, "
                           "float *t_B, cudaStream_t ax_stream)") != NULL &&
                 strstr(a, "target cuda sm_90") != NULL &&
                 strstr(a, "AXE_LDV(uint4, t_A, ") != NULL,
             "cuda text:\n%s", a != NULL ? a : "");
    free(a);
    free(b);
    axe_program_free(p);
}

static size_t explain_has(axe_program *p, const char *what)
{
    char buf[8192];
    (void)axe_program_explain(p, buf, sizeof buf);
    return strstr(buf, what) != NULL;
}

/* A register held in words by the CUDA emission is an array of its
 * elements again in the C of the same program (axe_program_emit_c after
 * axe_program_emit): the C equals a fresh program's. */
static void test_words_then_c(void)
{
    axe_kernel_options o;
    axe_program *p = NULL, *q = NULL;
    axe_diag d;
    char *cu, *c, *fresh;
    cuda_options(&o, "sm_80");
    TL_CHECK(compile(words_kernel, &o, &p, &d) == AXE_OK &&
                 compile(words_kernel, &o, &q, &d) == AXE_OK,
             "%s", d.message);
    if (p == NULL || q == NULL) {
        axe_program_free(p);
        return;
    }
    cu = emit(p, false);
    c = emit(p, true);
    fresh = emit(q, true);
    TL_CHECK(cu != NULL && strstr(cu, "uint32_t t_h[1] = {0};") != NULL &&
                 strstr(cu, "ax_st16(t_h, ") != NULL,
             "h in words:\n%s", cu != NULL ? cu : "");
    TL_CHECK(c != NULL && fresh != NULL && strcmp(c, fresh) == 0 &&
                 strstr(c, "ax_ld16(") == NULL,
             "the C after the CUDA:\n%s", c != NULL ? c : "");
    free(cu);
    free(c);
    free(fresh);
    axe_program_free(p);
    axe_program_free(q);
}

/* reduce.tree on the cuda target: stage 1 by cp.async (a 16-byte vector
 * copy from global to shared memory, waited for before the sync), each
 * step followed by __syncthreads(). */
static void test_tree_on_cuda(const axe_kernel_options *o)
{
    axe_program *p = NULL;
    axe_diag d;
    char *a;
    TL_CHECK(compile(tree_kernel, o, &p, &d) == AXE_OK, "tree on cuda: '%s'",
             d.message);
    if (p == NULL)
        return;
    TL_CHECK(explain_has(p, "chosen reduce.tree") &&
                 explain_has(p, "cuda sm_80: stage 1 into the shared scratch "
                                "ax_red1, __syncthreads() (bar.sync 0), the "
                                "tree's steps each followed by the barrier"),
             "explain shows the tree's barriers");
    a = emit(p, false);
    TL_CHECK(a != NULL &&
                 strstr(a, "__syncthreads(); /* the tree step is complete "
                           "*/") != NULL &&
                 strstr(a, "axe_ptx_cp_async_cg16(AXE_AT(t_s, ") != NULL &&
                 strstr(a, "axe_ptx_cp_async_wait<0>(); /* the cp.async "
                           "copies above are complete */\n    "
                           "__syncthreads(); /* sync */") != NULL,
             "tree on cuda:\n%s", a != NULL ? a : "");
    free(a);
    axe_program_free(p);
}

/* Dispatch by target: schedules the target lacks are rejected with the
 * reason; an operator whose preferred schedule is missing is refused. */
static void test_dispatch(void)
{
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    cuda_options(&o, NULL);
    TL_CHECK(compile(copy_kernel, &o, &p, &d) == AXE_OK, "%s", d.message);
    if (p != NULL) {
        TL_CHECK(explain_has(p, "  cuda sm_80: 16-byte vector loads and "
                                "stores (uint4"),
                 "explain shows the instructions");
        TL_CHECK(explain_has(p, "rejected copy.smem: the source 'A' is not "
                                "a distributed register"),
                 "copy.smem is the predicate's rejection, not the target's");
        axe_program_free(p);
    }
    p = NULL;
    test_tree_on_cuda(&o);
    p = NULL;
    TL_CHECK(compile(tree_kernel, NULL, &p, &d) == AXE_OK, "tree on c: %s",
             d.message);
    axe_program_free(p);
    p = NULL;
    TL_CHECK(compile(gemm_kernel, &o, &p, &d) == AXE_OK, "gemm on cuda: '%s'",
             d.message);
    if (p != NULL) {
        const char *op = NULL;
        TL_CHECK(strcmp(axe_program_schedule(p, 1, &op), "mma_smem") == 0,
                 "gemm on cuda is mma_smem");
        TL_CHECK(explain_has(p, "  cuda sm_80: f32 FMA on the m16n8k8 "
                                "fragments in the order of K"),
                 "an f32 gemm keeps f32 on cuda");
        axe_program_free(p);
        p = NULL;
    }
    TL_CHECK(compile(fp8_kernel, &o, &p, &d) == AXE_ERR_UNSUPPORTED &&
                 p == NULL &&
                 strstr(d.message, "needs --arch sm_89 or later") != NULL,
             "fp8 gemm on cuda sm_80: '%s'", d.message);
    cuda_options(&o, "sm_89");
    TL_CHECK(compile(fp8_kernel, &o, &p, &d) == AXE_OK,
             "fp8 gemm on cuda sm_89: '%s'", d.message);
    if (p != NULL) {
        TL_CHECK(explain_has(p, "  cuda sm_89: mma.sync.aligned.m16n8k32.row."
                                "col.f32.e4m3.e5m2.f32, 1 x 1 x 1 atom "
                                "tiles, fragments packed"),
                 "fp8 gemm on sm_89 is mma.sync");
        axe_program_free(p);
    }
}

/* A gemm whose tensor-core schedule the target lacks runs on FMA when
 * the fallback is forced. */
static void test_forced_fallback(void)
{
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    const char *op = NULL;
    cuda_options(&o, "sm_89");
    TL_CHECK(axe_kernel_options_force(&o, "gemm", "thread_fma") == AXE_OK,
             "force");
    TL_CHECK(compile(gemm_kernel, &o, &p, &d) == AXE_OK, "%s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strcmp(axe_program_schedule(p, 1, &op), "thread_fma") == 0,
             "thread_fma");
    axe_program_free(p);
}

/* Compile "text" as the naive variant on "o"; its schedule of operator
 * "i" is "want" and its .cu has none of the "banned" texts. */
static void naive_row(const char *text, axe_kernel_options o, int i,
                      const char *want, const char *const *banned)
{
    axe_program *p = NULL;
    axe_diag d;
    const char *op = NULL, *got;
    char *a;
    int k;
    o.naive = true;
    TL_CHECK(compile(text, &o, &p, &d) == AXE_OK, "naive: %s", d.message);
    if (p == NULL)
        return;
    got = axe_program_schedule(p, i, &op);
    TL_CHECK(got != NULL && strcmp(got, want) == 0, "naive op %d: %s, not %s",
             i, got != NULL ? got : "(none)", want);
    a = emit(p, false);
    for (k = 0; a != NULL && banned[k] != NULL; k++)
        TL_CHECK(strstr(a, banned[k]) == NULL, "naive op %d %s has '%s'", i,
                 want, banned[k]);
    TL_CHECK(a != NULL, "emit");
    free(a);
    axe_program_free(p);
}

static void test_naive(void)
{
    static const char *const banned[] = {"AXE_LDV(uint",
                                         "AXE_STV(uint",
                                         "axe_ptx_cp_async_c",
                                         "axe_ptx_ldmatrix_x",
                                         "axe_ptx_mma_m1",
                                         "__shfl",
                                         NULL};
    axe_kernel_options o;
    axe_program *p = NULL;
    axe_diag d;
    long off = -1;
    const char *note;
    cuda_options(&o, NULL);
    naive_row(copy_kernel, o, 0, "thread_loop", banned);
    naive_row(copy_kernel, o, 2, "thread_loop", banned);
    naive_row(tree_kernel, o, 0, "split", banned); /* no cp.async */
    naive_row(tree_kernel, o, 1, "tree", banned);  /* nothing simpler */
    naive_row(warp_sum_kernel, o, 1, "smem", banned);
    naive_row(gemm_kernel, o, 1, "thread_fma", banned);
    TL_CHECK(compile(warp_sum_kernel, &o, &p, &d) == AXE_OK, "%s", d.message);
    TL_CHECK(p != NULL &&
                 strcmp(axe_program_schedule(p, 1, &note), "warp_shuffle") == 0,
             "the fast variant shuffles");
    axe_program_free(p);
    p = NULL;
    cuda_options(&o, "sm_89");
    o.naive = true;
    TL_CHECK(compile(fp8_kernel, &o, &p, &d) == AXE_OK, "naive fp8: %s",
             d.message);
    note = p != NULL ? axe_program_note(p, 3, &off) : NULL;
    TL_CHECK(note != NULL && strstr(note, "the naive variant keeps "
                                          "gemm.mma_atom: no simpler "
                                          "schedule applies") != NULL,
             "naive fp8 gemm: note '%s'", note != NULL ? note : "(none)");
    axe_program_free(p);
    p = NULL;
    TL_CHECK(axe_kernel_options_force(&o, "copy", "vector") == AXE_OK, "force");
    TL_CHECK(compile(copy_kernel, &o, &p, &d) == AXE_ERR_INVALID && p == NULL &&
                 strstr(d.message, "the naive variant takes no forced "
                                   "schedule (--schedule copy=vector)") != NULL,
             "naive and forced: '%s'", d.message);
}

/* The simulator's header, as the library embeds it: all of it (its
 * guard's #endif last, no byte past the length), and nothing for a name
 * the library does not hold. */
static void test_runtime_header(void)
{
    size_t n = 1;
    const char *h = axe_runtime_header("compiler_trn_sim.h", &n);
    TL_CHECK(h != NULL && n == strlen(h) &&
                 strstr(h, "#ifndef AXE_COMPILER_TRN_SIM_H") != NULL &&
                 strstr(h, "ax_trn_finish(ax_trn_sim *s)") != NULL && n > 7 &&
                 strcmp(h + n - 7, "#endif\n") == 0,
             "runtime header: %zu bytes", n);
    n = 1;
    TL_CHECK(axe_runtime_header("compiler_mpi_rt.h", &n) == NULL && n == 0,
             "runtime header: not held");
    TL_CHECK(axe_runtime_header(NULL, NULL) == NULL, "runtime header: NULL");
}

int main(void)
{
    test_runtime_header();
    test_target_option();
    test_bad_options();
    test_emit();
    test_words_then_c();
    test_dispatch();
    test_forced_fallback();
    test_naive();
    return tl_finish();
}
