/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Equivalence of mapping expressions (spec §8): E1 == E2 iff |E1| = |E2|
 * and E1.map(i) = E2.map(i) at every position, zero coordinates dropped,
 * padding kinds exact. Decided exactly on the normal forms: identical
 * trees agree; when both convert to Axe layouts with holes over the axes
 * they name, every live position holds the one index x with the position
 * in L(x), so the maps agree iff the layouts induce the same set-valued
 * map (axe_layout_equivalent) and the padding kinds leave no doubt; pairs,
 * padding and resize of matching shape reduce to their operands; otherwise
 * every position is evaluated. An overshoot at a position is a value of
 * its own there: both must overshoot at the same positions.
 * Invariant: "*out" is written only when the question was decided.
 */
#include <string.h>

#include "mapping_internal.h"

static bool same_axes(const axe_mapping_axes *a, const axe_mapping_axes *b)
{
    if (a->n != b->n)
        return false;
    for (int k = 0; k < a->n; k++)
        if (strcmp(a->name[k], b->name[k]) != 0 || a->size[k] != b->size[k])
            return false;
    return true;
}

/* The axes of size above 1 that normalized "m" names, as a bit set, and
 * their names in table order. */
static uint32_t used_axes(const axe_mapping *m, const char **names, int *n)
{
    uint32_t set = 0;
    *n = 0;
    for (int k = 0; k < m->axes.n; k++)
        if (m->axes.size[k] > 1 &&
            axe_mapping_uses_axis(m, axe_mapping_root(m), k)) {
            set |= UINT32_C(1) << k;
            names[(*n)++] = m->axes.name[k];
        }
    return set;
}

/* Whether every padding node of "m" has kind "*kind" (-1: none seen yet,
 * set by the first). */
static bool one_padding_kind(const axe_mapping *m, int *kind)
{
    for (int k = 0; k < m->nnodes; k++) {
        if (m->node[k].op != AXE_MAPPING_PADDING)
            continue;
        if (*kind >= 0 && *kind != m->node[k].kind)
            return false;
        *kind = m->node[k].kind;
    }
    return true;
}

/* Decide on the layouts with holes of the normal forms "a" and "b" (same
 * size) over the axes each names (*done when decided). Both convert: every
 * live position p holds the one index x with p in L(x), the others are
 * padding. Different axis sets or layouts differ at some position; equal
 * layouts agree everywhere when one padding kind is used throughout. */
static axe_status by_layouts(const axe_mapping *a, const axe_mapping *b,
                             bool *out, bool *done, axe_diag *diag)
{
    const char *ta[AXE_MAPPING_MAX_AXES], *tb[AXE_MAPPING_MAX_AXES];
    int na, nb, kind = -1;
    uint32_t sa = used_axes(a, ta, &na), sb = used_axes(b, tb, &nb);
    axe_mapping_part pa = {a, "m", 1, true}, pb = {b, "m", 1, true};
    axe_layout la, lb;
    bool eq;
    *done = false;
    if (axe_mapping_to_layout(&pa, 1, ta, na, &la, NULL) != AXE_OK ||
        axe_mapping_to_layout(&pb, 1, tb, nb, &lb, NULL) != AXE_OK)
        return AXE_OK;
    if (sa != sb) {
        *out = false;
        *done = true;
        return AXE_OK;
    }
    AXE_TRY(axe_layout_equivalent(&la, &lb, &eq, diag));
    if (!eq || (one_padding_kind(a, &kind) && one_padding_kind(b, &kind))) {
        *out = eq;
        *done = true;
    }
    return AXE_OK;
}

static axe_status decide(const axe_mapping *a, const axe_mapping *b, bool *out,
                         bool *done, axe_diag *diag);

/* Whether some chain of "m" has a composite operand. */
static bool composite_chain(const axe_mapping *m)
{
    for (int k = 0; k < m->nnodes; k++) {
        const axe_mapping_node *x = &m->node[k];
        uint8_t op = m->node[x->a >= 0 ? x->a : k].op;
        if ((x->op == AXE_MAPPING_STRIDE || x->op == AXE_MAPPING_MODULO) &&
            op != AXE_MAPPING_SYMBOL && op != AXE_MAPPING_STRIDE &&
            op != AXE_MAPPING_MODULO)
            return true;
    }
    return false;
}

/* Decide the operands "x" of "a" and "y" of "b" on their own. */
static axe_status operands(const axe_mapping *a, int x, const axe_mapping *b,
                           int y, bool *out, bool *done, axe_diag *diag)
{
    axe_mapping sa, sb;
    int id;
    axe_mapping_init(&sa, &a->axes);
    axe_mapping_init(&sb, &b->axes);
    AXE_TRY(axe_mapping_copy_subtree(&sa, a, x, &id));
    AXE_TRY(axe_mapping_copy_subtree(&sb, b, y, &id));
    return decide(&sa, &sb, out, done, diag);
}

/* Pairs `P, Q` and `P', Q'` with |Q| = |Q'| and no composite chain: the
 * cell at u |Q| + v combines P(u) and Q(v), and P(0), Q(0) are the zero
 * index, so they agree iff P == P' and Q == Q'. */
static axe_status by_pairs(const axe_mapping *a, const axe_mapping *b,
                           bool *out, bool *done, axe_diag *diag)
{
    const axe_mapping_node *x = &a->node[axe_mapping_root(a)];
    const axe_mapping_node *y = &b->node[axe_mapping_root(b)];
    bool eq = false;
    *done = false;
    if (x->op != AXE_MAPPING_PAIR || y->op != AXE_MAPPING_PAIR ||
        a->node[x->b].size != b->node[y->b].size || composite_chain(a) ||
        composite_chain(b))
        return AXE_OK;
    AXE_TRY(operands(a, x->a, b, y->a, &eq, done, diag));
    if (*done && eq)
        AXE_TRY(operands(a, x->b, b, y->b, &eq, done, diag));
    if (*done)
        *out = eq;
    return AXE_OK;
}

/* Both `L # n` or both `L = n` over operands of one size: padding of one
 * kind agrees iff the operands do, different kinds differ at |L|; resized
 * operands that agree agree on their first n cells. */
static axe_status by_wrappers(const axe_mapping *a, const axe_mapping *b,
                              bool *out, bool *done, axe_diag *diag)
{
    const axe_mapping_node *x = &a->node[axe_mapping_root(a)];
    const axe_mapping_node *y = &b->node[axe_mapping_root(b)];
    bool eq = false;
    *done = false;
    if (x->op != y->op || a->node[x->a].size != b->node[y->a].size ||
        (x->op != AXE_MAPPING_PADDING && x->op != AXE_MAPPING_RESIZE))
        return AXE_OK;
    if (x->op == AXE_MAPPING_PADDING && x->kind != y->kind) {
        *out = false;
        *done = true;
        return AXE_OK;
    }
    AXE_TRY(operands(a, x->a, b, y->a, &eq, done, diag));
    if (*done && (eq || x->op == AXE_MAPPING_PADDING))
        *out = eq;
    else
        *done = false;
    return AXE_OK;
}

/* Decide "a" == "b" (normal forms of one size) without evaluating: the
 * same tree, the layouts, or matching pairs, padding or resize around
 * operands decided so (*done when decided). */
static axe_status decide(const axe_mapping *a, const axe_mapping *b, bool *out,
                         bool *done, axe_diag *diag)
{
    if (axe_mapping_same_tree(a, axe_mapping_root(a), b, axe_mapping_root(b))) {
        *out = *done = true;
        return AXE_OK;
    }
    AXE_TRY(by_layouts(a, b, out, done, diag));
    if (!*done)
        AXE_TRY(by_pairs(a, b, out, done, diag));
    if (!*done)
        AXE_TRY(by_wrappers(a, b, out, done, diag));
    return AXE_OK;
}

/* The cell at "p", or *bad = true on an overshoot. */
static axe_status cell_at(const axe_mapping *m, int64_t p, axe_mapping_cell *c,
                          bool *bad, axe_diag *diag)
{
    axe_status st = axe_mapping_map(m, p, c, diag);
    *bad = st == AXE_ERR_DOMAIN;
    return *bad ? AXE_OK : st;
}

static axe_status by_evaluation(const axe_mapping *a, const axe_mapping *b,
                                bool *out, axe_diag *diag)
{
    int64_t size = axe_mapping_size(a);
    if (size > AXE_MAPPING_EVAL_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "size %lld is above the evaluation limit %lld and "
                         "an expression is not affine per axis",
                         (long long)size, (long long)AXE_MAPPING_EVAL_MAX);
    for (int64_t p = 0; p < size; p++) {
        axe_mapping_cell ca, cb;
        bool bad_a, bad_b;
        AXE_TRY(cell_at(a, p, &ca, &bad_a, diag));
        AXE_TRY(cell_at(b, p, &cb, &bad_b, diag));
        if (bad_a != bad_b || (!bad_a && !axe_mapping_cell_equal(&ca, &cb))) {
            *out = false;
            return AXE_OK;
        }
    }
    *out = true;
    return AXE_OK;
}

axe_status axe_mapping_equivalent(const axe_mapping *a, const axe_mapping *b,
                                  bool *out, axe_diag *diag)
{
    axe_mapping na, nb;
    bool done = false;
    if (a == NULL || b == NULL || out == NULL || a->nnodes == 0 ||
        b->nnodes == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty expression");
    if (!same_axes(&a->axes, &b->axes))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the expressions are over different axis tables");
    if (axe_mapping_size(a) != axe_mapping_size(b)) {
        *out = false;
        return AXE_OK;
    }
    if (axe_mapping_normalize(a, &na, NULL) == AXE_OK &&
        axe_mapping_normalize(b, &nb, NULL) == AXE_OK) {
        AXE_TRY(decide(&na, &nb, out, &done, diag));
        if (done)
            return AXE_OK;
    }
    return by_evaluation(a, b, out, diag);
}
