#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The interactive page of `axe render --format html` in a real browser:
# headless Chromium driven through chromedriver (tests/browser_render.py)
# loads the page of the Axe paper's tensor-core tile from a file:// URL,
# clicks cell (2,9) and types "2,9" into the coordinate box; both must show
# exactly the points `axe apply` gives for [2,9]. The screenshot is kept
# under the build directory (artifacts/render_browser.png) for CI. Skips
# (77) where chromium, chromedriver or python3 is missing; scripts/test.sh
# installs them (chromium, chromium-driver) on Debian.
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
src=${AXE_SOURCE_DIR:-$(dirname "$0")/..}
for tool in chromium chromedriver python3; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "skipped: $tool is not installed (scripts/test.sh installs it)"
        exit 77
    fi
done

out=$PWD/artifacts
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fig2="S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
"$AXE" render "$fig2" --shape "[8,16]" --format html -o "$tmp/page.html" || {
    echo "FAIL: axe render --format html"
    echo "0 passed, 1 failed"
    exit 1
}
cp "$tmp/page.html" "$out/render_browser.html"
"$AXE" apply "$fig2" --shape "[8,16]" "[2,9]" >"$tmp/expect" || exit 1
timeout 180 python3 "$src/tests/browser_render.py" "$(command -v chromedriver)" \
    "$(command -v chromium)" "$tmp/page.html" 41 "2,9" "$tmp/expect" \
    "$out/render_browser.png"
