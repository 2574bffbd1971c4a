#!/usr/bin/env bash
# The demo (README "Run the demo"): installs missing tools on Debian 12,
# builds the release preset, and runs examples/demo.sh (the tour of the
# whole system: a layout, its picture, its notations, a mesh, a kernel
# compiled and run) with AXE set to the CLI just built. `axe run` builds the
# kernel's C with cc.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/ensure_tools.sh
. scripts/ensure_tools.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT

axe_ensure_tools cmake ninja gcc cc python3 jq
cmake --preset release >"$log" 2>&1 || {
    cat "$log"
    echo "demo.sh: FAILED at: cmake --preset release" >&2
    exit 1
}
cmake --build --preset release >"$log" 2>&1 || {
    cat "$log"
    echo "demo.sh: FAILED at: cmake --build --preset release" >&2
    exit 1
}

export AXE=$PWD/build/release/axe
exec bash examples/demo.sh
