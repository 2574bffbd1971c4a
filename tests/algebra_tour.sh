#!/usr/bin/env bash
# The algebra tour (examples/algebra_tour.sh) runs to the end with the CLI
# under test and prints the answers the CuTe and Axe papers give. The
# answers of tile, tile-of and span are not checked here: the paper's and
# TIRx's definitions are the subject of issue 12 §1 (tests/test_layout*.c
# check them).
set -u
AXE=${AXE_BIN:?AXE_BIN is not set}
out=$(AXE="$AXE" bash "$AXE_SOURCE_DIR/examples/algebra_tour.sh" 2>&1)
rc=$?
pass=0
fail=0
expect() {
    if grep -qxF -- "$1" <<<"$out"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: the tour did not print the line: $1"
    fi
}
[ "$rc" -eq 0 ] && pass=$((pass + 1)) || {
    fail=$((fail + 1))
    echo "FAIL: the tour exited $rc"
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
expect "{gpuid: 1, m: 1124}"
expect "{gpuid: 3, m: 1124}"
expect "{F: 1023, P: 127}"
expect "S[2048:2]"
expect "S[(4,2,4):(8,4,1)]"
expect "seps [0,2,3]"
expect "S[(8,2,8):(8,64,1)] + 64"
expect "S[16:1]"
expect "S[(2,8,4):(8,1,16)]"
expect "tour: done"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
