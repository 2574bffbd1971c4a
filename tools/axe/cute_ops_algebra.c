/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CuTe algebra in the op table: composition, complement, inverses,
 * nullspace, the divides, the products and tile_to_shape. Operands are
 * converted as CuTe does: a shape "b" of a composition or divide is the
 * by-mode tiler <s0:1, s1:1, ...> (a single integer n is the layout n:1),
 * a shape "b" of a product is its compact layout, and a composed "a" keeps
 * its outer function and offset while the algebra acts on its inner layout.
 */
#include "cute_ops.h"

#include "core_internal.h"

/* Append token "c" (and, for 'L', the layout v:1) to tiler "t". */
static axe_status tiler_put(axe_cute_tiler *t, char c, int64_t v,
                            axe_diag *diag)
{
    if (t->ntok >= AXE_CUTE_TILER_MAX_TOKENS ||
        (c == 'L' && t->nelem >= AXE_CUTE_TILER_MAX))
        return cute_fail(diag, AXE_ERR_CAPACITY,
                         "the shape has too many modes for a tiler");
    if (c == 'L') {
        if (v < 1)
            return cute_fail(diag, AXE_ERR_INVALID,
                             "a tile extent must be >= 1");
        axe_tuple_scalar(v, &t->elem[t->nelem].shape);
        t->elem[t->nelem].stride[0] = 1;
        t->elem[t->nelem++].basis[0] = 0;
    }
    t->tok[t->ntok++] = c;
    return AXE_OK;
}

/* The tiler of shape "s": '(' ')' become '[' ']', a leaf v the layout v:1,
 * a `_` keeps the mode. */
static axe_status shape_tiler(const axe_tuple *s, axe_cute_tiler *out,
                              axe_diag *diag)
{
    int leaf = 0;
    out->ntok = 0;
    out->nelem = 0;
    for (int i = 0; i < s->ntok; i++) {
        char c = s->tok[i] == '(' ? '[' : ']';
        int64_t v = 0;
        if (s->tok[i] == 'x') {
            v = s->v[leaf++];
            c = v == AXE_UNDERSCORE ? '_' : 'L';
        }
        AXE_TRY(tiler_put(out, c, v, diag));
    }
    return AXE_OK;
}

/* "b" as a tiler (kind TILER in "t") or a layout (kind LAYOUT in "l"). */
static axe_status tiler_operand(const axe_cute_object *b, axe_cute_object *t,
                                axe_diag *diag)
{
    if (b->kind == AXE_CUTE_KIND_TILER || b->kind == AXE_CUTE_KIND_LAYOUT) {
        *t = *b;
        return AXE_OK;
    }
    if (b->kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                         "\"b\" must be a layout, a tiler or a shape, not %s",
                         cute_kind_name(b));
    if (axe_tuple_is_scalar(&b->tuple)) {
        t->kind = AXE_CUTE_KIND_LAYOUT;
        return cute_to_layout(b, "b", &t->layout, diag);
    }
    t->kind = AXE_CUTE_KIND_TILER;
    return shape_tiler(&b->tuple, &t->tiler, diag);
}

static axe_status compose_swizzle(const cute_args *args, cute_result *res,
                                  axe_diag *diag)
{
    axe_cute_object *o = &res->obj;
    o->kind = AXE_CUTE_KIND_COMPOSED;
    o->composed.kind = AXE_CUTE_OUTER_SWIZZLE;
    o->composed.swizzle = args->a.swizzle;
    axe_tuple_scalar(0, &o->composed.offset);
    AXE_TRY(cute_to_layout(&args->b, "b", &o->composed.inner, diag));
    res->kind = CUTE_RESULT_OBJECT;
    return AXE_OK;
}

/* A o (O o off o I) = (A o O) o off o I for a layout outer O (CuTe). */
static axe_status compose_composed(const cute_args *args, cute_result *res,
                                   axe_diag *diag)
{
    axe_cute_layout a;
    axe_cute_composed c = args->b.composed;
    if (c.kind != AXE_CUTE_OUTER_LAYOUT ||
        args->a.kind == AXE_CUTE_KIND_COMPOSED)
        return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                         "%s composed with a composed layout whose outer "
                         "function is %s has no representation",
                         cute_kind_name(&args->a),
                         c.kind == AXE_CUTE_OUTER_LAYOUT ? "a layout"
                                                         : "a swizzle");
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(axe_cute_compose(&a, &args->b.composed.outer, &c.outer, diag));
    if (axe_cute_composed_with_inner(&c, &c.inner, &res->obj.composed) !=
        AXE_OK)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "the offset is not a coordinate of a o outer");
    res->kind = CUTE_RESULT_OBJECT;
    res->obj.kind = AXE_CUTE_KIND_COMPOSED;
    return AXE_OK;
}

axe_status cute_op_composition(const cute_args *args, cute_result *res,
                               axe_diag *diag)
{
    axe_cute_layout a, r;
    axe_cute_object t;
    cute_frame frame;
    if (args->b.kind == AXE_CUTE_KIND_COMPOSED)
        return compose_composed(args, res, diag);
    if (args->a.kind == AXE_CUTE_KIND_SWIZZLE)
        return compose_swizzle(args, res, diag);
    AXE_TRY(cute_unwrap(&args->a, "a", &a, &frame, diag));
    AXE_TRY(tiler_operand(&args->b, &t, diag));
    if (t.kind == AXE_CUTE_KIND_LAYOUT)
        AXE_TRY(axe_cute_compose(&a, &t.layout, &r, diag));
    else
        AXE_TRY(axe_cute_compose_tiler(&a, &t.tiler, &r, diag));
    return cute_rewrap(&frame, &r, res, diag);
}

/* The cotarget: "n", or the size of the shape or layout "b", else -1. A
 * shape of rank > 1 for a scaled-basis "a" would bound each coordinate
 * separately, which the integer cotarget of the library cannot say. */
static axe_status cotarget_of(const cute_args *args, int64_t *out,
                              axe_diag *diag)
{
    axe_cute_layout l;
    *out = -1;
    if ((args->have & CUTE_ARG_N) && (args->have & CUTE_ARG_B))
        return cute_fail(diag, AXE_ERR_INVALID,
                         "give the cotarget as \"n\" or as \"b\", not both");
    if (args->have & CUTE_ARG_N) {
        *out = args->n[0];
    } else if (args->have & CUTE_ARG_B) {
        AXE_TRY(cute_to_layout(&args->b, "b", &l, diag));
        if (axe_cute_rank(&l) > 1 && args->a.kind == AXE_CUTE_KIND_LAYOUT &&
            axe_cute_has_basis(&args->a.layout))
            return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                             "a cotarget shape per coordinate of a "
                             "scaled-basis layout is not supported; give "
                             "an integer");
        AXE_TRY(axe_cute_size(&l, out));
    }
    if ((args->have & (CUTE_ARG_N | CUTE_ARG_B)) && *out < 1)
        return cute_fail(diag, AXE_ERR_DOMAIN,
                         "the cotarget must be >= 1, not %lld",
                         (long long)*out);
    return AXE_OK;
}

axe_status cute_op_complement(const cute_args *args, cute_result *res,
                              axe_diag *diag)
{
    axe_cute_layout a, r;
    int64_t cotarget;
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(cotarget_of(args, &cotarget, diag));
    if (args->extended)
        AXE_TRY(axe_cute_complement_extended(&a, cotarget, &r, diag));
    else
        AXE_TRY(axe_cute_complement(&a, cotarget, &r, diag));
    cute_set_layout(res, &r);
    return AXE_OK;
}

typedef axe_status unary_fn(const axe_cute_layout *, axe_cute_layout *,
                            axe_diag *);

static axe_status unary(unary_fn *fn, const cute_args *args, cute_result *res,
                        axe_diag *diag)
{
    axe_cute_layout a, r;
    AXE_TRY(cute_to_layout(&args->a, "a", &a, diag));
    AXE_TRY(fn(&a, &r, diag));
    cute_set_layout(res, &r);
    return AXE_OK;
}

axe_status cute_op_right_inverse(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    return unary(axe_cute_right_inverse, args, res, diag);
}

axe_status cute_op_left_inverse(const cute_args *args, cute_result *res,
                                axe_diag *diag)
{
    return unary(axe_cute_left_inverse, args, res, diag);
}

axe_status cute_op_nullspace(const cute_args *args, cute_result *res,
                             axe_diag *diag)
{
    return unary(axe_cute_nullspace, args, res, diag);
}

static axe_status divide(axe_cute_divide_kind kind, const cute_args *args,
                         cute_result *res, axe_diag *diag)
{
    axe_cute_layout a, r;
    axe_cute_object t;
    cute_frame frame;
    AXE_TRY(cute_unwrap(&args->a, "a", &a, &frame, diag));
    AXE_TRY(tiler_operand(&args->b, &t, diag));
    if (t.kind == AXE_CUTE_KIND_LAYOUT)
        AXE_TRY(axe_cute_divide_layout(kind, &a, &t.layout, &r, diag));
    else
        AXE_TRY(axe_cute_divide(kind, &a, &t.tiler, &r, diag));
    return cute_rewrap(&frame, &r, res, diag);
}

axe_status cute_op_logical_divide(const cute_args *args, cute_result *res,
                                  axe_diag *diag)
{
    return divide(AXE_CUTE_DIVIDE_LOGICAL, args, res, diag);
}

axe_status cute_op_zipped_divide(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    return divide(AXE_CUTE_DIVIDE_ZIPPED, args, res, diag);
}

axe_status cute_op_tiled_divide(const cute_args *args, cute_result *res,
                                axe_diag *diag)
{
    return divide(AXE_CUTE_DIVIDE_TILED, args, res, diag);
}

axe_status cute_op_flat_divide(const cute_args *args, cute_result *res,
                               axe_diag *diag)
{
    return divide(AXE_CUTE_DIVIDE_FLAT, args, res, diag);
}

static axe_status product(axe_cute_product_kind kind, const cute_args *args,
                          cute_result *res, axe_diag *diag)
{
    axe_cute_layout a, b, r;
    cute_frame frame;
    AXE_TRY(cute_unwrap(&args->a, "a", &a, &frame, diag));
    AXE_TRY(cute_to_layout(&args->b, "b", &b, diag));
    AXE_TRY(axe_cute_product(kind, &a, &b, &r, diag));
    return cute_rewrap(&frame, &r, res, diag);
}

axe_status cute_op_logical_product(const cute_args *args, cute_result *res,
                                   axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_LOGICAL, args, res, diag);
}

axe_status cute_op_zipped_product(const cute_args *args, cute_result *res,
                                  axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_ZIPPED, args, res, diag);
}

axe_status cute_op_tiled_product(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_TILED, args, res, diag);
}

axe_status cute_op_flat_product(const cute_args *args, cute_result *res,
                                axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_FLAT, args, res, diag);
}

axe_status cute_op_blocked_product(const cute_args *args, cute_result *res,
                                   axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_BLOCKED, args, res, diag);
}

axe_status cute_op_raked_product(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    return product(AXE_CUTE_PRODUCT_RAKED, args, res, diag);
}

/* "o" as a tuple of integers without `_`. */
static axe_status plain_tuple(const axe_cute_object *o, const char *what,
                              axe_diag *diag)
{
    if (o->kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "\"%s\" must be a tuple, not %s", what,
                         cute_kind_name(o));
    for (int i = 0; i < o->tuple.nleaf; i++)
        if (o->tuple.v[i] == AXE_UNDERSCORE)
            return cute_fail(diag, AXE_ERR_INVALID,
                             "\"%s\" must not contain '_'", what);
    return AXE_OK;
}

axe_status cute_op_tile_to_shape(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    axe_cute_layout a, r;
    cute_frame frame;
    const axe_tuple *order = NULL;
    AXE_TRY(cute_unwrap(&args->a, "a", &a, &frame, diag));
    AXE_TRY(plain_tuple(&args->b, "b", diag));
    if (args->have & CUTE_ARG_C) {
        AXE_TRY(plain_tuple(&args->c, "c", diag));
        order = &args->c.tuple;
    }
    AXE_TRY(axe_cute_tile_to_shape(&a, &args->b.tuple, order, &r, diag));
    return cute_rewrap(&frame, &r, res, diag);
}
