/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device helpers of f16 and bf16 add, sub, mul, max, min and neg a
 * 32-bit word at a time (compiler_emit_half2.c chooses and emits them):
 * ax_hadd2, ax_hsub2 and ax_hmul2 on two words of f16 pairs, by the PTX
 * instructions add.rn.f16x2, sub.rn.f16x2 and mul.rn.f16x2 (each half rounded
 * once to nearest even, subnormals kept; the .rn forbids ptxas to contract a
 * mul and a following add into an fma, which CUDA's __hmul2, mul.f16x2 with no
 * rounding modifier, allows); ax_badd2, ax_bsub2 and ax_bmul2 on bf16 pairs, by
 * add.rn.bf16x2, sub.rn.bf16x2 and mul.rn.bf16x2 where the kernel is compiled
 * for sm_90 (they need it), else by the sm_80 fma.rn.bf16x2 with a constant
 * word, as CUDA's cuda_bf16.hpp does: a * 1 + b, b * -1 + a and a * b + -0
 * (each one rounding of the exact result; + -0 keeps a product's -0, where + 0
 * would give +0; bf16 has no .ftz, so subnormals are kept); ax_hmax2, ax_hmin2,
 * ax_bmax2 and ax_bmin2 by max.f16x2, min.f16x2, max.bf16x2 and min.bf16x2
 * (sm_80: a NaN loses to a number, as C's fmaxf/fminf on the per-element path;
 * two NaN give the canonical NaN); ax_hneg2 and ax_bneg2 flip the sign
 * bits (exact); the CUDA emulation runs every instruction as the ISA
 * defines it (compiler_cuda_emu_atoms.h); and ax_h2pack / ax_h2dup,
 * which build a word from two 16-bit patterns or one twice. Each helper
 * is emitted only where the kernel's body calls it.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

/* What an instruction computes: one rounding of each half's exact
 * result (add, sub, mul) or the larger/smaller half (max, min). */
typedef enum half2_kind { HALF2_ROUND, HALF2_MINMAX } half2_kind;

/* One instruction's helper: its name in the body, its PTX, its wrapper,
 * the operator it runs, its format (bf16 or f16), its kind and, for bf16
 * before sm_90, the fma.rn.bf16x2 form: the operands of the fma (a, b,
 * or a constant word), as text, and whether its addend is -0 (keeping
 * a -0 product). */
typedef struct half2_insn {
    const char *helper, *ptx, *wrapper;
    ax_op op;
    bool bf16;
    half2_kind kind;
    const char *fma, *fma_text;
    bool fma_neg_zero;
} half2_insn;

static const half2_insn insns[] = {
    {"ax_hadd2", "add.rn.f16x2", "axe_ptx_add_rn_f16x2", AX_OP_ADD, false,
     HALF2_ROUND, NULL, NULL, false},
    {"ax_hsub2", "sub.rn.f16x2", "axe_ptx_sub_rn_f16x2", AX_OP_SUB, false,
     HALF2_ROUND, NULL, NULL, false},
    {"ax_hmul2", "mul.rn.f16x2", "axe_ptx_mul_rn_f16x2", AX_OP_MUL, false,
     HALF2_ROUND, NULL, NULL, false},
    {"ax_badd2", "add.rn.bf16x2", "axe_ptx_add_rn_bf16x2", AX_OP_ADD, true,
     HALF2_ROUND, "a, 0x3f803f80u, b", "a * 1 + b", false},
    {"ax_bsub2", "sub.rn.bf16x2", "axe_ptx_sub_rn_bf16x2", AX_OP_SUB, true,
     HALF2_ROUND, "b, 0xbf80bf80u, a", "b * -1 + a", false},
    {"ax_bmul2", "mul.rn.bf16x2", "axe_ptx_mul_rn_bf16x2", AX_OP_MUL, true,
     HALF2_ROUND, "a, b, 0x80008000u", "a * b + -0", true},
    {"ax_hmax2", "max.f16x2", "axe_ptx_max_f16x2", AX_OP_MAX, false,
     HALF2_MINMAX, NULL, NULL, false},
    {"ax_hmin2", "min.f16x2", "axe_ptx_min_f16x2", AX_OP_MIN, false,
     HALF2_MINMAX, NULL, NULL, false},
    {"ax_bmax2", "max.bf16x2", "axe_ptx_max_bf16x2", AX_OP_MAX, true,
     HALF2_MINMAX, NULL, NULL, false},
    {"ax_bmin2", "min.bf16x2", "axe_ptx_min_bf16x2", AX_OP_MIN, true,
     HALF2_MINMAX, NULL, NULL, false},
};

/* Whether "body" calls function "name". */
static bool calls(const char *body, const char *name)
{
    char call[32];
    snprintf(call, sizeof call, "%s(", name);
    return strstr(body, call) != NULL;
}

/* The PTX wrapper "wrapper" of instruction "ptx" on n = 2 or 3 words
 * (the emulation defines it instead). */
static void ptx_wrapper(ax_text *t, const char *wrapper, const char *ptx, int n)
{
    axe__text_put(t,
                  "#ifndef AXE_CUDA_EMULATE /* the PTX instruction "
                  "(emulated otherwise) */\n"
                  "static __device__ __forceinline__ uint32_t %s(uint32_t "
                  "a, uint32_t b%s)\n{\n    uint32_t d;\n"
                  "    asm(\"%s %%0, %%1, %%2%s;\" : \"=r\"(d) : \"r\"(a), "
                  "\"r\"(b)%s);\n    return d;\n}\n#endif\n",
                  wrapper, n == 3 ? ", uint32_t c" : "", ptx,
                  n == 3 ? ", %3" : "", n == 3 ? ", \"r\"(c)" : "");
}

/* Helper "h" by its own instruction, or (fma) by fma.rn.bf16x2. */
static void insn_helper(ax_text *t, const half2_insn *h, bool fma)
{
    if (!fma)
        ptx_wrapper(t, h->wrapper, h->ptx, 2);
    axe__text_put(t,
                  "/* Two %s pairs, half by half: ", h->bf16 ? "bf16" : "f16");
    if (fma)
        axe__text_put(
            t,
            "%s, one rounding by fma.rn.bf16x2 (%s needs "
            "sm_90%s)",
            h->fma_text, h->ptx,
            h->fma_neg_zero ? "; + -0 keeps a -0 product, + 0 would not" : "");
    else if (h->kind == HALF2_MINMAX)
        axe__text_put(t, "%s (a NaN loses to a number)", h->ptx);
    else
        axe__text_put(t, "%s (one rounding)", h->ptx);
    axe__text_put(t,
                  ". */\n"
                  "static __device__ __forceinline__ uint32_t %s(uint32_t "
                  "a, uint32_t b)\n{\n    return %s(%s);\n}\n",
                  h->helper, fma ? "axe_ptx_fma_rn_bf16x2" : h->wrapper,
                  fma ? h->fma : "a, b");
}

void axe__cuda_half2_helpers(ax_text *t, const axe_program *p, const char *body)
{
    bool fma = axe__backend_arch(p) < 90, fma_done = false;
    size_t i;
    for (i = 0; i < sizeof insns / sizeof insns[0]; i++) {
        bool by_fma = fma && insns[i].fma != NULL;
        if (!calls(body, insns[i].helper))
            continue;
        if (by_fma && !fma_done) {
            ptx_wrapper(t, "axe_ptx_fma_rn_bf16x2", "fma.rn.bf16x2", 3);
            fma_done = true;
        }
        insn_helper(t, &insns[i], by_fma);
    }
    if (calls(body, "ax_hneg2"))
        axe__text_put(t, "/* Two f16 negated: the sign bits flipped. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_hneg2(uint32_t a)\n{\n"
                         "    return a ^ 0x80008000u;\n}\n");
    if (calls(body, "ax_bneg2"))
        axe__text_put(t, "/* Two bf16 negated: the sign bits flipped. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_bneg2(uint32_t a)\n{\n"
                         "    return a ^ 0x80008000u;\n}\n");
    if (calls(body, "ax_h2pack"))
        axe__text_put(t, "/* The pair of 16-bit patterns lo (low half) "
                         "and hi. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_h2pack(uint16_t lo, uint16_t hi)\n{\n"
                         "    return (uint32_t)lo | (uint32_t)hi << 16;\n}\n");
    if (calls(body, "ax_h2dup"))
        axe__text_put(t, "/* The pair of 16-bit pattern h twice. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_h2dup(uint16_t h)\n{\n"
                         "    return (uint32_t)h * 0x10001u;\n}\n");
}

/* The helper of the word form of "s" (ax_<h|b><op>2), NULL for neg. */
static const half2_insn *word_insn(const axe_program *p, const ax_stmt *s)
{
    bool bf = p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_BF16;
    size_t i;
    for (i = 0; i < sizeof insns / sizeof insns[0]; i++)
        if (insns[i].bf16 == bf && insns[i].op == s->op)
            return &insns[i];
    return NULL;
}

/* s->explain gains "  word form: ..." (see axe__cuda_half2_explain). */
static axe_status explain_one(const axe_program *p, ax_stmt *s, const char *why)
{
    ax_text t;
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    const half2_insn *h = word_insn(p, s);
    axe__text_init(&t, p->arena);
    axe__text_put(&t, "%s", s->explain != NULL ? s->explain : "");
    if (why == NULL && h == NULL)
        axe__text_put(&t,
                      "  word form: two %s of '%s' a 32-bit word at a time "
                      "(the sign bits flipped)\n",
                      axe_dtype_name(d->dtype), d->name);
    else if (why == NULL && h->fma != NULL && axe__backend_arch(p) < 90)
        axe__text_put(&t,
                      "  word form: two %s of '%s' a 32-bit word at a time "
                      "(fma.rn.bf16x2 as %s: %s needs sm_90)\n",
                      axe_dtype_name(d->dtype), d->name, h->fma_text, h->ptx);
    else if (why == NULL)
        axe__text_put(&t,
                      "  word form: two %s of '%s' a 32-bit word at a time "
                      "(%s)\n",
                      axe_dtype_name(d->dtype), d->name, h->ptx);
    else
        axe__text_put(&t, "  word form: element by element: %s\n", why);
    if (t.status == AXE_OK)
        s->explain = t.buf;
    return t.status;
}

axe_status axe__cuda_half2_explain(const axe_program *p, ax_stmt *s)
{
    const char *why;
    for (; s != NULL; s = s->next) {
        AXE_TRY(axe__cuda_half2_explain(p, s->body));
        AXE_TRY(axe__cuda_half2_explain(p, s->else_body));
        if (s->kind != AX_ST_OP || s->dead)
            continue;
        why = axe__half2_why_not(
            p, s, axe__cuda_words16(p, s->nargs > 0 ? s->args[0].tensor : 0));
        if (why == NULL || *why != '\0')
            AXE_TRY(explain_one(p, s, why));
    }
    return AXE_OK;
}
