#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Instruction choice for the shared operands of a tensor-core gemm (issue
# 15 §2, docs/compiler.md "Instruction choice"): for each kernel, the leaf
# that `axe compile --target cuda --explain` reports as chosen for A and
# B ("instruction choice for A 'As' (warp 0, KI K steps): LEAF, cost C (I
# instructions, W wavefronts, X-way)") is the instruction the generated
# CUDA uses for that operand, and I equals the loads counted in the
# generated code (those in the body of the atom K loop, times KI): one
# axe_ptx_ldmatrix_xN[_trans] call per atom tile, or one AXE_LD per
# fragment value. Each leaf wins somewhere: ldmatrix (gemm_mma, gemm_i8),
# ldmatrix .trans (gemm_mma_trans), per-thread loads where ldmatrix is
# not legal, with the reason (gemm_mma_pad's 72-byte rows, gemm_tf32's
# 32-bit elements). Wavefronts and ways are the bank model's, checked
# here on rows worked out by hand. The last line is "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_counts
K="$SRC/examples/kernels"
T="$SRC/tests/kernels"

# choice FILE OPERAND: the explain line of OPERAND (A or B) into $line.
choice() {
    line=$("$AXE" compile "$1" --target cuda --explain 2>"$tmp/err" |
        grep "instruction choice for $2 ")
}

# check FILE OPERAND LEAF [REASON]: LEAF is chosen for OPERAND; REASON (a
# text of the line) is given; the generated CUDA uses LEAF for it as many
# times as the model counts.
check() {
    local f=$1 o=$2 leaf=$3 why=${4:-} reg ki n got want body
    choice "$f" "$o"
    if [ -z "$line" ]; then
        bad "$(basename "$f") $o: no instruction choice ($(head -c 300 "$tmp/err"))"
        return
    fi
    case $line in
    *"): $leaf, cost "*) ok ;;
    *) bad "$(basename "$f") $o: chosen is not $leaf: $line" ;;
    esac
    if [ -n "$why" ]; then
        case $line in
        *"$why"*) ok ;;
        *) bad "$(basename "$f") $o: no '$why' in: $line" ;;
        esac
    fi
    ki=$(sed -E 's/.*\(warp 0, ([0-9]+) K step.*/\1/' <<<"$line")
    want=$(sed -E "s/.*\): $leaf, cost [0-9]+ \(([0-9]+) instructions.*/\1/" <<<"$line")
    "$AXE" compile "$f" --target cuda >"$tmp/k.cu"
    # the body of the atom K loop (one gemm per kernel here)
    body=$(sed -n '/atom K tiles/,/^            }$/p' "$tmp/k.cu")
    reg=$([ "$o" = A ] && echo a || echo b)
    case $leaf in
    ldmatrix.*)
        n=${leaf#ldmatrix.x}
        n=${n%%.*}
        local fn="axe_ptx_ldmatrix_x$n"
        [ "${leaf%.trans}" != "$leaf" ] && fn="${fn}_trans"
        got=$(grep -c "$fn(ax_$reg\[" <<<"$body")
        ;;
    *)
        got=$(grep "^ *ax_$reg\[[0-9]*\]\[[0-9]*\] = " <<<"$body" |
            grep -o "AXE_LD(" | wc -l)
        if grep -q "ldmatrix_x[0-9_a-z]*(ax_$reg\[" <<<"$body"; then
            bad "$(basename "$f") $o: per-thread chosen, ldmatrix emitted"
        fi
        ;;
    esac
    if [ -n "$want" ] && [ "$((got * ki))" -eq "$want" ] && [ "$got" -gt 0 ]; then
        ok
    else
        bad "$(basename "$f") $o: $got loads per K step x $ki in the code, the model says $want"
    fi
}

check "$K/gemm_mma.axe" A ldmatrix.x4
check "$K/gemm_mma.axe" B ldmatrix.x2
check "$K/gemm_i8.axe" A ldmatrix.x4 "ldmatrix.x4.trans not legal: ldmatrix .trans moves 16-bit elements only"
check "$T/gemm_swizzle.axe" A ldmatrix.x4
check "$T/gemm_mma_trans.axe" A ldmatrix.x4.trans "ldmatrix.x4 not legal: the 16 bytes along K are not consecutive"
check "$T/gemm_mma_trans.axe" B ldmatrix.x2.trans
check "$T/gemm_mma_pad.axe" A "per-thread loads" "ldmatrix.x4 not legal: a row's first element is not on a 16-byte boundary"
check "$T/gemm_mma_pad.axe" B ldmatrix.x2
check "$T/gemm_tf32.axe" A "per-thread loads" "ldmatrix moves 8- and 16-bit elements only"

# The bank model's counts on rows worked out by hand. gemm_mma's As has
# rows of 40 halves (80 bytes): the 8 rows of one ldmatrix phase start at
# 80r bytes, words 20r..20r+3, banks distinct mod 32 for r < 8: 1-way, so
# 4 wavefronts per .x4 and 8 instructions give 32. gemm_mma_pad's As has
# rows of 36 halves (18 words): a 2-byte load of lane l reads word
# 18(l/4) + l%4; row 7 reads words 126..129 (banks 30, 31, 0, 1), row 0
# words 0..3 (banks 0..3): banks 0 and 1 serve two words each, 2-way, so
# each load takes 2 wavefronts and 64 loads give 128.
choice "$K/gemm_mma.axe" A
case $line in
*"ldmatrix.x4, cost 40 (8 instructions, 32 wavefronts, 1-way)"*) ok ;;
*) bad "gemm_mma A counts: $line" ;;
esac
choice "$T/gemm_mma_pad.axe" A
case $line in
*"per-thread loads, cost 192 (64 instructions, 128 wavefronts, 2-way)"*) ok ;;
*) bad "gemm_mma_pad A counts: $line" ;;
esac
# The runner-up is said.
choice "$K/gemm_mma.axe" B
case $line in
*"runner-up: per-thread loads, cost "*) ok ;;
*) bad "gemm_mma B runner-up: $line" ;;
esac

# The padded kernel (per-thread loads of A, ldmatrix of B) computes the
# right result, on the C target and under the CUDA emulation.
run_check() {
    local need=$1
    shift
    command -v "$need" >/dev/null 2>&1 || return 0
    if "$AXE" run "$@" --check --json >"$tmp/out" 2>&1 &&
        grep -q '"pass":true' "$tmp/out" && ! grep -q '"races":\[[^]]' "$tmp/out" &&
        ! grep -q '"emulated_races":\[[^]]' "$tmp/out"; then
        ok
    else
        bad "axe run $* --check ($(head -c 300 "$tmp/out"))"
    fi
}
run_check "${CC:-cc}" "$T/gemm_mma_pad.axe"
run_check "${CXX:-c++}" "$T/gemm_mma_pad.axe" --target cuda --emulate

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
