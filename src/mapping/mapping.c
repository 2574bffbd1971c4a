/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mapping-expression value: axis tables, node construction with the
 * size rules of spec §4, structural queries, cells and the factor view.
 * Invariant: a node is stored only after its size rule holds, so every
 * stored expression is valid; children precede their parents.
 */
#include <string.h>

#include "mapping_internal.h"

axe_status axe_mapping_axes_add(axe_mapping_axes *axes, const char *name,
                                int64_t size, axe_diag *diag)
{
    size_t len = strlen(name);
    if (len == 0 || len >= AXE_MAPPING_NAME_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "axis name '%s' is empty or longer than %d bytes",
                         name, AXE_MAPPING_NAME_MAX - 1);
    if (axe_mapping_axes_find(axes, name, len) >= 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "axis '%s' is declared multiple times", name);
    if (size < 1)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "axis '%s' has size %lld; sizes are positive", name,
                         (long long)size);
    if (axes->n == AXE_MAPPING_MAX_AXES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1, "more than %d axes",
                         AXE_MAPPING_MAX_AXES);
    memset(axes->name[axes->n], 0, AXE_MAPPING_NAME_MAX);
    memcpy(axes->name[axes->n], name, len);
    axes->size[axes->n++] = size;
    return AXE_OK;
}

int axe_mapping_axes_find(const axe_mapping_axes *axes, const char *name,
                          size_t len)
{
    for (int k = 0; k < axes->n; k++)
        if (strlen(axes->name[k]) == len &&
            memcmp(axes->name[k], name, len) == 0)
            return k;
    return -1;
}

void axe_mapping_init(axe_mapping *m, const axe_mapping_axes *axes)
{
    m->axes = *axes;
    m->nnodes = 0;
}

/* The size of an operator node "op" with operand size "in" and number
 * "n", or the violated rule of spec §4. */
static axe_status op_size(axe_mapping_op op, int64_t in, int64_t n,
                          int64_t *out, axe_diag *diag)
{
    const char *what = op == AXE_MAPPING_STRIDE ? "stride" : "modulo";
    switch (op) {
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
        if (n < 1)
            return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1, "%s by %lld", what,
                             (long long)n);
        if (in % n != 0)
            return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                             "%s %lld does not divide size %lld", what,
                             (long long)n, (long long)in);
        *out = op == AXE_MAPPING_STRIDE ? in / n : n;
        return AXE_OK;
    case AXE_MAPPING_RESIZE:
        if (n < 1 || n > in)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "resize %lld is not within 1..%lld (the size)",
                             (long long)n, (long long)in);
        *out = n;
        return AXE_OK;
    case AXE_MAPPING_PADDING:
        if (n < in)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "padding %lld is below size %lld", (long long)n,
                             (long long)in);
        *out = n;
        return AXE_OK;
    case AXE_MAPPING_SYMBOL:
    case AXE_MAPPING_BROADCAST:
    case AXE_MAPPING_PAIR:
        break;
    }
    return AXE_ERR_INVALID;
}

/* The size of a new node, or why it is not valid. */
static axe_status node_size(const axe_mapping *m, axe_mapping_node *x,
                            axe_diag *diag)
{
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_SYMBOL:
        if (x->n < 0 || x->n >= m->axes.n)
            return axe__fail(diag, AXE_ERR_INVALID, -1, "no axis %lld",
                             (long long)x->n);
        x->size = m->axes.size[x->n];
        return AXE_OK;
    case AXE_MAPPING_BROADCAST:
        if (x->n < 1)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "broadcast of size %lld; sizes are positive",
                             (long long)x->n);
        x->size = x->n;
        return AXE_OK;
    case AXE_MAPPING_PAIR:
        if (axe__mul(m->node[x->a].size, m->node[x->b].size, &x->size))
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the pair's size %lld * %lld overflows",
                             (long long)m->node[x->a].size,
                             (long long)m->node[x->b].size);
        return AXE_OK;
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
    case AXE_MAPPING_RESIZE:
    case AXE_MAPPING_PADDING:
        return op_size((axe_mapping_op)x->op, m->node[x->a].size, x->n,
                       &x->size, diag);
    }
    return axe__fail(diag, AXE_ERR_INVALID, -1, "unknown operator %d", x->op);
}

static bool child_ok(const axe_mapping *m, int c)
{
    return c >= 0 && c < m->nnodes;
}

axe_status axe_mapping_push(axe_mapping *m, axe_mapping_op op, int a, int b,
                            int64_t n, axe_padding_kind kind, int *id,
                            axe_diag *diag)
{
    axe_mapping_node x = {
        (uint8_t)op, (uint8_t)kind, (int16_t)a, (int16_t)b, n, 0};
    bool unary = op >= AXE_MAPPING_STRIDE;
    if ((op == AXE_MAPPING_PAIR && (!child_ok(m, a) || !child_ok(m, b))) ||
        (unary && !child_ok(m, a)) || (unsigned)kind > AXE_PADDING_TOP)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "bad operand index");
    if (m->nnodes == AXE_MAPPING_MAX_NODES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "more than %d nodes in a mapping expression",
                         AXE_MAPPING_MAX_NODES);
    AXE_TRY(node_size(m, &x, diag));
    m->node[m->nnodes] = x;
    *id = m->nnodes++;
    return AXE_OK;
}

axe_status axe_mapping_copy_subtree(axe_mapping *m, const axe_mapping *src,
                                    int root, int *id)
{
    const axe_mapping_node *x = &src->node[root];
    int a = -1, b = -1;
    if (x->op == AXE_MAPPING_PAIR || x->op >= AXE_MAPPING_STRIDE)
        AXE_TRY(axe_mapping_copy_subtree(m, src, x->a, &a));
    if (x->op == AXE_MAPPING_PAIR)
        AXE_TRY(axe_mapping_copy_subtree(m, src, x->b, &b));
    return axe_mapping_push(m, (axe_mapping_op)x->op, a, b, x->n,
                            (axe_padding_kind)x->kind, id, NULL);
}

int axe_mapping_root(const axe_mapping *m) { return m->nnodes - 1; }

int64_t axe_mapping_size(const axe_mapping *m)
{
    return m->nnodes == 0 ? 0 : m->node[m->nnodes - 1].size;
}

bool axe_mapping_uses_axis(const axe_mapping *m, int root, int axis)
{
    const axe_mapping_node *x = &m->node[root];
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_SYMBOL:
        return x->n == axis;
    case AXE_MAPPING_BROADCAST:
        return false;
    case AXE_MAPPING_PAIR:
        return axe_mapping_uses_axis(m, x->a, axis) ||
               axe_mapping_uses_axis(m, x->b, axis);
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
    case AXE_MAPPING_RESIZE:
    case AXE_MAPPING_PADDING:
        break;
    }
    return axe_mapping_uses_axis(m, x->a, axis);
}

bool axe_mapping_same_tree(const axe_mapping *m, int x, const axe_mapping *n,
                           int y)
{
    const axe_mapping_node *p = &m->node[x], *q = &n->node[y];
    if (p->op != q->op || p->size != q->size)
        return false;
    if (p->op == AXE_MAPPING_SYMBOL)
        return strcmp(m->axes.name[p->n], n->axes.name[q->n]) == 0;
    if (p->n != q->n || p->kind != q->kind)
        return false;
    if (p->op == AXE_MAPPING_BROADCAST)
        return true;
    if (!axe_mapping_same_tree(m, p->a, n, q->a))
        return false;
    return p->op != AXE_MAPPING_PAIR || axe_mapping_same_tree(m, p->b, n, q->b);
}

/* ---- cells ------------------------------------------------------- */

void axe_mapping_cell_zero(axe_mapping_cell *c)
{
    memset(c, 0, sizeof *c);
    c->kind = AXE_CELL_INDEX;
}

axe_status axe_mapping_cell_combine(const axe_mapping_cell *a,
                                    const axe_mapping_cell *b,
                                    axe_mapping_cell *out)
{
    axe_mapping_cell r;
    if (a->kind != AXE_CELL_INDEX || b->kind != AXE_CELL_INDEX) {
        *out = a->kind != AXE_CELL_INDEX ? *a : *b;
        return AXE_OK;
    }
    r = *a;
    for (int k = 0; k < AXE_MAPPING_MAX_AXES; k++)
        AXE_TRY(axe__add(a->coord[k], b->coord[k], &r.coord[k]));
    *out = r;
    return AXE_OK;
}

bool axe_mapping_cell_equal(const axe_mapping_cell *a,
                            const axe_mapping_cell *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == AXE_CELL_PADDING)
        return a->padding == b->padding;
    if (a->kind == AXE_CELL_OUT_OF_BOUNDS)
        return true;
    return memcmp(a->coord, b->coord, sizeof a->coord) == 0;
}

/* ---- the factor view --------------------------------------------- */

bool axe__mapping_chain(const axe_mapping *m, int node, int *atom, int64_t *mu)
{
    int64_t prod = 1;
    if (m->node[node].op != AXE_MAPPING_STRIDE &&
        m->node[node].op != AXE_MAPPING_MODULO)
        return false;
    while (m->node[node].op == AXE_MAPPING_STRIDE ||
           m->node[node].op == AXE_MAPPING_MODULO) {
        if (m->node[node].op == AXE_MAPPING_STRIDE)
            prod *= m->node[node].n;
        node = m->node[node].a;
    }
    *atom = node;
    *mu = prod;
    return true;
}

void axe__mapping_factors(const axe_mapping *m, int root, axe__factors *out)
{
    const axe_mapping_node *x = &m->node[root];
    axe__factor f = {AXE__FACTOR_OTHER, -1, root, 1, x->size};
    int atom;
    if (x->op == AXE_MAPPING_PAIR) {
        axe__mapping_factors(m, x->a, out);
        axe__mapping_factors(m, x->b, out);
        return;
    }
    if (x->op == AXE_MAPPING_SYMBOL) {
        f.kind = AXE__FACTOR_DIGIT;
        f.axis = (int)x->n;
    } else if (x->op == AXE_MAPPING_BROADCAST) {
        f.kind = AXE__FACTOR_BROADCAST;
    } else if (axe__mapping_chain(m, root, &atom, &f.mu) &&
               m->node[atom].op == AXE_MAPPING_SYMBOL) {
        f.kind = AXE__FACTOR_DIGIT;
        f.axis = (int)m->node[atom].n;
    } else {
        f.mu = 1;
    }
    out->f[out->n++] = f;
}

axe_status axe__mapping_push_digit(axe_mapping *m, int axis, int64_t mu,
                                   int64_t n, int *id)
{
    int64_t size = m->axes.size[axis];
    AXE_TRY(axe_mapping_push(m, AXE_MAPPING_SYMBOL, -1, -1, axis,
                             AXE_PADDING_TOP, id, NULL));
    if (mu > 1)
        AXE_TRY(axe_mapping_push(m, AXE_MAPPING_STRIDE, *id, -1, mu,
                                 AXE_PADDING_TOP, id, NULL));
    if (n != size / mu)
        AXE_TRY(axe_mapping_push(m, AXE_MAPPING_MODULO, *id, -1, n,
                                 AXE_PADDING_TOP, id, NULL));
    return AXE_OK;
}

axe_status axe__mapping_push_list(axe_mapping *m, const int *ids, int n,
                                  int *id)
{
    *id = ids[n - 1];
    for (int k = n - 2; k >= 0; k--)
        AXE_TRY(axe_mapping_push(m, AXE_MAPPING_PAIR, ids[k], *id, 0,
                                 AXE_PADDING_TOP, id, NULL));
    return AXE_OK;
}
