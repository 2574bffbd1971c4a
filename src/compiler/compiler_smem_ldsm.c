/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared layouts whose 16-byte rows are a register's ldmatrix rows
 * (Hexcute §5.2's alignment constraint m ∘ f over several dimensions;
 * docs/compiler.md, "Layout synthesis", "ldmatrix copies"). A copy from
 * a shared tensor of 4-, 8- or 16-bit elements into a register of its
 * dtype runs as ldmatrix (not .trans) when word g (elements W g .. W g +
 * W - 1, W = 32 / bits) of lane l = 4r + c is bytes 4c of a 16-byte row
 * (E = 128 / bits elements) that lane 4r's word g starts
 * (compiler_copy_ldsm.c): when the shared layout m puts the element the
 * register holds at (warp w, lane 4r + c, element W g + e) at address
 * E rho(w, r, g) + W c + e for some placement rho of the rows (i4: W = 8,
 * E = 32). Read on the register's layout, whose iters refine the
 * tensor's dimensions with strides on laneid, the warps (warpid; at
 * warpgroup scope wid_in_wg, at CTA scope also wid_in_wg and wgid, a
 * warpgroup 4 warps) and m, that is a candidate with free strides
 * (compiler_smem.h): each iter split into the part inside a row (lane bits
 * below 4: address stride W x its lane stride; register strides below W: its
 * own) at a fixed stride, and the part across rows (lane bits 4 and up, warps,
 * register words) free. The fixed parts must make [0, E) exactly once. Row
 * accesses (each lane 16 bytes at a row start, as the ldmatrix instructions
 * read them) place the copy in the swizzle choice and the synthesis's measure.
 * Invariant: a candidate is legal for ldmatrix by construction for every order
 * of its free strides and every swizzle that keeps 16-byte runs whole; the
 * choice still evaluates legality on the compiled plan. For 16-bit
 * elements the same holds for ldmatrix.trans, whose rows run along the
 * register's lane / 4 (lane l's word g is column l / 4 of rows 2 (l % 4)
 * and 2 (l % 4) + 1): inside a row lane bits 2 to 4 at the lane stride /
 * 4, across rows every other digit (split_iter with "trans").
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_copy_ldsm.h"
#include "compiler_smem.h"
#include "compiler_synth.h"

/* Whether copy "s" reads shared tensor "ti" of 4-, 8- or 16-bit elements
 * whole into a whole register of its dtype and shape at warp, warpgroup
 * or CTA scope (the dtypes compiler_copy_ldsm.c's ldmatrix takes). */
bool axe__smem_ldsm_copy(const axe_program *p, const ax_stmt *s, int ti)
{
    const ax_tensor *d, *r;
    if (s->kind != AX_ST_OP || s->dead || s->op != AX_OP_COPY ||
        s->nargs != 2 || s->args[1].tensor != ti ||
        (s->scope != AX_SCOPE_WARP && s->scope != AX_SCOPE_WARPGROUP &&
         s->scope != AX_SCOPE_CTA))
        return false;
    d = &p->tensors[s->args[0].tensor];
    r = &p->tensors[ti];
    if (d->mem != AX_MEM_REGISTER || r->mem != AX_MEM_SHARED ||
        d->dtype != r->dtype ||
        (axe_dtype_bit_width(d->dtype) != 4 &&
         axe_dtype_bit_width(d->dtype) != 8 &&
         axe_dtype_bit_width(d->dtype) != 16) ||
        d->ndim != r->ndim || !axe__synth_ref_whole(p, &s->args[0]) ||
        !axe__synth_ref_whole(p, &s->args[1]))
        return false;
    for (int k = 0; k < d->ndim; k++)
        if (d->shape[k] != r->shape[k])
            return false;
    return true;
}

int axe__ldsm_matrices(int64_t words)
{
    return words % 4 == 0 ? 4 : words % 2 == 0 ? 2 : 1;
}

/* Whether "a" is an axis of whole warps: warpid, wid_in_wg or wgid. */
static bool warp_axis(const char *a)
{
    return strcmp(a, "warpid") == 0 || strcmp(a, "wid_in_wg") == 0 ||
           strcmp(a, "wgid") == 0;
}

/* The warps that one step of axis "a" moves in a register layout of a
 * copy at "scope": warpid 1 (as the leaf generator deals it at warp and
 * CTA scope), wid_in_wg 1 at warpgroup and CTA scope, wgid 4 (a
 * warpgroup's warps) at CTA scope; 0 for any other axis or scope. */
static int64_t warp_step(ax_scope scope, const char *a)
{
    bool wg = scope == AX_SCOPE_WARPGROUP, cta = scope == AX_SCOPE_CTA;
    if (strcmp(a, "warpid") == 0 ||
        ((wg || cta) && strcmp(a, "wid_in_wg") == 0))
        return 1;
    return cta && strcmp(a, "wgid") == 0 ? 4 : 0;
}

/* Appends mode (dim, extent, stride) to "f" (extent 1: nothing). */
static bool push_mode(ax_free_layout *f, int dim, int64_t extent,
                      int64_t stride)
{
    if (extent == 1)
        return true;
    if (f->n == AX_FREE_MAX)
        return false;
    f->dim[f->n] = dim;
    f->extent[f->n] = extent;
    f->stride[f->n++] = stride;
    return true;
}

/* Iter "it" of dimension "dim" as its part across rows (free, stride 0
 * for now) and inside a row (fixed): plain, lanes below 4 at "epw"
 * (elements per 32-bit word) x lane, register elements below epw at
 * their own stride; "trans", lane bits 2 to 4 (lane / 4, the row's 8
 * columns) at lane / 4, lanes below 4 and register elements across rows;
 * false for another axis or a stride that straddles unevenly. */
static bool split_iter(const axe_iter *it, int dim, int64_t epw, bool trans,
                       ax_free_layout *f)
{
    int64_t unit, in = 1, scale;
    if (it->extent == 1)
        return true;
    if (it->stride < 1)
        return false;
    if (warp_axis(it->axis) || (trans && strcmp(it->axis, "m") == 0))
        return push_mode(f, dim, it->extent, 0);
    if (strcmp(it->axis, "laneid") == 0)
        unit = 4, scale = epw;
    else if (strcmp(it->axis, "m") == 0)
        unit = epw, scale = 1;
    else
        return false;
    if (it->stride >= unit && it->stride % unit != 0)
        return false; /* across rows but not by whole words or quads */
    if (it->stride < unit) {
        if (unit % it->stride != 0)
            return false;
        in = unit / it->stride < it->extent ? unit / it->stride : it->extent;
        if (it->extent % in != 0)
            return false;
    }
    if (trans) /* lane / 4 fixed outside, lanes below 4 free inside */
        return push_mode(f, dim, it->extent / in, it->stride * in / 4) &&
               push_mode(f, dim, in, 0);
    return push_mode(f, dim, it->extent / in, 0) &&
           push_mode(f, dim, in, it->stride * scale);
}

/* Whether the fixed modes of "f" make [0, row) exactly once ("row" the
 * elements of a 16-byte row, at most 32). */
static bool fixed_row(const ax_free_layout *f, int64_t row)
{
    int64_t ext[AX_FREE_MAX], str[AX_FREE_MAX], n = 0, count = 1;
    bool seen[32] = {false};
    for (int k = 0; k < f->n; k++)
        if (f->stride[k] > 0) {
            ext[n] = f->extent[k];
            str[n++] = f->stride[k];
            count *= f->extent[k];
        }
    if (count != row)
        return false;
    for (int64_t i = 0; i < row; i++) {
        int64_t a = 0, x = i;
        for (int64_t k = 0; k < n; k++) {
            a += x % ext[k] * str[k];
            x /= ext[k];
        }
        if (a >= row || seen[a])
            return false;
        seen[a] = true;
    }
    return true;
}

/* The candidate of register layout "rl" (compiler_smem.h). */
bool axe__smem_ldsm_free(const axe_layout *rl, const int64_t *shape, int ndim,
                         int bits, bool trans, ax_free_layout *f)
{
    int dim[AXE_LAYOUT_MAX_SHARD], d = ndim - 1, nfree = 0;
    int64_t prod = 1;
    if (rl->nreplica > 0 || rl->swizzle.present || (trans && bits != 16))
        return false;
    for (int k = 0; k < rl->noffset; k++)
        if (rl->offset[k].value != 0)
            return false;
    /* each iter's dimension: the iters of the last dimension come last */
    for (int k = rl->nshard - 1; k >= 0; k--) {
        dim[k] = d > 0 ? d : 0;
        if (rl->shard[k].extent == 1)
            continue;
        while (d >= 0 && prod == 1 && shape[d] == 1)
            d--;
        if (d < 0 || (prod *= rl->shard[k].extent) > shape[d] ||
            shape[d] % prod != 0)
            return false;
        dim[k] = d;
        if (prod == shape[d])
            d--, prod = 1;
    }
    memset(f, 0, sizeof *f);
    for (int k = 0; k < rl->nshard; k++)
        if (!split_iter(&rl->shard[k], dim[k], 32 / bits, trans, f))
            return false;
    if (!fixed_row(f, 128 / bits))
        return false;
    for (int k = f->n - 1; k >= 0; k--)
        if (f->stride[k] == 0)
            f->stride[k] = -(++nfree);
    return true;
}

/* The rows of register "reg" (the copy's): x[(w * 8 + r) * words + g]
 * the logical element that row r of word g's matrix starts at in warp w:
 * lane 4r's element epw g, or with "trans" (16-bit elements, the rows
 * transposed: lane l's word g is column l / 4 of rows 2 (l % 4) and
 * 2 (l % 4) + 1) lane r / 2's element 2 g + r % 2, w the warp of the
 * copy's scope (warp_step: warpid, or wid_in_wg and wgid); UNSUPPORTED
 * (no diagnostic) for a layout with replicas, offsets or axes other
 * than those, laneid and m. */
typedef struct ld_rows {
    int nwarps, words, n; /* n: matrices per instruction */
    int bits, epw, row;   /* element bits, per 32-bit word, per 16-byte row */
    int64_t *x;
} ld_rows;

/* The index (w * 8 + r) * words + g of the row that starts at warp "w",
 * lane "ln", register element "m" ("trans": rows_of), else -1. */
static int64_t row_at(const ld_rows *o, bool trans, int64_t w, int64_t ln,
                      int64_t m)
{
    int64_t r = trans ? 2 * ln + m % 2 : ln / 4;
    bool starts = trans ? ln < 4 : ln % 4 == 0 && m % o->epw == 0;
    if (!starts || w >= o->nwarps || ln >= 32 || m / o->epw >= o->words)
        return -1;
    return (w * 8 + r) * o->words + m / o->epw;
}

/* Point "pt" of a register layout of a copy at "scope" as (warp, lane,
 * register element) into "v" (warp_step); false on another axis off 0. */
static bool warp_lane_m(ax_scope scope, const axe_point *pt, int64_t *v)
{
    v[0] = v[1] = v[2] = 0;
    for (int k = 0; k < pt->n; k++) {
        int64_t step = warp_step(scope, pt->axis[k]);
        if (step > 0)
            v[0] += step * pt->v[k];
        else if (strcmp(pt->axis[k], "laneid") == 0)
            v[1] = pt->v[k];
        else if (strcmp(pt->axis[k], "m") == 0)
            v[2] = pt->v[k];
        else if (pt->v[k] != 0)
            return false;
    }
    return true;
}

/* The warps of register layout "l" of a copy at "scope" (one past the
 * last warp it puts an element on), or 0 when an iter is on an axis
 * other than laneid, m and the scope's warp axes (warp_step). */
static int64_t warps_of(ax_scope scope, const axe_layout *l)
{
    int64_t nw = 1;
    for (int k = 0; k < l->nshard; k++) {
        const axe_iter *it = &l->shard[k];
        int64_t step = warp_step(scope, it->axis);
        if (step > 0 && it->stride >= 0)
            nw += (it->extent - 1) * it->stride * step;
        else if (strcmp(it->axis, "laneid") != 0 && strcmp(it->axis, "m") != 0)
            return 0;
    }
    return nw;
}

static axe_status rows_of(axe_program *p, const ax_tensor *reg, ax_scope scope,
                          bool trans, ld_rows *out, axe_diag *diag)
{
    int64_t size = 1, nw = warps_of(scope, &reg->layout);
    if (reg->layout.nreplica > 0 || reg->layout.noffset > 0 || nw == 0)
        return AXE_ERR_UNSUPPORTED;
    for (int d = 0; d < reg->ndim; d++)
        size *= reg->shape[d];
    out->nwarps = (int)nw;
    out->bits = axe_dtype_bit_width(reg->dtype);
    out->epw = 32 / out->bits;
    out->row = 128 / out->bits;
    out->words = (int)(reg->span / out->epw);
    out->n = axe__ldsm_matrices(out->words);
    out->x = axe__arena_alloc(p->arena,
                              (size_t)(nw * 8 * out->words) * sizeof *out->x);
    if (out->x == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int64_t i = 0; i < nw * 8 * out->words; i++)
        out->x[i] = -1;
    for (int64_t x = 0; x < size; x++) {
        axe_point pt;
        int64_t v[3], at;
        AXE_TRY(axe_layout_apply_base(&reg->layout, x, &pt, diag));
        if (!warp_lane_m(scope, &pt, v))
            return AXE_ERR_UNSUPPORTED;
        at = row_at(out, trans, v[0], v[1], v[2]);
        if (at >= 0)
            out->x[at] = x;
    }
    return AXE_OK;
}

/* The ldmatrix instructions of "rows" as tile accesses under base layout
 * "base" (unswizzled): per warp, instruction q, lane 8j + r reads the 32
 * elements from the row of lane 4r's word qn + j (inactive where the
 * register holds no such element). "ta" has room for nwarps * words / n. */
static int row_accesses(const ld_rows *rows, const axe_layout *base,
                        ax_tile_access *ta)
{
    int na = 0;
    for (int w = 0; w < rows->nwarps; w++)
        for (int q = 0; q < rows->words / rows->n; q++, na++) {
            memset(&ta[na], 0, sizeof ta[na]);
            ta[na].vec = rows->row;
            for (int ln = 0; ln < 8 * rows->n; ln++) {
                int64_t x = rows->x[(w * 8 + ln % 8) * rows->words +
                                    q * rows->n + ln / 8];
                ta[na].elem[ln] = x >= 0 ? axe__smem_tile_addr(base, x) : -1;
                ta[na].active[ln] = ta[na].elem[ln] >= 0;
                ta[na].elem[ln] = ta[na].active[ln] ? ta[na].elem[ln] : 0;
            }
        }
    return na;
}

/* The ways of copy "s"'s ldmatrix instructions (the register's rows) on
 * its shared tensor's layout (compiler_smem.h). */
axe_status axe__smem_ldsm_ways(axe_program *p, const ax_stmt *s, bool trans,
                               ax_ways *out, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[1].tensor];
    ld_rows rows;
    ax_tile_access *ta;
    int na;
    AXE_TRY(rows_of(p, &p->tensors[s->args[0].tensor], s->scope, trans, &rows,
                    diag));
    ta = axe__arena_alloc(p->arena,
                          (size_t)(rows.nwarps * rows.words) * sizeof *ta);
    if (ta == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    na = row_accesses(&rows, &t->layout, ta);
    return axe__tile_ways(ta, na, rows.bits,
                          t->layout.swizzle.present ? &t->layout.swizzle : NULL,
                          out, diag);
}

/* Tile address -> logical element of "t" under "lay" (-1: none), over
 * [0, *n). */
static axe_status inverse(axe_program *p, const ax_tensor *t,
                          const axe_layout *lay, int64_t **inv, int64_t *n,
                          axe_diag *diag)
{
    int64_t size = 1;
    for (int d = 0; d < t->ndim; d++)
        size *= t->shape[d];
    *n = 0;
    for (int64_t x = 0; x < size; x++) {
        int64_t a = axe__smem_tile_addr(lay, x);
        *n = a + 1 > *n ? a + 1 : *n;
    }
    *inv = axe__arena_alloc(p->arena, (size_t)(*n > 0 ? *n : 1) * sizeof **inv);
    if (*inv == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (int64_t a = 0; a < *n; a++)
        (*inv)[a] = -1;
    for (int64_t x = 0; x < size; x++) {
        int64_t a = axe__smem_tile_addr(lay, x);
        if (a >= 0)
            (*inv)[a] = x;
    }
    return AXE_OK;
}

/* Instruction "q" of warp "w" of "rows" as access "a" of copy "op" to
 * "ti": each lane's row, the logical elements at its 16 consecutive bytes
 * ("inv", "ninv": inverse); false when they fit no run (the same logical
 * offsets on every lane, at most AX_RUN_LEVELS levels). */
static bool row_access(const ld_rows *rows, const axe_layout *lay,
                       const int64_t *inv, int64_t ninv, int w, int q,
                       ax_smem_access *a)
{
    int64_t x[32];
    bool first = true;
    a->vec = rows->row;
    a->vstride = 1;
    for (int ln = 0; ln < 8 * rows->n; ln++) {
        int64_t x0 =
            rows->x[(w * 8 + ln % 8) * rows->words + q * rows->n + ln / 8];
        int64_t a0 = x0 >= 0 ? axe__smem_tile_addr(lay, x0) : -1;
        if (a0 < 0)
            continue;
        for (int64_t e = 0; e < rows->row; e++)
            if (a0 + e >= ninv || (x[e] = inv[a0 + e]) < 0)
                return false;
        a->active[ln] = true;
        a->index[ln] = x0;
        if (first && !axe__smem_fit_run(a, x))
            return false;
        first = false;
        for (int64_t e = 1; e < rows->row; e++)
            if (x[e] != x0 + axe__smem_offset(a, e))
                return false;
    }
    return true;
}

/* The rows of copy "k" of "p" as accesses appended to "out" (room for
 * them); false (nothing appended) when a row fits no run. */
static axe_status copy_rows(axe_program *p, int k, const ld_rows *rows,
                            const int64_t *inv, int64_t ninv, ax_smem_list *out,
                            bool *done)
{
    const ax_stmt *s = p->ops[k];
    const axe_layout *lay = &p->tensors[s->args[1].tensor].layout;
    int n0 = out->n;
    *done = true;
    for (int w = 0; *done && w < rows->nwarps; w++)
        for (int q = 0; *done && q < rows->words / rows->n; q++) {
            ax_smem_access *a = &out->a[out->n++];
            memset(a, 0, sizeof *a);
            a->op = k;
            a->arg = 1;
            a->tensor = s->args[1].tensor;
            *done = row_access(rows, lay, inv, ninv, w, q, a);
        }
    if (!*done)
        out->n = n0;
    return AXE_OK;
}

/* Whether copy "k" of "p" reads "ti" by ldmatrix (.trans too) with rows;
 * then its rows into "rows". */
static axe_status ldsm_rows(axe_program *p, int k, int ti, ld_rows *rows,
                            bool *yes, axe_diag *diag)
{
    const ax_ldsm *ld = axe__ldsm_of(p->ops[k]);
    axe_status st;
    *yes = false;
    if (!axe__smem_ldsm_copy(p, p->ops[k], ti) || ld == NULL || !ld->chosen)
        return AXE_OK;
    st = rows_of(p, &p->tensors[p->ops[k]->args[0].tensor], p->ops[k]->scope,
                 ld->trans, rows, diag);
    *yes = st == AXE_OK;
    return st == AXE_ERR_UNSUPPORTED ? AXE_OK : st;
}

/* The accesses with the ldmatrix copies' rows (compiler_smem.h): each
 * copy's rows computed once ("rows", "yes": per operator). */
axe_status axe__smem_ldsm_rows_list(axe_program *p, const ax_smem_list *l,
                                    int ti, ax_smem_list *out, bool *any,
                                    axe_diag *diag)
{
    bool *rows_op = axe__arena_alloc(p->arena, (size_t)p->nops + 1);
    bool *yes = axe__arena_alloc(p->arena, (size_t)p->nops + 1);
    ld_rows *rows =
        axe__arena_alloc(p->arena, (size_t)(p->nops + 1) * sizeof *rows);
    int64_t room = l->n, *inv = NULL, ninv = 0;
    *any = false;
    *out = *l;
    if (rows_op == NULL || yes == NULL || rows == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    memset(rows_op, 0, (size_t)p->nops + 1);
    for (int k = 0; k < p->nops; k++) {
        AXE_TRY(ldsm_rows(p, k, ti, &rows[k], &yes[k], diag));
        room += yes[k] ? rows[k].nwarps * rows[k].words : 0;
    }
    if (room == l->n)
        return AXE_OK;
    out->a = axe__arena_alloc(p->arena, (size_t)room * sizeof *out->a);
    if (out->a == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    out->n = 0;
    out->slot = NULL;
    AXE_TRY(
        inverse(p, &p->tensors[ti], &p->tensors[ti].layout, &inv, &ninv, diag));
    for (int k = 0; k < p->nops; k++) {
        if (yes[k])
            AXE_TRY(copy_rows(p, k, &rows[k], inv, ninv, out, &rows_op[k]));
        *any = *any || rows_op[k];
    }
    for (int k = 0; k < l->n; k++)
        if (l->a[k].tensor != ti || !rows_op[l->a[k].op])
            out->a[out->n++] = l->a[k];
    out->cap = out->n;
    return AXE_OK;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The tile addresses of the "size" elements of "c" into "at": by an
 * odometer over its iters (the last the fastest) when they are all on
 * "m" with no replica or offset (the instances of a free layout), else
 * element by element. */
static void fill_addrs(const axe_layout *c, int64_t size, int64_t *at)
{
    int64_t digit[AXE_LAYOUT_MAX_SHARD] = {0}, a = 0, n = 1;
    bool plain = c->nreplica == 0 && c->noffset == 0;
    for (int k = 0; k < c->nshard; k++) {
        plain = plain && strcmp(c->shard[k].axis, "m") == 0;
        n *= c->shard[k].extent;
    }
    for (int64_t x = 0; !(plain && n == size) && x < size; x++)
        at[x] = axe__smem_tile_addr(c, x);
    for (int64_t x = 0; plain && n == size && x < size; x++) {
        int k = c->nshard - 1;
        at[x] = a;
        while (k >= 0 && ++digit[k] == c->shard[k].extent) {
            a -= (c->shard[k].extent - 1) * c->shard[k].stride;
            digit[k--] = 0;
        }
        a += k >= 0 ? c->shard[k].stride : 0;
    }
}

/* Element "x"'s tile address in "at" (the "n" elements' addresses; -1
 * off the tensor). */
static int64_t addr_at(const int64_t *at, int64_t n, int64_t x)
{
    return x >= 0 && x < n ? at[x] : -1;
}

/* Access "a" placed by the tile addresses "at" (of "n" elements) into
 * "ta": one access of its vector when its elements are consecutive
 * there, else its single elements (the plan on that layout moves no
 * such vector); the number placed. */
static int place(const int64_t *at, int64_t n, const ax_smem_access *a,
                 ax_tile_access *ta)
{
    bool whole = true;
    for (int ln = 0; ln < AX_WARP; ln++)
        for (int64_t e = 1; a->active[ln] && e < a->vec; e++)
            whole = whole &&
                    addr_at(at, n, a->index[ln] + axe__smem_offset(a, e)) ==
                        addr_at(at, n, a->index[ln]) + e;
    for (int64_t e = 0; e < (whole ? 1 : a->vec); e++) {
        ta[e].vec = whole ? a->vec : 1;
        for (int ln = 0; ln < AX_WARP; ln++) {
            ta[e].active[ln] = a->active[ln];
            ta[e].elem[ln] =
                a->active[ln]
                    ? addr_at(at, n, a->index[ln] + axe__smem_offset(a, e))
                    : 0;
        }
    }
    return whole ? 1 : (int)a->vec;
}

/* The tile address under "c" of every (warp, lane, element) of register
 * "reg" ("tab": nwarps * 32 * span, -1 where it holds none); false when
 * an element is off the table or held twice. */
static bool cell_table(const ax_tensor *reg, ax_scope scope,
                       const axe_layout *c, int64_t nw, int64_t *tab)
{
    int64_t size = 1;
    for (int d = 0; d < reg->ndim; d++)
        size *= reg->shape[d];
    for (int64_t i = 0; i < nw * AX_WARP * reg->span; i++)
        tab[i] = -1;
    for (int64_t x = 0; x < size; x++) {
        axe_point pt;
        int64_t v[3], at;
        if (axe_layout_apply_base(&reg->layout, x, &pt, NULL) != AXE_OK ||
            !warp_lane_m(scope, &pt, v))
            return false;
        if (v[0] >= nw || v[1] >= AX_WARP || v[2] >= reg->span)
            return false;
        at = (v[0] * AX_WARP + v[1]) * reg->span + v[2];
        if (tab[at] >= 0)
            return false;
        tab[at] = axe__smem_tile_addr(c, x);
    }
    return true;
}

/* Whether "rows"' register reads a tile laid out by "c" (unswizzled) by
 * ldmatrix, .trans with "trans" (compiler_copy_ldsm.c's conditions on
 * every element: plain, word g of lane l at bytes 4 (l % 4) of the row
 * lane 4 (l / 4)'s word g starts; .trans, lane l % 4's element + l / 4;
 * rows at multiples of 16 bytes). */
static bool legal_on(const ld_rows *rows, const int64_t *tab, int64_t span,
                     bool trans)
{
    int64_t w = rows->epw;
    if (span != rows->words * w)
        return false; /* a register of a part word */
    for (int64_t i = 0; i < rows->nwarps * AX_WARP * span; i++)
        if (tab[i] < 0)
            return false;
    for (int64_t wp = 0; wp < rows->nwarps; wp++)
        for (int64_t m = 0; m < rows->words * w; m++)
            for (int64_t l = 0; l < AX_WARP; l++) {
                int64_t a = tab[(wp * AX_WARP + l) * span + m];
                int64_t a0 =
                    trans ? tab[(wp * AX_WARP + l % 4) * span + m] + l / 4
                          : tab[(wp * AX_WARP + (l & ~3)) * span + m - m % w] +
                                w * (l % 4) + m % w;
                bool start = trans ? l < 4 : l % 4 == 0 && m % w == 0;
                if (a != a0 || (start && a % rows->row != 0))
                    return false;
            }
    return true;
}

/* The other ldmatrix copies of "ti" (not "op") on instance "c": "by[k]"
 * when copy k runs as ldmatrix there (plain, else .trans), its rows into
 * "rows[k]"; the accesses they make added to "*room". */
static axe_status other_rows(axe_program *p, int ti, int op,
                             const axe_layout *c, ld_rows *rows, bool *by,
                             int64_t *room, axe_diag *diag)
{
    for (int k = 0; k < p->nops; k++) {
        const ax_tensor *reg = &p->tensors[p->ops[k]->args[0].tensor];
        int64_t *tab;
        int forms;
        by[k] = false;
        if (k == op || !axe__smem_ldsm_copy(p, p->ops[k], ti))
            continue;
        forms = axe_dtype_bit_width(reg->dtype) == 16 ? 2 : 1;
        for (int t = 0; !by[k] && t < forms; t++) {
            axe_status st =
                rows_of(p, reg, p->ops[k]->scope, t == 1, &rows[k], diag);
            if (st == AXE_ERR_UNSUPPORTED)
                break;
            AXE_TRY(st);
            tab =
                axe__smem_scratch(p, (size_t)(rows[k].nwarps * AX_WARP *
                                              (reg->span > 0 ? reg->span : 1)) *
                                         sizeof *tab);
            if (tab == NULL)
                return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
            by[k] = cell_table(reg, p->ops[k]->scope, c, rows[k].nwarps, tab) &&
                    legal_on(&rows[k], tab, reg->span, t == 1);
            axe__smem_scratch_release(p, tab);
        }
        *room += by[k] ? rows[k].nwarps * rows[k].words : 0;
    }
    return AXE_OK;
}

/* place_and_pick's scratch, released once the pick is made (the 120
 * orders of 5 free strides would keep them all in the arena). */
typedef struct pick_scratch {
    ld_rows *orows;
    bool *by;
    ax_tile_access *ta;
    int64_t *at, *addr;
} pick_scratch;

/* Zeroed scratch of "n" items of "size" bytes (NULL when it fails). */
static void *zeroed(const axe_program *p, int64_t n, size_t size)
{
    void *m = axe__smem_scratch(p, (size_t)n * size);
    if (m != NULL)
        memset(m, 0, (size_t)n * size);
    return m;
}

/* place_and_pick on scratch "s" (its orows and by allocated). */
static axe_status pick_on(axe_program *p, int ti, const ax_smem_list *l, int op,
                          const ld_rows *rows, const ax_ways *bound,
                          axe_layout *c, ax_ways *after, bool *below,
                          pick_scratch *s, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    int64_t size = 1, nta = rows->nwarps * rows->words;
    int na = 0;
    ax_ways before;
    axe_layout_swizzle sw;
    AXE_TRY(other_rows(p, ti, op, c, s->orows, s->by, &nta, diag));
    for (int d = 0; d < t->ndim; d++)
        size *= t->shape[d];
    for (int k = 0; k < l->n; k++)
        nta += l->a[k].tensor == ti ? l->a[k].vec : 0;
    s->ta = zeroed(p, nta, sizeof *s->ta);
    s->at = zeroed(p, size, sizeof *s->at);
    s->addr = zeroed(p, size, sizeof *s->addr);
    if (s->ta == NULL || s->at == NULL || s->addr == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    fill_addrs(c, size, s->at);
    memcpy(s->addr, s->at, (size_t)size * sizeof *s->addr);
    qsort(s->addr, (size_t)size, sizeof *s->addr, cmp64);
    for (int k = 0; k < l->n; k++)
        if (l->a[k].tensor == ti && l->a[k].op != op && !s->by[l->a[k].op])
            na += place(s->at, size, &l->a[k], &s->ta[na]);
    for (int k = 0; k < p->nops; k++)
        if (s->by[k])
            na += row_accesses(&s->orows[k], c, &s->ta[na]);
    na += row_accesses(rows, c, &s->ta[na]);
    *below = true;
    if (bound == NULL)
        AXE_TRY(axe__swizzle_pick(s->addr, size, s->ta, na, rows->bits, &sw,
                                  &before, after, diag));
    else
        AXE_TRY(axe__swizzle_pick_below(s->addr, size, s->ta, na, rows->bits,
                                        bound, &sw, &before, after, below,
                                        diag));
    if (*below)
        c->swizzle = sw;
    return AXE_OK;
}

/* Instance "c" of tensor "ti": the other operators' accesses "l" (single
 * elements where "c" breaks a vector), the other ldmatrix copies by the
 * rows they read where "c" makes them ldmatrix (other_rows), and the
 * copy's rows placed by it, the swizzle chosen over them into "c" and
 * the counts into "after", when they are below "bound" ("*below"; NULL:
 * no bound, always). */
static axe_status place_and_pick(axe_program *p, int ti, const ax_smem_list *l,
                                 int op, const ld_rows *rows,
                                 const ax_ways *bound, axe_layout *c,
                                 ax_ways *after, bool *below, axe_diag *diag)
{
    pick_scratch s = {NULL, NULL, NULL, NULL, NULL};
    axe_status st;
    s.orows = zeroed(p, p->nops + 1, sizeof *s.orows);
    s.by = zeroed(p, p->nops + 1, sizeof *s.by);
    if (s.orows == NULL || s.by == NULL)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    else
        st = pick_on(p, ti, l, op, rows, bound, c, after, below, &s, diag);
    axe__smem_scratch_release(p, s.addr);
    axe__smem_scratch_release(p, s.at);
    axe__smem_scratch_release(p, s.ta);
    axe__smem_scratch_release(p, s.by);
    axe__smem_scratch_release(p, s.orows);
    return st;
}

/* The candidate of copy "op" for tensor "ti" (compiler_smem.h). */
axe_status axe__smem_ldsm_candidate(axe_program *p, int ti, int op, bool trans,
                                    axe_layout *out, bool *have, axe_diag *diag)
{
    const ax_stmt *s = p->ops[op];
    const ax_tensor *t = &p->tensors[ti];
    ax_free_layout f;
    ax_smem_list l;
    ld_rows rows;
    ax_ways bw = {0, 0, 0};
    int perm[AX_FREE_MAX], nfree = 0;
    bool more = true;
    *have = false;
    if (!axe__smem_ldsm_copy(p, s, ti) ||
        !axe__smem_ldsm_free(&p->tensors[s->args[0].tensor].layout, t->shape,
                             t->ndim, axe_dtype_bit_width(t->dtype), trans, &f))
        return AXE_OK;
    AXE_TRY(rows_of(p, &p->tensors[s->args[0].tensor], s->scope, trans, &rows,
                    diag));
    AXE_TRY(axe__smem_accesses(p, &l, diag));
    for (int k = 0; k < f.n; k++)
        if (f.stride[k] < 0)
            perm[nfree] = nfree + 1, nfree++;
    while (more) {
        axe_layout c;
        ax_ways w;
        bool below;
        AXE_TRY(axe__free_layout_instance(&f, perm, nfree, &c, diag));
        AXE_TRY(place_and_pick(p, ti, &l, op, &rows, *have ? &bw : NULL, &c, &w,
                               &below, diag));
        if (below) {
            *out = c;
            bw = w;
            *have = true;
        }
        more = axe__free_layout_next_order(perm, nfree);
    }
    return AXE_OK;
}
