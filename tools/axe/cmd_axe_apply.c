/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe apply` and `axe back`: the forward map of an Axe layout at one index
 * or coordinate (the paper's set, or TIRx's base point), the whole map as a
 * table (the Axe paper's Figure 2 as text: a 2-D shape is drawn as a grid
 * whose cells list the points of their coordinate, `w5 l0 m0 | w9 l0 m0`;
 * other shapes as a list), and the backward map. In tables the axes are
 * ordered device, thread (widest scope first), memory, and abbreviated by
 * their shortest unambiguous prefix; a legend names them. Invariant: a
 * table has at most TABLE_MAX_CELLS cells and every cell shows every axis.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd_axe.h"

#include "core_internal.h"

#define TABLE_MAX_CELLS 65536
#define TABLE_MAX_AXES 32

typedef struct table {
    const axe_layout *l;
    bool base;
    int ndims; /* 0: linear indices */
    const int64_t *shape;
    int64_t ncells, rows, cols;
    int naxes;
    char axis[TABLE_MAX_AXES][AXE_AXIS_NAME_MAX];
    char abbr[TABLE_MAX_AXES][AXE_AXIS_NAME_MAX + 1];
    axe_point pts[AXOP_POINTS_MAX];
    int npts;
} table;

/* ---- evaluating a cell --------------------------------------------------- */

/* The points of cell "k" (row-major over the shape) into t->pts. */
static axe_status eval_cell(table *t, int64_t k, axe_diag *diag)
{
    int64_t crd[AXE_LAYOUT_MAX_DIMS], x = k;
    for (int d = t->ndims - 1; d >= 0; d--) {
        crd[d] = x % t->shape[d];
        x /= t->shape[d];
    }
    if (t->base) {
        t->npts = 1;
        if (t->ndims == 0)
            return axe_layout_apply_base(t->l, k, &t->pts[0], diag);
        return axe_layout_apply_shape(t->l, crd, t->shape, t->ndims, &t->pts[0],
                                      diag);
    }
    if (t->ndims == 0)
        return axe_layout_apply_set(t->l, &k, NULL, 1, t->pts, AXOP_POINTS_MAX,
                                    &t->npts, diag);
    return axe_layout_apply_set(t->l, crd, t->shape, t->ndims, t->pts,
                                AXOP_POINTS_MAX, &t->npts, diag);
}

static int find_axis(const table *t, const char *name)
{
    for (int i = 0; i < t->naxes; i++)
        if (strcmp(t->axis[i], name) == 0)
            return i;
    return -1;
}

/* Device axes first, then thread axes widest scope first, then memory. */
static int axis_rank(const char *name)
{
    axe_axis_info info;
    axe_diag d;
    if (axe_axis_lookup(name, &info, &d) != AXE_OK)
        return 1000;
    if (info.kind == AXE_AXIS_DEVICE)
        return 0;
    if (info.kind == AXE_AXIS_THREAD)
        return 10 + 10 * ((int)info.scope + 2) + (int)info.subscope + 2;
    return 1000;
}

/* Stable insertion sort of the axes by axis_rank. */
static void sort_axes(table *t)
{
    for (int i = 1; i < t->naxes; i++) {
        char name[AXE_AXIS_NAME_MAX];
        int r = axis_rank(t->axis[i]), j = i;
        memcpy(name, t->axis[i], sizeof name);
        while (j > 0 && axis_rank(t->axis[j - 1]) > r) {
            memcpy(t->axis[j], t->axis[j - 1], sizeof name);
            j--;
        }
        memcpy(t->axis[j], name, sizeof name);
    }
}

/* Every axis any cell uses, in first-use order, then sorted. */
static axe_status collect_axes(table *t, axe_diag *diag)
{
    t->naxes = 0;
    for (int64_t k = 0; k < t->ncells; k++) {
        axe_status st = eval_cell(t, k, diag);
        if (st != AXE_OK)
            return st;
        for (int p = 0; p < t->npts; p++)
            for (int i = 0; i < t->pts[p].n; i++) {
                if (find_axis(t, t->pts[p].axis[i]) >= 0)
                    continue;
                if (t->naxes == TABLE_MAX_AXES)
                    return axop_fail(diag, AXE_ERR_CAPACITY,
                                     "more than %d axes to tabulate",
                                     TABLE_MAX_AXES);
                memcpy(t->axis[t->naxes++], t->pts[p].axis[i],
                       AXE_AXIS_NAME_MAX);
            }
    }
    sort_axes(t);
    return AXE_OK;
}

/* Whether "s" starts with the first "n" bytes of "p". */
static bool has_prefix(const char *s, const char *p, size_t n)
{
    return strlen(s) >= n && strncmp(s, p, n) == 0;
}

/* The shortest prefix of each axis that starts no other axis name (the
 * whole name when it is a prefix of another); a ':' follows an
 * abbreviation that ends in a digit or starts another abbreviation, so
 * that "m:25" and "m25" cannot be confused. A single axis needs no name. */
static void abbreviate(table *t)
{
    for (int i = 0; i < t->naxes; i++) {
        size_t n = 1, len = strlen(t->axis[i]);
        for (; n < len; n++) {
            bool clash = false;
            for (int j = 0; j < t->naxes && !clash; j++)
                clash = j != i && has_prefix(t->axis[j], t->axis[i], n);
            if (!clash)
                break;
        }
        memcpy(t->abbr[i], t->axis[i], n);
        t->abbr[i][t->naxes == 1 ? 0 : n] = '\0';
    }
    for (int i = 0; i < t->naxes && t->naxes > 1; i++) {
        size_t n = strlen(t->abbr[i]);
        bool colon = t->abbr[i][n - 1] >= '0' && t->abbr[i][n - 1] <= '9';
        for (int j = 0; j < t->naxes && !colon; j++)
            colon = j != i && has_prefix(t->abbr[j], t->abbr[i], n);
        if (colon)
            memcpy(t->abbr[i] + n, ":", 2);
    }
}

static int64_t point_value(const axe_point *p, const char *axis)
{
    int64_t v = 0;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->axis[i], axis) == 0)
            v += p->v[i];
    return v;
}

/* "w5 l0 m0 | w9 l0 m0": the points of the last evaluated cell. */
static void cell_write(const table *t, json_buf *out)
{
    for (int p = 0; p < t->npts; p++) {
        if (p > 0)
            json_buf_put_rawz(out, " | ");
        for (int i = 0; i < t->naxes; i++) {
            if (i > 0)
                json_buf_put_rawz(out, " ");
            json_buf_put_rawz(out, t->abbr[i]);
            json_buf_put_int(out, point_value(&t->pts[p], t->axis[i]));
        }
    }
}

/* ---- drawing ------------------------------------------------------------- */

static void put_padded(json_buf *out, const char *s, size_t len, int width)
{
    json_buf_put_raw(out, s, len);
    for (int i = (int)len; i < width; i++)
        json_buf_put_rawz(out, " ");
}

static void put_coord(const table *t, int64_t k, json_buf *out)
{
    int64_t crd[AXE_LAYOUT_MAX_DIMS];
    for (int d = t->ndims - 1; d >= 0; d--) {
        crd[d] = k % t->shape[d];
        k /= t->shape[d];
    }
    if (t->ndims == 0) {
        json_buf_put_int(out, k);
        return;
    }
    axop_ints_write(crd, t->ndims, out);
}

static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* The cells' text, one after another: cell k is text[at[k] .. at[k+1]). */
typedef struct cells {
    json_buf text;
    size_t *at;
} cells;

static axe_status format_cells(table *t, cells *c, axe_diag *diag)
{
    c->at = malloc((size_t)(t->ncells + 1) * sizeof c->at[0]);
    if (c->at == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int64_t k = 0; k < t->ncells; k++) {
        c->at[k] = c->text.len;
        AXE_TRY(eval_cell(t, k, diag));
        cell_write(t, &c->text);
    }
    c->at[t->ncells] = c->text.len;
    return c->text.failed ? AXE_ERR_NO_MEMORY : AXE_OK;
}

/* A list: "[r,c]  cell" per line, coordinates padded to one width. */
static void draw_list(const table *t, const cells *c, json_buf *out)
{
    json_buf crd;
    int width = 0;
    json_buf_init(&crd, NULL, NULL);
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t k = 0; k < t->ncells; k++) {
            json_buf_clear(&crd);
            put_coord(t, k, &crd);
            if (pass == 0) {
                width = (int)crd.len > width ? (int)crd.len : width;
                continue;
            }
            put_padded(out, json_buf_str(&crd), crd.len, width);
            json_buf_put_rawz(out, "  ");
            json_buf_put_raw(out, json_buf_str(&c->text) + c->at[k],
                             c->at[k + 1] - c->at[k]);
            json_buf_put_rawz(out, "\n");
        }
    }
    out->failed |= crd.failed;
    json_buf_free(&crd);
}

/* A grid: column indices on top, row indices on the left. */
static void draw_grid(const table *t, const cells *c, json_buf *out)
{
    int rw = digits(t->rows - 1), *cw = calloc((size_t)t->cols, sizeof *cw);
    char num[32];
    if (cw == NULL) {
        out->failed = 1;
        return;
    }
    for (int64_t k = 0; k < t->ncells; k++) {
        int w = (int)(c->at[k + 1] - c->at[k]);
        cw[k % t->cols] = w > cw[k % t->cols] ? w : cw[k % t->cols];
    }
    put_padded(out, "", 0, rw);
    for (int64_t j = 0; j < t->cols; j++) {
        int n = snprintf(num, sizeof num, "%lld", (long long)j);
        json_buf_put_rawz(out, "   ");
        put_padded(out, num, (size_t)n, j + 1 < t->cols ? cw[j] : 0);
    }
    for (int64_t k = 0; k < t->ncells; k++) {
        if (k % t->cols == 0) {
            int n = snprintf(num, sizeof num, "\n%*lld", rw,
                             (long long)(k / t->cols));
            json_buf_put_raw(out, num, (size_t)n);
        }
        json_buf_put_rawz(out, "   ");
        put_padded(out, json_buf_str(&c->text) + c->at[k],
                   c->at[k + 1] - c->at[k],
                   (k + 1) % t->cols != 0 ? cw[k % t->cols] : 0);
    }
    json_buf_put_rawz(out, "\n");
    free(cw);
}

/* "L over [8,16]" and the legend "axes: w = warpid, l = laneid". */
static void draw_title(const table *t, json_buf *out)
{
    axop_layout_write(t->l, out);
    json_buf_put_rawz(out, t->ndims == 0 ? " at every index" : " over ");
    if (t->ndims > 0)
        axop_ints_write(t->shape, t->ndims, out);
    json_buf_put_rawz(out,
                      t->base ? " (base points)\n" : " (sets of points)\n");
    if (t->naxes == 1) {
        json_buf_put_rawz(out, "values on ");
        json_buf_put_rawz(out, t->axis[0]);
        json_buf_put_rawz(out, "\n");
        return;
    }
    json_buf_put_rawz(out, "axes:");
    for (int i = 0; i < t->naxes; i++) {
        size_t n = strlen(t->abbr[i]);
        json_buf_put_rawz(out, i > 0 ? ", " : " ");
        json_buf_put_raw(out, t->abbr[i], n - (t->abbr[i][n - 1] == ':'));
        json_buf_put_rawz(out, " = ");
        json_buf_put_rawz(out, t->axis[i]);
    }
    json_buf_put_rawz(out, t->naxes == 0 ? " none\n" : "\n");
}

static axe_status draw(table *t, bool list, json_buf *out, axe_diag *diag)
{
    cells c;
    axe_status st;
    AXE_TRY(collect_axes(t, diag));
    abbreviate(t);
    json_buf_init(&c.text, NULL, NULL);
    c.at = NULL;
    st = format_cells(t, &c, diag);
    if (st == AXE_OK) {
        draw_title(t, out);
        if (t->ndims == 2 && !list)
            draw_grid(t, &c, out);
        else
            draw_list(t, &c, out);
    }
    free(c.at);
    json_buf_free(&c.text);
    return st;
}

/* The cells of the table: the shape's, or the layout's linear indices. */
static axe_status table_size(table *t, const axop_args *args, axe_diag *diag)
{
    const axop_ints *s = axop_list(args, AXOP_SHAPE);
    int64_t n = 1;
    t->ndims = axop_has(args, AXOP_SHAPE) ? s->n : 0;
    t->shape = s->v;
    if (t->ndims > AXE_LAYOUT_MAX_DIMS)
        return axop_fail(diag, AXE_ERR_CAPACITY, "more than %d dims",
                         AXE_LAYOUT_MAX_DIMS);
    if (t->ndims == 0 && axe_layout_size(t->l, NULL, &n) != AXE_OK)
        return axop_fail(diag, AXE_ERR_OVERFLOW,
                         "the size of L (the product of its shard extents) "
                         "overflows int64 (largest %lld)",
                         (long long)INT64_MAX);
    for (int d = 0; d < t->ndims; d++) {
        if (s->v[d] < 1)
            return axop_fail(diag, AXE_ERR_DOMAIN,
                             "dim %d of the shape is %lld, not >= 1", d,
                             (long long)s->v[d]);
        if (__builtin_mul_overflow(n, s->v[d], &n) || n > TABLE_MAX_CELLS)
            n = TABLE_MAX_CELLS + 1;
    }
    if (n > TABLE_MAX_CELLS)
        return axop_fail(diag, AXE_ERR_CAPACITY,
                         "the table would have more than %d cells",
                         TABLE_MAX_CELLS);
    t->ncells = n;
    t->cols = t->ndims == 2 ? s->v[1] : 1;
    t->rows = t->ndims == 2 ? s->v[0] : n;
    return AXE_OK;
}

static int print_table(const axe_invocation *inv, const axop_args *args,
                       bool base)
{
    static table t;
    json_buf out;
    axe_diag diag;
    axe_status st;
    int code;
    t.l = axop_layout(args, AXOP_LAYOUT);
    t.base = base;
    axe_diag_clear(&diag);
    st = table_size(&t, args, &diag);
    json_buf_init(&out, NULL, NULL);
    if (st == AXE_OK)
        st = draw(&t, axe_inv_has(inv, "list"), &out, &diag);
    if (st == AXE_OK && out.len > 0 && json_buf_str(&out)[out.len - 1] == '\n')
        out.len--;
    code = st == AXE_OK ? axe_inv_print(&out) : axe_inv_fail(inv, st, &diag);
    json_buf_free(&out);
    return code;
}

/* ---- the commands -------------------------------------------------------- */

static int run_and_print(const axe_invocation *inv, const char *op,
                         axop_args *args)
{
    static axop_result res;
    json_buf out;
    int code;
    axop_result_init(&res);
    code = axe_inv_run(inv, op, args, &res);
    if (code < 0) {
        json_buf_init(&out, NULL, NULL);
        axop_result_write_text(&res, &out);
        code = axe_inv_print(&out);
        json_buf_free(&out);
    }
    axop_result_free(&res);
    return code;
}

/* Fill L and --shape; -1 or an exit code. */
static int layout_and_shape(axe_invocation *inv, axop_args *args)
{
    const char *shape = axe_inv_value(inv, "shape");
    int code;
    axop_args_init(args);
    if (inv->npos < 1 || inv->npos > 2)
        return cli_usage(inv->cmd->name, "expects %s", inv->cmd->usage);
    if ((code = axe_inv_fill(inv, args, AXOP_LAYOUT, inv->pos[0])) >= 0)
        return code;
    if (shape != NULL &&
        (code = axe_inv_fill(inv, args, AXOP_SHAPE, shape)) >= 0)
        return code;
    return -1;
}

int axe_cmd_apply(axe_invocation *inv)
{
    static axop_args args;
    bool digits_given = axe_inv_has(inv, "digits");
    bool base = axe_inv_has(inv, "base") || digits_given;
    int code = layout_and_shape(inv, &args);
    if (code >= 0)
        return code;
    if (digits_given && axop_has(&args, AXOP_SHAPE))
        return cli_usage(inv->cmd->name, "--digits takes no --shape");
    if (inv->npos == 1) {
        if (digits_given)
            return cli_usage(inv->cmd->name, "--digits needs a CRD");
        return print_table(inv, &args, base);
    }
    if (axe_inv_has(inv, "list"))
        return cli_usage(inv->cmd->name, "--list is for tables");
    if ((code = axe_inv_fill(inv, &args, AXOP_COORD, inv->pos[1])) >= 0)
        return code;
    if (!axop_has(&args, AXOP_SHAPE) && !digits_given &&
        axop_list(&args, AXOP_COORD)->n != 1)
        return cli_usage(inv->cmd->name, "a coordinate needs --shape S (or "
                                         "--digits for one digit per iter)");
    return run_and_print(inv, base ? "apply" : "apply_set", &args);
}

/* "x", or its coordinate in "shape" (row-major) when "shape" has dims. */
static int print_index(int64_t x, const axop_ints *shape, bool coord)
{
    int64_t crd[AXE_LAYOUT_MAX_DIMS];
    json_buf out;
    int code;
    json_buf_init(&out, NULL, NULL);
    if (coord) {
        for (int d = shape->n - 1; d > 0; d--) {
            crd[d] = x % shape->v[d];
            x /= shape->v[d];
        }
        crd[0] = x;
        axop_ints_write(crd, shape->n, &out);
    } else {
        json_buf_put_int(&out, x);
    }
    code = axe_inv_print(&out);
    json_buf_free(&out);
    return code;
}

/* --shape for `axe back`: 1 to 16 dims, each >= 1. */
static int check_shape(const axe_invocation *inv, const axop_ints *shape)
{
    if (shape->n < 1 || shape->n > AXE_LAYOUT_MAX_DIMS)
        return cli_usage(inv->cmd->name, "--shape has 1 to %d dims",
                         AXE_LAYOUT_MAX_DIMS);
    for (int d = 0; d < shape->n; d++)
        if (shape->v[d] < 1)
            return cli_usage(inv->cmd->name, "--shape dims must be >= 1");
    return -1;
}

int axe_cmd_back(axe_invocation *inv)
{
    static axop_args args;
    static axop_result res;
    axop_ints shape;
    bool coord;
    int code = layout_and_shape(inv, &args);
    if (code >= 0 || (code = axe_inv_count(inv, 2)) >= 0 ||
        (code = axe_inv_fill(inv, &args, AXOP_POINT, inv->pos[1])) >= 0)
        return code;
    coord = axop_has(&args, AXOP_SHAPE);
    shape = *axop_list(&args, AXOP_SHAPE);
    if (coord && (code = check_shape(inv, &shape)) >= 0)
        return code;
    args.have &= ~AXOP_BIT(AXOP_SHAPE);
    args.have |= AXOP_BIT(AXOP_WITH_REPLICAS);
    args.flag[AXOP_WITH_REPLICAS - AXOP_CANONICALIZE] =
        axe_inv_has(inv, "replicas");
    axop_result_init(&res);
    code = axe_inv_run(inv, "backward", &args, &res);
    if (code < 0)
        code = print_index(res.i, &shape, coord);
    axop_result_free(&res);
    return code;
}
