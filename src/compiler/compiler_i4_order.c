/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether whole-byte i4 stores (axe__i4_plan_pair, compiler_i4.c) keep
 * what a copy from its own destination tensor reads (docs/compiler.md,
 * "Packed i4"). The nibble path runs the plan's loop nest element by
 * element: read the source, store the nibble. Paired on loop k, the nest
 * runs k in steps of 2 and, in one step (a "group"), at each digit of the
 * loops inside k, reads the sources of digits 2m and 2m + 1, then stores
 * their byte: two elements of one cell (a thread, the digits of the loops
 * outside k, m) change order. Element e (its parity p_e = digit % 2 and
 * the index i_e of its inner digits, row-major) reads what element f
 * stored before it, or the tensor's old value; a read returns the same in
 * both orders unless some f of the same cell with the other parity stores
 * the address e reads and the orders disagree on which comes first: the
 * nibble path stores f first iff p_f < p_e, or p_f = p_e and i_f < i_e;
 * the pairs iff i_f < i_e. So they disagree when p_f = 0, p_e = 1, i_f >=
 * i_e, or p_f = 1, p_e = 0, i_f < i_e. (Elements of one parity keep their
 * order, and no two of different parity store one address: the low ones'
 * are even, the high ones' odd.)
 *
 * With a source on the destination's tensor through the same layout (no
 * view, no broadcast; dynamic start terms equal in both, so their
 * difference is static), f stores what e reads iff
 *   D = Bs - Bd = p_f - p_e * s_k + Id(i_f) - Is(i_e),
 * where Bd, Bs are the cell's destination and source addresses (the
 * static bases, thread digits, outer digits, 2m along k), s_k loop k's
 * source stride and Id, Is the inner digits' address terms. The values
 * of D for which some disagreeing (e, f) exists are listed once; every
 * cell's D is then looked up. A shift of one element along a stride-1
 * copy (X[2:4] from X[1:3]) gives D = -1: the pair would read X[2]
 * before the store of X[2]; a shift of +1 is safe. Invariant: true only
 * when every read of the paired nest returns what the nibble path's read
 * returns; false where it cannot be shown (views, broadcasts, differing
 * dynamic terms, sizes above the limit).
 */
#include <stdlib.h>

#include "compiler_internal.h"

/* The most cells one check visits, and inner points per cell (so at
 * most 2^21 (e, f) pairs). */
#define AX_I4_ORDER_MAX ((int64_t)1 << 22)
#define AX_I4_ORDER_INNER ((int64_t)1 << 10)

typedef struct order_ctx {
    const ax_plan *plan;
    int k, i;      /* the pair loop; the source operand */
    int64_t inner; /* points of the non-thread loops inside k */
    int64_t *bad;  /* the disagreeing values of D, sorted */
    int64_t nbad;
    int64_t delta; /* Bs - Bd of the static bases */
} order_ctx;

static int by_value(const void *a, const void *b)
{
    int64_t u = *(const int64_t *)a, v = *(const int64_t *)b;
    return u < v ? -1 : u > v;
}

/* Operand "op"'s address term of inner point "x" (row-major over the
 * non-thread loops inside k). */
static int64_t inner_addr(const order_ctx *c, int op, int64_t x)
{
    int64_t a = 0;
    for (int j = c->plan->nloops - 1; j > c->k; j--) {
        const ax_loop *lp = &c->plan->loops[j];
        if (lp->thread)
            continue;
        a += x % lp->extent * lp->stride[op];
        x /= lp->extent;
    }
    return a;
}

/* The values of D at which the two orders disagree (file comment). */
static bool list_bad(order_ctx *c)
{
    int64_t n = 0, sk = c->plan->loops[c->k].stride[c->i];
    c->bad = malloc((size_t)(c->inner * c->inner) * sizeof *c->bad);
    if (c->bad == NULL)
        return false;
    for (int64_t ie = 0; ie < c->inner; ie++)
        for (int64_t jf = 0; jf < c->inner; jf++) {
            int64_t d = inner_addr(c, 0, jf) - inner_addr(c, c->i, ie);
            if (jf >= ie) /* f low, e high */
                c->bad[n++] = d - sk;
            else /* f high, e low */
                c->bad[n++] = d + 1;
        }
    qsort(c->bad, (size_t)n, sizeof *c->bad, by_value);
    c->nbad = n;
    return true;
}

static bool is_bad(const order_ctx *c, int64_t d)
{
    return bsearch(&d, c->bad, (size_t)c->nbad, sizeof d, by_value) != NULL;
}

/* Whether the cells of thread "r" (their outer digits and m enumerated
 * as "u") all have a D outside the list. */
static bool rank_safe(const order_ctx *c, int64_t r, int64_t cells)
{
    const ax_plan *pl = c->plan;
    for (int64_t u = 0; u < cells; u++) {
        int64_t d = c->delta, q = u;
        for (int j = c->k; j >= 0; j--) {
            const ax_loop *lp = &pl->loops[j];
            int64_t e = j == c->k ? lp->extent / 2 : lp->extent;
            int64_t g = j == c->k ? 2 : 1;
            if (lp->thread)
                continue;
            d += q % e * g * (lp->stride[c->i] - lp->stride[0]);
            q /= e;
        }
        for (int j = 0; j < pl->nloops; j++) {
            const ax_loop *lp = &pl->loops[j];
            if (lp->thread)
                d += r / lp->rank_div % lp->extent *
                     (lp->stride[c->i] - lp->stride[0]);
        }
        if (is_bad(c, d))
            return false;
    }
    return true;
}

/* Whether source "i" has the destination's dynamic start terms, and its
 * static base difference into "delta". */
static bool same_dynamic(const axe_program *p, const ax_stmt *s, int i,
                         int64_t *delta)
{
    ax_base bd, bs;
    axe__plan_base(p, &s->args[0], &bd);
    axe__plan_base(p, &s->args[i], &bs);
    if (bd.ndyn != bs.ndyn)
        return false;
    for (int j = 0; j < bd.ndyn; j++)
        if (bd.scale[j] != bs.scale[j] || !axe__expr_same(bd.dyn[j], bs.dyn[j]))
            return false;
    *delta = bs.cst - bd.cst;
    return true;
}

/* Source "i" on the destination's tensor: every cell checked. */
static bool source_safe(const axe_program *p, const ax_stmt *s,
                        const ax_plan *plan, int k, int i)
{
    const ax_ref *d = &s->args[0], *r = &s->args[i];
    order_ctx c = {plan, k, i, 1, NULL, 0, 0};
    int64_t cells = 1, ranks = plan->kind == AX_PLAN_BOUND ? plan->nthreads : 1;
    bool ok;
    if (r->is_view || d->is_view || r->bdim >= 0 || d->bdim >= 0 ||
        !plan->affine[i] || !same_dynamic(p, s, i, &c.delta))
        return false;
    for (int j = 0; j < plan->nloops; j++) {
        const ax_loop *lp = &plan->loops[j];
        if (lp->thread)
            continue;
        if (j > k)
            c.inner *= lp->extent;
        else
            cells *= j == k ? lp->extent / 2 : lp->extent;
    }
    if (c.inner > AX_I4_ORDER_INNER || cells > AX_I4_ORDER_MAX / ranks ||
        !list_bad(&c))
        return false;
    ok = true;
    for (int64_t rk = 0; ok && rk < ranks; rk++)
        ok = rank_safe(&c, rk, cells);
    free(c.bad);
    return ok;
}

bool axe__i4_pair_keeps_reads(const axe_program *p, const ax_stmt *s,
                              const ax_plan *plan, int k)
{
    for (int i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == s->args[0].tensor &&
            !source_safe(p, s, plan, k, i))
            return false;
    return true;
}
