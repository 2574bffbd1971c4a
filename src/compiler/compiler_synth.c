/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Register layout synthesis (issue 15 §2, Hexcute's Algorithm 1) on the
 * parsed program, before sema. The operator graph is the operator list:
 * an operator relates the register tensors it names. Unknowns are the
 * `layout auto` register tensors; hand-written layouts are solved from
 * the start (pinned: constraints that synthesis respects, never changes).
 *
 *   1. A register used by a thread-scope operator is per-thread storage:
 *      row-major, no thread axis.
 *   2. Anchors: each gemm whose C is unknown gets C tiled by the target's
 *      mma atom over the scope's warps (compiler_synth_anchor.c).
 *   3. Ready queue: every constraint with one unknown left is solved
 *      (elementwise, cast, copy between registers: equal layouts; reduce
 *      and broadcast operands: the projection of the reduced dimension),
 *      until nothing changes.
 *   4. When unknowns remain, the copy between memory and an unknown
 *      register that moves the most data becomes an anchor (a layout built
 *      for coalescing), then 3 again; its leaves are searched depth-first
 *      with the copy anchors after it, scored on the whole program (the
 *      copy anchors' search below).
 *
 * Consistency: a constraint whose operands are all solved is checked. A
 * register copy between two layouts that disagree is a rearrange (staged
 * through shared memory by copy.smem) and is reported with its scratch
 * size; at any other operator whose solved layouts disagree (one of them
 * synthesized), a rearrange of the source into the reference's layout is
 * inserted before it (compiler_synth_insert.c) and reported.
 */
#include <stdio.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_synth.h"

typedef struct sy_state {
    axe_program *p;
    ax_synth_report *r;
    bool solved[AX_MAX_TENSORS];
    /* A trial of the anchor search (gemm_search): conflicts are counted
     * (once per operator, in "conflict") instead of resolved. */
    bool dry;
    bool *conflict;
    int conflicts;
    int64_t conflict_bytes;   /* registers per thread of the rearranged */
    struct sy_copies *copies; /* the copy anchors' search (step 4) */
} sy_state;

int axe__synth_ref_shape(const axe_program *p, const ax_ref *r, int64_t *shape)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    int d;
    if (r->is_view) {
        for (d = 0; d < r->view.nshard && d < AX_MAX_DIMS; d++)
            shape[d] = r->view.shard[d].extent;
        return d;
    }
    for (d = 0; d < t->ndim; d++)
        shape[d] = r->ndim == 0 ? t->shape[d] : r->len[d];
    return t->ndim;
}

void axe__synth_label(const axe_program *p, int op, char *buf, size_t cap)
{
    (void)snprintf(buf, cap, "%s#%d", axe__op_name(p->ops[op]->op), op);
}

/* compiler_synth.h */
bool axe__synth_ref_whole(const axe_program *p, const ax_ref *r)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    if (r->is_view || r->bdim >= 0 || r->any_masked ||
        (r->ndim != 0 && r->ndim != t->ndim))
        return false;
    for (int d = 0; d < r->ndim; d++)
        if ((r->start[d] != NULL &&
             (r->start[d]->kind != AX_EX_INT || r->start[d]->value != 0)) ||
            r->len[d] != t->shape[d])
            return false;
    return true;
}

/* compiler_synth.h */
bool axe__synth_whole(const axe_program *p, const ax_ref *r)
{
    return p->tensors[r->tensor].mem == AX_MEM_REGISTER &&
           axe__synth_ref_whole(p, r);
}

static axe_status set_how(sy_state *st, int tensor, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static axe_status set_how(sy_state *st, int tensor, const char *fmt, ...)
{
    ax_synth_tensor *e = &st->r->tensors[st->r->ntensors++];
    va_list ap;
    e->tensor = tensor;
    e->no_ldsm_op = -1;
    e->no_ldsm[0] = '\0';
    va_start(ap, fmt);
    (void)vsnprintf(e->how, sizeof e->how, fmt, ap);
    va_end(ap);
    st->solved[tensor] = true;
    return AXE_OK;
}

static bool is_unknown(const sy_state *st, const ax_ref *r)
{
    return !st->solved[r->tensor];
}

/* Step 1: registers of thread-scope operators are per-thread. */
static axe_status per_thread(sy_state *st)
{
    int i, a;
    for (i = 0; i < st->p->nops; i++) {
        const ax_stmt *s = st->p->ops[i];
        for (a = 0; a < s->nargs && s->scope == AX_SCOPE_THREAD; a++) {
            ax_tensor *t = &st->p->tensors[s->args[a].tensor];
            char label[48];
            if (t->mem != AX_MEM_REGISTER || st->solved[s->args[a].tensor])
                continue;
            AXE_TRY(axe_layout_row_major(t->shape, t->ndim, &t->layout));
            axe__synth_label(st->p, i, label, sizeof label);
            AXE_TRY(set_how(st, s->args[a].tensor,
                            "per-thread, row-major (thread-scope %s)", label));
        }
    }
    return AXE_OK;
}

static axe_status add_choice(sy_state *st, const ax_synth_choice *ch)
{
    if (st->r->nchoices == AX_SYNTH_MAX_ITEMS)
        return AXE_ERR_CAPACITY;
    st->r->choices[st->r->nchoices++] = *ch;
    return AXE_OK;
}

/* Step 2: gemm anchors (C unknown, whole, at a collective scope), chosen
 * together by gemm_anchors (below the ready queue). */
static axe_status propagate(sy_state *st, axe_diag *diag);
static axe_status copy_anchors(sy_state *st, axe_diag *diag);
static int largest_copy(const sy_state *st, int *reg);

/* compiler_synth.h */
bool axe__synth_pointwise(ax_op op)
{
    return op != AX_OP_REDUCE && op != AX_OP_GEMM && op != AX_OP_FILL &&
           op != AX_OP_IOTA;
}

static axe_status add_rearrange(sy_state *st, const ax_stmt *s)
{
    const ax_tensor *t = &st->p->tensors[s->args[0].tensor];
    ax_synth_rearrange *e;
    int64_t n = 1;
    int d, i;
    for (i = 0; i < st->r->nrearranges; i++)
        if (st->r->rearranges[i].op == s->index)
            return AXE_OK;
    if (st->r->nrearranges == AX_SYNTH_MAX_ITEMS)
        return AXE_ERR_CAPACITY;
    for (d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    e = &st->r->rearranges[st->r->nrearranges++];
    e->op = s->index;
    e->tensor = s->args[0].tensor;
    e->smem_bytes = n * axe_dtype_size(t->dtype);
    return AXE_OK;
}

/* A trial's conflict at "s" (counted once per operator), whose
 * rearrange would add a register of "tensor"'s dtype with layout "l". */
static axe_status count_conflict(sy_state *st, const ax_stmt *s, int tensor,
                                 const axe_layout *l)
{
    int64_t span;
    if (!st->conflict[s->index]) {
        st->conflict[s->index] = true;
        st->conflicts++;
        if (axe_layout_span(l, "m", &span) == AXE_OK)
            st->conflict_bytes +=
                span * axe_dtype_size(st->p->tensors[tensor].dtype);
    }
    return AXE_OK;
}

/* Two solved operands of "s", the reference "ka" and the source "a":
 * equal layouts; a register copy between layouts that differ (then the
 * copy is the rearrange); or a rearrange inserted before "s" that gives
 * the source the reference's layout (its whole operands of that tensor
 * read the new register), unless both were written by hand (then
 * dispatch decides). */
static axe_status reconcile(sy_state *st, ax_stmt *s, int ka, int a,
                            bool *changed, axe_diag *diag)
{
    int k = s->args[ka].tensor, t = s->args[a].tensor, made, i;
    ax_stmt *n;
    char label[48], nlabel[48];
    bool same = false;
    if (!st->p->tensors[k].autolayout && !st->p->tensors[t].autolayout)
        return AXE_OK;
    AXE_TRY(axe_layout_equivalent(&st->p->tensors[k].layout,
                                  &st->p->tensors[t].layout, &same, NULL));
    if (same)
        return AXE_OK;
    if (s->op == AX_OP_COPY)
        return add_rearrange(st, s);
    if (st->dry)
        return count_conflict(st, s, t, &st->p->tensors[k].layout);
    AXE_TRY(axe__synth_insert_rearrange(st->p, s, t, &st->p->tensors[k].layout,
                                        &made, &n, diag));
    for (i = 1; i < s->nargs; i++)
        if (s->args[i].tensor == t && axe__synth_whole(st->p, &s->args[i]))
            s->args[i].tensor = made;
    axe__synth_label(st->p, s->index, label, sizeof label);
    axe__synth_label(st->p, n->index, nlabel, sizeof nlabel);
    AXE_TRY(set_how(st, made,
                    "'%s' rearranged into the layout of '%s' for %s (the "
                    "inserted rearrange %s)",
                    st->p->tensors[t].name, st->p->tensors[k].name, label,
                    nlabel));
    *changed = true;
    return add_rearrange(st, n);
}

/* Elementwise, cast, copy, select, comparisons: the whole register
 * operands share one layout (the reference: the first solved one, the
 * destination when it is a solved register); a broadcast operand is its
 * projection. */
static axe_status solve_pointwise(sy_state *st, ax_stmt *s, bool *changed,
                                  axe_diag *diag)
{
    int a, known = -1, ka = -1;
    char label[48];
    axe__synth_label(st->p, s->index, label, sizeof label);
    for (a = 0; a < s->nargs; a++)
        if (axe__synth_whole(st->p, &s->args[a]) &&
            !is_unknown(st, &s->args[a])) {
            if (known >= 0 && known != s->args[a].tensor)
                AXE_TRY(reconcile(st, s, ka, a, changed, diag));
            else if (known < 0)
                known = s->args[a].tensor, ka = a;
        }
    if (known < 0)
        return AXE_OK;
    for (a = 0; a < s->nargs; a++) {
        const ax_ref *r = &s->args[a];
        ax_tensor *t = &st->p->tensors[r->tensor];
        if (!is_unknown(st, r) || t->mem != AX_MEM_REGISTER)
            continue;
        if (axe__synth_whole(st->p, r)) {
            t->layout = st->p->tensors[known].layout;
            AXE_TRY(set_how(st, r->tensor, "equal to '%s' (%s, %s)",
                            st->p->tensors[known].name, label,
                            s->op == AX_OP_COPY ? "copy" : "elementwise"));
            *changed = true;
        } else if (r->bdim >= 0 && !r->is_view && r->ndim == 0) {
            int64_t shape[AX_MAX_DIMS];
            int n = axe__synth_ref_shape(st->p, &s->args[ka], shape);
            AXE_TRY(axe__synth_project(&st->p->tensors[known].layout, shape, n,
                                       r->bdim, &t->layout));
            AXE_TRY(set_how(st, r->tensor,
                            "projection of '%s' without dim %d (broadcast "
                            "operand of %s)",
                            st->p->tensors[known].name, r->bdim, label));
            *changed = true;
        }
    }
    return AXE_OK;
}

/* reduce(d, s, kind, k): d is the projection of s without dim k. */
static axe_status solve_reduce(sy_state *st, const ax_stmt *s, bool *changed)
{
    const ax_ref *d = &s->args[0], *src = &s->args[1];
    int64_t shape[AX_MAX_DIMS];
    char label[48];
    int n;
    if (!axe__synth_whole(st->p, d) || !axe__synth_whole(st->p, src) ||
        !is_unknown(st, d) || is_unknown(st, src))
        return AXE_OK;
    n = axe__synth_ref_shape(st->p, src, shape);
    if (s->rdim >= n)
        return AXE_OK; /* sema refuses it */
    AXE_TRY(axe__synth_project(&st->p->tensors[src->tensor].layout, shape, n,
                               s->rdim, &st->p->tensors[d->tensor].layout));
    axe__synth_label(st->p, s->index, label, sizeof label);
    *changed = true;
    return set_how(st, d->tensor, "projection of '%s' without dim %d (%s)",
                   st->p->tensors[src->tensor].name, s->rdim, label);
}

/* Register operand "o" of gemm "s", solved, against the layout "l" that
 * C implies: a rearrange into "l" inserted before "s" when they differ
 * (one of them synthesized; a trial counts it). */
static axe_status gemm_conflict(sy_state *st, ax_stmt *s, int o,
                                const axe_layout *l, bool *changed,
                                axe_diag *diag)
{
    int t = s->args[o].tensor, c = s->args[0].tensor, made;
    ax_stmt *n;
    char label[48], nlabel[48];
    bool same = false;
    if (!st->p->tensors[t].autolayout && !st->p->tensors[c].autolayout)
        return AXE_OK;
    AXE_TRY(axe_layout_equivalent(l, &st->p->tensors[t].layout, &same, NULL));
    if (same)
        return AXE_OK;
    if (st->dry)
        return count_conflict(st, s, t, l);
    AXE_TRY(axe__synth_insert_rearrange(st->p, s, t, l, &made, &n, diag));
    s->args[o].tensor = made;
    axe__synth_label(st->p, s->index, label, sizeof label);
    axe__synth_label(st->p, n->index, nlabel, sizeof nlabel);
    AXE_TRY(set_how(st, made,
                    "'%s' rearranged into the %s layout that C '%s' implies "
                    "for %s (Theorem 1; the inserted rearrange %s)",
                    st->p->tensors[t].name, o == 1 ? "A" : "B",
                    st->p->tensors[c].name, label, nlabel));
    *changed = true;
    return add_rearrange(st, n);
}

/* gemm: register A (and B at warp scope) from C's tiling (Theorem 1);
 * a solved operand of another layout is a conflict. */
static axe_status solve_gemm(sy_state *st, ax_stmt *s, bool *changed,
                             axe_diag *diag)
{
    char label[48];
    int o;
    if (is_unknown(st, &s->args[0]) || !axe__synth_whole(st->p, &s->args[0]))
        return AXE_OK;
    axe__synth_label(st->p, s->index, label, sizeof label);
    for (o = 1; o < 3; o++) {
        const ax_ref *r = &s->args[o];
        axe_layout l;
        axe_status rc;
        if (!axe__synth_whole(st->p, r))
            continue;
        rc = axe__synth_gemm_operand(st->p, s, o, &l);
        if (rc == AXE_ERR_UNSUPPORTED)
            continue;
        AXE_TRY(rc);
        if (!is_unknown(st, r)) {
            AXE_TRY(gemm_conflict(st, s, o, &l, changed, diag));
            continue;
        }
        st->p->tensors[r->tensor].layout = l;
        AXE_TRY(set_how(
            st, r->tensor, "%s fragment tiles matching C '%s' (%s, Theorem 1)",
            o == 1 ? "A" : "B", st->p->tensors[s->args[0].tensor].name, label));
        *changed = true;
    }
    return AXE_OK;
}

/* Step 3: the ready queue, as passes over the operators until no
 * constraint solves another unknown. */
static axe_status propagate(sy_state *st, axe_diag *diag)
{
    bool changed = true;
    int i;
    while (changed) {
        changed = false;
        for (i = 0; i < st->p->nops; i++) {
            ax_stmt *s = st->p->ops[i];
            if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
                continue;
            if (s->rearrange) { /* changes the layout on purpose */
                AXE_TRY(add_rearrange(st, s));
                continue;
            }
            if (s->op == AX_OP_REDUCE)
                AXE_TRY(solve_reduce(st, s, &changed));
            else if (s->op == AX_OP_GEMM)
                AXE_TRY(solve_gemm(st, s, &changed, diag));
            else if (axe__synth_pointwise(s->op))
                AXE_TRY(solve_pointwise(st, s, &changed, diag));
        }
    }
    return AXE_OK;
}

static int64_t ref_elems(const axe_program *p, const ax_ref *r)
{
    int64_t shape[AX_MAX_DIMS], n = 1;
    int d, nd = axe__synth_ref_shape(p, r, shape);
    for (d = 0; d < nd; d++)
        n *= shape[d];
    return n;
}

/* Step 4: the copy between memory and an unknown whole register that
 * moves the most bytes (the first such in source order on ties). */
static int largest_copy(const sy_state *st, int *reg)
{
    int i, best = -1;
    int64_t most = -1;
    for (i = 0; i < st->p->nops; i++) {
        const ax_stmt *s = st->p->ops[i];
        int a;
        if (s->op != AX_OP_COPY || s->rearrange ||
            s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
            continue;
        for (a = 0; a < 2; a++) {
            const ax_ref *r = &s->args[a], *o = &s->args[1 - a];
            int64_t bytes = ref_elems(st->p, r) *
                            axe_dtype_size(st->p->tensors[r->tensor].dtype);
            if (axe__synth_whole(st->p, r) && is_unknown(st, r) &&
                st->p->tensors[o->tensor].mem != AX_MEM_REGISTER &&
                bytes > most)
                best = i, *reg = a, most = bytes;
        }
    }
    return best;
}

/* ---- the copy anchors' search (step 4) ----------------------------
 * Step 4 as a depth-first search: each copy anchor in turn (the largest
 * copy left after the ready queue) tries its cheapest leaves
 * (AX_SYNTH_COPY_LEAVES, in the copy search's order), each followed by
 * the ready queue as a dry run (conflicts counted, not resolved) and the
 * copy anchors after it; a complete assignment is scored by counts (the
 * rearranges it causes, the gemm anchors' costs, the accesses of every
 * copy between memory and an auto register, register bytes per thread;
 * sy_score), the first best in depth-first order wins (leaf 0 first at
 * each anchor: the first assignment is each anchor chosen alone), and
 * every layout is put back after each leaf. Bounds: at most "budget"
 * complete assignments (past it each further anchor takes its first
 * leaf), and leaves are tried at the first SY_COPY_DEPTH anchors of a
 * path only (the later ones take their first leaf). The search then
 * replays the best path for real (conflicts resolved). */
#define SY_MAX_TRIALS 4096
#define SY_COPY_DEPTH 8

typedef struct sy_score {
    bool ok;
    int rearranges;
    double cost;      /* the gemm anchors' costs */
    int64_t accesses; /* of every copy between memory and an auto register */
    int64_t regbytes;
} sy_score;

static bool better(const sy_score *a, const sy_score *b)
{
    if (a->ok != b->ok)
        return a->ok;
    if (a->rearranges != b->rearranges)
        return a->rearranges < b->rearranges;
    if (a->cost != b->cost)
        return a->cost < b->cost;
    if (a->accesses != b->accesses)
        return a->accesses < b->accesses;
    return a->regbytes < b->regbytes;
}

static int64_t register_bytes(const sy_state *st)
{
    int64_t sum = 0, span;
    int i;
    for (i = 0; i < st->p->ntensors; i++) {
        const ax_tensor *t = &st->p->tensors[i];
        if (t->mem == AX_MEM_REGISTER && st->solved[i] &&
            axe_layout_span(&t->layout, "m", &span) == AXE_OK)
            sum += span * axe_dtype_size(t->dtype);
    }
    return sum;
}

/* Accesses of every copy at a collective scope between memory and a
 * whole solved auto register (axe__synth_copy_accesses). */
static int64_t copy_accesses(const sy_state *st)
{
    int64_t sum = 0, n;
    for (int i = 0; i < st->p->nops; i++) {
        const ax_stmt *s = st->p->ops[i];
        if (s->op != AX_OP_COPY || s->rearrange || s->nargs != 2 ||
            s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
            continue;
        for (int a = 0; a < 2; a++) {
            int t = s->args[a].tensor;
            if (st->p->tensors[t].autolayout && st->solved[t] &&
                axe__synth_whole(st->p, &s->args[a]) &&
                st->p->tensors[s->args[1 - a].tensor].mem != AX_MEM_REGISTER &&
                axe__synth_copy_accesses(st->p, s, a, &n)) {
                sum += n;
                break;
            }
        }
    }
    return sum;
}

/* A complete assignment: the leaf taken at each of its first "depth"
 * copy anchors, and its score. */
typedef struct sy_path {
    int depth;
    int leaf[SY_COPY_DEPTH];
    sy_score score;
} sy_path;

typedef struct sy_copies {
    int64_t budget; /* complete assignments left */
    double cost;    /* the gemm anchors' costs */
    int before;     /* rearranges reported before the search */
    int cur[SY_COPY_DEPTH];
    bool have;
    sy_path best;
    sy_path *all; /* every assignment (record: the final search) */
    int nall;
    bool record;
    /* per depth: the state put back after each leaf, and the leaves */
    axe_layout *layouts[SY_COPY_DEPTH];
    bool *solved[SY_COPY_DEPTH], *conflict[SY_COPY_DEPTH];
    int conflicts[SY_COPY_DEPTH];
    int64_t conflict_bytes[SY_COPY_DEPTH];
    ax_synth_report *report[SY_COPY_DEPTH];
    /* per operator, its leaves as a copy anchor (a function of the
     * program's operators and memory layouts, made once per search):
     * state 0 not yet, 1 made, 2 none fits */
    int nops;
    signed char *state;
    ax_synth_leaves **lv;
    ax_synth_leaves *replay; /* the real run's */
} sy_copies;

/* The search's scratch, made once per synthesis (st->copies); the
 * per-operator arrays (st->conflict with them) made again when
 * operators were inserted (rearranges) since. */
static axe_status copies_alloc(sy_state *st)
{
    ax_arena *ar = st->p->arena;
    sy_copies *cs = st->copies;
    size_t nops = (size_t)(st->p->nops > 0 ? st->p->nops : 1);
    ax_synth_leaves **lv;
    if (cs == NULL) {
        if ((cs = axe__arena_alloc(ar, sizeof *cs)) == NULL)
            return AXE_ERR_NO_MEMORY;
        memset(cs, 0, sizeof *cs);
        cs->all = axe__arena_alloc(ar, (SY_MAX_TRIALS + SY_COPY_DEPTH) *
                                           sizeof(sy_path));
        cs->replay = axe__arena_alloc(ar, sizeof *cs->replay);
        if (cs->all == NULL || cs->replay == NULL)
            return AXE_ERR_NO_MEMORY;
        for (int d = 0; d < SY_COPY_DEPTH; d++) {
            cs->layouts[d] =
                axe__arena_alloc(ar, AX_MAX_TENSORS * sizeof(axe_layout));
            cs->solved[d] = axe__arena_alloc(ar, AX_MAX_TENSORS * sizeof(bool));
            cs->report[d] = axe__arena_alloc(ar, sizeof(ax_synth_report));
            if (cs->layouts[d] == NULL || cs->solved[d] == NULL ||
                cs->report[d] == NULL)
                return AXE_ERR_NO_MEMORY;
        }
        st->copies = cs;
    }
    if ((size_t)cs->nops >= nops && st->conflict != NULL)
        return AXE_OK;
    cs->state = axe__arena_alloc(ar, nops);
    lv = axe__arena_alloc(ar, nops * sizeof *lv);
    st->conflict = axe__arena_alloc(ar, nops * sizeof(bool));
    if (cs->state == NULL || lv == NULL || st->conflict == NULL)
        return AXE_ERR_NO_MEMORY;
    memset(lv, 0, nops * sizeof *lv);
    if (cs->nops > 0)
        memcpy(lv, cs->lv, (size_t)cs->nops * sizeof *lv);
    memset(cs->state, 0, nops);
    cs->lv = lv;
    for (int d = 0; d < SY_COPY_DEPTH; d++)
        if ((cs->conflict[d] = axe__arena_alloc(ar, nops * sizeof(bool))) ==
            NULL)
            return AXE_ERR_NO_MEMORY;
    cs->nops = (int)nops;
    return AXE_OK;
}

static void save(sy_state *st, sy_copies *cs, int d)
{
    for (int i = 0; i < st->p->ntensors; i++)
        cs->layouts[d][i] = st->p->tensors[i].layout;
    memcpy(cs->solved[d], st->solved, sizeof st->solved);
    memcpy(cs->conflict[d], st->conflict, (size_t)st->p->nops * sizeof(bool));
    cs->conflicts[d] = st->conflicts;
    cs->conflict_bytes[d] = st->conflict_bytes;
    *cs->report[d] = *st->r;
}

static void put_back(sy_state *st, const sy_copies *cs, int d)
{
    for (int i = 0; i < st->p->ntensors; i++)
        st->p->tensors[i].layout = cs->layouts[d][i];
    memcpy(st->solved, cs->solved[d], sizeof st->solved);
    memcpy(st->conflict, cs->conflict[d], (size_t)st->p->nops * sizeof(bool));
    st->conflicts = cs->conflicts[d];
    st->conflict_bytes = cs->conflict_bytes[d];
    *st->r = *cs->report[d];
}

/* A complete assignment of "depth" searched anchors ("ok": no anchor
 * failed): scored, kept when better, recorded. */
static void finish(sy_state *st, sy_copies *cs, int depth, bool ok)
{
    sy_path p;
    memset(&p, 0, sizeof p);
    p.depth = depth < SY_COPY_DEPTH ? depth : SY_COPY_DEPTH;
    memcpy(p.leaf, cs->cur, (size_t)p.depth * sizeof(int));
    p.score.rearranges = st->conflicts + st->r->nrearranges - cs->before;
    p.score.cost = cs->cost;
    p.score.accesses = copy_accesses(st);
    p.score.regbytes = register_bytes(st) + st->conflict_bytes;
    p.score.ok = ok && p.score.regbytes <= AX_MAX_REGISTER_BYTES;
    if (!cs->have || better(&p.score, &cs->best.score))
        cs->best = p, cs->have = true;
    if (cs->record && cs->nall < SY_MAX_TRIALS + SY_COPY_DEPTH)
        cs->all[cs->nall++] = p;
    cs->budget--;
}

/* Copy anchor "i" (register operand "reg") takes leaf "f" in a dry run. */
static void take(sy_state *st, int i, int reg, const ax_synth_leaf *f)
{
    int t = st->p->ops[i]->args[reg].tensor;
    st->p->tensors[t].layout = f->layout;
    st->solved[t] = true;
}

/* The leaves of copy anchor "i" (register operand "reg"), made once per
 * search; NULL when none fits (or on "*rc", an error to return). */
static ax_synth_leaves *leaves_of(sy_state *st, sy_copies *cs, int i, int reg,
                                  axe_status *rc)
{
    axe_diag why;
    *rc = AXE_OK;
    if (i >= cs->nops)
        return NULL; /* an inserted rearrange: never an anchor */
    if (cs->state[i] == 0) {
        if (cs->lv[i] == NULL &&
            (cs->lv[i] = axe__arena_alloc(st->p->arena,
                                          sizeof(ax_synth_leaves))) == NULL) {
            *rc = AXE_ERR_NO_MEMORY;
            return NULL;
        }
        axe_diag_clear(&why);
        *rc = axe__synth_copy_leaves(st->p, st->p->ops[i], reg, 1 - reg,
                                     cs->lv[i], &why);
        cs->state[i] = *rc == AXE_OK ? 1 : 2;
        if (*rc != AXE_ERR_NO_MEMORY && *rc != AXE_ERR_CAPACITY)
            *rc = AXE_OK;
    }
    return cs->state[i] == 1 ? cs->lv[i] : NULL;
}

/* The next copy anchor of the path (the largest copy left: "*i", its
 * register operand "*reg") and its leaves into "*lv"; false when the
 * path ends there, finished as complete (no copy left) or failed (none
 * of its leaves fits; an error in "*rc" is returned without finishing). */
static bool next_anchor(sy_state *st, sy_copies *cs, int depth, int *i,
                        int *reg, ax_synth_leaves **lv, axe_status *rc)
{
    *rc = AXE_OK;
    if ((*i = largest_copy(st, reg)) < 0) {
        finish(st, cs, depth, true);
        return false;
    }
    if ((*lv = leaves_of(st, cs, *i, *reg, rc)) == NULL) {
        if (*rc == AXE_OK)
            finish(st, cs, depth, false);
        return false;
    }
    return true;
}

/* The search below the copy anchors decided so far ("depth" of them):
 * past SY_COPY_DEPTH each anchor takes its first leaf, else each of its
 * leaves is tried in turn. */
static axe_status copy_dfs(sy_state *st, sy_copies *cs, int depth)
{
    ax_synth_leaves *lv;
    int reg = 0, i;
    axe_status rc;
    axe_diag why;
    for (;; depth++) {
        if (!next_anchor(st, cs, depth, &i, &reg, &lv, &rc))
            return rc;
        if (depth < SY_COPY_DEPTH)
            break;
        take(st, i, reg, &lv->leaf[0]);
        axe_diag_clear(&why);
        if (propagate(st, &why) != AXE_OK) {
            finish(st, cs, depth, false);
            return AXE_OK;
        }
    }
    save(st, cs, depth);
    for (int k = 0; k < lv->n && (k == 0 || cs->budget > 0); k++) {
        cs->cur[depth] = k;
        take(st, i, reg, &lv->leaf[k]);
        axe_diag_clear(&why);
        if (propagate(st, &why) != AXE_OK)
            finish(st, cs, depth + 1, false);
        else
            AXE_TRY(copy_dfs(st, cs, depth + 1));
        put_back(st, cs, depth);
    }
    return AXE_OK;
}

/* The search from the program as it is (a dry run: st->dry set, the
 * conflicts counted from st->conflicts on; copies_alloc called since
 * the program's last inserted operator): the best assignment in
 * cs->best, every layout put back. */
static axe_status copy_search(sy_state *st, int64_t budget, double cost,
                              int before, bool record)
{
    sy_copies *cs = st->copies; /* copies_alloc'd */
    cs->budget = budget;
    cs->cost = cost;
    cs->before = before;
    cs->have = false;
    cs->nall = 0;
    cs->record = record;
    memset(cs->state, 0, (size_t)cs->nops);
    return copy_dfs(st, cs, 0);
}

/* " in the program: R rearranges, A copy accesses, B register bytes per
 * thread" after a leaf's text (a choice the program's counts decided). */
static void copy_text(char *buf, size_t cap, const char *leaf,
                      const sy_score *sc)
{
    (void)snprintf(buf, cap,
                   "%s; in the program: %d rearrange%s, %lld copy accesses, "
                   "%lld register bytes per thread",
                   leaf, sc->rearranges, sc->rearranges == 1 ? "" : "s",
                   (long long)sc->accesses, (long long)sc->regbytes);
}

/* Copy anchor "i" of the best path, at depth "d", for real: leaf k of
 * "lv", its runner-up the best recorded assignment that agrees with the
 * best path above "d" and takes another leaf at "d" (none recorded: the
 * next leaf in the copy search's order). The program's counts are said
 * when the leaf is not the anchor's first (the choice alone). */
static axe_status copy_apply(sy_state *st, int i, int reg,
                             const ax_synth_leaves *lv, int d)
{
    const sy_copies *cs = st->copies;
    const ax_stmt *s = st->p->ops[i];
    int t = s->args[reg].tensor, k = 0, r = -1, run = -1;
    ax_synth_choice ch;
    char label[48];
    if (d < cs->best.depth && cs->best.leaf[d] < lv->n)
        k = cs->best.leaf[d];
    for (int x = 0; x < cs->nall && d < SY_COPY_DEPTH; x++) {
        const sy_path *q = &cs->all[x];
        bool prefix = q->depth > d && q->leaf[d] != k && q->leaf[d] < lv->n;
        for (int e = 0; prefix && e < d; e++)
            prefix = q->leaf[e] == cs->best.leaf[e];
        if (prefix && (run < 0 || better(&q->score, &cs->all[run].score)))
            run = x;
    }
    memset(&ch, 0, sizeof ch);
    ch.op = i;
    ch.cost = lv->leaf[k].cost;
    if (k == 0)
        (void)snprintf(ch.chosen, sizeof ch.chosen, "%s", lv->leaf[k].text);
    else
        copy_text(ch.chosen, sizeof ch.chosen, lv->leaf[k].text,
                  &cs->best.score);
    if (run >= 0)
        r = cs->all[run].leaf[d];
    else if (lv->n > 1)
        r = k == 0 ? 1 : 0;
    if (r >= 0 && run >= 0 && k != 0)
        copy_text(ch.runner_up, sizeof ch.runner_up, lv->leaf[r].text,
                  &cs->all[run].score);
    else if (r >= 0)
        (void)snprintf(ch.runner_up, sizeof ch.runner_up, "%s",
                       lv->leaf[r].text);
    if (r >= 0)
        ch.runner_cost = lv->leaf[r].cost;
    ch.no_ldsm_op = lv->no_ldsm_op;
    ch.no_ldsm_own = lv->no_ldsm_own;
    (void)snprintf(ch.no_ldsm, sizeof ch.no_ldsm, "%s", lv->no_ldsm);
    st->p->tensors[t].layout = lv->leaf[k].layout;
    AXE_TRY(add_choice(st, &ch));
    axe__synth_label(st->p, i, label, sizeof label);
    return set_how(st, t, "anchor %s: %s", label, ch.chosen);
}

/* Step 4: the search as a dry run, then its best path for real (then 3
 * again after each anchor). */
static axe_status copy_anchors(sy_state *st, axe_diag *diag)
{
    int i, reg = 0, d;
    if (largest_copy(st, &reg) < 0)
        return AXE_OK;
    AXE_TRY(copies_alloc(st));
    memset(st->conflict, 0, (size_t)st->p->nops * sizeof(bool));
    st->dry = true;
    st->conflicts = 0;
    st->conflict_bytes = 0;
    AXE_TRY(copy_search(st, SY_MAX_TRIALS, 0, st->r->nrearranges, true));
    st->dry = false;
    for (d = 0; (i = largest_copy(st, &reg)) >= 0; d++) {
        const ax_stmt *s = st->p->ops[i];
        ax_tensor *t = &st->p->tensors[s->args[reg].tensor];
        ax_synth_leaves *lv = st->copies->replay;
        char label[48], why[AXE_DIAG_MESSAGE_MAX];
        axe_status rc =
            axe__synth_copy_leaves(st->p, s, reg, 1 - reg, lv, diag);
        if (rc == AXE_ERR_UNSUPPORTED) { /* the reason, copied: not
                                            formatted into itself */
            axe__synth_label(st->p, i, label, sizeof label);
            (void)snprintf(why, sizeof why, "%s", diag->message);
            return axe__fail(diag, rc, t->off,
                             "layout synthesis: no coalesced layout of '%s' "
                             "for its anchor %s: %s",
                             t->name, label, why);
        }
        AXE_TRY(rc);
        AXE_TRY(copy_apply(st, i, reg, lv, d));
        AXE_TRY(propagate(st, diag));
    }
    return AXE_OK;
}

/* ---- the anchor search ---------------------------------------------
 * The gemm anchors are chosen together: every combination of their
 * leaves (at most SY_MAX_TRIALS) is tried on the program (steps 3 and 4
 * as a trial: conflicts counted, not resolved, then every layout put
 * back; step 4 the copy anchors' search with its share of the
 * assignments), scored by counts: rearranges it causes (register copies
 * between different layouts and conflicts at other operators), then the
 * sum of the anchors' own costs, then the copies' accesses, then
 * register bytes per thread of every
 * register tensor (the rearranged copies included); one beyond a
 * thread's registers (AX_MAX_REGISTER_BYTES) only when no combination
 * fits. The first best in enumeration order wins. With more
 * combinations, each anchor keeps its cheapest leaf. */
#define SY_MAX_ANCHORS 8

typedef struct sy_search {
    int n, op[SY_MAX_ANCHORS];
    ax_synth_leaves *lv[SY_MAX_ANCHORS];
    int64_t trials;
    /* trial scratch: the layouts, solved flags and report put back */
    axe_layout *layouts;
    bool solved[AX_MAX_TENSORS];
    ax_synth_report *report;
    sy_score *score; /* per combination */
} sy_search;

/* Leaf of anchor "a" in combination "x" (mixed radix, anchor 0 fastest). */
static int leaf_of(const sy_search *se, int64_t x, int a)
{
    int i;
    for (i = 0; i < a; i++)
        x /= se->lv[i]->n;
    return (int)(x % se->lv[a]->n);
}

/* Combination "x" as a trial: its score, the program as it was after. */
static axe_status trial(sy_state *st, sy_search *se, int64_t x, sy_score *sc)
{
    axe_program *p = st->p;
    int a, i, before = st->r->nrearranges;
    axe_diag why;
    for (i = 0; i < p->ntensors; i++)
        se->layouts[i] = p->tensors[i].layout;
    memcpy(se->solved, st->solved, sizeof se->solved);
    *se->report = *st->r;
    memset(st->conflict, 0, (size_t)p->nops * sizeof(bool));
    st->dry = true;
    st->conflicts = 0;
    st->conflict_bytes = 0;
    sc->cost = 0;
    for (a = 0; a < se->n; a++) {
        const ax_synth_leaf *f = &se->lv[a]->leaf[leaf_of(se, x, a)];
        int c = p->ops[se->op[a]]->args[0].tensor;
        p->tensors[c].layout = f->layout;
        st->solved[c] = true;
        sc->cost += f->cost;
    }
    axe_diag_clear(&why);
    if (propagate(st, &why) == AXE_OK) {
        /* the copy anchors searched below the combination, its share of
         * the search's assignments each */
        int64_t share = SY_MAX_TRIALS / se->trials;
        AXE_TRY(
            copy_search(st, share > 1 ? share : 1, sc->cost, before, false));
        *sc = st->copies->best.score;
    } else {
        sc->ok = false;
        sc->rearranges = st->conflicts + st->r->nrearranges - before;
        sc->accesses = 0;
        sc->regbytes = register_bytes(st) + st->conflict_bytes;
    }
    st->dry = false;
    for (i = 0; i < p->ntensors; i++)
        p->tensors[i].layout = se->layouts[i];
    memcpy(st->solved, se->solved, sizeof se->solved);
    *st->r = *se->report;
    return AXE_OK;
}

/* The gemm anchors and their leaves (se->n of them). */
static axe_status collect(sy_state *st, sy_search *se)
{
    ax_synth_leaves *lv = NULL;
    int i;
    se->n = 0;
    se->trials = 1;
    for (i = 0; i < st->p->nops && se->n < SY_MAX_ANCHORS; i++) {
        const ax_stmt *s = st->p->ops[i];
        axe_diag why;
        if (s->op != AX_OP_GEMM || s->scope == AX_SCOPE_THREAD ||
            s->scope == AX_SCOPE_KERNEL ||
            !axe__synth_whole(st->p, &s->args[0]) ||
            !is_unknown(st, &s->args[0]))
            continue;
        if (lv == NULL &&
            (lv = axe__arena_alloc(st->p->arena, sizeof *lv)) == NULL)
            return AXE_ERR_NO_MEMORY;
        if (axe__synth_gemm_leaves(st->p, s, lv, &why) != AXE_OK)
            continue; /* no atom fits: a copy may anchor C instead */
        se->op[se->n] = i;
        se->lv[se->n++] = lv;
        se->trials *= lv->n;
        lv = NULL;
    }
    return AXE_OK;
}

/* The trials' scratch; beyond SY_MAX_TRIALS combinations, one trial of
 * each anchor's cheapest leaf (the leaves come cheapest first). */
static axe_status search_alloc(sy_state *st, sy_search *se)
{
    ax_arena *ar = st->p->arena;
    int a;
    if (se->trials > SY_MAX_TRIALS) {
        for (a = 0; a < se->n; a++)
            se->lv[a]->n = 1;
        se->trials = 1;
    }
    se->layouts = axe__arena_alloc(ar, AX_MAX_TENSORS * sizeof(axe_layout));
    se->report = axe__arena_alloc(ar, sizeof *se->report);
    se->score = axe__arena_alloc(ar, (size_t)se->trials * sizeof(sy_score));
    if (se->layouts == NULL || se->report == NULL || se->score == NULL)
        return AXE_ERR_NO_MEMORY;
    return copies_alloc(st); /* st->conflict with it */
}

/* " (searched with N other anchors: R rearranges, B register bytes per
 * thread)" after a leaf's text. */
static void search_text(char *buf, size_t cap, const char *leaf,
                        const sy_search *se, const sy_score *sc)
{
    if (se->n == 1 && sc->rearranges == 0)
        (void)snprintf(buf, cap, "%s", leaf);
    else
        (void)snprintf(buf, cap,
                       "%s; with the other anchors: %d rearrange%s, %lld "
                       "register bytes per thread",
                       leaf, sc->rearranges, sc->rearranges == 1 ? "" : "s",
                       (long long)sc->regbytes);
}

/* Anchor "a" of combination "best": its choice, with the runner-up (the
 * best combination with another leaf for it). */
static axe_status apply_anchor(sy_state *st, const sy_search *se, int a,
                               int64_t best)
{
    const ax_synth_leaves *lv = se->lv[a];
    const ax_synth_leaf *f = &lv->leaf[leaf_of(se, best, a)];
    int c = st->p->ops[se->op[a]]->args[0].tensor;
    int64_t x, run = -1;
    ax_synth_choice ch;
    char label[48];
    memset(&ch, 0, sizeof ch);
    ch.op = se->op[a];
    ch.cost = f->cost;
    search_text(ch.chosen, sizeof ch.chosen, f->text, se, &se->score[best]);
    for (x = 0; x < se->trials; x++)
        if (leaf_of(se, x, a) != leaf_of(se, best, a) &&
            (run < 0 || better(&se->score[x], &se->score[run])))
            run = x;
    if (run >= 0) {
        const ax_synth_leaf *g = &lv->leaf[leaf_of(se, run, a)];
        search_text(ch.runner_up, sizeof ch.runner_up, g->text, se,
                    &se->score[run]);
        ch.runner_cost = g->cost;
    }
    st->p->tensors[c].layout = f->layout;
    AXE_TRY(add_choice(st, &ch));
    axe__synth_label(st->p, ch.op, label, sizeof label);
    return set_how(st, c, "anchor %s: %s", label, ch.chosen);
}

static axe_status gemm_anchors(sy_state *st, axe_diag *diag)
{
    sy_search se;
    int64_t x, best = 0;
    int a;
    (void)diag;
    memset(&se, 0, sizeof se);
    AXE_TRY(collect(st, &se));
    if (se.n == 0)
        return AXE_OK;
    AXE_TRY(search_alloc(st, &se));
    for (x = 0; x < se.trials; x++) {
        AXE_TRY(trial(st, &se, x, &se.score[x]));
        if (x > 0 && better(&se.score[x], &se.score[best]))
            best = x;
    }
    for (a = 0; a < se.n; a++)
        AXE_TRY(apply_anchor(st, &se, a, best));
    return AXE_OK;
}

static axe_status unsolved(const sy_state *st, axe_diag *diag)
{
    int i;
    for (i = 0; i < st->p->ntensors; i++) {
        const ax_tensor *t = &st->p->tensors[i];
        if (t->mem == AX_MEM_REGISTER && !st->solved[i])
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "layout synthesis: no anchor (a gemm, or a "
                             "copy between memory and registers) reaches "
                             "'%s' through the operators; write its layout",
                             t->name);
    }
    return AXE_OK;
}

/* Every memory tensor's layout grouped by its shape, as sema will group
 * it, so that the copy anchor's store-byte rule reads region starts as
 * dispatch does (axe__plan_base); a layout that does not admit its shape
 * is left ungrouped, for sema to refuse. */
static void group_memory(axe_program *p)
{
    for (int i = 0; i < p->ntensors; i++) {
        ax_tensor *t = &p->tensors[i];
        axe_layout g;
        int seps[AXE_LAYOUT_MAX_DIMS + 1];
        if (t->mem == AX_MEM_REGISTER ||
            axe_layout_group(&t->layout, t->shape, t->ndim, &g, seps, NULL) !=
                AXE_OK)
            continue;
        t->grouped = g;
        memcpy(t->seps, seps, sizeof t->seps);
    }
}

axe_status axe__synth_registers(axe_program *p, ax_synth_report *r,
                                axe_diag *diag)
{
    sy_state st;
    int i;
    group_memory(p);
    memset(&st, 0, sizeof st);
    st.p = p;
    st.r = r;
    for (i = 0; i < p->ntensors; i++)
        st.solved[i] =
            p->tensors[i].mem != AX_MEM_REGISTER || !p->tensors[i].autolayout;
    AXE_TRY(per_thread(&st));
    AXE_TRY(gemm_anchors(&st, diag));
    AXE_TRY(propagate(&st, diag));
    AXE_TRY(copy_anchors(&st, diag));
    return unsolved(&st, diag);
}

static bool has_auto(const axe_program *p)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].autolayout)
            return true;
    return false;
}

/* The register synthesis "k" of the probe of the chosen shared layouts
 * (the same text, options and shared layouts as "p": the same result)
 * made "p"'s. */
static void adopt(axe_program *p, const ax_synth_kept *k)
{
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_REGISTER && p->tensors[i].autolayout)
            p->tensors[i].layout = k->lay[i];
    *p->synth = k->report;
}

axe_status axe__program_synth(axe_program *p, axe_diag *diag)
{
    const ax_synth_kept *kept;
    ax_synth_report *sh;
    if (!has_auto(p))
        return AXE_OK;
    p->synth = axe__arena_alloc(p->arena, sizeof *p->synth);
    sh = axe__arena_alloc(p->arena, sizeof *sh);
    if (p->synth == NULL || sh == NULL)
        return AXE_ERR_NO_MEMORY;
    /* the shared layouts first (their probes synthesize the registers
     * for each candidate); the registers of the winning probe are the
     * program's, synthesized again only when that probe inserted a
     * rearrange (its statements are in the probe's arena) */
    AXE_TRY(axe__synth_trn(p, sh, diag));
    AXE_TRY(axe__synth_shared(p, sh, &kept, diag));
    if (kept != NULL && kept->plain)
        adopt(p, kept);
    else
        AXE_TRY(axe__synth_registers(p, p->synth, diag));
    /* the registers reported first, as they are decided for the shared */
    for (int k = 0; k < sh->ntensors; k++) {
        if (p->synth->ntensors == AX_MAX_TENSORS)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "layout synthesis: more than %d tensors to "
                             "report",
                             AX_MAX_TENSORS);
        p->synth->tensors[p->synth->ntensors++] = sh->tensors[k];
    }
    return AXE_OK;
}
