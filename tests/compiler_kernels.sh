#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# End-to-end tests of the kernel compiler through the CLI ($AXE_BIN):
# every example kernel (examples/kernels/*.axe) runs with `axe run --check`
# at two or more sizes (each output element compared with the reference
# semantics); its generated C equals the golden file (regenerate with
# scripts/regen_kernel_golden.sh) and compiles warning-free with
# `cc -std=c99 -Wall -Wextra -O2`; the kernel code (before the harness)
# divides and takes remainders by integer literals only; dispatch picks,
# rejects (with the reason) and forces schedules as documented; --json
# prints one object. Skipped (77) without a C compiler. The last line is
# "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

kernel_counts
K="$SRC/examples/kernels"


# check_run / exact_run FILE ARGS...: kernel_check_run / kernel_exact_run
# of the example FILE.
check_run() { kernel_check_run "$K/$1" "${@:2}"; }
exact_run() { kernel_exact_run "$K/$1" "${@:2}"; }

check_run fig5_copy.axe
check_run fig5_copy.axe -D M=40 -D N=131 --seed 7
check_run fig4_thread.axe
check_run fig4_thread.axe -D R=100 --seed 3
check_run transpose.axe
check_run transpose.axe -D M=96 -D N=160 --seed 5
check_run transpose.axe -D M=32 -D N=32 --schedule copy=split
check_run softmax.axe
check_run softmax.axe -D ROWS=12 -D C=160 --seed 9
check_run softmax.axe -D C=64 --schedule reduce=smem
check_run rmsnorm.axe
check_run rmsnorm.axe -D ROWS=192 -D C=37 --seed 4
exact_run gemm.axe
exact_run gemm.axe -D M=384 -D N=256 -D K=96 --seed 6
check_run warp_mma.axe
check_run warp_mma.axe -D MT=1 -D NT=3 -D KT=5 --seed 12
check_run softmax_f16.axe
check_run kernel_ops.axe
check_run kernel_ops.axe -D M=37 -D N=64 --seed 3
check_run gemm_mma.axe
check_run gemm_mma.axe -D M=384 -D N=256 -D K=96 --seed 6
check_run gemm_mma.axe -D M=128 -D N=384 -D K=32 --schedule gemm=thread_fma
# stages of a cp.async pipeline (CUDA) addressed through views at
# k % STAGES * 5120: 2 and 3 stages, a trip count below the stage count
check_run gemm_pipelined.axe
check_run gemm_pipelined.axe -D STAGES=3 -D M=128 -D N=256 -D K=160 --seed 7
check_run gemm_pipelined.axe -D STAGES=3 -D K=32 --seed 8
check_run warp_mma_f16.axe
check_run warp_mma_f16.axe -D MT=3 -D NT=1 -D KT=3 --seed 18
check_run softmax_f16.axe -D ROWS=12 -D C=160 --seed 9
check_run warp_slices.axe
check_run warp_slices.axe -D KT=3 -D NT=1 --seed 20
# int8 GEMM: i8 A and B, i32 C, on the m16n8k32 .s8 atom (mma_smem) and
# as per-thread FMA loops.
exact_run gemm_f16_i4.axe
exact_run gemm_f16_i4.axe -D M=128 -D N=256 -D K=96 --seed 6
exact_run gemm_f16_i4_auto.axe
exact_run gemm_f16_i4_auto.axe -D M=128 -D N=256 -D K=96 --seed 6
check_run gemm_i8.axe
check_run gemm_i8.axe -D M=384 -D N=256 -D K=96 --seed 6
check_run gemm_i8.axe -D M=128 -D N=384 -D K=160 --schedule gemm=thread_fma --seed 7
# A transpose through a swizzled shared tile (Swizzle<0,5,5>), read back
# through a swizzled view.
check_run transpose_swizzle.axe
check_run transpose_swizzle.axe -D M=96 -D N=160 --seed 5 --json
# fp8 GEMM: e4m3 A and B, f32 C, on the m16n8k32 .e4m3 atom and as FMAs.
check_run gemm_fp8.axe
check_run gemm_fp8.axe -D M=384 -D N=256 -D K=96 --seed 6
check_run gemm_fp8.axe -D M=128 -D N=384 -D K=160 --schedule gemm=thread_fma --seed 7
check_run gemm_splitk.axe
check_run gemm_splitk.axe -D M=192 -D N=128 -D K=960 -D KSPLIT=5 --seed 4 --json
check_run gemm_splitk.axe -D M=64 -D K=96 -D KSPLIT=1 --seed 2
check_run warp_slices.axe -D NT=3 --schedule reduce=smem --seed 22
# Runtime scalars: one build runs at every value of a --arg list; row
# counts that are not multiples of the 32-row tile, a multiple, and 0.
check_run tail_rows.axe --arg M=100,37
check_run tail_rows.axe --arg M=64,1,0 -D N=24 --seed 5
# An example whose kernel takes a runtime scalar (a parameter NAME: DTYPE)
# carries its values for scripts/gpu_check.sh on a line "# axe run args:
# ..." and passes --check with them; no other example has such a line.
for f in "$K"/*.axe; do
    a=$(sed -n 's/^# axe run args: //p' "$f" | head -1)
    if ! grep -qE '[A-Za-z_][A-Za-z0-9_]*: *(i4|i8|i16|i32|i64|u8|f16|bf16|f32|f64|e4m3|e5m2) *[,)]' "$f"; then
        if [ -z "$a" ]; then ok; else bad "$(basename "$f"): '# axe run args:' without runtime scalars"; fi
    elif [ -z "$a" ]; then
        bad "$(basename "$f") has runtime scalars and no '# axe run args:' line (scripts/gpu_check.sh)"
    else
        # shellcheck disable=SC2086
        kernel_check_run "$f" $a
    fi
done
check_run attention_causal.axe
check_run attention_causal.axe -D N=96 --seed 25
check_run attention_causal.axe -D N=80 -D D=24 -D BM=16 --seed 26
# a runtime softmax scale and key length as scalar operands: two scales
# (one negative) and key lengths from all keys to one (a visible change)
check_run attention_scale.axe --arg scale=0.17,-1 --arg L=64,5
check_run attention_scale.axe --arg scale=2 --arg L=1,96,0 -D N=96 --seed 27
# Flash attention (online softmax over key blocks, two mma.sync gemms per
# block, K and V through a cp.async pipeline on CUDA): two sequence
# lengths at D 64, three stages with 2 warps at D 32, D 128.
check_run flash_attention.axe
check_run flash_attention.axe -D SEQ=256 --seed 31
check_run flash_attention.axe -D SEQ=96 -D D=32 -D BM=32 -D BN=32 -D STAGES=3 --seed 32
check_run flash_attention.axe -D D=128 -D BN=32 --seed 33
# causal: SEQ 120 and 100 are multiples of neither tile (the default 128
# is: the masked copies' element branches are dead there, and the C must
# still compile with -Werror, see the golden compile below)
check_run flash_attention_causal.axe
check_run flash_attention_causal.axe -D SEQ=120 --seed 37
check_run flash_attention_causal.axe -D SEQ=256 -D BM=32 -D BN=32 --seed 34
check_run flash_attention_causal.axe -D SEQ=100 -D D=32 -D BM=32 -D BN=32 --seed 35
# The acceptance form: --check --json prints one object with "pass":true.
for args in "" "-D N=48 -D D=16 -D BM=16 --seed 30"; do
    # shellcheck disable=SC2086
    if "$AXE" run "$K/attention_causal.axe" --check --json $args \
        >"$tmp/out" 2>"$tmp/err" && [ "$(wc -l <"$tmp/out")" = 1 ] &&
        grep -q '"pass":true' "$tmp/out"; then
        ok
    else
        bad "attention_causal.axe --check --json $args: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
done
# Data-dependent starts: an embedding lookup with ids in range.
check_run embedding.axe --arg T=100,37 --range ids=0:999
check_run embedding.axe --arg T=5 -D V=7 -D D=12 --range ids=0:6 --seed 3
check_run row_reduce.axe
check_run row_reduce.axe -D R=3 -D C=768 --seed 23
check_run row_reduce.axe -D R=2 -D C=256 --seed 24 --schedule 'reduce#3=smem'
# Masked regions: tiles of 32 rows past a runtime M, no tail guard.
check_run masked_rows.axe --arg M=100,37
check_run masked_rows.axe --arg M=64,1,0 -D N=8 --seed 4
# Test kernels (tests/kernels/): shared phases of split plans, coordinate
# addressing, casts, warp scope, i8 wrap-around, f64, thread-scope loops.
K="$SRC/tests/kernels"
check_run mixed_split.axe
check_run mixed_split.axe -D M=5 -D N=13 --seed 11
# A copy from its own tensor, the regions overlapping: element order kept.
exact_run self_overlap.axe
# The same through a swizzled view of the destination's tensor (either
# side): the spans are in other address spaces, so the order is kept.
exact_run swzov.axe
exact_run swzov2.axe
# Over 32 threads from disjoint regions of its tensor, and in place: exact.
exact_run self_disjoint.axe
exact_run self_apart.axe
# The same test whatever the other operands (compiler_errors.sh): a
# register destination updated from another region of it, each thread
# its own elements in order, and a kernel-scope reduce apart from its
# source: allowed (refused before), exact.
exact_run self_regs.axe
exact_run self_grid.axe
# A cta gemm into a region of a distributed register from another region
# of it, apart in a dimension: allowed, exact.
exact_run self_regs_gemm.axe
# Dynamic starts written differently, compared as linear forms: exact.
exact_run self_affine.axe
# A coordinate-addressed copy.split dealing whole i4 pairs (its
# --explain rows are in compiler_errors.sh): exact.
exact_run i4_split_cut.axe
# A core kernel: HBM -> SBUF -> TensorEngine-shaped gemm into PSUM ->
# SBUF -> HBM, on the c target (one thread) against the reference.
exact_run trn_scratch.axe
exact_run trn_scratch.axe -D M=384 -D N=128 -D K=384 --seed 5
# Its gemm runs as TensorEngine matmuls (gemm.tensor_engine, Appendix H);
# so do gemms over strided, banked and mismatched layouts.
exact_run trn_te_layouts.axe
exact_run trn_te_layouts.axe --seed 9
if "$AXE" compile "$K/trn_scratch.axe" --explain >"$tmp/out" 2>&1 &&
    grep -q '^op 3 (line 23): core gemm(' "$tmp/out" &&
    grep -q '^  chosen gemm.tensor_engine$' "$tmp/out" &&
    grep -q '^    step 2 K intersection of A.s and B.s P iters: S\[128:1@P\]$' "$tmp/out" &&
    grep -q '^    step 4 instruction 128 x 256 x 128 (M x N x K; limits 128 x 512 x 128), loop nest M 1 x N 1 x K 1 = 1 matmuls, K innermost$' "$tmp/out"; then
    ok
else
    bad "trn_scratch.axe --explain: $(head -c 600 "$tmp/out")"
fi
# Phases made only of CTA-scope split operators run whole (one loop nest
# per operator, all threads' elements); phases with a per-thread operator
# or a loop run thread by thread.
check_run whole_phase.axe
check_run whole_phase.axe -D M=7 -D N=13 --seed 3
n=$("$AXE" compile "$K/whole_phase.axe" | grep -c "all threads' elements in order")
if [ "$n" = 5 ]; then ok; else bad "whole_phase.axe: $n operators run whole, not 5"; fi
# CTA-scope gemm.thread_fma in whole phases: one nest over all threads'
# parts (K by 4, 2 and 1, rows by 2 and 1, a thread digit innermost,
# f64/f16/bf16/i8), exact; the replicated C runs thread by thread.
exact_run gemm_whole.axe --schedule gemm=thread_fma
exact_run gemm_whole.axe --schedule gemm=thread_fma -D K=10 --seed 5
exact_run gemm_whole.axe --schedule gemm=thread_fma -D K=6 --seed 6
n=$("$AXE" compile "$K/gemm_whole.axe" --schedule gemm=thread_fma 2>/dev/null |
    grep -c "gemm.thread_fma, all threads' elements in order")
if [ "$n" = 8 ]; then ok; else bad "gemm_whole.axe: $n gemms run whole, not 8"; fi
# K = 2050: B's panels (8 x 2050 elements) pass 32 KiB, every gemm runs
# thread by thread.
exact_run gemm_whole.axe --schedule gemm=thread_fma -D K=2050 --seed 7
n=$("$AXE" compile "$K/gemm_whole.axe" --schedule gemm=thread_fma -D K=2050 2>/dev/null |
    grep -c "gemm.thread_fma, all threads' elements in order")
if [ "$n" = 0 ]; then ok; else bad "gemm_whole.axe -D K=2050: $n gemms run whole, not 0"; fi
check_run warps.axe
check_run warps.axe -D W=3 --seed 2
check_run cta_reduce.axe
check_run cta_reduce.axe -D T=96 -D V=3 --seed 8
check_run cta_reduce.axe -D T=96 -D V=3 --seed 9 --schedule 'reduce#1=smem'
# reduce.tree: CTA and warp reductions of shared tiles and of a register
# over the CTA, into global memory and a replicated register; rows of
# 37, 100, 2048 and 1 elements; f32, f16 and wrapping i32 sums, max.
check_run reduce_tree.axe
check_run reduce_tree.axe -D R=3 -D L=100 --seed 4
check_run reduce_tree.axe -D R=1 -D L=2048 --seed 5
check_run reduce_tree.axe -D R=2 -D L=1 --seed 6
check_run wg_reduce.axe
check_run wg_reduce.axe -D L=130 -D T=2 --seed 7 --schedule 'reduce#2=smem' \
    --schedule 'reduce#4=smem'
check_run warp_mma_f64.axe
check_run warp_mma_f64.axe -D MT=3 -D NT=1 -D KT=3 --seed 13
check_run restage.axe
check_run restage.axe -D T=24 --seed 14
check_run producer_consumer.axe
check_run producer_consumer.axe -D N=40 --seed 15
# The race detector (docs/compiler.md, "Races"): a producer warpgroup
# hands a shared tile to a consumer warpgroup through a sync, and passes;
# without the sync it is a race that fails --check, in text and in JSON,
# although the values the C backend computes in ascending order match
# (descending ones do not).
check_run wg_handoff.axe
check_run wg_handoff.axe -D N=24 -D T=2 --seed 25
race_msg='race on s\[0,0\]: written by thread 0 \(line 14\), read by thread 128 \(line 17\), no sync between'
if "$AXE" run "$K/wg_handoff_race.axe" --check >"$tmp/out" 2>"$tmp/err"; then
    bad "wg_handoff_race.axe passes --check: $(head -c 300 "$tmp/out")"
elif grep -qE '^check FAILED: .*, in thread order descending(, random)?, races:$' "$tmp/out" &&
    grep -qE "^$race_msg\$" "$tmp/out" &&
    grep -q '^24576 racing accesses in all$' "$tmp/out"; then
    ok
else
    bad "wg_handoff_race.axe --check: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# The consumer first in the source: the values differ in ascending order
# (the consumer's threads run before the producer's); --check names it.
sed -e 's/wgid == 0/wgid == 2/; s/wgid == 1/wgid == 0/; s/wgid == 2/wgid == 1/' \
    "$K/wg_handoff_race.axe" >"$tmp/swapped.axe"
if "$AXE" run "$tmp/swapped.axe" --check >"$tmp/out" 2>"$tmp/err"; then
    bad "swapped wg_handoff_race.axe passes --check"
elif grep -qE '^check FAILED: .*, in thread order ascending(, descending)?(, random)?, races:$' "$tmp/out"; then
    ok
else
    bad "swapped wg_handoff_race.axe --check: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
"$AXE" run "$K/wg_handoff_race.axe" --check --json -D N=8 -D T=1 >"$tmp/out" 2>"$tmp/err"
if grep -qE '"pass":false,"races":\[\{"tensor":"s","index":\[0,0\],"address":0,"first":\{"thread":0,"cta":0,"line":14,"access":"write"\},"second":\{"thread":128,"cta":0,"line":17,"access":"read"\},"cross_cta":false,"kind":"race","count":1024,"message":"'"$race_msg"'"\}\]' "$tmp/out"; then
    ok
else
    bad "wg_handoff_race.axe --check --json: $(cat "$tmp/out" "$tmp/err" | head -c 500)"
fi
# With --json the failed check's reason is also one line on stderr.
if [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
    grep -qE '^axe: run: check failed: max_abs_err [0-9.e+-]+, max_rel_err [0-9.e+-]+, in thread order descending(, random)?, 1024 racing accesses$' "$tmp/err"; then
    ok
else
    bad "wg_handoff_race.axe --check --json: stderr: $(head -c 400 "$tmp/err")"
fi
# Shared memory read before any write in its CTA (garbage on a GPU) fails
# --check, named in the text and under "races" with kind "uninitialized";
# writing every row that is read back passes.
cat >"$tmp/uninit.axe" <<'EOF'
kernel uninit(A: global f32[8, 8], B: global f32[8, 8]) grid(1) threads(8) {
    register r: f32[8, 8] layout S[(8, 8):(1@tx, 1)];
    shared s: f32[8, 8];
    cta copy(s[0 : +4, 0 : +8], A[0 : +4, 0 : +8]);
    sync;
    cta copy(r, s);
    cta copy(B, r);
}
EOF
uninit_msg='uninitialized read of s\[4,0\]: read by thread 4 \(line 6\) before any write to it in CTA 0 \(garbage on a GPU\)'
if "$AXE" run "$tmp/uninit.axe" --check >"$tmp/out" 2>"$tmp/err"; then
    bad "uninit.axe passes --check"
elif grep -q '^check FAILED: .*, races:$' "$tmp/out" &&
    grep -qE "^$uninit_msg\$" "$tmp/out"; then
    ok
else
    bad "uninit.axe --check: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
"$AXE" run "$tmp/uninit.axe" --check --json >"$tmp/out" 2>"$tmp/err"
if grep -qE '"pass":false,"races":\[\{"tensor":"s","index":\[4,0\],"address":32,"first":\{"thread":4,"cta":0,"line":6,"access":"read"\},"second":\{"thread":4,"cta":0,"line":6,"access":"read"\},"cross_cta":false,"kind":"uninitialized","count":32,"message":"'"$uninit_msg"'"\}\]' "$tmp/out"; then
    ok
else
    bad "uninit.axe --check --json: $(cat "$tmp/out" "$tmp/err" | head -c 500)"
fi
sed 's/0 : +4, 0 : +8\], A\[0 : +4/0 : +8, 0 : +8], A[0 : +8/' "$tmp/uninit.axe" >"$tmp/init.axe"
if "$AXE" run "$tmp/init.axe" --check >"$tmp/out" 2>"$tmp/err"; then
    ok
else
    bad "init.axe --check: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
check_run slice_loops.axe
check_run slice_loops.axe -D KT=3 --seed 21
check_run mma_smem_warp.axe
check_run mma_smem_warp.axe -D KT=3 -D NT=1 --seed 23
check_run gemm_reg_a.axe
check_run gemm_reg_a.axe -D K=64 -D N=16 --seed 24
# register A replicated over the warps of C's columns (2 x 4 warps), its
# mirror register B replicated over the warps of C's rows, and their
# layout-auto twins, C at three sizes and the CUDA emulation at two
# (written out: compiler_cuda_emu.sh replays each run line on its own)
exact_run gemm_reg_a_wn.axe
exact_run gemm_reg_a_wn.axe -D N=128 -D K=64 --seed 25
exact_run gemm_reg_a_wn.axe -D N=32 -D K=16 --seed 26
check_run gemm_reg_a_wn.axe --target cuda --emulate
check_run gemm_reg_a_wn.axe -D N=128 -D K=64 --seed 25 --target cuda --emulate
exact_run gemm_reg_a_wn_auto.axe
exact_run gemm_reg_a_wn_auto.axe -D N=128 -D K=64 --seed 25
exact_run gemm_reg_a_wn_auto.axe -D N=32 -D K=16 --seed 26
check_run gemm_reg_a_wn_auto.axe --target cuda --emulate
check_run gemm_reg_a_wn_auto.axe -D N=128 -D K=64 --seed 25 --target cuda --emulate
exact_run gemm_reg_b_wn.axe
exact_run gemm_reg_b_wn.axe -D N=128 -D K=64 --seed 25
exact_run gemm_reg_b_wn.axe -D N=32 -D K=16 --seed 26
check_run gemm_reg_b_wn.axe --target cuda --emulate
check_run gemm_reg_b_wn.axe -D N=128 -D K=64 --seed 25 --target cuda --emulate
exact_run gemm_reg_b_wn_auto.axe
exact_run gemm_reg_b_wn_auto.axe -D N=128 -D K=64 --seed 25
exact_run gemm_reg_b_wn_auto.axe -D N=32 -D K=16 --seed 26
check_run gemm_reg_b_wn_auto.axe --target cuda --emulate
check_run gemm_reg_b_wn_auto.axe -D N=128 -D K=64 --seed 25 --target cuda --emulate
check_run half.axe
# Register-blocked per-thread gemms on every dtype, k in order: exact.
exact_run gemm_blocked.axe
exact_run gemm_blocked.axe -D M=40 -D N=70 -D K=34 --seed 3
check_run warp_mma_bf16.axe
check_run warp_mma_bf16.axe -D MT=1 -D NT=3 -D KT=2 --seed 19
check_run half.axe -D R=3 -D C=96 --seed 16
# f16 add, sub and mul a 32-bit word at a time on CUDA (half2_ops.axe:
# words, a duplicated scalar and scale, two packed elements; o element by
# element): the correctly rounded f16, as the reference's float, exact.
exact_run half2_ops.axe
exact_run half2_ops.axe -D R=3 -D T=12 --seed 5
exact_run half2_ops.axe --target cuda --emulate
exact_run half2_ops.axe -D R=3 -D T=12 --seed 5 --target cuda --emulate
# bf16 the same way (bf16x2_ops.axe; also z = a * 0 and 1 / z, whose
# infinities' signs are the products' zero signs): fma.rn.bf16x2 with a
# constant for sm_80 (the default), add/sub/mul.rn.bf16x2 for sm_90.
exact_run bf16x2_ops.axe
exact_run bf16x2_ops.axe -D R=3 -D T=12 --seed 5
exact_run bf16x2_ops.axe --target cuda --emulate
exact_run bf16x2_ops.axe -D R=3 -D T=12 --seed 5 --target cuda --emulate
exact_run bf16x2_ops.axe --target cuda --emulate --arch sm_90
exact_run bf16x2_ops.axe -D R=3 -D T=12 --seed 5 --target cuda --emulate --arch sm_90
# max, min and neg a word at a time (half2_minmax.axe: max.f16x2 ...,
# a NaN losing to a number as in fmaxf; the sign bits flipped), and a
# pair at a run-time even start (k * 4) beside one that may be odd (k * 3).
exact_run half2_minmax.axe
exact_run half2_minmax.axe -D R=3 -D T=12 --seed 5
exact_run half2_minmax.axe --target cuda --emulate
exact_run half2_minmax.axe -D R=3 -D T=12 --seed 5 --target cuda --emulate
# The refusals (half2_overlap.axe): a source that is the destination at
# another region, an odd destination base, a pair loop beside an odd
# stride stay element by element (a mutant dropping any one fails).
exact_run half2_overlap.axe
exact_run half2_overlap.axe --target cuda --emulate
check_run partial_warp.axe
check_run partial_warp.axe -D T=80 --seed 20
check_run runtime_tiles.axe --arg M=100,64,5 --arg T=3,1,0
check_run runtime_tiles.axe --arg M=250 --arg T=9 -D N=12 --seed 6
# a three-stage pipeline over row blocks of one shared tensor, a runtime
# trip count (0, 1, 2: below the stage count)
check_run pipeline_regions.axe --arg T=5,0,1,2
# a read in stages of 32 elements of a tensor copied in stages of 64
# (plain and swizzled): not pipelined, so no read of a stage being
# refilled (pipelined, cuda --emulate reported races)
exact_run pipeline_stage_mismatch.axe --arg T=5
exact_run pipeline_stage_mismatch.axe --arg T=5 --target cuda --emulate
exact_run pipeline_stage_mismatch_swz.axe --arg T=5
exact_run pipeline_stage_mismatch_swz.axe --arg T=5 --target cuda --emulate
# float runtime scalars (`eps: f32`, `s: f16`) as fill values: two eps,
# two row counts (a tail CTA), f16 rounding of s
check_run layernorm_eps.axe --arg M=3,70 --arg eps=1e-5,0.5 --arg s=1,0.3
check_run layernorm_eps.axe --arg M=33 --arg eps=2.5 --arg s=-1.7 -D C=40 --seed 3
# scalar operands: literals and runtime scalars of every scalar dtype in
# f32, f16, i32 and i8 operators (lim changes the columns kept)
check_run scalar_ops.axe --arg M=5,40 --arg eps=1e-5,0.5 --arg scale=0.3,-2 \
    --arg lim=3,16 --arg b=1.5,-0.7 --arg d=0.25,1e-3
check_run scalar_ops.axe --arg M=33 --arg eps=2.5 --arg scale=70 --arg lim=0 \
    --arg b=-3 --arg d=-1 -D C=24 --seed 5
# iota from a runtime start, proved inside f32 / i32 by the guards
check_run iota_runtime.axe --arg M=64,100,40 --arg s0=10,0,8
check_run iota_runtime.axe --arg M=5,96 --arg s0=-1,64 --seed 4
check_run gather_index.axe --range table=0:7 --range ids8=0:126
check_run gather_index.axe -D NB=9 -D D=8 --range table=0:8 --range ids8=0:126 --seed 4
check_run masked_tiles.axe
check_run masked_tiles.axe -D R=9 -D C=15 --seed 7
check_run masked_edges.axe
check_run masked_edges.axe -D W=5 --seed 3
# copies vectorized along dimension 0 (masked, aligned by offsets), and
# their fallback to scalar when a stride (R = 37) breaks the alignment
exact_run vec_dim0.axe
exact_run vec_dim0.axe -D R=37 -D N=24 --seed 3
exact_run vec_dim0.axe --target cuda --emulate
exact_run vec_dim0.axe -D R=37 -D N=24 --target cuda --emulate
"$AXE" compile "$K/vec_dim0.axe" --explain >"$tmp/vd.txt" 2>&1
# the chosen schedule and access width of op N in $tmp/vd.txt
vd_op() {
    sed -n "/^op $1 (line/,/^op $(($1 + 1)) (line/p" "$tmp/vd.txt" |
        grep -E '^  chosen|innermost access|loops in dimension order' | tr -s ' ' | tr '\n' ';'
}
[ "$(vd_op 0)" = " chosen copy.vector; loops in dimension order (1,0), dim 0 innermost: the innermost loop is contiguous in both operands; innermost access: 4 elements;" ] &&
    [ "$(vd_op 1)" = " chosen copy.split;" ] &&
    [ "$(vd_op 2)" = " chosen copy.vector; loops in dimension order (1,0), dim 0 innermost: the innermost loop is contiguous in both operands; innermost access: 4 elements;" ] &&
    [ "$(vd_op 3)" = " chosen copy.vector; loops in dimension order (1,0), dim 0 innermost: the innermost loop is contiguous in both operands; innermost access: 2 elements;" ] &&
    ok || bad "vec_dim0 --explain: $(vd_op 0) | $(vd_op 1) | $(vd_op 2) | $(vd_op 3)"
"$AXE" compile "$K/vec_dim0.axe" --explain -D R=37 -D N=24 >"$tmp/vd.txt" 2>&1
[ "$(vd_op 0)" = " chosen copy.split;" ] && [ "$(vd_op 3)" = " chosen copy.split;" ] &&
    grep -qF "rejected copy.vector: max_common_vector is 64 but no 8/16-byte access of 4-byte elements applies: a loop of 24 (dim 1) steps 37 elements in 'X', not a multiple of 2" "$tmp/vd.txt" &&
    ok || bad "vec_dim0 R=37 --explain: $(vd_op 0) | $(vd_op 3) $(grep 'rejected copy.vector' "$tmp/vd.txt")"
# a bound plan (registers over 8 threads) laid out dimension 0 innermost
exact_run vec_dim0_reg.axe
exact_run vec_dim0_reg.axe -D R=24 --seed 3
exact_run vec_dim0_reg.axe --target cuda --emulate
exact_run vec_dim0_reg.axe -D R=24 --target cuda --emulate
"$AXE" compile "$K/vec_dim0_reg.axe" --explain >"$tmp/vd.txt" 2>&1
[ "$(vd_op 0)" = " chosen copy.vector; loops in dimension order (1,0), dim 0 innermost: the innermost loop is contiguous in both operands; innermost access: 8 elements;" ] &&
    [ "$(vd_op 1)" = " chosen copy.vector; loops in dimension order (1,0), dim 0 innermost: the innermost loop is contiguous in both operands; innermost access: 8 elements;" ] &&
    ok || bad "vec_dim0_reg --explain: $(vd_op 0) | $(vd_op 1)"
# vectors along a run of sub-iters taken out of their dimensions (the
# outer factor of dimension 0 contiguous in X/T, the inner one in U/Y)
exact_run vec_sub.axe
exact_run vec_sub.axe -D M=64 -D N=6 --seed 3
exact_run vec_sub.axe --target cuda --emulate
exact_run vec_sub.axe -D M=64 -D N=6 --target cuda --emulate
"$AXE" compile "$K/vec_sub.axe" --explain >"$tmp/vd.txt" 2>&1
[ "$(vd_op 0)" = " chosen copy.vector; loops in dimension order (0,1), then innermost the sub-iters dim 0 (8 at weight 1), dim 1 (16 at weight 1), dim 0 (4 at weight 8): the run contiguous in both operands; innermost access: 8 elements;" ] &&
    [ "$(vd_op 1)" = " chosen copy.split;" ] &&
    [ "$(vd_op 2)" = " chosen copy.vector; loops in dimension order (0,1), then innermost the sub-iters dim 0 (8 at weight 4), dim 1 (16 at weight 1), dim 0 (4 at weight 1): the run contiguous in both operands; innermost access: 8 elements;" ] &&
    ok || bad "vec_sub --explain: $(vd_op 0) | $(vd_op 1) | $(vd_op 2)"
# the same with thread digits among the run's loops: they move outside
# it (i4, 32 and 8 nibbles; thread_loop for all four if they stay)
exact_run vec_sub_threads.axe
exact_run vec_sub_threads.axe --target cuda --emulate
"$AXE" compile "$K/vec_sub_threads.axe" --explain >"$tmp/vd.txt" 2>&1
vst_run="loops in dimension order (0,1), then innermost the sub-iters dim 1 (2 at weight 8), dim 0 (2 at weight 16), dim 0 (8 at weight 1), dim 1 (4 at weight 1): the run contiguous in both operands"
[ "$(vd_op 0)" = " chosen copy.vector; $vst_run; innermost access: 32 elements;" ] &&
    [ "$(vd_op 1)" = " chosen copy.vector; $vst_run; innermost access: 8 elements;" ] &&
    [ "$(vd_op 2)" = " chosen copy.vector; $vst_run; innermost access: 8 elements;" ] &&
    [ "$(vd_op 3)" = " chosen copy.thread_loop;" ] &&
    ok || bad "vec_sub_threads --explain: $(vd_op 0) | $(vd_op 1) | $(vd_op 2) | $(vd_op 3)"
# runs already innermost in order with thread digits between their
# loops: laid out as they stand, the digits move out and the loops merge
# (thread_loop for the i4 copies, 4 f16 and 2 f32 before; v <- V starts
# at nibble 4: no vector, and the reason says so)
exact_run vec_run_threads.axe
exact_run vec_run_threads.axe --target cuda --emulate
exact_run vec_run_threads4.axe
exact_run vec_run_threads4.axe --target cuda --emulate
vrt_widths() {
    "$AXE" compile "$K/$1.axe" --explain 2>&1 |
        sed -n 's/^  chosen copy\.\(.*\)/\1/p; s/^    innermost access: \([0-9]*\) elements/\1/p' | tr '\n' ' '
}
got="$(vrt_widths vec_run_threads)/ $(vrt_widths vec_run_threads4)"
[ "$got" = "vector 8 vector 8 vector 8 vector 8 vector 4 vector 4 thread_loop vector 8 / vector 8 vector 8 vector 8 vector 8 vector 32 vector 32 vector 4 vector 4 " ] &&
    ok || bad "vec_run_threads --explain: schedules and widths $got"
"$AXE" compile "$K/vec_run_threads.axe" --explain >"$tmp/vd.txt" 2>&1
grep -qxF "  rejected copy.vector: 'v' is packed i4, whose vectors move 8, 16 or 32 elements (4, 8 or 16 whole bytes), but 'V' starts at element 4, not a multiple of 8" "$tmp/vd.txt" &&
    ok || bad "vec_run_threads --explain: v <- V's reason $(grep 'rejected copy.vector' "$tmp/vd.txt")"
# memory instructions per thread in the emitted CUDA (29 and 32 before;
# vec_run_threads4's include 8 stores per thread zeroing S)
if command -v python3 >/dev/null 2>&1; then
    "$AXE" compile "$K/vec_run_threads.axe" --target cuda -o "$tmp/vrt.cu"
    "$AXE" compile "$K/vec_run_threads4.axe" --target cuda -o "$tmp/vrt4.cu"
    got="$(kernel_count "$tmp/vrt.cu" __global__ 'AXE_(?:LDV?|STV?)\(') $(kernel_count "$tmp/vrt4.cu" __global__ 'AXE_(?:LDV?|STV?)\(')"
    [ "$got" = "15 18" ] && ok || bad "vec_run_threads: memory instructions per thread $got"
fi
# regions cut inside a dimension of several iters where they align with
# them (docs/compiler.md, "Regions of a dimension of several iters"): the
# slices of Hexcute's prepacked X and of Bs are affine, so the copy moves
# 32 packed i4 (16 bytes) per access; before, it had no schedule
exact_run i4_ldsm_hexcute_cut.axe
exact_run i4_ldsm_hexcute_cut.axe -D G=3 --seed 4
exact_run i4_ldsm_hexcute_cut.axe --target cuda --emulate
exact_run i4_ldsm_hexcute_cut.axe -D G=3 --seed 4 --target cuda --emulate
"$AXE" compile "$K/i4_ldsm_hexcute_cut.axe" --target cuda --explain >"$tmp/cut.txt" 2>&1
grep -A6 '^op 0 ' "$tmp/cut.txt" | grep -qF "dst 'Bs': dealt loop layout S[(4096):(1)] + (k * 32)*128" &&
    grep -A6 '^op 0 ' "$tmp/cut.txt" | grep -qF "src 'X': dealt loop layout S[(4096):(1)] + (bx * 128 + k * 32)*128" &&
    grep -A9 '^op 0 ' "$tmp/cut.txt" | grep -qF 'cp.async.cg.shared.global, 16 bytes per access' &&
    ok || bad "i4_ldsm_hexcute_cut --explain: $(grep -A9 '^op 0 ' "$tmp/cut.txt" | head -c 900)"
# a whole stage of a padded stage buffer: s's iters (2, 128):(16384, 64)
# cut as the iter of 2 at m = 1, not the iter of 128 whole (which needs
# the stages compact); before, packed i4 had no schedule for it
exact_run stage_pad_cut.axe
exact_run stage_pad_cut.axe -D N=3 --seed 4 --target cuda --emulate
"$AXE" compile "$K/stage_pad_cut.axe" --target cuda --explain >"$tmp/spc.txt" 2>&1
grep -A6 '^op 1 ' "$tmp/spc.txt" | grep -qF "src 's': dealt loop layout S[(128,32):(64,1)] + 32 + (ki % 2 * 128)*128" &&
    ok || bad "stage_pad_cut --explain: $(grep -A6 '^op 1 ' "$tmp/spc.txt" | head -c 600)"
# a constant start crossing a digit: X[160 : +32, ...] at 160's digits
# (1, 2, 0, 0), offset 20480 (the refusals of constant starts are in
# compiler_errors.sh)
exact_run cut_const.axe
exact_run cut_const.axe --target cuda --emulate
# a dynamic start with a constant term: X[bx * 128 + 16 : +32, ...] is
# 16 plus a multiple of 128, inside one run of the iter of 8 (before,
# refused: "not known to be a multiple of its length 32 (only of 16)")
exact_run cut_dyn_const.axe
exact_run cut_dyn_const.axe -D G=3 --seed 4 --target cuda --emulate
# the loop order the bank model picks: the same 4-element vectors as the
# dimension order (the first widest, which width alone kept), 1 way and
# 16 wavefronts instead of 4 ways and 64 on T; both plans recounted by
# the brute force (tests/smem_ways.py) from their dealing orders
exact_run vec_bank.axe
exact_run vec_bank.axe -D A=2 -D B=24 -D C=8 --seed 3
exact_run vec_bank.axe --target cuda --emulate
exact_run vec_bank.axe -D A=2 -D B=24 -D C=8 --target cuda --emulate
"$AXE" compile "$K/vec_bank.axe" --explain >"$tmp/vd.txt" 2>&1
bank_line='bank model: 16 wavefronts on the shared side (at most 1 way), the fewest of 4 candidates (loop orders and widths); the first widest vector (4 elements) takes 64 wavefronts (at most 4 ways)'
[ "$(grep -cF "$bank_line" "$tmp/vd.txt")" = 2 ] &&
    [ "$(grep -c 'loops in dimension order (1,0,2), dim 2 innermost' "$tmp/vd.txt")" = 2 ] &&
    ok || bad "vec_bank --explain: $(grep 'bank model' "$tmp/vd.txt")"
if command -v python3 >/dev/null 2>&1; then
    got=$(python3 - "$SRC/tests" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from smem_ways import parse_layout, counts
A, B, C = 4, 32, 4
addr = parse_layout("S[(4,32,4):(4,16,1)]", (A, B, C))
def total(chunk):  # chunk u -> coordinate of its first element
    n = A * B * C // 4
    res = [0, 0]
    for j in range(n // 32):
        w, f = counts(addr, [chunk(32 * j + l) for l in range(32)], 4, 4,
                      (0, 0, 1))
        res = [max(res[0], w), res[1] + f]
    return res
dims = total(lambda u: (u // (B * C // 4), u // (C // 4) % B, u % (C // 4) * 4))
bank = total(lambda u: (u // (C // 4) % A, u // (A * C // 4), u % (C // 4) * 4))
print(dims, bank)
PY
)
    [ "$got" = "[4, 64] [1, 16]" ] && ok || bad "vec_bank brute force: $got"
fi
check_run c_names.axe
# i8 x i8 -> i32 on the m16n8k32 register atom (with a sum that wraps
# past 2^31 - 1), and i8 x i8 -> i8 (every product and sum wraps to 8 bits).
check_run warp_mma_i8.axe
check_run warp_mma_i8.axe -D MT=1 -D NT=3 -D KT=3 --seed 5
check_run gemm_i8_acc8.axe
check_run gemm_i8_acc8.axe -D M=3 -D N=9 -D K=40 --seed 4
# Guards that never hold are dead code, not out-of-bounds accesses (the
# else of a peeled tail when M divides the tile, a guard beyond the grid,
# bounds at +-2^63); M = 100 makes the tail live.
check_run dead_guards.axe
check_run dead_guards.axe -D M=100 --seed 26
check_run dead_guards.axe -D M=64 --seed 27
check_run dead_runtime.axe --arg M=37,5,64
# f16 gemm with K slices of 24, no multiple of m16n8k16's K = 16: the
# m16n8k8 atom; of 20, no multiple of any f16 atom's K: scalar FMA, with a
# note (below).
check_run gemm_k24.axe
check_run gemm_k24.axe -D M=256 -D K=72 --seed 28
check_run gemm_k20.axe
check_run gemm_k20.axe -D M=256 -D K=60 --seed 28
# Warp reductions into destinations replicated over every lane (smem) and
# over the lanes of the reduced dimension only (warp_shuffle).
check_run reduce_replicated.axe
check_run reduce_replicated.axe -D C=40 --seed 25
# Swizzled shared tiles: their storage read back through plain views
# (the generated XOR against the library's apply), and a GEMM staging its
# tiles swizzled (mma_smem's atom loop and thread_fma read through it).
check_run swizzle_raw.axe
check_run swizzle_raw.axe -D R=48 --seed 3
check_run gemm_swizzle.axe
check_run gemm_swizzle.axe -D M=384 -D N=256 -D K=96 --seed 6
check_run gemm_swizzle.axe -D M=128 -D N=384 -D K=32 --schedule gemm=thread_fma
# mma_smem with transposed staging tiles, and with global A and B.
check_run gemm_mma_trans.axe
check_run gemm_mma_global.axe
check_run gemm_mma_global.axe -D M=256 -D N=128 -D K=64 --seed 4
# fp8 (e4m3, e5m2): operators, reductions, casts; the m16n8k32 fp8 atoms.
check_run fp8.axe
check_run fp8.axe -D R=3 -D C=96 --seed 16
check_run warp_mma_fp8.axe
check_run warp_mma_fp8.axe -D MT=3 -D NT=1 -D KT=3 --seed 4
# Masks in tiles, the math operators, reduce min/argmax/argmin (every
# reduce schedule: warp_shuffle, thread_loop, smem forced per operator).
check_run masks.axe
check_run masks.axe -D R=12 -D N=96 -D PAD=40 --seed 3
check_run math_ops.axe
check_run math_ops.axe -D N=32 --seed 27
check_run arg_reduce.axe
check_run arg_reduce.axe -D ROWS=12 -D C=96 --seed 5
# shellcheck disable=SC2046
check_run arg_reduce.axe --seed 28 $(for n in 1 3 8 10 13 15 19 22; do
    echo --schedule "reduce#$n=smem"
done)
# shellcheck disable=SC2046
check_run arg_reduce.axe --seed 29 $(for n in 24 26 28 30 32 34; do
    echo --schedule "reduce#$n=smem"
done)
check_run reduce_replicated.axe -D C=40 --seed 26 --schedule reduce=smem
# Warp, warpgroup and cta operators under ifs on finer thread ids that are
# uniform over each instance (tx >= 128 over warps and warpgroups, ...).
check_run uniform_if.axe
check_run uniform_if.axe -D R=12 --seed 24
# Integer wrap-around and saturating float -> integer casts: defined in
# the generated C (no UBSan report, when the toolchain has UBSan) and equal
# to the reference.
check_run int_edge.axe
check_run int_warp_sum.axe
check_run int_warp_sum.axe --seed 21
ubsan="-fsanitize=undefined -fno-sanitize-recover=undefined"
# shellcheck disable=SC2086
if echo 'int main(void) { return 0; }' >"$tmp/ub.c" &&
    $CC $ubsan -o "$tmp/ub" "$tmp/ub.c" 2>/dev/null && "$tmp/ub"; then
    CC="$CC $ubsan" check_run int_edge.axe
    CC="$CC $ubsan" check_run int_warp_sum.axe
    CC="$CC $ubsan" check_run warps.axe
    CC="$CC $ubsan" check_run dead_guards.axe
    CC="$CC $ubsan" check_run warp_mma_i8.axe
    CC="$CC $ubsan" check_run gemm_i8_acc8.axe
    CC="$CC $ubsan" K="$SRC/examples/kernels" check_run gemm_i8.axe \
        --schedule gemm=thread_fma
fi
# Masked tiles whose rows are contiguous: the guard needs the row
# coordinate; without it the tail tile read and wrote past the buffers
# while --check passed, so these rows also run under AddressSanitizer.
check_run masked_tail_rt.axe --arg M=13,16,1,0
check_run fill_exponent.axe
check_run sync_in_if.axe
check_run grid_bound.axe --arg T=3,1,0
check_run scaled_guards.axe --arg T=3,16,0
check_run sync_in_if.axe -D N=5 -D H=3 --seed 4
asan="-fsanitize=address"
# shellcheck disable=SC2086
if echo 'int main(void) { return 0; }' >"$tmp/as.c" &&
    $CC $asan -o "$tmp/as" "$tmp/as.c" 2>/dev/null && "$tmp/as"; then
    CC="$CC $asan" check_run masked_tail_rt.axe --arg M=13,16,1,0
    CC="$CC $asan" check_run masked_edges.axe
fi
# Non-finite outputs: NaN against NaN and an infinity against the same
# infinity pass --check; a NaN or an infinity against a finite value, or
# +inf against -inf, fails it. (A C compiler wrapper edits the generated C
# before building it, so that the kernel differs from the reference.)
check_run nonfinite.axe
check_run nonfinite.axe --seed 5
# A reordered f32 sum that cancels passes the normwise tolerance (seeds
# that failed the elementwise one; docs/compiler.md, axe run).
check_run shuffle_sum_f32.axe --seed 1
check_run shuffle_sum_f32.axe --seed 3 -D C=2048 -D ROWS=36
cat >"$tmp/cc_edit.sh" <<'EOS'
#!/bin/sh
for a; do
    case $a in *.c) sed -i "$AXE_TEST_EDIT" "$a" ;; esac
done
exec $AXE_TEST_CC "$@"
EOS
# expect_check_fails EDIT WHAT [FILE]: the kernel (nonfinite.axe) edited
# by sed EDIT fails --check.
expect_check_fails() {
    local f=${3:-nonfinite.axe}
    if AXE_TEST_EDIT=$1 AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
        "$AXE" run "$K/$f" --check >"$tmp/out" 2>"$tmp/err"; then
        bad "$f with $2 passes --check: $(head -c 300 "$tmp/out")"
    elif grep -q '^check FAILED' "$tmp/out"; then
        ok
    else
        bad "$f with $2: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
}
expect_check_fails 's/= (float)-1;/= (float)4;/' "2 where the reference has NaN"
expect_check_fails 's/= (float)1000;/= (float)1;/' "e where the reference has +inf"
expect_check_fails 's/= (double)1000;/= (double)1;/' "+-e where the reference has +-inf (f64)"
expect_check_fails 's/= (double)-t_d/= (double)t_d/' "+inf where the reference has -inf"
expect_check_fails 's/= (double)-4;/= (double)4;/' "2 where the reference has NaN (f64)"
# The reference does not run the generated C: a wrong constant in an
# emitted math macro, a tie going to the highest index, a NaN winning a
# max, or a select reading its operands the other way round fail --check.
expect_check_fails 's/0.70710678118654752440f/0.6f/' "a wrong gelu" math_ops.axe
expect_check_fails 's/0.044715f/0.06f/' "a wrong gelu_tanh" math_ops.axe
expect_check_fails 's/? (j) < (i) : (v) > (a)/? (j) > (i) : (v) > (a)/' "argmax ties to the highest index" arg_reduce.axe
expect_check_fails 's/fmaxf(/AXE_MAX(/' "max without fmaxf (NaN not skipped)" arg_reduce.axe
expect_check_fails 's/ != 0 ? / == 0 ? /' "select reversed" masks.axe
# A scalar operand's value is the reference's own: a wrong literal, a
# wrong runtime bound, the f16 pattern of 1.0 for 0.1 in select fail.
for edit in 's/(float)0.125/(float)0.25/' 's/(int32_t)s_lim/(int32_t)(s_lim + 1)/' \
    's/(uint16_t)11878/(uint16_t)15360/' 's/(uint32_t)3)/(uint32_t)4)/'; do
    AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
        "$AXE" run "$K/scalar_ops.axe" --check --arg M=40 --arg eps=0.5 \
        --arg scale=0.3 --arg lim=3 --arg b=1.5 --arg d=0.25 \
        >"$tmp/out" 2>"$tmp/err"
    if grep -q '^check FAILED' "$tmp/out"; then
        ok
    else
        bad "scalar_ops.axe with $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
done
AXE_TEST_EDIT='s/= (float)-1;/= (float)4;/' AXE_TEST_CC=$CC \
    CC="sh $tmp/cc_edit.sh" "$AXE" run "$K/nonfinite.axe" --check --json \
    >"$tmp/out" 2>&1
if grep -q '"max_abs_err":null,"max_rel_err":null,"pass":false,' "$tmp/out"; then
    ok
else
    bad "nonfinite.axe NaN mismatch --json: $(head -c 300 "$tmp/out")"
fi
# atomic_add (docs/compiler.md, "Grid-scope work"): many threads of many
# CTAs add into the same global elements; i32 exactly (also under UBSan:
# the sums wrap past 2^31 - 1 without signed overflow), f32 normwise (the
# reference's order differs from the C backend's). An atomic made a plain
# store, or applied twice, fails --check.
check_run atomic_add_i32.axe
check_run atomic_add_i32.axe -D G=5 -D T=96 -D N=7 -D B=3 --seed 3 --json
check_run atomic_add_f32.axe
check_run atomic_add_f32.axe -D G=5 -D T=96 -D N=7 -D B=3 --seed 3 --json
check_run atomic_add_views.axe
check_run atomic_add_views.axe -D R=9 -D C=100 --seed 4
# shellcheck disable=SC2086
if $CC $ubsan -o "$tmp/ub" "$tmp/ub.c" 2>/dev/null; then
    CC="$CC $ubsan" check_run atomic_add_i32.axe -D G=40 -D T=1024 --seed 9
fi
for edit in 's/(\*(p) = \*(p) + (float)(v))/(*(p) = (float)(v))/' \
    's/(\*(p) = \*(p) + (float)(v))/(*(p) = *(p) + 2 * (float)(v))/'; do
    if AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
        "$AXE" run "$K/atomic_add_f32.axe" --check >"$tmp/out" 2>"$tmp/err"; then
        bad "atomic_add_f32.axe edited by $edit passes --check"
    elif grep -q '^check FAILED' "$tmp/out"; then
        ok
    else
        bad "atomic_add_f32.axe edited by $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
done
# The generated fp8 conversions equal the library's bit for bit over
# every range (normal, subnormal, saturated, infinite, NaN inputs, ties),
# and a generated saturation bound, tie rule or decoding that differs is
# seen: the check is no longer exact.
for args in "" "-D N=2048 --seed 17"; do
    # shellcheck disable=SC2086
    if "$AXE" run "$K/fp8_cast.axe" --check $args >"$tmp/out" 2>&1 &&
        grep -q '^check passed: max_abs_err 0, max_rel_err 0$' "$tmp/out"; then
        ok
    else
        bad "fp8_cast.axe $args is not exact: $(head -c 300 "$tmp/out")"
    fi
done
for edit in 's/f, 3, 7, 0x7eu)/f, 3, 7, 0x7du)/' 's/f, 2, 15, 0x7bu)/f, 2, 15, 0x7au)/' \
    's/(rem == half \&\& (r \& 1u))/(rem == half)/' 's/(m << (23u - mb))/(m << (22u - mb))/'; do
    if AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
        "$AXE" run "$K/fp8_cast.axe" --check >"$tmp/out" 2>"$tmp/err" &&
        grep -q '^check passed: max_abs_err 0, max_rel_err 0$' "$tmp/out"; then
        bad "fp8_cast.axe with $edit is still exact"
    elif grep -qE '^check (FAILED|passed: max_abs_err ([1-9]|0\.|inf|nan))' "$tmp/out"; then
        ok
    else
        bad "fp8_cast.axe with $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
done
# A generated swizzle that differs from the library's fails --check.
for edit in 's/a ^ ((a >> s) \& mask)/a ^ ((a >> (s + 1)) \& mask)/' \
    's/a ^ ((a \& mask) << s)/a/'; do
    if AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
        "$AXE" run "$K/swizzle_raw.axe" --check >"$tmp/out" 2>"$tmp/err"; then
        bad "swizzle_raw.axe edited by $edit passes --check"
    elif grep -q '^check FAILED' "$tmp/out"; then
        ok
    else
        bad "swizzle_raw.axe edited by $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
    fi
done
# Kernel-scope reduce and gemm (reduce.grid, gemm.split_k): the reduced
# dimension split into chunks over the grid's threads and combined by
# atomics (f32, i32), or one thread per element (other dtypes, or as many
# elements as threads). A chunk loop that drops its last term, or an atomic
# made a plain store, fails --check.
check_run kernel_reduce.axe
check_run kernel_reduce.axe -D R=3 -D C=4097 --seed 9 --json
check_run kernel_gemm.axe
check_run kernel_gemm.axe -D M=5 -D N=3 -D K=777 -D W=40 --seed 5 --json
check_run kernel_reduce_loops.axe
check_run kernel_reduce_loops.axe -D R=37 -D C=97 --seed 3
# shellcheck disable=SC2086
if $CC $ubsan -o "$tmp/ub" "$tmp/ub.c" 2>/dev/null; then
    CC="$CC $ubsan" check_run kernel_gemm.axe -D K=1000 --seed 2
    CC="$CC $ubsan" check_run kernel_reduce.axe --seed 4
fi
for edit in 's/< ax_k1; ++/< ax_k1 - 1; ++/' \
    's/(\*(p) = \*(p) + (float)(v))/(*(p) = (float)(v))/'; do
    for f in kernel_reduce.axe kernel_gemm.axe; do
        if AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
            "$AXE" run "$K/$f" --check >"$tmp/out" 2>"$tmp/err"; then
            bad "$f edited by $edit passes --check"
        elif grep -q '^check FAILED' "$tmp/out"; then
            ok
        else
            bad "$f edited by $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
        fi
    done
done
# tf32 on request (gemm(C, A, B, tf32)): every schedule rounds A and B as
# the reference does, so the C backend (k order) matches it exactly; the
# generated ax_tf32 equals the library's axe_tf32_round bit for bit in
# every range, and a rounding without ties away from zero, without the
# rounding or with a wrong mask is seen.
exact_run gemm_tf32.axe
exact_run gemm_tf32.axe -D KT=5 --seed 8
exact_run gemm_tf32.axe --schedule gemm#12=thread_fma --seed 3
exact_run tf32_round.axe
exact_run tf32_round.axe -D N=2048 --seed 17
for edit in 's/(x + 0x1000u)/(x + 0xfffu)/' 's/x = (x + 0x1000u) \& 0xffffe000u;/x = x;/' \
    's/(x + 0x1000u) \& 0xffffe000u/(x + 0x1000u) \& 0xfffff000u/'; do
    for f in tf32_round.axe gemm_tf32.axe; do
        if AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
            "$AXE" run "$K/$f" --check >"$tmp/out" 2>"$tmp/err" &&
            grep -q '^check passed: max_abs_err 0, max_rel_err 0$' "$tmp/out"; then
            [ "$f" = gemm_tf32.axe ] && [ "$edit" = 's/(x + 0x1000u)/(x + 0xfffu)/' ] &&
                ok && continue # no exact tie among its random inputs
            bad "$f with $edit is still exact"
        elif grep -qE '^check (FAILED|passed: max_abs_err ([1-9]|0\.|inf|nan))' "$tmp/out"; then
            ok
        else
            bad "$f with $edit: $(cat "$tmp/out" "$tmp/err" | head -c 300)"
        fi
    done
done
# expect_explain FILE PATTERN ARGS...: --explain output matches PATTERN.
expect_explain() {
    local f=$1 pat=$2
    shift 2
    if "$AXE" compile "$K/$f" --explain "$@" >"$tmp/out" 2>"$tmp/err" &&
        grep -qE -- "$pat" "$tmp/out"; then
        ok
    else
        bad "explain $f $*: no match for '$pat' in: $(head -c 800 "$tmp/out" "$tmp/err")"
    fi
}
expect_explain gemm_tf32.axe '^    tf32: A and B rounded to tf32 as cvt\.rna\.tf32\.f32 does'
# The generated f16/bf16 conversions equal the library's bit for bit.
for args in "" "-D N=768 --seed 17"; do
    # shellcheck disable=SC2086
    if "$AXE" run "$K/half_cast.axe" --check $args >"$tmp/out" 2>&1 &&
        grep -q '^check passed: max_abs_err 0, max_rel_err 0$' "$tmp/out"; then
        ok
    else
        bad "half_cast.axe $args is not exact: $(head -c 300 "$tmp/out")"
    fi
done
for f in "$K"/*.axe; do
    name=$(basename "$f" .axe)
    "$AXE" compile "$f" >"$tmp/$name.c"
    if $CC -std=c99 -Wall -Wextra -Werror -O2 -DAXE_KERNEL_MAIN -c \
        -o "$tmp/$name.o" "$tmp/$name.c" 2>"$tmp/ccerr"; then
        ok
    else
        bad "cc warns on the C of $name: $(head -c 600 "$tmp/ccerr")"
    fi
done
K="$SRC/examples/kernels"

# Golden C, warning-free compilation, no division by run-time values.
for f in "$K"/*.axe; do
    name=$(basename "$f" .axe)
    (cd "$K" && "$AXE" compile "$name.axe" --target c) >"$tmp/$name.c"
    if diff -u "$SRC/tests/golden/kernels/$name.c.golden" "$tmp/$name.c" >"$tmp/diff"; then
        ok
    else
        bad "golden C of $name differs (scripts/regen_kernel_golden.sh): $(head -c 600 "$tmp/diff")"
    fi
    if $CC -std=c99 -Wall -Wextra -Werror -O2 -DAXE_KERNEL_MAIN -c \
        -o "$tmp/$name.o" "$tmp/$name.c" 2>"$tmp/ccerr"; then
        ok
    else
        bad "cc warns on the C of $name: $(head -c 600 "$tmp/ccerr")"
    fi
    # clang too when present (it also warns about unused static inline
    # functions, so only the f16/bf16 helpers the code calls are emitted).
    if command -v clang >/dev/null 2>&1; then
        if clang -std=c99 -Wall -Wextra -Werror -O2 -DAXE_KERNEL_MAIN -c \
            -o "$tmp/$name.o" "$tmp/$name.c" 2>"$tmp/ccerr"; then
            ok
        else
            bad "clang warns on the C of $name: $(head -c 600 "$tmp/ccerr")"
        fi
    fi
    # Kernel code only: drop the harness, #defines, comments and string
    # literals (the messages of run-time checks); every / and % must then
    # be followed by an integer literal.
    # (f16/bf16 elements are read through ax_h2f/ax_b2f: dropped too.)
    sed '/^#ifdef AXE_KERNEL_MAIN/,$d; /^#define/d; s|/\*.*\*/||g; s/ax_[hb]2f(//g; s/"[^"]*"//g
         /^\/\*/,/\*\//d' \
        "$tmp/$name.c" >"$tmp/kernel_only"
    # (a / or % followed by a variable or a parenthesis; dividing array
    # elements, the div operator on data, is not index arithmetic.)
    if grep -nE '(/|%) *(\(|[A-Za-z_][A-Za-z0-9_]*([^A-Za-z0-9_[]|$))|(/|%) +[0-9]+[^0-9L]' \
        "$tmp/kernel_only" >"$tmp/divs"; then
        bad "$name divides by a run-time value: $(head -c 300 "$tmp/divs")"
    else
        ok
    fi
    if grep -nE 'AXE_F(DIV|MOD)\(' "$tmp/kernel_only" |
        grep -vqE 'AXE_F(DIV|MOD)\([^()]*(\([^()]*\))*[^()]*, [0-9]+L\)'; then
        bad "$name: AXE_FDIV/AXE_FMOD with a non-literal divisor"
    else
        ok
    fi
done


# vector: chosen (fig5: 8 contiguous, 16-byte aligned floats per thread),
# rejected for misalignment (row length 131) and for max_common_vector 1.
expect_explain fig5_copy.axe 'chosen copy\.vector'
# A shared row read whole by every replica of a register destination is
# not reduced in-thread: reduce.tree shares the work.
expect_explain row_reduce.axe "rejected reduce\.thread_loop: the destination 'mean' is replicated over 256 threads: each would add the whole row from 'row'"
expect_explain row_reduce.axe 'chosen reduce\.tree'
# a dynamic offset prints in the language's spelling (// floor division)
expect_explain fig4_thread.axe "src 'C': per-thread loop layout S\[\(8\):\(1\)\] \+ \(tx // 8 \* 128 \+ tx % 8 \* 8 \+ 2112\)\*1"
expect_explain fig5_copy.axe 'innermost access: 4 elements'
expect_explain fig5_copy.axe 'rejected copy\.vector: max_common_vector is 8 but no 8/16-byte access' -D N=131
expect_explain transpose.axe 'rejected copy\.vector: max_common_vector of the per-thread layouts is 1'
# thread_loop: chosen for a register-bound elementwise op, and for a copy
# when vector is not aligned; rejected without a distributed register.
expect_explain fig5_copy.axe 'chosen add\.thread_loop'
expect_explain fig5_copy.axe 'chosen copy\.thread_loop' -D N=131
expect_explain fig5_copy.axe "threads bound by 'C_local': dim 0 digit \(rank/8\)%16 dim 1 digit \(rank/1\)%8"
# The address at digit 0: the region's constant start (C[16:32, 64:128]
# with rows of N: 16 N + 64) and dynamic starts (times the row length).
expect_explain fig5_copy.axe "src 'C': per-thread loop layout S\[\(8\):\(1\)\] \+ 2112 \+ \(rank/8%16\)\*128 \+ \(rank/1%8\)\*8$"
expect_explain fig5_copy.axe "src 'C': per-thread loop layout S\[\(8\):\(1\)\] \+ 2160 \+ \(rank/8%16\)\*131 \+ \(rank/1%8\)\*8$" -D N=131
expect_explain fig5_copy.axe "dst 'D': per-thread loop layout S\[\(8\):\(1\)\] \+ \(rank/8%16\)\*64 \+ \(rank/1%8\)\*8$"
expect_explain warp_slices.axe "src 'As': per-thread loop layout S\[\(2,4\):\(128,4\)\] \+ \(\(warpid - 4\) \* 16\)\*16 \+ \(rank/4%8\)\*16 \+ \(rank/1%4\)\*1$"
expect_explain transpose.axe 'rejected copy\.thread_loop: no register operand distributed'
# split: chosen without a distributed register, rejected with one.
expect_explain transpose.axe 'chosen copy\.split'
expect_explain fig5_copy.axe "rejected copy\.split: 'C_local' is distributed: its layout binds"
# reduce: in-thread when each row lies on one thread, through shared
# memory when the reduced dimension is spread over the lanes.
expect_explain rmsnorm.axe 'chosen reduce\.thread_loop'
expect_explain rmsnorm.axe 'rejected reduce\.smem: a thread-scope operator has no threads to share data'
expect_explain softmax.axe 'chosen reduce\.warp_shuffle'
expect_explain softmax.axe 'then a butterfly over lane masks 1 2 4 8 16'
expect_explain softmax.axe 'also applies reduce\.smem \(lower priority\)'
expect_explain softmax.axe "rejected reduce\.thread_loop: 'r' holds element digit \(dim 1, weight 1\) on a different thread"
expect_explain softmax.axe "stage 1, copy\.thread_loop" --schedule reduce=smem
# A source replicated over the lanes is readable by every lane.
expect_explain softmax.axe "src 'm': per-thread loop layout S\[\(3\):\(0\)\]"
# gemm: each thread's 8x8 block of C from shared A and B tiles.
expect_explain gemm.axe 'chosen gemm\.thread_fma'
expect_explain gemm.axe "src 'As': per-thread loop layout S\[\(8,8,32\):\(33,0,1\)\] \+ \(rank/16%16\)\*264"
# gemm.mma_atom: register tiles of the m16n8k8 fragments, recognized by
# is_tile_inner; rejected at cta scope.
expect_explain warp_mma.axe 'chosen gemm\.mma_atom'
expect_explain warp_mma.axe 'outer layouts \(is_tile_inner\): C S\[\(2,2\):\(2,1\)\], A S\[\(2,2\):\(2,1\)\], B S\[\(2,2\):\(2,1\)\]'
expect_explain warp_mma.axe "rejected gemm\.thread_fma: 'b' holds element digit"
expect_explain gemm.axe 'rejected gemm\.mma_atom: an mma atom runs on one warp, not at cta scope'
# gemm.mma_smem: C register tiles of the m16n8k16 C fragment over 8 warps
# (outer layout on warpid and m), A and B from shared memory; rejected for
# the thread-blocked C of gemm.axe and for register A and B.
expect_explain gemm_mma.axe 'chosen gemm\.mma_smem'
expect_explain gemm_mma.axe 'C outer layout \(is_tile_inner\): S\[\(2,4,4,4\):\(4@warpid,4,1@warpid,1\)\]'
expect_explain gemm_mma.axe 'also applies gemm\.thread_fma \(lower priority\)'
expect_explain gemm_mma.axe 'each warp loops over the atom tiles it holds'
expect_explain gemm.axe "rejected gemm\.mma_smem: 'acc' is not a tile of the C fragment"
expect_explain warp_mma_f16.axe "rejected gemm\.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory"
# The f16 atom m16n8k16 (f32 accumulate); refused for f16 accumulate and
# for a register layout that is not a tile of its fragment.
expect_explain warp_mma_f16.axe 'chosen gemm\.mma_atom'
expect_explain warp_mma_f16.axe 'atom mma\.sync\.aligned\.m16n8k16\.f32\.f16\.f16\.f32, 2 x 2 x 2 atom tiles'
sed 's/C: f32/C: f16/; s/register c: f32/register c: f16/' "$K/warp_mma_f16.axe" >"$tmp/acc16.axe"
sed 's/(8 \* KT, 2, 4@laneid, 8, 4, 1@laneid, 1)/(8 * KT, 1, 4@laneid, 8, 4, 1@laneid, 2)/' \
    "$K/warp_mma_f16.axe" >"$tmp/notile.axe"
# The s8 atom m16n8k32 (i32 accumulate): its fragments from the PTX ISA
# (A row = group + 8 (i/4 % 2), column = 4 (lane % 4) + i % 4 + 16 (i/8)).
expect_explain gemm_i8.axe 'chosen gemm\.mma_smem'
expect_explain gemm_fp8.axe 'mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32'
expect_explain gemm_i8.axe 'mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32'
sed 's/(16 \* KT, 4, 4@laneid, 16, 8,/(16 * KT, 8, 4@laneid, 16, 4,/' \
    "$SRC/tests/kernels/warp_mma_i8.axe" >"$tmp/notile_i8.axe"
# copy.smem: registers with different thread ownership (test kernel).
K="$SRC/tests/kernels"
# Swizzled tiles: vectorized where the swizzle keeps 16-byte runs
# contiguous (Swizzle<2,3,4,outer> on f32, Swizzle<3,3,3> on f16), refused
# with the reason where it keeps single elements (Swizzle<0,5,5>).
expect_explain swizzle_raw.axe "rejected copy\.vector: max_common_vector of the per-thread layouts is 2048, but 'T' is swizzled by Swizzle<0,5,5>, which keeps aligned runs of only 1 element contiguous"
expect_explain swizzle_raw.axe "dst 'U': Swizzle<2,3,4,outer> of per-thread loop layout|dst 'U': Swizzle<2,3,4,outer> of dealt loop layout"
expect_explain swizzle_raw.axe 'innermost access: 4 elements'
expect_explain swizzle_raw.axe 'innermost access: 8 elements'
expect_explain gemm_swizzle.axe 'chosen gemm\.mma_smem'
expect_explain gemm_mma_trans.axe 'chosen gemm\.mma_smem'
expect_explain gemm_mma_global.axe 'chosen gemm\.mma_smem'
expect_explain warp_mma_fp8.axe 'atom mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e4m3\.e5m2\.f32, 2 x 2 x 2 atom tiles'
expect_explain warp_mma_fp8.axe 'atom mma\.sync\.aligned\.m16n8k32\.row\.col\.f32\.e5m2\.e5m2\.f32, 2 x 2 x 2 atom tiles'
expect_explain warp_mma_i8.axe 'atom mma\.sync\.aligned\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32, 2 x 2 x 2 atom tiles'
expect_explain cta_reduce.axe 'chosen reduce\.tree'
expect_explain cta_reduce.axe "barrier; a tree over the 128 elements of each row in 'ax_red1' \\(the scratch of 'r'\\), a barrier after each step"
expect_explain cta_reduce.axe 'also applies reduce\.smem'
expect_explain cta_reduce.axe 'chosen reduce\.smem' --schedule 'reduce#1=smem'
expect_explain arg_reduce.axe 'rejected reduce\.tree: a tree combines values only, and argmax needs their indices'
expect_explain cta_reduce.axe 'rejected reduce\.warp_shuffle: a butterfly runs over the lanes of one warp, not at cta scope'
expect_explain restage.axe 'chosen copy\.smem'
expect_explain dead_guards.axe "op 1 \(line 16\): thread copy\(B\[1\], A\[1\]\)"
expect_explain dead_guards.axe "never runs: the conditions around it leave 'bx' no value in \[0, 2\] \(dead code: not dispatched, not emitted\)"
expect_explain dead_guards.axe "never runs: the conditions around it hold for no thread, CTA and loop iteration"
expect_explain dead_guards.axe "never runs: the conditions around it leave 'i' no value in \[0, 1\]"
expect_explain dead_runtime.axe "never runs: the conditions around it leave 'M' no value in \[-2147483648, 2147483647\]"
# A destination replicated over lanes that hold other rows: the butterfly
# would leave each lane only its own row's total.
expect_explain reduce_replicated.axe "rejected reduce\.warp_shuffle: the destination 'all' is replicated over the threads of digit \(rank/8\)%4 \(dim 0\), which compute different elements: its replicas would not all be written"
# gemm.mma_smem at warp scope in a slice: the atom loop of the one warp.
expect_explain mma_smem_warp.axe 'chosen gemm\.mma_smem'
expect_explain gemm_reg_a.axe 'chosen gemm\.mma_reg_a'
expect_explain gemm_reg_b_wn.axe 'chosen gemm\.mma_reg_b'
expect_explain gemm_reg_b_wn.axe "B's fragments from the registers of the warp's lanes"
expect_explain gemm_reg_a.axe "rejected gemm\.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory \(mma_reg_a takes A from registers\)"
expect_explain mma_smem_warp.axe "rejected gemm\.mma_atom: 'As' is not a whole register tensor distributed over a warp's lanes"
# Barriers under if and in sync-free loops (test kernel).
expect_explain slice_loops.axe 'op 3 \(line 26\): warp gemm'
expect_explain slice_loops.axe 'chosen gemm\.mma_atom'
expect_explain slice_loops.axe 'chosen reduce\.warp_shuffle'
expect_explain slice_loops.axe 'op 11 \(line 41\): cta reduce'
expect_explain slice_loops.axe 'chosen reduce\.tree'
expect_explain restage.axe 'barrier; stage 2, copy\.thread_loop'
expect_explain restage.axe "rejected copy\.thread_loop: 'r' holds element digit \(dim 0, weight 1\) on a different thread"
K="$SRC/examples/kernels"
# Scope slices: warp-scope schedules with barriers inside if (warps 4..7).
expect_explain warp_slices.axe 'op 4 \(line 33\): warp gemm\(c\[16,16,16\]'
expect_explain warp_slices.axe 'chosen gemm\.mma_atom'
expect_explain warp_slices.axe 'chosen reduce\.warp_shuffle'
expect_explain warp_slices.axe 'then a butterfly over lane masks 1 2'
expect_explain warp_slices.axe 'chosen reduce\.smem' --schedule reduce=smem
# copy.smem rejected: a source that is not a distributed register needs no
# staging, a destination in shared memory is not a register, a kernel-scope
# copy has no threads to share data (forced: below).
expect_explain fig5_copy.axe "rejected copy\.smem: the source 'C' is not a distributed register: no staging is needed"
expect_explain transpose.axe "rejected copy\.smem: the destination 'T' is not a register distributed over the cta's threads"
expect_explain kernel_ops.axe 'rejected copy\.smem: a kernel-scope operator has no threads to share data'
# The elementwise split: chosen without a distributed register, rejected
# with one.
expect_explain kernel_ops.axe 'chosen add\.split'
expect_explain kernel_ops.axe 'chosen fill\.split'
expect_explain fig5_copy.axe "rejected add\.split: 'C_local' is distributed: its layout binds elements to threads"
# Kernel scope: split over every thread of the grid (6 CTAs x 128).
expect_explain kernel_ops.axe '4800 elements dealt round-robin to 768 threads'
expect_explain kernel_ops.axe 'rejected mul\.thread_loop: a kernel-scope operator has no register operands to bind threads'
# Forcing.
expect_explain fig5_copy.axe 'chosen copy\.thread_loop' --schedule copy=thread_loop

# expect_fail CODE PATTERN ARGS...: exit CODE, one "axe: " line (besides
# notes) and the pattern somewhere on stderr.
expect_fail() {
    local code=$1 pat=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -eq "$code" ] &&
        [ "$(grep '^axe: ' "$tmp/err" | grep -vc ': note: ')" = 1 ] &&
        grep -qE -- "$pat" "$tmp/err"; then
        ok
    else
        bad "expected $code and '$pat' from: $* (got $rc: $(head -c 600 "$tmp/err"))"
    fi
}

expect_fail 1 "error: no schedule for copy \\(forced\\): split does not apply \\(reasons below\\)" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule copy=split
expect_fail 1 "note: copy\\.split: 'C_local' is distributed: its layout binds elements to threads$" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule copy=split
expect_fail 1 "note: copy\\.vector: applies, but is not the forced schedule$" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule copy=split
# Malformed or unknown --schedule options are usage errors (exit 2);
# options that do not fit the program are compile errors (exit 1).
expect_fail 2 "copy has no schedule 'bogus' \\(vector, dma, transpose, thread_loop, split, smem\\)" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule copy=bogus
expect_fail 2 "--schedule foo=thread_loop: 'foo' is not an operator \\(copy, fill," \
    "$AXE" compile "$K/fig5_copy.axe" --schedule foo=thread_loop
expect_fail 2 "'copy#x' is not OP or OP#N" \
    "$AXE" run "$K/fig5_copy.axe" --schedule 'copy#x=split'
expect_fail 2 "copy#0 is forced twice \\(copy#0=split and copy#0=vector\\)" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#0=split' --schedule 'copy#0=vector'
expect_fail 2 "copy#00 is forced twice \\(copy#0=vector and copy#00=thread_loop\\)" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#0=vector' --schedule 'copy#00=thread_loop'
expect_fail 2 "--schedule: the target 'copy#000000000000000...' is longer than" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#000000000000000000000000000000000000000000000000000000000000000000002=thread_loop'
expect_fail 1 '--schedule copy#4=thread_loop: the program has no operator 4 \(its operators are numbered 0 to 2\)' \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#4=thread_loop'
expect_fail 1 "--schedule copy#1=split: operator 1 is 'add', not 'copy'" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#1=split'
expect_fail 1 '--schedule gemm=thread_fma: the program has no gemm operator' \
    "$AXE" compile "$K/fig5_copy.axe" --schedule gemm=thread_fma
expect_fail 1 "note: copy\\.split: 'C_local' is distributed" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#0=split'
expect_fail 1 "note: copy\\.smem: the source 'C' is not a distributed register: no staging is needed$" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule 'copy#0=smem'

# expect_schedules FILE LINE ARGS...: axe run --check passes and prints the
# schedules line LINE (per-operator forcing: copy#N is operator N; a
# numbered option wins over a kind-wide one).
expect_schedules() {
    local f=$1 want=$2
    shift 2
    if "$AXE" run "$K/$f" --check "$@" >"$tmp/out" 2>"$tmp/err" &&
        grep -qxF -- "$want" "$tmp/out" && grep -q '^check passed' "$tmp/out"; then
        ok
    else
        bad "schedules of $f $*: want '$want', got: $(head -c 400 "$tmp/out" "$tmp/err")"
    fi
}
expect_schedules fig5_copy.axe 'kernel fig5_copy, target c, schedules: 0:copy=vector 1:add=thread_loop 2:copy=vector'
expect_schedules fig5_copy.axe 'kernel fig5_copy, target c, schedules: 0:copy=vector 1:add=thread_loop 2:copy=thread_loop' \
    --schedule 'copy#2=thread_loop'
expect_schedules fig5_copy.axe 'kernel fig5_copy, target c, schedules: 0:copy=vector 1:add=thread_loop 2:copy=thread_loop' \
    --schedule copy=thread_loop --schedule 'copy#0=vector'
expect_schedules warp_slices.axe 'kernel warp_slices, target c, schedules: 0:copy=split 1:copy=thread_loop 2:copy=thread_loop 3:fill=thread_loop 4:gemm=mma_atom 5:copy=thread_loop 6:reduce=smem 7:copy=thread_loop' \
    --schedule 'copy#0=split' --schedule 'copy#5=thread_loop' --schedule 'reduce#6=smem'
K="$SRC/tests/kernels"
expect_schedules dead_guards.axe 'kernel dead_guards, target c, schedules: 0:copy=thread_loop 1:copy=dead 2:fill=dead 3:fill=dead 4:fill=dead 5:fill=dead 6:add=thread_loop'
expect_schedules dead_guards.axe 'kernel dead_guards, target c, schedules: 0:copy=thread_loop 1:copy=thread_loop 2:fill=dead 3:fill=dead 4:fill=dead 5:fill=dead 6:add=thread_loop' -D M=100
expect_schedules reduce_replicated.axe 'kernel reduce_replicated, target c, schedules: 0:copy=thread_loop 1:reduce=tree 2:reduce=warp_shuffle 3:copy=vector 4:copy=thread_loop'
expect_schedules reduce_replicated.axe 'kernel reduce_replicated, target c, schedules: 0:copy=thread_loop 1:reduce=smem 2:reduce=warp_shuffle 3:copy=vector 4:copy=thread_loop' \
    --schedule 'reduce#1=smem'
# Kernel-scope reduce and gemm say whether they combine by atomics.
expect_explain kernel_gemm.axe "^    120 elements of 'C' x 9 chunks of 334 along dim 2 \(of 3000\) = 1080 items, dealt over 1024 grid threads$"
expect_explain kernel_gemm.axe "^    atomics: each item's partial is combined into 'C' by AXE_ATOMIC_ADD_F32 \(one kernel, no grid barrier\)$"
expect_explain kernel_gemm.axe "^    no atomics: one thread owns each element of 'Cd' and updates it in place, in order \(its dtype has no atomics\)$"
expect_explain kernel_reduce.axe "^    atomics: each item's partial is combined into 'rowmax' by AXE_ATOMIC_MAX_F32"
expect_explain kernel_reduce.axe "^    no atomics: one thread owns each element of 'colmax' and updates it in place, in order$"
expect_fail 1 "note: reduce\\.grid: not at kernel scope \\(it splits the reduced dimension over the grid's threads\\)" \
    "$AXE" compile "$K/cta_reduce.axe" --schedule reduce=grid
K="$SRC/examples/kernels"
expect_explain gemm_splitk.axe "chosen atomic_add\.thread_loop"
K="$SRC/tests/kernels"
K="$SRC/examples/kernels"
expect_fail 2 "--schedule copy=warp_shuffle: copy has no schedule 'warp_shuffle' \\(vector, dma, transpose, thread_loop, split, smem\\)" \
    "$AXE" compile "$K/fig5_copy.axe" --schedule copy=warp_shuffle
expect_fail 1 'declares no param .Q.' "$AXE" compile "$K/fig5_copy.axe" -D Q=1
expect_fail 2 'compile: -D M is given twice \(M=40 and M=48\)' "$AXE" compile "$K/fig5_copy.axe" -D M=40 -D M=48
expect_fail 2 'run: -D N is given twice \(N=128 and N=64\)' "$AXE" run "$K/fig5_copy.axe" -DN=128 -D N=64 --check
# ':' alone is the whole dimension: the same code as 0:8, and --check passes.
printf 'kernel k(A: f32[8, 12], B: f32[8, 4]) grid(1) threads(8) {\n    cta copy(B, A[:, 4:8]);\n}\n' >"$tmp/colon.axe"
mkdir -p "$tmp/c08"
sed 's/A\[:, /A[0:8, /' "$tmp/colon.axe" >"$tmp/c08/colon.axe"
if "$AXE" run "$tmp/colon.axe" --check >"$tmp/out" 2>&1 && grep -q '^check passed' "$tmp/out" &&
    "$AXE" compile "$tmp/colon.axe" -o "$tmp/colon.c" && "$AXE" compile "$tmp/c08/colon.axe" -o "$tmp/colon08.c" &&
    grep -q 'A\[0:8, ' "$tmp/c08/colon.axe" && sed -i 1d "$tmp/colon.c" "$tmp/colon08.c" &&
    cmp -s "$tmp/colon.c" "$tmp/colon08.c"; then
    ok
else
    bad "A[:, 4:8]: $(head -c 300 "$tmp/out") $(diff "$tmp/colon.c" "$tmp/colon08.c" | head -c 300)"
fi
# Sibling loops may reuse a loop variable's name.
printf 'kernel k(A: f32[4]) grid(1) threads(1) {\n    for i in range(2) { thread fill(A[i : +1], 1.0); }\n    for i in range(3) { thread fill(A[i + 1 : +1], 2.0); }\n}\n' >"$tmp/sib.axe"
if "$AXE" run "$tmp/sib.axe" --check >"$tmp/out" 2>&1 && grep -q '^check passed' "$tmp/out"; then
    ok
else
    bad "sibling loops named i: $(head -c 300 "$tmp/out")"
fi
expect_fail 2 'unknown target .opencl. \(targets: c, cuda, mpi, trn-sim\)' "$AXE" compile "$K/fig5_copy.axe" --target opencl
expect_fail 2 'no FILE.axe given' "$AXE" run --check
expect_fail 1 'cannot open' "$AXE" compile "$tmp/missing.axe"
expect_fail 1 'mma_atom: no mma atom for f16 inputs with f16 accumulate \(f16 or bf16 with f32: m16n8k16, m16n8k8; f32: m16n8k8 \(tf32 on cuda\); f64: m8n8k4; i8 with i32, e4m3 or e5m2 with f32: m16n8k32\)' \
    "$AXE" compile "$tmp/acc16.axe"
# reduce.smem is refused when its shared scratch passes the 227 KiB of a
# CTA (docs/compiler.md, "Limits").
printf '%s\n' 'kernel k(A: f32[64, 1024]) grid(1) threads(1024) {' \
    '    register r: f32[64, 1024] layout S[(64, 1024):(1, 1@tx)];' \
    '    register m: f32[64] layout S[64:1] + R[1024:1@tx];' \
    '    cta reduce(m, r, sum, 1);' '}' >"$tmp/scratch.axe"
expect_fail 1 "note: reduce.smem: shared scratch of 262144 bytes would bring the CTA to 262144 bytes, beyond 232448" \
    "$AXE" compile "$tmp/scratch.axe" --schedule reduce=smem
# axe run refuses a launch whose work is beyond its limit (2^30 element
# operations and parameter elements): a legal grid of 65535 x 65535 CTAs.
printf 'kernel big(A: f32[64]) grid(65535, 65535) threads(32) {\n    cta fill(A, 1.0);\n}\n' >"$tmp/big.axe"
expect_fail 1 'run: the kernel does 274869518464 element operations, beyond axe run.s limit of 1073741824' \
    "$AXE" run "$tmp/big.axe" --check
# A gemm counts its multiply and add per M N K (work 2 M N K, as its flops):
# gemm.axe at 1024 x 1024 x 768 (M N K = 805306368, below 2^30) is refused.
expect_fail 1 'run: the kernel does 1627914240 element operations, beyond axe run.s limit of 1073741824' \
    "$AXE" run "$SRC/examples/kernels/gemm.axe" -D M=1024 -D N=1024 -D K=768 --check
expect_fail 1 "mma_atom: 'a' is not a tile of the A fragment \[16, 16\] S\[\(2,8,2,4,2\):\(2,4@laneid,4,1@laneid,1\)\]" \
    "$AXE" compile "$tmp/notile.axe"
expect_fail 1 "mma_atom: 'a' is not a tile of the A fragment \[16, 32\] S\[\(2,8,2,4,4\):\(4,4@laneid,8,1@laneid,1\)\]" \
    "$AXE" compile "$tmp/notile_i8.axe"

# --json: one line, the documented keys.
if "$AXE" run "$K/transpose.axe" --check --json >"$tmp/out" 2>"$tmp/err" &&
    [ "$(wc -l <"$tmp/out")" = 1 ] &&
    grep -qE '^\{"kernel":"transpose","target":"c","schedules":\{"copy":"split","copy#1":"split"\},"max_abs_err":0,"max_rel_err":0,"pass":true,"races":\[\],"orders":\{"ascending":true,"descending":true,"random":true\},"seconds":null,"bytes_per_s":null\}$' "$tmp/out"; then
    ok
else
    bad "run --json: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# What was not measured is null: the errors without --check, the time and
# rate without --bench (checked with jq where it is installed).
# expect_json JQ_FILTER FILE ARGS...: axe run --json prints one object
# for which the filter is true.
expect_json() {
    local filter=$1 f=$2
    shift 2
    if "$AXE" run "$K/$f" --json "$@" >"$tmp/out" 2>"$tmp/err" &&
        [ "$(wc -l <"$tmp/out")" = 1 ] && jq -e "$filter" "$tmp/out" >/dev/null; then
        ok
    else
        bad "run $f --json $*: '$filter' fails on: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
    fi
}
if command -v jq >/dev/null 2>&1; then
    expect_json '.pass == null and .max_abs_err == null and .max_rel_err == null and .seconds == null and .bytes_per_s == null' \
        transpose.axe
    expect_json '.pass == true and .max_abs_err == 0 and .max_rel_err == 0 and .seconds == null and .bytes_per_s == null' \
        transpose.axe --check
    expect_json '.pass == null and .max_abs_err == null and .max_rel_err == null and .seconds > 0 and .bytes_per_s > 0' \
        transpose.axe --bench
    expect_json '.schedules.gemm == "thread_fma" and .pass == true and (.max_abs_err | type) == "number" and .seconds > 0 and .flops_per_s > 0 and (has("bytes_per_s") | not)' \
        gemm.axe -D M=128 -D N=128 -D K=32 --check --bench
    expect_json '.pass == null and .seconds == null and .flops_per_s == null' \
        gemm.axe -D M=128 -D N=128 -D K=32
else
    echo "note: jq not installed: run --json null checks skipped"
fi
# --json prints exactly one JSON object also when the run fails before a
# result: a compile error (with its line, column and the notes of a "no
# schedule"), a syntax or usage error, a file it cannot open, a failing C
# compiler, a missing runtime scalar.
# expect_json_err CODE LINE ARGS...: exit CODE, stdout is exactly LINE.
expect_json_err() {
    local code=$1 want=$2
    shift 2
    "$AXE" run "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -eq "$code" ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
        [ "$(cat "$tmp/out")" = "$want" ]; then
        ok
    else
        bad "run $* (json error): got $rc: $(cat "$tmp/out" "$tmp/err" | head -c 600)"
    fi
}
printf 'param M = 4;\nkernel k(A: f32[8]) grid(1) threads(1) {\n    for M in range(3) { thread fill(A[M : +1], 1.0); }\n}\n' >"$tmp/jm.axe"
expect_json_err 1 '{"pass":false,"error":"INVALID","message":"a loop variable cannot be named '"'"'M'"'"': a param has that name","line":3,"column":9}' \
    "$tmp/jm.axe" --json --check
printf 'kernel k(A: f32[4]) grid(1) threads(1) {\n  thread copy(A A);\n}\n' >"$tmp/js.axe"
expect_json_err 2 '{"pass":false,"error":"SYNTAX","message":"expected '"','"', found '"'A'"'","line":2,"column":17}' \
    "$tmp/js.axe" --json
expect_json_err 1 '{"pass":false,"error":"UNSUPPORTED","message":"no schedule for copy (forced): split does not apply (reasons below)","line":13,"column":9,"notes":["copy.vector: applies, but is not the forced schedule","copy.dma: not a core kernel (the engines run a core kernel'"'"'s copies)","copy.thread_loop: applies, but is not the forced schedule","copy.split: '"'C_local'"' is distributed: its layout binds elements to threads","copy.smem: the source '"'C'"' is not a distributed register: no staging is needed"]}' \
    "$K/fig5_copy.axe" --json --schedule 'copy#0=split'
expect_json_err 2 '{"pass":false,"error":"USAGE","message":"--seed wants a non-negative integer","line":null,"column":null}' \
    "$K/fig5_copy.axe" --seed -1 --json
expect_json_err 2 '{"pass":false,"error":"USAGE","message":"-D M is given twice (M=1 and M=2)","line":null,"column":null}' \
    "$K/fig5_copy.axe" --json -D M=1 -D M=2
expect_json_err 1 '{"pass":false,"error":"IO","message":"cannot open '"$tmp"'/missing.axe: No such file or directory","line":null,"column":null}' \
    "$tmp/missing.axe" --json
CC=false expect_json_err 1 '{"pass":false,"error":"RUN","message":"the C compiler failed on the generated code","line":null,"column":null,"kernel":"fig5_copy"}' \
    "$K/fig5_copy.axe" --json --check
expect_json_err 1 '{"pass":false,"error":"INVALID","message":"runtime scalar '"'M'"' has no value: give it with --arg M=VALUE","line":null,"column":null,"kernel":"tail_rows"}' \
    "$K/tail_rows.axe" --json
# Without --json the same failures print nothing on stdout.
if "$AXE" run "$tmp/jm.axe" >"$tmp/out" 2>"$tmp/err"; [ ! -s "$tmp/out" ] &&
    grep -q "a loop variable cannot be named 'M'" "$tmp/err"; then
    ok
else
    bad "run without --json printed on stdout: $(head -c 300 "$tmp/out")"
fi
# --explain -o OUT writes OUT, not stdout; a write error (/dev/full, a
# missing directory) is exit 1 with the reason, with or without --explain.
if "$AXE" compile "$K/fig5_copy.axe" --explain -o "$tmp/explain.txt" >"$tmp/out" &&
    [ ! -s "$tmp/out" ] && head -1 "$tmp/explain.txt" | grep -q '^op 0 (line 13): cta copy'; then
    ok
else
    bad "compile --explain -o: $(head -c 300 "$tmp/out" "$tmp/explain.txt")"
fi
if [ -w /dev/full ]; then
    expect_fail 1 'compile: cannot write /dev/full: No space left on device' \
        "$AXE" compile "$K/fig5_copy.axe" --explain -o /dev/full
    expect_fail 1 'compile: cannot write /dev/full: No space left on device' \
        "$AXE" compile "$K/fig5_copy.axe" -o /dev/full
fi
expect_fail 1 "compile: cannot write $tmp/no/such/dir: No such file or directory" \
    "$AXE" compile "$K/fig5_copy.axe" --explain -o "$tmp/no/such/dir"
# A gemm that falls back to scalar FMA because K is no multiple of the
# tensor-core atom's K says so in a note (compile and run: stderr; explain:
# under the operator), not when the schedule is forced or K divides.
note="note: gemm fell back to scalar FMA (gemm.thread_fma): K = 20 is not a multiple of the K = 8 of the tensor-core atom mma.sync.aligned.m16n8k8.f32.f16.f16.f32"
for cmd in compile run; do
    if (cd "$SRC/tests/kernels" && "$AXE" $cmd gemm_k20.axe >"$tmp/out" 2>"$tmp/err") &&
        [ "$(cat "$tmp/err")" = "axe: gemm_k20.axe:24:13: $note" ]; then
        ok
    else
        bad "$cmd gemm_k20.axe: no note: $(head -c 400 "$tmp/err")"
    fi
done
"$AXE" compile "$SRC/tests/kernels/gemm_k20.axe" --explain >"$tmp/k24" 2>"$tmp/err"
if grep -qxF "  $note" "$tmp/k24"; then
    ok
else
    bad "explain gemm_k20.axe: no note: $(head -c 400 "$tmp/k24" "$tmp/err")"
fi
for args in "$SRC/tests/kernels/gemm_k20.axe --schedule gemm=thread_fma" \
    "$SRC/tests/kernels/gemm_k24.axe" "$K/gemm_mma.axe" "$K/gemm.axe"; do
    # shellcheck disable=SC2086
    if "$AXE" compile $args >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/err" ]; then
        ok
    else
        bad "compile $args: a note where none is due: $(head -c 300 "$tmp/err")"
    fi
done
# --explain shows the atom's fragments with their 2-D shape: the rows' and
# the columns' iters (the flattened layout alone hides which is which).
for want in \
    "    atom for these dtypes: mma.sync.aligned.m16n8k16.f32.f16.f16.f32, (M, N, K) = (16, 8, 16); fragments over laneid and m:" \
    "      A [16, 16]: S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)], rows (2,8):(2,4@laneid), columns (2,4,2):(4,1@laneid,1)" \
    "      B [8, 16]: S[(8,2,4,2):(4@laneid,2,1@laneid,1)], rows 8:4@laneid, columns (2,4,2):(2,1@laneid,1)" \
    "      C [16, 8]: S[(2,32,2):(2,1@laneid,1)], rows (2,8):(2,4@laneid), columns (4,2):(1@laneid,1)"; do
    if grep -qxF -- "$want" "$tmp/k24"; then
        ok
    else
        bad "explain gemm_k20.axe: no line '$want'"
    fi
done
expect_explain warp_mma.axe '^      A \[16, 8\]: S\[\(2,8,2,4\):\(1,4@laneid,2,1@laneid\)\], rows \(2,8\):\(1,4@laneid\), columns \(2,4\):\(2,1@laneid\)$'
# --bench repeats a kernel too fast for the timer (int_edge: a few
# nanoseconds) until the runs take 10 ms: the time per run and the rate
# are positive, and runs x seconds >= 0.01 (up to the printed rounding).
if "$AXE" run "$SRC/tests/kernels/int_edge.axe" --bench >"$tmp/out" 2>&1 &&
    tail -1 "$tmp/out" | awk '{ n = substr($5, 2) + 0 }
        $2 == "s" && $3 == "per" && $4 == "run" && $5 ~ /^\([0-9]+$/ &&
        $6 == "runs)," && $1 > 0 && $1 * n >= 0.0099 && $7 > 0 &&
        $8 == "flops/s" { ok = 1 } END { exit !ok }'; then
    ok
else
    bad "run int_edge.axe --bench: $(tail -1 "$tmp/out")"
fi
# A timer that always reads 0 (the harness's clock() edited away): the
# runs stop at 2^22 and no time or rate is printed (text), null (--json).
clock_zero='s/clock()/((clock_t)0)/g'
if AXE_TEST_EDIT=$clock_zero AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
    "$AXE" run "$SRC/tests/kernels/int_edge.axe" --bench >"$tmp/out" 2>&1 &&
    [ "$(tail -1 "$tmp/out")" = "4194304 runs took no measurable time (timer resolution): no time per run or rate" ]; then
    ok
else
    bad "run --bench with a zero timer: $(tail -2 "$tmp/out")"
fi
if AXE_TEST_EDIT=$clock_zero AXE_TEST_CC=$CC CC="sh $tmp/cc_edit.sh" \
    "$AXE" run "$SRC/tests/kernels/int_edge.axe" --bench --json >"$tmp/out" 2>&1 &&
    grep -q '"seconds":null,"flops_per_s":null}$' "$tmp/out"; then
    ok
else
    bad "run --bench --json with a zero timer: $(tail -c 300 "$tmp/out")"
fi
# The header says how user names map to C names (a reader of the C meets
# t_As for the tensor As).
if [ "$(sed -n 3p "$tmp/fig5_copy.c")" = " * User names carry a prefix: kernel k_NAME, tensors t_NAME, loop variables v_NAME. */" ]; then
    ok
else
    bad "fig5_copy.c line 3: $(sed -n 3p "$tmp/fig5_copy.c")"
fi
# Each operator's block in the C names its operator number and source
# line as --explain does ("op N (line L)"), stages and barriers included.
for f in "$K"/*.axe "$SRC"/tests/kernels/*.axe; do
    name=$(basename "$f" .axe)
    "$AXE" compile "$f" >"$tmp/lines.c" 2>/dev/null
    "$AXE" compile "$f" --explain 2>/dev/null | grep -oE '^op [0-9]+ \(line [0-9]+\)' |
        sort -u >"$tmp/explain_ops"
    grep -oE '/\* op [0-9]+ \(line [0-9]+\)' "$tmp/lines.c" | sed 's|^/\* ||' |
        sort -u >"$tmp/c_ops"
    if [ -s "$tmp/c_ops" ] && [ -z "$(comm -23 "$tmp/c_ops" "$tmp/explain_ops")" ] &&
        ! grep -qE '/\* op [0-9]+:' "$tmp/lines.c"; then
        ok
    else
        bad "$name: operator comments without or with other source lines than --explain: $(grep -E '/\* op [0-9]+' "$tmp/lines.c" | head -3)"
    fi
done
# -o writes the same C as stdout.
if (cd "$K" && "$AXE" compile fig5_copy.axe -o "$tmp/o.c") &&
    cmp -s "$tmp/o.c" "$tmp/fig5_copy.c"; then
    ok
else
    bad "compile -o differs from stdout"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
