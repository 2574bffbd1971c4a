/* SPDX-License-Identifier: Apache-2.0 */
/*
 * f16 and bf16 add, sub, mul, max, min and neg two elements at a time
 * (max, min: max.f16x2 ..., whose NaN rule is the language's maxNum; neg:
 * the sign bits flipped; both exact): where the
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
 * 2^-133); elsewhere 24 >= 2 * 8 + 2. fma stays per element. The
 * CUDA backend's --explain names each such operator's form and why it
 * stays per element (axe__half2_why_not).
 */
#include "compiler_backend.h"
#include "compiler_internal.h"

/* Whether operand "i"'s elements are walked in aligned pairs by loop
 * "k" (axe__plan_pair_loop: loop k at stride 1, the base even for every
 * value of its dynamic parts, as `k * 4` of a loop variable k, every
 * other stride even), affinely and unswizzled. */
static bool word_walk(const axe_program *p, const ax_stmt *s, int i, int k)
{
    return s->plan->affine[i] && !s->plan->swizzled[i] &&
           axe__plan_pair_loop(p, s, s->plan, i) == k + 1;
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

/* Whether "s" is an operator a word at a time may run: add, sub, mul,
 * max, min or neg into an f16 or bf16 register. */
static bool half2_kind(const axe_program *p, const ax_stmt *s)
{
    const ax_tensor *d;
    if (s->kind != AX_ST_OP || s->nargs < 1 ||
        (s->op != AX_OP_ADD && s->op != AX_OP_SUB && s->op != AX_OP_MUL &&
         s->op != AX_OP_MAX && s->op != AX_OP_MIN && s->op != AX_OP_NEG))
        return false;
    d = &p->tensors[s->args[0].tensor];
    return d->mem == AX_MEM_REGISTER &&
           (d->dtype == AXE_DTYPE_F16 || d->dtype == AXE_DTYPE_BF16);
}

/* Why "s" (half2_kind) runs element by element before its loops are
 * looked at, or NULL: its register must be held in words ("words", its
 * words16), every operand of its dtype, unmasked, its plan a per-thread
 * loop of single elements, no source the destination elsewhere. */
static const char *half2_why(const axe_program *p, const ax_stmt *s, bool words)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    const ax_plan *plan = s->plan;
    if (!words)
        return "the register is not held two to a 32-bit word";
    if (plan == NULL || plan->kind == AX_PLAN_SPLIT || plan->vec != 1 ||
        plan->pair != 0 || s->stage[0] != NULL || s->grid != NULL)
        return "its schedule is not a per-thread loop of single elements";
    if (s->nmasks > 0)
        return "it is masked";
    for (int i = 0; i < s->nargs; i++) {
        if (s->args[i].any_masked)
            return "an operand is masked";
        if (p->tensors[s->args[i].tensor].dtype != d->dtype)
            return "an operand is not of the destination's dtype";
    }
    if (self_overlap(s))
        return "a source is the destination at another region (the pair "
               "would read it before the first half is stored)";
    return NULL;
}

/* 1 + the loop that walks the destination's words (word_walk), 0 if
 * none. */
static int pair_loop(const axe_program *p, const ax_stmt *s)
{
    int k = axe__plan_pair_loop(p, s, s->plan, 0) - 1;
    return k >= 0 && word_walk(p, s, 0, k) ? k + 1 : 0;
}

int axe__half2_pair(const axe_program *p, const ax_stmt *s)
{
    if (!half2_kind(p, s) ||
        half2_why(p, s, p->tensors[s->args[0].tensor].words16) != NULL)
        return 0;
    return pair_loop(p, s);
}

const char *axe__half2_why_not(const axe_program *p, const ax_stmt *s,
                               bool words)
{
    const char *why;
    if (!half2_kind(p, s))
        return "";
    why = half2_why(p, s, words);
    if (why == NULL && pair_loop(p, s) == 0)
        why = "no loop of even extent walks the destination at stride 1 "
              "with an even base and even other strides (a word's two "
              "halves)";
    return why;
}

/* The 16-bit pair of the operand at source position "pos" for the word of
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
                  d->dtype == AXE_DTYPE_BF16 ? 'b' : 'h', axe__op_name(s->op));
    pair_operand(t, p, s, 1);
    if (s->op != AX_OP_NEG) {
        axe__text_put(t, ", ");
        pair_operand(t, p, s, 2);
    }
    axe__text_put(t, ");\n");
}
