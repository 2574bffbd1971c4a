#!/usr/bin/env bash
# Benchmark (not a test): generated C against hand-written C on 64 MiB f32
# tensors (4096 x 4096): (a) a contiguous 2-D copy against memcpy, (b) the
# shared-memory transpose of examples/kernels/transpose.axe against a 32 x 32
# cache-blocked transpose (target >= 0.8), (c) the tiled SGEMM of
# examples/kernels/gemm.axe at 384^3 against a naive ikj loop (target >= 1)
# and OpenBLAS (libopenblas-dev, installed with apt-get when missing and
# the script runs as root; skipped when it cannot be had). Prints
# throughputs and the ratios (generated / other).
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

# SGEMM: OpenBLAS when its header and library link (installed if missing).
have_blas() {
    printf '#include <cblas.h>\nint main(void) { return 0; }\n' >"$tmp/b.c" &&
        $cc -o "$tmp/b" "$tmp/b.c" $(pkg-config --cflags --libs openblas \
            2>/dev/null || echo -lopenblas) >/dev/null 2>&1
}
if ! have_blas && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq libopenblas-dev >/dev/null 2>&1 || true
fi
blas=()
if have_blas; then
    # shellcheck disable=SC2207
    blas=(-DHAVE_OPENBLAS $(pkg-config --cflags --libs openblas 2>/dev/null ||
        echo -lopenblas))
else
    echo "OpenBLAS not available (libopenblas-dev): its column is skipped"
fi
"$axe" compile "$root/examples/kernels/gemm.axe" -D M=384 -D N=384 -D K=384 \
    >"$tmp/gemm.c"
$cc -std=c99 -O2 -falign-loops=32 -DKERNEL_FILE="\"$tmp/gemm.c\"" \
    -DBENCH_M=384 -DBENCH_N=384 \
    -DBENCH_K=384 -o "$tmp/sgemm" "$here/bench_gemm.c" "${blas[@]}" -lm
OPENBLAS_NUM_THREADS=1 "$tmp/sgemm" # one thread, as the generated C
