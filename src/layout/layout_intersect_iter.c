/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Axe paper's iter intersection (§3.4, Appendix H step 2): I_a ∩ I_b
 * is the iter that produces exactly the values both produce. For iter
 * lists (a layout's shard, or its iters on one axis) the values are
 * V(D) = { sum_k c_k s_k @ a_k : 0 <= c_k < e_k }, and the answer is the
 * iter (e, s@a) with { c s@a : 0 <= c < e } = V(D_a) ∩ V(D_b), or no answer
 * when no single iter produces that set.
 * Two single iters on one axis have the closed form: with L the lcm of the
 * strides' magnitudes and the same sign, the common values are the
 * multiples of L up to the smaller reach, so e = min reach / L + 1 (only 0
 * when the signs or the axes differ). Otherwise the smaller set is
 * enumerated (at most ENUM_MAX values) and each value tested for membership
 * in the other by a depth-first search over its digits, each digit's range
 * narrowed to what the remaining iters can still reach (at most
 * SEARCH_BUDGET steps). The common set is an iter's exactly when its
 * nonzero values lie on one axis with one sign, and with g their gcd and
 * M the largest magnitude, every c g with c <= M / g is among them.
 * Invariant: the answer is exact; a set too large to enumerate is
 * AXE_ERR_CAPACITY with the limit in the reason, never a guess.
 */
#include "layout_tile_internal.h"

#define ENUM_MAX (INT64_C(1) << 16)
#define SEARCH_BUDGET (INT64_C(1) << 24)

/* The iters of one operand that take part (nonunit, on the axis). */
typedef struct iters {
    int n;
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int64_t size;
} iters;

/* The member test of "iters" y: its axes, and per suffix i of its iters
 * the least and largest reach on each axis. */
typedef struct member {
    const iters *y;
    int nax;
    char axis[AXE_LAYOUT_MAX_SHARD][AXE_AXIS_NAME_MAX];
    int ax[AXE_LAYOUT_MAX_SHARD]; /* axis index of each iter */
    int64_t lo[AXE_LAYOUT_MAX_SHARD + 1][AXE_LAYOUT_MAX_SHARD];
    int64_t hi[AXE_LAYOUT_MAX_SHARD + 1][AXE_LAYOUT_MAX_SHARD];
    int64_t budget;
} member;

/* The common nonzero values seen: axis, sign, gcd, largest magnitude. */
typedef struct common {
    int axis; /* -1 before the first */
    int sign;
    int64_t g, max, count;
    uint64_t seen[ENUM_MAX / 64 + 1]; /* second pass: c = |v| / g */
    bool mark;
} common;

static axe_status overflow(axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                     "a value of the iter intersection overflows int64");
}

static axe_status select_iters(const axe_layout *l, const char *axis,
                               const char *name, iters *out, axe_diag *diag)
{
    if (l->nreplica > 0 || l->noffset > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the iter intersection takes iter lists: layout "
                         "\"%s\" has a %s",
                         name, l->nreplica > 0 ? "replica" : "offset");
    out->n = 0;
    out->size = 1;
    for (int k = 0; k < l->nshard; k++) {
        const axe_iter *it = &l->shard[k];
        if (it->extent == 1 || it->stride == 0 ||
            (axis != NULL && !axe__axis_eq(it->axis, axis)))
            continue;
        out->it[out->n++] = *it;
        if (axe__mul(out->size, it->extent, &out->size) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the size (the product of the shard extents) of "
                             "\"%s\" overflows int64 (largest %lld)",
                             name, (long long)INT64_MAX);
    }
    return AXE_OK;
}

/* S[e:s@axis] into "out". */
static void single(int64_t e, int64_t s, const char *axis, axe_layout *out)
{
    axe_layout_init(out);
    out->shard[0].extent = e;
    out->shard[0].stride = e == 1 ? 1 : s;
    axe__axis_copy(out->shard[0].axis, axis);
    out->nshard = 1;
}

/* (e-1) |s|, or the overflow. */
static axe_status reach(const axe_iter *it, int64_t *out)
{
    if (it->stride == INT64_MIN)
        return AXE_ERR_OVERFLOW;
    return axe__mul(it->extent - 1, axe__abs(it->stride), out);
}

/* Two single iters on one axis (the closed form of the file comment). */
static axe_status two_iters(const axe_iter *x, const axe_iter *y,
                            const char *zero_axis, axe_layout *out,
                            axe_diag *diag)
{
    int64_t rx, ry, l;
    if (!axe__axis_eq(x->axis, y->axis) || (x->stride < 0) != (y->stride < 0)) {
        single(1, 1, zero_axis, out);
        return AXE_OK;
    }
    if (reach(x, &rx) != AXE_OK || reach(y, &ry) != AXE_OK)
        return overflow(diag);
    if (axe__lcm(x->stride, y->stride, &l) != AXE_OK) {
        single(1, 1, zero_axis, out); /* l > any reach */
        return AXE_OK;
    }
    rx = rx < ry ? rx : ry;
    if (rx / l == 0)
        single(1, 1, zero_axis, out);
    else
        single(rx / l + 1, x->stride < 0 ? -l : l, x->axis, out);
    return AXE_OK;
}

static int axis_index(member *m, const char *axis, bool add)
{
    for (int i = 0; i < m->nax; i++)
        if (axe__axis_eq(m->axis[i], axis))
            return i;
    if (!add)
        return -1;
    axe__axis_copy(m->axis[m->nax], axis);
    return m->nax++;
}

/* The reaches of every suffix of y's iters (y's values fit int64 when
 * its size and reaches do; checked). */
static axe_status prepare_member(member *m, const iters *y, axe_diag *diag)
{
    m->y = y;
    m->nax = 0;
    m->budget = SEARCH_BUDGET;
    for (int k = 0; k < y->n; k++)
        m->ax[k] = axis_index(m, y->it[k].axis, true);
    memset(m->lo[y->n], 0, sizeof m->lo[y->n]);
    memset(m->hi[y->n], 0, sizeof m->hi[y->n]);
    for (int k = y->n - 1; k >= 0; k--) {
        int64_t t;
        memcpy(m->lo[k], m->lo[k + 1], sizeof m->lo[k]);
        memcpy(m->hi[k], m->hi[k + 1], sizeof m->hi[k]);
        if (axe__mul(y->it[k].extent - 1, y->it[k].stride, &t) != AXE_OK ||
            axe__add(t < 0 ? m->lo[k][m->ax[k]] : m->hi[k][m->ax[k]], t,
                     t < 0 ? &m->lo[k][m->ax[k]] : &m->hi[k][m->ax[k]]) !=
                AXE_OK)
            return overflow(diag);
    }
    return AXE_OK;
}

/* floor(a / b) and ceil(a / b) for b > 0. */
static int64_t fdiv(int64_t a, int64_t b) { return axe__floordiv(a, b); }
static int64_t cdiv(int64_t a, int64_t b) { return -axe__floordiv(-a, b); }

/* The digits c of iter "it" (stride s != 0) with c s in [lo, hi]. */
static void digit_range(const axe_iter *it, int64_t lo, int64_t hi, int64_t *c0,
                        int64_t *c1)
{
    int64_t s = it->stride;
    *c0 = s > 0 ? cdiv(lo, s) : cdiv(-hi, -s);
    *c1 = s > 0 ? fdiv(hi, s) : fdiv(-lo, -s);
    *c0 = *c0 < 0 ? 0 : *c0;
    *c1 = *c1 > it->extent - 1 ? it->extent - 1 : *c1;
}

/* Whether the rest "r" (per axis of m) is reachable by y's iters k.. */
static axe_status reachable(member *m, int k, int64_t *r, bool *in)
{
    const axe_iter *it;
    int a;
    int64_t c0, c1, lo, hi, save;
    if (--m->budget < 0)
        return AXE_ERR_CAPACITY;
    if (k == m->y->n) {
        *in = true;
        for (int i = 0; i < m->nax && *in; i++)
            *in = r[i] == 0;
        return AXE_OK;
    }
    it = &m->y->it[k];
    a = m->ax[k];
    /* c s must lie in [r - hi, r - lo] of the iters after k on axis a */
    AXE_TRY(axe__sub(r[a], m->hi[k + 1][a], &lo));
    AXE_TRY(axe__sub(r[a], m->lo[k + 1][a], &hi));
    if (lo == INT64_MIN || hi == INT64_MIN)
        return AXE_ERR_OVERFLOW;
    digit_range(it, lo, hi, &c0, &c1);
    save = r[a];
    *in = false;
    for (int64_t c = c0; c <= c1 && !*in; c++) {
        int64_t t;
        AXE_TRY(axe__mul(c, it->stride, &t));
        AXE_TRY(axe__sub(save, t, &r[a]));
        AXE_TRY(reachable(m, k + 1, r, in));
    }
    r[a] = save;
    return AXE_OK;
}

/* Record the common value "v" on axis "axis" (nonzero) or fail. */
static axe_status record(common *c, int axis, int64_t v, const member *m,
                         axe_diag *diag)
{
    int sign = v < 0 ? -1 : 1;
    int64_t mag = v < 0 ? -v : v;
    if (c->mark) {
        int64_t k = mag / c->g;
        c->seen[k / 64] |= UINT64_C(1) << (k % 64);
        return AXE_OK;
    }
    if (c->axis >= 0 && c->axis != axis)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "no single iter produces the values both produce: "
                         "they lie on two axes, %s and %s",
                         m->axis[c->axis], m->axis[axis]);
    if (c->axis >= 0 && c->sign != sign)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "no single iter produces the values both produce: "
                         "they have both signs on %s",
                         m->axis[axis]);
    c->axis = axis;
    c->sign = sign;
    c->g = axe__gcd(c->g, mag);
    c->max = mag > c->max ? mag : c->max;
    c->count++;
    return AXE_OK;
}

/* The point of x's digit vector "x" in m's axes: *in false when it has a
 * nonzero value on an axis y does not use. */
static axe_status point_of(const iters *x, int64_t idx, member *m, int64_t *p,
                           bool *in)
{
    *in = true;
    memset(p, 0, sizeof(int64_t) * AXE_LAYOUT_MAX_SHARD);
    for (int k = x->n - 1; k >= 0; k--) {
        int64_t d = idx % x->it[k].extent, t;
        int a = axis_index(m, x->it[k].axis, false);
        idx /= x->it[k].extent;
        if (d == 0)
            continue;
        if (a < 0) {
            *in = false;
            return AXE_OK;
        }
        AXE_TRY(axe__mul(d, x->it[k].stride, &t));
        AXE_TRY(axe__add(p[a], t, &p[a]));
    }
    return AXE_OK;
}

/* One pass over x's values: record those y produces. */
static axe_status pass(const iters *x, member *m, common *c, axe_diag *diag)
{
    int64_t p[AXE_LAYOUT_MAX_SHARD];
    for (int64_t i = 0; i < x->size; i++) {
        bool in;
        int axis = -1, nonzero = 0;
        axe_status st = point_of(x, i, m, p, &in);
        if (st == AXE_OK && in)
            st = reachable(m, 0, p, &in);
        if (st == AXE_ERR_CAPACITY)
            return axe__fail(diag, st, -1,
                             "the iter intersection searches at most %lld "
                             "digit steps; these shards need more",
                             (long long)SEARCH_BUDGET);
        if (st != AXE_OK)
            return overflow(diag);
        if (!in)
            continue;
        for (int a = 0; a < m->nax; a++)
            if (p[a] != 0) {
                axis = axis < 0 ? a : axis;
                nonzero++;
            }
        if (nonzero > 1)
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "no single iter produces the values both "
                             "produce: one of them is on two axes");
        if (nonzero == 1)
            AXE_TRY(record(c, axis, p[axis], m, diag));
    }
    return AXE_OK;
}

/* The general case (see the file comment). */
static axe_status enumerate(const iters *a, const iters *b,
                            const char *zero_axis, axe_layout *out,
                            axe_diag *diag)
{
    static member zm;
    static common zc;
    member m = zm;
    common c = zc;
    const iters *x = a->size <= b->size ? a : b, *y = x == a ? b : a;
    int64_t e;
    if (x->size > ENUM_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the iter intersection enumerates the smaller "
                         "shard's values: %lld of them, limit %lld",
                         (long long)x->size, (long long)ENUM_MAX);
    AXE_TRY(prepare_member(&m, y, diag));
    c.axis = -1;
    AXE_TRY(pass(x, &m, &c, diag));
    if (c.count == 0) {
        single(1, 1, zero_axis, out);
        return AXE_OK;
    }
    e = c.max / c.g + 1;
    if (e - 1 > c.count)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "no single iter produces the values both produce: "
                         "they reach %lld on %s but hold only %lld nonzero "
                         "values",
                         (long long)(c.sign * c.max), m.axis[c.axis],
                         (long long)c.count);
    c.mark = true;
    m.budget = SEARCH_BUDGET;
    AXE_TRY(pass(x, &m, &c, diag));
    for (int64_t k = 1; k < e; k++)
        if (!((c.seen[k / 64] >> (k % 64)) & 1u))
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "no single iter produces the values both "
                             "produce: %lld and %lld on %s, but not %lld",
                             (long long)(c.sign * c.g),
                             (long long)(c.sign * c.max), m.axis[c.axis],
                             (long long)(c.sign * k * c.g));
    single(e, c.sign * c.g, m.axis[c.axis], out);
    return AXE_OK;
}

axe_status axe_layout_intersect(const axe_layout *a, const axe_layout *b,
                                const char *axis, axe_target target,
                                axe_layout *out, axe_diag *diag)
{
    char padded[AXE_AXIS_NAME_MAX];
    axe_layout ca, cb;
    iters ia, ib;
    const char *zero_axis = axe__name_m.s;
    if (a->swizzle.present || b->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the iter intersection of swizzled layouts is not "
                         "defined");
    if (axis != NULL) {
        AXE_TRY(axe__axis_name(axis, padded, diag));
        zero_axis = padded;
    }
    AXE_TRY(axe_layout_canonicalize(a, target, &ca, diag));
    AXE_TRY(axe_layout_canonicalize(b, target, &cb, diag));
    AXE_TRY(select_iters(&ca, axis != NULL ? padded : NULL, "a", &ia, diag));
    AXE_TRY(select_iters(&cb, axis != NULL ? padded : NULL, "b", &ib, diag));
    if (ia.n == 0 || ib.n == 0) {
        single(1, 1, zero_axis, out);
        return AXE_OK;
    }
    if (ia.n == 1 && ib.n == 1)
        return two_iters(&ia.it[0], &ib.it[0], zero_axis, out, diag);
    return enumerate(&ia, &ib, zero_axis, out, diag);
}
