/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Plans: the iteration space of a pointwise operator (copy, fill,
 * elementwise) derived from the operand layouts. Each layout is grouped by
 * the operator's shape; per dimension the iters of the operands are
 * refined to a common chain of sub-iters (boundaries are the inner
 * products of each operand's iters; a refinement exists when they form a
 * divisibility chain). A sub-iter inside a thread iter of the binding
 * register becomes a digit of the thread's rank; the others become loops.
 * Every operand whose iters fit the chain is addressed affinely (one
 * stride per digit); the rest from coordinates, with constant divisors.
 * The dimensions are laid out in dimension order, or in the order
 * copy.vector asks for (axe__plan_build_order: a dimension contiguous
 * in both operands innermost, or the sub-iters of a run contiguous in both
 * taken out of their dimensions and laid out innermost; the plan records
 * it, and a split plan deals its chunks in it). Invariant of a plan: the
 * digits enumerate every element of the shape exactly once per
 * (thread-rank, loop) combination, whatever the order of the loops (each
 * adds digit * weight to its dimension's coordinate).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

#define AX_MAX_BOUNDS (AXE_LAYOUT_MAX_SHARD * AX_MAX_ARGS + 2)

/* The non-unit iters of tensor dim "td" of "t" (outer to inner). */
static int tensor_dim_iters(const ax_tensor *t, int td, axe_iter *out)
{
    int n = 0;
    for (int i = t->seps[td]; i < t->seps[td + 1]; i++)
        if (t->grouped.shard[i].extent != 1)
            out[n++] = t->grouped.shard[i];
    return n;
}

/* The offset of constant start "a" in iters "it" ("n" of them): each
 * iter's digit of "a" times its stride. */
static int64_t digits_offset(const axe_iter *it, int n, int64_t a)
{
    int64_t off = 0;
    for (int i = n - 1; i >= 0; i--) {
        off += a % it[i].extent * it[i].stride;
        a /= it[i].extent;
    }
    return off;
}

/* The dynamic start's scale (compiler_internal.h): the iters outside
 * iter "k" one compact run over it, and P (the product inside it)
 * dividing its stride. */
static bool cut_scale(const axe_iter *it, int k, int64_t inner, ax_cut *c)
{
    for (int i = 0; i < k; i++)
        if (it[i].stride != it[i + 1].extent * it[i + 1].stride) {
            (void)snprintf(c->why, sizeof c->why,
                           "its iters outside the region are not one "
                           "compact run (a dynamic start's offset would not "
                           "be a multiple of it)");
            return false;
        }
    if (it[k].stride % inner != 0) {
        (void)snprintf(c->why, sizeof c->why,
                       "the stride %lld of the iter the region starts in is "
                       "not a multiple of %lld, the elements inside it (a "
                       "dynamic start's offset would need a division)",
                       (long long)it[k].stride, (long long)inner);
        return false;
    }
    c->scale = it[k].stride / inner;
    return true;
}

/* The iter "*k" a region of "len" starts in: len = m P_k with m dividing
 * E_k (the innermost such, but a whole iter k, m = E_k, is iter k - 1 at
 * m = 1, which asks less of the start: a dynamic one needs only the iters
 * outside k - 1 compact); "*inner" = P_k; m, or 0 when none. */
static int64_t start_iter(const axe_iter *it, int n, int64_t len, int *k,
                          int64_t *inner)
{
    *inner = 1;
    for (*k = n - 1; *k >= 0; (*k)--) {
        if (len % *inner == 0 && it[*k].extent % (len / *inner) == 0) {
            int64_t m = len / *inner;
            while (m == it[*k].extent && *k > 0) {
                *inner *= it[*k].extent;
                (*k)--;
                m = 1;
            }
            return m;
        }
        *inner *= it[*k].extent;
    }
    *k = 0;
    return 0;
}

/* The constant terms of the sum "e" (times "sign") added into "*c0", and
 * the gcd of its other terms into "*g" (0: none): e = D + c0 with D a
 * multiple of g. False on overflow. */
static bool start_parts(const ax_expr *e, int64_t sign, int64_t *c0, int64_t *g)
{
    switch (e->kind) {
    case AX_EX_ADD:
    case AX_EX_SUB:
        return start_parts(e->a, sign, c0, g) &&
               start_parts(e->b, e->kind == AX_EX_SUB ? -sign : sign, c0, g);
    case AX_EX_NEG:
        return start_parts(e->a, -sign, c0, g);
    case AX_EX_INT: {
        int64_t v;
        return axe__mul(sign, e->value, &v) == AXE_OK &&
               axe__add(*c0, v, c0) == AXE_OK;
    }
    case AX_EX_VAR:
    case AX_EX_MUL:
    case AX_EX_DIV:
    case AX_EX_MOD:
    case AX_EX_LOAD:
        break;
    }
    *g = axe__gcd(*g, axe__expr_gcd(e));
    return true;
}

/* Into c->why, why dynamic start "a" of a region of "len" = m P_k ("m",
 * "inner" = P_k) in iter "itk" (E_k) does not align; empty when it does.
 * With a = D + c0 (start_parts), a is a multiple of P_k when P_k divides
 * g and c0; then a / P_k mod h, h = gcd(g / P_k, E_k), is c0 / P_k mod h
 * whatever D, and the region's m digits of iter k stay within one run of
 * it when that value + m <= h (h = E_k: the constant rule; c0 = 0 and g
 * a multiple of len: h >= m, the region at a multiple of its length). */
static void dyn_why(const ax_expr *a, const axe_iter *itk, int64_t m,
                    int64_t inner, int64_t len, ax_cut *c)
{
    int64_t c0 = 0, g = 0, h, r;
    if (!start_parts(a, 1, &c0, &g)) {
        (void)snprintf(c->why, sizeof c->why, "its start overflows");
        return;
    }
    if (g % inner != 0 || c0 % inner != 0) {
        (void)snprintf(c->why, sizeof c->why,
                       "its start is not known to be a multiple of %lld, "
                       "the elements inside the iter it starts in (only of "
                       "%lld)",
                       (long long)inner, (long long)axe__gcd(g, c0));
        return;
    }
    h = axe__gcd(g / inner, itk->extent);
    r = (c0 / inner % h + h) % h;
    if (r + m > h)
        (void)snprintf(c->why, sizeof c->why,
                       "its start is %lld plus a multiple of %lld, so its "
                       "region of %lld may cross the end of a run of %lld",
                       (long long)(r * inner), (long long)(h * inner),
                       (long long)len, (long long)(inner * itk->extent));
}

/* Into c->why, why region [a, a + len) of tensor dim "td" does not align
 * with its iters "it" (m, k, inner: start_iter's); empty when it does. */
static void cut_why(const ax_ref *r, int td, const axe_iter *it, int n,
                    int64_t m, int k, int64_t inner, ax_cut *c)
{
    const ax_expr *a = r->start[td];
    int64_t len = r->len[td];
    bool cst = a == NULL || a->kind == AX_EX_INT;
    int64_t v = a == NULL ? 0 : a->value;
    for (int i = 0; i < n; i++)
        if (axe__iter_rank_stride(&it[i]) != 0 || strcmp(it[i].axis, "m"))
            (void)snprintf(c->why, sizeof c->why,
                           "its iters are not all in memory");
    if (c->why[0] != '\0')
        return;
    if (r->masked[td])
        (void)snprintf(c->why, sizeof c->why, "the region is masked");
    else if (m == 0)
        (void)snprintf(c->why, sizeof c->why,
                       "its length %lld is not a whole number of its inner "
                       "iters times a divisor of the next",
                       (long long)len);
    else if (cst && v % inner != 0)
        (void)snprintf(c->why, sizeof c->why,
                       "its start %lld is not a multiple of %lld, the "
                       "elements inside the iter it starts in",
                       (long long)v, (long long)inner);
    else if (cst && v / inner % it[k].extent + m > it[k].extent)
        (void)snprintf(c->why, sizeof c->why,
                       "from its start %lld it runs past %lld, the end of "
                       "the run of %lld it starts in",
                       (long long)v,
                       (long long)((v / (inner * it[k].extent) + 1) * inner *
                                   it[k].extent),
                       (long long)(inner * it[k].extent));
    else if (!cst) {
        dyn_why(a, &it[k], m, inner, len, c);
        if (c->why[0] == '\0')
            (void)cut_scale(it, k, inner, c);
    }
}

/* The cut of tensor dim "td" of "r" (compiler_internal.h). */
bool axe__region_cut(const axe_program *p, const ax_ref *r, int td, ax_cut *c)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const ax_expr *a = r->start[td];
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int n, k;
    int64_t inner, m;
    memset(c, 0, sizeof *c);
    if (r->is_view || (n = tensor_dim_iters(t, td, it)) < 2 ||
        ((a == NULL || (a->kind == AX_EX_INT && a->value == 0)) &&
         r->len[td] == t->shape[td]))
        return false;
    m = start_iter(it, n, r->len[td], &k, &inner);
    cut_why(r, td, it, n, m, k, inner, c);
    if (c->why[0] != '\0')
        return false;
    c->cst =
        a != NULL && a->kind == AX_EX_INT ? digits_offset(it, n, a->value) : 0;
    if (m > 1) {
        c->it[c->n] = it[k];
        c->it[c->n++].extent = m;
    }
    for (int i = k + 1; i < n; i++)
        c->it[c->n++] = it[i];
    return true;
}

bool axe__region_cut_refusal(const axe_program *p, const ax_stmt *s, char *buf,
                             size_t cap)
{
    for (int i = 0; i < s->nargs; i++)
        for (int d = 0; d < s->args[i].ndim; d++) {
            const ax_tensor *t = &p->tensors[s->args[i].tensor];
            ax_cut c;
            if (axe__region_cut(p, &s->args[i], d, &c) || c.why[0] == '\0')
                continue;
            (void)snprintf(buf, cap,
                           "'%s' dimension %d: the region of length %lld "
                           "cuts its iters off their boundaries: %s",
                           t->name, d, (long long)s->args[i].len[d], c.why);
            return true;
        }
    return false;
}

/* The iters operand "r" has in dimension "d" (outer to inner, unit iters
 * dropped; a region cut where it aligns with a dimension of several
 * iters: the cut's); false when the dimension is a partial region of the
 * tensor otherwise. */
static bool dim_iters(const axe_program *p, const ax_ref *r, int d,
                      axe_iter *out, int *n)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int i, td = axe__ref_tdim(r, d);
    ax_cut cut;
    *n = 0;
    if (td < 0) {
        out[0].extent = r->bext;
        out[0].stride = 0;
        memset(out[0].axis, 0, sizeof out[0].axis);
        out[0].axis[0] = 'm';
        *n = r->bext > 1;
        return true;
    }
    if (r->is_view) {
        out[(*n)++] = r->view.shard[td];
        return true;
    }
    if (axe__region_cut(p, r, td, &cut)) {
        memcpy(out, cut.it, (size_t)cut.n * sizeof *out);
        *n = cut.n;
        return true;
    }
    for (i = t->seps[td]; i < t->seps[td + 1]; i++)
        if (t->grouped.shard[i].extent != 1)
            out[(*n)++] = t->grouped.shard[i];
    return (r->start[td] == NULL ||
            (r->start[td]->kind == AX_EX_INT && r->start[td]->value == 0)) &&
           r->len[td] == t->shape[td];
}

typedef struct bounds {
    int n;
    int64_t b[AX_MAX_BOUNDS];
} bounds;

/* Merge the inner products of "it" into "bs" if the chain survives. */
static bool merge_bounds(bounds *bs, const axe_iter *it, int n)
{
    bounds nb = *bs;
    if (!axe__bounds_add(nb.b, &nb.n, AX_MAX_BOUNDS, it, n) ||
        axe__bounds_break(nb.b, nb.n) >= 0)
        return false;
    *bs = nb;
    return true;
}

typedef struct operand_info {
    bool full[AX_MAX_DIMS];
    bool linear[AX_MAX_DIMS];
    int64_t lin_stride[AX_MAX_DIMS];
    axe_iter it[AX_MAX_DIMS][AXE_LAYOUT_MAX_SHARD];
    int nit[AX_MAX_DIMS];
} operand_info;

static axe_status classify(const axe_program *p, const ax_stmt *s, int skip,
                           operand_info *info, ax_plan *plan, axe_diag *why)
{
    int i, d;
    for (i = 0; i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        const ax_tensor *t = &p->tensors[r->tensor];
        plan->affine[i] = i != skip;
        if (i == skip)
            continue; /* info stays zero: no dim full or linear */
        plan->swizzled[i] = axe__ref_swizzled(p, r);
        for (d = 0; d < axe__ref_ndim(r); d++) {
            operand_info *o = &info[i];
            o->full[d] = dim_iters(p, r, d, o->it[d], &o->nit[d]);
            o->linear[d] =
                !o->full[d] && o->nit[d] <= 1 &&
                (o->nit[d] == 0 || axe__iter_rank_stride(&o->it[d][0]) == 0);
            o->lin_stride[d] = o->nit[d] == 1 ? o->it[d][0].stride : 0;
            if (!o->full[d] && !o->linear[d]) {
                if (t->distributed)
                    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                                     "a region of the distributed register "
                                     "'%s' is not supported",
                                     t->name);
                plan->affine[i] = false;
            }
        }
    }
    return AXE_OK;
}

static axe_status refine(const axe_program *p, const ax_stmt *s,
                         operand_info *info, ax_plan *plan, int d, bounds *bs,
                         axe_diag *why)
{
    int i, order[AX_MAX_ARGS], n = 0;
    bs->n = 2;
    bs->b[0] = 1;
    bs->b[1] = axe__ref_len(&s->args[0], d);
    if (bs->b[1] == 1)
        bs->n = 1;
    if (plan->binding >= 0)
        order[n++] = plan->binding;
    for (i = 0; i < s->nargs; i++)
        if (i != plan->binding)
            order[n++] = i;
    for (i = 0; i < n; i++) {
        int k = order[i];
        const ax_tensor *t = &p->tensors[s->args[k].tensor];
        if (!info[k].full[d] || !plan->affine[k])
            continue;
        if (merge_bounds(bs, info[k].it[d], info[k].nit[d]))
            continue;
        if (t->distributed)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the iters of '%s' have no common refinement "
                             "with the other operands'",
                             t->name);
        plan->affine[k] = false;
    }
    return AXE_OK;
}

/* Whether a replica iter of "l" spans the rank digits [d, d*e) (every
 * thread, whatever those digits, holds the element). */
static bool replica_covers(const axe_layout *l, int64_t d, int64_t e)
{
    int i;
    for (i = 0; i < l->nreplica; i++) {
        int64_t rs = axe__iter_rank_stride(&l->replica[i]);
        if (rs > 0 && d % rs == 0 && d * e <= rs * l->replica[i].extent)
            return true;
    }
    return false;
}

/* Operand "t" holds the element digit "lp" (inside its iter "it", whose
 * digit starts at weight "lo") on the thread the binding puts it on. A
 * replica over the digit's threads serves a source (every thread can read
 * the element) but a destination only in its broadcast dim ("replica_ok":
 * the schedule combines those threads' results, a butterfly); elsewhere
 * the replicas on threads that compute other elements would not be
 * written. */
static axe_status own_check(const ax_loop *lp, const axe_iter *it, int64_t lo,
                            const ax_tensor *t, bool replica_ok, axe_diag *why)
{
    int64_t rs = axe__iter_rank_stride(it) * (lp->weight / lo);
    if (lp->thread && rs == 0 &&
        replica_covers(&t->layout, lp->rank_div, lp->extent)) {
        if (replica_ok)
            return AXE_OK;
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the destination '%s' is replicated over the "
                         "threads of digit (rank/%lld)%%%lld (dim %d), which "
                         "compute different elements: its replicas would "
                         "not all be written",
                         t->name, (long long)lp->rank_div,
                         (long long)lp->extent, lp->dim);
    }
    if ((rs != 0) != lp->thread || (lp->thread && rs != lp->rank_div))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' holds element digit (dim %d, weight %lld) on "
                         "a different thread than the binding operand: "
                         "thread ownership disagrees",
                         t->name, lp->dim, (long long)lp->weight);
    return AXE_OK;
}

static axe_status fill_strides(const axe_program *p, const ax_stmt *s,
                               const operand_info *info, ax_loop *lp,
                               axe_diag *why)
{
    int i, d = lp->dim;
    for (i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        const axe_iter *it;
        int64_t lo = 1;
        lp->stride[i] = 0;
        if (info[i].linear[d]) {
            lp->stride[i] = info[i].lin_stride[d] * lp->weight;
            continue;
        }
        if (!info[i].full[d])
            continue;
        it = axe__iter_at(info[i].it[d], info[i].nit[d], lp->weight, &lo);
        if (it == NULL)
            continue;
        if (t->distributed)
            AXE_TRY(
                own_check(lp, it, lo, t, i > 0 || d == s->args[0].bdim, why));
        if (axe__iter_rank_stride(it) == 0)
            lp->stride[i] = it->stride * (lp->weight / lo);
    }
    return AXE_OK;
}

static void bind_thread(const ax_plan *plan, const operand_info *info,
                        ax_loop *lp)
{
    const axe_iter *it;
    int64_t lo = 1;
    lp->thread = false;
    if (plan->binding < 0)
        return;
    it = axe__iter_at(info[plan->binding].it[lp->dim],
                      info[plan->binding].nit[lp->dim], lp->weight, &lo);
    if (it != NULL && axe__iter_rank_stride(it) != 0) {
        lp->thread = true;
        lp->rank_div = axe__iter_rank_stride(it) * (lp->weight / lo);
    }
}

static axe_status add_dim(const axe_program *p, const ax_stmt *s,
                          const operand_info *info, ax_plan *plan, int d,
                          const bounds *bs, axe_diag *why)
{
    int k;
    for (k = bs->n - 2; k >= 0; k--) {
        ax_loop *lp;
        if (plan->nloops == AX_MAX_LOOPS)
            return axe__fail(why, AXE_ERR_CAPACITY, -1, "too many loops");
        lp = &plan->loops[plan->nloops++];
        memset(lp, 0, sizeof *lp);
        lp->extent = bs->b[k + 1] / bs->b[k];
        lp->dim = d;
        lp->weight = bs->b[k];
        bind_thread(plan, info, lp);
        AXE_TRY(fill_strides(p, s, info, lp, why));
    }
    return AXE_OK;
}

bool axe__stmt_masked_dim(const ax_stmt *s, int od)
{
    int i, d;
    for (i = 0; i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        for (d = 0; r->any_masked && d < r->ndim; d++)
            if (r->masked[d] && d + (r->bdim >= 0 && d >= r->bdim) == od)
                return true;
    }
    return false;
}

/* Whether merging loop "in" into "out" keeps the coordinate of each
 * masked dimension: the merged digit m = out * e_in + in reads
 * coordinate m * w_in only when both are of one dimension and w_out =
 * w_in e_in; a masked dimension's guard needs that coordinate. */
static bool keeps_masked_coord(const ax_stmt *s, const ax_loop *out,
                               const ax_loop *in)
{
    if (!axe__stmt_masked_dim(s, in->dim) && !axe__stmt_masked_dim(s, out->dim))
        return true;
    return in->dim == out->dim && out->weight == in->weight * in->extent;
}

/* Merge adjacent loops contiguous in every operand (all affine only). */
static void coalesce(const ax_stmt *s, ax_plan *plan)
{
    int i, k, j, nargs = s->nargs;
    for (i = 0; i < nargs; i++)
        if (!plan->affine[i])
            return;
    for (k = plan->nloops - 1; k > 0; k--) {
        ax_loop *in = &plan->loops[k], *out = &plan->loops[k - 1];
        bool ok = !in->thread && !out->thread && keeps_masked_coord(s, out, in);
        for (i = 0; ok && i < nargs; i++)
            ok = out->stride[i] == in->stride[i] * in->extent;
        if (!ok)
            continue;
        in->extent *= out->extent;
        for (j = k - 1; j + 1 < plan->nloops; j++)
            plan->loops[j] = plan->loops[j + 1];
        plan->nloops--;
    }
}

/* Whether "s" reads the element it writes: reduce, gemm and atomic_add
 * accumulate, an elementwise operator may name its destination as a
 * source. */
static bool updates_in_place(const ax_stmt *s)
{
    int i;
    if (s->op == AX_OP_REDUCE || s->op == AX_OP_GEMM ||
        s->op == AX_OP_ATOMIC_ADD)
        return true;
    for (i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == s->args[0].tensor)
            return true;
    return false;
}

/* A plan bound by a source writes a memory destination from every thread
 * that holds the binding's element: its replicas, and for a gemm the
 * threads of a K digit. Writing one value several times is harmless, but
 * an update in place would be applied once per writer. (A reduce's own
 * dim is its schedules' concern: thread_loop refuses thread digits there,
 * warp_shuffle combines them.) */
static axe_status check_writers(const axe_program *p, const ax_stmt *s,
                                const ax_plan *plan, axe_diag *why)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor], *b;
    int k;
    if (plan->binding <= 0 || dst->distributed || !updates_in_place(s))
        return AXE_OK;
    b = &p->tensors[s->args[plan->binding].tensor];
    for (k = 0; k < b->layout.nreplica; k++)
        if (axe__iter_rank_stride(&b->layout.replica[k]) > 0)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the binding operand '%s' is replicated over "
                             "threads (replica iter %lld:%lld@%s): each "
                             "replica would update '%s' in place again",
                             b->name, (long long)b->layout.replica[k].extent,
                             (long long)b->layout.replica[k].stride,
                             b->layout.replica[k].axis, dst->name);
    for (k = 0; k < plan->nloops && s->op != AX_OP_REDUCE; k++)
        if (plan->loops[k].thread && plan->loops[k].dim == s->args[0].bdim)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the threads of digit (rank/%lld)%%%lld would "
                             "all accumulate into the same elements of '%s'",
                             (long long)plan->loops[k].rank_div,
                             (long long)plan->loops[k].extent, dst->name);
    return AXE_OK;
}

/* Build the plan (see the file comment). */
axe_status axe__plan_build(const axe_program *p, const ax_stmt *s,
                           ax_plan_kind kind, int binding, ax_plan *out,
                           axe_diag *why)
{
    return axe__plan_build_skip(p, s, kind, binding, -1, out, why);
}

/* The plan of "s" with its loops in dimension order "order" (NULL: the
 * identity), with "run_inner" the contiguous run innermost. */
static axe_status build(const axe_program *p, const ax_stmt *s,
                        ax_plan_kind kind, int binding, int skip,
                        const int *order, bool run_inner, ax_plan *out,
                        axe_diag *why)
{
    static operand_info zero;
    operand_info info[AX_MAX_ARGS];
    ax_plan plan;
    int j, k, n = axe__ref_ndim(&s->args[0]);
    memset(&plan, 0, sizeof plan);
    plan.kind = kind;
    plan.binding = binding;
    plan.vec = 1;
    plan.nthreads = axe__scope_threads(p, s->scope);
    for (j = 0; j < AX_MAX_DIMS; j++)
        plan.order.dim[j] = order != NULL && j < n ? order[j] : j;
    for (k = 0; k < AX_MAX_ARGS; k++)
        info[k] = zero;
    AXE_TRY(classify(p, s, skip, info, &plan, why));
    for (j = 0; j < n; j++) {
        bounds bs;
        AXE_TRY(refine(p, s, info, &plan, plan.order.dim[j], &bs, why));
        AXE_TRY(add_dim(p, s, info, &plan, plan.order.dim[j], &bs, why));
    }
    if (run_inner)
        axe__plan_run_inner(&plan);
    AXE_TRY(check_writers(p, s, &plan, why));
    if (s->op != AX_OP_REDUCE && s->op != AX_OP_IOTA)
        coalesce(s, &plan); /* (their digits keep their dims) */
    plan.total = 1;
    for (k = 0; k < plan.nloops; k++)
        if (!plan.loops[k].thread)
            plan.total *= plan.loops[k].extent;
    *out = plan;
    return AXE_OK;
}

axe_status axe__plan_build_skip(const axe_program *p, const ax_stmt *s,
                                ax_plan_kind kind, int binding, int skip,
                                ax_plan *out, axe_diag *why)
{
    return build(p, s, kind, binding, skip, NULL, false, out, why);
}

axe_status axe__plan_build_order(const axe_program *p, const ax_stmt *s,
                                 const ax_plan *like, const int *order,
                                 bool run_inner, ax_plan *out, axe_diag *why)
{
    return build(p, s, like->kind, like->binding, -1, order, run_inner, out,
                 why);
}

bool axe__plan_permuted(const ax_plan *plan)
{
    int j;
    for (j = 0; j < AX_MAX_DIMS; j++)
        if (plan->order.dim[j] != j)
            return true;
    return plan->order.nsub > 0;
}

int64_t axe__ref_inner_stride(const axe_program *p, const ax_ref *r, int d)
{
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int n;
    (void)dim_iters(p, r, d, it, &n);
    while (n > 0 &&
           (it[n - 1].stride == 0 || axe__iter_rank_stride(&it[n - 1]) != 0))
        n--;
    return n > 0 ? (it[n - 1].stride < 0 ? -it[n - 1].stride : it[n - 1].stride)
                 : INT64_MAX;
}

/* The dimensions sorted by operand "i"'s inner strides, largest first
 * (stable: equal strides keep dimension order). */
static void sorted_order(const axe_program *p, const ax_stmt *s, int i,
                         int *order)
{
    int64_t key[AX_MAX_DIMS];
    int j, t, n = axe__ref_ndim(&s->args[0]);
    for (j = 0; j < n; j++) {
        key[j] = axe__ref_inner_stride(p, &s->args[i], j);
        for (t = j; t > 0 && key[order[t - 1]] < key[j]; t--)
            order[t] = order[t - 1];
        order[t] = j;
    }
}

int axe__plan_orders(const axe_program *p, const ax_stmt *s,
                     int orders[][AX_MAX_DIMS])
{
    int d, j, k, m = 0, n = axe__ref_ndim(&s->args[0]);
    for (d = 0; d + 1 < n; d++, m++) {
        for (j = 0, k = 0; j < n; j++)
            if (j != d)
                orders[m][k++] = j;
        orders[m][k] = d;
    }
    for (j = 0; j < s->nargs && j < 2; j++)
        sorted_order(p, s, j, orders[m++]);
    return m;
}
