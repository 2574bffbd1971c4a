// SPDX-License-Identifier: Apache-2.0
//
// The naive attention baseline of issue 13 §4 for scripts/gpu_check.sh:
// O = softmax(Q K^T / sqrt(D)) V, non-causal, with Q, K, V (SEQ, D) f16
// row-major and O (SEQ, D) f32, as two cuBLAS GEMMs (f32 scores, f16 P)
// and a row softmax kernel (attention_naive.cuh, which flash_attention.cu
// shares). It checks O normwise against a reference kernel (one CTA per
// query row, f32 throughout), times the three steps together with
// cudaEvents (3 warm-ups, median of 11) and prints one line,
// "attention_naive seq S head D f16: T ms, X TFLOP/s, err E pass" (or
// FAIL; TFLOP/s counts the two GEMMs, 4 SEQ^2 D). flash_attention.cu
// times the flash-attention example kernel against the same baseline.
//   nvcc -O2 -arch=sm_80 attention_naive.cu -lcublas && ./a.out 4096 64
// Exit 0 when the check passes, 1 when it fails, 2 on a usage or CUDA error.
#define BENCH_NAME "attention_naive"
#include "attention_naive.cuh"

int main(int argc, char **argv)
{
    float ms;
    double err;
    int seq = argc == 3 ? atoi(argv[1]) : 0;
    int hd = argc == 3 ? atoi(argv[2]) : 0;
    if (seq < 1 || seq > ATT_MAX_SEQ || hd < 1 || hd > 1024) {
        fprintf(
            stderr,
            "usage: attention_naive SEQ D (1 <= SEQ <= %d, 1 <= D <= 1024)\n",
            ATT_MAX_SEQ);
        return 2;
    }
    att_init(seq, hd);
    // NaN: a skipped store shows
    BENCH_CK(cudaMemset(att.o, 0xff, (size_t)seq * hd * sizeof(float)));
    att_run();
    BENCH_CK(cudaGetLastError());
    err = att_err(att.o);
    ms = bench_time_ms(att_run);
    printf("attention_naive seq %d head %d f16: %.3f ms, %.1f TFLOP/s, err "
           "%.1e %s\n",
           seq, hd, ms, att_tflops(ms), err, err <= ATT_TOL ? "pass" : "FAIL");
    cublasDestroy(att.handle);
    return err <= ATT_TOL ? 0 : 1;
}
