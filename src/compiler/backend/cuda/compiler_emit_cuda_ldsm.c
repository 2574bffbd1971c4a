/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ldmatrix copies in the CUDA backend: a copy from a shared tensor into
 * a register of 4-, 8- or 16-bit elements that the choice of
 * compiler_copy_ldsm.c (kept on its plan) takes loads each group of N of
 * the thread's 32-bit register words (N = 4, 2 or 1: .x4, .x2, .x1) by
 * one ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (a b16 element is
 * 4 packed i4, 2 8-bit elements or one 16-bit one). Lane l passes the row
 * address of matrix l / 8 % N: the element address that lane 4 (l % 8)
 * of its own warp reads first in that word (with .trans, element l % 2
 * of the word of lane (l % 8) / 2), from that lane's thread digits
 * (rank - laneid + 4 (laneid % 8), or + (laneid % 8) / 2) and the
 * element's non-thread digits (constants, chosen by l / 8 % N and, with
 * .trans, l % 2); the N registers are then the thread's register bytes
 * 4 g .. 4 g + 4 N.
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

/* What one b16 of the ldmatrix holds, as text: " (4 packed i4 per b16)",
 * " (2 i8 per b16)", or "" (16-bit elements). */
static const char *per_b16(const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[1].tensor].dtype;
    return d == AXE_DTYPE_I4     ? " (4 packed i4 per b16)"
           : d == AXE_DTYPE_I8   ? " (2 i8 per b16)"
           : d == AXE_DTYPE_E4M3 ? " (2 e4m3 per b16)"
           : d == AXE_DTYPE_E5M2 ? " (2 e5m2 per b16)"
                                 : "";
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
                      bool trans, int ind)
{
    const ax_plan *plan = s->plan;
    ind_put(t, ind);
    axe__text_put(t, "const long ax_rank = %s%s; /* lane %s */\n",
                  s->scope == AX_SCOPE_WARP        ? ""
                  : s->scope == AX_SCOPE_WARPGROUP ? "tid_in_wg - laneid + "
                                                   : "ax_tid - laneid + ",
                  trans ? "laneid % 8L / 2L" : "laneid % 8L * 4L",
                  trans ? "(laneid % 8) / 2" : "4 (laneid % 8)");
    for (int k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].stride[1] != 0) {
            ind_put(t, ind);
            axe__text_put(t, "const long ax_t%d = ax_rank / %lldL %% %lldL;\n",
                          k, (long long)plan->loops[k].rank_div,
                          (long long)plan->loops[k].extent);
        }
    (void)p;
}

/* Instruction "q": the non-thread digits of the row's element (word
 * q N + ax_j, or with .trans element ax_j % 2 of word q N + ax_j / 2),
 * then the ldmatrix and the copy of its registers into the thread's
 * bytes. */
static void instruction(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_ldsm *l, int q, int ind)
{
    const ax_plan *plan = s->plan;
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    int n = l->leaf[0].regs, per = l->trans ? 2 : 1;
    ind_put(t, ind);
    axe__text_put(t, "{\n");
    ind_put(t, ind + 1);
    axe__text_put(t, "uint32_t ax_w[%d];\n", n);
    for (int k = 0; k < plan->nloops; k++) {
        if (plan->loops[k].thread || plan->loops[k].stride[1] == 0)
            continue;
        ind_put(t, ind + 1);
        axe__text_put(t, "const long ax_i%d = ", k);
        for (int j = 1; j < per * n; j++)
            axe__text_put(t, "ax_j == %dL ? %lldL : ", j,
                          (long long)l->digit[q * n + j / per][j % per][k]);
        axe__text_put(t, "%lldL;\n", (long long)l->digit[q * n][0][k]);
    }
    ind_put(t, ind + 1);
    axe__text_put(t, "axe_ptx_ldmatrix_x%d%s(ax_w, AXE_AT(%s, %s", n,
                  l->trans ? "_trans" : "", src->cname,
                  src->dtype == AXE_DTYPE_I4 ? "(" : "");
    axe__emit_elem_addr(t, p, s, 1);
    axe__text_put(t, "%s, %d));\n", src->dtype == AXE_DTYPE_I4 ? ") / 2L" : "",
                  s->line);
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
                  "by ldmatrix.x%d%s%s */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  axe__stmt_scope_name(p, s), s->schedule, n,
                  l->trans ? ".trans" : "", per_b16(p, s));
    lane_rank(t, p, s, l->trans, ind + 1);
    if (l->trans) { /* the word's matrix and the row's element */
        ind_put(t, ind + 1);
        axe__text_put(t,
                      "const long ax_j = laneid / 8L %% %dL * 2L + laneid "
                      "%% 2L;\n",
                      n);
    } else if (n > 1) {
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
    if (l == NULL)
        return false;
    (void)snprintf(name[0], sizeof name[0],
                   "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16%s",
                   l->leaf[0].regs, l->trans ? ".trans" : "", per_b16(p, s));
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
