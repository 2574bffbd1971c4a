/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal tuple services: the token span of an element, and a builder that
 * appends tokens and leaves with capacity checks. A tuple under construction
 * may be unbalanced; callers close every '(' they open before handing it out.
 */
#ifndef AXE_TUPLE_INTERNAL_H
#define AXE_TUPLE_INTERNAL_H

#include "axe/tuple.h"
#include "core_internal.h"

/* Where element "i" of "t" lies: tokens [tb, te), leaves [lb, le). */
typedef struct axe__span {
    int tb, te, lb, le;
} axe__span;

/* The span of element "i"; a scalar's element 0 is the whole tuple. */
AXE_NODISCARD axe_status axe__tuple_span(const axe_tuple *t, int i,
                                         axe__span *out);
/* The spans of all top-level elements; returns their number (rank), or -1
 * if more than "max". */
int axe__tuple_spans(const axe_tuple *t, axe__span *out, int max);
/* Token index just past the subtree starting at token "tb". */
int axe__tuple_subtree_end(const char *tok, int tb);
/* Number of leaves in tokens [tb, te). */
int axe__tuple_count_leaves(const char *tok, int tb, int te);

void axe__tuple_clear(axe_tuple *t);
AXE_NODISCARD axe_status axe__tuple_open(axe_tuple *t);
AXE_NODISCARD axe_status axe__tuple_close(axe_tuple *t);
AXE_NODISCARD axe_status axe__tuple_push(axe_tuple *t, int64_t v);
/* Append the subtree tokens [tb, te) of "src" with their leaves. */
AXE_NODISCARD axe_status axe__tuple_append_span(axe_tuple *t,
                                                const axe_tuple *src,
                                                const axe__span *sp);
/* Append all of "src" as one element. */
AXE_NODISCARD axe_status axe__tuple_append(axe_tuple *t, const axe_tuple *src);
/* A builder's tokens are well formed and wrapped: "x" or "(...)". */
bool axe__tuple_is_valid(const axe_tuple *t);

#endif
