/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Schedules of `reduce(dst, src, sum|max, dim)`. Sema gives dst the
 * broadcast dim `dim`, so both operands share src's shape and one plan
 * walks the source; the element statement assigns at the first digit of
 * the reduced dim and accumulates after it.
 *   thread_loop: every element of a reduced row lies on the thread that
 *     holds the row's result (no digit of the reduced dim is a thread
 *     digit), and a source in shared or global memory is not read whole
 *     by several replicas of the destination: an in-thread loop.
 *   smem: the source is staged into a per-instance shared scratch
 *     (`ax_red<op>`, row-major over src's shape) by a copy plan, a barrier
 *     follows, then every thread that holds a result (dst distributed over
 *     the scope's threads, replicas included) reduces its rows from the
 *     scratch in order.
 *   tree: the source is staged (widened to float for f16/bf16) into a
 *     per-instance shared scratch, then per step, for a reduced length m
 *     with h = ceil(m / 2), the instance's threads combine element i with
 *     element i + h for i < m - h (rows and i dealt round-robin), a
 *     barrier after each step, until m = 1; the totals (at 0 of the
 *     reduced dim) are read into the destination, a distributed register
 *     (replicas included) or shared or global memory. It sums in another
 *     order than the reference (as a GPU's tree does); integer sums wrap,
 *     and max and min (fmax/fmin on floats) are exact in any order;
 *     argmax and argmin, which carry indices, are refused.
 * The same staging serves copy.smem: a copy between registers that
 * distribute the elements over the threads differently (stage 2 copies
 * the scratch into the destination with the destination's binding).
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

static axe_status no_thread_rows(const ax_stmt *s, const ax_plan *plan,
                                 axe_diag *why)
{
    int k;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].dim == s->rdim)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "the reduced dimension %d is spread over "
                             "threads (digit (rank/%lld)%%%lld)",
                             s->rdim, (long long)plan->loops[k].rank_div,
                             (long long)plan->loops[k].extent);
    return AXE_OK;
}

/* A source in memory read whole by every replica of the destination: each
 * replica would add every row it holds (reduce.tree shares the work). */
static axe_status no_replicated_rows(const axe_program *p, const ax_stmt *s,
                                     const ax_plan *plan, axe_diag *why)
{
    int64_t bound = 1;
    int k;
    if (plan->kind != AX_PLAN_BOUND ||
        p->tensors[s->args[1].tensor].mem == AX_MEM_REGISTER ||
        axe__ref_len(&s->args[1], s->rdim) == 1)
        return AXE_OK;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread)
            bound *= plan->loops[k].extent;
    if (plan->nthreads / bound > 1)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the destination '%s' is replicated over %lld "
                         "threads: each would add the whole row from '%s'",
                         p->tensors[s->args[0].tensor].name,
                         (long long)(plan->nthreads / bound),
                         p->tensors[s->args[1].tensor].name);
    return AXE_OK;
}

/* Each row on the thread that holds its result (the stages of smem and
 * tree read the scratch so). */
static axe_status rows_in_thread(axe_program *p, ax_stmt *s, ax_plan *plan,
                                 axe_diag *why)
{
    AXE_TRY(axe__sched_thread_loop(p, s, plan, why));
    return no_thread_rows(s, plan, why);
}

/* In-thread reduce (see the file comment). */
axe_status axe__reduce_thread_loop(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit)
{
    (void)commit;
    AXE_TRY(rows_in_thread(p, s, plan, why));
    return no_replicated_rows(p, s, plan, why);
}

/* Adding "bytes" of shared scratch keeps the CTA within
 * AX_MAX_SHARED_BYTES (docs/compiler.md, "Limits"). */
static axe_status check_shared(const axe_program *p, int64_t bytes,
                               axe_diag *why)
{
    int64_t sum = bytes;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_SHARED)
            sum += p->tensors[i].span * axe_dtype_size(p->tensors[i].dtype);
    if (sum > AX_MAX_SHARED_BYTES)
        return axe__fail(why, AXE_ERR_CAPACITY, -1,
                         "shared scratch of %lld bytes would bring the CTA "
                         "to %lld bytes, beyond %d",
                         (long long)bytes, (long long)sum, AX_MAX_SHARED_BYTES);
    return AXE_OK;
}

/* A shared scratch of "dt" elements, "size" per scope instance. */
static axe_status add_scratch(axe_program *p, const ax_stmt *s, axe_dtype dt,
                              int64_t size, int64_t ninst, axe_diag *why)
{
    ax_tensor *t;
    int64_t total;
    if (p->ntensors == AX_MAX_TENSORS)
        return axe__fail(why, AXE_ERR_CAPACITY, -1, "too many tensors");
    if (axe__mul(size, ninst, &total) != AXE_OK || total > AX_MAX_SHARED_BYTES)
        return axe__fail(why, AXE_ERR_OVERFLOW, -1, "scratch overflows");
    AXE_TRY(check_shared(p, total * axe_dtype_size(dt), why));
    t = &p->tensors[p->ntensors++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "ax_red%d", s->index);
    strcpy(t->cname, t->name);
    t->mem = AX_MEM_SHARED;
    t->dtype = dt;
    t->ndim = 1;
    t->shape[0] = total;
    t->span = total;
    t->off = s->off;
    AXE_TRY(axe_layout_row_major(t->shape, 1, &t->layout));
    t->grouped = t->layout;
    t->seps[0] = 0;
    t->seps[1] = t->layout.nshard;
    return AXE_OK;
}

/* The scratch as a row-major view over src's shape at this instance. */
static axe_status scratch_view(axe_program *p, const ax_stmt *s, int tensor,
                               int64_t size, ax_ref *out)
{
    const ax_ref *src = &s->args[1];
    int64_t stride = 1;
    int d, n = axe__ref_ndim(src);
    memset(out, 0, sizeof *out);
    out->tensor = tensor;
    out->bdim = -1;
    out->is_view = true;
    out->ndim = n;
    out->off = s->off;
    axe_layout_init(&out->view);
    for (d = n - 1; d >= 0; d--) {
        out->len[d] = axe__ref_len(src, d);
        out->view.shard[d].extent = out->len[d];
        out->view.shard[d].stride = stride;
        memset(out->view.shard[d].axis, 0, AXE_AXIS_NAME_MAX);
        out->view.shard[d].axis[0] = 'm';
        stride *= out->len[d];
    }
    out->view.nshard = (uint8_t)n;
    if (s->scope == AX_SCOPE_CTA)
        return AXE_OK;
    out->view_dyn = axe__arena_alloc(p->arena, sizeof *out->view_dyn);
    if (out->view_dyn == NULL)
        return AXE_ERR_NO_MEMORY;
    out->view_dyn->kind = AX_EX_MUL;
    out->view_dyn->a = axe__arena_alloc(p->arena, sizeof *out->view_dyn);
    out->view_dyn->b = axe__expr_int(p->arena, size, s->off);
    if (out->view_dyn->a == NULL || out->view_dyn->b == NULL)
        return AXE_ERR_NO_MEMORY;
    out->view_dyn->a->kind = AX_EX_VAR;
    out->view_dyn->a->var =
        s->scope == AX_SCOPE_WARP ? AX_VAR_WARPID : AX_VAR_WGID;
    return AXE_OK;
}

/* The stores into the scratch by thread_loop or "split" (false: why in
 * "w"); a packed i4 scratch must not have two threads write the nibbles
 * of one byte (axe__i4_plan_check: its refusal into "i4" as well). */
static bool stage_store(axe_program *p, ax_stmt *st, bool split, axe_diag *w,
                        axe_diag *i4)
{
    if ((split ? axe__sched_split(p, st, st->plan, w)
               : axe__sched_thread_loop(p, st, st->plan, w)) != AXE_OK)
        return false;
    if (axe__i4_plan_check(p, st, st->plan, w) == AXE_OK) {
        if (!split) /* whole bytes where a thread stores both nibbles */
            axe__i4_plan_pair(p, st, st->plan);
        return true;
    }
    *i4 = *w;
    return false;
}

/* "why" = "WHAT fails: REASON" for stages "st" (make_stages), each
 * quoted name of the scratch in REASON replaced by what it is ("the i4
 * 'ax_red1'" becomes "the i4 scratch of 'x'", x the staged source): users
 * never wrote that name. */
static axe_status stage_fail(const axe_program *p, const ax_stmt *st,
                             const char *what, const char *reason,
                             axe_diag *why)
{
    char q[AXE_KERNEL_NAME_MAX + 2], buf[AXE_DIAG_MESSAGE_MAX];
    const char *at, *src = p->tensors[st[0].args[1].tensor].name;
    size_t n = 0, len;
    (void)snprintf(q, sizeof q, "'%s'", p->tensors[st[0].args[0].tensor].name);
    len = strlen(q);
    buf[0] = '\0';
    while ((at = strstr(reason, q)) != NULL && n < sizeof buf) {
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%.*sscratch of '%s'",
                              (int)(at - reason), reason, src);
        reason = at + len;
    }
    if (n < sizeof buf)
        (void)snprintf(buf + n, sizeof buf - n, "%s", reason);
    return axe__fail(why, AXE_ERR_UNSUPPORTED, -1, "%s fails: %s", what, buf);
}

static axe_status plan_stages(axe_program *p, ax_stmt *st, axe_diag *why)
{
    axe_diag w, i4;
    i4.message[0] = '\0';
    if (stage_store(p, &st[0], false, &w, &i4))
        st[0].schedule = "thread_loop";
    else if (stage_store(p, &st[0], true, &w, &i4))
        st[0].schedule = "split";
    else
        return stage_fail(p, st, "staging the source",
                          i4.message[0] != '\0' ? i4.message : w.message, why);
    st[1].schedule = "thread_loop";
    if ((st[1].op == AX_OP_REDUCE
             ? rows_in_thread(p, &st[1], st[1].plan, &w)
             : axe__sched_thread_loop(p, &st[1], st[1].plan, &w)) != AXE_OK)
        return stage_fail(p, st, "reading back from shared memory", w.message,
                          why);
    /* a copy's read back into an i4 register: whole bytes where the
     * thread has both nibbles (a reduce's plan is not a copy's) */
    axe__i4_plan_pair(p, &st[1], st[1].plan);
    return AXE_OK;
}

static void make_stages(const ax_stmt *s, const ax_ref *view, ax_plan *plans,
                        ax_stmt *st)
{
    int i;
    for (i = 0; i < 2; i++) {
        memset(&st[i], 0, sizeof st[i]);
        st[i].kind = AX_ST_OP;
        st[i].scope = s->scope;
        st[i].index = s->index;
        st[i].off = s->off;
        st[i].line = s->line;
        st[i].nargs = 2;
        st[i].plan = &plans[i];
    }
    st[0].op = AX_OP_COPY;
    st[0].args[0] = *view;
    st[0].args[1] = s->args[1];
    st[1].op = s->op;
    st[1].rdim = s->rdim;
    st[1].rkind = s->rkind;
    st[1].args[0] = s->args[0];
    st[1].args[1] = *view;
}

static axe_status keep_stages(axe_program *p, ax_stmt *s, const ax_stmt *st)
{
    int i;
    for (i = 0; i < 2; i++) {
        ax_stmt *k = axe__arena_alloc(p->arena, sizeof *k);
        ax_plan *pl = axe__arena_alloc(p->arena, sizeof *pl);
        if (k == NULL || pl == NULL)
            return AXE_ERR_NO_MEMORY;
        *k = st[i];
        *pl = *st[i].plan;
        k->plan = pl;
        s->stage[i] = k;
    }
    return AXE_OK;
}

/* "s" runs at warp, warpgroup or cta scope: its threads can exchange
 * data through shared memory (the smem and tree schedules); a core
 * kernel's operators have no threads. */
static axe_status collective_scope(const axe_program *p, const ax_stmt *s,
                                   axe_diag *why)
{
    if (p->core)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a core-scope operator has no threads to share "
                         "data");
    if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a %s-scope operator has no threads to share data",
                         axe__scope_name(s->scope));
    return AXE_OK;
}

static axe_status smem_applies(const axe_program *p, const ax_stmt *s,
                               int64_t *size, axe_diag *why)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    int d;
    AXE_TRY(collective_scope(p, s, why));
    if (!dst->distributed)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the destination '%s' is not a register distributed "
                         "over the %s's threads",
                         dst->name, axe__scope_name(s->scope));
    *size = 1;
    for (d = 0; d < axe__ref_ndim(&s->args[1]); d++)
        if (axe__mul(*size, axe__ref_len(&s->args[1], d), size) != AXE_OK)
            return axe__fail(why, AXE_ERR_OVERFLOW, -1, "size overflows");
    return AXE_OK;
}

/* Reduce through shared memory (see the file comment). */
/* Stage 1 (source into the scratch), barrier, stage 2 (s's operator from
 * the scratch into the destination); "size" elements per instance. */
static axe_status stage(axe_program *p, ax_stmt *s, int64_t size, ax_plan *plan,
                        axe_diag *why, bool commit)
{
    int n0 = p->ntensors;
    ax_plan plans[2];
    ax_stmt st[2];
    ax_ref view;
    axe_status rc;
    axe_dtype dt = p->tensors[s->args[1].tensor].dtype;
    /* packed i4: each instance's scratch from a whole byte */
    int64_t pitch = dt == AXE_DTYPE_I4 ? size + size % 2 : size;
    AXE_TRY(add_scratch(p, s, dt, pitch,
                        p->threads / axe__scope_threads(p, s->scope), why));
    rc = scratch_view(p, s, n0, pitch, &view);
    if (rc == AXE_OK) {
        make_stages(s, &view, plans, st);
        rc = plan_stages(p, st, why);
    }
    if (rc == AXE_OK && commit)
        rc = keep_stages(p, s, st);
    if (rc != AXE_OK || !commit)
        p->ntensors = n0;
    if (rc == AXE_OK)
        *plan = plans[1];
    return rc;
}

/* Reduce through shared memory (see the file comment). */
axe_status axe__reduce_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit)
{
    int64_t size;
    AXE_TRY(smem_applies(p, s, &size, why));
    return stage(p, s, size, plan, why, commit);
}

/* A copy between registers distributed with different thread ownership,
 * staged through shared memory (see the file comment). */
axe_status axe__copy_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                          axe_diag *why, bool commit)
{
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    int64_t size;
    AXE_TRY(smem_applies(p, s, &size, why));
    if (!src->distributed)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the source '%s' is not a distributed register: no "
                         "staging is needed",
                         src->name);
    return stage(p, s, size, plan, why, commit);
}

static bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* The butterfly masks of the reduced dim's thread digits. */
static axe_status shuffle_masks(const ax_stmt *s, const ax_plan *plan,
                                int64_t *masks, int *n, axe_diag *why)
{
    int k;
    *n = 0;
    for (k = 0; k < plan->nloops; k++) {
        const ax_loop *lp = &plan->loops[k];
        int64_t m;
        if (!lp->thread || lp->dim != s->rdim)
            continue;
        if (!power_of_two(lp->rank_div) || !power_of_two(lp->extent))
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "lane digit (rank/%lld)%%%lld of the reduced "
                             "dimension is not a set of lane bits",
                             (long long)lp->rank_div, (long long)lp->extent);
        for (m = lp->rank_div; m < lp->rank_div * lp->extent; m *= 2)
            masks[(*n)++] = m;
    }
    if (*n == 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the reduced dimension is not spread over lanes");
    return AXE_OK;
}

/* In-thread partials into the destination's replicas, then a butterfly
 * over the lane bits of the reduced dim (see compiler_emit_c.c). */
axe_status axe__reduce_warp_shuffle(axe_program *p, ax_stmt *s, ax_plan *plan,
                                    axe_diag *why, bool commit)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    int64_t masks[5];
    int n;
    if (s->scope != AX_SCOPE_WARP)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a butterfly runs over the lanes of one warp, not "
                         "at %s scope",
                         axe__stmt_scope_name(p, s));
    if (!src->distributed || !dst->distributed || dst->mem != AX_MEM_REGISTER)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "source and destination must be registers "
                         "distributed over the lanes");
    AXE_TRY(axe__plan_build(p, s, AX_PLAN_BOUND, 1, plan, why));
    AXE_TRY(shuffle_masks(s, plan, masks, &n, why));
    if (commit) {
        s->nmasks = n;
        memcpy(s->masks, masks, sizeof masks);
    }
    return AXE_OK;
}

/* The dtype reduce.tree adds in: float for the narrow floats (f16, bf16,
 * e4m3, e5m2), else the source's. */
static axe_dtype tree_dtype(axe_dtype d)
{
    return axe__dtype_is_half(d) ? AXE_DTYPE_F32 : d;
}

static axe_status tree_applies(const axe_program *p, const ax_stmt *s,
                               int64_t *size, axe_diag *why)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    int d;
    AXE_TRY(collective_scope(p, s, why));
    if (dst->mem == AX_MEM_REGISTER && !dst->distributed)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "the destination '%s' is a per-thread register",
                         dst->name);
    if (axe__red_is_arg(s->rkind))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a tree combines values only, and %s needs their "
                         "indices",
                         s->rkind == AX_RED_ARGMAX ? "argmax" : "argmin");
    *size = 1;
    for (d = 0; d < axe__ref_ndim(&s->args[1]); d++)
        if (axe__mul(*size, axe__ref_len(&s->args[1], d), size) != AXE_OK)
            return axe__fail(why, AXE_ERR_OVERFLOW, -1, "size overflows");
    return AXE_OK;
}

/* Stage 1 copies (or widens) the source into the scratch; stage 2 reads
 * each row's total (at 0 of the reduced dim) into the destination: bound
 * by a distributed destination, else split over the instance's threads. */
static axe_status tree_stages(axe_program *p, const ax_stmt *s, ax_stmt *st,
                              axe_diag *why)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    ax_ref *v = &st[1].args[1];
    axe_diag w;
    axe_status rc;
    if (p->tensors[v->tensor].dtype != p->tensors[s->args[1].tensor].dtype)
        st[0].op = AX_OP_CAST;
    v->len[s->rdim] = 1;
    v->view.shard[s->rdim].extent = 1;
    st[1].args[0].bext = 1;
    if (axe__sched_thread_loop(p, &st[0], st[0].plan, &w) == AXE_OK)
        st[0].schedule = "thread_loop";
    else if (axe__sched_split(p, &st[0], st[0].plan, &w) == AXE_OK)
        st[0].schedule = "split";
    else
        return stage_fail(p, st, "staging the source", w.message, why);
    st[1].schedule = dst->distributed ? "thread_loop" : "split";
    rc = dst->distributed ? rows_in_thread(p, &st[1], st[1].plan, &w)
                          : axe__sched_split(p, &st[1], st[1].plan, &w);
    if (rc != AXE_OK)
        return stage_fail(p, st, "reading the totals back", w.message, why);
    return AXE_OK;
}

static axe_status keep_tree(axe_program *p, ax_stmt *s, int scratch,
                            int64_t size)
{
    ax_tree *tr = axe__arena_alloc(p->arena, sizeof *tr);
    int d;
    if (tr == NULL)
        return AXE_ERR_NO_MEMORY;
    tr->scratch = scratch;
    tr->size = size;
    tr->n = axe__ref_len(&s->args[1], s->rdim);
    tr->inner = 1;
    for (d = s->rdim + 1; d < axe__ref_ndim(&s->args[1]); d++)
        tr->inner *= axe__ref_len(&s->args[1], d);
    s->tree = tr;
    return AXE_OK;
}

/* Reduce by a tree in shared memory (see the file comment). */
axe_status axe__reduce_tree(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit)
{
    int n0 = p->ntensors;
    axe_dtype acc = tree_dtype(p->tensors[s->args[1].tensor].dtype);
    int64_t size;
    ax_plan plans[2];
    ax_stmt st[2];
    ax_ref view;
    axe_status rc;
    AXE_TRY(tree_applies(p, s, &size, why));
    AXE_TRY(add_scratch(p, s, acc, size,
                        p->threads / axe__scope_threads(p, s->scope), why));
    rc = scratch_view(p, s, n0, size, &view);
    if (rc == AXE_OK) {
        make_stages(s, &view, plans, st);
        rc = tree_stages(p, s, st, why);
    }
    if (rc == AXE_OK && commit)
        rc = keep_stages(p, s, st);
    if (rc == AXE_OK && commit)
        rc = keep_tree(p, s, n0, size);
    if (rc != AXE_OK || !commit)
        p->ntensors = n0;
    if (rc == AXE_OK)
        *plan = plans[1];
    return rc;
}
