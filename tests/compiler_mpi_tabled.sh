#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Tabled digits (docs/compiler.md, "Tabled digits"): the exchange between
# two layouts whose iters of a dimension have no common refinement, at the
# mesh sizes the MPI and NCCL suites (2, 4, 8) do not run:
# examples/kernels/dist/reshard.axe at --ranks 3 and 6 (-D P=N) passes
# `axe run --ranks N --check` on --target mpi and under the NCCL
# emulation (`--target cuda --emulate`), with no race; its --explain names
# the tabled digit and an exchange. OpenMPI is installed through
# scripts/ensure_tools.sh when missing; skipped (77) when it cannot be or
# without $AXE_BIN. Last line: "N passed, N failed".
set -u

SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../scripts/ensure_tools.sh
. "$SRC/scripts/ensure_tools.sh"
if ! axe_ensure_tools mpicc mpirun >/dev/null 2>&1 ||
    ! command -v mpicc >/dev/null 2>&1; then
    echo "skipped: no OpenMPI (mpicc, mpirun) and it could not be installed"
    exit 77
fi
AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: no AXE_BIN"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
F=$SRC/examples/kernels/dist/reshard.axe

# run_ok TARGET N: axe run --ranks N --check --json passes with no race.
run_ok() {
    local target=$1 n=$2 args=(--ranks "$2")
    [ "$target" = cuda-emulated ] && args+=(--target cuda --emulate)
    if timeout 600 "$AXE" run "$F" -D "P=$n" "${args[@]}" --check --json \
        >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"pass":true,\("reference":"cpu",\)\{0,1\}"races":\[\],' "$tmp/out" &&
        grep -q "\"target\":\"$target\",\"ranks\":$n," "$tmp/out"; then
        ok
    else
        bad "reshard.axe $target --ranks $n: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
}
# The explanations, written by hand: at odd P no cut lies inside the rows
# (boundaries 1, 2, 3, 6, 3P, 6P; 2 and 3 split only one side, 6 and 3P
# do not divide 3P and 6 / 6P for odd P), so all 6P values are tabled; at
# P = 6 the cuts are 1, 6, 18, 36: two stride digits over a tabled 6.
want3="collective exchange: the iters of src and dst have no common refinement in the digit (dim 0, extent 18): tabled (src 3:1@gpuid 3:8@m 2:24@m, dst 2:24@m 3:1@gpuid 3:8@m), its elements go point to point"
want6="collective exchange: src shards on gpuid the digit (dim 0, extent 2) that dst keeps in memory; src and dst shard on gpuid the digit (dim 0, extent 3, gpuid stride 1 -> 2); the iters of src and dst have no common refinement in the digit (dim 0, extent 6): tabled (src 3:8@m 2:24@m, dst 2:1@gpuid 3:8@m), its elements go point to point"
for n in 3 6; do
    run_ok mpi "$n"
    run_ok cuda-emulated "$n"
    want=want$n
    if "$AXE" compile "$F" -D "P=$n" --target mpi --explain >"$tmp/ex" 2>&1 &&
        grep -qF "${!want}" "$tmp/ex"; then
        ok
    else
        bad "reshard.axe -D P=$n --explain: $(grep -m1 collective "$tmp/ex")"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
