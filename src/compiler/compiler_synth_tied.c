/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The registers whose layouts a copy anchor fixes (issue 15 §2;
 * docs/compiler.md, "Layout synthesis"): the anchored register and every
 * register tied to it by the pointwise constraints (elementwise, cast,
 * copy, select: whole register operands share one layout). The anchor
 * search uses the class for the i4 store-byte rule (a store of packed i4
 * needs whole bytes per thread) and for its tie rule (the accesses of the
 * other copies between the class and memory), and for its ldmatrix leaves
 * (the layouts that make a copy of the class from shared memory an
 * ldmatrix, proposed to the anchor of a larger copy). Invariant: the class
 * is a fixed point over the operators that the ready queue ties
 * (compiler_synth.c's propagate: at a collective scope, no rearrange, a
 * pointwise operator, whole register operands only).
 */
#include <stdio.h>
#include <string.h>

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

/* Whether register tensors "a" and "b" have one shape. */
static bool same_shape(const ax_tensor *a, const ax_tensor *b)
{
    if (a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d])
            return false;
    return true;
}

/* Leaves "ls" of copy "k" into "out", costed on anchor "s". */
static void add_tied(const axe_program *p, const ax_stmt *s, int reg, int k,
                     const ax_synth_ldsm *ls, ax_synth_tied_ldsm *out)
{
    char label[24];
    axe__synth_label(p, k, label, sizeof label);
    for (int j = 0; j < ls->n && out->n < AX_SYNTH_LDSM_LEAVES; j++) {
        int64_t acc;
        ax_synth_leaf *f = &out->leaf[out->n];
        if (!axe__synth_copy_accesses_with(p, s, reg, &ls->leaf[j].layout,
                                           &acc))
            continue;
        f->layout = ls->leaf[j].layout;
        f->cost = (double)acc;
        (void)snprintf(f->text, sizeof f->text, "%.150s, for %s",
                       ls->leaf[j].text, label);
        out->n++;
    }
}

axe_status axe__synth_tied_ldsm(const axe_program *p, const ax_stmt *s, int reg,
                                const bool *in, ax_synth_tied_ldsm *out,
                                axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[reg].tensor];
    out->n = 0;
    out->why_op = -1;
    out->why[0] = '\0';
    out->leaf_op = -1;
    out->leaf_n = 0;
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *c = p->ops[k];
        ax_synth_ldsm ls;
        if (c == s || c->scope != s->scope || c->nargs != 2 ||
            c->args[1].tensor < 0 || !in[c->args[0].tensor] ||
            !same_shape(t, &p->tensors[c->args[0].tensor]))
            continue;
        AXE_TRY(axe__synth_ldsm_leaves(p, c, 0, &ls, diag));
        add_tied(p, s, reg, k, &ls, out);
        if (out->n > 0 && out->leaf_op < 0)
            out->leaf_op = k, out->leaf_n = out->n;
        if (ls.n == 0 && ls.why[0] != '\0' && out->why_op < 0) {
            out->why_op = k;
            (void)snprintf(out->why, sizeof out->why, "%s", ls.why);
        }
    }
    return AXE_OK;
}
