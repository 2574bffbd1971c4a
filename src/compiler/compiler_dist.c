/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner, part 1: the digit table of a `device copy` or
 * `device reduce` (compiler_dist.h). Each layout is grouped by its
 * tensor's shape (axe_layout_group); per dimension the inner products of
 * the src iters and of the dst iters are merged into one chain of
 * boundaries, which must divide each other (a divisibility chain, as the
 * thread digits of compiler_plan.c; both use compiler_refine.c); every
 * step of the chain is a digit, whose stride on each side is its iter's
 * stride times the digit's weight inside the iter. Then the plan's
 * invariant is checked (compiler_dist.h) (compiler_dist_rule.c) and the
 * kind derived (compiler_dist_kind.c).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_dist.h"

#define MAX_BOUNDS (2 * AXE_LAYOUT_MAX_SHARD + 2)

typedef struct side {
    const char *role; /* "src" or "dst" */
    axe_iter it[AX_MAX_DIMS][AXE_LAYOUT_MAX_SHARD];
    int nit[AX_MAX_DIMS];
} side;

static bool is_axis(const char *axis, const char *name)
{
    return strncmp(axis, name, AXE_AXIS_NAME_MAX) == 0;
}

/* Iters, replicas and offsets of "l" only on gpuid and m (replicas on
 * gpuid), no swizzle. */
static axe_status check_axes(const axe_layout *l, const char *role,
                             axe_diag *diag)
{
    int i;
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s: a distributed layout cannot be swizzled", role);
    for (i = 0; i < l->nshard; i++)
        if (!is_axis(l->shard[i].axis, "gpuid") &&
            !is_axis(l->shard[i].axis, "m"))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s: shard iter %d is on axis '%.*s'; a "
                             "distributed layout has iters on gpuid and m "
                             "only",
                             role, i, AXE_AXIS_NAME_MAX, l->shard[i].axis);
    for (i = 0; i < l->nreplica; i++)
        if (!is_axis(l->replica[i].axis, "gpuid"))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s: replica iter %d is on axis '%.*s'; "
                             "replicas of a distributed tensor are on gpuid",
                             role, i, AXE_AXIS_NAME_MAX, l->replica[i].axis);
    for (i = 0; i < l->noffset; i++)
        if (!is_axis(l->offset[i].axis, "gpuid") &&
            !is_axis(l->offset[i].axis, "m"))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s: offset on axis '%.*s'; a distributed "
                             "layout has offsets on gpuid and m only",
                             role, AXE_AXIS_NAME_MAX, l->offset[i].axis);
    return AXE_OK;
}

/* Group "l" by "shape" into s->it (unit iters dropped). */
static axe_status load_side(const axe_layout *l, const int64_t *shape, int n,
                            side *s, axe_diag *diag)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_SHARD + 1], d, i;
    axe_diag why;
    AXE_TRY(check_axes(l, s->role, diag));
    if (axe_layout_group(l, shape, n, &g, seps, &why) != AXE_OK)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1, "%s: %s", s->role,
                         why.message);
    for (d = 0; d < n; d++) {
        s->nit[d] = 0;
        for (i = seps[d]; i < seps[d + 1]; i++)
            if (g.shard[i].extent != 1)
                s->it[d][s->nit[d]++] = g.shard[i];
    }
    return AXE_OK;
}

typedef struct bounds {
    int n;
    int64_t b[MAX_BOUNDS];
} bounds;

/* "(e:s@axis)" of the iter of "it" holding weight "w". */
static void iter_text(const axe_iter *it, int n, int64_t w, char *buf,
                      size_t cap)
{
    int64_t lo;
    const axe_iter *t = axe__iter_at(it, n, w, &lo);
    if (t == NULL) {
        snprintf(buf, cap, "(none)");
        return;
    }
    snprintf(buf, cap, "%lld:%lld@%.*s", (long long)t->extent,
             (long long)t->stride, AXE_AXIS_NAME_MAX, t->axis);
}

/* The reason dim "d"'s iters of "a" and "b" have no common refinement:
 * the boundary b[i] of the chain that does not divide b[i+1]. */
static axe_status chain_fail(const side *a, int da, const side *b, int db,
                             const bounds *bs, int i, axe_diag *diag)
{
    char ta[64], tb[64];
    iter_text(a->it[da], a->nit[da], bs->b[i], ta, sizeof ta);
    iter_text(b->it[db], b->nit[db], bs->b[i], tb, sizeof tb);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "dim %d: the iters of src and dst have no common "
                     "refinement: boundary %lld does not divide %lld (src "
                     "iter %s, dst iter %s, at weight %lld); no plan by "
                     "digits exists",
                     da, (long long)bs->b[i], (long long)bs->b[i + 1], ta, tb,
                     (long long)bs->b[i]);
}

/* Stride of the sub-iter at weight "w" of "it" split on gpuid / m. */
static axe_status sub_stride(const axe_iter *it, int n, int64_t w, int64_t *dev,
                             int64_t *m)
{
    int64_t lo, s;
    const axe_iter *t = axe__iter_at(it, n, w, &lo);
    *dev = 0;
    *m = 0;
    if (t == NULL)
        return AXE_OK;
    AXE_TRY(axe__mul(t->stride, w / lo, &s));
    if (is_axis(t->axis, "gpuid"))
        *dev = s;
    else
        *m = s;
    return AXE_OK;
}

/* Append the digits of the chain "bs" of src dim "ds" and dst dim "dd"
 * (dd < 0: a reduced dim, dst strides 0), outermost first. */
static axe_status push_digits(ax_dist_plan *p, const side *src, int ds,
                              const side *dst, int dd, const bounds *bs,
                              axe_diag *diag)
{
    int i;
    for (i = bs->n - 2; i >= 0; i--) {
        ax_dist_digit *g = &p->digit[p->ndigits];
        int64_t w = bs->b[i];
        if (p->ndigits == AX_DIST_MAX_DIGITS)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "the plan needs more than %d digits",
                             AX_DIST_MAX_DIGITS);
        memset(g, 0, sizeof *g);
        g->extent = bs->b[i + 1] / w;
        g->dim = ds;
        g->reduced = dd < 0;
        if (sub_stride(src->it[ds], src->nit[ds], w, &g->src_dev, &g->src_m) !=
                AXE_OK ||
            (dd >= 0 && sub_stride(dst->it[dd], dst->nit[dd], w, &g->dst_dev,
                                   &g->dst_m) != AXE_OK))
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "dim %d: a digit's stride overflows", ds);
        p->ndigits++;
    }
    return AXE_OK;
}

/* The digits of src dim "ds" refined with dst dim "dd" (-1: reduced). */
static axe_status refine_dim(ax_dist_plan *p, const side *src, int ds,
                             const side *dst, int dd, axe_diag *diag)
{
    bounds bs;
    int i;
    bs.n = 1;
    bs.b[0] = 1; /* both sides' iters fit: MAX_BOUNDS counts them */
    (void)axe__bounds_add(bs.b, &bs.n, MAX_BOUNDS, src->it[ds], src->nit[ds]);
    if (dd >= 0)
        (void)axe__bounds_add(bs.b, &bs.n, MAX_BOUNDS, dst->it[dd],
                              dst->nit[dd]);
    i = axe__bounds_break(bs.b, bs.n);
    if (i >= 0)
        return chain_fail(src, ds, dst, dd, &bs, i, diag);
    return push_digits(p, src, ds, dst, dd, &bs, diag);
}

/* Offsets and replicas of "l" into the plan's fields. */
static void load_rest(const axe_layout *l, int64_t *dev0, int64_t *m0,
                      ax_dist_rep *rep, int32_t *nrep)
{
    int i;
    *dev0 = 0;
    *m0 = 0;
    for (i = 0; i < l->noffset; i++) {
        if (is_axis(l->offset[i].axis, "gpuid"))
            *dev0 += l->offset[i].value;
        else
            *m0 += l->offset[i].value;
    }
    *nrep = 0;
    for (i = 0; i < l->nreplica; i++)
        if (l->replica[i].extent != 1) {
            rep[*nrep].extent = l->replica[i].extent;
            rep[*nrep].dev = l->replica[i].stride;
            (*nrep)++;
        }
}

static axe_status check_args(const int64_t *shape, int n, const axe_layout *src,
                             const axe_layout *dst, int64_t ndev,
                             ax_dist_plan *out, axe_diag *diag)
{
    int d;
    if (shape == NULL || src == NULL || dst == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the planner needs a shape, two layouts and a plan");
    if (n < 0 || n > AX_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "a distributed tensor has at most %d dims, not %d",
                         AX_MAX_DIMS, n);
    if (ndev < 1 || ndev > AX_DIST_MAX_DEVICES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the mesh has %lld devices; the planner takes 1 to "
                         "%d",
                         (long long)ndev, AX_DIST_MAX_DEVICES);
    for (d = 0; d < n; d++)
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d has extent %lld", d, (long long)shape[d]);
    return AXE_OK;
}

static void plan_init(ax_dist_plan *p, const axe_layout *src,
                      const axe_layout *dst, int64_t ndev)
{
    memset(p, 0, sizeof *p);
    p->ndev = (int32_t)ndev;
    p->root = -1;
    p->k = -1;
    load_rest(src, &p->src_dev0, &p->src_m0, p->src_rep, &p->nsrc_rep);
    load_rest(dst, &p->dst_dev0, &p->dst_m0, p->dst_rep, &p->ndst_rep);
}

axe_status axe__dist_plan_copy(const int64_t *shape, int n,
                               const axe_layout *src, const axe_layout *dst,
                               int64_t ndev, ax_dist_plan *out, axe_diag *diag)
{
    side s, t;
    ax_dist_plan p;
    int d;
    AXE_TRY(check_args(shape, n, src, dst, ndev, out, diag));
    s.role = "src";
    t.role = "dst";
    AXE_TRY(load_side(src, shape, n, &s, diag));
    AXE_TRY(load_side(dst, shape, n, &t, diag));
    plan_init(&p, src, dst, ndev);
    for (d = 0; d < n; d++)
        AXE_TRY(refine_dim(&p, &s, d, &t, d, diag));
    AXE_TRY(axe__dist_finish(&p, diag));
    *out = p;
    return AXE_OK;
}

axe_status axe__dist_plan_reduce(const int64_t *shape, int n,
                                 const axe_layout *src, const axe_layout *dst,
                                 int k, ax_red op, int64_t ndev,
                                 ax_dist_plan *out, axe_diag *diag)
{
    side s, t;
    int64_t dshape[AX_MAX_DIMS];
    ax_dist_plan p;
    int d;
    AXE_TRY(check_args(shape, n, src, dst, ndev, out, diag));
    if (k < 0 || k >= n)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "reduced dim %d is not a dim of src (%d dims)", k, n);
    if (op != AX_RED_SUM && op != AX_RED_MAX && op != AX_RED_MIN)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "device reduce combines with sum, max or min, not %s",
                         axe__red_name(op));
    for (d = 0; d < n; d++)
        if (d != k)
            dshape[d - (d > k)] = shape[d];
    s.role = "src";
    t.role = "dst";
    AXE_TRY(load_side(src, shape, n, &s, diag));
    AXE_TRY(load_side(dst, dshape, n - 1, &t, diag));
    plan_init(&p, src, dst, ndev);
    p.reduce = 1;
    p.k = k;
    p.op = op;
    for (d = 0; d < n; d++)
        AXE_TRY(refine_dim(&p, &s, d, &t, d == k ? -1 : d - (d > k), diag));
    AXE_TRY(axe__dist_finish(&p, diag));
    *out = p;
    return AXE_OK;
}
