/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The accelerator target's operand regions (compiler_trn_region.c), for
 * the engine schedules of a core kernel (gemm.tensor_engine): a region
 * of a scratchpad tensor, possibly at starts that loop variables move
 * (a tile of a multi-buffered sbuf tensor), seen as one layout over the
 * region's shape and the storage address of its first element.
 */
#ifndef AXE_COMPILER_TRN_REGION_H
#define AXE_COMPILER_TRN_REGION_H

#include "compiler_internal.h"

/* Distinct values a region start may take, and distinct residues of a
 * region's origin modulo the tensor's free span, that are kept. */
#define AX_TRN_MAX_STARTS 256
#define AX_TRN_MAX_RESIDUES 64

/* Operand region "r" of tensor "t" over its declared (P/F) layout: for
 * every value v the start of dim d may take, and every u in [0, len_d),
 * storage(start + u) = origin(start) + storage(at + u) - storage(at),
 * where origin(start) is "origin" (ax_trn_origin: affine in each
 * start's step number) and "layout" (no offset) is the declared layout
 * of the region at the first start "at", so that one instruction table
 * relative to the origin serves every iteration. For a psum tensor,
 * "res" holds the distinct values of origin modulo t->fspan over all
 * starts (nres 0 otherwise). */
typedef struct ax_trn_region {
    axe_layout layout;
    int64_t at[2], org;
    ax_trn_origin origin;
    int nres;
    int64_t res[AX_TRN_MAX_RESIDUES];
    int64_t nstarts[2];
} ax_trn_region;

/* The region of operand "r" (a 2-D region of a scratchpad tensor, not
 * masked, no view) named "role" in the reasons; AXE_ERR_UNSUPPORTED with
 * the step-0 reason when a start reads a runtime value, takes too many
 * values, or the region's layout or origin change with it. */
axe_status axe__trn_region(const axe_program *p, const ax_ref *r,
                           const char *role, ax_trn_region *out, axe_diag *why);
/* The storage address of element (i, j) of 2-D tensor "t" (-1 outside
 * the layout's domain). */
int64_t axe__trn_address(const ax_tensor *t, int64_t i, int64_t j);

#endif
