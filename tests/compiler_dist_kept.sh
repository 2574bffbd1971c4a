#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Device loops and ifs kept (docs/compiler.md, "Device operators in
# loops and ifs"; issue 14 §2): a loop around device operators whose trip
# count is a runtime scalar is kept, not unrolled, and an if around them
# on runtime scalars and kept loops' variables is kept, not folded.
# Through the CLI ($AXE_BIN):
# - tests/kernels/dist/kept/kept_loop.axe (a kept loop around a device copy,
#   its variable in region starts and an if inside segments) and
#   kept_matmul.axe (a kept K-chunk loop around a device gemm, inside an
#   unrolled loop) and kept_if.axe (ifs on a scalar and on the kept
#   loop's variable around device operators, with and without else) run
#   exactly (max_abs_err 0) at 2, 4 and 8 ranks on
#   --target mpi and on --target cuda --emulate (the NCCL emulation), at
#   two or three values of the scalars (a trip count of 0 among them,
#   each branch taken);
# - --explain names the kept loop ("k kept: range(nk)"), the generated C
#   loops over v_k around the segments' launches and the device operator;
# - the same kernel with the trip count a param (-D) is unrolled ("k =
#   0") and gives the same bytes (the ranks' OUT file, through an mpirun
#   wrapper) as the kept one at that count, from the same IN; so does
#   kept_if.axe with mode a param (its ifs folded);
# - the race detector covers the segments inside a kept loop: the needed
#   sync of kept_loop.axe deleted makes --check fail with a race naming
#   the kept loop;
# - kept_start.axe's device copies have region starts on the kept loop's
#   variable (k % 8, (k + 3) % 8, k % 4 * 2), and k is a scalar operand
#   (i32 and f32 adds), and starts k, k + 4 under if (k < 4): one plan
#   per value of the starts, exact
#   at 2, 4 and 8 ranks on both targets (nk = 0 and past a period),
#   --explain numbers the plans, the constant twin gives the same bytes,
#   its sync deleted gives a race naming the kept loop;
# - a user's kept if around a k % 8 start that does not repeat every 8
#   values (k >= 6, k != 3, k > 10) keeps all 8 plans: the same bytes as
#   the constant twin at nk = 14 (mpi; k >= 6 on cuda --emulate too), and
#   two long starts alike in their first 63 characters take their own
#   values; an if that repeats with k but not every 8 values (k % 6 ==
#   0, k % 12 < 3) is tested over the lcm of the periods: only the plans
#   of the values it admits (4, 6), the same bytes as the constant twins
#   past the lcm (nk = 26; mpi, cuda --emulate).
# The refusals are compiler_errors.sh's rows. OpenMPI is installed
# through scripts/ensure_tools.sh when missing; skipped (77) when it
# cannot be. Last line: "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_mpi_start
kernel_counts
KD=$SRC/tests/kernels/dist/kept

for target in mpi "cuda --emulate"; do
    for P in 2 4 8; do
        # shellcheck disable=SC2086
        kernel_exact_run "$KD/kept_loop.axe" -D P=$P --ranks $P \
            --target $target --arg nk=0,5 --arg m=2
        K=$((P * 8)) # KS = K / P / KC = 2 chunks per device
        # shellcheck disable=SC2086
        kernel_exact_run "$KD/kept_matmul.axe" -D P=$P -D K=$K --ranks $P \
            --target $target --arg nk=0,3
        # shellcheck disable=SC2086
        kernel_exact_run "$KD/kept_if.axe" -D P=$P --ranks $P \
            --target $target --arg nk=0,4,3 --arg n=2,2,5 --arg mode=0,1,2
        # shellcheck disable=SC2086
        kernel_exact_run "$KD/kept_start.axe" -D P=$P --ranks $P \
            --target $target --arg nk=0,11
    done
done
# nk=0 and nk=5 above print one verdict line each and the total: every
# line exact (kernel_exact_run matches the total; the runs too here).
if "$AXE" run "$KD/kept_loop.axe" --ranks 2 --check --arg nk=0,5 \
    --arg m=2 >"$tmp/out" 2>&1 &&
    [ "$(grep -c 'check passed: max_abs_err 0, max_rel_err 0$' "$tmp/out")" = 3 ]; then
    ok
else
    bad "kept_loop nk=0,5: $(head -c 400 "$tmp/out")"
fi

# The rank's C compiles with -Wall -Werror (compiler_mpi.sh's test of the
# other mesh kernels; those in kept/ take runtime scalars, which its
# loops over tests/kernels/dist/*.axe do not give; compiler_nccl_build.sh
# builds their .cu with nvcc).
for f in "$KD"/*.axe; do
    if "$AXE" compile "$f" --target mpi -o "$tmp/w.c" 2>"$tmp/err" &&
        mpicc -std=c11 -O1 -Wall -Werror -DAXE_KERNEL_MAIN \
            -I"$SRC/src/compiler/backend/mpi" -c "$tmp/w.c" -o "$tmp/w.o" \
            2>"$tmp/err"; then
        ok
    else
        bad "$(basename "$f") --target mpi with -Wall -Werror: $(head -c 300 "$tmp/err")"
    fi
done

# --explain and the generated C.
if "$AXE" compile "$KD/kept_loop.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -q '^device op 0 (line 22, k kept: range(nk)): device copy(Y, X)' "$tmp/ex" &&
    "$AXE" compile "$KD/kept_loop.axe" --target mpi -o "$tmp/k.c" 2>"$tmp/err" &&
    grep -q '^static long v_k;$' "$tmp/k.c" &&
    grep -q '^    for (v_k = 0; v_k < s_nk; ++v_k) { /\* kept device loop \*/$' "$tmp/k.c" &&
    grep -q '^        ax_mpi_devop(0, 22, ' "$tmp/k.c" &&
    grep -q '{ /\* op 1 (line 23, k kept: range(nk)): cta add -- ' "$tmp/k.c"; then
    ok
else
    bad "kept_loop --explain / C: $(head -c 600 "$tmp/ex" "$tmp/err")"
fi

# The constant twin: nk a param, unrolled; same bytes out from the same
# IN. The wrapper keeps each run's IN and OUT (the last run's: --check
# runs thread orders after it, each overwriting them).
cat >"$tmp/mpirun_keep" <<'WRAP'
#!/usr/bin/env bash
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do # --shards LIST IN OUT REPS ...
    if [ "${args[i]}" = --shards ]; then
        in=${args[i + 2]} out=${args[i + 3]}
    fi
done
mpirun "$@"
rc=$?
cp "$in" "$KEEP.in" && cp "$out" "$KEEP.out"
exit $rc
WRAP
chmod +x "$tmp/mpirun_keep"
sed -e 's/^kernel dist_kept_loop(nk: i32, /kernel dist_kept_loop(/' \
    -e 's/range(nk)/range(NK)/' -e 's/^param P = 2;$/param P = 2;\nparam NK = 2;/' \
    "$KD/kept_loop.axe" >"$tmp/const.axe"
for P in 2 4; do
    for NK in 1 3; do
        if KEEP=$tmp/kept MPIRUN=$tmp/mpirun_keep "$AXE" run "$KD/kept_loop.axe" \
            -D P=$P --ranks $P --arg nk=$NK --arg m=1 >"$tmp/o1" 2>&1 &&
            KEEP=$tmp/const MPIRUN=$tmp/mpirun_keep "$AXE" run "$tmp/const.axe" \
                -D P=$P -D NK=$NK --ranks $P --arg m=1 >"$tmp/o2" 2>&1 &&
            [ -s "$tmp/kept.out" ] && cmp -s "$tmp/kept.in" "$tmp/const.in" &&
            cmp -s "$tmp/kept.out" "$tmp/const.out" &&
            ! cmp -s "$tmp/kept.in" "$tmp/kept.out" &&
            "$AXE" compile "$tmp/const.axe" -D P=$P -D NK=$NK --explain \
                >"$tmp/ex" 2>&1 &&
            grep -q "^device op $((NK - 1)) (line 23, k = $((NK - 1))): device copy" "$tmp/ex" &&
            ! grep -q kept "$tmp/ex"; then
            ok
        else
            bad "constant twin at P=$P NK=$NK: $(head -c 400 "$tmp/o1" "$tmp/o2")"
        fi
    done
done

# kept_if with mode a param: the ifs on it folded, the same bytes.
sed -e 's/, mode: i32,$/,/' -e 's/^param P = 2;$/param P = 2;\nparam MODE = 1;/' \
    -e 's/(mode /(MODE /' "$KD/kept_if.axe" >"$tmp/const_if.axe"
for MODE in 0 1 2; do
    if KEEP=$tmp/kept MPIRUN=$tmp/mpirun_keep "$AXE" run "$KD/kept_if.axe" \
        --ranks 2 --arg nk=3 --arg n=2 --arg mode=$MODE >"$tmp/o1" 2>&1 &&
        KEEP=$tmp/const MPIRUN=$tmp/mpirun_keep "$AXE" run "$tmp/const_if.axe" \
            -D MODE=$MODE --ranks 2 --arg nk=3 --arg n=2 >"$tmp/o2" 2>&1 &&
        [ -s "$tmp/kept.out" ] && cmp -s "$tmp/kept.in" "$tmp/const.in" &&
        cmp -s "$tmp/kept.out" "$tmp/const.out" &&
        "$AXE" compile "$tmp/const_if.axe" -D MODE=$MODE --explain \
            >"$tmp/ex" 2>&1 && ! grep -q "if (MODE" "$tmp/ex" &&
        grep -q "if (k < n) kept" "$tmp/ex"; then
        ok
    else
        bad "kept_if's constant twin at MODE=$MODE: $(head -c 400 "$tmp/o1" "$tmp/o2" "$tmp/ex")"
    fi
done

# Region starts on the kept loop's variable (kept_start.axe): one plan
# per value of the starts, each under a kept if on the start ("plan 4 of
# 8"; k and k + 4 bounded by the user's if (k < 4): 4 plans), 16 device
# operators in all; the rank's C tests the start.
if "$AXE" compile "$KD/kept_start.axe" --explain >"$tmp/ex" 2>&1 &&
    grep -q '^device op 3 (line 30, k kept: range(nk), if (k % 8 == 3) kept: plan 4 of 8 for the starts): device copy(Y\[3:4, 0:8\], X\[6:7, 0:8\])$' "$tmp/ex" &&
    grep -q '^device op 9 (line 34, k kept: range(nk), if (k % 4 \* 2 == 2) kept: plan 2 of 4 for the starts): device copy(Z\[0:8, 2:4\], Y\[0:8, 2:4\])$' "$tmp/ex" &&
    grep -q '^device op 15 (line 37, k kept: range(nk), if (k < 4) kept, if (k + 4 == 7) kept: plan 4 of 4 for the starts): device copy(C\[7:8, 0:8\], X\[3:4, 0:8\])$' "$tmp/ex" &&
    [ "$(grep -c '^device op' "$tmp/ex")" = 16 ] &&
    "$AXE" compile "$KD/kept_start.axe" --target mpi -o "$tmp/s.c" 2>"$tmp/err" &&
    grep -q '^        if (AXE_FMOD(v_k, 8L) == 7L) { /\* kept device if \*/$' "$tmp/s.c" &&
    grep -q 'ax_s32(((uint32_t)t_X\[.*\] + (uint32_t)v_k))' "$tmp/s.c" &&
    grep -q "scalar operand 2: kept device loop variable 'k' (i32) as f32" "$tmp/ex"; then
    ok
else
    bad "kept_start --explain / C: $(head -c 600 "$tmp/ex" "$tmp/err")"
fi
# Only the runs holding more than syncs are launched: kept_start.axe's
# are the loop body's three (its two adds before the first copy; the add,
# sync and reduce between the copies; the sub after them), each once per
# iteration outside the plans' ifs, none before or after the loop. The
# rank's C has their 3 CTA functions and 3 launches, the .cu 3 launches,
# all in the loop's body (8 spaces: the mpi launch's grid loops' first).
if "$AXE" compile "$KD/kept_start.axe" --target mpi -o "$tmp/s.c" 2>"$tmp/err" &&
    "$AXE" compile "$KD/kept_start.axe" --target cuda -o "$tmp/s.cu" 2>"$tmp/err" &&
    [ "$(grep -c '^static void k_dist_kept_start_cta_s[0-9]*(' "$tmp/s.c")" = 3 ] &&
    [ "$(grep -c 'k_dist_kept_start_cta_s[0-9]*(t_X' "$tmp/s.c")" = 3 ] &&
    [ "$(grep -c '^        for (bz = 0; ' "$tmp/s.c")" = 3 ] &&
    [ "$(grep -c 'ax_rc = ax_seg_launch_dist_kept_start(' "$tmp/s.cu")" = 3 ] &&
    [ "$(grep -c '^        ax_rc = ax_seg_launch_dist_kept_start(' "$tmp/s.cu")" = 3 ]; then
    ok
else
    bad "kept_start's launches: $(head -c 400 "$tmp/err")"
fi
# Its constant twin (nk a param: unrolled, each start a constant): the
# same bytes from the same IN, past a full period of k % 8.
sed -e 's/^kernel dist_kept_start(nk: i32,/kernel dist_kept_start(/' \
    -e 's/range(nk)/range(NK)/' -e 's/^param P = 2;$/param P = 2;\nparam NK = 2;/' \
    "$KD/kept_start.axe" >"$tmp/const_start.axe"
for P in 2 4; do
    for NK in 3 10; do
        if KEEP=$tmp/kept MPIRUN=$tmp/mpirun_keep "$AXE" run "$KD/kept_start.axe" \
            -D P=$P --ranks $P --arg nk=$NK >"$tmp/o1" 2>&1 &&
            KEEP=$tmp/const MPIRUN=$tmp/mpirun_keep "$AXE" run "$tmp/const_start.axe" \
                -D P=$P -D NK=$NK --ranks $P >"$tmp/o2" 2>&1 &&
            [ -s "$tmp/kept.out" ] && cmp -s "$tmp/kept.in" "$tmp/const.in" &&
            cmp -s "$tmp/kept.out" "$tmp/const.out" &&
            ! cmp -s "$tmp/kept.in" "$tmp/kept.out"; then
            ok
        else
            bad "kept_start's constant twin at P=$P NK=$NK: $(head -c 400 "$tmp/o1" "$tmp/o2")"
        fi
    done
done
# A user's kept if around a `k % 8` start that does not repeat every 8
# values of k (k >= 6, k != 3, k > 10) is not tested on the residues of
# k % 8 (that dropped k = 8..13, k = 11, every value): all 8 plans are
# made and the if picks at run time. Each kernel against its constant
# twin (nk a param: unrolled, the if folded) past the period (NK = 14) on
# mpi, k >= 6 on cuda --emulate too; --explain lists 8 plans for k >= 6.
# Two starts whose first 63 characters agree (20 k's, + 1 and + 2) are
# two expressions: X's start is 2 or 6 where Y's is 1 or 5.
kk=$(printf 'k + %.0s' $(seq 19))k
cat >"$tmp/if_start.axe" <<'AXE'
param P = 2;
mesh(P);
kernel dist_if_start(nk: i32,
                     X: i32[8,8] layout S[(P,8 / P,8):(1@gpuid,8,1)],
                     Y: i32[8,8] layout S[(8,8):(8,1)] + R[P:1@gpuid])
    grid(1) threads(32) {
    for k in range(nk) {
        cta add(X, X, X);
        cta add(X, X, k);
        if (COND) {
            device copy(Y[k % 8:+1, 0:+8], X[(k + 3) % 8:+1, 0:+8]);
        }
    }
}
AXE
sed -e "s/Y\[k % 8:+1, 0:+8\], X\[(k + 3) % 8/Y[($kk + 1) % 8:+1, 0:+8], X[($kk + 2) % 8/" \
    "$tmp/if_start.axe" >"$tmp/long_start.axe"
sed 's/^        if (COND) {$/        if (k >= 0) {/' "$tmp/long_start.axe" >"$tmp/if_k.axe"
if "$AXE" compile "$tmp/if_k.axe" --explain >"$tmp/ex" 2>&1 &&
    [ "$(grep -c '^device op' "$tmp/ex")" = 2 ] &&
    grep -q '^device op 0 (line 11, k kept: range(nk), if (k >= 0) kept, if ((k + k + [k +]*k +\.\.\. == 1) kept: plan 1 of 2 for the starts): device copy(Y\[1:2, 0:8\], X\[2:3, 0:8\])$' "$tmp/ex" &&
    grep -q '^device op 1 (.* == 5) kept: plan 2 of 2 for the starts): device copy(Y\[5:6, 0:8\], X\[6:7, 0:8\])$' "$tmp/ex" &&
    sed 's/^        if (COND) {$/        if (k >= 6) {/' "$tmp/if_start.axe" >"$tmp/if_k.axe" &&
    "$AXE" compile "$tmp/if_k.axe" --explain >"$tmp/ex" 2>&1 &&
    [ "$(grep -c '^device op' "$tmp/ex")" = 8 ] &&
    grep -q '^device op 6 (line 11, k kept: range(nk), if (k >= 6) kept, if (k % 8 == 6) kept: plan 7 of 8 for the starts): device copy(Y\[6:7, 0:8\], X\[1:2, 0:8\])$' "$tmp/ex"; then
    ok
else
    bad "kept if around a k % 8 start / long starts, --explain: $(head -c 600 "$tmp/ex")"
fi
# An if that repeats with k but not every 8 values (k % 6 == 0, k % 12 <
# 3) is tested over the lcm of the periods (24): only the plans of the
# values it admits (k = 0, 6, 12, 18: k % 8 = 0, 6, 4, 2; k % 12 < 3:
# six), not all 8; against the constant twins past the lcm (NK = 26).
for row in "k % 6 == 0:4:0 6 4 2" "k % 12 < 3:6:0 1 2 4 5 6"; do
    IFS=: read -r cond n vals <<<"$row"
    sed "s/^        if (COND) {$/        if ($cond) {/" "$tmp/if_start.axe" >"$tmp/if_k.axe"
    if "$AXE" compile "$tmp/if_k.axe" --explain >"$tmp/ex" 2>&1 &&
        [ "$(grep -c '^device op' "$tmp/ex")" = "$n" ] &&
        [ "$(sed -n 's/^device op [0-9]* (.*, if (k % 8 == \([0-9]\)) kept: plan [0-9] of '"$n"' for the starts): device copy.*/\1/p' "$tmp/ex" | tr '\n' ' ')" = "$vals " ]; then
        ok
    else
        bad "if ($cond) around a k % 8 start: $n plans ($vals) in --explain: $(head -c 600 "$tmp/ex")"
    fi
done
for row in "k >= 6:mpi" "k >= 6:cuda --emulate" "k != 3:mpi" "k > 10:mpi" \
    "k >= 0:mpi:long" "k % 6 == 0:mpi::26" "k % 12 < 3:cuda --emulate::26"; do
    IFS=: read -r cond target long nk <<<"$row"
    nk=${nk:-14}
    src=$tmp/if_start.axe
    [ -n "$long" ] && src=$tmp/long_start.axe
    sed "s/^        if (COND) {$/        if ($cond) {/" "$src" >"$tmp/if_k.axe"
    sed -e 's/^kernel dist_if_start(nk: i32,/kernel dist_if_start(/' \
        -e 's/range(nk)/range(NK)/' -e 's/^param P = 2;$/param P = 2;\nparam NK = 2;/' \
        "$tmp/if_k.axe" >"$tmp/if_c.axe"
    rm -f "$tmp/kept.out" "$tmp/const.out"
    # shellcheck disable=SC2086
    if KEEP=$tmp/kept MPIRUN=$tmp/mpirun_keep "$AXE" run "$tmp/if_k.axe" \
        --target $target --ranks 2 --arg nk=$nk >"$tmp/o1" 2>&1 &&
        KEEP=$tmp/const MPIRUN=$tmp/mpirun_keep "$AXE" run "$tmp/if_c.axe" \
            --target $target -D NK=$nk --ranks 2 >"$tmp/o2" 2>&1 &&
        [ -s "$tmp/kept.out" ] && cmp -s "$tmp/kept.in" "$tmp/const.in" &&
        cmp -s "$tmp/kept.out" "$tmp/const.out" &&
        ! cmp -s "$tmp/kept.in" "$tmp/kept.out"; then
        ok
    else
        bad "if ($cond) around region starts on k${long:+ (the long starts)}, constant twin on $target at NK=$nk: $(head -c 400 "$tmp/o1" "$tmp/o2")"
    fi
done
sed 's/^        sync;$//' "$KD/kept_start.axe" >"$tmp/norace_start.axe"
if ! cmp -s "$KD/kept_start.axe" "$tmp/norace_start.axe" &&
    ! "$AXE" run "$tmp/norace_start.axe" --ranks 2 --check --arg nk=3 \
        >"$tmp/out" 2>&1 &&
    grep -q "^race on C\[[0-9],[0-9]\] on device [01]: written by thread [0-9]* (line 31, k kept: range(nk)), read by thread [0-9]* (line 33, k kept: range(nk)), no sync between" "$tmp/out"; then
    ok
else
    bad "kept_start without its sync: $(head -c 600 "$tmp/out")"
fi

# Races in a kept loop's segments: the sync deleted.
sed 's/^        sync;$//' "$KD/kept_loop.axe" >"$tmp/norace.axe"
if ! cmp -s "$KD/kept_loop.axe" "$tmp/norace.axe" &&
    ! "$AXE" run "$tmp/norace.axe" --ranks 2 --check --arg nk=3 --arg m=1 \
        >"$tmp/out" 2>&1 &&
    grep -q "^race on C\[[0-9],[0-9]\] on device [01]: written by thread [0-9]* (line 2[35], k kept: range(nk)), read by thread [0-9]* (line 29, k kept: range(nk)), no sync between" "$tmp/out"; then
    ok
else
    bad "kept_loop without its sync: $(head -c 600 "$tmp/out")"
fi

# A loop note longer than the race report's field (AXE_RACE_ITER_MAX,
# 64 bytes with its NUL) ends in "..." instead of being cut silently:
# the kept loop's variable renamed to 30 letters inside an unrolled loop
# of another 30-letter variable make the note "<j x30> = 0, <k x30> kept:
# range(nk)" 83 bytes; the report keeps 60 of them and "...".
lj=jjjjjjjjjjjjjjjjjjjjjjjjjjjjjj
lk=kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk
sed -e "s/\bk\b/$lk/g" -e "s/^    for /    for $lj in range(1) { for /" \
    -e 's/^}$/} }/' "$tmp/norace.axe" >"$tmp/norace_long.axe"
if ! "$AXE" run "$tmp/norace_long.axe" --ranks 2 --check --arg nk=3 \
    --arg m=1 >"$tmp/out" 2>&1 &&
    grep -q "^race on C\[[0-9],[0-9]\] on device [01]: written by thread [0-9]* (line 2[35], $lj = 0, ${lk%??????}\.\.\.), read by" "$tmp/out"; then
    ok
else
    bad "kept_loop's race with a long loop note: $(head -c 600 "$tmp/out")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
