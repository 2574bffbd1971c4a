/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registers whose layouts a copy anchor fixes (issue 15 §2;
 * docs/compiler.md, "Layout synthesis"): the anchored register and every
 * register tied to it by the pointwise constraints (elementwise, cast,
 * copy, select: whole register operands share one layout). The anchor
 * search uses the class for the i4 store-byte rule (a store of packed i4
 * needs whole bytes per thread) and for its tie rule (the accesses of the
 * other copies between the class and memory). Invariant: the class is a
 * fixed point over the operators that the ready queue ties (compiler_synth.c's
 * propagate: at a collective scope, no rearrange, a pointwise operator, whole
 * register operands only).
 */
#include "compiler_synth.h"

/* Whether register tensor "t" is a whole operand of "s" and "s" ties the
 * layouts of its whole operands together (as the ready queue does). */
static bool tied_op(const axe_program *p, const ax_stmt *s, int t)
{
    bool in = false;
    if (s->scope == AX_SCOPE_THREAD || s->scope == AX_SCOPE_KERNEL ||
        s->rearrange || !axe__synth_pointwise(s->op))
        return false;
    for (int a = 0; a < s->nargs; a++)
        in = in || (s->args[a].tensor == t && axe__synth_whole(p, &s->args[a]));
    return in;
}

void axe__synth_tied(const axe_program *p, int reg, bool *in)
{
    bool more = true;
    for (int i = 0; i < p->ntensors; i++)
        in[i] = i == reg;
    while (more) {
        more = false;
        for (int k = 0; k < p->nops; k++)
            for (int a = 0; a < p->ops[k]->nargs; a++) {
                const ax_ref *r = &p->ops[k]->args[a];
                if (!in[r->tensor] || !tied_op(p, p->ops[k], r->tensor))
                    continue;
                for (int b = 0; b < p->ops[k]->nargs; b++) {
                    int u = p->ops[k]->args[b].tensor;
                    if (!in[u] && p->tensors[u].mem == AX_MEM_REGISTER &&
                        tied_op(p, p->ops[k], u))
                        in[u] = more = true;
                }
            }
    }
}

int axe__synth_i4_store(const axe_program *p, const bool *in)
{
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *s = p->ops[k];
        const ax_tensor *d = &p->tensors[s->args[0].tensor];
        if ((s->op == AX_OP_COPY || s->op == AX_OP_CAST) && s->nargs == 2 &&
            in[s->args[1].tensor] && d->dtype == AXE_DTYPE_I4 &&
            d->mem != AX_MEM_REGISTER)
            return s->args[0].tensor;
    }
    return -1;
}
