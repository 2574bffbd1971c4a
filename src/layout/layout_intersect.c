/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tile intersection (axe's own, `axe intersect --tile`; the paper's
 * iter intersection is layout_intersect_iter.c): the largest layout I with
 * a = C_a ⊗ I and b = C_b ⊗ I, under either rule of tile.
 * Such an I (without replica or offset) is, in canonical form, a common
 * suffix of the canonical shards of a and b whose outermost iter may be cut
 * to its inner part (d, s) with d dividing both extents; so the candidates
 * are enumerated by that suffix, longest first, and by d, largest first,
 * which is decreasing size, and the first one both layouts are tiles of
 * (is_tile_inner over the 1-D shapes [size], [size(I)]) is the answer.
 * Invariant: the answer is a verified common inner tile; S[1:1] when only
 * the trivial one exists.
 */
#include "layout_tile_internal.h"

/* Divisors of an extent above this bound squared are tried only down to
 * extent / bound and from the bound down (a 2^20-step scan at most). */
#define DIVISOR_SCAN_MAX (INT64_C(1) << 20)

typedef struct isect {
    axe_layout ca, cb;
    int64_t na, nb;
    const char *axis; /* padded, or NULL for any axis */
    axe_target target;
    axe_rule rule;
    int full;      /* common trailing iters in the candidate */
    axe_iter edge; /* the iter the outermost candidate iter cuts */
    axe_layout best;
    bool found;
} isect;

static bool axis_ok(const isect *s, const axe_iter *it)
{
    return s->axis == NULL || axe__axis_eq(it->axis, s->axis);
}

static const axe_iter *from_end(const axe_layout *l, int k)
{
    return k < l->nshard ? &l->shard[l->nshard - 1 - k] : NULL;
}

/* The number of equal trailing iters of the canonical shards (on the axis). */
static int common_tail(const isect *s)
{
    int k = 0;
    for (;; k++) {
        const axe_iter *x = from_end(&s->ca, k), *y = from_end(&s->cb, k);
        if (x == NULL || y == NULL || !axis_ok(s, x) ||
            x->extent != y->extent || x->stride != y->stride ||
            !axe__axis_eq(x->axis, y->axis))
            return k;
    }
}

/* Whether "l" (of size "nl") is a tile with inner factor "c" of size "nc". */
static axe_status is_tile_of(const axe_layout *l, int64_t nl,
                             const axe_layout *c, int64_t nc, axe_target t,
                             axe_rule rule, bool *ok)
{
    axe_layout outer;
    axe_status st = axe_layout_is_tile_inner_rule(c, l, &nl, &nc, 1, t, rule,
                                                  &outer, ok, NULL);
    if (st == AXE_ERR_OVERFLOW)
        return st;
    if (st != AXE_OK)
        *ok = false;
    return AXE_OK;
}

/* Try the candidate (d, edge) + the "full" trailing iters; keep it if both
 * layouts are tiles of it. */
static axe_status try_cut(isect *s, int64_t d)
{
    axe_layout c;
    int64_t nc = d;
    bool ok;
    axe_layout_init(&c);
    if (d > 1)
        c.shard[c.nshard++] = (axe_iter){d, s->edge.stride, {0}};
    if (d > 1)
        axe__axis_copy(c.shard[0].axis, s->edge.axis);
    for (int k = s->full - 1; k >= 0; k--) {
        c.shard[c.nshard++] = *from_end(&s->ca, k);
        AXE_TRY(axe__mul(nc, from_end(&s->ca, k)->extent, &nc));
    }
    if (c.nshard == 0)
        return AXE_OK;
    AXE_TRY(is_tile_of(&s->ca, s->na, &c, nc, s->target, s->rule, &ok));
    if (ok)
        AXE_TRY(is_tile_of(&s->cb, s->nb, &c, nc, s->target, s->rule, &ok));
    if (ok) {
        s->best = c;
        s->found = true;
    }
    return AXE_OK;
}

/* Try the cuts d of "g" in decreasing order ("proper": d < g only) until
 * one is found. */
static axe_status try_divisors(isect *s, int64_t g, bool proper)
{
    int64_t k;
    for (k = 1; k <= DIVISOR_SCAN_MAX && k <= g / k && !s->found; k++)
        if (g % k == 0 && (!proper || k > 1))
            AXE_TRY(try_cut(s, g / k));
    for (k--; k >= 1 && !s->found; k--)
        if (g % k == 0 && k != g / k)
            AXE_TRY(try_cut(s, k));
    return AXE_OK;
}

/* The candidates with "full" common trailing iters, largest first. */
static axe_status try_level(isect *s, int full, int common)
{
    const axe_iter *x = from_end(&s->ca, full), *y = from_end(&s->cb, full);
    s->full = full;
    if (full < common) {
        s->edge = *x;
        return try_divisors(s, x->extent, true);
    }
    if (x != NULL && y != NULL && axis_ok(s, x) && x->stride == y->stride &&
        axe__axis_eq(x->axis, y->axis)) {
        s->edge = *x;
        return try_divisors(s, axe__gcd(x->extent, y->extent), false);
    }
    return try_cut(s, 1);
}

static axe_status prepare(isect *s, const axe_layout *a, const axe_layout *b,
                          axe_diag *diag)
{
    if (a->swizzle.present || b->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the iter intersection of swizzled layouts is not "
                         "defined");
    AXE_TRY(axe_layout_canonicalize(a, s->target, &s->ca, diag));
    AXE_TRY(axe_layout_canonicalize(b, s->target, &s->cb, diag));
    AXE_TRY(axe_layout_size(&s->ca, NULL, &s->na));
    return axe_layout_size(&s->cb, NULL, &s->nb);
}

axe_status axe_layout_intersect_iters_rule(const axe_layout *a,
                                           const axe_layout *b,
                                           const char *axis, axe_target target,
                                           axe_rule rule, axe_layout *out,
                                           axe_diag *diag)
{
    static isect zero;
    isect s = zero;
    char padded[AXE_AXIS_NAME_MAX];
    if (rule != AXE_RULE_PAPER && rule != AXE_RULE_TIRX)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "unknown rule %d",
                         (int)rule);
    s.target = target;
    s.rule = rule;
    if (axis != NULL) {
        AXE_TRY(axe__axis_name(axis, padded, diag));
        s.axis = padded;
    }
    AXE_TRY(prepare(&s, a, b, diag));
    for (int full = common_tail(&s), k = full; k >= 0 && !s.found; k--)
        AXE_TRY(try_level(&s, k, full));
    if (!s.found) {
        axe_layout_init(&s.best);
        s.best.shard[0].extent = 1;
        s.best.shard[0].stride = 1;
        axe__axis_copy(s.best.shard[0].axis,
                       axis != NULL ? padded : axe__name_m.s);
        s.best.nshard = 1;
    }
    *out = s.best;
    return AXE_OK;
}

axe_status axe_layout_intersect_iters(const axe_layout *a, const axe_layout *b,
                                      const char *axis, axe_target target,
                                      axe_layout *out, axe_diag *diag)
{
    return axe_layout_intersect_iters_rule(a, b, axis, target, AXE_RULE_PAPER,
                                           out, diag);
}
