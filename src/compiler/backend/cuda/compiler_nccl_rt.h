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
 * "devop K NAME" per operator ("devop K copy A NAME", "devop K copy B
 * NAME" for a device gemm's copy of A or B first) to FILE when its
 * schedule is built (the NCCL call it takes), for the tests.
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
    int64_t most; /* the most elements in one block (len * count) */
} axe_nccl_dlist;

/* The most elements (len * count) of one of the "n" blocks "b". */
static inline int64_t axe_nccl_most(const axe_mpi_block *b, int64_t n)
{
    int64_t i, most = 0;
    for (i = 0; i < n; i++)
        if (b[i].len * b[i].count > most)
            most = b[i].len * b[i].count;
    return most;
}

typedef struct axe_nccl_sched {
    axe_mpi_sched m; /* the host schedule (built without host buffers) */
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

/* Element d of dst = element s of src, "es" bytes (buffers aligned to
 * their element size: device allocations and element offsets). */
static __device__ inline void axe_nccl_copy1(char *dst, int64_t d,
                                             const char *src, int64_t s, int es)
{
    if (es == 4)
        ((uint32_t *)dst)[d] = ((const uint32_t *)src)[s];
    else if (es == 8)
        ((uint64_t *)dst)[d] = ((const uint64_t *)src)[s];
    else if (es == 2)
        ((uint16_t *)dst)[d] = ((const uint16_t *)src)[s];
    else
        for (int k = 0; k < es; k++)
            dst[d * es + k] = src[s * es + k];
}

/* The blocks of the list over blockIdx.x, each block's elements over
 * blockIdx.y and the threads (one list block of a million elements is
 * spread over many CUDA blocks, not one). */
static __global__ void axe_nccl_move_k(const axe_mpi_block *blk, int64_t nblk,
                                       char *dst, int64_t doff, const char *src,
                                       int64_t stride, const int64_t *off,
                                       int64_t noff, int es, int dtype, int op)
{
    for (int64_t b = blockIdx.x; b < nblk; b += gridDim.x) {
        const axe_mpi_block B = blk[b];
        int64_t n = B.len * B.count;
        for (int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x; i < n;
             i += (int64_t)gridDim.y * blockDim.x) {
            int64_t c = B.count == 1 ? 0 : i / B.len;
            int64_t e = B.count == 1 ? i : i % B.len;
            int64_t d = doff + B.to + c * B.tstep + e;
            int64_t s = (B.from + c * B.fstep + e) * stride;
            if (off == NULL || (noff == 1 && off[0] == 0)) {
                axe_nccl_copy1(dst, d, src, s, es);
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

/* A move's CUDA blocks: AXE_NCCL_THREADS threads each, one per
 * AXE_NCCL_SPREAD elements of the largest list block along y, at most
 * AXE_NCCL_GRID in all (the emulation: few, each a set of fibers). */
#ifdef AXE_CUDA_EMULATE
#define AXE_NCCL_THREADS 32 /* each a fiber of the emulation */
#define AXE_NCCL_SPREAD 512 /* tests' sizes spread too */
#define AXE_NCCL_GRID 4096
#else
#define AXE_NCCL_THREADS 256
#define AXE_NCCL_SPREAD (AXE_NCCL_THREADS * 8)
#define AXE_NCCL_GRID (1 << 20)
#endif

/* The move of device list "l" (see axe_nccl_move_k) on "stream"; the
 * launch's CUDA error code. */
static inline int axe_nccl_move(const axe_mpi_plan *p, const axe_nccl_dlist *l,
                                char *dst, int64_t doff, const char *src,
                                int64_t stride, const int64_t *off,
                                int64_t noff, int es, cudaStream_t stream)
{
    int64_t gx = l->nblk < 65535 ? l->nblk : 65535;
    int64_t gy = (l->most + AXE_NCCL_SPREAD - 1) / AXE_NCCL_SPREAD;
    if (l->nblk == 0)
        return 0;
    if (gy > AXE_NCCL_GRID / gx)
        gy = AXE_NCCL_GRID / gx;
    gy = gy < 1 ? 1 : gy > 65535 ? 65535 : gy;
#ifdef AXE_CUDA_EMULATE
    AXE_LAUNCH(axe_nccl_move_k, dim3((unsigned)gx, (unsigned)gy),
               dim3(AXE_NCCL_THREADS), stream)
    (l->blk, l->nblk, dst, doff, src, stride, off, noff, es, (int)p->dtype,
     (int)p->op);
#else
    axe_nccl_move_k<<<dim3((unsigned)gx, (unsigned)gy), AXE_NCCL_THREADS, 0,
                      stream>>>(l->blk, l->nblk, dst, doff, src, stride, off,
                                noff, es, (int)p->dtype, (int)p->op);
#endif
    return (int)cudaGetLastError();
}

/* ---- build and free ------------------------------------------------- */

static inline int axe_nccl_upload(axe_nccl_dlist *d, axe_mpi_list *l)
{
    size_t n;
    d->blk = NULL, d->nblk = 0, d->most = 0;
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
    d->most = axe_nccl_most(l->blk, l->nblk);
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

/* The trace file (AXE_NCCL_TRACE, read once per process) opened to
 * append on rank "me" when it is 0 and the variable names one; else
 * NULL. */
static inline FILE *axe_nccl_trace_open(int me)
{
    static const char *path;
    static int read;
    if (!read) {
        path = getenv("AXE_NCCL_TRACE");
        read = 1;
    }
    if (path == NULL || path[0] == '\0' || me != 0)
        return NULL;
    return fopen(path, "a");
}

/* Rank 0's trace line (AXE_NCCL_TRACE) of device operator "tag". */
static inline void axe_nccl_trace(const char *tag, const axe_nccl_sched *s)
{
    FILE *f = axe_nccl_trace_open(s->m.me);
    if (f != NULL) {
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
    s->fold.most = axe_nccl_most(blk, nb);
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

static inline int axe_nccl_failed(const axe_nccl_rc *rc, ncclComm_t comm,
                                  char *err, size_t len)
{
    const char *last;
    if (rc->nccl != ncclSuccess) {
        last = comm != NULL ? ncclGetLastError(comm) : "";
        if (err && len)
            snprintf(err, len, "NCCL: %s%s%s%s", ncclGetErrorString(rc->nccl),
                     last[0] ? " (" : "", last, last[0] ? ")" : "");
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
 * "K", or "K copy A", "K copy B" for a device gemm's copy of an operand
 * first) on this
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
        if (axe_mpi_sched_build_order(
                p, &s->m, mcomm,
                AXE_MPI_BUILD_NOHOST |
                    (AXE_NCCL_ORDERED && P > 1 ? AXE_MPI_BUILD_ORDERED : 0),
                err, len))
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
    return axe_nccl_failed(&rc, comm, err, len);
}

/* ---- device gemm in chunks: compute and exchange overlapped --------- */

/* Under the emulation the runtime notes what its kernels read and write
 * of the buffers two streams share (compiler_nccl_emu.h checks the order,
 * the emulated cudaEventRecord keeps the streams' clocks); on a GPU this
 * is nothing. */
#ifdef AXE_CUDA_EMULATE
#define AXE_NCCL_TOUCH(st, what, p, n, w)                                      \
    axe_nccl_emu::touch(st, what, p, (size_t)(n), w)
#else
#define AXE_NCCL_TOUCH(st, what, p, n, w) 1
#endif

/* Launches the local GEMM of rows [r0, r1) of the partial sums (every
 * column) into the partial buffer on "stream"; a CUDA error code. */
typedef int (*axe_nccl_rows_fn)(void *ctx, int64_t r0, int64_t r1,
                                cudaStream_t stream);

/* A device gemm whose partial sums reduce-scatter, in chunks (the MPI
 * runtime's axe_mpi_chunked on the device, with the same chunks: chunk c
 * is the send positions [lo, hi) of every rank's block): the
 * reduce-scatter's host schedule "m" (its pack runs give each send
 * position's partial address, its unpack the landing of this rank's
 * block), per chunk its rows of the partial sums as bands (nband[c]
 * pairs [r0, r1) from band + 2 P c) and its packing (pack[c]: partial
 * address -> send position), the senders' blocks in the order of k
 * (qoff, device), the send and receive buffers (device, P blocks of n),
 * the second stream and the events (chunks + 1: chunk c packed; the last:
 * every chunk received). */
typedef struct axe_nccl_chunked {
    axe_mpi_sched m;
    int chunks, traced;
    int64_t *band, *nband;
    axe_nccl_dlist *pack, unpack;
    int64_t *qoff;
    char *sbuf, *recv;
    cudaStream_t comm;
    cudaEvent_t *ev;
} axe_nccl_chunked;

static inline void axe_nccl_chunked_free(axe_nccl_chunked *c)
{
    int k;
    for (k = 0; c->pack != NULL && k < c->chunks; k++)
        cudaFree(c->pack[k].blk);
    for (k = 0; c->ev != NULL && k <= c->chunks; k++)
        if (c->ev[k] != NULL)
            cudaEventDestroy(c->ev[k]);
    if (c->comm != NULL)
        cudaStreamDestroy(c->comm);
    free(c->pack), free(c->ev), free(c->band), free(c->nband);
    cudaFree(c->unpack.blk), cudaFree(c->qoff);
    cudaFree(c->sbuf), cudaFree(c->recv);
    axe_mpi_sched_free(&c->m);
    memset(c, 0, sizeof *c);
}

/* Chunk "ch"'s send positions [*lo, *hi) within each rank's block (the
 * MPI runtime's axe_mpi_chunk_post's). */
static inline void axe_nccl_chunk_range(const axe_nccl_chunked *c, int ch,
                                        int64_t *lo, int64_t *hi)
{
    int64_t n = c->m.n, cnt = (n + c->chunks - 1) / c->chunks;
    *lo = ch * cnt < n ? ch * cnt : n;
    *hi = *lo + cnt < n ? *lo + cnt : n;
}

/* Chunk "ch"'s bands of rows (each rank's block's rows from its first to
 * its last partial address, merged where they overlap or touch) and its
 * packing as device blocks; "addr": send position -> partial address,
 * "cols": the partial sums' row length. */
static inline int axe_nccl_chunk_plan(axe_nccl_chunked *c, const int64_t *addr,
                                      int ch, int64_t cols)
{
    int64_t P = c->m.P, n = c->m.n, lo, hi, r, q, i, nb = 0, *band;
    axe_mpi_block *blk;
    int bad;
    axe_nccl_chunk_range(c, ch, &lo, &hi);
    band = c->band + 2 * P * ch;
    c->nband[ch] = 0;
    for (r = 0; r < P && hi > lo; r++) {
        int64_t b0 = addr[r * n + lo] / cols, b1 = b0 + 1;
        for (i = r * n + lo; i < r * n + hi; i++) {
            b0 = addr[i] / cols < b0 ? addr[i] / cols : b0;
            b1 = addr[i] / cols + 1 > b1 ? addr[i] / cols + 1 : b1;
        }
        for (q = c->nband[ch]; q > 0 && band[2 * q - 2] > b0; q--)
            band[2 * q] = band[2 * q - 2], band[2 * q + 1] = band[2 * q - 1];
        band[2 * q] = b0, band[2 * q + 1] = b1;
        c->nband[ch]++;
    }
    for (q = 1, r = c->nband[ch] > 0; q < c->nband[ch]; q++) /* merge */
        if (band[2 * q] <= band[2 * r - 1])
            band[2 * r - 1] = band[2 * q + 1] > band[2 * r - 1]
                                  ? band[2 * q + 1]
                                  : band[2 * r - 1];
        else
            band[2 * r] = band[2 * q], band[2 * r + 1] = band[2 * q + 1], r++;
    c->nband[ch] = r;
    blk = (axe_mpi_block *)calloc((size_t)(P * (hi - lo) + 1), sizeof *blk);
    if (blk == NULL)
        return 1;
    for (r = 0; r < P; r++)
        for (i = r * n + lo; i < r * n + hi; i++)
            if (nb > 0 && i > r * n + lo &&
                addr[i] == blk[nb - 1].from + blk[nb - 1].len)
                blk[nb - 1].len++;
            else
                blk[nb].from = addr[i], blk[nb].to = i, blk[nb].len = 1,
                blk[nb++].count = 1;
    bad = axe_nccl_alloc((void **)&c->pack[ch].blk, nb * (int64_t)sizeof *blk,
                         blk);
    c->pack[ch].nblk = bad ? 0 : nb;
    c->pack[ch].most = axe_nccl_most(blk, nb);
    free(blk);
    return bad;
}

/* Builds "c" collectively (every rank, the same plan): the plan's
 * reduction must be the reduce-scatter of one full partial per rank (on
 * one rank: its all-reduce, the same), as for the MPI runtime's. */
static inline int axe_nccl_chunked_build(const axe_mpi_plan *p,
                                         axe_nccl_chunked *c, int chunks,
                                         int64_t cols, MPI_Comm mcomm,
                                         char *err, size_t len)
{
    int64_t i, j, P, n, es, *addr, *qoff;
    int ch, bad = 0;
    if (axe_mpi_sched_build_order(p, &c->m, mcomm, AXE_MPI_BUILD_NOHOST, err,
                                  len))
        return 1;
    if ((c->m.path != AXE_MPI_PATH_REDUCE_SCATTER &&
         (c->m.path != AXE_MPI_PATH_ALLREDUCE || c->m.P != 1)) ||
        c->m.nkoff != 1)
        return axe_mpi_fail(err, len,
                            "chunked gemm: the partial sums' reduction "
                            "is not one reduce-scatter over the ranks");
    P = c->m.P, n = c->m.n, es = c->m.esize, c->chunks = chunks;
    addr = (int64_t *)malloc((size_t)(P * n + 1) * sizeof(int64_t));
    qoff = (int64_t *)malloc((size_t)P * sizeof(int64_t));
    c->band = (int64_t *)malloc((size_t)(2 * P * chunks) * sizeof(int64_t));
    c->nband = (int64_t *)calloc((size_t)chunks, sizeof(int64_t));
    c->pack = (axe_nccl_dlist *)calloc((size_t)chunks, sizeof *c->pack);
    c->ev = (cudaEvent_t *)calloc((size_t)chunks + 1, sizeof(cudaEvent_t));
    bad = !addr || !qoff || !c->band || !c->nband || !c->pack || !c->ev;
    for (i = 0; !bad && i < c->m.pack.n; i++)
        for (j = 0; j < c->m.pack.run[i].len; j++)
            addr[c->m.pack.run[i].to + j] =
                c->m.pack.run[i].from + j + c->m.koff[0];
    for (i = 0; !bad && i < P; i++)
        qoff[i] = axe_mpi_kdev(p, i) * n;
    for (ch = 0; !bad && ch < chunks; ch++)
        bad = axe_nccl_chunk_plan(c, addr, ch, cols);
    bad =
        bad || axe_nccl_upload(&c->unpack, &c->m.unpack) ||
        axe_nccl_alloc((void **)&c->qoff, P * (int64_t)sizeof(int64_t), qoff) ||
        axe_nccl_alloc((void **)&c->sbuf, P * n * es, NULL) ||
        axe_nccl_alloc((void **)&c->recv, P * n * es, NULL) ||
        cudaStreamCreateWithFlags(&c->comm, cudaStreamNonBlocking) !=
            cudaSuccess;
    for (ch = 0; !bad && ch <= chunks; ch++)
        bad = cudaEventCreate(&c->ev[ch]) != cudaSuccess;
    free(addr), free(qoff);
    return bad ? axe_mpi_fail(err, len,
                              "chunked gemm: out of device or host memory")
               : 0;
}

/* Rank 0's trace line (AXE_NCCL_TRACE, the first run) "devop TAG WHAT". */
static inline void axe_nccl_chunk_trace(const axe_nccl_chunked *c,
                                        const char *tag, const char *what,
                                        int ch)
{
    FILE *f = c->traced ? NULL : axe_nccl_trace_open(c->m.me);
    if (f != NULL) {
        if (ch >= 0)
            fprintf(f, "devop %s chunk %d %s\n", tag, ch, what);
        else
            fprintf(f, "devop %s %s\n", tag, what);
        fclose(f);
    }
}

/* Chunk "ch": its rows of the local GEMM ("fn", into "part") and its
 * packing into the send buffer on "st", an event, then on the second
 * stream (waiting on the event) the chunk's piece of every rank's block
 * to that rank and from it (grouped ncclSend/ncclRecv, as bytes). */
static inline void axe_nccl_chunk(const char *tag, const axe_mpi_plan *p,
                                  axe_nccl_chunked *c, int ch,
                                  axe_nccl_rows_fn fn, void *ctx,
                                  const char *part, ncclComm_t comm,
                                  cudaStream_t st, axe_nccl_rc *rc)
{
    int64_t P = c->m.P, n = c->m.n, es = c->m.esize, lo, hi, b, bytes;
    int r;
    axe_nccl_chunk_range(c, ch, &lo, &hi);
    bytes = (hi - lo) * es;
    for (b = 0; b < c->nband[ch] && rc->cuda == 0; b++)
        rc->cuda = fn(ctx, c->band[2 * (P * ch + b)],
                      c->band[2 * (P * ch + b) + 1], st);
    axe_nccl_chunk_trace(c, tag, "gemm main", ch);
    if (rc->cuda == 0)
        rc->cuda = axe_nccl_move(p, &c->pack[ch], c->sbuf, 0, part, 1, NULL, 1,
                                 (int)es, st);
    for (r = 0; r < P && rc->cuda == 0 && hi > lo; r++)
        if (!AXE_NCCL_TOUCH(st, "a chunk's packing",
                            c->sbuf + (r * n + lo) * es, bytes, true))
            rc->nccl = ncclInvalidUsage;
    axe_nccl_chunk_trace(c, tag, "pack main", ch);
    if (rc->cuda != 0 || rc->nccl != ncclSuccess)
        return;
    rc->cuda = (int)cudaEventRecord(c->ev[ch], st);
    axe_nccl_chunk_trace(c, tag, "event main", ch);
    if (rc->cuda == 0)
        rc->cuda = (int)cudaStreamWaitEvent(c->comm, c->ev[ch], 0);
    axe_nccl_chunk_trace(c, tag, "wait comm", ch);
    if (rc->cuda != 0 || hi == lo)
        return;
    if ((rc->nccl = ncclGroupStart()) != ncclSuccess)
        return;
    for (r = 0; r < P && rc->nccl == ncclSuccess; r++) {
        rc->nccl = ncclSend(c->sbuf + (r * n + lo) * es, (size_t)bytes,
                            ncclUint8, r, comm, c->comm);
        if (rc->nccl == ncclSuccess)
            rc->nccl = ncclRecv(c->recv + (r * n + lo) * es, (size_t)bytes,
                                ncclUint8, r, comm, c->comm);
    }
    if (rc->nccl == ncclSuccess)
        rc->nccl = ncclGroupEnd();
    else
        (void)ncclGroupEnd();
    axe_nccl_chunk_trace(c, tag, "sendrecv comm", ch);
}

/* Runs device gemm "tag" (plan "p": the reduce-scatter of the partial
 * sums, "cols" their row length) whose local GEMM is "fn" (rows of the
 * partial into "part"), in "chunks" chunks of every rank's block of C:
 * chunk i+1 is computed on "stream" while chunk i is in flight on the
 * second stream, then (the main stream waiting on the second) every
 * element is the sum of the ranks' partials in the order of k (the
 * reference's order: the result depends neither on "chunks" nor on
 * NCCL), unpacked into dst by one kernel. "c" (zeroed before the first
 * call) is built on the first call, collectively. 0, or 1 with the reason
 * in "err". */
static inline int axe_nccl_gemm_chunked(
    const char *tag, const axe_mpi_plan *p, axe_nccl_chunked *c, int chunks,
    int64_t cols, axe_nccl_rows_fn fn, void *ctx, const void *part, void *dst,
    ncclComm_t comm, MPI_Comm mcomm, cudaStream_t stream, char *err, size_t len)
{
    axe_nccl_rc rc = {0, ncclSuccess};
    int ch;
    if (!c->m.built) {
        if (axe_nccl_chunked_build(p, c, chunks, cols, mcomm, err, len))
            return 1;
        axe_nccl_chunk_trace(c, tag,
                             "ncclSend/ncclRecv (grouped, in chunks on a "
                             "second stream) + ordered sum",
                             -1);
    }
    for (ch = 0; ch < c->chunks && rc.cuda == 0 && rc.nccl == ncclSuccess; ch++)
        axe_nccl_chunk(tag, p, c, ch, fn, ctx, (const char *)part, comm, stream,
                       &rc);
    if (rc.cuda == 0 && rc.nccl == ncclSuccess) {
        rc.cuda = (int)cudaEventRecord(c->ev[c->chunks], c->comm);
        axe_nccl_chunk_trace(c, tag, "fold event comm", -1);
    }
    if (rc.cuda == 0 && rc.nccl == ncclSuccess) {
        rc.cuda = (int)cudaStreamWaitEvent(stream, c->ev[c->chunks], 0);
        axe_nccl_chunk_trace(c, tag, "fold wait main", -1);
    }
    if (rc.cuda == 0 && rc.nccl == ncclSuccess &&
        !AXE_NCCL_TOUCH(stream, "the chunks' fold", c->recv,
                        c->m.P * c->m.n * c->m.esize, false))
        rc.nccl = ncclInvalidUsage;
    if (rc.cuda == 0 && rc.nccl == ncclSuccess) {
        rc.cuda = axe_nccl_move(p, &c->unpack, (char *)dst, 0, c->recv, 1,
                                c->qoff, c->m.P, c->m.esize, stream);
        axe_nccl_chunk_trace(c, tag, "fold main", -1);
    }
    c->traced = 1;
    return axe_nccl_failed(&rc, comm, err, len);
}

#endif
