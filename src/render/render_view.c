/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The logical views: the grid of a layout (cell (i,j) lists the set L of
 * its logical element, every replica included: CuTe's print_layout, the
 * Axe paper's Figure 2) and a CuTe thread-value layout over its tile (cell
 * (m,n) lists every T<t> V<v> that lands on it: print_latex_tv). The
 * logical element of a cell is either the colexicographic index i + j*rows
 * (CuTe) or the coordinate of the shape (Axe). Invariant: every value a
 * view stores comes from axe_layout_apply_set / axe_cute_eval of that
 * cell's element; nothing is computed twice in different ways.
 */
#include <stdio.h>
#include <string.h>

#include "render_internal.h"

/* The size of "o"'s shape (the layout's size when it has none), checked
 * against the layout's. */
static axe_status shape_size(const axe_render_options *o, const axe_layout *l,
                             int64_t *total, axe_diag *diag)
{
    int64_t size;
    if (o->ndims < 0 || o->ndims > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the options name %d shape dims; 0 to %d", o->ndims,
                         AXE_LAYOUT_MAX_DIMS);
    if (axe_layout_size(l, NULL, &size) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the layout's size (the product of its shard "
                         "extents) overflows int64 (largest %lld)",
                         (long long)INT64_MAX);
    *total = 1;
    for (int d = 0; d < o->ndims; d++) {
        if (o->shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shape dim %d is %lld; dims must be >= 1", d,
                             (long long)o->shape[d]);
        if (axe__mul(*total, o->shape[d], total) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the size of the shape overflows int64 at dim "
                             "%d (largest %lld)",
                             d, (long long)INT64_MAX);
    }
    if (o->ndims == 0)
        *total = size;
    if (*total != size)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the shape has %lld elements but the layout has "
                         "%lld; pass a shape of the layout's size",
                         (long long)*total, (long long)size);
    return AXE_OK;
}

/* Coordinate "crd" of the "n" dims "shape" of linear index "x":
 * row-major, or colexicographic when "colex". */
static void unravel(int64_t x, const int64_t *shape, int n, bool colex,
                    int64_t *crd)
{
    for (int i = 0; i < n; i++) {
        int d = colex ? i : n - 1 - i;
        crd[d] = x % shape[d];
        x /= shape[d];
    }
}

/* Header axes "0", "1", ... for dims "lo" .. "hi" - 1 folded into one
 * header (labels are coordinate tuples); none for a single dim. The
 * caller keeps hi - lo <= AXE_RENDER_MAX_AXES. */
static void fold_axes(axe__render_axes *ax, int lo, int hi)
{
    ax->n = hi - lo > 1 ? hi - lo : 0;
    ax->tuple = ax->n > 0;
    for (int i = 0; i < ax->n; i++)
        snprintf(ax->name[i], AXE_AXIS_NAME_MAX, "%d", lo + i);
}

/* Header labels of folded dims: the coordinate of each row / column. */
static void fold_labels(axe__render_model *m)
{
    const int64_t *s = m->lshape;
    int n = m->lnd;
    for (int64_t r = 0; r < m->rows && m->rax.n > 0; r++)
        unravel(r, s, n - 1, false, m->rowlab + r * m->rax.n);
    for (int64_t c = 0; c < m->cols && m->cax.n > 0; c++)
        unravel(c, s + 1, n - 1, true, m->collab + c * m->cax.n);
}

/* The logical grid of "o" over "l" (render_internal.h). */
axe_status axe__render_logical_model(axe__render_model *m,
                                     const axe_render_options *o,
                                     const axe_layout *l, const char *what,
                                     axe_diag *diag)
{
    int64_t total, rows;
    int n = o->ndims;
    AXE_TRY(shape_size(o, l, &total, diag));
    if (n - 1 > AXE_RENDER_MAX_AXES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the shape has %d dims; a picture folds at most %d "
                         "of them into one header (%d dims in all): merge "
                         "some dims of --shape",
                         n, AXE_RENDER_MAX_AXES, AXE_RENDER_MAX_AXES + 1);
    rows = n <= 1 ? 1 : (o->colex ? o->shape[0] : total / o->shape[n - 1]);
    m->logical = true;
    m->lcolex = o->colex && n > 1;
    m->lnd = n;
    memcpy(m->lshape, o->shape, (size_t)n * sizeof(int64_t));
    if (n > 2 && !m->lcolex)
        fold_axes(&m->rax, 0, n - 1);
    else if (n > 2)
        fold_axes(&m->cax, 1, n);
    AXE_TRY(axe__render_model_grid(m, rows, total / rows, what,
                                   AXE__RENDER_HINT_SLICE, diag));
    fold_labels(m);
    return AXE_OK;
}

/* The linear index of cell "k": row-major, or colexicographic (CuTe). */
static int64_t cell_index(const axe__render_model *m, int64_t k)
{
    return m->lcolex ? k / m->cols + (k % m->cols) * m->rows : k;
}

/* The logical coordinate of cell "k" (render_internal.h). */
int axe__render_cell_coord(const axe__render_model *m, int64_t k, int64_t *crd)
{
    if (m->lnd <= 1) {
        crd[0] = k;
        return 1;
    }
    unravel(cell_index(m, k), m->lshape, m->lnd, m->lcolex, crd);
    return m->lnd;
}

/* The set L of the element of cell "k": at its linear index (CuTe, no
 * shape) or at its coordinate of the shape (Axe). */
axe_status axe__render_apply_cell(const axe__render_model *m,
                                  const axe_layout *l, int64_t k,
                                  axe_point *pts, int cap, int *npts,
                                  axe_diag *diag)
{
    int64_t crd[AXE_LAYOUT_MAX_DIMS], x = cell_index(m, k);
    if (m->lnd == 0 || m->lcolex)
        return axe_layout_apply_set(l, &x, NULL, 1, pts, cap, npts, diag);
    (void)axe__render_cell_coord(m, k, crd);
    return axe_layout_apply_set(l, crd, m->lshape, m->lnd, pts, cap, npts,
                                diag);
}

/* The value of "p" on "axis" (0 if absent). */
static int64_t point_on(const axe_point *p, const char *axis)
{
    for (int i = 0; i < p->n; i++)
        if (strncmp(p->axis[i], axis, AXE_AXIS_NAME_MAX) == 0)
            return p->v[i];
    return 0;
}

/* Every axis of every cell's points, sorted and abbreviated. */
static axe_status collect_axes(axe__render_model *m, const axe_layout *l,
                               axe_point *pts, int cap, axe_diag *diag)
{
    int n = 0;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        AXE_TRY(axe__render_apply_cell(m, l, k, pts, cap, &n, diag));
        for (int p = 0; p < n; p++)
            for (int i = 0; i < pts[p].n; i++)
                AXE_TRY(axe__render_axis_add(&m->ax, pts[p].axis[i], diag));
    }
    axe__render_sort_axes(&m->ax);
    axe__render_abbreviate(&m->ax, true);
    return AXE_OK;
}

/* The points of each cell (the replicas of "l"), refused when the picture
 * would list more than AXE_RENDER_MAX_POINTS points in all. */
static axe_status points_per_cell(const axe__render_model *m,
                                  const axe_layout *l, int *per, axe_diag *diag)
{
    int64_t r = 1, total = 0;
    bool over = false;
    for (int i = 0; i < l->nreplica; i++)
        over = over || axe__mul(r, l->replica[i].extent, &r) != AXE_OK;
    over = over || axe__mul(r, m->rows * m->cols, &total) != AXE_OK ||
           total > AXE_RENDER_MAX_POINTS;
    if (over)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the picture would list %lld cells x %lld points "
                         "(replicas count), more than the %d points a "
                         "picture shows; " AXE__RENDER_HINT_SLICE,
                         (long long)(m->rows * m->cols), (long long)r,
                         AXE_RENDER_MAX_POINTS);
    *per = (int)r;
    return AXE_OK;
}

/* Fill cell after cell with the points of its element over m->ax. */
static axe_status fill_grid(axe__render_model *m, const axe_layout *l,
                            axe_point *pts, int cap, axe_diag *diag)
{
    int64_t v[AXE_RENDER_MAX_AXES];
    int n = 0;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        AXE_TRY(axe__render_apply_cell(m, l, k, pts, cap, &n, diag));
        axe__render_model_cell(m, k);
        for (int p = 0; p < n; p++) {
            for (int i = 0; i < m->ax.n; i++)
                v[i] = point_on(&pts[p], m->ax.name[i]);
            AXE_TRY(axe__render_model_push(m, v));
        }
    }
    axe__render_model_done(m);
    return AXE_OK;
}

/* The Figure 2 grid: cell k lists L of its element over the sorted axes. */
axe_status axe__render_view_grid(axe__render_model *m,
                                 const axe_render_options *o,
                                 const axe_layout *l, axe_diag *diag)
{
    axe_point *pts;
    axe_status st;
    int cap = 0;
    AXE_TRY(axe__render_logical_model(m, o, l, "the grid", diag));
    AXE_TRY(points_per_cell(m, l, &cap, diag));
    pts =
        axe__render_alloc(m->alloc, m->ud, NULL, 0, (size_t)cap * sizeof *pts);
    if (pts == NULL)
        return AXE_ERR_NO_MEMORY;
    st = collect_axes(m, l, pts, cap, diag);
    if (st == AXE_OK && m->ax.n == 0)
        st = axe__render_axis_add(&m->ax, "m", diag);
    if (st == AXE_OK)
        st = fill_grid(m, l, pts, cap, diag);
    (void)axe__render_alloc(m->alloc, m->ud, pts, (size_t)cap * sizeof *pts, 0);
    AXE_TRY(st);
    m->bands = true;
    return axe__render_recolor(
        m, o->color_by != NULL ? o->color_by : m->ax.name[0], diag);
}
