/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA hardware layouts of TIRx (python/tvm/tirx/layout.py and the
 * tcgen05 helpers, spec §12): the TMEM datapath layouts of tcgen05 MMAs
 * (PTX datapaths A..G), the TMEM layout of an MMA operand (A in TMEM, the
 * accumulator D), the warpgroup-local register layout and the MMA-
 * compatible shared-memory layouts (a swizzle atom tiled over the shape).
 * Invariant: every result is a well-formed value built from TIRx's
 * formulas, or a status with TIRx's reason (`sub_slab must be 0`, `group
 * must be (s,2,n)`, `identity needs 2D`, ...).
 */
#include "layout_internal.h"

/* Padded names of the axes the constructors below use. */
static const axe__name name_tlane = {"TLane"}, name_tcol = {"TCol"},
                       name_tid_in_wg = {"tid_in_wg"};

/* The iter (e, s) on the padded name "axis". */
static axe_iter mk(int64_t e, int64_t s, const axe__name *axis)
{
    axe_iter it = {e, s, {0}};
    axe__axis_copy(it.axis, axis->s);
    return it;
}

/* A layout of the shard iters "it[0 .. n)" (n <= the shard capacity). */
static void from_iters(const axe_iter *it, int n, axe_layout *out)
{
    axe_layout_init(out);
    memcpy(out->shard, it, (size_t)n * sizeof it[0]);
    out->nshard = (uint8_t)n;
}

/* log2 "n" for a power of two n >= 1, else -1. */
static int log2_exact(int64_t n)
{
    int k = 0;
    if (n < 1 || (n & (n - 1)) != 0)
        return -1;
    while ((n >> k) != 1)
        k++;
    return k;
}

/* TMEM rows each datapath letter A..G expects (TIRx _TMEM_DATAPATH_ROWS). */
static int64_t datapath_rows(char dp)
{
    static const int64_t rows[] = {128, 64, 64, 128, 64, 64, 32};
    return dp >= 'A' && dp <= 'G' ? rows[dp - 'A'] : 0;
}

/* The datapath's argument checks (TIRx's ValueErrors). */
static axe_status check_datapath(char dp, int64_t rows, int64_t cols,
                                 int sub_slab, axe_diag *diag)
{
    int64_t want = datapath_rows(dp);
    int fold = dp == 'G' ? 4 : (dp == 'B' || dp == 'E') ? 2 : 1;
    if (want == 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: unknown datapath '%c'; "
                         "supported: A B C D E F G",
                         dp != '\0' ? dp : '?');
    if (rows != want)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: datapath='%c' expects "
                         "rows=%lld, got %lld",
                         dp, (long long)want, (long long)rows);
    if (sub_slab != 0 && sub_slab != 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: sub_slab must be 0 or 1, "
                         "got %d",
                         sub_slab);
    if (sub_slab != 0 && dp != 'C' && dp != 'F')
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: datapath='%c' already spans "
                         "both sub-slabs; sub_slab must be 0",
                         dp);
    if (cols < 1 || cols % fold != 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: datapath='%c' expects cols "
                         ">= 1 divisible by %d, got %lld",
                         dp, fold, (long long)cols);
    return AXE_OK;
}

axe_status axe_layout_tmem_datapath(char datapath, int64_t rows, int64_t cols,
                                    int sub_slab, axe_layout *out,
                                    axe_diag *diag)
{
    axe_iter it[3];
    int n = 3;
    if (out == NULL)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_datapath_layout: missing output");
    AXE_TRY(check_datapath(datapath, rows, cols, sub_slab, diag));
    it[0] = mk(rows, 1, &name_tlane);
    if (datapath == 'A' || datapath == 'D') {
        it[1] = mk(cols, 1, &name_tcol);
        n = 2;
    } else if (datapath == 'G') {
        it[1] = mk(4, 32, &name_tlane);
        it[2] = mk(cols / 4, 1, &name_tcol);
    } else if (datapath == 'B' || datapath == 'E') {
        it[1] = mk(2, 64, &name_tlane);
        it[2] = mk(cols / 2, 1, &name_tcol);
    } else {
        it[0] = mk(4, 32, &name_tlane);
        it[1] = mk(16, 1, &name_tlane);
        it[2] = mk(cols, 1, &name_tcol);
    }
    from_iters(it, n, out);
    if (sub_slab != 0)
        out->offset[out->noffset++] = (axe_offset){{"TLane"}, 16};
    return AXE_OK;
}

/* The tcgen05 datapath letter of (M, cta_group, ws) (TIRx
 * _mma_datapath_letter, sparse A not supported). */
static axe_status mma_datapath(int64_t M, int cta_group, bool ws, char *dp,
                               axe_diag *diag)
{
    if (ws && !(cta_group == 1 && M == 64))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "ws=True only valid for cta_group=1, M=64 (Layout "
                         "E); got M=%lld, cta_group=%d",
                         (long long)M, cta_group);
    *dp = '\0';
    if (cta_group == 1 && (M == 128 || M == 64))
        *dp = M == 128 ? 'D' : ws ? 'E' : 'F';
    else if (cta_group == 2 && (M == 256 || M == 128))
        *dp = M == 256 ? 'A' : 'B';
    if (*dp == '\0')
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "no supported datapath for M=%lld, cta_group=%d "
                         "(supported: cta1 M in {64,128}, cta2 M in "
                         "{128,256})",
                         (long long)M, cta_group);
    return AXE_OK;
}

/* The arguments of a tmem_mma_operand request. */
typedef struct mma_req {
    char operand;
    char dp;
    const int64_t *ext;
    int n;
    int64_t rows; /* per-CTA rows M / cta_group */
    axe_diag *diag;
} mma_req;

static axe_status check_rows(const mma_req *q, int64_t rows)
{
    if (rows != q->rows)
        return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                         "alloc_mma_%c: expects per-CTA rows %lld, got %lld",
                         q->operand, (long long)q->rows, (long long)rows);
    return AXE_OK;
}

/* S[(a,b,c):(sa@TLane, sb@TLane, 1@TCol)] after checking rows "m". */
static axe_status lanes3(const mma_req *q, int64_t m, const int64_t *e,
                         int64_t sa, int64_t sb, axe_layout *out)
{
    axe_iter it[3];
    AXE_TRY(check_rows(q, m));
    it[0] = mk(e[0], sa, &name_tlane);
    it[1] = mk(e[1], sb, &name_tlane);
    it[2] = mk(e[2], 1, &name_tcol);
    from_iters(it, 3, out);
    return AXE_OK;
}

/* S[(m,s,2,n):(1@TLane, n@TCol, 64@TLane, 1@TCol)] (column segments). */
static axe_status segmented(const mma_req *q, int64_t m, int64_t s, int64_t n,
                            axe_layout *out)
{
    axe_iter it[4];
    AXE_TRY(check_rows(q, m));
    it[0] = mk(m, 1, &name_tlane);
    it[1] = mk(s, n, &name_tcol);
    it[2] = mk(2, 64, &name_tlane);
    it[3] = mk(n, 1, &name_tcol);
    from_iters(it, 4, out);
    return AXE_OK;
}

/* D with group = (s, 2, n) over a 2-D (m, N) buffer. */
static axe_status mma_d_grouped(const mma_req *q, const int64_t *g, int ng,
                                axe_layout *out)
{
    int64_t prod;
    if (q->n != 2)
        return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                         "alloc_tcgen05_mma_D group= requires 2D (m,N), got "
                         "%d dims",
                         q->n);
    if (ng != 3 || g[1] != 2 || g[0] < 1 || g[2] < 1)
        return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                         "alloc_tcgen05_mma_D group must be (s,2,n), got %d "
                         "entries",
                         ng);
    if (axe__mul(g[0], 2 * g[2], &prod) != AXE_OK || prod != q->ext[1])
        return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                         "alloc_tcgen05_mma_D group product != N=%lld",
                         (long long)q->ext[1]);
    if (q->dp != 'B' && q->dp != 'E')
        return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                         "alloc_tcgen05_mma_D group= only for Layout B/E, "
                         "got %c",
                         q->dp);
    return segmented(q, q->ext[0], g[0], g[2], out);
}

/* The accumulator D: (m,N) | (2,m,N/2) | (m,2,N/2) | (m,s,2,n). */
static axe_status mma_d(const mma_req *q, axe_layout *out)
{
    const int64_t *e = q->ext;
    bool be = q->dp == 'B' || q->dp == 'E';
    if (q->n == 2) {
        AXE_TRY(check_rows(q, e[0]));
        return axe_layout_tmem_datapath(q->dp, e[0], e[1], 0, out, q->diag);
    }
    if (be && q->n == 3 && e[0] == 2) {
        int64_t x[3] = {2, e[1], e[2]};
        return lanes3(q, e[1], x, 64, 1, out);
    }
    if (be && q->n == 3 && e[1] == 2) {
        int64_t x[3] = {e[0], 2, e[2]};
        return lanes3(q, e[0], x, 1, 64, out);
    }
    if (be && q->n == 4 && e[2] == 2)
        return segmented(q, e[0], e[1], e[3], out);
    return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                     "alloc_tcgen05_mma_D: unsupported D shape (%d dims) "
                     "for datapath %c",
                     q->n, q->dp);
}

/* A in TMEM: identity for A/D/F (2-D), replica or bank-batched for B,
 * bank-batched only for E. */
static axe_status mma_a(const mma_req *q, axe_layout *out)
{
    const int64_t *e = q->ext;
    bool batched = q->n == 3 && e[0] == 2;
    if (q->n == 2 && q->dp != 'E') {
        axe_iter it[2];
        AXE_TRY(check_rows(q, e[0]));
        it[0] = mk(e[0], 1, &name_tlane);
        it[1] = mk(e[1], 1, &name_tcol);
        from_iters(it, 2, out);
        if (q->dp == 'B')
            out->replica[out->nreplica++] = mk(2, 64, &name_tlane);
        return AXE_OK;
    }
    if (batched && (q->dp == 'B' || q->dp == 'E')) {
        int64_t x[3] = {2, e[1], e[2]};
        return lanes3(q, e[1], x, 64, 1, out);
    }
    return axe__fail(q->diag, AXE_ERR_INVALID, -1,
                     "alloc_tcgen05_mma_A: datapath %c %s, got %d dims", q->dp,
                     q->dp == 'B'   ? "needs (64,K) replica or (2,64,K) "
                                      "bank-batched"
                     : q->dp == 'E' ? "(M=64 .ws) requires bank-batched "
                                      "(2,64,K)"
                                    : "identity needs 2D (m,K)",
                     q->n);
}

axe_status axe_layout_tmem_mma_operand(char operand, const int64_t *shape,
                                       int n, const char *dtype, int64_t M,
                                       int cta_group, bool ws,
                                       const int64_t *group, int ngroup,
                                       axe_layout *out, axe_diag *diag)
{
    mma_req q = {operand, 0, shape, n, 0, diag};
    axe_layout r;
    int bits;
    if (out == NULL || n < 0 || (n > 0 && shape == NULL) ||
        (group != NULL && ngroup < 0))
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_mma_operand_layout: missing shape or output");
    for (int d = 0; d < n; d++)
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "tmem_mma_operand_layout: extent %lld of dim %d "
                             "must be >= 1",
                             (long long)shape[d], d);
    if (dtype != NULL)
        AXE_TRY(axe_dtype_bits(dtype, &bits, diag));
    AXE_TRY(mma_datapath(M, cta_group, ws, &q.dp, diag));
    q.rows = M / cta_group;
    if (operand == 'D' && group != NULL)
        AXE_TRY(mma_d_grouped(&q, group, ngroup, &r));
    else if (operand == 'D')
        AXE_TRY(mma_d(&q, &r));
    else if (operand == 'A')
        AXE_TRY(mma_a(&q, &r));
    else
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "tmem_mma_operand_layout: operand must be 'A' or "
                         "'D'");
    return axe_layout_canonicalize(&r, AXE_TARGET_NONE, out, diag);
}

axe_status axe_layout_wg_local(int64_t cols, int64_t rows, axe_layout *out,
                               axe_diag *diag)
{
    axe_iter it[2];
    if (out == NULL || cols < 1 || rows < 1)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "wg_local_layout: needs cols >= 1, rows >= 1 and "
                         "an output");
    it[0] = mk(rows, 1, &name_tid_in_wg);
    it[1] = mk(cols, 1, &axe__name_m);
    from_iters(it, 2, out);
    return AXE_OK;
}

/* No swizzle: the packed 16-byte atom (lead..., m, k/e, e) with strides
 * (..., e, m e, 1), e = 128/bits, leading dims row-major over m k; the
 * row-major layout when e does not divide k. */
static axe_status mma_shared_plain(int bits, const int64_t *shape, int n,
                                   axe_layout *out, axe_diag *diag)
{
    int64_t e = 128 / bits, m = shape[n - 2], k = shape[n - 1], stride, me;
    axe_layout r;
    if (k % e != 0) {
        AXE_TRY(axe_layout_row_major(shape, n, &r));
        return axe_layout_canonicalize(&r, AXE_TARGET_NONE, out, diag);
    }
    axe_layout_init(&r);
    AXE_TRY(axe__mul(m, k, &stride));
    AXE_TRY(axe__mul(m, e, &me));
    r.nshard = (uint8_t)(n + 1);
    for (int d = n - 3; d >= 0; d--) {
        r.shard[d] = mk(shape[d], stride, &axe__name_m);
        AXE_TRY(axe__mul(stride, shape[d], &stride));
    }
    r.shard[n - 2] = mk(m, e, &axe__name_m);
    r.shard[n - 1] = mk(k / e, me, &axe__name_m);
    r.shard[n] = mk(e, 1, &axe__name_m);
    return axe_layout_canonicalize(&r, AXE_TARGET_NONE, out, diag);
}

/* Swizzle modes 1..3: the atom Swizzle<M,mode,3>(S[2^(M+mode+3):1]) of
 * shape (1..., 8, w), w = {256,512,1024}[mode] / bits, tiled to (1..., rows,
 * w) and then to "shape". */
static axe_status mma_shared_swizzled(int bits, int mode, const int64_t *shape,
                                      int n, axe_layout *out, axe_diag *diag)
{
    int64_t atom[AXE_LAYOUT_MAX_DIMS], mid[AXE_LAYOUT_MAX_DIMS], period;
    int lg = log2_exact(128 / bits);
    axe_layout a, t1, t2;
    if ((128 % bits) != 0 || lg < 0)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "mma_shared_layout: %d-bit elements do not fill a "
                         "16-byte atom",
                         bits);
    for (int d = 0; d < n; d++)
        atom[d] = mid[d] = 1;
    atom[n - 2] = 8;
    atom[n - 1] = (int64_t)(128 << mode) / bits;
    mid[n - 1] = atom[n - 1];
    mid[n - 2] = shape[n - 2];
    period = (int64_t)1 << (lg + mode + 3);
    AXE_TRY(axe_layout_row_major(&period, 1, &a));
    a.swizzle = (axe_layout_swizzle){true, true, lg, mode, 3};
    AXE_TRY(axe_layout_tile_to(&a, mid, atom, n, AXE_TARGET_NONE, &t1, diag));
    AXE_TRY(axe_layout_tile_to(&t1, shape, mid, n, AXE_TARGET_NONE, &t2, diag));
    return axe_layout_canonicalize(&t2, AXE_TARGET_NONE, out, diag);
}

axe_status axe_layout_mma_shared(const char *dtype, int swizzle_mode,
                                 const int64_t *shape, int n, axe_layout *out,
                                 axe_diag *diag)
{
    int bits;
    if (out == NULL || shape == NULL || n < 2 || n > AXE_LAYOUT_MAX_DIMS)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "mma_shared_layout: needs a shape of 2 to %d dims "
                         "and an output",
                         AXE_LAYOUT_MAX_DIMS);
    if (swizzle_mode < 0 || swizzle_mode > 3)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "mma_shared_layout: swizzle mode %d is not 0 (none), "
                         "1 (32B), 2 (64B) or 3 (128B)",
                         swizzle_mode);
    for (int d = 0; d < n; d++)
        if (shape[d] < 1)
            return axe__fail(diag, AXE_ERR_INVALID, -1,
                             "mma_shared_layout: extent %lld of dim %d must "
                             "be >= 1",
                             (long long)shape[d], d);
    AXE_TRY(axe_dtype_bits(dtype, &bits, diag));
    if (bits > 128)
        return axe__fail(diag, AXE_ERR_INVALID, -1,
                         "mma_shared_layout: %d-bit elements", bits);
    if (swizzle_mode == 0)
        return mma_shared_plain(bits, shape, n, out, diag);
    return mma_shared_swizzled(bits, swizzle_mode, shape, n, out, diag);
}
