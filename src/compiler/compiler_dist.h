/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exchange planner of distributed tensors (issue 14 §2; the contract
 * with the language and the MPI backend: docs/compiler.md, "Distributed
 * tensors", "The exchange plan"). A `device copy` or `device reduce`
 * between two layouts over `gpuid` (device id) and `m` (address in the
 * device's local buffer) becomes a *digit table*: per logical dimension,
 * the iters of both layouts refined into one chain of sub-iters; each
 * digit is, on each side, a device digit (a gpuid stride) or a memory
 * digit (an m stride). The replica iters (on gpuid) of each side are kept
 * apart: they are not part of the coordinate.
 *
 * Element x = one value per digit. Owners: src_dev0 + sum x_i src_dev_i +
 * sum r_j src_rep[j].dev over every replica choice r; address there
 * src_m0 + sum x_i src_m_i. Holders and addresses in dst likewise. A
 * tabled digit (below, "Tables") adds its cell's parts for x_i instead.
 * Invariant of a plan (checked when it is built): both layouts are
 * injective from (element, replica choice) to (device, address), every
 * device is in [0, ndev), every address >= 0, and the digits enumerate
 * every logical coordinate exactly once (outermost digit first, dims in
 * order, the digits of a dim outer to inner).
 */
#ifndef AXE_COMPILER_DIST_H
#define AXE_COMPILER_DIST_H

#include "compiler_internal.h"

/* A plan has at most one digit per boundary of each layout's iters. */
#define AX_DIST_MAX_DIGITS (2 * AXE_LAYOUT_MAX_SHARD)
#define AX_DIST_MAX_REPS AXE_LAYOUT_MAX_REPLICA
/* Largest mesh the planner accepts (its checks enumerate devices). */
#define AX_DIST_MAX_DEVICES 1024
#define AX_DIST_EXPLAIN_MAX 512

/* The collective a plan amounts to (docs/compiler.md, "The exchange
 * plan", defines each from the owner and holder sets). */
typedef enum ax_coll {
    AX_COLL_LOCAL,
    AX_COLL_ALLGATHER,
    AX_COLL_BROADCAST,
    AX_COLL_SCATTER,
    AX_COLL_GATHER,
    AX_COLL_ALLTOALL,
    AX_COLL_REDUCE_SCATTER,
    AX_COLL_ALLREDUCE,
    AX_COLL_REDUCE,
    AX_COLL_EXCHANGE
} ax_coll;

/* Tables: the general case (docs/compiler.md, "Tabled digits"). Where the
 * iters of one dimension of src and dst have no common refinement, the
 * part of the dimension between two weights both sides split at becomes
 * one *tabled digit*: its value v (< extent) is decomposed by each side's
 * own iters there (ax_dist_tab.sub, outer first: v = sum y_j w_j, w_j the
 * product of the inner subs' extents), and its device and address parts
 * on each side, sum y_j dev_j and sum y_j m_j, are tabulated per v
 * (ax_dist_cell). The extents of a plan's tabled digits multiply to at
 * most AX_DIST_MAX_CELLS (so their cells, the sum, fit); beyond it the
 * planner refuses the pair. */
#define AX_DIST_MAX_TABS 16
#define AX_DIST_MAX_CELLS 4096

typedef struct ax_dist_digit {
    int64_t extent;
    int64_t src_dev, src_m; /* strides in the src owner's device id / buffer */
    int64_t dst_dev, dst_m; /* same for dst; a reduced digit has 0 and 0 */
    int32_t dim;            /* logical dimension (of src, for reduce) */
    int32_t reduced;        /* 1: a digit of the reduced dimension */
    int32_t tab; /* 0: the strides above; t >= 1: a tabled digit (strides 0,
                    never reduced) read from the plan's tab[t - 1] */
} ax_dist_digit;

/* One iter of one side inside a tabled digit: extent, gpuid and m stride
 * (one of them 0). */
typedef struct ax_dist_sub {
    int64_t extent, dev, m;
} ax_dist_sub;

typedef struct ax_dist_tab {
    int32_t nsub[2];                          /* src, dst */
    ax_dist_sub sub[2][AXE_LAYOUT_MAX_SHARD]; /* outer first */
    int32_t cell; /* its first cell in the plan's cell[] (extent cells) */
} ax_dist_tab;

/* Value v of a tabled digit: its parts on both sides. */
typedef struct ax_dist_cell {
    int64_t src_dev, src_m, dst_dev, dst_m;
} ax_dist_cell;

typedef struct ax_dist_rep {
    int64_t extent, dev;
} ax_dist_rep; /* a replica digit: extent, gpuid stride */

typedef struct ax_dist_plan {
    int32_t ndev, ndigits, nsrc_rep, ndst_rep;
    ax_dist_digit digit[AX_DIST_MAX_DIGITS]; /* outermost first */
    ax_dist_rep src_rep[AX_DIST_MAX_REPS], dst_rep[AX_DIST_MAX_REPS];
    int64_t src_dev0, src_m0, dst_dev0, dst_m0; /* offsets */
    int32_t kind;                               /* ax_coll */
    int32_t groups; /* the kind holds in this many independent groups of
                       ndev / groups devices (1: the whole mesh) */
    int32_t root;   /* BROADCAST, SCATTER: src's device; GATHER, REDUCE:
                       dst's (groups == 1 only); -1 otherwise */
    int32_t reduce; /* 1: a device reduce */
    int32_t k;      /* reduce: the reduced dimension of src */
    ax_red op;      /* reduce: sum, max or min */
    int64_t nsrc_own, ndst_hold; /* replica choices (products of extents) */
    char explain[AX_DIST_EXPLAIN_MAX]; /* "<kind>: why", from the digits */
    int32_t ntab, ncell;               /* tabled digits and their cells */
    ax_dist_tab tab[AX_DIST_MAX_TABS];
    ax_dist_cell cell[AX_DIST_MAX_CELLS];
} ax_dist_plan;

/* The plan of `device copy(dst, src)` for tensors of logical "shape" (n
 * dims) laid out by "src" and "dst" over a mesh of "ndev" devices; a
 * refusal (AXE_ERR_UNSUPPORTED, AXE_ERR_INVALID, ...) names the tensor
 * role (src / dst), the dimension and the iter. */
AXE_NODISCARD axe_status axe__dist_plan_copy(const int64_t *shape, int n,
                                             const axe_layout *src,
                                             const axe_layout *dst,
                                             int64_t ndev, ax_dist_plan *out,
                                             axe_diag *diag);
/* The plan of `device reduce(dst, src, op, k)`: "shape" is src's (n dims),
 * dst's is "shape" without dim "k"; "op" is sum, max or min. */
AXE_NODISCARD axe_status axe__dist_plan_reduce(
    const int64_t *shape, int n, const axe_layout *src, const axe_layout *dst,
    int k, ax_red op, int64_t ndev, ax_dist_plan *out, axe_diag *diag);

/* The parts of value "v" of digit "g" of "p": its strides times v, or
 * its table's cell v. */
ax_dist_cell axe__dist_cell(const ax_dist_plan *p, const ax_dist_digit *g,
                            int64_t v);
/* Device of replica choice number "r" (lexicographic, first replica digit
 * outermost; 0 <= r < nsrc_own) of element "x" (one value per digit) in
 * src; the address there is axe__dist_src_addr. */
int64_t axe__dist_src_owner(const ax_dist_plan *p, const int64_t *x, int64_t r);
int64_t axe__dist_src_addr(const ax_dist_plan *p, const int64_t *x);
/* The same in dst (0 <= r < ndst_hold); reduced digits do not count. */
int64_t axe__dist_dst_holder(const ax_dist_plan *p, const int64_t *x,
                             int64_t r);
int64_t axe__dist_dst_addr(const ax_dist_plan *p, const int64_t *x);
/* The transfer rule: the device "holder" gets element "x" from. "holder"
 * itself when it owns x in src (a local copy); otherwise the owner whose
 * src replica digit j is (holder / src_rep[j].dev) mod src_rep[j].extent
 * (the holder's own digit on that replica's device stride). -1 when
 * "holder" is not a holder of x in dst. For reduce, x's partial: the
 * combination over the reduced memory digits of src, made on each owner. */
int64_t axe__dist_sender(const ax_dist_plan *p, const int64_t *x,
                         int64_t holder);
/* Bytes device "rank" sends and receives under the transfer rule
 * (elements of "elem_size" bytes; reduce: partials), counted from the
 * table (every element's device digits, memory digits as multiplicity). */
AXE_NODISCARD axe_status axe__dist_bytes(const ax_dist_plan *p, int64_t rank,
                                         int64_t elem_size, int64_t *sent,
                                         int64_t *recv);
/* The same for every rank at once (one pass over the table): sent[r] and
 * recv[r] for r < ndev ("sent" and "recv" have ndev entries). */
AXE_NODISCARD axe_status axe__dist_bytes_all(const ax_dist_plan *p,
                                             int64_t elem_size, int64_t *sent,
                                             int64_t *recv);
/* Between the planner's files. Check the invariant of the table "p" and
 * count its replica choices (compiler_dist_rule.c); whether some holder
 * does not own its element; step "x" over the device digits (a gpuid
 * stride on either side; false after the last combination); check, then
 * derive kind, groups, root and the explanation (compiler_dist_kind.c). */
AXE_NODISCARD axe_status axe__dist_check(ax_dist_plan *p, axe_diag *diag);
bool axe__dist_any_move(const ax_dist_plan *p);
/* A device digit: a gpuid stride on either side, or tabled. */
bool axe__dist_is_dev_digit(const ax_dist_digit *g);
bool axe__dist_next_dev_combo(const ax_dist_plan *p, int64_t *x);
AXE_NODISCARD axe_status axe__dist_finish(ax_dist_plan *p, axe_diag *diag);
/* "local", "all-gather", "broadcast", ... */
const char *axe__dist_kind_name(ax_coll k);

/* `device gemm(C, A, B)` (compiler_dist_gemm.c): the partial sums every
 * device's local GEMM computes, "part" (logical [Q, M, N], glayout
 * derived from A's and B's layouts, local buffer row-major [mloc, nloc]:
 * shape {1, mloc, nloc}, span mloc * nloc), and the local extents; C is
 * then the device reduce (sum, dim 0) of part. A refusal names the
 * placement the local GEMMs cannot use. */
typedef struct ax_dist_gemm {
    ax_tensor part;
    int64_t q, mloc, nloc, kloc;
    /* The operands first copied (a device copy each), a mask of bits
     * "which" (1: A, 2: B; 0: A and B as placed), each to
     * moved[which - 1] (glayout, local layout, span), because of "why":
     * one operand to the placement that fits the other (its K placed as
     * the other's, its rows whole and replicated over the other's other
     * device digits), or, where neither holds a copy of the other (each
     * lives on one device or at a gpuid offset), both to C's placement
     * (A's rows placed as C's rows, B's as C's columns, replicated over
     * C's other dim's device digits; K whole and replicated over C's
     * replicas, or split over them where they divide K and the split
     * moves no more bytes: compiler_dist_gemm.c, k_split).
     * "why" is the reason without the "device gemm (line N): " of the
     * refusal's message. "fit": the copies the placement needs (copied
     * less those made only for the split below).
     * Where A and B as used both replicate the fine digits "rep" (their
     * extents multiplying to "rep_r" > 1), every replica would compute
     * the same partial sums: one of A's rows (M, split 1), B's rows (N, 2)
     * or K (3) is split over those digits instead, by a copy of the
     * operand(s) it places (copied), whichever of those dividing evenly
     * receives the fewest bytes per device (cost[]: copies and the
     * reduce into C under the transfer rule, in elements; -1 where the
     * split does not apply); split 0 where none applies (every replica
     * computes all of its partial sums) or the gemm has chunks
     * (compiler_dist_gemm_split.c).
     * "split_refused": the first split (1 to 3) that divides but does
     * not plan (0: none), its reason in "split_why".
     * Where none of those divides, split 4: the digits refined into
     * prime factors, inner first, split M over the first of them, N over
     * the next and K over the next (split_r[]: their products), the
     * most replicas that divide (then the fewest elements received); the
     * rest (rep_r over their product) still compute the same ones. */
    int copied, fit, split, nrep, split_refused;
    int64_t rep[2 * AXE_LAYOUT_MAX_REPLICA],
        rep_ext[2 * AXE_LAYOUT_MAX_REPLICA];
    int64_t rep_r, cost[3];
    int64_t split_r[3]; /* split 4: the replicas splitting M, N, K */
    ax_tensor moved[2];
    axe_diag why, split_why;
} ax_dist_gemm;
AXE_NODISCARD axe_status axe__dist_gemm(const axe_program *p, const ax_stmt *s,
                                        ax_dist_gemm *g, axe_diag *diag);
/* Whether "l" places elements on all of the "ndev" devices (its gpuid
 * iters cover them, no gpuid offset). */
bool axe__dist_whole_mesh(const axe_layout *l, int64_t ndev);
/* Where a device gemm's operand "x" lives on a mesh of "ndev" devices,
 * for a refusal or --explain: "device D only" (no gpuid iter of extent
 * > 1), "part of the mesh from device D (a gpuid offset)", "part of the
 * mesh from device 0" (gpuid iters from device 0 that leave devices out)
 * or "the mesh from device 0" (all of it). */
void axe__dist_put_where(ax_text *t, const ax_tensor *x, int64_t ndev);
/* The tensor a device gemm's local GEMM reads as operand "which" (1: A,
 * 2: B): its copy where plan "g" copies it first, else the operand. */
const ax_tensor *axe__dist_gemm_operand(const axe_program *p, const ax_stmt *s,
                                        const ax_dist_gemm *g, int which);
/* The multiply-adds of the local GEMM of plan "g" on device "dev":
 * mloc * nloc * kloc where "dev" holds partial sums (a point of their
 * layout, g->part.glayout), else 0 (a device outside A's and B's gpuid
 * offset or on a digit neither uses holds no part of K for C: the
 * backends skip its local GEMM). Whether some device of the "ndev" is
 * so idle (the backends then emit the devices' table). Never so for a
 * gemm with chunks(N): axe__mpi_check (both mesh backends) takes chunks
 * on more than one device only for a reduce-scatter in one group, whose
 * partial sums are each on one device and whose device digits multiply
 * to the mesh's size; a layout's gpuid iters reach each device at most
 * once (the layout check), so those digits reach every device. On one
 * device the partial sums are there. Hence the chunked emitters have no
 * busy guard (the mpi check's chunks_check refuses it all the same). */
int64_t axe__dist_gemm_work(const ax_dist_gemm *g, int64_t dev);
bool axe__dist_gemm_idle(const ax_dist_gemm *g, int64_t ndev);
/* The exchange plan of the copy of operand "which" first (g->copied &
 * which): the operand's layout to moved[which - 1]'s. */
AXE_NODISCARD axe_status axe__dist_gemm_copy_plan(const axe_program *p,
                                                  const ax_stmt *s,
                                                  const ax_dist_gemm *g,
                                                  int which, ax_dist_plan *out,
                                                  axe_diag *diag);
/* q[k] for every k < gshape[dim] of distributed tensor "t": the slice of
 * dimension "dim" that holds k, the row-major index of k's digits on the
 * dimension's gpuid iters (a device gemm's partial index: A's (= B's)
 * placement of K, dim 1; a device reduce's order, the reduced dim). */
AXE_NODISCARD axe_status axe__dist_slices(const ax_tensor *t, int dim,
                                          int64_t *q);

/* What the MPI backend (src/compiler/backend/mpi/) shares with the CUDA
 * backend's mesh programs, which run its schedule with NCCL:
 * the plan of device operator "s" (copy, reduce, or a device gemm's
 * reduce of its partial sums) from its operands' declared layouts (the
 * planner's refusal otherwise); the checks of a program on P ranks (a
 * mesh, local buffers an int counts, plans the runtime compiler_mpi_rt.h
 * runs); every device operator's plan as static data (axe_mpi_plan
 * ax_devK and its schedule ax_devK_sched of type "sched"; a device gemm's
 * copies first ax_devK_cpa / ax_devK_cpb (of A / B) with their schedules
 * ax_devK_cpa_sched / ax_devK_cpb_sched; with "host", the mpi target's
 * host buffers (a copy lands in ax_devK_mva / ax_devK_mvb) and local GEMM
 * functions too); a device gemm's dot product of local rows i and j into
 * "acc" (C statements over int64_t k, pointers a and b, indented by
 * "ind"; compiler_emit_mpi_gemm.c); the
 * local address of [row, k] of operand "which" (1: A, 2: B; the copy
 * where the plan copies it first) as a C expression over the names
 * "row" and "k"; and
 * each rank's main() (rank 0 reads and scatters the inputs, gathers the
 * outputs; "init": C statements every rank runs after the size check,
 * before the inputs); the harness's timing functions of a mesh program
 * (ax_mesh_now, ax_mesh_stop, ax_mesh_max; "idle": C statements
 * ax_mesh_now runs first, to wait for a device, or ""). */
axe_status axe__mpi_plan(const axe_program *p, const ax_stmt *s,
                         ax_dist_plan *out, axe_diag *diag);
axe_status axe__mpi_check(const axe_program *p, axe_diag *diag);
void axe__emit_mpi_plans(ax_text *t, const axe_program *p, const char *sched,
                         bool host);
void axe__emit_dist_gemm_dot(ax_text *t, const axe_program *p, const ax_stmt *s,
                             const ax_dist_gemm *g, const char *ind);
void axe__emit_dist_gemm_addr(ax_text *t, const axe_program *p,
                              const ax_stmt *s, const ax_dist_gemm *g,
                              int which, const char *row, const char *k);
/* Where some device holds no partial sums (axe__dist_gemm_idle), the
 * function int ax_devK_busy(void) of device gemm "s": whether this rank
 * (MPI_COMM_WORLD) holds some; the backends skip the local GEMM where it
 * is 0. Nothing where every device holds partial sums. */
void axe__emit_dist_gemm_busy(ax_text *t, const axe_program *p,
                              const ax_stmt *s, const ax_dist_gemm *g);
/* A device gemm's C types (compiler_emit_mpi_gemm.c): of A and B ("in"),
 * of its partial sums and C ("out") and of the accumulator ("acc": i32
 * sums wrap in uint32_t; f16/bf16 products are summed in C's f32). */
void axe__dist_gemm_types(const axe_program *p, const ax_stmt *s,
                          const char **in, const char **out, const char **acc);
void axe__emit_mpi_main(ax_text *t, const axe_program *p, const char *init);
void axe__emit_mesh_timing(ax_text *t, const char *idle);

#endif
