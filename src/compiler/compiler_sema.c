/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Semantic checks of a parsed program: every layout admits its tensor's
 * shape (same size, groupable by the shape), memory iters are on `m`,
 * register layouts over thread axes cover the threads of their scope
 * exactly once (replica iters included), operands agree in shape and
 * dtype, regions and views stay inside their tensors for every value of
 * the block/thread ids and loop variables, and each operator's scope may
 * touch its operands. Fills each tensor's grouped layout, span and owner.
 */
#include <string.h>

#include "compiler_internal.h"

/* Rank stride of one step of thread axis "axis" within its family, and the
 * scope owning it; 0 when "axis" is not a thread axis of the language. */
static int64_t axis_rank_stride(const char *axis, ax_scope *owner,
                                int64_t *bound)
{
    static const struct {
        const char *name;
        int64_t stride, bound;
        ax_scope owner;
    } table[] = {{"tx", 1, 1024, AX_SCOPE_CTA},
                 {"warpid", 32, 32, AX_SCOPE_CTA},
                 {"warp", 32, 32, AX_SCOPE_CTA},
                 {"wgid", 128, 8, AX_SCOPE_CTA},
                 {"tid_in_wg", 1, 128, AX_SCOPE_WARPGROUP},
                 {"wid_in_wg", 32, 4, AX_SCOPE_WARPGROUP},
                 {"laneid", 1, 32, AX_SCOPE_WARP},
                 {"lane", 1, 32, AX_SCOPE_WARP}};
    size_t i;
    for (i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, axis) == 0) {
            *owner = table[i].owner;
            *bound = table[i].bound;
            return table[i].stride;
        }
    return 0;
}

/* The rank stride of an iter on a thread axis (0: memory axis `m`). A
 * stride whose rank stride overflows (sema refuses it as leaving its axis)
 * gives INT64_MAX, so it is never mistaken for a memory iter. */
int64_t axe__iter_rank_stride(const axe_iter *it)
{
    ax_scope owner;
    int64_t bound, r, rs = axis_rank_stride(it->axis, &owner, &bound);
    return axe__mul(rs, it->stride, &r) == AXE_OK ? r : INT64_MAX;
}

static bool family_clash(const char *a, const char *b)
{
    static const char *const pairs[][2] = {
        {"tx", "warpid"},      {"tx", "laneid"},
        {"tx", "wgid"},        {"tx", "tid_in_wg"},
        {"tx", "wid_in_wg"},   {"tx", "lane"},
        {"tx", "warp"},        {"tid_in_wg", "laneid"},
        {"tid_in_wg", "lane"}, {"tid_in_wg", "wid_in_wg"},
        {"warpid", "wgid"},    {"warpid", "wid_in_wg"},
        {"warp", "wgid"},      {"warp", "wid_in_wg"}};
    size_t i;
    for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if ((strcmp(pairs[i][0], a) == 0 && strcmp(pairs[i][1], b) == 0) ||
            (strcmp(pairs[i][0], b) == 0 && strcmp(pairs[i][1], a) == 0))
            return true;
    return false;
}

typedef struct thread_iters {
    int n;
    int64_t extent[AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA];
    int64_t rank_stride[AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA];
    const axe_iter *it[AXE_LAYOUT_MAX_SHARD + AXE_LAYOUT_MAX_REPLICA];
} thread_iters;

static axe_status classify_iter(const ax_tensor *t, const axe_iter *it,
                                thread_iters *ti, ax_scope *owner,
                                axe_diag *diag)
{
    ax_scope o;
    int64_t bound, rs = axis_rank_stride(it->axis, &o, &bound);
    if (rs == 0) {
        if (strcmp(it->axis, "m") != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "tensor '%s': axis '%s' is neither the memory "
                             "axis m nor a thread axis of a CTA",
                             t->name, it->axis);
        if (it->stride < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "tensor '%s': negative memory strides are not "
                             "supported",
                             t->name);
        return AXE_OK;
    }
    if (t->mem != AX_MEM_REGISTER)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s' is %s: only register layouts may use "
                         "thread axis '%s'",
                         t->name, axe__mem_name(t->mem), it->axis);
    if (it->stride == 0)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "tensor '%s': iter %lld:0@%s has stride 0 on a "
                         "thread axis: its %lld elements would share one "
                         "register of one thread",
                         t->name, (long long)it->extent, it->axis,
                         (long long)it->extent);
    if (it->stride < 0 || it->extent - 1 > (bound - 1) / it->stride)
        return axe__fail(diag, AXE_ERR_DOMAIN, t->off,
                         "tensor '%s': iter %lld:%lld@%s leaves the range "
                         "[0, %lld) of %s",
                         t->name, (long long)it->extent, (long long)it->stride,
                         it->axis, (long long)bound, it->axis);
    if (o < *owner)
        *owner = o;
    ti->extent[ti->n] = it->extent;
    ti->it[ti->n] = it;
    ti->rank_stride[ti->n++] = rs * it->stride;
    return AXE_OK;
}

static axe_status check_axis_family(const ax_tensor *t, axe_diag *diag)
{
    const axe_layout *l = &t->layout;
    int i, j;
    for (i = 0; i < l->nshard; i++)
        for (j = 0; j < l->nshard; j++)
            if (family_clash(l->shard[i].axis, l->shard[j].axis))
                return axe__fail(diag, AXE_ERR_INVALID, t->off,
                                 "tensor '%s' mixes thread axes %s and %s, "
                                 "which index the same threads",
                                 t->name, l->shard[i].axis, l->shard[j].axis);
    return AXE_OK;
}

static void swap_iters(thread_iters *ti, int i, int j)
{
    int64_t e = ti->extent[i], s = ti->rank_stride[i];
    const axe_iter *it = ti->it[i];
    ti->extent[i] = ti->extent[j];
    ti->rank_stride[i] = ti->rank_stride[j];
    ti->it[i] = ti->it[j];
    ti->extent[j] = e;
    ti->rank_stride[j] = s;
    ti->it[j] = it;
}

/* Iter "b" starts at a thread that iter "a" (below it) already reaches:
 * two coordinates name that thread, for two elements in one register. */
static axe_status overlap(const ax_tensor *t, const axe_iter *a,
                          const axe_iter *b, int64_t thread, axe_diag *diag)
{
    return axe__fail(diag, AXE_ERR_INVALID, t->off,
                     "register layout of '%s': thread iters %lld:%lld@%s and "
                     "%lld:%lld@%s overlap: thread %lld is reached by two "
                     "coordinates, so it would hold two different elements "
                     "in one register",
                     t->name, (long long)a->extent, (long long)a->stride,
                     a->axis, (long long)b->extent, (long long)b->stride,
                     b->axis, (long long)thread);
}

/* The thread iters must tile [0, n) exactly: sorted by rank stride, each
 * stride is the product of the smaller iters' extents. */
static axe_status check_cover(const ax_tensor *t, thread_iters *ti, int64_t n,
                              axe_diag *diag)
{
    int64_t next = 1;
    int i, j, below = -1;
    for (i = 0; i < ti->n; i++)
        for (j = i + 1; j < ti->n; j++)
            if (ti->rank_stride[j] < ti->rank_stride[i])
                swap_iters(ti, i, j);
    for (i = 0; i < ti->n; i++) {
        if (ti->extent[i] == 1)
            continue;
        if (ti->rank_stride[i] < next)
            return overlap(t, ti->it[below], ti->it[i], ti->rank_stride[i],
                           diag);
        if (ti->rank_stride[i] > next)
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "register layout of '%s' does not cover each of "
                             "the %s's %lld threads exactly once: thread %lld "
                             "holds no element",
                             t->name, axe__scope_name(t->owner), (long long)n,
                             (long long)next);
        next *= ti->extent[i];
        below = i;
    }
    if (next > n)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "the thread axes of '%s' reach %lld threads, but "
                         "the %s has %lld",
                         t->name, (long long)next, axe__scope_name(t->owner),
                         (long long)n);
    if (next < n)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "register layout of '%s' covers %lld threads, but "
                         "the %s has %lld: thread %lld holds no element",
                         t->name, (long long)next, axe__scope_name(t->owner),
                         (long long)n, (long long)next);
    return AXE_OK;
}

static axe_status check_threads(const axe_program *p, ax_tensor *t,
                                axe_diag *diag)
{
    thread_iters ti;
    const axe_layout *l = &t->layout;
    int i;
    ti.n = 0;
    t->owner = AX_SCOPE_THREAD;
    for (i = 0; i < l->nshard; i++)
        AXE_TRY(classify_iter(t, &l->shard[i], &ti, &t->owner, diag));
    for (i = 0; i < l->nreplica; i++) {
        if (axe__iter_rank_stride(&l->replica[i]) == 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "tensor '%s': replica iters on memory are not "
                             "supported",
                             t->name);
        AXE_TRY(classify_iter(t, &l->replica[i], &ti, &t->owner, diag));
    }
    for (i = 0; i < l->noffset; i++)
        if (strcmp(l->offset[i].axis, "m") != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "tensor '%s': offsets on thread axes are not "
                             "supported",
                             t->name);
    t->distributed = ti.n > 0;
    if (!t->distributed)
        return AXE_OK;
    AXE_TRY(check_axis_family(t, diag));
    return check_cover(t, &ti, axe__scope_threads(p, t->owner), diag);
}

static axe_status tensor_span(ax_tensor *t, axe_diag *diag)
{
    const axe_layout *l = &t->layout;
    int64_t span = 1, x;
    int i;
    for (i = 0; i < l->nshard; i++)
        if (axe__iter_rank_stride(&l->shard[i]) == 0) {
            if (axe__mul(l->shard[i].extent - 1, l->shard[i].stride, &x) ||
                axe__add(span, x, &span))
                return axe__fail(diag, AXE_ERR_OVERFLOW, t->off,
                                 "tensor '%s': span overflows", t->name);
        }
    for (i = 0; i < l->noffset; i++)
        if (l->offset[i].value < 0 ||
            axe__add(span, l->offset[i].value, &span) != AXE_OK)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                             "tensor '%s': bad memory offset", t->name);
    if (t->dyn_extent == NULL && span > ((int64_t)1 << 40) / 8)
        return axe__fail(diag, AXE_ERR_DOMAIN, t->off,
                         "tensor '%s' needs %lld elements: too large", t->name,
                         (long long)span);
    t->span = span;
    return AXE_OK;
}

/* A swizzled layout: on a shared tensor only, and the span covers every
 * swizzled address (the largest address of an element plus one, found
 * by evaluating the layout when the tensor has at most 2^22 elements;
 * otherwise the span rounded up to the swizzle's block of 2^(M+S+B)
 * elements, which the swizzle maps into itself). */
static axe_status swizzle_span(ax_tensor *t, int64_t size, axe_diag *diag)
{
    const axe_layout_swizzle *sw = &t->layout.swizzle;
    int64_t x, top = t->span, block;
    AXE_TRY(axe__swizzle_check(t, sw, t->off, diag));
    block = (int64_t)1 << (sw->per_element + sw->atom + sw->len);
    for (x = 0; x < size && size <= ((int64_t)1 << 22); x++) {
        axe_point pt;
        int k;
        AXE_TRY(axe_layout_apply_base(&t->layout, x, &pt, diag));
        for (k = 0; k < pt.n; k++)
            if (strcmp(pt.axis[k], "m") == 0 && pt.v[k] + 1 > top)
                top = pt.v[k] + 1;
    }
    if (size > ((int64_t)1 << 22) &&
        (top > INT64_MAX - block || (top = (top + block - 1) / block * block,
                                     top > ((int64_t)1 << 40) / 8)))
        return axe__fail(diag, AXE_ERR_DOMAIN, t->off,
                         "tensor '%s' is too large for its swizzle", t->name);
    t->span = top;
    return AXE_OK;
}

/* Packed i4 (docs/compiler.md) is not supported yet in mesh programs and
 * core kernels. A swizzle of an i4 tensor must keep whole bytes: one that
 * moves no bit below M >= 1 maps each byte's two nibbles (elements 2k,
 * 2k + 1) to one byte, in order. */
static axe_status check_i4_tensor(const axe_program *p, const ax_tensor *t,
                                  axe_diag *diag)
{
    const axe_layout_swizzle *sw = &t->layout.swizzle;
    const char *where = p->nmesh > 0 ? "a mesh program"
                        : p->core    ? "a core kernel"
                                     : NULL;
    if (t->dtype != AXE_DTYPE_I4)
        return AXE_OK;
    if (where != NULL)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "'%s' is packed i4, which is not supported in %s "
                         "(yet)",
                         t->name, where);
    if (sw->present && sw->len > 0 && sw->per_element < 1)
        return axe__fail(
            diag, AXE_ERR_UNSUPPORTED, t->off,
            "'%s' is packed i4: its swizzle Swizzle<%d,%d,%d> "
            "moves element address bit 0, the nibble within a byte "
            "(an i4 swizzle needs M >= 1: whole bytes)",
            t->name, (int)sw->per_element, (int)sw->len, (int)sw->atom);
    return AXE_OK;
}

static axe_status check_tensor(const axe_program *p, ax_tensor *t,
                               axe_diag *diag)
{
    int64_t size, n = 1;
    int i;
    axe_diag why;
    axe_status st;
    AXE_TRY(check_i4_tensor(p, t, diag));
    AXE_TRY(axe__sema_dist_tensor(p, t, diag));
    AXE_TRY(axe__sema_trn_tensor(p, t, diag));
    for (i = 0; i < t->ndim; i++)
        if (axe__mul(n, t->shape[i], &n) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, t->off,
                             "tensor '%s': size overflows", t->name);
    st = axe_layout_size(&t->layout, NULL, &size);
    if (st != AXE_OK || size != n)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "the layout of '%s' has %lld elements but its shape "
                         "has %lld",
                         t->name, (long long)(st == AXE_OK ? size : -1),
                         (long long)n);
    st = axe_layout_group(&t->layout, t->shape, t->ndim, &t->grouped, t->seps,
                          &why);
    if (st != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "the layout of '%s' does not admit its shape: %s",
                         t->name, why.message);
    AXE_TRY(check_threads(p, t, diag));
    AXE_TRY(tensor_span(t, diag));
    return t->layout.swizzle.present ? swizzle_span(t, n, diag) : AXE_OK;
}

/* Shared memory of the CTA and registers of one thread, summed in
 * declaration order, stay within AX_MAX_SHARED_BYTES and
 * AX_MAX_REGISTER_BYTES (spans are below 2^37 elements: no overflow). */
static axe_status check_resources(const axe_program *p, axe_diag *diag)
{
    int64_t shared = 0, regs = 0;
    int i;
    for (i = 0; i < p->ntensors; i++) {
        const ax_tensor *t = &p->tensors[i];
        int64_t bytes = axe_dtype_storage(t->dtype, t->span);
        if (t->mem == AX_MEM_SHARED && t->space == AX_SPACE_NONE &&
            (shared += bytes) > AX_MAX_SHARED_BYTES)
            return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                             "shared memory of one CTA reaches %lld bytes "
                             "with '%s', beyond the %d bytes (227 KiB) a "
                             "CTA may use",
                             (long long)shared, t->name, AX_MAX_SHARED_BYTES);
        if (t->mem == AX_MEM_REGISTER &&
            (regs += bytes) > AX_MAX_REGISTER_BYTES)
            return axe__fail(diag, AXE_ERR_CAPACITY, t->off,
                             "registers of one thread reach %lld bytes with "
                             "'%s', beyond 255 32-bit registers (%d bytes)",
                             (long long)regs, t->name, AX_MAX_REGISTER_BYTES);
    }
    return AXE_OK;
}

/* A register tensor's memory iters give each of a thread's elements a
 * register of its own (elements at one register would be one value in
 * the generated code and two in the reference). Brute force over the
 * thread's elements, after check_resources bounded the span. */
static axe_status check_registers_injective(const ax_tensor *t, axe_diag *diag)
{
    static const int64_t cap = 2 * AX_MAX_REGISTER_BYTES; /* i4 elements */
    bool seen[2 * AX_MAX_REGISTER_BYTES] = {false};
    const axe_layout *l = &t->layout;
    int64_t coord[AXE_LAYOUT_MAX_SHARD] = {0}, off = 0, count = 1;
    int m[AXE_LAYOUT_MAX_SHARD], nm = 0, i;
    for (i = 0; i < l->nshard; i++)
        if (axe__iter_rank_stride(&l->shard[i]) == 0 && l->shard[i].extent > 1)
            m[nm++] = i, count *= l->shard[i].extent;
    if (t->span > cap) /* refused by check_resources already */
        return AXE_OK;
    if (count > t->span) /* pigeonhole: some share */
        return axe__fail(diag, AXE_ERR_INVALID, t->off,
                         "register layout of '%s' gives a thread %lld "
                         "elements in %lld registers: two elements would "
                         "share one register",
                         t->name, (long long)count, (long long)t->span);
    for (;;) {
        if (seen[off])
            return axe__fail(diag, AXE_ERR_INVALID, t->off,
                             "register layout of '%s' puts two elements of a "
                             "thread in register %lld: its memory iters "
                             "overlap (replicate with R[...] instead)",
                             t->name, (long long)off);
        seen[off] = true;
        for (i = nm - 1; i >= 0; i--) { /* the next coordinate */
            const axe_iter *it = &l->shard[m[i]];
            off += it->stride;
            if (++coord[i] < it->extent)
                break;
            off -= it->stride * it->extent;
            coord[i] = 0;
        }
        if (i < 0)
            return AXE_OK;
    }
}

/* Check every tensor, then every statement (compiler_sema_ops.c). */
axe_status axe__program_check(axe_program *p, axe_diag *diag)
{
    int i;
    for (i = 0; i < p->ntensors; i++)
        AXE_TRY(check_tensor(p, &p->tensors[i], diag));
    AXE_TRY(check_resources(p, diag));
    for (i = 0; i < p->ntensors; i++)
        if (p->tensors[i].mem == AX_MEM_REGISTER)
            AXE_TRY(check_registers_injective(&p->tensors[i], diag));
    AXE_TRY(axe__sema_trn_resources(p, diag));
    AXE_TRY(axe__sema_devops(p, diag));
    return axe__sema_ops(p, diag);
}
