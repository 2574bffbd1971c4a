/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Layout synthesis (issue 15, src/compiler/compiler_synth*.c) against
 * brute force: every synthesized layout is evaluated at every coordinate
 * (axe_layout_apply_set) and compared with the law of its constraint,
 * written here from docs/compiler.md ("Layout synthesis"), not from the
 * code:
 *   copy anchor  element x of the tile, numbered fastest memory dim first,
 *                lives on thread (x / L) % T' at register
 *                (x / (L T')) L + x % L, replicated over T / T' groups of
 *                T' threads; each w-chunk is w consecutive, w-aligned
 *                addresses; w * size is 1, 2, 4, 8 or 16 bytes, w divides
 *                the run L, a thread holds at most 1020 bytes; the
 *                copies' accesses of the anchor search (the widest w at
 *                which every thread's aligned register groups are
 *                consecutive aligned addresses, registers / w per thread
 *                of the scope) equal the anchor's cost;
 *   elementwise  the operands' layouts are equivalent (same point sets);
 *   cast         likewise across dtypes;
 *   reduce       the destination's threads at c' are the union of the
 *                source's threads over the reduced dim, and each thread
 *                stores distinct elements at distinct registers;
 *   gemm (mma)   (every fragment the PTX ISA's, written out in ptx_lane)
 *                C: warp (i / bm) wn + j / bn of a wm x wn grid, lane and
 *                value of the atom's C fragment at (i % 16, j % 8), register
 *                ((i % bm) / 16 NI + (j % bn) / 8) v + value; Theorem 1: A
 *                (B) the A (B) fragment tiled MI x KI (NI x KI);
 *   atoms        the anchor searches every f16 atom whose K divides K
 *                (m16n8k16, m16n8k8): its cost, the least (MI + NI) KI
 *                over atoms and warp grids, found here by brute force;
 *                with K = 24 a register A is m16n8k8's A fragment (PTX
 *                ISA: a0 a1 at row lane / 4, columns 2 (lane % 4) + 0, 1;
 *                a2 a3 eight rows down) at register (k / 8) 4 + value;
 *   gemm (fma)   thread (i / bm) tn + j / bn, register (i % bm) bn + j % bn,
 *                and bm + bn minimal over every thread grid;
 * register A   of a CTA gemm (C over wm x wn warps): the A fragment at
 *                (i % 16, k % Ka) on each of the wn warps (i / bm) wn + j
 *                (j < wn: replicated over the warps of C's columns, and
 *                on no other warp), register ((i % bm) / 16 KI + k / Ka)
 *                v + value; a register B (n, k) mirrors it: the B
 *                fragment at (n % 8, k % Ka) on the wm warps j wn + n / bn,
 *                register ((n % bn) / 8 KI + k / Ka) v + value; the grid's
 *                cost (MI + NI) KI the least over every grid, found here
 *                by brute force; of an FMA grid: every
 *                thread of C's row i holds A (i, k) at register
 *                (i % bm) K + k; two gemms with a reduce between (the anchor
 *                search): no rearrange, the first's C equal to the
 *                second's A;
 * an inserted rearrange makes the operands of the operator it serves
 * equivalent; plus a property test: random consistent programs (a copy anchor,
 * elementwise operators, casts, reductions, broadcasts) compile, and
 * every solved layout satisfies every constraint pointwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_smem.h"
#include "compiler_synth.h"
#include "testlib.h"

#define MAXPTS 512

static axe_program *compile(const char *src, axe_diag *d)
{
    axe_program *p = NULL;
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, d) != AXE_OK)
        return NULL;
    return p;
}

static const ax_tensor *tensor(const axe_program *p, const char *name)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (strcmp(p->tensors[i].name, name) == 0)
            return &p->tensors[i];
    return NULL;
}

static int64_t value(const axe_point *pt, const char *axis)
{
    int64_t v = 0;
    int k;
    for (k = 0; k < pt->n; k++)
        if (strcmp(pt->axis[k], axis) == 0)
            v += pt->v[k];
    return v;
}

/* The thread rank of a point in its scope, and its register. */
static int64_t rank_of(const axe_point *pt)
{
    return value(pt, "tx") + value(pt, "laneid") + value(pt, "tid_in_wg") +
           32 * (value(pt, "warpid") + value(pt, "wid_in_wg")) +
           128 * value(pt, "wgid");
}

/* The points of "t" at coordinate "c". */
static int points(const ax_tensor *t, const int64_t *c, axe_point *out)
{
    int n = 0;
    if (axe_layout_apply_set(&t->layout, c, t->shape, t->ndim, out, MAXPTS, &n,
                             NULL) != AXE_OK)
        return -1;
    return n;
}

/* ---- copy anchor -------------------------------------------------------- */

typedef struct copy_case {
    const char *scope, *dtype;
    int64_t threads, r, c, rows, cols, rs, cs;
    bool transposed; /* the tile is X viewed column-major */
} copy_case;

static int es_of(const char *dt)
{
    return strcmp(dt, "f16") == 0   ? 2
           : strcmp(dt, "f32") == 0 ? 4
           : strcmp(dt, "f64") == 0 ? 8
                                    : 1;
}

static void copy_source(const copy_case *k, char *buf, size_t cap)
{
    char tile[160];
    if (k->transposed) /* a[i][j] at X[(cs + j) * rows ... ]: dim 0 fastest */
        (void)snprintf(tile, sizeof tile,
                       "X.view(S[(%lld, %lld):(1, %lld)] + %lld)",
                       (long long)k->r, (long long)k->c, (long long)k->cols,
                       (long long)(k->cs * k->cols + k->rs));
    else
        (void)snprintf(tile, sizeof tile, "X[%lld : +%lld, %lld : +%lld]",
                       (long long)k->rs, (long long)k->r, (long long)k->cs,
                       (long long)k->c);
    (void)snprintf(buf, cap,
                   "kernel k(X: %s[%lld, %lld], Y: %s[%lld, %lld]) grid(1) "
                   "threads(%lld)\n{\n    register a: %s[%lld, %lld] layout "
                   "auto;\n    %s copy(a, %s);\n    %s copy(Y, a);\n}\n",
                   k->dtype, (long long)k->rows, (long long)k->cols, k->dtype,
                   (long long)k->r, (long long)k->c, (long long)k->threads,
                   k->dtype, (long long)k->r, (long long)k->c, k->scope, tile,
                   k->scope);
}

/* The memory address of a[i][j]. */
static int64_t copy_addr(const copy_case *k, int64_t i, int64_t j)
{
    if (k->transposed)
        return k->cs * k->cols + k->rs + i + j * k->cols;
    return (k->rs + i) * k->cols + k->cs + j;
}

static void check_copy_law(const copy_case *k, const axe_program *p,
                           const char *src)
{
    const ax_tensor *t = tensor(p, "a");
    const ax_synth_choice *ch = &p->synth->choices[0];
    long long wb = 0, w = 0, tp = 0, run = 0;
    int64_t x, size = k->r * k->c, scope = k->threads;
    axe_point pts[MAXPTS];
    bool ok = true;
    if (strcmp(k->scope, "warp") == 0)
        scope = 32;
    else if (strcmp(k->scope, "warpgroup") == 0)
        scope = 128;
    TL_CHECK(sscanf(ch->chosen, "coalesced, %lld-byte accesses (%lld element",
                    &wb, &w) == 2 &&
                 strstr(ch->chosen, "runs of ") != NULL &&
                 sscanf(strstr(ch->chosen, "runs of "), "runs of %lld on %lld",
                        &run, &tp) == 2,
             "choice text '%s'", ch->chosen);
    TL_CHECK(w * es_of(k->dtype) == wb && run % w == 0 &&
                 (size / tp) * es_of(k->dtype) <= 1020 &&
                 (wb == 1 || wb == 2 || wb == 4 || wb == 8 || wb == 16),
             "%s: %lld bytes for w %lld, runs of %lld", src, wb, w, run);
    TL_CHECK(ch->runner_up[0] == '\0' || ch->cost <= ch->runner_cost,
             "%s: chosen cost %g above the runner-up's %g", src, ch->cost,
             ch->runner_cost);
    for (x = 0; x < size && ok && w > 0 && tp > 0 && run > 0; x++) {
        /* x numbers the tile fastest memory dim first */
        int64_t i = k->transposed ? x % k->r : x / k->c;
        int64_t j = k->transposed ? x / k->r : x % k->c;
        int64_t crd[2] = {i, j}, want_t = (x / run) % tp;
        int64_t want_m = (x / (run * tp)) * run + x % run;
        int n = points(t, crd, pts), q;
        ok = n == (int)(scope / tp);
        for (q = 0; q < n && ok; q++)
            ok = rank_of(&pts[q]) % tp == want_t &&
                 rank_of(&pts[q]) / tp == q && value(&pts[q], "m") == want_m;
        if (x % w == 0)
            ok = ok && copy_addr(k, i, j) % w == 0;
        if (x % w != 0)
            ok = ok &&
                 copy_addr(k, i, j) ==
                     copy_addr(
                         k, k->transposed ? (x - 1) % k->r : (x - 1) / k->c,
                         k->transposed ? (x - 1) / k->r : (x - 1) % k->c) +
                         1;
        TL_CHECK(ok,
                 "%s: element %lld (%lld, %lld) breaks the copy law "
                 "(w %lld, T' %lld)",
                 src, (long long)x, (long long)i, (long long)j, w, tp);
    }
}

/* axe__synth_copy_sectors on the load of a copy case equals a brute-force
 * count: "addr" holds each thread's register elements' addresses (rank r,
 * register m at r * 1024 + m; "span" registers on each of "scope"
 * threads), instruction i of warp g moves registers [i w, i w + w) of
 * its 32 lanes, and its sectors are the distinct 32-byte blocks of a
 * byte table over their bytes. */
static void check_copy_sectors(const axe_program *p, const int64_t *addr,
                               int64_t scope, int64_t span, int64_t w,
                               int64_t es, const char *src)
{
    int64_t want = 0, got = -1, top = 0;
    const ax_tensor *t = tensor(p, "a");
    unsigned char *hit;
    for (int64_t x = 0; x < scope * span; x++)
        top = addr[x / span * 1024 + x % span] > top
                  ? addr[x / span * 1024 + x % span]
                  : top;
    if ((hit = malloc((size_t)((top + 1) * es / 32 + 1))) == NULL)
        return;
    for (int64_t g = 0; g < (scope + 31) / 32; g++)
        for (int64_t i = 0; i < span / w; i++) {
            memset(hit, 0, (size_t)((top + 1) * es / 32 + 1));
            for (int64_t l = 32 * g; l < 32 * g + 32 && l < scope; l++)
                for (int64_t m = i * w; m < i * w + w; m++)
                    for (int64_t b = 0; b < es; b++) {
                        int64_t sec = (addr[l * 1024 + m] * es + b) / 32;
                        want += hit[sec] == 0;
                        hit[sec] = 1;
                    }
        }
    free(hit);
    TL_CHECK(axe__synth_copy_sectors(p, p->ops[0], 0, &t->layout, w, &got) &&
                 got == want,
             "%s: copy sectors %lld, brute force %lld (w %lld)", src,
             (long long)got, (long long)want, (long long)w);
}

/* axe__synth_copy_accesses (the copies' count of the anchor search) on
 * the load of "k" equals a brute-force count on its layout: the widest
 * access (16, 8, 4, 2, 1 bytes) at which every aligned group of every
 * thread's registers holds consecutive elements of X from an aligned
 * address, registers per thread / w accesses per thread of the scope;
 * for the anchor's own layout that is its cost. */
static void check_copy_accesses(const copy_case *k, const axe_program *p,
                                int64_t scope, const char *src)
{
    static const int64_t bytes[] = {16, 8, 4, 2, 1};
    const ax_tensor *t = tensor(p, "a");
    int64_t size = k->r * k->c, span = 0, w = 0, got = -1, x;
    int64_t es = es_of(k->dtype), *addr;
    axe_point pts[MAXPTS];
    if ((addr = malloc((size_t)(scope * 1024) * sizeof *addr)) == NULL)
        return;
    for (x = 0; x < scope * 1024; x++)
        addr[x] = -1;
    for (x = 0; x < size; x++) {
        int64_t i = x / k->c, j = x % k->c, crd[2] = {i, j};
        int n = points(t, crd, pts);
        for (int q = 0; q < n; q++) {
            int64_t m = value(&pts[q], "m"), r = rank_of(&pts[q]);
            if (m < 1024 && r < scope)
                addr[r * 1024 + m] = copy_addr(k, i, j);
            span = m + 1 > span ? m + 1 : span;
        }
    }
    for (int b = 0; b < 5 && w == 0 && span <= 1024; b++) {
        int64_t v = bytes[b] / es;
        bool ok = bytes[b] % es == 0 && span % v == 0;
        for (x = 0; x < scope * span && ok; x++) {
            int64_t r = x / span, m = x % span, a0 = addr[r * 1024 + m - m % v];
            ok = a0 >= 0 && a0 % v == 0 && addr[r * 1024 + m] == a0 + m % v;
        }
        if (ok)
            w = v;
    }
    if (w > 0)
        check_copy_sectors(p, addr, scope, span, w, es, src);
    free(addr);
    TL_CHECK(w > 0 && axe__synth_copy_accesses(p, p->ops[0], 0, &got) &&
                 got == span / w * scope &&
                 got == (int64_t)p->synth->choices[0].cost,
             "%s: copy accesses %lld, brute force %lld (w %lld, %lld per "
             "thread), the anchor's cost %g",
             src, (long long)got, (long long)(w > 0 ? span / w * scope : -1),
             (long long)w, (long long)span, p->synth->choices[0].cost);
}

/* axe__sector_count against a byte table on random warp accesses: lanes
 * active at random, each moving 1, 2, 4, 8 or 16 bytes from an address
 * of a random affine lane pattern (base + lane stride, some lanes moved
 * anywhere), the distinct 32-byte blocks of the bytes touched. Every
 * other access starts off its width's alignment (the base, and the moved
 * lanes), so that lanes straddle two sectors. */
static void test_sector_count(void)
{
    static const int widths[] = {1, 2, 4, 8, 16};
    static const int64_t strides[] = {0, 1, 2, 4, 8, 16, 32, 36, 64, 128, 136};
    for (int n = 0; n < 2000; n++) {
        ax_warp_access a;
        unsigned char hit[4096 / 32 * 40] = {0};
        int64_t want = 0, got;
        a.width = widths[tl_range(0, 4)];
        int64_t off = n % 2 == 1 ? tl_range(0, a.width - 1) : 0;
        int64_t base = tl_range(0, 64) * a.width + off;
        int64_t stride = strides[tl_range(0, 10)] * a.width;
        for (int t = 0; t < AX_WARP; t++) {
            a.active[t] = tl_range(0, 7) != 0;
            a.byte[t] = tl_range(0, 5) == 0
                            ? tl_range(0, 2000) * a.width +
                                  (off > 0 ? tl_range(0, a.width - 1) : 0)
                            : base + t * stride;
            for (int64_t b = 0; a.active[t] && b < a.width; b++) {
                want += hit[(a.byte[t] + b) / 32] == 0;
                hit[(a.byte[t] + b) / 32] = 1;
            }
        }
        got = axe__sector_count(&a);
        TL_CHECK(got == want,
                 "access %d: width %d, base %lld, lane stride %lld: %lld "
                 "sectors, brute force %lld",
                 n, a.width, (long long)base, (long long)stride, (long long)got,
                 (long long)want);
    }
}

/* axe__synth_copy_sectors holds a key per element and replica: a copy
 * of 8192 elements on a layout that gives each of 1024 threads all of
 * them (8388608 keys, 192 MiB) passes its bound of 2^22 keys and is
 * refused; half the replicas (the bound) are counted: each warp-wide
 * access of 32 lanes reads one 4-byte element, one sector. */
static void test_copy_sectors_cap(void)
{
    static const char src[] =
        "kernel k(X: f32[64, 128]) grid(1) threads(1024)\n{\n"
        "    register a: f32[64, 128] layout S[(64, 16, 8):(16@tx, 1@tx, "
        "1)];\n    cta copy(a, X);\n}\n";
    static const char *const lay[2] = {"S[(64, 128):(128, 1)] + R[512:1@tx]",
                                       "S[(64, 128):(128, 1)] + R[1024:1@tx]"};
    axe_diag d;
    axe_program *p = compile(src, &d);
    TL_CHECK(p != NULL, "sectors cap: %s", d.message);
    for (int k = 0; p != NULL && k < 2; k++) {
        axe_layout l;
        int64_t got = -1;
        bool ok =
            axe_parse_layout(lay[k], strlen(lay[k]), &l, NULL) == AXE_OK &&
            axe__synth_copy_sectors(p, p->ops[0], 0, &l, 1, &got);
        TL_CHECK(k == 0 ? ok && got == 8192 * 16 : !ok,
                 "%s: counted %d, %lld sectors", lay[k], (int)ok,
                 (long long)got);
    }
    axe_program_free(p);
}

static void test_copy_anchor(void)
{
    static const char *const scopes[] = {"warp", "cta", "warpgroup"};
    static const char *const dtypes[] = {"f16", "f32", "f64", "i8"};
    static const int64_t cs[] = {1, 2, 3, 4, 6, 8, 16, 24, 32, 48, 64, 96};
    int n, solved = 0;
    for (n = 0; n < 300; n++) {
        copy_case k;
        char src[1024];
        axe_diag d;
        axe_program *p;
        k.scope = scopes[tl_range(0, 2)];
        k.dtype = dtypes[tl_range(0, 3)];
        k.threads = strcmp(k.scope, "warpgroup") == 0 ? 128 * tl_range(1, 2)
                    : strcmp(k.scope, "warp") == 0    ? 32 * tl_range(1, 2)
                                                      : 32 << tl_range(0, 3);
        k.r = tl_range(1, 16);
        k.c = cs[tl_range(0, 11)];
        k.transposed = tl_range(0, 3) == 0;
        k.rs = tl_range(0, 2) * (tl_range(0, 1) ? 4 : 1);
        k.cs = tl_range(0, 2) * (tl_range(0, 1) ? 8 : 1);
        k.rows = k.rs + k.r + tl_range(0, 3);
        k.cols = k.cs + k.c + (tl_range(0, 1) ? 0 : 8 * tl_range(0, 2));
        if (k.transposed) { /* X is [cols-major]: the view reads X[.., ..] */
            k.rows = k.cs + k.c + tl_range(0, 2);
            k.cols = k.rs + k.r + (tl_range(0, 1) ? 0 : 8);
        }
        copy_source(&k, src, sizeof src);
        p = compile(src, &d);
        if (p == NULL) {
            TL_CHECK(strstr(d.message, "no coalesced layout") != NULL,
                     "%s: refused for another reason: %s", src, d.message);
            continue;
        }
        solved++;
        TL_CHECK(p->synth != NULL && p->synth->nchoices == 1, "%s: no choice",
                 src);
        if (p->synth != NULL && p->synth->nchoices == 1) {
            check_copy_law(&k, p, src);
            check_copy_accesses(&k, p,
                                strcmp(k.scope, "warp") == 0        ? 32
                                : strcmp(k.scope, "warpgroup") == 0 ? 128
                                                                    : k.threads,
                                src);
        }
        axe_program_free(p);
    }
    TL_CHECK(solved >= 150, "only %d of 300 random copies synthesized", solved);
}

/* ---- projection (reduce, broadcast) and equality ------------------------ */

/* The law of a reduce over dim k of "s" into "d" (2-D source). */
static void check_projection(const ax_tensor *s, const ax_tensor *d, int k,
                             const char *src)
{
    axe_point ps[MAXPTS], pd[MAXPTS];
    int64_t c0, c1, e = s->shape[k];
    for (c0 = 0; c0 < s->shape[1 - k]; c0++) {
        uint64_t want[64] = {0}, got[64] = {0};
        int64_t cd[1] = {c0};
        int nd = points(d, cd, pd), q;
        for (c1 = 0; c1 < e; c1++) {
            int64_t cs2[2];
            int ns;
            cs2[k] = c1;
            cs2[1 - k] = c0;
            ns = points(s, cs2, ps);
            for (q = 0; q < ns; q++)
                want[rank_of(&ps[q]) / 64] |= 1ull << (rank_of(&ps[q]) % 64);
        }
        for (q = 0; q < nd; q++)
            got[rank_of(&pd[q]) / 64] |= 1ull << (rank_of(&pd[q]) % 64);
        TL_CHECK(nd > 0 && memcmp(want, got, sizeof want) == 0,
                 "%s: the threads of '%s' at %lld are not those of '%s' "
                 "over dim %d",
                 src, d->name, (long long)c0, s->name, k);
        for (q = 0; q < nd; q++) { /* distinct registers per thread */
            int64_t o;
            for (o = 0; o < c0; o++) {
                axe_point po[MAXPTS];
                int64_t co[1] = {o};
                int no = points(d, co, po), r;
                for (r = 0; r < no; r++)
                    TL_CHECK(rank_of(&po[r]) != rank_of(&pd[q]) ||
                                 value(&po[r], "m") != value(&pd[q], "m"),
                             "%s: '%s' stores %lld and %lld in one register",
                             src, d->name, (long long)o, (long long)c0);
            }
        }
    }
}

static void check_equal(const ax_tensor *a, const ax_tensor *b, const char *src)
{
    bool same = false;
    int64_t x, size = 1;
    int d;
    for (d = 0; d < a->ndim; d++)
        size *= a->shape[d];
    TL_CHECK(axe_layout_equivalent(&a->layout, &b->layout, &same, NULL) ==
                     AXE_OK &&
                 same,
             "%s: '%s' and '%s' are not equivalent", src, a->name, b->name);
    for (x = 0; x < size; x++) {
        axe_point pa[MAXPTS], pb[MAXPTS];
        int64_t c[2] = {x / a->shape[a->ndim - 1], x % a->shape[a->ndim - 1]};
        int na = points(a, a->ndim == 2 ? c : &x, pa);
        int nb = points(b, b->ndim == 2 ? c : &x, pb), q;
        TL_CHECK(na == nb, "%s: %s and %s differ at %lld", src, a->name,
                 b->name, (long long)x);
        for (q = 0; q < na && na == nb; q++)
            TL_CHECK(rank_of(&pa[q]) == rank_of(&pb[q]) &&
                         value(&pa[q], "m") == value(&pb[q], "m"),
                     "%s: %s and %s differ at %lld", src, a->name, b->name,
                     (long long)x);
    }
}

/* ---- the property test: random consistent programs ---------------------- */

static void random_program(char *buf, size_t cap, int *nred, int *kdim)
{
    static const char *const unary[] = {"exp", "neg", "abs", "relu"};
    static const char *const binary[] = {"add", "mul", "max", "sub"};
    const char *scope = tl_range(0, 1) ? "warp" : "cta";
    int64_t threads = 32 << tl_range(0, 2);
    int64_t r = 1 << tl_range(0, 3), c = 32 * tl_range(1, 4);
    int nops = (int)tl_range(1, 5), i;
    size_t n = 0;
    *kdim = (int)tl_range(0, 1);
    n += (size_t)snprintf(
        buf + n, cap - n,
        "kernel k(X: f32[%lld, %lld], Y: f32[%lld, %lld], "
        "Z: f16[%lld, %lld]) grid(1) threads(%lld)\n{\n"
        "    register a: f32[%lld, %lld] layout auto;\n"
        "    register b: f32[%lld, %lld] layout auto;\n"
        "    register h: f16[%lld, %lld] layout auto;\n"
        "    register m: f32[%lld] layout auto;\n"
        "    %s copy(a, X);\n    %s exp(b, a);\n",
        (long long)r, (long long)c, (long long)r, (long long)c, (long long)r,
        (long long)c, (long long)threads, (long long)r, (long long)c,
        (long long)r, (long long)c, (long long)r, (long long)c,
        (long long)(*kdim ? r : c), scope, scope);
    for (i = 0; i < nops; i++) {
        int kind = (int)tl_range(0, 2);
        if (kind == 0)
            n += (size_t)snprintf(buf + n, cap - n, "    %s %s(b, b);\n", scope,
                                  unary[tl_range(0, 3)]);
        else if (kind == 1)
            n += (size_t)snprintf(buf + n, cap - n, "    %s %s(b, a, b);\n",
                                  scope, binary[tl_range(0, 3)]);
        else
            n += (size_t)snprintf(buf + n, cap - n,
                                  "    %s reduce(m, b, %s, %d);\n"
                                  "    %s sub(b, b, m.bcast(%d, %lld));\n",
                                  scope, tl_range(0, 1) ? "sum" : "max", *kdim,
                                  scope, *kdim, (long long)(*kdim ? c : r));
        *nred += kind == 2;
    }
    (void)snprintf(buf + n, cap - n,
                   "    %s reduce(m, a, max, %d);\n    %s cast(h, b);\n"
                   "    %s copy(Z, h);\n    %s copy(Y, b);\n}\n",
                   scope, *kdim, scope, scope, scope);
}

static void test_property(void)
{
    int n;
    for (n = 0; n < 120; n++) {
        char src[4096];
        axe_diag d;
        axe_program *p;
        int nred = 0, k = 0;
        random_program(src, sizeof src, &nred, &k);
        p = compile(src, &d);
        TL_CHECK(p != NULL, "%s: %s", src, d.message);
        if (p == NULL)
            continue;
        check_equal(tensor(p, "a"), tensor(p, "b"), src); /* elementwise */
        check_equal(tensor(p, "b"), tensor(p, "h"), src); /* cast */
        check_projection(tensor(p, "a"), tensor(p, "m"), k, src);
        check_projection(tensor(p, "b"), tensor(p, "m"), k, src);
        axe_program_free(p);
    }
}

/* ---- gemm ---------------------------------------------------------------- */

/* The PTX ISA's f16 mma fragments ("Matrix Fragments for mma.m16n8k16"
 * and "... mma.m16n8k8", written out here, not read from the compiler's
 * atom table): element (r, k) of operand "o" (0 A: row r < 16, column
 * k < K; 1 B as the N x K tile: column r < 8, row k < K; 2 C: row r < 16,
 * column k < 8) is on lane 4 groupID + threadID_in_group ("tig"), at the
 * lane's value *val (a0, a1, ...). m16n8k8's (K 8) are m16n8k16's values
 * for k < 8. */
static int64_t ptx_lane(int o, int64_t r, int64_t k, int64_t *val)
{
    if (o == 0) { /* a0 a1: row groupID, columns 2 tig + 0, 1; a2 a3 eight
                     rows down; a4..a7 (k16) eight columns right */
        *val = k % 2 + 2 * (r / 8) + 4 * (k / 8);
        return 4 * (r % 8) + (k % 8) / 2;
    }
    if (o == 1) { /* b0 b1: rows (K) 2 tig + 0, 1, column groupID; b2 b3
                     (k16) eight rows down */
        *val = k % 2 + 2 * (k / 8);
        return 4 * r + (k % 8) / 2;
    }
    /* c0 c1: row groupID, columns 2 tig + 0, 1; c2 c3 eight rows down */
    *val = k % 2 + 2 * (r / 8);
    return 4 * (r % 8) + k / 2;
}

/* C "name" of the gemm against the law of the file comment (the PTX
 * ISA's C fragment of the f16 atoms, ptx_lane), on wm x wn warps. */
static void check_mma_c(const axe_program *p, const char *name, int64_t wm,
                        int64_t wn, const char *src)
{
    const ax_tensor *t = tensor(p, name);
    int64_t i, j, bm, bn;
    TL_CHECK(t != NULL, "%s: no tensor '%s'", src, name);
    if (t == NULL)
        return;
    bm = t->shape[0] / wm;
    bn = t->shape[1] / wn;
    for (i = 0; i < t->shape[0]; i++)
        for (j = 0; j < t->shape[1]; j++) {
            axe_point pt[MAXPTS];
            int64_t c[2] = {i, j}, fv = 0, fl = ptx_lane(2, i % 16, j % 8, &fv);
            int n = points(t, c, pt);
            TL_CHECK(n == 1 &&
                         value(&pt[0], "warpid") == (i / bm) * wn + j / bn &&
                         value(&pt[0], "laneid") == fl &&
                         value(&pt[0], "m") ==
                             ((i % bm) / 16 * (bn / 8) + (j % bn) / 8) * 4 + fv,
                     "%s: C (%lld, %lld) breaks the mma tiling law", src,
                     (long long)i, (long long)j);
        }
}

/* Register operand "o" (0 A, 1 B) "name" of a CTA gemm on the f16 atom
 * m16n8k"ak" against the law of the file comment (the PTX fragment of
 * ptx_lane), C on wm x wn warps. */
static void check_reg(const axe_program *p, int64_t ak, int o, const char *name,
                      int64_t wm, int64_t wn)
{
    const ax_tensor *t = tensor(p, name);
    /* the fragment's rows (16 A, 8 B) and values per lane (16 ak / 32 A,
       8 ak / 32 B) */
    int64_t rows = o == 0 ? 16 : 8, nv = rows * ak / 32;
    int64_t i, k, bm, ki, reps = o == 0 ? wn : wm;
    TL_CHECK(t != NULL && wm >= 1 && wn >= 1, "register %c '%s': no tensor",
             "AB"[o], name);
    if (t == NULL || wm < 1 || wn < 1)
        return;
    bm = t->shape[0] / (o == 0 ? wm : wn); /* rows of the operand per warp */
    ki = t->shape[1] / ak;
    for (i = 0; i < t->shape[0]; i++)
        for (k = 0; k < t->shape[1]; k++) {
            axe_point pt[MAXPTS];
            int64_t c[2] = {i, k}, fv = 0,
                    fl = ptx_lane(o, i % rows, k % ak, &fv);
            int n = points(t, c, pt), x;
            uint64_t warps = 0, want = 0;
            bool ok = n == reps;
            for (x = 0; ok && x < n; x++) {
                ok = value(&pt[x], "laneid") == fl &&
                     value(&pt[x], "m") ==
                         ((i % bm) / rows * ki + k / ak) * nv + fv;
                warps |= (uint64_t)1 << value(&pt[x], "warpid");
            }
            for (x = 0; x < reps; x++) /* A: row i/bm; B: column i/bm */
                want |= (uint64_t)1
                        << (o == 0 ? (i / bm) * wn + x : x * wn + i / bm);
            TL_CHECK(ok && warps == want,
                     "register %c '%s' (%lld, %lld) on %d points, warps %llx "
                     "(want %llx): breaks Theorem 1 over %lld x %lld warps",
                     "AB"[o], name, (long long)i, (long long)k, n,
                     (unsigned long long)warps, (unsigned long long)want,
                     (long long)wm, (long long)wn);
        }
}

static void test_gemm(void)
{
    static const char gemm_mma[] =
        "kernel g(A: f16[128, 32], B: f16[128, 32], C: f32[128, 128]) "
        "grid(1) threads(256)\n{\n"
        "    register acc: f32[128, 128] layout auto;\n"
        "    cta fill(acc, 0);\n    cta gemm(acc, A, B);\n"
        "    cta copy(C, acc);\n}\n";
    static const char gemm_fma[] =
        "kernel g(A: f32[96, 8], B: f32[64, 8], C: f32[96, 64]) "
        "grid(1) threads(128)\n{\n"
        "    register acc: f32[96, 64] layout auto;\n"
        "    cta fill(acc, 0);\n    cta gemm(acc, A, B);\n"
        "    cta copy(C, acc);\n}\n";
    axe_diag d;
    axe_program *p = compile(gemm_mma, &d);
    TL_CHECK(p != NULL, "gemm_mma: %s", d.message);
    if (p != NULL) { /* 8 warps: 2 x 4 (MI + NI = 8) beats 1 x 8, 4 x 2 */
        check_mma_c(p, "acc", 2, 4, gemm_mma);
        TL_CHECK(strcmp(p->ops[1]->schedule, "mma_smem") == 0, "schedule %s",
                 p->ops[1]->schedule);
        axe_program_free(p);
    }
    p = compile(gemm_fma, &d);
    TL_CHECK(p != NULL, "gemm_fma: %s", d.message);
    if (p != NULL) {
        const ax_tensor *t = tensor(p, "acc");
        int64_t tm, best = INT64_MAX, i, j, bm, bn;
        long long gm = 0, gn = 0;
        for (tm = 1; tm <= 128; tm++) /* brute force over thread grids */
            if (128 % tm == 0 && 96 % tm == 0 && 64 % (128 / tm) == 0 &&
                96 / tm + 64 / (128 / tm) < best)
                best = 96 / tm + 64 / (128 / tm);
        TL_CHECK(p->synth->choices[0].cost == (double)best,
                 "fma cost %g, brute force %lld", p->synth->choices[0].cost,
                 (long long)best);
        TL_CHECK(sscanf(p->synth->choices[0].chosen,
                        "per-thread FMA blocks of C, threads %lld x %lld", &gm,
                        &gn) == 2 &&
                     gm * gn == 128,
                 "text %s", p->synth->choices[0].chosen);
        bm = gm > 0 ? 96 / gm : 1;
        bn = gn > 0 ? 64 / gn : 1;
        for (i = 0; i < 96; i++)
            for (j = 0; j < 64; j++) {
                axe_point pt[MAXPTS];
                int64_t c[2] = {i, j};
                int n = points(t, c, pt);
                TL_CHECK(n == 1 &&
                             value(&pt[0], "tx") == (i / bm) * gn + j / bn &&
                             value(&pt[0], "m") == (i % bm) * bn + j % bn,
                         "fma C (%lld, %lld)", (long long)i, (long long)j);
            }
        axe_program_free(p);
    }
}

/* Theorem 1: warp-scope register A and B from C's atom tiling. */
static void test_theorem1(void)
{
    static const char src[] =
        "kernel w(A: f16[32, 48], B: f16[24, 48], C: f32[32, 24]) grid(1) "
        "threads(32)\n{\n"
        "    register a: f16[32, 48] layout auto;\n"
        "    register b: f16[24, 48] layout auto;\n"
        "    register c: f32[32, 24] layout auto;\n"
        "    warp copy(a, A);\n    warp copy(b, B);\n    warp fill(c, 0);\n"
        "    warp gemm(c, a, b);\n    warp copy(C, c);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    int o;
    TL_CHECK(p != NULL, "theorem 1: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(strcmp(p->ops[3]->schedule, "mma_atom") == 0 &&
                 p->ops[3]->mma->mnk[2] == 16,
             "schedule %s", p->ops[3]->schedule);
    check_mma_c(p, "c", 1, 1, src);
    for (o = 0; o < 2; o++) /* A: 2 x 3 tiles of 16 x 16; B: 3 x 3 of 8 x 16 */
        check_reg(p, 16, o, o == 0 ? "a" : "b", 1, 1);
    axe_program_free(p);
}

/* A register A of a CTA-scope gemm (Theorem 1, the projection of C over
 * N), with two gemm anchors chosen together. */
static void test_register_a(void)
{
    static const char mma[] =
        "kernel a(Q: f16[64, 32], K: f16[64, 32], V: f16[32, 64], "
        "O: f32[64, 32]) grid(1) threads(128)\n{\n"
        "    register s: f32[64, 64] layout auto;\n"
        "    register mx: f32[64] layout auto;\n"
        "    register p: f16[64, 64] layout auto;\n"
        "    register o: f32[64, 32] layout auto;\n"
        "    cta fill(s, 0);\n    cta fill(o, 0);\n"
        "    cta gemm(s, Q, K);\n    cta reduce(mx, s, max, 1);\n"
        "    cta sub(s, s, mx.bcast(1, 64));\n    cta cast(p, s);\n"
        "    cta gemm(o, p, V);\n    cta copy(O, o);\n}\n";
    static const char fma[] =
        "kernel f(Q: f32[32, 16], K: f32[64, 16], V: f32[16, 64], "
        "O: f32[32, 16]) grid(1) threads(32)\n{\n"
        "    register s: f32[32, 64] layout auto;\n"
        "    register o2: f32[32, 16] layout auto;\n"
        "    cta fill(s, 0);\n    cta fill(o2, 0);\n"
        "    cta gemm(s, Q, K);\n    cta gemm(o2, s, V);\n"
        "    cta copy(O, o2);\n}\n";
    axe_diag d;
    axe_program *p = compile(mma, &d);
    TL_CHECK(p != NULL, "register A (mma): %s", d.message);
    if (p != NULL) {
        check_mma_c(p, "s", 4, 1, mma);
        check_mma_c(p, "o", 4, 1, mma);
        TL_CHECK(p->synth->nrearranges == 0 &&
                     strcmp(p->ops[6]->schedule, "mma_reg_a") == 0 &&
                     p->ops[6]->mma->mnk[2] == 16,
                 "rearranges %d, schedule %s", p->synth->nrearranges,
                 p->ops[6]->schedule);
        check_reg(p, 16, 0, "p", 4, 1);
        axe_program_free(p);
    }
    p = compile(fma, &d);
    TL_CHECK(p != NULL, "register A (fma): %s", d.message);
    if (p != NULL) { /* s is o2's A: every thread of row i holds it all */
        const ax_tensor *s = tensor(p, "s"), *o = tensor(p, "o2");
        int64_t i, k;
        for (i = 0; i < 32; i++)
            for (k = 0; k < 64; k++) {
                axe_point pt[MAXPTS], oc[MAXPTS];
                int64_t c[2] = {i, k}, c0[2] = {i, 0};
                int n = points(s, c, pt), no = points(o, c0, oc), x;
                bool ok = n >= 1;
                for (x = 0; ok && x < no; x++) { /* C's row-i threads */
                    int y;
                    bool found = false;
                    for (y = 0; y < n; y++)
                        found =
                            found || value(&pt[y], "tx") == value(&oc[x], "tx");
                    ok = found;
                }
                TL_CHECK(ok && p->synth->nrearranges == 0,
                         "fma register A (%lld, %lld): %d holders",
                         (long long)i, (long long)k, n);
            }
        axe_program_free(p);
    }
}

/* The least (MI + NI) KI over the f16 atoms (K 16 and 8) dividing "k"
 * and the warp grids wm x wn of "w" warps tiling an m x n C (f32 C
 * fragment values: 4 per lane, at most 1020 register bytes), and that
 * atom's K. */
static int64_t brute_atom_cost(int64_t m, int64_t n, int64_t k, int64_t w,
                               int64_t *atom_k)
{
    static const int64_t ks[2] = {16, 8};
    int64_t best = INT64_MAX, wm;
    for (int a = 0; a < 2; a++)
        for (wm = 1; k % ks[a] == 0 && wm <= w; wm++) {
            int64_t wn = w / wm, mi, ni;
            if (w % wm != 0 || m % (wm * 16) != 0 || n % (wn * 8) != 0)
                continue;
            mi = m / (wm * 16);
            ni = n / (wn * 8);
            if (mi * ni * 4 * 4 <= 1020 && (mi + ni) * (k / ks[a]) < best) {
                best = (mi + ni) * (k / ks[a]);
                *atom_k = ks[a];
            }
        }
    return best;
}

/* The anchor over several atoms: K 24 (m16n8k8 only) and 32 (both; the
 * cheaper m16n8k16, and no leaf repeated for m16n8k8's equal C), costs
 * against brute force; a register A with K 24 is m16n8k8's A tiling and
 * runs on gemm.mma_reg_a with that atom. */
static void test_atom_search(void)
{
    static const char rega[] =
        "kernel r(A: f16[64, 24], B: f16[32, 24], C: f32[64, 32]) grid(1) "
        "threads(128)\n{\n"
        "    shared Bs: f16[32, 24];\n"
        "    register a: f16[64, 24] layout auto;\n"
        "    register c: f32[64, 32] layout auto;\n"
        "    cta copy(Bs, B);\n    cta copy(a, A);\n    cta fill(c, 0);\n"
        "    sync;\n    cta gemm(c, a, Bs);\n    cta copy(C, c);\n}\n";
    static const int kk[2] = {24, 32};
    axe_diag d;
    axe_program *p;
    for (int x = 0; x < 2; x++) {
        char src[512], want[16];
        int64_t ak = 0, best = brute_atom_cost(128, 128, kk[x], 8, &ak);
        (void)snprintf(src, sizeof src,
                       "kernel g(A: f16[128, %d], B: f16[128, %d], C: "
                       "f32[128, 128]) grid(1) threads(256)\n{\n"
                       "    register acc: f32[128, 128] layout auto;\n"
                       "    cta fill(acc, 0);\n    cta gemm(acc, A, B);\n"
                       "    cta copy(C, acc);\n}\n",
                       kk[x], kk[x]);
        p = compile(src, &d);
        TL_CHECK(p != NULL, "K %d: %s", kk[x], d.message);
        if (p == NULL)
            continue;
        (void)snprintf(want, sizeof want, "m16n8k%lld ", (long long)ak);
        TL_CHECK(p->synth->nchoices == 1 &&
                     p->synth->choices[0].cost == (double)best &&
                     strstr(p->synth->choices[0].chosen, want) != NULL,
                 "K %d: cost %g (brute force %lld, %s): %s", kk[x],
                 p->synth->choices[0].cost, (long long)best, want,
                 p->synth->choices[0].chosen);
        TL_CHECK(strstr(p->synth->choices[0].runner_up, "warps 2 x 4") == NULL,
                 "K %d: the chosen layout again as runner-up: %s", kk[x],
                 p->synth->choices[0].runner_up);
        check_mma_c(p, "acc", 2, 4, src);
        TL_CHECK(strcmp(p->ops[1]->schedule, "mma_smem") == 0 &&
                     p->ops[1]->mma->mnk[2] == ak,
                 "K %d: schedule %s", kk[x], p->ops[1]->schedule);
        axe_program_free(p);
    }
    p = compile(rega, &d);
    TL_CHECK(p != NULL, "register A, K 24: %s", d.message);
    if (p == NULL)
        return;
    { /* the grid by brute force (a register A may be replicated over the
         column warps); A is m16n8k8's A fragment (PTX ISA) */
        int64_t ak = 0, best = brute_atom_cost(64, 32, 24, 4, &ak);
        long long wm = 0, wn = 0;
        TL_CHECK(strcmp(p->ops[3]->schedule, "mma_reg_a") == 0 &&
                     p->ops[3]->mma->mnk[2] == 8 && ak == 8 &&
                     p->synth->choices[0].cost == (double)best,
                 "register A, K 24: schedule %s, cost %g (brute force %lld)",
                 p->ops[3]->schedule, p->synth->choices[0].cost,
                 (long long)best);
        TL_CHECK(sscanf(p->synth->choices[0].chosen,
                        "mma atom m16n8k8 tiles of C, warps %lld x %lld", &wm,
                        &wn) == 2 &&
                     wm * wn == 4 &&
                     (64 / (wm * 16) + 32 / (wn * 8)) * 3 == best,
                 "register A, K 24: %s", p->synth->choices[0].chosen);
        check_mma_c(p, "c", wm, wn, rega);
        check_reg(p, 8, 0, "a", wm, wn);
    }
    axe_program_free(p);
}

/* A register A over several warps of C's columns (B in shared memory)
 * and its mirror, a register B over several warps of C's rows (A in
 * shared memory): 8 warps, C 64 x 64 (K 32): the brute-force grid 2 x 4,
 * the register operand replicated over the other grid axis, run on
 * gemm.mma_reg_a / mma_reg_b; the same with a 128-row C on 16 warps
 * (4 x 4, K 48). */
static void test_register_wn(void)
{
    static const int64_t cases[2][4] = {{64, 64, 32, 8}, {128, 64, 48, 16}};
    for (int x = 0; x < 4; x++) {
        const int64_t *c = cases[x % 2];
        int reg = x / 2;
        char src[768];
        int64_t ak = 0, best = brute_atom_cost(c[0], c[1], c[2], c[3], &ak);
        long long wm = 0, wn = 0;
        axe_diag d;
        axe_program *p;
        (void)snprintf(
            src, sizeof src,
            "kernel r(A: f16[%lld, %lld], B: f16[%lld, %lld], C: f32[%lld, "
            "%lld]) grid(1) threads(%lld)\n{\n"
            "    shared S: f16[%lld, %lld];\n"
            "    register r: f16[%lld, %lld] layout auto;\n"
            "    register c: f32[%lld, %lld] layout auto;\n"
            "    cta copy(S, %s);\n    cta copy(r, %s);\n"
            "    cta fill(c, 0);\n    sync;\n    cta gemm(c, %s);\n"
            "    cta copy(C, c);\n}\n",
            (long long)c[0], (long long)c[2], (long long)c[1], (long long)c[2],
            (long long)c[0], (long long)c[1], (long long)(c[3] * 32),
            (long long)c[reg == 0 ? 1 : 0], (long long)c[2],
            (long long)c[reg == 0 ? 0 : 1], (long long)c[2], (long long)c[0],
            (long long)c[1], reg == 0 ? "B" : "A", reg == 0 ? "A" : "B",
            reg == 0 ? "r, S" : "S, r");
        p = compile(src, &d);
        TL_CHECK(p != NULL, "register %c over %lld warps: %s", "AB"[reg],
                 (long long)c[3], d.message);
        if (p == NULL)
            continue;
        TL_CHECK(sscanf(p->synth->choices[0].chosen,
                        "mma atom m16n8k16 tiles of C, warps %lld x %lld", &wm,
                        &wn) == 2 &&
                     wm * wn == c[3] && (reg == 0 ? wn : wm) > 1 &&
                     p->synth->choices[0].cost == (double)best &&
                     strcmp(p->ops[3]->schedule,
                            reg == 0 ? "mma_reg_a" : "mma_reg_b") == 0 &&
                     p->ops[3]->mma->mnk[2] == 16,
                 "register %c over %lld warps: %s (cost %g, brute force "
                 "%lld), schedule %s",
                 "AB"[reg], (long long)c[3], p -> synth -> choices[0].chosen,
                 p->synth->choices[0].cost, (long long)best,
                 p->ops[3]->schedule);
        check_mma_c(p, "c", wm, wn, src);
        check_reg(p, 16, reg, "r", wm, wn);
        axe_program_free(p);
    }
}

/* Two anchors that disagree at an add: the inserted rearrange gives the
 * source the destination's layout, so the constraint holds pointwise. */
static void test_inserted(void)
{
    static const char src[] =
        "kernel two(A: f16[64, 16], B: f16[64, 16], A2: f32[64, 16], "
        "B2: f32[64, 16], C: f32[64, 64]) grid(1) threads(128)\n{\n"
        "    register c1: f32[64, 64] layout auto;\n"
        "    register c2: f32[64, 64] layout auto;\n"
        "    cta fill(c1, 0);\n    cta fill(c2, 0);\n"
        "    cta gemm(c1, A, B);\n    cta gemm(c2, A2, B2);\n"
        "    cta mul(c2, c1, c2);\n    cta copy(C, c2);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    const ax_stmt *mul, *ins;
    TL_CHECK(p != NULL, "inserted: %s", d.message);
    if (p == NULL)
        return;
    mul = p->ops[4];
    ins = p->nops == 7 ? p->ops[6] : NULL;
    TL_CHECK(ins != NULL && ins->rearrange && ins->next == mul &&
                 strcmp(ins->schedule, "smem") == 0 &&
                 strcmp(p->tensors[ins->args[1].tensor].name, "c1") == 0 &&
                 ins->args[0].tensor == mul->args[1].tensor,
             "no rearrange of c1 before the mul");
    check_equal(&p->tensors[mul->args[0].tensor],
                &p->tensors[mul->args[1].tensor], src);
    axe_program_free(p);
}

/* No ldmatrix leaf of odd run where a store reaches packed i4 (the
 * store-byte rule of copy_candidate): q, read by ldmatrix.trans alone
 * (its words two rows of one column, runs of 1), is cast into r and
 * stored into the row-major i4 F, so q's leaves hold no .trans one. */
static void test_ldsm_i4_store(void)
{
    static const char src[] =
        "kernel k(X: f16[32, 64], G: f16[32, 64] layout S[(32, 64):(1, 32)], "
        "F: i4[32, 64]) grid(1) threads(128)\n{\n"
        "    shared s: f16[32, 64] layout Swizzle<3, 3, 3>(S[(32, 64):(64, "
        "1)]);\n"
        "    register q: f16[32, 64] layout auto;\n"
        "    register r: i4[32, 64] layout auto;\n"
        "    cta copy(s, X);\n    sync;\n    cta copy(q, s);\n"
        "    cta copy(G, q);\n    cta cast(r, q);\n    cta copy(F, r);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    ax_synth_leaves lv;
    TL_CHECK(p != NULL, "ldsm i4 store: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(axe__synth_copy_leaves(p, p->ops[1], 0, 1, &lv, &d) == AXE_OK,
             "ldsm i4 store leaves: %s", d.message);
    for (int i = 0; i < lv.n; i++)
        TL_CHECK(strstr(lv.leaf[i].text, ".trans") == NULL,
                 "leaf %d of q is %s", i, lv.leaf[i].text);
    axe_program_free(p);
}

/* Every ldmatrix leaf of a copy from a 4-D shared tensor: the plain one
 * and a .trans one per dimension that can hold a word's two rows (the
 * 16-byte rows are along dim 3; the rows of a matrix can be dealt into
 * any of the four dimensions), five in all (a list of four dropped the
 * fifth). */
static void test_ldsm_leaves_4d(void)
{
    static const char src[] =
        "kernel k(X: f16[2, 2, 2, 64], F: f16[2, 2, 2, 64]) grid(1) "
        "threads(32)\n{\n"
        "    shared s: f16[2, 2, 2, 64];\n"
        "    register q: f16[2, 2, 2, 64] layout auto;\n"
        "    warp copy(s, X);\n    sync;\n    warp copy(q, s);\n"
        "    warp copy(F, q);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    ax_synth_ldsm ls;
    char want[40];
    TL_CHECK(p != NULL, "ldsm leaves 4-d: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(axe__synth_ldsm_leaves(p, p->ops[1], 0, &ls, &d) == AXE_OK,
             "ldsm leaves 4-d: %s", d.message);
    TL_CHECK(ls.n == 5, "ldsm leaves 4-d: %d leaves, want 5", ls.n);
    for (int dim = 0; dim < 4; dim++) {
        bool found = false;
        (void)snprintf(want, sizeof want, "word pairs along dim %d", dim);
        for (int i = 0; i < ls.n; i++)
            found = found || strstr(ls.leaf[i].text, want) != NULL;
        TL_CHECK(found, "ldsm leaves 4-d: no .trans leaf with %s", want);
    }
    axe_program_free(p);
}

/* Whether every element (i, j) of "l" over [32, 64] is on one thread, the
 * thread of its byte partner in F: (i ^ 1, j) when F is column-major
 * (its bytes pair rows), (i, j ^ 1) when row-major (they pair columns). */
static bool bytes_whole(const axe_layout *l, bool colmajor)
{
    static const int64_t shape[2] = {32, 64};
    for (int64_t i = 0; i < 32; i++)
        for (int64_t j = 0; j < 64; j++) {
            int64_t a[2] = {i, j},
                    b[2] = {colmajor ? i ^ 1 : i, colmajor ? j : j ^ 1};
            axe_point pa[MAXPTS], pb[MAXPTS];
            int na = 0, nb = 0;
            if (axe_layout_apply_set(l, a, shape, 2, pa, MAXPTS, &na, NULL) !=
                    AXE_OK ||
                axe_layout_apply_set(l, b, shape, 2, pb, MAXPTS, &nb, NULL) !=
                    AXE_OK ||
                na != 1 || nb != 1 || rank_of(&pa[0]) != rank_of(&pb[0]))
                return false;
        }
    return true;
}

/* The store-byte rule of the copy anchor reads the bytes off the i4
 * destination's layout: q (f32, anchored on the row-major X) is cast
 * into r and stored into F, column-major (bytes pair rows: before, the
 * rule asked for even runs along X's rows, the layouts split F's bytes
 * and the store had no schedule) or row-major. Every leaf, and the
 * synthesized q, keeps each byte's two elements on one thread; three
 * written layouts against the rule: a row per thread (row-major only),
 * a column and its neighbour 32 away per thread (column-major only), two
 * whole columns per thread (both). */
static void test_i4_store_bytes(void)
{
    static const char *const lay[3] = {"S[(32, 64):(1@tx, 1)]",
                                       "S[(32, 2, 32):(2, 1, 1@tx)]",
                                       "S[(32, 32, 2):(2, 1@tx, 1)]"};
    for (int cm = 0; cm < 2; cm++) {
        char src[512];
        axe_diag d;
        axe_program *p;
        ax_synth_leaves lv;
        ax_synth_i4 q;
        bool in[AX_MAX_TENSORS];
        (void)snprintf(
            src, sizeof src,
            "kernel k(X: f32[32, 64], F: i4[32, 64] layout %s) grid(1) "
            "threads(32)\n{\n    register q: f32[32, 64] layout auto;\n"
            "    register r: i4[32, 64] layout auto;\n    cta copy(q, X);\n"
            "    cta cast(r, q);\n    cta copy(F, r);\n}\n",
            cm ? "S[(32, 64):(1, 32)]" : "S[(32, 64):(64, 1)]");
        p = compile(src, &d);
        TL_CHECK(p != NULL, "i4 store (F %s): %s",
                 cm ? "column-major" : "row-major", d.message);
        if (p == NULL)
            continue;
        TL_CHECK(bytes_whole(&tensor(p, "q")->layout, cm),
                 "q splits a byte of F (column-major %d)", cm);
        TL_CHECK(axe__synth_copy_leaves(p, p->ops[0], 0, 1, &lv, &d) ==
                         AXE_OK &&
                     lv.n > 0,
                 "i4 store leaves: %s", d.message);
        for (int i = 0; i < lv.n; i++)
            TL_CHECK(bytes_whole(&lv.leaf[i].layout, cm),
                     "leaf %d (%s) splits a byte of F (column-major %d)", i,
                     lv.leaf[i].text, cm);
        axe__synth_tied(p, p->ops[0]->args[0].tensor, in);
        TL_CHECK(axe__synth_i4_pairs(p, in, tensor(p, "q")->shape, 2, &q) ==
                         AXE_OK &&
                     q.exact && q.n == 1024,
                 "i4 pairs: exact %d, %lld pairs", (int)q.exact,
                 (long long)q.n);
        for (int k = 0; k < 3; k++) {
            axe_layout l;
            bool want = k == 2 || k == cm;
            TL_CHECK(
                axe_parse_layout(lay[k], strlen(lay[k]), &l, NULL) == AXE_OK &&
                    bytes_whole(&l, cm) == want &&
                    axe__synth_i4_whole(&q, &l) == want,
                "%s against F column-major %d: want %d", lay[k], cm, (int)want);
        }
        axe__synth_i4_free(&q);
        axe_program_free(p);
    }
}

/* An i4 store that anchors its register, into rows of 66 (no vector of
 * 8 i4 is aligned): its leaves store a byte per pair, runs of 8 on 32
 * threads 4 bytes per thread (the emitted pair loop, ax_i2 < 8 step 2),
 * cost 128, where each nibble alone would be 8 per thread (256). */
static void test_i4_pair_anchor(void)
{
    static const char src[] =
        "kernel k(X: i4[4, 64], Y: i4[4, 66]) grid(1) threads(32)\n{\n"
        "    register r: i4[4, 64] layout auto;\n"
        "    cta copy(Y[0 : 4, 0 : 64], r);\n    cta copy(r, X);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    const ax_synth_choice *ch;
    TL_CHECK(p != NULL && p->synth != NULL && p->synth->nchoices == 1,
             "i4 pair anchor: %s", p == NULL ? d.message : "no choice");
    if (p == NULL || p->synth == NULL || p->synth->nchoices != 1) {
        axe_program_free(p);
        return;
    }
    ch = &p->synth->choices[0];
    TL_CHECK(ch->cost == 128 &&
                 strstr(ch->chosen, "1-byte accesses (2 elements) in runs "
                                    "of 8 on 32 consecutive tx, 4 per "
                                    "thread") != NULL,
             "i4 pair anchor: '%s' (cost %g), want 4 pair stores per thread "
             "(cost 128)",
             ch->chosen, ch->cost);
    axe_program_free(p);
}

/* A copy from a swizzled shared tensor moves vectors only inside the
 * runs its swizzle keeps contiguous: f16 A under Swizzle<2, 3, 3> keeps
 * 4 elements (8 bytes), so a's 8 consecutive columns per thread are two
 * 8-byte loads (the emitted AXE_LDV(uint2, ...)), 256 accesses over 128
 * threads, not one 16-byte load each (128). */
static void test_swizzle_run_count(void)
{
    static const char src[] =
        "kernel k(X: f16[16, 64], F: f16[16, 64]) grid(1) threads(128)\n{\n"
        "    shared A: f16[16, 64] layout Swizzle<2, 3, 3>(S[(16, 64):(64, "
        "1)]);\n    register a: f16[16, 64] layout S[(16, 8, 8):(8@tx, "
        "1@tx, 1)];\n    cta copy(A, X);\n    sync;\n    cta copy(a, "
        "A);\n    cta copy(F, a);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    int64_t n = -1;
    TL_CHECK(p != NULL, "swizzle run: %s", d.message);
    if (p == NULL)
        return;
    for (int i = 0; i < p->nops; i++)
        if (p->ops[i]->op == AX_OP_COPY &&
            p->ops[i]->args[0].tensor == (int)(tensor(p, "a") - p->tensors))
            (void)axe__synth_copy_accesses(p, p->ops[i], 0, &n);
    TL_CHECK(n == 256,
             "swizzle run: a's load from A counts %lld accesses, want 256 "
             "(two 8-byte loads per thread)",
             (long long)n);
    axe_program_free(p);
}

/* The copy search counts a store of packed i4 a byte per element pair
 * where the plan pairs it (axe__i4_plan_pair): q's layout (each thread
 * two columns, all 32 rows) stored into a column-major F runs the rows at
 * stride 1, so each thread stores 16 pairs of rows x 2 columns, 32 byte
 * stores (the emitted CUDA's pair loop: ax_i0 < 32 step 2 by ax_i2 < 2),
 * 1024 for the 32 threads; from an odd first row (F[1 : +32, ..]) no
 * pair starts on a byte: 64 nibble stores per thread, 2048. */
static void test_i4_pair_count(void)
{
    static const int64_t want[2] = {1024, 2048};
    for (int odd = 0; odd < 2; odd++) {
        char src[512];
        axe_diag d;
        axe_program *p;
        int64_t n = -1;
        (void)snprintf(
            src, sizeof src,
            "kernel k(X: f32[32, 64], F: i4[34, 64] layout S[(34, 64):(1, "
            "34)]) grid(1) threads(32)\n{\n    register q: f32[32, 64] "
            "layout S[(32, 32, 2):(2, 1@tx, 1)];\n    register r: i4[32, "
            "64] layout auto;\n    cta copy(q, X);\n    cta cast(r, q);\n"
            "    cta copy(F[%d : +32, 0 : 64], r);\n}\n",
            odd);
        p = compile(src, &d);
        TL_CHECK(p != NULL, "i4 pair count: %s", d.message);
        if (p == NULL)
            continue;
        TL_CHECK(axe__synth_copy_accesses(p, p->ops[2], 1, &n) &&
                     n == want[odd],
                 "i4 store from row %d: %lld accesses, want %lld", odd,
                 (long long)n, (long long)want[odd]);
        axe_program_free(p);
    }
}

/* A full leaf list makes room for a tied copy's ldmatrix leaf by dropping
 * its costliest coalesced leaf, never an ldmatrix one: q (f16, read from
 * the shared s) is tied by a cast to r (f32), whose store into F is the
 * larger copy and anchors r. The tied leaves of copy#2 are a plain one and
 * a .trans one per dimension; before, each took the last slot from the one
 * before it, so only the last .trans was left. Both kinds are kept. */
static void test_tied_ldsm_slots(void)
{
    static const char src[] =
        "kernel k(X: f16[32, 64], F: f32[32, 64]) grid(1) threads(32)\n{\n"
        "    shared s: f16[32, 64];\n"
        "    register q: f16[32, 64] layout auto;\n"
        "    register r: f32[32, 64] layout auto;\n"
        "    cta copy(s, X);\n    sync;\n    cta copy(q, s);\n"
        "    cta cast(r, q);\n    cta copy(F, r);\n}\n";
    axe_diag d;
    axe_program *p = compile(src, &d);
    ax_synth_leaves lv;
    bool plain = false, trans = false;
    TL_CHECK(p != NULL, "tied ldsm slots: %s", d.message);
    if (p == NULL)
        return;
    TL_CHECK(axe__synth_copy_leaves(p, p->ops[3], 1, 0, &lv, &d) == AXE_OK,
             "tied ldsm slots leaves: %s", d.message);
    for (int i = 0; i < lv.n; i++) {
        bool tied = strstr(lv.leaf[i].text, "for copy#") != NULL;
        bool tr = strstr(lv.leaf[i].text, ".trans") != NULL;
        plain = plain || (tied && !tr);
        trans = trans || (tied && tr);
    }
    TL_CHECK(plain && trans, "tied ldsm slots: plain %d, .trans %d (want both)",
             (int)plain, (int)trans);
    axe_program_free(p);
}

/* ---- coalesced leaves across dimensions ------------------------------- */

#define MRANKS 128
#define MREGS 1024

typedef struct merge_case {
    const char *name, *dtype, *mem; /* mem: the memory operand's decl */
    int n;
    int64_t shape[3];
    int bits;
    int64_t (*addr)(const int64_t *c); /* element address, written here */
    bool want;                         /* a 16-byte merged leaf expected */
} merge_case;

static int64_t addr_rows4(const int64_t *c) { return c[0] * 4 + c[1]; }
static int64_t addr_pad(const int64_t *c) { return c[0] * 8 + c[1]; }
static int64_t addr_rm3(const int64_t *c) { return c[0] * 4 + c[1] * 2 + c[2]; }
/* Hexcute's packed i4 tile: k = 16 a + 8 b + c', n = 2 e + f at
 * 2048 a + 2 b + 4 c' + 32 e + f */
static int64_t addr_hex(const int64_t *c)
{
    int64_t k = c[0], n = c[1];
    return (k / 16) * 2048 + (k / 8 % 2) * 2 + (k % 8) * 4 + (n / 2) * 32 +
           n % 2;
}

static int64_t m_addr[MRANKS][MREGS];

/* Every vector of leaf "l" (w elements): on every thread, registers
 * k w .. k w + w - 1 hold elements at consecutive memory addresses from
 * a multiple of w. */
static bool merged_ok(const merge_case *k, const axe_layout *l, int64_t w)
{
    int64_t c[3] = {0, 0, 0}, total = 1;
    for (int d = 0; d < k->n; d++)
        total *= k->shape[d];
    for (int r = 0; r < MRANKS; r++)
        for (int g = 0; g < MREGS; g++)
            m_addr[r][g] = -1;
    for (int64_t i = 0; i < total; i++) {
        axe_point pt[MAXPTS];
        int np = 0;
        int64_t rest = i;
        for (int d = k->n - 1; d >= 0; d--)
            c[d] = rest % k->shape[d], rest /= k->shape[d];
        if (axe_layout_apply_set(l, c, k->shape, k->n, pt, MAXPTS, &np, NULL) !=
            AXE_OK)
            return false;
        for (int j = 0; j < np; j++) {
            int64_t r = rank_of(&pt[j]), g = value(&pt[j], "m");
            if (r >= MRANKS || g >= MREGS)
                return false;
            m_addr[r][g] = k->addr(c);
        }
    }
    for (int r = 0; r < MRANKS; r++)
        for (int64_t g = 0; g + w <= MREGS; g += w) {
            if (m_addr[r][g] < 0)
                continue;
            if (m_addr[r][g] % w != 0)
                return false;
            for (int64_t e = 1; e < w; e++)
                if (m_addr[r][g + e] != m_addr[r][g] + e)
                    return false;
        }
    return true;
}

/* The copy anchor's leaves whose vectors span dimensions (compiler_synth_
 * merge.c), checked element by element against the memory operand's
 * addresses written in the test: f16 rows of 8 bytes, an f32 tile of
 * three dims (16-byte runs over dims 1 and 2), Hexcute's packed i4 tile
 * in shared memory (16-byte rows of 16 k x 2 n); rows padded to 16 bytes
 * get none. */
static void test_merged_leaves(void)
{
    static const merge_case cases[] = {
        {"f16 rows",
         "f16",
         "X: f16[64, 4]",
         2,
         {64, 4, 0},
         16,
         addr_rows4,
         true},
        {"f16 padded",
         "f16",
         "X: f16[64, 4] layout S[(64, 4):(8, 1)]",
         2,
         {64, 4, 0},
         16,
         addr_pad,
         false},
        {"f32 3-d",
         "f32",
         "X: f32[16, 2, 2]",
         3,
         {16, 2, 2},
         32,
         addr_rm3,
         true},
        {"i4 hexcute",
         "i4",
         "X: i4[128, 128] layout S[(8, 2, 8, 64, 2):(2048, 2, 4, 32, 1)]",
         2,
         {128, 128, 0},
         4,
         addr_hex,
         true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const merge_case *k = &cases[i];
        char src[512], shp[32];
        axe_diag d;
        axe_program *p;
        ax_synth_leaves lv;
        int merged = 0, wide = 0;
        if (k->n == 2)
            (void)snprintf(shp, sizeof shp, "%lld, %lld",
                           (long long)k->shape[0], (long long)k->shape[1]);
        else
            (void)snprintf(shp, sizeof shp, "%lld, %lld, %lld",
                           (long long)k->shape[0], (long long)k->shape[1],
                           (long long)k->shape[2]);
        (void)snprintf(src, sizeof src,
                       "kernel k(%s, F: %s[%s]) grid(1) threads(32)\n{\n"
                       "    register q: %s[%s] layout auto;\n"
                       "    cta copy(q, X);\n    cta copy(F, q);\n}\n",
                       k->mem, k->dtype, shp, k->dtype, shp);
        p = compile(src, &d);
        TL_CHECK(p != NULL, "merged %s: %s", k->name, d.message);
        if (p == NULL)
            continue;
        TL_CHECK(axe__synth_copy_leaves(p, p->ops[0], 0, 1, &lv, &d) == AXE_OK,
                 "merged %s leaves: %s", k->name, d.message);
        for (int j = 0; j < lv.n; j++) {
            const char *t = strstr(lv.leaf[j].text, "accesses (");
            long long w = 0;
            if (strstr(lv.leaf[j].text, "across dimensions") == NULL)
                continue;
            merged++;
            TL_CHECK(t != NULL && sscanf(t, "accesses (%lld", &w) == 1 && w > 1,
                     "merged %s: leaf %s", k->name, lv.leaf[j].text);
            if (w > 1 && w * k->bits == 128)
                wide++;
            TL_CHECK(w > 1 && merged_ok(k, &lv.leaf[j].layout, w),
                     "merged %s: leaf %d (%s) is not w consecutive "
                     "addresses per vector",
                     k->name, j, lv.leaf[j].text);
        }
        TL_CHECK(k->want ? wide > 0 : merged == 0,
                 "merged %s: %d merged leaves, %d of 16 bytes", k->name, merged,
                 wide);
        axe_program_free(p);
    }
}

int main(void)
{
    tl_seed("test_compiler_synth", 15);
    test_sector_count();
    test_copy_anchor();
    test_property();
    test_gemm();
    test_theorem1();
    test_register_a();
    test_atom_search();
    test_register_wn();
    test_inserted();
    test_ldsm_i4_store();
    test_ldsm_leaves_4d();
    test_i4_store_bytes();
    test_tied_ldsm_slots();
    test_i4_pair_count();
    test_i4_pair_anchor();
    test_copy_sectors_cap();
    test_swizzle_run_count();
    test_merged_leaves();
    return tl_finish();
}
