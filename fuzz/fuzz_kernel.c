/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the kernel language (docs/compiler.md): the input
 * bytes are compiled with axe_program_compile. Invariants, each checked
 * with __builtin_trap on violation: a failure returns a known error
 * status with a message and an offset inside the input (or -1) and no
 * program; a success emits C and an explanation whose lengths agree
 * between a sizing call and a writing call, and every operator has a
 * schedule; a small mesh program's reference runs. Nothing may crash,
 * hang or leak (the replay runs under asan).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "axe/kernel.h"

/* Enough to pass every nesting limit (256 expression levels, 64 blocks). */
#define TEXT_MAX 16384

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void require(bool cond)
{
    if (!cond)
        __builtin_trap();
}

static void check_failure(axe_status st, const axe_diag *d, size_t len,
                          const axe_program *p)
{
    require(st == AXE_ERR_SYNTAX || st == AXE_ERR_OVERFLOW ||
            st == AXE_ERR_CAPACITY || st == AXE_ERR_INVALID ||
            st == AXE_ERR_DOMAIN || st == AXE_ERR_UNSUPPORTED);
    require(d->offset >= -1 && (d->offset < 0 || (size_t)d->offset <= len));
    require(d->message[0] != '\0');
    require(p == NULL);
}

/* A small mesh program's reference runs on zeroed local buffers (every
 * replica agrees): it succeeds, or fails as a reference may (a
 * data-dependent start out of bounds, a capacity). */
static void check_mesh(axe_program *p)
{
    int64_t ndev = axe_program_mesh_devices(p), d, total = 0;
    int n = axe_program_tensor_count(p), i;
    void **bufs;
    axe_diag diag;
    axe_status st;
    if (ndev == 0 || axe_program_work(p) > 100000 ||
        axe_program_scalar_count(p) > 0)
        return;
    for (i = 0; i < n; i++) {
        axe_kernel_tensor t = axe_program_tensor(p, i);
        require(t.distributed && t.local_elems >= 0);
        total += (t.local_elems + t.elems) * ndev;
    }
    if (total > 100000)
        return;
    bufs = calloc((size_t)(ndev * n) + 1, sizeof *bufs);
    require(bufs != NULL);
    for (d = 0; d < ndev; d++)
        for (i = 0; i < n; i++) {
            axe_kernel_tensor t = axe_program_tensor(p, i);
            bufs[d * n + i] = calloc((size_t)t.local_elems + 1, 8);
            require(bufs[d * n + i] != NULL);
        }
    st = axe_program_reference_mesh(p, bufs, &diag);
    require(st == AXE_OK || st == AXE_ERR_DOMAIN || st == AXE_ERR_CAPACITY ||
            st == AXE_ERR_OVERFLOW);
    for (i = 0; i < ndev * n; i++)
        free(bufs[i]);
    free(bufs);
}

static void check_success(axe_program *p)
{
    size_t n = axe_program_emit_c(p, "fuzz.axe", NULL, 0);
    size_t e = axe_program_explain(p, NULL, 0);
    char *buf = malloc((n > e ? n : e) + 1);
    const char *op;
    int i;
    require(n > 0 && buf != NULL);
    require(axe_program_emit_c(p, "fuzz.axe", buf, n + 1) == n);
    require(strlen(buf) == n);
    require(axe_program_explain(p, buf, e + 1) == e && strlen(buf) == e);
    for (i = 0; axe_program_schedule(p, i, &op) != NULL; i++)
        require(op != NULL);
    free(buf);
    check_mesh(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    axe_program *p = NULL;
    axe_diag d;
    axe_status st;
    if (size > TEXT_MAX)
        return 0;
    st = axe_program_compile((const char *)data, size, NULL, NULL, &p, &d);
    if (st != AXE_OK)
        check_failure(st, &d, size, p);
    else
        check_success(p);
    axe_program_free(p);
    return 0;
}
