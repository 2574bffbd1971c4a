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
 *   copy: vector (in a core kernel: vector-engine moves between
 *         scratchpads), dma (a core kernel's DMA descriptors), transpose
 *         (a core kernel's TensorE transposes into PSUM), thread_loop,
 *         split, smem (registers whose thread ownership differs, staged
 *         through shared memory)
 *   fill, iota, the elementwise operators (add ... pow), comparisons
 *         (lt ... ne), select, cast: scalar, vector (a core kernel's
 *         scalar and vector engines), thread_loop, split
 *   reduce: vector (a core kernel's vector engine along F), thread_loop
 *         (in-thread), warp_shuffle (in-thread partials,
 *         then a butterfly over lane bits), tree (a tree in shared
 *         memory), smem (through shared memory)
 *   gemm: mma_atom (warp-scope loop over mma.sync atoms), mma_smem (C
 *   register tiles of an atom spread over warps, A and B in memory),
 *   mma_reg_a (the same with A in registers, B in memory),
 *   mma_reg_b (the same with B in registers, A in memory),
 *   tensor_engine (a core kernel's TensorEngine matmuls), thread_fma
 *         (each thread's C elements, K loop innermost)
 * A schedule the target's backend does not have (compiler_backend.h) is
 * rejected with that reason before its predicate runs. The naive variant
 * (axe_kernel_options.naive, the reference of `axe run --reference
 * gpu-naive`) tries each family in naive_order instead: the per-element
 * loops first, the staged shared-memory schedules next, the schedules of
 * special instructions (vectors, warp shuffles, tensor cores) last, and
 * notes an operator that only such a schedule fits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_copy_ldsm.h"
#include "compiler_synth.h"
#include "compiler_synth_inst.h"

typedef axe_status (*ax_predicate)(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit);

typedef enum ax_family {
    AX_FAM_COPY,
    AX_FAM_POINTWISE,
    AX_FAM_MAP,
    AX_FAM_REDUCE,
    AX_FAM_GEMM
} ax_family;

typedef struct ax_schedule {
    const char *name;
    ax_family family; /* COPY: copy; POINTWISE: all but reduce and gemm;
                         MAP: POINTWISE but copy */
    ax_predicate applies;
    bool special; /* vector loads, warp shuffles, tensor cores or engines */
    bool core;    /* a core kernel's only: not tried (nor listed) in others */
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
 * scope, and in a core kernel, whose core is one thread). */
axe_status axe__sched_thread_loop(const axe_program *p, const ax_stmt *s,
                                  ax_plan *plan, axe_diag *why)
{
    int b;
    if (s->scope == AX_SCOPE_THREAD || p->core)
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
                         axe__stmt_scope_name(p, s));
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

/* The operand of "s" that is packed i4, or -1. */
static int i4_operand(const axe_program *p, const ax_stmt *s)
{
    int i;
    for (i = 0; i < s->nargs; i++)
        if (p->tensors[s->args[i].tensor].dtype == AXE_DTYPE_I4)
            return i;
    return -1;
}

/* Packed i4 copies run element by element (thread_loop, split), in
 * whole-byte vectors (vector) or staged with whole bytes per thread
 * (smem): no DMA copy of them yet. */
static axe_status no_i4(const axe_program *p, const ax_stmt *s, axe_diag *why)
{
    int i = i4_operand(p, s);
    if (i >= 0)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "'%s' is packed i4: its copies run element by "
                         "element (thread_loop, split), in whole-byte "
                         "vectors (vector) or staged (smem)",
                         p->tensors[s->args[i].tensor].name);
    return AXE_OK;
}

static axe_status vector(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit)
{
    axe_diag w1, w2;
    if (p->core) { /* a core kernel's copy.vector: the vector engine */
        AXE_TRY(no_i4(p, s, why));
        return axe__copy_vector_engine(p, s, plan, why, commit);
    }
    if (axe__sched_thread_loop(p, s, plan, &w1) != AXE_OK &&
        axe__sched_split(p, s, plan, &w2) != AXE_OK)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "no scalar plan to vectorize (%s)", w1.message);
    /* No i4 byte check: an i4 vector is w = 8, 16 or 32 consecutive
     * elements from a multiple of w in the destination (compiler_plan_vec.c),
     * so each access stores whole bytes that no other access touches. */
    return axe__plan_vectorize(p, s, plan, why);
}

static axe_status thread_loop(axe_program *p, ax_stmt *s, ax_plan *plan,
                              axe_diag *why, bool commit)
{
    (void)commit;
    AXE_TRY(axe__sched_thread_loop(p, s, plan, why));
    AXE_TRY(axe__i4_plan_check(p, s, plan, why));
    axe__i4_plan_pair(p, s, plan); /* whole bytes where a thread has both */
    return AXE_OK;
}

static axe_status split(axe_program *p, ax_stmt *s, ax_plan *plan,
                        axe_diag *why, bool commit)
{
    (void)commit;
    AXE_TRY(axe__sched_split(p, s, plan, why));
    /* whole bytes where the pairs, dealt whole, keep each byte on one
     * thread; otherwise element by element */
    axe__i4_plan_pair(p, s, plan);
    if (plan->pair > 0 && axe__i4_plan_check(p, s, plan, why) == AXE_OK)
        return AXE_OK;
    plan->pair = 0;
    return axe__i4_plan_check(p, s, plan, why);
}

static axe_status copy_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit)
{
    /* packed i4: the stores into the scratch are checked for whole
     * bytes per thread (compiler_reduce.c) */
    return axe__copy_smem(p, s, plan, why, commit);
}

static axe_status copy_dma(axe_program *p, ax_stmt *s, ax_plan *plan,
                           axe_diag *why, bool commit)
{
    AXE_TRY(no_i4(p, s, why));
    return axe__copy_dma(p, s, plan, why, commit);
}

static const ax_schedule registry[] = {
    {"vector", AX_FAM_COPY, vector, true, false},
    {"dma", AX_FAM_COPY, copy_dma, true, false},
    {"transpose", AX_FAM_COPY, axe__copy_transpose, true, true},
    {"scalar", AX_FAM_MAP, axe__map_scalar_engine, true, true},
    {"vector", AX_FAM_MAP, axe__map_vector_engine, true, true},
    {"thread_loop", AX_FAM_POINTWISE, thread_loop, false, false},
    {"split", AX_FAM_POINTWISE, split, false, false},
    {"smem", AX_FAM_COPY, copy_smem, false, false},
    {"vector", AX_FAM_REDUCE, axe__reduce_vector_engine, true, true},
    {"thread_loop", AX_FAM_REDUCE, axe__reduce_thread_loop, false, false},
    {"warp_shuffle", AX_FAM_REDUCE, axe__reduce_warp_shuffle, true, false},
    {"tree", AX_FAM_REDUCE, axe__reduce_tree, false, false},
    {"smem", AX_FAM_REDUCE, axe__reduce_smem, false, false},
    {"grid", AX_FAM_REDUCE, axe__reduce_grid, false, false},
    {"mma_atom", AX_FAM_GEMM, axe__gemm_mma, true, false},
    {"mma_smem", AX_FAM_GEMM, axe__gemm_mma_smem, true, false},
    {"mma_reg_a", AX_FAM_GEMM, axe__gemm_mma_reg_a, true, false},
    {"mma_reg_b", AX_FAM_GEMM, axe__gemm_mma_reg_b, true, false},
    {"tensor_engine", AX_FAM_GEMM, axe__gemm_tensor_engine, true, false},
    {"thread_fma", AX_FAM_GEMM, thread_loop, false, false},
    {"split_k", AX_FAM_GEMM, axe__gemm_split_k, false, false}};
#define NSCHED ((int)(sizeof registry / sizeof registry[0]))

/* The registry's indices in the naive variant's order: copy and
 * pointwise thread_loop, split, smem, vector, dma, transpose, the
 * engines' scalar, vector; reduce thread_loop, smem (rows reduced in order, as
 * the reference does), tree, grid, warp_shuffle, the vector engine; gemm
 * thread_fma, split_k, mma_atom, mma_smem, mma_reg_a, mma_reg_b,
 * tensor_engine. */
static const int naive_order[] = {5,  6,  7, 0,  1,  2,  3,  4,  9,  12, 11,
                                  13, 10, 8, 19, 20, 14, 15, 16, 17, 18};
_Static_assert(sizeof naive_order / sizeof naive_order[0] ==
                   sizeof registry / sizeof registry[0],
               "naive_order orders every schedule once");

static bool op_in_family(ax_op op, int k)
{
    switch (registry[k].family) {
    case AX_FAM_COPY:
        return op == AX_OP_COPY;
    case AX_FAM_POINTWISE:
        return op != AX_OP_REDUCE && op != AX_OP_GEMM;
    case AX_FAM_MAP:
        return op != AX_OP_COPY && op != AX_OP_REDUCE && op != AX_OP_GEMM;
    case AX_FAM_REDUCE:
        return op == AX_OP_REDUCE;
    case AX_FAM_GEMM:
        break;
    }
    return op == AX_OP_GEMM;
}

/* Whether schedule "k" is tried on "s" of "p". */
static bool in_family(const axe_program *p, const ax_stmt *s, int k)
{
    return op_in_family(s->op, k) && (p->core || !registry[k].core);
}

/* The target of `--schedule OP=NAME` (every operator of kind OP, index
 * -1) or `--schedule OP#N=NAME` (operator N, numbered in source order from
 * 0 as --explain prints `op N`). */
static axe_status parse_target(const char *text, ax_op *op, int *index,
                               axe_diag *why)
{
    const char *hash = strchr(text, '#'), *d;
    size_t n = hash != NULL ? (size_t)(hash - text) : strlen(text);
    int k;
    *index = -1;
    for (k = 0; k <= (int)AX_OP_LAST; k++)
        if (strlen(axe__op_name((ax_op)k)) == n &&
            strncmp(text, axe__op_name((ax_op)k), n) == 0)
            break;
    if (k > (int)AX_OP_LAST)
        return axe__fail(why, AXE_ERR_INVALID, -1,
                         "'%.*s' is not an operator (copy, fill, the "
                         "elementwise operators, iota, lt, le, gt, ge, eq, "
                         "ne, select, reduce, gemm, atomic_add)",
                         (int)n, text);
    *op = (ax_op)k;
    if (hash == NULL)
        return AXE_OK;
    for (d = hash + 1; *d >= '0' && *d <= '9'; d++)
        ;
    if (d == hash + 1 || *d != '\0' || d - hash > 5)
        return axe__fail(why, AXE_ERR_INVALID, -1,
                         "'%s' is not OP or OP#N (N: the operator's number "
                         "in source order from 0, as --explain prints 'op "
                         "N')",
                         text);
    *index = (int)strtol(hash + 1, NULL, 10);
    return AXE_OK;
}

/* Whether `--schedule op=schedule` names an operator (or a numbered one)
 * and one of its schedules, and targets something no earlier option of
 * "o" targets (include/axe/kernel.h). */
axe_status axe_kernel_options_check_force(const axe_kernel_options *o,
                                          const char *op, const char *schedule,
                                          axe_diag *diag)
{
    char names[160] = "";
    size_t n = 0;
    ax_op kind;
    int k, index, i;
    axe_diag_clear(diag);
    if (op == NULL || schedule == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "no operator or schedule");
    if (parse_target(op, &kind, &index, diag) != AXE_OK)
        return AXE_ERR_INVALID;
    for (k = 0; k < NSCHED; k++) {
        if (!op_in_family(kind, k))
            continue;
        if (strcmp(schedule, registry[k].name) == 0)
            break;
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                              n ? ", " : "", registry[k].name);
    }
    if (k == NSCHED)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s has no schedule '%.40s' (%s)", axe__op_name(kind),
                         schedule, names);
    for (i = 0; o != NULL && i < o->nforced; i++) {
        ax_op kind_i;
        int index_i;
        if (parse_target(o->forced_op[i], &kind_i, &index_i, NULL) == AXE_OK &&
            kind_i == kind && index_i == index)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "%s is forced twice (%s=%s and %s=%.40s)", op,
                             o->forced_op[i], o->forced_schedule[i], op,
                             schedule);
    }
    return AXE_OK;
}

/* The forced schedule of "s": an option naming its number wins over one
 * naming its kind. */
static const char *forced_for(const axe_program *p, const ax_stmt *s)
{
    const char *kind = NULL;
    ax_op op;
    int i, index;
    if (s->rearrange) /* always staged through shared memory */
        return "smem";
    for (i = 0; i < p->opts.nforced; i++) {
        if (parse_target(p->opts.forced_op[i], &op, &index, NULL) != AXE_OK ||
            op != s->op)
            continue;
        if (index == s->index)
            return p->opts.forced_schedule[i];
        if (index < 0)
            kind = p->opts.forced_schedule[i];
    }
    return kind;
}

static void explain_head(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int pos, d;
    axe__text_put(t, "op %d (line %d%s%s): %s %s(", s->index, s->line,
                  s->iter != NULL ? ", " : "", s->iter != NULL ? s->iter : "",
                  axe__stmt_scope_name(p, s), axe__op_name(s->op));
    for (pos = 0; pos < axe__operand_count(s); pos++) {
        int i = axe__operand_arg(s, pos);
        if (i < 0) { /* a scalar operand */
            char txt[64];
            axe__sop_text(p, &s->sop[pos], txt, sizeof txt);
            axe__text_put(t, ", %s", txt);
            continue;
        }
        axe__text_put(t, "%s%s[", pos ? ", " : "",
                      p->tensors[s->args[i].tensor].name);
        for (d = 0; d < axe__ref_ndim(&s->args[i]); d++)
            axe__text_put(t, "%s%lld", d ? "," : "",
                          (long long)axe__ref_len(&s->args[i], d));
        axe__text_put(t, "]");
    }
    axe__text_put(t, ")\n");
}

/* "no schedule for OP: name: reason; ..." cut with "..." to fit a diag;
 * the complete diagnostic, one note per schedule ("notes"), is kept in
 * the program for axe_program_compile_full. */
static axe_status no_schedule(axe_program *p, axe_diag *diag, const ax_stmt *s,
                              const char *forced, ax_text *brief,
                              const ax_text *notes)
{
    size_t room = AXE_DIAG_MESSAGE_MAX - 1 - strlen("no schedule for : ") -
                  strlen(axe__op_name(s->op)) - (forced ? 9 : 0);
    ax_text full;
    int k, n = 0;
    axe__text_init(&full, p->arena);
    axe__text_put(&full, "no schedule for %s%s: ", axe__op_name(s->op),
                  forced != NULL ? " (forced)" : "");
    if (forced != NULL)
        axe__text_put(&full, "%s does not apply", forced);
    for (k = 0; k < NSCHED && forced == NULL; k++)
        if (in_family(p, s, k))
            axe__text_put(&full, "%s%s", n++ ? ", " : "none of ",
                          registry[k].name);
    axe__text_put(&full, "%s (reasons below)\n%s", forced ? "" : " applies",
                  notes->buf != NULL ? notes->buf : "");
    if (full.status != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    p->full_diag = full.buf;
    if (brief->len > room)
        memcpy(brief->buf + room - 3, "...", 4);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                     "no schedule for %s%s: %s", axe__op_name(s->op),
                     forced ? " (forced)" : "", brief->buf ? brief->buf : "");
}

/* The instruction choice's --explain lines of gemm "s"
 * (compiler_synth_inst.c), its operands' choices made here once. */
static void inst_explain(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    ax_inst_choice ch[2];
    ch[0].chosen = ch[1].chosen = -1;
    if (axe__inst_explains(p, s))
        axe__inst_choose_both(p, s, ch);
    axe__inst_explain(t, p, s, ch);
}

/* What the chosen schedule derived, for --explain. */
static void describe_choice(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int j;
    if (s->grid != NULL) {
        axe__grid_describe(t, p, s);
        return;
    }
    if (s->trn != NULL) {
        axe__trn_describe(t, s);
        return;
    }
    if (s->tcopy != NULL) {
        axe__trn_copy_describe(t, s);
        return;
    }
    if (s->tengine != AX_TRN_ENG_NONE) {
        axe__trn_engine_describe(t, p, s);
        return;
    }
    if (s->mma != NULL) {
        /* what each warp reads from memory, by the register operand */
        static const char *const loaded[] = {"A and B", "B", "A"};
        axe__text_put(t, "    atom %s, %lld x %lld x %lld atom tiles\n",
                      s->mma->atom, (long long)s->mma->tiles[0],
                      (long long)s->mma->tiles[1], (long long)s->mma->tiles[2]);
        if (s->mma->reg != 0 && !s->mma->perm[s->mma->reg - 1])
            axe__text_put(t,
                          "    %c outer layout (is_tile_inner): %s; %c's "
                          "fragments from the registers of the warp's "
                          "lanes\n",
                          'A' + s->mma->reg - 1, s->mma->outer[s->mma->reg - 1],
                          'A' + s->mma->reg - 1);
        else if (s->mma->reg != 0)
            axe__mma_describe_regs(t, p, s);
        if (s->mma->from_memory) {
            axe__text_put(t,
                          "    C outer layout (is_tile_inner): %s; each warp "
                          "loops over the atom tiles it holds, %s from "
                          "memory at the strides of C's plan:\n",
                          s->mma->outer[2], loaded[s->mma->reg]);
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
    if (s->tree != NULL) /* the scratch named as the refusals name it */
        axe__text_put(t,
                      "    barrier; a tree over the %lld elements of each "
                      "row in '%s' (the scratch of '%s'), a barrier after "
                      "each step\n",
                      (long long)s->tree->n, p->tensors[s->tree->scratch].name,
                      p->tensors[s->args[1].tensor].name);
    axe__text_put(t, "    barrier; stage 2, %s.%s:\n",
                  axe__op_name(s->stage[1]->op), s->stage[1]->schedule);
    axe__plan_describe(t, p, s->stage[1], s->stage[1]->plan);
}

/* The texts of one dispatch: the explanation's rejected schedules, the
 * one-line reasons of the forced (or every) schedule for the diag, and
 * one note per schedule for the complete diagnostic. */
typedef struct ax_tried {
    ax_text rej, brief, notes;
} ax_tried;

/* Whether the target lacks schedule "k" (why in "why"); "*missing" gets
 * the first such schedule whose predicate holds, before any is chosen
 * (unforced dispatch only: the operator asks for what the target lacks). */
static bool lacks(axe_program *p, ax_stmt *s, int k, const char *forced,
                  int chosen, int *missing, axe_diag *why)
{
    ax_plan plan;
    axe_diag fits;
    if (axe__backend_schedule(p, s, registry[k].name, why) == AXE_OK)
        return false;
    if (forced == NULL && chosen < 0 && *missing < 0 &&
        registry[k].applies(p, s, &plan, &fits, false) == AXE_OK)
        *missing = k;
    return true;
}

/* Try every schedule of the family in order: the first that applies (or
 * the forced one) is chosen; the others go to "tr". */
static int try_schedules(axe_program *p, ax_stmt *s, const char *forced,
                         ax_tried *tr, int *missing)
{
    ax_text *rej = &tr->rej, *brief = &tr->brief;
    ax_plan plan;
    int j, k, chosen = -1;
    *missing = -1;
    for (j = 0; j < NSCHED; j++) {
        bool mine;
        axe_diag why;
        k = p->opts.naive ? naive_order[j] : j;
        mine = forced == NULL || strcmp(forced, registry[k].name) == 0;
        axe_diag_clear(&why);
        if (!in_family(p, s, k))
            continue;
        if (lacks(p, s, k, forced, chosen, missing, &why) ||
            registry[k].applies(p, s, &plan, &why, false) != AXE_OK) {
            axe__text_put(rej, "  rejected %s.%s: %s\n", axe__op_name(s->op),
                          registry[k].name, why.message);
            if (mine)
                axe__text_put(brief, "%s%s: %s", brief->len ? "; " : "",
                              registry[k].name, why.message);
            axe__text_put(&tr->notes, "%s.%s: %s\n", axe__op_name(s->op),
                          registry[k].name, why.message);
        } else if (chosen < 0 && mine) {
            chosen = k;
            *s->plan = plan;
        } else {
            if (forced != NULL)
                axe__text_put(&tr->notes,
                              "%s.%s: applies, but is not the forced "
                              "schedule\n",
                              axe__op_name(s->op), registry[k].name);
            axe__text_put(rej, "  also applies %s.%s%s\n", axe__op_name(s->op),
                          registry[k].name,
                          forced != NULL ? " (not the forced schedule)"
                                         : " (lower priority)");
        }
    }
    return chosen;
}

/* A gemm at a collective scope whose dtypes have a tensor-core atom but
 * whose K is no multiple of the atom's K: when dispatch (not an option)
 * chose gemm.thread_fma, the note says it fell back to scalar FMA (in
 * --explain and through axe_program_note). */
static axe_status note_fallback(axe_program *p, ax_stmt *s, const char *forced,
                                ax_text *t)
{
    const char *atom;
    int64_t mnk[3], k = axe__ref_len(&s->args[1], 2);
    ax_text note;
    if (s->op != AX_OP_GEMM || forced != NULL || p->opts.naive ||
        strcmp(s->schedule, "thread_fma") != 0 || s->scope == AX_SCOPE_THREAD ||
        s->scope == AX_SCOPE_KERNEL || !axe__mma_atom_of(p, s, &atom, mnk) ||
        k % mnk[2] == 0)
        return AXE_OK;
    axe__text_init(&note, p->arena);
    axe__text_put(&note,
                  "gemm fell back to scalar FMA (gemm.thread_fma): K = %lld "
                  "is not a multiple of the K = %lld of the tensor-core atom "
                  "%s",
                  (long long)k, (long long)mnk[2], atom);
    axe__text_put(t, "  note: %s\n", note.buf != NULL ? note.buf : "");
    s->note = note.buf;
    return note.status;
}

/* The naive variant's operator that only a schedule of special
 * instructions fits: a note (the reference shares its schedule). */
static axe_status note_naive(axe_program *p, ax_stmt *s, int chosen, ax_text *t)
{
    ax_text note;
    if (!p->opts.naive || !registry[chosen].special)
        return AXE_OK;
    axe__text_init(&note, p->arena);
    axe__text_put(&note,
                  "the naive variant keeps %s.%s: no simpler schedule "
                  "applies (the reference shares this operator's schedule)",
                  axe__op_name(s->op), s->schedule);
    axe__text_put(t, "  note: %s\n", note.buf != NULL ? note.buf : "");
    s->note = note.buf;
    return note.status;
}

static axe_status dispatch_op(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    const char *forced = forced_for(p, s);
    ax_text t;
    ax_tried tr;
    int chosen, missing;
    AXE_TRY(axe__no_reorder(p, s, diag));
    axe__text_init(&t, p->arena);
    axe__text_init(&tr.rej, p->arena);
    axe__text_init(&tr.brief, p->arena);
    axe__text_init(&tr.notes, p->arena);
    explain_head(&t, p, s);
    s->plan = axe__arena_alloc(p->arena, sizeof *s->plan);
    if (s->plan == NULL)
        return AXE_ERR_NO_MEMORY;
    chosen = try_schedules(p, s, forced, &tr, &missing);
    if (t.status != AXE_OK || tr.rej.status != AXE_OK ||
        tr.brief.status != AXE_OK || tr.notes.status != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    if (chosen < 0)
        return no_schedule(p, diag, s, forced, &tr.brief, &tr.notes);
    if (missing >= 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "%s.%s fits this operator, but target %s has no "
                         "%s.%s (yet); --schedule %s=%s forces the fallback",
                         axe__op_name(s->op), registry[missing].name,
                         axe__backend_of(p)->name, axe__op_name(s->op),
                         registry[missing].name, axe__op_name(s->op),
                         registry[chosen].name);
    if (registry[chosen].applies(p, s, s->plan, diag, true) != AXE_OK)
        return AXE_ERR_NO_MEMORY;
    s->schedule = registry[chosen].name;
    AXE_TRY(axe__no_reorder_plan(p, s, diag));
    AXE_TRY(axe__ldsm_decide(p, s, diag));
    axe__text_put(&t, "  chosen %s.%s\n", axe__op_name(s->op), s->schedule);
    AXE_TRY(note_fallback(p, s, forced, &t));
    AXE_TRY(note_naive(p, s, chosen, &t));
    describe_choice(&t, p, s);
    axe__synth_explain(&t, p, s);
    if (s->op == AX_OP_GEMM && s->trn == NULL)
        axe__mma_describe(&t, p, s);
    if (s->op == AX_OP_GEMM && s->trn == NULL)
        inst_explain(&t, p, s);
    if (axe__backend_of(p)->explain != NULL)
        axe__backend_of(p)->explain(&t, p, s);
    axe__text_put(&t, "%s", tr.rej.len > 0 ? tr.rej.buf : "");
    s->explain = t.buf;
    return t.status;
}

/* The number of operators of kind "op" (index < 0) or numbered "index"
 * from "s" on; "*found" is set to the numbered one. */
static int count_ops(const ax_stmt *s, ax_op op, int index,
                     const ax_stmt **found)
{
    int n = 0;
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP && index >= 0 && s->index == index)
            *found = s;
        if (s->kind == AX_ST_OP && index < 0)
            n += s->op == op;
        if (s->kind == AX_ST_FOR || s->kind == AX_ST_IF)
            n += count_ops(s->body, op, index, found) +
                 count_ops(s->else_body, op, index, found);
    }
    return n;
}

/* Every --schedule option is well-formed and targets operators of the
 * program. */
static axe_status check_forced(const axe_program *p, axe_diag *diag)
{
    axe_kernel_options seen;
    int i, index;
    ax_op op;
    axe_kernel_options_init(&seen);
    for (i = 0; i < p->opts.nforced; i++) {
        const char *o = p->opts.forced_op[i], *f = p->opts.forced_schedule[i];
        const ax_stmt *s = NULL;
        axe_diag why;
        if (axe_kernel_options_check_force(&seen, o, f, &why) != AXE_OK)
            return axe__fail(diag, AXE_ERR_INVALID, -1, "--schedule %s=%s: %s",
                             o, f, why.message);
        seen.nforced = i + 1;
        memcpy(seen.forced_op[i], o, sizeof seen.forced_op[i]);
        (void)parse_target(o, &op, &index, NULL);
        if (index < 0 && count_ops(p->body, op, -1, &s) == 0)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "--schedule %s=%s: the program has no %s "
                             "operator",
                             o, f, o);
        if (index >= 0 && (count_ops(p->body, op, index, &s), s == NULL))
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "--schedule %s=%s: the program has no operator "
                             "%d (its operators are numbered 0 to %d)",
                             o, f, index, p->nops - 1);
        if (s != NULL && s->op != op)
            return axe__fail(diag, AXE_ERR_INVALID, s->off,
                             "--schedule %s=%s: operator %d is '%s', not "
                             "'%s'",
                             o, f, index, axe__op_name(s->op),
                             axe__op_name(op));
    }
    return AXE_OK;
}

/* Dead code (sema: its conditions never hold) gets no schedule: "dead",
 * and why in --explain. */
static axe_status dispatch_dead(axe_program *p, ax_stmt *s)
{
    ax_text t;
    axe__text_init(&t, p->arena);
    explain_head(&t, p, s);
    axe__text_put(&t,
                  "  never runs: %s (dead code: not dispatched, not "
                  "emitted)\n",
                  s->dead_why);
    s->schedule = "dead";
    s->explain = t.buf;
    return t.status;
}

static axe_status dispatch_block(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    for (; s != NULL; s = s->next) {
        if (s->kind == AX_ST_OP && s->dead)
            AXE_TRY(dispatch_dead(p, s));
        else if (s->kind == AX_ST_OP)
            AXE_TRY(dispatch_op(p, s, diag));
        if (s->kind == AX_ST_FOR || s->kind == AX_ST_IF)
            AXE_TRY(dispatch_block(p, s->body, diag));
        if (s->kind == AX_ST_IF)
            AXE_TRY(dispatch_block(p, s->else_body, diag));
    }
    return AXE_OK;
}

/* The predicate of schedule "name" on "s", as dispatch tries it. */
axe_status axe__schedule_try(axe_program *p, ax_stmt *s, const char *name,
                             axe_diag *why)
{
    ax_plan plan;
    int k;
    axe_diag_clear(why);
    for (k = 0; k < NSCHED; k++)
        if (in_family(p, s, k) && strcmp(registry[k].name, name) == 0)
            return registry[k].applies(p, s, &plan, why, false);
    return axe__fail(why, AXE_ERR_INVALID, s->off, "%s has no schedule '%s'",
                     axe__op_name(s->op), name);
}

/* Dispatch every operator of the program. */
axe_status axe__program_dispatch(axe_program *p, axe_diag *diag)
{
    const ax_backend *b;
    AXE_TRY(axe__backend_check_options(&p->opts, diag));
    if (p->opts.naive && p->opts.nforced > 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the naive variant takes no forced schedule "
                         "(--schedule %s=%s): it chooses each operator's "
                         "simplest schedule itself",
                         p->opts.forced_op[0], p->opts.forced_schedule[0]);
    AXE_TRY(check_forced(p, diag));
    b = axe__backend_of(p);
    if (b->scope != NULL) /* a kind of kernel the target never runs */
        AXE_TRY(b->scope(p, diag));
    AXE_TRY(dispatch_block(p, p->body, diag));
    return b->check != NULL ? b->check(p, diag) : AXE_OK;
}
