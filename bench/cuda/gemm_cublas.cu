// SPDX-License-Identifier: Apache-2.0
//
// GEMM driver for scripts/gpu_check.sh (issue 13 §3.4, §4): links the
// launcher of an `axe compile --target cuda` GEMM (C = A * B^T with A (M,K),
// B (N,K) row-major f16 or bf16, C (M,N) row-major f32), fills A and B on
// the GPU with seeded values in [-1, 1), checks the axe result and cuBLAS's
// normwise against a naive CUDA kernel (f32 accumulation), times both with
// cudaEvents (3 warm-ups, median of 11) and prints one line, "gemm NAME M
// N K DTYPE: axe T TFLOP/s, cublas T TFLOP/s, ratio R, err E/E pass" (or
// FAIL; ratio = cuBLAS time / axe time, err = axe's/cuBLAS's normwise).
// Build (gpu_check.sh does this):
//   nvcc -O2 -arch=sm_80 -DAXE_LAUNCH_FN=axe_launch_gemm_pipelined -DGM=4096
//        -DGN=4096 -DGK=4096 [-DAXE_BF16] gemm_cublas.cu kernel.cu -lcublas
// Exit 0 when both checks pass, 1 when one fails, 2 on a CUDA error.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define BENCH_NAME "gemm_cublas"
#include "bench_cuda.h"

#ifndef AXE_LAUNCH_FN
#error "define AXE_LAUNCH_FN (the emitted launcher, axe_launch_NAME)"
#endif
#if !defined(GM) || !defined(GN) || !defined(GK)
#error "define GM, GN, GK (the sizes the kernel was compiled with)"
#endif
#ifdef AXE_BF16
typedef __nv_bfloat16 elem_t;
#define ELEM_CUDA CUDA_R_16BF
#define ELEM_NAME "bf16"
#define TOL 1e-4
#else
typedef __half elem_t;
#define ELEM_CUDA CUDA_R_16F
#define ELEM_NAME "f16"
#define TOL 1e-4
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

extern "C" int AXE_LAUNCH_FN(uint16_t *a, uint16_t *b, float *c,
                             cudaStream_t s);

// C[m, n] = sum_k A[m, k] * B[n, k], one thread per element, f32 sums.
static __global__ void naive(const elem_t *a, const elem_t *b, float *c)
{
    int n = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
    if (n < GN) {
        float s = 0;
        for (int k = 0; k < GK; k++)
            s += (float)a[(size_t)m * GK + k] * (float)b[(size_t)n * GK + k];
        c[(size_t)m * GN + n] = s;
    }
}

static cublasHandle_t handle;
static elem_t *da, *db;
static float *dc;

static void run_axe(void)
{
    int rc = AXE_LAUNCH_FN((uint16_t *)da, (uint16_t *)db, dc, 0);
    if (rc != 0) {
        fprintf(stderr, "gemm_cublas: " STR(AXE_LAUNCH_FN) ": %s\n",
                cudaGetErrorString((cudaError_t)rc));
        exit(2);
    }
}

// Row-major C (M,N) = A (M,K) B^T is column-major C^T (N,M) = B A^T: B is
// column-major (K,N) with ld K, transposed; A column-major (K,M), not.
static void run_cublas(void)
{
    const float one = 1, zero = 0;
    BENCH_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, GN, GM, GK,
                              &one, db, ELEM_CUDA, GK, da, ELEM_CUDA, GK, &zero,
                              dc, CUDA_R_32F, GN, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
}

int main(void)
{
    const size_t na = (size_t)GM * GK, nb = (size_t)GN * GK,
                 nc = (size_t)GM * GN;
    float *ref, *out, *dref;
    double flop = 2.0 * GM * GN * GK, e_axe, e_cub;
    float t_axe, t_cub;
    BENCH_CUBLAS(cublasCreate(&handle));
    BENCH_CK(cudaMalloc(&da, na * sizeof(elem_t)));
    BENCH_CK(cudaMalloc(&db, nb * sizeof(elem_t)));
    BENCH_CK(cudaMalloc(&dc, nc * sizeof(float)));
    BENCH_CK(cudaMalloc(&dref, nc * sizeof(float)));
    ref = (float *)bench_host_alloc(nc * sizeof(float));
    out = (float *)bench_host_alloc(nc * sizeof(float));
    bench_fill(da, na, 0x9e3779b9u);
    bench_fill(db, nb, 0x85ebca6bu);
    naive<<<dim3((GN + 127) / 128, GM), 128>>>(da, db, dref);
    BENCH_CK(cudaGetLastError());
    BENCH_CK(cudaMemcpy(ref, dref, nc * sizeof(float), cudaMemcpyDeviceToHost));

    // NaN: a skipped store shows
    BENCH_CK(cudaMemset(dc, 0xff, nc * sizeof(float)));
    run_axe();
    BENCH_CK(cudaDeviceSynchronize());
    BENCH_CK(cudaMemcpy(out, dc, nc * sizeof(float), cudaMemcpyDeviceToHost));
    e_axe = bench_normwise(out, ref, nc);
    BENCH_CK(cudaMemset(dc, 0xff, nc * sizeof(float)));
    run_cublas();
    BENCH_CK(cudaDeviceSynchronize());
    BENCH_CK(cudaMemcpy(out, dc, nc * sizeof(float), cudaMemcpyDeviceToHost));
    e_cub = bench_normwise(out, ref, nc);

    t_axe = bench_time_ms(run_axe);
    t_cub = bench_time_ms(run_cublas);
    BENCH_CK(cudaGetLastError());
    int pass = e_axe <= TOL && e_cub <= TOL;
    printf("gemm %s %d %d %d %s: axe %.1f TFLOP/s, cublas %.1f TFLOP/s, ratio "
           "%.2f, "
           "err %.1e/%.1e %s\n",
           STR(AXE_LAUNCH_FN), GM, GN, GK, ELEM_NAME,
           flop / (t_axe * 1e-3) / 1e12, flop / (t_cub * 1e-3) / 1e12,
           t_cub / t_axe, e_axe, e_cub, pass ? "pass" : "FAIL");
    cublasDestroy(handle);
    return pass ? 0 : 1;
}
