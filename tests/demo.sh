#!/usr/bin/env bash
# The README's first command stays working and right: run the demo
# (examples/demo.sh) with the CLI under test and check its answers against
# the definitions, computed here by hand or by brute force, never by axe:
# the tensor-core tile's points, every cell of its hardware-side picture,
# the four notations of one layout, the mesh layout's points and every
# cell of its picture, the compiler's schedules, and the kernel's check.
set -u
AXE=${AXE_BIN:?AXE_BIN is not set}
start=$SECONDS
out=$(AXE="$AXE" bash "$AXE_SOURCE_DIR/examples/demo.sh" 2>&1)
rc=$?
took=$((SECONDS - start))
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1"
}
expect() {
    if grep -qxF -- "$1" <<<"$out"; then ok; else bad "the demo did not print the line: $1"; fi
}
[ "$rc" -eq 0 ] && ok || bad "the demo exited $rc"

# 1. The tile S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] +
# 5@warp: (i,j) is at lane 4i + (j/2)%4, warp 5 + j/8 and 4 more, reg j%2.
expect "{lane: 8, warp: 6, reg: 1}"
expect "{lane: 8, warp: 10, reg: 1}"
expect "S[(2,4,2):(1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
expect "rows: warp lane, columns: reg"
# Its row 0 from the hardware side: warp w, lane l holds (0, 8((w-5)%4) +
# 2l + r) in register r, for w in 5 6 9 10 and l < 4: every such row once.
seen=$(sed -n 's/^ *w\([0-9]*\) l\([0-9]*\) *| *(\([0-9]*\),\([0-9]*\)) *| *(\([0-9]*\),\([0-9]*\)) *|$/\1 \2 \3 \4 \5 \6/p' <<<"$out")
want=""
for w in 5 6 9 10; do
    for l in 0 1 2 3; do
        c=$((8 * ((w - 5) % 4) + 2 * l))
        want+="$w $l 0 $c 0 $((c + 1))"$'\n'
    done
done
if [ "$(sort <<<"$seen")" = "$(sort <<<"${want%$'\n'}")" ]; then
    ok
else
    bad "the tile's row 0 picture is not warp w lane l -> (0, 8((w-5)%4) + 2l + r):
$seen"
fi

# 2. ((2,4),8):((1,16),2): the modes 2:1, 4:16, 8:2 reversed for Axe; the
# mapping and Triton's linear layout over the 8x8 tile in Axe's order
# (dim0 is CuTe's last mode, stride 2; dim1 the first two, strides 1, 16).
expect "S[(8,4,2):(2,16,1)]"
expect "m![B, A, C] over axes![A = 8, B = 4, C = 2]"
expect " - dim0=1 -> (2)"
expect "   dim0=2 -> (4)"
expect "   dim0=4 -> (8)"
expect " - dim1=1 -> (1)"
expect "   dim1=2 -> (16)"
expect "   dim1=4 -> (32)"
expect "where out dims are: [m (size 64)]"
expect "(2,4,8):(1,16,2)"

# 3. S[(2,2,4):(1@gpuid,4,1)] + R[2:2@gpuid] over [4,4]: (r,c) is at gpuid
# r/2 and r/2 + 2, m 4(r%2) + c. The picture: row g, column m shows
# (2(g%2) + m/4, m%4), for g < 4 and m < 8.
expect "{gpuid: 1, m: 5}"
expect "{gpuid: 3, m: 5}"
expect "rows: gpuid, columns: m"
for g in 0 1 2 3; do
    line="$g  |"
    for m in 0 1 2 3 4 5 6 7; do
        line+=" ($((2 * (g % 2) + m / 4)),$((m % 4))) |"
    done
    expect "$line"
done

# 4. softmax.axe: its seven operators, each reduce by a warp shuffle; the
# run passes its check with errors within float's tolerance.
ops=$(grep -cE '^op [0-6] \(line 1[3-9]\): warp ' <<<"$out")
[ "$ops" -eq 7 ] && ok || bad "the explanation lists $ops of the 7 operators"
shuffles=$(grep -cxF "  chosen reduce.warp_shuffle" <<<"$out")
[ "$shuffles" -eq 2 ] && ok || bad "$shuffles reduces by warp shuffle, want 2"
expect "    then a butterfly over lane masks 1 2 4 8 16"
if grep -qE '^kernel softmax, target c, schedules: 0:copy=[a-z_]+ 1:reduce=warp_shuffle 2:sub=[a-z_]+ 3:exp=[a-z_]+ 4:reduce=warp_shuffle 5:div=[a-z_]+ 6:copy=[a-z_]+$' <<<"$out"; then
    ok
else
    bad "no 'kernel softmax, target c, schedules: ...' line with both reduces by warp shuffle"
fi
errs=$(sed -n 's/^check passed: max_abs_err \([0-9.e+-]*\), max_rel_err \([0-9.e+-]*\)$/\1 \2/p' <<<"$out")
if [ -n "$errs" ] && awk '{ exit !($1 < 1e-5 && $2 < 1e-5) }' <<<"$errs"; then
    ok
else
    bad "no 'check passed' line with errors under 1e-5 (got '$errs')"
fi

# It steps through no failure and ends; it is quick (under 30 s, on a
# loaded machine; about half a second alone).
if grep -q 'axe exited' <<<"$out"; then bad "a step failed"; else ok; fi
expect "demo: done (more: examples/algebra_tour.sh, docs/cli.md, docs/compiler.md)"
[ "$took" -lt 30 ] && ok || bad "the demo took $took s"
[ "$fail" -eq 0 ] || printf '%s\n' "--- the demo printed:" "$out"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
