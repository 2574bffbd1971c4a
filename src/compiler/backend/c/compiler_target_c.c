/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The C backend's ax_backend value (compiler_backend.h): C99 that runs the
 * kernel's thread hierarchy on one CPU thread (compiler_emit_c.c). It has
 * every schedule of dispatch, no architectures and nothing more to check.
 */
#include "compiler_backend.h"
#include "compiler_c.h"

const ax_backend axe__backend_c = {
    .name = "c",
    .what = "C99 that runs the thread hierarchy on one CPU thread",
    .archs = NULL,
    .narchs = 0,
    .schedules = NULL,
    .nschedules = 0,
    .reg_index = "[ax_tid]",
    .vec_type = NULL,
    .check = NULL,
    .explain = NULL,
    .emit = axe__emit_c,
};
