/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The race detector of the reference (axe_program_reference_races,
 * src/compiler/compiler_race.c): one row per kernel, with the number of
 * races the report keeps and the message of the first, written by hand
 * from the plans (a split plan deals element u to thread u mod threads; a
 * bound plan to the threads holding the element; a thread-scope operator
 * to its thread). Kernels with a `sync` where one is needed, in-place
 * operators, a replicated register written and read back by its own
 * threads, and kernel-scope operators that deal each element to the same
 * thread report nothing. Also: the detector's limit, and axe_race_text
 * cut to a small buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "axe/kernel.h"
#include "compiler_internal.h"
#include "testlib.h"

typedef struct race_row {
    const char *what;
    const char *src;
    int nraces; /* races kept (distinct tensor, kind and lines) */
    const char *first;
} race_row;

static const race_row rows[] = {
    {"warpgroups hand a shared tile over without sync",
     "kernel k(A: f32[128, 8], B: f32[128, 8]) grid(1) threads(256) {\n"
     "  shared s: f32[128, 8];\n"
     "  if (wgid == 0) { warpgroup fill(s, 1.0); }\n"
     "  if (wgid == 1) { warpgroup relu(B, s); }\n"
     "}\n",
     1,
     "race on s[0,0]: written by thread 0 (line 3), read by thread 128 "
     "(line 4), no sync between"},
    {"the same with its sync",
     "kernel k(A: f32[128, 8], B: f32[128, 8]) grid(1) threads(256) {\n"
     "  shared s: f32[128, 8];\n"
     "  if (wgid == 0) { warpgroup fill(s, 1.0); }\n"
     "  sync;\n"
     "  if (wgid == 1) { warpgroup relu(B, s); }\n"
     "}\n",
     0, NULL},
    {"read, then overwritten by another thread (write after read)",
     "kernel k(A: f32[64], B: f32[64]) grid(1) threads(64) {\n"
     "  shared s: f32[64];\n"
     "  cta copy(s, A);\n"
     "  sync;\n"
     "  cta copy(B[0 : +63], s[1 : +63]);\n"
     "  cta fill(s, 0.0);\n"
     "}\n",
     1,
     "race on s[1]: read by thread 0 (line 5), written by thread 1 (line "
     "6), no sync between"},
    {"every thread writes one element (write after write)",
     "kernel k(A: f32[64]) grid(1) threads(64) {\n"
     "  shared s: f32[64];\n"
     "  thread fill(s[0 : +1], 1.0);\n"
     "  sync;\n"
     "  cta copy(A[0 : +1], s[0 : +1]);\n"
     "}\n",
     1,
     "race on s[0]: written by thread 0 (line 3), written by thread 1 (line "
     "3), no sync between"},
    {"shared memory read before any write in its CTA",
     "kernel k(A: f32[128]) grid(2) threads(64) {\n"
     "  shared s: f32[64];\n"
     "  if (bx == 0) { thread fill(s[tx : +1], 1.0); }\n"
     "  sync;\n"
     "  thread copy(A[bx * 64 + tx : +1], s[tx : +1]);\n"
     "}\n",
     1,
     "uninitialized read of s[0]: read by thread 0 (line 5) before any write "
     "to it in CTA 1 (garbage on a GPU)"},
    {"a shift in place inside one operator, run whole by each of two "
     "threads (a warp or cta copy of it is refused: compiler_errors.sh): "
     "thread 1 reads A[1], which thread 0 wrote; two kinds: a read and a "
     "write (either order), two writes (A[0] by both)",
     "kernel k(A: f32[64]) grid(1) threads(2) {\n"
     "  thread copy(A[0 : +63], A[1 : +63]);\n"
     "}\n",
     2,
     "race on A[1]: written by thread 0 (line 2), read by thread 1 (line 2), "
     "no sync between"},
    {"kernel-scope operators that deal each element to one thread",
     "kernel k(A: f32[64], B: f32[64]) grid(2) threads(16) {\n"
     "  kernel mul(A, A, A);\n"
     "  kernel add(B, A, A);\n"
     "  kernel relu(A, B);\n"
     "}\n",
     0, NULL},
    {"every CTA writes the whole output",
     "kernel k(A: f32[64], B: f32[64]) grid(2) threads(64) {\n"
     "  cta copy(B, A);\n"
     "}\n",
     1,
     "race on B[0]: written by thread 0 of CTA 0 (line 2), written by "
     "thread 0 of CTA 1 (line 2), threads of different CTAs"},
    {"a CTA reads what another wrote, after a sync",
     "kernel k(A: f32[2, 32], B: f32[2, 32]) grid(2) threads(32) {\n"
     "  cta copy(A[bx : +1, 0 : +32], B[bx : +1, 0 : +32]);\n"
     "  sync;\n"
     "  cta copy(B[bx : +1, 0 : +32], A[1 - bx : +1, 0 : +32]);\n"
     "}\n",
     2,
     "race on A[1,0]: read by thread 0 of CTA 0 (line 4), written by "
     "thread 0 of CTA 1 (line 2), threads of different CTAs"},
    {"a destination view whose elements share one address",
     "kernel k(A: f32[32], B: f32[1]) grid(1) threads(32) {\n"
     "  shared s: f32[1];\n"
     "  cta copy(s.view(S[(32):(0)]), A);\n"
     "  sync;\n"
     "  if (tx == 0) { thread copy(B, s); }\n"
     "}\n",
     1,
     "race on s[0]: written by thread 0 (line 3), written by thread 1 (line "
     "3), no sync between"},
    {"a replicated register written to shared and read back by its "
     "threads",
     "kernel k(A: f32[4], B: f32[4]) grid(1) threads(32) {\n"
     "  shared s: f32[4];\n"
     "  register r: f32[4] layout S[4:1] + R[32:1@tx];\n"
     "  cta copy(r, A);\n"
     "  cta copy(s, r);\n"
     "  cta copy(r, s);\n"
     "  cta copy(B, r);\n"
     "}\n",
     0, NULL},
    {"every thread of every CTA atomically adds into one row (atomics "
     "do not race with each other)",
     "kernel k(A: f32[1, 8], X: f32[64, 8]) grid(2) threads(32) {\n"
     "  thread atomic_add(A, X[bx * 32 + tx : +1, 0 : +8]);\n"
     "  thread atomic_add(A, X[tx : +1, 0 : +8]);\n"
     "  kernel atomic_add(A, X[5 : +1, 0 : +8]);\n"
     "}\n",
     0, NULL},
    {"the same with a plain add in place (read after write and write "
     "after write, in one CTA and across CTAs)",
     "kernel k(A: f32[1, 8], X: f32[64, 8]) grid(2) threads(32) {\n"
     "  thread add(A, A, X[bx * 32 + tx : +1, 0 : +8]);\n"
     "}\n",
     4,
     "race on A[0,0]: written by thread 0 (line 2), read by thread 1 (line "
     "2), no sync between"},
    {"a read of what other threads add atomically in the same phase",
     "kernel k(A: f32[1, 8], X: f32[64, 8]) grid(1) threads(32) {\n"
     "  thread atomic_add(A, X[tx : +1, 0 : +8]);\n"
     "  thread copy(X[tx : +1, 0 : +8], A);\n"
     "}\n",
     1,
     "race on A[0,0]: written by thread 31 (line 2), read by thread 0 (line "
     "3), no sync between"},
    {"kernel-scope reduce and gemm: chunks of K combined by atomics",
     "kernel k(X: f32[4, 64], s: f32[4], B: f32[3, 64], C: f32[4, 3])\n"
     "    grid(2) threads(32) {\n"
     "  kernel reduce(s, X, sum, 1);\n"
     "  kernel gemm(C, X, B);\n"
     "}\n",
     0, NULL},
    {"a kernel-scope gemm reads A where other threads wrote it (the chunk "
     "of item 0 holds A[0,0..5], written by threads 0..5)",
     "kernel k(A: f32[2, 64], B: f32[3, 64], C: f32[2, 3])\n"
     "    grid(2) threads(32) {\n"
     "  kernel fill(A, 1.0);\n"
     "  kernel gemm(C, A, B);\n"
     "}\n",
     2,
     "race on A[0,1]: written by thread 1 (line 3), read by thread 0 (line "
     "4), no sync between"},
    {"rows reduced from shared memory by a tree, then overwritten (the "
     "tree's staging reads each element on the thread that fills it: one "
     "split order)",
     "kernel k(A: f32[2, 64], B: f32[2]) grid(1) threads(64) {\n"
     "  shared s: f32[2, 64];\n"
     "  register row: f32[2] layout S[2:1] + R[64:1@tx];\n"
     "  cta copy(s, A);\n"
     "  sync;\n"
     "  cta reduce(row, s, sum, 1);\n"
     "  cta fill(s, 0.0);\n"
     "  sync;\n"
     "  cta copy(B, row);\n"
     "}\n",
     0, NULL},
    {"a copy.vector plan with dimension 0 innermost (T and G's view both "
     "contiguous along it) deals its 8-element chunks in that order: "
     "T[0,1] is chunk 4 (u = 1 * 32 + 0, thread 4), read by the split copy "
     "in dimension order as u = 1 (thread 1)",
     "kernel k(G: f16[1024], H: f16[32, 32]) grid(1) threads(64) {\n"
     "  shared T: f16[32, 32] layout S[(32, 32):(1, 32)];\n"
     "  cta copy(T, G.view(S[(32, 32):(1, 32)]));\n"
     "  cta copy(H, T);\n"
     "}\n",
     1,
     "race on T[0,1]: written by thread 4 (line 3), read by thread 1 (line "
     "4), no sync between"},
    {"the same with its sync",
     "kernel k(G: f16[1024], H: f16[32, 32]) grid(1) threads(64) {\n"
     "  shared T: f16[32, 32] layout S[(32, 32):(1, 32)];\n"
     "  cta copy(T, G.view(S[(32, 32):(1, 32)]));\n"
     "  sync;\n"
     "  cta copy(H, T);\n"
     "}\n",
     0, NULL},
    {"the permuted copy read back in its own order by the same threads "
     "(no sync needed: each chunk on the thread that wrote it)",
     "kernel k(G: f16[1024], H: f16[1024]) grid(1) threads(64) {\n"
     "  shared T: f16[32, 32] layout S[(32, 32):(1, 32)];\n"
     "  cta copy(T, G.view(S[(32, 32):(1, 32)]));\n"
     "  cta copy(H.view(S[(32, 32):(1, 32)]), T);\n"
     "}\n",
     0, NULL},
    {"a copy.vector plan along a run of sub-iters (X and T contiguous "
     "along dim 0's outer factor a of m = 8 a + b, then n) deals chunk "
     "(a + 64 b + 4 n) / 8 = 8 b + n / 2 to that thread; the register r "
     "holds (m, n) on thread 8 b + n / 2 too, so reading it back needs no "
     "sync",
     "kernel k(X: f16[32, 16] layout S[(4, 8, 16):(1, 64, 4)]) grid(1) "
     "threads(64) {\n"
     "  shared T: f16[32, 16] layout S[(4, 8, 16):(1, 64, 4)];\n"
     "  register r: f16[32, 16] layout S[(4, 8, 8, 2):(2, 8@tx, 1@tx, 1)];\n"
     "  cta copy(T, X);\n"
     "  cta copy(r, T);\n"
     "}\n",
     0, NULL},
    {"the same read by the split copy in dimension order: T[0,1] is "
     "address 4, chunk 0 (thread 0), read as u = 1 (thread 1)",
     "kernel k(X: f16[32, 16] layout S[(4, 8, 16):(1, 64, 4)], "
     "H: f16[32, 16]) grid(1) threads(64) {\n"
     "  shared T: f16[32, 16] layout S[(4, 8, 16):(1, 64, 4)];\n"
     "  cta copy(T, X);\n"
     "  cta copy(H, T);\n"
     "}\n",
     1,
     "race on T[0,1]: written by thread 0 (line 3), read by thread 1 (line "
     "4), no sync between"},
};

static void run_row(const race_row *row)
{
    axe_program *p = NULL;
    axe_race_report rep;
    axe_diag d;
    void *bufs[4] = {NULL, NULL, NULL, NULL};
    char msg[512] = "";
    int i, n;
    if (axe_program_compile(row->src, strlen(row->src), NULL, NULL, &p, &d) !=
        AXE_OK) {
        TL_CHECK(false, "%s: compile: %s", row->what, d.message);
        return;
    }
    n = axe_program_tensor_count(p);
    for (i = 0; i < n && i < 4; i++) {
        axe_kernel_tensor t = axe_program_tensor(p, i);
        bufs[i] = calloc((size_t)t.elems, (size_t)axe_dtype_size(t.dtype));
    }
    if (axe_program_reference_races(p, bufs, &rep, &d) != AXE_OK)
        TL_CHECK(false, "%s: reference: %s", row->what, d.message);
    else {
        if (rep.n > 0)
            (void)axe_race_text(&rep.race[0], msg, sizeof msg);
        TL_CHECK(rep.n == row->nraces, "%s: %d races, want %d (first: %s)",
                 row->what, rep.n, row->nraces, msg);
        TL_CHECK((rep.count > 0) == (row->nraces > 0), "%s: count %lld",
                 row->what, (long long)rep.count);
        if (row->first != NULL && rep.n > 0)
            TL_CHECK(strcmp(msg, row->first) == 0, "%s:\n  got  %s\n  want %s",
                     row->what, msg, row->first);
    }
    for (i = 0; i < 4; i++)
        free(bufs[i]);
    axe_program_free(p);
}

/* Past AXE_RACE_MAX_ELEMS the detector refuses before running (the
 * buffer stays as it was); the reference alone still runs. */
static void test_limit(void)
{
    static const char src[] = "kernel k(A: f32[4096, 1025]) grid(1) "
                              "threads(32) {\n"
                              "  thread fill(A[tx : +1, 0 : +1], 2.0);\n"
                              "}\n";
    axe_program *p = NULL;
    axe_race_report rep;
    axe_diag d;
    float *a = calloc(4096 * 1025, sizeof *a);
    if (a == NULL ||
        axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "limit: compile");
        free(a);
        return;
    }
    TL_CHECK(axe_program_reference_races(p, (void *const *)&a, &rep, &d) ==
                     AXE_ERR_CAPACITY &&
                 strstr(d.message, "at most 4194304 elements") != NULL &&
                 a[0] == 0,
             "limit: %s", d.message);
    TL_CHECK(axe_program_reference(p, (void *const *)&a, &d) == AXE_OK &&
                 a[0] == 2,
             "limit: the reference alone runs");
    axe_program_free(p);
    free(a);
}

/* axe_race_text is snprintf-style. */
static void test_text(void)
{
    axe_race r;
    char small[12], big[256];
    size_t n;
    memset(&r, 0, sizeof r);
    strcpy(r.tensor, "T");
    r.ndim = 2;
    r.index[0] = 3;
    r.index[1] = 5;
    r.first.thread = 7;
    r.first.line = 12;
    r.first.write = true;
    r.second.thread = 130;
    r.second.line = 15;
    n = axe_race_text(&r, big, sizeof big);
    TL_CHECK(strcmp(big, "race on T[3,5]: written by thread 7 (line 12), read "
                         "by thread 130 (line 15), no sync between") == 0 &&
                 n == strlen(big),
             "text: %s", big);
    TL_CHECK(axe_race_text(&r, small, sizeof small) == n &&
                 strcmp(small, "race on T[3") == 0,
             "text cut: %s", small);
    TL_CHECK(axe_race_text(&r, NULL, 0) == n, "text length");
    r.ndim = -1;
    r.address = 9;
    (void)axe_race_text(&r, big, sizeof big);
    TL_CHECK(strncmp(big, "race on T at offset 9: ", 23) == 0, "text: %s", big);
    strcpy(r.first.iter, "k = 1, j = 0"); /* an unrolled device loop's */
    r.ndim = 2;
    (void)axe_race_text(&r, big, sizeof big);
    TL_CHECK(strcmp(big, "race on T[3,5]: written by thread 7 (line 12, k = "
                         "1, j = 0), read by thread 130 (line 15), no sync "
                         "between") == 0,
             "text with iteration: %s", big);
}

/* The reference runs a gemm instance by ranges (compiler_ref.c,
 * gemm_ranges) where it can; axe__reference_by_elements runs every
 * element (the brute force). Kernel "kind" at M x N x K: 0 f16 into f32,
 * 1 i32 (products wrap), 2 f32 on two CTAs (both write C: races), 3 a
 * shared tile read before any write, 4 a shared tile written, synced,
 * then two gemms into C, 5 a gemm reading A from C's other columns (A
 * and C one tensor: by elements in both). */
static void gemm_src(char *buf, size_t cap, int kind, int m, int n, int k)
{
    static const char *const dt[] = {"f16", "i32", "f32", "f32", "f32", "f32"};
    char line[256];
    if (kind < 3)
        snprintf(line, sizeof line, "  thread gemm(C, A, B);\n");
    else if (kind == 3)
        snprintf(line, sizeof line,
                 "  shared s: f32[%d, %d];\n  thread gemm(C, s, B);\n", m, k);
    else if (kind == 4)
        snprintf(line, sizeof line,
                 "  shared s: f32[%d, %d];\n  cta copy(s, A);\n  sync;\n"
                 "  thread gemm(C, s, B);\n  thread gemm(C, A, B);\n",
                 m, k);
    else
        snprintf(line, sizeof line,
                 "  thread gemm(C[0 : +%d, 0 : +%d], A, B);\n"
                 "  thread gemm(C[0 : +%d, 0 : +%d], C[0 : +%d, %d : +%d], "
                 "B);\n",
                 m, n, m, n, m, n, k);
    snprintf(buf, cap,
             "kernel k(A: %s[%d, %d], B: %s[%d, %d], C: %s[%d, %d]) "
             "grid(%d) threads(1) {\n%s}\n",
             dt[kind], m, k, dt[kind], n, k, kind == 0 ? "f32" : dt[kind], m,
             kind == 5 ? n + k : n, kind == 2 ? 2 : 1, line);
}

/* Random contents for the tensors of "p". */
static void gemm_fill(axe_program *p, void **bufs)
{
    int i;
    int64_t x;
    for (i = 0; i < 3; i++) {
        axe_kernel_tensor t = axe_program_tensor(p, i);
        for (x = 0; x < t.elems; x++) {
            float f = (float)tl_range(-4096, 4096) / 512.0f;
            if (t.dtype == AXE_DTYPE_F16)
                ((uint16_t *)bufs[i])[x] = axe_f16_from_float(f);
            else if (t.dtype == AXE_DTYPE_I32)
                ((int32_t *)bufs[i])[x] =
                    (int32_t)tl_range(-2000000000, 2000000000);
            else
                ((float *)bufs[i])[x] = f;
        }
    }
}

/* Whether the two runs' reports name the same races in the same order. */
static bool same_races(const axe_race_report *a, const axe_race_report *b)
{
    char t[2][512];
    int i;
    if (a->count != b->count || a->n != b->n)
        return false;
    for (i = 0; i < a->n; i++) {
        (void)axe_race_text(&a->race[i], t[0], sizeof t[0]);
        (void)axe_race_text(&b->race[i], t[1], sizeof t[1]);
        if (strcmp(t[0], t[1]) != 0 || a->race[i].count != b->race[i].count)
            return false;
    }
    return true;
}

/* One random kernel of "kind" by ranges and by elements: the same bits
 * in every tensor and the same races. */
static void gemm_case(int kind)
{
    int m = (int)tl_range(1, 24), n = (int)tl_range(1, 24),
        k = (int)tl_range(1, 24), i, j;
    char src[1024];
    void *bufs[2][3];
    axe_race_report rep[2];
    axe_status st[2] = {AXE_OK, AXE_OK};
    axe_program *p = NULL;
    axe_diag d;
    size_t sz[3] = {(size_t)(m * k) * 4, (size_t)(n * k) * 4,
                    (size_t)(m * (n + k)) * 4};
    gemm_src(src, sizeof src, kind, m, n, k);
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "gemm: %s: %s", src, d.message);
        return;
    }
    for (j = 0; j < 2; j++)
        for (i = 0; i < 3; i++)
            bufs[j][i] = calloc(sz[i], 1);
    gemm_fill(p, bufs[0]);
    for (i = 0; i < 3; i++)
        memcpy(bufs[1][i], bufs[0][i], sz[i]);
    st[0] = axe_program_reference_races(p, bufs[0], &rep[0], &d);
    if (st[0] == AXE_OK)
        st[1] = axe__reference_by_elements(p, bufs[1], &rep[1], &d);
    TL_CHECK(st[0] == AXE_OK && st[1] == AXE_OK, "gemm: %s: %s", src,
             d.message);
    for (i = 0; st[0] == AXE_OK && st[1] == AXE_OK && i < 3; i++)
        TL_CHECK(memcmp(bufs[0][i], bufs[1][i], sz[i]) == 0,
                 "gemm by ranges: tensor %d differs:\n%s", i, src);
    TL_CHECK(st[0] != AXE_OK || st[1] != AXE_OK ||
                 (same_races(&rep[0], &rep[1]) &&
                  (kind == 2 || kind == 3) == (rep[0].n > 0)),
             "gemm by ranges: %lld races (%d kept), by elements %lld "
             "(%d):\n%s",
             (long long)rep[0].count, rep[0].n, (long long)rep[1].count,
             rep[1].n, src);
    for (j = 0; j < 2; j++)
        for (i = 0; i < 3; i++)
            free(bufs[j][i]);
    axe_program_free(p);
}

static void test_gemm_ranges(void)
{
    int iter;
    for (iter = 0; iter < 72; iter++)
        gemm_case(iter % 6);
}

int main(void)
{
    size_t i;
    tl_seed("test_compiler_race", 16);
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        run_row(&rows[i]);
    test_limit();
    test_text();
    test_gemm_ranges();
    return tl_finish();
}
