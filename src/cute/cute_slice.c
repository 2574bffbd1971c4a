/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Slicing and dicing of tuples and layouts by a coordinate with `_` (CuTe's
 * slice, dice and slice_and_offset). A coordinate "crd" weakly congruent to
 * the target selects, for each of its leaves, one subtree of the target;
 * slice keeps the subtrees under `_` leaves, dice those under fixed leaves.
 * Result profile (CuTe's lift_slice / lift_dice): a scalar coordinate keeps
 * the whole target or nothing (`()`); a tuple coordinate gives the tuple of
 * the kept subtrees in preorder, however deeply the coordinate nests.
 * Invariant: the sliced-off leaves of a layout contribute L(crd with `_` ->
 * 0), the slice's offset, so L(crd) = offset + slice(L)(the `_` part).
 */
#include "cute_internal.h"

/* The subtrees of a target that a slice or dice keeps: the whole target
 * ("whole"), or the tuple of the subtrees "sp[0..n)". */
typedef struct picks {
    bool whole;
    int n;
    axe__span sp[AXE_TUPLE_MAX_LEAVES];
} picks;

static axe_status not_congruent(const axe_tuple *crd, const axe_tuple *t,
                                axe_diag *diag)
{
    int rc = axe_tuple_rank(crd), rt = axe_tuple_rank(t);
    if (!axe_tuple_is_scalar(crd) && axe_tuple_is_scalar(t))
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "a coordinate of rank %d cannot index a scalar "
                         "shape; it must be weakly congruent to the shape",
                         rc);
    if (rc != rt)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "a coordinate of rank %d does not match a shape "
                         "of rank %d; it must be weakly congruent to it",
                         rc, rt);
    return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                     "the coordinate is not weakly congruent to the shape: "
                     "a nested coordinate has a different rank than the "
                     "mode it indexes");
}

/*
 * The subtree of "t" under each leaf of "crd", in preorder, into "sp".
 * Weak congruence makes the two token strings advance in step: '(' and ')'
 * of "crd" match those of "t", and a leaf of "crd" covers one subtree.
 */
static axe_status crd_spans(const axe_tuple *crd, const axe_tuple *t,
                            axe__span *sp, axe_diag *diag)
{
    int it = 0, lt = 0, k = 0;
    if (!axe_tuple_is_weakly_congruent(crd, t))
        return not_congruent(crd, t, diag);
    for (int ic = 0; ic < crd->ntok; ic++) {
        int e, n;
        if (crd->tok[ic] != 'x') {
            it++;
            continue;
        }
        e = axe__tuple_subtree_end(t->tok, it);
        n = axe__tuple_count_leaves(t->tok, it, e);
        sp[k++] = (axe__span){it, e, lt, lt + n};
        it = e;
        lt += n;
    }
    return AXE_OK;
}

/* What slicing ("wild" true: keep `_` leaves) or dicing ("wild" false:
 * keep fixed leaves) "t" by "crd" keeps. */
static axe_status pick(const axe_tuple *crd, const axe_tuple *t, bool wild,
                       picks *out, axe_diag *diag)
{
    axe__span sp[AXE_TUPLE_MAX_LEAVES];
    AXE_TRY(crd_spans(crd, t, sp, diag));
    out->n = 0;
    out->whole = false;
    if (axe_tuple_is_scalar(crd)) {
        out->whole = (crd->v[0] == AXE_UNDERSCORE) == wild;
        return AXE_OK;
    }
    for (int k = 0; k < crd->nleaf; k++)
        if ((crd->v[k] == AXE_UNDERSCORE) == wild)
            out->sp[out->n++] = sp[k];
    return AXE_OK;
}

static axe_status tuple_from_picks(const axe_tuple *t, const picks *p,
                                   axe_tuple *out)
{
    axe_tuple r;
    if (p->whole) {
        axe__tuple_copy(out, t);
        return AXE_OK;
    }
    axe__tuple_clear(&r);
    AXE_TRY(axe__tuple_open(&r));
    for (int k = 0; k < p->n; k++)
        AXE_TRY(axe__tuple_append_span(&r, t, &p->sp[k]));
    AXE_TRY(axe__tuple_close(&r));
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

static axe_status layout_from_picks(const axe_cute_layout *l, const picks *p,
                                    axe_cute_layout *out)
{
    axe_cute_layout r;
    if (p->whole) {
        axe__cute_copy(out, l);
        return AXE_OK;
    }
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    for (int k = 0; k < p->n; k++)
        AXE_TRY(axe__cute_append_span(&r, l, &p->sp[k]));
    AXE_TRY(axe__cute_close(&r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/*
 * "crd" with every `_` replaced by 0, after checking that each fixed leaf
 * lies in [0, size of the subtree it indexes) of "shape".
 */
static axe_status fixed_part(const axe_tuple *crd, const axe_tuple *shape,
                             axe_tuple *out, axe_diag *diag)
{
    axe__span sp[AXE_TUPLE_MAX_LEAVES];
    axe_tuple r;
    AXE_TRY(crd_spans(crd, shape, sp, diag));
    axe__tuple_copy(&r, crd);
    for (int k = 0; k < crd->nleaf; k++) {
        int64_t size = 1, c = crd->v[k];
        for (int i = sp[k].lb; i < sp[k].le; i++)
            if (axe__mul(size, shape->v[i], &size) != AXE_OK)
                return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                                 "the size of a sliced mode overflows");
        if (c == AXE_UNDERSCORE)
            r.v[k] = 0;
        else if (c < 0 || c >= size)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "coordinate %lld is outside [0, %lld), the "
                             "mode it indexes",
                             (long long)c, (long long)size);
    }
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

/*
 * slice("l", "crd") = the modes of "l" under the `_` leaves of "crd", and
 * "offset" = L(crd with `_` -> 0), so that L(crd filled with x) ==
 * offset + slice(L)(x) for every coordinate x of the slice (CuTe's
 * slice_and_offset). Fixed coordinates must lie inside their modes.
 */
axe_status axe_cute_slice(const axe_cute_layout *l, const axe_tuple *crd,
                          axe_cute_layout *out, axe_cute_point *offset,
                          axe_diag *diag)
{
    picks p;
    axe_tuple zero;
    axe_cute_layout r;
    axe_cute_point off;
    int64_t idx;
    AXE_TRY(pick(crd, &l->shape, true, &p, diag));
    AXE_TRY(fixed_part(crd, &l->shape, &zero, diag));
    AXE_TRY(axe_tuple_crd2idx(&zero, &l->shape, &idx));
    AXE_TRY(axe_cute_eval_point(l, idx, &off));
    AXE_TRY(layout_from_picks(l, &p, &r));
    axe__cute_copy(out, &r);
    if (offset != NULL)
        *offset = off;
    return AXE_OK;
}

/* dice("l", "crd"): the modes of "l" under the fixed leaves of "crd" (a
 * scalar fixed "crd" keeps all of "l"); the values do not matter. */
axe_status axe_cute_dice(const axe_cute_layout *l, const axe_tuple *crd,
                         axe_cute_layout *out, axe_diag *diag)
{
    picks p;
    AXE_TRY(pick(crd, &l->shape, false, &p, diag));
    return layout_from_picks(l, &p, out);
}

/* slice("t", "crd") on a plain tuple: the subtrees under `_` leaves. */
axe_status axe_tuple_slice(const axe_tuple *t, const axe_tuple *crd,
                           axe_tuple *out, axe_diag *diag)
{
    picks p;
    AXE_TRY(pick(crd, t, true, &p, diag));
    return tuple_from_picks(t, &p, out);
}

/* dice("t", "crd") on a plain tuple: the subtrees under fixed leaves. */
axe_status axe_tuple_dice(const axe_tuple *t, const axe_tuple *crd,
                          axe_tuple *out, axe_diag *diag)
{
    picks p;
    AXE_TRY(pick(crd, t, false, &p, diag));
    return tuple_from_picks(t, &p, out);
}
