/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Property test of the banded cells of the SVG picture (the Axe paper's
 * Figure 2): for random Axe layouts colored by a random axis, cell k of
 * the grid is a stack of exactly one band per point of L(k), in the order
 * of the replicas, band p filled with the palette slot of point p's value
 * on the color axis and labelled with point p's values on the other axes
 * (the color axis only when it is the only axis), all checked against the
 * brute-force D(x) + r + O of render_brute.h. Seeded: AXE_TEST_SEED.
 */
#include <stdlib.h>

#include "axe/render.h"
#include "render_brute.h"
#include "testlib.h"

#define BANDS_MAX 20000

typedef struct band {
    int slot;        /* palette slot, -1 for "cn" */
    int64_t x, y, h; /* rect */
    char label[64];  /* text */
} band;

/* The bands of the cells group of "svg" in order; the count. */
static int read_bands(const char *svg, band *b, int max)
{
    const char *p = strstr(svg, "<g class=\"cells\"");
    const char *stop = p != NULL ? strstr(p, "</g>") : NULL;
    int n = 0;
    while (stop != NULL && (p = strstr(p, "<rect class=\"")) != NULL &&
           p < stop) {
        const char *t;
        band x = {0};
        p += 13;
        if (*p == 'o')
            continue; /* the outline of a stacked cell */
        x.slot = p[1] == 'n' ? -1 : atoi(p + 1);
        if (sscanf(strstr(p, " x=\""),
                   " x=\"%lld\" y=\"%lld\" width=\"%*d\" "
                   "height=\"%lld\"",
                   (long long *)&x.x, (long long *)&x.y,
                   (long long *)&x.h) != 3)
            return -1;
        t = strchr(strstr(p, "<text"), '>') + 1;
        snprintf(x.label, sizeof x.label, "%.*s", (int)strcspn(t, "<"), t);
        if (n < max)
            b[n] = x;
        n++;
    }
    return n;
}

/* The axes of "l" (shards, replicas, offsets), distinct; the count. */
static int layout_axes(const axe_layout *l, const char **ax)
{
    int n = 0;
    const char *all[64];
    int m = 0;
    for (int i = 0; i < l->nshard; i++)
        all[m++] = l->shard[i].axis;
    for (int i = 0; i < l->nreplica; i++)
        all[m++] = l->replica[i].axis;
    for (int i = 0; i < l->noffset; i++)
        all[m++] = l->offset[i].axis;
    for (int i = 0; i < m; i++) {
        int j = 0;
        while (j < n && strcmp(ax[j], all[i]) != 0)
            j++;
        if (j == n)
            ax[n++] = all[i];
    }
    return n;
}

/* The index in pool of the axis named (or abbreviated, "abbr") "s", or -1. */
static int pool_index(const char *s, bool abbr)
{
    for (int i = 0; i < 3; i++)
        if (abbr ? pool[i][0] == *s : strcmp(pool[i], s) == 0)
            return i;
    return -1;
}

/* Band "b" shows point p of element x: its color is the slot of the color
 * axis's value; its label is that value bare (a one-axis picture) or the
 * values `l8 w6` of the other axes, each right, none twice, and every
 * other axis of "ax" with a nonzero value present. */
static bool band_ok(const axe_layout *l, const band *b, int64_t x, int64_t p,
                    const char *color, const char **ax, int naxes)
{
    int64_t want = brute(l, x, p, color);
    bool seen[3] = {false, false, false};
    const char *s = b->label;
    if (b->slot != (int)(((want % 32) + 32) % 32))
        return false;
    if (*s == '-' || (*s >= '0' && *s <= '9'))
        return strtoll(s, NULL, 10) == want;
    while (*s != '\0') {
        int i = pool_index(s, true);
        char *end;
        if (i < 0 || strcmp(pool[i], color) == 0 || seen[i] ||
            strtoll(s + 1, &end, 10) != brute(l, x, p, pool[i]) || end == s + 1)
            return false;
        seen[i] = true;
        s = end + strspn(end, " ");
    }
    for (int i = 0; i < naxes; i++)
        if (strcmp(ax[i], color) != 0 && !seen[pool_index(ax[i], false)] &&
            brute(l, x, p, ax[i]) != 0)
            return false;
    return true;
}

/* Axis "a" is zero on every point of the "n" elements of "l". */
static bool absent(const axe_layout *l, int64_t n, const char *a)
{
    for (int64_t x = 0; x < n; x++)
        for (int64_t p = 0; p < replicas(l); p++)
            if (brute(l, x, p, a) != 0)
                return false;
    return true;
}

/* The bands of cell k are stacked: one column, contiguous rows. */
static bool stacked(const band *b, int64_t n)
{
    for (int64_t i = 1; i < n; i++)
        if (b[i].x != b[0].x || b[i].y != b[i - 1].y + b[i - 1].h)
            return false;
    return true;
}

static void check_bands(const axe_layout *l, int64_t rows, int64_t cols,
                        const char *color)
{
    static band b[BANDS_MAX];
    const char *ax[64];
    int naxes = layout_axes(l, ax), n;
    int64_t r = replicas(l);
    axe_render_options o;
    axe_render_buf out;
    axe_diag d;
    axe_status st;
    char buf[512];
    axe_print_layout(l, buf, sizeof buf);
    rb_grid(&o, rows, cols);
    o.format = AXE_RENDER_SVG;
    o.color_by = color;
    axe_render_buf_init(&out, NULL, NULL);
    st = axe_render_layout(&o, l, &out, &d);
    if (st == AXE_ERR_INVALID && absent(l, rows * cols, color))
        return; /* no point has the axis: nothing to color by */
    TL_CHECK(st == AXE_OK, "svg %s by %s: %s", buf, color, d.message);
    if (st != AXE_OK)
        return;
    n = read_bands(out.data, b, BANDS_MAX);
    TL_CHECK(n == rows * cols * r, "%s: %d bands, want %lld", buf, n,
             (long long)(rows * cols * r));
    for (int64_t k = 0; k < rows * cols && n == rows * cols * r; k++) {
        bool ok = stacked(b + k * r, r);
        for (int64_t p = 0; p < r && ok; p++)
            ok = band_ok(l, &b[k * r + p], k, p, color, ax, naxes);
        TL_CHECK(ok, "%s over [%lld,%lld] by %s: cell %lld band '%s' c%d", buf,
                 (long long)rows, (long long)cols, color, (long long)k,
                 b[k * r].label, b[k * r].slot);
        if (!ok)
            break;
    }
    axe_render_buf_free(&out);
}

static void test_bands_property(void)
{
    int checked = 0;
    for (int iter = 0; iter < 300; iter++) {
        axe_layout l = random_axe();
        const char *ax[64];
        int naxes = layout_axes(&l, ax);
        int64_t size, rows = 1;
        int cut = (int)tl_range(0, l.nshard);
        for (int i = 0; i < cut; i++)
            rows *= l.shard[i].extent;
        if (axe_layout_size(&l, NULL, &size) != AXE_OK ||
            size * replicas(&l) > BANDS_MAX)
            continue;
        check_bands(&l, rows, size / rows, ax[tl_range(0, naxes - 1)]);
        checked++;
    }
    TL_CHECK(checked > 200, "only %d random layouts drawn", checked);
}

/* Figure 2: cell (2,9) is warp 6 over warp 10, both lane 8, register 1. */
static void test_figure2(void)
{
    axe_layout l;
    axe_render_options o;
    axe_render_buf out;
    const char *s = "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + "
                    "R[2:4@warp] + 5@warp";
    static band b[256];
    int n;
    rb_must(axe_parse_layout(s, strlen(s), &l, NULL));
    rb_grid(&o, 8, 16);
    o.format = AXE_RENDER_SVG;
    o.color_by = "warp";
    axe_render_buf_init(&out, NULL, NULL);
    rb_must(axe_render_layout(&o, &l, &out, NULL));
    n = read_bands(out.data, b, 256);
    TL_CHECK(n == 256 && b[2 * 32 + 18].slot == 6 &&
                 strcmp(b[2 * 32 + 18].label, "l8 r1") == 0 &&
                 b[2 * 32 + 19].slot == 10 &&
                 strcmp(b[2 * 32 + 19].label, "l8 r1") == 0 &&
                 stacked(b + 2 * 32 + 18, 2),
             "figure 2 cell (2,9): %d bands, '%s' c%d / '%s' c%d", n,
             b[82].label, b[82].slot, b[83].label, b[83].slot);
    axe_render_buf_free(&out);
}

int main(void)
{
    tl_seed("test_render_bands", 20261125);
    test_bands_property();
    test_figure2();
    return tl_finish();
}
