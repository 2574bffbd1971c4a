/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared layouts of layout synthesis (issue 15 §3; docs/compiler.md,
 * "Layout synthesis"), decided before the registers. A `shared ...
 * layout auto` tensor is tried on placeholders (row-major, and each other
 * dimension that a copy's region spans at stride 1): a probe program (the
 * same text and options, the placeholder set, then its registers synthesized)
 * is checked and dispatched, so that its plans give every warp-wide access of
 * the tensor; axe__smem_synthesize turns them into a layout (alignment runs,
 * the best order of the free strides, the swizzle chosen against bank
 * conflicts), which a second probe measures with its registers
 * synthesized for it. The layout with the fewest ways becomes the
 * tensor's before the program's registers are synthesized and before
 * sema (so sema and dispatch treat it as a written one). Written shared
 * layouts are constraints: left as they are. After dispatch,
 * axe__synth_accesses records the ways of every warp-wide access of
 * every shared tensor. Invariant: every count is the bank model's on the
 * accesses of the compiled program.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "axe/notation.h"
#include "compiler_copy_ldsm.h"
#include "compiler_smem.h"
#include "compiler_synth.h"

/* The auto shared tensor of a view (none may have one: a view addresses
 * the storage that synthesis chooses), or -1. */
static int viewed_auto(const axe_program *p, const ax_stmt *s, long *off)
{
    for (int i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (s->args[i].is_view && t->mem == AX_MEM_SHARED && t->autolayout &&
            t->space == AX_SPACE_NONE) {
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

/* The shared layouts of a probe: "lay[i]" for every auto shared tensor
 * i with "set[i]" (the others on their row-major placeholders); "scratch"
 * and "win": the register synthesis of the probe measured last and of
 * the layout that won so far (the program's, compiler_synth.h). */
typedef struct decided {
    bool set[AX_MAX_TENSORS];
    axe_layout lay[AX_MAX_TENSORS];
    ax_synth_kept *scratch, *win;
} decided;

/* The register synthesis of probe "q" (its report, the layouts of "p"'s
 * register tensors) into "k"; plain when it added no tensor or operator
 * (no rearrange: those live in the probe's arena). */
static void keep(const axe_program *p, const axe_program *q, ax_synth_kept *k)
{
    k->have = true;
    k->plain = q->ntensors == p->ntensors && q->nops == p->nops;
    for (int i = 0; k->plain && i < p->ntensors; i++)
        k->lay[i] = q->tensors[i].layout;
    k->report = *q->synth;
}

/* The probe: "p"'s text compiled with the shared layouts "d" set before
 * its registers are synthesized (so that the register layouts are the
 * ones synthesis gives with those shared layouts; kept in "k" when not
 * NULL), checked and dispatched (freed by the caller). */
static axe_status probe(const axe_program *p, const decided *d, axe_program **q,
                        ax_synth_kept *k, axe_diag *diag)
{
    axe_allocator al = axe__arena_allocator(p->arena);
    AXE_TRY(axe__program_new(p->text, p->len, &p->opts, &al, q));
    (*q)->synth = axe__arena_alloc((*q)->arena, sizeof *(*q)->synth);
    if ((*q)->synth == NULL)
        return AXE_ERR_NO_MEMORY;
    AXE_TRY(axe__program_parse(*q, diag));
    if ((*q)->ntensors != p->ntensors)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "layout synthesis: the probe has %d tensors, the "
                         "program %d",
                         (*q)->ntensors, p->ntensors);
    for (int i = 0; i < p->ntensors; i++)
        if (d->set[i])
            (*q)->tensors[i].layout = d->lay[i];
    AXE_TRY(axe__synth_registers(*q, (*q)->synth, diag));
    if (k != NULL)
        keep(p, *q, k);
    AXE_TRY(axe__program_check(*q, diag));
    return axe__program_dispatch(*q, diag);
}

/* Over the warp-wide accesses of tensor "ti" in dispatched "q", under its
 * layout: how many there are, whether one moves a vector, and the
 * largest ways and their sum (measured below). */
typedef struct measure {
    int n, max;
    bool vector, ldsm; /* ldsm: a copy reads it by ldmatrix */
    int64_t sum;
} measure;

/* Into "*yes", whether copy "s" of "q" reads "ti" by ldmatrix or
 * ldmatrix.trans (chosen over its per-thread loads at dispatch,
 * compiler_copy_ldsm.h): then its instructions' counts, on the rows each
 * form reads, into "w". Out of memory is an error, not "no ldmatrix". */
static axe_status ldsm_read(axe_program *q, const ax_stmt *s, int ti,
                            ax_ways *w, bool *yes, axe_diag *diag)
{
    const ax_ldsm *ld = axe__ldsm_of(s);
    axe_diag why;
    axe_status rc;
    *yes = false;
    if (!axe__smem_ldsm_copy(q, s, ti) || ld == NULL || !ld->chosen)
        return AXE_OK;
    axe_diag_clear(&why);
    rc = axe__smem_ldsm_ways(q, s, ld->trans, w, &why);
    if (rc == AXE_ERR_NO_MEMORY)
        return axe__fail(diag, rc, -1, "out of memory");
    *yes = rc == AXE_OK;
    return AXE_OK;
}

/* Over the accesses, a copy that runs as ldmatrix counts its ldmatrix
 * instructions (ldsm_read) in place of its plan's per-thread loads. */
static axe_status measured(axe_program *q, int ti, measure *m, axe_diag *diag)
{
    const ax_tensor *t = &q->tensors[ti];
    const axe_layout_swizzle *sw =
        t->layout.swizzle.present ? &t->layout.swizzle : NULL;
    ax_smem_list l;
    bool *ldsm = axe__arena_alloc(q->arena, (size_t)q->nops + 1);
    memset(m, 0, sizeof *m);
    if (ldsm == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int k = 0; k < q->nops; k++) {
        ax_ways w;
        AXE_TRY(ldsm_read(q, q->ops[k], ti, &w, &ldsm[k], diag));
        if (ldsm[k]) {
            m->n++;
            m->ldsm = m->vector = true;
            m->max = w.max > m->max ? w.max : m->max;
            m->sum += w.sum;
        }
    }
    AXE_TRY(axe__smem_accesses(q, &l, diag));
    for (int k = 0; k < l.n; k++) {
        int w;
        if (l.a[k].tensor != ti || ldsm[l.a[k].op])
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

/* The ways of tensor "ti" compiled with layout "l" (a fresh probe with
 * "d" and "l" for "ti", its register synthesis in d->scratch). */
static axe_status measured_with(const axe_program *p, const decided *d, int ti,
                                const axe_layout *l, measure *m, axe_diag *diag)
{
    decided e = *d;
    axe_program *q = NULL;
    axe_status st;
    e.set[ti] = true;
    e.lay[ti] = *l;
    d->scratch->have = false;
    st = probe(p, &e, &q, d->scratch, diag);
    if (st == AXE_OK)
        st = measured(q, ti, m, diag);
    if (q != NULL)
        axe_program_free(q);
    return st;
}

/* How a layout was reached: the placeholder's fastest dimension, its
 * vectors dropped ("scalar"), the copy whose ldmatrix rows gave it (or
 * -1), those rows a seed's leaf's ("seeded"), ldmatrix.trans's
 * ("trans"). */
typedef struct origin {
    int order;
    bool scalar;
    int ldsm;
    bool seeded, trans;
} origin;

/* A layout of one tensor and its measure, and how it was reached. */
typedef struct pick {
    bool have;
    origin o;
    axe_layout l;
    measure m;
} pick;

/* Whether "m" beats "b": fewer largest ways, then fewer in sum. */
static bool fewer(const measure *m, const pick *b)
{
    return !b->have || m->max < b->m.max ||
           (m->max == b->m.max && m->sum < b->m.sum);
}

/* "l" measured with its registers synthesized for it: into "*b" when it
 * beats it, its register synthesis into d->win (a layout that does not
 * compile is passed over). */
static axe_status consider(const axe_program *p, const decided *d, int ti,
                           const axe_layout *l, origin o, measure *m, pick *b,
                           axe_diag *fail)
{
    axe_diag why;
    axe_diag_clear(&why);
    m->max = -1;
    if (measured_with(p, d, ti, l, m, &why) != AXE_OK) {
        if (fail != NULL)
            *fail = why;
        return AXE_OK;
    }
    if (fewer(m, b)) {
        *b = (pick){true, o, *l, *m};
        *d->win = *d->scratch;
    }
    return AXE_OK;
}

/* The placeholder of tensor "ti" with dimension "fast" at stride 1, the
 * others row-major outside it (dimension ndim - 1: row-major). */
static axe_status placeholder(const ax_tensor *t, int fast, axe_layout *l)
{
    int64_t stride[AX_MAX_DIMS], s = t->shape[fast];
    stride[fast] = 1;
    for (int d = t->ndim - 1; d >= 0; d--)
        if (d != fast) {
            stride[d] = s;
            s *= t->shape[d];
        }
    axe_layout_init(l);
    for (int d = 0; d < t->ndim; d++)
        AXE_TRY(axe_layout_push_shard(l, t->shape[d], stride[d], "m"));
    return AXE_OK;
}

/* From the probe with placeholder "fast" for "ti" ("given": that probe,
 * already made, or NULL to make it): the layout its accesses give (and,
 * when that keeps conflicts and an access moves a vector, the one for
 * single elements), each measured with its own registers, into "*b". An
 * error of the row-major placeholder's probe is the program's; another
 * placeholder that does not compile is passed over. */
static axe_status from_placeholder(const axe_program *p, const decided *d,
                                   int ti, int fast, axe_program *given,
                                   pick *b, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    bool rowmajor = fast == t->ndim - 1;
    decided e = *d;
    axe_program *q = given;
    ax_smem_choice c;
    axe_layout l;
    measure m;
    axe_diag why;
    axe_status st = AXE_OK;
    axe_diag_clear(&why);
    e.set[ti] = true;
    AXE_TRY(placeholder(t, fast, &e.lay[ti]));
    if (given == NULL)
        st = probe(p, &e, &q, NULL, rowmajor ? diag : &why);
    if (st == AXE_OK)
        st = axe__smem_synthesize(q, ti, false, &l, &c, rowmajor ? diag : &why);
    if (st == AXE_OK)
        st = consider(p, d, ti, &l, (origin){fast, false, -1, false, false}, &m,
                      b, NULL);
    if (st == AXE_OK && m.max > 1 && m.vector &&
        axe__smem_synthesize(q, ti, true, &l, &c, &why) == AXE_OK)
        st = consider(p, d, ti, &l, (origin){fast, true, -1, false, false}, &m,
                      b, NULL);

    if (q != NULL && given == NULL)
        axe_program_free(q);
    return rowmajor ? st : (st == AXE_ERR_NO_MEMORY ? st : AXE_OK);
}

/* Whether a copy of "q" (a dispatched probe) names a region of tensor
 * "ti" longer than 1 in dimension "dim" that may move vectors along "dim"
 * when "dim" is at stride 1: its other operand is at stride 1 along "dim"
 * (the plans vectorize along a dimension contiguous in both), or the
 * region's later dimensions have length 1. */
static bool copy_runs_along(const axe_program *q, int ti, int dim)
{
    const ax_tensor *t = &q->tensors[ti];
    for (int k = 0; k < q->nops; k++)
        for (int i = 0;
             q->ops[k]->op == AX_OP_COPY && i < 2 && q->ops[k]->nargs == 2;
             i++) {
            const ax_ref *r = &q->ops[k]->args[i];
            const int64_t *len = r->ndim == 0 ? t->shape : r->len;
            bool ok = r->tensor == ti && !r->is_view && len[dim] > 1,
                 later = true;
            for (int e = dim + 1; ok && e < t->ndim; e++)
                later = later && len[e] == 1;
            if (ok && (later || axe__ref_inner_stride(
                                    q, &q->ops[k]->args[1 - i], dim) == 1))
                return true;
        }
    return false;
}

/* Why the copies that read a tensor into a register of its dtype gave no
 * candidate from their ldmatrix rows: the first reason ("op" its copy,
 * -1 none), and whether a candidate of rows was measured at all. */
typedef struct rows_why {
    int op;
    bool measured;
    char text[AX_SYNTH_WHY];
} rows_why;

static void why_not(rows_why *w, int op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void why_not(rows_why *w, int op, const char *fmt, ...)
{
    va_list ap;
    if (w->op >= 0)
        return;
    w->op = op;
    va_start(ap, fmt);
    (void)vsnprintf(w->text, sizeof w->text, fmt, ap);
    va_end(ap);
}

/* The candidate of copy "k" of "p" for "ti" from the ldmatrix rows of
 * its register on layout "rl", ldmatrix.trans's with "o.trans"
 * (compiler_smem_ldsm.c; "o.seeded": rl is a seed's leaf,
 * compiler_synth_seed.c): its unswizzled compact instance
 * is probed, and on that probe's accesses the order of its free strides
 * and the swizzle are chosen; the result measured into "*b" (consider).
 * Where the probe's copy does not run as ldmatrix (its register reads the
 * rows otherwise: 16-byte vectors across dimensions), the compact instance
 * itself is the candidate. A candidate that does not compile is passed
 * over. */
static axe_status from_ldsm_rows(axe_program *p, const decided *d, int ti,
                                 const axe_layout *rl, origin o, pick *b,
                                 rows_why *w)
{
    const ax_tensor *t = &p->tensors[ti];
    ax_free_layout f;
    int perm[AX_FREE_MAX];
    decided e = *d;
    axe_program *q2 = NULL;
    axe_layout l;
    measure m;
    axe_diag why;
    bool have = false;
    axe_status st;
    char text[160];
    /* the stage that failed: the instance, the probe, the rows' swizzle
     * and order, the measure (consider) */
    const char *fail = "has no compact instance";
    (void)axe_print_layout(rl, text, sizeof text);
    if (!axe__smem_ldsm_free(rl, t->shape, t->ndim,
                             axe_dtype_bit_width(t->dtype), o.trans, &f)) {
        why_not(w, o.ldsm,
                "the register layout %s makes no ldmatrix%s rows of '%s' "
                "(replicas, offsets, a swizzle, an axis other than laneid, "
                "m and the warps, or words that make no 16-byte row)",
                text, o.trans ? ".trans" : "", t->name);
        return AXE_OK;
    }
    for (int i = 0; i < AX_FREE_MAX; i++)
        perm[i] = i + 1;
    axe_diag_clear(&why);
    e.set[ti] = true;
    st = axe__free_layout_instance(&f, perm, 0, &e.lay[ti], &why);
    if (st == AXE_OK) {
        fail = "does not compile";
        st = probe(p, &e, &q2, NULL, &why);
    }
    if (st == AXE_OK) {
        fail = "is not usable";
        st = axe__smem_ldsm_candidate(q2, ti, o.ldsm, o.trans, &l, &have, &why);
    }
    if (st == AXE_OK)
        fail = "does not compile";
    if (q2 != NULL)
        axe_program_free(q2);
    if (st == AXE_OK && !have) /* the register moves the rows otherwise */
        l = e.lay[ti], have = true;
    if (st == AXE_OK && have)
        st = consider(p, d, ti, &l, o, &m, b, &why);
    if (st == AXE_OK && m.max >= 0)
        w->measured = true;
    else if (st != AXE_ERR_NO_MEMORY)
        why_not(w, o.ldsm,
                "'%s' laid out on the ldmatrix%s rows of %s %s%s%.120s",
                t->name, o.trans ? ".trans" : "", text, fail,
                why.message[0] != '\0' ? ": " : "", why.message);
    return st == AXE_ERR_NO_MEMORY ? st : AXE_OK;
}

/* The seeds' leaves of copy "s" (axe__synth_ldsm_seeds), computed once
 * per copy into "*slot" (in the arena; NULL until the first call). */
static axe_status seeds_of(axe_program *p, const ax_stmt *s,
                           ax_synth_leaves **slot, axe_diag *diag)
{
    ax_synth_leaves *lv;
    if (*slot != NULL)
        return AXE_OK;
    lv = axe__arena_alloc(p->arena, sizeof *lv);
    if (lv == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    AXE_TRY(axe__synth_ldsm_seeds(p, s, lv, diag));
    *slot = lv;
    return AXE_OK;
}

/* Whether copy "s" reads tensor "ti" whole into a whole register of its
 * dtype and shape (axe__smem_ldsm_copy); where it reads "ti" into a
 * register of its 4-, 8- or 16-bit dtype otherwise, why it has no rows
 * into "w" (copy "k"). */
static bool rows_copy(const axe_program *p, const ax_stmt *s, int k, int ti,
                      rows_why *w)
{
    const ax_tensor *d, *t = &p->tensors[ti];
    int bits = axe_dtype_bit_width(t->dtype);
    if (axe__smem_ldsm_copy(p, s, ti))
        return true;
    if (s->kind != AX_ST_OP || s->dead || s->op != AX_OP_COPY ||
        s->nargs != 2 || s->args[1].tensor != ti)
        return false;
    d = &p->tensors[s->args[0].tensor];
    if (d->mem != AX_MEM_REGISTER || d->dtype != t->dtype ||
        (bits != 4 && bits != 8 && bits != 16))
        return false;
    if (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP &&
        s->scope != AX_SCOPE_CTA)
        why_not(w, k, "it runs at %s scope (ldmatrix: warp, warpgroup or CTA)",
                axe__scope_name(s->scope));
    else if (!axe__synth_ref_whole(p, &s->args[1]))
        why_not(w, k,
                "it reads a region, a view or a broadcast of '%s' (rows "
                "come from a copy of the whole tensor)",
                t->name);
    else
        why_not(w, k, "it writes a part of '%s', or another shape", d->name);
    return false;
}

/* The candidates of copy "k" from its register's ldmatrix rows
 * (ldmatrix.trans's with "trans", 16-bit tensors only): a written
 * register's layout, or an auto one's on the row-major probe "q" (when it
 * compiled), then the seeds' leaves (an auto register; "seeds" holds each
 * copy's, computed once) that differ from it; why none was measured into
 * "w". */
static axe_status from_copy(axe_program *p, const decided *d, int ti, int k,
                            bool trans, const axe_program *q, pick *b,
                            ax_synth_leaves **seeds, rows_why *w,
                            axe_diag *diag)
{
    const ax_stmt *s = p->ops[k];
    const ax_tensor *reg;
    const axe_layout *rl = NULL;
    ax_synth_leaves *lv;
    if ((trans && axe_dtype_bit_width(p->tensors[ti].dtype) != 16) ||
        !rows_copy(p, s, k, ti, w))
        return AXE_OK;
    reg = &p->tensors[s->args[0].tensor];
    if (!reg->autolayout || q != NULL)
        rl = reg->autolayout ? &q->tensors[s->args[0].tensor].layout
                             : &reg->layout;
    if (rl != NULL)
        AXE_TRY(from_ldsm_rows(
            p, d, ti, rl,
            (origin){p->tensors[ti].ndim - 1, false, k, false, trans}, b, w));
    if (!reg->autolayout)
        return AXE_OK;
    AXE_TRY(seeds_of(p, s, &seeds[k], diag));
    lv = seeds[k];
    for (int i = 0; i < lv->n; i++)
        if (rl == NULL || !axe_layout_equal(rl, &lv->leaf[i].layout))
            AXE_TRY(from_ldsm_rows(
                p, d, ti, &lv->leaf[i].layout,
                (origin){p->tensors[ti].ndim - 1, false, k, true, trans}, b,
                w));
    if (rl == NULL && lv->n == 0)
        why_not(w, k,
                "'%s' is 'layout auto', the row-major probe does not "
                "compile, and no seed layout of '%s' gives it an ldmatrix "
                "leaf",
                reg->name, p->tensors[ti].name);
    return AXE_OK;
}

/* Tensor "ti" of "p", the tensors before it decided in "d": its layout
 * and report entry. The probe on the row-major layout (the parsed
 * placeholder) gives the "before" ways and serves as the row-major
 * placeholder's probe. */
static axe_status synth_one(axe_program *p, decided *d, int ti,
                            ax_synth_report *r, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    ax_synth_tensor *e = &r->tensors[r->ntensors++];
    axe_program *q = NULL;
    measure m0;
    pick b = {0};
    ax_synth_leaves **seeds;
    rows_why w = {-1, false, ""};
    axe_diag rm;
    char sw[24] = "no swizzle", order[20] = "",
         before[32] = "? (row-major does not compile)";
    axe_status st;
    e->tensor = ti;
    e->no_ldsm_op = -1;
    e->no_ldsm[0] = '\0';
    m0.n = 1;
    m0.max = -1;
    axe_diag_clear(&rm);
    st = probe(p, d, &q, NULL, &rm);
    if (st == AXE_OK)
        st = measured(q, ti, &m0, &rm);
    if (st == AXE_OK && m0.n == 0)
        (void)snprintf(e->how, sizeof e->how,
                       "row-major: no operator accesses it");
    for (int f = t->ndim - 1; st == AXE_OK && m0.n > 0 && f >= 0; f--)
        if (f == t->ndim - 1 || copy_runs_along(q, ti, f))
            st = from_placeholder(p, d, ti, f, f == t->ndim - 1 ? q : NULL, &b,
                                  &rm);
    /* where the row-major probe fails (a copy that only the rows' layout
     * schedules), the rows' candidates may still compile; plain rows
     * first, every copy, then .trans rows (16-bit) */
    seeds = m0.n > 0
                ? axe__arena_alloc(p->arena, (size_t)p->nops * sizeof *seeds)
                : NULL;
    if (m0.n > 0 && seeds == NULL)
        st = axe__fail(&rm, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int k = 0; st != AXE_ERR_NO_MEMORY && m0.n > 0 && k < 2 * p->nops; k++)
        if (from_copy(p, d, ti, k % p->nops, k >= p->nops,
                      st == AXE_OK ? q : NULL, &b, seeds, &w,
                      &rm) == AXE_ERR_NO_MEMORY)
            st = AXE_ERR_NO_MEMORY;
    e->no_ldsm_op = w.measured ? -1 : w.op;
    (void)snprintf(e->no_ldsm, sizeof e->no_ldsm, "%s",
                   w.measured ? "" : w.text);
    if (q != NULL)
        axe_program_free(q);
    if (st == AXE_ERR_NO_MEMORY || (st != AXE_OK && !b.have) || m0.n == 0) {
        if (st != AXE_OK)
            *diag = rm;
        return st;
    }
    if (!b.have)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "shared tensor '%s': no synthesized layout "
                         "compiles",
                         t->name);
    d->set[ti] = true;
    d->lay[ti] = b.l;
    /* the parameters are below 63 (sema), ways at most 32 */
    if (b.l.swizzle.present)
        (void)snprintf(sw, sizeof sw, "Swizzle<%u,%u,%u>",
                       (unsigned char)b.l.swizzle.per_element,
                       (unsigned char)b.l.swizzle.len,
                       (unsigned char)b.l.swizzle.atom);
    if (b.o.order != t->ndim - 1)
        (void)snprintf(order, sizeof order, ", dim %u first",
                       (unsigned char)b.o.order);
    if (m0.max >= 0)
        (void)snprintf(before, sizeof before, "%u", (unsigned char)m0.max);
    if (b.o.ldsm >= 0) /* copy numbers are below 10^4 (AX_MAX_STMTS) */
        (void)snprintf(e->how, sizeof e->how,
                       "compact on the ldmatrix%s rows of copy#%u ('%s'%s); "
                       "%s: ways %s -> %u (row-major -> this, bank model)",
                       b.o.trans ? ".trans" : "", (unsigned short)b.o.ldsm,
                       p->tensors[p->ops[b.o.ldsm]->args[0].tensor].name,
                       b.o.seeded ? ", a seed's leaf" : "", sw, before,
                       (unsigned char)b.m.max);
    else /* from a placeholder: the row-major probe compiled */
        (void)snprintf(
            e->how, sizeof e->how,
            "compact on its accesses' alignment runs%s%s; %s: ways "
            "%u -> %u (row-major -> this, measured by the bank "
            "model)",
            order, b.o.scalar ? ", vectors dropped (they kept conflicts)" : "",
            sw, (unsigned char)m0.max, (unsigned char)b.m.max);
    return AXE_OK;
}

axe_status axe__synth_shared(axe_program *p, ax_synth_report *r,
                             const ax_synth_kept **kept, axe_diag *diag)
{
    decided d;
    bool any = false;
    memset(&d, 0, sizeof d);
    *kept = NULL;
    for (int i = 0; i < p->ntensors; i++)
        any = any ||
              (p->tensors[i].mem == AX_MEM_SHARED && p->tensors[i].autolayout &&
               p->tensors[i].space == AX_SPACE_NONE);
    if (!any)
        return AXE_OK;
    AXE_TRY(no_auto_views(p, diag));
    d.scratch = axe__arena_alloc(p->arena, sizeof *d.scratch);
    d.win = axe__arena_alloc(p->arena, sizeof *d.win);
    if (d.scratch == NULL || d.win == NULL)
        return AXE_ERR_NO_MEMORY;
    d.win->have = false;
    for (int i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_SHARED && p->tensors[i].autolayout &&
            p->tensors[i].space == AX_SPACE_NONE)
            AXE_TRY(synth_one(p, &d, i, r, diag));
    for (int i = 0; i < p->ntensors; i++)
        if (d.set[i])
            p->tensors[i].layout = d.lay[i];
    /* the winner measured last was probed with every decided layout */
    *kept = d.win->have ? d.win : NULL;
    return AXE_OK;
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
    if (r == NULL || p->core) /* a core kernel has no warps */
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
