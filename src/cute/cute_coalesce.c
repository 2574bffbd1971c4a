/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Coalesce and filter: rewriting a layout into the fewest flat modes that
 * compute the same function. Two neighbouring leaves s0:d0, s1:d1 merge into
 * s0*s1:d0 exactly when d1 == s0*d0 (same basis), because then
 * c0*d0 + c1*d1 == (c0 + s0*c1)*d0 for every coordinate; leaves of extent 1
 * contribute nothing and are dropped. Invariant of every result: depth <= 1,
 * no two neighbouring modes mergeable, no mode of extent 1 except the
 * single mode `1:0` of a size-1 layout, or (extended form only) a last
 * mode whose stride continues the function past the size.
 */
#include "cute_internal.h"

/* True if s0:d0 followed by a leaf of stride "d" (basis "b") merges. */
static bool mergeable(int64_t s0, int64_t d0, uint32_t b0, int64_t d,
                      uint32_t b)
{
    int64_t p;
    if (__builtin_mul_overflow(s0, d0, &p) || p != d)
        return false;
    return d == 0 || b0 == b;
}

/* Append s:d (basis "b") to "f", merging it into the last mode if it can. */
static axe_status flat_put(axe__cute_flat *f, int64_t s, int64_t d, uint32_t b)
{
    int k = f->n - 1;
    if (k >= 0 && mergeable(f->shape[k], f->stride[k], f->basis[k], d, b))
        return axe__mul(f->shape[k], s, &f->shape[k]);
    if (f->n >= AXE_CUTE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    f->shape[f->n] = s;
    f->stride[f->n] = d;
    f->basis[f->n++] = d == 0 ? 0 : b;
    return AXE_OK;
}

axe_status axe__cute_coalesce_leaves(const axe_cute_layout *l, int lb, int le,
                                     bool extended, axe__cute_flat *out)
{
    out->n = 0;
    for (int i = lb; i < le; i++) {
        bool keep = extended && i + 1 == le;
        if (l->shape.v[i] == 1 && !keep)
            continue;
        AXE_TRY(flat_put(out, l->shape.v[i], l->stride[i], l->basis[i]));
    }
    if (out->n == 0) {
        out->shape[0] = 1;
        out->stride[0] = 0;
        out->basis[0] = 0;
        out->n = 1;
    }
    return AXE_OK;
}

/* Append the modes of "f" to "out" as one element: a leaf if there is one
 * mode, a flat tuple otherwise. */
static axe_status put_flat(axe_cute_layout *out, const axe__cute_flat *f)
{
    if (f->n == 1)
        return axe__cute_push(out, f->shape[0], f->stride[0], f->basis[0]);
    AXE_TRY(axe__cute_open(out));
    for (int i = 0; i < f->n; i++)
        AXE_TRY(axe__cute_push(out, f->shape[i], f->stride[i], f->basis[i]));
    return axe__cute_close(out);
}

/* coalesce or coalesce_x of all of "l" into "out", written once "f" holds
 * the modes (at most one per leaf of "l": it fits, and "l" is no longer
 * read, so "out" may be "l"). */
static axe_status coalesce_all(const axe_cute_layout *l, bool extended,
                               axe_cute_layout *out)
{
    axe__cute_flat f;
    int64_t size;
    AXE_TRY(axe_cute_size(l, &size));
    AXE_TRY(axe__cute_coalesce_leaves(l, 0, l->shape.nleaf, extended, &f));
    axe__cute_clear(out);
    return put_flat(out, &f);
}

axe_status axe_cute_coalesce(const axe_cute_layout *l, axe_cute_layout *out)
{
    return coalesce_all(l, false, out);
}

axe_status axe_cute_coalesce_extended(const axe_cute_layout *l,
                                      axe_cute_layout *out)
{
    return coalesce_all(l, true, out);
}

/* A subtree of a tuple: tokens [tb, te), first leaf lb. */
typedef struct subtree {
    int tb, te, lb;
} subtree;

/* Child "i" of the subtree "t" of "shape" (a leaf's child 0 is itself);
 * false if there is no such child. */
static bool child(const axe_tuple *shape, const subtree *t, int i, subtree *out)
{
    int tok = t->tb + 1, leaf = t->lb;
    if (shape->tok[t->tb] == 'x') {
        *out = *t;
        return i == 0;
    }
    for (; shape->tok[tok] != ')'; i--) {
        int e = axe__tuple_subtree_end(shape->tok, tok);
        if (i == 0) {
            *out = (subtree){tok, e, leaf};
            return true;
        }
        leaf += axe__tuple_count_leaves(shape->tok, tok, e);
        tok = e;
    }
    return false;
}

/* Number of children of subtree "t" (1 for a leaf). */
static int nchildren(const axe_tuple *shape, const subtree *t)
{
    subtree c;
    int n = 0;
    while (child(shape, t, n, &c))
        n++;
    return n;
}

/* Append the subtree "t" of "l" to "out" unchanged. */
static axe_status put_subtree(axe_cute_layout *out, const axe_cute_layout *l,
                              const subtree *t)
{
    axe__span sp;
    sp.tb = t->tb;
    sp.te = t->te;
    sp.lb = t->lb;
    sp.le = t->lb + axe__tuple_count_leaves(l->shape.tok, t->tb, t->te);
    return axe__cute_append_span(out, l, &sp);
}

/* Coalesce the subtree "t" of "l" by the profile subtree "p" of "prof",
 * appending one element to "out". */
static axe_status by_profile(const axe_cute_layout *l, const subtree *t,
                             const axe_tuple *prof, const subtree *p,
                             axe_cute_layout *out)
{
    axe__cute_flat f;
    int pr, lr;
    if (prof->tok[p->tb] == 'x') {
        int le = t->lb + axe__tuple_count_leaves(l->shape.tok, t->tb, t->te);
        AXE_TRY(axe__cute_coalesce_leaves(l, t->lb, le, false, &f));
        return put_flat(out, &f);
    }
    pr = nchildren(prof, p);
    lr = nchildren(&l->shape, t);
    if (pr > lr)
        return AXE_ERR_INCOMPATIBLE;
    AXE_TRY(axe__cute_open(out));
    for (int i = 0; i < lr; i++) {
        subtree lc, pc;
        (void)child(&l->shape, t, i, &lc);
        if (i < pr) {
            (void)child(prof, p, i, &pc);
            AXE_TRY(by_profile(l, &lc, prof, &pc, out));
        } else {
            AXE_TRY(put_subtree(out, l, &lc));
        }
    }
    return axe__cute_close(out);
}

axe_status axe_cute_coalesce_by(const axe_cute_layout *l,
                                const axe_tuple *profile, axe_cute_layout *out)
{
    axe_cute_layout r;
    subtree t = {0, l->shape.ntok, 0};
    subtree p = {0, profile->ntok, 0};
    int64_t size;
    AXE_TRY(axe_cute_size(l, &size));
    axe__cute_clear(&r);
    AXE_TRY(by_profile(l, &t, profile, &p, &r));
    axe__cute_copy(out, &r);
    return AXE_OK;
}

axe_status axe_cute_filter_zeros(const axe_cute_layout *l, axe_cute_layout *out)
{
    axe__cute_copy(out, l);
    for (int i = 0; i < out->shape.nleaf; i++) {
        if (out->stride[i] == 0) {
            out->shape.v[i] = 1;
            out->basis[i] = 0;
        }
    }
    return AXE_OK;
}

axe_status axe_cute_filter(const axe_cute_layout *l, axe_cute_layout *out)
{
    axe_cute_layout z;
    AXE_TRY(axe_cute_filter_zeros(l, &z));
    return axe_cute_coalesce(&z, out);
}
