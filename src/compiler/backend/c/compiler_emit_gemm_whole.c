/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for a CTA-scope `gemm.thread_fma` whose phase runs whole
 * (compiler_emit_c.c): every thread's part in one loop nest. The thread
 * digits become loops like the value digits; the nest runs the M digits,
 * then the K digits (k in order), then the N digits, so the innermost
 * loop runs along a row of C across the threads that share its A rows and
 * each A element is loaded once per row for all of them. B is first
 * copied, widened to the arithmetic type, into a local panel ax_bp[k][n]
 * (row-major over the K digits, then the N digits), so the innermost loop
 * reads it contiguously; K is taken U = 4 (2, 1) consecutive k at a time,
 * and every C element takes the U products one after the other, each
 * rounded (or wrapped) as the plain loop rounds it: per C element the
 * products are added in the order of k, the result is the same bit for
 * bit as thread by thread.
 *
 * Why this is one valid execution: the phase's other operators run before
 * or after all of this (each thread keeps its program order); inside the
 * gemm a thread writes only its own register C, which is neither A nor B,
 * and reads A and B, which nothing writes during the gemm. Applies when
 * the plan is affine without vector accesses, C is a register tensor and
 * A, B are not, K is not split over threads, the thread digits are the
 * mixed-radix digits of the CTA's thread index (so a thread's index is
 * the sum of its digits times their rank divisors), no operand start
 * reads a thread id or an element, nothing is masked, and the panel fits
 * in AX_PANEL_BYTES.
 */
#include <string.h>

#include "compiler_backend.h"

/* The largest local B panel, in bytes (on the CTA function's stack). */
#define AX_PANEL_BYTES 32768

/* The loops of the plan by role, each in nest order: M, K (largest
 * weight first), N (thread digits outside value digits); "nt" the number
 * of N combinations (panel row length), "kt" of K combinations, "u" the
 * K unroll (consecutive k of the innermost K loop), "r" the M unroll
 * (consecutive digits of the innermost M loop, which share B's loads). */
typedef struct gemm_nest {
    int m[AX_MAX_LOOPS], k[AX_MAX_LOOPS], n[AX_MAX_LOOPS];
    int nm, nk, nn;
    int64_t nt, kt, u, r;
} gemm_nest;

/* Unroll factors: U consecutive k, R rows (see the file comment). */
#define AX_UNROLL_K 4
#define AX_UNROLL_M 2

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32;
}

/* The type in which "s" multiplies (as compiler_emit_gemm.c): uint32_t for
 * integers, float for narrow floats, else the operands' C type. */
static const char *arith_type(const axe_program *p, const ax_stmt *s)
{
    axe_dtype c = p->tensors[s->args[0].tensor].dtype;
    axe_dtype a = p->tensors[s->args[1].tensor].dtype;
    if (is_int(c))
        return "uint32_t";
    return axe__dtype_is_half(a) ? "float" : axe__dtype_ctype(a);
}

static int64_t arith_bytes(const axe_program *p, const ax_stmt *s)
{
    return strcmp(arith_type(p, s), "double") == 0 ? 8 : 4;
}

/* Whether every start of every operand is free of thread ids and element
 * reads (the nest runs outside any thread) and nothing is masked. */
static bool starts_plain(const ax_stmt *s)
{
    int i, d, v, n;
    for (i = 0; i < s->nargs; i++)
        for (d = 0; d < s->args[i].ndim; d++) {
            const ax_expr *e = s->args[i].start[d];
            if (s->args[i].masked[d])
                return false;
            if (e == NULL)
                continue;
            if (axe__expr_load(e, &n) != NULL)
                return false;
            for (v = AX_VAR_TX; v <= AX_VAR_WID_IN_WG; v++)
                if (axe__expr_uses(e, v))
                    return false;
        }
    return true;
}

/* Whether the thread digits of "plan" are the mixed-radix digits of
 * 0 .. threads - 1: sorted by rank divisor, the first divides by 1, each
 * next by the product of the extents before it, and all extents multiply
 * to "threads". Then thread (d_k) is sum d_k * rank_div_k, one to one. */
static bool threads_tile(const ax_plan *plan, int64_t threads)
{
    int64_t next = 1;
    int k, nthr = 0, matched = 0;
    bool found = true;
    for (k = 0; k < plan->nloops; k++)
        nthr += plan->loops[k].thread && plan->loops[k].extent > 1;
    while (found) {
        found = false;
        for (k = 0; k < plan->nloops && !found; k++)
            if (plan->loops[k].thread && plan->loops[k].extent > 1 &&
                plan->loops[k].rank_div == next) {
                if (__builtin_mul_overflow(next, plan->loops[k].extent, &next))
                    return false;
                found = true;
                matched++;
            }
    }
    return matched == nthr && next == threads;
}

static void sort_k(const ax_plan *plan, gemm_nest *g)
{
    int i, j;
    for (i = 1; i < g->nk; i++)
        for (j = i; j > 0 && plan->loops[g->k[j - 1]].weight <
                                 plan->loops[g->k[j]].weight;
             j--) {
            int x = g->k[j];
            g->k[j] = g->k[j - 1];
            g->k[j - 1] = x;
        }
}

/* "*acc" times "x", INT64_MAX when it overflows (the panel then does not
 * fit). */
static void mul_sat(int64_t *acc, int64_t x)
{
    if (__builtin_mul_overflow(*acc, x, acc))
        *acc = INT64_MAX;
}

static void classify(const ax_plan *plan, gemm_nest *g)
{
    int k, pass;
    int64_t kin, min;
    memset(g, 0, sizeof *g);
    g->nt = g->kt = 1;
    for (k = 0; k < plan->nloops; k++) {
        const ax_loop *lp = &plan->loops[k];
        if (lp->dim == 0) {
            g->m[g->nm++] = k;
        } else if (lp->dim == 2) {
            g->k[g->nk++] = k;
            mul_sat(&g->kt, lp->extent);
        }
    }
    for (pass = 0; pass < 2; pass++) /* N: thread digits first */
        for (k = 0; k < plan->nloops; k++)
            if (plan->loops[k].dim == 1 && plan->loops[k].thread == !pass) {
                g->n[g->nn++] = k;
                mul_sat(&g->nt, plan->loops[k].extent);
            }
    sort_k(plan, g);
    kin = g->nk > 0 ? plan->loops[g->k[g->nk - 1]].extent : 1;
    g->u = kin % AX_UNROLL_K == 0 ? AX_UNROLL_K : kin % 2 == 0 ? 2 : 1;
    min = g->nm > 0 ? plan->loops[g->m[g->nm - 1]].extent : 1;
    g->r = min % AX_UNROLL_M == 0 ? AX_UNROLL_M : 1;
}

bool axe__gemm_whole_applies(const axe_program *p, const ax_stmt *s)
{
    const ax_plan *plan = s->plan;
    gemm_nest g;
    int c = s->args[0].tensor, i, k;
    if (s->op != AX_OP_GEMM || s->scope != AX_SCOPE_CTA || plan == NULL ||
        plan->kind == AX_PLAN_SPLIT || plan->vec != 1 ||
        c == s->args[1].tensor || c == s->args[2].tensor ||
        p->tensors[c].mem != AX_MEM_REGISTER || plan->nthreads != p->threads ||
        !starts_plain(s))
        return false;
    for (i = 0; i < 3; i++)
        if (!plan->affine[i] || plan->swizzled[i] ||
            (i > 0 && p->tensors[s->args[i].tensor].mem == AX_MEM_REGISTER))
            return false;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].dim < 0 || plan->loops[k].dim > 2 ||
            (plan->loops[k].thread && plan->loops[k].dim == 2))
            return false;
    if (!threads_tile(plan, p->threads))
        return false;
    classify(plan, &g);
    return g.nt <= AX_PANEL_BYTES && g.kt <= AX_PANEL_BYTES &&
           g.nt * g.kt <= AX_PANEL_BYTES / arith_bytes(p, s);
}

/* "const long ax_pI = base;" of operand "i" (no thread digits: they are
 * loops here). */
static void base_put(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                     int ind)
{
    ax_base b;
    int j;
    axe__plan_base(p, &s->args[i], &b);
    indent_put(t, ind);
    axe__text_put(t, "const long ax_p%d = %lldL", i, (long long)b.cst);
    for (j = 0; j < b.ndyn; j++) {
        axe__text_put(t, " + ");
        axe__expr_print_c(t, p, b.dyn[j]);
        axe__text_put(t, " * %lldL", (long long)b.scale[j]);
    }
    axe__text_put(t, ";\n");
}

/* Steps past the current digits: "r" of the innermost M loop, "u" of
 * the innermost K loop (the unrolled copies of the nest's body). */
typedef struct gemm_at {
    int64_t r, u;
} gemm_at;

/* Operand "i"'s address offset of "at" (a constant). */
static int64_t at_offset(const ax_plan *plan, const gemm_nest *g, int i,
                         gemm_at at)
{
    int64_t off = 0;
    if (g->nm > 0)
        off += at.r * plan->loops[g->m[g->nm - 1]].stride[i];
    if (g->nk > 0)
        off += at.u * plan->loops[g->k[g->nk - 1]].stride[i];
    return off;
}

/* The thread index at the current thread digits stepped by "at" (the
 * innermost M loop may be a thread digit): sum digit * rank_div. */
static void tid_put(ax_text *t, const ax_plan *plan, const gemm_nest *g,
                    gemm_at at)
{
    int64_t off = 0;
    int k;
    if (g->nm > 0 && plan->loops[g->m[g->nm - 1]].thread)
        off = at.r * plan->loops[g->m[g->nm - 1]].rank_div;
    bool any = false;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && plan->loops[k].extent > 1) {
            axe__text_put(t, "%sax_i%d * %lldL", any ? " + " : "", k,
                          (long long)plan->loops[k].rank_div);
            any = true;
        }
    if (off != 0 || !any)
        axe__text_put(t, "%s%lldL", any ? " + " : "", (long long)off);
}

/* Operand "i"'s element at the current digits of loops "ks", stepped by
 * "at". */
static void elem(ax_text *t, const axe_program *p, const ax_stmt *s,
                 const gemm_nest *g, int i, const int *ks, int nks, gemm_at at)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    const ax_plan *plan = s->plan;
    int64_t off = at_offset(plan, g, i, at);
    int j;
    axe__text_put(t, "%s", tn->cname);
    if (tn->mem == AX_MEM_REGISTER) {
        axe__text_put(t, "[");
        tid_put(t, plan, g, at);
        axe__text_put(t, "]");
    }
    axe__text_put(t, "[ax_p%d", i);
    for (j = 0; j < nks; j++)
        if (plan->loops[ks[j]].stride[i] != 0)
            axe__text_put(t, " + ax_i%d * %lldL", ks[j],
                          (long long)plan->loops[ks[j]].stride[i]);
    if (off != 0)
        axe__text_put(t, " + %lldL", (long long)off);
    axe__text_put(t, "]");
}

/* Loops over "ks" from indent "ind", the last one stepping by "step";
 * returns the indent inside them. */
static int loops_put(ax_text *t, const ax_plan *plan, const int *ks, int nks,
                     int64_t step, int ind)
{
    int j;
    for (j = 0; j < nks; j++) {
        indent_put(t, ind++);
        axe__text_put(
            t, "for (long ax_i%d = 0; ax_i%d < %lldL; ax_i%d += %lldL)\n",
            ks[j], ks[j], (long long)plan->loops[ks[j]].extent, ks[j],
            (long long)(j == nks - 1 ? step : 1));
    }
    return ind;
}

/* Row-major index over loops "ks" (0L when none). */
static void local_index(ax_text *t, const ax_plan *plan, const int *ks, int nks)
{
    int j;
    int64_t w = 1;
    if (nks == 0)
        axe__text_put(t, "0L");
    for (j = nks - 1; j >= 0; j--) {
        axe__text_put(t, "%sax_i%d * %lldL", j < nks - 1 ? " + " : "", ks[j],
                      (long long)w);
        w *= plan->loops[ks[j]].extent;
    }
}

/* ax_bp[(k index + u) * nt + n index]. */
static void panel_elem(ax_text *t, const ax_plan *plan, const gemm_nest *g,
                       int64_t u)
{
    axe__text_put(t, "ax_bp[(");
    local_index(t, plan, g->k, g->nk);
    if (u != 0)
        axe__text_put(t, " + %lldL", (long long)u);
    axe__text_put(t, ") * %lldL + ", (long long)g->nt);
    local_index(t, plan, g->n, g->nn);
    axe__text_put(t, "]");
}

/* Operand "i" (A or B) at loops "ks" and the K loops, stepped by "at",
 * widened to the arithmetic type. */
static void widened(ax_text *t, const axe_program *p, const ax_stmt *s,
                    const gemm_nest *g, int i, const int *ks, int nks,
                    gemm_at at)
{
    axe_dtype d = p->tensors[s->args[i].tensor].dtype;
    int all[2 * AX_MAX_LOOPS], j;
    for (j = 0; j < nks; j++)
        all[j] = ks[j];
    for (j = 0; j < g->nk; j++)
        all[nks + j] = g->k[j];
    axe__text_put(t, "%s%s", is_int(d) ? "(uint32_t)" : "",
                  axe__operand_pre(p, s, i));
    elem(t, p, s, g, i, all, nks + g->nk, at);
    axe__text_put(t, "%s", axe__operand_post(p, s, i));
}

/* The panel: ax_bp[k][n] = B[n, k] widened, over the N and K loops. */
static void panel_put(ax_text *t, const axe_program *p, const ax_stmt *s,
                      const gemm_nest *g, int ind)
{
    int nk[2 * AX_MAX_LOOPS], j, in;
    indent_put(t, ind);
    axe__text_put(t, "%s ax_bp[%lld]; /* B as [k][n] */\n", arith_type(p, s),
                  (long long)(g->nt * g->kt));
    for (j = 0; j < g->nn; j++)
        nk[j] = g->n[j];
    for (j = 0; j < g->nk; j++)
        nk[g->nn + j] = g->k[j];
    in = loops_put(t, s->plan, nk, g->nn + g->nk, 1, ind);
    indent_put(t, in);
    panel_elem(t, s->plan, g, 0);
    axe__text_put(t, " = ");
    widened(t, p, s, g, 2, g->n, g->nn, (gemm_at){0, 0});
    axe__text_put(t, ";\n");
}

/* The opening of one product step of C element type "d": the plain
 * loop's store (f16/bf16/fp8 rounded, integers wrapped). */
static void step_open(ax_text *t, axe_dtype d)
{
    if (is_int(d))
        axe__text_put(t, "ax_s%s((uint32_t)", d == AXE_DTYPE_I8 ? "8" : "32");
    else if (axe__dtype_is_half(d))
        axe__text_put(t, "%s(%s", axe__dtype_store_pre(d),
                      axe__dtype_load_pre(d));
    else
        axe__text_put(t, "(%s)(", axe__dtype_ctype(d));
}

/* Row "r" of the unrolled rows: C[m + r, n] = step(...step(C[m + r, n],
 * x_r_0 * b_0)..., x_r_(u-1) * b_(u-1)). */
static void update_put(ax_text *t, const axe_program *p, const ax_stmt *s,
                       const gemm_nest *g, int64_t r, int ind)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    int mn[2 * AX_MAX_LOOPS], j;
    int64_t u;
    for (j = 0; j < g->nm; j++)
        mn[j] = g->m[j];
    for (j = 0; j < g->nn; j++)
        mn[g->nm + j] = g->n[j];
    indent_put(t, ind);
    elem(t, p, s, g, 0, mn, g->nm + g->nn, (gemm_at){r, 0});
    axe__text_put(t, " = ");
    for (u = 0; u < g->u; u++)
        step_open(t, d);
    elem(t, p, s, g, 0, mn, g->nm + g->nn, (gemm_at){r, 0});
    for (u = 0; u < g->u; u++) {
        axe__text_put(t, "%s + ax_x%lld_%lld * ", axe__dtype_wrap_post(d),
                      (long long)r, (long long)u);
        panel_elem(t, s->plan, g, u);
        axe__text_put(t, ")%s", axe__dtype_wrap_post(d));
    }
    axe__text_put(t, ";\n");
}

/* The M loops (the innermost by r), the K loops (the innermost by u), the
 * r * u A elements, the N loops and the r updates. */
static void nest_put(ax_text *t, const axe_program *p, const ax_stmt *s,
                     const gemm_nest *g, int ind)
{
    int in = loops_put(t, s->plan, g->m, g->nm, g->r, ind);
    int64_t u, r;
    in = loops_put(t, s->plan, g->k, g->nk, g->u, in);
    indent_put(t, in);
    axe__text_put(t, "{\n");
    for (r = 0; r < g->r; r++)
        for (u = 0; u < g->u; u++) {
            indent_put(t, in + 1);
            axe__text_put(t, "const %s ax_x%lld_%lld = ", arith_type(p, s),
                          (long long)r, (long long)u);
            widened(t, p, s, g, 1, g->m, g->nm, (gemm_at){r, u});
            axe__text_put(t, ";\n");
        }
    ind = loops_put(t, s->plan, g->n, g->nn, 1, in + 1);
    indent_put(t, ind);
    axe__text_put(t, "{\n");
    for (r = 0; r < g->r; r++)
        update_put(t, p, s, g, r, ind + 1);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
    indent_put(t, in);
    axe__text_put(t, "}\n");
}

void axe__emit_gemm_whole(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind)
{
    gemm_nest g;
    int i;
    classify(s->plan, &g);
    for (i = 0; i < 3; i++)
        base_put(t, p, s, i, ind);
    panel_put(t, p, s, &g, ind);
    nest_put(t, p, s, &g, ind);
}
