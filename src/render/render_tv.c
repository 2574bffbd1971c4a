/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The thread-value view (CuTe's print_latex_tv; the Ampere tensor-core
 * figure of the CuTe paper): a TV layout maps (t, v), t < size(mode 0),
 * v < size / size(mode 0), to an index of the M x N tile, read
 * colexicographically (m = idx mod M, n = idx div M). Cell (m, n) lists
 * every T<t> V<v> that lands on it, in the order of t + v*T, and is
 * colored by its first thread. Invariant: each (t, v) is evaluated once
 * with axe_cute_eval and appears in exactly one cell.
 */
#include <string.h>

#include "render_internal.h"

/* T and V of "tv" (V folds every mode after the first). */
static axe_status tv_extents(const axe_cute_layout *tv, int64_t *t, int64_t *v,
                             axe_diag *diag)
{
    axe_cute_layout mode;
    int64_t size;
    if (axe_cute_has_basis(tv))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the TV view needs integer strides (a TV layout "
                         "maps (thread, value) to an index of the tile)");
    if (axe_cute_rank(tv) < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the TV layout has no modes; it needs a thread mode "
                         "(mode 0) and value modes, e.g. (32,4):(4,1)");
    if (axe_cute_size(tv, &size) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the size of the TV layout overflows int64 "
                         "(largest %lld)",
                         (long long)INT64_MAX);
    AXE_TRY(axe_cute_get(tv, 0, &mode));
    AXE_TRY(axe_cute_size(&mode, t));
    *v = size / *t;
    if (size > 4 * (int64_t)AXE_RENDER_MAX_CELLS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the TV layout has %lld (thread, value) pairs, more "
                         "than the %d a picture shows; slice it first",
                         (long long)size, 4 * AXE_RENDER_MAX_CELLS);
    return AXE_OK;
}

/* The cell of every pair into "cell" (an index < M*N), or DOMAIN. */
static axe_status cells_of_pairs(const axe_cute_layout *tv, int64_t t,
                                 int64_t v, int64_t mm, int64_t nn,
                                 int64_t *cell, axe_diag *diag)
{
    for (int64_t x = 0; x < t * v; x++) {
        int64_t idx;
        axe_status st = axe_cute_eval(tv, x, &idx);
        if (st != AXE_OK)
            return axe__fail(diag, st, -1,
                             "the TV layout's index of (T%lld, V%lld): %s",
                             (long long)(x % t), (long long)(x / t),
                             st == AXE_ERR_OVERFLOW ? "overflows int64"
                                                    : axe_status_message(st));
        if (idx < 0 || idx >= mm * nn)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "the TV layout maps (T%lld, V%lld) to index "
                             "%lld, outside the %lld x %lld tile",
                             (long long)(x % t), (long long)(x / t),
                             (long long)idx, (long long)mm, (long long)nn);
        cell[x] = (idx % mm) * nn + idx / mm;
    }
    return AXE_OK;
}

/* Fill the model cell by cell: a stable counting sort of the pairs by
 * cell ("ord" has t*v slots; m->first counts, then is rewritten). */
static axe_status fill(axe__render_model *m, const int64_t *cell, int64_t *ord,
                       int64_t n, int64_t t)
{
    int64_t cells = m->rows * m->cols;
    for (int64_t x = 0; x < n; x++)
        m->first[cell[x] + 1]++;
    for (int64_t k = 0; k < cells; k++)
        m->first[k + 1] += m->first[k];
    for (int64_t x = 0; x < n; x++)
        ord[m->first[cell[x]]++] = x;
    for (int64_t k = 0, e = 0; k < cells; k++) {
        int64_t end = m->first[k];
        axe__render_model_cell(m, k);
        for (; e < end; e++) {
            int64_t pair[2] = {ord[e] % t, ord[e] / t};
            AXE_TRY(axe__render_model_push(m, pair));
            if (m->key[k] == AXE__RENDER_NONE)
                m->key[k] = pair[0];
        }
    }
    axe__render_model_done(m);
    return AXE_OK;
}

/* The TV view of "tv" over the tile o->shape (file comment). */
axe_status axe__render_view_tv(axe__render_model *m,
                               const axe_render_options *o,
                               const axe_cute_layout *tv, axe_diag *diag)
{
    int64_t t, v, mm, nn, *cell, *ord;
    size_t size;
    axe_status st;
    if (o->ndims < 1 || o->ndims > 2)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the TV view needs the tile shape (M,N), e.g. "
                         "--shape (16,8)");
    mm = o->shape[0];
    nn = o->ndims == 2 ? o->shape[1] : 1;
    AXE_TRY(tv_extents(tv, &t, &v, diag));
    AXE_TRY(axe__render_model_grid(
        m, mm, nn, "the tile", "slice the TV layout and its tile first", diag));
    m->logical = m->lcolex = true;
    m->lnd = 2;
    m->lshape[0] = mm;
    m->lshape[1] = nn;
    m->ax.n = 2;
    memcpy(m->ax.name[0], "T", 2);
    memcpy(m->ax.name[1], "V", 2);
    memcpy(m->ax.abbr[0], "T", 2);
    memcpy(m->ax.abbr[1], "V", 2);
    memcpy(m->color_axis, "T", 2);
    size = (size_t)(t * v) * sizeof(int64_t);
    cell = axe__render_alloc(m->alloc, m->ud, NULL, 0, size);
    ord = axe__render_alloc(m->alloc, m->ud, NULL, 0, size);
    st = cell == NULL || ord == NULL ? AXE_ERR_NO_MEMORY : AXE_OK;
    if (st == AXE_OK)
        st = cells_of_pairs(tv, t, v, mm, nn, cell, diag);
    if (st == AXE_OK)
        st = fill(m, cell, ord, t * v, t);
    if (cell != NULL)
        (void)axe__render_alloc(m->alloc, m->ud, cell, size, 0);
    if (ord != NULL)
        (void)axe__render_alloc(m->alloc, m->ud, ord, size, 0);
    return st;
}
