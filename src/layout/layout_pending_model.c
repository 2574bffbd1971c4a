/* SPDX-License-Identifier: Apache-2.0 */
/* TEMPORARY placeholders for the model family while it is being written;
 * this file is deleted when the real implementation lands. */
#include "axe/notation.h"

axe_status axe_layout_backward(const axe_layout *l, const axe_point *p,
                               bool with_replicas, int64_t *x, bool *found,
                               axe_diag *diag)
{
    (void)l;
    (void)p;
    (void)with_replicas;
    (void)x;
    (void)found;
    (void)diag;
    return AXE_ERR_UNSUPPORTED;
}
