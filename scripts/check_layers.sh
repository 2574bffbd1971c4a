#!/usr/bin/env bash
# The layer rule (CONVENTIONS.md §1): a file in src/<layer>/ includes system
# headers, public headers ("axe/x.h") and the headers of its own or a lower
# layer only; public headers in include/axe/ never include an internal one.
#   core(0) < tuple(1) < cute(2) < layout(3) < mapping(4) < notation(5)
#   < render(6) = synth(6) < compiler(7)
# A layer may have folders below it (src/compiler/backend/c/): their files
# belong to the layer. A backend folder (src/<layer>/backend/<target>/)
# includes only down: its own headers, its layer's headers outside backend/
# and lower layers; never another backend's, and nothing outside a backend
# includes a backend's header (the core stays backend-neutral).
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

# The folder under src/ that owns header "$2" included from file "$1":
# the including file's own folder if the header is there, else the folder
# where a header of that name lives (layer folders first, then nested
# ones), else the folder named in the include, else <layer> of a
# <layer>_internal.h name; empty if none.
owner_of() {
    local file=$1 hdr=$2 base dir found
    base=${hdr##*/}
    dir=${file%/*}
    if [ "$hdr" = "$base" ] && [ -f "$dir/$base" ]; then
        echo "${dir#src/}"
        return
    fi
    if [ "$hdr" != "$base" ]; then
        found=${hdr%/*}
        if [ -f "src/$found/$base" ]; then
            echo "$found"
        else
            echo "${found##*/}"
        fi
        return
    fi
    for found in src/*/"$base"; do
        if [ -f "$found" ]; then
            found=${found#src/}
            echo "${found%/*}"
            return
        fi
    done
    found=$(find src -mindepth 3 -type f -name "$base" -print -quit)
    if [ -n "$found" ]; then
        found=${found#src/}
        echo "${found%/*}"
        return
    fi
    if [[ $base =~ ^([a-z]+)_internal\.h$ ]]; then
        echo "${BASH_REMATCH[1]}"
    fi
}

# The backend folder ("<layer>/backend/<target>") that folder "$1" (relative
# to src/) lies in; empty if none.
backend_of() {
    if [[ $1 =~ ^([a-z_]+/backend/[a-z0-9_]+)(/|$) ]]; then
        echo "${BASH_REMATCH[1]}"
    fi
}

# Which backend may include a header of folder "$3": file "$1" (in backend
# "$2", empty if none) on line "$4"; reports a violation if not.
check_backend_include() {
    local f=$1 from=$2 owner=$3 line=$4 hdr=$5 to
    to=$(backend_of "$owner")
    if [ -z "$to" ] || [ "$to" = "$from" ]; then
        return
    fi
    if [ -n "$from" ]; then
        violation "$f:$line: backend $from includes \"$hdr\" of backend $to (backends never include each other)"
    else
        violation "$f:$line: \"$hdr\" belongs to backend $to (only its own backend includes it; backends depend on the core, never the reverse)"
    fi
}

check_layer_file() {
    local f=$1 layer r line hdr owner o from
    layer=${f#src/}
    layer=${layer%%/*}
    r=$(rank "$layer")
    if [ "$r" -lt 0 ]; then
        violation "$f: unknown layer '$layer' (add it to scripts/check_layers.sh and CONVENTIONS.md)"
        return
    fi
    from=${f#src/}
    from=$(backend_of "${from%/*}")
    while IFS=: read -r line hdr; do
        case $hdr in axe/*) continue ;; esac
        owner=$(owner_of "$f" "$hdr")
        if [ -z "$owner" ]; then
            violation "$f:$line: \"$hdr\" is no header of any layer"
            continue
        fi
        o=$(rank "${owner%%/*}")
        if [ "$o" -lt 0 ]; then
            violation "$f:$line: \"$hdr\" belongs to unknown layer '${owner%%/*}'"
        elif [ "$o" -gt "$r" ]; then
            violation "$f:$line: $layer (rank $r) includes \"$hdr\" of the higher layer ${owner%%/*} (rank $o)"
        else
            check_backend_include "$f" "$from" "$owner" "$line" "$hdr"
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
mapfile -d '' sources < <(find src -mindepth 1 -type f \( -name '*.c' -o \
    -name '*.h' \) -print0 | sort -z)
for f in "${sources[@]}"; do
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
