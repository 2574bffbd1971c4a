/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared layouts of layout synthesis (issue 15 §3; docs/compiler.md,
 * "Layout synthesis"). A `shared ... layout auto` tensor holds the
 * row-major placeholder from parsing; a probe program (the same text and
 * options, its registers synthesized, the placeholders kept) is checked
 * and dispatched, so that its plans give every warp-wide access of the
 * tensor; axe__smem_synthesize turns them into the meet of their
 * alignment runs, its compact candidate and the swizzle chosen against
 * bank conflicts, which becomes the tensor's layout before sema (so sema
 * and dispatch treat it as a written one). Written shared layouts are
 * constraints: left as they are. After dispatch, axe__synth_accesses
 * records the ways of every warp-wide access of every shared tensor.
 * Invariant: every count is the bank model's on the accesses of the
 * compiled program.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_smem.h"
#include "compiler_synth.h"

/* The auto shared tensor of a view (none may have one: a view addresses
 * the storage that synthesis chooses), or -1. */
static int viewed_auto(const axe_program *p, const ax_stmt *s, long *off)
{
    for (int i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (s->args[i].is_view && t->mem == AX_MEM_SHARED && t->autolayout) {
            *off = s->args[i].off;
            return s->args[i].tensor;
        }
    }
    return -1;
}

static axe_status no_auto_views(const axe_program *p, axe_diag *diag)
{
    for (int k = 0; k < p->nops; k++) {
        long off = -1;
        int ti = viewed_auto(p, p->ops[k], &off);
        if (ti >= 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, off,
                             "'%s' has 'layout auto': a view addresses its "
                             "storage, which synthesis chooses; read it "
                             "through a region, or write its layout",
                             p->tensors[ti].name);
    }
    return AXE_OK;
}

/* The probe: "p"'s text compiled with its registers synthesized and its
 * auto shared tensors row-major, except tensor "ti" laid out
 * by "l" when "l" is not NULL (freed by the caller). */
static axe_status probe(const axe_program *p, int ti, const axe_layout *l,
                        axe_program **q, axe_diag *diag)
{
    axe_allocator al = axe__arena_allocator(p->arena);
    AXE_TRY(axe__program_new(p->text, p->len, &p->opts, &al, q));
    (*q)->synth = axe__arena_alloc((*q)->arena, sizeof *(*q)->synth);
    if ((*q)->synth == NULL)
        return AXE_ERR_NO_MEMORY;
    AXE_TRY(axe__program_parse(*q, diag));
    AXE_TRY(axe__synth_registers(*q, (*q)->synth, diag));
    if ((*q)->ntensors != p->ntensors)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "layout synthesis: the probe has %d tensors, the "
                         "program %d",
                         (*q)->ntensors, p->ntensors);
    if (l != NULL)
        (*q)->tensors[ti].layout = *l;
    AXE_TRY(axe__program_check(*q, diag));
    return axe__program_dispatch(*q, diag);
}

/* Over the warp-wide accesses of tensor "ti" in dispatched "q", under its
 * layout: how many there are, whether one moves a vector, and the
 * largest ways and their sum. */
typedef struct measure {
    int n, max;
    bool vector;
    int64_t sum;
} measure;

static axe_status measured(axe_program *q, int ti, measure *m, axe_diag *diag)
{
    const ax_tensor *t = &q->tensors[ti];
    const axe_layout_swizzle *sw =
        t->layout.swizzle.present ? &t->layout.swizzle : NULL;
    ax_smem_list l;
    memset(m, 0, sizeof *m);
    AXE_TRY(axe__smem_accesses(q, &l, diag));
    for (int k = 0; k < l.n; k++) {
        int w;
        if (l.a[k].tensor != ti)
            continue;
        AXE_TRY(axe__smem_access_ways(
            &t->layout, sw, axe_dtype_bit_width(t->dtype), &l.a[k], &w, diag));
        m->n++;
        m->vector = m->vector || l.a[k].vec > 1;
        m->max = w > m->max ? w : m->max;
        m->sum += w;
    }
    return AXE_OK;
}

/* The ways of tensor "ti" compiled with layout "l" (a fresh probe). */
static axe_status measured_with(const axe_program *p, int ti,
                                const axe_layout *l, measure *m, axe_diag *diag)
{
    axe_program *q = NULL;
    axe_status st = probe(p, ti, l, &q, diag);
    if (st == AXE_OK)
        st = measured(q, ti, m, diag);
    if (q != NULL)
        axe_program_free(q);
    return st;
}

/* When the layout kept for vectors ("l", measured "*ma") leaves conflict
 * ways, the one chosen for single-element accesses, if compiling with
 * it measures fewer ways (max, then sum): into "l", "*ma", "*scalar". */
static axe_status try_scalar(axe_program *p, axe_program *q, int ti,
                             axe_layout *l, measure *ma, bool *scalar,
                             axe_diag *diag)
{
    ax_smem_choice c;
    axe_layout lb;
    measure mb;
    axe_diag why;
    *scalar = false;
    AXE_TRY(measured_with(p, ti, l, ma, diag));
    if (ma->max <= 1 || !ma->vector)
        return AXE_OK;
    axe_diag_clear(&why);
    if (axe__smem_synthesize(q, ti, true, &lb, &c, &why) != AXE_OK ||
        measured_with(p, ti, &lb, &mb, &why) != AXE_OK)
        return AXE_OK; /* the vector layout stands */
    if (mb.max < ma->max || (mb.max == ma->max && mb.sum < ma->sum)) {
        *l = lb;
        *ma = mb;
        *scalar = true;
    }
    return AXE_OK;
}

/* Tensor "ti" of "p" from probe "q": its layout and report entry. */
static axe_status synth_one(axe_program *p, axe_program *q, int ti,
                            ax_synth_report *r, axe_diag *diag)
{
    ax_synth_tensor *e = &r->tensors[r->ntensors++];
    ax_smem_choice c;
    axe_layout l;
    measure m0, m;
    bool scalar;
    char sw[48] = "no swizzle";
    e->tensor = ti;
    AXE_TRY(measured(q, ti, &m0, diag));
    if (m0.n == 0) {
        (void)snprintf(e->how, sizeof e->how,
                       "row-major: no operator accesses it");
        return AXE_OK;
    }
    AXE_TRY(axe__smem_synthesize(q, ti, false, &l, &c, diag));
    AXE_TRY(try_scalar(p, q, ti, &l, &m, &scalar, diag));
    p->tensors[ti].layout = l;
    if (l.swizzle.present)
        (void)snprintf(sw, sizeof sw, "Swizzle<%d,%d,%d>",
                       (int)l.swizzle.per_element, (int)l.swizzle.len,
                       (int)l.swizzle.atom);
    (void)snprintf(e->how, sizeof e->how,
                   "compact on its accesses' alignment runs%s; %s: ways "
                   "%d -> %d (row-major -> this, measured by the bank "
                   "model)",
                   scalar ? ", vectors dropped (they kept conflicts)" : "", sw,
                   m0.max, m.max);
    return AXE_OK;
}

axe_status axe__synth_shared(axe_program *p, ax_synth_report *r, axe_diag *diag)
{
    axe_program *q = NULL;
    axe_status st = AXE_OK;
    bool any = false;
    for (int i = 0; i < p->ntensors; i++)
        any = any ||
              (p->tensors[i].mem == AX_MEM_SHARED && p->tensors[i].autolayout);
    if (!any)
        return AXE_OK;
    AXE_TRY(no_auto_views(p, diag));
    st = probe(p, -1, NULL, &q, diag);
    for (int i = 0; st == AXE_OK && i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_SHARED && p->tensors[i].autolayout)
            st = synth_one(p, q, i, r, diag);
    if (q != NULL)
        axe_program_free(q);
    return st;
}

/* ---- the "accesses" records, after dispatch ---------------------------- */

/* The record of (op, tensor) in "r", made when new. */
static axe_status record(ax_synth_report *r, const ax_smem_access *a,
                         ax_synth_access **out, axe_diag *diag)
{
    for (int k = 0; k < r->naccesses; k++)
        if (r->accesses[k].op == a->op && r->accesses[k].tensor == a->tensor) {
            *out = &r->accesses[k];
            return AXE_OK;
        }
    if (r->naccesses == AX_SYNTH_MAX_ITEMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "more than %d (operator, shared tensor) pairs to "
                         "report",
                         AX_SYNTH_MAX_ITEMS);
    *out = &r->accesses[r->naccesses++];
    **out = (ax_synth_access){a->op, a->tensor, 0, 0};
    return AXE_OK;
}

/* Access "a": before on the row-major layout (an auto tensor) or the
 * written one unswizzled, after on the layout used. */
static axe_status count(const axe_program *p, const ax_smem_access *a,
                        ax_synth_report *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[a->tensor];
    int64_t bits = axe_dtype_bit_width(t->dtype);
    axe_layout rm;
    ax_synth_access *e;
    int before, after;
    AXE_TRY(record(r, a, &e, diag));
    if (t->autolayout)
        AXE_TRY(axe_layout_row_major(t->shape, t->ndim, &rm));
    AXE_TRY(axe__smem_access_ways(t->autolayout ? &rm : &t->layout, NULL, bits,
                                  a, &before, diag));
    AXE_TRY(axe__smem_access_ways(
        &t->layout, t->layout.swizzle.present ? &t->layout.swizzle : NULL, bits,
        a, &after, diag));
    e->ways_before = before > e->ways_before ? before : e->ways_before;
    e->ways_after = after > e->ways_after ? after : e->ways_after;
    return AXE_OK;
}

axe_status axe__synth_accesses(axe_program *p, axe_diag *diag)
{
    ax_synth_report *r = p->synth;
    ax_smem_list l;
    axe_diag why;
    axe_status st;
    if (r == NULL)
        return AXE_OK;
    axe_diag_clear(&why);
    st = axe__smem_accesses(p, &l, &why);
    for (int k = 0; st == AXE_OK && k < l.n; k++)
        st = count(p, &l.a[k], r, &why);
    if (st == AXE_ERR_NO_MEMORY)
        return axe__fail(diag, st, -1, "out of memory");
    if (st != AXE_OK) {
        r->naccesses = 0;
        (void)snprintf(r->accesses_note, sizeof r->accesses_note,
                       "accesses not counted: %s", why.message);
    }
    return AXE_OK;
}
