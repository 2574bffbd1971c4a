#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The CUDA emulation (docs/compiler.md, "The CUDA emulation") through the
# CLI ($AXE_BIN): every `check_run`/`exact_run` of tests/compiler_kernels.sh
# whose kernel `axe compile --target cuda` accepts runs again with
# `--target cuda --emulate --check` (the same sizes, seeds and --arg
# values) and passes, "target":"cuda-emulated" in --json; a few also with
# $CXX -fsanitize=address,undefined (the fibers' ASan annotations), and
# an out-of-bounds write edited into one of them is ASan's error; the
# emulator's errors fail the run with their reason (a __syncthreads that
# half the block skips: a deadlock); races of cp.async and ldmatrix name
# the tensor and line, a memcpy chunk records every element; deleting any
# barrier not listed as redundant fails some run of its kernel (below);
# --emulate without --target cuda is a usage error; without --emulate,
# with no GPU, the run is skipped (exit 77, "skipped":"no GPU"). The runs
# go AXE_TEST_JOBS (default: nproc) at a time; each one's failure is
# printed at the end, in order. Skipped (77) without a C++ compiler. Last
# line: "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_need_compiler CXX c++ "C++ compiler"
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
kernel_counts
mkdir "$tmp/r"
jobs_max=${AXE_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
njob=0

# spawn FN ARGS...: FN ARGS... in the background (at most $jobs_max at
# once) as job number $njob; FN writes its verdict, "ok" or the failure,
# to the file $res (read by collect in job order).
spawn() {
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
        wait -n
    done
    njob=$((njob + 1))
    res=$tmp/r/$(printf '%05d' "$njob")
    echo "job $njob ($*) wrote no verdict" >"$res"
    "$@" >/dev/null 2>&1 &
}
# collect: wait for every job; count and print their verdicts.
collect() {
    local f
    wait
    for f in "$tmp"/r/*; do
        [ -e "$f" ] || continue
        if [ "$(head -1 "$f")" = "ok skipped" ]; then
            :
        elif [ "$(head -1 "$f")" = ok ]; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL: $(cat "$f")"
        fi
        rm -f "$f"
    done
}

# compile_args ARGS...: the -D and --schedule options among a run's ARGS.
compile_args() {
    local a=("$@") i
    cargs=()
    for ((i = 0; i < ${#a[@]}; i++)); do
        case ${a[$i]} in
        -D | --schedule) cargs+=("${a[$i]}" "${a[$((i + 1))]}") ;;
        esac
    done
}

# emu_run DIR FILE ARGS... (a job): the kernel compiles for cuda (else:
# "ok skipped", not counted) and `axe run --target cuda --emulate --check`
# passes; the verdict's second line is then DIR/FILE, its third the
# arguments (%q-quoted), for the mutations.
emu_run() {
    local dir=$1 f=$2 out=$res.out err=$res.err
    shift 2
    compile_args "$@"
    if ! (cd "$dir" && "$AXE" compile "$f" --target cuda "${cargs[@]}"); then
        echo "ok skipped" >"$res"
        return
    fi
    if (cd "$dir" && "$AXE" run "$f" --target cuda --emulate --check "$@") \
        >"$out" 2>"$err" &&
        grep -qE '^check passed|"pass":true' "$out" &&
        grep -qE 'target cuda-emulated|"target":"cuda-emulated"' "$out"; then
        printf 'ok\n%s\n%s\n' "$dir/$f" "$([ $# -gt 0 ] && printf '%q ' "$@")" >"$res"
    else
        echo "axe run $f --target cuda --emulate --check $* ($(cat "$out" "$err" | head -c 600))" >"$res"
    fi
    rm -f "$out" "$err"
}

# Every run of compiler_kernels.sh (in the folder its K names, set on a
# line of its own or before the run): continued lines joined (a trailing backslash;
# the lines of a $( ... ), by \001).
dir=$SRC/examples/kernels
while IFS= read -r line; do
    line=${line//$'\001'/$'\n'}
    case $line in
    K=*tests/kernels*) dir=$SRC/tests/kernels ;;
    K=*examples/kernels*) dir=$SRC/examples/kernels ;;
    *check_run\ * | *exact_run\ *)
        d=$dir
        case $line in
        *K=*tests/kernels*_run\ *) d=$SRC/tests/kernels ;;
        *K=*examples/kernels*_run\ *) d=$SRC/examples/kernels ;;
        esac
        line=${line#*_run }
        # replayed alone: a line reading a variable of compiler_kernels.sh
        # (a loop's) cannot be replayed: a failure naming it
        # shellcheck disable=SC2086
        if ! (eval "set -- $line") 2>/dev/null; then
            bad "compiler_kernels.sh run line cannot be replayed alone (write it out): $line"
            continue
        fi
        # shellcheck disable=SC2086
        eval "set -- $line"
        spawn emu_run "$d" "$@"
        ;;
    esac
done < <(awk '{
        if (!cont) {
            run = /^[ \t]*(CC="[^"]*" )?(K="[^"]*" )?(check|exact)_run /
            open = 0
        }
        line = $0
        open += gsub(/\(/, "(", line) - gsub(/\)/, ")", line)
        if (sub(/\\$/, "")) { cont = 1; printf "%s", $0; next }
        if (run && open > 0) { cont = 1; printf "%s\001", $0; next }
        print
        cont = 0
    }' "$SRC/tests/compiler_kernels.sh" |
    grep -E '^K=|^\s*(CC="[^"]*" )?(K="[^"]*" )?(check_run|exact_run) ')
wait
# runs[DIR/FILE]: the arguments of each passing run, one line a run.
declare -A runs=()
for f in "$tmp"/r/*; do
    if [ "$(head -1 "$f")" = "ok skipped" ]; then
        rm -f "$f"
    elif [ "$(head -1 "$f")" = ok ]; then
        runs[$(sed -n 2p "$f")]+="$(sed -n 3p "$f")"$'\n'
    fi
done
collect

# The barriers of a kernel, labelled (barriers.awk below), and del.sh,
# an AXE_RUN_EDIT that deletes the one labelled $AXE_EMU_DELETE.
cat >"$tmp/barriers.awk" <<'AWK'
# The barriers of the kernel code (after the first __global__), each
# labelled "op N/TEXT/K": the operator it follows ("op N (line L)"
# comments; "-" before the first), its comment's text (else the
# statement) and K, its number among the barriers of that operator and
# text. With del set: the file with the barrier labelled del deleted;
# else the labels, one a line.
/^__global__/ { on = 1 }
on && match($0, /\/\* op [0-9]+ \(line/) {
    s = substr($0, RSTART + 6)
    op = "op " substr(s, 1, index(s, " (") - 1)
}
on && match($0, /__syncthreads\(\);|axe_ptx_bar_sync\([^;]*\);|axe_ptx_cp_async_wait<[0-9]+>\(\);/) {
    stmt = substr($0, RSTART, RLENGTH)
    rest = substr($0, RSTART + RLENGTH)
    text = stmt
    if (match(rest, /\/\* .* \*\//))
        text = substr(rest, RSTART + 3, RLENGTH - 6)
    base = (op == "" ? "-" : op) "/" text
    label = base "/" (++seen[base])
    if (del == "")
        print label
    else if (label == del)
        $0 = substr($0, 1, index($0, stmt) - 1) "/* deleted */;" rest
}
del != "" { print }
AWK
cat >"$tmp/del.sh" <<DEL
#!/usr/bin/env bash
# del.sh FILE: FILE without the barrier labelled \$AXE_EMU_DELETE.
awk -v del="\$AXE_EMU_DELETE" -f "$tmp/barriers.awk" "\$1" >"\$1.m" &&
    mv "\$1.m" "\$1"
DEL
chmod +x "$tmp/del.sh"

# The fibers under ASan and UBSan (their stack switches annotated: without
# __sanitizer_start_switch_fiber ASan reports false stack overflows).
for f in softmax.axe gemm.axe transpose_swizzle.axe; do
    CXX="$CXX $sanitize" spawn emu_run "$SRC/examples/kernels" "$f"
done
CXX="$CXX $sanitize" spawn emu_run "$SRC/tests/kernels" sync_in_if.axe

# expect_fail PATTERN EDIT FILE ARGS... (a job): with the .cu edited by
# EDIT the emulated check fails, its output matching PATTERN (an ERE).
expect_fail() {
    local pat=$1 edit=$2 f=$3 out=$res.out err=$res.err
    shift 3
    if AXE_RUN_EDIT="$edit" "$AXE" run "$f" --target cuda --emulate --check "$@" \
        >"$out" 2>"$err"; then
        echo "$f edited by '$edit': the emulated check passed" >"$res"
    elif grep -qE -- "$pat" "$out" "$err"; then
        echo ok >"$res"
    else
        echo "$f edited by '$edit': no '$pat' ($(cat "$out" "$err" | head -c 600))" >"$res"
    fi
    rm -f "$out" "$err"
}
T=$SRC/tests/kernels
spawn expect_fail "deadlock: barrier 0: 32 of 128 threads arrived" \
    "sed -i 's|__syncthreads(); /\* sync \*/|if (ax_tid < 32) __syncthreads();|'" \
    "$T/producer_consumer.axe"
# tf32 fragments not converted by cvt.rna.tf32.f32 (their bits passed
# as they are): the emulated mma reads the tf32 bits, which truncates,
# and the check against the reference's rounding fails.
cat >"$tmp/no_cvt.sh" <<'EOS'
sed -i 's/axe_ptx_cvt_rna_tf32(/[](float ax_f) { uint32_t ax_u; memcpy(\&ax_u, \&ax_f, 4); return ax_u; }(/g' "$1"
EOS
spawn expect_fail "check FAILED" "sh $tmp/no_cvt.sh" "$T/gemm_tf32.axe"
# The sanitizers are on: a write before a cudaMalloc'd tensor is ASan's
# heap-buffer-overflow.
CXX="$CXX $sanitize" spawn expect_fail "AddressSanitizer: heap-buffer-overflow" \
    "sed -i '/^__global__/{n;s|\$| if (threadIdx.x == 0) t_Y[-1] = 0;|}'" \
    "$SRC/examples/kernels/softmax.axe"
# A race of cp.async or ldmatrix names the tensor and the line, like any
# other: gemm_mma without the barrier after its gemm (the next step's
# cp.async of As, line 25, overwrites what other warps' ldmatrix, line 28,
# still read).
spawn expect_fail "race on As at offset [0-9]+: read by thread [0-9]+ \(line 28\), written by thread [0-9]+ \(line 25\)" \
    "AXE_EMU_DELETE='op 3/sync/1' $tmp/del.sh" "$SRC/examples/kernels/gemm_mma.axe"
# Every element of a memcpy chunk (2 x i8: no vector type) is recorded:
# warps' copy into B with lane 1's chunk moved up one element overlaps
# the first element of lane 2's with its second.
spawn expect_fail "race on B at offset [0-9]+: written by thread [0-9]+ \(line 14\), written by thread [0-9]+ \(line 14\)" \
    "sed -i 's|ax_t1 \* 2L + ax_i2 \* 1L, 14)|ax_t1 * 2L + ax_i2 * 1L + (ax_t1 == 1L), 14)|'" \
    "$T/warps.axe"
# A pipeline's wait_group S - 1 raised to S: tile k may still be in
# flight when the gemm (the per-thread copy) reads it, which the race
# detector reports (a read of a pending cp.async destination).
spawn expect_fail "racing accesses in all" \
    "sed -i 's|axe_ptx_cp_async_wait<1>();|axe_ptx_cp_async_wait<2>();|'" \
    "$SRC/examples/kernels/gemm_pipelined.axe"
spawn expect_fail "racing accesses in all" \
    "sed -i 's|axe_ptx_cp_async_wait<2>();|axe_ptx_cp_async_wait<3>();|'" \
    "$SRC/examples/kernels/gemm_pipelined.axe" -D STAGES=3 -D K=160
spawn expect_fail "racing accesses in all" \
    "sed -i 's|axe_ptx_cp_async_wait<2>();|axe_ptx_cp_async_wait<3>();|'" \
    "$T/pipeline_regions.axe" --arg T=5
collect

# The mutation test: each barrier of the kernel code (__syncthreads,
# bar.sync, cp.async.wait_group) deleted in turn from the .cu of every
# kernel that passed above makes the emulated check fail (the race
# detector, a wrong value or a cp.async never waited for) in at least one
# of the kernel's passing runs (a barrier may be needed only at some
# sizes: one that a single K step leaves without work, say). A barrier is
# named by the operator it follows, its comment and its number among the
# barriers of that operator and comment ("op 5/the tree step is
# complete/2"): the same barrier in every run's schedules and sizes, and
# across emitter changes that add or remove other barriers.

# The barriers whose deletion no run of the kernel detects, FILE:LABEL
# and the reason each is redundant (checked: a listed barrier whose
# deletion fails a run fails the test, so the list stays true). Each was
# reviewed against the .cu: none hides a race the emulation misses.
one="threads(1): one thread, nothing for a barrier to order"
own_zero="the zeroing gives element z to thread z (fewer elements than
    threads), and before the kernel's first sync only thread z touches
    element z"
split="mixed_split's operators share one round-robin split: every element
    stays with one thread (its header)"
last_step="after the tree's last step (2 -> 1) the reduce.split reading the
    result of row r runs in thread r, the thread of row r's last step"
step_32="the 3 -> 2 step moves one element of row r (0 <- 0 + 2) in thread
    r and the 2 -> 1 step reads elements 0 and 1 in thread r: element 1
    was last written before the barrier of the 6 -> 3 step"
scratch_loop="the scratch is written again only in the next iteration of the
    loop, after the syncs of the loop body"
slice_scratch="its reduce runs under if (j == 1) in the last of two
    iterations: no later write of the scratch"
cp_later="the cp.async.wait_group 0 of a later copy completes this group
    too, before the sync; the copies between write other elements (other
    tensors, other rows) and no source"
q_pipe="the pipeline's cp.async.wait_group 1 (STAGES - 1) before the loop's
    first sync completes every group but the most recent, the Q tile's
    among them, and nothing between reads Qs"
same_plan="vec_bank's two copies take the same plan (the order the bank
    model picks): each thread reads back the chunks it wrote itself
    (compiler_races.sh lists it as unneeded too)"
declare -A survivors=(
    ["vec_bank.axe:op 0/sync/1"]=$same_plan
    ["flash_attention.axe:op 6/the cp.async copies above are complete/1"]=$q_pipe
    ["gemm_blocked.axe:-/shared memory is zero/1"]=$one
    ["swzov.axe:-/shared memory is zero/1"]=$one
    ["swzov2.axe:-/shared memory is zero/1"]=$one
    ["gather_index.axe:-/shared memory is zero/1"]=$own_zero
    ["masks.axe:-/shared memory is zero/1"]=$own_zero
    ["mixed_split.axe:op 2/sync/1"]=$split
    ["mixed_split.axe:op 3/sync/1"]=$split
    ["mixed_split.axe:op 6/sync/1"]=$split
    ["row_reduce.axe:op 1/the tree step is complete/11"]=$last_step
    ["row_reduce.axe:op 2/the tree step is complete/11"]=$last_step
    ["reduce_tree.axe:op 7/the tree step is complete/2"]=$last_step
    ["reduce_tree.axe:op 10/the tree step is complete/2"]=$last_step
    ["wg_reduce.axe:op 1/the tree step is complete (the warpgroup's named barrier)/6"]=$last_step
    ["wg_reduce.axe:op 2/the tree step is complete (the warpgroup's named barrier)/5"]=$step_32
    ["wg_reduce.axe:op 1/the scratch is read: the next iteration may write it (the warpgroup's named barrier)/1"]=$scratch_loop
    ["wg_reduce.axe:op 2/the scratch is read: the next iteration may write it (the warpgroup's named barrier)/1"]=$scratch_loop
    ["slice_loops.axe:op 11/the scratch is read: the next iteration may write it/1"]=$slice_scratch
    ["swizzle_raw.axe:op 0/the cp.async copies above are complete/1"]=$cp_later
    ["gemm_tf32.axe:op 8/the cp.async copies above are complete/1"]=$cp_later
    ["tf32_round.axe:-/shared memory is zero/1"]=$own_zero
)

# mutant KEY LABEL (a job): the barrier LABEL deleted fails some run of
# kernel KEY (DIR/FILE), or every run passes if it is listed above.
mutant() {
    local key=$1 label=$2 dir f line out=$res.out err=$res.err
    dir=$(dirname "$key")
    f=$(basename "$key")
    while IFS= read -r line; do
        eval "set -- $line"
        if ! (cd "$dir" && AXE_EMU_DELETE="$label" AXE_RUN_EDIT="$tmp/del.sh" \
            "$AXE" run "$f" --target cuda --emulate --check "$@") \
            >"$out" 2>"$err" &&
            grep -qE '^check FAILED|"pass":false|emulation: ' "$out" "$err"; then
            if [ -n "${survivors[$f:$label]:-}" ]; then
                echo "$f: barrier '$label' is listed as redundant, but deleting it fails: $(cat "$out" "$err" | head -c 300)" >"$res"
            else
                echo ok >"$res"
            fi
            rm -f "$out" "$err"
            return
        fi
    done <<<"${runs[$key]%$'\n'}"
    if [ -n "${survivors[$f:$label]:-}" ]; then
        echo ok >"$res"
    else
        echo "$f: with barrier '$label' deleted every emulated check passed (or failed otherwise: $(cat "$out" "$err" | head -c 300))" >"$res"
    fi
    rm -f "$out" "$err"
}
# The asan preset sets AXE_EMU_MUTANTS=0: the mutants test the race
# detector, which a second round under the sanitizers would not test
# again (and it doubles the suite's longest test).
nmut=0
if [ "${AXE_EMU_MUTANTS:-1}" = 0 ]; then
    echo "barrier mutants skipped (AXE_EMU_MUTANTS=0)"
else
    while IFS= read -r key; do
        eval "set -- $(head -1 <<<"${runs[$key]}")"
        compile_args "$@"
        while IFS= read -r label; do
            nmut=$((nmut + 1))
            spawn mutant "$key" "$label"
        done < <( (cd "$(dirname "$key")" && "$AXE" compile "$(basename "$key")" \
            --target cuda "${cargs[@]}" 2>/dev/null) | awk -f "$tmp/barriers.awk")
    done < <(printf '%s\n' "${!runs[@]}" | sort)
    collect
    if [ "$nmut" -lt 10 ]; then
        bad "only $nmut barriers were mutated"
    fi
fi

# Usage and the GPU path.
"$AXE" run "$T/producer_consumer.axe" --emulate >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -qF -- "--emulate runs the CUDA target on the CPU" "$tmp/err"; then
    pass=$((pass + 1))
else
    bad "--emulate without --target cuda: exit $rc ($(cat "$tmp/err"))"
fi
if [ ! -e /dev/nvidia0 ] && [ ! -e /dev/nvidiactl ]; then
    "$AXE" run "$T/producer_consumer.axe" --target cuda --check --json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = 77 ] && grep -qF '"pass":null,"skipped":"no GPU"' "$tmp/out"; then
        pass=$((pass + 1))
    else
        bad "--target cuda without a GPU: exit $rc ($(cat "$tmp/out" "$tmp/err"))"
    fi
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
