/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evaluation of CuTe layouts: L(idx) = sum over leaves of c_i * d_i, where
 * c is the colexicographic unflattening of idx over the leaves (the last
 * leaf absorbs idx >= size, as CuTe's idx2crd does), and cosize.
 */
#include "cute_internal.h"

/* Sum of c_k * d_k over leaves [lb, le) for the colex unflattening of
 * "idx" over them, the last leaf absorbing the rest. */
static axe_status eval_leaves(const axe_cute_layout *l, int lb, int le,
                              int64_t idx, int64_t *out)
{
    int64_t r = 0, t;
    if (idx < 0)
        return AXE_ERR_DOMAIN;
    for (int i = lb; i < le; i++) {
        int64_t s = l->shape.v[i];
        int64_t c = i + 1 < le ? idx % s : idx;
        if (l->basis[i] != 0)
            return AXE_ERR_UNSUPPORTED;
        idx /= s;
        AXE_TRY(axe__mul(c, l->stride[i], &t));
        AXE_TRY(axe__add(r, t, &r));
    }
    *out = r;
    return AXE_OK;
}

/* L restricted to the subtree at "ts"/"ls" applied to the coordinate
 * subtree of "crd" at "tc"/"lc" (CuTe's crd2idx with the layout's stride:
 * a scalar coordinate indexes its whole subtree). */
static axe_status eval_crd_rec(const axe_cute_layout *l, int *ts, int *ls,
                               const axe_tuple *crd, int *tc, int *lc,
                               int64_t *out)
{
    int64_t r = 0, t;
    if (crd->tok[*tc] == 'x') {
        int e = axe__tuple_subtree_end(l->shape.tok, *ts);
        int n = axe__tuple_count_leaves(l->shape.tok, *ts, e);
        if (crd->v[*lc] == AXE_UNDERSCORE)
            return AXE_ERR_INVALID;
        AXE_TRY(eval_leaves(l, *ls, *ls + n, crd->v[*lc], out));
        *ts = e;
        *ls += n;
        (*tc)++;
        (*lc)++;
        return AXE_OK;
    }
    if (l->shape.tok[*ts] != '(')
        return AXE_ERR_INCOMPATIBLE;
    (*ts)++;
    (*tc)++;
    while (crd->tok[*tc] != ')') {
        if (l->shape.tok[*ts] == ')')
            return AXE_ERR_INCOMPATIBLE;
        AXE_TRY(eval_crd_rec(l, ts, ls, crd, tc, lc, &t));
        AXE_TRY(axe__add(r, t, &r));
    }
    if (l->shape.tok[*ts] != ')')
        return AXE_ERR_INCOMPATIBLE;
    (*ts)++;
    (*tc)++;
    *out = r;
    return AXE_OK;
}

axe_status axe_cute_eval(const axe_cute_layout *l, int64_t idx, int64_t *out)
{
    return eval_leaves(l, 0, l->shape.nleaf, idx, out);
}

axe_status axe_cute_eval_crd(const axe_cute_layout *l, const axe_tuple *crd,
                             int64_t *out)
{
    int ts = 0, ls = 0, tc = 0, lc = 0;
    int64_t r;
    AXE_TRY(eval_crd_rec(l, &ts, &ls, crd, &tc, &lc, &r));
    *out = r;
    return AXE_OK;
}

/* Add "v" to the component "code" of "p", keeping codes sorted. */
static axe_status point_add(axe_cute_point *p, uint32_t code, int64_t v)
{
    int i = 0;
    while (i < p->n && p->basis[i] < code)
        i++;
    if (i < p->n && p->basis[i] == code)
        return axe__add(p->v[i], v, &p->v[i]);
    if (p->n >= AXE_CUTE_POINT_MAX)
        return AXE_ERR_CAPACITY;
    for (int k = p->n; k > i; k--) {
        p->basis[k] = p->basis[k - 1];
        p->v[k] = p->v[k - 1];
    }
    p->basis[i] = code;
    p->v[i] = v;
    p->n++;
    return AXE_OK;
}

static void point_drop_zeros(axe_cute_point *p)
{
    int k = 0;
    for (int i = 0; i < p->n; i++) {
        if (p->v[i] == 0)
            continue;
        p->basis[k] = p->basis[i];
        p->v[k++] = p->v[i];
    }
    p->n = k;
}

axe_status axe_cute_eval_point(const axe_cute_layout *l, int64_t idx,
                               axe_cute_point *out)
{
    axe_cute_point p;
    int n = l->shape.nleaf;
    if (idx < 0)
        return AXE_ERR_DOMAIN;
    p.n = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = l->shape.v[i], t;
        int64_t c = i + 1 < n ? idx % s : idx;
        idx /= s;
        AXE_TRY(axe__mul(c, l->stride[i], &t));
        if (t != 0)
            AXE_TRY(point_add(&p, l->basis[i], t));
    }
    point_drop_zeros(&p);
    out->n = p.n;
    for (int i = 0; i < p.n; i++) {
        out->basis[i] = p.basis[i];
        out->v[i] = p.v[i];
    }
    return AXE_OK;
}

bool axe_cute_point_equal(const axe_cute_point *a, const axe_cute_point *b)
{
    if (a->n != b->n)
        return false;
    for (int i = 0; i < a->n; i++)
        if (a->basis[i] != b->basis[i] || a->v[i] != b->v[i])
            return false;
    return true;
}

/* cosize of an integer layout: 1 + sum (s-1)|d|. */
static axe_status int_cosize(const axe_cute_layout *l, int64_t *out)
{
    int64_t r = 0, t;
    for (int i = 0; i < l->shape.nleaf; i++) {
        if (l->stride[i] == INT64_MIN)
            return AXE_ERR_OVERFLOW;
        AXE_TRY(axe__mul(l->shape.v[i] - 1, axe__abs(l->stride[i]), &t));
        AXE_TRY(axe__add(r, t, &r));
    }
    if (r == INT64_MAX)
        return AXE_ERR_OVERFLOW;
    *out = r + 1;
    return AXE_OK;
}

axe_status axe_cute_cosize(const axe_cute_layout *l, int64_t *out)
{
    axe_cute_point span;
    int64_t r = 1;
    if (!axe_cute_has_basis(l))
        return int_cosize(l, out);
    span.n = 0;
    for (int i = 0; i < l->shape.nleaf; i++) {
        int64_t t;
        if (l->stride[i] == INT64_MIN)
            return AXE_ERR_OVERFLOW;
        AXE_TRY(axe__mul(l->shape.v[i] - 1, axe__abs(l->stride[i]), &t));
        AXE_TRY(point_add(&span, l->basis[i], t));
    }
    for (int i = 0; i < span.n; i++) {
        if (span.v[i] == INT64_MAX)
            return AXE_ERR_OVERFLOW;
        AXE_TRY(axe__mul(r, span.v[i] + 1, &r));
    }
    *out = r;
    return AXE_OK;
}
