/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Divides: logical_divide(a, b) = a ∘ (b, complement(b, shape(a))) (the
 * complement with respect to size(a) for integer strides; per coordinate of
 * a's shape for scaled-basis strides), by mode
 * for a tiler (`_` keeps a mode, a nested tiler recurses into a mode), and
 * the zipped / tiled / flat rearrangements of CuTe (zip2_by): the tile parts
 * of every divided mode gathered into the first mode, the rest parts (and
 * the modes the tiler does not reach) into the second.
 */
#include "cute_internal.h"

/* Cursor over a tiler's tokens and layouts. */
typedef struct tcur {
    const axe_cute_tiler *t;
    int tok, elem;
} tcur;

/* The logical division of "a" by the layout "b": (tile, rest). */
static axe_status divide_by_layout(const axe_cute_layout *a,
                                   const axe_cute_layout *b,
                                   axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout c, bc;
    AXE_TRY(axe_cute_complement_shape(b, &a->shape, &c, diag));
    AXE_TRY(axe_cute_pair(b, &c, &bc));
    return axe_cute_compose(a, &bc, out, diag);
}

static axe_status too_short(axe_diag *diag, int rank, int need)
{
    return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                     "the tiler has %d modes here but the layout only %d", need,
                     rank);
}

/* Number of direct children of the tiler subtree at "c->tok" ('['). */
static int tiler_children(const axe_cute_tiler *t, int tok)
{
    int d = 0, n = 0;
    for (int i = tok; i < t->ntok; i++) {
        char c = t->tok[i];
        if (d == 1 && c != ']')
            n++;
        if (c == '[')
            d++;
        else if (c == ']' && --d == 0)
            break;
    }
    return n;
}

/* Append logical_divide(m, guide at c) to "out" as one element. */
static axe_status logical_rec(const axe_cute_layout *m, tcur *c,
                              axe_cute_layout *out, axe_diag *diag)
{
    axe__span sp[AXE_TUPLE_MAX_TOKENS];
    char g = c->t->tok[c->tok++];
    int rank, k;
    if (g == '_')
        return axe__cute_append(out, m);
    if (g == 'L') {
        axe_cute_layout d;
        AXE_TRY(divide_by_layout(m, &c->t->elem[c->elem++], &d, diag));
        return axe__cute_append(out, &d);
    }
    rank = axe__cute_spans(m, sp, AXE_TUPLE_MAX_TOKENS);
    k = tiler_children(c->t, c->tok - 1);
    if (k > rank)
        return too_short(diag, rank, k);
    AXE_TRY(axe__cute_open(out));
    for (int i = 0; i < rank; i++) {
        axe_cute_layout mode;
        axe__cute_clear(&mode);
        AXE_TRY(axe__cute_append_span(&mode, m, &sp[i]));
        if (i < k)
            AXE_TRY(logical_rec(&mode, c, out, diag));
        else
            AXE_TRY(axe__cute_append(out, &mode));
    }
    c->tok++; /* ']' */
    return axe__cute_close(out);
}

/* Split "m" by the guide at "c" into one tile element appended to "tile"
 * and one rest element appended to "rest" (CuTe's zip2_by). */
static axe_status zip_rec(const axe_cute_layout *m, tcur *c,
                          axe_cute_layout *tile, axe_cute_layout *rest,
                          axe_diag *diag)
{
    axe__span sp[AXE_TUPLE_MAX_TOKENS];
    axe_cute_layout d;
    const axe_cute_layout *src = m;
    char g = c->t->tok[c->tok++];
    int rank, k;
    if (g == 'L') {
        AXE_TRY(divide_by_layout(m, &c->t->elem[c->elem++], &d, diag));
        src = &d;
    }
    rank = axe__cute_spans(src, sp, AXE_TUPLE_MAX_TOKENS);
    if (g != '[') {
        if (rank != 2 || axe_tuple_is_scalar(&src->shape))
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "a mode kept with '_' must have rank 2 to "
                             "split into tile and rest");
        AXE_TRY(axe__cute_append_span(tile, src, &sp[0]));
        return axe__cute_append_span(rest, src, &sp[1]);
    }
    k = tiler_children(c->t, c->tok - 1);
    if (k > rank)
        return too_short(diag, rank, k);
    AXE_TRY(axe__cute_open(tile));
    AXE_TRY(axe__cute_open(rest));
    for (int i = 0; i < rank; i++) {
        axe_cute_layout mode;
        axe__cute_clear(&mode);
        AXE_TRY(axe__cute_append_span(&mode, m, &sp[i]));
        if (i < k)
            AXE_TRY(zip_rec(&mode, c, tile, rest, diag));
        else
            AXE_TRY(axe__cute_append(rest, &mode));
    }
    c->tok++; /* ']' */
    AXE_TRY(axe__cute_close(tile));
    return axe__cute_close(rest);
}

/* (t, r) rearranged by "kind": zipped (t, r), tiled (t, r...),
 * flat (t..., r...). */
static axe_status arrange(axe_cute_divide_kind kind, const axe_cute_layout *t,
                          const axe_cute_layout *r, axe_cute_layout *out)
{
    axe_cute_layout res;
    axe__cute_clear(&res);
    AXE_TRY(axe__cute_open(&res));
    if (kind == AXE_CUTE_DIVIDE_FLAT)
        AXE_TRY(axe__cute_append_modes(&res, t));
    else
        AXE_TRY(axe__cute_append(&res, t));
    if (kind == AXE_CUTE_DIVIDE_ZIPPED || kind == AXE_CUTE_DIVIDE_LOGICAL)
        AXE_TRY(axe__cute_append(&res, r));
    else
        AXE_TRY(axe__cute_append_modes(&res, r));
    AXE_TRY(axe__cute_close(&res));
    *out = res;
    return AXE_OK;
}

axe_status axe_cute_divide(axe_cute_divide_kind kind, const axe_cute_layout *a,
                           const axe_cute_tiler *b, axe_cute_layout *out,
                           axe_diag *diag)
{
    axe_cute_layout tile, rest;
    tcur c = {b, 0, 0};
    axe__cute_clear(&tile);
    axe__cute_clear(&rest);
    if (kind == AXE_CUTE_DIVIDE_LOGICAL) {
        AXE_TRY(logical_rec(a, &c, &tile, diag));
        *out = tile;
        return AXE_OK;
    }
    AXE_TRY(zip_rec(a, &c, &tile, &rest, diag));
    return arrange(kind, &tile, &rest, out);
}

axe_status axe_cute_divide_layout(axe_cute_divide_kind kind,
                                  const axe_cute_layout *a,
                                  const axe_cute_layout *b,
                                  axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout d, t, r;
    AXE_TRY(divide_by_layout(a, b, &d, diag));
    if (kind == AXE_CUTE_DIVIDE_LOGICAL || kind == AXE_CUTE_DIVIDE_ZIPPED) {
        *out = d;
        return AXE_OK;
    }
    AXE_TRY(axe_cute_get(&d, 0, &t));
    AXE_TRY(axe_cute_get(&d, 1, &r));
    return arrange(kind, &t, &r, out);
}
