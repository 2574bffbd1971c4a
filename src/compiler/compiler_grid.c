/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Grid-scope schedules (docs/compiler.md, "Grid-scope work"): a
 * kernel-scope reduce (reduce.grid) or gemm (gemm.split_k) over global
 * tensors combines into its destination's contents, d[c] = d[c] (+ or
 * max) the terms of c in order. The work items (ax_grid in
 * compiler_internal.h) are the destination's elements times chunks of the
 * reduced dimension, dealt round-robin to the grid's threads. The reduced
 * dimension is split into chunks only when the destination can take
 * atomics (f32 and i32: atomicAdd, atomicMax, a compare-and-swap loop for
 * an f32 max) and there are fewer elements than threads; then each item's
 * partial is combined by an atomic, otherwise one thread owns each element
 * and updates it in place, in order, exactly as the reference does.
 * Invariant: chunk * nchunk >= len > chunk * (nchunk - 1), cells * nchunk
 * items, every coordinate of the operator's shape in exactly one item.
 */
#include "compiler_internal.h"

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

/* Whether the destination's dtype has atomics (f32, i32). */
static bool has_atomics(const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    return d == AXE_DTYPE_F32 || d == AXE_DTYPE_I32;
}

/* The items of "s" over "threads" grid threads (see the file comment):
 * chunks of the reduced dimension only with atomics and fewer elements
 * than threads, as many as fill the threads. */
static void shape_items(const axe_program *p, const ax_stmt *s, int64_t threads,
                        ax_grid *g)
{
    const ax_ref *dst = &s->args[0];
    int d;
    g->kdim = dst->bdim;
    g->len = axe__ref_len(dst, g->kdim);
    g->cells = 1;
    for (d = 0; d < axe__ref_ndim(dst); d++)
        if (d != g->kdim)
            g->cells *= axe__ref_len(dst, d);
    g->threads = threads;
    g->nchunk = 1;
    if (has_atomics(p, s) && g->cells < threads)
        g->nchunk = ceil_div(threads, g->cells);
    if (g->nchunk > g->len)
        g->nchunk = g->len;
    g->chunk = ceil_div(g->len, g->nchunk);
    g->nchunk = ceil_div(g->len, g->chunk);
}

/* The predicate of both schedules: kernel scope only. The plan is a split
 * plan without loops (the race detector and the phase logic read its
 * kind and thread count); the items are the schedule's own. */
static axe_status grid_applies(axe_program *p, ax_stmt *s, ax_plan *plan,
                               axe_diag *why, bool commit)
{
    static const ax_plan zero;
    int64_t threads = axe__scope_threads(p, AX_SCOPE_KERNEL);
    ax_grid g;
    if (s->scope != AX_SCOPE_KERNEL)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "not at kernel scope (it splits the reduced "
                         "dimension over the grid's threads)");
    if (s->op == AX_OP_REDUCE && axe__red_is_arg(s->rkind))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "an %s over the grid would combine a value and its "
                         "index in one atomic (a 64-bit compare-and-swap); "
                         "not supported",
                         s->rkind == AX_RED_ARGMAX ? "argmax" : "argmin");
    if (threads == INT64_MAX)
        return axe__fail(why, AXE_ERR_OVERFLOW, -1,
                         "the grid's thread count overflows");
    shape_items(p, s, threads, &g);
    *plan = zero;
    plan->kind = AX_PLAN_SPLIT;
    plan->binding = -1;
    plan->vec = 1;
    plan->total = g.cells * g.nchunk;
    plan->nthreads = threads;
    if (!commit)
        return AXE_OK;
    s->grid = axe__arena_alloc(p->arena, sizeof *s->grid);
    if (s->grid == NULL)
        return AXE_ERR_NO_MEMORY;
    *s->grid = g;
    s->atomic = g.nchunk > 1;
    return AXE_OK;
}

/* reduce.grid: a kernel-scope reduce (see the file comment). */
axe_status axe__reduce_grid(axe_program *p, ax_stmt *s, ax_plan *plan,
                            axe_diag *why, bool commit)
{
    return grid_applies(p, s, plan, why, commit);
}

/* gemm.split_k: a kernel-scope gemm, K split over the grid's threads when
 * C has atomics (see the file comment). */
axe_status axe__gemm_split_k(axe_program *p, ax_stmt *s, ax_plan *plan,
                             axe_diag *why, bool commit)
{
    return grid_applies(p, s, plan, why, commit);
}

/* "ADD", "MAX" or "MIN": the atomic that combines a partial of "s". */
const char *axe__grid_combine(const ax_stmt *s)
{
    if (s->op != AX_OP_REDUCE || s->rkind == AX_RED_SUM)
        return "ADD";
    return s->rkind == AX_RED_MAX ? "MAX" : "MIN";
}

/* The rank of item (cell, chunk) of coordinate "c": cell is the row-major
 * index of c without kdim. */
int64_t axe__grid_rank(const ax_grid *g, const ax_stmt *s, const int64_t *c)
{
    const ax_ref *dst = &s->args[0];
    int64_t cell = 0;
    int d;
    for (d = 0; d < axe__ref_ndim(dst); d++)
        if (d != g->kdim)
            cell = cell * axe__ref_len(dst, d) + c[d];
    return (c[g->kdim] / g->chunk * g->cells + cell) % g->threads;
}

/* "    N items (M elements x J chunks of K along dim D) over T grid
 * threads; ..." for --explain. */
void axe__grid_describe(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const ax_grid *g = s->grid;
    const char *d = p->tensors[s->args[0].tensor].name;
    axe__text_put(t,
                  "    %lld elements of '%s' x %lld chunks of %lld along dim "
                  "%d (of %lld) = %lld items, dealt over %lld grid threads\n",
                  (long long)g->cells, d, (long long)g->nchunk,
                  (long long)g->chunk, g->kdim, (long long)g->len,
                  (long long)(g->cells * g->nchunk), (long long)g->threads);
    if (g->nchunk > 1)
        axe__text_put(t,
                      "    atomics: each item's partial is combined into "
                      "'%s' by AXE_ATOMIC_%s_%s (one kernel, no grid "
                      "barrier)\n",
                      d, axe__grid_combine(s),
                      p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_I32
                          ? "I32"
                          : "F32");
    else
        axe__text_put(t,
                      "    no atomics: one thread owns each element of "
                      "'%s' and updates it in place, in order%s\n",
                      d,
                      has_atomics(p, s) ? "" : " (its dtype has no atomics)");
}
