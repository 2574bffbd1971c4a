/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference of a mesh program (docs/compiler.md, "Distributed
 * tensors"): every device has a local buffer per tensor parameter. The
 * kernel body runs in order: the statements between two device operators
 * run on every device in turn on its own buffers (the single-device
 * reference, compiler_ref.c: each such segment is a launch of its own),
 * and a device operator is one global step from its logical definition.
 * An element's holders are the points of the paper's set L(x) of its
 * logical index x: the base point (gpuid, m) and every replica
 * combination added on gpuid. `device copy` reads the source's value of
 * each element (every holder of it must hold the same bytes: replicas
 * that disagree are an error, as the element then has no value) and
 * writes it to every holder of the element in the destination; `device
 * reduce` combines the source's values along dimension k in order
 * (rounded to the dtype after each step, as a local reduce) and writes
 * the result to every holder. Elements of a local buffer that no
 * coordinate maps to (holes) are never written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_internal.h"

/* The holders of every logical element of a distributed tensor: element
 * x has "per" of them, dev[x * per + r] and addr[x * per + r]. */
typedef struct holders {
    int64_t n, per;
    int64_t *dev, *addr;
} holders;

static void holders_free(holders *h)
{
    free(h->dev);
    free(h->addr);
}

/* The base point of "x" on gpuid and m. */
static axe_status base_point(const ax_tensor *t, int64_t x, int64_t *g,
                             int64_t *a, axe_diag *diag)
{
    axe_point pt;
    int k;
    AXE_TRY(axe_layout_apply_base(&t->glayout, x, &pt, diag));
    *g = *a = 0;
    for (k = 0; k < pt.n; k++) {
        if (strcmp(pt.axis[k], "gpuid") == 0)
            *g += pt.v[k];
        else if (strcmp(pt.axis[k], "m") == 0)
            *a += pt.v[k];
    }
    return AXE_OK;
}

/* Element x's holder "r": its base point plus replica combination r
 * (mixed radix, the last replica iter fastest). */
static int64_t replica_dev(const axe_layout *l, int64_t g, int64_t r)
{
    int j;
    for (j = l->nreplica - 1; j >= 0; j--) {
        g += r % l->replica[j].extent * l->replica[j].stride;
        r /= l->replica[j].extent;
    }
    return g;
}

static axe_status holders_build(const ax_tensor *t, holders *h, axe_diag *diag)
{
    int64_t x, r;
    int j;
    h->n = t->gsize;
    h->per = 1;
    for (j = 0; j < t->glayout.nreplica; j++)
        h->per *= t->glayout.replica[j].extent; /* <= P: sema's cover */
    h->dev = malloc((size_t)(h->n * h->per) * sizeof(int64_t));
    h->addr = malloc((size_t)(h->n * h->per) * sizeof(int64_t));
    if (h->dev == NULL || h->addr == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, t->off, "out of memory");
    for (x = 0; x < h->n; x++) {
        int64_t g, a;
        AXE_TRY(base_point(t, x, &g, &a, diag));
        for (r = 0; r < h->per; r++) {
            h->dev[x * h->per + r] = replica_dev(&t->glayout, g, r);
            h->addr[x * h->per + r] = a;
        }
    }
    return AXE_OK;
}

/* The logical coordinate of row-major index "x" of "shape" as text. */
static void coord_text(const int64_t *shape, int n, int64_t x, char *buf,
                       size_t cap)
{
    int64_t c[AX_MAX_DIMS];
    size_t k = 0;
    int d;
    for (d = n - 1; d >= 0; d--) {
        c[d] = x % shape[d];
        x /= shape[d];
    }
    for (d = 0; d < n && k < cap; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", d ? "," : "",
                              (long long)c[d]);
}

typedef struct mesh_run {
    const axe_program *p;
    void *const *bufs; /* bufs[d * n + i] */
    int n;
} mesh_run;

static void *buffer_of(const mesh_run *m, int64_t dev, int i)
{
    return m->bufs[dev * m->n + i];
}

/* The bytes of element x of tensor "i" (source of "s"): every holder's
 * must be the same; "out" gets them. */
static axe_status read_elem(const mesh_run *m, const ax_stmt *s, int i,
                            const holders *h, int64_t x, unsigned char *out,
                            axe_diag *diag)
{
    const ax_tensor *t = &m->p->tensors[i];
    int64_t es = axe_dtype_size(t->dtype);
    int64_t r, d0 = h->dev[x * h->per];
    memcpy(out, (char *)buffer_of(m, d0, i) + h->addr[x * h->per] * es,
           (size_t)es);
    for (r = 1; r < h->per; r++) {
        int64_t d = h->dev[x * h->per + r];
        const char *b =
            (char *)buffer_of(m, d, i) + h->addr[x * h->per + r] * es;
        if (memcmp(b, out, (size_t)es) != 0) {
            char c[160];
            coord_text(t->gshape, t->ndim, x, c, sizeof c);
            return axe__fail(
                diag, AXE_ERR_DOMAIN, s->off,
                "device %s (line %d): the replicas of '%s' disagree at "
                "[%s]: device %lld holds %g, device %lld holds %g (a "
                "replicated source must hold one value per element)",
                axe__op_name(s->op), s->line, t->name, c, (long long)d0,
                axe__ref_load(t->dtype, out, 0), (long long)d,
                axe__ref_load(t->dtype, b, 0));
        }
    }
    return AXE_OK;
}

static void write_elem(const mesh_run *m, int i, const holders *h, int64_t x,
                       const unsigned char *v)
{
    int64_t es = axe_dtype_size(m->p->tensors[i].dtype);
    int64_t r;
    for (r = 0; r < h->per; r++)
        memcpy((char *)buffer_of(m, h->dev[x * h->per + r], i) +
                   h->addr[x * h->per + r] * es,
               v, (size_t)es);
}

static axe_status run_copy(const mesh_run *m, const ax_stmt *s,
                           const holders *hd, const holders *hs, axe_diag *diag)
{
    unsigned char v[8];
    int64_t x;
    for (x = 0; x < hd->n; x++) {
        AXE_TRY(read_elem(m, s, s->args[1].tensor, hs, x, v, diag));
        write_elem(m, s->args[0].tensor, hd, x, v);
    }
    return AXE_OK;
}

/* dst element y: src's elements along dim k, combined in order. */
static axe_status reduce_elem(const mesh_run *m, const ax_stmt *s,
                              const holders *hd, const holders *hs, int64_t y,
                              axe_diag *diag)
{
    const ax_tensor *src = &m->p->tensors[s->args[1].tensor];
    int64_t inner = 1, ext = src->gshape[s->rdim], j, outer, x0;
    unsigned char v[8], w[8];
    double acc = 0;
    int d;
    for (d = s->rdim + 1; d < src->ndim; d++)
        inner *= src->gshape[d];
    outer = y / inner;
    x0 = outer * ext * inner + y % inner;
    for (j = 0; j < ext; j++) {
        double a;
        AXE_TRY(
            read_elem(m, s, s->args[1].tensor, hs, x0 + j * inner, v, diag));
        a = axe__ref_load(src->dtype, v, 0);
        acc = j == 0 ? a : axe__ref_combine(src->dtype, s->rkind, acc, a);
    }
    axe__ref_store(src->dtype, w, 0, acc);
    write_elem(m, s->args[0].tensor, hd, y, w);
    return AXE_OK;
}

static axe_status run_devop(const mesh_run *m, const ax_stmt *s, axe_diag *diag)
{
    holders hd = {0, 0, NULL, NULL}, hs = {0, 0, NULL, NULL};
    axe_status st;
    int64_t y;
    st = holders_build(&m->p->tensors[s->args[0].tensor], &hd, diag);
    if (st == AXE_OK)
        st = holders_build(&m->p->tensors[s->args[1].tensor], &hs, diag);
    if (st == AXE_OK && s->op == AX_OP_COPY)
        st = run_copy(m, s, &hd, &hs, diag);
    for (y = 0; st == AXE_OK && s->op == AX_OP_REDUCE && y < hd.n; y++)
        st = reduce_elem(m, s, &hd, &hs, y, diag);
    holders_free(&hd);
    holders_free(&hs);
    return st;
}

/* Whether the statements from "s" to the next device operator hold an
 * operator (a segment worth running). */
static bool segment_runs(const ax_stmt *s)
{
    for (; s != NULL && s->kind != AX_ST_DEVICE; s = s->next)
        if (s->kind != AX_ST_SYNC)
            return true;
    return false;
}

static axe_status run_segment(const mesh_run *m, const ax_stmt *first,
                              axe_diag *diag)
{
    int64_t d;
    if (!segment_runs(first))
        return AXE_OK;
    for (d = 0; d < m->p->ndev; d++)
        AXE_TRY(axe__reference_segment(m->p, first, m->bufs + d * m->n, diag));
    return AXE_OK;
}

axe_status axe_program_reference_mesh(const axe_program *p,
                                      void *const *buffers, axe_diag *diag)
{
    mesh_run m;
    const ax_stmt *s, *first = p->body;
    if (p->ndev == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the program has no mesh: its reference is "
                         "axe_program_reference");
    if (!p->bound)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the runtime scalars have no values "
                         "(axe_program_bind)");
    m.p = p;
    m.bufs = buffers;
    m.n = axe_program_tensor_count(p);
    for (s = p->body; s != NULL; s = s->next)
        if (s->kind == AX_ST_DEVICE) {
            AXE_TRY(run_segment(&m, first, diag));
            AXE_TRY(run_devop(&m, s, diag));
            first = s->next;
        }
    return run_segment(&m, first, diag);
}

axe_status axe_program_mesh_local(const axe_program *p, int i, int64_t device,
                                  const void *logical, void *local,
                                  axe_diag *diag)
{
    const ax_tensor *t;
    holders h = {0, 0, NULL, NULL};
    int64_t es, x, r;
    axe_status st;
    if (i < 0 || i >= axe_program_tensor_count(p) || !p->tensors[i].dist)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tensor parameter %d is not a distributed tensor", i);
    if (device < 0 || device >= p->ndev)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "device %lld is not in the mesh's 0 .. %lld",
                         (long long)device, (long long)p->ndev - 1);
    t = &p->tensors[i];
    es = axe_dtype_size(t->dtype);
    memset(local, 0, (size_t)(t->span * es));
    st = holders_build(t, &h, diag);
    for (x = 0; st == AXE_OK && x < h.n; x++)
        for (r = 0; r < h.per; r++)
            if (h.dev[x * h.per + r] == device)
                memcpy((char *)local + h.addr[x * h.per + r] * es,
                       (const char *)logical + x * es, (size_t)es);
    holders_free(&h);
    return st;
}

int64_t axe_program_mesh_devices(const axe_program *p) { return p->ndev; }
