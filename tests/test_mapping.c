/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Mapping expressions: table rows in the notation (maps, sizes, prints,
 * normal forms, rejected texts with their offsets) and laws on seeded
 * random expressions (AXE_TEST_SEED replays): normalization preserves the
 * map at every position (overshoots included) and is idempotent; the
 * printed m![...] form parses back to the same tree; equivalence agrees
 * with position-by-position comparison (against the normal form, unrelated
 * expressions and mutations: a pair's sides swapped, a padding kind
 * changed); a conversion to an Axe layout puts every position p in L(x) of
 * the index x it holds, and the layout's points are exactly the |E|
 * positions; with top padding, a conversion with holes comes back to the
 * same cells. Tables at sizes above the evaluation limit check that spec
 * §8's identities are decided there too.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/mapping.h"
#include "axe/notation_mapping.h"
#include "mapping_internal.h"
#include "testlib.h"

#define RANDOM_CASES 400

static axe_mapping_axes axes_of(const char *decl)
{
    axe_mapping_axes a;
    axe_diag d;
    if (axe_parse_mapping_axes(decl, strlen(decl), &a, &d) != AXE_OK) {
        fprintf(stderr, "bad table row %s: %s\n", decl, d.message);
        exit(2);
    }
    return a;
}

static axe_status parse(const char *decl, const char *text, axe_mapping *m,
                        axe_diag *d)
{
    axe_mapping_axes a = axes_of(decl);
    axe_mapping_env env = {&a, 0, NULL, NULL, 0, NULL, NULL, false};
    return axe_parse_mapping(text, strlen(text), &env, m, d);
}

static const char *cell_text(const axe_mapping *m, const axe_mapping_cell *c)
{
    static char buf[256];
    uint32_t mask = 0;
    for (int k = 0; k < m->axes.n; k++)
        if (axe_mapping_uses_axis(m, axe_mapping_root(m), k))
            mask |= UINT32_C(1) << k;
    axe_print_mapping_cell(&m->axes, mask, c, buf, sizeof buf);
    return buf;
}

/* ---- tables ----------------------------------------------------------- */

static void table_map(void)
{
    static const struct {
        const char *axes, *expr;
        int64_t i;
        const char *cell;
    } rows[] = {
        {"axes![A = 8, B = 512]", "m![A, B]", 679, "{A: 1, B: 167}"},
        {"axes![B = 512]", "m![B / 64, B % 32, B / 32 % 2]", 67, "{B: 97}"},
        {"axes![C = 13, D = 61]", "m![C, D # 64]", 63, "padding(top)"},
        {"axes![C = 13, D = 61]", "m![C, D #{!} 64]", 62, "padding(bottom)"},
        {"axes![C = 13, D = 61]", "m![C, D #{0} 64]", 832, "out of bounds"},
        {"axes![A = 2, B = 6]", "m![[A, B] / 4, [A, B] % 4]", 7,
         "{A: 1, B: 1}"},
        {"axes![R = 14]", "m![R # 16 / 4, R # 16 % 4]", 15, "padding(top)"},
        {"axes![A = 4]", "m![2, A]", 6, "{A: 2}"},
        {"axes![A = 8]", "m![A = 2 # 4]", 3, "padding(top)"},
        {"axes![]", "m![1]", 0, "{}"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping m;
        axe_mapping_cell c;
        axe_diag d;
        axe_status st = parse(rows[r].axes, rows[r].expr, &m, &d);
        if (st == AXE_OK)
            st = axe_mapping_map(&m, rows[r].i, &c, &d);
        TL_CHECK(st == AXE_OK && strcmp(cell_text(&m, &c), rows[r].cell) == 0,
                 "%s %s at %" PRId64 ": got %s, expected %s", rows[r].axes,
                 rows[r].expr, rows[r].i,
                 st == AXE_OK ? cell_text(&m, &c) : d.message, rows[r].cell);
    }
}

static void table_normalize(void)
{
    static const struct {
        const char *axes, *expr, *norm;
    } rows[] = {
        {"axes![B = 512]", "m![B / 64, B % 64]", "m![B]"},
        {"axes![A = 8, B = 16]", "m![1, [A, B], 1]", "m![A, B]"},
        {"axes![A = 8, B = 16]", "m![[A, B] / 4, [A, B] % 4]", "m![A, B]"},
        {"axes![A = 8]", "m![A / 1 # 8 = 8]", "m![A]"},
        {"axes![B = 512]", "m![B % 64 / 8]", "m![B / 8 % 8]"},
        {"axes![B = 512]", "m![B / 64, B / 32 % 2, B % 32]", "m![B]"},
        {"axes![A = 8]", "m![A % 1]", "m![1]"},
        {"axes![A = 8]", "m![A, A]", "m![A, A]"},
        {"axes![A = 4, B = 8]", "m![[A, B] % 8]", "m![B]"},
        {"axes![A = 4, B = 8]", "m![[A, B] / 16]", "m![A / 2]"},
        {"axes![A = 4, B = 8]", "m![[A, B] / 2 % 4]", "m![B / 2]"},
        {"axes![A = 4, B = 8, C = 2]", "m![[A, [B, C]] % 16]", "m![B, C]"},
        {"axes![A = 4, B = 8]", "m![[A, B] / 4, [A, B] % 4]", "m![A, B]"},
        /* resize over padding keeps no padded cell: the operand itself */
        {"axes![A = 3, B = 6]", "m![B, A # 5 = 3]", "m![B, A]"},
        {"axes![A = 3]", "m![A # 5 = 2]", "m![A = 2]"},
        {"axes![A = 3]", "m![A # 5 = 4]", "m![A # 4]"},
        {"axes![A = 3]", "m![A #{0} 5 = 4]", "m![A #{0} 4]"},
        {"axes![A = 8]", "m![A = 4 = 2]", "m![A = 2]"},
        {"axes![A = 3]", "m![A # 5 # 9 = 3]", "m![A]"},
        /* a chain or resize of size 1 is the zero index: the identity */
        {"axes![A = 3, B = 6, C = 5]", "m![[C = 2 / 2, A, B], C]",
         "m![A, B, C]"},
        {"axes![C = 5]", "m![C = 2 / 2]", "m![1]"},
        {"axes![A = 3, B = 6]", "m![[A, B] / 18, B]", "m![B]"},
        {"axes![A = 8]", "m![A = 1, A]", "m![A]"},
        /* factor split: chains over a composite at its factor boundaries */
        {"axes![A = 8, B = 512]", "m![[A, B] % 512, [A, B] / 512]", "m![B, A]"},
        {"axes![A = 8, B = 512]", "m![[A, B] % 4, [A, B] / 4]",
         "m![B % 4, A, B / 4]"},
        {"axes![A = 8, B = 512]", "m![[A, 2, B] % 1024, [A, 2, B] / 1024]",
         "m![2, B, A]"},
        {"axes![A = 8, B = 512]", "m![[A, B / 2] % 16, [A, B / 2] / 16, B % 2]",
         "m![B / 2 % 16, A, B / 32, B % 2]"},
        /* not split: digits that overlap, or cut a factor unevenly */
        {"axes![A = 4, B = 8]", "m![[A, B] % 8, [A, B] % 4]",
         "m![(A, B) % 8, (A, B) % 4]"},
        {"axes![A = 4, B = 6]", "m![[A, B] % 4, [A, B] / 4]",
         "m![(A, B) % 4, (A, B) / 4]"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping m, n;
        axe_diag d;
        char text[256] = "";
        axe_status st = parse(rows[r].axes, rows[r].expr, &m, &d);
        if (st == AXE_OK)
            st = axe_mapping_normalize(&m, &n, &d);
        if (st == AXE_OK)
            axe_print_mapping_macro(&n, text, sizeof text);
        TL_CHECK(st == AXE_OK && strcmp(text, rows[r].norm) == 0,
                 "normalize %s: got %s, expected %s", rows[r].expr,
                 st == AXE_OK ? text : d.message, rows[r].norm);
    }
}

/* Spec §8's identities and non-examples at sizes above the evaluation
 * limit: decided exactly by normal forms and layouts, never CAPACITY. */
static void table_equivalent_large(void)
{
    static const char *const ax = "axes![A = 4, B = 33554432]";
    static const struct {
        const char *a, *b;
        bool eq;
    } rows[] = {
        {"m![[A, B] % 33554432]", "m![B]", true},
        {"m![[A, B] / 33554432]", "m![A]", true},
        {"m![[A, B] / 33554432]", "m![B / 33554432]", false},
        {"m![A % 1, B]", "m![B]", true},
        {"m![A % 1, B]", "m![B, A % 1, 1]", true},
        {"m![A % 1, B, 4]", "m![B, A]", false},
        {"m![A, B # 33554440]", "m![A, B # 33554440]", true},
        {"m![A, [B / 2, B % 2] #{0} 33554440]", "m![A, B #{0} 33554440]", true},
        {"m![A, B # 33554440]", "m![[A, 1] = 2, B # 33554440]", false},
        {"m![B # 33554433]", "m![B # 33554433]", true},
        {"m![B # 33554433]", "m![B #{0} 33554433]", false},
        {"m![[B / 64, B % 64] # 33554440]", "m![B # 33554440]", true},
        {"m![[B, 1] # 33554440]", "m![[1, B] # 33554440]", true},
        {"m![[B # 33554433] / 1]", "m![B # 33554433]", true},
        {"m![[B # 33554433] # 33554433]", "m![B # 33554433]", true},
        {"m![[B # 33554433] = 33554433]", "m![B # 33554433]", true},
        {"m![[B # 33554440] / 8, [B # 33554440] % 8]", "m![B # 33554440]",
         true},
        {"m![[A, B # 33554440], 1]", "m![A, [B # 33554440]]", true},
        {"m![[A, B #{0} 33554440] % 33554440]", "m![B #{0} 33554440]", true},
        {"m![[B / 64, B % 64] = 33554000]", "m![B = 33554000]", true},
        {"m![[B # 33554433] % 1]", "m![1]", true},
        {"m![2, B]", "m![1 # 2, B]", false},
        {"m![A, B]", "m![B, A]", false},
        {"m![A, B # 33554440]", "m![A, B #{!} 33554440]", false},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping a, b;
        axe_diag d;
        bool eq = !rows[r].eq;
        axe_status st = parse(ax, rows[r].a, &a, &d);
        if (st == AXE_OK)
            st = parse(ax, rows[r].b, &b, &d);
        if (st == AXE_OK)
            st = axe_mapping_equivalent(&a, &b, &eq, &d);
        TL_CHECK(st == AXE_OK && eq == rows[r].eq, "equal %s %s: %s, want %d",
                 rows[r].a, rows[r].b,
                 st == AXE_OK ? (eq ? "true" : "false") : d.message,
                 rows[r].eq);
    }
}

/* Inverses at sizes above the evaluation limit, read off the layout of
 * the normal form (holes for padding). */
static void table_inverse_large(void)
{
    static const char *const ax = "axes![A = 4, B = 33554432]";
    static const struct {
        const char *expr;
        int64_t b;
        int n;
        int64_t pos;
    } rows[] = {
        {"m![A % 1, B]", 5, 1, 5},
        {"m![B # 33554440]", 7, 1, 7},
        {"m![A, B # 33554440]", 9, 1, 9},
        {"m![[B / 2, B % 2] # 33554440, 2]", 3, 2, 6},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping m;
        axe_mapping_cell t;
        int64_t pos[8];
        int n = -1;
        axe_diag d;
        axe_status st = parse(ax, rows[r].expr, &m, &d);
        axe_mapping_cell_zero(&t);
        t.coord[1] = rows[r].b;
        if (st == AXE_OK)
            st = axe_mapping_inverse(&m, &t, pos, 8, &n, &d);
        TL_CHECK(st == AXE_OK && n == rows[r].n && pos[0] == rows[r].pos,
                 "inverse %s at B = %" PRId64
                 ": %s, %d positions from %" PRId64,
                 rows[r].expr, rows[r].b, st == AXE_OK ? "ok" : d.message, n,
                 n > 0 ? pos[0] : -1);
    }
}

/* Conversions with holes: padding, and resize cutting only padded cells,
 * lay their operand out inside the block (NULL: no layout). */
static void table_to_layout_holes(void)
{
    static const struct {
        const char *axes, *expr, *layout;
    } rows[] = {
        {"axes![A = 4, B = 4]", "m![A, B # 8]", "S[(4,4):(8,1)]"},
        {"axes![B = 4]", "m![[B # 8] = 6]", "S[4:1]"},
        {"axes![A = 4, B = 4]", "m![[A, B # 8] = 28]", "S[(4,4):(8,1)]"},
        {"axes![A = 4, B = 4]", "m![[A, B # 8] = 28, 2]",
         "S[(4,4):(16,2)] + R[2:1]"},
        {"axes![A = 4, B = 4]", "m![[A, B # 8] = 27]", NULL},
        {"axes![B = 4]", "m![B = 2 # 4]", NULL},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping m;
        axe_mapping_part part = {&m, "m", 1, true};
        axe_layout l;
        axe_diag d;
        char text[256] = "";
        const char *tensor[AXE_MAPPING_MAX_AXES];
        axe_status st = parse(rows[r].axes, rows[r].expr, &m, &d);
        for (int k = 0; k < m.axes.n; k++)
            tensor[k] = m.axes.name[k];
        if (st == AXE_OK)
            st = axe_mapping_to_layout(&part, 1, tensor, m.axes.n, &l, &d);
        if (st == AXE_OK)
            axe_print_layout(&l, text, sizeof text);
        TL_CHECK(rows[r].layout == NULL
                     ? st == AXE_ERR_UNSUPPORTED
                     : st == AXE_OK && strcmp(text, rows[r].layout) == 0,
                 "%s with holes: %s, want %s", rows[r].expr,
                 st == AXE_OK ? text : d.message,
                 rows[r].layout ? rows[r].layout : "a failure");
    }
}

/* A tensor axis list naming an axis twice is refused with that reason
 * (before, the digits of the second B read as a partial cover). */
static void table_to_layout_duplicate(void)
{
    axe_mapping m;
    axe_mapping_part part = {&m, "m", 1, false};
    axe_layout l;
    axe_diag d;
    const char *tensor[] = {"B", "B", "A"};
    axe_status st = parse("axes![A = 8, B = 512]", "m![A, B]", &m, &d);
    if (st == AXE_OK)
        st = axe_mapping_to_layout(&part, 1, tensor, 3, &l, &d);
    TL_CHECK(st == AXE_ERR_INVALID && strstr(d.message, "name B twice") != NULL,
             "tensor axes B, B, A: %s (%s)", axe_status_name(st), d.message);
}

static void table_reject(void)
{
    static const struct {
        const char *expr;
        axe_status st;
        long offset;
    } rows[] = {
        {"m![A, B)]", AXE_ERR_SYNTAX, 7},
        {"m![% 4]", AXE_ERR_SYNTAX, 3},
        {"m![A / B]", AXE_ERR_SYNTAX, 7},
        {"m![B % 100]", AXE_ERR_DIVISIBILITY, 5},
        {"m![B / 0]", AXE_ERR_DIVISIBILITY, 5},
        {"m![A = 16]", AXE_ERR_DOMAIN, 5},
        {"m![A # 4]", AXE_ERR_DOMAIN, 5},
        {"m![A,,B]", AXE_ERR_SYNTAX, 5},
        {"m![]", AXE_ERR_SYNTAX, 3},
        {"m![a]", AXE_ERR_SYNTAX, 3},
        {"m![A / 2.5]", AXE_ERR_SYNTAX, 7},
        {"m![A / 99999999999999999999]", AXE_ERR_OVERFLOW, 7},
        {"m![A, B, A, B, A, B, A, B, A, B, A, B, A, B, A, B, A, B]",
         AXE_ERR_OVERFLOW, -2},
        {"m![[A", AXE_ERR_SYNTAX, 3},
        {"m![A /]", AXE_ERR_SYNTAX, 6},
        {"m![A #{1} 64]", AXE_ERR_SYNTAX, 10},
        {"m![A B]", AXE_ERR_SYNTAX, 5},
    };
    static const struct {
        const char *expr, *why;
    } reasons[] = {
        {"m![A #{1} 64]", "unexpected number '64' after the number of an "
                          "operator"},
        {"m![A B]", "unexpected name 'B'"},
        {"m![A / 2 (B)]", "unexpected '('"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping m;
        axe_diag d;
        axe_status st = parse("axes![A = 8, B = 512]", rows[r].expr, &m, &d);
        TL_CHECK(st == rows[r].st &&
                     (rows[r].offset == -2 || d.offset == rows[r].offset),
                 "%s: got %s at %ld (%s), expected %s at %ld", rows[r].expr,
                 axe_status_name(st), d.offset, d.message,
                 axe_status_name(rows[r].st), rows[r].offset);
    }
    for (size_t r = 0; r < sizeof reasons / sizeof reasons[0]; r++) {
        axe_mapping m;
        axe_diag d;
        axe_status st = parse("axes![A = 8, B = 512]", reasons[r].expr, &m, &d);
        TL_CHECK(st == AXE_ERR_SYNTAX && strstr(d.message, reasons[r].why),
                 "%s: got %s (%s), expected the reason %s", reasons[r].expr,
                 axe_status_name(st), d.message, reasons[r].why);
    }
}

/* Beyond the capacities: more nodes than AXE_MAPPING_MAX_NODES, deeper
 * nesting than the lexer allows, more definitions than 8 deep. */
static void table_capacity(void)
{
    static char text[4096];
    axe_mapping m;
    axe_diag d;
    axe_status st;
    size_t n = (size_t)snprintf(text, sizeof text, "m![A");
    for (int k = 0; k < AXE_MAPPING_MAX_NODES; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, ", A");
    snprintf(text + n, sizeof text - n, "]");
    st = parse("axes![A = 1]", text, &m, &d);
    TL_CHECK(st == AXE_ERR_CAPACITY && d.offset >= 0, "%d nodes: %s at %ld",
             AXE_MAPPING_MAX_NODES + 1, axe_status_name(st), d.offset);
    memset(text, '[', 100);
    memcpy(text, "m![", 3);
    text[100] = 'A';
    memset(text + 101, ']', 98);
    text[199] = '\0';
    st = parse("axes![A = 1]", text, &m, &d);
    TL_CHECK(st == AXE_ERR_CAPACITY && d.offset >= 0,
             "97 nested brackets: %s at %ld", axe_status_name(st), d.offset);
}

static void table_tile_view(void)
{
    static const struct {
        const char *axes, *expr, *index;
        int64_t len;
        bool write;
        const char *view;
    } rows[] = {
        {"axes![A = 8, B = 512]", "m![A, B]", "m![B / 32]", 2, false,
         "m![A, B / 32 = 2 # 16, B % 32]"},
        {"axes![A = 8, B = 512]", "m![A, B]", "m![B]", 2, false,
         "m![A, B = 2 # 512]"},
        {"axes![B = 8]", "m![B]", "m![B]", 4, true, "m![B = 4 #{!} 8]"},
        {"axes![A = 8, B = 512]", "m![B / 64, A, B % 64]", "m![B / 8 % 8]", 3,
         false, "m![B / 64, A, B / 8 % 8 = 3 # 8, B % 8]"},
        {"axes![A = 8, B = 512]", "m![B / 64, A, B % 64]", "m![B / 32]", 2,
         false, NULL},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping e, i, v;
        axe_diag d;
        char text[256] = "";
        axe_status st = parse(rows[r].axes, rows[r].expr, &e, &d);
        if (st == AXE_OK)
            st = parse(rows[r].axes, rows[r].index, &i, &d);
        if (st == AXE_OK)
            st = axe_mapping_tile_view(&e, &i, rows[r].len, rows[r].write, &v,
                                       &d);
        if (st == AXE_OK)
            axe_print_mapping_macro(&v, text, sizeof text);
        TL_CHECK(rows[r].view == NULL ? st == AXE_ERR_UNSUPPORTED
                                      : strcmp(text, rows[r].view) == 0,
                 "tile view of %s along %s: got %s (%s)", rows[r].expr,
                 rows[r].index, text, d.message);
    }
}

/* The tile at a start: the view and its offset I.map(start), or DOMAIN
 * when start + len exceeds |I| (NULL). */
static void table_tile_view_at(void)
{
    static const struct {
        const char *expr, *index;
        int64_t len, start;
        const char *view, *offset;
    } rows[] = {
        {"m![A, B]", "m![B / 32]", 2, 14, "m![A, B / 32 = 2 # 16, B % 32]",
         "{A: 0, B: 448}"},
        {"m![A, B]", "m![B]", 2, 2, "m![A, B = 2 # 512]", "{A: 0, B: 2}"},
        {"m![A, B]", "m![B / 32]", 2, 15, NULL, NULL},
        {"m![A, B]", "m![B]", 2, 511, NULL, NULL},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        axe_mapping e, i, v;
        axe_mapping_cell off;
        axe_diag d;
        char text[256] = "", cell[256] = "";
        axe_status st = parse("axes![A = 8, B = 512]", rows[r].expr, &e, &d);
        if (st == AXE_OK)
            st = parse("axes![A = 8, B = 512]", rows[r].index, &i, &d);
        if (st == AXE_OK)
            st = axe_mapping_tile_view_at(&e, &i, rows[r].len, rows[r].start,
                                          false, &v, &off, &d);
        if (st == AXE_OK) {
            axe_print_mapping_macro(&v, text, sizeof text);
            snprintf(cell, sizeof cell, "%s", cell_text(&e, &off));
        }
        TL_CHECK(rows[r].view == NULL
                     ? st == AXE_ERR_DOMAIN
                     : st == AXE_OK && strcmp(text, rows[r].view) == 0 &&
                           strcmp(cell, rows[r].offset) == 0,
                 "tile of %s along %s at %" PRId64 ": %s + %s (%s)",
                 rows[r].expr, rows[r].index, rows[r].start, text, cell,
                 st == AXE_OK ? "ok" : d.message);
    }
}

/* ---- random expressions ---------------------------------------------- */

static int64_t divisor_of(int64_t n)
{
    int64_t d;
    do
        d = tl_range(1, n);
    while (n % d != 0);
    return d;
}

/* A random subtree of at most "depth" levels; -1 when a push failed. */
static int random_node(axe_mapping *m, int depth)
{
    int id = -1, a, b;
    int64_t s;
    int pick = depth <= 0 ? (int)tl_range(0, 1) : (int)tl_range(0, 9);
    if (pick == 0 || pick == 1)
        return axe_mapping_push(
                   m, pick ? AXE_MAPPING_BROADCAST : AXE_MAPPING_SYMBOL, -1, -1,
                   pick ? tl_range(1, 3) : tl_range(0, m->axes.n - 1),
                   AXE_PADDING_TOP, &id, NULL) == AXE_OK
                   ? id
                   : -1;
    if ((a = random_node(m, depth - 1)) < 0)
        return -1;
    s = m->node[a].size;
    switch (pick) {
    case 2:
    case 3:
    case 4:
        if ((b = random_node(m, depth - 1)) < 0)
            return -1;
        return axe_mapping_push(m, AXE_MAPPING_PAIR, a, b, 0, AXE_PADDING_TOP,
                                &id, NULL) == AXE_OK
                   ? id
                   : -1;
    case 5:
    case 6:
        return axe_mapping_push(
                   m, pick == 5 ? AXE_MAPPING_STRIDE : AXE_MAPPING_MODULO, a,
                   -1, divisor_of(s), AXE_PADDING_TOP, &id, NULL) == AXE_OK
                   ? id
                   : -1;
    case 7:
        return axe_mapping_push(m, AXE_MAPPING_RESIZE, a, -1, tl_range(1, s),
                                AXE_PADDING_TOP, &id, NULL) == AXE_OK
                   ? id
                   : -1;
    case 8:
        return axe_mapping_push(
                   m, AXE_MAPPING_PADDING, a, -1, s + tl_range(0, 3),
                   (axe_padding_kind)tl_range(0, 2), &id, NULL) == AXE_OK
                   ? id
                   : -1;
    default:
        break;
    }
    /* X / d, X % d over a copy of the same operand (the decoded reading) */
    {
        int64_t d = divisor_of(s);
        int c, x, y;
        if (axe_mapping_copy_subtree(m, m, a, &c) != AXE_OK ||
            axe_mapping_push(m, AXE_MAPPING_STRIDE, a, -1, d, AXE_PADDING_TOP,
                             &x, NULL) != AXE_OK ||
            axe_mapping_push(m, AXE_MAPPING_MODULO, c, -1, d, AXE_PADDING_TOP,
                             &y, NULL) != AXE_OK ||
            axe_mapping_push(m, AXE_MAPPING_PAIR, x, y, 0, AXE_PADDING_TOP, &id,
                             NULL) != AXE_OK)
            return -1;
        return id;
    }
}

static void random_expr(axe_mapping *m)
{
    static const int64_t sizes[] = {2, 3, 4, 6, 8};
    axe_mapping_axes a = {0, {{0}}, {0}};
    int n = (int)tl_range(1, 3);
    char name[2] = "A";
    for (int k = 0; k < n; k++) {
        name[0] = (char)('A' + k);
        TL_CHECK(axe_mapping_axes_add(&a, name, sizes[tl_range(0, 4)], NULL) ==
                     AXE_OK,
                 "axis %s", name);
    }
    do
        axe_mapping_init(m, &a);
    while (random_node(m, (int)tl_range(1, 3)) < 0 ||
           axe_mapping_size(m) > 4096);
}

/* ---- laws ------------------------------------------------------------ */

/* The cells of "a" and "b" agree at every position (an overshoot is a
 * value of its own). */
static bool same_map(const axe_mapping *a, const axe_mapping *b)
{
    if (axe_mapping_size(a) != axe_mapping_size(b))
        return false;
    for (int64_t p = 0; p <= axe_mapping_size(a); p++) {
        axe_mapping_cell ca, cb;
        axe_status sa = axe_mapping_map(a, p, &ca, NULL);
        axe_status sb = axe_mapping_map(b, p, &cb, NULL);
        if (sa != sb || (sa == AXE_OK && !axe_mapping_cell_equal(&ca, &cb)))
            return false;
    }
    return true;
}

static const char *show(const axe_mapping *m)
{
    static char buf[2][1024];
    static int k;
    k ^= 1;
    axe_print_mapping_macro(m, buf[k], sizeof buf[k]);
    return buf[k];
}

static void law_normalize(const axe_mapping *m)
{
    static axe_mapping n, nn;
    axe_diag d;
    axe_status st = axe_mapping_normalize(m, &n, &d);
    TL_CHECK(st == AXE_OK, "normalize %s: %s", show(m), d.message);
    if (st != AXE_OK)
        return;
    TL_CHECK(same_map(m, &n), "normalize changes the map: %s -> %s", show(m),
             show(&n));
    st = axe_mapping_normalize(&n, &nn, &d);
    TL_CHECK(st == AXE_OK && axe_mapping_same_tree(&n, axe_mapping_root(&n),
                                                   &nn, axe_mapping_root(&nn)),
             "normalize is not idempotent: %s -> %s", show(&n), show(&nn));
}

static void law_round_trip(const axe_mapping *m)
{
    static axe_mapping back;
    axe_mapping_env env = {&m->axes, 0, NULL, NULL, 0, NULL, NULL, false};
    const char *text = show(m);
    axe_diag d;
    axe_status st = axe_parse_mapping(text, strlen(text), &env, &back, &d);
    TL_CHECK(st == AXE_OK && strcmp(show(&back), text) == 0 &&
                 same_map(m, &back),
             "print/parse round trip of %s: %s", text,
             st == AXE_OK ? show(&back) : d.message);
}

static void law_equivalent(const axe_mapping *a, const axe_mapping *b)
{
    bool eq = false;
    axe_diag d;
    axe_status st = axe_mapping_equivalent(a, b, &eq, &d);
    TL_CHECK(st == AXE_OK && eq == same_map(a, b),
             "equivalent(%s, %s) = %d (%s), brute force %d", show(a), show(b),
             eq, st == AXE_OK ? "ok" : d.message, same_map(a, b));
}

/* The lexicographic index of live cell "c" over all axes of the table. */
static int64_t flat_index(const axe_mapping *m, const axe_mapping_cell *c)
{
    int64_t x = 0;
    for (int k = 0; k < m->axes.n; k++)
        x = x * m->axes.size[k] + c->coord[k];
    return x;
}

static bool holds_position(const axe_layout *l, int64_t x, int64_t p)
{
    static axe_point pts[4096];
    axe_point want = {0, {{0}}, {0}};
    int n;
    if (axe_point_add(&want, "m", p) != AXE_OK ||
        axe_layout_apply_set(l, &x, NULL, 1, pts, 4096, &n, NULL) != AXE_OK)
        return false;
    for (int k = 0; k < n; k++)
        if (axe_point_equal(&pts[k], &want))
            return true;
    return false;
}

/* With or without holes: every live position p is in L(x) of the index x
 * it holds, padded positions hold nothing, and L has exactly as many
 * points as there are live positions. */
static void law_to_layout(const axe_mapping *m, bool holes)
{
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_mapping_part part = {m, "m", 1, holes};
    axe_layout l;
    int64_t size, points = 1, live = 0;
    for (int k = 0; k < m->axes.n; k++)
        tensor[k] = m->axes.name[k];
    if (axe_mapping_to_layout(&part, 1, tensor, m->axes.n, &l, NULL) != AXE_OK)
        return;
    TL_CHECK(axe_layout_size(&l, NULL, &size) == AXE_OK, "layout size");
    for (int r = 0; r < l.nreplica; r++)
        points *= l.replica[r].extent;
    for (int64_t p = 0; p < axe_mapping_size(m); p++) {
        axe_mapping_cell c;
        axe_status st = axe_mapping_map(m, p, &c, NULL);
        TL_CHECK(st == AXE_OK && (holes || c.kind == AXE_CELL_INDEX),
                 "%s: position %" PRId64 " is not live", show(m), p);
        if (st != AXE_OK || c.kind != AXE_CELL_INDEX)
            continue;
        live++;
        TL_CHECK(holds_position(&l, flat_index(m, &c), p),
                 "%s: position %" PRId64 " is not in L(x)", show(m), p);
    }
    TL_CHECK(size * points == live,
             "%s: layout has %" PRId64 " points, expression %" PRId64
             " live cells",
             show(m), size * points, live);
}

/* Top padding only: a layout with holes comes back (with holes) as an
 * expression with the same cells, the original's extra trailing cells all
 * padding. */
static void law_round_trip_holes(const axe_mapping *m)
{
    static axe_mapping back;
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_mapping_part part = {m, "m", 1, true};
    axe_layout l;
    axe_diag d;
    axe_status st;
    for (int k = 0; k < m->nnodes; k++)
        if (m->node[k].op == AXE_MAPPING_PADDING &&
            m->node[k].kind != AXE_PADDING_TOP)
            return;
    for (int k = 0; k < m->axes.n; k++)
        tensor[k] = m->axes.name[k];
    if (axe_mapping_to_layout(&part, 1, tensor, m->axes.n, &l, NULL) != AXE_OK)
        return;
    st = axe_mapping_from_layout_holes(&l, &m->axes, &back, &d);
    TL_CHECK(st == AXE_OK && axe_mapping_size(&back) <= axe_mapping_size(m),
             "%s with holes does not come back: %s", show(m),
             st == AXE_OK ? "larger" : d.message);
    for (int64_t p = 0; st == AXE_OK && p < axe_mapping_size(m); p++) {
        axe_mapping_cell a, b;
        axe_status sa = axe_mapping_map(m, p, &a, NULL);
        axe_status sb = axe_mapping_map(&back, p, &b, NULL);
        bool ok =
            p < axe_mapping_size(&back)
                ? sa == sb && (sa != AXE_OK || axe_mapping_cell_equal(&a, &b))
                : sa == AXE_OK && a.kind == AXE_CELL_PADDING;
        TL_CHECK(ok, "%s -> %s (holes) -> %s differs at %" PRId64, show(m),
                 "layout", show(&back), p);
        if (!ok)
            break;
    }
}

/* inverse(map(p)) lists exactly the positions holding that cell. */
static void law_inverse(const axe_mapping *m)
{
    static int64_t pos[4096];
    axe_mapping_cell t, c;
    int64_t p = tl_range(0, axe_mapping_size(m) - 1), want = 0;
    int n = 0;
    bool sorted = true;
    if (axe_mapping_map(m, p, &t, NULL) != AXE_OK)
        return;
    TL_CHECK(axe_mapping_inverse(m, &t, pos, 4096, &n, NULL) == AXE_OK,
             "inverse of %s at %" PRId64, show(m), p);
    for (int64_t q = 0; q < axe_mapping_size(m); q++)
        want += axe_mapping_map(m, q, &c, NULL) == AXE_OK &&
                axe_mapping_cell_equal(&c, &t);
    for (int k = 0; k < n; k++) {
        sorted &= k == 0 || pos[k - 1] < pos[k];
        TL_CHECK(axe_mapping_map(m, pos[k], &c, NULL) == AXE_OK &&
                     axe_mapping_cell_equal(&c, &t),
                 "inverse of %s lists %" PRId64 " wrongly", show(m), pos[k]);
    }
    TL_CHECK(sorted && n == want,
             "inverse of %s at %" PRId64 ": %d positions, brute force %" PRId64,
             show(m), p, n, want);
}

/* The tiles along a random digit of a random axis: at a random start the
 * view's live cells are the source's indices whose digit lies in [start,
 * start + len), each as often as the source holds it. */
static void law_tile_view(const axe_mapping *e)
{
    static axe_mapping idx, view;
    static int want[4096], got[4096];
    int axis = (int)tl_range(0, e->axes.n - 1), id;
    int64_t size = e->axes.size[axis], mu = divisor_of(size), n, start;
    int64_t flat = 1;
    axe_mapping_tile t = {e, &idx, 0, &view, 0, false};
    axe_mapping_cell off;
    n = divisor_of(size / mu);
    axe_mapping_init(&idx, &e->axes);
    if (axe__mapping_push_digit(&idx, axis, mu, n, &id) != AXE_OK)
        return;
    t.len = tl_range(1, n);
    t.start = start = tl_range(0, n - t.len);
    for (int k = 0; k < e->axes.n; k++)
        flat *= e->axes.size[k];
    if (flat > 4096 ||
        axe_mapping_tile_view(e, &idx, t.len, false, &view, NULL) != AXE_OK)
        return;
    memset(want, 0, sizeof want);
    memset(got, 0, sizeof got);
    TL_CHECK(axe_mapping_tile_check(&t, &off, NULL) == AXE_OK,
             "tile view of %s does not check", show(e));
    for (int64_t p = 0; p < axe_mapping_size(e); p++) {
        axe_mapping_cell c, v, w;
        int64_t d;
        bool ok =
            axe_mapping_map(e, p, &c, NULL) == AXE_OK &&
            axe_mapping_tile_map(&t, p, &v, NULL) == AXE_OK &&
            axe_mapping_tile_map_checked(&t, &off, p, &w, NULL) == AXE_OK &&
            axe_mapping_cell_equal(&v, &w);
        TL_CHECK(ok, "tile of %s at %" PRId64, show(e), p);
        if (!ok)
            return;
        d = c.coord[axis] / mu % n;
        if (c.kind == AXE_CELL_INDEX && d >= start && d < start + t.len)
            want[flat_index(e, &c)]++;
        if (v.kind == AXE_CELL_INDEX && flat_index(e, &v) < flat)
            got[flat_index(e, &v)]++;
    }
    TL_CHECK(memcmp(want, got, sizeof want) == 0,
             "tile view %s of %s at %" PRId64 " holds other indices",
             show(&view), show(e), start);
}

/* "a" with one pair's sides swapped or one padding kind changed (the
 * same size, often another map): equivalence must still agree with brute
 * force, on the paths that decide without evaluating. */
static void mutate(const axe_mapping *a, axe_mapping *b)
{
    *b = *a;
    for (int k = a->nnodes - 1; k >= 0; k--) {
        axe_mapping_node *x = &b->node[k];
        if (tl_range(0, 2) != 0)
            continue;
        if (x->op == AXE_MAPPING_PAIR) {
            int16_t t = x->a;
            x->a = x->b;
            x->b = t;
            return;
        }
        if (x->op == AXE_MAPPING_PADDING) {
            x->kind = (uint8_t)((x->kind + 1) % 3);
            return;
        }
    }
}

/* ---- factor split: affine expressions in disguise -------------------- */

/* A factor of a random affine expression: a digit X / mu % n of axis
 * "axis", or (axis < 0) a broadcast n. */
typedef struct fac {
    int axis;
    int64_t mu, n;
} fac;

static int fac_text(const axe_mapping_axes *a, const fac *f, char *buf,
                    size_t cap)
{
    if (f->axis < 0)
        return snprintf(buf, cap, "%" PRId64, f->n);
    return snprintf(buf, cap, "%s / %" PRId64 " %% %" PRId64, a->name[f->axis],
                    f->mu, f->n);
}

/* "f[0..n)" as the list text "[f0, f1, ...]" appended at "buf". */
static void list_text(const axe_mapping_axes *a, const fac *f, int n, char *buf,
                      size_t cap)
{
    size_t len = strlen(buf);
    len += (size_t)snprintf(buf + len, cap - len, "[");
    for (int k = 0; k < n; k++) {
        len += (size_t)fac_text(a, &f[k], buf + len, cap - len);
        len += (size_t)snprintf(buf + len, cap - len, k + 1 < n ? ", " : "]");
    }
}

/* A random affine expression: each axis cut into digits, a broadcast or
 * two, shuffled; its size at most 4096. */
static int random_affine(axe_mapping_axes *a, fac *f)
{
    static const int64_t sizes[] = {2, 4, 6, 8, 12, 16};
    int n = 0, na = (int)tl_range(1, 3);
    char name[2] = "A";
    int64_t total = 1;
    a->n = 0;
    for (int k = 0; k < na; k++) {
        int64_t size = sizes[tl_range(0, 5)], mu = 1;
        name[0] = (char)('A' + k);
        TL_CHECK(axe_mapping_axes_add(a, name, size, NULL) == AXE_OK, "axes");
        total *= size;
        while (mu < size) {
            int64_t d = divisor_of(size / mu);
            if (d == 1)
                d = size / mu;
            f[n++] = (fac){k, mu, d};
            mu *= d;
        }
    }
    for (int b = (int)tl_range(0, 2); b > 0 && total * 3 <= 4096; b--) {
        f[n] = (fac){-1, 1, tl_range(2, 3)};
        total *= f[n++].n;
    }
    for (int k = n - 1; k > 0; k--) {
        int j = (int)tl_range(0, k);
        fac t = f[k];
        f[k] = f[j];
        f[j] = t;
    }
    return n;
}

/* "g[0..n)" cut at the position stride "d" (a divisor of their size):
 * the factor holding the boundary split in two, when d falls evenly in
 * it; the cut index (factors at and after it are below d) or -1. */
static int cut_at(fac *g, int *n, int64_t d)
{
    int64_t w = 1;
    for (int j = *n - 1; j >= 0; j--) {
        int64_t q;
        if (w == d)
            return j + 1;
        if (w * g[j].n <= d) {
            w *= g[j].n;
            continue;
        }
        if (d % w != 0 || g[j].n % (d / w) != 0)
            return -1;
        q = d / w;
        memmove(&g[j + 1], &g[j], (size_t)(*n - j) * sizeof *g);
        g[j].mu = g[j].axis < 0 ? 1 : g[j].mu * q;
        g[j].n /= q;
        g[j + 1].n = q;
        (*n)++;
        return j + 1;
    }
    return w == d ? 0 : -1;
}

static void parse_into(const axe_mapping_axes *a, const char *text,
                       axe_mapping *m)
{
    axe_mapping_env env = {a, 0, NULL, NULL, 0, NULL, NULL, false};
    axe_diag d;
    TL_CHECK(axe_parse_mapping(text, strlen(text), &env, m, &d) == AXE_OK,
             "parse %s: %s", text, d.message);
}

/* An affine expression with a run G of its factors replaced by `[G] % d,
 * [G] / d` (d a divisor of |G|): when d cuts G at a factor boundary, or
 * evenly inside a factor, brute force finds it equal to the expression
 * with G's parts below and above d swapped (affine, built here), and then
 * equivalence says so, the conversion succeeds, holds every position
 * (law_to_layout) and is the layout of the swapped form. */
static int law_factor_split(void)
{
    static axe_mapping e, want;
    static char text[2048], wtext[2048];
    axe_mapping_axes a;
    fac f[32], g[32];
    int n = random_affine(&a, f), i = (int)tl_range(0, n - 1);
    int j = (int)tl_range(i, n - 1), ng = j - i + 1, c;
    int64_t size = 1, d;
    const char *tensor[AXE_MAPPING_MAX_AXES];
    axe_mapping_part pe = {&e, "m", 1, false}, pw = {&want, "m", 1, false};
    axe_layout le, lw;
    bool eq = false;
    for (int k = i; k <= j; k++)
        size *= (g[k - i] = f[k]).n;
    d = divisor_of(size);
    strcpy(text, "m![");
    strcpy(wtext, "m![");
    for (int k = 0; k < i; k++) {
        fac_text(&a, &f[k], text + strlen(text), 64);
        fac_text(&a, &f[k], wtext + strlen(wtext), 64);
        strcat(text, ", ");
        strcat(wtext, ", ");
    }
    list_text(&a, g, ng, text, sizeof text);
    snprintf(text + strlen(text), 64, " %% %" PRId64 ", ", d);
    list_text(&a, g, ng, text, sizeof text);
    snprintf(text + strlen(text), 64, " / %" PRId64, d);
    c = cut_at(g, &ng, d);
    for (int k = 0; k < ng && c >= 0; k++) {
        fac_text(&a, &g[(k + c) % ng], wtext + strlen(wtext), 64);
        strcat(wtext, k + 1 < ng ? ", " : "");
    }
    for (int k = j + 1; k < n; k++) {
        strcat(text, ", ");
        strcat(wtext, ", ");
        fac_text(&a, &f[k], text + strlen(text), 64);
        fac_text(&a, &f[k], wtext + strlen(wtext), 64);
    }
    strcat(text, "]");
    strcat(wtext, "]");
    parse_into(&a, text, &e);
    law_to_layout(&e, false);
    if (c < 0)
        return 0;
    parse_into(&a, wtext, &want);
    for (int k = 0; k < a.n; k++)
        tensor[k] = a.name[k];
    TL_CHECK(same_map(&e, &want), "%s is not %s (the test's expectation)", text,
             wtext);
    TL_CHECK(axe_mapping_equivalent(&e, &want, &eq, NULL) == AXE_OK && eq,
             "equivalent(%s, %s) is not true", text, wtext);
    TL_CHECK(axe_mapping_to_layout(&pw, 1, tensor, a.n, &lw, NULL) == AXE_OK,
             "%s does not convert", wtext);
    TL_CHECK(axe_mapping_to_layout(&pe, 1, tensor, a.n, &le, NULL) == AXE_OK &&
                 axe_layout_equivalent(&le, &lw, &eq, NULL) == AXE_OK && eq,
             "%s (equal to the affine %s) does not convert to its layout", text,
             wtext);
    return 1;
}

static void laws(void)
{
    static axe_mapping a, b, n;
    static const char *const names[] = {"A", "B", "C"};
    axe_mapping_part part = {&a, "m", 1, false};
    axe_layout l;
    int converted = 0;
    for (int r = 0; r < RANDOM_CASES; r++) {
        random_expr(&a);
        law_normalize(&a);
        law_round_trip(&a);
        law_inverse(&a);
        law_to_layout(&a, false);
        law_to_layout(&a, true);
        law_round_trip_holes(&a);
        if (axe_mapping_normalize(&a, &n, NULL) == AXE_OK)
            law_equivalent(&a, &n);
        b = a;
        do
            axe_mapping_init(&b, &a.axes);
        while (random_node(&b, (int)tl_range(0, 3)) < 0);
        law_equivalent(&a, &b);
        mutate(&a, &b);
        law_equivalent(&a, &b);
        if (axe_mapping_to_layout(&part, 1, names, a.axes.n, &l, NULL) ==
            AXE_OK) {
            converted++;
            law_tile_view(&a);
        }
    }
    printf("%d random expressions, %d of them affine per axis\n", RANDOM_CASES,
           converted);
    converted = 0;
    for (int r = 0; r < RANDOM_CASES; r++)
        converted += law_factor_split();
    printf("%d affine expressions split at a random divisor, %d at a factor "
           "boundary\n",
           RANDOM_CASES, converted);
}

int main(void)
{
    tl_seed("test_mapping", 20261125);
    table_map();
    table_normalize();
    table_equivalent_large();
    table_inverse_large();
    table_to_layout_holes();
    table_to_layout_duplicate();
    table_reject();
    table_capacity();
    table_tile_view();
    table_tile_view_at();
    laws();
    return tl_finish();
}
