/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Coalesced copy leaves whose vectors span dimensions (issue 15): the
 * memory operand of a copy anchor split into its memory iters (each
 * dimension's iters, outer first: the "pieces"), and the chain of pieces
 * that make one run of consecutive addresses from stride 1 (each piece's
 * stride the product of the extents of the pieces before it). Where the
 * chain runs through two or more pieces, a w-element vector dealt over
 * the pieces in stride order (compiler_synth_anchor.c) is w consecutive
 * elements of memory, w-aligned when w divides the chain's length, the
 * base (offsets and starts) and every stride outside the chain, and
 * inside the aligned runs the operand's swizzle keeps contiguous. No
 * chain through a masked operand, a piece on another axis, a stride of
 * 0 or below, or a dimension of several iters that the copy's region
 * does not take whole from 0.
 */
#include <string.h>

#include "compiler_synth.h"

/* Adds piece (extent e, stride s) of dimension d; false when full. */
static bool add_piece(ax_synth_merge *m, int64_t e, int64_t s, int d)
{
    if (m->np == AXE_LAYOUT_MAX_DIMS)
        return false;
    m->ext[m->np] = e;
    m->stride[m->np] = s;
    m->dim[m->np++] = d;
    return true;
}

/* The pieces of dimension d of "r" (shape[d] elements), and in *rs the
 * stride its start moves (0: a start must be 0); false when there are
 * none to take. */
static bool dim_pieces(const axe_layout *g, const int *seps, const ax_ref *r,
                       int d, int64_t len, int64_t full, ax_synth_merge *m,
                       int64_t *rs)
{
    int k = 0, i, last = -1;
    *rs = 0;
    for (i = seps[d]; i < seps[d + 1]; i++)
        if (g->shard[i].extent > 1) {
            if (strcmp(g->shard[i].axis, "m") != 0 || g->shard[i].stride <= 0)
                return false;
            k++;
            last = i;
        }
    if (k <= 1) {
        *rs = last >= 0 ? g->shard[last].stride : 0;
        return add_piece(m, len, len > 1 ? *rs : 0, d);
    }
    if (len != full ||
        (r->ndim > 0 && r->start[d] != NULL &&
         (r->start[d]->kind != AX_EX_INT || r->start[d]->value != 0)))
        return false;
    for (i = seps[d]; i < seps[d + 1]; i++)
        if (g->shard[i].extent > 1 &&
            !add_piece(m, g->shard[i].extent, g->shard[i].stride, d))
            return false;
    return true;
}

/* Whether piece a comes after piece b: extent-1 pieces last, the others
 * by stride. */
static bool after(const ax_synth_merge *m, int a, int b)
{
    if ((m->ext[a] == 1) != (m->ext[b] == 1))
        return m->ext[a] == 1;
    return m->ext[a] > 1 && m->stride[a] > m->stride[b];
}

/* The pieces in stride order, extent-1 ones last (stable). */
static void piece_order(ax_synth_merge *m)
{
    for (int i = 0; i < m->np; i++) {
        int j = i;
        for (; j > 0 && after(m, m->order[j - 1], i); j--)
            m->order[j] = m->order[j - 1];
        m->order[j] = i;
    }
}

bool axe__synth_merge_of(const axe_program *p, const ax_ref *r,
                         const int64_t *shape, int n, int64_t *rstride,
                         ax_synth_merge *m)
{
    const ax_tensor *t = &p->tensors[r->tensor];
    const axe_layout *l = r->is_view ? &r->view : &t->layout;
    const int64_t *full = r->is_view ? shape : t->shape;
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, i;
    memset(m, 0, sizeof *m);
    if (r->any_masked || r->bdim >= 0 || n > AXE_LAYOUT_MAX_DIMS ||
        axe_layout_group(l, full, n, &g, seps, NULL) != AXE_OK)
        return false;
    for (d = 0; d < n; d++)
        if (!dim_pieces(&g, seps, r, d, shape[d], full[d], m, &rstride[d]))
            return false;
    piece_order(m);
    m->run = 1;
    for (i = 0; i < m->np && m->ext[m->order[i]] > 1 &&
                m->stride[m->order[i]] == m->run;
         i++)
        m->run *= m->ext[m->order[i]];
    m->nchain = i;
    for (; i < m->np; i++)
        if (m->ext[m->order[i]] > 1)
            m->align = axe__gcd(m->align, m->stride[m->order[i]]);
    m->swz = axe__swizzle_run(p, r);
    return m->nchain >= 2;
}

/* The pieces' register layout "pl" (over m->ext) as a layout over the
 * copy's shape: each dimension's pieces' iters in turn, their extent-1
 * iters dropped. */
axe_status axe__synth_merge_unsplit(const ax_synth_merge *m,
                                    const axe_layout *pl, int n,
                                    axe_layout *out)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, k, i, pushed;
    AXE_TRY(axe_layout_group(pl, m->ext, m->np, &g, seps, NULL));
    axe_layout_init(out);
    for (d = 0; d < n; d++) {
        pushed = 0;
        for (k = 0; k < m->np; k++)
            for (i = seps[k]; m->dim[k] == d && i < seps[k + 1]; i++)
                if (g.shard[i].extent > 1) {
                    AXE_TRY(axe_layout_push_shard(out, g.shard[i].extent,
                                                  g.shard[i].stride,
                                                  g.shard[i].axis));
                    pushed++;
                }
        if (pushed == 0)
            AXE_TRY(axe_layout_push_shard(out, 1, 0, "m"));
    }
    for (i = 0; i < pl->nreplica; i++)
        AXE_TRY(axe_layout_push_replica(out, pl->replica[i].extent,
                                        pl->replica[i].stride,
                                        pl->replica[i].axis));
    return AXE_OK;
}

int64_t axe__synth_merge_reg_run(const ax_synth_merge *m, const axe_layout *l)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1];
    int64_t run = 1;
    if (axe_layout_group(l, m->ext, m->np, &g, seps, NULL) != AXE_OK)
        return 1;
    for (int c = 0; c < m->nchain; c++) {
        int k = m->order[c];
        int64_t whole = 1;
        for (int i = seps[k + 1] - 1; i >= seps[k]; i--) {
            const axe_iter *it = &g.shard[i];
            if (it->extent == 1)
                continue;
            if (strcmp(it->axis, "m") != 0 || it->stride != run)
                return run;
            run *= it->extent;
            whole *= it->extent;
        }
        if (whole != m->ext[k])
            return run;
    }
    return run;
}
