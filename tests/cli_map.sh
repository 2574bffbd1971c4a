#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The mapping-expression commands of the axe command line ($AXE_BIN): every
# "    $ axe ..." example of the `axe map` section of docs/cli.md, run with
# stderr merged, must print exactly the indented lines under it, and every
# request line of the `mapping.*` batch examples must get the answer line
# under it. Also: exit codes 2 for usage and syntax, 1 for no answer, 0 for
# --help. Every check that fails prints itself; the last line is
# "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
docs=${AXE_SOURCE_DIR:-$(dirname "$0")/..}/docs/cli.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

check() { # check DESCRIPTION CONDITION...
    local what=$1
    shift
    if "$@"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $what"
    fi
}

# Examples of the section from "$1" to the next "## " heading.
run_examples() {
    local n=0 cmd="" line
    sed -n "/^$1/,/^## [^M]/p" "$docs" >"$tmp/section"
    : >"$tmp/want"
    flush() {
        [ -n "$cmd" ] || return 0
        n=$((n + 1))
        eval "\"\$AXE\" ${cmd#axe }" >"$tmp/got" 2>&1
        check "docs example: $cmd: $(diff "$tmp/want" "$tmp/got" | head -4)" \
            cmp -s "$tmp/got" "$tmp/want"
    }
    while IFS= read -r line; do
        case $line in
        '    $ axe '*)
            flush
            cmd=${line#    $ }
            : >"$tmp/want"
            ;;
        '    '*) [ -n "$cmd" ] && printf '%s\n' "${line#    }" >>"$tmp/want" ;;
        *)
            flush
            cmd=""
            ;;
        esac
    done <"$tmp/section"
    flush
    check "at least 15 axe map examples (found $n)" [ "$n" -ge 15 ]
}

# The batch examples: request lines followed by their answers.
run_batch() {
    sed -n '/^### `mapping\.\*` ops/,/^## /p' "$docs" |
        grep '^    {"id"' | sed 's/^    //' >"$tmp/pairs"
    awk 'NR % 2 == 1' "$tmp/pairs" >"$tmp/req"
    awk 'NR % 2 == 0' "$tmp/pairs" >"$tmp/want"
    "$AXE" batch <"$tmp/req" >"$tmp/got" 2>&1
    check "batch examples: $(diff "$tmp/want" "$tmp/got" | head -4)" \
        cmp -s "$tmp/got" "$tmp/want"
    check "at least 2 batch examples" [ "$(wc -l <"$tmp/req")" -ge 2 ]
}

status() { # status WANT CMD...
    local want=$1
    shift
    "$AXE" "$@" >/dev/null 2>"$tmp/err"
    local rc=$?
    check "exit $want from $* (got $rc)" [ "$rc" -eq "$want" ]
}

if [ -f "$docs" ]; then
    run_examples '## Mapping expressions: `axe map`'
    run_batch
else
    check "docs/cli.md exists" false
fi
status 0 map --help
status 2 map
status 2 map nosuchop
status 2 map map --axes "axes![A = 8]" "m![A]" notanumber
status 2 map size --axes "axes![A = 8" "m![A]"
status 2 map size --axes "axes![A = 8]" "m![A, , A]"
status 1 map map --axes "axes![A = 3]" "m![A, A]" 8
status 1 map convert --axes "axes![A = 8]" "m![A / 2]"
status 2 map map --axes "axes![A = 8]" "m![A]" 99999999999999999999
status 2 map map --const N=x --axes "axes![A = 8]" "m![A]" 3
status 2 convert --to linear --shape 4,x "S[8:1]"
status 2 convert --to linear --shape "[" "S[8:1]"
status 1 convert --to linear --shape 4,4 "S[8:1]"
status 2 convert --to nothing "S[8:1]"
status 2 convert --to triton --shape 4,x "S[8:1@laneid]"
status 1 convert --to triton --shape 4,4 "S[8:1@laneid]"
status 0 convert --to triton --shape 2,4 "S[8:1@laneid]"
status 2 convert --to axe "m![A]"
status 1 map convert --axes "axes![A = 8, B = 8]" --tensor A,B,A "m![A, B]"
status 0 map convert --axes "axes![A = 8, B = 512]" "m![B]"
status 0 map convert --holes --axes "axes![A = 8]" "m![A # 9]"
status 1 map convert --axes "axes![A = 8]" "m![A # 9]"
status 0 convert --to mapping --holes "S[4:2]"
"$AXE" convert --to mapping "S[4:-1] + 3" >/dev/null 2>"$tmp/err"
check "a reversed layout says so: $(cat "$tmp/err")" \
    grep -q "negative stride -1: mapping expressions cannot reverse an axis" "$tmp/err"
"$AXE" convert --to mapping "S[4:-1]" >/dev/null 2>"$tmp/err"
check "a layout below 0 says so: $(cat "$tmp/err")" \
    grep -q "reaches position -3 below 0" "$tmp/err"

# An expression equal to an affine one converts without --holes (its normal
# form drops the resize over padding and the size-1 chain).
got=$("$AXE" convert --to axe --axes "axes![A = 3, B = 6]" "m![B, A # 5 = 3]" 2>&1)
check "resize over padding converts: $got" [ "$got" = "S[(3,6):(1,3)]" ]
got=$("$AXE" convert --to axe --axes "axes![A = 3, B = 6, C = 5]" \
    "m![[C = 2 / 2, A, B], C]" 2>&1)
check "size-1 chain over a composite converts: $got" [ "$got" = "S[90:1]" ]

# convert --to axe reads back every text convert --to linear prints (size 1
# inputs with no bases, axes named 0), as the layout (S[1:1] has one point,
# m = 0: the empty layout; extent-1 iters drop).
for pair in "S[1:1] S[():()]" "S[():()] S[():()]" "S[4:1] S[4:1]" \
    "S[(4,1):(1,7)] S[4:1]" "S[(2,4):(1@lane,1@warp)] S[(2,4):(1@lane,1@warp)]" \
    "S[4:1@0] S[4:1@0]"; do
    set -- $pair
    t=$("$AXE" convert --to linear "$1" 2>&1)
    a=$("$AXE" convert --to axe "$t" 2>&1)
    check "linear text of $1 reads back: $a" [ "$a" = "$2" ]
done
t=$("$AXE" convert --to linear --shape "[1,4,1]" "S[4:1]" 2>&1)
check "linear text over [1,4,1] reads back: $t" \
    [ "$("$AXE" convert --to axe "$t" 2>&1)" = "S[4:1]" ]

# convert --to axe reads back what convert --to triton prints (replicas as
# zero bases; the mma.m16n8 accumulator's lane modes merge).
for pair in "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)] 16,8 S[(2,32,2):(2@reg,1@laneid,1@reg)]" \
    "S[(2,4):(1@warp,1@lane)]+R[2:4@lane] 2,4 S[(2,4):(1@warpid,1@laneid)]+R[2:4@laneid]"; do
    set -- $pair
    t=$("$AXE" convert --to triton --shape "$2" "$1" 2>&1)
    a=$("$AXE" convert --to axe "$t" 2>&1)
    check "triton text of $1 reads back: $a" [ "$a" = "${3//+/ + }" ]
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
