#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Tests of `axe render` ($AXE_BIN): every golden picture of
# tests/golden/render/cases.txt byte for byte (regenerate with
# scripts/render_golden.sh), the README picture, --help with an example of
# each view, and one-line refusals: exit 1 for a picture too large (with
# the suggestion to slice) or an unknown color axis, exit 2 for usage and
# syntax errors. The last line is "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
src=${AXE_SOURCE_DIR:-$(dirname "$0")/..}
dir=$src/tests/golden/render
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

while IFS=$'\t' read -r -a f; do
    case ${f[0]:-#} in '#'*) continue ;; esac
    if "$AXE" render "${f[@]:1}" -o "$tmp/${f[0]}" 2>"$tmp/err" &&
        cmp -s "$tmp/${f[0]}" "$dir/${f[0]}"; then
        ok
    else
        bad "golden ${f[0]} differs ($(head -c 200 "$tmp/err"))"
    fi
done <"$dir/cases.txt"

fig2="S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
if "$AXE" render "$fig2" --shape "[8,16]" --color-by warp --format svg |
    cmp -s - "$src/docs/tensor_core_tile.svg"; then ok; else bad "README picture"; fi

# The (2,9) cell of Figure 2 is warp 6 and warp 10, lane 8, register 1.
if "$AXE" render "$fig2" --shape "[8,16]" --color=never |
    grep -q '^2  |.* w6 l8 r1 / w10 l8 r1 |'; then ok; else bad "cell (2,9)"; fi

# expect CODE PATTERN CMD...: exit CODE and one stderr line matching PATTERN.
expect() {
    local code=$1 pat=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ $rc -eq "$code" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -q -- "$pat" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok
    else
        bad "expected $code /$pat/ from: $* (got $rc: $(head -c 300 "$tmp/err"))"
    fi
}
expect 1 "slice the layout first" "$AXE" render "(512,512):(1,512)"
# Every refusal names its limit and what to do instead.
big="S[(256,256):(256,1)] + R[4:1@gpu]"
expect 1 "more than the 262144 points a picture shows; slice the layout first (axe slice) or pick a smaller --shape" \
    "$AXE" render "S[(256,256):(256,1)] + R[5:1@gpu]" --shape "[256,256]"
expect 1 "65536 x 4 cells, more than the 65536 a picture shows; slice the layout first (axe slice) or draw the logical view (--as grid" \
    "$AXE" render "$big" --shape "[256,256]" --as physical
expect 1 "at most 8 axes per cell .*('i' is one too many); slice the layout to fewer axes first (axe slice)" \
    "$AXE" render "S[(2,2,2,2,2,2,2,2,2):(1@a,1@b,1@c,1@d,1@e,1@f,1@g,1@h,1@i)]"
# More than 64 points in a cell (65 replicas) draw; the HTML page of a
# layout whose physical view is too large keeps the grid and says why.
if "$AXE" render "S[(2,2):(2,1)] + R[65:1@gpu]" --shape "[2,2]" \
    --color=never 2>"$tmp/err" | grep -q "m3 g64 |"; then ok; else bad "65 replicas: $(head -c 200 "$tmp/err")"; fi
if "$AXE" render "$big" --shape "[256,256]" --format html 2>"$tmp/err" |
    grep -q '<p id="note">The physical view is left out: the physical view would have 65536 x 4 cells'; then ok; else bad "html without its physical view: $(head -c 200 "$tmp/err")"; fi
expect 1 "cannot color by 'gpu'" "$AXE" render "$fig2" --shape "[8,16]" \
    --color-by gpu
# lane and laneid are one axis: either spelling colors by it.
for pair in "lane laneid" "laneid lane" "warp warpid"; do
    set -- $pair
    if "$AXE" render "S[(2,4):(1@$1,1@warp)]" --color-by "$2" --color=always \
        2>"$tmp/err" | grep -q "colors: $1 "; then ok; else bad "color by $2 of a layout on $1: $(head -c 200 "$tmp/err")"; fi
done
expect 1 "outside the 8 x 8 tile" "$AXE" render \
    "((4,8),(2,2)):((32,1),(16,8))" --as tv --shape "(8,8)"
expect 1 "axes are T, V" "$AXE" render "((4,8),(2,2)):((32,1),(16,8))" \
    --as tv --shape "(8,16)" --color-by lane
expect 1 "memory axis m alone" "$AXE" render "S[(4,8):(8@laneid,1)]" --as banks
for r in 2 4; do
    expect 1 "has replicas (try --as physical)" "$AXE" render \
        "S[(4,8):(8,1)] + R[$r:1@warpid]" --shape "[4,8]" --as banks
done
expect 1 "elements of 1, 2, 4, 8 or 16 bytes, not 32" "$AXE" render "32:1" \
    --as banks --elem-bytes 32
expect 1 "layout has 128" "$AXE" render "$fig2" --shape "[8,8]"
expect 2 "syntax error" "$AXE" render "S[(8,2):(1,"
expect 2 "no LAYOUT" "$AXE" render
expect 2 "unknown view" "$AXE" render "8:1" --as pie
expect 2 "unknown format" "$AXE" render "8:1" --format pdf
expect 2 "--as tv draws a CuTe layout" "$AXE" render "$fig2" --as tv
expect 2 "must be a layout" "$AXE" render "(4,8)"
"$AXE" render "8:1" -o "$tmp/none/x.txt" 2>"$tmp/err"
if [ $? -eq 1 ] && grep -q "cannot open" "$tmp/err"; then ok; else bad "-o into a missing folder"; fi

"$AXE" render --help >"$tmp/out"
for view in "--as tv" "--as axe" "--as physical" "--as banks" \
    "--elem-bytes 16" "--format tex" "--format svg" "--format html"; do
    if grep -q -- "$view" "$tmp/out"; then ok; else bad "help lacks $view"; fi
done
# Help after the operands is help too.
for h in --help -h; do
    if "$AXE" render "8:1" --shape "[8]" $h >"$tmp/out2" 2>"$tmp/err" &&
        cmp -s "$tmp/out" "$tmp/out2" && [ ! -s "$tmp/err" ]; then ok; else bad "render 8:1 $h"; fi
done

# ANSI colors only when asked (or on a terminal).
if "$AXE" render "8:1" --color=always | grep -q $'\033\\[30;48;5;'; then ok; else bad "--color=always"; fi
if "$AXE" render "8:1" | grep -q $'\033'; then bad "colors in a pipe"; else ok; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
