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

#endif
