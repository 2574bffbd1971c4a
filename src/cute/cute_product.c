/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Products: logical_product(a, b) = (a, complement(a, size(a)*cosize(b)) ∘ b)
 * — "a" repeated at the positions b describes, in the space a leaves free —
 * and CuTe's rearrangements: zipped (a, p), tiled (a, p...), flat
 * (a..., p...), blocked ((a_0, p_0), (a_1, p_1), ...) and raked
 * ((p_0, a_0), ...) after padding both operands to a common rank with 1:0
 * modes. tile_to_shape is a blocked product with an ordered layout.
 */
#include "cute_internal.h"

/* The second mode of the logical product, complement(a, ...) ∘ b,
 * appended to the empty "out". */
static axe_status product_part(const axe_cute_layout *a,
                               const axe_cute_layout *b, axe_cute_layout *out,
                               axe_diag *diag)
{
    int64_t sa, cb, n;
    axe_cute_layout c;
    axe__span whole;
    AXE_TRY(axe_cute_size(a, &sa));
    AXE_TRY(axe_cute_cosize(b, &cb));
    if (axe__mul(sa, cb, &n) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "size(a) * cosize(b) overflows");
    AXE_TRY(axe_cute_complement(a, n, &c, diag));
    whole = (axe__span){0, c.shape.ntok, 0, c.shape.nleaf};
    axe__cute_clear(out);
    return axe__cute_compose_append(&c, &whole, b, NULL, out, NULL, diag);
}

/* "l" as a tuple of at least "rank" modes, padded with 1:0. */
static axe_status pad_rank(const axe_cute_layout *l, int rank,
                           axe_cute_layout *out)
{
    axe_cute_layout r;
    int have = axe_cute_rank(l);
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    AXE_TRY(axe__cute_append_modes(&r, l));
    for (int i = have; i < rank; i++)
        AXE_TRY(axe__cute_push(&r, 1, 0, 0));
    AXE_TRY(axe__cute_close(&r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* Zip the modes of "x" and "y" (equal ranks): ((x_0, y_0), ...). */
static axe_status zip_modes(const axe_cute_layout *x, const axe_cute_layout *y,
                            axe_cute_layout *out)
{
    axe__span sx[AXE_TUPLE_MAX_TOKENS], sy[AXE_TUPLE_MAX_TOKENS];
    int n = axe__cute_spans(x, sx, AXE_TUPLE_MAX_TOKENS);
    int m = axe__cute_spans(y, sy, AXE_TUPLE_MAX_TOKENS);
    axe_cute_layout r;
    if (n != m)
        return AXE_ERR_INCOMPATIBLE;
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    for (int i = 0; i < n; i++) {
        AXE_TRY(axe__cute_open(&r));
        AXE_TRY(axe__cute_append_span(&r, x, &sx[i]));
        AXE_TRY(axe__cute_append_span(&r, y, &sy[i]));
        AXE_TRY(axe__cute_close(&r));
    }
    AXE_TRY(axe__cute_close(&r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

static axe_status interleaved(axe_cute_product_kind kind,
                              const axe_cute_layout *a,
                              const axe_cute_layout *b, axe_cute_layout *out,
                              axe_diag *diag)
{
    int ra = axe_cute_rank(a), rb = axe_cute_rank(b);
    int r = ra > rb ? ra : rb;
    axe_cute_layout pa, pb, p;
    AXE_TRY(pad_rank(a, r, &pa));
    AXE_TRY(pad_rank(b, r, &pb));
    AXE_TRY(product_part(&pa, &pb, &p, diag));
    if (kind == AXE_CUTE_PRODUCT_BLOCKED)
        return zip_modes(&pa, &p, out);
    return zip_modes(&p, &pa, out);
}

axe_status axe_cute_product(axe_cute_product_kind kind,
                            const axe_cute_layout *a, const axe_cute_layout *b,
                            axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout p;
    if (kind == AXE_CUTE_PRODUCT_BLOCKED || kind == AXE_CUTE_PRODUCT_RAKED)
        return interleaved(kind, a, b, out, diag);
    AXE_TRY(product_part(a, b, &p, diag));
    return axe__cute_join(
        a, kind == AXE_CUTE_PRODUCT_FLAT, &p,
        kind == AXE_CUTE_PRODUCT_TILED || kind == AXE_CUTE_PRODUCT_FLAT, out);
}

/* Per-mode sizes of "t" as a flat tuple. */
static axe_status mode_sizes(const axe_tuple *t, axe_tuple *out)
{
    axe__span sp[AXE_TUPLE_MAX_TOKENS];
    int64_t v[AXE_TUPLE_MAX_LEAVES];
    int n = axe__tuple_spans(t, sp, AXE_TUPLE_MAX_TOKENS);
    if (n > AXE_TUPLE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    for (int i = 0; i < n; i++) {
        v[i] = 1;
        for (int k = sp[i].lb; k < sp[i].le; k++)
            AXE_TRY(axe__mul(v[i], t->v[k], &v[i]));
    }
    return axe_tuple_from_array(v, n, out);
}

/* The per-mode sizes "ts" of the target "shape", whose extents must be
 * >= 1. */
static axe_status target_sizes(const axe_tuple *shape, axe_tuple *ts,
                               axe_diag *diag)
{
    axe_status st;
    for (int k = 0; k < shape->nleaf; k++)
        if (shape->v[k] < 1)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "extent %lld (leaf %d) of the target shape is "
                             "< 1; extents must be >= 1",
                             (long long)shape->v[k], k);
    st = mode_sizes(shape, ts);
    if (st != AXE_OK)
        return axe__fail(diag, st, -1,
                         "the size of a mode of the target shape: %s",
                         st == AXE_ERR_OVERFLOW ? "overflows int64"
                                                : axe_status_message(st));
    return AXE_OK;
}

axe_status axe_cute_tile_to_shape(const axe_cute_layout *a,
                                  const axe_tuple *shape,
                                  const axe_tuple *order, axe_cute_layout *out,
                                  axe_diag *diag)
{
    int r = axe_tuple_rank(shape);
    axe_cute_layout pa, reps;
    axe_tuple bs, ts;
    if (axe_cute_rank(a) > r)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the block has rank %d, more than the target's %d",
                         axe_cute_rank(a), r);
    AXE_TRY(pad_rank(a, r, &pa));
    if (mode_sizes(&pa.shape, &bs) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the size of a mode of the block overflows int64");
    AXE_TRY(target_sizes(shape, &ts, diag));
    for (int i = 0; i < r; i++)
        ts.v[i] = axe__ceildiv(ts.v[i], bs.v[i]);
    if (order != NULL && order->nleaf != r)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the order has %d entries for a rank-%d target",
                         order->nleaf, r);
    if (order != NULL)
        AXE_TRY(axe_cute_make_ordered(&ts, order, &reps));
    else
        AXE_TRY(axe_cute_make_col_major(&ts, &reps));
    return interleaved(AXE_CUTE_PRODUCT_BLOCKED, &pa, &reps, out, diag);
}
