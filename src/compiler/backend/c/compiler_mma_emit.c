/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for gemm.mma_atom: the atom's fragment tables and the per-atom-tile
 * storage offsets as static constant arrays, then, for the current lane,
 * a loop over the atom tiles (MI, NI, KI) and the lane's C values, each
 * accumulated over the atom's K from the A and B fragments in the other
 * lanes' registers (ax_w0 is the warp's first thread). The phase starts
 * after a barrier, so every lane's fragments are complete (warp-
 * synchronous semantics). All subscripts are table lookups and sums.
 * gemm.mma_smem is the same loop over the atom tiles that the lane's warp
 * holds (a table of owners), with A and B read from memory at the
 * strides of the plan's digits; gemm.mma_reg_a (mma_reg_b) reads A (B) from the
 * registers of the warp's lanes instead, as gemm.mma_atom does (its caller puts
 * it between two barriers).
 */
#include "compiler_internal.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

static void table_u8(ax_text *t, int ind, const char *name, const uint8_t *v,
                     int64_t n)
{
    int64_t i;
    indent_put(t, ind);
    axe__text_put(t, "static const unsigned char %s[%lld] = {", name,
                  (long long)n);
    for (i = 0; i < n; i++)
        axe__text_put(t, "%s%d", i ? ", " : "", v[i]);
    axe__text_put(t, "};\n");
}

static void table_long(ax_text *t, int ind, const char *name, const int64_t *v,
                       int64_t n)
{
    int64_t i;
    indent_put(t, ind);
    axe__text_put(t, "static const long %s[%lld] = {", name, (long long)n);
    for (i = 0; i < n; i++)
        axe__text_put(t, "%s%lld", i ? ", " : "", (long long)v[i]);
    axe__text_put(t, "};\n");
}

/* C value (lane, v) -> (m, n) of the atom tile. */
static void c_tables(ax_text *t, int ind, const ax_frag *c)
{
    uint8_t cm[AX_FRAG_MAX], cn[AX_FRAG_MAX];
    int64_t x, n = c->shape[0] * c->shape[1];
    for (x = 0; x < n; x++) {
        int64_t k = c->lane[x] * c->nvals + c->val[x];
        cm[k] = (uint8_t)(x / c->shape[1]);
        cn[k] = (uint8_t)(x % c->shape[1]);
    }
    table_u8(t, ind, "ax_cm", cm, n);
    table_u8(t, ind, "ax_cn", cn, n);
}

static void tables(ax_text *t, const ax_mma *m, int ind)
{
    const int64_t *n = m->tiles;
    table_u8(t, ind, "ax_al", m->frag[0].lane,
             m->frag[0].shape[0] * m->frag[0].shape[1]);
    table_u8(t, ind, "ax_av", m->frag[0].val,
             m->frag[0].shape[0] * m->frag[0].shape[1]);
    table_u8(t, ind, "ax_bl", m->frag[1].lane,
             m->frag[1].shape[0] * m->frag[1].shape[1]);
    table_u8(t, ind, "ax_bv", m->frag[1].val,
             m->frag[1].shape[0] * m->frag[1].shape[1]);
    c_tables(t, ind, &m->frag[2]);
    table_long(t, ind, "ax_oa", m->offset[0], n[0] * n[2]);
    table_long(t, ind, "ax_ob", m->offset[1], n[1] * n[2]);
    table_long(t, ind, "ax_oc", m->offset[2], n[0] * n[1]);
}

/* An i32 accumulator wraps (two's complement): it is kept in uint32_t,
 * the i8 operands are read as uint32_t (sign-extended modulo 2^32) and
 * the sum is stored through ax_s32, as compiler_emit_op.c does. */
static bool int_acc(const axe_program *p, const ax_stmt *s)
{
    return p->tensors[s->args[0].tensor].dtype == AXE_DTYPE_I32;
}

/* How operand "i" (1 A, 2 B) is read into the product, and the text
 * after it (f16/bf16/fp8 widened, tf32 rounded, i8 as uint32_t). */
static const char *operand_pre(const axe_program *p, const ax_stmt *s, int i)
{
    return int_acc(p, s) ? "(uint32_t)" : axe__operand_pre(p, s, i);
}

static const char *operand_post(const axe_program *p, const ax_stmt *s, int i)
{
    return int_acc(p, s) ? "" : axe__operand_post(p, s, i);
}

/* The accumulator of value ax_v of atom tile (ax_mi, ax_ni): its index
 * ax_c in this thread's C registers and its value ax_acc. */
static void acc_load(ax_text *t, const axe_program *p, const ax_stmt *s,
                     int ind)
{
    const ax_tensor *c = &p->tensors[s->args[0].tensor];
    bool wrap = int_acc(p, s);
    indent_put(t, ind);
    axe__text_put(t, "const long ax_c = ax_oc[ax_mi * %lldL + ax_ni] + ax_v;\n",
                  (long long)s->mma->tiles[1]);
    indent_put(t, ind);
    axe__text_put(t, "%s ax_acc = %s%s[ax_tid][ax_c];\n",
                  wrap ? "uint32_t" : axe__dtype_ctype(c->dtype),
                  wrap ? "(uint32_t)" : "", c->cname);
}

/* C[ax_c] = ax_acc, wrapped to i32 for an integer accumulator. */
static void acc_store(ax_text *t, const axe_program *p, const ax_stmt *s,
                      int ind)
{
    bool wrap = int_acc(p, s);
    indent_put(t, ind);
    axe__text_put(t, "%s[ax_tid][ax_c] = %sax_acc%s;\n",
                  p->tensors[s->args[0].tensor].cname, wrap ? "ax_s32(" : "",
                  wrap ? ")" : "");
}

static void loops(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    const ax_mma *m = s->mma;
    int64_t ka = m->frag[0].shape[1], vc = m->frag[2].nvals;
    indent_put(t, ind);
    axe__text_put(
        t,
        "for (long ax_mi = 0; ax_mi < %lldL; ++ax_mi)\n%*sfor (long ax_ni = 0; "
        "ax_ni < %lldL; ++ax_ni)\n%*sfor (long ax_ki = 0; ax_ki < %lldL; "
        "++ax_ki)\n%*sfor (long ax_v = 0; ax_v < %lldL; ++ax_v) {\n",
        (long long)m->tiles[0], (ind + 1) * 4, "", (long long)m->tiles[1],
        (ind + 2) * 4, "", (long long)m->tiles[2], (ind + 3) * 4, "",
        (long long)vc);
    ind += 4;
    indent_put(t, ind);
    axe__text_put(t,
                  "const long ax_m = ax_cm[laneid * %lldL + ax_v], ax_n = "
                  "ax_cn[laneid * %lldL + ax_v];\n",
                  (long long)vc, (long long)vc);
    acc_load(t, p, s, ind);
    indent_put(t, ind);
    axe__text_put(t, "for (long ax_kk = 0; ax_kk < %lldL; ++ax_kk) {\n",
                  (long long)ka);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "const long ax_xa = ax_m * %lldL + ax_kk, ax_xb = ax_n * "
                  "%lldL + ax_kk;\n",
                  (long long)ka, (long long)ka);
    indent_put(t, ind + 1);
    axe__text_put(t,
                  "ax_acc = ax_acc + %s%s[ax_w0 + ax_al[ax_xa]][ax_oa[ax_mi * "
                  "%lldL + ax_ki] + ax_av[ax_xa]]%s * %s%s[ax_w0 + "
                  "ax_bl[ax_xb]][ax_ob[ax_ni * %lldL + ax_ki] + "
                  "ax_bv[ax_xb]]%s;\n",
                  operand_pre(p, s, 1), p->tensors[s->args[1].tensor].cname,
                  (long long)m->tiles[2], operand_post(p, s, 1),
                  operand_pre(p, s, 2), p->tensors[s->args[2].tensor].cname,
                  (long long)m->tiles[2], operand_post(p, s, 2));
    indent_put(t, ind);
    axe__text_put(t, "}\n");
    acc_store(t, p, s, ind);
    indent_put(t, ind - 1);
    axe__text_put(t, "}\n");
}

/* The operator "s" (gemm.mma_atom) for the current lane. */
void axe__emit_mma(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): warp gemm -- schedule "
                  "gemm.mma_atom: %s */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  s->mma->atom);
    tables(t, s->mma, ind + 1);
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_w0 = ax_tid - laneid;\n");
    loops(t, p, s, ind + 1);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The address of operand "i" (A or B) of gemm.mma_smem at coordinates
 * (ax_m, ax_n, ax_k): the plan's base plus, per digit with a stride, the
 * digit of the coordinate ((x / weight) % extent) times the stride. */
static void smem_addr(ax_text *t, const axe_program *p, const ax_stmt *s, int i)
{
    static const char *const coord[] = {"ax_m", "ax_n", "ax_k"};
    const ax_plan *plan = s->plan;
    ax_base b;
    int k;
    axe__plan_base(p, &s->args[i], &b);
    axe__text_put(t, "%lldL", (long long)b.cst);
    for (k = 0; k < b.ndyn; k++) {
        axe__text_put(t, " + ");
        axe__expr_print_c(t, p, b.dyn[k]);
        axe__text_put(t, " * %lldL", (long long)b.scale[k]);
    }
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].stride[i] != 0)
            axe__text_put(t, " + %s / %lldL %% %lldL * %lldL",
                          coord[plan->loops[k].dim],
                          (long long)plan->loops[k].weight,
                          (long long)plan->loops[k].extent,
                          (long long)plan->loops[k].stride[i]);
}

static void smem_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    axe__text_put(t, "%s%s[", operand_pre(p, s, i), tn->cname);
    axe__emit_swizzle_open(t, p, &s->args[i]);
    smem_addr(t, p, s, i);
    axe__emit_swizzle_close(t, p, &s->args[i]);
    axe__text_put(t, "]%s", operand_post(p, s, i));
}

/* gemm.mma_reg_a's A at (ax_m, ax_k) (o 1): value (row ax_m % M, column
 * ax_k % K) of the A fragment of atom tile (ax_mi, ax_ki), in the
 * registers of the lane that the fragment table names (ax_w0: the warp's
 * first thread), at the tile's offset plus the value or, with the
 * registers in another order (perm), at the register table's entry;
 * gemm.mma_reg_b's B (o 2) likewise at (ax_n, ax_k) of tile (ax_ni,
 * ax_ki). */
static void reg_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int o)
{
    const ax_mma *m = s->mma;
    const ax_frag *f = &m->frag[o - 1];
    int64_t kf = f->shape[1], rows = m->mnk[o - 1];
    const char *pre = o == 1 ? "a" : "b", *r = o == 1 ? "ax_m" : "ax_n",
               *ti = o == 1 ? "ax_mi" : "ax_ni";
    axe__text_put(t,
                  "%s%s[ax_w0 + ax_%sl[%s %% %lldL * %lldL + ax_k %% %lldL]]",
                  operand_pre(p, s, o), p->tensors[s->args[o].tensor].cname,
                  pre, r, (long long)rows, (long long)kf, (long long)kf);
    if (m->perm[o - 1])
        axe__text_put(t,
                      "[ax_r%s[(%s * %lldL + ax_ki) * %lldL + ax_%sv[%s %% "
                      "%lldL * %lldL + ax_k %% %lldL]]]%s",
                      pre, ti, (long long)m->tiles[2], (long long)f->nvals, pre,
                      r, (long long)rows, (long long)kf, (long long)kf,
                      operand_post(p, s, o));
    else
        axe__text_put(t,
                      "[ax_o%s[%s * %lldL + ax_ki] + ax_%sv[%s %% %lldL * "
                      "%lldL + ax_k %% %lldL]]%s",
                      pre, ti, (long long)m->tiles[2], pre, r, (long long)rows,
                      (long long)kf, (long long)kf, operand_post(p, s, o));
}

/* for (mi, ni) held by this warp, ki, v: C[v] += A[m, k] * B[n, k] over the
 * atom's k. */
static void smem_loops(ax_text *t, const axe_program *p, const ax_stmt *s,
                       int ind)
{
    const ax_mma *m = s->mma;
    int64_t vc = m->frag[2].nvals;
    indent_put(t, ind);
    axe__text_put(t,
                  "for (long ax_mi = 0; ax_mi < %lldL; ++ax_mi)\n%*sfor (long "
                  "ax_ni = 0; ax_ni < %lldL; ++ax_ni)\n%*sif (ax_ow[ax_mi * "
                  "%lldL + ax_ni] == ax_w)\n",
                  (long long)m->tiles[0], (ind + 1) * 4, "",
                  (long long)m->tiles[1], (ind + 2) * 4, "",
                  (long long)m->tiles[1]);
    indent_put(t, ind + 3);
    axe__text_put(t,
                  "for (long ax_ki = 0; ax_ki < %lldL; ++ax_ki)\n%*sfor (long "
                  "ax_v = 0; ax_v < %lldL; ++ax_v) {\n",
                  (long long)m->tiles[2], (ind + 4) * 4, "", (long long)vc);
    ind += 5;
    indent_put(t, ind);
    axe__text_put(t,
                  "const long ax_m = ax_mi * %lldL + ax_cm[laneid * %lldL + "
                  "ax_v], ax_n = ax_ni * %lldL + ax_cn[laneid * %lldL + "
                  "ax_v];\n",
                  (long long)m->mnk[0], (long long)vc, (long long)m->mnk[1],
                  (long long)vc);
    acc_load(t, p, s, ind);
    indent_put(t, ind);
    axe__text_put(t,
                  "for (long ax_k = ax_ki * %lldL; ax_k < ax_ki * %lldL + "
                  "%lldL; ++ax_k)\n",
                  (long long)m->mnk[2], (long long)m->mnk[2],
                  (long long)m->mnk[2]);
    indent_put(t, ind + 1);
    axe__text_put(t, "ax_acc = ax_acc + ");
    if (m->reg == 1)
        reg_operand(t, p, s, 1);
    else
        smem_operand(t, p, s, 1);
    axe__text_put(t, " * ");
    if (m->reg == 2)
        reg_operand(t, p, s, 2);
    else
        smem_operand(t, p, s, 2);
    axe__text_put(t, ";\n");
    acc_store(t, p, s, ind);
    indent_put(t, ind - 1);
    axe__text_put(t, "}\n");
}

/* The operator "s" (gemm.mma_smem, gemm.mma_reg_a or gemm.mma_reg_b)
 * for the current lane. */
void axe__emit_mma_smem(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind)
{
    const ax_mma *m = s->mma;
    int64_t n = m->tiles[0] * m->tiles[1];
    indent_put(t, ind);
    axe__text_put(t,
                  "{ /* op %d (line %d%s%s): %s gemm -- schedule "
                  "gemm.%s: %s, the atom tiles of this warp */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  axe__scope_name(s->scope), axe__mma_smem_name(m), m->atom);
    if (m->reg != 0) {
        int o = m->reg - 1;
        int64_t na = m->frag[o].shape[0] * m->frag[o].shape[1];
        table_u8(t, ind + 1, o == 0 ? "ax_al" : "ax_bl", m->frag[o].lane, na);
        table_u8(t, ind + 1, o == 0 ? "ax_av" : "ax_bv", m->frag[o].val, na);
        if (m->perm[o])
            table_long(t, ind + 1, o == 0 ? "ax_ra" : "ax_rb", m->regs[o],
                       m->tiles[o] * m->tiles[2] * m->frag[o].nvals);
        else
            table_long(t, ind + 1, o == 0 ? "ax_oa" : "ax_ob", m->offset[o],
                       m->tiles[o] * m->tiles[2]);
        indent_put(t, ind + 1);
        axe__text_put(t, "const long ax_w0 = ax_tid - laneid;\n");
    }
    c_tables(t, ind + 1, &m->frag[2]);
    table_long(t, ind + 1, "ax_oc", m->offset[2], n);
    table_long(t, ind + 1, "ax_ow", m->owner, n);
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_w = %s;\n",
                  m->warp != NULL ? m->warp : "0L");
    smem_loops(t, p, s, ind + 1);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}
