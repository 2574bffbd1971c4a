/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for one step of `reduce.tree` inside a thread's phase. The scratch
 * holds each scope instance's copy of the source, row-major, at "size"
 * elements per instance (the instance's warp or warpgroup number times
 * size); a row is every element with the same coordinates outside the
 * reduced dim, whose elements lie "inner" apart. A step at length m (h =
 * ceil(m / 2)) combines element i with element i + h for i < m - h, in
 * the arithmetic of the reduce: floating-point sums in the scratch's
 * dtype, max and min as fmax/fmin (a NaN loses to a number) or integer
 * comparisons, integer sums in uint32_t stored through ax_s32/ax_s8
 * (wrapping). The instance's threads take the (row, i) pairs
 * round-robin. Every divisor printed is a literal.
 */
#include "compiler_internal.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* The thread's rank in the instance and the instance's scratch base. */
static void rank_base(ax_text *t, const axe_program *p, const ax_stmt *s,
                      int ind)
{
    const char *rank = s->scope == AX_SCOPE_WARP        ? "laneid"
                       : s->scope == AX_SCOPE_WARPGROUP ? "tid_in_wg"
                                                        : "ax_tid";
    const char *inst = s->scope == AX_SCOPE_WARP        ? "warpid"
                       : s->scope == AX_SCOPE_WARPGROUP ? "wgid"
                                                        : "0L";
    (void)p;
    indent_put(t, ind);
    axe__text_put(t, "const long ax_rank = %s, ax_base = %s * %lldL;\n", rank,
                  inst, (long long)s->tree->size);
}

/* The scratch element at index expression "idx", accessed as "acc"
 * (through the access macros where the backend has them, so the CUDA
 * emulation's race detector sees the tree's shared-memory traffic). */
static void scratch_at(ax_text *t, const axe_program *p, const ax_stmt *s,
                       ax_access acc, const char *idx)
{
    const ax_tensor *x = &p->tensors[s->tree->scratch];
    axe__emit_access_open(t, p, x, NULL, acc, NULL);
    axe__text_put(t, "%s", idx);
    axe__emit_access_close(t, p, x, NULL, s->line);
}

/* x[a] = x[a] (+, max or min) x[b] in the scratch "x": integers compare
 * (AXE_MAX, AXE_MIN) and sum in uint32_t (wrapping), floats take fmax or
 * fmin (a NaN loses to a number, as the reference's) or add. */
static void combine(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    const ax_tensor *x = &p->tensors[s->tree->scratch];
    bool is_int = x->dtype == AXE_DTYPE_I32 || x->dtype == AXE_DTYPE_I8;
    const char *fn = s->rkind == AX_RED_MAX ? "max" : "min";
    indent_put(t, ind);
    scratch_at(t, p, s, AX_ACC_ST, "ax_a");
    axe__text_put(t, " = ");
    if (s->rkind != AX_RED_SUM && is_int)
        axe__text_put(t, "AXE_%s(", s->rkind == AX_RED_MAX ? "MAX" : "MIN");
    else if (s->rkind != AX_RED_SUM)
        axe__text_put(t, "f%s%s(", fn, x->dtype == AXE_DTYPE_F64 ? "" : "f");
    else if (is_int)
        axe__text_put(t, "ax_s%s((uint32_t)",
                      x->dtype == AXE_DTYPE_I8 ? "8" : "32");
    scratch_at(t, p, s, AX_ACC_LD, "ax_a");
    axe__text_put(t, "%s",
                  s->rkind != AX_RED_SUM ? ", "
                  : is_int               ? " + (uint32_t)"
                                         : " + ");
    scratch_at(t, p, s, AX_ACC_LD, "ax_b");
    axe__text_put(t, "%s;\n", s->rkind != AX_RED_SUM || is_int ? ")" : "");
}

/* The step at length "m" (see the file comment). */
void axe__emit_tree_step(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int64_t m, int ind)
{
    const ax_tree *tr = s->tree;
    int64_t h = m - m / 2, cnt = m / 2, rows = tr->size / tr->n;
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): tree step, %lld -> %lld elements "
                  "per row */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  (long long)m, (long long)h);
    rank_base(t, p, s, ind + 1);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "for (long ax_u = ax_rank; ax_u < %lldL; ax_u += %lldL) "
                  "{\n",
                  (long long)(rows * cnt),
                  (long long)axe__scope_threads(p, s->scope));
    indent_put(t, ind + 2);
    axe__text_put(t,
                  "const long ax_r = ax_u / %lldL, ax_a = ax_base + ax_r / "
                  "%lldL * %lldL + ax_r %% %lldL + ax_u %% %lldL * %lldL;\n",
                  (long long)cnt, (long long)tr->inner,
                  (long long)(tr->n * tr->inner), (long long)tr->inner,
                  (long long)cnt, (long long)tr->inner);
    indent_put(t, ind + 2);
    axe__text_put(t, "const long ax_b = ax_a + %lldL;\n",
                  (long long)(h * tr->inner));
    combine(t, p, s, ind + 2);
    indent_put(t, ind + 1);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}
