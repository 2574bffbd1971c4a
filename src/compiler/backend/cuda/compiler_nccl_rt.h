/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL runtime of a mesh program under --target cuda (issue 14 §3):
 * every rank's .cu includes this header (embedded with
 * cmake/embed_text.cmake, written next to the .cu by axe run, beside
 * compiler_mpi_rt.h) and calls axe_nccl_exchange once per device operator
 * with the operator's exchange plan as static data (the axe_mpi_plan of
 * compiler_mpi_rt.h: the planner's digit table). The schedule is the MPI
 * runtime's, built on the host on the first call by the same code
 * (axe_mpi_sched_build: per-peer runs in canonical order, the collective
 * agreed by every rank with one MPI_Allreduce), so both backends move the
 * same elements the same way; only the moves differ. Here the buffers are
 * device memory, the schedule's runs go to the device as blocks, and
 *   - packing and unpacking (strided pieces, local copies, a reduce's
 *     fold over k) are kernels (axe_nccl_move_k) on the stream;
 *   - the collective is NCCL's on the stream: ncclAllGather, ncclBroadcast,
 *     ncclAllReduce, ncclReduceScatter (recvcount: each rank's piece)
 *     where the schedule takes MPI_Allgather, MPI_Bcast, MPI_Allreduce,
 *     MPI_Reduce_scatter_block; for the general exchange (MPI_Alltoallv
 *     there) one ncclSend and one ncclRecv per peer with data, inside
 *     ncclGroupStart/ncclGroupEnd. Copies travel as ncclUint8 (count *
 *     element size), reductions as ncclFloat32/ncclFloat64/ncclInt32;
 *   - a float sum that fits a reduce collective takes the MPI runtime's
 *     ordered form (AXE_MPI_PATH_*_ORDERED, exact: the reference's slice
 *     order) unless AXE_NCCL_UNORDERED is defined or the mesh is one
 *     device: piece r of the packed partial to rank r and rank r's piece
 *     from every rank (grouped ncclSend/ncclRecv, as bytes), a kernel
 *     that folds the P copies in slice order (axe_nccl_move_k over
 *     kcomb), and for an all-reduce the folded pieces to every rank
 *     (grouped ncclSend/ncclRecv again: an all-gather of uneven pieces).
 * With AXE_NCCL_TRACE=FILE in the environment, rank 0 appends a line
 * "devop K NAME" per operator ("devop K copy NAME" for a device gemm's
 * copy of an operand first) to FILE when its schedule is built (the NCCL
 * call it takes), for the tests.
 * Under AXE_CUDA_EMULATE the NCCL calls are compiler_nccl_emu.h's (MPI on
 * host memory). Invariant: an error is a nonzero return and a message in
 * "err"; the runtime never prints nor aborts, and axe_nccl_sched_free
 * frees what it allocated.
 */
#ifndef AXE_COMPILER_NCCL_RT_H
#define AXE_COMPILER_NCCL_RT_H

/* The schedule is the MPI runtime's: the .cu includes compiler_mpi_rt.h
 * (of the MPI backend, written beside it) first. */
#ifndef AXE_COMPILER_MPI_RT_H
#error "include compiler_mpi_rt.h before compiler_nccl_rt.h"
#endif
#ifdef AXE_CUDA_EMULATE
#include "compiler_nccl_emu.h"
#else
#include <cuda_runtime.h>
#include <nccl.h>
#endif

/* A list of the schedule as blocks in device memory. */
typedef struct axe_nccl_dlist {
    axe_mpi_block *blk;
    int64_t nblk;
} axe_nccl_dlist;

typedef struct axe_nccl_sched {
    axe_mpi_sched m; /* the host schedule (its buffers unused) */
    axe_nccl_dlist local, pack, unpack, *send, *recv;
    axe_nccl_dlist fold;   /* an ordered sum: the piece, in blocks */
    int64_t *koff, *kcomb; /* device copies */
    char *sbuf, *rbuf, *tmp;
} axe_nccl_sched;

/* The NCCL call of schedule path "path" (compiler_mpi_rt.h's). */
static inline const char *axe_nccl_path_name(int path)
{
    static const char *const name[] = {"local copies (no NCCL call)",
                                       "ncclAllGather",
                                       "ncclBroadcast",
                                       "ncclAllReduce",
                                       "ncclReduceScatter",
                                       "ncclSend/ncclRecv (grouped, direct)",
                                       "ncclSend/ncclRecv (grouped, packed)",
                                       "ncclSend/ncclRecv (grouped) + "
                                       "ordered sum",
                                       "ncclSend/ncclRecv (grouped) + "
                                       "ordered sum + ncclSend/ncclRecv "
                                       "(grouped gather)"};
    return path >= 0 && path <= AXE_MPI_PATH_ALLREDUCE_ORDERED ? name[path]
                                                               : "?";
}

/* out[c*tstep + e] = (+)_j in[(c*fstep + e)*stride + off[j]] per element of
 * each block (a copy when "off" is NULL), element size "es"; a fold
 * combines f32, f64 or i32 (integer sums wrap). One CUDA block per list
 * block at a time, its threads over the block's elements. */
template <class T, class U>
static __device__ inline T axe_nccl_fold1(const T *in, int64_t at,
                                          const int64_t *off, int64_t noff,
                                          int op)
{
    T a = in[at + off[0]];
    for (int64_t j = 1; j < noff; j++) {
        T b = in[at + off[j]];
        if (op == AXE_MPI_SUM)
            a = (T)((U)a + (U)b);
        else if (op == AXE_MPI_MAX ? b > a : b < a)
            a = b;
    }
    return a;
}

static __global__ void axe_nccl_move_k(const axe_mpi_block *blk, int64_t nblk,
                                       char *dst, int64_t doff, const char *src,
                                       int64_t stride, const int64_t *off,
                                       int64_t noff, int es, int dtype, int op)
{
    for (int64_t b = blockIdx.x; b < nblk; b += gridDim.x) {
        const axe_mpi_block B = blk[b];
        int64_t n = B.len * B.count;
        for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
            int64_t c = i / B.len, e = i % B.len;
            int64_t d = doff + B.to + c * B.tstep + e;
            int64_t s = (B.from + c * B.fstep + e) * stride;
            if (off == NULL || (noff == 1 && off[0] == 0)) {
                for (int k = 0; k < es; k++)
                    dst[d * es + k] = src[s * es + k];
            } else if (dtype == AXE_MPI_F32) {
                ((float *)dst)[d] = axe_nccl_fold1<float, float>(
                    (const float *)src, s, off, noff, op);
            } else if (dtype == AXE_MPI_F64) {
                ((double *)dst)[d] = axe_nccl_fold1<double, double>(
                    (const double *)src, s, off, noff, op);
            } else {
                ((int32_t *)dst)[d] = axe_nccl_fold1<int32_t, uint32_t>(
                    (const int32_t *)src, s, off, noff, op);
            }
        }
    }
}

#ifdef AXE_CUDA_EMULATE
#define AXE_NCCL_THREADS 32 /* each a fiber of the emulation */
#else
#define AXE_NCCL_THREADS 256
#endif

/* The move of device list "l" (see axe_nccl_move_k) on "stream"; the
 * launch's CUDA error code. */
static inline int axe_nccl_move(const axe_mpi_plan *p, const axe_nccl_dlist *l,
                                char *dst, int64_t doff, const char *src,
                                int64_t stride, const int64_t *off,
                                int64_t noff, int es, cudaStream_t stream)
{
    int64_t grid = l->nblk < 65535 ? l->nblk : 65535;
    if (l->nblk == 0)
        return 0;
#ifdef AXE_CUDA_EMULATE
    AXE_LAUNCH(axe_nccl_move_k, dim3((unsigned)grid), dim3(AXE_NCCL_THREADS),
               stream)
    (l->blk, l->nblk, dst, doff, src, stride, off, noff, es, (int)p->dtype,
     (int)p->op);
#else
    axe_nccl_move_k<<<(unsigned)grid, AXE_NCCL_THREADS, 0, stream>>>(
        l->blk, l->nblk, dst, doff, src, stride, off, noff, es, (int)p->dtype,
        (int)p->op);
#endif
    return (int)cudaGetLastError();
}

/* ---- build and free ------------------------------------------------- */

static inline int axe_nccl_upload(axe_nccl_dlist *d, axe_mpi_list *l)
{
    size_t n;
    d->blk = NULL, d->nblk = 0;
    if (l->n == 0)
        return 0;
    if (l->blk == NULL && axe_mpi_list_blocks(l))
        return 1;
    n = (size_t)l->nblk * sizeof(axe_mpi_block);
    if (cudaMalloc((void **)&d->blk, n) != cudaSuccess) {
        d->blk = NULL;
        return 1;
    }
    d->nblk = l->nblk;
    return cudaMemcpy(d->blk, l->blk, n, cudaMemcpyHostToDevice) != cudaSuccess;
}

static inline int axe_nccl_alloc(void **p, int64_t bytes, const void *from)
{
    if (cudaMalloc(p, (size_t)(bytes > 0 ? bytes : 1)) != cudaSuccess) {
        *p = NULL;
        return 1;
    }
    return from != NULL && bytes > 0 &&
           cudaMemcpy(*p, from, (size_t)bytes, cudaMemcpyHostToDevice) !=
               cudaSuccess;
}

static inline void axe_nccl_sched_free(axe_nccl_sched *s)
{
    int q;
    for (q = 0; s->send != NULL && q < s->m.P; q++)
        cudaFree(s->send[q].blk), cudaFree(s->recv[q].blk);
    free(s->send), free(s->recv);
    cudaFree(s->local.blk), cudaFree(s->pack.blk), cudaFree(s->unpack.blk);
    cudaFree(s->fold.blk);
    cudaFree(s->koff), cudaFree(s->kcomb);
    cudaFree(s->sbuf), cudaFree(s->rbuf), cudaFree(s->tmp);
    axe_mpi_sched_free(&s->m);
    memset(s, 0, sizeof *s);
}

/* Rank 0's trace line (AXE_NCCL_TRACE) of device operator "tag". */
static inline void axe_nccl_trace(const char *tag, const axe_nccl_sched *s)
{
    const char *path = getenv("AXE_NCCL_TRACE");
    FILE *f;
    if (path == NULL || path[0] == '\0' || s->m.me != 0)
        return;
    if ((f = fopen(path, "a")) != NULL) {
        fprintf(f, "devop %s %s\n", tag, axe_nccl_path_name(s->m.path));
        fclose(f);
    }
}

/* Whether schedule path "path" is a reduce collective (plain or ordered). */
static inline int axe_nccl_reduce_path(int path)
{
    return path == AXE_MPI_PATH_ALLREDUCE ||
           path == AXE_MPI_PATH_REDUCE_SCATTER ||
           path == AXE_MPI_PATH_REDUCE_SCATTER_ORDERED ||
           path == AXE_MPI_PATH_ALLREDUCE_ORDERED;
}

/* The elements of an ordered sum's fold per block of s->fold. */
#define AXE_NCCL_FOLD_BLOCK 2048

/* An ordered sum's device side (axe_mpi_build_ordered's host one): the
 * P copies of this rank's piece and the folded piece (tmp), where slice
 * k's copy lands (kcomb, P entries), the piece as blocks (fold). */
static inline int axe_nccl_ordered_device(axe_nccl_sched *s)
{
    const axe_mpi_sched *m = &s->m;
    int64_t piece = m->rcount[0], nb, b;
    axe_mpi_block *blk;
    int bad;
    nb = (piece + AXE_NCCL_FOLD_BLOCK - 1) / AXE_NCCL_FOLD_BLOCK;
    blk = (axe_mpi_block *)calloc((size_t)(nb + 1), sizeof *blk);
    if (blk == NULL)
        return 1;
    for (b = 0; b < nb; b++) {
        blk[b].from = blk[b].to = b * AXE_NCCL_FOLD_BLOCK;
        blk[b].len = piece - b * AXE_NCCL_FOLD_BLOCK < AXE_NCCL_FOLD_BLOCK
                         ? piece - b * AXE_NCCL_FOLD_BLOCK
                         : AXE_NCCL_FOLD_BLOCK;
        blk[b].count = 1;
    }
    bad = axe_nccl_alloc((void **)&s->kcomb, m->P * (int64_t)sizeof(int64_t),
                         m->kcomb) ||
          axe_nccl_alloc((void **)&s->tmp, ((m->P + 1) * piece + 1) * m->esize,
                         NULL) ||
          axe_nccl_alloc((void **)&s->fold.blk,
                         nb * (int64_t)sizeof(axe_mpi_block), blk);
    s->fold.nblk = bad ? 0 : nb;
    free(blk);
    return bad;
}

/* The device side of the host schedule: every list, the offsets and the
 * buffers the moves use. */
static inline int axe_nccl_sched_device(const axe_mpi_plan *p,
                                        axe_nccl_sched *s)
{
    const axe_mpi_sched *m = &s->m;
    int64_t es = m->esize, so = 0, ro = 0;
    int q, bad = 0;
    s->send = (axe_nccl_dlist *)calloc((size_t)m->P, sizeof(axe_nccl_dlist));
    s->recv = (axe_nccl_dlist *)calloc((size_t)m->P, sizeof(axe_nccl_dlist));
    if (s->send == NULL || s->recv == NULL)
        return 1;
    for (q = 0; m->send != NULL && q < m->P && !bad; q++) {
        bad = axe_nccl_upload(&s->send[q], &m->send[q]) ||
              axe_nccl_upload(&s->recv[q], &m->recv[q]);
        so += m->send[q].elems, ro += m->recv[q].elems;
    }
    if (axe_nccl_reduce_path(m->path))
        so = m->pack.elems, ro = m->n;
    bad = bad || axe_nccl_upload(&s->local, &s->m.local) ||
          axe_nccl_upload(&s->pack, &s->m.pack) ||
          axe_nccl_upload(&s->unpack, &s->m.unpack) ||
          axe_nccl_alloc((void **)&s->sbuf, so * es, NULL) ||
          axe_nccl_alloc((void **)&s->rbuf, ro * es, NULL);
    if (!bad && m->koff != NULL)
        bad = axe_nccl_alloc((void **)&s->koff,
                             m->nkoff * (int64_t)sizeof(int64_t), m->koff);
    if (!bad && m->path >= AXE_MPI_PATH_REDUCE_SCATTER_ORDERED)
        return axe_nccl_ordered_device(s);
    if (!bad && m->kcomb != NULL)
        bad = axe_nccl_alloc((void **)&s->kcomb,
                             m->K * (int64_t)sizeof(int64_t), m->kcomb) ||
              axe_nccl_alloc((void **)&s->tmp, (p->dst_size * m->K + 1) * es,
                             NULL);
    return bad;
}

/* ---- run ------------------------------------------------------------ */

static inline ncclDataType_t axe_nccl_type(int dtype)
{
    return dtype == AXE_MPI_F32   ? ncclFloat32
           : dtype == AXE_MPI_F64 ? ncclFloat64
                                  : ncclInt32;
}

static inline ncclRedOp_t axe_nccl_op(int op)
{
    return op == AXE_MPI_SUM ? ncclSum : op == AXE_MPI_MAX ? ncclMax : ncclMin;
}

/* Codes of one step: a CUDA error (cuda) or an NCCL result. */
typedef struct axe_nccl_rc {
    int cuda;
    ncclResult_t nccl;
} axe_nccl_rc;

/* One grouped exchange (ncclGroupStart/ncclGroupEnd, as bytes of "es"
 * each): to each peer q with data, scount[q] elements from src +
 * sdispl[q] (scount NULL: "sall" elements from src, to every peer); from
 * each q, rcount[q] elements into dst + rdispl[q]. */
static inline void axe_nccl_group(const char *src, const int *scount,
                                  const int *sdispl, int64_t sall, char *dst,
                                  const int *rcount, const int *rdispl, int P,
                                  int64_t es, ncclComm_t comm, cudaStream_t st,
                                  axe_nccl_rc *rc)
{
    int q;
    if ((rc->nccl = ncclGroupStart()) != ncclSuccess)
        return;
    for (q = 0; q < P && rc->nccl == ncclSuccess; q++) {
        int64_t n = scount != NULL ? scount[q] : sall;
        if (n > 0)
            rc->nccl = ncclSend(src + (scount != NULL ? sdispl[q] : 0) * es,
                                (size_t)(n * es), ncclUint8, q, comm, st);
        if (rcount[q] > 0 && rc->nccl == ncclSuccess)
            rc->nccl = ncclRecv(dst + rdispl[q] * es, (size_t)(rcount[q] * es),
                                ncclUint8, q, comm, st);
    }
    if (rc->nccl == ncclSuccess)
        rc->nccl = ncclGroupEnd();
    else
        (void)ncclGroupEnd();
}

/* An ordered sum (axe_mpi_run_ordered's steps on the device): "in" the
 * packed partial, "out" the result in pack order (this rank's piece of a
 * reduce-scatter, every element of an all-reduce). */
static inline void axe_nccl_ordered(const axe_mpi_plan *p, axe_nccl_sched *s,
                                    const char *in, char *out, ncclComm_t comm,
                                    cudaStream_t st, axe_nccl_rc *rc)
{
    const axe_mpi_sched *m = &s->m;
    int64_t es = m->esize, piece = m->rcount[0];
    int ar = m->path == AXE_MPI_PATH_ALLREDUCE_ORDERED;
    char *mine = ar ? s->tmp + m->P * piece * es : out;
    axe_nccl_group(in, m->scount, m->sdispl, 0, s->tmp, m->rcount, m->rdispl,
                   m->P, es, comm, st, rc);
    if (rc->nccl != ncclSuccess)
        return;
    rc->cuda =
        axe_nccl_move(p, &s->fold, mine, 0, s->tmp, 1, s->kcomb, m->P, es, st);
    if (ar && rc->cuda == 0)
        axe_nccl_group(mine, NULL, NULL, piece, out, m->scount, m->sdispl, m->P,
                       es, comm, st, rc);
}

static inline void axe_nccl_reduce(const axe_mpi_plan *p, axe_nccl_sched *s,
                                   const char *src, char *dst, ncclComm_t comm,
                                   cudaStream_t st, axe_nccl_rc *rc)
{
    const axe_mpi_sched *m = &s->m;
    int es = m->esize;
    const char *in = s->sbuf;
    char *out = s->rbuf;
    if (m->pack.n == 1 && m->pack.run[0].to == 0 && m->nkoff == 1)
        in = src + (m->pack.run[0].from + m->koff[0]) * es;
    else
        rc->cuda = axe_nccl_move(p, &s->pack, s->sbuf, 0, src, 1, s->koff,
                                 m->nkoff, es, st);
    if (m->unpack.n == 1 && m->unpack.run[0].from == 0)
        out = dst + m->unpack.run[0].to * es;
    if (rc->cuda != 0)
        return;
    if (m->path >= AXE_MPI_PATH_REDUCE_SCATTER_ORDERED)
        axe_nccl_ordered(p, s, in, out, comm, st, rc);
    else if (m->path == AXE_MPI_PATH_ALLREDUCE)
        rc->nccl = ncclAllReduce(in, out, (size_t)m->n, axe_nccl_type(p->dtype),
                                 axe_nccl_op(p->op), comm, st);
    else
        rc->nccl =
            ncclReduceScatter(in, out, (size_t)m->n, axe_nccl_type(p->dtype),
                              axe_nccl_op(p->op), comm, st);
    if (rc->nccl == ncclSuccess && rc->cuda == 0 && out == s->rbuf)
        rc->cuda =
            axe_nccl_move(p, &s->unpack, dst, 0, s->rbuf, 1, NULL, 1, es, st);
}

/* The moves of host list "l" / device list "d" from src: folded over koff
 * when the schedule folds. */
static inline int axe_nccl_fmove(const axe_mpi_plan *p, axe_nccl_sched *s,
                                 const axe_nccl_dlist *d, char *dst,
                                 int64_t doff, const char *src, cudaStream_t st)
{
    return axe_nccl_move(p, d, dst, doff, src, 1, s->m.fold ? s->koff : NULL,
                         s->m.fold ? s->m.nkoff : 1, s->m.esize, st);
}

static inline void axe_nccl_p2p(const axe_mpi_plan *p, axe_nccl_sched *s,
                                const char *src, char *dst, ncclComm_t comm,
                                cudaStream_t st, axe_nccl_rc *rc)
{
    const axe_mpi_sched *m = &s->m;
    int64_t es = m->esize;
    int q;
    for (q = 0; !m->sdirect && q < m->P && rc->cuda == 0; q++)
        rc->cuda =
            axe_nccl_fmove(p, s, &s->send[q], s->sbuf, m->sdispl[q], src, st);
    if (rc->cuda != 0)
        return;
    axe_nccl_group(m->sdirect ? src : s->sbuf, m->scount, m->sdispl, 0,
                   m->rdirect ? dst : s->rbuf, m->rcount, m->rdispl, m->P, es,
                   comm, st, rc);
    for (q = 0;
         !m->rdirect && q < m->P && rc->nccl == ncclSuccess && rc->cuda == 0;
         q++)
        rc->cuda =
            axe_nccl_move(p, &s->recv[q], dst, 0, s->rbuf + m->rdispl[q] * es,
                          1, NULL, 1, (int)es, st);
}

static inline void axe_nccl_copy(const axe_mpi_plan *p, axe_nccl_sched *s,
                                 const char *src, char *dst, ncclComm_t comm,
                                 cudaStream_t st, axe_nccl_rc *rc)
{
    const axe_mpi_sched *m = &s->m;
    int64_t es = m->esize, S, D;
    if (m->path == AXE_MPI_PATH_ALLGATHER) {
        S = m->local.run[0].from;
        D = m->local.run[0].to - (int64_t)m->me * m->n;
        rc->nccl = ncclAllGather(src + S * es, dst + D * es,
                                 (size_t)(m->n * es), ncclUint8, comm, st);
        return;
    }
    rc->cuda = axe_nccl_fmove(p, s, &s->local, dst, 0, src, st);
    if (rc->cuda != 0)
        return;
    if (m->path == AXE_MPI_PATH_BCAST) {
        /* the root's piece is its one local run: sent from src, and its
         * own copy (already made) is the root's receive buffer */
        const char *from = m->me == m->root
                               ? src + m->local.run[0].from * es
                               : dst + m->recv[m->root].run[0].to * es;
        char *to = m->me == m->root ? dst + m->local.run[0].to * es
                                    : dst + m->recv[m->root].run[0].to * es;
        rc->nccl = ncclBroadcast(from, to, (size_t)(m->n * es), ncclUint8,
                                 m->root, comm, st);
        return;
    }
    if (m->path == AXE_MPI_PATH_ALLTOALLV ||
        m->path == AXE_MPI_PATH_ALLTOALLV_DIRECT)
        axe_nccl_p2p(p, s, src, dst, comm, st, rc);
}

static inline int axe_nccl_failed(const axe_nccl_rc *rc, char *err, size_t len)
{
    if (rc->nccl != ncclSuccess) {
        if (err && len)
            snprintf(err, len, "NCCL: %s", ncclGetErrorString(rc->nccl));
        return 1;
    }
    if (rc->cuda != 0) {
        if (err && len)
            snprintf(err, len, "CUDA (a packing kernel): %s",
                     cudaGetErrorString((cudaError_t)rc->cuda));
        return 1;
    }
    return 0;
}

/* axe_nccl_exchange's order of float sums: the reference's (exact)
 * unless the including file defines AXE_NCCL_UNORDERED (then
 * ncclAllReduce / ncclReduceScatter sum in NCCL's order). */
#ifdef AXE_NCCL_UNORDERED
#define AXE_NCCL_ORDERED 0
#else
#define AXE_NCCL_ORDERED 1
#endif

/* Runs device operator "tag" (plan "p"; the tag names it in the trace:
 * "K", or "K copy" for a device gemm's copy of an operand first) on this
 * rank's device buffers: src
 * (p->src_size elements) to dst (p->dst_size), on "stream" of NCCL
 * communicator "comm", whose ranks are those of MPI communicator "mcomm"
 * (the schedule's agreement). The schedule "s" (zeroed before the first
 * call) is built on the first call, collectively. 0, or 1 with the reason
 * in "err". */
static inline int axe_nccl_exchange(const char *tag, const axe_mpi_plan *p,
                                    axe_nccl_sched *s, const void *src,
                                    void *dst, ncclComm_t comm, MPI_Comm mcomm,
                                    cudaStream_t stream, char *err, size_t len)
{
    axe_nccl_rc rc = {0, ncclSuccess};
    const char *in = (const char *)src;
    char *out = (char *)dst;
    int P = 1;
    if (!s->m.built) {
        MPI_Comm_size(mcomm, &P);
        if (axe_mpi_sched_build_order(p, &s->m, mcomm,
                                      AXE_NCCL_ORDERED && P > 1, err, len))
            return 1;
        if (axe_nccl_sched_device(p, s))
            return axe_mpi_fail(err, len,
                                "exchange: out of device or host memory");
        axe_nccl_trace(tag, s);
    }
    if (axe_nccl_reduce_path(s->m.path))
        axe_nccl_reduce(p, s, in, out, comm, stream, &rc);
    else if (p->op == AXE_MPI_COPY)
        axe_nccl_copy(p, s, in, out, comm, stream, &rc);
    else {
        axe_nccl_copy(p, s, in, s->tmp, comm, stream, &rc);
        if (rc.nccl == ncclSuccess && rc.cuda == 0)
            rc.cuda = axe_nccl_move(p, &s->unpack, out, 0, s->tmp, s->m.K,
                                    s->kcomb, s->m.K, s->m.esize, stream);
    }
    return axe_nccl_failed(&rc, err, len);
}

#endif
