/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Triton's distributed and shared layouts as Axe layouts and back. Triton
 * maps the hardware inputs `register`, `lane`, `warp`, `block` (a
 * distributed layout) or `offset`, `block` (a shared layout: the element
 * offset in shared memory) to the tensor dims `dim0, dim1, ...`; an Axe
 * layout maps the tensor's logical index to the hardware axes `reg`,
 * `laneid`, `warpid`, `cbx` (the CTA in its cluster, Triton's block;
 * `lane`, `warp` and `bx` accepted on input), or to one memory axis (`m`
 * when read from Triton) and `cbx`; a zero
 * Triton basis (broadcast) being an Axe replica 2:2^i. Both directions invert
 * one square F2 matrix (axe_linear_invert): the Axe layout's shards, plus one
 * input bit per replica bit, against the hardware bits; the inverse's replica
 * bits are dropped (Triton) or its zero bases become those replica bits (Axe).
 * Invariant: a replica's bits are disjoint from each other and from every
 * shard value on its axis, so + is XOR and the layout is F2-linear.
 */
#include <string.h>

#include "axe/linear.h"
#include "mapping_internal.h"

#define HW_N 4
#define REP "rep"

/* A kind of Triton layout: its inputs and the Axe axes they are. */
typedef struct hw_kind {
    int n;
    const char *in[HW_N];
    const char *axe[HW_N];
} hw_kind;

static const hw_kind distributed = {4,
                                    {"register", "lane", "warp", "block"},
                                    {"reg", "laneid", "warpid", "cbx"}};
static const hw_kind shared = {2, {"offset", "block"}, {"m", "cbx"}};

/* "name" is a memory axis other than `reg` (a shared layout's offset). */
static bool is_offset_axis(const char *name)
{
    axe_axis_info info;
    return strcmp(name, "reg") != 0 &&
           axe_axis_lookup(name, &info, NULL) == AXE_OK &&
           info.kind == AXE_AXIS_MEMORY;
}

/* The hardware index of the Axe axis "name" in kind "k", or -1. */
static int hw_of_axis(const hw_kind *k, const char *name)
{
    if (strcmp(name, "bx") == 0 || strcmp(name, "cbx") == 0)
        return k->n - 1;
    if (k == &shared)
        return is_offset_axis(name) ? 0 : -1;
    if (strcmp(name, "lane") == 0)
        return 1;
    if (strcmp(name, "warp") == 0)
        return 2;
    for (int h = 0; h < k->n; h++)
        if (strcmp(name, k->axe[h]) == 0)
            return h;
    return -1;
}

static int hw_of_input(const hw_kind *k, const char *name)
{
    for (int h = 0; h < k->n; h++)
        if (strcmp(name, k->in[h]) == 0)
            return h;
    return -1;
}

static int bits_to_hold(int64_t v)
{
    int k = 0;
    while (k < 62 && (INT64_C(1) << k) <= v)
        k++;
    return k;
}

static void set_name(char *dst, const char *name)
{
    memset(dst, 0, AXE_AXIS_NAME_MAX);
    strncpy(dst, name, AXE_AXIS_NAME_MAX - 1);
}

/* The output of "lin" named "name", added (0 bits) when new; -1 full. */
static int output_of(axe_linear *lin, const char *name)
{
    for (int o = 0; o < lin->nout; o++)
        if (strcmp(lin->out_name[o], name) == 0)
            return o;
    if (lin->nout == AXE_LINEAR_MAX_DIMS)
        return -1;
    set_name(lin->out_name[lin->nout], name);
    lin->out_bits[lin->nout] = 0;
    return lin->nout++;
}

/* The kind of the Axe layout whose axes are the outputs of "lin":
 * shared when an axis is a memory axis other than `reg`, else
 * distributed. */
static const hw_kind *kind_of_outputs(const axe_linear *lin)
{
    for (int o = 0; o < lin->nout; o++)
        if (is_offset_axis(lin->out_name[o]))
            return &shared;
    return &distributed;
}

/* Every output of "lin" is a hardware axis of "k", each at most once. */
static axe_status check_hw_outputs(const hw_kind *k, const axe_linear *lin,
                                   axe_diag *diag)
{
    int seen[HW_N] = {0};
    for (int o = 0; o < lin->nout; o++) {
        int h = hw_of_axis(k, lin->out_name[o]);
        if (h < 0 && k == &shared)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "axis %s beside a memory axis: a Triton shared "
                             "layout has inputs offset (one memory axis) "
                             "and block (cbx)",
                             lin->out_name[o]);
        if (h < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "axis %s is not a hardware axis (reg, laneid, "
                             "warpid, cbx): a Triton distributed layout has "
                             "inputs register, lane, warp, block",
                             lin->out_name[o]);
        if (seen[h]++)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "two axes are Triton's %s (%s)", k->in[h],
                             lin->out_name[o]);
    }
    return AXE_OK;
}

/* One replica iter of "l" as bases of the input `rep` of "ext" (from bit
 * *bit on): power-of-two extent, bits disjoint from "used" per output. */
static axe_status push_replica_bits(const hw_kind *k, const axe_iter *r,
                                    axe_linear *ext, int64_t *used, int *bit,
                                    axe_diag *diag)
{
    int o, d = ext->nin - 1;
    if (r->extent < 1 || (r->extent & (r->extent - 1)) != 0 || r->stride < 1)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "replica %lld:%lld@%s: a broadcast needs a power-of-"
                         "two extent and a positive stride",
                         (long long)r->extent, (long long)r->stride, r->axis);
    if (hw_of_axis(k, r->axis) < 0 || (o = output_of(ext, r->axis)) < 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "replica on %s, not an axis of the Triton %s "
                         "layout's inputs",
                         r->axis, k == &shared ? "shared" : "distributed");
    for (int64_t e = 1; e < r->extent; e <<= 1) {
        int64_t v = r->stride * e;
        if (*bit == AXE_LINEAR_MAX_BITS || (used[o] & v) != 0 ||
            v > (INT64_C(1) << 40))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "replica %lld:%lld@%s shares bits with another "
                             "value on %s: + differs from XOR, no Triton "
                             "basis",
                             (long long)r->extent, (long long)r->stride,
                             r->axis, r->axis);
        used[o] |= v;
        ext->basis[d][(*bit)++][o] = v;
    }
    return AXE_OK;
}

/* "ext" = "lin" plus an input `rep` whose bases are the replica bits of
 * "l"; the output sizes cover every basis. */
static axe_status extend_replicas(const hw_kind *k, const axe_layout *l,
                                  const axe_linear *lin, axe_linear *ext,
                                  axe_diag *diag)
{
    int64_t used[AXE_LINEAR_MAX_DIMS] = {0};
    int bit = 0;
    *ext = *lin;
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; o < lin->nout; o++)
                used[o] |= lin->basis[d][i][o];
    if (l->nreplica == 0)
        return AXE_OK;
    if (ext->nin == AXE_LINEAR_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1, "more than %d dims",
                         AXE_LINEAR_MAX_DIMS - 1);
    set_name(ext->in_name[ext->nin++], REP);
    for (int r = 0; r < l->nreplica; r++)
        AXE_TRY(push_replica_bits(k, &l->replica[r], ext, used, &bit, diag));
    ext->in_bits[ext->nin - 1] = bit;
    for (int o = 0; o < ext->nout; o++)
        if (bits_to_hold(used[o]) > ext->out_bits[o])
            ext->out_bits[o] = bits_to_hold(used[o]);
    return AXE_OK;
}

/* Triton's form of the inverse "inv" (hardware -> dims, then `rep`):
 * the inputs of "k" in their order; `rep` dropped. */
static void triton_form(const hw_kind *k, const axe_linear *inv, int ndims,
                        axe_linear *out)
{
    static const axe_linear empty;
    *out = empty;
    out->nin = k->n;
    out->nout = ndims;
    for (int o = 0; o < ndims; o++) {
        memcpy(out->out_name[o], inv->out_name[o], AXE_AXIS_NAME_MAX);
        out->out_bits[o] = inv->out_bits[o];
    }
    for (int h = 0; h < k->n; h++)
        set_name(out->in_name[h], k->in[h]);
    for (int d = 0; d < inv->nin; d++) {
        int h = hw_of_axis(k, inv->in_name[d]);
        out->in_bits[h] = inv->in_bits[d];
        for (int i = 0; i < inv->in_bits[d]; i++)
            for (int o = 0; o < ndims; o++)
                out->basis[h][i][o] = inv->basis[d][i][o];
    }
}

/* Why the tensor and replica bits of "ext" are no bijection onto the
 * hardware bits: too few, too many, or two of them on one input. */
static axe_status not_bijective(const axe_linear *ext, axe_diag *diag)
{
    int ti = 0, ho = 0;
    for (int d = 0; d < ext->nin; d++)
        ti += ext->in_bits[d];
    for (int o = 0; o < ext->nout; o++)
        ho += ext->out_bits[o];
    if (ti < ho)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "%d tensor and replica bits, %d hardware bits: some "
                         "hardware input holds no element, no Triton layout",
                         ti, ho);
    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                     "two elements (or replicas) on one hardware input: "
                     "no Triton layout (%d bits onto %d)",
                     ti, ho);
}

axe_status axe_linear_to_triton(const axe_layout *l, const int64_t *shape,
                                int n, axe_linear *out, axe_diag *diag)
{
    axe_linear lin, ext, inv;
    axe_layout s = *l;
    const hw_kind *k;
    int64_t size;
    s.nreplica = 0;
    if (shape == NULL || n == 0) {
        AXE_TRY(axe_layout_size(&s, NULL, &size));
        shape = &size;
        n = 1;
    }
    AXE_TRY(axe_linear_from_layout(&s, shape, n, &lin, diag));
    for (int r = 0; r < l->nreplica; r++)
        if (output_of(&lin, l->replica[r].axis) < 0)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1, "more than %d axes",
                             AXE_LINEAR_MAX_DIMS);
    k = kind_of_outputs(&lin);
    AXE_TRY(check_hw_outputs(k, &lin, diag));
    AXE_TRY(extend_replicas(k, l, &lin, &ext, diag));
    if (axe_linear_invert(&ext, &inv, NULL) != AXE_OK)
        return not_bijective(&ext, diag);
    triton_form(k, &inv, n, out);
    return AXE_OK;
}

/* ---- from Triton ------------------------------------------------------ */

/* The kind of "lin" by its inputs: shared if one is `offset`. */
static const hw_kind *kind_of_inputs(const axe_linear *lin)
{
    for (int d = 0; d < lin->nin; d++)
        if (strcmp(lin->in_name[d], "offset") == 0)
            return &shared;
    return &distributed;
}

/* The inputs of "lin" are among those of "k", once each. */
static axe_status check_hw_inputs(const hw_kind *k, const axe_linear *lin,
                                  axe_diag *diag)
{
    int seen[HW_N] = {0};
    for (int d = 0; d < lin->nin; d++) {
        int h = hw_of_input(k, lin->in_name[d]);
        if (h < 0 && k == &shared)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "input %s beside offset: a Triton shared "
                             "layout has inputs offset and block",
                             lin->in_name[d]);
        if (h < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "input %s is not register, lane, warp or block: "
                             "not a Triton distributed layout",
                             lin->in_name[d]);
        if (seen[h]++)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1, "input %s twice",
                             lin->in_name[d]);
    }
    return AXE_OK;
}

static bool zero_basis(const axe_linear *lin, int d, int i)
{
    for (int o = 0; o < lin->nout; o++)
        if (lin->basis[d][i][o] != 0)
            return false;
    return true;
}

/* "ext" = "lin" plus an output `rep` with one bit per zero basis. */
static axe_status extend_zeros(const axe_linear *lin, axe_linear *ext,
                               axe_diag *diag)
{
    int z = 0, o;
    *ext = *lin;
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            z += zero_basis(lin, d, i);
    if (z == 0)
        return AXE_OK;
    if ((o = output_of(ext, REP)) < 0 || o != lin->nout)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1, "more than %d dims",
                         AXE_LINEAR_MAX_DIMS - 1);
    z = 0;
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            if (zero_basis(lin, d, i))
                ext->basis[d][i][o] = INT64_C(1) << z++;
    ext->out_bits[o] = z;
    return AXE_OK;
}

/* The forward map dims -> hardware axes (Axe names of "k") of the
 * inverse "inv" of the extended layout, its `rep` input and its outputs
 * of size 1 dropped. */
static void forward_form(const hw_kind *k, const axe_linear *inv, int ndims,
                         axe_linear *fwd)
{
    static const axe_linear empty;
    *fwd = empty;
    fwd->nin = ndims;
    for (int d = 0; d < ndims; d++) {
        memcpy(fwd->in_name[d], inv->in_name[d], AXE_AXIS_NAME_MAX);
        fwd->in_bits[d] = inv->in_bits[d];
    }
    for (int o = 0; o < inv->nout; o++) {
        int f = fwd->nout;
        if (inv->out_bits[o] == 0)
            continue;
        set_name(fwd->out_name[f], k->axe[hw_of_input(k, inv->out_name[o])]);
        fwd->out_bits[f] = inv->out_bits[o];
        for (int d = 0; d < ndims; d++)
            for (int i = 0; i < inv->in_bits[d]; i++)
                fwd->basis[d][i][f] = inv->basis[d][i][o];
        fwd->nout++;
    }
}

/* Replicas 2:2^i@axis of the zero bases of "lin"; canonical form. */
static axe_status add_replicas(const hw_kind *k, const axe_linear *lin,
                               axe_layout *l, axe_diag *diag)
{
    axe_layout c;
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            if (zero_basis(lin, d, i) &&
                axe_layout_push_replica(
                    l, 2, INT64_C(1) << i,
                    k->axe[hw_of_input(k, lin->in_name[d])]))
                return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                                 "more than %d replicas",
                                 AXE_LAYOUT_MAX_REPLICA);
    AXE_TRY(axe_layout_canonicalize(l, AXE_TARGET_NONE, &c, diag));
    *l = c;
    return AXE_OK;
}

axe_status axe_linear_from_triton(const axe_linear *lin, axe_layout *out,
                                  axe_diag *diag)
{
    axe_linear ext, inv, fwd;
    axe_layout l;
    const hw_kind *k = kind_of_inputs(lin);
    AXE_TRY(check_hw_inputs(k, lin, diag));
    AXE_TRY(extend_zeros(lin, &ext, diag));
    if (axe_linear_invert(&ext, &inv, NULL) != AXE_OK)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the nonzero bases are not a basis of the tensor's "
                         "bits (two hardware inputs hold one element without "
                         "a zero basis, or an element has no holder): no "
                         "Axe layout from the tensor index");
    forward_form(k, &inv, lin->nout, &fwd);
    AXE_TRY(k == &shared ? axe_linear_to_layout(&fwd, &l, diag)
                         : axe__linear_plain_layout(&fwd, &l, diag));
    AXE_TRY(add_replicas(k, lin, &l, diag));
    *out = l;
    return AXE_OK;
}
