/* SPDX-License-Identifier: Apache-2.0 */
/*
 * 16-bit register tensors two to a 32-bit word (the backend's prepare
 * hook). ptxas gives each uint16_t element of a thread's array a 32-bit
 * register of its own; held as uint32_t words, two f16 or bf16 values
 * share one, and a tensor-core fragment register whose two values are a
 * word's is that word. gemm_f16_i4_regb's 32 dequantized f16 values of
 * B took 32 registers from the cast to the mma and spilled at the 128
 * registers __launch_bounds__(256) leaves on sm_80.
 * Element i is bits 16 (i % 2) of word i / 2, the bytes of a uint16_t
 * array, so byte copies into the array are unchanged. A tensor is held
 * so when every operator that reads or writes it does so
 *   - element by element (pointwise operators with one element per
 *     access, their per-thread loops unrolled: ax_ld16 and ax_st16 at
 *     constant indices, which ptxas turns into halves of registers),
 *   - by vectors of 4, 8 or 16 bytes (a vectorized copy from or to
 *     global or shared memory: `*(uint2 *)&W[(A) / 2L]`, whole words at
 *     the vector's even first element A),
 *   - by bytes (ldmatrix's memcpy into the destination), or
 *   - as the register A or B of a tensor-core gemm (mma_atom, mma_reg_a,
 *     mma_reg_b: each fragment register packed from the words);
 * any other access (a reduce, a shuffle, the C operand of a gemm) keeps
 * the uint16_t array.
 */
#include "compiler_backend.h"
#include "compiler_cuda.h"

/* Whether copy "s"'s vector accesses are 4, 8 or 16 bytes: the
 * backend's vector types, which address whole words of a words16
 * register (the vector's first element address is a multiple of its
 * width, so even). */
static bool vector_bytes(const axe_program *p, const ax_stmt *s)
{
    int64_t b =
        axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype, s->plan->vec);
    return b == 4 || b == 8 || b == 16;
}

/* Whether statement "s" accesses its operand "arg" (a 16-bit register
 * tensor) in one of the ways above. */
static bool use_ok(const axe_program *p, const ax_stmt *s, int arg)
{
    if (s->mma != NULL)
        return arg > 0 && axe__cuda_atom_of(p, s) != NULL &&
               (!s->mma->from_memory || s->mma->reg == arg);
    if (s->stage[0] != NULL || s->nmasks > 0 || s->grid != NULL ||
        axe__cuda_async_copy(p, s))
        return false;
    if (axe__cuda_ldsm_copy(p, s))
        return arg == 0;
    if (s->plan != NULL && s->plan->vec > 1)
        return s->op == AX_OP_COPY && vector_bytes(p, s);
    return s->plan != NULL && s->op != AX_OP_GEMM && s->op != AX_OP_REDUCE &&
           s->op != AX_OP_ATOMIC_ADD;
}

/* Whether every live operator of the list "s" accesses tensor "ti" so. */
static bool uses_ok(const axe_program *p, const ax_stmt *s, int ti)
{
    int i;
    for (; s != NULL; s = s->next) {
        if (!uses_ok(p, s->body, ti) || !uses_ok(p, s->else_body, ti))
            return false;
        if (s->kind != AX_ST_OP || s->dead)
            continue;
        for (i = 0; i < s->nargs; i++)
            if (s->args[i].tensor == ti && !use_ok(p, s, i))
                return false;
    }
    return true;
}

bool axe__cuda_words16(const axe_program *p, int ti)
{
    const ax_tensor *tn = &p->tensors[ti];
    return tn->mem == AX_MEM_REGISTER &&
           (tn->dtype == AXE_DTYPE_F16 || tn->dtype == AXE_DTYPE_BF16) &&
           tn->span % 2 == 0 && uses_ok(p, p->body, ti);
}

void axe__cuda_prepare(axe_program *p)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        p->tensors[i].words16 = axe__cuda_words16(p, i);
}
