/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seeds of an `auto` shared tensor's ldmatrix rows (issue 15; docs/
 * compiler.md, "Shared tensors"). The shared synthesis turns the
 * ldmatrix rows of a register read from the tensor into a candidate with
 * free row order (compiler_smem_ldsm.c), which needs the register's
 * layout; with the register `auto` too, that layout is the one register
 * synthesis chose on a probe, and where the row-major probe does not
 * compile (the packed i4 tile of a copy whose memory operand holds bytes
 * that row-major rows would split) there is none. The seeds give the
 * rows instead: the ldmatrix leaf generator (compiler_synth_ldsm.c) is
 * run against layouts of the tensor that a copy could fill or drain
 * whole rows of: the row-major layout, and for every copy that moves the
 * whole tensor, or a tile of it (tile_of), to or from memory of a written
 * layout, that operand's region made compact (its iters in the order of
 * their strides, each at the product of the extents below it), the tiles
 * row-major outside it. Each leaf fixes which logical
 * elements make each 16-byte row; the shared candidate of that register
 * makes them 16-byte contiguous and aligned, whatever the rows' order.
 * Invariant: a seed is a bijection of the tensor's shape onto [0, size);
 * a seed is only a proposal, every candidate it gives is compiled and
 * measured before it is chosen.
 */
#include <string.h>

#include "compiler_smem.h"
#include "compiler_synth.h"

/* The lengths "len" of operand "r" of shared tensor "t" when it is the
 * whole tensor or a whole tile of it: in each dimension a divisor of the
 * extent, the start known to be a multiple of it (a constant, or what
 * every term of a dynamic start is a multiple of), and the region a whole
 * number of 16-byte rows; false otherwise. */
static bool tile_of(const axe_program *p, const ax_ref *r, const ax_tensor *t,
                    int64_t *len)
{
    int64_t size = 1;
    bool whole = axe__synth_ref_whole(p, r);
    if (!whole &&
        (r->is_view || r->bdim >= 0 || r->any_masked || r->ndim != t->ndim))
        return false;
    for (int d = 0; d < t->ndim; d++) {
        const ax_expr *a = whole ? NULL : r->start[d];
        int64_t gcd = a == NULL              ? 0
                      : a->kind == AX_EX_INT ? a->value
                                             : axe__expr_gcd(a);
        len[d] = whole ? t->shape[d] : r->len[d];
        if (len[d] < 1 || t->shape[d] % len[d] != 0 || gcd % len[d] != 0)
            return false;
        size *= len[d];
    }
    return whole || size * axe_dtype_bit_width(t->dtype) % 128 == 0;
}

/* The stride of dimension "d"'s tiles in a seed of "t" of tiles "len"
 * (their size, row-major over the tiles); 0 where the tile is the
 * dimension. */
static int64_t tile_stride(const ax_tensor *t, const int64_t *len, int d)
{
    int64_t st = 1;
    if (len[d] == t->shape[d])
        return 0;
    for (int k = 0; k < t->ndim; k++)
        st *= k > d ? t->shape[k] : len[k];
    return st;
}

/* The seed of operand "o" (a region of a memory tensor of written layout,
 * of the shape "len" of the tiles of "t" it is copied to or from) into
 * "out": its iters made compact in the order of their strides, the tiles
 * row-major outside them; false when it has none. */
static bool region_seed(const axe_program *p, const ax_ref *o,
                        const ax_tensor *t, const int64_t *len, axe_layout *out)
{
    const ax_tensor *m = &p->tensors[o->tensor];
    axe_layout l = m->layout, g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], n = 0;
    ax_region_iter it[AXE_LAYOUT_MAX_SHARD];
    int64_t cstr[AXE_LAYOUT_MAX_SHARD];
    l.swizzle.present = false;
    if (o->is_view || o->bdim >= 0 || o->any_masked || m->ndim != t->ndim ||
        l.nreplica > 0 ||
        axe_layout_group(&l, m->shape, m->ndim, &g, seps, NULL) != AXE_OK)
        return false;
    for (int d = 0; d < t->ndim; d++)
        if ((o->ndim == 0 ? m->shape[d] : o->len[d]) != len[d] ||
            !axe__synth_region_iters(&g, seps, d, len[d], 0, it, &n))
            return false;
    for (int i = 0; i < n; i++) {
        cstr[i] = 1;
        for (int j = 0; j < n; j++)
            if (it[j].stride < it[i].stride ||
                (it[j].stride == it[i].stride && j < i))
                cstr[i] *= it[j].extent;
    }
    axe_layout_init(out);
    for (int d = 0; d < t->ndim; d++) {
        int64_t ts = tile_stride(t, len, d);
        bool any = ts > 0;
        if (ts > 0 &&
            axe_layout_push_shard(out, t->shape[d] / len[d], ts, "m") != AXE_OK)
            return false;
        for (int i = n - 1; i >= 0; i--) /* inner first */
            if (it[i].dim == d) {
                any = true;
                if (axe_layout_push_shard(out, it[i].extent, cstr[i], "m") !=
                    AXE_OK)
                    return false;
            }
        if (!any && axe_layout_push_shard(out, 1, 0, "m") != AXE_OK)
            return false;
    }
    return true;
}

/* Appends seed "l" to "s" unless it holds it (at most "cap"). */
static void add_seed(axe_layout *s, int *n, int cap, const axe_layout *l)
{
    for (int i = 0; i < *n; i++)
        if (axe_layout_equal(&s[i], l))
            return;
    if (*n < cap)
        s[(*n)++] = *l;
}

/* The seeds of tensor "ti" (the file comment), at most "cap". */
static int seeds_of(const axe_program *p, int ti, axe_layout *s, int cap)
{
    const ax_tensor *t = &p->tensors[ti];
    axe_layout l;
    int n = 0;
    if (axe_layout_row_major(t->shape, t->ndim, &l) == AXE_OK)
        add_seed(s, &n, cap, &l);
    for (int k = 0; k < p->nops; k++) {
        const ax_stmt *st = p->ops[k];
        if (st->kind != AX_ST_OP || st->dead || st->op != AX_OP_COPY ||
            st->nargs != 2)
            continue;
        for (int i = 0; i < 2; i++) {
            const ax_ref *o = &st->args[1 - i];
            const ax_tensor *m = &p->tensors[o->tensor];
            int64_t len[AX_MAX_DIMS];
            if (st->args[i].tensor == ti && m->mem != AX_MEM_REGISTER &&
                !m->autolayout && tile_of(p, &st->args[i], t, len) &&
                region_seed(p, o, t, len, &l))
                add_seed(s, &n, cap, &l);
        }
    }
    return n;
}

/* compiler_synth.h */
axe_status axe__synth_ldsm_seeds(const axe_program *p, const ax_stmt *s,
                                 ax_synth_leaves *out, axe_diag *diag)
{
    axe_layout seed[AX_SYNTH_SEEDS];
    int ns;
    out->n = 0;
    if (s->nargs != 2 || s->args[1].tensor < 0 ||
        !axe__smem_ldsm_copy(p, s, s->args[1].tensor))
        return AXE_OK;
    ns = seeds_of(p, s->args[1].tensor, seed, AX_SYNTH_SEEDS);
    for (int i = 0; i < ns; i++) {
        ax_synth_ldsm lv;
        AXE_TRY(axe__synth_ldsm_leaves_on(p, s, 0, &seed[i], &lv, diag));
        for (int j = 0; j < lv.n && out->n < AX_SYNTH_MAX_LEAVES; j++) {
            bool seen = false;
            for (int k = 0; k < out->n; k++)
                seen = seen || axe_layout_equal(&out->leaf[k].layout,
                                                &lv.leaf[j].layout);
            if (!seen)
                out->leaf[out->n++] = lv.leaf[j];
        }
    }
    return AXE_OK;
}
