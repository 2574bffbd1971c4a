/* SPDX-License-Identifier: Apache-2.0 */
/*
 * --explain of device operators (docs/compiler.md, "Distributed
 * tensors"): the logical operator, the mesh, and each operand's declared
 * layout with the local shard every device stores.
 */
#include <string.h>

#include "axe/notation.h"
#include "compiler_internal.h"

/* "f32[64,128]" of shape "shape". */
static void put_shape(ax_text *t, const ax_tensor *tn, const int64_t *shape)
{
    int d;
    axe__text_put(t, "%s[", axe_dtype_name(tn->dtype));
    for (d = 0; d < tn->ndim; d++)
        axe__text_put(t, "%s%lld", d ? "," : "", (long long)shape[d]);
    axe__text_put(t, "]");
}

static void put_layout(ax_text *t, const axe_layout *l)
{
    char buf[1024];
    (void)axe_print_layout(l, buf, sizeof buf);
    axe__text_put(t, "%s", buf);
}

/* One operand line: its role, name, layout and local shard. */
static void put_operand(ax_text *t, const axe_program *p, const char *role,
                        int i)
{
    const ax_tensor *tn = &p->tensors[i];
    axe__text_put(t, "  %s %s: ", role, tn->name);
    put_shape(t, tn, tn->gshape);
    axe__text_put(t, " layout ");
    put_layout(t, &tn->glayout);
    axe__text_put(t, "\n    local shard on each device: ");
    put_shape(t, tn, tn->shape);
    axe__text_put(t, " layout ");
    put_layout(t, &tn->layout);
    axe__text_put(t, " (%lld elements of storage)\n", (long long)tn->span);
}

static void put_mesh(ax_text *t, const axe_program *p)
{
    int k;
    axe__text_put(t, "  mesh: %lld devices (", (long long)p->ndev);
    for (k = 0; k < p->nmesh; k++) {
        if (p->mesh_name[k][0] != '\0')
            axe__text_put(t, "%s%s = %lld", k ? ", " : "", p->mesh_name[k],
                          (long long)p->mesh_extent[k]);
        else
            axe__text_put(t, "%s%lld", k ? ", " : "",
                          (long long)p->mesh_extent[k]);
    }
    axe__text_put(t, "), numbered row-major into gpuid\n");
}

axe_status axe__devop_explain(const axe_program *p, ax_stmt *s)
{
    ax_text t;
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    axe__text_init(&t, p->arena);
    axe__text_put(&t, "device op %d (line %d): device %s(%s, %s", s->index,
                  s->line, axe__op_name(s->op), d->name, src->name);
    if (s->op == AX_OP_REDUCE)
        axe__text_put(&t, ", %s, %d", axe__red_name(s->rkind), s->rdim);
    axe__text_put(&t, ")\n");
    put_mesh(&t, p);
    put_operand(&t, p, "dst", s->args[0].tensor);
    put_operand(&t, p, "src", s->args[1].tensor);
    if (s->op == AX_OP_COPY)
        axe__text_put(&t,
                      "  every device holding an element of %s gets "
                      "%s's value of it\n",
                      d->name, src->name);
    else
        axe__text_put(&t,
                      "  every device holding an element of %s gets the "
                      "%s of %s over dim %d, combined in order of the "
                      "dim\n",
                      d->name, axe__red_name(s->rkind), src->name, s->rdim);
    s->explain = t.buf;
    return t.status;
}
