/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The largest right inverse by exhaustive search, for a layout the chain
 * of cute_inverse.c may not invert as far as possible: one that is not
 * injective ((3,2):(1,2) has the chain 3:1, but (2,2):(1,3) maps onto
 * [0, 4)). A layout R = (n_0, ..., n_k):(r_0, ..., r_k) with a(R(x)) = x
 * for x < N = n_0 ... n_k is built mode by mode: with P the product of
 * the modes so far, the next stride r is an index with a(r) = P and the
 * next extent e the largest with a(R(y) + c r) = y + c P for every y < P,
 * c < e (and smaller extents are tried too); every right inverse is found
 * this way, so the largest N found is the largest there is. It is at most
 * U, the least value not in a's image, where the search stops early.
 * Invariant: the search reads a only through the table of its values at
 * the indices below size(a) <= AXE__CUTE_SEARCH_MAX and evaluates at most
 * AXE__CUTE_SEARCH_BUDGET of them; past either it reports that it did not
 * finish, and its caller keeps the chain.
 */
#include <string.h>

#include "cute_internal.h"

typedef struct search {
    int64_t size;                       /* size(a) */
    int64_t val[AXE__CUTE_SEARCH_MAX];  /* a(i) for i < size */
    int64_t rv[AXE__CUTE_SEARCH_MAX];   /* R(y) for y < P, the prefix */
    int64_t shape[AXE_CUTE_MAX_LEAVES]; /* the modes of R so far */
    int64_t stride[AXE_CUTE_MAX_LEAVES];
    int64_t best_shape[AXE_CUTE_MAX_LEAVES]; /* the largest R found */
    int64_t best_stride[AXE_CUTE_MAX_LEAVES];
    int nbest;
    int64_t best, bound; /* size of the largest R found; U */
    long budget;
} search;

/* a(i) for every index i of the modes "m" (integer strides): false if
 * size(a) is above the table, a stride is negative or a value overflows. */
static bool tabulate(const axe__cute_modes *m, search *s)
{
    int64_t size = 1;
    for (int j = 0; j < m->n; j++) {
        if (m->stride[j] < 0 || m->istride[j] != size ||
            m->shape[j] > AXE__CUTE_SEARCH_MAX / size)
            return false;
        size *= m->shape[j];
    }
    s->size = size;
    for (int64_t i = 0; i < size; i++) {
        int64_t q = i, v = 0, t;
        for (int j = 0; j < m->n; j++) {
            if (axe__mul(q % m->shape[j], m->stride[j], &t) != AXE_OK ||
                axe__add(v, t, &v) != AXE_OK)
                return false;
            q /= m->shape[j];
        }
        s->val[i] = v;
    }
    return true;
}

/* U: the least value not in the image (every R has size <= U). */
static int64_t least_missing(const search *s)
{
    static const bool none[AXE__CUTE_SEARCH_MAX + 1];
    bool seen[AXE__CUTE_SEARCH_MAX + 1];
    int64_t u = 0;
    memcpy(seen, none, sizeof seen);
    for (int64_t i = 0; i < s->size; i++)
        if (s->val[i] >= 0 && s->val[i] <= s->size)
            seen[s->val[i]] = true;
    while (u <= s->size && seen[u])
        u++;
    return u;
}

/* Whether the next mode may have coordinate "c" with stride "r": every
 * y < p gives R(y) + c r, an index whose value is y + c p. */
static bool extends(search *s, int64_t p, int64_t r, int64_t c)
{
    for (int64_t y = 0; y < p; y++) {
        int64_t i = s->rv[y] + c * r;
        if (--s->budget < 0 || i >= s->size || s->val[i] != y + c * p)
            return false;
        s->rv[y + c * p] = i;
    }
    return true;
}

static void keep_best(search *s, int64_t p, int k)
{
    if (p <= s->best)
        return;
    s->best = p;
    s->nbest = k;
    for (int j = 0; j < k; j++) {
        s->best_shape[j] = s->shape[j];
        s->best_stride[j] = s->stride[j];
    }
}

/* Every R extending the "k" modes of product "p" (R(y) = rv[y], y < p). */
static void grow(search *s, int64_t p, int k)
{
    keep_best(s, p, k);
    if (k == AXE_CUTE_MAX_LEAVES)
        return;
    for (int64_t r = 1; r < s->size && s->best < s->bound; r++) {
        if (s->val[r] != p)
            continue;
        for (int64_t e = 2; s->budget >= 0 && extends(s, p, r, e - 1); e++) {
            s->shape[k] = e;
            s->stride[k] = r;
            grow(s, p * e, k + 1);
            if (s->best >= s->bound)
                return;
        }
    }
}

bool axe__cute_right_search(const axe__cute_modes *m, int64_t have,
                            axe__cute_group *g, bool *done)
{
    search s;
    *done = false;
    if (m->bases || !tabulate(m, &s))
        return false;
    s.bound = least_missing(&s);
    if (have >= s.bound) {
        *done = true;
        return false;
    }
    s.budget = AXE__CUTE_SEARCH_BUDGET;
    s.best = 1;
    s.nbest = 0;
    s.rv[0] = 0;
    grow(&s, 1, 0);
    *done = s.budget >= 0 || s.best >= s.bound;
    if (s.best <= have)
        return false;
    g->n = s.nbest;
    for (int j = 0; j < s.nbest; j++) {
        g->shape[j] = s.best_shape[j];
        g->stride[j] = s.best_stride[j];
    }
    return true;
}
