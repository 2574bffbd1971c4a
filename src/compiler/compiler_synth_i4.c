/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The store-byte rule of the copy anchor (docs/compiler.md, "Packed i4"
 * and "Layout synthesis"): when a register of the anchor's tied class is
 * copied or cast into a global or shared i4 tensor, a candidate layout is
 * kept only when every byte of the destination whose two nibbles such a
 * store writes gets both from one thread, the question dispatch's store
 * check (compiler_i4.c) asks of the plan. The byte partners are read off
 * the destination's layout, not off the register's dimension order:
 * element c of the register (row-major index x) goes to the element
 * address A(c) of the destination (its layout at the region's constant
 * start plus c, dynamic starts at 0; tile addresses, since an i4 swizzle
 * keeps bytes whole), and two elements share a byte when their addresses
 * plus the base's parity do; both parities when a dynamic start or view
 * offset makes it unknown (axe__base_parity_known, as dispatch). The
 * pairs are found once per anchor (sorted by address); a candidate is
 * then evaluated on them, thread by thread. Invariant: with "exact", a
 * layout passes iff no two of its threads (replicas included) write the
 * two nibbles of one byte in any such store; without (a store whose
 * source is not the whole register or whose destination's shape differs,
 * more than AX_SYNTH_I4_MAX elements, an address off the memory axis),
 * the caller falls back to even runs on all threads.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_synth.h"

#define AX_SYNTH_I4_MAX ((int64_t)1 << 21)

typedef struct i4_elem {
    int64_t addr, x;
} i4_elem;

static int by_addr(const void *a, const void *b)
{
    const i4_elem *u = a, *v = b;
    return u->addr < v->addr ? -1 : u->addr > v->addr ? 1 : 0;
}

/* The destination address of every register element of store "s" (its
 * row-major index x over "shape") into "e", and whether the base's
 * parity is unknown; false when they cannot be evaluated. */
static bool dest_addrs(const axe_program *p, const ax_stmt *s,
                       const int64_t *shape, int n, int64_t size, i4_elem *e,
                       bool *unknown)
{
    int64_t *addr = malloc((size_t)size * sizeof *addr);
    ax_base base;
    bool ok = addr != NULL &&
              axe__synth_elem_addrs(p, &s->args[0], shape, n, size, addr);
    for (int64_t x = 0; ok && x < size; x++)
        e[x] = (i4_elem){addr[x], x};
    free(addr);
    axe__plan_base(p, &s->args[0], &base);
    *unknown = !axe__base_parity_known(&base);
    return ok;
}

static bool push_pair(ax_synth_i4 *q, int64_t x, int64_t y)
{
    if (q->n == q->cap) {
        int64_t cap = q->cap == 0 ? 64 : 2 * q->cap;
        int64_t(*more)[2] = realloc(q->pair, (size_t)cap * sizeof *more);
        if (more == NULL)
            return false;
        q->pair = more;
        q->cap = cap;
    }
    q->pair[q->n][0] = x;
    q->pair[q->n++][1] = y;
    return true;
}

static int64_t floor_half(int64_t a) { return a >= 0 ? a / 2 : -((1 - a) / 2); }

/* The pairs of "e" (sorted by address) whose addresses plus "par" share a
 * byte that has both nibbles written: the byte's first writer with each
 * other one. */
static bool add_pairs(ax_synth_i4 *q, const i4_elem *e, int64_t size,
                      int64_t par)
{
    for (int64_t i = 0, j; i < size; i = j) {
        int64_t byte = floor_half(e[i].addr + par);
        bool nib[2] = {false, false};
        for (j = i; j < size && floor_half(e[j].addr + par) == byte; j++)
            nib[(e[j].addr + par) - 2 * byte] = true;
        for (int64_t k = i + 1; nib[0] && nib[1] && k < j; k++)
            if (!push_pair(q, e[i].x, e[k].x))
                return false;
    }
    return true;
}

/* Whether store "s" is one the rule covers for the class "in". */
static bool i4_store(const axe_program *p, const ax_stmt *s, const bool *in)
{
    const ax_tensor *d = &p->tensors[s->args[0].tensor];
    return (s->op == AX_OP_COPY || s->op == AX_OP_CAST) && s->nargs == 2 &&
           in[s->args[1].tensor] && d->dtype == AXE_DTYPE_I4 &&
           d->mem != AX_MEM_REGISTER;
}

/* The pairs of store "s" from register elements over "shape" into "q"
 * ("e" scratch for "size" elements); q->exact cleared when they cannot
 * be evaluated. */
static axe_status store_pairs(const axe_program *p, const ax_stmt *s,
                              const int64_t *shape, int n, int64_t size,
                              i4_elem *e, ax_synth_i4 *q)
{
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    bool unknown, same = axe__synth_whole(p, &s->args[1]) && src->ndim == n;
    for (int k = 0; same && k < n; k++)
        same = src->shape[k] == shape[k];
    if (!same || !dest_addrs(p, s, shape, n, size, e, &unknown)) {
        q->exact = false;
        return AXE_OK;
    }
    qsort(e, (size_t)size, sizeof *e, by_addr);
    for (int64_t par = 0; par < (unknown ? 2 : 1); par++)
        if (!add_pairs(q, e, size, par))
            return AXE_ERR_NO_MEMORY;
    return AXE_OK;
}

axe_status axe__synth_i4_pairs(const axe_program *p, const bool *in,
                               const int64_t *shape, int n, ax_synth_i4 *q)
{
    int64_t size = 1;
    i4_elem *e;
    axe_status st = AXE_OK;
    memset(q, 0, sizeof *q);
    q->tensor = axe__synth_i4_store(p, in);
    q->exact = q->tensor >= 0;
    for (int k = 0; k < n; k++)
        size *= shape[k];
    if (q->tensor < 0 || size > AX_SYNTH_I4_MAX) {
        q->exact = false;
        return AXE_OK;
    }
    e = malloc((size_t)size * sizeof *e);
    if (e == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int k = 0; k < p->nops && q->exact && st == AXE_OK; k++)
        if (i4_store(p, p->ops[k], in))
            st = store_pairs(p, p->ops[k], shape, n, size, e, q);
    free(e);
    if (st != AXE_OK || !q->exact) {
        axe__synth_i4_free(q);
        q->exact = false;
    }
    return st;
}

void axe__synth_i4_free(ax_synth_i4 *q)
{
    free(q->pair);
    q->pair = NULL;
    q->n = q->cap = 0;
}

/* A thread number per thread axis of a CTA (tx = laneid + 32 warpid =
 * tid_in_wg + 128 wgid = laneid + 32 wid_in_wg + 128 wgid), 0 for "m",
 * -1 for any other axis. */
static int64_t axis_weight(const char *axis)
{
    static const struct {
        const char *name;
        int64_t w;
    } tab[] = {{"m", 0},         {"tx", 1},      {"laneid", 1},
               {"tid_in_wg", 1}, {"warpid", 32}, {"wid_in_wg", 32},
               {"wgid", 128}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(axis, tab[i].name) == 0)
            return tab[i].w;
    return -1;
}

/* The thread number of element "x" of "l" (row-major over its shard
 * iters), from "div" and "mul" per iter. */
static int64_t thread_of(const axe_layout *l, const int64_t *div,
                         const int64_t *mul, int64_t x)
{
    int64_t t = 0;
    for (int i = 0; i < l->nshard; i++)
        t += x / div[i] % l->shard[i].extent * mul[i];
    return t;
}

bool axe__synth_i4_whole(const ax_synth_i4 *q, const axe_layout *l)
{
    int64_t div[AXE_LAYOUT_MAX_SHARD], mul[AXE_LAYOUT_MAX_SHARD], below = 1;
    if (q->n == 0)
        return true;
    for (int i = 0; i < l->nreplica; i++)
        if (l->replica[i].extent > 1)
            return false;
    for (int i = l->nshard - 1; i >= 0; i--) {
        int64_t w = axis_weight(l->shard[i].axis);
        if (w < 0)
            return false;
        div[i] = below;
        mul[i] = w * l->shard[i].stride;
        below *= l->shard[i].extent;
    }
    for (int64_t k = 0; k < q->n; k++)
        if (thread_of(l, div, mul, q->pair[k][0]) !=
            thread_of(l, div, mul, q->pair[k][1]))
            return false;
    return true;
}
