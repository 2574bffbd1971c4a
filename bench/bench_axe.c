/* SPDX-License-Identifier: Apache-2.0 */
/*
 * axe-bench's Axe layout cases: apply, canonicalize, group, tile,
 * is_tile_inner/outer, slice and direct_sum on the layouts of GPU kernels
 * written in the Axe notation ("axe_suite": the SM80 m16n8k16 accumulator
 * of a warp and of four warps, the paper's tensor-core layout with a
 * replica, TMEM datapath layouts, 2x2 and 8-GPU meshes, 128x64 shared-
 * memory tiles plain and swizzled) and a generated series over 2, 4, 8 and
 * 16 shard iters ("axe_scaling"). Operand 'X' is an Axe layout; a case's
 * "args" are the integer lists the op takes (shapes, region bounds), p0
 * its target. Invariant: every row parses, the operation succeeds on it
 * and, for the recoveries and slice, finds its answer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ---- the operations ------------------------------------------------------ */

/* apply_base at every x < size(a); per element. */
static axe_status run_axe_apply(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    for (int64_t i = 0; i < io->elems; i++) {
        axe_status st = axe_layout_apply_base(&x->a, i, &x->point, NULL);
        if (st != AXE_OK)
            return st;
    }
    return AXE_OK;
}

static axe_status run_axe_canonicalize(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_canonicalize(&x->a, x->target, &x->out, NULL);
}

static axe_status run_axe_group(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_group(&x->a, x->list[0], x->n, &x->out, x->seps, NULL);
}

/* a (outer, shape list 0) ⊗ b (inner, shape list 1). */
static axe_status run_axe_tile(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_tile(&x->a, x->list[0], &x->b, x->list[1], x->n,
                           x->target, &x->out, NULL);
}

/* Is a (tiled, list 0) = C ⊗ b (inner, list 1)? */
static axe_status run_axe_is_tile_inner(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_is_tile_inner(&x->b, &x->a, x->list[0], x->list[1], x->n,
                                    x->target, &x->out, &x->found, NULL);
}

/* Is a (tiled, list 0) = b (outer, list 1) ⊗ C? */
static axe_status run_axe_is_tile_outer(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_is_tile_outer(&x->b, &x->a, x->list[0], x->list[1], x->n,
                                    x->target, &x->out, &x->found, NULL);
}

/* a over shape list 0, region [list 1, list 2). */
static axe_status run_axe_slice(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_slice(&x->a, x->list[0], x->list[1], x->list[2], x->n,
                            x->target, &x->out, &x->found, NULL);
}

/* a (list 0) + b (list 1). */
static axe_status run_axe_direct_sum(bench_io *io)
{
    bench_axe_io *x = &io->axe;
    return axe_layout_direct_sum(&x->a, x->list[0], &x->b, x->list[1], x->n,
                                 &x->out, NULL);
}

/* "lists" is the number of integer lists in args. */
typedef struct axe_op {
    bench_op op;
    int lists;
} axe_op;

static const axe_op axe_ops[] = {
    {{"axe_apply", "X", 1, run_axe_apply}, 0},
    {{"axe_canonicalize", "X", 0, run_axe_canonicalize}, 0},
    {{"axe_group", "X", 0, run_axe_group}, 1},
    {{"axe_tile", "XX", 0, run_axe_tile}, 2},
    {{"axe_is_tile_inner", "XX", 0, run_axe_is_tile_inner}, 2},
    {{"axe_is_tile_outer", "XX", 0, run_axe_is_tile_outer}, 2},
    {{"axe_slice", "X", 0, run_axe_slice}, 3},
    {{"axe_direct_sum", "XX", 0, run_axe_direct_sum}, 2},
};

#define NAXE_OPS ((int)(sizeof axe_ops / sizeof axe_ops[0]))

const bench_op *bench_axe_op_find(const char *name)
{
    for (int i = 0; i < NAXE_OPS; i++)
        if (strcmp(axe_ops[i].op.name, name) == 0)
            return &axe_ops[i].op;
    return NULL;
}

/* ---- operands ------------------------------------------------------------ */

static axe_status parse_axe(const char *text, axe_layout *out)
{
    if (text == NULL)
        return AXE_ERR_INVALID;
    return axe_parse_layout(text, strlen(text), out, NULL);
}

/* One list "[1,2,3]" at *s into v (room for "cap"); its length, or -1. */
static int parse_list(const char **s, int64_t *v, int cap)
{
    const char *p = *s;
    int n = 0;
    while (*p == ' ')
        p++;
    if (*p++ != '[')
        return -1;
    while (*p != ']') {
        char *end;
        if (n == cap || (n > 0 && *p++ != ','))
            return -1;
        v[n++] = strtoll(p, &end, 10);
        if (end == p)
            return -1;
        p = end;
    }
    *s = p + 1;
    return n;
}

/* The lists of "args" into x (all of one length, "want" of them). */
static axe_status parse_args(const char *args, int want, bench_axe_io *x)
{
    const char *s = args != NULL ? args : "";
    x->nlist = 0;
    x->n = 0;
    for (int k = 0; k < want; k++) {
        int n = parse_list(&s, x->list[k], 2 * AXE_LAYOUT_MAX_DIMS);
        if (n < 0 || (k > 0 && n != x->n))
            return AXE_ERR_INVALID;
        x->n = n;
        x->nlist++;
    }
    return AXE_OK;
}

axe_status bench_axe_prepare(const bench_case *c, const bench_op *op,
                             bench_io *io, int *modes)
{
    const axe_op *aop = (const axe_op *)(const void *)op;
    bench_axe_io *x = &io->axe;
    axe_status st = parse_axe(c->a, &x->a);
    if (st == AXE_OK && op->operands[1] == 'X')
        st = parse_axe(c->b, &x->b);
    if (st == AXE_OK)
        st = parse_args(c->args, aop->lists, x);
    if (st != AXE_OK)
        return st;
    x->target = c->p0 == 1 ? AXE_TARGET_CUDA : AXE_TARGET_NONE;
    x->found = true;
    *modes = x->a.nshard;
    io->elems = 1;
    return op->per_element ? axe_layout_size(&x->a, NULL, &io->elems) : AXE_OK;
}

/* ---- the realistic cases ------------------------------------------------- */

/* SM80 m16n8k16 accumulator C (16x8) of one warp: element (8h + g, 2c + v)
 * is register 2h + v (on m) of lane 4g + c; four warps stacked along M
 * (64x8); the Axe paper's tensor-core layout with a warp replica. */
#define X_TV_C "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]"
#define X_TV_CTA "S[(4,2,8,4,2):(1@warpid,2,4@laneid,1@laneid,1)]"
#define X_TC_PAPER                                                             \
    "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] + 5@warpid"
#define X_WARPS_2X2 "S[(2,2):(1@warpid,2@warpid)]"
#define X_TV_2X2 "S[(2,2,8,2,4,2):(32@tx,2,4@tx,64@tx,1@tx,1)]"
/* TMEM (tcgen05): datapath D for a 128x256 accumulator, datapath F's
 * second sub-slab (64x32). */
#define X_TMEM_D "S[(128,256):(1@TLane,1@TCol)]"
#define X_TMEM_F "S[(4,16,32):(32@TLane,1@TLane,1@TCol)] + 16@TLane"
#define X_TMEM_HALF "S[(64,128):(1@TLane,1@TCol)]"
#define X_TMEM_2X2 "S[(2,2):(64@TLane,128@TCol)]"
/* A 64x128 tensor on a 2x2 mesh (fully sharded; sharded on rows and
 * replicated), on 8 GPUs as a 2x4 mesh and as 4-way rows x 2 replicas. */
#define X_MESH_2X2 "S[(2,32,2,64):(1@gpuid,128,2@gpuid,1)]"
#define X_MESH_2X2_REP "S[(2,32,128):(1@gpuid,128,1)] + R[2:2@gpuid]"
#define X_MESH_8 "S[(2,32,4,32):(4@gpuid,32,1@gpuid,1)]"
#define X_MESH_8_REP "S[(4,16,128):(1@gpuid,128,1)] + R[2:4@gpuid]"
#define X_GPUS_2X2 "S[(2,2):(1@gpuid,2@gpuid)]"
#define X_GPUS_2X4 "S[(2,4):(4@gpuid,1@gpuid)]"
#define X_SHARD_32X64 "S[(32,64):(64,1)]"
#define X_SHARD_32X32 "S[(32,32):(32,1)]"
#define X_TILED_2X2 "S[(2,32,2,64):(1@gpuid,64,2@gpuid,1)]"
/* 128x64 fp16 shared-memory tiles: row-major, as 8x8 core matrices (the
 * unswizzled MMA layout), the 8x64 atom repeated, the 128B swizzle. */
#define X_SMEM "S[(128,64):(64,1)]"
#define X_SMEM_CORE "S[(128,8,8):(8,1024,1)]"
#define X_SMEM_ATOM "S[(8,64):(64,1)]"
#define X_SMEM_GRID "S[(16,1):(1,1)]"
#define X_SMEM_SW "Swizzle<3,3,3>(S[8192:1])"
#define X_SW_ATOM "Swizzle<3,3,3>(S[512:1])"

/* clang-format off */
/* An axe_suite row: op, label, a, b, target (1 CUDA), args. */
#define AX(op, label, a, b, target, args)                                      \
    {"axe_" op, "axe_suite", a, b, target, 0, args, label}

static const bench_case suite[] = {
    AX("apply", "tv_C", X_TV_C, NULL, 0, NULL),
    AX("apply", "tv_cta", X_TV_CTA, NULL, 0, NULL),
    AX("apply", "tmem_F", X_TMEM_F, NULL, 0, NULL),
    AX("apply", "mesh_2x2", X_MESH_2X2, NULL, 0, NULL),
    AX("apply", "smem_core", X_SMEM_CORE, NULL, 0, NULL),
    AX("apply", "smem_swizzled", X_SMEM_SW, NULL, 0, NULL),

    AX("canonicalize", "tv_cta_cuda", X_TV_CTA, NULL, 1, NULL),
    AX("canonicalize", "tc_paper_cuda", X_TC_PAPER, NULL, 1, NULL),
    AX("canonicalize", "tmem_F", X_TMEM_F, NULL, 0, NULL),
    AX("canonicalize", "mesh_2x2_rep", X_MESH_2X2_REP, NULL, 0, NULL),
    AX("canonicalize", "mesh_8", X_MESH_8, NULL, 0, NULL),
    AX("canonicalize", "smem_128x64", X_SMEM, NULL, 0, NULL),

    AX("group", "tv_C", X_TV_C, NULL, 0, "[16,8]"),
    AX("group", "tv_cta", X_TV_CTA, NULL, 0, "[64,8]"),
    AX("group", "tmem_D", X_TMEM_D, NULL, 0, "[128,256]"),
    AX("group", "mesh_2x2", X_MESH_2X2, NULL, 0, "[64,128]"),
    AX("group", "mesh_8_rep", X_MESH_8_REP, NULL, 0, "[64,128]"),
    AX("group", "smem_core", X_SMEM_CORE, NULL, 0, "[128,64]"),

    AX("tile", "warps_x_tv_C", X_WARPS_2X2, X_TV_C, 1, "[2,2] [16,8]"),
    AX("tile", "tmem_2x2_x_half", X_TMEM_2X2, X_TMEM_HALF, 0, "[2,2] [64,128]"),
    AX("tile", "gpus_2x2_x_smem", X_GPUS_2X2, X_SHARD_32X64, 0,
       "[2,2] [32,64]"),
    AX("tile", "gpus_2x4_x_smem", X_GPUS_2X4, X_SHARD_32X32, 0,
       "[2,4] [32,32]"),
    AX("tile", "smem_atom_to_128x64", X_SMEM_GRID, X_SMEM_ATOM, 0,
       "[16,1] [8,64]"),
    AX("tile", "sw_atom_to_128x64", X_SMEM_GRID, X_SW_ATOM, 0, "[16,1] [8,64]"),

    AX("is_tile_inner", "tv_2x2_by_tv_C", X_TV_2X2, X_TV_C, 1,
       "[32,16] [16,8]"),
    AX("is_tile_inner", "mesh_2x2_by_smem", X_TILED_2X2, X_SHARD_32X64, 0,
       "[64,128] [32,64]"),
    AX("is_tile_inner", "mesh_8_by_smem", X_MESH_8, X_SHARD_32X32, 0,
       "[64,128] [32,32]"),
    AX("is_tile_inner", "smem_by_atom", X_SMEM, X_SMEM_ATOM, 0,
       "[128,64] [8,64]"),
    AX("is_tile_inner", "smem_sw_by_atom", X_SMEM_SW, X_SW_ATOM, 0,
       "[128,64] [8,64]"),

    AX("is_tile_outer", "tv_2x2_by_warps", X_TV_2X2, X_WARPS_2X2, 1,
       "[32,16] [2,2]"),
    AX("is_tile_outer", "mesh_2x2_by_gpus", X_TILED_2X2, X_GPUS_2X2, 0,
       "[64,128] [2,2]"),
    AX("is_tile_outer", "mesh_8_by_gpus", X_MESH_8, X_GPUS_2X4, 0,
       "[64,128] [2,4]"),
    AX("is_tile_outer", "smem_by_grid", X_SMEM, X_SMEM_GRID, 0,
       "[128,64] [16,1]"),

    AX("slice", "tv_C_rows_8_16", X_TV_C, NULL, 0, "[16,8] [8,0] [16,8]"),
    AX("slice", "tmem_D_cols_128", X_TMEM_D, NULL, 0,
       "[128,256] [0,128] [128,256]"),
    AX("slice", "mesh_2x2_gpu_3", X_MESH_2X2, NULL, 0,
       "[64,128] [32,64] [64,128]"),
    AX("slice", "smem_16x8_tile", X_SMEM, NULL, 0, "[128,64] [16,8] [32,16]"),
    AX("slice", "smem_sw_lower", X_SMEM_SW, NULL, 0,
       "[128,64] [64,0] [128,64]"),

    AX("direct_sum", "warps_tv_C", X_WARPS_2X2, X_TV_C, 0, "[2,2] [16,8]"),
    AX("direct_sum", "tmem_2x2_half", X_TMEM_2X2, X_TMEM_HALF, 0,
       "[2,2] [64,128]"),
    AX("direct_sum", "gpus_2x2_smem", X_GPUS_2X2, X_SHARD_32X64, 0,
       "[2,2] [32,64]"),
    AX("direct_sum", "gpus_2x4_smem", X_GPUS_2X4, X_SHARD_32X32, 0,
       "[2,4] [32,32]"),
};
/* clang-format on */

#define NSUITE ((int)(sizeof suite / sizeof suite[0]))

/* ---- the scaling series -------------------------------------------------- */

/*
 * For n = 2, 4, 8, 16 shard iters (h = n/2) over the shape [2^h, 2^h]:
 * gap(n) = S[(2,...,2):(4^(n-1),...,4,1)] (nothing fuses); I =
 * S[(2,2):(1,2)] over [2,2] (span 4 on m); T(n) = C ⊗ I for C the gap
 * iters scaled by 2 (n-2 of them, over [2^(h-1), 2^(h-1)]), written out:
 * per dim C's block times span(I) = 4, then I's iter, n iters that do
 * not fuse. Rows: apply and canonicalize of gap(n), group by the shape,
 * gap(n) ⊗ I, is_tile_inner(I, T(n)), is_tile_outer(C, T(n)), the slice
 * [2^(h-1), 2^h) x [0, 2^(h-1)), gap(n) + S[(2,2):(1@laneid,2@laneid)].
 */

#define SCALE_OPS 8
#define SCALE_ROWS (4 * SCALE_OPS)
#define SCALE_TEXT 512

static char scale_text[SCALE_ROWS][3][SCALE_TEXT];

/* S[(2,...,2):(strides)] of "n" iters on m ("S[(1,1):(1,1)]" for none). */
static void twos(char *buf, const int64_t *stride, int n)
{
    size_t k = (size_t)snprintf(buf, SCALE_TEXT, "S[(");
    if (n == 0) {
        snprintf(buf, SCALE_TEXT, "S[(1,1):(1,1)]");
        return;
    }
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, SCALE_TEXT - k, "%s2", i ? "," : "");
    k += (size_t)snprintf(buf + k, SCALE_TEXT - k, "):(");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, SCALE_TEXT - k, "%s%" PRId64,
                              i ? "," : "", stride[i]);
    snprintf(buf + k, SCALE_TEXT - k, ")]");
}

/* gap(n): strides 4^(n-1-i). */
static void gap(char *buf, int n)
{
    int64_t s[AXE_LAYOUT_MAX_SHARD];
    for (int i = 0; i < n; i++)
        s[i] = (int64_t)1 << (2 * (n - 1 - i));
    twos(buf, s, n);
}

/* C (outer factor of T(n)) when "tiled" is false, else T(n) itself. */
static void tiled(char *buf, int n, bool with_inner)
{
    int64_t s[AXE_LAYOUT_MAX_SHARD];
    int h = n / 2, k = 0;
    for (int i = 0; i < n - 2; i++) {
        s[k++] = ((int64_t)2 << (2 * (n - 3 - i))) * (with_inner ? 4 : 1);
        if (with_inner && i == h - 2)
            s[k++] = 1;
    }
    if (with_inner && h == 1)
        s[k++] = 1;
    if (with_inner)
        s[k++] = 2;
    twos(buf, s, k);
}

/* "[x,x]" followed by more lists, into "buf". */
static void shape_args(char *buf, int64_t side, const char *more)
{
    snprintf(buf, SCALE_TEXT, "[%" PRId64 ",%" PRId64 "]%s", side, side, more);
}

static void axe_scaling_row(int op, int n, char (*t)[SCALE_TEXT], bench_case *c)
{
    static const char *const names[SCALE_OPS] = {
        "axe_apply", "axe_canonicalize",  "axe_group",
        "axe_tile",  "axe_is_tile_inner", "axe_is_tile_outer",
        "axe_slice", "axe_direct_sum"};
    int64_t side = (int64_t)1 << (n / 2), half = side / 2;
    char more[96];
    *c = (bench_case){names[op], "axe_scaling", t[0], NULL, 0, 0, NULL, NULL};
    if (op == 4 || op == 5)
        tiled(t[0], n, true);
    else
        gap(t[0], n);
    if (op == 3 || op == 4)
        snprintf(t[1], SCALE_TEXT, "S[(2,2):(1,2)]");
    else if (op == 5)
        tiled(t[1], n, false);
    else if (op == 7)
        snprintf(t[1], SCALE_TEXT, "S[(2,2):(1@laneid,2@laneid)]");
    if (op >= 3 && op != 6)
        c->b = t[1];
    snprintf(more, sizeof more, op == 2 ? "" : " [2,2]");
    if (op == 5)
        snprintf(more, sizeof more, " [%" PRId64 ",%" PRId64 "]", half, half);
    if (op == 6)
        snprintf(more, sizeof more,
                 " [%" PRId64 ",0] [%" PRId64 ",%" PRId64 "]", half, side,
                 half);
    if (op >= 2)
        shape_args(t[2], side, more);
    if (op >= 2)
        c->args = t[2];
}

int bench_axe_cases(bench_case *out, int cap)
{
    static const int modes[] = {2, 4, 8, 16};
    int k = 0;
    for (int i = 0; i < NSUITE && k < cap; i++)
        out[k++] = suite[i];
    for (int op = 0, r = 0; op < SCALE_OPS; op++)
        for (int m = 0; m < 4 && k < cap; m++, k++, r++)
            axe_scaling_row(op, modes[m], scale_text[r], &out[k]);
    return k;
}
