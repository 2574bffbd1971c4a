/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Vectorizing a copy plan and describing plans. A copy's innermost loop
 * moves w elements per access when max_common_vector of the source's and
 * the destination's per-thread layouts (CuTe layouts over the loop digits,
 * innermost first) is a multiple of w, w >= 2 and w * elem_size is at
 * most 16 bytes (4, 8 or 16; 2 for a pair of i8), the innermost loop is
 * at stride 1 in both operands, and every other stride and the base
 * offsets of both operands are multiples of w (so each access is
 * w-aligned). A packed
 * i4 copy moves w = 8, 16 or 32 elements: 4, 8 or 16 whole bytes from an
 * even element address (docs/compiler.md, "Packed i4").
 *
 * The vector runs along whichever dimension is contiguous in both
 * operands: the plan is laid out in dimension order and then in each
 * order of axe__plan_orders (each dimension innermost, the dimensions
 * sorted by either operand's strides, so that a run of several
 * dimensions contiguous in both coalesces into one loop); the widest
 * vector wins, ties the earlier. A split plan deals its chunks in the
 * chosen order, so consecutive threads take consecutive vectors.
 *
 * A masked operand keeps the vector: the emitted C tests each chunk at
 * run time (its w elements inside the tensor in every masked dimension:
 * the chunk's first and last coordinates along the innermost loop's
 * dimension, which grow with its digit) and accesses a chunk that passes
 * as one vector; the others, at a tile's edge, element by element with
 * their guards, which is the per-element rule of the reference. When the
 * innermost loop's dimension is not masked, the test does not change
 * along that loop and is made once per loop (axe__plan_masked_rows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_smem.h"

/* Static and dynamic parts of the address of an affine operand's digit 0. */
void axe__plan_base(const axe_program *p, const ax_ref *r, ax_base *out)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const axe_layout *l = r->is_view ? &r->view : &t->layout;
    int i, d;
    memset(out, 0, sizeof *out);
    for (i = 0; i < l->noffset; i++)
        out->cst += l->offset[i].value;
    if (r->is_view) {
        if (r->view_dyn != NULL) {
            out->dyn[0] = r->view_dyn;
            out->scale[0] = 1;
            out->ndyn = 1;
        }
        return;
    }
    for (d = 0; d < r->ndim; d++) {
        int64_t s = 0;
        ax_cut cut;
        if (r->start[d] != NULL && axe__region_cut(p, r, d, &cut)) {
            out->cst += cut.cst;
            if (r->start[d]->kind != AX_EX_INT) {
                out->dyn[out->ndyn] = r->start[d];
                out->scale[out->ndyn++] = cut.scale;
            }
            continue;
        }
        for (i = t->seps[d]; i < t->seps[d + 1]; i++)
            if (t->grouped.shard[i].extent != 1)
                s = t->grouped.shard[i].stride;
        if (r->start[d] == NULL || s == 0)
            continue;
        if (r->start[d]->kind == AX_EX_INT) {
            out->cst += r->start[d]->value * s;
        } else {
            out->dyn[out->ndyn] = r->start[d];
            out->scale[out->ndyn++] = s;
        }
    }
}

/* The index of the innermost loop that is not a thread digit, or -1. */
int axe__plan_innermost_loop(const ax_plan *plan)
{
    int k;
    for (k = plan->nloops - 1; k >= 0; k--)
        if (!plan->loops[k].thread)
            return k;
    return -1;
}

bool axe__plan_masked_rows(const ax_stmt *s, const ax_plan *plan)
{
    int kin = axe__plan_innermost_loop(plan);
    return plan->vec > 1 && kin >= 0 &&
           (s->args[0].any_masked || s->args[1].any_masked) &&
           !axe__stmt_masked_dim(s, plan->loops[kin].dim);
}

/* CuTe layout of operand "i" over the loop digits, innermost first. */
static axe_status per_thread_cute(const ax_plan *plan, int i,
                                  axe_cute_layout *out)
{
    int64_t shape[AX_MAX_LOOPS], stride[AX_MAX_LOOPS];
    axe_tuple ts, td;
    int k, n = 0;
    for (k = plan->nloops - 1; k >= 0; k--)
        if (!plan->loops[k].thread) {
            shape[n] = plan->loops[k].extent;
            stride[n++] = plan->loops[k].stride[i];
        }
    if (n == 0) {
        shape[n] = 1;
        stride[n++] = 0;
    }
    AXE_TRY(axe_tuple_from_array(shape, n, &ts));
    AXE_TRY(axe_tuple_from_array(stride, n, &td));
    return axe_cute_make(&ts, &td, out);
}

/* The non-thread loops of "plan" that make up the run "run" (the leaves
 * of max_common_layout, their strides in the colexicographic index of the
 * non-thread loops, innermost first), fastest first, into "take": each
 * leaf is whole loops from the one at its stride on; a leaf that ends
 * inside a loop ends the run. Their number. */
static int run_loops(const ax_plan *plan, const axe_cute_layout *run, int *take)
{
    int pos[AX_MAX_LOOPS], n = 0, ntake = 0, k, i, j;
    int64_t at[AX_MAX_LOOPS], st = 1;
    for (k = plan->nloops - 1; k >= 0; k--)
        if (!plan->loops[k].thread) {
            pos[n] = k;
            at[n++] = st;
            st *= plan->loops[k].extent;
        }
    for (i = 0; i < run->shape.nleaf; i++) {
        int64_t rest = run->shape.v[i];
        for (j = 0; j < n && (rest == 1 || at[j] != run->stride[i]); j++)
            ;
        for (; rest > 1 && j < n && rest % plan->loops[pos[j]].extent == 0;
             j++) {
            take[ntake++] = pos[j];
            rest /= plan->loops[pos[j]].extent;
        }
        if (rest != 1)
            break;
    }
    return ntake;
}

/* Lay the non-thread loops of "plan" out in the order "seq" (loop
 * indices, outer first) in the places the non-thread loops hold (the
 * thread digits stay, but those among the "ntake" last ones, the run,
 * move just outside it, so that the run's loops are adjacent and
 * coalesce), recording the "ntake" last ones as taken out. */
static void lay_out(ax_plan *plan, const int *seq, int ntake)
{
    ax_loop old[AX_MAX_LOOPS], run[AX_MAX_LOOPS];
    int k, n = 0, first = -1, nrun = 0, at;
    int total = 0;
    memcpy(old, plan->loops, sizeof old);
    for (k = 0; k < plan->nloops; k++)
        total += !old[k].thread;
    for (k = 0; k < plan->nloops; k++)
        if (!old[k].thread) {
            if (n == total - ntake && ntake > 0)
                first = k;
            plan->loops[k] = old[seq[n++]];
        }
    for (k = first, at = first; first >= 0 && k < plan->nloops; k++)
        if (plan->loops[k].thread)
            plan->loops[at++] = plan->loops[k];
        else
            run[nrun++] = plan->loops[k];
    for (k = 0; first >= 0 && k < nrun; k++)
        plan->loops[at++] = run[k];
    plan->order.nsub = ntake;
    for (k = 0; k < ntake; k++) {
        const ax_loop *lp = &old[seq[n - ntake + k]];
        plan->order.sub_dim[k] = lp->dim;
        plan->order.sub_weight[k] = lp->weight;
        plan->order.sub_extent[k] = lp->extent;
    }
}

/* Whether a thread digit sits between two of the "ntake" innermost
 * non-thread loops of "plan" (the run, already in place): then the run's
 * loops are not adjacent and cannot coalesce until lay_out moves it. */
static bool threads_among(const ax_plan *plan, int ntake)
{
    int k, seen = 0;
    bool thread = false;
    for (k = plan->nloops - 1; k >= 0 && seen < ntake; k--)
        if (!plan->loops[k].thread)
            seen++;
        else if (seen > 0)
            thread = true;
    return thread && seen == ntake;
}

/* The contiguous run innermost (compiler_internal.h). */
void axe__plan_run_inner(ax_plan *plan)
{
    axe_cute_layout dst, src, run;
    int take[AX_MAX_LOOPS], seq[AX_MAX_LOOPS], ntake, n = 0, k, j;
    bool moved = false;
    if (!plan->affine[0] || !plan->affine[1] ||
        per_thread_cute(plan, 0, &dst) != AXE_OK ||
        per_thread_cute(plan, 1, &src) != AXE_OK ||
        axe_cute_max_common_layout(&dst, &src, &run) != AXE_OK)
        return;
    ntake = run_loops(plan, &run, take);
    for (k = 0; k < plan->nloops; k++) {
        bool taken = false;
        for (j = 0; j < ntake; j++)
            taken = taken || take[j] == k;
        if (!plan->loops[k].thread && !taken)
            seq[n++] = k;
    }
    for (j = ntake - 1; j >= 0; j--)
        seq[n++] = take[j];
    for (k = 0, j = 0; k < plan->nloops; k++)
        if (!plan->loops[k].thread)
            moved = moved || seq[j++] != k;
    if (moved || threads_among(plan, ntake))
        lay_out(plan, seq, ntake);
}

static bool aligned(const axe_program *p, const ax_stmt *s, const ax_plan *plan,
                    int kin, int64_t w)
{
    int i, k, j;
    for (i = 0; i < s->nargs; i++) {
        ax_base b;
        axe__plan_base(p, &s->args[i], &b);
        if (b.cst % w != 0)
            return false;
        for (j = 0; j < b.ndyn; j++)
            if ((axe__expr_gcd(b.dyn[j]) * b.scale[j]) % w != 0)
                return false;
        for (k = 0; k < plan->nloops; k++)
            if (k != kin && plan->loops[k].stride[i] % w != 0)
                return false;
    }
    return true;
}

/* The widest access of w elements (w * es at most 16 bytes) that
 * divides max_common_vector "v" and the innermost loop, is aligned, and,
 * with "swz", lies inside the aligned runs that each operand's swizzle
 * keeps contiguous; 1 if none. */
static int64_t vector_width(const axe_program *p, const ax_stmt *s,
                            const ax_plan *plan, int kin, int64_t v, bool swz)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    int64_t w, es = axe_dtype_size(d);
    /* packed i4: 32, 16 or 8 elements (16, 8 or 4 whole bytes) */
    for (w = d == AXE_DTYPE_I4 ? 32 : 16 / es; w >= 2; w /= 2) {
        if (d == AXE_DTYPE_I4 && w < 8)
            break;
        if (v % w != 0 || plan->loops[kin].extent % w != 0 ||
            plan->loops[kin].stride[0] != 1 || plan->loops[kin].stride[1] != 1)
            continue;
        if (swz && (w > axe__swizzle_run(p, &s->args[0]) ||
                    w > axe__swizzle_run(p, &s->args[1])))
            continue;
        if (aligned(p, s, plan, kin, w))
            return w;
    }
    return 1;
}

/* Vectorize the innermost loop of "plan" as its loops are laid out ("at"
 * how far it got, see ax_vec_at). */
static axe_status vectorize_laid(const axe_program *p, const ax_stmt *s,
                                 ax_plan *plan, int *at, axe_diag *why)
{
    axe_cute_layout dst, src;
    int64_t v, w;
    int kin = axe__plan_innermost_loop(plan);
    char cut[320];
    *at = AX_VEC_AT_SHAPE;
    if ((!plan->affine[0] || !plan->affine[1]) &&
        axe__region_cut_refusal(p, s, cut, sizeof cut))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1, "%s", cut);
    if (!plan->affine[0] || !plan->affine[1] || kin < 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "an operand is not affine in the loop digits or "
                         "there is no loop");
    if (plan->loops[kin].weight < 1) /* a chunk's coordinates must grow */
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the innermost loop does not move its coordinate");
    if (per_thread_cute(plan, 0, &dst) != AXE_OK ||
        per_thread_cute(plan, 1, &src) != AXE_OK ||
        axe_cute_max_common_vector(&dst, &src, &v) != AXE_OK)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "per-thread layouts exceed the CuTe capacity");
    w = vector_width(p, s, plan, kin, v, true);
    if (w > 1) {
        plan->vec = w;
        plan->total /= w;
        return AXE_OK;
    }
    return axe__plan_no_vector(p, s, plan, v, at, why);
}

/* Whether "a" and "b" lay out the same loops (then they run alike). */
static bool same_loops(const ax_plan *a, const ax_plan *b)
{
    int k, i;
    if (a->nloops != b->nloops)
        return false;
    for (k = 0; k < a->nloops; k++) {
        const ax_loop *x = &a->loops[k], *y = &b->loops[k];
        bool same = x->extent == y->extent && x->thread == y->thread &&
                    x->rank_div == y->rank_div && x->dim == y->dim &&
                    x->weight == y->weight;
        for (i = 0; same && i < AX_MAX_ARGS; i++)
            same = x->stride[i] == y->stride[i];
        if (!same)
            return false;
    }
    return true;
}

/* The candidates weighed so far: the best by the bank model (see
 * better), the counts of it and of the first widest one (in "bank") and
 * the laid-out plans seen (to skip repeats); blind, every count is 0. */
typedef struct vec_pick {
    bool blind, have;
    ax_plan best;
    ax_plan_bank bank;
    ax_plan *seen;
    int nseen;
    int at; /* how far the furthest refused candidate got, -1 for none */
} vec_pick;

/* Whether plan "a" with counts "wa" beats "b" with "wb": fewer
 * wavefronts on the shared side (the shared-memory cycles of the whole
 * copy), then wider (fewer instructions), then fewer ways at most, then
 * fewer accesses. Wavefronts before ways: ways are per phase, and a
 * narrower access has more, smaller phases (i8 rows padded to 48 bytes:
 * 16-byte vectors 2 ways, 2-byte ones 1 way, the same 64 wavefronts in
 * 8 times the instructions). */
static bool better(const ax_plan *a, const ax_ways *wa, const ax_plan *b,
                   int64_t b_wavefronts, int b_ways)
{
    if (wa->wavefronts != b_wavefronts)
        return wa->wavefronts < b_wavefronts;
    if (a->vec != b->vec)
        return a->vec > b->vec;
    if (wa->max != b_ways)
        return wa->max < b_ways;
    return a->total < b->total;
}

/* Weigh "c" (vectorized at its widest width) at that width and at each
 * narrower one it allows (the halves down to 2 elements, 8 for i4). */
static axe_status weigh(const axe_program *p, const ax_stmt *s,
                        const ax_plan *c, vec_pick *pk, axe_diag *why)
{
    int64_t least = p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_I4 ? 8 : 2;
    int64_t elements = c->total * c->vec;
    ax_plan w = *c;
    ax_plan_bank *b = &pk->bank;
    for (w.vec = c->vec; w.vec >= least; w.vec /= 2) {
        ax_ways ways = {0, 0, 0};
        w.total = elements / w.vec;
        if (!pk->blind)
            AXE_TRY(axe__plan_ways(p, s, &w, &ways, why));
        b->candidates++;
        if (!pk->have || w.vec > b->widest) {
            b->widest = w.vec;
            b->widest_ways = ways.max;
            b->widest_wavefronts = ways.wavefronts;
        }
        if (!pk->have || better(&w, &ways, &pk->best, b->wavefronts, b->ways)) {
            pk->best = w;
            b->ways = ways.max;
            b->wavefronts = ways.wavefronts;
        }
        pk->have = true;
    }
    return AXE_OK;
}

/* Lay "c" out unless an earlier candidate had the same loops, vectorize
 * and weigh it; the reason it gets no vector into "why" when it got
 * further than every earlier candidate (see pick). */
static axe_status candidate(const axe_program *p, const ax_stmt *s, ax_plan *c,
                            vec_pick *pk, axe_diag *why)
{
    axe_status st;
    axe_diag mine;
    int k, at;
    for (k = 0; k < pk->nseen; k++)
        if (same_loops(&pk->seen[k], c))
            return AXE_ERR_UNSUPPORTED;
    pk->seen[pk->nseen++] = *c;
    axe_diag_clear(&mine);
    st = vectorize_laid(p, s, c, &at, &mine);
    if (st == AXE_OK)
        return weigh(p, s, c, pk, why);
    if (at > pk->at) {
        pk->at = at;
        *why = mine;
    }
    return st;
}

/* Whether order "k" of "orders" repeats an earlier one. */
static bool repeats(int orders[][AX_MAX_DIMS], int k, int n)
{
    int j, d;
    for (j = 0; j < k; j++) {
        for (d = 0; d < n && orders[j][d] == orders[k][d]; d++)
            ;
        if (d == n)
            return true;
    }
    return false;
}

/* The least and the greatest address operand "i" of "plan" reaches,
 * less its base's dynamic terms. */
static void span(const axe_program *p, const ax_stmt *s, const ax_plan *plan,
                 int i, int64_t *lo, int64_t *hi)
{
    ax_base b;
    axe__plan_base(p, &s->args[i], &b);
    *lo = *hi = b.cst;
    for (int k = 0; k < plan->nloops; k++) {
        int64_t reach = (plan->loops[k].extent - 1) * plan->loops[k].stride[i];
        *(reach < 0 ? lo : hi) += reach;
    }
}

/* Whether operands "a" and "b" (one tensor) are addressed in different
 * spaces: one is a view and a swizzle is about (the tensor's or either
 * view's). A view's span is in its own layout's offsets (storage
 * addresses, before its own swizzle), a swizzled tensor's in tile
 * addresses: disjoint spans then say nothing of the addresses. Without
 * any swizzle, every span is of storage addresses. */
bool axe__plan_other_spaces(const axe_program *p, const ax_ref *a,
                            const ax_ref *b)
{
    if (!a->is_view && !b->is_view)
        return false;
    return p->tensors[a->tensor].layout.swizzle.present ||
           axe__ref_swizzled(p, a) || axe__ref_swizzled(p, b);
}

/* See compiler_internal.h. */
bool axe__plan_may_overlap(const axe_program *p, const ax_stmt *s,
                           const ax_plan *plan, int i)
{
    ax_base bd, bs;
    int64_t dlo, dhi, slo, shi;
    if (!plan->affine[0] || !plan->affine[i] ||
        axe__plan_other_spaces(p, &s->args[0], &s->args[i]))
        return true;
    axe__plan_base(p, &s->args[0], &bd);
    axe__plan_base(p, &s->args[i], &bs);
    if (bd.ndyn != bs.ndyn)
        return true;
    for (int j = 0; j < bd.ndyn; j++)
        if (bd.scale[j] != bs.scale[j] || !axe__expr_same(bd.dyn[j], bs.dyn[j]))
            return true;
    span(p, s, plan, 0, &dlo, &dhi);
    span(p, s, plan, i, &slo, &shi);
    return !(dhi < slo || shi < dlo);
}

/* Whether "s" reads a source on its destination's tensor (directly or
 * through a view or a region) that may overlap the destination: then
 * the copy keeps its element order (see axe__plan_vectorize). */
static bool self_overlap(const axe_program *p, const ax_stmt *s,
                         const ax_plan *plan)
{
    for (int i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == s->args[0].tensor &&
            axe__plan_may_overlap(p, s, plan, i))
            return true;
    return false;
}

/* Add to the reason "why" that only the dimension order was tried. */
static void kept_order(axe_diag *why)
{
    char reason[AXE_DIAG_MESSAGE_MAX];
    snprintf(reason, sizeof reason, "%s", why->message);
    (void)axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                    "%s; the source may overlap the destination, so the "
                    "loops keep dimension order",
                    reason);
}

/* Every candidate (see axe__plan_vectorize) into "pk". Without a
 * vector, the reason is that of the candidate that got furthest through
 * vectorize_laid's checks (the first of those), so that a check that
 * another order passes is not named as the cause. */
static axe_status pick(const axe_program *p, const ax_stmt *s,
                       const ax_plan *plan, vec_pick *pk, axe_diag *why)
{
    int orders[AX_MAX_DIMS + 3][AX_MAX_DIMS];
    int k, r, d, nd = axe__ref_ndim(&s->args[0]);
    bool keep = self_overlap(p, s, plan);
    int n = keep ? 1 : 1 + axe__plan_orders(p, s, orders + 1);
    axe_diag ignored;
    axe_status first = AXE_ERR_UNSUPPORTED;
    pk->at = -1;
    for (d = 0; d < nd; d++)
        orders[0][d] = d;
    for (r = 0; r < (keep ? 1 : 2); r++)
        for (k = 0; k < n; k++) {
            ax_plan c = *plan;
            axe_status st;
            if (repeats(orders, k, nd))
                continue;
            if ((r > 0 || k > 0) &&
                (axe__plan_build_order(p, s, plan, orders[k], r > 0, &c,
                                       &ignored) != AXE_OK ||
                 (r > 0 && c.order.nsub == 0)))
                continue;
            st = candidate(p, s, &c, pk, why);
            if (r == 0 && k == 0)
                first = st;
            if (st != AXE_OK && st != AXE_ERR_UNSUPPORTED)
                return st;
        }
    if (keep && !pk->have)
        kept_order(why);
    return pk->have ? AXE_OK : first;
}

/* Vectorize a copy plan (see the file comment). The candidates: the
 * plan laid out in dimension order, in each other order of
 * axe__plan_orders (repeats skipped), then each of those with its
 * contiguous run innermost (axe__plan_run_inner), a plan with the loops
 * of an earlier one skipped; each at the widest width it allows and at
 * every narrower one. The bank model picks (better: fewest wavefronts
 * on the shared side, then the widest, then the fewest ways, then the
 * fewest accesses, then the earliest); when it cannot count
 * (AXE_ERR_CAPACITY and the like), every candidate counts 0. Without any
 * vector, the reason of the candidate that got furthest (see pick). */
axe_status axe__plan_vectorize(const axe_program *p, const ax_stmt *s,
                               ax_plan *plan, axe_diag *why)
{
    vec_pick pk;
    axe_status st;
    memset(&pk, 0, sizeof pk);
    pk.seen = malloc(2 * (AX_MAX_DIMS + 3) * sizeof *pk.seen);
    if (pk.seen == NULL)
        return axe__fail(why, AXE_ERR_NO_MEMORY, -1, "out of memory");
    st = pick(p, s, plan, &pk, why);
    if (st != AXE_OK && st != AXE_ERR_UNSUPPORTED &&
        st != AXE_ERR_NO_MEMORY) { /* the model cannot count: by width */
        memset(&pk.bank, 0, sizeof pk.bank);
        pk.blind = true;
        pk.have = false;
        pk.nseen = 0;
        st = pick(p, s, plan, &pk, why);
    }
    free(pk.seen);
    if (st != AXE_OK)
        return st;
    *plan = pk.best;
    pk.bank.blind = pk.blind;
    plan->bank = pk.bank;
    return AXE_OK;
}

/* "e" in the kernel language's spelling (axe__expr_text: `//` for floor
 * division), into "t"'s arena; NO_MEMORY is sticky in "t". */
static void expr_put(ax_text *t, const axe_program *p, const ax_expr *e)
{
    size_t need = axe__expr_text(p, e, NULL, 0, 0);
    char *buf = axe__arena_alloc(t->arena, need + 1);
    if (buf == NULL) {
        t->status = AXE_ERR_NO_MEMORY;
        return;
    }
    (void)axe__expr_text(p, e, buf, need + 1, 0);
    axe__text_put(t, "%s", buf);
}

/* The operand's per-thread loop layout, then its address at digit 0 (the
 * constant and the dynamic region starts or view offset), then the
 * thread digits. */
/* A scalar operand: what it is, the dtype it converts to, no access. */
static void describe_scalar(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int pos)
{
    const ax_sop *o = &s->sop[pos];
    char txt[64];
    if (o->kind == AX_SOP_NONE)
        return;
    axe__sop_text(p, o, txt, sizeof txt);
    if (o->kind == AX_SOP_SCALAR)
        axe__text_put(t, "    scalar operand %d: runtime %s scalar '%s'", pos,
                      axe_dtype_name(p->scalar_dtype[o->scalar]), txt);
    else if (o->kind == AX_SOP_KEPT)
        axe__text_put(t,
                      "    scalar operand %d: kept device loop variable "
                      "'%s' (i32)",
                      pos, txt);
    else
        axe__text_put(t, "    scalar operand %d: literal %s", pos, txt);
    axe__text_put(t,
                  " as %s, the same for every element (no memory access, "
                  "no layout)\n",
                  axe_dtype_name(axe__sop_dtype(p, s)));
}

static void describe_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                             const ax_plan *plan, int i)
{
    ax_base b;
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    int k, n = 0;
    char sw[64];
    axe__text_put(t, "    %s '%s': ", i == 0 ? "dst" : "src", tn->name);
    if (plan->swizzled[i]) {
        axe__swizzle_text(p, &s->args[i], sw, sizeof sw);
        axe__text_put(t, "%s of ", sw);
    }
    if (s->mma != NULL && s->mma->reg != 0 && i == s->mma->reg) {
        axe__text_put(t,
                      "the %c fragments, from the registers of the "
                      "warp's lanes (not in the plan)\n",
                      i == 1 ? 'A' : 'B');
        return;
    }
    if (!plan->affine[i]) {
        axe__text_put(t, "addressed from coordinates (constant // and %%)\n");
        return;
    }
    axe__text_put(t, "%s loop layout S[(",
                  plan->kind == AX_PLAN_SPLIT ? "dealt" : "per-thread");
    for (k = 0; k < plan->nloops; k++)
        if (!plan->loops[k].thread)
            axe__text_put(t, "%s%lld", n++ ? "," : "",
                          (long long)plan->loops[k].extent);
    axe__text_put(t, "):(");
    n = 0;
    for (k = 0; k < plan->nloops; k++)
        if (!plan->loops[k].thread)
            axe__text_put(t, "%s%lld", n++ ? "," : "",
                          (long long)plan->loops[k].stride[i]);
    axe__text_put(t, ")]");
    axe__plan_base(p, &s->args[i], &b);
    if (b.cst != 0)
        axe__text_put(t, " + %lld", (long long)b.cst);
    for (k = 0; k < b.ndyn; k++) {
        axe__text_put(t, " + (");
        expr_put(t, p, b.dyn[k]);
        axe__text_put(t, ")*%lld", (long long)b.scale[k]);
    }
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].stride[i] != 0)
            axe__text_put(t, " + (rank/%lld%%%lld)*%lld",
                          (long long)plan->loops[k].rank_div,
                          (long long)plan->loops[k].extent,
                          (long long)plan->loops[k].stride[i]);
    axe__text_put(t, "\n");
}

/* A permuted plan's dimension order, the sub-iters it takes out of
 * their dimensions, and the vector's dimension. */
static void describe_order(ax_text *t, const ax_stmt *s, const ax_plan *plan)
{
    const ax_plan_order *o = &plan->order;
    int j, kin = axe__plan_innermost_loop(plan);
    axe__text_put(t, "    loops in dimension order (");
    for (j = 0; j < axe__ref_ndim(&s->args[0]); j++)
        axe__text_put(t, "%s%d", j ? "," : "", o->dim[j]);
    if (o->nsub == 0) {
        axe__text_put(t,
                      "), dim %d innermost: the innermost loop is "
                      "contiguous in both operands\n",
                      plan->loops[kin].dim);
        return;
    }
    axe__text_put(t, "), then innermost the sub-iters");
    for (j = 0; j < o->nsub; j++)
        axe__text_put(t, "%s dim %d (%lld at weight %lld)", j ? "," : "",
                      o->sub_dim[j], (long long)o->sub_extent[j],
                      (long long)o->sub_weight[j]);
    axe__text_put(t, ": the run contiguous in both operands\n");
}

/* What the bank model weighed for a vector copy with a shared operand. */
static void describe_bank(ax_text *t, const axe_program *p, const ax_stmt *s,
                          const ax_plan *plan)
{
    const ax_plan_bank *b = &plan->bank;
    bool shared = false;
    int i;
    for (i = 0; i < s->nargs; i++)
        shared = shared || p->tensors[s->args[i].tensor].mem == AX_MEM_SHARED;
    if (b->candidates == 0 || !shared)
        return;
    if (b->blind) {
        ax_ways w;
        axe_diag d;
        axe_diag_clear(&d);
        (void)axe__plan_ways(p, s, plan, &w, &d);
        axe__text_put(t,
                      "    bank model: cannot count this copy's shared "
                      "accesses (%s); the widest vector wins\n",
                      d.message);
        return;
    }
    axe__text_put(t,
                  "    bank model: %lld wavefronts on the shared side (at "
                  "most %d way%s), the fewest of %d candidates (loop orders "
                  "and widths)",
                  (long long)b->wavefronts, b->ways, b->ways == 1 ? "" : "s",
                  b->candidates);
    if (plan->vec != b->widest || b->wavefronts != b->widest_wavefronts)
        axe__text_put(t,
                      "; the first widest vector (%lld elements) takes %lld "
                      "wavefronts (at most %d way%s)",
                      (long long)b->widest, (long long)b->widest_wavefronts,
                      b->widest_ways, b->widest_ways == 1 ? "" : "s");
    axe__text_put(t, "\n");
}

/* Thread digits, per-thread loop layouts per operand, the access width. */
void axe__plan_describe(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_plan *plan)
{
    int k, i;
    if (plan->kind == AX_PLAN_BOUND)
        axe__text_put(t, "    threads bound by '%s':",
                      p->tensors[s->args[plan->binding].tensor].name);
    else if (plan->kind == AX_PLAN_SPLIT)
        axe__text_put(t,
                      "    %lld elements dealt round-robin to %lld "
                      "threads",
                      (long long)(plan->total * plan->vec),
                      (long long)plan->nthreads);
    else
        axe__text_put(t, "    one thread runs every element");
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread)
            axe__text_put(t, " dim %d digit (rank/%lld)%%%lld",
                          plan->loops[k].dim,
                          (long long)plan->loops[k].rank_div,
                          (long long)plan->loops[k].extent);
    axe__text_put(t, "\n");
    if (axe__plan_permuted(plan))
        describe_order(t, s, plan);
    for (i = 0; i < s->nargs; i++)
        describe_operand(t, p, s, plan, i);
    for (i = 1; i < axe__operand_count(s); i++)
        describe_scalar(t, p, s, i);
    if (plan->vec > 1)
        axe__text_put(t, "    innermost access: %lld elements\n",
                      (long long)plan->vec);
    if (plan->pair > 0)
        axe__text_put(t,
                      "    i4 stores: whole bytes, the nibbles of dim %d "
                      "digits 2m and 2m + 1 from one thread (one byte store "
                      "per 2 elements)\n",
                      plan->loops[plan->pair - 1].dim);
    describe_bank(t, p, s, plan);
    for (i = 0; plan->vec > 1 && i < s->nargs; i++)
        if (s->args[i].any_masked && axe__plan_masked_rows(s, plan))
            axe__text_put(
                t,
                "    masked '%s': a run-time test per innermost "
                "loop of %lld elements (its masked coordinates "
                "are constant along it; per chunk of %lld when "
                "dealt round-robin); vector accesses when inside "
                "'%s', else element by element with the guard\n",
                p->tensors[s->args[i].tensor].name,
                (long long)plan->loops[axe__plan_innermost_loop(plan)].extent,
                (long long)plan->vec, p->tensors[s->args[i].tensor].name);
        else if (s->args[i].any_masked)
            axe__text_put(t,
                          "    masked '%s': a run-time test per chunk of "
                          "%lld; one vector access when the chunk lies "
                          "inside '%s', else element by element with the "
                          "guard\n",
                          p->tensors[s->args[i].tensor].name,
                          (long long)plan->vec,
                          p->tensors[s->args[i].tensor].name);
}
