#!/usr/bin/env bash
# The layer rule (CONVENTIONS.md §1): a file in src/<layer>/ includes system
# headers, public headers ("axe/x.h") and the headers of its own or a lower
# layer only; public headers in include/axe/ never include an internal one.
#   core(0) < tuple(1) < cute(2) < layout(3) < mapping(4) < notation(5)
#   < render(6) = synth(6) < compiler(7)
# Prints each violation as FILE:LINE: reason; exits 1 if there is any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

rank() {
    case $1 in
    core) echo 0 ;;
    tuple) echo 1 ;;
    cute) echo 2 ;;
    layout) echo 3 ;;
    mapping) echo 4 ;;
    notation) echo 5 ;;
    render | synth) echo 6 ;;
    compiler) echo 7 ;;
    *) echo -1 ;;
    esac
}

files=0
violations=0

violation() {
    echo "$1"
    violations=$((violations + 1))
}

# The quoted includes of file "$1", one "LINE:HEADER" per line.
quoted_includes() {
    awk '/^[ \t]*#[ \t]*include[ \t]*"/ {
        h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h); print FNR ":" h
    }' "$1"
}

# The layer that owns header "$2" included from layer "$1": the folder under
# src/ where it lives (its own folder first), else the folder named in the
# include, else <layer> of a <layer>_internal.h name; empty if none.
owner_of() {
    local from=$1 hdr=$2 base found
    base=${hdr##*/}
    if [ "$hdr" = "$base" ] && [ -f "src/$from/$base" ]; then
        echo "$from"
        return
    fi
    if [ "$hdr" != "$base" ]; then
        found=${hdr%/*}
        echo "${found##*/}"
        return
    fi
    for found in src/*/"$base"; do
        if [ -f "$found" ]; then
            found=${found#src/}
            echo "${found%%/*}"
            return
        fi
    done
    if [[ $base =~ ^([a-z]+)_internal\.h$ ]]; then
        echo "${BASH_REMATCH[1]}"
    fi
}

check_layer_file() {
    local f=$1 layer r line hdr owner o
    layer=${f#src/}
    layer=${layer%%/*}
    r=$(rank "$layer")
    if [ "$r" -lt 0 ]; then
        violation "$f: unknown layer '$layer' (add it to scripts/check_layers.sh and CONVENTIONS.md)"
        return
    fi
    while IFS=: read -r line hdr; do
        case $hdr in axe/*) continue ;; esac
        owner=$(owner_of "$layer" "$hdr")
        if [ -z "$owner" ]; then
            violation "$f:$line: \"$hdr\" is no header of any layer"
            continue
        fi
        o=$(rank "$owner")
        if [ "$o" -lt 0 ]; then
            violation "$f:$line: \"$hdr\" belongs to unknown layer '$owner'"
        elif [ "$o" -gt "$r" ]; then
            violation "$f:$line: $layer (rank $r) includes \"$hdr\" of the higher layer $owner (rank $o)"
        fi
    done < <(quoted_includes "$f")
}

check_public_header() {
    local f=$1 line hdr
    while IFS=: read -r line hdr; do
        case $hdr in
        *_internal.h) violation "$f:$line: public header includes internal \"$hdr\"" ;;
        esac
    done < <(quoted_includes "$f")
}

shopt -s nullglob
for f in src/*/*.c src/*/*.h; do
    files=$((files + 1))
    check_layer_file "$f"
done
for f in include/axe/*.h; do
    files=$((files + 1))
    check_public_header "$f"
done

if [ "$violations" -ne 0 ]; then
    echo "layer check: $violations violation(s) in $files files"
    exit 1
fi
echo "layer check: $files files ok"
