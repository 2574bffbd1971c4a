/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL emulation (issue 14 §3): under AXE_CUDA_EMULATE the NCCL
 * runtime of a mesh program's .cu (compiler_nccl_rt.h) includes this
 * header instead of <nccl.h>. Device memory is host memory there
 * (compiler_cuda_emu.h), so each NCCL call is the MPI call of the same
 * meaning, run at once (the stream is ignored: the emulated device is
 * synchronous). The types and values are nccl.h's (2.28); the semantics
 * follow NCCL's documentation:
 *   - a communicator of nranks ranks from ncclCommInitRank(comm, nranks,
 *     id, rank) on every rank with the same ncclUniqueId (rank 0's from
 *     ncclGetUniqueId, sent by the caller): MPI_COMM_WORLD split with the
 *     NCCL ranks as keys; a different id or a size other than the MPI
 *     job's is an error;
 *   - ncclAllGather(send, recv, sendcount): rank r's sendcount elements
 *     land at recv + r*sendcount on every rank; in place when send ==
 *     recv + rank*sendcount; other overlapping buffers are refused;
 *   - ncclReduceScatter(send, recv, recvcount): send has nranks*recvcount
 *     elements, rank r gets the reduction of block r; in place when recv
 *     == send + rank*recvcount;
 *   - ncclAllReduce, ncclReduce (to root), ncclBroadcast (root's send to
 *     every recv; in place when send == recv);
 *   - ncclSend/ncclRecv to a peer, matched in call order per peer; inside
 *     ncclGroupStart/ncclGroupEnd (groups nest) every call is deferred to
 *     the outermost ncclGroupEnd, which posts the sends and receives
 *     together (no ordering deadlock, as in NCCL) and runs the group's
 *     collectives in call order; outside a group each call is its own;
 *   - reductions: sum, prod, max, min of int8/uint8/int32/uint32/int64/
 *     uint64/float32/float64 (MPI has no half types: those, ncclAvg and
 *     custom ops are ncclInvalidArgument here, a limit of the emulation);
 *     copies move any type as bytes.
 * Streams: the emulated device runs every call at once, so the order
 * of work on two streams cannot go wrong here the way it can on a GPU;
 * instead the emulation checks it. cudaStreamCreateWithFlags makes
 * streams (the CUDA API compiler_cuda_emu.h leaves out), each with a
 * vector clock; every access noted on a stream (axe_nccl_emu::touch: the
 * buffer of each ncclSend, ncclRecv and collective, and what the NCCL
 * runtime notes of its kernels) ticks it; the emulated cudaEventRecord
 * keeps the recording stream's clock in the event (through
 * axe_nccl_emu::record, its hook; an event destroyed and made anew
 * starts with none), cudaStreamWaitEvent joins it into the waiting
 * stream. Two
 * accesses to overlapping bytes, one a write, on different streams with
 * no event wait ordering the first before the second are a hazard (what
 * a missing cudaStreamWaitEvent is on a GPU): the call fails
 * (ncclInvalidUsage, touch returns 0) and ncclGetLastError says which
 * accesses. With one stream only nothing is recorded.
 * Invariant: every error is a return code (ncclInvalidArgument,
 * ncclInvalidUsage, ncclSystemError for an MPI failure), never a print or
 * an abort; counts over 2^31-1 elements (MPI's int) are refused.
 */
#ifndef AXE_COMPILER_NCCL_EMU_H
#define AXE_COMPILER_NCCL_EMU_H

#include <limits.h>
#ifndef OMPI_SKIP_MPICXX /* MPI's C API only */
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <unordered_map>
#include <vector>

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;
typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;
typedef enum {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4
} ncclRedOp_t;
typedef enum {
    ncclInt8 = 0,
    ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclHalf = 6,
    ncclFloat32 = 7,
    ncclFloat = 7,
    ncclFloat64 = 8,
    ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11
} ncclDataType_t;

struct ncclComm {
    MPI_Comm comm;
    int rank, nranks;
};
typedef struct ncclComm *ncclComm_t;

/* A stream of the emulation: its index in the vector clocks (the
 * legacy stream, nullptr, is 0). */
struct CUstream_st {
    int id;
};
#define cudaStreamNonBlocking 0x01

namespace axe_nccl_emu
{
enum { SEND, RECV, ALLGATHER, REDUCE_SCATTER, ALLREDUCE, BCAST, REDUCE };

/* An access noted on a stream: bytes [lo, hi), at the stream's clock. */
struct access {
    int stream;
    uint64_t clock;
    uintptr_t lo, hi;
    bool write;
    const char *what;
};

/* The streams' vector clocks (vc[s][t]: the last tick of stream t that
 * stream s is ordered after), the accesses not yet
 * kept (until a write ordered after one covers its bytes, or its stream
 * notes the same bytes again), the first hazard's description. */
struct streams {
    int n = 1;
    std::vector<std::vector<uint64_t>> vc{std::vector<uint64_t>(1, 0)};
    std::vector<access> rec;
    std::string hazard;
};

inline streams &ss()
{
    static streams s;
    return s;
}

inline int sid(cudaStream_t s) { return s == nullptr ? 0 : s->id; }

/* Whether access "a" is ordered before everything stream s does next. */
inline bool ordered(const streams &z, const access &a, int s)
{
    return a.stream == s || a.clock <= z.vc[(size_t)s][(size_t)a.stream];
}

/* Notes an access of stream "s" to bytes [p, p + n) ("what" names it in a
 * hazard): 1, or 0 with the hazard kept for ncclGetLastError. */
inline int touch(cudaStream_t st, const char *what, const void *p, size_t n,
                 bool write)
{
    streams &z = ss();
    int s = sid(st);
    access a = {s, 0, (uintptr_t)p, (uintptr_t)p + n, write, what};
    if (z.n == 1 || n == 0)
        return 1;
    a.clock = ++z.vc[(size_t)s][(size_t)s];
    for (const access &b : z.rec)
        if ((a.write || b.write) && b.lo < a.hi && a.lo < b.hi &&
            !ordered(z, b, s)) {
            if (z.hazard.empty())
                z.hazard = std::string("stream order: ") + what + " (" +
                           (write ? "a write" : "a read") + " on stream " +
                           std::to_string(s) + ") is not ordered after " +
                           b.what + " (" + (b.write ? "a write" : "a read") +
                           " on stream " + std::to_string(b.stream) +
                           "): no event wait between them";
            return 0;
        }
    /* what this access supersedes: its own earlier record of the same
     * bytes, and anything ordered before it inside what it writes */
    for (size_t k = z.rec.size(); k-- > 0;) {
        const access &b = z.rec[k];
        if ((b.stream == s && b.lo == a.lo && b.hi == a.hi &&
             b.write == a.write) ||
            (a.write && a.lo <= b.lo && b.hi <= a.hi && ordered(z, b, s)))
            z.rec.erase(z.rec.begin() + (long)k);
    }
    z.rec.push_back(a);
    return 1;
}

/* cudaEventRecord's hook (compiler_cuda_emu.h): the event keeps stream
 * s's clock. */
inline void record(cudaStream_t s, std::vector<uint64_t> &vc)
{
    vc = ss().vc[(size_t)sid(s)];
}
inline const bool hooked = (axe_emu::on_record() = record, true);

/* One call, deferred inside a group. */
struct call {
    int kind;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    ncclRedOp_t op;
    int peer; /* send/recv: the peer; bcast/reduce: the root */
    ncclComm_t comm;
};

struct state {
    int depth = 0;
    std::vector<call> group;
};

inline state &st()
{
    static state s;
    return s;
}

static const char magic[] = "axe-nccl-emu";

inline size_t type_size(ncclDataType_t t)
{
    static const size_t size[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};
    return (int)t >= 0 && (int)t <= (int)ncclFloat8e5m2 ? size[t] : 0;
}

/* The MPI type of a reduction, or MPI_DATATYPE_NULL (not emulated). */
inline MPI_Datatype red_type(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
        return MPI_INT8_T;
    case ncclUint8:
        return MPI_UINT8_T;
    case ncclInt32:
        return MPI_INT32_T;
    case ncclUint32:
        return MPI_UINT32_T;
    case ncclInt64:
        return MPI_INT64_T;
    case ncclUint64:
        return MPI_UINT64_T;
    case ncclFloat32:
        return MPI_FLOAT;
    case ncclFloat64:
        return MPI_DOUBLE;
    default:
        return MPI_DATATYPE_NULL;
    }
}

inline MPI_Op red_op(ncclRedOp_t op)
{
    return op == ncclSum    ? MPI_SUM
           : op == ncclProd ? MPI_PROD
           : op == ncclMax  ? MPI_MAX
           : op == ncclMin  ? MPI_MIN
                            : MPI_OP_NULL;
}

inline bool overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na > 0 && nb > 0 && x < y + nb && y < x + na;
}

/* What every call checks: a communicator, a type, a count MPI takes
 * (count elements, times "mul" for the whole buffer), a reduction MPI
 * has. */
inline ncclResult_t check(const call &c, size_t mul, bool reduce)
{
    size_t es = type_size(c.type);
    if (c.comm == nullptr || es == 0)
        return ncclInvalidArgument;
    if (c.count > (size_t)INT_MAX / es / (mul ? mul : 1))
        return ncclInvalidArgument;
    if (reduce &&
        (red_type(c.type) == MPI_DATATYPE_NULL || red_op(c.op) == MPI_OP_NULL))
        return ncclInvalidArgument;
    if ((c.kind == SEND || c.kind == RECV || c.kind == BCAST ||
         c.kind == REDUCE) &&
        (c.peer < 0 || c.peer >= c.comm->nranks))
        return ncclInvalidArgument;
    if (c.count > 0 && c.kind != SEND && c.recv == nullptr &&
        !(c.kind == REDUCE && c.comm->rank != c.peer))
        return ncclInvalidArgument;
    return ncclSuccess;
}

inline ncclResult_t mpi(int rc)
{
    return rc == MPI_SUCCESS ? ncclSuccess : ncclSystemError;
}

inline ncclResult_t allgather(const call &c)
{
    size_t n = c.count * type_size(c.type);
    char *mine = (char *)c.recv + (size_t)c.comm->rank * n;
    if (c.send == mine)
        return mpi(MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, c.recv, (int)n,
                                 MPI_BYTE, c.comm->comm));
    if (overlap(c.send, n, c.recv, n * (size_t)c.comm->nranks))
        return ncclInvalidArgument;
    return mpi(MPI_Allgather(c.send, (int)n, MPI_BYTE, c.recv, (int)n, MPI_BYTE,
                             c.comm->comm));
}

inline ncclResult_t reduce_scatter(const call &c)
{
    size_t es = type_size(c.type), n = c.count * es;
    const char *in = (const char *)c.send;
    std::vector<char> copy;
    int rc;
    if ((const char *)c.recv == in + (size_t)c.comm->rank * n) {
        copy.assign(in, in + n * (size_t)c.comm->nranks); /* in place */
        in = copy.data();
    } else if (overlap(c.send, n * (size_t)c.comm->nranks, c.recv, n)) {
        return ncclInvalidArgument;
    }
    rc = MPI_Reduce_scatter_block(in, c.recv, (int)c.count, red_type(c.type),
                                  red_op(c.op), c.comm->comm);
    return mpi(rc);
}

inline ncclResult_t allreduce(const call &c)
{
    size_t n = c.count * type_size(c.type);
    if (c.send != c.recv && overlap(c.send, n, c.recv, n))
        return ncclInvalidArgument;
    return mpi(MPI_Allreduce(c.send == c.recv ? MPI_IN_PLACE : c.send, c.recv,
                             (int)c.count, red_type(c.type), red_op(c.op),
                             c.comm->comm));
}

inline ncclResult_t bcast(const call &c)
{
    size_t n = c.count * type_size(c.type);
    if (c.comm->rank == c.peer && c.send != c.recv) {
        if (overlap(c.send, n, c.recv, n))
            return ncclInvalidArgument;
        memcpy(c.recv, c.send, n);
    }
    return mpi(MPI_Bcast(c.recv, (int)n, MPI_BYTE, c.peer, c.comm->comm));
}

inline ncclResult_t reduce(const call &c)
{
    size_t n = c.count * type_size(c.type);
    bool root = c.comm->rank == c.peer, inplace = root && c.send == c.recv;
    if (root && !inplace && overlap(c.send, n, c.recv, n))
        return ncclInvalidArgument;
    return mpi(MPI_Reduce(inplace ? MPI_IN_PLACE : c.send, root ? c.recv : NULL,
                          (int)c.count, red_type(c.type), red_op(c.op), c.peer,
                          c.comm->comm));
}

inline ncclResult_t collective(const call &c)
{
    switch (c.kind) {
    case ALLGATHER:
        return allgather(c);
    case REDUCE_SCATTER:
        return reduce_scatter(c);
    case ALLREDUCE:
        return allreduce(c);
    case BCAST:
        return bcast(c);
    default:
        return reduce(c);
    }
}

/* The group's calls: every send and receive posted, the collectives in
 * call order, then every transfer waited for. */
inline ncclResult_t run(std::vector<call> &g)
{
    std::vector<MPI_Request> req;
    ncclResult_t r = ncclSuccess, w;
    for (const call &c : g) {
        MPI_Request q;
        int n = (int)(c.count * type_size(c.type)), rc;
        if (c.kind != SEND && c.kind != RECV)
            continue;
        rc = c.kind == SEND
                 ? MPI_Isend(c.send, n, MPI_BYTE, c.peer, 0, c.comm->comm, &q)
                 : MPI_Irecv(c.recv, n, MPI_BYTE, c.peer, 0, c.comm->comm, &q);
        if (rc != MPI_SUCCESS) {
            r = ncclSystemError;
            break;
        }
        req.push_back(q);
    }
    for (const call &c : g)
        if (r == ncclSuccess && c.kind != SEND && c.kind != RECV)
            r = collective(c);
    w = req.empty() ? ncclSuccess
                    : mpi(MPI_Waitall((int)req.size(), req.data(),
                                      MPI_STATUSES_IGNORE));
    g.clear();
    return r != ncclSuccess ? r : w;
}

/* The buffers of checked call "c" on stream "st" noted (see touch):
 * what it reads, then what it writes (a root's, for a broadcast's
 * send and a reduce's receive). */
inline int touch_call(const call &c, cudaStream_t st)
{
    size_t n = c.count * type_size(c.type), P = (size_t)c.comm->nranks;
    bool root = c.comm->rank == c.peer;
    static const char *const name[] = {
        "ncclSend",      "ncclRecv",      "ncclAllGather", "ncclReduceScatter",
        "ncclAllReduce", "ncclBroadcast", "ncclReduce"};
    size_t in = c.kind == REDUCE_SCATTER ? n * P : n;
    size_t out = c.kind == ALLGATHER ? n * P : n;
    if (c.kind != RECV && (c.kind != BCAST || root) &&
        !touch(st, name[c.kind], c.send, in, false))
        return 0;
    return c.kind == SEND || (c.kind == REDUCE && !root) ||
           touch(st, name[c.kind], c.recv, out, true);
}

/* A call of kind "kind" (the API's arguments; "peer": the peer or the
 * root): checked (the whole buffer of a reduce-scatter's or all-gather's
 * nranks pieces within MPI's count), then deferred inside a group or run
 * alone; "reduce": the call reduces. */
inline ncclResult_t post(int kind, const void *send, void *recv, size_t count,
                         ncclDataType_t type, ncclRedOp_t op, int peer,
                         ncclComm_t comm, bool reduce, cudaStream_t stream)
{
    const call c = {kind, send, recv, count, type, op, peer, comm};
    bool whole = kind == ALLGATHER || kind == REDUCE_SCATTER;
    size_t mul = whole && comm != nullptr ? (size_t)comm->nranks : 1;
    ncclResult_t r = check(c, mul, reduce);
    std::vector<call> one(1, c);
    if (r != ncclSuccess)
        return r;
    if (!touch_call(c, stream))
        return ncclInvalidUsage;
    if (st().depth > 0) {
        st().group.push_back(c);
        return ncclSuccess;
    }
    return run(one);
}
} /* namespace axe_nccl_emu */

inline const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess:
        return "no error";
    case ncclUnhandledCudaError:
        return "unhandled cuda error";
    case ncclSystemError:
        return "unhandled system error (an MPI call of the emulation failed)";
    case ncclInternalError:
        return "internal error";
    case ncclInvalidArgument:
        return "invalid argument";
    case ncclInvalidUsage:
        return "invalid usage";
    case ncclRemoteError:
        return "remote process exited or there was a network error";
    default:
        return "unknown result code";
    }
}

inline ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (id == nullptr)
        return ncclInvalidArgument;
    memset(id, 0, sizeof *id);
    memcpy(id->internal, axe_nccl_emu::magic, sizeof axe_nccl_emu::magic);
    return ncclSuccess;
}

inline ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks,
                                     ncclUniqueId id, int rank)
{
    int size, same, all;
    ncclComm_t c;
    if (comm == nullptr || MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS)
        return ncclInvalidArgument;
    same = memcmp(id.internal, axe_nccl_emu::magic,
                  sizeof axe_nccl_emu::magic) == 0 &&
           nranks == size && rank >= 0 && rank < nranks;
    if (MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return ncclSystemError;
    if (!all)
        return ncclInvalidArgument;
    c = new ncclComm;
    c->rank = rank, c->nranks = nranks;
    if (MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c->comm) != MPI_SUCCESS) {
        delete c;
        return ncclSystemError;
    }
    *comm = c;
    return ncclSuccess;
}

inline ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (comm == nullptr)
        return ncclInvalidArgument;
    MPI_Comm_free(&comm->comm);
    delete comm;
    return ncclSuccess;
}

inline ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (comm == nullptr || count == nullptr)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

inline ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (comm == nullptr || rank == nullptr)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

inline ncclResult_t ncclGroupStart(void)
{
    axe_nccl_emu::st().depth++;
    return ncclSuccess;
}

inline ncclResult_t ncclGroupEnd(void)
{
    axe_nccl_emu::state &s = axe_nccl_emu::st();
    if (s.depth == 0)
        return ncclInvalidUsage;
    return --s.depth > 0 ? ncclSuccess : axe_nccl_emu::run(s.group);
}

inline ncclResult_t ncclSend(const void *sendbuff, size_t count,
                             ncclDataType_t type, int peer, ncclComm_t comm,
                             cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::SEND, sendbuff, nullptr, count,
                              type, ncclSum, peer, comm, false, st);
}

inline ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t type,
                             int peer, ncclComm_t comm, cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::RECV, nullptr, recvbuff, count,
                              type, ncclSum, peer, comm, false, st);
}

/* The first stream-order hazard (see the file comment), or "". */
inline const char *ncclGetLastError(ncclComm_t)
{
    return axe_nccl_emu::ss().hazard.c_str();
}

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    axe_nccl_emu::streams &z = axe_nccl_emu::ss();
    if (s == nullptr)
        return cudaErrorInvalidValue;
    *s = new CUstream_st{z.n++};
    for (std::vector<uint64_t> &v : z.vc)
        v.resize((size_t)z.n, 0);
    z.vc.push_back(std::vector<uint64_t>((size_t)z.n, 0));
    return cudaSuccess;
}

inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    delete s;
    return cudaSuccess;
}

/* Stream s waits for event e's work (its recorded clock; an event never
 * recorded orders nothing, as on a GPU). */
inline cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e,
                                       unsigned = 0)
{
    axe_nccl_emu::streams &z = axe_nccl_emu::ss();
    std::vector<uint64_t> &v = z.vc[(size_t)axe_nccl_emu::sid(s)];
    for (size_t t = 0; t < e->vc.size(); t++)
        v[t] = v[t] > e->vc[t] ? v[t] : e->vc[t];
    return cudaSuccess;
}

inline ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff,
                                  size_t sendcount, ncclDataType_t type,
                                  ncclComm_t comm, cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::ALLGATHER, sendbuff, recvbuff,
                              sendcount, type, ncclSum, 0, comm, false, st);
}

inline ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff,
                                      size_t recvcount, ncclDataType_t type,
                                      ncclRedOp_t op, ncclComm_t comm,
                                      cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::REDUCE_SCATTER, sendbuff, recvbuff,
                              recvcount, type, op, 0, comm, true, st);
}

inline ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff,
                                  size_t count, ncclDataType_t type,
                                  ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::ALLREDUCE, sendbuff, recvbuff,
                              count, type, op, 0, comm, true, st);
}

inline ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff,
                                  size_t count, ncclDataType_t type, int root,
                                  ncclComm_t comm, cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::BCAST, sendbuff, recvbuff, count,
                              type, ncclSum, root, comm, false, st);
}

inline ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff,
                               size_t count, ncclDataType_t type,
                               ncclRedOp_t op, int root, ncclComm_t comm,
                               cudaStream_t st)
{
    return axe_nccl_emu::post(axe_nccl_emu::REDUCE, sendbuff, recvbuff, count,
                              type, op, root, comm, true, st);
}

#endif
