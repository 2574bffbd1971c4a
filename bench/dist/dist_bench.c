/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/dist (issue 14 §4, a benchmark, not a test): the MPI runtime of
 * --target mpi (src/compiler/backend/mpi/compiler_mpi_rt.h) running the
 * digit tables the planner derives for a few f32 exchanges, against the
 * same exchange written by hand with MPI. Built and run by
 * bench/dist/run.sh at 1..8 ranks over 1 KiB..64 MiB (the logical
 * tensor's bytes). Cases:
 *   (a) one standard collective: allgather (sharded on dim 0 ->
 *       replicated), reduce_scatter (a full partial per device -> sum
 *       sharded, Figure 8), allreduce, bcast (one device -> replicated):
 *       against the MPI call itself;
 *   (b) reshardings no single collective serves: block -> cyclic
 *       (interleaved device axis) and the transpose of a row-sharded
 *       matrix: against a hand-written MPI_Alltoall(v) with precomputed
 *       counts, pack and unpack loops, and against gather-to-root then
 *       scatter (the naive way).
 * Each timing is the slowest rank's mean over enough iterations for
 * ~20 ms, best of 3; output one line per case and size:
 *   case ranks bytes generated_us hand_us hand/generated naive_us path
 * The runtime sums f32 partials in the reference's order (reduce_scatter,
 * allreduce: its ordered forms); built with -DAXE_MPI_UNORDERED it calls
 * MPI_Reduce_scatter_block / MPI_Allreduce itself (bench/dist/run.sh
 * builds both: the ratio is the cost of exactness).
 * Usage: mpirun -np P dist_bench [MAX_BYTES [FACTOR [CASE]]] (sizes 1 KiB,
 * 1 KiB * FACTOR, ... up to MAX_BYTES; FACTOR 4 by default; CASE: only
 * the cases whose name contains it)
 */
#include "compiler_mpi_rt.h"

typedef struct bcase {
    axe_mpi_digit d[4];
    axe_mpi_rep rep[1];
    axe_mpi_plan p;
} bcase;

static axe_mpi_digit dg(int64_t e, int64_t sd, int64_t sm, int64_t dd,
                        int64_t dm, int red)
{
    axe_mpi_digit d = {e, sd, sm, dd, dm, 0, red};
    return d;
}

/* The tables of the cases over N f32 elements at P devices. */
static void table(bcase *c, const char *name, int64_t N, int P)
{
    int64_t n = N / P;
    memset(c, 0, sizeof *c);
    c->p.ndev = P, c->p.digit = c->d, c->p.dtype = AXE_MPI_F32;
    c->p.src_rep = c->rep, c->p.dst_rep = c->rep;
    if (!strcmp(name, "allgather")) {
        c->d[0] = dg(P, 1, 0, 0, n, 0), c->d[1] = dg(n, 0, 1, 0, 1, 0);
        c->rep[0] = (axe_mpi_rep){P, 1}, c->p.ndst_rep = 1;
        c->p.ndigits = 2, c->p.src_size = n, c->p.dst_size = N;
    } else if (!strcmp(name, "reduce_scatter")) {
        c->d[0] = dg(P, 1, 0, 0, 0, 1), c->d[1] = dg(P, 0, n, 1, 0, 0);
        c->d[2] = dg(n, 0, 1, 0, 1, 0), c->p.op = AXE_MPI_SUM;
        c->p.ndigits = 3, c->p.src_size = N, c->p.dst_size = n;
    } else if (!strcmp(name, "allreduce")) {
        c->d[0] = dg(P, 1, 0, 0, 0, 1), c->d[1] = dg(N, 0, 1, 0, 1, 0);
        c->rep[0] = (axe_mpi_rep){P, 1}, c->p.ndst_rep = 1;
        c->p.op = AXE_MPI_SUM, c->p.ndigits = 2;
        c->p.src_size = N, c->p.dst_size = N;
    } else if (!strcmp(name, "bcast")) {
        c->d[0] = dg(N, 0, 1, 0, 1, 0), c->rep[0] = (axe_mpi_rep){P, 1};
        c->p.ndst_rep = 1, c->p.ndigits = 1;
        c->p.src_size = N, c->p.dst_size = N;
    } else if (!strcmp(name, "block_cyclic")) {
        /* i = s*n + u*P + b: block s on device s -> cyclic b on device b */
        c->d[0] = dg(P, 1, 0, 0, n / P, 0);
        c->d[1] = dg(n / P, 0, P, 0, 1, 0), c->d[2] = dg(P, 0, 1, 1, 0, 0);
        c->p.ndigits = 3, c->p.src_size = n, c->p.dst_size = n;
    } else { /* transpose: [R, R] rows sharded -> columns sharded */
        int64_t R = 1, r;
        while (R * R < N)
            R *= 2;
        r = R / P;
        c->d[0] = dg(P, 1, 0, 0, r * r, 0), c->d[1] = dg(r, 0, R, 0, r, 0);
        c->d[2] = dg(P, 0, r, 1, 0, 0), c->d[3] = dg(r, 0, 1, 0, 1, 0);
        c->p.ndigits = 4, c->p.src_size = r * R, c->p.dst_size = r * R;
    }
}

/* ---- hand-written versions -------------------------------------------- */

typedef struct hand {
    float *sbuf, *rbuf;
    int *cnt, *displ;
} hand;

static void hand_run(const char *name, const bcase *c, hand *h,
                     const float *src, float *dst, int P, int me)
{
    int64_t n = c->p.src_size, i, b, u, r;
    if (!strcmp(name, "allgather"))
        MPI_Allgather(src, (int)n, MPI_FLOAT, dst, (int)n, MPI_FLOAT,
                      MPI_COMM_WORLD);
    else if (!strcmp(name, "reduce_scatter"))
        MPI_Reduce_scatter_block(src, dst, (int)(n / P), MPI_FLOAT, MPI_SUM,
                                 MPI_COMM_WORLD);
    else if (!strcmp(name, "allreduce"))
        MPI_Allreduce(src, dst, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(name, "bcast")) {
        if (me == 0)
            memcpy(dst, src, (size_t)n * sizeof(float));
        MPI_Bcast(dst, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(name, "block_cyclic")) {
        for (b = 0; b < P; b++) /* to device b: my u*P + b, u ascending */
            for (u = 0; u < n / P; u++)
                h->sbuf[b * (n / P) + u] = src[u * P + b];
        /* from device s: its u-th lands at s*(n/P) + u: in place */
        MPI_Alltoallv(h->sbuf, h->cnt, h->displ, MPI_FLOAT, dst, h->cnt,
                      h->displ, MPI_FLOAT, MPI_COMM_WORLD);
    } else { /* transpose */
        int64_t R;
        r = c->d[1].extent, R = r * P;
        for (b = 0; b < P; b++) /* my rows i, columns b*r + j */
            for (i = 0; i < r; i++)
                memcpy(h->sbuf + (b * r + i) * r, src + i * R + b * r,
                       (size_t)r * sizeof(float));
        /* from device s: its rows s*r + i, my columns: in place */
        MPI_Alltoallv(h->sbuf, h->cnt, h->displ, MPI_FLOAT, dst, h->cnt,
                      h->displ, MPI_FLOAT, MPI_COMM_WORLD);
    }
}

/* The naive resharding: every block to rank 0, permuted there, scattered. */
static void naive_run(const char *name, const bcase *c, hand *h,
                      const float *src, float *dst, int P, int me)
{
    int64_t n = c->p.src_size, i, b, u;
    float *all = h->rbuf, *perm = h->sbuf;
    MPI_Gather(src, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, 0,
               MPI_COMM_WORLD);
    if (me == 0 && !strcmp(name, "block_cyclic"))
        for (b = 0; b < P; b++) /* device b's local u: element u*P + b */
            for (u = 0; u < n; u++)
                perm[b * n + u] = all[u * P + b];
    else if (me == 0) {
        int64_t r = c->d[1].extent, R = r * P, j;
        for (b = 0; b < P; b++) /* device b: all rows, columns b*r + j */
            for (i = 0; i < R; i++)
                for (j = 0; j < r; j++)
                    perm[b * n + i * r + j] = all[i * R + b * r + j];
    }
    MPI_Scatter(perm, (int)n, MPI_FLOAT, dst, (int)n, MPI_FLOAT, 0,
                MPI_COMM_WORLD);
}

/* ---- timing ------------------------------------------------------------- */

typedef void (*step_fn)(void *ctx);

/* Iterations of "f" for ~20 ms on the slowest rank. */
static int calibrate(step_fn f, void *ctx)
{
    double t0, dt, worst;
    int iters = 1, i;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (i = 0; i < iters; i++)
            f(ctx);
        dt = MPI_Wtime() - t0;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (worst > 0.02 || iters >= 1 << 16)
            return iters;
        iters *= worst > 0.002 ? 2 : 8;
    }
}

/* The slowest rank's mean microseconds per step of each of the "n"
 * functions, measured in turn (so that load on a shared machine hits
 * them alike), best of 5. */
static void timeit(step_fn *f, int n, void *ctx, double *us)
{
    int iters[3], k, rep, i;
    double t0, dt, worst;
    for (k = 0; k < n; k++)
        iters[k] = calibrate(f[k], ctx), us[k] = 1e30;
    for (rep = 0; rep < 5; rep++)
        for (k = 0; k < n; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            for (i = 0; i < iters[k]; i++)
                f[k](ctx);
            dt = (MPI_Wtime() - t0) / iters[k];
            MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            us[k] = worst * 1e6 < us[k] ? worst * 1e6 : us[k];
        }
}

typedef struct run_ctx {
    const char *name;
    bcase *c;
    axe_mpi_sched *s;
    hand *h;
    float *src, *dst;
    int P, me, bad;
} run_ctx;

static void step_gen(void *v)
{
    run_ctx *r = (run_ctx *)v;
    char err[200];
    if (axe_mpi_exchange(&r->c->p, r->s, r->src, r->dst, MPI_COMM_WORLD, err,
                         sizeof err))
        r->bad = 1;
}

static void step_hand(void *v)
{
    run_ctx *r = (run_ctx *)v;
    hand_run(r->name, r->c, r->h, r->src, r->dst, r->P, r->me);
}

static void step_naive(void *v)
{
    run_ctx *r = (run_ctx *)v;
    naive_run(r->name, r->c, r->h, r->src, r->dst, r->P, r->me);
}

/* Generated and hand-written results agree (every element, exact). */
static int agree(run_ctx *r)
{
    int64_t i, n = r->c->p.dst_size;
    float *gen = (float *)malloc((size_t)n * sizeof(float));
    int bad = 0, any;
    step_gen(r);
    memcpy(gen, r->dst, (size_t)n * sizeof(float));
    step_hand(r);
    for (i = 0; i < n; i++)
        bad |= gen[i] != r->dst[i];
    free(gen);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

static void bench_one(const char *name, int64_t bytes, int P, int me)
{
    bcase c;
    axe_mpi_sched s;
    hand h;
    run_ctx r;
    int64_t N = bytes / 4, i, big;
    double tg, th, tn;
    int resharding =
        !strcmp(name, "block_cyclic") || !strcmp(name, "transpose");
    if (N % ((int64_t)P * P) != 0)
        return;
    table(&c, name, N, P);
    memset(&s, 0, sizeof s);
    big = N + c.p.src_size + c.p.dst_size;
    r = (run_ctx){name, &c, &s, &h, NULL, NULL, P, me, 0};
    r.src = (float *)malloc((size_t)c.p.src_size * sizeof(float));
    r.dst = (float *)calloc((size_t)c.p.dst_size + 1, sizeof(float));
    h.sbuf = (float *)malloc((size_t)big * sizeof(float));
    h.rbuf = (float *)malloc((size_t)big * sizeof(float));
    h.cnt = (int *)malloc(2 * (size_t)P * sizeof(int));
    h.displ = h.cnt + P;
    for (i = 0; i < P; i++) {
        int64_t piece = resharding ? c.p.src_size / P : 0;
        h.cnt[i] = (int)piece, h.displ[i] = (int)(i * piece);
    }
    for (i = 0; i < c.p.src_size; i++)
        r.src[i] = (float)((i * 7 + me * 13) % 101);
    if (!agree(&r)) {
        if (me == 0)
            printf("%s %d %lld MISMATCH\n", name, P, (long long)bytes);
    } else {
        step_fn f[3] = {step_gen, step_hand, step_naive};
        double us[3] = {0, 0, -1};
        timeit(f, resharding ? 3 : 2, &r, us);
        tg = us[0], th = us[1], tn = us[2];
        if (me == 0)
            printf("%-14s %d %9lld %10.1f %10.1f %6.3f %10.1f %s\n", name, P,
                   (long long)bytes, tg, th, th / tg, tn,
                   axe_mpi_path_name(s.path));
    }
    fflush(stdout);
    axe_mpi_sched_free(&s);
    free(r.src), free(r.dst), free(h.sbuf), free(h.rbuf), free(h.cnt);
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"allgather",    "reduce_scatter",
                                        "allreduce",    "bcast",
                                        "block_cyclic", "transpose"};
    int64_t max = argc > 1 ? atoll(argv[1]) : (int64_t)64 << 20, b;
    int64_t step = argc > 2 && atoll(argv[2]) > 1 ? atoll(argv[2]) : 4;
    int P, me, k;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        printf("# case ranks bytes generated_us hand_us hand/generated "
               "naive_us path\n");
    for (k = 0; k < 6; k++)
        for (b = 1024; b <= max && (argc < 4 || strstr(names[k], argv[3]));
             b *= step)
            bench_one(names[k], b, P, me);
    MPI_Finalize();
    return 0;
}
