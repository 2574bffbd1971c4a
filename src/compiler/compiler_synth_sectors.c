/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Global-memory sectors (issue 15, one cost unit): the 32-byte sectors a
 * warp-wide access of global memory touches (the unit in which the L1
 * and L2 caches move data: a request costs one tag lookup per distinct
 * sector), counted by brute force on the addresses, and the sum of that
 * count over every warp-wide access of a copy between global memory and
 * a register layout. Invariant: a count is taken over the bytes the
 * active lanes touch, each sector once per access; nothing is estimated.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_smem.h"
#include "compiler_synth.h"

/* The most register elements a copy's sector count walks, and the most
 * keys it holds (an element per replica: 2^22 keys take 96 MiB). */
#define AX_SECTOR_MAX_ELEMS ((int64_t)1 << 21)
#define AX_SECTOR_MAX_KEYS ((int64_t)1 << 22)

static int cmp_i64(const void *a, const void *b)
{
    int64_t u = *(const int64_t *)a, v = *(const int64_t *)b;
    return u < v ? -1 : u > v ? 1 : 0;
}

/* compiler_smem.h: the distinct sectors floor(b / 32) over the bytes b
 * of [byte[t], byte[t] + width) of every active lane t. */
int64_t axe__sector_count(const ax_warp_access *a)
{
    int64_t sec[2 * AX_WARP];
    int64_t n = 0, distinct = 0;
    for (int t = 0; t < AX_WARP; t++) {
        int64_t first, last;
        if (!a->active[t] || a->width <= 0)
            continue;
        first = axe__floordiv(a->byte[t], AX_SECTOR_BYTES);
        last = axe__floordiv(a->byte[t] + a->width - 1, AX_SECTOR_BYTES);
        for (int64_t s = first; s <= last && n < 2 * AX_WARP; s++)
            sec[n++] = s;
    }
    qsort(sec, (size_t)n, sizeof *sec, cmp_i64);
    for (int64_t i = 0; i < n; i++)
        distinct += i == 0 || sec[i] != sec[i - 1];
    return distinct;
}

/* The element address of coordinate "crd" under "g" (grouped by "n" dims
 * at "seps") plus "off"; false when an iter off "m" moves it. */
static bool address(const axe_layout *g, const int *seps, int n,
                    const int64_t *crd, int64_t off, int64_t *out)
{
    *out = off;
    for (int d = 0; d < n; d++) {
        int64_t c = crd[d];
        for (int i = seps[d + 1] - 1; i >= seps[d]; i--) {
            const axe_iter *it = &g->shard[i];
            int64_t digit = c % it->extent;
            c /= it->extent;
            if (digit == 0)
                continue;
            if (strcmp(it->axis, "m") != 0)
                return false;
            *out += digit * it->stride;
        }
    }
    return true;
}

/* compiler_synth.h */
bool axe__synth_elem_addrs(const axe_program *p, const ax_ref *r,
                           const int64_t *shape, int n, int64_t size,
                           int64_t *addr)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const axe_layout *l = r->is_view ? &r->view : &t->layout;
    int64_t rs[AX_MAX_DIMS], st[AX_MAX_DIMS] = {0}, crd[AX_MAX_DIMS], off = 0;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    axe_layout g;
    if (axe__synth_ref_shape(p, r, rs) != n ||
        axe_layout_group(l, r->is_view ? rs : t->shape, n, &g, seps, NULL) !=
            AXE_OK)
        return false;
    for (int k = 0; k < n; k++) {
        if (rs[k] != shape[k])
            return false;
        if (!r->is_view && r->ndim > 0 && r->start[k] != NULL &&
            r->start[k]->kind == AX_EX_INT)
            st[k] = r->start[k]->value;
    }
    for (int i = 0; i < l->noffset; i++)
        if (strcmp(l->offset[i].axis, "m") == 0)
            off += l->offset[i].value;
    for (int64_t x = 0; x < size; x++) {
        int64_t q = x;
        for (int k = n - 1; k >= 0; k--)
            crd[k] = st[k] + q % shape[k], q /= shape[k];
        if (!address(&g, seps, n, crd, off, &addr[x]))
            return false;
    }
    return true;
}

/* One register element's access: the warp and instruction (register
 * vector) that move it, and its sector. */
typedef struct sec_key {
    int64_t warp, inst, sector;
} sec_key;

static int cmp_key(const void *a, const void *b)
{
    const sec_key *u = a, *v = b;
    if (u->warp != v->warp)
        return u->warp < v->warp ? -1 : 1;
    if (u->inst != v->inst)
        return u->inst < v->inst ? -1 : 1;
    return u->sector < v->sector ? -1 : u->sector > v->sector ? 1 : 0;
}

typedef struct sec_ctx {
    ax_scope scope;
    int64_t w, bits, threads;
    sec_key *key;
    int64_t n, cap;
} sec_ctx;

/* The keys of the element at memory address "addr" whose base point is
 * "pt" on "l", one per replica: false when a point is off the scope's
 * threads or registers. */
static bool add_points(sec_ctx *c, const axe_layout *l, const axe_point *pt,
                       int64_t addr)
{
    int64_t rank = 0, m = 0, reps = 1;
    for (int k = 0; k < pt->n; k++) {
        int64_t step = axe__synth_axis_step(c->scope, pt->axis[k]);
        if (strcmp(pt->axis[k], "m") == 0)
            m += pt->v[k];
        else if (step > 0)
            rank += step * pt->v[k];
        else if (pt->v[k] != 0)
            return false;
    }
    for (int i = 0; i < l->nreplica; i++)
        reps *= l->replica[i].extent;
    for (int64_t r = 0; r < reps; r++) {
        int64_t q = r, t = rank;
        for (int i = 0; i < l->nreplica; i++) {
            int64_t step = axe__synth_axis_step(c->scope, l->replica[i].axis);
            if (step == 0)
                return false;
            t += q % l->replica[i].extent * l->replica[i].stride * step;
            q /= l->replica[i].extent;
        }
        if (t < 0 || t >= c->threads || m < 0 || c->n == c->cap)
            return false;
        c->key[c->n++] =
            (sec_key){t / AX_WARP, m / c->w,
                      axe__floordiv(addr * c->bits / 8, AX_SECTOR_BYTES)};
    }
    return true;
}

/* The distinct (warp, instruction, sector) of the keys. */
static int64_t distinct_keys(sec_ctx *c)
{
    int64_t d = 0;
    qsort(c->key, (size_t)c->n, sizeof *c->key, cmp_key);
    for (int64_t i = 0; i < c->n; i++)
        d += i == 0 || cmp_key(&c->key[i], &c->key[i - 1]) != 0;
    return d;
}

static bool collect(sec_ctx *c, const axe_layout *l, const int64_t *shape,
                    int n, const int64_t *addr, int64_t size)
{
    for (int64_t x = 0; x < size; x++) {
        int64_t crd[AX_MAX_DIMS], q = x;
        axe_point pt;
        for (int k = n - 1; k >= 0; k--)
            crd[k] = q % shape[k], q /= shape[k];
        if (axe_layout_apply_shape(l, crd, shape, n, &pt, NULL) != AXE_OK ||
            !add_points(c, l, &pt, addr[x]))
            return false;
    }
    return true;
}

/* compiler_synth.h */
bool axe__synth_copy_sectors(const axe_program *p, const ax_stmt *s, int reg,
                             const axe_layout *l, int64_t w, int64_t *out)
{
    const ax_ref *mem = &s->args[1 - reg];
    int64_t shape[AX_MAX_DIMS], size = 1, reps = 1, *addr;
    int n = axe__synth_ref_shape(p, &s->args[reg], shape);
    sec_ctx c = {s->scope, w, 0, axe__scope_threads(p, s->scope), NULL, 0, 0};
    bool ok;
    if (w < 1 || c.threads < 1 || p->tensors[mem->tensor].mem != AX_MEM_GLOBAL)
        return false;
    c.bits = axe_dtype_bit_width(p->tensors[mem->tensor].dtype);
    for (int k = 0; k < n; k++)
        size *= shape[k];
    for (int i = 0; i < l->nreplica && reps <= c.threads; i++)
        reps *= l->replica[i].extent;
    if (size < 1 || size > AX_SECTOR_MAX_ELEMS || reps > c.threads ||
        reps > AX_SECTOR_MAX_KEYS / size)
        return false;
    c.cap = size * reps;
    addr = malloc((size_t)size * sizeof *addr);
    c.key = malloc((size_t)c.cap * sizeof *c.key);
    ok = addr != NULL && c.key != NULL &&
         axe__synth_elem_addrs(p, mem, shape, n, size, addr) &&
         collect(&c, l, shape, n, addr, size);
    if (ok)
        *out = distinct_keys(&c);
    free(addr);
    free(c.key);
    return ok;
}
