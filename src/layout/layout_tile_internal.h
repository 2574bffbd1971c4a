/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Services shared by the tiling (layout_tile.c, layout_intersect.c) and
 * direct-sum (layout_sum.c) files: the swizzle delegation of spec §11 (a
 * trivial swizzle tile stands for the identity over a shape), the
 * interleaving of two grouped layouts block by block, the recovery of a
 * factor's replica (multiset difference) and offset (difference per axis),
 * and "not found" answers with a reason. Invariant: every helper writes its
 * out-parameters only on success and never reads past the counts of a
 * layout.
 */
#ifndef AXE_LAYOUT_TILE_INTERNAL_H
#define AXE_LAYOUT_TILE_INTERNAL_H

#include <stdbool.h>

#include "layout_internal.h"

/* Separators of a shape of up to 2 x AXE_LAYOUT_MAX_DIMS dims. */
#define AXE__SEPS_MAX (2 * AXE_LAYOUT_MAX_DIMS + 1)

/* TIRx IsTrivial (no canonicalization): at most one shard iter, which is
 * on a memory axis with stride 1, no replica and no nonzero offset. */
bool axe__tile_is_trivial(const axe_layout *l);

/* The tile of "l" without its swizzle; a trivial tile (above) of a
 * swizzled "l" becomes the identity S[prod(shape):1] over the "n" dims of
 * "shape" (spec §11). A plain "l" is copied. */
AXE_NODISCARD axe_status axe__swizzle_tile(const axe_layout *l,
                                           const int64_t *shape, int n,
                                           axe_layout *out, axe_diag *diag);

/* The plain tile of "l" without copying when it has no swizzle: *out = l
 * itself then, else axe__swizzle_tile into "buf" and *out = buf. */
AXE_NODISCARD axe_status axe__plain_tile(const axe_layout *l,
                                         const int64_t *shape, int n,
                                         axe_layout *buf,
                                         const axe_layout **out,
                                         axe_diag *diag);

/* Whether two swizzles have the same parameters (both absent counts). */
bool axe__swizzle_same(const axe_layout_swizzle *a,
                       const axe_layout_swizzle *b);

/* The layout whose shard is, for each of the "n" dims d, the block
 * a.shard[aseps[d] .. aseps[d+1]) then b.shard[bseps[d] .. bseps[d+1]);
 * replica = the replicas of "rfirst" then of "rsecond"; offset = a's + b's
 * per axis. Not canonicalized. */
AXE_NODISCARD axe_status axe__interleave(const axe_layout *a, const int *aseps,
                                         const axe_layout *b, const int *bseps,
                                         int n, const axe_layout *rfirst,
                                         const axe_layout *rsecond,
                                         axe_layout *out, axe_diag *diag);

/* out.replica = whole.replica minus part.replica as multisets (one equal
 * iter removed per iter of part), *all = whether every iter of part was
 * found; out.offset = whole.offset - part.offset on every axis of either
 * (entries kept even when 0, as TIRx). The shard of "out" is untouched. */
AXE_NODISCARD axe_status axe__factor_rest(const axe_layout *whole,
                                          const axe_layout *part,
                                          axe_layout *out, bool *all);

/* Iters equal up to unit extent: same extent, and when it is not 1 the
 * same stride and axis (TIRx IterEqualRelaxUnit). */
bool axe__iter_match(const axe_iter *a, const axe_iter *b);

/* Answer "no layout": *found = false, the formatted reason in "diag"
 * (NULL accepted); returns AXE_OK. */
axe_status axe__not_found(bool *found, axe_diag *diag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "(e,s@axis)" of iter "it" into "buf" (for reasons). */
const char *axe__iter_text(const axe_iter *it, char *buf, size_t cap);

/* SplitAxesByScope (spec §8.4, CUDA target only; a copy otherwise): every
 * shard and replica iter and offset on tx, warpid or tid_in_wg is written
 * over the pair of axes that meets "scope" (tx at warp: warpid and laneid,
 * 32 threads a warp; ...). Where TIRx silently drops an iter that straddles
 * the unit, axe fails with AXE_ERR_INCOMPATIBLE and the iter in the reason;
 * axes that cannot be split at "scope" fail with TIRx's messages. */
AXE_NODISCARD axe_status axe__split_by_scope(const axe_layout *l,
                                             axe_scope scope, axe_target target,
                                             axe_layout *out, axe_diag *diag);

/* The span scaling of a tile (layout_tile_scale.c): "outer" scaled in
 * place for outer ⊗ "inner" under "rule" (the paper: shard, replica and
 * offset on each axis a times span(inner, a); TIRx: the shard iters on the
 * axes of the inner's shard times TIRx's span). */
AXE_NODISCARD axe_status axe__tile_scale(axe_layout *outer,
                                         const axe_layout *inner, axe_rule rule,
                                         axe_diag *diag);
/* Undo the scaling of outer iter "it" (not unit) by span(inner, axis);
 * *ok false when the stride is not an exact multiple. */
AXE_NODISCARD axe_status axe__tile_unscale_iter(axe_iter *it,
                                                const axe_layout *inner,
                                                axe_rule rule, bool *ok);
/* The paper's rule: divide the replica strides and offsets of the outer
 * candidate "c" by span(inner, axis), exactly (*ok false otherwise). */
AXE_NODISCARD axe_status axe__tile_unscale_rest(axe_layout *c,
                                                const axe_layout *inner,
                                                bool *ok);
/* The paper's rule, inner C unknown in "tiled" = outer ⊗ C with C's shard
 * "c" known: "out" = outer with its replica strides and offsets times
 * span(C, axis), the span solved from the replica reaches (*ok false when
 * no span fits). */
AXE_NODISCARD axe_status axe__tile_scaled_outer(const axe_layout *tiled,
                                                const axe_layout *outer,
                                                const axe_layout *c,
                                                axe_layout *out, bool *ok);

/* Size (product of shard extents) and product of "n" shape entries, each
 * overflow-checked. */
AXE_NODISCARD axe_status axe__shape_product(const int64_t *shape, int n,
                                            int64_t *out);

#endif
