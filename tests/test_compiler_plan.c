/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copy plans against brute force (docs/compiler.md, "Dispatch",
 * copy.vector): random CTA copies between tensors of random layouts, each
 * dimension split now and then into two sub-iters, the sub-iters of all
 * dimensions given strides in a random order (compact or padded, at a
 * random offset; now and then the same as another tensor's): a global G
 * into a shared tile T, T into a global H, and G into a global K, at
 * random thread counts and dtypes. Each dispatched
 * plan is run the way the emitted code runs a split plan (chunk u = rank
 * + j * threads, its digits innermost first, the innermost loop in steps
 * of the vector; one access moves the vec consecutive addresses from the
 * chunk's) and checked with the test's own inverse tables of the layouts:
 * every element copied exactly once, each address pair holding the same
 * logical element, every vector aligned in both tensors.
 *
 * The width against an oracle of its own: the widest w (w * elem_size at
 * most 16 bytes) for which the destination's used addresses fall into
 * whole aligned blocks of w whose elements sit in the source at
 * consecutive addresses from a multiple of w (no layout algebra). The
 * global copy K <- G takes exactly that width. A copy with a shared side
 * takes at most it, chosen by the bank model: the test counts the
 * wavefronts of the plan's warp-wide accesses to T with a bank model of
 * its own (32 banks of 4 bytes; 32, 16 or 8 lanes per phase for 4, 8 or
 * 16-byte accesses), which must equal the compiler's, and every wider
 * width its loops allow must take more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

#define NMAX 3
#define SMAX (2 * NMAX)

/* One tensor's layout: each dimension's sub-iters (outer first, "nsub"
 * of them, the first "per[0]" dimension 0's, ...) with their strides. */
typedef struct side {
    int nsub, per[NMAX];
    int64_t ext[SMAX], stride[SMAX], off;
} side;

typedef struct pcase {
    int ndim, es, threads;
    int64_t ext[NMAX];
    side t, g, h, k; /* the tile, G, H, K */
} pcase;

static const char *dtype_name(int es)
{
    return es == 1 ? "i8" : es == 2 ? "f16" : "f32";
}

/* Split each dimension into one or two sub-iters. */
static void random_split(const pcase *c, side *s)
{
    s->nsub = 0;
    for (int d = 0; d < c->ndim; d++) {
        int64_t e = c->ext[d], f = e >= 4 && tl_range(0, 1) ? 2 : 1;
        while (f > 1 && f * 2 < e && tl_range(0, 1))
            f *= 2;
        s->per[d] = f > 1 ? 2 : 1;
        if (f > 1)
            s->ext[s->nsub++] = f;
        s->ext[s->nsub++] = e / f;
    }
}

/* Strides of a random order of the sub-iters, padded now and then. */
static void random_side(const pcase *c, side *s, bool offset)
{
    int perm[SMAX], k;
    int64_t st = tl_range(0, 5) == 0 ? 2 : 1;
    random_split(c, s);
    for (k = 0; k < s->nsub; k++)
        perm[k] = k;
    for (k = s->nsub - 1; k > 0; k--) {
        int j = (int)tl_range(0, k), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (k = s->nsub - 1; k >= 0; k--) {
        s->stride[perm[k]] = st;
        st = st * s->ext[perm[k]] + (tl_range(0, 4) == 0 ? tl_range(1, 8) : 0);
    }
    s->off =
        offset ? tl_range(0, 3) * (int64_t[]){1, 2, 4, 8}[tl_range(0, 3)] : 0;
}

/* Now and then "s" takes the sub-iters and strides of "o" (its offset
 * kept). */
static void like(side *s, const side *o)
{
    int64_t off = s->off;
    if (tl_range(0, 1) == 0)
        return;
    *s = *o;
    s->off = off;
}

static void random_case(pcase *c)
{
    static const int64_t exts[] = {1, 2, 3, 4, 8, 16};
    int64_t n;
    do {
        c->ndim = (int)tl_range(2, 3);
        n = 1;
        for (int d = 0; d < c->ndim; d++)
            n *= c->ext[d] = exts[tl_range(0, 5)];
    } while (n < 2 || n > 2048);
    c->es = (int)(int64_t[]){1, 2, 4}[tl_range(0, 2)];
    c->threads = (int)(32 * tl_range(1, 8));
    random_side(c, &c->t, false);
    random_side(c, &c->g, true);
    random_side(c, &c->h, true);
    random_side(c, &c->k, true);
    like(&c->g, &c->t); /* runs contiguous in both: now and then */
    like(&c->h, &c->t);
    like(&c->k, &c->g);
}

/* The address of row-major element "x" in "s". */
static int64_t address(const pcase *c, const side *s, int64_t x)
{
    int64_t a = s->off;
    int k = s->nsub;
    for (int d = c->ndim - 1; d >= 0; d--) {
        int64_t q = x % c->ext[d];
        x /= c->ext[d];
        for (int j = 0; j < s->per[d]; j++) {
            k--;
            a += q % s->ext[k] * s->stride[k];
            q /= s->ext[k];
        }
    }
    return a;
}

static int64_t elements(const pcase *c)
{
    int64_t n = 1;
    for (int d = 0; d < c->ndim; d++)
        n *= c->ext[d];
    return n;
}

static int64_t span(const pcase *c, const side *s)
{
    int64_t m = 0;
    for (int64_t x = 0; x < elements(c); x++) {
        int64_t a = address(c, s, x);
        m = a > m ? a : m;
    }
    return m + 1;
}

static void put_layout(char *b, size_t cap, const side *s)
{
    int n = snprintf(b, cap, "S[(");
    for (int k = 0; k < s->nsub; k++)
        n += snprintf(b + n, cap - (size_t)n, "%s%lld", k ? ", " : "",
                      (long long)s->ext[k]);
    n += snprintf(b + n, cap - (size_t)n, "):(");
    for (int k = 0; k < s->nsub; k++)
        n += snprintf(b + n, cap - (size_t)n, "%s%lld", k ? ", " : "",
                      (long long)s->stride[k]);
    snprintf(b + n, cap - (size_t)n, ")] + %lld", (long long)s->off);
}

static void kernel_text(const pcase *c, char *b, size_t cap)
{
    char t[160], g[160], h[160], k[160], shape[64];
    const char *dt = dtype_name(c->es);
    int n = 0;
    put_layout(t, sizeof t, &c->t);
    put_layout(g, sizeof g, &c->g);
    put_layout(h, sizeof h, &c->h);
    put_layout(k, sizeof k, &c->k);
    for (int d = 0; d < c->ndim; d++)
        n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%lld",
                      d ? ", " : "", (long long)c->ext[d]);
    snprintf(b, cap,
             "kernel k(G: %s[%s] layout %s, H: %s[%s] layout %s,\n"
             "         K: %s[%s] layout %s)\n"
             "    grid(1) threads(%d)\n{\n"
             "    shared T: %s[%s] layout %s;\n"
             "    cta copy(T, G);\n    sync;\n    cta copy(H, T);\n"
             "    cta copy(K, G);\n}\n",
             dt, shape, g, dt, shape, h, dt, shape, k, c->threads, dt, shape,
             t);
}

/* inv[a]: the row-major index of the element at address a, or -1. */
static int64_t *inverse(const pcase *c, const side *s, int64_t *n)
{
    int64_t *inv;
    *n = span(c, s);
    inv = malloc((size_t)*n * sizeof *inv);
    for (int64_t a = 0; inv != NULL && a < *n; a++)
        inv[a] = -1;
    for (int64_t x = 0; inv != NULL && x < elements(c); x++)
        inv[address(c, s, x)] = x;
    return inv;
}

/* Whether "w"-element vectors can move dst <- src: every used address of
 * dst lies in a whole aligned block of w used ones, whose elements sit
 * at consecutive source addresses from a multiple of w. */
static bool blocks_ok(const pcase *c, const side *dst, const side *src,
                      int64_t w)
{
    int64_t nd, ns, *id = inverse(c, dst, &nd), *is = inverse(c, src, &ns);
    bool ok = id != NULL && is != NULL;
    for (int64_t a = 0; ok && a < nd; a++) {
        int64_t b = a - a % w, s0;
        if (id[a] < 0)
            continue;
        ok = b + w <= nd;
        for (int64_t j = 0; ok && j < w; j++)
            ok = id[b + j] >= 0;
        s0 = ok ? address(c, src, id[b]) : 0;
        ok =
            ok && s0 % w == 0 && s0 + (a - b) < ns && is[s0 + (a - b)] == id[a];
    }
    free(id);
    free(is);
    return ok;
}

static int64_t oracle_width(const pcase *c, const side *dst, const side *src)
{
    for (int64_t w = 16 / c->es; w >= 2; w /= 2)
        if (blocks_ok(c, dst, src, w))
            return w;
    return 1;
}

/* The addresses in "dst" and "src" of chunk "u" of "plan" at width "vec"
 * (operand 0 the destination); false past the last chunk. */
static bool chunk_addr(const ax_plan *plan, int64_t vec, int64_t u,
                       const side *dst, const side *src, int64_t *ad,
                       int64_t *as)
{
    int kin = axe__plan_innermost_loop(plan);
    *ad = dst->off;
    *as = src->off;
    for (int k = plan->nloops - 1; k >= 0; k--) {
        int64_t step = k == kin ? vec : 1;
        int64_t e = plan->loops[k].extent / step, digit = u % e * step;
        u /= e;
        *ad += digit * plan->loops[k].stride[0];
        *as += digit * plan->loops[k].stride[1];
    }
    return u == 0;
}

/* The wavefronts of one warp-wide access: lane l moves "width" bytes from
 * byte[l] when active[l]; 32 banks of 4-byte words, a phase of 32 lanes
 * for accesses up to 4 bytes, of 16 for 8 bytes, of 8 for 16; a phase
 * costs the most distinct words one bank serves in it. */
static int64_t access_wavefronts(const int64_t *byte, const bool *active,
                                 int64_t width)
{
    int64_t lanes = width <= 4 ? 32 : 128 / width, total = 0;
    for (int64_t p0 = 0; p0 < 32; p0 += lanes) {
        int64_t words[32 * 4], nw = 0, most = 0;
        for (int64_t l = p0; l < p0 + lanes; l++)
            for (int64_t b = byte[l] / 4; active[l] && b * 4 < byte[l] + width;
                 b++) {
                bool seen = false;
                for (int64_t j = 0; j < nw; j++)
                    seen = seen || words[j] == b;
                if (!seen)
                    words[nw++] = b;
            }
        for (int64_t bank = 0; bank < 32; bank++) {
            int64_t n = 0;
            for (int64_t j = 0; j < nw; j++)
                n += words[j] % 32 == bank;
            most = n > most ? n : most;
        }
        total += most;
    }
    return total;
}

/* The wavefronts of the accesses to T ("shared" 0: the destination, 1:
 * the source) of "plan" run at width "vec" by every warp. */
static int64_t plan_wavefronts(const pcase *c, const ax_plan *plan, int64_t vec,
                               const side *dst, const side *src, int shared)
{
    int64_t chunks = plan->total * plan->vec / vec, total = 0;
    int64_t jobs = (chunks + c->threads - 1) / c->threads;
    for (int64_t wp = 0; wp < (c->threads + 31) / 32; wp++)
        for (int64_t j = 0; j < jobs; j++) {
            int64_t byte[32], ad, as;
            bool active[32];
            for (int l = 0; l < 32; l++) {
                int64_t u = 32 * wp + l + j * c->threads;
                active[l] =
                    u < chunks && chunk_addr(plan, vec, u, dst, src, &ad, &as);
                byte[l] = (shared == 0 ? ad : as) * c->es;
            }
            total += access_wavefronts(byte, active, vec * c->es);
        }
    return total;
}

/* Whether "plan"'s loops at width "vec" move whole aligned vectors:
 * every chunk's vec addresses hold the same elements in both, in order,
 * from multiples of vec. */
static bool width_holds(const pcase *c, const ax_plan *plan, int64_t vec,
                        const side *dst, const side *src)
{
    int kin = axe__plan_innermost_loop(plan);
    int64_t nd, ns, *id = inverse(c, dst, &nd), *is = inverse(c, src, &ns);
    int64_t chunks = plan->total * plan->vec / vec, ad, as;
    bool ok = id != NULL && is != NULL && kin >= 0 &&
              plan->loops[kin].extent % vec == 0;
    for (int64_t u = 0; ok && u < chunks; u++) {
        ok = chunk_addr(plan, vec, u, dst, src, &ad, &as) && ad % vec == 0 &&
             as % vec == 0;
        for (int64_t e = 0; ok && e < vec; e++)
            ok = ad + e < nd && as + e < ns && id[ad + e] >= 0 &&
                 id[ad + e] == is[as + e];
    }
    free(id);
    free(is);
    return ok;
}

/* The plans drawn by kind, and (by_bank) those with a shared side whose
 * plan the bank model took over the first widest candidate (fewer
 * wavefronts: another loop order or a narrower width). */
typedef struct tally {
    int vec_inner, vec_other, vec_sub, scalar, by_bank;
} tally;

/* Every element once, in pairs of the same element, aligned vectors. */
static void check_moves(const pcase *c, const ax_plan *plan, const side *dst,
                        const side *src, const char *text)
{
    int64_t nd, ns, *id = inverse(c, dst, &nd), *is = inverse(c, src, &ns);
    int64_t *seen = calloc((size_t)elements(c), sizeof *seen), bad = 0, ad, as;
    for (int64_t u = 0; u < plan->total; u++) {
        (void)chunk_addr(plan, plan->vec, u, dst, src, &ad, &as);
        bad += plan->vec > 1 && (ad % plan->vec != 0 || as % plan->vec != 0);
        for (int64_t e = 0; e < plan->vec; e++) {
            int64_t xd = ad + e >= 0 && ad + e < nd ? id[ad + e] : -1;
            int64_t xs = as + e >= 0 && as + e < ns ? is[as + e] : -1;
            if (xd < 0 || xd != xs)
                bad++;
            else
                seen[xd]++;
        }
    }
    for (int64_t x = 0; x < elements(c); x++)
        bad += seen[x] != 1;
    TL_CHECK(bad == 0, "%lld bad accesses or elements\n%s", (long long)bad,
             text);
    free(id);
    free(is);
    free(seen);
}

/* The width: the oracle's for a global copy; for one with a shared side
 * ("shared" 0 or 1; -1: none) at most it (the widest candidate the
 * oracle's, more wavefronts where it was not chosen), its wavefronts the
 * compiler's, fewer than at any wider width of its loops. */
static void check_width(const pcase *c, const ax_plan *plan, const side *dst,
                        const side *src, int shared, const char *text,
                        tally *ty)
{
    int64_t want = oracle_width(c, dst, src), mine;
    if (shared < 0 || plan->vec < 2) {
        TL_CHECK(plan->vec == want, "width %lld, oracle %lld\n%s",
                 (long long)plan->vec, (long long)want, text);
        return;
    }
    TL_CHECK(plan->vec <= want && plan->bank.widest == want,
             "width %lld, widest candidate %lld, oracle %lld\n%s",
             (long long)plan->vec, (long long)plan->bank.widest,
             (long long)want, text);
    TL_CHECK(plan->vec == want ||
                 plan->bank.wavefronts < plan->bank.widest_wavefronts,
             "narrower than the widest without fewer wavefronts\n%s", text);
    mine = plan_wavefronts(c, plan, plan->vec, dst, src, shared);
    TL_CHECK(mine == plan->bank.wavefronts,
             "wavefronts %lld, the compiler's %lld\n%s", (long long)mine,
             (long long)plan->bank.wavefronts, text);
    for (int64_t w = 2 * plan->vec; w * c->es <= 16; w *= 2)
        if (width_holds(c, plan, w, dst, src))
            TL_CHECK(plan_wavefronts(c, plan, w, dst, src, shared) > mine,
                     "width %lld takes no fewer wavefronts than %lld\n%s",
                     (long long)w, (long long)plan->vec, text);
    ty->by_bank += plan->bank.wavefronts < plan->bank.widest_wavefronts;
}

static void check_plan(const pcase *c, const ax_plan *plan, const side *dst,
                       const side *src, int shared, const char *text, tally *ty)
{
    int kin = axe__plan_innermost_loop(plan);
    TL_CHECK(plan->kind == AX_PLAN_SPLIT && kin >= 0,
             "a split plan with loops\n%s", text);
    if (plan->kind != AX_PLAN_SPLIT || kin < 0)
        return;
    check_moves(c, plan, dst, src, text);
    check_width(c, plan, dst, src, shared, text, ty);
    if (plan->vec > 1 && plan->order.nsub > 0)
        ty->vec_sub++;
    else if (plan->vec > 1 && plan->loops[kin].dim == c->ndim - 1)
        ty->vec_inner++;
    else if (plan->vec > 1)
        ty->vec_other++;
    else
        ty->scalar++;
}

static void one_case(tally *ty)
{
    pcase c;
    char text[2048];
    axe_program *p = NULL;
    axe_diag d;
    axe_status st;
    random_case(&c);
    kernel_text(&c, text, sizeof text);
    axe_diag_clear(&d);
    st = axe__program_new(text, strlen(text), NULL, NULL, &p);
    if (st == AXE_OK)
        st = axe__program_parse(p, &d);
    if (st == AXE_OK)
        st = axe__program_check(p, &d);
    if (st == AXE_OK)
        st = axe__program_dispatch(p, &d);
    TL_CHECK(st == AXE_OK && p->nops == 3, "%s: %s\n%s", axe_status_name(st),
             d.message, text);
    if (st == AXE_OK && p->nops == 3) {
        check_plan(&c, p->ops[0]->plan, &c.t, &c.g, 0, text, ty);
        check_plan(&c, p->ops[1]->plan, &c.h, &c.t, 1, text, ty);
        check_plan(&c, p->ops[2]->plan, &c.k, &c.g, -1, text, ty);
    }
    axe_program_free(p);
}

int main(void)
{
    tally ty = {0, 0, 0, 0, 0};
    tl_seed("test_compiler_plan", 20261130);
    for (int k = 0; k < 400; k++)
        one_case(&ty);
    printf("vectors along the last dim %d, along another %d, along a run "
           "of sub-iters %d, scalar %d; chosen over the first widest by the "
           "bank model %d\n",
           ty.vec_inner, ty.vec_other, ty.vec_sub, ty.scalar, ty.by_bank);
    TL_CHECK(ty.vec_inner >= 20 && ty.vec_other >= 20 && ty.vec_sub >= 20 &&
                 ty.scalar >= 20,
             "every kind of plan is drawn");
    /* check_width's wavefront checks run on plans the bank model chose
       (about 15 of the 800 with a shared side; none if it were ignored) */
    TL_CHECK(ty.by_bank >= 5, "%d plans chosen by the bank model", ty.by_bank);
    return tl_finish();
}
