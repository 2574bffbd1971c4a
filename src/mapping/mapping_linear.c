/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Triton linear layouts and their conversion to and from Axe layouts. An
 * Axe layout l with size 2^k, no replica and no offset is linear over F2
 * iff l(x) = XOR of l(2^i) over the set bits of x at every x < 2^k; the
 * bases are then l(2^i), read with apply_base (swizzles applied). A linear
 * layout is an Axe layout iff each basis has at most one nonzero output
 * (one iter 2:b@axis per bit) and XOR equals + on every input, or, on the
 * memory axis `m` alone, iff some swizzle Swizzle<M,B,S> (F2-linear and an
 * involution) turns the bases into such bases: the result is that swizzle
 * over their layout (`Sw<3,4,3> o 0 o (8,64):(64,1)` comes back as
 * `Swizzle<4,3,3>(S[(64,8):(1,64)])`). The first check is by evaluation of
 * every input. Invariant: a result is returned only
 * after that evaluation agreed everywhere.
 */
#include <stdio.h>
#include <string.h>

#include "axe/linear.h"
#include "layout_internal.h"
#include "mapping_internal.h"

#define LINEAR_EVAL_MAX (INT64_C(1) << 22)

axe_status axe_linear_apply(const axe_linear *lin, const int64_t *x,
                            int64_t *out)
{
    for (int o = 0; o < lin->nout; o++)
        out[o] = 0;
    for (int d = 0; d < lin->nin; d++) {
        if (x[d] < 0 || (lin->in_bits[d] < 63 && x[d] >> lin->in_bits[d]))
            return AXE_ERR_DOMAIN;
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; x[d] >> i & 1 && o < lin->nout; o++)
                out[o] ^= lin->basis[d][i][o];
    }
    return AXE_OK;
}

static int bits_of(int64_t n)
{
    int k = 0;
    while ((INT64_C(1) << k) < n)
        k++;
    return k;
}

/* The output index of the padded axis name "name" (AXE_AXIS_NAME_MAX
 * bytes), added when new; -1 when full. */
static int out_dim(axe_linear *lin, const char *name)
{
    for (int o = 0; o < lin->nout; o++)
        if (strncmp(lin->out_name[o], name, AXE_AXIS_NAME_MAX) == 0)
            return o;
    if (lin->nout == AXE_LINEAR_MAX_DIMS)
        return -1;
    memcpy(lin->out_name[lin->nout], name, AXE_AXIS_NAME_MAX);
    lin->out_bits[lin->nout] = 0;
    return lin->nout++;
}

/* The point l(x) as one value per output dimension. */
static axe_status values_at(const axe_layout *l, int64_t x, axe_linear *lin,
                            int64_t *v, axe_diag *diag)
{
    axe_point p;
    AXE_TRY(axe_layout_apply_base(l, x, &p, diag));
    for (int o = 0; o < lin->nout; o++)
        v[o] = 0;
    for (int k = 0; k < p.n; k++) {
        int o = out_dim(lin, p.axis[k]);
        if (o < 0)
            return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                             "more than %d output axes", AXE_LINEAR_MAX_DIMS);
        if (p.v[k] < 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "l(%lld) is negative on %s: not a linear layout",
                             (long long)x, p.axis[k]);
        v[o] = p.v[k];
    }
    return AXE_OK;
}

static axe_status check_shape(const axe_layout *l, int64_t *n, axe_diag *diag)
{
    if (l->nreplica > 0)
        return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                         "the layout has a replica: a linear layout maps an "
                         "input to one output");
    for (int k = 0; k < l->noffset; k++)
        if (l->offset[k].value != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "offset %lld@%s: a linear layout maps 0 to 0",
                             (long long)l->offset[k].value, l->offset[k].axis);
    for (int k = 0; k < l->nshard; k++)
        if ((l->shard[k].extent & (l->shard[k].extent - 1)) != 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "extent %lld is not a power of two: no F2 basis",
                             (long long)l->shard[k].extent);
    AXE_TRY(axe_layout_size(l, NULL, n));
    if (*n > LINEAR_EVAL_MAX)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "size %lld is above the evaluation limit %lld",
                         (long long)*n, (long long)LINEAR_EVAL_MAX);
    return AXE_OK;
}

/* The per-dimension inputs of the flat index "x" (dims of 2^bits, the
 * first most major). */
static void split_index(const axe_linear *lin, int64_t x, int64_t *in)
{
    for (int d = lin->nin - 1; d >= 0; d--) {
        in[d] = x & ((INT64_C(1) << lin->in_bits[d]) - 1);
        x >>= lin->in_bits[d];
    }
}

/* Every x: l(x) is the XOR of the bases; grow the output sizes. */
static axe_status verify_xor(const axe_layout *l, int64_t n, axe_linear *lin,
                             axe_diag *diag)
{
    int64_t v[AXE_LINEAR_MAX_DIMS], w[AXE_LINEAR_MAX_DIMS];
    int64_t in[AXE_LINEAR_MAX_DIMS];
    for (int64_t x = 0; x < n; x++) {
        AXE_TRY(values_at(l, x, lin, v, diag));
        split_index(lin, x, in);
        AXE_TRY(axe_linear_apply(lin, in, w));
        for (int o = 0; o < lin->nout; o++) {
            if (v[o] != w[o])
                return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                                 "not bit-linear: l(%lld) = %lld on %s, the "
                                 "XOR of the bases of its bits is %lld",
                                 (long long)x, (long long)v[o],
                                 lin->out_name[o], (long long)w[o]);
            if (bits_of(v[o] + 1) > lin->out_bits[o])
                lin->out_bits[o] = bits_of(v[o] + 1);
        }
    }
    return AXE_OK;
}

/* The input dimensions: `index`, or dim0.. of "shape". */
static axe_status input_dims(axe_linear *lin, int64_t size,
                             const int64_t *shape, int n, axe_diag *diag)
{
    int64_t prod = 1;
    if (shape == NULL || n == 0) {
        memcpy(lin->in_name[0], "index", 6);
        lin->nin = 1;
        lin->in_bits[0] = bits_of(size);
        return AXE_OK;
    }
    if (n > AXE_LINEAR_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_CAPACITY, -1, "more than %d dims",
                         AXE_LINEAR_MAX_DIMS);
    for (int d = 0; d < n; d++) {
        if (shape[d] < 1 || (shape[d] & (shape[d] - 1)) != 0 ||
            axe__mul(prod, shape[d], &prod))
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "shape extent %lld is not a power of two",
                             (long long)shape[d]);
        snprintf(lin->in_name[d], AXE_AXIS_NAME_MAX, "dim%d", d);
        lin->in_bits[d] = bits_of(shape[d]);
    }
    lin->nin = n;
    if (prod != size)
        return axe__fail(diag, AXE_ERR_INCOMPATIBLE, -1,
                         "the shape has %lld elements, the layout %lld",
                         (long long)prod, (long long)size);
    return AXE_OK;
}

axe_status axe_linear_from_layout(const axe_layout *l, const int64_t *shape,
                                  int n, axe_linear *out, axe_diag *diag)
{
    static const axe_linear empty;
    axe_linear lin = empty;
    int64_t size, v[AXE_LINEAR_MAX_DIMS];
    int shift = 0;
    AXE_TRY(check_shape(l, &size, diag));
    AXE_TRY(input_dims(&lin, size, shape, n, diag));
    for (int d = lin.nin - 1; d >= 0; d--) {
        for (int i = 0; i < lin.in_bits[d]; i++) {
            AXE_TRY(values_at(l, INT64_C(1) << (shift + i), &lin, v, diag));
            for (int o = 0; o < lin.nout; o++)
                lin.basis[d][i][o] = v[o];
        }
        shift += lin.in_bits[d];
    }
    AXE_TRY(verify_xor(l, size, &lin, diag));
    *out = lin;
    return AXE_OK;
}

/* ---- to an Axe layout ------------------------------------------------ */

/* The iter of basis (d, i): 2 : b@axis with one nonzero b, or 2 : 0. */
static axe_status push_basis(const axe_linear *lin, int d, int i, axe_layout *l,
                             axe_diag *diag)
{
    int which = -1;
    for (int o = 0; o < lin->nout; o++) {
        if (lin->basis[d][i][o] == 0)
            continue;
        if (which >= 0)
            return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                             "basis %s=%lld has two nonzero outputs: an Axe "
                             "iter strides one axis",
                             lin->in_name[d], (long long)1 << i);
        which = o;
    }
    if (axe_layout_push_shard(l, 2, which < 0 ? 0 : lin->basis[d][i][which],
                              which < 0 ? "m" : lin->out_name[which]))
        return axe__fail(diag, AXE_ERR_CAPACITY, -1,
                         "more than %d bits, or a bad axis name",
                         AXE_LAYOUT_MAX_SHARD);
    return AXE_OK;
}

/* XOR equals + on every input (bases of one output share no bit). */
static axe_status verify_sum(const axe_linear *lin, axe_diag *diag)
{
    int64_t seen[AXE_LINEAR_MAX_DIMS] = {0};
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++)
            for (int o = 0; o < lin->nout; o++) {
                if (seen[o] & lin->basis[d][i][o])
                    return axe__fail(diag, AXE_ERR_UNSUPPORTED, -1,
                                     "bases on %s share bits: XOR differs "
                                     "from + and no swizzle of m separates "
                                     "them, not an Axe layout",
                                     lin->out_name[o]);
                seen[o] |= lin->basis[d][i][o];
            }
    return AXE_OK;
}

/* The layout of the bases of "lin" (each one nonzero output, XOR = +). */
axe_status axe__linear_plain_layout(const axe_linear *lin, axe_layout *l,
                                    axe_diag *diag)
{
    AXE_TRY(verify_sum(lin, diag));
    axe_layout_init(l);
    for (int d = 0; d < lin->nin; d++)
        for (int i = lin->in_bits[d] - 1; i >= 0; i--)
            AXE_TRY(push_basis(lin, d, i, l, diag));
    return AXE_OK;
}

/* "lin" with the swizzle "sw" applied to every basis on its one output
 * `m`: the swizzle is F2-linear, so the result's XORs are the swizzled
 * XORs of "lin". */
static void swizzle_bases(const axe_linear *lin, const axe_layout_swizzle *sw,
                          axe_linear *out)
{
    *out = *lin;
    for (int d = 0; d < lin->nin; d++)
        for (int i = 0; i < lin->in_bits[d]; i++) {
            int64_t v = lin->basis[d][i][0];
            if (axe__swizzle_addr(sw, v, &out->basis[d][i][0]) != AXE_OK)
                out->basis[d][i][0] = v;
        }
}

/* A swizzle Swizzle<M,B,S> (inner before outer, then by B, S, M
 * ascending) under which the bases of "lin", a layout on `m` only, become
 * bases whose XOR is their sum: the swizzle is an involution, so the
 * swizzled layout of those bases is "lin". False when there is none. */
static bool find_swizzle(const axe_linear *lin, axe_layout_swizzle *sw,
                         axe_linear *plain)
{
    int bits = lin->out_bits[0];
    if (lin->nout != 1 || strcmp(lin->out_name[0], "m") != 0)
        return false;
    for (int inner = 1; inner >= 0; inner--)
        for (int b = 1; 2 * b <= bits; b++)
            for (int a = b; a + b <= bits; a++)
                for (int m = 0; m + a + b <= bits; m++) {
                    *sw = (axe_layout_swizzle){true, inner != 0, m, b, a};
                    swizzle_bases(lin, sw, plain);
                    if (verify_sum(plain, NULL) == AXE_OK)
                        return true;
                }
    return false;
}

axe_status axe_linear_to_layout(const axe_linear *lin, axe_layout *out,
                                axe_diag *diag)
{
    axe_linear plain;
    axe_layout l, c;
    axe_layout_swizzle sw;
    if (verify_sum(lin, NULL) == AXE_OK) {
        AXE_TRY(axe__linear_plain_layout(lin, &l, diag));
        return axe_layout_canonicalize(&l, AXE_TARGET_NONE, out, diag);
    }
    if (!find_swizzle(lin, &sw, &plain))
        return verify_sum(lin, diag);
    AXE_TRY(axe__linear_plain_layout(&plain, &l, diag));
    AXE_TRY(axe_layout_canonicalize(&l, AXE_TARGET_NONE, &c, diag));
    c.swizzle = sw;
    *out = c;
    return AXE_OK;
}
