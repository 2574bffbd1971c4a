/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Growing text for pictures: an axe_render_buf appends through the
 * caller's allocator hook (realloc/free when none) and keeps a sticky
 * status, so emitters are straight-line put() calls checked once at the
 * end (the ISL printer). Invariant: while status is AXE_OK, data holds len
 * bytes and a NUL (data is NULL only while len is 0); after a failure
 * nothing changes except that status stays AXE_ERR_NO_MEMORY.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_internal.h"

/* realloc/free behind the hook signature. */
static void *default_alloc(void *ud, void *p, size_t old, size_t size)
{
    (void)ud;
    (void)old;
    if (size == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, size);
}

/* The hook "alloc" (or realloc/free) resizing "p" from "old" to "size". */
void *axe__render_alloc(axe_alloc_fn *alloc, void *ud, void *p, size_t old,
                        size_t size)
{
    return (alloc != NULL ? alloc : default_alloc)(ud, p, old, size);
}

/* An empty buffer over "alloc" / "ud". */
void axe_render_buf_init(axe_render_buf *b, axe_alloc_fn *alloc, void *ud)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->status = AXE_OK;
    b->alloc = alloc;
    b->ud = ud;
}

/* Free the text; the buffer is empty (and usable) afterwards. */
void axe_render_buf_free(axe_render_buf *b)
{
    if (b == NULL)
        return;
    if (b->data != NULL)
        (void)axe__render_alloc(b->alloc, b->ud, b->data, b->cap, 0);
    axe_render_buf_init(b, b->alloc, b->ud);
}

/* Room for "extra" more bytes and a NUL, doubling; false on failure. */
static bool reserve(axe_render_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;
    if (b->status != AXE_OK)
        return false;
    if (extra > SIZE_MAX / 4 - b->len) {
        b->status = AXE_ERR_NO_MEMORY;
        return false;
    }
    need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    cap = b->cap < 256 ? 256 : b->cap;
    while (cap < need)
        cap *= 2;
    p = axe__render_alloc(b->alloc, b->ud, b->data, b->cap, cap);
    if (p == NULL) {
        b->status = AXE_ERR_NO_MEMORY;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

/* Append "len" bytes of "s". */
void axe__render_put(axe_render_buf *b, const char *s, size_t len)
{
    if (!reserve(b, len))
        return;
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

/* Append the NUL-terminated "s". */
void axe__render_puts(axe_render_buf *b, const char *s)
{
    axe__render_put(b, s, strlen(s));
}

/* Append printf("fmt", ...). */
void axe__render_putf(axe_render_buf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->status = AXE_ERR_INVALID;
        return;
    }
    if ((size_t)n < sizeof small) {
        axe__render_put(b, small, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    (void)vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Append "s" with the XML specials as entities. */
void axe__render_put_xml(axe_render_buf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        switch (*s) {
        case '&':
            axe__render_puts(b, "&amp;");
            break;
        case '<':
            axe__render_puts(b, "&lt;");
            break;
        case '>':
            axe__render_puts(b, "&gt;");
            break;
        case '"':
            axe__render_puts(b, "&quot;");
            break;
        default:
            axe__render_put(b, s, 1);
            break;
        }
    }
}

/* Append "s" as \ttfamily text: each TeX special and < > as \charN{}, which
 * typesets the typewriter font's own glyph (\_ would draw a rule, \textless
 * a substituted font); tab, newline and return as a space; any other byte
 * outside printable ASCII, which the font has no glyph for (a form feed is
 * even an error in TeX), as '?'. */
void axe__render_put_tex(axe_render_buf *b, const char *s)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        if (strchr("#$%&_{}<>\\^~", c) != NULL)
            axe__render_putf(b, "\\char%d{}", (int)c);
        else if (c == '\t' || c == '\n' || c == '\r')
            axe__render_put(b, " ", 1);
        else if (c < 0x20 || c > 0x7e)
            axe__render_put(b, "?", 1);
        else
            axe__render_put(b, s, 1);
    }
}

/* Append "n" spaces. */
void axe__render_pad(axe_render_buf *b, int64_t n)
{
    static const char spaces[] = "                                ";
    while (n > 0) {
        size_t k = n > 32 ? 32 : (size_t)n;
        axe__render_put(b, spaces, k);
        n -= (int64_t)k;
    }
}
