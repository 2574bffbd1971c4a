// SPDX-License-Identifier: Apache-2.0
//
// The naive attention baseline of issue 13 §4 for scripts/gpu_check.sh:
// O = softmax(Q K^T / sqrt(D)) V, non-causal, with Q, K, V (SEQ, D) f16
// row-major and O (SEQ, D) f32, as two cuBLAS GEMMs (f32 scores, f16 P)
// and a row softmax kernel. It checks O normwise against a reference
// kernel (one CTA per query row, f32 throughout), times the three steps
// together with cudaEvents (3 warm-ups, median of 11) and prints one line,
// "attention_naive seq S head D f16: T ms, X TFLOP/s, err E pass" (or FAIL;
// TFLOP/s counts the two GEMMs, 4 SEQ^2 D). A flash-attention kernel's
// time is to be compared with T once an example kernel exists.
//   nvcc -O2 -arch=sm_80 attention_naive.cu -lcublas && ./a.out 4096 64
// Exit 0 when the check passes, 1 when it fails, 2 on a usage or CUDA error.
#include <cuda_fp16.h>

#define BENCH_NAME "attention_naive"
#include "bench_cuda.h"

#define TOL 5e-3
#define MAX_SEQ 8192 /* the reference keeps a score row in shared memory */

// The block's max (op 0) or sum (op 1) of v over its 256 threads.
static __device__ float block_reduce(float v, int op, float *red)
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
static __global__ void softmax_rows(const float *s, __half *p, int seq,
                                    float scale)
{
    __shared__ float red[256];
    const float *r = s + (size_t)blockIdx.x * seq;
    float m = -INFINITY, sum = 0;
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        m = fmaxf(m, r[j] * scale);
    m = block_reduce(m, 0, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        sum += expf(r[j] * scale - m);
    sum = block_reduce(sum, 1, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        p[(size_t)blockIdx.x * seq + j] =
            __float2half(expf(r[j] * scale - m) / sum);
}

// The reference: row i of O in f32, one CTA of 256 per query row.
static __global__ void reference(const __half *q, const __half *k,
                                 const __half *v, float *o, int seq, int d,
                                 float scale)
{
    __shared__ float sc[MAX_SEQ];
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
    m = block_reduce(m, 0, red);
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        sc[j] = expf(sc[j] - m);
        sum += sc[j];
    }
    sum = block_reduce(sum, 1, red);
    for (int c = threadIdx.x; c < d; c += blockDim.x) {
        float t = 0;
        for (int j = 0; j < seq; j++)
            t += sc[j] * __half2float(v[(size_t)j * d + c]);
        o[i * d + c] = t / sum;
    }
}

static cublasHandle_t handle;
static __half *dq, *dk, *dv, *dp;
static float *ds, *dout;
static int seq, hd;

// Row-major S (seq, seq) = Q K^T is column-major S^T = K Q^T; row-major
// O (seq, d) = P V is column-major O^T = V^T P^T (V and P as stored).
static void run(void)
{
    const float one = 1, zero = 0;
    BENCH_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, seq, seq, hd,
                              &one, dk, CUDA_R_16F, hd, dq, CUDA_R_16F, hd,
                              &zero, ds, CUDA_R_32F, seq, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    softmax_rows<<<seq, 256>>>(ds, dp, seq, 1.0f / sqrtf((float)hd));
    BENCH_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, hd, seq, seq,
                              &one, dv, CUDA_R_16F, hd, dp, CUDA_R_16F, seq,
                              &zero, dout, CUDA_R_32F, hd, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

int main(int argc, char **argv)
{
    float ms, *out, *ref, *dref;
    double err;
    size_t n;
    seq = argc == 3 ? atoi(argv[1]) : 0;
    hd = argc == 3 ? atoi(argv[2]) : 0;
    if (seq < 1 || seq > MAX_SEQ || hd < 1 || hd > 1024) {
        fprintf(
            stderr,
            "usage: attention_naive SEQ D (1 <= SEQ <= %d, 1 <= D <= 1024)\n",
            MAX_SEQ);
        return 2;
    }
    n = (size_t)seq * hd;
    BENCH_CUBLAS(cublasCreate(&handle));
    BENCH_CK(cudaMalloc(&dq, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&dk, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&dv, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&dp, (size_t)seq * seq * sizeof(__half)));
    BENCH_CK(cudaMalloc(&ds, (size_t)seq * seq * sizeof(float)));
    BENCH_CK(cudaMalloc(&dout, n * sizeof(float)));
    BENCH_CK(cudaMalloc(&dref, n * sizeof(float)));
    out = (float *)bench_host_alloc(n * sizeof(float));
    ref = (float *)bench_host_alloc(n * sizeof(float));
    bench_fill(dq, n, 0x9e3779b9u);
    bench_fill(dk, n, 0x85ebca6bu);
    bench_fill(dv, n, 0xc2b2ae35u);
    reference<<<seq, 256>>>(dq, dk, dv, dref, seq, hd, 1.0f / sqrtf((float)hd));
    BENCH_CK(cudaGetLastError());
    BENCH_CK(cudaMemcpy(ref, dref, n * sizeof(float), cudaMemcpyDeviceToHost));
    // NaN: a skipped store shows
    BENCH_CK(cudaMemset(dout, 0xff, n * sizeof(float)));
    run();
    BENCH_CK(cudaGetLastError());
    BENCH_CK(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    err = bench_normwise(out, ref, n);
    ms = bench_time_ms(run);
    printf("attention_naive seq %d head %d f16: %.3f ms, %.1f TFLOP/s, err "
           "%.1e %s\n",
           seq, hd, ms, 4.0 * seq * seq * hd / (ms * 1e-3) / 1e12, err,
           err <= TOL ? "pass" : "FAIL");
    cublasDestroy(handle);
    return err <= TOL ? 0 : 1;
}
