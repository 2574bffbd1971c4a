# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
#
# The start the kernel test scripts share (tests/compiler_*.sh source it,
# `set -u` on): AXE, the axe binary $AXE_BIN as an absolute path (else
# "skipped", exit 77), and SRC, the source tree ($AXE_SOURCE_DIR, else the
# folder above this one). Then, as a script needs them:
#   kernel_need_compiler VAR DEFAULT WHAT: $VAR (else DEFAULT; its first
#     word a command) is exported, or the script is skipped (exit 77,
#     "skipped: no WHAT").
#   kernel_counts: tmp (a folder removed on exit), pass and fail (0), ok
#     (one more passed) and bad MESSAGE (one more failed, "FAIL: MESSAGE").

AXE=${AXE_BIN:-}
# shellcheck disable=SC2034 # (the sourcing script's)
SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
AXE=$(cd "$(dirname "$AXE")" && pwd)/$(basename "$AXE")

kernel_need_compiler() {
    local cmd=${!1:-$2}
    if ! command -v "${cmd%% *}" >/dev/null 2>&1; then
        echo "skipped: no $3 ($cmd)"
        exit 77
    fi
    printf -v "$1" '%s' "$cmd"
    export "${1?}"
}

kernel_counts() {
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    pass=0
    fail=0
}
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
