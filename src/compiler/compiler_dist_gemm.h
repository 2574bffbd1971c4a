/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What compiler_dist_gemm.c (the device gemm's plan: the roles of A's
 * and B's fine device digits, the partial sums' layout, the copies
 * first) shares with compiler_dist_gemm_split.c (a replicated partial
 * split over its replicas): the tokens of an operand's dims over the
 * fine digits of A and B, and the plan of a pair of operands.
 */
#ifndef AXE_COMPILER_DIST_GEMM_H
#define AXE_COMPILER_DIST_GEMM_H

#include "compiler_dist.h"

/* One token of a dimension: a fine device digit (dev = its gpuid
 * stride) or a run of memory iters (dev = 0), outer first. */
typedef struct ax_dist_tok {
    int64_t ext, dev;
} ax_dist_tok;

typedef struct ax_dist_dims {
    int n[2];
    ax_dist_tok t[2][2 * AXE_LAYOUT_MAX_SHARD];
    int nrep;
    int64_t rep[2 * AXE_LAYOUT_MAX_REPLICA]; /* fine replica strides */
    int64_t goff;                            /* gpuid offset */
    bool placed;                             /* some gpuid iter of extent > 1 */
} ax_dist_dims;

/* The boundaries of the fine digits: every gpuid stride and stride *
 * extent of A and B, sorted, each dividing the next (compiler_refine.c's
 * axe__bounds_insert; AX_DIST_FINE_CAP holds every boundary of two
 * layouts, so an insert never fails). */
#define AX_DIST_FINE_CAP                                                       \
    (4 * (AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA) + 2)
typedef struct ax_dist_fine {
    int n;
    int64_t b[AX_DIST_FINE_CAP];
} ax_dist_fine;

/* Inserts the boundaries of the gpuid iters of extent > 1 of "l" into
 * "f". */
void axe__dist_fine_of(const axe_layout *l, ax_dist_fine *f);
/* The extent of fine digit "b" (its next boundary / b). */
int64_t axe__dist_fine_ext(const ax_dist_fine *f, int64_t b);
/* The tokens of "x" (2 dims) over the fine digits "f". */
AXE_NODISCARD axe_status axe__dist_dims_of(const ax_tensor *x,
                                           const ax_dist_fine *f,
                                           ax_dist_dims *d, axe_diag *diag);
/* The role of fine digit "b" in "d": 0 / 1 its dim, 2 a replica, -1 none. */
int axe__dist_role(const ax_dist_dims *d, int64_t b);
/* The memory elements of dim "dim" of "d" (its local extent). */
int64_t axe__dist_mem_elems(const ax_dist_dims *d, int dim);
/* Pushes dim "dim" of "d" as shard iters onto "l": fine digits on gpuid,
 * memory runs densely, "outer" the stride of its innermost. */
AXE_NODISCARD axe_status axe__dist_push_dim(axe_layout *l,
                                            const ax_dist_dims *d, int dim,
                                            int64_t outer);
/* The plan of A and B as they are placed ("a", "b": the operands or a
 * copy of one or both): the partial's layout in "g", or the placement's
 * refusal (AXE_ERR_UNSUPPORTED: its reason in "why" too, without the
 * message's "device gemm (line N): "). */
AXE_NODISCARD axe_status axe__dist_gemm_pair(
    const axe_program *p, const ax_stmt *s, const ax_tensor *a,
    const ax_tensor *b, ax_dist_gemm *g, axe_diag *why, axe_diag *diag);
/* The partial's tensor and the local K of plan "g" (its layout set). */
AXE_NODISCARD axe_status axe__dist_gemm_finish(const axe_program *p,
                                               const ax_stmt *s,
                                               ax_dist_gemm *g);
/* Where A and B as used by "g" both replicate some fine digits, "g"
 * with one of A's rows, B's rows or K split over them
 * (compiler_dist_gemm_split.c); "g" unchanged where none applies. */
AXE_NODISCARD axe_status axe__dist_gemm_split(const axe_program *p,
                                              const ax_stmt *s, ax_dist_gemm *g,
                                              axe_diag *diag);

#endif
