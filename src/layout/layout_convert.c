/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conversions between CuTe layouts and Axe layouts. A CuTe layout reads its
 * index colexicographically (first leaf fastest), an Axe layout
 * lexicographically (last shard iter fastest), so the shard is the CuTe
 * leaves in reverse order and the two agree on every index x >= 0: the
 * digits are the same, and the outermost digit absorbs x >= size in both
 * (CuTe continues along its last mode). The CuTe hierarchy is flattened.
 * Strides: an integer stride is on the memory axis `m`; a scaled basis
 * E<k0,k1,...> is on the axis named by its modes in decimal joined by `_`
 * ("0", "1", "1_0"), so a point's components correspond one to one.
 * Swizzled smem layouts: CuTe's `Sw<B,M,S> o off o L` is Axe's
 * `Swizzle<M,B,S>(L' + off)` (S < 0: `Swizzle<M,B,-S,outer>`): both xor
 * bits [M+S, M+S+B) of the address into [M, M+B) (spec §11; checked by
 * evaluation in the tests). Invariant: every conversion is exact or fails
 * with the reason; nothing is approximated.
 */
#include <stdio.h>

#include "layout_internal.h"

/* The axis name of CuTe basis "code": its modes joined by '_'. */
static void basis_name(uint32_t code, char *out)
{
    char buf[AXE_AXIS_NAME_MAX] = {0};
    int len = 0;
    for (int lv = 0; lv < AXE_CUTE_BASIS_DEPTH(code); lv++)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%d",
                        lv > 0 ? "_" : "", AXE_CUTE_BASIS_MODE(code, lv));
    memset(out, 0, AXE_AXIS_NAME_MAX);
    memcpy(out, buf, (size_t)len);
}

/* The basis code named by axis "name" ("k0" or "k0_k1" ..., modes of at
 * most three digits); false for any other name. */
static bool name_basis(const char *name, uint32_t *code)
{
    int modes[AXE_CUTE_BASIS_MAX_DEPTH], depth = 0, i = 0;
    while (depth < AXE_CUTE_BASIS_MAX_DEPTH) {
        int v = 0, nd = 0;
        while (name[i] >= '0' && name[i] <= '9' && nd < 4) {
            v = 10 * v + (name[i++] - '0');
            nd++;
        }
        if (nd == 0 || nd > 3 || v > AXE_CUTE_BASIS_MAX_MODE ||
            (nd > 1 && name[i - nd] == '0'))
            return false;
        modes[depth++] = v;
        if (name[i] != '_')
            break;
        i++;
    }
    if (name[i] != '\0')
        return false;
    *code = (uint32_t)depth << 24;
    for (int lv = 0; lv < depth; lv++)
        *code |= (uint32_t)modes[lv] << (16 - 8 * lv);
    return true;
}

/* A CuTe layout as an Axe layout: leaves reversed, strides on `m` or on the
 * axis of their basis; L_axe(x) = L_cute(x) for every x >= 0. */
axe_status axe_layout_from_cute(const axe_cute_layout *c, axe_layout *out,
                                axe_diag *diag)
{
    axe_layout l;
    int n;
    if (c == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "from_cute: missing layout or output");
    n = c->shape.nleaf;
    if (n > AXE_LAYOUT_MAX_SHARD)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "from_cute: %d leaves exceed the %d shard iters of "
                         "an Axe layout",
                         n, AXE_LAYOUT_MAX_SHARD);
    axe_layout_init(&l);
    for (int i = n - 1; i >= 0; i--) {
        char axis[AXE_AXIS_NAME_MAX];
        if (c->basis[i] == 0)
            axe__axis_copy(axis, axe__name_m.s);
        else
            basis_name(c->basis[i], axis);
        AXE_TRY(axe__iter_push(l.shard, &l.nshard, AXE_LAYOUT_MAX_SHARD,
                               c->shape.v[i], c->stride[i], axis));
    }
    *out = l;
    return AXE_OK;
}

/* AXE_OK if "l" (its swizzle aside) has a CuTe form, else UNSUPPORTED with
 * the reason: a replica, an offset (other than on `m` when "m_offset_ok"),
 * or an axis that is neither `m` nor a basis name. */
static axe_status check_plain(const axe_layout *l, bool m_offset_ok,
                              axe_diag *diag)
{
    uint32_t code;
    if (l->nreplica > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "to_cute: the layout has a replica (%lld:%lld@%s); "
                         "a CuTe layout maps an index to one value",
                         (long long)l->replica[0].extent,
                         (long long)l->replica[0].stride, l->replica[0].axis);
    for (int i = 0; i < l->noffset; i++)
        if (l->offset[i].value != 0 &&
            !(m_offset_ok && axe__axis_eq(l->offset[i].axis, axe__name_m.s)))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "to_cute: the layout has the offset %lld@%s; a "
                             "CuTe layout maps 0 to 0",
                             (long long)l->offset[i].value, l->offset[i].axis);
    for (int k = 0; k < l->nshard; k++)
        if (!axe__axis_eq(l->shard[k].axis, axe__name_m.s) &&
            !name_basis(l->shard[k].axis, &code))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "to_cute: shard iter %d is on axis %s, which is "
                             "neither m nor a CuTe basis name (\"0\", "
                             "\"1_0\", ...)",
                             k, l->shard[k].axis);
    return AXE_OK;
}

/* The shard of "l" as a flat CuTe layout (leaves reversed); one iter gives
 * a scalar shape. Axes were checked by check_plain. */
static axe_status shard_to_cute(const axe_layout *l, axe_cute_layout *out)
{
    axe_cute_layout c;
    int64_t ext[AXE_LAYOUT_MAX_SHARD];
    int n = l->nshard;
    memset(&c, 0, sizeof c);
    for (int i = 0; i < n; i++) {
        const axe_iter *it = &l->shard[n - 1 - i];
        ext[i] = it->extent;
        c.stride[i] = it->stride;
        if (!axe__axis_eq(it->axis, axe__name_m.s) &&
            !name_basis(it->axis, &c.basis[i]))
            return AXE_ERR_UNSUPPORTED;
    }
    if (n == 1)
        axe_tuple_scalar(ext[0], &c.shape);
    else
        AXE_TRY(axe_tuple_from_array(ext, n, &c.shape));
    *out = c;
    return AXE_OK;
}

/* The CuTe layout of an Axe layout without replica, offset or swizzle
 * whose axes are `m` or basis names: the inverse of axe_layout_from_cute
 * up to CuTe's hierarchy (the result is flat; a single iter is a scalar). */
axe_status axe_layout_to_cute(const axe_layout *l, axe_cute_layout *out,
                              axe_diag *diag)
{
    if (l == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "to_cute: missing layout or output");
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "to_cute: the layout is swizzled; use "
                         "axe_layout_to_cute_composed");
    AXE_TRY(check_plain(l, false, diag));
    return shard_to_cute(l, out);
}

/* Sw<B,M,S> o off o L as Swizzle<M,B,|S|>(from_cute(L) + off), outer when
 * S < 0. The inner layout must have integer strides. */
axe_status axe_layout_from_cute_composed(const axe_cute_composed *c,
                                         axe_layout *out, axe_diag *diag)
{
    axe_layout l;
    if (c == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "from_cute_composed: missing layout or output");
    if (c->kind != AXE_CUTE_OUTER_SWIZZLE)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "from_cute_composed: only a swizzle outer has an "
                         "Axe form (Swizzle<M,B,S>(tile)), not a layout");
    if (!axe_tuple_is_scalar(&c->offset))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "from_cute_composed: a swizzle's offset must be an "
                         "integer");
    for (int i = 0; i < c->inner.shape.nleaf; i++)
        if (c->inner.basis[i] != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "from_cute_composed: leaf %d of the inner "
                             "layout has a scaled-basis stride; a swizzle "
                             "needs integer strides",
                             i);
    AXE_TRY(axe_layout_from_cute(&c->inner, &l, diag));
    if (c->offset.v[0] != 0)
        AXE_TRY(axe__layout_offset_add(&l, axe__name_m.s, c->offset.v[0]));
    l.swizzle.present = true;
    l.swizzle.inner = c->swizzle.shift >= 0;
    l.swizzle.per_element = c->swizzle.base;
    l.swizzle.len = c->swizzle.bits;
    l.swizzle.atom =
        c->swizzle.shift < 0 ? -c->swizzle.shift : c->swizzle.shift;
    if (!axe__swizzle_ok(&l.swizzle))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "from_cute_composed: Sw<%d,%d,%d> is out of the "
                         "range of Axe swizzles",
                         c->swizzle.bits, c->swizzle.base, c->swizzle.shift);
    *out = l;
    return AXE_OK;
}

/* The reverse: Swizzle<M,B,S>(T + off@m) as Sw<B,M,±S> o off o to_cute(T);
 * a layout without a swizzle gets the identity Sw<0,0,0>. T must be on `m`
 * only, with no replica and no offset on other axes. */
axe_status axe_layout_to_cute_composed(const axe_layout *l,
                                       axe_cute_composed *out, axe_diag *diag)
{
    axe_cute_composed c;
    axe_layout t;
    const axe_layout_swizzle *sw;
    if (l == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "to_cute_composed: missing layout or output");
    AXE_TRY(check_plain(l, true, diag));
    for (int k = 0; k < l->nshard; k++)
        if (!axe__axis_eq(l->shard[k].axis, axe__name_m.s))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "to_cute_composed: shard iter %d is on axis %s; "
                             "a swizzle needs integer (m) strides",
                             k, l->shard[k].axis);
    memset(&c, 0, sizeof c);
    c.kind = AXE_CUTE_OUTER_SWIZZLE;
    sw = &l->swizzle;
    if (sw->present)
        AXE_TRY(axe_swizzle_make(sw->len, sw->per_element,
                                 sw->inner ? sw->atom : -sw->atom, &c.swizzle,
                                 diag));
    axe_tuple_scalar(axe__layout_offset_get(l, axe__name_m.s), &c.offset);
    t = *l;
    t.noffset = 0;
    AXE_TRY(shard_to_cute(&t, &c.inner));
    *out = c;
    return AXE_OK;
}
