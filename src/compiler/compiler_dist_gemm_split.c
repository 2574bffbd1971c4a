/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A device gemm's replicated partial sums split over their replicas
 * (docs/compiler.md, "Distributed tensors"; the plan itself is
 * compiler_dist_gemm.c's): where A and B as the local GEMMs use them
 * both replicate fine digits, every replica would compute the same
 * partial sums, so one of M (a copy of A), N (a copy of B) or K (copies
 * of both) is split over those digits, whichever divides and receives
 * the fewest elements per device under the transfer rule (ties M, N,
 * K); the reduce into C then gathers or sums the pieces. Where none of
 * those divides, the digits' prime factors split M, N and K between
 * them (mixed_split: the most replicas that divide, then the fewest
 * elements received), the factors left over still replicating.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist_gemm.h"

/* The fine digits of the operands plan "g" uses, and their tokens. */
typedef struct pair {
    ax_dist_fine f;
    ax_dist_dims d[2];
} pair;

/* The operands of "g" as tokens in "pr", and the fine digits both
 * replicate (outer first) in g->rep, their product in g->rep_r. */
static axe_status pair_of(const axe_program *p, const ax_stmt *s,
                          ax_dist_gemm *g, pair *pr, axe_diag *diag)
{
    int i, w;
    memset(&pr->f, 0, sizeof pr->f);
    for (w = 1; w <= 2; w++)
        axe__dist_fine_of(&axe__dist_gemm_operand(p, s, g, w)->glayout, &pr->f);
    for (w = 1; w <= 2; w++)
        AXE_TRY(axe__dist_dims_of(axe__dist_gemm_operand(p, s, g, w), &pr->f,
                                  &pr->d[w - 1], diag));
    g->nrep = 0;
    g->rep_r = 1;
    for (i = pr->f.n - 2; i >= 0; i--)
        if (axe__dist_role(&pr->d[0], pr->f.b[i]) == 2 &&
            axe__dist_role(&pr->d[1], pr->f.b[i]) == 2) {
            g->rep[g->nrep] = pr->f.b[i];
            g->rep_ext[g->nrep] = pr->f.b[i + 1] / pr->f.b[i];
            g->rep_r *= g->rep_ext[g->nrep++];
        }
    return AXE_OK;
}

/* Whether fine digit "b" is one of the "n" strides "s". */
static bool in_list(const int64_t *s, int n, int64_t b)
{
    int i;
    for (i = 0; i < n && s[i] != b; i++)
        ;
    return i < n;
}

/* Dim "dim" of "d" split over the "n" fine digits of strides "s" and
 * extents "e" (outer first, product "r"): its outermost memory token
 * that r divides becomes those digits (outer first) and the rest in
 * memory, and "d" no longer replicates them; false where no memory
 * token divides. */
static bool split_tok(ax_dist_dims *d, int dim, const int64_t *s,
                      const int64_t *e, int n, int64_t r)
{
    ax_dist_tok *t = d->t[dim];
    int i, j, m = d->n[dim];
    for (i = 0; i < m && (t[i].dev != 0 || t[i].ext % r != 0); i++)
        ;
    if (i == m || m + n > 2 * AXE_LAYOUT_MAX_SHARD)
        return false;
    memmove(&t[i + n], &t[i], (size_t)(m - i) * sizeof *t);
    for (j = 0; j < n; j++)
        t[i + j] = (ax_dist_tok){e[j], s[j]};
    t[i + n].ext /= r;
    d->n[dim] += n;
    if (t[i + n].ext == 1) /* the run is all on the digits */
        memmove(&t[i + n], &t[i + n + 1],
                (size_t)(--d->n[dim] - i - n) * sizeof *t);
    for (i = j = 0; i < d->nrep; i++)
        if (!in_list(s, n, d->rep[i]))
            d->rep[j++] = d->rep[i];
    d->nrep = j;
    return true;
}

/* "out": operand "x" copied to the placement of tokens "d" over fine
 * digits "f", stored row-major [rows, Kloc] on each device. */
static axe_status tensor_of(const ax_dist_fine *f, const ax_dist_dims *d,
                            const ax_tensor *x, ax_tensor *out)
{
    int64_t kloc = axe__dist_mem_elems(d, 1);
    axe_diag why;
    int i;
    *out = *x;
    axe_layout_init(&out->glayout);
    AXE_TRY(axe__dist_push_dim(&out->glayout, d, 0, kloc));
    AXE_TRY(axe__dist_push_dim(&out->glayout, d, 1, 1));
    for (i = 0; i < d->nrep; i++)
        AXE_TRY(axe_layout_push_replica(&out->glayout,
                                        axe__dist_fine_ext(f, d->rep[i]),
                                        d->rep[i], "gpuid"));
    if (d->goff != 0)
        AXE_TRY(axe_layout_add_offset(&out->glayout, "gpuid", d->goff));
    out->shape[0] = axe__dist_mem_elems(d, 0);
    out->shape[1] = kloc;
    out->span = out->shape[0] * kloc;
    AXE_TRY(axe_layout_row_major(out->shape, 2, &out->layout));
    return axe_layout_group(&out->layout, out->shape, 2, &out->grouped,
                            out->seps, &why);
}

/* The most elements any device receives under plan "g" by the transfer
 * rule: its copies first and the reduce of the partial sums into C (a
 * planner's refusal: its reason in "why"). */
static axe_status plan_cost(const axe_program *p, const ax_stmt *s,
                            const ax_dist_gemm *g, int64_t *cost, axe_diag *why)
{
    ax_dist_plan *pl = malloc(sizeof *pl);
    int64_t *v = calloc(3 * (size_t)p->ndev, sizeof *v), k;
    axe_status st = pl != NULL && v != NULL ? AXE_OK : AXE_ERR_NO_MEMORY;
    int w;
    for (w = 0; w <= 2 && st == AXE_OK; w++) {
        if (w > 0 && !(g->copied & w))
            continue;
        st = w > 0 ? axe__dist_gemm_copy_plan(p, s, g, w, pl, why)
                   : axe__dist_plan_reduce(g->part.gshape, 3, &g->part.glayout,
                                           &axe__devop_tensor(p, s, 0)->glayout,
                                           0, AX_RED_SUM, p->ndev, pl, why);
        if (st == AXE_OK)
            st = axe__dist_bytes_all(pl, 1, v + p->ndev, v + 2 * p->ndev);
        for (k = 0; st == AXE_OK && k < p->ndev; k++)
            v[k] += v[2 * p->ndev + k];
    }
    for (k = 0, *cost = 0; st == AXE_OK && k < p->ndev; k++)
        *cost = v[k] > *cost ? v[k] : *cost;
    free(pl);
    free(v);
    return st;
}

/* "out" (from "g" with the tokens "q" split by split_tok): the operands
 * of mask "copy" (1 A, 2 B) copied, their tensors, plan and cost; where it does
 * not plan, the status with the reason in "why". */
static axe_status split_plan(const axe_program *p, const ax_stmt *s,
                             const pair *q, int copy, ax_dist_gemm *out,
                             int64_t *cost, axe_diag *why)
{
    axe_diag refusal;
    axe_status st;
    int w;
    for (w = 1; w <= 2; w++)
        if ((copy & w) &&
            (st = tensor_of(&q->f, &q->d[w - 1], axe__devop_tensor(p, s, w),
                            &out->moved[w - 1])) != AXE_OK)
            return axe__fail(why, st, s->off,
                             "the split's copy of %s has no layout (%s)",
                             w == 1 ? "A" : "B", axe_status_name(st));
        else if (copy & w)
            out->copied |= w;
    st = axe__dist_gemm_pair(p, s, axe__dist_gemm_operand(p, s, out, 1),
                             axe__dist_gemm_operand(p, s, out, 2), out,
                             &refusal, why);
    if (st == AXE_ERR_UNSUPPORTED)
        return axe__fail(why, st, refusal.offset, "%s", refusal.message);
    if (st == AXE_OK && (st = axe__dist_gemm_finish(p, s, out)) != AXE_OK)
        return axe__fail(why, st, s->off, "the partial sums' layout (%s)",
                         axe_status_name(st));
    return st == AXE_OK ? plan_cost(p, s, out, cost, why) : st;
}

/* "out": plan "g" with dim "how" (1: A's rows, 2: B's rows, 3: K) split
 * over g's replica digits, and its cost. AXE_ERR_UNSUPPORTED with "why"
 * empty where no memory run of the dim divides (or the split's tokens
 * would overflow); where the split divides but does not plan, the
 * status and its reason in "why" (AXE_ERR_NO_MEMORY: out of memory). */
static axe_status split_try(const axe_program *p, const ax_stmt *s,
                            const ax_dist_gemm *g, const pair *pr, int how,
                            ax_dist_gemm *out, int64_t *cost, axe_diag *why)
{
    pair *q = malloc(sizeof *q);
    axe_status st = AXE_ERR_UNSUPPORTED;
    axe_diag_clear(why);
    if (q == NULL)
        return axe__fail(why, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    *q = *pr;
    *out = *g;
    out->split = how;
    if (how == 3
            ? split_tok(&q->d[0], 1, g->rep, g->rep_ext, g->nrep, g->rep_r) &&
                  split_tok(&q->d[1], 1, g->rep, g->rep_ext, g->nrep, g->rep_r)
            : split_tok(&q->d[how - 1], 0, g->rep, g->rep_ext, g->nrep,
                        g->rep_r))
        st = split_plan(p, s, q, how, out, cost, why);
    free(q);
    return st;
}

/* The replica digits of "g" as prime sub-digits, inner first: strides
 * "st", extents "ex"; their count (at most 2 * AXE_LAYOUT_MAX_REPLICA
 * digits of a mesh of at most 1024 devices: 10 primes). */
static int sub_digits(const ax_dist_gemm *g, int64_t *st, int64_t *ex)
{
    int i, n = 0;
    for (i = g->nrep - 1; i >= 0; i--) {
        int64_t b = g->rep[i], x = g->rep_ext[i], q;
        for (q = 2; x > 1 && n < 16; q++)
            for (; x % q == 0 && n < 16; b *= q, x /= q)
                st[n] = b, ex[n++] = q;
    }
    return n;
}

/* Sub-digits [lo, lo + n) of "st", "ex" split dim "dim" of "d" (outer
 * first); true where n is 0. */
static bool split_sub(ax_dist_dims *d, int dim, const int64_t *st,
                      const int64_t *ex, int lo, int n)
{
    int64_t s[16], e[16], r = 1;
    int j;
    for (j = 0; j < n; j++)
        s[j] = st[lo + n - 1 - j], e[j] = ex[lo + n - 1 - j], r *= e[j];
    return n == 0 || split_tok(d, dim, s, e, n, r);
}

/* "out": plan "g" split 4 with the first k[0] sub-digits splitting M,
 * the next k[1] N, the next k[2] K; its cost. AXE_ERR_UNSUPPORTED with
 * "why" empty where a dim's digits divide no memory run. */
static axe_status mixed_try(const axe_program *p, const ax_stmt *s,
                            const ax_dist_gemm *g, const pair *pr,
                            const int64_t *st, const int64_t *ex, const int *k,
                            ax_dist_gemm *out, int64_t *cost, axe_diag *why)
{
    pair *q = malloc(sizeof *q);
    axe_status st_ = AXE_OK;
    int i, w;
    axe_diag_clear(why);
    if (q == NULL)
        return axe__fail(why, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    q->f = pr->f;
    for (i = 0; i < k[0] + k[1] + k[2]; i++) {
        (void)axe__bounds_insert(q->f.b, &q->f.n, AX_DIST_FINE_CAP, st[i]);
        (void)axe__bounds_insert(q->f.b, &q->f.n, AX_DIST_FINE_CAP,
                                 st[i] * ex[i]);
    }
    for (w = 1; w <= 2 && st_ == AXE_OK; w++)
        st_ = axe__dist_dims_of(axe__dist_gemm_operand(p, s, g, w), &q->f,
                                &q->d[w - 1], why);
    *out = *g;
    out->split = 4;
    if (st_ == AXE_OK && split_sub(&q->d[0], 0, st, ex, 0, k[0]) &&
        split_sub(&q->d[1], 0, st, ex, k[0], k[1]) &&
        split_sub(&q->d[0], 1, st, ex, k[0] + k[1], k[2]) &&
        split_sub(&q->d[1], 1, st, ex, k[0] + k[1], k[2]))
        st_ =
            split_plan(p, s, q, (k[0] || k[2] ? 1 : 0) | (k[1] || k[2] ? 2 : 0),
                       out, cost, why);
    else if (st_ == AXE_OK)
        st_ = AXE_ERR_UNSUPPORTED;
    free(q);
    return st_;
}

/* Where no split over all of g's replica digits divides: the split 4
 * over the most of their prime sub-digits that divides and plans, the
 * fewest elements received among those (ties: the first in the order
 * of k[0], then k[1], then k[2] descending); "g" unchanged where none. */
static axe_status mixed_split(const axe_program *p, const ax_stmt *s,
                              ax_dist_gemm *g, const pair *pr,
                              ax_dist_gemm *best, ax_dist_gemm *cand)
{
    int64_t st[16], ex[16], r, top = 1, c, bc = -1;
    int n = sub_digits(g, st, ex), k[3], i;
    axe_status rc;
    axe_diag why;
    for (k[0] = n; k[0] >= 0; k[0]--)
        for (k[1] = n - k[0]; k[1] >= 0; k[1]--)
            for (k[2] = n - k[0] - k[1]; k[2] >= 0; k[2]--) {
                for (i = 0, r = 1; i < k[0] + k[1] + k[2]; i++)
                    r *= ex[i];
                if (r < top || r == 1)
                    continue;
                rc = mixed_try(p, s, g, pr, st, ex, k, cand, &c, &why);
                if (rc == AXE_ERR_NO_MEMORY)
                    return rc;
                if (rc == AXE_OK && (r > top || c < bc)) {
                    *best = *cand, top = r, bc = c;
                    for (i = 0; i < 3; i++)
                        best->split_r[i] = 1;
                    for (i = 0; i < k[0] + k[1] + k[2]; i++)
                        best->split_r[i < k[0]          ? 0
                                      : i < k[0] + k[1] ? 1
                                                        : 2] *= ex[i];
                }
            }
    if (top > 1)
        *g = *best;
    return AXE_OK;
}

/* Where A and B as used both replicate some fine digits, the split of
 * A's rows, B's rows or K over them that receives the fewest elements
 * per device (ties in that order), so that no two devices compute the
 * same partial sums (ax_dist_gemm.split); none where none divides and
 * plans. A split that divides but does not plan is left out, the first
 * one's reason kept (g->split_refused, g->split_why: --explain); out of
 * memory fails. */
axe_status axe__dist_gemm_split(const axe_program *p, const ax_stmt *s,
                                ax_dist_gemm *g, axe_diag *diag)
{
    pair *pr = malloc(sizeof *pr);
    ax_dist_gemm *best = malloc(sizeof *best), *cand = malloc(sizeof *cand);
    int64_t cost[3] = {-1, -1, -1}, c;
    axe_status st = AXE_ERR_NO_MEMORY;
    axe_diag why, refused;
    int how, pick = 0, nref = 0;
    axe_diag_clear(&refused);
    if (pr != NULL && best != NULL && cand != NULL)
        st = pair_of(p, s, g, pr, diag);
    for (how = 1; st == AXE_OK && g->rep_r > 1 && how <= 3; how++) {
        st = split_try(p, s, g, pr, how, cand, &c, &why);
        if (st == AXE_OK && (pick == 0 || c < cost[pick - 1]))
            *best = *cand, pick = how;
        if (st == AXE_OK)
            cost[how - 1] = c;
        else if (st != AXE_ERR_NO_MEMORY && why.message[0] != '\0' && nref == 0)
            refused = why, nref = how;
        st = st == AXE_ERR_NO_MEMORY ? st : AXE_OK;
    }
    if (st == AXE_OK && pick > 0)
        *g = *best;
    else if (st == AXE_OK && g->rep_r > 1 && nref == 0)
        st = mixed_split(p, s, g, pr, best, cand);
    if (st == AXE_OK) {
        memcpy(g->cost, cost, sizeof cost);
        g->split_refused = nref, g->split_why = refused;
    } else if (st == AXE_ERR_NO_MEMORY)
        st = axe__fail(diag, st, s->off, "out of memory");
    free(pr);
    free(best);
    free(cand);
    return st;
}
