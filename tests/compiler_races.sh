#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Mutation test of the race detector (docs/compiler.md, "Races"): in every
# example kernel (examples/kernels/*.axe) and test kernel
# (tests/kernels/*.axe), each `sync` in turn is blanked out (the line
# numbers stay), and `axe run --check --json` on the result must fail
# with at least one race. The syncs marked "# unneeded sync: NAME" in the
# kernel (and listed in UNNEEDED below as FILE:NAME) are the exception:
# they separate operators that deal every element to the same thread, so
# without them the kernel must still pass (no race, the same values in
# every thread order); the marks are checked, not assumed (a marked sync
# that is needed fails, and so does a mark not listed or a listed one
# missing). Then the emulated CUDA's races of a device gemm (cp.async
# destinations, named by the emulator with spaces) are listed by name in
# --json (with c++ and mpirun).
# Skipped (77) without the axe binary or a C compiler. The last line is
# "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

# FILE:NAME of the syncs a kernel does not need (see above):
# mixed_split.axe: fill, add and max of one shape in place (split plans
# deal each element to the same thread), exp then sub of Q in place.
# gemm_pipelined.axe (and its auto twin), pipeline_regions.axe: the sync
# after the last read of a stage; as written, the next write of that
# stage comes S iterations later, after the first sync of the next
# iteration, but the CUDA pipeline writes it one iteration later, so it
# requires this sync
# (docs/compiler.md, "Backends"; tests/compiler_cuda_emu.sh deletes it
# there and requires a race). flash_attention.axe's is the same sync
# (after the P.V gemm's last read of the stage of Vs), and
# flash_attention_auto.axe's the same in its auto twin, and
# tests/kernels/flash_vt_auto.axe's (its stages of Vt) too.
# vec_bank.axe: both copies take the same plan (the order the bank model
# picks), so each thread reads back the chunks it wrote. i4_split.axe:
# cast.split and copy.split of one shape deal the same i4 pairs whole.
# i4_ldsm_pack_auto.axe, i4_ldsm_pack_both_auto.axe,
# i4_ldsm_pack_halves_auto.axe, ldsm_f16_pack_auto.axe: synthesis gives bq
# the 16-byte rows each thread's cp.async wrote into Bs (leaves across
# dimensions), so each thread reads back only its own rows.
UNNEEDED="
tests/kernels/mixed_split.axe:after-cast
tests/kernels/mixed_split.axe:after-add
tests/kernels/mixed_split.axe:after-exp
examples/kernels/gemm_pipelined.axe:stage-release
examples/kernels/gemm_pipelined_auto.axe:stage-release
examples/kernels/flash_attention.axe:stage-release
examples/kernels/flash_attention_auto.axe:stage-release
tests/kernels/flash_vt_auto.axe:stage-release
tests/kernels/pipeline_regions.axe:stage-release
tests/kernels/vec_bank.axe:same-plan
tests/kernels/i4_split.axe:same-pairs
tests/kernels/i4_ldsm_pack_auto.axe:same-rows
tests/kernels/i4_ldsm_pack_both_auto.axe:same-rows
tests/kernels/i4_ldsm_pack_halves_auto.axe:same-rows
tests/kernels/ldsm_f16_pack_auto.axe:same-rows
"

kernel_counts

# The values of FILE's runtime scalars (axe run needs them): its line
# "# axe run args: ..." (as scripts/gpu_check.sh reads them).
args_for() { sed -n 's/^# axe run args: //p' "$1" | head -1; }

mutate() {
    local f=$1 line=$2 rel=$3 out
    awk -v L="$line" 'NR == L { sub(/sync *;/, "     ") } 1' "$f" \
        >"$tmp/$(basename "$f")"
    # shellcheck disable=SC2046
    "$AXE" run "$tmp/$(basename "$f")" --check --json $(args_for "$f") \
        >"$tmp/out" 2>"$tmp/err"
    out=$(head -c 600 "$tmp/out" "$tmp/err")
    if [ -n "$(kernel_sync_mark "$f" "$line")" ]; then
        if grep -q '"pass":true,"races":\[\],' "$tmp/out"; then
            ok
        else
            bad "$rel:$line is marked unneeded, but without it: $out"
        fi
    elif grep -q '"pass":false,"races":\[{"tensor":' "$tmp/out"; then
        ok
    elif grep -q 'has no value' "$tmp/err"; then
        bad "$rel has runtime scalars: give their values on a line '# axe run args: ...'"
    else
        bad "$rel without the sync of line $line: no race: $out"
    fi
}

nsync=0
for f in "$SRC"/examples/kernels/*.axe "$SRC"/tests/kernels/*.axe; do
    rel=${f#"$SRC"/}
    for line in $(kernel_sync_lines "$f"); do
        nsync=$((nsync + 1))
        mutate "$f" "$line" "$rel"
    done
done
# Every mark is listed and every listed one is a marked sync.
kernel_sync_marks_listed "$UNNEEDED" "$SRC"/examples/kernels/*.axe \
    "$SRC"/tests/kernels/*.axe
# The examples do have syncs to delete (the loop above is not vacuous).
if [ "$nsync" -ge 10 ]; then
    ok
else
    bad "only $nsync syncs found in the kernels"
fi

# The emulated CUDA's races are parsed by name, also the emulator's names
# of addresses no AXE_AT noted, which have spaces: the device gemm's
# stages with a cp.async.wait_group that waits for one group too few race
# on "cp.async destination" (and "ldmatrix row"), each an object of
# "emulated_races" (was [] with only the count). Needs c++ and mpirun.
if command -v "${CXX:-c++}" >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    AXE_RUN_EDIT="sed -i 's|axe_ptx_cp_async_wait<1>();|axe_ptx_cp_async_wait<2>();|'" \
        timeout 600 "$AXE" run "$SRC/examples/kernels/dist/matmul_rs_f16.axe" -D P=2 \
        --target cuda --emulate --ranks 2 --check --json >"$tmp/out" 2>"$tmp/err"
    if grep -q '"pass":false,.*"emulated_races":\[{"tensor":"' "$tmp/out" &&
        grep -q '{"tensor":"cp.async destination","index":null,"address":[0-9]*,"first":{[^}]*"access":"write"}' "$tmp/out" &&
        grep -q '"message":"race on cp.async destination at offset [0-9]*: written by thread' "$tmp/out"; then
        ok
    else
        bad "matmul_rs_f16 with wait_group<2>: emulated races not parsed: $(head -c 400 "$tmp/out") $(head -c 200 "$tmp/err")"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
