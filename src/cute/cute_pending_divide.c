/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the divide family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "cute_internal.h"

axe_status axe_cute_divide(axe_cute_divide_kind kind, const axe_cute_layout *a, const axe_cute_tiler *b, axe_cute_layout *out, axe_diag *diag)
{
    (void)kind;
    (void)a;
    (void)b;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_divide_layout(axe_cute_divide_kind kind, const axe_cute_layout *a, const axe_cute_layout *b, axe_cute_layout *out, axe_diag *diag)
{
    (void)kind;
    (void)a;
    (void)b;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_product(axe_cute_product_kind kind, const axe_cute_layout *a, const axe_cute_layout *b, axe_cute_layout *out, axe_diag *diag)
{
    (void)kind;
    (void)a;
    (void)b;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_tile_to_shape(const axe_cute_layout *a, const axe_tuple *shape, const axe_tuple *order, axe_cute_layout *out, axe_diag *diag)
{
    (void)a;
    (void)shape;
    (void)order;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
