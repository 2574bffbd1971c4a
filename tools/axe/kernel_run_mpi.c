/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `axe run FILE --ranks N` (docs/cli.md): a mesh program compiled for
 * --target mpi runs on N MPI ranks, one per device. The inputs are the
 * seeded logical tensors of a one-process run, dealt out into every
 * device's local buffers (axe_program_mesh_local); the generated program
 * scatters them from rank 0 and gathers the results back
 * (compiler_emit_mpi.c); the check compares every device's buffers with
 * the reference of the whole mesh (axe_program_reference_mesh_races, in
 * cmd_run.c: its races fail the check as for one device). With them goes
 * the shard list (kernel_mpi_shards): per device and tensor the name,
 * dtype, logical shape, element count and ids checksum of what the local
 * buffer holds (axe_program_mesh_checksum), which every rank checks
 * against the declared layouts at entry (--shards, compiler_emit_mpi.c).
 * Invariant: after kernel_mpi_locals, c->in, c->ref and c->bytes have
 * c->n = ranks * nparams entries, device after device.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_run.h"

axe_kernel_tensor kernel_run_tensor(const run_ctx *c, int i)
{
    axe_kernel_tensor t;
    if (c->ranks == 0)
        return axe_program_tensor(c->p, i);
    t = axe_program_tensor(c->p, i % c->nparams);
    t.elems = t.local_elems;
    return t;
}

bool kernel_run_tolerance(const run_ctx *c, int i, double tol[2])
{
    int k = c->ranks == 0 ? i : i % c->nparams;
    return axe_program_tensor_tolerance(c->p, k, &tol[0], &tol[1]) == AXE_OK;
}

static void free_all(void **b, int n)
{
    int i;
    for (i = 0; b != NULL && i < n; i++)
        free(b[i]);
    free(b);
}

int kernel_mpi_locals(run_ctx *c)
{
    int n = c->nparams, P = c->ranks, d, i, total = n * P;
    void **in = calloc((size_t)total + 1, sizeof(void *));
    void **ref = calloc((size_t)total + 1, sizeof(void *));
    size_t *bytes = calloc((size_t)total + 1, sizeof(size_t));
    axe_status st = AXE_OK;
    axe_diag diag;
    for (d = 0; in && ref && bytes && st == AXE_OK && d < P; d++)
        for (i = 0; st == AXE_OK && i < n; i++) {
            axe_kernel_tensor t = axe_program_tensor(c->p, i);
            size_t b = (size_t)t.local_elems * (size_t)axe_dtype_size(t.dtype);
            bytes[d * n + i] = b;
            in[d * n + i] = calloc(b + 1, 1);
            ref[d * n + i] = calloc(b + 1, 1);
            st = in[d * n + i] == NULL || ref[d * n + i] == NULL
                     ? AXE_ERR_NO_MEMORY
                     : axe_program_mesh_local(c->p, i, d, c->in[i],
                                              in[d * n + i], &diag);
            if (st == AXE_OK)
                memcpy(ref[d * n + i], in[d * n + i], b);
        }
    if (in == NULL || ref == NULL || bytes == NULL || st != AXE_OK) {
        free_all(in, total), free_all(ref, total), free(bytes);
        return kernel_fail("run", axe_status_name(st ? st : AXE_ERR_NO_MEMORY),
                           "local buffers: %s",
                           st ? diag.message : "out of memory");
    }
    free_all(c->in, c->n), free_all(c->ref, c->n), free(c->bytes);
    c->in = in, c->ref = ref, c->bytes = bytes, c->n = total;
    return CLI_EXIT_OK;
}

/* One line of the shard list: tensor "i" on device "d". */
static axe_status shard_line(FILE *f, const axe_program *p, int i, int64_t d,
                             axe_diag *diag)
{
    axe_kernel_tensor t = axe_program_tensor(p, i);
    int64_t elems;
    uint64_t sum;
    int k;
    axe_status st = axe_program_mesh_checksum(p, i, d, &elems, &sum, diag);
    if (st != AXE_OK)
        return st;
    fprintf(f, "%s %s [", t.name, axe_dtype_name(t.dtype));
    for (k = 0; k < t.ndim; k++)
        fprintf(f, "%s%lld", k ? "," : "", (long long)t.shape[k]);
    fprintf(f, "] %lld %016llx\n", (long long)elems, (unsigned long long)sum);
    return AXE_OK;
}

int kernel_mpi_shards(const run_ctx *c)
{
    FILE *f = fopen(c->path[RUN_PATH_SHARDS], "w");
    axe_status st = AXE_OK;
    axe_diag diag;
    int d, i;
    for (d = 0; f != NULL && st == AXE_OK && d < c->ranks; d++)
        for (i = 0; st == AXE_OK && i < c->nparams; i++)
            st = shard_line(f, c->p, i, d, &diag);
    if (f == NULL || fclose(f) != 0)
        return kernel_fail("run", "IO", "cannot write %s",
                           c->path[RUN_PATH_SHARDS]);
    if (st != AXE_OK)
        return kernel_fail("run", axe_status_name(st), "the shard list: %s",
                           diag.message);
    return CLI_EXIT_OK;
}

/* Whether command "cmd" (a name or a path) runs: `command -v`. */
static bool have(const char *cmd)
{
    char line[600];
    if (strlen(cmd) > 500 || strchr(cmd, '\'') != NULL)
        return false;
    snprintf(line, sizeof line, "command -v '%s' >/dev/null 2>&1", cmd);
    return system(line) == 0;
}

int kernel_mpi_tools(void)
{
    const char *cc = getenv("MPICC"), *run = getenv("MPIRUN");
    cc = cc != NULL && cc[0] != '\0' ? cc : "mpicc";
    run = run != NULL && run[0] != '\0' ? run : "mpirun";
    if (have(cc) && have(run))
        return CLI_EXIT_OK;
    return kernel_fail("run", "UNSUPPORTED",
                       "--ranks runs the program with OpenMPI, and '%s' is "
                       "not installed (Debian: apt-get install openmpi-bin "
                       "libopenmpi-dev; or set MPICC and MPIRUN)",
                       have(cc) ? run : cc);
}
