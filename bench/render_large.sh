#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# How long `axe render` takes for large pictures: a 128x256 TV layout
# (32768 cells) as SVG, text and HTML. Usage: bash bench/render_large.sh
# [AXE] (default build/release/axe, else build/dev/axe). A measurement, not
# a test: nothing fails when it is slow.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
axe=${1:-build/release/axe}
[ -x "$axe" ] || axe=build/dev/axe
tv="((4,32),(2,128)):((64,1),(32,256))"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for fmt in svg text html; do
    start=$(date +%s%N)
    "$axe" render "$tv" --as tv --shape "(128,256)" --format "$fmt" -o "$out"
    end=$(date +%s%N)
    printf '128x256 TV layout, %-4s  %6.1f ms  %8d bytes\n' "$fmt" \
        "$(((end - start) / 100000))e-1" "$(wc -c <"$out")"
done
