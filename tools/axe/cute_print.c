/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe cute print`: CuTe's print_layout. A rank-2 layout (a rank-1 layout
 * is one column) is drawn as a table of L(m,n) with row and column
 * indices, cells as wide as CuTe makes them (the digits of the cosize) or
 * wider when a value needs it (negative strides, scaled-basis points).
 * Composed layouts are evaluated as functions. Invariant: the table is
 * built in res->text and never has more than PRINT_MAX_CELLS cells.
 */
#include <stdio.h>
#include <string.h>

#include "cute_ops.h"

#include "core_internal.h"

#define PRINT_MAX_CELLS 65536

typedef struct table {
    const axe_cute_object *o;
    int64_t rows, cols;
    int width;
    int ncoord;
    json_buf cell;
} table;

/* The text of cell (m, n) in t->cell. */
static axe_status cell_text(table *t, int64_t m, int64_t n, axe_diag *diag)
{
    axe_cute_point p;
    json_buf_clear(&t->cell);
    AXE_TRY(cute_eval_index(t->o, m + t->rows * n, &p, diag));
    cute_point_write(&p, t->ncoord, &t->cell);
    return t->cell.failed ? AXE_ERR_NO_MEMORY : AXE_OK;
}

static int digits(int64_t v)
{
    int d = 1;
    while (v >= 10 || v <= -10) {
        v /= 10;
        d++;
    }
    return d + (v < 0);
}

/* The cell width: CuTe's digits of cosize, or the widest cell. */
static axe_status measure(table *t, const axe_cute_layout *l, axe_diag *diag)
{
    int64_t cosize;
    t->width = 1;
    if (t->o->kind != AXE_CUTE_KIND_COMPOSED && !axe_cute_has_basis(l) &&
        axe_cute_cosize(l, &cosize) == AXE_OK)
        t->width = digits(cosize);
    for (int64_t n = 0; n < t->cols; n++) {
        for (int64_t m = 0; m < t->rows; m++) {
            AXE_TRY(cell_text(t, m, n, diag));
            if ((int)t->cell.len > t->width)
                t->width = (int)t->cell.len;
        }
    }
    return AXE_OK;
}

static void put_padded(json_buf *out, const char *s, int width)
{
    for (int i = (int)strlen(s); i < width; i++)
        json_buf_put_rawz(out, " ");
    json_buf_put_rawz(out, s);
}

static void put_rule(const table *t, json_buf *out)
{
    json_buf_put_rawz(out, "    ");
    for (int64_t n = 0; n < t->cols; n++) {
        json_buf_put_rawz(out, "+");
        for (int k = 0; k < t->width + 2; k++)
            json_buf_put_rawz(out, "-");
    }
    json_buf_put_rawz(out, "+\n");
}

static void put_header(const table *t, json_buf *out)
{
    char num[32];
    json_buf_put_rawz(out, "    ");
    for (int64_t n = 0; n < t->cols; n++) {
        snprintf(num, sizeof num, "%lld", (long long)n);
        json_buf_put_rawz(out, "  ");
        put_padded(out, num, t->width);
        json_buf_put_rawz(out, " ");
    }
    json_buf_put_rawz(out, "\n");
}

static axe_status put_row(table *t, int64_t m, json_buf *out, axe_diag *diag)
{
    char num[32];
    snprintf(num, sizeof num, "%2lld  ", (long long)m);
    json_buf_put_rawz(out, num);
    for (int64_t n = 0; n < t->cols; n++) {
        AXE_TRY(cell_text(t, m, n, diag));
        json_buf_put_rawz(out, "| ");
        put_padded(out, json_buf_str(&t->cell), t->width);
        json_buf_put_rawz(out, " ");
    }
    json_buf_put_rawz(out, "|\n");
    return AXE_OK;
}

/* rows = size of mode 0, cols = size of mode 1 (1 for a rank-1 layout). */
static axe_status table_shape(table *t, const axe_cute_layout *l,
                              axe_diag *diag)
{
    axe_cute_layout mode;
    int r = axe_cute_rank(l);
    if (r > 2)
        return cute_fail(diag, AXE_ERR_UNSUPPORTED,
                         "print draws rank-1 and rank-2 layouts; this one "
                         "has rank %d",
                         r);
    t->cols = 1;
    AXE_TRY(axe_cute_get(l, 0, &mode));
    AXE_TRY(axe_cute_size(&mode, &t->rows));
    if (r == 2) {
        AXE_TRY(axe_cute_get(l, 1, &mode));
        AXE_TRY(axe_cute_size(&mode, &t->cols));
    }
    if (t->rows > PRINT_MAX_CELLS / t->cols)
        return cute_fail(diag, AXE_ERR_CAPACITY,
                         "the table would have %lld x %lld cells; print "
                         "draws at most %d",
                         (long long)t->rows, (long long)t->cols,
                         PRINT_MAX_CELLS);
    return AXE_OK;
}

static axe_status draw(table *t, const axe_cute_layout *l, json_buf *out,
                       axe_diag *diag)
{
    AXE_TRY(table_shape(t, l, diag));
    AXE_TRY(measure(t, l, diag));
    cute_object_write(t->o, out);
    json_buf_put_rawz(out, "\n");
    put_header(t, out);
    for (int64_t m = 0; m < t->rows; m++) {
        put_rule(t, out);
        AXE_TRY(put_row(t, m, out, diag));
    }
    put_rule(t, out);
    return out->failed ? AXE_ERR_NO_MEMORY : AXE_OK;
}

axe_status cute_op_print(const cute_args *args, cute_result *res,
                         axe_diag *diag)
{
    axe_cute_layout l;
    cute_frame frame;
    table t;
    axe_status st;
    json_buf out;
    AXE_TRY(cute_unwrap(&args->a, "a", &l, &frame, diag));
    t.o = &args->a;
    t.ncoord = cute_value_ncoord(&args->a);
    json_buf_init(&t.cell, NULL, NULL);
    json_buf_init(&out, NULL, NULL);
    st = draw(&t, &l, &out, diag);
    if (st == AXE_OK) {
        res->kind = CUTE_RESULT_TEXT;
        json_buf_put_raw(&res->text, json_buf_str(&out), out.len);
    }
    json_buf_free(&t.cell);
    json_buf_free(&out);
    return st;
}
