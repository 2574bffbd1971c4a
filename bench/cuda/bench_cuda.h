// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the CUDA benchmark drivers of scripts/gpu_check.sh
// (bench/cuda/*.cu): a CUDA and a cuBLAS error check that print the
// driver's name (BENCH_NAME, defined before this header) and exit 2, a
// seeded fill of a device array with values in [-1, 1), the median time
// of a launch sequence by cudaEvents after warm-ups, and the normwise
// error ||x - r||_F / ||r||_F of a result against a reference on the
// host. Everything is static: each driver is one translation unit.
// Invariant: a helper either succeeds or exits 2 with one line on stderr.
#ifndef AXE_BENCH_CUDA_H
#define AXE_BENCH_CUDA_H

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME (the driver's name in its error lines)"
#endif

// Exit 2 with "NAME: EXPR: reason" when the CUDA call x fails.
#define BENCH_CK(x)                                                            \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            fprintf(stderr, BENCH_NAME ": %s: %s\n", #x,                       \
                    cudaGetErrorString(e_));                                   \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

// Exit 2 with "NAME: EXPR: status N" when the cuBLAS call x fails.
#define BENCH_CUBLAS(x)                                                        \
    do {                                                                       \
        cublasStatus_t s_ = (x);                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            fprintf(stderr, BENCH_NAME ": %s: status %d\n", #x, (int)s_);      \
            exit(2);                                                           \
        }                                                                      \
    } while (0)

// x[i] = a hash of (i, seed) mapped to [-1, 1), converted to T (float,
// __half, __nv_bfloat16): the same values for the same seed on any GPU.
template <typename T>
static __global__ void bench_fill_kernel(T *x, size_t n, uint32_t seed)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        x[i] = T((float)(h >> 8) / 8388608.0f - 1.0f);
    }
}

// Fill the n elements of device array x (bench_fill_kernel), checked.
template <typename T> static void bench_fill(T *x, size_t n, uint32_t seed)
{
    if (n > 0)
        bench_fill_kernel<<<(unsigned)((n + 255) / 256), 256>>>(x, n, seed);
    BENCH_CK(cudaGetLastError());
}

static int bench_cmpf(const void *x, const void *y)
{
    float p = *(const float *)x, q = *(const float *)y;
    return (p > q) - (p < q);
}

enum { BENCH_WARM = 3, BENCH_REPS = 11 };

// The median milliseconds of BENCH_REPS timed calls of f (each between
// two cudaEvents on stream 0) after BENCH_WARM untimed ones.
static float bench_time_ms(void (*f)(void))
{
    float ms[BENCH_REPS];
    cudaEvent_t e0, e1;
    BENCH_CK(cudaEventCreate(&e0));
    BENCH_CK(cudaEventCreate(&e1));
    for (int i = 0; i < BENCH_WARM; i++)
        f();
    for (int i = 0; i < BENCH_REPS; i++) {
        BENCH_CK(cudaEventRecord(e0, 0));
        f();
        BENCH_CK(cudaEventRecord(e1, 0));
        BENCH_CK(cudaEventSynchronize(e1));
        BENCH_CK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    BENCH_CK(cudaEventDestroy(e0));
    BENCH_CK(cudaEventDestroy(e1));
    BENCH_CK(cudaGetLastError());
    qsort(ms, BENCH_REPS, sizeof ms[0], bench_cmpf);
    return ms[BENCH_REPS / 2];
}

// ||x - r||_F / ||r||_F over n floats on the host (||x - r||_F when r
// is zero); infinity when any x[i] is not finite (a NaN from a skipped
// store, which a NaN-filled output shows).
static double bench_normwise(const float *x, const float *r, size_t n)
{
    double d = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        double e = (double)x[i] - (double)r[i];
        if (!isfinite(x[i]))
            return INFINITY;
        d += e * e;
        s += (double)r[i] * r[i];
    }
    return s > 0 ? sqrt(d / s) : sqrt(d);
}

// A host buffer of n bytes, or exit 2.
static void *bench_host_alloc(size_t n)
{
    void *p = malloc(n > 0 ? n : 1);
    if (p == NULL) {
        fprintf(stderr, BENCH_NAME ": out of host memory\n");
        exit(2);
    }
    return p;
}

#endif
