/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Distributed tensors in the kernel language (docs/compiler.md,
 * "Distributed tensors"): the reference of mesh programs against brute
 * force over the layouts. Each device's expected local buffer is built
 * from the logical tensor with the layout library's set L(c) of every
 * coordinate c (axe_layout_apply_set: every holder, replicas included),
 * holes left 0; a device copy or reduce changes the logical tensor as
 * its definition says (copy: the source's values; reduce: the combination
 * along dim k in slice order: the k's on one device in increasing k, then
 * the devices' results in order of their first k; f32 values where the
 * order matters). Random layouts (shard digits on gpuid or m in
 * any order, replicas, padding, offsets, one-device placements) over
 * meshes of 1 to 8 devices; the table kernels of tests/kernels/dist; the
 * library's refusals.
 */
#include <math.h>

#include "axe/kernel.h"
#include "axe/layout.h"
#include "axe/notation.h"
#include "testlib.h"

#define MAXT 8

static double get(axe_dtype d, const void *b, int64_t i)
{
    if (d == AXE_DTYPE_I8)
        return ((const int8_t *)b)[i];
    if (d == AXE_DTYPE_I32)
        return ((const int32_t *)b)[i];
    if (d == AXE_DTYPE_F32)
        return ((const float *)b)[i];
    if (d == AXE_DTYPE_F64)
        return ((const double *)b)[i];
    return axe_f16_to_float(((const uint16_t *)b)[i]); /* f16 */
}

static void set(axe_dtype d, void *b, int64_t i, double v)
{
    if (d == AXE_DTYPE_I8)
        ((int8_t *)b)[i] = (int8_t)v;
    else if (d == AXE_DTYPE_I32)
        ((int32_t *)b)[i] = (int32_t)v;
    else if (d == AXE_DTYPE_F32)
        ((float *)b)[i] = (float)v;
    else if (d == AXE_DTYPE_F64)
        ((double *)b)[i] = v;
    else /* f16 */
        ((uint16_t *)b)[i] = axe_f16_from_float((float)v);
}

/* A mesh program with its per-device buffers and, per tensor, the
 * logical values (row-major doubles) the brute force tracks. */
typedef struct mesh_case {
    axe_program *p;
    int64_t ndev;
    int n;
    axe_kernel_tensor t[MAXT];
    axe_layout layout[MAXT]; /* the declared layouts (from the text) */
    double *logical[MAXT];
    void **bufs; /* ndev x n */
} mesh_case;

static void case_free(mesh_case *c)
{
    int i;
    for (i = 0; i < c->n; i++)
        free(c->logical[i]);
    for (i = 0; c->bufs != NULL && i < c->ndev * c->n; i++)
        free(c->bufs[i]);
    free(c->bufs);
    axe_program_free(c->p);
    memset(c, 0, sizeof *c);
}

/* The point's value on "axis" (0 when absent). */
static int64_t on(const axe_point *pt, const char *axis)
{
    int64_t v = 0;
    int k;
    for (k = 0; k < pt->n; k++)
        if (strcmp(pt->axis[k], axis) == 0)
            v += pt->v[k];
    return v;
}

static void coord_of(const axe_kernel_tensor *t, int64_t x, int64_t *c)
{
    int d;
    for (d = t->ndim - 1; d >= 0; d--) {
        c[d] = x % t->shape[d];
        x /= t->shape[d];
    }
}

/* Device "dev"'s expected buffer of tensor "i": the logical values at
 * every point of L(c) on that device, 0 elsewhere. */
static bool expected(const mesh_case *c, int i, int64_t dev, double *out)
{
    const axe_kernel_tensor *t = &c->t[i];
    int64_t x, a, crd[AXE_KERNEL_MAX_DIMS];
    for (a = 0; a < t->local_elems; a++)
        out[a] = 0;
    for (x = 0; x < t->elems; x++) {
        axe_point pts[64];
        int cnt, k;
        axe_diag d;
        coord_of(t, x, crd);
        if (axe_layout_apply_set(&c->layout[i], crd, t->shape, t->ndim, pts, 64,
                                 &cnt, &d) != AXE_OK)
            return false;
        for (k = 0; k < cnt; k++)
            if (on(&pts[k], "gpuid") == dev) {
                int64_t m = on(&pts[k], "m");
                if (m < 0 || m >= t->local_elems)
                    return false;
                out[m] = c->logical[i][x];
            }
    }
    return true;
}

/* splitmix64's finalizer, written from its definition (the entry
 * check's mix, docs/compiler.md "The entry check"). */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* axe_program_mesh_checksum of tensor "i" on device "dev" against brute
 * force over L(c) of every coordinate (apply_set). */
static bool checksum_ok(const mesh_case *c, int i, int64_t dev)
{
    const axe_kernel_tensor *t = &c->t[i];
    int64_t x, crd[AXE_KERNEL_MAX_DIMS], n = 0, got_n = -1;
    uint64_t sum = 0, got = 0;
    axe_diag d;
    for (x = 0; x < t->elems; x++) {
        axe_point pts[64];
        int cnt, k;
        coord_of(t, x, crd);
        if (axe_layout_apply_set(&c->layout[i], crd, t->shape, t->ndim, pts, 64,
                                 &cnt, &d) != AXE_OK)
            return false;
        for (k = 0; k < cnt; k++)
            if (on(&pts[k], "gpuid") == dev) {
                n++;
                sum += mix(mix((uint64_t)x) + (uint64_t)on(&pts[k], "m"));
            }
    }
    return axe_program_mesh_checksum(c->p, i, dev, &got_n, &got, &d) ==
               AXE_OK &&
           got_n == n && got == sum;
}

/* Compile "src" (with "-D" defines), seed logical values in [-100, 100]
 * and deal them out with axe_program_mesh_local, checked against
 * brute force (and the entry check's checksum likewise). */
/* case_init's logical values: integers in [-100, 100], or with
 * "wide_values" a third of them times 2^22 (exact in f32, and f32 sums
 * of them depend on the order). */
static bool wide_values;

static bool case_init(mesh_case *c, const char *src,
                      const axe_kernel_options *o, const char *const *texts)
{
    axe_diag d;
    int i;
    int64_t dev, x;
    memset(c, 0, sizeof *c);
    if (axe_program_compile(src, strlen(src), o, NULL, &c->p, &d) != AXE_OK) {
        TL_CHECK(0, "compile: %s\n%s", d.message, src);
        return false;
    }
    c->ndev = axe_program_mesh_devices(c->p);
    c->n = axe_program_tensor_count(c->p);
    c->bufs = calloc((size_t)(c->ndev * c->n), sizeof(void *));
    for (i = 0; i < c->n; i++) {
        axe_layout declared;
        bool ok = axe_program_tensor_layout(c->p, i, &declared) == AXE_OK;
        if (texts != NULL) /* the layout text, parsed by the notation */
            ok = ok &&
                 axe_parse_layout(texts[i], strlen(texts[i]), &c->layout[i],
                                  &d) == AXE_OK &&
                 axe_layout_equal(&declared, &c->layout[i]);
        else
            c->layout[i] = declared;
        TL_CHECK(ok, "declared layout %d of\n%s", i, src);
        c->t[i] = axe_program_tensor(c->p, i);
        c->logical[i] = malloc((size_t)c->t[i].elems * sizeof(double));
        for (x = 0; x < c->t[i].elems; x++)
            c->logical[i][x] =
                (double)tl_range(-100, 100) *
                (wide_values && tl_range(0, 2) == 0 ? 4194304.0 : 1.0);
    }
    for (dev = 0; dev < c->ndev; dev++)
        for (i = 0; i < c->n; i++) {
            const axe_kernel_tensor *t = &c->t[i];
            size_t es = (size_t)axe_dtype_size(t->dtype);
            void *lg = malloc((size_t)t->elems * es);
            double *want = malloc((size_t)t->local_elems * sizeof(double));
            bool ok;
            int64_t a;
            c->bufs[dev * c->n + i] = malloc((size_t)t->local_elems * es);
            for (x = 0; x < t->elems; x++)
                set(t->dtype, lg, x, c->logical[i][x]);
            ok = axe_program_mesh_local(
                     c->p, i, dev, lg, c->bufs[dev * c->n + i], &d) == AXE_OK &&
                 expected(c, i, dev, want);
            for (a = 0; ok && a < t->local_elems; a++)
                ok = get(t->dtype, c->bufs[dev * c->n + i], a) == want[a];
            TL_CHECK(ok, "mesh_local of %s on device %lld (elem %lld)\n%s",
                     t->name, (long long)dev, (long long)a, src);
            TL_CHECK(checksum_ok(c, i, dev),
                     "mesh_checksum of %s on device "
                     "%lld\n%s",
                     t->name, (long long)dev, src);
            free(lg);
            free(want);
        }
    return true;
}

/* Every device's buffers equal the brute force's (within "tol",
 * normwise, of the largest logical value). */
static void case_check(const mesh_case *c, double tol, const char *what)
{
    int i;
    int64_t dev, a;
    for (i = 0; i < c->n; i++)
        for (dev = 0; dev < c->ndev; dev++) {
            const axe_kernel_tensor *t = &c->t[i];
            double *want = malloc((size_t)t->local_elems * sizeof(double));
            bool ok = expected(c, i, dev, want);
            for (a = 0; ok && a < t->local_elems; a++)
                ok = fabs(get(t->dtype, c->bufs[dev * c->n + i], a) -
                          want[a]) <= tol * (1 + fabs(want[a]));
            TL_CHECK(ok, "%s: %s on device %lld, address %lld: %g, want %g",
                     what, t->name, (long long)dev, (long long)a - 1,
                     ok ? 0 : get(t->dtype, c->bufs[dev * c->n + i], a - 1),
                     ok ? 0 : want[a - 1]);
            free(want);
        }
}

/* The logical effect of `device copy(dst, src)`. */
static void logical_copy(mesh_case *c, int dst, int src)
{
    memcpy(c->logical[dst], c->logical[src],
           (size_t)c->t[dst].elems * sizeof(double));
}

/* a (+) b (op 0 sum, 1 max, 2 min), rounded to f32 when "f32". */
static double combine(int op, bool f32, double a, double b)
{
    double r = op == 0 ? a + b : op == 1 ? (b > a ? b : a) : (b < a ? b : a);
    return f32 ? (double)(float)r : r;
}

/* The device of logical element x of tensor "i" (its smallest holder,
 * from apply_set). */
static int64_t owner(const mesh_case *c, int i, int64_t x)
{
    int64_t crd[AXE_KERNEL_MAX_DIMS], dev = -1, g;
    axe_point pts[64];
    int cnt = 0, k;
    axe_diag d;
    coord_of(&c->t[i], x, crd);
    if (axe_layout_apply_set(&c->layout[i], crd, c->t[i].shape, c->t[i].ndim,
                             pts, 64, &cnt, &d) != AXE_OK)
        return -1;
    for (k = 0; k < cnt; k++)
        if (g = on(&pts[k], "gpuid"), dev < 0 || g < dev)
            dev = g;
    return dev;
}

/* The logical effect of `device reduce(dst, src, op, k)` (op 0 sum, 1 max,
 * 2 min), in the documented order (docs/compiler.md): the k's on one
 * device (a slice) combined in increasing k, then the slices in order
 * of their first k; f32 rounded after each step when "f32". */
static void logical_reduce(mesh_case *c, int dst, int src, int op, int k,
                           bool f32)
{
    const axe_kernel_tensor *s = &c->t[src];
    int64_t inner = 1, ext = s->shape[k], y, j, l, dev[8];
    int d;
    for (d = k + 1; d < s->ndim; d++)
        inner *= s->shape[d];
    for (y = 0; y < c->t[dst].elems; y++) {
        int64_t x0 = y / inner * ext * inner + y % inner;
        double acc = 0, part;
        for (j = 0; j < ext && j < 8; j++)
            dev[j] = owner(c, src, x0 + j * inner);
        for (j = 0; j < ext && j < 8; j++) {
            for (l = 0; l < j && dev[l] != dev[j]; l++)
                ;
            if (l < j)
                continue; /* slice of dev[j] done at its first k */
            part = c->logical[src][x0 + j * inner];
            for (l = j + 1; l < ext; l++)
                if (dev[l] == dev[j])
                    part =
                        combine(op, f32, part, c->logical[src][x0 + l * inner]);
            acc = j == 0 ? part : combine(op, f32, acc, part);
        }
        c->logical[dst][y] = acc;
    }
}

static axe_status run(mesh_case *c, axe_diag *d)
{
    return axe_program_reference_mesh(c->p, c->bufs, d);
}

/* ---- random layouts ------------------------------------------------- */

/* A random distributed layout of "shape" over "P" devices as text. */
static void random_layout(const int64_t *shape, int nd, int64_t P, char *buf,
                          size_t cap)
{
    int64_t ext[32], dstride[32], rep[4], rstride[4], cap_left = P, m = 1;
    int dev[32], n = 0, nrep = 0, d, i, order[40], no = 0;
    bool one = tl_range(0, 6) == 0;
    size_t k = 0;
    for (d = 0; d < nd; d++) { /* split each dim into digits */
        int64_t e = shape[d];
        while (e > 1) {
            int64_t f = e % 2 == 0 ? 2 : e;
            while (e % (f * 2) == 0 && tl_range(0, 1))
                f *= 2;
            ext[n] = f;
            dev[n] = 0;
            e /= f;
            n++;
        }
        if (shape[d] == 1 || n == 0 || tl_range(0, 4) == 0) {
            ext[n] = 1; /* an extent-1 digit now and then */
            dev[n++] = 0;
        }
    }
    for (i = 0; i < n && !one; i++)
        if (cap_left % ext[i] == 0 && ext[i] > 1 && tl_range(0, 1)) {
            dev[i] = 1;
            cap_left /= ext[i];
        }
    while (!one && cap_left > 1) { /* the rest of the mesh: replicas */
        int64_t f = cap_left >= 4 && tl_range(0, 1) ? 2 : cap_left;
        rep[nrep++] = f;
        cap_left /= f;
    }
    for (i = 0; i < n; i++) /* device strides in a random order */
        if (dev[i])
            order[no++] = i;
    for (i = 0; i < nrep; i++)
        order[no++] = 100 + i;
    for (i = no - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (i = 0, m = 1; i < no; i++) {
        if (order[i] >= 100) {
            rstride[order[i] - 100] = m;
            m *= rep[order[i] - 100];
        } else {
            dstride[order[i]] = m;
            m *= ext[order[i]];
        }
    }
    for (i = 0, no = 0; i < n; i++) /* memory strides: a random order */
        if (!dev[i])
            order[no++] = i;
    for (i = no - 1; i > 0; i--) {
        int j = (int)tl_range(0, i), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (i = 0, m = 1; i < no; i++) {
        dstride[order[i]] = m;
        m *= ext[order[i]] * (tl_range(0, 3) == 0 ? 2 : 1); /* padding */
    }
    k += (size_t)snprintf(buf + k, cap - k, "S[(");
    for (i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                              (long long)ext[i]);
    k += (size_t)snprintf(buf + k, cap - k, "):(");
    for (i = 0; i < n; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld%s", i ? "," : "",
                              (long long)dstride[i], dev[i] ? "@gpuid" : "");
    k += (size_t)snprintf(buf + k, cap - k, ")]");
    if (nrep > 0) {
        k += (size_t)snprintf(buf + k, cap - k, " + R[(");
        for (i = 0; i < nrep; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                                  (long long)rep[i]);
        k += (size_t)snprintf(buf + k, cap - k, "):(");
        for (i = 0; i < nrep; i++)
            k += (size_t)snprintf(buf + k, cap - k, "%s%lld@gpuid",
                                  i ? "," : "", (long long)rstride[i]);
        k += (size_t)snprintf(buf + k, cap - k, ")]");
    }
    if (one || P == 1) /* placed on one device (explicitly when P is 1) */
        k += (size_t)snprintf(buf + k, cap - k, " + %lld@gpuid",
                              (long long)tl_range(0, P - 1));
    if (tl_range(0, 3) == 0)
        (void)snprintf(buf + k, cap - k, " + %lld", (long long)tl_range(1, 5));
}

static void shape_text(const int64_t *s, int n, char *buf, size_t cap)
{
    size_t k = 0;
    int d;
    for (d = 0; d < n; d++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", d ? "," : "",
                              (long long)s[d]);
}

/* `device copy(B, A)` between two random layouts of one random shape. */
static void law_copy(void)
{
    static const axe_dtype types[] = {AXE_DTYPE_I32, AXE_DTYPE_F32,
                                      AXE_DTYPE_F16, AXE_DTYPE_I8,
                                      AXE_DTYPE_F64};
    static const int64_t sizes[] = {1, 2, 3, 4, 6, 8};
    int it;
    for (it = 0; it < 300; it++) {
        int64_t P = (int64_t)1 << tl_range(0, 3), shape[3];
        int nd = (int)tl_range(1, 3), d;
        char la[256], lb[256], sh[64], src[1024];
        const char *texts[2] = {la, lb};
        axe_dtype t = types[tl_range(0, 4)];
        mesh_case c;
        axe_diag dg;
        for (d = 0; d < nd; d++)
            shape[d] = sizes[tl_range(0, 5)];
        random_layout(shape, nd, P, la, sizeof la);
        random_layout(shape, nd, P, lb, sizeof lb);
        shape_text(shape, nd, sh, sizeof sh);
        snprintf(src, sizeof src,
                 "mesh(%lld);\nkernel k(A: %s[%s] layout %s,\n"
                 "         B: %s[%s] layout %s) grid(1) threads(1) {\n"
                 "    device copy(B, A);\n}\n",
                 (long long)P, axe_dtype_name(t), sh, la, axe_dtype_name(t), sh,
                 lb);
        if (!case_init(&c, src, NULL, texts))
            continue;
        case_check(&c, 0, "copy inputs");
        TL_CHECK(run(&c, &dg) == AXE_OK, "reference: %s\n%s", dg.message, src);
        logical_copy(&c, 1, 0);
        case_check(&c, 0, src);
        case_free(&c);
    }
}

/* `device reduce(B, A, op, k)`: A random [.., K at k, ..], B without k. */
static void law_reduce(void)
{
    static const char *const ops[] = {"sum", "max", "min"};
    static const int64_t sizes[] = {1, 2, 3, 4, 8};
    int it;
    for (it = 0; it < 300; it++) {
        int64_t P = (int64_t)1 << tl_range(0, 3), sa[3], sb[2];
        int nd = (int)tl_range(2, 3), k = (int)tl_range(0, nd - 1), op, d, j;
        bool f32 = tl_range(0, 1);
        char la[256], lb[256], sha[64], shb[64], src[1024];
        const char *texts[2] = {la, lb};
        mesh_case c;
        axe_diag dg;
        op = (int)tl_range(0, 2);
        for (d = 0, j = 0; d < nd; d++) {
            sa[d] = sizes[tl_range(0, 4)];
            if (d != k)
                sb[j++] = sa[d];
        }
        random_layout(sa, nd, P, la, sizeof la);
        random_layout(sb, nd - 1, P, lb, sizeof lb);
        shape_text(sa, nd, sha, sizeof sha);
        shape_text(sb, nd - 1, shb, sizeof shb);
        snprintf(src, sizeof src,
                 "mesh(%lld);\nkernel k(A: %s[%s] layout %s,\n"
                 "         B: %s[%s] layout %s) grid(1) threads(1) {\n"
                 "    device reduce(B, A, %s, %d);\n}\n",
                 (long long)P, f32 ? "f32" : "i32", sha, la,
                 f32 ? "f32" : "i32", shb, lb, ops[op], k);
        wide_values = f32;
        if (!case_init(&c, src, NULL, texts)) {
            wide_values = false;
            continue;
        }
        wide_values = false;
        TL_CHECK(run(&c, &dg) == AXE_OK, "reference: %s\n%s", dg.message, src);
        logical_reduce(&c, 1, 0, op, k, f32);
        case_check(&c, 0, src);
        case_free(&c);
    }
}

/* ---- device gemm ------------------------------------------------------ */

/* A random 2^a split of P over the roles K, M (A's rows), N (B's rows)
 * and replicas, each on a random gpuid stride; A and B are placed as
 * device gemm can use them (K alike, block or cyclic; A replicated over
 * N's devices, B over M's), C anywhere (random_layout). */
typedef struct gemm_place {
    int64_t f[4], s[4]; /* extents and gpuid strides: K, M, N, replica */
    int64_t kk, mm, nn; /* local extents */
    bool cyclic, acol, bcol;
} gemm_place;

static void gemm_place_random(int64_t P, gemm_place *g)
{
    int order[4] = {0, 1, 2, 3}, i;
    int64_t left = P, m = 1;
    for (i = 0; i < 4; i++)
        g->f[i] = 1;
    while (left > 1) {
        g->f[tl_range(0, 3)] *= 2;
        left /= 2;
    }
    for (i = 3; i > 0; i--) {
        int j = (int)tl_range(0, i), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    for (i = 0; i < 4; i++) {
        g->s[order[i]] = m;
        m *= g->f[order[i]];
    }
    g->kk = tl_range(1, 4);
    g->mm = tl_range(1, 3);
    g->nn = tl_range(1, 3);
    g->cyclic = tl_range(0, 1);
    g->acol = tl_range(0, 1);
    g->bcol = tl_range(0, 1);
}

/* The layout of A (rows: role 1, replica roles 2 and 3) or of B (rows:
 * role 2, replicas 1 and 3): rows (P_rows, rr), K (P_k, kk) block or
 * (kk, P_k) cyclic, memory row- or column-major. */
static void gemm_operand(const gemm_place *g, bool is_a, char *buf, size_t cap)
{
    int rows = is_a ? 1 : 2, other = is_a ? 2 : 1;
    int64_t rr = is_a ? g->mm : g->nn;
    bool col = is_a ? g->acol : g->bcol;
    int64_t rs = col ? 1 : g->kk, ks = col ? rr : 1;
    size_t k = (size_t)snprintf(buf, cap, "S[(%lld,%lld,",
                                (long long)g->f[rows], (long long)rr);
    if (g->cyclic)
        k += (size_t)snprintf(
            buf + k, cap - k, "%lld,%lld):(%lld@gpuid,%lld,%lld,%lld@gpuid)]",
            (long long)g->kk, (long long)g->f[0], (long long)g->s[rows],
            (long long)rs, (long long)ks, (long long)g->s[0]);
    else
        k += (size_t)snprintf(
            buf + k, cap - k, "%lld,%lld):(%lld@gpuid,%lld,%lld@gpuid,%lld)]",
            (long long)g->f[0], (long long)g->kk, (long long)g->s[rows],
            (long long)rs, (long long)g->s[0], (long long)ks);
    (void)snprintf(buf + k, cap - k,
                   " + R[(%lld,%lld):(%lld@gpuid,%lld@gpuid)]",
                   (long long)g->f[other], (long long)g->f[3],
                   (long long)g->s[other], (long long)g->s[3]);
}

/* The logical effect of `device gemm(C, A, B)` with integer inputs
 * (exact in i32, f32 and f64 at these sizes: any order agrees). */
static void logical_gemm(mesh_case *c, int ci, int ai, int bi)
{
    int64_t M = c->t[ci].shape[0], N = c->t[ci].shape[1];
    int64_t K = c->t[ai].shape[1], i, j, k;
    for (i = 0; i < M; i++)
        for (j = 0; j < N; j++) {
            double acc = 0;
            for (k = 0; k < K; k++)
                acc += c->logical[ai][i * K + k] * c->logical[bi][j * K + k];
            c->logical[ci][i * N + j] = acc;
        }
}

static void law_gemm(void)
{
    static const char *const types[] = {"i32", "f32", "f64"};
    int it;
    for (it = 0; it < 300; it++) {
        int64_t P = (int64_t)1 << tl_range(0, 3), sc[2];
        char la[256], lb[256], lc[256], src[1024];
        const char *texts[3], *ty = types[tl_range(0, 2)];
        gemm_place g;
        mesh_case c;
        axe_diag dg;
        gemm_place_random(P, &g);
        gemm_operand(&g, true, la, sizeof la);
        gemm_operand(&g, false, lb, sizeof lb);
        sc[0] = g.f[1] * g.mm;
        sc[1] = g.f[2] * g.nn;
        random_layout(sc, 2, P, lc, sizeof lc);
        texts[0] = lc;
        texts[1] = la;
        texts[2] = lb;
        snprintf(src, sizeof src,
                 "mesh(%lld);\nkernel k(C: %s[%lld,%lld] layout %s,\n"
                 "  A: %s[%lld,%lld] layout %s,\n"
                 "  B: %s[%lld,%lld] layout %s) grid(1) threads(1) {\n"
                 "    device gemm(C, A, B);\n}\n",
                 (long long)P, ty, (long long)sc[0], (long long)sc[1], lc, ty,
                 (long long)sc[0], (long long)(g.f[0] * g.kk), la, ty,
                 (long long)sc[1], (long long)(g.f[0] * g.kk), lb);
        if (!case_init(&c, src, NULL, texts))
            continue;
        TL_CHECK(run(&c, &dg) == AXE_OK, "reference: %s\n%s", dg.message, src);
        logical_gemm(&c, 0, 1, 2);
        case_check(&c, 0, src);
        case_free(&c);
    }
}

/* The documented order: each slice of K summed in increasing k, the
 * slices in order. B = 1, f32, A = [1, 2^24, 1, -2^24] on 2 devices: in
 * k order the sum is 0; by block slices (k 0-1, k 2-3) it is 2^24 + (1 -
 * 2^24) = 1; by cyclic slices (k 0,2 and k 1,3) 2 + 0 = 2. A = [2^24, 1,
 * 1, -2^24] on 4 devices, a slice per k: 0 in order, 2 in reverse. */
static void gemm_order(int P, const float *a, const char *k_layout, double want)
{
    char src[512];
    float b[4] = {1, 1, 1, 1};
    const float *lg[3] = {NULL, a, b};
    float loc[3][4][4] = {{{0}}};
    void *bufs[12];
    axe_program *p = NULL;
    axe_diag d;
    int i, dev;
    snprintf(src, sizeof src,
             "mesh(%d);\nkernel k(C: f32[1,1] layout S[(1,1):(1,1)] + "
             "R[%d:1@gpuid],\n  A: f32[1,4] layout %s,\n  B: f32[1,4] "
             "layout %s) grid(1) threads(1) {\n    device gemm(C, A, B);\n}\n",
             P, P, k_layout, k_layout);
    if (axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(0, "compile: %s\n%s", d.message, src);
        return;
    }
    for (dev = 0; dev < P; dev++)
        for (i = 0; i < 3; i++) {
            bufs[dev * 3 + i] = loc[i][dev];
            if (i > 0)
                TL_CHECK(axe_program_mesh_local(p, i, dev, lg[i], loc[i][dev],
                                                &d) == AXE_OK,
                         "mesh_local: %s", d.message);
        }
    TL_CHECK(axe_program_reference_mesh(p, bufs, &d) == AXE_OK, "reference: %s",
             d.message);
    for (dev = 0; dev < P; dev++)
        TL_CHECK(loc[0][dev][0] == want, "%s: C = %g on device %d, want %g",
                 k_layout, loc[0][dev][0], dev, want);
    axe_program_free(p);
}

/* ---- the table kernels ------------------------------------------------ */

static char *read_kernel(const char *name)
{
    const char *dir = getenv("AXE_SOURCE_DIR");
    char path[512];
    FILE *f;
    char *text;
    long n;
    snprintf(path, sizeof path, "%s/tests/kernels/dist/%s",
             dir != NULL ? dir : ".", name);
    f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        if (f != NULL)
            fclose(f);
        return NULL;
    }
    text = malloc((size_t)n + 1);
    if (text != NULL && fread(text, 1, (size_t)n, f) == (size_t)n)
        text[n] = '\0';
    fclose(f);
    return text;
}

/* The logical effect of each table kernel. */
static void effect_paper(mesh_case *c)
{
    logical_copy(c, 1, 0);
    logical_copy(c, 2, 1);
}

static void effect_fig8(mesh_case *c) { logical_reduce(c, 1, 0, 0, 0, true); }

static void effect_allgather(mesh_case *c) { logical_copy(c, 1, 0); }

static void scale(mesh_case *c, int i, bool square)
{
    int64_t x;
    for (x = 0; x < c->t[i].elems; x++)
        c->logical[i][x] *= square ? c->logical[i][x] : 2;
}

static void effect_local(mesh_case *c)
{
    scale(c, 0, false); /* cta add(X, X, X) on every shard */
    logical_copy(c, 1, 0);
    scale(c, 1, true); /* cta mul(Y, Y, Y) on every replica */
    logical_reduce(c, 3, 2, 0, 0, false);
    scale(c, 2, false);
}

static void effect_one(mesh_case *c)
{
    logical_copy(c, 1, 0);
    logical_copy(c, 2, 1);
    logical_copy(c, 3, 2);
    logical_reduce(c, 4, 3, 1, 1, false);
}

/* Y's row i * P + g (cyclic) gets X's row g * (M / P) + i (blocks). */
static void effect_views(mesh_case *c)
{
    int64_t P = c->ndev, M = c->t[0].shape[0], N = c->t[0].shape[1], g, i, j;
    logical_copy(c, 1, 0);
    for (g = 0; g < P; g++)
        for (i = 0; i < M / P; i++)
            for (j = 0; j < N; j++)
                c->logical[2][(i * P + g) * N + j] =
                    c->logical[0][(g * (M / P) + i) * N + j];
}

static void table(void)
{
    static const struct {
        const char *file, *define;
        int64_t value, ndev;
        void (*effect)(mesh_case *);
    } rows[] = {
        {"paper_2x2.axe", NULL, 0, 4, effect_paper},
        {"fig8_reduce_scatter.axe", NULL, 0, 4, effect_fig8},
        {"allgather.axe", NULL, 0, 4, effect_allgather},
        {"allgather.axe", "P", 2, 2, effect_allgather},
        {"allgather.axe", "P", 8, 8, effect_allgather},
        {"local_shard.axe", NULL, 0, 2, effect_local},
        {"local_shard.axe", "P", 4, 4, effect_local},
        {"one_device.axe", NULL, 0, 8, effect_one},
        {"local_views.axe", NULL, 0, 4, effect_views},
        {"local_views.axe", "P", 2, 2, effect_views},
    };
    size_t r;
    for (r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        char *text = read_kernel(rows[r].file);
        axe_kernel_options o;
        mesh_case c;
        axe_diag d;
        axe_kernel_options_init(&o);
        if (rows[r].define != NULL &&
            axe_kernel_options_define(&o, rows[r].define, rows[r].value))
            text = NULL;
        TL_CHECK(text != NULL, "no tests/kernels/dist/%s (AXE_SOURCE_DIR)",
                 rows[r].file);
        if (text == NULL || !case_init(&c, text, &o, NULL)) {
            free(text);
            continue;
        }
        TL_CHECK(c.ndev == rows[r].ndev, "%s: %lld devices", rows[r].file,
                 (long long)c.ndev);
        TL_CHECK(run(&c, &d) == AXE_OK, "%s: %s", rows[r].file, d.message);
        rows[r].effect(&c);
        case_check(&c, 1e-6, rows[r].file);
        case_free(&c);
        free(text);
    }
}

/* ---- the library's refusals and facts ------------------------------ */

static const char *const two =
    "mesh(2);\n"
    "kernel k(A: f32[4,6] layout S[(2,2,6):(1@gpuid,8,1)],\n"
    "         B: f32[4,6] layout S[(4,6):(6,1)] + R[2:1@gpuid]) grid(1) "
    "threads(1) {\n"
    "    device copy(A, B);\n"
    "}\n";

/* The entry check's label of "two": A's shards differ, B's replicas are
 * one shard; devices and tensors outside are refused. */
static void checksum_facts(const axe_program *p)
{
    int64_t n0 = 0, n1 = 0;
    uint64_t s0 = 0, s1 = 0;
    axe_diag d;
    TL_CHECK(axe_program_mesh_checksum(p, 0, 0, &n0, &s0, &d) == AXE_OK &&
                 axe_program_mesh_checksum(p, 0, 1, &n1, &s1, &d) == AXE_OK &&
                 n0 == 12 && n1 == 12 && s0 != s1,
             "A's shards: %lld %lld", (long long)n0, (long long)n1);
    TL_CHECK(axe_program_mesh_checksum(p, 1, 0, &n0, &s0, &d) == AXE_OK &&
                 axe_program_mesh_checksum(p, 1, 1, &n1, &s1, &d) == AXE_OK &&
                 n0 == 24 && n1 == 24 && s0 == s1,
             "B's replicas: %lld %lld", (long long)n0, (long long)n1);
    TL_CHECK(
        axe_program_mesh_checksum(p, 0, 2, &n0, &s0, &d) == AXE_ERR_DOMAIN &&
            axe_program_mesh_checksum(p, 2, 0, &n0, &s0, &d) == AXE_ERR_INVALID,
        "checksum: device 2 or tensor 2 of 2");
}

static void facts(void)
{
    axe_program *p = NULL;
    axe_kernel_tensor a, b;
    axe_diag d;
    float lg[24] = {0}, loc[16];
    void *bufs[4] = {NULL, NULL, NULL, NULL};
    mesh_case c;
    if (axe_program_compile(two, strlen(two), NULL, NULL, &p, &d) != AXE_OK) {
        TL_CHECK(0, "compile: %s", d.message);
        return;
    }
    a = axe_program_tensor(p, 0);
    b = axe_program_tensor(p, 1);
    /* A: logical [4,6]; locally [2,6] rows of stride 8: 8 + 6 elements */
    TL_CHECK(a.distributed && a.elems == 24 && a.local_elems == 14 &&
                 a.ndim == 2 && a.shape[0] == 4 && a.shape[1] == 6 &&
                 a.written && b.distributed && b.local_elems == 24 &&
                 !b.written,
             "tensor facts: %d %lld %lld", a.distributed, (long long)a.elems,
             (long long)a.local_elems);
    TL_CHECK(axe_program_mesh_devices(p) == 2, "devices");
    TL_CHECK(axe_program_reference(p, bufs, &d) == AXE_ERR_INVALID &&
                 strstr(d.message, "axe_program_reference_mesh") != NULL,
             "reference refuses a mesh program: %s", d.message);
    TL_CHECK(axe_program_mesh_local(p, 0, 2, lg, loc, &d) == AXE_ERR_DOMAIN,
             "device 2 of 2");
    TL_CHECK(axe_program_mesh_local(p, 2, 0, lg, loc, &d) == AXE_ERR_INVALID,
             "tensor 2 of 2");
    checksum_facts(p);
    axe_program_free(p);
    p = NULL;
    if (axe_program_compile("kernel k(A: f32[4]) grid(1) threads(1) {}", 41,
                            NULL, NULL, &p, &d) == AXE_OK) {
        TL_CHECK(axe_program_mesh_devices(p) == 0 &&
                     !axe_program_tensor(p, 0).distributed,
                 "no mesh");
        TL_CHECK(axe_program_reference_mesh(p, bufs, &d) == AXE_ERR_INVALID,
                 "reference_mesh refuses a program without a mesh");
        axe_program_free(p);
    }
    /* Replicas that disagree have no value to copy. */
    if (case_init(&c, two, NULL, NULL)) {
        ((float *)c.bufs[1 * c.n + 1])[7] += 1; /* B[1,1] on device 1 */
        TL_CHECK(run(&c, &d) == AXE_ERR_DOMAIN &&
                     strstr(d.message, "replicas of 'B' disagree at [1,1]") &&
                     strstr(d.message, "device 0") &&
                     strstr(d.message, "device 1"),
                 "diverged replicas: %s", d.message);
        case_free(&c);
    }
}

/* ---- races in the segments (docs/compiler.md, "Races") ------------- */

/* relu writes A's element (i,k) from thread 8i + k; gemm reads it from
 * the threads of C's row i: a race without the sync, in each segment
 * (lines 7 and 8, 10 and 11). The device operator orders the segments:
 * gemm's reads of line 8 and relu's writes of line 10 do not race. */
#define RACY_MESH                                                              \
    "mesh(2);\n"                                                               \
    "kernel k(A: f32[4,8] layout S[(2,2,8):(1@gpuid,8,1)],\n"                  \
    "  B: f32[8,8] layout S[(8,8):(8,1)] + R[2:1@gpuid],\n"                    \
    "  C: f32[4,8] layout S[(2,2,8):(1@gpuid,8,1)],\n"                         \
    "  D: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) \n"           \
    "  threads(32) {\n"                                                        \
    "    cta relu(A, A); %s\n"                                                 \
    "    kernel gemm(C, A, B);\n"                                              \
    "    device copy(D, C);\n"                                                 \
    "    cta relu(A, A); %s\n"                                                 \
    "    kernel gemm(C, A, B);\n"                                              \
    "}\n"
/* The same local code on one device (each device's shards), a sync
 * for the device operator. */
#define RACY_ONE                                                               \
    "kernel k(A: f32[2,8], B: f32[8,8], C: f32[2,8]) grid(1) "                 \
    "threads(32) {\n"                                                          \
    "    cta relu(A, A); %s\n"                                                 \
    "    kernel gemm(C, A, B);\n"                                              \
    "    sync;\n"                                                              \
    "    cta relu(A, A); %s\n"                                                 \
    "    kernel gemm(C, A, B);\n"                                              \
    "}\n"

static bool one_races(const char *sync, axe_race_report *rep)
{
    char src[512];
    axe_program *p = NULL;
    float a[16] = {0}, b[64] = {0}, c[16] = {0};
    void *bufs[3] = {a, b, c};
    axe_diag d;
    bool ok;
    snprintf(src, sizeof src, RACY_ONE, sync, sync);
    ok = axe_program_compile(src, strlen(src), NULL, NULL, &p, &d) == AXE_OK &&
         axe_program_reference_races(p, bufs, rep, &d) == AXE_OK;
    TL_CHECK(ok, "one device: %s", d.message);
    axe_program_free(p);
    return ok;
}

static void races(void)
{
    static axe_race_report mesh, one;
    const char *sync[2] = {"", "sync;"};
    char src[800], msg[512];
    mesh_case c;
    axe_diag d;
    int k, j;
    for (k = 0; k < 2; k++) {
        snprintf(src, sizeof src, RACY_MESH, sync[k], sync[k]);
        if (!case_init(&c, src, NULL, NULL) || !one_races(sync[k], &one))
            return;
        TL_CHECK(axe_program_reference_mesh_races(c.p, c.bufs, &mesh, &d) ==
                     AXE_OK,
                 "mesh races: %s", d.message);
        /* every device runs the same code on its shards: P times the
         * races of one device, the first named on device 0 */
        TL_CHECK(mesh.count == 2 * one.count && mesh.n == one.n &&
                     (k == 1) == (one.count == 0),
                 "sync '%s': %lld races on the mesh, %lld on one device",
                 sync[k], (long long)mesh.count, (long long)one.count);
        for (j = 0; k == 0 && j < mesh.n && j < 2; j++) {
            (void)axe_race_text(&mesh.race[j], msg, sizeof msg);
            TL_CHECK(mesh.n == 2 && mesh.race[j].mesh &&
                         mesh.race[j].device == 0 && !one.race[j].mesh &&
                         mesh.race[j].count == 2 * one.race[j].count &&
                         strstr(msg, "race on A[") == msg &&
                         strstr(msg, " on device 0: ") != NULL &&
                         strstr(msg, j ? "(line 10)" : "(line 7)") != NULL &&
                         strstr(msg, j ? "(line 11)" : "(line 8)") != NULL,
                     "race message %d: %s", j, msg);
        }
        case_free(&c);
    }
}

static const float two_a[4] = {1, 16777216.0f, 1, -16777216.0f};
static const float four_a[4] = {16777216.0f, 1, 1, -16777216.0f};

int main(void)
{
    tl_seed("test_compiler_mesh", 14);
    law_copy();
    law_reduce();
    law_gemm();
    gemm_order(2, two_a, "S[(1,2,2):(0,1@gpuid,1)]", 1);
    gemm_order(2, two_a, "S[(1,2,2):(0,1,1@gpuid)]", 2);
    gemm_order(4, four_a, "S[(1,4):(0,1@gpuid)]", 0);
    table();
    facts();
    races();
    return tl_finish();
}
