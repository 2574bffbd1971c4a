/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Layout synthesis (issue 15, Hexcute's Algorithm 1): the pass that gives
 * every `layout auto` tensor its layout, between parse and sema, so that
 * sema checks a synthesized layout exactly as a hand-written one. Register
 * (thread-value) layouts come from anchors (a gemm's C tiled by the
 * target's mma atom, else the largest copy between memory and registers,
 * laid out for coalescing) and constraints propagated through the
 * operators (elementwise and cast: equal layouts; reduce and broadcast:
 * the projection of the reduced dimension); shared layouts come after
 * (axe__synth_shared). What was chosen, and why, is kept in the program's
 * report for `axe synth`, --explain and axe_program_synth.
 */
#ifndef AXE_COMPILER_SYNTH_H
#define AXE_COMPILER_SYNTH_H

#include "compiler_internal.h"

#define AX_SYNTH_MAX_ITEMS 64
#define AX_SYNTH_TEXT 192
/* Why a copy from shared memory into a register has no ldmatrix leaf. */
#define AX_SYNTH_WHY 256

/* A synthesized tensor and the constraint or anchor that fixed it. */
typedef struct ax_synth_tensor {
    int tensor;
    char how[AX_SYNTH_TEXT];
    /* A shared tensor: why copy "no_ldsm_op", which reads it into a
     * register of its 4-, 8- or 16-bit dtype, gave no candidate from its
     * ldmatrix rows (compiler_synth_shared.c; "": one was measured, or no
     * such copy); not in the JSON. */
    int no_ldsm_op;
    char no_ldsm[AX_SYNTH_WHY];
} ax_synth_tensor;

/* An anchor's instruction choice: the leaf of the search with the lowest
 * cost and the next best one ("runner_up" empty: none). */
typedef struct ax_synth_choice {
    int op;
    char chosen[AX_SYNTH_TEXT];
    double cost;
    char runner_up[AX_SYNTH_TEXT];
    double runner_cost;
    /* A copy anchor: why copy "no_ldsm_op" from shared memory into a
     * register, the anchor or a copy of its tied class, has no ldmatrix
     * leaf ("": every such copy has one); not in the JSON. "no_ldsm_own":
     * the anchor has none of its own, but a tied copy gave ldmatrix
     * leaves. */
    int no_ldsm_op;
    bool no_ldsm_own;
    char no_ldsm[AX_SYNTH_WHY];
} ax_synth_choice;

/* A copy between two register layouts that disagree: staged through
 * shared memory (copy.smem), "smem_bytes" of scratch per scope
 * instance. */
typedef struct ax_synth_rearrange {
    int op, tensor;
    int64_t smem_bytes;
} ax_synth_rearrange;

/* A warp-wide access of a shared tensor, its bank-conflict ways before
 * and after the chosen swizzle (filled by axe__synth_shared). */
typedef struct ax_synth_access {
    int op, tensor;
    int64_t ways_before, ways_after;
} ax_synth_access;

typedef struct ax_synth_report {
    int ntensors, nchoices, nrearranges, naccesses;
    ax_synth_tensor tensors[AX_MAX_TENSORS];
    ax_synth_choice choices[AX_SYNTH_MAX_ITEMS];
    ax_synth_rearrange rearranges[AX_SYNTH_MAX_ITEMS];
    ax_synth_access accesses[AX_SYNTH_MAX_ITEMS];
    /* Why the accesses could not be counted ("": they were). */
    char accesses_note[320];
} ax_synth_report;

/* Run synthesis on a parsed program when it has `layout auto` tensors
 * (p->synth stays NULL otherwise): registers, then shared tensors. */
axe_status axe__program_synth(axe_program *p, axe_diag *diag);
/* Scratchpad layouts (compiler_synth_trn.c): every `sbuf` / `psum`
 * tensor of a core kernel written `layout auto` gets the cheapest layout
 * over P, F and Bank with which every operator on it has an engine
 * schedule (reported into "r"); refused, naming an operator and its
 * reason, when none has. */
axe_status axe__synth_trn(axe_program *p, ax_synth_report *r, axe_diag *diag);
/* Register layouts (compiler_synth.c). */
axe_status axe__synth_registers(axe_program *p, ax_synth_report *r,
                                axe_diag *diag);
/* The register synthesis of a probe program with the program's text and
 * chosen shared layouts: its report and the layouts it gave the
 * program's tensors ("plain": it inserted no rearrange, so the layouts
 * are all of it). */
typedef struct ax_synth_kept {
    bool have, plain;
    axe_layout lay[AX_MAX_TENSORS];
    ax_synth_report report;
} ax_synth_kept;
/* Shared layouts (compiler_synth_shared.c), decided before the registers
 * (each candidate probed with its registers synthesized for it); the
 * register synthesis of the probe of the chosen layouts into "*kept"
 * (NULL: none was made). */
axe_status axe__synth_shared(axe_program *p, ax_synth_report *r,
                             const ax_synth_kept **kept, axe_diag *diag);

/* The "accesses" records of a dispatched program with a report
 * (compiler_synth_shared.c): per (operator, shared tensor), the largest
 * ways of its warp-wide accesses on the row-major layout (an auto tensor)
 * or the written one without its swizzle ("before") and on the layout
 * used ("after"). An access the walker cannot count leaves the records
 * empty and says why in "accesses_note". */
axe_status axe__synth_accesses(axe_program *p, axe_diag *diag);

/* Whether "r" names all of its tensor: no view, broadcast or mask, and
 * every dimension's start absent or 0 and its length the tensor's extent
 * (`T[:, :]` as `T`): the operator's shape is the tensor's. */
bool axe__synth_ref_whole(const axe_program *p, const ax_ref *r);
/* The same, of a register tensor (the pointwise constraints' operands). */
bool axe__synth_whole(const axe_program *p, const ax_ref *r);
/* Whether operators "op" tie the layouts of their whole register operands
 * (not reduce, gemm, fill or iota; a rearrange is not, whatever its op). */
bool axe__synth_pointwise(ax_op op);
/* The tied class of register "reg" (compiler_synth_tied.c): in[i] for
 * every tensor i whose layout equals reg's by the pointwise constraints
 * ("in" holds p->ntensors flags). */
void axe__synth_tied(const axe_program *p, int reg, bool *in);
/* The global or shared i4 tensor that a copy or cast from a register of
 * the class "in" stores into (whole bytes per thread), or -1. */
int axe__synth_i4_store(const axe_program *p, const bool *in);
/* The store-byte rule of the copy anchor (compiler_synth_i4.c): for the
 * copies and casts of the class "in" into global or shared i4 tensors
 * ("tensor" the first, -1: none), the pairs of register elements (row-
 * major indices over the anchor's "shape", "n" dims) whose destination
 * elements share a byte that the store writes whole, each pair to be on
 * one thread; "exact" false (no pairs) when some store's bytes cannot be
 * evaluated. Owned: free with axe__synth_i4_free. */
typedef struct ax_synth_i4 {
    int tensor;
    bool exact;
    int64_t n, cap;
    int64_t (*pair)[2];
} ax_synth_i4;
axe_status axe__synth_i4_pairs(const axe_program *p, const bool *in,
                               const int64_t *shape, int n, ax_synth_i4 *q);
void axe__synth_i4_free(ax_synth_i4 *q);
/* Whether register layout "l" puts both elements of every pair of "q"
 * (exact) on one thread, with no replica where a pair exists. */
bool axe__synth_i4_whole(const ax_synth_i4 *q, const axe_layout *l);
/* The leaves of a gemm anchor (compiler_synth_gemm.c): C's layouts, each
 * with its cost (operand loads per warp or thread) and text. */
#define AX_SYNTH_MAX_LEAVES 16
typedef struct ax_synth_leaf {
    axe_layout layout;
    double cost;
    char text[AX_SYNTH_TEXT];
} ax_synth_leaf;
typedef struct ax_synth_leaves {
    int n;
    ax_synth_leaf leaf[AX_SYNTH_MAX_LEAVES];
    int no_ldsm_op; /* a copy's: ax_synth_choice's */
    bool no_ldsm_own;
    char no_ldsm[AX_SYNTH_WHY];
} ax_synth_leaves;
/* Every leaf of gemm "s"'s C: tiled by the mma atom over the scope's
 * warps (B in memory, or A and B registers at warp scope; wn = 1 with a
 * register A at a collective scope), else FMA thread grids (B in
 * memory); AXE_ERR_UNSUPPORTED when none fits. */
axe_status axe__synth_gemm_leaves(const axe_program *p, const ax_stmt *s,
                                  ax_synth_leaves *lv, axe_diag *diag);
/* Anchors (compiler_synth_anchor.c): the cheapest leaves (at most
 * AX_SYNTH_COPY_LEAVES) of the whole auto register operand "reg" of copy
 * "s" whose other operand "mem" is in memory, laid out for coalescing, in
 * the order of the copy search (cost, then the tie rule, then
 * enumeration); AXE_ERR_UNSUPPORTED when no candidate fits, why in
 * "diag". */
#define AX_SYNTH_COPY_LEAVES 8
axe_status axe__synth_copy_leaves(const axe_program *p, const ax_stmt *s,
                                  int reg, int mem, ax_synth_leaves *lv,
                                  axe_diag *diag);
/* The ldmatrix leaves of copy anchor "s" (compiler_synth_ldsm.c): when
 * its register operand "reg" is its destination and its source a whole
 * shared tensor of 4-, 8- or 16-bit elements of the register's dtype and
 * shape, or a region of one that is whole iters of each dimension
 * starting on a 16-byte row (read off the region's layout), at warp,
 * warpgroup or CTA scope, the register layouts that make every
 * register word an ldmatrix register (plain; .trans for 16-bit, one per
 * dimension holding a word's two rows), each with its cost in the copy
 * anchor's unit (ldmatrix instructions per thread times the scope's
 * threads) and text; none ("n" 0) otherwise. The copy search measures
 * each leaf's run from its layout (compiler_synth_anchor.c, reg_run).
 * Room for all of them: one plain and one .trans per dimension of the
 * shared tensor. */
#define AX_SYNTH_LDSM_LEAVES (1 + AX_MAX_DIMS)
typedef struct ax_synth_ldsm {
    int n;
    ax_synth_leaf leaf[AX_SYNTH_LDSM_LEAVES];
    /* "n" 0: the first condition above that "s" fails, where it is a copy
     * from shared memory into a register ("" otherwise). */
    char why[AX_SYNTH_WHY];
} ax_synth_ldsm;
axe_status axe__synth_ldsm_leaves(const axe_program *p, const ax_stmt *s,
                                  int reg, ax_synth_ldsm *out, axe_diag *diag);
/* The same leaves with the shared tensor on layout "shl" in place of its
 * own (its iters and swizzle read from "shl"). */
axe_status axe__synth_ldsm_leaves_on(const axe_program *p, const ax_stmt *s,
                                     int reg, const axe_layout *shl,
                                     ax_synth_ldsm *out, axe_diag *diag);
/* An iter of a region of one dimension: the dimension, the part of the
 * iter's extent the region takes, its stride. */
typedef struct ax_region_iter {
    int dim;
    int64_t extent, stride;
} ax_region_iter;
/* The innermost memory iters of dimension "d" of grouped layout "g" (its
 * iters seps[d] .. seps[d + 1]) whose product is a region's "len"
 * elements (the last one split where the length left divides its
 * extent), appended inner first to "out" at "*n"; false when an iter they
 * take is not on `m` or no such iters exist. With "row" > 0 also every
 * iter outside the region (the split one's stride times the part taken)
 * must be on `m` at a stride that is a multiple of "row" elements (the
 * region then starts on a row of that many whatever its start);
 * compiler_synth_ldsm.c. */
bool axe__synth_region_iters(const axe_layout *g, const int *seps, int d,
                             int64_t len, int64_t row, ax_region_iter *out,
                             int *n);
/* The seeds of the ldmatrix rows of copy "s" (compiler_synth_seed.c):
 * when it reads a whole shared tensor into a whole register of the
 * kind above, the ldmatrix leaves of "s" against each seed layout of
 * the tensor (row-major; each region of memory of a written layout that
 * a copy moves the whole tensor or a tile of it to or from, made compact,
 * the tiles row-major outside it; at most
 * AX_SYNTH_SEEDS), distinct layouts at most AX_SYNTH_MAX_LEAVES, into
 * "out" (none: "n" 0). */
#define AX_SYNTH_SEEDS 4
axe_status axe__synth_ldsm_seeds(const axe_program *p, const ax_stmt *s,
                                 ax_synth_leaves *out, axe_diag *diag);
/* Whether copy "s" of the kind above runs as ldmatrix with its register's
 * current layout (every word an ldmatrix register, plain or .trans):
 * then its ldmatrix instructions per scope instance (per thread times
 * the scope's threads) into "*out". */
bool axe__synth_ldsm_accesses(const axe_program *p, const ax_stmt *s, int reg,
                              int64_t *out);
/* The ldmatrix leaves of the tied class (compiler_synth_tied.c): for
 * each other copy at the scope of copy anchor "s" that reads a whole
 * shared tensor, or a region of one of the kind above, into a whole
 * register of the class "in" of the anchor's
 * register "reg" (of its shape), its ldmatrix leaves (the kind above:
 * the layouts that make that copy ldmatrix), each costed as the
 * anchor's accesses with it (axe__synth_copy_accesses_with), its text
 * naming the copy; at most AX_SYNTH_LDSM_LEAVES, the first copies
 * first. */
typedef struct ax_synth_tied_ldsm {
    int n;
    ax_synth_leaf leaf[AX_SYNTH_LDSM_LEAVES];
    /* The first such copy with no ldmatrix leaf and why (ax_synth_ldsm's
     * "why"; "" none). */
    int why_op;
    char why[AX_SYNTH_WHY];
    int leaf_op; /* the copy of the first leaf (-1: none) */
    int leaf_n;  /* how many of the leaves are leaf_op's */
} ax_synth_tied_ldsm;
axe_status axe__synth_tied_ldsm(const axe_program *p, const ax_stmt *s, int reg,
                                const bool *in, ax_synth_tied_ldsm *out,
                                axe_diag *diag);
/* The accesses that copy "s" issues per scope instance with its register
 * operand "reg" (whole, solved) in the tensor's current layout: the
 * widest vector its registers hold contiguously along the memory's
 * fastest dim (as the copy anchor's widths and alignment allow), per
 * thread of the scope; false when it cannot be counted. */
bool axe__synth_copy_accesses(const axe_program *p, const ax_stmt *s, int reg,
                              int64_t *out);
/* The width (elements) of those vectors with the register on layout
 * "l"; false when the copy cannot be set up. */
bool axe__synth_copy_width(const axe_program *p, const ax_stmt *s, int reg,
                           const axe_layout *l, int64_t *out);
/* The same count with the register on layout "l", vectors only (no
 * ldmatrix). */
bool axe__synth_copy_accesses_with(const axe_program *p, const ax_stmt *s,
                                   int reg, const axe_layout *l, int64_t *out);
/* The thread rank one step of axis "a" moves in a register layout at
 * scope "sc"; 0: no thread axis of that scope (compiler_synth_ldsm.c). */
int64_t axe__synth_axis_step(ax_scope sc, const char *a);

/* The element address (in elements of its tensor, from the tensor's
 * first; a dynamic region start counts as 0, a constant one as itself)
 * of every element of operand "r" of shape "shape" ("n" dims, "size"
 * elements, row-major index x) into addr[x]; false when r's shape is
 * not "shape" or an iter off "m" moves an element. */
bool axe__synth_elem_addrs(const axe_program *p, const ax_ref *r,
                           const int64_t *shape, int n, int64_t size,
                           int64_t *addr);
/* The global-memory sectors copy "s" touches per scope instance with
 * its register operand "reg" on layout "l" and "w"-element accesses
 * (compiler_synth_sectors.c): over every warp-wide access (the register
 * elements m of a warp's lanes with one m / w, replicas included, each
 * thread issuing its own), the distinct 32-byte sectors of their bytes
 * (axe__sector_count's unit, the tensor's first element 32-byte
 * aligned), summed; false when the memory operand is not global, an
 * element has no address, thread or register, or the count passes its
 * bounds (2^21 elements, 2^22 elements times replicas). */
bool axe__synth_copy_sectors(const axe_program *p, const ax_stmt *s, int reg,
                             const axe_layout *l, int64_t w, int64_t *out);
/* The gemm constraint (Theorem 1): the layout of register operand "o"
 * (1 A, 2 B) implied by C's layout when C is one of the tilings above:
 * A the MI x KI tiling of the A fragment over C's warps when each C row
 * of tiles is in one warp (the projection of C over N), B the NI x KI
 * tiling at warp scope, A of an FMA grid C's rows with all of K;
 * AXE_ERR_UNSUPPORTED otherwise. */
axe_status axe__synth_gemm_operand(const axe_program *p, const ax_stmt *s,
                                   int o, axe_layout *out);
/* The layout of an operand without dimension "k" of "l" (over "shape",
 * "n" dims): thread iters of k become replicas, its register iters go,
 * the remaining register strides are made compact in their order. */
axe_status axe__synth_project(const axe_layout *l, const int64_t *shape, int n,
                              int k, axe_layout *out);
/* The shape of operand "r" before sema (a region's lengths, a view's
 * shard, else the tensor's), its number of dims returned. */
int axe__synth_ref_shape(const axe_program *p, const ax_ref *r, int64_t *shape);
/* A copy's memory operand as pieces, its dimensions' memory iters, and
 * the chain of pieces that make one run of consecutive addresses from
 * stride 1 (compiler_synth_merge.c). */
typedef struct ax_synth_merge {
    int np, nchain; /* the pieces; the first nchain of order: the chain */
    int64_t ext[AXE_LAYOUT_MAX_DIMS], stride[AXE_LAYOUT_MAX_DIMS];
    int dim[AXE_LAYOUT_MAX_DIMS];   /* each piece's dimension */
    int order[AXE_LAYOUT_MAX_DIMS]; /* by stride, extent-1 pieces last */
    int64_t run;                    /* the chain's elements */
    int64_t align; /* gcd of the strides outside the chain (0: none) */
    int64_t swz;   /* the aligned run the swizzle keeps contiguous */
} ax_synth_merge;
/* The pieces of memory operand "r" of a copy of shape "shape" (n dims)
 * and the stride each dim's start moves in "rstride"; true when the chain
 * runs through two pieces or more. */
bool axe__synth_merge_of(const axe_program *p, const ax_ref *r,
                         const int64_t *shape, int n, int64_t *rstride,
                         ax_synth_merge *m);
/* A register layout over the pieces as one over the copy's n dims. */
axe_status axe__synth_merge_unsplit(const ax_synth_merge *m,
                                    const axe_layout *pl, int n,
                                    axe_layout *out);
/* Register elements of "l" (over the copy's shape) at consecutive
 * register offsets along the chain, from its first piece. */
int64_t axe__synth_merge_reg_run(const ax_synth_merge *m, const axe_layout *l);
/* "kind#N", the operator's label as --schedule spells it. */
void axe__synth_label(const axe_program *p, int op, char *buf, size_t cap);
/* Insert `rearrange(NEW, tensor)` before "s", NEW a new register like
 * "tensor" with layout "l" ("*made", the statement "*stmt")
 * (compiler_synth_insert.c); the caller makes "s" read NEW. */
axe_status axe__synth_insert_rearrange(axe_program *p, ax_stmt *s, int tensor,
                                       const axe_layout *l, int *made,
                                       ax_stmt **stmt, axe_diag *diag);
/* The grouped layout of fragment "o" (0 A, 1 B, 2 C) of mma atom number
 * "which" of gemm "s"'s dtypes (0 the first in the table's order, the
 * largest K; f16: 0 m16n8k16, 1 m16n8k8) over its 2-D tile (seps as
 * axe_layout_group's), its values per lane and the atom's (M, N, K);
 * AXE_ERR_UNSUPPORTED when the dtypes have no such atom
 * (compiler_mma.c). */
axe_status axe__mma_frag_grouped(const axe_program *p, const ax_stmt *s,
                                 int which, int o, axe_layout *grouped,
                                 int *seps, int64_t *nvals, int64_t *mnk);
/* The synthesis lines of --explain under operator "s" (none without). */
void axe__synth_explain(ax_text *t, const axe_program *p, const ax_stmt *s);

#endif
