/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA backend's entry points inside its folder: the program's `.cu`
 * (compiler_emit_cuda.c), which its ax_backend value
 * (compiler_target_cuda.c) emits.
 */
#ifndef AXE_COMPILER_CUDA_H
#define AXE_COMPILER_CUDA_H

#include "compiler_internal.h"

/* The `.cu` of program "p" compiled from "file" into "t". */
void axe__emit_cuda(ax_text *t, const axe_program *p, const char *file);

#endif
