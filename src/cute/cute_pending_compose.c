/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the compose family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "cute_internal.h"

axe_status axe_cute_coalesce(const axe_cute_layout *l, axe_cute_layout *out)
{
    (void)l;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_coalesce_by(const axe_cute_layout *l,
                                const axe_tuple *profile, axe_cute_layout *out)
{
    (void)l;
    (void)profile;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_filter(const axe_cute_layout *l, axe_cute_layout *out)
{
    (void)l;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_filter_zeros(const axe_cute_layout *l, axe_cute_layout *out)
{
    (void)l;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_compose(const axe_cute_layout *a, const axe_cute_layout *b,
                            axe_cute_layout *out, axe_diag *diag)
{
    (void)a;
    (void)b;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_compose_tiler(const axe_cute_layout *a,
                                  const axe_cute_tiler *t, axe_cute_layout *out,
                                  axe_diag *diag)
{
    (void)a;
    (void)t;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_tiler_from_shape(const axe_tuple *shape,
                                     axe_cute_tiler *out)
{
    (void)shape;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_tiler_from_layout(const axe_cute_layout *l,
                                      axe_cute_tiler *out)
{
    (void)l;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

int axe_cute_tiler_rank(const axe_cute_tiler *t)
{
    (void)t;
    return 0;
}
