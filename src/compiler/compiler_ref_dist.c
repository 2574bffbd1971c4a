/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The reference of a mesh program (docs/compiler.md, "Distributed
 * tensors"): every device has a local buffer per tensor parameter. The
 * kernel body runs in order: the statements between two device operators
 * run on every device in turn on its own buffers (the single-device
 * reference, compiler_ref.c: each such segment is a launch of its own),
 * and a device operator is one global step from its logical definition.
 * An element's holders are the points of the paper's set L(x) of its
 * logical index x: the base point (gpuid, m), computed from the layout's
 * iters as flat arrays (compiled once per operator, no table), and every
 * replica combination added on gpuid. `device copy` reads the source's value of
 * each element (every holder of it must hold the same bytes: replicas
 * that disagree are an error, as the element then has no value) and
 * writes it to every holder of the element in the destination; `device
 * reduce` combines the source's values along dimension k in slice order
 * (the values of one slice of k's device digits in increasing k, then
 * the slices in increasing order, as the MPI runtime folds them; rounded
 * to the dtype after each step, as a local reduce) and writes the result
 * to every holder; `device gemm` writes to every holder of
 * C[m,n] the sum over the slices q of K (compiler_dist_gemm.c), in
 * increasing q, of each slice's sum of A[m,k]*B[n,k] in increasing k
 * (in C's dtype: f16/bf16 products widened to f32). A
 * region operand is read and written through its tensor's own layout at
 * the region's coordinates (not the sliced layout the backends run); its
 * slices of k are those of the sliced layout (the placement). Elements
 * of a local buffer that no coordinate maps to (holes) are never written. With
 * race detection, each segment on each device gets a detector of its own (a
 * launch: the device operators order the segments) and the reports are merged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler_dist.h"

/* A distributed tensor's layout as flat arrays (no swizzle, axes gpuid
 * and m only: sema's checks): element x's base point is the offsets plus,
 * for each shard iter i (the last fastest), its digit of x times its
 * stride on gpuid ("gs") or m ("ms"); its holders add every replica
 * combination (on gpuid) to the base device. A region of it ("nd" > 0)
 * numbers its own elements: element x of the region (row-major over
 * "rshape") is the tensor's element at its coordinate plus "begin"
 * (row-major strides "bstride"), whatever sema's sliced layout says. */
typedef struct flat {
    int n, nrep, nd;
    int64_t ext[AXE_LAYOUT_MAX_SHARD], gs[AXE_LAYOUT_MAX_SHARD],
        ms[AXE_LAYOUT_MAX_SHARD];
    int64_t rext[AXE_LAYOUT_MAX_REPLICA], rs[AXE_LAYOUT_MAX_REPLICA];
    int64_t g0, a0, per, size;
    int64_t rshape[AX_MAX_DIMS], begin[AX_MAX_DIMS], bstride[AX_MAX_DIMS];
} flat;

static bool on_gpuid(const char *axis) { return strcmp(axis, "gpuid") == 0; }

static void flat_of(const ax_tensor *t, flat *f)
{
    const axe_layout *l = &t->glayout;
    int i;
    f->n = l->nshard;
    f->nrep = l->nreplica;
    f->nd = 0;
    f->g0 = f->a0 = 0;
    f->per = 1;
    f->size = t->gsize;
    for (i = 0; i < l->nshard; i++) {
        bool g = on_gpuid(l->shard[i].axis);
        f->ext[i] = l->shard[i].extent;
        f->gs[i] = g ? l->shard[i].stride : 0;
        f->ms[i] = g ? 0 : l->shard[i].stride;
    }
    for (i = 0; i < l->nreplica; i++) { /* all on gpuid */
        f->rext[i] = l->replica[i].extent;
        f->rs[i] = l->replica[i].stride;
        f->per *= f->rext[i]; /* <= P: sema's cover */
    }
    for (i = 0; i < l->noffset; i++) {
        if (on_gpuid(l->offset[i].axis))
            f->g0 += l->offset[i].value;
        else
            f->a0 += l->offset[i].value;
    }
}

/* The flat arrays of operand "arg" of device operator "s": its tensor's,
 * and for a region its lengths and origin (the parser folded the
 * starts). */
static void flat_of_operand(const axe_program *p, const ax_stmt *s, int arg,
                            flat *f)
{
    const ax_ref *r = &s->args[arg];
    const ax_tensor *t = &p->tensors[r->tensor];
    int64_t st = 1;
    int d;
    flat_of(t, f);
    if (r->ndim == 0)
        return;
    f->nd = t->ndim;
    f->size = 1;
    for (d = t->ndim - 1; d >= 0; d--) {
        f->rshape[d] = r->len[d];
        f->begin[d] = r->start[d]->value;
        f->bstride[d] = st;
        st *= t->gshape[d];
        f->size *= r->len[d];
    }
}

/* Element x's base device "*g" and address "*a". */
static void base_point(const flat *f, int64_t x, int64_t *g, int64_t *a)
{
    int64_t y = 0;
    int i;
    for (i = f->nd - 1; i >= 0; i--) { /* a region's x: the tensor's */
        y += (x % f->rshape[i] + f->begin[i]) * f->bstride[i];
        x /= f->rshape[i];
    }
    x = f->nd > 0 ? y : x;
    *g = f->g0;
    *a = f->a0;
    for (i = f->n - 1; i >= 0; i--) {
        int64_t dg = x % f->ext[i];
        x /= f->ext[i];
        *g += dg * f->gs[i];
        *a += dg * f->ms[i];
    }
}

/* Holder "r" of an element of base device "g": replica combination r
 * (mixed radix, the last replica iter fastest). */
static int64_t replica_dev(const flat *f, int64_t g, int64_t r)
{
    int j;
    for (j = f->nrep - 1; j >= 0; j--) {
        g += r % f->rext[j] * f->rs[j];
        r /= f->rext[j];
    }
    return g;
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
    axe_race_report *races;    /* NULL: no detection */
    int64_t kept[AX_MAX_VARS]; /* the kept loops' variables, running */
    axe_diag *diag;
} mesh_run;

static void *buffer_of(const mesh_run *m, int64_t dev, int i)
{
    return m->bufs[dev * m->n + i];
}

/* The bytes of element x of operand "arg" of "s" (a source): every
 * holder's must be the same; "out" gets them. */
static axe_status read_elem(const mesh_run *m, const ax_stmt *s, int arg,
                            const flat *f, int64_t x, unsigned char *out,
                            axe_diag *diag)
{
    const ax_tensor *t = axe__devop_tensor(m->p, s, arg);
    int i = s->args[arg].tensor;
    int64_t es = axe_dtype_size(t->dtype), g, a, r;
    base_point(f, x, &g, &a);
    memcpy(out, (char *)buffer_of(m, g, i) + a * es, (size_t)es);
    for (r = 1; r < f->per; r++) {
        int64_t d = replica_dev(f, g, r);
        const char *b = (char *)buffer_of(m, d, i) + a * es;
        if (memcmp(b, out, (size_t)es) != 0) {
            char c[160];
            coord_text(t->gshape, t->ndim, x, c, sizeof c);
            return axe__fail(
                diag, AXE_ERR_DOMAIN, s->off,
                "device %s (line %d): the replicas of '%s' disagree at "
                "[%s]: device %lld holds %g, device %lld holds %g (a "
                "replicated source must hold one value per element)",
                axe__op_name(s->op), s->line, axe__devop_text(m->p, s, arg), c,
                (long long)g, axe__ref_load(t->dtype, out, 0), (long long)d,
                axe__ref_load(t->dtype, b, 0));
        }
    }
    return AXE_OK;
}

static void write_elem(const mesh_run *m, int i, const flat *f, int64_t x,
                       const unsigned char *v)
{
    int64_t es = axe_dtype_size(m->p->tensors[i].dtype), g, a, r;
    base_point(f, x, &g, &a);
    for (r = 0; r < f->per; r++)
        memcpy((char *)buffer_of(m, replica_dev(f, g, r), i) + a * es, v,
               (size_t)es);
}

static axe_status run_copy(const mesh_run *m, const ax_stmt *s, const flat *fd,
                           const flat *fs, axe_diag *diag)
{
    unsigned char v[8];
    int64_t x;
    for (x = 0; x < fd->size; x++) {
        AXE_TRY(read_elem(m, s, 1, fs, x, v, diag));
        write_elem(m, s->args[0].tensor, fd, x, v);
    }
    return AXE_OK;
}

/* dst element y: src's elements along dim k, combined in the order
 * "order" (k by slice, then increasing k; "q" the slices): each slice's
 * elements in increasing k, then the slices' results in increasing
 * slice, each step rounded to the dtype. */
static axe_status reduce_elem(const mesh_run *m, const ax_stmt *s,
                              const flat *fd, const flat *fs,
                              const int64_t *order, const int64_t *q, int64_t y,
                              axe_diag *diag)
{
    const ax_tensor *src = axe__devop_tensor(m->p, s, 1);
    int64_t inner = 1, ext = src->gshape[s->rdim], j, k, x0;
    unsigned char v[8], w[8];
    double part = 0, total = 0;
    int d;
    for (d = s->rdim + 1; d < src->ndim; d++)
        inner *= src->gshape[d];
    x0 = y / inner * ext * inner + y % inner;
    for (j = 0; j < ext; j++) {
        double a;
        k = order[j];
        AXE_TRY(read_elem(m, s, 1, fs, x0 + k * inner, v, diag));
        a = axe__ref_load(src->dtype, v, 0);
        part = j == 0 || q[k] != q[order[j - 1]]
                   ? a
                   : axe__ref_combine(src->dtype, s->rkind, part, a);
        if (j + 1 == ext || q[order[j + 1]] != q[k])
            total = q[k] == q[order[0]]
                        ? part
                        : axe__ref_combine(src->dtype, s->rkind, total, part);
    }
    axe__ref_store(src->dtype, w, 0, total);
    write_elem(m, s->args[0].tensor, fd, y, w);
    return AXE_OK;
}

/* The logical values of operand "arg" (every replica checked) as
 * doubles. */
static axe_status load_all(const mesh_run *m, const ax_stmt *s, int arg,
                           double *out, axe_diag *diag)
{
    const ax_tensor *t = axe__devop_tensor(m->p, s, arg);
    unsigned char v[8];
    int64_t x;
    flat f;
    flat_of_operand(m->p, s, arg, &f);
    for (x = 0; x < f.size; x++) {
        AXE_TRY(read_elem(m, s, arg, &f, x, v, diag));
        out[x] = axe__ref_load(t->dtype, v, 0);
    }
    return AXE_OK;
}

/* a*b in dtype "d" (f32, f64, i32 wrapping), as the local GEMM does: C's
 * dtype, so f16/bf16 A and B (f32 C) give the exact product in f32. */
static double product(axe_dtype d, double a, double b)
{
    if (d == AXE_DTYPE_I32)
        return (double)(int32_t)(uint32_t)(uint64_t)((int64_t)a * (int64_t)b);
    return d == AXE_DTYPE_F32 ? (double)(float)(a * b) : a * b;
}

/* C[m,n] = the partials of the slices q of K in increasing q, each the
 * sum over its k's in increasing k (compiler_dist_gemm.c); "order" lists
 * K's indices by (q, k), "q" their slices. */
static void gemm_elem(const mesh_run *m, const ax_stmt *s, const double *va,
                      const double *vb, const int64_t *order, const int64_t *q,
                      int64_t y, unsigned char *out)
{
    const ax_tensor *c = axe__devop_tensor(m->p, s, 0);
    int64_t K = axe__devop_tensor(m->p, s, 1)->gshape[1];
    int64_t N = c->gshape[1], mi = y / N, ni = y % N, j;
    double total = 0, part = 0;
    for (j = 0; j < K; j++) {
        int64_t k = order[j];
        part =
            axe__ref_combine(c->dtype, AX_RED_SUM, part,
                             product(c->dtype, va[mi * K + k], vb[ni * K + k]));
        if (j + 1 == K || q[order[j + 1]] != q[k]) {
            total = q[k] == q[order[0]]
                        ? part
                        : axe__ref_combine(c->dtype, AX_RED_SUM, total, part);
            part = 0;
        }
    }
    axe__ref_store(c->dtype, out, 0, total);
}

/* K's indices sorted by (slice, k): a counting sort over the slices. */
static void slice_order(const int64_t *q, int64_t K, int64_t *order)
{
    int64_t n = 0, v, k, Q = 0;
    for (k = 0; k < K; k++)
        Q = q[k] + 1 > Q ? q[k] + 1 : Q;
    for (v = 0; v < Q; v++)
        for (k = 0; k < K; k++)
            if (q[k] == v)
                order[n++] = k;
}

/* Every element of a device reduce's dst: src's elements along dim k in
 * slice order (axe__dist_slices of the reduced dim: the MPI runtime's
 * order, each device folding its own k's first). */
static axe_status run_reduce(const mesh_run *m, const ax_stmt *s,
                             const flat *fd, const flat *fs, axe_diag *diag)
{
    const ax_tensor *src = axe__devop_tensor(m->p, s, 1);
    int64_t ext = src->gshape[s->rdim], y;
    int64_t *q = malloc((size_t)ext * sizeof *q);
    int64_t *order = malloc((size_t)ext * sizeof *order);
    axe_status st = AXE_OK;
    if (q == NULL || order == NULL)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    if (st == AXE_OK && (st = axe__dist_slices(src, s->rdim, q)) != AXE_OK)
        st = axe__fail(diag, st, s->off, "device reduce: the slices of k");
    if (st == AXE_OK)
        slice_order(q, ext, order);
    for (y = 0; st == AXE_OK && y < fd->size; y++)
        st = reduce_elem(m, s, fd, fs, order, q, y, diag);
    free(q);
    free(order);
    return st;
}

/* q[k]: the slice of K holding k, by the placement of K the local GEMMs
 * use (A's, or its copy's where A is copied first). */
static axe_status gemm_slices(const axe_program *p, const ax_stmt *s,
                              int64_t *q, axe_diag *diag)
{
    ax_dist_gemm *g = malloc(sizeof *g);
    axe_status st = AXE_ERR_NO_MEMORY;
    if (g == NULL)
        return axe__fail(diag, st, s->off, "out of memory");
    st = axe__dist_gemm(p, s, g, diag);
    if (st == AXE_OK &&
        (st = axe__dist_slices(axe__dist_gemm_operand(p, s, g, 1), 1, q)) !=
            AXE_OK)
        st = axe__fail(diag, st, s->off, "device gemm: K's slices");
    free(g);
    return st;
}

static axe_status run_gemm(const mesh_run *m, const ax_stmt *s, axe_diag *diag)
{
    const ax_tensor *a = axe__devop_tensor(m->p, s, 1);
    const ax_tensor *b = axe__devop_tensor(m->p, s, 2);
    int64_t K = a->gshape[1], y;
    double *va = malloc((size_t)a->gsize * sizeof *va);
    double *vb = malloc((size_t)b->gsize * sizeof *vb);
    int64_t *q = malloc((size_t)K * sizeof *q);
    int64_t *order = malloc((size_t)K * sizeof *order);
    unsigned char v[8];
    axe_status st = AXE_OK;
    flat fc;
    if (va == NULL || vb == NULL || q == NULL || order == NULL)
        st = axe__fail(diag, AXE_ERR_NO_MEMORY, s->off, "out of memory");
    if (st == AXE_OK)
        st = load_all(m, s, 1, va, diag);
    if (st == AXE_OK)
        st = load_all(m, s, 2, vb, diag);
    if (st == AXE_OK)
        st = gemm_slices(m->p, s, q, diag);
    if (st == AXE_OK) {
        slice_order(q, K, order);
        flat_of_operand(m->p, s, 0, &fc);
        for (y = 0; y < fc.size; y++) {
            gemm_elem(m, s, va, vb, order, q, y, v);
            write_elem(m, s->args[0].tensor, &fc, y, v);
        }
    }
    free(va);
    free(vb);
    free(q);
    free(order);
    return st;
}

static axe_status run_devop(const mesh_run *m, const ax_stmt *s, axe_diag *diag)
{
    flat fd, fs;
    if (s->op == AX_OP_GEMM)
        return run_gemm(m, s, diag);
    flat_of_operand(m->p, s, 0, &fd);
    flat_of_operand(m->p, s, 1, &fs);
    if (s->op == AX_OP_COPY)
        return run_copy(m, s, &fd, &fs, diag);
    return run_reduce(m, s, &fd, &fs, diag);
}

/* Segment "k" (compiler_segments.c) on every device. */
static axe_status run_segment(const mesh_run *m, int k, axe_diag *diag)
{
    const ax_stmt *first = axe__seg_first(m->p, k);
    axe_race_report *one = NULL;
    axe_status st = AXE_OK;
    int64_t d;
    if (!axe__seg_runs(m->p, k))
        return AXE_OK;
    if (m->races != NULL && (one = malloc(sizeof *one)) == NULL)
        return axe__fail(diag, AXE_ERR_NO_MEMORY, -1, "out of memory");
    for (d = 0; st == AXE_OK && d < m->p->ndev; d++) {
        st = axe__reference_segment(m->p, first, m->kept, m->bufs + d * m->n,
                                    one, diag);
        if (st == AXE_OK && one != NULL)
            axe__race_merge(m->races, one, d);
    }
    free(one);
    return st;
}

/* The walk's hooks (axe__seg_walk): segment "k" and device operator
 * "s" run; a kept loop's iterations at its variable's values, a kept
 * if's branch by its condition (m->kept holds the scalars too). */
static axe_status visit_segment(const ax_seg_visit *v, int k)
{
    const mesh_run *m = v->user;
    return run_segment(m, k, m->diag);
}

static axe_status visit_devop(const ax_seg_visit *v, const ax_stmt *s)
{
    const mesh_run *m = v->user;
    return run_devop(m, s, m->diag);
}

static axe_status visit_kept(const ax_seg_visit *v, const ax_stmt *s)
{
    mesh_run *m = v->user;
    int64_t i, n;
    int branch;
    if (s->kind == AX_ST_FOR) {
        n = axe__dyn_value(m->p, s->dtrip, s->trip);
        for (i = 0; i < n; i++) {
            m->kept[s->var] = i;
            AXE_TRY(axe__seg_walk(v, axe__seg_after(m->p, s, 1)));
        }
        return AXE_OK;
    }
    branch = axe__guard_holds(&s->cond, m->kept) ? 1 : 2;
    if (branch == 2 && s->else_body == NULL)
        return AXE_OK;
    return axe__seg_walk(v, axe__seg_after(m->p, s, branch));
}

/* The detector's limits, before anything runs (axe__race_new's). */
static axe_status race_limits(const axe_program *p, axe_diag *diag)
{
    ax_race *r;
    AXE_TRY(axe__race_new(p, &r, diag));
    axe__race_free(r);
    return AXE_OK;
}

axe_status axe_program_reference_mesh(const axe_program *p,
                                      void *const *buffers, axe_diag *diag)
{
    return axe_program_reference_mesh_races(p, buffers, NULL, diag);
}

axe_status axe_program_reference_mesh_races(const axe_program *p,
                                            void *const *buffers,
                                            axe_race_report *races,
                                            axe_diag *diag)
{
    static const mesh_run zero;
    mesh_run m = zero;
    ax_seg_visit v = {p, &m, visit_segment, visit_devop, visit_kept};
    int i;
    if (p->ndev == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the program has no mesh: its reference is "
                         "axe_program_reference");
    if (!p->bound)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "the runtime scalars have no values "
                         "(axe_program_bind)");
    if (races != NULL) {
        AXE_TRY(race_limits(p, diag));
        memset(races, 0, sizeof *races);
    }
    m.p = p;
    m.bufs = buffers;
    m.n = axe_program_tensor_count(p);
    m.races = races;
    for (i = 0; i < p->nscalars; i++)
        m.kept[p->scalar_var[i]] = p->scalar_value[i];
    m.diag = diag;
    return axe__seg_walk(&v, 0);
}

/* Tensor parameter "i" is distributed and "device" in the mesh. */
static axe_status dist_arg(const axe_program *p, int i, int64_t device,
                           axe_diag *diag)
{
    if (i < 0 || i >= axe_program_tensor_count(p) || !p->tensors[i].dist)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tensor parameter %d is not a distributed tensor", i);
    if (device < 0 || device >= p->ndev)
        return axe__fail(diag, AXE_ERR_DOMAIN, -1,
                         "device %lld is not in the mesh's 0 .. %lld",
                         (long long)device, (long long)p->ndev - 1);
    return AXE_OK;
}

axe_status axe_program_mesh_local(const axe_program *p, int i, int64_t device,
                                  const void *logical, void *local,
                                  axe_diag *diag)
{
    const ax_tensor *t;
    flat f;
    int64_t es, x, r, g, a;
    AXE_TRY(dist_arg(p, i, device, diag));
    t = &p->tensors[i];
    es = axe_dtype_size(t->dtype);
    memset(local, 0, (size_t)(t->span * es));
    flat_of(t, &f);
    for (x = 0; x < f.size; x++) {
        base_point(&f, x, &g, &a);
        for (r = 0; r < f.per; r++)
            if (replica_dev(&f, g, r) == device)
                memcpy((char *)local + a * es, (const char *)logical + x * es,
                       (size_t)es);
    }
    return AXE_OK;
}

/* splitmix64's finalizer (the runtime's axe_mpi_mix). */
static uint64_t id_mix(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

axe_status axe_program_mesh_checksum(const axe_program *p, int i,
                                     int64_t device, int64_t *elems,
                                     uint64_t *sum, axe_diag *diag)
{
    flat f;
    int64_t x, r, g, a;
    AXE_TRY(dist_arg(p, i, device, diag));
    flat_of(&p->tensors[i], &f);
    *elems = 0;
    *sum = 0;
    for (x = 0; x < f.size; x++) {
        base_point(&f, x, &g, &a);
        for (r = 0; r < f.per; r++)
            if (replica_dev(&f, g, r) == device) {
                ++*elems;
                *sum += id_mix(id_mix((uint64_t)x) + (uint64_t)a);
            }
    }
    return AXE_OK;
}

int64_t axe_program_mesh_devices(const axe_program *p) { return p->ndev; }
