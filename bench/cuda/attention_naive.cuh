// SPDX-License-Identifier: Apache-2.0
//
// The naive attention of issue 13 §4, shared by attention_naive.cu (the
// baseline alone) and flash_attention.cu (an axe kernel against it):
// O = softmax(Q K^T / sqrt(D)) V, non-causal, Q, K, V (SEQ, D) f16
// row-major filled by bench_fill (seeded values in [-1, 1)); the baseline
// is two cuBLAS GEMMs (f32 scores S, f16 P) and a row softmax kernel into
// an f32 O; the reference is one CTA per query row in f32 throughout (a
// score row in shared memory, so SEQ <= ATT_MAX_SEQ). Results compare
// normwise with the reference (bench_normwise) against ATT_TOL. The
// driver defines BENCH_NAME before including it (bench_cuda.h); the one
// baseline of the program is the static "att". Invariant: after
// att_init, att holds the inputs and the reference's O.
#ifndef AXE_BENCH_ATTENTION_NAIVE_CUH
#define AXE_BENCH_ATTENTION_NAIVE_CUH

#include <cuda_fp16.h>

#include "bench_cuda.h"

#define ATT_TOL 5e-3
#define ATT_MAX_SEQ 8192 /* the reference keeps a score row in shared memory */

// The block's max (op 0) or sum (op 1) of v over its 256 threads.
static __device__ float att_block_reduce(float v, int op, float *red)
{
    red[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            red[threadIdx.x] =
                op == 0 ? fmaxf(red[threadIdx.x], red[threadIdx.x + s])
                        : red[threadIdx.x] + red[threadIdx.x + s];
        __syncthreads();
    }
    v = red[0];
    __syncthreads();
    return v;
}

// P[i, :] = softmax(S[i, :] * scale) in f16, one CTA of 256 per row.
static __global__ void att_softmax_rows(const float *s, __half *p, int seq,
                                        float scale)
{
    __shared__ float red[256];
    const float *r = s + (size_t)blockIdx.x * seq;
    float m = -INFINITY, sum = 0;
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        m = fmaxf(m, r[j] * scale);
    m = att_block_reduce(m, 0, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        sum += expf(r[j] * scale - m);
    sum = att_block_reduce(sum, 1, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        p[(size_t)blockIdx.x * seq + j] =
            __float2half(expf(r[j] * scale - m) / sum);
}

// The reference: row i of O in f32, one CTA of 256 per query row.
static __global__ void att_reference(const __half *q, const __half *k,
                                     const __half *v, float *o, int seq, int d,
                                     float scale)
{
    __shared__ float sc[ATT_MAX_SEQ];
    __shared__ float red[256];
    const size_t i = blockIdx.x;
    float m = -INFINITY, sum = 0;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        float t = 0;
        for (int c = 0; c < d; c++)
            t +=
                __half2float(q[i * d + c]) * __half2float(k[(size_t)j * d + c]);
        sc[j] = t * scale;
        m = fmaxf(m, sc[j]);
    }
    m = att_block_reduce(m, 0, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        sc[j] = expf(sc[j] - m);
        sum += sc[j];
    }
    sum = att_block_reduce(sum, 1, red);
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        float t = 0;
        for (int j = 0; j < seq; j++)
            t += sc[j] * __half2float(v[(size_t)j * d + c]);
        o[i * d + c] = t / sum;
    }
}

// The inputs (device), the baseline's S, P and O (device), and the
// reference's O (host).
static struct {
    cublasHandle_t handle;
    __half *q, *k, *v, *p;
    float *s, *o, *ref;
    int seq, hd;
} att;

// Allocate and fill Q, K, V (seq, hd) and the baseline's buffers, and
// run the reference into att.ref.
static void att_init(int seq, int hd)
{
    size_t n = (size_t)seq * hd;
    float *dref;
    att.seq = seq;
    att.hd = hd;
    BENCH_CUBLAS(cublasCreate(&att.handle));
    BENCH_CK(cudaMalloc(&att.q, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&att.k, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&att.v, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&att.p, (size_t)seq * seq * sizeof(__half)));
    BENCH_CK(cudaMalloc(&att.s, (size_t)seq * seq * sizeof(float)));
    BENCH_CK(cudaMalloc(&att.o, n * sizeof(float)));
    BENCH_CK(cudaMalloc(&dref, n * sizeof(float)));
    att.ref = (float *)bench_host_alloc(n * sizeof(float));
    bench_fill(att.q, n, 0x9e3779b9u);
    bench_fill(att.k, n, 0x85ebca6bu);
    bench_fill(att.v, n, 0xc2b2ae35u);
    att_reference<<<seq, 256>>>(att.q, att.k, att.v, dref, seq, hd,
                                1.0f / sqrtf((float)hd));
    BENCH_CK(cudaGetLastError());
    BENCH_CK(
        cudaMemcpy(att.ref, dref, n * sizeof(float), cudaMemcpyDeviceToHost));
    BENCH_CK(cudaFree(dref));
}

// The baseline once: row-major S (seq, seq) = Q K^T is column-major
// S^T = K Q^T; row-major O (seq, d) = P V is column-major O^T = V^T P^T
// (V and P as stored).
static void att_run(void)
{
    const float one = 1, zero = 0;
    BENCH_CUBLAS(cublasGemmEx(att.handle, CUBLAS_OP_T, CUBLAS_OP_N, att.seq,
                              att.seq, att.hd, &one, att.k, CUDA_R_16F, att.hd,
                              att.q, CUDA_R_16F, att.hd, &zero, att.s,
                              CUDA_R_32F, att.seq, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    att_softmax_rows<<<att.seq, 256>>>(att.s, att.p, att.seq,
                                       1.0f / sqrtf((float)att.hd));
    BENCH_CUBLAS(cublasGemmEx(att.handle, CUBLAS_OP_N, CUBLAS_OP_N, att.hd,
                              att.seq, att.seq, &one, att.v, CUDA_R_16F,
                              att.hd, att.p, CUDA_R_16F, att.seq, &zero, att.o,
                              CUDA_R_32F, att.hd, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

// The normwise error of the (seq, hd) f32 device array "o" against the
// reference (infinite when an element is not finite).
static double att_err(const float *o)
{
    size_t n = (size_t)att.seq * att.hd;
    float *h = (float *)bench_host_alloc(n * sizeof(float));
    double err;
    BENCH_CK(cudaMemcpy(h, o, n * sizeof(float), cudaMemcpyDeviceToHost));
    err = bench_normwise(h, att.ref, n);
    free(h);
    return err;
}

// 4 seq^2 hd flops (the two GEMMs) in "ms" milliseconds, in TFLOP/s.
static double att_tflops(float ms)
{
    return 4.0 * att.seq * att.seq * att.hd / (ms * 1e-3) / 1e12;
}

#endif
