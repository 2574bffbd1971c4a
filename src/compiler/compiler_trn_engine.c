/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The vector- and scalar-engine schedules of a core kernel's fills,
 * elementwise operators and reductions (docs/compiler.md, "The
 * accelerator model"):
 *   - OP.vector: fill (a memset), add, sub, mul, div, max, min (the
 *     vector engine's tensor_tensor and tensor_scalar instructions);
 *   - OP.scalar: the unary math operators, neg, relu and cast (the
 *     scalar engine's activation func(in * scale + bias), converting to
 *     the destination's dtype), and add, sub, mul of a per-partition
 *     column (a `.bcast` along F) or a scalar (its scale or bias);
 *   - reduce.vector: sum, max, min along the free dim of each partition
 *     (tensor_reduce).
 * An engine computes each partition's elements in that partition's lane,
 * so every operand lies in a scratchpad (SBUF or PSUM) and every source
 * element on its destination element's partition; this is checked for
 * every element at every value of the loops the region starts read (at
 * most 2^24 element visits). The operands are f32, f16 or bf16, whole
 * regions (no mask). Each schedule builds the serial plan: the element
 * loop that the C backend runs and that trn-sim executes as one
 * instruction of the engine (compiler_emit_trn.c). Invariant: an
 * operator accepted here has, for every element, all its operands on one
 * partition.
 */
#include <string.h>

#include "compiler_internal.h"

/* The element visits the partition check may make over every value of
 * the loops. */
#define AX_TRN_MAX_VISITS ((int64_t)1 << 24)

static const char *const engine_name[] = {"", "vector", "scalar"};

static bool is_float(axe_dtype d)
{
    return d == AXE_DTYPE_F32 || d == AXE_DTYPE_F16 || d == AXE_DTYPE_BF16;
}

/* An activation function of the scalar engine (one source). */
static bool is_activation(ax_op op)
{
    static const ax_op act[] = {
        AX_OP_EXP,       AX_OP_SQRT,    AX_OP_LOG,  AX_OP_LOG2,
        AX_OP_EXP2,      AX_OP_TANH,    AX_OP_ERF,  AX_OP_RSQRT,
        AX_OP_ABS,       AX_OP_SIGMOID, AX_OP_SILU, AX_OP_GELU,
        AX_OP_GELU_TANH, AX_OP_NEG,     AX_OP_RELU, AX_OP_CAST};
    for (size_t k = 0; k < sizeof act / sizeof act[0]; k++)
        if (act[k] == op)
            return true;
    return false;
}

/* A binary operator of the vector engine. */
static bool is_arith(ax_op op)
{
    return op == AX_OP_ADD || op == AX_OP_SUB || op == AX_OP_MUL ||
           op == AX_OP_DIV || op == AX_OP_MAX || op == AX_OP_MIN;
}

/* Whether a source of "s" is a scalar operand or a broadcast tensor (a
 * per-partition column when the partition check holds). */
static bool has_column(const ax_stmt *s)
{
    int pos;
    for (pos = 1; pos < axe__operand_count(s); pos++) {
        int i = axe__operand_arg(s, pos);
        if (i < 0 || s->args[i].bdim >= 0)
            return true;
    }
    return false;
}

/* The checks of every engine schedule before the partition check: a
 * core kernel, whole regions in a scratchpad, float operands. */
static axe_status operands_ok(const axe_program *p, const ax_stmt *s,
                              const char *eng, axe_diag *why)
{
    int i;
    if (!p->core)
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "not a core kernel (the engines run a core "
                         "kernel's operators)");
    for (i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (t->space == AX_SPACE_NONE)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' is in HBM (the %s engine computes on "
                             "SBUF and PSUM; copy.dma moves HBM to SBUF)",
                             t->name, eng);
        if (s->args[i].any_masked || s->args[i].is_view)
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' is masked or a view (the %s engine "
                             "computes on whole regions)",
                             t->name, eng);
        if (!is_float(t->dtype))
            return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' is %s (the %s engine computes on f32, "
                             "f16 and bf16 here)",
                             t->name, axe_dtype_name(t->dtype), eng);
    }
    return AXE_OK;
}

/* The point of operand "i" at element "idx" of the operator's shape. */
static axe_status point_at(const axe_program *p, const ax_stmt *s, int i,
                           const int64_t *idx, const int64_t *env, int64_t *pt)
{
    const ax_ref *r = &s->args[i];
    int64_t c[AX_MAX_DIMS] = {0};
    int d, td;
    for (d = 0; d < axe__ref_ndim(r); d++)
        if ((td = axe__ref_tdim(r, d)) >= 0)
            c[td] =
                (r->start[td] != NULL ? axe__expr_eval(r->start[td], env) : 0) +
                idx[d];
    return axe__trn_point(&p->tensors[r->tensor], c, pt);
}

/* Every element of "s" at the loop values "env": each source on its
 * destination's partition. */
static axe_status lanes(const axe_program *p, const ax_stmt *s,
                        const int64_t *env, const char *eng, axe_diag *why)
{
    const ax_ref *r0 = &s->args[0];
    int nd = axe__ref_ndim(r0), d, i;
    int64_t idx[AX_MAX_DIMS] = {0}, total = 1, e, pt[2], p0 = 0;
    for (d = 0; d < nd; d++)
        total *= axe__ref_len(r0, d);
    for (e = 0; e < total; e++) {
        for (i = 0; i < s->nargs; i++) {
            if (point_at(p, s, i, idx, env, pt) != AXE_OK)
                return axe__fail(why, AXE_ERR_INVALID, -1,
                                 "element %lld of '%s' has no storage "
                                 "address",
                                 (long long)e,
                                 p->tensors[s->args[i].tensor].name);
            if (i == 0)
                p0 = pt[0];
            else if (pt[0] != p0)
                return axe__fail(
                    why, AXE_ERR_UNSUPPORTED, -1,
                    "element %lld: '%s' is on partition %lld, its "
                    "destination '%s' on partition %lld (the %s engine "
                    "computes each partition's elements in its lane%s; "
                    "copy.transpose or copy.dma moves across partitions)",
                    (long long)e, p->tensors[s->args[i].tensor].name,
                    (long long)pt[0], p->tensors[r0->tensor].name,
                    (long long)p0, eng,
                    s->op == AX_OP_REDUCE ? ": it reduces along F" : "");
        }
        for (d = nd - 1; d >= 0 && ++idx[d] == axe__ref_len(r0, d); d--)
            idx[d] = 0;
    }
    return AXE_OK;
}

/* The partition check at every value of the loops the starts read. */
static axe_status all_lanes(const axe_program *p, const ax_stmt *s,
                            const char *eng, axe_diag *why)
{
    ax_trn_copy c;
    int64_t env[AX_MAX_VARS] = {0}, q, elems = 1;
    int d;
    memset(&c, 0, sizeof c);
    AXE_TRY(axe__trn_loops(p, s, &c, why));
    for (d = 0; d < axe__ref_ndim(&s->args[0]); d++)
        elems *= axe__ref_len(&s->args[0], d);
    if (elems > AX_TRN_MAX_VISITS / c.ncombo)
        return axe__fail(why, AXE_ERR_CAPACITY, -1,
                         "%lld elements at each of %lld values of the loops: "
                         "checking their partitions would visit more than "
                         "2^24 elements",
                         (long long)elems, (long long)c.ncombo);
    for (q = 0; q < c.ncombo; q++) {
        axe__trn_combo_env(&c, q, env);
        AXE_TRY(lanes(p, s, env, eng, why));
    }
    return AXE_OK;
}

/* The common tail: operands, partitions, the serial plan, and on commit
 * the engine. */
static axe_status on_engine(axe_program *p, ax_stmt *s, int eng, ax_plan *plan,
                            axe_diag *why, bool commit)
{
    AXE_TRY(operands_ok(p, s, engine_name[eng], why));
    AXE_TRY(all_lanes(p, s, engine_name[eng], why));
    AXE_TRY(axe__plan_build(p, s, AX_PLAN_SERIAL, -1, plan, why));
    if (commit)
        s->tengine = eng;
    return AXE_OK;
}

axe_status axe__map_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                  axe_diag *why, bool commit)
{
    if (s->op != AX_OP_FILL && !is_arith(s->op))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "%s is no vector-engine instruction (memset for "
                         "fill; add, sub, mul, div, max, min%s)",
                         axe__op_name(s->op),
                         is_activation(s->op)
                             ? "; the scalar engine runs the activations"
                             : "");
    return on_engine(p, s, AX_TRN_ENG_VECTOR, plan, why, commit);
}

axe_status axe__map_scalar_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                  axe_diag *why, bool commit)
{
    bool affine =
        s->op == AX_OP_ADD || s->op == AX_OP_SUB || s->op == AX_OP_MUL;
    if (!is_activation(s->op) && !(affine && has_column(s)))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "%s is no activation of the scalar engine "
                         "(func(in * scale + bias): the unary math "
                         "operators, neg, relu, cast, and add, sub, mul "
                         "of a per-partition column or a scalar)%s",
                         axe__op_name(s->op),
                         affine ? "; both sources are whole tiles" : "");
    return on_engine(p, s, AX_TRN_ENG_SCALAR, plan, why, commit);
}

axe_status axe__reduce_vector_engine(axe_program *p, ax_stmt *s, ax_plan *plan,
                                     axe_diag *why, bool commit)
{
    if (axe__red_is_arg(s->rkind))
        return axe__fail(why, AXE_ERR_UNSUPPORTED, -1,
                         "argmax and argmin are no vector-engine "
                         "reduction here (sum, max, min)");
    return on_engine(p, s, AX_TRN_ENG_VECTOR, plan, why, commit);
}

/* The instruction's name: memset, tensor_reduce, activation,
 * tensor_scalar or tensor_tensor. */
static const char *instruction(const ax_stmt *s)
{
    if (s->op == AX_OP_FILL)
        return "memset";
    if (s->op == AX_OP_REDUCE)
        return "tensor_reduce along F";
    if (s->tengine == AX_TRN_ENG_SCALAR)
        return has_column(s) ? "activation identity(in * scale + bias), "
                               "the column or scalar as scale or bias"
                             : "activation";
    return has_column(s) ? "tensor_scalar (a per-partition column or scalar)"
                         : "tensor_tensor";
}

void axe__trn_engine_describe(ax_text *t, const axe_program *p,
                              const ax_stmt *s)
{
    axe__text_put(t,
                  "    %s engine: one instruction (%s) over the element loop "
                  "below (every source element on its destination's "
                  "partition)\n",
                  engine_name[s->tengine], instruction(s));
    axe__plan_describe(t, p, s, s->plan);
}
