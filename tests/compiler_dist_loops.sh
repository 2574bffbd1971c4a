#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Device operators in loops and ifs (docs/compiler.md, "Device operators
# in loops and ifs"; issue 14 §2): the parser unrolls the loops and folds
# the ifs around device operators. Through the CLI ($AXE_BIN):
# - unrolling is textual: examples/kernels/dist/matmul_rs_loop.axe
#   compiles (--target mpi and --target cuda) to the same code as the
#   same kernel unrolled by hand, up to the line numbers in comments;
# - --explain lists each unrolled operator with its loop variables'
#   values, in execution order; a folded if keeps its branch only;
# - matmul_rs_loop at KS = 1, 2, 4 and loop_if.axe with either branch run
#   exactly (max_abs_err 0) on --target mpi and on --target cuda
#   --emulate (the NCCL emulation; float sums in the ordered form);
# - the race detector covers the segments of an unrolled loop: a needed
#   sync in a loop body blanked out makes --check fail with a race on a
#   device, the kernel with it passes.
# The runs at 2/4/8 ranks of every dist kernel are compiler_mpi.sh's and
# compiler_nccl.sh's; the refusals are compiler_errors.sh's rows. OpenMPI
# is installed through scripts/ensure_tools.sh when missing; skipped (77)
# when it cannot be. Last line: "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_mpi_start
kernel_counts
EX=$SRC/examples/kernels/dist

# The example unrolled by hand (KS = 2: k = 0, then k = 1).
cat >"$tmp/hand.axe" <<'AXE'
param P = 2;
param M = 16;
param N = 16;
param K = 32;
param KS = 2;
param KC = K / P / KS;
mesh(P);
kernel dist_matmul_rs_loop(A: f32[M,K] layout S[(M,P,K / P):(K / P,1@gpuid,1)],
                           B: f32[N,K] layout S[(N,P,K / P):(K / P,1@gpuid,1)],
                           Zp: f32[P,M,N] layout S[(P,M,N):(1@gpuid,N,1)],
                           Ck: f32[M,N] layout S[(P,M / P,N):(1@gpuid,N,1)],
                           C: f32[M,N] layout S[(P,M / P,N):(1@gpuid,N,1)])
    grid(1) threads(32) {
    cta fill(C, 0);
    cta fill(Zp.view(S[(M,N):(N,1)]), 0);
    sync;
    kernel gemm(Zp.view(S[(M,N):(N,1)]), A[0:+M, 0:+KC], B[0:+N, 0:+KC]);
    device reduce(Ck, Zp, sum, 0);
    cta add(C, C, Ck);
    cta fill(Zp.view(S[(M,N):(N,1)]), 0);
    sync;
    kernel gemm(Zp.view(S[(M,N):(N,1)]), A[0:+M, KC:+KC], B[0:+N, KC:+KC]);
    device reduce(Ck, Zp, sum, 0);
    cta add(C, C, Ck);
}
AXE
# The generated code without the source's name and line numbers (in
# comments, the bounds checks' AXE_LD/AXE_ST and the runtime's calls) and
# the unrolled loops' values the comments add after the line ("(line 25,
# k = 0)"; the hand-unrolled kernel has none: --explain's test below
# checks them).
unlined() {
    perl -pe 's/from \S+\.axe:/from FILE:/; s/\(line \d+(?:, [a-z_]\w* = -?\d+)*\)/(line L)/g;
        s/(AXE_[A-Z]+\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*?, )\d+\)/${1}L)/g;
        s/(ax_(?:mpi|nccl)_devop\(\d+, )\d+,/${1}L,/g' "$1"
}
for target in mpi cuda; do
    if "$AXE" compile "$EX/matmul_rs_loop.axe" --target $target -o "$tmp/loop.c" \
        2>"$tmp/err" &&
        "$AXE" compile "$tmp/hand.axe" --target $target -o "$tmp/hand.c" \
            2>>"$tmp/err" &&
        diff <(unlined "$tmp/loop.c") <(unlined "$tmp/hand.c") >"$tmp/diff"; then
        ok
    else
        bad "matmul_rs_loop --target $target differs from the hand-unrolled kernel: $(head -c 600 "$tmp/err" "$tmp/diff")"
    fi
done

# The generated code's comments carry each unrolled operator's k.
if "$AXE" compile "$EX/matmul_rs_loop.axe" --target mpi -o "$tmp/loop.c" \
    2>"$tmp/err" &&
    grep -q '^/\* device op 1 (line 29, k = 1): reduce-scatter' "$tmp/loop.c" &&
    grep -q '{ /\* op 4 (line 25, k = 1): cta fill -- ' "$tmp/loop.c" &&
    "$AXE" compile "$EX/matmul_rs_loop.axe" --target cuda -o "$tmp/loop.cu" \
        2>>"$tmp/err" &&
    grep -q '} /\* device op 1 (line 29, k = 1): device reduce, NCCL' "$tmp/loop.cu"; then
    ok
else
    bad "matmul_rs_loop's comments without k: $(head -c 300 "$tmp/err")"
fi

# --explain: the operators of each step in execution order, with k.
if "$AXE" compile "$EX/matmul_rs_loop.axe" --explain >"$tmp/ex" 2>&1 &&
    [ "$(grep -E '^(device )?op ' "$tmp/ex" | sed -E 's/\):.*//')" = "op 0 (line 23
op 1 (line 25, k = 0
op 2 (line 27, k = 0
device op 0 (line 29, k = 0
op 3 (line 30, k = 0
op 4 (line 25, k = 1
op 5 (line 27, k = 1
device op 1 (line 29, k = 1
op 6 (line 30, k = 1" ]; then
    ok
else
    bad "matmul_rs_loop --explain: $(grep -E '^(device )?op ' "$tmp/ex" | head -c 800)"
fi
# A folded if keeps the branch its param picks, in every step.
for spec in "1:device copy(Y, X):device copy(Z, X)" "0:device copy(Z, X):device copy(Y, X)"; do
    mode=${spec%%:*} rest=${spec#*:}
    want=${rest%%:*} gone=${rest#*:}
    if "$AXE" compile "$SRC/tests/kernels/dist/loop_if.axe" -D "MODE=$mode" --explain \
        >"$tmp/ex" 2>&1 && [ "$(grep -cF "): $want" "$tmp/ex")" = 3 ] &&
        ! grep -qF "$gone" "$tmp/ex" &&
        [ "$(grep -c '): device reduce(Z, W, max, 0)' "$tmp/ex")" = 3 ] &&
        grep -qF "device op 3 (line 30, j = 1, i = 1): device reduce" "$tmp/ex"; then
        ok
    else
        bad "loop_if -D MODE=$mode --explain: $(grep -E '^(device )?op ' "$tmp/ex" | head -c 800)"
    fi
done

# run_ok FILE N WANT ARGS...: axe run --ranks N --check --json passes with
# no race, and its JSON matches WANT (a grep -E pattern).
run_ok() {
    local f=$1 n=$2 want=$3
    shift 3
    if timeout 600 "$AXE" run "$f" --ranks "$n" --check --json "$@" \
        >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"pass":true,' "$tmp/out" && grep -q '"races":\[\],' "$tmp/out" &&
        grep -qE "$want" "$tmp/out"; then
        ok
    else
        bad "$(basename "$f") --ranks $n $*: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
}
exact='"max_abs_err":0,"max_rel_err":0,'
for ks in 1 2 4; do
    run_ok "$EX/matmul_rs_loop.axe" 2 "$exact" -D P=2 -D "KS=$ks"
    run_ok "$EX/matmul_rs_loop.axe" 2 "\"target\":\"cuda-emulated\".*$exact" -D P=2 -D "KS=$ks" \
        --target cuda --emulate
done
for mode in 0 1; do
    run_ok "$SRC/tests/kernels/dist/loop_if.axe" 4 "$exact" -D "MODE=$mode"
    run_ok "$SRC/tests/kernels/dist/loop_if.axe" 4 "$exact" -D "MODE=$mode" \
        --target cuda --emulate
done

# A needed sync inside an unrolled loop (relu writes A's element (i, k)
# from one thread, the split-k gemm reads it from others), then without
# it: the race names both accesses' iterations ("(line 9, k = 0)").
cat >"$tmp/race.axe" <<'AXE'
param P = 2;
mesh(P);
kernel dist_loop_race(A: f32[8,8] layout S[(P,8 / P,8):(1@gpuid,8,1)],
                      B: f32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid],
                      C: f32[8,8] layout S[(P,8 / P,8):(1@gpuid,8,1)],
                      D: f32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid])
    grid(1) threads(32) {
    for k in range(2) {
        cta relu(A, A);
        sync;
        kernel gemm(C, A, B);
        device copy(D, C);
        cta add(B, B, D);
    }
}
AXE
run_ok "$tmp/race.axe" 2 '"target":"mpi"'
sed 's/sync;/     /' "$tmp/race.axe" >"$tmp/race_cut.axe"
timeout 600 "$AXE" run "$tmp/race_cut.axe" --ranks 2 --check --json >"$tmp/out" 2>"$tmp/err"
if grep -q '"pass":false,"races":\[{"tensor":"A"' "$tmp/out" &&
    grep -q ' on device [0-9]*: written by thread [0-9]* (line 9, k = [01]), read by thread [0-9]* (line 11, k = [01]), no sync between","device":[0-9]' "$tmp/out"; then
    ok
else
    bad "the loop body without its sync: no race on A: $(head -c 400 "$tmp/out" "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
