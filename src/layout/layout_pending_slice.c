/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the slice family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "axe/notation.h"

axe_status axe_layout_slice(const axe_layout *l, const int64_t *shape,
                            const int64_t *begin, const int64_t *end, int n,
                            axe_target target, axe_layout *out, bool *found,
                            axe_diag *diag)
{
    (void)l;
    (void)shape;
    (void)begin;
    (void)end;
    (void)n;
    (void)target;
    (void)out;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_from_cute(const axe_cute_layout *c, axe_layout *out,
                                axe_diag *diag)
{
    (void)c;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_to_cute(const axe_layout *l, axe_cute_layout *out,
                              axe_diag *diag)
{
    (void)l;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
