#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The TikZ pictures of `axe render --format tex` compile: pdflatex runs on
# the golden .tex files of tests/golden/render/ and on a fresh TV picture,
# and each must produce a PDF. Skips (77) where pdflatex is not installed
# (CI does not install TeX Live: it is too big).
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
if ! command -v pdflatex >/dev/null 2>&1; then
    echo "skipped: pdflatex is not installed"
    exit 77
fi
src=${AXE_SOURCE_DIR:-$(dirname "$0")/..}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
cp "$src"/tests/golden/render/*.tex "$tmp/"
"$AXE" render "((4,8),(2,2)):((32,1),(16,8))" --as tv --shape "(8,16)" \
    --format tex -o "$tmp/tv.tex"
for f in "$tmp"/*.tex; do
    if (cd "$tmp" && timeout 120 pdflatex -interaction=nonstopmode -halt-on-error \
        "$f" >/dev/null 2>&1) && [ -s "${f%.tex}.pdf" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: pdflatex $(basename "$f")"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
