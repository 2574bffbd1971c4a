#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The CUDA emulation (docs/compiler.md, "The CUDA emulation") through the
# CLI ($AXE_BIN): every `check_run`/`exact_run` of tests/compiler_kernels.sh
# whose kernel `axe compile --target cuda` accepts runs again with
# `--target cuda --emulate --check` (the same sizes, seeds and --arg
# values) and passes, "target":"cuda-emulated" in --json; a few also with
# $CXX -fsanitize=address,undefined (the fibers' ASan annotations); the
# emulator's errors fail the run with their reason (a __syncthreads that
# half the block skips: a deadlock; a cp.async never waited for) and
# --emulate without --target cuda is a usage error; without --emulate,
# with no GPU, the run is skipped (exit 77, "skipped":"no GPU").
# Skipped (77) without a C++ compiler. Last line: "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
AXE=$(cd "$(dirname "$AXE")" && pwd)/$(basename "$AXE")
CXX=${CXX:-c++}
if ! command -v "${CXX%% *}" >/dev/null 2>&1; then
    echo "skipped: no C++ compiler ($CXX)"
    exit 77
fi
export CXX
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# emu_run DIR FILE ARGS...: the kernel compiles for cuda (else: skipped,
# not counted) and `axe run --target cuda --emulate --check` passes; the
# arguments of each passing run are kept for the mutations ("runs": one
# line per run, %q-quoted).
declare -A runs=()
emu_run() {
    local dir=$1 f=$2 a cargs=()
    shift 2
    set -- "$@"
    local args=("$@") i
    for ((i = 0; i < ${#args[@]}; i++)); do
        case ${args[$i]} in
        -D | --schedule) cargs+=("${args[$i]}" "${args[$((i + 1))]}") ;;
        esac
    done
    (cd "$dir" && "$AXE" compile "$f" --target cuda "${cargs[@]}") \
        >/dev/null 2>&1 || return 0
    if (cd "$dir" && "$AXE" run "$f" --target cuda --emulate --check "$@") \
        >"$tmp/out" 2>"$tmp/err" &&
        grep -qE '^check passed|"pass":true' "$tmp/out" &&
        grep -qE 'target cuda-emulated|"target":"cuda-emulated"' "$tmp/out"; then
        ok
        runs[$dir/$f]+="$([ $# -gt 0 ] && printf '%q ' "$@")"$'\n'
    else
        bad "axe run $f --target cuda --emulate --check $* ($(cat "$tmp/out" "$tmp/err" | head -c 600))"
    fi
}

# Every run of compiler_kernels.sh (its K switches from examples/ to
# tests/kernels/ part way).
dir=$SRC/examples/kernels
while IFS= read -r line; do
    case $line in
    K=*tests/kernels*) dir=$SRC/tests/kernels ;;
    *check_run\ * | *exact_run\ *)
        line=${line#*_run }
        # shellcheck disable=SC2086
        eval "set -- $line"
        emu_run "$dir" "$@"
        ;;
    esac
done < <(awk '/\\$/ { sub(/\\$/, ""); printf "%s", $0; next } { print }' \
    "$SRC/tests/compiler_kernels.sh" |
    grep -E '^K=|^\s*(CC="[^"]*" )?(check_run|exact_run) ')

# The fibers under ASan and UBSan.
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
for f in softmax.axe gemm.axe transpose_swizzle.axe; do
    CXX="$CXX $sanitize" emu_run "$SRC/examples/kernels" "$f"
done
CXX="$CXX $sanitize" emu_run "$SRC/tests/kernels" sync_in_if.axe

# expect_fail PATTERN EDIT FILE ARGS...: with the .cu edited by EDIT the
# emulated check fails, its output naming PATTERN.
expect_fail() {
    local pat=$1 edit=$2 f=$3
    shift 3
    if AXE_RUN_EDIT="$edit" "$AXE" run "$f" --target cuda --emulate --check "$@" \
        >"$tmp/out" 2>"$tmp/err"; then
        bad "$f edited by '$edit': the emulated check passed"
    elif grep -qF -- "$pat" "$tmp/out" "$tmp/err"; then
        ok
    else
        bad "$f edited by '$edit': no '$pat' ($(cat "$tmp/out" "$tmp/err" | head -c 600))"
    fi
}
T=$SRC/tests/kernels
expect_fail "deadlock: barrier 0: 32 of 128 threads arrived" \
    "sed -i 's|__syncthreads(); /\* sync \*/|if (ax_tid < 32) __syncthreads();|'" \
    "$T/producer_consumer.axe"
# tf32 fragments not converted by cvt.rna.tf32.f32 (their bits passed
# as they are): the emulated mma reads the tf32 bits, which truncates,
# and the check against the reference's rounding fails.
cat >"$tmp/no_cvt.sh" <<'EOS'
sed -i 's/axe_ptx_cvt_rna_tf32(/[](float ax_f) { uint32_t ax_u; memcpy(\&ax_u, \&ax_f, 4); return ax_u; }(/g' "$1"
EOS
expect_fail "check FAILED" "sh $tmp/no_cvt.sh" "$T/gemm_tf32.axe"

# The mutation test: each barrier of the kernel code (__syncthreads,
# bar.sync, cp.async.wait_group) deleted in turn from the .cu of every
# kernel that passed above makes the emulated check fail (the race
# detector, a wrong value or a cp.async never waited for) in at least one
# of the kernel's passing runs (a barrier may be needed only at some
# sizes: one that a single K step leaves without work, say).
cat >"$tmp/del.sh" <<'DEL'
#!/usr/bin/env bash
# del.sh N FILE: FILE without the Nth barrier after the first __global__.
awk -v n="$1" '
    /^__global__/ { on = 1 }
    on && match($0, /__syncthreads\(\);|axe_ptx_bar_sync\([^;]*\);|axe_ptx_cp_async_wait<[0-9]+>\(\);/) {
        if (++k == n) {
            $0 = substr($0, 1, RSTART - 1) "/* deleted */;" substr($0, RSTART + RLENGTH)
        }
    }
    { print }' "$2" >"$2.m" && mv "$2.m" "$2"
DEL
chmod +x "$tmp/del.sh"
barrier_re='__syncthreads\(\);|axe_ptx_bar_sync\([^;]*\);|axe_ptx_cp_async_wait<[0-9]+>\(\);'
nmut=0
# Barriers whose deletion no run of the kernel detects (FILE:M): the
# emulation finds no access that the barrier orders between different
# threads at compiler_kernels.sh's sizes. mixed_split's are redundant by
# construction (its operators share one round-robin split: every element
# stays with one thread, its header says so); the others were found by
# this test and are listed, not yet proven redundant: a new survivor
# fails the test.
declare -A survivors=([mixed_split.axe:2]=1 [mixed_split.axe:3]=1
    [mixed_split.axe:5]=1 [masks.axe:1]=1 [gemm_blocked.axe:1]=1
    [gemm_swizzle.axe:4]=1 [gemm_mma.axe:4]=1 [gather_index.axe:1]=1
    [swizzle_raw.axe:2]=1 [reduce_tree.axe:30]=1 [reduce_tree.axe:41]=1
    [c_names.axe:4]=1 [c_names.axe:5]=1 [c_names.axe:6]=1 [c_names.axe:7]=1
    [c_names.axe:8]=1 [c_names.axe:9]=1 [c_names.axe:10]=1
    [wg_reduce.axe:10]=1 [wg_reduce.axe:11]=1 [wg_reduce.axe:13]=1
    [wg_reduce.axe:15]=1 [wg_reduce.axe:17]=1 [wg_reduce.axe:19]=1
    [slice_loops.axe:10]=1)
# slice_loops' 10th barrier ("the scratch is read: the next iteration may
# write it") is redundant by construction: its reduce runs under
# `if (j == 1)` in the last of two iterations, so no later write exists.

# mutant M N KEY: barrier M of N deleted fails some run of kernel KEY.
mutant() {
    local m=$1 n=$2 key=$3 dir f line
    dir=$(dirname "$key")
    f=$(basename "$key")
    if [ -n "${survivors[$f:$m]:-}" ]; then
        ok
        return
    fi
    while IFS= read -r line; do
        eval "set -- $line"
        if ! (cd "$dir" && AXE_RUN_EDIT="$tmp/del.sh $m" "$AXE" run "$f" \
            --target cuda --emulate --check "$@") >"$tmp/out" 2>"$tmp/err" &&
            grep -qE '^check FAILED|"pass":false|emulation: ' "$tmp/out" "$tmp/err"; then
            ok
            return
        fi
    done <<<"${runs[$key]%$'\n'}"
    bad "$f: with barrier $m of $n deleted every emulated check passed (or failed otherwise: $(cat "$tmp/out" "$tmp/err" | head -c 300))"
}
# The asan preset sets AXE_EMU_MUTANTS=0: the mutants exercise the
# emulated .cu, which $CXX builds without sanitizers in every preset,
# so a second round under asan would prove nothing new (and doubles the
# suite's longest test).
if [ "${AXE_EMU_MUTANTS:-1}" = 0 ]; then
    echo "barrier mutants skipped (AXE_EMU_MUTANTS=0)"
else
for key in "${!runs[@]}"; do
    eval "set -- $(head -1 <<<"${runs[$key]}")"
    cargs=()
    args=("$@")
    for ((i = 0; i < ${#args[@]}; i++)); do
        case ${args[$i]} in
        -D | --schedule) cargs+=("${args[$i]}" "${args[$((i + 1))]}") ;;
        esac
    done
    n=$( (cd "$(dirname "$key")" && "$AXE" compile "$(basename "$key")" \
        --target cuda "${cargs[@]}") |
        sed -n '/^__global__/,$p' | grep -cE "$barrier_re")
    for ((m = 1; m <= n; m++)); do
        nmut=$((nmut + 1))
        mutant "$m" "$n" "$key"
    done
done
if [ "$nmut" -lt 10 ]; then
    bad "only $nmut barriers were mutated"
fi
fi

# Usage and the GPU path.
"$AXE" run "$T/producer_consumer.axe" --emulate >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -qF -- "--emulate runs the CUDA target on the CPU" "$tmp/err"; then
    ok
else
    bad "--emulate without --target cuda: exit $rc ($(cat "$tmp/err"))"
fi
if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/nvidiactl ]; then
    "$AXE" run "$T/producer_consumer.axe" --target cuda --check --json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 77 ] && grep -qF '"pass":null,"skipped":"no GPU"' "$tmp/out"; then
        ok
    else
        bad "--target cuda without a GPU: exit $rc ($(cat "$tmp/out" "$tmp/err"))"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
