#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Packed i4 end to end (docs/compiler.md, "i4"; the reference's rule is
# tested in tests/test_compiler_i4.c):
# - the generated C of tests/kernels/i4_rule.axe, built with its harness
#   and fed random bytes, writes the bytes that the storage rule decoded
#   here gives (element x = nibble x % 2, low first, of byte x / 2,
#   sign-extended; untouched nibbles, the pad of an odd length too, keep
#   their bits); the same C with the nibble order flipped must fail that
#   check (the check can fail);
# - the i4 test kernels pass `axe run --check` exactly on --target c and
#   --target cuda --emulate, at two sizes;
# - `axe run` refuses a CTA copy that makes two threads store into one
#   byte, naming the tensor and both threads, and reports the race of
#   thread-scope stores into neighbouring nibbles; --range takes i4
#   tensors within [-8, 7].
# Skipped (77) without a C compiler; the emulated runs need a C++ one.
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CC cc "C compiler"

kernel_counts
T="$SRC/tests/kernels"

# The nibble "x" (signed) of the byte list "bytes" (one decimal a word).
nib() {
    local -n bs=$1
    local u=$((bs[$2 / 2] >> (4 * ($2 % 2)) & 15))
    echo $((u >= 8 ? u - 16 : u))
}

# rule_check C_FILE: build the C with its harness, run it on random X, Y
# and Z, and compare the output bytes with the rule. Returns 1 on the
# first mismatch (its message in $tmp/why).
rule_check() {
    local c=$1 i x want got
    local -a xb zb yo zo
    $CC -std=c99 -O1 -DAXE_KERNEL_MAIN -o "$tmp/rule" "$c" -lm 2>"$tmp/why" ||
        return 1
    RANDOM=7
    : >"$tmp/in"
    for ((i = 0; i < 19; i++)); do
        xb[i]=$((RANDOM % 256))
        printf "\\x$(printf %02x "${xb[i]}")" >>"$tmp/in"
    done
    head -c 148 /dev/zero >>"$tmp/in"
    for ((i = 0; i < 19; i++)); do
        zb[i]=$((RANDOM % 256))
        printf "\\x$(printf %02x "${zb[i]}")" >>"$tmp/in"
    done
    "$tmp/rule" "$tmp/in" "$tmp/out" 0 >/dev/null 2>"$tmp/why" || return 1
    read -r -a yo <<<"$(od -An -v -td4 -j19 -N148 "$tmp/out" | tr -s ' \n' '  ')"
    read -r -a zo <<<"$(od -An -v -tu1 -j167 -N19 "$tmp/out" | tr -s ' \n' '  ')"
    for ((i = 0; i < 37; i++)); do
        want=$(nib xb "$i")
        if [ "${yo[i]}" != "$want" ]; then
            echo "Y[$i] = ${yo[i]}, want $want" >"$tmp/why"
            return 1
        fi
    done
    for ((x = 0; x < 38; x++)); do # 38: the pad nibble too
        if ((x >= 1 && x <= 35)); then
            want=$(nib xb $((x - 1)))
        else
            want=$(nib zb "$x")
        fi
        got=$(nib zo "$x")
        if [ "$got" != "$want" ]; then
            echo "Z nibble $x = $got, want $want" >"$tmp/why"
            return 1
        fi
    done
}

"$AXE" compile "$T/i4_rule.axe" -o "$tmp/rule.c"
if rule_check "$tmp/rule.c"; then
    ok
else
    bad "i4_rule.axe's C against the storage rule: $(head -c 300 "$tmp/why")"
fi
# the mutation: the nibble order flipped in the helpers
sed 's/4 \* (a % 2L)/4 * (1 - a % 2L)/g' "$tmp/rule.c" >"$tmp/flip.c"
if ! cmp -s "$tmp/rule.c" "$tmp/flip.c" && ! rule_check "$tmp/flip.c"; then
    ok
else
    bad "i4_rule.axe's C with the nibble order flipped passes the rule check"
fi

# exact_run FILE ARGS...: kernel_exact_run of the test kernel FILE.
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
        exact_run i4_rule.axe $tg
        exact_run i4_cta.axe $tg
        exact_run i4_cta.axe -D R=3 -D C=10 --seed 5 $tg
        exact_run i4_smem.axe $tg
        exact_run i4_smem.axe -D C=6 --seed 3 $tg
        exact_run i4_stage.axe $tg
        exact_run i4_stage.axe -D C=10 --seed 6 $tg
        exact_run i4_vec.axe $tg
        exact_run i4_vec.axe -D R=2 -D C=136 --seed 9 $tg
        exact_run i4_synth.axe $tg
        exact_run i4_auto.axe $tg
        exact_run i4_auto.axe -D R=2 -D C=64 --seed 4 $tg
        exact_run i4_auto.axe -D C=64 -D P=1 --seed 8 $tg
        exact_run i4_auto.axe -D R=3 -D C=192 -D P=1 $tg
        exact_run i4_swz.axe $tg
        exact_run i4_swz.axe -D R=5 --seed 6 $tg
        exact_run i4_swz_auto.axe $tg
        exact_run i4_swz_auto.axe -D R=3 --seed 2 $tg
        exact_run i4_trans_auto.axe $tg
        exact_run i4_trans_auto.axe -D N=256 --seed 3 $tg
        exact_run i4_mid_auto.axe -D B=8 --seed 3 $tg
        exact_run i4_colsrc_auto.axe $tg
        exact_run i4_dyn.axe $tg
        exact_run i4_dyn.axe -D R=2 -D C=16 --seed 3 $tg
        exact_run i4_split.axe $tg
        exact_run i4_split.axe -D R=3 -D C=18 --seed 5 $tg
    }
done

# i4_vec's copies are whole-byte vectors: 32 elements (16 bytes) for the
# unmasked ones, 8 (4 bytes) for the masked Z and W; on CUDA, X reaches
# shared memory by 16-byte cp.async and the accesses are uint4.
"$AXE" compile "$T/i4_vec.axe" --explain >"$tmp/vec.txt" 2>&1
widths=$(grep -oE 'innermost access: [0-9]+' "$tmp/vec.txt" | awk '{print $3}' | tr '\n' ' ')
if [ "$widths" = "32 32 32 4 8 32 8 " ]; then
    ok
else
    bad "i4_vec.axe's vector widths: '$widths' ($(head -c 300 "$tmp/vec.txt"))"
fi
"$AXE" compile "$T/i4_vec.axe" --target cuda -o "$tmp/vec.cu"
if grep -qF 'axe_ptx_cp_async_cg16(AXE_AT(t_s, (0L + ax_i0 * 1L) / 2L' "$tmp/vec.cu" &&
    grep -qF 'AXE_STV(uint4, t_Y, ' "$tmp/vec.cu"; then
    ok
else
    bad "i4_vec.axe's CUDA: no 16-byte cp.async of 's' or uint4 store of 'Y'"
fi
# the check can fail: the same C with each 16-byte i4 vector one byte short
cat >"$tmp/shortcc" <<EOS
#!/usr/bin/env bash
for a in "\$@"; do
    case \$a in *.c) sed -i 's/memcpy(\(.*\), 16 \* sizeof(uint8_t))/memcpy(\1, 15 * sizeof(uint8_t))/' "\$a" ;; esac
done
exec $CC "\$@"
EOS
chmod +x "$tmp/shortcc"
if CC="$tmp/shortcc" "$AXE" run "$T/i4_vec.axe" --check >"$tmp/out" 2>&1 ||
    ! grep -q 'check FAILED' "$tmp/out"; then
    bad "i4_vec.axe with 15-byte vectors passes the check: $(head -c 300 "$tmp/out")"
else
    ok
fi
# the bank model counts i4 in bits: axe synth records i4_synth's shared
# accesses (recounted by brute force in tests/test_compiler_smem.c)
"$AXE" synth "$T/i4_synth.axe" --json >"$tmp/synth.json" 2>&1
if grep -qF '"accesses": [{"op": "copy#0", "tensor": "q", "ways_before": 1, "ways_after": 1}, {"op": "copy#1", "tensor": "q", "ways_before": 4, "ways_after": 4}]' "$tmp/synth.json"; then
    ok
else
    bad "axe synth i4_synth.axe: $(head -c 400 "$tmp/synth.json")"
fi
# i4 'layout auto' (registers): r's synthesized layout, equal to f's:
# runs of 8 (runs of 4 tie on F's cost, but r's copies from X and to Y
# then move single nibbles, 8 per thread, where runs of 8 move one
# 4-byte vector each), and the i4 copies run as those vectors
"$AXE" synth "$T/i4_auto.axe" >"$tmp/auto.txt" 2>&1
"$AXE" compile "$T/i4_auto.axe" --explain >"$tmp/autoex.txt" 2>&1
if grep -qF 'register r: S[(1,32,2,4):(0,1@tx,4,1)]' "$tmp/auto.txt" &&
    [ "$(grep -c 'innermost access: 8 elements' "$tmp/autoex.txt")" = 2 ]; then
    ok
else
    bad "axe synth i4_auto.axe: $(head -c 400 "$tmp/auto.txt")"
fi
# the byte rule is a constraint of the copy anchor: with F's rows padded
# to an odd length (P = 1) F takes no vector, and runs of 1 and 2 f32
# tie on cost; the tie would go to runs of 1 (a thread per nibble, which
# dispatch refuses at the store to Y), the rule leaves runs of 2 only
"$AXE" synth "$T/i4_auto.axe" -D C=64 -D P=1 >"$tmp/auto.txt" 2>&1
if grep -qF 'register r: S[(1,32,2):(0,1@tx,1)]' "$tmp/auto.txt" &&
    grep -qF 'anchor copy#3: coalesced, 4-byte accesses (1 element) in runs of 2 on 32 consecutive tx' "$tmp/auto.txt"; then
    ok
else
    bad "axe synth i4_auto.axe -D C=64 -D P=1: $(head -c 400 "$tmp/auto.txt")"
fi
# ... and where no run on all 32 threads keeps Y's bytes whole (C = 34),
# synthesis refuses, naming the i4 store
if ! "$AXE" run "$T/i4_auto.axe" --check -D C=34 >"$tmp/out" 2>&1 &&
    grep -qF "layout synthesis: no coalesced layout of 'f' for its anchor copy#3: it is stored into the packed i4 'Y' (whole bytes per thread): no run on all 32 threads gives whole bytes and deals the 34 elements within a thread's 1020 bytes of registers" "$tmp/out"; then
    ok
else
    bad "i4_auto.axe -D C=34: $(head -c 400 "$tmp/out")"
fi
# the rule reads the bytes off the i4 destination's layout, not off the
# register's dimension order: F column-major (bytes pair rows) takes two
# whole columns per thread, F pairing a middle dimension runs of 32 (two
# values of it per j), and a column-major X into a row-major F two whole
# columns per thread (whole-byte vectors from X)
for row in "i4_trans_auto.axe|register q: S[(32,32,2):(2,1@tx,1)]" \
    "i4_mid_auto.axe|register q: S[(4,16,2,4,4):(16@tx,1@tx,16,4,1)]" \
    "i4_colsrc_auto.axe|register q: S[(32,32,2):(1,1@tx,32)]"; do
    "$AXE" synth "$T/${row%%|*}" >"$tmp/auto.txt" 2>&1
    if grep -qF "${row#*|}" "$tmp/auto.txt"; then
        ok
    else
        bad "axe synth ${row%%|*}: $(head -c 400 "$tmp/auto.txt")"
    fi
done
# swizzled i4 addressing (i4_swz.axe): the swizzle maps element
# addresses and the byte is (swizzled address) / 2; the check can fail:
# the same C with q's whole-byte stores not swizzled (its vector
# accesses still are) must fail it
"$AXE" compile "$T/i4_swz.axe" -o "$tmp/swz.c"
n=$(grep -c 't_q\[(ax_swz(.*, 5, 2, 3, 1)) / 2L\] = ax_pack4(' "$tmp/swz.c")
cat >"$tmp/unswzcc" <<EOS
#!/usr/bin/env bash
for a in "\$@"; do
    case \$a in *.c) sed -i 's/t_q\[(ax_swz(\([^,]*\), 5, 2, 3, 1)) \/ 2L\] = ax_pack4/t_q[(\1) \/ 2L] = ax_pack4/' "\$a" ;; esac
done
exec $CC "\$@"
EOS
chmod +x "$tmp/unswzcc"
if [ "$n" = 1 ] && ! CC="$tmp/unswzcc" "$AXE" run "$T/i4_swz.axe" --check >"$tmp/out" 2>&1 &&
    grep -q 'check FAILED' "$tmp/out"; then
    ok
else
    bad "i4_swz.axe with unswizzled byte stores ($n): $(head -c 300 "$tmp/out")"
fi
# whole-byte stores: where a thread stores both nibbles of each byte the
# .cu stores the byte once (ax_pack4) instead of reading and rewriting
# it per nibble (ax_put4 into memory, ax_st4 into registers): i4_cta's
# five i4 stores (into Z, W and three casts into r; before: 2 ax_put4,
# 3 ax_st4), i4_trans_auto's two (the cast into r, the copy into the
# column-major F); i4_rule's copy into Z from element 1 (odd: a byte
# pairs elements of two iterations) stays nibble by nibble; registers
# read from shared memory pair too: i4_smem's copy from s into q and
# i4_stage's read back from its staging scratch into q (before: 2 1 for
# both); i4_dyn's store at column bx * 64 + 2, even for every bx (the
# gcd of the start's terms; before: refused, the parity taken unknown);
# i4_split's cast.split and copy.split, which deal the pairs whole
# (before: refused, a byte's nibbles dealt to two threads)
for row in "i4_cta.axe 5 0" "i4_trans_auto.axe 2 0" "i4_rule.axe 0 1" \
    "i4_smem.axe 3 0" "i4_stage.axe 3 0" "i4_dyn.axe 2 0" \
    "i4_split.axe 2 0"; do
    read -r f want_pack want_nib <<<"$row"
    "$AXE" compile "$T/$f" --target cuda -o "$tmp/whole.cu"
    got="$(grep -c '= ax_pack4(' "$tmp/whole.cu") $(grep -c 'ax_put4(&AXE_ST(\|ax_st4(t_' "$tmp/whole.cu")"
    if [ "$got" = "$want_pack $want_nib" ]; then
        ok
    else
        bad "$f: $got whole-byte and nibble i4 stores in the .cu, want $want_pack $want_nib"
    fi
done
"$AXE" compile "$T/i4_trans_auto.axe" --explain >"$tmp/ex.txt" 2>&1
if [ "$(grep -c 'i4 stores: whole bytes, the nibbles of dim 0 digits 2m and 2m + 1 from one thread' "$tmp/ex.txt")" = 1 ] &&
    [ "$(grep -c 'i4 stores: whole bytes' "$tmp/ex.txt")" = 2 ]; then
    ok
else
    bad "i4_trans_auto --explain: no whole-byte stores along F's rows: $(grep -m3 'i4 stores' "$tmp/ex.txt")"
fi
# ... and the check can fail: the emulated i4_cta with the two nibbles
# of ax_pack4 swapped
if command -v "${CXX:-c++}" >/dev/null 2>&1; then
    if AXE_RUN_EDIT="sed -i 's|ax_pack4(int lo, int hi)|ax_pack4(int hi, int lo)|'" \
        "$AXE" run "$T/i4_cta.axe" --target cuda --emulate --check >"$tmp/out" 2>&1 ||
        ! grep -q 'check FAILED' "$tmp/out"; then
        bad "i4_cta with ax_pack4's nibbles swapped: $(head -c 300 "$tmp/out")"
    else
        ok
    fi
fi
# shared 'layout auto' of i4 (i4_swz_auto.axe): the synthesis picks
# i4_swz's hand-written Swizzle<5,2,3> (whole bytes, M >= 1; runs of 32
# for the 16-byte vectors), and the brute force (tests/smem_ways.py,
# counting bits) gives the ways axe synth reports, before and after, for
# every access of both warps
if "$AXE" synth "$T/i4_swz_auto.axe" --json >"$tmp/swz.json" 2>&1 &&
    grep -qF '"tensors": {"q": "Swizzle<5,2,3>(S[(16,128):(128,1)])"}' "$tmp/swz.json"; then
    ok
else
    bad "axe synth i4_swz_auto.axe: $(head -c 400 "$tmp/swz.json")"
fi
if command -v python3 >/dev/null 2>&1; then
    counts=$(python3 - "$tmp/swz.json" "$SRC/tests" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from smem_ways import parse_layout, ways
shape = (16, 128)
rep = json.load(open(sys.argv[1]))
got = parse_layout(rep["tensors"]["q"], shape)
rm = parse_layout("S[(16,128):(128,1)]", shape)
warps = range(2)
# copy#0: thread t's 32 elements 32 t ...; copy#1/#5 (r): thread t row
# t % 16, elements 32 (t / 16) ...; copy#2/#4 (e): thread t one nibble
# of columns 2 t, 2 t + 1 per access, every row
vec_w = [[(l // 4 + 8 * w, l % 4 * 32) for l in range(32)] for w in warps]
vec_c = [[(l % 16, (l + 32 * w) // 16 * 32) for l in range(32)] for w in warps]
nib = [[(i, 2 * (l + 32 * w) + j) for l in range(32)]
       for w in warps for i in range(16) for j in range(2)]
acc = {"copy#0": (vec_w, 32), "copy#1": (vec_c, 32), "copy#2": (nib, 1),
       "copy#4": (nib, 1), "copy#5": (vec_c, 32)}
want = {a["op"]: (a["ways_before"], a["ways_after"]) for a in rep["accesses"]}
out = []
for op, (lanes, vec) in acc.items():
    b = max(ways(rm, l, 1, vec, (0, 1), bits=4) for l in lanes)
    a = max(ways(got, l, 1, vec, (0, 1), bits=4) for l in lanes)
    out.append("%s:%d:%d%s" % (op, b, a, "" if want.get(op) == (b, a) else "!"))
print(" ".join(out) + (" extra" if len(want) != len(acc) else ""))
PY
    )
    [ "$counts" = "copy#0:1:1 copy#1:4:1 copy#2:1:1 copy#4:1:1 copy#5:4:1" ] &&
        ok || bad "i4_swz_auto brute-force ways (! = axe synth differs): $counts"
fi
# a row start that is not a multiple of 8 elements: no whole-byte vector,
# and the reason names the start
if ! "$AXE" run "$T/i4_vec.axe" --check -D C=204 >"$tmp/out" 2>&1 &&
    grep -qF "copy.vector: 'z' is packed i4, whose vectors move 8, 16 or 32 elements (4, 8 or 16 whole bytes), but 'Z' starts at (bx)*204, not known to be a multiple of 8" "$tmp/out"; then
    ok
else
    bad "i4_vec.axe -D C=204: $(head -c 400 "$tmp/out")"
fi

# gemm_f16_i4_auto.axe, the auto twin of gemm_f16_i4.axe: within the
# f32 tolerance on the CUDA emulation (exact on c: compiler_kernels.sh);
# its registers equal the hand-written ones by the library's equivalence
# (bq runs of 16: one 8-byte i4 load per thread; the anchor's tie on
# cost 512 goes to the run whose tied copies move wider vectors), As and
# Bs are swizzled where the hand-written tiles are padded: by the bank
# model every access of the twin is at most as many ways as the hand-
# written one's, and the copies into As and Bs fewer (2 -> 1); the CUDA
# has the same memory instructions, counted by kind
EK="$SRC/examples/kernels"
if [ "${#targets[@]}" -gt 1 ]; then
    kernel_check_run "$EK/gemm_f16_i4_auto.axe" --target cuda --emulate
    kernel_check_run "$EK/gemm_f16_i4_auto.axe" --target cuda --emulate \
        -D M=128 -D N=256 -D K=96 --seed 6
fi
"$AXE" synth "$EK/gemm_f16_i4_auto.axe" --json >"$tmp/twin.json" 2>&1
# the hand-written kernel with only acc auto (equal to its written one),
# so that axe synth reports its shared accesses on the written layouts
sed -E '/register acc: f32\[128, 128\]/{N;N;s/\n//g;s/layout S\[.*\];/layout auto;/}' \
    "$EK/gemm_f16_i4.axe" >"$tmp/hand.axe"
"$AXE" synth "$tmp/hand.axe" --json >"$tmp/hand.json" 2>&1
if command -v python3 >/dev/null 2>&1; then
    res=$(kernel_ways_compare "$tmp/twin.json" "$tmp/hand.json" As Bs)
    [ "$res" = "As=Swizzle<3,2,3>(S[(128,32):(32,1)]) Bs=Swizzle<3,2,3>(S[(128,32):(32,1)]) | copy#1:As:2:1 copy#5:Bs:2:1 gemm#6:As:1:1 gemm#6:Bs:1:1 | 4 4 acc" ] &&
        ok || bad "gemm_f16_i4_auto vs gemm_f16_i4 (op:tensor:hand:twin ways): $res"
    for n in bq bf; do
        got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tensors"][sys.argv[2]])' "$tmp/twin.json" "$n")
        [ "$("$AXE" equal --equivalent "$got" "S[(128, 2, 16):(2@tx, 1@tx, 1)]")" = true ] &&
            ok || bad "gemm_f16_i4_auto's $n is $got"
    done
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tensors"]["acc"])' "$tmp/twin.json")
    [ "$("$AXE" equal --equivalent "$got" "S[(2, 4, 2, 8, 4, 4, 4, 2):(4@warpid, 16, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)]")" = true ] &&
        ok || bad "gemm_f16_i4_auto's acc is $got"
fi
if grep -qF '"copy#5": {"chosen": "coalesced, 16-byte accesses (8 elements) in runs of 16 on 256 consecutive tx, 2 per thread", "cost": 512, "runner_up": "coalesced, 16-byte accesses (8 elements) in runs of 8 on 256 consecutive tx, 2 per thread"}' "$tmp/twin.json"; then
    ok
else
    bad "gemm_f16_i4_auto's anchor: $(head -c 600 "$tmp/twin.json")"
fi
# memory instructions of the generated CUDA, by kind (each appears in
# the source once per emitted access)
icount() {
    local k out=
    for k in 'axe_ptx_cp_async_cg16(' 'axe_ptx_ldmatrix_x4(' 'axe_ptx_ldmatrix_x2(' \
        'AXE_LDV(uint2, t_B,' 'AXE_STV(uint4, t_Bs,' 'axe_ptx_mma_m16n8k16_f32_f16(&' 'AXE_LD(t_Sc,'; do
        out="$out $(grep -oF "$k" "$1" | wc -l)"
    done
    echo "$out"
}
"$AXE" compile "$EK/gemm_f16_i4.axe" --target cuda -o "$tmp/hand.cu" &&
    "$AXE" compile "$EK/gemm_f16_i4_auto.axe" --target cuda -o "$tmp/twin.cu"
ch=$(icount "$tmp/hand.cu")
ct=$(icount "$tmp/twin.cu")
if [ "$ch" = "$ct" ] && [ "$(echo "$ch" | awk '{print $1 * $2 * $3 * $4 * $5 * $6 * $7}')" != 0 ]; then
    ok
else
    bad "gemm_f16_i4(_auto) memory instructions (cp.async ldmatrix.x4 .x2 B-load Bs-store mma Sc-load): hand$ch, twin$ct"
fi

# cli_refused WHAT TEXT PATTERN...: axe run on the kernel TEXT exits 1
# and its messages contain every PATTERN (fixed strings).
cli_refused() {
    local what=$1 text=$2 p
    shift 2
    printf '%s\n' "$text" >"$tmp/k.axe"
    if "$AXE" run "$tmp/k.axe" --check >"$tmp/out" 2>&1; then
        bad "$what: accepted"
        return
    fi
    for p in "$@"; do
        if ! grep -qF -- "$p" "$tmp/out"; then
            bad "$what: no '$p' in: $(head -c 600 "$tmp/out")"
            return
        fi
    done
    ok
}

# cli_exact NAME TEXT [ARGS...]: axe run --check ARGS on the kernel TEXT
# is exact.
cli_exact() {
    printf '%s\n' "$2" >"$tmp/$1.axe"
    kernel_exact_run "$tmp/$1.axe" "${@:3}"
}
# whole-byte stores through a view swizzled with M >= 1 (M = 0 is
# refused, compiler_errors.sh): q's bytes are paired and swizzled whole
cli_exact view_swz 'kernel k(X: i4[8, 8], Y: i4[8, 8]) grid(1) threads(32) {
    shared q: i4[8, 8] layout S[(8, 8):(8, 1)];
    register r: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    register t: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    cta copy(r, X);
    cta copy(q.view(Swizzle<1,1,3>(S[(8, 8):(8, 1)])), r);
    sync;
    cta copy(t, q);
    cta copy(Y, t);
}'
if "$AXE" compile "$tmp/view_swz.axe" --explain 2>&1 |
    sed -n '/^op 1 (line 6)/,/^op 2/p' | grep -qF 'i4 stores: whole bytes'; then
    ok
else
    bad "the store through q's Swizzle<1,1,3> view is not whole bytes"
fi
# reads through an i4 view swizzled with M = 0 (only a store through
# one is refused): element by element at the swizzled element address,
# inner (the nibbles of a byte swapped) and outer (bit 0 xored into bit
# 3), into a register and by a cast, exact on c and emulated; the check
# can fail: the same C with the reads not swizzled fails it
for v in "Swizzle<0,1,3>" "Swizzle<0,1,3,outer>"; do
    for tg in "${targets[@]}"; do
        # shellcheck disable=SC2086 # (the target's words)
        cli_exact view_rd "kernel k(X: i4[8, 8], Y: i4[8, 8], F: f32[8, 8]) grid(1) threads(32) {
    shared q: i4[8, 8] layout S[(8, 8):(8, 1)];
    register r: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    register t: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    register f: f32[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    cta copy(r, X);
    cta copy(q, r);
    sync;
    cta copy(t, q.view($v(S[(8, 8):(8, 1)])));
    cta copy(Y, t);
    cta cast(f, q.view($v(S[(8, 8):(1, 8)])));
    cta copy(F, f);
}" $tg
    done
done
cat >"$tmp/unswz0cc" <<EOS
#!/usr/bin/env bash
for a in "\$@"; do
    case \$a in *.c) sed -i 's/ax_swz(\([^,]*\), 0, 1, 3, 0)/(\1)/g' "\$a" ;; esac
done
exec $CC "\$@"
EOS
chmod +x "$tmp/unswz0cc"
if ! CC="$tmp/unswz0cc" "$AXE" run "$tmp/view_rd.axe" --check >"$tmp/out" 2>&1 &&
    grep -q 'check FAILED' "$tmp/out"; then
    ok
else
    bad "the reads through q's Swizzle<0,1,3,outer> view, not swizzled, pass the check: $(head -c 300 "$tmp/out")"
fi
# a copy between overlapping regions of one tensor keeps its nibble
# stores (a pair would read X[2], the low nibble's destination, before
# the store that the element order writes first)
cli_exact ovl 'kernel ovl(X: i4[1, 8]) grid(1) threads(1) {
    thread copy(X[0:1, 2:4], X[0:1, 1:3]);
}'
# ... while the overlaps whose reads the pairs keep pair: a shift of +1
# along the row (each pair reads the next byte before it is stored, as
# element by element), and in a column-major X (the pair loop along rows
# outside the loop along columns) a shift of -9; the same X shifted by
# +7 or -7 (row -1, column +1; row +1, column -1) keeps its nibble stores
# (paired, a byte's high nibble would read an element that the element
# order stores later: check FAILED, max_abs_err 8 and 5). Exact on c and
# emulated; whole-byte and nibble stores in the .cu (before: 0 1 each).
CM='X: i4[8, 4] layout S[(8, 4):(1, 8)]'
for row in "ovl_p1|X: i4[1, 8]|X[0:1, 2:6], X[0:1, 3:7]|1 0" \
    "ovl_m9|$CM|X[2:6, 1:3], X[1:5, 0:2]|1 0" \
    "ovl_p7|$CM|X[2:6, 0:2], X[1:5, 1:3]|0 1" \
    "ovl_m7|$CM|X[2:6, 1:3], X[3:7, 0:2]|0 1"; do
    IFS='|' read -r name decl args want <<<"$row"
    for tg in "${targets[@]}"; do
        # shellcheck disable=SC2086 # (the target's words)
        cli_exact "$name" "kernel $name($decl) grid(1) threads(1) {
    thread copy($args);
}" $tg
    done
    "$AXE" compile "$tmp/$name.axe" --target cuda -o "$tmp/ovl.cu"
    got="$(grep -c '= ax_pack4(' "$tmp/ovl.cu") $(grep -c 'ax_put4(&AXE_ST(' "$tmp/ovl.cu")"
    [ "$got" = "$want" ] && ok ||
        bad "$name ($args): $got whole-byte and nibble stores, want $want"
done
cli_refused "CTA split into one byte" \
    'kernel k(X: i4[66], Y: i4[66]) grid(1) threads(32) { cta copy(Y[1:+64], X[0:64]); }' \
    "copy.split: two threads write one byte of the i4 'Y': thread 2 writes element address 3 and thread 1 element address 2"
cli_refused "thread-scope neighbours" \
    'kernel k(X: i4[32], Y: i4[32]) grid(1) threads(32) { thread copy(Y[tx:+1], X[tx:+1]); }' \
    "check FAILED" "race on Y[" "no sync between"
# --range takes i4 tensors, within [-8, 7]
exact_run i4_rule.axe --range X=-8:-5
if ! "$AXE" run "$T/i4_rule.axe" --check --range X=-9:7 >"$tmp/out" 2>&1 &&
    grep -qF -- "--range X: it needs an i32, i8 or i4 tensor and values of its dtype" "$tmp/out"; then
    ok
else
    bad "--range X=-9:7 on an i4 tensor: $(head -c 300 "$tmp/out")"
fi
cli_refused "i4 arithmetic" \
    'kernel k(A: i4[8], B: i4[8]) grid(1) threads(1) { thread mul(B, A, A); }' \
    "'B' is i4, a packed storage dtype: only copy and cast read or write it"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
