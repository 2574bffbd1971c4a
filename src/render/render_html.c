/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interactive page: one self-contained HTML file (no network, no
 * external script) holding the SVG of the logical view and, for grid
 * pictures, of the physical view, the cells' data as a JSON literal, and a
 * small script: hover or click a cell to list every point it maps to
 * (`{warp: 6, lane: 8, reg: 1}` per line, as `axe apply` prints them),
 * pick the axis that colors the cells (in both views: each band of the
 * logical view by its own copy's value, relabelled with the other axes;
 * each physical cell by the point it stands for), switch between the
 * views, type a coordinate to highlight it in both. Invariant: the data are the
 * models' entries, so the page shows exactly what the SVG and the text picture
 * show.
 */
#include "render_internal.h"

static const char page_style[] =
    "<style>\nbody{font-family:sans-serif;margin:16px}\n"
    "h1{font-family:monospace;font-size:16px}\n"
    "#info{font-family:monospace;white-space:pre;border:1px solid #888;"
    "padding:6px;height:8em;overflow:auto;resize:vertical;max-width:60em;"
    "position:sticky;top:0;background:#fff;z-index:1}\n"
    ".cells text{pointer-events:none}\n.cells rect{cursor:pointer}\n"
    "rect.hl{stroke:#000;stroke-width:3}\nrect.sel{stroke:#1040ff;"
    "stroke-width:3}\n</style>\n";

static const char page_script[] =
    "const $ = (id) => document.getElementById(id);\n"

    "function fmt(m, v) {\n"
    "  if (m.coord) return v.length > 1 ? '[' + v.join(',') + ']' : "
    "'[' + v[0] + ']';\n"
    "  return '{' + m.axes.map((a, i) => v[i] === null ? '' : a + ': ' + "
    "v[i]).filter((s) => s).join(', ') + '}';\n"
    "}\n"
    "function coordOf(m, k) {\n"
    "  const s = m.shape, r = Math.floor(k / m.cols), c = k % m.cols;\n"
    "  if (s.length < 2) return [k];\n"
    "  let x = m.colex ? r + c * m.rows : k;\n"
    "  const v = [];\n"
    "  for (let i = 0; i < s.length; i++) {\n"
    "    const d = m.colex ? i : s.length - 1 - i;\n"
    "    v[d] = x % s[d];\n"
    "    x = Math.floor(x / s[d]);\n"
    "  }\n"
    "  return v;\n"
    "}\n"
    "function cellOf(m, v) {\n"
    "  const s = m.shape.length ? m.shape : [m.rows * m.cols];\n"
    "  let x = 0;\n"
    "  if (v.length === 1) x = v[0];\n"
    "  else if (v.length !== s.length || v.some((a, d) => a < 0 || a >= "
    "s[d])) return -1;\n"
    "  else for (let i = 0; i < s.length; i++) {\n"
    "    const d = m.colex ? s.length - 1 - i : i;\n"
    "    x = x * s[d] + v[d];\n"
    "  }\n"
    "  if (x < 0 || x >= m.rows * m.cols) return -1;\n"
    "  return m.colex ? (x % m.rows) * m.cols + Math.floor(x / m.rows) : x;\n"
    "}\n"
    "function where(m, k) {\n"
    "  if (m.shape) return '[' + coordOf(m, k).join(',') + ']';\n"
    "  const r = Math.floor(k / m.cols), c = k % m.cols;\n"
    "  if (m.rowlab) return m.rowlab[r] + ' | ' + m.collab[c];\n"
    "  return m.rows === 1 ? '[' + c + ']' : '[' + r + ',' + c + ']';\n"
    "}\n"
    "function rects(view) { return document.querySelectorAll('#' + view + "
    "' rect[data-k]'); }\n"
    "function show(view, k) {\n"
    "  const m = AXE[view];\n"
    "  rects(view).forEach((r) => r.classList.toggle('sel', +r.dataset.k "
    "=== k));\n"
    "  $('info').textContent = where(m, k) + '\\n' + m.cells[k].map((v) => "
    "fmt(m, v)).join('\\n');\n"
    "}\n"
    "function slot(x) { return 'c' + (((x % NPAL) + NPAL) % NPAL); }\n"
    "function band(m, v, i) {\n"
    "  return v ? m.axes.map((a, j) => (j === i && m.axes.length > 1) || "
    "v[j] === null ? '' : m.abbr[j] + v[j]).filter((s) => s).join(' ') : "
    "'';\n"
    "}\n"
    "function recolor(axis) {\n"
    "  for (const view of ['logical', 'physical']) {\n"
    "    const m = AXE[view];\n"
    "    if (!m) continue;\n"
    "    const i = m.axes.indexOf(axis), w = m.paxes ? "
    "m.paxes.indexOf(axis) : -1;\n"
    "    if (i < 0 && w < 0) continue;\n"
    "    rects(view).forEach((r) => {\n"
    "      const k = +r.dataset.k, e = m.cells[k][m.bands ? +r.dataset.e : "
    "0];\n"
    "      const x = w >= 0 ? m.where[k][w] : e ? e[i] : null;\n"
    "      r.classList.remove(...[...r.classList].filter((c) => "
    "/^c/.test(c)));\n"
    "      r.classList.add(x !== null ? slot(x) : 'cn');\n"
    "      if (m.bands) r.nextElementSibling.textContent = band(m, e, i);\n"
    "    });\n"
    "  }\n"
    "}\n"
    "function highlight(text) {\n"
    "  const v = (text.match(/-?\\d+/g) || []).map(Number);\n"
    "  const m = AXE.logical, k = v.length > 0 ? cellOf(m, v) : -1;\n"
    "  const key = k >= 0 ? '[' + coordOf(m, k).join(',') + ']' : null;\n"
    "  rects('logical').forEach((r) => r.classList.toggle('hl', "
    "+r.dataset.k === k));\n"
    "  if (AXE.physical) rects('physical').forEach((r) => r.classList.toggle("
    "'hl', AXE.physical.cells[+r.dataset.k].some((e) => fmt(AXE.physical, e) "
    "=== key)));\n"
    "  if (k >= 0) show('logical', k);\n"
    "}\n"
    "for (const view of ['logical', 'physical']) {\n"
    "  const svg = $(view);\n"
    "  if (svg) svg.addEventListener('click', (ev) => {\n"
    "    const k = ev.target.dataset ? ev.target.dataset.k : undefined;\n"
    "    if (k !== undefined) show(view, +k);\n"
    "  });\n"
    "  if (svg) svg.addEventListener('mouseover', (ev) => {\n"
    "    const k = ev.target.dataset ? ev.target.dataset.k : undefined;\n"
    "    if (k !== undefined) show(view, +k);\n"
    "  });\n"
    "}\n"
    "AXE.logical.axes.forEach((a) => { const o = document.createElement("
    "'option'); o.value = o.textContent = a; $('colorby').appendChild(o); "
    "});\n"
    "$('colorby').value = AXE.logical.color;\n"
    "$('colorby').addEventListener('change', (ev) => "
    "recolor(ev.target.value));\n"
    "$('view').addEventListener('change', (ev) => {\n"
    "  $('v-logical').hidden = ev.target.value !== 'logical';\n"
    "  $('v-physical').hidden = ev.target.value !== 'physical';\n"
    "});\n"
    "if (!AXE.physical) $('view').disabled = true;\n"
    "$('find').addEventListener('input', (ev) => "
    "highlight(ev.target.value));\n";

/* A JSON array of the names of "ax". */
static void put_names(const axe__render_axes *ax, axe_render_buf *b)
{
    axe__render_puts(b, "[");
    for (int i = 0; i < ax->n; i++)
        axe__render_putf(b, "%s\"%s\"", i > 0 ? "," : "", ax->name[i]);
    axe__render_puts(b, "]");
}

/* `,"key":["w5 l0", ...]`: the header labels of the "n" rows or columns. */
static void put_labels(const char *key, const axe__render_axes *ax,
                       const int64_t *lab, int64_t n, axe_render_buf *tmp,
                       axe_render_buf *b)
{
    axe__render_putf(b, ",\"%s\":[", key);
    for (int64_t i = 0; i < n; i++) {
        tmp->len = 0;
        axe__render_label_text(ax, lab, i, tmp);
        axe__render_putf(b, "%s\"%s\"", i > 0 ? "," : "", axe__render_str(tmp));
    }
    axe__render_puts(b, "]");
}

/* The largest integer a JavaScript number holds exactly (2^53 - 1). */
#define JS_SAFE 9007199254740991LL

/* A JSON number, a string of its digits past JS_SAFE (exact, where a
 * double would round), or null for an absent value; a comma before when
 * "comma". */
static void put_value(int64_t v, bool comma, axe_render_buf *b)
{
    axe__render_puts(b, comma ? "," : "");
    if (v == AXE__RENDER_NONE)
        axe__render_puts(b, "null");
    else if (v > JS_SAFE || v < -JS_SAFE)
        axe__render_putf(b, "\"%lld\"", (long long)v);
    else
        axe__render_putf(b, "%lld", (long long)v);
}

/* `,"shape":[2,8,8],"colex":false`: how the page maps a cell to the
 * logical coordinate it shows and a typed coordinate back to its cell. */
static void put_shape(const axe__render_model *m, axe_render_buf *b)
{
    axe__render_puts(b, ",\"shape\":[");
    for (int d = 0; d < m->lnd; d++)
        axe__render_putf(b, "%s%lld", d > 0 ? "," : "",
                         (long long)m->lshape[d]);
    axe__render_putf(b, "],\"colex\":%s", m->lcolex ? "true" : "false");
}

/* `,"paxes":[...],"where":[[5,8,1],...]`: the physical point of each cell
 * (the physical view), so the page can color it by any axis. */
static void put_where(const axe__render_model *m, axe_render_buf *b)
{
    axe__render_puts(b, ",\"paxes\":");
    put_names(&m->wax, b);
    axe__render_puts(b, ",\"where\":[");
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        axe__render_puts(b, k > 0 ? ",[" : "[");
        for (int i = 0; i < m->wax.n; i++)
            put_value(m->where[k * m->wax.n + i], i > 0, b);
        axe__render_puts(b, "]");
    }
    axe__render_puts(b, "]");
}

/* The model as a JSON object: axes, grid size, cells of entries. */
static void put_data(const axe__render_model *m, axe_render_buf *tmp,
                     axe_render_buf *b)
{
    axe__render_putf(b,
                     "{\"rows\":%lld,\"cols\":%lld,\"coord\":%s,"
                     "\"color\":\"%s\",\"axes\":",
                     (long long)m->rows, (long long)m->cols,
                     m->coord_style ? "true" : "false", m->color_axis);
    put_names(&m->ax, b);
    axe__render_putf(b, ",\"bands\":%s,\"abbr\":[",
                     axe__render_band_axis(m) >= 0 ? "true" : "false");
    for (int i = 0; i < m->ax.n; i++)
        axe__render_putf(b, "%s\"%s\"", i > 0 ? "," : "", m->ax.abbr[i]);
    axe__render_puts(b, "]");
    if (m->logical)
        put_shape(m, b);
    if (m->where != NULL)
        put_where(m, b);
    if (m->rax.n > 0 || m->cax.n > 0) {
        put_labels("rowlab", &m->rax, m->rowlab, m->rows, tmp, b);
        put_labels("collab", &m->cax, m->collab, m->cols, tmp, b);
    }
    axe__render_puts(b, ",\"cells\":[");
    for (int64_t k = 0; k < m->rows * m->cols; k++) {
        axe__render_puts(b, k > 0 ? ",[" : "[");
        for (int64_t e = m->first[k]; e < m->first[k + 1]; e++) {
            axe__render_puts(b, e > m->first[k] ? ",[" : "[");
            for (int i = 0; i < m->ax.n; i++)
                put_value(m->val[e * m->ax.n + i], i > 0, b);
            axe__render_puts(b, "]");
        }
        axe__render_puts(b, "]");
    }
    axe__render_puts(b, "]}");
}

/* The page head, the title and the controls (color axis, view, coordinate). */
static void put_controls(const char *title, axe_render_buf *b)
{
    axe__render_puts(b,
                     "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                     "<meta charset=\"utf-8\">\n<title>axe render</title>\n");
    axe__render_puts(b, page_style);
    axe__render_puts(b, "</head>\n<body>\n<h1>");
    axe__render_put_xml(b, title != NULL ? title : "axe render");
    axe__render_puts(b, "</h1>\n<p><label>color by <select id=\"colorby\">"
                        "</select></label>\n<label>view <select id=\"view\">"
                        "<option value=\"logical\">logical</option><option "
                        "value=\"physical\">physical</option></select>"
                        "</label>\n<label>coordinate <input id=\"find\" "
                        "placeholder=\"2,9\"></label></p>\n"
                        "<pre id=\"info\">click a cell</pre>\n");
}

/* The page: both SVGs, their data as JSON, the script (file comment). */
axe_status axe__render_emit_html(const axe__render_model *logical,
                                 const axe__render_model *physical,
                                 const char *note, const char *title,
                                 axe_render_buf *out)
{
    axe_render_buf tmp;
    axe_status st;
    axe_render_buf_init(&tmp, logical->alloc, logical->ud);
    put_controls(title, out);
    if (note != NULL) {
        axe__render_puts(out, "<p id=\"note\">The physical view is left "
                              "out: ");
        axe__render_put_xml(out, note);
        axe__render_puts(out, ".</p>\n");
    }
    axe__render_puts(out, "<div id=\"v-logical\">\n");
    AXE_TRY(axe__render_emit_svg(logical, NULL, "logical", true, out));
    axe__render_puts(out, "</div>\n<div id=\"v-physical\" hidden>\n");
    if (physical != NULL)
        AXE_TRY(axe__render_emit_svg(physical, NULL, "physical", true, out));
    axe__render_puts(
        out, "</div>\n<script>\n'use strict';\nconst AXE = {\"logical\":");
    put_data(logical, &tmp, out);
    axe__render_puts(out, ",\"physical\":");
    if (physical != NULL)
        put_data(physical, &tmp, out);
    else
        axe__render_puts(out, "null");
    axe__render_putf(out, "};\nconst NPAL = %d;\n", AXE__RENDER_PALETTE);
    axe__render_puts(out, page_script);
    axe__render_puts(out, "</script>\n</body>\n</html>\n");
    st = tmp.status;
    axe_render_buf_free(&tmp);
    return st != AXE_OK ? st : out->status;
}
