/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared layouts of layout synthesis (issue 15 §3). This slice gives a
 * `shared ... layout auto` tensor the row-major layout (its placeholder
 * since parsing) and records it: alignment constraints from the copies
 * that touch it, candidate layouts with free strides and the swizzle
 * chosen against bank conflicts are the next step (issue 15 §3), which
 * replaces this function and fills the report's "accesses".
 */
#include <stdio.h>

#include "compiler_synth.h"

axe_status axe__synth_shared(axe_program *p, ax_synth_report *r, axe_diag *diag)
{
    int i;
    (void)diag;
    for (i = 0; i < p->ntensors; i++) {
        ax_synth_tensor *e;
        if (p->tensors[i].mem != AX_MEM_SHARED || !p->tensors[i].autolayout)
            continue;
        e = &r->tensors[r->ntensors++];
        e->tensor = i;
        (void)snprintf(e->how, sizeof e->how,
                       "row-major (shared layouts are not synthesized "
                       "yet: no alignment or swizzle search)");
    }
    return AXE_OK;
}
