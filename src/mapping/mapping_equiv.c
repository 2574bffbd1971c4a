/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Equivalence of mapping expressions (spec §8): E1 == E2 iff |E1| = |E2|
 * and E1.map(i) = E2.map(i) at every position, zero coordinates dropped,
 * padding kinds exact. Decided exactly: when both expressions convert to
 * Axe layouts over the axes they use, every position is live and holds the
 * one index x with the position in L(x), so the maps agree iff the layouts
 * induce the same set-valued map (axe_layout_equivalent, normal forms);
 * otherwise by evaluating every position. An overshoot at a position is a
 * value of its own there: both must overshoot at the same positions.
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

/* The layouts of "a" and "b" over the axes either uses; false when one
 * does not convert. */
static bool both_layouts(const axe_mapping *a, const axe_mapping *b,
                         axe_layout *la, axe_layout *lb)
{
    const char *tensor[AXE_MAPPING_MAX_AXES];
    int nt = 0;
    for (int k = 0; k < a->axes.n; k++)
        if (axe_mapping_uses_axis(a, axe_mapping_root(a), k) ||
            axe_mapping_uses_axis(b, axe_mapping_root(b), k))
            tensor[nt++] = a->axes.name[k];
    axe_mapping_part pa = {a, "m", 1, false}, pb = {b, "m", 1, false};
    return axe_mapping_to_layout(&pa, 1, tensor, nt, la, NULL) == AXE_OK &&
           axe_mapping_to_layout(&pb, 1, tensor, nt, lb, NULL) == AXE_OK;
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
    axe_layout la, lb;
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
    if (both_layouts(a, b, &la, &lb))
        return axe_layout_equivalent(&la, &lb, out, diag);
    return by_evaluation(a, b, out, diag);
}
