#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The NCCL path of --target cuda on the CPU (docs/compiler.md, "The NCCL
# path"): the NCCL emulation (src/compiler/backend/cuda/compiler_nccl_emu.h)
# against NCCL's documented semantics (tests/mpi/nccl_emu_check.cc at 1,
# 2, 3, 4 and 8 ranks); through the CLI ($AXE_BIN), every example of
# examples/kernels/dist/ at --ranks 2, 4 and 8 (-D P=N) and every kernel of
# tests/kernels/dist/ at its mesh's size (those with a device gemm: refused,
# not yet on this target) pass `axe run --target cuda
# --emulate --ranks N --check` (the emitted .cu under the CUDA emulation,
# its NCCL calls over MPI) with no race, and the NCCL call each device
# operator takes (AXE_NCCL_TRACE) is the one --explain names; mutations of
# the NCCL runtime's calls (a count, an offset, a root, a communicator:
# AXE_RUN_EDIT) fail the check or the run with the operator named; the
# .cu's structure (segments, one runtime call per device operator); a GPU
# run without a GPU skips (77). OpenMPI is installed through
# scripts/ensure_tools.sh when missing; skipped (77) when it cannot be.
# nvcc builds are tests/compiler_nccl_build.sh's. Last line: "N passed, N
# failed".
set -u

SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=../scripts/ensure_tools.sh
. "$SRC/scripts/ensure_tools.sh"
if ! axe_ensure_tools mpicc mpirun >/dev/null 2>&1 ||
    ! command -v mpicc >/dev/null 2>&1; then
    echo "skipped: no OpenMPI (mpicc, mpirun) and it could not be installed"
    exit 77
fi
CXX=${CXX:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}
mpirun_args=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)

# The emulation against NCCL's semantics.
# shellcheck disable=SC2046 # mpicc's flags are words
if "$CXX" -std=c++17 -O1 -g -Wall -Wextra -Werror -DAXE_CUDA_EMULATE \
    -I"$SRC/src/compiler/backend/cuda" $(mpicc --showme:compile) \
    "$SRC/tests/mpi/nccl_emu_check.cc" -o "$tmp/emu" $(mpicc --showme:link) \
    2>"$tmp/err"; then
    for n in 1 2 3 4 8; do
        if timeout 300 mpirun "${mpirun_args[@]}" -np "$n" "$tmp/emu" \
            >"$tmp/out" 2>&1 && ! grep -q FAIL "$tmp/out" &&
            grep -q "nccl emulation: [0-9]* checks at $n ranks" "$tmp/out"; then
            ok
        else
            bad "NCCL emulation at $n ranks: $(grep -m3 -E 'FAIL|rror' "$tmp/out")"
        fi
    done
else
    bad "c++ nccl_emu_check.cc: $(head -5 "$tmp/err")"
fi

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "$pass passed, $fail failed (no AXE_BIN: the CLI runs skipped)"
    [ "$fail" -eq 0 ]
    exit
fi
AXE=$(cd "$(dirname "$AXE")" && pwd)/$(basename "$AXE")
EX=$SRC/examples/kernels/dist

# The NCCL call --explain names for device operator K of FILE ARGS...:
# the collective, "ncclSend/ncclRecv" or "local".
explained() {
    local k=$1 f=$2
    shift 2
    "$AXE" compile "$f" --target cuda --explain "$@" 2>/dev/null |
        awk -v k="$k" '/^device op / { op = $3 }
            op == k && /^  cuda: NCCL ncclSend\/ncclRecv/ { print "ncclSend/ncclRecv"; exit }
            op == k && /^  cuda: NCCL nccl/ { print $3; exit }
            op == k && /^  cuda: nothing crosses/ { print "local"; exit }'
}

# run_ok FILE N ARGS...: the emulated NCCL run passes with no race, and
# each device operator took the NCCL call --explain names.
run_ok() {
    local f=$1 n=$2 k want got
    shift 2
    : >"$tmp/trace"
    if ! AXE_NCCL_TRACE=$tmp/trace timeout 600 "$AXE" run "$f" --target cuda \
        --emulate --ranks "$n" --check --json "$@" >"$tmp/out" 2>"$tmp/err" ||
        ! grep -q '"pass":true,\("reference":"cpu",\)\{0,1\}"races":\[\],"emulated_races":\[\],' "$tmp/out" ||
        ! grep -q "\"target\":\"cuda-emulated\",\"ranks\":$n," "$tmp/out"; then
        bad "$(basename "$f") --ranks $n $*: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
        return
    fi
    cat "$tmp/trace" >>"$tmp/traces" 2>/dev/null
    for k in $(sed -n 's/^devop \([0-9]*\) .*/\1/p' "$tmp/trace" | sort -u); do
        want=$(explained "$k" "$f" "$@")
        got=$(sed -n "s/^devop $k \\([^ ]*\\).*/\\1/p" "$tmp/trace" | sort -u)
        [ "$got" = "local" ] || [ "${got#ncclSend}" = "$got" ] || got=ncclSend/ncclRecv
        if [ -z "$want" ] || [ "$got" != "$want" ]; then
            bad "$(basename "$f") --ranks $n device op $k: ran $got, --explain names '$want'"
            return
        fi
    done
    ok
}
# refused FILE ARGS...: a device gemm is not yet on --target cuda: the
# compile fails naming it.
refused() {
    if ! "$AXE" compile "$@" --target cuda >/dev/null 2>"$tmp/err" &&
        grep -q "device gemm (line [0-9]*): not yet on --target cuda" "$tmp/err"; then
        ok
    else
        bad "$(basename "$1"): device gemm not refused on --target cuda: $(head -c 200 "$tmp/err")"
    fi
}
for f in "$EX"/*.axe; do
    if grep -q "device gemm" "$f"; then
        refused "$f" -D P=2
        continue
    fi
    for n in 2 4 8; do
        run_ok "$f" "$n" -D "P=$n"
    done
done
mesh_size() {
    "$AXE" run "$1" --ranks 1024 2>&1 | sed -n 's/.*has a mesh of \([0-9]*\) devices.*/\1/p'
}
for f in "$SRC"/tests/kernels/dist/*.axe; do
    if grep -q "device gemm" "$f"; then
        refused "$f"
        continue
    fi
    n=$(mesh_size "$f")
    if [ -z "$n" ]; then
        bad "tests/kernels/dist/$(basename "$f"): no mesh size"
        continue
    fi
    run_ok "$f" "$n"
done
# every path of the runtime was taken somewhere above
for path in ncclAllGather ncclBroadcast ncclAllReduce ncclReduceScatter \
    "ncclSend/ncclRecv (grouped, direct)" "ncclSend/ncclRecv (grouped, packed)" \
    "local copies"; do
    if grep -qF "$path" "$tmp/traces"; then ok; else bad "no kernel takes the path '$path'"; fi
done

# Mutations of the NCCL runtime's calls (the header beside the .cu):
# mutant FROM TO FILE N ARGS...: FROM (literal) is in the runtime, its
# first occurrence becomes TO, and the run then fails its check or fails
# naming the device operator.
cat >"$tmp/edit.sh" <<'EOS'
#!/usr/bin/env bash
h=$(dirname "$1")/compiler_nccl_rt.h
from=$(cat "$MUT_FROM") to=$(cat "$MUT_TO") c=$(cat "$h")
n=${c/"$from"/"$to"}
[ "$n" != "$c" ] && printf '%s\n' "$n" >"$h"
EOS
chmod +x "$tmp/edit.sh"
mutant() {
    local from=$1 to=$2 f=$3 n=$4
    shift 4
    printf '%s' "$from" >"$tmp/from"
    printf '%s' "$to" >"$tmp/to"
    if ! grep -qF -- "$from" "$SRC/src/compiler/backend/cuda/compiler_nccl_rt.h"; then
        bad "mutation: '$from' is not in compiler_nccl_rt.h"
        return
    fi
    MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh timeout 600 \
        "$AXE" run "$f" --target cuda --emulate --ranks "$n" --check --json "$@" \
        >"$tmp/out" 2>"$tmp/err"
    if grep -q "AXE_RUN_EDIT failed" "$tmp/err" "$tmp/out"; then
        bad "mutation '$from' -> '$to': the edit failed"
    elif grep -q '"pass":false' "$tmp/out" ||
        grep -q 'device op [0-9]* (line [0-9]*): ' "$tmp/err" "$tmp/out"; then
        ok
    else
        bad "mutation '$from' -> '$to' of $(basename "$f") passed: $(head -c 300 "$tmp/out")"
    fi
}
mutant "(size_t)(m->n * es), ncclUint8, comm, st);" \
    "(size_t)(m->n * es - es), ncclUint8, comm, st);" "$EX/allgather.axe" 4 -D P=4
mutant "D = m->local.run[0].to - (int64_t)m->me * m->n;" \
    "D = m->local.run[0].to - (int64_t)m->me * m->n + 1;" "$EX/allgather.axe" 2 -D P=2
mutant "ncclReduceScatter(in, out, (size_t)m->n," \
    "ncclReduceScatter(in, out, (size_t)m->n - 1," "$EX/reduce_scatter.axe" 4 -D P=4
mutant "ncclAllReduce(in, out, (size_t)m->n," "ncclAllReduce(in, out, (size_t)m->n / 2," \
    "$EX/mlp.axe" 2 -D P=2
mutant "+ m->sdispl[q] * es," "+ (m->sdispl[q] + 1) * es," "$EX/alltoall.axe" 4 -D P=4
mutant "(size_t)(m->rcount[q] * es), ncclUint8, q," \
    "(size_t)(m->rcount[q] * es - es), ncclUint8, q," "$EX/alltoall.axe" 4 -D P=4
mutant "m->root, comm, st);" "(m->root + 1) % m->P, comm, st);" \
    "$SRC/tests/kernels/dist/one_device.axe" 8
mutant "s->kcomb, s->m.K, s->m.esize, stream);" \
    "s->kcomb, s->m.K - 1, s->m.esize, stream);" \
    "$SRC/tests/kernels/dist/reduce_general.axe" 4

# A device operator's failure names the rank, the operator and NCCL's
# reason (the communicator gone: ncclInvalidArgument).
printf '%s' "ncclUint8, comm, st);" >"$tmp/from"
printf '%s' "ncclUint8, NULL, st);" >"$tmp/to"
if ! MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh "$AXE" run "$EX/allgather.axe" --target cuda --emulate \
    --ranks 2 --check >"$tmp/out" 2>"$tmp/err" &&
    grep -q "rank [01]: device op 0 (line [0-9]*): NCCL: invalid argument" "$tmp/err"; then
    ok
else
    bad "a failing NCCL call: $(head -c 400 "$tmp/err")"
fi

# The .cu: the kernel runs segment ax_seg; axe_launch_NAME calls the
# runtime once per device operator, between the segments' launches.
if "$AXE" compile "$EX/mlp.axe" --target cuda >"$tmp/mlp.cu" 2>"$tmp/err" &&
    grep -q '#include "compiler_nccl_rt.h"' "$tmp/mlp.cu" &&
    grep -q '^__global__ void __launch_bounds__([0-9]*) k_dist_mlp(.*long ax_seg)$' "$tmp/mlp.cu" &&
    [ "$(grep -c '^        ax_rc = ax_nccl_devop(' "$tmp/mlp.cu")" = 1 ] &&
    [ "$(grep -c '    ax_rc = ax_seg_launch_dist_mlp(' "$tmp/mlp.cu")" = 2 ]; then
    ok
else
    bad "compile --target cuda mlp.axe: $(head -c 300 "$tmp/err")"
fi

# Runtime scalars in a mesh program: not yet on --target cuda.
printf 'mesh(2);\nkernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)], B: f32[8] layout S[(8):(1)] + R[2:1@gpuid], n: i32)\n    grid(1) threads(1) {\n    device copy(B, A);\n}\n' >"$tmp/sc.axe"
if ! "$AXE" compile "$tmp/sc.axe" --target cuda >/dev/null 2>"$tmp/err" &&
    grep -q "runtime scalars in a mesh program: not yet on --target cuda" "$tmp/err"; then
    ok
else
    bad "runtime scalars in a mesh program on --target cuda: $(head -c 200 "$tmp/err")"
fi

# Without a GPU the GPU run skips; --ranks against the mesh's size.
if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/nvidiactl ]; then
    "$AXE" run "$EX/allgather.axe" --target cuda --ranks 2 --check --json >"$tmp/out" 2>&1
    rc=$?
    if [ "$rc" = 77 ] && grep -q '"skipped":"no GPU"' "$tmp/out"; then ok; else bad "GPU run without a GPU: exit $rc $(head -c 200 "$tmp/out")"; fi
fi
if ! "$AXE" run "$EX/allgather.axe" --target cuda --emulate --ranks 4 >"$tmp/out" 2>"$tmp/err" &&
    grep -qF -- "--ranks 4, but kernel 'dist_allgather' has a mesh of 2 devices" "$tmp/err"; then
    ok
else
    bad "--ranks 4 of a mesh of 2: $(head -c 300 "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
