/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helper constructors and rewrites of Axe layouts with TIRx's meaning
 * (python/tvm/tirx/layout.py, spec §12): per-thread storage, pack / unpack
 * of contiguous elements, broadcast iters, permutations of the shard, the
 * Trainium SBUF / PSUM layouts, and the dtype table (the CUDA hardware
 * layouts are in layout_cuda.c). Invariant: every result is a well-formed
 * value (names padded, counts within capacity, arithmetic overflow-
 * checked); where Python asserts, axe returns a status with the reason and
 * TIRx's words (`can not be packed into`, `invalid perm`, ...). A swizzled
 * layout is rewritten through its tile, as TIRx's ComposeLayout does.
 */
#include "layout_internal.h"

static const struct {
    const char *name;
    int bits;
} dtype_table[] = {
    {"bool", 1},      {"int4", 4},     {"uint4", 4},    {"int8", 8},
    {"uint8", 8},     {"int16", 16},   {"uint16", 16},  {"int32", 32},
    {"uint32", 32},   {"int64", 64},   {"uint64", 64},  {"float16", 16},
    {"bfloat16", 16}, {"float32", 32}, {"float64", 64}, {"float8", 8},
    {"float6", 6},    {"float4", 4},
};

/* Bits of "dtype": a table entry, or a "float8_", "float6_" or "float4_"
 * name with any format suffix (e4m3fn, e5m2, e2m1fn, ...). */
axe_status axe_dtype_bits(const char *dtype, int *bits, axe_diag *diag)
{
    static const char *const fp[] = {"float8_", "float6_", "float4_"};
    static const int fp_bits[] = {8, 6, 4};
    if (dtype == NULL || bits == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "dtype: missing name");
    for (size_t i = 0; i < sizeof dtype_table / sizeof dtype_table[0]; i++)
        if (strcmp(dtype, dtype_table[i].name) == 0) {
            *bits = dtype_table[i].bits;
            return AXE_OK;
        }
    for (int i = 0; i < 3; i++)
        if (strncmp(dtype, fp[i], 7) == 0 && dtype[7] != '\0') {
            *bits = fp_bits[i];
            return AXE_OK;
        }
    return axe__fail(diag, AXE_ERR_INVALID, -1, "unknown dtype \"%.40s\"",
                     dtype);
}

/* Keep the iters of arr[0 .. *n) that are not on thread axes. */
static void drop_thread_iters(axe_iter *arr, uint8_t *n)
{
    uint8_t k = 0;
    for (int i = 0; i < *n; i++)
        if (!axe__is_thread_axis(arr[i].axis))
            arr[k++] = arr[i];
    *n = k;
}

/* storage(L): L without anything on a thread axis (swizzle kept). */
axe_status axe_layout_storage(const axe_layout *l, axe_layout *out,
                              axe_diag *diag)
{
    axe_layout r;
    uint8_t k = 0;
    if (l == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "storage: missing layout or output");
    r = *l;
    drop_thread_iters(r.shard, &r.nshard);
    drop_thread_iters(r.replica, &r.nreplica);
    for (int i = 0; i < l->noffset; i++)
        if (!axe__is_thread_axis(l->offset[i].axis))
            r.offset[k++] = l->offset[i];
    r.noffset = k;
    *out = r;
    return AXE_OK;
}

/* log2 "n" for a power of two n >= 1, else -1. */
static int log2_exact(int64_t n)
{
    int k = 0;
    if (n < 1 || (n & (n - 1)) != 0)
        return -1;
    while ((n >> k) != 1)
        k++;
    return k;
}

/* The swizzle of pack/unpack by "n": per_element M + "sign" log2 n. */
static axe_status rescale_swizzle(axe_layout_swizzle *sw, int64_t n, int sign,
                                  axe_diag *diag)
{
    int k = log2_exact(n);
    if (!sw->present)
        return AXE_OK;
    if (k < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a swizzled layout packs or unpacks by a power of "
                         "two, not %lld",
                         (long long)n);
    if (sign < 0 && sw->per_element < k)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "per_element %d of the swizzle must be >= log2 %lld",
                         sw->per_element, (long long)n);
    sw->per_element += sign * k;
    if (!axe__swizzle_ok(sw))
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "per_element %d of the swizzle is out of range",
                         sw->per_element);
    return AXE_OK;
}

/* pack(L, n): the last iter (e, 1) on a memory axis with n | e becomes
 * (e/n, 1); every other shard stride s becomes floor(s / n). */
axe_status axe_layout_pack(const axe_layout *l, int64_t n, axe_layout *out,
                           axe_diag *diag)
{
    axe_layout r;
    axe_iter *last;
    if (l == NULL || out == NULL || n < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "pack: needs a layout, an output and n >= 1");
    r = *l;
    last = r.nshard > 0 ? &r.shard[r.nshard - 1] : NULL;
    if (last == NULL || last->stride != 1 || last->extent % n != 0 ||
        !axe__is_memory_axis(last->axis))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "layout can not be packed into %lld elements: the "
                         "last shard iter must be (e, 1) on a memory axis "
                         "with e divisible by %lld",
                         (long long)n, (long long)n);
    AXE_TRY(rescale_swizzle(&r.swizzle, n, -1, diag));
    for (int i = 0; i + 1 < r.nshard; i++)
        r.shard[i].stride = axe__floordiv(r.shard[i].stride, n);
    last->extent /= n;
    *out = r;
    return AXE_OK;
}

/* unpack(L, n): every shard stride times n, then (n, 1, m) appended. */
axe_status axe_layout_unpack(const axe_layout *l, int64_t n, axe_layout *out,
                             axe_diag *diag)
{
    axe_layout r;
    if (l == NULL || out == NULL || n < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "unpack: needs a layout, an output and n >= 1");
    r = *l;
    AXE_TRY(rescale_swizzle(&r.swizzle, n, 1, diag));
    for (int i = 0; i < r.nshard; i++)
        if (axe__mul(r.shard[i].stride, n, &r.shard[i].stride) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "unpack: stride %lld of shard iter %d times "
                             "%lld overflows",
                             (long long)l->shard[i].stride, i, (long long)n);
    if (axe__iter_push(r.shard, &r.nshard, AXE_LAYOUT_MAX_SHARD, n, 1,
                       axe__name_m.s) != AXE_OK)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "unpack: the layout already has %d shard iters",
                         AXE_LAYOUT_MAX_SHARD);
    *out = r;
    return AXE_OK;
}

/* Insert "it" at index "at" of the shard of "r" (capacity checked). */
static axe_status insert_shard(axe_layout *r, int at, const axe_iter *it)
{
    if (r->nshard >= AXE_LAYOUT_MAX_SHARD)
        return AXE_ERR_CAPACITY;
    memmove(&r->shard[at + 1], &r->shard[at],
            (size_t)(r->nshard - at) * sizeof r->shard[0]);
    r->shard[at] = *it;
    r->nshard++;
    return AXE_OK;
}

/* broadcast(L, n, position, axis): (n, 0, axis) inserted at "position". */
axe_status axe_layout_broadcast(const axe_layout *l, int64_t n, int position,
                                const char *axis, axe_layout *out,
                                axe_diag *diag)
{
    axe_layout r;
    axe_iter it = {n, 0, {0}};
    int len, at;
    if (l == NULL || out == NULL || n < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "broadcast: needs a layout, an output and n >= 1");
    AXE_TRY(axe__axis_name(axis != NULL ? axis : "m", it.axis, diag));
    len = l->nshard;
    at = position >= 0 ? position : len + 1 + position;
    if (at < 0 || at > len)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "broadcast: position %d is outside [%d, %d]", position,
                         -(len + 1), len);
    r = *l;
    if (insert_shard(&r, at, &it) != AXE_OK)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "broadcast: the layout already has %d shard iters",
                         AXE_LAYOUT_MAX_SHARD);
    *out = r;
    return AXE_OK;
}

/* Whether perm[0 .. n) is a permutation of 0 .. n-1. */
static bool is_permutation(const int *perm, int n)
{
    bool seen[AXE_LAYOUT_MAX_SHARD] = {false};
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            return false;
        seen[perm[i]] = true;
    }
    return true;
}

static axe_status no_swizzle(const axe_layout *l, const char *op,
                             axe_diag *diag)
{
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s is defined for unswizzled layouts only (TIRx "
                         "TileLayout)",
                         op);
    return AXE_OK;
}

/* permute_dims(L, perm): shard'[i] = shard[perm[i]]. */
axe_status axe_layout_permute_dims(const axe_layout *l, const int *perm, int n,
                                   axe_layout *out, axe_diag *diag)
{
    axe_layout r;
    if (l == NULL || out == NULL || (n > 0 && perm == NULL))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "permute_dims: missing layout, perm or output");
    AXE_TRY(no_swizzle(l, "permute_dims", diag));
    if (n != l->nshard)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "perm must have the same length as the number of "
                         "dimensions in the layout (%d, not %d)",
                         l->nshard, n);
    if (!is_permutation(perm, n))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "invalid perm: not a permutation of 0..%d", n - 1);
    r = *l;
    for (int i = 0; i < n; i++)
        r.shard[i] = l->shard[perm[i]];
    *out = r;
    return AXE_OK;
}

/* The groups of "seps" must tile [0, nshard): seps[0] = 0, nondecreasing,
 * last = nshard. */
static axe_status check_seps(const axe_layout *l, const int *seps, int nseps,
                             axe_diag *diag)
{
    if (nseps < 1 || seps == NULL || seps[0] != 0 ||
        seps[nseps - 1] != l->nshard)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "permute_by_groups: seps must run from 0 to the %d "
                         "shard iters",
                         l->nshard);
    for (int g = 0; g + 1 < nseps; g++)
        if (seps[g + 1] < seps[g])
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "permute_by_groups: seps decrease at %d", g + 1);
    return AXE_OK;
}

/* permute_by_groups(L, seps, perm): the groups [seps[g], seps[g+1]) in the
 * order perm[0], perm[1], ... */
axe_status axe_layout_permute_by_groups(const axe_layout *l, const int *seps,
                                        int nseps, const int *perm, int n,
                                        axe_layout *out, axe_diag *diag)
{
    int flat[AXE_LAYOUT_MAX_SHARD], k = 0;
    if (l == NULL || out == NULL || (n > 0 && perm == NULL))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "permute_by_groups: missing layout, perm or output");
    AXE_TRY(check_seps(l, seps, nseps, diag));
    if (n != nseps - 1 || !is_permutation(perm, n))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "invalid perm: not a permutation of the %d groups",
                         nseps - 1);
    for (int i = 0; i < n; i++)
        for (int j = seps[perm[i]]; j < seps[perm[i] + 1]; j++)
            flat[k++] = j;
    return axe_layout_permute_dims(l, flat, k, out, diag);
}

/* Padded names of the axes the constructors below use. */
static const axe__name name_bank = {"Bank"}, name_f = {"F"}, name_p = {"P"};

/* The iter (e, s) on the padded name "axis". */
static axe_iter mk(int64_t e, int64_t s, const axe__name *axis)
{
    axe_iter it = {e, s, {0}};
    axe__axis_copy(it.axis, axis->s);
    return it;
}

/* A layout of the shard iters "it[0 .. n)" (n <= the shard capacity). */
static void from_iters(const axe_iter *it, int n, axe_layout *out)
{
    axe_layout_init(out);
    memcpy(out->shard, it, (size_t)n * sizeof it[0]);
    out->nshard = (uint8_t)n;
}

/* Row-major strides of the dims of "ext" whose annotation is "c", on the
 * iters "it" at those dims, on axis "c" ("P" or "F"). */
static axe_status annot_strides(const char *ann, const int64_t *ext, int n,
                                char c, axe_iter *it)
{
    int64_t stride = 1;
    const axe__name *axis = c == 'P' ? &name_p : &name_f;
    for (int d = n - 1; d >= 0; d--) {
        if (ann[d] != c)
            continue;
        it[d] = mk(ext[d], stride, axis);
        AXE_TRY(axe__mul(stride, ext[d], &stride));
    }
    return AXE_OK;
}

/* The annotation "ann" and "shape" checked: one 'P' or 'F' per dim,
 * extents >= 1; the product of the P dims ("prod"), their number, and the
 * index of the last P dim. */
static axe_status check_annotation(const char *ann, const int64_t *shape, int n,
                                   int64_t *prod, int *np, int *pidx,
                                   axe_diag *diag)
{
    if (ann == NULL || (int)strlen(ann) != n || (n > 0 && shape == NULL))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trainium: the annotation and the shape (%d dims) "
                         "must have the same length",
                         n);
    *prod = 1;
    *np = 0;
    for (int d = 0; d < n; d++) {
        if ((ann[d] != 'P' && ann[d] != 'F') || shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "trainium: dim %d needs annotation P or F and "
                             "an extent >= 1",
                             d);
        if (ann[d] == 'P') {
            AXE_TRY(axe__mul(*prod, shape[d], prod));
            *pidx = d;
            (*np)++;
        }
    }
    return AXE_OK;
}

axe_status axe_layout_trainium(const char *annotation, const int64_t *shape,
                               int n, axe_layout *out, axe_diag *diag)
{
    return axe_layout_trainium_parts(annotation, shape, n, 128, out, diag);
}

axe_status axe_layout_trainium_parts(const char *annotation,
                                     const int64_t *shape, int n, int64_t parts,
                                     axe_layout *out, axe_diag *diag)
{
    char ann[AXE_LAYOUT_MAX_SHARD + 1];
    int64_t ext[AXE_LAYOUT_MAX_SHARD], p;
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int np = 0, pidx = 0, split;
    if (out == NULL || n < 0 || n >= AXE_LAYOUT_MAX_SHARD || parts < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trainium: needs an output, 0 to %d dims and at "
                         "least 1 partition",
                         AXE_LAYOUT_MAX_SHARD - 1);
    AXE_TRY(check_annotation(annotation, shape, n, &p, &np, &pidx, diag));
    if (np == 1 && p > parts && p % parts != 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "There is only 1 P in the annotation. Partition "
                         "size %lld must be less than or equal to %lld or a "
                         "multiple of %lld",
                         (long long)p, (long long)parts, (long long)parts);
    if (np > 1 && p > parts)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "There are %d Ps in the annotation. Partition size "
                         "%lld must be less than or equal to %lld",
                         np, (long long)p, (long long)parts);
    split = np == 1 && p > parts;
    ann[0] = 'F';
    ext[0] = p / parts;
    memcpy(ann + split, annotation, (size_t)n + 1);
    memcpy(ext + split, shape, (size_t)n * sizeof shape[0]);
    if (split)
        ext[pidx + 1] = parts;
    AXE_TRY(annot_strides(ann, ext, n + split, 'F', it));
    AXE_TRY(annot_strides(ann, ext, n + split, 'P', it));
    if (split) {
        axe_iter hi = it[0];
        memmove(it, it + 1, (size_t)pidx * sizeof it[0]);
        it[pidx] = hi;
    }
    from_iters(it, n + split, out);
    return AXE_OK;
}

/* One F iter (e, s) of to_psum into "r" (the bank holds 512 elements). */
static axe_status psum_iter(const axe_iter *it, axe_layout *r, int i,
                            axe_diag *diag)
{
    const int64_t bank = 512;
    int64_t c;
    if (it->stride % bank == 0)
        return axe__iter_push(r->shard, &r->nshard, AXE_LAYOUT_MAX_SHARD,
                              it->extent, it->stride / bank, name_bank.s);
    if (it->stride > 0 && bank % it->stride == 0) {
        c = bank / it->stride;
        if (it->extent < c)
            return axe__iter_push(r->shard, &r->nshard, AXE_LAYOUT_MAX_SHARD,
                                  it->extent, it->stride, it->axis);
        if (it->extent % c == 0) {
            AXE_TRY(axe__iter_push(r->shard, &r->nshard, AXE_LAYOUT_MAX_SHARD,
                                   it->extent / c, 1, name_bank.s));
            return axe__iter_push(r->shard, &r->nshard, AXE_LAYOUT_MAX_SHARD, c,
                                  it->stride, it->axis);
        }
    }
    return axe__fail(diag, AXE_ERR_INVALID, -1,
                     "layout can not be converted to psum layout: F iter %d "
                     "(%lld:%lld) neither spans whole banks of 512 nor "
                     "divides one",
                     i, (long long)it->extent, (long long)it->stride);
}

axe_status axe_layout_to_psum(const axe_layout *l, axe_layout *out,
                              axe_diag *diag)
{
    axe_layout r;
    if (l == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "to_psum: missing layout or output");
    AXE_TRY(no_swizzle(l, "to_psum", diag));
    axe_layout_init(&r);
    for (int i = 0; i < l->nshard; i++) {
        axe_status st;
        if (axe__axis_eq(l->shard[i].axis, name_f.s))
            st = psum_iter(&l->shard[i], &r, i, diag);
        else
            st = axe__iter_push(r.shard, &r.nshard, AXE_LAYOUT_MAX_SHARD,
                                l->shard[i].extent, l->shard[i].stride,
                                l->shard[i].axis);
        if (st == AXE_ERR_CAPACITY)
            return axe__fail(diag, st, -1, "to_psum: more than %d iters",
                             AXE_LAYOUT_MAX_SHARD);
        AXE_TRY(st);
    }
    *out = r;
    return AXE_OK;
}
