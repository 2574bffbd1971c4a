/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The compiler's arena and growable text. An arena is a chain of blocks
 * obtained from the program's allocator hook (malloc/free by default) and
 * freed all at once; every block is zeroed. Texts grow by doubling inside
 * the arena and keep a sticky status: once an allocation fails every later
 * put is a no-op and the status stays AXE_ERR_NO_MEMORY. Invariant: a
 * block's "used" never exceeds its "size"; allocations are 16-aligned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"

typedef struct ax_block {
    struct ax_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} ax_block;

struct ax_arena {
    axe_allocator alloc;
    ax_block *head;
};

static void *raw_alloc(const axe_allocator *al, size_t n)
{
    return al->alloc != NULL ? al->alloc(al->ctx, n) : malloc(n);
}

static void raw_release(const axe_allocator *al, void *p)
{
    if (al->release != NULL)
        al->release(al->ctx, p);
    else
        free(p);
}

/* A new empty arena using "alloc" (NULL: malloc/free); NULL on failure. */
ax_arena *axe__arena_new(const axe_allocator *alloc)
{
    axe_allocator al = {NULL, NULL, NULL};
    ax_arena *a;
    if (alloc != NULL)
        al = *alloc;
    a = raw_alloc(&al, sizeof *a);
    if (a == NULL)
        return NULL;
    a->alloc = al;
    a->head = NULL;
    return a;
}

/* The allocator "a" was made with (a copy; fields NULL for malloc/free). */
axe_allocator axe__arena_allocator(const ax_arena *a) { return a->alloc; }

/* Release every block and the arena (NULL accepted). */
void axe__arena_free(ax_arena *a)
{
    ax_block *b;
    if (a == NULL)
        return;
    b = a->head;
    while (b != NULL) {
        ax_block *next = b->next;
        raw_release(&a->alloc, b);
        b = next;
    }
    raw_release(&a->alloc, a);
}

/* "size" zeroed bytes aligned to 16, valid until the arena is freed. */
void *axe__arena_alloc(ax_arena *a, size_t size)
{
    ax_block *b = a->head;
    size_t need = (size + 15) & ~(size_t)15;
    void *p;
    if (need < size)
        return NULL;
    if (b == NULL || b->size - b->used < need) {
        size_t bsize = need > 16384 ? need : 16384;
        if (bsize > SIZE_MAX - sizeof *b)
            return NULL;
        b = raw_alloc(&a->alloc, sizeof *b + bsize);
        if (b == NULL)
            return NULL;
        b->size = bsize;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    p = b->data + b->used;
    b->used += need;
    memset(p, 0, need);
    return p;
}

/* An empty text in "a". */
void axe__text_init(ax_text *t, ax_arena *a)
{
    t->arena = a;
    t->buf = NULL;
    t->len = 0;
    t->cap = 0;
    t->status = AXE_OK;
}

static bool text_reserve(ax_text *t, size_t extra)
{
    size_t cap = t->cap == 0 ? 256 : t->cap;
    char *nb;
    if (t->len + extra + 1 <= t->cap)
        return true;
    while (cap < t->len + extra + 1)
        cap *= 2;
    nb = axe__arena_alloc(t->arena, cap);
    if (nb == NULL) {
        t->status = AXE_ERR_NO_MEMORY;
        return false;
    }
    if (t->len > 0)
        memcpy(nb, t->buf, t->len);
    t->buf = nb;
    t->cap = cap;
    return true;
}

/* Append printf-style text (sticky status). */
void axe__text_vput(ax_text *t, const char *fmt, va_list ap)
{
    va_list cp;
    int n;
    if (t->status != AXE_OK)
        return;
    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0) {
        t->status = AXE_ERR_INVALID;
        return;
    }
    if (!text_reserve(t, (size_t)n))
        return;
    (void)vsnprintf(t->buf + t->len, (size_t)n + 1, fmt, ap);
    t->len += (size_t)n;
}

void axe__text_put(ax_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    axe__text_vput(t, fmt, ap);
    va_end(ap);
}

void axe__text_put_indented(ax_text *t, const ax_text *b)
{
    const char *line = b->buf, *end;
    if (b->status != AXE_OK) {
        t->status = b->status;
        return;
    }
    for (; line != NULL && *line != '\0'; line = end) {
        end = strchr(line, '\n');
        end = end != NULL ? end + 1 : line + strlen(line);
        axe__text_put(t, "%s%.*s", *line != '\n' ? "    " : "",
                      (int)(end - line), line);
    }
}
