/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ldmatrix-shaped register layouts as copy-anchor leaves (issue 15;
 * docs/compiler.md, "Layout synthesis"). For a copy from a whole shared
 * tensor of 4-, 8- or 16-bit elements (or a region of one that is whole
 * iters of each dimension starting on a 16-byte row: its layout from the
 * region's first element) into a whole `layout auto` register of its
 * dtype and shape at warp, warpgroup or CTA scope, the register layouts
 * for which every 32-bit register word is an ldmatrix register
 * (compiler_copy_ldsm.c's conditions) are read off the shared layout's
 * iters, the fastest first: the address digits of a 16-byte row (E =
 * 128 / bits elements) get
 *   plain:  W = 32 / bits elements (m, stride 1), then lane % 4
 *           (laneid, stride 1): lane 4r + c's word is bytes 4c of a row;
 *   .trans: (16-bit only) the row's 8 elements on lane / 4 (laneid,
 *           stride 4): lane l's word is column l / 4 of two rows;
 * and the rows, dealt over the remaining iters (each one in turn first,
 * the others by stride), take in some order the row digits: plain, 8
 * rows of a matrix on lane / 4 (laneid, stride 4); .trans, rows 2c + e
 * (e: m stride 1, c: laneid stride 1); then the words (m, stride W) and
 * the warps (warpid; wid_in_wg at warpgroup scope). Every candidate is
 * evaluated element by element (axe_layout_apply_base of the register layout
 * against the shared tile address of the same element) on the ldmatrix
 * conditions, and warp 0's instructions are counted by the bank model
 * (axe__inst_leaf_add). Kept: the plain candidate with the fewest
 * wavefronts, and for .trans the one with the fewest per dimension that
 * holds a word's two rows (the first on ties). Cost, in the copy
 * anchor's unit: ldmatrix instructions per thread (words / matrices per
 * instruction) times the scope's threads. Invariant: a kept leaf's
 * legality was evaluated, never assumed; dispatch still decides the
 * copy's ldmatrix on its compiled plan. A copy from shared memory into a
 * register with no leaf gets the first condition it fails as text
 * (ax_synth_ldsm.why; `axe synth` and --explain print it).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_copy_ldsm.h"
#include "compiler_smem.h"
#include "compiler_synth.h"

#define LS_ITERS 16
#define LS_PIECES 8

typedef struct ls_digit {
    int64_t extent, stride;
    const char *axis;
} ls_digit;

/* A copy of the kind above: its shared tensor's iters (in the grouped
 * layout's order, dimension by dimension, outer first) and every
 * element's tile address. */
typedef struct ls_ctx {
    const axe_program *p;
    const ax_tensor *reg, *sh;
    const axe_layout_swizzle *sw;
    ax_scope scope;
    int64_t size, bits, epw, row, threads, nwarps, span, words;
    int n, niter, idim[LS_ITERS];
    int made; /* candidates laid out over the iters (try_one) */
    int64_t iext[LS_ITERS], istr[LS_ITERS];
    int64_t *addr; /* per logical element (size) */
    int64_t *tab;  /* per (thread, register element): its address */
} ls_ctx;

/* Why no leaf, into "why" (AX_SYNTH_WHY bytes; NULL: not wanted); false. */
static bool no_leaf(char *why, const char *fmt, ...)
{
    va_list ap;
    if (why == NULL)
        return false;
    va_start(ap, fmt);
    (void)vsnprintf(why, AX_SYNTH_WHY, fmt, ap);
    va_end(ap);
    return false;
}

/* Register layouts being dealt: per iter its pieces, inner first. */
typedef struct ls_deal {
    int64_t rem[LS_ITERS];
    int cnt[LS_ITERS];
    ls_digit piece[LS_ITERS][LS_PIECES];
    int pair_dim; /* .trans: the dim of the rows' e digit */
} ls_deal;

/* Digits "dg" (inner first) into the iters in "order" ("no" of them),
 * each iter from its remaining inner end: a digit goes whole into an
 * iter whose remaining extent it divides, or is split where that extent
 * divides it. */
static bool deal_into(ls_deal *d, ls_digit *dg, int nd, const int *order,
                      int no, int *at)
{
    for (int k = 0; k < nd; k++)
        while (dg[k].extent > 1) {
            int j;
            ls_digit *pc;
            while (*at < no && d->rem[order[*at]] == 1)
                (*at)++;
            if (*at == no)
                return false;
            j = order[*at];
            if (d->cnt[j] == LS_PIECES)
                return false;
            pc = &d->piece[j][d->cnt[j]++];
            *pc = dg[k];
            if (d->rem[j] % dg[k].extent == 0) {
                d->rem[j] /= dg[k].extent;
                dg[k].extent = 1;
            } else if (dg[k].extent % d->rem[j] == 0) {
                pc->extent = d->rem[j];
                dg[k].extent /= d->rem[j];
                dg[k].stride *= d->rem[j];
                d->rem[j] = 1;
            } else
                return false;
        }
    return true;
}

/* The register layout of deal "d" (every iter dealt whole). */
static bool deal_layout(const ls_ctx *c, const ls_deal *d, axe_layout *out)
{
    axe_layout_init(out);
    for (int dim = 0; dim < c->n; dim++) {
        bool any = false;
        for (int j = 0; j < c->niter; j++)
            for (int k = c->idim[j] == dim ? d->cnt[j] - 1 : -1; k >= 0; k--) {
                const ls_digit *pc = &d->piece[j][k];
                any = true;
                if (axe_layout_push_shard(out, pc->extent, pc->stride,
                                          pc->axis) != AXE_OK)
                    return false;
            }
        if (!any && axe_layout_push_shard(out, 1, 0, "m") != AXE_OK)
            return false;
    }
    return true;
}

/* The thread rank that one step of axis "a" moves in a register layout
 * at scope "sc" (laneid, tx; the warp axis; at warpgroup scope
 * tid_in_wg and wid_in_wg in place of tx and warpid; at CTA scope also
 * the warpgroup axes, wgid counting whole warpgroups); 0 when "a" is no
 * thread axis of that scope. The ldmatrix leaves and the sector counter
 * (compiler_synth_sectors.c) read register layouts by it. */
int64_t axe__synth_axis_step(ax_scope sc, const char *a)
{
    bool wg = sc == AX_SCOPE_WARPGROUP, cta = sc == AX_SCOPE_CTA;
    if (strcmp(a, "laneid") == 0 || (!wg && strcmp(a, "tx") == 0) ||
        ((wg || cta) && strcmp(a, "tid_in_wg") == 0))
        return 1;
    if ((!wg && strcmp(a, "warpid") == 0) ||
        ((wg || cta) && strcmp(a, "wid_in_wg") == 0))
        return AX_WARP;
    return cta && strcmp(a, "wgid") == 0 ? 4 * AX_WARP : 0;
}

/* c->tab from layout "l": false when an element is not on one (warp,
 * lane, register element) of the scope, each once. */
static bool fill_table(ls_ctx *c, const axe_layout *l)
{
    int64_t cells = c->threads * c->span;
    for (int64_t i = 0; i < cells; i++)
        c->tab[i] = -1;
    if (l->nreplica > 0 || l->swizzle.present)
        return false;
    for (int64_t x = 0; x < c->size; x++) {
        axe_point pt;
        int64_t t = 0, v = 0;
        if (axe_layout_apply_base(l, x, &pt, NULL) != AXE_OK)
            return false;
        for (int k = 0; k < pt.n; k++) {
            int64_t step = axe__synth_axis_step(c->scope, pt.axis[k]);
            if (strcmp(pt.axis[k], "m") == 0)
                v = pt.v[k];
            else if (step > 0 &&
                     (strcmp(pt.axis[k], "laneid") != 0 || pt.v[k] < AX_WARP))
                t += step * pt.v[k];
            else if (pt.v[k] != 0)
                return false;
        }
        if (t >= c->threads || v >= c->span || c->addr[x] < 0 ||
            c->tab[t * c->span + v] >= 0)
            return false;
        c->tab[t * c->span + v] = c->addr[x];
    }
    return c->size == cells;
}

/* Address of register element "v" of lane "l" of warp "w". */
static int64_t at(const ls_ctx *c, int64_t w, int64_t l, int64_t v)
{
    return c->tab[(w * AX_WARP + l) * c->span + v];
}

/* compiler_copy_ldsm.c's conditions on c->tab: plain, word g of lane l is
 * bytes 4 (l % 4) of the 16-byte row lane 4 (l / 4)'s word g starts;
 * .trans, column l / 4 of rows 2 (l % 4), 2 (l % 4) + 1. */
static bool legal(const ls_ctx *c, bool trans)
{
    int64_t w = c->epw;
    for (int64_t wp = 0; wp < c->nwarps; wp++)
        for (int64_t g = 0; g < c->words; g++)
            for (int l = 0; l < AX_WARP; l++)
                for (int64_t e = 0; e < w; e++) {
                    int64_t a = at(c, wp, l, w * g + e);
                    if (trans
                            ? a != at(c, wp, l % 4, w * g + e) + l / 4 ||
                                  (l < 4 && a % c->row != 0)
                            : a != at(c, wp, l & ~3, w * g) + w * (l % 4) + e ||
                                  (l % 4 == 0 && e == 0 && a % c->row != 0))
                        return false;
                }
    return true;
}

/* Warp 0's ldmatrix instructions counted by the bank model into "leaf"
 * (compiler_copy_ldsm.c's ldsm_counts on c->tab). */
static axe_status count(const ls_ctx *c, bool trans, ax_inst_leaf *leaf,
                        axe_diag *diag)
{
    int n = axe__ldsm_matrices(c->words);
    memset(leaf, 0, sizeof *leaf);
    for (int64_t q = 0; q < c->words / n; q++) {
        ax_tile_access a;
        memset(&a, 0, sizeof a);
        a.vec = c->row;
        for (int ln = 0; ln < 8 * n; ln++) {
            int64_t g = q * n + ln / 8, i = ln % 8;
            a.active[ln] = true;
            a.elem[ln] = trans ? at(c, 0, i / 2, c->epw * g + i % 2)
                               : at(c, 0, 4 * i, c->epw * g);
        }
        AXE_TRY(axe__inst_leaf_add(leaf, &a, 1, c->bits, c->sw, diag));
    }
    return AXE_OK;
}

/* compiler_synth.h */
bool axe__synth_region_iters(const axe_layout *g, const int *seps, int d,
                             int64_t len, int64_t row, ax_region_iter *out,
                             int *n)
{
    int64_t inner = 1;
    for (int i = seps[d + 1] - 1; i >= seps[d]; i--) {
        const axe_iter *it = &g->shard[i];
        int64_t need = len / inner, take;
        if (it->extent == 1)
            continue;
        if (need == 1 && row == 0)
            break;
        if (strcmp(it->axis, "m") != 0 || it->stride < 1)
            return false;
        if (need == 1) {
            if (it->stride % row != 0)
                return false;
            continue;
        }
        take = need % it->extent == 0   ? it->extent
               : it->extent % need == 0 ? need
                                        : 0;
        if (take == 0 || *n == AXE_LAYOUT_MAX_SHARD ||
            (row > 0 && take < it->extent && (it->stride * take) % row != 0))
            return false;
        out[(*n)++] = (ax_region_iter){d, take, it->stride};
        inner *= take;
    }
    return inner == len;
}

/* The iters of dimension "d" of grouped "g" (seps[d] .. seps[d + 1])
 * that region [a, a + len) of it takes (axe__synth_region_iters with the
 * 16-byte "row"), pushed onto "out" outer first, the start a multiple of
 * "len" ("gcd": what a constant or every term of a dynamic start is
 * known to be a multiple of), so that the region starts on a 16-byte row
 * whatever the start; false otherwise. */
static bool region_dim(const axe_layout *g, const int *seps, int d, int64_t len,
                       int64_t gcd, int64_t row, axe_layout *out)
{
    ax_region_iter in[AXE_LAYOUT_MAX_SHARD];
    int n = 0;
    if (gcd % len != 0 ||
        !axe__synth_region_iters(g, seps, d, len, row, in, &n))
        return false;
    for (int i = n - 1; i >= 0; i--)
        if (axe_layout_push_shard(out, in[i].extent, in[i].stride, "m") !=
            AXE_OK)
            return false;
    return n > 0 || axe_layout_push_shard(out, 1, 0, "m") == AXE_OK;
}

/* The layout of region "r" (no view, broadcast or mask: source_layout
 * refuses those) of shared tensor "t" (the shape of the region, its
 * addresses relative to the region's first element, the swizzle kept)
 * when every dimension's region is whole iters of the dimension starting
 * on a 16-byte row (region_dim); false otherwise. */
static bool region_layout(const ax_tensor *t, const ax_ref *r, int64_t row,
                          axe_layout *out, char *why)
{
    axe_layout l = t->layout, g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    l.swizzle.present = false;
    if (r->ndim != t->ndim)
        return no_leaf(why, "its region of '%s' has %d dimensions, '%s' %d",
                       t->name, r->ndim, t->name, t->ndim);
    if (l.nreplica > 0 ||
        axe_layout_group(&l, t->shape, t->ndim, &g, seps, NULL) != AXE_OK)
        return no_leaf(why,
                       "the layout of '%s' is replicated or does not "
                       "group over its shape",
                       t->name);
    axe_layout_init(out);
    for (int d = 0; d < t->ndim; d++) {
        const ax_expr *a = r->start[d];
        int64_t gcd = a == NULL              ? 0
                      : a->kind == AX_EX_INT ? a->value
                                             : axe__expr_gcd(a);
        if (!region_dim(&g, seps, d, r->len[d], gcd, row, out))
            return no_leaf(why,
                           "its region of '%s' is not whole iters of "
                           "dim %d starting on a 16-byte row (length "
                           "%lld)",
                           t->name, d, (long long)r->len[d]);
    }
    out->swizzle = t->layout.swizzle;
    return true;
}

/* The shared layout the leaves of copy "s" read: its source tensor's
 * when whole (axe__smem_ldsm_copy), a region's (region_layout) when "s"
 * reads one into a whole register of its dtype and the region's shape;
 * false otherwise, why into "why" where "s" is a copy from shared memory
 * into a register (no_leaf). */
static bool source_layout(const axe_program *p, const ax_stmt *s,
                          axe_layout *out, char *why)
{
    int bits;
    bool shape;
    const ax_tensor *d, *t;
    if (s->kind != AX_ST_OP || s->dead || s->op != AX_OP_COPY ||
        s->nargs != 2 || s->args[1].tensor < 0)
        return false;
    d = &p->tensors[s->args[0].tensor];
    t = &p->tensors[s->args[1].tensor];
    if (axe__smem_ldsm_copy(p, s, s->args[1].tensor)) {
        *out = t->layout;
        return true;
    }
    if (d->mem != AX_MEM_REGISTER || t->mem != AX_MEM_SHARED)
        return false;
    bits = axe_dtype_bit_width(t->dtype);
    if (d->dtype != t->dtype)
        return no_leaf(why, "'%s' is %s and '%s' %s (ldmatrix keeps the dtype)",
                       t->name, axe_dtype_name(t->dtype), d->name,
                       axe_dtype_name(d->dtype));
    if (bits != 4 && bits != 8 && bits != 16)
        return no_leaf(why,
                       "'%s' has %d-bit elements (ldmatrix moves 4-, "
                       "8- or 16-bit ones)",
                       t->name, bits);
    if (!axe__synth_whole(p, &s->args[0]))
        return no_leaf(why, "it writes a part of '%s', not the whole register",
                       d->name);
    if (s->args[1].is_view || s->args[1].bdim >= 0 || s->args[1].any_masked)
        return no_leaf(why,
                       "it reads a view, a broadcast or a masked "
                       "region of '%s'",
                       t->name);
    shape = s->args[1].ndim == d->ndim;
    for (int k = 0; shape && k < d->ndim; k++)
        shape = s->args[1].len[k] == d->shape[k];
    if (!shape)
        return no_leaf(why, "its region of '%s' is not of '%s''s shape",
                       t->name, d->name);
    return region_layout(t, &s->args[1], 128 / bits, out, why);
}

/* Whether copy "s" with register operand "reg" is of this file's kind,
 * its context into "c" with its shared source on layout "shl" (over the
 * register's shape; c->addr and c->tab allocated: ls_free); why not into
 * "why" (no_leaf) where "s" copies from shared memory into a register. */
static bool setup(const axe_program *p, const ax_stmt *s, int reg,
                  const axe_layout *shl, ls_ctx *c, char *why)
{
    axe_layout g, base;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    memset(c, 0, sizeof *c);
    if (reg != 0 || !source_layout(p, s, &base, why))
        return false;
    if (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP &&
        s->scope != AX_SCOPE_CTA)
        return no_leaf(why,
                       "it runs at %s scope (ldmatrix: warp, warpgroup "
                       "or CTA)",
                       axe__scope_name(s->scope));
    c->p = p;
    c->scope = s->scope;
    c->reg = &p->tensors[s->args[0].tensor];
    c->sh = &p->tensors[s->args[1].tensor];
    c->sw = shl->swizzle.present ? &shl->swizzle : NULL;
    c->bits = axe_dtype_bit_width(c->sh->dtype);
    c->epw = 32 / c->bits;
    c->row = 128 / c->bits;
    c->threads = axe__scope_threads(p, s->scope);
    c->nwarps = c->threads / AX_WARP;
    c->n = c->reg->ndim;
    c->size = 1;
    for (int d = 0; d < c->n; d++)
        c->size *= c->reg->shape[d];
    if (c->threads % AX_WARP != 0 || c->threads == 0)
        return no_leaf(why, "the %s's %lld threads are not whole warps",
                       axe__scope_name(s->scope), (long long)c->threads);
    if (c->size % (c->threads * c->epw) != 0)
        return no_leaf(why,
                       "its %lld elements are not whole 32-bit words "
                       "(%lld elements) on each of the %s's %lld threads",
                       (long long)c->size, (long long)c->epw,
                       axe__scope_name(s->scope), (long long)c->threads);
    if (c->sw != NULL && ((int64_t)1 << c->sw->per_element) < c->row)
        return no_leaf(why,
                       "the swizzle of '%s' breaks its 16-byte rows (it "
                       "moves runs of %lld elements, a row is %lld)",
                       c->sh->name, (long long)1 << c->sw->per_element,
                       (long long)c->row);
    c->span = c->size / c->threads;
    c->words = c->span / c->epw;
    if (c->words > AX_LDSM_MAX_WORDS)
        return no_leaf(why,
                       "%lld 32-bit words per thread, more than an "
                       "ldmatrix copy's %d",
                       (long long)c->words, AX_LDSM_MAX_WORDS);
    if (c->span * c->bits > 8 * AX_MAX_REGISTER_BYTES)
        return no_leaf(why,
                       "%lld bytes per thread pass a thread's %d bytes "
                       "of registers",
                       (long long)(c->span * c->bits / 8),
                       AX_MAX_REGISTER_BYTES);
    base = *shl;
    base.swizzle.present = false;
    if (base.nreplica > 0 ||
        axe_layout_group(&base, c->reg->shape, c->n, &g, seps, NULL) != AXE_OK)
        return no_leaf(why,
                       "the layout of '%s' is replicated or does not "
                       "group over '%s''s shape",
                       c->sh->name, c->reg->name);
    for (int d = 0; d < c->n; d++)
        for (int i = seps[d]; i < seps[d + 1]; i++)
            if (g.shard[i].extent > 1) {
                if (c->niter == LS_ITERS || strcmp(g.shard[i].axis, "m") != 0 ||
                    g.shard[i].stride < 1)
                    return no_leaf(why,
                                   "the layout of '%s' has more than %d "
                                   "iters, or one not on m at a "
                                   "positive stride",
                                   c->sh->name, LS_ITERS);
                c->idim[c->niter] = d;
                c->iext[c->niter] = g.shard[i].extent;
                c->istr[c->niter++] = g.shard[i].stride;
            }
    c->addr = malloc((size_t)c->size * sizeof *c->addr);
    c->tab = malloc((size_t)c->size * sizeof *c->tab);
    if (c->addr == NULL || c->tab == NULL)
        return true; /* the caller reports it */
    for (int64_t x = 0; x < c->size; x++)
        c->addr[x] = axe__smem_tile_addr(&base, x);
    return true;
}

static void ls_free(ls_ctx *c)
{
    free(c->addr);
    free(c->tab);
}

/* A candidate: its layout, whether .trans, warp 0's count. */
typedef struct ls_cand {
    bool have, trans;
    int pair_dim;
    axe_layout layout;
    ax_inst_leaf leaf;
} ls_cand;

/* The deal of form "trans" with the row groups in order "perm" and the
 * iter "first" first among those past the row, or false. */
static bool make(const ls_ctx *c, bool trans, const int *perm, int first,
                 ls_deal *d)
{
    int order[LS_ITERS], no = 0, pos = 0;
    ls_digit in_row[2], groups[3][2];
    int ng[3];
    memset(d, 0, sizeof *d);
    for (int j = 0; j < c->niter; j++)
        d->rem[j] = c->iext[j];
    for (int j = 0; j < c->niter; j++) /* by stride, the fastest first */
        order[no++] = j;
    for (int i = 0; i < no; i++)
        for (int k = i + 1; k < no; k++)
            if (c->istr[order[k]] < c->istr[order[i]]) {
                int t = order[i];
                order[i] = order[k];
                order[k] = t;
            }
    if (trans) {
        in_row[0] = (ls_digit){8, 4, "laneid"};
        groups[0][0] = (ls_digit){2, 1, "m"};
        groups[0][1] = (ls_digit){4, 1, "laneid"};
        ng[0] = 2;
    } else {
        in_row[0] = (ls_digit){c->epw, 1, "m"};
        in_row[1] = (ls_digit){4, 1, "laneid"};
        groups[0][0] = (ls_digit){8, 4, "laneid"};
        ng[0] = 1;
    }
    groups[1][0] = (ls_digit){c->words, c->epw, "m"};
    groups[2][0] = (ls_digit){
        c->nwarps, 1, c->scope == AX_SCOPE_WARPGROUP ? "wid_in_wg" : "warpid"};
    ng[1] = ng[2] = 1;
    if (!deal_into(d, in_row, trans ? 1 : 2, order, no, &pos))
        return false;
    /* past the row: "first", then the others by stride */
    if (first < 0 || first >= c->niter || d->rem[first] == 1)
        return false;
    for (int i = 0, k = 0; i < no; i++)
        if (order[i] != first)
            order[k++] = order[i];
    memmove(order + 1, order, (size_t)(no - 1) * sizeof *order);
    order[0] = first;
    pos = 0;
    for (int k = 0; k < 3; k++)
        if (!deal_into(d, groups[perm[k]], ng[perm[k]], order, no, &pos))
            return false;
    for (int j = 0; j < c->niter; j++) {
        if (d->rem[j] != 1)
            return false;
        for (int k = 0; k < d->cnt[j]; k++) /* .trans: the rows' e digit */
            if (strcmp(d->piece[j][k].axis, "m") == 0 &&
                d->piece[j][k].stride == 1)
                d->pair_dim = c->idim[j];
    }
    return true;
}

/* Candidate (trans, perm, first) evaluated into "best" (per pair dim for
 * .trans) when legal and with fewer wavefronts. */
static axe_status try_one(ls_ctx *c, bool trans, const int *perm, int first,
                          ls_cand *best, axe_diag *diag)
{
    ls_deal d;
    axe_layout l;
    ax_inst_leaf leaf;
    ls_cand *b;
    if (!make(c, trans, perm, first, &d))
        return AXE_OK;
    if (!deal_layout(c, &d, &l) || !fill_table(c, &l))
        return AXE_OK;
    c->made++;
    if (!legal(c, trans))
        return AXE_OK;
    AXE_TRY(count(c, trans, &leaf, diag));
    b = &best[trans ? 1 + d.pair_dim : 0];
    if (!b->have || leaf.wavefronts < b->leaf.wavefronts)
        *b = (ls_cand){true, trans, d.pair_dim, l, leaf};
    return AXE_OK;
}

static void leaf_text(const ls_ctx *c, const ls_cand *k, char *buf, size_t cap)
{
    int n = axe__ldsm_matrices(c->words);
    char pair[40] = "";
    if (k->trans)
        (void)snprintf(pair, sizeof pair, ", word pairs along dim %d",
                       k->pair_dim);
    (void)snprintf(buf, cap,
                   "ldmatrix.x%d%s from '%s'%s, %lld per thread, %lld "
                   "wavefronts per warp",
                   n, k->trans ? ".trans" : "", c->sh->name, pair,
                   (long long)(c->words / n), (long long)k->leaf.wavefronts);
}

/* compiler_synth.h */
axe_status axe__synth_ldsm_leaves_on(const axe_program *p, const ax_stmt *s,
                                     int reg, const axe_layout *shl,
                                     ax_synth_ldsm *out, axe_diag *diag)
{
    static const int perms[2][3] = {{0, 1, 2}, {0, 2, 1}};
    ls_cand best[1 + AX_MAX_DIMS];
    ls_ctx c;
    axe_status st = AXE_OK;
    out->n = 0;
    out->why[0] = '\0';
    if (!setup(p, s, reg, shl, &c, out->why))
        return AXE_OK;
    if (c.addr == NULL || c.tab == NULL) {
        ls_free(&c);
        return axe__fail(diag, AXE_ERR_NO_MEMORY, s->off,
                         "ldmatrix leaves of a copy into '%s'", c.reg->name);
    }
    memset(best, 0, sizeof best);
    for (int t = 0; t < (c.bits == 16 ? 2 : 1); t++)
        for (int k = 0; k < 2; k++)
            for (int f = 0; f < c.niter && st == AXE_OK; f++)
                st = try_one(&c, t == 1, perms[k], f, best, diag);
    for (int b = 0; st == AXE_OK && b <= c.n && out->n < AX_SYNTH_LDSM_LEAVES;
         b++)
        if (best[b].have) {
            ax_synth_leaf *f = &out->leaf[out->n];
            f->layout = best[b].layout;
            f->cost =
                (double)(c.words / axe__ldsm_matrices(c.words) * c.threads);
            leaf_text(&c, &best[b], f->text, sizeof f->text);
            out->n++;
        }
    if (st == AXE_OK && out->n == 0 && c.made == 0)
        (void)no_leaf(out->why,
                      "ldmatrix's lanes, words and warps deal over the "
                      "iters of '%s', each element once, in none of the "
                      "%d ways tried",
                      c.sh->name, (c.bits == 16 ? 2 : 1) * 2 * c.niter);
    else if (st == AXE_OK && out->n == 0)
        (void)no_leaf(out->why,
                      "none of the %d register layouts dealt over the iters "
                      "of '%s' meets ldmatrix's conditions (words of 16-byte "
                      "rows on 16-byte starts)",
                      c.made, c.sh->name);
    ls_free(&c);
    return st;
}

/* compiler_synth.h */
axe_status axe__synth_ldsm_leaves(const axe_program *p, const ax_stmt *s,
                                  int reg, ax_synth_ldsm *out, axe_diag *diag)
{
    axe_layout l;
    out->n = 0;
    out->why[0] = '\0';
    if (!source_layout(p, s, &l, out->why))
        return AXE_OK;
    return axe__synth_ldsm_leaves_on(p, s, reg, &l, out, diag);
}

/* compiler_synth.h */
bool axe__synth_ldsm_accesses(const axe_program *p, const ax_stmt *s, int reg,
                              int64_t *out)
{
    ls_ctx c;
    bool yes = false;
    axe_layout l;
    if (!source_layout(p, s, &l, NULL) || !setup(p, s, reg, &l, &c, NULL))
        return false;
    if (c.addr != NULL && c.tab != NULL &&
        fill_table(&c, &p->tensors[s->args[0].tensor].layout) &&
        (legal(&c, false) || (c.bits == 16 && legal(&c, true)))) {
        yes = true;
        *out = c.words / axe__ldsm_matrices(c.words) * c.threads;
    }
    ls_free(&c);
    return yes;
}
