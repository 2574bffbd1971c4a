/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe layout values: construction (shard and replica iters, offsets, the
 * row-major default), structural equality and points. A layout is a value
 * struct with inline, NUL-padded axis names. Invariant kept here: counts
 * within capacity, every stored name valid and padded, extents >= 1,
 * offsets on distinct axes (adding to an axis that has one sums).
 */
#include "layout_internal.h"

void axe_layout_init(axe_layout *l) { memset(l, 0, sizeof *l); }

axe_status axe__iter_push(axe_iter *arr, uint8_t *n, int cap, int64_t extent,
                          int64_t stride, const char *axis)
{
    if (*n >= cap)
        return AXE_ERR_CAPACITY;
    arr[*n].extent = extent;
    arr[*n].stride = stride;
    axe__axis_copy(arr[*n].axis, axis);
    (*n)++;
    return AXE_OK;
}

/* Append (extent, stride, axis) to "arr" after checking the arguments. */
static axe_status push_checked(axe_iter *arr, uint8_t *n, int cap,
                               int64_t extent, int64_t stride, const char *axis)
{
    char padded[AXE_AXIS_NAME_MAX];
    if (extent < 1)
        return AXE_ERR_INVALID;
    AXE_TRY(axe__axis_name(axis, padded, NULL));
    return axe__iter_push(arr, n, cap, extent, stride, padded);
}

axe_status axe_layout_push_shard(axe_layout *l, int64_t extent, int64_t stride,
                                 const char *axis)
{
    return push_checked(l->shard, &l->nshard, AXE_LAYOUT_MAX_SHARD, extent,
                        stride, axis);
}

axe_status axe_layout_push_replica(axe_layout *l, int64_t extent,
                                   int64_t stride, const char *axis)
{
    return push_checked(l->replica, &l->nreplica, AXE_LAYOUT_MAX_REPLICA,
                        extent, stride, axis);
}

int64_t axe__layout_offset_get(const axe_layout *l, const char *axis)
{
    for (int i = 0; i < l->noffset; i++)
        if (axe__axis_eq(l->offset[i].axis, axis))
            return l->offset[i].value;
    return 0;
}

axe_status axe__layout_offset_add(axe_layout *l, const char *axis, int64_t v)
{
    for (int i = 0; i < l->noffset; i++)
        if (axe__axis_eq(l->offset[i].axis, axis))
            return axe__add(l->offset[i].value, v, &l->offset[i].value);
    if (l->noffset >= AXE_LAYOUT_MAX_OFFSET)
        return AXE_ERR_CAPACITY;
    axe__axis_copy(l->offset[l->noffset].axis, axis);
    l->offset[l->noffset].value = v;
    l->noffset++;
    return AXE_OK;
}

axe_status axe_layout_add_offset(axe_layout *l, const char *axis, int64_t value)
{
    char padded[AXE_AXIS_NAME_MAX];
    AXE_TRY(axe__axis_name(axis, padded, NULL));
    return axe__layout_offset_add(l, padded, value);
}

/* S[(shape...):(row-major strides on m)]: stride_k = prod shape[k+1 ..]. */
axe_status axe_layout_row_major(const int64_t *shape, int n, axe_layout *out)
{
    axe_layout l;
    int64_t stride = 1;
    if (n < 0 || (n > 0 && shape == NULL))
        return AXE_ERR_INVALID;
    if (n > AXE_LAYOUT_MAX_SHARD)
        return AXE_ERR_CAPACITY;
    axe_layout_init(&l);
    for (int k = n - 1; k >= 0; k--) {
        if (shape[k] < 1)
            return AXE_ERR_INVALID;
        l.shard[k].extent = shape[k];
        l.shard[k].stride = stride;
        axe__axis_copy(l.shard[k].axis, axe__name_m.s);
        if (k > 0)
            AXE_TRY(axe__mul(stride, shape[k], &stride));
    }
    l.nshard = (uint8_t)n;
    *out = l;
    return AXE_OK;
}

static bool iter_eq(const axe_iter *a, const axe_iter *b)
{
    return a->extent == b->extent && a->stride == b->stride &&
           axe__axis_eq(a->axis, b->axis);
}

/* Replica lists equal as multisets: each of a's iters matched to a distinct
 * equal iter of b. */
static bool replica_eq(const axe_layout *a, const axe_layout *b)
{
    bool used[AXE_LAYOUT_MAX_REPLICA] = {false};
    if (a->nreplica != b->nreplica)
        return false;
    for (int i = 0; i < a->nreplica; i++) {
        int j = 0;
        while (j < b->nreplica &&
               (used[j] || !iter_eq(&a->replica[i], &b->replica[j])))
            j++;
        if (j == b->nreplica)
            return false;
        used[j] = true;
    }
    return true;
}

/* Every nonzero offset of "a" has the same value in "b". */
static bool offsets_in(const axe_layout *a, const axe_layout *b)
{
    for (int i = 0; i < a->noffset; i++)
        if (a->offset[i].value != 0 &&
            axe__layout_offset_get(b, a->offset[i].axis) != a->offset[i].value)
            return false;
    return true;
}

static bool swizzle_eq(const axe_layout_swizzle *a, const axe_layout_swizzle *b)
{
    if (a->present != b->present)
        return false;
    return !a->present ||
           (a->inner == b->inner && a->per_element == b->per_element &&
            a->len == b->len && a->atom == b->atom);
}

/* Structural equality (vectors' axe_struct): swizzle parameters, shard in
 * order, replicas as a multiset, offsets as maps without zero entries. */
bool axe_layout_equal(const axe_layout *a, const axe_layout *b)
{
    if (!swizzle_eq(&a->swizzle, &b->swizzle) || a->nshard != b->nshard)
        return false;
    for (int i = 0; i < a->nshard; i++)
        if (!iter_eq(&a->shard[i], &b->shard[i]))
            return false;
    return replica_eq(a, b) && offsets_in(a, b) && offsets_in(b, a);
}

axe_status axe_point_add(axe_point *p, const char *axis, int64_t v)
{
    char padded[AXE_AXIS_NAME_MAX];
    if (p == NULL || p->n < 0 || p->n > AXE_POINT_MAX_AXES)
        return AXE_ERR_INVALID;
    AXE_TRY(axe__axis_name(axis, padded, NULL));
    return axe__point_add(p, padded, v);
}

/* Every nonzero entry of "a" has the same value in "b". */
static bool point_in(const axe_point *a, const axe_point *b)
{
    for (int i = 0; i < a->n; i++)
        if (a->v[i] != 0 && axe__point_get(b, a->axis[i]) != a->v[i])
            return false;
    return true;
}

/* Equal as axis -> value maps, entries of one axis summed (under either
 * spelling), zero entries ignored; a point whose sum overflows equals
 * nothing. */
bool axe_point_equal(const axe_point *a, const axe_point *b)
{
    axe_point ma, mb;
    if (a->n < 0 || a->n > AXE_POINT_MAX_AXES || b->n < 0 ||
        b->n > AXE_POINT_MAX_AXES || axe__point_merge(a, &ma) != AXE_OK ||
        axe__point_merge(b, &mb) != AXE_OK)
        return false;
    return point_in(&ma, &mb) && point_in(&mb, &ma);
}
