/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tests of the render layer (include/axe/render.h): the numbers in the text
 * picture equal an independent evaluation on every cell (random CuTe
 * layouts against axe_cute_eval; random Axe layouts against the brute-force
 * D(x) + r + O of render_brute.h), TV pictures place every (t,v) once, bank
 * conflicts of known smem layouts, the cell limit, reasons for bad
 * requests, and allocation failure at every allocation of every view and
 * format (nothing leaks, the output is untouched). Seeded: AXE_TEST_SEED.
 */
#include <stdlib.h>

#include "axe/render.h"
#include "render_brute.h"
#include "testlib.h"

/* Stop on a failed setup step (test tables are trusted). */
static void must(axe_status st)
{
    if (st != AXE_OK) {
        fprintf(stderr, "test setup failed: %s\n", axe_status_name(st));
        exit(2);
    }
}

static axe_layout lay(const char *s)
{
    axe_layout l;
    must(axe_parse_layout(s, strlen(s), &l, NULL));
    return l;
}

/* ---- reading a text picture back ------------------------------------------
 */

/* The next table row at or after "*line" (a line holding "  |"): "*p" is
 * its first non-blank character, "*bar" its "  |" and "*end" its newline
 * (NULL on the last line); "*line" moves past it. False when none is left. */
static bool next_row(const char **line, const char **p, const char **bar,
                     const char **end)
{
    while (*line != NULL && **line != '\0') {
        *end = strchr(*line, '\n');
        *bar = strstr(*line, "  |");
        for (*p = *line; **p == ' ';)
            (*p)++;
        *line = *end != NULL ? *end + 1 : NULL;
        if (*bar != NULL && (*end == NULL || *bar < *end))
            return true;
    }
    return false;
}

/* The cell texts of the table in "text": cells[r * cols + c]; the count. */
static int read_cells(const char *text, char cells[][512], int max)
{
    int n = 0;
    const char *line = text, *p, *bar, *end;
    while (next_row(&line, &p, &bar, &end)) {
        for (p = bar + 3; p < end && *p != '\0';) {
            const char *q = strchr(p, '|');
            size_t len = (size_t)(q - p);
            while (len > 0 && p[0] == ' ')
                p++, len--;
            while (len > 0 && p[len - 1] == ' ')
                len--;
            if (n < max && len < 512) {
                memcpy(cells[n], p, len);
                cells[n][len] = '\0';
            }
            n++;
            p = q + 1;
        }
    }
    return n;
}

static char *render(const axe_render_options *o, const axe_layout *l,
                    axe_status *st)
{
    axe_render_buf b;
    axe_diag d;
    axe_render_buf_init(&b, NULL, NULL);
    *st = axe_render_layout(o, l, &b, &d);
    if (*st != AXE_OK)
        return NULL;
    return b.data;
}

/* ---- CuTe grids: every cell is axe_cute_eval(i + j*rows) --------------------
 */

static void check_cute_grid(const axe_cute_layout *c, int64_t rows,
                            int64_t cols)
{
    static char cells[4096][512];
    axe_render_options o;
    axe_layout l;
    axe_status st;
    char *text;
    int n, bad = 0;
    rb_grid(&o, rows, cols);
    o.colex = true;
    if (axe_layout_from_cute(c, &l, NULL) != AXE_OK)
        return;
    text = render(&o, &l, &st);
    TL_CHECK(st == AXE_OK, "render %s", tl_str(c));
    if (text == NULL)
        return;
    n = read_cells(text, cells, 4096);
    TL_CHECK(n == rows * cols, "%s: %d cells, want %lld", tl_str(c), n,
             (long long)(rows * cols));
    for (int64_t k = 0; k < n && k < 4096 && !bad; k++) {
        int64_t want = 0, i = k / cols, j = k % cols;
        if (axe_cute_eval(c, i + j * rows, &want) != AXE_OK)
            continue;
        bad = strtoll(cells[k], NULL, 10) != want;
        TL_CHECK(!bad, "%s cell (%lld,%lld) shows '%s', L = %lld", tl_str(c),
                 (long long)i, (long long)j, cells[k], (long long)want);
    }
    free(text);
}

static void test_cute_property(void)
{
    for (int iter = 0; iter < 300; iter++) {
        axe_cute_layout c = tl_random_layout(4, 2, 256, 40, 1), mode;
        int64_t size, rows;
        if (axe_cute_size(&c, &size) != AXE_OK || axe_cute_rank(&c) < 2 ||
            axe_cute_get(&c, 0, &mode) != AXE_OK ||
            axe_cute_size(&mode, &rows) != AXE_OK)
            continue;
        check_cute_grid(&c, rows, size / rows);
    }
}

/* ---- swizzled CuTe grids: every cell is Sw(off + inner(i + j*rows)) -------
 */

/* CuTe's Swizzle<B,M,S> for S >= B > 0, written out here: the B bits at
 * M + S xor-ed into the B bits at M. */
static int64_t swizzle(int b, int m, int s, int64_t x)
{
    return x ^ ((x >> s) & (((INT64_C(1) << b) - 1) << m));
}

/* The picture of "Sw<b,m,s> o off o inner" over its default grid. */
static void check_swizzled_grid(const axe_cute_layout *inner, int b, int m,
                                int s, int64_t off)
{
    static char cells[4096][512];
    char text[600];
    axe_cute_layout mode;
    axe_cute_object c;
    axe_render_options o;
    axe_layout l;
    axe_status st;
    int64_t rows, size;
    char *pic;
    int n, bad = 0;
    snprintf(text, sizeof text, "Sw<%d,%d,%d> o %lld o %s", b, m, s,
             (long long)off, tl_str(inner));
    if (axe_cute_size(inner, &size) != AXE_OK || axe_cute_rank(inner) < 2 ||
        axe_cute_get(inner, 0, &mode) != AXE_OK ||
        axe_cute_size(&mode, &rows) != AXE_OK)
        return;
    must(axe_parse_cute(text, strlen(text), &c, NULL));
    TL_CHECK(c.kind == AXE_CUTE_KIND_COMPOSED, "%s parses as composed", text);
    must(axe_layout_from_cute_composed(&c.composed, &l, NULL));
    rb_grid(&o, rows, size / rows);
    o.colex = true;
    pic = render(&o, &l, &st);
    TL_CHECK(st == AXE_OK, "render %s", text);
    if (pic == NULL)
        return;
    n = read_cells(pic, cells, 4096);
    TL_CHECK(n == size, "%s: %d cells", text, n);
    for (int64_t k = 0; k < n && k < 4096 && !bad; k++) {
        int64_t i = k / (size / rows), j = k % (size / rows), x = 0;
        must(axe_cute_eval(inner, i + j * rows, &x));
        bad = strtoll(cells[k], NULL, 10) != swizzle(b, m, s, off + x);
        TL_CHECK(!bad, "%s cell (%lld,%lld) shows '%s', want %lld", text,
                 (long long)i, (long long)j, cells[k],
                 (long long)swizzle(b, m, s, off + x));
    }
    free(pic);
}

static void test_swizzled_property(void)
{
    for (int iter = 0; iter < 200; iter++) {
        axe_cute_layout inner = tl_random_layout(4, 2, 256, 40, 0);
        int b = (int)tl_range(1, 3), m = (int)tl_range(0, 3);
        int s = b + (int)tl_range(0, 2);
        check_swizzled_grid(&inner, b, m, s, tl_range(0, 63));
    }
}

/* ---- Axe grids: every cell is the set D(x) + r + O, by brute force ----------
 */

/* The axis an abbreviation names, from the legend "axes: w = warp, ...". */
static const char *axis_of(const char *text, const char *abbr, size_t len)
{
    static char name[32];
    const char *p = strstr(text, "axes: ");
    if (p == NULL)
        return NULL;
    for (p += 6; *p != '\n' && *p != '\0';) {
        const char *eq = strstr(p, " = "), *end = eq + 3;
        while (*end != ',' && *end != '\n')
            end++;
        if ((size_t)(eq - p) == len && strncmp(p, abbr, len) == 0) {
            snprintf(name, sizeof name, "%.*s", (int)(end - eq - 3), eq + 3);
            return name;
        }
        p = *end == ',' ? end + 2 : end;
    }
    return NULL;
}

/* The axis of a picture that shows one ("values on m"), or NULL. */
static const char *single_axis(const char *text)
{
    static char name[32];
    const char *p = strstr(text, "values on ");
    if (p == NULL)
        return NULL;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(p + 10, "\n"), p + 10);
    return name;
}

/* Check one entry "w5 l0 m3" of cell x against point p; single: bare. */
static bool entry_ok(const axe_layout *l, const char *text, const char *e,
                     int64_t x, int64_t p, const char *single)
{
    while (*e != '\0' && *e != '/') {
        const char *t = e, *name = single;
        char *end;
        int64_t v;
        while ((*e < '0' || *e > '9') && *e != '-')
            e++;
        if (single == NULL)
            name = axis_of(text, t, (size_t)(e - t));
        v = strtoll(e, &end, 10);
        if (name == NULL || v != brute(l, x, p, name))
            return false;
        e = end;
        while (*e == ' ')
            e++;
    }
    return true;
}

/* The row labels of the table in "text" (the text before "  |" on each
 * row line, trimmed); the count. */
static int read_row_labels(const char *text, char labels[][64], int max)
{
    int n = 0;
    const char *line = text, *p, *bar, *end;
    while (next_row(&line, &p, &bar, &end)) {
        if (p < bar) {
            if (n < max)
                snprintf(labels[n], 64, "%.*s", (int)(bar - p), p);
            n++;
        }
    }
    return n;
}

/* Row "r" of a grid folding dims 0 .. n-2 of "shape" is labelled with
 * their row-major coordinate "(a,b)" (one dim: the index itself). */
static bool row_labels_ok(const char *text, const int64_t *shape, int n,
                          int64_t rows)
{
    static char labels[4096][64];
    int got = read_row_labels(text, labels, 4096);
    if (got != rows)
        return false;
    for (int64_t r = 0; r < rows && r < 4096; r++) {
        char want[64] = "";
        int64_t x = r, crd[AXE_LAYOUT_MAX_DIMS];
        for (int d = n - 2; d >= 0; d--) {
            crd[d] = x % shape[d];
            x /= shape[d];
        }
        for (int d = 0; d < n - 1 && n > 2; d++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld",
                     d == 0 ? "(" : ",", (long long)crd[d]);
        if (n > 2)
            strcat(want, ")");
        else
            snprintf(want, sizeof want, "%lld", (long long)r);
        if (strcmp(labels[r], want) != 0)
            return false;
    }
    return true;
}

/* Every cell of the picture of "l" over "shape" ("n" dims, folded into
 * rows row-major) lists the brute-force set of its row-major index, and
 * folded rows are labelled with their coordinates. */
static void check_axe_grid(const axe_layout *l, const int64_t *shape, int n)
{
    static char cells[4096][512];
    axe_render_options o;
    axe_status st;
    char *text, buf[512];
    int64_t size = 1, rows;
    int got;
    axe_print_layout(l, buf, sizeof buf);
    axe_render_options_init(&o);
    o.ndims = n;
    for (int d = 0; d < n; d++)
        size *= o.shape[d] = shape[d];
    rows = size / shape[n - 1];
    text = render(&o, l, &st);
    TL_CHECK(st == AXE_OK, "render %s", buf);
    if (text == NULL)
        return;
    got = read_cells(text, cells, 4096);
    TL_CHECK(got == size, "%s: %d cells", buf, got);
    TL_CHECK(n < 2 || row_labels_ok(text, shape, n, rows),
             "%s over %d dims: row labels are not the coordinates", buf, n);
    for (int64_t k = 0; k < got && k < 4096; k++) {
        const char *e = cells[k];
        bool ok = true;
        for (int64_t p = 0; p < replicas(l) && ok; p++) {
            ok = entry_ok(l, text, e, k, p, single_axis(text));
            e = strchr(e, '/');
            ok = ok && (e != NULL) == (p + 1 < replicas(l));
            e = e != NULL ? e + 2 : "";
        }
        TL_CHECK(ok, "%s over %d dims: cell %lld shows '%s'", buf, n,
                 (long long)k, cells[k]);
        if (!ok)
            break;
    }
    free(text);
}

/* Random layouts over 2-D shapes (a cut of the shard list) and 3-D
 * shapes (two cuts). */
static void test_axe_property(void)
{
    for (int iter = 0; iter < 300; iter++) {
        axe_layout l = random_axe();
        int64_t shape[3] = {1, 1, 1}, size;
        int cut = (int)tl_range(0, l.nshard), cut2, n = 2 + iter % 2;
        cut2 = n == 3 ? (int)tl_range(cut, l.nshard) : l.nshard;
        for (int i = 0; i < l.nshard; i++)
            shape[i < cut ? 0 : i < cut2 ? 1 : 2] *= l.shard[i].extent;
        if (axe_layout_size(&l, NULL, &size) != AXE_OK)
            continue;
        if (n == 2)
            shape[1] = size / shape[0];
        check_axe_grid(&l, shape, n);
    }
}

/* ---- physical pictures: every point of every element once
 * --------------------- */

/* How often each logical coordinate occurs in the physical picture of "l"
 * over "shape" ("n" dims; entries "(a,b,c)", or bare indices for one
 * dim): each must occur once per replica point. */
static void check_physical(const axe_layout *l, const int64_t *shape, int n)
{
    static char cells[4096][512];
    static int64_t count[4096];
    axe_render_options o;
    axe_status st;
    char *text, buf[512];
    int64_t size = 1;
    int got, bad = 0;
    axe_print_layout(l, buf, sizeof buf);
    axe_render_options_init(&o);
    o.ndims = n;
    for (int d = 0; d < n; d++)
        size *= o.shape[d] = shape[d];
    o.view = AXE_RENDER_PHYSICAL;
    text = render(&o, l, &st);
    TL_CHECK(st == AXE_OK, "physical %s: %s", buf, axe_status_name(st));
    if (text == NULL)
        return;
    memset(count, 0, sizeof count);
    got = read_cells(text, cells, 4096);
    for (int k = 0; k < got && k < 4096; k++)
        for (const char *p = cells[k]; *p != '\0' && !bad;) {
            bool tuple = *p == '(';
            char *end;
            int64_t x = 0;
            int parts = 0;
            p += tuple;
            do {
                int64_t v = strtoll(p, &end, 10);
                x = parts < n ? x * shape[parts] + v : x;
                parts++;
                p = end + (*end == ',');
            } while (tuple && *end == ',');
            bad = parts != (tuple ? n : 1) || (!tuple && n > 1) || x < 0 ||
                  x >= size;
            if (!bad && x < 4096)
                count[x]++;
            p = end + strspn(end, ") /");
        }
    for (int64_t k = 0; k < size && k < 4096 && !bad; k++)
        bad = count[k] != replicas(l);
    TL_CHECK(!bad, "physical %s over %d dims: coordinates miscounted", buf, n);
    free(text);
}

static void test_physical(void)
{
    axe_render_options o;
    axe_layout fig2 = lay("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + "
                          "R[2:4@warp] + 5@warp");
    axe_status st;
    char *text;
    for (int iter = 0; iter < 200; iter++) {
        axe_layout l = random_axe();
        int64_t size, shape[3] = {l.shard[0].extent, 1, 1};
        int n = l.nshard > 1 ? 2 + iter % 2 : 1;
        for (int i = 1; i < l.nshard; i++)
            shape[n == 3 && i == 1 ? 1 : n - 1] *= l.shard[i].extent;
        if (axe_layout_size(&l, NULL, &size) == AXE_OK)
            check_physical(&l, shape, n);
    }
    rb_grid(&o, 8, 16);
    o.view = AXE_RENDER_PHYSICAL;
    text = render(&o, &fig2, &st);
    TL_CHECK(text != NULL && strstr(text, "rows: warp lane, columns: reg") &&
                 strstr(text, "w6 l8  |  (2,8) |  (2,9) |") &&
                 strstr(text, "w10 l8  |  (2,8) |  (2,9) |"),
             "Figure 2 from the hardware side: lane 8 of warps 6 and 10 "
             "holds (2,8) in reg 0 and (2,9) in reg 1");
    free(text);
    fig2 = lay("S[(2,8,8):(8@F,1@P,1@F)]");
    o.ndims = 3;
    o.shape[0] = 2;
    o.shape[1] = o.shape[2] = 8;
    text = render(&o, &fig2, &st);
    TL_CHECK(text != NULL && strstr(text, "rows: P, columns: F") &&
                 strstr(text, "(0,0,7) | (1,0,0) | (1,0,1) |"),
             "Trainium SBUF: partitions on the rows, element (1,0,0) at P "
             "0, F 8");
    free(text);
}

/* ---- TV pictures: every (t,v) exactly once, in the cell of tv(t,v) ----------
 */

static void test_tv(void)
{
    static char cells[512][512];
    axe_cute_layout tv = tl_layout("((4,8),(2,2)):((32,1),(16,8))");
    axe_render_options o;
    axe_render_buf b;
    int n, placed = 0;
    rb_grid(&o, 8, 16);
    axe_render_buf_init(&b, NULL, NULL);
    TL_CHECK(axe_render_tv(&o, &tv, &b, NULL) == AXE_OK, "TV render");
    n = read_cells(b.data != NULL ? b.data : "", cells, 512);
    TL_CHECK(n == 128, "TV cells %d", n);
    for (int64_t x = 0; x < 128 && n == 128; x++) {
        int64_t idx = 0;
        char want[32];
        if (axe_cute_eval(&tv, x, &idx) != AXE_OK)
            continue;
        snprintf(want, sizeof want, "T%lld V%lld", (long long)(x % 32),
                 (long long)(x / 32));
        placed += strcmp(cells[(idx % 8) * 16 + idx / 8], want) == 0;
    }
    TL_CHECK(placed == 128, "TV: %d of 128 pairs in their cells", placed);
    axe_render_buf_free(&b);
    o.shape[1] = 8;
    TL_CHECK(axe_render_tv(&o, &tv, &b, NULL) == AXE_ERR_DOMAIN,
             "TV index outside the tile");
    o.shape[1] = 16;
    o.format = AXE_RENDER_ANSI;
    o.color_by = "V";
    TL_CHECK(axe_render_tv(&o, &tv, &b, NULL) == AXE_OK &&
                 strstr(b.data, "colors: V") != NULL,
             "TV colored by value");
    axe_render_buf_free(&b);
    o.color_by = "lane";
    TL_CHECK(axe_render_tv(&o, &tv, &b, NULL) == AXE_ERR_INVALID && b.len == 0,
             "TV colored by an axis it does not have");
}

/* ---- banks: the conflicts of a column read, plain and swizzled -------------
 */

static const char *banks_text(const char *layout, axe_render_buf *b)
{
    axe_cute_object c;
    axe_render_options o;
    axe_layout l;
    axe_render_options_init(&o);
    o.view = AXE_RENDER_BANKS;
    o.colex = true;
    o.ndims = 2;
    o.shape[0] = 8;
    o.shape[1] = 64;
    o.has_access = true;
    o.access = tl_layout("8:1");
    axe_render_buf_init(b, NULL, NULL);
    if (axe_parse_cute(layout, strlen(layout), &c, NULL) != AXE_OK ||
        (c.kind == AXE_CUTE_KIND_LAYOUT
             ? axe_layout_from_cute(&c.layout, &l, NULL)
             : axe_layout_from_cute_composed(&c.composed, &l, NULL)) !=
            AXE_OK ||
        axe_render_layout(&o, &l, b, NULL) != AXE_OK)
        return "";
    return b->data;
}

/* Row i of an 8x64 fp16 tile starts at word 32 i: bank 0 for every row
 * (8-way); Sw<3,3,3> moves row i's first element to word 36 i, bank 4 i. */
static void test_banks(void)
{
    axe_render_buf b;
    const char *t = banks_text("(8,64):(64,1)", &b);
    TL_CHECK(strstr(t, "8 threads read; 8-way bank conflict") != NULL &&
                 strstr(t, "bank 0: 8 words, threads 0 1 2 3 4 5 6 7") !=
                     NULL &&
                 strstr(t, "a64 b0 t1!") != NULL,
             "plain column read: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_text("Sw<3,3,3> o 0 o (8,64):(64,1)", &b);
    TL_CHECK(strstr(t, "8 threads read; no bank conflict") != NULL &&
                 strstr(t, "a72 b4 t1 ") != NULL,
             "swizzled column read: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
}

/* ---- exact integers on the HTML page --------------------------------------
 */

/* Values past 2^53 - 1 (a JavaScript number would round 2^53 + 1 to 2^53)
 * are written as strings of their digits; smaller ones stay numbers. */
static void test_html_exact(void)
{
    axe_layout l = lay("S[2:1] + 9007199254740990");
    axe_render_options o;
    axe_status st;
    char *text;
    axe_render_options_init(&o);
    o.format = AXE_RENDER_HTML;
    text = render(&o, &l, &st);
    TL_CHECK(text != NULL && strstr(text, "[[9007199254740990]]") != NULL &&
                 strstr(text, "[[9007199254740991]]") != NULL,
             "2^53 - 2 and 2^53 - 1 are JSON numbers");
    free(text);
    l = lay("S[2:1] + 9007199254740992");
    text = render(&o, &l, &st);
    TL_CHECK(text != NULL && strstr(text, "[[\"9007199254740992\"]]") != NULL &&
                 strstr(text, "[[\"9007199254740993\"]]") != NULL,
             "2^53 and 2^53 + 1 are exact strings");
    free(text);
    l = lay("S[2:-1] + -9007199254740992");
    text = render(&o, &l, &st);
    TL_CHECK(text != NULL &&
                 strstr(text, "[[\"-9007199254740992\"]]") != NULL &&
                 strstr(text, "[[\"-9007199254740993\"]]") != NULL,
             "-2^53 and -2^53 - 1 are exact strings");
    free(text);
}

/* The TikZ title: every TeX special and < > is \charN{} (the typewriter
 * font's own glyph), whitespace a space, any other non-printable byte '?':
 * no byte of a title can break pdflatex (tests/tex_render.sh compiles). */
static void test_tex_title(void)
{
    static const char want[] =
        "{a\\char95{}b\\char60{}3\\char62{} \\char123{}x\\char125{} "
        "\\char35{}\\char36{}\\char37{}\\char38{}\\char92{}\\char94{}"
        "\\char126{} ??.??.};\n";
    axe_layout l = lay("S[2:1]");
    axe_render_options o;
    axe_status st;
    char *text;
    axe_render_options_init(&o);
    o.format = AXE_RENDER_TEX;
    o.title = "a_b<3>\t{x}\n#$%&\\^~\r\f\x7f.\xc3\xa9.";
    text = render(&o, &l, &st);
    TL_CHECK(text != NULL && strstr(text, want) != NULL,
             "the TikZ title escapes every special: %s", text ? text : "");
    free(text);
}

/* The bank view of CuTe layout "layout" over "n" dims "shape" (0: one
 * row) with "eb"-byte elements and access "access" (NULL: thread t reads
 * index t); "" when it fails (the status in "*st"). */
static const char *banks_of(const char *layout, int n, int64_t s0, int64_t s1,
                            int64_t eb, const char *access, axe_render_buf *b,
                            axe_status *st)
{
    axe_cute_object c;
    axe_render_options o;
    axe_layout l;
    axe_render_options_init(&o);
    o.view = AXE_RENDER_BANKS;
    o.colex = true;
    o.ndims = n;
    o.shape[0] = s0;
    o.shape[1] = s1;
    o.elem_bytes = eb;
    o.has_access = access != NULL;
    if (access != NULL)
        o.access = tl_layout(access);
    axe_render_buf_init(b, NULL, NULL);
    must(axe_parse_cute(layout, strlen(layout), &c, NULL));
    must(c.kind == AXE_CUTE_KIND_LAYOUT
             ? axe_layout_from_cute(&c.layout, &l, NULL)
             : axe_layout_from_cute_composed(&c.composed, &l, NULL));
    *st = axe_render_layout(&o, &l, b, NULL);
    return *st == AXE_OK ? b->data : "";
}

/* Worked by hand. 2-byte elements at addresses 0, -1, 2, 1, 4, 3: byte
 * -2 is in word -1, bank 31. 8-byte elements (LDS.64) are served in 2
 * phases of 16 threads, 16-byte ones (LDS.128, ldmatrix) in 4 phases of
 * 8; thread t of 32:2 reads words 4t, 4t+1 (8 bytes) or 8t .. 8t+3 (16
 * bytes), so t and t+8 (t+4) share banks within a phase: 2-way, 2
 * wavefronts a phase. ldmatrix rows of an 8x8 tile of 16-byte vectors
 * start at word 32t (banks 0-3 for all 8 rows: 8-way); Sw<3,0,3> moves
 * row t to vector 9t, word 36t, banks 4t .. 4t+3: no conflict. */
static void test_banks_wide(void)
{
    axe_render_buf b;
    axe_status st;
    const char *t = banks_of("(2,3):(-1,2)", 2, 2, 3, 2, NULL, &b, &st);
    TL_CHECK(strstr(t, "a-1 b31 t1 |") != NULL &&
                 strstr(t, "6 threads read; no bank conflict\n") != NULL,
             "negative address: %s", t);
    axe_render_buf_free(&b);
    t = banks_of("32:1", 0, 0, 0, 8, NULL, &b, &st);
    TL_CHECK(strstr(t, "32 threads read 8 bytes each in phases of 16 "
                       "threads (2 phases); no bank conflict (2 "
                       "wavefronts)\n") != NULL,
             "LDS.64 contiguous: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("32:2", 0, 0, 0, 8, NULL, &b, &st);
    TL_CHECK(strstr(t, "; 2-way bank conflict (4 wavefronts)\n") != NULL &&
                 strstr(t, "phase 0 bank 0: 2 words, threads 0 8\n") &&
                 strstr(t, "phase 1 bank 29: 2 words, threads 23 31\n") &&
                 strstr(t, "phase 0 bank 2:") == NULL,
             "LDS.64 stride 2: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("32:1", 0, 0, 0, 16, NULL, &b, &st);
    TL_CHECK(strstr(t, "(4 phases); no bank conflict (4 wavefronts)\n") != NULL,
             "LDS.128 contiguous: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("32:2", 0, 0, 0, 16, NULL, &b, &st);
    TL_CHECK(strstr(t, "; 2-way bank conflict (8 wavefronts)\n") != NULL &&
                 strstr(t, "phase 3 bank 27: 2 words, threads 27 31\n"),
             "LDS.128 stride 2: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("(8,8):(8,1)", 2, 8, 8, 16, "8:1", &b, &st);
    TL_CHECK(strstr(t, "8-way bank conflict (8 wavefronts)\n") != NULL &&
                 strstr(t, "phase 0 bank 3: 8 words, threads 0 1 2 3 4 5 "
                           "6 7\n") != NULL &&
                 strstr(t, "a8 b0 t1!") != NULL,
             "ldmatrix rows: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("Sw<3,0,3> o 0 o (8,8):(8,1)", 2, 8, 8, 16, "8:1", &b, &st);
    TL_CHECK(strstr(t, "no bank conflict (1 wavefront)\n") != NULL &&
                 strstr(t, "a9 b4 t1 |") != NULL,
             "swizzled ldmatrix rows: %s", strstr(t, "threads read"));
    axe_render_buf_free(&b);
    t = banks_of("32:1", 0, 0, 0, 32, NULL, &b, &st);
    TL_CHECK(st == AXE_ERR_INVALID, "32-byte elements");
    axe_render_buf_free(&b);
    t = banks_of("32:1", 0, 0, 0, 12, NULL, &b, &st);
    TL_CHECK(st == AXE_ERR_INVALID, "12-byte elements");
    axe_render_buf_free(&b);
}

/* ---- coloring by an axis under its other spelling ---------------------------
 */

/* lane and laneid (warp and warpid) are one axis: --color-by either
 * spelling colors by it, and the legend names the picture's spelling. */
static void test_color_by_spelling(void)
{
    static const struct {
        const char *l, *by, *legend;
    } rows[] = {
        {"S[(2,4):(1@lane,1@warp)]", "laneid", "colors: lane "},
        {"S[(2,4):(1@lane,1@warp)]", "warpid", "colors: warp "},
        {"S[(2,4):(1@laneid,1@warpid)]", "lane", "colors: laneid "},
        {"S[(2,4):(1@laneid,1@warpid)]", "warp", "colors: warpid "},
        {"S[(2,4):(1@lane,1@warp)]", "lane", "colors: lane "},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        axe_layout l = lay(rows[i].l);
        axe_render_options o;
        axe_render_buf b;
        axe_diag d = {0};
        axe_status st;
        axe_render_options_init(&o);
        axe_render_buf_init(&b, NULL, NULL);
        o.format = AXE_RENDER_ANSI;
        o.color_by = rows[i].by;
        st = axe_render_layout(&o, &l, &b, &d);
        TL_CHECK(st == AXE_OK && strstr(b.data, rows[i].legend) != NULL,
                 "%s colored by %s: st %d %s, want '%s'", rows[i].l, rows[i].by,
                 st, d.message, rows[i].legend);
        axe_render_buf_free(&b);
    }
}

/* ---- refusals ---------------------------------------------------------------
 */

static void test_refusals(void)
{
    axe_layout l = lay("S[(512,512):(512,1)]"),
               warp = lay("S[(4,8):(8@laneid,1)]");
    axe_render_options o;
    axe_render_buf b;
    axe_diag d;
    axe_render_options_init(&o);
    axe_render_buf_init(&b, NULL, NULL);
    o.ndims = 2;
    o.shape[0] = o.shape[1] = 512;
    TL_CHECK(axe_render_layout(&o, &l, &b, &d) == AXE_ERR_CAPACITY &&
                 strstr(d.message, "slice") != NULL && b.len == 0,
             "too large: %s", d.message);
    l = lay("S[(256,256):(256,1)] + R[(4,2):(1@laneid,1@warpid)]");
    o.shape[0] = o.shape[1] = 256;
    TL_CHECK(axe_render_layout(&o, &l, &b, &d) == AXE_ERR_CAPACITY &&
                 strstr(d.message, "262144 points") != NULL &&
                 strstr(d.message, "axe slice") != NULL && b.len == 0,
             "too many points: %s", d.message);
    l = lay("S[(256,256):(256,1)] + R[4:1@gpu]");
    o.format = AXE_RENDER_HTML;
    TL_CHECK(axe_render_layout(&o, &l, &b, &d) == AXE_OK && b.len > 0 &&
                 strstr(b.data, "\"physical\":null") != NULL &&
                 strstr(b.data, "physical view is left out") != NULL,
             "HTML page without its too large physical view");
    axe_render_buf_free(&b);
    o.format = AXE_RENDER_TEXT;
    l = lay("S[(2,2):(2,1)] + R[65:1@gpu]");
    o.shape[0] = o.shape[1] = 2;
    TL_CHECK(axe_render_layout(&o, &l, &b, &d) == AXE_OK && b.len > 0 &&
                 strstr(b.data, "m3 g64 |") != NULL,
             "65 points in a cell: %s", d.message);
    axe_render_buf_free(&b);
    o.shape[0] = 4;
    o.shape[1] = 8;
    o.color_by = "warpid";
    TL_CHECK(axe_render_layout(&o, &warp, &b, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "laneid, m") != NULL,
             "bad color axis: %s", d.message);
    o.color_by = NULL;
    o.view = AXE_RENDER_BANKS;
    TL_CHECK(axe_render_layout(&o, &warp, &b, &d) == AXE_ERR_UNSUPPORTED,
             "banks of a thread layout");
    for (int r = 2; r <= 4; r += 2) {
        char text[64];
        snprintf(text, sizeof text, "S[(4,8):(8,1)] + R[%d:1@warpid]", r);
        l = lay(text);
        TL_CHECK(axe_render_layout(&o, &l, &b, &d) == AXE_ERR_UNSUPPORTED &&
                     strstr(d.message, "has replicas (try --as physical)"),
                 "banks of %s: %s", text, d.message);
    }
    o.view = AXE_RENDER_GRID;
    o.shape[1] = 4;
    TL_CHECK(axe_render_layout(&o, &warp, &b, &d) == AXE_ERR_INCOMPATIBLE,
             "shape of another size");
    TL_CHECK(b.len == 0, "failures write nothing");
}

/* ---- allocation failure -----------------------------------------------------
 */

static int alloc_budget, alloc_live;

static void *failing_alloc(void *ud, void *p, size_t old, size_t size)
{
    (void)ud;
    (void)old;
    if (size == 0) {
        alloc_live -= p != NULL;
        free(p);
        return NULL;
    }
    if (alloc_budget-- <= 0)
        return NULL;
    alloc_live += p == NULL;
    return realloc(p, size);
}

/* Every allocation of one render fails in turn: NO_MEMORY, nothing kept. */
static void alloc_sweep(axe_render_options *o, const axe_layout *l)
{
    axe_render_buf b;
    axe_status st = AXE_ERR_NO_MEMORY;
    int n = 0;
    o->alloc = failing_alloc;
    for (; n < 10000 && st == AXE_ERR_NO_MEMORY; n++) {
        alloc_budget = n;
        alloc_live = 0;
        axe_render_buf_init(&b, failing_alloc, NULL);
        st = axe_render_layout(o, l, &b, NULL);
        TL_CHECK(st == AXE_OK || (st == AXE_ERR_NO_MEMORY && b.len == 0),
                 "allocation %d fails: %s", n, axe_status_name(st));
        axe_render_buf_free(&b);
        TL_CHECK(alloc_live == 0, "allocation %d fails: %d blocks leak", n,
                 alloc_live);
    }
    TL_CHECK(st == AXE_OK && n > 1, "view %d format %d never succeeds",
             (int)o->view, (int)o->format);
    o->alloc = NULL;
}

static void test_alloc_failure(void)
{
    axe_layout l = lay("S[(2,4,2):(1@warpid,1@laneid,1)] + R[2:2@warpid]");
    axe_render_options o;
    rb_grid(&o, 4, 4);
    for (int f = AXE_RENDER_TEXT; f <= AXE_RENDER_HTML; f++) {
        o.format = (axe_render_format)f;
        o.view = AXE_RENDER_GRID;
        alloc_sweep(&o, &l);
        o.view = AXE_RENDER_PHYSICAL;
        alloc_sweep(&o, &l);
    }
    l = lay("S[(4,4):(4,1)]");
    o.view = AXE_RENDER_BANKS;
    alloc_sweep(&o, &l);
}

int main(void)
{
    tl_seed("test_render", 20261125);
    test_cute_property();
    test_swizzled_property();
    test_axe_property();
    test_physical();
    test_tv();
    test_banks();
    test_banks_wide();
    test_html_exact();
    test_tex_title();
    test_color_by_spelling();
    test_refusals();
    test_alloc_failure();
    return tl_finish();
}
