#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# GPU check (issue 13 §4), for a session that was lent a GPU: one call that
# builds axe (release preset), measures the cudaMemcpy device-to-device
# bandwidth as the copy baseline, runs every kernel of examples/kernels/ at
# its example size with `axe run --target cuda --check --bench --json`
# (one table: kernel, pass, seconds, GB/s, ratio to the memcpy baseline,
# schedules), then the issue's sizes (a second table): the 64 MiB copy,
# transpose, row softmax and RMSNorm against the baseline and the copy, and
# the 4096^3 f16 and bf16 GEMMs of gemm_mma.axe and gemm_pipelined.axe
# through bench/cuda/gemm_cublas.cu (checked against a naive CUDA kernel,
# timed against cuBLAS), the naive attention baseline
# (bench/cuda/attention_naive.cu, seq 4096, head dim 64 and 128), the
# flash-attention example against it (bench/cuda/flash_attention.cu), then
# the same four GEMMs through `axe run --target cuda --check`, which past
# the CPU reference's work limit checks them against the naive variant of
# the program on the GPU ("reference":"gpu-naive"), and last the mesh
# programs of examples/kernels/dist/ with MPI and NCCL (one rank per GPU;
# --ranks 1 on one GPU), and the mixed-precision (f16, bf16) device gemm
# on tensor cores timed against f32's. Full JSON lines and logs go to $OUT (or
# build/gpu_check) for the record in docs/bench.md.
# Without a GPU (nvidia-smi absent or seeing none) it prints why and exits
# 77, as the tests do: CI never depends on it. GPU_CHECK_DRY=1 does all
# that needs no GPU (build, emit the issue-size kernels and the GEMMs'
# naive variants, nvcc-compile them and every driver with -Werror
# all-warnings for sm_80 and sm_90) and runs nothing on a GPU. AXE=PATH uses that axe binary instead of building.
# Nothing here installs packages: the device machine reaches no registry;
# it needs cmake, ninja, a C compiler, nvcc and cuBLAS, which its image has.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
out=${OUT:-build/gpu_check}
mkdir -p "$out"
dry=${GPU_CHECK_DRY:-0}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
PATH="$(dirname "$NVCC"):$PATH"
export PATH
if [ "$dry" = 1 ]; then
    command -v "$NVCC" >/dev/null 2>&1 || {
        echo "gpu_check: dry run without nvcc; skipped"
        exit 77
    }
    archs="sm_80 sm_90"
    echo "gpu_check: dry run (no GPU used), $(date -u +%F), --arch $archs" |
        tee "$out/summary.txt"
else
    if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
        echo "gpu_check: no GPU (nvidia-smi sees none); skipped"
        exit 77
    fi
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
    capv=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1)
    cap=$(printf '%s' "$capv" | tr -d .)
    archs=sm_80
    [ "${cap:-0}" -ge 89 ] 2>/dev/null && archs=sm_89
    [ "${cap:-0}" -ge 90 ] 2>/dev/null && archs=sm_90
    echo "gpu_check: $gpu, $(date -u +%F), --arch $archs" | tee "$out/summary.txt"
fi
arch=${archs%% *}

if [ -n "${AXE:-}" ]; then
    [ -x "$AXE" ] || {
        echo "gpu_check: AXE=$AXE is not an executable"
        exit 1
    }
else
    cmake --preset release >"$out/cmake.log" 2>&1 &&
        cmake --build --preset release >>"$out/cmake.log" 2>&1 || {
        echo "gpu_check: the build failed (tail of $out/cmake.log):"
        tail -20 "$out/cmake.log"
        exit 1
    }
    AXE=$PWD/build/release/axe
fi
status=0
T0=$(date +%s)
# mark WHAT: the seconds since the start, in the summary
mark() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$out/summary.txt"; }

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
for a in $archs; do
    "$NVCC" -O2 -arch="$a" -Werror all-warnings -o "$out/memcpy_bw" "$out/memcpy_bw.cu" \
        >>"$out/memcpy_bw.log" 2>&1 || {
        echo "gpu_check: memcpy_bw.cu does not compile for $a (see $out/memcpy_bw.log)"
        status=1
    }
done
if [ "$dry" != 1 ] && [ -x "$out/memcpy_bw" ]; then
    base=$("$out/memcpy_bw" 2>>"$out/memcpy_bw.log")
    echo "cudaMemcpy device-to-device, 64 MiB: ${base:-failed} GB/s" |
        tee -a "$out/summary.txt"
fi

# field JSON KEY: the value of KEY in a one-line JSON object (jq if present).
field() {
    if command -v jq >/dev/null 2>&1; then
        printf '%s' "$1" | jq -c -r ".$2 // \"-\"" 2>/dev/null || echo "-"
    else
        printf '%s' "$1" | sed -n "s/.*\"$2\":\\([^,}]*\\).*/\\1/p" | head -1
    fi
}
# gbs BYTES_PER_S: GB/s with one decimal, or - when there is no rate.
gbs() {
    case "$1" in
    '' | - | null) echo - ;;
    *) awk -v x="$1" 'BEGIN { printf "%.1f", x / 1e9 }' ;;
    esac
}
# ratio X Y: X / Y with two decimals, or - when either is missing.
ratio() {
    case "$1$2" in
    *-* | '') echo - ;;
    *) [ -n "$1" ] && [ -n "$2" ] && awk -v x="$1" -v y="$2" 'BEGIN { printf "%.2f", x / y }' || echo - ;;
    esac
}

# check_row JSON ERR JSONL FORMAT LABEL...: one checked run's row: its
# JSON line JSON appended to $out/JSONL, the LABELs then its pass and
# max_abs_err printed by FORMAT into the summary, and when it did not
# pass, status 1 and the first lines of its stderr ERR.
check_row() {
    local j=$1 err=$2 jsonl=$3 fmt=$4
    shift 4
    echo "$j" >>"$out/$jsonl"
    # shellcheck disable=SC2059 # the format is the caller's
    printf "$fmt" "$@" "$(field "$j" pass)" "$(field "$j" max_abs_err)" |
        tee -a "$out/summary.txt"
    [ "$(field "$j" pass)" = true ] || {
        status=1
        sed 's/^/    /' "$err" | head -5 | tee -a "$out/summary.txt"
    }
}
# Background checks run JOBS at a time (default: the cores; nvcc and the
# CPU reference dominate): `throttle` before each (it waits for the
# oldest while JOBS run), `CMD & bg+=("$!")`, and `reap` after the batch.
# Every job is waited for once, by its pid, and one that fails sets
# status 1 (its row then says why). Never `wait` alone or `wait -n`: they
# also take the builds started before section 1 ("builds", waited for
# before section 3), which a bare `wait` reaps so that the later
# `wait PID` finds no such child.
jobs_max=${JOBS:-$(nproc)}
bg=()
reap_one() { # the oldest job of "bg"
    wait "${bg[0]}" || status=1
    bg=("${bg[@]:1}")
}
throttle() { while [ "${#bg[@]}" -ge "$jobs_max" ]; do reap_one; done; }
reap() { while [ "${#bg[@]}" -gt 0 ]; do reap_one; done; }

# gemm_build NAME DTYPE [-D ...]: emit the 4096^3 GEMM of examples/NAME.axe
# (retyped to bf16 for DTYPE bf16) for each arch, require its mma.sync, and
# link it with bench/cuda/gemm_cublas.cu; $out/NAME.DTYPE.ok when all built.
# Run in the background (nvcc is slow) while the examples run.
gemm_src() { # NAME DTYPE: the GEMM's source (bf16: retyped, below)
    if [ "$2" = bf16 ]; then
        echo "$out/${1}_bf16.axe"
    else
        echo "examples/kernels/$1.axe"
    fi
}
for g in gemm_mma gemm_pipelined; do
    sed -E 's/([ :])f16\[/\1bf16[/g' "examples/kernels/$g.axe" >"$out/${g}_bf16.axe"
done
gemm_build() {
    local name=$1 dt=$2 src a tag=$1.$2 def=
    shift 2
    src=$(gemm_src "$name" "$dt")
    rm -f "$out/$tag.ok"
    [ "$dt" = bf16 ] && def=-DAXE_BF16
    for a in $archs; do
        { "$AXE" compile "$src" -D M=4096 -D N=4096 -D K=4096 "$@" --target cuda --arch "$a" \
            -o "$out/$tag.$a.cu" &&
            grep -q "mma.sync.aligned.m16n8k16.row.col.f32.$dt.$dt.f32" "$out/$tag.$a.cu" &&
            "$NVCC" -O2 -arch="$a" -Werror all-warnings $def -DAXE_LAUNCH_FN="axe_launch_$name" \
                -DGM=4096 -DGN=4096 -DGK=4096 -o "$out/$tag.$a" bench/cuda/gemm_cublas.cu \
                "$out/$tag.$a.cu" -lcublas; } >"$out/$tag.err" 2>&1 || return 1
    done
    touch "$out/$tag.ok"
}
gemms=("gemm_mma f16" "gemm_mma bf16" "gemm_pipelined f16 -D STAGES=3"
    "gemm_pipelined bf16 -D STAGES=3")
# gemm_naive NAME DTYPE [-D ...] (dry run): the naive variant of the
# 4096^3 GEMM, the reference `axe run --check` builds past the CPU's
# limit, emitted for each arch without mma.sync, ldmatrix or cp.async and
# nvcc-compiled with the harness as axe run would; $out/TAG.naive.ok.
gemm_naive() {
    local name=$1 dt=$2 src a tag=$1.$2
    shift 2
    src=$(gemm_src "$name" "$dt")
    rm -f "$out/$tag.naive.ok"
    for a in $archs; do
        { "$AXE" compile "$src" -D M=4096 -D N=4096 -D K=4096 "$@" --target cuda \
            --arch "$a" --naive -o "$out/$tag.naive.$a.cu" &&
            ! grep -E 'axe_ptx_(mma_m1|ldmatrix_x|cp_async_c)' "$out/$tag.naive.$a.cu" &&
            "$NVCC" -std=c++17 -O2 -arch="$a" -Werror all-warnings -DAXE_KERNEL_MAIN \
                -o "$out/$tag.naive.$a" "$out/$tag.naive.$a.cu"; } >"$out/$tag.naive.err" 2>&1 ||
            return 1
    done
    touch "$out/$tag.naive.ok"
}
# gemm_check NAME DTYPE [-D ...]: the 4096^3 GEMM through axe run --check
# (its JSON line in $out/TAG.check.json).
gemm_check() {
    local name=$1 dt=$2 tag=$1.$2
    shift 2
    timeout 900 "$AXE" run "$(gemm_src "$name" "$dt")" -D M=4096 -D N=4096 -D K=4096 "$@" \
        --target cuda --arch "$arch" --check --json >"$out/$tag.check.json" \
        2>"$out/$tag.check.err"
}
# attention_build: bench/cuda/attention_naive.cu for each arch.
attention_build() {
    local a
    rm -f "$out/attention_naive.ok"
    for a in $archs; do
        "$NVCC" -O2 -arch="$a" -Werror all-warnings -o "$out/attention_naive.$a" \
            bench/cuda/attention_naive.cu -lcublas >"$out/attention_naive.err" 2>&1 || return 1
    done
    touch "$out/attention_naive.ok"
}
# flash_build TAG D [-D ...]: examples/kernels/flash_attention.axe at seq
# 4096, head dim D (and the -D options), for each arch, required to use
# mma.sync and to be pipelined, linked with bench/cuda/flash_attention.cu;
# $out/flash_attention.TAG.ok when built.
flash_build() {
    local tag=flash_attention.$1 d=$2 a
    shift 2
    rm -f "$out/$tag.ok"
    for a in $archs; do
        { "$AXE" compile examples/kernels/flash_attention.axe -D SEQ=4096 -D D="$d" "$@" \
            --target cuda --arch "$a" -o "$out/$tag.$a.cu" &&
            grep -q "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" "$out/$tag.$a.cu" &&
            grep -q "axe_ptx_cp_async_wait<1>" "$out/$tag.$a.cu" &&
            "$NVCC" -O2 -arch="$a" -Werror all-warnings -DFA_SEQ=4096 -DFA_D="$d" \
                -o "$out/$tag.$a" bench/cuda/flash_attention.cu "$out/$tag.$a.cu" \
                -lcublas; } >"$out/$tag.err" 2>&1 || return 1
    done
    touch "$out/$tag.ok"
}
# TAG D [-D ...]: head dim 64 and 128 with the example's key blocks of 64,
# and 128 with blocks of 32 (half the shared memory: 2 CTAs per SM).
flashes=("d64 64" "d128 128" "d128_bn32 128 -D BN=32")
attention_build &
builds=("$!")
for t in "${flashes[@]}"; do
    # shellcheck disable=SC2086
    flash_build $t &
    builds+=("$!")
done
for t in "${gemms[@]}"; do
    # shellcheck disable=SC2086
    gemm_build $t &
    builds+=("$!")
    if [ "$dry" = 1 ]; then
        # shellcheck disable=SC2086
        gemm_naive $t &
        builds+=("$!")
    fi
done

# 1. Every example kernel at its example size (gemm_f16_i4.axe and its
# auto twin gemm_f16_i4_auto.axe among them), the shared-layout
# synthesis tiles of issue 15 (tests/kernels/smem_*.axe), the gemms on the
# m16n8k8 atoms (f16, bf16, register A: gemm_k24*.axe, gemm_reg_a_k24.axe;
# CI checks them under --emulate), register A/B over several warps
# (gemm_reg_[ab]_wn*.axe: mma_reg_a/b; gemm_reg_perm.axe: both in a
# register order other than the atom's), the packed i4 kernels
# (tests/kernels/i4_*.axe: byte stores on a real GPU, swizzled i4 tiles in
# i4_swz*.axe, ldmatrix copies of i4 in i4_ldsm*.axe; of 8- and 16-bit
# elements, plain and .trans, in ldsm_*.axe), the copies
# vectorized along dimension 0
# (tests/kernels/vec_dim0*.axe, flash_vt_auto.axe; smem_vt_cta_auto.axe
# is among the smem tiles), along a run of sub-iters (vec_sub.axe) and in
# the loop order the bank model picks (vec_bank.axe): `axe run --check
# --json` each, JOBS at a time
# (default: the cores; nvcc and the CPU reference dominate, and the
# example sizes are too small to time: sections 1b-4 time). CI already
# compiles each of them for sm_80 and sm_90 (tests/compiler_cuda.sh): a
# dry run skips them.
# ex_args FILE: the values of a kernel's runtime scalars (and index
# ranges) for `axe run`, from its line "# axe run args: ..." (each
# example with runtime scalars has one: tests/compiler_kernels.sh).
ex_args() { sed -n 's/^# axe run args: //p' "$1" | head -1; }
# newer_arch FILE: the compiler's refusal of FILE at $arch for lack of a
# later architecture (e4m3/e5m2 mma.sync, gemm_fp8.axe: "needs --arch
# sm_89 or later"), or nothing; section 1 skips such a kernel and says
# why instead of failing it on a GPU below it (an sm_80 one).
newer_arch() {
    "$AXE" compile "$1" --target cuda --arch "$arch" -o /dev/null 2>&1 |
        grep -o 'needs --arch sm_[0-9]* or later' | head -1
}
ex_check() { # FILE: its JSON line in $out/ex/NAME.json
    local name
    name=$(basename "$1" .axe)
    # shellcheck disable=SC2046
    timeout 300 "$AXE" run "$1" $(ex_args "$1") --target cuda --arch "$arch" --check \
        --json >"$out/ex/$name.json" 2>"$out/ex/$name.err"
}
if [ "$dry" != 1 ]; then
    mkdir -p "$out/ex"
    t0=$(date +%s)
    # one list for both loops; the core kernels trn_* have no CUDA form
    # (trn-sim runs them)
    kernels=()
    for k in examples/kernels/*.axe tests/kernels/smem_*.axe \
        tests/kernels/gemm_k24*.axe tests/kernels/gemm_reg_a_k24.axe \
        tests/kernels/gemm_reg_[ab]_wn*.axe tests/kernels/gemm_reg_perm.axe \
        tests/kernels/i4_*.axe tests/kernels/ldsm_*.axe \
        tests/kernels/vec_dim0*.axe tests/kernels/vec_sub.axe \
        tests/kernels/vec_bank.axe tests/kernels/flash_vt_auto.axe; do
        case $k in */trn_*) continue ;; esac
        why=$(newer_arch "$k")
        if [ -n "$why" ]; then
            echo "$(basename "$k" .axe): skipped: it $why, and this GPU's compute capability is ${capv:-unknown} (--arch $arch)" |
                tee -a "$out/summary.txt"
            continue
        fi
        kernels+=("$k")
    done
    for k in "${kernels[@]}"; do
        throttle
        ex_check "$k" &
        bg+=("$!")
    done
    reap
    printf '%-26s %-6s %s\n' kernel pass max_abs_err | tee -a "$out/summary.txt"
    for k in "${kernels[@]}"; do
        name=$(basename "$k" .axe)
        check_row "$(head -1 "$out/ex/$name.json" 2>/dev/null)" "$out/ex/$name.err" \
            examples.jsonl '%-26s %-6s %s\n' "$name"
    done
    echo "section 1: $(($(date +%s) - t0)) s" | tee -a "$out/summary.txt"
fi

[ "$dry" = 1 ] || mark "section 1b causal"
# 1b. Causal flash attention (issue 15): flash_attention_causal.axe (and
# its auto twin) at a size that is a multiple of neither tile (SEQ 1000:
# masked rows, skipped key blocks) and at SEQ 1024 beside the non-causal
# flash_attention.axe: the causal one runs about half the key blocks, so
# its seconds should be about half (a ratio near 0.5 is the expectation,
# not a gate). A dry run nvcc-compiles them.
causal_row() {
    local name=$1 file=$2 j a
    shift 2
    if [ "$dry" = 1 ]; then
        for a in $archs; do
            { "$AXE" compile "$file" "$@" --target cuda --arch "$a" -o "$out/$name.$a.cu" &&
                "$NVCC" -std=c++17 -O2 -arch="$a" -Werror all-warnings -DAXE_KERNEL_MAIN \
                    -o "$out/$name.$a" "$out/$name.$a.cu"; } >>"$out/$name.err" 2>&1 || {
                echo "gpu_check: $name does not compile for $a (see $out/$name.err)"
                status=1
            }
        done
        echo "$name $*: compiled for $archs" | tee -a "$out/summary.txt"
        return
    fi
    j=$(timeout 300 "$AXE" run "$file" "$@" --target cuda --arch "$arch" --check --bench \
        --json 2>"$out/$name.err")
    echo "$j" >>"$out/causal.jsonl"
    printf '%-28s %-26s %-6s %-10s %s\n' "$name" "${*//-D /}" "$(field "$j" pass)" \
        "$(field "$j" seconds)" "$(field "$j" max_abs_err)" | tee -a "$out/summary.txt"
}
causal_row causal_1000 examples/kernels/flash_attention_causal.axe -D SEQ=1000
causal_row causal_auto_1000 examples/kernels/flash_attention_causal_auto.axe -D SEQ=1000
causal_row causal_1024 examples/kernels/flash_attention_causal.axe -D SEQ=1024
causal_row flash_1024 examples/kernels/flash_attention.axe -D SEQ=1024

[ "$dry" = 1 ] || mark "section 2 sizes"
# 2. The issue's sizes (§4): 64 MiB of f32 per tensor. The copy's goal is
# 0.90 of cudaMemcpy, the others 0.80 of the copy's GB/s measured here.
copy_gbs=
# big NAME GOAL BASIS FILE -D ...: BASIS is memcpy or copy. A dry run emits
# the kernel for each arch and nvcc-compiles it as axe run would.
big() {
    local name=$1 goal=$2 basis=$3 file=$4 j g b a
    shift 4
    if [ "$dry" = 1 ]; then
        for a in $archs; do
            { "$AXE" compile "$file" "$@" --target cuda --arch "$a" -o "$out/$name.$a.cu" &&
                "$NVCC" -std=c++17 -O2 -arch="$a" -Werror all-warnings -DAXE_KERNEL_MAIN \
                    -o "$out/$name.$a" "$out/$name.$a.cu"; } >>"$out/$name.err" 2>&1 || {
                echo "gpu_check: $name does not compile for $a (see $out/$name.err)"
                status=1
            }
        done
        echo "$name $*: compiled for $archs" | tee -a "$out/summary.txt"
        return
    fi
    j=$(timeout 300 "$AXE" run "$file" "$@" --target cuda --arch "$arch" --check --bench \
        --json 2>"$out/$name.err")
    echo "$j" >>"$out/sizes.jsonl"
    g=$(gbs "$(field "$j" bytes_per_s)")
    b=$base
    [ "$basis" = copy ] && b=$copy_gbs
    [ "$name" = copy2d ] && copy_gbs=$g
    printf '%-10s %-26s %-6s %-10s %-8s %-8s %-6s %s\n' "$name" "${*//-D /}" \
        "$(field "$j" pass)" "$(field "$j" seconds)" "$g" "${b:--}" "$(ratio "$g" "$b")" \
        ">= $goal of $basis" | tee -a "$out/summary.txt"
}
[ "$dry" = 1 ] ||
    printf '%-10s %-26s %-6s %-10s %-8s %-8s %-6s %s\n' kernel size pass seconds GB/s \
        baseline ratio goal | tee -a "$out/summary.txt"
big copy2d 0.90 memcpy bench/kernels/copy2d.axe -D M=4096 -D N=4096
big transpose 0.80 copy examples/kernels/transpose.axe -D M=4096 -D N=4096
big softmax 0.80 copy examples/kernels/softmax.axe -D ROWS=16384 -D C=1024
big rmsnorm 0.80 copy examples/kernels/rmsnorm.axe -D ROWS=262144 -D C=64

for p in "${builds[@]}"; do
    wait "$p" || status=1
done
[ "$dry" = 1 ] || mark "section 3 gemm"
# 3. GEMM 4096^3, f16 and bf16 (the bf16 kernels are the examples with
# their f16 tensors retyped), against cuBLAS and a naive CUDA kernel
# (bench/cuda/gemm_cublas.cu; axe run refuses work past 2^30). Goal: 0.50.
for t in "${gemms[@]}"; do
    # shellcheck disable=SC2086
    set -- $t
    tag=$1.$2
    if [ ! -e "$out/$tag.ok" ]; then
        echo "gpu_check: $tag does not build, or has no $2 mma.sync (see $out/$tag.err)" |
            tee -a "$out/summary.txt"
        status=1
    elif [ "$dry" = 1 ]; then
        echo "gemm $tag 4096^3 ${*:3}: compiled for $archs" | tee -a "$out/summary.txt"
    else
        timeout 120 "$out/$tag.$arch" 2>>"$out/$tag.err" | tee -a "$out/summary.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    fi
done

[ "$dry" = 1 ] || mark "section 4 attention"
# 4. Attention, seq 4096, head dim 64 and 128: the naive baseline (two
# cuBLAS GEMMs and a row softmax, bench/cuda/attention_naive.cu, checked
# against a reference kernel), then examples/kernels/flash_attention.axe
# against the same baseline in one run (bench/cuda/flash_attention.cu:
# both checked, ratio = naive time / flash time).
if [ ! -e "$out/attention_naive.ok" ]; then
    echo "gpu_check: attention_naive.cu does not build (see $out/attention_naive.err)" |
        tee -a "$out/summary.txt"
    status=1
elif [ "$dry" = 1 ]; then
    echo "attention_naive: compiled for $archs" | tee -a "$out/summary.txt"
else
    for d in 64 128; do
        timeout 60 "$out/attention_naive.$arch" 4096 "$d" 2>>"$out/attention_naive.err" |
            tee -a "$out/summary.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
fi
for t in "${flashes[@]}"; do
    # shellcheck disable=SC2086
    set -- $t
    tag=flash_attention.$1
    if [ ! -e "$out/$tag.ok" ]; then
        echo "gpu_check: $tag does not build, or has no mma.sync or pipeline (see $out/$tag.err)" |
            tee -a "$out/summary.txt"
        status=1
    elif [ "$dry" = 1 ]; then
        echo "flash_attention seq 4096 head $2 ${*:3}: compiled for $archs" |
            tee -a "$out/summary.txt"
    else
        [ $# -le 2 ] || printf '(%s) ' "${*:3}" | tee -a "$out/summary.txt"
        timeout 120 "$out/$tag.$arch" 2>>"$out/$tag.err" | tee -a "$out/summary.txt"
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    fi
done

[ "$dry" = 1 ] || mark "section 6 gemm checks"
# 6. The 4096^3 GEMMs through `axe run --target cuda --check` (all four at
# once, after the timed steps): past the CPU reference's limit (2^30) axe
# run checks the kernel against its naive variant on the GPU (every
# operator on its simplest schedule: per-element copies, FMA gemm; no
# cp.async, ldmatrix or mma.sync), "reference":"gpu-naive".
if [ "$dry" = 1 ]; then
    for t in "${gemms[@]}"; do
        # shellcheck disable=SC2086
        set -- $t
        if [ -e "$out/$1.$2.naive.ok" ]; then
            echo "gemm $1.$2 4096^3 naive variant: compiled for $archs" | tee -a "$out/summary.txt"
        else
            echo "gpu_check: the naive variant of $1.$2 does not build, or has mma.sync, ldmatrix or cp.async (see $out/$1.$2.naive.err)" |
                tee -a "$out/summary.txt"
            status=1
        fi
    done
else
    for t in "${gemms[@]}"; do
        # shellcheck disable=SC2086
        gemm_check $t &
        bg+=("$!")
    done
    reap
    printf '%-16s %-6s %-6s %-10s %s\n' gemm dtype pass reference max_rel_err |
        tee -a "$out/summary.txt"
    for t in "${gemms[@]}"; do
        # shellcheck disable=SC2086
        set -- $t
        j=$(cat "$out/$1.$2.check.json" 2>/dev/null)
        echo "$j" >>"$out/gemm_check.jsonl"
        printf '%-16s %-6s %-6s %-10s %s\n' "$1" "$2" "$(field "$j" pass)" \
            "$(field "$j" reference)" "$(field "$j" max_rel_err)" | tee -a "$out/summary.txt"
        [ "$(field "$j" pass)" = true ] || status=1
    done
fi
[ "$dry" = 1 ] || mark "section 7 mesh"
# 7. Mesh programs (issue 14 §3): every examples/kernels/dist/*.axe as
# one MPI rank per GPU calling NCCL (axe run --target cuda --ranks N,
# docs/compiler.md "The NCCL path"; the device gemms' local GEMM kernels
# too): at --ranks 1 (-D P=1) on one GPU, and at 2, 4 and 8 ranks where
# that many GPUs are visible (NCCL runs one rank per GPU), each with its
# max_abs_err: 0 expected for the device operators on integers or
# f32/f64 (device reduces and gemms sum in the reference's order), not
# for a float gemm inside the kernel (nvcc contracts a*b+c into FMAs:
# the first GPU run gave 4.8e-7-2.9e-6 for matmul_rs, _loop, mlp); the
# mixed-precision device gemms (matmul_rs_f16, matmul_rs_bf16: f16/bf16
# A and B on tensor cores, docs/compiler.md "Mixed precision") within the
# check's bound (its pass), also at M=N=512, K=2048 (-D P=1, within the
# CPU reference's work limit). Then the device gemm + reduce-scatter at
# M=N=2048, K=4096, f32 (matmul_rs_dev.axe, the tiled FMA kernel) beside
# f16 and bf16 (the tensor-core kernel), timed with --bench at each of
# those rank counts (the slowest rank's seconds per run, GFLOP/s of the
# local GEMMs together), and each local GEMM alone on one GPU at
# M=N=K=4096 (-D P=1), and matmul_rs_overlap.axe at M=N=2048, K=4096 with
# chunks(1) and chunks(4) (the overlap's gain on the NCCL path). A dry run
# compiles and links each .cu for the archs with -lnccl and MPI's flags,
# as axe run builds it. Needs OpenMPI (mpicc, mpirun) on the machine:
# without it, a note and no failure. Beside the examples, the FMA device
# gemm's cp.async stage fill along M or N (tests/kernels/dist/
# gemm_fma_rows.axe: f32, f64 and i32; c63da23), which no example uses.
dist_kernels="$(echo examples/kernels/dist/*.axe) tests/kernels/dist/gemm_fma_rows.axe"
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
    echo "gpu_check: no OpenMPI (mpicc, mpirun): the NCCL runs skipped" |
        tee -a "$out/summary.txt"
elif [ "$dry" = 1 ]; then
    cp src/compiler/backend/mpi/compiler_mpi_rt.h \
        src/compiler/backend/cuda/compiler_nccl_rt.h "$out/"
    read -r -a mpi_c <<<"$(mpicc --showme:compile)"
    read -r -a mpi_l <<<"$(mpicc --showme:link)"
    for k in $dist_kernels; do
        name=dist_$(basename "$k" .axe)
        for a in $archs; do
            { "$AXE" compile "$k" -D P=2 --target cuda --arch "$a" -o "$out/$name.$a.cu" &&
                "$NVCC" -std=c++17 -O2 -arch="$a" -Werror all-warnings -DAXE_KERNEL_MAIN \
                    -I"$out" "${mpi_c[@]}" -o "$out/$name.$a" "$out/$name.$a.cu" -lnccl \
                    "${mpi_l[@]}"; } >>"$out/$name.err" 2>&1 || {
                echo "gpu_check: $name does not build with NCCL for $a (see $out/$name.err)"
                status=1
            }
        done
        echo "$name (MPI + NCCL): compiled for $archs" | tee -a "$out/summary.txt"
    done
else
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    # checks JOBS at a time (nvcc dominates), then the table in order
    t0=$(date +%s)
    for k in $dist_kernels; do
        name=dist_$(basename "$k" .axe)
        for n in 1 2 4 8; do
            [ "$n" -le "$ngpu" ] || continue
            throttle
            timeout 300 "$AXE" run "$k" -D "P=$n" --target cuda --arch "$arch" \
                --ranks "$n" --check --json >"$out/$name.$n.json" 2>"$out/$name.$n.err" &
            bg+=("$!")
        done
    done
    for dt in f16 bf16; do # the mixed-precision gemms at K 2048
        throttle
        timeout 300 "$AXE" run "examples/kernels/dist/matmul_rs_$dt.axe" -D P=1 \
            -D M=512 -D N=512 -D K=2048 --target cuda --arch "$arch" --ranks 1 \
            --check --json >"$out/dist_mixed_$dt.json" 2>"$out/dist_mixed_$dt.err" &
        bg+=("$!")
    done
    reap
    printf '%-22s %-6s %-6s %s\n' kernel ranks pass max_abs_err | tee -a "$out/summary.txt"
    for k in $dist_kernels; do
        name=dist_$(basename "$k" .axe)
        for n in 1 2 4 8; do
            [ "$n" -le "$ngpu" ] || continue
            check_row "$(head -1 "$out/$name.$n.json" 2>/dev/null)" "$out/$name.$n.err" \
                dist.jsonl '%-22s %-6s %-6s %s\n' "$name" "$n"
        done
    done
    for dt in f16 bf16; do
        check_row "$(head -1 "$out/dist_mixed_$dt.json" 2>/dev/null)" \
            "$out/dist_mixed_$dt.err" dist.jsonl '%-22s %-6s %-6s %s\n' \
            "matmul_rs_$dt K=2048" 1
    done
    echo "section 7 checks: $(($(date +%s) - t0)) s" | tee -a "$out/summary.txt"
    printf '%-22s %-6s %-12s %s\n' "gemm+rs (bench)" ranks seconds GFLOP/s |
        tee -a "$out/summary.txt"
    for spec in 1:2048:2048:4096 2:2048:2048:4096 4:2048:2048:4096 \
        8:2048:2048:4096 1:4096:4096:4096; do
        IFS=: read -r n bm bn bk <<<"$spec"
        [ "$n" -le "$ngpu" ] || continue
        for ex in matmul_rs_dev matmul_rs_f16 matmul_rs_bf16; do
            j=$(timeout 300 "$AXE" run "examples/kernels/dist/$ex.axe" -D "P=$n" \
                -D "M=$bm" -D "N=$bn" -D "K=$bk" --target cuda --arch "$arch" \
                --ranks "$n" --bench --json 2>"$out/dist_gemm_bench.$ex.$n.$bm.err")
            echo "$j" >>"$out/dist_bench.jsonl"
            printf '%-22s %-6s %-12s %s\n' "$ex $bm.$bn.$bk" "$n" \
                "$(field "$j" seconds)" "$(gbs "$(field "$j" flops_per_s)")" |
                tee -a "$out/summary.txt"
            case "$(field "$j" seconds)" in '' | - | null | 0) status=1 ;; esac
        done
    done
    # chunks(N) on the NCCL path: the same gemm + reduce-scatter unchunked
    # (chunks(1): compute, then send) and overlapped (chunks(4): chunk i+1
    # computed while chunk i is in flight on a second stream)
    for spec in 1:1 1:4 2:1 2:4 4:1 4:4 8:1 8:4; do
        IFS=: read -r n ch <<<"$spec"
        [ "$n" -le "$ngpu" ] || continue
        j=$(timeout 300 "$AXE" run examples/kernels/dist/matmul_rs_overlap.axe -D "P=$n" \
            -D M=2048 -D N=2048 -D K=4096 -D "CH=$ch" --target cuda --arch "$arch" \
            --ranks "$n" --bench --json 2>"$out/dist_overlap_bench.$n.$ch.err")
        echo "$j" >>"$out/dist_bench.jsonl"
        printf '%-22s %-6s %-12s %s\n' "rs_overlap chunks($ch)" "$n" \
            "$(field "$j" seconds)" "$(gbs "$(field "$j" flops_per_s)")" |
            tee -a "$out/summary.txt"
        case "$(field "$j" seconds)" in '' | - | null | 0) status=1 ;; esac
    done
fi
[ "$dry" = 1 ] || mark "section 8 kept"
# 8. Kept device loops on the NCCL path (docs/compiler.md, "Kept loops and
# ifs", "Region starts on a kept loop's variable"):
# tests/kernels/dist/kept/kept_start.axe (one plan per value of region
# starts on the loop's variable, the variable as a scalar operand) at
# nk = 11 on one GPU (-D P=1) and at 2 ranks where two GPUs are visible,
# checked exactly (max_abs_err 0). A dry run compiles it for the archs
# (compiler_nccl_build.sh builds every kept kernel on the CPU too).
if [ "$dry" = 1 ]; then
    for a in $archs; do
        "$AXE" compile tests/kernels/dist/kept/kept_start.axe -D P=2 --target cuda \
            --arch "$a" -o "$out/kept_start.$a.cu" 2>>"$out/kept_start.err" || {
            echo "gpu_check: kept_start does not compile for $a" | tee -a "$out/summary.txt"
            status=1
        }
    done
elif command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    for n in 1 2; do
        [ "$n" -le "$ngpu" ] || continue
        j=$(timeout 300 "$AXE" run tests/kernels/dist/kept/kept_start.axe -D "P=$n" \
            --target cuda --arch "$arch" --ranks "$n" --arg nk=11 --check --json \
            2>"$out/kept_start.$n.err" | tail -1)
        check_row "$j" "$out/kept_start.$n.err" dist.jsonl '%-22s %-6s %-6s %s\n' \
            kept_start "$n"
    done
fi
[ "$dry" = 1 ] || mark "done"
echo "gpu_check: logs and JSON lines in $out"
exit $status
