/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Colexicographic index <-> coordinate maps and the products and divisions
 * of shapes that CuTe's algebra is built from. All arithmetic is checked.
 */
#include "tuple_internal.h"

/* Cursor over a tuple's tokens and leaves during a recursive walk. */
typedef struct cursor {
    int tok, leaf;
} cursor;

static axe_status subtree_size(const axe_tuple *t, cursor c, int64_t *out)
{
    int e = axe__tuple_subtree_end(t->tok, c.tok);
    int n = axe__tuple_count_leaves(t->tok, c.tok, e);
    int64_t s = 1;
    for (int k = 0; k < n; k++)
        AXE_TRY(axe__mul(s, t->v[c.leaf + k], &s));
    *out = s;
    return AXE_OK;
}

static void skip(const axe_tuple *t, cursor *c)
{
    int e = axe__tuple_subtree_end(t->tok, c->tok);
    c->leaf += axe__tuple_count_leaves(t->tok, c->tok, e);
    c->tok = e;
}

/* Write the coordinate of "idx" in the subtree at "c" into "out". */
static axe_status idx2crd_rec(int64_t idx, const axe_tuple *shape, cursor *c,
                              axe_tuple *out)
{
    if (shape->tok[c->tok] == 'x') {
        c->tok++;
        c->leaf++;
        return axe__tuple_push(out, idx);
    }
    AXE_TRY(axe__tuple_open(out));
    c->tok++;
    while (shape->tok[c->tok] != ')') {
        cursor next = *c;
        int64_t s;
        skip(shape, &next);
        if (shape->tok[next.tok] == ')') {
            AXE_TRY(idx2crd_rec(idx, shape, c, out));
            break;
        }
        AXE_TRY(subtree_size(shape, *c, &s));
        AXE_TRY(idx2crd_rec(s == 0 ? 0 : idx % s, shape, c, out));
        idx = s == 0 ? 0 : idx / s;
    }
    c->tok++;
    return axe__tuple_close(out);
}

axe_status axe_tuple_idx2crd(int64_t idx, const axe_tuple *shape,
                             axe_tuple *out)
{
    axe_tuple r;
    cursor c = {0, 0};
    if (idx < 0)
        return AXE_ERR_DOMAIN;
    axe__tuple_clear(&r);
    AXE_TRY(idx2crd_rec(idx, shape, &c, &r));
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

/* Index of the coordinate at "cc" in the shape subtree at "cs". */
static axe_status crd2idx_rec(const axe_tuple *crd, cursor *cc,
                              const axe_tuple *shape, cursor *cs, int64_t *out)
{
    int64_t idx = 0, scale = 1;
    if (crd->tok[cc->tok] == 'x') {
        *out = crd->v[cc->leaf];
        cc->tok++;
        cc->leaf++;
        skip(shape, cs);
        return *out == AXE_UNDERSCORE ? AXE_ERR_INVALID : AXE_OK;
    }
    if (shape->tok[cs->tok] != '(')
        return AXE_ERR_INCOMPATIBLE;
    cc->tok++;
    cs->tok++;
    while (crd->tok[cc->tok] != ')') {
        int64_t sub, s, term;
        if (shape->tok[cs->tok] == ')')
            return AXE_ERR_INCOMPATIBLE;
        AXE_TRY(subtree_size(shape, *cs, &s));
        AXE_TRY(crd2idx_rec(crd, cc, shape, cs, &sub));
        AXE_TRY(axe__mul(sub, scale, &term));
        AXE_TRY(axe__add(idx, term, &idx));
        AXE_TRY(axe__mul(scale, s, &scale));
    }
    if (shape->tok[cs->tok] != ')')
        return AXE_ERR_INCOMPATIBLE;
    cc->tok++;
    cs->tok++;
    *out = idx;
    return AXE_OK;
}

axe_status axe_tuple_crd2idx(const axe_tuple *crd, const axe_tuple *shape,
                             int64_t *out)
{
    cursor cc = {0, 0}, cs = {0, 0};
    int64_t idx;
    AXE_TRY(crd2idx_rec(crd, &cc, shape, &cs, &idx));
    *out = idx;
    return AXE_OK;
}

axe_status axe_tuple_prefix_product(const axe_tuple *t, axe_tuple *out)
{
    axe_tuple r;
    int64_t p = 1;
    axe__tuple_copy(&r, t);
    for (int i = 0; i < t->nleaf; i++) {
        r.v[i] = p;
        AXE_TRY(axe__mul(p, t->v[i], &p));
    }
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

axe_status axe_tuple_suffix_product(const axe_tuple *t, axe_tuple *out)
{
    axe_tuple r;
    int64_t p = 1;
    axe__tuple_copy(&r, t);
    for (int i = t->nleaf - 1; i >= 0; i--) {
        r.v[i] = p;
        AXE_TRY(axe__mul(p, t->v[i], &p));
    }
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

axe_status axe_shape_div(int64_t a, int64_t b, int64_t *out)
{
    if (b == 0 || a == INT64_MIN || b == INT64_MIN)
        return AXE_ERR_DIVISIBILITY;
    if (a % b == 0) {
        *out = a / b;
        return AXE_OK;
    }
    if (a != 0 && b % a == 0) {
        *out = (a < 0) != (b < 0) ? -1 : 1;
        return AXE_OK;
    }
    return AXE_ERR_DIVISIBILITY;
}

axe_status axe_ceil_div(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b <= 0)
        return AXE_ERR_DOMAIN;
    *out = axe__ceildiv(a, b);
    return AXE_OK;
}
