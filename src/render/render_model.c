/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The picture model shared by every view and format (render_internal.h):
 * allocation of the grid through the allocator hook, cell-by-cell filling,
 * axis lists with their abbreviations and order, the palette, and the text
 * of a cell or a header label. Invariant: a model's arrays are either all
 * NULL (before axe__render_model_grid) or all allocated with the sizes the
 * header states; entries only grow, so first[] stays nondecreasing.
 */
#include <string.h>

#include "layout_internal.h"
#include "render_internal.h"

/* Thirty-two light colors (one per shared-memory bank), distinguishable
 * side by side; black text stays legible on each. */
const char *const axe__render_rgb[AXE__RENDER_PALETTE] = {
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
    "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#fdbf6f",
    "#cab2d6", "#b2df8a", "#fb9a99", "#e5d8bd", "#9edae5", "#c7c7c7", "#aec7e8",
    "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#dbdb8d",
    "#c6dbef", "#fdd0a2", "#c7e9c0", "#dadaeb"};
/* The nearest xterm-256 background for each color above. */
const int axe__render_xterm[AXE__RENDER_PALETTE] = {
    116, 229, 146, 210, 110, 215, 149, 224, 188, 139, 194,
    227, 152, 215, 182, 150, 217, 187, 117, 251, 152, 215,
    150, 210, 182, 181, 218, 186, 189, 223, 194, 189};

/* The palette slot of "key" (keys repeat every AXE__RENDER_PALETTE). */
int axe__render_slot(int64_t key)
{
    return (int)axe__floormod(key, AXE__RENDER_PALETTE);
}

/* An empty model allocating through the options' hook. */
void axe__render_model_init(axe__render_model *m, const axe_render_options *o)
{
    memset(m, 0, sizeof *m);
    m->alloc = o->alloc;
    m->ud = o->ud;
    axe_render_buf_init(&m->notes, o->alloc, o->ud);
}

/* Free "p" of "n" elements of "size" bytes (NULL: nothing). */
static void release(axe__render_model *m, void *p, int64_t n, size_t size)
{
    if (p != NULL)
        (void)axe__render_alloc(m->alloc, m->ud, p, (size_t)n * size, 0);
}

/* Free every array of "m" (NULL arrays are skipped). */
void axe__render_model_free(axe__render_model *m)
{
    int64_t cells = m->rows * m->cols;
    release(m, m->rowlab, m->rows * m->rax.n, sizeof(int64_t));
    release(m, m->collab, m->cols * m->cax.n, sizeof(int64_t));
    release(m, m->first, cells + 1, sizeof(int64_t));
    release(m, m->val, m->capent * m->ax.n, sizeof(int64_t));
    release(m, m->key, cells, sizeof(int64_t));
    release(m, m->mark, cells, 1);
    release(m, m->where, cells * m->wax.n, sizeof(int64_t));
    axe_render_buf_free(&m->notes);
    m->rowlab = m->collab = m->first = m->val = m->key = NULL;
    m->mark = NULL;
    m->where = NULL;
}

/* A zeroed array of "n" (at least 1) elements of "size" bytes, or NULL. */
static void *zalloc(axe__render_model *m, int64_t n, size_t size)
{
    void *p = axe__render_alloc(m->alloc, m->ud, NULL, 0,
                                (size_t)(n > 0 ? n : 1) * size);
    if (p != NULL)
        memset(p, 0, (size_t)(n > 0 ? n : 1) * size);
    return p;
}

/* A rows x cols grid with header labels over m->rax / m->cax; the axes
 * must be set before. Cells start empty and uncolored. Too many cells:
 * CAPACITY naming the limit, "what" and the suggestion "hint". */
axe_status axe__render_model_grid(axe__render_model *m, int64_t rows,
                                  int64_t cols, const char *what,
                                  const char *hint, axe_diag *diag)
{
    int64_t cells;
    if (rows < 1 || cols < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "%s has no cells", what);
    if (axe__mul(rows, cols, &cells) != AXE_OK || cells > AXE_RENDER_MAX_CELLS)
        return axe__fail(
            diag, AXE_ERR_CAPACITY, -1,
            "%s would have %lld x %lld cells, more than the %d a picture "
            "shows; %s",
            what, (long long)rows, (long long)cols, AXE_RENDER_MAX_CELLS, hint);
    m->rows = rows;
    m->cols = cols;
    m->rowlab = zalloc(m, rows * m->rax.n, sizeof(int64_t));
    m->collab = zalloc(m, cols * m->cax.n, sizeof(int64_t));
    m->first = zalloc(m, cells + 1, sizeof(int64_t));
    m->key = zalloc(m, cells, sizeof(int64_t));
    m->mark = zalloc(m, cells, 1);
    if (m->rowlab == NULL || m->collab == NULL || m->first == NULL ||
        m->key == NULL || m->mark == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1,
                         "out of memory for a %lld-cell picture",
                         (long long)cells);
    for (int64_t k = 0; k < cells; k++)
        m->key[k] = AXE__RENDER_NONE;
    return AXE_OK;
}

/* Cell "k" starts at the next entry. */
void axe__render_model_cell(axe__render_model *m, int64_t k)
{
    m->first[k] = m->nent;
}

/* Append an entry, doubling the entry array when full. */
axe_status axe__render_model_push(axe__render_model *m, const int64_t *v)
{
    size_t width = (size_t)(m->ax.n > 0 ? m->ax.n : 1) * sizeof(int64_t);
    if (m->nent == m->capent) {
        int64_t cap = m->capent < 64 ? 64 : 2 * m->capent;
        int64_t *p =
            axe__render_alloc(m->alloc, m->ud, m->val,
                              (size_t)m->capent * width, (size_t)cap * width);
        if (p == NULL)
            return AXE_ERR_NO_MEMORY;
        m->val = p;
        m->capent = cap;
    }
    memcpy(m->val + m->nent * m->ax.n, v, (size_t)m->ax.n * sizeof(int64_t));
    m->nent++;
    return AXE_OK;
}

/* The last cell ends at the last entry. */
void axe__render_model_done(axe__render_model *m)
{
    m->first[m->rows * m->cols] = m->nent;
}

/* ---- axes ------------------------------------------------------------------
 */

/* "name" zero-padded to a stored axis name (truncated past 15 bytes). */
static void pad_name(const char *name, char *out)
{
    memset(out, 0, AXE_AXIS_NAME_MAX);
    strncpy(out, name, AXE_AXIS_NAME_MAX - 1);
}

/* The index of axis "name" in "ax", or -1; lane and laneid (warp and
 * warpid) are one axis (axe__axis_eq). */
int axe__render_axis_find(const axe__render_axes *ax, const char *name)
{
    char want[AXE_AXIS_NAME_MAX];
    pad_name(name, want);
    for (int i = 0; i < ax->n; i++)
        if (axe__axis_eq(ax->name[i], want)) /* stored names are padded */
            return i;
    return -1;
}

/* Append "name" to "ax" unless present; CAPACITY past AXE_RENDER_MAX_AXES
 * with what to do instead. */
axe_status axe__render_axis_add(axe__render_axes *ax, const char *name,
                                axe_diag *diag)
{
    if (axe__render_axis_find(ax, name) >= 0)
        return AXE_OK;
    if (ax->n == AXE_RENDER_MAX_AXES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "a picture shows at most %d axes per cell and this "
                         "one needs more ('%.15s' is one too many); slice "
                         "the layout to fewer axes first (axe slice) or "
                         "list its points with axe apply",
                         AXE_RENDER_MAX_AXES, name);
    pad_name(name, ax->name[ax->n++]);
    return AXE_OK;
}

/* Device 0, thread axes 10 + by scope (widest first), CuTe coordinate
 * axes "0", "1", ... 200 + k, other memory axes 1000. */
static int axis_order(const char *name)
{
    axe_axis_info info;
    if (name[0] >= '0' && name[0] <= '9' && name[1] == '\0')
        return 200 + name[0] - '0';
    if (axe_axis_lookup(name, &info, NULL) != AXE_OK ||
        info.kind == AXE_AXIS_MEMORY)
        return 1000;
    if (info.kind == AXE_AXIS_DEVICE)
        return 0;
    return 10 + 10 * ((int)info.scope + 2) + (int)info.subscope + 2;
}

/* A stable insertion sort by axis_order. */
void axe__render_sort_axes(axe__render_axes *ax)
{
    for (int i = 1; i < ax->n; i++) {
        char name[AXE_AXIS_NAME_MAX];
        int key = axis_order(ax->name[i]), j = i;
        memcpy(name, ax->name[i], sizeof name);
        for (; j > 0 && axis_order(ax->name[j - 1]) > key; j--)
            memcpy(ax->name[j], ax->name[j - 1], sizeof name);
        memcpy(ax->name[j], name, sizeof name);
    }
}

/* Length of the shortest prefix of name i that starts no other name. */
static size_t distinct_prefix(const axe__render_axes *ax, int i)
{
    size_t len = strlen(ax->name[i]), n;
    for (n = 1; n < len; n++) {
        int j = 0;
        while (j < ax->n &&
               (j == i || strncmp(ax->name[j], ax->name[i], n) != 0))
            j++;
        if (j == ax->n)
            break;
    }
    return n;
}

/* Each name's shortest distinct prefix, ":" after one ending in a digit;
 * none for a single axis when "bare". */
void axe__render_abbreviate(axe__render_axes *ax, bool bare)
{
    for (int i = 0; i < ax->n; i++) {
        size_t n = bare && ax->n == 1 ? 0 : distinct_prefix(ax, i);
        memcpy(ax->abbr[i], ax->name[i], n);
        ax->abbr[i][n] = '\0';
        if (n > 0 && ax->abbr[i][n - 1] >= '0' && ax->abbr[i][n - 1] <= '9')
            memcpy(ax->abbr[i] + n, ":", 2);
    }
}

/* ---- text of cells and labels
 * ------------------------------------------------ */

/* One entry: `(a,b)` or `w5 l8 r1` (absent values and axis "skip"
 * skipped). */
static void entry_text(const axe__render_model *m, const int64_t *v, int skip,
                       axe_render_buf *b)
{
    bool first = true;
    if (m->coord_style)
        axe__render_puts(b, m->ax.n > 1 ? "(" : "");
    for (int i = 0; i < m->ax.n; i++) {
        if (v[i] == AXE__RENDER_NONE || i == skip)
            continue;
        if (!first)
            axe__render_puts(b, m->coord_style ? "," : " ");
        first = false;
        if (!m->coord_style)
            axe__render_puts(b, m->ax.abbr[i]);
        axe__render_putf(b, "%lld", (long long)v[i]);
    }
    if (m->coord_style && m->ax.n > 1)
        axe__render_puts(b, ")");
}

/* The entries of cell "k" joined by " / ", then "!" when marked. */
void axe__render_cell_text(const axe__render_model *m, int64_t k,
                           axe_render_buf *b)
{
    for (int64_t e = m->first[k]; e < m->first[k + 1]; e++) {
        if (e > m->first[k])
            axe__render_puts(b, " / ");
        entry_text(m, m->val + e * m->ax.n, -1, b);
    }
    if (m->mark[k])
        axe__render_puts(b, "!");
}

/* The color axis when entries are bands (m->bands), else -1. */
int axe__render_band_axis(const axe__render_model *m)
{
    return m->bands && !m->coord_style
               ? axe__render_axis_find(&m->ax, m->color_axis)
               : -1;
}

/* Entry "e"'s value on the band axis, or the cell's key. */
int64_t axe__render_band_key(const axe__render_model *m, int64_t k, int64_t e)
{
    int a = axe__render_band_axis(m);
    return a >= 0 && e < m->first[k + 1] ? m->val[e * m->ax.n + a] : m->key[k];
}

/* Entry "e" without the band axis (kept when it is the only axis), then
 * "!" when it is the last entry of a marked cell. */
void axe__render_band_text(const axe__render_model *m, int64_t k, int64_t e,
                           axe_render_buf *b)
{
    int a = axe__render_band_axis(m);
    if (e < m->first[k + 1])
        entry_text(m, m->val + e * m->ax.n, m->ax.n > 1 ? a : -1, b);
    if (m->mark[k] && e + 1 >= m->first[k + 1])
        axe__render_puts(b, "!");
}

/* Insert "key" into the "*n" ascending keys (at most "cap"); "*more"
 * when it is new but does not fit. */
static void add_key(int64_t *keys, int *n, int cap, bool *more, int64_t key)
{
    int i = 0;
    if (key == AXE__RENDER_NONE)
        return;
    while (i < *n && keys[i] < key)
        i++;
    if (i < *n && keys[i] == key)
        return;
    if (*n == cap)
        *more = true;
    if (i == cap)
        return;
    for (int j = (*n < cap ? *n : cap - 1); j > i; j--)
        keys[j] = keys[j - 1];
    keys[i] = key;
    *n += *n < cap;
}

/* The smallest distinct color keys of the bands, ascending, at most
 * "cap"; "*more" when some key in use is not among them. */
int axe__render_legend_keys(const axe__render_model *m, int64_t *keys, int cap,
                            bool *more)
{
    int n = 0;
    *more = false;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t e = m->first[k];
        do
            add_key(keys, &n, cap, more, axe__render_band_key(m, k, e));
        while (++e < m->first[k + 1]);
    }
    return n;
}

/* The most entries of one cell (at least 1) and the widest band label. */
axe_status axe__render_band_widths(const axe__render_model *m, int64_t *lines,
                                   int64_t *width)
{
    axe_render_buf b;
    axe_status st;
    axe_render_buf_init(&b, m->alloc, m->ud);
    *lines = *width = 1;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t n = m->first[k + 1] - m->first[k];
        *lines = n > *lines ? n : *lines;
        for (int64_t e = m->first[k]; e < m->first[k] + (n > 0 ? n : 1); e++) {
            b.len = 0;
            axe__render_band_text(m, k, e, &b);
            *width = (int64_t)b.len > *width ? (int64_t)b.len : *width;
        }
    }
    st = b.status;
    axe_render_buf_free(&b);
    return st;
}

/* Header label "i": the index itself, or `w5 l8` over the header axes. */
void axe__render_label_text(const axe__render_axes *ax, const int64_t *lab,
                            int64_t i, axe_render_buf *b)
{
    if (ax->n == 0) {
        axe__render_putf(b, "%lld", (long long)i);
        return;
    }
    if (ax->tuple) {
        for (int a = 0; a < ax->n; a++)
            axe__render_putf(b, "%s%lld", a > 0 ? "," : "(",
                             (long long)lab[i * ax->n + a]);
        axe__render_puts(b, ")");
        return;
    }
    for (int a = 0; a < ax->n; a++)
        axe__render_putf(b, "%s%s%lld", a > 0 ? " " : "", ax->abbr[a],
                         (long long)lab[i * ax->n + a]);
}

/* The widest cell, row label and column label. */
axe_status axe__render_widths(const axe__render_model *m, int64_t *cell,
                              int64_t *row, int64_t *col)
{
    axe_render_buf b;
    axe_status st;
    axe_render_buf_init(&b, m->alloc, m->ud);
    *cell = *row = *col = 1;
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        b.len = 0;
        axe__render_cell_text(m, k, &b);
        *cell = (int64_t)b.len > *cell ? (int64_t)b.len : *cell;
    }
    for (int64_t r = 0; r < m->rows; r++) {
        b.len = 0;
        axe__render_label_text(&m->rax, m->rowlab, r, &b);
        *row = (int64_t)b.len > *row ? (int64_t)b.len : *row;
    }
    for (int64_t c = 0; c < m->cols; c++) {
        b.len = 0;
        axe__render_label_text(&m->cax, m->collab, c, &b);
        *col = (int64_t)b.len > *col ? (int64_t)b.len : *col;
    }
    st = b.status;
    axe_render_buf_free(&b);
    return st;
}

/* " dims 0,1" or " dim 2": the dims a folded header stands for. */
static void put_dims(const axe__render_axes *ax, int lo, axe_render_buf *b)
{
    axe__render_puts(b, ax->n > 1 ? " dims " : " dim ");
    for (int i = 0; i < (ax->n > 1 ? ax->n : 1); i++)
        axe__render_putf(b, "%s%d", i > 0 ? "," : "", lo + i);
}

/* "rows: dims 0,1, columns: dim 2 of shape [2,8,8] (row-major)": how a
 * logical shape of more than two dims folds into the grid. */
static void fold_caption(const axe__render_model *m, axe_render_buf *b)
{
    axe__render_puts(b, "rows:");
    put_dims(&m->rax, 0, b);
    axe__render_puts(b, ", columns:");
    put_dims(&m->cax, m->rax.n > 1 ? m->rax.n : 1, b);
    axe__render_puts(b, " of shape [");
    for (int d = 0; d < m->lnd; d++)
        axe__render_putf(b, "%s%lld", d > 0 ? "," : "",
                         (long long)m->lshape[d]);
    axe__render_puts(b, m->lcolex ? "] (colexicographic)" : "] (row-major)");
}

/* "rows: warp lane, columns: reg" when the headers are tuples over axes
 * (the caption of folded logical dims for a logical grid); whether
 * anything was written. */
bool axe__render_caption(const axe__render_model *m, axe_render_buf *b)
{
    if (m->rax.n == 0 && m->cax.n == 0)
        return false;
    if (m->rax.tuple || m->cax.tuple) {
        fold_caption(m, b);
        return true;
    }
    axe__render_puts(b, "rows:");
    for (int i = 0; i < m->rax.n; i++)
        axe__render_putf(b, " %s", m->rax.name[i]);
    axe__render_puts(b, m->rax.n == 0 ? " index" : "");
    axe__render_puts(b, ", columns:");
    for (int i = 0; i < m->cax.n; i++)
        axe__render_putf(b, " %s", m->cax.name[i]);
    axe__render_puts(b, m->cax.n == 0 ? " index" : "");
    return true;
}

/* Color every cell by the value of its first entry on axis "name" (cells
 * without entries, or absent values, stay uncolored); AXE_ERR_INVALID
 * naming the axes when "name" is none of them. */
axe_status axe__render_recolor(axe__render_model *m, const char *name,
                               axe_diag *diag)
{
    int a = axe__render_axis_find(&m->ax, name);
    if (a < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "cannot color by '%.15s': the picture's axes are "
                         "%s%s%s%s%s",
                         name, m->ax.name[0], m->ax.n > 1 ? ", " : "",
                         m->ax.n > 1 ? m->ax.name[1] : "",
                         m->ax.n > 2 ? ", " : "",
                         m->ax.n > 2 ? m->ax.name[2] : "");
    for (int64_t k = 0; k < m->rows * m->cols; k++)
        m->key[k] = m->first[k] < m->first[k + 1]
                        ? m->val[m->first[k] * m->ax.n + a]
                        : AXE__RENDER_NONE;
    memcpy(m->color_axis, m->ax.name[a], AXE_AXIS_NAME_MAX);
    return AXE_OK;
}
