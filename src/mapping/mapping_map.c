/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The decoded map of spec §5.2 and its inverse. A walk visits the tree at
 * one position as the structural map does (pairs split the position, resize
 * keeps it, padding ends in a padding cell past the operand), except that a
 * chain of `/` and `%` over an operand X with stride product mu contributes
 * the position mu*i of X instead of evaluating X. Symbol positions add into
 * the coordinates; composite operands (compared as trees) sum their
 * positions and are decoded at the sum after the walk. Every event carries
 * a sequence number in major-to-minor order, and the earliest non-live
 * event (a padding reached directly or a decoded composite) is the cell.
 * The inverse reads the positions off the Axe layout (with holes) of the
 * normal form when that converts (spec §10), and evaluates every position
 * otherwise (a position that overshoots holds no index). Invariant: positions
 * passed down are below the size of the node visited.
 */
#include <string.h>

#include "mapping_internal.h"

#define WALK_ATOMS (AXE_MAPPING_MAX_NODES / 2)

typedef struct walk_atom {
    int node;
    int seq;
    int64_t pos;
} walk_atom;

typedef struct walk {
    const axe_mapping *m;
    axe_mapping_cell acc;
    int natoms, seq;
    walk_atom atom[WALK_ATOMS];
    int bad_seq; /* sequence number of the first non-live event, or -1 */
    axe_mapping_cell bad;
    axe_diag *diag;
} walk;

static axe_status add_coord(walk *w, int axis, int64_t v)
{
    if (axe__add(w->acc.coord[axis], v, &w->acc.coord[axis]))
        return axe__fail(w->diag, AXE_ERR_OVERFLOW, -1,
                         "coordinate of %s overflows", w->m->axes.name[axis]);
    return AXE_OK;
}

/* A chain over "atom" at stride product "mu" reached position "i". */
static axe_status contribute(walk *w, int atom, int64_t mu, int64_t i)
{
    const axe_mapping *m = w->m;
    int64_t p;
    int k = 0;
    if (axe__mul(mu, i, &p))
        return axe__fail(w->diag, AXE_ERR_OVERFLOW, -1, "position overflows");
    if (m->node[atom].op == AXE_MAPPING_SYMBOL)
        return add_coord(w, (int)m->node[atom].n, p);
    while (k < w->natoms && !axe_mapping_same_tree(m, w->atom[k].node, m, atom))
        k++;
    if (k == w->natoms) {
        if (k == WALK_ATOMS)
            return axe__fail(w->diag, AXE_ERR_CAPACITY, -1,
                             "more than %d composite operands", WALK_ATOMS);
        w->atom[k] = (walk_atom){atom, w->seq++, 0};
        w->natoms++;
    }
    if (axe__add(w->atom[k].pos, p, &w->atom[k].pos))
        return axe__fail(w->diag, AXE_ERR_OVERFLOW, -1, "position overflows");
    return AXE_OK;
}

static void non_live(walk *w, const axe_mapping_cell *c)
{
    int seq = w->seq++;
    if (w->bad_seq < 0) {
        w->bad_seq = seq;
        w->bad = *c;
    }
}

static axe_status visit(walk *w, int node, int64_t i)
{
    const axe_mapping_node *x = &w->m->node[node];
    axe_mapping_cell pad;
    int atom;
    int64_t mu;
    switch ((axe_mapping_op)x->op) {
    case AXE_MAPPING_SYMBOL:
        return add_coord(w, (int)x->n, i);
    case AXE_MAPPING_BROADCAST:
        return AXE_OK;
    case AXE_MAPPING_PAIR: {
        int64_t r = w->m->node[x->b].size;
        AXE_TRY(visit(w, x->a, i / r));
        return visit(w, x->b, i % r);
    }
    case AXE_MAPPING_STRIDE:
    case AXE_MAPPING_MODULO:
        (void)axe__mapping_chain(w->m, node, &atom, &mu);
        return contribute(w, atom, mu, i);
    case AXE_MAPPING_RESIZE:
        return visit(w, x->a, i);
    case AXE_MAPPING_PADDING:
        if (i < w->m->node[x->a].size)
            return visit(w, x->a, i);
        memset(&pad, 0, sizeof pad);
        pad.kind = AXE_CELL_PADDING;
        pad.padding = (axe_padding_kind)x->kind;
        non_live(w, &pad);
        return AXE_OK;
    }
    return AXE_ERR_INVALID;
}

/* Decode the composite operands in order of first appearance; the first
 * non-live one earlier than any direct padding wins. */
static axe_status decode_atoms(walk *w)
{
    for (int k = 0; k < w->natoms; k++) {
        const walk_atom *a = &w->atom[k];
        axe_mapping_cell c;
        if (w->bad_seq >= 0 && w->bad_seq < a->seq)
            return AXE_OK;
        if (a->pos >= w->m->node[a->node].size)
            return axe__fail(w->diag, AXE_ERR_DOMAIN, -1,
                             "position %lld overshoots size %lld of a "
                             "composite operand",
                             (long long)a->pos,
                             (long long)w->m->node[a->node].size);
        AXE_TRY(axe_mapping_map_node(w->m, a->node, a->pos, &c, w->diag));
        if (c.kind != AXE_CELL_INDEX) {
            w->bad_seq = a->seq;
            w->bad = c;
            return AXE_OK;
        }
        if (axe_mapping_cell_combine(&w->acc, &c, &w->acc))
            return axe__fail(w->diag, AXE_ERR_OVERFLOW, -1,
                             "coordinate overflows");
    }
    return AXE_OK;
}

static axe_status check_overshoot(const walk *w)
{
    for (int k = 0; k < w->m->axes.n; k++)
        if (w->acc.coord[k] >= w->m->axes.size[k])
            return axe__fail(w->diag, AXE_ERR_DOMAIN, -1,
                             "coordinate %s = %lld overshoots size %lld",
                             w->m->axes.name[k], (long long)w->acc.coord[k],
                             (long long)w->m->axes.size[k]);
    return AXE_OK;
}

axe_status axe_mapping_map_node(const axe_mapping *m, int root, int64_t i,
                                axe_mapping_cell *out, axe_diag *diag)
{
    walk w;
    if (root < 0 || root >= m->nnodes)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty expression");
    if (i < 0 || i >= m->node[root].size) {
        memset(out, 0, sizeof *out);
        out->kind = AXE_CELL_OUT_OF_BOUNDS;
        return AXE_OK;
    }
    w.m = m;
    w.natoms = w.seq = 0;
    w.bad_seq = -1;
    w.diag = diag;
    axe_mapping_cell_zero(&w.acc);
    AXE_TRY(visit(&w, root, i));
    AXE_TRY(decode_atoms(&w));
    if (w.bad_seq >= 0) {
        *out = w.bad;
        return AXE_OK;
    }
    AXE_TRY(check_overshoot(&w));
    *out = w.acc;
    return AXE_OK;
}

axe_status axe_mapping_map(const axe_mapping *m, int64_t i,
                           axe_mapping_cell *out, axe_diag *diag)
{
    return axe_mapping_map_node(m, axe_mapping_root(m), i, out, diag);
}

/* Sort pos[0 .. n) ascending. */
static void sort_positions(int64_t *pos, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && pos[j - 1] > pos[j]; j--) {
            int64_t v = pos[j];
            pos[j] = pos[j - 1];
            pos[j - 1] = v;
        }
}

/* The positions of L(x): the base point plus every replica offset. */
static axe_status layout_positions(const axe_layout *l, int64_t x, int64_t *pos,
                                   int cap, int *count, axe_diag *diag)
{
    axe_point base;
    int64_t n = 1;
    AXE_TRY(axe_layout_apply_base(l, x, &base, diag));
    for (int r = 0; r < l->nreplica; r++)
        if (axe__mul(n, l->replica[r].extent, &n) || n > cap)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "more than %d positions hold the index", cap);
    for (int64_t k = 0; k < n; k++) {
        int64_t rest = k, p = base.n > 0 ? base.v[0] : 0;
        for (int r = l->nreplica - 1; r >= 0; r--) {
            p += rest % l->replica[r].extent * l->replica[r].stride;
            rest /= l->replica[r].extent;
        }
        pos[k] = p;
    }
    *count = (int)n;
    sort_positions(pos, (int)n);
    return AXE_OK;
}

/* The inverse through the Axe layout with holes of the normal form of "m"
 * when that converts (*done): padded positions are in no L(x), the others
 * hold the one index x with the position in L(x), the flattened index over
 * the axes the normal form names. */
static axe_status inverse_by_layout(const axe_mapping *m,
                                    const axe_mapping_cell *t, int64_t *pos,
                                    int cap, int *count, bool *done,
                                    axe_diag *diag)
{
    axe_mapping norm;
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_mapping_part part = {&norm, "m", 1, true};
    axe_layout l;
    int64_t x = 0;
    int nt = 0;
    *done = false;
    if (t->kind != AXE_CELL_INDEX ||
        axe_mapping_normalize(m, &norm, NULL) != AXE_OK)
        return AXE_OK;
    for (int k = 0; k < m->axes.n; k++)
        if (axe_mapping_uses_axis(&norm, axe_mapping_root(&norm), k))
            tensor[nt++] = m->axes.name[k];
    if (axe_mapping_to_layout(&part, 1, tensor, nt, &l, NULL) != AXE_OK)
        return AXE_OK;
    *done = true;
    *count = 0;
    for (int k = 0; k < m->axes.n; k++) {
        bool used = axe_mapping_uses_axis(&norm, axe_mapping_root(&norm), k);
        if (t->coord[k] < 0 || (used && t->coord[k] >= m->axes.size[k]) ||
            (!used && t->coord[k] != 0))
            return AXE_OK;
        if (used)
            x = x * m->axes.size[k] + t->coord[k];
    }
    return layout_positions(&l, x, pos, cap, count, diag);
}

axe_status axe_mapping_inverse(const axe_mapping *m, const axe_mapping_cell *t,
                               int64_t *pos, int cap, int *count,
                               axe_diag *diag)
{
    int64_t size = axe_mapping_size(m);
    int n = 0;
    bool done;
    if (m->nnodes == 0 || t == NULL || pos == NULL || count == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty expression");
    AXE_TRY(inverse_by_layout(m, t, pos, cap, count, &done, diag));
    if (done)
        return AXE_OK;
    if (size > AXE_MAPPING_EVAL_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "size %lld is above the evaluation limit %lld",
                         (long long)size, (long long)AXE_MAPPING_EVAL_MAX);
    for (int64_t p = 0; p < size; p++) {
        axe_mapping_cell c;
        axe_status st = axe_mapping_map(m, p, &c, NULL);
        if (st != AXE_OK && st != AXE_ERR_DOMAIN)
            return axe_mapping_map(m, p, &c, diag);
        if (st == AXE_ERR_DOMAIN || !axe_mapping_cell_equal(&c, t))
            continue;
        if (n == cap)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "more than %d positions hold the index", cap);
        pos[n++] = p;
    }
    *count = n;
    return AXE_OK;
}
