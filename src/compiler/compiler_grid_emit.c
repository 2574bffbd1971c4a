/* SPDX-License-Identifier: Apache-2.0 */
/*
 * C for grid-scope work: the AXE_ATOMIC_* macros of the generated C
 * (a CUDA backend maps each to atomicAdd, atomicMax or a compare-and-swap
 * loop; the C backend runs one thread at a time, so an atomic
 * read-modify-write is a plain one).
 */
#include <string.h>

#include "compiler_internal.h"

static const char *const atomic_names[] = {
    "AXE_ATOMIC_ADD_F32(", "AXE_ATOMIC_ADD_I32(", "AXE_ATOMIC_MAX_F32(",
    "AXE_ATOMIC_MAX_I32("};
static const char *const atomic_texts[] = {
    "#define AXE_ATOMIC_ADD_F32(p, v) (*(p) = *(p) + (float)(v))\n",
    "#define AXE_ATOMIC_ADD_I32(p, v) "
    "(*(p) = ax_s32((uint32_t)*(p) + (uint32_t)(v)))\n",
    "#define AXE_ATOMIC_MAX_F32(p, v) (*(p) = AXE_MAX(*(p), (float)(v)))\n",
    "#define AXE_ATOMIC_MAX_I32(p, v) (*(p) = AXE_MAX(*(p), (int32_t)(v)))\n"};

/* The atomic macros that the generated code "body" uses, each emitted
 * only when used (i32 adds wrap through ax_s32, emitted with them). */
void axe__emit_atomic_helpers(ax_text *t, const char *body)
{
    int i, n = 0;
    for (i = 0; i < 4; i++) {
        if (body == NULL || strstr(body, atomic_names[i]) == NULL)
            continue;
        if (n++ == 0)
            axe__text_put(t, "/* Atomic read-modify-writes of global memory "
                             "(atomicAdd, atomicMax or a\n * compare-and-swap "
                             "loop on a GPU); here one thread runs at a "
                             "time. */\n");
        axe__text_put(t, "%s", atomic_texts[i]);
    }
    if (n > 0)
        axe__text_put(t, "\n");
}
