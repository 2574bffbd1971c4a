/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trn-sim backend's entry points inside its folder: the program's C
 * over the simulator compiler_trn_sim.h (compiler_emit_trn.c), which its
 * ax_backend value (compiler_target_trn.c) emits.
 */
#ifndef AXE_COMPILER_TRN_H
#define AXE_COMPILER_TRN_H

#include "compiler_internal.h"

/* C99 of core kernel "p" (checked by the backend) into "t". */
void axe__emit_trn(ax_text *t, const axe_program *p, const char *file);

#endif
