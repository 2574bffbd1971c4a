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
 * axe_mapping_tile_view builds E2 from E and I by splitting the digit of E
 * that holds I's digit (the same E2 at every start; _at checks the tile at
 * one start and gives its offset). The check runs once per view:
 * axe_mapping_tile_map_checked reads cells given a checked offset.
 * Invariant: a view cell (or a built view) is
 * returned only for a view that passed the check.
 */
#include "mapping_internal.h"

/* The digit X / mu % n that "index" reads (wrappers = and # peeled). */
static axe_status index_digit_of(const axe_mapping *index, int *axis,
                                 int64_t *mu, int64_t *n, axe_diag *diag)
{
    int node = axe_mapping_root(index), atom;
    while (index->node[node].op == AXE_MAPPING_RESIZE ||
           index->node[node].op == AXE_MAPPING_PADDING)
        node = index->node[node].a;
    *n = index->node[node].size;
    *mu = 1;
    if (!axe__mapping_chain(index, node, &atom, mu))
        atom = node;
    if (index->node[atom].op != AXE_MAPPING_SYMBOL)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the tile index must be one axis under / %% = #");
    *axis = (int)index->node[atom].n;
    return AXE_OK;
}

/* The digit of index "c" that "index" reads. */
static axe_status index_digit(const axe_mapping *index,
                              const axe_mapping_cell *c, int64_t *out,
                              axe_diag *diag)
{
    int axis;
    int64_t mu, n;
    AXE_TRY(index_digit_of(index, &axis, &mu, &n, diag));
    *out = c->coord[axis] / mu % n;
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

axe_status axe_mapping_tile_map_checked(const axe_mapping_tile *t,
                                        const axe_mapping_cell *offset,
                                        int64_t p, axe_mapping_cell *out,
                                        axe_diag *diag)
{
    axe_mapping_cell v;
    if (t == NULL || t->view == NULL || t->view->nnodes == 0 ||
        offset == NULL || out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "empty view or offset");
    AXE_TRY(axe_mapping_map(t->view, p, &v, diag));
    if (v.kind == AXE_CELL_INDEX &&
        axe_mapping_cell_combine(&v, offset, &v) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1, "coordinate overflows");
    *out = v;
    return AXE_OK;
}

axe_status axe_mapping_tile_map(const axe_mapping_tile *t, int64_t p,
                                axe_mapping_cell *out, axe_diag *diag)
{
    axe_mapping_cell off;
    AXE_TRY(axe_mapping_tile_check(t, &off, diag));
    return axe_mapping_tile_map_checked(t, &off, p, out, diag);
}

/* ---- building the view ------------------------------------------------ */

typedef struct split {
    int axis;
    int64_t mu, n, len;
    axe_padding_kind hole;
} split;

/* Push factor "f" of the source, split at the index digit when it holds
 * it, into ids[*k ..]. */
static axe_status push_factor(axe_mapping *v, const axe_mapping *src,
                              const axe__factor *f, const split *sp, int *ids,
                              int *k, bool *used)
{
    int64_t top = f->mu * f->n, mid = sp->mu * sp->n;
    if (f->kind != AXE__FACTOR_DIGIT || f->axis != sp->axis || *used ||
        sp->mu % f->mu != 0 || mid > top || top % mid != 0) {
        if (f->kind == AXE__FACTOR_DIGIT)
            return axe__mapping_push_digit(v, f->axis, f->mu, f->n,
                                           &ids[(*k)++]);
        return axe_mapping_copy_subtree(v, src, f->node, &ids[(*k)++]);
    }
    *used = true;
    if (top > mid)
        AXE_TRY(
            axe__mapping_push_digit(v, f->axis, mid, top / mid, &ids[(*k)++]));
    AXE_TRY(axe__mapping_push_digit(v, f->axis, sp->mu, sp->n, &ids[*k]));
    AXE_TRY(axe_mapping_push(v, AXE_MAPPING_RESIZE, ids[*k], -1, sp->len,
                             AXE_PADDING_TOP, &ids[*k], NULL));
    AXE_TRY(axe_mapping_push(v, AXE_MAPPING_PADDING, ids[*k], -1, sp->n,
                             sp->hole, &ids[*k], NULL));
    (*k)++;
    if (sp->mu > f->mu)
        AXE_TRY(axe__mapping_push_digit(v, f->axis, f->mu, sp->mu / f->mu,
                                        &ids[(*k)++]));
    return AXE_OK;
}

/* The view expression E2 of the tiles of "len" cells along "index",
 * not yet checked. */
static axe_status build_view(const axe_mapping *source,
                             const axe_mapping *index, int64_t len, bool write,
                             axe_mapping *out, axe_diag *diag)
{
    static const axe__factors empty;
    axe__factors fs = empty;
    axe_mapping norm;
    split sp = {0, 0, 0, len, write ? AXE_PADDING_BOTTOM : AXE_PADDING_TOP};
    int ids[AXE__FACTORS_MAX + 2], k = 0, id;
    bool used = false;
    if (source == NULL || index == NULL || out == NULL || len < 1 ||
        index->nnodes == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "len below 1");
    AXE_TRY(index_digit_of(index, &sp.axis, &sp.mu, &sp.n, diag));
    if (len > sp.n)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "len %lld exceeds the index size %lld", (long long)len,
                         (long long)sp.n);
    AXE_TRY(axe_mapping_normalize(source, &norm, diag));
    axe__mapping_factors(&norm, axe_mapping_root(&norm), &fs);
    axe_mapping_init(out, &norm.axes);
    for (int f = 0; f < fs.n; f++)
        if (push_factor(out, &norm, &fs.f[f], &sp, ids, &k, &used) != AXE_OK)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1, "the view is too big");
    if (!used)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "no digit of the source holds the tile index's digit");
    if (axe__mapping_push_list(out, ids, k, &id) != AXE_OK)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1, "the view is too big");
    return AXE_OK;
}

axe_status axe_mapping_tile_view_at(const axe_mapping *source,
                                    const axe_mapping *index, int64_t len,
                                    int64_t start, bool write, axe_mapping *out,
                                    axe_mapping_cell *offset, axe_diag *diag)
{
    axe_mapping v;
    axe_mapping_tile t = {source, index, len, &v, start, write};
    axe_mapping_cell off;
    AXE_TRY(build_view(source, index, len, write, &v, diag));
    AXE_TRY(axe_mapping_tile_check(&t, &off, diag));
    *out = v;
    if (offset != NULL)
        *offset = off;
    return AXE_OK;
}

axe_status axe_mapping_tile_view(const axe_mapping *source,
                                 const axe_mapping *index, int64_t len,
                                 bool write, axe_mapping *out, axe_diag *diag)
{
    return axe_mapping_tile_view_at(source, index, len, 0, write, out, NULL,
                                    diag);
}
