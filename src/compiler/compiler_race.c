/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The race detector of the reference interpreter (docs/compiler.md,
 * "Races"). The reference runs the operators' logical semantics; for each
 * element it touches, the detector names the threads that touch it on the
 * backends: the plan dispatch chose (a bound plan: the threads whose rank
 * digits are the element's thread digits, replicas included; a split
 * plan: rank (u / vec) mod threads for the row-major index u over the
 * dimensions in the plan's order (a permuted vector plan's; the
 * sub-iters it takes out of their dimensions last); a
 * thread-scope operator: its thread; a staged schedule's source: its
 * staging plan). Such a set of threads, all executing one element of one
 * operator instance, is a *group*: its first thread plus the plan's
 * replica offsets F (the ranks whose thread digits are all 0).
 *
 * Two accesses conflict when their groups hold different threads and
 * they are not ordered: the same CTA and phase (barriers counted since
 * the CTA started), or different CTAs on a global tensor. A read by
 * members of the writing group is not a race (they wrote one value), nor
 * are the writes of one group to one element in one operator instance
 * ("exec"; two elements of a destination view may share an address, and
 * their groups' writes do race), nor two
 * atomic accesses (an atomic operator's accesses to its destination,
 * ax_stmt.atomic: atomicAdd and the like are ordered by the hardware).
 *
 * Invariant, per element of a global or shared tensor: "w" is the last
 * write; same[0] is a read since it from the latest (CTA, phase) that
 * read it, same[1] one of that (CTA, phase) with a thread that same[0]
 * lacks; cross[0] is a read since the write and cross[1] one of another
 * CTA (global tensors). Every conflict of a new access with an access
 * since the last write involves one of these. Shared records are cleared
 * when a CTA starts, as its storage is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"

typedef struct race_acc {
    int32_t thread; /* the group's first thread in the grid; -1: none */
    int32_t plan;   /* 2 * operator index, + 1 for a staging plan */
    int32_t phase;
} race_acc;

typedef struct race_rec {
    race_acc w;
    int32_t exec;
    race_acc same[2], cross[2];
} race_rec;

typedef struct race_plan {
    const ax_stmt *s; /* the statement whose plan and shape this is */
    int64_t nthreads;
    int nfree;
    int32_t *free;   /* offsets of a group's threads from its first */
    uint8_t *member; /* member[d]: offset d is one of them */
    /* row_major's digits, once per plan (make_digits): at position j of
     * the plan's dimension order, the dimension's length without the
     * sub-iters taken out of it (len[j]; whole[j] its length before) and
     * those sub-iters, highest weight first (sub[j][0 .. nsub[j])). */
    int64_t len[AX_MAX_DIMS], whole[AX_MAX_DIMS];
    int nsub[AX_MAX_DIMS];
    int sub[AX_MAX_DIMS][AX_MAX_LOOPS];
} race_plan;

struct ax_race {
    const axe_program *p;
    race_rec *rec[AX_MAX_TENSORS];
    int64_t span[AX_MAX_TENSORS];
    race_plan *plans; /* 2 per operator */
    int64_t cta, tid0;
    int32_t phase, exec;
    const ax_stmt *s;
    race_acc cur[AX_MAX_ARGS]; /* the current element's group per operand */
    axe_status status;
    char why[AXE_DIAG_MESSAGE_MAX];
    axe_race_report rep;
    int rtensor[AXE_RACE_MAX];
    /* A dry run (axe__race_range_clean): a race is not recorded, "hit"
     * says one was found. */
    bool dry, hit;
};

static const race_acc none = {-1, 0, 0};

static const ax_stmt *plan_stmt(const ax_stmt *s, int role)
{
    if (s->stage[0] == NULL)
        return s;
    return s->stage[role == 1 ? 0 : 1];
}

/* The digits of row_major for "rp" (see race_plan): the sub-iters "o"
 * takes out of each dimension, highest weight first, so that the lower
 * ones keep their weights, and its length divided by their extents. */
static void make_digits(race_plan *rp)
{
    const ax_plan_order *o = &rp->s->plan->order;
    int j;
    for (j = 0; j < axe__ref_ndim(&rp->s->args[0]); j++) {
        int d = o->dim[j];
        int64_t above = INT64_MAX;
        rp->whole[j] = rp->len[j] = axe__ref_len(&rp->s->args[0], d);
        rp->nsub[j] = 0;
        for (;;) {
            int k, top = -1;
            for (k = 0; k < o->nsub; k++)
                if (o->sub_dim[k] == d && o->sub_weight[k] < above &&
                    (top < 0 || o->sub_weight[k] > o->sub_weight[top]))
                    top = k;
            if (top < 0)
                break;
            above = o->sub_weight[top];
            rp->len[j] /= o->sub_extent[top];
            rp->sub[j][rp->nsub[j]++] = top;
        }
    }
}

/* F of a plan: the ranks below its thread count whose thread digits are
 * all 0 (a bound plan's replicas); {0} for serial and split plans. */
static axe_status plan_free(race_plan *rp, const axe_program *p)
{
    const ax_plan *plan = rp->s->plan;
    int64_t r, n = plan->kind == AX_PLAN_BOUND ? plan->nthreads : 1;
    int k;
    rp->nthreads = n;
    rp->free = malloc((size_t)n * sizeof *rp->free);
    rp->member = calloc((size_t)n, 1);
    if (rp->free == NULL || rp->member == NULL)
        return AXE_ERR_NO_MEMORY;
    for (r = 0; r < n && r < p->threads; r++) {
        bool zero = true;
        for (k = 0; zero && k < plan->nloops; k++)
            if (plan->loops[k].thread)
                zero = r / plan->loops[k].rank_div % plan->loops[k].extent == 0;
        if (zero) {
            rp->free[rp->nfree++] = (int32_t)r;
            rp->member[r] = 1;
        }
    }
    return AXE_OK;
}

static axe_status make_plans(ax_race *r)
{
    const axe_program *p = r->p;
    int i;
    r->plans = calloc((size_t)p->nops * 2 + 1, sizeof *r->plans);
    if (r->plans == NULL)
        return AXE_ERR_NO_MEMORY;
    for (i = 0; i < 2 * p->nops; i++) {
        const ax_stmt *s = p->ops[i / 2];
        if (s->dead || (i % 2 == 1 && s->stage[0] == NULL))
            continue; /* dead code has no plan and never runs */
        r->plans[i].s = plan_stmt(s, i % 2);
        make_digits(&r->plans[i]);
        AXE_TRY(plan_free(&r->plans[i], p));
    }
    return AXE_OK;
}

static axe_status make_records(ax_race *r, axe_diag *diag)
{
    const axe_program *p = r->p;
    int64_t total = 0;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem != AX_MEM_REGISTER)
            total += axe__span_at(p, &p->tensors[i]);
    if (total > AXE_RACE_MAX_ELEMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the race detector tracks at most %lld elements of "
                         "global and shared tensors; this kernel has %lld",
                         (long long)AXE_RACE_MAX_ELEMS, (long long)total);
    for (i = 0; i < p->ntensors; i++) {
        int64_t x;
        if (p->tensors[i].mem == AX_MEM_REGISTER)
            continue;
        r->span[i] = axe__span_at(p, &p->tensors[i]);
        r->rec[i] = malloc((size_t)r->span[i] * sizeof *r->rec[i]);
        if (r->rec[i] == NULL)
            return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
        for (x = 0; x < r->span[i]; x++) {
            r->rec[i][x].w = none;
            r->rec[i][x].exec = -1;
            r->rec[i][x].same[0] = r->rec[i][x].same[1] = none;
            r->rec[i][x].cross[0] = r->rec[i][x].cross[1] = none;
        }
    }
    return AXE_OK;
}

/* A detector for "p" (see the file comment). */
axe_status axe__race_new(const axe_program *p, ax_race **out, axe_diag *diag)
{
    ax_race *r;
    int64_t grid = p->threads;
    axe_status st;
    *out = NULL;
    if (axe__mul(grid, axe__grid_at(p, 0), &grid) ||
        axe__mul(grid, axe__grid_at(p, 1), &grid) ||
        axe__mul(grid, axe__grid_at(p, 2), &grid) || grid > INT32_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the race detector numbers the grid's threads in 31 "
                         "bits");
    r = calloc(1, sizeof *r);
    if (r == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    r->p = p;
    st = make_records(r, diag);
    if (st == AXE_OK && make_plans(r) != AXE_OK)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    if (st != AXE_OK) {
        axe__race_free(r);
        return st;
    }
    *out = r;
    return AXE_OK;
}

void axe__race_free(ax_race *r)
{
    int i;
    if (r == NULL)
        return;
    for (i = 0; i < AX_MAX_TENSORS; i++)
        free(r->rec[i]);
    for (i = 0; r->plans != NULL && i < 2 * r->p->nops; i++) {
        free(r->plans[i].free);
        free(r->plans[i].member);
    }
    free(r->plans);
    free(r);
}

/* CTA "cta" (linear) starts: phase 0, its shared records cleared. */
void axe__race_cta(ax_race *r, int64_t cta)
{
    int i;
    int64_t x;
    if (r == NULL)
        return;
    r->cta = cta;
    r->phase = 0;
    for (i = 0; i < r->p->ntensors; i++)
        for (x = 0; r->p->tensors[i].mem == AX_MEM_SHARED && x < r->span[i];
             x++) {
            r->rec[i][x].w = none;
            r->rec[i][x].same[0] = r->rec[i][x].same[1] = none;
        }
}

static void overflow(ax_race *r, const char *what)
{
    if (r->status != AXE_OK)
        return;
    r->status = AXE_ERR_OVERFLOW;
    snprintf(r->why, sizeof r->why,
             "the race detector counts %s in 31 bits: too many", what);
}

/* A barrier of the CTA (`sync`). */
void axe__race_sync(ax_race *r)
{
    if (r == NULL)
        return;
    if (r->phase == INT32_MAX)
        overflow(r, "barriers");
    else
        r->phase++;
}

/* One instance of operator "s", whose first thread is "tid0" of the CTA. */
void axe__race_instance(ax_race *r, const ax_stmt *s, int64_t tid0)
{
    if (r == NULL)
        return;
    if (r->exec == INT32_MAX)
        overflow(r, "operator instances");
    else
        r->exec++;
    r->s = s;
    r->tid0 = tid0;
}

/* The index of "c" in the order the plan of "rp" deals its elements in:
 * row-major over the shape of its statement's destination, its
 * dimensions in the plan's order, each without the sub-iters taken out,
 * then those (a coordinate past a dim of extent 1 counts as 0:
 * reduce.tree's last stage reads each row's total once, at 0 of the
 * reduced dim). */
static int64_t row_major(const race_plan *rp, const int64_t *c)
{
    const ax_plan_order *o = &rp->s->plan->order;
    int64_t u = 0;
    int j, k;
    for (j = 0; j < axe__ref_ndim(&rp->s->args[0]); j++) {
        int64_t x = rp->whole[j] == 1 ? 0 : c[o->dim[j]];
        for (k = 0; k < rp->nsub[j]; k++) {
            int64_t w = o->sub_weight[rp->sub[j][k]];
            x = x / (w * o->sub_extent[rp->sub[j][k]]) * w + x % w;
        }
        u = u * rp->len[j] + x;
    }
    for (j = 0; j < o->nsub; j++)
        u = u * o->sub_extent[j] +
            c[o->sub_dim[j]] / o->sub_weight[j] % o->sub_extent[j];
    return u;
}

/* The first thread (in the grid) of the group of element "c" under the
 * plan of "rp" (see the file comment). */
static int64_t group_first(const ax_race *r, const race_plan *rp,
                           const int64_t *c)
{
    const ax_plan *plan = rp->s->plan;
    int64_t rank = 0;
    int k;
    if (rp->s->grid != NULL)
        return axe__grid_rank(rp->s->grid, rp->s, c);
    if (plan->kind == AX_PLAN_SPLIT)
        rank = row_major(rp, c) / (plan->vec * (plan->pair > 0 ? 2 : 1)) %
               plan->nthreads;
    for (k = 0; plan->kind == AX_PLAN_BOUND && k < plan->nloops; k++) {
        const ax_loop *lp = &plan->loops[k];
        if (lp->thread)
            rank += c[lp->dim] / lp->weight % lp->extent * lp->rank_div;
    }
    if (rp->s->scope == AX_SCOPE_KERNEL)
        return rank;
    return r->cta * r->p->threads + r->tid0 + rank;
}

/* The groups of element "c" of the current operator instance. */
void axe__race_element(ax_race *r, const int64_t *c)
{
    int i;
    if (r == NULL)
        return;
    for (i = 0; i < r->s->nargs; i++) {
        int role = r->s->stage[0] != NULL && i > 0;
        int32_t id = (int32_t)(2 * r->s->index + role);
        r->cur[i].thread = (int32_t)group_first(r, &r->plans[id], c);
        r->cur[i].plan = id;
        r->cur[i].phase = r->phase;
    }
}

static int64_t cta_of(const ax_race *r, const race_acc *a)
{
    return a->thread / r->p->threads;
}

static bool single(const ax_race *r, const race_acc *a)
{
    return r->plans[a->plan].nfree == 1;
}

static bool member(const ax_race *r, const race_acc *a, int64_t t)
{
    int64_t d = t - a->thread;
    return d >= 0 && d < r->plans[a->plan].nthreads &&
           r->plans[a->plan].member[d];
}

/* A thread of "a" other than "t" (a is not the single thread t). */
static int64_t other_than(const ax_race *r, const race_acc *a, int64_t t)
{
    const race_plan *rp = &r->plans[a->plan];
    int k;
    for (k = 0; k < rp->nfree; k++)
        if (a->thread + rp->free[k] != t)
            return a->thread + rp->free[k];
    return t;
}

/* Whether "a" (earlier) and "b" are unordered: the same CTA and phase, or
 * different CTAs on a global tensor. */
static bool unordered(const ax_race *r, const race_acc *a, const race_acc *b,
                      bool global)
{
    if (cta_of(r, a) != cta_of(r, b))
        return global;
    return a->phase == b->phase;
}

/* Whether "a" is an atomic access to "tensor": its operator updates its
 * destination atomically, and the tensor is that destination. */
static bool atomic_acc(const ax_race *r, const race_acc *a, int tensor)
{
    const ax_stmt *s = r->p->ops[a->plan / 2];
    return s->atomic && s->args[0].tensor == tensor;
}

/* Two atomic accesses to "tensor" never race with each other. */
static bool exempt(const ax_race *r, const race_acc *a, const race_acc *b,
                   int tensor)
{
    return atomic_acc(r, a, tensor) && atomic_acc(r, b, tensor);
}

static bool differ(const ax_race *r, const race_acc *a, const race_acc *b)
{
    return !(single(r, a) && single(r, b) && a->thread == b->thread);
}

static bool same_race(const axe_race *x, const axe_race *y)
{
    return strcmp(x->tensor, y->tensor) == 0 && x->uninit == y->uninit &&
           x->first.line == y->first.line && x->second.line == y->second.line &&
           x->first.write == y->first.write &&
           x->second.write == y->second.write && x->cross_cta == y->cross_cta;
}

static axe_race_access access_of(const ax_race *r, int64_t t, int32_t plan,
                                 bool write)
{
    axe_race_access a;
    a.thread = t % r->p->threads;
    a.cta = t / r->p->threads;
    a.line = r->p->ops[plan / 2]->line;
    a.write = write;
    const char *iter = r->p->ops[plan / 2]->iter;
    /* A note longer than the field ends in "..." (never cut silently). */
    if (snprintf(a.iter, sizeof a.iter, "%s", iter != NULL ? iter : "") >=
        (int)sizeof a.iter)
        memcpy(a.iter + sizeof a.iter - 4, "...", 4);
    return a;
}

/* Count race "x" (its tensor's index "tensor"): a new entry, or one more
 * of the same race already recorded. */
static void record_race(ax_race *r, int tensor, const axe_race *x)
{
    int k;
    if (r->dry) {
        r->hit = true;
        return;
    }
    r->rep.count++;
    for (k = 0; k < r->rep.n; k++)
        if (same_race(&r->rep.race[k], x)) {
            r->rep.race[k].count++;
            return;
        }
    if (r->rep.n == AXE_RACE_MAX)
        return;
    r->rtensor[r->rep.n] = tensor;
    r->rep.race[r->rep.n++] = *x;
}

/* A race on element "addr" of tensor "tensor", its fields zero but these
 * and a count of 1. */
static axe_race race_at(const ax_race *r, int tensor, int64_t addr)
{
    axe_race x;
    memset(&x, 0, sizeof x);
    snprintf(x.tensor, sizeof x.tensor, "%s", r->p->tensors[tensor].name);
    x.address = addr;
    x.ndim = -1;
    x.count = 1;
    return x;
}

/* Record the race of thread "ta" of "a" (earlier) with thread "tb" of "b"
 * on element "addr" of tensor "tensor". */
static void report(ax_race *r, int tensor, int64_t addr, const race_acc *a,
                   int64_t ta, bool aw, const race_acc *b, int64_t tb, bool bw)
{
    axe_race x = race_at(r, tensor, addr);
    x.first = access_of(r, ta, a->plan, aw);
    x.second = access_of(r, tb, b->plan, bw);
    x.cross_cta = x.first.cta != x.second.cta;
    record_race(r, tensor, &x);
}

/* The pair of distinct threads of "a" and "b" to name (they differ). */
static void pick(const ax_race *r, const race_acc *a, const race_acc *b,
                 int64_t *ta, int64_t *tb)
{
    *ta = a->thread;
    *tb = other_than(r, b, *ta);
    if (*tb == *ta) {
        *tb = b->thread;
        *ta = other_than(r, a, *tb);
    }
}

/* A member of the reading group "b" that is not of the writing group "w"
 * (-1 if none: the writers read back the value they wrote). */
static int64_t outsider(const ax_race *r, const race_acc *b, const race_acc *w)
{
    const race_plan *rp = &r->plans[b->plan];
    int k;
    for (k = 0; k < rp->nfree; k++)
        if (!member(r, w, b->thread + rp->free[k]))
            return b->thread + rp->free[k];
    return -1;
}

/* A read "b" of shared element "addr" that no write in this CTA reached
 * before (the record is cleared when the CTA starts). */
static void uninit_read(ax_race *r, int tensor, int64_t addr, const race_acc *b)
{
    axe_race x = race_at(r, tensor, addr);
    x.first = x.second = access_of(r, b->thread, b->plan, false);
    x.uninit = true;
    record_race(r, tensor, &x);
}

static void on_read(ax_race *r, int tensor, int64_t addr, race_rec *e,
                    const race_acc *b, bool global)
{
    int64_t t;
    if (!global && e->w.thread < 0)
        uninit_read(r, tensor, addr, b);
    if (e->w.thread >= 0 && unordered(r, &e->w, b, global) &&
        !exempt(r, &e->w, b, tensor) && (t = outsider(r, b, &e->w)) >= 0)
        report(r, tensor, addr, &e->w, e->w.thread, true, b, t, false);
    if (e->same[0].thread < 0 || cta_of(r, &e->same[0]) != cta_of(r, b) ||
        e->same[0].phase != b->phase) {
        e->same[0] = *b;
        e->same[1] = none;
    } else if (e->same[1].thread < 0 && differ(r, &e->same[0], b))
        e->same[1] = *b;
    if (!global)
        return;
    if (e->cross[0].thread < 0)
        e->cross[0] = *b;
    else if (e->cross[1].thread < 0 && cta_of(r, &e->cross[0]) != cta_of(r, b))
        e->cross[1] = *b;
}

/* The first conflict of the write "b" with a read since the last write. */
static void war(ax_race *r, int tensor, int64_t addr, const race_rec *e,
                const race_acc *b, bool global)
{
    const race_acc *rd[4] = {&e->same[0], &e->same[1], &e->cross[0],
                             &e->cross[1]};
    int64_t ta, tb;
    int k;
    for (k = 0; k < 4; k++)
        if (rd[k]->thread >= 0 && unordered(r, rd[k], b, global) &&
            !exempt(r, rd[k], b, tensor) && differ(r, rd[k], b)) {
            pick(r, rd[k], b, &ta, &tb);
            report(r, tensor, addr, rd[k], ta, false, b, tb, true);
            return;
        }
}

/* Whether the last write of "e" and the write "b" are one element
 * statement of one operator instance (its replicas write one value). */
static bool same_statement(const ax_race *r, const race_rec *e,
                           const race_acc *b)
{
    return e->exec == r->exec && e->w.thread == b->thread &&
           e->w.plan == b->plan;
}

static void on_write(ax_race *r, int tensor, int64_t addr, race_rec *e,
                     const race_acc *b, bool global)
{
    int64_t ta, tb;
    if (e->w.thread >= 0 && !same_statement(r, e, b) &&
        unordered(r, &e->w, b, global) && !exempt(r, &e->w, b, tensor) &&
        differ(r, &e->w, b)) {
        pick(r, &e->w, b, &ta, &tb);
        report(r, tensor, addr, &e->w, ta, true, b, tb, true);
    }
    war(r, tensor, addr, e, b, global);
    e->w = *b;
    e->exec = r->exec;
    e->same[0] = e->same[1] = e->cross[0] = e->cross[1] = none;
}

/* Operand "arg" of the current element accesses element "addr" of
 * "tensor" (ignored unless the tensor is global or shared). */
void axe__race_access(ax_race *r, int arg, int tensor, int64_t addr, bool write)
{
    race_rec *e;
    bool global;
    if (r == NULL || r->rec[tensor] == NULL || r->status != AXE_OK)
        return;
    AXE_ASSERT(addr >= 0 && addr < r->span[tensor]);
    e = &r->rec[tensor][addr];
    global = r->p->tensors[tensor].mem == AX_MEM_GLOBAL;
    if (write)
        on_write(r, tensor, addr, e, &r->cur[arg], global);
    else
        on_read(r, tensor, addr, e, &r->cur[arg], global);
}

/* The rounds of operand "arg" at "addr" of "tensor" into record "e": a
 * read, and with "rmw" a write after it. */
static void rounds(ax_race *r, int arg, int tensor, int64_t addr, race_rec *e,
                   bool rmw, int64_t n)
{
    bool global = r->p->tensors[tensor].mem == AX_MEM_GLOBAL;
    int64_t k;
    for (k = 0; k < n; k++) {
        on_read(r, tensor, addr, e, &r->cur[arg], global);
        if (rmw)
            on_write(r, tensor, addr, e, &r->cur[arg], global);
    }
}

/* Whether two rounds of operand "arg"'s accesses (a read, with "rmw" a
 * read and then a write, by its current group) to each of the "n"
 * addresses of "tensor" report no race, from the records as they are
 * (each address on a copy of its record; nothing changes). Two rounds
 * reach the records' fixed point: a third, or the rounds of an address
 * listed twice, would do what the second does. */
bool axe__race_range_clean(ax_race *r, int arg, int tensor, const int64_t *addr,
                           int64_t n, bool rmw)
{
    int64_t i;
    if (r == NULL || r->rec[tensor] == NULL || r->status != AXE_OK)
        return true;
    r->dry = true;
    r->hit = false;
    for (i = 0; i < n && !r->hit; i++) {
        race_rec e = r->rec[tensor][addr[i]];
        rounds(r, arg, tensor, addr[i], &e, rmw, 2);
    }
    r->dry = false;
    return !r->hit;
}

/* "reps" rounds of those accesses to each address, whose records end as
 * after any number of rounds from min(reps, 2) on (the caller made sure
 * with axe__race_range_clean that none reports a race). */
void axe__race_range_apply(ax_race *r, int arg, int tensor, const int64_t *addr,
                           int64_t n, int64_t reps, bool rmw)
{
    int64_t i;
    if (r == NULL || r->rec[tensor] == NULL || r->status != AXE_OK)
        return;
    for (i = 0; i < n; i++) {
        race_rec *e = &r->rec[tensor][addr[i]];
        rounds(r, arg, tensor, addr[i], e, rmw, reps < 2 ? reps : 2);
    }
}

void axe__race_store_i4(ax_race *r, int tensor, int64_t addr)
{
    axe__race_access(r, 0, tensor, addr, true);
    if (r != NULL && r->rec[tensor] != NULL && (addr ^ 1) < r->span[tensor])
        axe__race_access(r, 0, tensor, addr ^ 1, true);
}

/* The logical index of the first element of tensor "i" at "addr"
 * ("table": logical index -> address). */
static void logical_index(const axe_program *p, int i, const int64_t *table,
                          axe_race *x)
{
    const ax_tensor *t = &p->tensors[i];
    int64_t n = 1, l;
    int d;
    for (d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    for (l = 0; l < n && table[l] != x->address; l++)
        ;
    if (l == n)
        return;
    x->ndim = t->ndim;
    for (d = t->ndim - 1; d >= 0; d--) {
        x->index[d] = l % t->shape[d];
        l /= t->shape[d];
    }
}

/* The races found ("table": each tensor's logical index -> address), or
 * the detector's capacity error. */
axe_status axe__race_report(const ax_race *r, int64_t *const *table,
                            axe_race_report *out, axe_diag *diag)
{
    int k;
    if (r->status != AXE_OK)
        return axe__fail(diag, r->status, -1, "%s", r->why);
    *out = r->rep;
    for (k = 0; k < out->n; k++)
        logical_index(r->p, r->rtensor[k], table[r->rtensor[k]], &out->race[k]);
    return AXE_OK;
}

/* Add the races of device "device" ("from") to "into": counts add up, a
 * race like one kept (same_race) adds to its count, a new one is kept
 * while there is room. */
void axe__race_merge(axe_race_report *into, const axe_race_report *from,
                     int64_t device)
{
    int k, j;
    into->count += from->count;
    for (k = 0; k < from->n; k++) {
        for (j = 0; j < into->n; j++)
            if (same_race(&into->race[j], &from->race[k]))
                break;
        if (j < into->n)
            into->race[j].count += from->race[k].count;
        else if (into->n < AXE_RACE_MAX) {
            into->race[into->n] = from->race[k];
            into->race[into->n].mesh = true;
            into->race[into->n++].device = device;
        }
    }
}

/* snprintf at "n" of "buf" ("cap" bytes); returns the new length. */
static size_t appendf(char *buf, size_t cap, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static size_t appendf(char *buf, size_t cap, size_t n, const char *fmt, ...)
{
    va_list ap;
    int m;
    va_start(ap, fmt);
    m = vsnprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0, fmt, ap);
    va_end(ap);
    return n + (m > 0 ? (size_t)m : 0);
}

static size_t put_access(char *buf, size_t cap, size_t n,
                         const axe_race_access *a, bool cross)
{
    n = appendf(buf, cap, n, "%s by thread %lld", a->write ? "written" : "read",
                (long long)a->thread);
    if (cross)
        n = appendf(buf, cap, n, " of CTA %lld", (long long)a->cta);
    return appendf(buf, cap, n, " (line %d%s%s)", a->line,
                   a->iter[0] != '\0' ? ", " : "", a->iter);
}

/* The message of race "x" (include/axe/kernel.h). */
size_t axe_race_text(const axe_race *x, char *buf, size_t cap)
{
    size_t n;
    int d;
    if (buf == NULL)
        cap = 0;
    n = appendf(buf, cap, 0, "%s %s",
                x->uninit ? "uninitialized read of" : "race on", x->tensor);
    for (d = 0; d < x->ndim && d < AXE_RACE_MAX_DIMS; d++)
        n = appendf(buf, cap, n, "%s%lld%s", d ? "," : "[",
                    (long long)x->index[d], d + 1 == x->ndim ? "]" : "");
    if (x->ndim < 0)
        n = appendf(buf, cap, n, " at offset %lld", (long long)x->address);
    if (x->mesh)
        n = appendf(buf, cap, n, " on device %lld", (long long)x->device);
    n = appendf(buf, cap, n, ": ");
    if (x->uninit) {
        n = put_access(buf, cap, n, &x->first, false);
        return appendf(buf, cap, n,
                       " before any write to it in CTA %lld (garbage on a "
                       "GPU)",
                       (long long)x->first.cta);
    }
    n = put_access(buf, cap, n, &x->first, x->cross_cta);
    n = appendf(buf, cap, n, ", ");
    n = put_access(buf, cap, n, &x->second, x->cross_cta);
    return appendf(buf, cap, n, ", %s",
                   x->cross_cta ? "threads of different CTAs"
                                : "no sync between");
}
