/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared-memory layouts against bank conflicts (issue 15 §3; docs/
 * compiler.md, "Shared-memory bank conflicts"): the bank model of one
 * warp-wide access (compiler_banks.c), the choice of a swizzle for a
 * shared tensor from every warp-wide access to it (compiler_swizzle_pick.c)
 * and the warp-wide accesses of a dispatched operator
 * (compiler_smem_access.c). Invariant: a count is measured by the model
 * on the addresses of the access, never estimated.
 */
#ifndef AXE_COMPILER_SMEM_H
#define AXE_COMPILER_SMEM_H

#include "axe/cute.h"
#include "compiler_internal.h"
#include "layout_internal.h"

#define AX_WARP 32
#define AX_BANKS 32

/* One warp-wide access: lane t (t < 32) accesses "width" bytes (1, 2, 4,
 * 8 or 16) from byte address byte[t] when active[t]. */
typedef struct ax_warp_access {
    int width;
    bool active[AX_WARP];
    int64_t byte[AX_WARP];
} ax_warp_access;

/* The bank model's answer for one access: "ways", the largest number of
 * distinct 4-byte words one bank serves in one phase (1: no conflict; 0:
 * no active lane), and "wavefronts", the sum over phases of each phase's
 * largest count. */
typedef struct ax_bank_count {
    int ways;
    int wavefronts;
} ax_bank_count;

/* The bank count of access "a": 32 banks of 4 bytes, word w in bank
 * w mod 32; accesses of up to 4 bytes in one phase of 32 lanes, of 8
 * bytes in 2 phases of 16 lanes (lanes 0-15, 16-31), of 16 bytes in 4
 * phases of 8 lanes, each lane touching the width/4 words from its
 * address. AXE_ERR_INVALID for another width or an address that is not
 * a multiple of the width (the hardware's alignment rule). */
axe_status axe__bank_count(const ax_warp_access *a, ax_bank_count *out,
                           axe_diag *diag);

/* Global memory moves 32-byte sectors: the distinct sectors of access
 * "a" (the bytes [byte[t], byte[t] + width) of every active lane t, any
 * width from 1 to 16), each counted once (compiler_synth_sectors.c). */
#define AX_SECTOR_BYTES 32
int64_t axe__sector_count(const ax_warp_access *a);

/* A warp-wide access to a shared tensor before any swizzle: lane t
 * accesses "vec" consecutive elements from the tile address (in
 * elements, the tensor's unswizzled layout) elem[t] when active[t]. */
typedef struct ax_tile_access {
    int64_t vec;
    bool active[AX_WARP];
    int64_t elem[AX_WARP];
} ax_tile_access;

/* The bank count of "n" accesses to a tensor of "elem_bits"-bit elements
 * (axe_dtype_bit_width: 4 for packed i4, whose single-element access
 * reads its byte) under swizzle "sw" (NULL: none): the largest ways
 * ("max"), their sum over the accesses ("sum") and the sum of their
 * wavefronts ("wavefronts"). */
typedef struct ax_ways {
    int max;
    int64_t sum, wavefronts;
} ax_ways;
axe_status axe__tile_ways(const ax_tile_access *acc, int n, int64_t elem_bits,
                          const axe_layout_swizzle *sw, ax_ways *out,
                          axe_diag *diag);

/* axe__tile_ways where its counts are below "bound" (a smaller max, or
 * the same max and a smaller sum): "*below", and then "*out"; the count
 * stops at the first access after which they cannot be (every access
 * adds at least 0 ways), leaving "*out" unwritten. */
axe_status axe__tile_ways_below(const ax_tile_access *acc, int n,
                                int64_t elem_bits, const axe_layout_swizzle *sw,
                                const ax_ways *bound, ax_ways *out, bool *below,
                                axe_diag *diag);

/* Whether swizzle "sw" is legal for a tensor whose tile addresses are
 * "addr" (n of them, each >= 0) under the accesses "acc": it maps the
 * set of addresses onto itself (a bijection onto the same bytes) and
 * keeps each access's vector contiguous and in order (vec <= 2^M and
 * every vector start a multiple of vec). "why" says which fails. */
bool axe__swizzle_legal(const axe_layout_swizzle *sw, const int64_t *addr,
                        int64_t n, const ax_tile_access *acc, int nacc,
                        char *why, size_t cap);

/* The swizzle for a tensor (its tile addresses "addr", "n" of them, and
 * the accesses "acc"): over the legal Swizzle<M,B,S> (inner, S >= B >= 1,
 * M + B + S at most the bits of the largest address) and no swizzle, the
 * one with the least max ways, then the least sum, then the fewest xor
 * bits B, then the least M, then S. "*sw" (present false: no swizzle
 * wins), and the counts before ("before", no swizzle) and after. For
 * elements narrower than a byte ("elem_bits" < 8) M keeps whole bytes
 * (2^M >= 8 / elem_bits). */
axe_status axe__swizzle_pick(const int64_t *addr, int64_t n,
                             const ax_tile_access *acc, int nacc,
                             int64_t elem_bits, axe_layout_swizzle *sw,
                             ax_ways *before, ax_ways *after, axe_diag *diag);

/* axe__swizzle_pick's choice where its counts are below "bound" (a
 * smaller max, or the same max and a smaller sum): "*below", and then
 * "*sw", "*before" and "*after", the same as axe__swizzle_pick's (a candidate's
 * count stops once it cannot end below the best so far, which starts
 * at "bound"). Lets a caller comparing several layouts skip the ones
 * that cannot win. */
axe_status axe__swizzle_pick_below(const int64_t *addr, int64_t n,
                                   const ax_tile_access *acc, int nacc,
                                   int64_t elem_bits, const ax_ways *bound,
                                   axe_layout_swizzle *sw, ax_ways *before,
                                   ax_ways *after, bool *below, axe_diag *diag);

/* ---- the warp-wide accesses of a compiled program (compiler_smem_access.c)
 */

/* A warp-wide access of operand "arg" of operator "op" (its index) to
 * shared tensor "tensor": lane t accesses "vec" elements, the logical
 * elements index[t] + axe__smem_offset(e) (e < vec; row-major over its
 * shape), at consecutive addresses, when active[t]. The offsets are the
 * run (vec / L, lext[0], .., lext[nlev - 1]) : (vstride, lstride[0], ..)
 * (L the product of lext; colexicographic, e's fastest digit first): with
 * nlev 0 the elements e * vstride along one step, with more levels a
 * vector whose consecutive addresses cross dimensions (a 16-byte row of
 * 16 k x 2 n packed i4: (2,2,8):(1,1024,128) on a 128 x 128 tile).
 * "rmw": the read of a store narrower than a byte (one packed i4 by an
 * operator's destination, operand 0): the emitted code (ax_st4, ax_put4)
 * reads the byte and writes it back, so such a store is listed twice,
 * as the write (rmw false) and as this read of the same bytes. A
 * whole-byte store of two (ax_pack4, plan->pair) is one write, vec 2. */
#define AX_RUN_LEVELS 4
typedef struct ax_smem_access {
    int op, arg, tensor;
    bool rmw;
    int64_t vec, vstride;
    int nlev;
    int64_t lext[AX_RUN_LEVELS], lstride[AX_RUN_LEVELS];
    bool active[AX_WARP];
    int64_t index[AX_WARP];
} ax_smem_access;

/* The logical offset of element "e" of access "a"'s vector. */
int64_t axe__smem_offset(const ax_smem_access *a, int64_t e);
/* The run of "a"'s vector ("a->vec" elements) from the logical elements
 * "x" of one lane's vector (x[e] - x[0] as levels: each the largest
 * extent over which the blocks so far repeat at one step); false past
 * AX_RUN_LEVELS levels. */
bool axe__smem_fit_run(ax_smem_access *a, const int64_t *x);

/* The distinct warp-wide accesses of a program, in the program's arena. */
#define AX_SMEM_MAX_ACCESSES 65536
/* The most joint values of the block ids and loop variables one operator's
 * shared accesses read that the walker visits. */
#define AX_SMEM_MAX_VALUES 4096
typedef struct ax_smem_list {
    int n, cap;
    ax_smem_access *a;
    uint32_t *slot; /* hash table of 2 * cap slots: 1 + access, 0 free */
} ax_smem_list;

/* Every distinct warp-wide access of every dispatched operator of "p" to
 * a shared tensor (file comment of compiler_smem_access.c: which warps,
 * lanes and instructions); AXE_ERR_CAPACITY past AX_SMEM_MAX_ACCESSES,
 * a view whose swizzle is not its tensor's counts by the physical
 * address it reaches (the tensor's element there). */
axe_status axe__smem_accesses(axe_program *p, ax_smem_list *out,
                              axe_diag *diag);
/* The bank model on plan "plan" of operator "s" (a candidate of
 * copy.vector, both operands affine; "s"'s own plan is not read): the
 * counts (ax_ways) of every warp-wide access of its shared operands that
 * the plan issues, walked as for axe__smem_accesses (every warp,
 * instruction and value of the block ids and loop variables it reads;
 * repeats counted each time), each on the tile addresses of the lanes'
 * vectors under the tensor's swizzle; all 0 when no operand is shared.
 * AXE_ERR_CAPACITY past AX_SMEM_MAX_VALUES values. */
axe_status axe__plan_ways(const axe_program *p, const ax_stmt *s,
                          const ax_plan *plan, ax_ways *ways, axe_diag *diag);
/* The unswizzled tile address of logical element "x" of a tensor under
 * layout "l" (its swizzle ignored), or -1 (no single address on m). */
int64_t axe__smem_tile_addr(const axe_layout *l, int64_t x);

/* ---- ways before and after a chosen swizzle (compiler_smem_report.c) ---
 */

/* The ways of operand "arg" of operator "op" to shared "tensor": the
 * largest over its warp-wide accesses, under the tensor's layout as
 * written ("before"), under it with the swizzle chosen for it ("after")
 * and under the compact row-major layout with the swizzle chosen for
 * that ("compact"; -1 when a vector of the access is not contiguous
 * there). */
typedef struct ax_smem_ways {
    int op, arg, tensor;
    int before, after, compact;
} ax_smem_ways;

/* Per shared tensor with accesses and base layout (its written layout
 * without its own swizzle, or with "compact" the row-major one over its
 * shape): whether every access's vectors are contiguous under the base
 * ("ok"), the swizzle chosen over the base (present false: none wins),
 * and the counts over all its accesses before (the written layout with
 * its own swizzle, or the compact one without) and after. */
typedef struct ax_smem_choice {
    int tensor;
    bool compact, ok;
    axe_layout_swizzle sw;
    ax_ways before, after;
} ax_smem_choice;

typedef struct ax_smem_report {
    int nways, nchoices;
    ax_smem_ways *ways; /* in the program's arena */
    ax_smem_choice choice[2 * AX_MAX_TENSORS];
} ax_smem_report;

/* The report of a dispatched program "p" (every shared tensor that has
 * accesses; a tensor whose layout is not one address per element on m
 * is AXE_ERR_UNSUPPORTED, named). */
axe_status axe__smem_report(axe_program *p, ax_smem_report *out,
                            axe_diag *diag);

/* The ways of access "a" to a tensor of "bits"-bit elements placed by the
 * unswizzled "base" (its tile addresses) under swizzle "sw" (NULL: none):
 * one access of "vec" elements when they are consecutive there, else the
 * largest ways of its "vec" single-element accesses (what a layout that
 * breaks the vector costs: one instruction per element). */
axe_status axe__smem_access_ways(const axe_layout *base,
                                 const axe_layout_swizzle *sw, int64_t bits,
                                 const ax_smem_access *a, int *ways,
                                 axe_diag *diag);

/* ---- alignment constraints (compiler_smem_align.c) ---------------------
 */

/* A run constraint on a shared tensor: operator "op" (its label, e.g.
 * "copy#3") accesses aligned runs of "len" logical elements along
 * dimension "dim" at consecutive addresses (len 1: no constraint). */
typedef struct ax_run {
    char op[24];
    int dim;
    int64_t len;
} ax_run;

/* A candidate layout with free strides: the tensor's dims refined into
 * "n" modes (dims in order, each dim's modes outer to inner, as Axe
 * iters), each with a fixed stride (> 0) or free stride d_k (stride -k;
 * d1 the mode of the smallest row-major step). */
#define AX_FREE_MAX 16
typedef struct ax_free_layout {
    int n;
    int dim[AX_FREE_MAX];
    int64_t extent[AX_FREE_MAX];
    int64_t stride[AX_FREE_MAX];
} ax_free_layout;

/* The run that access "a" of operator "op" needs on a tensor of "shape"
 * (its vector's step is one dimension's; every start aligned); UNSUPPORTED
 * with the reason otherwise. */
axe_status axe__smem_run_of_access(const int64_t *shape, int ndim,
                                   const ax_smem_access *a, const char *op,
                                   ax_run *out, axe_diag *diag);
/* The run that a copy needs whose other side has thread-value layout
 * "tv" ((T, V) -> row-major logical index of "shape", colexicographic
 * t + T v, "nt" = T threads) and moves "len" consecutive values per
 * access: m(tv(t, k len + e)) = m(tv(t, k len)) + e for every t, k and
 * e < len; UNSUPPORTED when the values of an access do not follow one
 * dimension from aligned starts. */
axe_status axe__smem_run_of_tv(const int64_t *shape, int ndim,
                               const axe_cute_layout *tv, int64_t nt,
                               int64_t len, const char *op, ax_run *out,
                               axe_diag *diag);
/* The meet of runs "a" and "b" (both must hold): along one dimension the
 * runs of lcm(len) (which must divide its extent); along two dimensions
 * UNSUPPORTED naming both operators. */
axe_status axe__smem_runs_meet(const int64_t *shape, int ndim, const ax_run *a,
                               const ax_run *b, ax_run *out, axe_diag *diag);
/* The candidate layouts of run "r": dimension r->dim split as (extent /
 * len, len) with stride 1 inside, every other mode free. */
axe_status axe__smem_candidate(const int64_t *shape, int ndim, const ax_run *r,
                               ax_free_layout *out, axe_diag *diag);
/* The candidate as text: Axe `S[(4,8,8):(d2,d1,1)]`, or with "cute" the
 * CuTe form over the same logical shape `(4,8,8):(d2,1,d1)`
 * (snprintf-style). */
size_t axe__free_layout_text(const ax_free_layout *l, bool cute, char *buf,
                             size_t cap);
/* The compact instance of "l": d1 the span of the fixed modes (1 past
 * their largest address; 1 when none), each next free stride the product
 * so far (a bijection onto [0, size) when the fixed modes make [0, d1)). */
axe_status axe__free_layout_compact(const ax_free_layout *l, axe_layout *out,
                                    axe_diag *diag);

/* The instance of "f" whose free strides are given in the order "perm"
 * (perm[0], the free stride numbered first, gets the smallest: the span
 * of the fixed modes, each next the product so far; perm the identity:
 * axe__free_layout_compact's), each two adjacent modes of one dimension
 * that are one run of addresses merged. */
axe_status axe__free_layout_instance(const ax_free_layout *f, const int *perm,
                                     int nfree, axe_layout *out,
                                     axe_diag *diag);
/* The next order of "nfree" free strides to try (every order of up to
 * AX_FREE_ORDERS, 5, of them, else only the first); false after the
 * last. */
bool axe__free_layout_next_order(int *perm, int nfree);
/* ---- ldmatrix rows (compiler_smem_ldsm.c) ------------------------------
 */

/* Whether copy "s" reads shared tensor "ti" of 4-, 8- or 16-bit elements
 * whole into a whole register of its dtype and shape at warp, warpgroup
 * or CTA scope (the copies whose ldmatrix rows give a candidate). */
bool axe__smem_ldsm_copy(const axe_program *p, const ax_stmt *s, int ti);
/* The matrices per ldmatrix instruction for a register of "words" 32-bit
 * words: 4 (.x4) if words % 4 == 0, else 2, else 1 (compiler_copy_ldsm.c
 * and the synthesis's ldmatrix rows share the rule). */
int axe__ldsm_matrices(int64_t words);
/* The candidate with free strides of a shared tensor of "shape" and
 * "bits"-bit elements read into a register of layout "rl"
 * (compiler_smem_ldsm.c): rl's iters, each split into its part inside a
 * 16-byte row and across rows (free): plain, inside a row the lane bits
 * below 4 at 32 / bits x the lane stride and the register strides below
 * 32 / bits at their own (fixed); with "trans" (ldmatrix.trans, 16-bit
 * only), inside a row lane bits 2 to 4 at the lane stride / 4 (lane l's
 * word is column l / 4 of two rows), every register stride and lane
 * bits below 2 across rows; false when rl has replicas, offsets, a
 * swizzle, other axes than laneid, m and the warp axes (warpid,
 * wid_in_wg, wgid: across rows), an iter that does not split so, or
 * fixed parts that do not make [0, 128 / bits) once. */
bool axe__smem_ldsm_free(const axe_layout *rl, const int64_t *shape, int ndim,
                         int bits, bool trans, ax_free_layout *f);
/* The candidate layout of tensor "ti" from copy "op" of dispatched "p"
 * (axe__smem_ldsm_copy): its register's ldmatrix rows (.trans rows with
 * "trans") as 16-byte rows of the tensor (the file comment), over the
 * orders of the free strides the instance whose swizzle (chosen over the
 * other operators' accesses, each vector split into single elements
 * where the instance breaks it, the other copies that the instance makes
 * ldmatrix, plain or .trans, by the rows they read, and the copy's rows
 * as 16-byte accesses)
 * leaves the fewest ways (largest, then sum; ties keep the earlier).
 * "*have" false when the register has no such rows. */
axe_status axe__smem_ldsm_candidate(axe_program *p, int ti, int op, bool trans,
                                    axe_layout *out, bool *have,
                                    axe_diag *diag);
/* The counts of copy "s"'s ldmatrix instructions (every warp's, each lane
 * 16 bytes from its row start as the register's rows give it; with
 * "trans", ldmatrix.trans's rows: row r of word g's matrix starts at
 * lane r / 2's element 2 g + r % 2) on its shared tensor's layout;
 * AXE_ERR_UNSUPPORTED (no diagnostic) when the register's layout is not
 * over laneid, m and the warps of the copy's scope alone (warpid; at
 * warpgroup scope wid_in_wg; at CTA scope wid_in_wg and wgid too).
 * Meaningful where ldmatrix (.trans with "trans") is legal for "s"
 * (compiler_copy_ldsm.h). */
axe_status axe__smem_ldsm_ways(axe_program *p, const ax_stmt *s, bool trans,
                               ax_ways *out, axe_diag *diag);

/* The accesses "l" of tensor "ti" of dispatched "p" with those of each
 * copy that runs as ldmatrix or ldmatrix.trans replaced by its ldmatrix
 * rows (every warp's instructions, each lane's 16 bytes from its row
 * start as axe__smem_ldsm_ways counts them), each row the logical
 * elements at its 16 consecutive bytes under the tensor's layout in "p"
 * ("out" in the program's arena, without hash slots; the other tensors'
 * accesses kept). A copy whose rows fit no run of AX_RUN_LEVELS levels
 * keeps its own accesses. "*any": whether a copy was replaced. */
axe_status axe__smem_ldsm_rows_list(axe_program *p, const ax_smem_list *l,
                                    int ti, ax_smem_list *out, bool *any,
                                    axe_diag *diag);

/* The accesses of tensor "ti" in "l" with each vector split into its
 * single elements ("out" in the program's arena, without hash slots). */
axe_status axe__smem_scalar_accesses(axe_program *p, const ax_smem_list *l,
                                     int ti, ax_smem_list *out, axe_diag *diag);

/* The meet of the runs of every access in "l" to tensor "ti" of "p"
 * (operators labelled as --schedule spells them, "copy#3"); UNSUPPORTED
 * naming two operators whose runs cannot both hold. */
axe_status axe__smem_tensor_run(const axe_program *p, const ax_smem_list *l,
                                int ti, ax_run *out, axe_diag *diag);

/* The accesses "l" of tensor "ti" placed by "base" (unswizzled; as the
 * report's compact column): r->choice[0] with the swizzle chosen over
 * them, r->ways per operand. */
axe_status axe__smem_choose_on(axe_program *p, const ax_smem_list *l, int ti,
                               const axe_layout *base, ax_smem_report *r,
                               axe_diag *diag);

/* Scratch memory from the allocator of "p"'s arena, outside it (the
 * synthesis's per-order buffers, which the arena would keep until the
 * program is freed): NULL when it fails, not zeroed; released by
 * axe__smem_scratch_release (NULL accepted). */
void *axe__smem_scratch(const axe_program *p, size_t size);
void axe__smem_scratch_release(const axe_program *p, void *ptr);

/* axe__smem_choose_on where the accesses' vectors hold on "base" and
 * the chosen swizzle's counts are below "bound" (NULL: always):
 * "*below", and then "*r" as axe__smem_choose_on's (axe__swizzle_pick_
 * below; a caller comparing several bases skips those that cannot win). */
axe_status axe__smem_choose_below(axe_program *p, const ax_smem_list *l, int ti,
                                  const axe_layout *base, const ax_ways *bound,
                                  ax_smem_report *r, bool *below,
                                  axe_diag *diag);
/* The shared layout synthesized for tensor "ti" of dispatched program
 * "p" from its accesses: the meet of their runs, the compact instance of
 * its candidate, and the swizzle chosen over the accesses placed by it
 * ("choice": its counts), over the orders of the candidate's free strides
 * (every order for at most 5 free strides) the instance with the fewest
 * ways (largest, then sum, then fewer iters). The plans were built on the
 * tensor's current
 * layout (a placeholder for `layout auto`), so the caller re-dispatches
 * with "out". With "scalar", each vector access counts as its single
 * elements (no run, no vector to keep contiguous): the layout for plans
 * without vectors, which the caller compares by measuring both. */
axe_status axe__smem_synthesize(axe_program *p, int ti, bool scalar,
                                axe_layout *out, ax_smem_choice *choice,
                                axe_diag *diag);

#endif
