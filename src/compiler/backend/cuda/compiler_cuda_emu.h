/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The CUDA emulation runtime (issue 13 §3.3): the .cu that the CUDA
 * backend emits compiles as C++ (g++ or clang++, -DAXE_CUDA_EMULATE)
 * against this header and runs on the CPU. A launch runs its CTAs one
 * after another; the threads of a CTA are fibers (ucontext) of one OS
 * thread, run round-robin (in the order AXE_THREAD_ORDER asks, as the C
 * harness: 0 ascending, -1 descending, a seed a permutation) until each
 * blocks or exits:
 *   - __syncthreads() is bar.sync 0 over the whole block; bar.sync id, n
 *     releases when n threads arrived (all with the same n); a thread
 *     that exits never arrives;
 *   - warp collectives (__shfl_*_sync, ldmatrix, mma.sync) wait for every
 *     lane of the mask (.aligned ones: the whole warp), the last one to
 *     arrive computes every lane's result (compiler_cuda_emu_atoms.h);
 *   - cp.async copies are deferred: the source is read when issued, the
 *     destination written when a cp.async.wait_group N completes its group
 *     (all but the N most recent committed groups); a destination touched
 *     before then is reported, and so is a thread exiting with copies it
 *     never waited for;
 *   - no runnable thread while some have not exited is a deadlock: the
 *     launch fails (cudaErrorLaunchFailure) with a reason naming the
 *     barrier and where the other threads are;
 *   - the access macros (AXE_LD, AXE_ST, AXE_LDV, AXE_STV, AXE_ATOM) of
 *     the emitted code feed the race detector: a shadow cell per element
 *     (the last write and the reads since, each with its thread's vector
 *     clock, joined at every barrier the thread passes); two accesses of
 *     different threads of one CTA race when one writes and no barrier
 *     orders them, accesses of different CTAs to global memory when one
 *     writes (atomics exempt against atomics); each race is written to
 *     stderr as a line "axe-emu-race TENSOR OFFSET T1 C1 L1 W1 T2 C2 L2
 *     W2" (thread, CTA, .axe line, 1 for a write) once per tensor, lines
 *     and kinds, the total at the end ("axe-emu-races N").
 * The host API the harness uses (cudaMalloc, cudaMemcpy, events, ...) is
 * plain memory and clock(). Invariant: a kernel error never hangs nor
 * crashes the emulator; it is one line on stderr and a failed launch.
 */
#ifndef AXE_COMPILER_CUDA_EMU_H
#define AXE_COMPILER_CUDA_EMU_H

#ifndef __cplusplus
#error "compiler_cuda_emu.h is C++: compile the .cu with a C++ compiler"
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include <new>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler_cuda_emu_atoms.h"

#if defined(__SANITIZE_ADDRESS__)
#define AXE_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AXE_EMU_ASAN 1
#endif
#endif
#ifdef AXE_EMU_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

/* ---- CUDA's keywords and types --------------------------------------- */

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/* One CTA runs at a time on one OS thread: a thread_local array (static
 * storage) is its CTA's, also as `extern __shared__` (ax_dsmem below). */
#define __shared__ thread_local

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
struct uint3 {
    unsigned x, y, z;
};
struct __attribute__((aligned(8))) uint2 {
    unsigned x, y;
};
struct __attribute__((aligned(16))) uint4 {
    unsigned x, y, z, w;
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorAssert = 710,
    cudaErrorMisalignedAddress = 716,
    cudaErrorLaunchFailure = 719
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3
};

namespace axe_emu
{

enum { RUNNABLE, AT_BARRIER, AT_WARP, DONE };
enum { NBARRIERS = 16, STACK = 256 * 1024 };

/* An element address the kernel gave an instruction that takes raw
 * addresses (AXE_AT: cp.async, ldmatrix): its tensor, offset, element
 * size and source line, for the race reports of that instruction. */
struct site {
    const void *p;
    const char *tensor;
    long off;
    int size, line;
};

struct copy {
    void *dst;
    int n;
    site at;                /* the destination's */
    unsigned char data[16]; /* the source's bytes when issued */
};

struct thread {
    ucontext_t ctx;
    char *stack;
    uint3 tid;
    int lin, state, bar;
    std::vector<uint32_t> vc; /* vector clock over the CTA's threads */
    std::vector<copy> open;   /* cp.async not committed yet */
    std::vector<std::vector<copy>> groups; /* committed, oldest first */
    site sites[4]; /* the last AXE_AT addresses: sites[(nsites - 1) % 4] */
    unsigned nsites;
    void *fake;
};

/* A warp collective in progress: each lane's operands, then results. */
struct warp {
    int kind, expect, arrived;
    unsigned mask;
    unsigned char in[32][128], out[32][64];
};
typedef void (*warp_fn)(warp &w);

struct barrier {
    int count, arrived;
};

/* The last write and the reads since of one element. */
struct cell {
    int64_t cta = -1;
    int32_t wt = -1, wline = 0;
    uint32_t wclock = 0;
    bool atomic = false, pending = false;
    std::vector<std::pair<int32_t, uint32_t>> reads; /* thread, clock */
    std::vector<int32_t> rlines;
};

struct region {
    uintptr_t lo, hi;
};

/* A write that may repeat the value before it (check_suspects). */
struct suspect {
    const void *p;
    int size;
    unsigned char old[16];
    const char *tensor;
    long off;
    int32_t t1, t2;
    int64_t c1;
    int l1, l2;
};

struct state {
    /* the launch */
    dim3 grid, block;
    uint3 bidx;
    int64_t cta;
    int n;
    std::vector<thread> th;
    std::vector<int> order;
    std::vector<warp> warps;
    barrier bars[NBARRIERS];
    thread *cur;
    ucontext_t sched;
    void *sched_fake;
    const void *sched_bottom;
    size_t sched_size;
    void (*body)(void *);
    void *arg;
    cudaError_t error;
    bool failed;
    /* the race detector */
    std::vector<region> global;
    std::unordered_map<uintptr_t, cell> shadow;
    std::unordered_map<std::string, int> reported;
    std::vector<suspect> suspects;
    long long races;
    bool detect;
    /* the last launch's first failure and races, for a caller that
     * loads the .cu as a library (Python's emulate=True) */
    char message[640];
    long long last_races;
};

inline state &st()
{
    static state s = [] {
        state z;
        z.cur = nullptr;
        z.error = cudaSuccess;
        z.failed = false;
        z.races = 0;
        z.message[0] = '\0';
        z.last_races = 0;
        z.detect = getenv("AXE_EMU_NO_RACES") == nullptr;
        return z;
    }();
    return s;
}

/* The kernel failed: the first reason is reported, the launch stops. */
inline void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void fail(const char *fmt, ...)
{
    state &s = st();
    va_list ap;
    if (!s.failed) {
        char buf[600];
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        fprintf(stderr, "emulation: CTA (%u,%u,%u): %s\n", s.bidx.x, s.bidx.y,
                s.bidx.z, buf);
        snprintf(s.message, sizeof s.message, "CTA (%u,%u,%u): %s", s.bidx.x,
                 s.bidx.y, s.bidx.z, buf);
    }
    s.failed = true;
    s.error = cudaErrorLaunchFailure;
}

/* ---- fibers -------------------------------------------------------- */

inline void start_switch(void **fake, const void *bottom, size_t size)
{
#ifdef AXE_EMU_ASAN
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}

inline void finish_switch(void *fake, const void **bottom, size_t *size)
{
#ifdef AXE_EMU_ASAN
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}

/* From the running thread back to the scheduler ("done": for good). */
inline void yield(bool done)
{
    state &s = st();
    thread *t = s.cur;
    start_switch(done ? nullptr : &t->fake, s.sched_bottom, s.sched_size);
    swapcontext(&t->ctx, &s.sched);
    finish_switch(t->fake, nullptr, nullptr);
}

inline void fiber_main()
{
    state &s = st();
    finish_switch(nullptr, &s.sched_bottom, &s.sched_size);
    s.body(s.arg);
    if (!s.cur->open.empty() || !s.cur->groups.empty())
        fail("thread %d exits with cp.async copies it never waited for "
             "(no cp.async.wait_group completes them)",
             s.cur->lin);
    s.cur->state = DONE;
    yield(true);
}

/* Run thread "t" until it blocks or exits. */
inline void resume(thread &t)
{
    state &s = st();
    s.cur = &t;
    start_switch(&s.sched_fake, t.stack, STACK);
    swapcontext(&s.sched, &t.ctx);
    finish_switch(s.sched_fake, nullptr, nullptr);
    s.cur = nullptr;
}

/* ---- thread order (the C harness's AXE_THREAD_ORDER) ---------------- */

inline unsigned long long mix(unsigned long long *x)
{
    unsigned long long z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

inline long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }

inline void make_order(int n)
{
    state &s = st();
    const char *env = getenv("AXE_THREAD_ORDER");
    long long o = env != nullptr ? strtoll(env, nullptr, 10) : 0;
    unsigned long long seed = (unsigned long long)o;
    long mul = 1, add = 0;
    if (o < 0) {
        mul = n - 1;
        add = n - 1;
    } else if (o > 0) {
        mul = (long)(mix(&seed) % (unsigned long long)n);
        while (gcd(mul, n) != 1)
            mul = (mul + 1) % n;
        add = (long)(mix(&seed) % (unsigned long long)n);
    }
    s.order.resize((size_t)n);
    for (long k = 0; k < n; k++)
        s.order[(size_t)k] = (int)((k * mul + add) % n);
}

/* ---- barriers ----------------------------------------------------- */

/* The threads at barrier "b" pass it: their clocks are joined. */
inline void release(int b)
{
    state &s = st();
    std::vector<uint32_t> m((size_t)s.n, 0);
    for (thread &t : s.th)
        if (t.state == AT_BARRIER && t.bar == b)
            for (int k = 0; k < s.n; k++)
                m[(size_t)k] = t.vc[(size_t)k] > m[(size_t)k] ? t.vc[(size_t)k]
                                                              : m[(size_t)k];
    for (thread &t : s.th)
        if (t.state == AT_BARRIER && t.bar == b) {
            t.vc = m;
            t.vc[(size_t)t.lin]++;
            t.state = RUNNABLE;
        }
    s.bars[b].arrived = 0;
    s.bars[b].count = 0;
}

/* bar.sync "id", "count" by the running thread. */
inline void bar_sync(unsigned id, unsigned count)
{
    state &s = st();
    thread *t = s.cur;
    if (s.failed)
        return yield(false);
    if (id >= NBARRIERS || count == 0 || count > (unsigned)s.n ||
        (count % 32 != 0 && count != (unsigned)s.n)) {
        fail("thread %d: bar.sync %u, %u: the barrier is 0..15 and the "
             "count a multiple of 32 up to the block's %d threads",
             t->lin, id, count, s.n);
        return yield(false);
    }
    barrier &b = s.bars[id];
    if (b.arrived > 0 && b.count != (int)count) {
        fail("bar.sync %u: thread %d arrives with count %u, others with %d", id,
             t->lin, count, b.count);
        return yield(false);
    }
    b.count = (int)count;
    b.arrived++;
    t->state = AT_BARRIER;
    t->bar = (int)id;
    if (b.arrived == b.count)
        release((int)id);
    else
        yield(false);
}

/* ---- warp collectives ---------------------------------------------- */

static const char *const warp_names[] = {"shfl.sync", "ldmatrix", "mma.sync",
                                         "__syncwarp"};
static_assert(sizeof(((warp *)nullptr)->in[0]) >= 96, "warp operand slots");

/* The running lane joins collective "kind" over "mask" with "in"; the
 * last lane runs "fn"; the lane's result is copied to "out". */
inline void collective(int kind, unsigned mask, const void *in, size_t nin,
                       void *out, size_t nout, warp_fn fn)
{
    state &s = st();
    thread *t = s.cur;
    int lane = t->lin % 32, wi = t->lin / 32;
    warp &w = s.warps[(size_t)wi];
    int lanes = s.n - 32 * wi < 32 ? s.n - 32 * wi : 32;
    if (s.failed)
        return yield(false);
    if (!(mask >> lane & 1u) || (lanes < 32 && (mask >> lanes) != 0)) {
        fail("thread %d: %s with member mask 0x%08x: the mask must name the "
             "lane (%d) and only lanes of the warp (%d)",
             t->lin, warp_names[kind], mask, lane, lanes);
        return yield(false);
    }
    if (w.arrived > 0 && (w.kind != kind || w.mask != mask)) {
        fail("warp %d: lane %d is at %s (mask 0x%08x) while other lanes are "
             "at %s (mask 0x%08x)",
             wi, lane, warp_names[kind], mask, warp_names[w.kind], w.mask);
        return yield(false);
    }
    w.kind = kind;
    w.mask = mask;
    w.expect = __builtin_popcount(mask);
    memcpy(w.in[lane], in, nin);
    w.arrived++;
    t->state = AT_WARP;
    if (w.arrived == w.expect) {
        fn(w);
        for (int l = 0; l < lanes; l++)
            if (mask >> l & 1u)
                s.th[(size_t)(32 * wi + l)].state = RUNNABLE;
        w.arrived = 0;
    } else {
        yield(false);
    }
    if (!s.failed && out != nullptr)
        memcpy(out, w.out[lane], nout);
}

/* ---- the race detector -------------------------------------------- */

inline bool is_global(uintptr_t a)
{
    for (const region &r : st().global)
        if (a >= r.lo && a < r.hi)
            return true;
    return false;
}

/* Whether the access of thread "u" at "clock" happens before now. */
inline bool before(int32_t u, uint32_t clock)
{
    return st().cur->vc[(size_t)u] >= clock;
}

inline void report(const char *tensor, long off, int32_t t1, int64_t c1, int l1,
                   bool w1, int32_t t2, int l2, bool w2)
{
    state &s = st();
    char key[200];
    const char *name = strncmp(tensor, "t_", 2) == 0 ? tensor + 2 : tensor;
    s.races++;
    snprintf(key, sizeof key, "%s %d %d %d %d %d", name, l1, w1, l2, w2,
             c1 != s.cta);
    if (s.reported[key]++ > 0 || s.reported.size() > 32)
        return;
    fprintf(stderr, "axe-emu-race %s %ld %d %lld %d %d %d %lld %d %d\n", name,
            off, t1, (long long)c1, l1, w1, t2, (long long)s.cta, l2, w2);
}

/* Two unordered writes of one element race unless the second writes the
 * value the first left (replicated registers written by every lane):
 * checked once the second write is done (the next access, the CTA's end). */
inline void check_suspects()
{
    state &s = st();
    for (const suspect &x : s.suspects)
        if (memcmp(x.p, x.old, (size_t)x.size) != 0)
            report(x.tensor, x.off, x.t1, x.c1, x.l1, true, x.t2, x.l2, true);
    s.suspects.clear();
}

/* Access "kind" (0 read, 1 write, 2 atomic, 3 async destination, 4 async
 * completion) of thread cur to the element at "p" (offset "off" of
 * tensor "tensor"). */
inline void track(const char *tensor, const void *p, long off, int kind,
                  int line, int size)
{
    state &s = st();
    if (!s.detect || s.cur == nullptr)
        return;
    if (!s.suspects.empty())
        check_suspects();
    uintptr_t a = (uintptr_t)p;
    cell &c = s.shadow[a];
    int32_t me = s.cur->lin;
    bool write = kind != 0, glob = c.cta >= 0 && c.cta != s.cta;
    if (glob && !is_global(a))
        c = cell(); /* another CTA's shared memory */
    glob = c.cta >= 0 && c.cta != s.cta;
    if (c.pending && kind != 4) {
        report(tensor, off, c.wt, c.cta, c.wline, true, me, line, write);
        return;
    }
    if (c.wt >= 0 && (c.wt != me || glob) && !(c.atomic && kind == 2) &&
        (glob || !before(c.wt, c.wclock))) {
        if (kind == 1 && !c.atomic && size <= 16) {
            suspect x{p,    size, {0},   tensor,  off,
                      c.wt, me,   c.cta, c.wline, line};
            memcpy(x.old, p, (size_t)size);
            s.suspects.push_back(x);
        } else {
            report(tensor, off, c.wt, c.cta, c.wline, true, me, line, write);
        }
    }
    if (write)
        for (size_t k = 0; k < c.reads.size(); k++)
            if ((c.reads[k].first != me || glob) &&
                (glob || !before(c.reads[k].first, c.reads[k].second))) {
                report(tensor, off, c.reads[k].first, c.cta, c.rlines[k], false,
                       me, line, true);
                break;
            }
    if (glob) {
        c.reads.clear();
        c.rlines.clear();
        c.wt = -1;
    }
    c.cta = s.cta;
    if (!write) {
        for (size_t k = 0; k < c.reads.size(); k++)
            if (c.reads[k].first == me) {
                c.reads[k].second = s.cur->vc[(size_t)me];
                c.rlines[k] = line;
                return;
            }
        c.reads.push_back({me, s.cur->vc[(size_t)me]});
        c.rlines.push_back(line);
        return;
    }
    c.wt = me;
    c.wclock = s.cur->vc[(size_t)me];
    c.wline = line;
    c.atomic = kind == 2;
    c.pending = kind == 3;
    if (kind != 2) {
        c.reads.clear();
        c.rlines.clear();
    }
}

/* "n" elements of "size" bytes from &a[i]: a pointer to the first. */
template <class T>
inline T *access(T *a, long i, long n, int kind, const char *tensor, int line)
{
    for (long k = 0; k < n; k++)
        track(tensor, a + i + k, i + k, kind, line, (int)sizeof(T));
    return a + i;
}

/* A vector access of type V (AXE_LDV, AXE_STV) from &a[i]: access()
 * after the hardware's alignment rule (the address a multiple of V's
 * alignment, else the launch fails: cudaErrorMisalignedAddress). */
template <class V, class T>
inline T *vaccess(T *a, long i, int kind, const char *tensor, int line)
{
    if ((uintptr_t)(a + i) % alignof(V) != 0) {
        fail("%s: a %d-byte vector %s at element %ld (line %d) is not "
             "%d-byte aligned",
             tensor, (int)sizeof(V), kind ? "store" : "load", i, line,
             (int)alignof(V));
        st().error = cudaErrorMisalignedAddress;
    }
    return access(a, i, (long)(sizeof(V) / sizeof(T)), kind, tensor, line);
}

/* The element at "p" of tensor "tensor" (offset "off", "size" bytes) as
 * an instruction's raw address (AXE_AT), remembered for that instruction. */
inline const void *note_site(const void *p, const char *tensor, long off,
                             int size, int line)
{
    thread *t = st().cur;
    if (t != nullptr)
        t->sites[t->nsites++ % 4] = site{p, tensor, off, size, line};
    return p;
}

/* What AXE_AT said of address "p" (newest first), else "what" at
 * offset 0, line 0, elements of "size" bytes. */
inline site site_of(const void *p, const char *what, int size)
{
    thread *t = st().cur;
    for (unsigned k = 0; k < 4 && k < t->nsites; k++) {
        const site &x = t->sites[(t->nsites - 1 - k) % 4];
        if (x.p == p)
            return x;
    }
    return site{p, what, 0, size, 0};
}

/* &a[i] (AXE_AT), noted. */
template <class T> inline T *at(T *a, long i, const char *tensor, int line)
{
    note_site(a + i, tensor, i, (int)sizeof(T), line);
    return a + i;
}

/* Access "kind" of the "n" bytes from the element "x", element by
 * element (track's kinds). */
inline void track_bytes(const site &x, int n, int kind)
{
    for (int k = 0; k < n; k += x.size)
        track(x.tensor, (const char *)x.p + k, x.off + k / x.size, kind, x.line,
              x.size);
}

/* ---- launching ----------------------------------------------------- */

/* Run the CTA "bidx": every thread from the start to its end. */
inline void run_cta()
{
    state &s = st();
    for (int b = 0; b < NBARRIERS; b++)
        s.bars[b] = barrier{0, 0};
    for (warp &w : s.warps)
        w.arrived = 0;
    for (int k = 0; k < s.n; k++) {
        thread &t = s.th[(size_t)k];
        t.state = RUNNABLE;
        t.open.clear();
        t.groups.clear();
        t.nsites = 0;
        t.vc.assign((size_t)s.n, 0);
        t.vc[(size_t)k] = 1;
        t.fake = nullptr;
        getcontext(&t.ctx);
        t.ctx.uc_stack.ss_sp = t.stack;
        t.ctx.uc_stack.ss_size = STACK;
        t.ctx.uc_link = nullptr;
        makecontext(&t.ctx, fiber_main, 0);
    }
    for (;;) {
        bool ran = false, live = false;
        for (int k = 0; k < s.n && !s.failed; k++) {
            thread &t = s.th[(size_t)s.order[(size_t)k]];
            if (t.state == RUNNABLE) {
                resume(t);
                ran = true;
            }
            live = live || t.state != DONE;
        }
        if (s.failed || (!ran && !live))
            break;
        if (ran)
            continue;
        for (const thread &t : s.th)
            live = live || t.state != DONE;
        if (!live)
            break;
        std::string why;
        int nexit = 0, nbar = 0, nwarp = 0;
        for (const thread &t : s.th) {
            nexit += t.state == DONE;
            nbar += t.state == AT_BARRIER;
            nwarp += t.state == AT_WARP;
        }
        for (int b = 0; b < NBARRIERS; b++)
            if (s.bars[b].arrived > 0)
                why += " barrier " + std::to_string(b) + ": " +
                       std::to_string(s.bars[b].arrived) + " of " +
                       std::to_string(s.bars[b].count) + " threads arrived;";
        fail("deadlock:%s %d threads exited, %d wait at a barrier, %d at a "
             "warp collective",
             why.c_str(), nexit, nbar, nwarp);
        break;
    }
}

inline void launch(void (*body)(void *), void *arg, dim3 grid, dim3 block)
{
    state &s = st();
    int n = (int)(block.x * block.y * block.z);
    s.grid = grid;
    s.block = block;
    s.n = n;
    s.body = body;
    s.arg = arg;
    s.failed = false;
    s.message[0] = '\0';
    s.shadow.clear();
    s.reported.clear();
    s.th.resize((size_t)n);
    s.warps.resize((size_t)(n + 31) / 32);
    for (int k = 0; k < n; k++) {
        thread &t = s.th[(size_t)k];
        if (t.stack == nullptr)
            t.stack = (char *)malloc(STACK);
        if (t.stack == nullptr) {
            fail("out of memory for %d thread stacks", n);
            return;
        }
        t.lin = k;
        t.tid = uint3{(unsigned)k % block.x, (unsigned)k / block.x % block.y,
                      (unsigned)k / (block.x * block.y)};
    }
    make_order(n);
    s.cta = 0;
    for (unsigned z = 0; z < grid.z && !s.failed; z++)
        for (unsigned y = 0; y < grid.y && !s.failed; y++)
            for (unsigned x = 0; x < grid.x && !s.failed; x++) {
                s.bidx = uint3{x, y, z};
                s.cta = ((int64_t)z * grid.y + y) * grid.x + x;
                run_cta();
                check_suspects();
            }
    if (s.races > 0)
        fprintf(stderr, "axe-emu-races %lld\n", s.races);
    s.last_races = s.races;
    s.races = 0;
    for (thread &t : s.th) {
        free(t.stack);
        t.stack = nullptr;
    }
}

/* AXE_LAUNCH(k, grid, block, stream)(args...): the call object. */
template <class... P> struct launcher {
    void (*k)(P...);
    dim3 grid, block;
    template <class... A> void operator()(A... a) const
    {
        struct pack {
            void (*k)(P...);
            std::tuple<P...> args;
        } pk{k, std::tuple<P...>(a...)};
        launch(
            [](void *v) {
                pack *p = (pack *)v;
                std::apply(p->k, p->args);
            },
            &pk, grid, block);
    }
};

template <class... P>
inline launcher<P...> make_launcher(void (*k)(P...), dim3 grid, dim3 block)
{
    return launcher<P...>{k, grid, block};
}

/* ---- cp.async ------------------------------------------------------ */

inline void cp_async(void *dst, const void *src, int n)
{
    state &s = st();
    site d = site_of(dst, "cp.async destination", 4);
    if ((uintptr_t)dst % (uintptr_t)n != 0 ||
        (uintptr_t)src % (uintptr_t)n != 0) { /* the PTX ISA's rule */
        fail("cp.async of %d bytes: %s %s is not %d-byte aligned", n,
             (uintptr_t)dst % (uintptr_t)n != 0 ? "destination" : "source",
             (uintptr_t)dst % (uintptr_t)n != 0
                 ? d.tensor
                 : site_of(src, "cp.async source", 4).tensor,
             n);
        st().error = cudaErrorMisalignedAddress;
        return;
    }
    track_bytes(site_of(src, "cp.async source", 4), n, 0);
    track_bytes(d, n, 3);
    copy c{dst, n, d, {0}};
    memcpy(c.data, src, (size_t)n);
    s.cur->open.push_back(c);
}

inline void cp_commit()
{
    thread *t = st().cur;
    t->groups.push_back(t->open);
    t->open.clear();
}

inline void cp_wait(int n)
{
    thread *t = st().cur;
    while ((int)t->groups.size() > n) {
        for (const copy &c : t->groups.front()) {
            memcpy(c.dst, c.data, (size_t)c.n);
            track_bytes(c.at, c.n, 4);
        }
        t->groups.erase(t->groups.begin());
    }
}

/* ---- numbers the mma atoms read ------------------------------------ */

inline double f16(uint32_t h)
{
    int e = (int)(h >> 10 & 31), m = (int)(h & 1023);
    double v = e == 0    ? ldexp(m, -24)
               : e == 31 ? (m ? NAN : INFINITY)
                         : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}

inline double bf16(uint32_t h)
{
    uint32_t b = h << 16;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

inline double tf32(uint32_t u)
{
    uint32_t b = u & 0xffffe000u;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

inline double fp8(uint32_t b, bool e5m2)
{
    int ebits = e5m2 ? 5 : 4, mbits = 7 - ebits, bias = e5m2 ? 15 : 7;
    int e = (int)(b >> mbits & ((1u << ebits) - 1)),
        m = (int)(b & ((1u << mbits) - 1));
    double v;
    if (e5m2 && e == 31)
        v = m ? NAN : INFINITY;
    else if (!e5m2 && e == 15 && m == 7)
        v = NAN;
    else
        v = e == 0 ? ldexp(m, 1 - bias - mbits)
                   : ldexp(m + (1 << mbits), e - bias - mbits);
    return b & 0x80 ? -v : v;
}

} /* namespace axe_emu */

/* ---- what the kernel calls ------------------------------------------ */

#define threadIdx (axe_emu::st().cur->tid)
#define blockIdx (axe_emu::st().bidx)
#define blockDim (axe_emu::st().block)
#define gridDim (axe_emu::st().grid)

#define AXE_LAUNCH(k, grid, block, stream)                                     \
    ((void)(stream), axe_emu::make_launcher(k, grid, block))
#define AXE_LAUNCH_DSMEM(k, grid, block, bytes, stream)                        \
    ((void)(stream), (void)(bytes), axe_emu::make_launcher(k, grid, block))
/* nvcc's #pragma unroll of per-thread register loops: nothing here. */
#define AXE_UNROLL
#define AXE_LD(a, i, line)                                                     \
    (*axe_emu::access(&(a)[0], (long)(i), 1, 0, #a, line))
#define AXE_ST(a, i, line)                                                     \
    (*axe_emu::access(&(a)[0], (long)(i), 1, 1, #a, line))
#define AXE_ATOM(a, i, line)                                                   \
    (*axe_emu::access(&(a)[0], (long)(i), 1, 2, #a, line))
#define AXE_LDV(T, a, i, line)                                                 \
    (*(const T *)axe_emu::vaccess<T>(&(a)[0], (long)(i), 0, #a, line))
#define AXE_STV(T, a, i, line)                                                 \
    (*(T *)axe_emu::vaccess<T>(&(a)[0], (long)(i), 1, #a, line))
#define AXE_LDN(n, a, i, line)                                                 \
    ((const void *)axe_emu::access(&(a)[0], (long)(i), (long)(n), 0, #a, line))
#define AXE_STN(n, a, i, line)                                                 \
    ((void *)axe_emu::access(&(a)[0], (long)(i), (long)(n), 1, #a, line))
#define AXE_AT(a, i, line) axe_emu::at(&(a)[0], (long)(i), #a, line)

inline void __syncthreads() { axe_emu::bar_sync(0, (unsigned)axe_emu::st().n); }

inline void axe_ptx_bar_sync(unsigned id, unsigned nthreads)
{
    axe_emu::bar_sync(id, nthreads);
}

namespace axe_emu
{
struct shfl_in {
    uint32_t v, b, c;
    int mode;
};
inline void shfl_fn(warp &w)
{
    for (int l = 0; l < 32; l++) {
        if (!(w.mask >> l & 1u))
            continue;
        shfl_in x;
        int ok;
        memcpy(&x, w.in[l], sizeof x);
        int src = ax_emu_shfl_src((ax_emu_shfl_mode)x.mode, l, x.b, x.c, &ok);
        uint32_t v;
        if (!(w.mask >> src & 1u)) {
            fail("lane %d of a warp reads lane %d, which is not in the "
                 "member mask 0x%08x",
                 l, src, w.mask);
            return;
        }
        memcpy(&v, w.in[src], 4);
        memcpy(w.out[l], &v, 4);
    }
}
inline uint32_t shfl32(unsigned mask, uint32_t v, ax_emu_shfl_mode mode,
                       uint32_t b, int width)
{
    if (width <= 0 || width > 32 || (width & (width - 1)) != 0) {
        fail("thread %d: shuffle width %d is not a power of 2 up to 32",
             st().cur->lin, width);
        width = 32;
    }
    uint32_t c =
        (uint32_t)((32 - width) << 8) | (mode == AX_EMU_SHFL_UP ? 0u : 31u);
    shfl_in x{v, b, c, (int)mode};
    uint32_t r = v;
    collective(0, mask, &x, sizeof x, &r, 4, shfl_fn);
    return r;
}
template <class T>
inline T shfl(unsigned mask, T v, ax_emu_shfl_mode mode, uint32_t b, int width)
{
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte shuffle");
    uint32_t w[2] = {0, 0};
    memcpy(w, &v, sizeof v);
    for (size_t k = 0; k < sizeof(T) / 4; k++)
        w[k] = shfl32(mask, w[k], mode, b, width);
    memcpy(&v, w, sizeof v);
    return v;
}
} /* namespace axe_emu */

template <class T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    return axe_emu::shfl(mask, v, AX_EMU_SHFL_BFLY, (uint32_t)lane_mask, width);
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return axe_emu::shfl(mask, v, AX_EMU_SHFL_UP, delta, width);
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return axe_emu::shfl(mask, v, AX_EMU_SHFL_DOWN, delta, width);
}
template <class T>
inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return axe_emu::shfl(mask, v, AX_EMU_SHFL_IDX, (uint32_t)src, width);
}

inline float atomicAdd(float *p, float v)
{
    float old = *p;
    *p = old + v;
    return old;
}
inline int atomicAdd(int *p, int v)
{
    int old = *p;
    *p = (int)((unsigned)old + (unsigned)v);
    return old;
}
inline int atomicMax(int *p, int v)
{
    int old = *p;
    *p = old > v ? old : v;
    return old;
}
inline int atomicMin(int *p, int v)
{
    int old = *p;
    *p = old < v ? old : v;
    return old;
}
inline unsigned atomicCAS(unsigned *p, unsigned cmp, unsigned v)
{
    unsigned old = *p;
    *p = old == cmp ? v : old;
    return old;
}
inline unsigned long long
atomicCAS(unsigned long long *p, unsigned long long cmp, unsigned long long v)
{
    unsigned long long old = *p;
    *p = old == cmp ? v : old;
    return old;
}
inline unsigned __float_as_uint(float f)
{
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
}
inline float __uint_as_float(unsigned u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* Arithmetic rounded after each operation (CUDA's _rn intrinsics, which
 * nvcc never contracts into a fused multiply-add): one IEEE operation
 * each here too (the emulation's host build does not contract). */
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
/* One OS thread runs everything in program order: a fence orders nothing
 * more (the race detector does not count it as a barrier). */
inline void __threadfence(void) {}

namespace axe_emu
{
/* __syncwarp: the lanes of the mask meet; their clocks are joined (it
 * orders their memory accesses, as the CUDA guide says). */
inline void syncwarp_fn(warp &w)
{
    state &s = st();
    int base = s.cur->lin / 32 * 32;
    std::vector<uint32_t> m((size_t)s.n, 0);
    for (int l = 0; l < 32; l++)
        if (w.mask >> l & 1u)
            for (int k = 0; k < s.n; k++) {
                uint32_t v = s.th[(size_t)(base + l)].vc[(size_t)k];
                m[(size_t)k] = v > m[(size_t)k] ? v : m[(size_t)k];
            }
    for (int l = 0; l < 32; l++)
        if (w.mask >> l & 1u) {
            thread &t = s.th[(size_t)(base + l)];
            t.vc = m;
            t.vc[(size_t)t.lin]++;
        }
}
} /* namespace axe_emu */

inline void __syncwarp(unsigned mask = 0xffffffffu)
{
    axe_emu::collective(3, mask, "", 0, nullptr, 0, axe_emu::syncwarp_fn);
}

/* The dynamic shared memory of the launch (`extern __shared__`): the most
 * any architecture has (227 KiB). */
inline thread_local
    __attribute__((aligned(128))) unsigned char ax_dsmem[227 * 1024];

/* ---- ldmatrix and mma.sync ------------------------------------------ */

namespace axe_emu
{
struct ldm_in {
    const unsigned char *row;
    int n, trans;
};
inline void ldmatrix_fn(warp &w)
{
    ldm_in x[32];
    uint32_t addr[32], d[32][4];
    uintptr_t base = UINTPTR_MAX;
    int n;
    for (int l = 0; l < 32; l++)
        memcpy(&x[l], w.in[l], sizeof x[l]);
    n = x[0].n;
    for (int l = 0; l < 8 * n; l++)
        base = (uintptr_t)x[l].row < base ? (uintptr_t)x[l].row : base;
    for (int l = 0; l < 32; l++) {
        uintptr_t off = l < 8 * n ? (uintptr_t)x[l].row - base : 0;
        if (l < 8 * n && ((uintptr_t)x[l].row % 16 != 0 || off > 0xffffffffu)) {
            fail("ldmatrix: lane %d's row address is not 16-byte aligned "
                 "shared memory",
                 l);
            return;
        }
        addr[l] = (uint32_t)off;
    }
    ax_emu_ldmatrix((const unsigned char *)base, addr, n, x[0].trans, d);
    for (int l = 0; l < 32; l++)
        memcpy(w.out[l], d[l], 16);
}
inline void ldmatrix(uint32_t *r, const void *row, int n, int trans)
{
    ldm_in x{(const unsigned char *)row, n, trans};
    uint32_t out[4];
    if (st().cur->lin % 32 < 8 * n)
        track_bytes(site_of(row, "ldmatrix row", 2), 16, 0);
    collective(1, 0xffffffffu, &x, sizeof x, out, sizeof out, ldmatrix_fn);
    memcpy(r, out, 4 * (size_t)n);
}

/* mma operand kinds: how a lane's 32-bit registers hold its values. */
enum { E_F16, E_BF16, E_TF32, E_F64, E_S8, E_E4M3, E_E5M2, E_F32, E_S32 };
struct mma_in {
    int kind, ta, tb, tc;
    uint32_t a[4], b[2];
    double f64a, f64b;
    double c[4];
};
/* Value i of a lane's operand whose registers are "r" of element type "e"
 * (f64: the one double). */
inline double value(const uint32_t *r, int e, int i, double f64)
{
    switch (e) {
    case E_F16:
        return f16(r[i / 2] >> (16 * (i % 2)) & 0xffffu);
    case E_BF16:
        return bf16(r[i / 2] >> (16 * (i % 2)) & 0xffffu);
    case E_TF32:
        return tf32(r[i]);
    case E_F64:
        return f64;
    case E_S8:
        return (double)(int8_t)(r[i / 4] >> (8 * (i % 4)) & 0xffu);
    default:
        return fp8(r[i / 4] >> (8 * (i % 4)) & 0xffu, e == E_E5M2);
    }
}
inline void mma_fn(warp &w)
{
    static double a[16 * 32], b[8 * 32], c[4 * 32], d[4 * 32];
    mma_in x;
    memcpy(&x, w.in[0], sizeof x);
    ax_emu_mma_kind kind = (ax_emu_mma_kind)x.kind;
    ax_emu_mma_shape sh = ax_emu_mma_shape_of(kind);
    for (int l = 0; l < 32; l++) {
        memcpy(&x, w.in[l], sizeof x);
        for (int i = 0; i < sh.na; i++)
            a[16 * l + i] = value(x.a, x.ta, i, x.f64a);
        for (int i = 0; i < sh.nb; i++)
            b[8 * l + i] = value(x.b, x.tb, i, x.f64b);
        for (int i = 0; i < sh.nc; i++)
            c[4 * l + i] = x.c[i];
    }
    ax_emu_mma(kind, a, b, c, d);
    for (int l = 0; l < 32; l++)
        memcpy(w.out[l], &d[4 * l], sizeof(double) * 4);
}
/* The warp's mma of "kind"; A and B of element types ta and tb. */
inline void mma(ax_emu_mma_kind kind, int ta, int tb, const uint32_t *a,
                const uint32_t *b, const double *c, double *d, double f64a,
                double f64b)
{
    ax_emu_mma_shape sh = ax_emu_mma_shape_of(kind);
    int regs = ta == E_F16 || ta == E_BF16 ? 2 : ta == E_TF32 ? 1 : 4;
    mma_in x;
    memset(&x, 0, sizeof x);
    x.kind = (int)kind;
    x.ta = ta;
    x.tb = tb;
    if (ta != E_F64) {
        memcpy(x.a, a, 4 * (size_t)(sh.na / regs));
        memcpy(x.b, b, 4 * (size_t)(sh.nb / regs));
    }
    x.f64a = f64a;
    x.f64b = f64b;
    memcpy(x.c, c, sizeof(double) * (size_t)sh.nc);
    collective(2, 0xffffffffu, &x, sizeof x, d, sizeof(double) * 4, mma_fn);
}
template <class F>
inline void mma_f32(ax_emu_mma_kind kind, int ta, int tb, float *d,
                    const uint32_t *a, const uint32_t *b, const F *c)
{
    double cc[4], dd[4];
    for (int i = 0; i < 4; i++)
        cc[i] = c[i];
    mma(kind, ta, tb, a, b, cc, dd, 0, 0);
    for (int i = 0; i < 4; i++)
        d[i] = (float)dd[i];
}
} /* namespace axe_emu */

inline void axe_ptx_ldmatrix_x1(uint32_t r[1], const void *row)
{
    axe_emu::ldmatrix(r, row, 1, 0);
}
inline void axe_ptx_ldmatrix_x2(uint32_t r[2], const void *row)
{
    axe_emu::ldmatrix(r, row, 2, 0);
}
inline void axe_ptx_ldmatrix_x4(uint32_t r[4], const void *row)
{
    axe_emu::ldmatrix(r, row, 4, 0);
}
inline void axe_ptx_ldmatrix_x1_trans(uint32_t r[1], const void *row)
{
    axe_emu::ldmatrix(r, row, 1, 1);
}
inline void axe_ptx_ldmatrix_x2_trans(uint32_t r[2], const void *row)
{
    axe_emu::ldmatrix(r, row, 2, 1);
}
inline void axe_ptx_ldmatrix_x4_trans(uint32_t r[4], const void *row)
{
    axe_emu::ldmatrix(r, row, 4, 1);
}

inline void axe_ptx_mma_m16n8k16_f32_f16(float d[4], const uint32_t a[4],
                                         const uint32_t b[2], const float c[4])
{
    axe_emu::mma_f32(AX_EMU_M16N8K16, axe_emu::E_F16, axe_emu::E_F16, d, a, b,
                     c);
}
inline void axe_ptx_mma_m16n8k16_f32_bf16(float d[4], const uint32_t a[4],
                                          const uint32_t b[2], const float c[4])
{
    axe_emu::mma_f32(AX_EMU_M16N8K16, axe_emu::E_BF16, axe_emu::E_BF16, d, a, b,
                     c);
}
inline void axe_ptx_mma_m16n8k8_f32_f16(float d[4], const uint32_t a[2],
                                        const uint32_t b[1], const float c[4])
{
    axe_emu::mma_f32(AX_EMU_M16N8K8_F16, axe_emu::E_F16, axe_emu::E_F16, d, a,
                     b, c);
}
inline void axe_ptx_mma_m16n8k8_f32_bf16(float d[4], const uint32_t a[2],
                                         const uint32_t b[1], const float c[4])
{
    axe_emu::mma_f32(AX_EMU_M16N8K8_F16, axe_emu::E_BF16, axe_emu::E_BF16, d, a,
                     b, c);
}
inline void axe_ptx_mma_m16n8k8_f32_tf32(float d[4], const uint32_t a[4],
                                         const uint32_t b[2], const float c[4])
{
    axe_emu::mma_f32(AX_EMU_M16N8K8_TF32, axe_emu::E_TF32, axe_emu::E_TF32, d,
                     a, b, c);
}
inline uint32_t axe_ptx_cvt_rna_tf32(float f) { return ax_emu_cvt_rna_tf32(f); }
inline uint32_t axe_ptx_prmt(uint32_t a, uint32_t b, uint32_t c)
{
    return ax_emu_prmt(a, b, c);
}
inline uint32_t axe_ptx_lop3_andxor(uint32_t a, uint32_t b, uint32_t c)
{
    return ax_emu_lop3(a, b, c, 0x6au);
}
inline uint32_t axe_ptx_fma_rn_f16x2(uint32_t a, uint32_t b, uint32_t c)
{
    return ax_emu_fma_rn_f16x2(a, b, c);
}
inline uint32_t axe_ptx_add_rn_f16x2(uint32_t a, uint32_t b)
{
    return ax_emu_f16x2_op(AX_EMU_F16X2_ADD, a, b);
}
inline uint32_t axe_ptx_sub_rn_f16x2(uint32_t a, uint32_t b)
{
    return ax_emu_f16x2_op(AX_EMU_F16X2_SUB, a, b);
}
inline uint32_t axe_ptx_mul_rn_f16x2(uint32_t a, uint32_t b)
{
    return ax_emu_f16x2_op(AX_EMU_F16X2_MUL, a, b);
}
inline uint32_t axe_ptx_add_rn_bf16x2(uint32_t a, uint32_t b)
{
    return ax_emu_bf16x2_op(AX_EMU_F16X2_ADD, a, b);
}
inline uint32_t axe_ptx_sub_rn_bf16x2(uint32_t a, uint32_t b)
{
    return ax_emu_bf16x2_op(AX_EMU_F16X2_SUB, a, b);
}
inline uint32_t axe_ptx_mul_rn_bf16x2(uint32_t a, uint32_t b)
{
    return ax_emu_bf16x2_op(AX_EMU_F16X2_MUL, a, b);
}
inline uint32_t axe_ptx_fma_rn_bf16x2(uint32_t a, uint32_t b, uint32_t c)
{
    return ax_emu_fma_rn_bf16x2(a, b, c);
}
inline uint32_t axe_ptx_max_f16x2(uint32_t a, uint32_t b)
{
    return ax_emu_minmax16x2(1, 0, a, b);
}
inline uint32_t axe_ptx_min_f16x2(uint32_t a, uint32_t b)
{
    return ax_emu_minmax16x2(0, 0, a, b);
}
inline uint32_t axe_ptx_max_bf16x2(uint32_t a, uint32_t b)
{
    return ax_emu_minmax16x2(1, 1, a, b);
}
inline uint32_t axe_ptx_min_bf16x2(uint32_t a, uint32_t b)
{
    return ax_emu_minmax16x2(0, 1, a, b);
}
inline void axe_ptx_mma_m8n8k4_f64(double d[2], const double a[1],
                                   const double b[1], const double c[2])
{
    double cc[4] = {c[0], c[1], 0, 0}, dd[4];
    axe_emu::mma(AX_EMU_M8N8K4_F64, axe_emu::E_F64, axe_emu::E_F64, nullptr,
                 nullptr, cc, dd, a[0], b[0]);
    d[0] = dd[0];
    d[1] = dd[1];
}
inline void axe_ptx_mma_m16n8k32_s32_s8(int32_t d[4], const uint32_t a[4],
                                        const uint32_t b[2], const int32_t c[4])
{
    double cc[4], dd[4];
    for (int i = 0; i < 4; i++)
        cc[i] = c[i];
    axe_emu::mma(AX_EMU_M16N8K32_8BIT, axe_emu::E_S8, axe_emu::E_S8, a, b, cc,
                 dd, 0, 0);
    for (int i = 0; i < 4; i++)
        d[i] = ax_emu_wrap_s32(dd[i]);
}
#define AXE_EMU_FP8_MMA(name, ta, tb)                                          \
    inline void axe_ptx_mma_m16n8k32_f32_##name(                               \
        float d[4], const uint32_t a[4], const uint32_t b[2],                  \
        const float c[4])                                                      \
    {                                                                          \
        axe_emu::mma_f32(AX_EMU_M16N8K32_8BIT, axe_emu::ta, axe_emu::tb, d, a, \
                         b, c);                                                \
    }
AXE_EMU_FP8_MMA(e4m3, E_E4M3, E_E4M3)
AXE_EMU_FP8_MMA(e5m2, E_E5M2, E_E5M2)
AXE_EMU_FP8_MMA(e4m3_e5m2, E_E4M3, E_E5M2)
AXE_EMU_FP8_MMA(e5m2_e4m3, E_E5M2, E_E4M3)

inline void axe_ptx_cp_async_ca4(void *smem, const void *gmem)
{
    axe_emu::cp_async(smem, gmem, 4);
}
inline void axe_ptx_cp_async_ca8(void *smem, const void *gmem)
{
    axe_emu::cp_async(smem, gmem, 8);
}
inline void axe_ptx_cp_async_cg16(void *smem, const void *gmem)
{
    axe_emu::cp_async(smem, gmem, 16);
}
inline void axe_ptx_cp_async_commit(void) { axe_emu::cp_commit(); }
template <int N> inline void axe_ptx_cp_async_wait(void)
{
    axe_emu::cp_wait(N);
}

/* ---- the host API the harness uses ---------------------------------- */

inline cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = malloc(n > 0 ? n : 1);
    if (*p == nullptr)
        return cudaErrorMemoryAllocation;
    axe_emu::st().global.push_back(
        axe_emu::region{(uintptr_t)*p, (uintptr_t)*p + n});
    return cudaSuccess;
}
inline cudaError_t cudaFree(void *p)
{
    std::vector<axe_emu::region> &g = axe_emu::st().global;
    for (size_t k = 0; k < g.size(); k++)
        if (g[k].lo == (uintptr_t)p) {
            g.erase(g.begin() + (long)k);
            break;
        }
    free(p);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    memcpy(d, s, n);
    return cudaSuccess;
}
template <class T>
inline cudaError_t
cudaMemcpyToSymbolAsync(T &sym, const void *src, size_t n, size_t off = 0,
                        cudaMemcpyKind = cudaMemcpyHostToDevice,
                        cudaStream_t = nullptr)
{
    memcpy((char *)&sym + off, src, n);
    return cudaSuccess;
}
template <class T>
inline cudaError_t
cudaMemcpyFromSymbolAsync(void *dst, const T &sym, size_t n, size_t off = 0,
                          cudaMemcpyKind = cudaMemcpyDeviceToHost,
                          cudaStream_t = nullptr)
{
    memcpy(dst, (const char *)&sym + off, n);
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
/* One emulated device per process (a mesh program's rank). */
inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = 1;
    return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int d)
{
    return d == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}
template <class K>
inline cudaError_t cudaFuncSetAttribute(K, cudaFuncAttribute, int)
{
    return cudaSuccess;
}
inline cudaError_t cudaGetLastError(void)
{
    cudaError_t e = axe_emu::st().error;
    axe_emu::st().error = cudaSuccess;
    return e;
}
inline cudaError_t cudaDeviceSynchronize(void) { return axe_emu::st().error; }
inline const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess                     ? "no error"
           : e == cudaErrorInvalidValue         ? "invalid argument"
           : e == cudaErrorMemoryAllocation     ? "out of memory"
           : e == cudaErrorInvalidConfiguration ? "invalid configuration"
           : e == cudaErrorNoDevice             ? "no CUDA-capable device"
           : e == cudaErrorInvalidDevice        ? "invalid device ordinal"
           : e == cudaErrorMisalignedAddress    ? "misaligned address"
           : e == cudaErrorAssert               ? "device-side assert triggered"
           : e == cudaErrorLaunchFailure        ? "the emulated launch failed"
                                                : "unknown error";
}
inline const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess                 ? "cudaSuccess"
           : e == cudaErrorInvalidValue     ? "cudaErrorInvalidValue"
           : e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation"
           : e == cudaErrorInvalidConfiguration
               ? "cudaErrorInvalidConfiguration"
           : e == cudaErrorNoDevice          ? "cudaErrorNoDevice"
           : e == cudaErrorMisalignedAddress ? "cudaErrorMisalignedAddress"
           : e == cudaErrorAssert            ? "cudaErrorAssert"
           : e == cudaErrorLaunchFailure     ? "cudaErrorLaunchFailure"
                                             : "cudaErrorUnknown";
}
/* An event: the host clock at its last record, and the vector clock of
 * the stream that recorded it when the NCCL emulation keeps streams'
 * clocks (compiler_nccl_emu.h; empty until recorded, gone with the
 * event, so an event made anew at a freed one's address orders nothing). */
struct CUevent_st {
    clock_t t = 0;
    std::vector<uint64_t> vc;
};
namespace axe_emu
{
typedef void (*record_fn)(cudaStream_t, std::vector<uint64_t> &);
/* Set by the NCCL emulation: the recording stream's clock into "vc". */
inline record_fn &on_record()
{
    static record_fn f = nullptr;
    return f;
}
} // namespace axe_emu
inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new (std::nothrow) CUevent_st();
    return *e != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr)
{
    e->t = clock();
    if (axe_emu::on_record() != nullptr)
        axe_emu::on_record()(s, e->vc);
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)((double)(b->t - a->t) * 1000.0 / CLOCKS_PER_SEC);
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}

#endif
