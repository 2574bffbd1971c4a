#!/usr/bin/env bash
# Every *.c and *.h of the project must be formatted as .clang-format says
# (clang-format 14). Prints the offending places and exits 1 if any file is
# not; `clang-format -i FILE...` fixes them. CLANG_FORMAT names another binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

cf=${CLANG_FORMAT:-clang-format}
if ! command -v "$cf" >/dev/null 2>&1; then
    echo "format check: $cf not found" >&2
    exit 1
fi

dirs=()
for d in include src tools tests fuzz bench examples; do
    [ -d "$d" ] && dirs+=("$d")
done
files=()
if [ ${#dirs[@]} -gt 0 ]; then
    mapfile -d '' files < <(find "${dirs[@]}" -path fuzz/corpus -prune -o \
        -type f \( -name '*.c' -o -name '*.h' \) -print0 | sort -z)
fi
if [ ${#files[@]} -eq 0 ]; then
    echo "format check: no files"
    exit 0
fi

if ! "$cf" --dry-run --Werror "${files[@]}"; then
    bad=()
    for f in "${files[@]}"; do
        "$cf" --dry-run --Werror "$f" 2>/dev/null || bad+=("$f")
    done
    echo "format check: ${#bad[@]} of ${#files[@]} files differ; fix with:" >&2
    echo "  $cf -i ${bad[*]}" >&2
    exit 1
fi
echo "format check: ${#files[@]} files ok"
