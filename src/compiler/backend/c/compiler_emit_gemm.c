/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for a per-thread gemm (`gemm.thread_fma`), register-blocked: the
 * thread's C elements of a block of its M and N loops are loaded into a
 * local array, then for every k in order the block's A column and B row
 * are loaded (widened to the arithmetic type) into local arrays and every
 * C element of the block takes its product, the innermost loop running
 * contiguously over the local arrays (so a C compiler vectorizes it); the
 * block is stored back at the end. The M and N loops outside the block
 * (when the thread's tile passes the block's capacity) enclose all of
 * this. Per C element the products are added in the order of k, each
 * rounded as the plain loop rounds it (docs/compiler.md, "Semantics"), so
 * the result is the same bit for bit. Applies to an affine plan without
 * vector accesses whose K digits are loops and whose C tensor is neither
 * A's nor B's (a block holds C while A and B are read); otherwise the
 * plain loop nest of compiler_emit_op.c is emitted. A swizzled operand's
 * element address goes through its swizzle (ax_swz), as in the plain
 * loop.
 */
#include <string.h>

#include "compiler_backend.h"

/* Capacities of a block: elements along N, and in all. */
#define AX_BLOCK_N 64
#define AX_BLOCK_C 256

/* The loops of a gemm plan by role: K loops (largest weight first, so k
 * runs in order), the block's M and N loops and the loops around it, each
 * in plan order; "cm" and "cn" the block's extents. */
typedef struct gemm_block {
    int k[AX_MAX_LOOPS], m[AX_MAX_LOOPS], n[AX_MAX_LOOPS], o[AX_MAX_LOOPS];
    int nk, nm, nn, no;
    int64_t cm, cn;
} gemm_block;

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

static void sort_k(const ax_plan *plan, gemm_block *b)
{
    int i, j;
    for (i = 1; i < b->nk; i++)
        for (j = i; j > 0 && plan->loops[b->k[j - 1]].weight <
                                 plan->loops[b->k[j]].weight;
             j--) {
            int x = b->k[j];
            b->k[j] = b->k[j - 1];
            b->k[j - 1] = x;
        }
}

/* Takes the innermost loops of dimension "dim" into the block while the
 * block stays within "cap" elements ("*ext" grows; "other" is the extent
 * of the block's other dimension); "in" marks the loops taken. */
static void take(const ax_plan *plan, int dim, int64_t cap, int64_t other,
                 int64_t *ext, bool *in)
{
    int k;
    for (k = plan->nloops - 1; k >= 0; k--) {
        const ax_loop *lp = &plan->loops[k];
        if (lp->thread || lp->dim != dim)
            continue;
        if (lp->extent > cap / (*ext * other))
            return;
        *ext *= lp->extent;
        in[k] = true;
    }
}

static void classify(const ax_plan *plan, gemm_block *b)
{
    bool in[AX_MAX_LOOPS] = {false};
    int k;
    memset(b, 0, sizeof *b);
    b->cm = b->cn = 1;
    take(plan, 1, AX_BLOCK_N, 1, &b->cn, in);
    take(plan, 0, AX_BLOCK_C, b->cn, &b->cm, in);
    for (k = 0; k < plan->nloops; k++) {
        const ax_loop *lp = &plan->loops[k];
        if (lp->thread)
            continue;
        if (lp->dim == 2)
            b->k[b->nk++] = k;
        else if (!in[k])
            b->o[b->no++] = k;
        else if (lp->dim == 0)
            b->m[b->nm++] = k;
        else
            b->n[b->nn++] = k;
    }
    sort_k(plan, b);
}

/* Whether the blocked form applies to "s" (see the file comment). */
static bool applies(const ax_stmt *s)
{
    const ax_plan *plan = s->plan;
    int c = s->args[0].tensor, k, i;
    if (plan->kind == AX_PLAN_SPLIT || plan->vec != 1 ||
        c == s->args[1].tensor || c == s->args[2].tensor)
        return false;
    for (i = 0; i < 3; i++)
        if (!plan->affine[i])
            return false;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].dim == 2)
            return false;
    return true;
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32;
}

/* The type in which "s" multiplies: uint32_t for integers (they wrap),
 * float for f16/bf16, else the operands' C type. */
static const char *arith_type(const axe_program *p, const ax_stmt *s)
{
    axe_dtype c = p->tensors[s->args[0].tensor].dtype;
    axe_dtype a = p->tensors[s->args[1].tensor].dtype;
    if (is_int(c))
        return "uint32_t";
    return axe__dtype_is_half(a) ? "float" : axe__dtype_ctype(a);
}

/* "const long ax_pI = base + thread digits" of operand "i": the element
 * offset at loop digits 0. */
static void base_put(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                     int ind)
{
    const ax_plan *plan = s->plan;
    ax_base b;
    int k, j;
    axe__plan_base(p, &s->args[i], &b);
    indent_put(t, ind);
    axe__text_put(t, "const long ax_p%d = %lldL", i, (long long)b.cst);
    for (j = 0; j < b.ndyn; j++) {
        axe__text_put(t, " + ");
        axe__expr_print_c(t, p, b.dyn[j]);
        axe__text_put(t, " * %lldL", (long long)b.scale[j]);
    }
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].stride[i] != 0)
            axe__text_put(t, " + ax_t%d * %lldL", k,
                          (long long)plan->loops[k].stride[i]);
    axe__text_put(t, ";\n");
}

/* Operand "i"'s element at the current loop digits "ks" (and the loops
 * around the block). */
static void elem(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                 const gemm_block *b, const int *ks, int nks, ax_access acc)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    int j;
    axe__emit_access_open(t, p, tn, NULL, acc, NULL);
    axe__emit_swizzle_open(t, p, &s->args[i]);
    axe__text_put(t, "ax_p%d", i);
    for (j = 0; j < nks + b->no; j++) {
        int k = j < nks ? ks[j] : b->o[j - nks];
        if (s->plan->loops[k].stride[i] != 0)
            axe__text_put(t, " + ax_i%d * %lldL", k,
                          (long long)s->plan->loops[k].stride[i]);
    }
    axe__emit_swizzle_close(t, p, &s->args[i]);
    axe__emit_access_close(t, p, tn, NULL, s->line);
}

/* Loops over "ks" from indent "ind"; returns the indent inside them. */
static int loops_put(ax_text *t, const ax_plan *plan, const int *ks, int nks,
                     int ind)
{
    int j;
    for (j = 0; j < nks; j++) {
        indent_put(t, ind++);
        axe__text_put(t, "for (long ax_i%d = 0; ax_i%d < %lldL; ++ax_i%d)\n",
                      ks[j], ks[j], (long long)plan->loops[ks[j]].extent,
                      ks[j]);
    }
    return ind;
}

/* The index into a local array of loops "ks" (row-major over them, times
 * "scale"). */
static void local_index(ax_text *t, const ax_plan *plan, const int *ks, int nks,
                        int64_t scale)
{
    int j;
    int64_t w = scale;
    if (nks == 0)
        axe__text_put(t, "0L");
    for (j = nks - 1; j >= 0; j--) {
        axe__text_put(t, "%sax_i%d * %lldL", j < nks - 1 ? " + " : "", ks[j],
                      (long long)w);
        w *= plan->loops[ks[j]].extent;
    }
}

/* The local C block's index: M digits, then N digits. */
static void c_index(ax_text *t, const ax_plan *plan, const gemm_block *b)
{
    local_index(t, plan, b->m, b->nm, b->cn);
    axe__text_put(t, " + ");
    local_index(t, plan, b->n, b->nn, 1);
}

/* Copies between the C block and the local array "ax_c" (to_local) or
 * back. */
static void c_move(ax_text *t, const axe_program *p, const ax_stmt *s,
                   const gemm_block *b, bool to_local, int ind)
{
    int mn[2 * AX_MAX_LOOPS], j, in;
    for (j = 0; j < b->nm; j++)
        mn[j] = b->m[j];
    for (j = 0; j < b->nn; j++)
        mn[b->nm + j] = b->n[j];
    in = loops_put(t, s->plan, mn, b->nm + b->nn, ind);
    indent_put(t, in);
    if (!to_local) {
        elem(t, p, s, 0, b, mn, b->nm + b->nn, AX_ACC_ST);
        axe__text_put(t, " = ");
    }
    axe__text_put(t, "ax_c[");
    c_index(t, s->plan, b);
    axe__text_put(t, "]");
    if (to_local) {
        axe__text_put(t, " = ");
        elem(t, p, s, 0, b, mn, b->nm + b->nn, AX_ACC_LD);
    }
    axe__text_put(t, ";\n");
}

/* Operand "i"'s element at the block's loops "ks" and the K loops,
 * widened to the arithmetic type. */
static void widened(ax_text *t, const axe_program *p, const ax_stmt *s,
                    const gemm_block *b, int i, const int *ks, int nks)
{
    axe_dtype d = p->tensors[s->args[i].tensor].dtype;
    int ksk[2 * AX_MAX_LOOPS], j;
    for (j = 0; j < nks; j++)
        ksk[j] = ks[j];
    for (j = 0; j < b->nk; j++)
        ksk[nks + j] = b->k[j];
    axe__text_put(t, "%s%s", is_int(d) ? "(uint32_t)" : "",
                  axe__operand_pre(p, s, i));
    elem(t, p, s, i, b, ksk, nks + b->nk, AX_ACC_LD);
    axe__text_put(t, "%s", axe__operand_post(p, s, i));
}

/* ax_b, the block's row of B (its N loops) at the current k. */
static void b_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                   const gemm_block *b, int ind)
{
    int in = loops_put(t, s->plan, b->n, b->nn, ind);
    indent_put(t, in);
    axe__text_put(t, "ax_b[");
    local_index(t, s->plan, b->n, b->nn, 1);
    axe__text_put(t, "] = ");
    widened(t, p, s, b, 2, b->n, b->nn);
    axe__text_put(t, ";\n");
}

/* Per row of the block, ax_x = A[m, k]; then ax_c[mn] = ax_c[mn] +
 * ax_x * ax_b[n] over the row, stored as the plain loop stores it
 * (f16/bf16 rounded, integers wrapped). */
static void update(ax_text *t, const axe_program *p, const ax_stmt *s,
                   const gemm_block *b, int ind)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    int in = loops_put(t, s->plan, b->m, b->nm, ind);
    indent_put(t, in);
    axe__text_put(t, "{\n");
    indent_put(t, in + 1);
    axe__text_put(t, "const %s ax_x = ", arith_type(p, s));
    widened(t, p, s, b, 1, b->m, b->nm);
    axe__text_put(t, ";\n");
    in = loops_put(t, s->plan, b->n, b->nn, in + 1);
    indent_put(t, in);
    axe__text_put(t, "ax_c[");
    c_index(t, s->plan, b);
    if (is_int(d))
        axe__text_put(t, "] = ax_s%s((uint32_t)ax_c[",
                      d == AXE_DTYPE_I8 ? "8" : "32");
    else if (axe__dtype_is_half(d))
        axe__text_put(t, "] = %s(%sax_c[", axe__dtype_store_pre(d),
                      axe__dtype_load_pre(d));
    else
        axe__text_put(t, "] = (%s)(ax_c[", axe__dtype_ctype(d));
    c_index(t, s->plan, b);
    axe__text_put(t, "]%s + ax_x * ax_b[", axe__dtype_wrap_post(d));
    local_index(t, s->plan, b->n, b->nn, 1);
    axe__text_put(t, "])%s;\n", axe__dtype_wrap_post(d));
    indent_put(t, ind + b->nm);
    axe__text_put(t, "}\n");
}

static void block_body(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const gemm_block *b, int ind)
{
    const ax_plan *plan = s->plan;
    int j;
    indent_put(t, ind);
    axe__text_put(t, "%s ax_c[%lld];\n",
                  axe__dtype_ctype(p->tensors[s->args[0].tensor].dtype),
                  (long long)(b->cm * b->cn));
    indent_put(t, ind);
    axe__text_put(t, "%s ax_b[%lld];\n", arith_type(p, s), (long long)b->cn);
    c_move(t, p, s, b, true, ind);
    for (j = 0; j < b->nk; j++) {
        indent_put(t, ind + j);
        axe__text_put(t, "for (long ax_i%d = 0; ax_i%d < %lldL; ++ax_i%d) {\n",
                      b->k[j], b->k[j], (long long)plan->loops[b->k[j]].extent,
                      b->k[j]);
    }
    b_load(t, p, s, b, ind + b->nk);
    update(t, p, s, b, ind + b->nk);
    for (j = b->nk - 1; j >= 0; j--) {
        indent_put(t, ind + j);
        axe__text_put(t, "}\n");
    }
    c_move(t, p, s, b, false, ind);
}

/* The blocked gemm of "s" after its thread digits, at indent "ind";
 * false (nothing written) when it does not apply. */
bool axe__emit_gemm_blocked(ax_text *t, const axe_program *p, const ax_stmt *s,
                            int ind)
{
    gemm_block b;
    int i, in;
    if (s->op != AX_OP_GEMM || !applies(s))
        return false;
    classify(s->plan, &b);
    for (i = 0; i < 3; i++)
        base_put(t, p, s, i, ind);
    in = loops_put(t, s->plan, b.o, b.no, ind);
    indent_put(t, in);
    axe__text_put(t, "{\n");
    block_body(t, p, s, &b, in + 1);
    indent_put(t, in);
    axe__text_put(t, "}\n");
    return true;
}
