/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sharding specs <-> Axe layouts (docs/algebra.md "Sharding specs"): JAX
 * `PartitionSpec`, PyTorch DTensor placements and Alpa/GSPMD's `S0R`
 * notation over a device mesh, converted both ways. The convention: the
 * devices of a mesh (x = 2, y = 4) get ids row-major over the mesh axes in
 * the order given (x has gpuid stride 4, y stride 1), as
 * `jax.sharding.Mesh(np.array(devices).reshape(2, 4), ("x", "y"))`
 * numbers them, on the one device axis `gpuid`; each device stores its
 * shard densely row-major from m = 0. A tensor dimension sharded by mesh
 * axes (a, b) (a major) is split into size(a) * size(b) equal blocks, block
 * c_a * size(b) + c_b on the devices with those mesh coordinates; mesh axes
 * that shard no dimension are replicas.
 *
 * Representation: axe_mesh and axe_sharding are fixed-capacity value
 * structs. Invariant of an axe_sharding made by this module: every mesh
 * axis index is < the mesh's count and appears at most once over all dims
 * and the partial mask.
 */
#ifndef AXE_SHARDING_H
#define AXE_SHARDING_H

#include <stddef.h>
#include <stdint.h>

#include "axe/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AXE_MESH_MAX_AXES 8
#define AXE_SHARDING_OP_MAX 8

/* A device mesh: axes name[k] of size[k] > 0, first = major. */
typedef struct axe_mesh {
    int n;
    int64_t size[AXE_MESH_MAX_AXES];
    char name[AXE_MESH_MAX_AXES][AXE_AXIS_NAME_MAX];
} axe_mesh;

typedef enum axe_sharding_format {
    AXE_SHARDING_JAX,     /* P('x', None), P(('x','y'), None) */
    AXE_SHARDING_DTENSOR, /* [Shard(0), Replicate()], Partial() */
    AXE_SHARDING_ALPA     /* S0R, S01R, RS1, S0S1 */
} axe_sharding_format;

/* Per tensor dim d, the mesh axes that shard it: axis[d][0 .. naxes[d]),
 * major first. "partial" has bit k set when mesh axis k holds a pending
 * reduction "op" ("sum", "avg", "max" or "min"; DTensor's Partial): its
 * devices hold partial values, placed as replicas. */
typedef struct axe_sharding {
    int ndims;
    int8_t naxes[AXE_LAYOUT_MAX_DIMS];
    int8_t axis[AXE_LAYOUT_MAX_DIMS][AXE_MESH_MAX_AXES];
    uint32_t partial;
    char op[AXE_SHARDING_OP_MAX];
} axe_sharding;

/* `x=2,y=4` (also `x = 2, y = 4`, `{x: 2, y: 4}`, `[x=2,y=4]`); unnamed
 * sizes `2,4` / `[2,4]` name the axes "0", "1", .... At most
 * AXE_MESH_MAX_AXES axes, distinct names, sizes > 0 with an overflow-free
 * product. SYNTAX with the offset, or INVALID / OVERFLOW / CAPACITY. */
AXE_NODISCARD AXE_API axe_status axe_parse_mesh(const char *text, size_t len,
                                                axe_mesh *out, axe_diag *diag);
/* `x=2,y=4`. */
AXE_API size_t axe_print_mesh(const axe_mesh *mesh, char *buf, size_t cap);
/* The device count: the product of the sizes. */
AXE_NODISCARD AXE_API axe_status axe_mesh_devices(const axe_mesh *mesh,
                                                  int64_t *out);

/* Parse a spec of format "fmt" for a tensor of "ndims" dims over "mesh"
 * (JAX: entries name mesh axes, fewer than ndims leave the rest unsharded;
 * DTensor: one placement per mesh axis, dims may be negative; Alpa: one
 * `R` or `S<digits>` per dim, digits = mesh axis indices, major first).
 * An optional module prefix (`jax.sharding.PartitionSpec(...)`,
 * `torch.distributed.tensor.Shard(0)`) is accepted. SYNTAX with the offset,
 * or INVALID naming the mesh axis or dim at fault. */
AXE_NODISCARD AXE_API axe_status axe_parse_sharding(
    axe_sharding_format fmt, const char *text, size_t len, const axe_mesh *mesh,
    int ndims, axe_sharding *out, axe_diag *diag);
/* The spec's text: `P('x', None)`, `[Shard(0), Replicate()]`, `S0R`
 * (snprintf-style); parse(print(s)) == s. A spec the format cannot write
 * prints nothing and returns 0 (axe_sharding_from_layout never makes one). */
AXE_API size_t axe_print_sharding(axe_sharding_format fmt,
                                  const axe_sharding *s, const axe_mesh *mesh,
                                  char *buf, size_t cap);

/* The Axe layout of "s" over "mesh" for a tensor of "shape" (n dims): per
 * dim, one gpuid iter per mesh axis (size, gpuid stride) then the local
 * extent on m with its row-major stride over the local shape; the unused
 * mesh axes as replicas; unit iters dropped. DIVISIBILITY naming the dim
 * and the device count when a dim does not split evenly (torch.chunk's
 * uneven shards have no layout); INVALID when s and shape disagree. */
AXE_NODISCARD AXE_API axe_status axe_sharding_to_layout(const axe_sharding *s,
                                                        const axe_mesh *mesh,
                                                        const int64_t *shape,
                                                        int n, axe_layout *out,
                                                        axe_diag *diag);
/* The spec of format "fmt" whose layout induces the same map as "l" over
 * "shape", with "partial" (a mask over the mesh axes, or
 * AXE_SHARDING_PARTIAL_REPLICAS: every mesh axis the layout replicates) as
 * pending reductions "op" (NULL: none). Size-1 mesh axes are never named.
 * UNSUPPORTED with the reason when no spec of the format expresses "l" (a
 * device digit that is not whole mesh axes, devices interleaved within a
 * dimension, a mesh axis unused, memory not dense row-major from 0, mesh
 * axes out of order for DTensor, a pending reduction for JAX or Alpa). */
#define AXE_SHARDING_PARTIAL_REPLICAS UINT32_MAX
AXE_NODISCARD AXE_API axe_status axe_sharding_from_layout(
    axe_sharding_format fmt, const axe_layout *l, const axe_mesh *mesh,
    const int64_t *shape, int n, uint32_t partial, const char *op,
    axe_sharding *out, axe_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
