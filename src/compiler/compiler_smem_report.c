/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Conflict ways of a dispatched program's shared-memory accesses, before
 * and after a swizzle chosen per shared tensor (docs/compiler.md,
 * "Shared-memory bank conflicts"): the accesses (compiler_smem_access.c)
 * of each tensor are placed by its written layout (tile addresses, its
 * own swizzle for "before"), the swizzle is chosen over the unswizzled
 * written layout (compiler_swizzle_pick.c). Invariant: every count is
 * the bank model's on the placed accesses.
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_smem.h"

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t tensor_size(const ax_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

/* The sorted tile addresses of tensor "t" under base layout "l". */
/* Scratch (compiler_smem.h). */
void *axe__smem_scratch(const axe_program *p, size_t size)
{
    axe_allocator al = axe__arena_allocator(p->arena);
    if (size == 0)
        size = 1;
    return al.alloc != NULL ? al.alloc(al.ctx, size) : malloc(size);
}

void axe__smem_scratch_release(const axe_program *p, void *ptr)
{
    axe_allocator al = axe__arena_allocator(p->arena);
    if (ptr == NULL)
        return;
    if (al.release != NULL)
        al.release(al.ctx, ptr);
    else
        free(ptr); /* as the arena releases its blocks */
}

/* The sorted tile addresses of "t" under "l" into "*addr" (scratch, the
 * caller releases it). */
static axe_status tile_addrs(axe_program *p, const ax_tensor *t,
                             const axe_layout *l, int64_t **addr, int64_t *n,
                             axe_diag *diag)
{
    *n = tensor_size(t);
    *addr = axe__smem_scratch(p, (size_t)*n * sizeof(int64_t));
    if (*addr == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int64_t x = 0; x < *n; x++)
        if (((*addr)[x] = axe__smem_tile_addr(l, x)) < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "shared tensor '%s': element %lld has no "
                             "single address on m",
                             t->name, (long long)x);
    qsort(*addr, (size_t)*n, sizeof(int64_t), cmp64);
    return AXE_OK;
}

/* Access "a" placed by base layout "l": false when a lane's vector is not
 * at consecutive addresses there. */
static bool place(const axe_layout *l, const ax_smem_access *a,
                  ax_tile_access *out)
{
    out->vec = a->vec;
    for (int t = 0; t < AX_WARP; t++) {
        out->active[t] = a->active[t];
        out->elem[t] = a->active[t] ? axe__smem_tile_addr(l, a->index[t]) : 0;
        for (int64_t e = 1; a->active[t] && e < a->vec; e++)
            if (axe__smem_tile_addr(l, a->index[t] + axe__smem_offset(a, e)) !=
                out->elem[t] + e)
                return false;
    }
    return true;
}

/* The ways of one placed access under "sw" (NULL: none). */
static axe_status one_ways(const ax_tile_access *ta, int64_t bits,
                           const axe_layout_swizzle *sw, int *ways,
                           axe_diag *diag)
{
    ax_ways w;
    AXE_TRY(axe__tile_ways(ta, 1, bits, sw, &w, diag));
    *ways = w.max;
    return AXE_OK;
}

/* The record of (op, arg) in "r", made when new. */
static ax_smem_ways *record(ax_smem_report *r, const ax_smem_access *a)
{
    for (int k = 0; k < r->nways; k++)
        if (r->ways[k].op == a->op && r->ways[k].arg == a->arg)
            return &r->ways[k];
    r->ways[r->nways] = (ax_smem_ways){a->op, a->arg, a->tensor, 0, 0, 0};
    return &r->ways[r->nways++];
}

static void keep_max(int *into, int v) { *into = v > *into ? v : *into; }

/* The per-access ways of tensor "ti" under choice "c" (placed "ta"). */
static axe_status access_ways(const ax_smem_list *l, int ti, int64_t bits,
                              const axe_layout_swizzle *own,
                              const ax_smem_choice *c, const ax_tile_access *ta,
                              ax_smem_report *r, axe_diag *diag)
{
    const axe_layout_swizzle *sw = c->sw.present ? &c->sw : NULL;
    int na = 0, b, a;
    for (int k = 0; k < l->n; k++) {
        ax_smem_ways *w;
        if (l->a[k].tensor != ti)
            continue;
        w = record(r, &l->a[k]);
        if (c->compact && !c->ok) {
            w->compact = -1;
            continue;
        }
        AXE_TRY(one_ways(&ta[na], bits, sw, &a, diag));
        if (c->compact) {
            if (w->compact >= 0)
                keep_max(&w->compact, a);
        } else {
            AXE_TRY(one_ways(&ta[na], bits, own, &b, diag));
            keep_max(&w->before, b);
            keep_max(&w->after, a);
        }
        na++;
    }
    return AXE_OK;
}

/* Tensor "ti" on base layout "base" (its own swizzle "own" counts
 * before): place its "na" accesses, choose the swizzle, count; with a
 * "bound", only where its placed vectors hold and the chosen counts are
 * below it ("*below"; else "c" and "r" are left incomplete). */
static axe_status choose_in(axe_program *p, const ax_smem_list *l, int ti,
                            const axe_layout *base,
                            const axe_layout_swizzle *own, ax_tile_access *ta,
                            int64_t **addrp, const ax_ways *bound,
                            ax_smem_choice *c, ax_smem_report *r, bool *below,
                            axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    int64_t bits = axe_dtype_bit_width(t->dtype), n;
    int na;
    c->tensor = ti;
    c->ok = true;
    na = 0;
    for (int k = 0; k < l->n; k++)
        if (l->a[k].tensor == ti)
            c->ok = place(base, &l->a[k], &ta[na++]) && c->ok;
    if (!c->ok && !c->compact)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "shared tensor '%s': a vector access is not "
                         "contiguous in its own layout",
                         t->name);
    *below = bound == NULL || c->ok;
    if (*below && bound != NULL) {
        AXE_TRY(tile_addrs(p, t, base, addrp, &n, diag));
        AXE_TRY(axe__swizzle_pick_below(*addrp, n, ta, na, bits, bound, &c->sw,
                                        &c->before, &c->after, below, diag));
        return *below ? access_ways(l, ti, bits, own, c, ta, r, diag) : AXE_OK;
    }
    if (c->ok) {
        AXE_TRY(tile_addrs(p, t, base, addrp, &n, diag));
        AXE_TRY(axe__swizzle_pick(*addrp, n, ta, na, bits, &c->sw, &c->before,
                                  &c->after, diag));
        if (!c->compact)
            AXE_TRY(axe__tile_ways(ta, na, bits, own, &c->before, diag));
    }
    return access_ways(l, ti, bits, own, c, ta, r, diag);
}

/* choose_in with its scratch: the placed accesses and the tile
 * addresses, released before it returns (one order after another would
 * keep them all in the arena). */
static axe_status choose(axe_program *p, const ax_smem_list *l, int ti,
                         const axe_layout *base, const axe_layout_swizzle *own,
                         int na, const ax_ways *bound, ax_smem_choice *c,
                         ax_smem_report *r, bool *below, axe_diag *diag)
{
    ax_tile_access *ta = axe__smem_scratch(p, (size_t)na * sizeof *ta);
    int64_t *addr = NULL;
    axe_status st;
    if (ta == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    memset(ta, 0, (size_t)na * sizeof *ta);
    st = choose_in(p, l, ti, base, own, ta, &addr, bound, c, r, below, diag);
    axe__smem_scratch_release(p, addr);
    axe__smem_scratch_release(p, ta);
    return st;
}

/* The row-major layout over "t"'s shape. */
static axe_status row_major(const ax_tensor *t, axe_layout *out)
{
    int64_t stride = 1;
    axe_layout_init(out);
    for (int d = 0; d < t->ndim; d++)
        AXE_TRY(axe_layout_push_shard(out, t->shape[d], 0, "m"));
    for (int d = t->ndim - 1; d >= 0; d--) {
        out->shard[d].stride = stride;
        stride *= t->shape[d];
    }
    return AXE_OK;
}

/* Tensor "ti": its written layout, then the compact one. */
static axe_status tensor_report(axe_program *p, const ax_smem_list *l, int ti,
                                ax_smem_report *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    const axe_layout_swizzle *own =
        t->layout.swizzle.present ? &t->layout.swizzle : NULL;
    axe_layout compact;
    int na = 0;
    bool below;
    for (int k = 0; k < l->n; k++)
        na += l->a[k].tensor == ti;
    if (na == 0)
        return AXE_OK;
    AXE_TRY(choose(p, l, ti, &t->layout, own, na, NULL,
                   &r->choice[r->nchoices++], r, &below, diag));
    AXE_TRY(row_major(t, &compact));
    r->choice[r->nchoices].compact = true;
    return choose(p, l, ti, &compact, NULL, na, NULL, &r->choice[r->nchoices++],
                  r, &below, diag);
}

/* The report (compiler_smem.h). */
axe_status axe__smem_report(axe_program *p, ax_smem_report *out, axe_diag *diag)
{
    ax_smem_list l;
    AXE_TRY(axe__smem_accesses(p, &l, diag));
    memset(out, 0, sizeof *out);
    out->ways = axe__arena_alloc(p->arena, (size_t)(l.n > 0 ? l.n : 1) *
                                               sizeof *out->ways);
    if (out->ways == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int ti = 0; ti < p->ntensors; ti++)
        if (p->tensors[ti].mem == AX_MEM_SHARED)
            AXE_TRY(tensor_report(p, &l, ti, out, diag));
    return AXE_OK;
}

/* The ways of access "a" placed by "base" under "sw" (compiler_smem.h):
 * one vector access when its elements are consecutive there, else the
 * largest over its "vec" single-element accesses. */
axe_status axe__smem_access_ways(const axe_layout *base,
                                 const axe_layout_swizzle *sw, int64_t bits,
                                 const ax_smem_access *a, int *ways,
                                 axe_diag *diag)
{
    ax_tile_access ta;
    ax_smem_access one = *a;
    if (place(base, a, &ta))
        return one_ways(&ta, bits, sw, ways, diag);
    *ways = 0;
    one.vec = 1;
    one.nlev = 0;
    for (int64_t e = 0; e < a->vec; e++) {
        int w;
        for (int t = 0; t < AX_WARP; t++)
            one.index[t] = a->index[t] + axe__smem_offset(a, e);
        (void)place(base, &one, &ta);
        AXE_TRY(one_ways(&ta, bits, sw, &w, diag));
        keep_max(ways, w);
    }
    return AXE_OK;
}

/* One tensor on one base layout where it beats a bound
 * (compiler_smem.h). */
axe_status axe__smem_choose_below(axe_program *p, const ax_smem_list *l, int ti,
                                  const axe_layout *base, const ax_ways *bound,
                                  ax_smem_report *r, bool *below,
                                  axe_diag *diag)
{
    int na = 0;
    memset(r, 0, sizeof *r);
    for (int k = 0; k < l->n; k++)
        na += l->a[k].tensor == ti;
    r->ways = axe__arena_alloc(p->arena,
                               (size_t)(l->n > 0 ? l->n : 1) * sizeof *r->ways);
    if (r->ways == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    if (na == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, p->tensors[ti].off,
                         "shared tensor '%s' has no access to choose for",
                         p->tensors[ti].name);
    r->choice[0].compact = true;
    r->nchoices = 1;
    return choose(p, l, ti, base, NULL, na, bound, &r->choice[0], r, below,
                  diag);
}

/* One tensor on one base layout (compiler_smem.h). */
axe_status axe__smem_choose_on(axe_program *p, const ax_smem_list *l, int ti,
                               const axe_layout *base, ax_smem_report *r,
                               axe_diag *diag)
{
    bool below;
    return axe__smem_choose_below(p, l, ti, base, NULL, r, &below, diag);
}
