/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sharding specs as Axe layouts and back (include/axe/sharding.h). A spec
 * names, per tensor dim, the mesh axes that shard it (major first); its
 * layout has, per dim, one iter (size(a), gstride(a)@gpuid) per such axis
 * a, gstride the row-major stride of a over the mesh, then the iter
 * (local extent, local row-major stride) on m; the mesh axes no dim uses
 * are replica iters. The reverse reads a layout grouped by the shape:
 * each dim's gpuid iters (adjacent ones fused) must be runs of whole
 * non-trivial mesh axes, outside its m iters; the replica likewise; the m
 * iters of all dims must be the dense row-major map of the local shape.
 * Those checks make the spec's layout induce the same map (the laws in
 * tests/test_sharding.c check it by brute force). Invariant: a refusal
 * names what no spec expresses; outputs are written only on success.
 */
#include <stdio.h>

#include "axe/sharding.h"
#include "layout_internal.h"

static const char gpuid[AXE_AXIS_NAME_MAX] = "gpuid";

axe_status axe_mesh_devices(const axe_mesh *mesh, int64_t *out)
{
    int64_t p = 1;
    if (mesh == NULL || out == NULL || mesh->n < 0 ||
        mesh->n > AXE_MESH_MAX_AXES)
        return AXE_ERR_INVALID;
    for (int k = 0; k < mesh->n; k++) {
        if (mesh->size[k] < 1)
            return AXE_ERR_INVALID;
        AXE_TRY(axe__mul(p, mesh->size[k], &p));
    }
    *out = p;
    return AXE_OK;
}

/* gstride[k]: the gpuid stride of mesh axis k (row-major over the mesh). */
static axe_status mesh_strides(const axe_mesh *mesh, int64_t *gstride,
                               axe_diag *diag)
{
    int64_t p;
    if (axe_mesh_devices(mesh, &p) != AXE_OK)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the mesh needs 0 to %d axes of sizes >= 1 whose "
                         "product fits in 64 bits",
                         AXE_MESH_MAX_AXES);
    p = 1;
    for (int k = mesh->n - 1; k >= 0; k--) {
        gstride[k] = p;
        p *= mesh->size[k];
    }
    return AXE_OK;
}

/* "s" is consistent with "mesh" and an n-dim shape (the invariant of
 * sharding.h); *used gets the mask of the mesh axes it names. */
static axe_status check_spec(const axe_sharding *s, const axe_mesh *mesh, int n,
                             uint32_t *used, axe_diag *diag)
{
    *used = 0;
    if (s->ndims != n || n < 0 || n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the spec has %d dims, the shape %d", s->ndims, n);
    for (int d = 0; d < n; d++) {
        if (s->naxes[d] < 0 || s->naxes[d] > mesh->n)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d names %d mesh axes; the mesh has %d", d,
                             s->naxes[d], mesh->n);
        for (int j = 0; j < s->naxes[d]; j++) {
            int a = s->axis[d][j];
            if (a < 0 || a >= mesh->n || (*used & (1u << a)))
                return axe__fail(diag, AXE_ERR_INVALID, -1,
                                 "dim %d: mesh axis %d is not a mesh axis or "
                                 "is used twice",
                                 d, a);
            *used |= 1u << a;
        }
    }
    return AXE_OK;
}

/* local[d]: dim d's extent on one device; DIVISIBILITY for an uneven
 * split, naming the dim and the device count. */
static axe_status local_shape(const axe_sharding *s, const axe_mesh *mesh,
                              const int64_t *shape, int n, int64_t *local,
                              axe_diag *diag)
{
    for (int d = 0; d < n; d++) {
        int64_t p = 1;
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d has extent %lld; extents are >= 1", d,
                             (long long)shape[d]);
        for (int j = 0; j < s->naxes[d]; j++)
            p *= mesh->size[s->axis[d][j]];
        if (shape[d] % p != 0)
            return axe__fail(diag, AXE_ERR_DIVISIBILITY, -1,
                             "dim %d of extent %lld does not split evenly "
                             "over its %lld devices (uneven shards, as "
                             "torch.chunk makes them, have no Axe layout)",
                             d, (long long)shape[d], (long long)p);
        local[d] = shape[d] / p;
    }
    return AXE_OK;
}

/* Append the iter (e, s@axis) unless e == 1. */
static axe_status push(axe_layout *l, bool replica, int64_t e, int64_t s,
                       const char *axis, axe_diag *diag)
{
    axe_status st = AXE_OK;
    if (e == 1)
        return AXE_OK;
    if (replica)
        st = axe__iter_push(l->replica, &l->nreplica, AXE_LAYOUT_MAX_REPLICA, e,
                            s, axis);
    else
        st = axe__iter_push(l->shard, &l->nshard, AXE_LAYOUT_MAX_SHARD, e, s,
                            axis);
    if (st != AXE_OK)
        return axe__fail(diag, st, -1, "the layout needs more than %d %s iters",
                         replica ? AXE_LAYOUT_MAX_REPLICA
                                 : AXE_LAYOUT_MAX_SHARD,
                         replica ? "replica" : "shard");
    return AXE_OK;
}

axe_status axe_sharding_to_layout(const axe_sharding *s, const axe_mesh *mesh,
                                  const int64_t *shape, int n, axe_layout *out,
                                  axe_diag *diag)
{
    int64_t gstride[AXE_MESH_MAX_AXES], local[AXE_LAYOUT_MAX_DIMS];
    int64_t lstride[AXE_LAYOUT_MAX_DIMS], p = 1;
    uint32_t used;
    axe_layout l;
    if (s == NULL || mesh == NULL || out == NULL || (shape == NULL && n > 0))
        return axe__fail(diag, AXE_ERR_INVALID, -1, "a NULL argument");
    AXE_TRY(mesh_strides(mesh, gstride, diag));
    AXE_TRY(check_spec(s, mesh, n, &used, diag));
    AXE_TRY(local_shape(s, mesh, shape, n, local, diag));
    for (int d = n - 1; d >= 0; d--) {
        lstride[d] = p;
        if (axe__mul(p, local[d], &p) != AXE_OK)
            return axe__fail(diag, AXE_ERR_OVERFLOW, -1,
                             "the local shard's size overflows");
    }
    axe_layout_init(&l);
    for (int d = 0; d < n; d++) {
        for (int j = 0; j < s->naxes[d]; j++) {
            int a = s->axis[d][j];
            AXE_TRY(push(&l, false, mesh->size[a], gstride[a], gpuid, diag));
        }
        AXE_TRY(push(&l, false, local[d], lstride[d], axe__name_m.s, diag));
    }
    for (int k = 0; k < mesh->n; k++)
        if (!(used & (1u << k)))
            AXE_TRY(push(&l, true, mesh->size[k], gstride[k], gpuid, diag));
    *out = l;
    return AXE_OK;
}

/* ---- layout -> spec ------------------------------------------------------ */

/* What the reverse collects: per dim its mesh axes, the mesh axes used,
 * and the m iters of all dims in order. */
typedef struct reading {
    const axe_mesh *mesh;
    int64_t gstride[AXE_MESH_MAX_AXES];
    axe_sharding spec;
    uint32_t used;
    axe_layout mem;
} reading;

/* Append to dims d's list (or mark as used, d < 0) the mesh axes that
 * the gpuid iter (e, s) covers: non-trivial axes j, j-1, ... from the one
 * of stride s up, sizes multiplying to e. "what" names the iter. */
static axe_status cover(reading *r, int d, int64_t e, int64_t s,
                        const char *what, axe_diag *diag)
{
    int8_t got[AXE_MESH_MAX_AXES];
    int ng = 0, k = r->mesh->n - 1;
    while (k >= 0 && (r->mesh->size[k] == 1 || r->gstride[k] != s))
        k--;
    for (; k >= 0 && e > 1; k--) {
        if (r->mesh->size[k] == 1)
            continue;
        if (e % r->mesh->size[k] != 0)
            break;
        e /= r->mesh->size[k];
        got[ng++] = (int8_t)k;
    }
    if (ng == 0 || e != 1)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s on gpuid does not cover whole mesh axes "
                         "(a mesh axis of size z has gpuid stride the "
                         "product of the sizes after it): no spec places "
                         "devices that way",
                         what);
    for (int i = ng - 1; i >= 0; i--) {
        if (r->used & (1u << got[i]))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "%s uses mesh axis %s, which another iter "
                             "already uses",
                             what, r->mesh->name[got[i]]);
        r->used |= 1u << got[i];
        if (d >= 0)
            r->spec.axis[d][r->spec.naxes[d]++] = got[i];
    }
    return AXE_OK;
}

/* Whether (e1, s1) continues (e0, s0) as one iter: e1 * s1 == s0. */
static bool fuses(int64_t e1, int64_t s1, int64_t s0)
{
    int64_t p;
    return !__builtin_mul_overflow(e1, s1, &p) && p == s0;
}

/* The gpuid iter it[*i], fused with the gpuid iters after it, as mesh
 * axes of dim "d" (d < 0: replicas). */
static axe_status read_device(reading *r, int d, const axe_iter *it, int m,
                              int *i, axe_diag *diag)
{
    char what[96];
    int64_t e = it[*i].extent, s = it[*i].stride;
    while (*i + 1 < m &&
           memcmp(it[*i + 1].axis, gpuid, AXE_AXIS_NAME_MAX) == 0 &&
           fuses(it[*i + 1].extent, it[*i + 1].stride, s) &&
           !__builtin_mul_overflow(e, it[*i + 1].extent, &e))
        s = it[++*i].stride;
    if (d >= 0)
        snprintf(what, sizeof what, "dim %d's device iter (%lld:%lld)", d,
                 (long long)e, (long long)s);
    else
        snprintf(what, sizeof what, "replica iter (%lld:%lld)", (long long)e,
                 (long long)s);
    return cover(r, d, e, s, what, diag);
}

/* Dim "d": its iters it[0 .. m) (outermost first). */
static axe_status read_dim(reading *r, int d, const axe_iter *all, int nall,
                           axe_diag *diag)
{
    axe_iter it[AXE_LAYOUT_MAX_SHARD];
    bool seen_m = false;
    int m = 0;
    for (int i = 0; i < nall; i++)
        if (all[i].extent != 1)
            it[m++] = all[i];
    for (int i = 0; i < m; i++) {
        if (memcmp(it[i].axis, axe__name_m.s, AXE_AXIS_NAME_MAX) == 0) {
            seen_m = true;
            AXE_TRY(push(&r->mem, false, it[i].extent, it[i].stride,
                         axe__name_m.s, diag));
            continue;
        }
        if (memcmp(it[i].axis, gpuid, AXE_AXIS_NAME_MAX) != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "dim %d has an iter on axis %s; a sharded "
                             "tensor's layout uses gpuid and m only",
                             d, it[i].axis);
        if (seen_m)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "dim %d interleaves devices within the "
                             "dimension (a gpuid iter inside its m iters): "
                             "no spec places blocks cyclically",
                             d);
        AXE_TRY(read_device(r, d, it, m, &i, diag));
    }
    return AXE_OK;
}

/* The replica iters on gpuid, sorted by stride and fused, as mesh axes. */
static axe_status read_replica(reading *r, const axe_layout *l, axe_diag *diag)
{
    axe_iter it[AXE_LAYOUT_MAX_REPLICA];
    int m = 0;
    for (int i = 0; i < l->nreplica; i++) {
        const axe_iter *x = &l->replica[i];
        if (x->extent == 1)
            continue;
        if (memcmp(x->axis, gpuid, AXE_AXIS_NAME_MAX) != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "replica iter (%lld:%lld@%s) is not on gpuid: "
                             "a spec replicates over devices only",
                             (long long)x->extent, (long long)x->stride,
                             x->axis);
        int j = m++;
        while (j > 0 && it[j - 1].stride < x->stride) {
            it[j] = it[j - 1];
            j--;
        }
        it[j] = *x;
    }
    for (int i = 0; i < m; i++)
        AXE_TRY(read_device(r, -1, it, m, &i, diag));
    return AXE_OK;
}

/* Offsets, swizzle and size: what a spec's layout never has. */
static axe_status check_plain(const axe_layout *l, const int64_t *shape, int n,
                              axe_diag *diag)
{
    int64_t size, want = 1;
    if (l->swizzle.present)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "a swizzled layout is no spec's layout");
    for (int i = 0; i < l->noffset; i++)
        if (l->offset[i].value != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "the layout has offset %lld on %s; a spec "
                             "starts every shard at m = 0 and uses every "
                             "device",
                             (long long)l->offset[i].value, l->offset[i].axis);
    AXE_TRY(axe_layout_size(l, NULL, &size));
    for (int d = 0; d < n; d++)
        if (shape[d] < 1 || axe__mul(want, shape[d], &want) != AXE_OK)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "dim %d of the shape is not >= 1 or the size "
                             "overflows",
                             d);
    if (size != want)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the layout has %lld elements, the shape %lld",
                         (long long)size, (long long)want);
    return AXE_OK;
}

/* Every non-trivial mesh axis used; the m iters dense row-major. */
static axe_status check_cover(reading *r, axe_diag *diag)
{
    axe_layout canon;
    int64_t size;
    for (int k = 0; k < r->mesh->n; k++)
        if (r->mesh->size[k] > 1 && !(r->used & (1u << k)))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "mesh axis %s (%lld devices) is neither "
                             "sharded nor replicated: the layout does not "
                             "place the tensor on every device",
                             r->mesh->name[k], (long long)r->mesh->size[k]);
    AXE_TRY(axe_layout_canonicalize(&r->mem, AXE_TARGET_NONE, &canon, diag));
    AXE_TRY(axe_layout_size(&r->mem, NULL, &size));
    if (canon.nshard == 0 || (canon.nshard == 1 && canon.shard[0].stride == 1))
        return AXE_OK;
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "a device's %lld elements are not stored densely "
                     "row-major from m = 0 (the convention): their m "
                     "iters are not S[%lld:1]",
                     (long long)size, (long long)size);
}

/* DTensor shards one dim over several mesh axes in mesh order only. */
static axe_status check_format(axe_sharding_format fmt, const reading *r,
                               uint32_t partial, axe_diag *diag)
{
    const axe_sharding *s = &r->spec;
    if (partial != 0 && fmt != AXE_SHARDING_DTENSOR)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%s has no pending reduction (partial); DTensor's "
                         "Partial() does",
                         fmt == AXE_SHARDING_JAX ? "a JAX PartitionSpec"
                                                 : "Alpa's notation");
    if (fmt != AXE_SHARDING_DTENSOR)
        return AXE_OK;
    for (int d = 0; d < s->ndims; d++)
        for (int j = 1; j < s->naxes[d]; j++)
            if (s->axis[d][j] < s->axis[d][j - 1])
                return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                                 "dim %d is split by mesh axis %s before "
                                 "%s; DTensor placements split in mesh "
                                 "order only",
                                 d, r->mesh->name[s->axis[d][j - 1]],
                                 r->mesh->name[s->axis[d][j]]);
    return AXE_OK;
}

/* The pending reductions: "partial" (or the replicated axes) over the
 * non-trivial mesh axes no dim uses; a size-1 axis pends nothing. */
static axe_status set_partial(reading *r, uint32_t partial, const char *op,
                              axe_diag *diag)
{
    uint32_t sharded = 0, replicated = 0, trivial = 0;
    for (int d = 0; d < r->spec.ndims; d++)
        for (int j = 0; j < r->spec.naxes[d]; j++)
            sharded |= 1u << r->spec.axis[d][j];
    for (int k = 0; k < r->mesh->n; k++) {
        if (r->mesh->size[k] == 1)
            trivial |= 1u << k;
        else if (!(sharded & (1u << k)))
            replicated |= 1u << k;
    }
    if (op == NULL)
        return AXE_OK;
    if (partial == AXE_SHARDING_PARTIAL_REPLICAS && replicated == 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "a pending reduction (%s) is over the mesh axes the "
                         "layout replicates, and it replicates over none",
                         op);
    partial = partial == AXE_SHARDING_PARTIAL_REPLICAS ? replicated
                                                       : partial & ~trivial;
    if (partial & ~replicated)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the pending reduction names mesh axes the layout "
                         "does not replicate");
    if (strlen(op) >= AXE_SHARDING_OP_MAX)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "reduction name \"%s\" is too long", op);
    r->spec.partial = partial;
    memset(r->spec.op, 0, sizeof r->spec.op);
    if (partial != 0)
        memcpy(r->spec.op, op, strlen(op));
    return AXE_OK;
}

axe_status axe_sharding_from_layout(axe_sharding_format fmt,
                                    const axe_layout *l, const axe_mesh *mesh,
                                    const int64_t *shape, int n,
                                    uint32_t partial, const char *op,
                                    axe_sharding *out, axe_diag *diag)
{
    reading r;
    int seps[AXE_LAYOUT_MAX_SHARD + 1];
    axe_layout c, g;
    if (l == NULL || mesh == NULL || out == NULL || shape == NULL || n < 1 ||
        n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "from_layout needs a layout, a mesh and a shape of "
                         "1 to %d dims",
                         AXE_LAYOUT_MAX_DIMS);
    memset(&r, 0, sizeof r);
    r.mesh = mesh;
    AXE_TRY(mesh_strides(mesh, r.gstride, diag));
    AXE_TRY(check_plain(l, shape, n, diag));
    AXE_TRY(axe_layout_canonicalize(l, AXE_TARGET_NONE, &c, diag));
    if (c.nshard > 0) {
        AXE_TRY(axe_layout_group(&c, shape, n, &g, seps, diag));
    } else {
        g = c;
        memset(seps, 0, sizeof seps);
    }
    axe_layout_init(&r.mem);
    r.spec.ndims = n;
    for (int d = 0; d < n; d++)
        AXE_TRY(
            read_dim(&r, d, &g.shard[seps[d]], seps[d + 1] - seps[d], diag));
    AXE_TRY(read_replica(&r, l, diag));
    AXE_TRY(check_cover(&r, diag));
    AXE_TRY(set_partial(&r, partial, op, diag));
    AXE_TRY(check_format(fmt, &r, r.spec.partial, diag));
    *out = r.spec;
    return AXE_OK;
}
