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
# axe_ptx_ldmatrix_xN[_trans] call per atom tile, one AXE_LDV of
# uint32_t/uint2/uint4 per per-thread vector load, or one AXE_LD per
# fragment value (and, with nvcc, the PTX's ld.shared of each width).
# Each leaf wins somewhere: ldmatrix (gemm_mma, gemm_i8), ldmatrix .trans
# (gemm_mma_trans), ld.shared.b32 (gemm_mma_pad's 72-byte rows: no
# ldmatrix), .v4 and .v2 (gemm_mma_vec), per-thread element loads where
# no vector is legal, with the reason (gemm_tf32's 32-bit elements, an
# odd base, a swizzle that splits the 32-bit words). Wavefronts and ways are the bank model's, checked
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

# k_body: the body of the atom K loop of $tmp/k.cu (one gemm per kernel
# here) into $body; gemm.mma_reg_a unrolls its K tiles ("atom K tile N: A
# from registers"): all of them, and $ki set to 1.
k_body() {
    # from the loop's line to the brace at its indentation
    body=$(awk '/atom K tiles/ && !on { on = 1; match($0, /^ */); ind = RLENGTH }
        on { print } on && $0 ~ "^ *}$" && length($0) == ind + 1 { exit }' "$tmp/k.cu")
    if [ -z "$body" ] && grep -q "atom K tile 0: A from registers" "$tmp/k.cu"; then
        body=$(cat "$tmp/k.cu")
        ki=1
    fi
}

# synth_has FILE KEY CHOSEN COST RUNNER: `axe synth FILE --json --target
# cuda` lists under "instructions" the member "gemm#N.KEY" (the one gemm
# of the file) with that chosen leaf, cost and runner-up (a name, or
# null), as --explain says.
synth_has() {
    local f=$1 key=$2 chosen=$3 cost=$4 runner=$5
    [ "$runner" = none ] && runner=null
    [ "$runner" = null ] || runner="\"$runner\""
    "$AXE" synth "$f" --json --target cuda >"$tmp/s.json" 2>&1
    if grep -qE "\"gemm#[0-9]+\.$key\": \{\"chosen\": \"$chosen\", \"cost\": $cost, \"runner_up\": $runner\}" "$tmp/s.json"; then
        ok
    else
        bad "$(basename "$f"): axe synth has no gemm#N.$key $chosen $cost $runner: $(head -c 600 "$tmp/s.json")"
    fi
}

# check FILE OPERAND LEAF [REASON]: LEAF is chosen for OPERAND; REASON (a
# text of the line) is given; the generated CUDA uses LEAF for it as many
# times as the model counts; axe synth reports the same leaf and cost.
check() {
    local f=$1 o=$2 leaf=$3 why=${4:-} reg ki n got want body cost runner
    choice "$f" "$o"
    if [ -z "$line" ]; then
        bad "$(basename "$f") $o: no instruction choice ($(head -c 300 "$tmp/err"))"
        return
    fi
    case $line in
    *"): $leaf, cost "*) ok ;;
    *) bad "$(basename "$f") $o: chosen is not $leaf: $line" ;;
    esac
    cost=$(sed -E "s/.*\): $leaf, cost ([0-9]+) .*/\1/" <<<"$line")
    runner=$(sed -E 's/.*; runner-up: ([^,;]+)(, cost|;|$).*/\1/' <<<"$line")
    synth_has "$f" "$o" "$leaf" "$cost" "$runner"
    if [ -n "$why" ]; then
        case $line in
        *"$why"*) ok ;;
        *) bad "$(basename "$f") $o: no '$why' in: $line" ;;
        esac
    fi
    ki=$(sed -E 's/.*\(warp 0, ([0-9]+) K step.*/\1/' <<<"$line")
    want=$(sed -E "s/.*\): $leaf, cost [0-9]+ \(([0-9]+) instructions.*/\1/" <<<"$line")
    "$AXE" compile "$f" --target cuda >"$tmp/k.cu"
    k_body
    reg=$([ "$o" = A ] && echo a || echo b)
    case $leaf in
    ldmatrix.*)
        n=${leaf#ldmatrix.x}
        n=${n%%.*}
        local fn="axe_ptx_ldmatrix_x$n"
        [ "${leaf%.trans}" != "$leaf" ] && fn="${fn}_trans"
        got=$(grep -c "$fn(ax_$reg\[" <<<"$body")
        ;;
    ld.shared*)
        # one "const VT ax_v = AXE_LDV(VT, ..." per load, its words then
        # assigned to ax_REG registers; no element load of the operand
        local vt=uint32_t
        case $leaf in *.v2.*) vt=uint2 ;; *.v4.*) vt=uint4 ;; esac
        got=$(awk -v r="ax_$reg[" -v v="const $vt ax_v = AXE_LDV($vt, " \
            '{ sub(/^ */, "") } prev && index($0, r) == 1 { n++ } { prev = index($0, v) == 1 } END { print n + 0 }' <<<"$body")
        if grep "^ *ax_$reg\[[0-9]*\]\[[0-9]*\] = " <<<"$body" | grep -q "AXE_LD("; then
            bad "$(basename "$f") $o: $leaf chosen, element loads emitted"
        fi
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
check "$T/gemm_mma_pad.axe" A ld.shared.b32 "ldmatrix.x4 not legal: a row's first element is not on a 16-byte boundary"
check "$T/gemm_mma_pad.axe" B ldmatrix.x2
check "$T/gemm_tf32.axe" A "per-thread loads" "ldmatrix moves 8- and 16-bit elements only"
check "$T/gemm_tf32.axe" A "per-thread loads" "ld.shared.b32 not legal: 32-bit elements: the per-thread loads are 32-bit already"
# Per-thread vector loads (gemm_mma_vec's interleaved layouts): A's four
# registers in one 16-byte load, B's two in one 8-byte load.
check "$T/gemm_mma_vec.axe" A ld.shared.v4.b32 "ldmatrix.x4 not legal: the 16 bytes along K are not consecutive"
check "$T/gemm_mma_vec.axe" B ld.shared.v2.b32 "ld.shared.v4.b32 not legal: the fragment's registers do not come in groups of the vector"

# Vector loads fall back where a 32-bit word of a register is not
# aligned or not contiguous: gemm_mma_pad's A one element off (odd base),
# or under Swizzle<0, 3, 3> (bits 3-5 of the element offset xored into
# bits 0-2: a register's two halves swap or part); a swizzle of 4-byte
# units (Swizzle<1, 2, 3>) keeps the words: ld.shared.b32.
mis() {
    sed "s|shared As: f16\[128, 32\] layout S\[(128, 32):(36, 1)\];|shared As: f16[128, 32] layout $1;|" \
        "$T/gemm_mma_pad.axe" >"$tmp/$2.axe"
    grep -qF "layout $1;" "$tmp/$2.axe" || bad "mis $2: the layout was not replaced"
}
mis "S[(128, 32):(36, 1)] + 1" odd_base
mis "Swizzle<0, 3, 3>(S[(128, 32):(32, 1)])" swz_elem
mis "Swizzle<1, 2, 3>(S[(128, 32):(32, 1)])" swz_word
check "$tmp/odd_base.axe" A "per-thread loads" "ld.shared.b32 not legal: "
check "$tmp/swz_elem.axe" A "per-thread loads" "ld.shared.b32 not legal: "
check "$tmp/swz_word.axe" A ld.shared.b32 "ldmatrix.x4 not legal: "
# tf32 (f32 registers): gemm_tf32's shared tiles with K stored as (k / 8,
# k % 4, k / 4 % 2): a lane's registers at K t and t + 4 are adjacent,
# .v2 for A and B, each word's f32 converted by cvt.rna.tf32.
sed -e 's|    shared As: f32\[32, 8 \* KT\];|    shared As: f32[32, 8 * KT] layout S[(32, KT, 2, 4):(8 * KT, 8, 1, 2)];|' \
    -e 's|    shared Bs: f32\[16, 8 \* KT\];|    shared Bs: f32[16, 8 * KT] layout S[(16, KT, 2, 4):(8 * KT, 8, 1, 2)];|' \
    "$T/gemm_tf32.axe" >"$tmp/tf32_vec.axe"
[ "$(grep -c 'layout S\[(\(32\|16\), KT, 2, 4)' "$tmp/tf32_vec.axe")" = 2 ] || bad "tf32_vec: the layouts were not replaced"
check "$tmp/tf32_vec.axe" A ld.shared.v2.b32 "ld.shared.b32 not legal: 32-bit elements"
check "$tmp/tf32_vec.axe" B ld.shared.v2.b32

# mma shapes: shape FILE SHAPE [TEXT]: --explain's "mma shape choice:"
# line chose SHAPE (and says TEXT), its mma.sync count equals the calls
# of the atom's wrapper in the atom K loop of the CUDA, times KI, and axe
# synth reports the same shape, cost and runner-up.
shape() {
    local f=$1 sh=$2 why=${3:-} want ki got cost runner
    line=$("$AXE" compile "$f" --target cuda --explain 2>"$tmp/err" |
        grep "mma shape choice: ")
    case $line in
    *"choice: $sh, cost "*) ok ;;
    *) bad "$(basename "$f"): shape is not $sh: $line $(head -c 200 "$tmp/err")" ;;
    esac
    if [ -n "$why" ]; then
        case $line in
        *"$why"*) ok ;;
        *) bad "$(basename "$f"): no '$why' in: $line" ;;
        esac
    fi
    want=$(sed -E "s/.*choice: $sh, cost [0-9]+ \(([0-9]+) mma.sync.*/\1/" <<<"$line")
    cost=$(sed -E "s/.*choice: $sh, cost ([0-9]+) .*/\1/" <<<"$line")
    runner=$(sed -E 's/.*runner-up: ([^,;]+)(, cost|;|$).*/\1/' <<<"$line")
    synth_has "$f" shape "$sh" "$cost" "$runner"
    choice "$f" B
    ki=$(sed -E 's/.*\(warp 0, ([0-9]+) K step.*/\1/' <<<"$line")
    "$AXE" compile "$f" --target cuda >"$tmp/k.cu"
    k_body
    got=$(grep -cE "axe_ptx_mma_${sh}_f32_b?f16\(&" <<<"$body")
    if [ "$((got * ki))" -eq "$want" ] && [ "$got" -gt 0 ]; then
        ok
    else
        bad "$(basename "$f"): $got mma.sync per K step x $ki in the code, the model says $want"
    fi
}
shape "$K/gemm_mma.axe" m16n8k16 "runner-up: m16n8k8, cost "
shape "$T/gemm_k24.axe" m16n8k8 "m16n8k16 does not apply: K = 24 is not a multiple of the atom's K = 16"
check "$T/gemm_k24.axe" A ldmatrix.x2
check "$T/gemm_k24.axe" B ldmatrix.x1
shape "$T/gemm_k24_bf16.axe" m16n8k8 "m16n8k16 does not apply: K = 24 is not a multiple of the atom's K = 16"
# gemm.mma_reg_a weighs the atoms the same way (A in registers: no loads).
shape "$T/gemm_reg_a.axe" m16n8k16 "runner-up: m16n8k8, cost "
shape "$T/gemm_reg_a_k24.axe" m16n8k8 "m16n8k16 does not apply: K = 24 is not a multiple of the atom's K = 16"
check "$T/gemm_reg_a_k24.axe" B ldmatrix.x1
# A register A has no load choice: no "gemm#N.A" in axe synth.
"$AXE" synth "$T/gemm_reg_a_k24.axe" --json --target cuda >"$tmp/s.json" 2>&1
if grep -q '"gemm#3\.B"' "$tmp/s.json" && ! grep -q '"gemm#[0-9]*\.A"' "$tmp/s.json"; then
    ok
else
    bad "gemm_reg_a_k24: axe synth: $(head -c 400 "$tmp/s.json")"
fi

# An f32 gemm without tf32 runs f32 FMA on the m16n8k8 fragments (no
# mma.sync on either target): its shape is reported so, and the CUDA
# calls no mma wrapper.
"$AXE" synth "$T/mma_smem_warp.axe" --json --target cuda >"$tmp/s.json" 2>&1
if grep -qF '"gemm#2.shape": {"chosen": "f32 FMA m16n8k8", "cost": 4, "runner_up": null}' "$tmp/s.json"; then
    ok
else
    bad "mma_smem_warp (f32, no tf32): axe synth: $(head -c 400 "$tmp/s.json")"
fi
line=$("$AXE" compile "$T/mma_smem_warp.axe" --target cuda --explain | grep "mma shape choice: ")
case $line in
*"choice: f32 FMA m16n8k8, cost 4 (4 atom steps of f32 FMA on the m16n8k8 fragments; tf32 mma.sync only when the kernel asks for it"*) ok ;;
*) bad "mma_smem_warp shape line: $line" ;;
esac
"$AXE" compile "$T/mma_smem_warp.axe" --target cuda >"$tmp/k.cu"
if ! grep -q "axe_ptx_mma_" "$tmp/k.cu" && grep -q "cuda: f32 FMA on the fragments" "$tmp/k.cu"; then
    ok
else
    bad "mma_smem_warp: the CUDA calls an mma wrapper"
fi

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
# ld.shared.b32 reads words 18(l/4) + l%4 alike: 2 wavefronts each, 32
# loads give 64.
choice "$T/gemm_mma_pad.axe" A
case $line in
*"ld.shared.b32, cost 96 (32 instructions, 64 wavefronts, 2-way); runner-up: per-thread loads, cost 192 (64 instructions, 128 wavefronts, 2-way)"*) ok ;;
*) bad "gemm_mma_pad A counts: $line" ;;
esac
# gemm_mma_vec's Bs: lane l's 8 bytes at 80 (l/4) + 8 (l%4) (rows of 40
# halves): in a phase of 16 lanes, rows 0-3 start at words 0, 20, 40, 60
# (banks 0, 20, 8, 28), each row's 4 lanes 8 words from there: banks
# 0-7, 20-27, 8-15, 28-3; 28-31 and 0-3 overlap: 2-way, 2 wavefronts a
# phase, 4 a load; 8 loads give 32.
choice "$T/gemm_mma_vec.axe" B
case $line in
*"ld.shared.v2.b32, cost 40 (8 instructions, 32 wavefronts, 2-way)"*) ok ;;
*) bad "gemm_mma_vec B counts: $line" ;;
esac
# The runner-up is said.
choice "$K/gemm_mma.axe" B
case $line in
*"runner-up: ld.shared.b32, cost "*) ok ;;
*) bad "gemm_mma B runner-up: $line" ;;
esac

# With nvcc, the PTX has as many shared loads of each width as the model
# counts (the atom K loop unrolled, or once per step), and no 16-bit
# element loads: gemm_mma_pad's A 32 ld.shared.u32, gemm_mma_vec's A 8
# .v4 and B 8 .v2, tf32_vec's A and B 4 .v2 each.
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
ptx_count() {
    local f=$1 re=$2 want=$3 ki=$4 got
    "$AXE" compile "$f" --target cuda >"$tmp/p.cu" &&
        "$NVCC" -arch=sm_80 -ptx "$tmp/p.cu" -o "$tmp/p.ptx" 2>"$tmp/p.nv" ||
        { bad "$(basename "$f"): no PTX ($(head -c 300 "$tmp/p.nv"))"; return; }
    got=$(grep -cE "$re" "$tmp/p.ptx")
    if [ "$got" -eq "$want" ] || [ "$((got * ki))" -eq "$want" ]; then
        ok
    else
        bad "$(basename "$f"): $got '$re' in the PTX, the model says $want"
    fi
    if grep -qE 'ld\.shared\.(u|b)16' "$tmp/p.ptx"; then
        bad "$(basename "$f"): 16-bit shared loads in the PTX"
    fi
}
if command -v "$NVCC" >/dev/null 2>&1; then
    ptx_count "$T/gemm_mma_pad.axe" 'ld\.shared\.(u|b)32' 32 2
    ptx_count "$T/gemm_mma_vec.axe" 'ld\.shared\.v4\.(u|b)32' 8 2
    ptx_count "$T/gemm_mma_vec.axe" 'ld\.shared\.v2\.(u|b)32' 8 2
    ptx_count "$tmp/tf32_vec.axe" 'ld\.shared\.v2\.(u|b|f)32' 8 2
else
    echo "note: no nvcc, the PTX load counts were not checked"
fi

# The padded kernel (per-thread loads of A, ldmatrix of B) and the K-24
# kernel (m16n8k8) compute the right result, on the C target and under
# the CUDA emulation; gemm_k24 at two sizes.
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
run_check "${CC:-cc}" "$T/gemm_k24.axe"
run_check "${CC:-cc}" "$T/gemm_k24.axe" -D M=256 -D K=72 --seed 5
run_check "${CXX:-c++}" "$T/gemm_mma_pad.axe" --target cuda --emulate
run_check "${CC:-cc}" "$T/gemm_mma_vec.axe"
run_check "${CXX:-c++}" "$T/gemm_mma_vec.axe" --target cuda --emulate
run_check "${CXX:-c++}" "$T/gemm_mma_vec.axe" -D M=128 -D K=96 --seed 7 --target cuda --emulate
run_check "${CXX:-c++}" "$tmp/odd_base.axe" --target cuda --emulate
run_check "${CXX:-c++}" "$tmp/swz_word.axe" --target cuda --emulate
run_check "${CC:-cc}" "$tmp/tf32_vec.axe"
run_check "${CXX:-c++}" "$tmp/tf32_vec.axe" --target cuda --emulate
# The emulation faults a vector load off its alignment, as a GPU does:
# gemm_mma_pad's ld.shared.b32 of A moved one element.
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    if AXE_RUN_EDIT="sed -i 's|AXE_LDV(uint32_t, t_As, 0L + |AXE_LDV(uint32_t, t_As, 1L + |'" \
        "$AXE" run "$T/gemm_mma_pad.axe" --target cuda --emulate --check >"$tmp/out" 2>&1; then
        bad "gemm_mma_pad with a misaligned ld.shared.b32: the emulated check passed"
    elif grep -qE "t_As: a 4-byte vector load at element [0-9]+ \(line [0-9]+\) is not 4-byte aligned" "$tmp/out"; then
        ok
    else
        bad "gemm_mma_pad misaligned: $(head -c 400 "$tmp/out")"
    fi
fi
run_check "${CXX:-c++}" "$T/gemm_k24.axe" --target cuda --emulate
run_check "${CC:-cc}" "$T/gemm_k24_bf16.axe"
run_check "${CXX:-c++}" "$T/gemm_k24_bf16.axe" --target cuda --emulate
run_check "${CC:-cc}" "$T/gemm_reg_a_k24.axe"
run_check "${CXX:-c++}" "$T/gemm_reg_a_k24.axe" --target cuda --emulate
run_check "${CXX:-c++}" "$T/gemm_reg_a_k24.axe" -D K=40 --seed 3 --target cuda --emulate

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
