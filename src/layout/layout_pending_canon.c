/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the canon family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "axe/notation.h"

axe_status axe_layout_canonicalize(const axe_layout *l, axe_target target,
                                   axe_layout *out, axe_diag *diag)
{
    (void)l;
    (void)target;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_normalize(const axe_layout *l, axe_layout *out,
                                axe_diag *diag)
{
    (void)l;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_equivalent(const axe_layout *a, const axe_layout *b,
                                 bool *out, axe_diag *diag)
{
    (void)a;
    (void)b;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_group(const axe_layout *l, const int64_t *shape, int n,
                            axe_layout *out, int *seps, axe_diag *diag)
{
    (void)l;
    (void)shape;
    (void)n;
    (void)out;
    (void)seps;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_layout_group_many(const axe_layout *l,
                                 const int64_t *const *shapes, const int *ns,
                                 int nshapes, axe_layout *out,
                                 int (*seps)[AXE_LAYOUT_MAX_DIMS + 1],
                                 axe_diag *diag)
{
    (void)l;
    (void)shapes;
    (void)ns;
    (void)nshapes;
    (void)out;
    (void)seps;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
