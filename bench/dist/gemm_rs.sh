#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# bench/dist (c) (docs/bench.md, "Distributed exchanges"): GEMM +
# reduce-scatter, the generated code of `device gemm` three ways, at each
# rank count of RANKS (default "1 2 4 8") and size of SIZES ("M,N,K"
# triples, f32; M divisible by P):
#   whole    examples/kernels/dist/matmul_rs_dev.axe: the local GEMM, then
#            the runtime's ordered reduce-scatter of the partial sums
#            (MPI_Alltoall, summed in slice order; before stop 22
#            MPI_Reduce_scatter_block);
#   ordered  matmul_rs_overlap.axe -D CH=1: the local GEMM, then the
#            partials exchanged with MPI_Isend/MPI_Irecv and summed in the
#            order of K's slices (exact), not overlapped;
#   overlap  matmul_rs_overlap.axe -D CH=$CH (default 4): the same in CH
#            chunks, chunk i+1 computed while chunk i is in flight.
# Each time is the slowest rank's microseconds per call, best of 5 (see
# gemm_rs_bench.c); ordered and overlap must leave the same C, bit for
# bit (their hashes are compared: a mismatch fails the script).
# A benchmark, not a test.
#   bash bench/dist/gemm_rs.sh            # AXE=path/to/axe to choose
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
AXE=${AXE:-$SRC/build/dev/axe}
CH=${CH:-4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && args+=(--allow-run-as-root)
cp "$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h" "$tmp/"
# build NAME FILE KERNEL P M N K [-D CH=N]: the generated .c and its driver.
build() {
    local name=$1 file=$2 kernel=$3 p=$4 m=$5 n=$6 k=$7
    shift 7
    "$AXE" compile "$SRC/examples/kernels/dist/$file" --target mpi \
        -D "P=$p" -D "M=$m" -D "N=$n" -D "K=$k" "$@" -o "$tmp/$name.c"
    mpicc -std=c11 -O2 -I"$tmp" -DAXE_GEN="\"$tmp/$name.c\"" \
        -DKERNEL="k_$kernel" -DALOC="$((m * k / p))L" -DBLOC="$((n * k / p))L" \
        -DCLOC="$((m * n / p))L" "$SRC/bench/dist/gemm_rs_bench.c" \
        -o "$tmp/$name" -lm
}
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(mpirun --version | head -1)"
echo "# case ranks M N K whole_us ordered_us overlap_us(CH=$CH) ordered/overlap"
for p in ${RANKS:-1 2 4 8}; do
    for size in ${SIZES:-128,128,128 256,256,256 512,512,256}; do
        IFS=, read -r m n k <<<"$size"
        build whole matmul_rs_dev.axe dist_matmul_rs_dev "$p" "$m" "$n" "$k"
        build ordered matmul_rs_overlap.axe dist_matmul_rs_overlap "$p" "$m" "$n" "$k" -D CH=1
        build overlap matmul_rs_overlap.axe dist_matmul_rs_overlap "$p" "$m" "$n" "$k" -D "CH=$CH"
        read -r tw _ < <(mpirun "${args[@]}" -np "$p" "$tmp/whole")
        read -r to ho < <(mpirun "${args[@]}" -np "$p" "$tmp/ordered")
        read -r tv hv < <(mpirun "${args[@]}" -np "$p" "$tmp/overlap")
        if [ "$ho" != "$hv" ]; then
            echo "ranks $p $size: overlap's C differs from the ordered sequence's ($hv vs $ho)" >&2
            exit 1
        fi
        awk -v p="$p" -v m="$m" -v n="$n" -v k="$k" -v a="$tw" -v b="$to" -v c="$tv" \
            'BEGIN { printf "gemm_rs %5d %5d %5d %5d %10.1f %10.1f %10.1f %6.3f\n", p, m, n, k, a, b, c, b / c }'
    done
done
