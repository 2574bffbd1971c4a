/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for gemm.tensor_engine on the C backend (compiler_trn_gemm.c has the
 * plan): the table of the instructions' base addresses and one loop nest
 * per instruction that does what a TensorEngine matmul does, C tile +=
 * A tile^T B tile over the tiles' partitions (rows, at the tensor's
 * free span apart) and free elements (at the plan's strides), each
 * address relative to its operand region's origin (ax_o0..2, computed
 * from the loop variables when the region's start moves). The
 * instructions run in the plan's order, K innermost, and each product is
 * added to C in float in the order of k, as the reference does.
 */
#include "compiler_internal.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* The table "ax_mm" of the instructions' base addresses (A, B, C). */
static void table(ax_text *t, const ax_trn_mm *mm, int ind)
{
    int64_t q;
    indent_put(t, ind);
    axe__text_put(t, "static const long ax_mm[%lld][3] = {\n",
                  (long long)mm->ninst);
    for (q = 0; q < mm->ninst; q++) {
        indent_put(t, ind + 1);
        axe__text_put(t, "{%lldL, %lldL, %lldL}%s\n", (long long)mm->base[q][0],
                      (long long)mm->base[q][1], (long long)mm->base[q][2],
                      q + 1 < mm->ninst ? "," : "");
    }
    indent_put(t, ind);
    axe__text_put(t, "};\n");
}

/* The origins "ax_o0..2" of the operand regions (A, B, C). */
static void origins(ax_text *t, const axe_program *p, const ax_trn_mm *mm,
                    int ind)
{
    int k;
    for (k = 0; k < 3; k++) {
        indent_put(t, ind);
        axe__text_put(t, "const long ax_o%d = ", k);
        axe__trn_origin_print_c(t, p, &mm->origin[k]);
        axe__text_put(t, ";\n");
    }
}

/* An element of operand tensor "k" (0 A, 1 B) at row "r", column "c"
 * of its tile, read as float. */
static void load(ax_text *t, const axe_program *p, const ax_stmt *s, int k,
                 const char *r, const char *c)
{
    const ax_tensor *x = &p->tensors[s->args[k + 1].tensor];
    const ax_trn_mm *mm = s->trn;
    axe__text_put(t,
                  "%s%s[ax_o%d + ax_mm[ax_q][%d] + %s * %lldL + %s * %lldL]%s",
                  axe__dtype_load_pre(x->dtype), x->cname, k, k, r,
                  (long long)mm->rstride[k], c, (long long)mm->cstride[k],
                  axe__dtype_wrap_post(x->dtype));
}

/* The opening of a gemm.tensor_engine block, shared with the trn-sim
 * backend: "{", a comment naming the plan, the table ax_mm and the
 * origins ax_o0..2 (compiler_internal.h). */
void axe__emit_trn_matmul_head(ax_text *t, const axe_program *p,
                               const ax_stmt *s, int ind)
{
    const ax_trn_mm *mm = s->trn;
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): core gemm -- schedule "
                  "gemm.tensor_engine: %lld matmuls of %lld x %lld x %lld */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  (long long)mm->ninst, (long long)mm->shape[0],
                  (long long)mm->shape[1], (long long)mm->shape[2]);
    table(t, mm, ind + 1);
    origins(t, p, mm, ind + 1);
}

void axe__emit_trn_matmul(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind)
{
    const ax_trn_mm *mm = s->trn;
    const ax_tensor *c = &p->tensors[s->args[0].tensor];
    axe__emit_trn_matmul_head(t, p, s, ind);
    indent_put(t, ind + 1);
    axe__text_put(t, "for (long ax_q = 0; ax_q < %lldL; ++ax_q)\n",
                  (long long)mm->ninst);
    indent_put(t, ind + 2);
    axe__text_put(t, "for (long ax_r = 0; ax_r < %lldL; ++ax_r)\n",
                  (long long)mm->shape[2]);
    indent_put(t, ind + 3);
    axe__text_put(t, "for (long ax_i = 0; ax_i < %lldL; ++ax_i)\n",
                  (long long)mm->shape[0]);
    indent_put(t, ind + 4);
    axe__text_put(t, "for (long ax_j = 0; ax_j < %lldL; ++ax_j) {\n",
                  (long long)mm->shape[1]);
    indent_put(t, ind + 5);
    axe__text_put(t,
                  "float *ax_c = &%s[ax_o2 + ax_mm[ax_q][2] + ax_i * %lldL + "
                  "ax_j * %lldL];\n",
                  c->cname, (long long)mm->rstride[2],
                  (long long)mm->cstride[2]);
    indent_put(t, ind + 5);
    axe__text_put(t, "*ax_c = (float)(*ax_c + ");
    load(t, p, s, 0, "ax_r", "ax_i");
    axe__text_put(t, " * ");
    load(t, p, s, 1, "ax_r", "ax_j");
    axe__text_put(t, ");\n");
    indent_put(t, ind + 4);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}
