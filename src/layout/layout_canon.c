/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TIRx's canonical form of Axe layouts (spec §4), in TIRx's order: unit
 * shard iters dropped (a shard emptied that way becomes the single iter
 * (1, 1, axis of its first iter)), zero offsets dropped, the scope
 * evaluated (its errors propagate), CUDA axis fusion when the target asks
 * for it and the layout has a scope, adjacent shard iters fused (same axis,
 * e' s' == s), replicas sorted by (axis, extent, stride). Each step keeps
 * the multiset L(x) = { D(x) + r + O } of every x < size, except fusion,
 * which renames thread axes by the table below. Differences from TIRx
 * (axe's policy for plain defects): offsets fused into one axis add instead
 * of overwriting; wgid at scope (warp, cta) becomes warpid * 4 (TIRx
 * keeps wgid * 4, a layout its own scope check then rejects); a lone unit
 * iter keeps stride 1 through fusion (TIRx scales it, and a second pass
 * resets it). Invariant of
 * a canonical layout: no unit shard iter unless it is the only one
 * (1, 1, a), no zero offset, no fusable neighbours, replicas sorted.
 */
#include "layout_internal.h"

/* An axis rewritten at CUDA scope (subscope, scope): (to, stride * factor). */
typedef struct fuse_rule {
    char axis[AXE_AXIS_NAME_MAX];
    axe_scope subscope;
    axe_scope scope;
    char to[AXE_AXIS_NAME_MAX];
    int64_t factor;
} fuse_rule;

static const fuse_rule fuse_rules[] = {
    {"warpid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 32},
    {"laneid", AXE_SCOPE_THREAD, AXE_SCOPE_WARPGROUP, "tid_in_wg", 1},
    {"laneid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 1},
    {"wgid", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 128},
    {"wgid", AXE_SCOPE_WARP, AXE_SCOPE_CTA, "warpid", 4},
    {"tid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 1},
    {"wid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_WARPGROUP, "tid_in_wg", 32},
    {"wid_in_wg", AXE_SCOPE_THREAD, AXE_SCOPE_CTA, "tx", 32},
    {"wid_in_wg", AXE_SCOPE_WARP, AXE_SCOPE_CTA, "warpid", 1},
};

#define NFUSE_RULES ((int)(sizeof fuse_rules / sizeof fuse_rules[0]))

/* AXE_OK when "l" is a layout value within capacity with extents >= 1. */
static axe_status check_layout(const axe_layout *l, axe_diag *diag)
{
    if (l == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "layout is NULL");
    if (l->nshard > AXE_LAYOUT_MAX_SHARD ||
        l->nreplica > AXE_LAYOUT_MAX_REPLICA ||
        l->noffset > AXE_LAYOUT_MAX_OFFSET)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "layout counts (%d shard, %d replica, %d offset) "
                         "exceed the capacities",
                         l->nshard, l->nreplica, l->noffset);
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shard iter %d has extent %lld < 1", k,
                             (long long)l->shard[k].extent);
    for (int k = 0; k < l->nreplica; k++)
        if (l->replica[k].extent < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "replica iter %d has extent %lld < 1", k,
                             (long long)l->replica[k].extent);
    return AXE_OK;
}

/* Append padded "axis" to names[0 .. *n) unless it is `m` or there. */
static void add_distinct(char (*names)[AXE_AXIS_NAME_MAX], int *n,
                         const char *axis)
{
    if (axe__axis_eq(axis, axe__name_m.s))
        return;
    for (int i = 0; i < *n; i++)
        if (axe__axis_eq(names[i], axis))
            return;
    axe__axis_copy(names[(*n)++], axis);
}

/*
 * axe_layout_get_scope of "l", asked of a proxy with one entry per distinct
 * axis other than `m` (in the order shard, replica, offset of first
 * occurrence). The scope depends only on the axes: whether a shard axis is
 * a thread axis, and the edge of each thread axis, added in that order; a
 * repeated axis adds the edge it added before, so it can neither change
 * the map nor fail where its first occurrence did not; `m` is a built-in
 * memory axis and adds nothing. So status, reason and answer are
 * get_scope's, with one registry lookup per distinct axis instead of one
 * per entry. "l" has its counts within the capacities.
 */
axe_status axe__layout_scope(const axe_layout *l, bool *has,
                             axe_scope *subscope, axe_scope *scope,
                             axe_diag *diag)
{
    char names[AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA +
               AXE_LAYOUT_MAX_OFFSET][AXE_AXIS_NAME_MAX];
    int n = 0, ns, nr;
    axe_layout p;
    for (int k = 0; k < l->nshard; k++)
        add_distinct(names, &n, l->shard[k].axis);
    ns = n;
    for (int k = 0; k < l->nreplica; k++)
        add_distinct(names, &n, l->replica[k].axis);
    nr = n - ns;
    for (int i = 0; i < l->noffset; i++)
        add_distinct(names, &n, l->offset[i].axis);
    if (n == 0) {
        *has = false;
        *subscope = *scope = AXE_SCOPE_NONE;
        return AXE_OK;
    }
    axe__layout_clear(&p);
    p.nshard = (uint8_t)ns;
    p.nreplica = (uint8_t)nr;
    p.noffset = (uint8_t)(n - ns - nr);
    for (int k = 0; k < ns; k++)
        axe__axis_copy(p.shard[k].axis, names[k]);
    for (int k = 0; k < nr; k++)
        axe__axis_copy(p.replica[k].axis, names[ns + k]);
    for (int i = 0; i < p.noffset; i++)
        axe__axis_copy(p.offset[i].axis, names[ns + nr + i]);
    return axe_layout_get_scope(&p, has, subscope, scope, diag);
}

/* Step 1: dst's shard is src's without extent-1 iters; (1, 1, axis of the
 * first iter) when that leaves nothing of a non-empty shard. "dst" may be
 * "src"; iters already in place are not copied. */
static void drop_unit_shard(axe_layout *dst, const axe_layout *src)
{
    int n = 0;
    for (int k = 0; k < src->nshard; k++) {
        if (src->shard[k].extent == 1)
            continue;
        if (dst != src || n != k)
            dst->shard[n] = src->shard[k];
        n++;
    }
    if (n == 0 && src->nshard > 0) {
        if (dst != src)
            dst->shard[0] = src->shard[0];
        dst->shard[0].extent = 1;
        dst->shard[0].stride = 1;
        n = 1;
    }
    dst->nshard = (uint8_t)n;
}

/* Step 2: the offset map without zero entries. */
static void drop_zero_offsets(axe_layout *l)
{
    int n = 0;
    for (int i = 0; i < l->noffset; i++) {
        if (l->offset[i].value == 0)
            continue;
        if (n != i)
            l->offset[n] = l->offset[i];
        n++;
    }
    l->noffset = (uint8_t)n;
}

static const fuse_rule *find_rule(const char *axis, axe_scope sub,
                                  axe_scope scope)
{
    for (int r = 0; r < NFUSE_RULES; r++)
        if (fuse_rules[r].subscope == sub && fuse_rules[r].scope == scope &&
            axe__axis_eq(fuse_rules[r].axis, axis))
            return &fuse_rules[r];
    return NULL;
}

/* "it" on its fused axis: (to, stride * factor), unchanged without a rule
 * (*renamed tells). */
static axe_status fuse_iter(axe_iter *it, axe_scope sub, axe_scope scope,
                            bool *renamed, axe_diag *diag)
{
    const fuse_rule *r = find_rule(it->axis, sub, scope);
    if (r == NULL)
        return AXE_OK;
    *renamed = true;
    if (axe__mul(it->stride, r->factor, &it->stride) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "stride %lld on %s overflows when fused into %s",
                         (long long)it->stride, it->axis, r->to);
    axe__axis_copy(it->axis, r->to);
    return AXE_OK;
}

/* Step 3 at scope (sub, scope), in place: every iter and offset through
 * the fusion table; an offset v on a is the iter (1, v, a), and offsets
 * landing on one axis add (TIRx overwrites). *changed: whether an axis was
 * renamed or offsets merged (else "l" is as it was, its scope too). "l" is
 * a scratch value: on failure it is left part-way. */
static axe_status fuse_axes(axe_layout *l, axe_scope sub, axe_scope scope,
                            bool *changed, axe_diag *diag)
{
    axe_offset off[AXE_LAYOUT_MAX_OFFSET];
    int noff = l->noffset;
    *changed = false;
    axe__offsets_copy(off, l->offset, noff);
    l->noffset = 0;
    for (int k = 0; k < l->nshard; k++)
        AXE_TRY(fuse_iter(&l->shard[k], sub, scope, changed, diag));
    for (int k = 0; k < l->nreplica; k++)
        AXE_TRY(fuse_iter(&l->replica[k], sub, scope, changed, diag));
    for (int i = 0; i < noff; i++) {
        axe_iter it = {1, off[i].value, {0}};
        axe__axis_copy(it.axis, off[i].axis);
        AXE_TRY(fuse_iter(&it, sub, scope, changed, diag));
        if (axe__layout_offset_add(l, it.axis, it.stride) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "offsets fused into %s overflow", it.axis);
    }
    *changed = *changed || l->noffset != noff;
    drop_zero_offsets(l);
    return AXE_OK;
}

/* "next" continues the run ending in "prev": same axis, e' s' == s. */
static bool continues(const axe_iter *prev, const axe_iter *next)
{
    int64_t span;
    return axe__axis_eq(prev->axis, next->axis) &&
           axe__mul(next->extent, next->stride, &span) == AXE_OK &&
           span == prev->stride;
}

/* Step 4: each maximal run of continuing shard iters as one iter
 * (product of extents, stride of its last iter, axis), in place: run k
 * is written at k <= its first iter, after all of it is read. */
static axe_status fuse_shard(axe_layout *l, axe_diag *diag)
{
    int n = 0;
    for (int cur = 0; cur < l->nshard;) {
        int64_t extent = l->shard[cur].extent;
        int next = cur + 1;
        for (; next < l->nshard &&
               continues(&l->shard[next - 1], &l->shard[next]);
             next++)
            if (axe__mul(extent, l->shard[next].extent, &extent) != AXE_OK)
                return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                                 "fusing shard iters %d..%d overflows the "
                                 "extent",
                                 cur, next);
        if (n != cur)
            l->shard[n] = l->shard[cur];
        l->shard[n].extent = extent;
        l->shard[n].stride = l->shard[next - 1].stride;
        n++;
        cur = next;
    }
    l->nshard = (uint8_t)n;
    return AXE_OK;
}

/* Order of replica iters: axis (by id), then extent, then stride. */
static int iter_cmp(const axe_iter *a, const axe_iter *b)
{
    int c = axe__axis_cmp(a->axis, b->axis);
    if (c != 0)
        return c;
    if (a->extent != b->extent)
        return a->extent < b->extent ? -1 : 1;
    if (a->stride != b->stride)
        return a->stride < b->stride ? -1 : 1;
    return 0;
}

/* Step 5: replicas in iter_cmp order (insertion sort, stable). */
static void sort_replicas(axe_layout *l)
{
    for (int i = 1; i < l->nreplica; i++) {
        axe_iter t = l->replica[i];
        int j = i;
        for (; j > 0 && iter_cmp(&l->replica[j - 1], &t) > 0; j--)
            l->replica[j] = l->replica[j - 1];
        l->replica[j] = t;
    }
}

/*
 * TIRx canonical form of "l" (spec §4). Every step but fusion keeps the
 * multiset L(x) for every x < size (unit digits are 0; a fused run
 * (e_i .. e_j) with e_{k+1} s_{k+1} = s_k enumerates the same values as one
 * iter (prod e, s_j)); fusion renames thread axes to the wider ones of
 * the scope, tx = 32 warpid + laneid etc. Idempotent: its output has no
 * unit iter, zero offset or fusable pair, and is fused already. When axis
 * fusion renames nothing, the scope of the output is the one computed in
 * step 3: fusing shard iters and sorting replicas keep the set of axes.
 */
axe_status axe__canonicalize_scoped(const axe_layout *l, axe_target target,
                                    axe_layout *out, axe__scope_info *info,
                                    axe_diag *diag)
{
    axe_layout c;
    bool has;
    axe_scope sub, scope;
    AXE_TRY(check_layout(l, diag));
    if (out == NULL || (target != AXE_TARGET_NONE && target != AXE_TARGET_CUDA))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "canonicalize needs an output and a known target");
    axe__layout_copy_rest(&c, l);
    drop_unit_shard(&c, l);
    drop_zero_offsets(&c);
    AXE_TRY(axe__layout_scope(&c, &has, &sub, &scope, diag));
    info->known = true;
    if (has && target == AXE_TARGET_CUDA) {
        bool changed;
        AXE_TRY(fuse_axes(&c, sub, scope, &changed, diag));
        drop_unit_shard(&c, &c);
        info->known = !changed;
    }
    AXE_TRY(fuse_shard(&c, diag));
    sort_replicas(&c);
    axe__layout_copy(out, &c);
    info->has = has;
    info->subscope = sub;
    info->scope = scope;
    return AXE_OK;
}

axe_status axe_layout_canonicalize(const axe_layout *l, axe_target target,
                                   axe_layout *out, axe_diag *diag)
{
    axe__scope_info info;
    return axe__canonicalize_scoped(l, target, out, &info, diag);
}

/* The shard of the full normal form: an iter of stride 0 moves along no
 * axis, so it is written on `m` (and may fuse again); a shard of size 1
 * (the lone (1, 1, a) canonicalize keeps) is empty. */
static axe_status normal_shard(axe_layout *l, axe_diag *diag)
{
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].stride == 0)
            axe__axis_copy(l->shard[k].axis, axe__name_m.s);
    if (l->nshard == 1 && l->shard[0].extent == 1)
        l->nshard = 0;
    return fuse_shard(l, diag);
}

/* C0 and C1: a replica iter adding only 0 (extent 1, or stride 0 under set
 * semantics) is dropped; a negative stride s becomes -s with (e - 1) s
 * moved into the offset, since {0, s, .., (e-1)s} = (e-1)s + {0, -s, ..}. */
static axe_status positive_replicas(axe_layout *l, axe_diag *diag)
{
    int n = 0;
    for (int k = 0; k < l->nreplica; k++) {
        axe_iter it = l->replica[k];
        int64_t shift;
        axe_status st = AXE_OK;
        if (it.extent == 1 || it.stride == 0)
            continue;
        if (it.stride < 0) {
            if (it.stride == INT64_MIN)
                st = AXE_ERR_OVERFLOW;
            else if ((st = axe__mul(it.extent - 1, it.stride, &shift)) ==
                     AXE_OK)
                st = axe__layout_offset_add(l, it.axis, shift);
            if (st != AXE_OK)
                return axe__fail(
                    diag, st, -1,
                    "replica iter %d (%lld:%lld@%s): moving its "
                    "span into the offset %s",
                    k, (long long)it.extent, (long long)it.stride, it.axis,
                    st == AXE_ERR_OVERFLOW ? "overflows"
                                           : "needs one more offset axis");
            it.stride = -it.stride;
        }
        l->replica[n++] = it;
    }
    l->nreplica = (uint8_t)n;
    return AXE_OK;
}

/* Whether replica iter "a" absorbs "b" (C2): same axis, 0 < s_a <= s_b,
 * s_b = k s_a with k <= e_a. Then {0 .. e_a-1} s_a + {0 .. e_b-1} k s_a is
 * the progression s_a {0 .. e_a - 1 + k (e_b - 1)} (the blocks
 * k c + [0, e_a) touch or overlap), of extent *extent. */
static axe_status absorbs(const axe_iter *a, const axe_iter *b, bool *yes,
                          int64_t *extent)
{
    int64_t k, grow;
    *yes = false;
    if (!axe__axis_eq(a->axis, b->axis) || a->stride > b->stride ||
        b->stride % a->stride != 0)
        return AXE_OK;
    k = b->stride / a->stride;
    if (k > a->extent)
        return AXE_OK;
    AXE_TRY(axe__mul(k, b->extent - 1, &grow));
    AXE_TRY(axe__add(a->extent, grow, extent));
    *yes = true;
    return AXE_OK;
}

/* Replica iter "i" takes extent "e"; iter "j" leaves the list. */
static void merge_replicas(axe_layout *l, int i, int j, int64_t e)
{
    l->replica[i].extent = e;
    for (int k = j; k + 1 < l->nreplica; k++)
        l->replica[k] = l->replica[k + 1];
    l->nreplica--;
}

/* C2 to a fixpoint: merge absorbing pairs (first pair in sorted order)
 * until none is left. Each merge keeps the sum set and removes an iter. */
static axe_status absorb_replicas(axe_layout *l, axe_diag *diag)
{
    bool changed = true;
    while (changed) {
        changed = false;
        sort_replicas(l);
        for (int i = 0; i < l->nreplica && !changed; i++) {
            for (int j = 0; j < l->nreplica && !changed; j++) {
                int64_t e;
                if (i == j)
                    continue;
                if (absorbs(&l->replica[i], &l->replica[j], &changed, &e) !=
                    AXE_OK)
                    return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                                     "merging replica iters %d and %d "
                                     "overflows",
                                     i, j);
                if (changed)
                    merge_replicas(l, i, j, e);
            }
        }
    }
    return AXE_OK;
}

/*
 * The paper's full normal form of "l" (Appendix A), defined as: the TIRx
 * canonical form (no target); shard iters of stride 0 on `m`, a size-1
 * shard empty; per axis the replica + offset normalized: C0 replica iters
 * of extent 1 or stride 0 dropped, C1 negative strides made positive with
 * (e - 1) s moved into the offset, C2 absorbing pairs merged; zero offsets
 * dropped; replicas sorted. Keeps the set-valued map L(x) for x < size
 * (as sets: a stride-0 replica only repeats points). After C1 the offset
 * on each axis is the least value of the axis's replica sum set.
 */
axe_status axe_layout_normalize(const axe_layout *l, axe_layout *out,
                                axe_diag *diag)
{
    axe_layout c;
    if (out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "normalize needs an output");
    AXE_TRY(axe_layout_canonicalize(l, AXE_TARGET_NONE, &c, diag));
    AXE_TRY(normal_shard(&c, diag));
    AXE_TRY(positive_replicas(&c, diag));
    AXE_TRY(absorb_replicas(&c, diag));
    drop_zero_offsets(&c);
    sort_replicas(&c);
    axe__layout_copy(out, &c);
    return AXE_OK;
}

/*
 * The gap condition of a normal form "nf": on every axis, each replica
 * stride exceeds M = sum (e - 1) s over the replica iters of smaller
 * stride on that axis (so no two strides are equal). Then every point of
 * the axis's sum set has one digit vector (mixed radix), and the iters are
 * recovered from the set alone: s_1 is its least positive element, e_1 the
 * length of the run 0, s_1, 2 s_1, .. (s_2 = e_1 s_1 would have been
 * absorbed), and the set is the disjoint union of translates of that run
 * by the sum set of the other iters, more than M apart. So two normal
 * forms meeting the condition with the same sum sets are equal.
 */
static bool gap_ok(const axe_layout *nf)
{
    for (int i = 0; i < nf->nreplica; i++) {
        const axe_iter *a = &nf->replica[i];
        int64_t span = 0, t;
        for (int j = 0; j < nf->nreplica; j++) {
            const axe_iter *b = &nf->replica[j];
            if (j == i || !axe__axis_eq(a->axis, b->axis) ||
                b->stride > a->stride)
                continue;
            if (b->stride == a->stride ||
                axe__mul(b->extent - 1, b->stride, &t) != AXE_OK ||
                axe__add(span, t, &span) != AXE_OK)
                return false;
        }
        if (a->stride <= span)
            return false;
    }
    return true;
}

/* Replica sum sets are compared as bitmaps of [0, span], span < this. */
#define SUMSET_BITS 32768
/* Swizzled layouts are compared point by point: at most this many points
 * per index, and size * points at most EVAL_BUDGET. */
#define EVAL_POINTS 8
#define EVAL_BUDGET ((int64_t)1 << 20)

static bool bit_get(const uint64_t *bits, int64_t p)
{
    return (bits[p / 64] >> (p % 64)) & 1u;
}

static void bit_set(uint64_t *bits, int64_t p)
{
    bits[p / 64] |= (uint64_t)1 << (p % 64);
}

/* bits := bits + {0, s, .., (e-1) s} within [0, span], in place: along each
 * residue class mod s, a position is set when a set bit lies fewer than e
 * steps behind it (reads stay ahead of the writes). */
static void add_progression(uint64_t *bits, int64_t span, int64_t e, int64_t s)
{
    for (int64_t r = 0; r < s && r <= span; r++) {
        int64_t last = -e, j = 0;
        for (int64_t p = r; p <= span; p += s, j++) {
            if (bit_get(bits, p))
                last = j;
            if (j - last < e)
                bit_set(bits, p);
        }
    }
}

/* sum (e - 1) s over the replica iters of normal form "l" on "axis". */
static axe_status replica_span(const axe_layout *l, const char *axis,
                               int64_t *span)
{
    int64_t t;
    *span = 0;
    for (int k = 0; k < l->nreplica; k++)
        if (axe__axis_eq(l->replica[k].axis, axis)) {
            AXE_TRY(
                axe__mul(l->replica[k].extent - 1, l->replica[k].stride, &t));
            AXE_TRY(axe__add(*span, t, span));
        }
    return AXE_OK;
}

/* The replica sum set of normal form "l" on "axis" as bits of [0, span]. */
static void sumset(const axe_layout *l, const char *axis, int64_t span,
                   uint64_t *bits)
{
    memset(bits, 0, (size_t)(span / 64 + 1) * sizeof *bits);
    bit_set(bits, 0);
    for (int k = 0; k < l->nreplica; k++)
        if (axe__axis_eq(l->replica[k].axis, axis))
            add_progression(bits, span, l->replica[k].extent,
                            l->replica[k].stride);
}

/* Whether normal forms "a" and "b" have the same replica sum set on
 * "axis"; spans must stay below SUMSET_BITS. */
static axe_status same_sumset(const axe_layout *a, const axe_layout *b,
                              const char *axis, bool *out, axe_diag *diag)
{
    uint64_t ba[SUMSET_BITS / 64], bb[SUMSET_BITS / 64];
    int64_t sa = 0, sb = 0;
    bool spans_ok = replica_span(a, axis, &sa) == AXE_OK &&
                    replica_span(b, axis, &sb) == AXE_OK;
    if (spans_ok && sa != sb) {
        *out = false;
        return AXE_OK;
    }
    if (!spans_ok || sa >= SUMSET_BITS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the replica set on %s spans too many values to "
                         "compare (limit %d)",
                         axis, SUMSET_BITS);
    sumset(a, axis, sa, ba);
    sumset(b, axis, sb, bb);
    *out = memcmp(ba, bb, (size_t)(sa / 64 + 1) * sizeof *ba) == 0;
    return AXE_OK;
}

/* Whether normal forms "a" and "b" have the same replica sum set on every
 * axis that carries a replica iter of either. */
static axe_status same_sumsets(const axe_layout *a, const axe_layout *b,
                               bool *out, axe_diag *diag)
{
    *out = true;
    for (int k = 0; k < a->nreplica + b->nreplica && *out; k++) {
        const axe_layout *l = k < a->nreplica ? a : b;
        int i = k < a->nreplica ? k : k - a->nreplica;
        AXE_TRY(same_sumset(a, b, l->replica[i].axis, out, diag));
    }
    return AXE_OK;
}

/* The swizzles act alike: both the identity (absent, or B = 0) or equal
 * parameters. */
static bool same_swizzle(const axe_layout_swizzle *a,
                         const axe_layout_swizzle *b)
{
    bool ida = !a->present || a->len == 0, idb = !b->present || b->len == 0;
    if (ida || idb)
        return ida && idb;
    return a->inner == b->inner && a->per_element == b->per_element &&
           a->len == b->len && a->atom == b->atom;
}

/* Every point of p[0 .. np) is among q[0 .. nq). */
static bool points_in(const axe_point *p, int np, const axe_point *q, int nq)
{
    for (int i = 0; i < np; i++) {
        int j = 0;
        while (j < nq && !axe_point_equal(&p[i], &q[j]))
            j++;
        if (j == nq)
            return false;
    }
    return true;
}

/* L_a(x) == L_b(x) as sets for every x < size, by evaluation (layouts with
 * different swizzles); bounded by EVAL_POINTS and EVAL_BUDGET. */
static axe_status equivalent_by_evaluation(const axe_layout *a,
                                           const axe_layout *b, bool *out,
                                           axe_diag *diag)
{
    axe_point pa[EVAL_POINTS], pb[EVAL_POINTS];
    int64_t na, nb;
    int ca, cb;
    AXE_TRY(axe_layout_size(a, NULL, &na));
    AXE_TRY(axe_layout_size(b, NULL, &nb));
    *out = na == nb;
    if (*out && na > EVAL_BUDGET / EVAL_POINTS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "layouts with different swizzles are compared by "
                         "evaluation, and size %lld is too large for it "
                         "(limit %lld)",
                         (long long)na, (long long)(EVAL_BUDGET / EVAL_POINTS));
    for (int64_t x = 0; x < na && *out; x++) {
        AXE_TRY(
            axe_layout_apply_set(a, &x, NULL, 1, pa, EVAL_POINTS, &ca, diag));
        AXE_TRY(
            axe_layout_apply_set(b, &x, NULL, 1, pb, EVAL_POINTS, &cb, diag));
        *out = points_in(pa, ca, pb, cb) && points_in(pb, cb, pa, ca);
    }
    return AXE_OK;
}

/* "a" and "b" without replicas and swizzle: shard and offsets only. */
static bool same_base(const axe_layout *a, const axe_layout *b)
{
    axe_layout x, y;
    axe__layout_copy(&x, a);
    axe__layout_copy(&y, b);
    x.nreplica = 0;
    y.nreplica = 0;
    memset(&x.swizzle, 0, sizeof x.swizzle);
    memset(&y.swizzle, 0, sizeof y.swizzle);
    return axe_layout_equal(&x, &y);
}

/* Equal sorted replica lists. */
static bool same_replica_list(const axe_layout *a, const axe_layout *b)
{
    if (a->nreplica != b->nreplica)
        return false;
    for (int k = 0; k < a->nreplica; k++)
        if (iter_cmp(&a->replica[k], &b->replica[k]) != 0)
            return false;
    return true;
}

/*
 * Whether "a" and "b" induce the same set-valued map L(x) on [0, size).
 * L(x) = D(x) + S with S = R + O finite, so the map fixes S = L(0) and
 * then D(x) (a finite set has one translate per offset). With the same
 * swizzle (a bijection on m) the question is the tiles': D is decided by
 * the normal shards (a fused shard with stride-0 iters on m is unique for
 * its function: the innermost iter is the first increment and its extent
 * the first change of increment), S per axis by the offset (its least
 * value after C1) and the replica sum set: equal normal forms when both
 * meet the gap condition, else bitmaps of the sum sets. Different
 * swizzles: evaluation.
 */
axe_status axe_layout_equivalent(const axe_layout *a, const axe_layout *b,
                                 bool *out, axe_diag *diag)
{
    axe_layout na, nb;
    bool same;
    if (out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "equivalent needs an output");
    AXE_TRY(axe_layout_normalize(a, &na, diag));
    AXE_TRY(axe_layout_normalize(b, &nb, diag));
    if (!same_swizzle(&na.swizzle, &nb.swizzle)) {
        AXE_TRY(equivalent_by_evaluation(a, b, &same, diag));
        *out = same;
        return AXE_OK;
    }
    same = same_base(&na, &nb);
    if (same && !same_replica_list(&na, &nb)) {
        same = false;
        if (!gap_ok(&na) || !gap_ok(&nb))
            AXE_TRY(same_sumsets(&na, &nb, &same, diag));
    }
    *out = same;
    return AXE_OK;
}
