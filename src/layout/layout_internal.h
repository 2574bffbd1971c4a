/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal services shared by the Axe layout files: axis names as
 * zero-padded 16-byte values (compared with one memcmp), the registry
 * lookup without diagnostics, iter and offset lists with capacity checks,
 * points, the lexicographic digit split of spec §6 (SplitCoord) and the
 * swizzle address map of spec §11. Invariant kept by every helper: a stored
 * name is a valid axis name padded with NULs to AXE_AXIS_NAME_MAX bytes, so
 * two names are the same axis exactly when the 16 bytes of their ids
 * (axe__axis_id: lane = laneid, warp = warpid) are equal.
 */
#ifndef AXE_LAYOUT_INTERNAL_H
#define AXE_LAYOUT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "axe/layout.h"
#include "core_internal.h"

/* A stored axis name: NUL-padded to AXE_AXIS_NAME_MAX bytes. */
typedef struct axe__name {
    char s[AXE_AXIS_NAME_MAX];
} axe__name;

/* The memory axis `m`. */
extern const axe__name axe__name_m;

/* TIRx's names of the hardware axes the Axe paper calls lane and warp. */
extern const axe__name axe__name_laneid, axe__name_warpid;

/* The axis a stored (padded) name denotes: the paper's `lane` and `warp`
 * are TIRx's `laneid` and `warpid` (one hardware axis, two spellings);
 * every other name denotes itself. Layouts keep the spelling they were
 * written with; identity goes through this function. */
static inline const char *axe__axis_id(const char *a)
{
    if (a[4] != '\0')
        return a;
    if (memcmp(a, "lane", 4) == 0)
        return axe__name_laneid.s;
    if (memcmp(a, "warp", 4) == 0)
        return axe__name_warpid.s;
    return a;
}

/* Two stored (padded) names are the same axis (spellings identified by
 * axe__axis_id). */
static inline bool axe__axis_eq(const char *a, const char *b)
{
    if (memcmp(a, b, AXE_AXIS_NAME_MAX) == 0)
        return true;
    if (memcmp(a, b, 4) != 0)
        return false; /* two spellings of one axis share "lane" or "warp" */
    return memcmp(axe__axis_id(a), axe__axis_id(b), AXE_AXIS_NAME_MAX) == 0;
}

/* The order of the axes two stored names denote (memcmp of their ids). */
static inline int axe__axis_cmp(const char *a, const char *b)
{
    return memcmp(axe__axis_id(a), axe__axis_id(b), AXE_AXIS_NAME_MAX);
}

/* Copy a stored (padded) name. */
static inline void axe__axis_copy(char *dst, const char *src)
{
    memcpy(dst, src, AXE_AXIS_NAME_MAX);
}

/* The empty layout S[():()] without touching the entries: only the counts
 * and the swizzle (the bytes before the shard) are cleared. Entries are
 * meaningful only below the counts, so this is axe_layout_init for a value
 * that is filled by appending. */
static inline void axe__layout_clear(axe_layout *l)
{
    memset(l, 0, offsetof(axe_layout, shard));
}

static inline int axe__clamp(int n, int cap) { return n < cap ? n : cap; }

/* dst[0 .. n) = src[0 .. n), field by field: compilers then emit a loop of
 * 16-byte moves, where a memcpy of a bounded size becomes `rep movs`,
 * slow to start for the few entries a layout uses. */
static inline void axe__iters_copy(axe_iter *dst, const axe_iter *src, int n)
{
    for (int i = 0; i < n; i++) {
        dst[i].extent = src[i].extent;
        dst[i].stride = src[i].stride;
        memcpy(dst[i].axis, src[i].axis, AXE_AXIS_NAME_MAX);
    }
}

static inline void axe__offsets_copy(axe_offset *dst, const axe_offset *src,
                                     int n)
{
    for (int i = 0; i < n; i++) {
        memcpy(dst[i].axis, src[i].axis, AXE_AXIS_NAME_MAX);
        dst[i].value = src[i].value;
    }
}

/* *dst = *src without its shard: the swizzle, the replica and the offset
 * (entries in use), nshard = 0; for results whose shard is built anew. */
static inline void axe__layout_copy_rest(axe_layout *dst, const axe_layout *src)
{
    memcpy(dst, src, offsetof(axe_layout, shard));
    dst->nshard = 0;
    axe__iters_copy(dst->replica, src->replica,
                    axe__clamp(src->nreplica, AXE_LAYOUT_MAX_REPLICA));
    axe__offsets_copy(dst->offset, src->offset,
                      axe__clamp(src->noffset, AXE_LAYOUT_MAX_OFFSET));
}

/* *dst = *src, copying the counts, the swizzle and only the entries in use
 * (a whole layout is ~1.5 KB, a typical one uses ~200 bytes); counts past
 * a capacity copy the whole array, as `=` would. Entries of "dst" past the
 * counts keep whatever they held. */
static inline void axe__layout_copy(axe_layout *dst, const axe_layout *src)
{
    if (dst == src)
        return;
    axe__layout_copy_rest(dst, src);
    dst->nshard = src->nshard;
    axe__iters_copy(dst->shard, src->shard,
                    axe__clamp(src->nshard, AXE_LAYOUT_MAX_SHARD));
}

/* Whether b divides a, for a >= 0 and b >= 1, with the quotient in *q;
 * powers of two (most extents) are tested with a mask and a shift. */
static inline bool axe__exact_div(int64_t a, int64_t b, int64_t *q)
{
    if ((b & (b - 1)) == 0) {
        if ((a & (b - 1)) != 0)
            return false;
        *q = a >> __builtin_ctzll((unsigned long long)b);
        return true;
    }
    if (a % b != 0)
        return false;
    *q = a / b;
    return true;
}

/* Whether the "len" bytes at "s" form a valid axis name: 1 to 15 bytes of
 * [A-Za-z0-9_] (digit names are CuTe coordinate axes "0", "1", ...). */
bool axe__axis_name_valid(const char *s, size_t len);

/* The padded form of the C string "s" into "out"; AXE_ERR_INVALID (with a
 * reason) when it is not a valid axis name. */
AXE_NODISCARD axe_status axe__axis_name(const char *s, char *out,
                                        axe_diag *diag);

/* What the padded name "name" is (registry lookup, never fails for a
 * valid name: unknown names are unregistered memory axes). */
void axe__axis_info(const char *name, axe_axis_info *out);
bool axe__is_memory_axis(const char *name);
bool axe__is_thread_axis(const char *name);

/* Append (extent, stride, padded "axis") to arr[0 .. *n) of capacity
 * "cap"; AXE_ERR_CAPACITY when full. */
AXE_NODISCARD axe_status axe__iter_push(axe_iter *arr, uint8_t *n, int cap,
                                        int64_t extent, int64_t stride,
                                        const char *axis);

/* axe__iter_push inlined, for the algebra's inner loops. */
AXE_NODISCARD static inline axe_status
axe__iter_append(axe_iter *arr, uint8_t *n, int cap, int64_t extent,
                 int64_t stride, const char *axis)
{
    axe_iter *it;
    if (*n >= cap)
        return AXE_ERR_CAPACITY;
    it = &arr[*n];
    it->extent = extent;
    it->stride = stride;
    axe__axis_copy(it->axis, axis);
    (*n)++;
    return AXE_OK;
}

/* The most runs of equal steps slice visits in one dim's search beyond
 * TIRx's forms (layout_slice_steps.c; a run costs two evaluations). */
#define AXE__SLICE_STEPS_MAX ((int64_t)1 << 20)

/* Append to "res" the layout of u -> f(begin + u) - f(begin), u < n, over
 * one dim's iters "it[0 .. m)" (m >= 1, last fastest, begin + n within
 * their size), outermost iter first; *ok false, with the reason naming
 * "dim", when no layout of that map exists or the search visited
 * AXE__SLICE_STEPS_MAX runs of equal steps. CAPACITY, OVERFLOW. */
AXE_NODISCARD axe_status axe__slice_by_steps(const axe_iter *it, int m,
                                             int64_t begin, int64_t n, int dim,
                                             axe_layout *res, bool *ok,
                                             axe_diag *diag);

/* The offset of "l" on padded "axis" (0 when absent). */
int64_t axe__layout_offset_get(const axe_layout *l, const char *axis);
/* offset[axis] += v (entry created even when v is 0); CAPACITY, OVERFLOW. */
AXE_NODISCARD axe_status axe__layout_offset_add(axe_layout *l, const char *axis,
                                                int64_t v);

/* p[axis] += v for a padded "axis" (entry created); CAPACITY, OVERFLOW. */
AXE_NODISCARD static inline axe_status
axe__point_add(axe_point *p, const char *axis, int64_t v)
{
    for (int i = 0; i < p->n; i++)
        if (axe__axis_eq(p->axis[i], axis))
            return axe__add(p->v[i], v, &p->v[i]);
    if (p->n >= AXE_POINT_MAX_AXES)
        return AXE_ERR_CAPACITY;
    axe__axis_copy(p->axis[p->n], axis);
    p->v[p->n] = v;
    p->n++;
    return AXE_OK;
}

/* "p" with the entries of each axis summed into one (an axis given twice,
 * under one spelling or two, adds); the first spelling is kept. OVERFLOW
 * when a sum does not fit. */
AXE_NODISCARD static inline axe_status axe__point_merge(const axe_point *p,
                                                        axe_point *out)
{
    out->n = 0;
    for (int i = 0; i < p->n; i++)
        AXE_TRY(axe__point_add(out, p->axis[i], p->v[i]));
    return AXE_OK;
}

/* The value of p on padded "axis" (0 when absent). */
static inline int64_t axe__point_get(const axe_point *p, const char *axis)
{
    for (int i = 0; i < p->n; i++)
        if (axe__axis_eq(p->axis[i], axis))
            return p->v[i];
    return 0;
}

/* *dst = *src, copying only the entries in use. */
static inline void axe__point_copy(axe_point *dst, const axe_point *src)
{
    dst->n = src->n;
    memcpy(dst->axis, src->axis, (size_t)src->n * AXE_AXIS_NAME_MAX);
    memcpy(dst->v, src->v, (size_t)src->n * sizeof src->v[0]);
}

/* SplitCoord (spec §6): the digits of "x" over the extents of it[0 .. n),
 * last iter fastest, floor div/mod; the outermost digit takes what is left
 * (no mod). AXE_ERR_INVALID for an extent < 1. */
AXE_NODISCARD axe_status axe__split_coord(int64_t x, const axe_iter *it, int n,
                                          int64_t *digits);

/* span on one padded axis: 1 + sum (e-1) |s| over the shard and replica
 * iters on it (the paper's Lemma C.1), or TIRx's 1 + sum (e-1) s + its
 * offset (spec §5). */
AXE_NODISCARD axe_status axe__span_axis(const axe_layout *l, const char *axis,
                                        axe_rule rule, int64_t *out);

/* Whether the swizzle parameters are well formed: M >= 0, B >= 0, S >= B
 * (TIRx), and M <= 62, S + B <= 62 so that the address map stays in range
 * (axe). Always true without a swizzle. */
bool axe__swizzle_ok(const axe_layout_swizzle *sw);

/* The swizzled address addr(m) of spec §11 (identity without a swizzle);
 * floor division and two's-complement bits for negative m. addr is an
 * involution (addr(addr(m)) == m). */
AXE_NODISCARD axe_status axe__swizzle_addr(const axe_layout_swizzle *sw,
                                           int64_t m, int64_t *out);

/* axe_layout_get_scope("l") with one registry lookup per distinct axis
 * other than `m` (same status, reason and answer); counts within the
 * capacities. */
AXE_NODISCARD axe_status axe__layout_scope(const axe_layout *l, bool *has,
                                           axe_scope *subscope,
                                           axe_scope *scope, axe_diag *diag);

/* The scope of a layout as axe_layout_get_scope answers it, when "known". */
typedef struct axe__scope_info {
    bool known;
    bool has;
    axe_scope subscope;
    axe_scope scope;
} axe__scope_info;

/* axe_layout_canonicalize, also giving the scope of the result in "info"
 * when it comes for free (info->known: CUDA axis fusion renamed nothing,
 * so the result has the axes whose scope step 3 computed). */
AXE_NODISCARD axe_status axe__canonicalize_scoped(const axe_layout *l,
                                                  axe_target target,
                                                  axe_layout *out,
                                                  axe__scope_info *info,
                                                  axe_diag *diag);

/* The tile point D(x) + O of the linear index "x" (swizzle not applied). */
AXE_NODISCARD axe_status axe__tile_point_linear(const axe_layout *l, int64_t x,
                                                axe_point *p);
/* p += the replica combination "j" (lexicographic over the replica iters,
 * last fastest; 0 <= j < product of their extents). */
AXE_NODISCARD axe_status axe__replica_add(const axe_layout *l, int64_t j,
                                          axe_point *p);
/* The point of tile point "p": p itself, or with a swizzle {m: addr(p.m)}
 * (INVALID with a reason when p has an axis other than m). */
AXE_NODISCARD axe_status axe__point_finish(const axe_layout *l,
                                           const axe_point *p, axe_point *out,
                                           axe_diag *diag);

#endif
