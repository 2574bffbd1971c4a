#!/usr/bin/env bash
# Benchmark (not a test): generated C against hand-written C on 64 MiB f32
# tensors (4096 x 4096): (a) a contiguous 2-D copy against memcpy, (b) the
# shared-memory transpose of examples/kernels/transpose.axe against a 32 x 32
# cache-blocked transpose. Prints throughputs and the ratio (target >= 0.8).
#   bash bench/kernels/bench_kernels.sh [AXE_BINARY]   (default build/dev/axe)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
axe=$(realpath "${1:-$root/build/dev/axe}")
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$axe" compile "$here/copy2d.axe" -D M=4096 -D N=4096 >"$tmp/copy2d.c"
"$axe" compile "$root/examples/kernels/transpose.axe" -D M=4096 -D N=4096 \
    >"$tmp/transpose.c"
for k in copy2d transpose; do
    $cc -std=c99 -O2 -DKERNEL_FILE="\"$tmp/$k.c\"" -DKERNEL="k_$k" \
        -DBENCH_M=4096 -DBENCH_N=4096 -o "$tmp/$k" "$here/bench_main.c"
done
"$tmp/copy2d" copy
"$tmp/transpose" transpose
