/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe layouts to mapping expressions, the converse of mapping_layout.c. A
 * layout on `m` whose modes (shard and replica, extent > 1) have strides
 * that, sorted, are 1, e1, e1 e2, ... (compact, no hole, no overlap) puts
 * every position 0 .. N-1 in exactly one L(x); reading the modes from the
 * largest stride down gives the pair of factors of the expression: a shard
 * mode of tensor axis T with digit weight mu (product of the extents after
 * it inside T's group) is `T / mu % e`, a replica mode the broadcast e;
 * the result is normalized (`m![A, B / 4, B % 4]` is printed `m![A, B]`).
 * With holes, a stride s above the block b of the faster modes pads that
 * block: `[...] # s` (top padding; the positions in no L(x) are exactly
 * the padded ones). Invariant: an expression is returned only when its
 * conversion back is the same set-valued map (checked by the construction:
 * compact strides and a grouping of the shard by the tensor shape).
 */
#include <string.h>

#include "layout_internal.h"
#include "mapping_internal.h"

typedef struct mode {
    int64_t extent, stride, mu;
    int axis; /* tensor axis, -1 for a replica */
} mode;

#define MODES_MAX (AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA)

/* The iter k of "l", shard first, then replicas. */
static const axe_iter *iter_at(const axe_layout *l, int k)
{
    return k < l->nshard ? &l->shard[k] : &l->replica[k - l->nshard];
}

/* A mapping expression's positions are 0 .. |E|-1, each chain's stride
 * product positive: the layout's lowest position on m (its offset plus
 * (e-1)s over the modes with s < 0) must not be below 0, and no mode of
 * extent > 1 may run backwards; otherwise the reason. */
static axe_status check_order(const axe_layout *l, axe_diag *diag)
{
    int64_t low = axe__layout_offset_get(l, axe__name_m.s), t;
    int reversed = -1;
    for (int k = 0; k < l->nshard + l->nreplica; k++) {
        const axe_iter *it = iter_at(l, k);
        if (it->extent < 2 || it->stride >= 0 ||
            !axe__axis_eq(it->axis, axe__name_m.s))
            continue;
        if (reversed < 0)
            reversed = k;
        if (__builtin_mul_overflow(it->extent - 1, it->stride, &t) ||
            __builtin_add_overflow(low, t, &low))
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the layout's lowest position overflows");
    }
    if (low < 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the layout reaches position %lld below 0: a "
                         "mapping expression's positions are 0 .. |E|-1",
                         (long long)low);
    if (reversed >= 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "negative stride %lld: mapping expressions cannot "
                         "reverse an axis (their strides / n are positive)",
                         (long long)iter_at(l, reversed)->stride);
    return AXE_OK;
}

static axe_status check_plain(const axe_layout *l, axe_diag *diag)
{
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "a swizzled layout is not a mapping expression");
    AXE_TRY(check_order(l, diag));
    for (int k = 0; k < l->noffset; k++)
        if (l->offset[k].value != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "the offset %lld@%s leaves a hole before it",
                             (long long)l->offset[k].value, l->offset[k].axis);
    for (int k = 0; k < l->nshard + l->nreplica; k++) {
        const axe_iter *it = iter_at(l, k);
        if (!axe__axis_eq(it->axis, axe__name_m.s))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "stride on axis %s: a mapping expression "
                             "describes one buffer (axis m)",
                             it->axis);
    }
    return AXE_OK;
}

/* The modes of the grouped shard (with their axes and digit weights) and
 * the replicas, extents > 1. */
static int collect_modes(const axe_layout *g, const int *seps, int nt,
                         mode *out)
{
    int n = 0;
    for (int t = 0; t < nt; t++) {
        int64_t mu = 1;
        for (int k = seps[t + 1] - 1; k >= seps[t]; k--) {
            if (g->shard[k].extent > 1)
                out[n++] =
                    (mode){g->shard[k].extent, g->shard[k].stride, mu, t};
            mu *= g->shard[k].extent;
        }
    }
    for (int r = 0; r < g->nreplica; r++)
        if (g->replica[r].extent > 1)
            out[n++] =
                (mode){g->replica[r].extent, g->replica[r].stride, 1, -1};
    return n;
}

/* Sort by stride descending. */
static void sort_modes(mode *m, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && m[j - 1].stride < m[j].stride; j--) {
            mode t = m[j];
            m[j] = m[j - 1];
            m[j - 1] = t;
        }
}

/* Mode "m" after a block of "expect" positions: compact (stride =
 * expect), or with "holes" above it (the block padded to the stride);
 * otherwise the reason. */
static axe_status check_stride(const mode *m, int64_t expect, bool holes,
                               axe_diag *diag)
{
    if (m->stride == expect || (holes && m->stride > expect))
        return AXE_OK;
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "stride %lld where %lld would be compact: the layout "
                     "%s positions, so no mapping expression describes it%s",
                     (long long)m->stride, (long long)expect,
                     m->stride < expect ? "repeats" : "skips",
                     m->stride < expect ? "" : " (--holes pads them)");
}

static axe_status push_mode(axe_mapping *e, const mode *m, int *id)
{
    if (m->axis < 0)
        return axe_mapping_push(e, AXE_MAPPING_BROADCAST, -1, -1, m->extent,
                                AXE_PADDING_TOP, id, NULL);
    return axe__mapping_push_digit(e, m->axis, m->mu, m->extent, id);
}

/* The expression of the modes m[0 .. n) (stride descending), built from
 * the fastest: a mode whose stride is above the block below it pads that
 * block (`1` when empty) to its stride first. */
static axe_status build(const mode *m, int n, const axe_mapping_axes *tensor,
                        bool holes, axe_mapping *out, axe_diag *diag)
{
    axe_mapping e;
    int block = -1, id;
    int64_t expect = 1;
    axe_mapping_init(&e, tensor);
    for (int k = n - 1; k >= 0; k--) {
        AXE_TRY(check_stride(&m[k], expect, holes, diag));
        if (m[k].stride > expect && block < 0)
            AXE_TRY(axe_mapping_push(&e, AXE_MAPPING_BROADCAST, -1, -1, 1,
                                     AXE_PADDING_TOP, &block, diag));
        if (m[k].stride > expect)
            AXE_TRY(axe_mapping_push(&e, AXE_MAPPING_PADDING, block, -1,
                                     m[k].stride, AXE_PADDING_TOP, &block,
                                     diag));
        AXE_TRY(push_mode(&e, &m[k], &id));
        if (block >= 0)
            AXE_TRY(axe_mapping_push(&e, AXE_MAPPING_PAIR, id, block, 0,
                                     AXE_PADDING_TOP, &id, diag));
        block = id;
        if (axe__mul(m[k].stride, m[k].extent, &expect))
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1, "size overflows");
    }
    if (block < 0)
        AXE_TRY(axe_mapping_push(&e, AXE_MAPPING_BROADCAST, -1, -1, 1,
                                 AXE_PADDING_TOP, &block, diag));
    *out = e;
    return AXE_OK;
}

static axe_status from_layout(const axe_layout *l,
                              const axe_mapping_axes *tensor, bool holes,
                              axe_mapping *out, axe_diag *diag)
{
    axe_layout g;
    axe_mapping e;
    int seps[AXE_MAPPING_MAX_AXES + 1];
    mode m[MODES_MAX];
    int n;
    if (l == NULL || tensor == NULL || out == NULL ||
        tensor->n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a layout and at most %d tensor axes",
                         AXE_LAYOUT_MAX_DIMS);
    AXE_TRY(check_plain(l, diag));
    AXE_TRY(axe_layout_group(l, tensor->size, tensor->n, &g, seps, diag));
    n = collect_modes(&g, seps, tensor->n, m);
    sort_modes(m, n);
    AXE_TRY(build(m, n, tensor, holes, &e, diag));
    return axe_mapping_normalize(&e, out, diag);
}

axe_status axe_mapping_from_layout(const axe_layout *l,
                                   const axe_mapping_axes *tensor,
                                   axe_mapping *out, axe_diag *diag)
{
    return from_layout(l, tensor, false, out, diag);
}

axe_status axe_mapping_from_layout_holes(const axe_layout *l,
                                         const axe_mapping_axes *tensor,
                                         axe_mapping *out, axe_diag *diag)
{
    return from_layout(l, tensor, true, out, diag);
}
