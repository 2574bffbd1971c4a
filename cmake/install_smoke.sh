#!/usr/bin/env bash
# install_smoke BUILD_DIR VERSION: install the build into a temporary prefix,
# move the tree (the package must be relocatable), then build and run a small
# consumer that includes every public header and prints axe_version(), once
# through pkg-config and once through find_package(axe) with axe::axe and
# axe::axe_static; and check that libaxe.so exports axe_* only.
# Environment: CC (the project's compiler), AXE_SMOKE_FLAGS
# (its sanitizer flags, which the consumer must link with too).
set -euo pipefail

build=$1
version=$2
cc=${CC:-cc}
read -r -a flags <<<"${AXE_SMOKE_FLAGS:-}"
passed=0
failed=0

if ! command -v pkg-config >/dev/null 2>&1; then
    echo "install_smoke: pkg-config not found, skipped"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/staged" >/dev/null
mv "$tmp/staged" "$tmp/prefix"
prefix=$tmp/prefix

# The consumer: every installed header, in C11 with pedantic warnings.
mkdir "$tmp/consumer"
{
    echo '#include <stdio.h>'
    for h in "$prefix"/include/axe/*.h; do
        echo "#include <axe/$(basename "$h")>"
    done
    echo 'int main(void) { puts(axe_version()); return 0; }'
} >"$tmp/consumer/main.c"

# check NAME COMMAND...: the command must print exactly the version.
check() {
    local name=$1 out
    shift
    if out=$("$@" 2>&1) && [ "$out" = "$version" ]; then
        echo "ok   $name: $out"
        passed=$((passed + 1))
    else
        echo "FAIL $name: expected '$version', got: $out"
        failed=$((failed + 1))
    fi
}

pc=$(find "$prefix" -name axe.pc -print -quit)
if [ -z "$pc" ]; then
    echo "install_smoke: axe.pc was not installed"
    exit 1
fi
export PKG_CONFIG_PATH=${pc%/*}
libdir=$(pkg-config --variable=libdir axe)
read -r -a pc_flags <<<"$(pkg-config --cflags --libs axe)"
"$cc" -std=c11 -Wall -Wextra -Wpedantic -Werror "${flags[@]}" \
    "$tmp/consumer/main.c" "${pc_flags[@]}" -o "$tmp/pc_consumer"
check pkg-config env LD_LIBRARY_PATH="$libdir" "$tmp/pc_consumer"

cat >"$tmp/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(axe_consumer C)
set(CMAKE_C_STANDARD 11)
set(CMAKE_C_EXTENSIONS OFF)
find_package(axe $version REQUIRED)
add_executable(consumer_shared main.c)
target_link_libraries(consumer_shared PRIVATE axe::axe)
add_executable(consumer_static main.c)
target_link_libraries(consumer_static PRIVATE axe::axe_static)
CMAKE
generator=()
if command -v ninja >/dev/null 2>&1; then
    generator=(-G Ninja)
fi
cmake -S "$tmp/consumer" -B "$tmp/consumer/build" "${generator[@]}" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_FLAGS="${flags[*]}" -DCMAKE_EXE_LINKER_FLAGS="${flags[*]}" \
    >"$tmp/cmake.log" 2>&1 || {
    cat "$tmp/cmake.log"
    exit 1
}
cmake --build "$tmp/consumer/build" >>"$tmp/cmake.log" 2>&1 || {
    cat "$tmp/cmake.log"
    exit 1
}
check axe::axe "$tmp/consumer/build/consumer_shared"
check axe::axe_static "$tmp/consumer/build/consumer_static"

# Hidden visibility: the shared library exports the public axe_* API only,
# never internal axe__* functions.
if command -v nm >/dev/null 2>&1; then
    stray=$(nm -D --defined-only "$libdir/libaxe.so" |
        awk '{ print $3 }' | grep -Ev '^axe_[a-z0-9]' || true)
    if [ -z "$stray" ]; then
        echo "ok   exports: axe_* only"
        passed=$((passed + 1))
    else
        echo "FAIL exports: symbols outside the public API:" "${stray//$'\n'/ }"
        failed=$((failed + 1))
    fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
