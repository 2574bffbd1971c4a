/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The trn-sim simulator (docs/compiler.md, "The accelerator model"): C99
 * that the trn-sim backend's generated C includes (`axe run` writes it
 * beside the code, as the MPI runtime). It executes engine instructions
 * on arrays that model the core's memories, checks every access against
 * the machine model, and times the instructions:
 *   - memories: SBUF (partitions x the used bytes of each partition),
 *     PSUM likewise, and each HBM tensor (one row of its bytes); a
 *     tensor ("ax_trn_buf") is a byte offset in every partition of its
 *     memory, its partitions, free elements and element size, and
 *     element (p, f) of it is byte off + f * esize of partition p;
 *   - instructions: a DMA descriptor (ax_trn_dma, HBM <-> SBUF or SBUF
 *     -> SBUF), a vector-engine move (ax_trn_move, between scratchpads,
 *     partitions kept), a TensorEngine matmul (ax_trn_matmul) and
 *     transpose (ax_trn_transpose, SBUF -> PSUM against the identity),
 *     and an instruction of the vector or scalar engine whose element
 *     loop is the generated C's (ax_trn_begin, ax_trn_el per access,
 *     ax_trn_end: the access macros of the trn-sim backend); each
 *     checks its shape against the model and each element it touches
 *     against its tensor and the model (partition range, free range,
 *     capacity, alignment, a matmul's PSUM bank), and on the first
 *     failure records the instruction and the limit and runs nothing
 *     more (ax_trn_finish returns 1 and keeps it; ax_trn_report prints
 *     it and exits 1 in the harness);
 *   - timing: the engines (tensor, vector, scalar, the DMA queues in and
 *     out) run concurrently, each in program order; an instruction
 *     starts when its engine is free, every byte it reads has been
 *     written (RAW) and every byte it writes has been read and written
 *     by the instructions before it (WAR, WAW): the semaphores of the
 *     core, per byte; it takes the model's cycles for its shape (DMA:
 *     dma_fixed_cycles + ceil(bytes / dma_bytes_per_cycle); move:
 *     vector_fixed_cycles + ceil(elements per partition /
 *     vector_elems_per_cycle), an engine instruction the same with its
 *     elements written per partition; matmul: matmul_fixed_cycles + N,
 *     one column of the moving tile per cycle; transpose: the same with
 *     N = K). The run's cycles are the last finish.
 * Invariant: the data effect of the instructions is their program
 * order's; the timing only says when each would run.
 */
#ifndef AXE_COMPILER_TRN_SIM_H
#define AXE_COMPILER_TRN_SIM_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    AX_TRN_TENSOR,
    AX_TRN_VECTOR,
    AX_TRN_SCALAR,
    AX_TRN_DMA_IN,
    AX_TRN_DMA_OUT,
    AX_TRN_NENGINES
};
static const char *const ax_trn_engine_name[AX_TRN_NENGINES] = {
    "tensor", "vector", "scalar", "dma_in", "dma_out"};

/* Element types of matmul operands. */
enum { AX_TRN_F32, AX_TRN_F16, AX_TRN_BF16 };

/* The machine model's fields (axe_trn_model). */
typedef struct ax_trn_model {
    long long partitions, sbuf_partition_bytes, psum_partition_bytes,
        psum_bank_bytes, matmul_max_m, matmul_max_n, matmul_max_k,
        matmul_fixed_cycles, vector_fixed_cycles, vector_elems_per_cycle,
        dma_fixed_cycles, dma_bytes_per_cycle;
} ax_trn_model;

/* Memories: SBUF, PSUM, then the HBM tensors. */
enum { AX_TRN_SBUF, AX_TRN_PSUM, AX_TRN_HBM0 };

typedef struct ax_trn_mem {
    unsigned char *data;
    long long parts, row;     /* partitions (HBM: 1), bytes per partition */
    long long *wdone, *rdone; /* per byte: last write's, reads' finish */
} ax_trn_mem;

/* A tensor: memory "mem", byte "off" of each partition, partitions
 * [0, parts), free elements [0, fspan) of "esize" bytes. */
typedef struct ax_trn_buf {
    const char *name;
    int mem, dtype;
    long long off, parts, fspan, esize;
} ax_trn_buf;

/* A descriptor (compiler_internal.h, ax_trn_desc): base (p_src, f_src,
 * p_dst, f_dst) and up to 4 levels, outermost first. */
typedef struct ax_trn_d {
    long long base[4];
    int nlev;
    long long n[4];
    long long step[4][4];
} ax_trn_d;

/* An access of an engine instruction in flight: "n" bytes at "a" of
 * memory "mem", written or read. */
typedef struct ax_trn_acc {
    int mem, write;
    long long a, n;
} ax_trn_acc;

/* An engine instruction in flight (ax_trn_begin .. ax_trn_end): its
 * engine, name, earliest start so far, elements written, partitions
 * written ("lane" marks them) and accesses. */
typedef struct ax_trn_open {
    int on, engine;
    const char *what;
    long long ready, stores, nparts;
    unsigned char *lane;
    ax_trn_acc *acc;
    long long nacc, cap;
} ax_trn_open;

typedef struct ax_trn_sim {
    ax_trn_model m;
    int nmem;
    ax_trn_mem *mem;
    long long free_at[AX_TRN_NENGINES], busy[AX_TRN_NENGINES];
    long long count[AX_TRN_NENGINES], cycles;
    long long inst; /* the running instruction's index in its operator */
    ax_trn_open op;
    int failed;
    char err[512];
} ax_trn_sim;

static inline void ax_trn_fail(ax_trn_sim *s, const char *fmt, ...)
{
    va_list ap;
    if (s->failed)
        return;
    s->failed = 1;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
}

static inline int ax_trn_mem_init(ax_trn_sim *s, int k, long long parts,
                                  long long row, void *data)
{
    ax_trn_mem *x = &s->mem[k];
    size_t n = (size_t)(parts * row);
    x->parts = parts;
    x->row = row;
    x->data = data != NULL ? (unsigned char *)data : calloc(n ? n : 1, 1);
    x->wdone = calloc(n ? n : 1, sizeof *x->wdone);
    x->rdone = calloc(n ? n : 1, sizeof *x->rdone);
    if (x->data == NULL || x->wdone == NULL || x->rdone == NULL) {
        ax_trn_fail(s, "trn-sim: out of memory");
        return 1;
    }
    return 0;
}

/* A simulator of model "m" with "sbuf" and "psum" bytes used per
 * partition and "nhbm" HBM tensors (registered by ax_trn_hbm). */
static inline void ax_trn_init(ax_trn_sim *s, const ax_trn_model *m,
                               long long sbuf, long long psum, int nhbm)
{
    memset(s, 0, sizeof *s);
    s->m = *m;
    s->nmem = AX_TRN_HBM0 + nhbm;
    s->mem = calloc((size_t)s->nmem, sizeof *s->mem);
    if (s->mem == NULL) {
        ax_trn_fail(s, "trn-sim: out of memory");
        return;
    }
    if (sbuf > m->sbuf_partition_bytes || psum > m->psum_partition_bytes) {
        ax_trn_fail(s,
                    "trn-sim: the tensors take %lld SBUF and %lld PSUM bytes "
                    "per partition, beyond the model's %lld and %lld",
                    sbuf, psum, m->sbuf_partition_bytes,
                    m->psum_partition_bytes);
        return;
    }
    /* rows of whole 8-byte words: every element aligned for its type */
    s->op.lane = calloc((size_t)m->partitions, 1);
    if (s->op.lane == NULL) {
        ax_trn_fail(s, "trn-sim: out of memory");
        return;
    }
    if (ax_trn_mem_init(s, AX_TRN_SBUF, m->partitions, (sbuf + 7) / 8 * 8,
                        NULL) == 0)
        (void)ax_trn_mem_init(s, AX_TRN_PSUM, m->partitions, (psum + 7) / 8 * 8,
                              NULL);
}

/* HBM tensor "k" (memory AX_TRN_HBM0 + k): "bytes" at "data". */
static inline void ax_trn_hbm(ax_trn_sim *s, int k, void *data, long long bytes)
{
    if (!s->failed)
        (void)ax_trn_mem_init(s, AX_TRN_HBM0 + k, 1, bytes, data);
}

/* Tensor "b" fits its memory and the model: its partitions, its bytes
 * per partition, its element alignment (a PSUM tensor: at a bank). */
static inline void ax_trn_check_buf(ax_trn_sim *s, const ax_trn_buf *b)
{
    const ax_trn_mem *x = &s->mem[b->mem];
    if (s->failed)
        return;
    if (b->parts > x->parts || b->off < 0 ||
        b->off + b->fspan * b->esize > x->row)
        ax_trn_fail(s,
                    "trn-sim: tensor '%s' (%lld partitions x %lld bytes at "
                    "byte %lld) does not fit its memory (%lld x %lld)",
                    b->name, b->parts, b->fspan * b->esize, b->off, x->parts,
                    x->row);
    else if (b->off % b->esize != 0 ||
             (b->mem == AX_TRN_PSUM && b->off % s->m.psum_bank_bytes != 0))
        ax_trn_fail(s,
                    "trn-sim: tensor '%s' at byte %lld is not aligned to "
                    "%lld bytes",
                    b->name, b->off,
                    b->mem == AX_TRN_PSUM ? s->m.psum_bank_bytes : b->esize);
}

/* The byte of element (p, f) of "b", or -1 (and the failure) outside it
 * or the model. */
static inline long long ax_trn_at(ax_trn_sim *s, const char *what,
                                  const ax_trn_buf *b, long long p, long long f)
{
    const ax_trn_mem *x = &s->mem[b->mem];
    if (p < 0 || p >= b->parts || p >= x->parts) {
        ax_trn_fail(s,
                    "trn-sim: %s %lld: partition %lld of '%s' outside its "
                    "partitions 0..%lld (the model has %lld)",
                    what, s->inst, p, b->name, b->parts - 1,
                    b->mem == AX_TRN_SBUF || b->mem == AX_TRN_PSUM
                        ? s->m.partitions
                        : 1LL);
        return -1;
    }
    if (f < 0 || f >= b->fspan) {
        ax_trn_fail(
            s, "trn-sim: %s %lld: free element %lld of '%s' outside 0..%lld",
            what, s->inst, f, b->name, b->fspan - 1);
        return -1;
    }
    return p * x->row + b->off + f * b->esize;
}

/* The start of an access of "n" bytes at "a" of memory "k": after its
 * writer, and for a write after its readers too. */
static inline long long ax_trn_ready(const ax_trn_sim *s, int k, long long a,
                                     long long n, int write, long long t)
{
    const ax_trn_mem *x = &s->mem[k];
    for (long long i = a; i < a + n; i++) {
        if (x->wdone[i] > t)
            t = x->wdone[i];
        if (write && x->rdone[i] > t)
            t = x->rdone[i];
    }
    return t;
}

static inline void ax_trn_done(ax_trn_sim *s, int k, long long a, long long n,
                               int write, long long t)
{
    ax_trn_mem *x = &s->mem[k];
    for (long long i = a; i < a + n; i++) {
        if (write)
            x->wdone[i] = t;
        else if (x->rdone[i] < t)
            x->rdone[i] = t;
    }
}

/* Engine "e" runs an instruction of "cycles" that can start at "ready";
 * its finish. */
static inline long long ax_trn_issue(ax_trn_sim *s, int e, long long ready,
                                     long long cycles)
{
    long long start = ready > s->free_at[e] ? ready : s->free_at[e];
    s->free_at[e] = start + cycles;
    s->busy[e] += cycles;
    s->count[e]++;
    if (s->free_at[e] > s->cycles)
        s->cycles = s->free_at[e];
    return start + cycles;
}

/* The elements of descriptor "d" and its shape checks: at most one
 * level moves a side's partition and it keeps that side's free element;
 * "same_p": every element keeps its partition (a vector move). */
static inline long long ax_trn_desc_check(ax_trn_sim *s, const char *what,
                                          const ax_trn_d *d, int same_p,
                                          long long *parts)
{
    long long n = 1;
    int side, l, np;
    *parts = 1;
    if (d->nlev < 0 || d->nlev > 4) {
        ax_trn_fail(s, "trn-sim: %s %lld: %d levels, beyond 4", what, s->inst,
                    d->nlev);
        return 0;
    }
    for (side = 0; side < 2; side++) {
        for (np = 0, l = 0; l < d->nlev; l++)
            if (d->step[l][2 * side] != 0) {
                np++;
                *parts = d->n[l];
                if (d->step[l][2 * side + 1] != 0)
                    np = 2;
            }
        if (np > 1) {
            ax_trn_fail(s,
                        "trn-sim: %s %lld: the %s side is no partition range "
                        "(one level of partitions, free element fixed)",
                        what, s->inst, side ? "destination" : "source");
            return 0;
        }
    }
    if (same_p) {
        int ok = d->base[0] == d->base[2];
        for (l = 0; l < d->nlev; l++)
            ok = ok && d->step[l][0] == d->step[l][2];
        if (!ok) {
            ax_trn_fail(s,
                        "trn-sim: %s %lld: the vector engine keeps "
                        "partitions, this move changes them",
                        what, s->inst);
            return 0;
        }
    }
    for (l = 0; l < d->nlev; l++)
        n *= d->n[l];
    return n;
}

/* Element "e" of "d" (levels' indices from e, innermost fastest) into
 * "pt". */
static inline void ax_trn_elem(const ax_trn_d *d, long long e, long long *pt)
{
    int k, l;
    for (k = 0; k < 4; k++)
        pt[k] = d->base[k];
    for (l = d->nlev - 1; l >= 0; l--) {
        long long i = e % d->n[l];
        e /= d->n[l];
        for (k = 0; k < 4; k++)
            pt[k] += i * d->step[l][k];
    }
}

/* Move descriptor "d" from "src" to "dst" on engine "e". */
static inline void ax_trn_copy(ax_trn_sim *s, const char *what, int e,
                               const ax_trn_buf *src, const ax_trn_buf *dst,
                               const ax_trn_d *d, long long cycles_of_bytes)
{
    long long parts, n, i, pt[4], a, b, ready = 0, fin, cyc;
    if (s->failed)
        return;
    n = ax_trn_desc_check(s, what, d, e == AX_TRN_VECTOR, &parts);
    if (src->esize != dst->esize)
        ax_trn_fail(s, "trn-sim: %s %lld: elements of %lld and %lld bytes",
                    what, s->inst, src->esize, dst->esize);
    for (i = 0; i < n && !s->failed; i++) {
        ax_trn_elem(d, i, pt);
        a = ax_trn_at(s, what, src, pt[0], pt[1]);
        b = ax_trn_at(s, what, dst, pt[2], pt[3]);
        if (a >= 0 && b >= 0) {
            ready = ax_trn_ready(s, src->mem, a, src->esize, 0, ready);
            ready = ax_trn_ready(s, dst->mem, b, dst->esize, 1, ready);
        }
    }
    if (s->failed)
        return;
    if (e == AX_TRN_VECTOR)
        cyc = s->m.vector_fixed_cycles +
              (n / parts + s->m.vector_elems_per_cycle - 1) /
                  s->m.vector_elems_per_cycle;
    else
        cyc = s->m.dma_fixed_cycles +
              (cycles_of_bytes + s->m.dma_bytes_per_cycle - 1) /
                  s->m.dma_bytes_per_cycle;
    fin = ax_trn_issue(s, e, ready, cyc);
    for (i = 0; i < n; i++) {
        ax_trn_elem(d, i, pt);
        a = ax_trn_at(s, what, src, pt[0], pt[1]);
        b = ax_trn_at(s, what, dst, pt[2], pt[3]);
        memmove(&s->mem[dst->mem].data[b], &s->mem[src->mem].data[a],
                (size_t)src->esize);
        ax_trn_done(s, src->mem, a, src->esize, 0, fin);
        ax_trn_done(s, dst->mem, b, dst->esize, 1, fin);
    }
}

/* A DMA descriptor (the queue out when the destination is in HBM, else
 * the queue in). */
static inline void ax_trn_dma(ax_trn_sim *s, const char *what,
                              const ax_trn_buf *src, const ax_trn_buf *dst,
                              const ax_trn_d *d)
{
    long long n = 1;
    for (int l = 0; l < d->nlev && l < 4; l++)
        n *= d->n[l];
    if (!s->failed && (src->mem == AX_TRN_PSUM || dst->mem == AX_TRN_PSUM))
        ax_trn_fail(s, "trn-sim: %s %lld: DMA does not reach PSUM ('%s')", what,
                    s->inst, src->mem == AX_TRN_PSUM ? src->name : dst->name);
    ax_trn_copy(s, what,
                dst->mem >= AX_TRN_HBM0 ? AX_TRN_DMA_OUT : AX_TRN_DMA_IN, src,
                dst, d, n * src->esize);
}

/* A vector-engine move between scratchpads. */
static inline void ax_trn_move(ax_trn_sim *s, const char *what,
                               const ax_trn_buf *src, const ax_trn_buf *dst,
                               const ax_trn_d *d)
{
    if (!s->failed && (src->mem >= AX_TRN_HBM0 || dst->mem >= AX_TRN_HBM0))
        ax_trn_fail(s,
                    "trn-sim: %s %lld: the vector engine does not reach "
                    "HBM",
                    what, s->inst);
    ax_trn_copy(s, what, AX_TRN_VECTOR, src, dst, d, 0);
}

/* A TensorE transpose of descriptor "d" (compiler_internal.h,
 * ax_trn_copy): the source tile of SBUF (K partitions, the level that
 * steps the source's partition by 1, x M free elements, the level that
 * steps the destination's) times the K x K identity into an M x K tile
 * of PSUM, each destination row inside one bank. The identity's products
 * x * 1 and sums with 0 leave every finite x as it is, so the move is
 * exact: the elements are copied. matmul_fixed_cycles + K (N = K
 * columns) on the tensor engine. */
static inline void ax_trn_transpose(ax_trn_sim *s, const char *what,
                                    const ax_trn_buf *src,
                                    const ax_trn_buf *dst, const ax_trn_d *d)
{
    long long k = 1, m = 1, bank = -1, pt[4], a, b, i, n, ready = 0, fin;
    int l;
    if (s->failed)
        return;
    if (src->mem != AX_TRN_SBUF || dst->mem != AX_TRN_PSUM || dst->esize != 4 ||
        src->esize != 4 || d->nlev > 2) {
        ax_trn_fail(s,
                    "trn-sim: %s %lld: a transpose reads f32 SBUF into PSUM "
                    "in at most 2 levels",
                    what, s->inst);
        return;
    }
    for (l = 0; l < d->nlev; l++)
        if (d->step[l][0] == 1 && d->step[l][2] == 0)
            k = d->n[l];
        else if (d->step[l][2] == 1 && d->step[l][0] == 0)
            m = d->n[l];
        else
            k = -1;
    if (k < 1 || k > s->m.matmul_max_k || k > s->m.matmul_max_n ||
        m > s->m.matmul_max_m) {
        ax_trn_fail(s,
                    "trn-sim: %s %lld: no transpose within the model's "
                    "matmul (K partitions by 1 up to %lld, M up to %lld)",
                    what, s->inst, s->m.matmul_max_k, s->m.matmul_max_m);
        return;
    }
    n = k * m;
    for (i = 0; i < n && !s->failed; i++) {
        ax_trn_elem(d, i, pt);
        a = ax_trn_at(s, what, src, pt[0], pt[1]);
        b = ax_trn_at(s, what, dst, pt[2], pt[3]);
        if (a < 0 || b < 0)
            break;
        if (bank < 0)
            bank = (pt[3] * 4) / s->m.psum_bank_bytes;
        else if ((pt[3] * 4) / s->m.psum_bank_bytes != bank)
            ax_trn_fail(s,
                        "trn-sim: %s %lld: a row of '%s' crosses a PSUM bank "
                        "of %lld bytes",
                        what, s->inst, dst->name, s->m.psum_bank_bytes);
        ready = ax_trn_ready(s, AX_TRN_SBUF, a, 4, 0, ready);
        ready = ax_trn_ready(s, AX_TRN_PSUM, b, 4, 1, ready);
    }
    if (s->failed)
        return;
    fin = ax_trn_issue(s, AX_TRN_TENSOR, ready, s->m.matmul_fixed_cycles + k);
    for (i = 0; i < n; i++) {
        ax_trn_elem(d, i, pt);
        a = ax_trn_at(s, what, src, pt[0], pt[1]);
        b = ax_trn_at(s, what, dst, pt[2], pt[3]);
        memmove(&s->mem[AX_TRN_PSUM].data[b], &s->mem[AX_TRN_SBUF].data[a], 4);
        ax_trn_done(s, AX_TRN_SBUF, a, 4, 0, fin);
        ax_trn_done(s, AX_TRN_PSUM, b, 4, 1, fin);
    }
}

/* An instruction of engine "e" (AX_TRN_VECTOR, AX_TRN_SCALAR) whose
 * element loop, run next, reaches its operands through ax_trn_el. */
static inline void ax_trn_begin(ax_trn_sim *s, const char *what, int e)
{
    ax_trn_open *o = &s->op;
    if (o->on)
        ax_trn_fail(s, "trn-sim: %s: begins inside %s", what, o->what);
    o->on = 1;
    o->engine = e;
    o->what = what;
    o->ready = o->stores = o->nparts = o->nacc = 0;
    if (o->lane != NULL)
        memset(o->lane, 0, (size_t)s->m.partitions);
    s->inst = 0;
}

/* The bytes of storage index "i" (partition i / fspan, free element i %
 * fspan) of "b", checked against the tensor and the model, read or
 * written ("write") by the instruction in flight: its start waits for
 * the byte's writer (and readers, for a write), and the access is kept
 * for ax_trn_end. After a failure, a scratch word. */
static inline void *ax_trn_el(ax_trn_sim *s, const ax_trn_buf *b, long long i,
                              int write)
{
    static long long scratch[2];
    ax_trn_open *o = &s->op;
    const char *what = o->on ? o->what : "access";
    long long a;
    ax_trn_acc *m;
    if (s->failed)
        return scratch;
    if (i < 0) {
        ax_trn_fail(s, "trn-sim: %s: index %lld of '%s' is negative", what, i,
                    b->name);
        return scratch;
    }
    if ((a = ax_trn_at(s, what, b, i / b->fspan, i % b->fspan)) < 0)
        return scratch;
    if (!o->on)
        return &s->mem[b->mem].data[a];
    if (o->nacc == o->cap) {
        long long cap = o->cap ? 2 * o->cap : 1024;
        m = realloc(o->acc, (size_t)cap * sizeof *m);
        if (m == NULL) {
            ax_trn_fail(s, "trn-sim: out of memory");
            return scratch;
        }
        o->acc = m;
        o->cap = cap;
    }
    m = &o->acc[o->nacc++];
    m->mem = b->mem;
    m->write = write;
    m->a = a;
    m->n = b->esize;
    o->ready = ax_trn_ready(s, b->mem, a, b->esize, write, o->ready);
    if (write) {
        o->stores++;
        if (b->mem < AX_TRN_HBM0 && !o->lane[i / b->fspan]) {
            o->lane[i / b->fspan] = 1;
            o->nparts++;
        }
    }
    return &s->mem[b->mem].data[a];
}

/* The end of the instruction in flight: it runs on its engine for
 * vector_fixed_cycles + ceil(E / vector_elems_per_cycle), E the elements
 * it wrote per partition written (the scalar engine has the vector
 * engine's costs), and its accesses finish then. */
static inline void ax_trn_end(ax_trn_sim *s)
{
    ax_trn_open *o = &s->op;
    long long parts = o->nparts > 0 ? o->nparts : 1, e, fin, k;
    o->on = 0;
    if (s->failed)
        return;
    e = (o->stores + parts - 1) / parts;
    fin = ax_trn_issue(s, o->engine, o->ready,
                       s->m.vector_fixed_cycles +
                           (e + s->m.vector_elems_per_cycle - 1) /
                               s->m.vector_elems_per_cycle);
    for (k = 0; k < o->nacc; k++)
        ax_trn_done(s, o->acc[k].mem, o->acc[k].a, o->acc[k].n, o->acc[k].write,
                    fin);
}

static inline float ax_trn_f16(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31u,
             m = h & 1023u, bits;
    float f;
    if (e == 0) { /* zero or subnormal: m * 2^-24 */
        f = (float)m / 16777216.0f;
        return sign ? -f : f;
    }
    bits = sign |
           (e == 31 ? 0x7f800000u | (m << 13) : ((e + 112u) << 23) | (m << 13));
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* Element at byte "a" of memory "k" of type "ty" as float. */
static inline float ax_trn_load(const ax_trn_sim *s, int k, long long a, int ty)
{
    const unsigned char *p = &s->mem[k].data[a];
    uint32_t u = 0;
    uint16_t h;
    float f;
    if (ty == AX_TRN_F32) {
        memcpy(&f, p, sizeof f);
        return f;
    }
    memcpy(&h, p, sizeof h);
    if (ty == AX_TRN_F16)
        return ax_trn_f16(h);
    u = (uint32_t)h << 16;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The byte of row "r", column "c" of a tile at storage address "base"
 * (partition-major: address / fspan is the partition) of "b". */
static inline long long ax_trn_tile(ax_trn_sim *s, const char *what,
                                    const ax_trn_buf *b, long long base,
                                    long long r, long long rs, long long c,
                                    long long cs)
{
    long long a = base + r * rs + c * cs;
    if (a < 0) {
        ax_trn_fail(s, "trn-sim: %s %lld: address %lld of '%s' is negative",
                    what, s->inst, a, b->name);
        return -1;
    }
    return ax_trn_at(s, what, b, a / b->fspan, a % b->fspan);
}

/* A TensorEngine matmul: C tile (m x n, PSUM f32) += A tile (k x m)^T
 * B tile (k x n) (SBUF, types "ta" and "tb"); tile t at storage address
 * base[t], row r at + r * rs[t], column c at + c * cs[t]. */
static inline void ax_trn_matmul(ax_trn_sim *s, const char *what,
                                 const ax_trn_buf *bc, const ax_trn_buf *ba,
                                 const ax_trn_buf *bb, const long *base,
                                 long long m, long long n, long long k,
                                 const long long *rs, const long long *cs,
                                 int ta, int tb)
{
    long long r, i, j, a, ready = 0, fin, bank0 = -1;
    if (s->failed)
        return;
    if (m < 1 || n < 1 || k < 1 || m > s->m.matmul_max_m ||
        n > s->m.matmul_max_n || k > s->m.matmul_max_k) {
        ax_trn_fail(s,
                    "trn-sim: %s %lld: matmul %lld x %lld x %lld outside the "
                    "model's 1..%lld x 1..%lld x 1..%lld",
                    what, s->inst, m, n, k, s->m.matmul_max_m,
                    s->m.matmul_max_n, s->m.matmul_max_k);
        return;
    }
    if (bc->mem != AX_TRN_PSUM || ba->mem != AX_TRN_SBUF ||
        bb->mem != AX_TRN_SBUF || bc->esize != 4) {
        ax_trn_fail(s,
                    "trn-sim: %s %lld: a matmul reads SBUF and "
                    "accumulates f32 in PSUM",
                    what, s->inst);
        return;
    }
    for (i = 0; i < m && !s->failed; i++)
        for (j = 0; j < n && !s->failed; j++) {
            a = ax_trn_tile(s, what, bc, base[2], i, rs[2], j, cs[2]);
            if (a < 0)
                break;
            if (j == 0)
                bank0 = (a % s->mem[AX_TRN_PSUM].row) / s->m.psum_bank_bytes;
            else if ((a % s->mem[AX_TRN_PSUM].row) / s->m.psum_bank_bytes !=
                     bank0)
                ax_trn_fail(s,
                            "trn-sim: %s %lld: row %lld of C ('%s') crosses a "
                            "PSUM bank of %lld bytes",
                            what, s->inst, i, bc->name, s->m.psum_bank_bytes);
            ready = ax_trn_ready(s, AX_TRN_PSUM, a, 4, 1, ready);
        }
    for (r = 0; r < k && !s->failed; r++) {
        for (i = 0; i < m && !s->failed; i++)
            if ((a = ax_trn_tile(s, what, ba, base[0], r, rs[0], i, cs[0])) >=
                0)
                ready = ax_trn_ready(s, AX_TRN_SBUF, a, ba->esize, 0, ready);
        for (j = 0; j < n && !s->failed; j++)
            if ((a = ax_trn_tile(s, what, bb, base[1], r, rs[1], j, cs[1])) >=
                0)
                ready = ax_trn_ready(s, AX_TRN_SBUF, a, bb->esize, 0, ready);
    }
    if (s->failed)
        return;
    fin = ax_trn_issue(s, AX_TRN_TENSOR, ready, s->m.matmul_fixed_cycles + n);
    for (r = 0; r < k; r++)
        for (i = 0; i < m; i++)
            for (j = 0; j < n; j++) {
                long long ac =
                    ax_trn_tile(s, what, bc, base[2], i, rs[2], j, cs[2]);
                long long aa =
                    ax_trn_tile(s, what, ba, base[0], r, rs[0], i, cs[0]);
                long long ab =
                    ax_trn_tile(s, what, bb, base[1], r, rs[1], j, cs[1]);
                float c, x = ax_trn_load(s, AX_TRN_SBUF, aa, ta),
                         y = ax_trn_load(s, AX_TRN_SBUF, ab, tb);
                memcpy(&c, &s->mem[AX_TRN_PSUM].data[ac], sizeof c);
                c = (float)(c + x * y);
                memcpy(&s->mem[AX_TRN_PSUM].data[ac], &c, sizeof c);
                if (j == 0)
                    ax_trn_done(s, AX_TRN_SBUF, aa, ba->esize, 0, fin);
                if (i == 0)
                    ax_trn_done(s, AX_TRN_SBUF, ab, bb->esize, 0, fin);
                if (r == 0)
                    ax_trn_done(s, AX_TRN_PSUM, ac, 4, 1, fin);
            }
}

/* The run's end: the memories freed; 1 if the run failed (s->err holds
 * the first failure, its instruction and the limit), else 0 (s->cycles,
 * s->count and s->busy hold its timing). It neither prints nor exits:
 * the generated kernel's k_NAME_trn_error and k_NAME_trn_cycles hand
 * the outcome to a caller (axe.kernel in Python), and its harness main
 * prints it (ax_trn_report). */
static inline int ax_trn_finish(ax_trn_sim *s)
{
    int k;
    for (k = 0; s->mem != NULL && k < s->nmem; k++) {
        if (k < AX_TRN_HBM0)
            free(s->mem[k].data);
        free(s->mem[k].wdone);
        free(s->mem[k].rdone);
    }
    free(s->mem);
    s->mem = NULL;
    free(s->op.lane);
    free(s->op.acc);
    s->op.lane = NULL;
    s->op.acc = NULL;
    return s->failed;
}

/* Whether a run of this program reported its cycles (the first does:
 * every run has the same, and a timed run repeats the kernel). */
static int ax_trn_reported;

/* The harness's report of a finished run (axe run reads it): on a
 * failure its message on stderr and exit 1; else, on the first run,
 * "axe-trn-cycles TOTAL" and per engine "axe-trn-engine NAME
 * INSTRUCTIONS BUSY" on stderr. */
static inline void ax_trn_report(const ax_trn_sim *s)
{
    int k;
    if (s->failed) {
        fprintf(stderr, "%s\n", s->err);
        exit(1);
    }
    for (k = 0; !ax_trn_reported && k <= AX_TRN_NENGINES; k++)
        if (k == 0)
            fprintf(stderr, "axe-trn-cycles %lld\n", s->cycles);
        else
            fprintf(stderr, "axe-trn-engine %s %lld %lld\n",
                    ax_trn_engine_name[k - 1], s->count[k - 1], s->busy[k - 1]);
    ax_trn_reported = 1;
}

#endif
