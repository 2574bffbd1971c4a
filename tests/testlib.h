/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A tiny test harness shared by the test programs (header-only): checks that
 * count and print the failing row, a seeded RNG (AXE_TEST_SEED=N replays;
 * the seed is printed), random CuTe layouts for the law tests, and the
 * closing line "N passed, N failed" every test program ends with.
 */
#ifndef AXE_TESTLIB_H
#define AXE_TESTLIB_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axe/notation.h"

static int tl_passed, tl_failed;

#define TL_CHECK(cond, ...)                                                    \
    do {                                                                       \
        if (cond) {                                                            \
            tl_passed++;                                                       \
        } else {                                                               \
            tl_failed++;                                                       \
            if (tl_failed <= 50) {                                             \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
                fprintf(stderr, __VA_ARGS__);                                  \
                fprintf(stderr, "\n");                                         \
            }                                                                  \
        }                                                                      \
    } while (0)

/* Print the closing line and return the process exit code. */
static inline int tl_finish(void)
{
    printf("%d passed, %d failed\n", tl_passed, tl_failed);
    return tl_failed == 0 ? 0 : 1;
}

/* splitmix64 */
static uint64_t tl_rng_state;

static inline uint64_t tl_rand(void)
{
    uint64_t z = (tl_rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static inline int64_t tl_range(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tl_rand() % (uint64_t)(hi - lo + 1));
}

/* Seed from AXE_TEST_SEED or the default; print it for replay. */
static inline void tl_seed(const char *name, uint64_t dflt)
{
    const char *e = getenv("AXE_TEST_SEED");
    tl_rng_state = e != NULL ? strtoull(e, NULL, 10) : dflt;
    printf("%s: seed %" PRIu64 " (AXE_TEST_SEED=N replays)\n", name,
           tl_rng_state);
}

/* Parse a layout or die (test tables are trusted text). */
static inline axe_cute_layout tl_layout(const char *s)
{
    axe_cute_layout l;
    axe_diag d;
    if (axe_parse_cute_layout(s, strlen(s), &l, &d) != AXE_OK) {
        fprintf(stderr, "bad layout in test table: %s (%s)\n", s, d.message);
        exit(2);
    }
    return l;
}

static inline axe_tuple tl_tuple(const char *s)
{
    axe_tuple t;
    axe_diag d;
    if (axe_parse_tuple(s, strlen(s), &t, &d) != AXE_OK) {
        fprintf(stderr, "bad tuple in test table: %s (%s)\n", s, d.message);
        exit(2);
    }
    return t;
}

/* Print into a static rotating buffer (for messages). */
static inline const char *tl_str(const axe_cute_layout *l)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    axe_print_cute_layout(l, buf[k], sizeof buf[k]);
    return buf[k];
}

/* Append a random subtree with "leaves" leaves at depth "depth". */
static inline void tl_random_tree(char *tok, int *ntok, int leaves, int depth,
                                  int maxdepth)
{
    if (leaves == 1 && (depth >= maxdepth || tl_range(0, 2) != 0)) {
        tok[(*ntok)++] = 'x';
        return;
    }
    tok[(*ntok)++] = '(';
    while (leaves > 0) {
        int take = depth + 1 < maxdepth ? (int)tl_range(1, leaves) : 1;
        tl_random_tree(tok, ntok, take, depth + 1, maxdepth);
        leaves -= take;
    }
    tok[(*ntok)++] = ')';
}

/*
 * A random layout with 1..maxleaves leaves, depth <= maxdepth, size <=
 * maxsize, strides in [-maxstride, maxstride] (zero and negative included
 * when "signed_strides"), otherwise in [0, maxstride].
 */
static inline axe_cute_layout tl_random_layout(int maxleaves, int maxdepth,
                                               int64_t maxsize,
                                               int64_t maxstride,
                                               int signed_strides)
{
    axe_cute_layout l;
    int n = (int)tl_range(1, maxleaves), ntok = 0;
    int64_t size = 1;
    memset(&l, 0, sizeof l);
    tl_random_tree(l.shape.tok, &ntok, n, 0, maxdepth);
    l.shape.ntok = (uint8_t)ntok;
    l.shape.nleaf = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        int64_t lim = maxsize / size, s;
        if (lim > 16)
            lim = 16;
        s = tl_range(1, lim < 1 ? 1 : lim);
        size *= s;
        l.shape.v[i] = s;
        l.stride[i] = signed_strides ? tl_range(-maxstride, maxstride)
                                     : tl_range(0, maxstride);
        l.basis[i] = 0;
    }
    return l;
}

/* A random compact-ish layout: a permutation of a col-major layout with
 * occasional gaps; injective, nonnegative strides. */
static inline axe_cute_layout tl_random_injective(int maxleaves, int maxdepth,
                                                  int64_t maxsize)
{
    axe_cute_layout l = tl_random_layout(maxleaves, maxdepth, maxsize, 1, 0);
    int n = l.shape.nleaf, perm[AXE_CUTE_MAX_LEAVES];
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < n; i++) {
        int k = perm[i];
        l.stride[k] = p;
        p *= l.shape.v[k] * (tl_range(0, 3) == 0 ? tl_range(1, 3) : 1);
    }
    return l;
}

/* Same size and the same value (point) at every index. */
static inline int tl_same_function(const axe_cute_layout *a,
                                   const axe_cute_layout *b)
{
    int64_t na, nb;
    if (axe_cute_size(a, &na) != AXE_OK || axe_cute_size(b, &nb) != AXE_OK ||
        na != nb)
        return 0;
    for (int64_t i = 0; i < na; i++) {
        axe_cute_point pa, pb;
        if (axe_cute_eval_point(a, i, &pa) != AXE_OK ||
            axe_cute_eval_point(b, i, &pb) != AXE_OK ||
            !axe_cute_point_equal(&pa, &pb))
            return 0;
    }
    return 1;
}

/* The profile of "t" with size-1 leaves dropped, empty groups removed and
 * single-element groups unwrapped, written as tokens plus leaf values. */
static inline void tl_loose_profile(const axe_tuple *t, char *tok, int *ntok,
                                    int64_t *v, int *nv)
{
    char a[AXE_TUPLE_MAX_TOKENS + 1];
    int n = 0, li = 0, changed = 1;
    for (int i = 0; i < t->ntok; i++) {
        if (t->tok[i] == 'x' && t->v[li++] == 1)
            continue;
        a[n++] = t->tok[i];
    }
    while (changed) {
        changed = 0;
        for (int i = 0; i < n; i++) {
            int d = 0, kids = 0, j = i + 1;
            if (a[i] != '(')
                continue;
            for (; j < n; j++) {
                if (d == 0 && a[j] == ')')
                    break;
                if (d == 0)
                    kids++;
                if (a[j] == '(')
                    d++;
                else if (a[j] == ')')
                    d--;
            }
            if (kids <= 1) {
                memmove(a + j, a + j + 1, (size_t)(n - j - 1));
                memmove(a + i, a + i + 1, (size_t)(n - i - 2));
                n -= 2;
                changed = 1;
                break;
            }
        }
    }
    memcpy(tok, a, (size_t)n);
    *ntok = n;
    *nv = 0;
    for (int i = 0; i < t->nleaf; i++)
        if (t->v[i] != 1)
            v[(*nv)++] = t->v[i];
}

/* vectors/README.md cmp "layout": same loose profile, same function. */
static inline int tl_layout_matches(const axe_cute_layout *got,
                                    const axe_cute_layout *expect)
{
    char ta[AXE_TUPLE_MAX_TOKENS], tb[AXE_TUPLE_MAX_TOKENS];
    int64_t va[AXE_TUPLE_MAX_LEAVES], vb[AXE_TUPLE_MAX_LEAVES];
    int na, nb, la, lb;
    tl_loose_profile(&got->shape, ta, &na, va, &la);
    tl_loose_profile(&expect->shape, tb, &nb, vb, &lb);
    if (na != nb || la != lb || memcmp(ta, tb, (size_t)na) != 0 ||
        memcmp(va, vb, (size_t)la * sizeof(int64_t)) != 0)
        return 0;
    return tl_same_function(got, expect);
}

#endif
