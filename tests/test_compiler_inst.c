/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-thread vector loads of a tensor-core gemm's shared operands (the
 * instruction choice, src/compiler/compiler_synth_inst.c) against brute
 * force, from docs/compiler.md ("Instruction choice"), not from the code:
 *   legal    ld.shared.b32 / .v2.b32 / .v4.b32 (N = 1, 2, 4 registers of
 *            32 bits per load) is legal iff some grouping of the
 *            fragment's registers into ordered groups of N (tried here:
 *            every permutation) puts, for every lane, every atom tile of
 *            the operand (every warp's) and every atom K step, register i
 *            of each group at 4i bytes from the group's first, each
 *            register's elements at consecutive addresses, and the first
 *            on a 4N-byte boundary; the addresses come from the shared
 *            tensor's layout (axe_layout_apply_set, swizzle included),
 *            not from the plan the compiler evaluates;
 *   counts   one load per group per atom tile of warp 0 and K step; its
 *            wavefronts by the bank model written out here (32 banks of 4
 *            bytes, phases of 32 lanes up to 4 bytes, 16 lanes for 8, 8
 *            for 16; a phase costs its largest number of distinct words
 *            in one bank); per-thread element loads likewise, one per
 *            fragment value; cost = wavefronts + instructions;
 *   choice   the chosen leaf is the cheapest legal one, ties in the
 *            order of ax_inst_kind;
 *   reasons  a vector leaf that is not legal names the first lane (by
 *            atom tile, K step, lane) where lane 0's grouping of its
 *            first tile and K step fails (lane 0 when it has none);
 *            before any address, .b32 of 32-bit elements says they are
 *            32-bit already and a vector that does not divide the
 *            fragment's registers says so (no other reason).
 * Warp 0's atom tiles are found from C's register layout (the C elements
 * whose warpid is 0, axe_layout_apply_set), not from the compiler's
 * owner table. Element types: f16, bf16 and f32 under tf32 (m16n8k8:
 * one element per register; .b32 is not a leaf for 32-bit elements).
 * Cases: rows padded to 36 halves (b32 only), the interleaved layouts of
 * tests/kernels/gemm_mma_vec.axe (A .v4, B .v2), an odd base and a
 * swizzle that splits the 32-bit words (no vector legal), a swizzle of
 * 4-byte units (b32 legal again), plain 32-half rows (ldmatrix, b32 the
 * runner-up), rows 64-127 from an odd offset (lane 0's first tile
 * aligned, other warps' not). Both legal and illegal answers must occur.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth_inst.h"
#include "testlib.h"

#define MAXPTS 8

static int nlegal, nillegal;

static axe_program *compile(const char *src, axe_diag *d)
{
    axe_program *p = NULL;
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, d) != AXE_OK)
        return NULL;
    return p;
}

/* The memory offset (elements) of (row, k) of tensor "t": its layout's m. */
static int64_t mem_of(const ax_tensor *t, int64_t row, int64_t k)
{
    int64_t c[2] = {row, k};
    axe_point pt[MAXPTS];
    int n = 0;
    if (axe_layout_apply_set(&t->layout, c, t->shape, t->ndim, pt, MAXPTS, &n,
                             NULL) != AXE_OK ||
        n != 1)
        return -1;
    for (int a = 0; a < pt[0].n; a++)
        if (strcmp(pt[0].axis[a], "m") == 0)
            return pt[0].v[a];
    return 0;
}

typedef struct brute {
    const axe_program *p;
    const ax_stmt *s;
    const ax_tensor *t;
    int o;
    int64_t eb, unit, nregs;
    int64_t lane_of[512], row_of[512], col_of[512]; /* by lane*16 + value */
    bool warp0[2][64]; /* [o][t]: warp 0 holds C elements in atom tile t */
} brute;

/* The warpid of C element (r, c) by the register layout of "c" (0 when
 * the layout has no warpid axis). */
static int64_t warp_of(const ax_tensor *c, int64_t r, int64_t col)
{
    int64_t x[2] = {r, col};
    axe_point pt[MAXPTS];
    int n = 0;
    if (axe_layout_apply_set(&c->layout, x, c->shape, c->ndim, pt, MAXPTS, &n,
                             NULL) != AXE_OK ||
        n < 1)
        return -1;
    for (int a = 0; a < pt[0].n; a++)
        if (strcmp(pt[0].axis[a], "warpid") == 0)
            return pt[0].v[a];
    return 0;
}

/* Which atom tile rows (A) and columns (B) hold a C element of warp 0. */
static void warp0_tiles(brute *b)
{
    const ax_mma *m = b->s->mma;
    const ax_tensor *c = &b->p->tensors[b->s->args[0].tensor];
    memset(b->warp0, 0, sizeof b->warp0);
    for (int64_t r = 0; r < c->shape[0]; r++)
        for (int64_t col = 0; col < c->shape[1]; col++)
            if (warp_of(c, r, col) == 0 && r / m->mnk[0] < 64 &&
                col / m->mnk[1] < 64) {
                b->warp0[0][r / m->mnk[0]] = true;
                b->warp0[1][col / m->mnk[1]] = true;
            }
}

/* The byte address of element e of register j of lane l of the atom tile
 * (t, ks) of the operand. */
static int64_t byte_of(const brute *b, int64_t t, int64_t ks, int l, int64_t j,
                       int64_t e)
{
    const ax_mma *m = b->s->mma;
    int64_t v = b->unit * j + e, x = l * 16 + v;
    return mem_of(b->t, t * m->mnk[b->o] + b->row_of[x],
                  ks * m->mnk[2] + b->col_of[x]) *
           b->eb;
}

/* Whether grouping "perm" (groups of n) holds for lane "l" at atom tile
 * "t" and K step "ks". */
static bool holds_at(const brute *b, const int *perm, int64_t n, int64_t t,
                     int64_t ks, int l)
{
    for (int64_t g = 0; g < b->nregs / n; g++) {
        int64_t a0 = byte_of(b, t, ks, l, perm[g * n], 0);
        if (a0 < 0 || a0 % (4 * n) != 0)
            return false;
        for (int64_t i = 0; i < n; i++)
            for (int64_t e = 0; e < b->unit; e++)
                if (byte_of(b, t, ks, l, perm[g * n + i], e) !=
                    a0 + 4 * i + e * b->eb)
                    return false;
    }
    return true;
}

/* Whether grouping "perm" holds everywhere; else the first (tile, K
 * step, lane) where it fails into "at" (when not NULL). */
static bool grouping_holds(const brute *b, const int *perm, int64_t n,
                           int64_t *at)
{
    const ax_mma *m = b->s->mma;
    for (int64_t t = 0; t < m->tiles[b->o]; t++)
        for (int64_t ks = 0; ks < m->tiles[2]; ks++)
            for (int l = 0; l < 32; l++)
                if (!holds_at(b, perm, n, t, ks, l)) {
                    if (at != NULL) {
                        at[0] = t;
                        at[1] = ks;
                        at[2] = l;
                    }
                    return false;
                }
    return true;
}

/* The q-th permutation of the registers (at most 4) into "perm". */
static void nth_perm(int64_t r, int64_t q, int *perm)
{
    int pool[4] = {0, 1, 2, 3};
    for (int64_t i = 0; i < r; i++) {
        int64_t pick = q % (r - i);
        q /= r - i;
        perm[i] = pool[pick];
        for (int64_t k = pick; k + 1 < r - i; k++)
            pool[k] = pool[k + 1];
    }
}

static int64_t perms(int64_t r)
{
    int64_t count = 1;
    for (int64_t i = 2; i <= r; i++)
        count *= i;
    return count;
}

/* Every permutation of the registers (at most 4) tried; the first that
 * holds into "perm"; false: none. */
static bool find_grouping(const brute *b, int64_t n, int *perm)
{
    for (int64_t q = 0; q < perms(b->nregs); q++) {
        nth_perm(b->nregs, q, perm);
        if (grouping_holds(b, perm, n, NULL))
            return true;
    }
    return false;
}

/* The lane (and, "*at_tile": when lane 0 has a grouping, the tile and K
 * step) that an illegal vector leaf of "n" registers must name. */
static int first_failing(const brute *b, int64_t n, int64_t *at, bool *at_tile)
{
    int perm[4];
    for (int64_t q = 0; q < perms(b->nregs); q++) {
        nth_perm(b->nregs, q, perm);
        if (holds_at(b, perm, n, 0, 0, 0)) {
            *at_tile = true;
            return grouping_holds(b, perm, n, at) ? -1 : (int)at[2];
        }
    }
    *at_tile = false;
    return 0;
}

/* Leaf "l" of "n" registers, not legal for the lanes: its reason names
 * the lane (tile, K step) the brute force finds first. */
static void check_reason(const brute *b, int64_t n, const ax_inst_leaf *l,
                         const char *name)
{
    int64_t at[3] = {-1, -1, -1};
    bool at_tile;
    int lane = first_failing(b, n, at, &at_tile), got = -1;
    long long gt = -1, gk = -1;
    const char *tile = strstr(l->why, "(atom tile ");
    const char *pre =
        n == 1 && b->eb == 4 ? "32-bit elements: the per-thread loads are "
                               "32-bit already"
        : b->nregs % n != 0  ? "the fragment's registers do not come in groups "
                               "of the vector"
                             : NULL;
    if (pre != NULL || strncmp(l->why, "lane ", 5) != 0) {
        /* a reason before any address: the brute force's own */
        TL_CHECK(pre != NULL && strcmp(l->why, pre) == 0,
                 "%s %c: %lld registers per load: '%s', brute force '%s'", name,
                 "AB"[b->o], (long long)n, l -> why,
                 pre != NULL ? pre : "a lane's");
        return;
    }
    TL_CHECK(sscanf(l->why, "lane %d's", &got) == 1 && got == lane,
             "%s %c: %lld registers per load: '%s' names lane %d, brute "
             "force %d",
             name, "AB"[b->o], (long long)n, l -> why, got, lane);
    if (tile != NULL && at_tile)
        TL_CHECK(sscanf(tile, "(atom tile %lld, K step %lld)", &gt, &gk) == 2 &&
                     gt == at[0] && gk == at[1],
                 "%s %c: '%s': brute force atom tile %lld, K step %lld", name,
                 "AB"[b->o], l -> why, (long long)at[0], (long long)at[1]);
    else
        TL_CHECK(tile == NULL && !at_tile && lane == 0,
                 "%s %c: '%s': brute force %s", name, "AB"[b->o], l -> why,
                 at_tile ? "names a tile" : "lane 0 has no grouping");
}

/* The bank model of one warp access: lane l reads "w" bytes from a[l]. */
static int64_t wavefronts(const int64_t *a, int64_t w, int64_t *ways)
{
    int64_t per = w <= 4 ? 32 : 128 / w, total = 0;
    for (int64_t ph = 0; ph < 32; ph += per) {
        int64_t words[32][64], cnt[32] = {0}, most = 0;
        for (int64_t l = ph; l < ph + per; l++)
            for (int64_t q = 0; q < (w + 3) / 4; q++) {
                int64_t wd = a[l] / 4 + q, bank = wd % 32, k = 0;
                while (k < cnt[bank] && words[bank][k] != wd)
                    k++;
                if (k == cnt[bank])
                    words[bank][cnt[bank]++] = wd;
            }
        for (int bk = 0; bk < 32; bk++)
            most = cnt[bk] > most ? cnt[bk] : most;
        total += most;
        *ways = most > *ways ? most : *ways;
    }
    return total;
}

/* The counts of loads of "n" registers grouped by "perm" (n 0: element
 * loads, one per value) over warp 0's tiles and the K steps. */
static void counts(const brute *b, int64_t n, const int *perm, int64_t *ins,
                   int64_t *wf)
{
    const ax_mma *m = b->s->mma;
    int64_t a[32], ways = 0;
    *ins = *wf = 0;
    for (int64_t t = 0; t < m->tiles[b->o]; t++)
        for (int64_t ks = 0; b->warp0[b->o][t] && ks < m->tiles[2]; ks++)
            for (int64_t g = 0; g < (n > 0 ? b->nregs / n : b->nregs * b->unit);
                 g++) {
                for (int l = 0; l < 32; l++)
                    a[l] = n > 0
                               ? byte_of(b, t, ks, l, perm[g * n], 0)
                               : byte_of(b, t, ks, l, g / b->unit, g % b->unit);
                *wf += wavefronts(a, n > 0 ? 4 * n : b->eb, &ways);
                (*ins)++;
            }
}

static void check_operand(const axe_program *p, const ax_stmt *s, int o,
                          const char *name)
{
    static const ax_inst_kind vk[3] = {AX_INST_V4, AX_INST_V2, AX_INST_B32};
    const ax_frag *f = &s->mma->frag[o];
    ax_inst_choice ch;
    axe_diag d;
    brute b;
    int perm[4];
    int64_t ins, wf;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.s = s;
    b.o = o;
    b.t = &p->tensors[s->args[o + 1].tensor];
    b.eb = axe_dtype_size(b.t->dtype);
    b.unit = 4 / b.eb;
    b.nregs = f->nvals / b.unit;
    warp0_tiles(&b);
    TL_CHECK(axe__inst_choose(p, s, o, &ch, &d) == AXE_OK, "%s %c: %s", name,
             "AB"[o], d.message);
    TL_CHECK(b.nregs <= 4 && f->nvals <= 16, "%s: fragment of %lld values",
             name, (long long)f->nvals);
    if (b.nregs > 4 || f->nvals > 16)
        return;
    for (int64_t x = 0; x < f->shape[0] * f->shape[1]; x++) {
        int64_t k = f->lane[x] * 16 + f->val[x];
        b.row_of[k] = x / f->shape[1];
        b.col_of[k] = x % f->shape[1];
    }
    for (int i = 0; i < 3; i++) {
        int64_t n = axe__inst_vec_regs(vk[i]);
        const ax_inst_leaf *l = &ch.leaf[vk[i]];
        bool legal = b.nregs % n == 0 && !(n == 1 && b.eb == 4) &&
                     find_grouping(&b, n, perm);
        TL_CHECK(l->legal == legal,
                 "%s %c: %lld registers per load: %s, "
                 "brute force %s (%s)",
                 name, "AB"[o], (long long)n,
                 l -> legal ? "legal" : "not legal", legal ? "legal" : "not",
                 l->why);
        if (!legal) {
            check_reason(&b, n, l, name);
            nillegal++;
            continue;
        }
        nlegal++;
        counts(&b, n, perm, &ins, &wf);
        TL_CHECK(l->instructions == ins && l->wavefronts == wf &&
                     l->cost == (double)(ins + wf),
                 "%s %c: %lld registers per load: %lld instructions, %lld "
                 "wavefronts, cost %g; brute force %lld, %lld",
                 name, "AB"[o], (long long)n, (long long)l -> instructions,
                 (long long)l -> wavefronts, l -> cost, (long long)ins,
                 (long long)wf);
    }
    counts(&b, 0, perm, &ins, &wf);
    TL_CHECK(ch.leaf[AX_INST_THREAD].instructions == ins &&
                 ch.leaf[AX_INST_THREAD].wavefronts == wf,
             "%s %c: element loads %lld, %lld; brute force %lld, %lld", name,
             "AB"[o], (long long)ch.leaf[AX_INST_THREAD].instructions,
             (long long)ch.leaf[AX_INST_THREAD].wavefronts, (long long)ins,
             (long long)wf);
    for (int k = 0; k < AX_INST_KINDS; k++)
        if (ch.leaf[k].legal) {
            bool before = k < ch.chosen;
            TL_CHECK(
                ch.chosen >= 0 &&
                    (ch.leaf[k].cost > ch.leaf[ch.chosen].cost ||
                     (ch.leaf[k].cost == ch.leaf[ch.chosen].cost && !before)),
                "%s %c: leaf %d (cost %g) beats the chosen %d", name, "AB"[o],
                k, ch.leaf[k].cost, ch.chosen);
        }
}

typedef struct inst_case {
    const char *name, *a, *b;
    const char *chosen_a; /* the expected winner, by name */
    const char *dt;       /* A's and B's element type (f32: tf32) */
} inst_case;

static void test_cases(void)
{
    static const inst_case cases[] = {
        {"pad36", "S[(128, 32):(36, 1)]", "S[(128, 32):(40, 1)]",
         "ld.shared.b32", "f16"},
        {"vec", "S[(8, 2, 8, 2, 2, 4, 2):(512, 2, 64, 32, 4, 8, 1)]",
         "S[(128, 2, 2, 4, 2):(40, 16, 2, 4, 1)]", "ld.shared.v4.b32", "f16"},
        {"odd base", "S[(128, 32):(36, 1)] + 1", "S[(128, 32):(40, 1)]",
         "per-thread loads", "f16"},
        {"swizzle of elements", "Swizzle<0, 3, 3>(S[(128, 32):(32, 1)])",
         "S[(128, 32):(40, 1)]", "per-thread loads", "f16"},
        {"swizzle of words", "Swizzle<1, 2, 3>(S[(128, 32):(32, 1)])",
         "S[(128, 32):(40, 1)]", "ld.shared.b32", "f16"},
        {"rows of 32", "S[(128, 32):(32, 1)]", "S[(128, 32):(32, 1)]",
         "ldmatrix.x4", "f16"},
        /* rows 64-127 from an odd offset: lane 0's first tile is aligned,
         * other warps' tiles are not */
        {"upper half odd", "S[(2, 64, 32):(2305, 36, 1)]",
         "S[(128, 32):(40, 1)]", "per-thread loads", "f16"},
        /* odd rows at an odd offset: lane 0 (rows 0 and 8) aligned, lane 4
         * (row 1) the first that is not */
        {"odd rows", "S[(64, 2, 32):(72, 37, 1)]", "S[(128, 32):(40, 1)]",
         "per-thread loads", "f16"},
        /* bf16: the same 16-bit rules */
        {"bf16 pad36", "S[(128, 32):(36, 1)]", "S[(128, 32):(40, 1)]",
         "ld.shared.b32", "bf16"},
        {"bf16 vec", "S[(8, 2, 8, 2, 2, 4, 2):(512, 2, 64, 32, 4, 8, 1)]",
         "S[(128, 2, 2, 4, 2):(40, 16, 2, 4, 1)]", "ld.shared.v4.b32", "bf16"},
        {"bf16 upper half odd", "S[(2, 64, 32):(2305, 36, 1)]",
         "S[(128, 32):(40, 1)]", "per-thread loads", "bf16"},
        /* tf32 (m16n8k8, one f32 per register): rows of 32 give no vector
         * (registers at K t and t + 4 are 16 bytes apart); K stored as
         * (k / 8, k % 4, k / 4 % 2) puts them in one 8-byte .v2; an odd
         * base breaks it */
        {"tf32 rows of 32", "S[(128, 32):(32, 1)]", "S[(128, 32):(32, 1)]",
         "per-thread loads", "f32"},
        {"tf32 k interleaved", "S[(128, 4, 2, 4):(32, 8, 1, 2)]",
         "S[(128, 4, 2, 4):(32, 8, 1, 2)]", "ld.shared.v2.b32", "f32"},
        {"tf32 odd base", "S[(128, 4, 2, 4):(32, 8, 1, 2)] + 1",
         "S[(128, 4, 2, 4):(32, 8, 1, 2)]", "per-thread loads", "f32"},
        {"tf32 odd rows", "S[(64, 2, 4, 2, 4):(80, 41, 8, 1, 2)]",
         "S[(128, 4, 2, 4):(32, 8, 1, 2)]", "per-thread loads", "f32"},
        {"tf32 upper half odd", "S[(2, 64, 4, 2, 4):(4097, 32, 8, 1, 2)]",
         "S[(128, 32):(32, 1)]", "per-thread loads", "f32"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char src[1400], name[48];
        const char *dt = cases[i].dt;
        bool tf32 = strcmp(dt, "f32") == 0;
        axe_diag d;
        axe_program *p;
        const ax_stmt *s = NULL;
        (void)snprintf(
            src, sizeof src,
            "kernel g(A: %s[128, 64], B: %s[128, 64], C: f32[128, 128]) "
            "grid(1) threads(256)\n{\n"
            "    shared As: %s[128, 32] layout %s;\n"
            "    shared Bs: %s[128, 32] layout %s;\n"
            "    register acc: f32[128, 128] layout S[(2, 4, 2, 8, 4, 4, 4, "
            "2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)];\n"
            "    cta fill(acc, 0);\n"
            "    for k in range(2) {\n"
            "        cta copy(As, A[0 : +128, k * 32 : +32]);\n"
            "        cta copy(Bs, B[0 : +128, k * 32 : +32]);\n"
            "        sync;\n        cta gemm(acc, As, Bs%s);\n        sync;\n"
            "    }\n    cta copy(C, acc);\n}\n",
            dt, dt, dt, cases[i].a, dt, cases[i].b, tf32 ? ", tf32" : "");
        p = compile(src, &d);
        TL_CHECK(p != NULL, "%s: %s", cases[i].name, d.message);
        if (p == NULL)
            continue;
        for (int k = 0; k < p->nops; k++)
            if (p->ops[k]->op == AX_OP_GEMM)
                s = p->ops[k];
        TL_CHECK(s != NULL && s->mma != NULL && s->mma->from_memory,
                 "%s: no gemm.mma_smem", cases[i].name);
        if (s != NULL && s->mma != NULL && s->mma->from_memory) {
            ax_inst_choice ch;
            check_operand(p, s, 0, cases[i].name);
            check_operand(p, s, 1, cases[i].name);
            if (axe__inst_choose(p, s, 0, &ch, &d) == AXE_OK && ch.chosen >= 0)
                axe__inst_name((ax_inst_kind)ch.chosen, &ch.leaf[ch.chosen],
                               name, sizeof name);
            else
                (void)snprintf(name, sizeof name, "none");
            TL_CHECK(strcmp(name, cases[i].chosen_a) == 0,
                     "%s: A takes %s, not %s", cases[i].name, name,
                     cases[i].chosen_a);
        }
        axe_program_free(p);
    }
    TL_CHECK(nlegal >= 10 && nillegal >= 10,
             "the cases give %d legal and %d illegal vector leaves", nlegal,
             nillegal);
}

int main(void)
{
    test_cases();
    return tl_finish();
}
