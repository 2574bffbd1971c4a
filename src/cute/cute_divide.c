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

/* (b, complement_shape(b, shape of the subtree "sp" of "a")) into "bc",
 * built in place; where that runs out of room, as axe_cute_pair of the
 * complement on its own, for the same status and reason. */
static axe_status pair_complement(const axe_cute_layout *a, const axe__span *sp,
                                  const axe_cute_layout *b, axe_cute_layout *bc,
                                  axe_diag *diag)
{
    axe_cute_layout c;
    axe_status s;
    axe__cute_clear(bc);
    s = axe__cute_open(bc);
    if (s == AXE_OK)
        s = axe__cute_append(bc, b);
    if (s == AXE_OK)
        s = axe__cute_complement_append(b, &a->shape, sp, bc, diag);
    if (s == AXE_OK)
        s = axe__cute_close(bc);
    if (s != AXE_ERR_CAPACITY)
        return s;
    axe__cute_clear(&c);
    AXE_TRY(axe__cute_capacity(
        axe__cute_complement_append(b, &a->shape, sp, &c, diag), diag));
    return axe_cute_pair(b, &c, bc);
}

/* The logical division of the subtree "sp" of "a" by the layout "b",
 * (tile, rest), appended to "out" as one element, or with "rest" its
 * tile to "out" and its rest to "rest". */
static axe_status divide_view(const axe_cute_layout *a, const axe__span *sp,
                              const axe_cute_layout *b, axe_cute_layout *out,
                              axe_cute_layout *rest, axe_diag *diag)
{
    axe_cute_layout bc;
    axe__span halves[2];
    AXE_TRY(pair_complement(a, sp, b, &bc, diag));
    halves[0] = (axe__span){1, 1 + b->shape.ntok, 0, b->shape.nleaf};
    halves[1] = (axe__span){halves[0].te, bc.shape.ntok - 1, b->shape.nleaf,
                            bc.shape.nleaf};
    return axe__cute_compose_append(a, sp, &bc, halves, out, rest, diag);
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

/* Append logical_divide(subtree "sp" of "a", guide at c) to "out" as one
 * element. */
static axe_status logical_rec(const axe_cute_layout *a, const axe__span *sp,
                              tcur *c, axe_cute_layout *out, axe_diag *diag)
{
    axe__span ch[AXE_TUPLE_MAX_TOKENS];
    char g = c->t->tok[c->tok++];
    int rank, k;
    if (g == '_')
        return axe__cute_append_span(out, a, sp);
    if (g == 'L')
        return divide_view(a, sp, &c->t->elem[c->elem++], out, NULL, diag);
    rank = axe__tuple_child_spans(&a->shape, sp, ch);
    k = tiler_children(c->t, c->tok - 1);
    if (k > rank)
        return too_short(diag, rank, k);
    AXE_TRY(axe__cute_open(out));
    for (int i = 0; i < rank; i++) {
        if (i < k)
            AXE_TRY(logical_rec(a, &ch[i], c, out, diag));
        else
            AXE_TRY(axe__cute_append_span(out, a, &ch[i]));
    }
    c->tok++; /* ']' */
    return axe__cute_close(out);
}

/* Split the subtree "sp" of "a" by the guide at "c" into one tile element
 * appended to "tile" and one rest element appended to "rest" (CuTe's
 * zip2_by). */
static axe_status zip_rec(const axe_cute_layout *a, const axe__span *sp,
                          tcur *c, axe_cute_layout *tile, axe_cute_layout *rest,
                          axe_diag *diag)
{
    axe__span ch[AXE_TUPLE_MAX_TOKENS];
    char g = c->t->tok[c->tok++];
    int rank, k;
    if (g == 'L')
        return divide_view(a, sp, &c->t->elem[c->elem++], tile, rest, diag);
    rank = axe__tuple_child_spans(&a->shape, sp, ch);
    if (g != '[') {
        if (rank != 2 || a->shape.tok[sp->tb] == 'x')
            return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                             "a mode kept with '_' must have rank 2 to "
                             "split into tile and rest");
        AXE_TRY(axe__cute_append_span(tile, a, &ch[0]));
        return axe__cute_append_span(rest, a, &ch[1]);
    }
    k = tiler_children(c->t, c->tok - 1);
    if (k > rank)
        return too_short(diag, rank, k);
    AXE_TRY(axe__cute_open(tile));
    AXE_TRY(axe__cute_open(rest));
    for (int i = 0; i < rank; i++) {
        if (i < k)
            AXE_TRY(zip_rec(a, &ch[i], c, tile, rest, diag));
        else
            AXE_TRY(axe__cute_append_span(rest, a, &ch[i]));
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
    return axe__cute_join(
        t, kind == AXE_CUTE_DIVIDE_FLAT, r,
        kind != AXE_CUTE_DIVIDE_ZIPPED && kind != AXE_CUTE_DIVIDE_LOGICAL, out);
}

axe_status axe_cute_divide(axe_cute_divide_kind kind, const axe_cute_layout *a,
                           const axe_cute_tiler *b, axe_cute_layout *out,
                           axe_diag *diag)
{
    axe_cute_layout tile, rest;
    axe__span whole = {0, a->shape.ntok, 0, a->shape.nleaf};
    tcur c = {b, 0, 0};
    axe__cute_clear(&tile);
    axe__cute_clear(&rest);
    if (kind == AXE_CUTE_DIVIDE_LOGICAL) {
        AXE_TRY(logical_rec(a, &whole, &c, &tile, diag));
        axe__cute_copy(out, &tile);
        return AXE_OK;
    }
    AXE_TRY(zip_rec(a, &whole, &c, &tile, &rest, diag));
    return arrange(kind, &tile, &rest, out);
}

axe_status axe_cute_divide_layout(axe_cute_divide_kind kind,
                                  const axe_cute_layout *a,
                                  const axe_cute_layout *b,
                                  axe_cute_layout *out, axe_diag *diag)
{
    axe_cute_layout t, r;
    axe__span whole = {0, a->shape.ntok, 0, a->shape.nleaf};
    axe__cute_clear(&t);
    axe__cute_clear(&r);
    if (kind == AXE_CUTE_DIVIDE_LOGICAL || kind == AXE_CUTE_DIVIDE_ZIPPED) {
        AXE_TRY(divide_view(a, &whole, b, &t, NULL, diag));
        axe__cute_copy(out, &t);
        return AXE_OK;
    }
    AXE_TRY(divide_view(a, &whole, b, &t, &r, diag));
    return arrange(kind, &t, &r, out);
}
