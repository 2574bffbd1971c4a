/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI runtime of --target mpi (issue 14 §3): every rank's generated C
 * includes this header (embedded with cmake/embed_text.cmake, written next
 * to the .c by axe run) and calls axe_mpi_exchange once per device
 * operator, with the operator's exchange plan as static data: the digit
 * table of docs/notes' contract (compiler_dist.h's ax_dist_plan, in plain
 * C). Element x (one value per digit) is owned by device
 *   src_dev0 + sum x_i*src_dev_i + sum r_j*src_rep_j.dev
 * for every choice r of the source replica digits, at local address
 *   src_m0 + sum x_i*src_m_i,
 * and held in dst by every device of the same form over the dst strides;
 * a tabled digit (the planner's general case: the two layouts' iters have
 * no common refinement there) contributes its table's entries for x_i
 * instead of x_i times a stride, and is walked as a device digit.
 * The transfer rule (distplan's, mirrored in axe_mpi_sender): a holder
 * that owns x copies it locally; any other holder h receives it once, from
 * the owner whose replica digit j is (h / src_rep_j.dev) % src_rep_j.extent.
 * A reduce (op != AXE_MPI_COPY) combines over the digits marked reduced,
 * in the order of k (the reduced digits' row-major index).
 *
 * Canonical order: the elements one rank sends another travel sorted by
 * the row-major index of x over the digits, so sender and receiver agree
 * without talking. The schedule (per-peer runs of contiguous addresses) is
 * built on the first call and kept in the caller's axe_mpi_sched; the
 * collective is chosen from it, never from names, and agreed by every rank
 * with one MPI_Allreduce at build time:
 *   - nothing crosses ranks: local copies only;
 *   - every rank sends its one contiguous run to all, and receives peer
 *     p's at D + p*n: MPI_Allgather;
 *   - one root sends one run to all, the others receive one run:
 *     MPI_Bcast;
 *   - a reduce whose source is one full partial per device and whose
 *     destination is replicated on every device (MPI_Allreduce) or split
 *     evenly, one piece per device (MPI_Reduce_scatter_block), for f32,
 *     f64 and i32;
 *   - otherwise MPI_Alltoallv, straight from and into the buffers when
 *     every peer's piece is one run, else through pack buffers; a reduce
 *     there receives every k into a scratch buffer and combines locally.
 * Invariant: an error is a nonzero return and a message in "err"; the
 * runtime never prints, never aborts, and frees what it allocated in
 * axe_mpi_sched_free.
 */
#ifndef AXE_COMPILER_MPI_RT_H
#define AXE_COMPILER_MPI_RT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AXE_MPI_MAX_DIGITS 32
#define AXE_MPI_MAX_REPS 16

/* The operator: a copy or a reduce's combining function. */
enum { AXE_MPI_COPY, AXE_MPI_SUM, AXE_MPI_MAX, AXE_MPI_MIN };
/* Element types, in axe_dtype's order. */
enum {
    AXE_MPI_F16,
    AXE_MPI_BF16,
    AXE_MPI_F32,
    AXE_MPI_F64,
    AXE_MPI_I8,
    AXE_MPI_I32,
    AXE_MPI_E4M3,
    AXE_MPI_E5M2
};
/* The paths a schedule takes (axe_mpi_path_name). */
enum {
    AXE_MPI_PATH_LOCAL,
    AXE_MPI_PATH_ALLGATHER,
    AXE_MPI_PATH_BCAST,
    AXE_MPI_PATH_ALLREDUCE,
    AXE_MPI_PATH_REDUCE_SCATTER,
    AXE_MPI_PATH_ALLTOALLV_DIRECT,
    AXE_MPI_PATH_ALLTOALLV,
    /* a float sum's reduce collective in the order of k (axe_mpi_exchange
     * unless AXE_MPI_UNORDERED): MPI_Alltoall(v) of the pieces, each
     * piece's partials folded in the order of k, then (all-reduce)
     * MPI_Allgatherv of the folded pieces */
    AXE_MPI_PATH_REDUCE_SCATTER_ORDERED,
    AXE_MPI_PATH_ALLREDUCE_ORDERED
};

/* A digit; a tabled one (the planner's general case) has strides 0 and
 * "tab": per value v < extent, tab[4v .. 4v+3] = its src device part, src
 * address part, dst device part, dst address part. */
typedef struct axe_mpi_digit {
    int64_t extent;
    int64_t src_dev, src_m;
    int64_t dst_dev, dst_m;
    int32_t dim, reduced;
    const int64_t *tab; /* NULL: the strides */
} axe_mpi_digit;

typedef struct axe_mpi_rep {
    int64_t extent, dev;
} axe_mpi_rep;

typedef struct axe_mpi_plan {
    int32_t ndev, ndigits, nsrc_rep, ndst_rep;
    const axe_mpi_digit *digit;
    const axe_mpi_rep *src_rep, *dst_rep;
    int64_t src_dev0, src_m0, dst_dev0, dst_m0;
    int32_t op, dtype;
    int64_t src_size, dst_size; /* local buffer elements */
} axe_mpi_plan;

/* A run of "len" elements from offset "from" to offset "to". */
typedef struct axe_mpi_run {
    int64_t from, to, len;
} axe_mpi_run;

/* "count" runs of "len" elements, the c-th from from + c*fstep to
 * to + c*tstep: what a strided piece packs as (a column, a cyclic
 * deal). */
typedef struct axe_mpi_block {
    int64_t from, to, len, count, fstep, tstep;
} axe_mpi_block;

typedef struct axe_mpi_list {
    axe_mpi_run *run;
    int64_t n, cap, elems;
    axe_mpi_block *blk; /* the runs as blocks (axe_mpi_list_blocks) */
    int64_t nblk;
} axe_mpi_list;

/* One entry while building: the row-major index of x and two offsets. */
typedef struct axe_mpi_ent {
    int64_t lin, a, b;
} axe_mpi_ent;

typedef struct axe_mpi_ents {
    axe_mpi_ent *e;
    int64_t n, cap;
} axe_mpi_ents;

typedef struct axe_mpi_sched {
    int built, path, P, me, root, esize, own_type, sdirect, rdirect;
    int nohost;   /* built without host buffers (sbuf, rbuf, tmp: NULL) */
    int64_t K, n; /* reduce: combined terms; collective count */
    axe_mpi_list *send, *recv; /* per peer; send: from src, recv: to dst */
    axe_mpi_list local;        /* src -> dst (or scratch) */
    axe_mpi_list pack, unpack; /* reduce collectives; general reduce */
    int64_t *koff;             /* reduce: local k offsets (folded first) */
    int64_t nkoff;
    int fold;       /* a general reduce folds koff on its sends and copies */
    int64_t *kcomb; /* a general reduce: 0 .. K-1, the combine's offsets */
    int *scount, *sdispl, *rcount, *rdispl;
    char *sbuf, *rbuf, *tmp;
    MPI_Datatype type;
    int64_t sent; /* elements this rank sends per call */
} axe_mpi_sched;

static inline const char *axe_mpi_path_name(int path)
{
    static const char *const name[] = {"local",
                                       "MPI_Allgather",
                                       "MPI_Bcast",
                                       "MPI_Allreduce",
                                       "MPI_Reduce_scatter_block",
                                       "MPI_Alltoallv (direct)",
                                       "MPI_Alltoallv",
                                       "MPI_Alltoall + ordered sum",
                                       "MPI_Alltoallv + ordered sum + "
                                       "MPI_Allgatherv"};
    return path >= 0 && path <= AXE_MPI_PATH_ALLREDUCE_ORDERED ? name[path]
                                                               : "?";
}

static inline int axe_mpi_esize(int dtype)
{
    static const int size[] = {2, 2, 4, 8, 1, 4, 1, 1};
    return dtype >= 0 && dtype <= AXE_MPI_E5M2 ? size[dtype] : 0;
}

static inline int axe_mpi_fail(char *err, size_t len, const char *what)
{
    if (err && len)
        snprintf(err, len, "%s", what);
    return 1;
}

/* ---- building ---------------------------------------------------------- */

static inline int axe_mpi_ents_add(axe_mpi_ents *v, int64_t lin, int64_t a,
                                   int64_t b)
{
    if (v->n == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 64;
        axe_mpi_ent *e =
            (axe_mpi_ent *)realloc(v->e, (size_t)cap * sizeof(axe_mpi_ent));
        if (!e)
            return 1;
        v->e = e;
        v->cap = cap;
    }
    v->e[v->n].lin = lin;
    v->e[v->n].a = a;
    v->e[v->n].b = b;
    v->n++;
    return 0;
}

static inline int axe_mpi_ent_cmp(const void *x, const void *y)
{
    const axe_mpi_ent *a = (const axe_mpi_ent *)x;
    const axe_mpi_ent *b = (const axe_mpi_ent *)y;
    if (a->lin != b->lin)
        return a->lin < b->lin ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static inline int axe_mpi_list_add(axe_mpi_list *l, int64_t from, int64_t to)
{
    axe_mpi_run *r = l->n ? &l->run[l->n - 1] : NULL;
    l->elems++;
    if (r && r->from + r->len == from && r->to + r->len == to) {
        r->len++;
        return 0;
    }
    if (l->n == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 8;
        axe_mpi_run *n =
            (axe_mpi_run *)realloc(l->run, (size_t)cap * sizeof(axe_mpi_run));
        if (!n)
            return 1;
        l->run = n;
        l->cap = cap;
    }
    l->run[l->n].from = from;
    l->run[l->n].to = to;
    l->run[l->n].len = 1;
    l->n++;
    return 0;
}

/* The runs of "l" as blocks: consecutive runs of one length whose
 * starts advance by constant steps merge. 1 when memory runs out. */
static inline int axe_mpi_list_blocks(axe_mpi_list *l)
{
    int64_t i = 0, j;
    free(l->blk);
    l->nblk = 0;
    if (!(l->blk = (axe_mpi_block *)malloc((size_t)(l->n ? l->n : 1) *
                                           sizeof(axe_mpi_block))))
        return 1;
    while (i < l->n) {
        const axe_mpi_run *r = &l->run[i];
        axe_mpi_block b = {r->from, r->to, r->len, 1, 0, 0};
        if (i + 1 < l->n && l->run[i + 1].len == r->len) {
            b.fstep = l->run[i + 1].from - r->from;
            b.tstep = l->run[i + 1].to - r->to;
            for (j = i + 1; j < l->n && l->run[j].len == r->len &&
                            l->run[j].from - l->run[j - 1].from == b.fstep &&
                            l->run[j].to - l->run[j - 1].to == b.tstep;
                 j++)
                b.count++;
        }
        l->blk[l->nblk++] = b;
        i += b.count;
    }
    return 0;
}

/* Sorts "v" by (lin, b) and appends its entries to "l" as runs of
 * (from, to): (a, b) for mode 0, (a, position) for 1 (a send), (position,
 * b) for 2 (a receive); the position is the rank in the sorted order. */
static inline int axe_mpi_ents_runs(axe_mpi_ents *v, axe_mpi_list *l, int mode)
{
    int64_t i;
    if (v->n > 1)
        qsort(v->e, (size_t)v->n, sizeof(axe_mpi_ent), axe_mpi_ent_cmp);
    for (i = 0; i < v->n; i++)
        if (axe_mpi_list_add(l, mode == 2 ? i : v->e[i].a,
                             mode == 1 ? i : v->e[i].b))
            return 1;
    free(v->e);
    v->e = NULL, v->n = v->cap = 0;
    return 0;
}

/* The plan's table with its derived row-major strides. */
typedef struct axe_mpi_walk {
    const axe_mpi_plan *p;
    int64_t lstride[AXE_MPI_MAX_DIGITS];
    int64_t kstride[AXE_MPI_MAX_DIGITS]; /* k index over reduced digits */
    int64_t K;
    /* a reduce's reduced digits that are memory digits of the source:
     * each owner folds them into one partial before anything moves, so
     * the walks hold them at 0 and k counts the other reduced digits */
    char rm[AXE_MPI_MAX_DIGITS];
} axe_mpi_walk;

static inline void axe_mpi_walk_init(axe_mpi_walk *w, const axe_mpi_plan *p)
{
    int64_t l = 1, k = 1;
    int i;
    w->p = p;
    for (i = p->ndigits - 1; i >= 0; i--) {
        w->lstride[i] = l;
        l *= p->digit[i].extent;
        w->rm[i] = p->op != AXE_MPI_COPY && p->digit[i].reduced &&
                   p->digit[i].src_dev == 0;
        w->kstride[i] = p->digit[i].reduced && !w->rm[i] ? k : 0;
        if (p->digit[i].reduced && !w->rm[i])
            k *= p->digit[i].extent;
    }
    w->K = k;
}

/* The replica sum of choice index "c" over reps "r" (mixed radix). */
static inline int64_t axe_mpi_rep_sum(const axe_mpi_rep *r, int n, int64_t c)
{
    int64_t s = 0;
    int j;
    for (j = n - 1; j >= 0; j--) {
        s += (c % r[j].extent) * r[j].dev;
        c /= r[j].extent;
    }
    return s;
}

static inline int64_t axe_mpi_rep_count(const axe_mpi_rep *r, int n)
{
    int64_t c = 1;
    int j;
    for (j = 0; j < n; j++)
        c *= r[j].extent;
    return c;
}

/* The sender of element x (whose source owners are base + replica sums)
 * to holder h: the transfer rule above. */
static inline int64_t axe_mpi_sender(const axe_mpi_plan *p, int64_t base,
                                     int64_t h)
{
    int j;
    for (j = 0; j < p->nsrc_rep; j++)
        base += ((h / p->src_rep[j].dev) % p->src_rep[j].extent) *
                p->src_rep[j].dev;
    return base;
}

/* Whether device h owns x (source owners base + replica sums). */
static inline int axe_mpi_owns(const axe_mpi_plan *p, int64_t base, int64_t h)
{
    int64_t c, n = axe_mpi_rep_count(p->src_rep, p->nsrc_rep);
    for (c = 0; c < n; c++)
        if (base + axe_mpi_rep_sum(p->src_rep, p->nsrc_rep, c) == h)
            return 1;
    return 0;
}

/* A visitor of the elements x of one side: "side" 0 enumerates the
 * elements device "me" owns in src, 1 those it holds in dst. Digits with
 * a device stride on that side and the replica digits are walked first
 * (at most the mesh's worth), the others only where the device matches. */
typedef int (*axe_mpi_visit_fn)(void *ctx, const axe_mpi_walk *w,
                                const int64_t *x);

static inline int64_t axe_mpi_dev_stride(const axe_mpi_digit *d, int side)
{
    return side ? d->dst_dev : d->src_dev;
}

/* Whether "d" decides the device on "side": a device stride there, or a
 * table (walked as a device digit on both sides). */
static inline int axe_mpi_dev_digit(const axe_mpi_digit *d, int side)
{
    return d->tab != NULL || axe_mpi_dev_stride(d, side) != 0;
}

/* Value "v" of digit "d"'s device (part 0) or address (part 1) part on
 * "side": its stride times v, or its table's entry. */
static inline int64_t axe_mpi_part(const axe_mpi_digit *d, int side, int part,
                                   int64_t v)
{
    if (d->tab != NULL)
        return d->tab[4 * v + 2 * side + part];
    return v * (side ? (part ? d->dst_m : d->dst_dev)
                     : (part ? d->src_m : d->src_dev));
}

static inline int axe_mpi_walk_mem(const axe_mpi_walk *w, int side, int64_t *x,
                                   axe_mpi_visit_fn f, void *ctx)
{
    const axe_mpi_plan *p = w->p;
    int i;
    for (;;) {
        if (f(ctx, w, x))
            return 1;
        for (i = p->ndigits - 1; i >= 0; i--) {
            if (axe_mpi_dev_digit(&p->digit[i], side) || w->rm[i])
                continue;
            if (++x[i] < p->digit[i].extent)
                break;
            x[i] = 0;
        }
        if (i < 0)
            return 0;
    }
}

static inline int axe_mpi_walk_side(const axe_mpi_walk *w, int side, int64_t me,
                                    axe_mpi_visit_fn f, void *ctx)
{
    const axe_mpi_plan *p = w->p;
    const axe_mpi_rep *rep = side ? p->dst_rep : p->src_rep;
    int nrep = side ? p->ndst_rep : p->nsrc_rep, i;
    int64_t x[AXE_MPI_MAX_DIGITS] = {0}, c, ncomb = 1, dev, t;
    for (i = 0; i < p->ndigits; i++)
        if (axe_mpi_dev_digit(&p->digit[i], side))
            ncomb *= p->digit[i].extent;
    ncomb *= axe_mpi_rep_count(rep, nrep);
    for (c = 0; c < ncomb; c++) {
        t = c;
        dev = (side ? p->dst_dev0 : p->src_dev0) +
              axe_mpi_rep_sum(rep, nrep, t % axe_mpi_rep_count(rep, nrep));
        t /= axe_mpi_rep_count(rep, nrep);
        for (i = p->ndigits - 1; i >= 0; i--) {
            x[i] = 0;
            if (!axe_mpi_dev_digit(&p->digit[i], side))
                continue;
            x[i] = t % p->digit[i].extent;
            t /= p->digit[i].extent;
            dev += axe_mpi_part(&p->digit[i], side, 0, x[i]);
        }
        if (dev == me && axe_mpi_walk_mem(w, side, x, f, ctx))
            return 1;
    }
    return 0;
}

/* Sums of x over one side's strides. */
typedef struct axe_mpi_at {
    int64_t lin, k, src_dev, src_m, dst_dev, dst_m;
} axe_mpi_at;

static inline axe_mpi_at axe_mpi_at_of(const axe_mpi_walk *w, const int64_t *x)
{
    const axe_mpi_plan *p = w->p;
    axe_mpi_at a = {0, 0, p->src_dev0, p->src_m0, p->dst_dev0, p->dst_m0};
    int i;
    for (i = 0; i < p->ndigits; i++) {
        const axe_mpi_digit *d = &p->digit[i];
        a.lin += x[i] * w->lstride[i];
        a.k += x[i] * w->kstride[i];
        if (d->tab != NULL) {
            const int64_t *c = d->tab + 4 * x[i];
            a.src_dev += c[0], a.src_m += c[1];
            a.dst_dev += c[2], a.dst_m += c[3];
            continue;
        }
        a.src_dev += x[i] * d->src_dev;
        a.src_m += x[i] * d->src_m;
        a.dst_dev += x[i] * d->dst_dev;
        a.dst_m += x[i] * d->dst_m;
    }
    return a;
}

/* Where element x lands on its holder: dst_m, or in the scratch buffer
 * of a general reduce (dst_m * K + k). */
static inline int64_t axe_mpi_land(const axe_mpi_walk *w, axe_mpi_at a)
{
    return w->p->op == AXE_MPI_COPY ? a.dst_m : a.dst_m * w->K + a.k;
}

typedef struct axe_mpi_build {
    axe_mpi_sched *s;
    axe_mpi_ents *peer; /* per peer entries */
    axe_mpi_ents local;
    int err;
} axe_mpi_build;

/* Send side: x owned by me; every holder that does not own it and whose
 * sender is me gets it. */
static inline int axe_mpi_visit_send(void *ctx, const axe_mpi_walk *w,
                                     const int64_t *x)
{
    axe_mpi_build *b = (axe_mpi_build *)ctx;
    const axe_mpi_plan *p = w->p;
    axe_mpi_at a = axe_mpi_at_of(w, x);
    int64_t base = a.src_dev, c, n = axe_mpi_rep_count(p->dst_rep, p->ndst_rep);
    for (c = 0; c < n; c++) {
        int64_t h = a.dst_dev + axe_mpi_rep_sum(p->dst_rep, p->ndst_rep, c);
        if (h < 0 || h >= b->s->P) {
            b->err = 2;
            return 1;
        }
        if (axe_mpi_owns(p, base, h) || axe_mpi_sender(p, base, h) != b->s->me)
            continue;
        if (axe_mpi_ents_add(&b->peer[h], a.lin, a.src_m, 0))
            return 1;
    }
    return 0;
}

/* Receive side: x held by me; a local copy if I own it, else an entry
 * from its sender. */
static inline int axe_mpi_visit_recv(void *ctx, const axe_mpi_walk *w,
                                     const int64_t *x)
{
    axe_mpi_build *b = (axe_mpi_build *)ctx;
    const axe_mpi_plan *p = w->p;
    axe_mpi_at a = axe_mpi_at_of(w, x);
    int64_t to = axe_mpi_land(w, a), from;
    if (p->op != AXE_MPI_COPY && a.k == 0 &&
        axe_mpi_list_add(&b->s->unpack, a.dst_m, a.dst_m))
        return 1;
    if (axe_mpi_owns(p, a.src_dev, b->s->me))
        return axe_mpi_ents_add(&b->local, a.lin, a.src_m, to);
    from = axe_mpi_sender(p, a.src_dev, b->s->me);
    if (from < 0 || from >= b->s->P) {
        b->err = 2;
        return 1;
    }
    return axe_mpi_ents_add(&b->peer[from], a.lin, 0, to);
}

/* ---- reduce collectives: one full partial per device --------------- */

/* Whether "base" + the walk over the digits "use" (1 where counted) and
 * the reps covers 0..P-1 exactly once. */
static inline int axe_mpi_bijective(const axe_mpi_plan *p, const int *use,
                                    int side, const axe_mpi_rep *rep, int nrep,
                                    int64_t base)
{
    int64_t n = axe_mpi_rep_count(rep, nrep), c, t, dev, seen = 0;
    int i, ok = 1;
    char *hit;
    for (i = 0; i < p->ndigits; i++)
        if (use[i])
            n *= p->digit[i].extent;
    if (n != p->ndev || !(hit = (char *)calloc((size_t)n, 1)))
        return 0;
    for (c = 0; c < n && ok; c++) {
        t = c;
        dev =
            base + axe_mpi_rep_sum(rep, nrep, t % axe_mpi_rep_count(rep, nrep));
        t /= axe_mpi_rep_count(rep, nrep);
        for (i = p->ndigits - 1; i >= 0; i--)
            if (use[i]) {
                dev += (t % p->digit[i].extent) *
                       axe_mpi_dev_stride(&p->digit[i], side);
                t /= p->digit[i].extent;
            }
        ok = dev >= 0 && dev < n && !hit[dev];
        if (ok)
            hit[dev] = 1, seen++;
    }
    free(hit);
    return ok && seen == n;
}

/* The reduce collective the table allows: AXE_MPI_PATH_ALLREDUCE,
 * AXE_MPI_PATH_REDUCE_SCATTER, or -1. */
static inline int axe_mpi_reduce_form(const axe_mpi_plan *p)
{
    int use[AXE_MPI_MAX_DIGITS], i, dst_dev = 0;
    if (p->op == AXE_MPI_COPY || p->nsrc_rep != 0 ||
        (p->dtype != AXE_MPI_F32 && p->dtype != AXE_MPI_F64 &&
         p->dtype != AXE_MPI_I32))
        return -1;
    for (i = 0; i < p->ndigits; i++) {
        const axe_mpi_digit *d = &p->digit[i];
        if ((!d->reduced && d->src_dev != 0) || d->tab != NULL)
            return -1;
        use[i] = d->reduced && d->src_dev != 0;
        dst_dev |= !d->reduced && d->dst_dev != 0;
    }
    if (!axe_mpi_bijective(p, use, 0, NULL, 0, p->src_dev0))
        return -1;
    for (i = 0; i < p->ndigits; i++)
        use[i] = !p->digit[i].reduced && p->digit[i].dst_dev != 0;
    if (!dst_dev &&
        axe_mpi_bijective(p, use, 1, p->dst_rep, p->ndst_rep, p->dst_dev0))
        return AXE_MPI_PATH_ALLREDUCE;
    if (p->ndst_rep == 0 && axe_mpi_bijective(p, use, 1, NULL, 0, p->dst_dev0))
        return AXE_MPI_PATH_REDUCE_SCATTER;
    return -1;
}

/* The rank holding slice k of a reduce collective's partials (one full
 * partial per rank): the one whose reduced device digits read k,
 * row-major in table order (the order of k). */
static inline int64_t axe_mpi_kdev(const axe_mpi_plan *p, int64_t k)
{
    int64_t dev = p->src_dev0;
    int i;
    for (i = p->ndigits - 1; i >= 0; i--)
        if (p->digit[i].reduced && p->digit[i].src_dev != 0) {
            dev += (k % p->digit[i].extent) * p->digit[i].src_dev;
            k /= p->digit[i].extent;
        }
    return dev;
}

static inline int axe_mpi_allreduce_path(int path)
{
    return path == AXE_MPI_PATH_ALLREDUCE ||
           path == AXE_MPI_PATH_ALLREDUCE_ORDERED;
}

/* koff: the local offsets of the reduced memory digits, in k order. */
static inline int axe_mpi_build_koff(const axe_mpi_plan *p, axe_mpi_sched *s)
{
    int64_t n = 1, c, t, off;
    int i;
    for (i = 0; i < p->ndigits; i++)
        if (p->digit[i].reduced && p->digit[i].src_dev == 0)
            n *= p->digit[i].extent;
    if (!(s->koff = (int64_t *)malloc((size_t)n * sizeof(int64_t))))
        return 1;
    for (c = 0; c < n; c++) {
        for (t = c, off = 0, i = p->ndigits - 1; i >= 0; i--)
            if (p->digit[i].reduced && p->digit[i].src_dev == 0) {
                off += (t % p->digit[i].extent) * p->digit[i].src_m;
                t /= p->digit[i].extent;
            }
        s->koff[c] = off;
    }
    s->nkoff = n;
    return 0;
}

/* pack: partial of c (base address) -> its position in the send buffer;
 * unpack: position in the result -> dst address (the c this rank holds). */
static inline int axe_mpi_build_reduce(const axe_mpi_plan *p, axe_mpi_sched *s)
{
    int64_t x[AXE_MPI_MAX_DIGITS] = {0}, n = 1, nmem = 1, c, lin, mem, dev;
    int64_t src, dst;
    int i;
    for (i = 0; i < p->ndigits; i++)
        if (!p->digit[i].reduced) {
            n *= p->digit[i].extent;
            nmem *= p->digit[i].dst_dev == 0 ? p->digit[i].extent : 1;
        }
    for (c = 0; c < n; c++) {
        int64_t t = c;
        lin = mem = 0, dev = p->dst_dev0, src = p->src_m0, dst = p->dst_m0;
        for (i = p->ndigits - 1; i >= 0; i--) {
            const axe_mpi_digit *d = &p->digit[i];
            if (d->reduced)
                continue;
            x[i] = t % d->extent, t /= d->extent;
            src += x[i] * d->src_m, dst += x[i] * d->dst_m;
            dev += x[i] * d->dst_dev;
        }
        for (i = 0; i < p->ndigits; i++)
            if (!p->digit[i].reduced) {
                lin = lin * p->digit[i].extent + x[i];
                if (p->digit[i].dst_dev == 0)
                    mem = mem * p->digit[i].extent + x[i];
            }
        if (axe_mpi_allreduce_path(s->path)) {
            if (axe_mpi_list_add(&s->pack, src, lin) ||
                axe_mpi_list_add(&s->unpack, lin, dst))
                return 1;
        } else if (axe_mpi_list_add(&s->pack, src, dev * nmem + mem) ||
                   (dev == s->me && axe_mpi_list_add(&s->unpack, mem, dst)))
            return 1;
    }
    s->n = axe_mpi_allreduce_path(s->path) ? n : nmem;
    return axe_mpi_build_koff(p, s);
}

/* An ordered reduce collective (after axe_mpi_build_reduce): piece r of
 * the packed partial (a reduce-scatter's: the n elements rank r holds;
 * an all-reduce's: the n elements split in P pieces, the first n % P
 * one longer) goes to rank r, which folds the P partials of its piece
 * in the order of k (kcomb[k]: where slice k's copy lands in tmp), and
 * an all-reduce then gathers the folded pieces on every rank. Per rank
 * the same bytes as a ring's reduce-scatter (all-reduce). */
static inline int axe_mpi_build_ordered(const axe_mpi_plan *p, axe_mpi_sched *s)
{
    int64_t n = s->n, P = s->P, r, piece, off = 0;
    int ar = s->path == AXE_MPI_PATH_ALLREDUCE_ORDERED;
    /* the same verdict on every rank: the longest piece */
    if (P * (ar ? (n + P - 1) / P : n) > INT32_MAX ||
        !(s->scount = (int *)calloc((size_t)(4 * P), sizeof(int))) ||
        !(s->kcomb = (int64_t *)malloc((size_t)P * sizeof(int64_t))))
        return 1;
    s->sdispl = s->scount + P, s->rcount = s->scount + 2 * P;
    s->rdispl = s->scount + 3 * P;
    for (r = 0; r < P; r++) {
        piece = ar ? n / P + (r < n % P) : n;
        s->scount[r] = (int)piece, s->sdispl[r] = (int)off;
        off += piece;
    }
    piece = s->scount[s->me];
    for (r = 0; r < P; r++) {
        s->rcount[r] = (int)piece, s->rdispl[r] = (int)(r * piece);
        s->kcomb[r] = axe_mpi_kdev(p, r) * piece;
    }
    s->sent = off - piece + (ar ? (P - 1) * piece : 0);
    if (s->nohost)
        return 0;
    s->tmp = (char *)malloc((size_t)((P + 1) * piece + 1) * (size_t)s->esize);
    return s->tmp == NULL;
}

static inline MPI_Datatype axe_mpi_type(int dtype)
{
    return dtype == AXE_MPI_F32   ? MPI_FLOAT
           : dtype == AXE_MPI_F64 ? MPI_DOUBLE
                                  : MPI_INT32_T;
}

static inline MPI_Op axe_mpi_op(int op)
{
    return op == AXE_MPI_SUM ? MPI_SUM : op == AXE_MPI_MAX ? MPI_MAX : MPI_MIN;
}

/* ---- copy schedules ------------------------------------------------------ */

static inline int axe_mpi_single(const axe_mpi_list *l) { return l->n <= 1; }

/* MPI_Allgather: every peer gets my one run (S, n), peer p's lands at
 * D + p*n and mine is copied locally to D + me*n; n, or -1. */
static inline int64_t axe_mpi_allgather_n(const axe_mpi_sched *s)
{
    int64_t n, S, D;
    int p;
    if (s->P < 2 || s->local.n != 1)
        return -1;
    n = s->local.run[0].len, S = s->local.run[0].from;
    D = s->local.run[0].to - (int64_t)s->me * n;
    for (p = 0; p < s->P; p++) {
        const axe_mpi_list *sp = &s->send[p], *rp = &s->recv[p];
        if (p == s->me)
            continue;
        if (sp->n != 1 || rp->n != 1 || sp->run[0].from != S ||
            sp->run[0].len != n || rp->run[0].len != n ||
            rp->run[0].to != D + (int64_t)p * n)
            return -1;
    }
    return D >= 0 ? n : -1;
}

/* MPI_Bcast: the root sends one run (S, n) to every peer and copies it
 * locally, every other rank receives one run from the root; n, or -1. */
static inline int64_t axe_mpi_bcast_n(const axe_mpi_sched *s, int64_t *root)
{
    int64_t n = -1, S = -1;
    int p, nsend = 0, nrecv = 0;
    for (p = 0; p < s->P; p++) {
        const axe_mpi_list *sp = &s->send[p], *rp = &s->recv[p];
        if (p == s->me)
            continue;
        if (rp->n && (rp->n != 1 || nrecv++))
            return -1;
        if (rp->n)
            *root = p, n = rp->run[0].len;
        if (sp->n && (sp->n != 1 ||
                      (nsend && (sp->run[0].from != S || sp->run[0].len != n))))
            return -1;
        if (sp->n)
            S = sp->run[0].from, n = sp->run[0].len, nsend++;
    }
    if (s->P > 1 && nsend == s->P - 1 && nrecv == 0 && s->local.n == 1 &&
        s->local.run[0].from == S && s->local.run[0].len == n) {
        *root = s->me;
        return n;
    }
    return s->P > 1 && nsend == 0 && nrecv == 1 && s->local.n == 0 ? n : -1;
}

/* Every rank's candidates, agreed with one MPI_Allreduce(MIN): a path
 * is taken only when every rank's lists allow it with the same values. */
static inline int axe_mpi_agree(axe_mpi_sched *s, MPI_Comm comm)
{
    int64_t v[7], m[7], ag = axe_mpi_allgather_n(s), root = -1, bc;
    int p, comm_any = 0;
    bc = axe_mpi_bcast_n(s, &root);
    for (p = 0; p < s->P; p++)
        comm_any |= s->send[p].n || s->recv[p].n;
    if (s->fold) /* both read the source straight */
        ag = bc = -1;
    v[0] = !comm_any, v[1] = ag, v[2] = -ag, v[3] = bc, v[4] = -bc;
    v[5] = root, v[6] = -root;
    if (MPI_Allreduce(v, m, 7, MPI_INT64_T, MPI_MIN, comm) != MPI_SUCCESS)
        return 1;
    if (m[0])
        s->path = AXE_MPI_PATH_LOCAL;
    else if (m[1] > 0 && m[1] == -m[2])
        s->path = AXE_MPI_PATH_ALLGATHER, s->n = m[1];
    else if (m[3] > 0 && m[3] == -m[4] && m[5] >= 0 && m[5] == -m[6])
        s->path = AXE_MPI_PATH_BCAST, s->n = m[3], s->root = (int)m[5];
    else /* each rank packs or not on its own (axe_mpi_build_counts) */
        s->path = AXE_MPI_PATH_ALLTOALLV;
    return 0;
}

/* ---- build, run, free ------------------------------------------------- */

static inline void axe_mpi_sched_free(axe_mpi_sched *s)
{
    int p;
    if (s->send)
        for (p = 0; p < s->P; p++)
            free(s->send[p].run), free(s->recv[p].run), free(s->send[p].blk),
                free(s->recv[p].blk);
    free(s->send), free(s->recv), free(s->local.run), free(s->pack.run);
    free(s->local.blk), free(s->unpack.blk), free(s->pack.blk);
    free(s->unpack.run), free(s->koff), free(s->kcomb), free(s->scount),
        free(s->sbuf);
    free(s->rbuf), free(s->tmp);
    if (s->built && s->own_type)
        MPI_Type_free(&s->type);
    memset(s, 0, sizeof *s);
}

/* The plan's own limits: what a generated file could get wrong. */
static inline int axe_mpi_plan_check(const axe_mpi_plan *p, int P, char *err,
                                     size_t len)
{
    int i;
    if (p->ndev != P) {
        if (err && len)
            snprintf(err, len,
                     "the mesh has %d devices but MPI runs %d ranks "
                     "(mpirun -np %d)",
                     (int)p->ndev, P, (int)p->ndev);
        return 1;
    }
    if (p->ndigits < 0 || p->ndigits > AXE_MPI_MAX_DIGITS || p->nsrc_rep < 0 ||
        p->nsrc_rep > AXE_MPI_MAX_REPS || p->ndst_rep < 0 ||
        p->ndst_rep > AXE_MPI_MAX_REPS)
        return axe_mpi_fail(err, len, "exchange plan: too many digits");
    for (i = 0; i < p->ndigits; i++)
        if (p->digit[i].extent < 1)
            return axe_mpi_fail(err, len, "exchange plan: a digit of extent 0");
    if (axe_mpi_esize(p->dtype) == 0 || p->op < 0 || p->op > AXE_MPI_MIN)
        return axe_mpi_fail(err, len, "exchange plan: unknown dtype or op");
    if (p->op != AXE_MPI_COPY && p->dtype != AXE_MPI_F32 &&
        p->dtype != AXE_MPI_F64 && p->dtype != AXE_MPI_I32)
        return axe_mpi_fail(err, len,
                            "device reduce: the MPI runtime combines f32, f64 "
                            "and i32 only");
    return 0;
}

static inline int axe_mpi_build_lists(const axe_mpi_plan *p, axe_mpi_sched *s)
{
    axe_mpi_build b;
    axe_mpi_walk w;
    int q, bad;
    memset(&b, 0, sizeof b);
    b.s = s;
    axe_mpi_walk_init(&w, p);
    s->send = (axe_mpi_list *)calloc((size_t)s->P, sizeof(axe_mpi_list));
    s->recv = (axe_mpi_list *)calloc((size_t)s->P, sizeof(axe_mpi_list));
    b.peer = (axe_mpi_ents *)calloc((size_t)s->P, sizeof(axe_mpi_ents));
    bad = !s->send || !s->recv || !b.peer ||
          axe_mpi_walk_side(&w, 0, s->me, axe_mpi_visit_send, &b);
    for (q = 0; q < s->P && !bad; q++)
        bad = axe_mpi_ents_runs(&b.peer[q], &s->send[q], 1);
    bad = bad || axe_mpi_walk_side(&w, 1, s->me, axe_mpi_visit_recv, &b);
    for (q = 0; q < s->P && !bad; q++)
        bad = axe_mpi_ents_runs(&b.peer[q], &s->recv[q], 2);
    bad = bad || axe_mpi_ents_runs(&b.local, &s->local, 0);
    for (q = 0; b.peer && q < s->P; q++)
        free(b.peer[q].e);
    free(b.peer), free(b.local.e);
    return bad ? (b.err ? b.err : 1) : 0;
}

/* Counts and displacements (elements) of MPI_Alltoallv. Each side is
 * this rank's own choice: straight from src (into dst) when every peer's
 * piece is one run, else through a pack buffer; 1 when a count or a
 * displacement does not fit an int or memory runs out. */
static inline int axe_mpi_build_counts(axe_mpi_sched *s)
{
    int64_t so = 0, ro = 0, v[4];
    int p, P = s->P;
    if (!(s->scount = (int *)calloc((size_t)4 * (size_t)P, sizeof(int))))
        return 1;
    s->sdispl = s->scount + P, s->rcount = s->scount + 2 * P;
    s->rdispl = s->scount + 3 * P;
    s->sdirect = !s->fold, s->rdirect = 1;
    for (p = 0; p < P; p++) {
        s->sdirect &= axe_mpi_single(&s->send[p]);
        s->rdirect &= axe_mpi_single(&s->recv[p]);
    }
    for (p = 0; p < P; p++) {
        const axe_mpi_list *sp = &s->send[p], *rp = &s->recv[p];
        v[0] = sp->elems, v[2] = rp->elems;
        v[1] = s->sdirect ? (sp->n ? sp->run[0].from : 0) : so;
        v[3] = s->rdirect ? (rp->n ? rp->run[0].to : 0) : ro;
        if (v[0] > INT32_MAX || v[1] > INT32_MAX || v[2] > INT32_MAX ||
            v[3] > INT32_MAX)
            return 1;
        s->scount[p] = (int)v[0], s->sdispl[p] = (int)v[1];
        s->rcount[p] = (int)v[2], s->rdispl[p] = (int)v[3];
        so += sp->elems, ro += rp->elems;
    }
    s->path = s->sdirect && s->rdirect ? AXE_MPI_PATH_ALLTOALLV_DIRECT
                                       : AXE_MPI_PATH_ALLTOALLV;
    so = s->sdirect || !so ? 1 : so, ro = s->rdirect || !ro ? 1 : ro;
    if (s->nohost)
        return 0;
    s->sbuf = (char *)malloc((size_t)so * (size_t)s->esize);
    s->rbuf = (char *)malloc((size_t)ro * (size_t)s->esize);
    return !s->sbuf || !s->rbuf;
}

static inline int axe_mpi_build_copy(const axe_mpi_plan *p, axe_mpi_sched *s,
                                     MPI_Comm comm, char *err, size_t len)
{
    int r, q;
    if (p->op != AXE_MPI_COPY && axe_mpi_build_koff(p, s))
        return axe_mpi_fail(err, len, "exchange: out of memory");
    s->fold = s->nkoff > 1;
    r = axe_mpi_build_lists(p, s);
    if (r == 2)
        return axe_mpi_fail(err, len,
                            "exchange plan: a device id outside the mesh");
    if (r || axe_mpi_agree(s, comm))
        return axe_mpi_fail(err, len, "exchange: out of memory");
    for (q = 0; q < s->P; q++)
        s->sent += s->send[q].elems;
    if ((s->path == AXE_MPI_PATH_ALLTOALLV ||
         s->path == AXE_MPI_PATH_ALLTOALLV_DIRECT) &&
        axe_mpi_build_counts(s))
        return axe_mpi_fail(err, len,
                            "exchange: out of memory or a piece over 2^31 "
                            "elements");
    if (p->op != AXE_MPI_COPY &&
        ((!s->nohost &&
          !(s->tmp = (char *)malloc((size_t)(p->dst_size * s->K + 1) *
                                    (size_t)s->esize))) ||
         !(s->kcomb = (int64_t *)malloc((size_t)s->K * sizeof(int64_t)))))
        return axe_mpi_fail(err, len, "exchange: out of memory");
    for (q = 0; p->op != AXE_MPI_COPY && q < s->K; q++)
        s->kcomb[q] = q;
    return 0;
}

/* Every list's blocks, for the copies. */
static inline int axe_mpi_sched_blocks(axe_mpi_sched *s, char *err, size_t len)
{
    int p,
        bad = axe_mpi_list_blocks(&s->local) || axe_mpi_list_blocks(&s->unpack);
    for (p = 0; s->send && p < s->P && !bad; p++)
        bad = axe_mpi_list_blocks(&s->send[p]) ||
              axe_mpi_list_blocks(&s->recv[p]);
    return bad ? axe_mpi_fail(err, len, "exchange: out of memory") : 0;
}

/* axe_mpi_sched_build_order's flags: a float sum that fits a reduce
 * collective takes its ordered form (AXE_MPI_PATH_*_ORDERED: exact, the
 * reference's order; without it the order is MPI's or NCCL's); no host
 * buffers (sbuf, rbuf, tmp stay NULL: the NCCL path's, whose buffers are
 * device memory of its own). */
#define AXE_MPI_BUILD_ORDERED 1
#define AXE_MPI_BUILD_NOHOST 2

/* Builds "s" for plan "p", collectively, as "flags" say (above). */
static inline int axe_mpi_sched_build_order(const axe_mpi_plan *p,
                                            axe_mpi_sched *s, MPI_Comm comm,
                                            int flags, char *err, size_t len)
{
    int ordered = (flags & AXE_MPI_BUILD_ORDERED) != 0;
    int P, me, form;
    axe_mpi_walk w;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    if (axe_mpi_plan_check(p, P, err, len))
        return 1;
    memset(s, 0, sizeof *s);
    s->nohost = (flags & AXE_MPI_BUILD_NOHOST) != 0;
    s->P = P, s->me = me, s->esize = axe_mpi_esize(p->dtype), s->root = -1;
    axe_mpi_walk_init(&w, p);
    s->K = w.K;
    s->built = 1;
    form = axe_mpi_reduce_form(p);
    if (form >= 0 && ordered && p->op == AXE_MPI_SUM &&
        p->dtype != AXE_MPI_I32) /* integer sums wrap: any order is exact */
        form = form == AXE_MPI_PATH_ALLREDUCE
                   ? AXE_MPI_PATH_ALLREDUCE_ORDERED
                   : AXE_MPI_PATH_REDUCE_SCATTER_ORDERED;
    if (form >= 0) {
        s->path = form;
        s->type = axe_mpi_type(p->dtype);
        if (axe_mpi_build_reduce(p, s) ||
            (!s->nohost &&
             (!(s->sbuf = (char *)malloc((size_t)(s->pack.elems + 1) *
                                         (size_t)s->esize)) ||
              !(s->rbuf =
                    (char *)malloc((size_t)(s->n + 1) * (size_t)s->esize)))))
            return axe_mpi_fail(err, len, "exchange: out of memory");
        s->sent = s->pack.elems - s->n; /* what leaves this rank */
        if (form >= AXE_MPI_PATH_REDUCE_SCATTER_ORDERED &&
            axe_mpi_build_ordered(p, s))
            return axe_mpi_fail(err, len,
                                "exchange: out of memory or a piece over "
                                "2^31 elements");
        return axe_mpi_sched_blocks(s, err, len);
    }
    if (MPI_Type_contiguous(s->esize, MPI_BYTE, &s->type) != MPI_SUCCESS ||
        MPI_Type_commit(&s->type) != MPI_SUCCESS)
        return axe_mpi_fail(err, len, "exchange: MPI_Type_contiguous failed");
    s->own_type = 1;
    return axe_mpi_build_copy(p, s, comm, err, len) ||
           axe_mpi_sched_blocks(s, err, len);
}

/* axe_mpi_sched_build_order with the reduce collectives' own order (the
 * NCCL path's and the chunked gemm's build). */
static inline int axe_mpi_sched_build(const axe_mpi_plan *p, axe_mpi_sched *s,
                                      MPI_Comm comm, char *err, size_t len)
{
    return axe_mpi_sched_build_order(p, s, comm, 0, err, len);
}

/* axe_mpi_exchange's order: exact unless the including file defines
 * AXE_MPI_UNORDERED (then MPI_Allreduce / MPI_Reduce_scatter_block sum
 * float partials in MPI's order). */
#ifdef AXE_MPI_UNORDERED
#define AXE_MPI_ORDERED 0
#else
#define AXE_MPI_ORDERED 1
#endif

/* "count" elements of "es" bytes, the c-th from f + c*fs to d + c*ts
 * (steps in bytes). Called with a constant "es", each loop is a plain
 * load and store per element, a contiguous side (a pack's gather into
 * the send buffer, an unpack's scatter) stepped by the constant size. */
static inline void axe_mpi_copy_elems(char *d, const char *f, int64_t count,
                                      int64_t fs, int64_t ts, size_t es)
{
    int64_t c;
    if (ts == (int64_t)es)
        for (c = 0; c < count; c++)
            memcpy(d + c * (int64_t)es, f + c * fs, es);
    else if (fs == (int64_t)es)
        for (c = 0; c < count; c++)
            memcpy(d + c * ts, f + c * (int64_t)es, es);
    else
        for (c = 0; c < count; c++)
            memcpy(d + c * ts, f + c * fs, es);
}

/* Block "b" from f to d. Its fields are read once into locals: the
 * copies store through char pointers, which may alias the block, so a
 * loop reading b->tstep reloaded it per element (1.5x the hand-written
 * gather's time, bench/dist block_cyclic). */
static inline void axe_mpi_copy_block(char *d, const char *f,
                                      const axe_mpi_block *b, int64_t es)
{
    const int64_t count = b->count, fs = b->fstep * es, ts = b->tstep * es;
    const size_t run = (size_t)(b->len * es);
    int64_t c;
    if (b->len == 1 && es == 4)
        axe_mpi_copy_elems(d, f, count, fs, ts, 4);
    else if (b->len == 1 && es == 8)
        axe_mpi_copy_elems(d, f, count, fs, ts, 8);
    else if (b->len == 1 && es == 2)
        axe_mpi_copy_elems(d, f, count, fs, ts, 2);
    else if (b->len == 1 && es == 1)
        axe_mpi_copy_elems(d, f, count, fs, ts, 1);
    else
        for (c = 0; c < count; c++)
            memcpy(d + c * ts, f + c * fs, run);
}

/* dst[doff + to + i] = src[soff + from + i] over the runs of "l". */
static inline void axe_mpi_copy_runs(const axe_mpi_list *l, char *dst,
                                     int64_t doff, const char *src,
                                     int64_t soff, int64_t es)
{
    int64_t i;
    for (i = 0; i < l->nblk; i++)
        axe_mpi_copy_block(dst + (doff + l->blk[i].to) * es,
                           src + (soff + l->blk[i].from) * es, &l->blk[i], es);
}
/* out[i] = in[i*stride + off[0]] (+) ... (+) in[i*stride + off[n-1]] for
 * i < cnt: combined in the order of the offsets (of k); integer sums wrap
 * (computed unsigned). */
#define AXE_MPI_FOLD(T, UT, out, in, cnt, stride, off, n, op)                  \
    do {                                                                       \
        int64_t i_, j_;                                                        \
        for (i_ = 0; i_ < (cnt); i_++) {                                       \
            T a_ = (in)[i_ * (stride) + (off)[0]];                             \
            for (j_ = 1; j_ < (n); j_++) {                                     \
                T b_ = (in)[i_ * (stride) + (off)[j_]];                        \
                if ((op) == AXE_MPI_SUM)                                       \
                    a_ = (T)((UT)a_ + (UT)b_);                                 \
                else if ((op) == AXE_MPI_MAX ? b_ > a_ : b_ < a_)              \
                    a_ = b_;                                                   \
            }                                                                  \
            (out)[i_] = a_;                                                    \
        }                                                                      \
    } while (0)

static inline void axe_mpi_fold(int dtype, int op, void *out, const void *in,
                                int64_t cnt, int64_t stride, const int64_t *off,
                                int64_t n)
{
    if (dtype == AXE_MPI_F32)
        AXE_MPI_FOLD(float, float, (float *)out, (const float *)in, cnt, stride,
                     off, n, op);
    else if (dtype == AXE_MPI_F64)
        AXE_MPI_FOLD(double, double, (double *)out, (const double *)in, cnt,
                     stride, off, n, op);
    else
        AXE_MPI_FOLD(int32_t, uint32_t, (int32_t *)out, (const int32_t *)in,
                     cnt, stride, off, n, op);
}

/* The copies of "l" (see axe_mpi_copy_runs), each source element
 * folded over the offsets koff first when the schedule folds. */
static inline void axe_mpi_move(const axe_mpi_plan *p, const axe_mpi_sched *s,
                                const axe_mpi_list *l, char *dst, int64_t doff,
                                const char *src)
{
    int64_t i, c, es = s->esize;
    if (!s->fold) {
        axe_mpi_copy_runs(l, dst, doff, src, 0, es);
        return;
    }
    for (i = 0; i < l->nblk; i++) {
        const axe_mpi_block *b = &l->blk[i];
        for (c = 0; c < b->count; c++)
            axe_mpi_fold(p->dtype, p->op,
                         dst + (doff + b->to + c * b->tstep) * es,
                         src + (b->from + c * b->fstep) * es, b->len, 1,
                         s->koff, s->nkoff);
    }
}

/* The ordered collectives (axe_mpi_build_ordered): "in" the packed
 * partial, "out" the result in pack order (this rank's piece for a
 * reduce-scatter, every element for an all-reduce). */
static inline int axe_mpi_run_ordered(const axe_mpi_plan *p, axe_mpi_sched *s,
                                      const char *in, char *out, MPI_Comm comm)
{
    int64_t piece = s->rcount[0];
    char *mine = s->tmp + s->P * piece * s->esize;
    int ar = s->path == AXE_MPI_PATH_ALLREDUCE_ORDERED, rc;
    if (ar)
        rc = MPI_Alltoallv(in, s->scount, s->sdispl, s->type, s->tmp, s->rcount,
                           s->rdispl, s->type, comm);
    else
        rc = MPI_Alltoall(in, (int)piece, s->type, s->tmp, (int)piece, s->type,
                          comm);
    if (rc != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    axe_mpi_fold(p->dtype, p->op, ar ? mine : out, s->tmp, piece, 1, s->kcomb,
                 s->P);
    if (!ar)
        return MPI_SUCCESS;
    return MPI_Allgatherv(mine, (int)piece, s->type, out, s->scount, s->sdispl,
                          s->type, comm);
}

static inline int axe_mpi_run_reduce(const axe_mpi_plan *p, axe_mpi_sched *s,
                                     const char *src, char *dst, MPI_Comm comm)
{
    int64_t i, es = s->esize;
    const char *in = s->sbuf;
    char *out = s->rbuf;
    int rc;
    /* one run in order and one term per element: no packing */
    if (s->pack.n == 1 && s->pack.run[0].to == 0 && s->nkoff == 1)
        in = src + (s->pack.run[0].from + s->koff[0]) * es;
    else
        for (i = 0; i < s->pack.n; i++) {
            const axe_mpi_run *r = &s->pack.run[i];
            axe_mpi_fold(p->dtype, p->op, s->sbuf + r->to * es,
                         src + r->from * es, r->len, 1, s->koff, s->nkoff);
        }
    if (s->unpack.n == 1 && s->unpack.run[0].from == 0)
        out = dst + s->unpack.run[0].to * es;
    if (s->path == AXE_MPI_PATH_REDUCE_SCATTER_ORDERED ||
        s->path == AXE_MPI_PATH_ALLREDUCE_ORDERED)
        rc = axe_mpi_run_ordered(p, s, in, out, comm);
    else if (s->path == AXE_MPI_PATH_ALLREDUCE)
        rc =
            MPI_Allreduce(in, out, (int)s->n, s->type, axe_mpi_op(p->op), comm);
    else
        rc = MPI_Reduce_scatter_block(in, out, (int)s->n, s->type,
                                      axe_mpi_op(p->op), comm);
    if (out == s->rbuf)
        axe_mpi_copy_runs(&s->unpack, dst, 0, s->rbuf, 0, es);
    return rc != MPI_SUCCESS;
}

static inline int axe_mpi_run_copy(const axe_mpi_plan *pl, axe_mpi_sched *s,
                                   const char *src, char *dst, MPI_Comm comm)
{
    int64_t es = s->esize, S, D;
    int p, rc;
    if (s->path == AXE_MPI_PATH_ALLGATHER) {
        S = s->local.run[0].from;
        D = s->local.run[0].to - (int64_t)s->me * s->n;
        return MPI_Allgather(src + S * es, (int)s->n, s->type, dst + D * es,
                             (int)s->n, s->type, comm) != MPI_SUCCESS;
    }
    axe_mpi_move(pl, s, &s->local, dst, 0, src);
    if (s->path == AXE_MPI_PATH_BCAST) {
        char *buf = s->me == s->root
                        ? (char *)(uintptr_t)(src + s->local.run[0].from * es)
                        : dst + s->recv[s->root].run[0].to * es;
        return MPI_Bcast(buf, (int)s->n, s->type, s->root, comm) != MPI_SUCCESS;
    }
    if (s->path != AXE_MPI_PATH_ALLTOALLV &&
        s->path != AXE_MPI_PATH_ALLTOALLV_DIRECT)
        return 0;
    for (p = 0; !s->sdirect && p < s->P; p++)
        axe_mpi_move(pl, s, &s->send[p], s->sbuf, s->sdispl[p], src);
    rc = MPI_Alltoallv(s->sdirect ? src : s->sbuf, s->scount, s->sdispl,
                       s->type, s->rdirect ? dst : s->rbuf, s->rcount,
                       s->rdispl, s->type, comm);
    for (p = 0; !s->rdirect && p < s->P; p++)
        axe_mpi_copy_runs(&s->recv[p], dst, 0, s->rbuf, s->rdispl[p], es);
    return rc != MPI_SUCCESS;
}

/* Runs device operator "p" on this rank's local buffers: src (p->src_size
 * elements) to dst (p->dst_size). The schedule "s" (zeroed before the
 * first call) is built on the first call, collectively: every rank calls
 * with the same plan. 0, or 1 with the reason in "err". */
static inline int axe_mpi_exchange(const axe_mpi_plan *p, axe_mpi_sched *s,
                                   const void *src, void *dst, MPI_Comm comm,
                                   char *err, size_t len)
{
    int64_t i;
    int bad;
    if (!s->built &&
        axe_mpi_sched_build_order(
            p, s, comm, AXE_MPI_ORDERED ? AXE_MPI_BUILD_ORDERED : 0, err, len))
        return 1;
    if (s->path == AXE_MPI_PATH_ALLREDUCE ||
        s->path == AXE_MPI_PATH_REDUCE_SCATTER ||
        s->path == AXE_MPI_PATH_REDUCE_SCATTER_ORDERED ||
        s->path == AXE_MPI_PATH_ALLREDUCE_ORDERED)
        bad = axe_mpi_run_reduce(p, s, (const char *)src, (char *)dst, comm);
    else if (p->op == AXE_MPI_COPY)
        bad = axe_mpi_run_copy(p, s, (const char *)src, (char *)dst, comm);
    else {
        bad = axe_mpi_run_copy(p, s, (const char *)src, s->tmp, comm);
        for (i = 0; i < s->unpack.n; i++) {
            const axe_mpi_run *r = &s->unpack.run[i];
            axe_mpi_fold(p->dtype, p->op, (char *)dst + r->to * s->esize,
                         s->tmp + r->to * s->K * s->esize, r->len, s->K,
                         s->kcomb, s->K);
        }
    }
    return bad ? axe_mpi_fail(err, len, "exchange: an MPI call failed") : 0;
}

/* The entry check (docs/compiler.md, "The entry check"): splitmix64's
 * finalizer, as the library's axe_program_mesh_checksum. */
static inline uint64_t axe_mpi_mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The source layout of "p" (a tensor's plan of a copy onto itself) read
 * from its digit table, independently of the library: for every device
 * d < p->ndev, the elements d holds ("elems[d]", replicas included) and
 * the sum mod 2^64 over them of mix(mix(x) + a) ("sums[d]"), x the
 * element's row-major logical index (the digits enumerate the logical
 * coordinates row-major, outermost first), a its source address. 0, or 1
 * with the reason in "err" when an owner falls outside the mesh. */
static inline int axe_mpi_shard_sums(const axe_mpi_plan *p, int64_t *elems,
                                     uint64_t *sums, char *err, size_t len)
{
    int64_t total = 1, nrep = axe_mpi_rep_count(p->src_rep, p->nsrc_rep);
    int64_t x, r, rem, dev, a;
    int i;
    for (i = 0; i < p->ndigits; i++)
        total *= p->digit[i].extent;
    for (i = 0; i < p->ndev; i++)
        elems[i] = 0, sums[i] = 0;
    for (x = 0; x < total; x++) {
        dev = p->src_dev0, a = p->src_m0, rem = x;
        for (i = p->ndigits - 1; i >= 0; i--) {
            dev += axe_mpi_part(&p->digit[i], 0, 0, rem % p->digit[i].extent);
            a += axe_mpi_part(&p->digit[i], 0, 1, rem % p->digit[i].extent);
            rem /= p->digit[i].extent;
        }
        for (r = 0; r < nrep; r++) {
            int64_t d = dev + axe_mpi_rep_sum(p->src_rep, p->nsrc_rep, r);
            if (d < 0 || d >= p->ndev)
                return axe_mpi_fail(err, len, "an owner outside the mesh");
            elems[d]++;
            sums[d] += axe_mpi_mix(axe_mpi_mix((uint64_t)x) + (uint64_t)a);
        }
    }
    return 0;
}

/* ---- device gemm in chunks: compute and exchange overlapped ----------- */

/* Fills out[0 .. n) with the partial sums at local addresses addr[0 .. n)
 * of the rank's partial buffer (the generated local GEMM). */
typedef void (*axe_mpi_elems_fn)(void *ctx, const int64_t *addr, int64_t n,
                                 void *out);

/* A device gemm whose partial sums reduce-scatter, in chunks: the
 * reduce-scatter's schedule "s" (its pack runs give each send position's
 * partial address, its unpack the landing of this rank's block), "addr"
 * (send position -> partial address), "qoff" (the senders' blocks in the
 * order of k, the slices of K), the received blocks and their sum. */
typedef struct axe_mpi_chunked {
    axe_mpi_sched s;
    int64_t *addr, *qoff;
    char *recv, *out;
    MPI_Request *req;
} axe_mpi_chunked;

static inline void axe_mpi_chunked_free(axe_mpi_chunked *c)
{
    axe_mpi_sched_free(&c->s);
    free(c->addr), free(c->qoff), free(c->recv), free(c->out), free(c->req);
    memset(c, 0, sizeof *c);
}

/* qoff[k]: the block of the rank whose reduced device digits read k
 * (row-major over the reduced digits in table order: the order of k). */
static inline void axe_mpi_chunked_qoff(const axe_mpi_plan *p,
                                        axe_mpi_chunked *c)
{
    int64_t k;
    for (k = 0; k < c->s.P; k++)
        c->qoff[k] = axe_mpi_kdev(p, k) * c->s.n;
}

/* Builds "c" collectively (every rank, the same plan): the plan's
 * reduction must be the reduce-scatter of one full partial per rank (on
 * one rank: its all-reduce, the same). */
static inline int axe_mpi_chunked_build(const axe_mpi_plan *p,
                                        axe_mpi_chunked *c, int chunks,
                                        MPI_Comm comm, char *err, size_t len)
{
    int64_t i, j, P, n, es;
    if (axe_mpi_sched_build(p, &c->s, comm, err, len))
        return 1;
    if ((c->s.path != AXE_MPI_PATH_REDUCE_SCATTER &&
         (c->s.path != AXE_MPI_PATH_ALLREDUCE || c->s.P != 1)) ||
        c->s.nkoff != 1)
        return axe_mpi_fail(err, len,
                            "chunked gemm: the partial sums' reduction "
                            "is not one reduce-scatter over the ranks");
    P = c->s.P, n = c->s.n, es = c->s.esize;
    c->addr = (int64_t *)malloc((size_t)(P * n + 1) * sizeof(int64_t));
    c->qoff = (int64_t *)malloc((size_t)P * sizeof(int64_t));
    c->recv = (char *)malloc((size_t)(P * n + 1) * (size_t)es);
    c->out = (char *)malloc((size_t)(n + 1) * (size_t)es);
    c->req =
        (MPI_Request *)malloc((size_t)(2 * P * chunks) * sizeof(MPI_Request));
    if (!c->addr || !c->qoff || !c->recv || !c->out || !c->req)
        return axe_mpi_fail(err, len, "chunked gemm: out of memory");
    for (i = 0; i < c->s.pack.n; i++)
        for (j = 0; j < c->s.pack.run[i].len; j++)
            c->addr[c->s.pack.run[i].to + j] =
                c->s.pack.run[i].from + j + c->s.koff[0];
    axe_mpi_chunked_qoff(p, c);
    return 0;
}

/* Chunk "ch" of every rank's block: computed into the send buffer, then
 * sent and received without waiting (tag ch). */
static inline int axe_mpi_chunk_post(axe_mpi_chunked *c, int ch, int chunks,
                                     axe_mpi_elems_fn fn, void *ctx,
                                     MPI_Comm comm, int *nreq)
{
    axe_mpi_sched *s = &c->s;
    int64_t n = s->n, es = s->esize, cnt = (n + chunks - 1) / chunks;
    int64_t lo = ch * cnt < n ? ch * cnt : n;
    int64_t hi = lo + cnt < n ? lo + cnt : n;
    int r, bad = 0, flag;
    for (r = 0; r < s->P; r++) {
        fn(ctx, c->addr + r * n + lo, hi - lo, s->sbuf + (r * n + lo) * es);
        if (*nreq > 0) /* progress the chunks in flight */
            MPI_Testall(*nreq, c->req, &flag, MPI_STATUSES_IGNORE);
    }
    memcpy(c->recv + (s->me * n + lo) * es, s->sbuf + (s->me * n + lo) * es,
           (size_t)((hi - lo) * es));
    for (r = 0; r < s->P && hi > lo; r++)
        if (r != s->me) {
            bad |=
                MPI_Irecv(c->recv + (r * n + lo) * es, (int)(hi - lo), s->type,
                          r, ch, comm, &c->req[(*nreq)++]) != MPI_SUCCESS;
            bad |=
                MPI_Isend(s->sbuf + (r * n + lo) * es, (int)(hi - lo), s->type,
                          r, ch, comm, &c->req[(*nreq)++]) != MPI_SUCCESS;
        }
    return bad;
}

/* Runs the device gemm whose local GEMM is "fn" in "chunks" chunks of
 * every rank's block of C: chunk i+1 is computed while chunk i is in
 * flight (MPI_Isend / MPI_Irecv), then every element is the sum of the
 * ranks' partials in the order of k (the reference's order: the result
 * does not depend on "chunks" nor on MPI's algorithms), unpacked into
 * dst. "c" (zeroed before the first call) is built on the first call. */
static inline int axe_mpi_gemm_chunked(const axe_mpi_plan *p,
                                       axe_mpi_chunked *c, int chunks,
                                       axe_mpi_elems_fn fn, void *ctx,
                                       void *dst, MPI_Comm comm, char *err,
                                       size_t len)
{
    int ch, nreq = 0, bad = 0;
    if (!c->s.built && axe_mpi_chunked_build(p, c, chunks, comm, err, len))
        return 1;
    for (ch = 0; ch < chunks; ch++)
        bad |= axe_mpi_chunk_post(c, ch, chunks, fn, ctx, comm, &nreq);
    if (nreq > 0)
        bad |= MPI_Waitall(nreq, c->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS;
    if (bad)
        return axe_mpi_fail(err, len, "chunked gemm: an MPI call failed");
    axe_mpi_fold(p->dtype, p->op, c->out, c->recv, c->s.n, 1, c->qoff, c->s.P);
    axe_mpi_copy_runs(&c->s.unpack, (char *)dst, 0, c->out, 0, c->s.esize);
    return 0;
}

#endif
