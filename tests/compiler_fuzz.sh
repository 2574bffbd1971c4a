#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Mutation fuzzer of the kernel compiler (tests/compiler_fuzz.py): token
# mutations of every examples/kernels/**/*.axe and tests/kernels/**/*.axe
# through `axe compile` (targets c, cuda, mpi, trn-sim), `axe synth` and,
# for the first AXE_FUZZ_RUNS (20) mutants that compile, `axe run --check`.
# Each must exit 0 or with the CLI's error status and a reason: never a
# signal, a sanitizer report, a timeout, an empty reason or a fault of the
# generated code. Deterministic: AXE_TEST_SEED=N (default 1) replays a
# seed; AXE_FUZZ_COUNT mutants (300) within AXE_FUZZ_SECONDS (90), each
# command within AXE_FUZZ_TIMEOUT seconds (60); AXE_FUZZ_KEEP=DIR keeps
# the reproducers of findings there. Under the asan preset the same runs
# are sanitized. Skipped (77) without python3 or a C compiler. The last
# line is "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_python3
kernel_need_compiler CC cc "C compiler"
kernel_counts
out=${AXE_FUZZ_KEEP:-$tmp}
mkdir -p "$out"
python3 "$SRC/tests/compiler_fuzz.py" "$AXE" "$SRC" "$out"
