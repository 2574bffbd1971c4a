/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal notation services: a bounded text writer that counts the length
 * the full output needs (snprintf semantics) and a scanner over the input.
 */
#ifndef AXE_NOTATION_INTERNAL_H
#define AXE_NOTATION_INTERNAL_H

#include "axe/notation.h"
#include "cute_internal.h"

typedef struct axe__writer {
    char *buf;
    size_t cap;
    size_t len;
} axe__writer;

void axe__writer_init(axe__writer *w, char *buf, size_t cap);
void axe__put(axe__writer *w, const char *s);
void axe__put_int(axe__writer *w, int64_t v);
/* NUL-terminate and return the needed length. */
size_t axe__writer_end(axe__writer *w);

void axe__put_tuple(axe__writer *w, const axe_tuple *t);
void axe__put_layout(axe__writer *w, const axe_cute_layout *l);

#endif
