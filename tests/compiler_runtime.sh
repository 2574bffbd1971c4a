#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runtime scalars of the kernel compiler through the CLI ($AXE_BIN): one
# build of a kernel with a runtime row count M runs at several values of
# M (`--arg M=100,37`: the C compiler runs once) and each run passes
# --check; a kernel whose tail guard is edited to skip the last row fails
# it; the harness of the generated C refuses bad values; `--arg` errors
# (unknown name, missing, not an integer, given twice, outside i32, an
# extent that is negative at launch, lists of different lengths) are
# reported with their exit codes; masked copies keep vector accesses
# (tests/kernels/masked_vec.axe at seven lengths, edits of the chunk
# test and of both paths, AddressSanitizer). Skipped (77) without a C
# compiler. The
# last line is "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

kernel_counts
K="$SRC/examples/kernels"


# A C compiler that counts its runs and may edit the C (sed AXE_TEST_EDIT).
cat >"$tmp/cc.sh" <<'EOS'
#!/bin/sh
echo run >>"$AXE_TEST_COUNT"
for a; do
    case $a in *.c) [ -n "$AXE_TEST_EDIT" ] && sed -i "$AXE_TEST_EDIT" "$a" ;; esac
done
exec $AXE_TEST_CC "$@"
EOS
# run_cc EDIT ARGS...: axe run with the wrapper; the C compiler's runs in
# $tmp/count.
run_cc() {
    local edit=$1
    shift
    : >"$tmp/count"
    AXE_TEST_COUNT=$tmp/count AXE_TEST_EDIT=$edit AXE_TEST_CC=$CC \
        CC="sh $tmp/cc.sh" "$AXE" run "$@" >"$tmp/out" 2>"$tmp/err"
}

# One build, four values of M (not multiples of the tile, a multiple, 0).
if run_cc "" "$K/tail_rows.axe" --check --arg M=100,37,64,0 &&
    [ "$(wc -l <"$tmp/count")" = 1 ] &&
    [ "$(grep -c '^M=[0-9]*: check passed' "$tmp/out")" = 4 ] &&
    grep -q '^check passed' "$tmp/out"; then
    ok
else
    bad "tail_rows at 4 values of M with one build: $(wc -l <"$tmp/count") builds, $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# The same build at two values, as JSON: one object with a run per value.
if run_cc "" "$K/tail_rows.axe" --check --json --arg M=33,1 &&
    [ "$(wc -l <"$tmp/count")" = 1 ] &&
    grep -q '"runs":\[{"args":{"M":33},"max_abs_err":0,"max_rel_err":0,"pass":true},{"args":{"M":1},' "$tmp/out" &&
    grep -q '"pass":true,"races":\[\],"orders":{"ascending":true,"descending":true,"random":true},"seconds":null' "$tmp/out"; then
    ok
else
    bad "tail_rows --json at two values: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# A guard edited to stop one row early leaves the last row unwritten:
# --check fails at M=37 (and the exit code is 1).
run_cc 's/< s_M) {/< s_M - 1) {/' "$K/tail_rows.axe" --check --arg M=37
rc=$?
if [ $rc = 1 ] && grep -q '^M=37: check FAILED' "$tmp/out"; then
    ok
else
    bad "tail_rows with a short guard: exit $rc, $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi

# A masked load edited to read 0 instead of its fill (-1.5) past row M
# fails --check: the fill reaches the last row of Y.
run_cc 's/: (float)-1.5)/: (float)0)/' "$K/masked_rows.axe" --check --arg M=37
rc=$?
if [ $rc = 1 ] && grep -q '^M=37: check FAILED' "$tmp/out" && [ -s "$tmp/count" ]; then
    ok
else
    bad "masked_rows with the fill edited: exit $rc, $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# A masked copy keeps its vector access: copy.vector with a run-time test
# per row (masked rows, contiguous columns) or per chunk (the vector's
# own dimension masked), which --explain notes per masked operand.
if "$AXE" compile "$K/masked_rows.axe" --explain >"$tmp/out" 2>&1 &&
    grep -A6 '^op 0 (line 12)' "$tmp/out" | grep -q '^  chosen copy.vector$' &&
    grep -A6 '^op 0 (line 12)' "$tmp/out" | grep -q "^    masked 'X': a run-time test per innermost loop of 64 elements (its masked coordinates are constant along it; per chunk of 4 when dealt round-robin); vector accesses when inside 'X', else element by element with the guard$" &&
    grep -A6 '^op 3 (line 15)' "$tmp/out" | grep -q "^    masked 'Y': a run-time test per innermost loop of 64 elements" &&
    "$AXE" compile "$SRC/tests/kernels/masked_vec.axe" --explain >"$tmp/out" 2>&1 &&
    grep -A6 '^op 0 (line 14)' "$tmp/out" | grep -q "^    masked 'X': a run-time test per chunk of 4; one vector access when the chunk lies inside 'X', else element by element with the guard$" &&
    grep -A8 '^op 5 (line 23)' "$tmp/out" | grep -q "^    masked 'H': a run-time test per chunk of 8;"; then
    ok
else
    bad "masked_rows --explain: $(head -c 600 "$tmp/out")"
fi

# Masked vector chunks (tests/kernels/masked_vec.axe, 1-D tiles of 128
# over a runtime M): one build passes --check at M a multiple of the
# tile, M whose last chunk is partial (130, 133, 127), M below one
# vector (3), 1 and 0; the C tests each chunk and keeps the per-element
# path for the others.
V="$SRC/tests/kernels/masked_vec.axe"
if run_cc "" "$V" --check --arg M=256,130,133,127,3,1,0 &&
    [ "$(wc -l <"$tmp/count")" = 1 ] &&
    [ "$(grep -c '^M=[0-9]*: check passed' "$tmp/out")" = 7 ]; then
    ok
else
    bad "masked_vec at 7 values of M: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
if "$AXE" compile "$V" >"$tmp/out" 2>&1 &&
    [ "$(grep -c 'schedule copy.vector' "$tmp/out")" = 5 ] &&
    [ "$(grep -c '+ 3L < s_M)) { /\* the chunk is inside: one vector access \*/' "$tmp/out")" = 4 ] &&
    [ "$(grep -c '+ 7L < s_M)) { /\* the chunk is inside: one vector access \*/' "$tmp/out")" = 1 ] &&
    [ "$(grep -c '} else { /\* not inside: element by element, guarded \*/' "$tmp/out")" = 5 ]; then
    ok
else
    bad "masked_vec C: $(grep -c 'schedule copy' "$tmp/out") copies, $(head -c 300 "$tmp/out")"
fi
# The per-element loop of a partial chunk, edited to repeat the chunk's
# first element, fails --check where a chunk is partial (M=130, M=3).
run_cc 's/(ax_i\([0-9]*\) + ax_v[0-9]*)/ax_i\1/g' "$V" --check --arg M=130,3
rc=$?
if [ $rc = 1 ] && grep -q '^M=130: check FAILED' "$tmp/out" &&
    grep -q '^M=3: check FAILED' "$tmp/out"; then
    ok
else
    bad "masked_vec with the chunk's element loop edited: exit $rc, $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
# The vector access, edited to move 3 f32 of its 4, fails --check at
# M=256: full chunks take the vector path.
run_cc 's/, 4 \* sizeof(float));/, 3 * sizeof(float));/' "$V" --check --arg M=256
rc=$?
if [ $rc = 1 ] && grep -q '^M=256: check FAILED' "$tmp/out"; then
    ok
else
    bad "masked_vec with a short vector access: exit $rc, $(cat "$tmp/out" "$tmp/err" | head -c 400)"
fi
asan="-fsanitize=address"
# shellcheck disable=SC2086
if echo 'int main(void) { return 0; }' >"$tmp/as.c" &&
    $CC $asan -o "$tmp/as" "$tmp/as.c" 2>/dev/null && "$tmp/as"; then
    # No access past a tensor at any size, under AddressSanitizer ...
    if CC="$CC $asan" run_cc "" "$V" --check --arg M=130,133,3,1,0 &&
        [ "$(grep -c '^M=[0-9]*: check passed' "$tmp/out")" = 5 ]; then
        ok
    else
        bad "masked_vec under ASan: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
    fi
    # ... and a chunk test edited to check only the chunk's first element
    # reads and writes past the vectors at M=130: the run fails.
    if CC="$CC $asan" run_cc 's/ + [37]L < s_M)/ < s_M)/g' "$V" --check \
        --arg M=130; then
        bad "masked_vec with a chunk test of its first element passes"
    elif grep -q 'AddressSanitizer' "$tmp/err"; then
        ok
    else
        bad "masked_vec with a short chunk test: $(cat "$tmp/out" "$tmp/err" | head -c 400)"
    fi
fi

# expect_run CODE PATTERN ARGS...: axe run exits CODE, stderr matches.
expect_run() {
    local code=$1 pat=$2
    shift 2
    "$AXE" run "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc = "$code" ] && grep -qE -- "$pat" "$tmp/err"; then
        ok
    else
        bad "axe run $*: exit $rc (want $code), stderr: $(head -c 300 "$tmp/err")"
    fi
}
T="$K/tail_rows.axe"
expect_run 1 "--arg N: the kernel has no runtime scalar 'N'" "$T" --arg M=4 --arg N=4
expect_run 1 "runtime scalar 'M' has no value: give it with --arg M=VALUE" "$T"
expect_run 2 "--arg M: 'x1' is not an integer" "$T" --arg M=x1
expect_run 2 "--arg M: '' is not an integer" "$T" --arg M=4,
expect_run 2 "--arg M is given twice" "$T" --arg M=4 --arg M=5
expect_run 2 "--arg wants NAME=VALUE" "$T" --arg M
expect_run 1 "runtime scalar 'M' = 2147483648 is outside the range of i32" "$T" --arg M=2147483648
expect_run 1 "the extent of 'X' \(dimension 0\), M, is -3 at launch: outside \[0, 2147483647\]" "$T" --arg M=-3
# float scalars (`eps: f32`, `s: f16`): a finite number, rounded to the
# scalar's dtype (finite after rounding); an i32 scalar takes no fraction
L="$SRC/tests/kernels/layernorm_eps.axe"
expect_run 2 "--arg eps: 'abc' is not an integer \(nor a finite number for a float scalar\)" "$L" --arg M=4 --arg eps=abc --arg s=1
expect_run 2 "--arg eps: 'inf' is not an integer" "$L" --arg M=4 --arg eps=inf --arg s=1
expect_run 2 "--arg eps: '1e400' is not an integer" "$L" --arg M=4 --arg eps=1e400 --arg s=1
expect_run 1 "runtime scalar 's' = 70000 is not a finite f16" "$L" --arg M=4 --arg eps=1e-5 --arg s=70000
expect_run 1 "runtime scalar 'eps' = 1e\+39 is not a finite f32" "$L" --arg M=4 --arg eps=1e39 --arg s=1
expect_run 1 "--arg M: 1.5 is not an integer \('M' is an i32 scalar\)" "$L" --arg M=1.5 --arg eps=1e-5 --arg s=1
expect_run 2 "lists of several values must be equally long" "$SRC/tests/kernels/runtime_tiles.axe" --arg M=1,2 --arg T=1,2,3

# Data-dependent starts out of range at run time: the kernel stops with the
# table, the index and the value (exit 1), never reading out of bounds.
E="$K/embedding.axe"
expect_run 1 "^axe: run: the kernel failed: region of 'Emb' out of bounds at run time \(line 14\): dimension 0 starts at 1000 with length 1 but the extent is 1000; the start reads ids\[[0-9]+\] = 1000$" "$E" --arg T=4 --range ids=1000:1000
expect_run 1 "dimension 0 starts at -3 with length 1 but the extent is 1000; the start reads ids\[[0-9]+\] = -3" "$E" --arg T=40 --check --range ids=-3:-3
expect_run 1 "start reads table\[0, 0\] = 8" "$SRC/tests/kernels/gather_index.axe" --range table=8:8
expect_run 1 "start reads k\[0\] = 127" "$SRC/tests/kernels/gather_index.axe" --range table=0:7 --range ids8=127:127
expect_run 1 "\(line 21\): dimension 0 starts at -5 with length 1 but the extent is 128; the start reads sids\[[0-9]+\] = -5" "$SRC/tests/kernels/gather_index.axe" --range table=0:7 --range ids8=-5:-5
# --json carries the kernel's own reason (it said "the kernel failed")
"$AXE" run "$E" --arg T=4 --range ids=1000:1000 --json >"$tmp/out" 2>"$tmp/err"
if [ $? = 1 ] && grep -q '"message":"the kernel failed: region of '"'"'Emb'"'"' out of bounds at run time (line 14): dimension 0 starts at 1000' "$tmp/out"; then
    ok
else
    bad "embedding --json run-time error: $(head -c 300 "$tmp/out")"
fi
expect_run 1 "--range fx: the kernel has no such tensor parameter" "$E" --arg T=4 --range fx=0:1
expect_run 1 "--range Emb: it needs an i32, i8 or i4 tensor" "$E" --arg T=4 --range Emb=0:1
expect_run 1 "--range ids8: it needs an i32, i8 or i4 tensor and values of its dtype" "$SRC/tests/kernels/gather_index.axe" --range ids8=0:128
expect_run 2 "--range ids: '5:1' is not LO:HI with LO <= HI" "$E" --arg T=4 --range ids=5:1
expect_run 2 "--range ids is given twice" "$E" --arg T=4 --range ids=1:2 --range ids=1:3

# The harness of the generated C: one value per scalar, each an i32, the
# extents it gives in range.
"$AXE" compile "$T" -o "$tmp/t.c" && $CC -std=c99 -O2 -DAXE_KERNEL_MAIN -o "$tmp/t" "$tmp/t.c" -lm
head -c 100000 /dev/zero >"$tmp/in"
# expect_harness CODE PATTERN ARGS...
expect_harness() {
    local code=$1 pat=$2
    shift 2
    "$tmp/t" "$tmp/in" "$tmp/o" 0 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc = "$code" ] && grep -qE -- "$pat" "$tmp/err"; then
        ok
    else
        bad "harness $*: exit $rc (want $code), stderr: $(head -c 300 "$tmp/err")"
    fi
}
expect_harness 2 "usage: .* IN OUT REPS M"
expect_harness 2 "M: not an i32: 12x" 12x
expect_harness 2 "M: not an i32: 3000000000" 3000000000
expect_harness 1 "the extent of 'X' \(dimension 0\) is -1: outside \[0, 2147483647\]" -1
# 10 rows of 64 floats in, 2 x 10 x 64 floats out; a file too short fails.
if "$tmp/t" "$tmp/in" "$tmp/o" 0 10 >/dev/null 2>&1 &&
    [ "$(wc -c <"$tmp/o")" = $((2 * 10 * 64 * 4)) ]; then
    ok
else
    bad "harness at M=10 did not write 5120 bytes"
fi
expect_harness 1 "cannot read" 1000

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
