/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the tile family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "axe/notation.h"

axe_status axe_layout_tile(const axe_layout *outer, const int64_t *outer_shape,
                           const axe_layout *inner, const int64_t *inner_shape,
                           int n, axe_target target, axe_layout *out,
                           axe_diag *diag)
{
    (void)outer;
    (void)outer_shape;
    (void)inner;
    (void)inner_shape;
    (void)n;
    (void)target;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_is_tile_inner(const axe_layout *inner,
                                    const axe_layout *tiled,
                                    const int64_t *tiled_shape,
                                    const int64_t *inner_shape, int n,
                                    axe_target target, axe_layout *outer_out,
                                    bool *found, axe_diag *diag)
{
    (void)inner;
    (void)tiled;
    (void)tiled_shape;
    (void)inner_shape;
    (void)n;
    (void)target;
    (void)outer_out;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_is_tile_outer(const axe_layout *outer,
                                    const axe_layout *tiled,
                                    const int64_t *tiled_shape,
                                    const int64_t *outer_shape, int n,
                                    axe_target target, axe_layout *inner_out,
                                    bool *found, axe_diag *diag)
{
    (void)outer;
    (void)tiled;
    (void)tiled_shape;
    (void)outer_shape;
    (void)n;
    (void)target;
    (void)inner_out;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_direct_sum(const axe_layout *a, const int64_t *a_shape,
                                 const axe_layout *b, const int64_t *b_shape,
                                 int n, axe_layout *out, axe_diag *diag)
{
    (void)a;
    (void)a_shape;
    (void)b;
    (void)b_shape;
    (void)n;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_is_direct_sum_right(const axe_layout *b,
                                          const axe_layout *sum,
                                          const int64_t *interleaved,
                                          const int64_t *b_shape, int n,
                                          axe_layout *a_out, bool *found,
                                          axe_diag *diag)
{
    (void)b;
    (void)sum;
    (void)interleaved;
    (void)b_shape;
    (void)n;
    (void)a_out;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_is_direct_sum_left(const axe_layout *a,
                                         const axe_layout *sum,
                                         const int64_t *interleaved,
                                         const int64_t *a_shape, int n,
                                         axe_layout *b_out, bool *found,
                                         axe_diag *diag)
{
    (void)a;
    (void)sum;
    (void)interleaved;
    (void)a_shape;
    (void)n;
    (void)b_out;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
