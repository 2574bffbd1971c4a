/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Backends (QBE's Target): each backend is one ax_backend value in its
 * folder src/compiler/backend/<name>/, listed once in compiler_backend.c.
 * The passes before emission are backend-neutral; they read a backend's
 * fields and never test which backend it is:
 *   - "archs": the architectures it compiles for (none for C);
 *   - "schedules": the schedules it can emit, each from an architecture
 *     on (NULL: every schedule of dispatch); dispatch rejects the others
 *     with the reason, as any schedule whose predicate fails;
 *   - "scope": whether it runs this kind of kernel at all (a core
 *     kernel, a mesh program), checked before dispatch, so that a kernel
 *     of a kind it never runs is refused for that and not for one of its
 *     operators' schedules;
 *   - "check": what else of a dispatched program it cannot emit (a
 *     dtype, a statement), refused with the reason at compile time;
 *   - "explain": the instructions it chooses for an operator (--explain);
 *   - "prepare": how it stores a tensor, decided before emitting;
 *   - "emit": the program's code.
 * A plan says what each thread does; a backend says with which
 * instructions (a later Hopper backend revision adds schedules with their
 * architecture: TMA, wgmma from sm_90).
 */
#ifndef AXE_COMPILER_BACKEND_H
#define AXE_COMPILER_BACKEND_H

#include "compiler_internal.h"

/* Schedule "name" of operator "op" (NULL: of every operator whose family
 * has it) from architecture "min_arch" on. */
typedef struct ax_backend_sched {
    const char *op, *name;
    int min_arch;
} ax_backend_sched;

/* An architecture: its number (80) and its spelling ("sm_80"). */
typedef struct ax_arch {
    int number;
    const char *name;
} ax_arch;

/* The most iterations of a per-thread loop nest that a backend's unroll
 * line asks to unroll (a thread's registers hold at most 1020 bytes). */
#define AX_UNROLL_MAX 1024

typedef struct ax_backend {
    const char *name;     /* "c", "cuda", "mpi": --target */
    const char *what;     /* one line for docs and diagnostics */
    const ax_arch *archs; /* ascending; the first is the default */
    int narchs;
    const ax_backend_sched *schedules; /* NULL: every schedule */
    int nschedules;
    /* The index of a thread's own elements in a register tensor's array:
     * "[ax_tid]" where the arrays hold every thread's registers (C), ""
     * where each thread has its own array (CUDA). */
    const char *reg_index;
    /* A line before each per-thread loop of an operator with a register
     * operand (at most AX_UNROLL_MAX iterations in all): "AXE_UNROLL"
     * (CUDA: #pragma unroll, so that a register array is indexed by
     * constants and never lands in local memory); NULL: none. */
    const char *unroll;
    /* The types of 4-, 8- and 16-byte vector accesses (a vectorized
     * copy's `*(T *)&dst = *(const T *)&src`); NULL: memcpy. */
    const char *const *vec_type;
    /* The functions of asynchronous 4-, 8- and 16-byte global-to-shared
     * copies `f(&dst, &src)` of a statement marked async_copy; NULL:
     * none. */
    const char *const *async_copy;
    /* The statement that reports a data-dependent start out of bounds at
     * run time: dimension "d" of operand "r" of "s", whose start reads
     * element "ld" (compiler_emit_check.c prints the test around it);
     * NULL: the C backend's message into ax_error. */
    void (*start_error)(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const struct ax_ref *r, int d, const ax_expr *ld,
                        int ind);
    /* Whether accesses to global and shared tensors go through the
     * access macros AXE_LD / AXE_ST / AXE_ATOM / AXE_LDV / AXE_STV
     * (CUDA: the emulation's race detector; axe__emit_access_open). */
    bool access_macros;
    /* Whether it issues the shared-memory loads that instruction choice
     * picks (compiler_synth_inst.c, compiler_copy_ldsm.c: ldmatrix or
     * vector loads of a tensor-core gemm's operands and of a copy into a
     * register); the choice is made on every target, but a backend
     * without them reads those tiles element by element (C). */
    bool smem_load_insts;
    /* NULL: every kind of kernel (see "scope" above). */
    axe_status (*scope)(const axe_program *p, axe_diag *diag);
    axe_status (*check)(const axe_program *p, axe_diag *diag);
    void (*explain)(ax_text *t, const axe_program *p, const ax_stmt *s);
    /* The lines --explain adds to a device operator's (NULL: none): how
     * this target runs it (CUDA: the NCCL call). */
    void (*devop_explain)(ax_text *t, const axe_program *p, const ax_stmt *s);
    /* Storage decisions made before "emit" (NULL: none): CUDA holds
     * some 16-bit register tensors two to a 32-bit word (words16). */
    void (*prepare)(axe_program *p);
    void (*emit)(ax_text *t, const axe_program *p, const char *file);
} ax_backend;

extern const ax_backend axe__backend_c;
extern const ax_backend axe__backend_cuda;
extern const ax_backend axe__backend_mpi;
extern const ax_backend axe__backend_trn;

/* The backend of options "o" ("" names c), or NULL. */
const ax_backend *axe__backend_find(const char *name);
/* The program's backend and architecture (its options were checked by
 * axe__backend_check_options). */
const ax_backend *axe__backend_of(const axe_program *p);
int axe__backend_arch(const axe_program *p);
/* The options' target and arch exist; AXE_ERR_INVALID with the reason. */
axe_status axe__backend_check_options(const axe_kernel_options *o,
                                      axe_diag *diag);
/* Whether the program's backend has schedule "name" of "s"'s operator at
 * its architecture; AXE_ERR_UNSUPPORTED with the reason if not. */
axe_status axe__backend_schedule(const axe_program *p, const ax_stmt *s,
                                 const char *name, axe_diag *why);
/* The storage of backend "b" for the program's tensors, before emitting
 * (the words16 of another backend's emission cleared, then its prepare
 * hook): axe_program_emit for the program's backend, axe_program_emit_c
 * for C, which holds no tensor in words. */
void axe__backend_prepare(axe_program *p, const ax_backend *b);
/* The spelling of architecture "arch" of backend "b" ("sm_80"; "" if
 * it has none such). */
const char *axe__backend_arch_name(const ax_backend *b, int arch);

#endif
