/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C backend's entry points inside its folder: the whole program's C99
 * (compiler_emit_c.c), which its ax_backend value (compiler_target_c.c)
 * emits.
 */
#ifndef AXE_COMPILER_C_H
#define AXE_COMPILER_C_H

#include "compiler_internal.h"

/* C99 of program "p" compiled from "file" into "t". */
void axe__emit_c(ax_text *t, const axe_program *p, const char *file);

#endif
