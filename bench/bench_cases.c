/* SPDX-License-Identifier: Apache-2.0 */
/*
 * axe-bench's cases, written in the CuTe notation: the suite compared with
 * pycute (docs/bench.md), realistic layouts of GPU kernels (TV layouts of
 * the SM80 m16n8k16 mma atom, 128x64 shared-memory tiles, the swizzled
 * Sw<3,4,3> o 0 o (8,64):(64,1) atom) and a generated scaling series in
 * which operand a has 2, 4, 8 and 16 modes. Invariant: every row's operands
 * parse and the operation is defined on them (CuTe gives an answer).
 */
#include <inttypes.h>
#include <stdio.h>

#include "bench.h"

/* SM80 m16n8k16 (A: 16x16 M-major, B: 8x16, C: 16x8) thread-value layouts:
 * (thread, value) -> element index of the operand tile, as in CuTe's
 * mma_traits_sm80.h. */
#define TV_A "((4,8),(2,2,2)):((32,1),(16,8,128))"
#define TV_B "((4,8),(2,2)):((16,1),(8,64))"
#define TV_C "((4,8),(2,2)):((32,1),(16,8))"
/* A 128x64 row-major shared-memory tile and the 8x64 atom it is built of. */
#define SMEM "(128,64):(64,1)"
#define ATOM "(8,64):(64,1)"
#define SMEM_TILES "((16,8),(8,8)):((64,1),(1024,8))"
#define SWIZZLED "Sw<3,4,3> o 0 o (8,64):(64,1)"
/* A 16x8 column-major tile, an 8x8 grid of tiles, a 16x16 fragment. */
#define TILE "(16,8):(1,16)"
#define GRID "(8,8):(1,8)"
#define FRAG "(16,16):(1,16)"

/* clang-format off */
/* A row without Axe arguments or label. */
#define ROW(op, name, a, b, p0, p1) {op, name, a, b, p0, p1, NULL, NULL}

static const bench_case fixed_cases[] = {
    /* The suite: the same seven cases are timed with pycute. */
    ROW("compose", "suite", "(8,8):(8,1)", "((4,8),2):((16,1),8)", 0, 0),
    ROW("complement", "suite", "(4,8):(1,8)", NULL, 128, 0),
    ROW("logical_divide", "suite", "(8,16):(20,1)", "<4:1, 8:2>", 0, 0),
    ROW("coalesce", "suite", "((2,2),(4,2)):((1,8),(2,16))", NULL, 0, 0),
    ROW("right_inverse", "suite", "((2,2),(4,2)):((1,8),(2,16))", NULL, 0, 0),
    ROW("logical_product", "suite", "(3,4):(4,1)", "(2,5):(1,2)", 0, 0),
    ROW("zipped_divide", "suite", SMEM, "<16:1, 8:1>", 0, 0),

    /* Composition: an mma fragment into a smem tile, a tile of a tile. */
    ROW("compose", "tv_A_into_smem_16x16", "(16,16):(16,1)", TV_A, 0, 0),
    ROW("compose", "smem_128x64_tile_16x8", SMEM, "(16,8):(1,128)", 0, 0),
    ROW("compose_tiler", "smem_128x64", SMEM, "<16:1, 8:1>", 0, 0),
    ROW("complement", "tv_A_threads", "(4,8):(32,1)", NULL, 256, 0),
    ROW("complement", "smem_tile_16x8", "(16,8):(64,1)", NULL, 8192, 0),
    ROW("coalesce", "tv_m16n8k16_A", TV_A, NULL, 0, 0),
    ROW("coalesce", "tv_m16n8k16_C", TV_C, NULL, 0, 0),
    ROW("coalesce", "smem_128x64_col", "(128,64):(1,128)", NULL, 0, 0),
    ROW("coalesce", "smem_128x64_tiles", SMEM_TILES, NULL, 0, 0),
    ROW("coalesce_by", "tv_m16n8k16_A", TV_A, "(1,1)", 0, 0),
    ROW("filter", "bcast_128x64", "(128,64):(0,1)", NULL, 0, 0),
    ROW("filter", "tv_bcast", "((4,8),(2,2)):((0,1),(0,8))", NULL, 0, 0),
    ROW("filter_zeros", "tv_bcast", "((4,8),(2,2)):((0,1),(0,8))", NULL, 0, 0),

    /* Inverses of TV layouts give (element -> thread, value). */
    ROW("right_inverse", "tv_m16n8k16_A", TV_A, NULL, 0, 0),
    ROW("right_inverse", "tv_m16n8k16_C", TV_C, NULL, 0, 0),
    ROW("right_inverse", "smem_128x64", SMEM, NULL, 0, 0),
    ROW("left_inverse", "tv_m16n8k16_A", TV_A, NULL, 0, 0),
    ROW("left_inverse", "tv_m16n8k16_B", TV_B, NULL, 0, 0),
    ROW("left_inverse", "smem_128x64", SMEM, NULL, 0, 0),
    ROW("nullspace", "bcast_128x64", "(128,64):(0,1)", NULL, 0, 0),

    /* Divides: tiling a smem tile for the mma, the swizzle atom's inner. */
    ROW("logical_divide", "smem_128x64", SMEM, "<16:1, 8:1>", 0, 0),
    ROW("logical_divide", "smem_128x64_by_tv_A", SMEM, TV_A, 0, 0),
    ROW("zipped_divide", "smem_128x64_16x16", SMEM, "<16:1, 16:1>", 0, 0),
    ROW("zipped_divide", "sw_atom_8x8", ATOM, "<8:1, 8:1>", 0, 0),
    ROW("tiled_divide", "smem_128x64", SMEM, "<16:1, 8:1>", 0, 0),
    ROW("flat_divide", "smem_128x64", SMEM, "<16:1, 8:1>", 0, 0),

    /* Products: repeating a tile, a thread layout with values per thread. */
    ROW("logical_product", "tile_16x8_by_8x8", TILE, GRID, 0, 0),
    ROW("zipped_product", "tile_16x8_by_8x8", TILE, GRID, 0, 0),
    ROW("tiled_product", "tile_16x8_by_8x8", TILE, GRID, 0, 0),
    ROW("flat_product", "tile_16x8_by_8x8", TILE, GRID, 0, 0),
    ROW("blocked_product", "atom_to_128x64", ATOM, "(16,1):(1,0)", 0, 0),
    ROW("raked_product", "thr_4x8_val_2x2", "(4,8):(8,1)", "(2,2):(2,1)", 0, 0),
    ROW("tile_to_shape", "atom_8x64_to_128x64", ATOM, "(128,64)", 0, 0),
    ROW("tile_to_shape", "atom_8x8_to_128x64", "(8,8):(8,1)", "(128,64)", 0, 0),

    /* Slicing: one tile of a divided smem tile, one thread's values. */
    ROW("slice", "smem_tiles_tile_3_5", SMEM_TILES, "(_,(3,5))", 0, 0),
    ROW("slice", "tv_A_thread_5", TV_A, "(5,_)", 0, 0),
    ROW("slice", "smem_128x64_col_7", SMEM, "(_,7)", 0, 0),
    ROW("dice", "smem_tiles_tile_3_5", SMEM_TILES, "(_,(3,5))", 0, 0),

    /* Vectorization and element-type recasts of a smem tile. */
    ROW("max_common_vector", "smem_vs_gmem", SMEM, "(128,64):(1024,1)", 0, 0),
    ROW("max_common_layout", "smem_vs_gmem", SMEM, "(128,64):(1024,1)", 0, 0),
    ROW("max_common_vector", "tv_A_vs_smem", FRAG, FRAG, 0, 0),
    ROW("upcast", "smem_128x64_by_8", SMEM, NULL, 8, 0),
    ROW("downcast", "smem_128x64_by_2", SMEM, NULL, 2, 0),
    ROW("recast", "smem_128x64_16_to_128", SMEM, NULL, 16, 128),

    /* Evaluation, per element over the whole domain. */
    ROW("eval", "tv_m16n8k16_A", TV_A, NULL, 0, 0),
    ROW("eval", "smem_128x64", SMEM, NULL, 0, 0),
    ROW("eval", "smem_tiles", SMEM_TILES, NULL, 0, 0),
    ROW("eval_point", "identity_128x64", "(128,64):(1@0,1@1)", NULL, 0, 0),
    ROW("composed_eval", "sw343_8x64", SWIZZLED, NULL, 0, 0),
    ROW("swizzle_eval", "sw343_8x64", SWIZZLED, NULL, 0, 0),

    /* The harness alone: an empty operation. */
    ROW("baseline", "call_overhead", "1:0", NULL, 0, 0),
};
/* clang-format on */

int bench_fixed_cases(const bench_case **out)
{
    *out = fixed_cases;
    return (int)(sizeof fixed_cases / sizeof fixed_cases[0]);
}

/* ---- the scaling series ------------------------------------------------ */

#define SCALING_ROWS 24
#define SCALING_TEXT 400

static char scaling_text[SCALING_ROWS][2][SCALING_TEXT];

/* The layout (2,2,...,2):(d_0,...,d_{n-1}) with d_i = ratio^i, or with
 * reversed strides d_i = ratio^(n-1-i) if "reverse"; a scalar for n = 1. */
static void pow_layout(char *buf, int n, int64_t ratio, int reverse)
{
    int64_t d[32], p = 1;
    size_t k = 0;
    for (int i = 0; i < n; i++, p *= ratio)
        d[reverse ? n - 1 - i : i] = p;
    if (n == 1) {
        snprintf(buf, SCALING_TEXT, "2:%" PRId64, d[0]);
        return;
    }
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, SCALING_TEXT - k, "%s2", i ? "," : "(");
    k += (size_t)snprintf(buf + k, SCALING_TEXT - k, "):");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, SCALING_TEXT - k, "%s%" PRId64,
                              i ? "," : "(", d[i]);
    snprintf(buf + k, SCALING_TEXT - k, ")");
}

/*
 * One row per op and n. With rev(n) = (2,...,2):(2^(n-1),...,2,1) (a
 * compact permutation) and gap(n) = (2,...,2):(1,4,...,4^(n-1)) (every
 * other bit): compose rev(n) o rev(n); complement of gap(n) to 4^n;
 * coalesce gap(n) (nothing merges); right_inverse rev(n); logical_divide
 * rev(n) by gap(n/2); logical_product rev(n) x (4,4):(4,1).
 */
static void scaling_row(int op, int n, char *a, char *b, bench_case *c)
{
    static const char *const names[] = {"compose",        "complement",
                                        "coalesce",       "right_inverse",
                                        "logical_divide", "logical_product"};
    *c = (bench_case){names[op], "scaling", a, NULL, 0, 0, NULL, NULL};
    pow_layout(a, n, op == 1 || op == 2 ? 4 : 2, !(op == 1 || op == 2));
    if (op == 0)
        pow_layout(b, n, 2, 1);
    else if (op == 4)
        pow_layout(b, n / 2, 4, 0);
    else if (op == 5)
        snprintf(b, SCALING_TEXT, "(4,4):(4,1)");
    if (op == 0 || op >= 4)
        c->b = b;
    if (op == 1)
        c->p0 = (int64_t)1 << (2 * n);
}

int bench_scaling_cases(bench_case *out, int cap)
{
    static const int modes[] = {2, 4, 8, 16};
    int k = 0;
    for (int op = 0; op < 6; op++) {
        for (int m = 0; m < 4 && k < cap && k < SCALING_ROWS; m++, k++)
            scaling_row(op, modes[m], scaling_text[k][0], scaling_text[k][1],
                        &out[k]);
    }
    return k;
}
