#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark (not a test) of the accelerator model's simulated cycles
# (docs/bench.md, "The accelerator model"; docs/compiler.md, "The
# accelerator model"). Each kernel is compiled with --target trn-sim, built
# with its harness (-DAXE_KERNEL_MAIN) and run once on zero inputs (the
# cycles do not depend on the values), which prints the simulator's
# "axe-trn-cycles" and per-engine lines.
#   (a) GEMM at several sizes (examples/kernels/trn_gemm.axe) against
#       the instruction-count peak: the TensorEngine's busy cycles (each
#       matmul's cycles from the model, matmul_fixed_cycles + N), the
#       lower bound of any schedule of those matmuls; ratio = peak /
#       cycles. Also the DMA-in bound (its busy cycles).
#   (b) attention with and without its software pipeline
#       (examples/kernels/trn_attention.axe against
#       trn_attention_serial.axe) at two sizes, through `axe run --json`.
#   (c) tests/kernels/trn_sim_double.axe (two pairs of SBUF tiles)
#       against trn_sim_serial.axe (one pair), the same instructions.
#   bash bench/trn/bench_trn.sh [AXE_BINARY] [SIZES...]
#   (default build/dev/axe; sizes 256 512 1024; 2048 takes minutes)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
axe=$(realpath "${1:-$root/build/dev/axe}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(256 512 1024)
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME FILE BYTES ARGS...: compile, build, run; the simulator's lines
# into $tmp/NAME.err.
run() {
    local name=$1 file=$2 bytes=$3
    shift 3
    "$axe" compile "$file" --target trn-sim "$@" >"$tmp/$name.c"
    $cc -std=c99 -O2 -DAXE_KERNEL_MAIN -I"$root/src/compiler/backend/trn" \
        -o "$tmp/$name" "$tmp/$name.c" -lm
    head -c "$bytes" /dev/zero >"$tmp/$name.in"
    "$tmp/$name" "$tmp/$name.in" "$tmp/$name.out" 1 >/dev/null \
        2>"$tmp/$name.err"
}
cycles() { awk '$1 == "axe-trn-cycles" { print $2 }' "$tmp/$1.err"; }
busy() { awk -v e="$2" '$1 == "axe-trn-engine" && $2 == e { print $4 }' \
    "$tmp/$1.err"; }
count() { awk -v e="$2" '$1 == "axe-trn-engine" && $2 == e { print $3 }' \
    "$tmp/$1.err"; }

echo "(a) GEMM (trn_gemm.axe), f16 in, f32 in PSUM: simulated cycles"
printf '%-16s %8s %10s %12s %10s %12s\n' "M=N=K (TN)" matmuls cycles \
    "TensorE peak" ratio "DMA-in busy"
for s in "${sizes[@]}"; do
    tn=$((s < 512 ? s : 512))
    run "g$s" "$root/examples/kernels/trn_gemm.axe" $((8 * s * s)) \
        -D M="$s" -D N="$s" -D K="$s" -D TN="$tn"
    c=$(cycles "g$s")
    p=$(busy "g$s" tensor)
    printf '%-16s %8s %10s %12s %10s %12s\n' "$s ($tn)" "$(count "g$s" tensor)" \
        "$c" "$p" "$(awk -v p="$p" -v c="$c" 'BEGIN { printf "%.3f", p / c }')" \
        "$(busy "g$s" dma_in)"
done

# json_cycles FILE ARGS...: the simulated cycles of `axe run --json`.
json_cycles() {
    "$axe" run "$@" --target trn-sim --json |
        sed -n 's/.*"cycles":\([0-9]*\).*/\1/p'
}
echo "(b) attention (one head), pipelined against serial: simulated cycles"
printf '%-22s %10s %10s %8s\n' "SEQ D KV" pipelined serial ratio
for cfg in "256 64 128" "384 128 64"; do
    read -r q d kv <<<"$cfg"
    set -- -D SEQ="$q" -D D="$d" -D KV="$kv"
    p=$(json_cycles "$root/examples/kernels/trn_attention.axe" "$@")
    s=$(json_cycles "$root/examples/kernels/trn_attention_serial.axe" "$@")
    printf '%-22s %10s %10s %8s\n' "$cfg" "$p" "$s" \
        "$(awk -v p="$p" -v s="$s" 'BEGIN { printf "%.3f", s / p }')"
done

echo "(c) software pipeline: the same GEMM through one or two pairs of SBUF tiles"
run serial "$root/tests/kernels/trn_sim_serial.axe" $((2 * 65536 * 2 + 16384 * 4))
run double "$root/tests/kernels/trn_sim_double.axe" $((2 * 65536 * 2 + 16384 * 4))
s=$(cycles serial)
d=$(cycles double)
printf '%-24s %10s\n' "trn_sim_serial.axe" "$s" "trn_sim_double.axe" "$d"
awk -v s="$s" -v d="$d" 'BEGIN { printf "serial / pipelined: %.3f\n", s / d }'
