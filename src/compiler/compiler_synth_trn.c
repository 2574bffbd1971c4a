/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Scratchpad layouts of layout synthesis (issue 15; docs/compiler.md,
 * "Layout synthesis", "Scratchpad tensors"): an `sbuf` or `psum` tensor
 * of a core kernel written `layout auto` gets a layout over P and F
 * (psum: also Bank) before sema. Candidates per tensor: each dimension
 * split at the region lengths its operators take (a: f16[256, 128] used
 * as a[ki % 2 * 128 : +128, 0:128]: dim 0 = (2, 128)), each factor on P,
 * F or Bank, the factors of one axis row-major in factor order. A probe
 * program (the same text and options) is checked once; each assignment
 * is then set into its tensors in place (sema of the tensor again) and
 * every operator whose auto scratchpad operands are all assigned must
 * have an engine schedule by the dispatch predicates themselves
 * (copy.vector, copy.dma, copy.transpose, OP.scalar, OP.vector,
 * reduce.vector, gemm.tensor_engine): a depth-first search over the
 * tensors in declaration order. Among the complete assignments that also
 * fit the scratchpads, the lowest cost wins: the timing model's busy
 * cycles (docs: the trn-sim table) of the operators that touch an auto
 * scratchpad tensor, each weighted by its enclosing loops' trips; ties
 * go to the first in enumeration order (each tensor's candidates ordered
 * factor by factor from the outermost: Bank, F, P for the outermost
 * factor, F, P, Bank for the others). Invariant: a chosen
 * layout is one that sema and dispatch accept with an engine schedule
 * for every operator on it.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth.h"

#define TR_MAX_CANDS 729
#define TR_MAX_FACTORS 6
/* The search's bound: the work of its operator checks, each charged
 * its first operand's elements times its loops' trips (the partition
 * visits of the engines' lane check) and at least 1; past it, or past
 * TR_MAX_LEAVES complete assignments, the search stops and keeps the
 * cheapest assignment found (every one passed every check). */
#define TR_BUDGET ((int64_t)1 << 24) /* element visits */
#define TR_MAX_LEAVES 4096           /* complete assignments costed */

typedef struct tr_tensor {
    int ti, n;
    axe_layout *lay; /* n candidates, in the arena */
} tr_tensor;

typedef struct tr_state {
    axe_program *p, *q; /* the program and the checked probe */
    int nt;
    tr_tensor t[AX_MAX_TENSORS];
    int depth_of[AX_MAX_TENSORS]; /* -1: not an auto scratchpad tensor */
    int *last;                    /* per op: its deepest auto operand, or -1 */
    double *weight;               /* per op: its enclosing loops' trips */
    int pick[AX_MAX_TENSORS], best[AX_MAX_TENSORS];
    /* components: tensors tied by operators on two or more of them,
     * searched one at a time ("cur", its depths "ord"); per tensor its
     * component's results */
    int comp[AX_MAX_TENSORS], cur, nord, ord[AX_MAX_TENSORS];
    double best_cost, runner_cost;
    int64_t leaves, work;
    bool stopped; /* the bound was reached: the search is partial */
    double cost_of[AX_MAX_TENSORS], runner_of[AX_MAX_TENSORS];
    int64_t leaves_of[AX_MAX_TENSORS];
    bool stopped_of[AX_MAX_TENSORS];
    int fail_depth;
    axe_diag fail;
} tr_state;

static bool is_trn_auto(const ax_tensor *t)
{
    return t->autolayout && t->space != AX_SPACE_NONE;
}

/* ---- candidates ---------------------------------------------------- */

/* The factors of dim "d" of tensor "ti": its extent split at the region
 * lengths of the operators' plain regions that divide it and each
 * other (outermost first; factors of 1 dropped, a dim of extent 1 kept
 * as 1). */
static int dim_factors(const axe_program *p, int ti, int d, int64_t *f)
{
    int64_t ext = p->tensors[ti].shape[d], lens[16], cur;
    int n = 0, k, j, nf = 0;
    for (k = 0; k < p->nops; k++)
        for (j = 0; j < p->ops[k]->nargs; j++) {
            const ax_ref *r = &p->ops[k]->args[j];
            int64_t len;
            int i;
            if (r->tensor != ti || r->is_view || r->ndim == 0 || d >= r->ndim)
                continue;
            len = r->len[d];
            for (i = 0; i < n && lens[i] != len; i++)
                ;
            if (i == n && n < 16 && len > 1 && len < ext && ext % len == 0)
                lens[n++] = len;
        }
    /* ascending, kept while each divides the next */
    for (k = 0; k < n; k++)
        for (j = k + 1; j < n; j++)
            if (lens[j] < lens[k]) {
                int64_t x = lens[j];
                lens[j] = lens[k];
                lens[k] = x;
            }
    cur = ext;
    for (k = n - 1; k >= 0; k--) {
        if (cur % lens[k] != 0)
            continue;
        f[nf++] = cur / lens[k];
        cur = lens[k];
    }
    f[nf++] = cur;
    return nf;
}

/* The layout of factors "f" (n) with axes "ax" ('P', 'F', 'B'). */
static void build(const int64_t *f, const char *ax, int n, axe_layout *l)
{
    static const char kinds[] = "PFB";
    static const char *const names[] = {"P", "F", "Bank"};
    int k, i;
    memset(l, 0, sizeof *l);
    l->nshard = (uint8_t)n;
    for (k = 0; k < 3; k++) {
        int64_t s = 1;
        for (i = n - 1; i >= 0; i--) {
            if (ax[i] != kinds[k])
                continue;
            l->shard[i].extent = f[i];
            l->shard[i].stride = f[i] == 1 ? 0 : s;
            strcpy(l->shard[i].axis, names[k]);
            s *= f[i];
        }
    }
}

/* Whether "l" passes sema as tensor "ti"'s own layout. */
static bool alone_ok(const axe_program *p, int ti, const axe_layout *l)
{
    ax_tensor t = p->tensors[ti];
    axe_diag why;
    t.layout = *l;
    return axe__sema_trn_tensor(p, &t, &why) == AXE_OK;
}

/* The candidates of tensor "ti" in enumeration order: assignment
 * digits per factor, outermost first, in the order Bank, F, P for the
 * outermost factor (a buffer digit: separate banks) and F, P, Bank for
 * the others (Bank spends a whole bank per value). */
static axe_status candidates(tr_state *st, int ti, tr_tensor *c, axe_diag *diag)
{
    const ax_tensor *t = &st->p->tensors[ti];
    const char *order = t->space == AX_SPACE_PSUM ? "BFP" : "FP";
    int64_t f[17 * AX_MAX_DIMS]; /* at most 17 factors a dim */
    int n = 0, nax = (int)strlen(order), d;
    int64_t total = 1, x;
    for (d = 0; d < t->ndim; d++)
        n += dim_factors(st->p, ti, d, f + n);
    if (n > TR_MAX_FACTORS)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "layout synthesis: scratchpad tensor '%s' splits "
                         "into %d factors at its regions' lengths, beyond "
                         "%d",
                         t->name, n, TR_MAX_FACTORS);
    for (d = 0; d < n; d++)
        total *= nax;
    c->ti = ti;
    c->n = 0;
    c->lay = axe__arena_alloc(st->p->arena, (size_t)total * sizeof *c->lay);
    if (c->lay == NULL)
        return AXE_ERR_NO_MEMORY;
    for (x = 0; x < total; x++) {
        char ax[TR_MAX_FACTORS];
        int64_t y = x;
        for (d = n - 1; d >= 0; d--) {
            ax[d] = (d > 0 && nax == 3 ? "FPB" : order)[y % nax];
            y /= nax;
        }
        build(f, ax, n, &c->lay[c->n]);
        if (alone_ok(st->p, ti, &c->lay[c->n]))
            c->n++;
    }
    if (c->n == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "layout synthesis: no layout of scratchpad tensor "
                         "'%s' over P and F%s fits the model (its dims "
                         "split into %d factors)",
                         t->name, t->space == AX_SPACE_PSUM ? " and Bank" : "",
                         n);
    return AXE_OK;
}

/* ---- the probe and its in-place layouts ---------------------------- */

/* Layout "l" set as tensor "ti" of the probe, with sema's per-tensor
 * results (storage layout, grouping, span). */
static axe_status put(axe_program *q, int ti, const axe_layout *l,
                      axe_diag *why)
{
    ax_tensor *t = &q->tensors[ti];
    int64_t span = 1;
    t->layout = *l;
    AXE_TRY(axe__sema_trn_tensor(q, t, why));
    AXE_TRY(axe_layout_group(&t->layout, t->shape, t->ndim, &t->grouped,
                             t->seps, why));
    for (int i = 0; i < t->layout.nshard; i++)
        span += (t->layout.shard[i].extent - 1) * t->layout.shard[i].stride;
    for (int i = 0; i < t->layout.noffset; i++)
        span += t->layout.offset[i].value;
    t->span = span;
    return AXE_OK;
}

static axe_status make_probe(tr_state *st, axe_diag *diag)
{
    axe_program *p = st->p;
    axe_allocator al = axe__arena_allocator(p->arena);
    AXE_TRY(axe__program_new(p->text, p->len, &p->opts, &al, &st->q));
    AXE_TRY(axe__program_parse(st->q, diag));
    if (st->q->ntensors != p->ntensors || st->q->nops != p->nops)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "layout synthesis: the probe differs from the "
                         "program");
    /* placeholders: each tensor's candidate of the fewest free elements
     * per partition, so that the probe's scratchpads fit if any do */
    for (int k = 0; k < st->nt; k++) {
        const tr_tensor *c = &st->t[k];
        int64_t least = -1;
        for (int i = 0; i < c->n; i++) {
            ax_tensor t = p->tensors[c->ti];
            axe_diag why;
            t.layout = c->lay[i];
            if (axe__sema_trn_tensor(p, &t, &why) == AXE_OK &&
                (least < 0 || t.fspan < least)) {
                least = t.fspan;
                st->q->tensors[c->ti].layout = c->lay[i];
            }
        }
    }
    return axe__program_check(st->q, diag);
}

/* The loop trips around each operator (both branches of an if count). */
static void weigh(tr_state *st, const ax_stmt *s, double w)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP && s->index >= 0 && s->index < st->q->nops)
            st->weight[s->index] = w;
        if (s->kind == AX_ST_FOR)
            weigh(st, s->body, w * (double)(s->trip > 0 ? s->trip : 0));
        if (s->kind == AX_ST_IF) {
            weigh(st, s->body, w);
            weigh(st, s->else_body, w);
        }
    }
}

/* ---- operators on engines ------------------------------------------ */

/* The engine schedules of "s" in dispatch's order. */
static const char *const *engine_names(const ax_stmt *s)
{
    static const char *const copy[] = {"vector", "dma", "transpose", NULL};
    static const char *const gemm[] = {"tensor_engine", NULL};
    static const char *const red[] = {"vector", NULL};
    static const char *const map[] = {"scalar", "vector", NULL};
    return s->op == AX_OP_COPY     ? copy
           : s->op == AX_OP_GEMM   ? gemm
           : s->op == AX_OP_REDUCE ? red
                                   : map;
}

/* A reason that refuses the operator's kind or form outright ("exp is
 * no vector-engine instruction", "... is no transpose"): listed after
 * the reasons of the engines that got further. */
static bool refuses_kind(const char *msg)
{
    return strstr(msg, " is no ") != NULL || strstr(msg, " are no ") != NULL;
}

/* Appends "op.engine: reason" to "all" (length *len, capped). */
static void add_reason(char *all, size_t cap, size_t *len, const ax_stmt *s,
                       const char *eng, const char *msg)
{
    *len +=
        (size_t)snprintf(all + *len, *len < cap ? cap - *len : 0, "%s%s.%s: %s",
                         *len ? "; " : "", axe__op_name(s->op), eng, msg);
    if (*len >= cap)
        *len = cap - 1;
}

/* The first engine schedule of "s" on the probe (its index in
 * engine_names), or -1 with the reasons in "why": those of the engines
 * that run the operator's kind first (the message is capped). */
static int engine_of(tr_state *st, ax_stmt *s, axe_diag *why)
{
    const char *const *nm = engine_names(s);
    char all[sizeof why->message] = "";
    axe_diag w[4];
    size_t len = 0;
    int n = 0;
    for (; nm[n] != NULL; n++)
        if (axe__schedule_try(st->q, s, nm[n], &w[n]) == AXE_OK)
            return n;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (refuses_kind(w[i].message) == (pass == 1))
                add_reason(all, sizeof all, &len, s, nm[i], w[i].message);
    (void)axe__fail(why, AXE_ERR_UNSUPPORTED, s->off, "%s", all);
    return -1;
}

/* Elements of region "r" of the probe and the distinct partitions they
 * lie on, the starts at their least values. */
static axe_status region_parts(const tr_state *st, const ax_ref *r,
                               int64_t *elems, int64_t *parts)
{
    const ax_tensor *t = &st->q->tensors[r->tensor];
    int64_t shape[AX_MAX_DIMS], at[AX_MAX_DIMS], c[AX_MAX_DIMS], n = 1, e;
    int nd = axe__synth_ref_shape(st->q, r, shape), d;
    bool seen[1024];
    memset(seen, 0, sizeof seen);
    for (d = 0; d < nd; d++) {
        int64_t hi;
        at[d] = 0;
        if (r->ndim > d && r->start[d] != NULL)
            AXE_TRY(axe__expr_range(st->q, r->start[d], &at[d], &hi));
        n *= shape[d];
    }
    *elems = n;
    *parts = 0;
    for (e = 0; e < n; e++) {
        int64_t x = e, pt[2];
        for (d = nd - 1; d >= 0; d--) {
            c[d] = at[d] + x % shape[d];
            x /= shape[d];
        }
        AXE_TRY(axe__trn_point(t, c, pt));
        if (pt[0] >= 0 && pt[0] < 1024 && !seen[pt[0]]) {
            seen[pt[0]] = true;
            (*parts)++;
        }
    }
    if (*parts == 0)
        *parts = 1;
    return AXE_OK;
}

/* The cycles of copy "s" per run from its committed descriptors. */
static double copy_cycles(const tr_state *st, const ax_stmt *s)
{
    const axe_trn_model *m = &st->q->opts.trn;
    const ax_trn_copy *c = s->tcopy;
    int64_t es = axe_dtype_size(st->q->tensors[s->args[0].tensor].dtype);
    double sum = 0;
    for (int64_t i = 0; i < c->ndesc; i++) {
        const ax_trn_desc *d = &c->d[i];
        int64_t n = 1, parts = 1, k = 1;
        for (int l = 0; l < d->nlev; l++) {
            n *= d->n[l];
            if (d->step[l][2] != 0)
                parts = d->n[l];
            if (d->step[l][0] != 0)
                k = d->n[l];
        }
        if (c->transpose)
            sum += (double)(m->matmul_fixed_cycles + k);
        else if (c->dma)
            sum += (double)(m->dma_fixed_cycles +
                            (n * es + m->dma_bytes_per_cycle - 1) /
                                m->dma_bytes_per_cycle);
        else
            sum += (double)(m->vector_fixed_cycles +
                            (n / parts + m->vector_elems_per_cycle - 1) /
                                m->vector_elems_per_cycle);
    }
    return c->ncombo > 0 ? sum / (double)c->ncombo : sum;
}

/* The cycles of one run of "s" on its first engine schedule (committed
 * on the probe for gemm and copies; "*ok" false: none applies). */
static axe_status op_cycles(tr_state *st, ax_stmt *s, double *cyc, bool *ok)
{
    const axe_trn_model *m = &st->q->opts.trn;
    ax_plan plan;
    axe_diag why;
    int64_t n, parts;
    *ok = true;
    if (s->op == AX_OP_GEMM) {
        *ok = axe__gemm_tensor_engine(st->q, s, &plan, &why, true) == AXE_OK;
        if (*ok)
            *cyc = (double)s->trn->ninst *
                   (double)(m->matmul_fixed_cycles + s->trn->shape[1]);
        return AXE_OK;
    }
    if (s->op == AX_OP_COPY) {
        /* dispatch's order: copy.vector, copy.dma, copy.transpose */
        *ok = axe__copy_vector_engine(st->q, s, &plan, &why, true) == AXE_OK ||
              axe__copy_dma(st->q, s, &plan, &why, true) == AXE_OK ||
              axe__copy_transpose(st->q, s, &plan, &why, true) == AXE_OK;
        if (*ok)
            *cyc = copy_cycles(st, s);
        return AXE_OK;
    }
    AXE_TRY(
        region_parts(st, &s->args[s->op == AX_OP_REDUCE ? 1 : 0], &n, &parts));
    *cyc = (double)(m->vector_fixed_cycles +
                    ((n + parts - 1) / parts + m->vector_elems_per_cycle - 1) /
                        m->vector_elems_per_cycle);
    return AXE_OK;
}

/* ---- the search ---------------------------------------------------- */

/* Whether "s" names a tensor of the component searched. */
static bool touches_cur(const tr_state *st, const ax_stmt *s)
{
    for (int j = 0; j < s->nargs; j++) {
        int d = st->depth_of[s->args[j].tensor];
        if (d >= 0 && st->comp[d] == st->cur)
            return true;
    }
    return false;
}

/* The cost of the complete assignment on the probe (every operator on
 * it was checked to have an engine schedule). */
static axe_status leaf_cost(tr_state *st, double *cost, axe_diag *diag)
{
    *cost = 0;
    for (int k = 0; k < st->q->nops; k++) {
        ax_stmt *s = st->q->ops[k];
        double c = 0;
        bool ok;
        if (s->dead || !touches_cur(st, s))
            continue;
        AXE_TRY(op_cycles(st, s, &c, &ok));
        if (!ok)
            return axe__fail(diag, AXE_ERR_INVALID, s->off,
                             "layout synthesis: an operator checked on an "
                             "engine schedule has none");
        *cost += c * st->weight[s->index];
    }
    return AXE_OK;
}

/* The work of checking "s" once: its first operand's elements times the
 * values of the loops its regions read (the lane check visits each), at most
 * 2^24 (the lane check refuses more without visiting), at least 1, times its
 * engines. */
static int64_t check_work(const tr_state *st, const ax_stmt *s)
{
    int64_t shape[AX_MAX_DIMS], e = 1;
    ax_trn_copy c;
    axe_diag why;
    double w;
    int nd, n = 0;
    memset(&c, 0, sizeof c);
    if (s->nargs == 0 || s->op == AX_OP_GEMM) /* a gemm visits no element */
        return 1;
    if (axe__trn_loops(st->q, s, &c, &why) != AXE_OK)
        return 1; /* refused before visiting */
    nd = axe__synth_ref_shape(st->q, &s->args[0], shape);
    for (int d = 0; d < nd; d++)
        e *= shape[d];
    while (engine_names(s)[n] != NULL)
        n++;
    w = (double)e * (double)c.ncombo;
    w = w < 1 ? 1 : w > (double)(1 << 24) ? (double)(1 << 24) : w;
    return (int64_t)w * n;
}

static bool over_budget(tr_state *st)
{
    if (st->work >= TR_BUDGET || st->leaves == TR_MAX_LEAVES)
        st->stopped = true;
    return st->stopped;
}

static bool ops_ok_one(tr_state *st, int k, int depth)
{
    ax_stmt *s = st->q->ops[k];
    axe_diag why;
    char label[48];
    int64_t w;
    if (s->dead)
        return true;
    w = check_work(st, s);
    if (w > TR_BUDGET - st->work) { /* not checked: the bound */
        st->stopped = true;
        return false;
    }
    st->work += w;
    if (engine_of(st, s, &why) >= 0)
        return true;
    if (depth >= st->fail_depth) {
        st->fail_depth = depth;
        axe__synth_label(st->q, k, label, sizeof label);
        (void)axe__fail(&st->fail, AXE_ERR_UNSUPPORTED, s->off,
                        "%s (line %d): %s", label, s->line, why.message);
    }
    return false;
}

static bool ops_ok(tr_state *st, int depth)
{
    for (int k = 0; k < st->q->nops; k++)
        if (st->last[k] == depth && !ops_ok_one(st, k, depth))
            return false;
    return true;
}

static axe_status bound_fail(const tr_state *st, int ti, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_CAPACITY, st->p->tensors[ti].off,
                     "layout synthesis: the scratchpad search reached its "
                     "bound (%lld element visits of its operator checks, "
                     "%d complete assignments) before an assignment of "
                     "'%s' put every operator on an engine (write its "
                     "layout)",
                     (long long)TR_BUDGET, TR_MAX_LEAVES,
                     st->p->tensors[ti].name);
}

/* Node consistency before the search: each tensor's candidates are
 * kept only when every operator whose one auto scratchpad operand is
 * that tensor has an engine schedule; those operators are not checked
 * again (last -2). */
static axe_status prefilter(tr_state *st, axe_diag *diag)
{
    int *nauto = axe__arena_alloc(st->p->arena,
                                  (size_t)(st->q->nops + 1) * sizeof *nauto);
    if (nauto == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int k = 0; k < st->q->nops; k++) {
        const ax_stmt *s = st->q->ops[k];
        bool seen[AX_MAX_TENSORS] = {false};
        nauto[k] = 0;
        for (int j = 0; j < s->nargs; j++) {
            int ti = s->args[j].tensor;
            if (st->depth_of[ti] >= 0 && !seen[ti]) {
                seen[ti] = true;
                nauto[k]++;
            }
        }
    }
    for (int d = 0; d < st->nt; d++) {
        tr_tensor *c = &st->t[d];
        int kept = 0;
        ax_tensor keep = st->q->tensors[c->ti];
        st->work = 0; /* a bound per tensor */
        st->stopped = false;
        for (int i = 0; i < c->n && !over_budget(st); i++) {
            axe_diag why;
            bool ok = put(st->q, c->ti, &c->lay[i], &why) == AXE_OK;
            for (int k = 0; ok && k < st->q->nops; k++)
                if (nauto[k] == 1 && st->last[k] == d)
                    ok = ops_ok_one(st, k, d);
            if (ok)
                c->lay[kept++] = c->lay[i];
        }
        c->n = kept;
        st->stopped_of[d] = st->stopped;
        if (kept == 0 && st->stopped)
            return bound_fail(st, c->ti, diag);
        if (kept == 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED,
                             st->p->tensors[c->ti].off,
                             "layout synthesis: no layout of '%s' fits %s",
                             st->p->tensors[c->ti].name, st->fail.message);
        st->q->tensors[c->ti] = keep; /* the placeholder again */
    }
    for (int k = 0; k < st->q->nops; k++)
        if (nauto[k] == 1)
            st->last[k] = -2;
    return AXE_OK;
}

static axe_status leaf(tr_state *st, axe_diag *diag)
{
    axe_diag why;
    double cost;
    if (axe__sema_trn_resources(st->q, &why) != AXE_OK) {
        if (st->nt >= st->fail_depth) {
            st->fail_depth = st->nt;
            st->fail = why;
        }
        return AXE_OK;
    }
    AXE_TRY(leaf_cost(st, &cost, diag));
    st->leaves++;
    if (st->leaves == 1 || cost < st->best_cost) {
        st->runner_cost = st->leaves == 1 ? -1 : st->best_cost;
        st->best_cost = cost;
        for (int i = 0; i < st->nord; i++) /* this component's only */
            st->best[st->ord[i]] = st->pick[st->ord[i]];
    } else if (st->runner_cost < 0 || cost < st->runner_cost)
        st->runner_cost = cost;
    return AXE_OK;
}

/* Position "pos" of the component's tensors in declaration order. */
static axe_status dfs(tr_state *st, int pos, axe_diag *diag)
{
    const tr_tensor *c;
    axe_diag why;
    int depth;
    if (pos == st->nord)
        return leaf(st, diag);
    depth = st->ord[pos];
    c = &st->t[depth];
    for (int i = 0; i < c->n; i++) {
        if (over_budget(st))
            return AXE_OK;
        if (put(st->q, c->ti, &c->lay[i], &why) != AXE_OK)
            continue;
        st->pick[depth] = i;
        if (ops_ok(st, depth))
            AXE_TRY(dfs(st, pos + 1, diag));
    }
    return AXE_OK;
}

static axe_status report(tr_state *st, ax_synth_report *r, axe_diag *diag)
{
    for (int k = 0; k < st->nt; k++) {
        ax_synth_tensor *e;
        char rc[32] = "none";
        if (r->ntensors == AX_MAX_TENSORS)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "layout synthesis: more than %d tensors to "
                             "report",
                             AX_MAX_TENSORS);
        e = &r->tensors[r->ntensors++];
        e->tensor = st->t[k].ti;
        e->no_ldsm_op = -1;
        e->no_ldsm[0] = '\0';
        if (st->runner_of[k] >= 0)
            snprintf(rc, sizeof rc, "%.17g", st->runner_of[k]);
        if (snprintf(
                e->how, sizeof e->how, /* cut only at extreme values */
                "scratchpad: first cheapest of %lld assignments with every "
                "operator on an engine%s (cost %.17g busy cycles of the "
                "timing model; next %.24s)",
                (long long)st->leaves_of[k],
                st->stopped_of[k] ? ", the search stopped at its bound" : "",
                st->cost_of[k], rc) >= (int)sizeof e->how)
            e->how[sizeof e->how - 2] = '~';
    }
    return AXE_OK;
}

static int root(tr_state *st, int d)
{
    while (st->comp[d] != d)
        d = st->comp[d] = st->comp[st->comp[d]];
    return d;
}

static void join(tr_state *st, int a, int b)
{
    a = root(st, a);
    b = root(st, b);
    st->comp[a > b ? a : b] = a < b ? a : b;
}

static axe_status setup(tr_state *st, axe_diag *diag)
{
    axe_program *p = st->p;
    for (int i = 0; i < p->ntensors; i++) {
        st->depth_of[i] = -1;
        if (!is_trn_auto(&p->tensors[i]))
            continue;
        st->depth_of[i] = st->nt;
        AXE_TRY(candidates(st, i, &st->t[st->nt], diag));
        st->nt++;
    }
    st->last =
        axe__arena_alloc(p->arena, (size_t)(p->nops + 1) * sizeof *st->last);
    st->weight =
        axe__arena_alloc(p->arena, (size_t)(p->nops + 1) * sizeof *st->weight);
    if (st->last == NULL || st->weight == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int d = 0; d < st->nt; d++)
        st->comp[d] = d;
    for (int k = 0; k < p->nops; k++) {
        st->last[k] = -1;
        for (int j = 0; j < p->ops[k]->nargs; j++) {
            int dd = st->depth_of[p->ops[k]->args[j].tensor];
            if (dd >= 0 && st->last[k] >= 0)
                join(st, dd, st->last[k]);
            st->last[k] = dd > st->last[k] ? dd : st->last[k];
        }
    }
    for (int d = 0; d < st->nt; d++)
        st->comp[d] = root(st, d);
    return AXE_OK;
}

/* The search of component "cur" on the probe: its chosen candidates
 * set into the probe and st->best, or the refusal. */
static axe_status search_one(tr_state *st, axe_diag *diag)
{
    axe_diag why;
    st->nord = 0;
    for (int d = 0; d < st->nt; d++)
        if (st->comp[d] == st->cur)
            st->ord[st->nord++] = d;
    st->leaves = 0;
    st->work = 0;
    st->stopped = false;
    st->fail_depth = -1;
    AXE_TRY(dfs(st, 0, diag));
    for (int i = 0; i < st->nord; i++) /* a filter stopped early */
        st->stopped = st->stopped || st->stopped_of[st->ord[i]];
    if (st->leaves == 0 && st->stopped)
        return bound_fail(st, st->t[st->ord[0]].ti, diag);
    if (st->leaves == 0)
        return axe__fail(
            diag, AXE_ERR_UNSUPPORTED,
            st->fail.offset >= 0 ? st->fail.offset
                                 : st->p->tensors[st->t[st->ord[0]].ti].off,
            "layout synthesis: no scratchpad layouts fit %s",
            st->fail.message[0] ? st->fail.message : "(no operator checked)");
    for (int i = 0; i < st->nord; i++) {
        int d = st->ord[i];
        if (put(st->q, st->t[d].ti, &st->t[d].lay[st->best[d]], &why) !=
            AXE_OK) /* checked in the search: not expected */
            return axe__fail(diag, AXE_ERR_INVALID, -1, "%s", why.message);
        st->cost_of[d] = st->best_cost;
        st->runner_of[d] = st->runner_cost;
        st->leaves_of[d] = st->leaves;
        st->stopped_of[d] = st->stopped_of[d] || st->stopped;
    }
    return AXE_OK;
}

/* The search on the probe, one component after another (the ones before
 * on their choices, the ones after on their placeholders). */
static axe_status search(tr_state *st, axe_diag *diag)
{
    weigh(st, st->q->body, 1.0);
    AXE_TRY(prefilter(st, diag));
    for (int d = 0; d < st->nt; d++)
        if (st->comp[d] == d) {
            st->cur = d;
            AXE_TRY(search_one(st, diag));
        }
    return AXE_OK;
}

axe_status axe__synth_trn(axe_program *p, ax_synth_report *r, axe_diag *diag)
{
    tr_state *st;
    axe_status rc;
    bool any = false;
    for (int i = 0; i < p->ntensors; i++)
        any = any || is_trn_auto(&p->tensors[i]);
    if (!any)
        return AXE_OK;
    AXE_TRY(axe__trn_model_check(&p->opts.trn, diag));
    st = axe__arena_alloc(p->arena, sizeof *st);
    if (st == NULL)
        return AXE_ERR_NO_MEMORY;
    memset(st, 0, sizeof *st);
    st->p = p;
    st->fail_depth = -1;
    AXE_TRY(setup(st, diag));
    rc = make_probe(st, diag);
    if (rc == AXE_OK)
        rc = search(st, diag);
    if (st->q != NULL)
        axe_program_free(st->q);
    st->q = NULL;
    AXE_TRY(rc);
    for (int k = 0; k < st->nt; k++)
        p->tensors[st->t[k].ti].layout = st->t[k].lay[st->best[k]];
    return report(st, r, diag);
}
