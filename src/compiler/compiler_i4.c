/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Store granularity of packed i4 (docs/compiler.md, "i4"): element x of a
 * tensor's storage is nibble x % 2 of byte x / 2, and a store rewrites
 * its whole byte (read, replace the nibble, write back). Two threads that
 * store the two nibbles of one byte without a barrier lose one of the
 * stores, so a plan that makes two threads of one operator instance
 * write different nibbles of one byte of a global or shared i4
 * destination is refused. Reads may share bytes, and register tensors
 * are per thread (no byte is shared). Invariant: the check is exact for
 * affine plans (brute force over the instance's elements, both parities
 * of the base address when the region start's parity is unknown; a
 * swizzled destination is checked on its tile addresses, since an i4
 * swizzle moves whole bytes);
 * non-affine destinations are refused; conflicts between instances (two
 * warps, two CTAs) are the race detector's (compiler_race.c). A plan
 * whose thread stores both nibbles of each byte along one loop stores the
 * byte whole (axe__i4_plan_pair: no read).
 */
#include <stdlib.h>

#include "compiler_internal.h"

/* The most elements and bytes one check visits. */
#define AX_I4_CHECK_MAX ((int64_t)1 << 24)

/* One byte of the destination: the first thread storing each nibble and
 * whether another thread stores it too. */
typedef struct i4_byte {
    int64_t first[2];
    bool many[2];
} i4_byte;

typedef struct i4_walk {
    const ax_plan *plan;
    i4_byte *bytes;
    int64_t lo;  /* the smallest relative address, rounded down to even */
    int64_t par; /* the base address's parity */
    int64_t rank, addr, rank2, addr2; /* a conflict found */
    bool conflict;
} i4_walk;

/* The smallest and largest address relative to the base over the plan's
 * digits. */
static void rel_range(const ax_plan *plan, int64_t *lo, int64_t *hi)
{
    int k;
    *lo = *hi = 0;
    for (k = 0; k < plan->nloops; k++) {
        int64_t r = (plan->loops[k].extent - 1) * plan->loops[k].stride[0];
        *(r < 0 ? lo : hi) += r;
    }
}

/* Rank "rank" stores the element at relative address "rel". */
static void visit(i4_walk *w, int64_t rank, int64_t rel)
{
    int64_t a = w->par + rel - w->lo;
    i4_byte *b = &w->bytes[a / 2];
    int n = (int)(a % 2), o = 1 - n;
    if (w->conflict)
        return;
    if (b->first[n] < 0)
        b->first[n] = rank;
    else if (b->first[n] != rank)
        b->many[n] = true;
    if (b->first[o] < 0 || (b->first[o] == rank && !b->many[o]))
        return;
    w->conflict = true;
    w->rank = rank;
    w->addr = rel;
    w->rank2 = b->first[o] != rank ? b->first[o] : -1;
    w->addr2 = rel + (n == 0 ? 1 : -1);
}

/* Every element of a split plan: flat index u goes to rank u % nthreads
 * (compiler_emit_op.c's split_loops, one element per access; with
 * plan->pair, u counts pairs: the pair loop, the innermost, in steps of
 * 2, both of a pair's elements to one rank). */
static void walk_split(i4_walk *w)
{
    const ax_plan *plan = w->plan;
    int64_t step = plan->pair > 0 ? 2 : 1;
    for (int64_t u = 0; u < plan->total / step && !w->conflict; u++) {
        int64_t rel = 0, q = u;
        for (int k = plan->nloops - 1; k >= 0; k--) {
            int64_t g = plan->pair == k + 1 ? 2 : 1;
            int64_t e = plan->loops[k].extent / g;
            rel += q % e * g * plan->loops[k].stride[0];
            q /= e;
        }
        visit(w, u % plan->nthreads, rel);
        if (step == 2)
            visit(w, u % plan->nthreads,
                  rel + plan->loops[plan->pair - 1].stride[0]);
    }
}

/* Every element of a bound plan: each rank's thread digits, times every
 * point of the loops. */
static void walk_bound(i4_walk *w)
{
    const ax_plan *plan = w->plan;
    int64_t r, u;
    for (r = 0; r < plan->nthreads && !w->conflict; r++)
        for (u = 0; u < plan->total && !w->conflict; u++) {
            int64_t rel = 0, q = u;
            int k;
            for (k = plan->nloops - 1; k >= 0; k--) {
                const ax_loop *lp = &plan->loops[k];
                if (lp->thread) {
                    rel += r / lp->rank_div % lp->extent * lp->stride[0];
                    continue;
                }
                rel += q % lp->extent * lp->stride[0];
                q /= lp->extent;
            }
            visit(w, r, rel);
        }
}

static axe_status walk(i4_walk *w, int64_t nbytes, axe_diag *why)
{
    int64_t b;
    w->bytes = malloc((size_t)nbytes * sizeof *w->bytes);
    if (w->bytes == NULL)
        return axe__fail(why, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (b = 0; b < nbytes; b++) {
        w->bytes[b].first[0] = w->bytes[b].first[1] = -1;
        w->bytes[b].many[0] = w->bytes[b].many[1] = false;
    }
    w->conflict = false;
    if (w->plan->kind == AX_PLAN_SPLIT)
        walk_split(w);
    else
        walk_bound(w);
    free(w->bytes);
    return AXE_OK;
}

static axe_status refuse(const axe_program *p, const ax_stmt *s,
                         const i4_walk *w, const ax_base *base, axe_diag *why)
{
    const char *name = p->tensors[s->args[0].tensor].name;
    int64_t at = base->ndyn == 0 ? base->cst : 0;
    const char *plus = base->ndyn == 0 ? "" : " (+ the region start)";
    if (w->rank2 < 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "two threads write one byte of the i4 '%s': "
                         "thread %lld writes element address %lld%s and "
                         "another thread writes its byte partner %lld; a "
                         "packed store rewrites its whole byte (give each "
                         "thread whole bytes: pairs of elements x, x + 1 "
                         "with x even)",
                         name, (long long)w->rank, (long long)(at + w->addr),
                         plus, (long long)(at + w->addr2));
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                     "two threads write one byte of the i4 '%s': thread "
                     "%lld writes element address %lld%s and thread %lld "
                     "element address %lld; a packed store rewrites its "
                     "whole byte (give each thread whole bytes: pairs of "
                     "elements x, x + 1 with x even)",
                     name, (long long)w->rank, (long long)(at + w->addr), plus,
                     (long long)w->rank2, (long long)(at + w->addr2));
}

bool axe__base_parity_known(const ax_base *base)
{
    for (int j = 0; j < base->ndyn; j++)
        if (base->scale[j] % 2 != 0 && axe__expr_gcd(base->dyn[j]) % 2 != 0)
            return false;
    return true;
}

axe_status axe__i4_plan_check(const axe_program *p, const ax_stmt *s,
                              const ax_plan *plan, axe_diag *why)
{
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    i4_walk w = {0};
    ax_base base;
    int64_t lo, hi, n, par;
    if (t->dtype != AXE_DTYPE_I4 || t->mem == AX_MEM_REGISTER ||
        plan->kind == AX_PLAN_SERIAL || plan->nthreads < 2)
        return AXE_OK;
    /* a swizzle keeps each byte's nibbles together (sema: M >= 1), so
     * two elements share a byte iff their tile addresses do */
    if (!plan->affine[0])
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the i4 '%s' is not addressed affinely by this "
                         "plan: which threads share its bytes is not "
                         "checked",
                         t->name);
    rel_range(plan, &lo, &hi);
    lo -= (lo % 2 + 2) % 2;
    n = (hi - lo + 1) / 2 + 1;
    if (n > AX_I4_CHECK_MAX || plan->total > AX_I4_CHECK_MAX / plan->nthreads)
        return axe__fail(why, AXE_ERR_CAPACITY, -1,
                         "the i4 '%s': the check that no two threads write "
                         "one byte visits at most 2^24 elements and bytes "
                         "per operator instance",
                         t->name);
    axe__plan_base(p, &s->args[0], &base);
    w.plan = plan;
    w.lo = lo;
    for (par = 0; par < 2; par++) {
        if (axe__base_parity_known(&base) && par != ((base.cst % 2) + 2) % 2)
            continue;
        w.par = par;
        AXE_TRY(walk(&w, n, why));
        if (w.conflict)
            return refuse(p, s, &w, &base, why);
    }
    return AXE_OK;
}

/* Whether operand "r"'s base address is even for every value of its
 * dynamic parts. */
static bool base_even(const axe_program *p, const ax_ref *r)
{
    ax_base b;
    axe__plan_base(p, r, &b);
    return b.cst % 2 == 0 && axe__base_parity_known(&b);
}

/* Whether a source of split "s" is its destination's tensor: a split deals
 * a byte's two nibbles to two threads element by element, so the orders of
 * an overlapping self-copy are not one thread's (no pair). */
static bool split_self(const ax_stmt *s)
{
    for (int i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == s->args[0].tensor)
            return true;
    return false;
}

/* Element pairs (digit 2m, 2m + 1 of loop k, the others fixed) are bytes
 * of the destination: loop k is at stride 1 and even extent and every
 * other address term is even, so digit 2m's element address is even and
 * 2m + 1's is the next; a thread's loops run every pair of its own. A
 * swizzle keeps bytes whole (sema: M >= 1), so the tile pair stays one
 * byte, low nibble first; a view's swizzle gets the same rule
 * (compiler_swizzle.c), so a run below 2 (M = 0) here is only defence. No pair
 * where a source on the destination's tensor would read another value than
 * element by element (axe__i4_pair_keeps_reads, compiler_i4_order.c). A
 * register destination read from shared memory pairs too: where the copy runs
 * as ldmatrix (compiler_copy_ldsm.c, CUDA) the instruction writes the register
 * words and the plan's stores are not emitted; pair only changes how the
 * element loop stores (its loads and their count are the same). */
int axe__plan_pair_loop(const axe_program *p, const ax_stmt *s,
                        const ax_plan *plan, int i)
{
    int pair = -1;
    if (!base_even(p, &s->args[i]))
        return 0;
    for (int k = plan->nloops - 1; k >= 0; k--) {
        const ax_loop *lp = &plan->loops[k];
        if (pair < 0 && !lp->thread && lp->stride[i] == 1 &&
            lp->extent % 2 == 0)
            pair = k;
        else if (lp->extent > 1 && lp->stride[i] % 2 != 0)
            return 0;
    }
    return pair + 1;
}

void axe__i4_plan_pair(const axe_program *p, const ax_stmt *s, ax_plan *plan)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    int pair;
    plan->pair = 0;
    if (dst->dtype != AXE_DTYPE_I4 ||
        (s->op != AX_OP_COPY && s->op != AX_OP_CAST) || plan->vec != 1 ||
        !plan->affine[0] || (plan->kind == AX_PLAN_SPLIT && split_self(s)))
        return;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].any_masked)
            return;
    if (axe__swizzle_run(p, &s->args[0]) < 2)
        return;
    pair = axe__plan_pair_loop(p, s, plan, 0) - 1;
    if (plan->kind == AX_PLAN_SPLIT && pair != axe__plan_innermost_loop(plan))
        return; /* pairs are dealt as the flat index's chunks of 2 */
    if (pair >= 0 && axe__i4_pair_keeps_reads(p, s, plan, pair))
        plan->pair = pair + 1;
}
