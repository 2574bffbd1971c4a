/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Alignment constraints of shared tensors (Hexcute §5.2; docs/
 * compiler.md, "Shared-memory bank conflicts"): a copy whose other side
 * moves "len" values per access (its thread-value layout f, or an access
 * of a dispatched plan) needs each such run of logical elements at
 * consecutive addresses: m ∘ f = 1 on the run, m(f(t, k len + e)) =
 * m(f(t, k len)) + e for e < len. When the run follows one dimension d
 * from aligned starts, the layouts that satisfy it are those that split d
 * as (extent / len, len) with stride 1 on the inner mode and any stride
 * elsewhere: the candidate with free strides (4x64 f16 with 16-byte loads
 * along the columns: CuTe (4,8,8):(d2,1,d1), Axe S[(4,8,8):(d2,d1,1)]).
 * Two runs meet along one dimension in runs of their lcm (the consecutive
 * pairs chain), along two dimensions never (x + e_a and x + e_b would both
 * be m(x) + 1). Invariant: a candidate's fixed strides satisfy every
 * constraint it was made from, for every value of its free strides.
 */
#include <stdio.h>
#include <string.h>

#include "compiler_smem.h"

/* Every order of the free strides is tried up to this many of them. */
#define AX_FREE_ORDERS 5

/* The row-major step of dimension "d" of "shape". */
static int64_t dim_step(const int64_t *shape, int ndim, int d)
{
    int64_t s = 1;
    for (int k = d + 1; k < ndim; k++)
        s *= shape[k];
    return s;
}

/* The dimension whose step is "s" (-1 when none; a dimension of extent
 * 1 never carries a run). */
static int dim_of_step(const int64_t *shape, int ndim, int64_t s)
{
    for (int d = ndim - 1; d >= 0; d--)
        if (shape[d] > 1 && dim_step(shape, ndim, d) == s)
            return d;
    return -1;
}

static axe_status set_run(const char *op, int dim, int64_t len, ax_run *out)
{
    memset(out, 0, sizeof *out);
    (void)snprintf(out->op, sizeof out->op, "%s", op);
    out->dim = dim;
    out->len = len;
    return AXE_OK;
}

/* Whether run start "x" (row-major) is aligned to "len" along "d". */
static bool aligned(const int64_t *shape, int ndim, int d, int64_t len,
                    int64_t x)
{
    return x / dim_step(shape, ndim, d) % shape[d] % len == 0;
}

/* The run one access needs (compiler_smem.h). */
axe_status axe__smem_run_of_access(const int64_t *shape, int ndim,
                                   const ax_smem_access *a, const char *op,
                                   ax_run *out, axe_diag *diag)
{
    int d = a->vec > 1 ? dim_of_step(shape, ndim, a->vstride) : ndim - 1;
    if (a->vec == 1)
        return set_run(op, ndim - 1, 1, out);
    if (a->nlev > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s: a vector of %lld elements crosses dimensions "
                         "(logical steps %lld and %lld): no run along one "
                         "dimension",
                         op, (long long)a->vec, (long long)a->vstride,
                         (long long)a->lstride[0]);
    if (d < 0 || shape[d] % a->vec != 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s: a vector of %lld elements at logical step "
                         "%lld follows no single dimension",
                         op, (long long)a->vec, (long long)a->vstride);
    for (int t = 0; t < AX_WARP; t++)
        if (a->active[t] && !aligned(shape, ndim, d, a->vec, a->index[t]))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s: lane %d's vector of %lld starts at "
                             "element %lld, not aligned along dimension %d",
                             op, t, (long long)a->vec, (long long)a->index[t],
                             d);
    return set_run(op, d, a->vec, out);
}

/* f(t, v) of thread-value layout "tv" (colex index t + T v). */
static axe_status tv_at(const axe_cute_layout *tv, int64_t nt, int64_t t,
                        int64_t v, int64_t *x)
{
    return axe_cute_eval(tv, t + nt * v, x);
}

/* The run of a thread-value layout (compiler_smem.h). */
axe_status axe__smem_run_of_tv(const int64_t *shape, int ndim,
                               const axe_cute_layout *tv, int64_t nt,
                               int64_t len, const char *op, ax_run *out,
                               axe_diag *diag)
{
    int64_t size, nv, x0, x1, s;
    int d;
    AXE_TRY(axe_cute_size(tv, &size));
    nv = nt > 0 ? size / nt : 0;
    if (nt < 1 || len < 1 || size % nt != 0 || nv % len != 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "%s: %lld threads and runs of %lld do not divide "
                         "the thread-value layout's %lld entries",
                         op, (long long)nt, (long long)len, (long long)size);
    if (len == 1)
        return set_run(op, ndim - 1, 1, out);
    AXE_TRY(tv_at(tv, nt, 0, 0, &x0));
    AXE_TRY(tv_at(tv, nt, 0, 1, &x1));
    s = x1 - x0;
    d = dim_of_step(shape, ndim, s);
    if (d < 0 || shape[d] % len != 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s: values 0 and 1 of thread 0 are %lld elements "
                         "apart, no dimension's step with a multiple of %lld "
                         "elements",
                         op, (long long)s, (long long)len);
    for (int64_t t = 0; t < nt; t++)
        for (int64_t v = 0; v < nv; v += len)
            for (int64_t e = 0; e < len; e++) {
                int64_t b, x;
                AXE_TRY(tv_at(tv, nt, t, v, &b));
                AXE_TRY(tv_at(tv, nt, t, v + e, &x));
                if (x != b + e * s || !aligned(shape, ndim, d, len, b))
                    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                                     "%s: thread %lld's values %lld.. are "
                                     "no aligned run of %lld along "
                                     "dimension %d",
                                     op, (long long)t, (long long)v,
                                     (long long)len, d);
            }
    return set_run(op, d, len, out);
}

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b != 0) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* Two runs on one tensor (compiler_smem.h). */
axe_status axe__smem_runs_meet(const int64_t *shape, int ndim, const ax_run *a,
                               const ax_run *b, ax_run *out, axe_diag *diag)
{
    int64_t l;
    if (a->dim < 0 || a->dim >= ndim || b->dim < 0 || b->dim >= ndim)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "a run names dimension %d or %d of a %d-d tensor",
                         a->dim, b->dim, ndim);
    if (a->len == 1 || b->len == 1) {
        *out = a->len == 1 ? *b : *a;
        return AXE_OK;
    }
    if (a->dim != b->dim)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s needs runs of %lld along dimension %d and %s "
                         "runs of %lld along dimension %d: no layout puts "
                         "both dimensions at stride 1",
                         a->op, (long long)a->len, a->dim, b->op,
                         (long long)b->len, b->dim);
    l = a->len / gcd64(a->len, b->len) * b->len;
    if (shape[a->dim] % l != 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s (runs of %lld) and %s (runs of %lld) need runs "
                         "of %lld along dimension %d of extent %lld",
                         a->op, (long long)a->len, b->op, (long long)b->len,
                         (long long)l, a->dim, (long long)shape[a->dim]);
    *out = *a;
    out->len = l;
    if (b->len > a->len)
        (void)snprintf(out->op, sizeof out->op, "%s", b->op);
    return AXE_OK;
}

/* The candidate of run "r" (compiler_smem.h). */
axe_status axe__smem_candidate(const int64_t *shape, int ndim, const ax_run *r,
                               ax_free_layout *out, axe_diag *diag)
{
    int nfree = 0;
    if (ndim < 1 || ndim + 1 > AX_FREE_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "a candidate layout has at most %d modes",
                         AX_FREE_MAX);
    memset(out, 0, sizeof *out);
    for (int d = 0; d < ndim; d++) {
        bool split = d == r->dim && r->len > 1;
        out->dim[out->n] = d;
        out->extent[out->n++] = split ? shape[d] / r->len : shape[d];
        if (split) {
            out->dim[out->n] = d;
            out->extent[out->n] = r->len;
            out->stride[out->n++] = 1;
        }
    }
    /* free strides numbered by the modes' row-major steps, smallest d1 */
    for (int k = out->n - 1; k >= 0; k--)
        if (out->stride[k] == 0)
            out->stride[k] = -(++nfree);
    return AXE_OK;
}

static size_t put_stride(char *buf, size_t cap, size_t k, int64_t s)
{
    int n =
        s > 0
            ? snprintf(buf + k, k < cap ? cap - k : 0, "%lld", (long long)s)
            : snprintf(buf + k, k < cap ? cap - k : 0, "d%lld", (long long)-s);
    return k + (size_t)n;
}

/* The candidate in the notation (compiler_smem.h). */
size_t axe__free_layout_text(const ax_free_layout *l, bool cute, char *buf,
                             size_t cap)
{
    int order[AX_FREE_MAX], n = 0;
    size_t k = 0;
    /* Axe: modes as stored (dims in order, outer first); CuTe: dims in
     * order, each dim's modes inner first */
    for (int i = 0; i < l->n; i++) {
        int j = i;
        while (cute && j + 1 < l->n && l->dim[j + 1] == l->dim[i])
            j++;
        for (int m = j; m >= i; m--)
            order[n++] = cute ? m : i + (j - m);
        i = j;
    }
    k += (size_t)snprintf(buf, cap, "%s(", cute ? "" : "S[");
    for (int i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s%lld",
                              i ? "," : "", (long long)l->extent[order[i]]);
    k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "):(");
    for (int i = 0; i < n; i++) {
        if (i > 0)
            k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, ",");
        k = put_stride(buf, cap, k, l->stride[order[i]]);
    }
    return k + (size_t)snprintf(buf + k, k < cap ? cap - k : 0, ")%s",
                                cute ? "" : "]");
}

/* The compact instance (compiler_smem.h): free strides d1, d2, ... the
 * products of the extents of the modes inside them, d1 the span of the
 * fixed modes. */
axe_status axe__free_layout_compact(const ax_free_layout *l, axe_layout *out,
                                    axe_diag *diag)
{
    int64_t next = 1, stride[AX_FREE_MAX];
    /* past the last fixed address: the fixed modes make [0, next) */
    for (int k = 0; k < l->n; k++)
        if (l->stride[k] > 0)
            next += l->stride[k] * (l->extent[k] - 1);
    for (int f = 1; f <= l->n; f++)
        for (int k = l->n - 1; k >= 0; k--)
            if (l->stride[k] == -f) {
                stride[k] = next;
                next *= l->extent[k];
            }
    axe_layout_init(out);
    for (int k = 0; k < l->n; k++)
        if (axe_layout_push_shard(out, l->extent[k],
                                  l->stride[k] > 0 ? l->stride[k] : stride[k],
                                  "m") != AXE_OK)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "the candidate has too many modes for a layout");
    return AXE_OK;
}

/* The meet of every access's run on tensor "ti" (compiler_smem.h). */
axe_status axe__smem_tensor_run(const axe_program *p, const ax_smem_list *l,
                                int ti, ax_run *out, axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    ax_run acc;
    (void)set_run("", t->ndim - 1, 1, &acc);
    for (int k = 0; k < l->n; k++) {
        char op[24];
        ax_run r;
        if (l->a[k].tensor != ti)
            continue;
        (void)snprintf(op, sizeof op, "%s#%d",
                       axe__op_name(p->ops[l->a[k].op]->op), l->a[k].op);
        AXE_TRY(
            axe__smem_run_of_access(t->shape, t->ndim, &l->a[k], op, &r, diag));
        AXE_TRY(axe__smem_runs_meet(t->shape, t->ndim, &acc, &r, &acc, diag));
    }
    *out = acc;
    return AXE_OK;
}

/* Swizzle "sw" placed on layout "l" (compiler_smem.h). */
static void with_swizzle(axe_layout *l, const axe_layout_swizzle *sw)
{
    l->swizzle = *sw;
}

/* The accesses of tensor "ti" in "l" with each vector split into its
 * single elements ("out" in the program's arena, without hash slots). */
axe_status axe__smem_scalar_accesses(axe_program *p, const ax_smem_list *l,
                                     int ti, ax_smem_list *out, axe_diag *diag)
{
    int64_t n = 0;
    for (int k = 0; k < l->n; k++)
        n += l->a[k].tensor == ti ? l->a[k].vec : 0;
    if (n > AX_SMEM_MAX_ACCESSES)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "more than %d single-element shared-memory "
                         "accesses",
                         AX_SMEM_MAX_ACCESSES);
    out->a =
        axe__arena_alloc(p->arena, (size_t)(n > 0 ? n : 1) * sizeof *out->a);
    if (out->a == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    out->n = out->cap = 0;
    out->slot = NULL;
    for (int k = 0; k < l->n; k++)
        for (int64_t e = 0; l->a[k].tensor == ti && e < l->a[k].vec; e++) {
            ax_smem_access *a = &out->a[out->n++];
            *a = l->a[k];
            a->vec = a->vstride = 1;
            a->nlev = 0;
            for (int t = 0; t < AX_WARP; t++)
                a->index[t] += a->active[t] ? axe__smem_offset(&l->a[k], e) : 0;
        }
    out->cap = out->n;
    return AXE_OK;
}

/* "l" (the compact instance of "f", one iter per mode) with each two
 * adjacent modes of one dimension that are one run of addresses merged
 * (the same map, and the plans see one iter per such run: a vector of a
 * copy may span it). */
static axe_status merge_modes(const ax_free_layout *f, axe_layout *l,
                              axe_diag *diag)
{
    axe_layout m;
    int dim = -1;
    axe_layout_init(&m);
    for (int k = 0; k < l->nshard; k++) {
        axe_iter *last = m.nshard > 0 ? &m.shard[m.nshard - 1] : NULL;
        if (last != NULL && f->dim[k] == dim &&
            last->stride == l->shard[k].extent * l->shard[k].stride) {
            last->extent *= l->shard[k].extent;
            last->stride = l->shard[k].stride;
            continue;
        }
        dim = f->dim[k];
        if (axe_layout_push_shard(&m, l->shard[k].extent, l->shard[k].stride,
                                  "m") != AXE_OK)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "the candidate has too many modes for a layout");
    }
    *l = m;
    return AXE_OK;
}

/* The instance of "l" whose free strides are given in the order "perm"
 * (perm[0] the free stride numbered first gets the smallest: the fixed
 * mode's extent, each next the product so far); perm the identity is
 * axe__free_layout_compact's. */
static axe_status compact_in_order(const ax_free_layout *l, const int *perm,
                                   int nfree, axe_layout *out, axe_diag *diag)
{
    ax_free_layout o = *l;
    for (int k = 0; k < l->n; k++)
        for (int j = 0; l->stride[k] < 0 && j < nfree; j++)
            if (l->stride[k] == -perm[j])
                o.stride[k] = -(j + 1);
    return axe__free_layout_compact(&o, out, diag);
}

/* The next permutation of "a" in lexicographic order; false after the
 * last. */
static bool next_perm(int *a, int n)
{
    int i = n - 2, j = n - 1;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    while (a[j] <= a[i])
        j--;
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int x = i + 1, y = n - 1; x < y; x++, y--) {
        t = a[x];
        a[x] = a[y];
        a[y] = t;
    }
    return true;
}

/* The instance of "f" in free-stride order "perm" with adjacent modes
 * merged (compiler_smem.h). */
axe_status axe__free_layout_instance(const ax_free_layout *f, const int *perm,
                                     int nfree, axe_layout *out, axe_diag *diag)
{
    AXE_TRY(compact_in_order(f, perm, nfree, out, diag));
    return merge_modes(f, out, diag);
}

bool axe__free_layout_next_order(int *perm, int nfree)
{
    return nfree <= AX_FREE_ORDERS && next_perm(perm, nfree);
}

/* Whether instance "c" with its choice "rc" beats "best" with "bc": its
 * vectors hold, and the largest ways, then their sum, then the number of
 * iters are fewer (fewer iters: more of the tensor's dims are one run of
 * addresses, which keeps regions affine for the plans). */
static bool better_order(const ax_smem_choice *rc, const axe_layout *c,
                         const ax_smem_choice *bc, const axe_layout *best)
{
    if (!rc->ok)
        return false;
    if (!bc->ok)
        return true;
    if (rc->after.max != bc->after.max)
        return rc->after.max < bc->after.max;
    if (rc->after.sum != bc->after.sum)
        return rc->after.sum < bc->after.sum;
    return c->nshard < best->nshard;
}

/* The counts an instance "c" must be below to beat "best" with "bc"
 * (better_order): none while no instance's vectors hold; at most
 * "bc"'s ways when "c" has fewer iters, else fewer. */
static const ax_ways *bound_of(bool have, const ax_smem_choice *bc,
                               const axe_layout *best, const axe_layout *c,
                               ax_ways *out)
{
    if (!have || !bc->ok)
        return NULL;
    *out = bc->after;
    out->sum += c->nshard < best->nshard ? 1 : 0;
    return out;
}

/* The compact instance of "f" in free-stride order "perm", its adjacent
 * modes merged, and the swizzle chosen over the accesses "rows" of "ti"
 * (the ldmatrix copies by their rows) where that instance keeps them
 * whole, else over "l": into "*best" and "*bc" when its vectors hold and
 * its counts beat them (better_order; ties keep the earlier; an instance
 * that cannot beat them is not counted to the end). */
static axe_status try_order(axe_program *p, const ax_smem_list *rows,
                            const ax_smem_list *l, int ti,
                            const ax_free_layout *f, const int *perm, int nfree,
                            axe_layout *best, ax_smem_choice *bc, bool *have,
                            axe_diag *diag)
{
    axe_layout c;
    ax_smem_report r;
    ax_ways bw;
    const ax_ways *bound;
    bool below = true;
    AXE_TRY(axe__free_layout_instance(f, perm, nfree, &c, diag));
    bound = bound_of(*have, bc, best, &c, &bw);
    if (rows != NULL)
        AXE_TRY(
            axe__smem_choose_below(p, rows, ti, &c, bound, &r, &below, diag));
    if (rows == NULL || !r.choice[0].ok)
        AXE_TRY(axe__smem_choose_below(p, l, ti, &c, bound, &r, &below, diag));
    if (!below || (*have && !better_order(&r.choice[0], &c, bc, best)))
        return AXE_OK;
    *best = c;
    *bc = r.choice[0];
    *have = true;
    return AXE_OK;
}

/* The synthesized layout of shared tensor "ti" (compiler_smem.h): over
 * the orders of the candidate's free strides (every order for at most
 * AX_FREE_ORDERS free strides, else the compact one), the instance whose
 * chosen swizzle leaves the fewest ways on the accesses. */
axe_status axe__smem_synthesize(axe_program *p, int ti, bool scalar,
                                axe_layout *out, ax_smem_choice *choice,
                                axe_diag *diag)
{
    const ax_tensor *t = &p->tensors[ti];
    ax_smem_list all, l, rows;
    ax_run run;
    ax_free_layout f;
    axe_layout best;
    int perm[AX_FREE_MAX], nfree = 0;
    bool have = false, more = true, by_rows = false;
    AXE_TRY(axe__smem_accesses(p, &all, diag));
    l = all;
    if (scalar)
        AXE_TRY(axe__smem_scalar_accesses(p, &all, ti, &l, diag));
    AXE_TRY(axe__smem_ldsm_rows_list(p, &l, ti, &rows, &by_rows, diag));
    AXE_TRY(axe__smem_tensor_run(p, &l, ti, &run, diag));
    AXE_TRY(axe__smem_candidate(t->shape, t->ndim, &run, &f, diag));
    for (int k = 0; k < f.n; k++)
        if (f.stride[k] < 0)
            perm[nfree] = nfree + 1, nfree++;
    while (more) {
        AXE_TRY(try_order(p, by_rows ? &rows : NULL, &l, ti, &f, perm, nfree,
                          &best, choice, &have, diag));
        more = axe__free_layout_next_order(perm, nfree);
    }
    if (!choice->ok)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, t->off,
                         "shared tensor '%s': the candidate breaks a vector "
                         "of its own accesses",
                         t->name);
    *out = best;
    if (choice->sw.present)
        with_swizzle(out, &choice->sw);
    return AXE_OK;
}
