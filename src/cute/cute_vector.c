/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The largest common vector of two layouts (CuTe's max_common_layout and
 * max_common_vector). With inv_b = right_inverse(b), CuTe takes the first
 * mode s:1 of coalesce(a ∘ inv_b) (s = 1 unless its stride is 1) and
 * returns R = inv_b ∘ s:1, the first s values of inv_b. Invariant of the
 * result: a(R(i)) == b(R(i)) == i for every i < size(R) = s, and s is the
 * largest such prefix of inv_b: s == size(inv_b) or a(inv_b(s)) != s.
 *
 * a ∘ inv_b is composed one leaf of inv_b at a time, so that a prefix is
 * found even when the whole composition is not a layout (CuTe would fail
 * or return a wrong layout there); where it is, the answers are equal.
 */
#include "cute_internal.h"

/* The flat layout of leaves [0, k) of the flat layout "f", with leaf k-1
 * cut to extent "last" (the first "size of [0,k-1) * last" values of f). */
static axe_status leaf_prefix(const axe_cute_layout *f, int k, int64_t last,
                              axe_cute_layout *out)
{
    axe_cute_layout r;
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    for (int i = 0; i < k; i++)
        AXE_TRY(axe__cute_push(&r, i + 1 < k ? f->shape.v[i] : last,
                               f->stride[i], f->basis[i]));
    AXE_TRY(axe__cute_close(&r));
    *out = r;
    return AXE_OK;
}

/* The extent of the identity prefix of a ∘ "p": the first mode of the
 * coalesced composition if its stride is 1, else 1; -1 if a ∘ p is not a
 * layout. */
static axe_status identity_prefix(const axe_cute_layout *a,
                                  const axe_cute_layout *p, int64_t *out)
{
    axe_cute_layout ap, m0;
    axe_status s = axe_cute_compose(a, p, &ap, NULL);
    if (s == AXE_ERR_NOT_COMPOSABLE) {
        *out = -1;
        return AXE_OK;
    }
    AXE_TRY(s);
    AXE_TRY(axe_cute_coalesce(&ap, &ap));
    AXE_TRY(axe_cute_get(&ap, 0, &m0));
    *out = m0.stride[0] == 1 && m0.basis[0] == 0 ? m0.shape.v[0] : 1;
    return AXE_OK;
}

/*
 * The common layout R = first s values of "inv" (flat), s the identity
 * prefix of a ∘ inv, grown leaf by leaf: while a ∘ (leaves [0,k)) is the
 * identity on all of its domain, take one more leaf.
 */
static axe_status common_prefix(const axe_cute_layout *a,
                                const axe_cute_layout *inv,
                                axe_cute_layout *out)
{
    int64_t done = 1, s = 1;
    int k = 0;
    axe_cute_layout p;
    while (k < inv->shape.nleaf) {
        int64_t full;
        AXE_TRY(leaf_prefix(inv, k + 1, inv->shape.v[k], &p));
        AXE_TRY(axe_cute_size(&p, &full));
        AXE_TRY(identity_prefix(a, &p, &s));
        if (s < done || s % done != 0)
            s = done;
        if (s < full)
            break;
        done = full;
        k++;
    }
    if (s <= 1) {
        axe__cute_leaf(1, 0, out);
        return AXE_OK;
    }
    if (k == inv->shape.nleaf || s == done)
        return leaf_prefix(inv, k, inv->shape.v[k - 1], out);
    return leaf_prefix(inv, k + 1, s / done, out);
}

/*
 * max_common_layout("a", "b"): R with a(R(i)) == b(R(i)) == i for all
 * i < size(R), the longest such prefix of right_inverse(b) (`1:0` when
 * even a(inv_b(1)) != 1).
 */
axe_status axe_cute_max_common_layout(const axe_cute_layout *a,
                                      const axe_cute_layout *b,
                                      axe_cute_layout *out)
{
    axe_cute_layout inv, r;
    AXE_TRY(axe_cute_right_inverse(b, &inv, NULL));
    AXE_TRY(axe_cute_flatten(&inv, &inv));
    AXE_TRY(common_prefix(a, &inv, &r));
    *out = r;
    return AXE_OK;
}

/* max_common_vector("a", "b") = size(max_common_layout(a, b)). */
axe_status axe_cute_max_common_vector(const axe_cute_layout *a,
                                      const axe_cute_layout *b, int64_t *out)
{
    axe_cute_layout r;
    AXE_TRY(axe_cute_max_common_layout(a, b, &r));
    return axe_cute_size(&r, out);
}
