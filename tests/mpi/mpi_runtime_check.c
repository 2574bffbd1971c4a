/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MPI runtime (src/compiler/backend/mpi/compiler_mpi_rt.h) against
 * brute force, run by tests/compiler_mpi.sh under mpirun at 1, 2, 4 and 8
 * ranks. Each case is a hand-written digit table (sized from P); every
 * rank fills the elements it owns (every source replica) with values of
 * their logical index, runs the exchange twice (the second time on new
 * values, through the kept schedule; f32 and f64 a third time, on values
 * whose sum depends on the order), and checks, by enumerating every
 * element and every holder, that each element it holds has its value, bit
 * for bit (a reduce: the fold in the reference's order, in the dtype:
 * each slice of the reduced device digits over its reduced memory digits
 * in order of k, then the slices in order of k), that nothing else in its
 * buffer was
 * written, and that it received exactly the elements it holds but does
 * not own. The collective chosen is checked where the table implies one,
 * and the schedule built without host buffers (AXE_MPI_BUILD_NOHOST, the
 * NCCL path's) is the same one with none allocated.
 * Tabled digits (the planner's general case) are read by brute force as
 * the contract says: value v's parts are tab[4v .. 4v+3].
 */
#include "compiler_mpi_rt.h"

#include <math.h>

#define SENTINEL (-77.0)
#define MAX_CASES 32 /* cases() writes at most this many */

typedef struct tcase {
    const char *name;
    axe_mpi_digit d[8];
    axe_mpi_rep srep[2], drep[2];
    axe_mpi_plan p;
    int expect;       /* a path, or -1 for any */
    int64_t tab[256]; /* a tabled digit's parts, 4 per value */
} tcase;

static axe_mpi_digit dg(int64_t e, int64_t sd, int64_t sm, int64_t dd,
                        int64_t dm, int red)
{
    axe_mpi_digit d = {e, sd, sm, dd, dm, 0, red, NULL};
    return d;
}

static void finish(tcase *c, int nd, int ns, int nr, int64_t ssz, int64_t dsz,
                   int op, int dtype, int expect)
{
    c->p.ndev = 0, c->p.ndigits = nd, c->p.nsrc_rep = ns, c->p.ndst_rep = nr;
    c->p.digit = c->d, c->p.src_rep = c->srep, c->p.dst_rep = c->drep;
    c->p.src_size = ssz, c->p.dst_size = dsz, c->p.op = op;
    c->p.dtype = dtype, c->expect = expect;
}

/* A tabled digit of extent "e" in "c" (reduced: 0) whose value v has
 * the parts f(v, P) (src dev, src m, dst dev, dst m). */
typedef void (*parts_fn)(int64_t v, int P, int64_t *out);

static axe_mpi_digit tabled(tcase *c, int64_t e, int P, parts_fn f)
{
    axe_mpi_digit d = {e, 0, 0, 0, 0, 0, 0, c->tab};
    int64_t v;
    for (v = 0; v < e; v++)
        f(v, P, c->tab + 4 * v);
    return d;
}

/* [6P] in blocks of 6 (2:1 inside the block) -> (2, P, 3):(3, 1@gpuid, 1):
 * no common refinement of (P, 6) and (2, P, 3) for odd P. */
static void blocks_to_tiles(int64_t v, int P, int64_t *o)
{
    o[0] = v / 6, o[1] = 2 * (v % 6);
    o[2] = v / 3 % P, o[3] = 2 * (v / (3 * P) * 3 + v % 3);
}

/* [6] all in memory -> (3, Q):(1, 1@gpuid), Q = 2 when P >= 2. */
static void mem_to_cyclic(int64_t v, int P, int64_t *o)
{
    int64_t q = P >= 2 ? 2 : 1;
    o[0] = 0, o[1] = v, o[2] = v % q, o[3] = v / q;
}

/* The cases at P devices; returns how many. */
static int cases(tcase *c, int P)
{
    int n = 0, Q = P / 2;
    memset(c, 0, MAX_CASES * sizeof *c);
    c[n].name = "allgather [4P,3]", c[n].d[0] = dg(P, 1, 0, 0, 12, 0);
    c[n].d[1] = dg(4, 0, 3, 0, 3, 0), c[n].d[2] = dg(3, 0, 1, 0, 1, 0);
    c[n].drep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 3, 0, 1, 12, 12 * P, AXE_MPI_COPY, AXE_MPI_F32,
           AXE_MPI_PATH_ALLGATHER);
    c[n].name = "broadcast [5,3] from P-1", c[n].d[0] = dg(5, 0, 3, 0, 3, 0);
    c[n].d[1] = dg(3, 0, 1, 0, 1, 0), c[n].drep[0] = (axe_mpi_rep){P, 1};
    c[n].p.src_dev0 = P - 1;
    finish(&c[n++], 2, 0, 1, 15, 15, AXE_MPI_COPY, AXE_MPI_F64,
           AXE_MPI_PATH_BCAST);
    c[n].name = "scatter [6P] from 0", c[n].d[0] = dg(P, 0, 6, 1, 0, 0);
    c[n].d[1] = dg(6, 0, 1, 0, 1, 0);
    finish(&c[n++], 2, 0, 0, 6 * P, 6, AXE_MPI_COPY, AXE_MPI_I32,
           AXE_MPI_PATH_ALLTOALLV_DIRECT);
    c[n].name = "gather [6P] to 1%P at m 5", c[n].d[0] = dg(P, 1, 0, 0, 6, 0);
    c[n].d[1] = dg(6, 0, 1, 0, 1, 0), c[n].p.dst_dev0 = 1 % P;
    c[n].p.dst_m0 = 5;
    finish(&c[n++], 2, 0, 0, 6, 6 * P + 5, AXE_MPI_COPY, AXE_MPI_I8,
           AXE_MPI_PATH_ALLTOALLV_DIRECT);
    c[n].name = "all-to-all [2P,3P] rows->cols";
    c[n].d[0] = dg(P, 1, 0, 0, 6, 0), c[n].d[1] = dg(2, 0, 3 * P, 0, 3, 0);
    c[n].d[2] = dg(P, 0, 3, 1, 0, 0), c[n].d[3] = dg(3, 0, 1, 0, 1, 0);
    finish(&c[n++], 4, 0, 0, 6 * P, 6 * P, AXE_MPI_COPY, AXE_MPI_F32,
           AXE_MPI_PATH_ALLTOALLV);
    c[n].name = "block->cyclic [8P]", c[n].d[0] = dg(P, 1, 0, 0, 8 / P, 0);
    c[n].d[1] = dg(8 / P, 0, P, 0, 1, 0), c[n].d[2] = dg(P, 0, 1, 1, 0, 0);
    finish(&c[n++], 3, 0, 0, 8, 8, AXE_MPI_COPY, AXE_MPI_F16, -1);
    /* the pack gathers, the unpack scatters, single elements at a
     * stride (axe_mpi_copy_elems: each element size, each side) */
    c[n].name = "cyclic->block [16P] f64";
    c[n].d[0] = dg(P, 0, 16 / P, 1, 0, 0),
    c[n].d[1] = dg(16 / P, 0, 1, 0, P, 0);
    c[n].d[2] = dg(P, 1, 0, 0, 1, 0);
    finish(&c[n++], 3, 0, 0, 16, 16, AXE_MPI_COPY, AXE_MPI_F64, -1);
    c[n].name = "strided both sides [P,P,2] i8",
    c[n].d[0] = dg(P, 1, 0, 0, 6, 0);
    c[n].d[1] = dg(P, 0, 4, 1, 0, 0), c[n].d[2] = dg(2, 0, 2, 0, 3, 0);
    finish(&c[n++], 3, 0, 0, 4 * P, 6 * P, AXE_MPI_COPY, AXE_MPI_I8, -1);
    c[n].name = "strided both sides [P,P,2] f16", c[n].d[0] = c[n - 1].d[0];
    c[n].d[1] = c[n - 1].d[1], c[n].d[2] = c[n - 1].d[2];
    finish(&c[n++], 3, 0, 0, 4 * P, 6 * P, AXE_MPI_COPY, AXE_MPI_F16, -1);
    c[n].name = "replicated->sharded [4P]", c[n].d[0] = dg(P, 0, 4, 1, 0, 0);
    c[n].d[1] = dg(4, 0, 1, 0, 1, 0), c[n].srep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 2, 1, 0, 4 * P, 4, AXE_MPI_COPY, AXE_MPI_F32,
           AXE_MPI_PATH_LOCAL);
    if (P >= 2) {
        c[n].name = "2-D mesh: S0 R -> R S1 [4,2Q]";
        c[n].d[0] = dg(2, Q, 0, 0, 4, 0), c[n].d[1] = dg(2, 0, 2 * Q, 0, 2, 0);
        c[n].d[2] = dg(Q, 0, 2, 1, 0, 0), c[n].d[3] = dg(2, 0, 1, 0, 1, 0);
        c[n].srep[0] = (axe_mpi_rep){Q, 1}, c[n].drep[0] = (axe_mpi_rep){2, Q};
        finish(&c[n++], 4, 1, 1, 4 * Q, 8, AXE_MPI_COPY, AXE_MPI_F32, -1);
    }
    c[n].name = "reduce-scatter (Figure 8) [P,4P,3] sum k=0";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(P, 0, 12, 1, 0, 0);
    c[n].d[2] = dg(4, 0, 3, 0, 3, 0), c[n].d[3] = dg(3, 0, 1, 0, 1, 0);
    finish(&c[n++], 4, 0, 0, 12 * P, 12, AXE_MPI_SUM, AXE_MPI_F32,
           AXE_MPI_PATH_REDUCE_SCATTER_ORDERED);
    c[n].name = "reduce-scatter [P,4P,3] i32 sum k=0 (MPI's order)";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(P, 0, 12, 1, 0, 0);
    c[n].d[2] = dg(4, 0, 3, 0, 3, 0), c[n].d[3] = dg(3, 0, 1, 0, 1, 0);
    finish(&c[n++], 4, 0, 0, 12 * P, 12, AXE_MPI_SUM, AXE_MPI_I32,
           AXE_MPI_PATH_REDUCE_SCATTER);
    c[n].name = "all-reduce [P,7] f32 sum k=0 (uneven pieces)";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(7, 0, 1, 0, 1, 0);
    c[n].drep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 2, 0, 1, 7, 7, AXE_MPI_SUM, AXE_MPI_F32,
           AXE_MPI_PATH_ALLREDUCE_ORDERED);
    c[n].name = "all-reduce [P,2,6] f64 sum, k on device and memory";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(2, 0, 6, 0, 0, 1);
    c[n].d[2] = dg(6, 0, 1, 0, 1, 0), c[n].drep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 3, 0, 1, 12, 6, AXE_MPI_SUM, AXE_MPI_F64,
           AXE_MPI_PATH_ALLREDUCE_ORDERED);
    if (P >= 4) { /* k = x0 * Q + x1 lives on device x0 + 2 * x1 */
        c[n].name = "reduce-scatter [2,Q,2P] f32 sum, k over 2 device digits";
        c[n].d[0] = dg(2, 1, 0, 0, 0, 1), c[n].d[1] = dg(Q, 2, 0, 0, 0, 1);
        c[n].d[2] = dg(P, 0, 2, 1, 0, 0), c[n].d[3] = dg(2, 0, 1, 0, 1, 0);
        finish(&c[n++], 4, 0, 0, 2 * P, 2, AXE_MPI_SUM, AXE_MPI_F32,
               AXE_MPI_PATH_REDUCE_SCATTER_ORDERED);
    }
    c[n].name = "all-reduce [P,5] max k=0", c[n].d[0] = dg(P, 1, 0, 0, 0, 1);
    c[n].d[1] = dg(5, 0, 1, 0, 1, 0), c[n].drep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 2, 0, 1, 5, 5, AXE_MPI_MAX, AXE_MPI_F64,
           AXE_MPI_PATH_ALLREDUCE);
    c[n].name = "reduce to 0 [2P,6] min, k on device and memory";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(2, 0, 6, 0, 0, 1);
    c[n].d[2] = dg(6, 0, 1, 0, 1, 0);
    finish(&c[n++], 3, 0, 0, 12, 6, AXE_MPI_MIN, AXE_MPI_I32, -1);
    c[n].name = "reduce to 0 [P,2,6] f32 sum, k on device and memory";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(2, 0, 6, 0, 0, 1);
    c[n].d[2] = dg(6, 0, 1, 0, 1, 0);
    finish(&c[n++], 3, 0, 0, 12, 6, AXE_MPI_SUM, AXE_MPI_F32, -1);
    c[n].name = "reduce-scatter, k on device and memory [2P,4P] sum";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1), c[n].d[1] = dg(2, 0, 4 * P, 0, 0, 1);
    c[n].d[2] = dg(P, 0, 4, 1, 0, 0), c[n].d[3] = dg(4, 0, 1, 0, 1, 0);
    finish(&c[n++], 4, 0, 0, 8 * P, 4, AXE_MPI_SUM, AXE_MPI_F64,
           AXE_MPI_PATH_REDUCE_SCATTER_ORDERED);
    c[n].name = "reduce of a replicated [3,4P] sum -> sharded";
    c[n].d[0] = dg(3, 0, 4 * P, 0, 0, 1), c[n].d[1] = dg(P, 0, 4, 1, 0, 0);
    c[n].d[2] = dg(4, 0, 1, 0, 1, 0), c[n].srep[0] = (axe_mpi_rep){P, 1};
    finish(&c[n++], 3, 1, 0, 12 * P, 4, AXE_MPI_SUM, AXE_MPI_F32,
           AXE_MPI_PATH_LOCAL);
    c[n].name = "tabled: blocks of 6 -> (2,P,3) [6P,2]";
    c[n].d[0] = tabled(&c[n], 6 * P, P, blocks_to_tiles);
    c[n].d[1] = dg(2, 0, 1, 0, 1, 0);
    finish(&c[n++], 2, 0, 0, 12, 12, AXE_MPI_COPY, AXE_MPI_F32, -1);
    c[n].name = "tabled: from P-1 to (3,2) cyclic, replicated [6]";
    c[n].d[0] = tabled(&c[n], 6, P, mem_to_cyclic), c[n].p.src_dev0 = P - 1;
    c[n].drep[0] = (axe_mpi_rep){P >= 2 ? P / 2 : 1, P >= 2 ? 2 : 1};
    finish(&c[n++], 1, 0, 1, 6, 6, AXE_MPI_COPY, AXE_MPI_F64, -1);
    c[n].name = "tabled reduce: sum k on device, [P,6] -> (3,2) cyclic";
    c[n].d[0] = dg(P, 1, 0, 0, 0, 1);
    c[n].d[1] = tabled(&c[n], 6, P, mem_to_cyclic);
    finish(&c[n++], 2, 0, 0, 6, 6, AXE_MPI_SUM, AXE_MPI_I32, -1);
    return n;
}

/* Element values as doubles; stored in the case's dtype. */
static double val(int64_t lin, int round)
{
    double v = (double)((lin * 7 + 3 + round * 11) % 97) - 40.0;
    if (round < 2)
        return v;
    /* round 2 (f32, f64): a float sum of these depends on the order */
    return lin % 3 == 1 ? v * 1.0e7 + 0.3 : v * 0.013 + 0.1;
}

static void put(void *buf, int dtype, int64_t i, double v)
{
    switch (dtype) {
    case AXE_MPI_F32:
        ((float *)buf)[i] = (float)v;
        break;
    case AXE_MPI_F64:
        ((double *)buf)[i] = v;
        break;
    case AXE_MPI_I32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case AXE_MPI_F16:
        ((int16_t *)buf)[i] = (int16_t)v;
        break; /* bits */
    default:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    }
}

static double get(const void *buf, int dtype, int64_t i)
{
    switch (dtype) {
    case AXE_MPI_F32:
        return ((const float *)buf)[i];
    case AXE_MPI_F64:
        return ((const double *)buf)[i];
    case AXE_MPI_I32:
        return ((const int32_t *)buf)[i];
    case AXE_MPI_F16:
        return ((const int16_t *)buf)[i];
    default:
        return ((const int8_t *)buf)[i];
    }
}

/* The value of element x as brute force reads it: digit values from its
 * row-major index "lin" over the table. */
static void digits_of(const axe_mpi_plan *p, int64_t lin, int64_t *x)
{
    int i;
    for (i = p->ndigits - 1; i >= 0; i--)
        x[i] = lin % p->digit[i].extent, lin /= p->digit[i].extent;
}

static int64_t total(const axe_mpi_plan *p)
{
    int64_t n = 1;
    int i;
    for (i = 0; i < p->ndigits; i++)
        n *= p->digit[i].extent;
    return n;
}

static int64_t side(const axe_mpi_plan *p, const int64_t *x, int dst, int dev)
{
    int64_t s =
        dst ? (dev ? p->dst_dev0 : p->dst_m0) : (dev ? p->src_dev0 : p->src_m0);
    int i;
    for (i = 0; i < p->ndigits; i++) {
        const axe_mpi_digit *d = &p->digit[i];
        if (d->tab != NULL)
            s += d->tab[4 * x[i] + 2 * dst + !dev];
        else
            s += x[i] * (dst ? (dev ? d->dst_dev : d->dst_m)
                             : (dev ? d->src_dev : d->src_m));
    }
    return s;
}

static void fill_src(const axe_mpi_plan *p, void *src, int me, int round)
{
    int64_t lin, x[AXE_MPI_MAX_DIGITS], r, i;
    int64_t nr = axe_mpi_rep_count(p->src_rep, p->nsrc_rep);
    for (i = 0; i < p->src_size; i++)
        put(src, p->dtype, i, SENTINEL);
    for (lin = 0; lin < total(p); lin++)
        for (digits_of(p, lin, x), r = 0; r < nr; r++)
            if (side(p, x, 0, 1) +
                    axe_mpi_rep_sum(p->src_rep, p->nsrc_rep, r) ==
                me)
                put(src, p->dtype, side(p, x, 0, 0), val(lin, round));
}

/* a (+) b in the case's dtype (f32 rounds each step, as the runtime). */
static double combine(const axe_mpi_plan *p, double a, double b)
{
    if (p->op == AXE_MPI_SUM)
        return p->dtype == AXE_MPI_F32 ? (double)((float)a + (float)b) : a + b;
    return (p->op == AXE_MPI_MAX ? b > a : b < a) ? b : a;
}

/* The expected value of element x: its own, or the fold over k in the
 * reference's order: slice q (the row-major index of the reduced device
 * digits) folds its elements in order of k (row-major over the table is
 * increasing k within a slice), then the slices fold in order of q. */
static double expect(const axe_mpi_plan *p, const int64_t *x0, int round)
{
    int64_t x[AXE_MPI_MAX_DIGITS], lin, i, q, nq = 1;
    double part[64], acc = 0, v;
    char seen[64] = {0};
    for (i = 0; i < p->ndigits; i++)
        if (p->digit[i].reduced && p->digit[i].src_dev != 0)
            nq *= p->digit[i].extent;
    for (lin = 0; lin < total(p) && nq <= 64; lin++) {
        digits_of(p, lin, x);
        for (i = 0, q = 0; i < p->ndigits; i++) {
            if (!p->digit[i].reduced && x[i] != x0[i])
                break;
            if (p->digit[i].reduced && p->digit[i].src_dev != 0)
                q = q * p->digit[i].extent + x[i];
        }
        if (i < p->ndigits)
            continue;
        v = p->dtype == AXE_MPI_F32 ? (double)(float)val(lin, round)
                                    : val(lin, round);
        part[q] = seen[q] ? combine(p, part[q], v) : v;
        seen[q] = 1;
    }
    for (q = 0; q < nq && q < 64; q++)
        acc = q == 0 ? part[0] : combine(p, acc, part[q]);
    return acc;
}

/* Whether element x of a reduce is one an owner folds into the partial
 * of x with 0 on the reduced digits local to the source (its memory
 * digits): only that partial moves. */
static int folded(const axe_mpi_plan *p, const int64_t *x)
{
    int i;
    for (i = 0; p->op != AXE_MPI_COPY && i < p->ndigits; i++)
        if (p->digit[i].reduced && p->digit[i].src_dev == 0 && x[i] != 0)
            return 1;
    return 0;
}

/* Checks dst on rank "me"; returns the number of elements (a reduce:
 * partials) held but not owned, what must have been received, or -1
 * after printing a mismatch. */
static int64_t check_dst(const tcase *c, const void *dst, int me, int round)
{
    const axe_mpi_plan *p = &c->p;
    int64_t lin, x[AXE_MPI_MAX_DIGITS], q, i, recv = 0, a, nq;
    char *held = (char *)calloc((size_t)p->dst_size + 1, 1);
    nq = axe_mpi_rep_count(p->dst_rep, p->ndst_rep);
    for (lin = 0; lin < total(p); lin++) {
        digits_of(p, lin, x);
        for (q = 0; q < nq; q++) {
            if (side(p, x, 1, 1) +
                    axe_mpi_rep_sum(p->dst_rep, p->ndst_rep, q) !=
                me)
                continue;
            a = side(p, x, 1, 0);
            held[a] = 1;
            if (get(dst, p->dtype, a) != expect(p, x, round)) {
                printf("FAIL %s: rank %d dst[%lld] = %.17g, expected %.17g\n",
                       c->name, me, (long long)a, get(dst, p->dtype, a),
                       expect(p, x, round));
                free(held);
                return -1;
            }
            if (!axe_mpi_owns(p, side(p, x, 0, 1), me) && !folded(p, x))
                recv++;
        }
    }
    for (i = 0; i < p->dst_size; i++)
        if (!held[i] && get(dst, p->dtype, i) != SENTINEL) {
            printf("FAIL %s: rank %d wrote dst[%lld] it does not hold\n",
                   c->name, me, (long long)i);
            free(held);
            return -1;
        }
    free(held);
    return recv;
}

/* The same schedule built without host buffers (the NCCL path's,
 * AXE_MPI_BUILD_NOHOST): sbuf, rbuf and tmp NULL, the rest as "s". */
static int check_nohost(tcase *c, const axe_mpi_sched *s, int me)
{
    axe_mpi_sched h;
    char err[256];
    int bad;
    memset(&h, 0, sizeof h);
    bad = axe_mpi_sched_build_order(
        &c->p, &h, MPI_COMM_WORLD, AXE_MPI_BUILD_ORDERED | AXE_MPI_BUILD_NOHOST,
        err, sizeof err);
    if (!bad &&
        (h.sbuf || h.rbuf || h.tmp || h.path != s->path || h.n != s->n ||
         h.sent != s->sent || h.pack.elems != s->pack.elems ||
         h.unpack.elems != s->unpack.elems || h.nkoff != s->nkoff))
        bad = 1, snprintf(err, sizeof err, "a host buffer or another schedule");
    if (bad)
        printf("FAIL %s: rank %d: built without host buffers: %s\n", c->name,
               me, err);
    axe_mpi_sched_free(&h);
    return bad;
}

static int run_case(tcase *c, int P, int me)
{
    axe_mpi_sched s;
    char err[256];
    int64_t es = axe_mpi_esize(c->p.dtype), recv = 0, got, i;
    void *src = malloc((size_t)(c->p.src_size * es + 1));
    void *dst = malloc((size_t)(c->p.dst_size * es + 1));
    int round,
        bad = 0,
        rounds = c->p.dtype == AXE_MPI_F32 || c->p.dtype == AXE_MPI_F64 ? 3 : 2;
    memset(&s, 0, sizeof s);
    c->p.ndev = P;
    for (round = 0; round < rounds && !bad; round++) {
        fill_src(&c->p, src, me, round);
        for (i = 0; i < c->p.dst_size; i++)
            put(dst, c->p.dtype, i, SENTINEL);
        if (axe_mpi_exchange(&c->p, &s, src, dst, MPI_COMM_WORLD, err,
                             sizeof err)) {
            printf("FAIL %s: rank %d: %s\n", c->name, me, err);
            bad = 1;
        } else if ((recv = check_dst(c, dst, me, round)) < 0)
            bad = 1;
    }
    for (got = 0, i = 0; !bad && i < P && s.recv; i++)
        got += s.recv[i].elems;
    if (!bad &&
        (c->p.op == AXE_MPI_COPY || s.path < AXE_MPI_PATH_ALLREDUCE ||
         (s.path > AXE_MPI_PATH_REDUCE_SCATTER &&
          s.path < AXE_MPI_PATH_REDUCE_SCATTER_ORDERED)) &&
        got != recv) {
        printf("FAIL %s: rank %d received %lld elements, holds %lld it does "
               "not own\n",
               c->name, me, (long long)got, (long long)recv);
        bad = 1;
    }
    if (!bad && P > 1 && c->expect >= 0 && s.path != c->expect) {
        printf("FAIL %s: took %s, expected %s\n", c->name,
               axe_mpi_path_name(s.path), axe_mpi_path_name(c->expect));
        bad = 1;
    }
    if (!bad)
        bad = check_nohost(c, &s, me);
    if (!bad && me == 0)
        printf("ok %d ranks: %s: %s\n", P, c->name, axe_mpi_path_name(s.path));
    axe_mpi_sched_free(&s);
    free(src), free(dst);
    return bad;
}

/* A plan for the wrong number of devices is an error naming both. */
static int run_mismatch(int P, int me)
{
    tcase c[MAX_CASES];
    axe_mpi_sched s;
    char err[256] = "";
    float a[64], b[64];
    cases(c, P);
    memset(&s, 0, sizeof s);
    c[0].p.ndev = P + 1;
    if (!axe_mpi_exchange(&c[0].p, &s, a, b, MPI_COMM_WORLD, err, sizeof err) ||
        !strstr(err, "mesh has")) {
        printf("FAIL mismatch: rank %d: '%s'\n", me, err);
        return 1;
    }
    if (me == 0)
        printf("ok %d ranks: mesh/rank mismatch: %s\n", P, err);
    axe_mpi_sched_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    tcase c[MAX_CASES];
    int P, me, n, i, bad = 0, any;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    n = cases(c, P);
    for (i = 0; i < n; i++)
        bad |= run_case(&c[i], P, me);
    bad |= run_mismatch(P, me);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any ? 1 : 0;
}
