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
#include <string.h>

#include "render_internal.h"

#define POINTS_MAX 64

/* rows x cols of the logical grid; the shape's size must be the layout's. */
axe_status axe__render_logical_grid(const axe_render_options *o,
                                    const axe_layout *l, int64_t *rows,
                                    int64_t *cols, axe_diag *diag)
{
    int64_t size, total = 1;
    int n = o->ndims;
    AXE_TRY(axe_layout_size(l, NULL, &size));
    if (n == 0) {
        *rows = 1;
        *cols = size;
        return AXE_OK;
    }
    for (int d = 0; d < n; d++) {
        if (o->shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "shape dim %d is %lld; dims must be >= 1", d,
                             (long long)o->shape[d]);
        if (axe__mul(total, o->shape[d], &total) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the shape's size overflows");
    }
    if (total != size)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the shape has %lld elements but the layout has "
                         "%lld; pass a shape of the layout's size",
                         (long long)total, (long long)size);
    *rows = n == 1 ? 1 : (o->colex ? o->shape[0] : total / o->shape[n - 1]);
    *cols = total / *rows;
    return AXE_OK;
}

/* The set L of the element of cell "k" of the rows x cols grid. */
axe_status axe__render_apply_cell(const axe_render_options *o,
                                  const axe_layout *l, int64_t rows,
                                  int64_t cols, int64_t k, axe_point *pts,
                                  int cap, int *npts, axe_diag *diag)
{
    int64_t crd[AXE_LAYOUT_MAX_DIMS], x = k;
    if (o->ndims == 0 || (o->colex && o->ndims > 1)) {
        x = o->ndims == 0 ? k : k / cols + (k % cols) * rows;
        return axe_layout_apply_set(l, &x, NULL, 1, pts, cap, npts, diag);
    }
    for (int d = o->ndims - 1; d >= 0; d--) {
        crd[d] = x % o->shape[d];
        x /= o->shape[d];
    }
    return axe_layout_apply_set(l, crd, o->shape, o->ndims, pts, cap, npts,
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
static axe_status collect_axes(axe__render_model *m,
                               const axe_render_options *o, const axe_layout *l,
                               axe_point *pts, axe_diag *diag)
{
    int n = 0;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        AXE_TRY(axe__render_apply_cell(o, l, m->rows, m->cols, k, pts,
                                       POINTS_MAX, &n, diag));
        for (int p = 0; p < n; p++)
            for (int i = 0; i < pts[p].n; i++)
                AXE_TRY(axe__render_axis_add(&m->ax, pts[p].axis[i], diag));
    }
    axe__render_sort_axes(&m->ax);
    axe__render_abbreviate(&m->ax, true);
    return AXE_OK;
}

/* The Figure 2 grid: cell k lists L of its element over the sorted axes. */
axe_status axe__render_view_grid(axe__render_model *m,
                                 const axe_render_options *o,
                                 const axe_layout *l, axe_diag *diag)
{
    axe_point pts[POINTS_MAX];
    int64_t rows, cols, v[AXE_RENDER_MAX_AXES];
    int n = 0;
    AXE_TRY(axe__render_logical_grid(o, l, &rows, &cols, diag));
    AXE_TRY(axe__render_model_grid(m, rows, cols, "the grid", diag));
    AXE_TRY(collect_axes(m, o, l, pts, diag));
    if (m->ax.n == 0)
        AXE_TRY(axe__render_axis_add(&m->ax, "m", diag));
    for (int64_t k = 0; k < rows * cols; k++) {
        AXE_TRY(axe__render_apply_cell(o, l, rows, cols, k, pts, POINTS_MAX, &n,
                                       diag));
        if (m->nent + n > AXE_RENDER_MAX_POINTS)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "the picture would list more than %d points "
                             "(replicas count); slice the layout first",
                             AXE_RENDER_MAX_POINTS);
        axe__render_model_cell(m, k);
        for (int p = 0; p < n; p++) {
            for (int i = 0; i < m->ax.n; i++)
                v[i] = point_on(&pts[p], m->ax.name[i]);
            AXE_TRY(axe__render_model_push(m, v));
        }
    }
    axe__render_model_done(m);
    m->bands = true;
    return axe__render_recolor(
        m, o->color_by != NULL ? o->color_by : m->ax.name[0], diag);
}
