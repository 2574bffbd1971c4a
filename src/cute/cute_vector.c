/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The largest common vector of two layouts (CuTe's max_common_layout and
 * max_common_vector). With inv_b = right_inverse(b), CuTe takes the first
 * mode s:1 of coalesce(a ∘ inv_b) (s = 1 unless its stride is 1) and
 * returns R = inv_b ∘ s:1, the first s values of inv_b. Invariant of the
 * result: a(R(i)) == b(R(i)) == i for every i < size(R) = s; s is the
 * longest such run made of whole leaves of inv_b and a part of the next
 * leaf, which is the longest run outright where a ∘ inv_b is a layout
 * (CuTe's case) or the run ends inside the first leaf.
 *
 * The run is found from compositions of a with prefixes of inv_b (one leaf
 * at a time, then a binary search inside the first leaf that breaks it),
 * so that it is found even when a ∘ inv_b as a whole is not a layout
 * (CuTe would fail or return a wrong layout there); where it is a layout,
 * the answers are equal.
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
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* Whether a ∘ (leaves [0,k) of "f" then leaf k cut to "q") is the
 * identity on its domain of size "n": the composition exists (it is then
 * the layout n:1) and coalesces to n:1. */
static axe_status is_identity(const axe_cute_layout *a,
                              const axe_cute_layout *f, int k, int64_t q,
                              int64_t n, bool *out)
{
    axe_cute_layout p, ap, m0;
    axe_status s;
    AXE_TRY(leaf_prefix(f, k + 1, q, &p));
    s = axe_cute_compose(a, &p, &ap, NULL);
    if (s == AXE_ERR_NOT_COMPOSABLE) {
        *out = false;
        return AXE_OK;
    }
    AXE_TRY(s);
    AXE_TRY(axe_cute_coalesce(&ap, &ap));
    AXE_TRY(axe_cute_get(&ap, 0, &m0));
    *out =
        n <= 1 || (m0.shape.v[0] == n && m0.stride[0] == 1 && m0.basis[0] == 0);
    return AXE_OK;
}

/* The largest q in [1, extent of leaf k] such that a ∘ (leaves [0,k), then
 * leaf k cut to q) is the identity; "done" is the size of leaves [0,k),
 * on which it is. The property is monotone in q: binary search. */
static axe_status leaf_run(const axe_cute_layout *a, const axe_cute_layout *f,
                           int k, int64_t done, int64_t *out)
{
    int64_t lo = 1, hi = f->shape.v[k], n;
    bool ok;
    AXE_TRY(axe__mul(done, hi, &n));
    AXE_TRY(is_identity(a, f, k, hi, n, &ok));
    if (ok) {
        *out = hi;
        return AXE_OK;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        AXE_TRY(is_identity(a, f, k, mid, done * mid, &ok));
        if (ok)
            lo = mid;
        else
            hi = mid;
    }
    *out = lo;
    return AXE_OK;
}

/*
 * The common layout R = the first s values of "inv" (flat), s the length
 * of the identity run of a ∘ inv, found leaf by leaf: take whole leaves
 * while a ∘ (the leaves so far) is the identity, then the longest part of
 * the next leaf that keeps it so.
 */
static axe_status common_prefix(const axe_cute_layout *a,
                                const axe_cute_layout *inv,
                                axe_cute_layout *out)
{
    int64_t done = 1, q = 1;
    int k;
    for (k = 0; k < inv->shape.nleaf; k++) {
        AXE_TRY(leaf_run(a, inv, k, done, &q));
        if (q < inv->shape.v[k])
            break;
        done *= q;
    }
    if (k < inv->shape.nleaf && q > 1)
        return leaf_prefix(inv, k + 1, q, out);
    if (done <= 1) {
        axe__cute_leaf(1, 0, out);
        return AXE_OK;
    }
    return leaf_prefix(inv, k, inv->shape.v[k - 1], out);
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
    axe__cute_copy(out, &r);
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
