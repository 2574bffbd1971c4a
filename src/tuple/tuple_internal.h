/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internal tuple services: the token span of an element, a builder that
 * appends tokens and leaves with capacity checks (inline: results are built
 * a token at a time), and copies of the part of a tuple in use. A tuple
 * under construction may be unbalanced; callers close every '(' they open
 * before handing it out.
 */
#ifndef AXE_TUPLE_INTERNAL_H
#define AXE_TUPLE_INTERNAL_H

#include <string.h>

#include "axe/tuple.h"
#include "core_internal.h"

/* dst[0, n) = src[0, n) for arrays that extend at least "room" bytes past
 * both pointers: by one copy of a fixed 16, 32 or 64 bytes when n fits
 * in it and in "room" (copying a little of the unused tail, which nothing
 * reads), else by memcpy. GCC expands a memcpy of a variable length, and
 * a loop of fixed-size blocks it recognizes as one, to rep movs, whose
 * start-up alone costs more than copying the few leaves of a layout. */
static inline void axe__copy(void *dst, const void *src, size_t n, size_t room)
{
    if (n <= 16 && room >= 16)
        memcpy(dst, src, 16);
    else if (n <= 32 && room >= 32)
        memcpy(dst, src, 32);
    else if (n <= 64 && room >= 64)
        memcpy(dst, src, 64);
    else
        memcpy(dst, src, n);
}

/* The room left in an array of "cap" elements of "size" bytes past the
 * indices "i" and "j". */
static inline size_t axe__room(int cap, int i, int j, size_t size)
{
    return (size_t)(cap - (i > j ? i : j)) * size;
}

/* Where element "i" of "t" lies: tokens [tb, te), leaves [lb, le). */
typedef struct axe__span {
    int tb, te, lb, le;
} axe__span;

/* The span of element "i"; a scalar's element 0 is the whole tuple. */
AXE_NODISCARD axe_status axe__tuple_span(const axe_tuple *t, int i,
                                         axe__span *out);
/* The spans of the children of the subtree "sp" of "t" (a leaf is its own
 * child 0) into "out" (room for AXE_TUPLE_MAX_TOKENS); returns their
 * number. */
int axe__tuple_child_spans(const axe_tuple *t, const axe__span *sp,
                           axe__span *out);
/* The spans of all top-level elements; returns their number (rank), or -1
 * if more than "max". */
int axe__tuple_spans(const axe_tuple *t, axe__span *out, int max);
/* Token index just past the subtree starting at token "tb". */
int axe__tuple_subtree_end(const char *tok, int tb);
/* Number of leaves in tokens [tb, te). */
int axe__tuple_count_leaves(const char *tok, int tb, int te);

/* *out = *t, copying only the ntok tokens and nleaf leaves in use. */
void axe__tuple_copy(axe_tuple *out, const axe_tuple *t);
void axe__tuple_clear(axe_tuple *t);

/* The builder's steps are inline: the algebra's results are built a token
 * at a time, and a call per token costs more than the step itself. */
AXE_NODISCARD static inline axe_status axe__tuple_put_token(axe_tuple *t,
                                                            char c)
{
    if (t->ntok >= AXE_TUPLE_MAX_TOKENS)
        return AXE_ERR_CAPACITY;
    t->tok[t->ntok++] = c;
    return AXE_OK;
}

AXE_NODISCARD static inline axe_status axe__tuple_open(axe_tuple *t)
{
    return axe__tuple_put_token(t, '(');
}

AXE_NODISCARD static inline axe_status axe__tuple_close(axe_tuple *t)
{
    return axe__tuple_put_token(t, ')');
}

AXE_NODISCARD static inline axe_status axe__tuple_push(axe_tuple *t, int64_t v)
{
    if (t->nleaf >= AXE_TUPLE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    AXE_TRY(axe__tuple_put_token(t, 'x'));
    t->v[t->nleaf++] = v;
    return AXE_OK;
}

/* Append the subtree tokens [tb, te) of "src" with their leaves. */
AXE_NODISCARD static inline axe_status
axe__tuple_append_span(axe_tuple *t, const axe_tuple *src, const axe__span *sp)
{
    int ntok = sp->te - sp->tb, nl = sp->le - sp->lb;
    if (t->ntok + ntok > AXE_TUPLE_MAX_TOKENS ||
        t->nleaf + nl > AXE_TUPLE_MAX_LEAVES)
        return AXE_ERR_CAPACITY;
    axe__copy(t->tok + t->ntok, src->tok + sp->tb, (size_t)ntok,
              axe__room(AXE_TUPLE_MAX_TOKENS, t->ntok, sp->tb, 1));
    axe__copy(
        t->v + t->nleaf, src->v + sp->lb, (size_t)nl * sizeof(int64_t),
        axe__room(AXE_TUPLE_MAX_LEAVES, t->nleaf, sp->lb, sizeof(int64_t)));
    t->ntok = (uint8_t)(t->ntok + ntok);
    t->nleaf = (uint8_t)(t->nleaf + nl);
    return AXE_OK;
}

/* Append all of "src" as one element. */
AXE_NODISCARD static inline axe_status axe__tuple_append(axe_tuple *t,
                                                         const axe_tuple *src)
{
    axe__span sp = {0, src->ntok, 0, src->nleaf};
    return axe__tuple_append_span(t, src, &sp);
}

/* A builder's tokens are well formed and wrapped: "x" or "(...)". */
bool axe__tuple_is_valid(const axe_tuple *t);

#endif
