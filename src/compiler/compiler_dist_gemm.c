/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `device gemm(C, A, B)` (docs/compiler.md, "Distributed tensors"):
 * C[m,n] = sum_k A[m,k]*B[n,k] over whole distributed tensors, planned
 * from the layouts as a local GEMM on every device plus the collective
 * C's layout demands. The device digits of A and B (their gpuid iters
 * and replicas, refined at every boundary either one has, so that each
 * "fine digit" is one stride and extent) each play one role per operand:
 * a digit of dim 0 (M in A, N in B), of K (dim 1), or a replica. Then
 *   - K: A and B place K alike (the same fine digits and memory runs in
 *     the same order), so the k's a device holds of A are those it holds
 *     of B and the local GEMM multiplies matching slices: device d holds
 *     slice q of K, q the row-major index of K's fine digits on d;
 *   - a digit of A's M is a replica of B, one of B's N a replica of A
 *     (a digit that splits M in A and N in B would leave each device only
 *     matching blocks of M and N: refused, as is anything else);
 * and every device computes, with its local shards, the partial sums of
 * its slice q for its rows of M and N: the tensor "partial" of logical
 * shape [Q, M, N] whose dim 0 is K's fine digits, dim 1 A's dim 0 and
 * dim 2 B's dim 0, replicated over the digits both A and B replicate,
 * stored densely row-major [Mloc, Nloc] on each device. C is then the
 * device reduce (sum, dim 0) of the partial into C's layout: the
 * exchange planner's reduce-scatter, all-reduce, reduce or exchange, or
 * nothing to move when Q = 1 and C is placed as the partial is.
 * A and B may lie on part of the mesh alike (the same gpuid offset; the
 * partial then has it too): a device outside, or set on a fine digit
 * neither uses, holds no partial sums, and the backends skip its local
 * GEMM (axe__dist_gemm_work).
 * Where A and B as placed fit no local GEMM, one is first copied (a
 * device copy, "mirror"): B to the placement that fits A (K placed as
 * A's, its rows whole, replicated over A's other fine digits, stored
 * row-major [N, Kloc]), else A to the one that fits B; where neither
 * takes a copy of the other (each lives on one device or at a gpuid
 * offset), both are copied to C's placement ("to_c": A's rows placed as
 * C's rows, B's as C's columns, K whole, each replicated over C's other
 * dim's fine digits and C's replicas, at C's gpuid offset): every device
 * holding elements of C computes them, Q = 1 and the partial is placed
 * as C; or, where C's replicas divide K and the all-reduce moves no more
 * than the copies save (k_split), K split over C's replica digits
 * instead of replicating the copies there: Q = C's replicas, each holder
 * computes its slice of K of its block, and the partial all-reduces into
 * C.
 * Where A and B as used then both replicate fine digits (the partial
 * is replicated there), one of M, N and K is split over those digits
 * by a copy of the operand(s) placing it (compiler_dist_gemm_split.c:
 * the split that divides and receives the fewest elements per device,
 * ties M, N, K), so that no two devices compute the same partial sums;
 * the reduce into C gathers or sums them.
 * Summation order (the reference's, exact): each partial in increasing
 * k, the partials in increasing q.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist_gemm.h"

static bool on_gpuid(const char *axis) { return strcmp(axis, "gpuid") == 0; }

void axe__dist_fine_of(const axe_layout *l, ax_dist_fine *f)
{
    int i;
    for (i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        if (on_gpuid(it->axis) && it->extent > 1) {
            (void)axe__bounds_insert(f->b, &f->n, AX_DIST_FINE_CAP, it->stride);
            (void)axe__bounds_insert(f->b, &f->n, AX_DIST_FINE_CAP,
                                     it->stride * it->extent);
        }
    }
}

/* Appends the fine digits of gpuid iter (ext, stride), outer first, to
 * "out" (strides only; the extent of digit b is its next boundary / b). */
static int fine_split(const ax_dist_fine *f, int64_t ext, int64_t stride,
                      int64_t *out)
{
    int i, n = 0;
    for (i = f->n - 2; i >= 0; i--)
        if (f->b[i] >= stride && f->b[i] < stride * ext)
            out[n++] = f->b[i];
    return n;
}

int64_t axe__dist_fine_ext(const ax_dist_fine *f, int64_t b)
{
    int i;
    for (i = 0; i + 1 < f->n && f->b[i] != b; i++)
        ;
    return f->b[i + 1] / b;
}

static void push_tok(ax_dist_dims *d, int dim, int64_t ext, int64_t dev)
{
    ax_dist_tok *t = d->t[dim];
    int n = d->n[dim];
    if (dev == 0 && n > 0 && t[n - 1].dev == 0)
        t[n - 1].ext *= ext; /* one run of memory iters */
    else
        t[d->n[dim]++] = (ax_dist_tok){ext, dev};
}

/* The tokens of "x" (2 dims) over the fine digits "f". */
axe_status axe__dist_dims_of(const ax_tensor *x, const ax_dist_fine *f,
                             ax_dist_dims *d, axe_diag *diag)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], dim, i, j, n;
    int64_t b[2 * AXE_LAYOUT_MAX_SHARD + 2];
    axe_diag why;
    memset(d, 0, sizeof *d);
    if (axe_layout_group(&x->glayout, x->gshape, x->ndim, &g, seps, &why))
        return axe__fail(diag, AXE_ERR_INVALID, x->off,
                         "the layout of '%s' does not admit its shape: %s",
                         x->name, why.message);
    for (dim = 0; dim < 2; dim++)
        for (i = seps[dim]; i < seps[dim + 1]; i++) {
            const axe_iter *it = &g.shard[i];
            if (it->extent == 1)
                continue;
            if (!on_gpuid(it->axis)) {
                push_tok(d, dim, it->extent, 0);
                continue;
            }
            d->placed = true;
            n = fine_split(f, it->extent, it->stride, b);
            for (j = 0; j < n; j++)
                push_tok(d, dim, axe__dist_fine_ext(f, b[j]), b[j]);
        }
    for (i = 0; i < x->glayout.nreplica; i++)
        if (x->glayout.replica[i].extent > 1) {
            d->placed = true;
            d->nrep +=
                fine_split(f, x->glayout.replica[i].extent,
                           x->glayout.replica[i].stride, d->rep + d->nrep);
        }
    for (i = 0; i < x->glayout.noffset; i++)
        if (on_gpuid(x->glayout.offset[i].axis))
            d->goff += x->glayout.offset[i].value;
    return AXE_OK;
}

/* The role of fine digit "b" in "d": 0 / 1 its dim, 2 a replica, -1 none. */
int axe__dist_role(const ax_dist_dims *d, int64_t b)
{
    int dim, i;
    for (dim = 0; dim < 2; dim++)
        for (i = 0; i < d->n[dim]; i++)
            if (d->t[dim][i].dev == b)
                return dim;
    for (i = 0; i < d->nrep; i++)
        if (d->rep[i] == b)
            return 2;
    return -1;
}

static void put_toks(ax_text *t, const ax_dist_dims *d, int dim)
{
    int i;
    axe__text_put(t, "(");
    for (i = 0; i < d->n[dim]; i++)
        if (d->t[dim][i].dev != 0)
            axe__text_put(t, "%s%lld:%lld@gpuid", i ? ", " : "",
                          (long long)d->t[dim][i].ext,
                          (long long)d->t[dim][i].dev);
        else
            axe__text_put(t, "%s%lld in memory", i ? ", " : "",
                          (long long)d->t[dim][i].ext);
    axe__text_put(t, ")");
}

static bool same_k(const ax_dist_dims *a, const ax_dist_dims *b)
{
    int i;
    if (a->n[1] != b->n[1])
        return false;
    for (i = 0; i < a->n[1]; i++)
        if (a->t[1][i].ext != b->t[1][i].ext ||
            a->t[1][i].dev != b->t[1][i].dev)
            return false;
    return true;
}

static axe_status k_mismatch(const axe_program *p, const ax_stmt *s,
                             const ax_dist_dims *a, const ax_dist_dims *b,
                             axe_diag *why)
{
    const char *an = axe__devop_text(p, s, 1);
    const char *bn = axe__devop_text(p, s, 2);
    ax_text t;
    axe__text_init(&t, p->arena);
    put_toks(&t, a, 1);
    axe__text_put(&t, " in '%s' but ", an);
    put_toks(&t, b, 1);
    axe__text_put(&t, " in '%s'", bn);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, s->off,
                     "K (dim 1) is placed as %s: a device would multiply "
                     "k's of '%s' with other k's of '%s' (device copy one "
                     "of them to the other's K placement first)",
                     t.buf != NULL ? t.buf : "?", an, bn);
}

bool axe__dist_whole_mesh(const axe_layout *l, int64_t ndev)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        if (on_gpuid(it->axis))
            n *= it->extent;
    }
    for (i = 0; i < l->noffset; i++)
        if (on_gpuid(l->offset[i].axis) && l->offset[i].value != 0)
            return false;
    return n == ndev;
}

void axe__dist_put_where(ax_text *t, const ax_tensor *x, int64_t ndev)
{
    const axe_layout *l = &x->glayout;
    int64_t dev = 0;
    bool placed = false;
    int i;
    for (i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        placed = placed || (on_gpuid(it->axis) && it->extent > 1);
    }
    for (i = 0; i < l->noffset; i++)
        if (on_gpuid(l->offset[i].axis))
            dev += l->offset[i].value;
    if (!placed)
        axe__text_put(t, "device %lld only", (long long)dev);
    else if (dev != 0)
        axe__text_put(t, "part of the mesh from device %lld (a gpuid offset)",
                      (long long)dev);
    else if (!axe__dist_whole_mesh(l, ndev))
        axe__text_put(t, "part of the mesh from device 0");
    else
        axe__text_put(t, "the mesh from device 0");
}

/* Every fine digit has a role the local GEMM can use (see the file
 * comment); "f" holds the boundaries. A refusal's reason in "why"
 * (k_mismatch's too) lacks the "device gemm (line N): " of the message
 * (plan_pair's), so the refusal of a copy first can quote it. */
static axe_status check_roles(const axe_program *p, const ax_stmt *s,
                              const ax_dist_fine *f, const ax_tensor *ta,
                              const ax_tensor *tb, const ax_dist_dims *a,
                              const ax_dist_dims *b, axe_diag *why)
{
    const char *an = axe__devop_text(p, s, 1);
    const char *bn = axe__devop_text(p, s, 2);
    ax_text t;
    int i;
    if (a->goff != b->goff) {
        axe__text_init(&t, p->arena);
        axe__text_put(&t, "'%s' lives on ", an);
        axe__dist_put_where(&t, ta, p->ndev);
        axe__text_put(&t, ", '%s' on ", bn);
        axe__dist_put_where(&t, tb, p->ndev);
        return axe__fail(why, AXE_ERR_UNSUPPORTED, s->off,
                         "%s: the local GEMMs need A's and B's parts on the "
                         "same devices (device copy one to the other's "
                         "devices first)",
                         t.buf != NULL ? t.buf : "?");
    }
    if (!same_k(a, b))
        return k_mismatch(p, s, a, b, why);
    for (i = 0; i + 1 < f->n; i++) {
        int ra = axe__dist_role(a, f->b[i]), rb = axe__dist_role(b, f->b[i]);
        /* (-1, -1): a digit neither holds (a gap in their devices, e.g.
         * both copied to a region of C with one): the devices set on it
         * hold nothing and compute nothing; the partial leaves it out. */
        if ((ra == 1 && rb == 1) || (ra == 0 && rb == 2) ||
            (ra == 2 && rb == 0) || (ra == 2 && rb == 2) ||
            (ra == -1 && rb == -1))
            continue;
        return axe__fail(
            why, AXE_ERR_UNSUPPORTED, s->off,
            "the device digit %lld:%lld@gpuid %s (device copy A or B to a "
            "layout replicated on it first)",
            (long long)(f->b[i + 1] / f->b[i]), (long long)f->b[i],
            ra == 0 && rb == 0
                ? "splits the rows of both A (M) and B (N): each device "
                  "would hold only matching blocks of M and N, and its "
                  "local GEMM would miss the other pairs"
                : "is not a digit of K in both A and B, of A's M and a "
                  "replica of B, of B's N and a replica of A, or a "
                  "replica of both");
    }
    return AXE_OK;
}

/* The memory elements of dim "dim" of "d" (its local extent). */
int64_t axe__dist_mem_elems(const ax_dist_dims *d, int dim)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < d->n[dim]; i++)
        if (d->t[dim][i].dev == 0)
            n *= d->t[dim][i].ext;
    return n;
}

/* Pushes dim "dim" of "d" as shard iters of the partial: fine digits on
 * gpuid, memory runs densely, "outer" the stride of its innermost. */
axe_status axe__dist_push_dim(axe_layout *l, const ax_dist_dims *d, int dim,
                              int64_t outer)
{
    int64_t inner = axe__dist_mem_elems(d, dim);
    int i;
    if (d->n[dim] == 0)
        return axe_layout_push_shard(l, 1, 0, "m");
    for (i = 0; i < d->n[dim]; i++) {
        const ax_dist_tok *t = &d->t[dim][i];
        if (t->dev != 0) {
            AXE_TRY(axe_layout_push_shard(l, t->ext, t->dev, "gpuid"));
            continue;
        }
        inner /= t->ext;
        AXE_TRY(axe_layout_push_shard(l, t->ext, inner * outer, "m"));
    }
    return AXE_OK;
}

/* The partial's layout: dim 0 K's fine digits, dim 1 A's M, dim 2 B's
 * N (memory: row-major [Mloc, Nloc]), replicas the fine digits both
 * replicate, at their gpuid offset (A's = B's). */
static axe_status part_layout(const ax_dist_fine *f, const ax_dist_dims *a,
                              const ax_dist_dims *b, ax_dist_gemm *g)
{
    axe_layout *l = &g->part.glayout;
    int i;
    axe_layout_init(l);
    g->mloc = axe__dist_mem_elems(a, 0);
    g->nloc = axe__dist_mem_elems(b, 0);
    g->q = 1;
    for (i = 0; i < a->n[1]; i++)
        if (a->t[1][i].dev != 0) {
            AXE_TRY(axe_layout_push_shard(l, a->t[1][i].ext, a->t[1][i].dev,
                                          "gpuid"));
            g->q *= a->t[1][i].ext;
        }
    if (g->q == 1)
        AXE_TRY(axe_layout_push_shard(l, 1, 0, "m"));
    AXE_TRY(axe__dist_push_dim(l, a, 0, g->nloc));
    AXE_TRY(axe__dist_push_dim(l, b, 0, 1));
    for (i = 0; i + 1 < f->n; i++)
        if (axe__dist_role(a, f->b[i]) == 2 && axe__dist_role(b, f->b[i]) == 2)
            AXE_TRY(axe_layout_push_replica(l, f->b[i + 1] / f->b[i], f->b[i],
                                            "gpuid"));
    return a->goff != 0 ? axe_layout_add_offset(l, "gpuid", a->goff) : AXE_OK;
}

/* The plan of A and B as they are placed ("a", "b": the operands or a
 * copy of one): the partial's layout in "g", or the placement's
 * refusal (AXE_ERR_UNSUPPORTED: its reason in "why" too, without the
 * message's "device gemm (line N): "). */
axe_status axe__dist_gemm_pair(const axe_program *p, const ax_stmt *s,
                               const ax_tensor *a, const ax_tensor *b,
                               ax_dist_gemm *g, axe_diag *why, axe_diag *diag)
{
    ax_dist_fine f = {0};
    ax_dist_dims *da = malloc(sizeof *da), *db = malloc(sizeof *db);
    axe_status st = AXE_ERR_NO_MEMORY;
    axe__dist_fine_of(&a->glayout, &f);
    axe__dist_fine_of(&b->glayout, &f);
    if (da != NULL && db != NULL)
        st = axe__dist_dims_of(a, &f, da, diag);
    if (st == AXE_OK)
        st = axe__dist_dims_of(b, &f, db, diag);
    if (st == AXE_OK &&
        (st = check_roles(p, s, &f, a, b, da, db, why)) != AXE_OK)
        st = axe__fail(diag, st, why->offset, "device gemm (line %d): %s",
                       s->line, why->message);
    if (st == AXE_OK && part_layout(&f, da, db, g) != AXE_OK)
        st = axe__fail(diag, AXE_ERR_CAPACITY, s->off,
                       "device gemm (line %d): the partial sums' layout "
                       "needs more than %d shard or %d replica iters",
                       s->line, AXE_LAYOUT_MAX_SHARD, AXE_LAYOUT_MAX_REPLICA);
    else if (st == AXE_ERR_NO_MEMORY)
        st = axe__fail(diag, st, s->off, "out of memory");
    free(da);
    free(db);
    return st;
}

/* "out": "x" (B when "from" is A, or A when "from" is B) copied to the
 * placement that fits "from": its K placed as from's, its rows whole on
 * every device, replicated over from's other device digits; stored
 * row-major [rows, Kloc] on each device. */
static axe_status mirror(const ax_tensor *from, const ax_tensor *x,
                         ax_tensor *out)
{
    ax_dist_fine f = {0};
    ax_dist_dims d;
    int64_t kloc;
    int i;
    axe_diag why;
    axe__dist_fine_of(&from->glayout, &f);
    AXE_TRY(axe__dist_dims_of(from, &f, &d, &why));
    if (!d.placed || d.goff != 0)
        return AXE_ERR_UNSUPPORTED;
    *out = *x;
    kloc = axe__dist_mem_elems(&d, 1);
    axe_layout_init(&out->glayout);
    AXE_TRY(axe_layout_push_shard(&out->glayout, x->gshape[0], kloc, "m"));
    AXE_TRY(axe__dist_push_dim(&out->glayout, &d, 1, 1));
    for (i = 0; i + 1 < f.n; i++)
        if (axe__dist_role(&d, f.b[i]) != 1)
            AXE_TRY(axe_layout_push_replica(&out->glayout, f.b[i + 1] / f.b[i],
                                            f.b[i], "gpuid"));
    out->shape[0] = x->gshape[0];
    out->shape[1] = kloc;
    out->span = x->gshape[0] * kloc;
    AXE_TRY(axe_layout_row_major(out->shape, 2, &out->layout));
    return axe_layout_group(&out->layout, out->shape, 2, &out->grouped,
                            out->seps, &why);
}

/* The product of the extents of C's replica digits over which both
 * copies to C's placement split K ("d": C's tokens over its fine digits
 * "f"; "k": K), or 1 for K whole. Split where the replicas r divide K
 * and the split moves no more bytes than K whole under the transfer
 * rule: each holder of C's local [Mloc, Nloc] block then receives
 * (Mloc + Nloc) K / r elements of the copies plus the r - 1 other
 * partial sums of its block (the all-reduce), against (Mloc + Nloc) K,
 * that is where r Mloc Nloc <= (Mloc + Nloc) K; it always does 1 / r of
 * the multiply-adds. Otherwise K stays whole in the copies, and
 * split_replicas splits the partial sums replicated over C's replicas
 * whenever a split divides, even where that moves more bytes than every
 * replica computing all of them (1/r of the compute for the bytes:
 * docs/compiler.md, the decision, its measurement and its limits: this
 * rule weighs bytes only, no compute term). */
static int64_t k_split(const ax_dist_fine *f, const ax_dist_dims *d, int64_t k)
{
    int64_t r = 1, m = axe__dist_mem_elems(d, 0), n = axe__dist_mem_elems(d, 1);
    int i;
    for (i = 0; i + 1 < f->n; i++)
        if (axe__dist_role(d, f->b[i]) == 2)
            r *= f->b[i + 1] / f->b[i];
    if (r > 1 && k % r == 0 && r * m * n <= (m + n) * k)
        return r;
    return 1;
}

/* "out": operand "x" (A when "dim" is 0, B when 1) copied to the
 * placement of C's dim "dim": its rows placed as C's (C's device digits
 * of the dim, its memory runs densely), replicated over the device
 * digits of C's other dim (none on a digit C leaves out), at C's gpuid
 * offset; K whole in memory and replicated over C's replicas too, or,
 * where k_split says so, K split over C's replica digits (outer first,
 * then K / r in memory); stored row-major [rows, Kloc] on each device.
 * A and B so placed fit a local GEMM whose partial sums are placed as C
 * (K whole) or sum into C over its replicas (an all-reduce). */
static axe_status to_c(const ax_tensor *c, const ax_tensor *x, int dim,
                       ax_tensor *out)
{
    ax_dist_fine f = {0};
    ax_dist_dims d;
    int64_t k = x->gshape[1], r, kloc;
    int i;
    axe_diag why;
    axe__dist_fine_of(&c->glayout, &f);
    AXE_TRY(axe__dist_dims_of(c, &f, &d, &why));
    r = k_split(&f, &d, k);
    kloc = k / r;
    *out = *x;
    axe_layout_init(&out->glayout);
    AXE_TRY(axe__dist_push_dim(&out->glayout, &d, dim, kloc));
    for (i = f.n - 2; r > 1 && i >= 0; i--)
        if (axe__dist_role(&d, f.b[i]) == 2)
            AXE_TRY(axe_layout_push_shard(&out->glayout, f.b[i + 1] / f.b[i],
                                          f.b[i], "gpuid"));
    AXE_TRY(axe_layout_push_shard(&out->glayout, kloc, 1, "m"));
    for (i = 0; i + 1 < f.n; i++) {
        /* Replicated over C's other dim (and C's replicas where K is
         * whole) only: a digit C does not use (role -1: a gap in C's
         * devices) holds nothing of C, so the copy leaves it out too. */
        int ro = axe__dist_role(&d, f.b[i]);
        if ((ro == 2 && r == 1) || ro == 1 - dim)
            AXE_TRY(axe_layout_push_replica(&out->glayout, f.b[i + 1] / f.b[i],
                                            f.b[i], "gpuid"));
    }
    if (d.goff != 0)
        AXE_TRY(axe_layout_add_offset(&out->glayout, "gpuid", d.goff));
    out->shape[0] = axe__dist_mem_elems(&d, dim);
    out->shape[1] = kloc;
    out->span = out->shape[0] * kloc;
    AXE_TRY(axe_layout_row_major(out->shape, 2, &out->layout));
    return axe_layout_group(&out->layout, out->shape, 2, &out->grouped,
                            out->seps, &why);
}

/* The partial's tensor fields from its layout. */
static void part_tensor(const ax_tensor *c, const ax_stmt *s, ax_dist_gemm *g)
{
    strcpy(g->part.name, "partial");
    strcpy(g->part.cname, "partial");
    g->part.mem = AX_MEM_GLOBAL;
    g->part.dtype = c->dtype;
    g->part.ndim = 3;
    g->part.gshape[0] = g->q;
    g->part.gshape[1] = c->gshape[0];
    g->part.gshape[2] = c->gshape[1];
    g->part.gsize = g->q * c->gshape[0] * c->gshape[1];
    g->part.shape[0] = 1;
    g->part.shape[1] = g->mloc;
    g->part.shape[2] = g->nloc;
    g->part.span = g->mloc * g->nloc;
    g->part.dist = true;
    g->part.off = s->off;
}

const ax_tensor *axe__dist_gemm_operand(const axe_program *p, const ax_stmt *s,
                                        const ax_dist_gemm *g, int which)
{
    return g->copied & which ? &g->moved[which - 1]
                             : axe__devop_tensor(p, s, which);
}

/* The digits of "dev" on the partial's gpuid iters (fine digits: each
 * stride divides the next one's, so each digit is (r / stride) % extent
 * of r = dev - the gpuid offset, whatever the others): device "dev"
 * holds partial sums exactly when they account for all of r. */
int64_t axe__dist_gemm_work(const ax_dist_gemm *g, int64_t dev)
{
    const axe_layout *l = &g->part.glayout;
    int64_t r = dev;
    int i;
    for (i = 0; i < l->noffset; i++)
        if (on_gpuid(l->offset[i].axis))
            r -= l->offset[i].value;
    for (i = 0; i < l->nshard + l->nreplica && r > 0; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        if (on_gpuid(it->axis) && it->extent > 1)
            r -= r / it->stride % it->extent * it->stride;
    }
    return r == 0 ? g->mloc * g->nloc * g->kloc : 0;
}

bool axe__dist_gemm_idle(const ax_dist_gemm *g, int64_t ndev)
{
    int64_t d;
    for (d = 0; d < ndev; d++)
        if (axe__dist_gemm_work(g, d) == 0)
            return true;
    return false;
}

axe_status axe__dist_gemm_copy_plan(const axe_program *p, const ax_stmt *s,
                                    const ax_dist_gemm *g, int which,
                                    ax_dist_plan *out, axe_diag *diag)
{
    const ax_tensor *x = axe__devop_tensor(p, s, which);
    return axe__dist_plan_copy(x->gshape, 2, &x->glayout,
                               &g->moved[which - 1].glayout, p->ndev, out,
                               diag);
}

/* The plan with the operands of mask "copied" copied first: B to fit A
 * (2), A to fit B (1), or both to C's placement (3). A copy's placement
 * that does not apply is AXE_ERR_UNSUPPORTED (no reason); one that
 * applies but cannot be written fails with its reason. */
static axe_status plan_copied(const axe_program *p, const ax_stmt *s,
                              ax_dist_gemm *g, int copied, axe_diag *diag)
{
    axe_status st;
    axe_diag why;
    int i;
    g->copied = copied;
    for (i = 0; i < 2; i++) {
        if (!(copied & (i + 1)))
            continue;
        st = copied == 3 ? to_c(axe__devop_tensor(p, s, 0),
                                axe__devop_tensor(p, s, i + 1), i, &g->moved[i])
                         : mirror(axe__devop_tensor(p, s, 2 - i),
                                  axe__devop_tensor(p, s, i + 1), &g->moved[i]);
        if (st == AXE_ERR_UNSUPPORTED || st == AXE_ERR_NO_MEMORY)
            return st;
        if (st == AXE_ERR_CAPACITY)
            return axe__fail(diag, st, s->off,
                             "device gemm (line %d): the copy of '%s' %s "
                             "needs more than %d shard or %d replica iters",
                             s->line, axe__devop_text(p, s, i + 1),
                             copied == 3 ? "to C's placement"
                                         : "to fit the other operand",
                             AXE_LAYOUT_MAX_SHARD, AXE_LAYOUT_MAX_REPLICA);
        if (st != AXE_OK)
            return axe__fail(diag, st, s->off,
                             "device gemm (line %d): the copy of '%s' is "
                             "refused (%s)",
                             s->line, axe__devop_text(p, s, i + 1),
                             axe_status_name(st));
    }
    return axe__dist_gemm_pair(p, s, axe__dist_gemm_operand(p, s, g, 1),
                               axe__dist_gemm_operand(p, s, g, 2), g, &why,
                               diag);
}

/* The partial's tensor and the local K of a plan. */
axe_status axe__dist_gemm_finish(const axe_program *p, const ax_stmt *s,
                                 ax_dist_gemm *g)
{
    part_tensor(axe__devop_tensor(p, s, 0), s, g);
    g->kloc = axe__dist_gemm_operand(p, s, g, 1)->shape[1];
    return axe_layout_row_major(g->part.shape, 3, &g->part.layout);
}

/* A and B as placed, else B copied to fit A, else A copied to fit B,
 * else both copied to C's placement. Where no copy fits: as placed's
 * refusal (AXE_ERR_UNSUPPORTED), or where a copy that applied failed
 * otherwise (capacity, memory), its status with both reasons. */
static axe_status plan_gemm(const axe_program *p, const ax_stmt *s,
                            ax_dist_gemm *g, axe_diag *diag)
{
    static const int order[] = {2, 1, 3};
    axe_diag other, worst, placed;
    axe_status st, worst_st = AXE_OK;
    int i;
    memset(g, 0, sizeof *g);
    axe_diag_clear(&worst);
    st = axe__dist_gemm_pair(p, s, axe__devop_tensor(p, s, 1),
                             axe__devop_tensor(p, s, 2), g, &g->why, diag);
    if (st == AXE_ERR_UNSUPPORTED) {
        placed = *diag;
        for (i = 0; i < 3 && st != AXE_OK; i++) {
            axe_diag_clear(&other);
            st = plan_copied(p, s, g, order[i], &other);
            if (st != AXE_OK && st != AXE_ERR_UNSUPPORTED && worst_st == AXE_OK)
                worst_st = st, worst = other;
        }
        if (st != AXE_OK) {
            g->copied = 0;
            if (worst_st == AXE_OK)
                *diag = placed, st = AXE_ERR_UNSUPPORTED;
            else if (worst_st == AXE_ERR_NO_MEMORY)
                st = axe__fail(diag, worst_st, s->off, "out of memory");
            else
                st = axe__fail(diag, worst_st, g->why.offset,
                               "%s; as placed: %s", worst.message,
                               g->why.message);
        }
    }
    AXE_TRY(st);
    g->fit = g->copied;
    AXE_TRY(axe__dist_gemm_finish(p, s, g));
    return s->chunks == 0 ? axe__dist_gemm_split(p, s, g, diag) : AXE_OK;
}

/* A device gemm's plan as its first axe__dist_gemm made it: the plan,
 * the status, and the diag it left ("wrote": it wrote one, also on
 * success, where a copy first follows as placed's refusal). */
struct ax_dist_memo {
    ax_dist_gemm g;
    axe_status st;
    bool wrote;
    axe_diag diag;
};

/* The plan depends on the program's tensors, mesh and the statement's
 * operands only, all fixed once sema has checked the statement (its
 * first call; sema drops a plan made before it resolved the operands),
 * so it is made once per device statement and kept in the program's
 * arena (s->dgemm, written and read through p->devops[s->index], the
 * statement itself): sema, the MPI checks, the emitters, --explain, the
 * reference and the flops count each ask for it. Out of memory is not
 * kept; a statement that is not its program's device operator (a copy
 * of one, `ax_stmt each = *s`, whose operands may differ) is planned
 * each time. */
axe_status axe__dist_gemm(const axe_program *p, const ax_stmt *s,
                          ax_dist_gemm *g, axe_diag *diag)
{
    ax_stmt *w =
        s->index >= 0 && s->index < p->ndevops && p->devops[s->index] == s
            ? p->devops[s->index]
            : NULL;
    struct ax_dist_memo *m = w != NULL ? w->dgemm : NULL;
    if (m == NULL && w != NULL)
        m = axe__arena_alloc(p->arena, sizeof *m);
    if (m == NULL)
        return plan_gemm(p, s, g, diag);
    if (w->dgemm == NULL) {
        axe_diag_clear(&m->diag);
        m->st = plan_gemm(p, s, &m->g, &m->diag);
        m->wrote = m->diag.offset != -1 || m->diag.message[0] != '\0';
        if (m->st != AXE_ERR_NO_MEMORY)
            w->dgemm = m;
    }
    *g = m->g;
    if (m->wrote)
        *diag = m->diag;
    return m->st;
}

axe_status axe__dist_slices(const ax_tensor *t, int dim, int64_t *q)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], i;
    axe_diag why;
    int64_t k;
    AXE_TRY(axe_layout_group(&t->glayout, t->gshape, t->ndim, &g, seps, &why));
    for (k = 0; k < t->gshape[dim]; k++) {
        int64_t x = k, v = 0, radix = 1;
        for (i = seps[dim + 1] - 1; i >= seps[dim]; i--) {
            int64_t digit = x % g.shard[i].extent;
            x /= g.shard[i].extent;
            if (on_gpuid(g.shard[i].axis)) {
                v += digit * radix;
                radix *= g.shard[i].extent;
            }
        }
        q[k] = v;
    }
    return AXE_OK;
}
