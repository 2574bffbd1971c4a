#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/dist (docs/bench.md, "Distributed exchanges"): builds
# bench/dist/dist_bench.c with mpicc -O2 against the MPI runtime of
# --target mpi and runs it under mpirun at each rank count of RANKS
# (default "1 2 4 8") up to MAX_BYTES (default 64 MiB) of logical tensor,
# sizes growing by FACTOR (default 4).
# A benchmark, not a test: it prints a table and checks only that the
# generated exchange and the hand-written one produce the same buffers.
# The reduce cases run a second time from a build with
# -DAXE_MPI_UNORDERED (the runtime then calls MPI's own reductions: its
# default sums f32 in the reference's order; docs/compiler.md, "The MPI
# backend", exactness).
# Then (c), GEMM + reduce-scatter with and without overlap:
# bench/dist/gemm_rs.sh (needs the axe CLI: AXE, default build/dev/axe;
# GEMM_RS=0 skips it).
#   bash bench/dist/run.sh [MAX_BYTES [FACTOR]]
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
max=${1:-67108864}
factor=${2:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -std=c11 -O2 -I"$SRC/src/compiler/backend/mpi" \
    "$SRC/bench/dist/dist_bench.c" -o "$tmp/dist_bench"
mpicc -std=c11 -O2 -DAXE_MPI_UNORDERED -I"$SRC/src/compiler/backend/mpi" \
    "$SRC/bench/dist/dist_bench.c" -o "$tmp/dist_bench_unordered"
args=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(mpirun --version | head -1)"
for n in ${RANKS:-1 2 4 8}; do
    mpirun "${args[@]}" -np "$n" "$tmp/dist_bench" "$max" "$factor"
    mpirun "${args[@]}" -np "$n" "$tmp/dist_bench_unordered" "$max" "$factor" reduce
done
if [ "${GEMM_RS:-1}" != 0 ]; then
    bash "$SRC/bench/dist/gemm_rs.sh"
fi
