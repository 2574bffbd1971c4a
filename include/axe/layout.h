/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe layouts (the Axe paper; TIRx's TileLayout and ComposeLayout): a
 * logical index x maps to the set L(x) = { D(x) + r + O : r in R } of points
 * over named axes, where
 *   D = the shard: ordered iters (extent, stride, axis), first = outermost;
 *       x is unflattened lexicographically (last iter fastest) over the
 *       extents, the outermost digit absorbing x >= size;
 *   R = the replica: a multiset of iters, r ranging over their sums;
 *   O = the offset: a map axis -> integer.
 * Text: `S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] +
 * 5@warpid`; a stride or offset without `@` is on the memory axis `m`. An
 * optional swizzle `Swizzle<M,B,S>(tile)` (TIRx's ComposeLayout) maps the
 * memory address after the tile: addr(m) = (f(m >> M) << M) + m mod 2^M.
 *
 * Representation: fixed-capacity value struct; axis names are stored inline
 * (zero-padded), so a layout is self-contained. Invariant: counts within
 * capacity, every name a valid axis name, offsets on distinct axes.
 * Semantics and the algebra: docs/algebra.md ("Axe layouts") and
 * ../shared/spec/axe_semantics.md.
 */
#ifndef AXE_LAYOUT_H
#define AXE_LAYOUT_H

#include "axe/axis.h"
#include "axe/cute.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_LAYOUT_MAX_SHARD 32
#define AXE_LAYOUT_MAX_REPLICA 8
#define AXE_LAYOUT_MAX_OFFSET 8
#define AXE_LAYOUT_MAX_DIMS 16
/* Distinct axes one point can carry. */
#define AXE_POINT_MAX_AXES 16

typedef struct axe_iter {
    int64_t extent;
    int64_t stride;
    char axis[AXE_AXIS_NAME_MAX];
} axe_iter;

typedef struct axe_offset {
    char axis[AXE_AXIS_NAME_MAX];
    int64_t value;
} axe_offset;

/* TIRx ComposeLayout parameters: per_element M, swizzle_len B, atom_len S;
 * "inner": bits [S, S+B) of m >> M are xored into bits [0, B) (TIRx's
 * default); otherwise bits [0, B) into [S, S+B). */
typedef struct axe_layout_swizzle {
    bool present;
    bool inner;
    int32_t per_element;
    int32_t len;
    int32_t atom;
} axe_layout_swizzle;

typedef struct axe_layout {
    uint8_t nshard;
    uint8_t nreplica;
    uint8_t noffset;
    axe_layout_swizzle swizzle;
    axe_iter shard[AXE_LAYOUT_MAX_SHARD];
    axe_iter replica[AXE_LAYOUT_MAX_REPLICA];
    axe_offset offset[AXE_LAYOUT_MAX_OFFSET];
} axe_layout;

/* A point: values on named axes (an axis -> integer map, in first-use
 * order; entries may be zero). Names are NUL-padded to AXE_AXIS_NAME_MAX
 * bytes, as in layouts: fill points with axe_point_add (or zero the struct
 * before writing names), since comparisons read all 16 bytes. */
typedef struct axe_point {
    int n;
    char axis[AXE_POINT_MAX_AXES][AXE_AXIS_NAME_MAX];
    int64_t v[AXE_POINT_MAX_AXES];
} axe_point;

/* Where CUDA-target axis fusion applies (canonicalize, spec §4 step 3). */
typedef enum axe_target { AXE_TARGET_NONE, AXE_TARGET_CUDA } axe_target;

/* Which definitions span, tile and tile-of follow (docs/algebra.md §18,
 * §24, §25). AXE_RULE_PAPER (the default of the functions without a rule
 * argument): the Axe paper's, span(L, a) = 1 + sum |s| (e-1) over the
 * shard and replica iters on a, offset excluded (Lemma C.1), and
 * (A ⊗ B)(x, y) = A(x) ⊙ span(B) + B(y) with A's shard, replica and offset
 * scaled (Theorem C.2). AXE_RULE_TIRX: TIRx's, span with signed strides
 * plus the offset, and only A's shard iters on the axes of B's shard
 * scaled. */
typedef enum axe_rule { AXE_RULE_PAPER, AXE_RULE_TIRX } axe_rule;

/* ---- construction ------------------------------------------------------ */

/* The empty layout S[():()] (no shard, replica or offset). */
AXE_API void axe_layout_init(axe_layout *l);
/* Append a shard / replica iter; add "value" to the offset on "axis". */
AXE_NODISCARD AXE_API axe_status axe_layout_push_shard(axe_layout *l,
                                                       int64_t extent,
                                                       int64_t stride,
                                                       const char *axis);
AXE_NODISCARD AXE_API axe_status axe_layout_push_replica(axe_layout *l,
                                                         int64_t extent,
                                                         int64_t stride,
                                                         const char *axis);
AXE_NODISCARD AXE_API axe_status axe_layout_add_offset(axe_layout *l,
                                                       const char *axis,
                                                       int64_t value);
/* The default layout of a shape: row-major strides on `m`. */
AXE_NODISCARD AXE_API axe_status axe_layout_row_major(const int64_t *shape,
                                                      int n, axe_layout *out);

/* ---- queries ----------------------------------------------------------- */

/* Product of the shard extents (of iters on "axis" only, when not NULL). */
AXE_NODISCARD AXE_API axe_status axe_layout_size(const axe_layout *l,
                                                 const char *axis,
                                                 int64_t *out);
/* The paper's span (Lemma C.1): 1 + sum |s| (e-1) over the shard and
 * replica iters on "axis", offset excluded; with axis NULL over the iters
 * on all memory axes together. axe_layout_span_rule(AXE_RULE_TIRX): TIRx's,
 * 1 + sum s (e-1) + offset[axis] (signed; offsets of all memory axes for
 * NULL). */
AXE_NODISCARD AXE_API axe_status axe_layout_span(const axe_layout *l,
                                                 const char *axis,
                                                 int64_t *out);
AXE_NODISCARD AXE_API axe_status axe_layout_span_rule(const axe_layout *l,
                                                      const char *axis,
                                                      axe_rule rule,
                                                      int64_t *out);
/* Thread-axis scope of "l": (innermost subscope, outermost scope), or
 * has = false when no shard iter is on a thread axis; errors (conflicting
 * scopes, disconnected chain) with TIRx's messages. */
AXE_NODISCARD AXE_API axe_status axe_layout_get_scope(const axe_layout *l,
                                                      bool *has,
                                                      axe_scope *subscope,
                                                      axe_scope *scope,
                                                      axe_diag *diag);
/* True, or an error with the reason (TIRx's VerifyWellFormed). */
AXE_NODISCARD AXE_API axe_status
axe_layout_verify_well_formed(const axe_layout *l, axe_diag *diag);

/* ---- the forward and backward maps ------------------------------------- */

/* TIRx apply: the base point D(x) + O of the linear index "x" (replicas
 * ignored; swizzle applied to `m`). Axes of shard iters and offsets appear
 * even when their value is 0. x >= 0 (AXE_ERR_DOMAIN otherwise); past the
 * size the outermost digit absorbs the rest, as in TIRx. */
AXE_NODISCARD AXE_API axe_status axe_layout_apply_base(const axe_layout *l,
                                                       int64_t x,
                                                       axe_point *out,
                                                       axe_diag *diag);
/* The base point of one digit per shard iter (TIRx per-iter apply). */
AXE_NODISCARD AXE_API axe_status axe_layout_apply_digits(const axe_layout *l,
                                                         const int64_t *digits,
                                                         int n, axe_point *out,
                                                         axe_diag *diag);
/* The base point of coordinate "crd" in "shape" (TIRx apply with shape:
 * group by the shape when possible, else the row-major flattened index). */
AXE_NODISCARD AXE_API axe_status axe_layout_apply_shape(const axe_layout *l,
                                                        const int64_t *crd,
                                                        const int64_t *shape,
                                                        int n, axe_point *out,
                                                        axe_diag *diag);
/* The per-shard-iter digits of "crd" in "shape" (TIRx apply_to_shape). */
AXE_NODISCARD AXE_API axe_status axe_layout_digits_of(
    const axe_layout *l, const int64_t *crd, const int64_t *shape, int n,
    int64_t *digits, int *ndigits, axe_diag *diag);
/* The paper's set L(x) = { D(x) + r + O }: every replica combination in
 * lexicographic order of r, into out[0 .. *count); AXE_ERR_CAPACITY if more
 * than "cap". x is a linear index (>= 0, as for apply_base), or when
 * "shape" is not NULL the coordinate crd in shape. */
AXE_NODISCARD AXE_API axe_status axe_layout_apply_set(
    const axe_layout *l, const int64_t *crd, const int64_t *shape, int n,
    axe_point *out, int cap, int *count, axe_diag *diag);
/* Backward map: the smallest linear index x < size whose base point (or,
 * with "with_replicas", any point of L(x)) equals "p" (zero entries
 * ignored; entries of one axis, under one spelling or two such as lane and
 * laneid, add); *found = false when p is not in the image. */
AXE_NODISCARD AXE_API axe_status axe_layout_backward(const axe_layout *l,
                                                     const axe_point *p,
                                                     bool with_replicas,
                                                     int64_t *x, bool *found,
                                                     axe_diag *diag);
/* Points equal as axis -> value maps ignoring zero entries; the entries of
 * one axis (repeated, or spelled lane and laneid) add. */
AXE_API bool axe_point_equal(const axe_point *a, const axe_point *b);
/* Add "v" on "axis" (creating the entry). */
AXE_NODISCARD AXE_API axe_status axe_point_add(axe_point *p, const char *axis,
                                               int64_t v);

/* ---- the algebra -------------------------------------------------------- */

/* TIRx canonical form (spec §4): drop unit shard iters, zero offsets, CUDA
 * axis fusion when "target" is CUDA and the layout has a scope, fuse
 * adjacent shard iters, sort replicas. Preserves apply (up to the CUDA
 * renaming of thread axes); idempotent. */
AXE_NODISCARD AXE_API axe_status axe_layout_canonicalize(const axe_layout *l,
                                                         axe_target target,
                                                         axe_layout *out,
                                                         axe_diag *diag);
/* The paper's full normal form (Appendix A): canonicalize, then normalize
 * replica + offset per axis (C0 drop unit replicas, C1 positive replica
 * strides with (e-1)s moved into the offset, C2 absorb multiples). */
AXE_NODISCARD AXE_API axe_status axe_layout_normalize(const axe_layout *l,
                                                      axe_layout *out,
                                                      axe_diag *diag);
/* Structural equality: shard in order, replicas as a multiset, offsets as
 * maps ignoring zeros, swizzle parameters. */
AXE_API bool axe_layout_equal(const axe_layout *a, const axe_layout *b);
/* Same induced set-valued map on [0, size) (normal forms under the gap
 * condition, evaluation otherwise). */
AXE_NODISCARD AXE_API axe_status axe_layout_equivalent(const axe_layout *a,
                                                       const axe_layout *b,
                                                       bool *out,
                                                       axe_diag *diag);

/* Group by "shape" (spec §7): split shard iters so dim d owns the block
 * shard[seps[d] .. seps[d+1]); seps has n + 1 entries. */
AXE_NODISCARD AXE_API axe_status axe_layout_group(const axe_layout *l,
                                                  const int64_t *shape, int n,
                                                  axe_layout *out, int *seps,
                                                  axe_diag *diag);
/* Group by several shapes at once (minimal common refinement, spec §7);
 * shape k is shapes[k][0 .. ns[k]); seps[k] gets its ns[k] + 1 entries. */
AXE_NODISCARD AXE_API axe_status
axe_layout_group_many(const axe_layout *l, const int64_t *const *shapes,
                      const int *ns, int nshapes, axe_layout *out,
                      int (*seps)[AXE_LAYOUT_MAX_DIMS + 1], axe_diag *diag);

/* outer ⊗ inner (the paper's Theorem C.2; TIRx inner.tile(outer,
 * outer_shape, inner_shape) under AXE_RULE_TIRX):
 * f(x||y) = f_outer(x) ⊙ span(f_inner) + f_inner(y). The functions without
 * "_rule" follow AXE_RULE_PAPER. */
AXE_NODISCARD AXE_API axe_status
axe_layout_tile(const axe_layout *outer, const int64_t *outer_shape,
                const axe_layout *inner, const int64_t *inner_shape, int n,
                axe_target target, axe_layout *out, axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_tile_rule(
    const axe_layout *outer, const int64_t *outer_shape,
    const axe_layout *inner, const int64_t *inner_shape, int n,
    axe_target target, axe_rule rule, axe_layout *out, axe_diag *diag);
/* Is "tiled" = C ⊗ inner? Recover C (found) or answer not found. */
AXE_NODISCARD AXE_API axe_status axe_layout_is_tile_inner(
    const axe_layout *inner, const axe_layout *tiled,
    const int64_t *tiled_shape, const int64_t *inner_shape, int n,
    axe_target target, axe_layout *outer_out, bool *found, axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_is_tile_inner_rule(
    const axe_layout *inner, const axe_layout *tiled,
    const int64_t *tiled_shape, const int64_t *inner_shape, int n,
    axe_target target, axe_rule rule, axe_layout *outer_out, bool *found,
    axe_diag *diag);
/* Is "tiled" = outer ⊗ C? Recover C (found) or answer not found. */
AXE_NODISCARD AXE_API axe_status axe_layout_is_tile_outer(
    const axe_layout *outer, const axe_layout *tiled,
    const int64_t *tiled_shape, const int64_t *outer_shape, int n,
    axe_target target, axe_layout *inner_out, bool *found, axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_is_tile_outer_rule(
    const axe_layout *outer, const axe_layout *tiled,
    const int64_t *tiled_shape, const int64_t *outer_shape, int n,
    axe_target target, axe_rule rule, axe_layout *inner_out, bool *found,
    axe_diag *diag);

/* "l" repeated up to "to_shape" (TIRx tile_to, spec §8.1): tile(row_major(q),
 * q, l, cur_shape) with q = to_shape / cur_shape, each dim exactly. */
AXE_NODISCARD AXE_API axe_status axe_layout_tile_to(
    const axe_layout *l, const int64_t *to_shape, const int64_t *cur_shape,
    int n, axe_target target, axe_layout *out, axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_tile_to_rule(
    const axe_layout *l, const int64_t *to_shape, const int64_t *cur_shape,
    int n, axe_target target, axe_rule rule, axe_layout *out, axe_diag *diag);
/* The paper's iter intersection (§3.4, Appendix H step 2): the single
 * iter I (as a layout S[e:s@a]) that produces exactly the values both
 * shards produce, {D_a(x)} ∩ {D_b(y)} (only their iters on "axis" when
 * not NULL), e.g. S[8:2@P] ∩ S[4:4@P] = S[4:4@P]; S[1:1@axis] (S[1:1] for
 * NULL) when only 0 is common. AXE_ERR_INCOMPATIBLE with the reason when
 * no single iter produces that set; a replica or an offset (not part of an
 * iter list) is AXE_ERR_UNSUPPORTED, as is a swizzle; AXE_ERR_CAPACITY when
 * the sets are too large to enumerate (the reason names the limit). */
AXE_NODISCARD AXE_API axe_status
axe_layout_intersect(const axe_layout *a, const axe_layout *b, const char *axis,
                     axe_target target, axe_layout *out, axe_diag *diag);
/* The tile intersection (axe's own, `axe intersect --tile`): the
 * largest-size layout I,
 * without replica or offset, with a = C_a ⊗ I and b = C_b ⊗ I over 1-D
 * shapes (is_tile_inner answers for both), whose shard iters are on "axis"
 * (any axis when NULL). Canonically I is a common suffix of the canonical
 * shards, its outermost iter possibly cut to a common divisor of the two
 * extents. S[1:1@axis] (S[1:1] for NULL) when nothing larger is common;
 * swizzled operands are UNSUPPORTED. */
AXE_NODISCARD AXE_API axe_status axe_layout_intersect_iters(
    const axe_layout *a, const axe_layout *b, const char *axis,
    axe_target target, axe_layout *out, axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_intersect_iters_rule(
    const axe_layout *a, const axe_layout *b, const char *axis,
    axe_target target, axe_rule rule, axe_layout *out, axe_diag *diag);

/* The layout of the region [begin_d, end_d) of "l" over "shape" (spec
 * §10): f(u) = f_l(u + begin) whenever found. TIRx's forms (peeling, no
 * wrap, the midpoint one-wrap) come first; any other region is recovered
 * from its values (S[(3,4):(100,1)] over [12], region [2,10) is
 * S[(2,2,2):(100,98,1)] + 2), so found = false (with the reason) means
 * no layout exists, or a dim's region of more than 2^20 elements fits
 * none of TIRx's forms (the reason says which). */
AXE_NODISCARD AXE_API axe_status axe_layout_slice(
    const axe_layout *l, const int64_t *shape, const int64_t *begin,
    const int64_t *end, int n, axe_target target, axe_layout *out, bool *found,
    axe_diag *diag);

/* A + B over the interleaved domain (A0, B0, A1, B1, ...) (spec §9). */
AXE_NODISCARD AXE_API axe_status axe_layout_direct_sum(
    const axe_layout *a, const int64_t *a_shape, const axe_layout *b,
    const int64_t *b_shape, int n, axe_layout *out, axe_diag *diag);
/* Given sum and B, recover A (right) / given sum and A, recover B (left). */
AXE_NODISCARD AXE_API axe_status axe_layout_is_direct_sum_right(
    const axe_layout *b, const axe_layout *sum, const int64_t *interleaved,
    const int64_t *b_shape, int n, axe_layout *a_out, bool *found,
    axe_diag *diag);
AXE_NODISCARD AXE_API axe_status axe_layout_is_direct_sum_left(
    const axe_layout *a, const axe_layout *sum, const int64_t *interleaved,
    const int64_t *a_shape, int n, axe_layout *b_out, bool *found,
    axe_diag *diag);

/* ---- conversions -------------------------------------------------------- */

/* A CuTe layout as an Axe layout: leaves in reverse order (colex -> lex),
 * integer strides on `m`, a scaled basis E<k> on the axis named "k" and
 * E<k0,k1,...> on "k0_k1_..." (CuTe `1@1@0` -> axis "0_1"). */
AXE_NODISCARD AXE_API axe_status axe_layout_from_cute(const axe_cute_layout *c,
                                                      axe_layout *out,
                                                      axe_diag *diag);
/* The reverse, for layouts without replica, offset or swizzle whose axes
 * are `m` or coordinate names "0", "1", ... */
AXE_NODISCARD AXE_API axe_status axe_layout_to_cute(const axe_layout *l,
                                                    axe_cute_layout *out,
                                                    axe_diag *diag);

/* A swizzled CuTe layout `Sw<B,M,S> o off o L` (integer strides) as
 * `Swizzle<M,B,S>(from_cute(L) + off)`, `Swizzle<M,B,-S,outer>` for S < 0;
 * both map an index to the same address. A layout outer is UNSUPPORTED. */
AXE_NODISCARD AXE_API axe_status axe_layout_from_cute_composed(
    const axe_cute_composed *c, axe_layout *out, axe_diag *diag);
/* The reverse, for a layout on `m` only (offset on `m` allowed, no
 * replica); no swizzle gives the identity Sw<0,0,0>. */
AXE_NODISCARD AXE_API axe_status axe_layout_to_cute_composed(
    const axe_layout *l, axe_cute_composed *out, axe_diag *diag);

/* ---- helper constructors (TIRx python/tvm/tirx/layout.py, spec §12) ----- */

/* Bits of a dtype name ("float16", "bfloat16", "float32", "int8", "uint8",
 * "float8_e4m3fn", "float4_e2m1fn", ...); AXE_ERR_INVALID if unknown. */
AXE_NODISCARD AXE_API axe_status axe_dtype_bits(const char *dtype, int *bits,
                                                axe_diag *diag);
/* The per-thread storage: "l" without the shard iters, replica iters and
 * offsets on thread axes (not canonicalized); a swizzle is kept. */
AXE_NODISCARD AXE_API axe_status axe_layout_storage(const axe_layout *l,
                                                    axe_layout *out,
                                                    axe_diag *diag);
/* n contiguous elements become one: the last shard iter must be (e, 1) on
 * a memory axis with n | e and becomes (e/n, 1); other shard strides are
 * floor-divided by n; a swizzle (n a power of two) loses log2 n of M. */
AXE_NODISCARD AXE_API axe_status axe_layout_pack(const axe_layout *l, int64_t n,
                                                 axe_layout *out,
                                                 axe_diag *diag);
/* One element becomes n contiguous ones: every shard stride times n, then
 * the iter (n, 1, m) appended; a swizzle (n a power of two) gains log2 n
 * of M. Inverse of pack on the layouts unpack makes. */
AXE_NODISCARD AXE_API axe_status axe_layout_unpack(const axe_layout *l,
                                                   int64_t n, axe_layout *out,
                                                   axe_diag *diag);
/* Insert the broadcast iter (n, 0, "axis") at shard position "position"
 * (Python list.insert: -1 appends, -k inserts at nshard + 1 - k); position
 * must lie in [-(nshard+1), nshard]. */
AXE_NODISCARD AXE_API axe_status axe_layout_broadcast(const axe_layout *l,
                                                      int64_t n, int position,
                                                      const char *axis,
                                                      axe_layout *out,
                                                      axe_diag *diag);
/* Shard iter i of the result is shard iter perm[i] of "l"; "perm" has one
 * entry per shard iter and is a permutation (axe checks; TIRx does not). */
AXE_NODISCARD AXE_API axe_status axe_layout_permute_dims(const axe_layout *l,
                                                         const int *perm, int n,
                                                         axe_layout *out,
                                                         axe_diag *diag);
/* The shard groups [seps[g], seps[g+1]) (nseps = groups + 1, seps[0] = 0,
 * nondecreasing, last = nshard) concatenated in the order "perm", a
 * permutation of the groups ("invalid perm" otherwise). */
AXE_NODISCARD AXE_API axe_status axe_layout_permute_by_groups(
    const axe_layout *l, const int *seps, int nseps, const int *perm, int n,
    axe_layout *out, axe_diag *diag);
/* TIRx TileLayout.trainium: "annotation" is one 'P' or 'F' per dim of
 * "shape"; F dims get row-major strides among the F dims on axis F, P dims
 * among the P dims on axis P, in annotation order. A single P dim > 128
 * (a multiple of 128) is split into (P/128 on F with the largest F stride,
 * placed before the 128 on P); several P dims multiply to at most 128. */
AXE_NODISCARD AXE_API axe_status axe_layout_trainium(const char *annotation,
                                                     const int64_t *shape,
                                                     int n, axe_layout *out,
                                                     axe_diag *diag);
/* The same for a core of "parts" partitions (>= 1) instead of 128 (the
 * compiler's default scratchpad layout under `--trn partitions=N`). */
AXE_NODISCARD AXE_API axe_status
axe_layout_trainium_parts(const char *annotation, const int64_t *shape, int n,
                          int64_t parts, axe_layout *out, axe_diag *diag);
/* TIRx to_psum: each shard iter (e, s) on F becomes (e, s/512) on Bank if
 * 512 | s, stays if s | 512 and e < 512/s, becomes (e/c, 1, Bank), (c, s,
 * F) if c = 512/s divides e; other iters stay; replica and offset drop. */
AXE_NODISCARD AXE_API axe_status axe_layout_to_psum(const axe_layout *l,
                                                    axe_layout *out,
                                                    axe_diag *diag);
/* The TMEM layout of tcgen05 datapath "datapath" ('A'..'G') for a (rows,
 * cols) buffer: A/D (rows 128) S[(rows,cols):(1@TLane,1@TCol)]; B/E (64)
 * S[(rows,2,cols/2):(1@TLane,64@TLane,1@TCol)]; C/F (64)
 * S[(4,16,cols):(32@TLane,1@TLane,1@TCol)] + 16@TLane if "sub_slab";
 * G (32) S[(rows,4,cols/4):(1@TLane,32@TLane,1@TCol)]. */
AXE_NODISCARD AXE_API axe_status
axe_layout_tmem_datapath(char datapath, int64_t rows, int64_t cols,
                         int sub_slab, axe_layout *out, axe_diag *diag);
/* The TMEM layout of tcgen05 MMA operand "operand" ('A' in TMEM or 'D' the
 * accumulator) of "shape" for instruction M "M", "cta_group" 1 or 2 and
 * "ws"; "group" (s, 2, n) (NULL: none) regroups a 2-D D. Canonicalized.
 * "dtype" is checked to be known and otherwise unused (as in TIRx). */
AXE_NODISCARD AXE_API axe_status axe_layout_tmem_mma_operand(
    char operand, const int64_t *shape, int n, const char *dtype, int64_t M,
    int cta_group, bool ws, const int64_t *group, int ngroup, axe_layout *out,
    axe_diag *diag);
/* A warpgroup-local register layout S[(rows,cols):(1@tid_in_wg,1)] (TIRx's
 * default rows is 128). */
AXE_NODISCARD AXE_API axe_status axe_layout_wg_local(int64_t cols, int64_t rows,
                                                     axe_layout *out,
                                                     axe_diag *diag);
/* The MMA-compatible shared-memory layout of "shape" (rank >= 2) for
 * "dtype" and swizzle mode 0..3 (none, 32B, 64B, 128B): modes 1..3 tile the
 * atom Swizzle<M,mode,3> (M = log2(128/bits)) of shape [8, {256,512,1024}
 * [mode]/bits] first along the rows, then over the whole shape; mode 0 is
 * the packed 16-byte atom. Canonicalized. */
AXE_NODISCARD AXE_API axe_status axe_layout_mma_shared(const char *dtype,
                                                       int swizzle_mode,
                                                       const int64_t *shape,
                                                       int n, axe_layout *out,
                                                       axe_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
