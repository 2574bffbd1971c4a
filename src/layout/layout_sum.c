/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The direct sum of Axe layouts (spec §9, the paper's unscaled
 * composition): A + B over the interleaved domain (A0, B0, A1, B1, ...)
 * with sum(a0, b0, a1, b1, ...) = A(a) + B(b), and its two recoveries
 * (given the sum and B find A; given the sum and A find B). Also the
 * helpers the tiling files share with it (layout_tile_internal.h): the
 * block interleaving, factor rests and the swizzle delegation of spec §11.
 * Invariant: a recovered factor is returned only after the direct sum is
 * recomputed from it and equals the canonical sum; otherwise the answer is
 * "not found" with the reason.
 */
#include <stdarg.h>
#include <stdio.h>

#include "layout_tile_internal.h"

/* ---- helpers shared with the tiling files -------------------------------- */

axe_status axe__not_found(bool *found, axe_diag *diag, const char *fmt, ...)
{
    va_list ap;
    *found = false;
    if (diag == NULL)
        return AXE_OK;
    diag->offset = -1;
    va_start(ap, fmt);
    axe__diag_vput(diag, fmt, ap);
    va_end(ap);
    return AXE_OK;
}

const char *axe__iter_text(const axe_iter *it, char *buf, size_t cap)
{
    snprintf(buf, cap, "(%lld,%lld@%s)", (long long)it->extent,
             (long long)it->stride, it->axis);
    return buf;
}

axe_status axe__shape_product(const int64_t *shape, int n, int64_t *out)
{
    int64_t p = 1;
    for (int d = 0; d < n; d++)
        AXE_TRY(axe__mul(p, shape[d], &p));
    *out = p;
    return AXE_OK;
}

bool axe__iter_match(const axe_iter *a, const axe_iter *b)
{
    if (a->extent != b->extent)
        return false;
    return a->extent == 1 ||
           (a->stride == b->stride && axe__axis_eq(a->axis, b->axis));
}

bool axe__tile_is_trivial(const axe_layout *l)
{
    if (l->nshard > 1 || l->nreplica != 0)
        return false;
    for (int i = 0; i < l->noffset; i++)
        if (l->offset[i].value != 0)
            return false;
    return l->nshard == 0 ||
           (l->shard[0].stride == 1 && axe__is_memory_axis(l->shard[0].axis));
}

bool axe__swizzle_same(const axe_layout_swizzle *a, const axe_layout_swizzle *b)
{
    if (!a->present || !b->present)
        return a->present == b->present;
    return a->inner == b->inner && a->per_element == b->per_element &&
           a->len == b->len && a->atom == b->atom;
}

axe_status axe__swizzle_tile(const axe_layout *l, const int64_t *shape, int n,
                             axe_layout *out, axe_diag *diag)
{
    int64_t size;
    if (!l->swizzle.present || !axe__tile_is_trivial(l)) {
        axe__layout_copy(out, l);
        memset(&out->swizzle, 0, sizeof out->swizzle);
        return AXE_OK;
    }
    if (axe__shape_product(shape, n, &size) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the identity tile of a swizzle overflows: the "
                         "shape's product exceeds 2^63");
    if (size < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a shape dim is not positive");
    axe__layout_clear(out);
    out->shard[0].extent = size;
    out->shard[0].stride = 1;
    axe__axis_copy(out->shard[0].axis, axe__name_m.s);
    out->nshard = 1;
    return AXE_OK;
}

axe_status axe__plain_tile(const axe_layout *l, const int64_t *shape, int n,
                           axe_layout *buf, const axe_layout **out,
                           axe_diag *diag)
{
    if (!l->swizzle.present) {
        *out = l;
        return AXE_OK;
    }
    AXE_TRY(axe__swizzle_tile(l, shape, n, buf, diag));
    *out = buf;
    return AXE_OK;
}

/* Append the shard iters it[b .. e) to "out". */
static axe_status push_block(axe_layout *out, const axe_iter *it, int b, int e)
{
    for (int k = b; k < e; k++)
        AXE_TRY(axe__iter_append(out->shard, &out->nshard, AXE_LAYOUT_MAX_SHARD,
                                 it[k].extent, it[k].stride, it[k].axis));
    return AXE_OK;
}

/* Append the replicas of "src" and add its offsets to "out". */
static axe_status push_rest(axe_layout *out, const axe_layout *rsrc,
                            const axe_layout *osrc)
{
    for (int k = 0; k < rsrc->nreplica; k++) {
        const axe_iter *r = &rsrc->replica[k];
        AXE_TRY(axe__iter_append(out->replica, &out->nreplica,
                                 AXE_LAYOUT_MAX_REPLICA, r->extent, r->stride,
                                 r->axis));
    }
    for (int k = 0; k < osrc->noffset; k++)
        AXE_TRY(axe__layout_offset_add(out, osrc->offset[k].axis,
                                       osrc->offset[k].value));
    return AXE_OK;
}

axe_status axe__interleave(const axe_layout *a, const int *aseps,
                           const axe_layout *b, const int *bseps, int n,
                           const axe_layout *rfirst, const axe_layout *rsecond,
                           axe_layout *out, axe_diag *diag)
{
    axe_layout r;
    axe_status st = AXE_OK;
    axe__layout_clear(&r);
    for (int d = 0; d < n && st == AXE_OK; d++) {
        st = push_block(&r, a->shard, aseps[d], aseps[d + 1]);
        if (st == AXE_OK)
            st = push_block(&r, b->shard, bseps[d], bseps[d + 1]);
    }
    if (st == AXE_OK)
        st = push_rest(&r, rfirst, a);
    if (st == AXE_OK)
        st = push_rest(&r, rsecond, b);
    if (st == AXE_ERR_CAPACITY)
        return axe__fail(diag, st, -1,
                         "the result has more than %d shard, %d replica or %d "
                         "offset entries",
                         AXE_LAYOUT_MAX_SHARD, AXE_LAYOUT_MAX_REPLICA,
                         AXE_LAYOUT_MAX_OFFSET);
    if (st != AXE_OK)
        return axe__fail(diag, st, -1, "an offset of the result overflows");
    axe__layout_copy(out, &r);
    return AXE_OK;
}

/* Mark one unused replica of "whole" equal to "it" as used; false if none. */
static bool take_replica(const axe_layout *whole, const axe_iter *it,
                         bool *used)
{
    for (int i = 0; i < whole->nreplica; i++) {
        const axe_iter *w = &whole->replica[i];
        if (!used[i] && w->extent == it->extent && w->stride == it->stride &&
            axe__axis_eq(w->axis, it->axis)) {
            used[i] = true;
            return true;
        }
    }
    return false;
}

axe_status axe__factor_rest(const axe_layout *whole, const axe_layout *part,
                            axe_layout *out, bool *all)
{
    axe_layout r; /* only its replica and offset are used */
    bool used[AXE_LAYOUT_MAX_REPLICA] = {false};
    bool every = true;
    r.nreplica = 0;
    r.noffset = 0;
    for (int j = 0; j < part->nreplica; j++)
        every = take_replica(whole, &part->replica[j], used) && every;
    for (int i = 0; i < whole->nreplica; i++)
        if (!used[i])
            r.replica[r.nreplica++] = whole->replica[i];
    for (int i = 0; i < whole->noffset; i++)
        AXE_TRY(axe__layout_offset_add(&r, whole->offset[i].axis,
                                       whole->offset[i].value));
    for (int i = 0; i < part->noffset; i++) {
        int64_t neg;
        AXE_TRY(axe__sub(0, part->offset[i].value, &neg));
        AXE_TRY(axe__layout_offset_add(&r, part->offset[i].axis, neg));
    }
    out->nreplica = r.nreplica;
    out->noffset = r.noffset;
    axe__iters_copy(out->replica, r.replica, r.nreplica);
    axe__offsets_copy(out->offset, r.offset, r.noffset);
    *all = every;
    return AXE_OK;
}

/* ---- the direct sum ------------------------------------------------------ */

static axe_status check_rank(int n, axe_diag *diag)
{
    if (n < 0 || n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, n < 0 ? AXE_ERR_INVALID : AXE_ERR_CAPACITY, -1,
                         "a direct sum takes 0 to %d dims, not %d",
                         AXE_LAYOUT_MAX_DIMS, n);
    return AXE_OK;
}

/* The direct sum of plain layouts (spec §9): canonicalize, group A by
 * "as" and B by "bs", per dim A's block then B's, replicas A's then B's,
 * offsets added, canonicalize. */
static axe_status sum_plain(const axe_layout *a, const int64_t *as,
                            const axe_layout *b, const int64_t *bs, int n,
                            axe_layout *out, axe_diag *diag)
{
    axe_layout ac, bc, ag, bg, r;
    int aseps[AXE__SEPS_MAX], bseps[AXE__SEPS_MAX];
    AXE_TRY(axe_layout_canonicalize(a, AXE_TARGET_NONE, &ac, diag));
    AXE_TRY(axe_layout_canonicalize(b, AXE_TARGET_NONE, &bc, diag));
    AXE_TRY(axe_layout_group(&ac, as, n, &ag, aseps, diag));
    AXE_TRY(axe_layout_group(&bc, bs, n, &bg, bseps, diag));
    AXE_TRY(axe__interleave(&ag, aseps, &bg, bseps, n, &ag, &bg, &r, diag));
    return axe_layout_canonicalize(&r, AXE_TARGET_NONE, out, diag);
}

/* sum(a, b) = A(a) + B(b) over (A0, B0, A1, B1, ...): the direct sum of the
 * plain tiles; a swizzled "b" stands for its swizzle over the sum (a
 * trivial tile of it is the identity over "b_shape", spec §11). */
axe_status axe_layout_direct_sum(const axe_layout *a, const int64_t *a_shape,
                                 const axe_layout *b, const int64_t *b_shape,
                                 int n, axe_layout *out, axe_diag *diag)
{
    axe_layout buf, r;
    const axe_layout *bt;
    AXE_TRY(check_rank(n, diag));
    if (a->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the left operand of a direct sum must not be "
                         "swizzled (the swizzle belongs to the right one)");
    AXE_TRY(axe__plain_tile(b, b_shape, n, &buf, &bt, diag));
    AXE_TRY(sum_plain(a, a_shape, bt, b_shape, n, &r, diag));
    r.swizzle = b->swizzle;
    axe__layout_copy(out, &r);
    return AXE_OK;
}

/* ---- recovering a summand ------------------------------------------------ */

/* The question "is sum = L + R?" with one side known: "known" is R when
 * "right" (find L), else L (find R). Operands are plain and canonical. */
typedef struct sum_query {
    const axe_layout *known;
    const axe_layout *sum;
    const int64_t *inter;
    const int64_t *kshape;
    int n;
    bool right;
} sum_query;

/* Split the grouped sum "sg" (separators "ss") into the unknown side
 * "res" after matching the known side's blocks "kg" ("ks") exactly. */
static axe_status take_blocks(const sum_query *q, const axe_layout *sg,
                              const int *ss, const axe_layout *kg,
                              const int *ks, axe_layout *res, bool *found,
                              axe_diag *diag)
{
    char t0[64], t1[64];
    for (int d = 0; d < q->n; d++) {
        int kb = ss[2 * d + (q->right ? 1 : 0)], ub = ss[2 * d + !q->right];
        int kc = ss[2 * d + (q->right ? 2 : 1)] - kb;
        int uc = ss[2 * d + (q->right ? 1 : 2)] - ub;
        if (kc != ks[d + 1] - ks[d])
            return axe__not_found(
                found, diag,
                "dim %d: the sum has %d iters on the %s side, the %s "
                "operand %d",
                d, kc, q->right ? "right" : "left", q->right ? "right" : "left",
                ks[d + 1] - ks[d]);
        for (int j = 0; j < kc; j++)
            if (!axe__iter_match(&sg->shard[kb + j], &kg->shard[ks[d] + j]))
                return axe__not_found(
                    found, diag, "dim %d: iter %s of the sum is not %s", d,
                    axe__iter_text(&sg->shard[kb + j], t0, sizeof t0),
                    axe__iter_text(&kg->shard[ks[d] + j], t1, sizeof t1));
        AXE_TRY(push_block(res, sg->shard, ub, ub + uc));
    }
    *found = true;
    return AXE_OK;
}

/* Whether L + R (in the order of "q") equals the canonical sum. */
static axe_status check_sum(const sum_query *q, const axe_layout *unknown,
                            const int64_t *ushape, bool *ok, axe_diag *diag)
{
    axe_layout s;
    const axe_layout *l = q->right ? unknown : q->known;
    const axe_layout *r = q->right ? q->known : unknown;
    const int64_t *ls = q->right ? ushape : q->kshape;
    const int64_t *rs = q->right ? q->kshape : ushape;
    axe_status st = sum_plain(l, ls, r, rs, q->n, &s, NULL);
    if (st == AXE_ERR_OVERFLOW || st == AXE_ERR_CAPACITY)
        return axe__fail(diag, st, -1, "re-summing the candidate failed");
    *ok = st == AXE_OK && axe_layout_equal(&s, q->sum);
    return AXE_OK;
}

/* The unknown side of "q" (operands plain and canonical). */
static axe_status recover(const sum_query *q, axe_layout *out, bool *found,
                          axe_diag *diag)
{
    axe_layout sg, kg, res;
    int ss[AXE__SEPS_MAX], ks[AXE__SEPS_MAX];
    int64_t ushape[AXE_LAYOUT_MAX_DIMS];
    bool all, ok = false;
    AXE_TRY(axe_layout_group(q->sum, q->inter, 2 * q->n, &sg, ss, diag));
    AXE_TRY(axe_layout_group(q->known, q->kshape, q->n, &kg, ks, diag));
    axe__layout_clear(&res);
    AXE_TRY(take_blocks(q, &sg, ss, &kg, ks, &res, found, diag));
    if (!*found)
        return AXE_OK;
    AXE_TRY(axe__factor_rest(q->sum, q->known, &res, &all));
    if (!all)
        return axe__not_found(found, diag,
                              "a replica of the known operand is not one of "
                              "the sum");
    for (int d = 0; d < q->n; d++)
        ushape[d] = q->inter[2 * d + (q->right ? 0 : 1)];
    AXE_TRY(check_sum(q, &res, ushape, &ok, diag));
    if (!ok)
        return axe__not_found(found, diag,
                              "the candidate does not sum back to the sum");
    axe__layout_copy(out, &res);
    return AXE_OK;
}

/* Both sides of a recovery as plain canonical layouts (spec §11: the
 * swizzles must be equal, trivial tiles become identities), or not found. */
static axe_status prepare(const axe_layout *known, const int64_t *kshape,
                          const axe_layout *sum, const int64_t *inter, int n,
                          axe_layout *kc, axe_layout *sc, bool *found,
                          axe_diag *diag)
{
    axe_layout kbuf, sbuf;
    const axe_layout *kt, *st;
    *found = true;
    if (!axe__swizzle_same(&known->swizzle, &sum->swizzle))
        return axe__not_found(found, diag,
                              "the sum and the operand do not have the same "
                              "swizzle");
    AXE_TRY(axe__plain_tile(known, kshape, n, &kbuf, &kt, diag));
    AXE_TRY(axe__plain_tile(sum, inter, 2 * n, &sbuf, &st, diag));
    AXE_TRY(axe_layout_canonicalize(kt, AXE_TARGET_NONE, kc, diag));
    return axe_layout_canonicalize(st, AXE_TARGET_NONE, sc, diag);
}

static axe_status run_recovery(const axe_layout *known, const axe_layout *sum,
                               const int64_t *inter, const int64_t *kshape,
                               int n, bool right, axe_layout *out, bool *found,
                               axe_diag *diag)
{
    axe_layout kc, sc, res;
    sum_query q;
    bool f;
    AXE_TRY(check_rank(n, diag));
    AXE_TRY(prepare(known, kshape, sum, inter, n, &kc, &sc, &f, diag));
    if (f) {
        q = (sum_query){&kc, &sc, inter, kshape, n, right};
        AXE_TRY(recover(&q, &res, &f, diag));
    }
    if (f)
        axe__layout_copy(out, &res);
    *found = f;
    return AXE_OK;
}

/* Given B = "b" and the sum over "interleaved" (2n dims), the A with
 * A + B = sum (TIRx B.is_direct_sum_right), not canonicalized. */
axe_status axe_layout_is_direct_sum_right(const axe_layout *b,
                                          const axe_layout *sum,
                                          const int64_t *interleaved,
                                          const int64_t *b_shape, int n,
                                          axe_layout *a_out, bool *found,
                                          axe_diag *diag)
{
    return run_recovery(b, sum, interleaved, b_shape, n, true, a_out, found,
                        diag);
}

/* Given A = "a" and the sum over "interleaved" (2n dims), the B with
 * A + B = sum (TIRx A.is_direct_sum_left), not canonicalized. */
axe_status axe_layout_is_direct_sum_left(const axe_layout *a,
                                         const axe_layout *sum,
                                         const int64_t *interleaved,
                                         const int64_t *a_shape, int n,
                                         axe_layout *b_out, bool *found,
                                         axe_diag *diag)
{
    return run_recovery(a, sum, interleaved, a_shape, n, false, b_out, found,
                        diag);
}
