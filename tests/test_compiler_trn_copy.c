/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copy.dma and copy.vector of core kernels (docs/compiler.md, "The
 * accelerator model", "Copies"): the descriptors against brute force. On
 * seeded random P/F layouts of sbuf and psum tensors and random constant
 * regions of an HBM tensor, for copies HBM -> SBUF, SBUF -> HBM, SBUF ->
 * SBUF and PSUM -> SBUF, the element pairs the descriptors enumerate are
 * exactly the copy's (each logical element's source and destination
 * point from the layouts: a scratchpad's partition and free element from
 * its declared P/F/Bank layout, an HBM tensor's address from its layout,
 * through axe_layout_apply_base), each once; each descriptor keeps the
 * partition rules (per scratchpad side at most one level moves the
 * partition and it keeps the free element; a vector move keeps every
 * partition); a vector move refused is one that crosses partitions, with
 * the reason; copies whose starts read loop variables, at every value
 * of the loops (and the list dispatch keeps for each value); a copy.dma
 * from a view of HBM whose offset moves with a loop, against the view's
 * addresses by hand at every value; a start
 * reading a runtime scalar refused with the reason; and the --explain
 * rows of a plain copy, written by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

/* A random layout of an [R, C] scratchpad tensor into "buf": R = e0 e1,
 * C = e2 e3, each iter on P or F, the strides of each axis packed in a
 * random order with random gaps (so the layout is injective), psum
 * tensors' F within one bank (and P within the model's 128). */
static void random_layout(char *buf, size_t cap, int64_t *r, int64_t *c)
{
    int64_t e[4], st[4], next[2] = {1, 1};
    int ax[4], order[4] = {0, 1, 2, 3}, k, j, t;
again:
    next[0] = next[1] = 1;
    for (k = 0; k < 4; k++) {
        e[k] = tl_range(1, 4);
        ax[k] = (int)tl_range(0, 1); /* 0 P, 1 F */
    }
    for (k = 3; k > 0; k--) { /* a random order of packing */
        j = (int)tl_range(0, k);
        t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (k = 0; k < 4; k++) {
        int i = order[k];
        st[i] = next[ax[i]];
        next[ax[i]] *= e[i] * tl_range(1, 2);
    }
    if (next[0] > 128 || next[1] > 512) /* the partitions, a bank */
        goto again;
    *r = e[0] * e[1];
    *c = e[2] * e[3];
    snprintf(buf, cap,
             "S[(%lld,%lld,%lld,%lld):(%lld@%s,%lld@%s,%lld@%s,%lld@%s)]",
             (long long)e[0], (long long)e[1], (long long)e[2], (long long)e[3],
             (long long)st[0], ax[0] ? "F" : "P", (long long)st[1],
             ax[1] ? "F" : "P", (long long)st[2], ax[2] ? "F" : "P",
             (long long)st[3], ax[3] ? "F" : "P");
}

/* The point of element "lin" of tensor "t": (P, Bank * bank + F) from
 * its declared layout, or (0, address) of an HBM tensor. */
static bool point(const axe_program *p, const ax_tensor *t, int64_t lin,
                  int64_t *pt)
{
    axe_point q;
    int k;
    const axe_layout *l = t->space != AX_SPACE_NONE ? &t->playout : &t->layout;
    if (axe_layout_apply_base(l, lin, &q, NULL) != AXE_OK)
        return false;
    pt[0] = pt[1] = 0;
    for (k = 0; k < q.n; k++) {
        if (strcmp(q.axis[k], "P") == 0)
            pt[0] += q.v[k];
        else if (strcmp(q.axis[k], "Bank") == 0)
            pt[1] += q.v[k] * (p->opts.trn.psum_bank_bytes / 4);
        else
            pt[1] += q.v[k];
    }
    return true;
}

static int cmp4(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int k = 0; k < 4; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

/* The copy's pairs by brute force into "want" (n of them), its starts
 * at the variables "env". */
static bool want_pairs(const axe_program *p, const ax_stmt *s,
                       const int64_t *env, int64_t *want, int64_t *n)
{
    const ax_ref *r[2] = {&s->args[1], &s->args[0]};
    int64_t i, j, rows = s->args[0].len[0], cols = s->args[0].len[1];
    int side;
    *n = 0;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++) {
            for (side = 0; side < 2; side++) {
                const ax_tensor *t = &p->tensors[r[side]->tensor];
                int64_t r0 = r[side]->start[0]
                                 ? axe__expr_eval(r[side]->start[0], env)
                                 : 0;
                int64_t c0 = r[side]->start[1]
                                 ? axe__expr_eval(r[side]->start[1], env)
                                 : 0;
                if (!point(p, t, (r0 + i) * t->shape[1] + c0 + j,
                           &want[4 * *n + 2 * side]))
                    return false;
            }
            (*n)++;
        }
    return true;
}

/* The rules of descriptor "d" (see the file comment). */
static bool rules_hold(const ax_trn_desc *d, bool vector)
{
    int side, l, np;
    for (side = 0; side < 2; side++) {
        for (np = 0, l = 0; l < d->nlev; l++)
            if (d->step[l][2 * side] != 0)
                np += d->step[l][2 * side + 1] != 0 ? 2 : 1;
        if (np > 1)
            return false;
    }
    for (l = 0; vector && l < d->nlev; l++)
        if (d->step[l][0] != d->step[l][2])
            return false;
    return d->nlev <= AX_TRN_LEVELS && (!vector || d->base[0] == d->base[2]);
}

/* The pairs the descriptors enumerate into "got" (n of them, at most
 * "cap"). */
static bool got_pairs(const ax_trn_desc *d, int64_t nd, int64_t *got,
                      int64_t *n, int64_t cap)
{
    int64_t q, e, cnt, idx;
    int l, k;
    *n = 0;
    for (q = 0; q < nd; q++) {
        for (cnt = 1, l = 0; l < d[q].nlev; l++)
            cnt *= d[q].n[l];
        for (e = 0; e < cnt; e++) {
            if (*n == cap)
                return false;
            for (k = 0; k < 4; k++)
                got[4 * *n + k] = d[q].base[k];
            for (idx = e, l = d[q].nlev - 1; l >= 0; l--) {
                for (k = 0; k < 4; k++)
                    got[4 * *n + k] += idx % d[q].n[l] * d[q].step[l][k];
                idx /= d[q].n[l];
            }
            (*n)++;
        }
    }
    return true;
}

/* Whether some pair of "want" moves an element across partitions. */
static bool crosses(const int64_t *want, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (want[4 * i] != want[4 * i + 2])
            return true;
    return false;
}

static int64_t checked_copies;

/* The law on copy "s" of "p" under copy.vector ("vector") or copy.dma,
 * its starts at the variables "env". */
static void check_copy_at(const axe_program *p, const ax_stmt *s,
                          const int64_t *env, bool vector, const char *what)
{
    int64_t nw, ng, nd, q;
    int64_t *want = malloc(4096 * 4 * sizeof *want);
    int64_t *got = malloc(4096 * 4 * sizeof *got);
    ax_trn_desc *d = NULL;
    axe_diag why;
    axe_status st;
    bool ok;
    if (want == NULL || got == NULL || !want_pairs(p, s, env, want, &nw)) {
        TL_CHECK(false, "%s: no brute-force pairs", what);
        free(want);
        free(got);
        return;
    }
    st = axe__trn_copy_descs(p, s, env, vector, &d, &nd, &why);
    if (vector && crosses(want, nw)) {
        TL_CHECK(st == AXE_ERR_UNSUPPORTED &&
                     strstr(why.message, "the vector engine keeps "
                                         "partitions") != NULL,
                 "%s: a move across partitions: %s", what, why.message);
    } else {
        TL_CHECK(st == AXE_OK, "%s: %s", what, why.message);
        ok = st == AXE_OK && got_pairs(d, nd, got, &ng, 4096) && ng == nw;
        for (q = 0; ok && q < nd; q++)
            ok = rules_hold(&d[q], vector);
        if (ok) {
            qsort(want, (size_t)nw, 4 * sizeof *want, cmp4);
            qsort(got, (size_t)ng, 4 * sizeof *got, cmp4);
            ok = memcmp(want, got, (size_t)nw * 4 * sizeof *want) == 0;
        }
        TL_CHECK(st != AXE_OK || ok, "%s: %lld descriptors, pairs differ", what,
                 (long long)nd);
        checked_copies++;
    }
    free(d);
    free(want);
    free(got);
}

static void check_copy(const axe_program *p, const ax_stmt *s, bool vector,
                       const char *what)
{
    int64_t env[AX_MAX_VARS] = {0};
    check_copy_at(p, s, env, vector, what);
}

/* One random program: x (sbuf), y (sbuf), z (psum), random layouts of
 * one shape, A an HBM tensor with a random constant region. */
static void random_case(int i)
{
    char lx[128], ly[128], lz[128], src[1400], what[1600];
    int64_t r, c, r2, c2, r3, c3, r0, c0;
    axe_program *p = NULL;
    axe_diag d;
    random_layout(lx, sizeof lx, &r, &c);
    do
        random_layout(ly, sizeof ly, &r2, &c2);
    while (r2 != r || c2 != c);
    do
        random_layout(lz, sizeof lz, &r3, &c3);
    while (r3 != r || c3 != c);
    r0 = tl_range(0, 3);
    c0 = tl_range(0, 3);
    snprintf(src, sizeof src,
             "kernel k(A: global f32[%lld, %lld]) core\n{\n"
             "    sbuf x: f32[%lld, %lld] layout %s;\n"
             "    sbuf y: f32[%lld, %lld] layout %s;\n"
             "    psum z: f32[%lld, %lld] layout %s;\n"
             "    core copy(x, A[%lld:+%lld, %lld:+%lld]);\n"
             "    core copy(y, x);\n"
             "    core copy(x, z);\n"
             "    core copy(A[%lld:+%lld, %lld:+%lld], y);\n}\n",
             (long long)(r + 3), (long long)(c + 3), (long long)r, (long long)c,
             lx, (long long)r, (long long)c, ly, (long long)r, (long long)c, lz,
             (long long)r0, (long long)r, (long long)c0, (long long)c,
             (long long)r0, (long long)r, (long long)c0, (long long)c);
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(false, "case %d does not compile: %s\n%s", i, d.message, src);
        return;
    }
    snprintf(what, sizeof what, "case %d, HBM -> SBUF\n%s", i, src);
    check_copy(p, p->ops[0], false, what);
    snprintf(what, sizeof what, "case %d, SBUF -> SBUF (vector)\n%s", i, src);
    check_copy(p, p->ops[1], true, what);
    snprintf(what, sizeof what, "case %d, SBUF -> SBUF (dma)\n%s", i, src);
    check_copy(p, p->ops[1], false, what);
    snprintf(what, sizeof what, "case %d, PSUM -> SBUF (vector)\n%s", i, src);
    check_copy(p, p->ops[2], true, what);
    snprintf(what, sizeof what, "case %d, SBUF -> HBM\n%s", i, src);
    check_copy(p, p->ops[3], false, what);
    axe_program_free(p);
}

/* Copies whose starts read loop variables: for every value of the
 * loops, the descriptors at those values against brute force, and the
 * dispatched copy's list for that value (c->off) equal to them. */
static void test_loops(void)
{
    static const char src[] =
        "kernel k(A: global f32[12, 40], B: global f32[12, 40]) core\n{\n"
        "    sbuf x: f32[4, 8] layout S[(4,2,4):(1@P,4@F,1@F)];\n"
        "    for i in range(3) {\n"
        "        for j in range(5) {\n"
        "            core copy(x, A[i * 4 : +4, j * 8 : +8]);\n"
        "            core copy(B[i * 4 : +4, (4 - j) * 8 : +8], x);\n"
        "        }\n    }\n}\n";
    axe_program *p = NULL;
    axe_diag d;
    int64_t env[AX_MAX_VARS] = {0}, i, j, nd, q;
    int k;
    char what[64];
    TL_CHECK(axe_program_compile(src, sizeof src - 1, NULL, NULL, &p, &d) ==
                 AXE_OK,
             "loop program: %s", d.message);
    if (p == NULL)
        return;
    for (k = 0; k < 2; k++) {
        const ax_stmt *s = p->ops[k];
        const ax_trn_copy *c = s->tcopy;
        TL_CHECK(c != NULL && c->nloop == 2 && c->ncombo == 15, "op %d: loops",
                 k);
        for (i = 0; c != NULL && i < 3; i++)
            for (j = 0; j < 5; j++) {
                ax_trn_desc *dd = NULL;
                axe_diag w;
                env[c->loop_var[0]] = i;
                env[c->loop_var[1]] = j;
                snprintf(what, sizeof what, "op %d at i=%lld j=%lld", k,
                         (long long)i, (long long)j);
                check_copy_at(p, s, env, false, what);
                q = i * 5 + j;
                TL_CHECK(axe__trn_copy_descs(p, s, env, false, &dd, &nd, &w) ==
                                 AXE_OK &&
                             c->off[q + 1] - c->off[q] == nd &&
                             memcmp(dd, &c->d[c->off[q]],
                                    (size_t)nd * sizeof *dd) == 0,
                         "%s: the kept list differs", what);
                free(dd);
            }
    }
    TL_CHECK(strstr(p->ops[0]->explain, "at (i, j) = (0, 0) (a list per "
                                        "value: 15 values, 15 in all)") != NULL,
             "loop explain: %s", p->ops[0]->explain);
    axe_program_free(p);
}

/* copy.dma from a view of an HBM tensor whose offset moves with a loop:
 * at every value of the loop, the descriptors' pairs are exactly the
 * view's (element (i, k) at address i + 8 k + 96 j + 5, by hand from
 * the view's strides and offsets) with x's points from its layout. */
static void test_views(void)
{
    static const char src[] =
        "kernel k(A: global f32[512]) core\n{\n"
        "    sbuf x: f32[8, 12] layout S[(2,4,12):(1@P,12@F,2@P)];\n"
        "    for j in range(3) {\n"
        "        core copy(x, A.view(S[(8, 12):(1, 8)] + j * 96 + 5));\n"
        "    }\n}\n";
    axe_program *p = NULL;
    axe_diag d;
    int64_t env[AX_MAX_VARS] = {0}, want[96 * 4], got[96 * 4], n, nd, j, i, k;
    ax_trn_desc *dd = NULL;
    TL_CHECK(axe_program_compile(src, sizeof src - 1, NULL, NULL, &p, &d) ==
                 AXE_OK,
             "view program: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strcmp(p->ops[0]->schedule, "dma") == 0 &&
                 p->ops[0]->tcopy->ncombo == 3,
             "view copy: %s", p->ops[0]->schedule);
    for (j = 0; j < 3; j++) {
        env[p->ops[0]->tcopy->loop_var[0]] = j;
        for (n = 0, i = 0; i < 8; i++)
            for (k = 0; k < 12; k++, n++) {
                want[4 * n] = 0;
                want[4 * n + 1] = i + 8 * k + 96 * j + 5;
                TL_CHECK(point(p, &p->tensors[1], i * 12 + k, &want[4 * n + 2]),
                         "x's point");
            }
        TL_CHECK(axe__trn_copy_descs(p, p->ops[0], env, false, &dd, &nd, &d) ==
                         AXE_OK &&
                     got_pairs(dd, nd, got, &n, 96) && n == 96,
                 "view at j=%lld: %s", (long long)j, d.message);
        qsort(want, 96, 4 * sizeof *want, cmp4);
        qsort(got, 96, 4 * sizeof *got, cmp4);
        TL_CHECK(memcmp(want, got, sizeof want) == 0,
                 "view at j=%lld: the pairs differ", (long long)j);
        free(dd);
        dd = NULL;
    }
    axe_program_free(p);
}

/* A start that reads a runtime scalar: no descriptors, with the reason. */
static void test_scalar_start(void)
{
    static const char src[] =
        "kernel k(A: global f32[12, 40], n: i32) core\n{\n"
        "    sbuf x: f32[4, 8];\n"
        "    core copy(x, A[n % 8 : +4, 0 : +8]);\n}\n";
    axe_program *p = NULL;
    axe_diag d;
    TL_CHECK(axe_program_compile(src, sizeof src - 1, NULL, NULL, &p, &d) ==
                 AXE_OK,
             "scalar program: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strstr(p->ops[0]->explain,
                    "rejected copy.dma: the start of dim 0 of 'A' reads 'n' "
                    "(descriptors are derived at compile time") != NULL,
             "scalar start: %s", p->ops[0]->explain);
    axe_program_free(p);
}

/* A copy whose descriptors would take more than 2^24 element visits
 * over its loop's values: refused with the reason. */
static void test_visits(void)
{
    static const char src[] =
        "kernel k(A: global f32[128, 262144]) core\n{\n"
        "    sbuf x: f32[128, 1024];\n"
        "    for i in range(256) {\n"
        "        core copy(x, A[0:128, i * 1024 : +1024]);\n    }\n}\n";
    axe_program *p = NULL;
    axe_diag d;
    TL_CHECK(axe_program_compile(src, sizeof src - 1, NULL, NULL, &p, &d) ==
                 AXE_OK,
             "visits program: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strstr(p->ops[0]->explain,
                    "rejected copy.dma: 131072 elements at each of 256 values "
                    "of the loops: deriving the descriptors would visit more "
                    "than 2^24 element pairs") != NULL,
             "visits: %s", p->ops[0]->explain);
    axe_program_free(p);
}

/* The schedules chosen and their --explain rows on a plain copy. */
static void test_explain(void)
{
    static const char src[] =
        "kernel k(A: global f32[8, 64]) core\n{\n"
        "    sbuf x: f32[8, 64] layout S[(8,2,32):(1@F,8@F,1@P)];\n"
        "    sbuf y: f32[8, 64] layout S[(8,2,32):(1@F,8@F,1@P)];\n"
        "    psum z: f32[8, 32];\n"
        "    core copy(x, A);\n    core copy(y, x);\n"
        "    core copy(A, y);\n    core copy(z, A[0:8, 0:32]);\n}\n";
    axe_program *p = NULL;
    axe_diag d;
    const char *e0, *e1, *e3;
    TL_CHECK(axe_program_compile(src, sizeof src - 1, NULL, NULL, &p, &d) ==
                 AXE_OK,
             "explain program: %s", d.message);
    if (p == NULL)
        return;
    e0 = p->ops[0]->explain;
    e1 = p->ops[1]->explain;
    e3 = p->ops[3]->explain;
    TL_CHECK(strcmp(p->ops[0]->schedule, "dma") == 0 &&
                 strstr(e0, "1 DMA descriptors HBM -> SBUF, 2048 bytes") &&
                 strstr(e0, "dma 0: A m 0 [[64,8],[32,2],[1,32]] -> x P "
                            "0:32:1 F 0 [[1,8],[8,2],P]"),
             "copy.dma row: %s", e0);
    TL_CHECK(strcmp(p->ops[1]->schedule, "vector") == 0 &&
                 strstr(e1, "1 vector-engine moves SBUF -> SBUF") &&
                 strstr(e1, "move 0: x P 0:32:1 F 0 [[1,8],[8,2],P] -> y P "
                            "0:32:1 F 0 [[1,8],[8,2],P]"),
             "copy.vector row: %s", e1);
    TL_CHECK(strcmp(p->ops[2]->schedule, "dma") == 0, "SBUF -> HBM: %s",
             p->ops[2]->schedule);
    TL_CHECK(strcmp(p->ops[3]->schedule, "dma") != 0 &&
                 strstr(e3, "rejected copy.dma: 'z' is in PSUM (DMA queues "
                            "reach HBM and SBUF") != NULL &&
                 strstr(e3, "rejected copy.vector: 'A' is in HBM") != NULL,
             "HBM -> PSUM: %s", e3);
    axe_program_free(p);
}

int main(void)
{
    int i;
    tl_seed("test_compiler_trn_copy", 23);
    for (i = 0; i < 200; i++)
        random_case(i);
    TL_CHECK(checked_copies >= 600, "only %lld copies checked",
             (long long)checked_copies);
    test_explain();
    test_loops();
    test_views();
    test_scalar_start();
    test_visits();
    return tl_finish();
}
