#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Property test of dispatch (tests/compiler_props.py): random register
# layouts, with and without replicas, in small warp- and cta-scope
# kernels; every schedule that dispatch accepts for an operator, forced
# with --schedule, must pass `axe run --check`. AXE_TEST_SEED=N replays a
# seed, AXE_PROPS_COUNT sets the number of kernels (default 40). Skipped
# (77) without python3 or a C compiler. The last line is "N passed, N
# failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_python3
kernel_need_compiler CC cc "C compiler"
exec python3 "$SRC/tests/compiler_props.py" "$AXE" "${AXE_PROPS_COUNT:-40}"
