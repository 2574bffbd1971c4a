/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The structural CuTe operations of the op table: size, cosize, rank and
 * depth (optionally of the mode get<i,j,...>), evaluation, flatten,
 * coalesce, filter, the identity layout and swizzle application. Each acts
 * on the inner layout of a composed layout and, where the result is a
 * layout, puts it back behind the same outer function and offset.
 */
#include "cute_ops.h"

#include "core_internal.h"

/* get<mode...> of "l". A scalar layout is its own mode 0, but a leaf
 * reached by the path has no modes to select (as CuTe IR says). */
static axe_status walk_modes(const axe_cute_layout *l, const cute_args *args,
                             axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout cur = *l;
    for (int k = 0; k < args->nmode; k++) {
        int64_t i = args->mode[k];
        int r = axe_cute_rank(&cur);
        if (k > 0 && axe_tuple_is_scalar(&cur.shape))
            return cute_fail(diag, AXE_ERR_DOMAIN,
                             "mode path goes below a leaf: %d extra "
                             "indices after depth %d",
                             args->nmode - k, k);
        if (i < 0 || i >= r)
            return cute_fail(diag, AXE_ERR_DOMAIN,
                             "mode index %lld at depth %d is outside "
                             "[0, %d)",
                             (long long)i, k, r);
        AXE_TRY(axe_cute_get(&cur, (int)i, &cur));
    }
    *out = cur;
    return AXE_OK;
}

/* The layout of "a" (inner layout if composed), then get<mode...>. */
static axe_status mode_of_a(const cute_args *args, axe_cute_layout *out,
                            axe_diag *diag)
{
    axe_cute_layout l;
    cute_frame frame;
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    return walk_modes(&l, args, out, diag);
}

axe_status cute_op_size(const cute_args *args, cute_result *res, axe_diag *diag)
{
    axe_cute_layout l;
    int64_t v;
    AXE_TRY(mode_of_a(args, &l, diag));
    AXE_TRY(axe_cute_size(&l, &v));
    cute_set_int(res, v);
    return AXE_OK;
}

axe_status cute_op_cosize(const cute_args *args, cute_result *res,
                          axe_diag *diag)
{
    axe_cute_layout l;
    int64_t v;
    AXE_TRY(mode_of_a(args, &l, diag));
    AXE_TRY(axe_cute_cosize(&l, &v));
    cute_set_int(res, v);
    return AXE_OK;
}

axe_status cute_op_rank(const cute_args *args, cute_result *res, axe_diag *diag)
{
    axe_cute_layout l;
    AXE_TRY(mode_of_a(args, &l, diag));
    cute_set_int(res, axe_cute_rank(&l));
    return AXE_OK;
}

axe_status cute_op_depth(const cute_args *args, cute_result *res,
                         axe_diag *diag)
{
    axe_cute_layout l;
    AXE_TRY(mode_of_a(args, &l, diag));
    cute_set_int(res, axe_cute_depth(&l));
    return AXE_OK;
}

/* The index that coordinate "b" names in the domain of "a". */
static axe_status index_of(const cute_args *args, int64_t *idx, axe_diag *diag)
{
    const axe_tuple *crd = &args->b.tuple;
    const axe_tuple *shape = &args->a.layout.shape;
    axe_cute_layout l;
    if (args->b.kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "\"b\" must be an index or a coordinate, not %s",
                         cute_kind_name(&args->b));
    for (int i = 0; i < crd->nleaf; i++)
        if (crd->v[i] == AXE_UNDERSCORE)
            return cute_fail(diag, AXE_ERR_INVALID,
                             "the coordinate has '_'; use slice");
    if (axe_tuple_is_scalar(crd)) {
        *idx = crd->v[0];
        return AXE_OK;
    }
    if (args->a.kind == AXE_CUTE_KIND_COMPOSED)
        shape = &args->a.composed.inner.shape;
    if (args->a.kind == AXE_CUTE_KIND_TUPLE) {
        AXE_TRY(cute_to_layout(&args->a, "a", &l, diag));
        shape = &l.shape;
    }
    if (axe_tuple_crd2idx(crd, shape, idx) != AXE_OK)
        return cute_fail(diag, AXE_ERR_INCOMPATIBLE,
                         "the coordinate is not weakly congruent to the "
                         "shape of \"a\"");
    return AXE_OK;
}

static void set_point(cute_result *res, const axe_cute_point *p, int ncoord)
{
    if (ncoord == 0 && (p->n == 0 || (p->n == 1 && p->basis[0] == 0))) {
        cute_set_int(res, p->n == 0 ? 0 : p->v[0]);
        return;
    }
    res->kind = CUTE_RESULT_TEXT;
    cute_point_write(p, ncoord, &res->text);
}

axe_status cute_op_eval(const cute_args *args, cute_result *res, axe_diag *diag)
{
    axe_cute_point p;
    int64_t idx;
    if (args->a.kind == AXE_CUTE_KIND_SWIZZLE) {
        cute_args one = *args;
        one.have = CUTE_ARG_A | CUTE_ARG_N;
        one.nn = 1;
        AXE_TRY(index_of(args, &one.n[0], diag));
        return cute_op_swizzle_apply(&one, res, diag);
    }
    AXE_TRY(index_of(args, &idx, diag));
    AXE_TRY(cute_eval_index(&args->a, idx, &p, diag));
    set_point(res, &p, cute_value_ncoord(&args->a));
    return AXE_OK;
}

/* The tiler "t" with every nested bracket removed: [a; b; _; c]. */
static void flatten_tiler(const axe_cute_tiler *t, axe_cute_tiler *out)
{
    *out = *t;
    out->ntok = 0;
    out->tok[out->ntok++] = '[';
    for (int i = 0; i < t->ntok; i++)
        if (t->tok[i] == 'L' || t->tok[i] == '_')
            out->tok[out->ntok++] = t->tok[i];
    out->tok[out->ntok++] = ']';
}

axe_status cute_op_flatten(const cute_args *args, cute_result *res,
                           axe_diag *diag)
{
    axe_cute_layout l, r;
    cute_frame frame;
    if (args->a.kind == AXE_CUTE_KIND_TUPLE) {
        axe_tuple t;
        axe_tuple_flatten(&args->a.tuple, &t);
        cute_set_tuple(res, &t);
        return AXE_OK;
    }
    if (args->a.kind == AXE_CUTE_KIND_TILER) {
        res->kind = CUTE_RESULT_OBJECT;
        res->obj.kind = AXE_CUTE_KIND_TILER;
        flatten_tiler(&args->a.tiler, &res->obj.tiler);
        return AXE_OK;
    }
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    AXE_TRY(axe_cute_flatten(&l, &r));
    return cute_rewrap(&frame, &r, res, diag);
}

axe_status cute_op_coalesce(const cute_args *args, cute_result *res,
                            axe_diag *diag)
{
    axe_cute_layout l, r;
    cute_frame frame;
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    if (!(args->have & CUTE_ARG_B)) {
        AXE_TRY(axe_cute_coalesce(&l, &r));
    } else {
        if (args->b.kind != AXE_CUTE_KIND_TUPLE)
            return cute_fail(diag, AXE_ERR_INVALID,
                             "the profile \"b\" must be a tuple, not %s",
                             cute_kind_name(&args->b));
        axe_status st = axe_cute_coalesce_by(&l, &args->b.tuple, &r);
        if (st == AXE_ERR_INCOMPATIBLE)
            return cute_fail(diag, st,
                             "the profile \"b\" does not fit the shape of "
                             "\"a\": where b has a tuple of n modes, a needs "
                             "a mode with at least n modes");
        AXE_TRY(st);
    }
    return cute_rewrap(&frame, &r, res, diag);
}

/*
 * cutegen's coalesce variant: coalesce, but a last top-level mode of size 1
 * is kept as the last mode (so the rank says where the tile ends). Same
 * function as coalesce.
 */
axe_status cute_op_coalesce_x(const cute_args *args, cute_result *res,
                              axe_diag *diag)
{
    axe_cute_layout l, r, last;
    cute_frame frame;
    int64_t n;
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    AXE_TRY(axe_cute_coalesce(&l, &r));
    if (axe_cute_rank(&l) > 1) {
        AXE_TRY(axe_cute_get(&l, axe_cute_rank(&l) - 1, &last));
        AXE_TRY(axe_cute_size(&last, &n));
        if (n == 1)
            AXE_TRY(axe_cute_append(&r, &last, &r));
    }
    return cute_rewrap(&frame, &r, res, diag);
}

axe_status cute_op_filter(const cute_args *args, cute_result *res,
                          axe_diag *diag)
{
    axe_cute_layout l, r;
    cute_frame frame;
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    AXE_TRY(axe_cute_filter(&l, &r));
    return cute_rewrap(&frame, &r, res, diag);
}

axe_status cute_op_identity(const cute_args *args, cute_result *res,
                            axe_diag *diag)
{
    axe_cute_layout shape, r;
    if (args->a.kind != AXE_CUTE_KIND_TUPLE)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "identity takes a shape, not %s",
                         cute_kind_name(&args->a));
    AXE_TRY(cute_to_layout(&args->a, "a", &shape, diag));
    AXE_TRY(axe_cute_make_identity(&shape.shape, &r));
    cute_set_layout(res, &r);
    return AXE_OK;
}

axe_status cute_op_swizzle_apply(const cute_args *args, cute_result *res,
                                 axe_diag *diag)
{
    if (args->a.kind != AXE_CUTE_KIND_SWIZZLE)
        return cute_fail(diag, AXE_ERR_INVALID,
                         "\"a\" must be a swizzle Sw<B,M,S>, not %s",
                         cute_kind_name(&args->a));
    if (args->n[0] < 0)
        return cute_fail(diag, AXE_ERR_DOMAIN,
                         "a swizzle applies to offsets >= 0, not %lld",
                         (long long)args->n[0]);
    cute_set_int(res, axe_swizzle_apply(&args->a.swizzle, args->n[0]));
    return AXE_OK;
}
