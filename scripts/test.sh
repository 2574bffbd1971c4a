#!/usr/bin/env bash
# The test command (README "Run the tests"; .ci/run runs exactly this):
# installs missing tools on Debian 12, then builds and runs every ctest test
# in the dev preset (gcc, Debug, -Werror) and the asan preset
# (address+undefined), then checks the layer rule and the formatting.
# Stops at the first failure and says which step failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/ensure_tools.sh
. scripts/ensure_tools.sh

start=$SECONDS
summary=()
log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() { printf '\n=== %s\n' "$*"; }
fail() {
    printf '\ntest.sh: FAILED at: %s\n' "$*" >&2
    exit 1
}

step "tools"
axe_ensure_tools cmake ninja gcc clang clang-format pkg-config python3 jq ||
    fail "installing the tools"
# Python.h (python3-dev, which provides python3-config) lets the Python
# package build its extension axe._fast, and python3-venv the test venv;
# without them scripts/test_python.sh tests the ctypes backend or skips.
axe_ensure_tools python3-config ||
    echo "test.sh: no python3-dev here; the Python tests use the ctypes backend"
# The browser test of `axe render --format html` (tests/browser_render.sh)
# skips without these; a machine that cannot install them still passes.
axe_ensure_tools chromium chromedriver ||
    echo "test.sh: no chromium here; the browser test will be skipped"
# The TikZ test (tests/tex_render.sh) compiles `axe render --format tex`
# pictures with pdflatex and reads them back with poppler-utils; it skips
# without them.
axe_ensure_tools pdflatex pdfinfo pdftotext pdftoppm ||
    echo "test.sh: no TeX Live here; the TikZ test will be skipped"

for preset in dev asan; do
    step "$preset: configure"
    cmake --preset "$preset" >"$log" 2>&1 || {
        cat "$log"
        fail "cmake --preset $preset"
    }
    step "$preset: build"
    cmake --build --preset "$preset" || fail "cmake --build --preset $preset"
    step "$preset: ctest"
    ctest --preset "$preset" --output-on-failure -j2 | tee "$log" ||
        fail "ctest --preset $preset (see the output above)"
    summary+=("$preset: $(grep -Eo '[0-9]+% tests passed.*' "$log"), $(grep -c '(Skipped)$' "$log" || true) skipped")
done

step "python"
set +e
bash scripts/test_python.sh | tee "$log"
rc=${PIPESTATUS[0]}
set -e
[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || fail "scripts/test_python.sh"
summary+=("python: $(grep -Eo '[0-9]+ passed.*|skipped' "$log" | paste -sd ';' -)")

step "layers"
bash scripts/check_layers.sh | tee "$log" || fail "scripts/check_layers.sh"
summary+=("$(tail -n 1 "$log")")

step "format"
bash scripts/check_format.sh | tee "$log" || fail "scripts/check_format.sh"
summary+=("$(tail -n 1 "$log")")

printf '\n'
printf '  %s\n' "${summary[@]}"
echo "test.sh: all passed in $((SECONDS - start)) s"
