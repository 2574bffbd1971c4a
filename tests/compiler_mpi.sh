#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The MPI backend (docs/compiler.md, "The MPI backend"): the runtime
# (src/compiler/backend/mpi/compiler_mpi_rt.h) built with mpicc from
# tests/mpi/mpi_runtime_check.c and run under mpirun at 1, 2, 4 and 8 ranks
# (hand-written digit tables against brute force, the collective each
# takes); through the CLI ($AXE_BIN), every example of
# examples/kernels/dist/ at --ranks 2, 4 and 8 (-D P=N) and every kernel
# of tests/kernels/dist/ at its mesh's size (reduce_order.axe at 2, 4 and
# 8) pass `axe run --ranks N --check` with no race (JSON:
# "target":"mpi","ranks":N,"races":[]), those with a device reduce or
# gemm exactly (max_abs_err 0);
# each sync of those kernels blanked out in turn makes the check fail with
# a race naming its device (a few listed ones stay unneeded);
# `axe compile --target mpi` emits the runtime calls, and C that compiles
# with -Wall -Werror; the errors: --ranks
# against another mesh size, --ranks without a mesh, a mesh without
# --ranks, --ranks with --target cuda, a missing mpicc, an input file of
# the wrong size at entry, a shard list that does not match the layouts
# (the entry check's --shards: the wrong device's shard, a wrong element
# count, dtype or checksum, a missing line); --bench with --ranks times
# (the slowest rank's seconds); runtime scalars (--arg) reach every rank.
# OpenMPI is installed through scripts/ensure_tools.sh when missing;
# skipped (77) when it cannot be.
# With AXE_MPI_SANITIZE (the asan preset) the programs are built with
# -fsanitize=$AXE_MPI_SANITIZE and LeakSanitizer ignores OpenMPI's own
# allocations only (tests/lsan_openmpi.supp). Last line: "N passed, N
# failed".
set -u

# shellcheck disable=SC2034 # (read by kernel_lib.sh)
KERNEL_AXE_OPTIONAL=1
# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_mpi_start
kernel_counts

cflags=(-std=c11 -O1 -g -Wall -Wextra -Werror)
if [ -n "${AXE_MPI_SANITIZE:-}" ]; then
    cflags+=("-fsanitize=$AXE_MPI_SANITIZE" -fno-omit-frame-pointer)
    # OpenMPI's plugins stay loaded (else their frames are unknown modules
    # no suppression can name) and the slow unwinder walks through them.
    export OMPI_MCA_mca_base_component_disable_dlclose=1
    export PMIX_MCA_mca_base_component_disable_dlclose=1
    export LSAN_OPTIONS="suppressions=$SRC/tests/lsan_openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
fi

# The runtime against brute force.
if mpicc "${cflags[@]}" -I"$SRC/src/compiler/backend/mpi" \
    "$SRC/tests/mpi/mpi_runtime_check.c" -o "$tmp/rt" 2>"$tmp/err"; then
    kernel_rank_runs runtime "$tmp/rt" "" 1 2 4 8
else
    bad "mpicc mpi_runtime_check.c: $(head -5 "$tmp/err")"
fi

# Through the CLI.
kernel_cli_or_finish
EX=$SRC/examples/kernels/dist

# run_ok FILE N ARGS...: axe run --ranks N --check --json passes, with
# no race.
run_ok() {
    local f=$1 n=$2
    shift 2
    if timeout 600 "$AXE" run "$f" --ranks "$n" --check --json "$@" \
        >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"pass":true,"races":\[\],' "$tmp/out" &&
        grep -q "\"target\":\"mpi\",\"ranks\":$n," "$tmp/out"; then
        ok
    else
        bad "$(basename "$f") --ranks $n $*: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
}
# exact_dev FILE N: after run_ok, a kernel with a device reduce or gemm
# is exact (f32 and f64 partials are summed in the reference's order on
# every path of the runtime: "The MPI backend", exactness).
exact_dev() {
    grep -qE '^ *device (reduce|gemm)' "$1" || return 0
    if grep -q '"max_abs_err":0,"max_rel_err":0,' "$tmp/out"; then
        ok
    else
        bad "$(basename "$1") --ranks $2 is not exact: $(head -c 300 "$tmp/out")"
    fi
}
for f in "$EX"/*.axe; do
    for n in 2 4 8; do
        run_ok "$f" "$n" -D "P=$n"
        exact_dev "$f" "$n"
    done
done
for n in 2 4 8; do
    run_ok "$SRC/tests/kernels/dist/reduce_order.axe" "$n" -D "P=$n"
    exact_dev "$SRC/tests/kernels/dist/reduce_order.axe" "$n"
done
# device gemm chunks(CH): the partials are summed in the reference's
# order, so the result equals it (max_abs_err 0, f32) at every rank count
# and chunk count (1: the non-overlapped sequence), as the ordered
# reduce-scatter of matmul_rs_dev; tests/kernels/dist/gemm_rs_cols
# (below, with the dist kernels) likewise.
for n in 2 4 8; do
    for ch in 1 3 4; do
        run_ok "$EX/matmul_rs_overlap.axe" "$n" -D "P=$n" -D "CH=$ch"
        if grep -q '"max_abs_err":0,"max_rel_err":0,' "$tmp/out"; then
            ok
        else
            bad "matmul_rs_overlap -D P=$n -D CH=$ch is not exact: $(head -c 300 "$tmp/out")"
        fi
    done
done
run_ok "$SRC/tests/kernels/dist/gemm_rs_cols.axe" 4
if grep -q '"max_abs_err":0,"max_rel_err":0,' "$tmp/out"; then
    ok
else
    bad "gemm_rs_cols is not exact: $(head -c 300 "$tmp/out")"
fi
# gemm_fma_rows (with the dist kernels at its size, 2) at 4 ranks too
run_ok "$SRC/tests/kernels/dist/gemm_fma_rows.axe" 4 -D P=4
exact_dev "$SRC/tests/kernels/dist/gemm_fma_rows.axe" 4
# The generated C of chunks(CH) posts MPI_Isend/MPI_Irecv through the
# runtime's chunked gemm; without chunks, the local GEMM and the exchange.
if "$AXE" compile "$EX/matmul_rs_overlap.axe" --target mpi >"$tmp/ov.c" &&
    grep -q 'ax_mpi_gemm_devop(0, [0-9]*, &ax_dev0, &ax_dev0_chunked, 4, ax_dev0_elems' "$tmp/ov.c" &&
    grep -q 'MPI_Isend' "$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h" &&
    "$AXE" compile "$EX/matmul_rs_dev.axe" --target mpi >"$tmp/dev.c" &&
    grep -q '    ax_dev0_gemm(t_A, t_B, ax_dev0_part);' "$tmp/dev.c" &&
    ! grep -q 'ax_mpi_gemm_devop' "$tmp/dev.c"; then
    ok
else
    bad "device gemm's generated C"
fi

# The generated C of every mesh kernel compiles with -Wall -Werror (an
# unused static, e.g. ax_mpi_devop when every device op is a chunked
# device gemm, is an error).
for f in "$EX"/*.axe "$SRC"/tests/kernels/dist/*.axe; do
    if "$AXE" compile "$f" --target mpi -o "$tmp/w.c" 2>"$tmp/err" &&
        mpicc -std=c11 -O1 -Wall -Werror -DAXE_KERNEL_MAIN \
            -I"$SRC/src/compiler/backend/mpi" -c "$tmp/w.c" -o "$tmp/w.o" \
            2>"$tmp/err"; then
        ok
    else
        bad "$(basename "$f") --target mpi with -Wall -Werror: $(head -c 300 "$tmp/err")"
    fi
done

# A device gemm whose operands no local GEMM can use as placed copies one
# first, and --explain says which, where to and by which collective (the
# runs at the mesh's size are below, with the dist kernels).
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_copy_k.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -q "as placed, no local GEMM fits: device gemm (line 11): K (dim 1) is placed as" "$tmp/ex" &&
    grep -qF "so B is first copied to S[(12,4,4):(4,1,1@gpuid)] (its K placed as A's, its rows whole)" "$tmp/ex" &&
    grep -q "  copy: all-to-all: " "$tmp/ex" &&
    grep -q "A_local . copied B_local^T" "$tmp/ex"; then
    ok
else
    bad "gemm_copy_k --explain: $(head -c 600 "$tmp/ex")"
fi

# Operands on a region with a gap in its devices (0, 1, 4, 5 of 8) fit as
# placed: no copy to fit; both replicated over those devices, they split
# K (4 k's) over them, so the partial sums are 4 slices on those devices
# only.
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_gap.axe" --explain >"$tmp/ex" 2>&1 &&
    ! grep -q "as placed, no local GEMM fits" "$tmp/ex" &&
    grep -qF "  A and B as used both replicate (2:4@gpuid, 2:1@gpuid): their 4 replicas would compute the same partial sums, so K is split over them" "$tmp/ex" &&
    grep -qxF "  partial sums: f32[4,2,2] layout S[(2,2,2,2):(4@gpuid,1@gpuid,2,1)]" "$tmp/ex"; then
    ok
else
    bad "gemm_gap --explain: $(head -c 900 "$tmp/ex")"
fi
# ... and only those four devices run the local GEMM: the others hold no
# part of K for C and skip it (--explain, the rank's C and the .cu)
if grep -qF "  local GEMM on the 4 of 8 devices holding partial sums (0, 1, 4, 5; the others skip it): " "$tmp/ex" &&
    "$AXE" compile "$SRC/tests/kernels/dist/gemm_gap.axe" --target mpi -o "$tmp/gap.c" 2>"$tmp/err" &&
    grep -qxF '    static const char on[] = "11001100";' "$tmp/gap.c" &&
    grep -qxF '    if (!ax_dev0_busy())' "$tmp/gap.c" &&
    "$AXE" compile "$SRC/tests/kernels/dist/gemm_gap.axe" --target cuda -o "$tmp/gap.cu" 2>"$tmp/err" &&
    grep -qxF '    static const char on[] = "11001100";' "$tmp/gap.cu" &&
    grep -qxF '    if (ax_dev0_busy())' "$tmp/gap.cu"; then
    ok
else
    bad "gemm_gap: the local GEMM on devices 0, 1, 4, 5 only: $(grep 'local GEMM' "$tmp/ex") $(grep -A3 'ax_dev0_busy' "$tmp/gap.c" | head -c 300) $(head -c 300 "$tmp/err")"
fi

# The mesh size of FILE (which --ranks of another size names).
mesh_size() {
    "$AXE" run "$1" --ranks 1024 2>&1 | sed -n 's/.*has a mesh of \([0-9]*\) devices.*/\1/p'
}
# Each kernel of tests/kernels/dist at its mesh's size.
for f in "$SRC"/tests/kernels/dist/*.axe; do
    n=$(mesh_size "$f")
    if [ -z "$n" ]; then
        bad "tests/kernels/dist/$(basename "$f"): no mesh size from --ranks 1024"
        continue
    fi
    run_ok "$f" "$n"
    exact_dev "$f" "$n"
done

# Races in the segments (docs/compiler.md, "Races"): each `sync` of the
# dist kernels in turn blanked out (the line numbers stay); --check must
# then fail with a race that names its device, except for the syncs
# marked "# unneeded sync: NAME" in the kernel and listed here (FILE:NAME),
# between operators that deal every element to the same thread (fill or
# gemm split_k then relu or gemm split_k of one shape: 256, 128 and 64
# elements per device over 32 threads), which must still pass with no
# race. The marks are checked, not assumed (tests/compiler_races.sh).
UNNEEDED="
examples/kernels/dist/matmul_rs.axe:after-fill
examples/kernels/dist/matmul_rs_loop.axe:after-fill
examples/kernels/dist/mlp.axe:after-fill
examples/kernels/dist/mlp.axe:after-gemm
"
nsync=0
for f in "$EX"/*.axe "$SRC"/tests/kernels/dist/*.axe; do
    rel=${f#"$SRC"/}
    n=$(mesh_size "$f")
    for line in $(kernel_sync_lines "$f"); do
        nsync=$((nsync + 1))
        awk -v L="$line" 'NR == L { sub(/sync *;/, "     ") } 1' "$f" \
            >"$tmp/$(basename "$f")"
        timeout 600 "$AXE" run "$tmp/$(basename "$f")" --ranks "$n" --check \
            --json >"$tmp/out" 2>"$tmp/err"
        if [ -n "$(kernel_sync_mark "$f" "$line")" ]; then
            if grep -q '"pass":true,"races":\[\],' "$tmp/out"; then
                ok
            else
                bad "$rel:$line is marked unneeded, but without it: $(head -c 400 "$tmp/out" "$tmp/err")"
            fi
        elif grep -q '"pass":false,"races":\[{"tensor":' "$tmp/out" &&
            grep -q ' on device [0-9]*: [^"]*no sync between","device":[0-9]' "$tmp/out"; then
            ok
        else
            bad "$rel without the sync of line $line: no race: $(head -c 400 "$tmp/out" "$tmp/err")"
        fi
    done
done
kernel_sync_marks_listed "$UNNEEDED" "$EX"/*.axe "$SRC"/tests/kernels/dist/*.axe
# segments.axe's two syncs and mlp.axe's three at least (not vacuous).
if [ "$nsync" -ge 5 ]; then
    ok
else
    bad "only $nsync syncs found in the dist kernels"
fi

# The generated C calls the runtime once per device operator, between
# the segments' launches; the run after mlp.axe's reduce holds nothing
# and has no CTA function and no launch.
if "$AXE" compile "$EX/mlp.axe" --target mpi >"$tmp/mlp.c" 2>"$tmp/err" &&
    grep -q '#include "compiler_mpi_rt.h"' "$tmp/mlp.c" &&
    [ "$(grep -c '    ax_mpi_devop(' "$tmp/mlp.c")" = 1 ] &&
    [ "$(grep -c 'k_dist_mlp_cta_s0(' "$tmp/mlp.c")" = 2 ] &&
    ! grep -q 'k_dist_mlp_cta_s1' "$tmp/mlp.c"; then
    ok
else
    bad "compile --target mpi mlp.axe: $(head -c 300 "$tmp/err")"
fi

# err_run WANT ARGS...: axe run fails (exit 1 or 2) with WANT on stderr.
err_run() {
    local want=$1
    shift
    "$AXE" run "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if { [ "$rc" = 1 ] || [ "$rc" = 2 ]; } && grep -qF -- "$want" "$tmp/err"; then
        ok
    else
        bad "axe run $*: exit $rc, wanted '$want': $(head -c 300 "$tmp/err")"
    fi
}
err_run "--ranks 4, but kernel 'dist_allgather' has a mesh of 2 devices: run it with --ranks 2" \
    "$EX/allgather.axe" --ranks 4 --check
err_run "declares no mesh" "$SRC/examples/kernels/fig5_copy.axe" --ranks 2
err_run "--ranks 2" "$EX/allgather.axe" --check
err_run "--ranks runs the mpi or the cuda target, not c" "$EX/allgather.axe" --ranks 2 --target c
# --bench with --ranks: every rank runs the same batches (their stop is
# agreed), the slowest rank's wall-clock seconds per run; bytes/s over
# every device's buffers, flops/s over every device's gemms (a device
# gemm: its local GEMM's 2 Mloc Nloc Kloc on every device; matmul_rs_dev
# at 4 ranks: 4 x 2*16*16*8 = 16384 per run).
for spec in allgather.axe:2:bytes_per_s mlp.axe:4:flops_per_s matmul_rs_dev.axe:4:flops_per_s; do
    IFS=: read -r kf kn rate <<<"$spec"
    if timeout 600 "$AXE" run "$EX/$kf" -D "P=$kn" --ranks "$kn" --bench \
        --check --json >"$tmp/out" 2>"$tmp/err" &&
        grep -q '"pass":true' "$tmp/out" &&
        grep -Eq "\"seconds\":[0-9.e+-]+,\"$rate\":[0-9.e+]+}" "$tmp/out" &&
        ! grep -q '"seconds":0,' "$tmp/out" &&
        { [ "$kf" != matmul_rs_dev.axe ] || kernel_flops_are "$tmp/out" 16384; }; then
        ok
    else
        bad "--bench --ranks $kn $kf: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
done
if "$AXE" compile "$EX/allgather.axe" --target mpi >"$tmp/ag_bench.c" &&
    grep -q 'if (ax_mesh_stop(ax_sec >= 0.01 || runs >= 4194304L))' "$tmp/ag_bench.c" &&
    grep -q 'ax_mesh_max(ax_sec) / (double)runs' "$tmp/ag_bench.c" &&
    grep -q 'MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX' "$tmp/ag_bench.c"; then
    ok
else
    bad "the mesh harness's timing: $(grep -n 'ax_mesh' "$tmp/ag_bench.c" | head -5)"
fi
MPICC=/nonexistent/mpicc err_run "'/nonexistent/mpicc' is not installed" \
    "$EX/allgather.axe" --ranks 2

# The entry check: rank 0 refuses an input of the wrong size, naming each
# tensor's local shard.
if "$AXE" compile "$EX/allgather.axe" --target mpi -o "$tmp/ag.c" &&
    "$AXE" compile "$EX/allgather.axe" --target mpi >/dev/null &&
    cp "$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h" "$tmp/" &&
    mpicc -std=c99 -DAXE_KERNEL_MAIN -I"$tmp" "$tmp/ag.c" -o "$tmp/ag" -lm &&
    head -c 100 /dev/zero >"$tmp/short.in" &&
    ! mpirun "${mpirun_args[@]}" -np 2 "$tmp/ag" "$tmp/short.in" "$tmp/ag.out" 0 \
        >"$tmp/out" 2>"$tmp/err" &&
    grep -qF "has 100 bytes; the local shards of the 2 devices need 12288 (per device: A: 512 f32, B: 1024 f32)" "$tmp/err"; then
    ok
else
    bad "entry check: $(head -c 400 "$tmp/err")"
fi

# The entry check's shard list (--shards): each rank refuses a shard that
# does not match the declared layout, naming the rank, the tensor, the
# expected and the given. An mpirun wrapper ($MPIRUN) edits what axe run
# hands over (EDIT): device 0's and device 1's lines and buffers swapped
# (A is sharded: the wrong device's data; B replicated: the same label),
# one element count, one dtype, one checksum changed, a line dropped.
cat >"$tmp/mpirun_edit" <<'WRAP'
#!/usr/bin/env bash
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    if [ "${args[i]}" = --shards ]; then
        list=${args[i + 1]} in=${args[i + 2]}
    fi
done
case $EDIT in
swap)
    { sed -n '3,4p' "$list"; sed -n '1,2p' "$list"; } >"$list.x"
    half=$(($(stat -c %s "$in") / 2))
    { tail -c "$half" "$in"; head -c "$half" "$in"; } >"$in.x"
    mv "$in.x" "$in" ;;
count) sed '4s/ 1024 / 1000 /' "$list" >"$list.x" ;;
dtype) sed '1s/ f32 / f16 /' "$list" >"$list.x" ;;
sum) sed '2s/ [0-9a-f]*$/ 0000000000000001/' "$list" >"$list.x" ;;
drop) sed '$d' "$list" >"$list.x" ;;
*) cp "$list" "$list.x" ;;
esac
mv "$list.x" "$list"
if [ "$EDIT" = arg ]; then # the last value: 7
    set -- "${@:1:$(($# - 1))}" 7
fi
exec mpirun "$@"
WRAP
chmod +x "$tmp/mpirun_edit"
# shard_err EDIT WANT: the edited run fails with WANT (checksums as H).
shard_err() {
    EDIT=$1 MPIRUN=$tmp/mpirun_edit "$AXE" run "$EX/allgather.axe" --ranks 2 \
        --check >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" = 1 ] &&
        sed -E 's/[0-9a-f]{16}/H/g' "$tmp/err" | grep -qF -- "$2"; then
        ok
    else
        bad "shard list edited ($1): exit $rc, wanted '$2': $(head -c 400 "$tmp/err")"
    fi
}
LA='S[(2,32,16):(1@gpuid,16,1)]'
shard_err swap "rank 0: tensor 'A': the ids checksum of the shard given is H; the layout $LA gives device 0 H (the shard given is device 1's)"
shard_err count "rank 1: tensor 'B': the shard given holds 1000 elements; the layout S[(64,16):(16,1)] + R[2:1@gpuid] gives device 1 1024"
shard_err dtype "rank 0: tensor 'A': the shard given is f16 [64,16]; the kernel declares f32 [64,16]"
shard_err sum "rank 0: tensor 'B': the ids checksum of the shard given is H; the layout S[(64,16):(16,1)] + R[2:1@gpuid] gives device 0 H (the shard given is no device's)"
shard_err drop "has 3 lines; the 2 devices' 2 tensor parameters need 4 (NAME DTYPE SHAPE ELEMS CHECKSUM each, device after device)"
# Runtime scalars in a mesh program (--arg): each rank gets the values
# after IN OUT REPS; a trip count and a float operand, two runs of one
# build, at 2 and 4 ranks; the same run with the last value changed on
# its way to the ranks (EDIT=arg) must fail the check (the values count).
kernel_scalars_axe "$tmp/scalars.axe"
run_ok "$tmp/scalars.axe" 2 --arg T=3 --arg v=0.5
run_ok "$tmp/scalars.axe" 4 -D P=4 --arg T=0,2 --arg v=1,-2
if EDIT=arg MPIRUN=$tmp/mpirun_edit "$AXE" run "$tmp/scalars.axe" --ranks 2 \
    --check --json --arg T=3 --arg v=0.5 >"$tmp/out" 2>"$tmp/err"; then
    bad "scalars: v changed on its way, yet the check passed: $(head -c 300 "$tmp/out")"
elif grep -q '"pass":false' "$tmp/out"; then
    ok
else
    bad "scalars: v changed: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
fi

# The wrapper itself changes nothing when told nothing.
if EDIT=none MPIRUN=$tmp/mpirun_edit "$AXE" run "$EX/allgather.axe" --ranks 2 \
    --check --json >"$tmp/out" 2>"$tmp/err" && grep -q '"pass":true' "$tmp/out"; then
    ok
else
    bad "shard list unedited: $(head -c 300 "$tmp/out" "$tmp/err")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
