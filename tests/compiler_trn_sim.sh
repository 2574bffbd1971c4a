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

# The generated C is clean C99 against the simulator of the source tree.
for k in trn_sim_serial trn_sim_loop; do
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
    if ! "$AXE" "$@" "$file" --target trn-sim >"$tmp/out" 2>&1 &&
        grep -qF -- "$msg" "$tmp/out"; then
        ok
    else
        bad "$* $file: expected '$msg', got: $(head -c 600 "$tmp/out")"
    fi
}
expect_fail "$K/trn_scratch.axe" "fill#0 (line 19) has no engine schedule on trn-sim: it dispatched to fill.thread_loop" compile
expect_fail "$SRC/examples/kernels/gemm.axe" "kernel 'gemm' is not a core kernel: the trn-sim target runs" compile
expect_fail "$K/trn_te_layouts.axe" "copy#2 (line 21) has no engine schedule on trn-sim" compile

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
        "$AXE" run "$K/trn_sim_serial.axe" --target trn-sim \
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
