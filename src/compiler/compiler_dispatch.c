/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Operator dispatch (TIRx style): each operator family has a registry of
 * schedules in priority order; a schedule's predicate builds its plan from
 * the operand layouts or answers why it does not apply. The first that
 * applies wins unless `--schedule op=name` forces one; when none applies
 * the error lists every schedule with its reason. The explanation of each
 * operator (chosen schedule, derived layouts, rejected schedules and
 * reasons) is kept for --explain. Registries (name: predicate):
 *   copy: vector, thread_loop, split
 *   fill, add, sub, mul, div, max, min, neg, relu, exp, cast:
 *         thread_loop, split
 */
#include <string.h>

#include "compiler_internal.h"

typedef axe_status (*ax_predicate)(const axe_program *p, const ax_stmt *s,
                                   ax_plan *plan, axe_diag *why);

typedef struct ax_schedule {
    const char *name;
    bool copy_only;
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

static axe_status thread_loop(const axe_program *p, const ax_stmt *s,
                              ax_plan *plan, axe_diag *why)
{
    int b;
    if (s->scope == AX_SCOPE_THREAD)
        return axe__plan_build(p, s, AX_PLAN_SERIAL, -1, plan, why);
    if (s->scope == AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "kernel-scope operators are not supported yet");
    b = distributed_operand(p, s);
    if (b < 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "no register operand distributed over the %s's "
                         "threads binds elements to threads",
                         axe__scope_name(s->scope));
    return axe__plan_build(p, s, AX_PLAN_BOUND, b, plan, why);
}

static axe_status split(const axe_program *p, const ax_stmt *s, ax_plan *plan,
                        axe_diag *why)
{
    int b = distributed_operand(p, s);
    if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "a %s-scope operator has no threads to split over",
                         axe__scope_name(s->scope));
    if (b >= 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is distributed: its layout binds elements to "
                         "threads",
                         p->tensors[s->args[b].tensor].name);
    return axe__plan_build(p, s, AX_PLAN_SPLIT, -1, plan, why);
}

static axe_status vector(const axe_program *p, const ax_stmt *s, ax_plan *plan,
                         axe_diag *why)
{
    axe_diag w1, w2;
    if (thread_loop(p, s, plan, &w1) != AXE_OK &&
        split(p, s, plan, &w2) != AXE_OK)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "no scalar plan to vectorize (%s)", w1.message);
    return axe__plan_vectorize(p, s, plan, why);
}

static const ax_schedule registry[] = {{"vector", true, vector},
                                       {"thread_loop", false, thread_loop},
                                       {"split", false, split}};
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
    return !registry[k].copy_only || s->op == AX_OP_COPY;
}

static int line_of(const axe_program *p, long off)
{
    int line = 1;
    long i;
    for (i = 0; i < off && (size_t)i < p->len; i++)
        line += p->text[i] == '\n';
    return line;
}

static void explain_head(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int i, d;
    axe__text_put(t, "op %d (line %d): %s %s(", s->index, line_of(p, s->off),
                  axe__scope_name(s->scope), axe__op_name(s->op));
    for (i = 0; i < s->nargs; i++) {
        axe__text_put(t, "%s%s[", i ? ", " : "",
                      p->tensors[s->args[i].tensor].name);
        for (d = 0; d < s->args[i].ndim; d++)
            axe__text_put(t, "%s%lld", d ? "," : "",
                          (long long)s->args[i].len[d]);
        axe__text_put(t, "]");
    }
    axe__text_put(t, ")\n");
}

static axe_status dispatch_op(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    const char *forced = forced_for(p, s);
    ax_text t, rej, brief;
    ax_plan plan;
    int k, chosen = -1;
    axe__text_init(&t, p->arena);
    axe__text_init(&rej, p->arena);
    axe__text_init(&brief, p->arena);
    explain_head(&t, p, s);
    s->plan = axe__arena_alloc(p->arena, sizeof *s->plan);
    if (s->plan == NULL)
        return AXE_ERR_NO_MEMORY;
    for (k = 0; k < NSCHED; k++) {
        axe_diag why;
        axe_diag_clear(&why);
        if (!in_family(s, k))
            continue;
        if (registry[k].applies(p, s, &plan, &why) != AXE_OK) {
            axe__text_put(&rej, "  rejected %s.%s: %s\n", axe__op_name(s->op),
                          registry[k].name, why.message);
            if (forced == NULL || strcmp(forced, registry[k].name) == 0)
                axe__text_put(&brief, "%s%s: %s", brief.len ? "; " : "",
                              registry[k].name, why.message);
        } else if (chosen < 0 &&
                   (forced == NULL || strcmp(forced, registry[k].name) == 0)) {
            chosen = k;
            *s->plan = plan;
        } else {
            axe__text_put(&rej, "  also applies %s.%s%s\n", axe__op_name(s->op),
                          registry[k].name,
                          forced != NULL ? " (not the forced schedule)"
                                         : " (lower priority)");
        }
    }
    if (t.status != AXE_OK || rej.status != AXE_OK || brief.status != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    if (chosen < 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "no schedule for %s%s: %s", axe__op_name(s->op),
                         forced ? " (forced)" : "", brief.buf);
    s->schedule = registry[chosen].name;
    axe__text_put(&t, "  chosen %s.%s\n", axe__op_name(s->op), s->schedule);
    axe__plan_describe(&t, p, s, s->plan);
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
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "--schedule %s=%s: no such schedule (vector, "
                             "thread_loop, split)",
                             p->opts.forced_op[i], p->opts.forced_schedule[i]);
    }
    return AXE_OK;
}

static axe_status dispatch_block(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP)
            AXE_TRY(dispatch_op(p, s, diag));
        else if (s->kind == AX_ST_FOR)
            AXE_TRY(dispatch_block(p, s->body, diag));
    }
    return AXE_OK;
}

/* Dispatch every operator of the program. */
axe_status axe__program_dispatch(axe_program *p, axe_diag *diag)
{
    AXE_TRY(check_forced(p, diag));
    return dispatch_block(p, p->body, diag);
}
