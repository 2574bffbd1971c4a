#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# ldmatrix copies of packed i4 (docs/compiler.md, "ldmatrix copies"):
# - tests/kernels/i4_ldsm.axe, i4_ldsm_auto.axe, i4_ldsm_hexcute.axe
#   (Hexcute's packed shared layout, B-fragment words) and
#   i4_ldsm_hexcute_auto.axe (that layout synthesized from the register's
#   ldmatrix rows, equivalent to the hand-written one) pass `axe run
#   --check` exactly on --target c and --target cuda --emulate at two sizes;
# - their CUDA copies the shared tile into q by one ldmatrix.x4 per
#   thread, and --explain gives the chosen leaf, its cost and the
#   runner-up (bank model: 2-way on the row-major tile, 1-way on the
#   synthesized swizzle; recounted here from the layouts), and
#   `axe synth` lists it as "copy#1.load";
# - the check can fail: the emitted code with lane 8j + r giving the row
#   of lane 4 ((r + 1) % 8) fails the emulated check;
# - a register whose words are not ldmatrix's (rows along laneid % 8)
#   keeps its per-thread loads, exact;
# - where ldmatrix is not legal (i4_smem.axe, i4_swz.axe), the copy's
#   --explain line says why;
# - 8- and 16-bit elements (ldsm_f16.axe, ldsm_i8.axe: ldmatrix.x4;
#   ldsm_f16_trans.axe and its bf16 twin: ldmatrix.x4.trans) exact on both
#   targets, two ldmatrix per thread, --explain's costs recounted here by
#   a bank model of the script's own from the layouts, `axe synth` naming
#   the .trans leaf, and a .trans mutant with rotated rows failing the
#   emulated check;
# - examples/kernels/gemm_f16_i4_regb.axe (B loaded by ldmatrix in the B
#   fragment's nibble order, cast to f16 in the same register order and
#   taken by gemm.mma_reg_b from the registers) and
#   tests/kernels/gemm_reg_perm.axe (register A and B in another order
#   than the atom's) are exact on c and within the f32 tolerance emulated,
#   --explain names ldmatrix for the B load and mma_reg_b for the gemm,
#   the emitted CUDA has fewer shared stores and loads of B than
#   gemm_f16_i4.axe's (counted from its loops), and fragments packed in
#   the atom's register order instead fail the emulated check; its
#   layout-auto twin gemm_f16_i4_regb_auto.axe synthesizes bq, bf and acc
#   (checked by equivalence), exact, with the same counts; both hold bf's
#   f16 values two to a 32-bit word (no 16-bit register array).
# Skipped (77) without a C compiler; the emulated runs need a C++ one.
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

kernel_counts
kernel_cli_or_finish
T="$SRC/tests/kernels"
exact_run() { kernel_exact_run "$T/$1" "${@:2}"; }

targets=("")
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    targets+=("--target cuda --emulate")
else
    echo "note: no C++ compiler: the emulated runs skipped"
fi
for tg in "${targets[@]}"; do
    # shellcheck disable=SC2086 # (the target's words)
    {
        exact_run i4_ldsm.axe $tg
        exact_run i4_ldsm.axe -D M=320 --seed 5 $tg
        exact_run i4_ldsm_auto.axe $tg
        exact_run i4_ldsm_auto.axe -D M=64 --seed 3 $tg
        exact_run i4_ldsm_hexcute.axe $tg
        exact_run i4_ldsm_hexcute.axe -D G=3 --seed 4 $tg
        exact_run i4_ldsm_hexcute_auto.axe $tg
        exact_run i4_ldsm_hexcute_auto.axe -D G=3 --seed 4 $tg
    }
done

# The counts, recounted from the layouts: lane l of warp 0 reads word g
# = rh + 2 ch at byte (8 rh + l / 4) * 32 + 16 ch + 4 (l % 4). ldmatrix:
# one instruction, 4 phases (matrices) of 8 rows of 16 bytes 32 bytes
# apart: banks 0, 8, 16, 24, 0, ... twice each: 2 wavefronts a phase. The
# per-thread loads: 4 of 4 bytes, each 32 lanes over 8 rows: 2-way, 2
# wavefronts each. Cost = instructions + wavefronts.
explain_row() {
    local f=$1 want=$2
    "$AXE" compile "$T/$f" --target cuda --explain >"$tmp/ex.txt" 2>&1
    if grep -qF -- "$want" "$tmp/ex.txt"; then
        ok
    else
        bad "$f --explain: $(grep -m2 -E 'ldmatrix|per-thread' "$tmp/ex.txt")"
    fi
}
explain_row i4_ldsm.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 9 (1 instructions, 8 wavefronts, 2-way); runner-up: per-thread 4-byte loads, cost 12 (4 instructions, 8 wavefronts, 2-way)"
# Swizzle<5,1,3> xors row bit 2 into the 16-byte unit bit 0: the 8 rows
# of a phase reach 8 distinct 4-bank groups: 1 wavefront a phase.
explain_row i4_ldsm_auto.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 5 (1 instructions, 4 wavefronts, 1-way); runner-up: per-thread 4-byte loads, cost 8 (4 instructions, 4 wavefronts, 1-way)"
# Where ldmatrix is not legal, the copy's line says why. i4_smem.axe's q
# holds 2 i4 per thread, one byte: no whole 32-bit word. In i4_swz.axe, r
# holds 32 consecutive i4 of row t % 16 (one 16-byte row per lane, so
# lane 1's word 0 is not bytes 4..7 of lane 0's row), and e holds 2 i4 of
# each of 16 rows (a word, 8 elements, spans 4 rows: not 4 consecutive
# bytes).
explain_row i4_smem.axe "cuda sm_80: per-thread loops, one element per access; no ldmatrix: the register is not whole 32-bit words (at most 64)"
explain_row i4_swz.axe "cuda sm_80: 16-byte vector loads and stores (uint4: ld.global.v4.u32 / st.global.v4.u32 for global memory); no ldmatrix: a register word is not bytes 4 (l % 4) of the 16-byte row of lane 4 (l / 4)"
if grep -qF "cuda sm_80: per-thread loops, one element per access; no ldmatrix: a register word is not 4 consecutive bytes of the shared tensor" "$tmp/ex.txt"; then
    ok
else
    bad "i4_swz.axe --explain of copy(e, q): $(grep -m1 -A6 'cta copy(e' "$tmp/ex.txt")"
fi
# Hexcute's layout (i4_ldsm_hexcute.axe): lane l's words are the
# m16n8k16 B fragments; each x4 reads 32 consecutive 16-byte rows (512
# bytes: 4 phases of 128 bytes over all 32 banks, 1 wavefront each), 4 per
# thread; the runner-up reads each thread's 128 nibbles as 16 4-byte
# words (runs of 8 contiguous in both operands, whose loops coalesce
# since the thread digits move out of the run; 128 nibble loads before).
explain_row i4_ldsm_hexcute.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 20 (4 instructions, 16 wavefronts, 1-way); runner-up: per-thread 4-byte loads, cost 32 (16 instructions, 16 wavefronts, 1-way)"
# The same tile 'layout auto' (i4_ldsm_hexcute_auto.axe, B prepacked in
# X): synthesis reads bq's ldmatrix rows as Bs's 16-byte rows and gives
# Hexcute's layout, equivalent by the library to the hand-written one;
# the same 4 ldmatrix.x4 (the counts above), and X's tile reaches Bs in
# 16-byte cp.async (each X row of 16 bytes is one Bs row).
explain_row i4_ldsm_hexcute_auto.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 20 (4 instructions, 16 wavefronts, 1-way); runner-up: per-thread 4-byte loads, cost 32 (16 instructions, 16 wavefronts, 1-way)"
if grep -qF 'cp.async.cg.shared.global, 16 bytes per access' "$tmp/ex.txt"; then
    ok
else
    bad "i4_ldsm_hexcute_auto: X -> Bs not in 16-byte cp.async: $(grep -m1 'op 0' -A6 "$tmp/ex.txt")"
fi
# (Bs's layout from the text form's "shared Bs: LAYOUT" line: no JSON
# reader needed)
"$AXE" synth "$T/i4_ldsm_hexcute_auto.axe" >"$tmp/hx.txt" 2>&1
got=$(sed -n 's/^shared Bs: //p' "$tmp/hx.txt")
if [ -n "$got" ] && [ "$("$AXE" equal --equivalent "$got" "S[(8,2,8,64,2):(2048,2,4,32,1)]")" = true ]; then
    ok
else
    bad "i4_ldsm_hexcute_auto's Bs is '$got', not Hexcute's S[(8,2,8,64,2):(2048,2,4,32,1)]: $(head -c 300 "$tmp/hx.txt")"
fi
# The twin of i4_ldsm_hexcute.axe itself (Bs 'layout auto', x a row of
# 128 i4 per thread): with x's stores whole bytes (one byte store per
# two nibbles, no read) Hexcute's layout, swizzled, costs the bank model
# less than the row-major Swizzle<5,2,3> it tied with while a nibble
# store read and wrote its byte: synthesis gives it, the 4 ldmatrix.x4
# follow, and the twin is exact on c and under the emulation
sed 's/^\( *shared Bs: i4\[128, 128\]\) layout S\[.*\];$/\1 layout auto;/' \
    "$T/i4_ldsm_hexcute.axe" >"$tmp/hxtwin.axe"
"$AXE" synth "$tmp/hxtwin.axe" --target cuda >"$tmp/hx.txt" 2>&1
if grep -qF 'shared Bs: Swizzle<5,1,6>(S[(8,2,8,64,2):(2048,2,4,32,1)])' "$tmp/hx.txt" &&
    grep -qF 'instruction copy#2.load: ldmatrix.x4 (cost 20)' "$tmp/hx.txt"; then
    ok
else
    bad "axe synth of i4_ldsm_hexcute's twin: $(head -c 400 "$tmp/hx.txt")"
fi
for tg in "${targets[@]}"; do
    # shellcheck disable=SC2086 # (the target's words)
    kernel_exact_run "$tmp/hxtwin.axe" $tg
done
"$AXE" synth "$T/i4_ldsm_auto.axe" >"$tmp/synth.txt" 2>&1
if grep -qF 'shared s: Swizzle<5,1,3>(S[(64,64):(64,1)])' "$tmp/synth.txt"; then
    ok
else
    bad "axe synth i4_ldsm_auto.axe: $(head -c 300 "$tmp/synth.txt")"
fi
# axe synth --target cuda lists the copy's load leaf (with or without
# 'auto' tensors); the C target, which reads the tile element by element,
# lists none
"$AXE" synth "$T/i4_ldsm_auto.axe" --target cuda --json >"$tmp/synth.json" 2>&1
if grep -qF '"instructions": {"copy#1.load": {"chosen": "ldmatrix.x4", "cost": 5, "runner_up": "per-thread 4-byte loads"}}' "$tmp/synth.json"; then
    ok
else
    bad "axe synth --json i4_ldsm_auto.axe: $(head -c 400 "$tmp/synth.json")"
fi
"$AXE" synth "$T/i4_ldsm.axe" --target cuda >"$tmp/synth.txt" 2>&1
if grep -qF 'instruction copy#1.load: ldmatrix.x4 (cost 9)' "$tmp/synth.txt" &&
    grep -qF 'runner-up: per-thread 4-byte loads (cost 12)' "$tmp/synth.txt"; then
    ok
else
    bad "axe synth i4_ldsm.axe: $(head -c 400 "$tmp/synth.txt")"
fi
"$AXE" synth "$T/i4_ldsm_auto.axe" --json >"$tmp/synth_c.json" 2>&1
if grep -qF '"instructions": {}' "$tmp/synth_c.json" &&
    ! grep -q 'ldmatrix' "$tmp/synth_c.json"; then
    ok
else
    bad "axe synth --json i4_ldsm_auto.axe (C target) lists a load the C backend never issues: $(head -c 400 "$tmp/synth_c.json")"
fi
for f in i4_ldsm i4_ldsm_auto; do
    "$AXE" compile "$T/$f.axe" --target cuda -o "$tmp/$f.cu"
    if [ "$(grep -c 'axe_ptx_ldmatrix_x4(ax_w, AXE_AT(t_s, ' "$tmp/$f.cu")" = 1 ] &&
        grep -qF 'memcpy((unsigned char *)t_q + 0, ax_w, 16);' "$tmp/$f.cu" &&
        grep -qF 'const long ax_rank = ax_tid - laneid + laneid % 8L * 4L;' "$tmp/$f.cu"; then
        ok
    else
        bad "$f.cu: no single ldmatrix.x4 into q from lane 4 (laneid % 8)'s row"
    fi
done

if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    # the check can fail: lane 8j + r gives the row of lane 4 ((r + 1) % 8)
    # (aligned rows, the wrong ones)
    if AXE_RUN_EDIT="sed -i 's|laneid % 8L \* 4L; /\* lane|(laneid + 1L) % 8L * 4L; /* lane|'" \
        "$AXE" run "$T/i4_ldsm.axe" --target cuda --emulate --check >"$tmp/out" 2>&1 ||
        ! grep -q 'check FAILED' "$tmp/out"; then
        bad "i4_ldsm with rotated row addresses: $(head -c 300 "$tmp/out")"
    else
        ok
    fi
fi

# rows along laneid % 8, column groups along laneid / 8: no word is
# bytes 4 (l % 4) of lane 4 (l / 4)'s row (--explain says so): per-thread
# loads, still exact
sed -e 's/(1@warpid, 8, 4@laneid, 16, 1@laneid, 1)/(1@warpid, 8, 1@laneid, 16, 8@laneid, 1)/' \
    "$T/i4_ldsm.axe" >"$tmp/perm.axe"
"$AXE" compile "$tmp/perm.axe" --target cuda -o "$tmp/perm.cu"
"$AXE" compile "$tmp/perm.axe" --target cuda --explain >"$tmp/perm.txt" 2>&1
if [ "$(grep -c 'ax_w' "$tmp/perm.cu")" = 0 ] && ! grep -q ldmatrix.sync "$tmp/perm.txt" &&
    grep -qF '; no ldmatrix: a register word is not bytes 4 (l % 4) of the 16-byte row of lane 4 (l / 4)' "$tmp/perm.txt"; then
    ok
else
    bad "perm.axe: ldmatrix where no lane's word is its register"
fi
for tg in "${targets[@]}"; do
    # shellcheck disable=SC2086
    kernel_exact_run "$tmp/perm.axe" $tg
done

# ---- 8- and 16-bit elements (ldsm_f16.axe, ldsm_f16_trans.axe, ldsm_i8.axe)
# exact at two sizes, and bf16 (ldsm_f16_trans.axe with its dtype bf16).
sed -e 's/f16/bf16/g' "$T/ldsm_f16_trans.axe" >"$tmp/ldsm_bf16_trans.axe"
for tg in "${targets[@]}"; do
    # shellcheck disable=SC2086 # (the target's words)
    {
        exact_run ldsm_f16.axe $tg
        exact_run ldsm_f16.axe -D M=192 --seed 6 $tg
        exact_run ldsm_f16_trans.axe $tg
        exact_run ldsm_f16_trans.axe -D N=320 --seed 7 $tg
        exact_run ldsm_i8.axe $tg
        exact_run ldsm_i8.axe -D M=64 --seed 8 $tg
        kernel_exact_run "$tmp/ldsm_bf16_trans.axe" -D N=192 --seed 9 $tg
    }
done

# The bank model recounted from the layouts (as docs/compiler.md's: 32
# banks of 4 bytes; a 16-byte access in 4 phases of 8 lanes, one of up to
# 4 bytes in 1 phase of 32; a phase's wavefronts the most distinct words
# of one bank). Input: one line per warp-wide instruction, "WIDTH ADDR..."
# (each active lane's byte address, in lane order); output:
# "INSTRUCTIONS WAVEFRONTS WAYS".
bank_count() {
    awk '{
        w = $1; words = w > 4 ? w / 4 : 1; per = 32 / words; n++
        for (p = 0; p < words; p++) {
            delete seen; delete bank; worst = 0
            for (l = p * per; l < (p + 1) * per && l + 2 <= NF; l++)
                for (k = 0; k < words; k++) {
                    x = int($(l + 2) / 4) + k
                    if (!(x in seen)) {
                        seen[x] = 1; b = x % 32; bank[b]++
                        if (bank[b] > worst) worst = bank[b]
                    }
                }
            wf += worst; if (worst > ways) ways = worst
        }
    } END { print n, wf, ways }'
}
# "cost C (I instructions, W wavefronts, X-way)" of bank_count's line.
leaf_text() {
    local i w x
    read -r i w x
    echo "cost $((i + w)) ($i instructions, $w wavefronts, $x-way)"
}
# ldsm_f16 (s row-major f16[64, 32], 64-byte rows), warp 0: word g = rh +
# 2 cb of lane l is at row 8 rh + l / 4, column 8 cb + 2 (l % 4).
# ldmatrix.x4 number q: matrix j (word 4q + j), row r from lane 8j + r:
# row 8 rh + r, column 8 cb. Per-thread loads: 4 bytes per word.
f16_at() { echo $((($1 * 32 + $2) * 2)); }
ld=$(for q in 0 1; do
    printf 16
    for j in 0 1 2 3; do
        g=$((4 * q + j))
        for r in 0 1 2 3 4 5 6 7; do
            printf ' %s' "$(f16_at $((8 * (g % 2) + r)) $((8 * (g / 2))))"
        done
    done
    echo
done | bank_count | leaf_text)
th=$(for g in 0 1 2 3 4 5 6 7; do
    printf 4
    for l in $(seq 0 31); do
        printf ' %s' "$(f16_at $((8 * (g % 2) + l / 4)) $((8 * (g / 2) + 2 * (l % 4))))"
    done
    echo
done | bank_count | leaf_text)
explain_row ldsm_f16.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16, $ld; runner-up: per-thread 4-byte loads, $th"
# ldsm_i8 (s row-major i8[64, 64]): the same rows at columns 16 cb and
# 16 cb + 4 (l % 4), one byte per element.
ld=$(for q in 0 1; do
    printf 16
    for j in 0 1 2 3; do
        g=$((4 * q + j))
        for r in 0 1 2 3 4 5 6 7; do
            printf ' %s' $(((8 * (g % 2) + r) * 64 + 16 * (g / 2)))
        done
    done
    echo
done | bank_count | leaf_text)
th=$(for g in 0 1 2 3 4 5 6 7; do
    printf 4
    for l in $(seq 0 31); do
        printf ' %s' $(((8 * (g % 2) + l / 4) * 64 + 16 * (g / 2) + 4 * (l % 4)))
    done
    echo
done | bank_count | leaf_text)
explain_row ldsm_i8.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (2 i8 per b16), $ld; runner-up: per-thread 4-byte loads, $th"
# ldsm_f16_trans (s row-major f16[32, 64], 128-byte rows), warp 0: word g
# = rb + 4 cb of lane l holds rows 8 rb + 2 (l % 4) + e of column 8 cb +
# l / 4. ldmatrix.x4.trans number q: matrix j (word 4q + j), row r from
# lane 8j + r: row 8 rb + r, column 8 cb. Per-thread loads: one 2-byte
# element each.
f16t_at() { echo $((($1 * 64 + $2) * 2)); }
ld=$(for q in 0 1; do
    printf 16
    for j in 0 1 2 3; do
        g=$((4 * q + j))
        for r in 0 1 2 3 4 5 6 7; do
            printf ' %s' "$(f16t_at $((8 * (g % 4) + r)) $((8 * (g / 4))))"
        done
    done
    echo
done | bank_count | leaf_text)
th=$(for g in 0 1 2 3 4 5 6 7; do
    for e in 0 1; do
        printf 2
        for l in $(seq 0 31); do
            printf ' %s' "$(f16t_at $((8 * (g % 4) + 2 * (l % 4) + e)) $((8 * (g / 4) + l / 4)))"
        done
        echo
    done
done | bank_count | leaf_text)
explain_row ldsm_f16_trans.axe "cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16, $ld; runner-up: per-thread 2-byte loads, $th"
"$AXE" synth "$tmp/ldsm_bf16_trans.axe" --target cuda >"$tmp/synth.txt" 2>&1
if grep -qF 'instruction copy#1.load: ldmatrix.x4.trans' "$tmp/synth.txt"; then
    ok
else
    bad "axe synth ldsm_bf16_trans.axe: $(head -c 400 "$tmp/synth.txt")"
fi
for f in ldsm_f16 ldsm_f16_trans ldsm_i8; do
    tr=
    [ "$f" = ldsm_f16_trans ] && tr=_trans
    "$AXE" compile "$T/$f.axe" --target cuda -o "$tmp/$f.cu"
    if [ "$(grep -c "axe_ptx_ldmatrix_x4$tr(ax_w, AXE_AT(t_s, " "$tmp/$f.cu")" = 2 ] &&
        grep -qF 'memcpy((unsigned char *)t_q + 16, ax_w, 16);' "$tmp/$f.cu"; then
        ok
    else
        bad "$f.cu: not two ldmatrix.x4$tr into q"
    fi
done
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    # the check can fail: .trans with lane 8j + r giving the row of lane
    # ((r + 2) % 8) / 2 (aligned rows, the wrong ones)
    if AXE_RUN_EDIT="sed -i 's|laneid % 8L / 2L; /\* lane|(laneid + 2L) % 8L / 2L; /* lane|'" \
        "$AXE" run "$T/ldsm_f16_trans.axe" --target cuda --emulate --check >"$tmp/out" 2>&1 ||
        ! grep -q 'check FAILED' "$tmp/out"; then
        bad "ldsm_f16_trans with rotated row addresses: $(head -c 300 "$tmp/out")"
    else
        ok
    fi
fi

# The dequantizing register-B gemm (gemm_f16_i4_regb.axe) and register
# operands in another order than the atom's (gemm_reg_perm.axe).
EK="$SRC/examples/kernels"
kernel_exact_run "$EK/gemm_f16_i4_regb.axe"
kernel_exact_run "$EK/gemm_f16_i4_regb.axe" -D M=128 -D N=256 -D K=128 --seed 3
exact_run gemm_reg_perm.axe
if [ "${#targets[@]}" -gt 1 ]; then
    kernel_check_run "$EK/gemm_f16_i4_regb.axe" --target cuda --emulate
    kernel_check_run "$EK/gemm_f16_i4_regb.axe" --target cuda --emulate \
        -D M=128 -D N=256 -D K=128 --seed 3
    kernel_check_run "$T/gemm_reg_perm.axe" --target cuda --emulate
    # the check can fail: B's first fragment register packed from
    # registers 0 and 1 (the atom's order) instead of 0 and 4 (bf's
    # registers two to a word, read by ax_ld16)
    if AXE_RUN_EDIT="sed -i 's|ax_b\[0\]\[0\] = (uint32_t)ax_ld16(t_bf, 0L) \| (uint32_t)ax_ld16(t_bf, 4L) << 16;|ax_b[0][0] = (uint32_t)ax_ld16(t_bf, 0L) \| (uint32_t)ax_ld16(t_bf, 1L) << 16;|'" \
        "$AXE" run "$EK/gemm_f16_i4_regb.axe" --target cuda --emulate --check >"$tmp/out" 2>&1 ||
        ! grep -q 'check FAILED' "$tmp/out"; then
        bad "gemm_f16_i4_regb packed in the atom's order: $(head -c 300 "$tmp/out")"
    else
        ok
    fi
fi
"$AXE" compile "$EK/gemm_f16_i4_regb.axe" --target cuda --explain >"$tmp/regb.txt" 2>&1
# (op 3 is the copy into bq, op 6 the gemm)
sed -n '/^op 3 /,/^op 4 /p' "$tmp/regb.txt" >"$tmp/regb3.txt"
sed -n '/^op 6 /,/^op 7 /p' "$tmp/regb.txt" >"$tmp/regb6.txt"
for want in \
    "3:cta copy(bq[128,32], Bs[128,32])" \
    "3:  cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 5 (1 instructions, 4 wavefronts, 1-way); runner-up: per-thread 4-byte loads, cost 8 (4 instructions, 4 wavefronts, 1-way)" \
    "6:cta gemm(acc[128,128,32], As[128,128,32], bf[128,128,32])" \
    "6:  chosen gemm.mma_reg_b" \
    "6:    B: the B fragment's lanes and warps, its registers in another order than the atom's (checked element by element): atom tile (0, 0)'s values 0..3 at registers 0, 4, 2, 6; B's fragments from the registers of the warp's lanes ('bf')"; do
    grep -qF -- "${want#?:}" "$tmp/regb${want%%:*}.txt" &&
        ok || bad "gemm_f16_i4_regb --explain op ${want%%:*} lacks: ${want#?:}"
done
# The layout-auto twin (gemm_f16_i4_regb_auto.axe): its synthesized bf
# and bq are the B fragment over C's column warps in the atom's register
# order (equal by the library's equivalence to the layout written here),
# acc the 2 x 4 warp tiling; exact on c at two sizes, within the f32
# tolerance emulated; the same counts as the hand-written kernel.
kernel_exact_run "$EK/gemm_f16_i4_regb_auto.axe"
kernel_exact_run "$EK/gemm_f16_i4_regb_auto.axe" -D M=128 -D N=256 -D K=128 --seed 3
if [ "${#targets[@]}" -gt 1 ]; then
    kernel_check_run "$EK/gemm_f16_i4_regb_auto.axe" --target cuda --emulate
fi
"$AXE" synth "$EK/gemm_f16_i4_regb_auto.axe" >"$tmp/twin.txt" 2>&1
for want in \
    "bf:S[(4, 4, 8, 2, 2, 4, 2):(1@warpid, 8, 4@laneid, 4, 2, 1@laneid, 1)] + R[2:4@warpid]" \
    "bq:S[(4, 4, 8, 2, 2, 4, 2):(1@warpid, 8, 4@laneid, 4, 2, 1@laneid, 1)] + R[2:4@warpid]" \
    "acc:S[(2, 4, 2, 8, 4, 4, 4, 2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]"; do
    got=$(sed -n "s/^register ${want%%:*}: //p" "$tmp/twin.txt")
    [ -n "$got" ] && [ "$("$AXE" equal --equivalent "$got" "${want#*:}")" = true ] &&
        ok || bad "gemm_f16_i4_regb_auto's ${want%%:*} is '$got'"
done
"$AXE" compile "$EK/gemm_f16_i4_regb_auto.axe" --target cuda --explain >"$tmp/twin_ex.txt" 2>&1
if sed -n '/^op 3 /,/^op 4 /p' "$tmp/twin_ex.txt" | grep -qF 'cuda sm_80: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (4 packed i4 per b16), cost 5' &&
    sed -n '/^op 6 /,/^op 7 /p' "$tmp/twin_ex.txt" | grep -qxF '  chosen gemm.mma_reg_b'; then
    ok
else
    bad "gemm_f16_i4_regb_auto --explain: no ldmatrix into bq or no mma_reg_b"
fi
# Per thread and K slice, from the emitted CUDA's loops (thread 0): the
# stores into Bs, the ldmatrix loads from Bs, the mma.sync, and Bs's
# bytes. gemm_f16_i4: 2 16-byte stores of the f16 tile (16 f16), 8
# ldmatrix.x2 in the gemm (4 B atom tiles x 2 K steps), 10224 bytes;
# gemm_f16_i4_regb and its auto twin: 1 cp.async of the packed tile (128
# of 256 threads), 1 ldmatrix.x4 into bq and none in the gemm, 2048
# bytes; 32 mma.sync each.
if command -v python3 >/dev/null 2>&1; then
    "$AXE" compile "$EK/gemm_f16_i4.axe" --target cuda -o "$tmp/hand.cu"
    "$AXE" compile "$EK/gemm_f16_i4_regb.axe" --target cuda -o "$tmp/regb.cu"
    "$AXE" compile "$EK/gemm_f16_i4_regb_auto.axe" --target cuda -o "$tmp/twin.cu"
    for f in hand regb twin; do
        n=$(kernel_count "$tmp/$f.cu" 'for (long v_k = 0;' \
            '(AXE_STV?\((\w+, )?|cp_async_cg16\(AXE_AT\()t_Bs\b' \
            'ldmatrix_x\d\([^,]+, AXE_AT\(t_Bs\b' 'axe_ptx_mma_m16n8k16_f32_f16\(&')
        b=$(grep -oE 'uint(8|16)_t t_Bs\[[0-9]+\]' "$tmp/$f.cu" | head -1 |
            sed -E 's/uint([0-9]+)_t t_Bs\[([0-9]+)\]/\2 * \1 \/ 8/')
        echo "$n $((b))" >"$tmp/$f.n"
    done
    if [ "$(cat "$tmp/hand.n")" = "2 8 32 10224" ] && [ "$(cat "$tmp/regb.n")" = "1 1 32 2048" ] &&
        [ "$(cat "$tmp/twin.n")" = "1 1 32 2048" ]; then
        ok
    else
        bad "Bs stores, Bs loads, mma.sync, Bs bytes: gemm_f16_i4 $(cat "$tmp/hand.n") (want 2 8 32 10224), gemm_f16_i4_regb $(cat "$tmp/regb.n"), its auto twin $(cat "$tmp/twin.n") (want 1 1 32 2048)"
    fi
fi
# The dequantized f16 of B are held two to a 32-bit register from the
# cast on (docs/compiler.md, "16-bit registers in words"): bf is 16
# uint32_t words per thread, no store writes a half (ax_st16: the cast
# and the scale multiply write whole words, below and compiler_cuda.sh's
# ax_hmul2 row), no register array of 16-bit elements is left (its 32
# registers spilled at sm_80's 128; tests/compiler_cuda.sh checks
# ptxas's 0 spill), and the gemm's 16 B fragment registers are packed
# from halves (ax_ld16: the hand-written bf pairs registers 0 and 4) or,
# for the twin's synthesized bf (pairs 0 and 1), are the words.
for f in regb regb_auto; do
    "$AXE" compile "$EK/gemm_f16_i4_$f.axe" --target cuda -o "$tmp/w$f.cu"
    n=$(grep -cF '__align__(16) uint32_t t_bf[16] = {0}; /* two per 32-bit word */' "$tmp/w$f.cu")
    n="$n $(grep -c '__align__(16) uint16_t t_' "$tmp/w$f.cu") $(grep -c 'ax_st16(t_bf, ' "$tmp/w$f.cu")"
    n="$n $(grep -o 'ax_ld16(t_bf, [0-9]*L)' "$tmp/w$f.cu" | wc -l)"
    n="$n $(grep -c 'ax_b\[[0-9]\]\[[0-9]\] = t_bf\[[0-9]*L\];' "$tmp/w$f.cu")"
    want="1 0 0 32 0"
    [ $f = regb_auto ] && want="1 0 0 0 16"
    if [ "$n" = "$want" ]; then
        ok
    else
        bad "gemm_f16_i4_$f: bf in words, 16-bit arrays, ax_st16 sites, fragment halves, whole words: $n (want $want)"
    fi
done

# The i4 -> f16 cast by bit tricks (docs/compiler.md, "i4 to f16 by bit
# tricks"): both regb kernels write bf's 16 words by ax_i4h2 (prmt, lop3,
# fma.rn.f16x2), each from the nibble pairs 0 1, 2 3, 4 5, 6 7 of one of
# bq's 4 words, and --explain says so (before: 32 ax_st16 of scalar
# casts). The helper, built by the host's C++ compiler against the
# emulation header, gives the scalar cast's two f16 for every pair of
# nibble positions and every pair of nibble values (16384 cases: every
# byte value, in both orders); the check fails with the bias of unsigned
# nibbles (0xe400, -1024) or without the sign-bit flip.
for f in regb regb_auto; do
    n=$(grep -c 't_bf\[[0-9]*L\] = ax_i4h2(\*(const uint32_t \*)&t_bq\[[0-9]*L\], [0246], [1357]);' "$tmp/w$f.cu")
    n="$n $("$AXE" compile "$EK/gemm_f16_i4_$f.axe" --target cuda --explain |
        grep -c '^  cast form: i4 -> f16 by bit tricks')"
    [ "$n" = "16 1" ] && ok || bad "gemm_f16_i4_$f: ax_i4h2 words, explain lines: $n (want 16 1)"
done
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    cat >"$tmp/i4h2.cpp" <<'CPP'
#include "h.cu"
/* The f16 bits of the nibble values 0 .. 7, -8 .. -1 (what the scalar
 * cast's conversion gives; the kernel no longer calls ax_f2h). */
static const uint16_t f16_of[16] = {
    0x0000, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600, 0x4700,
    0xc800, 0xc700, 0xc600, 0xc500, 0xc400, 0xc200, 0xc000, 0xbc00};
int main(void)
{
    long bad = 0, n = 0;
    for (int a = 0; a < 8; a++)
        for (int b = 0; b < 8; b++)
            for (uint32_t va = 0; va < 16; va++)
                for (uint32_t vb = 0; vb < 16; vb++) {
                    uint32_t w = 0x5ac3e17bu ^ (uint32_t)(a * 8 + b) * 0x9e3779b9u;
                    w = (w & ~(0xfu << 4 * a)) | va << 4 * a;
                    w = (w & ~(0xfu << 4 * b)) | vb << 4 * b;
                    int x = (int)(w >> 4 * a & 0xfu), y = (int)(w >> 4 * b & 0xfu);
                    uint32_t want = (uint32_t)f16_of[x] | (uint32_t)f16_of[y] << 16;
                    n++;
                    bad += ax_i4h2(w, a, b) != want;
                }
    printf("%ld of %ld\n", bad, n);
    return 0;
}
CPP
    for mut in "" "s/0xe408u/0xe400u/" "s/0x80u : 0x8u/0x80u : 0x0u/"; do
        cp "$tmp/wregb.cu" "$tmp/h.cu"
        [ -n "$mut" ] && sed -i "$mut" "$tmp/h.cu"
        want="0 of 16384"
        [ -n "$mut" ] && want="8192 of 16384"
        if "${CXX:-c++}" -std=c++17 -O1 -DAXE_CUDA_EMULATE \
            -I"$SRC/src/compiler/backend/cuda" -I"$tmp" -o "$tmp/i4h2" \
            "$tmp/i4h2.cpp" >"$tmp/i4h2.err" 2>&1 &&
            [ "$("$tmp/i4h2")" = "$want" ]; then
            ok
        else
            bad "ax_i4h2 against the scalar cast${mut:+ (mutant $mut)}: $("$tmp/i4h2" 2>&1 | head -c 100) (want $want) $(head -c 300 "$tmp/i4h2.err")"
        fi
    done
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
