/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slicing, dicing, recasting and common vectors in the op table. On a
 * composed layout `O o off o I` slicing moves the sliced-off value into the
 * offset (axe_cute_composed_slice), dicing acts on I and keeps O and off,
 * and up/down/recast rescale all three parts (axe_cute_composed_recast;
 * upcast by N is the recast from 1 to N bits, downcast from N to 1).
 */
#include "cute_ops.h"

#include "core_internal.h"

static axe_status slice_composed(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    res->obj.kind = AXE_CUTE_KIND_COMPOSED;
    AXE_TRY(axe_cute_composed_slice(&args->a.composed, &args->b.tuple,
                                    &res->obj.composed, diag));
    res->kind = CUTE_RESULT_OBJECT;
    return AXE_OK;
}

static axe_status check_coordinate(const cute_args *args, axe_diag *diag)
{
    if (args->b.kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "\"b\" must be a coordinate, not %s",
                         cute_kind_name(&args->b));
    if (args->a.kind == AXE_CUTE_KIND_SWIZZLE ||
        args->a.kind == AXE_CUTE_KIND_TILER)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "\"a\" must be a tuple, a layout or a composed "
                         "layout, not %s",
                         cute_kind_name(&args->a));
    return AXE_OK;
}

axe_status cute_op_slice(const cute_args *args, cute_result *res,
                         axe_diag *diag)
{
    axe_cute_layout r;
    axe_tuple t;
    AXE_TRY(check_coordinate(args, diag));
    if (args->a.kind == AXE_CUTE_KIND_COMPOSED)
        return slice_composed(args, res, diag);
    if (args->a.kind == AXE_CUTE_KIND_TUPLE) {
        AXE_TRY(axe_tuple_slice(&args->a.tuple, &args->b.tuple, &t, diag));
        cute_set_tuple(res, &t);
        return AXE_OK;
    }
    AXE_TRY(axe_cute_slice(&args->a.layout, &args->b.tuple, &r, NULL, diag));
    cute_set_layout(res, &r);
    return AXE_OK;
}

axe_status cute_op_dice(const cute_args *args, cute_result *res, axe_diag *diag)
{
    axe_cute_layout l, r;
    cute_frame frame;
    axe_tuple t;
    AXE_TRY(check_coordinate(args, diag));
    if (args->a.kind == AXE_CUTE_KIND_TUPLE) {
        AXE_TRY(axe_tuple_dice(&args->a.tuple, &args->b.tuple, &t, diag));
        cute_set_tuple(res, &t);
        return AXE_OK;
    }
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    AXE_TRY(axe_cute_dice(&l, &args->b.tuple, &r, diag));
    return cute_rewrap(&frame, &r, res, diag);
}

/* ---- recasting ---------------------------------------------------------- */

typedef enum cast_kind { CAST_UP, CAST_DOWN, CAST_RECAST } cast_kind;

/* The bit widths [old, new] of the cast: upcast by N is the recast from 1
 * to N bits, downcast by N the recast from N to 1 bit. */
static axe_status cast_bits(cast_kind kind, const cute_args *args,
                            int64_t bits[2], axe_diag *diag)
{
    if (kind == CAST_RECAST) {
        bits[0] = args->n[0];
        bits[1] = args->n[1];
        if (bits[0] < 1 || bits[1] < 1)
            return cute_fail(diag, AXE_ERR_DOMAIN,
                             "the bit widths must be >= 1, not %lld and %lld",
                             (long long)bits[0], (long long)bits[1]);
        return AXE_OK;
    }
    if (args->n[0] < 1)
        return cute_fail(diag, AXE_ERR_DOMAIN,
                         "the factor must be >= 1, not %lld",
                         (long long)args->n[0]);
    bits[0] = kind == CAST_UP ? 1 : args->n[0];
    bits[1] = kind == CAST_UP ? args->n[0] : 1;
    return AXE_OK;
}

static axe_status cast_layout(cast_kind kind, const cute_args *args,
                              const axe_cute_layout *l, axe_cute_layout *out,
                              axe_diag *diag)
{
    switch (kind) {
    case CAST_UP:
        return axe_cute_upcast(l, args->n[0], out, diag);
    case CAST_DOWN:
        return axe_cute_downcast(l, args->n[0], out, diag);
    case CAST_RECAST:
        return axe_cute_recast(l, args->n[0], args->n[1], out, diag);
    }
    return AXE_ERR_INVALID;
}

static axe_status cast_object(cast_kind kind, const cute_args *args,
                              cute_result *res, axe_diag *diag)
{
    int64_t bits[2];
    axe_cute_layout a, r;
    AXE_TRY(cast_bits(kind, args, bits, diag));
    if (args->a.kind == AXE_CUTE_KIND_COMPOSED) {
        res->obj.kind = AXE_CUTE_KIND_COMPOSED;
        AXE_TRY(axe_cute_composed_recast(&args->a.composed, bits[0], bits[1],
                                         &res->obj.composed, diag));
        res->kind = CUTE_RESULT_OBJECT;
        return AXE_OK;
    }
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(cast_layout(kind, args, &a, &r, diag));
    cute_set_layout(res, &r);
    return AXE_OK;
}

axe_status cute_op_upcast(const cute_args *args, cute_result *res,
                          axe_diag *diag)
{
    return cast_object(CAST_UP, args, res, diag);
}

axe_status cute_op_downcast(const cute_args *args, cute_result *res,
                            axe_diag *diag)
{
    return cast_object(CAST_DOWN, args, res, diag);
}

axe_status cute_op_recast_layout(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    return cast_object(CAST_RECAST, args, res, diag);
}

/* ---- common vectors ------------------------------------------------------ */

axe_status cute_op_max_common_layout(const cute_args *args, cute_result *res,
                                     axe_diag *diag)
{
    axe_cute_layout a, b, r;
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(cute_to_layout(&args->b, "b", &b, diag));
    AXE_TRY(axe_cute_max_common_layout(&a, &b, &r));
    cute_set_layout(res, &r);
    return AXE_OK;
}

axe_status cute_op_max_common_vector(const cute_args *args, cute_result *res,
                                     axe_diag *diag)
{
    axe_cute_layout a, b;
    int64_t v;
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(cute_to_layout(&args->b, "b", &b, diag));
    AXE_TRY(axe_cute_max_common_vector(&a, &b, &v));
    cute_set_int(res, v);
    return AXE_OK;
}
