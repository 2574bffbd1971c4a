/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The physical view: the layout drawn from the hardware side. Every point
 * of every logical element (replicas included) is a hit; a hit's row is its
 * tuple over the thread and device axes (which thread, warp or GPU holds
 * it), its column the tuple over the memory axes (where in that holder's
 * storage). Without thread/device axes the memory's own row axes make the
 * rows (Trainium SBUF partitions P, TMEM lanes Lane/TLane: P x F and Lane
 * x Col as the hardware and the Axe paper draw them), else the last axis
 * makes the columns; a single axis wraps every 32 values (rows: base,
 * columns: offset). Each
 * cell lists the logical coordinates stored there, and remembers the
 * physical point it stands for (m->where over m->wax, the grid's axes), so
 * the HTML page can recolor it by any axis. Invariant: the hits are
 * exactly the entries of the grid view, so the two views agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

#define WRAP 32

typedef struct tup {
    int64_t v[AXE_RENDER_MAX_AXES];
} tup;

typedef struct split {
    int nrow, ncol, row[AXE_RENDER_MAX_AXES], col[AXE_RENDER_MAX_AXES];
    bool wrap;
} split;

/* Lexicographic order of tuples (qsort, bsearch). */
static int tup_cmp(const void *a, const void *b)
{
    const tup *x = a, *y = b;
    for (int i = 0; i < AXE_RENDER_MAX_AXES; i++)
        if (x->v[i] != y->v[i])
            return x->v[i] < y->v[i] ? -1 : 1;
    return 0;
}

/* Whether memory axis "name" indexes the rows of its memory (SBUF
 * partitions, TMEM lanes). */
static bool row_axis(const char *name)
{
    return strcmp(name, "P") == 0 || strcmp(name, "Lane") == 0 ||
           strcmp(name, "TLane") == 0;
}

/* Memory axes only: the row axes (P, Lane, TLane) make the rows when
 * there are others, else all axes but the last. */
static void split_memory(const axe__render_axes *ax, split *s)
{
    s->nrow = s->ncol = 0;
    for (int i = 0; i < ax->n; i++) {
        if (row_axis(ax->name[i]))
            s->row[s->nrow++] = i;
        else
            s->col[s->ncol++] = i;
    }
    if (s->nrow > 0 && s->ncol > 0)
        return;
    s->nrow = s->ncol = 0;
    for (int i = 0; i + 1 < ax->n; i++)
        s->row[s->nrow++] = i;
    s->col[s->ncol++] = ax->n - 1;
}

/* Rows: thread and device axes; columns: memory axes. */
static void split_axes(const axe__render_axes *ax, split *s)
{
    axe_axis_info info;
    s->nrow = s->ncol = 0;
    s->wrap = ax->n == 1;
    for (int i = 0; i < ax->n; i++) {
        bool mem = axe_axis_lookup(ax->name[i], &info, NULL) != AXE_OK ||
                   info.kind == AXE_AXIS_MEMORY;
        if (mem)
            s->col[s->ncol++] = i;
        else
            s->row[s->nrow++] = i;
    }
    if (!s->wrap && (s->nrow == 0 || s->ncol == 0))
        split_memory(ax, s);
}

/* The row and column tuple of entry "v". */
static void key_of(const split *s, const int64_t *v, tup *row, tup *col)
{
    memset(row, 0, sizeof *row);
    memset(col, 0, sizeof *col);
    if (s->wrap) {
        row->v[0] = axe__floordiv(v[0], WRAP) * WRAP;
        col->v[0] = axe__floormod(v[0], WRAP);
        return;
    }
    for (int i = 0; i < s->nrow; i++)
        row->v[i] = v[s->row[i]];
    for (int i = 0; i < s->ncol; i++)
        col->v[i] = v[s->col[i]];
}

/* Sorted distinct tuples of "t" (n of them) in place; the count. */
static int64_t uniq(tup *t, int64_t n)
{
    int64_t k = 0;
    qsort(t, (size_t)n, sizeof *t, tup_cmp);
    for (int64_t i = 0; i < n; i++)
        if (k == 0 || tup_cmp(&t[k - 1], &t[i]) != 0)
            t[k++] = t[i];
    return k;
}

/* The index of tuple "x" in the sorted distinct tuples "t" (it is there). */
static int64_t find(const tup *t, int64_t n, const tup *x)
{
    const tup *p = bsearch(x, t, (size_t)n, sizeof *t, tup_cmp);
    return p - t;
}

/* Header axes of the physical model (labels come after the grid). */
static void set_header_axes(axe__render_model *m, const axe__render_axes *ax,
                            const split *s)
{
    m->rax.n = s->wrap ? 1 : s->nrow;
    m->cax.n = s->wrap ? 1 : s->ncol;
    for (int i = 0; i < m->rax.n; i++)
        memcpy(m->rax.name[i], ax->name[s->wrap ? 0 : s->row[i]],
               AXE_AXIS_NAME_MAX);
    for (int i = 0; i < m->cax.n; i++) {
        if (s->wrap)
            memcpy(m->cax.name[i], "offset", 7);
        else
            memcpy(m->cax.name[i], ax->name[s->col[i]], AXE_AXIS_NAME_MAX);
    }
    axe__render_abbreviate(&m->rax, true);
    axe__render_abbreviate(&m->cax, true);
}

/* Header labels: the distinct row and column tuples in order. */
static void set_labels(axe__render_model *m, const tup *rows, const tup *cols)
{
    for (int64_t r = 0; r < m->rows; r++)
        memcpy(m->rowlab + r * m->rax.n, rows[r].v,
               (size_t)m->rax.n * sizeof(int64_t));
    for (int64_t c = 0; c < m->cols; c++)
        memcpy(m->collab + c * m->cax.n, cols[c].v,
               (size_t)m->cax.n * sizeof(int64_t));
}

/* The entry axes: the logical coordinate over the dims of the shape (one
 * index for none); CAPACITY past AXE_RENDER_MAX_AXES dims. */
static axe_status set_entry_axes(axe__render_model *m,
                                 const axe__render_model *g, axe_diag *diag)
{
    int n = g->lnd > 1 ? g->lnd : 1;
    if (n > AXE_RENDER_MAX_AXES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "the physical view lists coordinates of at most %d "
                         "dims, the shape has %d; pass a --shape with fewer "
                         "dims (merge some) or use --as grid",
                         AXE_RENDER_MAX_AXES, n);
    m->coord_style = true;
    m->ax.n = n;
    for (int i = 0; i < n; i++)
        snprintf(m->ax.name[i], AXE_AXIS_NAME_MAX, n == 1 ? "index" : "%d", i);
    return AXE_OK;
}

/* The color of a hit: the value of the grid's color axis. */
static int64_t color_of(const axe__render_model *g, const int64_t *v)
{
    int i = axe__render_axis_find(&g->ax, g->color_axis);
    return i >= 0 ? v[i] : AXE__RENDER_NONE;
}

typedef struct scratch {
    tup *rows, *cols;
    int64_t *cell, *ord, *src; /* physical cell, order, logical cell */
    int64_t n;
} scratch;

/* Scratch arrays for "n" hits through the model's allocator. */
static axe_status scratch_new(axe__render_model *m, scratch *s, int64_t n)
{
    s->n = n;
    s->rows =
        axe__render_alloc(m->alloc, m->ud, NULL, 0, (size_t)n * sizeof(tup));
    s->cols =
        axe__render_alloc(m->alloc, m->ud, NULL, 0, (size_t)n * sizeof(tup));
    s->cell = axe__render_alloc(m->alloc, m->ud, NULL, 0,
                                (size_t)n * sizeof(int64_t));
    s->ord = axe__render_alloc(m->alloc, m->ud, NULL, 0,
                               (size_t)n * sizeof(int64_t));
    s->src = axe__render_alloc(m->alloc, m->ud, NULL, 0,
                               (size_t)n * sizeof(int64_t));
    return s->rows && s->cols && s->cell && s->ord && s->src
               ? AXE_OK
               : AXE_ERR_NO_MEMORY;
}

/* Free the scratch arrays (NULL ones are skipped). */
static void scratch_free(axe__render_model *m, scratch *s)
{
    void *p[5] = {s->rows, s->cols, s->cell, s->ord, s->src};
    size_t size[5] = {sizeof(tup), sizeof(tup), 8, 8, 8};
    for (int i = 0; i < 5; i++)
        if (p[i] != NULL)
            (void)axe__render_alloc(m->alloc, m->ud, p[i],
                                    (size_t)s->n * size[i], 0);
}

/* Place every hit in its cell (a stable counting sort) and fill "m". */
static axe_status fill(axe__render_model *m, const axe__render_model *g,
                       scratch *s)
{
    int64_t cells = m->rows * m->cols, crd[AXE_LAYOUT_MAX_DIMS];
    for (int64_t e = 0; e < s->n; e++)
        m->first[s->cell[e] + 1]++;
    for (int64_t k = 0; k < cells; k++)
        m->first[k + 1] += m->first[k];
    for (int64_t e = 0; e < s->n; e++)
        s->ord[m->first[s->cell[e]]++] = e;
    for (int64_t k = 0, i = 0; k < cells; k++) {
        int64_t end = m->first[k];
        axe__render_model_cell(m, k);
        for (; i < end; i++) {
            (void)axe__render_cell_coord(g, s->src[s->ord[i]], crd);
            AXE_TRY(axe__render_model_push(m, crd));
            m->key[k] = color_of(g, g->val + s->ord[i] * g->ax.n);
            memcpy(m->where + k * m->wax.n, g->val + s->ord[i] * g->ax.n,
                   (size_t)m->wax.n * sizeof(int64_t));
        }
    }
    axe__render_model_done(m);
    return AXE_OK;
}

/* Rows, columns and the cell of every hit of grid "g". */
static axe_status layout_hits(axe__render_model *m, const axe__render_model *g,
                              scratch *s, axe_diag *diag)
{
    split sp;
    tup row, col;
    int64_t nr, nc;
    split_axes(&g->ax, &sp);
    set_header_axes(m, &g->ax, &sp);
    for (int64_t e = 0; e < s->n; e++)
        key_of(&sp, g->val + e * g->ax.n, &s->rows[e], &s->cols[e]);
    nr = uniq(s->rows, s->n);
    nc = uniq(s->cols, s->n);
    AXE_TRY(axe__render_model_grid(
        m, nr, nc, "the physical view",
        "slice the layout first (axe slice) or draw the logical view (--as "
        "grid: one cell per element)",
        diag));
    m->wax = g->ax;
    m->where =
        axe__render_alloc(m->alloc, m->ud, NULL, 0,
                          (size_t)(nr * nc * m->wax.n) * sizeof(int64_t));
    if (m->where == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int64_t i = 0; i < nr * nc * m->wax.n; i++)
        m->where[i] = AXE__RENDER_NONE;
    set_labels(m, s->rows, s->cols);
    for (int64_t k = 0; k < g->rows * g->cols; k++)
        for (int64_t e = g->first[k]; e < g->first[k + 1]; e++)
            s->src[e] = k;
    for (int64_t e = 0; e < s->n; e++) {
        key_of(&sp, g->val + e * g->ax.n, &row, &col);
        s->cell[e] = find(s->rows, nr, &row) * nc + find(s->cols, nc, &col);
    }
    return AXE_OK;
}

/* The physical view of "l": the grid view's points regrouped by where they
 * live (file comment). */
axe_status axe__render_view_physical(axe__render_model *m,
                                     const axe_render_options *o,
                                     const axe_layout *l, axe_diag *diag)
{
    axe__render_model g;
    scratch s = {0};
    axe_status st;
    axe__render_model_init(&g, o);
    st = axe__render_view_grid(&g, o, l, diag);
    if (st == AXE_OK)
        st = scratch_new(m, &s, g.nent > 0 ? g.nent : 1);
    if (st == AXE_OK && g.nent == 0)
        st = axe__fail(diag, AXE_ERR_INVALID, -1, "the layout has no points");
    if (st == AXE_OK)
        st = set_entry_axes(m, &g, diag);
    if (st == AXE_OK) {
        memcpy(m->color_axis, g.color_axis, AXE_AXIS_NAME_MAX);
        st = layout_hits(m, &g, &s, diag);
    }
    if (st == AXE_OK)
        st = fill(m, &g, &s);
    scratch_free(m, &s);
    axe__render_model_free(&g);
    return st;
}
