/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The machine model of the Trainium-like accelerator target
 * (docs/compiler.md, "The accelerator model"): the one table of its
 * limits and costs, their defaults and ranges, and the checks of a model
 * that sema and the backends read. Invariant: "fields" has one row per
 * field of axe_trn_model, and a model that axe__trn_model_check accepts
 * has every field inside its row's range, a PSUM bank of whole f32
 * elements and a PSUM partition of whole banks.
 */
#include <stddef.h>
#include <string.h>

#include "compiler_internal.h"

/* A field of axe_trn_model: its name (the key of axe_kernel_options_trn),
 * its offset, its default and its range. */
typedef struct trn_field {
    const char *name;
    size_t offset;
    int64_t def, lo, hi;
} trn_field;

#define F(name, def, lo, hi)                                                   \
    {                                                                          \
#name, offsetof(axe_trn_model, name), def, lo, hi                      \
    }
static const trn_field fields[] = {
    F(partitions, 128, 1, 1024),
    F(sbuf_partition_bytes, 196608, 1, (int64_t)1 << 30),
    F(psum_partition_bytes, 16384, 4, (int64_t)1 << 30),
    F(psum_bank_bytes, 2048, 4, (int64_t)1 << 30),
    F(matmul_max_m, 128, 1, 1024),
    F(matmul_max_n, 512, 1, 65536),
    F(matmul_max_k, 128, 1, 1024),
    F(matmul_fixed_cycles, 64, 0, 1 << 20),
    F(vector_fixed_cycles, 64, 0, 1 << 20),
    F(vector_elems_per_cycle, 1, 1, 1 << 20),
    F(dma_fixed_cycles, 256, 0, 1 << 20),
    F(dma_bytes_per_cycle, 256, 1, 1 << 20)};
#undef F
#define NFIELDS ((int)(sizeof fields / sizeof fields[0]))

static int64_t *field_of(axe_trn_model *m, const trn_field *f)
{
    return (int64_t *)(void *)((char *)m + f->offset);
}

static int64_t field_get(const axe_trn_model *m, const trn_field *f)
{
    int64_t v;
    memcpy(&v, (const char *)m + f->offset, sizeof v);
    return v;
}

void axe_trn_model_default(axe_trn_model *m)
{
    int i;
    if (m == NULL)
        return;
    for (i = 0; i < NFIELDS; i++)
        *field_of(m, &fields[i]) = fields[i].def;
}

axe_status axe_kernel_options_trn(axe_kernel_options *o, const char *key,
                                  int64_t value, axe_diag *diag)
{
    int i;
    if (o == NULL || key == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trn model: missing options or key");
    for (i = 0; i < NFIELDS; i++)
        if (strcmp(fields[i].name, key) == 0)
            break;
    if (i == NFIELDS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trn model: no field '%s' (partitions, "
                         "sbuf_partition_bytes, psum_partition_bytes, "
                         "psum_bank_bytes, matmul_max_m/n/k, "
                         "matmul_fixed_cycles, vector_fixed_cycles, "
                         "vector_elems_per_cycle, dma_fixed_cycles, "
                         "dma_bytes_per_cycle)",
                         key);
    if (value < fields[i].lo || value > fields[i].hi)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trn model: %s = %lld lies outside [%lld, %lld]", key,
                         (long long)value, (long long)fields[i].lo,
                         (long long)fields[i].hi);
    *field_of(&o->trn, &fields[i]) = value;
    return AXE_OK;
}

/* "m" as axe_kernel_options_trn leaves it (each field in its range), and
 * a PSUM bank holds whole f32 elements and divides the partition. */
axe_status axe__trn_model_check(const axe_trn_model *m, axe_diag *diag)
{
    int i;
    for (i = 0; i < NFIELDS; i++) {
        int64_t v = field_get(m, &fields[i]);
        if (v < fields[i].lo || v > fields[i].hi)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "trn model: %s = %lld lies outside [%lld, %lld]",
                             fields[i].name, (long long)v,
                             (long long)fields[i].lo, (long long)fields[i].hi);
    }
    if (m->psum_bank_bytes % 4 != 0 ||
        m->psum_partition_bytes % m->psum_bank_bytes != 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "trn model: a PSUM bank (%lld bytes) must hold whole "
                         "f32 elements and divide a PSUM partition (%lld "
                         "bytes)",
                         (long long)m->psum_bank_bytes,
                         (long long)m->psum_partition_bytes);
    return AXE_OK;
}
