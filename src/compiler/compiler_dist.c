/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner, part 1: the digit table of a `device copy` or
 * `device reduce` (compiler_dist.h). Each layout is grouped by its
 * tensor's shape (axe_layout_group); per dimension the inner products of
 * the src iters and of the dst iters are merged into one list of
 * boundaries (compiler_refine.c). The *cuts* are the weights both sides
 * split at (a weight w inside an iter [lo, hi) with lo | w | hi), taken
 * from the boundaries and their pairwise gcds and kept as a divisibility
 * chain. Between two consecutive cuts with no boundary inside lies one
 * sub-iter of each side: a digit whose stride on each side is its iter's
 * stride times the digit's weight inside the iter. Between two cuts with
 * boundaries inside (the sides' iters have no common refinement there),
 * one tabled digit: each side's pieces of its iters there, and the device
 * and address parts of every value, computed here by brute force (the
 * tabled digits' extents multiply to at most AX_DIST_MAX_CELLS: their
 * cells fit the plan, and what enumerates device digits stays bounded). When
 * the boundaries form a chain, the cuts are exactly the boundaries and no digit
 * is tabled. Then the plan's invariant is checked (compiler_dist_rule.c) and
 * the kind derived (compiler_dist_kind.c).
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

/* One dimension being refined: src dim "ds" and dst dim "dd" (-1: the
 * reduced dim, no dst side), the merged boundaries of their iters "bs"
 * and the cuts "cut" (compiler_dist.c's file comment). */
typedef struct dim_work {
    const side *src, *dst;
    int ds, dd;
    bounds bs, cut;
} dim_work;

/* Whether "it" (n iters, outer first) splits at weight "w": w lies in
 * an iter [lo, hi) (or on its end) with lo | w and w | hi. */
static bool splits_at(const axe_iter *it, int n, int64_t w)
{
    int64_t lo = 1;
    int i;
    for (i = n - 1; i >= 0; i--) {
        int64_t hi = lo * it[i].extent;
        if (w >= lo && w <= hi)
            return w % lo == 0 && hi % w == 0;
        lo = hi;
    }
    return w == lo;
}

static bool both_split(const dim_work *dw, int64_t w)
{
    return splits_at(dw->src->it[dw->ds], dw->src->nit[dw->ds], w) &&
           (dw->dd < 0 ||
            splits_at(dw->dst->it[dw->dd], dw->dst->nit[dw->dd], w));
}

/* Add "w" to the sorted candidates "c" (a full list keeps its points:
 * fewer gcd cuts only mean larger tables; the boundaries come first). */
static void cand_add(int64_t *c, int *n, int cap, int64_t w)
{
    int j, k;
    for (j = 0; j < *n && c[j] < w; j++)
        ;
    if ((j < *n && c[j] == w) || *n == cap)
        return;
    for (k = *n; k > j; k--)
        c[k] = c[k - 1];
    c[j] = w;
    (*n)++;
}

/* The cuts: the boundaries and their pairwise gcds that both sides split
 * at, kept in increasing order when the last kept one divides them (a
 * divisibility chain from 1 to the dim's extent). When the boundaries
 * are a chain, the cuts are exactly the boundaries. */
static void find_cuts(dim_work *dw)
{
    int64_t c[4 * MAX_BOUNDS];
    int n = 0, i, j;
    for (i = 0; i < dw->bs.n; i++) /* all fit: 1 and the extent among them */
        cand_add(c, &n, 4 * MAX_BOUNDS, dw->bs.b[i]);
    for (i = 0; i < dw->bs.n; i++)
        for (j = i + 1; j < dw->bs.n; j++)
            cand_add(c, &n, 4 * MAX_BOUNDS, axe__gcd(dw->bs.b[j], dw->bs.b[i]));
    dw->cut.n = 0;
    for (i = 0; i < n; i++)
        if (both_split(dw, c[i]) &&
            (dw->cut.n == 0 || c[i] % dw->cut.b[dw->cut.n - 1] == 0))
            dw->cut.b[dw->cut.n++] = c[i];
}

/* Whether some boundary lies strictly between weights "lo" and "hi". */
static bool bound_inside(const bounds *bs, int64_t lo, int64_t hi)
{
    int i;
    for (i = 0; i < bs->n; i++)
        if (bs->b[i] > lo && bs->b[i] < hi)
            return true;
    return false;
}

static axe_status new_digit(ax_dist_plan *p, const dim_work *dw, int64_t e,
                            ax_dist_digit **g, axe_diag *diag)
{
    if (p->ndigits == AX_DIST_MAX_DIGITS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the plan needs more than %d digits",
                         AX_DIST_MAX_DIGITS);
    *g = &p->digit[p->ndigits++];
    memset(*g, 0, sizeof **g);
    (*g)->extent = e;
    (*g)->dim = dw->ds;
    (*g)->reduced = dw->dd < 0;
    return AXE_OK;
}

/* The digit of weights [lo, hi) lying inside one iter of each side. */
static axe_status stride_digit(ax_dist_plan *p, const dim_work *dw, int64_t lo,
                               int64_t hi, axe_diag *diag)
{
    ax_dist_digit *g;
    AXE_TRY(new_digit(p, dw, hi / lo, &g, diag));
    if (sub_stride(dw->src->it[dw->ds], dw->src->nit[dw->ds], lo, &g->src_dev,
                   &g->src_m) != AXE_OK ||
        (dw->dd >= 0 && sub_stride(dw->dst->it[dw->dd], dw->dst->nit[dw->dd],
                                   lo, &g->dst_dev, &g->dst_m) != AXE_OK))
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "dim %d: a digit's stride overflows", dw->ds);
    return AXE_OK;
}

/* The pieces of "it" (n iters) between weights "lo" and "hi" (both split
 * points of it), outer first, into "sub". */
static axe_status side_subs(const axe_iter *it, int n, int64_t lo, int64_t hi,
                            ax_dist_sub *sub, int32_t *nsub)
{
    int64_t w = 1, a, b, s;
    int i, k = 0;
    for (i = n - 1; i >= 0; i--, w *= it[i + 1].extent) {
        a = w > lo ? w : lo;
        b = w * it[i].extent < hi ? w * it[i].extent : hi;
        if (a >= b)
            continue;
        AXE_TRY(axe__mul(it[i].stride, a / w, &s));
        sub[k].extent = b / a;
        sub[k].dev = is_axis(it[i].axis, "gpuid") ? s : 0;
        sub[k].m = is_axis(it[i].axis, "gpuid") ? 0 : s;
        k++;
    }
    for (i = 0; i < k / 2; i++) { /* inner first -> outer first */
        ax_dist_sub t = sub[i];
        sub[i] = sub[k - 1 - i];
        sub[k - 1 - i] = t;
    }
    *nsub = k;
    return AXE_OK;
}

/* Part "v" of side "sd" of table "t": v decomposed by its subs. */
static axe_status sub_parts(const ax_dist_tab *t, int sd, int64_t v,
                            int64_t *dev, int64_t *m)
{
    int64_t y, a;
    int j;
    *dev = 0;
    *m = 0;
    for (j = t->nsub[sd] - 1; j >= 0; j--) {
        const ax_dist_sub *u = &t->sub[sd][j];
        y = v % u->extent;
        v /= u->extent;
        AXE_TRY(axe__mul(y, u->dev, &a));
        AXE_TRY(axe__add(*dev, a, dev));
        AXE_TRY(axe__mul(y, u->m, &a));
        AXE_TRY(axe__add(*m, a, m));
    }
    return AXE_OK;
}

/* Product of the extents of the plan's tabled digits so far. */
static int64_t tabled_product(const ax_dist_plan *p)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < p->ndigits; i++)
        if (p->digit[i].tab > 0)
            n *= p->digit[i].extent; /* <= AX_DIST_MAX_CELLS */
    return n;
}

/* The reason dim "ds" cannot be tabled: beyond the bound. */
static axe_status table_fail(const ax_dist_plan *p, const dim_work *dw,
                             int64_t lo, int64_t hi, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "dim %d: the iters of src and dst have no common "
                     "refinement between weights %lld and %lld; no plan by "
                     "digits exists (a tabled digit of extent %lld, times "
                     "the plan's other tabled digits' %lld, is beyond the "
                     "table bound %d)",
                     dw->ds, (long long)lo, (long long)hi, (long long)(hi / lo),
                     (long long)tabled_product(p), AX_DIST_MAX_CELLS);
}

/* The tabled digit of weights [lo, hi): each side's pieces there and the
 * parts of every value (compiler_dist.h, "Tables"). */
static axe_status tabled_digit(ax_dist_plan *p, const dim_work *dw, int64_t lo,
                               int64_t hi, axe_diag *diag)
{
    ax_dist_digit *g;
    ax_dist_tab *t;
    int64_t v, e = hi / lo;
    if (p->ntab == AX_DIST_MAX_TABS ||
        e > AX_DIST_MAX_CELLS / tabled_product(p))
        return table_fail(p, dw, lo, hi, diag);
    AXE_TRY(new_digit(p, dw, e, &g, diag));
    g->tab = ++p->ntab;
    t = &p->tab[p->ntab - 1];
    t->cell = p->ncell;
    if (side_subs(dw->src->it[dw->ds], dw->src->nit[dw->ds], lo, hi, t->sub[0],
                  &t->nsub[0]) != AXE_OK ||
        side_subs(dw->dst->it[dw->dd], dw->dst->nit[dw->dd], lo, hi, t->sub[1],
                  &t->nsub[1]) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "dim %d: a table's stride overflows", dw->ds);
    for (v = 0; v < e; v++) {
        ax_dist_cell *c = &p->cell[p->ncell++];
        if (sub_parts(t, 0, v, &c->src_dev, &c->src_m) != AXE_OK ||
            sub_parts(t, 1, v, &c->dst_dev, &c->dst_m) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "dim %d: a table's entry overflows", dw->ds);
    }
    return AXE_OK;
}

/* The digits of src dim "ds" refined with dst dim "dd" (-1: reduced),
 * outermost first: between two consecutive cuts, one digit of a stride
 * on each side when no boundary lies inside, else a tabled digit. */
static axe_status refine_dim(ax_dist_plan *p, const side *src, int ds,
                             const side *dst, int dd, axe_diag *diag)
{
    dim_work dw;
    int i;
    dw.src = src;
    dw.dst = dst;
    dw.ds = ds;
    dw.dd = dd;
    dw.bs.n = 1;
    dw.bs.b[0] = 1; /* both sides' iters fit: MAX_BOUNDS counts them */
    (void)axe__bounds_add(dw.bs.b, &dw.bs.n, MAX_BOUNDS, src->it[ds],
                          src->nit[ds]);
    if (dd >= 0)
        (void)axe__bounds_add(dw.bs.b, &dw.bs.n, MAX_BOUNDS, dst->it[dd],
                              dst->nit[dd]);
    find_cuts(&dw);
    for (i = dw.cut.n - 2; i >= 0; i--) {
        int64_t lo = dw.cut.b[i], hi = dw.cut.b[i + 1];
        AXE_TRY(bound_inside(&dw.bs, lo, hi)
                    ? tabled_digit(p, &dw, lo, hi, diag)
                    : stride_digit(p, &dw, lo, hi, diag));
    }
    return AXE_OK;
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
