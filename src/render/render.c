/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The public entry points of the render layer: build the model of the
 * requested view, then write it in the requested format (render.h).
 * Invariant: "out" only grows on success; on failure it keeps what it had
 * (the picture is written to a scratch buffer first, then appended).
 */
#include <string.h>

#include "render_internal.h"

/* Defaults: GRID, TEXT, row-major cells, 2-byte elements, no access. */
void axe_render_options_init(axe_render_options *o)
{
    memset(o, 0, sizeof *o);
    o->view = AXE_RENDER_GRID;
    o->format = AXE_RENDER_TEXT;
    o->elem_bytes = 2;
}

/* Write model "m" (and for HTML the physical "phys", may be NULL, and
 * "note", why it is missing). */
static axe_status emit(const axe__render_model *m,
                       const axe__render_model *phys, const char *note,
                       const axe_render_options *o, axe_render_buf *out)
{
    switch (o->format) {
    case AXE_RENDER_TEXT:
        return axe__render_emit_text(m, false, o->title, out);
    case AXE_RENDER_ANSI:
        return axe__render_emit_text(m, true, o->title, out);
    case AXE_RENDER_SVG:
        return axe__render_emit_svg(m, o->title, "axe", false, out);
    case AXE_RENDER_TEX:
        return axe__render_emit_tex(m, o->title, out);
    case AXE_RENDER_HTML:
        return axe__render_emit_html(m, phys, note, o->title, out);
    }
    return AXE_ERR_INVALID;
}

/* Append the picture in "tmp" to "out" when everything succeeded. */
static axe_status finish(axe_status st, axe_render_buf *tmp,
                         axe_render_buf *out, axe_diag *diag)
{
    if (st == AXE_OK)
        st = tmp->status;
    if (st == AXE_OK && tmp->len > 0) {
        axe__render_put(out, tmp->data, tmp->len);
        st = out->status;
    }
    axe_render_buf_free(tmp);
    if (st == AXE_ERR_NO_MEMORY && diag != NULL && diag->message[0] == '\0')
        (void)axe__fail(diag, st, -1, "out of memory while rendering");
    return st;
}

/* The model of "view" for Axe layout "l" (TV pictures go through
 * axe_render_tv). */
static axe_status build(axe__render_model *m, const axe_render_options *o,
                        axe_render_view view, const axe_layout *l,
                        axe_diag *diag)
{
    switch (view) {
    case AXE_RENDER_GRID:
        return axe__render_view_grid(m, o, l, diag);
    case AXE_RENDER_PHYSICAL:
        return axe__render_view_physical(m, o, l, diag);
    case AXE_RENDER_BANKS:
        AXE_TRY(axe__render_view_banks(m, o, l, diag));
        return o->color_by != NULL ? axe__render_recolor(m, o->color_by, diag)
                                   : AXE_OK;
    case AXE_RENDER_TV:
        break;
    }
    return axe__fail(diag, AXE_ERR_INVALID, -1,
                     "the TV view draws a CuTe TV layout (axe_render_tv)");
}

/* The physical view for the HTML page of a grid; a picture too large
 * leaves it out with the reason in "note" (the page shows the grid). */
static axe_status build_physical(axe__render_model *phys,
                                 const axe_render_options *o,
                                 const axe_layout *l, axe_diag *note,
                                 axe_diag *diag)
{
    axe_status st = build(phys, o, AXE_RENDER_PHYSICAL, l, note);
    if (st == AXE_ERR_CAPACITY) {
        axe__render_model_free(phys);
        axe__render_model_init(phys, o);
        return AXE_OK;
    }
    if (st != AXE_OK && diag != NULL)
        *diag = *note;
    return st;
}

/* The picture of "l" in o->view and o->format, appended to "out" (render.h). */
axe_status axe_render_layout(const axe_render_options *o, const axe_layout *l,
                             axe_render_buf *out, axe_diag *diag)
{
    axe__render_model m, phys;
    axe_render_buf tmp;
    axe_diag note;
    axe_status st;
    if (o == NULL || l == NULL || out == NULL)
        return AXE_ERR_INVALID;
    axe_diag_clear(diag);
    axe_diag_clear(&note);
    axe_render_buf_init(&tmp, o->alloc, o->ud);
    axe__render_model_init(&m, o);
    axe__render_model_init(&phys, o);
    st = build(&m, o, o->view, l, diag);
    if (st == AXE_OK && o->format == AXE_RENDER_HTML &&
        o->view == AXE_RENDER_GRID)
        st = build_physical(&phys, o, l, &note, diag);
    if (st == AXE_OK)
        st = emit(&m, phys.first != NULL ? &phys : NULL,
                  phys.first == NULL && note.message[0] != '\0' ? note.message
                                                                : NULL,
                  o, &tmp);
    axe__render_model_free(&m);
    axe__render_model_free(&phys);
    return finish(st, &tmp, out, diag);
}

/* The picture of TV layout "tv" over the tile o->shape, appended to "out". */
axe_status axe_render_tv(const axe_render_options *o, const axe_cute_layout *tv,
                         axe_render_buf *out, axe_diag *diag)
{
    axe__render_model m;
    axe_render_buf tmp;
    axe_status st;
    if (o == NULL || tv == NULL || out == NULL)
        return AXE_ERR_INVALID;
    axe_diag_clear(diag);
    axe_render_buf_init(&tmp, o->alloc, o->ud);
    axe__render_model_init(&m, o);
    st = axe__render_view_tv(&m, o, tv, diag);
    if (st == AXE_OK && o->color_by != NULL)
        st = axe__render_recolor(&m, o->color_by, diag);
    if (st == AXE_OK)
        st = emit(&m, NULL, NULL, o, &tmp);
    axe__render_model_free(&m);
    return finish(st, &tmp, out, diag);
}
