/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slicing, dicing, recasting and common vectors in the op table. On a
 * composed layout `O o off o I`: slice(I, crd) moves the sliced-off value
 * I(crd with _ = 0) into the offset; dice keeps O and off; up/down/recast
 * rescale all three parts (CuTe's upcast<N>(ComposedLayout)), a swizzle
 * by moving its base bit and an integer offset by the same ratio.
 */
#include "cute_ops.h"

#include "core_internal.h"

static bool has_underscore(const axe_tuple *t)
{
    for (int i = 0; i < t->nleaf; i++)
        if (t->v[i] == AXE_UNDERSCORE)
            return true;
    return false;
}

/* A flat coordinate offset of rank(outer) zeros for a layout outer. */
static axe_status zero_coordinate(const axe_cute_composed *c, axe_tuple *out)
{
    int64_t zeros[AXE_TUPLE_MAX_LEAVES] = {0};
    int r = axe_cute_rank(&c->outer);
    if (c->kind != AXE_CUTE_OUTER_LAYOUT || r < 2)
        return AXE_ERR_UNSUPPORTED;
    return axe_tuple_from_array(zeros, r, out);
}

/* offset + p where p has E<k> components: add to mode k of a flat offset. */
static axe_status add_coordinate(axe_cute_composed *c, const axe_cute_point *p,
                                 axe_diag *diag)
{
    axe_tuple off = c->offset;
    if (axe_tuple_is_scalar(&off) && off.v[0] == 0 &&
        zero_coordinate(c, &off) != AXE_OK)
        off = c->offset;
    for (int i = 0; i < p->n; i++) {
        int k = AXE_CUTE_BASIS_MODE(p->basis[i], 0);
        if (AXE_CUTE_BASIS_DEPTH(p->basis[i]) != 1 ||
            axe_tuple_is_scalar(&off) || off.ntok != off.nleaf + 2 ||
            k >= off.nleaf)
            return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                             "cannot add the sliced-off coordinate to the "
                             "offset of this composed layout");
        if (axe__add(off.v[k], p->v[i], &off.v[k]) != AXE_OK)
            return cute_fail(diag, AXE_ERR_OVERFLOW, "the offset overflows");
    }
    c->offset = off;
    return AXE_OK;
}

/* offset + v for an integer v: a coordinate offset becomes its index. */
static axe_status add_index(axe_cute_composed *c, int64_t v, axe_diag *diag)
{
    int64_t idx = c->offset.v[0];
    if (!axe_tuple_is_scalar(&c->offset)) {
        if (c->kind != AXE_CUTE_OUTER_LAYOUT ||
            axe_tuple_crd2idx(&c->offset, &c->outer.shape, &idx) != AXE_OK)
            return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                             "cannot add an integer to the coordinate "
                             "offset of this composed layout");
    }
    if (axe__add(idx, v, &idx) != AXE_OK)
        return cute_fail(diag, AXE_ERR_OVERFLOW, "the offset overflows");
    axe_tuple_scalar(idx, &c->offset);
    return AXE_OK;
}

static axe_status offset_add(axe_cute_composed *c, const axe_cute_point *p,
                             axe_diag *diag)
{
    if (p->n == 0)
        return AXE_OK;
    if (p->n == 1 && p->basis[0] == 0)
        return add_index(c, p->v[0], diag);
    return add_coordinate(c, p, diag);
}

static axe_status slice_composed(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    axe_cute_composed c = args->a.composed;
    axe_cute_point p;
    if (!has_underscore(&args->b.tuple))
        return cute_fail(diag, AXE_ERR_INVALID,
                         "a coordinate without '_' evaluates a composed "
                         "layout rather than slicing it; use eval");
    AXE_TRY(axe_cute_slice(&args->a.composed.inner, &args->b.tuple, &c.inner,
                           &p, diag));
    AXE_TRY(offset_add(&c, &p, diag));
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_COMPOSED;
    res->obj.composed = c;
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
    res->kind = CUTE_RESULT_OBJECT;
    cute_rewrap(&frame, &r, &res->obj);
    return AXE_OK;
}

/* ---- recasting ---------------------------------------------------------- */

typedef enum cast_kind { CAST_UP, CAST_DOWN, CAST_RECAST } cast_kind;

/* up/downcast by "n", or recast from n[0] to n[1] bits: the same as an
 * upcast by "up" followed by a downcast by "down". */
typedef struct cast {
    cast_kind kind;
    int64_t n[2];
    int64_t up, down;
} cast;

static axe_status cast_init(cast *k, cast_kind kind, const cute_args *args,
                            axe_diag *diag)
{
    int64_t g;
    k->kind = kind;
    k->n[0] = args->n[0];
    k->n[1] = kind == CAST_RECAST ? args->n[1] : 1;
    if (kind == CAST_RECAST && (k->n[0] < 1 || k->n[1] < 1))
        return cute_fail(diag, AXE_ERR_DOMAIN,
                         "the bit widths must be >= 1, not %lld and %lld",
                         (long long)k->n[0], (long long)k->n[1]);
    if (k->n[0] < 1)
        return cute_fail(diag, AXE_ERR_DOMAIN,
                         "the factor must be >= 1, not %lld",
                         (long long)k->n[0]);
    g = axe__gcd(k->n[0], k->n[1]);
    k->up = kind == CAST_UP ? k->n[0] : k->n[1] / g;
    k->down = kind == CAST_DOWN ? k->n[0] : k->n[0] / g;
    if (kind == CAST_UP)
        k->down = 1;
    if (kind == CAST_DOWN)
        k->up = 1;
    return AXE_OK;
}

static axe_status cast_layout(const cast *k, const axe_cute_layout *l,
                              axe_cute_layout *out, axe_diag *diag)
{
    switch (k->kind) {
    case CAST_UP:
        return axe_cute_upcast(l, k->n[0], out, diag);
    case CAST_DOWN:
        return axe_cute_downcast(l, k->n[0], out, diag);
    case CAST_RECAST:
        return axe_cute_recast(l, k->n[0], k->n[1], out, diag);
    }
    return AXE_ERR_INVALID;
}

static int log2_exact(int64_t n)
{
    int b = 0;
    if (n < 1 || (n & (n - 1)) != 0)
        return -1;
    while ((n >> b) != 1)
        b++;
    return b;
}

/* CuTe: upcast<N>(Sw<B,M,S>) = Sw<B,M-log2 N,S> (bits below 0 are lost),
 * downcast<N> = Sw<B,M+log2 N,S>. */
static axe_status cast_swizzle(const cast *k, const axe_swizzle *sw,
                               axe_swizzle *out, axe_diag *diag)
{
    int lu = log2_exact(k->up), ld = log2_exact(k->down);
    int bits = sw->bits, base = sw->base;
    if (lu < 0 || ld < 0)
        return cute_fail(diag, AXE_ERR_DIVISIBILITY,
                         "a swizzle can only be rescaled by powers of two, "
                         "not %lld/%lld",
                         (long long)k->up, (long long)k->down);
    base -= lu;
    if (base < 0) {
        bits = bits + base > 0 ? bits + base : 0;
        base = 0;
    }
    return axe_swizzle_make(bits, base + ld, sw->shift, out, diag);
}

static axe_status cast_offset(const cast *k, axe_tuple *off, axe_diag *diag)
{
    int64_t v;
    if (!axe_tuple_is_scalar(off)) {
        for (int i = 0; i < off->nleaf; i++)
            if (off->v[i] != 0)
                return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                                 "cannot rescale a coordinate offset");
        return AXE_OK;
    }
    if (off->v[0] % k->up != 0)
        return cute_fail(diag, AXE_ERR_DIVISIBILITY,
                         "the offset %lld is not a multiple of %lld",
                         (long long)off->v[0], (long long)k->up);
    if (axe__mul(off->v[0] / k->up, k->down, &v) != AXE_OK)
        return cute_fail(diag, AXE_ERR_OVERFLOW, "the offset overflows");
    axe_tuple_scalar(v, off);
    return AXE_OK;
}

static axe_status cast_object(cast_kind kind, const cute_args *args,
                              cute_result *res, axe_diag *diag)
{
    cast k;
    axe_cute_layout a, r;
    axe_cute_composed c;
    AXE_TRY(cast_init(&k, kind, args, diag));
    if (args->a.kind != AXE_CUTE_KIND_COMPOSED) {
        AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
        AXE_TRY(cast_layout(&k, &a, &r, diag));
        cute_set_layout(res, &r);
        return AXE_OK;
    }
    c = args->a.composed;
    AXE_TRY(cast_layout(&k, &args->a.composed.inner, &c.inner, diag));
    AXE_TRY(cast_offset(&k, &c.offset, diag));
    if (c.kind == AXE_CUTE_OUTER_SWIZZLE)
        AXE_TRY(cast_swizzle(&k, &args->a.composed.swizzle, &c.swizzle, diag));
    else
        AXE_TRY(cast_layout(&k, &args->a.composed.outer, &c.outer, diag));
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_COMPOSED;
    res->obj.composed = c;
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
