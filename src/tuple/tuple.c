/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hierarchical integer tuples: structure queries, the builder and
 * comparison. The profile is a token string over '(' ')' 'x' with the leaves
 * in preorder (see axe/tuple.h for the invariant).
 */
#include <string.h>

#include "tuple_internal.h"

void axe_tuple_scalar(int64_t value, axe_tuple *out)
{
    out->ntok = 1;
    out->nleaf = 1;
    out->tok[0] = 'x';
    out->v[0] = value;
}

axe_status axe_tuple_from_array(const int64_t *v, int n, axe_tuple *out)
{
    axe_tuple t;
    if (n < 0)
        return AXE_ERR_INVALID;
    axe__tuple_clear(&t);
    AXE_TRY(axe__tuple_open(&t));
    for (int i = 0; i < n; i++)
        AXE_TRY(axe__tuple_push(&t, v[i]));
    AXE_TRY(axe__tuple_close(&t));
    axe__tuple_copy(out, &t);
    return AXE_OK;
}

bool axe_tuple_is_scalar(const axe_tuple *t) { return t->tok[0] == 'x'; }

int axe__tuple_subtree_end(const char *tok, int tb)
{
    int d = 0, i = tb;
    do {
        if (tok[i] == '(')
            d++;
        else if (tok[i] == ')')
            d--;
        i++;
    } while (d > 0);
    return i;
}

int axe__tuple_count_leaves(const char *tok, int tb, int te)
{
    int n = 0;
    for (int i = tb; i < te; i++)
        n += tok[i] == 'x';
    return n;
}

int axe__tuple_child_spans(const axe_tuple *t, const axe__span *sp,
                           axe__span *out)
{
    int n = 0, leaf = sp->lb;
    if (t->tok[sp->tb] == 'x') {
        out[0] = *sp;
        return 1;
    }
    for (int i = sp->tb + 1, e, nl; i < sp->te - 1; i = e, leaf += nl) {
        e = i + 1;
        nl = 1;
        if (t->tok[i] == '(') {
            e = axe__tuple_subtree_end(t->tok, i);
            nl = axe__tuple_count_leaves(t->tok, i, e);
        }
        out[n++] = (axe__span){i, e, leaf, leaf + nl};
    }
    return n;
}

int axe__tuple_spans(const axe_tuple *t, axe__span *out, int max)
{
    axe__span whole = {0, t->ntok, 0, t->nleaf}, sp[AXE_TUPLE_MAX_TOKENS];
    int n;
    if (max >= AXE_TUPLE_MAX_TOKENS)
        return axe__tuple_child_spans(t, &whole, out);
    n = axe__tuple_child_spans(t, &whole, sp);
    if (n > max)
        return -1;
    memcpy(out, sp, (size_t)n * sizeof(axe__span));
    return n;
}

int axe_tuple_rank(const axe_tuple *t)
{
    int n = 0, d = 0;
    if (axe_tuple_is_scalar(t))
        return 1;
    for (int i = 1; i < t->ntok - 1; i++) {
        char c = t->tok[i];
        n += d == 0;
        d += c == '(' ? 1 : c == ')' ? -1 : 0;
    }
    return n;
}

int axe_tuple_depth(const axe_tuple *t)
{
    int d = 0, best = 0;
    for (int i = 0; i < t->ntok; i++) {
        if (t->tok[i] == '(')
            d++;
        else if (t->tok[i] == ')')
            d--;
        if (d > best)
            best = d;
    }
    return best;
}

axe_status axe__tuple_span(const axe_tuple *t, int i, axe__span *out)
{
    int tok = 1, leaf = 0;
    if (axe_tuple_is_scalar(t)) {
        if (i != 0)
            return AXE_ERR_DOMAIN;
        *out = (axe__span){0, 1, 0, 1};
        return AXE_OK;
    }
    for (int k = 0; k <= i && tok < t->ntok - 1; k++) {
        int e = axe__tuple_subtree_end(t->tok, tok);
        int nl = axe__tuple_count_leaves(t->tok, tok, e);
        if (k == i) {
            *out = (axe__span){tok, e, leaf, leaf + nl};
            return AXE_OK;
        }
        leaf += nl;
        tok = e;
    }
    return AXE_ERR_DOMAIN;
}

axe_status axe_tuple_size(const axe_tuple *t, int64_t *out)
{
    int64_t s = 1;
    for (int i = 0; i < t->nleaf; i++)
        AXE_TRY(axe__mul(s, t->v[i], &s));
    *out = s;
    return AXE_OK;
}

void axe__tuple_copy(axe_tuple *out, const axe_tuple *t)
{
    if (out == t)
        return;
    out->nleaf = t->nleaf;
    out->ntok = t->ntok;
    axe__copy(out->tok, t->tok, t->ntok, sizeof out->tok);
    axe__copy(out->v, t->v, (size_t)t->nleaf * sizeof(int64_t), sizeof out->v);
}

void axe__tuple_clear(axe_tuple *t)
{
    t->ntok = 0;
    t->nleaf = 0;
}

bool axe__tuple_is_valid(const axe_tuple *t)
{
    int d = 0, leaves = 0;
    if (t->ntok == 0)
        return false;
    for (int i = 0; i < t->ntok; i++) {
        char c = t->tok[i];
        if (c == '(')
            d++;
        else if (c == ')')
            d--;
        else if (c == 'x')
            leaves++;
        else
            return false;
        if (d < 0 || (d == 0 && i + 1 < t->ntok))
            return false;
    }
    return d == 0 && leaves == t->nleaf &&
           (t->ntok == 1 ? t->tok[0] == 'x' : t->tok[0] == '(');
}

axe_status axe_tuple_get(const axe_tuple *t, int i, axe_tuple *out)
{
    axe__span sp;
    axe_tuple r;
    AXE_TRY(axe__tuple_span(t, i, &sp));
    axe__tuple_clear(&r);
    AXE_TRY(axe__tuple_append_span(&r, t, &sp));
    axe__tuple_copy(out, &r);
    return AXE_OK;
}

void axe_tuple_flatten(const axe_tuple *t, axe_tuple *out)
{
    axe_tuple r;
    if (axe_tuple_is_scalar(t)) {
        axe__tuple_copy(out, t);
        return;
    }
    axe__tuple_clear(&r);
    r.tok[r.ntok++] = '(';
    for (int i = 0; i < t->nleaf; i++) {
        r.tok[r.ntok++] = 'x';
        r.v[r.nleaf++] = t->v[i];
    }
    r.tok[r.ntok++] = ')';
    axe__tuple_copy(out, &r);
}

bool axe_tuple_is_congruent(const axe_tuple *a, const axe_tuple *b)
{
    return a->ntok == b->ntok && memcmp(a->tok, b->tok, (size_t)a->ntok) == 0;
}

bool axe_tuple_equal(const axe_tuple *a, const axe_tuple *b)
{
    return axe_tuple_is_congruent(a, b) &&
           memcmp(a->v, b->v, (size_t)a->nleaf * sizeof(int64_t)) == 0;
}

/* Walk "a" and "b" together from tokens ia, ib; a leaf of "a" matches any
 * subtree of "b". Returns false on mismatch; advances both cursors. */
static bool weak_walk(const axe_tuple *a, int *ia, const axe_tuple *b, int *ib)
{
    if (a->tok[*ia] == 'x') {
        (*ia)++;
        *ib = axe__tuple_subtree_end(b->tok, *ib);
        return true;
    }
    if (b->tok[*ib] != '(')
        return false;
    (*ia)++;
    (*ib)++;
    while (a->tok[*ia] != ')') {
        if (b->tok[*ib] == ')' || !weak_walk(a, ia, b, ib))
            return false;
    }
    if (b->tok[*ib] != ')')
        return false;
    (*ia)++;
    (*ib)++;
    return true;
}

bool axe_tuple_is_weakly_congruent(const axe_tuple *a, const axe_tuple *b)
{
    int ia = 0, ib = 0;
    return weak_walk(a, &ia, b, &ib);
}

/* Leaf-by-subtree size check for compatibility (a's leaves against b). */
static bool compat_walk(const axe_tuple *a, int *ia, int *la,
                        const axe_tuple *b, int *ib, int *lb)
{
    if (a->tok[*ia] == 'x') {
        int e = axe__tuple_subtree_end(b->tok, *ib);
        int n = axe__tuple_count_leaves(b->tok, *ib, e);
        int64_t s = 1;
        for (int k = 0; k < n; k++)
            if (__builtin_mul_overflow(s, b->v[*lb + k], &s))
                return false;
        *ib = e;
        *lb += n;
        (*ia)++;
        return s == a->v[(*la)++];
    }
    if (b->tok[*ib] != '(')
        return false;
    (*ia)++;
    (*ib)++;
    while (a->tok[*ia] != ')') {
        if (b->tok[*ib] == ')' || !compat_walk(a, ia, la, b, ib, lb))
            return false;
    }
    if (b->tok[*ib] != ')')
        return false;
    (*ia)++;
    (*ib)++;
    return true;
}

bool axe_tuple_is_compatible(const axe_tuple *a, const axe_tuple *b)
{
    int ia = 0, ib = 0, la = 0, lb = 0;
    return compat_walk(a, &ia, &la, b, &ib, &lb);
}
