/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Rearranges inserted by layout synthesis (issue 15 §2): when the solved
 * register operands of an operator disagree (two anchors, as flash
 * attention's two GEMMs with a reduce between), the source operand is
 * copied into a new register tensor of the reference operand's layout by
 * a `rearrange` statement placed just before the operator (staged
 * through shared memory by copy.smem), and the operator reads the new
 * tensor. The new tensor is named SRC_rN (N: the operator's number, a
 * digit appended while the name is taken); the new statement is numbered
 * after the program's operators (p->nops), so that the numbers of
 * `--schedule` and --explain of the written operators do not change.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth.h"

/* The link that points at "s" in the statement tree under "*at". */
static ax_stmt **find_link(ax_stmt **at, const ax_stmt *s, int depth)
{
    for (; *at != NULL && depth < AX_MAX_BLOCK_DEPTH; at = &(*at)->next) {
        ax_stmt **in;
        if (*at == s)
            return at;
        if ((*at)->kind == AX_ST_FOR || (*at)->kind == AX_ST_IF) {
            in = find_link(&(*at)->body, s, depth + 1);
            if (in != NULL)
                return in;
        }
        if ((*at)->kind == AX_ST_IF) {
            in = find_link(&(*at)->else_body, s, depth + 1);
            if (in != NULL)
                return in;
        }
    }
    return NULL;
}

static bool name_taken(const axe_program *p, const char *name)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        if (strcmp(p->tensors[i].name, name) == 0)
            return true;
    for (i = 0; i < p->nscalars; i++)
        if (strcmp(p->scalar_name[i], name) == 0)
            return true;
    for (i = 0; i < p->nvars; i++)
        if (strcmp(p->vars[i], name) == 0)
            return true;
    return false;
}

/* A new register tensor like "src" with layout "l", named SRC_rN. */
static axe_status new_tensor(axe_program *p, int src, int op,
                             const axe_layout *l, int *out, axe_diag *diag)
{
    ax_tensor *t;
    char name[AXE_KERNEL_NAME_MAX];
    int k = 0;
    if (p->ntensors == AX_MAX_TENSORS)
        return axe__fail(diag, AXE_ERR_CAPACITY, p->ops[op]->off,
                         "layout synthesis: no room for the register that "
                         "would rearrange '%s' (at most %d tensors)",
                         p->tensors[src].name, AX_MAX_TENSORS);
    do {
        int n = snprintf(name, sizeof name, k ? "%s_r%d_%d" : "%s_r%d",
                         p->tensors[src].name, op, k);
        if (n < 0 || (size_t)n >= sizeof name)
            return axe__fail(diag, AXE_ERR_CAPACITY, p->ops[op]->off,
                             "layout synthesis: no name for a rearranged "
                             "copy of '%s'",
                             p->tensors[src].name);
        k++;
    } while (name_taken(p, name));
    *out = p->ntensors++;
    t = &p->tensors[*out];
    *t = p->tensors[src];
    strcpy(t->name, name);
    strcpy(t->cname, "t_");
    strcat(t->cname, name);
    t->layout = *l;
    t->autolayout = true;
    t->written = false;
    return AXE_OK;
}

/* The statement `rearrange(dst, src)` before "s" (scope, line, guard
 * context as s's), numbered p->nops. */
static axe_status new_stmt(axe_program *p, ax_stmt *s, int dst, int src,
                           ax_stmt **out)
{
    ax_stmt *n = axe__arena_alloc(p->arena, sizeof *n);
    ax_stmt **ops =
        axe__arena_alloc(p->arena, sizeof *ops * (size_t)(p->nops + 2));
    ax_stmt **link = find_link(&p->body, s, 0);
    int i;
    if (n == NULL || ops == NULL)
        return AXE_ERR_NO_MEMORY;
    if (link == NULL)
        return AXE_ERR_INVALID;
    n->kind = AX_ST_OP;
    n->op = AX_OP_COPY;
    n->rearrange = true;
    n->scope = s->scope;
    n->off = s->off;
    n->line = s->line;
    n->seq = s->seq;
    n->iter = s->iter;
    n->nargs = 2;
    for (i = 0; i < 2; i++) {
        n->args[i].tensor = i == 0 ? dst : src;
        n->args[i].bdim = -1;
        n->args[i].off = s->off;
    }
    memcpy(ops, p->ops, sizeof *ops * (size_t)p->nops);
    n->index = p->nops;
    ops[p->nops++] = n;
    p->ops = ops;
    n->next = s;
    *link = n;
    *out = n;
    return AXE_OK;
}

axe_status axe__synth_insert_rearrange(axe_program *p, ax_stmt *s, int tensor,
                                       const axe_layout *l, int *made,
                                       ax_stmt **stmt, axe_diag *diag)
{
    axe_status st;
    AXE_TRY(new_tensor(p, tensor, s->index, l, made, diag));
    st = new_stmt(p, s, *made, tensor, stmt);
    if (st == AXE_ERR_INVALID)
        return axe__fail(diag, st, s->off,
                         "layout synthesis: operator not found in the "
                         "statements");
    return st;
}
