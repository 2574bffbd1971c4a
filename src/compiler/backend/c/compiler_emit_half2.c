/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f16 and bf16 add, sub and mul two elements at a time: where the
 * destination is a 16-bit register held two to a 32-bit word (words16,
 * which only the CUDA backend's prepare hook sets) and a per-thread loop
 * walks both halves of each word, the loop runs in steps of 2 and each
 * word is one instruction on pairs, `W = ax_hmul2(A, B);` (ax_hadd2,
 * ax_hsub2: mul.rn.f16x2, add.rn.f16x2, sub.rn.f16x2; bf16's ax_badd2,
 * ax_bsub2, ax_bmul2: add.rn.bf16x2 ... on sm_90, fma.rn.bf16x2 with a
 * constant on sm_80, compiler_cuda_half2.c).
 * An operand is the same word of a words16 register walked alike, one
 * element twice (ax_h2dup: a scalar, or a tensor at stride 0 along the
 * pair), or its two elements packed (ax_h2pack). The per-element path
 * computes in float and rounds once to f16: an f16 product (11 + 11
 * significant bits) is exact in float, and an f16 sum rounded to float
 * then to f16 rounds as the exact sum does (24 >= 2 * 11 + 2), so both
 * are the correctly rounded f16 result the instruction gives; the .rn
 * keeps ptxas from fusing a mul and an add into an fma (one rounding,
 * another result). bf16 alike: a product (8 + 8 bits) is exact in float
 * unless below 2^-134, where both paths give a zero of its sign; a sum
 * below 2^-126 is exact in float (both operands are multiples of
 * 2^-133); elsewhere 24 >= 2 * 8 + 2. fma stays per element.
 */
#include "compiler_backend.h"
#include "compiler_internal.h"

/* Whether operand "i"'s element address is even for every value of the
 * loops other than loop "k" (at stride 1): a constant even base and even
 * strides, unswizzled. */
static bool word_walk(const axe_program *p, const ax_stmt *s, int i, int k)
{
    const ax_plan *plan = s->plan;
    ax_base b;
    if (!plan->affine[i] || plan->swizzled[i] || plan->loops[k].stride[i] != 1)
        return false;
    axe__plan_base(p, &s->args[i], &b);
    if (b.ndyn > 0 || b.cst % 2 != 0)
        return false;
    for (int j = 0; j < plan->nloops; j++)
        if (j != k && plan->loops[j].extent > 1 &&
            plan->loops[j].stride[i] % 2 != 0)
            return false;
    return true;
}

/* Whether a source of "s" is the destination's tensor at another region
 * or through a view: the pair reads both its sources before it writes
 * the word, the element path one after the other's store. */
static bool self_overlap(const ax_stmt *s)
{
    const ax_ref *d = &s->args[0];
    for (int i = 1; i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        if (r->tensor != d->tensor)
            continue;
        if (r->is_view || d->is_view || r->bdim >= 0 || d->bdim >= 0 ||
            r->ndim != d->ndim)
            return true;
        for (int k = 0; k < r->ndim; k++)
            if (r->len[k] != d->len[k] ||
                !axe__expr_same(r->start[k], d->start[k]))
                return true;
    }
    return false;
}

/* Whether "s" is an f16 or bf16 add, sub or mul into a words16
 * register of that dtype, every operand of it too, whose plan is a
 * per-thread loop over single elements, unmasked. */
static bool half2_op(const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    const ax_plan *plan = s->plan;
    if ((s->op != AX_OP_ADD && s->op != AX_OP_SUB && s->op != AX_OP_MUL) ||
        !d->words16 || plan == NULL || plan->kind == AX_PLAN_SPLIT ||
        plan->vec != 1 || plan->pair != 0 || s->stage[0] != NULL ||
        s->grid != NULL || s->nmasks > 0 || self_overlap(s))
        return false;
    if (d->dtype != AXE_DTYPE_F16 && d->dtype != AXE_DTYPE_BF16)
        return false;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].any_masked ||
            p->tensors[s->args[i].tensor].dtype != d->dtype)
            return false;
    return true;
}

int axe__half2_pair(const axe_program *p, const ax_stmt *s)
{
    if (!half2_op(p, s))
        return 0;
    for (int k = s->plan->nloops - 1; k >= 0; k--) {
        const ax_loop *lp = &s->plan->loops[k];
        if (!lp->thread && lp->extent % 2 == 0 && word_walk(p, s, 0, k))
            return k + 1;
    }
    return 0;
}

/* The f16 pair of the operand at source position "pos" for the word of
 * pair loop k (see the file comment). */
static void pair_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int pos)
{
    int i = axe__operand_arg(s, pos), k = s->plan->pair - 1;
    const ax_tensor *tn = i >= 0 ? &p->tensors[s->args[i].tensor] : NULL;
    ax_plan hi = *s->plan;
    ax_stmt next = *s;
    if (tn != NULL && tn->words16 && word_walk(p, s, i, k)) {
        axe__text_put(t, "%s%s[(", tn->cname, axe__backend_of(p)->reg_index);
        axe__emit_elem_addr(t, p, s, i);
        axe__text_put(t, ") / 2L]");
        return;
    }
    if (tn == NULL || (s->plan->affine[i] && s->plan->loops[k].stride[i] == 0 &&
                       !s->plan->swizzled[i])) {
        axe__text_put(t, "ax_h2dup(");
        axe__emit_raw_operand(t, p, s, pos);
        axe__text_put(t, ")");
        return;
    }
    hi.next = s->plan->pair;
    next.plan = &hi;
    axe__text_put(t, "ax_h2pack(");
    axe__emit_raw_operand(t, p, s, pos);
    axe__text_put(t, ", ");
    axe__emit_raw_operand(t, p, &next, pos);
    axe__text_put(t, ")");
}

void axe__emit_half2_store(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    axe__text_put(t, "%s%s[(", d->cname, axe__backend_of(p)->reg_index);
    axe__emit_elem_addr(t, p, s, 0);
    axe__text_put(t, ") / 2L] = ax_%c%s2(",
                  d->dtype == AXE_DTYPE_BF16 ? 'b' : 'h',
                  s->op == AX_OP_ADD   ? "add"
                  : s->op == AX_OP_SUB ? "sub"
                                       : "mul");
    pair_operand(t, p, s, 1);
    axe__text_put(t, ", ");
    pair_operand(t, p, s, 2);
    axe__text_put(t, ");\n");
}
