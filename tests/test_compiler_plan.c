/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copy plans against brute force (docs/compiler.md, "Dispatch",
 * copy.vector): random CTA copies between a shared tile with a random
 * written layout (a permutation of its dimensions, compact or padded) and
 * a global view with another (at a random offset), at random thread
 * counts and dtypes, both ways. Each dispatched plan is run the way the
 * emitted code runs a split plan (chunk u = rank + j * threads, its digits
 * innermost first, the innermost loop in steps of the vector; one access
 * moves the vec consecutive addresses from the chunk's) and checked with
 * the test's own inverse tables of the two layouts: every element of the
 * tile copied exactly once, each address pair holding the same logical
 * element, every vector aligned in both tensors. The width must be the
 * widest that an independent oracle allows: a run of dimensions at stride
 * 1, then at the run's length, in both operands (any dimension, not only
 * the last), every other stride and both offsets multiples of the width,
 * 4, 8 or 16 bytes; else scalar.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"
#include "testlib.h"

#define NMAX 3

typedef struct side {
    int64_t stride[NMAX], off;
} side;

typedef struct pcase {
    int ndim, es, threads;
    int64_t ext[NMAX];
    side sh, gl, gl2; /* the tile, the view read, the view written */
} pcase;

static const char *dtype_name(int es)
{
    return es == 1 ? "i8" : es == 2 ? "f16" : "f32";
}

/* Strides of a random order of the dimensions, padded now and then. */
static void random_side(const pcase *c, side *s, bool offset)
{
    int perm[NMAX], k;
    int64_t st = tl_range(0, 5) == 0 ? 2 : 1;
    for (k = 0; k < c->ndim; k++)
        perm[k] = k;
    for (k = c->ndim - 1; k > 0; k--) {
        int j = (int)tl_range(0, k), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (k = c->ndim - 1; k >= 0; k--) {
        s->stride[perm[k]] = st;
        st = st * c->ext[perm[k]] + (tl_range(0, 4) == 0 ? tl_range(1, 8) : 0);
    }
    s->off =
        offset ? tl_range(0, 3) * (int64_t[]){1, 2, 4, 8}[tl_range(0, 3)] : 0;
}

static int64_t span(const pcase *c, const side *s)
{
    int64_t m = s->off;
    for (int d = 0; d < c->ndim; d++)
        m += (c->ext[d] - 1) * s->stride[d];
    return m + 1;
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
    random_side(c, &c->sh, false);
    random_side(c, &c->gl, true);
    random_side(c, &c->gl2, true);
}

static int put_layout(char *b, size_t cap, const pcase *c, const side *s)
{
    int n = snprintf(b, cap, "S[(");
    for (int d = 0; d < c->ndim; d++)
        n += snprintf(b + n, cap - (size_t)n, "%s%lld", d ? ", " : "",
                      (long long)c->ext[d]);
    n += snprintf(b + n, cap - (size_t)n, "):(");
    for (int d = 0; d < c->ndim; d++)
        n += snprintf(b + n, cap - (size_t)n, "%s%lld", d ? ", " : "",
                      (long long)s->stride[d]);
    return n + snprintf(b + n, cap - (size_t)n, ")]");
}

static void kernel_text(const pcase *c, char *b, size_t cap)
{
    char sh[128], gl[128], gl2[128], shape[64];
    int n = 0;
    put_layout(sh, sizeof sh, c, &c->sh);
    put_layout(gl, sizeof gl, c, &c->gl);
    put_layout(gl2, sizeof gl2, c, &c->gl2);
    for (int d = 0; d < c->ndim; d++)
        n += snprintf(shape + n, sizeof shape - (size_t)n, "%s%lld",
                      d ? ", " : "", (long long)c->ext[d]);
    snprintf(b, cap,
             "kernel k(G: %s[%lld], H: %s[%lld])\n"
             "    grid(1) threads(%d)\n{\n"
             "    shared T: %s[%s] layout %s;\n"
             "    cta copy(T, G.view(%s + %lld));\n"
             "    sync;\n"
             "    cta copy(H.view(%s + %lld), T);\n}\n",
             dtype_name(c->es), (long long)span(c, &c->gl), dtype_name(c->es),
             (long long)span(c, &c->gl2), c->threads, dtype_name(c->es), shape,
             sh, gl, (long long)c->gl.off, gl2, (long long)c->gl2.off);
}

/* inv[a]: the row-major index of the element at address a, or -1. */
static int64_t *inverse(const pcase *c, const side *s, int64_t *n)
{
    int64_t total = 1, *inv;
    *n = span(c, s);
    inv = malloc((size_t)*n * sizeof *inv);
    for (int64_t a = 0; inv != NULL && a < *n; a++)
        inv[a] = -1;
    for (int d = 0; d < c->ndim; d++)
        total *= c->ext[d];
    for (int64_t x = 0; inv != NULL && x < total; x++) {
        int64_t a = s->off, q = x;
        for (int d = c->ndim - 1; d >= 0; d--) {
            a += q % c->ext[d] * s->stride[d];
            q /= c->ext[d];
        }
        inv[a] = x;
    }
    return inv;
}

/* The oracle's widest vector of "es"-byte elements between "a" and "b". */
static int64_t oracle_width(const pcase *c, const side *a, const side *b)
{
    for (int64_t w = 16 / c->es; w >= 2; w /= 2) {
        bool used[NMAX] = {false}, ok = a->off % w == 0 && b->off % w == 0;
        int64_t run = 1;
        for (bool grew = true; ok && grew;) {
            grew = false;
            for (int d = 0; d < c->ndim; d++)
                if (!used[d] && c->ext[d] > 1 && a->stride[d] == run &&
                    b->stride[d] == run) {
                    used[d] = grew = true;
                    run *= c->ext[d];
                }
        }
        ok = ok && run % w == 0;
        for (int d = 0; ok && d < c->ndim; d++)
            ok = used[d] || c->ext[d] == 1 ||
                 (a->stride[d] % w == 0 && b->stride[d] % w == 0);
        if (ok)
            return w;
    }
    return 1;
}

typedef struct tally {
    int vec_inner, vec_other, scalar;
} tally;

/* Run "plan" (the copy dst <- src) as the emitted code does; check it. */
static void check_plan(const pcase *c, const ax_plan *plan, const side *dst,
                       const side *src, const char *text, tally *ty)
{
    int64_t nd, ns, *id = inverse(c, dst, &nd), *is = inverse(c, src, &ns);
    int64_t total = 1, *seen, bad = 0, want = oracle_width(c, dst, src);
    int kin = -1;
    for (int d = 0; d < c->ndim; d++)
        total *= c->ext[d];
    seen = calloc((size_t)total, sizeof *seen);
    for (int k = 0; k < plan->nloops; k++)
        if (!plan->loops[k].thread)
            kin = k;
    TL_CHECK(plan->kind == AX_PLAN_SPLIT && kin >= 0,
             "a split plan with loops\n%s", text);
    TL_CHECK(plan->vec == want, "width %lld, oracle %lld\n%s",
             (long long)plan->vec, (long long)want, text);
    for (int64_t u0 = 0; kin >= 0 && u0 < plan->total; u0++) {
        int64_t u = u0, ad = dst->off, as = src->off;
        for (int k = plan->nloops - 1; k >= 0; k--) {
            int64_t step = k == kin ? plan->vec : 1;
            int64_t e = plan->loops[k].extent / step, digit = u % e * step;
            u /= e;
            ad += digit * plan->loops[k].stride[0];
            as += digit * plan->loops[k].stride[1];
        }
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
    for (int64_t x = 0; x < total; x++)
        bad += seen[x] != 1;
    TL_CHECK(bad == 0, "%lld bad accesses or elements\n%s", (long long)bad,
             text);
    if (plan->vec > 1 && plan->loops[kin].dim == c->ndim - 1)
        ty->vec_inner++;
    else if (plan->vec > 1)
        ty->vec_other++;
    else
        ty->scalar++;
    free(id);
    free(is);
    free(seen);
}

static void one_case(tally *ty)
{
    pcase c;
    char text[1024];
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
    TL_CHECK(st == AXE_OK && p->nops == 2, "%s: %s\n%s", axe_status_name(st),
             d.message, text);
    if (st == AXE_OK && p->nops == 2) {
        check_plan(&c, p->ops[0]->plan, &c.sh, &c.gl, text, ty);
        check_plan(&c, p->ops[1]->plan, &c.gl2, &c.sh, text, ty);
    }
    axe_program_free(p);
}

int main(void)
{
    tally ty = {0, 0, 0};
    tl_seed("test_compiler_plan", 20261129);
    for (int k = 0; k < 400; k++)
        one_case(&ty);
    printf("vectors along the last dim %d, along another %d, scalar %d\n",
           ty.vec_inner, ty.vec_other, ty.scalar);
    TL_CHECK(ty.vec_inner >= 20 && ty.vec_other >= 20 && ty.scalar >= 20,
             "every kind of plan is drawn");
    return tl_finish();
}
