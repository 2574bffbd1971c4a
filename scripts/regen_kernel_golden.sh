#!/usr/bin/env bash
# Regenerate the golden C of every example kernel (tests/golden/kernels/),
# which tests/compiler_kernels.sh diffs against `axe compile`:
#   bash scripts/regen_kernel_golden.sh [AXE_BINARY]
# (default build/dev/axe). Review the diff before committing it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
axe=$(realpath "${1:-build/dev/axe}")
mkdir -p tests/golden/kernels
for f in examples/kernels/*.axe; do
    name=$(basename "$f" .axe)
    (cd examples/kernels && "$axe" compile "$name.axe" --target c) \
        >"tests/golden/kernels/$name.c.golden"
    echo "tests/golden/kernels/$name.c.golden"
done
