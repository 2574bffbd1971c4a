/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The warp-wide shared-memory accesses of a dispatched program, from its
 * plans (docs/compiler.md, "Shared-memory bank conflicts"): for every
 * operator (and the stages of reduce.smem and copy.smem) whose plan
 * touches a shared tensor, every warp of a CTA runs the plan's
 * instructions in order, once per value of the block ids and loop
 * variables the operator reads (walk_op): instruction j is the j-th
 * chunk of the loop digits (the innermost loop in steps of the plan's
 * vector), the same for every lane of a per-thread loop nest, chunk
 * rank + j * threads for a split plan; lane l is thread 32w + l with its
 * rank in the operator's scope; a lane takes part
 * when the operator's guards hold and its coordinates lie inside every
 * masked dimension. The steps of reduce.tree between its stages are
 * walked as the emitted loop runs them (tree_steps). A gemm.mma_smem
 * reads A and B by fragments instead
 * (mma_accesses below). A view with a swizzle other than its tensor's
 * reaches the physical address its own swizzle gives; the element is
 * the tensor's at that address (view_tile_addr). Each access is kept once
 * (by its lanes' logical element indices). Invariant: index[t] is the
 * logical element the generated code touches at that lane and
 * instruction, as the reference interpreter locates it (compiler_ref.c).
 */
#include <string.h>

#include "compiler_smem.h"

/* The unswizzled tile address of element "x" (compiler_smem.h). */
int64_t axe__smem_tile_addr(const axe_layout *l, int64_t x)
{
    axe_layout base = *l;
    axe_point pt;
    int64_t m = 0;
    base.swizzle.present = false;
    if (axe_layout_apply_base(&base, x, &pt, NULL) != AXE_OK)
        return -1;
    for (int k = 0; k < pt.n; k++) {
        if (strcmp(pt.axis[k], "m") == 0)
            m = pt.v[k];
        else if (pt.v[k] != 0)
            return -1;
    }
    return m;
}

/* The offset of element "e" (compiler_smem.h). */
int64_t axe__smem_offset(const ax_smem_access *a, int64_t e)
{
    int64_t ext0 = a->vec, off;
    for (int j = 0; j < a->nlev; j++)
        ext0 /= a->lext[j];
    off = e % ext0 * a->vstride;
    e /= ext0;
    for (int j = 0; j < a->nlev; j++) {
        off += e % a->lext[j] * a->lstride[j];
        e /= a->lext[j];
    }
    return off;
}

static uint32_t access_hash(const ax_smem_access *a)
{
    uint32_t h = 2166136261u;
    int64_t parts[6 + 2 * AX_RUN_LEVELS] = {
        a->op,  a->arg + (a->rmw ? 1 << 16 : 0), a->tensor, a->vec, a->vstride,
        a->nlev};
    for (int j = 0; j < a->nlev; j++) {
        parts[6 + 2 * j] = a->lext[j];
        parts[7 + 2 * j] = a->lstride[j];
    }
    for (int k = 0; k < 6 + 2 * AX_RUN_LEVELS + AX_WARP; k++) {
        int64_t v = k < 6 + 2 * AX_RUN_LEVELS
                        ? parts[k]
                        : (a->active[k - 6 - 2 * AX_RUN_LEVELS]
                               ? a->index[k - 6 - 2 * AX_RUN_LEVELS]
                               : -1);
        for (int b = 0; b < 8; b++) {
            h ^= (uint32_t)((uint64_t)v >> (8 * b)) & 0xffu;
            h *= 16777619u;
        }
    }
    return h;
}

static bool same_access(const ax_smem_access *a, const ax_smem_access *b)
{
    if (a->op != b->op || a->arg != b->arg || a->tensor != b->tensor ||
        a->rmw != b->rmw || a->vec != b->vec || a->vstride != b->vstride ||
        a->nlev != b->nlev)
        return false;
    for (int j = 0; j < a->nlev; j++)
        if (a->lext[j] != b->lext[j] || a->lstride[j] != b->lstride[j])
            return false;
    for (int t = 0; t < AX_WARP; t++)
        if (a->active[t] != b->active[t] ||
            (a->active[t] && a->index[t] != b->index[t]))
            return false;
    return true;
}

static axe_status smem_add(ax_arena *arena, ax_smem_list *l,
                           const ax_smem_access *a, axe_diag *diag);

static axe_status list_init(ax_arena *arena, ax_smem_list *l, axe_diag *diag)
{
    l->n = 0;
    l->cap = 4096;
    l->a = axe__arena_alloc(arena, (size_t)l->cap * sizeof *l->a);
    l->slot = axe__arena_alloc(arena, (size_t)l->cap * 2 * sizeof(uint32_t));
    if (l->a == NULL || l->slot == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    return AXE_OK;
}

/* Double the list's capacity (the arena keeps the old arrays). */
static axe_status list_grow(ax_arena *arena, ax_smem_list *l, axe_diag *diag)
{
    ax_smem_list g = *l;
    if (l->cap >= AX_SMEM_MAX_ACCESSES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "more than %d distinct warp-wide shared-memory "
                         "accesses",
                         AX_SMEM_MAX_ACCESSES);
    g.cap = l->cap * 2;
    g.n = 0;
    g.a = axe__arena_alloc(arena, (size_t)g.cap * sizeof *g.a);
    g.slot = axe__arena_alloc(arena, (size_t)g.cap * 2 * sizeof(uint32_t));
    if (g.a == NULL || g.slot == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int i = 0; i < l->n; i++)
        AXE_TRY(smem_add(arena, &g, &l->a[i], diag));
    *l = g;
    return AXE_OK;
}

/* Add "a" unless the list has it. */
static axe_status smem_add(ax_arena *arena, ax_smem_list *l,
                           const ax_smem_access *a, axe_diag *diag)
{
    uint32_t nslots, k;
    if (l->n == l->cap)
        AXE_TRY(list_grow(arena, l, diag));
    nslots = (uint32_t)l->cap * 2;
    for (k = access_hash(a) % nslots; l->slot[k] != 0; k = (k + 1) % nslots)
        if (same_access(&l->a[l->slot[k] - 1], a))
            return AXE_OK;
    l->a[l->n++] = *a;
    l->slot[k] = (uint32_t)l->n;
    return AXE_OK;
}

/* ---- walking a plan --------------------------------------------------- */

typedef struct walker {
    const axe_program *p;
    const ax_stmt *s;    /* the statement whose plan runs */
    const ax_stmt *op;   /* the operator (index, guards) */
    const ax_plan *plan; /* the plan that runs: s's, or "cand" */
    /* Counting (axe__plan_ways): the candidate plan of "op" walked
     * instead of its own, and the counts so far; NULL: listing */
    const ax_plan *cand;
    ax_ways ways;
    ax_smem_list *out;
    int64_t env[AX_MAX_VARS];
    int64_t *inv[AX_MAX_TENSORS]; /* tile address -> logical index */
    int64_t ninv[AX_MAX_TENSORS];
} walker;

/* The inverse of shared tensor "ti"'s unswizzled layout, once. */
static axe_status inverse_table(walker *w, int ti, axe_diag *diag)
{
    const ax_tensor *t = &w->p->tensors[ti];
    int64_t size = 1;
    if (w->inv[ti] != NULL)
        return AXE_OK;
    for (int d = 0; d < t->ndim; d++)
        size *= t->shape[d];
    w->ninv[ti] = t->span > 0 ? t->span : 1;
    w->inv[ti] =
        axe__arena_alloc(w->p->arena, (size_t)w->ninv[ti] * sizeof(int64_t));
    if (w->inv[ti] == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int64_t a = 0; a < w->ninv[ti]; a++)
        w->inv[ti][a] = -1;
    for (int64_t x = 0; x < size; x++) {
        int64_t a = axe__smem_tile_addr(&t->layout, x);
        if (a >= 0 && a < w->ninv[ti])
            w->inv[ti][a] = x;
    }
    return AXE_OK;
}

static bool same_swizzle(const axe_layout_swizzle *a,
                         const axe_layout_swizzle *b)
{
    if (!a->present || !b->present)
        return a->present == b->present;
    return a->inner == b->inner && a->per_element == b->per_element &&
           a->len == b->len && a->atom == b->atom;
}

/* The tensor's unswizzled tile address of the byte that view "r" of "t"
 * reaches at its unswizzled address "a": the view's swizzle gives the
 * physical address, and the tensor's swizzle (an involution: the bits it
 * xors in are left as they are) takes it back to the tile. The same "a"
 * when both swizzles are the same. */
static axe_status view_tile_addr(const ax_tensor *t, const ax_ref *r, int64_t a,
                                 int64_t *out, axe_diag *diag)
{
    int64_t phys;
    if (same_swizzle(&r->view.swizzle, &t->layout.swizzle)) {
        *out = a;
        return AXE_OK;
    }
    if (axe__swizzle_addr(&r->view.swizzle, a, &phys) != AXE_OK ||
        axe__swizzle_addr(&t->layout.swizzle, phys, out) != AXE_OK)
        return axe__fail(diag, AXE_ERR_OVERFLOW, r->off,
                         "a view of '%s': address %lld out of range", t->name,
                         (long long)a);
    return AXE_OK;
}

/* The logical element "x" of operand "r" at operator coordinates "c" (as
 * the reference's locate; -1 outside a masked dimension) and its
 * unswizzled tile address "addr". */
static axe_status locate(walker *w, const ax_ref *r, const int64_t *c,
                         int64_t *x, int64_t *addr, axe_diag *diag)
{
    const ax_tensor *t = &w->p->tensors[r->tensor];
    int n = r->is_view ? r->ndim : t->ndim;
    int64_t a = 0;
    *x = *addr = -1;
    for (int d = 0; d < n; d++) {
        int64_t cd = c[d + (r->bdim >= 0 && d >= r->bdim)];
        if (r->is_view) {
            a += cd * r->view.shard[d].stride;
            continue;
        }
        cd += r->start[d] ? axe__expr_eval(r->start[d], w->env) : 0;
        if (cd < 0 || cd >= t->shape[d])
            return AXE_OK;
        a = a * t->shape[d] + cd;
    }
    if (!r->is_view) {
        *x = a;
        *addr = axe__smem_tile_addr(&t->layout, a);
        return AXE_OK;
    }
    for (int d = 0; d < r->view.noffset; d++)
        a += r->view.offset[d].value;
    a += r->view_dyn ? axe__expr_eval(r->view_dyn, w->env) : 0;
    AXE_TRY(view_tile_addr(t, r, a, &a, diag));
    AXE_TRY(inverse_table(w, r->tensor, diag));
    *addr = a;
    *x = a >= 0 && a < w->ninv[r->tensor] ? w->inv[r->tensor][a] : -1;
    return AXE_OK;
}

static axe_status element_of(walker *w, const ax_ref *r, const int64_t *c,
                             int64_t *x, axe_diag *diag)
{
    int64_t addr;
    return locate(w, r, c, x, &addr, diag);
}

/* The non-thread digits of chunk "u" (innermost loop in vector steps,
 * the pair loop of whole-byte i4 stores in steps of 2). */
static void decode(const ax_plan *plan, int64_t u, int64_t *digit)
{
    int last = axe__plan_innermost_loop(plan);
    for (int k = plan->nloops - 1; k >= 0; k--) {
        int64_t e, step = plan->pair == k + 1 ? 2 : k == last ? plan->vec : 1;
        if (plan->loops[k].thread)
            continue;
        e = plan->loops[k].extent / step;
        digit[k] = u % e * step;
        u /= e;
    }
}

/* Thread "tid"'s environment and rank in the operator's scope. */
static int64_t set_thread(walker *w, int64_t tid)
{
    w->env[AX_VAR_TX] = tid;
    w->env[AX_VAR_LANEID] = tid % 32;
    w->env[AX_VAR_WARPID] = tid / 32;
    w->env[AX_VAR_WGID] = tid / 128;
    w->env[AX_VAR_TID_IN_WG] = tid % 128;
    w->env[AX_VAR_WID_IN_WG] = tid % 128 / 32;
    switch (w->op->scope) {
    case AX_SCOPE_WARP:
        return tid % 32;
    case AX_SCOPE_WARPGROUP:
        return tid % 128;
    case AX_SCOPE_KERNEL:
    case AX_SCOPE_CTA:
    case AX_SCOPE_THREAD:
        break;
    }
    return tid;
}

/* One lane at one instruction: its loop digits (thread digits from its
 * rank) and the operator coordinates they give. */
typedef struct lane {
    bool in;
    int64_t digit[AX_MAX_LOOPS];
    int64_t c[AX_MAX_DIMS];
} lane;

/* Lane "l" of warp "wp" at instruction "j" ("in" false when it does not
 * take part). */
static void lane_at(walker *w, int64_t wp, int l, int64_t j, lane *ln)
{
    const ax_plan *plan = w->plan;
    int64_t u = j, rank = set_thread(w, 32 * wp + l);
    memset(ln, 0, sizeof *ln);
    ln->in =
        32 * wp + l < w->p->threads && axe__guard_holds(w->op->guard, w->env);
    if (ln->in && plan->kind == AX_PLAN_SPLIT) { /* pairs dealt whole */
        u = rank + j * plan->nthreads;
        ln->in = u < plan->total / (plan->pair > 0 ? 2 : 1);
    }
    if (!ln->in)
        return;
    decode(plan, u, ln->digit);
    for (int k = 0; k < plan->nloops; k++) {
        const ax_loop *lp = &plan->loops[k];
        if (lp->thread)
            ln->digit[k] = rank / lp->rank_div % lp->extent;
        ln->c[lp->dim] += ln->digit[k] * lp->weight;
    }
}

/* Whether the lane's coordinates lie inside every masked dimension of
 * operand "r" (their coordinates are kept by the plan's merges). */
static bool inside_masks(walker *w, const ax_ref *r, const lane *ln)
{
    const ax_tensor *t = &w->p->tensors[r->tensor];
    for (int d = 0; r->any_masked && d < r->ndim; d++) {
        int64_t x = ln->c[d + (r->bdim >= 0 && d >= r->bdim)];
        if (!r->masked[d])
            continue;
        x += r->start[d] ? axe__expr_eval(r->start[d], w->env) : 0;
        if (x < 0 || x >= t->shape[d])
            return false;
    }
    return true;
}

/* The tile address of operand "i" of an affine plan at the lane's
 * digits, plus "extra" times the innermost loop's stride: the emitted
 * code's address (a merged loop may run across dimensions, so the
 * coordinates need not be the tensor's). */
static int64_t affine_addr(walker *w, int i, const lane *ln, int64_t extra)
{
    const ax_plan *plan = w->plan;
    ax_base b;
    int64_t a;
    axe__plan_base(w->p, &w->s->args[i], &b);
    a = b.cst;
    for (int k = 0; k < b.ndyn; k++)
        a += axe__expr_eval(b.dyn[k], w->env) * b.scale[k];
    for (int k = 0; k < plan->nloops; k++)
        a += ln->digit[k] * plan->loops[k].stride[i];
    if (extra == 0)
        return a;
    return a + extra * plan->loops[axe__plan_innermost_loop(plan)].stride[i];
}

/* The logical element of operand "i" at the lane, plus "extra" steps of
 * the innermost loop (-1 outside a masked dimension). */
static axe_status lane_element(walker *w, int i, const lane *ln, int64_t extra,
                               int64_t *x, axe_diag *diag)
{
    const ax_ref *r = &w->s->args[i];
    int64_t c[AX_MAX_DIMS], a;
    *x = -1;
    if (!inside_masks(w, r, ln))
        return AXE_OK;
    if (!w->plan->affine[i]) {
        memcpy(c, ln->c, sizeof c);
        if (extra != 0) {
            const ax_loop *lp =
                &w->plan->loops[axe__plan_innermost_loop(w->plan)];
            c[lp->dim] += extra * lp->weight;
        }
        return element_of(w, r, c, x, diag);
    }
    AXE_TRY(inverse_table(w, r->tensor, diag));
    a = affine_addr(w, i, ln, extra);
    if (r->is_view)
        AXE_TRY(view_tile_addr(&w->p->tensors[r->tensor], r, a, &a, diag));
    *x = a >= 0 && a < w->ninv[r->tensor] ? w->inv[r->tensor][a] : -1;
    return AXE_OK;
}

/* Whether operand "i" of the walked statement is a store narrower than a
 * byte: its destination (operand 0), packed i4, one element per access
 * (the emitted code reads the byte and writes it back). */
static bool sub_byte_store(const walker *w, int i)
{
    const ax_tensor *t = &w->p->tensors[w->s->args[i].tensor];
    return i == 0 && axe_dtype_bit_width(t->dtype) * w->plan->vec < 8;
}

/* Counting: the bank model on operand "i"'s access (an affine operand:
 * a vector plan's) at the lanes, on the tile addresses of the lanes'
 * first elements under the tensor's swizzle, added to w->ways. */
static axe_status count_access(walker *w, int i, int64_t wp, const lane *lanes,
                               axe_diag *diag)
{
    const ax_ref *r = &w->s->args[i];
    const ax_tensor *t = &w->p->tensors[r->tensor];
    ax_tile_access ta;
    ax_ways ways;
    int64_t rmw;
    bool any = false;
    memset(&ta, 0, sizeof ta);
    ta.vec = w->plan->vec;
    for (int l = 0; l < AX_WARP; l++) {
        int64_t a;
        (void)set_thread(w, 32 * wp + l);
        if (!lanes[l].in || !inside_masks(w, r, &lanes[l]))
            continue;
        a = affine_addr(w, i, &lanes[l], 0);
        if (r->is_view)
            AXE_TRY(view_tile_addr(t, r, a, &a, diag));
        ta.active[l] = any = true;
        ta.elem[l] = a;
    }
    if (!any)
        return AXE_OK;
    AXE_TRY(axe__tile_ways(
        &ta, 1, axe_dtype_bit_width(t->dtype),
        t->layout.swizzle.present ? &t->layout.swizzle : NULL, &ways, diag));
    rmw = sub_byte_store(w, i) ? 2 : 1; /* the byte read, then written */
    w->ways.max = ways.max > w->ways.max ? ways.max : w->ways.max;
    w->ways.sum += rmw * ways.sum;
    w->ways.wavefronts += rmw * ways.wavefronts;
    return AXE_OK;
}

/* The run of "a"'s vector (compiler_smem.h). */
bool axe__smem_fit_run(ax_smem_access *a, const int64_t *x)
{
    int64_t block = 1;
    a->nlev = -1;
    while (block < a->vec) {
        int64_t step = x[block] - x[0], ext = 1;
        bool same = true;
        while (same && block * (ext + 1) <= a->vec) {
            for (int64_t j = 0; same && j < block; j++)
                same = x[block * ext + j] == x[j] + ext * step;
            ext += same;
        }
        /* a level's extent divides the vector: trim to the largest such */
        while (a->vec % (block * ext) != 0)
            ext--;
        if (ext < 2 || a->nlev == AX_RUN_LEVELS)
            return false;
        if (a->nlev < 0)
            a->vstride = step;
        else {
            a->lext[a->nlev] = ext;
            a->lstride[a->nlev] = step;
        }
        a->nlev++;
        block *= ext;
    }
    a->nlev = a->nlev < 0 ? 0 : a->nlev;
    return true;
}

/* Operand "i"'s access at instruction "j" of warp "wp" ("lanes"): each
 * lane's vector read element by element; its run fitted on the first
 * active lane and checked on every other (else one access per element,
 * each at its own address). */
static axe_status operand_access(walker *w, int i, int64_t wp,
                                 const lane *lanes, axe_diag *diag)
{
    ax_smem_access a;
    int64_t x[AX_WARP][32];
    bool any = false, fits = true;
    memset(&a, 0, sizeof a);
    a.op = w->op->index;
    a.arg = i;
    a.tensor = w->s->args[i].tensor;
    a.vec = w->plan->vec;
    a.vstride = 1;
    if (a.vec < 1 || a.vec > 32)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "a vector of %lld elements to count",
                         (long long)a.vec);
    for (int l = 0; l < AX_WARP; l++) {
        (void)set_thread(w, 32 * wp + l);
        x[l][0] = -1;
        for (int64_t e = 0;
             lanes[l].in && e < a.vec && (e == 0 || x[l][0] >= 0); e++)
            AXE_TRY(lane_element(w, i, &lanes[l], e, &x[l][e], diag));
        a.active[l] = x[l][0] >= 0;
        a.index[l] = x[l][0];
        if (a.active[l] && !any && a.vec > 1)
            fits = axe__smem_fit_run(&a, x[l]);
        for (int64_t e = 1; fits && a.active[l] && e < a.vec; e++)
            fits = x[l][e] == x[l][0] + axe__smem_offset(&a, e);
        any = any || a.active[l];
    }
    if (!any)
        return AXE_OK;
    if (sub_byte_store(w, i)) { /* the read of the byte, then its write */
        a.rmw = true;
        AXE_TRY(smem_add(w->p->arena, w->out, &a, diag));
        a.rmw = false;
    }
    if (fits)
        return smem_add(w->p->arena, w->out, &a, diag);
    for (int64_t e = 0; e < a.vec; e++) {
        ax_smem_access one = a;
        one.vec = one.vstride = 1;
        one.nlev = 0;
        for (int l = 0; l < AX_WARP; l++)
            one.index[l] = a.active[l] ? x[l][e] : -1;
        AXE_TRY(smem_add(w->p->arena, w->out, &one, diag));
    }
    return AXE_OK;
}

/* The destination's access of a whole-byte i4 store (plan->pair): each
 * lane's byte, the elements of "lo" and "hi" (the pair loop's digit and
 * the next: consecutive addresses), one write; where the two elements'
 * logical step differs between lanes, one access per element. */
static axe_status pair_access(walker *w, int64_t wp, const lane *lo,
                              const lane *hi, axe_diag *diag)
{
    ax_smem_access a, b;
    int64_t x[AX_WARP][2];
    bool any = false, fits = true;
    memset(&a, 0, sizeof a);
    a.op = w->op->index;
    a.tensor = w->s->args[0].tensor;
    a.vec = 2;
    for (int l = 0; l < AX_WARP; l++) {
        x[l][0] = x[l][1] = -1;
        (void)set_thread(w, 32 * wp + l);
        if (lo[l].in) {
            AXE_TRY(lane_element(w, 0, &lo[l], 0, &x[l][0], diag));
            AXE_TRY(lane_element(w, 0, &hi[l], 0, &x[l][1], diag));
        }
        a.active[l] = x[l][0] >= 0;
        a.index[l] = x[l][0];
        if (a.active[l] && !any)
            a.vstride = x[l][1] - x[l][0];
        fits = fits && (!a.active[l] || x[l][1] - x[l][0] == a.vstride);
        any = any || a.active[l];
    }
    if (!any || fits)
        return any ? smem_add(w->p->arena, w->out, &a, diag) : AXE_OK;
    for (int e = 0; e < 2; e++) {
        b = a;
        b.vec = b.vstride = 1;
        for (int l = 0; l < AX_WARP; l++)
            b.index[l] = a.active[l] ? x[l][e] : -1;
        AXE_TRY(smem_add(w->p->arena, w->out, &b, diag));
    }
    return AXE_OK;
}

/* Instruction "j" of warp "wp": one access per shared operand; with
 * whole-byte i4 stores (plan->pair), the byte of the pair loop's digit
 * and the next, and the other operands' accesses at both digits. */
static axe_status instruction(walker *w, int64_t wp, int64_t j, axe_diag *diag)
{
    lane lanes[AX_WARP], hi[AX_WARP];
    int k = w->plan->pair - 1;
    for (int l = 0; l < AX_WARP; l++) {
        lane_at(w, wp, l, j, &lanes[l]);
        hi[l] = lanes[l];
        if (k >= 0) {
            hi[l].digit[k]++;
            hi[l].c[w->plan->loops[k].dim] += w->plan->loops[k].weight;
        }
    }
    for (int i = 0; i < w->s->nargs; i++) {
        if (w->p->tensors[w->s->args[i].tensor].mem != AX_MEM_SHARED)
            continue;
        if (w->cand != NULL)
            AXE_TRY(count_access(w, i, wp, lanes, diag));
        else if (k >= 0 && i == 0)
            AXE_TRY(pair_access(w, wp, lanes, hi, diag));
        else
            AXE_TRY(operand_access(w, i, wp, lanes, diag));
        if (w->cand == NULL && k >= 0 && i > 0)
            AXE_TRY(operand_access(w, i, wp, hi, diag));
    }
    return AXE_OK;
}

/* Every instruction of every warp under statement "s"'s plan. */
static axe_status walk_plan(walker *w, const ax_stmt *s, axe_diag *diag)
{
    const ax_plan *plan = w->cand != NULL ? w->cand : s->plan;
    int64_t njobs, warps = (w->p->threads + 31) / 32;
    bool shared = false;
    for (int i = 0; i < s->nargs; i++)
        shared =
            shared || w->p->tensors[s->args[i].tensor].mem == AX_MEM_SHARED;
    if (plan == NULL || !shared)
        return AXE_OK;
    w->s = s;
    w->plan = plan;
    njobs = plan->total / (plan->pair > 0 ? 2 : 1);
    if (plan->kind == AX_PLAN_SPLIT)
        njobs = (njobs + plan->nthreads - 1) / plan->nthreads;
    for (int64_t wp = 0; wp < warps; wp++)
        for (int64_t j = 0; j < njobs; j++)
            AXE_TRY(instruction(w, wp, j, diag));
    return AXE_OK;
}

/* ---- gemm.mma_smem: A and B by fragments ------------------------------ */

/* One atom tile of A ("i" 1) or B (2) at tile (tr, tk): its fragment's
 * positions (fragment row, column) per lane and value. */
typedef struct frag_tile {
    const ax_frag *f;
    int i;
    int64_t r0, k0; /* the tile's first row (M or N) and column (K) */
    int64_t pos[AX_WARP][AX_FRAG_MAX / AX_WARP];
} frag_tile;

/* Element (row, col) of the tile: its logical index and tile address. */
static axe_status tile_elem(walker *w, const frag_tile *ft, int64_t row,
                            int64_t col, int64_t *x, int64_t *addr,
                            axe_diag *diag)
{
    int64_t c[AX_MAX_DIMS] = {0};
    c[ft->i == 1 ? 0 : 1] = ft->r0 + row;
    c[2] = ft->k0 + col;
    return locate(w, &w->op->args[ft->i], c, x, addr, diag);
}

/* Whether the "n" elements from (row, col) along K ("along_k") or along
 * the rows are consecutive tile addresses. */
static axe_status run_of(walker *w, const frag_tile *ft, int64_t row,
                         int64_t col, int64_t n, bool along_k, bool *ok,
                         axe_diag *diag)
{
    int64_t x, a0, a;
    AXE_TRY(tile_elem(w, ft, row, col, &x, &a0, diag));
    *ok = x >= 0;
    for (int64_t e = 1; *ok && e < n; e++) {
        AXE_TRY(tile_elem(w, ft, row + (along_k ? 0 : e),
                          col + (along_k ? e : 0), &x, &a, diag));
        *ok = x >= 0 && a == a0 + e;
    }
    return AXE_OK;
}

/* The first element of the 16-byte row that lane "l" gives ldmatrix:
 * row l % 8 of matrix l / 8, the matrix being register l / 8 of the quad
 * form (its value u * j on lane 4i lies on the matrix's row i, first
 * column); with "trans" the stored rows run along the tile's rows: row q
 * is the matrix's column q. */
static void row_start(const frag_tile *ft, int64_t u, int64_t l, bool trans,
                      int64_t *row, int64_t *col)
{
    int64_t x0 = ft->pos[trans ? 0 : 4 * (l % 8)][u * (l / 8)];
    *row = x0 / ft->f->shape[1];
    *col = x0 % ft->f->shape[1] + (trans ? l % 8 : 0);
}

/* Whether every row ldmatrix would read is one run of consecutive tile
 * addresses (along K, or along the rows with "trans"). */
static axe_status rows_contiguous(walker *w, const frag_tile *ft, int64_t u,
                                  int64_t nregs, int64_t run, bool trans,
                                  bool *ok, axe_diag *diag)
{
    *ok = true;
    for (int64_t l = 0; *ok && l < 8 * nregs; l++) {
        int64_t row, col;
        row_start(ft, u, l, trans, &row, &col);
        AXE_TRY(run_of(w, ft, row, col, run, !trans, ok, diag));
    }
    return AXE_OK;
}

/* The logical index step along an ldmatrix row: along K, or along the
 * tile's rows with "trans". */
static axe_status run_stride(walker *w, const frag_tile *ft, bool trans,
                             int64_t *vstride, axe_diag *diag)
{
    int64_t x0, x1, a;
    AXE_TRY(tile_elem(w, ft, 0, 0, &x0, &a, diag));
    AXE_TRY(tile_elem(w, ft, trans ? 1 : 0, trans ? 0 : 1, &x1, &a, diag));
    *vstride = x1 - x0;
    return AXE_OK;
}

/* ldmatrix (.x1, .x2 or .x4; .trans for b16 rows along M or N) when each
 * row is one run; "*done" false otherwise. */
static axe_status ldmatrix(walker *w, const frag_tile *ft, int64_t eb,
                           bool *done, axe_diag *diag)
{
    int64_t u = 4 / eb, nregs = ft->f->nvals / (4 / eb), run = 16 / eb;
    ax_smem_access a;
    bool trans = false;
    *done = false;
    if ((eb != 1 && eb != 2) || (nregs != 1 && nregs != 2 && nregs != 4))
        return AXE_OK;
    AXE_TRY(rows_contiguous(w, ft, u, nregs, run, false, done, diag));
    if (!*done && eb == 2) {
        trans = true;
        AXE_TRY(rows_contiguous(w, ft, u, nregs, run, true, done, diag));
    }
    if (!*done)
        return AXE_OK;
    memset(&a, 0, sizeof a);
    a.op = w->op->index;
    a.arg = ft->i;
    a.tensor = w->op->args[ft->i].tensor;
    a.vec = run;
    AXE_TRY(run_stride(w, ft, trans, &a.vstride, diag));
    for (int64_t l = 0; l < 8 * nregs; l++) {
        int64_t row, col, addr;
        row_start(ft, u, l, trans, &row, &col);
        AXE_TRY(tile_elem(w, ft, row, col, &a.index[l], &addr, diag));
        a.active[l] = a.index[l] >= 0;
    }
    return smem_add(w->p->arena, w->out, &a, diag);
}

/* Per-thread loads: one access per fragment value, every lane its own. */
static axe_status value_loads(walker *w, const frag_tile *ft, axe_diag *diag)
{
    for (int64_t v = 0; v < ft->f->nvals; v++) {
        ax_smem_access a;
        memset(&a, 0, sizeof a);
        a.op = w->op->index;
        a.arg = ft->i;
        a.tensor = w->op->args[ft->i].tensor;
        a.vec = 1;
        a.vstride = 1;
        for (int l = 0; l < AX_WARP; l++) {
            int64_t x = ft->pos[l][v], addr;
            AXE_TRY(tile_elem(w, ft, x / ft->f->shape[1], x % ft->f->shape[1],
                              &a.index[l], &addr, diag));
            a.active[l] = a.index[l] >= 0;
        }
        AXE_TRY(smem_add(w->p->arena, w->out, &a, diag));
    }
    return AXE_OK;
}

/* The fragment loads of operand "i"'s atom tile (tr, tk). */
static axe_status frag_loads(walker *w, int i, int64_t tr, int64_t tk,
                             axe_diag *diag)
{
    const ax_mma *m = w->op->mma;
    frag_tile ft;
    int64_t eb = axe_dtype_size(w->p->tensors[w->op->args[i].tensor].dtype);
    bool done = false;
    if (w->p->tensors[w->op->args[i].tensor].mem != AX_MEM_SHARED)
        return AXE_OK;
    ft.f = &m->frag[i - 1];
    ft.i = i;
    ft.r0 = tr * m->mnk[i - 1];
    ft.k0 = tk * m->mnk[2];
    for (int64_t x = 0; x < ft.f->shape[0] * ft.f->shape[1]; x++)
        ft.pos[ft.f->lane[x]][ft.f->val[x]] = x;
    AXE_TRY(ldmatrix(w, &ft, eb, &done, diag));
    return done ? AXE_OK : value_loads(w, &ft, diag);
}

/* Whether warp "wp" holds a C atom tile in row "mi" (A) or column "ni"
 * (B) of the tiles. */
static bool warp_uses(const ax_mma *m, int64_t wp, int i, int64_t t)
{
    for (int64_t o = 0; o < m->tiles[2 - i]; o++) {
        int64_t x = i == 1 ? t * m->tiles[1] + o : o * m->tiles[1] + t;
        if (m->warp == NULL || m->owner == NULL || m->owner[x] == wp)
            return true;
    }
    return false;
}

/* Every warp's fragment loads of A and B. */
static axe_status mma_accesses(walker *w, axe_diag *diag)
{
    const ax_mma *m = w->op->mma;
    int64_t warps = (w->p->threads + 31) / 32;
    for (int64_t wp = 0; wp < warps; wp++) {
        (void)set_thread(w, 32 * wp);
        if (!axe__guard_holds(w->op->guard, w->env))
            continue;
        for (int i = 1; i <= 2; i++)
            for (int64_t t = 0; t < m->tiles[i - 1]; t++)
                for (int64_t k = 0; warp_uses(m, wp, i, t) && k < m->tiles[2];
                     k++)
                    AXE_TRY(frag_loads(w, i, t, k, diag));
    }
    return AXE_OK;
}

/* ---- reduce.tree: the steps between its stages ------------------------ */

/* Lane "l" of warp "wp" at iteration "j" of the step at length "m" (h =
 * m - m / 2, cnt = m / 2; compiler_emit_tree.c): its rank u in the scope
 * instance takes the pair (row u / cnt, element u % cnt) when u < rows *
 * cnt; the scratch element of side "k" (0: the element combined into, 1:
 * the one h further along the row), or -1 when the lane takes no pair. */
static int64_t tree_elem(walker *w, const ax_tree *tr, int64_t m, int64_t wp,
                         int l, int64_t j, int k)
{
    int64_t nthr = axe__scope_threads(w->p, w->op->scope), tid = 32 * wp + l;
    int64_t cnt = m / 2, rows = tr->size / tr->n, u, r;
    u = set_thread(w, tid) + j * nthr;
    if (tid >= w->p->threads || !axe__guard_holds(w->op->guard, w->env) ||
        u >= rows * cnt)
        return -1;
    r = u / cnt;
    return tid / nthr * tr->size + r / tr->inner * tr->n * tr->inner +
           r % tr->inner + (u % cnt + k * (m - m / 2)) * tr->inner;
}

/* Every warp's accesses at every step: per iteration, the element
 * combined into (operand number nargs: read and written) and the one
 * combined with it (nargs + 1), single elements. */
static axe_status tree_steps(walker *w, const ax_tree *tr, axe_diag *diag)
{
    int64_t nthr = axe__scope_threads(w->p, w->op->scope);
    int64_t warps = (w->p->threads + 31) / 32;
    AXE_TRY(inverse_table(w, tr->scratch, diag));
    for (int64_t m = tr->n; m > 1; m -= m / 2) {
        int64_t iters = (tr->size / tr->n * (m / 2) + nthr - 1) / nthr;
        for (int64_t wp = 0; wp < warps; wp++)
            for (int64_t j = 0; j < iters; j++)
                for (int k = 0; k < 2; k++) {
                    ax_smem_access a;
                    bool any = false;
                    memset(&a, 0, sizeof a);
                    a.op = w->op->index;
                    a.arg = w->op->nargs + k;
                    a.tensor = tr->scratch;
                    a.vec = a.vstride = 1;
                    for (int l = 0; l < AX_WARP; l++) {
                        int64_t e = tree_elem(w, tr, m, wp, l, j, k);
                        a.index[l] = e >= 0 && e < w->ninv[tr->scratch]
                                         ? w->inv[tr->scratch][e]
                                         : -1;
                        a.active[l] = a.index[l] >= 0;
                        any = any || a.active[l];
                    }
                    if (any)
                        AXE_TRY(smem_add(w->p->arena, w->out, &a, diag));
                }
    }
    return AXE_OK;
}

/* Operator "s" at the current values of the loop variables and block
 * ids in w->env. */
static axe_status walk_once(walker *w, const ax_stmt *s, axe_diag *diag)
{
    if (w->cand != NULL) /* counting a candidate plan of "s" itself */
        return walk_plan(w, s, diag);
    if (s->mma != NULL && s->mma->from_memory)
        return mma_accesses(w, diag);
    if (s->stage[0] != NULL) {
        AXE_TRY(walk_plan(w, s->stage[0], diag));
        if (s->tree != NULL)
            AXE_TRY(tree_steps(w, s->tree, diag));
        return walk_plan(w, s->stage[1], diag);
    }
    return walk_plan(w, s, diag);
}

/* Whether statement "s" (its shared operands' starts and view offsets:
 * the walk reads no other operand's) or the guards "g" read variable
 * "v". A global operand's start (A[by * 128:+128, k * 32:+32]) moves no
 * shared address, so its block ids and loops are not walked. */
static bool stmt_reads(const axe_program *p, const ax_stmt *s,
                       const ax_guard *g, int v)
{
    for (int i = 0; s != NULL && i < s->nargs; i++) {
        const ax_ref *r = &s->args[i];
        if (p->tensors[r->tensor].mem != AX_MEM_SHARED)
            continue;
        if (axe__expr_uses(r->view_dyn, v))
            return true;
        for (int d = 0; d < AX_MAX_DIMS; d++)
            if (axe__expr_uses(r->start[d], v))
                return true;
    }
    for (; g != NULL; g = g->up)
        if (axe__expr_uses(g->lhs, v) || axe__expr_uses(g->rhs, v))
            return true;
    return false;
}

/* The block ids and loop variables that operator "s" reads (its own
 * operands, its stages' and its guards'): "vars", "n" of them, and the
 * number of their joint values. */
static int64_t read_vars(const axe_program *p, const ax_stmt *s, int *vars,
                         int *n)
{
    int64_t values = 1;
    *n = 0;
    for (int v = AX_VAR_BX; v < p->nvars; v++) {
        if ((v > AX_VAR_BZ && v < AX_VAR_NBUILTIN) || p->var_scalar[v] != 0)
            continue;
        if (!stmt_reads(p, s, s->guard, v) &&
            !stmt_reads(p, s->stage[0], NULL, v) &&
            !stmt_reads(p, s->stage[1], NULL, v))
            continue;
        vars[(*n)++] = v;
        values *= axe__var_extent(p, v) > 0 ? axe__var_extent(p, v) : 1;
        if (values > AX_SMEM_MAX_VALUES)
            return values;
    }
    return values;
}

/* Every value of the block ids and loop variables that operator "s"
 * reads (each CTA and each iteration of its loops may reach other
 * addresses), the others at 0. */
static axe_status walk_op(walker *w, const ax_stmt *s, axe_diag *diag)
{
    int vars[AX_MAX_VARS], n;
    int64_t values;
    w->op = s;
    /* grid work (reduce.grid, gemm.split_k) is kernel scope, whose
     * operands sema keeps in global memory */
    if (s->dead || s->grid != NULL)
        return AXE_OK;
    values = read_vars(w->p, s, vars, &n);
    if (values > AX_SMEM_MAX_VALUES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "%s#%d: its shared-memory accesses move with more "
                         "than %d values of its block ids and loop "
                         "variables (each is walked)",
                         axe__op_name(s->op), s->index, AX_SMEM_MAX_VALUES);
    for (int64_t u = 0; u < values; u++) {
        int64_t rest = u;
        for (int k = n - 1; k >= 0; k--) {
            int64_t e = axe__var_extent(w->p, vars[k]);
            w->env[vars[k]] = e > 0 ? rest % e : 0;
            rest /= e > 0 ? e : 1;
        }
        AXE_TRY(walk_once(w, s, diag));
    }
    for (int k = 0; k < n; k++)
        w->env[vars[k]] = 0;
    return AXE_OK;
}

/* The ways of a candidate plan (compiler_smem.h). */
axe_status axe__plan_ways(const axe_program *p, const ax_stmt *s,
                          const ax_plan *plan, ax_ways *ways, axe_diag *diag)
{
    walker w;
    bool shared = false;
    memset(ways, 0, sizeof *ways);
    for (int i = 0; i < s->nargs; i++)
        shared = shared || p->tensors[s->args[i].tensor].mem == AX_MEM_SHARED;
    if (!shared)
        return AXE_OK;
    /* count_access walks only the low element of each pair; candidates
     * are vector plans (compiler_plan_vec.c), which never pair
     * (axe__i4_plan_pair takes vec 1 of a per-thread loop), so this
     * guard is not reached today. */
    if (plan->pair != 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "the bank model does not count a candidate plan "
                         "of whole-byte i4 stores");
    memset(&w, 0, sizeof w);
    w.p = p;
    w.cand = plan;
    for (int i = 0; i < p->nscalars; i++)
        w.env[p->scalar_var[i]] = p->scalar_value[i];
    AXE_TRY(walk_op(&w, s, diag));
    *ways = w.ways;
    return AXE_OK;
}

/* Every shared access of "p" (compiler_smem.h). */
axe_status axe__smem_accesses(axe_program *p, ax_smem_list *out, axe_diag *diag)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.out = out;
    for (int i = 0; i < p->nscalars; i++)
        w.env[p->scalar_var[i]] = p->scalar_value[i];
    AXE_TRY(list_init(p->arena, out, diag));
    for (int k = 0; k < p->nops; k++)
        AXE_TRY(walk_op(&w, p->ops[k], diag));
    return AXE_OK;
}
