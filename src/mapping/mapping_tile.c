/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tiling views (spec §9): `view.tile::<I, LEN, E2>(start)` over a tensor
 * with mapping E. The view's cell p holds E2.map(p) + I.map(start) where
 * E2 is live, and E2's padding (the holes) elsewhere. Our checkable reading
 * of the closed validity check: |E2| = |E|; at each position p where E is
 * live, E2.map(p) = E.map(p) when the I-digit of E.map(p) is below LEN and
 * a hole of the mode's kind (top for read views, bottom for mutable ones)
 * otherwise; where E is padding, E2 has the same padding; and start + LEN
 * <= |I| with I.map(start) live. The I-digit of an index is the digit
 * (X div mu) mod n that I reads (I is one axis under `/`, `%`, `=`, `#`).
 * Invariant: a view cell is returned only for a view that passed the check.
 */
#include "mapping_internal.h"

/* The digit of index "c" that "index" reads. */
static axe_status index_digit(const axe_mapping *index,
                              const axe_mapping_cell *c, int64_t *out,
                              axe_diag *diag)
{
    int node = axe_mapping_root(index), atom;
    int64_t mu = 1, n;
    while (index->node[node].op == AXE_MAPPING_RESIZE ||
           index->node[node].op == AXE_MAPPING_PADDING)
        node = index->node[node].a;
    n = index->node[node].size;
    if (!axe__mapping_chain(index, node, &atom, &mu))
        atom = node;
    if (index->node[atom].op != AXE_MAPPING_SYMBOL)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the tile index must be one axis under / %% = #");
    *out = c->coord[index->node[atom].n] / mu % n;
    return AXE_OK;
}

static axe_status mismatch(int64_t p, const char *why, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                     "view does not match the source split at position "
                     "%lld: %s",
                     (long long)p, why);
}

/* The view agrees with the source at position "p". */
static axe_status check_position(const axe_mapping_tile *t, int64_t p,
                                 axe_diag *diag)
{
    axe_mapping_cell s, v;
    int64_t d;
    axe_padding_kind hole = t->write ? AXE_PADDING_BOTTOM : AXE_PADDING_TOP;
    AXE_TRY(axe_mapping_map(t->source, p, &s, diag));
    AXE_TRY(axe_mapping_map(t->view, p, &v, diag));
    if (s.kind != AXE_CELL_INDEX)
        return axe_mapping_cell_equal(&s, &v)
                   ? AXE_OK
                   : mismatch(p, "the source's padding must stay", diag);
    AXE_TRY(index_digit(t->index, &s, &d, diag));
    if (d < t->len)
        return axe_mapping_cell_equal(&s, &v)
                   ? AXE_OK
                   : mismatch(p,
                              "inside the tile the view must hold the "
                              "source's index",
                              diag);
    if (v.kind == AXE_CELL_PADDING && v.padding == hole)
        return AXE_OK;
    return mismatch(p,
                    t->write ? "outside the tile a mutable view needs a "
                               "bottom hole (#{!})"
                             : "outside the tile a read view needs a top "
                               "hole (#)",
                    diag);
}

axe_status axe_mapping_tile_check(const axe_mapping_tile *t,
                                  axe_mapping_cell *offset, axe_diag *diag)
{
    int64_t size = axe_mapping_size(t->source), isize;
    axe_mapping_cell off;
    if (t->source->nnodes == 0 || t->index->nnodes == 0 ||
        t->view->nnodes == 0 || t->len < 1 || t->start < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "empty expression, len below 1 or negative start");
    isize = axe_mapping_size(t->index);
    if (t->start > isize - t->len)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "start %lld + len %lld exceeds the index size %lld",
                         (long long)t->start, (long long)t->len,
                         (long long)isize);
    AXE_TRY(axe_mapping_map(t->index, t->start, &off, diag));
    if (off.kind != AXE_CELL_INDEX)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "the index holds no tensor index at start %lld",
                         (long long)t->start);
    if (axe_mapping_size(t->view) != size)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "view size %lld differs from source size %lld",
                         (long long)axe_mapping_size(t->view), (long long)size);
    if (size > AXE_MAPPING_EVAL_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "size %lld is above the evaluation limit",
                         (long long)size);
    for (int64_t p = 0; p < size; p++)
        AXE_TRY(check_position(t, p, diag));
    *offset = off;
    return AXE_OK;
}

axe_status axe_mapping_tile_map(const axe_mapping_tile *t, int64_t p,
                                axe_mapping_cell *out, axe_diag *diag)
{
    axe_mapping_cell off, v;
    AXE_TRY(axe_mapping_tile_check(t, &off, diag));
    AXE_TRY(axe_mapping_map(t->view, p, &v, diag));
    if (v.kind == AXE_CELL_INDEX &&
        axe_mapping_cell_combine(&v, &off, &v) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1, "coordinate overflows");
    *out = v;
    return AXE_OK;
}
