#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records `axe synth --json` of every kernel with a `layout auto` tensor in
# tests/kernels and examples/kernels, on the c and cuda targets, one file
# per kernel and target (NAME.TARGET.json, the exit status appended), so
# that a change to synthesis can be diffed against the outputs before it:
#   AXE_BIN=/old/axe bash scripts/synth_snapshot.sh /tmp/before
#   AXE_BIN=build/dev/axe bash scripts/synth_snapshot.sh /tmp/after
#   diff -r /tmp/before /tmp/after
set -u
out=${1:?usage: synth_snapshot.sh OUTDIR}
axe=${AXE_BIN:-build/dev/axe}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
n=0
for f in "$root"/tests/kernels/*.axe "$root"/examples/kernels/*.axe; do
    grep -q 'layout auto' "$f" || continue
    base=$(basename "$(dirname "$(dirname "$f")")")_$(basename "$f" .axe)
    for target in c cuda; do
        "$axe" synth "$f" --json --target "$target" >"$out/$base.$target.json" 2>&1
        echo "exit $?" >>"$out/$base.$target.json"
        n=$((n + 1))
    done
done
echo "$n outputs in $out"
