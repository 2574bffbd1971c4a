/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Axe operations of the algebra: canonicalize, normalize, group,
 * group_many, tile (outer (x) inner), tile_to, is_tile_inner / outer
 * (recover the other factor), iter intersection, slice, direct sum and its
 * recoveries. The
 * library takes one rank for the shapes of a binary operation, so the rank
 * checks (with TIRx's messages) are made here. Invariant: "no such layout"
 * is a result of kind AXOP_R_NULL with its reason in the diagnostic, never
 * an error.
 */
#include <string.h>

#include "axe_ops.h"

#include "core_internal.h"

axe_status axop_canonicalize(const axop_args *args, axop_result *res,
                             axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_canonicalize(axop_layout(args, AXOP_LAYOUT),
                                    axop_target(args), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

axe_status axop_normalize(const axop_args *args, axop_result *res,
                          axe_diag *diag)
{
    axe_layout out;
    AXE_TRY(axe_layout_normalize(axop_layout(args, AXOP_LAYOUT), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* {"layout": the refined layout, "seps": dim d owns [seps[d], seps[d+1])} */
axe_status axop_group(const axop_args *args, axop_result *res, axe_diag *diag)
{
    int n = -1;
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    AXE_TRY(axe_layout_group(axop_layout(args, AXOP_LAYOUT),
                             axop_list(args, AXOP_SHAPE)->v, n, &res->layout,
                             res->seps[0], diag));
    res->kind = AXOP_R_GROUP;
    res->many = false;
    res->nseps = 1;
    res->seplen[0] = n + 1;
    return AXE_OK;
}

axe_status axop_group_many(const axop_args *args, axop_result *res,
                           axe_diag *diag)
{
    const int64_t *shapes[AXOP_SHAPES_MAX];
    int ns[AXOP_SHAPES_MAX];
    for (int k = 0; k < args->nshapes; k++) {
        if (args->shapes[k].n > AXE_LAYOUT_MAX_DIMS)
            return axop_fail(diag, AXE_ERR_CAPACITY,
                             "shape %d has %d dims; at most %d are supported",
                             k, args->shapes[k].n, AXE_LAYOUT_MAX_DIMS);
        shapes[k] = args->shapes[k].v;
        ns[k] = args->shapes[k].n;
    }
    AXE_TRY(axe_layout_group_many(axop_layout(args, AXOP_LAYOUT), shapes, ns,
                                  args->nshapes, &res->layout, res->seps,
                                  diag));
    res->kind = AXOP_R_GROUP;
    res->many = true;
    res->nseps = args->nshapes;
    for (int k = 0; k < args->nshapes; k++)
        res->seplen[k] = ns[k] + 1;
    return AXE_OK;
}

/* Shapes "k1" and "k2" have the same rank, written to "*n"; "message" is
 * TIRx's wording when they do not. */
static axe_status same_rank(const axop_args *args, axop_key k1, axop_key k2,
                            const char *message, int *n, axe_diag *diag)
{
    int n2 = -1;
    *n = -1;
    AXE_TRY(axop_shape(args, k1, n, diag));
    AXE_TRY(axop_shape(args, k2, &n2, diag));
    if (*n != n2)
        return axop_fail(diag, AXE_ERR_INVALID, "%s (%s has %d dims, %s %d)",
                         message, axop_key_name(k1), *n, axop_key_name(k2), n2);
    return AXE_OK;
}

/* outer (x) inner: f(x || y) = f_outer(x) * span(f_inner) + f_inner(y). */
axe_status axop_tile(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    int n;
    AXE_TRY(same_rank(args, AXOP_OUTER_SHAPE, AXOP_INNER_SHAPE,
                      "Outer and inner shape size must match", &n, diag));
    AXE_TRY(axe_layout_tile_rule(
        axop_layout(args, AXOP_OUTER), axop_list(args, AXOP_OUTER_SHAPE)->v,
        axop_layout(args, AXOP_INNER), axop_list(args, AXOP_INNER_SHAPE)->v, n,
        axop_target(args), axop_rule(args), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* TIRx tile_to: "layout" over "current_shape" repeated row-major to cover
 * "to_shape": row_major(to / current) (x) layout. */
axe_status axop_tile_to(const axop_args *args, axop_result *res, axe_diag *diag)
{
    axe_layout out;
    int n;
    AXE_TRY(same_rank(args, AXOP_TO_SHAPE, AXOP_CURRENT_SHAPE,
                      "Shape and factor dimension must match", &n, diag));
    AXE_TRY(axe_layout_tile_to_rule(
        axop_layout(args, AXOP_LAYOUT), axop_list(args, AXOP_TO_SHAPE)->v,
        axop_list(args, AXOP_CURRENT_SHAPE)->v, n, axop_target(args),
        axop_rule(args), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* The paper's iter intersection (§3.4): the iter producing exactly the
 * values both shards produce (on "axis" when given). With "tile" (or
 * "tirx", TIRx's tile-of inside) the tile intersection: the largest
 * layout I with a = C_a (x) I and b = C_b (x) I. */
axe_status axop_intersect_iters(const axop_args *args, axop_result *res,
                                axe_diag *diag)
{
    axe_layout out;
    const char *axis =
        axop_has(args, AXOP_AXIS) ? axop_str(args, AXOP_AXIS) : NULL;
    bool tile = axop_has(args, AXOP_TILE) && axop_flag(args, AXOP_TILE);
    if (tile || axop_rule(args) == AXE_RULE_TIRX)
        AXE_TRY(axe_layout_intersect_iters_rule(
            axop_layout(args, AXOP_A), axop_layout(args, AXOP_B), axis,
            axop_target(args), axop_rule(args), &out, diag));
    else
        AXE_TRY(axe_layout_intersect(axop_layout(args, AXOP_A),
                                     axop_layout(args, AXOP_B), axis,
                                     axop_target(args), &out, diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

static void set_found(axop_result *res, const axe_layout *l, bool found,
                      axe_diag *diag, const char *why)
{
    if (found) {
        axop_set_layout(res, l);
        return;
    }
    if (diag != NULL && diag->message[0] == '\0')
        axop_fail(diag, AXE_OK, "%s", why);
    axop_set_null(res);
}

/* C with C (x) inner == tiled, or null. */
axe_status axop_is_tile_inner(const axop_args *args, axop_result *res,
                              axe_diag *diag)
{
    axe_layout out;
    bool found;
    int n;
    AXE_TRY(same_rank(args, AXOP_TILED_SHAPE, AXOP_INNER_SHAPE,
                      "Tiled shape size must match inner shape size", &n,
                      diag));
    AXE_TRY(axe_layout_is_tile_inner_rule(
        axop_layout(args, AXOP_INNER), axop_layout(args, AXOP_TILED),
        axop_list(args, AXOP_TILED_SHAPE)->v,
        axop_list(args, AXOP_INNER_SHAPE)->v, n, axop_target(args),
        axop_rule(args), &out, &found, diag));
    set_found(res, &out, found, diag,
              "the tiled layout is not C (x) inner for any C");
    return AXE_OK;
}

/* C with outer (x) C == tiled, or null. */
axe_status axop_is_tile_outer(const axop_args *args, axop_result *res,
                              axe_diag *diag)
{
    axe_layout out;
    bool found;
    int n;
    AXE_TRY(same_rank(args, AXOP_TILED_SHAPE, AXOP_OUTER_SHAPE,
                      "Tiled shape size must match outer shape size", &n,
                      diag));
    AXE_TRY(axe_layout_is_tile_outer_rule(
        axop_layout(args, AXOP_OUTER), axop_layout(args, AXOP_TILED),
        axop_list(args, AXOP_TILED_SHAPE)->v,
        axop_list(args, AXOP_OUTER_SHAPE)->v, n, axop_target(args),
        axop_rule(args), &out, &found, diag));
    set_found(res, &out, found, diag,
              "the tiled layout is not outer (x) C for any C");
    return AXE_OK;
}

/* The layout of the region: f(u) = f_layout(u + begin), or null. */
axe_status axop_slice(const axop_args *args, axop_result *res, axe_diag *diag)
{
    int64_t begin[AXE_LAYOUT_MAX_DIMS], end[AXE_LAYOUT_MAX_DIMS];
    axe_layout out;
    bool found;
    int n = -1;
    AXE_TRY(axop_shape(args, AXOP_SHAPE, &n, diag));
    if (args->nregion != n)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "shape and region must have the same length (%d "
                         "and %d)",
                         n, args->nregion);
    for (int d = 0; d < n; d++) {
        begin[d] = args->region[d][0];
        end[d] = args->region[d][1];
    }
    AXE_TRY(axe_layout_slice(axop_layout(args, AXOP_LAYOUT),
                             axop_list(args, AXOP_SHAPE)->v, begin, end, n,
                             axop_target(args), &out, &found, diag));
    set_found(res, &out, found, diag, "no layout describes this region");
    return AXE_OK;
}

/* A + B over the interleaved domain (A0, B0, A1, B1, ...). */
axe_status axop_direct_sum(const axop_args *args, axop_result *res,
                           axe_diag *diag)
{
    axe_layout out;
    int n;
    AXE_TRY(same_rank(args, AXOP_A_SHAPE, AXOP_B_SHAPE,
                      "Left and right shape size must match for direct sum", &n,
                      diag));
    AXE_TRY(axe_layout_direct_sum(
        axop_layout(args, AXOP_A), axop_list(args, AXOP_A_SHAPE)->v,
        axop_layout(args, AXOP_B), axop_list(args, AXOP_B_SHAPE)->v, n, &out,
        diag));
    axop_set_layout(res, &out);
    return AXE_OK;
}

/* "interleaved_shape" has twice the rank of "k" (its rank in "*n"). */
static axe_status interleaved_rank(const axop_args *args, axop_key k,
                                   const char *side, int *n, axe_diag *diag)
{
    int ni = -1;
    *n = -1;
    AXE_TRY(axop_shape(args, k, n, diag));
    ni = axop_list(args, AXOP_INTERLEAVED_SHAPE)->n;
    if (ni != 2 * *n)
        return axop_fail(diag, AXE_ERR_INVALID,
                         "Interleaved shape must have twice the rank of %s "
                         "(%d and %d)",
                         side, ni, *n);
    return AXE_OK;
}

/* A with A + b == sum, or null. */
axe_status axop_is_direct_sum_right(const axop_args *args, axop_result *res,
                                    axe_diag *diag)
{
    axe_layout out;
    bool found;
    int n;
    AXE_TRY(interleaved_rank(args, AXOP_B_SHAPE, "right_shape", &n, diag));
    AXE_TRY(axe_layout_is_direct_sum_right(
        axop_layout(args, AXOP_B), axop_layout(args, AXOP_SUM),
        axop_list(args, AXOP_INTERLEAVED_SHAPE)->v,
        axop_list(args, AXOP_B_SHAPE)->v, n, &out, &found, diag));
    set_found(res, &out, found, diag, "the sum is not A + b for any A");
    return AXE_OK;
}

/* B with a + B == sum, or null. */
axe_status axop_is_direct_sum_left(const axop_args *args, axop_result *res,
                                   axe_diag *diag)
{
    axe_layout out;
    bool found;
    int n;
    AXE_TRY(interleaved_rank(args, AXOP_A_SHAPE, "left_shape", &n, diag));
    AXE_TRY(axe_layout_is_direct_sum_left(
        axop_layout(args, AXOP_A), axop_layout(args, AXOP_SUM),
        axop_list(args, AXOP_INTERLEAVED_SHAPE)->v,
        axop_list(args, AXOP_A_SHAPE)->v, n, &out, &found, diag));
    set_found(res, &out, found, diag, "the sum is not a + B for any B");
    return AXE_OK;
}
