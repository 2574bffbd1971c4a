#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Tests of the Axe-layout commands of the axe command line ($AXE_BIN):
# answers and exit 0 for each command (the paper's worked examples: the
# Figure 2 table, tile, tile-of, slice, direct sum), exit 1 with one line
# when the operation has no answer, exit 2 with one line naming the offset
# for malformed layouts, shapes, regions and points, --help on every
# command, and `axe batch` answering axe.* requests (results, UNKNOWN_OP,
# INVALID, SYNTAX). Every check that fails prints itself; the last line is
# "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
rc=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

run() {
    if command -v timeout >/dev/null 2>&1; then
        timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    else
        "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
}

nlines() { wc -l <"$1" | tr -d ' '; }

one_clean_line() {
    [ "$(nlines "$tmp/err")" = 1 ] &&
        ! LC_ALL=C grep -q '[^[:print:]]' "$tmp/err" &&
        grep -q '^axe: ' "$tmp/err"
}

# expect_ok OUTPUT CMD...: exit 0 and stdout equal to OUTPUT.
expect_ok() {
    local want=$1
    shift
    run "$@"
    if [ $rc -eq 0 ] && [ "$(cat "$tmp/out")" = "$want" ] &&
        [ ! -s "$tmp/err" ]; then
        ok
    else
        bad "expected 0 and '$want' from: $* (got $rc, '$(head -c 300 "$tmp/out")', '$(head -c 300 "$tmp/err")')"
    fi
}

# expect_code CODE CMD...: exit CODE, nothing on stdout, one clean line.
expect_code() {
    local want=$1
    shift
    run "$@"
    if [ $rc -eq "$want" ] && [ ! -s "$tmp/out" ] && one_clean_line; then
        ok
    else
        bad "expected exit $want and one line from: $* (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}

# expect_syntax CMD...: exit 2, one clean line that names an offset.
expect_syntax() {
    run "$@"
    if [ $rc -eq 2 ] && one_clean_line &&
        grep -q 'at offset [0-9][0-9]* in "' "$tmp/err"; then
        ok
    else
        bad "expected a syntax error with an offset from: $* (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}

# ---- exit 0: each command ---------------------------------------------------

expect_ok "S[2048:2]" "$AXE" canon "S[(8,8,8,4,1,1):(512,64,8,2,1,1)]"
expect_ok "S[(8,36):(6,1)]" "$AXE" canon "S[(8,2,3,6):(6,18,6,1)]"
expect_ok "S[512:1@tx]" "$AXE" canon --target cuda \
    "S[(16,32):(1@warpid,1@laneid)]"
# The paper's lane and warp are laneid and warpid: every mix fuses (issue 3).
expect_ok "S[64:1@tx]" "$AXE" canon --target=cuda \
    "S[(2,32):(1@warpid,1@lane)]"
expect_ok "S[64:1@tx]" "$AXE" tile --target=cuda "S[2:1@warpid]" "[2]" \
    "S[32:1@lane]" "[32]"
expect_ok true "$AXE" equal --equivalent "S[4:1@warp]" "S[4:1@warpid]"
expect_ok "$(printf 'S[(4,2,4):(8,4,1)]\nseps [0,2,3]')" "$AXE" group \
    "S[(4,8):(8,1)]" "[8,4]"
expect_ok "$(printf 'S[(2,3,5):(15,5,1)]\nseps [0,2,3] [0,1,3]')" "$AXE" \
    group "S[30:1]" "[6,5]" "[2,15]"
# The Axe paper's definitions are the default (issue 12 §1): span = 1 +
# sum |s|(e-1) over shard and replica iters, offset excluded (Lemma C.1);
# A (x) B scales A's shard, replica and offset by span(B) (Theorem C.2);
# tile-of divides them back (Appendix D); intersect is the iter
# intersection (section 3.4). --tirx keeps TIRx's results where they
# differ, --tile the tile intersection; other commands refuse them.
expect_ok "S[8:1] + R[2:8]" "$AXE" tile "S[2:1]+R[2:2]" "[2]" "S[4:1]" "[4]"
expect_ok "S[8:1] + R[2:2]" "$AXE" tile --tirx "S[2:1]+R[2:2]" "[2]" \
    "S[4:1]" "[4]"
expect_ok "S[8:1] + 6" "$AXE" tile "S[2:1]+1" "[2]" "S[4:1]+2" "[4]"
expect_ok "S[(2,4):(6,1)] + 3" "$AXE" tile --tirx "S[2:1]+1" "[2]" \
    "S[4:1]+2" "[4]"
expect_ok "S[(2,4):(4,-1)]" "$AXE" tile "S[2:1]" "[2]" "S[4:-1]" "[4]"
expect_ok "S[(2,4):(-2,-1)]" "$AXE" tile --tirx "S[2:1]" "[2]" "S[4:-1]" "[4]"
expect_ok "4" "$AXE" span "S[4:-1]"
expect_ok "-2" "$AXE" span --tirx "S[4:-1]"
expect_ok "S[2:1] + 1" "$AXE" tile-of --raw "S[(2,4):(4,1)] + 6" "[8]" \
    "S[4:1] + 2" "[4]"
expect_code 1 "$AXE" tile-of --tirx "S[(2,4):(4,1)] + 6" "[8]" \
    "S[4:1] + 2" "[4]"
expect_ok "S[4:1]" "$AXE" tile-of --outer "S[8:1] + R[2:8]" "[8]" \
    "S[2:1] + R[2:2]" "[2]"
expect_ok "S[(2,4):(32,1)] + R[2:1]" "$AXE" tile --tirx "S[2:8] + R[2:1]" \
    "[2]" "S[4:1]" "[4]"
expect_ok "S[(2,4):(32,1)] + R[2:4]" "$AXE" tile "S[2:8] + R[2:1]" \
    "[2]" "S[4:1]" "[4]"
expect_ok "S[8192:1]" "$AXE" tile-of --outer --tirx \
    "S[(2,8192):(2@warpid,1)] + R[2:1@warpid]" "[128,128]" \
    "S[2:2@warpid] + R[2:1@warpid]" "[2,1]"
expect_ok "S[4:4@P]" "$AXE" intersect "S[8:2@P]" "S[4:4@P]"
expect_ok "S[1:1]" "$AXE" intersect --tile "S[8:2@P]" "S[4:4@P]"
expect_ok "S[1:1]" "$AXE" intersect --tirx "S[8:2@P]" "S[4:4@P]"
expect_ok "S[3:-6]" "$AXE" intersect "S[8:-2]" "S[6:-3]"
expect_code 1 "$AXE" intersect "S[(2,2):(8,1)]" "S[(4,2):(4,1)]"
expect_code 1 "$AXE" intersect "S[(4,32):(1@F,1@P)]" "S[(2,64):(2@F,1@P)]"
expect_code 1 "$AXE" intersect "S[8:1] + R[2:4]" "S[8:1]"
expect_code 2 "$AXE" span --tile "S[4:1]"
expect_code 2 "$AXE" canon --tirx "S[4:1]"
# The paper's tile (e): A = S[(2,3):(3,1)] over [2,3], B = S[(8,8):(8,1)].
expect_ok "S[(2,8,3,8):(192,8,64,1)]" "$AXE" tile "S[(2,3):(3,1)]" "[2,3]" \
    "S[(8,8):(8,1)]" "[8,8]"
expect_ok "S[(8,8,8,4):(8,4@laneid,1,1@laneid)]" "$AXE" tile \
    "S[(8,8):(8,1)]" "[8,8]" "S[(8,4):(4@laneid,1@laneid)]" "[8,4]"
# ... and back: the outer factor A (canonical S[6:1]) and the inner B.
expect_ok "S[6:1]" "$AXE" tile-of "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" \
    "S[(8,8):(8,1)]" "[8,8]"
expect_ok "S[(2,3):(3,1)]" "$AXE" tile-of --raw \
    "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" "S[(8,8):(8,1)]" "[8,8]"
expect_ok "S[(2,4):(1,2)]" "$AXE" tile-of --outer "S[(8,2,32):(64,1,2)]" \
    "[16,32]" "S[(8,8):(8,1)]" "[8,8]"
expect_ok "S[8:1@laneid]" "$AXE" intersect --axis laneid \
    "S[(8,8,4):(4@laneid,8,1@laneid)]" "S[(2,8,4):(4@laneid,8,1@laneid)]"
expect_ok "S[4:1@laneid]" "$AXE" intersect --tile --axis laneid \
    "S[(8,8,4):(4@laneid,8,1@laneid)]" "S[(2,8,4):(4@laneid,8,1@laneid)]"
# The paper's slice (f): the region [0,8) x [8,24) of the tile above.
expect_ok "S[(8,2,8):(8,64,1)] + 64" "$AXE" slice \
    "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" "[[0,8],[8,24]]"
expect_ok "S[(1,8,2,8):(192,8,64,1)] + 64" "$AXE" slice --raw \
    "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" "[[0,8],[8,24]]"
# Found by its steps, past 2^20 elements (issue 3).
expect_ok "S[(2,2,1048576):(100000000,98951424,1)] + 1048576" "$AXE" slice \
    "S[(3,2097152):(100000000,1)]" "[6291456]" "[[1048576,5242880]]"
expect_ok "Swizzle<3,3,3>(S[64:1] + 64)" "$AXE" slice \
    "Swizzle<3,3,3>(S[(8,64):(64,1)])" "[512]" "[[64,128]]"
# The direct sum (paper h) and both recoveries.
expect_ok "S[16:1]" "$AXE" sum "S[(2,2):(8,2)]" "[2,2]" "S[(2,2):(4,1)]" \
    "[2,2]"
expect_ok "S[16:1] + R[2:1@warpid] + 1@warpid + 8" "$AXE" sum \
    "S[(2,2):(8,2)] + 1@warpid + 5" "[2,2]" \
    "S[(2,2):(4,1)] + R[2:1@warpid] + 3" "[2,2]"
expect_ok "S[(2,2):(8,2)]" "$AXE" sum --recover-a "S[16:1]" "[2,2,2,2]" \
    "S[(2,2):(4,1)]" "[2,2]"
expect_ok "S[(2,2):(4,1)]" "$AXE" sum --recover-b "S[16:1]" "[2,2,2,2]" \
    "S[(2,2):(8,2)]" "[2,2]"
expect_ok 64 "$AXE" size "S[(8,8):(8,1)]"
expect_ok 8 "$AXE" size --axis P "S[(8,8,8):(64@F,1@P,1@F)]"
expect_ok 512 "$AXE" size "Swizzle<3,3,3>(S[(8,64):(64,1)])"
expect_ok 351 "$AXE" span "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]"
expect_ok 224 "$AXE" span --axis=TCol "S[(2,128,112):(112@TCol,1@TLane,1@TCol)]"
expect_ok 108 "$AXE" span "S[(4,2):(2,1)] + R[2:100] + 5"
expect_ok 113 "$AXE" span --tirx "S[(4,2):(2,1)] + R[2:100] + 5"
expect_ok true "$AXE" equal "S[8:4@laneid] + 1@laneid + 2@warpid + 64" \
    "S[8:4@laneid] + 2@warpid + 64 + 1@laneid"
expect_ok false "$AXE" equal "S[(8,8):(8,1)]" "S[64:1]"
expect_ok true "$AXE" equal --canonicalize "S[(8,8):(8,1)]" "S[64:1]"
expect_ok true "$AXE" equal --equivalent "S[(2,4):(4,1)]" "S[8:1]"
expect_ok "well-formed: scope thread -> warp (its thread axes pick one thread within a warp)" \
    "$AXE" check "S[(8,4,2):(4@laneid,1@laneid,1)]"
expect_ok "well-formed: no thread axes in the shard" "$AXE" check \
    "S[8:1] + R[4:1@laneid]"
expect_ok "S[(8,4):(4,1)]" "$AXE" convert "(4,8):(1,4)"
expect_ok "(4,8):(1,4)" "$AXE" convert "S[(8,4):(4,1)]"
expect_ok "Swizzle<4,3,3>(S[(64,8):(1,64)])" "$AXE" convert \
    "Sw<3,4,3> o 0 o (8,64):(64,1)"
expect_ok "laneid: thread axis, one step is a thread, ranging within a warp (the paper spells it lane: the same axis)" \
    "$AXE" axis laneid
# The paper's lane and warp are TIRx's laneid and warpid (docs/algebra.md
# §16.1): one axis, two spellings; Lane (TMEM) is another axis.
expect_ok "lane: thread axis, one step is a thread, ranging within a warp (the paper's spelling of laneid: the same axis)" \
    "$AXE" axis lane
expect_ok "warp: thread axis, one step is a warp, ranging within a cta (the paper's spelling of warpid: the same axis)" \
    "$AXE" axis warp
expect_ok "warpid: thread axis, one step is a warp, ranging within a cta (the paper spells it warp: the same axis)" \
    "$AXE" axis warpid
expect_ok "tx: thread axis, one step is a thread, ranging within a cta" \
    "$AXE" axis tx
expect_ok "Lane: memory axis" "$AXE" axis Lane
expect_ok "gpuid: device axis" "$AXE" axis gpuid

# ---- apply and back: the paper's Figure 2 --------------------------------------

fig2="S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
run "$AXE" apply "$fig2" --shape "[8,16]"
if [ $rc -eq 0 ] && [ "$(nlines "$tmp/out")" = 11 ] &&
    grep -q '^axes: w = warp, l = lane, r = reg$' "$tmp/out" &&
    grep -q '^0   w5 l0 r0 | w9 l0 r0     w5 l0 r1 | w9 l0 r1 ' "$tmp/out" &&
    grep -q 'w6 l31 r1 | w10 l31 r1$' "$tmp/out"; then
    ok
else
    bad "Figure 2 table: $(head -c 600 "$tmp/out")"
fi
run "$AXE" apply --list "$fig2" --shape "[8,16]"
if [ $rc -eq 0 ] && [ "$(nlines "$tmp/out")" = 130 ] &&
    grep -q '^\[7,15\]  w6 l31 r1 | w10 l31 r1$' "$tmp/out"; then
    ok
else
    bad "Figure 2 list: $(head -c 300 "$tmp/out")"
fi
expect_ok "$(printf '{lane: 5, warp: 5, reg: 0}\n{lane: 5, warp: 9, reg: 0}')" \
    "$AXE" apply "$fig2" --shape "[8,16]" "[1,2]"
expect_ok "$(printf '{lane: 4, warp: 5, reg: 1}\n{lane: 4, warp: 9, reg: 1}')" \
    "$AXE" apply "$fig2" 17
expect_ok "{lane: 4, warp: 5, reg: 1}" "$AXE" apply --base "$fig2" 17
expect_ok "{lane: 5, warp: 5, reg: 0}" "$AXE" apply --digits "$fig2" \
    "[1,0,1,0]"
expect_ok 18 "$AXE" back "$fig2" "warp=5,lane=5"
# One axis under two spellings adds, like an axis given twice.
expect_ok 7 "$AXE" back "S[32:1@lane]" "lane=3,laneid=4"
expect_ok 7 "$AXE" back "S[32:1@laneid]" "{laneid: 3, lane: 4}"
expect_ok 7 "$AXE" back "S[32:1]" "m=3,m=4"
expect_ok "[1,2]" "$AXE" back --shape "[8,16]" "$fig2" "{lane: 5, warp: 5}"
expect_ok "[1,2]" "$AXE" back --replicas --shape "[8,16]" "$fig2" \
    "{warp: 9, lane: 5, reg: 0}"
expect_ok "$(printf 'S[(2,4):(4,1)] over [2,4] (sets of points)\nvalues on m\n    0   1   2   3\n0   0   1   2   3\n1   4   5   6   7')" \
    "$AXE" apply "S[(2,4):(4,1)]" --shape "[2,4]"
run "$AXE" apply "S[(2,2,2):(4,2,1)] + R[2:1@laneid]" --shape "[2,2,2]"
if [ $rc -eq 0 ] && grep -q '^\[1,1,1\]  l0 m7 | l1 m7$' "$tmp/out"; then
    ok
else
    bad "3-D apply list: $(head -c 300 "$tmp/out")"
fi

# ---- exit 1: no answer ------------------------------------------------------------

expect_code 1 "$AXE" tile-of "S[16:1]" "[4,4]" "S[(2,2):(4,1)]" "[2,2]"
expect_code 1 "$AXE" slice "S[(4,4):(1,4)]" "[16]" "[[1,6]]"
expect_code 1 "$AXE" group "S[(4,8):(8,1)]" "[3,8]"
expect_code 1 "$AXE" tile "S[8:1]" "[8]" "S[8:1]" "[8,1]"
expect_code 1 "$AXE" check "S[(2,8,2,4,2):(2@wgid,4@laneid,1@wgid,1@laneid,1)]"
expect_code 1 "$AXE" back "$fig2" "{warp: 7}"
expect_code 1 "$AXE" size --axis m "Swizzle<3,3,3>(S[512:1])"
expect_code 1 "$AXE" convert "S[8:1] + R[2:1@laneid]"
expect_code 1 "$AXE" apply "S[(1024,1024):(1024,1)]" --shape "[1024,1024]"
expect_code 1 "$AXE" apply "S[(8,8):(8,1)]" -1
expect_code 1 "$AXE" apply --base "S[(8,8):(8,1)]" -1
grep -q 'linear index -1 is negative' "$tmp/err" && ok ||
    bad "apply of -1 says why: $(cat "$tmp/err")"
# Past the size the outermost digit absorbs the rest (TIRx, spec §6).
expect_ok "{m: 100}" "$AXE" apply "S[(8,8):(8,1)]" 100
run "$AXE" batch <<<'{"id":1,"op":"axe.apply","args":{"layout":"S[8:1]","coord":[-1]}}'
case "$(cat "$tmp/out")" in
*'"ok":false,"error":"DOMAIN"'*'index -1 is negative'*) ok ;;
*) bad "batch apply of -1: $(cat "$tmp/out")" ;;
esac

# ---- exit 2: usage and malformed operands --------------------------------------

expect_code 2 "$AXE" canon
expect_code 2 "$AXE" canon "S[8:1]" "S[8:1]"
expect_code 2 "$AXE" canon --frobnicate "S[8:1]"
expect_code 2 "$AXE" canon --target gpu "S[8:1]"
expect_code 2 "$AXE" canon --target
expect_code 2 "$AXE" tile-of --inner --outer "S[8:1]" "[8]" "S[8:1]" "[8]"
expect_code 2 "$AXE" sum --recover-a --recover-b "S[8:1]" "[8]" "S[8:1]" "[8]"
expect_code 2 "$AXE" equal --canonicalize --equivalent "S[8:1]" "S[8:1]"
expect_code 2 "$AXE" apply "S[8:1]" "[1,2]"
expect_code 2 "$AXE" apply --digits "S[8:1]"
expect_code 2 "$AXE" apply --list "S[8:1]" 3
expect_code 2 "$AXE" back "S[8:1]"
expect_code 2 "$AXE" back --shape "[0]" "S[8:1]" "m=1"
deep=$(printf '%*s' 10000 '' | tr ' ' '(')
expect_syntax "$AXE" canon "S[(8,8):(8,1)"
expect_syntax "$AXE" canon "S[(8,8):(8,1)] +"
expect_syntax "$AXE" canon "S[(8,8):(8@,1)]"
expect_syntax "$AXE" canon "S[(99999999999999999999,8):(8,1)]"
expect_syntax "$AXE" canon "S[$deep"
expect_syntax "$AXE" canon ""
expect_syntax "$AXE" canon "S[(8,é):(8,1)]"
expect_syntax "$AXE" group "S[8:1]" "[8,"
expect_syntax "$AXE" group "S[8:1]" "[8,x]"
expect_syntax "$AXE" slice "S[8:1]" "[8]" "[[0,8],[1]]"
expect_syntax "$AXE" slice "S[8:1]" "[8]" "[0,8]"
expect_syntax "$AXE" back "S[8:1]" "{m 3}"
expect_syntax "$AXE" back "S[8:1]" "{m: 3"
expect_syntax "$AXE" back "S[8:1]" "averyveryverylongaxisname=1"
expect_syntax "$AXE" apply "S[8:1]" "1.5"
expect_syntax "$AXE" convert --to-axe "(4,8:(1,4)"
run "$AXE" canon "$(printf 'S[(8,\001\033[31m8):(8,1)]')"
if [ $rc -eq 2 ] && one_clean_line; then ok; else bad "control bytes"; fi

# ---- --help everywhere -------------------------------------------------------------

help_ok() {
    run "$@"
    if [ $rc -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ] &&
        grep -q '^usage: axe ' "$tmp/out"; then
        ok
    else
        bad "--help: $* (got $rc)"
    fi
}
run "$AXE" --help
cmds=$(sed -n '/^Axe layouts/,/^other commands/s/^  \([a-z][a-z-]*\) .*/\1/p' \
    "$tmp/out")
[ "$(echo "$cmds" | wc -l)" -ge 14 ] && ok ||
    bad "axe --help lists the Axe commands: $cmds"
while IFS= read -r c; do
    help_ok "$AXE" "$c" --help
    help_ok "$AXE" "$c" "S[8:1]" -h
done <<<"$cmds"

# ---- axe batch ----------------------------------------------------------------------

{
    echo '{"id":1,"op":"axe.canonicalize","args":{"layout":"S[(8,2,3,6):(6,18,6,1)]"}}'
    echo '{"id":2,"op":"axe.group","args":{"layout":"S[32:1]","shape":[4,8]}}'
    echo '{"id":3,"op":"axe.apply","args":{"layout":"S[(8,8):(8,1)]","coord":[2,3],"shape":[8,8]}}'
    echo '{"id":4,"op":"axe.is_tile_inner","args":{"tiled":"S[16:1]","tiled_shape":[4,4],"inner":"S[(2,2):(4,1)]","inner_shape":[2,2]}}'
    echo '{"id":5,"op":"axe.nosuch","args":{}}'
    echo '{"id":6,"op":"axe.size","args":{"layout":"S[8:1]","q":1}}'
    echo '{"id":7,"op":"axe.size","args":{"layout":"S[8:1"}}'
    echo '{"id":8,"op":"axe.size","args":{}}'
    echo '{"id":9,"op":"axe.size","args":{"layout":8}}'
    echo '{"id":10,"op":"axe.backward","args":{"layout":"S[8:2]","point":"m=6"}}'
    echo '{"id":11,"op":"axe.from_cute","args":{"text":"(4,8):(1,4)"}}'
    echo '{"id":12,"op":"axe.get_scope","args":{"layout":"S[8:1]"}}'
    echo '{"id":13,"op":"axe.slice","args":{"layout":"S[(4,4):(1,4)]","shape":[16],"region":[[1,6]]}}'
    echo '{"id":14,"op":"axe.backward","args":{"layout":"S[32:1@lane]","point":{"lane":3,"laneid":4}}}'
} >"$tmp/batch.in"
run "$AXE" batch <"$tmp/batch.in"
[ $rc -eq 0 ] && [ "$(nlines "$tmp/out")" = 14 ] && ok ||
    bad "axe batch: status $rc, $(nlines "$tmp/out") answers"
want='{"id":1,"ok":true,"result":"S[(8,36):(6,1)]"}
{"id":2,"ok":true,"result":{"layout":"S[(4,8):(8,1)]","seps":[0,1,2]}}
{"id":3,"ok":true,"result":{"m":19}}
{"id":4,"ok":true,"result":null,"reason":"dim 0: the stride of tiled iter (2,8@m) is not a multiple of the inner span on its axis"}'
[ "$(head -n 4 "$tmp/out")" = "$want" ] && ok ||
    bad "batch results: $(head -n 4 "$tmp/out")"
grep -qx '{"id":14,"ok":true,"result":7}' "$tmp/out" && ok ||
    bad "batch backward over lane and laneid: $(grep '"id":14' "$tmp/out")"
if command -v jq >/dev/null 2>&1; then
    got=$(jq -r 'if .ok then "ok" else .error end' "$tmp/out" | tr '\n' ' ')
    want='ok ok ok ok UNKNOWN_OP INVALID SYNTAX INVALID INVALID ok ok ok ok ok '
    [ "$got" = "$want" ] && ok || bad "batch statuses: $got"
    # A null result says why ("reason"); a non-null one has no reason.
    got=$(jq -r 'select(.id == 13) | [.result, .reason] | @json' "$tmp/out")
    case "$got" in
    '[null,"'*) ok ;;
    *) bad "batch slice without a layout: $got" ;;
    esac
    [ "$(grep -c '"reason"' "$tmp/out")" = 2 ] && ok ||
        bad "batch: reasons on other answers: $(grep reason "$tmp/out")"
    jq -r 'select(.id == 7) | .message' "$tmp/out" |
        grep -q 'at offset 5 in "S\[8:1"' && ok || bad "batch syntax offset"
    got=$(jq -c 'select(.id >= 10 and .id <= 12) | .result' "$tmp/out" |
        tr '\n' ' ')
    [ "$got" = '3 "S[(8,4):(4,1)]" null ' ] && ok || bad "batch extras: $got"
fi

# The paper's rules by default in batch, TIRx's with "tirx": true; the
# tile intersection with "tile": true (issue 12 §1).
{
    echo '{"id":1,"op":"axe.tile","args":{"outer":"S[2:1]+R[2:2]","outer_shape":[2],"inner":"S[4:1]","inner_shape":[4]}}'
    echo '{"id":2,"op":"axe.tile","args":{"outer":"S[2:1]+R[2:2]","outer_shape":[2],"inner":"S[4:1]","inner_shape":[4],"tirx":true}}'
    echo '{"id":3,"op":"axe.span","args":{"layout":"S[4:-1]","tirx":false}}'
    echo '{"id":4,"op":"axe.span","args":{"layout":"S[4:-1]","tirx":true}}'
    echo '{"id":5,"op":"axe.is_tile_inner","args":{"tiled":"S[(2,4):(4,1)] + 6","tiled_shape":[8],"inner":"S[4:1]+2","inner_shape":[4]}}'
    echo '{"id":6,"op":"axe.is_tile_inner","args":{"tiled":"S[(2,4):(4,1)] + 6","tiled_shape":[8],"inner":"S[4:1]+2","inner_shape":[4],"tirx":true}}'
    echo '{"id":7,"op":"axe.intersect_iters","args":{"a":"S[8:2@P]","b":"S[4:4@P]"}}'
    echo '{"id":8,"op":"axe.intersect_iters","args":{"a":"S[8:2@P]","b":"S[4:4@P]","tile":true}}'
    echo '{"id":9,"op":"axe.intersect_iters","args":{"a":"S[(2,2):(8,1)]","b":"S[(4,2):(4,1)]"}}'
    echo '{"id":10,"op":"axe.tile_to","args":{"layout":"S[4:1]+1","to_shape":[8],"current_shape":[4]}}'
    echo '{"id":11,"op":"axe.tile_to","args":{"layout":"S[4:1]+1","to_shape":[8],"current_shape":[4],"tirx":true}}'
} >"$tmp/rules.in"
run "$AXE" batch <"$tmp/rules.in"
got=$(sed -e 's/"reason":"[^"]*"/"reason"/' -e 's/"message":"[^"]*"/"message"/' \
    "$tmp/out" | tr '\n' ' ')
want='{"id":1,"ok":true,"result":"S[8:1] + R[2:8]"} {"id":2,"ok":true,"result":"S[8:1] + R[2:2]"} {"id":3,"ok":true,"result":4} {"id":4,"ok":true,"result":-2} {"id":5,"ok":true,"result":"S[2:1] + 1"} {"id":6,"ok":true,"result":null,"reason"} {"id":7,"ok":true,"result":"S[4:4@P]"} {"id":8,"ok":true,"result":"S[1:1]"} {"id":9,"ok":false,"error":"INCOMPATIBLE","message"} {"id":10,"ok":true,"result":"S[8:1] + 1"} {"id":11,"ok":true,"result":"S[(2,4):(5,1)] + 1"} '
[ "$got" = "$want" ] && ok || bad "batch rules: $got"

# ---- docs/cli.md shows real outputs -------------------------------------------------

# Every "    $ axe ..." example of the Axe sections of docs/cli.md, run with
# stderr merged, must print exactly the indented lines under it.
docs=${AXE_SOURCE_DIR:-$(dirname "$0")/..}/docs/cli.md
if [ -f "$docs" ]; then
    sed -n '/^## Axe-layout commands/,/^## `axe cute` commands/p' "$docs" \
        >"$tmp/docs"
    n=0
    cmd=""
    : >"$tmp/want"
    check_example() {
        [ -n "$cmd" ] || return 0
        n=$((n + 1))
        eval "\"\$AXE\" ${cmd#axe }" >"$tmp/got" 2>&1
        if cmp -s "$tmp/got" "$tmp/want"; then
            ok
        else
            bad "docs/cli.md example: $cmd: $(diff "$tmp/want" "$tmp/got" | head -5)"
        fi
    }
    while IFS= read -r line; do
        case $line in
        '    $ axe '*)
            check_example
            cmd=${line#    $ }
            : >"$tmp/want"
            ;;
        '    '*)
            [ -n "$cmd" ] && printf '%s\n' "${line#    }" >>"$tmp/want"
            ;;
        *)
            check_example
            cmd=""
            ;;
        esac
    done <"$tmp/docs"
    check_example
    [ "$n" -ge 40 ] && ok || bad "only $n examples found in $docs"
else
    bad "no $docs"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
