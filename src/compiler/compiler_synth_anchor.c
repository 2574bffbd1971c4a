/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Anchors of layout synthesis (issue 15 §2) and the projection constraint.
 * An anchor's layout is the leaf of a small search with the lowest cost of
 * an analytical model (instructions, not time); the runner-up is kept for
 * --explain. Candidates that the tensor's shape cannot hold (a digit of
 * the thread-value map that straddles a dimension without dividing it)
 * are backtracked over.
 *
 *   copy:  the register is laid out for coalescing against its memory
 *          operand: dims sorted by memory stride, w-element vectors
 *          (w * size in {16, 8, 4, 2, 1} bytes, aligned by every stride and
 *          the start), consecutive threads on consecutive runs of L
 *          elements (w divides L; L = w when the shape allows):
 *          flat = (o * T' + t) * L + v over the dims from the fastest, T'
 *          threads of the scope's T (the others replicas), at most a
 *          thread's registers each. Cost: accesses issued by the scope
 *          instance, (size / (w T')) * T; ties go to the fewer accesses of the
 *          other copies of the tied class, then more threads, then
 *          shorter runs. A dimension of several memory iters (named
 *          whole) is ordered by its innermost iter, whose extent bounds
 *          the vectors. With the ldmatrix leaves of a copy from shared
 *          memory (compiler_synth_ldsm.c, same cost and tie rule), the
 *          cheapest AX_SYNTH_COPY_LEAVES layouts are the anchor's leaves,
 *          and every ldmatrix leaf of a tied copy from shared memory
 *          (compiler_synth_tied.c) takes a slot among them; they are
 *          searched with the program's other anchors (compiler_synth.c,
 *          step 4).
 * The gemm anchor is in compiler_synth_gemm.c.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_synth.h"

typedef struct sy_digit {
    int64_t extent, stride;
    const char *axis;
} sy_digit;

static const char *thread_axis(ax_scope sc)
{
    return sc == AX_SCOPE_WARP        ? "laneid"
           : sc == AX_SCOPE_WARPGROUP ? "tid_in_wg"
                                      : "tx";
}

/* Per dim of "r", its memory stride; false when a dim is not one memory
 * iter (then the row-major order is used, without vectors). */
static bool mem_strides(const axe_program *p, const ax_ref *r, int n,
                        int64_t *stride)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, i;
    if (r->is_view) {
        for (d = 0; d < n; d++) {
            if (strcmp(r->view.shard[d].axis, "m") != 0)
                return false;
            stride[d] = r->view.shard[d].stride;
        }
        return true;
    }
    if (axe_layout_group(&t->layout, t->shape, t->ndim, &g, seps, NULL) !=
        AXE_OK)
        return false;
    for (d = 0; d < n; d++) {
        int k = 0;
        stride[d] = 0;
        for (i = seps[d]; i < seps[d + 1]; i++)
            if (g.shard[i].extent > 1) {
                if (k++ > 0 || strcmp(g.shard[i].axis, "m") != 0)
                    return false;
                stride[d] = g.shard[i].stride;
            }
    }
    return true;
}

/* Per dim of "r" (a tensor named whole along every dim of several memory
 * iters), the stride of its innermost memory iter, that iter's extent
 * and the gcd of its other iters' strides (0: none); false when a dim has
 * an iter on another axis. The vectors along a dim of several iters stay
 * inside its innermost iter (the plans' runs). */
static bool multi_strides(const axe_program *p, const ax_ref *r, int n,
                          int64_t *stride, int64_t *inner, int64_t *outer)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, i;
    if (r->is_view || axe_layout_group(&t->layout, t->shape, t->ndim, &g, seps,
                                       NULL) != AXE_OK)
        return false;
    for (d = 0; d < n; d++) {
        int k = 0;
        stride[d] = 0;
        inner[d] = 1;
        outer[d] = 0;
        for (i = seps[d + 1] - 1; i >= seps[d]; i--)
            if (g.shard[i].extent > 1) {
                if (strcmp(g.shard[i].axis, "m") != 0)
                    return false;
                if (k++ == 0)
                    stride[d] = g.shard[i].stride, inner[d] = g.shard[i].extent;
                else
                    outer[d] = axe__gcd(outer[d], g.shard[i].stride);
            }
        if (k > 1 && r->ndim > 0 && r->start[d] != NULL &&
            (r->start[d]->kind != AX_EX_INT || r->start[d]->value != 0))
            return false;
    }
    return true;
}

/* A divisor of the memory address of element 0 of "r" for every value of
 * its starts (0: any). */
static int64_t base_align(const axe_program *p, const ax_ref *r, int n,
                          const int64_t *stride)
{
    const axe_layout *l = r->is_view ? &r->view : &p->tensors[r->tensor].layout;
    int64_t g = 0;
    int d, i;
    for (i = 0; i < l->noffset; i++)
        g = axe__gcd(g, l->offset[i].value);
    if (r->is_view && r->view_dyn != NULL)
        g = axe__gcd(g, axe__expr_gcd(r->view_dyn));
    for (d = 0; d < n && !r->is_view && r->ndim > 0; d++)
        if (r->start[d] != NULL)
            g = axe__gcd(g, axe__expr_gcd(r->start[d]) * stride[d]);
    return g;
}

/* Deal the digits (inner to outer) over the dims taken in "order" (the
 * fastest first) into "out": a digit goes whole into a dim that it
 * divides, or is split when the dim's extent divides it; false when the
 * shape cannot hold the map. */
static bool deal(sy_digit *dg, int nd, const int64_t *shape, int n,
                 const int *order, axe_layout *out)
{
    axe_iter per[AXE_LAYOUT_MAX_DIMS][8];
    int cnt[AXE_LAYOUT_MAX_DIMS] = {0}, j, k = 0, d, i;
    for (j = 0; j < n; j++) {
        int64_t e = shape[order[j]];
        d = order[j];
        while (e > 1) {
            axe_iter *it;
            while (k < nd && dg[k].extent == 1)
                k++;
            if (k == nd || cnt[d] == 8)
                return false;
            it = &per[d][cnt[d]++];
            memset(it, 0, sizeof *it);
            strcpy(it->axis, dg[k].axis);
            it->stride = dg[k].stride;
            if (e % dg[k].extent == 0) {
                it->extent = dg[k].extent;
                e /= dg[k].extent;
                dg[k].extent = 1;
            } else if (dg[k].extent % e == 0) {
                it->extent = e;
                dg[k].extent /= e;
                dg[k].stride *= e;
                e = 1;
            } else
                return false;
        }
    }
    for (; k < nd; k++)
        if (dg[k].extent != 1)
            return false;
    axe_layout_init(out);
    for (d = 0; d < n; d++) {
        if (cnt[d] == 0 && axe_layout_push_shard(out, 1, 0, "m") != AXE_OK)
            return false;
        for (i = cnt[d] - 1; i >= 0; i--)
            if (axe_layout_push_shard(out, per[d][i].extent, per[d][i].stride,
                                      per[d][i].axis) != AXE_OK)
                return false;
    }
    return true;
}

/* Dims from the fastest (smallest stride; on ties the later dim), the
 * dims of extent 1 last (whatever their stride: they hold no run). */
static void fastest_first(const int64_t *stride, const int64_t *shape, int n,
                          int *order)
{
    int i, j;
    for (i = 0; i < n; i++)
        order[i] = n - 1 - i;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if ((shape[order[i]] == 1 && shape[order[j]] > 1) ||
                ((shape[order[i]] > 1) == (shape[order[j]] > 1) &&
                 stride[order[j]] < stride[order[i]])) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
}

/* The store-byte rule's pairs (compiler_synth_i4.c) and its answer at the
 * last coalesced (run, tp), of which a coalesced layout is a function. */
typedef struct sy_i4 {
    ax_synth_i4 q;
    int64_t run, tp;
    bool merged, ok;
} sy_i4;

typedef struct sy_copy {
    int64_t size, threads, bits, align; /* bits: element width */
    int64_t vrun; /* the vectors' largest run (its innermost iter), 0: any */
    int64_t frun; /* the fastest dim's length: a plain vector stays inside */
    int n;
    int64_t shape[AX_MAX_DIMS];
    int order[AX_MAX_DIMS];
    bool vec;
    bool pairs; /* packed i4 stored into memory: a byte per element pair */
    bool merge; /* m's chain runs through 2 pieces or more */
    ax_synth_merge m;
    int64_t malign; /* m's vectors' alignment (0: any) */
    sy_i4 *i4;      /* the stores of this layout into packed i4, or NULL */
    const char *axis;
} sy_copy;

/* A leaf of the copy search: w-element accesses, runs of L elements per
 * thread (w divides L), on tp consecutive threads; or (ldsm > 0) the
 * ldmatrix leaf ldsm - 1 of compiler_synth_ldsm.c, "run" its register
 * elements contiguous along the fastest memory dim. */
typedef struct sy_leaf {
    int64_t w, run, tp;
    int ldsm;
    bool merged; /* dealt over the pieces (compiler_synth_merge.c) */
} sy_leaf;

/* Whether w-element vectors are aligned by "c" and inside its run, in
 * its fastest dim (one across dims is a merged leaf's). */
static bool fits(const sy_copy *c, int64_t w)
{
    return (c->align == 0 || c->align % w == 0) &&
           (c->vrun == 0 || c->vrun % w == 0) && c->frun % w == 0;
}

/* Whether w-element vectors along the chain of pieces are aligned and
 * inside it, and widen the plain leaves' vectors (merged leaves). */
static bool fits_merged(const sy_copy *c, int64_t w)
{
    return c->merge && c->m.run % w == 0 && w <= c->m.swz &&
           (c->malign == 0 || c->malign % w == 0) && !(c->vec && fits(c, w));
}

/* Whether copy "c", a store of packed i4 into memory, stores register
 * layout "l" a whole byte per element pair (axe__i4_plan_pair): the
 * innermost iter of "l" along the memory's stride-1 dim (of extent above
 * 1) is a register iter of even extent, so each thread's loop over it
 * runs at memory stride 1 over pairs from an even address, and every
 * other address term is even (the base, the other strides). */
static bool stores_pairs(const sy_copy *c, const axe_layout *l)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d;
    if (!c->pairs || !c->vec || !fits(c, 2) ||
        axe_layout_group(l, c->shape, c->n, &g, seps, NULL) != AXE_OK)
        return false;
    d = c->order[0];
    for (int i = seps[d + 1] - 1; i >= seps[d]; i--) {
        const axe_iter *it = &g.shard[i];
        if (it->extent > 1)
            return strcmp(it->axis, "m") == 0 && it->extent % 2 == 0;
    }
    return false;
}

/* The store-byte rule for leaf "f" of layout "l": every byte of a packed
 * i4 tensor that a store of the class writes gets both nibbles from one
 * thread (evaluated on the destination's layout, compiler_synth_i4.c);
 * where the bytes cannot be evaluated, even runs on all threads. */
static bool whole_bytes(const sy_copy *c, const sy_leaf *f, const axe_layout *l)
{
    sy_i4 *b = c->i4;
    if (b == NULL || b->q.tensor < 0)
        return true;
    if (!b->q.exact)
        return f->run % 2 == 0 && f->tp == c->threads;
    if (f->ldsm > 0)
        return axe__synth_i4_whole(&b->q, l);
    if (b->run != f->run || b->tp != f->tp || b->merged != f->merged) {
        b->run = f->run;
        b->tp = f->tp;
        b->merged = f->merged;
        b->ok = axe__synth_i4_whole(&b->q, l);
    }
    return b->ok;
}

/* The leaf's layout; false when the shape cannot hold it, w is not
 * aligned, a thread's registers would not hold its elements or it breaks
 * the store-byte rule. */
static bool copy_candidate(const sy_copy *c, const sy_leaf *f, axe_layout *out)
{
    sy_digit dg[4];
    axe_layout pl;
    if (f->merged ? !fits_merged(c, f->w)
                  : (f->w > 1 && !c->vec) || !fits(c, f->w))
        return false;
    if (f->run % f->w != 0 || c->size % (f->run * f->tp) != 0 ||
        (c->size / f->tp) * c->bits > 8 * AX_MAX_REGISTER_BYTES)
        return false;
    dg[0] = (sy_digit){f->w, 1, "m"};
    dg[1] = (sy_digit){f->run / f->w, f->w, "m"};
    dg[2] = (sy_digit){f->tp, 1, c->axis};
    dg[3] = (sy_digit){c->size / (f->run * f->tp), f->run, "m"};
    if (f->merged) /* the run whole: w need not split the pieces */
        dg[1] = (sy_digit){f->run, 1, "m"}, dg[0].extent = 1;
    if (f->merged &&
        (!deal(dg, 4, c->m.ext, c->m.np, c->m.order, &pl) ||
         axe__synth_merge_unsplit(&c->m, &pl, c->n, out) != AXE_OK))
        return false;
    if ((!f->merged && !deal(dg, 4, c->shape, c->n, c->order, out)) ||
        (f->tp != c->threads &&
         axe_layout_push_replica(out, c->threads / f->tp, f->tp, c->axis) !=
             AXE_OK))
        return false;
    return whole_bytes(c, f, out);
}

static void copy_text(const sy_copy *c, const sy_leaf *f, char *buf, size_t cap)
{
    int64_t bits = f->w * c->bits;
    (void)snprintf(buf, cap,
                   "coalesced, %lld-%s accesses (%lld element%s)%s in runs "
                   "of %lld on %lld consecutive %s, %lld per thread%s",
                   (long long)(bits % 8 == 0 ? bits / 8 : bits),
                   bits % 8 == 0 ? "byte" : "bit", (long long)f->w,
                   f->w > 1 ? "s" : "", f->merged ? " across dimensions" : "",
                   (long long)f->run, (long long)f->tp, c->axis,
                   (long long)(c->size / (f->w * f->tp)),
                   f->tp < c->threads ? ", the other threads replicas" : "");
}

static axe_status copy_setup(const axe_program *p, const ax_stmt *s, int reg,
                             int mem, sy_copy *c, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[reg].tensor];
    int64_t stride[AX_MAX_DIMS], shape[AX_MAX_DIMS], i;
    int64_t inner[AX_MAX_DIMS], outer[AX_MAX_DIMS] = {0};
    int64_t mstride[AXE_LAYOUT_MAX_DIMS], swz;
    bool multi = false;
    int d;
    memset(c, 0, sizeof *c);
    c->n = t->ndim;
    c->size = 1;
    for (d = 0; d < t->ndim; d++)
        c->shape[d] = t->shape[d], c->size *= t->shape[d];
    if (axe__synth_ref_shape(p, &s->args[mem], shape) != c->n)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "its operands differ in rank");
    c->vec = mem_strides(p, &s->args[mem], c->n, stride);
    if (!c->vec)
        c->vec = multi =
            multi_strides(p, &s->args[mem], c->n, stride, inner, outer);
    if (!c->vec)
        for (d = c->n - 1, i = 1; d >= 0; d--)
            stride[d] = i, i *= c->shape[d];
    fastest_first(stride, c->shape, c->n, c->order);
    c->vec = c->vec && stride[c->order[0]] == 1;
    c->frun = c->shape[c->order[0]];
    c->align = base_align(p, &s->args[mem], c->n, stride);
    for (d = 0; d < c->n; d++) {
        if (d != c->order[0] && c->shape[d] > 1)
            c->align = axe__gcd(c->align, stride[d]);
        c->align = axe__gcd(c->align, outer[d]);
    }
    if (multi)
        c->vrun = inner[c->order[0]];
    swz = axe__swizzle_run(p, &s->args[mem]);
    if (swz != INT64_MAX) /* a vector stays in a run the swizzle keeps */
        c->vrun = c->vrun == 0 ? swz : axe__gcd(c->vrun, swz);
    c->merge =
        axe__synth_merge_of(p, &s->args[mem], shape, c->n, mstride, &c->m);
    if (c->merge)
        c->malign =
            axe__gcd(base_align(p, &s->args[mem], c->n, mstride), c->m.align);
    c->threads = axe__scope_threads(p, s->scope);
    c->bits = axe_dtype_bit_width(t->dtype);
    c->axis = thread_axis(s->scope);
    c->pairs = c->bits == 4 && mem == 0 && !s->args[0].any_masked &&
               !s->args[1].any_masked && axe__swizzle_run(p, &s->args[0]) >= 2;
    return AXE_OK;
}

/* The element widths of the leaves, widest first: w * bits in 16, 8, 4,
 * 2, 1 bytes; for packed i4 the whole-byte vectors that copy.vector
 * makes (32, 16, 8 elements), then, stored into memory, the pair of a
 * byte (2 elements: the plan stores a thread's even run along stride 1
 * one whole byte at a time, axe__i4_plan_pair), and single elements. 0
 * ends the list. */
static int64_t width_at(const sy_copy *c, int b)
{
    static const int64_t bytes[] = {16, 8, 4, 2, 1};
    static const int64_t pairs[] = {32, 16, 8, 2, 1, 0};
    static const int64_t ones[] = {32, 16, 8, 1, 0};
    if (c->bits < 8)
        return b > 4 ? 0 : c->pairs ? pairs[b] : ones[b];
    for (; b < 5; b++)
        if (8 * bytes[b] % c->bits == 0)
            return 8 * bytes[b] / c->bits;
    return 0;
}

/* The other copies between memory and a register of the anchor's tied
 * class, at the anchor's scope (their accesses break ties): all of them,
 * in the program's arena (at most one per operator). */
typedef struct sy_others {
    int n;
    sy_copy *c;
} sy_others;

static axe_status collect_others(const axe_program *p, const ax_stmt *anchor,
                                 const bool *in, sy_others *o)
{
    o->n = 0;
    o->c = axe__arena_alloc(p->arena,
                            (size_t)(p->nops > 0 ? p->nops : 1) * sizeof *o->c);
    if (o->c == NULL)
        return AXE_ERR_NO_MEMORY;
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *s = p->ops[k];
        if (s == anchor || s->op != AX_OP_COPY || s->rearrange ||
            s->scope != anchor->scope || s->nargs != 2)
            continue;
        for (int a = 0; a < 2; a++) {
            const ax_ref *r = &s->args[a];
            axe_diag why;
            if (!in[r->tensor] || r->is_view || r->bdim >= 0 ||
                p->tensors[s->args[1 - a].tensor].mem == AX_MEM_REGISTER ||
                copy_setup(p, s, a, 1 - a, &o->c[o->n], &why) != AXE_OK)
                continue;
            o->n++;
            break;
        }
    }
    return AXE_OK;
}

/* Leaf "f" (layout "l", cost "cost", tie "t", text "text" or NULL: the
 * coalesced leaf's) into the list "lv" kept in the search's order (cost,
 * then tie, then enumeration order: a leaf goes after the ones it ties
 * with), at most AX_SYNTH_COPY_LEAVES. A coalesced layout is a function
 * of the run and the thread count (w only splits the run): a coalesced
 * leaf whose (run, tp) a kept one has is the same layout with narrower
 * accesses (w from the widest down), not kept. */
static void keep_leaf(const sy_copy *c, const sy_leaf *f, const axe_layout *l,
                      double cost, int64_t t, const char *text,
                      ax_synth_leaves *lv, int64_t *ties, sy_leaf *kept)
{
    int at = lv->n;
    for (int j = 0; j < lv->n; j++)
        if (f->ldsm == 0 && kept[j].ldsm == 0 && kept[j].run == f->run &&
            kept[j].tp == f->tp && kept[j].merged == f->merged)
            return;
    while (at > 0 && (cost < lv->leaf[at - 1].cost ||
                      (cost == lv->leaf[at - 1].cost && t < ties[at - 1])))
        at--;
    if (at == AX_SYNTH_COPY_LEAVES)
        return;
    if (lv->n < AX_SYNTH_COPY_LEAVES)
        lv->n++;
    for (int j = lv->n - 1; j > at; j--) {
        lv->leaf[j] = lv->leaf[j - 1];
        ties[j] = ties[j - 1];
        kept[j] = kept[j - 1];
    }
    kept[at] = *f;
    lv->leaf[at].layout = *l;
    lv->leaf[at].cost = cost;
    ties[at] = t;
    if (text != NULL)
        (void)snprintf(lv->leaf[at].text, sizeof lv->leaf[at].text, "%s", text);
    else
        copy_text(c, f, lv->leaf[at].text, sizeof lv->leaf[at].text);
}

/* Makes room for a tied copy's ldmatrix leaf in a full list: the costliest
 * coalesced leaf (the last with ldsm 0, the list sorted by cost) gives way,
 * the leaves after it moving down one slot. A list of ldmatrix leaves only
 * loses none (keep_leaf then keeps the cheaper ones). */
static void drop_costliest_coalesced(ax_synth_leaves *lv, int64_t *ties,
                                     sy_leaf *kept)
{
    int j = lv->n - 1;
    while (j >= 0 && kept[j].ldsm != 0)
        j--;
    if (j < 0)
        return;
    for (; j < lv->n - 1; j++) {
        lv->leaf[j] = lv->leaf[j + 1];
        ties[j] = ties[j + 1];
        kept[j] = kept[j + 1];
    }
    lv->n--;
}

/* The register elements a thread holds contiguously along the memory's
 * fastest dim in register layout "l" of the copy's shape: the product of
 * that dim's innermost m iters while each one's stride is the product of
 * the extents inside it (1 when "l" does not group over the shape). The
 * dim is the first of c->order of extent above 1, where deal() puts a
 * coalesced leaf's run: c->order[0], since fastest_first puts the dims
 * of extent 1 last; an extent-1 dim comes first only when every dim has
 * extent 1 (the skip then stops at the last). The run of every leaf, and
 * of a solved register layout. */
static int64_t reg_run(const axe_layout *l, const sy_copy *c)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], j = 0, d;
    int64_t run = 1;
    while (j < c->n - 1 && c->shape[c->order[j]] == 1)
        j++;
    d = c->order[j];
    if (axe_layout_group(l, c->shape, c->n, &g, seps, NULL) != AXE_OK)
        return 1;
    for (int i = seps[d + 1] - 1; i >= seps[d]; i--) {
        const axe_iter *it = &g.shard[i];
        if (it->extent == 1)
            continue;
        if (strcmp(it->axis, "m") != 0 || it->stride != run)
            break;
        run *= it->extent;
    }
    return run;
}

/* Whether plain leaf "f" (layout "l") holds wider vectors along the
 * chain of pieces: then it is a merged leaf's layout, kept as that. */
static bool wider_merged(const sy_copy *c, const sy_leaf *f,
                         const axe_layout *l)
{
    int64_t run, v;
    if (f->merged || !c->merge)
        return false;
    run = axe__synth_merge_reg_run(&c->m, l);
    for (int b = 0; (v = width_at(c, b)) > f->w; b++)
        if (run % v == 0 && fits_merged(c, v))
            return true;
    return false;
}

/* The widest access of copy "c" with its register on layout "l": the
 * widest width c weighs that divides the run along its fastest memory
 * dim and the alignment, or, wider, one along the chain of pieces. */
static int64_t layout_width(const sy_copy *c, const axe_layout *l)
{
    int64_t run = reg_run(l, c), w = 1, v;
    for (int b = 0; c->vec && (v = width_at(c, b)) > 1; b++)
        if (run % v == 0 && fits(c, v)) {
            w = v;
            break;
        }
    run = c->merge ? axe__synth_merge_reg_run(&c->m, l) : 1;
    for (int b = 0; (v = width_at(c, b)) > w; b++)
        if (run % v == 0 && fits_merged(c, v)) {
            w = v;
            break;
        }
    return w;
}

/* Accesses the other copies issue with leaf "f" (layout "l") of anchor
 * "c": each moves its widest access on l (layout_width: inside its
 * fastest memory dim, or across dimensions along its chain of pieces),
 * or, a store of packed i4 without one, a byte per element pair where l
 * gives its threads such pairs (stores_pairs); single elements where its
 * shape is not the anchor's. */
static int64_t others_cost(const sy_copy *c, const sy_leaf *f,
                           const axe_layout *l, const sy_others *o)
{
    int64_t sum = 0;
    for (int i = 0; i < o->n; i++) {
        const sy_copy *x = &o->c[i];
        bool same = x->n == c->n && x->size == c->size;
        int64_t w;
        for (int d = 0; same && d < c->n; d++)
            same = x->shape[d] == c->shape[d];
        w = same ? layout_width(x, l) : 1;
        if (w == 1 && same && stores_pairs(x, l))
            w = 2;
        sum += x->size / (w * f->tp) * x->threads;
    }
    return sum;
}

/* The leaves in the search's order: tp from the scope's threads down
 * (halving), the run L from w up over the divisors of the size, w from 16
 * bytes down; kept cheapest first; on ties, the fewest accesses of the
 * other copies of the tied class (a run that lets them move wider
 * vectors), then the first (more threads, shorter runs). Cost: accesses
 * issued by the scope instance, size / (w tp) * T. A thread count whose
 * share of the elements passes a thread's registers has no leaf
 * (copy_candidate): skipped, so the run loop stays within
 * AX_MAX_REGISTER_BYTES steps. Then the ldmatrix leaves "ls" by the same
 * cost and tie rule (after the coalesced leaves they tie with), but, as
 * copy_candidate, none that splits a byte of a store into packed i4. */
static void copy_search(const sy_copy *c, const sy_others *o,
                        const ax_synth_ldsm *ls, const ax_synth_tied_ldsm *tl,
                        ax_synth_leaves *lv)
{
    sy_leaf f = {0, 0, 0, 0, false};
    int64_t ties[AX_SYNTH_COPY_LEAVES];
    sy_leaf kept[AX_SYNTH_COPY_LEAVES];
    lv->n = 0;
    for (f.tp = c->threads; f.tp >= 1; f.tp = f.tp % 2 == 0 ? f.tp / 2 : 0)
        for (f.run = 1; f.run <= c->size / f.tp &&
                        (c->size / f.tp) * c->bits <= 8 * AX_MAX_REGISTER_BYTES;
             f.run++)
            for (int b = 0; (f.w = width_at(c, b)) > 0; b++)
                for (int m = 0; m < 2; m++) {
                    axe_layout l;
                    f.merged = m == 1;
                    if (c->size % (f.run * f.tp) != 0 ||
                        !copy_candidate(c, &f, &l) || wider_merged(c, &f, &l))
                        continue;
                    keep_leaf(c, &f, &l,
                              (double)((c->size / (f.w * f.tp)) * c->threads),
                              others_cost(c, &f, &l, o), NULL, lv, ties, kept);
                }
    for (int k = 0; k < ls->n; k++) {
        f = (sy_leaf){1, reg_run(&ls->leaf[k].layout, c), c->threads, k + 1,
                      false};
        if (!whole_bytes(c, &f, &ls->leaf[k].layout))
            continue;
        keep_leaf(c, &f, &ls->leaf[k].layout, ls->leaf[k].cost,
                  others_cost(c, &f, &ls->leaf[k].layout, o), ls->leaf[k].text,
                  lv, ties, kept);
    }
    for (int k = 0; k < tl->n; k++) {
        bool have;
        f = (sy_leaf){1, reg_run(&tl->leaf[k].layout, c), c->threads,
                      AX_SYNTH_LDSM_LEAVES + k + 1, false};
        have = !whole_bytes(c, &f, &tl->leaf[k].layout);
        for (int j = 0; j < lv->n; j++)
            have = have ||
                   axe_layout_equal(&lv->leaf[j].layout, &tl->leaf[k].layout);
        if (have)
            continue;
        if (lv->n == AX_SYNTH_COPY_LEAVES)
            drop_costliest_coalesced(lv, ties, kept);
        keep_leaf(c, &f, &tl->leaf[k].layout, tl->leaf[k].cost,
                  others_cost(c, &f, &tl->leaf[k].layout, o), tl->leaf[k].text,
                  lv, ties, kept);
    }
}

/* Whether every ldmatrix leaf of "ls" and "tl" (one at least) breaks the
 * store-byte rule (whole_bytes), so that none reached the search. */
static bool all_split(const sy_copy *c, const ax_synth_ldsm *ls,
                      const ax_synth_tied_ldsm *tl)
{
    for (int k = 0; k < ls->n + tl->n; k++) {
        const axe_layout *l =
            k < ls->n ? &ls->leaf[k].layout : &tl->leaf[k - ls->n].layout;
        sy_leaf f = {1, reg_run(l, c), c->threads, k + 1, false};
        if (whole_bytes(c, &f, l))
            return false;
    }
    return ls->n + tl->n > 0;
}

/* Why copy anchor "s" (its leaves "ls", its tied copies' "tl") has no
 * ldmatrix leaf into "lv": the generator's reason for "s", else for a tied
 * copy, else (where the generator gave leaves) that the store-byte rule
 * dropped them all; "" when a leaf reached the search. */
static void no_ldsm_why(const axe_program *p, const ax_stmt *s,
                        const sy_copy *c, const ax_synth_ldsm *ls,
                        const ax_synth_tied_ldsm *tl, ax_synth_leaves *lv)
{
    lv->no_ldsm_op = ls->why[0] != '\0' ? s->index : tl->why_op;
    lv->no_ldsm_own = ls->why[0] != '\0' && tl->n > 0;
    (void)snprintf(lv->no_ldsm, sizeof lv->no_ldsm, "%s",
                   ls->why[0] != '\0' ? ls->why : tl->why);
    if (lv->no_ldsm[0] != '\0' || c->i4->q.tensor < 0 || !all_split(c, ls, tl))
        return;
    lv->no_ldsm_op = ls->n > 0 ? s->index : tl->leaf_op;
    (void)snprintf(lv->no_ldsm, sizeof lv->no_ldsm,
                   "each of its %d ldmatrix leaves splits a byte of the "
                   "packed i4 '%s' that its class stores (the store-byte "
                   "rule: both nibbles of a byte from one thread)",
                   ls->n > 0 ? ls->n : tl->leaf_n,
                   p->tensors[c->i4->q.tensor].name);
}

static axe_status leaves_of(const axe_program *p, const ax_stmt *s, int reg,
                            const bool *in, sy_copy *c, ax_synth_leaves *lv,
                            axe_diag *diag)
{
    sy_others o;
    ax_synth_ldsm ls;
    ax_synth_tied_ldsm tl;
    AXE_TRY(collect_others(p, s, in, &o));
    AXE_TRY(axe__synth_ldsm_leaves(p, s, reg, &ls, diag));
    AXE_TRY(axe__synth_tied_ldsm(p, s, reg, in, &tl, diag));
    copy_search(c, &o, &ls, &tl, lv);
    no_ldsm_why(p, s, c, &ls, &tl, lv);
    if (lv->n == 0 && c->i4->q.tensor >= 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "it is stored into the packed i4 '%s' (whole bytes "
                         "per thread): no run on all %lld threads gives "
                         "whole bytes and deals the %lld elements within a "
                         "thread's %d bytes of registers",
                         p->tensors[c->i4->q.tensor].name,
                         (long long)c->threads, (long long)c->size,
                         AX_MAX_REGISTER_BYTES);
    if (lv->n == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "no thread count dividing the %s's %lld threads "
                         "deals the %lld elements over the tensor's shape "
                         "within a thread's %d bytes of registers",
                         axe__scope_name(s->scope), (long long)c->threads,
                         (long long)c->size, AX_MAX_REGISTER_BYTES);
    return AXE_OK;
}

axe_status axe__synth_copy_leaves(const axe_program *p, const ax_stmt *s,
                                  int reg, int mem, ax_synth_leaves *lv,
                                  axe_diag *diag)
{
    sy_copy c;
    sy_i4 b = {0};
    bool in[AX_MAX_TENSORS];
    axe_status st;
    AXE_TRY(copy_setup(p, s, reg, mem, &c, diag));
    axe__synth_tied(p, s->args[reg].tensor, in);
    AXE_TRY(axe__synth_i4_pairs(p, in, c.shape, c.n, &b.q));
    c.i4 = &b;
    st = leaves_of(p, s, reg, in, &c, lv, diag);
    axe__synth_i4_free(&b.q);
    return st;
}

/* compiler_synth.h: the run of register elements at stride 1 along the
 * fastest memory dim (the innermost iters of that dim, m iters whose
 * register strides are 1, e1, e1 e2, ...), the widest access of the
 * widths the anchor weighs that divides it and the alignment (or, wider,
 * along the chain of pieces). */
bool axe__synth_copy_width(const axe_program *p, const ax_stmt *s, int reg,
                           const axe_layout *l, int64_t *out)
{
    sy_copy c;
    axe_diag why;
    if (copy_setup(p, s, reg, 1 - reg, &c, &why) != AXE_OK)
        return false;
    *out = layout_width(&c, l);
    return true;
}

/* compiler_synth.h: registers per thread / w accesses (w above) on each
 * of the scope's threads. */
bool axe__synth_copy_accesses_with(const axe_program *p, const ax_stmt *s,
                                   int reg, const axe_layout *l, int64_t *out)
{
    int64_t w, span;
    sy_copy c;
    axe_diag why;
    if (axe_layout_span(l, "m", &span) != AXE_OK ||
        !axe__synth_copy_width(p, s, reg, l, &w) ||
        copy_setup(p, s, reg, 1 - reg, &c, &why) != AXE_OK)
        return false;
    if (w == 1 && stores_pairs(&c, l))
        w = 2;
    *out = (span + w - 1) / w * axe__scope_threads(p, s->scope);
    return true;
}

/* compiler_synth.h: the vectors (above) on the register's layout, or its
 * ldmatrix instructions where fewer. */
bool axe__synth_copy_accesses(const axe_program *p, const ax_stmt *s, int reg,
                              int64_t *out)
{
    int64_t v;
    if (!axe__synth_copy_accesses_with(
            p, s, reg, &p->tensors[s->args[reg].tensor].layout, out))
        return false;
    if (axe__synth_ldsm_accesses(p, s, reg, &v) && v < *out)
        *out = v; /* ldmatrix */
    return true;
}

/* Register strides made compact in their order: each m iter's stride
 * becomes the product of the extents of the m iters of smaller stride. */
static axe_status compact(axe_layout *l)
{
    int64_t orig[AXE_LAYOUT_MAX_SHARD];
    int i, j;
    for (i = 0; i < l->nshard; i++)
        orig[i] = l->shard[i].stride;
    for (i = 0; i < l->nshard; i++) {
        int64_t below = 1;
        if (strcmp(l->shard[i].axis, "m") != 0)
            continue;
        for (j = 0; j < l->nshard; j++)
            if (strcmp(l->shard[j].axis, "m") == 0 && l->shard[j].extent > 1 &&
                (orig[j] < orig[i] || (orig[j] == orig[i] && j > i)))
                below *= l->shard[j].extent;
        l->shard[i].stride = l->shard[i].extent > 1 ? below : 0;
    }
    return AXE_OK;
}

/* The projection constraint (compiler_synth.h). */
axe_status axe__synth_project(const axe_layout *l, const int64_t *shape, int n,
                              int k, axe_layout *out)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, i;
    AXE_TRY(axe_layout_group(l, shape, n, &g, seps, NULL));
    axe_layout_init(out);
    for (d = 0; d < n; d++)
        for (i = seps[d]; i < seps[d + 1]; i++) {
            const axe_iter *it = &g.shard[i];
            bool mem = strcmp(it->axis, "m") == 0;
            if (d != k)
                AXE_TRY(axe_layout_push_shard(out, it->extent, it->stride,
                                              it->axis));
            else if (!mem && it->extent > 1)
                AXE_TRY(axe_layout_push_replica(out, it->extent, it->stride,
                                                it->axis));
        }
    for (i = 0; i < l->nreplica; i++)
        AXE_TRY(axe_layout_push_replica(out, l->replica[i].extent,
                                        l->replica[i].stride,
                                        l->replica[i].axis));
    return compact(out);
}
