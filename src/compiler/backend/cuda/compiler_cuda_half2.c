/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The device helpers of f16 add, sub and mul a 32-bit word at a time
 * (compiler_emit_half2.c chooses and emits them): ax_hadd2, ax_hsub2 and
 * ax_hmul2 on two words of f16 pairs, by the PTX instructions
 * add.rn.f16x2, sub.rn.f16x2 and mul.rn.f16x2 (each half rounded once to
 * nearest even, subnormals kept; the .rn forbids ptxas to contract a mul
 * and a following add into an fma, which CUDA's __hmul2, mul.f16x2 with
 * no rounding modifier, allows; the CUDA emulation runs them as the ISA
 * defines them, compiler_cuda_emu_atoms.h), and ax_h2pack / ax_h2dup,
 * which build a word from two f16 bit patterns or one twice. Each helper
 * is emitted only where the kernel's body calls it.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

/* One instruction's helper: its name in the body, its PTX, its wrapper. */
typedef struct half2_insn {
    const char *helper, *ptx, *wrapper;
} half2_insn;

static const half2_insn insns[] = {
    {"ax_hadd2", "add.rn.f16x2", "axe_ptx_add_rn_f16x2"},
    {"ax_hsub2", "sub.rn.f16x2", "axe_ptx_sub_rn_f16x2"},
    {"ax_hmul2", "mul.rn.f16x2", "axe_ptx_mul_rn_f16x2"},
};

/* Whether "body" calls function "name". */
static bool calls(const char *body, const char *name)
{
    char call[32];
    snprintf(call, sizeof call, "%s(", name);
    return strstr(body, call) != NULL;
}

static void insn_helper(ax_text *t, const half2_insn *h)
{
    axe__text_put(t,
                  "#ifndef AXE_CUDA_EMULATE /* the PTX instruction "
                  "(emulated otherwise) */\n"
                  "static __device__ __forceinline__ uint32_t %s(uint32_t "
                  "a, uint32_t b)\n{\n    uint32_t d;\n"
                  "    asm(\"%s %%0, %%1, %%2;\" : \"=r\"(d) : \"r\"(a), "
                  "\"r\"(b));\n    return d;\n}\n#endif\n"
                  "/* Two f16 pairs, half by half: %s (one rounding). */\n"
                  "static __device__ __forceinline__ uint32_t %s(uint32_t "
                  "a, uint32_t b)\n{\n    return %s(a, b);\n}\n",
                  h->wrapper, h->ptx, h->ptx, h->helper, h->wrapper);
}

void axe__cuda_half2_helpers(ax_text *t, const char *body)
{
    size_t i;
    for (i = 0; i < sizeof insns / sizeof insns[0]; i++)
        if (calls(body, insns[i].helper))
            insn_helper(t, &insns[i]);
    if (calls(body, "ax_h2pack"))
        axe__text_put(t, "/* The f16 pair of bit patterns lo (low half) "
                         "and hi. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_h2pack(uint16_t lo, uint16_t hi)\n{\n"
                         "    return (uint32_t)lo | (uint32_t)hi << 16;\n}\n");
    if (calls(body, "ax_h2dup"))
        axe__text_put(t, "/* The f16 pair of bit pattern h twice. */\n"
                         "static __device__ __forceinline__ uint32_t "
                         "ax_h2dup(uint16_t h)\n{\n"
                         "    return (uint32_t)h * 0x10001u;\n}\n");
}
