/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's entry points inside its folder: the program's `.cu`
 * (compiler_emit_cuda.c), which its ax_backend value
 * (compiler_target_cuda.c) emits, with the collective schedules
 * (compiler_emit_cuda_reduce.c), the data-dependent start checks
 * (compiler_emit_cuda_check.c) and shared memory
 * (compiler_emit_cuda_smem.c).
 */
#ifndef AXE_COMPILER_CUDA_H
#define AXE_COMPILER_CUDA_H

#include "compiler_internal.h"

/* The `.cu` of program "p" compiled from "file" into "t". */
void axe__emit_cuda(ax_text *t, const axe_program *p, const char *file);

/* The barrier over one instance of "scope" (warp: __syncwarp, warpgroup:
 * its named barrier, cta: __syncthreads), commented with "what". */
void axe__cuda_barrier(ax_text *t, ax_scope scope, int ind, const char *what);
/* reduce.smem, reduce.tree, copy.smem ("in_loop": inside a `for`, a last
 * barrier protects the scratch), and reduce.warp_shuffle. */
void axe__cuda_emit_staged(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int ind, bool in_loop);
void axe__cuda_emit_shuffle(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind);
/* --explain's instructions of a staged, argmax/argmin butterfly or grid
 * schedule (false: "s" has none). */
bool axe__cuda_explain_collective(ax_text *t, const axe_program *p,
                                  const ax_stmt *s);
/* The axe_ptx_* wrappers "body" calls (inline PTX inside #ifndef
 * AXE_CUDA_EMULATE: an emulated build defines them in its header). */
void axe__cuda_wrappers(ax_text *t, const axe_program *p, const char *body);
/* cp.async (compiler_emit_cuda_copy.c): whether copy "s" is made
 * asynchronous, the copy and its commit (its tensors become "pending"),
 * the wait before statement "next" (NULL: the block's end) when it could
 * observe a pending copy, the wrappers "body" calls, --explain's line. */
bool axe__cuda_async_copy(const axe_program *p, const ax_stmt *s);
void axe__cuda_emit_async(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind, uint64_t *pending);
void axe__cuda_async_wait(ax_text *t, const ax_stmt *next, int ind,
                          uint64_t *pending);
void axe__cuda_async_wrappers(ax_text *t, const char *body);
void axe__cuda_explain_async(ax_text *t, const axe_program *p,
                             const ax_stmt *s);
/* The argmax/argmin value arrays of the operators of block "s". */
void axe__cuda_arg_storage(ax_text *t, const axe_program *p, const ax_stmt *s);

/* Data-dependent starts: the ax_backend hook that records a failure, the
 * device record, the host message and axe_error_NAME(), the launcher's
 * parts before and after the launch (all empty without such starts). */
void axe__cuda_start_error(ax_text *t, const axe_program *p, const ax_stmt *s,
                           const ax_ref *r, int d, const ax_expr *ld, int ind);
void axe__cuda_check_device(ax_text *t, const axe_program *p);
void axe__cuda_check_host(ax_text *t, const axe_program *p);
void axe__cuda_check_before(ax_text *t, const axe_program *p);
void axe__cuda_check_after(ax_text *t, const axe_program *p);

/* Shared memory: the CTA's bytes (16-byte aligned tensors), the dynamic
 * bytes (0 within 48 KiB: static arrays), the opt-in limit of an
 * architecture, a tensor's declaration, the dynamic base and the
 * launcher's cudaFuncSetAttribute. */
int64_t axe__cuda_shared_bytes(const axe_program *p);
int64_t axe__cuda_dynamic_shared(const axe_program *p);
int64_t axe__cuda_shared_limit(int arch);
void axe__cuda_shared_decl(ax_text *t, const axe_program *p, int i);
void axe__cuda_shared_base(ax_text *t, const axe_program *p);
void axe__cuda_shared_attr(ax_text *t, const axe_program *p);

#endif
