/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SplitAxesByScope (spec §8.4): before a tile-of query matches a tiled
 * layout against a factor of a narrower scope, the tiled layout's thread
 * axes are rewritten over the finer pair of axes that meets that scope: a
 * CTA thread index tx = 32 warpid + laneid at warp scope, tx = 128 wgid +
 * tid_in_wg at warpgroup scope, tid_in_wg = 32 wid_in_wg + laneid, and
 * warpid = 4 wgid + wid_in_wg. An iter (e, s) over a unit U goes to the
 * inner axis when it stays below U, to the outer axis when s is a multiple
 * of U, or to both when U is a multiple of s and e s of U (TIRx
 * SplitterGen). Invariant: the rewrite is exact or it fails; where TIRx
 * drops an iter that straddles U, axe reports it.
 */
#include "layout_tile_internal.h"

/* Names are stored padded, as in layouts, and compared with axe__axis_eq. */
typedef struct split_rule {
    char axis[AXE_AXIS_NAME_MAX];
    axe_scope scope;
    char outer[AXE_AXIS_NAME_MAX];
    char inner[AXE_AXIS_NAME_MAX];
    int64_t unit;
} split_rule;

/* TIRx's splitters; warpid also splits at warpgroup scope (TIRx: warp
 * only, where warpgroup is the scope that needs it). */
static const split_rule rules[] = {
    {"tx", AXE_SCOPE_WARP, "warpid", "laneid", 32},
    {"tx", AXE_SCOPE_WARPGROUP, "wgid", "tid_in_wg", 128},
    {"warpid", AXE_SCOPE_WARP, "wgid", "wid_in_wg", 4},
    {"warpid", AXE_SCOPE_WARPGROUP, "wgid", "wid_in_wg", 4},
    {"tid_in_wg", AXE_SCOPE_WARP, "wid_in_wg", "laneid", 32},
};

/* Axes with a splitter (others are left alone). */
static const char splittable[][AXE_AXIS_NAME_MAX] = {
    "tx", "warpid", "tid_in_wg", "laneid", "wgid", "wid_in_wg"};

/* Padded "padded" denotes the axis "name" (a TIRx name). */
static bool named(const char *padded, const char *name)
{
    return strncmp(axe__axis_id(padded), name, AXE_AXIS_NAME_MAX) == 0;
}

/* The rule for "axis" at "scope"; NULL with *has_splitter telling whether
 * the axis has a splitter at all. */
static const split_rule *find_rule(const char *axis, axe_scope scope,
                                   bool *has_splitter)
{
    *has_splitter = false;
    for (size_t i = 0; i < sizeof splittable / sizeof splittable[0]; i++)
        *has_splitter = *has_splitter || axe__axis_eq(axis, splittable[i]);
    if (!*has_splitter)
        return NULL;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].scope == scope && axe__axis_eq(axis, rules[i].axis))
            return &rules[i];
    return NULL;
}

/* The reason an axis with a splitter has no rule at "scope" (TIRx). */
static axe_status no_rule(const char *axis, axe_scope scope, axe_diag *diag)
{
    axe_axis_info info;
    axe__axis_info(axis, &info);
    if (named(axis, "laneid") || named(axis, "wgid") ||
        named(axis, "wid_in_wg"))
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "%s can not be split any more", axis);
    return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                     "Cannot split %s->%s axis into %s->%s->%s",
                     axe_scope_name(info.scope), axe_scope_name(info.subscope),
                     axe_scope_name(info.scope), axe_scope_name(scope),
                     axe_scope_name(info.subscope));
}

/* (e, s, padded "name"). */
static void set_iter(axe_iter *it, int64_t e, int64_t s, const char *name)
{
    it->extent = e;
    it->stride = s;
    axe__axis_copy(it->axis, name);
}

/* SplitterGen: iter "it" over unit U as one or two iters in out[0 ..
 * *nout). Besides TIRx's three cases, an iter whose last point stays
 * below U ((e-1) s < U) goes to the inner axis; any other iter straddles U
 * and is an error (TIRx drops it). */
static axe_status split_iter(const axe_iter *it, const split_rule *r,
                             axe_iter *out, int *nout, axe_diag *diag)
{
    int64_t e = it->extent, s = it->stride, u = r->unit, es, last;
    char t[64];
    *nout = 1;
    AXE_TRY(axe__mul(e, s, &es));
    AXE_TRY(axe__mul(e - 1, s, &last));
    if (es < u) {
        set_iter(&out[0], e, s, r->inner);
    } else if (u % s == 0 && es % u == 0) {
        int64_t d = u / s;
        set_iter(&out[0], e / d, 1, r->outer);
        set_iter(&out[1], d, s, r->inner);
        *nout = 2;
    } else if (s % u == 0) {
        set_iter(&out[0], e, s / u, r->outer);
    } else if (last < u) {
        set_iter(&out[0], e, s, r->inner);
    } else {
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "iter %s straddles the %lld-wide %s: it cannot be "
                         "written over %s and %s (TIRx drops it)",
                         axe__iter_text(it, t, sizeof t), (long long)u,
                         axe_scope_name(r->scope), r->outer, r->inner);
    }
    return AXE_OK;
}

/* Append the split of "it" (at "scope") to arr[0 .. *n). */
static axe_status push_split(axe_iter *arr, uint8_t *n, int cap,
                             const axe_iter *it, axe_scope scope,
                             axe_diag *diag)
{
    axe_iter parts[2];
    int np = 1;
    bool has;
    const split_rule *r = find_rule(it->axis, scope, &has);
    if (r == NULL && has)
        return no_rule(it->axis, scope, diag);
    parts[0] = *it;
    if (r != NULL)
        AXE_TRY(split_iter(it, r, parts, &np, diag));
    for (int k = 0; k < np; k++)
        if (axe__iter_append(arr, n, cap, parts[k].extent, parts[k].stride,
                             parts[k].axis) != AXE_OK)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "splitting by scope needs more than %d iters",
                             cap);
    return AXE_OK;
}

/* An offset v on a split axis: v on the inner axis when v < U (TIRx), else
 * v div U on the outer one and v mod U on the inner one (TIRx gets U
 * itself wrong and drops the rest). */
static axe_status push_offset(axe_layout *out, const axe_offset *o,
                              axe_scope scope, axe_diag *diag)
{
    int64_t v = o->value;
    bool has;
    const split_rule *r = find_rule(o->axis, scope, &has);
    if (r == NULL && has && v != 0)
        return no_rule(o->axis, scope, diag);
    if (r == NULL || v == 0)
        return axe__layout_offset_add(out, o->axis, v);
    if (v < r->unit)
        return axe__layout_offset_add(out, r->inner, v);
    AXE_TRY(axe__layout_offset_add(out, r->outer, axe__floordiv(v, r->unit)));
    if (axe__floormod(v, r->unit) == 0)
        return AXE_OK;
    return axe__layout_offset_add(out, r->inner, axe__floormod(v, r->unit));
}

axe_status axe__split_by_scope(const axe_layout *l, axe_scope scope,
                               axe_target target, axe_layout *out,
                               axe_diag *diag)
{
    axe_layout r;
    if (target != AXE_TARGET_CUDA) {
        axe__layout_copy(out, l);
        return AXE_OK;
    }
    axe__layout_clear(&r);
    r.swizzle = l->swizzle;
    for (int k = 0; k < l->nshard; k++)
        AXE_TRY(push_split(r.shard, &r.nshard, AXE_LAYOUT_MAX_SHARD,
                           &l->shard[k], scope, diag));
    for (int k = 0; k < l->nreplica; k++)
        AXE_TRY(push_split(r.replica, &r.nreplica, AXE_LAYOUT_MAX_REPLICA,
                           &l->replica[k], scope, diag));
    for (int k = 0; k < l->noffset; k++)
        AXE_TRY(push_offset(&r, &l->offset[k], scope, diag));
    axe__layout_copy(out, &r);
    return AXE_OK;
}
