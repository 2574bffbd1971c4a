/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operator dispatch (TIRx style): each operator family has a registry of
 * schedules in priority order; a schedule's predicate builds its plan from
 * the operand layouts or answers why it does not apply. The first that
 * applies wins unless `--schedule op=name` forces one; when none applies
 * the error lists every schedule with its reason. The explanation of each
 * operator (chosen schedule, derived layouts, rejected schedules and
 * reasons) is kept for --explain. A chosen predicate runs once more with
 * "commit" to keep what it built (reduce.smem's shared scratch). Registries:
 *   copy: vector, thread_loop, split, smem (registers whose thread
 *         ownership differs, staged through shared memory)
 *   fill, add, sub, mul, div, max, min, neg, relu, exp, cast:
 *         thread_loop, split
 *   reduce: thread_loop (in-thread), warp_shuffle (in-thread partials,
 *         then a butterfly over lane bits), smem (through shared memory)
 *   gemm: mma_atom (warp-scope loop over mma.sync atoms), mma_smem (C
 *   register tiles of an atom spread over warps, A and B in memory),
 *   thread_fma
 *         (each thread's C elements, K loop innermost)
 */
#include <stdio.h>
#include <string.h>

#include "compiler_internal.h"

typedef axe_status (*ax_predicate)(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit);

typedef enum ax_family {
    AX_FAM_COPY,
    AX_FAM_POINTWISE,
    AX_FAM_REDUCE,
    AX_FAM_GEMM
} ax_family;

typedef struct ax_schedule {
    const char *name;
    ax_family family; /* COPY: copy; POINTWISE: all but reduce and gemm */
    ax_predicate applies;
} ax_schedule;

static int distributed_operand(const axe_program *p, const ax_stmt *s)
{
    int i;
    for (i = 0; i < s->nargs; i++)
        if (p->tensors[s->args[i].tensor].distributed)
            return i;
    return -1;
}

/* Per-thread loops from the thread binding (or one thread at thread
 * scope). */
axe_status axe__sched_thread_loop(const axe_program *p, const ax_stmt *s,
                                  ax_plan *plan, axe_diag *why)
{
    int b;
    if (s->scope == AX_SCOPE_THREAD)
        return axe__plan_build(p, s, AX_PLAN_SERIAL, -1, plan, why);
    if (s->scope == AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a kernel-scope operator has no register operands "
                         "to bind threads (its elements are dealt over the "
                         "grid)");
    b = distributed_operand(p, s);
    if (b < 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "no register operand distributed over the %s's "
                         "threads binds elements to threads",
                         axe__scope_name(s->scope));
    return axe__plan_build(p, s, AX_PLAN_BOUND, b, plan, why);
}

/* The loop space dealt round-robin to the scope's threads. */
axe_status axe__sched_split(const axe_program *p, const ax_stmt *s,
                            ax_plan *plan, axe_diag *why)
{
    int b = distributed_operand(p, s);
    if (s->scope == AX_SCOPE_THREAD)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a thread-scope operator has no threads to split "
                         "over");
    if (axe__scope_threads(p, s->scope) == INT64_MAX)
        return axe__fail(why, AXE_ERR_OVERFLOW, -1,
                         "the grid's thread count overflows");
    if (b >= 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is distributed: its layout binds elements to "
                         "threads",
                         p->tensors[s->args[b].tensor].name);
    return axe__plan_build(p, s, AX_PLAN_SPLIT, -1, plan, why);
}

static axe_status vector(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit)
{
    axe_diag w1, w2;
    (void)commit;
    if (axe__sched_thread_loop(p, s, plan, &w1) != AXE_OK &&
        axe__sched_split(p, s, plan, &w2) != AXE_OK)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "no scalar plan to vectorize (%s)", w1.message);
    return axe__plan_vectorize(p, s, plan, why);
}

static axe_status thread_loop(axe_program *p, ax_stmt *s, ax_plan *plan,
                              axe_diag *why, bool commit)
{
    (void)commit;
    return axe__sched_thread_loop(p, s, plan, why);
}

static axe_status split(axe_program *p, ax_stmt *s, ax_plan *plan,
                        axe_diag *why, bool commit)
{
    (void)commit;
    return axe__sched_split(p, s, plan, why);
}

static const ax_schedule registry[] = {
    {"vector", AX_FAM_COPY, vector},
    {"thread_loop", AX_FAM_POINTWISE, thread_loop},
    {"split", AX_FAM_POINTWISE, split},
    {"smem", AX_FAM_COPY, axe__copy_smem},
    {"thread_loop", AX_FAM_REDUCE, axe__reduce_thread_loop},
    {"warp_shuffle", AX_FAM_REDUCE, axe__reduce_warp_shuffle},
    {"smem", AX_FAM_REDUCE, axe__reduce_smem},
    {"mma_atom", AX_FAM_GEMM, axe__gemm_mma},
    {"mma_smem", AX_FAM_GEMM, axe__gemm_mma_smem},
    {"thread_fma", AX_FAM_GEMM, thread_loop}};
#define NSCHED ((int)(sizeof registry / sizeof registry[0]))

static const char *forced_for(const axe_program *p, const ax_stmt *s)
{
    int i;
    for (i = 0; i < p->opts.nforced; i++)
        if (strcmp(p->opts.forced_op[i], axe__op_name(s->op)) == 0)
            return p->opts.forced_schedule[i];
    return NULL;
}

static bool in_family(const ax_stmt *s, int k)
{
    switch (registry[k].family) {
    case AX_FAM_COPY:
        return s->op == AX_OP_COPY;
    case AX_FAM_POINTWISE:
        return s->op != AX_OP_REDUCE && s->op != AX_OP_GEMM;
    case AX_FAM_REDUCE:
        return s->op == AX_OP_REDUCE;
    case AX_FAM_GEMM:
        break;
    }
    return s->op == AX_OP_GEMM;
}

static void explain_head(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int i, d;
    axe__text_put(t, "op %d (line %d): %s %s(", s->index, s->line,
                  axe__scope_name(s->scope), axe__op_name(s->op));
    for (i = 0; i < s->nargs; i++) {
        axe__text_put(t, "%s%s[", i ? ", " : "",
                      p->tensors[s->args[i].tensor].name);
        for (d = 0; d < axe__ref_ndim(&s->args[i]); d++)
            axe__text_put(t, "%s%lld", d ? "," : "",
                          (long long)axe__ref_len(&s->args[i], d));
        axe__text_put(t, "]");
    }
    axe__text_put(t, ")\n");
}

/* "no schedule for OP: name: reason; ..." cut with "..." to fit a diag. */
static axe_status no_schedule(axe_diag *diag, const ax_stmt *s, bool forced,
                              ax_text *brief)
{
    size_t room = AXE_DIAG_MESSAGE_MAX - 1 - strlen("no schedule for : ") -
                  strlen(axe__op_name(s->op)) - (forced ? 9 : 0);
    if (brief->len > room)
        memcpy(brief->buf + room - 3, "...", 4);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                     "no schedule for %s%s: %s", axe__op_name(s->op),
                     forced ? " (forced)" : "", brief->buf ? brief->buf : "");
}

/* A forced schedule must be one of the operator's family. */
static axe_status check_forced_family(const ax_stmt *s, const char *forced,
                                      axe_diag *diag)
{
    char names[128] = "";
    size_t n = 0;
    int k;
    for (k = 0; k < NSCHED; k++) {
        if (!in_family(s, k))
            continue;
        if (strcmp(forced, registry[k].name) == 0)
            return AXE_OK;
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                              n ? ", " : "", registry[k].name);
    }
    return axe__fail(diag, AXE_ERR_INVALID, s->off,
                     "--schedule %s=%s: %s has no such schedule (%s)",
                     axe__op_name(s->op), forced, axe__op_name(s->op), names);
}

/* What the chosen schedule derived, for --explain. */
static void describe_choice(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int j;
    if (s->mma != NULL) {
        axe__text_put(t, "    atom %s, %lld x %lld x %lld atom tiles\n",
                      s->mma->atom, (long long)s->mma->tiles[0],
                      (long long)s->mma->tiles[1], (long long)s->mma->tiles[2]);
        if (s->mma->from_memory) {
            axe__text_put(t,
                          "    C outer layout (is_tile_inner): %s; A and B "
                          "from memory, each lane's C values over K:\n",
                          s->mma->outer[2]);
            axe__plan_describe(t, p, s, s->plan);
            return;
        }
        axe__text_put(t,
                      "    outer layouts (is_tile_inner): C %s, A %s, B %s\n",
                      s->mma->outer[2], s->mma->outer[0], s->mma->outer[1]);
        return;
    }
    if (s->stage[0] == NULL) {
        axe__plan_describe(t, p, s, s->plan);
        if (s->nmasks > 0)
            axe__text_put(t, "    then a butterfly over lane masks");
        for (j = 0; j < s->nmasks; j++)
            axe__text_put(t, " %lld%s", (long long)s->masks[j],
                          j + 1 == s->nmasks ? "\n" : "");
        return;
    }
    axe__text_put(t, "    stage 1, %s.%s:\n", axe__op_name(s->stage[0]->op),
                  s->stage[0]->schedule);
    axe__plan_describe(t, p, s->stage[0], s->stage[0]->plan);
    axe__text_put(t, "    barrier; stage 2, %s.%s:\n",
                  axe__op_name(s->stage[1]->op), s->stage[1]->schedule);
    axe__plan_describe(t, p, s->stage[1], s->stage[1]->plan);
}

/* Try every schedule of the family in order: the first that applies (or
 * the forced one) is chosen; the others go to "rej" (explain) and the
 * reasons to "brief" (the error when none applies). */
static int try_schedules(axe_program *p, ax_stmt *s, const char *forced,
                         ax_text *rej, ax_text *brief)
{
    ax_plan plan;
    int k, chosen = -1;
    for (k = 0; k < NSCHED; k++) {
        bool mine = forced == NULL || strcmp(forced, registry[k].name) == 0;
        axe_diag why;
        axe_diag_clear(&why);
        if (!in_family(s, k))
            continue;
        if (registry[k].applies(p, s, &plan, &why, false) != AXE_OK) {
            axe__text_put(rej, "  rejected %s.%s: %s\n", axe__op_name(s->op),
                          registry[k].name, why.message);
            if (mine)
                axe__text_put(brief, "%s%s: %s", brief->len ? "; " : "",
                              registry[k].name, why.message);
        } else if (chosen < 0 && mine) {
            chosen = k;
            *s->plan = plan;
        } else {
            axe__text_put(rej, "  also applies %s.%s%s\n", axe__op_name(s->op),
                          registry[k].name,
                          forced != NULL ? " (not the forced schedule)"
                                         : " (lower priority)");
        }
    }
    return chosen;
}

static axe_status dispatch_op(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    const char *forced = forced_for(p, s);
    ax_text t, rej, brief;
    int chosen;
    axe__text_init(&t, p->arena);
    axe__text_init(&rej, p->arena);
    axe__text_init(&brief, p->arena);
    if (forced != NULL)
        AXE_TRY(check_forced_family(s, forced, diag));
    explain_head(&t, p, s);
    s->plan = axe__arena_alloc(p->arena, sizeof *s->plan);
    if (s->plan == NULL)
        return AXE_ERR_NO_MEMORY;
    chosen = try_schedules(p, s, forced, &rej, &brief);
    if (t.status != AXE_OK || rej.status != AXE_OK || brief.status != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    if (chosen < 0)
        return no_schedule(diag, s, forced != NULL, &brief);
    if (registry[chosen].applies(p, s, s->plan, diag, true) != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    s->schedule = registry[chosen].name;
    axe__text_put(&t, "  chosen %s.%s\n", axe__op_name(s->op), s->schedule);
    describe_choice(&t, p, s);
    axe__text_put(&t, "%s", rej.len > 0 ? rej.buf : "");
    s->explain = t.buf;
    return t.status;
}

static axe_status check_forced(const axe_program *p, axe_diag *diag)
{
    int i, k;
    for (i = 0; i < p->opts.nforced; i++) {
        for (k = 0; k < NSCHED; k++)
            if (strcmp(p->opts.forced_schedule[i], registry[k].name) == 0)
                break;
        if (k == NSCHED)
            return axe__fail(
                diag, AXE_ERR_INVALID, -1,
                "--schedule %s=%s: no such schedule (vector, "
                "thread_loop, split, smem, warp_shuffle, mma_atom, "
                "mma_smem, thread_fma)",
                p->opts.forced_op[i], p->opts.forced_schedule[i]);
    }
    return AXE_OK;
}

static axe_status dispatch_block(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP)
            AXE_TRY(dispatch_op(p, s, diag));
        if (s->kind == AX_ST_OP && s->guard != NULL &&
            (s->stage[0] != NULL || s->mma != NULL || s->nmasks > 0))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                             "schedule %s.%s needs a barrier, which an "
                             "operator inside if cannot have",
                             axe__op_name(s->op), s->schedule);
        if (s->kind == AX_ST_FOR || s->kind == AX_ST_IF)
            AXE_TRY(dispatch_block(p, s->body, diag));
        if (s->kind == AX_ST_IF)
            AXE_TRY(dispatch_block(p, s->else_body, diag));
    }
    return AXE_OK;
}

/* Dispatch every operator of the program. */
axe_status axe__program_dispatch(axe_program *p, axe_diag *diag)
{
    AXE_TRY(check_forced(p, diag));
    return dispatch_block(p, p->body, diag);
}
