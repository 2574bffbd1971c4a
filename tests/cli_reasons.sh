#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Every refusal carries a reason (issue 12 §3): hostile inputs to the axe
# command line ($AXE_BIN) and to `axe batch` must exit 1 (no answer) or 2
# (usage, syntax) with exactly one stderr line and nothing on stdout, and
# that line must say more than the status's generic text (the messages of
# include/axe/status.h: "integer overflow", "invalid argument", ...).
# First the defects found by adversarial testing, each with the words its
# reason must hold, then a sweep of refusing inputs (overflowing shapes,
# empty layouts, swizzled axes, zero extents) over many commands, whose
# reasons must only be specific. The last line is "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
src=${AXE_SOURCE_DIR:-$(dirname "$0")/..}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# The generic messages, one a line, from the X-macro list of statuses.
sed -n 's/^ *X([A-Z_]*, *-[0-9]*, *"\([^"]*\)").*/\1/p' \
    "$src/include/axe/status.h" >"$tmp/generic"
[ "$(wc -l <"$tmp/generic")" -ge 13 ] && ok || bad "status.h has no X list"

# "reason" is generic: empty or a status message once the "axe: CMD: ",
# "no picture: " and " (STATUS)" framing is taken off.
generic() {
    local r=$1
    r=${r% (*)}
    r=${r#axe: }
    r=$(printf '%s' "$r" | sed -E 's/^((cute|map) )?[a-z0-9_-]+: //;
        s/^no picture: //; s/^[a-z0-9_]+ refuses these operands: //')
    [ -z "$r" ] || grep -qxF -- "$r" "$tmp/generic"
}

# refuse CODE PATTERN ARGS...: exit CODE, one specific stderr line matching
# PATTERN (empty: any), nothing on stdout.
refuse() {
    local code=$1 pat=$2
    shift 2
    "$AXE" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? line
    line=$(head -n 1 "$tmp/err")
    if [ $rc -eq "$code" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        [ ! -s "$tmp/out" ] && ! generic "$line" &&
        { [ -z "$pat" ] || grep -q -- "$pat" "$tmp/err"; }; then
        ok
    else
        bad "expected $code /$pat/ with a reason from: $* (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}

H=4611686018427387904
twos16="[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2]"

# ---- the defects ----------------------------------------------------------
# render_view.c's fold_axes wrote past its 8 header names for shapes of more
# than 9 dims; now refused in every format.
for f in text svg tex html; do
    refuse 1 "16 dims.*at most 8" render "(1,65536):(0,1)" --shape "$twos16" --format "$f"
    refuse 1 "10 dims" render "S[1024:1]" --shape "[2,2,2,2,2,2,2,2,2,2]" --format "$f"
done
"$AXE" render "S[512:1]" --shape "[2,2,2,2,2,2,2,2,2]" >"$tmp/out" 2>&1 &&
    grep -q "rows: dims 0,1,2,3,4,5,6,7, columns: dim 8" "$tmp/out" &&
    ok || bad "9 dims still draw"
refuse 1 "no modes" render "():()" --as tv --shape "(1,1)"
refuse 1 "layout's size.*overflows int64" render "S[(4,7777777777777777774,2):(1,0,1)]"
refuse 1 "shape overflows int64 at dim 1" render "S[8:1]" --shape "[$H,4,1]"
refuse 1 "(T0, V1).*outside" render "(2,2):(1,$H)" --as tv --shape "(2,2)"
refuse 1 "swizzled" size --axis m "Swizzle<3,3,3>(S[512:1])"
refuse 1 "swizzled" span --axis m "Swizzle<3,3,3>(S[512:1])"
refuse 1 "not an axis name" size --axis "bad-axis" "S[512:1]"
refuse 1 "span of the layout overflows int64" span "S[($H,4):(4,1)]"
refuse 1 "extent 0 (leaf 1) of the target shape" cute tile-to-shape "(64,8):(1,4)" "(128,0)"
refuse 1 "extent -8" cute tile-to-shape "(4,8):(1,4)" "(128,-8)"
refuse 1 "size of \"a\" (a layout) overflows int64" cute compose "($H,4):(1,$H)" "8:1"
refuse 1 "size of \"b\" (a tuple) overflows int64" cute complement "8:1" "($H,$H)"
refuse 1 "cosize of \"a\"" cute cosize "(4,8):($H,1)"
refuse 1 "past int64" cute eval "(1,1):(9223372036854775807,9223372036854775807)" 9223372036854775807
refuse 1 "profile \"b\" does not fit" cute coalesce "8:1" "(128,0)"
refuse 1 "size of L.*overflows int64" apply "S[(4,$H):(1,1)]"
refuse 1 "size (the product of the shard extents) of \"a\"" intersect "S[($H,$H):(1,1)]" "S[8:1]"

# ---- the sweep: any refusal here must be specific -------------------------
cute_layouts=("():()" "8:1" "(2,2):(1,1)" "($H,4):(1,$H)" "($H,$H):(1,1)"
    "(9223372036854775807,2):(1,1)" "(4,8):($H,1)" "8:-1" "(2,3):(1@0,1@1)"
    "Swizzle<3,3,3> o 0 o (8,8):(8,1)" "(4,8)")
operands=("(128,0)" "0" "-1" "$H" "($H,$H)" "():()" "_" "(2,2):(1,1)")
for op in compose logical-divide zipped-divide logical-product blocked-product \
    raked-product tile-to-shape complement coalesce right-inverse \
    left-inverse nullspace size cosize filter max-common-layout \
    max-common-vector eval slice; do
    for a in "${cute_layouts[@]}"; do
        for b in "" "${operands[@]}"; do
            "$AXE" cute "$op" "$a" ${b:+"$b"} >"$tmp/out" 2>"$tmp/err"
            rc=$?
            [ $rc -eq 0 ] && continue
            if [ $rc -le 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
                ! generic "$(cat "$tmp/err")"; then
                ok
            else
                bad "cute $op $a $b: $rc $(head -c 200 "$tmp/err")"
            fi
        done
    done
done
axe_layouts=("S[8:1]" "S[(4,$H):(1,1)]" "S[($H,$H):(1,1)]"
    "Swizzle<3,3,3>(S[512:1])" "S[(4,7777777777777777774,2):(1,0,1)]"
    "S[8:1] + $H" "S[8:-1]" "S[(8,4):(4@laneid,1@m)] + R[$H:1@warp]")
for l in "${axe_layouts[@]}"; do
    for cmd in "canon" "size" "span" "size --axis m" "span --axis m" "check" \
        "convert" "apply" "render" "render --as physical" \
        "render --shape [0]" "render --shape [$H,$H]" "intersect S[8:1]" \
        "group [$H,$H]" "slice [8] [0:1]" "tile [8] S[4:1] [4]"; do
        read -r -a w <<<"$cmd"
        "$AXE" "${w[0]}" "$l" "${w[@]:1}" >"$tmp/out" 2>"$tmp/err"
        rc=$?
        [ $rc -eq 0 ] && continue
        if [ $rc -le 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
            ! generic "$(cat "$tmp/err")"; then
            ok
        else
            bad "$cmd $l: $rc $(head -c 200 "$tmp/err")"
        fi
    done
done

# ---- batch -----------------------------------------------------------------
# -2^63 was the wildcard `_` inside: {"b": -2^63} sliced nothing off.
{
    echo '{"id":1,"op":"cute.slice","args":{"a":"8:1","b":-9223372036854775808}}'
    echo '{"id":2,"op":"cute.slice","args":{"a":"8:1","b":"_"}}'
    echo '{"id":3,"op":"axe.size","args":{"layout":"Swizzle<3,3,3>(S[512:1])","axis":"m"}}'
    echo '{"id":4,"op":"axe.span","args":{"layout":"Swizzle<3,3,3>(S[512:1])","axis":"m"}}'
    echo '{"id":5,"op":"cute.tile_to_shape","args":{"a":"(64,8):(1,4)","b":"(128,0)"}}'
    echo "{\"id\":6,\"op\":\"cute.composition\",\"args\":{\"a\":\"($H,4):(1,$H)\",\"b\":\"8:1\"}}"
    echo "{\"id\":7,\"op\":\"axe.size\",\"args\":{\"layout\":\"S[($H,$H):(1,1)]\"}}"
} | "$AXE" batch >"$tmp/out" 2>"$tmp/err"
want=(
    '"id":1,"ok":false,"error":"OVERFLOW","message":"args.b: -9223372036854775808 is out of range'
    '"id":2,"ok":true,"result":"8:1"'
    '"id":3,"ok":false,"error":"INVALID","message":"the size on axis .m. of a swizzled layout'
    '"id":4,"ok":false,"error":"INVALID","message":"the span on axis .m. of a swizzled layout'
    '"id":5,"ok":false,"error":"DOMAIN","message":"extent 0 (leaf 1) of the target shape'
    '"id":6,"ok":false,"error":"OVERFLOW","message":"the size of \\"a\\" (a layout) overflows int64'
    '"id":7,"ok":false,"error":"OVERFLOW","message":"the size of the layout overflows int64'
)
for k in "${!want[@]}"; do
    if sed -n "$((k + 1))p" "$tmp/out" | grep -q -- "${want[$k]}"; then
        ok
    else
        bad "batch line $((k + 1)): want /${want[$k]}/, got $(sed -n "$((k + 1))p" "$tmp/out")"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
