/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SVG picture: a standalone, scalable SVG 1.1 document with the title,
 * column and row headers, each cell a stack of bands, one rect + text per
 * entry (a replica is its own band: the Axe paper's Figure 2), filled from
 * the palette by the band's color key (axe__render_band_key) and labelled
 * with the other axes, a red border on marked cells, an outline around
 * cells of several bands, a legend of the colors in use (16 a line) and
 * the notes.
 * Sizes are integer pixels computed from the widest band label (monospace,
 * 12px), so the output is byte-for-byte deterministic. Invariant: cell k
 * is drawn at column k mod cols, row k div cols, and (interactive) each
 * band carries data-k="k" data-e="its index in the cell" for the page.
 */
#include <string.h>

#include "render_internal.h"

#define CH 22       /* height of a cell of one line */
#define BH 16       /* height of each further line (band) */
#define LEGEND 40   /* most legend swatches */
#define PER_LINE 16 /* legend swatches per line */

typedef struct geom {
    int64_t cw, ch, lw, caption_y, top, width, height, legend_y, extra;
} geom;

/* Pixels of "n" monospace characters at 12px (7.2 px each). */
static int64_t text_px(int64_t n) { return (72 * n + 9) / 10; }

/* The number of lines of "b". */
static int count_lines(const axe_render_buf *b)
{
    int n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\n';
    return n;
}

/* max(a, b). */
static int64_t at_least(int64_t a, int64_t b) { return a > b ? a : b; }

/* The widest line of the notes, in bytes. */
static int64_t widest_note(const axe_render_buf *notes)
{
    int64_t w = 0, start = 0;
    for (int64_t i = 0; i < (int64_t)notes->len; i++)
        if (notes->data[i] == '\n') {
            w = at_least(w, i - start);
            start = i + 1;
        }
    return w;
}

/* Cell, margin and picture sizes fitting the cells, labels, title, legend
 * and notes. */
static axe_status measure(const axe__render_model *m, const char *title,
                          geom *g)
{
    int64_t wc, wr, wl, wb, lines, keys[LEGEND];
    bool more;
    int nkeys = axe__render_legend_keys(m, keys, LEGEND, &more);
    AXE_TRY(axe__render_widths(m, &wc, &wr, &wl));
    AXE_TRY(axe__render_band_widths(m, &lines, &wb));
    g->cw = at_least(text_px(at_least(wl, wb)) + 12, 28);
    g->ch = CH + (lines - 1) * BH;
    g->lw = text_px(wr) + 16;
    g->caption_y = title != NULL ? 42 : 18;
    g->top = g->caption_y + 10 + (m->rax.n > 0 || m->cax.n > 0 ? 18 : 0);
    g->width = at_least(g->lw + m->cols * g->cw + 16, 360);
    g->width =
        at_least(g->width, 140 + 60 * (nkeys < PER_LINE ? nkeys : PER_LINE));
    g->extra = nkeys > 0 ? 18 * ((nkeys - 1) / PER_LINE) : 0;
    g->width = at_least(g->width, text_px(widest_note(&m->notes)) + 16);
    if (title != NULL)
        g->width =
            at_least(g->width, 7 * text_px((int64_t)strlen(title)) / 6 + 16);
    g->legend_y = g->top + m->rows * g->ch + 24;
    g->height = g->legend_y + g->extra + 48 + 18 * count_lines(&m->notes);
    return AXE_OK;
}

/* The <svg> element and the style: palette classes c0..c19, cn (no key). */
static void put_head(const axe__render_model *m, const geom *g, const char *id,
                     axe_render_buf *b)
{
    axe__render_putf(b,
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" "
                     "width=\"%lld\" height=\"%lld\" viewBox=\"0 0 %lld "
                     "%lld\">\n<style>\n",
                     id, (long long)g->width, (long long)g->height,
                     (long long)g->width, (long long)g->height);
    axe__render_puts(b, "text{font-family:monospace;font-size:12px}\n"
                        "rect{stroke:#555;stroke-width:0.5}\n"
                        "rect.x{stroke:#d00000;stroke-width:2}\n"
                        "rect.o{fill:none;stroke:#222;stroke-width:1}\n"
                        ".h{font-weight:bold;font-size:14px}\n");
    for (int i = 0; i < AXE__RENDER_PALETTE; i++)
        axe__render_putf(b, ".c%d{fill:%s}\n", i, axe__render_rgb[i]);
    axe__render_puts(b, ".cn{fill:#ffffff}\n</style>\n");
    (void)m;
}

/* The title, the header caption, column labels on top, row labels left. */
static void put_headers(const axe__render_model *m, const geom *g,
                        const char *title, axe_render_buf *tmp,
                        axe_render_buf *b)
{
    if (title != NULL) {
        axe__render_puts(b, "<text class=\"h\" x=\"8\" y=\"20\">");
        axe__render_put_xml(b, title);
        axe__render_puts(b, "</text>\n");
    }
    tmp->len = 0;
    if (axe__render_caption(m, tmp))
        axe__render_putf(b, "<text x=\"8\" y=\"%lld\">%s</text>\n",
                         (long long)g->caption_y, axe__render_str(tmp));
    axe__render_puts(b, "<g text-anchor=\"middle\">\n");
    for (int64_t c = 0; c < m->cols; c++) {
        tmp->len = 0;
        axe__render_label_text(&m->cax, m->collab, c, tmp);
        axe__render_putf(b, "<text x=\"%lld\" y=\"%lld\">%s</text>\n",
                         (long long)(g->lw + c * g->cw + g->cw / 2),
                         (long long)(g->top - 7), axe__render_str(tmp));
    }
    axe__render_puts(b, "</g>\n<g text-anchor=\"end\">\n");
    for (int64_t r = 0; r < m->rows; r++) {
        tmp->len = 0;
        axe__render_label_text(&m->rax, m->rowlab, r, tmp);
        axe__render_putf(b, "<text x=\"%lld\" y=\"%lld\">%s</text>\n",
                         (long long)(g->lw - 6),
                         (long long)(g->top + r * g->ch + g->ch / 2 + 4),
                         axe__render_str(tmp));
    }
    axe__render_puts(b, "</g>\n");
}

/* Band "i" of "n" of cell "k" (entry e): a rect in the band's color
 * (x when marked; data-k, data-e when interactive) and its label. */
static void put_band(const axe__render_model *m, const geom *g,
                     bool interactive, int64_t k, int64_t i, int64_t n,
                     axe_render_buf *tmp, axe_render_buf *b)
{
    int64_t e = m->first[k] + i, key = axe__render_band_key(m, k, e);
    int64_t x = g->lw + (k % m->cols) * g->cw, y = g->top + k / m->cols * g->ch;
    int64_t y0 = y + i * g->ch / n, y1 = y + (i + 1) * g->ch / n;
    if (key == AXE__RENDER_NONE)
        axe__render_puts(b, "<rect class=\"cn");
    else
        axe__render_putf(b, "<rect class=\"c%d", axe__render_slot(key));
    axe__render_puts(b, m->mark[k] ? " x" : "");
    if (interactive)
        axe__render_putf(b, "\" data-k=\"%lld\" data-e=\"%lld", (long long)k,
                         (long long)i);
    axe__render_putf(b,
                     "\" x=\"%lld\" y=\"%lld\" width=\"%lld\" "
                     "height=\"%lld\"/>",
                     (long long)x, (long long)y0, (long long)g->cw,
                     (long long)(y1 - y0));
    tmp->len = 0;
    axe__render_band_text(m, k, e, tmp);
    axe__render_putf(b, "<text x=\"%lld\" y=\"%lld\">%s</text>\n",
                     (long long)(x + g->cw / 2), (long long)((y0 + y1) / 2 + 4),
                     axe__render_str(tmp));
}

/* Each cell as a stack of bands, one per entry (one for an empty cell). */
static void put_cells(const axe__render_model *m, const geom *g,
                      bool interactive, axe_render_buf *tmp, axe_render_buf *b)
{
    axe__render_puts(b, "<g class=\"cells\" text-anchor=\"middle\">\n");
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        int64_t n = m->first[k + 1] - m->first[k];
        for (int64_t i = 0; i < (n > 0 ? n : 1); i++)
            put_band(m, g, interactive, k, i, n > 0 ? n : 1, tmp, b);
        if (n > 1)
            axe__render_putf(b,
                             "<rect class=\"o\" x=\"%lld\" y=\"%lld\" "
                             "width=\"%lld\" height=\"%lld\"/>\n",
                             (long long)(g->lw + (k % m->cols) * g->cw),
                             (long long)(g->top + k / m->cols * g->ch),
                             (long long)g->cw, (long long)g->ch);
    }
    axe__render_puts(b, "</g>\n");
}

/* "color: warp" and a swatch per key in use. */
static void put_legend(const axe__render_model *m, const geom *g,
                       axe_render_buf *b)
{
    int64_t keys[LEGEND], y = g->legend_y;
    bool more = false;
    int n = axe__render_legend_keys(m, keys, LEGEND, &more);
    if (m->color_axis[0] != '\0' && n > 0) {
        axe__render_putf(b, "<text x=\"8\" y=\"%lld\">color: %s</text>\n",
                         (long long)(y + 15), m->color_axis);
        for (int i = 0; i < n; i++)
            axe__render_putf(
                b,
                "<rect class=\"c%d\" x=\"%d\" y=\"%lld\" "
                "width=\"12\" height=\"12\"/><text x=\"%d\" "
                "y=\"%lld\">%lld</text>\n",
                axe__render_slot(keys[i]), 120 + 60 * (i % PER_LINE),
                (long long)(y + 5 + 18 * (i / PER_LINE)),
                136 + 60 * (i % PER_LINE),
                (long long)(y + 15 + 18 * (i / PER_LINE)), (long long)keys[i]);
        if (more || n > AXE__RENDER_PALETTE)
            axe__render_putf(b,
                             "<text x=\"8\" y=\"%lld\">colors repeat every "
                             "%d%s</text>\n",
                             (long long)(y + 33 + g->extra),
                             AXE__RENDER_PALETTE,
                             more ? "; more values than shown" : "");
    }
}

/* The notes, one <text> per line. */
static void put_notes(const axe__render_model *m, const geom *g,
                      axe_render_buf *b)
{
    int64_t y = g->legend_y + g->extra + 51;
    size_t start = 0;
    for (size_t i = 0; i < m->notes.len; i++) {
        if (m->notes.data[i] != '\n')
            continue;
        axe__render_putf(b, "<text x=\"8\" y=\"%lld\">%.*s</text>\n",
                         (long long)y, (int)(i - start), m->notes.data + start);
        y += 18;
        start = i + 1;
    }
}

/* The standalone SVG of "m" (file comment). */
axe_status axe__render_emit_svg(const axe__render_model *m, const char *title,
                                const char *id, bool interactive,
                                axe_render_buf *out)
{
    geom g;
    axe_render_buf tmp;
    axe_status st;
    AXE_TRY(measure(m, title, &g));
    axe_render_buf_init(&tmp, m->alloc, m->ud);
    put_head(m, &g, id, out);
    put_headers(m, &g, title, &tmp, out);
    put_cells(m, &g, interactive, &tmp, out);
    put_legend(m, &g, out);
    put_notes(m, &g, out);
    axe__render_puts(out, "</svg>\n");
    st = tmp.status;
    axe_render_buf_free(&tmp);
    return st != AXE_OK ? st : out->status;
}
