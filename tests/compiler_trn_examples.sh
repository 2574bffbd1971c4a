#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The accelerator model's example kernels (docs/compiler.md, "The
# accelerator model"; issue 16 §4), trn_gemm.axe, trn_attention.axe and
# trn_attention_serial.axe, through the CLI ($AXE_BIN): each runs
# with `axe run --check --json` at the sizes the issue names, on the c
# target and on trn-sim (every operator an engine instruction), compared
# element by element with the reference (exactly: the engine schedules
# keep the reference's order of operations), and its gemms run as
# TensorEngine matmuls (gemm.tensor_engine on the tiles of
# multi-buffered scratchpads), its softmax on the vector and scalar
# engines, P's transpose as copy.transpose and V's view by DMA, not on
# the per-element fallback. Apart
# from tests/compiler_kernels.sh because the reference takes minutes at
# these sizes. Skipped (77) without a C compiler. The last line is
# "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"
kernel_counts
K="$SRC/examples/kernels"

# json_run FILE WANT ARGS...: `axe run FILE --check --json ARGS` prints
# one object that passes exactly, and whose schedules include each JSON
# fragment of the space-separated WANT ("gemm":"tensor_engine" ...).
json_run() {
    local f=$1 want=$2 w miss=""
    shift 2
    if "$AXE" run "$K/$f" --check --json "$@" >"$tmp/out" 2>"$tmp/err"; then
        for w in $want; do
            grep -qF "$w" "$tmp/out" || miss="$miss $w"
        done
    fi
    if [ -s "$tmp/out" ] && [ -z "$miss" ] && [ "$(wc -l <"$tmp/out")" = 1 ] &&
        grep -q '"max_abs_err":0,"max_rel_err":0,"pass":true' "$tmp/out"; then
        ok
    else
        bad "axe run $f --check --json $*: $(cat "$tmp/out" "$tmp/err" | head -c 600)"
    fi
}

# The GEMM: f16 in, f32 accumulated in PSUM, double-buffered SBUF tiles
# and PSUM banks, at M = N = K = 512 (c) and 640 (N tiles of 320 there;
# trn-sim, the accumulator started by fill.vector).
json_run trn_gemm.axe '"gemm":"tensor_engine"'
json_run trn_gemm.axe '"target":"trn-sim" "fill":"vector" "gemm":"tensor_engine" "cycles":' \
    --target trn-sim
json_run trn_gemm.axe '"target":"trn-sim" "fill":"vector" "gemm":"tensor_engine" "cycles":' \
    -D M=640 -D N=640 -D K=640 -D TN=320 --seed 3 --target trn-sim
# Its gemm is forced too: a fallback would be an error, not a slow pass.
if "$AXE" compile "$K/trn_gemm.axe" --schedule gemm=tensor_engine \
    -D M=640 -D N=640 -D K=640 -D TN=320 >/dev/null 2>"$tmp/err"; then
    ok
else
    bad "trn_gemm.axe at 640: gemm=tensor_engine refused: $(head -c 400 "$tmp/err")"
fi

# One attention head (QK^T, the online softmax along F, the transpose of
# P, P V) with its software pipeline and double buffers, at two sizes,
# all three gemms on the TensorEngine; and its non-pipelined twin.
att='"gemm":"tensor_engine" "gemm#13":"tensor_engine" "gemm#29":"tensor_engine"'
sim='"target":"trn-sim" "copy#7":"dma" "reduce":"vector" "exp":"scalar" "cycles":'
json_run trn_attention.axe "$att $sim \"copy#26\":\"transpose\"" --target trn-sim
json_run trn_attention.axe "$att" -D SEQ=384 -D D=128 -D KV=64 --seed 5
json_run trn_attention.axe "$att $sim" -D SEQ=384 -D D=128 -D KV=64 --seed 5 \
    --target trn-sim
json_run trn_attention_serial.axe "\"gemm\":\"tensor_engine\" $sim" \
    -D SEQ=384 -D D=128 -D KV=64 --seed 5 --target trn-sim
json_run trn_attention_serial.axe "\"gemm\":\"tensor_engine\" \"gemm#25\":\"tensor_engine\" $sim \"copy#22\":\"transpose\"" \
    --target trn-sim

# Under trn-sim the simulator adds each region's origin (from the loop
# variables) to the plan's addresses: trn_gemm.axe's loops with the
# accumulator started by copies (tests/kernels/trn_sim_regions.axe).
if "$AXE" run "$SRC/tests/kernels/trn_sim_regions.axe" --target trn-sim \
    --check --json >"$tmp/out" 2>"$tmp/err" &&
    grep -q '"gemm":"tensor_engine","copy#5":"vector","copy#6":"dma"},"max_abs_err":0,"max_rel_err":0,"pass":true' "$tmp/out" &&
    grep -q '"tensor":{"instructions":12,' "$tmp/out"; then
    ok
else
    bad "trn_sim_regions.axe --target trn-sim: $(cat "$tmp/out" "$tmp/err" | head -c 600)"
fi

# --explain gives each region with its starts and origin (step 0).
if "$AXE" compile "$K/trn_gemm.axe" --explain >"$tmp/out" 2>&1 &&
    grep -qF '    step 0 regions: A a[ki % 2 * 128 : +128, 0 : +128] (2 x 1 starts), origin 0 + 128 * ((ki % 2 * 128) / 128); B b[ki % 2 * 512 : +512, 0 : +128] (2 x 1 starts), origin 0 + 512 * ((ki % 2 * 512) / 512); C c[t % 2 * 128 : +128, 0 : +512] (2 x 1 starts), origin 0 + 512 * ((t % 2 * 128) / 128);' "$tmp/out"; then
    ok
else
    bad "trn_gemm.axe --explain step 0: $(grep -A3 'core gemm' "$tmp/out" | head -c 600)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
