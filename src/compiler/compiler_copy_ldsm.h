/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A copy from a shared packed-i4 tensor into a register as ldmatrix
 * (issue 15 left item 1; docs/compiler.md "Packed i4", "ldmatrix copies"):
 * ldmatrix.m8n8.b16 moves bytes, one b16 element being 4 packed i4, so a
 * thread's register bytes are its ldmatrix registers when each 32-bit
 * word g of lane l is the 4 bytes 4 (l % 4) of one 16-byte shared row,
 * the row lane 4 (l / 4)'s word g starts. The choice between ldmatrix and
 * the copy's per-thread loads is by the gemm instruction choice's cost
 * (wavefronts of the bank model + instructions, warp 0), ties to
 * ldmatrix. Invariant: legality is decided by evaluating every lane's
 * address of every register element of every warp, never assumed.
 */
#ifndef AXE_COMPILER_COPY_LDSM_H
#define AXE_COMPILER_COPY_LDSM_H

#include "compiler_internal.h"

/* The most 32-bit register words per thread an ldmatrix copy has. */
#define AX_LDSM_MAX_WORDS 64

typedef struct ax_ldsm {
    bool legal;    /* every lane's word is its ldmatrix register */
    bool chosen;   /* legal and no dearer than the per-thread loads */
    char why[128]; /* not legal: the first failing condition */
    int n;         /* matrices per instruction (.x1, .x2, .x4) */
    int words;     /* 32-bit register words per thread */
    /* the non-thread digits of each word's first element */
    int64_t digit[AX_LDSM_MAX_WORDS][AX_MAX_LOOPS];
    /* warp 0's counts: ldmatrix [0] and the per-thread loads [1] */
    int64_t instructions[2], wavefronts[2], ways[2];
    double cost[2];
    int64_t access_bytes; /* bytes per per-thread load */
} ax_ldsm;

/* Whether "s" is a candidate: a copy at warp, warpgroup or CTA scope
 * from a shared i4 tensor into an i4 register, not in the naive variant.
 * Then its legality, counts and choice into "out". AXE_ERR_UNSUPPORTED
 * (no diagnostic) when "s" is no candidate; AXE_ERR_CAPACITY or
 * AXE_ERR_NOMEM when it cannot be evaluated. */
axe_status axe__ldsm_choose(const axe_program *p, const ax_stmt *s,
                            ax_ldsm *out, axe_diag *diag);

#endif
