/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for one pointwise operator from its plan, inside a thread's phase:
 * the thread's rank in the operator's scope, its thread digits, the loop
 * nest (per-thread loops for serial and bound plans; a round-robin walk of
 * the flattened loop space for split plans), and the element statement.
 * Affine operands are addressed by one stride per digit; the others from
 * coordinates with constant // and %. Every divisor printed is a literal.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compiler_backend.h"
#include "compiler_math.h"

static void indent_put(ax_text *t, int ind)
{
    axe__text_put(t, "%*s", ind * 4, "");
}

/* Digit "k"'s variable; in the element loop of a partial vector chunk
 * (plan->lane), the chunk's first digit plus the element's; for the high
 * nibble of a whole-byte i4 store (plan->next), the pair's digit plus 1. */
static void digit_name(ax_text *t, const ax_plan *plan, int k)
{
    if (plan->next == k + 1)
        axe__text_put(t, "(ax_i%d + 1L)", k);
    else if (plan->lane == k + 1)
        axe__text_put(t, "(ax_i%d + ax_v%d)", k, k);
    else
        axe__text_put(t, "ax_%c%d", plan->loops[k].thread ? 't' : 'i', k);
}

static void affine_addr(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int i)
{
    const ax_plan *plan = s->plan;
    ax_base b;
    int k, j;
    axe__plan_base(p, &s->args[i], &b);
    axe__text_put(t, "%lldL", (long long)b.cst);
    for (j = 0; j < b.ndyn; j++) {
        axe__text_put(t, " + ");
        axe__expr_print_c(t, p, b.dyn[j]);
        axe__text_put(t, " * %lldL", (long long)b.scale[j]);
    }
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].stride[i] != 0) {
            axe__text_put(t, " + ");
            digit_name(t, plan, k);
            axe__text_put(t, " * %lldL", (long long)plan->loops[k].stride[i]);
        }
}

static void coord(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                  int d)
{
    const ax_plan *plan = s->plan;
    const ax_ref *r = &s->args[i];
    int k, td = axe__ref_tdim(r, d);
    axe__text_put(t, "(");
    if (td >= 0 && r->start[td] != NULL)
        axe__expr_print_c(t, p, r->start[td]);
    else
        axe__text_put(t, "0L");
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].dim == d) {
            axe__text_put(t, " + ");
            digit_name(t, plan, k);
            axe__text_put(t, " * %lldL", (long long)plan->loops[k].weight);
        }
    axe__text_put(t, ")");
}

static void coord_addr(ax_text *t, const axe_program *p, const ax_stmt *s,
                       int i)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    int d, j, o;
    int64_t off = 0;
    for (o = 0; o < tn->layout.noffset; o++)
        off += tn->layout.offset[o].value;
    axe__text_put(t, "%lldL", (long long)off);
    for (d = 0; d < tn->ndim; d++) {
        int64_t lo = 1;
        int od = d + (s->args[i].bdim >= 0 && d >= s->args[i].bdim);
        for (j = tn->seps[d + 1] - 1; j >= tn->seps[d]; j--) {
            const axe_iter *it = &tn->grouped.shard[j];
            if (it->extent > 1 && axe__iter_rank_stride(it) == 0) {
                axe__text_put(t, " + (");
                coord(t, p, s, i, od);
                axe__text_put(t, " / %lldL %% %lldL) * %lldL", (long long)lo,
                              (long long)it->extent, (long long)it->stride);
            }
            lo *= it->extent;
        }
    }
}

/* Whether accesses to "tn" (as array "name") use the access macros. */
static bool macro_access(const axe_program *p, const ax_tensor *tn,
                         const char *name)
{
    return axe__backend_of(p)->access_macros && name == NULL &&
           tn->mem != AX_MEM_REGISTER;
}

void axe__emit_access_open(ax_text *t, const axe_program *p,
                           const ax_tensor *tn, const char *name, ax_access acc,
                           const char *vt)
{
    static const char *const macros[] = {"AXE_LD",  "AXE_ST",  "AXE_ATOM",
                                         "AXE_LDN", "AXE_STN", "AXE_AT"};
    if (!macro_access(p, tn, name)) {
        axe__text_put(t, "%s%s%s[", acc >= AX_ACC_LDN ? "&" : "",
                      name != NULL ? name : tn->cname,
                      tn->mem == AX_MEM_REGISTER ? axe__backend_of(p)->reg_index
                                                 : "");
        return;
    }
    if (acc == AX_ACC_LDN || acc == AX_ACC_STN)
        axe__text_put(t, "%s(%s, %s, ", macros[acc], vt, tn->cname);
    else if (vt != NULL)
        axe__text_put(t, "%s(%s, %s, ",
                      acc == AX_ACC_ST ? "AXE_STV" : "AXE_LDV", vt, tn->cname);
    else
        axe__text_put(t, "%s(%s, ", macros[acc], tn->cname);
}

void axe__emit_access_close(ax_text *t, const axe_program *p,
                            const ax_tensor *tn, const char *name, int line)
{
    if (macro_access(p, tn, name))
        axe__text_put(t, ", %d)", line);
    else
        axe__text_put(t, "]");
}

/* Operand "i"'s element address (through its swizzle, if any). */
static void element_addr(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i)
{
    axe__emit_swizzle_open(t, p, &s->args[i]);
    if (s->plan->affine[i])
        affine_addr(t, p, s, i);
    else
        coord_addr(t, p, s, i);
    axe__emit_swizzle_close(t, p, &s->args[i]);
}

void axe__emit_elem_addr(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i)
{
    element_addr(t, p, s, i);
}

/* Operand "i"'s element of a packed i4 tensor: read, `ax_ld4(ARRAY,
 * ADDR)`, or the opening of its store, `ax_st4(ARRAY, ADDR, ` (the
 * helpers address byte ADDR / 2, nibble ADDR % 2, docs/compiler.md);
 * where accesses use macros, the byte is AXE_LD(ARRAY, (ADDR) / 2, LINE)
 * or &AXE_ST(...) and ax_get4 / ax_put4 take its nibble ADDR % 2 (the
 * CUDA emulation records a byte access). */
static void i4_element(ax_text *t, const axe_program *p, const ax_stmt *s,
                       int i, bool store)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    if (macro_access(p, tn, NULL)) { /* the byte through AXE_LD / AXE_ST */
        axe__text_put(t, "%s(%s(%s, (", store ? "ax_put4" : "ax_get4",
                      store ? "&AXE_ST" : "AXE_LD", tn->cname);
        element_addr(t, p, s, i);
        axe__text_put(t, ") / 2L, %d), ", s->line);
        element_addr(t, p, s, i);
        axe__text_put(t, "%s", store ? ", " : ")");
        return;
    }
    axe__text_put(t, "%s(%s%s, ", store ? "ax_st4" : "ax_ld4", tn->cname,
                  tn->mem == AX_MEM_REGISTER ? axe__backend_of(p)->reg_index
                                             : "");
    element_addr(t, p, s, i);
    axe__text_put(t, "%s", store ? ", " : ")");
}

/* Operand "i"'s element in array "name" (its tensor's when NULL), as an
 * access "acc" (vector type "vt", or NULL). Two elements to an array
 * entry (packed i4's byte, a words16 register's word), a vector access
 * starts at entry ADDR / 2 of its even element address ADDR. */
static void element_acc(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int i, const char *name, ax_access acc, const char *vt)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    bool w16 = tn->words16 && name == NULL;
    bool pair = (tn->dtype == AXE_DTYPE_I4 || w16) && name == NULL;
    if (tn->dtype == AXE_DTYPE_I4 && pair && acc == AX_ACC_LD && vt == NULL) {
        i4_element(t, p, s, i, false);
        return;
    }
    if (w16 && vt == NULL) { /* ax_ld16(W, A) or ax_st16(W, A, */
        axe__text_put(t, "ax_%s16(%s, ", acc == AX_ACC_ST ? "st" : "ld",
                      tn->cname);
        element_addr(t, p, s, i);
        axe__text_put(t, "%s", acc == AX_ACC_ST ? ", " : ")");
        return;
    }
    axe__emit_access_open(t, p, tn, name, acc, vt);
    if (pair)
        axe__text_put(t, "(");
    element_addr(t, p, s, i);
    if (pair)
        axe__text_put(t, ") / 2L");
    axe__emit_access_close(t, p, tn, name, s->line);
}

static void element_in(ax_text *t, const axe_program *p, const ax_stmt *s,
                       int i, const char *name)
{
    element_acc(t, p, s, i, name, AX_ACC_LD, NULL);
}

/* Operand "i"'s element, read. */
static void element(ax_text *t, const axe_program *p, const ax_stmt *s, int i)
{
    element_acc(t, p, s, i, NULL, AX_ACC_LD, NULL);
}

/* Operand "i"'s element, written (or updated atomically: "acc"): an
 * assignment's left side, completed by assign(). */
static void element_w(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                      ax_access acc)
{
    element_acc(t, p, s, i, NULL, acc, NULL);
}

/* After element_w of the destination: " = ", or nothing where a store
 * to a 16-bit register held in words is the call ax_st16(W, A, VALUE);
 * returns the text that closes it after the value. */
static const char *assign(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    if (p->tensors[s->args[0].tensor].words16)
        return ")";
    axe__text_put(t, " = ");
    return "";
}

static bool is_int(axe_dtype d)
{
    return d == AXE_DTYPE_I8 || d == AXE_DTYPE_I32 || d == AXE_DTYPE_I4;
}

/* The coordinate of dimension "d" within the operands' shape: the sum of
 * the plan's digits of that dimension times their weights. */
static void dim_coord(ax_text *t, const ax_plan *plan, int d)
{
    int k;
    axe__text_put(t, "(0L");
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].dim == d) {
            axe__text_put(t, " + ");
            digit_name(t, plan, k);
            axe__text_put(t, " * %lldL", (long long)plan->loops[k].weight);
        }
    axe__text_put(t, ")");
}

/* The dimension whose coordinate the element statement reads (iota's,
 * the reduced one of argmax/argmin), or -1. */
static int coord_dim(const ax_stmt *s)
{
    if (s->op == AX_OP_IOTA)
        return s->idim;
    if (s->op == AX_OP_REDUCE && axe__red_is_arg(s->rkind))
        return s->rdim;
    return -1;
}

/* Integer operators that can overflow: computed in uint32_t (wrapping,
 * as a GPU's 32-bit integer units do), stored through ax_s32/ax_s8. */
static bool wraps(const axe_program *p, const ax_stmt *s)
{
    if (!is_int(p->tensors[s->args[0].tensor].dtype))
        return false;
    return s->op == AX_OP_ADD || s->op == AX_OP_SUB || s->op == AX_OP_MUL ||
           s->op == AX_OP_NEG || s->op == AX_OP_GEMM ||
           (s->op == AX_OP_REDUCE && s->rkind == AX_RED_SUM);
}

/* How far the last element of a vector chunk lies past its first along
 * dimension "od": (vec - 1) times the innermost loop's weight when that
 * loop is of "od" (its digit steps by vec; the coordinate grows with it),
 * else 0. */
static int64_t chunk_reach(const ax_plan *plan, int od)
{
    int kin = axe__plan_innermost_loop(plan);
    if (kin < 0 || plan->vec < 2 || plan->loops[kin].dim != od)
        return 0;
    return (plan->vec - 1) * plan->loops[kin].weight;
}

/* Whether the element of operand "i" lies inside its tensor in every
 * masked dimension: `(c >= 0L && c < extent)` per such dimension; with
 * "chunk", the whole vector chunk starting at it (`c + reach < extent`
 * for the innermost loop's dimension, chunk_reach). */
static void inside(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                   bool chunk)
{
    const ax_ref *r = &s->args[i];
    const ax_tensor *tn = &p->tensors[r->tensor];
    int d, n = 0;
    axe__text_put(t, "(");
    for (d = 0; d < r->ndim; d++) {
        int od = d + (r->bdim >= 0 && d >= r->bdim);
        int64_t reach = chunk ? chunk_reach(s->plan, od) : 0;
        if (!r->masked[d])
            continue;
        axe__text_put(t, "%s", n++ ? " && " : "");
        coord(t, p, s, i, od);
        axe__text_put(t, " >= 0L && ");
        coord(t, p, s, i, od);
        if (reach != 0)
            axe__text_put(t, " + %lldL", (long long)reach);
        axe__text_put(t, " < ");
        if (d == 0 && tn->dyn_extent != NULL)
            axe__expr_print_c(t, p, tn->dyn_extent);
        else
            axe__text_put(t, "%lldL", (long long)tn->shape[d]);
    }
    axe__text_put(t, ")");
}

/* The bit pattern of "v" (already rounded to "d") in the narrow float
 * type "d": 16 bits for f16/bf16, 8 for e4m3/e5m2. */
static void pattern_literal(ax_text *t, axe_dtype d, double v)
{
    float f = (float)v;
    if (d == AXE_DTYPE_E4M3 || d == AXE_DTYPE_E5M2)
        axe__text_put(t, "(uint8_t)%u",
                      (unsigned)(d == AXE_DTYPE_E4M3 ? axe_e4m3_from_float(f)
                                                     : axe_e5m2_from_float(f)));
    else
        axe__text_put(t, "(uint16_t)%u",
                      (unsigned)(d == AXE_DTYPE_F16 ? axe_f16_from_float(f)
                                                    : axe_bf16_from_float(f)));
}

/* The fill value of masked operand "i" in the arithmetic type of load()
 * ("raw": the bit pattern of an f16/bf16/e4m3/e5m2 element). */
static void fill_literal(ax_text *t, const axe_program *p, const ax_stmt *s,
                         int i, bool raw)
{
    axe_dtype d = p->tensors[s->args[i].tensor].dtype;
    double v = axe__mask_fill(d, s->args[i].fill);
    if (raw)
        pattern_literal(t, d, v);
    else if (is_int(d))
        axe__text_put(t, "%s%lld", wraps(p, s) ? "(uint32_t)" : "",
                      (long long)v);
    else if (isinf(v))
        axe__text_put(t, "(%s)%sINFINITY",
                      d == AXE_DTYPE_F64 ? "double" : "float",
                      v < 0 ? "-" : "");
    else
        axe__text_put(t, "(%s)%.17g", d == AXE_DTYPE_F64 ? "double" : "float",
                      v);
}

/* Operand "i"'s element as a value of its arithmetic type (f16 and bf16
 * are widened to float; integers of a wrapping operator are uint32_t);
 * a masked operand reads its fill value outside its tensor. */
static void load(ax_text *t, const axe_program *p, const ax_stmt *s, int i)
{
    if (s->args[i].any_masked) {
        axe__text_put(t, "(");
        inside(t, p, s, i, false);
        axe__text_put(t, " ? ");
    }
    axe__text_put(t, "%s", wraps(p, s) ? "(uint32_t)" : "");
    axe__text_put(t, "%s", axe__operand_pre(p, s, i));
    element(t, p, s, i);
    axe__text_put(t, "%s", axe__operand_post(p, s, i));
    if (s->args[i].any_masked) { /* a tf32 gemm rounds the fill too */
        axe__text_put(t, " : %s", s->tf32 ? axe__operand_pre(p, s, i) : "");
        fill_literal(t, p, s, i, false);
        axe__text_put(t, "%s)", s->tf32 ? axe__operand_post(p, s, i) : "");
    }
}

/* The bit pattern of operand "i" (its fill's outside the tensor). */
static void raw_element(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int i)
{
    if (!s->args[i].any_masked) {
        element(t, p, s, i);
        return;
    }
    axe__text_put(t, "(");
    inside(t, p, s, i, false);
    axe__text_put(t, " ? ");
    element(t, p, s, i);
    axe__text_put(t, " : ");
    fill_literal(t, p, s, i, true);
    axe__text_put(t, ")");
}

/* Float runtime scalar "i" (a double parameter) rounded to its dtype:
 * the harness and callers pass any double, the kernel rounds. */
static void scalar_value(ax_text *t, const axe_program *p, int i)
{
    axe_dtype d = p->scalar_dtype[i];
    const char *n = p->scalar_name[i];
    if (d == AXE_DTYPE_F32)
        axe__text_put(t, "(float)s_%s", n);
    else if (d == AXE_DTYPE_F16)
        axe__text_put(t, "ax_h2f(ax_f2h((float)s_%s))", n);
    else if (d == AXE_DTYPE_BF16)
        axe__text_put(t, "ax_b2f(ax_f2b((float)s_%s))", n);
    else
        axe__text_put(t, "s_%s", n);
}

/* The literal "v" as a value of the arithmetic type of float dtype "d"
 * (rounded to "d" here: exact in that type). */
static void float_literal(ax_text *t, axe_dtype d, double v)
{
    const char *ct = d == AXE_DTYPE_F64 ? "double" : "float";
    v = axe__mask_fill(d, v);
    if (isinf(v))
        axe__text_put(t, "(%s)%sINFINITY", ct, v < 0 ? "-" : "");
    else
        axe__text_put(t, "(%s)%.17g", ct, v);
}

/* The scalar operand at position "pos" converted to the operands' dtype
 * (axe__sop_dtype), in load()'s arithmetic type; with "raw", the bit
 * pattern of an f16/bf16/e4m3/e5m2 value. A runtime float scalar is
 * rounded to its own dtype first (scalar_value), then as a stored
 * element of the operands' dtype. */
static void scalar_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int pos, bool raw)
{
    const ax_sop *o = &s->sop[pos];
    axe_dtype d = axe__sop_dtype(p, s);
    bool half = axe__dtype_is_half(d);
    if (o->kind != AX_SOP_SCALAR && o->kind != AX_SOP_KEPT) {
        if (is_int(d))
            axe__text_put(t, "%s%lld", wraps(p, s) ? "(uint32_t)" : "",
                          (long long)o->value);
        else if (raw)
            pattern_literal(t, d, axe__mask_fill(d, o->value));
        else
            float_literal(t, d, o->value);
        return;
    }
    if (is_int(d)) { /* an i32 scalar or kept loop variable (sema) */
        axe__text_put(t, "(%s)%s_%s", wraps(p, s) ? "uint32_t" : "int32_t",
                      o->kind == AX_SOP_KEPT ? "v" : "s",
                      o->kind == AX_SOP_KEPT ? p->vars[o->scalar]
                                             : p->scalar_name[o->scalar]);
        return;
    }
    if (half)
        axe__text_put(t, "%s%s(", raw ? "" : axe__dtype_load_pre(d),
                      axe__dtype_store_pre(d));
    else
        axe__text_put(t, "(%s)(", d == AXE_DTYPE_F64 ? "double" : "float");
    if (o->kind == AX_SOP_KEPT)
        axe__text_put(t, "v_%s", p->vars[o->scalar]);
    else if (p->scalar_dtype[o->scalar] == AXE_DTYPE_I32)
        axe__text_put(t, "s_%s", p->scalar_name[o->scalar]);
    else
        scalar_value(t, p, o->scalar);
    axe__text_put(t, ")%s%s", half ? axe__dtype_wrap_post(d) : "",
                  half && !raw ? axe__dtype_wrap_post(d) : "");
}

/* The operand at source position "pos": a tensor's element (load) or a
 * scalar operand. */
static void operand(ax_text *t, const axe_program *p, const ax_stmt *s, int pos)
{
    if (s->sop[pos].kind != AX_SOP_NONE)
        scalar_operand(t, p, s, pos, false);
    else
        load(t, p, s, axe__operand_arg(s, pos));
}

/* The bit pattern of the operand at position "pos" (raw_element). */
static void raw_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int pos)
{
    if (s->sop[pos].kind != AX_SOP_NONE)
        scalar_operand(t, p, s, pos, true);
    else
        raw_element(t, p, s, axe__operand_arg(s, pos));
}

void axe__emit_raw_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int pos)
{
    raw_operand(t, p, s, pos);
}

/* (a op b) with a = the operand at position "i", b = the one at i + 1. */
static void binary(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                   const char *fmt_op)
{
    axe__text_put(t, "(");
    operand(t, p, s, i);
    axe__text_put(t, "%s", fmt_op);
    operand(t, p, s, i + 1);
    axe__text_put(t, ")");
}

/* max or min ("cmp" > or <) of the operands at positions i and i + 1:
 * fmax/fmin (IEEE maxNum: a NaN loses to a number) on floats, a
 * comparison on integers. */
static void minmax(ax_text *t, const axe_program *p, const ax_stmt *s, int i,
                   const char *cmp)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    if (!is_int(d)) {
        axe__text_put(t, "f%s%s(", *cmp == '>' ? "max" : "min",
                      d == AXE_DTYPE_F64 ? "" : "f");
        operand(t, p, s, i);
        axe__text_put(t, ", ");
        operand(t, p, s, i + 1);
        axe__text_put(t, ")");
        return;
    }
    axe__text_put(t, "(");
    operand(t, p, s, i);
    axe__text_put(t, " %s ", cmp);
    operand(t, p, s, i + 1);
    axe__text_put(t, " ? ");
    operand(t, p, s, i);
    axe__text_put(t, " : ");
    operand(t, p, s, i + 1);
    axe__text_put(t, ")");
}

static void unary(ax_text *t, const axe_program *p, const ax_stmt *s,
                  const char *pre, const char *post)
{
    axe__text_put(t, "%s", pre);
    load(t, p, s, 1);
    axe__text_put(t, "%s", post);
}

/* "first": the thread's first element of the reduced dim (every loop
 * digit of it 0); "1" when the thread holds one. */
static void reduce_first(ax_text *t, const ax_stmt *s)
{
    const ax_plan *plan = s->plan;
    int k, n = 0;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].dim == s->rdim && !plan->loops[k].thread) {
            axe__text_put(t, "%s", n++ ? " && " : "");
            digit_name(t, plan, k);
            axe__text_put(t, " == 0");
        }
    axe__text_put(t, "%s", n ? "" : "1");
}

/* first ? src : dst (+, max or min) src. */
static void reduce_value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe__text_put(t, "(");
    reduce_first(t, s);
    axe__text_put(t, " ? ");
    load(t, p, s, 1);
    axe__text_put(t, " : ");
    if (s->rkind == AX_RED_SUM)
        binary(t, p, s, 0, " + ");
    else
        minmax(t, p, s, 0, s->rkind == AX_RED_MAX ? ">" : "<");
    axe__text_put(t, ")");
}

static void fill_value(ax_text *t, axe_dtype d, double v)
{
    if (is_int(d))
        axe__text_put(t, "%.17g", axe__int_saturate(d, v));
    else if (v == HUGE_VAL || v == -HUGE_VAL)
        axe__text_put(t, "%sHUGE_VAL", v < 0 ? "-" : "");
    else
        axe__text_put(t, "%.17g", v);
}

/* pred != 0 ? a : b. */
static void select_value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe__text_put(t, "(");
    element(t, p, s, 1);
    axe__text_put(t, " != 0 ? ");
    operand(t, p, s, 2);
    axe__text_put(t, " : ");
    operand(t, p, s, 3);
    axe__text_put(t, ")");
}

/* The start plus the coordinate along iota's dimension. */
static void iota_value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe__text_put(t, "(");
    axe__expr_print_c(t, p, s->istart);
    axe__text_put(t, " + ");
    dim_coord(t, s->plan, s->idim);
    axe__text_put(t, ")");
}

static const char *compare_text(ax_op op)
{
    return op == AX_OP_LT   ? " < "
           : op == AX_OP_LE ? " <= "
           : op == AX_OP_GT ? " > "
           : op == AX_OP_GE ? " >= "
           : op == AX_OP_EQ ? " == "
                            : " != ";
}

/* A math operator: its libm function or macro (compiler_math.h); abs of
 * an integer through AXE_IABS (in uint32_t, so |INT_MIN| wraps). */
static void math_value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    if (s->op == AX_OP_ABS && is_int(d)) {
        unary(t, p, s, "AXE_IABS(", ")");
        return;
    }
    axe__text_put(t, "%s", axe__math_c_open(s->op, d));
    operand(t, p, s, 1);
    if (s->op == AX_OP_POW) {
        axe__text_put(t, ", ");
        operand(t, p, s, 2);
    }
    axe__text_put(t, ")");
}

static void value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    switch (s->op) {
    case AX_OP_FILL:
        if (s->fscalar != 0 && p->scalar_dtype[s->fscalar - 1] == AXE_DTYPE_I32)
            axe__text_put(t, "s_%s", p->scalar_name[s->fscalar - 1]);
        else if (s->fscalar != 0)
            scalar_value(t, p, s->fscalar - 1);
        else
            fill_value(t, d, s->imm);
        return;
    case AX_OP_COPY:
    case AX_OP_CAST:
    case AX_OP_ATOMIC_ADD:
        unary(t, p, s, "", "");
        return;
    case AX_OP_ADD:
        binary(t, p, s, 1, " + ");
        return;
    case AX_OP_SUB:
        binary(t, p, s, 1, " - ");
        return;
    case AX_OP_MUL:
        binary(t, p, s, 1, " * ");
        return;
    case AX_OP_DIV:
        binary(t, p, s, 1, " / ");
        return;
    case AX_OP_MAX:
        minmax(t, p, s, 1, ">");
        return;
    case AX_OP_MIN:
        minmax(t, p, s, 1, "<");
        return;
    case AX_OP_NEG:
        unary(t, p, s, "-", "");
        return;
    case AX_OP_RELU:
        unary(t, p, s, "AXE_RELU(", ")");
        return;
    case AX_OP_EXP:
    case AX_OP_SQRT:
    case AX_OP_LOG:
    case AX_OP_LOG2:
    case AX_OP_EXP2:
    case AX_OP_TANH:
    case AX_OP_ERF:
    case AX_OP_RSQRT:
    case AX_OP_ABS:
    case AX_OP_SIGMOID:
    case AX_OP_SILU:
    case AX_OP_GELU:
    case AX_OP_GELU_TANH:
    case AX_OP_POW:
        math_value(t, p, s);
        return;
    case AX_OP_REDUCE:
        reduce_value(t, p, s);
        return;
    case AX_OP_IOTA:
        iota_value(t, p, s);
        return;
    case AX_OP_LT:
    case AX_OP_LE:
    case AX_OP_GT:
    case AX_OP_GE:
    case AX_OP_EQ:
    case AX_OP_NE:
        binary(t, p, s, 1, compare_text(s->op));
        return;
    case AX_OP_SELECT:
        select_value(t, p, s);
        return;
    case AX_OP_GEMM:
        axe__text_put(t, "(");
        load(t, p, s, 0);
        axe__text_put(t, " + ");
        binary(t, p, s, 1, " * ");
        axe__text_put(t, ")");
        return;
    }
}

/* Opens the conversion that stores "s"'s value into its destination and
 * returns the text that closes it: f16/bf16 round (ax_f2h, ax_f2b);
 * wrapping integer operators and integer -> integer casts wrap (ax_s32,
 * ax_s8); float -> integer casts truncate and saturate (ax_f2s32,
 * ax_f2s8); other values are cast to the destination's C type. */
static const char *store_open(ax_text *t, const axe_program *p,
                              const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    const char *w = d == AXE_DTYPE_I4 ? "4" : d == AXE_DTYPE_I8 ? "8" : "32";
    if (axe__dtype_is_half(d)) {
        axe__text_put(t, "%s", axe__dtype_store_pre(d));
        return axe__dtype_wrap_post(d);
    }
    if (wraps(p, s) || (s->op == AX_OP_ABS && is_int(d))) {
        axe__text_put(t, "ax_s%s(", w);
        return ")";
    }
    if (s->op == AX_OP_CAST && is_int(d)) {
        bool from_int = is_int(p->tensors[s->args[1].tensor].dtype);
        axe__text_put(t, from_int ? "ax_s%s((uint32_t)" : "ax_f2s%s(", w);
        return ")";
    }
    axe__text_put(t, "(%s)", axe__dtype_ctype(d));
    return "";
}

/* One step of argmax/argmin: the source value and its index along the
 * reduced dim replace the best so far (the index in the destination, its
 * value beside it in ax_argv<op>) when first or better (AXE_ARG*_BETTER:
 * the order of compiler_ref.c's arg_better). */
static void arg_step(ax_text *t, const axe_program *p, const ax_stmt *s,
                     int ind)
{
    char argv[32];
    snprintf(argv, sizeof argv, "ax_argv%d", s->index);
    axe__text_put(t, "{\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const double ax_v = ");
    load(t, p, s, 1);
    axe__text_put(t, ";\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "const long ax_j = ");
    dim_coord(t, s->plan, s->rdim);
    axe__text_put(t, ";\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "if (");
    reduce_first(t, s);
    axe__text_put(t, " || AXE_%s_BETTER(ax_v, ax_j, ",
                  s->rkind == AX_RED_ARGMAX ? "ARGMAX" : "ARGMIN");
    element_in(t, p, s, 0, argv);
    axe__text_put(t, ", ");
    element(t, p, s, 0);
    axe__text_put(t, ")) {\n");
    indent_put(t, ind + 2);
    element_in(t, p, s, 0, argv);
    axe__text_put(t, " = ax_v;\n");
    indent_put(t, ind + 2);
    element_w(t, p, s, 0, AX_ACC_ST);
    axe__text_put(t, " = (int32_t)ax_j;\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "}\n");
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The backend's type of a vectorized copy's accesses, or NULL. */
static const char *vector_type(const axe_program *p, const ax_stmt *s)
{
    const ax_backend *b = axe__backend_of(p);
    int64_t bytes =
        axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype, s->plan->vec);
    if (b->vec_type == NULL)
        return NULL;
    return bytes == 4    ? b->vec_type[0]
           : bytes == 8  ? b->vec_type[1]
           : bytes == 16 ? b->vec_type[2]
                         : NULL;
}

/* Operand "i" (0: the destination) of a vector copy in type "vt":
 * `*(VT *)&ELEMENT`, or AXE_STV / AXE_LDV where accesses use macros
 * (packed i4: the byte of the chunk's first, even, element). */
static void vector_operand(ax_text *t, const axe_program *p, const ax_stmt *s,
                           int i, const char *vt)
{
    const ax_tensor *tn = &p->tensors[s->args[i].tensor];
    if (!macro_access(p, tn, NULL))
        axe__text_put(t, "*(%s%s *)&", i == 0 ? "" : "const ", vt);
    element_acc(t, p, s, i, NULL, i == 0 ? AX_ACC_ST : AX_ACC_LD, vt);
}

/* One vector access of a copy: vec elements of the innermost loop, in
 * the backend's vector type or by memcpy. */
static void vector_copy(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    axe_dtype d = p->tensors[s->args[0].tensor].dtype;
    const char *ct = axe__dtype_ctype(d);
    const char *what = d == AXE_DTYPE_I4 ? "i4" : ct; /* the comments' */
    const char *const *async = axe__backend_of(p)->async_copy;
    int64_t bytes =
        axe__dtype_vec_bytes(p->tensors[s->args[0].tensor].dtype, s->plan->vec);
    const char *vt = vector_type(p, s);
    int64_t ents = axe__dtype_entries(d, s->plan->vec);
    char n[24];
    if (s->async_copy && async != NULL) {
        /* raw addresses (AXE_AT): the copy's function records its accesses */
        axe__text_put(t, "%s(", async[bytes == 4 ? 0 : bytes == 8 ? 1 : 2]);
        element_acc(t, p, s, 0, NULL, AX_ACC_AT, NULL);
        axe__text_put(t, ", ");
        element_acc(t, p, s, 1, NULL, AX_ACC_AT, NULL);
        axe__text_put(t, "); /* %lld x %s */\n", (long long)s->plan->vec, what);
        return;
    }
    if (vt != NULL) {
        vector_operand(t, p, s, 0, vt);
        axe__text_put(t, " = ");
        vector_operand(t, p, s, 1, vt);
        axe__text_put(t, "; /* %lld x %s */\n", (long long)s->plan->vec, what);
        return;
    }
    /* every entry of the chunk recorded (AXE_STN / AXE_LDN): its elements,
     * or its bytes of packed i4 */
    (void)snprintf(n, sizeof n, "%lld", (long long)ents);
    axe__text_put(t, "memcpy(");
    element_acc(t, p, s, 0, NULL, AX_ACC_STN, n);
    axe__text_put(t, ", ");
    element_acc(t, p, s, 1, NULL, AX_ACC_LDN, n);
    axe__text_put(t, ", %lld * sizeof(%s));\n", (long long)ents, ct);
}

static void body(ax_text *t, const axe_program *p, const ax_stmt *s, int ind);

/* Whether the vector chunk lies inside every masked operand. */
static void chunk_test(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    int i, n = 0;
    for (i = 0; i < s->nargs; i++)
        if (s->args[i].any_masked) {
            axe__text_put(t, "%s", n++ ? " && " : "");
            inside(t, p, s, i, true);
        }
}

/* A vector copy with masked operands: a run-time test per chunk; a chunk
 * inside every masked operand is one vector access, any other chunk runs
 * its elements one by one, each with its guards (the scalar body with the
 * innermost digit k read as ax_i<k> + ax_v<k>). */
static void masked_vector(ax_text *t, const axe_program *p, const ax_stmt *s,
                          int ind)
{
    ax_plan one = *s->plan;
    ax_stmt each = *s;
    int kin = axe__plan_innermost_loop(s->plan);
    axe__text_put(t, "if (");
    chunk_test(t, p, s);
    axe__text_put(t, ") { /* the chunk is inside: one vector access */\n");
    indent_put(t, ind + 1);
    vector_copy(t, p, s);
    indent_put(t, ind);
    axe__text_put(t,
                  "} else { /* not inside: element by element, guarded */\n");
    indent_put(t, ind + 1);
    axe__text_put(t, "for (long ax_v%d = 0; ax_v%d < %lldL; ++ax_v%d)\n", kin,
                  kin, (long long)s->plan->vec, kin);
    one.vec = 1;
    one.lane = kin + 1;
    each.plan = &one;
    body(t, p, &each, ind + 2);
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The value "s" stores, converted to the destination's dtype. */
static void stored_value(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    const char *post = s->op == AX_OP_CAST ? store_open(t, p, s) : "";
    value(t, p, s);
    axe__text_put(t, "%s", post);
}

/* A whole byte of a packed i4 destination (plan->pair): the elements of
 * digits ax_i<k> (even: the low nibble) and ax_i<k> + 1 of the pair loop,
 * packed and stored at once, `BYTE = ax_pack4(LO, HI);`, where a nibble
 * store would read the byte, replace its nibble and write it back. */
static void pair_store(ax_text *t, const axe_program *p, const ax_stmt *s)
{
    ax_plan hi = *s->plan;
    ax_stmt next = *s;
    hi.next = s->plan->pair;
    next.plan = &hi;
    element_w(t, p, s, 0, AX_ACC_ST);
    axe__text_put(t, " = ax_pack4(");
    stored_value(t, p, s);
    axe__text_put(t, ", ");
    stored_value(t, p, &next);
    axe__text_put(t, ");\n");
}

static void body(ax_text *t, const axe_program *p, const ax_stmt *s, int ind)
{
    const ax_tensor *dst = &p->tensors[s->args[0].tensor];
    const char *post, *close;
    indent_put(t, ind);
    if (s->plan->vec > 1 && (s->args[0].any_masked || s->args[1].any_masked)) {
        masked_vector(t, p, s, ind);
        return;
    }
    if (s->plan->vec > 1 || s->async_copy) {
        vector_copy(t, p, s);
        return;
    }
    if (s->op == AX_OP_ATOMIC_ADD) {
        axe__text_put(t, "AXE_ATOMIC_ADD_%s(&",
                      dst->dtype == AXE_DTYPE_I32 ? "I32" : "F32");
        element_w(t, p, s, 0, AX_ACC_ATOM);
        axe__text_put(t, ", ");
        value(t, p, s);
        axe__text_put(t, ");\n");
        return;
    }
    if (s->op == AX_OP_REDUCE && axe__red_is_arg(s->rkind)) {
        arg_step(t, p, s, ind);
        return;
    }
    if (s->args[0].any_masked) { /* a write outside the tensor: skipped */
        axe__text_put(t, "if ");
        inside(t, p, s, 0, false);
        axe__text_put(t, "\n");
        indent_put(t, ind + 1);
    }
    if (dst->dtype == AXE_DTYPE_I4 && s->plan->pair > 0) {
        pair_store(t, p, s);
        return;
    }
    if (dst->dtype == AXE_DTYPE_I4) { /* copy or cast (sema) */
        i4_element(t, p, s, 0, true);
        post = s->op == AX_OP_CAST ? store_open(t, p, s) : "";
        value(t, p, s);
        axe__text_put(t, "%s);\n", post);
        return;
    }
    if (dst->words16 && s->plan->pair > 0) { /* f16 pairs: one word */
        axe__emit_half2_store(t, p, s);
        return;
    }
    element_w(t, p, s, 0, AX_ACC_ST);
    close = assign(t, p, s);
    if (s->op == AX_OP_COPY && axe__dtype_is_half(dst->dtype)) {
        raw_element(t, p, s, 1); /* the same 16-bit pattern */
        axe__text_put(t, "%s;\n", close);
        return;
    }
    if (s->op == AX_OP_SELECT && axe__dtype_is_half(dst->dtype)) {
        load(t, p, s, 1);
        axe__text_put(t, " != 0 ? ");
        raw_operand(t, p, s, 2);
        axe__text_put(t, " : ");
        raw_operand(t, p, s, 3); /* the chosen 16-bit pattern */
        axe__text_put(t, "%s;\n", close);
        return;
    }
    post = store_open(t, p, s);
    value(t, p, s);
    axe__text_put(t, "%s%s;\n", post, close);
}

static void loop_line(ax_text *t, int k, int64_t extent, int64_t step, int ind,
                      const char *unroll)
{
    if (unroll != NULL) {
        indent_put(t, ind);
        axe__text_put(t, "%s\n", unroll);
    }
    indent_put(t, ind);
    axe__text_put(t,
                  "for (long ax_i%d = 0; ax_i%d < %lldL; ax_i%d += "
                  "%lldL)\n",
                  k, k, (long long)extent, k, (long long)step);
}

/* The plan's loops before loop "upto" (all: nloops), outer first, each
 * after the line "unroll" (NULL: none). */
static int nested_loops(ax_text *t, const ax_plan *plan, int upto, int ind,
                        const char *unroll)
{
    int k, last = axe__plan_innermost_loop(plan);
    for (k = 0; k < upto; k++)
        if (!plan->loops[k].thread)
            loop_line(t, k, plan->loops[k].extent,
                      plan->pair == k + 1 ? 2
                      : k == last         ? plan->vec
                                          : 1,
                      ind++, unroll);
    return ind;
}

/* The backend's unroll line for the per-thread loops of "s" when they
 * index a register array (the loops of a thread's own elements, at most
 * AX_UNROLL_MAX iterations in all): unrolled, every register index is a
 * constant and the array stays in registers (CUDA); else NULL. */
static const char *unroll_line(const axe_program *p, const ax_stmt *s)
{
    const char *u = axe__backend_of(p)->unroll;
    int64_t n = 1;
    bool reg = false;
    int i, k;
    for (i = 0; i < s->nargs; i++)
        reg = reg || p->tensors[s->args[i].tensor].mem == AX_MEM_REGISTER;
    for (k = 0; k < s->plan->nloops; k++)
        if (!s->plan->loops[k].thread)
            n *= s->plan->loops[k].extent;
    return u != NULL && reg && n <= AX_UNROLL_MAX ? u : NULL;
}

/* A vector copy whose masked coordinates do not change along the
 * innermost loop (axe__plan_masked_rows): the outer loops, one test,
 * then the innermost loop of vector accesses when it lies inside every
 * masked operand, else of single elements with their guards. */
static void masked_rows(ax_text *t, const axe_program *p, const ax_stmt *s,
                        int ind)
{
    ax_plan one = *s->plan;
    ax_stmt each = *s;
    int kin = axe__plan_innermost_loop(s->plan);
    int64_t n = s->plan->loops[kin].extent;
    int in = nested_loops(t, s->plan, kin, ind, NULL);
    indent_put(t, in);
    axe__text_put(t, "if (");
    chunk_test(t, p, s);
    axe__text_put(t, ") { /* inside: vector accesses */\n");
    loop_line(t, kin, n, s->plan->vec, in + 1, NULL);
    indent_put(t, in + 2);
    vector_copy(t, p, s);
    indent_put(t, in);
    axe__text_put(t,
                  "} else { /* not inside: element by element, guarded */\n");
    loop_line(t, kin, n, 1, in + 1, NULL);
    one.vec = 1;
    each.plan = &one;
    body(t, p, &each, in + 2);
    indent_put(t, in);
    axe__text_put(t, "}\n");
}

static int split_loops(ax_text *t, const ax_plan *plan, int ind)
{
    int k, last = axe__plan_innermost_loop(plan);
    int64_t w = 1;
    indent_put(t, ind);
    axe__text_put(t,
                  "for (long ax_u = ax_rank; ax_u < %lldL; ax_u += %lldL) "
                  "{\n",
                  (long long)(plan->total / (plan->pair > 0 ? 2 : 1)),
                  (long long)plan->nthreads);
    for (k = plan->nloops - 1; k >= 0; k--) {
        /* a vector's chunk, or a whole-byte i4 pair (plan->pair) */
        int64_t g = plan->pair == k + 1 ? 2 : k == last ? plan->vec : 1;
        int64_t e = plan->loops[k].extent / g;
        indent_put(t, ind + 1);
        axe__text_put(t, "const long ax_i%d = ax_u / %lldL %% %lldL * %lldL;\n",
                      k, (long long)w, (long long)e, (long long)g);
        w *= e;
    }
    return ind + 1;
}

static bool digit_used(const ax_stmt *s, int k)
{
    int i;
    if (s->plan->loops[k].dim == coord_dim(s) ||
        axe__stmt_masked_dim(s, s->plan->loops[k].dim))
        return true;
    for (i = 0; i < s->nargs; i++)
        if (!s->plan->affine[i] || s->plan->loops[k].stride[i] != 0)
            return true;
    return false;
}

static void thread_digits(ax_text *t, const ax_stmt *s, int ind)
{
    const ax_plan *plan = s->plan;
    int k;
    for (k = 0; k < plan->nloops; k++)
        if (plan->loops[k].thread && digit_used(s, k)) {
            indent_put(t, ind);
            axe__text_put(t, "const long ax_t%d = ax_rank / %lldL %% %lldL;\n",
                          k, (long long)plan->loops[k].rank_div,
                          (long long)plan->loops[k].extent);
        }
}

/* The thread's rank in the scope's instance: in the grid (CTAs in order
 * bx, by, bz, then ax_tid), the warpgroup, the warp or the CTA. */
static void rank_put(ax_text *t, const axe_program *p, ax_scope s)
{
    if (s == AX_SCOPE_KERNEL)
        axe__text_put(t, "((bz * %lldL + by) * %lldL + bx) * %lldL + ax_tid",
                      (long long)p->grid[1], (long long)p->grid[0],
                      (long long)p->threads);
    else
        axe__text_put(t, "%s",
                      s == AX_SCOPE_WARP        ? "laneid"
                      : s == AX_SCOPE_WARPGROUP ? "tid_in_wg"
                                                : "ax_tid");
}

/* The operator "s" for the current thread (ax_tid) at indent "ind"; with
 * "whole" (its phase runs whole, compiler_emit_c.c), a CTA-scope split
 * operator runs every thread's elements in one loop nest instead, and a
 * gemm.thread_fma its nest over every thread's part
 * (compiler_emit_gemm_whole.c). */
static void op_block(ax_text *t, const axe_program *p, const ax_stmt *s,
                     int ind, bool whole)
{
    const ax_plan *plan = s->plan;
    bool rank_used = false, split = plan->kind == AX_PLAN_SPLIT && !whole;
    int in, k, half2 = whole ? 0 : axe__half2_pair(p, s);
    ax_plan h2;
    ax_stmt h2s;
    if (half2 > 0) { /* f16 pairs of words16 (compiler_emit_half2.c) */
        h2 = *plan;
        h2.pair = half2;
        h2s = *s;
        h2s.plan = &h2;
        plan = &h2;
        s = &h2s;
    }
    indent_put(t, ind);
    axe__text_put(t, "{ /* op %d (line %d%s%s): %s %s -- schedule %s.%s%s */\n",
                  s->index, s->line, axe__iter_sep(s), axe__iter(s),
                  axe__stmt_scope_name(p, s), axe__op_name(s->op),
                  axe__op_name(s->op), s->schedule,
                  whole ? ", all threads' elements in order" : "");
    if (whole && plan->kind != AX_PLAN_SPLIT) { /* a gemm.thread_fma */
        axe__emit_gemm_whole(t, p, s, ind + 1);
        indent_put(t, ind);
        axe__text_put(t, "}\n");
        return;
    }
    for (k = 0; k < plan->nloops; k++)
        rank_used = rank_used || (plan->loops[k].thread && digit_used(s, k));
    if (split || rank_used) {
        indent_put(t, ind + 1);
        axe__text_put(t, "const long ax_rank = ");
        rank_put(t, p, s->scope);
        axe__text_put(t, ";\n");
    }
    thread_digits(t, s, ind + 1);
    if (split) {
        in = split_loops(t, plan, ind + 1);
        body(t, p, s, in);
        indent_put(t, ind + 1);
        axe__text_put(t, "}\n");
    } else if (axe__plan_masked_rows(s, plan)) {
        masked_rows(t, p, s, ind + 1);
    } else if (!axe__emit_gemm_blocked(t, p, s, ind + 1)) {
        in = nested_loops(t, plan, plan->nloops, ind + 1, unroll_line(p, s));
        body(t, p, s, in);
    }
    indent_put(t, ind);
    axe__text_put(t, "}\n");
}

/* The operator's block (op_block), behind the run-time checks of its
 * data-dependent starts when it has some (compiler_emit_check.c). */
void axe__emit_op(ax_text *t, const axe_program *p, const ax_stmt *s, int ind,
                  bool whole)
{
    bool checked = axe__emit_start_checks(t, p, s, ind);
    op_block(t, p, s, ind + checked, whole);
    if (checked) {
        indent_put(t, ind);
        axe__text_put(t, "}\n");
    }
}

static const char int_text[] =
    "/* i32/i8 arithmetic wraps (two's complement): computed in uint32_t,\n"
    " * the low bits read as a signed value. */\n"
    "static inline int32_t ax_s32(uint32_t u)\n{\n"
    "    return u < 0x80000000u ? (int32_t)u\n"
    "                           : (int32_t)(u - 0x80000000u) - INT32_MAX - "
    "1;\n}\n\n";
static const char int8_text[] =
    "static inline int8_t ax_s8(uint32_t u)\n{\n"
    "    u &= 0xffu;\n"
    "    return (int8_t)(u < 0x80u ? (int)u : (int)u - 256);\n}\n\n";
static const char f2s32_text[] =
    "/* float -> i32: toward zero, saturated, NaN -> 0 (cvt.rzi.sat). */\n"
    "static inline int32_t ax_f2s32(double x)\n{\n"
    "    return x != x ? 0 : x <= -2147483648.0 ? INT32_MIN\n"
    "         : x >= 2147483647.0 ? INT32_MAX : (int32_t)x;\n}\n\n";
static const char s4_text[] =
    "static inline int ax_s4(uint32_t u)\n{\n"
    "    u &= 0xfu;\n"
    "    return u < 0x8u ? (int)u : (int)u - 16;\n}\n\n";
static const char f2s4_text[] =
    "/* float -> i4: toward zero, saturated, NaN -> 0 (cvt.rzi.sat). */\n"
    "static inline int ax_f2s4(double x)\n{\n"
    "    return x != x ? 0 : x <= -8.0 ? -8 : x >= 7.0 ? 7 : (int)x;\n}\n\n";
static const char ld4_text[] =
    "/* Packed i4: element a is nibble a % 2 (0: the low one) of byte a / 2,\n"
    " * read sign-extended; a store rewrites only its nibble. */\n"
    "static inline int ax_ld4(const uint8_t *b, long a)\n{\n"
    "    unsigned u = (unsigned)(b[a / 2L] >> (4 * (a % 2L))) & 0xfu;\n"
    "    return u < 8u ? (int)u : (int)u - 16;\n}\n\n";
static const char st4_text[] =
    "static inline void ax_st4(uint8_t *b, long a, int v)\n{\n"
    "    unsigned sh = (unsigned)(4 * (a % 2L));\n"
    "    b[a / 2L] = (uint8_t)((b[a / 2L] & ~(0xfu << sh)) |\n"
    "                         (((unsigned)v & 0xfu) << sh));\n}\n\n";
static const char get4_text[] =
    "static inline int ax_get4(uint8_t byte, long a)\n{\n"
    "    unsigned u = (unsigned)(byte >> (4 * (a % 2L))) & 0xfu;\n"
    "    return u < 8u ? (int)u : (int)u - 16;\n}\n\n";
static const char put4_text[] =
    "static inline void ax_put4(uint8_t *byte, long a, int v)\n{\n"
    "    unsigned sh = (unsigned)(4 * (a % 2L));\n"
    "    *byte = (uint8_t)((*byte & ~(0xfu << sh)) | (((unsigned)v & 0xfu) << "
    "sh));\n}\n\n";
static const char pack4_text[] =
    "/* Packed i4: the byte of two elements, lo the even one (low nibble),\n"
    " * stored whole. */\n"
    "static inline uint8_t ax_pack4(int lo, int hi)\n{\n"
    "    return (uint8_t)(((unsigned)lo & 0xfu) | (((unsigned)hi & 0xfu) << "
    "4));\n}\n\n";
static const char ld16_text[] =
    "/* 16-bit registers two to a 32-bit word: element a is bits 16 (a %\n"
    " * 2) of word a / 2; a store rewrites only its half. */\n"
    "static inline uint16_t ax_ld16(const uint32_t *w, long a)\n{\n"
    "    return (uint16_t)(w[a / 2L] >> (16 * (a % 2L)));\n}\n\n";
static const char st16_text[] =
    "static inline void ax_st16(uint32_t *w, long a, uint16_t v)\n{\n"
    "    unsigned sh = (unsigned)(16 * (a % 2L));\n"
    "    w[a / 2L] = (w[a / 2L] & ~(0xffffu << sh)) | ((uint32_t)v << sh);"
    "\n}\n\n";
static const char f2s8_text[] =
    "/* float -> i8: toward zero, saturated, NaN -> 0 (cvt.rzi.sat). */\n"
    "static inline int8_t ax_f2s8(double x)\n{\n"
    "    return (int8_t)(x != x ? 0 : x <= -128.0 ? -128 : x >= 127.0 ? 127\n"
    "                    : (int)x);\n}\n\n";

/* The integer conversion helpers that the generated code "body" calls
 * (each emitted only when called, as the f16/bf16 ones). */
void axe__emit_int_helpers(ax_text *t, const char *body)
{
    static const char *const names[] = {
        "ax_s32(",  "ax_s8(",   "ax_f2s32(", "ax_f2s8(", "ax_s4(",
        "ax_f2s4(", "ax_ld4(",  "ax_st4(",   "ax_get4(", "ax_put4(",
        "ax_ld16(", "ax_st16(", "ax_pack4("};
    static const char *const texts[] = {
        int_text,  int8_text, f2s32_text, f2s8_text, s4_text,
        f2s4_text, ld4_text,  st4_text,   get4_text, put4_text,
        ld16_text, st16_text, pack4_text};
    int i;
    for (i = 0; i < 13; i++)
        if (body != NULL &&
            (strstr(body, names[i]) != NULL ||
             (i == 0 && strstr(body, "AXE_ATOMIC_ADD_I32(") != NULL)))
            axe__text_put(t, "%s", texts[i]);
}
