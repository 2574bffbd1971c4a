/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A copy from a shared tensor of 4-, 8- or 16-bit elements (packed i4,
 * i8, e4m3, e5m2, f16, bf16) into a register of the same dtype as
 * ldmatrix (issue 15 left items 1 and 3; docs/compiler.md "ldmatrix
 * copies"): ldmatrix.m8n8.b16 moves bytes, so a thread's register bytes
 * are its ldmatrix registers when each 32-bit word g of lane l is the 4
 * bytes 4 (l % 4) of one 16-byte shared row, the row lane 4 (l / 4)'s
 * word g starts; for 16-bit elements, .trans: when the word's two
 * elements are column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1. The
 * choice between ldmatrix and the copy's per-thread loads is by the gemm
 * instruction choice's cost (wavefronts of the bank model +
 * instructions, warp 0; the leaves and their counting are
 * compiler_synth_inst.h's), ties to ldmatrix. It is made once, at
 * dispatch (axe__ldsm_decide), and kept on the copy's plan for the
 * emitter, --explain and `axe synth`. Invariant: legality is decided by
 * evaluating every lane's address of every register element of every
 * warp, never assumed.
 */
#ifndef AXE_COMPILER_COPY_LDSM_H
#define AXE_COMPILER_COPY_LDSM_H

#include "compiler_internal.h"
#include "compiler_synth_inst.h"

/* The most 32-bit register words per thread an ldmatrix copy has. */
#define AX_LDSM_MAX_WORDS 64

typedef struct ax_ldsm {
    /* leaf[0]: the ldmatrix (legal: every lane's word is its ldmatrix
     * register, else why not; regs: matrices per instruction, .x1, .x2,
     * .x4), leaf[1]: the plan's per-thread loads; warp 0's counts */
    ax_inst_leaf leaf[2];
    bool chosen;          /* legal and no dearer than the per-thread loads */
    bool trans;           /* ldmatrix .trans (16-bit elements) */
    int words;            /* 32-bit register words per thread */
    int64_t access_bytes; /* bytes per per-thread load */
    /* the non-thread digits of element e (0, 1) of each word: the
     * element whose address rows r with r % 2 = e start at (the word's
     * first element for both, but with .trans, element 2 g + e) */
    int64_t digit[AX_LDSM_MAX_WORDS][2][AX_MAX_LOOPS];
} ax_ldsm;

/* Whether "s" is a candidate: a copy at warp, warpgroup or CTA scope
 * from a shared tensor into a register of the same dtype of 4, 8 or 16
 * bits, not in the naive variant.
 * Then its legality, counts and choice into "out" (the counts only when
 * legal). AXE_ERR_UNSUPPORTED (no diagnostic) when "s" is no candidate;
 * AXE_ERR_NO_MEMORY when it cannot be evaluated. */
axe_status axe__ldsm_choose(const axe_program *p, const ax_stmt *s,
                            ax_ldsm *out, axe_diag *diag);

/* The choice of dispatched operator "s" into s->plan->ldsm (in the
 * program's arena), NULL when "s" is no candidate or ldmatrix is not
 * legal; in the second case, why not into s->plan->ldsm_why. */
axe_status axe__ldsm_decide(axe_program *p, ax_stmt *s, axe_diag *diag);

/* The decision of "s" (NULL: none). */
const ax_ldsm *axe__ldsm_of(const ax_stmt *s);
/* Why ldmatrix is not legal for candidate "s" (NULL: legal, or no
 * candidate). */
const char *axe__ldsm_why(const ax_stmt *s);

#endif
