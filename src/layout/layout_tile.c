/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tiling of Axe layouts (spec §8, the paper's Kronecker product A ⊗ B):
 * tile, tile_to, and the recoveries is_tile_inner (given B and T, the C
 * with C ⊗ B = T) and is_tile_outer (given A and T, the C with A ⊗ C = T),
 * with the scope splitting of §8.4 and the swizzle delegation of §11.
 * tile(A, B) interleaves per dim A's block, its strides on the axes of B's
 * shard multiplied by span(B, axis), then B's block, so that
 *   f_T(x || y) = D_A(x) ⊙ span(B) + R_A + O_A + f_B(y).
 * Invariant: a recovered factor is returned only after it is tiled again
 * and the result equals the canonical tiled layout; otherwise the answer
 * is "not found" with the reason in the diagnostic.
 */
#include "layout_tile_internal.h"

/* ---- tile ---------------------------------------------------------------- */

static axe_status check_dims(int n, axe_diag *diag)
{
    if (n < 0 || n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, n < 0 ? AXE_ERR_INVALID : AXE_ERR_CAPACITY, -1,
                         "tiling takes 0 to %d dims, not %d",
                         AXE_LAYOUT_MAX_DIMS, n);
    return AXE_OK;
}

static bool in_shard(const axe_layout *l, const char *axis)
{
    for (int k = 0; k < l->nshard; k++)
        if (axe__axis_eq(l->shard[k].axis, axis))
            return true;
    return false;
}

static axe_status check_rule(axe_rule rule, axe_diag *diag)
{
    if (rule != AXE_RULE_PAPER && rule != AXE_RULE_TIRX)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "unknown rule %d (AXE_RULE_PAPER or AXE_RULE_TIRX)",
                         (int)rule);
    return AXE_OK;
}

/* og ⊗ ig for grouped canonical plain layouts (spec §8.1 steps 4-6);
 * "og" is scaled in place. */
static axe_status tile_grouped(axe_layout *og, const int *oseps,
                               const axe_layout *ig, const int *iseps, int n,
                               axe_target target, axe_rule rule,
                               axe_layout *out, axe_diag *diag)
{
    axe_layout r;
    AXE_TRY(axe__tile_scale(og, ig, rule, diag));
    AXE_TRY(axe__interleave(og, oseps, ig, iseps, n, ig, og, &r, diag));
    return axe_layout_canonicalize(&r, target, out, diag);
}

/* oc ⊗ ic for canonical plain layouts (spec §8.1 steps 2-6). */
static axe_status tile_canonical(const axe_layout *oc, const int64_t *oshape,
                                 const axe_layout *ic, const int64_t *ishape,
                                 int n, axe_target target, axe_rule rule,
                                 axe_layout *out, axe_diag *diag)
{
    axe_layout og, ig;
    int oseps[AXE__SEPS_MAX], iseps[AXE__SEPS_MAX];
    AXE_TRY(axe_layout_group(oc, oshape, n, &og, oseps, diag));
    AXE_TRY(axe_layout_group(ic, ishape, n, &ig, iseps, diag));
    return tile_grouped(&og, oseps, &ig, iseps, n, target, rule, out, diag);
}

/* outer ⊗ inner for plain layouts (spec §8.1): canonicalize both, then
 * tile_canonical. */
static axe_status tile_plain(const axe_layout *outer, const int64_t *oshape,
                             const axe_layout *inner, const int64_t *ishape,
                             int n, axe_target target, axe_rule rule,
                             axe_layout *out, axe_diag *diag)
{
    axe_layout oc, ic;
    AXE_TRY(axe_layout_canonicalize(outer, target, &oc, diag));
    AXE_TRY(axe_layout_canonicalize(inner, target, &ic, diag));
    return tile_canonical(&oc, oshape, &ic, ishape, n, target, rule, out, diag);
}

/* outer ⊗ inner (the paper's Theorem C.2, or TIRx inner.tile(outer,
 * outer_shape, inner_shape)): the plain tile of the two, re-wrapped in the
 * swizzle of a swizzled "inner" whose trivial tile stands for the identity
 * over "inner_shape" (§11). */
axe_status axe_layout_tile_rule(const axe_layout *outer,
                                const int64_t *outer_shape,
                                const axe_layout *inner,
                                const int64_t *inner_shape, int n,
                                axe_target target, axe_rule rule,
                                axe_layout *out, axe_diag *diag)
{
    axe_layout buf, r;
    const axe_layout *it;
    AXE_TRY(check_dims(n, diag));
    AXE_TRY(check_rule(rule, diag));
    if (outer->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the outer layout of a tile must not be swizzled "
                         "(the swizzle belongs to the inner one)");
    AXE_TRY(axe__plain_tile(inner, inner_shape, n, &buf, &it, diag));
    AXE_TRY(tile_plain(outer, outer_shape, it, inner_shape, n, target, rule, &r,
                       diag));
    r.swizzle = inner->swizzle;
    axe__layout_copy(out, &r);
    return AXE_OK;
}

axe_status axe_layout_tile(const axe_layout *outer, const int64_t *outer_shape,
                           const axe_layout *inner, const int64_t *inner_shape,
                           int n, axe_target target, axe_layout *out,
                           axe_diag *diag)
{
    return axe_layout_tile_rule(outer, outer_shape, inner, inner_shape, n,
                                target, AXE_RULE_PAPER, out, diag);
}

/* The quotients to[d] / cur[d], each exact (TIRx tile_to's to // cur). */
static axe_status quotients(const int64_t *to, const int64_t *cur, int n,
                            int64_t *q, axe_diag *diag)
{
    for (int d = 0; d < n; d++) {
        if (to[d] < 1 || cur[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d: shapes must be positive (%lld, %lld)", d,
                             (long long)to[d], (long long)cur[d]);
        if (to[d] % cur[d] != 0)
            return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                             "dim %d: the target extent %lld is not a "
                             "multiple of the current extent %lld",
                             d, (long long)to[d], (long long)cur[d]);
        q[d] = to[d] / cur[d];
    }
    return AXE_OK;
}

/* "l" repeated up to "to_shape": tile(row_major(to / cur), to / cur, l,
 * cur) (TIRx tile_to, spec §8.1). */
axe_status axe_layout_tile_to_rule(const axe_layout *l, const int64_t *to_shape,
                                   const int64_t *cur_shape, int n,
                                   axe_target target, axe_rule rule,
                                   axe_layout *out, axe_diag *diag)
{
    int64_t q[AXE_LAYOUT_MAX_DIMS];
    axe_layout grid;
    AXE_TRY(check_dims(n, diag));
    AXE_TRY(quotients(to_shape, cur_shape, n, q, diag));
    AXE_TRY(axe_layout_row_major(q, n, &grid));
    return axe_layout_tile_rule(&grid, q, l, cur_shape, n, target, rule, out,
                                diag);
}

axe_status axe_layout_tile_to(const axe_layout *l, const int64_t *to_shape,
                              const int64_t *cur_shape, int n,
                              axe_target target, axe_layout *out,
                              axe_diag *diag)
{
    return axe_layout_tile_to_rule(l, to_shape, cur_shape, n, target,
                                   AXE_RULE_PAPER, out, diag);
}

/* TileShape (spec §8.1): per dim [shape/factor, factor] when "is_inner",
 * else [factor, shape/factor]; every factor must divide its dim. */
static axe_status tile_shape(const int64_t *shape, const int64_t *factor, int n,
                             bool is_inner, int64_t *out, axe_diag *diag)
{
    for (int d = 0; d < n; d++) {
        int64_t q;
        if (shape[d] < 1 || factor[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d: shapes must be positive (%lld, %lld)", d,
                             (long long)shape[d], (long long)factor[d]);
        if (shape[d] % factor[d] != 0)
            return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                             "Shape[i] must be divisible by factor[i]: dim "
                             "%d of the tiled shape, %lld, is not a multiple "
                             "of %lld",
                             d, (long long)shape[d], (long long)factor[d]);
        q = shape[d] / factor[d];
        out[2 * d] = is_inner ? q : factor[d];
        out[2 * d + 1] = is_inner ? factor[d] : q;
    }
    return AXE_OK;
}

/* ---- recovering a factor ------------------------------------------------- */

/* The question "is tiled = O ⊗ I?" with one factor known: "known" is I
 * (find O) when "inner", else O (find I). "tiled" is canonical and split by
 * scope for matching; "canon" is the canonical tiled layout the re-tiled
 * candidate must equal. All plain. "kg", "ks": known grouped by "kshape"
 * (set by recover, for re-tiling). */
typedef struct tile_query {
    const axe_layout *known;
    const axe_layout *tiled;
    const axe_layout *canon;
    const int64_t *tshape;
    const int64_t *kshape;
    int n;
    bool inner;
    axe_target target;
    axe_rule rule;
    const axe_layout *kg;
    const int *ks;
} tile_query;

/* "a" is a wider scope than "b" (smaller rank, TIRx ScopeKindHigher). */
static bool wider(axe_scope a, axe_scope b) { return a < b; }

/* The scope of "l" from "info" when canonicalize knew it, else computed. */
static axe_status scope_of(const axe_layout *l, const axe__scope_info *info,
                           bool *has, axe_scope *sub, axe_scope *scope,
                           axe_diag *diag)
{
    if (!info->known)
        return axe__layout_scope(l, has, sub, scope, diag);
    *has = info->has;
    *sub = info->subscope;
    *scope = info->scope;
    return AXE_OK;
}

/* The scope rule of spec §8.2 step 2 (known inner) and §8.3 step 2 (known
 * outer): "tiled" is split by the known factor's scope (inner) or
 * subscope (outer) when its own is wider. Where TIRx answers "no" because
 * the scopes do not nest (e.g. an inner factor on warpid alone in a tiled
 * layout on warpid and laneid), axe matches "tiled" as it is and, when
 * that fails, the split by the other end of the known factor's scope in
 * "alt" (*has_alt), letting the matching and the re-tiling decide. */
static axe_status match_scopes(axe_layout *tiled, const axe__scope_info *ti,
                               axe_layout *alt, bool *has_alt,
                               const axe_layout *known,
                               const axe__scope_info *ki, bool inner,
                               axe_target target, axe_diag *diag)
{
    bool ht, hk;
    axe_scope ts, tsc, ks, ksc;
    *has_alt = false;
    AXE_TRY(scope_of(tiled, ti, &ht, &ts, &tsc, diag));
    AXE_TRY(scope_of(known, ki, &hk, &ks, &ksc, diag));
    if (!ht || !hk)
        return AXE_OK;
    if (inner ? ts == ks && !wider(ksc, tsc) : tsc == ksc && !wider(ts, ks)) {
        if (inner && wider(tsc, ksc))
            return axe__split_by_scope(tiled, ksc, target, tiled, diag);
        if (!inner && wider(ks, ts))
            return axe__split_by_scope(tiled, ks, target, tiled, diag);
        return AXE_OK;
    }
    if (wider(ks, ts))
        *has_alt = axe__split_by_scope(tiled, ks, target, alt, NULL) == AXE_OK;
    else if (wider(tsc, ksc))
        *has_alt = axe__split_by_scope(tiled, ksc, target, alt, NULL) == AXE_OK;
    return AXE_OK;
}

/* Known inner: per dim, the block's last iters must be the inner's; the
 * others, unscaled, are the outer's (spec §8.2 step 5). */
static axe_status take_outer(const tile_query *q, const axe_layout *tg,
                             const int *ts, const axe_layout *kg, const int *ks,
                             axe_layout *res, bool *found, axe_diag *diag)
{
    char t0[64], t1[64];
    for (int d = 0; d < q->n; d++) {
        int kc = ks[d + 1] - ks[d], tc = ts[2 * d + 2] - ts[2 * d];
        int tail = ts[2 * d + 2] - kc;
        bool ok;
        if (kc > tc)
            return axe__not_found(found, diag,
                                  "dim %d: the tiled block has %d iters, "
                                  "fewer than the inner's %d",
                                  d, tc, kc);
        for (int j = 0; j < kc; j++)
            if (!axe__iter_match(&tg->shard[tail + j], &kg->shard[ks[d] + j]))
                return axe__not_found(
                    found, diag, "dim %d: tiled iter %s is not inner iter %s",
                    d, axe__iter_text(&tg->shard[tail + j], t0, sizeof t0),
                    axe__iter_text(&kg->shard[ks[d] + j], t1, sizeof t1));
        for (int j = ts[2 * d]; j < tail; j++) {
            axe_iter it = tg->shard[j];
            AXE_TRY(axe__tile_unscale_iter(&it, q->known, q->rule, &ok));
            if (!ok)
                return axe__not_found(
                    found, diag,
                    "dim %d: the stride of tiled iter %s is not a multiple "
                    "of the inner span on its axis",
                    d, axe__iter_text(&tg->shard[j], t0, sizeof t0));
            res->shard[res->nshard++] = it;
        }
    }
    *found = true;
    return AXE_OK;
}

/* Known outer: per dim, the block's first iters must be the outer's in
 * extent and axis (strides are checked by re-tiling); the others are the
 * inner's (spec §8.3 step 4). */
static axe_status take_inner(const tile_query *q, const axe_layout *tg,
                             const int *ts, const axe_layout *kg, const int *ks,
                             axe_layout *res, bool *found, axe_diag *diag)
{
    char t0[64], t1[64];
    for (int d = 0; d < q->n; d++) {
        int kc = ks[d + 1] - ks[d], tc = ts[2 * d + 2] - ts[2 * d];
        if (kc > tc)
            return axe__not_found(found, diag,
                                  "dim %d: the tiled block has %d iters, "
                                  "fewer than the outer's %d",
                                  d, tc, kc);
        for (int j = 0; j < kc; j++) {
            const axe_iter *t = &tg->shard[ts[2 * d] + j];
            const axe_iter *k = &kg->shard[ks[d] + j];
            if (t->extent != k->extent ||
                (k->extent != 1 && !axe__axis_eq(t->axis, k->axis)))
                return axe__not_found(
                    found, diag, "dim %d: tiled iter %s is not outer iter %s",
                    d, axe__iter_text(t, t0, sizeof t0),
                    axe__iter_text(k, t1, sizeof t1));
        }
        for (int j = ts[2 * d] + kc; j < ts[2 * d + 2]; j++)
            res->shard[res->nshard++] = tg->shard[j];
    }
    *found = true;
    return AXE_OK;
}

/* Whether the candidate factor "cand" tiles back to q->canon (the known
 * factor's grouping q->kg is reused: it is what tile_canonical computes). */
static axe_status check_tile(const tile_query *q, const axe_layout *cand,
                             const int64_t *factored, bool *ok, axe_diag *diag)
{
    int64_t cshape[AXE_LAYOUT_MAX_DIMS];
    axe_layout t, cc, cg, kg;
    int cs[AXE__SEPS_MAX];
    axe_status st;
    for (int d = 0; d < q->n; d++)
        cshape[d] = factored[2 * d + (q->inner ? 0 : 1)];
    st = axe_layout_canonicalize(cand, q->target, &cc, NULL);
    if (st == AXE_OK)
        st = axe_layout_group(&cc, cshape, q->n, &cg, cs, NULL);
    if (st == AXE_OK && q->inner) {
        st = tile_grouped(&cg, cs, q->kg, q->ks, q->n, q->target, q->rule, &t,
                          NULL);
    } else if (st == AXE_OK) {
        axe__layout_copy(&kg, q->kg);
        st = tile_grouped(&kg, q->ks, &cg, cs, q->n, q->target, q->rule, &t,
                          NULL);
    }
    if (st == AXE_ERR_OVERFLOW)
        return axe__fail(diag, st, -1, "re-tiling the candidate overflows");
    *ok = st == AXE_OK && axe_layout_equal(&t, q->canon);
    return AXE_OK;
}

static bool unit_only(const axe_layout *l)
{
    for (int k = 0; k < l->nshard; k++)
        if (l->shard[k].extent != 1)
            return false;
    return l->nshard > 0;
}

/* A memory axis the shard of "l" does not use ("m" if all are used). */
static const char *unused_memory_axis(const axe_layout *l, char *buf)
{
    static const char *const names[] = {"m", "P", "F", "Bank", "TCol", "TLane"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        memset(buf, 0, AXE_AXIS_NAME_MAX);
        memcpy(buf, names[i], strlen(names[i]));
        if (!in_shard(l, buf))
            return buf;
    }
    return axe__name_m.s;
}

/* A candidate inner factor of size 1 is S[1:1@a] canonically, and tile
 * scales the outer's strides on a by span(inner, a); a is not determined
 * by the tiled layout, so try the axes that can matter: each axis of the
 * outer factor's shard, then one it does not use (scaling nothing). The
 * first that tiles back is kept in "res". */
static axe_status retry_unit_axis(const tile_query *q, axe_layout *res,
                                  const int64_t *factored, bool *ok,
                                  axe_diag *diag)
{
    axe_layout c;
    char spare[AXE_AXIS_NAME_MAX];
    if (!unit_only(res))
        return AXE_OK;
    axe__layout_copy(&c, res);
    for (int k = 0; k <= q->known->nshard && !*ok; k++) {
        const char *axis = k < q->known->nshard
                               ? q->known->shard[k].axis
                               : unused_memory_axis(q->known, spare);
        axe__axis_copy(c.shard[0].axis, axis);
        AXE_TRY(check_tile(q, &c, factored, ok, diag));
    }
    if (*ok)
        axe__layout_copy(res, &c);
    return AXE_OK;
}

/* The replica and offset of the unknown factor "res" (its shard found):
 * the tiled layout's minus the known factor's (multiset, per axis), the
 * known outer's scaled by span(res) and the difference divided by
 * span(known inner) under the paper's rule (Appendix D:
 * O_C = (O_T - O_B) / span(B)). */
static axe_status factor_rest(const tile_query *q, axe_layout *res, bool *found,
                              axe_diag *diag)
{
    axe_layout known;
    bool all, ok = true;
    axe__layout_copy(&known, q->known);
    if (q->rule == AXE_RULE_PAPER && !q->inner)
        AXE_TRY(axe__tile_scaled_outer(q->tiled, q->known, res, &known, &ok));
    if (!ok)
        return axe__not_found(found, diag,
                              "no inner span fits the replicas of the tiled "
                              "layout and the outer one");
    AXE_TRY(axe__factor_rest(q->tiled, &known, res, &all));
    if (!all)
        return axe__not_found(found, diag,
                              "a replica of the known factor%s is not one of "
                              "the tiled layout",
                              q->rule == AXE_RULE_PAPER && !q->inner
                                  ? " (scaled by the inner span)"
                                  : "");
    if (q->rule == AXE_RULE_PAPER && q->inner)
        AXE_TRY(axe__tile_unscale_rest(res, q->known, &ok));
    if (!ok)
        return axe__not_found(found, diag,
                              "a replica stride or offset of the tiled layout "
                              "minus the inner's is not a multiple of the "
                              "inner span on its axis");
    *found = true;
    return AXE_OK;
}

/* The unknown factor of "query" (spec §8.2 steps 4-7, §8.3 steps 3-6). */
static axe_status recover(const tile_query *query, axe_layout *out, bool *found,
                          axe_diag *diag)
{
    axe_layout tg, kg, res;
    int ts[AXE__SEPS_MAX], ks[AXE__SEPS_MAX];
    int64_t factored[2 * AXE_LAYOUT_MAX_DIMS];
    tile_query qk = *query;
    const tile_query *q = &qk;
    bool ok;
    AXE_TRY(tile_shape(q->tshape, q->kshape, q->n, q->inner, factored, diag));
    AXE_TRY(axe_layout_group(q->tiled, factored, 2 * q->n, &tg, ts, diag));
    AXE_TRY(axe_layout_group(q->known, q->kshape, q->n, &kg, ks, diag));
    qk.kg = &kg;
    qk.ks = ks;
    axe__layout_clear(&res);
    if (q->inner)
        AXE_TRY(take_outer(q, &tg, ts, &kg, ks, &res, found, diag));
    else
        AXE_TRY(take_inner(q, &tg, ts, &kg, ks, &res, found, diag));
    if (!*found)
        return AXE_OK;
    AXE_TRY(factor_rest(q, &res, found, diag));
    if (!*found)
        return AXE_OK;
    AXE_TRY(check_tile(q, &res, factored, &ok, diag));
    if (!ok && !q->inner)
        AXE_TRY(retry_unit_axis(q, &res, factored, &ok, diag));
    if (!ok)
        return axe__not_found(found, diag,
                              "the candidate factor does not tile back to "
                              "the tiled layout");
    axe__layout_copy(out, &res);
    return AXE_OK;
}

/* Canonicalize both sides, match scopes, recover (plain operands). */
static axe_status recover_plain(const axe_layout *known,
                                const axe_layout *tiled, const int64_t *tshape,
                                const int64_t *kshape, int n, bool inner,
                                axe_target target, axe_rule rule,
                                axe_layout *out, bool *found, axe_diag *diag)
{
    axe_layout kc, tc, split, alt, res;
    axe__scope_info ki, ti;
    tile_query q;
    bool has_alt, f;
    AXE_TRY(check_dims(n, diag));
    AXE_TRY(axe__canonicalize_scoped(known, target, &kc, &ki, diag));
    AXE_TRY(axe__canonicalize_scoped(tiled, target, &tc, &ti, diag));
    axe__layout_copy(&split, &tc);
    AXE_TRY(match_scopes(&split, &ti, &alt, &has_alt, &kc, &ki, inner, target,
                         diag));
    q = (tile_query){&kc,   &split, &tc,  tshape, kshape, n,
                     inner, target, rule, NULL,   NULL};
    AXE_TRY(recover(&q, out, found, diag));
    if (*found || !has_alt)
        return AXE_OK;
    q.tiled = &alt;
    if (recover(&q, &res, &f, NULL) == AXE_OK && f) {
        axe__layout_copy(out, &res);
        *found = true;
    }
    return AXE_OK;
}

/* Is "tiled" = C ⊗ "inner" (TIRx inner.is_tile_inner)? C, not
 * canonicalized, when found. A swizzled inner needs a tiled layout with the
 * same swizzle; their tiles are compared, trivial ones as identities. */
axe_status axe_layout_is_tile_inner_rule(const axe_layout *inner,
                                         const axe_layout *tiled,
                                         const int64_t *tiled_shape,
                                         const int64_t *inner_shape, int n,
                                         axe_target target, axe_rule rule,
                                         axe_layout *outer_out, bool *found,
                                         axe_diag *diag)
{
    axe_layout ibuf, tbuf, res;
    const axe_layout *it, *tt;
    bool f;
    AXE_TRY(check_dims(n, diag));
    AXE_TRY(check_rule(rule, diag));
    if (!axe__swizzle_same(&inner->swizzle, &tiled->swizzle))
        return axe__not_found(found, diag,
                              "the tiled layout and the inner one do not have "
                              "the same swizzle");
    AXE_TRY(axe__plain_tile(inner, inner_shape, n, &ibuf, &it, diag));
    AXE_TRY(axe__plain_tile(tiled, tiled_shape, n, &tbuf, &tt, diag));
    AXE_TRY(recover_plain(it, tt, tiled_shape, inner_shape, n, true, target,
                          rule, &res, &f, diag));
    if (f)
        axe__layout_copy(outer_out, &res);
    *found = f;
    return AXE_OK;
}

axe_status axe_layout_is_tile_inner(const axe_layout *inner,
                                    const axe_layout *tiled,
                                    const int64_t *tiled_shape,
                                    const int64_t *inner_shape, int n,
                                    axe_target target, axe_layout *outer_out,
                                    bool *found, axe_diag *diag)
{
    return axe_layout_is_tile_inner_rule(inner, tiled, tiled_shape, inner_shape,
                                         n, target, AXE_RULE_PAPER, outer_out,
                                         found, diag);
}

/* Is "tiled" = "outer" ⊗ C (TIRx outer.is_tile_outer)? C, not
 * canonicalized, when found; a swizzled tiled layout gives C in its
 * swizzle, a swizzled outer is never a tile's outer factor. */
axe_status axe_layout_is_tile_outer_rule(const axe_layout *outer,
                                         const axe_layout *tiled,
                                         const int64_t *tiled_shape,
                                         const int64_t *outer_shape, int n,
                                         axe_target target, axe_rule rule,
                                         axe_layout *inner_out, bool *found,
                                         axe_diag *diag)
{
    axe_layout buf, res;
    const axe_layout *tt = tiled;
    bool f;
    AXE_TRY(check_dims(n, diag));
    AXE_TRY(check_rule(rule, diag));
    if (outer->swizzle.present)
        return axe__not_found(found, diag,
                              "a swizzled layout is never the outer factor of "
                              "a tile");
    if (tiled->swizzle.present) {
        axe__layout_copy(&buf, tiled);
        memset(&buf.swizzle, 0, sizeof buf.swizzle);
        tt = &buf;
    }
    AXE_TRY(recover_plain(outer, tt, tiled_shape, outer_shape, n, false, target,
                          rule, &res, &f, diag));
    if (f) {
        res.swizzle = tiled->swizzle;
        axe__layout_copy(inner_out, &res);
    }
    *found = f;
    return AXE_OK;
}

axe_status axe_layout_is_tile_outer(const axe_layout *outer,
                                    const axe_layout *tiled,
                                    const int64_t *tiled_shape,
                                    const int64_t *outer_shape, int n,
                                    axe_target target, axe_layout *inner_out,
                                    bool *found, axe_diag *diag)
{
    return axe_layout_is_tile_outer_rule(outer, tiled, tiled_shape, outer_shape,
                                         n, target, AXE_RULE_PAPER, inner_out,
                                         found, diag);
}
