#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regions of distributed tensors at device scope (docs/compiler.md,
# "Regions at device scope"; issue 14): a device operator's operand may be
# a region with constant starts; its layout is the tensor's sliced to the
# region, so the planners derive the collective from where the region's
# elements live, and the buffers stay the tensor's. Through the CLI
# ($AXE_BIN):
# - tests/kernels/dist/region_*.axe (copy, reduce, gemm: a region on one
#   device, regions spanning devices, on part of the mesh, loop-variable
#   starts in an unrolled loop, a gemm operand copied first) and
#   examples/kernels/dist/matmul_rs_regions.axe (KS = 1, 2, 4) at --ranks
#   2, 4 and 8 (-D P=N) pass --check exactly (max_abs_err 0) with no race
#   on --target mpi and on --target cuda --emulate (the NCCL emulation);
#   tests/kernels/dist/gemm_copy_both.axe (A and B on parts of the mesh:
#   both copied first) at 2 (mpi) and 8 (cuda --emulate); its --explain
#   at 8 copies them to a region of C with a gap only where C lives;
#   tests/kernels/dist/gemm_split_k.axe (both copied to a replicated C, K
#   split over its replicas) at 2 and 8 on both targets, its --explain;
#   tests/kernels/dist/gemm_split_rep.axe (A and B replicated: M or K
#   split over their replicas) likewise.
#   The reference reads a region through the tensor's own layout at the
#   region's coordinates, not through the sliced layout the backends run;
# - a region that is the whole tensor compiles (mpi and cuda) to the same
#   code as the tensor written whole (one-line comments aside: they name
#   the operands);
# - --explain names the regions, their sliced layouts, their tensors and
#   their part of each local shard, and the collective.
# The laws (plans of random regions against brute force) are
# tests/test_compiler_dist.c's; the refusals compiler_errors.sh's rows.
# OpenMPI is installed through scripts/ensure_tools.sh when missing;
# skipped (77) when it cannot be. Last line: "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_mpi_start
kernel_counts
EX=$SRC/examples/kernels/dist
KD=$SRC/tests/kernels/dist

# run_exact FILE N ARGS...: axe run --ranks N --check --json passes with
# no race and max_abs_err 0.
run_exact() {
    local f=$1 n=$2
    shift 2
    if timeout 600 "$AXE" run "$f" --ranks "$n" --check --json "$@" \
        >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"max_abs_err":0,"max_rel_err":0,"pass":true,' "$tmp/out" &&
        grep -q '"races":\[\],' "$tmp/out"; then
        ok
    else
        bad "$(basename "$f") --ranks $n $*: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
}
for n in 2 4 8; do
    for f in "$KD"/region_*.axe; do
        run_exact "$f" "$n" -D "P=$n"
        run_exact "$f" "$n" -D "P=$n" --target cuda --emulate
    done
    for ks in 1 2 4; do
        run_exact "$EX/matmul_rs_regions.axe" "$n" -D "P=$n" -D "KS=$ks"
    done
    run_exact "$EX/matmul_rs_regions.axe" "$n" -D "P=$n" --target cuda --emulate
done
# A and B both on parts of the mesh, both copied to C's placement (at P =
# 4 compiler_mpi.sh and compiler_nccl.sh run it with every dist kernel).
run_exact "$KD/gemm_copy_both.axe" 2 -D P=2
run_exact "$KD/gemm_copy_both.axe" 8 -D P=8 --target cuda --emulate
# Both copied to a replicated C, K split over its replicas, the partial
# sums all-reduced (at P = 4 compiler_mpi.sh and compiler_nccl.sh run it
# with every dist kernel).
for n in 2 8; do
    run_exact "$KD/gemm_split_k.axe" "$n" -D "P=$n"
    run_exact "$KD/gemm_split_k.axe" "$n" -D "P=$n" --target cuda --emulate
done
# A and B both replicated: the replicas split M or K instead of computing
# the same partial sums, then all-gather, all-reduce or exchange into C
# (at P = 4 compiler_mpi.sh and compiler_nccl.sh run it with every dist
# kernel).
for n in 2 8; do
    run_exact "$KD/gemm_split_rep.axe" "$n" -D "P=$n"
    run_exact "$KD/gemm_split_rep.axe" "$n" -D "P=$n" --target cuda --emulate
done

# A region that is the whole tensor is the tensor.
mkdir -p "$tmp/whole" "$tmp/region" "$tmp/colon"
cat >"$tmp/whole/w.axe" <<'AXE'
param P = 4;
mesh(P);
kernel w(A: f32[8,16] layout S[(P,8 / P,16):(1@gpuid,16,1)],
         B: f32[8,16] layout S[(8,P,16 / P):(16 / P,1@gpuid,1)],
         C: f32[4,8,16] layout S[(4,8,16):(128,16,1)] + R[P:1@gpuid],
         D: f32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid])
    grid(1) threads(32) {
    device copy(B, A);
    device reduce(A, C, sum, 0);
    device gemm(D, B, A);
}
AXE
sed 's|copy(B, A)|copy(B[0:+8, 0:+16], A[0:8, 0:16])|;
     s|reduce(A, C,|reduce(A[0:+8, 0:+16], C[0:+4, 0:+8, 0:+16],|;
     s|gemm(D, B, A)|gemm(D[0:8, 0:8], B[0:8, 0:16], A[0:8, 0:16])|' \
    "$tmp/whole/w.axe" >"$tmp/region/w.axe"
# ':' alone is a whole dimension (start 0, the tensor's extent).
sed 's|copy(B, A)|copy(B[:, :], A[:, 0:16])|;
     s|reduce(A, C,|reduce(A[:, :], C[:, 0:+8, :],|;
     s|gemm(D, B, A)|gemm(D[:, :], B[0:8, :], A[:, 0:16])|' \
    "$tmp/whole/w.axe" >"$tmp/colon/w.axe"
for target in mpi cuda; do
    for v in region colon; do
        if (cd "$tmp/whole" && "$AXE" compile w.axe --target "$target" >"$tmp/whole.out") &&
            (cd "$tmp/$v" && "$AXE" compile w.axe --target "$target" >"$tmp/region.out") &&
            grep -q 'device op 2' "$tmp/whole.out" &&
            ! cmp -s "$tmp/whole/w.axe" "$tmp/$v/w.axe" &&
            sed -i 's|/\*.*\*/||' "$tmp/whole.out" "$tmp/region.out" &&
            cmp -s "$tmp/whole.out" "$tmp/region.out"; then
            ok
        else
            bad "whole-tensor regions ($v) --target $target: not the whole tensors' code: $(diff "$tmp/whole.out" "$tmp/region.out" | head -c 400)"
        fi
    done
done
# A ':' region of part of the mesh, exact at 2, 4 and 8 ranks (mpi, cuda).
sed 's|device copy(B\[0:+R, 0:+16\], A\[R:+R, 0:+16\]);|device copy(B[0:+R, :], A[R:+R, :]);|;
     s|device copy(D\[0:+8, 8:+8\], A\[0:+8, 4:+8\]);|device copy(D[:, 8:+8], A[:, 4:+8]);|' \
    "$KD/region_copy.axe" >"$tmp/colon/region_copy.axe"
if [ "$(grep -c '\[:, \|, :\]' "$tmp/colon/region_copy.axe")" = 2 ]; then
    for n in 2 4 8; do
        run_exact "$tmp/colon/region_copy.axe" "$n" -D "P=$n"
        run_exact "$tmp/colon/region_copy.axe" "$n" -D "P=$n" --target cuda --emulate
    done
else
    bad "region_copy.axe: the ':' rewrite did not apply"
fi

# --explain names the regions.
if "$AXE" compile "$KD/region_copy.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -qxF 'device op 0 (line 23): device copy(B[0:2, 0:16], A[2:4, 0:16])' "$tmp/ex" &&
    grep -qxF '  src A[2:4, 0:16]: f32[2,16] layout S[(1,2,16):(1@gpuid,16,1)] + 1@gpuid' "$tmp/ex" &&
    grep -qxF '    region of A: f32[8,16] layout S[(4,2,16):(1@gpuid,16,1)]' "$tmp/ex" &&
    grep -qxF '    its part of each local shard: f32[2,16] layout S[(2,16):(16,1)] (in A'"'"'s 32 elements of storage)' "$tmp/ex" &&
    grep -qF 'collective broadcast: dst replicates over gpuid (4 copies); src lives on device 1 only' "$tmp/ex" &&
    grep -qxF '  dst D[0:8, 8:16]: f32[8,8] layout S[(8,2,4):(4,1@gpuid,1)] + 2@gpuid' "$tmp/ex" &&
    grep -qxF 'device op 3 (line 27, k = 1): device copy(E[2:4, 0:16], A[4:6, 0:16])' "$tmp/ex"; then
    ok
else
    bad "region_copy --explain: $(grep -A8 '^device op 0' "$tmp/ex" | head -c 900)"
fi
if "$AXE" compile "$EX/matmul_rs_regions.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -qxF 'device op 1 (line 27, k = 1): device gemm(Ck, A[0:16, 16:32], B[0:16, 16:32])' "$tmp/ex" &&
    grep -qF 'local GEMM on every device: partial[16,16] = A[0:16, 16:32]_local . B[0:16, 16:32]_local^T over its 8 k'"'"'s of K' "$tmp/ex" &&
    grep -qF 'collective (device reduce of the partial sums into Ck, sum over dim 0) reduce-scatter' "$tmp/ex"; then
    ok
else
    bad "matmul_rs_regions --explain: $(grep -A14 '^device op 1' "$tmp/ex" | head -c 1200)"
fi
# Both copied to a region of C with a gap (C7[0:2, 0:4] on devices 0, 1, 4
# and 5 of 8): the copies go to those devices only, the partial sums have
# no replica over the gap's digit.
if "$AXE" compile "$KD/gemm_copy_both.axe" -D P=8 --explain >"$tmp/ex" 2>&1 &&
    grep -qF 'so A3[0:2, 0:8] is first copied to S[(2,8):(1@gpuid,1)] + R[2:4@gpuid] (its rows' "$tmp/ex" &&
    grep -qF 'and B3[0:4, 0:8] is first copied to S[(2,2,8):(4@gpuid,8,1)] + R[2:1@gpuid] (its rows' "$tmp/ex" &&
    grep -qxF '  partial sums: f32[1,2,4] layout S[(1,2,2,2):(0,1@gpuid,4@gpuid,1)]' "$tmp/ex"; then
    ok
else
    bad "gemm_copy_both -D P=8 --explain: $(grep -A14 '^device op 6' "$tmp/ex" | head -c 1500)"
fi
# K split over C's 8 replicas (each device receives a slice of K of A's
# and B's rows, its partial sums all-reduce), over C2's 4 (rows sharded
# over two halves), and not for a K too short (K whole): there 8 divides
# none of M = N = 4 and K = 2, so the replicas' factors split M over 4
# and N over 2 (each product computed once; before, by all 8).
if "$AXE" compile "$KD/gemm_split_k.axe" -D P=8 --explain >"$tmp/ex" 2>&1 &&
    grep -qxF '  so A is first copied to S[(4,8,8):(8,1@gpuid,1)] (its rows placed as C'"'"'s rows, K split over C'"'"'s 8 replicas)' "$tmp/ex" &&
    grep -qxF '  and B is first copied to S[(4,8,8):(8,1@gpuid,1)] (its rows placed as C'"'"'s columns, K split over C'"'"'s 8 replicas)' "$tmp/ex" &&
    grep -qF 'collective (device reduce of the partial sums into C, sum over dim 0) all-reduce' "$tmp/ex" &&
    grep -qF '(its rows placed as C2'"'"'s rows, K split over C2'"'"'s 4 replicas)' "$tmp/ex" &&
    grep -qxF '  A and B as used both replicate (8:1@gpuid): their 8 replicas would compute the same partial sums; 8 divides no memory run of M, N or K, so, over their prime factors (inner first; M takes the innermost, N the next, K the next, the rest none), M (A'"'"'s rows) is split over 4 and N (B'"'"'s rows) is split over 2 of them (1/8 of the multiply-adds each: the most replicas that divide, then the fewest elements received per device by the transfer rule)' "$tmp/ex" &&
    grep -qxF '  so A3 is first copied to S[(2,2,2):(2@gpuid,1@gpuid,1)] + R[2:4@gpuid] (its rows placed as C'"'"'s rows, its rows split over 4 of the 8 replicas of the partial sums)' "$tmp/ex" &&
    grep -qxF '  and B3 is first copied to S[(2,2,2):(4@gpuid,2,1)] + R[(2,2):(2@gpuid,1@gpuid)] (its rows placed as C'"'"'s columns, its rows split over 2 of the 8 replicas of the partial sums)' "$tmp/ex"; then
    ok
else
    bad "gemm_split_k -D P=8 --explain: $(grep -E 'first copied|collective' "$tmp/ex" | head -c 1500)"
fi

# gemm_split_rep at P = 8, counted by hand (elements received per device
# by the transfer rule): C = A B^T, all replicated: M split, each device
# receives 7 of A's 8 rows of C (4 each) = 28; N = 4 does not divide by
# 8; K split all-reduces 7 other partial sums of C's 32 = 224. C2 (3 x
# 5): only K splits (7 x 15 = 105). A3 with K on 2 devices, replicated
# over 4: M splits 8 rows by 4, and each device receives the 64 partial
# values of C less its own 8 = 56.
if "$AXE" compile "$KD/gemm_split_rep.axe" -D P=8 --explain >"$tmp/ex" 2>&1 &&
    grep -qxF '  A and B as used both replicate (8:1@gpuid): their 8 replicas would compute the same partial sums, so M (A'"'"'s rows) is split over them (1/8 of the multiply-adds each; elements received per device, copies and collective, by the transfer rule: M (A'"'"'s rows) 28, N (B'"'"'s rows) none, K 224; the fewest, M before N before K)' "$tmp/ex" &&
    grep -qxF '  so A is first copied to S[(8,16):(1@gpuid,1)] (its rows split over the 8 replicas of the partial sums)' "$tmp/ex" &&
    grep -qF 'collective (device reduce of the partial sums into C, sum over dim 0) all-gather' "$tmp/ex" &&
    grep -qF 'by the transfer rule: M (A'"'"'s rows) none, N (B'"'"'s rows) none, K 105; the fewest' "$tmp/ex" &&
    grep -qxF '  and B2 is first copied to S[(5,8,2):(2,1@gpuid,1)] (K split over the 8 replicas of the partial sums)' "$tmp/ex" &&
    grep -qF 'collective (device reduce of the partial sums into C2, sum over dim 0) all-reduce' "$tmp/ex" &&
    grep -qF 'replicate (4:2@gpuid): their 4 replicas would compute the same partial sums, so M (A'"'"'s rows) is split over them (1/4 of the multiply-adds each; elements received per device, copies and collective, by the transfer rule: M (A'"'"'s rows) 56, N (B'"'"'s rows) 56, K 224;' "$tmp/ex"; then
    ok
else
    bad "gemm_split_rep -D P=8 --explain: $(grep -E 'both replicate|first copied|collective' "$tmp/ex" | head -c 1500)"
fi

# The partial sums' line where K is whole: placed as C (both operands
# copied to C's placement: gemm_copy_both) it is C; with M split
# (gemm_split_rep at P = 2) each device holds a piece of C, which the
# all-gather below places (the text said "C = the partial" there too).
if "$AXE" compile "$KD/gemm_copy_both.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -qxF "    (K is whole on every device: C = the partial, placed as C's layout says)" "$tmp/ex" &&
    "$AXE" compile "$KD/gemm_split_rep.axe" -D P=2 --explain >"$tmp/ex" 2>&1 &&
    grep -qxF "    (K is whole on every device: each element of C is one device's partial, no sum; the collective below moves them to C's placement)" "$tmp/ex" &&
    ! grep -qF "C = the partial, placed as" "$tmp/ex"; then
    ok
else
    bad "partial sums with K whole --explain: $(grep -A1 'partial sums:' "$tmp/ex" | head -c 900)"
fi

# A mixed split (split 4) at P = 8 (gemm_split_mixed): M over 2 and K
# over 4; and M over 4 with B2 copied only to fit C2's columns, taking
# no factor: its line ends "K whole)" (it printed nothing before the
# tail). Both gemms pass --check on mpi and cuda --emulate in
# compiler_mpi.sh and compiler_nccl.sh (every kernel of this folder).
if "$AXE" compile "$KD/gemm_split_mixed.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -qF "so, over their prime factors (inner first; M takes the innermost, N the next, K the next, the rest none), M (A's rows) is split over 2 and K is split over 4 of them (1/8 of the multiply-adds each" "$tmp/ex" &&
    grep -qF " (its rows placed as C's columns, K over 4 of the 8 replicas of the partial sums)" "$tmp/ex" &&
    grep -qF " (its rows placed as C2's columns, K whole)" "$tmp/ex" &&
    ! grep -qF ",  of the" "$tmp/ex"; then
    ok
else
    bad "gemm_split_mixed --explain: $(grep -E 'first copied' "$tmp/ex" | head -c 1500)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
