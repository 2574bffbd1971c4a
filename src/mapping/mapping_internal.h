/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal services of the mapping layer: the per-axis digit view of an
 * expression (a flat list of factors, each a chain over one axis, a
 * broadcast or something else) used by normalization, tiles and the
 * conversion to Axe layouts. Invariant: a factor list describes the pair
 * of its factors in order (first = most major); the product of the factor
 * sizes is the expression's size.
 */
#ifndef AXE_MAPPING_INTERNAL_H
#define AXE_MAPPING_INTERNAL_H

#include "axe/mapping.h"
#include "core_internal.h"

#define AXE__FACTORS_MAX AXE_MAPPING_MAX_NODES

typedef enum axe__factor_kind {
    AXE__FACTOR_DIGIT,     /* (X div mu) mod n of axis X */
    AXE__FACTOR_BROADCAST, /* n cells, no coordinate */
    AXE__FACTOR_OTHER      /* anything else: node "node" */
} axe__factor_kind;

typedef struct axe__factor {
    axe__factor_kind kind;
    int axis;
    int node;
    int64_t mu;
    int64_t n;
} axe__factor;

typedef struct axe__factors {
    int n;
    axe__factor f[AXE__FACTORS_MAX];
} axe__factors;

/* Flatten the pairs under "root" into factors; a chain of `/` and `%` over
 * a symbol is a digit, a broadcast stays one. */
void axe__mapping_factors(const axe_mapping *m, int root, axe__factors *out);

/* The chain under "node": its operand (*atom), stride product (*mu) and
 * size; false when "node" is not a stride or modulo. */
bool axe__mapping_chain(const axe_mapping *m, int node, int *atom, int64_t *mu);

/* Push the digit `X / mu % n` of axis "axis" (trivial parts left out). */
axe_status axe__mapping_push_digit(axe_mapping *m, int axis, int64_t mu,
                                   int64_t n, int *id);
/* Push the right-nested pair of the nodes ids[0 .. n) (n >= 1). */
axe_status axe__mapping_push_list(axe_mapping *m, const int *ids, int n,
                                  int *id);

/* The Axe layout of the bases of "lin" (mapping_linear.c), not
 * canonicalized: one iter 2:b@axis per basis (first input most major),
 * each basis with one nonzero output and the bases of each output sharing
 * no bit (then XOR is +); otherwise the reason. */
struct axe_linear;
axe_status axe__linear_plain_layout(const struct axe_linear *lin, axe_layout *l,
                                    axe_diag *diag);

#endif
