/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for grid-scope work: the AXE_ATOMIC_* macros of the generated C
 * (a CUDA backend maps each to atomicAdd, atomicMax, atomicMin or, for an
 * f32 max or min (fmaxf/fminf: a NaN is ignored), a compare-and-swap
 * loop; the C backend runs one thread at a time, so an atomic
 * read-modify-write is a plain one), and the C of the grid schedules.
 */
#include <string.h>

#include "compiler_internal.h"

static const char *const atomic_names[] = {
    "AXE_ATOMIC_ADD_F32(", "AXE_ATOMIC_ADD_I32(", "AXE_ATOMIC_MAX_F32(",
    "AXE_ATOMIC_MAX_I32(", "AXE_ATOMIC_MIN_F32(", "AXE_ATOMIC_MIN_I32("};
static const char *const atomic_texts[] = {
    "#define AXE_ATOMIC_ADD_F32(p, v) (*(p) = *(p) + (float)(v))\n",
    "#define AXE_ATOMIC_ADD_I32(p, v) "
    "(*(p) = ax_s32((uint32_t)*(p) + (uint32_t)(v)))\n",
    "#define AXE_ATOMIC_MAX_F32(p, v) (*(p) = fmaxf(*(p), (float)(v)))\n",
    "#define AXE_ATOMIC_MAX_I32(p, v) (*(p) = AXE_MAX(*(p), (int32_t)(v)))\n",
    "#define AXE_ATOMIC_MIN_F32(p, v) (*(p) = fminf(*(p), (float)(v)))\n",
    "#define AXE_ATOMIC_MIN_I32(p, v) "
    "(*(p) = *(p) < (int32_t)(v) ? *(p) : (int32_t)(v))\n"};

/* The atomic macros that the generated code "body" uses, each emitted
 * only when used (i32 adds wrap through ax_s32, emitted with them). */
void axe__emit_atomic_helpers(ax_text *t, const char *body)
{
    int i, n = 0;
    for (i = 0; i < 6; i++) {
        if (body == NULL || strstr(body, atomic_names[i]) == NULL)
            continue;
        if (n++ == 0)
            axe__text_put(t, "/* Atomic read-modify-writes of global memory "
                             "(atomicAdd, atomicMax or a\n * compare-and-swap "
                             "loop on a GPU); here one thread runs at a "
                             "time. */\n");
        axe__text_put(t, "%s", atomic_texts[i]);
    }
    if (n > 0)
        axe__text_put(t, "\n");
}

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* The address of operand "r" at the coordinates ax_c0, ax_c1, ... of the
 * operator's shape: a view's strides and offsets, or the tensor's grouped
 * iters per dimension, ((start + c) / inner) % extent * stride (the
 * outermost iter of a dimension needs no %: the coordinate is inside the
 * tensor). Every divisor is a literal. */
static void addr(ax_text *t, const axe_program *p, const ax_ref *r)
{
    const ax_tensor *tn = &p->tensors[r->tensor];
    int64_t off = 0;
    int d, j, o;
    const axe_layout *l = r->is_view ? &r->view : &tn->layout;
    for (o = 0; o < l->noffset; o++)
        off += l->offset[o].value;
    axe__text_put(t, "%lldL", (long long)off);
    if (r->is_view && r->view_dyn != NULL) {
        axe__text_put(t, " + (");
        axe__expr_print_c(t, p, r->view_dyn);
        axe__text_put(t, ")");
    }
    for (d = 0; d < r->ndim; d++) {
        int od = d + (r->bdim >= 0 && d >= r->bdim);
        int64_t lo = 1;
        if (r->is_view) {
            axe__text_put(t, " + ax_c%d * %lldL", od,
                          (long long)r->view.shard[d].stride);
            continue;
        }
        for (j = tn->seps[d + 1] - 1; j >= tn->seps[d]; j--) {
            const axe_iter *it = &tn->grouped.shard[j];
            if (it->extent > 1 && it->stride != 0) {
                axe__text_put(t, " + (ax_c%d", od);
                if (r->start[d] != NULL) {
                    axe__text_put(t, " + (");
                    axe__expr_print_c(t, p, r->start[d]);
                    axe__text_put(t, ")");
                }
                axe__text_put(t, ")");
                if (lo > 1)
                    axe__text_put(t, " / %lldL", (long long)lo);
                if (j > tn->seps[d])
                    axe__text_put(t, " %% %lldL", (long long)it->extent);
                axe__text_put(t, " * %lldL", (long long)it->stride);
            }
            lo *= it->extent;
        }
    }
}

static void element(ax_text *t, const axe_program *p, const ax_stmt *s, int i)
{
    axe__text_put(t, "%s[", p->tensors[s->args[i].tensor].cname);
    addr(t, p, &s->args[i]);
    axe__text_put(t, "]");
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32;
}

/* Operand "i" in its arithmetic type: f16/bf16 widened to float, the
 * integers of a sum or gemm as uint32_t (they wrap). */
static void load(ax_text *t, const axe_program *p, const ax_stmt *s, int i)
{
    bool wrap = is_int(p->tensors[s->args[0].tensor].dtype) &&
                axe__grid_combine(s)[0] == 'A';
    axe__text_put(t, "%s%s", wrap ? "(uint32_t)" : "",
                  axe__operand_pre(p, s, i));
    element(t, p, s, i);
    axe__text_put(t, "%s", axe__operand_post(p, s, i));
}

/* The max or min function of the destination's dtype: fmaxf/fminf (fmax,
 * fmin for f64: maxNum/minNum, as the reference), AXE_MAX/AXE_MIN for
 * integers. */
static const char *minmax_fn(const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    bool max = axe__grid_combine(s)[1] == 'A';
    if (is_int(d))
        return max ? "AXE_MAX" : "AXE_MIN";
    if (d == AXE_DTYPE_F64)
        return max ? "fmax" : "fmin";
    return max ? "fmaxf" : "fminf";
}

/* The term of coordinate c combined with "acc" (a C expression): acc +
 * s[c], max or min of acc and s[c], or acc + A[c] * B[c]. */
static void step(ax_text *t, const axe_program *p, const ax_stmt *s,
                 const char *acc)
{
    if (axe__grid_combine(s)[0] == 'M') {
        axe__text_put(t, "%s(%s, ", minmax_fn(p, s), acc);
        load(t, p, s, 1);
        axe__text_put(t, ")");
        return;
    }
    axe__text_put(t, "%s + ", acc);
    load(t, p, s, 1);
    if (s->op == AX_OP_GEMM) {
        axe__text_put(t, " * ");
        load(t, p, s, 2);
    }
}

/* dst = step(dst), stored as the destination's dtype: f16/bf16 rounded,
 * integer sums wrapped (ax_s32, ax_s8), others cast. */
static void update_in_place(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    ax_text cur;
    axe__text_init(&cur, t->arena);
    load(&cur, p, s, 0);
    indent_put(t, ind);
    element(t, p, s, 0);
    if (axe__dtype_is_half(d))
        axe__text_put(t, " = %s(", axe__dtype_store_pre(d));
    else if (is_int(d) && axe__grid_combine(s)[0] == 'A')
        axe__text_put(t, " = ax_s%s(", d == AXE_DTYPE_I8 ? "8" : "32");
    else
        axe__text_put(t, " = (%s)(", axe__dtype_ctype(d));
    if (cur.status != AXE_OK)
        t->status = cur.status;
    step(t, p, s, cur.buf != NULL ? cur.buf : "");
    axe__text_put(t, ")%s;\n", axe__dtype_wrap_post(d));
}

/* A partial over the item's chunk, then an atomic into the element. */
static void atomic_partial(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int ind)
{
    const ax_grid *g = s->grid;
    bool i32 = p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_I32;
    const char *op = axe__grid_combine(s);
    bool max = op[1] == 'A', sum = op[0] == 'A';
    indent_put(t, ind);
    axe__text_put(t, "const long ax_k0 = ax_u / %lldL * %lldL;\n",
                  (long long)g->cells, (long long)g->chunk);
    indent_put(t, ind);
    axe__text_put(t,
                  "const long ax_k1 = ax_k0 + %lldL < %lldL ? ax_k0 + %lldL "
                  ": %lldL;\n",
                  (long long)g->chunk, (long long)g->len, (long long)g->chunk,
                  (long long)g->len);
    indent_put(t, ind);
    axe__text_put(
        t, "%s ax_acc = %s;\n", i32 ? (max ? "int32_t" : "uint32_t") : "float",
        max ? (i32 ? "INT32_MIN" : "-INFINITY") : (i32 ? "0u" : "0.0f"));
    indent_put(t, ind);
    axe__text_put(t, "for (long ax_c%d = ax_k0; ax_c%d < ax_k1; ++ax_c%d)\n",
                  g->kdim, g->kdim, g->kdim);
    indent_put(t, ind + 1);
    axe__text_put(t, "ax_acc = %s", i32 && !sum ? "(int32_t)" : "");
    step(t, p, s, "ax_acc");
    axe__text_put(t, ";\n");
    indent_put(t, ind);
    axe__text_put(t, "AXE_ATOMIC_%s_%s(&", op, i32 ? "I32" : "F32");
    element(t, p, s, 0);
    axe__text_put(t, ", ax_acc);\n");
}

/* The coordinates of item ax_u's element (row-major over the dims other
 * than kdim). */
static void cell_coords(ax_text *t, const ax_stmt *s, int ind)
{
    const ax_ref *dst = &s->args[0];
    int64_t w = 1;
    int d;
    for (d = axe__ref_ndim(dst) - 1; d >= 0; d--) {
        if (d == s->grid->kdim)
            continue;
        indent_put(t, ind);
        axe__text_put(t, "const long ax_c%d = ax_u / %lldL %% %lldL;\n", d,
                      (long long)w, (long long)axe__ref_len(dst, d));
        w *= axe__ref_len(dst, d);
    }
}

/* reduce.grid / gemm.split_k for the current thread: its items (rank,
 * rank + threads, ...), each folded over its chunk of the reduced
 * dimension. */
void axe__emit_grid(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    const ax_grid *g = s->grid;
    indent_put(t, ind);
    axe__text_put(
        t, "{ /* op %d (line %d%s%s): kernel %s -- schedule %s.%s, %s */\n",
        s->index, s->line, axe__iter_sep(s), axe__iter(s), axe__op_name(s->op),
        axe__op_name(s->op), s->schedule,
        g->nchunk > 1 ? "atomics" : "no atomics");
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "const long ax_rank = ((bz * %lldL + by) * %lldL + bx) * "
                  "%lldL + ax_tid;\n",
                  (long long)p->grid[1], (long long)p->grid[0],
                  (long long)p->threads);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "for (long ax_u = ax_rank; ax_u < %lldL; ax_u += %lldL) {\n",
                  (long long)(g->cells * g->nchunk), (long long)g->threads);
    cell_coords(t, s, ind + 2);
    if (g->nchunk > 1) {
        atomic_partial(t, p, s, ind + 2);
    } else {
        indent_put(t, ind + 2);
        axe__text_put(t, "for (long ax_c%d = 0; ax_c%d < %lldL; ++ax_c%d)\n",
                      g->kdim, g->kdim, (long long)g->len, g->kdim);
        update_in_place(t, p, s, ind + 3);
    }
    indent_put(t, ind + 1);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}
