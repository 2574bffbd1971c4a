#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# GPU check (issue 13 §4), for a session that was lent a GPU: one call that
# builds axe (release preset), runs every kernel of examples/kernels/ with
# `axe run --target cuda --check --json` and then `--bench --json`, measures
# the cudaMemcpy device-to-device bandwidth as the copy baseline, and prints
# one table (kernel, schedules, pass, seconds, GB/s, ratio to the memcpy
# baseline) headed by the GPU's name. Full JSON lines and logs go to $OUT
# (or build/gpu_check) for the record in docs/bench.md.
# Without a GPU (nvidia-smi absent or seeing none) it prints why and exits
# 77, as the tests do: CI never depends on it. Nothing here installs
# packages: the device machine reaches no registry; it needs cmake, ninja,
# a C compiler and nvcc, which its image has.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out=${OUT:-build/gpu_check}
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu_check: no GPU (nvidia-smi sees none); skipped"
    exit 77
fi
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
export PATH="$(dirname "$NVCC"):$PATH"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
arch=sm_80
[ "${cap:-0}" -ge 90 ] 2>/dev/null && arch=sm_90
echo "gpu_check: $gpu, $(date -u +%F), --arch $arch" | tee "$out/summary.txt"

cmake --preset release >"$out/cmake.log" 2>&1 &&
    cmake --build --preset release >>"$out/cmake.log" 2>&1 || {
    echo "gpu_check: the build failed (tail of $out/cmake.log):"
    tail -20 "$out/cmake.log"
    exit 1
}
AXE=$PWD/build/release/axe

# The copy baseline: cudaMemcpy device to device of 64 MiB, bytes read plus
# bytes written over the median of 20 timed copies after 3 warm-ups.
cat >"$out/memcpy_bw.cu" <<'CU'
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
int main(void)
{
    const size_t n = (size_t)64 << 20;
    void *a, *b;
    cudaEvent_t e0, e1;
    float ms[20];
    int i;
    if (cudaMalloc(&a, n) != cudaSuccess || cudaMalloc(&b, n) != cudaSuccess)
        return 1;
    cudaMemset(a, 1, n);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (i = 0; i < 3; i++)
        cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice);
    for (i = 0; i < 20; i++) {
        cudaEventRecord(e0, 0);
        cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms[i], e0, e1);
    }
    if (cudaGetLastError() != cudaSuccess)
        return 1;
    qsort(ms, 20, sizeof ms[0], cmp);
    printf("%.1f\n", 2.0 * (double)n / (ms[10] * 1e-3) / 1e9);
    return 0;
}
CU
base=
if "$NVCC" -O2 -arch="$arch" -o "$out/memcpy_bw" "$out/memcpy_bw.cu" \
    >"$out/memcpy_bw.log" 2>&1; then
    base=$("$out/memcpy_bw" 2>>"$out/memcpy_bw.log")
fi
echo "cudaMemcpy device-to-device, 64 MiB: ${base:-failed} GB/s" |
    tee -a "$out/summary.txt"

# field JSON KEY: the value of KEY in a one-line JSON object (jq if present).
field() {
    if command -v jq >/dev/null 2>&1; then
        printf '%s' "$1" | jq -c -r ".$2 // \"-\"" 2>/dev/null || echo "-"
    else
        printf '%s' "$1" | sed -n "s/.*\"$2\":\\([^,}]*\\).*/\\1/p" | head -1
    fi
}

printf '%-22s %-6s %-12s %-10s %-8s %s\n' kernel pass seconds GB/s ratio schedules |
    tee -a "$out/summary.txt"
for k in examples/kernels/*.axe; do
    name=$(basename "$k" .axe)
    chk=$(timeout 300 "$AXE" run "$k" --target cuda --arch "$arch" --check --json 2>"$out/$name.check.err")
    echo "$chk" >>"$out/check.jsonl"
    b=$(timeout 300 "$AXE" run "$k" --target cuda --arch "$arch" --bench --json 2>"$out/$name.bench.err")
    echo "$b" >>"$out/bench.jsonl"
    pass=$(field "$chk" pass)
    sec=$(field "$b" seconds)
    bps=$(field "$b" bytes_per_s)
    gbs=-
    ratio=-
    case "$bps" in
    '' | - | null) ;;
    *)
        gbs=$(awk -v x="$bps" 'BEGIN { printf "%.1f", x / 1e9 }')
        [ -n "$base" ] && ratio=$(awk -v x="$gbs" -v y="$base" 'BEGIN { printf "%.2f", x / y }')
        ;;
    esac
    printf '%-22s %-6s %-12s %-10s %-8s %s\n' "$name" "${pass:--}" "${sec:--}" \
        "$gbs" "$ratio" "$(field "$chk" schedules)" | tee -a "$out/summary.txt"
done
echo "gpu_check: full JSON in $out/check.jsonl and $out/bench.jsonl"
