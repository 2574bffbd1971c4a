#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Layout synthesis (issue 15, docs/compiler.md "Layout synthesis"): the
# `auto` twins of the examples pass `axe run --check --json` (C target,
# and the CUDA emulation for the small ones) at two sizes; their
# synthesized layouts (`axe synth --json`) are equivalent, by the
# library's `axe equal --equivalent`, to the layouts written by hand in
# the hand-written examples (copied here with the params substituted), and
# their generated C equals the hand-written example's with the kernel
# renamed; rearrange(dst, src) runs through copy.smem and the race
# detector reports no race; a copy between two register layouts that
# disagree is reported as a rearrange, and one is inserted before an
# elementwise operator whose synthesized operands disagree; `layout auto`
# errors name the tensor. The last line is "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"
kernel_counts
K="$SRC/examples/kernels"
T="$SRC/tests/kernels"

# run_json FILE ARGS...: axe run --check --json passes without races.
run_json() {
    local f=$1
    shift
    if "$AXE" run "$f" --check --json "$@" >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"pass":true' "$tmp/out" && grep -q '"races":\[\]' "$tmp/out"; then
        ok
    else
        bad "axe run $(basename "$f") --check --json $* ($(head -c 400 "$tmp/out" "$tmp/err"))"
    fi
}

# synth_json FILE ARGS...: the JSON of axe synth into $tmp/synth.json.
synth_json() {
    local f=$1
    shift
    "$AXE" synth "$f" --json "$@" >"$tmp/synth.json" 2>"$tmp/err" || {
        bad "axe synth $(basename "$f") $* failed: $(head -c 300 "$tmp/err")"
        return 1
    }
}

# layout_of NAME: the synthesized layout of tensor NAME in synth.json.
layout_of() {
    sed -n 's/.*"tensors": {\([^}]*\)}.*/\1/p' "$tmp/synth.json" |
        tr ',' '\n' | sed -n "s/^ *\"$1\": \"\(.*\)\"\$/\1/p"
}

# same FILE NAME LAYOUT ARGS...: tensor NAME of FILE (axe synth, ARGS) is
# equivalent to the hand-written LAYOUT.
same() {
    local f=$1 name=$2 want=$3 got
    shift 3
    synth_json "$f" "$@" || return
    # the layout text holds commas: cut the tensors object by quotes
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tensors"][sys.argv[2]])' \
        "$tmp/synth.json" "$name" 2>/dev/null || layout_of "$name")
    if [ -n "$got" ] && [ "$("$AXE" equal --equivalent "$got" "$want")" = true ]; then
        ok
    else
        bad "$(basename "$f") $*: '$name' is '$got', not equivalent to $want"
    fi
}

# same_c AUTO HAND ARGS...: both compile (exit 0) and the generated C of
# AUTO is HAND's with the kernel renamed (so the synthesized layouts
# address every element as the hand-written ones do).
same_c() {
    local a=$1 h=$2 ra rh
    shift 2
    (cd "$K" && "$AXE" compile "$a.axe" "$@") >"$tmp/a.raw" 2>&1
    ra=$?
    (cd "$K" && "$AXE" compile "$h.axe" "$@") >"$tmp/h.raw" 2>&1
    rh=$?
    sed -E "s/$a/$h/g; s/line [0-9]+/line L/g" "$tmp/a.raw" >"$tmp/a.c"
    sed -E "s/line [0-9]+/line L/g" "$tmp/h.raw" >"$tmp/h.c"
    if [ "$ra" != 0 ] || [ "$rh" != 0 ]; then
        bad "axe compile $a.axe (exit $ra) / $h.axe (exit $rh) $*: $(head -c 300 "$tmp/a.raw" "$tmp/h.raw")"
    elif [ -s "$tmp/a.c" ] && diff "$tmp/a.c" "$tmp/h.c" >"$tmp/diff"; then
        ok
    else
        bad "C of $a differs from $h's: $(head -c 500 "$tmp/diff")"
    fi
}

# --- the auto twins run and check, C and the CUDA emulation ---------------
run_json "$K/gemm_mma_auto.axe"
run_json "$K/gemm_mma_auto.axe" -D M=384 -D N=256 -D K=96 --seed 6
run_json "$K/gemm_auto.axe"
run_json "$K/gemm_auto.axe" -D M=384 -D N=256 -D K=96 --seed 6
run_json "$K/gemm_pipelined_auto.axe" -D STAGES=3 -D M=128 -D N=256 -D K=160 --seed 7
run_json "$K/gemm_pipelined_auto.axe" --target cuda --emulate
run_json "$K/gemm_pipelined_auto.axe" --target cuda --emulate \
    -D STAGES=3 -D M=128 -D N=256 -D K=160 --seed 7
kernel_exact_run "$K/gemm_pipelined_auto.axe"
run_json "$K/gemm_splitk_auto.axe" -D M=192 -D N=128 -D K=384 -D KSPLIT=3 --seed 7
run_json "$K/gemm_splitk_auto.axe" --target cuda --emulate
kernel_exact_run "$K/gemm_splitk_auto.axe"
kernel_exact_run "$K/gemm_splitk_auto.axe" --target cuda --emulate \
    -D M=192 -D N=128 -D K=384 -D KSPLIT=3 --seed 7
run_json "$K/warp_mma_auto.axe"
run_json "$K/warp_mma_auto.axe" -D MT=1 -D NT=3 -D KT=5 --seed 12
run_json "$K/softmax_auto.axe"
run_json "$K/softmax_auto.axe" -D ROWS=12 -D C=160 --seed 9
run_json "$K/softmax_auto.axe" -D C=80 --seed 3 # replicas: 16 lanes x 5
run_json "$K/softmax_f16_auto.axe"
run_json "$K/softmax_f16_auto.axe" -D ROWS=12 -D C=160 --seed 9
run_json "$K/softmax_f16_auto.axe" --target cuda --emulate --arch sm_90
run_json "$K/rmsnorm_auto.axe"
run_json "$K/rmsnorm_auto.axe" -D ROWS=192 -D C=37 --seed 4
for f in softmax_auto warp_mma_auto rmsnorm_auto; do
    run_json "$K/$f.axe" --target cuda --emulate
done
run_json "$T/rearrange.axe"
run_json "$T/rearrange.axe" --target cuda --emulate
# the attention twins (issue 15 item 3) and the anchor search's kernel
AS="--arg scale=0.17 --arg L=50"
# shellcheck disable=SC2086
{
run_json "$K/attention_scale_auto.axe" $AS
run_json "$K/attention_scale_auto.axe" -D N=32 -D D=16 -D BM=16 --seed 5 --arg scale=0.3 --arg L=20
run_json "$K/attention_scale_auto.axe" --target cuda --emulate $AS
}
run_json "$K/flash_attention_auto.axe"
run_json "$K/flash_attention_auto.axe" -D SEQ=96 -D D=32 -D BM=32 -D BN=32 -D STAGES=3 --seed 32
run_json "$K/flash_attention_auto.axe" --target cuda --emulate
run_json "$K/flash_attention_causal_auto.axe"
run_json "$K/flash_attention_causal_auto.axe" -D SEQ=100 -D D=32 -D BM=32 -D BN=32 --seed 36
run_json "$K/flash_attention_causal_auto.axe" --target cuda --emulate
run_json "$K/attention_causal_auto.axe"
run_json "$K/attention_causal_auto.axe" -D N=96 -D D=16 --seed 5
run_json "$K/attention_causal_auto.axe" --target cuda --emulate --arch sm_90
run_json "$T/attention_cta_auto.axe"
run_json "$T/attention_cta_auto.axe" --target cuda --emulate
run_json "$K/transpose_auto.axe"
run_json "$K/transpose_auto.axe" -D M=96 -D N=160 --seed 5
run_json "$K/transpose_auto.axe" --target cuda --emulate
run_json "$K/transpose_auto.axe" --target cuda --emulate -D M=96 -D N=32 --seed 8
for f in smem_ldmatrix_f16 smem_trans_bf16; do
    run_json "$T/$f.axe"
    run_json "$T/$f.axe" --target cuda --emulate --seed 4
done
# the f16, int8 and fp8 mma twins: each size and target once
run_json "$K/warp_mma_f16_auto.axe"
run_json "$K/warp_mma_f16_auto.axe" --target cuda --emulate --arch sm_90 \
    -D MT=1 -D NT=3 -D KT=5 --seed 12
for f in gemm_i8_auto gemm_fp8_auto; do
    run_json "$K/$f.axe"
    run_json "$K/$f.axe" --target cuda --emulate --arch sm_90 -D M=384 -D N=256 -D K=96 --seed 6
done

# --- equal to the hand-written layouts ------------------------------------
same "$K/gemm_mma_auto.axe" acc \
    "S[(2, 4, 2, 8, 4, 4, 4, 2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
same "$K/gemm_auto.axe" acc "S[(16, 8, 16, 8):(16@tx, 8, 1@tx, 1)]"
same "$K/gemm_pipelined_auto.axe" acc \
    "S[(2, 4, 2, 8, 4, 4, 4, 2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
same "$K/gemm_splitk_auto.axe" acc "S[(16, 4, 16, 4):(16@tx, 4, 1@tx, 1)]"
same "$K/warp_mma_auto.axe" c "S[(2, 2, 8, 2, 4, 2):(8, 2, 4@laneid, 4, 1@laneid, 1)]"
same "$K/warp_mma_auto.axe" a "S[(2, 2, 8, 2, 2, 4):(8, 1, 4@laneid, 4, 2, 1@laneid)]"
same "$K/warp_mma_auto.axe" b "S[(2, 8, 2, 2, 4):(4, 4@laneid, 2, 1, 1@laneid)]"
same "$K/warp_mma_auto.axe" a "S[(1, 2, 8, 5, 2, 4):(20, 1, 4@laneid, 4, 2, 1@laneid)]" \
    -D MT=1 -D NT=3 -D KT=5
same "$K/warp_mma_auto.axe" c "S[(1, 2, 8, 3, 4, 2):(12, 2, 4@laneid, 4, 1@laneid, 1)]" \
    -D MT=1 -D NT=3 -D KT=5
same "$K/softmax_auto.axe" r "S[(1, 3, 32):(0, 1, 1@laneid)]"
same "$K/softmax_auto.axe" m "S[1:1] + R[32:1@laneid]"
same "$K/softmax_auto.axe" r "S[(1, 5, 32):(0, 1, 1@laneid)]" -D C=160
same "$K/softmax_f16_auto.axe" r "S[(1, 3, 32):(0, 1, 1@laneid)]"
same "$K/softmax_f16_auto.axe" m "S[1:1] + R[32:1@laneid]"
same "$K/softmax_f16_auto.axe" r "S[(1, 5, 32):(0, 1, 1@laneid)]" -D C=160
same "$K/rmsnorm_auto.axe" x "S[(1, 80):(80, 1)]"
same "$K/rmsnorm_auto.axe" s "S[1:1]"
same "$T/rearrange.axe" a "S[(4, 8, 16, 4):(4, 16@tx, 1@tx, 1)]"
# attention_scale_auto: one row per thread (N 64, D 32, BM 32)
same "$K/attention_scale_auto.axe" s "S[(32, 64):(1@tx, 1)]"
same "$K/attention_scale_auto.axe" col "S[(32, 64):(1@tx, 1)]"
same "$K/attention_scale_auto.axe" mask "S[(32, 64):(1@tx, 1)]"
same "$K/attention_scale_auto.axe" t "S[32:1@tx]"
same "$K/attention_scale_auto.axe" o "S[(32, 32):(1@tx, 1)]"
same "$K/attention_scale_auto.axe" s "S[(16, 32):(1@tx, 1)]" -D N=32 -D D=16 -D BM=16
# attention_causal_auto: the same, with the mask's col and the query index row
for n in s col mask; do same "$K/attention_causal_auto.axe" "$n" "S[(32, 64):(1@tx, 1)]"; done
for n in row t; do same "$K/attention_causal_auto.axe" "$n" "S[32:1@tx]"; done
same "$K/attention_causal_auto.axe" o "S[(32, 32):(1@tx, 1)]"
same "$K/attention_causal_auto.axe" o "S[(16, 24):(1@tx, 1)]" -D N=80 -D D=24 -D BM=16
# flash_attention_auto: the C fragment of m16n8k16 (PTX ISA: lane 4g + q
# holds rows g, g + 8 and columns 2q, 2q + 1 of each 8-column block)
FRAG="S[(2, 8, 8, 4, 2):(2, 4@laneid, 4, 1@laneid, 1)]"
ROW="S[(2, 8):(1, 4@laneid)] + R[4:1@laneid]"
for n in s p o oh; do same "$K/flash_attention_auto.axe" "$n" "$FRAG"; done
for n in m mn l t c; do same "$K/flash_attention_auto.axe" "$n" "$ROW"; done
same "$K/flash_attention_auto.axe" o "S[(2, 8, 16, 4, 2):(2, 4@laneid, 4, 1@laneid, 1)]" -D D=128
# flash_attention_causal_auto: the same, with the mask's col and keep
# (the fragment) and the query index row and -inf operand (a row)
for n in s col keep p o oh; do same "$K/flash_attention_causal_auto.axe" "$n" "$FRAG"; done
for n in row m mn l t c ninf; do same "$K/flash_attention_causal_auto.axe" "$n" "$ROW"; done
# attention_cta_auto: 4 warps along M for both gemms; P is the A
# fragment tiling (rows g, g + 8; columns 2q, 2q + 1, 2q + 8, 2q + 9 of
# each 16-column K tile, 8 registers per tile) over the 4 warps
same "$T/attention_cta_auto.axe" p "S[(4, 2, 8, 4, 2, 4, 2):(1@warpid, 2, 4@laneid, 8, 4, 1@laneid, 1)]"
same "$T/attention_cta_auto.axe" o "S[(4, 2, 8, 4, 4, 2):(1@warpid, 2, 4@laneid, 4, 1@laneid, 1)]"
same_c attention_scale_auto attention_scale
same_c attention_causal_auto attention_causal
same_c flash_attention_auto flash_attention
same_c flash_attention_causal_auto flash_attention_causal
same_c flash_attention_causal_auto flash_attention_causal -D SEQ=100 -D BM=32 -D BN=32
# and the same CUDA (the line numbers the accesses carry aside): the auto
# twin issues exactly the hand-written kernel's instructions
cuda_of() {
    (cd "$K" && "$AXE" compile "$1.axe" --target cuda) 2>&1 |
        sed -E "s/$1/NAME/g; s/line [0-9]+/line L/g; s/(L|\)), [0-9]+\)/\1, L)/g"
}
if cuda_of flash_attention_causal_auto >"$tmp/a.cu" &&
    cuda_of flash_attention_causal >"$tmp/h.cu" && [ -s "$tmp/a.cu" ] &&
    grep -q 'mma' "$tmp/h.cu" && diff "$tmp/a.cu" "$tmp/h.cu" >"$tmp/diff"; then
    ok
else
    bad "CUDA of flash_attention_causal_auto differs: $(head -c 500 "$tmp/diff")"
fi
# the shared tiles: gemm_swizzle.axe's, and the same C as that kernel
same "$K/gemm_mma_auto.axe" As "Swizzle<3, 2, 3>(S[(128, 32):(32, 1)])"
same "$K/gemm_mma_auto.axe" Bs "Swizzle<3, 2, 3>(S[(128, 32):(32, 1)])" \
    -D M=384 -D N=256 -D K=96
same "$K/transpose_auto.axe" T "Swizzle<0, 5, 5>(S[(32, 32):(32, 1)])"
same "$T/smem_ldmatrix_f16.axe" As "Swizzle<3, 3, 3>(S[(64, 64):(64, 1)])"
same "$T/smem_ldmatrix_f16.axe" Bs "Swizzle<3, 3, 3>(S[(64, 64):(64, 1)])"
same "$T/smem_trans_bf16.axe" T "Swizzle<3, 3, 3>(S[(64, 64):(64, 1)])"
# The anchor over several atoms: with K = 24 only m16n8k8 applies. The
# auto twin of tests/kernels/gemm_reg_a_k24.axe (A and C on 4 x 1 warps)
# now weighs warp grids with A replicated over C's column warps and
# takes 2 x 2 (model cost (MI + NI) KI = 12 against 15): A the m16n8k8
# A fragment over 2 row warps + R[2:1@warpid], C its C tiling.
cat >"$tmp/rk24.axe" <<'EOF'
param N = 32;
param K = 24;
kernel gemm_reg_a_k24(A: f16[64, K], B: f16[N, K], C: f32[64, N])
    grid(1) threads(128)
{
    shared Bs: f16[N, K];
    register a: f16[64, K] layout auto;
    register c: f32[64, N] layout auto;
    cta copy(Bs, B);
    cta copy(a, A);
    cta fill(c, 0);
    sync;
    cta gemm(c, a, Bs);
    cta copy(C, c);
}
EOF
same "$tmp/rk24.axe" a "S[(2, 2, 2, 8, 3, 4, 2):(2@warpid, 12, 2, 4@laneid, 4, 1@laneid, 1)] + R[2:1@warpid]"
same "$tmp/rk24.axe" c "S[(2, 2, 2, 8, 2, 2, 4, 2):(2@warpid, 8, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
if grep -qF '"gemm#3": {"chosen": "mma atom m16n8k8 tiles of C, warps 2 x 2, 2 x 2 atom tiles per warp", "cost": 12, "runner_up": "mma atom m16n8k8 tiles of C, warps 4 x 1, 1 x 4 atom tiles per warp"}' "$tmp/synth.json"; then
    ok
else
    bad "gemm_reg_a_k24 auto: $(cat "$tmp/synth.json")"
fi
# Counted in the emitted CUDA against the hand-written 4 x 1 kernel: B's
# ldmatrix.x1 per warp (unrolled call sites) 12 -> 6, A's register
# elements per thread 12 -> 24 (32-bit words 6 -> 12; its copy's loads
# double): memory instructions per thread 6 + 12 = 18 either way; the
# model prefers the fewer fragments per warp (A 6 + B 6 against A 3 + B
# 12).
"$AXE" compile "$tmp/rk24.axe" --target cuda >"$tmp/rk24.cu" 2>&1
"$AXE" compile "$T/gemm_reg_a_k24.axe" --target cuda >"$tmp/k24.cu" 2>&1
if [ "$(grep -c 'axe_ptx_ldmatrix_x1(ax_b' "$tmp/rk24.cu")" = 6 ] &&
    [ "$(grep -c 'axe_ptx_ldmatrix_x1(ax_b' "$tmp/k24.cu")" = 12 ] &&
    grep -qF 'uint32_t t_a[12] = {0}; /* two per 32-bit word */' "$tmp/rk24.cu" &&
    grep -qF 'uint32_t t_a[6] = {0}; /* two per 32-bit word */' "$tmp/k24.cu"; then
    ok
else
    bad "gemm_reg_a_k24 auto vs hand: ldmatrix $(grep -c 'axe_ptx_ldmatrix_x1(ax_b' "$tmp/rk24.cu") / $(grep -c 'axe_ptx_ldmatrix_x1(ax_b' "$tmp/k24.cu")"
fi
# A register B over 2 x 4 warps (gemm.mma_reg_b): likewise, B replicated
# over the 2 row warps.
same "$T/gemm_reg_b_wn_auto.axe" b "S[(4, 2, 8, 2, 2, 4, 2):(1@warpid, 8, 4@laneid, 4, 2, 1@laneid, 1)] + R[2:4@warpid]"
same "$T/gemm_reg_b_wn_auto.axe" c "S[(2, 2, 2, 8, 4, 2, 4, 2):(4@warpid, 8, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
if K=$T cuda_of gemm_reg_b_wn_auto >"$tmp/a.cu" &&
    K=$T cuda_of gemm_reg_b_wn >"$tmp/h.cu" && grep -q 'B from registers' "$tmp/h.cu" &&
    diff "$tmp/a.cu" "$tmp/h.cu" >"$tmp/diff"; then
    ok
else
    bad "CUDA of gemm_reg_b_wn_auto differs: $(head -c 500 "$tmp/diff")"
fi
# A register A over 2 x 4 warps: the auto twin equals the hand-written
# tests/kernels/gemm_reg_a_wn.axe (A replicated over the 4 column warps).
same "$T/gemm_reg_a_wn_auto.axe" a "S[(2, 2, 2, 8, 2, 2, 4, 2):(4@warpid, 16, 2, 4@laneid, 8, 4, 1@laneid, 1)] + R[4:1@warpid]"
same "$T/gemm_reg_a_wn_auto.axe" c "S[(2, 2, 2, 8, 4, 2, 4, 2):(4@warpid, 8, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
if grep -qF '"gemm#3": {"chosen": "mma atom m16n8k16 tiles of C, warps 2 x 4, 2 x 2 atom tiles per warp", "cost": 8, "runner_up": "mma atom m16n8k16 tiles of C, warps 4 x 2, 1 x 4 atom tiles per warp"}' "$tmp/synth.json"; then
    ok
else
    bad "gemm_reg_a_wn_auto: $(cat "$tmp/synth.json")"
fi
if K=$T cuda_of gemm_reg_a_wn_auto >"$tmp/a.cu" &&
    K=$T cuda_of gemm_reg_a_wn >"$tmp/h.cu" && grep -q 'mma' "$tmp/h.cu" &&
    diff "$tmp/a.cu" "$tmp/h.cu" >"$tmp/diff"; then
    ok
else
    bad "CUDA of gemm_reg_a_wn_auto differs: $(head -c 500 "$tmp/diff")"
fi
(cd "$K" && "$AXE" compile gemm_mma_auto.axe) 2>&1 |
    sed -E "s/gemm_mma_auto/gemm_swizzle/g; s/line [0-9]+/line L/g" >"$tmp/a.c"
(cd "$T" && "$AXE" compile gemm_swizzle.axe) 2>&1 |
    sed -E "s/line [0-9]+/line L/g" >"$tmp/h.c"
if [ -s "$tmp/a.c" ] && diff "$tmp/a.c" "$tmp/h.c" >"$tmp/diff"; then
    ok
else
    bad "C of gemm_mma_auto differs from gemm_swizzle's: $(head -c 500 "$tmp/diff")"
fi
same_c gemm_auto gemm
same_c warp_mma_auto warp_mma
same_c softmax_auto softmax
same_c softmax_f16_auto softmax_f16
same_c rmsnorm_auto rmsnorm
# warp_mma_f16_auto: the m16n8k16 (f16) fragments' tiles, the same C
same "$K/warp_mma_f16_auto.axe" a "S[(2, 2, 8, 2, 2, 4, 2):(16, 2, 4@laneid, 8, 4, 1@laneid, 1)]"
same "$K/warp_mma_f16_auto.axe" b "S[(2, 8, 2, 2, 4, 2):(8, 4@laneid, 4, 2, 1@laneid, 1)]"
same "$K/warp_mma_f16_auto.axe" c "S[(2, 2, 8, 2, 4, 2):(8, 2, 4@laneid, 4, 1@laneid, 1)]"
same "$K/warp_mma_f16_auto.axe" a "S[(1, 2, 8, 5, 2, 4, 2):(40, 2, 4@laneid, 8, 4, 1@laneid, 1)]" \
    -D MT=1 -D NT=3 -D KT=5
same_c warp_mma_f16_auto warp_mma_f16
# gemm_i8_auto and gemm_fp8_auto: acc is the hand-written m16n8k32 C
# tiling; As and Bs are compact 32-byte rows with Swizzle<4,1,3> where
# the hand-written tiles pad rows to 48 bytes: by the bank model the
# copies into them are 1 way (hand-written 2) and the gemm's reads 1 (as
# hand-written). The hand-written kernel is synthesized with acc auto
# only, so that axe synth reports its accesses on its written tiles.
twin_ways() {
    local n=$1 want=$2 res
    sed -E '/register acc: /{:a;/;/!{N;ba};s/\n//g;s/layout S\[.*\];/layout auto;/}' \
        "$K/$n.axe" >"$tmp/hand.axe"
    "$AXE" synth "$K/${n}_auto.axe" --json >"$tmp/twin.json" 2>&1
    "$AXE" synth "$tmp/hand.axe" --json >"$tmp/hand.json" 2>&1
    res=$(kernel_ways_compare "$tmp/twin.json" "$tmp/hand.json" As Bs)
    [ "$res" = "$want" ] &&
        ok || bad "${n}_auto vs $n (op:tensor:hand:twin ways): $res"
}
for n in gemm_i8 gemm_fp8; do
    same "$K/${n}_auto.axe" acc \
        "S[(2, 4, 2, 8, 4, 4, 4, 2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"
    twin_ways "$n" "As=Swizzle<4,1,3>(S[(128,32):(32,1)]) Bs=Swizzle<4,1,3>(S[(128,32):(32,1)]) | copy#1:As:2:1 copy#2:Bs:2:1 gemm#3:As:1:1 gemm#3:Bs:1:1 | 4 4 acc"
done
# gemm_pipelined_auto: the stage tiles are auto (addressed as row blocks,
# regions), Swizzle<3,2,3> over 32-half rows where gemm_pipelined.axe
# pads rows to 40 through views: the copies 1 way (padded: 2), the gemm's
# ldmatrix 1 (padded: 1); per thread the same cp.async, ldmatrix and mma,
# fewer stores (the zeroing), fewer tile elements; and the loop is still
# pipelined: the swizzle changes bits below 5 and a stage is 4096
# elements. A swizzle that changes bits across stages still pipelines
# when every access goes through it (a bijection keeps the stages
# disjoint), and the copy stays out of the pipeline when one does not.
twin_ways gemm_pipelined "As=Swizzle<3,2,3>(S[(256,32):(32,1)]) Bs=Swizzle<3,2,3>(S[(256,32):(32,1)]) | copy#1:As:2:1 copy#2:Bs:2:1 gemm#3:As:1:1 gemm#3:Bs:1:1 | 4 4 acc"
got=
for n in gemm_pipelined gemm_pipelined_auto; do
    "$AXE" compile "$K/$n.axe" --target cuda -o "$tmp/$n.cu" 2>&1
    got="$got/ $(kernel_count "$tmp/$n.cu" '__global__' 'axe_ptx_cp_async_c[ag]\d+\(' \
        'axe_ptx_ldmatrix_x\d\(ax_' 'axe_ptx_mma\w*\(' 'AXE_STV?\(' \
        'axe_ptx_cp_async_wait<1>\(') $(sed -n \
        's/.*__shared__ .* t_[AB]s\[\([0-9]*\)\];/\1/p' "$tmp/$n.cu" | paste -sd+) "
done
[ "$got" = "/ 20 64 128 112 4 10232+10232 / 20 64 128 96 4 8192+8192 " ] &&
    ok || bad "gemm_pipelined / gemm_pipelined_auto (cp.async, ldmatrix, mma, stores, wait_group 1, tile elements): $got"
sed 's/layout auto;/layout Swizzle<3,1,9,outer>(S[(STAGES * 128, 32):(32, 1)]);/; s/register acc: f32\[128, 128\] layout Swizzle.*/register acc: f32[128, 128] layout auto;/' \
    "$K/gemm_pipelined_auto.axe" >"$tmp/plx.axe"
sed 's/        cta gemm(acc, As\[k % STAGES \* 128 : +128, 0:32\],/        cta gemm(acc, As.view(S[(128, 32):(32, 1)] + k % STAGES * 4096),/' \
    "$tmp/plx.axe" >"$tmp/ply.axe"
# (plx: all through Swizzle<3,1,9,outer>, which changes bit 12 of
# 4096-element stages: As in the pipeline; ply: the gemm reads As through
# an unswizzled view, so the copy into As keeps its own group and its
# wait_group 0, which also waits for Bs's prefetched tile: Bs's copy is
# issued as a pipeline but nothing overlaps; --explain says As's copy is
# not in the pipeline)
got=
for f in plx ply; do
    "$AXE" compile "$tmp/$f.axe" --target cuda -o "$tmp/$f.cu" 2>&1
    got="$got $f:$(grep -c 'axe_ptx_cp_async_wait<1>' "$tmp/$f.cu"):$(grep -c 'op 1: its cp.async group' "$tmp/$f.cu")"
done
[ "$got" = " plx:1:0 ply:1:1" ] && ok || bad "pipelines of plx, ply (wait_group 1, op 1's own group): $got"
"$AXE" compile "$tmp/ply.axe" --target cuda --explain >"$tmp/ply.txt" 2>&1
grep -qF "pipeline over k: 2 stages; this copy into 'As' is not in the pipeline (op 1 addresses 'As' through Swizzle<3,1,9,outer>, which changes address bits up to bit 12" "$tmp/ply.txt" &&
    ! grep -qF "copy into 'As' at k % 2" "$tmp/ply.txt" && ok ||
    bad "ply --explain: As's copy not in the pipeline: $(grep -F 'pipeline over' "$tmp/ply.txt")"
kernel_check_run "$tmp/plx.axe" --target cuda --emulate
# gemm_splitk_auto: As and Bs compact 32-float rows, swizzled, where
# gemm_splitk.axe pads rows to 33 floats: by the bank model the gemm's
# reads of Bs 1 way (padded: 2), the other accesses 1 as padded; per
# thread, the CUDA's cp.async, shared loads, shared stores and atomics
# (hand / twin): fewer cp.async (As's are 16-byte), the same loads (the
# register-blocked gemm.thread_fma through the swizzles: 4 + 4 per k),
# fewer stores (the zeroing of fewer elements); the tiles' elements.
twin_ways gemm_splitk "As=Swizzle<2,1,5>(S[(64,32):(32,1)]) Bs=Swizzle<0,5,6>(S[(64,32):(32,1)]) | copy#1:As:1:1 copy#2:Bs:1:1 gemm#3:As:1:1 gemm#3:Bs:2:1 | 4 4 acc"
got=
for n in gemm_splitk gemm_splitk_auto; do
    "$AXE" compile "$K/$n.axe" --target cuda -o "$tmp/$n.cu" 2>&1
    got="$got/ $(kernel_count "$tmp/$n.cu" '__global__' 'axe_ptx_cp_async_c[ag]\d+\(' \
        'AXE_LD\(t_[AB]s\b' 'AXE_ST\(t_[AB]s\b' 'AXE_ATOMIC_\w+\(') $(sed -n \
        's/.*__shared__ .* t_[AB]s\[\([0-9]*\)\];/\1/p' "$tmp/$n.cu" | paste -sd+) "
done
[ "$got" = "/ 64 1024 18 16 2111+2111 / 40 1024 16 16 2048+2048 " ] &&
    ok || bad "gemm_splitk / gemm_splitk_auto (cp.async, shared loads, stores, atomics, tile elements): $got"

# --- the report -----------------------------------------------------------
synth_json "$K/gemm_mma_auto.axe" --target cuda &&
    if grep -qF '"instructions": {"gemm#3": {"chosen": "mma atom m16n8k16 tiles of C, warps 2 x 4, 4 x 4 atom tiles per warp", "cost": 16, "runner_up": "mma atom m16n8k16 tiles of C, warps 1 x 8, 8 x 2 atom tiles per warp"}, "gemm#3.A": {"chosen": "ldmatrix.x4", "cost": 40, "runner_up": "ld.shared.b32"}, "gemm#3.B": {"chosen": "ldmatrix.x2", "cost": 24, "runner_up": "ld.shared.b32"}, "gemm#3.shape": {"chosen": "m16n8k16", "cost": 96, "runner_up": "m16n8k8"}}' "$tmp/synth.json"; then
        ok
    else
        bad "gemm_mma_auto instructions: $(cat "$tmp/synth.json")"
    fi
# The anchor search (two gemm anchors chosen together): no rearrange, the
# runner-up of the first gemm with its count (both gemms on 2 x 2 warps,
# P replicated over the 2 column warps: a rearrange, as the cast gives P
# the first gemm's split columns).
synth_json "$T/attention_cta_auto.axe" &&
    if grep -qF '"gemm#5": {"chosen": "mma atom m16n8k16 tiles of C, warps 4 x 1, 1 x 8 atom tiles per warp; with the other anchors: 0 rearranges, 264 register bytes per thread", "cost": 18, "runner_up": "mma atom m16n8k16 tiles of C, warps 2 x 2, 2 x 4 atom tiles per warp; with the other anchors: 1 rearrange, 400 register bytes per thread"}' "$tmp/synth.json" &&
        grep -qF '"gemm#10": {"chosen": "mma atom m16n8k16 tiles of C, warps 4 x 1, 1 x 4 atom tiles per warp;' "$tmp/synth.json" &&
        grep -qF '"rearranges": []' "$tmp/synth.json"; then
        ok
    else
        bad "attention_cta_auto instructions: $(cat "$tmp/synth.json")"
    fi
synth_json "$K/attention_scale_auto.axe" &&
    if grep -qF '"gemm#0": {"chosen": "per-thread FMA blocks of C, threads 32 x 1, a 1 x 64 block per thread; with the other anchors: 0 rearranges, 708 register bytes per thread", "cost": 65, "runner_up": "per-thread FMA blocks of C, threads 4 x 8, a 8 x 8 block per thread; with the other anchors: 1 rearrange, 992 register bytes per thread"}' "$tmp/synth.json" &&
        grep -qF '"rearranges": []' "$tmp/synth.json"; then
        ok
    else
        bad "attention_scale_auto instructions: $(cat "$tmp/synth.json")"
    fi
# s pinned to 4 x 8 blocks: no grid of the second gemm takes it as its A
# (that needs all of a row's K in one thread), so a rearrange of s into
# the A layout of the chosen grid (one row per thread, the only one
# whose copy fits a thread's registers) is inserted, and it runs.
sed 's/register s: f32\[BM, N\] layout auto;/register s: f32[BM, N] layout S[(4, 8, 8, 8):(8@tx, 8, 1@tx, 1)];/' \
    "$K/attention_scale_auto.axe" >"$tmp/as_pin.axe"
synth_json "$tmp/as_pin.axe" &&
    if grep -qF '"rearranges": [{"op": "copy#12", "tensor": "s_r10", "smem_bytes": 8192}]' "$tmp/synth.json" &&
        grep -qF '"o": "S[(32,1,1,32):(1@tx,32,1@tx,1)]"' "$tmp/synth.json"; then
        ok
    else
        bad "attention_scale_auto with s pinned: $(cat "$tmp/synth.json")"
    fi
# shellcheck disable=SC2086
run_json "$tmp/as_pin.axe" $AS
synth_json "$T/rearrange.axe" &&
    if grep -qF '"rearranges": [{"op": "copy#1", "tensor": "b", "smem_bytes": 8192}]' "$tmp/synth.json"; then
        ok
    else
        bad "rearrange.axe rearranges: $(cat "$tmp/synth.json")"
    fi
synth_json "$K/softmax.axe" &&
    if [ "$(cat "$tmp/synth.json")" = '{"tensors": {}, "accesses": [], "instructions": {}, "rearranges": []}' ]; then
        ok
    else
        bad "softmax.axe (no auto tensor): $(cat "$tmp/synth.json")"
    fi
# Without auto tensors, the tensor-core gemm's own choices (operand loads
# and mma shape) are still listed, as text lines after the note; the
# operand loads on the CUDA target only, as a copy's ldmatrix load: the C
# backend issues neither (it reads the tiles element by element).
"$AXE" synth "$K/gemm_mma.axe" >"$tmp/synth.txt" 2>&1
if [ "$(cat "$tmp/synth.txt")" = "no 'layout auto' tensor: nothing to synthesize
instruction gemm#3.shape: m16n8k16 (cost 96)
  runner-up: m16n8k8 (cost 144)" ]; then
    ok
else
    bad "gemm_mma.axe synth text on the C target: $(cat "$tmp/synth.txt")"
fi
"$AXE" synth "$K/gemm_mma.axe" --target cuda >"$tmp/synth.txt" 2>&1
if [ "$(cat "$tmp/synth.txt")" = "no 'layout auto' tensor: nothing to synthesize
instruction gemm#3.A: ldmatrix.x4 (cost 40)
  runner-up: ld.shared.b32 (cost 64)
instruction gemm#3.B: ldmatrix.x2 (cost 24)
  runner-up: ld.shared.b32 (cost 32)
instruction gemm#3.shape: m16n8k16 (cost 96)
  runner-up: m16n8k8 (cost 144)" ]; then
    ok
else
    bad "gemm_mma.axe synth text on the CUDA target: $(cat "$tmp/synth.txt")"
fi
if command -v python3 >/dev/null 2>&1; then
    for f in "$K"/*_auto.axe "$T/rearrange.axe"; do
        "$AXE" synth "$f" --json >"$tmp/j" 2>&1 &&
            python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j" && ok ||
            bad "axe synth --json of $(basename "$f") is not JSON: $(head -c 300 "$tmp/j")"
    done
fi
# --explain names the anchor's choice and the rearrange
"$AXE" compile "$T/rearrange.axe" --explain >"$tmp/ex" 2>&1
if grep -q '^  synthesis anchor: coalesced, 16-byte accesses (4 elements) in runs of 4 on 128 consecutive tx, 4 per thread (cost 512); runner-up: ' "$tmp/ex" &&
    grep -q '^  rearrange(b, a): a copy between two register layouts' "$tmp/ex" &&
    grep -A1 '^op 1 ' "$tmp/ex" | grep -q 'chosen copy.smem'; then
    ok
else
    bad "explain of rearrange.axe: $(head -c 600 "$tmp/ex")"
fi

# --- the "accesses" records: ways before (row-major) and after (the
# synthesized layout), each expected count from `axe render --as banks`
# (the library's bank render, not the synthesis) on the access written
# by hand: ldmatrix's first phase (8 lanes, 16-byte rows 0..7 of one chunk
# column: the tile given in 16-byte chunks, the f16 Swizzle<M=3,B,S> in
# chunk units Sw<B,0,S>), the transpose's column of 32 f32 lanes ---
# ways LAYOUT ELEM_BYTES ACCESS: the ways render counts (1: no conflict).
ways() {
    local line
    line=$("$AXE" render "$1" --as banks --elem-bytes "$2" --access "$3" | grep 'conflict' | tail -1)
    case $line in
    *"no bank conflict"*) echo 1 ;;
    *-way*) echo "$line" | sed -E 's/.* ([0-9]+)-way.*/\1/' ;;
    *) echo "?" ;;
    esac
}
# record FILE OP TENSOR BEFORE AFTER: synth.json of FILE has that record.
record() {
    local want="{\"op\": \"$2\", \"tensor\": \"$3\", \"ways_before\": $4, \"ways_after\": $5}"
    if grep -qF "$want" "$tmp/synth.json"; then
        ok
    else
        bad "$(basename "$1"): no record $want in $(head -c 600 "$tmp/synth.json")"
    fi
}
synth_json "$K/gemm_mma_auto.axe" && {
    b=$(ways "(128,4):(4,1)" 16 8:1)
    a=$(ways "Sw<2,0,3> o 0 o (128,4):(4,1)" 16 8:1)
    [ "$b" = 4 ] && [ "$a" = 1 ] && ok || bad "render: ldmatrix on 64-byte rows $b -> $a"
    record gemm_mma_auto gemm#3 As "$b" "$a"
    record gemm_mma_auto gemm#3 Bs "$b" "$a"
    # the copies' 16-byte vectors: lanes 0..7 on chunks 0..3 of rows 0, 1
    b=$(ways "(128,4):(4,1)" 16 "(4,2):(128,1)")
    a=$(ways "Sw<2,0,3> o 0 o (128,4):(4,1)" 16 "(4,2):(128,1)")
    record gemm_mma_auto copy#1 As "$b" "$a"
    record gemm_mma_auto copy#2 Bs "$b" "$a"
}
for f in "$T/smem_ldmatrix_f16.axe" "$T/smem_trans_bf16.axe"; do
    synth_json "$f" || continue
    b=$(ways "(64,8):(8,1)" 16 8:1)
    a=$(ways "Sw<3,0,3> o 0 o (64,8):(8,1)" 16 8:1)
    [ "$b" = 8 ] && [ "$a" = 1 ] && ok || bad "render: ldmatrix on 128-byte rows $b -> $a"
    case $f in
    *ldmatrix_f16*) record "$f" gemm#3 As "$b" "$a" && record "$f" gemm#3 Bs "$b" "$a" ;;
    *) record "$f" copy#1 T "$b" "$a" ;;
    esac
    # the 16-byte row writes (the CTA copies from global): a phase of 8
    # lanes along one 128-byte row, 1 way before and after (issue §4's
    # classics: every access of the tile, not only the reads)
    b=$(ways "(64,8):(8,1)" 16 8:64)
    a=$(ways "Sw<3,0,3> o 0 o (64,8):(8,1)" 16 8:64)
    [ "$b" = 1 ] && [ "$a" = 1 ] && ok || bad "render: 16-byte row writes $b -> $a"
    case $f in
    *ldmatrix_f16*) record "$f" copy#1 As "$b" "$a" && record "$f" copy#2 Bs "$b" "$a" ;;
    *) record "$f" copy#0 T "$b" "$a" ;;
    esac
done
synth_json "$K/transpose_auto.axe" && {
    # copy#0: 32 lanes down a column of T; copy#1: 32 lanes along a row
    b=$(ways "(32,32):(32,1)" 4 32:1)
    a=$(ways "Sw<5,0,5> o 0 o (32,32):(32,1)" 4 32:1)
    [ "$b" = 32 ] && [ "$a" = 1 ] && ok || bad "render: f32 column $b -> $a"
    record transpose_auto copy#0 T "$b" "$a"
    record transpose_auto copy#1 T "$(ways "(32,32):(32,1)" 4 32:32)" \
        "$(ways "Sw<5,0,5> o 0 o (32,32):(32,1)" 4 32:32)"
}
# every CTA and every loop iteration (smem_walk_all.axe): CTA 1's column
# reads of T exist only at bx = 1, its rows only at i > 0; the brute
# force (tests/smem_ways.py, Python) counts each access of both CTAs and
# every i on the row-major tile and on the synthesized layout
run_json "$T/smem_walk_all.axe"
run_json "$T/smem_walk_all.axe" --target cuda --emulate
if command -v python3 >/dev/null 2>&1 && synth_json "$T/smem_walk_all.axe"; then
    counts=$(python3 - "$tmp/synth.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from smem_ways import parse_layout, ways
shape = (32, 32)
got = parse_layout(json.load(open(sys.argv[1]))["tensors"]["T"], shape)
rm = parse_layout("S[(32,32):(32,1)]", shape)
acc = {"copy#0": [[(i, t) for t in range(32)] for i in range(32)],
       "copy#1": [[(t, i) for t in range(32)] for i in range(32)],
       "copy#2": [[(i, t) for t in range(32)] for i in range(32)]}
print(" ".join("%s:%d:%d" % (op, max(ways(rm, a, 4) for a in l),
                             max(ways(got, a, 4) for a in l))
               for op, l in acc.items()))
PY
    )
    [ "$counts" = "copy#0:1:1 copy#1:32:1 copy#2:1:1" ] && ok ||
        bad "smem_walk_all brute-force ways: $counts"
    for c in $counts; do
        IFS=: read -r op b a <<<"$c"
        record smem_walk_all "$op" T "$b" "$a"
    done
fi

# a global operand's start moves no shared address: gemm_mma_auto at
# 8192 x 4096 x 4096 (64 x 32 CTAs, 128 K steps: beyond the walker's 4096
# values if A's by and k were walked) synthesizes the same tensors as at
# its default size
if synth_json "$K/gemm_mma_auto.axe"; then
    small=$(grep -o '"tensors": {[^}]*}' "$tmp/synth.json")
    if synth_json "$K/gemm_mma_auto.axe" -D M=8192 -D N=4096 -D K=4096; then
        big=$(grep -o '"tensors": {[^}]*}' "$tmp/synth.json")
        [ -n "$small" ] && [ "$small" = "$big" ] && ok ||
            bad "gemm_mma_auto 8192x4096x4096 tensors: $big (default: $small)"
    fi
fi

# a transposed V tile (smem_vt_auto.axe): filled along its first
# dimension, read by the gemm's ldmatrix; synthesis now takes dimension 0
# first, and the brute force counts every access on the synthesized
# layout and on the one synthesis chose before (row-major family,
# Swizzle<3,3,5>: 2 ways on the stores, 4 on the ldmatrix rows)
run_json "$T/smem_vt_auto.axe"
run_json "$T/smem_vt_auto.axe" -D BN=32 --seed 3
run_json "$T/smem_vt_auto.axe" --target cuda --emulate
if command -v python3 >/dev/null 2>&1 && synth_json "$T/smem_vt_auto.axe"; then
    counts=$(python3 - "$tmp/synth.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from smem_ways import parse_layout, ways
BN = D = 64
shape = (D, BN)

def contiguous(addr, c, step, n):
    return all(addr(tuple(x + e * s for x, s in zip(c, step))) == addr(c) + e
               for e in range(n))

def accesses(addr):
    """copy#1's stores, gemm#3's ldmatrix.x2 rows of B (Vt): (op, ways)"""
    out = []
    for w in range(4):
        for i in range(BN * D // 1024):
            lanes = [(tx % 8 * 8, i * 16 + tx // 8)
                     for tx in range(32 * w, 32 * w + 32)]
            if contiguous(addr, lanes[0], (1, 0), 8):
                out.append(("copy#1", ways(addr, lanes, 2, 8, (1, 0))))
            else:
                for e in range(8):
                    out.append(("copy#1", ways(
                        addr, [(d + e, k) for d, k in lanes], 2)))
    for nt in range(D // 8):
        for kt in range(BN // 16):
            rows = [(8 * nt + r, 16 * kt + 8 * j) for j in range(2)
                    for r in range(8)]
            trans = [(8 * nt, 16 * kt + 8 * j + r) for j in range(2)
                     for r in range(8)]
            if all(contiguous(addr, c, (0, 1), 8) for c in rows):
                out.append(("gemm#3", ways(addr, rows, 2, 8, (0, 1))))
            elif all(contiguous(addr, c, (1, 0), 8) for c in trans):
                out.append(("gemm#3", ways(addr, trans, 2, 8, (1, 0))))
            else:
                raise SystemExit("no ldmatrix form")
    return {op: max(v for o, v in out if o == op) for op in ("copy#1", "gemm#3")}

new = accesses(parse_layout(json.load(open(sys.argv[1]))["tensors"]["Vt"], shape))
old = accesses(parse_layout("Swizzle<3,3,5>(S[(64,64):(64,1)])", shape))
print("%d %d %d %d" % (old["copy#1"], old["gemm#3"], new["copy#1"], new["gemm#3"]))
PY
    )
    [ "$counts" = "2 4 1 1" ] && ok ||
        bad "smem_vt_auto brute-force ways (before: stores, ldmatrix; now: the same): $counts"
    grep -qF '"copy#1", "tensor": "Vt", "ways_before": 8, "ways_after": 1}' "$tmp/synth.json" &&
        grep -qF '"gemm#3", "tensor": "Vt", "ways_before": 1, "ways_after": 1}' "$tmp/synth.json" &&
        ok || bad "smem_vt_auto records: $(head -c 600 "$tmp/synth.json")"
fi
same "$T/smem_vt_auto.axe" Vt "Swizzle<3, 3, 3>(S[(64, 64):(1, 64)])"
same "$T/smem_vt_auto.axe" Vt "Swizzle<3, 3, 3>(S[(64, 32):(1, 64)])" -D BN=32

# the same tile filled by one CTA copy (smem_vt_cta_auto.axe): copy.vector
# lays its plan out with dimension 0 (contiguous in V's view) innermost,
# so synthesis finds Vt stored dimension 0 first, where the copy moves
# 16-byte vectors and the gemm reads by ldmatrix.trans, better than the
# row-major family it chose before (Swizzle<3,3,3>(S[(64,64):(64,1)]):
# the copy scalar). Both are 1 way by the brute force below; the win is
# counted in the emitted CUDA (per thread: 4 cp.async of 16 bytes vs 32
# scalar loads and stores) and in the warp-wide accesses the brute force
# enumerates (16 vs 128).
run_json "$T/smem_vt_cta_auto.axe"
run_json "$T/smem_vt_cta_auto.axe" -D BN=32 --seed 3
run_json "$T/smem_vt_cta_auto.axe" --target cuda --emulate
run_json "$T/smem_vt_cta_auto.axe" -D BN=32 --target cuda --emulate
same "$T/smem_vt_cta_auto.axe" Vt "Swizzle<3, 3, 3>(S[(64, 64):(1, 64)])"
same "$T/smem_vt_cta_auto.axe" Vt "Swizzle<3, 3, 3>(S[(64, 32):(1, 64)])" -D BN=32
sed 's/shared Vt: f16\[D, BN\] layout auto;/shared Vt: f16[D, BN] layout Swizzle<3, 3, 3>(S[(D, BN):(BN, 1)]);/' \
    "$T/smem_vt_cta_auto.axe" >"$tmp/vt_rowmajor.axe"
# op1_block FILE: the emitted CUDA of op 1 (the copy into Vt), 6 lines
op1_block() {
    "$AXE" compile "$1" --target cuda 2>&1 | grep -A5 'op 1 (line'
}
op1_block "$T/smem_vt_cta_auto.axe" >"$tmp/vt_auto.cu"
op1_block "$tmp/vt_rowmajor.axe" >"$tmp/vt_rm.cu"
grep -q 'copy.vector' "$tmp/vt_auto.cu" &&
    grep -q 'ax_u < 512L; ax_u += 128L' "$tmp/vt_auto.cu" &&
    [ "$(grep -c 'axe_ptx_cp_async_cg16(' "$tmp/vt_auto.cu")" = 1 ] &&
    ok || bad "smem_vt_cta_auto: not 512 cp.async of 16 bytes over 128 threads: $(cat "$tmp/vt_auto.cu")"
grep -q 'copy.split' "$tmp/vt_rm.cu" &&
    grep -q 'ax_u < 4096L; ax_u += 128L' "$tmp/vt_rm.cu" &&
    [ "$(grep -c 'AXE_ST(t_Vt.*= AXE_LD(t_V,' "$tmp/vt_rm.cu")" = 1 ] &&
    ok || bad "row-major Vt: not 4096 scalar copies over 128 threads: $(cat "$tmp/vt_rm.cu")"
"$AXE" compile "$T/smem_vt_cta_auto.axe" --explain 2>&1 | grep -A3 'op 1 (line' |
    grep -qF 'loops in dimension order (1,0), dim 0 innermost' &&
    ok || bad "smem_vt_cta_auto --explain: no dimension order for op 1"
run_json "$tmp/vt_rowmajor.axe"
if command -v python3 >/dev/null 2>&1 && synth_json "$T/smem_vt_cta_auto.axe"; then
    counts=$(python3 - "$tmp/synth.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from smem_ways import parse_layout, ways
BN = D = 64
shape = (D, BN)

def contiguous(addr, c, step, n):
    return all(addr(tuple(x + e * s for x, s in zip(c, step))) == addr(c) + e
               for e in range(n))

def copy_accesses(addr, vec):
    """copy#1 as a split plan deals it over 128 threads: chunk u of vec
    elements along dimension 0 (d = vec*u % D, k = vec*u // D) for the
    vector plan, element u in row-major order (d = u // BN, k = u % BN)
    for the scalar one; warp w's lanes at step j take u = 32w + l + 128j"""
    out = []
    for w in range(4):
        for j in range(D * BN // vec // 128):
            us = [32 * w + l + 128 * j for l in range(32)]
            if vec > 1:
                lanes = [(vec * u % D, vec * u // D) for u in us]
                if not all(contiguous(addr, c, (1, 0), vec) for c in lanes):
                    raise SystemExit("vector not contiguous")
                out.append(ways(addr, lanes, 2, vec, (1, 0)))
            else:
                out.append(ways(addr, [(u // BN, u % BN) for u in us], 2))
    return out

def gemm_ways(addr):
    worst = 0
    for nt in range(D // 8):
        for kt in range(BN // 16):
            rows = [(8 * nt + r, 16 * kt + 8 * j) for j in range(2)
                    for r in range(8)]
            trans = [(8 * nt, 16 * kt + 8 * j + r) for j in range(2)
                     for r in range(8)]
            if all(contiguous(addr, c, (0, 1), 8) for c in rows):
                worst = max(worst, ways(addr, rows, 2, 8, (0, 1)))
            elif all(contiguous(addr, c, (1, 0), 8) for c in trans):
                worst = max(worst, ways(addr, trans, 2, 8, (1, 0)))
            else:
                raise SystemExit("no ldmatrix form")
    return worst

new = parse_layout(json.load(open(sys.argv[1]))["tensors"]["Vt"], shape)
old = parse_layout("Swizzle<3,3,3>(S[(64,64):(64,1)])", shape)
cn, co = copy_accesses(new, 8), copy_accesses(old, 1)
print("%d %d %d %d %d %d" % (len(co), max(co), gemm_ways(old),
                             len(cn), max(cn), gemm_ways(new)))
PY
    )
    [ "$counts" = "128 1 1 16 1 1" ] && ok ||
        bad "smem_vt_cta_auto brute force (row-major: copy accesses, ways, gemm ways; synthesized: the same): $counts"
fi

# flash attention with the stages of V stored transposed and auto
# (flash_vt_auto.axe): Vt comes out dimension 0 first, the per-stage copy
# (op 8) 4 cp.async of 16 bytes per thread where the row-major family
# (the choice before: Swizzle<3,3,3>(S[(128,64):(64,1)])) makes 32 scalar
# copies; 1 way on the copy and on the gemm's reads (synth's records)
run_json "$T/flash_vt_auto.axe"
run_json "$T/flash_vt_auto.axe" -D SEQ=256 --seed 5
run_json "$T/flash_vt_auto.axe" --target cuda --emulate
same "$T/flash_vt_auto.axe" Vt "Swizzle<3, 3, 4>(S[(128, 64):(1, 128)])"
if synth_json "$T/flash_vt_auto.axe"; then
    grep -qF '"copy#8", "tensor": "Vt", "ways_before": 8, "ways_after": 1}' "$tmp/synth.json" &&
        grep -qF '"gemm#24", "tensor": "Vt", "ways_before": 1, "ways_after": 1}' "$tmp/synth.json" &&
        ok || bad "flash_vt_auto records: $(head -c 600 "$tmp/synth.json")"
fi
sed 's/shared Vt: f16\[STAGES \* D, BN\] layout auto;/shared Vt: f16[STAGES * D, BN] layout Swizzle<3, 3, 3>(S[(STAGES * D, BN):(BN, 1)]);/' \
    "$T/flash_vt_auto.axe" >"$tmp/flash_vt_rm.axe"
"$AXE" compile "$T/flash_vt_auto.axe" --target cuda 2>&1 | grep -A6 'op 8 (line' >"$tmp/fv_auto.cu"
"$AXE" compile "$tmp/flash_vt_rm.axe" --target cuda 2>&1 | grep -A6 'op 8 (line' >"$tmp/fv_rm.cu"
grep -q 'ax_u < 512L; ax_u += 128L' "$tmp/fv_auto.cu" &&
    [ "$(grep -c 'axe_ptx_cp_async_cg16(AXE_AT(t_Vt' "$tmp/fv_auto.cu")" = 1 ] &&
    grep -q 'ax_u < 4096L; ax_u += 128L' "$tmp/fv_rm.cu" &&
    [ "$(grep -c 'AXE_ST(t_Vt.*= AXE_LD(t_V,' "$tmp/fv_rm.cu")" = 1 ] &&
    ok || bad "flash_vt_auto op 8: $(cat "$tmp/fv_auto.cu" "$tmp/fv_rm.cu")"

# the text form names the same counts
if "$AXE" synth "$K/gemm_mma_auto.axe" | grep -q '^access gemm#3 As: ways 4 -> 1 ' &&
    "$AXE" synth "$K/gemm_mma_auto.axe" | grep -q '^shared As: Swizzle<3,2,3>(S\[(128,32):(32,1)\])$'; then
    ok
else
    bad "axe synth text of gemm_mma_auto: $("$AXE" synth "$K/gemm_mma_auto.axe" | head -c 600)"
fi
# the transpose: the vectors of the row reads would keep 4 ways on the
# column writes (Swizzle<2,3,3>), so synthesis drops them and says so
if "$AXE" synth "$K/transpose_auto.axe" | grep -q 'vectors dropped (they kept conflicts); Swizzle<0,5,5>'; then
    ok
else
    bad "transpose_auto text: $("$AXE" synth "$K/transpose_auto.axe" | head -c 600)"
fi

# --- two anchors that disagree: a register copy between them is a
# rearrange (copy.smem); before an elementwise operator one is inserted ---
# (c1: the m16n8k16 tiles of an f16 gemm over 8 warps; c2: the 16 x 16
# thread grid of an f32 gemm)
two_gemms() {
    cat <<AXE
kernel two(A: f16[128, 32], B: f16[128, 32], A2: f32[128, 32],
           B2: f32[128, 32], C: f32[128, 128]) grid(1) threads(256)
{
    register c1: f32[128, 128] layout auto;
    register c2: f32[128, 128] layout auto;
    cta fill(c1, 0);
    cta fill(c2, 0);
    cta gemm(c1, A, B);
    cta gemm(c2, A2, B2);
    $1
    cta copy(C, c2);
}
AXE
}
two_gemms "cta copy(c2, c1);" >"$tmp/conflict.axe"
synth_json "$tmp/conflict.axe" &&
    if grep -qF '"rearranges": [{"op": "copy#4", "tensor": "c2", "smem_bytes": 65536}]' "$tmp/synth.json"; then
        ok
    else
        bad "conflict: $(cat "$tmp/synth.json")"
    fi
run_json "$tmp/conflict.axe"
if "$AXE" compile "$tmp/conflict.axe" --explain 2>&1 | grep -A1 '^op 4 ' | grep -q 'chosen copy.smem'; then
    ok
else
    bad "conflict.axe: op 4 is not copy.smem"
fi
# an elementwise operator between them: a rearrange of c1 into c2's
# layout is inserted before it (numbered after the written operators)
two_gemms "cta add(c2, c2, c1);" >"$tmp/insert.axe"
synth_json "$tmp/insert.axe" &&
    if grep -qF '"c1_r4": "S[(16,8,16,8):(16@tx,8,1@tx,1)]"' "$tmp/synth.json" &&
        grep -qF '"rearranges": [{"op": "copy#6", "tensor": "c1_r4", "smem_bytes": 65536}]' "$tmp/synth.json"; then
        ok
    else
        bad "inserted rearrange: $(cat "$tmp/synth.json")"
    fi
run_json "$tmp/insert.axe"
run_json "$tmp/insert.axe" --target cuda --emulate
"$AXE" compile "$tmp/insert.axe" --explain >"$tmp/ex" 2>&1
if grep -q '^op 6 (line 10): cta copy(c1_r4\[128,128\], c1\[128,128\])' "$tmp/ex" &&
    grep -A1 '^op 6 ' "$tmp/ex" | grep -q 'chosen copy.smem' &&
    grep -q '^op 4 (line 10): cta add(c2\[128,128\], c2\[128,128\], c1_r4\[128,128\])' "$tmp/ex"; then
    ok
else
    bad "insert.axe explain: $(grep '^op' "$tmp/ex")"
fi
# both layouts written by hand: synthesis leaves them to dispatch
two_gemms "cta add(c2, c2, c1);" |
    sed -e 's/register c1: f32\[128, 128\] layout auto/register c1: f32[128, 128] layout S[(2,4,2,8,4,4,4,2):(4@warpid,16,2,4@laneid,1@warpid,4,1@laneid,1)]/' \
        -e 's/register c2: f32\[128, 128\] layout auto/register c2: f32[128, 128] layout S[(16,8,16,8):(16@tx,8,1@tx,1)]/' >"$tmp/pinned.axe"
if ! "$AXE" compile "$tmp/pinned.axe" >/dev/null 2>"$tmp/err" &&
    grep -q 'no schedule for add' "$tmp/err"; then
    ok
else
    bad "pinned disagreeing layouts: $(head -c 300 "$tmp/err")"
fi

# ldmatrix.trans rows (ldsm_f16_trans_auto.axe): the copy into q runs as
# ldmatrix.x4.trans, whose rows are 16 bytes along n, 8 k rows apart per
# matrix. Synthesis counts those rows and chooses the swizzle over them:
# Swizzle<3,3,3>(S[(32,64):(64,1)]); counted by the copy's per-thread
# 2-byte loads (before), it chose Swizzle<3,2,4>, 1 way for those loads
# but 2 ways for the rows the instruction reads. The brute force counts
# the rows of every warp's two instructions (lane 8j + i: k = 8j + i, n =
# 16 warp + 8 q) on both layouts.
run_json "$T/ldsm_f16_trans_auto.axe"
run_json "$T/ldsm_f16_trans_auto.axe" -D N=192 --target cuda --emulate --seed 5
same "$T/ldsm_f16_trans_auto.axe" s "Swizzle<3, 3, 3>(S[(32, 64):(64, 1)])"
if command -v python3 >/dev/null 2>&1 &&
    synth_json "$T/ldsm_f16_trans_auto.axe" --target cuda; then
    grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4.trans", "cost": 10' "$tmp/synth.json" &&
        ok || bad "ldsm_f16_trans_auto: not ldmatrix.x4.trans at cost 10: $(head -c 600 "$tmp/synth.json")"
    counts=$(python3 - "$tmp/synth.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from smem_ways import parse_layout, ways
shape = (32, 64)

def trans_rows(addr):
    worst = 0
    for w in range(4):
        for q in range(2):
            lanes = [(8 * (l // 8) + l % 8, 16 * w + 8 * q) for l in range(32)]
            for c in lanes:
                if any(addr((c[0], c[1] + e)) != addr(c) + e for e in range(8)):
                    raise SystemExit("a row is not 16 consecutive bytes")
            worst = max(worst, ways(addr, lanes, 2, 8, (0, 1)))
    return worst

new = parse_layout(json.load(open(sys.argv[1]))["tensors"]["s"], shape)
old = parse_layout("Swizzle<3,2,4>(S[(32,64):(64,1)])", shape)
print(trans_rows(old), trans_rows(new))
PY
    )
    [ "$counts" = "2 1" ] && ok ||
        bad "ldsm_f16_trans_auto brute-force ldmatrix.trans rows (before, now): $counts"
fi

# --- the accelerator twins (sbuf / psum tensors, "Scratchpad tensors") ---
# same_in NAME LAYOUT: tensor NAME of the last synth_json is equivalent
# to the hand-written LAYOUT.
same_in() {
    local got
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tensors"][sys.argv[2]])' \
        "$tmp/synth.json" "$1" 2>/dev/null)
    if [ -n "$got" ] && [ "$("$AXE" equal --equivalent "$got" "$2")" = true ]; then
        ok
    else
        bad "'$1' is '$got', not equivalent to $2"
    fi
}
# trn_gemm_auto: a, b and c are trn_gemm's hand-written layouts at its
# default size (TN 512), at TN 320 (c's two tiles fit only on Bank: F
# would carry a tile across a bank) and at TN 256 (both tiles would fit
# one bank on F: the tie goes to Bank); its C the same; exact on c and
# trn-sim.
G2="-D M=256 -D N=640 -D K=384 -D TN=320"
run_json "$K/trn_gemm_auto.axe"
# shellcheck disable=SC2086
{
run_json "$K/trn_gemm_auto.axe" --target trn-sim $G2 --seed 3
same_c trn_gemm_auto trn_gemm $G2
}
for tn in 512 320 256; do
    synth_json "$K/trn_gemm_auto.axe" -D M=256 -D N=$((2 * tn)) -D K=384 -D TN=$tn || continue
    same_in a "S[(2, 128, 128):(128@F, 1@F, 1@P)]"
    same_in b "S[(2, $tn, 128):($tn@F, 1@F, 1@P)]"
    same_in c "S[(2, 128, $tn):(1@Bank, 1@P, 1@F)]"
done
same_c trn_gemm_auto trn_gemm

# trn_attention_auto and trn_attention_serial_auto: q, k, v, (s,) pp and
# pt are the hand-written layouts at the default size (SEQ 256, D 64, KV
# 128; there k's buffer digit would also fit on P and s's on F at the
# same cost: the ties go to F and Bank) and at a second one; the same C;
# exact on trn-sim (default) and c (second size).
A2="-D SEQ=384 -D D=128 -D KV=64"
S2="-D SEQ=384 -D D=32 -D KV=128"
run_json "$K/trn_attention_auto.axe" --target trn-sim
run_json "$K/trn_attention_serial_auto.axe" --target trn-sim
# shellcheck disable=SC2086
{
run_json "$K/trn_attention_auto.axe" $A2 --seed 4
run_json "$K/trn_attention_serial_auto.axe" $S2 --seed 4
same_c trn_attention_auto trn_attention $A2
same_c trn_attention_serial_auto trn_attention_serial $S2
}
same_c trn_attention_auto trn_attention
same_c trn_attention_serial_auto trn_attention_serial
# at (D, KV): the hand-written layouts ($1 is D, $2 KV); with P before F
# in the sbuf order, k at D 64 is S[(2, 128, 64):(64@P, 1@F, 1@P)]
trn_att_rows() {
    synth_json "$K/trn_attention_auto.axe" -D SEQ=384 -D D="$1" -D KV="$2" || return
    same_in q "S[(128, $1):(1@F, 1@P)]"
    same_in k "S[(2, $2, $1):($2@F, 1@F, 1@P)]"
    same_in v "S[(2, $1, $2):($1@F, 1@F, 1@P)]"
    same_in s "S[(2, 128, $2):(1@Bank, 1@P, 1@F)]"
    same_in pp "S[(128, $2):(1@F, 1@P)]"
    same_in pt "S[(128, $2):(1@F, 1@P)]"
}
trn_att_serial_rows() {
    synth_json "$K/trn_attention_serial_auto.axe" -D SEQ=384 -D D="$1" -D KV="$2" || return
    same_in q "S[(128, $1):(1@F, 1@P)]"
    same_in k "S[($2, $1):(1@F, 1@P)]"
    same_in v "S[($1, $2):(1@F, 1@P)]"
    same_in pp "S[(128, $2):(1@F, 1@P)]"
    same_in pt "S[(128, $2):(1@F, 1@P)]"
}
trn_att_rows 64 128
trn_att_rows 128 64
trn_att_serial_rows 64 128
trn_att_serial_rows 32 128

# Every scratchpad tensor of trn_attention auto: the example's layouts,
# the default ones too (dim 0 on P), and the example's C.
if synth_json "$T/trn_attention_all_auto.axe"; then
    same_in q "S[(128, 64):(1@F, 1@P)]"
    same_in k "S[(2, 128, 64):(128@F, 1@F, 1@P)]"
    same_in v "S[(2, 64, 128):(64@F, 1@F, 1@P)]"
    same_in s "S[(2, 128, 128):(1@Bank, 1@P, 1@F)]"
    for n in pp pt; do same_in "$n" "S[(128, 128):(1@F, 1@P)]"; done
    same_in p "S[(128, 128):(1@P, 1@F)]"
    for n in ot o; do same_in "$n" "S[(128, 64):(1@P, 1@F)]"; done
    for n in c m mn l t; do same_in "$n" "S[128:1@P]"; done
fi
(cd "$T" && "$AXE" compile trn_attention_all_auto.axe) 2>&1 |
    sed -E "s/trn_attention_all_auto/trn_attention/g; s/line [0-9]+/line L/g" >"$tmp/a.c"
(cd "$K" && "$AXE" compile trn_attention.axe) 2>&1 | sed -E "s/line [0-9]+/line L/g" >"$tmp/h.c"
if [ -s "$tmp/a.c" ] && diff "$tmp/a.c" "$tmp/h.c" >"$tmp/diff"; then
    ok
else
    bad "C of trn_attention_all_auto differs from trn_attention's: $(head -c 500 "$tmp/diff")"
fi

# Tensors that no operator ties are searched apart: five auto f32[8, 8,
# 8] tiles, each only copied from X, have 7 candidates each, 16807
# assignments together (beyond the 4096 of one search), 7 apart.
cat >"$tmp/apart.axe" <<'AXE'
kernel k(X: global f32[8, 8, 8]) core
{
    sbuf a: f32[8, 8, 8] layout auto;
    sbuf b: f32[8, 8, 8] layout auto;
    sbuf c: f32[8, 8, 8] layout auto;
    sbuf d: f32[8, 8, 8] layout auto;
    sbuf e: f32[8, 8, 8] layout auto;
    core copy(a, X);
    core copy(b, X);
    core copy(c, X);
    core copy(d, X);
    core copy(e, X);
}
AXE
if "$AXE" synth "$tmp/apart.axe" >"$tmp/out" 2>&1 &&
    [ "$(grep -c 'first cheapest of 7 assignments' "$tmp/out")" = 5 ]; then
    ok
else
    bad "five untied scratchpad tensors: $(head -c 300 "$tmp/out")"
fi

# The cost decides (no constraint does): x of copy, exp, copy takes the
# layout with the fewest elements per partition for exp, (128, 64) on
# (P, F). Its cost is the sum of trn-sim's engines' busy cycles with that
# layout, and trn-sim takes more cycles with either other candidate
# written by hand ((F, P): 960, all on F: 9024; chosen: 896).
trn_cost_kernel() {
    cat >"$tmp/tc.axe" <<AXE
kernel k(X: global f32[128, 64], Y: global f32[128, 64]) core
{
    sbuf x: f32[128, 64] layout $1;
    core copy(x, X);
    core exp(x, x);
    core copy(Y, x);
}
AXE
}
# trn_cycles LAYOUT: "CYCLES BUSY" of a trn-sim run (busy summed over the
# engines)
trn_cycles() {
    trn_cost_kernel "$1"
    "$AXE" run "$tmp/tc.axe" --target trn-sim --check --json 2>/dev/null |
        python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["pass"]; print(j["cycles"], sum(e["busy"] for e in j["engines"].values()))' 2>/dev/null
}
trn_cost_kernel auto
if synth_json "$tmp/tc.axe"; then
    same_in x "S[(128, 64):(1@P, 1@F)]"
    cost=$("$AXE" synth "$tmp/tc.axe" | sed -n 's/.*(cost \([0-9]*\) busy.*/\1/p')
    read -r c0 b0 <<<"$(trn_cycles "S[(128, 64):(1@P, 1@F)]")"
    c1=$(trn_cycles "S[(128, 64):(1@F, 1@P)]" | cut -d' ' -f1)
    c2=$(trn_cycles "S[(128, 64):(64@F, 1@F)]" | cut -d' ' -f1)
    if [ -n "$cost" ] && [ "$cost" = "${b0:-}" ] && [ -n "${c1:-}" ] && [ -n "${c2:-}" ] &&
        [ "$c0" -lt "$c1" ] && [ "$c0" -lt "$c2" ]; then
        ok
    else
        bad "scratchpad cost $cost, trn-sim busy ${b0:-?}; cycles chosen ${c0:-?}, (F, P) ${c1:-?}, all F ${c2:-?}"
    fi
fi

# Ties put only the outermost factor of a psum tensor on Bank first (a
# double buffer in separate banks); inner factors go to F, then P, then
# Bank: psum x (1 KiB per partition) takes 2 banks, not 8.
cat >"$tmp/banks.axe" <<'AXE'
kernel k(Y: global f32[4, 128, 64]) core
{
    psum x: f32[4, 128, 64] layout auto;
    sbuf o: f32[4, 128, 64] layout auto;
    core fill(x, 1.0);
    core fill(x[0:2, 0:64, 0:32], 2.0);
    for i in range(2) {
        core exp(x[i % 2 * 2 : +2, 0:128, 0:64], x[i % 2 * 2 : +2, 0:128, 0:64]);
    }
    core copy(o, x);
    core copy(Y, o);
}
AXE
if "$AXE" synth "$tmp/banks.axe" >"$tmp/out" 2>&1 &&
    grep -qF 'psum x: S[(2,2,2,64,2,32):(1@Bank,64@F,64@P,1@P,32@F,1@F)]' "$tmp/out"; then
    ok
else
    bad "psum ties by banks: $(head -c 300 "$tmp/out")"
fi

# The search stops at its bound and keeps the cheapest assignment found
# (refused before: more than 4096 assignments): three tied 3-D tiles
# copied one into the next, every copy on an engine in any layout.
cat >"$tmp/bound.axe" <<'AXE'
kernel k(X: global f32[4, 8, 16], Y: global f32[4, 8, 16]) core
{
    sbuf a: f32[4, 8, 16] layout auto;
    sbuf b: f32[4, 8, 16] layout auto;
    sbuf c: f32[4, 8, 16] layout auto;
    core copy(a, X);
    core copy(a[0:2, 0:4, 0:8], X[0:2, 0:4, 0:8]);
    core copy(b, a);
    core copy(b[0:2, 0:4, 0:8], a[0:2, 0:4, 0:8]);
    core copy(c, b);
    core copy(c[0:2, 0:4, 0:8], b[0:2, 0:4, 0:8]);
    core copy(Y, c);
}
AXE
if "$AXE" synth "$tmp/bound.axe" >"$tmp/out" 2>&1 &&
    [ "$(grep -c 'first cheapest of 4096 assignments with every operator on an engine, the search stopped at its bound' "$tmp/out")" = 3 ]; then
    ok
else
    bad "search bound keeps the cheapest: $(head -c 300 "$tmp/out")"
fi

# axe synth --trn KEY=VALUE synthesizes for that model (it zeroed the
# model before): the default partitions=128 gives the default layouts; a
# model that no kernel can use is refused by its own reason.
if "$AXE" synth "$K/trn_gemm_auto.axe" --trn partitions=128 >"$tmp/out" 2>&1 &&
    grep -q '^psum c: S\[(2,128,512):(1@Bank,1@P,1@F)\]$' "$tmp/out"; then
    ok
else
    bad "axe synth --trn partitions=128: $(head -c 300 "$tmp/out")"
fi
if ! "$AXE" synth "$K/trn_gemm_auto.axe" --trn psum_bank_bytes=1000 >"$tmp/out" 2>&1 &&
    grep -q 'trn model: a PSUM bank (1000 bytes) must hold whole f32 elements' "$tmp/out"; then
    ok
else
    bad "axe synth --trn psum_bank_bytes=1000: $(head -c 300 "$tmp/out")"
fi

# --- errors ---------------------------------------------------------------
# expect_err PATTERN <<< PROGRAM: axe synth exits 1 naming the problem.
expect_err() {
    cat >"$tmp/e.axe"
    if ! "$AXE" synth "$tmp/e.axe" >"$tmp/out" 2>"$tmp/err" &&
        grep -qE -- "$1" "$tmp/err"; then
        ok
    else
        bad "expected '$1', got: $(head -c 400 "$tmp/err" "$tmp/out")"
    fi
}
expect_err "'X' is a global tensor: its layout is the caller's, so it cannot be 'auto'" <<'AXE'
kernel k(X: f32[32] layout auto) grid(1) threads(32) { }
AXE
expect_err "layout synthesis: no anchor .* reaches 'a' through the operators; write its layout" <<'AXE'
kernel k(X: f32[32]) grid(1) threads(32)
{
    register a: f32[32] layout auto;
    warp fill(a, 0);
}
AXE
expect_err "'T' has 'layout auto': a view addresses its storage, which synthesis chooses" <<'AXE'
kernel k(X: f32[32, 32]) grid(1) threads(32)
{
    shared T: f32[32, 32] layout auto;
    warp copy(T, X);
    warp copy(X, T.view(S[(32, 32):(1, 32)]));
}
AXE
expect_err "rearrange redistributes registers among the threads of a warp, warpgroup or CTA, not at thread scope" <<'AXE'
kernel k(X: f32[4]) grid(1) threads(1)
{
    register a: f32[4];
    register b: f32[4];
    thread copy(a, X);
    thread rearrange(b, a);
}
AXE
expect_err "'X' is global memory: rearrange moves registers between two thread-value layouts" <<'AXE'
kernel k(X: f32[32], Y: f32[32]) grid(1) threads(32)
{
    register a: f32[32] layout S[32:1@laneid];
    warp rearrange(a, X);
}
AXE

# The copy anchor's tie rule counts every other copy of the tied class
# (there was a cap of 8 that dropped the rest silently): eight column-major
# stores are neutral (single elements whatever the run) and the ninth, H,
# row-major and aligned, moves 16-byte vectors only with runs of 8, so the
# tie between runs of 4 and 8 (8-byte accesses, A's offset of 4) goes to
# runs of 8; with the cap the anchor kept runs of 4.
cat >"$tmp/others9.axe" <<'AXE'
kernel k(A: f16[16, 68], G0: f16[1024], G1: f16[1024], G2: f16[1024], G3: f16[1024], G4: f16[1024], G5: f16[1024], G6: f16[1024], G7: f16[1024], H: f16[16, 64]) grid(1) threads(32) {
    register x: f16[16, 64] layout auto;
    warp copy(x, A[0:+16, 4:+64]);
    warp copy(G0.view(S[(16, 64):(1, 16)]), x);
    warp copy(G1.view(S[(16, 64):(1, 16)]), x);
    warp copy(G2.view(S[(16, 64):(1, 16)]), x);
    warp copy(G3.view(S[(16, 64):(1, 16)]), x);
    warp copy(G4.view(S[(16, 64):(1, 16)]), x);
    warp copy(G5.view(S[(16, 64):(1, 16)]), x);
    warp copy(G6.view(S[(16, 64):(1, 16)]), x);
    warp copy(G7.view(S[(16, 64):(1, 16)]), x);
    warp copy(H, x);
}
AXE
if synth_json "$tmp/others9.axe" &&
    grep -qF '"copy#0": {"chosen": "coalesced, 8-byte accesses (4 elements) in runs of 8 on 32 consecutive laneid, 8 per thread", "cost": 256,' "$tmp/synth.json" &&
    "$AXE" run "$tmp/others9.axe" --check 2>&1 | grep -q '^check passed: max_abs_err 0,'; then
    ok
else
    bad "others9: $(cat "$tmp/synth.json")"
fi

# Copy anchors in the joint search: x's anchor alone takes runs of 4
# (16 lanes along a row: every leaf with 16-byte accesses costs 1024, the
# first wins), which leaves s (its projection) and v (equal to s) 32
# strided rows per lane; searched with the program, runs of 128 give each
# lane two whole rows, so v's load and Y's store are one 8-byte access.
# Counted in the emitted CUDA (memory instructions per thread: each load
# or store line times its enclosing loops' trips; shuffles likewise)
# against the same kernel with the layouts chosen alone written by hand:
# 34 against 96 and no shuffle against 128.
cat >"$tmp/rowbias.axe" <<'EOF'
param R = 64;
param C = 64;
kernel rowbias(X: f32[R, C], V: f32[R], Y: f32[R]) grid(1) threads(32)
{
    register x: f32[R, C] layout auto;
    register s: f32[R] layout auto;
    register v: f32[R] layout auto;
    warp copy(x, X);
    warp reduce(s, x, sum, 1);
    warp copy(v, V);
    warp add(s, s, v);
    warp copy(Y, s);
}
EOF
sed -e 's/rowbias(/rowbias_alone(/' \
    -e 's/x: f32\[R, C\] layout auto/x: f32[R, C] layout S[(32, 2, 16, 4):(4, 16@laneid, 1@laneid, 1)]/' \
    -e 's/\([sv]\): f32\[R\] layout auto/\1: f32[R] layout S[(32, 2):(1, 16@laneid)] + R[16:1@laneid]/' \
    "$tmp/rowbias.axe" >"$tmp/rowbias_alone.axe"
run_json "$tmp/rowbias.axe"
run_json "$tmp/rowbias.axe" --target cuda --emulate
run_json "$tmp/rowbias_alone.axe"
same "$tmp/rowbias.axe" x "S[(32, 2, 16, 4):(1@laneid, 64, 4, 1)]"
if grep -qF '"copy#0": {"chosen": "coalesced, 16-byte accesses (4 elements) in runs of 128 on 32 consecutive laneid, 32 per thread; in the program: 0 rearranges, 1088 copy accesses, 528 register bytes per thread", "cost": 1024, "runner_up": "coalesced, 16-byte accesses (4 elements) in runs of 64 on 32 consecutive laneid, 32 per thread; in the program: 0 rearranges, 1152 copy accesses, 528 register bytes per thread"}' "$tmp/synth.json"; then
    ok
else
    bad "rowbias: the joint copy anchor: $(cat "$tmp/synth.json")"
fi
# count_cuda FILE: the memory instructions, shuffles and ldmatrix
# instructions of the emitted CUDA kernel ("MEM SHFL LDSM"), each line's
# count times the trips of the loops from 0 around it (a loop over a
# thread's share, from ax_rank or ax_tid, counts once; an ldmatrix is a
# call with ax_w, not the helper's definition).
count_cuda() {
    KERNEL_COUNT_FROM=0 kernel_count "$1" '__global__' 'AXE_(?:LDV?|STV?)\(' '__shfl' \
        'axe_ptx_ldmatrix_\w+\(ax_w'
}
"$AXE" compile "$tmp/rowbias.axe" --target cuda >"$tmp/rb.cu" 2>&1
"$AXE" compile "$tmp/rowbias_alone.axe" --target cuda >"$tmp/rba.cu" 2>&1
got="$(count_cuda "$tmp/rb.cu") / $(count_cuda "$tmp/rba.cu")"
if [ "$got" = "34 0 0 / 96 128 0" ]; then
    ok
else
    bad "rowbias joint vs alone: memory instructions and shuffles per thread $got"
fi

# ldmatrix-shaped register leaves of a copy anchor reading shared
# memory (compiler_synth_ldsm.c). The transpose through a swizzled tile:
# synthesis takes ldsm_f16_trans.axe's .trans layout (a word the 2 f16 of
# rows 2 (l % 4), 2 (l % 4) + 1), which makes each word one 4-byte store
# into the transposed F; the coalesced leaf it beat (16-byte loads along
# n, chosen before) is written by hand in ldsm_alone.axe. Both cost 256;
# the .trans leaf wins the anchor's tie (F's store moves its word pairs
# along dim 0 whole, the coalesced leaf's single elements), so it is the
# anchor's first leaf (the whole-program count chose it before, "in the
# program: ..."). Per thread, as
# counted from the tile: 32 x 64 f16 over 128 threads = 16 f16 = 8
# words = 2 ldmatrix.x4.trans and 8 stores, against 2 loads and 16
# stores (both kernels zero the tile with one more store line).
LT="$T/ldsm_f16_transpose_auto.axe"
run_json "$LT"
run_json "$LT" -D N=192 --seed 3
run_json "$LT" --target cuda --emulate
run_json "$LT" --target cuda --emulate -D N=192 --seed 3
same "$LT" q "S[(4, 4, 2, 4, 2, 8):(2, 1@laneid, 1, 1@warpid, 8, 4@laneid)]"
if synth_json "$LT" --target cuda &&
    grep -qF '"copy#1": {"chosen": "ldmatrix.x4.trans from '"'s'"', word pairs along dim 0, 2 per thread, 8 wavefronts per warp", "cost": 256, "runner_up": "coalesced, 16-byte accesses (8 elements) in runs of 8 on 128 consecutive tx, 2 per thread"' "$tmp/synth.json" &&
    grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4.trans"' "$tmp/synth.json"; then
    ok
else
    bad "ldsm_f16_transpose_auto: the .trans leaf: $(cat "$tmp/synth.json")"
fi
sed -e 's/ldsm_f16_transpose_auto(/ldsm_alone(/' \
    -e 's/q: f16\[32, 64\] layout auto/q: f16[32, 64] layout S[(2, 16, 8, 8):(8, 8@tx, 1@tx, 1)]/' \
    "$LT" >"$tmp/ldsm_alone.axe"
"$AXE" compile "$LT" --target cuda >"$tmp/lt.cu" 2>&1
"$AXE" compile "$tmp/ldsm_alone.axe" --target cuda >"$tmp/lta.cu" 2>&1
got="$(count_cuda "$tmp/lt.cu") / $(count_cuda "$tmp/lta.cu")"
if [ "$got" = "9 0 2 / 19 0 0" ]; then
    ok
else
    bad "ldsm_f16_transpose_auto vs alone: memory, shuffles, ldmatrix per thread $got"
fi
# The same transpose over a region of the tile (s[k * 32 : +32, ...] of
# a 64 x 64 s): the leaves are read off the region's layout, q takes the
# same .trans layout; per thread, over both halves, 4 ldmatrix.x4.trans
# and 16 4-byte stores, against 4 16-byte loads and 32 2-byte stores of
# the coalesced leaf (written by hand; chosen before).
LC="$T/ldsm_f16_transpose_cut_auto.axe"
run_json "$LC"
run_json "$LC" -D N=192 --seed 3
run_json "$LC" --target cuda --emulate
run_json "$LC" --target cuda --emulate -D N=192 --seed 3
same "$LC" q "S[(4, 4, 2, 4, 2, 8):(2, 1@laneid, 1, 1@warpid, 8, 4@laneid)]" --target cuda
if synth_json "$LC" --target cuda &&
    grep -qF '"copy#1": {"chosen": "ldmatrix.x4.trans from '"'s'"', word pairs along dim 0, 2 per thread, 8 wavefronts per warp", "cost": 256' "$tmp/synth.json" &&
    grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4.trans"' "$tmp/synth.json"; then
    ok
else
    bad "ldsm_f16_transpose_cut_auto: the .trans leaf of a region: $(cat "$tmp/synth.json")"
fi
sed -e 's/ldsm_f16_transpose_cut_auto(/cut_alone(/' \
    -e 's/q: f16\[32, 64\] layout auto/q: f16[32, 64] layout S[(2, 16, 8, 8):(8, 8@tx, 1@tx, 1)]/' \
    "$LC" >"$tmp/cut_alone.axe"
"$AXE" compile "$LC" --target cuda >"$tmp/lc.cu" 2>&1
"$AXE" compile "$tmp/cut_alone.axe" --target cuda >"$tmp/lca.cu" 2>&1
got="$(count_cuda "$tmp/lc.cu") / $(count_cuda "$tmp/lca.cu")"
if [ "$got" = "17 0 4 / 37 0 0" ]; then
    ok
else
    bad "ldsm_f16_transpose_cut_auto vs alone: memory, shuffles, ldmatrix per thread $got"
fi
# At warpgroup scope (ldsm_f16_transpose_wg_auto.axe: each warpgroup its
# half s[wgid * 32 : +32, ...]): the warps are dealt on wid_in_wg, q
# takes the same .trans layout (wid_in_wg for warpid); per thread 2
# ldmatrix.x4.trans and 8 4-byte stores, the counts of the kernel with
# that layout written, against 2 16-byte loads and 16 2-byte stores of
# the coalesced leaf (written by hand; chosen before).
LW="$T/ldsm_f16_transpose_wg_auto.axe"
run_json "$LW"
run_json "$LW" -D N=192 --seed 3
run_json "$LW" --target cuda --emulate
run_json "$LW" --target cuda --emulate -D N=192 --seed 3
wq="S[(4, 4, 2, 4, 2, 8):(2, 1@laneid, 1, 1@wid_in_wg, 8, 4@laneid)]"
same "$LW" q "$wq" --target cuda
if grep -qF '"copy#1": {"chosen": "ldmatrix.x4.trans from '"'s'"', word pairs along dim 0, 2 per thread, 8 wavefronts per warp", "cost": 256' "$tmp/synth.json" &&
    grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4.trans"' "$tmp/synth.json"; then
    ok
else
    bad "ldsm_f16_transpose_wg_auto: the .trans leaf at warpgroup scope: $(cat "$tmp/synth.json")"
fi
sed -e "s/q: f16\[32, 64\] layout auto/q: f16[32, 64] layout $wq/" "$LW" >"$tmp/wg_hand.axe"
sed -e 's/q: f16\[32, 64\] layout auto/q: f16[32, 64] layout S[(2, 16, 8, 8):(8, 8@tid_in_wg, 1@tid_in_wg, 1)]/' \
    "$LW" >"$tmp/wg_alone.axe"
got=""
for f in "$LW" "$tmp/wg_hand.axe" "$tmp/wg_alone.axe"; do
    "$AXE" compile "$f" --target cuda >"$tmp/lw.cu" 2>&1
    got="$got/ $(count_cuda "$tmp/lw.cu") "
done
if [ "$got" = "/ 9 0 2 / 9 0 2 / 19 0 0 " ] && ! grep -q "layout auto;" "$tmp/wg_hand.axe" "$tmp/wg_alone.axe"; then
    ok
else
    bad "ldsm_f16_transpose_wg_auto, written twin, coalesced twin: memory, shuffles, ldmatrix per thread $got"
fi
# Both auto: the shared step runs first and synthesizes the registers for
# each candidate tile, so q gets its .trans leaf against each, and the
# winning pair is the kernel's written tile with the same q.
sed -e 's/s: f16\[32, 64\] layout .*;/s: f16[32, 64] layout auto;/' "$LT" >"$tmp/lt_both.axe"
same "$tmp/lt_both.axe" q "S[(4, 4, 2, 4, 2, 8):(2, 1@laneid, 1, 1@warpid, 8, 4@laneid)]" --target cuda
same "$tmp/lt_both.axe" s "Swizzle<3, 3, 3>(S[(32, 64):(64, 1)])" --target cuda
run_json "$tmp/lt_both.axe" --target cuda --emulate
# Packed i4 (Hexcute's tile, rows of 16 k x 2 n): no per-thread load
# reads more than a byte along a dimension, but each 16-byte row of Bs
# and F is contiguous across dims 1 and 2, and the coalesced leaf across
# dimensions (compiler_synth_merge.c) gives each thread whole rows: per
# thread 4 16-byte loads from Bs and 4 16-byte stores into F (count_cuda
# 9 0 0 with the 4 16-byte cp.async, the zeroing of Bs and the rest),
# where the ldmatrix leaf took 4 ldmatrix.x4 and 16 4-byte stores
# (17 0 4).
LP="$T/i4_ldsm_pack_auto.axe"
run_json "$LP"
run_json "$LP" -D G=3 --seed 4
run_json "$LP" --target cuda --emulate
run_json "$LP" --target cuda --emulate -D G=3 --seed 4
if synth_json "$LP" --target cuda &&
    grep -qF '"copy#1": {"chosen": "coalesced, 16-byte accesses (32 elements) across dimensions in runs of 32 on 128 consecutive tx, 4 per thread", "cost": 512,' "$tmp/synth.json" &&
    ! grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4"' "$tmp/synth.json"; then
    ok
else
    bad "i4_ldsm_pack_auto: the leaf across dimensions: $(cat "$tmp/synth.json")"
fi
sed -e 's/i4_ldsm_pack_auto(/i4_alone(/' \
    -e 's/bq: i4\[1, 128, 128\] layout auto/bq: i4[1, 128, 128] layout S[(1, 64, 2, 64, 2):(0, 2, 64@tx, 1@tx, 1)]/' \
    "$LP" >"$tmp/i4_alone.axe"
"$AXE" compile "$LP" --target cuda >"$tmp/lp.cu" 2>&1
"$AXE" compile "$tmp/i4_alone.axe" --target cuda >"$tmp/lpa.cu" 2>&1
got="$(count_cuda "$tmp/lp.cu") / $(count_cuda "$tmp/lpa.cu")"
if [ "$got" = "9 0 0 / 193 0 0" ]; then
    ok
else
    bad "i4_ldsm_pack_auto vs alone: memory, shuffles, ldmatrix per thread $got"
fi
# Both auto (compiler_synth_seed.c): the shared tile's ldmatrix rows
# come from bq's ldmatrix leaf on a seed, the layout of the copy's
# memory operand X made compact. i4: the row-major tile does not compile
# (X's bytes are n pairs), so Bs had no layout before; f16 (16-byte rows
# of 4 k x 2 n): the row-major tile compiles, with X's copy in 4-byte
# cp.async and F's in 16-byte stores (the same 24 instructions per
# thread; the bank model's sum prefers the seed's 4 16-byte accesses of
# Bs). Both come out X's rows (Hexcute's layout for i4), 1-way, with
# the counts of the kernels with Bs written so. count_copy FILE: per
# thread, from the emitted kernel after the zeroing of shared memory
# (each line's count times the trips of the loops around it), the stores
# into Bs (cp.async or plain), the loads from Bs, the ldmatrix from Bs
# and the stores into F.
count_copy() {
    kernel_count "$1" 'shared memory is zero' \
        '(AXE_STV?\(([\w ]+, )?|cp_async_c[ag]\d+\(AXE_AT\()t_Bs\b' \
        'AXE_LDV?\(([\w ]+, )?t_Bs\b' \
        'ldmatrix_x\d(_trans)?\(ax_w, AXE_AT\(t_Bs\b' 'AXE_STV?\(([\w ]+, )?t_F\b'
}
for f in i4_ldsm_pack_both_auto ldsm_f16_pack_auto; do
    run_json "$T/$f.axe"
    run_json "$T/$f.axe" -D G=3 --seed 4
    run_json "$T/$f.axe" --target cuda --emulate
    run_json "$T/$f.axe" --target cuda --emulate -D G=3 --seed 4
done
same "$T/i4_ldsm_pack_both_auto.axe" Bs "S[(1, 8, 2, 8, 64, 2):(0, 2048, 2, 4, 32, 1)]" --target cuda
same "$T/ldsm_f16_pack_auto.axe" Bs "S[(1, 16, 4, 32, 2):(0, 256, 2, 8, 1)]" --target cuda
for f in i4_ldsm_pack_both_auto ldsm_f16_pack_auto; do
    "$AXE" synth "$T/$f.axe" --target cuda >"$tmp/seed.txt" 2>&1
    if grep -qF "compact on the ldmatrix rows of copy#1 ('bq', a seed's leaf)" "$tmp/seed.txt" &&
        grep -qF "anchor copy#1: coalesced, 16-byte accesses" "$tmp/seed.txt" &&
        grep -qF "across dimensions in runs of" "$tmp/seed.txt" &&
        [ "$(grep -c '^access copy#[01] Bs: ways [0-9]* -> 1 ' "$tmp/seed.txt")" = 2 ]; then
        ok
    else
        bad "$f: Bs not seeded by bq's ldmatrix leaf, or not 1-way: $(cat "$tmp/seed.txt")"
    fi
done
# the hand-written kernels: Bs written as synthesized (X's rows), bq
# auto; and the f16 tile row-major, synthesis's choice before the seeds
sed -e 's/Bs: i4\[1, 128, 128\] layout auto/Bs: i4[1, 128, 128] layout S[(1, 8, 2, 8, 64, 2):(0, 2048, 2, 4, 32, 1)]/' \
    "$T/i4_ldsm_pack_both_auto.axe" >"$tmp/i4_hand.axe"
sed -e 's/Bs: f16\[1, 64, 64\] layout auto/Bs: f16[1, 64, 64] layout S[(1, 16, 4, 32, 2):(0, 256, 2, 8, 1)]/' \
    "$T/ldsm_f16_pack_auto.axe" >"$tmp/f16_hand.axe"
sed -e 's/Bs: f16\[1, 64, 64\] layout auto/Bs: f16[1, 64, 64] layout S[(1, 64, 64):(0, 64, 1)]/' \
    "$T/ldsm_f16_pack_auto.axe" >"$tmp/f16_rm.axe"
got=""
for f in "$T/i4_ldsm_pack_both_auto" "$tmp/i4_hand" "$T/ldsm_f16_pack_auto" "$tmp/f16_hand" "$tmp/f16_rm"; do
    "$AXE" compile "$f.axe" --target cuda >"$tmp/cc.cu" 2>&1
    got="$got/ $(count_copy "$tmp/cc.cu") "
done
if [ "$got" = "/ 4 4 0 4 / 4 4 0 4 / 4 4 0 4 / 4 4 0 4 / 16 0 4 4 " ]; then
    ok
else
    bad "Bs stores, Bs loads, ldmatrix, F stores per thread: i4 twin, hand; f16 twin, hand, row-major: $got"
fi
# Seeds from copies of a region of the tile (i4_ldsm_pack_halves_auto.axe:
# Bs filled by halves Bs[0 : 1, h * 64 : +64, ...], each a tile of whole
# 16-byte rows): X's half seeds Bs, the halves row-major outside it, which
# is Hexcute's layout again (before: seeds from whole copies only, and
# "no schedule for copy"); the counts of the kernel with Bs written: bq
# takes whole 16-byte rows (a leaf across dimensions), 4 cp.async, 4
# loads and 4 stores per thread.
HH="$T/i4_ldsm_pack_halves_auto.axe"
run_json "$HH"
run_json "$HH" -D G=3 --seed 4
run_json "$HH" --target cuda --emulate
run_json "$HH" --target cuda --emulate -D G=3 --seed 4
same "$HH" Bs "S[(1, 8, 2, 8, 64, 2):(0, 2048, 2, 4, 32, 1)]" --target cuda
sed -e 's/Bs: i4\[1, 128, 128\] layout auto/Bs: i4[1, 128, 128] layout S[(1, 8, 2, 8, 64, 2):(0, 2048, 2, 4, 32, 1)]/' \
    "$HH" >"$tmp/halves_hand.axe"
got=""
for f in "$HH" "$tmp/halves_hand.axe"; do
    "$AXE" compile "$f" --target cuda >"$tmp/cc.cu" 2>&1
    got="$got/ $(count_copy "$tmp/cc.cu") "
done
if [ "$got" = "/ 4 4 0 4 / 4 4 0 4 " ] && grep -qF "Bs: i4[1, 128, 128] layout S[" "$tmp/halves_hand.axe"; then
    ok
else
    bad "i4_ldsm_pack_halves_auto, written twin: Bs stores, Bs loads, ldmatrix, F stores per thread: $got"
fi
# Rows of 8 bytes contiguous with the next (merge_rows_auto.axe): the
# leaves across dimensions give q (f16[128, 4]) and p (i4[64, 16]) runs
# of two rows per thread, 16-byte accesses; vectors inside one dimension
# moved 8 bytes (count_cuda 12 0 0 before).
# A dimension of extent 1 (stride 0 in F's layout) no longer leads the
# anchor's order of dims (it held no run, and with it first no leaf had
# a vector): r's store into F (rows padded to 68, so no leaf across
# dimensions) takes 16-byte accesses (count_cuda 17 0 4 before: single
# elements, and q read from s by ldmatrix). An i4 element is a 4-bit
# access (i4_colsrc_auto's runner-up said "0-byte").
cat >"$tmp/e1.axe" <<'EOF'
kernel e1(X: f16[1, 64, 64], F: f32[1, 64, 64] layout S[(1, 64, 64):(0, 68, 1)])
    grid(1) threads(128)
{
    shared s: f16[1, 64, 64] layout S[(1, 64, 64):(0, 64, 1)];
    register q: f16[1, 64, 64] layout auto;
    register r: f32[1, 64, 64] layout auto;
    cta copy(s, X);
    sync;
    cta copy(q, s);
    cta cast(r, q);
    cta copy(F, r);
}
EOF
run_json "$tmp/e1.axe"
run_json "$tmp/e1.axe" --target cuda --emulate
"$AXE" compile "$tmp/e1.axe" --target cuda >"$tmp/e1.cu" 2>&1
"$AXE" synth "$tmp/e1.axe" --target cuda >"$tmp/e1.txt" 2>&1
"$AXE" synth "$T/i4_colsrc_auto.axe" --target cuda --json >"$tmp/cs.json" 2>&1
got="$(count_cuda "$tmp/e1.cu")"
if [ "$got" = "13 0 0" ] &&
    grep -qF 'anchor copy#3: coalesced, 16-byte accesses (4 elements) in runs of 8 on 128 consecutive tx' "$tmp/e1.txt" &&
    grep -qF '"runner_up": "coalesced, 4-bit accesses (1 element) in runs of 1' "$tmp/cs.json" &&
    ! grep -qF '0-byte' "$tmp/cs.json"; then
    ok
else
    bad "extent-1 dim first or i4 access text: $got $(cat "$tmp/e1.txt" "$tmp/cs.json")"
fi
MR="$T/merge_rows_auto.axe"
run_json "$MR"
run_json "$MR" -D G=5 --seed 3
run_json "$MR" --target cuda --emulate
run_json "$MR" --target cuda --emulate -D G=5 --seed 3
"$AXE" synth "$MR" --target cuda >"$tmp/mr.txt" 2>&1
"$AXE" compile "$MR" --target cuda >"$tmp/mr.cu" 2>&1
got="$(count_cuda "$tmp/mr.cu") $(grep -c '^  anchor copy#[02]: coalesced, 16-byte accesses ([0-9]* elements) across dimensions' "$tmp/mr.txt")"
if [ "$got" = "6 0 0 2" ]; then
    ok
else
    bad "merge_rows_auto: memory, shuffles, ldmatrix per thread and 16-byte anchors across dimensions: $got"
fi
# An anchor whose memory rows are padded, tied to a store whose rows are
# contiguous (merge_others_auto.axe): the anchor's plain vectors stay
# inside a row (8-byte, cost 64; before, a 16-byte leaf of cost 32 that
# ran as 2 8-byte loads), and its tie counts the store's accesses across
# rows on each leaf's layout, so runs of 8 win as the anchor's own first
# leaf (before, only the whole-program count chose them, "in the
# program: ..."); 2 loads and 1 store per thread.
MO="$T/merge_others_auto.axe"
run_json "$MO"
run_json "$MO" --target cuda --emulate -D G=3 --seed 2
synth_json "$MO" --target cuda &&
    if grep -qF '"copy#0": {"chosen": "coalesced, 8-byte accesses (4 elements) in runs of 8 on 32 consecutive tx, 2 per thread", "cost": 64, "runner_up": "coalesced, 8-byte accesses (4 elements) in runs of 4 on 32 consecutive tx, 2 per thread"}' "$tmp/synth.json"; then
        ok
    else
        bad "merge_others_auto: the anchor's leaf and tie: $(cat "$tmp/synth.json")"
    fi
"$AXE" compile "$MO" --target cuda >"$tmp/mo.cu" 2>&1
got="$(count_cuda "$tmp/mo.cu")"
[ "$got" = "3 0 0" ] && ok || bad "merge_others_auto: memory, shuffles, ldmatrix per thread $got"
# A register fixed by a larger copy (compiler_synth_tied.c): bq and f of
# i4_ldsm_hexcute.axe 'auto', f anchored by its f32 store and bq tied to
# it by the cast. The tied copy#2 (bq from Bs)'s ldmatrix leaves are f's
# leaves too, and the search takes one (copy accesses 8704: 4 ldmatrix
# and 64 8-byte stores per thread, times 128): the hand-written kernel's
# counts (before: the coalesced leaf, 128 nibble loads from Bs and 32
# 16-byte stores into F per thread).
HT="$T/i4_ldsm_hexcute_tied_auto.axe"
run_json "$HT"
run_json "$HT" -D G=3 --seed 4
run_json "$HT" --target cuda --emulate
run_json "$HT" --target cuda --emulate -D G=3 --seed 4
if synth_json "$HT" --target cuda &&
    grep -qF '"copy#4": {"chosen": "ldmatrix.x4 from '"'Bs'"', 4 per thread, 16 wavefronts per warp, for copy#2; in the program: 0 rearranges, 8704 copy accesses, 768 register bytes per thread"' "$tmp/synth.json" &&
    grep -qF '"copy#2.load": {"chosen": "ldmatrix.x4"' "$tmp/synth.json"; then
    ok
else
    bad "i4_ldsm_hexcute_tied_auto: f not anchored on copy#2's ldmatrix leaf: $(cat "$tmp/synth.json")"
fi
got=""
for f in "$HT" "$T/i4_ldsm_hexcute.axe"; do
    "$AXE" compile "$f" --target cuda >"$tmp/cc.cu" 2>&1
    got="$got/ $(count_copy "$tmp/cc.cu") "
done
if [ "$got" = "/ 64 0 4 64 / 64 0 4 64 " ]; then
    ok
else
    bad "i4_ldsm_hexcute_tied_auto, i4_ldsm_hexcute: Bs stores, Bs loads, ldmatrix, F stores per thread: $got"
fi
# The same over regions Bs[k * 128 : +128, ...] of a tile of two
# (i4_ldsm_hexcute_cut_tied_auto.axe): the tied copy from a region adds
# its ldmatrix leaves too (before: whole tensors only, and f took the
# coalesced leaf, 128 256 0 64), the counts of the kernel with bq and f
# written as i4_ldsm_hexcute.axe's.
HC="$T/i4_ldsm_hexcute_cut_tied_auto.axe"
run_json "$HC"
run_json "$HC" -D G=3 --seed 4
run_json "$HC" --target cuda --emulate
run_json "$HC" --target cuda --emulate -D G=3 --seed 4
if synth_json "$HC" --target cuda &&
    grep -qF '"copy#4": {"chosen": "ldmatrix.x4 from '"'Bs'"', 4 per thread, 16 wavefronts per warp, for copy#2; in the program: 0 rearranges, 8704 copy accesses' "$tmp/synth.json" &&
    grep -qF '"copy#2.load": {"chosen": "ldmatrix.x4"' "$tmp/synth.json"; then
    ok
else
    bad "i4_ldsm_hexcute_cut_tied_auto: f not anchored on copy#2's ldmatrix leaf: $(cat "$tmp/synth.json")"
fi
hx='S[(4, 2, 2, 4, 2, 2, 4, 8, 2):(1@warpid, 64, 2, 1@laneid, 4, 32, 8, 4@laneid, 1)]'
sed -e "s/register bq: i4\[128, 128\] layout auto;/register bq: i4[128, 128] layout $hx;/" \
    -e "s/register f: f32\[128, 128\] layout auto;/register f: f32[128, 128] layout $hx;/" \
    "$HC" >"$tmp/hx_cut.axe"
got=""
for f in "$HC" "$tmp/hx_cut.axe"; do
    "$AXE" compile "$f" --target cuda >"$tmp/cc.cu" 2>&1
    got="$got/ $(count_copy "$tmp/cc.cu") "
done
if [ "$got" = "/ 128 0 8 128 / 128 0 8 128 " ] && ! grep -q "layout auto;" "$tmp/hx_cut.axe"; then
    ok
else
    bad "i4_ldsm_hexcute_cut_tied_auto, written twin: Bs stores, Bs loads, ldmatrix, F stores per thread: $got"
fi
# The twin with Bs auto too (docs/compiler.md, "ldmatrix leaves"): Bs
# takes the row-major Swizzle<5,2,3> tile and f the coalesced leaf of
# 16-byte stores into F: 4 stores into Bs, 4 loads from Bs, 32 stores
# into F and X's 4 loads per thread (44), against Hexcute's tile's 64,
# 4 ldmatrix.x4, 64 and 4 (136, the rows above). With f written as
# i4_ldsm_hexcute.axe's (bq auto), bq takes f's layout and Bs Hexcute's
# tile swizzled, at the hand-written kernel's counts.
sed -e 's/shared Bs: i4\[128, 128\] layout S\[[^]]*\];/shared Bs: i4[128, 128] layout auto;/' \
    "$HT" >"$tmp/ht_bs.axe"
sed -e "s/register f: f32\[128, 128\] layout auto;/register f: f32[128, 128] layout $hx;/" \
    "$tmp/ht_bs.axe" >"$tmp/ht_f.axe"
same "$tmp/ht_bs.axe" Bs "Swizzle<5,2,3>(S[(128, 128):(128, 1)])" --target cuda
same "$tmp/ht_f.axe" Bs "Swizzle<5,1,6>(S[(8, 2, 8, 64, 2):(2048, 2, 4, 32, 1)])" --target cuda
same "$tmp/ht_f.axe" bq "$hx" --target cuda
got=""
for f in ht_bs ht_f; do
    "$AXE" compile "$tmp/$f.axe" --target cuda >"$tmp/cc.cu" 2>&1
    got="$got/ $(count_copy "$tmp/cc.cu") $(kernel_count "$tmp/cc.cu" 'shared memory is zero' 'AXE_LDV?\(([\w ]+, )?t_X\b') "
done
if [ "$got" = "/ 4 4 0 32 4 / 64 0 4 64 4 " ] && grep -q "f32\[128, 128\] layout S\[" "$tmp/ht_f.axe"; then
    ok
else
    bad "i4_ldsm_hexcute_tied_auto, Bs auto; and f written: Bs stores, Bs loads, ldmatrix, F stores, X loads per thread: $got"
fi
# A tile of 8 x 8 blocks (each dimension two iters): the coalesced leaf
# sees the 16-byte vectors inside the blocks (4 loads per thread, as the
# plan moves them), so the plain ldmatrix leaf (4 ldmatrix, then 4-byte
# stores) does not win by a count the code does not have.
sed -e 's/ldsm_f16_transpose_auto(X: f16\[32, N\],/blocks(X: f16[64, N],/' \
    -e 's/F: f16\[32, N\] layout S\[(32, N):(1, 32)\])/F: f16[64, N])/' \
    -e 's/s: f16\[32, 64\] layout .*;/s: f16[64, 64] layout S[(8, 8, 8, 8):(512, 8, 64, 1)];/' \
    -e 's/q: f16\[32, 64\]/q: f16[64, 64]/' -e 's/\[0 : 32, /[0 : 64, /' \
    "$LT" >"$tmp/blocks.axe"
if synth_json "$tmp/blocks.axe" --target cuda &&
    grep -qF '"copy#1": {"chosen": "coalesced, 16-byte accesses (8 elements) in runs of 8 on 128 consecutive tx, 4 per thread", "cost": 512,' "$tmp/synth.json"; then
    ok
else
    bad "blocks: the coalesced leaf: $(cat "$tmp/synth.json")"
fi
run_json "$tmp/blocks.axe" --target cuda --emulate
# Shared candidates from ldmatrix.trans rows (ldsm_f16_trans_rows_auto.axe):
# q's .trans rows are 16 bytes along n's digit a (n = 8 a + b), which no
# placeholder puts at stride 1. Per thread, from the tile: 32 x 64 f16
# over 128 threads = 16 f16 = 8 words = 2 ldmatrix.x4.trans (4
# wavefronts each on 1 way: cost 8 + 2), the tile filled by 256 16-byte
# cp.async (2 per thread, in one loop of 256 by 128), then 16 2-byte
# stores into F and the tile's zeroing store. Before: Swizzle<1,3,5>(S[(16,
# 2,64):(128,1,2)]), no cp.async and no ldmatrix ("27 0 0").
LR="$T/ldsm_f16_trans_rows_auto.axe"
run_json "$LR"
run_json "$LR" -D N=192 --seed 7
run_json "$LR" --target cuda --emulate
run_json "$LR" -D N=192 --target cuda --emulate --seed 7
same "$LR" s "Swizzle<3, 3, 3>(S[(32, 8, 8):(64, 1, 8)])" --target cuda
if grep -qF '"copy#1.load": {"chosen": "ldmatrix.x4.trans", "cost": 10' "$tmp/synth.json"; then
    ok
else
    bad "ldsm_f16_trans_rows_auto: not ldmatrix.x4.trans at cost 10: $(head -c 600 "$tmp/synth.json")"
fi
"$AXE" compile "$LR" --target cuda >"$tmp/lr.cu" 2>&1
got="$(count_cuda "$tmp/lr.cu") $(grep -c 'axe_ptx_cp_async_cg16(AXE_AT(t_s' "$tmp/lr.cu") $(grep -c 'ax_u < 256L; ax_u += 128L' "$tmp/lr.cu")"
if [ "$got" = "17 0 2 1 1" ]; then
    ok
else
    bad "ldsm_f16_trans_rows_auto: memory, shuffles, ldmatrix per thread, cp.async lines, 2-trip loop: $got"
fi

# The same tile read at warpgroup scope (ldsm_f16_trans_rows_wg_auto.axe:
# q's warps on wid_in_wg): the rows are read off q's layout at the copy's
# scope, so s is X's block again, with the CTA kernel's counts (before:
# no rows from wid_in_wg, Swizzle<1,5,5>(S[(32,64):(1,32)]) and no
# ldmatrix, "27 0 0"). Its CTA twin on 256 threads (q's last digit on
# wgid: a warpgroup is 4 warps) likewise ("15 0 0" before), and
# ldsm_f16_trans_auto.axe read at warpgroup scope: its .trans rows, 2
# ways on Swizzle<3,2,4> (chosen on the per-thread loads before), 1 on
# Swizzle<3,3,3> (cost 18 before); the copies' ldmatrix.trans costs 10, 5
# (one instruction per thread on 256 threads) and 10.
LG="$T/ldsm_f16_trans_rows_wg_auto.axe"
run_json "$LG"
run_json "$LG" -D N=192 --seed 7
run_json "$LG" --target cuda --emulate
run_json "$LG" -D N=192 --target cuda --emulate --seed 7
same "$LG" s "Swizzle<3, 3, 3>(S[(32, 8, 8):(64, 1, 8)])" --target cuda
sed -e 's/threads(128)/threads(256)/' -e 's/1@wid_in_wg, 8)/1@wid_in_wg, 1@wgid)/' \
    -e 's/warpgroup copy/cta copy/' "$LG" >"$tmp/wgid.axe"
sed -e 's/1@warpid/1@wid_in_wg/' -e 's/cta copy(q, s)/warpgroup copy(q, s)/' \
    -e 's/cta copy(F\[/warpgroup copy(F[/' "$T/ldsm_f16_trans_auto.axe" >"$tmp/trans_wg.axe"
run_json "$tmp/wgid.axe" --target cuda --emulate
run_json "$tmp/trans_wg.axe" --target cuda --emulate
same "$tmp/wgid.axe" s "Swizzle<3, 3, 3>(S[(32, 8, 8):(64, 1, 8)])" --target cuda
same "$tmp/trans_wg.axe" s "Swizzle<3, 3, 3>(S[(32, 64):(64, 1)])" --target cuda
got=""
for f in "$LG" "$tmp/wgid.axe" "$tmp/trans_wg.axe"; do
    "$AXE" compile "$f" --target cuda >"$tmp/lg.cu" 2>&1
    "$AXE" synth "$f" --target cuda --json >"$tmp/lg.json" 2>&1
    got="$got/ $(count_cuda "$tmp/lg.cu") $(grep -o '"copy#1.load": {"chosen": "ldmatrix.x4.trans", "cost": [0-9]*' "$tmp/lg.json" | grep -o '[0-9]*$') "
done
if [ "$got" = "/ 17 0 2 10 / 9 0 1 5 / 17 0 2 10 " ] && grep -q "1@wgid" "$tmp/wgid.axe" &&
    grep -q "warpgroup copy(q, s)" "$tmp/trans_wg.axe"; then
    ok
else
    bad "warpgroup rows: memory, shuffles, ldmatrix per thread, ldmatrix.trans cost: wg, wgid, trans_wg: $got"
fi

# Why no ldmatrix leaf (ldsm_why_auto.axe): three copy anchors from
# shared memory into auto registers, each stopped by another condition
# of the leaf generator, and a tied copy (copy#9, under the anchor
# copy#11 of its class); `axe synth` and --explain say which, the JSON
# does not.
LY="$T/ldsm_why_auto.axe"
"$AXE" synth "$LY" >"$tmp/why.txt" 2>&1
for want in \
    "  no ldmatrix leaf for copy#3 ('a'): the swizzle of 'A' breaks its 16-byte rows (it moves runs of 4 elements, a row is 8)" \
    "  no ldmatrix leaf for copy#4 ('q'): none of the 8 register layouts dealt over the iters of 'P' meets ldmatrix's conditions (words of 16-byte rows on 16-byte starts)" \
    "  no ldmatrix leaf for copy#5 ('r'): its region of 'R' is not whole iters of dim 1 starting on a 16-byte row (length 32)" \
    "  no ldmatrix leaf for copy#9 ('u'): the swizzle of 'A' breaks its 16-byte rows (it moves runs of 4 elements, a row is 8)"; do
    if grep -qxF -- "$want" "$tmp/why.txt"; then
        ok
    else
        bad "ldsm_why_auto: axe synth lacks '$want': $(head -c 1500 "$tmp/why.txt")"
    fi
done
"$AXE" compile "$LY" --target cuda --explain >"$tmp/why.explain" 2>&1
"$AXE" synth "$LY" --json --target cuda >"$tmp/why.json" 2>&1
if grep -qxF "  synthesis: no ldmatrix leaf for copy#5 ('r'): its region of 'R' is not whole iters of dim 1 starting on a 16-byte row (length 32)" "$tmp/why.explain" &&
    [ "$(grep -c '^  synthesis: no ldmatrix leaf for copy#' "$tmp/why.explain")" = 4 ] &&
    grep -qF '"copy#5": {"chosen": "coalesced' "$tmp/why.json" &&
    ! grep -q 'ldmatrix leaf' "$tmp/why.json"; then
    ok
else
    bad "ldsm_why_auto: --explain's four reasons, none in the JSON: $(grep 'ldmatrix leaf' "$tmp/why.explain" "$tmp/why.json" | head -c 1200)"
fi
# The copies from A move vectors only inside the 4-element runs its
# Swizzle<2,3,3> keeps (the emitted 8-byte loads): a and u count two
# 8-byte loads per thread each (not one 16-byte load), so w's runs of 8
# no longer win the tie on u's count and w (and u) take runs of 4: the
# same memory instructions per thread (15, counted in the emitted CUDA),
# u's reads of A 1 way instead of 2 (the bank model's record, before
# and after A's swizzle: 2 2 on main), FW's stores 128 sectors instead
# of 256 (axe__synth_copy_sectors).
"$AXE" compile "$LY" --target cuda >"$tmp/why.cu" 2>&1
if grep -qF '{"op": "copy#9", "tensor": "A", "ways_before": 1, "ways_after": 1}' "$tmp/why.json" &&
    grep -qF '"copy#11": {"chosen": "coalesced, 16-byte accesses (4 elements) in runs of 4 on 128 consecutive tx, 2 per thread"' "$tmp/why.json" &&
    grep -qF '"copy#3": {"chosen": "coalesced, 8-byte accesses (4 elements) in runs of 8 on 128 consecutive tx, 2 per thread"' "$tmp/why.json" &&
    [ "$(count_cuda "$tmp/why.cu")" = "15 0 0" ]; then
    ok
else
    bad "ldsm_why_auto: u and w in runs of 4, u's reads 1 way, 15 memory instructions per thread: $(count_cuda "$tmp/why.cu") $(head -c 1500 "$tmp/why.json")"
fi
# An anchor with no ldmatrix leaf of its own whose tied copy (v from the
# unswizzled B, tied by the add) gives some: the line says "of its own",
# so it does not read against an ldmatrix leaf of the class.
cat >"$tmp/own.axe" <<'AXE'
kernel own(X: f16[16, 64], F: f16[16, 64]) grid(1) threads(128)
{
    shared A: f16[16, 64] layout Swizzle<2, 3, 3>(S[(16, 64):(64, 1)]);
    shared B: f16[16, 64];
    register a: f16[16, 64] layout auto;
    register v: f16[16, 64] layout auto;
    cta copy(A, X);
    cta copy(B, X);
    sync;
    cta copy(a, A);
    cta copy(v, B);
    cta add(a, a, v);
    cta copy(F, a);
}
AXE
"$AXE" synth "$tmp/own.axe" >"$tmp/own.txt" 2>&1
if grep -qxF "  no ldmatrix leaf of its own for copy#2 ('a'): the swizzle of 'A' breaks its 16-byte rows (it moves runs of 4 elements, a row is 8)" "$tmp/own.txt"; then
    ok
else
    bad "own: axe synth's line: $(grep 'ldmatrix' "$tmp/own.txt")"
fi

# More reasons (ldsm_why2_auto.axe): a leaf generator's reason each for
# b, d, e; for h, whose every ldmatrix leaf the store-byte rule drops
# (before: no line); and the shared synthesis's reasons for T and U
# (before: none). The generator's other reasons: the CTA of 48 threads
# and 128 32-bit words per thread (one warp reads f16[64, 128]).
LZ="$T/ldsm_why2_auto.axe"
run_json "$LZ"
run_json "$LZ" --target cuda --emulate
"$AXE" synth "$LZ" >"$tmp/why2.txt" 2>&1
"$AXE" compile "$LZ" --target cuda --explain >"$tmp/why2.explain" 2>&1
for want in \
    "  no ldmatrix leaf for copy#6 ('b'): 'B' has 32-bit elements (ldmatrix moves 4-, 8- or 16-bit ones)" \
    "  no ldmatrix leaf for copy#7 ('d'): it reads a view, a broadcast or a masked region of 'A'" \
    "  no ldmatrix leaf for copy#8 ('e'): its 64 elements are not whole 32-bit words (2 elements) on each of the cta's 128 threads" \
    "  no ldmatrix leaf for copy#9 ('h'): each of its 3 ldmatrix leaves splits a byte of the packed i4 'FH' that its class stores (the store-byte rule: both nibbles of a byte from one thread)" \
    "  no ldmatrix rows from copy#11 ('r'): the register layout S[(16,8,8):(8@tx,1@tx,1)] makes no ldmatrix rows of 'T' (replicas, offsets, a swizzle, an axis other than laneid, m and the warps, or words that make no 16-byte row)" \
    "  no ldmatrix rows from copy#17 ('u'): it reads a region, a view or a broadcast of 'U' (rows come from a copy of the whole tensor)"; do
    if grep -qxF -- "$want" "$tmp/why2.txt"; then
        ok
    else
        bad "ldsm_why2_auto: axe synth lacks '$want': $(grep 'ldmatrix' "$tmp/why2.txt" | head -c 1500)"
    fi
done
if grep -qxF "  synthesis: no ldmatrix leaf for copy#9 ('h'): each of its 3 ldmatrix leaves splits a byte of the packed i4 'FH' that its class stores (the store-byte rule: both nibbles of a byte from one thread)" "$tmp/why2.explain"; then
    ok
else
    bad "ldsm_why2_auto: --explain lacks the store-byte reason: $(grep 'ldmatrix' "$tmp/why2.explain" | head -c 800)"
fi
# ... and where the anchor (the f32 store of g) has no ldmatrix leaf of
# its own and its tied copies h and h2 have 3 each, the reason names h
# and counts h's 3 (before: "each of its 6", all tied copies' leaves)
cat >"$tmp/tied6.axe" <<'AXE'
kernel tied6(X: f16[16, 64], FH: i4[16, 64], FG: f32[16, 64]) grid(1) threads(128)
{
    shared H: f16[16, 64] layout S[(16, 32, 2):(64, 1, 32)];
    shared H2: f16[16, 64] layout S[(16, 32, 2):(64, 1, 32)];
    register h: f16[16, 64] layout auto;
    register h2: f16[16, 64] layout auto;
    register hs: f16[16, 64] layout auto;
    register hi: i4[16, 64] layout auto;
    register g: f32[16, 64] layout auto;
    cta copy(H, X);
    cta copy(H2, X);
    sync;
    cta copy(h, H);
    cta copy(h2, H2);
    cta add(hs, h, h2);
    cta cast(hi, hs);
    cta cast(g, hs);
    cta copy(FH, hi);
    cta copy(FG, g);
}
AXE
if "$AXE" synth "$tmp/tied6.axe" >"$tmp/tied6.txt" 2>&1 &&
    grep -qxF "  no ldmatrix leaf for copy#2 ('h'): each of its 3 ldmatrix leaves splits a byte of the packed i4 'FH' that its class stores (the store-byte rule: both nibbles of a byte from one thread)" "$tmp/tied6.txt"; then
    ok
else
    bad "tied6: axe synth lacks h's 3 leaves: $(grep 'ldmatrix' "$tmp/tied6.txt" | head -c 800)"
fi
cat >"$tmp/w48.axe" <<'AXE'
kernel w48(X: f16[16, 48], F: f16[16, 48]) grid(1) threads(48)
{
    shared A: f16[16, 48];
    register a: f16[16, 48] layout auto;
    cta copy(A, X);
    sync;
    cta copy(a, A);
    cta copy(F, a);
}
AXE
cat >"$tmp/w128.axe" <<'AXE'
kernel w128(X: f16[64, 128], F: f16[64, 128]) grid(1) threads(32)
{
    shared A: f16[64, 128];
    register a: f16[64, 128] layout auto;
    cta copy(A, X);
    sync;
    cta copy(a, A);
    cta copy(F, a);
}
AXE
for f in w48 w128; do
    run_json "$tmp/$f.axe"
    run_json "$tmp/$f.axe" --target cuda --emulate
done
"$AXE" synth "$tmp/w48.axe" >"$tmp/w48.txt" 2>&1
"$AXE" synth "$tmp/w128.axe" >"$tmp/w128.txt" 2>&1
if grep -qxF "  no ldmatrix leaf for copy#1 ('a'): the cta's 48 threads are not whole warps" "$tmp/w48.txt" &&
    grep -qxF "  no ldmatrix leaf for copy#1 ('a'): 128 32-bit words per thread, more than an ldmatrix copy's 64" "$tmp/w128.txt"; then
    ok
else
    bad "w48, w128: the reasons: $(grep ldmatrix "$tmp/w48.txt" "$tmp/w128.txt")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
