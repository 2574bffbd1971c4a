/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the render layer: the first input byte picks the
 * view, the format and the color axis, the rest is a layout in the Axe or
 * CuTe notation, optionally followed by a NUL and one byte k that asks for
 * a --shape of k % 17 dims (factors of the layout's size, the last taking
 * the rest; colexicographic when k / 17 is odd), so that pictures of many
 * folded dims are drawn too. A layout the parser accepts is drawn (CuTe
 * layouts also as a TV layout over a tile of their cosize). Invariants, each
 * checked with
 * __builtin_trap on violation: rendering returns AXE_OK with a non-empty
 * picture, or a failure status with a reason in the diagnostic and the
 * output buffer untouched; it never crashes, hangs or leaks (the
 * sanitizers and the cell limit see to the rest).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "axe/notation.h"
#include "axe/render.h"

#define TEXT_MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool cond)
{
    if (!cond)
        __builtin_trap();
}

/* Draw with "o"; check the invariants of the result. */
static void draw(const axe_render_options *o, const axe_layout *l,
                 const axe_cute_layout *tv)
{
    axe_render_buf b;
    axe_diag d;
    axe_status st;
    axe_render_buf_init(&b, NULL, NULL);
    st = tv != NULL ? axe_render_tv(o, tv, &b, &d)
                    : axe_render_layout(o, l, &b, &d);
    if (st == AXE_OK)
        require(b.len > 0 && b.data[b.len] == '\0');
    else
        require(b.len == 0 && d.message[0] != '\0');
    axe_render_buf_free(&b);
}

/* The shape of "n" dims asked for: the smallest prime factors of the
 * size of "l", one per dim, the last dim taking what is left (1s once
 * the size is used up). */
static void shape_of(int n, bool colex, const axe_layout *l,
                     axe_render_options *o)
{
    int64_t rest;
    if (n == 0 || axe_layout_size(l, NULL, &rest) != AXE_OK)
        return;
    o->ndims = n;
    o->colex = colex;
    for (int d = 0; d < n - 1; d++) {
        int64_t p = 2;
        while (p <= rest / p && rest % p != 0)
            p++;
        o->shape[d] = rest == 1 ? 1 : rest % p == 0 ? p : rest;
        rest /= o->shape[d];
    }
    o->shape[n - 1] = rest;
}

static void options(uint8_t sel, const char *text, axe_render_options *o)
{
    static const char *const colors[4] = {NULL, "m", "laneid", "T"};
    axe_render_options_init(o);
    o->view = (axe_render_view)(sel % 4);
    o->format = (axe_render_format)((sel / 4) % 5);
    o->color_by = colors[(sel / 20) % 4];
    o->title = text;
}

static void draw_cute(uint8_t sel, const char *text, size_t len, int k)
{
    axe_cute_object c;
    axe_render_options o;
    axe_layout l;
    int64_t cosize;
    options(sel, text, &o);
    o.colex = true;
    if (axe_parse_cute(text, len, &c, NULL) != AXE_OK)
        return;
    if (c.kind == AXE_CUTE_KIND_COMPOSED &&
        axe_layout_from_cute_composed(&c.composed, &l, NULL) == AXE_OK)
        draw(&o, &l, NULL);
    if (c.kind != AXE_CUTE_KIND_LAYOUT)
        return;
    if (axe_layout_from_cute(&c.layout, &l, NULL) == AXE_OK &&
        o.view != AXE_RENDER_TV) {
        if (k >= 0)
            shape_of(k % 17, true, &l, &o);
        draw(&o, &l, NULL);
    }
    if (o.view == AXE_RENDER_TV &&
        axe_cute_cosize(&c.layout, &cosize) == AXE_OK) {
        o.ndims = 1;
        o.shape[0] = cosize;
        draw(&o, NULL, &c.layout);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[TEXT_MAX + 1];
    axe_render_options o;
    axe_layout l;
    size_t len;
    int k = -1;
    if (size < 1 || size - 1 > TEXT_MAX)
        return 0;
    len = size - 1;
    memcpy(text, data + 1, len);
    text[len] = '\0';
    if (strlen(text) + 2 == len && data[size - 2] == '\0') {
        k = data[size - 1];
        len -= 2;
    }
    if (strlen(text) != len)
        return 0;
    if (axe_parse_layout(text, len, &l, NULL) == AXE_OK) {
        options(data[0], text, &o);
        if (k >= 0)
            shape_of(k % 17, (k / 17) % 2 == 1, &l, &o);
        if (o.view != AXE_RENDER_TV)
            draw(&o, &l, NULL);
        return 0;
    }
    draw_cute(data[0], text, len, k);
    return 0;
}
