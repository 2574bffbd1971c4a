/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Composed layouts `outer o offset o inner` (CuTe's ComposedLayout):
 * evaluation, size and cosize, slicing, and replacing the inner layout.
 * c(i) = outer(offset + inner(i)). With a swizzle outer, offset and inner(i)
 * are integers and their sum is swizzled. With a layout outer, the offset
 * (an integer or a coordinate) and inner(i) (an integer or, with scaled-
 * basis strides E<k..>, a coordinate) are linear indices into outer's
 * domain: a coordinate becomes the colex index over outer's shape, which is
 * linear, so offset + inner(i) is one index evaluated by outer. Invariant of
 * a well-formed composed layout: a swizzle outer has a scalar offset and an
 * integer-stride inner; a layout outer has an offset weakly congruent to its
 * shape and inner basis modes that exist in its shape.
 */
#include "cute_internal.h"

/* The colex index weight of basis "code" (E<k0,k1,..>) in "shape": the
 * product of the sizes of the modes before k0, before k1 within mode k0,
 * and so on; 1 for an integer (code 0). */
static axe_status basis_weight(const axe_tuple *shape, uint32_t code,
                               int64_t *out)
{
    axe_tuple t = *shape;
    int64_t w = 1;
    for (int lv = 0; lv < AXE_CUTE_BASIS_DEPTH(code); lv++) {
        int k = AXE_CUTE_BASIS_MODE(code, lv);
        for (int j = 0; j < k; j++) {
            axe_tuple m;
            int64_t s;
            AXE_TRY(axe_tuple_get(&t, j, &m));
            AXE_TRY(axe_tuple_size(&m, &s));
            AXE_TRY(axe__mul(w, s, &w));
        }
        AXE_TRY(axe_tuple_get(&t, k, &t));
    }
    *out = w;
    return AXE_OK;
}

/* The linear index in outer's domain of the point "p". */
static axe_status point_index(const axe_cute_composed *c,
                              const axe_cute_point *p, int64_t *out)
{
    int64_t x = 0;
    for (int k = 0; k < p->n; k++) {
        int64_t w, t;
        if (c->kind == AXE_CUTE_OUTER_SWIZZLE && p->basis[k] != 0)
            return AXE_ERR_UNSUPPORTED;
        w = 1;
        if (p->basis[k] != 0)
            AXE_TRY(basis_weight(&c->outer.shape, p->basis[k], &w));
        AXE_TRY(axe__mul(w, p->v[k], &t));
        AXE_TRY(axe__add(x, t, &x));
    }
    *out = x;
    return AXE_OK;
}

/* The offset of "c" as a linear index (a swizzle's must be a scalar). */
static axe_status offset_index(const axe_cute_composed *c, int64_t *out)
{
    if (axe_tuple_is_scalar(&c->offset)) {
        *out = c->offset.v[0];
        return AXE_OK;
    }
    if (c->kind == AXE_CUTE_OUTER_SWIZZLE)
        return AXE_ERR_UNSUPPORTED;
    return axe_tuple_crd2idx(&c->offset, &c->outer.shape, out);
}

/* outer("x") as a point: the swizzle of x, or outer's value at index x. */
static axe_status outer_eval(const axe_cute_composed *c, int64_t x,
                             axe_cute_point *out)
{
    int64_t y;
    if (c->kind == AXE_CUTE_OUTER_LAYOUT)
        return axe_cute_eval_point(&c->outer, x, out);
    y = axe_swizzle_apply(&c->swizzle, x);
    out->n = y != 0;
    out->basis[0] = 0;
    out->v[0] = y;
    return AXE_OK;
}

/* c("idx") = outer(offset + inner(idx)), with the conventions above. */
axe_status axe_cute_composed_eval_point(const axe_cute_composed *c, int64_t idx,
                                        axe_cute_point *out)
{
    axe_cute_point p;
    int64_t off, x;
    AXE_TRY(axe_cute_eval_point(&c->inner, idx, &p));
    AXE_TRY(point_index(c, &p, &x));
    AXE_TRY(offset_index(c, &off));
    AXE_TRY(axe__add(off, x, &x));
    return outer_eval(c, x, out);
}

/* size(c) = size(inner). */
axe_status axe_cute_composed_size(const axe_cute_composed *c, int64_t *out)
{
    return axe_cute_size(&c->inner, out);
}

/* cosize(c) = cosize(inner), as in CuTe: the extent of the codomain of
 * the inner layout, i.e. of the part of outer's domain that c reaches. */
axe_status axe_cute_composed_cosize(const axe_cute_composed *c, int64_t *out)
{
    return axe_cute_cosize(&c->inner, out);
}

/* AXE_OK if "c" is well formed (see the invariant at the top). */
static axe_status check_composed(const axe_cute_composed *c, axe_diag *diag)
{
    int64_t off;
    if (offset_index(c, &off) != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         c->kind == AXE_CUTE_OUTER_SWIZZLE
                             ? "a swizzle's offset must be an integer"
                             : "the offset is not a coordinate of the "
                               "outer layout's shape");
    for (int i = 0; i < c->inner.shape.nleaf; i++) {
        axe_cute_point p = {1, {c->inner.basis[i]}, {1}};
        if (point_index(c, &p, &off) != AXE_OK)
            return axe__fail(
                diag, AXE_ERR_INVALID, -1,
                "stride %d of the inner layout is not an index "
                "of the outer %s",
                i, c->kind == AXE_CUTE_OUTER_SWIZZLE ? "swizzle" : "layout");
    }
    return AXE_OK;
}

/* "c" with its inner layout replaced by "inner": the same outer and
 * offset. The result must be well formed. */
axe_status axe_cute_composed_with_inner(const axe_cute_composed *c,
                                        const axe_cute_layout *inner,
                                        axe_cute_composed *out)
{
    axe_cute_composed r = *c;
    r.inner = *inner;
    AXE_TRY(check_composed(&r, NULL));
    *out = r;
    return AXE_OK;
}

static bool has_underscore(const axe_tuple *crd)
{
    for (int i = 0; i < crd->nleaf; i++)
        if (crd->v[i] == AXE_UNDERSCORE)
            return true;
    return false;
}

/* The offset "off" + the linear index of "p", as a scalar offset; "off"
 * unchanged when "p" is 0. */
static axe_status add_offset(const axe_cute_composed *c,
                             const axe_cute_point *p, axe_tuple *out)
{
    int64_t base, x;
    if (p->n == 0) {
        *out = c->offset;
        return AXE_OK;
    }
    AXE_TRY(offset_index(c, &base));
    AXE_TRY(point_index(c, p, &x));
    AXE_TRY(axe__add(base, x, &x));
    axe_tuple_scalar(x, out);
    return AXE_OK;
}

/*
 * slice("c", "crd") = outer o (offset + o_s) o slice(inner, crd), where o_s
 * is the offset that slicing inner cuts off; so c(crd filled with x) ==
 * slice(c)(x). "crd" must contain a `_`: a fully fixed coordinate selects
 * one element (evaluate it instead), and CuTe rejects it for swizzles.
 */
axe_status axe_cute_composed_slice(const axe_cute_composed *c,
                                   const axe_tuple *crd, axe_cute_composed *out,
                                   axe_diag *diag)
{
    axe_cute_composed r = *c;
    axe_cute_point p;
    AXE_TRY(check_composed(c, diag));
    if (!has_underscore(crd))
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "a composed layout is sliced by a coordinate with "
                         "at least one '_'; a fully fixed coordinate "
                         "selects a single element");
    AXE_TRY(axe_cute_slice(&c->inner, crd, &r.inner, &p, diag));
    if (add_offset(c, &p, &r.offset) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the sliced offset overflows");
    *out = r;
    return AXE_OK;
}
