#!/usr/bin/env bash
# Rewrite the golden pictures of tests/golden/render/ (listed in cases.txt)
# with the axe binary "$1" (default build/dev/axe), and the README picture
# docs/tensor_core_tile.svg. Look at the diff (and the pictures) before
# committing: the goldens are what tests/cli_render.sh compares against.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
axe=${1:-build/dev/axe}
dir=tests/golden/render
while IFS=$'\t' read -r -a f; do
    case ${f[0]:-#} in '#'*) continue ;; esac
    "$axe" render "${f[@]:1}" -o "$dir/${f[0]}"
    echo "wrote $dir/${f[0]}"
done <"$dir/cases.txt"
"$axe" render "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp" \
    --shape "[8,16]" --color-by warp --format svg -o docs/tensor_core_tile.svg
echo "wrote docs/tensor_core_tile.svg"
