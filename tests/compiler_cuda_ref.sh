#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The naive variant and the GPU reference (docs/compiler.md, "The naive
# variant"; docs/cli.md, `axe run --reference`) through the CLI
# ($AXE_BIN): `axe compile --target cuda --naive` of every example kernel
# has no vector access, cp.async, ldmatrix, mma.sync or warp shuffle in
# its kernel code, except the mma.sync and shuffles of a gemm the compiler
# notes it keeps (never a vector access, cp.async or ldmatrix; the fast
# .cu of the GEMM examples has them, so the check can fail);
# `axe run --target cuda --emulate --check --reference gpu-naive` passes
# for kernels that cover every special schedule, with "reference":
# "gpu-naive" and the naive variant's schedules in --json; a mutation of
# the fast .cu (AXE_RUN_EDIT: an mma fragment or a shuffle mask
# perturbed, a barrier deleted) fails that check with no emulated race
# where the values alone differ; usage errors; the work limit under
# emulation; without a GPU `--target cuda --reference gpu-naive --check`
# is skipped (exit 77). Skipped (77) without a C++ compiler. Last line:
# "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CXX c++ "C++ compiler"
kernel_counts
E=$SRC/examples/kernels
special='AXE_LDV\(uint|AXE_STV\(uint|axe_ptx_cp_async_c|axe_ptx_ldmatrix_x|axe_ptx_mma_m1|__shfl'

# 1. The naive .cu of every example kernel that compiles for cuda.
n=0
for f in "$E"/*.axe; do
    k=$(basename "$f")
    "$AXE" compile "$f" --target cuda >"$tmp/fast.cu" 2>/dev/null || continue
    if ! "$AXE" compile "$f" --target cuda --naive -o "$tmp/naive.cu" 2>"$tmp/err"; then
        bad "$k: the naive variant does not compile ($(head -c 300 "$tmp/err"))"
        continue
    fi
    n=$((n + 1))
    body=$(sed -n '/^__global__/,$p' "$tmp/naive.cu")
    if grep -q "the naive variant keeps" "$tmp/err"; then
        # only the kept gemm's own instructions (mma, its shuffles): a
        # packed i4 copy between memory tensors is a copy.split of whole
        # bytes, no kept copy.vector
        kept_bad='AXE_(LD|ST)V\(uint|axe_ptx_cp_async_c|axe_ptx_ldmatrix_x'
        if grep -qE "$kept_bad" <<<"$body" || grep -q "keeps copy" "$tmp/err"; then
            bad "$k: the naive .cu has $(grep -oE "$kept_bad" <<<"$body" | sort -u | tr '\n' ' ')$(grep -o 'keeps copy[.a-z_]*' "$tmp/err")"
        else
            ok
        fi
    elif grep -qE "$special" <<<"$body"; then
        bad "$k: the naive .cu has $(grep -oE "$special" <<<"$body" | sort -u | tr '\n' ' ')"
    else
        ok
    fi
done
[ "$n" -ge 15 ] || bad "only $n example kernels compiled for cuda"
for k in gemm_mma gemm_pipelined softmax fig5_copy; do
    if "$AXE" compile "$E/$k.axe" --target cuda | sed -n '/^__global__/,$p' |
        grep -qE "$special"; then
        ok
    else
        bad "$k: the fast .cu has none of the special instructions (the check above cannot fail)"
    fi
done

# 2. The emulated check against the naive variant, one run per kernel:
# vector copies, cp.async pipelines, ldmatrix + mma.sync, split-K
# atomics, warp shuffles, shared-memory trees, swizzles, a kept atom.
pids=()
naive_run() { # NAME ARGS...: its verdict in $tmp/NAME.ok or .fail
    local k=$1 out=$tmp/$1.out
    shift
    if (cd "$E" && "$AXE" run "$k.axe" --target cuda --emulate --check --json \
        --reference gpu-naive "$@") >"$out" 2>"$tmp/$k.err" &&
        grep -qF '"pass":true,"reference":"gpu-naive","reference_schedules":{' "$out" &&
        grep -qF '"target":"cuda-emulated"' "$out"; then
        touch "$tmp/$k.ok"
    else
        cat "$out" "$tmp/$k.err" | head -c 600 >"$tmp/$k.fail"
    fi
}
kernels=(fig5_copy gemm_mma gemm_splitk softmax row_reduce transpose_swizzle warp_mma
    gemm_f16_i4_regb)
for k in "${kernels[@]}"; do
    naive_run "$k" &
    pids+=($!)
done
naive_run gemm_pipelined -D STAGES=3 -D K=160 &
pids+=($!)
kernels+=(gemm_pipelined)
wait "${pids[@]}"
for k in "${kernels[@]}"; do
    if [ -e "$tmp/$k.ok" ]; then
        ok
    else
        bad "$k --reference gpu-naive: $(cat "$tmp/$k.fail" 2>/dev/null)"
    fi
done
# The naive variant's schedules are the simple ones.
if grep -qF '"reference_schedules":{"fill":"thread_loop","copy":"split","copy#2":"split","gemm":"thread_fma","copy#4":"thread_loop"}' \
    "$tmp/gemm_mma.out" &&
    grep -qF '"schedules":{"fill":"thread_loop","copy":"vector","copy#2":"vector","gemm":"mma_smem"' \
        "$tmp/gemm_mma.out"; then
    ok
else
    bad "gemm_mma's schedules: $(head -c 600 "$tmp/gemm_mma.out")"
fi
# gemm_f16_i4_regb's copy of the prepacked i4 B into shared memory
# (copy#2): a byte-wide copy.split in the naive variant (each thread
# stores whole bytes), 16-byte vectors in the fast one.
if grep -qF '"reference_schedules":{"fill":"thread_loop","copy":"split","copy#2":"split",' \
    "$tmp/gemm_f16_i4_regb.out" &&
    grep -qF '"copy#2":"vector",' "$tmp/gemm_f16_i4_regb.out"; then
    ok
else
    bad "gemm_f16_i4_regb's schedules: $(head -c 600 "$tmp/gemm_f16_i4_regb.out")"
fi
if grep -q "note: the naive variant keeps gemm.mma_atom" "$tmp/warp_mma.err"; then
    ok
else
    bad "warp_mma: no note on the kept atom ($(head -c 300 "$tmp/warp_mma.err"))"
fi

# 3. Mutations of the fast .cu (the naive one is never edited): the check
# against the naive variant fails; where only values differ, with no
# emulated race (the comparison caught it).
mutant() { # TAG PATTERN EDIT FILE ARGS...
    local tag=$1 pat=$2 edit=$3 f=$4 out=$tmp/$1.out
    shift 4
    if AXE_RUN_EDIT="$edit" "$AXE" run "$f" --target cuda --emulate --check --json \
        --reference gpu-naive "$@" >"$out" 2>"$tmp/$tag.err"; then
        echo "$tag: the check against the naive variant passed" >"$tmp/$tag.fail"
    elif grep -qE -- "$pat" "$out"; then
        touch "$tmp/$tag.ok"
    else
        cat "$out" "$tmp/$tag.err" | head -c 600 >"$tmp/$tag.fail"
    fi
}
values='"pass":false,"reference":"gpu-naive",.*"emulated_races":\[\]'
pids=()
# gemm_mma: the second mma of each K step reads B fragment 2 for 1.
mutant mma "$values" \
    "sed -i 's|&t_acc\[4L\], ax_a\[0\], ax_b\[1\]|\&t_acc[4L], ax_a[0], ax_b[2]|'" \
    "$E/gemm_mma.axe" &
pids+=($!)
# softmax: the sum's last butterfly step exchanges with lane ^ 8, not ^ 16.
mutant shfl "$values" \
    "sed -i '0,/ax_a, 16)/! s/ax_a, 16)/ax_a, 8)/'" "$E/softmax.axe" &
pids+=($!)
# gemm_mma without the barrier before its gemm (the emulator's race
# detector names it; the values differ too).
cat >"$tmp/nosync.sh" <<'EOS'
awk '/__syncthreads\(\); \/\* sync \*\// && !done { sub(/__syncthreads\(\);/, ";"); done = 1 } { print }' "$1" >"$1.m" && mv "$1.m" "$1"
EOS
mutant sync '"pass":false,"reference":"gpu-naive"' "sh $tmp/nosync.sh" "$E/gemm_mma.axe" &
pids+=($!)
wait "${pids[@]}"
for tag in mma shfl sync; do
    if [ -e "$tmp/$tag.ok" ]; then
        ok
    else
        bad "mutant $tag: $(cat "$tmp/$tag.fail" 2>/dev/null)"
    fi
done

# 4. Usage, limits and the GPU path.
expect() { # RC PATTERN ARGS...: axe exits RC, stdout+stderr match PATTERN
    local want=$1 pat=$2 rc
    shift 2
    "$AXE" "$@" >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = "$want" ] && grep -qE -- "$pat" "$tmp/out"; then
        ok
    else
        bad "axe $*: exit $rc, want $want and '$pat' ($(head -c 300 "$tmp/out"))"
    fi
}
expect 2 "it needs --target cuda" run "$E/fig5_copy.axe" --check --reference gpu-naive
expect 2 "it needs --check" run "$E/fig5_copy.axe" --target cuda --emulate --reference cpu
expect 2 "--reference wants auto, cpu or gpu-naive, not 'gpu'" \
    run "$E/fig5_copy.axe" --target cuda --emulate --check --reference gpu
expect 2 "--naive chooses every operator's schedule: it takes no --schedule" \
    compile "$E/fig5_copy.axe" --naive --schedule copy=vector
expect 0 '"reference":"cpu"' run "$E/fig5_copy.axe" --target cuda --emulate --check --json
# the C target's line is as it was: it has no choice of reference
expect 0 '"pass":true,"races":\[\],"orders"' run "$E/fig5_copy.axe" --check --json
expect 1 "beyond axe run's limit of 1073741824" \
    run "$E/gemm_mma.axe" -D M=4096 -D N=4096 -D K=4096 --target cuda --emulate --check \
    --reference gpu-naive
if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/nvidiactl ]; then
    expect 77 '"pass":null,"skipped":"no GPU"' \
        run "$E/gemm_mma.axe" -D M=4096 -D N=4096 -D K=4096 --target cuda --check --json
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
