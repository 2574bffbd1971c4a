/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bench/dist (docs/bench.md, "Distributed exchanges"): the MPI runtime's
 * pack loop alone, in one process, without MPI calls, so that other work
 * on the machine skews it far less than the exchange timings of
 * dist_bench.c. The lists are block_cyclic's sends of rank 0 at P ranks
 * (element u*P + b of the local block to position b*(n/P) + u),
 * copied by axe_mpi_copy_runs as the runtime packs them, against the
 * hand-written gather of dist_bench.c; both must leave the same bytes.
 *   mpicc -std=c11 -O2 -Isrc/compiler/backend/mpi bench/dist/pack_bench.c
 *   ./a.out BYTES P ES     (the local block's bytes, ranks, element bytes
 *                           1, 2, 4 or 8)
 * Output: the best of 9 means of each, in microseconds, and hand/runtime.
 */
#define _POSIX_C_SOURCE 200809L
#include "compiler_mpi_rt.h"

#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define HAND(T, dst, src, P, m)                                                \
    do {                                                                       \
        T *d_ = (T *)(void *)(dst);                                            \
        const T *s_ = (const T *)(const void *)(src);                          \
        int64_t b_, u_;                                                        \
        for (b_ = 0; b_ < (P); b_++)                                           \
            for (u_ = 0; u_ < (m); u_++)                                       \
                d_[b_ * (m) + u_] = s_[u_ * (P) + b_];                         \
    } while (0)

static void hand(char *dst, const char *src, int64_t P, int64_t m, int64_t es)
{
    if (es == 8)
        HAND(uint64_t, dst, src, P, m);
    else if (es == 4)
        HAND(uint32_t, dst, src, P, m);
    else if (es == 2)
        HAND(uint16_t, dst, src, P, m);
    else
        HAND(uint8_t, dst, src, P, m);
}

int main(int argc, char **argv)
{
    int64_t bytes = argc > 1 ? atoll(argv[1]) : (int64_t)8 << 20;
    int64_t P = argc > 2 ? atoll(argv[2]) : 2,
            es = argc > 3 ? atoll(argv[3]) : 4;
    int64_t n = bytes / es, m = n / P, b, u, i, it, r;
    axe_mpi_list *l = (axe_mpi_list *)calloc((size_t)P, sizeof *l);
    char *src = (char *)malloc((size_t)bytes),
         *g = (char *)malloc((size_t)bytes), *h = (char *)malloc((size_t)bytes);
    double tg = 1e30, th = 1e30, t0, t;
    if (P < 1 || m < 1 || (es != 1 && es != 2 && es != 4 && es != 8) ||
        l == NULL || src == NULL || g == NULL || h == NULL) {
        fprintf(stderr, "usage: pack_bench BYTES P ES (ES 1, 2, 4 or 8)\n");
        return 2;
    }
    for (i = 0; i < bytes; i++)
        src[i] = (char)(i * 7 + 3);
    for (b = 0; b < P; b++) {
        for (u = 0; u < m; u++)
            if (axe_mpi_list_add(&l[b], u * P + b, u))
                return 2;
        if (axe_mpi_list_blocks(&l[b]))
            return 2;
    }
    it = 1 + (int64_t)(2e8 / (double)bytes);
    for (r = 0; r < 9; r++) {
        t0 = now();
        for (i = 0; i < it; i++)
            for (b = 0; b < P; b++)
                axe_mpi_copy_runs(&l[b], g, b * m, src, 0, es);
        t = (now() - t0) / (double)it;
        tg = t < tg ? t : tg;
        t0 = now();
        for (i = 0; i < it; i++)
            hand(h, src, P, m, es);
        t = (now() - t0) / (double)it;
        th = t < th ? t : th;
    }
    if (memcmp(g, h, (size_t)(m * P * es)) != 0) {
        printf("MISMATCH\n");
        return 1;
    }
    printf("pack %lld bytes P %lld es %lld: runtime %.1f us, hand %.1f us, "
           "hand/runtime %.3f\n",
           (long long)bytes, (long long)P, (long long)es, tg * 1e6, th * 1e6,
           th / tg);
    for (b = 0; b < P; b++)
        free(l[b].run), free(l[b].blk);
    free(l), free(src), free(g), free(h);
    return 0;
}
