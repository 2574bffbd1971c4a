/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The common refinement of one dimension's iters, shared by the
 * pointwise plans (compiler_plan.c: thread digits and loops) and the
 * exchange planner (compiler_dist.c: device and memory digits). Each
 * operand's iters of the dimension (outer to inner, unit iters dropped)
 * contribute their inner products as boundaries; the sorted, distinct
 * boundaries refine every operand when each divides the next (a
 * divisibility chain), and every step of the chain is then a sub-iter
 * that lies inside one iter of each operand (axe__iter_at finds it).
 * axe__bounds_insert adds one raw boundary (compiler_dist_gemm.c's fine
 * digits: gpuid strides and stride * extent).
 */
#include "compiler_internal.h"

bool axe__bounds_insert(int64_t *b, int *nb, int cap, int64_t v)
{
    int j, k;
    for (j = 0; j < *nb && b[j] < v; j++)
        ;
    if (j < *nb && b[j] == v)
        return true;
    if (*nb == cap)
        return false;
    for (k = *nb; k > j; k--)
        b[k] = b[k - 1];
    b[j] = v;
    (*nb)++;
    return true;
}

bool axe__bounds_add(int64_t *b, int *nb, int cap, const axe_iter *it, int n)
{
    int64_t prod = 1;
    int i;
    for (i = n - 1; i >= 0; i--) {
        prod *= it[i].extent;
        if (!axe__bounds_insert(b, nb, cap, prod))
            return false;
    }
    return true;
}

int axe__bounds_break(const int64_t *b, int nb)
{
    int i;
    for (i = 0; i + 1 < nb; i++)
        if (b[i + 1] % b[i] != 0)
            return i;
    return -1;
}

const axe_iter *axe__iter_at(const axe_iter *it, int n, int64_t w, int64_t *lo)
{
    int64_t prod = 1;
    int i;
    for (i = n - 1; i >= 0; i--) {
        if (w < prod * it[i].extent) {
            *lo = prod;
            return &it[i];
        }
        prod *= it[i].extent;
    }
    return NULL;
}
