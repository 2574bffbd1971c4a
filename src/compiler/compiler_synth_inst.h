/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Instruction choice for the shared-memory operands of a tensor-core gemm
 * (issue 15 §2, Hexcute §4's search): the leaves ldmatrix (.x1/.x2/.x4),
 * ldmatrix .trans, per-thread vector loads of 1, 2 or 4 fragment
 * registers (ld.shared.b32, .v2.b32, .v4.b32) and per-thread element
 * loads, each legal or not (and why), with
 * counts from evaluating the operand's addresses and the bank model
 * (compiler_synth_inst.c, docs/compiler.md "Instruction choice").
 */
#ifndef AXE_COMPILER_SYNTH_INST_H
#define AXE_COMPILER_SYNTH_INST_H

#include "compiler_internal.h"
#include "compiler_smem.h"

typedef enum ax_inst_kind {
    AX_INST_LDMATRIX,
    AX_INST_LDMATRIX_TRANS,
    AX_INST_V4,  /* ld.shared.v4.b32: 4 registers per load */
    AX_INST_V2,  /* ld.shared.v2.b32 */
    AX_INST_B32, /* ld.shared.b32: one register per load */
    AX_INST_THREAD,
    AX_INST_KINDS
} ax_inst_kind;

/* One leaf for one operand, counted over warp 0's atom tiles of that
 * operand and every atom K step: "instructions" shared loads issued,
 * "wavefronts" the bank model's wavefronts summed over them, "ways" the
 * largest ways of one of them; cost = wavefronts + instructions. */
typedef struct ax_inst_leaf {
    bool legal;
    char why[96]; /* illegal: the reason; legal: what it loads */
    int regs;     /* ldmatrix: matrices per instruction (.xN) */
    /* vector leaves: load g fills registers order[g N .. g N + N) (N the
     * registers per load), in address order */
    int order[AX_FRAG_MAX_REGS];
    int64_t instructions, wavefronts, ways;
    double cost;
} ax_inst_leaf;

/* Every leaf of operand "o" (0 A, 1 B), the cheapest legal one ("chosen";
 * ties: the order of ax_inst_kind) and the next ("runner", -1: none). */
typedef struct ax_inst_choice {
    ax_inst_leaf leaf[AX_INST_KINDS];
    int chosen, runner;
    int64_t ksteps; /* atom K steps (instructions per step: / ksteps) */
} ax_inst_choice;

/* The leaves of operand "o" of gemm.mma_smem "s" (A or B in shared
 * memory, a tensor-core dtype); AXE_ERR_UNSUPPORTED with the reason in
 * "diag" when the operand is not that. */
axe_status axe__inst_choose(const axe_program *p, const ax_stmt *s, int o,
                            ax_inst_choice *out, axe_diag *diag);
/* The same for the atom tiling "m" and plan "plan" of a candidate (not
 * yet s->mma, s->plan). */
axe_status axe__inst_choose_on(const axe_program *p, const ax_stmt *s,
                               const ax_mma *m, const ax_plan *plan, int o,
                               ax_inst_choice *out, axe_diag *diag);
/* Adds "n" warp-wide accesses "acc" of "elem_bits"-bit elements under
 * swizzle "sw" (NULL: none) to leaf "l", one instruction each, counted
 * by the bank model (axe__tile_ways): its instructions, wavefronts and
 * largest ways. The one counting of every leaf (the gemm operands' here,
 * the ldmatrix copies' of compiler_copy_ldsm.c). */
axe_status axe__inst_leaf_add(ax_inst_leaf *l, const ax_tile_access *acc, int n,
                              int64_t elem_bits, const axe_layout_swizzle *sw,
                              axe_diag *diag);
/* Registers per load of vector leaf "k" (4, 2, 1; 0: no vector leaf). */
int axe__inst_vec_regs(ax_inst_kind k);
/* The cheapest legal leaf of "ch" that is no ldmatrix (a vector leaf or
 * per-thread loads: what a backend takes when it cannot issue ldmatrix);
 * -1: none. */
int axe__inst_thread_leaf(const ax_inst_choice *ch);
/* The leaf's name ("ldmatrix.x4", "ldmatrix.x2.trans", "ld.shared.v2.b32",
 * "per-thread loads") into "buf". */
void axe__inst_name(ax_inst_kind k, const ax_inst_leaf *l, char *buf,
                    size_t cap);
/* The choices of both operands of gemm "s" (axe__inst_choose) into "ch";
 * an operand that has none (not a shared tensor-core operand) gets
 * chosen -1. */
void axe__inst_choose_both(const axe_program *p, const ax_stmt *s,
                           ax_inst_choice ch[2]);
/* Whether gemm "s" has --explain lines of its instruction choice
 * (gemm.mma_smem, gemm.mma_reg_a on a backend with smem_load_insts:
 * cuda), and those lines
 * from its choices "ch" (axe__inst_choose_both). */
bool axe__inst_explains(const axe_program *p, const ax_stmt *s);
void axe__inst_explain(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const ax_inst_choice ch[2]);

#endif
