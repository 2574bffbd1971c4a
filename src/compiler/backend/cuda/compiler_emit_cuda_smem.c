/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared memory in the CUDA backend: static `__shared__` arrays while the
 * CTA's shared tensors (the program's and the schedules' scratch) fit in
 * CUDA's 48 KiB of static shared memory; above that one dynamic
 * allocation `extern __shared__ unsigned char ax_dsmem[]`, each tensor a
 * pointer into it at an offset rounded up to 128 bytes (declaration
 * order), and the launcher raises the kernel's limit with
 * cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize) and
 * launches with that many bytes. The most a CTA may opt into depends on
 * the architecture (sm_80: 163 KiB, sm_86 and sm_89: 99 KiB, sm_90: 227
 * KiB). Every shared tensor starts at a multiple of 128 bytes (static
 * arrays `__align__(128)`, dynamic offsets rounded up to 128): the bank
 * model and the swizzles the compiler picks (compiler_smem.c) assume
 * that a tensor's address 0 is bank 0 of a 128-byte row.
 */
#include "compiler_backend.h"
#include "compiler_cuda.h"

#define CUDA_STATIC_SHARED (48 * 1024)
#define CUDA_SHARED_ALIGN 128

/* "n" rounded up to the alignment of a shared tensor. */
static int64_t shared_round(int64_t n)
{
    return (n + CUDA_SHARED_ALIGN - 1) / CUDA_SHARED_ALIGN * CUDA_SHARED_ALIGN;
}

/* The bytes of the CTA's shared tensors laid out one after the other,
 * each at a multiple of CUDA_SHARED_ALIGN bytes. */
int64_t axe__cuda_shared_bytes(const axe_program *p)
{
    int64_t n = 0;
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_SHARED)
            n = shared_round(n) +
                axe_dtype_storage(p->tensors[i].dtype, p->tensors[i].span);
    return n;
}

/* The bytes of dynamic shared memory the kernel uses (0: static). */
int64_t axe__cuda_dynamic_shared(const axe_program *p)
{
    int64_t n = axe__cuda_shared_bytes(p);
    return n > CUDA_STATIC_SHARED ? n : 0;
}

/* The most shared memory one CTA can opt into on architecture "arch". */
int64_t axe__cuda_shared_limit(int arch)
{
    return arch >= 90 ? 227 * 1024 : arch == 80 ? 163 * 1024 : 99 * 1024;
}

/* The declaration of shared tensor "i": a static array, or a pointer at
 * its offset in the dynamic allocation. */
void axe__cuda_shared_decl(ax_text *t, const axe_program *p, int i)
{
    const ax_tensor *tn = &p->tensors[i];
    int64_t off = 0;
    int j;
    if (axe__cuda_dynamic_shared(p) == 0) {
        axe__text_put(t, "    __shared__ __align__(128) %s %s[%lld];\n",
                      axe__dtype_ctype(tn->dtype), tn->cname,
                      (long long)axe__dtype_entries(tn->dtype, tn->span));
        return;
    }
    for (j = 0; j < i; j++)
        if (p->tensors[j].mem == AX_MEM_SHARED)
            off = shared_round(off) +
                  axe_dtype_storage(p->tensors[j].dtype, p->tensors[j].span);
    off = shared_round(off);
    axe__text_put(t, "    %s *const %s = (%s *)(ax_dsmem + %lld);\n",
                  axe__dtype_ctype(tn->dtype), tn->cname,
                  axe__dtype_ctype(tn->dtype), (long long)off);
}

/* The dynamic allocation, before the first shared tensor. */
void axe__cuda_shared_base(ax_text *t, const axe_program *p)
{
    if (axe__cuda_dynamic_shared(p) > 0)
        axe__text_put(t,
                      "    /* %lld bytes of dynamic shared memory (more "
                      "than 48 KiB) */\n"
                      "    extern __shared__ __align__(128) unsigned char "
                      "ax_dsmem[];\n",
                      (long long)axe__cuda_dynamic_shared(p));
}

/* The launcher's opt-in to the dynamic shared memory, if any. */
void axe__cuda_shared_attr(ax_text *t, const axe_program *p)
{
    if (axe__cuda_dynamic_shared(p) == 0)
        return;
    axe__text_put(
        t,
        "    {\n        const cudaError_t ax_at = "
        "cudaFuncSetAttribute(\n"
        "            k_%s, cudaFuncAttributeMaxDynamicSharedMemorySize, "
        "%lld);\n"
        "        if (ax_at != cudaSuccess)\n"
        "            return (int)ax_at;\n    }\n",
        p->name, (long long)axe__cuda_dynamic_shared(p));
}
