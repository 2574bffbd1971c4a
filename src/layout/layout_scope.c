/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scope analysis of Axe layouts (spec §3): the thread axes of a layout
 * form a chain subscope -> scope (laneid: thread -> warp, warpid: warp ->
 * cta, ...); the layout's scope is (innermost subscope, outermost scope)
 * of that chain. The chain is a map indexed by scope rank; a subscope with
 * two scopes, a chain that misses an edge, or a cycle (bx with tx in TIRx's
 * table: cta -> thread -> cta) is an ill-formed layout. Invariant: the
 * walk takes at most as many steps as the map has edges, so it ends.
 */
#include "layout_internal.h"

#define NRANK (AXE_SCOPE_THREAD + 1)

typedef struct scope_map {
    axe_scope to[NRANK]; /* AXE_SCOPE_NONE: no edge from this rank */
    int edges;
    axe_scope inner;
} scope_map;

static bool has_thread_shard(const axe_layout *l)
{
    for (int k = 0; k < l->nshard; k++)
        if (axe__is_thread_axis(l->shard[k].axis))
            return true;
    return false;
}

static bool valid_rank(axe_scope s) { return s >= 0 && s < NRANK; }

/* Add the edge of thread axis "axis" (if it is one) to "m". */
static axe_status visit(scope_map *m, const char *axis, axe_diag *diag)
{
    axe_axis_info info;
    axe__axis_info(axis, &info);
    if (info.kind != AXE_AXIS_THREAD)
        return AXE_OK;
    if (!valid_rank(info.subscope) || !valid_rank(info.scope))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "thread axis %s has no scope pair", axis);
    if (m->inner == AXE_SCOPE_NONE || info.subscope > m->inner)
        m->inner = info.subscope;
    if (m->to[info.subscope] == AXE_SCOPE_NONE) {
        m->to[info.subscope] = info.scope;
        m->edges++;
    } else if (m->to[info.subscope] != info.scope) {
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Ill-formed tile layout: conflicting scopes for %s",
                         axe_scope_name(info.subscope));
    }
    return AXE_OK;
}

static axe_status build_map(const axe_layout *l, scope_map *m, axe_diag *diag)
{
    for (int r = 0; r < NRANK; r++)
        m->to[r] = AXE_SCOPE_NONE;
    m->edges = 0;
    m->inner = AXE_SCOPE_NONE;
    for (int k = 0; k < l->nshard; k++)
        AXE_TRY(visit(m, l->shard[k].axis, diag));
    for (int k = 0; k < l->nreplica; k++)
        AXE_TRY(visit(m, l->replica[k].axis, diag));
    for (int i = 0; i < l->noffset; i++)
        AXE_TRY(visit(m, l->offset[i].axis, diag));
    return AXE_OK;
}

/* Follow the chain from m->inner; every edge must be used exactly once. */
static axe_status walk(const scope_map *m, axe_scope *outer, axe_diag *diag)
{
    axe_scope cur = m->inner;
    int steps = 0;
    while (valid_rank(cur) && m->to[cur] != AXE_SCOPE_NONE) {
        if (steps == m->edges)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "Ill-formed tile layout: cyclic scope chain "
                             "through %s",
                             axe_scope_name(cur));
        cur = m->to[cur];
        steps++;
    }
    if (steps != m->edges)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "Ill-formed tile layout: disconnected scope chain");
    *outer = cur;
    return AXE_OK;
}

/* (innermost subscope, outermost scope) of the thread axes of "l"; has =
 * false when no shard iter is on a thread axis (spec §3). */
axe_status axe_layout_get_scope(const axe_layout *l, bool *has,
                                axe_scope *subscope, axe_scope *scope,
                                axe_diag *diag)
{
    scope_map m;
    axe_scope outer;
    if (!has_thread_shard(l)) {
        *has = false;
        *subscope = AXE_SCOPE_NONE;
        *scope = AXE_SCOPE_NONE;
        return AXE_OK;
    }
    AXE_TRY(build_map(l, &m, diag));
    AXE_TRY(walk(&m, &outer, diag));
    *has = true;
    *subscope = m.inner;
    *scope = outer;
    return AXE_OK;
}

/* OK, or the reason "l" is ill-formed: swizzle parameters (M >= 0, B >= 0,
 * S >= B) or the scope chain of its thread axes. */
axe_status axe_layout_verify_well_formed(const axe_layout *l, axe_diag *diag)
{
    bool has;
    axe_scope sub, scope;
    if (!axe__swizzle_ok(&l->swizzle))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "The compose layout is not well-formed: Swizzle<%d,"
                         "%d,%d> needs M >= 0, B >= 0, S >= B (and M <= 62, "
                         "S + B <= 62)",
                         (int)l->swizzle.per_element, (int)l->swizzle.len,
                         (int)l->swizzle.atom);
    return axe_layout_get_scope(l, &has, &sub, &scope, diag);
}
