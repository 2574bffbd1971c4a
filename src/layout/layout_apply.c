/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The forward maps of Axe layouts (spec §5, §6, §11): size, span, TIRx's
 * base point D(x) + O (linear, per iter, with a shape), the per-iter digits
 * of a coordinate, and the paper's set L(x) = { D(x) + r + O }. A point is
 * first computed on the tile ("tile point", swizzle not applied) and then
 * finished: with a swizzle the tile point must lie on `m` only and m is
 * replaced by addr(m). Invariant: every sum is overflow checked, so a point
 * is either exact or the call fails with AXE_ERR_OVERFLOW.
 */
#include "layout_internal.h"

/* One step of SplitCoord for x >= 0: shifts for powers of two. */
static inline int64_t split_step(int64_t *x, int64_t e)
{
    int64_t d;
    if ((e & (e - 1)) == 0) {
        d = *x & (e - 1);
        *x = (int64_t)((uint64_t)*x >> __builtin_ctzll((uint64_t)e));
    } else {
        int64_t q = *x / e;
        d = *x - q * e;
        *x = q;
    }
    return d;
}

axe_status axe__split_coord(int64_t x, const axe_iter *it, int n,
                            int64_t *digits)
{
    for (int k = n - 1; k >= 1; k--) {
        int64_t e = it[k].extent;
        if (e < 1)
            return AXE_ERR_INVALID;
        if (x >= 0) {
            digits[k] = split_step(&x, e);
        } else {
            digits[k] = axe__floormod(x, e);
            x = axe__floordiv(x, e);
        }
    }
    if (n > 0)
        digits[0] = x;
    return AXE_OK;
}

bool axe__swizzle_ok(const axe_layout_swizzle *sw)
{
    return !sw->present ||
           (sw->per_element >= 0 && sw->len >= 0 && sw->atom >= sw->len &&
            sw->per_element <= 62 && sw->atom + sw->len <= 62);
}

/* f(x): bits [S, S+B) xored into [0, B) (inner) or [0, B) into [S, S+B). */
static int64_t swizzle_bits(const axe_layout_swizzle *sw, int64_t x)
{
    int64_t inner_mask = ((int64_t)1 << sw->len) - 1;
    if (sw->inner)
        return x ^ ((x & (inner_mask << sw->atom)) >> sw->atom);
    return x ^ ((x & inner_mask) << sw->atom);
}

/* addr(m) = f(m div 2^M) * 2^M + m mod 2^M (spec §11). */
axe_status axe__swizzle_addr(const axe_layout_swizzle *sw, int64_t m,
                             int64_t *out)
{
    int64_t unit, q, r, hi;
    if (!sw->present || sw->len == 0) {
        *out = m;
        return AXE_OK;
    }
    if (!axe__swizzle_ok(sw))
        return AXE_ERR_INVALID;
    unit = (int64_t)1 << sw->per_element;
    q = axe__floordiv(m, unit);
    r = axe__floormod(m, unit);
    AXE_TRY(axe__mul(swizzle_bits(sw, q), unit, &hi));
    return axe__add(hi, r, out);
}

/* (e - 1) * s added to "acc"; (e - 1) * |s| under the paper's rule. */
static axe_status add_extent_span(const axe_iter *it, axe_rule rule,
                                  int64_t *acc)
{
    int64_t t, s = it->stride;
    if (rule == AXE_RULE_PAPER && s < 0)
        AXE_TRY(axe__sub(0, s, &s));
    AXE_TRY(axe__mul(it->extent - 1, s, &t));
    return axe__add(*acc, t, acc);
}

axe_status axe__span_axis(const axe_layout *l, const char *axis, axe_rule rule,
                          int64_t *out)
{
    int64_t acc = 1;
    for (int k = 0; k < l->nshard; k++)
        if (axe__axis_eq(l->shard[k].axis, axis))
            AXE_TRY(add_extent_span(&l->shard[k], rule, &acc));
    for (int k = 0; k < l->nreplica; k++)
        if (axe__axis_eq(l->replica[k].axis, axis))
            AXE_TRY(add_extent_span(&l->replica[k], rule, &acc));
    if (rule == AXE_RULE_TIRX)
        AXE_TRY(axe__add(acc, axe__layout_offset_get(l, axis), &acc));
    *out = acc;
    return AXE_OK;
}

/* The padded form of an optional axis argument; a swizzled layout takes
 * none (TIRx). */
static axe_status axis_arg(const axe_layout *l, const char *axis, char *out)
{
    if (axis == NULL)
        return AXE_OK;
    if (l->swizzle.present)
        return AXE_ERR_INVALID;
    return axe__axis_name(axis, out, NULL);
}

/* Product of the shard extents (on "axis" when given); replicas never
 * count; 1 for none. */
axe_status axe_layout_size(const axe_layout *l, const char *axis, int64_t *out)
{
    char padded[AXE_AXIS_NAME_MAX];
    int64_t acc = 1;
    AXE_TRY(axis_arg(l, axis, padded));
    for (int k = 0; k < l->nshard; k++)
        if (axis == NULL || axe__axis_eq(l->shard[k].axis, padded))
            AXE_TRY(axe__mul(acc, l->shard[k].extent, &acc));
    *out = acc;
    return AXE_OK;
}

/* Without an axis: 1 + sum (e-1) s over the iters on all memory axes
 * together (|s| under the paper's rule; TIRx's adds their offsets; spec
 * §5; thread and device axes excluded). */
static axe_status span_memory(const axe_layout *l, axe_rule rule, int64_t *out)
{
    int64_t acc = 1;
    for (int k = 0; k < l->nshard; k++)
        if (axe__is_memory_axis(l->shard[k].axis))
            AXE_TRY(add_extent_span(&l->shard[k], rule, &acc));
    for (int k = 0; k < l->nreplica; k++)
        if (axe__is_memory_axis(l->replica[k].axis))
            AXE_TRY(add_extent_span(&l->replica[k], rule, &acc));
    for (int i = 0; i < l->noffset && rule == AXE_RULE_TIRX; i++)
        if (axe__is_memory_axis(l->offset[i].axis))
            AXE_TRY(axe__add(acc, l->offset[i].value, &acc));
    *out = acc;
    return AXE_OK;
}

axe_status axe_layout_span_rule(const axe_layout *l, const char *axis,
                                axe_rule rule, int64_t *out)
{
    char padded[AXE_AXIS_NAME_MAX];
    if (rule != AXE_RULE_PAPER && rule != AXE_RULE_TIRX)
        return AXE_ERR_INVALID;
    AXE_TRY(axis_arg(l, axis, padded));
    if (axis == NULL)
        return span_memory(l, rule, out);
    return axe__span_axis(l, padded, rule, out);
}

axe_status axe_layout_span(const axe_layout *l, const char *axis, int64_t *out)
{
    return axe_layout_span_rule(l, axis, AXE_RULE_PAPER, out);
}

/* The tile point of one digit per shard iter: sum c_k s_k @ a_k, then the
 * offsets (entries created even when 0). With "unit_zero" the digits of
 * extent-1 iters count as 0 (TIRx ComposeLayout per-iter apply). */
static axe_status tile_point_digits(const axe_layout *l, const int64_t *c,
                                    bool unit_zero, axe_point *p)
{
    p->n = 0;
    for (int k = 0; k < l->nshard; k++) {
        const axe_iter *it = &l->shard[k];
        int64_t t = 0;
        if (!(unit_zero && it->extent == 1))
            AXE_TRY(axe__mul(c[k], it->stride, &t));
        AXE_TRY(axe__point_add(p, it->axis, t));
    }
    for (int i = 0; i < l->noffset; i++)
        AXE_TRY(axe__point_add(p, l->offset[i].axis, l->offset[i].value));
    return AXE_OK;
}

axe_status axe__tile_point_linear(const axe_layout *l, int64_t x, axe_point *p)
{
    int64_t c[AXE_LAYOUT_MAX_SHARD];
    AXE_TRY(axe__split_coord(x, l->shard, l->nshard, c));
    return tile_point_digits(l, c, false, p);
}

/* Apply the swizzle to a tile point: it must lie on `m` only. */
axe_status axe__point_finish(const axe_layout *l, const axe_point *p,
                             axe_point *out, axe_diag *diag)
{
    int64_t m;
    axe_point r;
    if (!l->swizzle.present) {
        axe__point_copy(out, p);
        return AXE_OK;
    }
    for (int i = 0; i < p->n; i++)
        if (!axe__axis_eq(p->axis[i], axe__name_m.s))
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "a swizzled layout maps to the memory axis m "
                             "only, but this tile also maps to %s",
                             p->axis[i]);
    r.n = 0;
    AXE_TRY(
        axe__swizzle_addr(&l->swizzle, axe__point_get(p, axe__name_m.s), &m));
    AXE_TRY(axe__point_add(&r, axe__name_m.s, m));
    axe__point_copy(out, &r);
    return AXE_OK;
}

static axe_status overflow(axe_status st, axe_diag *diag)
{
    if (st == AXE_ERR_OVERFLOW)
        return axe__fail(diag, st, -1, "the point does not fit in int64");
    if (st == AXE_ERR_CAPACITY)
        return axe__fail(diag, st, -1, "the point has more than %d axes",
                         AXE_POINT_MAX_AXES);
    if (st == AXE_ERR_INVALID)
        return axe__fail(diag, st, -1,
                         "an iter has an extent < 1 or the "
                         "swizzle is not well-formed");
    return st;
}

/* A linear index is in the domain when x >= 0; past the size the
 * outermost digit absorbs the rest (spec §6, TIRx's SplitCoord). */
static axe_status check_index(int64_t x, axe_diag *diag)
{
    if (x < 0)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "the linear index %lld is negative (apply is "
                         "defined for x >= 0)",
                         (long long)x);
    return AXE_OK;
}

axe_status axe_layout_apply_base(const axe_layout *l, int64_t x, axe_point *out,
                                 axe_diag *diag)
{
    axe_point p;
    axe_status st;
    AXE_TRY(check_index(x, diag));
    st = axe__tile_point_linear(l, x, &p);
    if (st != AXE_OK)
        return overflow(st, diag);
    return axe__point_finish(l, &p, out, diag);
}

static axe_status check_digits(const axe_layout *l, const int64_t *digits,
                               int n, axe_diag *diag)
{
    if (n != l->nshard || (n > 0 && digits == NULL))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Coordinate size must match the number of shard "
                         "axes (%d coordinates, %d shard iters)",
                         n, (int)l->nshard);
    return AXE_OK;
}

axe_status axe_layout_apply_digits(const axe_layout *l, const int64_t *digits,
                                   int n, axe_point *out, axe_diag *diag)
{
    axe_point p;
    axe_status st;
    AXE_TRY(check_digits(l, digits, n, diag));
    st = tile_point_digits(l, digits, l->swizzle.present, &p);
    if (st != AXE_OK)
        return overflow(st, diag);
    return axe__point_finish(l, &p, out, diag);
}

/* FlattenCoord: the row-major index of "crd" in "shape". */
static axe_status flatten(const int64_t *crd, const int64_t *shape, int n,
                          int64_t *out)
{
    int64_t acc = 0;
    for (int d = 0; d < n; d++) {
        AXE_TRY(axe__mul(acc, shape[d], &acc));
        AXE_TRY(axe__add(acc, crd[d], &acc));
    }
    *out = acc;
    return AXE_OK;
}

static axe_status check_shape(const int64_t *crd, const int64_t *shape, int n,
                              axe_diag *diag)
{
    if (n < 0 || n > AXE_LAYOUT_MAX_DIMS ||
        (n > 0 && (crd == NULL || shape == NULL)))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "The size of coord and shape should be equal "
                         "(and at most %d)",
                         AXE_LAYOUT_MAX_DIMS);
    for (int d = 0; d < n; d++)
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shape[%d] = %lld must be >= 1", d,
                             (long long)shape[d]);
    return AXE_OK;
}

/* Group the tile of "l" by "shape" and split each crd[d] inside its group:
 * the grouped layout into "g" (only its shard is used; grouping ignores
 * the swizzle), its digits into "c". False when the layout cannot be
 * grouped by the shape (any failure of axe_layout_group). */
static bool grouped_digits(const axe_layout *l, const int64_t *crd,
                           const int64_t *shape, int n, axe_layout *g,
                           int64_t *c)
{
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    if (axe_layout_group(l, shape, n, g, seps, NULL) != AXE_OK)
        return false;
    for (int d = 0; d < n; d++)
        if (axe__split_coord(crd[d], g->shard + seps[d], seps[d + 1] - seps[d],
                             c + seps[d]) != AXE_OK)
            return false;
    return true;
}

/* The tile point of "crd" in "shape": grouped per-iter apply when the
 * layout groups by the shape, else the linear apply of the row-major
 * index (both agree on in-range coordinates). */
static axe_status tile_point_shape(const axe_layout *l, const int64_t *crd,
                                   const int64_t *shape, int n, axe_point *p)
{
    axe_layout g;
    int64_t c[AXE_LAYOUT_MAX_SHARD], x;
    if (grouped_digits(l, crd, shape, n, &g, c))
        return tile_point_digits(&g, c, l->swizzle.present, p);
    AXE_TRY(flatten(crd, shape, n, &x));
    return axe__tile_point_linear(l, x, p);
}

axe_status axe_layout_apply_shape(const axe_layout *l, const int64_t *crd,
                                  const int64_t *shape, int n, axe_point *out,
                                  axe_diag *diag)
{
    axe_point p;
    axe_status st;
    AXE_TRY(check_shape(crd, shape, n, diag));
    st = tile_point_shape(l, crd, shape, n, &p);
    if (st != AXE_OK)
        return overflow(st, diag);
    return axe__point_finish(l, &p, out, diag);
}

/* Digits of "crd" in "shape" per shard iter of the grouped layout (TIRx
 * apply_to_shape); without a grouping, the digits of the row-major index
 * over the shard extents. "digits" holds AXE_LAYOUT_MAX_SHARD entries. */
axe_status axe_layout_digits_of(const axe_layout *l, const int64_t *crd,
                                const int64_t *shape, int n, int64_t *digits,
                                int *ndigits, axe_diag *diag)
{
    axe_layout g;
    int64_t c[AXE_LAYOUT_MAX_SHARD], x;
    int count = l->nshard;
    AXE_TRY(check_shape(crd, shape, n, diag));
    if (grouped_digits(l, crd, shape, n, &g, c)) {
        count = g.nshard;
    } else {
        if (flatten(crd, shape, n, &x) != AXE_OK)
            return overflow(AXE_ERR_OVERFLOW, diag);
        if (axe__split_coord(x, l->shard, l->nshard, c) != AXE_OK)
            return overflow(AXE_ERR_INVALID, diag);
    }
    memcpy(digits, c, (size_t)count * sizeof c[0]);
    *ndigits = count;
    return AXE_OK;
}

/* The tile point of x (shape NULL, n == 1), of per-iter digits (shape
 * NULL, n != 1) or of crd in shape. */
static axe_status tile_point_any(const axe_layout *l, const int64_t *crd,
                                 const int64_t *shape, int n, axe_point *p,
                                 axe_diag *diag)
{
    axe_status st;
    if (shape != NULL) {
        AXE_TRY(check_shape(crd, shape, n, diag));
        st = tile_point_shape(l, crd, shape, n, p);
    } else if (n == 1 && crd != NULL) {
        AXE_TRY(check_index(crd[0], diag));
        st = axe__tile_point_linear(l, crd[0], p);
    } else {
        AXE_TRY(check_digits(l, crd, n, diag));
        st = tile_point_digits(l, crd, l->swizzle.present, p);
    }
    return st == AXE_OK ? AXE_OK : overflow(st, diag);
}

/* The number of replica combinations, at most "cap" (a replica-free
 * layout has one, so a "cap" below 1 is refused too). */
static axe_status replica_count(const axe_layout *l, int cap, int *count,
                                axe_diag *diag)
{
    int64_t total = 1;
    for (int t = 0; t < l->nreplica; t++)
        if (l->replica[t].extent < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "replica iter %d has extent %lld < 1", t,
                             (long long)l->replica[t].extent);
    for (int t = 0; t < l->nreplica && total <= cap; t++)
        if (axe__mul(total, l->replica[t].extent, &total) != AXE_OK)
            total = (int64_t)cap + 1;
    if (total > cap)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the point set has more than %d points", cap);
    *count = (int)total;
    return AXE_OK;
}

/* Combination "j" (lexicographic over the replica iters, last fastest)
 * added to the tile point "p". */
axe_status axe__replica_add(const axe_layout *l, int64_t j, axe_point *p)
{
    for (int t = l->nreplica - 1; t >= 0; t--) {
        const axe_iter *it = &l->replica[t];
        int64_t v;
        AXE_TRY(axe__mul(j % it->extent, it->stride, &v));
        AXE_TRY(axe__point_add(p, it->axis, v));
        j /= it->extent;
    }
    return AXE_OK;
}

/* L(x) = { D(x) + r + O : r in R }, r in lexicographic order. */
axe_status axe_layout_apply_set(const axe_layout *l, const int64_t *crd,
                                const int64_t *shape, int n, axe_point *out,
                                int cap, int *count, axe_diag *diag)
{
    axe_point base;
    int total = 0;
    AXE_TRY(tile_point_any(l, crd, shape, n, &base, diag));
    AXE_TRY(replica_count(l, cap, &total, diag));
    for (int j = 0; j < total; j++) {
        axe_point q = base;
        axe_status st = axe__replica_add(l, j, &q);
        if (st != AXE_OK)
            return overflow(st, diag);
        AXE_TRY(axe__point_finish(l, &q, &out[j], diag));
    }
    *count = total;
    return AXE_OK;
}
