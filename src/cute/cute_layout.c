/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CuTe layouts: construction, the builder and structural operations (get,
 * take, select, group, flatten, append, prepend). A layout is its shape
 * tuple plus flat per-leaf strides and basis codes (axe/cute.h).
 */
#include <string.h>

#include "cute_internal.h"

void axe__cute_clear(axe_cute_layout *l) { axe__tuple_clear(&l->shape); }

void axe__cute_copy(axe_cute_layout *out, const axe_cute_layout *r)
{
    size_t n = r->shape.nleaf;
    if (out == r)
        return;
    axe__tuple_copy(&out->shape, &r->shape);
    axe__copy(out->stride, r->stride, n * sizeof(int64_t), sizeof out->stride);
    axe__copy(out->basis, r->basis, n * sizeof(uint32_t), sizeof out->basis);
}

int axe__cute_spans(const axe_cute_layout *l, axe__span *out, int max)
{
    return axe__tuple_spans(&l->shape, out, max);
}

axe_status axe__cute_append_modes(axe_cute_layout *l,
                                  const axe_cute_layout *src)
{
    axe__span sp = {1, src->shape.ntok - 1, 0, src->shape.nleaf};
    if (axe_tuple_is_scalar(&src->shape))
        sp = (axe__span){0, 1, 0, 1};
    return axe__cute_append_span(l, src, &sp);
}

void axe__cute_leaf(int64_t shape, int64_t stride, axe_cute_layout *out)
{
    axe_tuple_scalar(shape, &out->shape);
    out->stride[0] = stride;
    out->basis[0] = 0;
}

axe_status axe_cute_make(const axe_tuple *shape, const axe_tuple *stride,
                         axe_cute_layout *out)
{
    if (!axe_tuple_is_congruent(shape, stride))
        return AXE_ERR_INCOMPATIBLE;
    for (int i = 0; i < shape->nleaf; i++)
        if (shape->v[i] < 1)
            return AXE_ERR_DOMAIN;
    axe__tuple_copy(&out->shape, shape);
    memcpy(out->stride, stride->v, (size_t)shape->nleaf * sizeof(int64_t));
    memset(out->basis, 0, (size_t)shape->nleaf * sizeof(uint32_t));
    return AXE_OK;
}

axe_status axe_cute_make_col_major(const axe_tuple *shape, axe_cute_layout *out)
{
    axe_tuple st;
    AXE_TRY(axe_tuple_prefix_product(shape, &st));
    return axe_cute_make(shape, &st, out);
}

axe_status axe_cute_make_row_major(const axe_tuple *shape, axe_cute_layout *out)
{
    axe_tuple st;
    AXE_TRY(axe_tuple_suffix_product(shape, &st));
    return axe_cute_make(shape, &st, out);
}

axe_status axe_cute_make_ordered(const axe_tuple *shape, const axe_tuple *order,
                                 axe_cute_layout *out)
{
    axe_tuple st;
    int64_t p = 1;
    int n = shape->nleaf;
    bool done[AXE_TUPLE_MAX_LEAVES] = {false};
    if (order->nleaf != n || !axe_tuple_is_weakly_congruent(order, shape))
        return AXE_ERR_INCOMPATIBLE;
    axe__tuple_copy(&st, shape);
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (!done[i] && (best < 0 || order->v[i] < order->v[best]))
                best = i;
        done[best] = true;
        st.v[best] = p;
        AXE_TRY(axe__mul(p, shape->v[best], &p));
    }
    return axe_cute_make(shape, &st, out);
}

/* Identity strides for the subtree at token "tok": E<path..., i>. */
static axe_status identity_rec(const axe_tuple *shape, int *tok, int *leaf,
                               uint32_t code, int depth, int64_t scale,
                               axe_cute_layout *out)
{
    if (shape->tok[*tok] == 'x') {
        out->stride[*leaf] = depth == 0 ? scale : 1;
        out->basis[*leaf] = depth == 0 ? 0 : code;
        (*tok)++;
        (*leaf)++;
        return AXE_OK;
    }
    if (depth >= AXE_CUTE_BASIS_MAX_DEPTH)
        return AXE_ERR_CAPACITY;
    (*tok)++;
    for (int i = 0; shape->tok[*tok] != ')'; i++) {
        uint32_t sub = ((uint32_t)(depth + 1) << 24) | (code & 0xffffffu) |
                       ((uint32_t)i << (16 - 8 * depth));
        if (i > AXE_CUTE_BASIS_MAX_MODE)
            return AXE_ERR_CAPACITY;
        AXE_TRY(identity_rec(shape, tok, leaf, sub, depth + 1, scale, out));
    }
    (*tok)++;
    return AXE_OK;
}

axe_status axe_cute_make_identity(const axe_tuple *shape, axe_cute_layout *out)
{
    axe_cute_layout r;
    int tok = 0, leaf = 0;
    for (int i = 0; i < shape->nleaf; i++)
        if (shape->v[i] < 1)
            return AXE_ERR_DOMAIN;
    axe__tuple_copy(&r.shape, shape);
    AXE_TRY(identity_rec(shape, &tok, &leaf, 0, 0, 1, &r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

bool axe_cute_has_basis(const axe_cute_layout *l)
{
    for (int i = 0; i < l->shape.nleaf; i++)
        if (l->basis[i] != 0)
            return true;
    return false;
}

int axe_cute_rank(const axe_cute_layout *l)
{
    return axe_tuple_rank(&l->shape);
}

int axe_cute_depth(const axe_cute_layout *l)
{
    return axe_tuple_depth(&l->shape);
}

axe_status axe_cute_size(const axe_cute_layout *l, int64_t *out)
{
    return axe_tuple_size(&l->shape, out);
}

axe_status axe_cute_get(const axe_cute_layout *l, int i, axe_cute_layout *out)
{
    axe__span sp;
    axe_cute_layout r;
    AXE_TRY(axe__tuple_span(&l->shape, i, &sp));
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_append_span(&r, l, &sp));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

axe_status axe_cute_get_path(const axe_cute_layout *l, const int *path, int n,
                             axe_cute_layout *out)
{
    axe_cute_layout r;
    axe__cute_copy(&r, l);
    for (int k = 0; k < n; k++) {
        if (k > 0 && axe_tuple_is_scalar(&r.shape))
            return AXE_ERR_DOMAIN;
        AXE_TRY(axe_cute_get(&r, path[k], &r));
    }
    axe__cute_copy(out, &r);
    return AXE_OK;
}

axe_status axe_cute_select(const axe_cute_layout *l, const int *idx, int n,
                           axe_cute_layout *out)
{
    axe__span sp[AXE_TUPLE_MAX_TOKENS];
    int rank = axe__cute_spans(l, sp, AXE_TUPLE_MAX_TOKENS);
    axe_cute_layout r;
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    for (int k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= rank)
            return AXE_ERR_DOMAIN;
        AXE_TRY(axe__cute_append_span(&r, l, &sp[idx[k]]));
    }
    AXE_TRY(axe__cute_close(&r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

axe_status axe_cute_take(const axe_cute_layout *l, int b, int e,
                         axe_cute_layout *out)
{
    int idx[AXE_TUPLE_MAX_TOKENS];
    if (b < 0 || e < b || e - b > AXE_TUPLE_MAX_TOKENS)
        return AXE_ERR_DOMAIN;
    for (int k = b; k < e; k++)
        idx[k - b] = k;
    return axe_cute_select(l, idx, e - b, out);
}

axe_status axe_cute_group(const axe_cute_layout *l, int b, int e,
                          axe_cute_layout *out)
{
    axe__span sp[AXE_TUPLE_MAX_TOKENS];
    int rank = axe__cute_spans(l, sp, AXE_TUPLE_MAX_TOKENS);
    axe_cute_layout r;
    if (b < 0 || e < b || e > rank)
        return AXE_ERR_DOMAIN;
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_open(&r));
    for (int k = 0; k < rank; k++) {
        if (k == b)
            AXE_TRY(axe__cute_open(&r));
        AXE_TRY(axe__cute_append_span(&r, l, &sp[k]));
        if (k + 1 == e)
            AXE_TRY(axe__cute_close(&r));
    }
    if (b == e)
        return AXE_ERR_DOMAIN;
    AXE_TRY(axe__cute_close(&r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

axe_status axe_cute_flatten(const axe_cute_layout *l, axe_cute_layout *out)
{
    size_t n = l->shape.nleaf;
    if (out != l) {
        memcpy(out->stride, l->stride, n * sizeof(int64_t));
        memcpy(out->basis, l->basis, n * sizeof(uint32_t));
    }
    axe_tuple_flatten(&l->shape, &out->shape);
    return AXE_OK;
}

/* Tokens that "l" adds as one element, or with "modes" as its modes (a
 * tuple's tokens without the outer pair). */
static int joined_tokens(const axe_cute_layout *l, bool modes)
{
    return modes && !axe_tuple_is_scalar(&l->shape) ? l->shape.ntok - 2
                                                    : l->shape.ntok;
}

axe_status axe__cute_join(const axe_cute_layout *x, bool xm,
                          const axe_cute_layout *y, bool ym,
                          axe_cute_layout *out)
{
    axe_cute_layout r, *w = out == x || out == y ? &r : out;
    if (2 + joined_tokens(x, xm) + joined_tokens(y, ym) >
            AXE_TUPLE_MAX_TOKENS ||
        x->shape.nleaf + y->shape.nleaf > AXE_TUPLE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    axe__cute_clear(w);
    AXE_TRY(axe__cute_open(w));
    AXE_TRY(xm ? axe__cute_append_modes(w, x) : axe__cute_append(w, x));
    AXE_TRY(ym ? axe__cute_append_modes(w, y) : axe__cute_append(w, y));
    AXE_TRY(axe__cute_close(w));
    axe__cute_copy(out, w);
    return AXE_OK;
}

axe_status axe_cute_pair(const axe_cute_layout *a, const axe_cute_layout *b,
                         axe_cute_layout *out)
{
    return axe__cute_join(a, false, b, false, out);
}

axe_status axe_cute_append(const axe_cute_layout *a, const axe_cute_layout *b,
                           axe_cute_layout *out)
{
    return axe__cute_join(a, true, b, false, out);
}

axe_status axe_cute_prepend(const axe_cute_layout *a, const axe_cute_layout *b,
                            axe_cute_layout *out)
{
    return axe__cute_join(a, false, b, true, out);
}

bool axe_cute_equal(const axe_cute_layout *a, const axe_cute_layout *b)
{
    if (!axe_tuple_equal(&a->shape, &b->shape))
        return false;
    for (int i = 0; i < a->shape.nleaf; i++)
        if (a->shape.v[i] > 1 &&
            (a->stride[i] != b->stride[i] || a->basis[i] != b->basis[i]))
            return false;
    return true;
}
