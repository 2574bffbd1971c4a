/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ldmatrix copies in the CUDA backend: a copy from a shared packed-i4
 * tensor into an i4 register that the choice of compiler_copy_ldsm.c
 * takes loads each group of N of the thread's 32-bit register words
 * (N = 4, 2 or 1: .x4, .x2, .x1) by one
 * ldmatrix.sync.aligned.m8n8.xN.shared.b16 (a b16 element is 4 packed
 * i4). Lane l passes the row address of matrix l / 8 % N: the element
 * address that lane 4 (l % 8) of its own warp reads first in that
 * word, from that lane's thread digits (rank - laneid + 4 (laneid % 8))
 * and the word's non-thread digits (constants, chosen by l / 8 % N); the
 * N registers are then the thread's register bytes 4 g .. 4 g + 4 N.
 * The enclosing ifs are uniform over the scope (sema), so whole warps
 * execute the .aligned instruction. Invariant: only a copy whose every
 * lane's word the choice has evaluated to be its ldmatrix register
 * reaches this code.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_copy_ldsm.h"
#include "compiler_cuda.h"

static void ind_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

bool axe__cuda_ldsm_copy(const axe_program *p, const ax_stmt *s)
{
    const ax_ldsm *l = axe__ldsm_of(s);
    (void)p;
    return l != NULL && l->chosen;
}

/* The row-giving lane's rank in the scope and its thread digits that
 * the shared address reads. */
static void lane_rank(ax_text *t, const axe_program *p, const ax_stmt *s,
                      int ind)
{
    const ax_plan *plan = s->plan;
    ind_put(t, ind);
    axe__text_put(t, "const long ax_rank = %s%s; /* lane 4 (laneid %% 8) */\n",
                  s->scope == AX_SCOPE_WARP        ? ""
                  : s->scope == AX_SCOPE_WARPGROUP ? "tid_in_wg - laneid + "
                                                   : "ax_tid - laneid + ",
                  "laneid % 8L * 4L");
    for (int k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].stride[1] != 0) {
            ind_put(t, ind);
            axe__text_put(t, "const long ax_t%d = ax_rank / %lldL %% %lldL;\n",
                          k, (long long)plan->loops[k].rank_div,
                          (long long)plan->loops[k].extent);
        }
    (void)p;
}

/* Instruction "q": the non-thread digits of word q N + ax_j, then the
 * ldmatrix and the copy of its registers into the thread's bytes. */
static void instruction(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_ldsm *l, int q, int ind)
{
    const ax_plan *plan = s->plan;
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    int n = l->leaf[0].regs;
    ind_put(t, ind);
    axe__text_put(t, "{\n");
    ind_put(t, ind + 1);
    axe__text_put(t, "uint32_t ax_w[%d];\n", n);
    for (int k = 0; k < plan->nloops; k++) {
        if (plan->loops[k].thread || plan->loops[k].stride[1] == 0)
            continue;
        ind_put(t, ind + 1);
        axe__text_put(t, "const long ax_i%d = ", k);
        for (int j = 1; j < n; j++)
            axe__text_put(t, "ax_j == %dL ? %lldL : ", j,
                          (long long)l->digit[q * n + j][k]);
        axe__text_put(t, "%lldL;\n", (long long)l->digit[q * n][k]);
    }
    ind_put(t, ind + 1);
    axe__text_put(t, "axe_ptx_ldmatrix_x%d(ax_w, AXE_AT(%s, (", n, src->cname);
    axe__emit_elem_addr(t, p, s, 1);
    axe__text_put(t, ") / 2L, %d));\n", s->line);
    ind_put(t, ind + 1);
    axe__text_put(t, "memcpy((unsigned char *)%s + %d, ax_w, %d);\n",
                  dst->cname, 4 * q * n, 4 * n);
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

void axe__cuda_emit_ldsm(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int ind)
{
    const ax_ldsm *l = axe__ldsm_of(s);
    int n;
    if (l == NULL || !l->chosen) {
        axe__emit_op(t, p, s, ind, false); /* not reached: callers check */
        return;
    }
    n = l->leaf[0].regs;
    ind_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): %s copy -- schedule copy.%s, "
                  "by ldmatrix.x%d (4 packed i4 per b16) */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  axe__stmt_scope_name(p, s), s->schedule, n);
    lane_rank(t, p, s, ind + 1);
    if (n > 1) {
        ind_put(t, ind + 1);
        axe__text_put(t, "const long ax_j = laneid / 8L %% %dL;\n", n);
    }
    for (int q = 0; q < l->words / n; q++)
        instruction(t, p, s, l, q, ind + 1);
    ind_put(t, ind);
    axe__text_put(t, "}\n");
}

bool axe__cuda_explain_ldsm(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_ldsm *l = axe__ldsm_of(s);
    char name[2][96];
    int c;
    (void)p;
    if (l == NULL)
        return false;
    (void)snprintf(name[0], sizeof name[0],
                   "ldmatrix.sync.aligned.m8n8.x%d.shared.b16 (4 packed i4 "
                   "per b16)",
                   l->leaf[0].regs);
    (void)snprintf(name[1], sizeof name[1], "per-thread %lld-byte loads",
                   (long long)l->access_bytes);
    for (int k = 0; k < 2; k++) {
        const ax_inst_leaf *f;
        c = k == 0 ? !l->chosen : l->chosen; /* the chosen leaf first */
        f = &l->leaf[c];
        axe__text_put(t,
                      "%s%s, cost %.0f (%lld instructions, %lld wavefronts, "
                      "%lld-way)%s",
                      k == 0 ? "" : "runner-up: ", name[c], f->cost,
                      (long long)f->instructions, (long long)f->wavefronts,
                      (long long)f->ways, k == 0 ? "; " : "\n");
    }
    return true;
}
