/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the misc family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "cute_internal.h"

axe_status axe_cute_slice(const axe_cute_layout *l, const axe_tuple *crd,
                          axe_cute_layout *out, axe_cute_point *offset,
                          axe_diag *diag)
{
    (void)l;
    (void)crd;
    (void)out;
    (void)offset;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_dice(const axe_cute_layout *l, const axe_tuple *crd,
                         axe_cute_layout *out, axe_diag *diag)
{
    (void)l;
    (void)crd;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_tuple_slice(const axe_tuple *t, const axe_tuple *crd,
                           axe_tuple *out, axe_diag *diag)
{
    (void)t;
    (void)crd;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_tuple_dice(const axe_tuple *t, const axe_tuple *crd,
                          axe_tuple *out, axe_diag *diag)
{
    (void)t;
    (void)crd;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_max_common_layout(const axe_cute_layout *a,
                                      const axe_cute_layout *b,
                                      axe_cute_layout *out)
{
    (void)a;
    (void)b;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_max_common_vector(const axe_cute_layout *a,
                                      const axe_cute_layout *b, int64_t *out)
{
    (void)a;
    (void)b;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_upcast(const axe_cute_layout *l, int64_t n,
                           axe_cute_layout *out, axe_diag *diag)
{
    (void)l;
    (void)n;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_downcast(const axe_cute_layout *l, int64_t n,
                             axe_cute_layout *out, axe_diag *diag)
{
    (void)l;
    (void)n;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_recast(const axe_cute_layout *l, int64_t old_bits,
                           int64_t new_bits, axe_cute_layout *out,
                           axe_diag *diag)
{
    (void)l;
    (void)old_bits;
    (void)new_bits;
    (void)out;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}

axe_status axe_cute_composed_eval_point(const axe_cute_composed *c, int64_t idx,
                                        axe_cute_point *out)
{
    (void)c;
    (void)idx;
    (void)out;
    return AXE_ERR_UNSUPPORTED;
}
