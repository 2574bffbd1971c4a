/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TikZ picture: a standalone LaTeX document (class standalone, option
 * tikz) that pdflatex compiles as it is, drawn like CuTe's print_latex:
 * each cell a stack of bands, one filled rectangle and one \ttfamily node
 * per entry (colored and labelled as in the SVG: axe__render_band_key,
 * axe__render_band_text), headers above and to the left, the palette as
 * \definecolor{cN}{HTML}{...}, marked cells with a red border, and the
 * notes under the grid. Coordinates are whole
 * millimetres (x = 1mm, y = -1mm: rows go down), so the text is
 * deterministic. Invariant: every label passes through axe__render_put_tex.
 */
#include "render_internal.h"

#define H 6 /* cell height, mm */

/* The document class, the picture's options and the palette colors. */
static void put_preamble(axe_render_buf *b)
{
    axe__render_puts(b, "\\documentclass[tikz,border=2mm]{standalone}\n"
                        "\\begin{document}\n"
                        "\\begin{tikzpicture}[x=1mm,y=-1mm,every "
                        "node/.style={font=\\ttfamily\\scriptsize}]\n");
    for (int i = 0; i < AXE__RENDER_PALETTE; i++) {
        axe__render_putf(b, "\\definecolor{c%d}{HTML}{", i);
        for (const char *p = axe__render_rgb[i] + 1; *p != '\0'; p++)
            axe__render_putf(b, "%c", *p >= 'a' ? *p - 'a' + 'A' : *p);
        axe__render_puts(b, "}\n");
    }
}

/* \node[style] at (x,y) {text}; with the text escaped. */
static void put_node(axe_render_buf *b, const char *style, int64_t x, int64_t y,
                     const char *text)
{
    axe__render_putf(b, "\\node%s at (%lld,%lld) {", style, (long long)x,
                     (long long)y);
    axe__render_put_tex(b, text);
    axe__render_puts(b, "};\n");
}

/* The title, column labels on top, row labels left. */
static void put_headers(const axe__render_model *m, int64_t w, int64_t h,
                        const char *title, axe_render_buf *tmp,
                        axe_render_buf *b)
{
    if (title != NULL)
        put_node(b, "[anchor=west,font=\\ttfamily\\small]", 0, -9, title);
    for (int64_t c = 0; c < m->cols; c++) {
        tmp->len = 0;
        axe__render_label_text(&m->cax, m->collab, c, tmp);
        put_node(b, "", c * w + w / 2, -3, axe__render_str(tmp));
    }
    for (int64_t r = 0; r < m->rows; r++) {
        tmp->len = 0;
        axe__render_label_text(&m->rax, m->rowlab, r, tmp);
        put_node(b, "[anchor=east]", -1, r * h + h / 2, axe__render_str(tmp));
    }
}

/* Band "i" of "n" of cell "k" (x, y, width w, height h mm): a filled
 * rectangle (red and thick when marked) and a node. */
static void put_band(const axe__render_model *m, int64_t k, int64_t i,
                     int64_t n, const int64_t *box, axe_render_buf *tmp,
                     axe_render_buf *b)
{
    int64_t e = m->first[k] + i, key = axe__render_band_key(m, k, e);
    int64_t y0 = box[1] + i * box[3] / n, y1 = box[1] + (i + 1) * box[3] / n;
    if (key == AXE__RENDER_NONE)
        axe__render_puts(b, "\\filldraw[fill=white");
    else
        axe__render_putf(b, "\\filldraw[fill=c%d", axe__render_slot(key));
    axe__render_puts(b, m->mark[k] ? ",draw=red,thick]" : ",draw=black]");
    axe__render_putf(b, " (%lld,%lld) rectangle (%lld,%lld);\n",
                     (long long)box[0], (long long)y0,
                     (long long)(box[0] + box[2]), (long long)y1);
    tmp->len = 0;
    axe__render_band_text(m, k, e, tmp);
    put_node(b, "", box[0] + box[2] / 2, (y0 + y1) / 2, axe__render_str(tmp));
}

/* Each cell as a stack of bands, one per entry, "lines" bands high; a
 * thick outline around cells of several bands. */
static void put_cells(const axe__render_model *m, int64_t w, int64_t lines,
                      axe_render_buf *tmp, axe_render_buf *b)
{
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t n = m->first[k + 1] - m->first[k];
        int64_t box[4] = {(k % m->cols) * w, k / m->cols * H * lines, w,
                          H * lines};
        for (int64_t i = 0; i < (n > 0 ? n : 1); i++)
            put_band(m, k, i, n > 0 ? n : 1, box, tmp, b);
        if (n > 1)
            axe__render_putf(b,
                             "\\draw[thick] (%lld,%lld) rectangle "
                             "(%lld,%lld);\n",
                             (long long)box[0], (long long)box[1],
                             (long long)(box[0] + w),
                             (long long)(box[1] + box[3]));
    }
}

/* A swatch and the value of each color key in use, 16 a line, right of
 * "color: AXIS" at "y"; the y of the next line. */
static int64_t put_swatches(const axe__render_model *m, int64_t y,
                            axe_render_buf *tmp, axe_render_buf *b)
{
    int64_t keys[AXE__RENDER_LEGEND];
    bool more = false;
    int n = axe__render_legend_keys(m, keys, AXE__RENDER_LEGEND, &more);
    for (int i = 0; i < n; i++) {
        int64_t x = 30 + 12 * (i % 16), yy = y + 5 * (i / 16);
        axe__render_putf(b,
                         "\\filldraw[fill=c%d,draw=black] (%lld,%lld) "
                         "rectangle (%lld,%lld);\n",
                         axe__render_slot(keys[i]), (long long)x,
                         (long long)(yy - 1), (long long)(x + 3),
                         (long long)(yy + 2));
        tmp->len = 0;
        axe__render_putf(tmp, "%lld", (long long)keys[i]);
        put_node(b, "[anchor=west]", x + 3, yy, axe__render_str(tmp));
    }
    y += 5 * (n > 0 ? (n - 1) / 16 + 1 : 1);
    if (more) {
        put_node(b, "[anchor=west]", 0, y, "more values than shown");
        y += 5;
    }
    return y;
}

/* "color: warp" with its swatches, and the notes under the grid. */
static void put_notes(const axe__render_model *m, int64_t h,
                      axe_render_buf *tmp, axe_render_buf *b)
{
    int64_t y = m->rows * h + 5;
    if (m->color_axis[0] != '\0') {
        tmp->len = 0;
        axe__render_putf(tmp, "color: %s", m->color_axis);
        put_node(b, "[anchor=west]", 0, y, axe__render_str(tmp));
        y = put_swatches(m, y, tmp, b);
    }
    for (size_t i = 0, start = 0; i < m->notes.len; i++) {
        if (m->notes.data[i] != '\n')
            continue;
        tmp->len = 0;
        axe__render_put(tmp, m->notes.data + start, i - start);
        put_node(b, "[anchor=west]", 0, y, axe__render_str(tmp));
        y += 5;
        start = i + 1;
    }
}

/* The standalone LaTeX document of "m" (file comment). */
axe_status axe__render_emit_tex(const axe__render_model *m, const char *title,
                                axe_render_buf *out)
{
    int64_t wc, wr, wl, w, lines;
    axe_render_buf tmp;
    axe_status st;
    AXE_TRY(axe__render_widths(m, &wc, &wr, &wl));
    AXE_TRY(axe__render_band_widths(m, &lines, &wc));
    wc = wl > wc ? wl : wc;
    w = (17 * wc + 9) / 10 + 3;
    axe_render_buf_init(&tmp, m->alloc, m->ud);
    put_preamble(out);
    put_headers(m, w, H * lines, title, &tmp, out);
    put_cells(m, w, lines, &tmp, out);
    put_notes(m, H * lines, &tmp, out);
    axe__render_puts(out, "\\end{tikzpicture}\n\\end{document}\n");
    st = tmp.status;
    axe_render_buf_free(&tmp);
    return st != AXE_OK ? st : out->status;
}
