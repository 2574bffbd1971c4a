/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's IR (backend-neutral) and the interfaces between its
 * passes: arena -> lexer/parser (compiler_lex.c, compiler_parse*.c) ->
 * semantic checks (compiler_sema.c) -> dispatch (compiler_dispatch.c,
 * plans from compiler_plan.c) -> emitters (compiler_emit_c*.c) and the
 * reference interpreter (compiler_ref.c). Every node lives in the
 * program's arena. Invariants after sema: integer expressions have only
 * constant divisors, every tensor reference names a declared tensor with
 * a region inside it, every layout admits its tensor's shape.
 */
#ifndef AXE_COMPILER_INTERNAL_H
#define AXE_COMPILER_INTERNAL_H

#include <stdarg.h>

#include "axe/kernel.h"
#include "axe/layout.h"
#include "core_internal.h"

#define AX_MAX_DIMS AXE_KERNEL_MAX_DIMS
#define AX_MAX_ARGS 4
#define AX_MAX_TENSORS 32
#define AX_MAX_VARS 64
#define AX_MAX_LOOPS 24
#define AX_MAX_SCHEDS 4
#define AX_MAX_SCALARS 16
/* A device mesh (docs/compiler.md, "Distributed tensors"): axes and
 * devices. */
#define AX_MAX_MESH_AXES 4
#define AX_MAX_DEVICES 1024
/* A device gemm's most chunks (chunks(N): one MPI tag per chunk). */
#define AX_MAX_GEMM_CHUNKS 1024
/* Loops around device operators are unrolled at parse time
 * (compiler_parse_devblock.c): at most this many device operators in the
 * unrolled program, and this many statements parsed inside such loops
 * and ifs (every copy of a body, dropped branches too). */
#define AX_MAX_DEVOPS 256
#define AX_MAX_UNROLL 16384
/* Nesting limits of the front end (docs/compiler.md, "Limits"): every
 * pass that walks expressions or blocks recursively stays this deep. */
#define AX_MAX_EXPR_DEPTH 256
#define AX_MAX_BLOCK_DEPTH 64
/* Resource limits of one CTA (an H100's): shared memory per CTA (227
 * KiB) and registers per thread (255 of 32 bits), in bytes. */
#define AX_MAX_SHARED_BYTES (227 * 1024)
#define AX_MAX_REGISTER_BYTES (255 * 4)

/* ---- arena ---------------------------------------------------------------
 */

typedef struct ax_arena ax_arena;
ax_arena *axe__arena_new(const axe_allocator *alloc);
void axe__arena_free(ax_arena *a);
/* The allocator the arena was made with (a second program of the same
 * caller uses it too: layout synthesis's probe compile). */
axe_allocator axe__arena_allocator(const ax_arena *a);
/* Zeroed memory, or NULL when the allocator fails. */
void *axe__arena_alloc(ax_arena *a, size_t size);

/* A growable text in an arena with a sticky status (ISL printer). */
typedef struct ax_text {
    ax_arena *arena;
    char *buf;
    size_t len, cap;
    axe_status status;
} ax_text;
void axe__text_init(ax_text *t, ax_arena *a);
void axe__text_put(ax_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void axe__text_vput(ax_text *t, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* "b"'s text into "t", each non-empty line indented 4 more spaces (b's
 * failure is t's). */
void axe__text_put_indented(ax_text *t, const ax_text *b);

/* ---- expressions ---------------------------------------------------------
 */

typedef enum ax_ex_kind {
    AX_EX_INT,
    AX_EX_VAR,
    AX_EX_ADD,
    AX_EX_SUB,
    AX_EX_MUL,
    AX_EX_DIV,
    AX_EX_MOD,
    AX_EX_NEG,
    AX_EX_LOAD /* an element of an integer tensor ("load") */
} ax_ex_kind;

/* Variables: the builtin ids first (see ax_builtin), then loop vars. */
typedef enum ax_builtin {
    AX_VAR_BX,
    AX_VAR_BY,
    AX_VAR_BZ,
    AX_VAR_TX,
    AX_VAR_LANEID,
    AX_VAR_WARPID,
    AX_VAR_WGID,
    AX_VAR_TID_IN_WG,
    AX_VAR_WID_IN_WG,
    AX_VAR_NBUILTIN
} ax_builtin;

typedef struct ax_expr {
    ax_ex_kind kind;
    int64_t value;       /* INT */
    int var;             /* VAR */
    struct ax_ref *load; /* LOAD: the element (a region of length 1) */
    struct ax_expr *a, *b;
    long off;
    int depth; /* nodes on the longest path to a leaf (a leaf: 1) */
} ax_expr;

/* ---- tensors -------------------------------------------------------------
 */

typedef enum ax_mem { AX_MEM_GLOBAL, AX_MEM_SHARED, AX_MEM_REGISTER } ax_mem;

/* The scratchpad of a shared-class tensor of a core kernel (`sbuf`,
 * `psum`; docs/compiler.md, "The accelerator model"), AX_SPACE_NONE for
 * every other tensor. */
typedef enum ax_space { AX_SPACE_NONE, AX_SPACE_SBUF, AX_SPACE_PSUM } ax_space;

typedef enum ax_scope {
    AX_SCOPE_KERNEL,
    AX_SCOPE_CTA,
    AX_SCOPE_WARPGROUP,
    AX_SCOPE_WARP,
    AX_SCOPE_THREAD
} ax_scope;

typedef struct ax_tensor {
    char name[AXE_KERNEL_NAME_MAX];
    char cname[AXE_KERNEL_NAME_MAX + 2]; /* in generated C: t_NAME */
    ax_mem mem;
    axe_dtype dtype;
    int ndim;
    int64_t shape[AX_MAX_DIMS];
    axe_layout layout;
    /* After sema: grouped layout and its per-dim iter blocks. */
    axe_layout grouped;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    bool distributed;    /* register layout with thread axes */
    ax_scope owner;      /* scope whose threads share a distributed tensor */
    int64_t span;        /* elements of storage (per thread for registers) */
    bool written, param; /* written by an operator; a kernel parameter */
    /* `layout auto`: the synthesis pass (compiler_synth.c) chose
     * "layout" (register and shared tensors only). */
    bool autolayout;
    /* A register tensor of 16-bit elements held two to a 32-bit word,
     * element i in bits 16 (i % 2) of word i / 2 (the backend's prepare
     * hook decides; CUDA: compiler_cuda_words.c). */
    bool words16;
    /* A runtime extent of dim 0 (global, row-major tensors only): an
     * expression of runtime scalars; shape[0] then holds its largest
     * value over every i32 value of the scalars ("nominal", so that the
     * layout, its strides and the span bound hold for every launch). */
    const struct ax_expr *dyn_extent;
    /* A distributed tensor (a global param of a mesh program whose layout
     * has gpuid iters or offset; compiler_sema_dist.c): its logical shape
     * "gshape", its declared layout "glayout" and its logical elements
     * "gsize". Sema then makes shape, layout, grouped and span the
     * device's local shard (the contract's local-shard view): per
     * dimension the dimension's m iters in order, plus the m offset. */
    /* An sbuf or psum tensor (mem is AX_MEM_SHARED: per-core scratch):
     * its declared layout over P and F (and Bank, psum) "playout", the
     * partitions [0, parts) and the free elements [0, fspan) per
     * partition it reaches; sema (compiler_sema_trn.c) then makes
     * "layout" the partition-major storage layout on m, P stride s
     * becoming s * fspan, so that every pass sees a shared tensor. */
    ax_space space;
    axe_layout playout;
    int64_t parts, fspan;
    bool dist;
    int64_t gshape[AX_MAX_DIMS];
    axe_layout glayout;
    int64_t gsize;
    long off;
} ax_tensor;

/* A view `A.view(layout)`: the layout's shard is the view's shape (one dim
 * per shard iter), its memory offset may be dynamic ("dyn"). */
typedef struct ax_ref {
    int tensor;
    int ndim;
    ax_expr *start[AX_MAX_DIMS]; /* NULL: 0 */
    int64_t len[AX_MAX_DIMS];
    bool is_view;
    axe_layout view;
    ax_expr *view_dyn;
    int bdim;     /* `.bcast(bdim, bext)`: operand dim of stride 0, or -1 */
    int64_t bext; /* its extent */
    /* `start : +len masked FILL`: the dimension may pass its tensor's
     * extent (either side); elements outside read "fill", writes there
     * are skipped. */
    bool masked[AX_MAX_DIMS];
    bool any_masked;
    double fill;
    long off;
} ax_ref;

/* Operand dims (the region's, plus a broadcast dim), an operand dim's
 * extent, and the tensor dim of an operand dim (-1 for the broadcast). */
static inline int axe__ref_ndim(const ax_ref *r)
{
    return r->ndim + (r->bdim >= 0);
}
static inline int axe__ref_tdim(const ax_ref *r, int d)
{
    if (r->bdim < 0 || d < r->bdim)
        return d;
    return d == r->bdim ? -1 : d - 1;
}
static inline int64_t axe__ref_len(const ax_ref *r, int d)
{
    int td = axe__ref_tdim(r, d);
    return td < 0 ? r->bext : r->len[td];
}

/* ---- statements ----------------------------------------------------------
 */

typedef enum ax_op {
    AX_OP_COPY,
    AX_OP_FILL,
    AX_OP_ADD,
    AX_OP_SUB,
    AX_OP_MUL,
    AX_OP_DIV,
    AX_OP_MAX,
    AX_OP_MIN,
    AX_OP_NEG,
    AX_OP_RELU,
    AX_OP_EXP,
    AX_OP_CAST,
    AX_OP_REDUCE,
    AX_OP_SQRT,
    AX_OP_GEMM,
    AX_OP_ATOMIC_ADD,
    /* unary math (float; abs also integer) and pow (compiler_math.h) */
    AX_OP_LOG,
    AX_OP_LOG2,
    AX_OP_EXP2,
    AX_OP_TANH,
    AX_OP_ERF,
    AX_OP_RSQRT,
    AX_OP_ABS,
    AX_OP_SIGMOID,
    AX_OP_SILU,
    AX_OP_GELU,
    AX_OP_GELU_TANH,
    AX_OP_POW,
    /* masks inside tiles: iota, comparisons into i8 predicates, select */
    AX_OP_IOTA,
    AX_OP_LT,
    AX_OP_LE,
    AX_OP_GT,
    AX_OP_GE,
    AX_OP_EQ,
    AX_OP_NE,
    AX_OP_SELECT
} ax_op;
/* The last operator (the options name them in this order). */
#define AX_OP_LAST AX_OP_SELECT

/* The combining function of a reduce. */
typedef enum ax_red {
    AX_RED_SUM,
    AX_RED_MAX,
    AX_RED_MIN,
    AX_RED_ARGMAX,
    AX_RED_ARGMIN
} ax_red;
/* argmax and argmin: an i32 index of the reduced dimension. */
static inline bool axe__red_is_arg(ax_red r)
{
    return r == AX_RED_ARGMAX || r == AX_RED_ARGMIN;
}

/* A scalar source operand (docs/compiler.md, "Scalar operands") of an
 * elementwise binary operator, pow, a comparison or select: a literal (an
 * integer, a number with a fraction or exponent, +-inf, or a param's
 * value), a runtime scalar or a kept device loop's variable, broadcast
 * over the region. It is no tensor
 * operand: "args" holds the tensor operands only, in source order, so
 * plans, vectorization and the race detector never see it. */
typedef enum ax_sop_kind {
    AX_SOP_NONE, /* a tensor operand (in args) */
    AX_SOP_INT,  /* an integer literal or a param */
    AX_SOP_FLOAT,
    AX_SOP_SCALAR, /* a runtime scalar */
    AX_SOP_KEPT    /* a kept device loop's variable (an i32 value) */
} ax_sop_kind;

typedef struct ax_sop {
    ax_sop_kind kind;
    double value; /* INT, FLOAT: the literal as written */
    int scalar;   /* SCALAR: the runtime scalar's index; KEPT: the var */
    long off;
} ax_sop;

typedef enum ax_st_kind {
    AX_ST_OP,
    AX_ST_FOR,
    AX_ST_SYNC,
    AX_ST_IF,
    /* A device-scope operator (`device copy`, `device reduce`, `device
     * gemm`): op is AX_OP_COPY, AX_OP_REDUCE (rkind sum, max or min;
     * rdim) or AX_OP_GEMM (args[1] A, args[2] B; compiler_dist_gemm.c),
     * args[0] the destination and args[1] the source (distributed
     * tensors, whole or a region whose starts the parser folded to
     * constants: "tensor", and "ndim", "start", "len" for a region; sema
     * makes its operand record, "dop"), index its number among the device
     * operators (p->devops). Only at the top level of the kernel body or
     * of a kept device loop's body or kept if's branch (other loops and
     * ifs around device operators are unrolled and folded by the parser);
     * every pass over
     * operators (p->ops) skips it. */
    AX_ST_DEVICE
} ax_st_kind;

/* A condition `lhs cmp rhs` (cmp: 0 <, 1 <=, 2 >, 3 >=, 4 ==, 5 !=); a
 * guard is a condition that must hold (or fail, "negate") for the
 * statements under an `if` / `else`, chained to the enclosing guards. */
typedef struct ax_guard {
    const struct ax_expr *lhs, *rhs;
    int cmp;
    bool negate;
    const struct ax_guard *up;
} ax_guard;
bool axe__guard_holds(const ax_guard *g, const int64_t *env);

/* An mma atom fragment: row-major tile index -> (lane, value). A lane
 * holds at most AX_FRAG_MAX / 32 values, so at most AX_FRAG_MAX_REGS
 * 32-bit registers of them (one value or more each). */
#define AX_FRAG_MAX 512
#define AX_FRAG_MAX_REGS (AX_FRAG_MAX / 32)
typedef struct ax_frag {
    int64_t shape[2];
    int64_t nvals;
    uint8_t lane[AX_FRAG_MAX], val[AX_FRAG_MAX];
} ax_frag;

/* gemm.mma_atom: the atom's fragments (0 A, 1 B, 2 C), the atom tile
 * counts (MI, NI, KI) and, per operand, the storage offset of every atom
 * tile (A: MI x KI, B: NI x KI, C: MI x NI, row-major). */
#define AX_MMA_SHAPES 4        /* atoms per dtype combination, at most */
#define AX_MMA_MAX_WARPS 32    /* warps of a gemm's scope (1024 threads) */
#define AX_MMA_SHAPES_TEXT 384 /* ax_mma.shapes */
/* The points of one element of a register operand that mma_reg_a and
 * mma_reg_b check (axe__mma_reg_values): one lane of each warp at most. */
#define AX_MMA_MAX_POINTS AX_MMA_MAX_WARPS
typedef struct ax_mma {
    const char *atom;
    ax_frag frag[3];
    int64_t tiles[3];
    int64_t *offset[3];
    char outer[3][128];
    bool from_memory; /* gemm.mma_smem: A and B in memory, C's plan */
    /* The operand in registers, as its argument number: 1 A
     * (gemm.mma_reg_a: from_memory too, B in memory, C's plan, A a
     * register tile of the A fragment held by the warps of C's rows), 2 B
     * (gemm.mma_reg_b: the mirror, B a register tile of the B fragment
     * held by the warps of C's columns, A in memory), 0 none; its
     * fragment, outer layout and offsets are those of index reg - 1. */
    int reg;
    /* gemm.mma_reg_a (mma_reg_b): the register of value v of A's (B's)
     * atom tile (i, k), regs[o][(i * KI + k) * nvals + v] (o = reg - 1;
     * compiler_mma_regs.c), and whether it is not offset[o][i * KI + k] +
     * v (the registers in another order than the atom's: "perm", with no
     * outer layout). */
    int64_t *regs[2];
    bool perm[2];
    /* gemm.mma_smem: the atom's M, N, K, the axis that numbers the scope's
     * warps (NULL at warp scope) and the warp that holds each C atom tile
     * (MI x NI, row-major). */
    int64_t mnk[3];
    const char *warp;
    int64_t *owner;
    /* gemm.mma_smem, gemm.mma_reg_a: the atoms of the dtypes weighed, the
     * chosen first (compiler_mma.c, --explain, axe synth) */
    char shapes[AX_MMA_SHAPES_TEXT];
    /* the same as data: [0] the chosen shape ("m16n8k16"), [1] the
     * runner-up ("": none), each's cost and warp 0's mma.sync count;
     * room for "f32 FMA " before an 8-character shape */
    char shape[2][24];
    double shape_cost[2];
    int64_t shape_mmas[2];
} ax_mma;

struct ax_plan;
struct ax_dist_memo;

/* reduce.tree: the shared scratch (a tensor index), its elements per
 * scope instance ("size"), the reduced dim's extent "n" and its stride
 * in the scratch "inner" (the product of the extents after it). */
typedef struct ax_tree {
    int scratch;
    int64_t size, n, inner;
} ax_tree;

typedef struct ax_stmt {
    ax_st_kind kind;
    long off;
    int line; /* 1-based line of "off" (op statements) */
    /* Operator statements (OP, DEVICE): their place in execution order
     * among both kinds (unrolled copies share "off"), and the values of
     * the enclosing unrolled device loops' variables ("k = 1, j = 0";
     * NULL outside them). */
    int seq;
    const char *iter;
    struct ax_stmt *next;
    /* OP */
    ax_op op;
    ax_scope scope;
    int nargs; /* refs: args[0] is the destination */
    ax_ref args[AX_MAX_ARGS];
    /* By operand position in the source (0, the destination, is always a
     * tensor): the scalar source operands; "nsops" of them. */
    ax_sop sop[AX_MAX_ARGS];
    int nsops;
    double imm;               /* fill value */
    int fscalar;              /* fill: 1 + the runtime scalar that gives
                                 the value instead of imm (0: imm) */
    int rdim;                 /* reduce: the reduced dim of the source */
    ax_red rkind;             /* reduce: the combining function */
    bool rearrange;           /* `rearrange(dst, src)`: a copy between
                                 two distributed registers that dispatch
                                 always stages through shared memory
                                 (copy.smem) */
    bool tf32;                /* gemm(C, A, B, tf32): A and B rounded to
                                 tf32 (axe_tf32_round) before each product */
    long tf32_off;            /* gemm: the offset of its tf32 option */
    int chunks;               /* device gemm: chunks(N), 0 when absent */
    long chunks_off;          /* its offset */
    int idim;                 /* iota: the dim whose coordinate it writes */
    const ax_expr *istart;    /* iota: the start added to the coordinate */
    struct ax_stmt *stage[2]; /* reduce.smem: stage to shared, reduce it */
    const ax_tree *tree;      /* reduce.tree: the steps between the stages */
    ax_mma *mma;              /* gemm.mma_atom */
    const ax_guard *guard;    /* enclosing if conditions (after sema) */
    /* Sema found that "guard" holds for no value of the ids and loop
     * variables: type-checked, not bounds-checked, not dispatched (plan
     * NULL, schedule "dead"), not emitted; "dead_why" says why. */
    bool dead;
    const char *dead_why;
    /* A note for the user (axe_program_note): a gemm that fell back to
     * scalar FMA. */
    const char *note;
    /* The operator updates its destination with atomic read-modify-writes
     * (atomic_add; a kernel-scope reduce or gemm whose K range dispatch
     * split over threads): its destination accesses do not race with
     * other atomic ones (compiler_race.c). Set by sema and dispatch. */
    bool atomic;
    /* copy.vector from global to shared memory whose vector accesses
     * the backend makes asynchronous (its "async_copy" instructions, e.g.
     * cp.async); set by the CUDA emitter on its copy of the statement. */
    bool async_copy;
    struct ax_grid *grid;      /* reduce.grid, gemm.split_k */
    struct ax_trn_mm *trn;     /* gemm.tensor_engine */
    struct ax_trn_copy *tcopy; /* copy.dma, copy.vector of a core kernel */
    int tengine; /* OP.vector, OP.scalar of a core kernel: AX_TRN_ENG_* */
    int nmasks;  /* reduce.warp_shuffle: butterfly lane masks */
    int64_t masks[5];
    /* IF: the condition (in "cond", with negate false) and the branches */
    ax_guard cond;
    struct ax_stmt *else_body;
    int index; /* operator number in source order */
    const char *schedule;
    struct ax_plan *plan;
    char *explain;
    /* DEVICE, after sema (compiler_sema_dist.c): operand i's record when
     * it is a region (NULL: the whole tensor), and its text ("B[0:4, 0:16]",
     * NULL: the tensor's name); read them through axe__devop_tensor and
     * axe__devop_text. */
    struct ax_tensor *dop[AX_MAX_ARGS];
    const char *dtext[AX_MAX_ARGS];
    /* DEVICE gemm: its plan, made at the first axe__dist_gemm after sema
     * (in the program's arena, compiler_dist_gemm.c); NULL before. */
    struct ax_dist_memo *dgemm;
    /* FOR */
    int var;
    int64_t trip;                /* constant, or the largest runtime trip */
    const struct ax_expr *dtrip; /* a runtime trip count (scalars only) */
    struct ax_stmt *body;
    bool has_sync;
    /* FOR, IF: a device block kept as a loop (a runtime trip count) or
     * an if (a runtime condition, in "cond"), its body holding device
     * operators; at the top level or in another kept block's body:
     * compiler_parse_devblock.c, docs/compiler.md "Device operators in
     * loops and ifs". */
    bool kept;
    /* A segment boundary (compiler_segments.c): 1 + the number of the
     * run after it, of its body and of its else branch; 0: none. */
    int seg[3];
} ax_stmt;

/* After an operator's line in generated comments, "(line %d%s%s)":
 * ", " and s->iter (the values of the enclosing unrolled device loops,
 * the kept blocks around it: "k = 1"), or "" and "" outside them. */
static inline const char *axe__iter_sep(const ax_stmt *s)
{
    return s->iter != NULL ? ", " : "";
}
static inline const char *axe__iter(const ax_stmt *s)
{
    return s->iter != NULL ? s->iter : "";
}

/* Scalar operands (compiler_sop.c). The index in "args" of the operand
 * at source position "pos", or -1 when it is a scalar (without scalars
 * the two are equal). */
int axe__operand_arg(const ax_stmt *s, int pos);
/* The number of operand positions of "s" (its tensors and scalars). */
int axe__operand_count(const ax_stmt *s);
/* The dtype a scalar operand of "s" converts to: the other operands'
 * (a comparison's tensor source, else the destination's). */
axe_dtype axe__sop_dtype(const axe_program *p, const ax_stmt *s);
/* The scalar operand at "pos" as written ("eps", "0.125", "-inf"),
 * snprintf-style into "buf". */
void axe__sop_text(const axe_program *p, const ax_sop *o, char *buf,
                   size_t cap);
/* Sema of the scalar operands of "s": at least one tensor source, and
 * each scalar converts to the operands' dtype (docs: a float scalar or
 * literal into an integer operator, an i32 scalar into an i8 one, an
 * integer literal outside the dtype's range, a finite literal beyond its
 * largest finite value are errors). */
axe_status axe__sop_check(const axe_program *p, const ax_stmt *s,
                          axe_diag *diag);

/* ---- plans (backend-neutral schedules) ------------------------------------
 */

/* One digit of the iteration space, outer to inner: a loop, or a digit of
 * the thread's rank in the operator's scope ((rank / rank_div) % extent).
 * The digit adds digit * weight to coordinate "dim" and digit * stride[i]
 * to operand i's address when operand i is affine. */
typedef struct ax_loop {
    int64_t extent;
    bool thread;
    int64_t rank_div;
    int dim;
    int64_t weight;
    int64_t stride[AX_MAX_ARGS];
} ax_loop;

typedef enum ax_plan_kind {
    AX_PLAN_SERIAL, /* one thread runs every element (thread scope) */
    AX_PLAN_BOUND,  /* a distributed register binds elements to threads */
    AX_PLAN_SPLIT   /* elements dealt round-robin to the scope's threads */
} ax_plan_kind;

/* How a plan's loops are laid out (copy.vector's choice,
 * compiler_plan_vec.c): the operator's dimensions outer first ("dim"),
 * each dimension's sub-iters outer to inner, except the "nsub" sub-iters
 * taken out of their dimensions and laid out innermost (outer first:
 * sub-iter k is dimension sub_dim[k]'s of weight sub_weight[k] and extent
 * sub_extent[k]), the run of sub-iters contiguous in both operands. The
 * identity (dimension order, none taken out) is every other plan's. */
typedef struct ax_plan_order {
    int dim[AX_MAX_DIMS];
    int nsub;
    int sub_dim[AX_MAX_LOOPS];
    int64_t sub_weight[AX_MAX_LOOPS];
    int64_t sub_extent[AX_MAX_LOOPS];
} ax_plan_order;

/* copy.vector's choice by the bank model (compiler_plan_vec.c): the
 * candidate plans weighed ("candidates", 0: not a vector copy), the
 * chosen one's wavefronts and largest ways on the shared side, and the
 * same of the first widest candidate (what width alone chooses) with its
 * width; "blind": the model could not count the accesses, the widest
 * won. */
typedef struct ax_plan_bank {
    int candidates, ways, widest_ways;
    int64_t wavefronts, widest_wavefronts, widest;
    bool blind;
} ax_plan_bank;

typedef struct ax_plan {
    ax_plan_kind kind;
    int binding; /* operand that binds (BOUND), else -1 */
    int nloops;
    ax_loop loops[AX_MAX_LOOPS];
    bool affine[AX_MAX_ARGS];
    /* operand i's tensor is swizzled: its address (affine or from
     * coordinates) is a tile address, mapped through the swizzle */
    bool swizzled[AX_MAX_ARGS];
    /* The order its loops are laid out in; a split plan deals its chunks
     * in it (axe__plan_permuted: not the identity). */
    ax_plan_order order;
    ax_plan_bank bank;
    int64_t vec;      /* elements per access of the innermost loop */
    int64_t total;    /* product of the non-thread loop extents */
    int64_t nthreads; /* threads of one scope instance */
    /* A copy's ldmatrix choice, made at dispatch where ldmatrix is legal
     * (compiler_copy_ldsm.h, in the program's arena); NULL otherwise. */
    const struct ax_ldsm *ldsm;
    /* A copy that is a candidate for ldmatrix where it is not legal: why
     * (compiler_copy_ldsm.h, in the program's arena); NULL otherwise. */
    const char *ldsm_why;
    /* Emission only: 1 + the loop whose digit is written ax_i<k> +
     * ax_v<k> (the element loop of a vector chunk that is partly outside
     * a masked operand, compiler_emit_op.c); 0 otherwise. */
    int lane;
    /* 1 + the loop whose digits 2m and 2m + 1 store the two nibbles of
     * one byte of a packed i4 destination, stored whole by one thread
     * (axe__i4_plan_pair; the loop runs in steps of 2); 0: every i4
     * element is stored alone (read, replace the nibble, write). At
     * emission, also the two f16 halves of one 32-bit word of a words16
     * register computed at once (axe__half2_pair). */
    int pair;
    /* Emission only: 1 + the loop whose digit is written ax_i<k> + 1L
     * (the high nibble of such a byte); 0 otherwise. */
    int next;
} ax_plan;

/* The common refinement of a dimension's iters (compiler_refine.c):
 * insert one boundary "v", or the inner products of "it" (n iters, outer to
 * inner) into the sorted, distinct boundaries b[0 .. *nb) (capacity "cap";
 * false, "b" partly changed, when they do not fit); the first i whose b[i] does
 * not divide b[i + 1] (-1: a divisibility chain, a refinement); the iter of
 * "it" holding the sub-iter at weight "w" and, in "*lo", the weight its
 * own digit starts at (NULL when w is beyond the iters). */
bool axe__bounds_insert(int64_t *b, int *nb, int cap, int64_t v);
bool axe__bounds_add(int64_t *b, int *nb, int cap, const axe_iter *it, int n);
int axe__bounds_break(const int64_t *b, int nb);
const axe_iter *axe__iter_at(const axe_iter *it, int n, int64_t w, int64_t *lo);
/* The plan of "s" of kind "kind" (binding operand for BOUND); otherwise
 * AXE_ERR_UNSUPPORTED and why in "why" (compiler_plan.c). */
/* Whether some operand of "s" is masked in dimension "od" of the
 * operator's shape (its bounds guard reads that coordinate). */
bool axe__stmt_masked_dim(const ax_stmt *s, int od);
axe_status axe__plan_build(const axe_program *p, const ax_stmt *s,
                           ax_plan_kind kind, int binding, ax_plan *out,
                           axe_diag *why);
/* The same without operand "skip" (not affine, no strides, no ownership
 * check): gemm.mma_reg_a's register A (mma_reg_b's B), whose fragment the
 * schedule exchanges itself. */
axe_status axe__plan_build_skip(const axe_program *p, const ax_stmt *s,
                                ax_plan_kind kind, int binding, int skip,
                                ax_plan *out, axe_diag *why);
/* The plan of "s" of "like"'s kind and binding with its loops laid out
 * in the dimension order "order" (outer first) and, with "run_inner",
 * the run of sub-iters contiguous in both operands taken innermost
 * (axe__plan_run_inner), for copy.vector's choice of the vector. */
axe_status axe__plan_build_order(const axe_program *p, const ax_stmt *s,
                                 const ax_plan *like, const int *order,
                                 bool run_inner, ax_plan *out, axe_diag *why);
/* Whether "plan"'s loops are laid out in another order than the identity
 * (its order names a dimension out of place or a sub-iter taken out). */
bool axe__plan_permuted(const ax_plan *plan);
/* Before the merge of contiguous loops: take the sub-iters of "plan"
 * that make up the longest run of elements contiguous in both operands
 * (max_common_layout of their per-thread layouts) out of their
 * dimensions and lay them out innermost, fastest first, recording them in
 * plan->order (nothing when they already are innermost, or an operand is
 * not affine). */
void axe__plan_run_inner(ax_plan *plan);
/* The memory stride (absolute) of operand "r"'s innermost iter in the
 * operator's dimension "d" that is not a thread digit, INT64_MAX when it
 * has none that moves (after sema). */
int64_t axe__ref_inner_stride(const axe_program *p, const ax_ref *r, int d);
/* A region cut inside a tensor dimension of several iters (outer to
 * inner E_0 .. E_n, strides S_i, P_i the product of the extents inside
 * iter i; docs/compiler.md "Regions of a dimension of several iters"):
 * [a, a + len) is the iters (m : S_k, E_k+1 .. E_n) when len = m P_k with
 * m dividing E_k and the region within one run of iter k: a constant a a
 * multiple of P_k with a / P_k mod E_k + m <= E_k, its offset a's digits
 * times their strides ("cst"); a dynamic a = D + c (c its constant
 * terms, D's terms multiples of g) with P_k dividing g and c and (c / P_k
 * mod h) + m <= h, h = gcd(g / P_k, E_k) (so the region stays within one
 * run of iter k for every D), its offset a times "scale" = S_k / P_k,
 * which needs the iters outside iter k to be one compact run over it
 * (S_i = E_i+1 S_i+1) and P_k to divide S_k. axe__region_cut:
 * true with the cut of tensor dim "td" of "r"; false when "td" is not
 * such a region (whole, one iter, a view: "why" empty) or the region
 * does not align ("why" the reason). */
typedef struct ax_cut {
    int n;
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    int64_t cst, scale;
    char why[200];
} ax_cut;
bool axe__region_cut(const axe_program *p, const ax_ref *r, int td, ax_cut *c);
/* The reason an operand of "s" is not affine when a region of it is cut
 * off its iters ("'X' dimension 0: ..."); false (nothing written) when
 * none is. */
bool axe__region_cut_refusal(const axe_program *p, const ax_stmt *s, char *buf,
                             size_t cap);
/* The dimension orders copy.vector tries for "s" (after the identity):
 * each dimension moved innermost, and the dimensions sorted by the
 * destination's and by the source's strides (largest outer); at most
 * AX_MAX_DIMS + 2 of them into "orders", their number returned. */
int axe__plan_orders(const axe_program *p, const ax_stmt *s,
                     int orders[][AX_MAX_DIMS]);
/* The pointwise schedules' predicates (compiler_dispatch.c) and the
 * reduce schedules (compiler_reduce.c); "commit" keeps what a chosen
 * predicate built. */
axe_status axe__sched_thread_loop(const axe_program *p, const ax_stmt *s,
                                  ax_plan *plan, axe_diag *why);
axe_status axe__sched_split(const axe_program *p, const ax_stmt *s,
                            ax_plan *plan, axe_diag *why);
axe_status axe__reduce_thread_loop(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit);
axe_status axe__reduce_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit);
axe_status axe__reduce_tree(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit);
axe_status axe__reduce_warp_shuffle(axe_program *p, ax_stmt *s, ax_plan *plan,
                                    axe_diag *why, bool commit);
axe_status axe__copy_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                          axe_diag *why, bool commit);
axe_status axe__gemm_mma(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit);
/* Grid-scope work (compiler_grid.c): a kernel-scope reduce (reduce.grid)
 * or gemm (gemm.split_k) combines into its destination's contents. Its
 * work items are the destination's elements ("cells", row-major over the
 * operator's dims other than "kdim", the reduced dim: K of a gemm) times
 * "nchunk" chunks of "chunk" consecutive coordinates of kdim ("len" in
 * all; the last chunk may be shorter). Item u = j * cells + cell (chunk
 * j) goes to grid rank u mod "threads", which folds its chunk in order
 * into a partial and combines that into the element: by an atomic when
 * nchunk > 1 (the statement's "atomic"), else by plain read-modify-writes
 * (one thread owns each element). */
typedef struct ax_grid {
    int kdim;
    int64_t cells, len, chunk, nchunk, threads;
} ax_grid;
axe_status axe__reduce_grid(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit);
axe_status axe__gemm_split_k(axe_program *p, ax_stmt *s, ax_plan *plan,
                             axe_diag *why, bool commit);
/* The storage address of an engine operand region's first element
 * (compiler_trn_region.c): cst + sum_j scale[j] * ((start[j] - at[j]) /
 * step[j]) for j < n, each division exact for every value start[j] takes
 * (at[j] its least, step[j] the gcd of its values' differences). */
typedef struct ax_trn_origin {
    int64_t cst;
    int n;
    const ax_expr *start[2];
    int64_t at[2], step[2], scale[2];
} ax_trn_origin;
/* "o" as a C expression of type long in the loop variables (every
 * backend that runs gemm.tensor_engine adds it to the plan's
 * addresses). */
void axe__trn_origin_print_c(ax_text *t, const axe_program *p,
                             const ax_trn_origin *o);
/* gemm.tensor_engine (compiler_trn_gemm.c, docs/compiler.md "The
 * accelerator model"): a core kernel's gemm C += A B^T as TensorEngine
 * matmul instructions of "shape" (M, N, K) = (mi, ni, ki). Instruction q
 * reads A's K x M tile at storage address base[q][0] (row r of the tile,
 * contraction index k0 + r, in partition + r: + r * rstride[0]; column i
 * at + i * cstride[0]), B's K x N tile at base[q][1] likewise, and
 * accumulates into C's M x N tile at base[q][2] (row i: + i *
 * rstride[2], column j: + j * cstride[2]); its logical corner is
 * corner[q] = (m0, n0, k0). The addresses are relative to the operand
 * region's first element, at storage address origin[k] (a constant, or
 * moving with loop variables for a region whose start moves: a tile of
 * a multi-buffered tensor). Instructions run in order, K innermost, so
 * each element of C sums its products in the order of k. "why" holds
 * the --explain lines: regions, groups, intersections, shape, loop
 * nest. */
typedef struct ax_trn_mm {
    int64_t shape[3];
    int64_t rstride[3], cstride[3];
    int64_t ninst;
    int64_t (*base)[3];
    int64_t (*corner)[3];
    int64_t loops[3]; /* instructions along M, N and K */
    ax_trn_origin origin[3];
    const char *why;
} ax_trn_mm;
axe_status axe__gemm_tensor_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit);
/* C for a gemm.tensor_engine operator: its instruction table and one
 * matmul loop per instruction (compiler_trn_emit.c, the C backend). */
void axe__emit_trn_matmul_head(ax_text *t, const axe_program *p,
                               const ax_stmt *s, int ind);
void axe__emit_trn_matmul(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind);
/* The explanation lines of a dispatched gemm.tensor_engine. */
void axe__trn_describe(ax_text *t, const ax_stmt *s);
/* copy.dma and copy.vector of a core kernel (compiler_trn_copy.c,
 * docs/compiler.md "The accelerator model"): the copy's element pairs
 * (source, destination), each side a point (partition, free element) of
 * its scratchpad or (0, element address) of an HBM tensor, compressed in
 * the copy's logical order into descriptors. Descriptor d moves the
 * elements base + sum_l i_l * step_l for 0 <= i_l < n_l over its levels
 * (outermost first; a step is (dp_src, df_src, dp_dst, df_dst)); on a
 * scratchpad side at most one level moves the partition, and that level
 * keeps the free element (the partition count and stride of a DMA
 * descriptor); copy.vector keeps every element's partition. Invariant:
 * the descriptors' elements are exactly the copy's, each once
 * (tests/test_compiler_trn.c checks it by brute force). */
#define AX_TRN_LEVELS 4
#define AX_TRN_MAX_DESC 65536
typedef struct ax_trn_desc {
    int64_t base[4];                /* p_src, f_src, p_dst, f_dst */
    int nlev;                       /* levels, outermost first */
    int64_t n[AX_TRN_LEVELS];       /* each level's count */
    int64_t step[AX_TRN_LEVELS][4]; /* its step (as base) */
} ax_trn_desc;
/* A copy whose region starts read loop variables has one descriptor
 * list per combination of the values of those loops ("loop_var", of
 * constant trips "loop_trip", outermost first): combination c = sum_k
 * v_k * prod_{j > k} trip_j runs descriptors off[c] .. off[c + 1] - 1. */
#define AX_TRN_MAX_LOOPS 4
#define AX_TRN_MAX_COMBOS 4096
typedef struct ax_trn_copy {
    bool dma;       /* copy.dma (else copy.vector) */
    bool transpose; /* copy.transpose: TensorE matmuls against the identity,
                       one per descriptor (its levels K and M) */
    bool hbm[2];    /* source / destination in HBM (global) */
    int64_t ndesc;  /* descriptors, of every combination */
    ax_trn_desc *d; /* in the arena */
    int nloop;
    int loop_var[AX_TRN_MAX_LOOPS];
    int64_t loop_trip[AX_TRN_MAX_LOOPS];
    int64_t ncombo;  /* 1 without loops */
    int64_t *off;    /* ncombo + 1 */
    const char *why; /* --explain lines */
} ax_trn_copy;
/* The descriptors of copy "s" (plain regions, their starts evaluated
 * with the variables "env") into "out" (malloc'ed, *nout of them; the
 * caller frees); "vector": copy.vector's rules. AXE_ERR_UNSUPPORTED with
 * the reason when the copy has none under these rules. */
axe_status axe__trn_copy_descs(const axe_program *p, const ax_stmt *s,
                               const int64_t *env, bool vector,
                               ax_trn_desc **out, int64_t *nout, axe_diag *why);
axe_status axe__copy_dma(axe_program *p, ax_stmt *s, ax_plan *plan,
                         axe_diag *why, bool commit);
axe_status axe__copy_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                   axe_diag *why, bool commit);
/* copy.transpose: SBUF -> PSUM (f32) across partitions, each descriptor
 * a TensorE matmul of the source tile (K partitions x M free elements)
 * against the identity into an M x K tile of PSUM (compiler_trn_copy.c). */
axe_status axe__copy_transpose(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit);
/* The explanation lines of a dispatched copy.dma or copy.vector. */
void axe__trn_copy_describe(ax_text *t, const ax_stmt *s);
/* The point of element "c" (tensor coordinates) of "t": (partition, free
 * element) of a scratchpad, (0, address) of an HBM tensor. */
axe_status axe__trn_point(const ax_tensor *t, const int64_t *c, int64_t *pt);
/* The loops whose variables the region starts of "s" read into c's loop
 * fields: constant trips, at most AX_TRN_MAX_LOOPS and AX_TRN_MAX_COMBOS
 * values, and no other variable, runtime scalar or tensor element in a
 * start (the reason names the operand). */
axe_status axe__trn_loops(const axe_program *p, const ax_stmt *s,
                          ax_trn_copy *c, axe_diag *why);
/* Combination "q" of c's loops (mixed radix, outermost first) into
 * "env". */
void axe__trn_combo_env(const ax_trn_copy *c, int64_t q, int64_t *env);
/* The vector- and scalar-engine schedules of a core kernel
 * (compiler_trn_engine.c, docs/compiler.md "The accelerator model"):
 * OP.vector (fill as a memset; add, sub, mul, div, max, min), OP.scalar
 * (the unary math operators, cast, and add, sub, mul of a per-partition
 * column or a scalar: the activation), reduce.vector (sum, max, min
 * along F). Each keeps every element on its destination's partition and
 * builds the serial plan; the chosen one sets s->tengine. */
enum { AX_TRN_ENG_NONE, AX_TRN_ENG_VECTOR, AX_TRN_ENG_SCALAR };
axe_status axe__map_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                  axe_diag *why, bool commit);
axe_status axe__map_scalar_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                  axe_diag *why, bool commit);
axe_status axe__reduce_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                     axe_diag *why, bool commit);
/* The explanation lines of an operator on an engine schedule: the
 * engine's instruction, then the plan. */
void axe__trn_engine_describe(ax_text *t, const axe_program *p,
                              const ax_stmt *s);
/* "ADD", "MAX" or "MIN": the atomic that combines a partial of "s". */
const char *axe__grid_combine(const ax_stmt *s);
/* The grid rank that handles coordinate "c" of the operator's shape. */
int64_t axe__grid_rank(const ax_grid *g, const ax_stmt *s, const int64_t *c);
/* C for a reduce.grid or gemm.split_k operator (compiler_grid_emit.c). */
void axe__emit_grid(ax_text *t, const axe_program *p, const ax_stmt *s,
                    int ind);
/* A line of --explain: how the work is split and combined. */
void axe__grid_describe(ax_text *t, const axe_program *p, const ax_stmt *s);
axe_status axe__gemm_mma_smem(axe_program *p, ax_stmt *s, ax_plan *plan,
                              axe_diag *why, bool commit);
axe_status axe__gemm_mma_reg_a(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit);
axe_status axe__gemm_mma_reg_b(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit);
/* The register operand "t" of gemm.mma_reg_a or mma_reg_b (operand 'A'
 * or 'B': "op") over the atom fragment "f", by evaluation: the register
 * of each value of each atom tile in *regs, the warps of each tile in
 * *held (compiler_mma_regs.c). */
axe_status axe__mma_reg_values(ax_arena *ar, const ax_tensor *t,
                               const ax_frag *f, const char *warp, char op,
                               int64_t **regs, uint64_t **held, axe_diag *why);
/* Whether gemm "s"'s schedule reads other lanes' registers (mma_atom,
 * mma_reg_a, mma_reg_b), so that the C backend runs it between two
 * barriers. */
static inline bool axe__mma_reads_lanes(const ax_stmt *s)
{
    return s->mma != NULL && (!s->mma->from_memory || s->mma->reg != 0);
}
/* The schedule name of a gemm.mma_smem-like "m" (from_memory):
 * "mma_smem", "mma_reg_a" or "mma_reg_b". */
static inline const char *axe__mma_smem_name(const ax_mma *m)
{
    static const char *const name[] = {"mma_smem", "mma_reg_a", "mma_reg_b"};
    return name[m->reg];
}
/* The tensor-core atom for gemm "s"'s dtypes with the smallest K (name,
 * (M, N, K)), if any, and its fragments with their 2-D shapes for
 * --explain (compiler_mma.c). */
bool axe__mma_atom_of(const axe_program *p, const ax_stmt *s, const char **name,
                      int64_t *mnk);
void axe__mma_describe(ax_text *t, const axe_program *p, const ax_stmt *s);
/* For --explain: the register operand of gemm.mma_reg_a or mma_reg_b
 * whose registers are in another order than the atom's (ax_mma.perm):
 * where atom tile (0, 0)'s values sit (compiler_mma_regs.c). */
void axe__mma_describe_regs(ax_text *t, const axe_program *p, const ax_stmt *s);
/* C for a gemm.mma_atom operator and for a gemm.mma_smem one
 * (compiler_mma_emit.c). */
void axe__emit_mma(ax_text *t, const axe_program *p, const ax_stmt *s, int ind);
void axe__emit_mma_smem(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind);
/* A plan of "s" that makes two threads of one instance store different
 * nibbles of one byte of its packed i4 destination (global or shared):
 * AXE_ERR_UNSUPPORTED, the tensor and both threads named in "why"
 * (compiler_i4.c). */
axe_status axe__i4_plan_check(const axe_program *p, const ax_stmt *s,
                              const ax_plan *plan, axe_diag *why);
/* Sets plan->pair when each thread of a per-thread loop plan or a split
 * plan of copy or cast "s" into packed i4 holds both elements of every
 * byte it stores along one loop: a loop of even extent at destination
 * stride 1, every other stride and the base address even, no operand
 * masked, one element per access (compiler_i4.c). On a split plan (its
 * pair loop innermost) it also deals the pairs whole, which changes the
 * thread of each element: a caller must run axe__i4_plan_check on the
 * paired plan again (dispatch's split() does; compiler_reduce.c does not
 * pair a split). */
void axe__i4_plan_pair(const axe_program *p, const ax_stmt *s, ax_plan *plan);
/* 1 + the loop of "plan" whose digits 2m and 2m + 1 address the two
 * halves of an aligned pair of operand "i"'s elements (x, x + 1 with x
 * even: an i4 byte, a words16 word): the innermost loop not a thread's,
 * at stride 1 and of even extent, where the base is even for every
 * value of its dynamic parts (axe__base_parity_known) and every other
 * loop of several values has an even stride; 0 if there is none
 * (compiler_i4.c; affine, unswizzled addresses: the callers check). */
int axe__plan_pair_loop(const axe_program *p, const ax_stmt *s,
                        const ax_plan *plan, int i);
/* Whether pairing loop "k" of "plan" (whole-byte i4 stores) leaves every
 * read of a source on the destination's tensor the value the element-by-
 * element nest reads (compiler_i4_order.c; false where not shown). */
bool axe__i4_pair_keeps_reads(const axe_program *p, const ax_stmt *s,
                              const ax_plan *plan, int k);
/* Use "w"-element accesses in the innermost loop when the layouts allow. */
axe_status axe__plan_vectorize(const axe_program *p, const ax_stmt *s,
                               ax_plan *plan, axe_diag *why);
/* How far copy.vector's checks got on a laid-out plan before it lost
 * the vector, in the order they run (compiler_plan_vec.c: the reason of
 * the candidate that got furthest is the refusal's). */
typedef enum ax_vec_at {
    AX_VEC_AT_SHAPE,   /* not affine, no loop, or beyond the CuTe capacity */
    AX_VEC_AT_COMMON,  /* max_common_vector */
    AX_VEC_AT_EXTENT,  /* the innermost loop's length */
    AX_VEC_AT_STRIDE1, /* the innermost loop's stride */
    AX_VEC_AT_BASE,    /* an operand's start */
    AX_VEC_AT_STRIDES, /* another loop's stride */
    AX_VEC_AT_SWIZZLE  /* every check but the swizzles' holds */
} ax_vec_at;
/* Why "plan" (affine, laid out, max_common_vector "v" of its per-thread
 * layouts) gets no vector: AXE_ERR_UNSUPPORTED with the first check that
 * every width fails in "why", its ax_vec_at in "at"
 * (compiler_plan_why.c). */
axe_status axe__plan_no_vector(const axe_program *p, const ax_stmt *s,
                               const ax_plan *plan, int64_t v, int *at,
                               axe_diag *why);
/* The address of operand "i" at digit 0 of an affine plan: "cst" plus
 * dyn[k] * scale[k] for k < *ndyn (dynamic region starts, view offset). */
typedef struct ax_base {
    int64_t cst;
    int ndyn;
    const ax_expr *dyn[AX_MAX_DIMS + 1];
    int64_t scale[AX_MAX_DIMS + 1];
} ax_base;
void axe__plan_base(const axe_program *p, const ax_ref *r, ax_base *out);
/* Whether source "i" of "s", on the destination's tensor, may
 * store-read overlap the destination under "plan": not shown disjoint
 * (both affine, in one address space, the same dynamic start terms, and
 * static address spans that do not meet) (compiler_plan_vec.c). */
bool axe__plan_may_overlap(const axe_program *p, const ax_stmt *s,
                           const ax_plan *plan, int i);
/* Whether operands "a" and "b" of one tensor are addressed in different
 * spaces (one a view, and a swizzle about: the tensor's or either
 * view's), so that equal or disjoint offsets say nothing of addresses. */
bool axe__plan_other_spaces(const axe_program *p, const ax_ref *a,
                            const ax_ref *b);
/* Whether digits of strides stride[0..n) and extents extent[0..n) map
 * distinct values to distinct sums, shown by sorting: by |stride|, each
 * digit of extent > 1 has a stride past the reach (sum of |stride| *
 * (extent - 1)) of the smaller ones. False when not shown so, or n >
 * AX_MAX_INJ. "order" (NULL: none) gets the digits' indices by |stride|
 * (stable). Register-free layouts (compiler_overlap.c) and the exchange
 * planner's memory digits (compiler_dist_rule.c) both ask it. */
#define AX_MAX_INJ 128
bool axe__digits_injective(const int64_t *stride, const int64_t *extent, int n,
                           int *order);
/* An operator run by more than one thread whose source on its
 * destination's tensor may overlap the destination (neither apart from
 * it nor disjoint nor in place, on the two operands' addresses alone):
 * refused with the reason, before any schedule (compiler_overlap.c). An
 * update of a register tensor waits for its schedule: */
axe_status axe__no_reorder(const axe_program *p, const ax_stmt *s,
                           axe_diag *why);
/* its chosen plan must run each thread's elements in their order
 * (thread_loop or vector in dimension order; not split, not a permuted
 * plan, not staged through shared memory by smem). Only the smem branch
 * fires today (a forced schedule, compiler_errors.sh): split is never
 * chosen for a distributed register destination ("'r' is distributed"),
 * a per-thread register is refused at cta scope, and vector keeps
 * dimension order wherever the operands may overlap (self_overlap); the
 * split and permuted tests stay as defence should those change. */
axe_status axe__no_reorder_plan(const axe_program *p, const ax_stmt *s,
                                axe_diag *why);
/* Whether base "b"'s parity is the same for every value of its dynamic
 * parts: each has an even scale or an expression whose every value is
 * even (axe__expr_gcd: bx * 64 + 2), so it is b->cst's (compiler_i4.c). */
bool axe__base_parity_known(const ax_base *b);
/* The rank stride of an iter on a thread axis (0: on memory). */
int64_t axe__iter_rank_stride(const axe_iter *it);
/* The index of the plan's innermost loop that is not a thread digit (-1
 * if none). */
int axe__plan_innermost_loop(const ax_plan *plan);
/* A vector copy with masked operands whose innermost loop's dimension is
 * masked in none of them: its masked coordinates do not change along
 * that loop, so the emitted C tests them once per loop instead of once
 * per chunk (where it runs the loop nest; a round-robin split tests each
 * chunk). */
bool axe__plan_masked_rows(const ax_stmt *s, const ax_plan *plan);
/* The plan's per-thread layouts and digits, for --explain. */
void axe__plan_describe(ax_text *t, const axe_program *p, const ax_stmt *s,
                        const ax_plan *plan);

/* ---- the program -----------------------------------------------------------
 */

/* Run k of a mesh program's segments (compiler_segments.c) starts at
 * boundary "from" (NULL: the kernel body's first run): after it (where
 * 0), at its body (1) or at its else branch (2). "n" runs. */
typedef struct ax_seg {
    const ax_stmt *from;
    int where;
} ax_seg;
typedef struct ax_segs {
    int n;
    ax_seg *run;
} ax_segs;

struct axe_program {
    ax_arena *arena;
    const char *text;
    size_t len;
    char name[AXE_KERNEL_NAME_MAX];
    int64_t grid[3];
    /* A runtime grid extent (scalars only; grid[d] is then its largest
     * value), NULL for a constant one. */
    const struct ax_expr *dgrid[3];
    int64_t threads;
    /* A core kernel (`kernel NAME(...) core`): one CTA of one thread that
     * is the accelerator's core; its operators are written at `core`
     * scope (AX_SCOPE_CTA) and it declares sbuf and psum tensors. */
    bool core;
    /* Runtime scalar parameters (`M: i32`), in declaration order: each is
     * variable scalar_var[i]; var_scalar[v] is i + 1 for it (0: not a
     * scalar). "bound" once axe_program_bind gave them values. */
    int nscalars;
    char scalar_name[AX_MAX_SCALARS][AXE_KERNEL_NAME_MAX];
    axe_dtype scalar_dtype[AX_MAX_SCALARS];
    int scalar_var[AX_MAX_SCALARS];
    int var_scalar[AX_MAX_VARS];
    int64_t scalar_value[AX_MAX_SCALARS]; /* i32 scalars (float: 0) */
    double scalar_fvalue[AX_MAX_SCALARS]; /* float scalars, rounded to
                                             their dtype when bound */
    bool bound;
    int ntensors;
    ax_tensor tensors[AX_MAX_TENSORS];
    int nvars;
    char vars[AX_MAX_VARS][AXE_KERNEL_NAME_MAX];
    int64_t var_trip[AX_MAX_VARS];                /* loop vars: trip count */
    const struct ax_expr *var_dtrip[AX_MAX_VARS]; /* a runtime trip count */
    /* Bounds the enclosing ifs put on variables while sema checks an
     * operator (var_lo > var_hi: none). */
    int64_t var_lo[AX_MAX_VARS], var_hi[AX_MAX_VARS];
    /* axe__guard_check_uniform: evaluations spent on the program, and the
     * last chain of conditions found uniform over scope "uniform_scope". */
    int64_t uniform_evals;
    const struct ax_guard *uniform_chain;
    ax_scope uniform_scope;
    /* axe__guard_never_holds: evaluations spent, and the last chain it
     * decided with its answer. */
    int64_t dead_evals;
    const struct ax_guard *dead_chain;
    bool dead_value;
    int nops;
    ax_stmt **ops; /* the operator statements by index (after parsing) */
    /* The device mesh: "nmesh" axes (0: no mesh), each with its extent and
     * name ("" for an unnamed axis), numbered row-major into device ids
     * 0 .. ndev - 1 (ndev: their product, 0 without a mesh); and the
     * device operators by index. */
    int nmesh;
    int64_t mesh_extent[AX_MAX_MESH_AXES];
    char mesh_name[AX_MAX_MESH_AXES][AXE_KERNEL_NAME_MAX];
    int64_t ndev;
    long mesh_off;
    int ndevops;
    ax_stmt **devops;
    ax_stmt *body;
    /* The runs of statements between the segment boundaries, numbered
     * when parsing ends (compiler_segments.c). */
    ax_segs segs;
    axe_kernel_options opts;
    /* The complete diagnostic when it has notes or exceeds a diag: its
     * message, then one note per line (NULL: the diag is complete). */
    char *full_diag;
    /* Layout synthesis (compiler_synth.h): what it chose for the `layout
     * auto` tensors, NULL when the program has none. */
    struct ax_synth_report *synth;
};

/* A program holding a copy of "text" and "opts" (NULL: defaults), before
 * any pass: compile runs parse, check and dispatch on it; tests run them
 * one at a time (AXE_ERR_NO_MEMORY, *out NULL, when allocation fails). */
axe_status axe__program_new(const char *text, size_t len,
                            const axe_kernel_options *opts,
                            const axe_allocator *alloc, axe_program **out);
/* Parse "p->text" into "p" (params folded with the options' defines) and
 * index its operators in p->ops. */
axe_status axe__program_parse(axe_program *p, axe_diag *diag);
/* The accelerator model "m" is usable (compiler_trn_model.c). */
axe_status axe__trn_model_check(const axe_trn_model *m, axe_diag *diag);
/* Sema of an sbuf or psum tensor "t" (compiler_sema_trn.c): its layout
 * over P and F fits the model, then becomes the storage layout; and the
 * scratchpads of the program fit its partitions. */
axe_status axe__sema_trn_tensor(const axe_program *p, ax_tensor *t,
                                axe_diag *diag);
axe_status axe__sema_trn_resources(const axe_program *p, axe_diag *diag);
/* Semantic checks and derived tensor facts. */
axe_status axe__program_check(axe_program *p, axe_diag *diag);
/* Distributed tensors and device operators (compiler_sema_dist.c): the
 * placement of tensor "t" against the mesh (gpuid iters cover each device
 * exactly once, or an offset names one device), replacing its shape and
 * layout by the local shard's; and the checks of every device operator. */
axe_status axe__sema_dist_tensor(const axe_program *p, ax_tensor *t,
                                 axe_diag *diag);
axe_status axe__sema_devops(axe_program *p, axe_diag *diag);
/* Operand "i" of device operator "s" as every consumer sees it: the
 * tensor, or for a region its record (compiler_sema_dist.c): the base's
 * name, dtype, storage (cname, span: buffers stay the base's), with
 * gshape, gsize and glayout the region's (the base's layout sliced to it,
 * so its addresses are the base buffer's) and shape, layout, grouped and
 * seps the region's part of each local shard; and its text for messages
 * ("B" or "B[0:4, 0:16]"). */
const ax_tensor *axe__devop_tensor(const axe_program *p, const ax_stmt *s,
                                   int i);
/* The dtype device operator "s" exchanges: its source's; a device gemm's
 * partial sums are C's. */
axe_dtype axe__devop_dtype(const axe_program *p, const ax_stmt *s);
const char *axe__devop_text(const axe_program *p, const ax_stmt *s, int i);
/* The segments of a mesh program (compiler_segments.c): whether "s"
 * ends a run of statements (a device operator, a kept device loop or
 * if); the table of the runs (p->segs) numbered once parsing ends (no
 * memory: AXE_ERR_NO_MEMORY); the number of runs; the first statement of
 * run "k" (NULL: an empty run at the end of its list). The number of the
 * run after boundary "b" (where 0; where 1: of the first run of kept
 * block "b"'s body, 2: of its else branch's), -1 when "b" is none. The
 * kept loops' variables with distinct names (sibling loops may share
 * one), first met first, into "vars" (AX_MAX_VARS): their count. */
bool axe__seg_boundary(const ax_stmt *s);
axe_status axe__seg_number(axe_program *p);
int axe__seg_count(const axe_program *p);
const ax_stmt *axe__seg_first(const axe_program *p, int k);
int axe__seg_after(const axe_program *p, const ax_stmt *b, int where);
int axe__kept_vars(const axe_program *p, int *vars);
/* The boundary before run "k" (NULL: run 0, or no such run) and which of
 * its lists the run starts ("where" as for axe__seg_after). */
const ax_stmt *axe__seg_from(const axe_program *p, int k, int *where);
/* A walk of the runs of one list and, between them, its device
 * operators and kept blocks, in program order: "segment" for each run,
 * "devop" for each device operator, "kept" for each kept block (which
 * walks its branches itself, as often as it likes: axe__seg_walk from
 * axe__seg_after(p, s, 1), and 2 for an else branch); the first failing
 * hook's status ends it. */
typedef struct ax_seg_visit ax_seg_visit;
struct ax_seg_visit {
    const axe_program *p;
    void *user;
    axe_status (*segment)(const ax_seg_visit *v, int k);
    axe_status (*devop)(const ax_seg_visit *v, const ax_stmt *s);
    axe_status (*kept)(const ax_seg_visit *v, const ax_stmt *s);
};
/* The list whose first run is "k" (0: the kernel body). */
axe_status axe__seg_walk(const ax_seg_visit *v, int k);
/* Whether run "k" holds a statement other than a sync (an operator, a
 * loop or an if): a run of syncs alone, or of nothing, changes no
 * tensor (shared and register tensors start zeroed in each run), so
 * neither the reference nor a driver runs it. */
bool axe__seg_runs(const axe_program *p, int k);
/* Whether some run of "p" runs (axe__seg_runs). */
bool axe__seg_any_runs(const axe_program *p);
/* The driver of a mesh program (the C backend's kernel, the CUDA mesh
 * launcher) into "t": "launch" for each run that axe__seg_runs, "devop"
 * for each device operator ("devop_launched" instead, unless NULL, for
 * one right after a launch whose "rc" is not printed yet), a C loop over
 * v_NAME for each kept loop and an if for each kept if around their
 * branches (indented), "rc" after a launch followed by a kept block or
 * ending a branch. */
typedef struct ax_seg_driver {
    void (*launch)(ax_text *t, const axe_program *p, int k);
    void (*devop)(ax_text *t, const axe_program *p, const ax_stmt *s);
    void (*devop_launched)(ax_text *t, const axe_program *p, const ax_stmt *s);
    const char *rc;
} ax_seg_driver;
void axe__seg_driver_put(ax_text *t, const axe_program *p,
                         const ax_seg_driver *d);
/* Each of those variables v as "before" "v_v" "after" (the first
 * preceded by "head") into "t". */
void axe__kept_vars_put(ax_text *t, const axe_program *p, const char *head,
                        const char *before, const char *after);
/* The --explain paragraph of device operator "s" into s->explain
 * (compiler_dist_explain.c). */
axe_status axe__devop_explain(const axe_program *p, ax_stmt *s);
/* The statement checks of sema (compiler_sema_ops.c). */
axe_status axe__sema_ops(axe_program *p, axe_diag *diag);
/* The enclosing if conditions of operator "s" are uniform over each
 * instance of its scope (compiler_sema_guard.c). */
/* Whether the chain "g" reads a thread id (tx, laneid, warpid, wgid,
 * tid_in_wg, wid_in_wg): false means it has one value on every thread of
 * a CTA. */
bool axe__guard_reads_thread_id(const ax_guard *g);
axe_status axe__guard_check_uniform(axe_program *p, const ax_stmt *s,
                                    axe_diag *diag);
/* Whether the chain of conditions "g" holds for no thread of any CTA and
 * no value of the loop variables it reads, decided by evaluation within a
 * budget (false when undecided) (compiler_sema_guard.c). */
bool axe__guard_never_holds(axe_program *p, const ax_guard *g);
/* The number of values of variable "v": 0 .. extent - 1 (compiler_expr.c). */
int64_t axe__var_extent(const axe_program *p, int v);
/* Its values before any guard: [0, extent - 1], or the i32 range of a
 * runtime scalar (compiler_expr.c). */
void axe__var_range(const axe_program *p, int v, int64_t *lo, int64_t *hi);
/* Dimension "d" of region "r" starts at 0 or later (ends at the extent
 * or earlier, "upper") under the conditions "g", proved symbolically
 * (compiler_sema_bound.c). */
bool axe__bound_proved(const axe_program *p, const ax_guard *g, const ax_ref *r,
                       int d, bool upper);
/* The claim k * "e" + c <= 0 holds under the conditions "g" for every
 * value of the variables, proved as region bounds are (iota's values). */
bool axe__claim_proved(const axe_program *p, const ax_guard *g,
                       const ax_expr *e, int64_t k, int64_t c);
/* The condition "g" as c * v + k cmp 0 over one variable "v" (cmp as in
 * ax_guard, negated under `else`): false when it reads another variable
 * too, none, or is not linear (compiler_sema_bound.c). */
bool axe__guard_one_var(const ax_guard *g, int *v, int64_t *c, int64_t *k,
                        int *cmp);
/* Why the condition "g" gives the bounds proofs no fact (not linear, or
 * `!=`), or NULL when it gives one. */
const char *axe__guard_no_fact(const ax_guard *g);
/* The runtime expressions of a program (compiler_runtime.c): tensor
 * extents, grid sizes and trip counts that read runtime scalars, each
 * with its nominal (largest) value and what it is, for diagnostics. */
#define AX_MAX_DYN (AX_MAX_TENSORS + 3 + AX_MAX_VARS)
typedef struct ax_dyn_list {
    int n;
    const ax_expr *expr[AX_MAX_DYN];
    int64_t nominal[AX_MAX_DYN];
    char what[AX_MAX_DYN][80];
} ax_dyn_list;
void axe__dyn_list(const axe_program *p, ax_dyn_list *out);
/* "e" at the bound scalars, or "v" when "e" is NULL (a constant). */
int64_t axe__dyn_value(const axe_program *p, const ax_expr *e, int64_t v);
/* Grid dimension "d" at the bound scalars. */
int64_t axe__grid_at(const axe_program *p, int d);
/* Elements of tensor parameter "t" at the bound scalars (0 unbound). */
int64_t axe__span_at(const axe_program *p, const ax_tensor *t);
/* Choose and plan a schedule for every operator. */
axe_status axe__program_dispatch(axe_program *p, axe_diag *diag);
/* The predicate of schedule "name" of s's family on "s" without
 * committing: AXE_OK when it applies, else its status and reason in "why"
 * (AXE_ERR_INVALID when the family has no such schedule). For tests. */
axe_status axe__schedule_try(axe_program *p, ax_stmt *s, const char *name,
                             axe_diag *why);

/* Expression helpers (compiler_expr.c). */
ax_expr *axe__expr_int(ax_arena *a, int64_t v, long off);
/* Fold constants; AXE_ERR_INVALID for a non-constant divisor, DOMAIN for
 * a zero or negative one, OVERFLOW on overflow. */
axe_status axe__expr_fold(ax_arena *a, ax_expr *e, ax_expr **out,
                          axe_diag *diag);
/* Bounds [lo, hi] of "e" over every variable's range ("p" gives them). */
axe_status axe__expr_range(const axe_program *p, const ax_expr *e, int64_t *lo,
                           int64_t *hi);
/* A divisor of "e" for every value of its variables (0 for e == 0). */
int64_t axe__expr_gcd(const ax_expr *e);
/* Whether "a" and "b" are the same expression, node by node (NULL only
 * as NULL; an expression that loads an element never, since the element
 * may differ between two evaluations). */
bool axe__expr_same(const ax_expr *a, const ax_expr *b);
/* Whether "a" - "b" is a constant, "*d", for every value of the
 * variables: both linear (no //, %, element loads; NULL is 0) with the
 * same coefficients, so `i * 16` and `16 * i + 4` differ by -4
 * (compiler_sema_bound.c's linear forms). */
bool axe__expr_diff(const ax_expr *a, const ax_expr *b, int64_t *d);
/* The value of "e" with variables "env" (a LOAD reads 0). */
int64_t axe__expr_eval(const ax_expr *e, const int64_t *env);
/* The same, LOADs through "ld" (an element of ld->fn's tensor at the
 * coordinates "idx" of region "r", NULL: 0). */
typedef struct ax_loader {
    int64_t (*fn)(void *ctx, const struct ax_ref *r, const int64_t *idx);
    void *ctx;
} ax_loader;
int64_t axe__expr_eval_ld(const ax_expr *e, const int64_t *env,
                          const ax_loader *ld);
/* The first LOAD in "e" and their number. */
const ax_expr *axe__expr_load(const ax_expr *e, int *count);
/* The largest variable index used (-1 if none). */
int axe__expr_max_var(const ax_expr *e);
/* Whether "e" uses variable "v". */
bool axe__expr_uses(const ax_expr *e, int v);
/* The first runtime scalar "e" reads, and the first variable it reads
 * that is not one (their variable indices, or -1). */
int axe__expr_scalar(const axe_program *p, const ax_expr *e);
int axe__expr_nonscalar(const axe_program *p, const ax_expr *e);
/* The first product of two non-constant factors in "e", or NULL. */
const ax_expr *axe__expr_nonaffine(const ax_expr *e);
/* "e" in the language's syntax appended at "n" of "buf" (snprintf-style:
 * returns the length it needs). */
size_t axe__expr_text(const axe_program *p, const ax_expr *e, char *buf,
                      size_t cap, size_t n);
/* "e" as a C expression (floor division through AXE_FDIV/AXE_FMOD). */
void axe__expr_print_c(ax_text *t, const axe_program *p, const ax_expr *e);
/* Condition "g" as the C "lhs cmp rhs" (its sides as axe__expr_print_c;
 * its negation and chain are the caller's). */
void axe__cond_print_c(ax_text *t, const axe_program *p, const ax_guard *g);
/* Comparison "cmp" of a condition (ax_guard): "<", "<=", ">", ">=",
 * "==", "!=". */
const char *axe__cmp_text(int cmp);
/* Condition "g" as "lhs cmp rhs" into "buf" (snprintf-style "cap"), each
 * side in the language's syntax, one longer than "side" characters
 * (at most AX_COND_SIDE_MAX) cut to its first side - 3 and "...". */
#define AX_COND_SIDE_MAX 63
void axe__cond_text(const axe_program *p, const ax_guard *g, size_t side,
                    char *buf, size_t cap);

/* C for operator "s" inside a thread's phase (compiler_emit_op.c). */
void axe__emit_op(ax_text *t, const axe_program *p, const ax_stmt *s, int ind,
                  bool whole);
/* The bit pattern of the operand at source position "pos" of "s": its
 * element's (its fill's outside the tensor), or the scalar's
 * (compiler_emit_op.c). */
void axe__emit_raw_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int pos);
/* f16 and bf16 add, sub, mul, max, min and neg into a register held in
 * 32-bit words (words16),
 * a word at a time (compiler_emit_half2.c): 1 + the loop whose digits 2m
 * and 2m + 1 are the two halves of one word (the loop then runs in steps
 * of 2, ax_plan's pair), 0 where "s" runs element by element; the store
 * of one such word, `W = ax_hmul2(A, B);`, for the plan so marked. */
int axe__half2_pair(const axe_program *p, const ax_stmt *s);
void axe__emit_half2_store(ax_text *t, const axe_program *p, const ax_stmt *s);
/* Why f16/bf16 operator "s" (add, sub, mul, max, min, neg into an f16 or
 * bf16 register) runs element by element, NULL where it runs a word at a
 * time; "" for any other operator. "words": whether the destination is
 * held in words (its words16 once emission sets it). */
const char *axe__half2_why_not(const axe_program *p, const ax_stmt *s,
                               bool words);
/* Operand "i"'s element address (through its swizzle) in the digit
 * variables ax_t<k> / ax_i<k> of its plan (compiler_emit_op.c). */
void axe__emit_elem_addr(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i);

/* A per-thread gemm register-blocked (compiler_emit_gemm.c), after the
 * rank and thread digits; false, with nothing written, when "s" is not a
 * gemm or its plan does not allow it. */
bool axe__emit_gemm_blocked(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind);

/* A CTA-scope gemm.thread_fma of a phase that runs whole, as one loop nest
 * over every thread's part (compiler_emit_gemm_whole.c): whether it
 * applies to "s", and its C after the operator's opening line. */
bool axe__gemm_whole_applies(const axe_program *p, const ax_stmt *s);
void axe__emit_gemm_whole(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind);

/* Data-dependent starts in C (compiler_emit_check.c): an element read,
 * whether the program has any, and the checks before an operator (true
 * when printed: `if (bad) { ... } else {` awaiting the block and `}`).
 * The failure of dimension "d" of operand "r" of "s" whose start reads
 * "ld", for every backend: its message as a C string literal for printf
 * (`"region of 'T' out of bounds at run time (line L): dimension D starts
 * at %ld ... the start reads I[%ld, ...] = %ld"`), and the 3 + ndim values
 * it prints (the start, the extent, the element's coordinates, its
 * value), comma-separated. */
void axe__emit_load(ax_text *t, const axe_program *p, const struct ax_ref *r);
bool axe__program_has_loads(const axe_program *p);
void axe__emit_check_helpers(ax_text *t, const axe_program *p);
bool axe__emit_start_checks(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind);
void axe__emit_start_format(ax_text *t, const axe_program *p, const ax_stmt *s,
                            const struct ax_ref *r, int d, const ax_expr *ld);
void axe__emit_start_values(ax_text *t, const axe_program *p,
                            const struct ax_ref *r, int d, const ax_expr *ld);

/* One step of reduce.tree inside a thread's phase: every row's elements
 * i < m - ceil(m / 2) combined with element i + ceil(m / 2)
 * (compiler_emit_tree.c). */
void axe__emit_tree_step(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int64_t m, int ind);

/* How an operator's element is accessed (the access macros): read,
 * written, updated atomically, read or written as "vt" elements from it
 * (a count: the memcpy of a vector copy) or its address given to an
 * instruction that takes raw addresses (cp.async, ldmatrix). */
typedef enum ax_access {
    AX_ACC_LD,
    AX_ACC_ST,
    AX_ACC_ATOM,
    AX_ACC_LDN,
    AX_ACC_STN,
    AX_ACC_AT
} ax_access;
/* The start of an access to element [INDEX] of tensor "tn" (its array
 * "name", NULL: its own): `NAME[` (registers: with the backend's
 * reg_index; AX_ACC_LDN, AX_ACC_STN and AX_ACC_AT: `&NAME[`), or, where
 * the backend has access macros and the tensor is global or shared,
 * `AXE_LD(NAME, ` (AXE_ST, AXE_ATOM, AXE_AT; with "vt" not NULL
 * `AXE_LDV(VT, NAME, ` / `AXE_STV`, or for AX_ACC_LDN / AX_ACC_STN
 * `AXE_LDN(VT, NAME, ` / `AXE_STN`: "vt" elements).
 * axe__emit_access_close ends it: `]` or `, LINE)` with the operator's
 * source line (compiler_emit_op.c). */
void axe__emit_access_open(ax_text *t, const axe_program *p,
                           const ax_tensor *tn, const char *name, ax_access acc,
                           const char *vt);
void axe__emit_access_close(ax_text *t, const axe_program *p,
                            const ax_tensor *tn, const char *name, int line);

/* The AXE_KERNEL_MAIN harness (compiler_emit_harness.c). */
void axe__emit_harness(ax_text *t, const axe_program *p, bool cuda);
/* What a multi-device backend adds to the C backend's program of a mesh
 * program (axe__emit_c_mesh, compiler_emit_c.c): "decls" after the
 * storage (its includes and data), "devop" the statement that runs device
 * operator "s" between the segments' launches (in k_NAME), "main" after
 * the harness, whose main() is renamed axe_rank_main. */
typedef struct ax_c_mesh {
    void (*decls)(ax_text *t, const axe_program *p);
    void (*devop)(ax_text *t, const axe_program *p, const ax_stmt *s);
    void (*main)(ax_text *t, const axe_program *p);
} ax_c_mesh;
void axe__emit_c_mesh(ax_text *t, const axe_program *p, const char *file,
                      const ax_c_mesh *mesh);
/* The C backend's program for another backend that runs every operator
 * its own way (the trn-sim backend): "decls" after the storage (which
 * leaves out the scratchpads), "begin" and "end" around the CTA
 * function's body, "op" for each operator that runs (in a phase of the
 * one-thread CTA). */
typedef struct ax_c_hooks {
    void (*decls)(ax_text *t, const axe_program *p);
    void (*begin)(ax_text *t, const axe_program *p);
    void (*end)(ax_text *t, const axe_program *p);
    void (*op)(ax_text *t, const axe_program *p, const ax_stmt *s, int ind);
} ax_c_hooks;
void axe__emit_c_hooked(ax_text *t, const axe_program *p, const char *file,
                        const ax_c_hooks *hooks);

/* Names (compiler_names.c). */
const char *axe__op_name(ax_op op);
const char *axe__red_name(ax_red r);
/* "core" for an operator of a core kernel, else its scope's name. */
const char *axe__stmt_scope_name(const axe_program *p, const ax_stmt *s);
const char *axe__scope_name(ax_scope s);
const char *axe__mem_name(ax_mem m);
const char *axe__dtype_ctype(axe_dtype t);
/* The entries of "n" elements of "t" in arrays of its C type
 * (axe__dtype_ctype): n, or (n + 1) / 2 bytes of packed i4. */
static inline int64_t axe__dtype_entries(axe_dtype t, int64_t n)
{
    return t == AXE_DTYPE_I4 ? n / 2 + n % 2 : n;
}
/* The bytes of a vector access of "n" elements of "t" (n even for
 * packed i4: whole bytes, docs/compiler.md "Packed i4"). */
static inline int64_t axe__dtype_vec_bytes(axe_dtype t, int64_t n)
{
    return t == AXE_DTYPE_I4 ? n / 2 : n * axe_dtype_size(t);
}
/* Narrow float helpers (compiler_half.c): f16, bf16, e4m3 and e5m2 are
 * stored as bit patterns and computed in float ("is_half" covers all four,
 * "is_fp8" the 8-bit ones); generated loads and stores wrap the element in
 * these. */
bool axe__dtype_is_half(axe_dtype d);
bool axe__dtype_is_fp8(axe_dtype d);
const char *axe__dtype_load_pre(axe_dtype d);
const char *axe__dtype_store_pre(axe_dtype d);
const char *axe__dtype_wrap_post(axe_dtype d);
void axe__emit_half_helpers(ax_text *t, const char *body);
/* How generated code reads operand "i" of "s" into its arithmetic: the
 * dtype's load prefix and suffix, or ax_tf32( ) around A and B of a tf32
 * gemm (compiler_half.c). */
const char *axe__operand_pre(const axe_program *p, const ax_stmt *s, int i);
const char *axe__operand_post(const axe_program *p, const ax_stmt *s, int i);
void axe__emit_int_helpers(ax_text *t, const char *body);
/* The AXE_ATOMIC_* macros that "body" uses (compiler_grid_emit.c). */
void axe__emit_atomic_helpers(ax_text *t, const char *body);
/* The float "v" as the integer dtype "d" (i8, i32): toward zero,
 * saturated, NaN -> 0, as CUDA's cvt.rzi.sat (compiler_ref.c). */
double axe__int_saturate(axe_dtype d, double v);
/* The race detector of the reference (compiler_race.c): made for a
 * program (AXE_ERR_CAPACITY past its limits), told when a CTA starts, at
 * each `sync`, at each operator instance (its first thread in the CTA)
 * and element (its coordinate), and of each access of operand "arg" to
 * an element of a global or shared tensor; its capacity errors are
 * sticky and returned by axe__race_report ("table": each tensor's logical
 * index -> address, to name the elements). NULL detectors are ignored. */
typedef struct ax_race ax_race;
axe_status axe__race_new(const axe_program *p, ax_race **out, axe_diag *diag);
void axe__race_free(ax_race *r);
/* Add device "device"'s report "from" to "into" (a mesh program's
 * segments, compiler_ref_dist.c). */
void axe__race_merge(axe_race_report *into, const axe_race_report *from,
                     int64_t device);
void axe__race_cta(ax_race *r, int64_t cta);
void axe__race_sync(ax_race *r);
void axe__race_instance(ax_race *r, const ax_stmt *s, int64_t tid0);
void axe__race_element(ax_race *r, const int64_t *c);
void axe__race_access(ax_race *r, int arg, int tensor, int64_t addr,
                      bool write);
/* The accesses of an operator instance whose operands' groups are the
 * same at every element, by address ranges (the reference's gemm):
 * whether rounds of operand "arg"'s read (with "rmw" read and write) of
 * each of "n" addresses would report no race (nothing changes), and
 * "reps" such rounds each, done (compiler_race.c). */
bool axe__race_range_clean(ax_race *r, int arg, int tensor, const int64_t *addr,
                           int64_t n, bool rmw);
void axe__race_range_apply(ax_race *r, int arg, int tensor, const int64_t *addr,
                           int64_t n, int64_t reps, bool rmw);
/* The store of element "addr" of a packed i4 tensor by the destination
 * operand: a write of it and of its byte partner addr ^ 1 (when inside
 * the tensor), since the store rewrites the whole byte. */
void axe__race_store_i4(ax_race *r, int tensor, int64_t addr);
axe_status axe__race_report(const ax_race *r, int64_t *const *table,
                            axe_race_report *out, axe_diag *diag);
/* Swizzled shared tensors (compiler_swizzle.c): whether an operand is
 * addressed through its tensor's swizzle, the aligned runs the swizzle
 * keeps contiguous (2^M; INT64_MAX if none), the bit below which it
 * changes addresses (M + B inner, M + S + B outer; 0 if none), the
 * address wrapper
 * ax_swz(ADDR, M, B, S, inner) of the generated C and its helper, and
 * the swizzle's text. */
bool axe__ref_swizzled(const axe_program *p, const ax_ref *r);
int64_t axe__swizzle_run(const axe_program *p, const ax_ref *r);
int axe__swizzle_bits(const axe_program *p, const ax_ref *r);
void axe__emit_swizzle_open(ax_text *t, const axe_program *p, const ax_ref *r);
void axe__emit_swizzle_close(ax_text *t, const axe_program *p, const ax_ref *r);
void axe__emit_swizzle_helpers(ax_text *t, const char *body);
void axe__swizzle_text(const axe_program *p, const ax_ref *r, char *buf,
                       size_t cap);
/* Sema of a swizzle on tensor "t" (shared only, M + S + B <= 40), and the
 * storage a swizzled view can reach from its unswizzled bounds. */
axe_status axe__swizzle_check(const ax_tensor *t, const axe_layout_swizzle *sw,
                              long off, axe_diag *diag);
axe_status axe__swizzle_view_bounds(const axe_program *p, const ax_ref *r,
                                    int64_t *lo, int64_t *top, axe_diag *diag);
/* A store through view "r" of a packed i4 tensor whose swizzle has M = 0
 * is refused: it moves element address bit 0 (inner: the nibbles of a
 * byte swap or leave it; outer: bit 0 is xored into bit S, so a byte's
 * nibbles land in two bytes), which whole-byte stores and the store-byte
 * check (on tile addresses) assume it does not. A read through it is
 * element by element at the swizzled address (no vector or ldmatrix: the
 * swizzle keeps runs of 1), which is exact (compiler_swizzle.c). */
axe_status axe__swizzle_i4_store(const axe_program *p, const ax_ref *r,
                                 axe_diag *diag);
/* The reference on one device's "buffers" (a mesh program's local
 * buffers) from statement "first" to the end of its run (a segment,
 * compiler_segments.c; the kept loops' variables at their values in
 * "kept", indexed by variable, or NULL), and its
 * element helpers: a load, a store rounded to "d", and a combining step
 * of a reduce on values of "d" (a sum rounded to "d", integers wrapping;
 * max and min as a local reduce's: a NaN loses to a number)
 * (compiler_ref.c). */
axe_status axe__reference_segment(const axe_program *p, const ax_stmt *first,
                                  const int64_t *kept, void *const *buffers,
                                  axe_race_report *races, axe_diag *diag);
double axe__ref_load(axe_dtype d, const void *b, int64_t a);
/* Packed i4 storage (docs/compiler.md): element "a" is the nibble a % 2
 * (0: the low one) of byte a / 2, read sign-extended; a store rewrites
 * only that nibble with the low 4 bits of "v" (compiler_ref.c). */
int axe__i4_get(const void *b, int64_t a);
void axe__i4_set(void *b, int64_t a, int v);
void axe__ref_store(axe_dtype d, void *b, int64_t a, double v);
double axe__ref_combine(axe_dtype d, ax_red r, double acc, double a);
/* The reference of a program without a mesh with every operator run
 * element by element (no gemm by ranges): the law test's brute force. */
axe_status axe__reference_by_elements(const axe_program *p,
                                      void *const *buffers,
                                      axe_race_report *races, axe_diag *diag);
/* The fill value of a masked region as a value of dtype "d"
 * (compiler_ref.c). */
double axe__mask_fill(axe_dtype d, double v);
/* The number of threads of one instance of scope "s" ("p" gives CTAs). */
int64_t axe__scope_threads(const axe_program *p, ax_scope s);

#endif
