/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Printing of mapping expressions in Furiosa's Display form (spec §7): a
 * symbol by its name, a broadcast by its size, `L / n`, `L % n`, `L = n`,
 * `L # n` / `L #{0} n` / `L #{!} n`, and a pair as `(e1, e2, ...)` with
 * nested pairs in either position flattened; no other parentheses. Also
 * the `m![...]` form and cells. Invariant: the printed text of a valid
 * expression parses back (over the same axes) to an expression that prints
 * the same text.
 */
#include "notation_internal.h"
#include "notation_mapping_internal.h"

static void put_expr(axe__writer *w, const axe_mapping *m, int node);

static void put_items(axe__writer *w, const axe_mapping *m, int node,
                      bool *first)
{
    const axe_mapping_node *x = &m->node[node];
    if (x->op == AXE_MAPPING_PAIR) {
        put_items(w, m, x->a, first);
        put_items(w, m, x->b, first);
        return;
    }
    if (!*first)
        axe__put(w, ", ");
    *first = false;
    put_expr(w, m, node);
}

static const char *op_text(const axe_mapping_node *x)
{
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_STRIDE:
        return " / ";
    case AXE_MAPPING_MODULO:
        return " % ";
    case AXE_MAPPING_RESIZE:
        return " = ";
    case AXE_MAPPING_PADDING:
        return x->kind == AXE_PADDING_ZERO     ? " #{0} "
               : x->kind == AXE_PADDING_BOTTOM ? " #{!} "
                                               : " # ";
    case AXE_MAPPING_SYMBOL:
    case AXE_MAPPING_BROADCAST:
    case AXE_MAPPING_PAIR:
        break;
    }
    return "";
}

static void put_expr(axe__writer *w, const axe_mapping *m, int node)
{
    const axe_mapping_node *x = &m->node[node];
    bool first = true;
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_SYMBOL:
        axe__put(w, m->axes.name[x->n]);
        return;
    case AXE_MAPPING_BROADCAST:
        axe__put_int(w, x->n);
        return;
    case AXE_MAPPING_PAIR:
        axe__put(w, "(");
        put_items(w, m, node, &first);
        axe__put(w, ")");
        return;
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
    case AXE_MAPPING_RESIZE:
    case AXE_MAPPING_PADDING:
        put_expr(w, m, x->a);
        axe__put(w, op_text(x));
        axe__put_int(w, x->n);
        return;
    }
}

size_t axe_print_mapping(const axe_mapping *m, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    if (m->nnodes > 0)
        put_expr(&w, m, axe_mapping_root(m));
    return axe__writer_end(&w);
}

size_t axe_print_mapping_macro(const axe_mapping *m, char *buf, size_t cap)
{
    axe__writer w;
    bool first = true;
    axe__writer_init(&w, buf, cap);
    axe__put(&w, "m![");
    if (m->nnodes > 0)
        put_items(&w, m, axe_mapping_root(m), &first);
    axe__put(&w, "]");
    return axe__writer_end(&w);
}

const char *axe_padding_kind_name(axe_padding_kind k)
{
    return k == AXE_PADDING_ZERO     ? "zero"
           : k == AXE_PADDING_BOTTOM ? "bottom"
                                     : "top";
}

size_t axe_print_mapping_cell(const axe_mapping_axes *axes, uint32_t mask,
                              const axe_mapping_cell *c, char *buf, size_t cap)
{
    axe__writer w;
    bool first = true;
    axe__writer_init(&w, buf, cap);
    if (c->kind == AXE_CELL_OUT_OF_BOUNDS) {
        axe__put(&w, "out of bounds");
    } else if (c->kind == AXE_CELL_PADDING) {
        axe__put(&w, "padding(");
        axe__put(&w, axe_padding_kind_name(c->padding));
        axe__put(&w, ")");
    } else {
        axe__put(&w, "{");
        for (int k = 0; k < axes->n && k < 32; k++) {
            if (!(mask >> k & 1u))
                continue;
            axe__put(&w, first ? "" : ", ");
            first = false;
            axe__put(&w, axes->name[k]);
            axe__put(&w, ": ");
            axe__put_int(&w, c->coord[k]);
        }
        axe__put(&w, "}");
    }
    return axe__writer_end(&w);
}
