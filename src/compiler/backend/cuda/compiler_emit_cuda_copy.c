/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cp.async in the CUDA backend: a copy at warp, warpgroup or cta scope
 * from a global to a shared tensor of the same dtype (no masked
 * dimension, no data-dependent start) whose accesses are 4, 8 or 16
 * bytes (a vector of copy.vector, or one element of 4 or 8 bytes of
 * copy.split or copy.thread_loop) moves each with `cp.async` (4 or 8
 * bytes: .ca, 16 bytes: .cg) instead of a load into registers and a
 * store; the operator ends with `cp.async.commit_group`. The copies are then in
 * flight together, and a thread waits for them (`cp.async.wait_group 0`)
 * right before the first later statement of the same block that could
 * observe them: a `sync` (so the barrier that publishes the tile to the
 * other threads comes after the wait, as the kernel's syncs require), a
 * `for` or `if`, an operator that reads or writes the copy's source or
 * destination tensor, or the end of the block. A copy's data is thus
 * complete, for the thread and after the barrier for the others,
 * wherever the program could read it: correct by the kernel's own syncs.
 * Copies of consecutive statements overlap (the A and B tiles of a GEMM
 * before their `sync`); across the iterations of a `for` whose tiles
 * rotate over stages, compiler_cuda_pipe.c keeps several in flight.
 * The naive variant (axe_kernel_options.naive) has no cp.async (and so
 * no pipeline): its copies load into registers and store.
 */
#include <string.h>

#include "compiler_backend.h"
#include "compiler_cuda.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

static bool plain_operand(const ax_ref *r)
{
    int d, n;
    for (d = 0; d < r->ndim; d++)
        if (r->masked[d] || axe__expr_load(r->start[d], &n) != NULL)
            return false;
    return true;
}

bool axe__cuda_async_copy(const axe_program *p, const ax_stmt *s)
{
    int64_t bytes;
    if (p->opts.naive || s->kind != AX_ST_OP || s->dead ||
        s->op != AX_OP_COPY || s->plan == NULL || s->stage[0] != NULL ||
        (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP &&
         s->scope != AX_SCOPE_CTA))
        return false;
    if (p->tensors[s->args[0].tensor].mem != AX_MEM_SHARED ||
        p->tensors[s->args[1].tensor].mem != AX_MEM_GLOBAL ||
        p->tensors[s->args[0].tensor].dtype !=
            p->tensors[s->args[1].tensor].dtype ||
        !plain_operand(&s->args[0]) || !plain_operand(&s->args[1]))
        return false;
    bytes =
        axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype, s->plan->vec);
    return bytes == 4 || bytes == 8 || bytes == 16;
}

/* The bit of each tensor operator "s" accesses. */
static uint64_t touched(const ax_stmt *s)
{
    const ax_expr *ld;
    uint64_t m = 0;
    int i, d, n;
    for (i = 0; i < s->nargs; i++) {
        m |= (uint64_t)1 << s->args[i].tensor;
        for (d = 0; d < s->args[i].ndim; d++)
            if ((ld = axe__expr_load(s->args[i].start[d], &n)) != NULL)
                m |= (uint64_t)1 << ld->load->tensor;
    }
    return m;
}

/* The asynchronous copy "s", then its commit; its tensors are pending. */
void axe__cuda_emit_async(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind, uint64_t *pending)
{
    ax_stmt c = *s;
    c.async_copy = true;
    axe__emit_op(t, p, &c, ind, false);
    indent_put(t, ind);
    axe__text_put(t,
                  "axe_ptx_cp_async_commit(); /* op %d: its cp.async "
                  "group */\n",
                  s->index);
    *pending |= touched(s);
}

/* The wait for the pending copies before "next" (NULL: the end of the
 * block) when it could observe them (see the file comment). */
void axe__cuda_async_wait(ax_text *t, const ax_stmt *next, int ind,
                          uint64_t *pending)
{
    if (*pending == 0)
        return;
    if (next != NULL && next->kind == AX_ST_OP &&
        (next->dead || (touched(next) & *pending) == 0))
        return;
    indent_put(t, ind);
    axe__text_put(t, "axe_ptx_cp_async_wait<0>(); /* the cp.async copies "
                     "above are complete */\n");
    *pending = 0;
}

static const char *const async_text[][2] = {
    {"axe_ptx_cp_async_ca4(",
     "static __device__ __forceinline__ void axe_ptx_cp_async_ca4(void "
     "*smem, const void *gmem)\n{\n"
     "    asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" : : "
     "\"r\"((unsigned)__cvta_generic_to_shared(smem)), \"l\"(gmem) : "
     "\"memory\");\n}\n"},
    {"axe_ptx_cp_async_ca8(",
     "static __device__ __forceinline__ void axe_ptx_cp_async_ca8(void "
     "*smem, const void *gmem)\n{\n"
     "    asm volatile(\"cp.async.ca.shared.global [%0], [%1], 8;\" : : "
     "\"r\"((unsigned)__cvta_generic_to_shared(smem)), \"l\"(gmem) : "
     "\"memory\");\n}\n"},
    {"axe_ptx_cp_async_cg16(",
     "static __device__ __forceinline__ void axe_ptx_cp_async_cg16(void "
     "*smem, const void *gmem)\n{\n"
     "    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" : : "
     "\"r\"((unsigned)__cvta_generic_to_shared(smem)), \"l\"(gmem) : "
     "\"memory\");\n}\n"},
    {"axe_ptx_cp_async_commit(",
     "static __device__ __forceinline__ void axe_ptx_cp_async_commit(void)"
     "\n{\n    asm volatile(\"cp.async.commit_group;\" : : : \"memory\");"
     "\n}\n"},
    {"axe_ptx_cp_async_wait<",
     "template <int N> static __device__ __forceinline__ void "
     "axe_ptx_cp_async_wait(void)\n{\n"
     "    asm volatile(\"cp.async.wait_group %0;\" : : \"n\"(N) : "
     "\"memory\");\n}\n"},
};

/* The cp.async wrappers "body" calls (inline PTX, not in an emulated
 * build). */
void axe__cuda_async_wrappers(ax_text *t, const char *body)
{
    size_t k;
    for (k = 0; k < sizeof async_text / sizeof async_text[0]; k++)
        if (strstr(body, async_text[k][0]) != NULL)
            axe__text_put(t, "%s", async_text[k][1]);
}

/* --explain's line of an asynchronous copy. */
void axe__cuda_explain_async(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int64_t bytes =
        axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype, s->plan->vec);
    axe__text_put(t,
                  "cp.async.%s.shared.global, %lld bytes per access "
                  "(global to shared: no registers), cp.async.commit_group "
                  "after the operator, cp.async.wait_group 0 before the next "
                  "statement that touches '%s' or '%s', a sync, a for or "
                  "an if, or the end of the block\n",
                  bytes == 16 ? "cg" : "ca", (long long)bytes,
                  p->tensors[s->args[0].tensor].name,
                  p->tensors[s->args[1].tensor].name);
}
