/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Hierarchical integer tuples (CuTe's IntTuple): a scalar `4`, or a tuple
 * `(a, b, ...)` whose elements are scalars or tuples, e.g. `((2,2),3)`.
 *
 * Representation: the hierarchy is stored once as a token string over
 * '(' ')' 'x' ("((xx)x)" for `((2,2),3)`; "x" for a scalar; "()" for the
 * empty tuple) and the leaves flat in preorder in "v". Invariant: tok is
 * balanced, every 'x' has its value in v in order, nleaf = number of 'x',
 * and a non-scalar profile is wrapped in one outer pair of parentheses.
 * A leaf equal to AXE_UNDERSCORE is the wildcard `_` of CuTe coordinates.
 * Tuples are fixed-capacity values: copy with `=`, no heap.
 */
#ifndef AXE_TUPLE_H
#define AXE_TUPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_TUPLE_MAX_LEAVES 32
#define AXE_TUPLE_MAX_TOKENS 96
#define AXE_TUPLE_MAX_DEPTH 16
#define AXE_UNDERSCORE INT64_MIN

typedef struct axe_tuple {
    uint8_t nleaf;
    uint8_t ntok;
    char tok[AXE_TUPLE_MAX_TOKENS];
    int64_t v[AXE_TUPLE_MAX_LEAVES];
} axe_tuple;

/* The scalar "value". */
AXE_API void axe_tuple_scalar(int64_t value, axe_tuple *out);
/* The flat tuple (v[0], ..., v[n-1]); n = 0 gives `()`. */
AXE_NODISCARD AXE_API axe_status axe_tuple_from_array(const int64_t *v, int n,
                                                      axe_tuple *out);

/* True if "t" is a scalar (profile "x"). */
AXE_API bool axe_tuple_is_scalar(const axe_tuple *t);
/* rank: 1 for a scalar, the number of top-level elements otherwise. */
AXE_API int axe_tuple_rank(const axe_tuple *t);
/* depth: 0 for a scalar, 1 + max depth of the elements otherwise. */
AXE_API int axe_tuple_depth(const axe_tuple *t);
/* Product of the leaves (AXE_ERR_OVERFLOW on overflow). */
AXE_NODISCARD AXE_API axe_status axe_tuple_size(const axe_tuple *t,
                                                int64_t *out);
/* Element "i" of "t" (a scalar's only element is itself). */
AXE_NODISCARD AXE_API axe_status axe_tuple_get(const axe_tuple *t, int i,
                                               axe_tuple *out);
/* The leaves of "t" as a flat tuple (a scalar stays a scalar). */
AXE_API void axe_tuple_flatten(const axe_tuple *t, axe_tuple *out);
/* Same profile (hierarchy) ignoring leaf values. */
AXE_API bool axe_tuple_is_congruent(const axe_tuple *a, const axe_tuple *b);
/* a is weakly congruent to b: a's profile is a prefix-refinement of b's:
 * every leaf of "a" matches a (sub)tree of "b". */
AXE_API bool axe_tuple_is_weakly_congruent(const axe_tuple *a,
                                           const axe_tuple *b);
/* Shape "a" is compatible with "b": size(a) == size(b) and every leaf of
 * "a" equals the size of the subtree of "b" at that position. */
AXE_API bool axe_tuple_is_compatible(const axe_tuple *a, const axe_tuple *b);
/* Equal profile and leaf values. */
AXE_API bool axe_tuple_equal(const axe_tuple *a, const axe_tuple *b);

/*
 * Colexicographic coordinates. idx2crd: the coordinate of "idx" in "shape"
 * (first mode fastest, the last mode of each level absorbing out-of-range
 * indices, as in CuTe paper §2.2.2). crd2idx: the inverse, for a coordinate
 * weakly congruent to "shape" (a scalar at a tuple position is an index into
 * that subtree).
 */
AXE_NODISCARD AXE_API axe_status axe_tuple_idx2crd(int64_t idx,
                                                   const axe_tuple *shape,
                                                   axe_tuple *out);
AXE_NODISCARD AXE_API axe_status axe_tuple_crd2idx(const axe_tuple *crd,
                                                   const axe_tuple *shape,
                                                   int64_t *out);
/* Exclusive prefix products of the leaves, in the profile of "t"
 * (CuTe's compact column-major strides). Suffix: reverse order. */
AXE_NODISCARD AXE_API axe_status axe_tuple_prefix_product(const axe_tuple *t,
                                                          axe_tuple *out);
AXE_NODISCARD AXE_API axe_status axe_tuple_suffix_product(const axe_tuple *t,
                                                          axe_tuple *out);
/* CuTe's shape_div(a, b) on scalars: a/b if b divides a, else 1 if a
 * divides b, else AXE_ERR_DIVISIBILITY; the sign is that of a*b. */
AXE_NODISCARD AXE_API axe_status axe_shape_div(int64_t a, int64_t b,
                                               int64_t *out);
/* ceil(a / b) for a >= 0, b > 0. */
AXE_NODISCARD AXE_API axe_status axe_ceil_div(int64_t a, int64_t b,
                                              int64_t *out);

#ifdef __cplusplus
}
#endif

#endif
