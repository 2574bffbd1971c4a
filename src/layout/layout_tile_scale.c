/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The span scaling of a tile A ⊗ B and its inversion in the recoveries,
 * under both rules. The paper's (Theorem C.2): every component of A on an
 * axis a (shard and replica strides, the offset) is multiplied by
 * w(a) = span(B, a) = 1 + sum |s| (e-1) over B's shard and replica iters
 * on a (Lemma C.1; 1 where B has nothing), so
 *   (A ⊗ B)(x, y) = { (D_A(x) + r + O_A) ⊙ w + q : r ∈ R_A, q ∈ B(y) }.
 * TIRx's: only A's shard iters on an axis of B's shard, by TIRx's span
 * (signed strides, B's offset included). Since w >= 1 under the paper's
 * rule, scaling is injective and the recoveries divide exactly. Invariant:
 * every product is overflow-checked; a division that is not exact answers
 * "not found" with the reason.
 */
#include "layout_tile_internal.h"

static bool in_shard(const axe_layout *l, const char *axis)
{
    for (int k = 0; k < l->nshard; k++)
        if (axe__axis_eq(l->shard[k].axis, axis))
            return true;
    return false;
}

/* iter "it" of the outer layout, stride times "w", or the overflow. */
static axe_status scale_iter(axe_iter *it, int64_t w, axe_diag *diag)
{
    char t[64];
    if (axe__mul(it->stride, w, &it->stride) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the stride of outer iter %s times the inner span "
                         "%lld overflows",
                         axe__iter_text(it, t, sizeof t), (long long)w);
    return AXE_OK;
}

/* TIRx (spec §8.1 step 4): the shard iters of "outer" on an axis of the
 * shard of "inner", times TIRx's span(inner, axis). */
static axe_status scale_tirx(axe_layout *outer, const axe_layout *inner,
                             axe_diag *diag)
{
    for (int k = 0; k < outer->nshard; k++) {
        int64_t w;
        if (!in_shard(inner, outer->shard[k].axis))
            continue;
        AXE_TRY(axe__span_axis(inner, outer->shard[k].axis, AXE_RULE_TIRX, &w));
        AXE_TRY(scale_iter(&outer->shard[k], w, diag));
    }
    return AXE_OK;
}

/* The paper: shard, replica and offset of "outer" times w(axis) = the
 * paper's span(inner, axis). */
static axe_status scale_paper(axe_layout *outer, const axe_layout *inner,
                              axe_diag *diag)
{
    int64_t w;
    for (int k = 0; k < outer->nshard + outer->nreplica; k++) {
        axe_iter *it = k < outer->nshard ? &outer->shard[k]
                                         : &outer->replica[k - outer->nshard];
        AXE_TRY(axe__span_axis(inner, it->axis, AXE_RULE_PAPER, &w));
        AXE_TRY(scale_iter(it, w, diag));
    }
    for (int i = 0; i < outer->noffset; i++) {
        AXE_TRY(
            axe__span_axis(inner, outer->offset[i].axis, AXE_RULE_PAPER, &w));
        if (axe__mul(outer->offset[i].value, w, &outer->offset[i].value) !=
            AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the outer offset %lld on %s times the inner "
                             "span %lld overflows",
                             (long long)outer->offset[i].value,
                             outer->offset[i].axis, (long long)w);
    }
    return AXE_OK;
}

axe_status axe__tile_scale(axe_layout *outer, const axe_layout *inner,
                           axe_rule rule, axe_diag *diag)
{
    if (rule == AXE_RULE_TIRX)
        return scale_tirx(outer, inner, diag);
    return scale_paper(outer, inner, diag);
}

/* "*v" / "w" when exact (w == 0 leaves only 0; TIRx's span may be 0 or
 * negative); *ok false otherwise. */
static axe_status divide(int64_t *v, int64_t w, bool *ok)
{
    *ok = true;
    if (w == 0)
        *ok = *v == 0;
    else if (w == -1)
        return axe__sub(0, *v, v);
    else if (*v % w != 0)
        *ok = false;
    else
        *v /= w;
    return AXE_OK;
}

axe_status axe__tile_unscale_iter(axe_iter *it, const axe_layout *inner,
                                  axe_rule rule, bool *ok)
{
    int64_t w;
    *ok = true;
    if (it->extent == 1 ||
        (rule == AXE_RULE_TIRX && !in_shard(inner, it->axis)))
        return AXE_OK;
    AXE_TRY(axe__span_axis(inner, it->axis, rule, &w));
    return divide(&it->stride, w, ok);
}

axe_status axe__tile_unscale_rest(axe_layout *c, const axe_layout *inner,
                                  bool *ok)
{
    int64_t w;
    *ok = true;
    for (int k = 0; k < c->nreplica && *ok; k++) {
        AXE_TRY(axe__span_axis(inner, c->replica[k].axis, AXE_RULE_PAPER, &w));
        AXE_TRY(divide(&c->replica[k].stride, w, ok));
    }
    for (int i = 0; i < c->noffset && *ok; i++) {
        AXE_TRY(axe__span_axis(inner, c->offset[i].axis, AXE_RULE_PAPER, &w));
        AXE_TRY(divide(&c->offset[i].value, w, ok));
    }
    return AXE_OK;
}

/* sum |s| (e-1) over the replica iters of "l" on "axis". */
static axe_status replica_reach(const axe_layout *l, const char *axis,
                                int64_t *out)
{
    axe_layout r;
    axe_layout_init(&r);
    r.nreplica = l->nreplica;
    axe__iters_copy(r.replica, l->replica, l->nreplica);
    AXE_TRY(axe__span_axis(&r, axis, AXE_RULE_PAPER, out));
    return axe__sub(*out, 1, out);
}

/* w(a) = span(C, a) for the inner C of "tiled" = outer ⊗ C whose shard
 * is "c" (its replica unknown yet). With P_X the replica reach of X on a,
 * P_T = P_C + w P_A and w = w_shard + P_C, so
 * P_C = (P_T - w_shard P_A) / (1 + P_A), which must be exact and >= 0. */
static axe_status inner_span(const axe_layout *tiled, const axe_layout *outer,
                             const axe_layout *c, const char *axis, int64_t *w,
                             bool *ok)
{
    int64_t ws, pa, pt, t, q;
    AXE_TRY(axe__span_axis(c, axis, AXE_RULE_PAPER, &ws));
    AXE_TRY(replica_reach(outer, axis, &pa));
    AXE_TRY(replica_reach(tiled, axis, &pt));
    AXE_TRY(axe__mul(ws, pa, &t));
    AXE_TRY(axe__sub(pt, t, &t));
    AXE_TRY(axe__add(pa, 1, &q));
    *ok = t >= 0 && t % q == 0;
    if (*ok)
        AXE_TRY(axe__add(ws, t / q, w));
    return AXE_OK;
}

axe_status axe__tile_scaled_outer(const axe_layout *tiled,
                                  const axe_layout *outer, const axe_layout *c,
                                  axe_layout *out, bool *ok)
{
    axe_layout s;
    int64_t w;
    axe__layout_copy(&s, outer);
    *ok = true;
    for (int k = 0; k < s.nreplica && *ok; k++) {
        AXE_TRY(inner_span(tiled, outer, c, s.replica[k].axis, &w, ok));
        if (*ok)
            AXE_TRY(axe__mul(s.replica[k].stride, w, &s.replica[k].stride));
    }
    for (int i = 0; i < s.noffset && *ok; i++) {
        AXE_TRY(inner_span(tiled, outer, c, s.offset[i].axis, &w, ok));
        if (*ok)
            AXE_TRY(axe__mul(s.offset[i].value, w, &s.offset[i].value));
    }
    if (*ok)
        axe__layout_copy(out, &s);
    return AXE_OK;
}
