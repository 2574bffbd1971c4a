/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Triton linear layouts: a map from input dimensions of power-of-two sizes
 * to output dimensions over F2. Each input dimension d of 2^k values has k
 * bases; basis i is the output (one value per output dimension) of the
 * input 2^i, and an input x maps to the XOR of the bases of its set bits.
 * Text (Triton's LinearLayout::toString): ` - index=1 -> (0, 1)` per basis,
 * the input's value 2^i on the left, then `where out dims are: [m (size
 * 16), laneid (size 32)]`.
 *
 * Representation: a fixed-capacity value struct; output sizes are powers
 * of two covering every basis value. Invariant: counts within capacity,
 * every basis entry below its output size.
 */
#ifndef AXE_LINEAR_H
#define AXE_LINEAR_H

#include <stdint.h>

#include "axe/layout.h"
#include "axe/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_LINEAR_MAX_DIMS 8
#define AXE_LINEAR_MAX_BITS 32

typedef struct axe_linear {
    int nin, nout;
    char in_name[AXE_LINEAR_MAX_DIMS][AXE_AXIS_NAME_MAX];
    int in_bits[AXE_LINEAR_MAX_DIMS];
    char out_name[AXE_LINEAR_MAX_DIMS][AXE_AXIS_NAME_MAX];
    int out_bits[AXE_LINEAR_MAX_DIMS];
    /* basis[d][i][o]: output o of input 2^i of input dimension d */
    int64_t basis[AXE_LINEAR_MAX_DIMS][AXE_LINEAR_MAX_BITS]
                 [AXE_LINEAR_MAX_DIMS];
} axe_linear;

/* The output of the inputs "x" (one value per input dimension) into
 * out[0 .. nout): the XOR of the bases of the set bits. */
AXE_NODISCARD AXE_API axe_status axe_linear_apply(const axe_linear *lin,
                                                  const int64_t *x,
                                                  int64_t *out);
/* The linear layout of the Axe (or converted CuTe) layout "l": input
 * dimensions `dim0`, `dim1`, ... of "shape" (n dims, powers of two whose
 * product is size(l), the first most major), or one input `index` over the
 * logical index when "shape" is NULL; one output per axis. Exists iff
 * size(l) is a power of two, l has no replica, no offset and no negative
 * value, and l(x) is the XOR of l(2^i) over the set bits i of x at every x
 * (swizzles included); otherwise the reason (the first extent that is not
 * a power of two, or the first x where the XOR differs). */
AXE_NODISCARD AXE_API axe_status axe_linear_from_layout(const axe_layout *l,
                                                        const int64_t *shape,
                                                        int n, axe_linear *out,
                                                        axe_diag *diag);
/* The inverse linear layout (outputs become inputs): exists iff "lin" is a
 * bijection, i.e. as many input as output bits and an invertible F2
 * matrix (Gaussian elimination); e.g. an Axe TV layout index -> (laneid,
 * warpid, m) inverts to Triton's distributed form (m, laneid, warpid) ->
 * dims. Otherwise the reason. */
AXE_NODISCARD AXE_API axe_status axe_linear_invert(const axe_linear *lin,
                                                   axe_linear *out,
                                                   axe_diag *diag);
/* The Axe layout of "lin" (input dimensions flattened, the first most
 * major): each basis must have one nonzero output (an iter 2:b@axis), and
 * the XOR of bases must equal their sum at every input; otherwise the
 * reason. */
AXE_NODISCARD AXE_API axe_status axe_linear_to_layout(const axe_linear *lin,
                                                      axe_layout *out,
                                                      axe_diag *diag);

/* Triton's distributed layout of the Axe layout "l" from the tensor's
 * logical index (row-major over "shape", n dims, powers of two; one dim
 * of size(l) when NULL) to the hardware axes `reg`, `laneid`, `warpid`,
 * `cbx` (`lane`, `warp`, `bx` too): inputs `register`, `lane`, `warp`, `block`
 * (in that order, size 1 when unused), outputs `dim0`, `dim1`, ... A
 * replica 2^k:s@axis (s << i sharing no bit with another value on the
 * axis) is a broadcast: its bits get zero bases. Exists iff the shards
 * are bit-linear (axe_linear_from_layout) and shards plus replica bits
 * are a bijection onto the hardware bits (every register, lane, warp and
 * block below the sizes holds an element); otherwise the reason. A layout
 * onto one memory axis other than `reg` (and `cbx`) gives Triton's shared
 * layout: inputs `offset` (that axis) and `block` (cbx). */
AXE_NODISCARD AXE_API axe_status axe_linear_to_triton(const axe_layout *l,
                                                      const int64_t *shape,
                                                      int n, axe_linear *out,
                                                      axe_diag *diag);
/* The converse: the Axe layout from the logical index (row-major over the
 * outputs of "lin", the first most major) to `reg`, `laneid`, `warpid`,
 * `cbx`, of a Triton distributed layout (inputs among `register`, `lane`,
 * `warp`, `block`), a zero basis i of an input becoming the replica
 * 2:2^i on its axis (canonicalized). Exists iff the nonzero bases are a
 * basis of the output bits (F2 inverse), the inverse's bases have one
 * nonzero output each and share no bit per axis, and the result is a
 * well-formed layout (laneid and cbx need warpid); otherwise the reason.
 * A shared layout (inputs `offset`, `block`) reads onto `m` and `cbx`, a
 * swizzle on `m` recognized (axe_linear_to_layout). */
AXE_NODISCARD AXE_API axe_status axe_linear_from_triton(const axe_linear *lin,
                                                        axe_layout *out,
                                                        axe_diag *diag);

/* Triton's text of "lin" (lines separated by '\n'). */
AXE_API size_t axe_print_linear(const axe_linear *lin, char *buf, size_t cap);
/* Parse that text (AXE_ERR_SYNTAX with the offset). */
AXE_NODISCARD AXE_API axe_status axe_parse_linear(const char *text, size_t len,
                                                  axe_linear *out,
                                                  axe_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
