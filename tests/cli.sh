#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Tests of the axe command line ($AXE_BIN): exit codes 0 / 1 / 2 for
# representative commands, --help on every command, malformed operands
# (truncated, overflowing, 10,000-deep, non-ASCII, empty) rejected with exit
# 2 and one printable line naming the offset, and `axe batch` answering
# exactly one JSON line per request through garbage (binary junk, a 1 MB
# line, a longer-than-allowed line, deeply nested JSON). Every check that
# fails prints itself; the last line is "N passed, N failed".
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

# Run the command; stdout in $tmp/out, stderr in $tmp/err, status in $rc.
run() {
    if command -v timeout >/dev/null 2>&1; then
        timeout 120 "$@" >"$tmp/out" 2>"$tmp/err"
    else
        "$@" >"$tmp/out" 2>"$tmp/err"
    fi
    rc=$?
}

nlines() { wc -l <"$1" | tr -d ' '; }

# The last run wrote exactly one printable-ASCII line to stderr.
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
        bad "expected 0 and '$want' from: $* (got $rc, '$(head -c 200 "$tmp/out")', '$(head -c 200 "$tmp/err")')"
    fi
}

# expect_code CODE CMD...: exit CODE with one clean line on stderr.
expect_code() {
    local want=$1
    shift
    run "$@"
    if [ $rc -eq "$want" ] && [ ! -s "$tmp/out" ] && one_clean_line; then
        ok
    else
        bad "expected exit $want and one line from: ${*:0:6} (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}

# expect_syntax CMD...: exit 2, one clean line that names an offset.
expect_syntax() {
    run "$@"
    if [ $rc -eq 2 ] && one_clean_line &&
        grep -q 'at offset [0-9][0-9]* in "' "$tmp/err"; then
        ok
    else
        bad "expected a syntax error with an offset from: $(printf '%.80s' "$*") (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}

# ---- exit 0 ----------------------------------------------------------------

run "$AXE" --version
if [ $rc -eq 0 ] && grep -Eq '^axe [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out"; then
    ok
else
    bad "axe --version"
fi
expect_ok 12 "$AXE" cute size "(4,3)"
expect_ok 3 "$AXE" cute size "(4,3)" 1
expect_ok 32 "$AXE" cute cosize "(4,8):(1,4)"
expect_ok 2 "$AXE" cute rank "((2,2),3):((1,2),8)"
expect_ok 2 "$AXE" cute depth "((2,2),3):((1,2),8)"
expect_ok 17 "$AXE" cute eval "(3,(2,3)):(3,(12,1))" "(1,(1,2))"
expect_ok 20 "$AXE" cute eval "(4,8):(1,4)" 20
expect_ok "(1,2)" "$AXE" cute eval "(2,3):(1@0,1@1)" 5
expect_ok "(2,3,4,5):(1,2,6,24)" "$AXE" cute flatten \
    "(2,(3,(4,5))):(1,(2,(6,24)))"
expect_ok "(2,3):(1@0,1@1)" "$AXE" cute identity "(2,3)"
expect_ok 48 "$AXE" cute swizzle apply "Sw<3,4,3>" 48
expect_ok "(1,_,3)" "$AXE" cute flatten "(1,(_,3))"
# the extended complement (the CuTe paper's Table 7) beside CuTe's
expect_ok "1:32" "$AXE" cute complement --extended "(4,8):(1,4)"
expect_ok "1:0" "$AXE" cute complement "(4,8):(1,4)"
expect_ok "(2,1):(4,64)" "$AXE" cute complement --extended "(4,8):(1,8)"
expect_ok "(2,2):(4,64)" "$AXE" cute complement "(4,8):(1,8)" --extended 128
expect_ok "(64,2):(1,128)" "$AXE" cute flatten "((64,),2):((1,),128)"
run "$AXE" cute print "(2,3):(3,1)"
if [ $rc -eq 0 ] && [ "$(nlines "$tmp/out")" = 7 ] &&
    grep -q '^ 1  | 3 | 4 | 5 |$' "$tmp/out"; then
    ok
else
    bad "axe cute print (2,3):(3,1): $(cat "$tmp/out")"
fi

# ---- exit 1: the operation has no answer ------------------------------------

expect_code 1 "$AXE" cute size "(4,3)" 2
expect_code 1 "$AXE" cute size "(4,2)" 0 0 0
expect_code 1 "$AXE" cute slice "Sw<3,5,4>" "(0,_)"
expect_code 1 "$AXE" cute recast "(32,4):(1,32)" 8 0
expect_code 1 "$AXE" cute left-inverse "(8,4,2):(13,2,1)"
expect_code 1 "$AXE" cute print "(2,2,2):(1,2,4)"
expect_code 1 "$AXE" cute print "(1024,1024):(1,1024)"
expect_code 1 "$AXE" cute size "Sw<3,4,3>"

# ---- exit 2: usage -------------------------------------------------------------

expect_code 2 "$AXE"
expect_code 2 "$AXE" frobnicate
expect_code 2 "$AXE" cute frobnicate
expect_code 2 "$AXE" cute compose "(4,8):(1,4)"
expect_code 2 "$AXE" cute compose a b c
expect_code 2 "$AXE" cute compose --extended "4:1" "2"
expect_code 1 "$AXE" cute complement --extended "(3,2):(2,3)"
expect_code 2 "$AXE" cute size "(4,3)" x
expect_code 2 "$AXE" cute divide --sideways "8:1" "2:1"
expect_code 2 "$AXE" cute divide --zipped --tiled "8:1" "2:1"
expect_code 2 "$AXE" cute compose --zipped "8:1" "2:1"
expect_code 2 "$AXE" batch extra
expect_code 2 "$AXE" cute

# ---- exit 2: malformed operands ---------------------------------------------

deep=$(printf '%*s' 10000 '' | tr ' ' '(')1$(printf '%*s' 10000 '' | tr ' ' ')')
expect_syntax "$AXE" cute size "(4,8:(1,4)"
expect_syntax "$AXE" cute size "(4,8):(1,4"
expect_syntax "$AXE" cute size "(4,8):"
expect_syntax "$AXE" cute size "(4,8):(1,4))"
expect_syntax "$AXE" cute size "99999999999999999999:1"
expect_syntax "$AXE" cute size "(4,8):(1,-99999999999999999999)"
expect_syntax "$AXE" cute size "$deep"
expect_syntax "$AXE" cute size "$deep:$deep"
expect_syntax "$AXE" cute size "(4,é):(1,4)"
expect_syntax "$AXE" cute size "(4,8):(1,4)∘"
expect_syntax "$AXE" cute size ""
expect_syntax "$AXE" cute size " "
expect_syntax "$AXE" cute compose "(4,8):(1,4)" "<4:1, 8:2"
expect_syntax "$AXE" cute compose "Sw<3,4" "8:1"
expect_syntax "$AXE" cute slice "(4,8):(1,4)" "(_,"
expect_syntax "$AXE" cute upcast "8:1" 99999999999999999999
expect_syntax "$AXE" cute upcast "8:1" 2x
expect_syntax "$AXE" cute recast "8:1" "" 8
expect_syntax "$AXE" cute swizzle apply "Sw<3,4,3>" "1.5"
run "$AXE" cute size "$(printf '(4,\001\033[31m8):(1,4)')"
if [ $rc -eq 2 ] && one_clean_line; then ok; else bad "control bytes"; fi

# ---- --help everywhere --------------------------------------------------------

help_ok() {
    run "$@"
    if [ $rc -eq 0 ] && [ -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then
        ok
    else
        bad "--help: $* (got $rc)"
    fi
}
help_ok "$AXE" --help
help_ok "$AXE" -h
help_ok "$AXE" cute --help
help_ok "$AXE" batch --help
run "$AXE" cute --help
cmds=$(sed -n 's/^  \([a-z][a-z-]*\( apply\)\{0,1\}\)  .*/\1/p' "$tmp/out")
[ "$(echo "$cmds" | wc -l)" -ge 25 ] && ok || bad "axe cute --help lists the commands"
while IFS= read -r c; do
    # shellcheck disable=SC2086
    help_ok "$AXE" cute $c --help
    # shellcheck disable=SC2086
    help_ok "$AXE" cute $c "(4,8):(1,4)" -h
done <<<"$cmds"

# ---- axe batch through garbage --------------------------------------------------

req() { printf '{"id":%s,"op":"cute.size","args":{"a":"(4,3)"}}\n' "$1"; }
{
    req 1
    head -c 3000 /dev/urandom | tr -d '\n'
    echo
    req '"two"'
    printf '{"id":3,"op":"cute.size","args":{"a":"'
    head -c 1000000 /dev/zero | tr '\0' '('
    echo '"}}'
    printf '{"id":4,"junk":"'
    head -c 3000000 /dev/zero | tr '\0' 'x'
    echo '"}'
    printf '%*s' 100000 '' | tr ' ' '['
    echo
    printf '{"id":5,"a":'
    printf '%*s' 300 '' | tr ' ' '['
    printf '%*s' 300 '' | tr ' ' ']'
    echo '}'
    echo '{"id":[6,{"k":null}],"op":"cute.nosuch","args":{}}'
    echo '{"id":7}'
    echo '{"op":"cute.size","args":{"a":"(4,3)"}}'
    echo '{"id":8,"op":"cute.size","args":{"a":"(4,3)","q":1}}'
    echo '{"id":9,"op":"cute.size","args":{"a":"(4,8:(1,4)"}}'
    echo '[1,2,3]'
    echo ''
    printf '{"id":10,"op":"cute.size","args":{"a":"\\u0000"}}\r\n'
    printf '\xff\xfe{"id":11}\n'
    req null
    printf '{"id":12,"op":"cute.size","args":{"a":"(4,3)"}}'
} >"$tmp/batch.in"
requests=$(LC_ALL=C grep -a -c -v '^[[:space:]]*$' "$tmp/batch.in")
run "$AXE" batch <"$tmp/batch.in"
[ $rc -eq 0 ] && ok || bad "axe batch exit status $rc on garbage"
[ "$(nlines "$tmp/out")" = "$requests" ] && ok ||
    bad "axe batch gave $(nlines "$tmp/out") answers to $requests requests"
if command -v jq >/dev/null 2>&1; then
    jq -e . "$tmp/out" >/dev/null 2>&1 && ok || bad "batch answers are JSON"
    got=$(jq -c 'if has("id") then .id else "-" end' "$tmp/out" | tr '\n' ' ')
    want='1 "-" "two" 3 "-" "-" "-" [6,{"k":null}] 7 "-" 8 9 "-" 10 "-" null 12 '
    [ "$got" = "$want" ] && ok || bad "batch ids: $got"
    got=$(jq -r 'if .ok then "ok" else .error end' "$tmp/out" | tr '\n' ' ')
    want='ok SYNTAX ok CAPACITY SYNTAX SYNTAX SYNTAX UNKNOWN_OP INVALID ok INVALID SYNTAX SYNTAX SYNTAX SYNTAX ok ok '
    [ "$got" = "$want" ] && ok || bad "batch statuses: $got"
fi
head -n 1 "$tmp/out" | grep -qx '{"id":1,"ok":true,"result":12}' && ok ||
    bad "batch answer format: $(head -n 1 "$tmp/out")"

printf '%s\n' \
    '{"op":"cute.complement","args":{"a":"(4,8):(1,8)","extended":true}}' \
    '{"op":"cute.complement","args":{"a":"(4,8):(1,8)","extended":false}}' \
    '{"op":"cute.complement","args":{"a":"(4,8):(1,8)","extended":"yes"}}' \
    '{"op":"cute.composition","args":{"a":"4:1","b":"2","extended":true}}' |
    "$AXE" batch >"$tmp/out" 2>"$tmp/err"
want='{"ok":true,"result":"(2,1):(4,64)"}
{"ok":true,"result":"2:4"}
{"ok":false,"error":"INVALID","message":"args.extended must be true or false"}
{"ok":false,"error":"INVALID","message":"composition takes no argument \"extended\""}'
[ "$(cat "$tmp/out")" = "$want" ] && ok || bad "batch extended: $(cat "$tmp/out")"

printf '' | "$AXE" batch >"$tmp/out" 2>"$tmp/err"
[ $? -eq 0 ] && [ ! -s "$tmp/out" ] && ok || bad "batch on empty input"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
