/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal CuTe services: a layout builder (shape tokens plus per-leaf
 * stride and basis, appended together with capacity checks) and helpers
 * shared by the algebra files. A layout under construction may be
 * unbalanced; callers close what they open.
 */
#ifndef AXE_CUTE_INTERNAL_H
#define AXE_CUTE_INTERNAL_H

#include "axe/cute.h"
#include "tuple_internal.h"

void axe__cute_clear(axe_cute_layout *l);
AXE_NODISCARD axe_status axe__cute_open(axe_cute_layout *l);
AXE_NODISCARD axe_status axe__cute_close(axe_cute_layout *l);
/* Append the leaf "shape":"stride" (basis code "basis"). */
AXE_NODISCARD axe_status axe__cute_push(axe_cute_layout *l, int64_t shape,
                                        int64_t stride, uint32_t basis);
/* Append the subtree of "src" at span "sp" as one element. */
AXE_NODISCARD axe_status axe__cute_append_span(axe_cute_layout *l,
                                               const axe_cute_layout *src,
                                               const axe__span *sp);
/* Append all of "src" as one element. */
AXE_NODISCARD axe_status axe__cute_append(axe_cute_layout *l,
                                          const axe_cute_layout *src);
/* Append each top-level mode of "src" as its own element. */
AXE_NODISCARD axe_status axe__cute_append_modes(axe_cute_layout *l,
                                                const axe_cute_layout *src);
/* The spans of the top-level modes (see axe__tuple_spans). */
int axe__cute_spans(const axe_cute_layout *l, axe__span *out, int max);
/* A rank-1 scalar layout s:d. */
void axe__cute_leaf(int64_t shape, int64_t stride, axe_cute_layout *out);

/*
 * The leaves [lb, le) of a layout coalesced (cute_coalesce.c): leaves of
 * extent 1 dropped, neighbours merged where the stride equals the previous
 * extent times the previous stride (same basis). Same function on [0,
 * size); with "extended" also past the size, where evaluation continues
 * along the last leaf (CuTe's coalesce_x): a last leaf of extent 1 is then
 * kept unless it merges. No leaf left gives the one mode 1:0.
 */
typedef struct axe__cute_flat {
    int n;
    int64_t shape[AXE_CUTE_MAX_LEAVES];
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    uint32_t basis[AXE_CUTE_MAX_LEAVES];
} axe__cute_flat;

AXE_NODISCARD axe_status axe__cute_coalesce_leaves(const axe_cute_layout *l,
                                                   int lb, int le,
                                                   bool extended,
                                                   axe__cute_flat *out);

#endif
