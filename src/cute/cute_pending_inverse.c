/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the inverse family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "cute_internal.h"

axe_status axe_cute_complement(const axe_cute_layout *a, int64_t cotarget,
                               axe_cute_layout *out, axe_diag *diag)
{
    (void)a;
    (void)cotarget;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_right_inverse(const axe_cute_layout *a,
                                  axe_cute_layout *out, axe_diag *diag)
{
    (void)a;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_left_inverse(const axe_cute_layout *a, axe_cute_layout *out,
                                 axe_diag *diag)
{
    (void)a;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_nullspace(const axe_cute_layout *a, axe_cute_layout *out,
                              axe_diag *diag)
{
    (void)a;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
