#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The MPI backend (docs/compiler.md, "The MPI backend"): the runtime
# (src/compiler/backend/mpi/compiler_mpi_rt.h) built with mpicc from
# tests/mpi/mpi_runtime_check.c and run under mpirun at 1, 2, 4 and 8 ranks
# (hand-written digit tables against brute force, the collective each
# takes). OpenMPI is installed through scripts/ensure_tools.sh when
# missing; skipped (77) when it cannot be. With AXE_MPI_SANITIZE (the asan
# preset) the programs are built with -fsanitize=$AXE_MPI_SANITIZE and
# LeakSanitizer ignores OpenMPI's own allocations only
# (tests/lsan_openmpi.supp). Last line: "N passed, N failed".
set -u

SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../scripts/ensure_tools.sh
. "$SRC/scripts/ensure_tools.sh"
if ! axe_ensure_tools mpicc mpirun >/dev/null 2>&1 ||
    ! command -v mpicc >/dev/null 2>&1; then
    echo "skipped: no OpenMPI (mpicc, mpirun) and it could not be installed"
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

mpirun_args=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror)
if [ -n "${AXE_MPI_SANITIZE:-}" ]; then
    cflags+=("-fsanitize=$AXE_MPI_SANITIZE" -fno-omit-frame-pointer)
    # OpenMPI's plugins stay loaded (else their frames are unknown modules
    # no suppression can name) and the slow unwinder walks through them.
    export OMPI_MCA_mca_base_component_disable_dlclose=1
    export PMIX_MCA_mca_base_component_disable_dlclose=1
    export LSAN_OPTIONS="suppressions=$SRC/tests/lsan_openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fi

# The runtime against brute force.
if mpicc "${cflags[@]}" -I"$SRC/src/compiler/backend/mpi" \
    "$SRC/tests/mpi/mpi_runtime_check.c" -o "$tmp/rt" 2>"$tmp/err"; then
    for n in 1 2 4 8; do
        if timeout 300 mpirun "${mpirun_args[@]}" -np "$n" "$tmp/rt" \
            >"$tmp/out" 2>&1 && ! grep -q FAIL "$tmp/out"; then
            ok
        else
            bad "runtime at $n ranks: $(grep -m3 -E 'FAIL|ERROR|error' "$tmp/out")"
        fi
    done
else
    bad "mpicc mpi_runtime_check.c: $(head -5 "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
