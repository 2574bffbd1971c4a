/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The NCCL emulation (src/compiler/backend/cuda/compiler_nccl_emu.h)
 * against NCCL's documented semantics, at any number of ranks (mpirun
 * -np P, tests/compiler_nccl.sh): ncclAllGather (rank r's piece at recv +
 * r*sendcount; in place when send == recv + rank*sendcount),
 * ncclReduceScatter (recvcount: each rank's piece; in place when recv ==
 * send + rank*recvcount), ncclAllReduce (in place), ncclBroadcast (in and
 * out of place), ncclReduce (a non-root's recv unused), grouped
 * ncclSend/ncclRecv (a ring of 1 MiB messages that would deadlock
 * without the group, two messages to one peer matched in order), and the
 * errors: a peer outside the communicator, ncclGroupEnd without a start,
 * overlapping buffers, a type MPI cannot reduce, a count beyond int, a
 * communicator of the wrong size; the order of two streams (a send on a
 * second stream of what the legacy stream wrote: after an event wait it
 * passes, without one it fails, ncclGetLastError saying why). Prints
 * "FAIL: ..." per failure and "nccl emulation: N checks" on rank 0.
 */
#include "compiler_cuda_emu.h"
#include "compiler_nccl_emu.h"

#include <stdio.h>
#include <string.h>
#include <vector>

static int checks, fails, me;

static void expect(bool ok, const char *what)
{
    checks++;
    if (!ok) {
        fails++;
        printf("FAIL: rank %d: %s\n", me, what);
    }
}

static void allgather(ncclComm_t c, int P)
{
    const int n = 3;
    std::vector<int> send(n), recv((size_t)(n * P), -1);
    bool ok = true;
    for (int i = 0; i < n; i++)
        send[(size_t)i] = me * 100 + i;
    expect(ncclAllGather(send.data(), recv.data(), n, ncclInt32, c, nullptr) ==
               ncclSuccess,
           "allgather");
    for (int r = 0; r < P; r++)
        for (int i = 0; i < n; i++)
            ok = ok && recv[(size_t)(r * n + i)] == r * 100 + i;
    expect(ok, "allgather: rank r's piece at recv + r*sendcount");
    for (int i = 0; i < n * P; i++) /* in place: only my own piece set */
        recv[(size_t)i] = i / n == me ? me * 100 + i % n : -1;
    expect(ncclAllGather(recv.data() + me * n, recv.data(), n, ncclInt32, c,
                         nullptr) == ncclSuccess,
           "allgather in place");
    for (int r = 0; ok && r < P; r++)
        for (int i = 0; i < n; i++)
            ok = ok && recv[(size_t)(r * n + i)] == r * 100 + i;
    expect(ok, "allgather in place: every piece");
    expect(ncclAllGather(recv.data() + 1, recv.data(), n, ncclInt32, c,
                         nullptr) == ncclInvalidArgument,
           "allgather: overlapping buffers not in place are refused");
}

static void reduce_scatter(ncclComm_t c, int P)
{
    const int n = 4;
    std::vector<float> send((size_t)(n * P)), recv(n, -1);
    bool ok = true;
    for (int j = 0; j < n * P; j++)
        send[(size_t)j] = (float)((me + 1) * (j + 1));
    expect(ncclReduceScatter(send.data(), recv.data(), n, ncclFloat32, ncclSum,
                             c, nullptr) == ncclSuccess,
           "reduce-scatter");
    /* sum over r of (r+1)*(me*n+i+1) = P(P+1)/2 * (me*n+i+1) */
    for (int i = 0; i < n; i++)
        ok = ok &&
             recv[(size_t)i] == (float)(P * (P + 1) / 2 * (me * n + i + 1));
    expect(ok, "reduce-scatter: block me of the sum, recvcount elements");
    expect(ncclReduceScatter(send.data(), send.data() + me * n, n, ncclFloat32,
                             ncclMax, c, nullptr) == ncclSuccess,
           "reduce-scatter in place");
    for (int i = 0; i < n; i++)
        ok = ok && send[(size_t)(me * n + i)] == (float)(P * (me * n + i + 1));
    expect(ok, "reduce-scatter in place: the max at send + rank*recvcount");
}

static void allreduce_bcast_reduce(ncclComm_t c, int P)
{
    double v[2] = {(double)me, -(double)me};
    int x[2] = {me, me + 7}, y[2] = {-1, -1}, root = P - 1;
    expect(ncclAllReduce(v, v, 2, ncclFloat64, ncclMax, c, nullptr) ==
                   ncclSuccess &&
               v[0] == P - 1 && v[1] == 0,
           "allreduce max in place");
    expect(ncclBroadcast(x, y, 2, ncclInt32, root, c, nullptr) == ncclSuccess &&
               y[0] == root && y[1] == root + 7,
           "broadcast: root's send to every recv");
    x[0] = me, x[1] = me + 7;
    expect(ncclBroadcast(x, x, 2, ncclInt32, 0, c, nullptr) == ncclSuccess &&
               x[0] == 0 && x[1] == 7,
           "broadcast in place");
    x[0] = me + 3, x[1] = 100 - me, y[0] = y[1] = -1;
    expect(ncclReduce(x, me == 0 ? y : nullptr, 2, ncclInt32, ncclMin, 0, c,
                      nullptr) == ncclSuccess &&
               (me != 0 || (y[0] == 3 && y[1] == 100 - (P - 1))),
           "reduce min to root 0 (non-roots pass no recv)");
}

static void p2p(ncclComm_t c, int P)
{
    const size_t n = (size_t)1 << 20;
    std::vector<char> out(n, (char)me), in(n, -1);
    int a = me, b = me + 1000, ra = -1, rb = -1;
    int next = (me + 1) % P, prev = (me + P - 1) % P;
    bool ok = true;
    expect(ncclGroupStart() == ncclSuccess && ncclGroupStart() == ncclSuccess,
           "group start (nested)");
    expect(
        ncclSend(out.data(), n, ncclUint8, next, c, nullptr) == ncclSuccess &&
            ncclRecv(in.data(), n, ncclUint8, prev, c, nullptr) == ncclSuccess,
        "grouped send/recv");
    expect(ncclGroupEnd() == ncclSuccess, "inner group end");
    expect(in[0] == -1, "nothing moves before the outermost group end");
    expect(ncclSend(&a, 1, ncclInt32, next, c, nullptr) == ncclSuccess &&
               ncclSend(&b, 1, ncclInt32, next, c, nullptr) == ncclSuccess &&
               ncclRecv(&ra, 1, ncclInt32, prev, c, nullptr) == ncclSuccess &&
               ncclRecv(&rb, 1, ncclInt32, prev, c, nullptr) == ncclSuccess,
           "two messages to one peer");
    expect(ncclGroupEnd() == ncclSuccess, "outer group end");
    for (size_t i = 0; i < n; i += 4096)
        ok = ok && in[i] == (char)prev;
    expect(ok && in[n - 1] == (char)prev, "a ring of 1 MiB in one group");
    expect(ra == prev && rb == prev + 1000, "matched in call order per peer");
}

/* The stream order check: a buffer written on the legacy stream and
 * sent on a second stream after an event wait passes; without the wait
 * the send fails and ncclGetLastError names both accesses; a read after
 * a read needs no order. (Last: the first hazard is kept.) */
static void streams(ncclComm_t c)
{
    std::vector<float> buf(8, 1.0f), in(8, 0.0f), other(8, 2.0f);
    cudaStream_t s = nullptr;
    cudaEvent_t e = nullptr;
    bool made =
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
        cudaEventCreate(&e) == cudaSuccess;
    expect(made, "a second stream and an event");
    if (!made)
        return;
    expect(axe_nccl_emu::touch(nullptr, "fill", buf.data(), 32, true) == 1,
           "a write on the legacy stream");
    cudaEventRecord(e, nullptr);
    expect(cudaStreamWaitEvent(s, e, 0) == cudaSuccess, "wait on the event");
    expect(ncclGroupStart() == ncclSuccess &&
               ncclSend(buf.data(), 8, ncclFloat32, me, c, s) == ncclSuccess &&
               ncclRecv(in.data(), 8, ncclFloat32, me, c, s) == ncclSuccess &&
               ncclGroupEnd() == ncclSuccess && in[7] == 1.0f,
           "a send on the second stream after the wait (to itself)");
    expect(axe_nccl_emu::touch(nullptr, "look", buf.data(), 32, false) == 1,
           "a read after a read on another stream needs no order");
    expect(ncclGetLastError(c)[0] == '\0', "no hazard yet");
    expect(axe_nccl_emu::touch(nullptr, "refill", buf.data() + 4, 4, true) == 0,
           "a write after the send's read, no event between them");
    expect(strstr(ncclGetLastError(c), "refill (a write on stream 0) is not "
                                       "ordered after ncclSend (a read on "
                                       "stream 1)") != nullptr,
           "ncclGetLastError names both accesses");
    expect(axe_nccl_emu::touch(nullptr, "fill", other.data(), 32, true) == 1 &&
               ncclSend(other.data(), 8, ncclFloat32, me, c, s) ==
                   ncclInvalidUsage,
           "a send of what the legacy stream wrote, no event between them");
    cudaEventDestroy(e);
    cudaStreamDestroy(s);
}

/* The clock lives in the event (the emulated cudaEventRecord keeps it):
 * an event destroyed after a record and made anew (often at the same
 * address) was never recorded, so waiting on it orders nothing and a
 * read on the second stream of what stream 0 wrote is a hazard; recorded
 * again, the wait orders it. */
static void event_reuse(void)
{
    static float buf[8]; /* bytes no earlier check noted */
    cudaStream_t s = nullptr;
    cudaEvent_t e = nullptr, f = nullptr;
    bool made =
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess &&
        cudaEventCreate(&e) == cudaSuccess;
    expect(made, "a stream and an event");
    if (!made)
        return;
    expect(axe_nccl_emu::touch(nullptr, "w0", buf, 32, true) == 1,
           "a write on stream 0");
    cudaEventRecord(e, nullptr);
    cudaEventDestroy(e);
    expect(cudaEventCreate(&f) == cudaSuccess &&
               cudaStreamWaitEvent(s, f, 0) == cudaSuccess,
           "a new event, waited on unrecorded");
    expect(axe_nccl_emu::touch(s, "r1", buf, 32, false) == 0,
           "the new event orders nothing: the read is a hazard");
    expect(axe_nccl_emu::touch(nullptr, "w2", buf, 32, true) == 1 &&
               cudaEventRecord(f, nullptr) == cudaSuccess &&
               cudaStreamWaitEvent(s, f, 0) == cudaSuccess &&
               axe_nccl_emu::touch(s, "r3", buf, 32, false) == 1,
           "recorded after the write, the wait orders the read");
    cudaEventDestroy(f);
    cudaStreamDestroy(s);
}

static void errors(ncclComm_t c, int P)
{
    int x = 0;
    ncclComm_t bad = nullptr;
    ncclUniqueId id;
    expect(ncclSend(&x, 1, ncclInt32, P, c, nullptr) == ncclInvalidArgument,
           "a peer outside the communicator");
    expect(ncclGroupEnd() == ncclInvalidUsage, "group end without a start");
    expect(ncclAllReduce(&x, &x, 1, ncclFloat16, ncclSum, c, nullptr) ==
               ncclInvalidArgument,
           "a half reduction (not emulated)");
    expect(ncclAllReduce(&x, &x, (size_t)1 << 31, ncclInt32, ncclSum, c,
                         nullptr) == ncclInvalidArgument,
           "a count beyond int");
    ncclGetUniqueId(&id);
    expect(ncclCommInitRank(&bad, P + 1, id, me) == ncclInvalidArgument,
           "a communicator larger than the job");
}

int main(int argc, char **argv)
{
    int P, n = 0, r = -1;
    ncclUniqueId id;
    ncclComm_t c = nullptr;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (me == 0)
        ncclGetUniqueId(&id);
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    expect(ncclCommInitRank(&c, P, id, me) == ncclSuccess, "comm init");
    expect(ncclCommCount(c, &n) == ncclSuccess && n == P &&
               ncclCommUserRank(c, &r) == ncclSuccess && r == me,
           "count and rank");
    allgather(c, P);
    reduce_scatter(c, P);
    allreduce_bcast_reduce(c, P);
    p2p(c, P);
    errors(c, P);
    streams(c);
    event_reuse();
    expect(ncclCommDestroy(c) == ncclSuccess, "comm destroy");
    if (me == 0)
        printf("nccl emulation: %d checks at %d ranks\n", checks, P);
    MPI_Finalize();
    return fails != 0;
}
