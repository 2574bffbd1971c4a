#!/usr/bin/env bash
# The README's main job stays working: run the CuTe and Axe paper
# walkthrough with the CLI under test and check the answers the papers give.
set -u
AXE=${AXE_BIN:?AXE_BIN is not set}
out=$(AXE="$AXE" bash "$AXE_SOURCE_DIR/examples/demo_cute_paper.sh" 2>&1)
rc=$?
pass=0
fail=0
expect() {
    if grep -qxF -- "$1" <<<"$out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: the demo did not print the line: $1"
    fi
}
[ "$rc" -eq 0 ] && pass=$((pass + 1)) || {
    fail=$((fail + 1))
    echo "FAIL: demo exited $rc"
}
expect "17"
expect "12:1"
expect "((2,2),3):((24,2),8)"
expect "(5,4):(8,2)"
expect "3:9"
expect "(3,2):(2,12)"
expect "((4,2),(8,2)):((20,80),(2,1))"
expect "(5,8):(1,4)"
expect "((2,2),(2,3)):((4,1),(2,8))"
expect "{lane: 8, warp: 6, reg: 1}"
expect "{lane: 8, warp: 10, reg: 1}"
expect "{gpuid: 3, m: 1060}"
expect "S[(2,8,3,8):(192,8,64,1)]"
expect "S[(8,2,8):(8,64,1)] + 64"
expect "S[16:1]"
expect "S[(2,8,4):(8,1,16)]"
expect "demo: done"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
