/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Canonical printing of CuTe objects. Tuples print as `(a,b)` with no
 * spaces, `_` for the wildcard; strides `s@k1@k0` for the basis E<k0,k1>;
 * tilers `<a, b>`; swizzles `Sw<B,M,S>`; composed `O o off o L`. The writer
 * never writes past "cap" and always counts the full length.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "notation_internal.h"

void axe__writer_init(axe__writer *w, char *buf, size_t cap)
{
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
}

void axe__put(axe__writer *w, const char *s)
{
    size_t n = strlen(s);
    if (w->len < w->cap) {
        size_t room = w->cap - w->len;
        memcpy(w->buf + w->len, s, n < room ? n : room);
    }
    w->len += n;
}

void axe__put_int(axe__writer *w, int64_t v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%" PRId64, v);
    axe__put(w, tmp);
}

size_t axe__writer_end(axe__writer *w)
{
    if (w->cap > 0)
        w->buf[w->len < w->cap ? w->len : w->cap - 1] = '\0';
    return w->len;
}

static void put_value(axe__writer *w, int64_t v)
{
    if (v == AXE_UNDERSCORE)
        axe__put(w, "_");
    else
        axe__put_int(w, v);
}

/* Print tokens of a profile, calling "leaf" for each leaf in order. */
static void put_profile(axe__writer *w, const axe_tuple *t,
                        void (*leaf)(axe__writer *, const void *, int),
                        const void *ctx)
{
    int li = 0;
    for (int i = 0; i < t->ntok; i++) {
        char c = t->tok[i];
        if (c == '(') {
            axe__put(w, "(");
            continue;
        }
        if (c == 'x')
            leaf(w, ctx, li++);
        else
            axe__put(w, ")");
        if (i + 1 < t->ntok && t->tok[i + 1] != ')')
            axe__put(w, ",");
    }
}

static void tuple_leaf(axe__writer *w, const void *ctx, int i)
{
    put_value(w, ((const axe_tuple *)ctx)->v[i]);
}

static void stride_leaf(axe__writer *w, const void *ctx, int i)
{
    const axe_cute_layout *l = ctx;
    uint32_t code = l->basis[i];
    axe__put_int(w, l->stride[i]);
    for (int k = AXE_CUTE_BASIS_DEPTH(code) - 1; k >= 0; k--) {
        axe__put(w, "@");
        axe__put_int(w, AXE_CUTE_BASIS_MODE(code, k));
    }
}

void axe__put_tuple(axe__writer *w, const axe_tuple *t)
{
    put_profile(w, t, tuple_leaf, t);
}

void axe__put_layout(axe__writer *w, const axe_cute_layout *l)
{
    axe__put_tuple(w, &l->shape);
    axe__put(w, ":");
    put_profile(w, &l->shape, stride_leaf, l);
}

size_t axe_print_tuple(const axe_tuple *t, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    axe__put_tuple(&w, t);
    return axe__writer_end(&w);
}

size_t axe_print_cute_layout(const axe_cute_layout *l, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    axe__put_layout(&w, l);
    return axe__writer_end(&w);
}

static void put_tiler(axe__writer *w, const axe_cute_tiler *t)
{
    int e = 0;
    for (int i = 0; i < t->ntok; i++) {
        char c = t->tok[i];
        if (c == '[')
            axe__put(w, "<");
        else if (c == ']')
            axe__put(w, ">");
        else if (c == '_')
            axe__put(w, "_");
        else
            axe__put_layout(w, &t->elem[e++]);
        if (c != '[' && i + 1 < t->ntok && t->tok[i + 1] != ']')
            axe__put(w, ", ");
    }
}

size_t axe_print_cute_tiler(const axe_cute_tiler *t, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    put_tiler(&w, t);
    return axe__writer_end(&w);
}

static void put_swizzle(axe__writer *w, const axe_swizzle *sw)
{
    axe__put(w, "Sw<");
    axe__put_int(w, sw->bits);
    axe__put(w, ",");
    axe__put_int(w, sw->base);
    axe__put(w, ",");
    axe__put_int(w, sw->shift);
    axe__put(w, ">");
}

size_t axe_print_swizzle(const axe_swizzle *sw, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    put_swizzle(&w, sw);
    return axe__writer_end(&w);
}

static void put_composed(axe__writer *w, const axe_cute_composed *c)
{
    if (c->kind == AXE_CUTE_OUTER_SWIZZLE)
        put_swizzle(w, &c->swizzle);
    else
        axe__put_layout(w, &c->outer);
    axe__put(w, " o ");
    axe__put_tuple(w, &c->offset);
    axe__put(w, " o ");
    axe__put_layout(w, &c->inner);
}

size_t axe_print_cute_composed(const axe_cute_composed *c, char *buf,
                               size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    put_composed(&w, c);
    return axe__writer_end(&w);
}

size_t axe_print_cute(const axe_cute_object *o, char *buf, size_t cap)
{
    axe__writer w;
    axe__writer_init(&w, buf, cap);
    switch (o->kind) {
    case AXE_CUTE_KIND_TUPLE:
        axe__put_tuple(&w, &o->tuple);
        break;
    case AXE_CUTE_KIND_LAYOUT:
        axe__put_layout(&w, &o->layout);
        break;
    case AXE_CUTE_KIND_TILER:
        put_tiler(&w, &o->tiler);
        break;
    case AXE_CUTE_KIND_SWIZZLE:
        put_swizzle(&w, &o->swizzle);
        break;
    case AXE_CUTE_KIND_COMPOSED:
        put_composed(&w, &o->composed);
        break;
    }
    return axe__writer_end(&w);
}
