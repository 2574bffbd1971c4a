#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The TikZ pictures of `axe render --format tex` compile and show what they
# say: pdflatex runs on the golden .tex files of tests/golden/render/ and on
# fresh pictures of every view (titles with _ < > and whitespace included),
# and for each: pdflatex exits 0 with no error and no font or character
# warning in its log; the PDF has one page, at least as large as the
# picture's cells; the text in the PDF (pdftotext, content order) is exactly
# the labels of the .tex's \node's, unescaped, so every label is typeset
# with its own glyphs; and the page rendered by pdftoppm has ink (lines and
# text) and fill (the colored cells). scripts/test.sh installs TeX Live and
# poppler-utils; where they are not installed this skips (77).
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
for tool in pdflatex pdfinfo pdftotext pdftoppm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool is not installed (scripts/test.sh installs it)"
        exit 77
    fi
done
src=${AXE_SOURCE_DIR:-$(dirname "$0")/..}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() {
    fail=$((fail + 1))
    echo "FAIL: $1: $2"
}

cp "$src"/tests/golden/render/*.tex "$tmp/"
draw() { # NAME ARGS...: a fresh picture tmp/NAME.tex
    local name=$1
    shift
    "$AXE" render "$@" --format tex -o "$tmp/$name.tex" ||
        bad "$name" "axe render $* exited $?"
}
draw tv "((4,8),(2,2)):((32,1),(16,8))" --as tv --shape "(8,16)"
draw physical "S[(2,4,2,8):(1@gpuid,8,2@gpuid,1)]" --shape "[8,16]" \
    --as physical
draw banks "Sw<3,0,3> o 0 o (8,8):(8,1)" --as banks --elem-bytes 16 \
    --access 8:1
draw axe_view "S[(2,8,8):(8@F,1@P,1@F)]" --shape "[2,8,8]" --as axe
draw underscore "$(printf 'S[(4,4):(1@my_axis,4@m)]\t+ R[2:1@x_y]\n+ 3@my_axis')" \
    --shape "[4,4]"

# The labels of the \node's of "$1", unescaped (\charN{} is the byte N),
# in order, whitespace removed: what the PDF's text must be.
labels() {
    sed -n 's/^\\node\(\[[^]]*\]\)\{0,1\} at (-\{0,1\}[0-9]*,-\{0,1\}[0-9]*) {\(.*\)};$/\2/p' "$1" |
        perl -pe 's/\\char(\d+)\{\}/chr($1)/ge' | tr -d ' \t\n'
}
# The largest x and y of the .tex's rectangles, in millimetres.
extent() {
    grep -o 'rectangle ([0-9-]*,[0-9-]*)' "$1" | tr -c '0-9-\n' ' ' |
        awk '{ if ($1 > x) x = $1; if ($2 > y) y = $2 } END { print x + 0, y + 0 }'
}
# The fraction (per mille) of pixels of PGM "$1" darker than "$2".
darker() {
    local w h
    read -r w h < <(sed -n '2p' "$1")
    tail -c $((w * h)) "$1" | od -An -v -tu1 |
        awk -v t="$2" -v n=$((w * h)) '{ for (i = 1; i <= NF; i++) if ($i < t) k++ }
            END { printf "%d\n", 1000 * k / n }'
}

for f in "$tmp"/*.tex; do
    name=$(basename "$f" .tex)
    [ -s "$f" ] || continue
    if ! (cd "$tmp" && timeout 120 pdflatex -interaction=nonstopmode \
        -halt-on-error "$name.tex" >/dev/null 2>&1) || [ ! -s "$tmp/$name.pdf" ]; then
        bad "$name" "pdflatex failed: $(grep -m1 -A2 '^!' "$tmp/$name.log" 2>/dev/null)"
        continue
    fi
    warn=$(grep -E '^!|Font Warning|Missing character|Overfull|Undefined' "$tmp/$name.log")
    [ -z "$warn" ] || bad "$name" "pdflatex log: $warn"
    info=$(pdfinfo "$tmp/$name.pdf")
    pages=$(sed -n 's/^Pages: *//p' <<<"$info")
    [ "$pages" = 1 ] || bad "$name" "$pages pages, want 1"
    read -r pw ph < <(sed -n 's/^Page size: *\([0-9.]*\) x \([0-9.]*\) pts.*/\1 \2/p' <<<"$info")
    read -r ex ey < <(extent "$f")
    # 1 mm = 72/25.4 pt; the page is the picture plus a 2 mm border.
    if ! awk -v w="$pw" -v h="$ph" -v x="$ex" -v y="$ey" \
        'BEGIN { k = 72 / 25.4; exit !(w >= x * k && h >= y * k && w < 14400 && h < 14400) }'; then
        bad "$name" "page ${pw}x${ph} pt, cells ${ex}x${ey} mm"
    fi
    want=$(labels "$f")
    got=$(pdftotext -raw "$tmp/$name.pdf" - | tr -d ' \t\n\f')
    [ -n "$want" ] && [ "$got" = "$want" ] ||
        bad "$name" "the PDF's text is not the labels:
  pdf:    ${got:0:300}
  labels: ${want:0:300}"
    pdftoppm -gray -r 30 -singlefile "$tmp/$name.pdf" "$tmp/$name" 2>/dev/null
    if [ ! -s "$tmp/$name.pgm" ]; then
        bad "$name" "pdftoppm made no picture"
        continue
    fi
    ink=$(darker "$tmp/$name.pgm" 100)
    fill=$(darker "$tmp/$name.pgm" 250)
    [ "$ink" -ge 5 ] && [ "$fill" -ge 50 ] ||
        bad "$name" "the page is nearly blank (ink ${ink}, fill ${fill} per mille)"
    pass=$((pass + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -ge 7 ]
