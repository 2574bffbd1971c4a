/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sema of distributed tensors and device operators (docs/compiler.md,
 * "Distributed tensors"). A program with a mesh of P devices places every
 * global param explicitly: its layout has gpuid iters (shard or replica)
 * that together cover each device id 0 .. P-1 exactly once, or no gpuid
 * iter and an offset k@gpuid (0 <= k < P) that puts it on device k. Its
 * other iters and offsets are on m. Each distributed tensor's shape and
 * layout are then replaced by its local shard's (per dimension, the
 * dimension's m iters in order, plus the m offset), which every other
 * pass sees; the logical shape and declared layout stay in gshape and
 * glayout. Device operators take distributed tensors of one dtype, whole
 * or as regions with constant starts: a region's operand record is its
 * tensor's with the region's shape, the declared layout sliced to the
 * region (axe_layout_slice: addresses stay the tensor buffer's) and the
 * region's part of each local shard, which every consumer reads
 * (axe__devop_tensor). Copy between equal shapes, reduce from a shape to
 * the same shape without dimension k, gemm C [M,N] from A [M,K] and B
 * [N,K] placed so that local GEMMs can use them, as they are or after
 * copying one (compiler_dist_gemm.c).
 */
#include <stdlib.h>
#include <string.h>

#include "compiler_dist.h"

static bool on_gpuid(const char *axis) { return strcmp(axis, "gpuid") == 0; }

static bool uses_gpuid(const axe_layout *l)
{
    int i;
    for (i = 0; i < l->nshard; i++)
        if (on_gpuid(l->shard[i].axis))
            return true;
    for (i = 0; i < l->nreplica; i++)
        if (on_gpuid(l->replica[i].axis))
            return true;
    for (i = 0; i < l->noffset; i++)
        if (on_gpuid(l->offset[i].axis))
            return true;
    return false;
}

/* Without a mesh no layout may use gpuid; with one, every global param
 * says where it lives and nothing else does. */
static axe_status check_placed(const axe_program *p, const ax_tensor *t,
                               bool gpuid, axe_diag *diag)
{
    if (p->ndev == 0 && gpuid)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' has a gpuid layout, but the program "
                         "declares no mesh: write `mesh(P);` before "
                         "`kernel`",
                         t->name);
    if (p->ndev > 0 && gpuid && t->mem != AX_MEM_GLOBAL)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' is %s: only global params are "
                         "distributed over devices (gpuid)",
                         t->name, axe__mem_name(t->mem));
    if (p->ndev > 0 && !gpuid && t->mem == AX_MEM_GLOBAL)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' has no placement on the mesh of %lld "
                         "devices: its layout needs gpuid iters (replicated "
                         "on every device: add `+ R[%lld:1@gpuid]`; on one "
                         "device: add `+ 0@gpuid`)",
                         t->name, (long long)p->ndev, (long long)p->ndev);
    return AXE_OK;
}

/* Iters and offsets are on gpuid or m, replicas on gpuid only, strides
 * on gpuid positive (extent 1 aside), no swizzle. */
static axe_status check_axes(const ax_tensor *t, axe_diag *diag)
{
    const axe_layout *l = &t->layout;
    int i;
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "distributed tensor '%s' cannot be swizzled", t->name);
    for (i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *it =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        if (!on_gpuid(it->axis) && (i >= l->nshard || strcmp(it->axis, "m")))
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "distributed tensor '%s': %s iter %lld:%lld@%s "
                             "is not on gpuid%s",
                             t->name, i < l->nshard ? "shard" : "replica",
                             (long long)it->extent, (long long)it->stride,
                             it->axis, i < l->nshard ? " or m" : "");
        if (on_gpuid(it->axis) && it->extent > 1 && it->stride <= 0)
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "distributed tensor '%s': iter %lld:%lld@gpuid "
                             "needs a positive stride (each of its %lld "
                             "devices distinct)",
                             t->name, (long long)it->extent,
                             (long long)it->stride, (long long)it->extent);
    }
    for (i = 0; i < l->noffset; i++)
        if (!on_gpuid(l->offset[i].axis) && strcmp(l->offset[i].axis, "m"))
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "distributed tensor '%s': offset on '%s' (gpuid "
                             "or m only)",
                             t->name, l->offset[i].axis);
    return AXE_OK;
}

/* The gpuid offset of "l" (the sum of its gpuid offsets). */
static int64_t gpuid_offset(const axe_layout *l)
{
    int64_t k = 0;
    int i;
    for (i = 0; i < l->noffset; i++)
        if (on_gpuid(l->offset[i].axis))
            k += l->offset[i].value;
    return k;
}

/* The gpuid iters (extent > 1) sorted by stride must tile [0, P): each
 * stride the product of the smaller extents, and that product P. */
static axe_status check_cover(const axe_program *p, const ax_tensor *t,
                              axe_diag *diag)
{
    const axe_layout *l = &t->layout;
    const axe_iter *it[AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA];
    int64_t next = 1;
    int n = 0, i, j;
    for (i = 0; i < l->nshard + l->nreplica; i++) {
        const axe_iter *x =
            i < l->nshard ? &l->shard[i] : &l->replica[i - l->nshard];
        if (on_gpuid(x->axis) && x->extent > 1)
            it[n++] = x;
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (it[j]->stride < it[i]->stride) {
                const axe_iter *x = it[i];
                it[i] = it[j];
                it[j] = x;
            }
    for (i = 0; i < n && next <= p->ndev; i++) {
        if (it[i]->stride != next)
            return axe__fail(
                diag, AXE_ERR_INVALID, t->off,
                "the gpuid iters of '%s' do not cover each of the %lld "
                "devices exactly once: %s (iter %lld:%lld@gpuid)",
                t->name, (long long)p->ndev,
                it[i]->stride < next ? "two coordinates reach one device"
                                     : "a device holds nothing",
                (long long)it[i]->extent, (long long)it[i]->stride);
        if (axe__mul(next, it[i]->extent, &next) != AXE_OK)
            next = INT64_MAX;
    }
    if (n > 0 && next != p->ndev)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "the gpuid iters of '%s' reach %lld devices, but "
                         "the mesh has %lld",
                         t->name, (long long)next, (long long)p->ndev);
    if (n > 0 && gpuid_offset(l) != 0)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' has gpuid iters and a gpuid offset: "
                         "an offset places a tensor on one device, without "
                         "gpuid iters",
                         t->name);
    if (n == 0 && (gpuid_offset(l) < 0 || gpuid_offset(l) >= p->ndev))
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' lives on device %lld, outside the "
                         "mesh's devices 0 .. %lld",
                         t->name, (long long)gpuid_offset(l),
                         (long long)p->ndev - 1);
    return AXE_OK;
}

/* The local part of layout "l" over "shape" (n dims) into "loc" and
 * "ext": per dimension of the grouped layout its m iters in order (their
 * product the dimension's local extent), plus the m offsets; the reason
 * in "why" otherwise. */
static axe_status local_part(const axe_layout *l, const int64_t *shape, int n,
                             axe_layout *loc, int64_t *ext, axe_diag *why)
{
    axe_layout g;
    int seps[AXE_LAYOUT_MAX_DIMS + 1], d, i;
    axe_diag gw;
    axe_layout_init(loc);
    if (axe_layout_group(l, shape, n, &g, seps, &gw) != AXE_OK)
        return axe__fail(why, AXE_ERR_INVALID, -1,
                         "does not admit its shape: %s", gw.message);
    for (d = 0; d < n; d++) {
        ext[d] = 1;
        for (i = seps[d]; i < seps[d + 1]; i++)
            if (!on_gpuid(g.shard[i].axis)) {
                if (axe_layout_push_shard(loc, g.shard[i].extent,
                                          g.shard[i].stride, "m"))
                    return axe__fail(why, AXE_ERR_CAPACITY, -1,
                                     "has too many iters");
                ext[d] *= g.shard[i].extent;
            }
    }
    if (loc->nshard == 0 && axe_layout_push_shard(loc, 1, 1, "m") != AXE_OK)
        return axe__fail(why, AXE_ERR_INVALID, -1, "has no iter");
    for (i = 0; i < l->noffset; i++)
        if (!on_gpuid(l->offset[i].axis) &&
            axe_layout_add_offset(loc, "m", l->offset[i].value))
            return axe__fail(why, AXE_ERR_INVALID, -1,
                             "has a bad memory offset");
    return AXE_OK;
}

/* The local shard (local_part of the declared layout). */
static axe_status local_view(ax_tensor *t, axe_diag *diag)
{
    axe_layout loc;
    axe_diag why;
    axe_status st =
        local_part(&t->layout, t->shape, t->ndim, &loc, t->shape, &why);
    if (st != AXE_OK)
        return axe__fail(diag, st, t->off, "the layout of '%s' %s", t->name,
                         why.message);
    t->layout = loc;
    return AXE_OK;
}

/* The size check of sema (compiler_sema.c) for the logical tensor. */
static axe_status check_size(ax_tensor *t, axe_diag *diag)
{
    int64_t n = 1, size;
    int d;
    for (d = 0; d < t->ndim; d++)
        if (axe__mul(n, t->shape[d], &n) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, t->off,
                             "tensor '%s': size overflows", t->name);
    if (axe_layout_size(&t->layout, NULL, &size) != AXE_OK || size != n)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "the layout of '%s' has %lld elements but its shape "
                         "has %lld",
                         t->name, (long long)size, (long long)n);
    t->gsize = n;
    return AXE_OK;
}

axe_status axe__sema_dist_tensor(const axe_program *p, ax_tensor *t,
                                 axe_diag *diag)
{
    bool gpuid = uses_gpuid(&t->layout);
    AXE_TRY(check_placed(p, t, gpuid, diag));
    if (p->ndev == 0 || t->mem != AX_MEM_GLOBAL)
        return AXE_OK;
    AXE_TRY(check_axes(t, diag));
    AXE_TRY(check_cover(p, t, diag));
    AXE_TRY(check_size(t, diag));
    t->dist = true;
    memcpy(t->gshape, t->shape, sizeof t->gshape);
    t->glayout = t->layout;
    return local_view(t, diag);
}

/* ---- device operators ------------------------------------------------ */

const ax_tensor *axe__devop_tensor(const axe_program *p, const ax_stmt *s,
                                   int i)
{
    return s->dop[i] != NULL ? s->dop[i] : &p->tensors[s->args[i].tensor];
}

axe_dtype axe__devop_dtype(const axe_program *p, const ax_stmt *s)
{
    return p->tensors[s->args[s->op == AX_OP_GEMM ? 0 : 1].tensor].dtype;
}

const char *axe__devop_text(const axe_program *p, const ax_stmt *s, int i)
{
    return s->dtext[i] != NULL ? s->dtext[i]
                               : p->tensors[s->args[i].tensor].name;
}

static axe_status check_operand(const axe_program *p, const ax_stmt *s, int i,
                                axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[i].tensor];
    if (!t->dist)
        return axe__fail(diag, AXE_ERR_INVALID, s->args[i].off,
                         "device %s: '%s' is %s, not a distributed global "
                         "param",
                         axe__op_name(s->op), t->name, axe__mem_name(t->mem));
    return AXE_OK;
}

/* Region "r" of "t" within the tensor: "begin" and "end" per dim. */
static axe_status region_bounds(const ax_stmt *s, const ax_tensor *t,
                                const ax_ref *r, int64_t *begin, int64_t *end,
                                axe_diag *diag)
{
    int d;
    if (r->ndim != t->ndim)
        return axe__fail(diag, AXE_ERR_INVALID, r->off,
                         "device %s: the region of '%s' has %d ranges, but "
                         "'%s' has %d dims (a region gives every dim's "
                         "range)",
                         axe__op_name(s->op), t->name, r->ndim, t->name,
                         t->ndim);
    for (d = 0; d < t->ndim; d++) {
        begin[d] = r->start[d]->value; /* the parser folded it */
        if (r->len[d] < 1 || begin[d] < 0 ||
            axe__add(begin[d], r->len[d], &end[d]) != AXE_OK ||
            end[d] > t->gshape[d])
            return axe__fail(diag, AXE_ERR_DOMAIN, r->off,
                             "device %s: dim %d of the region of '%s' is "
                             "%lld : +%lld, outside [0, %lld)",
                             axe__op_name(s->op), d, t->name,
                             (long long)begin[d], (long long)r->len[d],
                             (long long)t->gshape[d]);
    }
    return AXE_OK;
}

/* "B[0:4, 0:16]" (NULL without memory: the name stands for it). */
static const char *region_text(const axe_program *p, const ax_tensor *t,
                               const int64_t *begin, const int64_t *end)
{
    ax_text x;
    int d;
    axe__text_init(&x, p->arena);
    axe__text_put(&x, "%s[", t->name);
    for (d = 0; d < t->ndim; d++)
        axe__text_put(&x, "%s%lld:%lld", d ? ", " : "", (long long)begin[d],
                      (long long)end[d]);
    axe__text_put(&x, "]");
    return x.status == AXE_OK ? x.buf : NULL;
}

/* The region record of "x" (a copy of its base "t"): the sliced layout,
 * the region's shape and its part of each local shard. */
static axe_status region_record(const ax_stmt *s, int i, const ax_tensor *t,
                                const int64_t *begin, const int64_t *end,
                                ax_tensor *x, axe_diag *diag)
{
    bool found = false;
    axe_diag why;
    int d;
    axe_diag_clear(&why);
    *x = *t;
    if (axe_layout_slice(&t->glayout, t->gshape, begin, end, t->ndim,
                         AXE_TARGET_NONE, &x->glayout, &found,
                         &why) != AXE_OK ||
        !found)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[i].off,
                         "device %s: the region %s has no layout (%s's "
                         "sliced to it): %s",
                         axe__op_name(s->op), s->dtext[i], t->name,
                         why.message);
    x->gsize = 1;
    for (d = 0; d < t->ndim; d++)
        x->gsize *= x->gshape[d] = end[d] - begin[d];
    if (local_part(&x->glayout, x->gshape, x->ndim, &x->layout, x->shape,
                   &why) != AXE_OK ||
        axe_layout_group(&x->layout, x->shape, x->ndim, &x->grouped, x->seps,
                         &why) != AXE_OK)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[i].off,
                         "device %s: the local part of the region %s: %s",
                         axe__op_name(s->op), s->dtext[i], why.message);
    return AXE_OK;
}

/* Operand "i" of "s": a distributed tensor, and for a region its record
 * and text (s->dop, s->dtext). */
static axe_status operand(axe_program *p, ax_stmt *s, int i, axe_diag *diag)
{
    const ax_ref *r = &s->args[i];
    const ax_tensor *t = &p->tensors[r->tensor];
    int64_t begin[AX_MAX_DIMS], end[AX_MAX_DIMS];
    AXE_TRY(check_operand(p, s, i, diag));
    if (r->ndim == 0)
        return AXE_OK;
    AXE_TRY(region_bounds(s, t, r, begin, end, diag));
    s->dtext[i] = region_text(p, t, begin, end);
    s->dop[i] = axe__arena_alloc(p->arena, sizeof *s->dop[i]);
    if (s->dtext[i] == NULL || s->dop[i] == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    return region_record(s, i, t, begin, end, s->dop[i], diag);
}

static axe_status shape_mismatch(const axe_program *p, const ax_stmt *s,
                                 const char *why, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_INVALID, s->off,
                     "device %s: '%s' (%d dims) and '%s' (%d dims): %s",
                     axe__op_name(s->op), axe__devop_text(p, s, 0),
                     axe__devop_tensor(p, s, 0)->ndim, axe__devop_text(p, s, 1),
                     axe__devop_tensor(p, s, 1)->ndim, why);
}

/* copy: equal logical shapes; reduce: dst's shape is src's without k
 * (the operands' shapes: a region's are its lengths). */
static axe_status check_shapes(const axe_program *p, const ax_stmt *s,
                               axe_diag *diag)
{
    const ax_tensor *d = axe__devop_tensor(p, s, 0);
    const ax_tensor *src = axe__devop_tensor(p, s, 1);
    const char *dn = axe__devop_text(p, s, 0), *sn = axe__devop_text(p, s, 1);
    bool red = s->op == AX_OP_REDUCE;
    int i;
    if (red && s->rdim >= src->ndim)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device reduce: dimension %d, but '%s' has %d",
                         s->rdim, sn, src->ndim);
    if (red && src->ndim == 1)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device reduce: '%s' has one dimension; its result "
                         "would have none (reduce a [n, 1] tensor over "
                         "dim 0 into a [1] one)",
                         sn);
    if (d->ndim != src->ndim - red)
        return shape_mismatch(
            p, s,
            red ? "the destination has the source's dims but the reduced one"
                : "the shapes differ",
            diag);
    for (i = 0; i < d->ndim; i++) {
        int j = i + (red && i >= s->rdim);
        if (d->gshape[i] != src->gshape[j])
            return axe__fail(diag, AXE_ERR_INVALID, s->off,
                             "device %s: dim %d of '%s' is %lld, but dim %d "
                             "of '%s' is %lld",
                             axe__op_name(s->op), i, dn,
                             (long long)d->gshape[i], j, sn,
                             (long long)src->gshape[j]);
    }
    return AXE_OK;
}

/* The dtypes a device gemm takes: C, A and B all f32, all f64 or all
 * i32 (the sums in the dtype), or A and B both f16 or both bf16 with an
 * f32 C (mixed precision: each product exact in f32, summed in f32). */
static bool gemm_dtypes(axe_dtype c, axe_dtype a, axe_dtype b)
{
    if (a != b)
        return false;
    if (a == c)
        return c == AXE_DTYPE_F32 || c == AXE_DTYPE_F64 || c == AXE_DTYPE_I32;
    return c == AXE_DTYPE_F32 && (a == AXE_DTYPE_F16 || a == AXE_DTYPE_BF16);
}

/* gemm: C [M,N], A [M,K], B [N,K] of the operands (regions: their
 * lengths), dtypes gemm_dtypes takes (C's is the one the device reduce
 * combines everywhere), and a plan (compiler_dist_gemm.c). */
static axe_status check_gemm(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    const ax_tensor *c = axe__devop_tensor(p, s, 0);
    const ax_tensor *a = axe__devop_tensor(p, s, 1);
    const ax_tensor *b = axe__devop_tensor(p, s, 2);
    const char *cn = axe__devop_text(p, s, 0), *an = axe__devop_text(p, s, 1),
               *bn = axe__devop_text(p, s, 2);
    ax_dist_gemm *g;
    axe_status st;
    if (s->args[0].tensor == s->args[1].tensor ||
        s->args[0].tensor == s->args[2].tensor)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device gemm: '%s' is both C and an operand", c->name);
    if (!gemm_dtypes(c->dtype, a->dtype, b->dtype))
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->off,
                         "device gemm: '%s' is %s, '%s' %s and '%s' %s: C, "
                         "A and B are all f32, all f64 or all i32, or A and "
                         "B both f16 or both bf16 with an f32 C",
                         cn, axe_dtype_name(c->dtype), an,
                         axe_dtype_name(a->dtype), bn,
                         axe_dtype_name(b->dtype));
    if (c->ndim != 2 || a->ndim != 2 || b->ndim != 2)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device gemm(C, A, B): C is [M,N], A [M,K] and B "
                         "[N,K] (C = A.B^T), but '%s' has %d dims, '%s' %d "
                         "and '%s' %d",
                         cn, c->ndim, an, a->ndim, bn, b->ndim);
    if (c->gshape[0] != a->gshape[0] || c->gshape[1] != b->gshape[0] ||
        a->gshape[1] != b->gshape[1])
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device gemm(C, A, B): C is [M,N], A [M,K] and B "
                         "[N,K], but '%s' is [%lld,%lld], '%s' [%lld,%lld] "
                         "and '%s' [%lld,%lld]",
                         cn, (long long)c->gshape[0], (long long)c->gshape[1],
                         an, (long long)a->gshape[0], (long long)a->gshape[1],
                         bn, (long long)b->gshape[0], (long long)b->gshape[1]);
    g = malloc(sizeof *g);
    if (g == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    st = axe__dist_gemm(p, s, g, diag);
    free(g);
    AXE_TRY(st);
    p->tensors[s->args[0].tensor].written = true;
    return axe__devop_explain(p, s);
}

/* Operand "i"'s region of its tensor "t" (the whole tensor when it has
 * none): [begin, end) per dim. */
static void box_of(const ax_stmt *s, int i, const ax_tensor *t, int64_t *begin,
                   int64_t *end)
{
    const ax_ref *r = &s->args[i];
    int d;
    for (d = 0; d < t->ndim; d++) {
        begin[d] = r->ndim == 0 ? 0 : r->start[d]->value;
        end[d] = r->ndim == 0 ? t->gshape[d] : begin[d] + r->len[d];
    }
}

/* A copy between two regions of one tensor: they are disjoint (no
 * element is both read and written, so the runtimes may read and write
 * one buffer in any order); overlapping ones are refused naming both. */
static axe_status check_disjoint(const axe_program *p, const ax_stmt *s,
                                 axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[s->args[0].tensor];
    int64_t b0[AX_MAX_DIMS], e0[AX_MAX_DIMS], b1[AX_MAX_DIMS], e1[AX_MAX_DIMS];
    int d;
    box_of(s, 0, t, b0, e0);
    box_of(s, 1, t, b1, e1);
    for (d = 0; d < t->ndim; d++)
        if (e0[d] <= b1[d] || e1[d] <= b0[d])
            return AXE_OK;          /* apart along dim d */
    for (d = 0; d < t->ndim; d++) { /* the common box */
        b0[d] = b0[d] > b1[d] ? b0[d] : b1[d];
        e0[d] = e0[d] < e1[d] ? e0[d] : e1[d];
    }
    return axe__fail(diag, AXE_ERR_INVALID, s->off,
                     "device copy: the destination %s and the source %s "
                     "overlap (both hold %s): two regions of one tensor in a "
                     "device operator must be disjoint",
                     axe__devop_text(p, s, 0), axe__devop_text(p, s, 1),
                     region_text(p, t, b0, e0));
}

static axe_status check_devop(axe_program *p, ax_stmt *s, axe_diag *diag)
{
    ax_tensor *d = &p->tensors[s->args[0].tensor];
    const ax_tensor *src = &p->tensors[s->args[1].tensor];
    int i;
    if (p->ndev == 0)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "a device operator needs a mesh: write `mesh(P);` "
                         "before `kernel`");
    s->dgemm = NULL; /* a gemm plan made before the operands below */
    for (i = 0; i < s->nargs; i++)
        AXE_TRY(operand(p, s, i, diag));
    if (s->op == AX_OP_GEMM)
        return check_gemm(p, s, diag);
    if (d == src && s->op == AX_OP_COPY)
        AXE_TRY(check_disjoint(p, s, diag));
    else if (d == src)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device %s: '%s' is both the destination and the "
                         "source",
                         axe__op_name(s->op), d->name);
    if (d->dtype != src->dtype)
        return axe__fail(diag, AXE_ERR_INVALID, s->off,
                         "device %s: '%s' is %s but '%s' is %s (device "
                         "operators do not convert)",
                         axe__op_name(s->op), d->name, axe_dtype_name(d->dtype),
                         src->name, axe_dtype_name(src->dtype));
    AXE_TRY(check_shapes(p, s, diag));
    d->written = true;
    return axe__devop_explain(p, s);
}

axe_status axe__sema_devops(axe_program *p, axe_diag *diag)
{
    int i;
    for (i = 0; i < p->ndevops; i++)
        AXE_TRY(check_devop(p, p->devops[i], diag));
    return AXE_OK;
}
