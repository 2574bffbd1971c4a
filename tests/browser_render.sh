#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The interactive page of `axe render --format html` in a real browser:
# headless Chromium driven through chromedriver (tests/browser_render.py)
# loads the page of the Axe paper's tensor-core tile from a file:// URL,
# clicks cell (2,9) and types "2,9" into the coordinate box; both must show
# exactly the points `axe apply` gives for [2,9]. Then it types the 3-D
# coordinate 1,0,0 on the page of a rank-3 Trainium layout (the page must
# name [1,0,0] and show `axe apply`'s points) and the single index 5 on a
# CuTe page (CuTe's 1-D index: `axe cute eval` of 5), and index 1 on the
# page of a layout whose value there is 2^53 + 1 (shown exactly). The
# screenshot,
# taken with cell (2,9) clicked, is kept under the build directory
# (artifacts/render_browser.png) for CI. Skips (77) only where chromium,
# chromedriver or python3 is missing (scripts/test.sh installs chromium
# and chromium-driver on Debian); a browser that is installed but does not
# start fails the test.
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
trn="S[(2,8,8):(8@F,1@P,1@F)]"
huge="S[2:1] + 9007199254740992" # 2^53 + 1 is no JavaScript number
"$AXE" render "$trn" --shape "[2,8,8]" --format html -o "$tmp/trn.html" &&
    "$AXE" apply "$trn" --shape "[2,8,8]" "[1,0,0]" >"$tmp/trn.expect" &&
    "$AXE" render "(4,8):(1,4)" --format html -o "$tmp/cute.html" &&
    echo "{m: $("$AXE" cute eval "(4,8):(1,4)" 5)}" >"$tmp/cute.expect" &&
    "$AXE" render "$huge" --format html -o "$tmp/huge.html" &&
    "$AXE" apply "$huge" 1 >"$tmp/huge.expect" || exit 1
timeout 180 python3 "$src/tests/browser_render.py" "$(command -v chromedriver)" \
    "$(command -v chromium)" "$tmp/page.html" 41 "2,9" "$tmp/expect" \
    "$out/render_browser.png" "$tmp/trn.html" "1,0,0" "$tmp/trn.expect" \
    "$tmp/cute.html" "5" "$tmp/cute.expect" \
    "$tmp/huge.html" "1" "$tmp/huge.expect"
