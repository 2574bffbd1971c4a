#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The trn-sim target through the CLI ($AXE_BIN; docs/compiler.md, "The
# accelerator model"): core kernels whose operators are all engine
# schedules (copy.dma, copy.vector, gemm.tensor_engine) run on the
# simulator and pass --check with "cycles" and the engines in --json; the
# double-buffered GEMM (tests/kernels/trn_sim_double.axe) takes fewer
# simulated cycles than the serial one (trn_sim_serial.axe) with the same
# instructions, and the serial one written with a loop (trn_sim_loop.axe:
# descriptors per value of the loop variable) the same; operators without an engine schedule and kernels that are
# not core kernels are refused at compile time with the reason; the
# simulator's run-time checks (a partition outside a tensor, a vector
# move across partitions) stop the run with the instruction and the
# limit (the generated C edited by a C compiler wrapper); the generated C
# compiles with -Wall -Wextra -pedantic -Werror. Skipped (77)
# without a C compiler. The last line is "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

kernel_counts
K="$SRC/tests/kernels"

# json_int FILE KEY: the integer member KEY of the JSON line in FILE.
json_int() {
    sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1"
}

# A run passes --check and reports cycles; the cycles into $tmp/NAME.cyc.
for k in trn_sim_serial trn_sim_double trn_sim_loop; do
    seeds="1"
    [ "$k" = trn_sim_double ] && seeds="1 7"
    for seed in $seeds; do
        if "$AXE" run "$K/$k.axe" --target trn-sim --check --json \
            --seed "$seed" >"$tmp/$k.json" 2>"$tmp/err" &&
            grep -q '"target":"trn-sim"' "$tmp/$k.json" &&
            grep -q '"pass":true' "$tmp/$k.json" &&
            grep -q '"cycles":[0-9]' "$tmp/$k.json" &&
            grep -q '"tensor":{"instructions":4,' "$tmp/$k.json"; then
            ok
        else
            bad "$k --seed $seed: $(cat "$tmp/$k.json" "$tmp/err" | head -c 600)"
        fi
    done
    json_int "$tmp/$k.json" cycles >"$tmp/$k.cyc"
done
serial=$(cat "$tmp/trn_sim_serial.cyc")
double=$(cat "$tmp/trn_sim_double.cyc")
if [ -n "$serial" ] && [ -n "$double" ] && [ "$double" -lt "$serial" ]; then
    ok
else
    bad "double-buffered cycles '$double' not below serial '$serial'"
fi
# The loop form runs the serial kernel's instructions: the same cycles.
if [ "$(cat "$tmp/trn_sim_loop.cyc")" = "$serial" ]; then
    ok
else
    bad "loop cycles '$(cat "$tmp/trn_sim_loop.cyc")' differ from serial '$serial'"
fi
# The text form names the cycles too.
if "$AXE" run "$K/trn_sim_serial.axe" --target trn-sim >"$tmp/out" 2>&1 &&
    grep -q "^simulated cycles $serial; engines" "$tmp/out"; then
    ok
else
    bad "text cycles: $(head -c 600 "$tmp/out")"
fi

# The vector- and scalar-engine schedules: every result exact, 12
# instructions on each engine (trn_sim_engines.axe), at two seeds and
# values of the runtime scalar.
for run in "1 2.5" "5 0.3"; do
    set -- $run
    if "$AXE" run "$K/trn_sim_engines.axe" --target trn-sim --check --json \
        --seed "$1" --arg scale="$2" >"$tmp/eng.json" 2>"$tmp/err" &&
        grep -q '"pass":true' "$tmp/eng.json" &&
        grep -q '"max_abs_err":0,' "$tmp/eng.json" &&
        grep -q '"vector":{"instructions":12,' "$tmp/eng.json" &&
        grep -q '"scalar":{"instructions":12,' "$tmp/eng.json"; then
        ok
    else
        bad "trn_sim_engines --seed $1: $(cat "$tmp/eng.json" "$tmp/err" | head -c 600)"
    fi
done

# copy.transpose: a into PSUM across partitions (TensorE against the
# identity), back to SBUF keeping partitions, out by DMA: O = A exactly,
# one tensor-engine instruction of 64 + 128 cycles.
printf '%s\n' 'kernel tr(A: global f32[128, 128], O: global f32[128, 128]) core {' \
    '    sbuf a: f32[128, 128];' \
    '    psum b: f32[128, 128] layout S[(128, 128):(1@F, 1@P)];' \
    '    sbuf c: f32[128, 128] layout S[(128, 128):(1@F, 1@P)];' \
    '    core copy(a, A);' '    core copy(b, a);' '    core copy(c, b);' \
    '    core copy(O, c);' '}' >"$tmp/tr.axe"
if "$AXE" run "$tmp/tr.axe" --target trn-sim --check --json >"$tmp/out" 2>&1 &&
    grep -q '"copy#1":"transpose","copy#2":"vector","copy#3":"dma"},"max_abs_err":0,"max_rel_err":0,"pass":true' "$tmp/out" &&
    grep -q '"tensor":{"instructions":1,"busy":192}' "$tmp/out"; then
    ok
else
    bad "tr.axe: $(head -c 800 "$tmp/out")"
fi
# ... refused where the model's matmul has fewer rows than the tile.
if "$AXE" compile "$tmp/tr.axe" --explain --trn matmul_max_m=64 >"$tmp/out" 2>&1 &&
    grep -qF "rejected copy.transpose: a transpose of 128 partitions x 128 free elements of 'a': the model's matmul takes at most 128 x 64 (K x M, K also at most N = 512)" "$tmp/out"; then
    ok
else
    bad "tr.axe matmul_max_m=64: $(grep -A8 'op 1 ' "$tmp/out" | head -c 800)"
fi

# The generated C is clean C99 against the simulator of the source tree.
for k in trn_sim_serial trn_sim_loop trn_sim_engines; do
    if "$AXE" compile "$K/$k.axe" --target trn-sim -o "$tmp/$k.c" &&
        ${CC:-cc} -std=c99 -Wall -Wextra -Werror -pedantic -DAXE_KERNEL_MAIN \
            -I"$SRC/src/compiler/backend/trn" -o "$tmp/$k" "$tmp/$k.c" -lm \
            >"$tmp/err" 2>&1; then
        ok
    else
        bad "$k: the generated C with -Wall -Wextra -Werror: $(head -c 600 "$tmp/err")"
    fi
done

# expect_fail FILE MESSAGE ARGS...: axe exits 1 and says MESSAGE.
expect_fail() {
    local file=$1 msg=$2
    shift 2
    # shellcheck disable=SC2086
    if ! "$AXE" "$@" "$file" --target trn-sim ${XARGS:-} >"$tmp/out" 2>&1 &&
        grep -qF -- "$msg" "$tmp/out"; then
        ok
    else
        bad "$* $file: expected '$msg', got: $(head -c 600 "$tmp/out")"
    fi
}
# An add whose source lies on partition 0 for every element of a
# destination over 128 partitions: no engine computes it.
printf '%s\n' 'kernel lanes(A: global f32[128]) core {' \
    '    sbuf a: f32[128];' '    sbuf b: f32[128] layout S[(128):(1@F)];' \
    '    core copy(a, A);' '    core copy(b, A);' '    core add(a, a, b);' \
    '    core copy(A, a);' '}' >"$tmp/lanes.axe"
expect_fail "$tmp/lanes.axe" "add#2 (line 6) has no engine schedule on trn-sim: it dispatched to add.thread_loop" compile
if "$AXE" compile "$tmp/lanes.axe" --explain >"$tmp/out" 2>&1 &&
    grep -qF "rejected add.vector: element 1: 'b' is on partition 0, its destination 'a' on partition 1 (the vector engine computes each partition's elements in its lane;" "$tmp/out"; then
    ok
else
    bad "lanes.axe --explain: $(head -c 900 "$tmp/out")"
fi
expect_fail "$SRC/examples/kernels/gemm.axe" "kernel 'gemm' is not a core kernel: the trn-sim target runs" compile
expect_fail "$K/trn_te_layouts.axe" "copy#2 (line 21) has no engine schedule on trn-sim" compile
XARGS="--trn matmul_max_m=64" expect_fail "$tmp/tr.axe" "copy#1 (line 6) has no engine schedule on trn-sim: it dispatched to copy.thread_loop" compile

# The simulator's checks at run time: a C compiler that edits the C.
cat >"$tmp/cc.sh" <<'EOS'
#!/bin/sh
for a; do
    case $a in *.c) sed -i "$AXE_TEST_EDIT" "$a" ;; esac
done
exec $AXE_TEST_CC "$@"
EOS
chmod +x "$tmp/cc.sh"
# run_edit EDIT MESSAGE: the serial GEMM with its C edited by EDIT fails
# with MESSAGE.
run_edit() {
    if ! AXE_TEST_EDIT=$1 AXE_TEST_CC=${CC:-cc} CC="$tmp/cc.sh" \
        "$AXE" run "$K/${KFILE:-trn_sim_serial}.axe" --target trn-sim \
        ${KARGS:-} \
        >"$tmp/out" 2>&1 && grep -qF -- "$2" "$tmp/out"; then
        ok
    else
        bad "edit $1: expected '$2', got: $(head -c 600 "$tmp/out")"
    fi
}
# op 1 (o -> c, a vector move) from partition 1 on: partition 128 of 'o'
run_edit '/op 1 (line 15)/,/};/s/{{0, 0, 0, 0}, 2/{{1, 0, 1, 0}, 2/' \
    "trn-sim: op 1 (line 15) copy.vector 0: partition 128 of 'o' outside its partitions 0..127 (the model has 128)"
# ... into partition 1 on of 'c' only: a move across partitions
run_edit '/op 1 (line 15)/,/};/s/{{0, 0, 0, 0}, 2/{{0, 0, 1, 0}, 2/' \
    "trn-sim: op 1 (line 15) copy.vector 0: the vector engine keeps partitions, this move changes them"
# a matmul of 129 rows of K
run_edit 's/ax_b, 128LL, 128LL, 128LL/ax_b, 128LL, 128LL, 129LL/' \
    "trn-sim: op 4 (line 18) matmul 0: matmul 128 x 128 x 129 outside the model's 1..128 x 1..512 x 1..128"

# an engine instruction's element loop one partition too far
KFILE=trn_sim_engines KARGS="--arg scale=2" run_edit '/op 1 (line 26)/,/ax_trn_end/s/< 128L/< 129L/' \
    "trn-sim: op 1 (line 26) fill.vector 0: partition 128 of 'c' outside its partitions 0..127 (the model has 128)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
