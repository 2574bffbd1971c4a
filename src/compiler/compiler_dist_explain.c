/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --explain of device operators (docs/compiler.md, "Distributed
 * tensors"): the logical operator, the mesh, each operand's declared
 * layout with the local shard every device stores, and the collective
 * the exchange planner (compiler_dist.c) derives from the layouts, with
 * the bytes each device sends, or the planner's reason when it has no
 * plan.
 */
#include <stdlib.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_backend.h"
#include "compiler_dist.h"

/* "f32[64,128]" of shape "shape". */
static void put_shape(ax_text *t, const ax_tensor *tn, const int64_t *shape)
{
    int d;
    axe__text_put(t, "%s[", axe_dtype_name(tn->dtype));
    for (d = 0; d < tn->ndim; d++)
        axe__text_put(t, "%s%lld", d ? "," : "", (long long)shape[d]);
    axe__text_put(t, "]");
}

static void put_layout(ax_text *t, const axe_layout *l)
{
    char buf[1024];
    (void)axe_print_layout(l, buf, sizeof buf);
    axe__text_put(t, "%s", buf);
}

/* One operand line: its role, name, layout and local shard; a region's
 * also its tensor's and its part of each local shard. */
static void put_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const char *role, int i)
{
    const ax_tensor *tn = axe__devop_tensor(p, s, i);
    const ax_tensor *base = &p->tensors[s->args[i].tensor];
    axe__text_put(t, "  %s %s: ", role, axe__devop_text(p, s, i));
    put_shape(t, tn, tn->gshape);
    axe__text_put(t, " layout ");
    put_layout(t, &tn->glayout);
    if (tn != base) {
        axe__text_put(t, "\n    region of %s: ", base->name);
        put_shape(t, base, base->gshape);
        axe__text_put(t, " layout ");
        put_layout(t, &base->glayout);
        axe__text_put(t, "\n    its part of each local shard: ");
        put_shape(t, tn, tn->shape);
        axe__text_put(t, " layout ");
        put_layout(t, &tn->layout);
        axe__text_put(t, " (in %s's %lld elements of storage)\n", base->name,
                      (long long)base->span);
        return;
    }
    axe__text_put(t, "\n    local shard on each device: ");
    put_shape(t, tn, tn->shape);
    axe__text_put(t, " layout ");
    put_layout(t, &tn->layout);
    axe__text_put(t, " (%lld elements of storage)\n", (long long)tn->span);
}

static void put_mesh(ax_text *t, const axe_program *p)
{
    int k;
    axe__text_put(t, "  mesh: %lld devices (", (long long)p->ndev);
    for (k = 0; k < p->nmesh; k++) {
        if (p->mesh_name[k][0] != '\0')
            axe__text_put(t, "%s%s = %lld", k ? ", " : "", p->mesh_name[k],
                          (long long)p->mesh_extent[k]);
        else
            axe__text_put(t, "%s%lld", k ? ", " : "",
                          (long long)p->mesh_extent[k]);
    }
    axe__text_put(t, "), numbered row-major into gpuid\n");
}

/* The plan of "s" (AXE_OK) or the planner's reason in "why". */
static axe_status plan_of(const axe_program *p, const ax_stmt *s,
                          ax_dist_plan *plan, axe_diag *why)
{
    const ax_tensor *d = axe__devop_tensor(p, s, 0);
    const ax_tensor *src = axe__devop_tensor(p, s, 1);
    if (s->op == AX_OP_COPY)
        return axe__dist_plan_copy(src->gshape, src->ndim, &src->glayout,
                                   &d->glayout, p->ndev, plan, why);
    return axe__dist_plan_reduce(src->gshape, src->ndim, &src->glayout,
                                 &d->glayout, s->rdim, s->rkind, p->ndev, plan,
                                 why);
}

/* The most bytes one device sends and receives under the transfer rule
 * (one pass over the table for every rank). */
static void put_bytes(ax_text *t, const ax_dist_plan *plan, int64_t es)
{
    int64_t *sent = malloc((size_t)plan->ndev * sizeof *sent);
    int64_t *recv = malloc((size_t)plan->ndev * sizeof *recv);
    int64_t r, most_s = 0, most_r = 0;
    if (sent == NULL || recv == NULL)
        t->status = AXE_ERR_NO_MEMORY;
    else if (axe__dist_bytes_all(plan, es, sent, recv) != AXE_OK)
        axe__text_put(t, "  bytes per device: beyond 2^63\n");
    else {
        for (r = 0; r < plan->ndev; r++) {
            most_s = sent[r] > most_s ? sent[r] : most_s;
            most_r = recv[r] > most_r ? recv[r] : most_r;
        }
        axe__text_put(t,
                      "  bytes per device (transfer rule): at most %lld "
                      "sent, %lld received\n",
                      (long long)most_s, (long long)most_r);
    }
    free(sent);
    free(recv);
}

/* The collective and the bytes per device, or the planner's reason. */
static void put_plan(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    ax_dist_plan *plan = malloc(sizeof *plan);
    axe_diag why;
    if (plan == NULL) {
        t->status = AXE_ERR_NO_MEMORY;
        return;
    }
    if (plan_of(p, s, plan, &why) != AXE_OK)
        axe__text_put(t, "  exchange plan: none (%s)\n", why.message);
    else {
        axe__text_put(t, "  collective %s\n", plan->explain);
        put_bytes(t, plan, axe_dtype_size(axe__devop_dtype(p, s)));
    }
    free(plan);
}

/* Operand "which"'s copy under split 4, after put_copy_why's start:
 * its rows and its K split over some of the replicas of the partial
 * sums. */
static void put_mixed_why(ax_text *t, const ax_dist_gemm *g, int which)
{
    int64_t rows = g->split_r[which - 1], k = g->split_r[2];
    if (rows > 1)
        axe__text_put(t, "its rows split over %lld", (long long)rows);
    if (k > 1)
        axe__text_put(t, "%sK over %lld", rows > 1 ? " and " : "",
                      (long long)k);
    if (rows > 1 || k > 1)
        axe__text_put(t, " of the %lld replicas of the partial sums)\n",
                      (long long)g->rep_r);
    else /* copied only to fit: it takes no sub-digit */
        axe__text_put(t, g->fit == 3 ? "K whole)\n" : "its rows whole)\n");
}

/* Why operand "which" of device gemm "s" is copied first: to fit the
 * other operand or C's placement ("fit"), and split over the replicas
 * of the partial sums (ax_dist_gemm.split). */
static void put_copy_why(ax_text *t, const axe_program *p, const ax_stmt *s,
                         const ax_dist_gemm *g, int which)
{
    const char *cn = axe__devop_text(p, s, 0);
    bool rows = g->split == which, k = g->split == 3;
    if (g->split == 4) {
        if (g->fit == 3)
            axe__text_put(t, " (its rows placed as %s's %s, ", cn,
                          which == 1 ? "rows" : "columns");
        else if (g->fit & which)
            axe__text_put(t, " (its K placed as %s's, ",
                          axe__devop_text(p, s, 3 - which));
        else
            axe__text_put(t, " (");
        put_mixed_why(t, g, which);
        return;
    }
    if (g->fit == 3)
        axe__text_put(t, " (its rows placed as %s's %s", cn,
                      which == 1 ? "rows" : "columns");
    else if (g->fit & which)
        axe__text_put(t, " (its K placed as %s's",
                      axe__devop_text(p, s, 3 - which));
    if (rows || k)
        axe__text_put(t,
                      "%s%s split over the %lld replicas of the partial "
                      "sums)\n",
                      g->fit & which ? ", " : " (", rows ? "its rows" : "K",
                      (long long)g->rep_r);
    else if (g->fit == 3 && g->q > 1)
        axe__text_put(t, ", K split over %s's %lld replicas)\n", cn,
                      (long long)g->q);
    else
        axe__text_put(t, g->fit == 3 ? ", K whole)\n" : ", its rows whole)\n");
}

/* Split 4: M, N and K over the prime factors of the replicas. */
static void put_gemm_mixed(ax_text *t, const ax_dist_gemm *g,
                           const char *const *dim)
{
    int64_t r = g->split_r[0] * g->split_r[1] * g->split_r[2];
    int i, n = 0;
    axe__text_put(t,
                  "; %lld divides no memory run of M, N or K, so, over "
                  "their prime factors (inner first; M takes the innermost, N "
                  "the next, K the next, the rest none), ",
                  (long long)g->rep_r);
    for (i = 0; i < 3; i++)
        if (g->split_r[i] > 1)
            axe__text_put(t, "%s%s is split over %lld", n++ ? " and " : "",
                          dim[i], (long long)g->split_r[i]);
    axe__text_put(t,
                  " of them (1/%lld of the multiply-adds each: the most "
                  "replicas that divide, then the fewest elements "
                  "received per device by the transfer rule)",
                  (long long)r);
    if (g->rep_r > r)
        axe__text_put(t, "; the other %lld compute the same partial sums",
                      (long long)(g->rep_r / r));
    axe__text_put(t, "\n");
}

/* Where A and B as the local GEMMs use them both replicate gpuid digits:
 * the split of their partial sums over those replicas, or none. */
static void put_gemm_split(ax_text *t, const ax_dist_gemm *g)
{
    static const char *const dim[3] = {"M (A's rows)", "N (B's rows)", "K"};
    int i;
    axe__text_put(t, "  A and B as used both replicate (");
    for (i = 0; i < g->nrep; i++)
        axe__text_put(t, "%s%lld:%lld@gpuid", i ? ", " : "",
                      (long long)g->rep_ext[i], (long long)g->rep[i]);
    axe__text_put(t,
                  "): their %lld replicas would compute the same partial "
                  "sums",
                  (long long)g->rep_r);
    if (g->split == 0 && g->split_refused > 0) {
        axe__text_put(t,
                      "; no split over them both divides and plans (%s: "
                      "%s), so each computes all of them\n",
                      dim[g->split_refused - 1], g->split_why.message);
        return;
    }
    if (g->split == 0) {
        axe__text_put(t,
                      "; %lld divides no memory run of M, N or K, so each "
                      "computes all of them\n",
                      (long long)g->rep_r);
        return;
    }
    if (g->split == 4) {
        put_gemm_mixed(t, g, dim);
        return;
    }
    axe__text_put(t,
                  ", so %s is split over them (1/%lld of the "
                  "multiply-adds each; elements received per device, "
                  "copies and collective, by the transfer rule:",
                  dim[g->split - 1], (long long)g->rep_r);
    for (i = 0; i < 3; i++)
        if (g->cost[i] < 0 && g->split_refused == i + 1)
            axe__text_put(t, "%s %s none (%s)", i ? "," : "", dim[i],
                          g->split_why.message);
        else if (g->cost[i] < 0)
            axe__text_put(t, "%s %s none", i ? "," : "", dim[i]);
        else
            axe__text_put(t, "%s %s %lld", i ? "," : "", dim[i],
                          (long long)g->cost[i]);
    axe__text_put(t, "; the fewest, M before N before K)\n");
}

/* A device gemm's copies of operands first: why, where to, how. */
static void put_gemm_copy(ax_text *t, const axe_program *p, const ax_stmt *s,
                          const ax_dist_gemm *g)
{
    ax_dist_plan *plan = malloc(sizeof *plan);
    axe_diag why;
    int which;
    if (plan == NULL) {
        t->status = AXE_ERR_NO_MEMORY;
        return;
    }
    if (g->fit > 0)
        axe__text_put(t,
                      "  as placed, no local GEMM fits: device gemm (line "
                      "%d): %s\n",
                      s->line, g->why.message);
    if (g->fit == 3) {
        axe__text_put(t,
                      "  nor a copy of either to the other's placement: %s "
                      "lives on ",
                      axe__devop_text(p, s, 1));
        axe__dist_put_where(t, axe__devop_tensor(p, s, 1), p->ndev);
        axe__text_put(t, ", %s on ", axe__devop_text(p, s, 2));
        axe__dist_put_where(t, axe__devop_tensor(p, s, 2), p->ndev);
        axe__text_put(t, "\n");
    }
    if (g->rep_r > 1)
        put_gemm_split(t, g);
    for (which = 1; which <= 2; which++) {
        if (!(g->copied & which))
            continue;
        axe__text_put(t, "  %s %s is first copied to ",
                      which == 2 && g->copied == 3 ? "and" : "so",
                      axe__devop_text(p, s, which));
        put_layout(t, &g->moved[which - 1].glayout);
        put_copy_why(t, p, s, g, which);
        if (axe__dist_gemm_copy_plan(p, s, g, which, plan, &why) != AXE_OK)
            axe__text_put(t, "  copy plan: none (%s)\n", why.message);
        else {
            axe__text_put(t, "  copy: %s\n", plan->explain);
            put_bytes(t, plan,
                      axe_dtype_size(axe__devop_tensor(p, s, which)->dtype));
        }
    }
    free(plan);
}

/* Where the local GEMMs run: every device, or those holding partial
 * sums (the first 16 named), the others skipping theirs (never a chunked
 * gemm's: compiler_dist.h, axe__dist_gemm_idle). */
static void put_gemm_devices(ax_text *t, const axe_program *p,
                             const ax_dist_gemm *g)
{
    int64_t d, n = 0;
    if (!axe__dist_gemm_idle(g, p->ndev)) {
        axe__text_put(t, "  local GEMM on every device");
        return;
    }
    for (d = 0; d < p->ndev; d++)
        n += axe__dist_gemm_work(g, d) > 0;
    axe__text_put(t,
                  "  local GEMM on the %lld of %lld devices holding partial "
                  "sums (",
                  (long long)n, (long long)p->ndev);
    for (d = 0, n = 0; d < p->ndev; d++)
        if (axe__dist_gemm_work(g, d) > 0 && n++ < 16)
            axe__text_put(t, "%s%lld", n > 1 ? ", " : "", (long long)d);
    axe__text_put(t, "%s; the others skip it)", n > 16 ? ", ..." : "");
}

/* The local GEMM, the partial sums and the collective of device gemm
 * "s" (sema has planned it). */
static void put_gemm(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *c = axe__devop_tensor(p, s, 0);
    const ax_tensor *a = axe__devop_tensor(p, s, 1);
    const char *cn = axe__devop_text(p, s, 0);
    bool mixed = a->dtype != c->dtype; /* f16/bf16 A and B, f32 C */
    ax_dist_gemm *g = malloc(sizeof *g);
    ax_dist_plan *plan = malloc(sizeof *plan);
    axe_diag why;
    bool planned;
    if (g == NULL || plan == NULL || axe__dist_gemm(p, s, g, &why) != AXE_OK) {
        t->status = g == NULL || plan == NULL ? AXE_ERR_NO_MEMORY : t->status;
        free(g);
        free(plan);
        return;
    }
    if (g->copied > 0 || g->rep_r > 1)
        put_gemm_copy(t, p, s, g);
    put_gemm_devices(t, p, g);
    axe__text_put(t,
                  ": partial[%lld,%lld] = "
                  "%s%s_local . %s%s_local^T over its %lld k's of K (in "
                  "increasing k%s%s%s)\n",
                  (long long)g->mloc, (long long)g->nloc,
                  g->copied & 1 ? "copied " : "", axe__devop_text(p, s, 1),
                  g->copied & 2 ? "copied " : "", axe__devop_text(p, s, 2),
                  (long long)g->kloc, mixed ? "; each " : "",
                  mixed ? axe_dtype_name(a->dtype) : "",
                  mixed ? " product exact in f32, summed in f32" : "");
    axe__text_put(t, "  partial sums: ");
    put_shape(t, &g->part, g->part.gshape);
    axe__text_put(t, " layout ");
    put_layout(t, &g->part.glayout);
    planned =
        axe__dist_plan_reduce(g->part.gshape, 3, &g->part.glayout, &c->glayout,
                              0, AX_RED_SUM, p->ndev, plan, &why) == AXE_OK;
    if (g->q > 1)
        axe__text_put(t,
                      "\n    (dim 0: the %lld slices of K that A and B shard "
                      "alike on gpuid; %s = their sum in slice order)\n",
                      (long long)g->q, cn);
    else if (planned && plan->kind == AX_COLL_LOCAL)
        axe__text_put(t,
                      "\n    (K is whole on every device: %s = the "
                      "partial, placed as %s's layout says)\n",
                      cn, cn);
    else if (!planned) /* the reason follows */
        axe__text_put(t,
                      "\n    (K is whole on every device: no sum; each "
                      "element of %s is one device's partial)\n",
                      cn);
    else /* placed otherwise (M or N split: each partial a piece of C) */
        axe__text_put(t,
                      "\n    (K is whole on every device: each element of "
                      "%s is one device's partial, no sum; the collective "
                      "below moves them to %s's placement)\n",
                      cn, cn);
    if (!planned)
        axe__text_put(t, "  exchange plan: none (%s)\n", why.message);
    else {
        axe__text_put(t,
                      "  collective (device reduce of the partial sums "
                      "into %s, sum over dim 0) %s\n",
                      cn, plan->explain);
        put_bytes(t, plan, axe_dtype_size(c->dtype));
    }
    if (s->chunks > 0)
        axe__text_put(t,
                      "  chunks(%d): every device's block of the "
                      "reduce-scatter in %d chunks, chunk i+1 computed "
                      "while chunk i is in flight (--target mpi: "
                      "MPI_Isend/MPI_Irecv), the partials summed in slice "
                      "order (the reference's)\n",
                      s->chunks, s->chunks);
    free(g);
    free(plan);
}

axe_status axe__devop_explain(const axe_program *p, ax_stmt *s)
{
    ax_text t;
    const char *dn = axe__devop_text(p, s, 0), *sn = axe__devop_text(p, s, 1);
    bool gemm = s->op == AX_OP_GEMM;
    axe__text_init(&t, p->arena);
    axe__text_put(&t, "device op %d (line %d%s%s): device %s(%s, %s", s->index,
                  s->line, s->iter != NULL ? ", " : "",
                  s->iter != NULL ? s->iter : "", axe__op_name(s->op), dn, sn);
    if (s->op == AX_OP_REDUCE)
        axe__text_put(&t, ", %s, %d", axe__red_name(s->rkind), s->rdim);
    if (gemm)
        axe__text_put(&t, ", %s", axe__devop_text(p, s, 2));
    axe__text_put(&t, ")\n");
    put_mesh(&t, p);
    put_operand(&t, p, s, "dst", 0);
    put_operand(&t, p, s, gemm ? "lhs" : "src", 1);
    if (gemm) {
        put_operand(&t, p, s, "rhs", 2);
        axe__text_put(&t, "  C[m,n] = sum over k of A[m,k]*B[n,k], written "
                          "to every device holding [m,n] of C\n");
        put_gemm(&t, p, s);
    } else if (s->op == AX_OP_COPY)
        axe__text_put(&t,
                      "  every device holding an element of %s gets "
                      "%s's value of it\n",
                      dn, sn);
    else
        axe__text_put(&t,
                      "  every device holding an element of %s gets the "
                      "%s of %s over dim %d, combined in order of the "
                      "dim\n",
                      dn, axe__red_name(s->rkind), sn, s->rdim);
    if (!gemm)
        put_plan(&t, p, s);
    if (axe__backend_of(p)->devop_explain != NULL)
        axe__backend_of(p)->devop_explain(&t, p, s);
    s->explain = t.buf;
    return t.status;
}
