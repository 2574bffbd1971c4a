/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A device gemm's replicated partial sums split over their replicas
 * (docs/compiler.md, "Distributed tensors"; the plan itself is
 * compiler_dist_gemm.c's): where A and B as the local GEMMs use them
 * both replicate fine digits, every replica would compute the same
 * partial sums, so one of M (a copy of A), N (a copy of B) or K (copies
 * of both) is split over those digits, whichever divides and receives
 * the fewest elements per device under the transfer rule (ties M, N,
 * K); the reduce into C then gathers or sums the pieces.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist_gemm.h"

/* The fine digits of the operands plan "g" uses, and their tokens. */
typedef struct pair {
    ax_dist_fine f;
    ax_dist_dims d[2];
} pair;

static bool in_rep(const ax_dist_gemm *g, int64_t b)
{
    int i;
    for (i = 0; i < g->nrep && g->rep[i] != b; i++)
        ;
    return i < g->nrep;
}

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

/* Dim "dim" of "d" split over g's replica digits: its outermost memory
 * token that g->rep_r divides becomes those digits (outer first) and
 * the rest in memory, and "d" no longer replicates them; false where
 * no memory token divides. */
static bool split_tok(ax_dist_dims *d, int dim, const ax_dist_gemm *g)
{
    ax_dist_tok *t = d->t[dim];
    int i, j, n = d->n[dim];
    for (i = 0; i < n && (t[i].dev != 0 || t[i].ext % g->rep_r != 0); i++)
        ;
    if (i == n || n + g->nrep > 2 * AXE_LAYOUT_MAX_SHARD)
        return false;
    memmove(&t[i + g->nrep], &t[i], (size_t)(n - i) * sizeof *t);
    for (j = 0; j < g->nrep; j++)
        t[i + j] = (ax_dist_tok){g->rep_ext[j], g->rep[j]};
    t[i + g->nrep].ext /= g->rep_r;
    d->n[dim] += g->nrep;
    if (t[i + g->nrep].ext == 1) /* the run is all on the digits */
        memmove(&t[i + g->nrep], &t[i + g->nrep + 1],
                (size_t)(--d->n[dim] - i - g->nrep) * sizeof *t);
    for (i = j = 0; i < d->nrep; i++)
        if (!in_rep(g, d->rep[i]))
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

/* "out" (from "g" with the tokens "q" split by split_tok): dim "how"
 * split, its copies' tensors, plan and cost; where it does not plan,
 * the status with the reason in "why". */
static axe_status split_plan(const axe_program *p, const ax_stmt *s,
                             const pair *q, int how, ax_dist_gemm *out,
                             int64_t *cost, axe_diag *why)
{
    axe_diag refusal;
    axe_status st;
    int w;
    for (w = 1; w <= 2; w++)
        if ((how == 3 || how == w) &&
            (st = tensor_of(&q->f, &q->d[w - 1], axe__devop_tensor(p, s, w),
                            &out->moved[w - 1])) != AXE_OK)
            return axe__fail(why, st, s->off,
                             "the split's copy of %s has no layout (%s)",
                             w == 1 ? "A" : "B", axe_status_name(st));
        else if (how == 3 || how == w)
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
    if (how == 3 ? split_tok(&q->d[0], 1, g) && split_tok(&q->d[1], 1, g)
                 : split_tok(&q->d[how - 1], 0, g))
        st = split_plan(p, s, q, how, out, cost, why);
    free(q);
    return st;
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
