// SPDX-License-Identifier: Apache-2.0
//
// Flash-attention driver for scripts/gpu_check.sh (issue 13 §4): links the
// launcher of examples/kernels/flash_attention.axe compiled for one size
// (`axe compile flash_attention.axe --target cuda -D SEQ=4096 -D D=64`),
// runs it on the inputs of the naive baseline (attention_naive.cuh: Q, K,
// V (SEQ, D) f16 row-major, seeded values in [-1, 1)) into an f16 O (it
// starts as NaN, so a skipped store fails), checks it and the baseline
// normwise against the f32 reference kernel (ATT_TOL), times both with
// cudaEvents (3 warm-ups, median of 11) and prints one line,
// "flash_attention seq S head D f16: T ms, X TFLOP/s, err E pass; naive
// T0 ms, X0 TFLOP/s, err E0 pass; ratio R" (or FAIL; TFLOP/s counts
// 4 SEQ^2 D flops, ratio = naive time / flash time).
// Build (gpu_check.sh does this):
//   nvcc -O2 -arch=sm_80 -DFA_SEQ=4096 -DFA_D=64 flash_attention.cu
//        kernel.cu -lcublas
// Exit 0 when both checks pass, 1 when one fails, 2 on a CUDA error.
#define BENCH_NAME "flash_attention"
#include "attention_naive.cuh"

#ifndef AXE_LAUNCH_FN
#define AXE_LAUNCH_FN axe_launch_flash_attention
#endif
#if !defined(FA_SEQ) || !defined(FA_D)
#error "define FA_SEQ and FA_D (the SEQ and D the kernel was compiled with)"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

extern "C" int AXE_LAUNCH_FN(uint16_t *q, uint16_t *k, uint16_t *v,
                             uint16_t *o, cudaStream_t s);

static __half *fa_o; // the kernel's O (FA_SEQ, FA_D)

static void fa_run(void)
{
    int rc = AXE_LAUNCH_FN((uint16_t *)att.q, (uint16_t *)att.k,
                           (uint16_t *)att.v, (uint16_t *)fa_o, 0);
    if (rc != 0) {
        fprintf(stderr, BENCH_NAME ": " STR(AXE_LAUNCH_FN) ": %s\n",
                cudaGetErrorString((cudaError_t)rc));
        exit(2);
    }
}

static __global__ void widen(const __half *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = __half2float(x[i]);
}

int main(void)
{
    const size_t n = (size_t)FA_SEQ * FA_D;
    double err, err0;
    float ms, ms0, *o32;
    att_init(FA_SEQ, FA_D);
    BENCH_CK(cudaMalloc(&fa_o, n * sizeof(__half)));
    BENCH_CK(cudaMalloc(&o32, n * sizeof(float)));
    // NaN: a skipped store shows
    BENCH_CK(cudaMemset(fa_o, 0xff, n * sizeof(__half)));
    BENCH_CK(cudaMemset(att.o, 0xff, n * sizeof(float)));
    fa_run();
    att_run();
    widen<<<(unsigned)((n + 255) / 256), 256>>>(fa_o, o32, n);
    BENCH_CK(cudaGetLastError());
    err = att_err(o32);
    err0 = att_err(att.o);
    ms = bench_time_ms(fa_run);
    ms0 = bench_time_ms(att_run);
    printf("flash_attention seq %d head %d f16: %.3f ms, %.1f TFLOP/s, err "
           "%.1e %s; naive %.3f ms, %.1f TFLOP/s, err %.1e %s; ratio %.2f\n",
           FA_SEQ, FA_D, ms, att_tflops(ms), err,
           err <= ATT_TOL ? "pass" : "FAIL", ms0, att_tflops(ms0), err0,
           err0 <= ATT_TOL ? "pass" : "FAIL", ms0 / ms);
    cublasDestroy(att.handle);
    return err <= ATT_TOL && err0 <= ATT_TOL ? 0 : 1;
}
