/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Grouping an Axe layout's shard by logical shapes (spec §7). group splits
 * shard iters so that dim d of a shape owns the contiguous block
 * shard[seps[d] .. seps[d+1]) whose extents multiply to shape[d] (TIRx's
 * greedy: existing unit iters disappear, a dim of 1 gets a unit iter).
 * group_many refines the shard by the cumulative products of several
 * shapes at once, keeping repeated boundaries (unit dims, unit iters) as
 * unit iters. Splitting (e, s) into (e/c, s c), (c, s) enumerates the same
 * values, so both keep D(x) for every x < size; replica and offset are
 * untouched and nothing is canonicalized. Invariant of a result: seps
 * starts at 0, is nondecreasing, ends at the shard length.
 */
#include <stdio.h>

#include "layout_internal.h"

/* Boundaries of one sequence: its cumulative products 1, x0, x0 x1, .. */
#define MAX_BOUNDS (AXE_LAYOUT_MAX_SHARD + 1)
/* group_many: shapes at most AXE_LAYOUT_MAX_DIMS, plus the layout. */
#define MAX_SEQS (AXE_LAYOUT_MAX_DIMS + 1)

/* "[8,4]" into "buf" (truncated with "..." when long). */
static const char *shape_text(const int64_t *shape, int n, char *buf,
                              size_t cap)
{
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    for (int d = 0; d < n && w >= 0 && (len += (size_t)w) < cap; d++)
        w = snprintf(buf + len, cap - len, "%s%lld", d > 0 ? "," : "",
                     (long long)shape[d]);
    if (w >= 0 && (len += (size_t)w) < cap)
        snprintf(buf + len, cap - len, "]");
    else if (cap > 4)
        memcpy(buf + cap - 4, "...", 4);
    return buf;
}

/* Shard extents >= 1 and shape dims >= 1. */
static axe_status check_group_args(const axe_layout *l, const int64_t *shape,
                                   int n, axe_diag *diag)
{
    if (l == NULL || n < 0 || (n > 0 && shape == NULL) ||
        l->nshard > AXE_LAYOUT_MAX_SHARD)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "group needs a layout and a shape");
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shard iter %d has extent %lld < 1", k,
                             (long long)l->shard[k].extent);
    for (int d = 0; d < n; d++)
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shape dim %d is %lld; dims must be >= 1", d,
                             (long long)shape[d]);
    return AXE_OK;
}

/* Whether the boundary "b" (a product of leading dims) falls inside shard
 * iter k: b lies past the iters before k but is not their product times a
 * divisor of e_k. *k is the iter, or nshard when b exceeds the size. */
static bool boundary_inside(const axe_layout *l, int64_t b, int *k)
{
    int64_t before = 1, upto;
    for (*k = 0; *k < l->nshard; (*k)++, before = upto) {
        if (axe__mul(before, l->shard[*k].extent, &upto) != AXE_OK)
            return false;
        if (b <= upto)
            return b % before != 0 || l->shard[*k].extent % (b / before) != 0;
    }
    return false;
}

/* The reason "l" cannot be grouped by "shape": sizes differ, or the first
 * boundary between dims that falls inside an iter, or an empty shard. */
static axe_status group_fail(const axe_layout *l, const int64_t *shape, int n,
                             axe_diag *diag)
{
    char text[128];
    int64_t size = 1, b = 1;
    int k;
    shape_text(shape, n, text, sizeof text);
    for (k = 0; k < l->nshard; k++)
        if (axe__mul(size, l->shard[k].extent, &size) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the layout's size overflows");
    for (int d = 0; d < n; d++) {
        if (axe__mul(b, shape[d], &b) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the size of shape %s overflows", text);
        if (d + 1 < n && b < size && boundary_inside(l, b, &k))
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "layout can not be grouped by shape %s: "
                             "boundary %lld after dim %d falls inside iter "
                             "%d (%lld:%lld@%s)",
                             text, (long long)b, d, k,
                             (long long)l->shard[k].extent,
                             (long long)l->shard[k].stride, l->shard[k].axis);
    }
    if (b != size)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "layout can not be grouped by shape %s: the layout "
                         "has %lld elements, the shape %lld",
                         text, (long long)size, (long long)b);
    return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                     "layout can not be grouped by shape %s: the shard is "
                     "empty, no iter can be split for its dims",
                     text);
}

/* Group state: the dims placed so far and the product "p" of the current
 * dim's part seen so far (spec §7). */
typedef struct grouping {
    axe_layout out;
    int idx;
    int64_t p;
} grouping;

/* Feed shard iter (e, s, a) to "g": close every dim whose extent divides
 * the running product, splitting the iter; false when a dim's boundary
 * falls inside the iter or no dim is left for it. */
static axe_status group_iter(grouping *g, const axe_iter *it,
                             const int64_t *shape, int n, int *seps, bool *ok)
{
    int64_t e = it->extent, c, q, s;
    AXE_TRY(axe__mul(g->p, e, &g->p));
    while (g->idx < n && axe__exact_div(g->p, shape[g->idx], &c)) {
        if (!axe__exact_div(e, c, &q))
            return AXE_OK;
        AXE_TRY(axe__mul(it->stride, c, &s));
        AXE_TRY(axe__iter_append(g->out.shard, &g->out.nshard,
                                 AXE_LAYOUT_MAX_SHARD, q, s, it->axis));
        e = c;
        g->p = c;
        seps[++g->idx] = g->out.nshard;
    }
    if (e != 1) {
        if (g->idx >= n)
            return AXE_OK;
        AXE_TRY(axe__iter_append(g->out.shard, &g->out.nshard,
                                 AXE_LAYOUT_MAX_SHARD, e, it->stride,
                                 it->axis));
    }
    *ok = true;
    return AXE_OK;
}

/*
 * "l" grouped by "shape" (spec §7): the shard refined so that dim d owns
 * shard[seps[d] .. seps[d+1]) with extents multiplying to shape[d]; unit
 * iters of "l" disappear, a dim of 1 gets a unit iter (1, s p). The
 * refinement keeps D(x) for every x (an iter split into (e/c, s c), (c, s)
 * enumerates the same values); replica and offset are kept.
 */
axe_status axe_layout_group(const axe_layout *l, const int64_t *shape, int n,
                            axe_layout *out, int *seps, axe_diag *diag)
{
    grouping g;
    int sp[AXE_LAYOUT_MAX_SHARD + 1];
    AXE_TRY(check_group_args(l, shape, n, diag));
    if (out == NULL || seps == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "group needs outputs for the layout and seps");
    if (n > AXE_LAYOUT_MAX_SHARD)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "shape has %d dims; at most %d", n,
                         AXE_LAYOUT_MAX_SHARD);
    axe__layout_copy_rest(&g.out, l);
    g.idx = 0;
    g.p = 1;
    sp[0] = 0;
    for (int k = 0; k < l->nshard; k++) {
        bool ok = false;
        axe_status st = group_iter(&g, &l->shard[k], shape, n, sp, &ok);
        if (st == AXE_ERR_CAPACITY)
            return axe__fail(diag, st, -1,
                             "grouping needs more than %d shard iters",
                             AXE_LAYOUT_MAX_SHARD);
        if (st != AXE_OK)
            return axe__fail(diag, st, -1, "grouping overflows at iter %d", k);
        if (!ok)
            return group_fail(l, shape, n, diag);
    }
    if (g.idx != n)
        return group_fail(l, shape, n, diag);
    axe__layout_copy(out, &g.out);
    memcpy(seps, sp, (size_t)(n + 1) * sizeof *seps);
    return AXE_OK;
}

/* A sequence of cumulative boundaries 1, x0, x0 x1, .. (spec §7). */
typedef struct bounds {
    int n;
    int64_t v[MAX_BOUNDS];
} bounds;

/* The boundaries of x[0 .. n) (shape "which", or the layout's extents
 * when which < 0: those are >= 1); a step must not decrease them (TIRx's
 * "cannot prove cumulative boundary order": a dim < 1). With integer dims
 * a boundary is always a multiple of the one before it. */
static axe_status make_bounds(const int64_t *x, int n, int which, bounds *b,
                              axe_diag *diag)
{
    b->n = 1;
    b->v[0] = 1;
    for (int d = 0; d < n; d++) {
        int64_t prev = b->v[d], cur;
        if (axe__mul(prev, x[d], &cur) != AXE_OK && which < 0)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "group_many: the layout's size overflows");
        if (axe__mul(prev, x[d], &cur) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "group_many: the size of shape %d overflows",
                             which);
        if (cur < prev)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "group_many cannot prove cumulative boundary "
                             "order for shape %d at dimension %d: %lld <= "
                             "%lld",
                             which, d, (long long)prev, (long long)cur);
        b->v[b->n++] = cur;
    }
    return AXE_OK;
}

/* The boundary sequences of the shapes (seq[0 .. nshapes)) and of the
 * layout's extents (seq[nshapes]), with equal totals. */
static axe_status all_bounds(const axe_layout *l, const int64_t *const *shapes,
                             const int *ns, int nshapes, bounds *seq,
                             axe_diag *diag)
{
    int64_t ext[AXE_LAYOUT_MAX_SHARD], total;
    for (int k = 0; k < nshapes; k++)
        AXE_TRY(make_bounds(shapes[k], ns[k], k, &seq[k], diag));
    for (int k = 0; k < l->nshard; k++)
        ext[k] = l->shard[k].extent;
    AXE_TRY(make_bounds(ext, l->nshard, -1, &seq[nshapes], diag));
    total = seq[0].v[seq[0].n - 1];
    for (int k = 1; k < nshapes; k++)
        if (seq[k].v[seq[k].n - 1] != total)
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "group_many cannot prove equal total products "
                             "for shape 0 and shape %d: %lld vs %lld",
                             k, (long long)total,
                             (long long)seq[k].v[seq[k].n - 1]);
    if (seq[nshapes].v[seq[nshapes].n - 1] != total)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "group_many cannot prove that the layout and shapes "
                         "have equal total products: %lld vs %lld",
                         (long long)seq[nshapes].v[seq[nshapes].n - 1],
                         (long long)total);
    return AXE_OK;
}

/* The common boundaries: each distinct value (ascending) repeated as often
 * as the sequence holding it most often holds it. */
typedef struct common {
    int nclass;
    int64_t cls[MAX_BOUNDS];
    int start[MAX_BOUNDS];
    int mult[MAX_BOUNDS];
    int n;
    int64_t v[MAX_BOUNDS];
} common;

static int class_of(const common *c, int64_t v)
{
    int i = 0;
    while (c->cls[i] != v)
        i++;
    return i;
}

/* Insert the distinct value "v" into the sorted classes; CAPACITY when
 * there are more than MAX_BOUNDS. */
static axe_status add_class(common *c, int64_t v)
{
    int i = 0;
    while (i < c->nclass && c->cls[i] < v)
        i++;
    if (i < c->nclass && c->cls[i] == v)
        return AXE_OK;
    if (c->nclass == MAX_BOUNDS)
        return AXE_ERR_CAPACITY;
    memmove(&c->cls[i + 1], &c->cls[i],
            (size_t)(c->nclass - i) * sizeof c->cls[0]);
    c->cls[i] = v;
    c->nclass++;
    return AXE_OK;
}

/* Multiplicity of class i: the most times one sequence holds its value. */
static int multiplicity(const bounds *seq, int nseq, int64_t v)
{
    int best = 0;
    for (int k = 0; k < nseq; k++) {
        int cnt = 0;
        for (int i = 0; i < seq[k].n; i++)
            cnt += seq[k].v[i] == v;
        best = cnt > best ? cnt : best;
    }
    return best;
}

static axe_status make_common(const bounds *seq, int nseq, common *c,
                              axe_diag *diag)
{
    c->nclass = 0;
    c->n = 0;
    for (int k = 0; k < nseq; k++)
        for (int i = 0; i < seq[k].n; i++)
            if (add_class(c, seq[k].v[i]) != AXE_OK)
                goto capacity;
    for (int i = 0; i < c->nclass; i++) {
        c->start[i] = c->n;
        c->mult[i] = multiplicity(seq, nseq, c->cls[i]);
        if (c->n + c->mult[i] > MAX_BOUNDS)
            goto capacity;
        for (int r = 0; r < c->mult[i]; r++)
            c->v[c->n++] = c->cls[i];
    }
    for (int i = 1; i < c->n; i++)
        if (c->v[i] % c->v[i - 1] != 0)
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "group_many has incompatible cumulative "
                             "boundaries: %lld does not divide %lld",
                             (long long)c->v[i - 1], (long long)c->v[i]);
    return AXE_OK;
capacity:
    return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                     "group_many needs more than %d shard iters",
                     AXE_LAYOUT_MAX_SHARD);
}

/* Slot of each boundary of "b" in the common list: its class start plus
 * the times its value was seen before; the first boundary takes the class
 * start, the last the class's last slot. Slots strictly increase (equal
 * values take successive slots; a larger value's class starts after). */
static void positions(const common *c, const bounds *b, int *pos)
{
    int seen[MAX_BOUNDS] = {0};
    for (int i = 0; i < b->n; i++) {
        int k = class_of(c, b->v[i]);
        pos[i] = c->start[k] + seen[k]++;
        if (i == 0)
            pos[i] = c->start[k];
        if (i + 1 == b->n)
            pos[i] = c->start[k] + c->mult[k] - 1;
        AXE_ASSERT(i == 0 || pos[i] > pos[i - 1]);
    }
}

/* Layout iter k spanning slots [p, q) becomes the iters
 * (C[j+1] / C[j], s_k C[q] / C[j+1], a_k) for j = p .. q-1. */
static axe_status refine(const axe_layout *l, const common *c, const int *pos,
                         axe_layout *out, axe_diag *diag)
{
    axe__layout_copy_rest(out, l);
    for (int k = 0; k < l->nshard; k++) {
        const axe_iter *it = &l->shard[k];
        for (int j = pos[k]; j < pos[k + 1]; j++) {
            int64_t s;
            if (axe__mul(it->stride, c->v[pos[k + 1]] / c->v[j + 1], &s) !=
                AXE_OK)
                return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                                 "group_many: a stride of iter %d overflows",
                                 k);
            AXE_TRY(axe__iter_append(out->shard, &out->nshard,
                                     AXE_LAYOUT_MAX_SHARD,
                                     c->v[j + 1] / c->v[j], s, it->axis));
        }
    }
    return AXE_OK;
}

static axe_status check_many_args(const axe_layout *l,
                                  const int64_t *const *shapes, const int *ns,
                                  int nshapes, axe_diag *diag)
{
    AXE_TRY(check_group_args(l, NULL, 0, diag));
    if (nshapes < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "group_many requires at least one shape");
    if (shapes == NULL || ns == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "group_many needs the shapes and their ranks");
    if (nshapes > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "group_many takes at most %d shapes",
                         AXE_LAYOUT_MAX_DIMS);
    for (int k = 0; k < nshapes; k++) {
        if (ns[k] < 1 || shapes[k] == NULL)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "group_many shape %d must not be empty", k);
        if (ns[k] > AXE_LAYOUT_MAX_DIMS)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "group_many shape %d has %d dims; at most %d", k,
                             ns[k], AXE_LAYOUT_MAX_DIMS);
    }
    return AXE_OK;
}

/*
 * "l" grouped by all of "shapes" at once (spec §7): the shard refined at
 * the common boundaries, the distinct cumulative products of the shapes
 * and of the layout's extents, each repeated as often as one sequence
 * repeats it (so unit dims and unit iters stay as unit iters). Shape k's
 * dim d owns shard[seps[k][d] .. seps[k][d+1]). Keeps D(x) for every x.
 */
axe_status axe_layout_group_many(const axe_layout *l,
                                 const int64_t *const *shapes, const int *ns,
                                 int nshapes, axe_layout *out,
                                 int (*seps)[AXE_LAYOUT_MAX_DIMS + 1],
                                 axe_diag *diag)
{
    bounds seq[MAX_SEQS];
    common c;
    int pos[MAX_BOUNDS];
    axe_layout r;
    AXE_TRY(check_many_args(l, shapes, ns, nshapes, diag));
    if (out == NULL || seps == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "group_many needs outputs for the layout and seps");
    AXE_TRY(all_bounds(l, shapes, ns, nshapes, seq, diag));
    if (l->nshard == 0)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "group_many cannot give the dims of the shapes "
                         "(all 1) an iter: the layout's shard is empty");
    AXE_TRY(make_common(seq, nshapes + 1, &c, diag));
    positions(&c, &seq[nshapes], pos);
    AXE_TRY(refine(l, &c, pos, &r, diag));
    for (int k = 0; k < nshapes; k++)
        positions(&c, &seq[k], seps[k]);
    axe__layout_copy(out, &r);
    return AXE_OK;
}
