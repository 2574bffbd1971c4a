/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The complement of a CuTe layout (CuTe's complement): the layout R that
 * fills the gaps a leaves below a cotarget M. On one codomain coordinate,
 * a's nonzero-stride modes s_i:d_i, sorted by stride, are walked from
 * x = 1: each contributes the gap mode (d_i / x):x (integer division, as
 * CuTe) and moves x to s_i d_i; a last mode ceil(M / x):x repeats the
 * whole, and R is coalesced. Its box is [0, ceil(M / x) x).
 *
 * With scaled-basis strides each codomain coordinate E<p> is walked on its
 * own and R is a tuple shaped like the codomain tree (cute_inverse.c),
 * with the cotarget given per coordinate: the default (cosize of each
 * coordinate), a shape weakly congruent to the codomain (mode k to child
 * k; the last mode also takes the children past it, and a scalar all
 * children of its node), flattened as CuTe's idx2crd flattens a shape:
 * every coordinate but the last of a flattened group gets its own extent
 * x, the last the rest, ceil(M / product of the others' boxes).
 *
 * Invariant: a returned R is strictly increasing in the colex order of
 * its box, (a, R) is injective on a's image (R(j) is in it only for
 * j = 0) and lies inside the box, and onto the box when every sorted
 * stride is a multiple of the extent below it (docs/algebra.md).
 */
#include "cute_internal.h"

/* CuTe's default cotarget: cosize = 1 + sum (s-1) d of the modes "ord". */
static axe_status default_cotarget(const axe__cute_modes *m, const int *ord,
                                   int n, int64_t *out, axe_diag *diag)
{
    int64_t r = 1, t;
    for (int i = 0; i < n; i++)
        if (axe__mul(m->shape[ord[i]] - 1, m->stride[ord[i]], &t) != AXE_OK ||
            axe__add(r, t, &r) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the cosize of the layout overflows");
    *out = r;
    return AXE_OK;
}

/* Mode "j" starts below "x", the extent reached by mode "p" (the previous
 * in stride order): a witness of a repeat if d_j is a multiple of d_p,
 * interleaved modes otherwise; either way no complement exists. */
static axe_status overlap_fail(const axe__cute_modes *m, int p, int j,
                               int64_t x, axe_diag *diag)
{
    int64_t d = m->stride[j], dp = m->stride[p];
    if (d % dp == 0)
        return axe__fail(diag, AXE_ERR_NOT_INJECTIVE, -1,
                         "complement of a non-injective layout: stride "
                         "%lld (leaf %d) is %lld times stride %lld of the "
                         "mode %lld:%lld at leaf %d",
                         (long long)d, m->leaf[j], (long long)(d / dp),
                         (long long)dp, (long long)m->shape[p], (long long)dp,
                         m->leaf[p]);
    return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                     "complement of interleaved modes: stride %lld (leaf "
                     "%d) is less than %lld, the extent of the mode "
                     "%lld:%lld at leaf %d below it",
                     (long long)d, m->leaf[j], (long long)x,
                     (long long)m->shape[p], (long long)dp, m->leaf[p]);
}

/* The gap modes of the walk over "m" into shape/stride (*k of them) and
 * the extent x reached. */
static axe_status walk(const axe__cute_modes *m, const int *ord, int n,
                       int64_t *shape, int64_t *stride, int *k, int64_t *x,
                       axe_diag *diag)
{
    *x = 1;
    for (int i = 0; i < n; i++) {
        int j = ord[i];
        int64_t gap;
        if (m->stride[j] < *x) /* i > 0: the first stride is >= 1 */
            return overlap_fail(m, ord[i - 1], j, *x, diag);
        gap = axe__quot(m->stride[j], *x);
        if (gap > 1) {
            shape[*k] = gap;
            stride[(*k)++] = *x;
        }
        if (axe__mul(m->stride[j], m->shape[j], x) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the extent of leaf %d overflows", m->leaf[j]);
    }
    return AXE_OK;
}

/* The complement of the modes "m" of one coordinate with respect to
 * "cotarget" (< 0: the default), coalesced, into "g"; *box = its box
 * extent ceil(M / x) x. "ext" (the extended complement) keeps the last
 * mode ceil(M / x):x even when its extent is 1. */
static axe_status comp_modes(const axe__cute_modes *m, int64_t cotarget,
                             bool ext, axe__cute_group *g, int64_t *box,
                             axe_diag *diag)
{
    int ord[AXE_CUTE_MAX_LEAVES], n = axe__cute_modes_sorted(m, ord), k = 0;
    int64_t x, rest;
    if (n > 0 && m->stride[ord[0]] < 0)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "complement of a negative stride (%lld, leaf %d)",
                         (long long)m->stride[ord[0]], m->leaf[ord[0]]);
    if (cotarget < 0)
        AXE_TRY(default_cotarget(m, ord, n, &cotarget, diag));
    AXE_TRY(walk(m, ord, n, g->shape, g->stride, &k, &x, diag));
    rest = axe__ceil_quot(cotarget, x);
    if (axe__mul(rest, x, box) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                         "the complement's extent overflows");
    if (rest > 1 || ext) {
        g->shape[k] = rest;
        g->stride[k++] = x;
    }
    g->n = k;
    return AXE_OK;
}

/* The same as one element of "out", with basis "code". */
static axe_status comp_leaf(const axe__cute_modes *m, uint32_t code,
                            int64_t cotarget, bool ext, axe_cute_layout *out,
                            int64_t *box, axe_diag *diag)
{
    axe__cute_group g;
    AXE_TRY(comp_modes(m, cotarget, ext, &g, box, diag));
    return axe__cute_push_group(out, g.shape, g.stride, g.n, code);
}

/* ---- cotargets over the codomain tree ---------------------------------- */

/* The cotarget of one codomain node: the subtree "sp" of the shape "t", or
 * the scalar "m" when "t" is NULL (m < 0: the default); "ext": the
 * extended complement. */
typedef struct cot {
    const axe_tuple *t;
    axe__span sp;
    int64_t m;
    bool ext;
} cot;

static cot cot_scalar(int64_t m, bool ext)
{
    cot c = {NULL, {0, 0, 0, 0}, m, ext};
    return c;
}

/* The scalar of "c": m, or the size of its subtree. */
static axe_status cot_value(const cot *c, int64_t *out, axe_diag *diag)
{
    int64_t r = 1;
    if (c->t == NULL) {
        *out = c->m;
        return AXE_OK;
    }
    for (int i = c->sp.lb; i < c->sp.le; i++)
        if (axe__mul(r, c->t->v[i], &r) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the size of the cotarget overflows");
    *out = r;
    return AXE_OK;
}

/* The modes of a tuple cotarget into "kids" (their number; 0 for a
 * scalar or a leaf). */
static int cot_children(const cot *c, cot *kids)
{
    int n = 0, leaf;
    if (c->t == NULL || c->t->tok[c->sp.tb] != '(')
        return 0;
    leaf = c->sp.lb;
    for (int i = c->sp.tb + 1; i < c->sp.te - 1;) {
        int e = axe__tuple_subtree_end(c->t->tok, i);
        int nl = axe__tuple_count_leaves(c->t->tok, i, e);
        kids[n].t = c->t;
        kids[n].sp = (axe__span){i, e, leaf, leaf + nl};
        kids[n].ext = c->ext;
        kids[n++].m = 0;
        leaf += nl;
        i = e;
    }
    return n;
}

static axe_status comp_node(const axe__cute_modes *m, uint32_t node, int depth,
                            const cot *c, axe_cute_layout *out, int64_t *box,
                            axe_diag *diag);

/* Codomain child "code" (depth "depth") complemented w.r.t. "c". */
static axe_status comp_child(const axe__cute_modes *m, uint32_t code, int depth,
                             const cot *c, axe_cute_layout *out, int64_t *box,
                             axe_diag *diag)
{
    axe__cute_modes sub;
    bool deeper;
    int64_t v;
    AXE_TRY(axe__cute_codomain_select(m, code, depth, &sub, &deeper, diag));
    if (deeper)
        return comp_node(m, code, depth, c, out, box, diag);
    AXE_TRY(cot_value(c, &v, diag));
    return comp_leaf(&sub, code, v, c->ext, out, box, diag);
}

/* The cotarget of child "k" of a node with "n" children whose own
 * cotarget has the modes kids[0..r): kids[k] up to the last mode g = r-1,
 * which (like a scalar, g = 0) is flattened over children g..n-1 with
 * "mg": 1 for all but the last, which gets ceil(mg / boxes before it). */
static cot child_cot(const cot *kids, int r, int n, int k, int64_t mg,
                     int64_t boxes, bool ext)
{
    int g = r > 0 ? r - 1 : 0;
    if (k < g || (r > 0 && n == r))
        return kids[k];
    if (mg < 0)
        return cot_scalar(-1, ext);
    return cot_scalar(k < n - 1 ? 1 : axe__ceildiv(mg, boxes), ext);
}

/* The tuple of the children of codomain node "node", as many as the
 * codomain and the cotarget have; *box = the product of their boxes. */
static axe_status comp_node(const axe__cute_modes *m, uint32_t node, int depth,
                            const cot *c, axe_cute_layout *out, int64_t *box,
                            axe_diag *diag)
{
    cot kids[AXE_TUPLE_MAX_TOKENS], ck;
    int r = cot_children(c, kids), g = r > 0 ? r - 1 : 0;
    int n = axe__cute_codomain_last(m, node, depth) + 1;
    int64_t mg, b = 1, bg = 1, bk;
    n = r > n ? r : n;
    AXE_TRY(r > 0 ? cot_value(&kids[g], &mg, diag) : cot_value(c, &mg, diag));
    AXE_TRY(axe__cute_open(out));
    for (int k = 0; k < n; k++) {
        ck = child_cot(kids, r, n, k, mg, bg, c->ext);
        AXE_TRY(comp_child(m, axe__cute_codomain_child(node, depth, k),
                           depth + 1, &ck, out, &bk, diag));
        if (axe__mul(b, bk, &b) != AXE_OK ||
            (k >= g && axe__mul(bg, bk, &bg) != AXE_OK))
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the complement's extent overflows");
    }
    *box = b;
    return axe__cute_close(out);
}

/* Append the complement of "a" with respect to the root cotarget "c" to
 * "out" (AXE_ERR_CAPACITY without a reason). */
static axe_status complement_into(const axe_cute_layout *a, const cot *c,
                                  axe_cute_layout *out, axe_diag *diag)
{
    axe__cute_modes m;
    int64_t v, box;
    bool basis;
    AXE_TRY(axe__cute_read_modes(a, false, &m, diag));
    AXE_TRY(axe__cute_codomain_kind(&m, &basis, diag));
    if (basis)
        return comp_node(&m, 0, 0, c, out, &box, diag);
    AXE_TRY(cot_value(c, &v, diag));
    return comp_leaf(&m, 0, v, c->ext, out, &box, diag);
}

/* The complement of "a" with respect to the root cotarget "c": for
 * integer strides its modes, then the whole result (written once known,
 * as "m" holds all of a that is read); else built and copied. */
static axe_status complement_of(const axe_cute_layout *a, const cot *c,
                                axe_cute_layout *out, axe_diag *diag)
{
    axe__cute_modes m;
    axe__cute_group g;
    axe_cute_layout r;
    int64_t v, box;
    bool basis;
    AXE_TRY(axe__cute_read_modes(a, false, &m, diag));
    AXE_TRY(axe__cute_codomain_kind(&m, &basis, diag));
    if (!basis) {
        AXE_TRY(cot_value(c, &v, diag));
        AXE_TRY(comp_modes(&m, v, c->ext, &g, &box, diag));
        return axe__cute_set_group(out, &g, 0, diag);
    }
    axe__cute_clear(&r);
    AXE_TRY(axe__cute_capacity(comp_node(&m, 0, 0, c, &r, &box, diag), diag));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

/* The cotarget extents "v" in [lb, le) are positive. */
static axe_status check_cotarget(const int64_t *v, int lb, int le,
                                 axe_diag *diag)
{
    for (int i = lb; i < le; i++)
        if (v[i] < 1)
            return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                             "the cotarget's extents must be positive, not "
                             "%lld",
                             (long long)v[i]);
    return AXE_OK;
}

/*
 * complement(a, M): R strictly increasing, (a, R) injective on a's image
 * and inside the box [0, ceil(M / x) x) (x the extent of a's sorted walk),
 * onto it when every sorted stride is a multiple of the extent below it.
 * M < 0 means cosize(a), per coordinate for scaled bases; a scalar M for
 * scaled bases is flattened over the codomain (the file comment).
 * AXE_ERR_NOT_INJECTIVE / AXE_ERR_DOMAIN when a sorted stride lies below
 * the extent of the modes before it.
 */
static axe_status complement_scalar(const axe_cute_layout *a, int64_t cotarget,
                                    bool ext, axe_cute_layout *out,
                                    axe_diag *diag)
{
    cot c = cot_scalar(cotarget, ext);
    if (cotarget == 0)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "the cotarget must be positive (or negative for "
                         "the default, cosize(a))");
    return complement_of(a, &c, out, diag);
}

axe_status axe_cute_complement(const axe_cute_layout *a, int64_t cotarget,
                               axe_cute_layout *out, axe_diag *diag)
{
    return complement_scalar(a, cotarget, false, out, diag);
}

/*
 * The extended complement (the CuTe paper's, Eqs. 28-29): the modes of
 * complement(a, M) before coalescing's last step, so the last mode
 * ceil(M / x):x stays even at extent 1. R agrees with complement(a, M) on
 * [0, size(R)), and on CuTe's extended domain (the last mode taking every
 * index past size(R)) R(q size(R) + j) = q B + R(j), B = ceil(M / x) x:
 * (a, R) stays injective on every [0, q B) and is onto it when the
 * strides divide. complement((4,8):(1,4)) = 1:32, ((4,8):(1,8)) =
 * (2,1):(4,64).
 */
axe_status axe_cute_complement_extended(const axe_cute_layout *a,
                                        int64_t cotarget, axe_cute_layout *out,
                                        axe_diag *diag)
{
    return complement_scalar(a, cotarget, true, out, diag);
}

/*
 * complement(a, S) for a shape S: complement(a, size(S)) for integer
 * strides; for scaled bases mode k of S is the cotarget of codomain
 * coordinate k (its last mode flattened over the coordinates past it).
 */
axe_status axe_cute_complement_shape(const axe_cute_layout *a,
                                     const axe_tuple *cotarget,
                                     axe_cute_layout *out, axe_diag *diag)
{
    cot c = {cotarget, {0, cotarget->ntok, 0, cotarget->nleaf}, 0, false};
    AXE_TRY(check_cotarget(cotarget->v, 0, cotarget->nleaf, diag));
    return complement_of(a, &c, out, diag);
}

axe_status axe__cute_complement_append(const axe_cute_layout *a,
                                       const axe_tuple *cotarget,
                                       const axe__span *sp,
                                       axe_cute_layout *out, axe_diag *diag)
{
    cot c = {cotarget, *sp, 0, false};
    AXE_TRY(check_cotarget(cotarget->v, sp->lb, sp->le, diag));
    return complement_into(a, &c, out, diag);
}
