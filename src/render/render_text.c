/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The terminal picture: CuTe's print_layout table, one line per row,
 *
 *         0    1
 *       +----+----+
 *    0  |  0 |  4 |
 *       +----+----+
 *
 * with every cell as wide as the widest (right-aligned), a legend line
 * naming abbreviated axes, and with ANSI the cell backgrounds in the
 * palette color of the cell's key plus a color legend. Invariant: the
 * table carries exactly the text of axe__render_cell_text for each cell,
 * so a reader can parse the numbers back (tests/test_render.c does).
 */
#include <string.h>

#include "render_internal.h"

typedef struct widths {
    int64_t cell, row, col;
} widths;

/* The length of abbreviation "i" without its trailing ':'. */
static int abbr_len(const axe__render_axes *ax, int i)
{
    size_t n = strlen(ax->abbr[i]);
    return (int)(n > 0 && ax->abbr[i][n - 1] == ':' ? n - 1 : n);
}

/* "axes: w = warp, l = lane" when entries carry abbreviated axis names,
 * "values on m" when they are bare values of one axis. */
static void put_axes_legend(const axe__render_model *m, axe_render_buf *b)
{
    bool full = true;
    if (m->coord_style)
        return;
    if (m->ax.n == 1 && m->ax.abbr[0][0] == '\0') {
        axe__render_putf(b, "values on %s\n", m->ax.name[0]);
        return;
    }
    for (int i = 0; i < m->ax.n; i++)
        full = full && (size_t)abbr_len(&m->ax, i) == strlen(m->ax.name[i]);
    if (full)
        return;
    axe__render_puts(b, "axes: ");
    for (int i = 0; i < m->ax.n; i++)
        axe__render_putf(b, "%s%.*s = %s", i > 0 ? ", " : "",
                         abbr_len(&m->ax, i), m->ax.abbr[i], m->ax.name[i]);
    axe__render_puts(b, "\n");
}

/* A rule `+----+----+` under the header and each row. */
static void put_rule(const axe__render_model *m, const widths *w,
                     axe_render_buf *b)
{
    axe__render_pad(b, w->row + 2);
    axe__render_puts(b, "+");
    for (int64_t c = 0; c < m->cols; c++) {
        for (int64_t i = 0; i < w->cell + 2; i++)
            axe__render_puts(b, "-");
        axe__render_puts(b, "+");
    }
    axe__render_puts(b, "\n");
}

/* Append "tmp" right-aligned in "width" and empty "tmp". */
static void put_right(axe_render_buf *b, axe_render_buf *tmp, int64_t width)
{
    const char *s = axe__render_str(tmp);
    axe__render_pad(b, width - (int64_t)strlen(s));
    axe__render_puts(b, s);
    tmp->len = 0;
}

/* The column labels, right-aligned over the cells. */
static void put_header(const axe__render_model *m, const widths *w,
                       axe_render_buf *tmp, axe_render_buf *b)
{
    axe__render_pad(b, w->row + 2);
    for (int64_t c = 0; c < m->cols; c++) {
        axe__render_puts(b, "  ");
        axe__render_label_text(&m->cax, m->collab, c, tmp);
        put_right(b, tmp, w->cell);
        if (c + 1 < m->cols)
            axe__render_puts(b, " ");
    }
    axe__render_puts(b, "\n");
}

/* Row "r": its label, then each cell between bars (colored with ANSI). */
static void put_row(const axe__render_model *m, const widths *w, bool ansi,
                    int64_t r, axe_render_buf *tmp, axe_render_buf *b)
{
    axe__render_label_text(&m->rax, m->rowlab, r, tmp);
    put_right(b, tmp, w->row);
    axe__render_puts(b, "  |");
    for (int64_t c = 0; c < m->cols; c++) {
        int64_t k = r * m->cols + c;
        bool color = ansi && m->key[k] != AXE__RENDER_NONE;
        if (color)
            axe__render_putf(b, "\033[30;48;5;%dm",
                             axe__render_xterm[axe__render_slot(m->key[k])]);
        axe__render_puts(b, " ");
        axe__render_cell_text(m, k, tmp);
        put_right(b, tmp, w->cell);
        axe__render_puts(b, color ? " \033[0m|" : " |");
    }
    axe__render_puts(b, "\n");
}

/* With ANSI: "colors: warp [5] [6] ..." for the first keys in use. */
static void put_color_legend(const axe__render_model *m, axe_render_buf *b)
{
    int64_t seen[AXE__RENDER_PALETTE];
    int n = 0;
    for (int64_t k = 0; k < m->rows * m->cols && n < AXE__RENDER_PALETTE; k++) {
        int i = 0;
        while (i < n && seen[i] != m->key[k])
            i++;
        if (i == n && m->key[k] != AXE__RENDER_NONE)
            seen[n++] = m->key[k];
    }
    axe__render_putf(b, "colors: %s", m->color_axis);
    for (int i = 0; i < n; i++)
        axe__render_putf(b, " \033[30;48;5;%dm %lld \033[0m",
                         axe__render_xterm[axe__render_slot(seen[i])],
                         (long long)seen[i]);
    axe__render_puts(b, "\n");
}

/* The table of "m", optionally with ANSI colors (file comment). */
axe_status axe__render_emit_text(const axe__render_model *m, bool ansi,
                                 const char *title, axe_render_buf *out)
{
    widths w;
    axe_render_buf tmp;
    axe_status st;
    AXE_TRY(axe__render_widths(m, &w.cell, &w.row, &w.col));
    w.cell = w.col > w.cell ? w.col : w.cell;
    axe_render_buf_init(&tmp, m->alloc, m->ud);
    if (title != NULL)
        axe__render_putf(out, "%s\n", title);
    put_axes_legend(m, out);
    if (axe__render_caption(m, out))
        axe__render_puts(out, "\n");
    if (ansi && m->color_axis[0] != '\0')
        put_color_legend(m, out);
    put_header(m, &w, &tmp, out);
    put_rule(m, &w, out);
    for (int64_t r = 0; r < m->rows; r++) {
        put_row(m, &w, ansi, r, &tmp, out);
        put_rule(m, &w, out);
    }
    if (m->notes.len > 0)
        axe__render_put(out, m->notes.data, m->notes.len);
    st = tmp.status;
    axe_render_buf_free(&tmp);
    return st != AXE_OK ? st : out->status;
}
