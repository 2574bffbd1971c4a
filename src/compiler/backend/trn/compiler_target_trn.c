/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trn-sim backend's ax_backend value (compiler_backend.h): a core
 * kernel as C that runs every operator as engine instructions of the
 * simulator compiler_trn_sim.h (compiler_emit_trn.c). Its check refuses,
 * with the reason, what the simulator cannot run: a kernel that is not a
 * core kernel, an operator whose schedule is no engine schedule (the
 * table "engine" below: every schedule that has an emission here), a
 * matmul operand type it does not load, an HBM tensor of run-time extent.
 * Invariant: a program this check accepts has only operators of the
 * table, so compiler_emit_trn.c emits each of them as instructions.
 */
#include <string.h>

#include "compiler_backend.h"
#include "compiler_trn.h"

/* The engine schedules (op.schedule; op NULL: every operator that has
 * the schedule) this backend emits. */
static const char *const engine[][2] = {{"copy", "dma"},
                                        {"copy", "transpose"},
                                        {"gemm", "tensor_engine"},
                                        {NULL, "vector"},
                                        {NULL, "scalar"}};
#define NENGINE ((int)(sizeof engine / sizeof engine[0]))

static bool is_engine(const ax_stmt *s)
{
    for (int k = 0; k < NENGINE; k++)
        if ((engine[k][0] == NULL ||
             strcmp(axe__op_name(s->op), engine[k][0]) == 0) &&
            strcmp(s->schedule, engine[k][1]) == 0)
            return true;
    return false;
}

static bool loads(axe_dtype d)
{
    return d == AXE_DTYPE_F32 || d == AXE_DTYPE_F16 || d == AXE_DTYPE_BF16;
}

static axe_status check_block(const axe_program *p, const ax_stmt *s,
                              axe_diag *diag)
{
    for (; s != NULL; s = s->next) {
        AXE_TRY(check_block(p, s->body, diag));
        AXE_TRY(check_block(p, s->else_body, diag));
        if (s->kind != AX_ST_OP || s->dead)
            continue;
        if (!is_engine(s))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                             "%s#%d (line %d) has no engine schedule on "
                             "trn-sim: it dispatched to %s.%s, a loop of the "
                             "C backend (engine schedules: copy.dma, "
                             "copy.vector, copy.transpose, "
                             "gemm.tensor_engine, OP.vector, OP.scalar; "
                             "--explain says why they do not apply)",
                             axe__op_name(s->op), s->index, s->line,
                             axe__op_name(s->op), s->schedule);
        if (s->op == AX_OP_GEMM &&
            (!loads(p->tensors[s->args[1].tensor].dtype) ||
             !loads(p->tensors[s->args[2].tensor].dtype)))
            return axe__fail(
                diag, AXE_ERR_UNSUPPORTED, s->off,
                "gemm#%d (line %d): the simulator's TensorEngine "
                "loads f32, f16 and bf16 (A is %s, B %s)",
                s->index, s->line,
                axe_dtype_name(p->tensors[s->args[1].tensor].dtype),
                axe_dtype_name(p->tensors[s->args[2].tensor].dtype));
    }
    return AXE_OK;
}

/* Before dispatch: core kernels only. */
static axe_status trn_scope(const axe_program *p, axe_diag *diag)
{
    if (!p->core)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "kernel '%s' is not a core kernel: the trn-sim "
                         "target runs `kernel NAME(...) core` kernels",
                         p->name);
    return AXE_OK;
}

static axe_status trn_check(const axe_program *p, axe_diag *diag)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].dyn_extent != NULL)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "'%s' has a run-time extent: the trn-sim "
                             "target takes HBM tensors of constant shape",
                             p->tensors[i].name);
    return check_block(p, p->body, diag);
}

const ax_backend axe__backend_trn = {
    .name = "trn-sim",
    .what = "C99 running a core kernel's engine instructions on the "
            "accelerator simulator (compiler_trn_sim.h)",
    .archs = NULL,
    .narchs = 0,
    .schedules = NULL,
    .nschedules = 0,
    .reg_index = "[ax_tid]",
    .access_macros = true,
    .vec_type = NULL,
    .scope = trn_scope,
    .check = trn_check,
    .explain = NULL,
    .emit = axe__emit_trn,
};
