/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sema of the accelerator model's scratchpads (docs/compiler.md, "The
 * accelerator model"): an `sbuf` or `psum` tensor of a core kernel has a
 * layout over the partition axis P and the free axis F (a psum one also
 * over Bank, a bank being psum_bank_bytes of f32), which must stay inside
 * the model's partitions and fit a partition's bytes; the program's
 * scratchpads together must fit too. The declared layout is kept as
 * "playout" and replaced by its storage layout on m, partition-major:
 * element x lies at P(x) * fspan + F(x) (+ Bank(x) * bank elements), with
 * fspan the free elements one partition of the tensor spans, so that
 * the reference, the race detector and the C backend run a core kernel
 * as a one-thread CTA over shared memory. Invariant: after
 * axe__sema_trn_tensor, an sbuf/psum tensor's layout has only m iters and
 * an m offset, and parts * fspan bounds its span.
 */
#include <string.h>

#include "compiler_internal.h"

static const char *space_name(ax_space s)
{
    return s == AX_SPACE_PSUM ? "psum" : "sbuf";
}

/* The axis kind of "axis" in a layout of space "sp": 'P', 'F', 'B'
 * (Bank, psum only), or 0 for any other axis. */
static char axis_kind(ax_space sp, const char *axis)
{
    if (strcmp(axis, "P") == 0)
        return 'P';
    if (strcmp(axis, "F") == 0)
        return 'F';
    if (sp == AX_SPACE_PSUM && strcmp(axis, "Bank") == 0)
        return 'B';
    return 0;
}

/* Largest coordinate on P, F and Bank ("top[0..2]") of layout "l", each
 * iter and offset checked to be on those axes with no negative stride. */
static axe_status reach(const ax_tensor *t, const axe_layout *l, int64_t *top,
                        axe_diag *diag)
{
    static const char kinds[] = "PFB";
    int i;
    top[0] = top[1] = top[2] = 0;
    for (i = 0; i < l->nshard + l->noffset; i++) {
        const char *axis =
            i < l->nshard ? l->shard[i].axis : l->offset[i - l->nshard].axis;
        int64_t x =
            i < l->nshard ? l->shard[i].stride : l->offset[i - l->nshard].value;
        char k = axis_kind(t->space, axis);
        if (k == 0)
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "%s tensor '%s': axis '%s' is not a scratchpad "
                             "axis (P, F%s)",
                             space_name(t->space), t->name, axis,
                             t->space == AX_SPACE_PSUM ? ", Bank" : "");
        if (x < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "%s tensor '%s': negative %s strides and "
                             "offsets are not supported",
                             space_name(t->space), t->name, axis);
        if ((i < l->nshard &&
             axe__mul(l->shard[i].extent - 1, x, &x) != AXE_OK) ||
            axe__add(top[strchr(kinds, k) - kinds], x,
                     &top[strchr(kinds, k) - kinds]) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, t->off,
                             "%s tensor '%s': its %s coordinates overflow",
                             space_name(t->space), t->name, axis);
    }
    return AXE_OK;
}

/* The layout's form: no swizzle, no replica, a psum tensor in f32. */
static axe_status check_form(const ax_tensor *t, axe_diag *diag)
{
    if (t->layout.swizzle.present || t->layout.nreplica > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "%s tensor '%s': swizzled layouts and replica "
                         "iters are not supported on a scratchpad",
                         space_name(t->space), t->name);
    if (t->space == AX_SPACE_PSUM && t->dtype != AXE_DTYPE_F32)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "psum tensor '%s' is %s: PSUM accumulates f32",
                         t->name, axe_dtype_name(t->dtype));
    return AXE_OK;
}

/* Partitions and free span of "t" from its reach "top" against the
 * model "m": parts <= partitions, a Bank-indexed psum tensor's F within
 * a bank, and its bytes per partition within the partition's. */
static axe_status place(const axe_trn_model *m, ax_tensor *t,
                        const int64_t *top, axe_diag *diag)
{
    int64_t bank = m->psum_bank_bytes / 4, cap, bytes;
    bool psum = t->space == AX_SPACE_PSUM;
    t->parts = top[0] + 1;
    if (t->parts > m->partitions)
        return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                         "%s tensor '%s' reaches partition %lld, beyond the "
                         "%lld partitions of the model",
                         space_name(t->space), t->name, (long long)top[0],
                         (long long)m->partitions);
    if (psum && top[2] > 0 && top[1] >= bank)
        return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                         "psum tensor '%s' reaches F %lld inside a bank of "
                         "%lld f32 elements",
                         t->name, (long long)top[1], (long long)bank);
    cap = psum ? m->psum_partition_bytes : m->sbuf_partition_bytes;
    if (axe__mul(top[2], bank, &t->fspan) != AXE_OK ||
        axe__add(t->fspan, top[1] + 1, &t->fspan) != AXE_OK ||
        axe__mul(t->fspan, axe_dtype_size(t->dtype), &bytes) != AXE_OK ||
        bytes > cap)
        return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                         "%s tensor '%s' spans %lld free elements of %s per "
                         "partition, beyond the %lld bytes of a%s partition",
                         space_name(t->space), t->name, (long long)t->fspan,
                         axe_dtype_name(t->dtype), (long long)cap,
                         psum ? " PSUM" : "n SBUF");
    return AXE_OK;
}

/* The m iter or offset of a P/F/Bank one: its stride scaled by fspan
 * (P), 1 (F) or the bank's elements (Bank). */
static int64_t weight(const axe_trn_model *m, const ax_tensor *t,
                      const char *axis)
{
    char k = axis_kind(t->space, axis);
    return k == 'P' ? t->fspan : k == 'B' ? m->psum_bank_bytes / 4 : 1;
}

/* "t"'s storage layout on m (see the file comment); the strides of
 * iters of extent > 1 and the offset stay below parts * fspan, which
 * "place" bounded (an iter of extent 1 gets stride 0). */
static void linearize(const axe_trn_model *m, ax_tensor *t)
{
    axe_layout *l = &t->layout;
    int64_t off = 0;
    int i;
    t->playout = *l;
    for (i = 0; i < l->nshard; i++) {
        l->shard[i].stride =
            l->shard[i].extent == 1
                ? 0
                : l->shard[i].stride * weight(m, t, l->shard[i].axis);
        memset(l->shard[i].axis, 0, sizeof l->shard[i].axis);
        l->shard[i].axis[0] = 'm';
    }
    for (i = 0; i < l->noffset; i++)
        off += l->offset[i].value * weight(m, t, l->offset[i].axis);
    memset(l->offset, 0, sizeof l->offset);
    l->noffset = off > 0;
    l->offset[0].axis[0] = 'm';
    l->offset[0].value = off;
}

axe_status axe__sema_trn_tensor(const axe_program *p, ax_tensor *t,
                                axe_diag *diag)
{
    int64_t top[3];
    axe_diag why;
    if (t->space == AX_SPACE_NONE)
        return AXE_OK;
    if (axe__trn_model_check(&p->opts.trn, &why) != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, t->off, "%s", why.message);
    AXE_TRY(check_form(t, diag));
    AXE_TRY(reach(t, &t->layout, top, diag));
    AXE_TRY(place(&p->opts.trn, t, top, diag));
    linearize(&p->opts.trn, t);
    return AXE_OK;
}

/* No operand of "s" views a scratchpad tensor (a view's layout would
 * address the storage layout, which is no part of the language). */
static axe_status check_views(const axe_program *p, const ax_stmt *s,
                              axe_diag *diag)
{
    int i;
    for (i = 0; i < s->nargs; i++) {
        const ax_tensor *t = &p->tensors[s->args[i].tensor];
        if (s->args[i].is_view && t->space != AX_SPACE_NONE)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, s->args[i].off,
                             "a view of %s tensor '%s' is not supported "
                             "(use a region)",
                             space_name(t->space), t->name);
    }
    return AXE_OK;
}

/* The SBUF and PSUM tensors, summed per partition in declaration order,
 * fit a partition of their scratchpad; a core kernel's model is usable;
 * no operator views a scratchpad tensor. */
axe_status axe__sema_trn_resources(const axe_program *p, axe_diag *diag)
{
    const axe_trn_model *m = &p->opts.trn;
    int64_t used[3] = {0, 0, 0};
    axe_diag why;
    int i;
    if (p->core && axe__trn_model_check(m, &why) != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, -1, "%s", why.message);
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *t = &p->tensors[i];
        bool psum = t->space == AX_SPACE_PSUM;
        int64_t cap = psum ? m->psum_partition_bytes : m->sbuf_partition_bytes;
        if (t->space == AX_SPACE_NONE)
            continue;
        used[t->space] += t->fspan * axe_dtype_size(t->dtype);
        if (used[t->space] > cap)
            return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                             "%s partitions fill up with '%s': %lld bytes "
                             "per partition, beyond the model's %lld",
                             psum ? "PSUM" : "SBUF", t->name,
                             (long long)used[t->space], (long long)cap);
    }
    for (i = 0; i < p->nops; i++)
        AXE_TRY(check_views(p, p->ops[i], diag));
    return AXE_OK;
}
