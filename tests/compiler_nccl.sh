#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The NCCL path of --target cuda on the CPU (docs/compiler.md, "The NCCL
# path"): the NCCL emulation (src/compiler/backend/cuda/compiler_nccl_emu.h)
# against NCCL's documented semantics (tests/mpi/nccl_emu_check.cc at 1,
# 2, 3, 4 and 8 ranks); through the CLI ($AXE_BIN), every example of
# examples/kernels/dist/ at --ranks 2, 4 and 8 (-D P=N; those with a
# device gemm at 1 rank too) and every kernel of tests/kernels/dist/ at
# its mesh's size pass `axe run --target cuda --emulate --ranks N --check`
# (the emitted .cu under the CUDA emulation, its NCCL calls over MPI) with
# no race, those of integers only or with a device reduce or gemm exactly
# (max_abs_err 0: float sums take the runtime's ordered form, the
# reference's slice order; -DAXE_NCCL_UNORDERED opts out, checked below;
# a device gemm of f16/bf16 A and B runs on tensor cores, within the
# check's max(1e-05, 2 K eps_f32) relative bound, with its own rows and
# mutations below), and the NCCL call each
# device operator takes (AXE_NCCL_TRACE; a device gemm's copy of an
# operand first too) is one --explain allows; mutations of the NCCL
# runtime's calls (a count, an offset, a root, a communicator, the ordered
# sum's fold and gather; its slice order reversed breaks exactness) and of a
# device gemm's kernel and runner in the .cu (AXE_RUN_EDIT) fail the
# check or the run with the operator named; the .cu's structure
# (segments, one runtime call per device operator, a device gemm's
# kernel and runner); runtime scalars (--arg) reach every rank's
# launches; --bench times a mesh program (the slowest rank's seconds); a
# GPU run without a GPU skips (77). OpenMPI is installed through
# scripts/ensure_tools.sh when missing; skipped (77) when it cannot be.
# nvcc builds are tests/compiler_nccl_build.sh's. Last line: "N passed, N
# failed".
set -u

# shellcheck disable=SC2034 # (read by kernel_lib.sh)
KERNEL_AXE_OPTIONAL=1
# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_mpi_start
kernel_counts
CXX=${CXX:-c++}

# The emulation against NCCL's semantics.
# shellcheck disable=SC2046 # mpicc's flags are words
if "$CXX" -std=c++17 -O1 -g -Wall -Wextra -Werror -DAXE_CUDA_EMULATE \
    -I"$SRC/src/compiler/backend/cuda" $(mpicc --showme:compile) \
    "$SRC/tests/mpi/nccl_emu_check.cc" -o "$tmp/emu" $(mpicc --showme:link) \
    2>"$tmp/err"; then
    kernel_rank_runs "NCCL emulation" "$tmp/emu" \
        "nccl emulation: [0-9]* checks at %n ranks" 1 2 3 4 8
else
    bad "c++ nccl_emu_check.cc: $(head -5 "$tmp/err")"
fi

kernel_cli_or_finish
EX=$SRC/examples/kernels/dist

# dargs ARGS...: the -D pairs of ARGS (what `axe compile` takes of a
# run's arguments) into the array "dargs".
dargs() {
    local a
    dargs=()
    for a in "$@"; do
        [ "${#dargs[@]}" -gt 0 ] && [ "${dargs[-1]}" = -D ] && { dargs+=("$a"); continue; }
        [ "$a" = -D ] && dargs+=("$a")
    done
}

# The NCCL calls --explain allows for device operator K of FILE ARGS...
# (K "N copy A", "N copy B": device gemm N's copy of that operand
# first), one per line: the collective, "ncclSend/ncclRecv" or "local";
# a conditional line ("NCCL ncclBroadcast when each device's piece is one
# contiguous run in rank order ..., else grouped ncclSend/ncclRecv")
# allows its collective and, only in a kernel whose pieces are not
# contiguous (a line "# axe nccl: strided pieces", bcast_strided.axe),
# ncclSend/ncclRecv as well: every other kernel with such a line must
# run the collective.
explained() {
    local k=$1 f=$2 what="" op strided=0
    shift 2
    op=${k%% copy *}
    [ "$op" = "$k" ] || what="copy of ${k##* } first: "
    grep -q '^# axe nccl: strided pieces$' "$f" && strided=1
    dargs "$@"
    "$AXE" compile "$f" --target cuda --explain "${dargs[@]}" 2>/dev/null |
        awk -v k="$op" -v w="  cuda: $what" -v strided="$strided" '/^device op / { op = $3 }
            op == k && index($0, w "NCCL ncclSend/ncclRecv") == 1 { print "ncclSend/ncclRecv"; exit }
            op == k && index($0, w "NCCL nccl") == 1 {
                split(substr($0, length(w "NCCL ") + 1), c, " ")
                print c[1]
                if (strided && index($0, " when each device") && index($0, " piece is one contiguous run in rank order ") &&
                    index($0, ", else grouped ncclSend/ncclRecv with packing kernels"))
                    print "ncclSend/ncclRecv"
                exit
            }
            op == k && index($0, w "nothing crosses") == 1 { print "local"; exit }'
}

# mixed FILE ARGS...: --explain says FILE's device gemm runs its local GEMM
# on tensor cores (f16 or bf16 A and B: it sums in another order, within
# axe_program_tensor_tolerance's bound, not exactly; checked below).
mixed() {
    local f=$1
    shift
    dargs "$@"
    "$AXE" compile "$f" --target cuda --explain "${dargs[@]}" 2>/dev/null |
        grep -qF "  cuda: the local GEMM on tensor cores ("
}
# run_ok FILE N ARGS...: the emulated NCCL run passes with no race (a
# kernel of integer tensors only, or with a device reduce or gemm:
# exactly, but a mixed one), and each device operator took the NCCL call
# --explain names.
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
    if { ! grep -qE '(f16|bf16|f32|f64|e4m3|e5m2)\[' "$f" ||
        grep -qE '^ *device (reduce|gemm)' "$f"; } && ! mixed "$f" "$@" &&
        ! grep -q '"max_abs_err":0,"max_rel_err":0,' "$tmp/out"; then
        bad "$(basename "$f") --ranks $n (integers only, or a device reduce or gemm): not exact: $(head -c 300 "$tmp/out")"
        return
    fi
    cat "$tmp/trace" >>"$tmp/traces" 2>/dev/null
    while read -r k; do
        want=$(explained "$k" "$f" "$@")
        got=$(sed -n "s/^devop $k \\(nccl[^ ]*\\|local\\).*/\\1/p" "$tmp/trace" | sort -u)
        [ "$got" = "local" ] || [ "${got#ncclSend}" = "$got" ] || got=ncclSend/ncclRecv
        if [ -z "$want" ] || [ -z "$got" ] || [ "$(printf '%s\n' "$got" | wc -l)" != 1 ] ||
            ! printf '%s\n' "$want" | grep -qxF -- "$got"; then
            bad "$(basename "$f") --ranks $n device op $k: ran $got, --explain allows '${want//$'\n'/ or }'"
            return
        fi
    done < <(sed -n 's/^devop \([0-9]*\( copy [AB]\)\{0,1\}\) .*/\1/p' "$tmp/trace" | sort -u)
    ok
}
# the tiled local GEMM over several tiles, K steps short at the end
# (local 80 x 72 partial sums, K 20 per device; exact, as every device gemm)
run_ok "$EX/matmul_rs_dev.axe" 2 -D P=2 -D M=80 -D N=72 -D K=40
for f in "$EX"/*.axe; do
    ns="2 4 8"
    grep -q "device gemm" "$f" && ns="1 2 4 8"
    for n in $ns; do
        run_ok "$f" "$n" -D "P=$n"
    done
done
mesh_size() {
    "$AXE" run "$1" --ranks 1024 2>&1 | sed -n 's/.*has a mesh of \([0-9]*\) devices.*/\1/p'
}
for f in "$SRC"/tests/kernels/dist/*.axe; do
    n=$(mesh_size "$f")
    if [ -z "$n" ]; then
        bad "tests/kernels/dist/$(basename "$f"): no mesh size"
        continue
    fi
    run_ok "$f" "$n"
done
# gemm_copy_both at 2 ranks: its last gemm's partial sums (K whole, one
# slice) lie on device 1 alone and C6 is replicated, a reduce that
# combines nothing: --explain names the broadcast the runtime runs
run_ok "$SRC/tests/kernels/dist/gemm_copy_both.axe" 2 -D P=2
# every device gemm's copy first took its call (a copy line in the traces),
# of A and of B (gemm_copy_both.axe copies both)
for w in A B; do
    if grep -q "^devop [0-9]* copy $w nccl" "$tmp/traces"; then ok; else bad "no device gemm copied $w first"; fi
done
# every path of the runtime was taken somewhere above
for path in ncclAllGather ncclBroadcast ncclAllReduce ncclReduceScatter \
    "ncclSend/ncclRecv (grouped, direct)" "ncclSend/ncclRecv (grouped, packed)" \
    "local copies" "ncclSend/ncclRecv (grouped) + ordered sum" \
    "ordered sum + ncclSend/ncclRecv (grouped gather)"; do
    if grep -qF "$path" "$tmp/traces"; then ok; else bad "no kernel takes the path '$path'"; fi
done

# Mutations of the NCCL runtime's calls (the header beside the .cu; with
# MUT_H=compiler_mpi_rt.h the MPI runtime's, whose schedule it runs), or
# (MUT_CU=1) of the .cu itself:
# mutant FROM TO FILE N ARGS...: FROM (literal) is in the runtime (the
# .cu of FILE ARGS), its first occurrence becomes TO, and the run then
# fails its check or fails naming the device operator.
cat >"$tmp/edit.sh" <<'EOS'
#!/usr/bin/env bash
h=$(dirname "$1")/${MUT_H:-compiler_nccl_rt.h}
[ "${MUT_CU:-0}" = 1 ] && h=$1
from=$(cat "$MUT_FROM") to=$(cat "$MUT_TO") c=$(cat "$h")
n=${c/"$from"/"$to"}
[ "$n" != "$c" ] && printf '%s\n' "$n" >"$h"
EOS
chmod +x "$tmp/edit.sh"
mutant() {
    local from=$1 to=$2 f=$3 n=$4 in=$SRC/src/compiler/backend/cuda/compiler_nccl_rt.h
    shift 4
    [ "${MUT_H:-}" = compiler_mpi_rt.h ] && in=$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h
    printf '%s' "$from" >"$tmp/from"
    printf '%s' "$to" >"$tmp/to"
    if [ "${MUT_CU:-0}" = 1 ]; then # the .cu as the run emits it
        dargs "$@"
        in=$tmp/mut.cu
        "$AXE" compile "$f" --target cuda "${dargs[@]}" >"$in" 2>/dev/null
    fi
    if ! grep -qF -- "$from" "$in"; then
        bad "mutation: '$from' is not in $(basename "$in")"
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
# (reduce_general.axe's max and min take ncclAllReduce and
# ncclReduceScatter: float sums take the ordered form)
mutant "ncclReduceScatter(in, out, (size_t)m->n," \
    "ncclReduceScatter(in, out, (size_t)m->n - 1," "$SRC/tests/kernels/dist/reduce_general.axe" 4
mutant "ncclAllReduce(in, out, (size_t)m->n," "ncclAllReduce(in, out, (size_t)m->n / 2," \
    "$SRC/tests/kernels/dist/reduce_general.axe" 4
mutant "ncclSend(src + (scount != NULL ? sdispl[q] : 0) * es," \
    "ncclSend(src + (scount != NULL ? sdispl[q] + 1 : 0) * es," "$EX/alltoall.axe" 4 -D P=4
mutant "(size_t)(rcount[q] * es)," "(size_t)(rcount[q] * es - es)," "$EX/alltoall.axe" 4 -D P=4
# the ordered sum: the fold drops the last slice (reduce-scatter); the
# gather of the folded pieces sends one element short (all-reduce)
mutant "s->kcomb, m->P, es, st);" "s->kcomb, m->P - 1, es, st);" \
    "$EX/reduce_scatter.axe" 4 -D P=4
mutant "axe_nccl_group(mine, NULL, NULL, piece," "axe_nccl_group(mine, NULL, NULL, piece - 1," \
    "$EX/mlp.axe" 4 -D P=4
mutant "m->root, comm, st);" "(m->root + 1) % m->P, comm, st);" \
    "$SRC/tests/kernels/dist/one_device.axe" 8
mutant "s->kcomb, s->m.K, s->m.esize, stream);" \
    "s->kcomb, s->m.K - 1, s->m.esize, stream);" \
    "$SRC/tests/kernels/dist/reduce_general.axe" 4
# The ordered sum's slice order reversed (the MPI runtime's kcomb, which
# the NCCL runtime takes): still within the check's tolerance, but no
# longer exact; and -DAXE_NCCL_UNORDERED (a define before the runtime's
# include) takes ncclReduceScatter, within tolerance, not exact at 4 ranks.
printf '%s' "s->kcomb[r] = axe_mpi_kdev(p, r) * piece;" >"$tmp/from"
printf '%s' "s->kcomb[r] = axe_mpi_kdev(p, s->P - 1 - r) * piece;" >"$tmp/to"
MUT_H=compiler_mpi_rt.h MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh \
    timeout 600 "$AXE" run "$EX/matmul_rs_dev.axe" -D P=4 --target cuda --emulate \
    --ranks 4 --check --json >"$tmp/out" 2>"$tmp/err"
if grep -q '"pass":true' "$tmp/out" && ! grep -q '"max_abs_err":0,' "$tmp/out"; then
    ok
else
    bad "the ordered sum reversed: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
fi
printf '%s' '#include "compiler_nccl_rt.h"' >"$tmp/from"
printf '%s\n%s' '#define AXE_NCCL_UNORDERED 1' '#include "compiler_nccl_rt.h"' >"$tmp/to"
: >"$tmp/trace"
MUT_CU=1 MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh \
    AXE_NCCL_TRACE=$tmp/trace timeout 600 "$AXE" run "$EX/matmul_rs_dev.axe" -D P=4 \
    --target cuda --emulate --ranks 4 --check --json >"$tmp/out" 2>"$tmp/err"
if grep -q '"pass":true' "$tmp/out" && ! grep -q '"max_abs_err":0,' "$tmp/out" &&
    grep -q '^devop 0 ncclReduceScatter$' "$tmp/trace"; then
    ok
else
    bad "-DAXE_NCCL_UNORDERED: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err") $(head -3 "$tmp/trace")"
fi
# Mixed precision (f16/bf16 A and B, f32 C): the local GEMM runs on tensor
# cores (mma.sync m16n8k16 in the .cu, operand tiles by cp.async of 16
# bytes where the shard's rows hold 8 k's in a row, fragments by ldmatrix,
# named by --explain with the check's bound; f32 keeps the tiled FMA
# kernel); at K 2048 (f16 rounding in the tensor cores' order) the run
# stays within the bound --explain states, 1e-06 + 2 K eps_f32 R; a wrong
# fragment mapping (A's rows 8..15 read from rows 0..7, B's k's 8..15
# from 0..7, the halves of A's first register swapped: swapping them in A
# and B alike would only reorder the sum), a dropped K step or a
# cp.async.wait_group that waits for one group too few fails the check.
for dt in f16 bf16; do
    if "$AXE" compile "$EX/matmul_rs_$dt.axe" --target cuda >"$tmp/mx.cu" 2>"$tmp/err" &&
        grep -q "axe_ptx_mma_m16n8k16_f32_$dt(acc\[mi\]\[ni\], fa\[mi\], fb\[ni\], acc\[mi\]\[ni\]);" "$tmp/mx.cu" &&
        grep -qF "axe_ptx_ldmatrix_x4(fa[mi], &as[cs][wm + mi * 16 + ar][ak]);" "$tmp/mx.cu" &&
        grep -qF "axe_ptx_cp_async_cg16(&as[cs ^ 1][r][kk], &a[0 + (i) * 48 + (k) * 1]);" "$tmp/mx.cu" &&
        "$AXE" compile "$EX/matmul_rs_$dt.axe" --target cuda --explain >"$tmp/ex" 2>&1 &&
        grep -qF "  cuda: the local GEMM on tensor cores (mma.sync.aligned.m16n8k16.row.col.f32.$dt.$dt.f32: 64 x 64 tiles of the 48 x 40 partial sums" "$tmp/ex" &&
        grep -qF "double-buffered: A by cp.async of 16 bytes, B by cp.async of 16 bytes; fragments by ldmatrix.x4)" "$tmp/ex" &&
        grep -qF "checked within 1e-06 + max(1e-05, 2 K eps_f32) R = 1e-06 + 2.29e-05 R of the reference (K = 96," "$tmp/ex" &&
        grep -qF "over its 48 k's of K (in increasing k; each $dt product exact in f32, summed in f32)" "$tmp/ex"; then
        ok
    else
        bad "matmul_rs_$dt: no tensor-core local GEMM in the .cu or --explain: $(head -c 300 "$tmp/err") $(grep cuda: "$tmp/ex" | head -c 400)"
    fi
    timeout 900 "$AXE" run "$EX/matmul_rs_$dt.axe" -D P=2 -D M=32 -D N=64 -D K=2048 \
        --target cuda --emulate --ranks 2 --check --json >"$tmp/out" 2>"$tmp/err"
    if grep -q '"pass":true' "$tmp/out" &&
        "$AXE" compile "$EX/matmul_rs_$dt.axe" -D P=2 -D M=32 -D N=64 -D K=2048 \
            --target cuda --explain 2>&1 |
        grep -qF "= 1e-06 + 0.000488 R of the reference (K = 2048,"; then
        ok
    else
        bad "matmul_rs_$dt at K 2048: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
done
# Operand tiles by the widest cp.async the local layouts allow: 8 bytes
# for B's rows of 20 k's, 16 bytes along M for A's column-major shard
# (gemm_bf16_chunks.axe: a [k][row] stage, fragments by .trans); 8 bytes
# at P = 8 (local K 12).
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_bf16_chunks.axe" --target cuda --explain 2>&1 |
    grep -qF "double-buffered: A by cp.async of 16 bytes along M, B by cp.async of 8 bytes; fragments by ldmatrix.x4.trans (A), ldmatrix.x4 (B))" &&
    "$AXE" compile "$EX/matmul_rs_f16.axe" -D P=8 --target cuda --explain 2>&1 |
    grep -qF "double-buffered: A by cp.async of 8 bytes, B by cp.async of 8 bytes;"; then
    ok
else
    bad "the tensor-core local GEMM's loads are not the widest the layouts allow"
fi
# gemm_bf16_chunks' A loads along M from a chunk's first row rounded down
# to a multiple of 8: the rows before that first row share their mma atom
# tile with it, a warp runs the mma of an atom tile only where its 16
# rows hold a row of the chunk's [rs, r1) (skipping the atom tile that
# holds rs too fails: the chunks of 6 rows start off a multiple of 8), and
# the store guard keeps the rows before rs out of C's partial sums
# (another chunk's).
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_bf16_chunks.axe" --target cuda >"$tmp/ch.cu" 2>"$tmp/err" &&
    [ "$(grep -cF 'const int64_t rs = r0;' "$tmp/ch.cu")" = 1 ] &&
    [ "$(grep -cF 'r0 -= r0 % 8;' "$tmp/ch.cu")" = 1 ] &&
    [ "$(grep -cF 'if (i0 + wm + mi * 16 + 16 <= rs || i0 + wm + mi * 16 >= r1)' "$tmp/ch.cu")" = 1 ] &&
    [ "$(grep -cF 'if (i >= rs && i < r1 && j < 40L)' "$tmp/ch.cu")" = 1 ]; then
    ok
else
    bad "gemm_bf16_chunks: no store guard for the rows before a chunk's first: $(head -c 300 "$tmp/err") $(grep -F 'i < r1' "$tmp/ch.cu")"
fi
MUT_CU=1 mutant "if (i0 + wm + mi * 16 + 16 <= rs ||" "if (i0 + wm + mi * 16 < rs ||" \
    "$SRC/tests/kernels/dist/gemm_bf16_chunks.axe" 4
# Stages along M or N (gemm_f16_trans.axe, counted from its layouts in
# its comment): A .trans in gemms 1 and 3, B .trans in gemms 1 and 2, so
# 2 ldmatrix.x4.trans calls of each operand and 2 plain ones, [k][row]
# stages filled by cp.async along the rows in 2 of each operand's loads
# (each load is emitted twice: step 0 and the next step), B4 by loads and
# stores; --explain names them.
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_f16_trans.axe" --target cuda >"$tmp/tr.cu" 2>"$tmp/err" &&
    [ "$(grep -cF 'axe_ptx_ldmatrix_x4_trans(fa[mi], &as[cs][ak][wm + mi * 16 + ar]);' "$tmp/tr.cu")" = 2 ] &&
    [ "$(grep -cF 'axe_ptx_ldmatrix_x4_trans(r, &bs[cs][bk][wn + nj * 16 + br]);' "$tmp/tr.cu")" = 2 ] &&
    [ "$(grep -cF 'axe_ptx_ldmatrix_x4(fa[mi], &as[cs][wm + mi * 16 + ar][ak]);' "$tmp/tr.cu")" = 2 ] &&
    [ "$(grep -cF 'axe_ptx_ldmatrix_x4(r, &bs[cs][wn + nj * 16 + br][bk]);' "$tmp/tr.cu")" = 2 ] &&
    [ "$(grep -cE 'axe_ptx_cp_async_c[ag][0-9]+\(&as\[[^]]*\]\[kk\]\[r\]' "$tmp/tr.cu")" = 4 ] &&
    [ "$(grep -cE 'axe_ptx_cp_async_c[ag][0-9]+\(&bs\[[^]]*\]\[kk\]\[r\]' "$tmp/tr.cu")" = 4 ] &&
    "$AXE" compile "$SRC/tests/kernels/dist/gemm_f16_trans.axe" --target cuda --explain >"$tmp/ex" 2>&1 &&
    [ "$(grep -cF 'A by cp.async of 16 bytes along M, B by cp.async of 16 bytes along N; fragments by ldmatrix.x4.trans)' "$tmp/ex")" = 1 ] &&
    [ "$(grep -cF 'A by cp.async of 8 bytes, B by cp.async of 4 bytes along N; fragments by ldmatrix.x4 (A), ldmatrix.x4.trans (B))' "$tmp/ex")" = 1 ] &&
    [ "$(grep -cF 'A by cp.async of 8 bytes along M, B by cp.async of 8 bytes; fragments by ldmatrix.x4.trans (A), ldmatrix.x4 (B))' "$tmp/ex")" = 1 ] &&
    [ "$(grep -cF 'A by cp.async of 8 bytes, B by a load and a store per element; fragments by ldmatrix.x4)' "$tmp/ex")" = 1 ]; then
    ok
else
    bad "gemm_f16_trans: not the ldmatrix(.trans) stages its layouts give: $(head -c 300 "$tmp/err") $(grep -c ldmatrix_x4 "$tmp/tr.cu")"
fi
# The FMA kernel's stages along M or N (gemm_fma_rows.axe, from its
# layouts in its comment): A by cp.async along M in gemms 1 (16 bytes)
# and 3 (8 bytes), B along N in gemms 2 and 3 (16 bytes), the others by
# loads and stores; --explain names them; exact at 4 ranks too (the
# kernel's own size, 2, runs above), where a chunk's rows start off a
# multiple of 4 in both ways: the compute reading the stage from row 0
# instead of ao, or the loads starting at the tile's first row (their
# sources misaligned), fail.
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_fma_rows.axe" --target cuda >"$tmp/fr.cu" 2>"$tmp/err" &&
    [ "$(grep -cF 'axe_ptx_cp_async_cg16(&as[kk][r], &a[0 + (i) * 1 + (k) * 84]);' "$tmp/fr.cu")" = 1 ] &&
    [ "$(grep -cF 'axe_ptx_cp_async_ca8(&as[kk][r], &a[0 + (i) * 1 + (k) * 18]);' "$tmp/fr.cu")" = 1 ] &&
    [ "$(grep -cE 'axe_ptx_cp_async_cg16\(&bs\[kk\]\[r\]' "$tmp/fr.cu")" = 2 ] &&
    [ "$(grep -cE 'axe_ptx_cp_async_c[ag][0-9]+\(&' "$tmp/fr.cu")" = 4 ] &&
    "$AXE" compile "$SRC/tests/kernels/dist/gemm_fma_rows.axe" --target cuda --explain >"$tmp/ex" 2>&1 &&
    [ "$(grep -cF 'without fused multiply-adds; A by cp.async of 16 bytes along M, B by a load and a store per element), into' "$tmp/ex")" = 1 ] &&
    [ "$(grep -cF 'without fused multiply-adds; A by a load and a store per element, B by cp.async of 16 bytes along N), into' "$tmp/ex")" = 1 ] &&
    [ "$(grep -cF 'without fused multiply-adds; A by cp.async of 8 bytes along M, B by cp.async of 16 bytes along N), into' "$tmp/ex")" = 1 ]; then
    ok
else
    bad "gemm_fma_rows: not the FMA stages its layouts give: $(head -c 300 "$tmp/err") $(grep -c cp_async "$tmp/fr.cu")"
fi
# The launcher checks the alignment of an operand a device gemm reads in
# place by cp.async (A1 16, B2 16, A3 8, B3 16 bytes, as above): a call
# with A1 4 bytes off returns cudaErrorMisalignedAddress, before any
# device operator, instead of faulting in the kernel (AXE_RUN_EDIT moves
# the harness's pointer).
if [ "$(grep -cE '^    if \(\(uintptr_t\)t_(A1|B2|B3) % 16u != 0\)' "$tmp/fr.cu")" = 3 ] &&
    grep -qE '^    if \(\(uintptr_t\)t_A3 % 8u != 0\)' "$tmp/fr.cu"; then
    ok
else
    bad "gemm_fma_rows: the launcher does not check its cp.async operands' alignment"
fi
cat >"$tmp/mis.sh" <<'EOF2'
#!/bin/sh
sed -i 's|_fma_rows((float \*)ax_dev\[0\]|_fma_rows((float *)((char *)ax_dev[0] + 4)|' "$1"
EOF2
chmod +x "$tmp/mis.sh"
AXE_RUN_EDIT=$tmp/mis.sh timeout 600 "$AXE" run "$SRC/tests/kernels/dist/gemm_fma_rows.axe" \
    --target cuda --emulate --ranks 2 --check --json >"$tmp/out" 2>"$tmp/err"
if grep -qF '"message":"the kernel failed: the launch failed: misaligned address"' "$tmp/out"; then
    ok
else
    bad "gemm_fma_rows with A1 4 bytes off: not the launcher's misaligned address: $(head -c 300 "$tmp/out")"
fi
run_ok "$SRC/tests/kernels/dist/gemm_fma_rows.axe" 4 -D P=4
MUT_CU=1 mutant "as[kk][ao + ty + r * AX_GEMM_TX]" "as[kk][ty + r * AX_GEMM_TX]" \
    "$SRC/tests/kernels/dist/gemm_fma_rows.axe" 4 -D P=4
MUT_CU=1 mutant "const int64_t i = i0 - ao + r, k = k0 + kk;" \
    "const int64_t i = i0 + r, k = k0 + kk;" "$SRC/tests/kernels/dist/gemm_fma_rows.axe" 4 -D P=4
if "$AXE" compile "$EX/matmul_rs_dev.axe" --target cuda --explain 2>&1 |
    grep -qF "  cuda: the local GEMM as a tiled CUDA kernel (64 x 64 tiles"; then
    ok
else
    bad "matmul_rs_dev (f32): not the tiled FMA kernel"
fi
MUT_CU=1 mutant "const int ar = lane % 16," "const int ar = lane % 8," \
    "$EX/matmul_rs_f16.axe" 2 -D P=2
MUT_CU=1 mutant "bk = lane / 8 % 2 * 8;" "bk = 0;" "$EX/matmul_rs_bf16.axe" 2 -D P=2
MUT_CU=1 mutant "axe_ptx_ldmatrix_x4(fa[mi], &as[cs][wm + mi * 16 + ar][ak]);" \
    "{ axe_ptx_ldmatrix_x4(fa[mi], &as[cs][wm + mi * 16 + ar][ak]); fa[mi][0] = fa[mi][0] >> 16 | fa[mi][0] << 16; }" \
    "$EX/matmul_rs_f16.axe" 4 -D P=4
MUT_CU=1 mutant "uint32_t fa[2][4], fb[4][2];" \
    "uint32_t fa[2][4], fb[4][2]; if (k1 == AX_MMA_TK) { __syncthreads(); continue; }" \
    "$EX/matmul_rs_f16.axe" 2 -D P=2
MUT_CU=1 mutant "uint32_t fa[2][4], fb[4][2];" \
    "uint32_t fa[2][4], fb[4][2]; if (k1 == AX_MMA_TK) { __syncthreads(); continue; }" \
    "$SRC/tests/kernels/dist/gemm_bf16_chunks.axe" 4
MUT_CU=1 mutant "axe_ptx_cp_async_wait<1>();" "axe_ptx_cp_async_wait<2>();" \
    "$EX/matmul_rs_f16.axe" 2 -D P=2
# the .trans rows: A's k rows 8-15 (matrices 2, 3) read from 0-7, B's
# n offset of matrices 2, 3 dropped
MUT_CU=1 mutant "ak = lane % 8 + lane / 16 * 8;" "ak = lane % 8;" \
    "$SRC/tests/kernels/dist/gemm_f16_trans.axe" 2
MUT_CU=1 mutant "const int br = lane / 16 * 8," "const int br = 0," \
    "$SRC/tests/kernels/dist/gemm_f16_trans.axe" 2
# C1's second column tile (N 72): its [k][row] B stage from column j0 =
# 64, dropped in step 0's load
MUT_CU=1 mutant "const int64_t j = j0 + r, k = k0 + kk;" \
    "const int64_t j = r, k = k0 + kk;" "$SRC/tests/kernels/dist/gemm_f16_trans.axe" 2

# The runtime's host side allocates no host buffers for the schedules
# (AXE_MPI_BUILD_NOHOST: their sbuf, rbuf and tmp stay NULL; the moves use
# device buffers of their own): the emulated .cu built with AddressSanitizer
# and UBSan (OpenMPI's own leaks suppressed) runs exact for the ordered
# sums (reduce-scatter and all-reduce), the general reduce and chunks.
(
    export OMPI_MCA_mca_base_component_disable_dlclose=1
    export PMIX_MCA_mca_base_component_disable_dlclose=1
    export LSAN_OPTIONS="suppressions=$SRC/tests/lsan_openmpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export CXX="$CXX -fsanitize=address,undefined -fno-omit-frame-pointer"
    for spec in "$EX/mlp.axe:2:-D P=2" "$SRC/tests/kernels/dist/reduce_general.axe:4:" \
        "$EX/matmul_rs_overlap.axe:2:-D P=2"; do
        IFS=: read -r f n d <<<"$spec"
        # shellcheck disable=SC2086 # $d: words
        if timeout 900 "$AXE" run "$f" $d --target cuda --emulate --ranks "$n" --check \
            --json >"$tmp/out" 2>"$tmp/err" && grep -q '"max_abs_err":0,' "$tmp/out"; then
            echo ok
        else
            echo "bad $(basename "$f") under ASan: $(head -c 300 "$tmp/out") $(grep -m3 -E 'ERROR|runtime error' "$tmp/err")"
        fi
    done
) >"$tmp/asan"
while read -r verdict rest; do
    if [ "$verdict" = ok ]; then ok; else bad "$rest"; fi
done <"$tmp/asan"
# device gemm: the local GEMM's tiled kernel skips the first k of each
# step of K; it leaves out the sync before the next step's loads (the
# emulated threads of a CTA then overwrite the tiles others still read); the runner multiplies
# B as placed instead of its copy; the partial sums' reduce is skipped
# (C keeps its input).
MUT_CU=1 mutant "for (int kk = 0; kk < kn; kk++)" "for (int kk = 1; kk < kn; kk++)" \
    "$EX/matmul_rs_dev.axe" 2 -D P=2
MUT_CU=1 mutant "            __syncthreads();
        }
        for (int r = 0;" "        }
        for (int r = 0;" "$EX/matmul_rs_dev.axe" 2 -D P=2 -D M=80 -D N=72 -D K=40
MUT_CU=1 mutant "(a, ax_dev0_mvb, ax_dev0_part, 0," "(a, b, ax_dev0_part, 0," \
    "$SRC/tests/kernels/dist/gemm_copy_k.axe" 4
MUT_CU=1 mutant "    if (rc == 0)
        rc = ax_nccl_devop(0, " "    if (rc == 1)
        rc = ax_nccl_devop(0, " "$SRC/tests/kernels/dist/gemm_cyclic_i32.axe" 4

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
# runtime once per device operator, between the segments' launches (one:
# the run after mlp.axe's reduce holds nothing and is not launched).
if "$AXE" compile "$EX/mlp.axe" --target cuda >"$tmp/mlp.cu" 2>"$tmp/err" &&
    grep -q '#include "compiler_nccl_rt.h"' "$tmp/mlp.cu" &&
    grep -q '^__global__ void __launch_bounds__([0-9]*) k_dist_mlp(.*long ax_seg)$' "$tmp/mlp.cu" &&
    [ "$(grep -c '^        ax_rc = ax_nccl_devop(' "$tmp/mlp.cu")" = 1 ] &&
    [ "$(grep -c '    ax_rc = ax_seg_launch_dist_mlp(' "$tmp/mlp.cu")" = 1 ] &&
    grep -q '    ax_rc = ax_seg_launch_dist_mlp(.*, 0L, ax_stream);' "$tmp/mlp.cu"; then
    ok
else
    bad "compile --target cuda mlp.axe: $(head -c 300 "$tmp/err")"
fi

# The launcher's checks run first in axe_launch_NAME, also where no
# segment is launched: a kept loop of device operators alone, called
# with its runtime trip count -1 (which axe run and the harness refuse
# before the launch), returns cudaErrorInvalidValue before any NCCL call
# (the launcher called by a driver of its own, emulated, no MPI job).
cat >"$tmp/only_dev.axe" <<'EOF'
mesh(2);
kernel only_dev(nk: i32,
                A: i32[8,4] layout S[(8,4):(4,1)] + 0@gpuid,
                B: i32[8,4] layout S[(8,4):(4,1)] + R[2:1@gpuid])
    grid(1) threads(1) {
    for k in range(nk) {
        device copy(B, A);
    }
}
EOF
cat >"$tmp/only_dev_drv.cc" <<'EOF'
#include "only_dev.cu"
int main(void)
{
    int32_t a[32] = {0}, b[32] = {0};
    int rc = axe_launch_only_dev(a, b, -1, (cudaStream_t)0);
    printf("nk -1: %s\n", cudaGetErrorString((cudaError_t)rc));
    return 0;
}
EOF
# shellcheck disable=SC2046 # mpicc's flags are words
if "$AXE" compile "$tmp/only_dev.axe" --target cuda -o "$tmp/only_dev.cu" 2>"$tmp/err" &&
    ! grep -q 'ax_seg_launch_only_dev' "$tmp/only_dev.cu" &&
    "$CXX" -std=c++17 -O0 -DAXE_CUDA_EMULATE -I"$SRC/src/compiler/backend/cuda" \
        -I"$SRC/src/compiler/backend/mpi" $(mpicc --showme:compile) "$tmp/only_dev_drv.cc" \
        -o "$tmp/only_dev" $(mpicc --showme:link) 2>>"$tmp/err" &&
    [ "$("$tmp/only_dev" 2>&1)" = "nk -1: invalid argument" ]; then
    ok
else
    bad "only_dev: the launcher ran with nk -1: $(head -c 300 "$tmp/err") $("$tmp/only_dev" 2>&1 | head -c 200)"
fi

# A device gemm's .cu: its local GEMM kernel, and its runner between the
# segments' launches (the copy first, then the reduce, through the
# runtime; no launch before it, so not under `if (ax_rc == 0)`).
if "$AXE" compile "$SRC/tests/kernels/dist/gemm_copy_k.axe" --target cuda \
    >"$tmp/gk.cu" 2>"$tmp/err" &&
    grep -q '^ax_dev0_gemm_k(const float \*__restrict__ a, const float \*__restrict__ b, float \*__restrict__ c, int64_t r0,$' "$tmp/gk.cu" &&
    grep -q '__shared__ float as\[AX_GEMM_TK\]\[AX_GEMM_T + 1\], bs\[AX_GEMM_TK\]\[AX_GEMM_T + 1\];' "$tmp/gk.cu" &&
    grep -q 'acc\[r\]\[q\] = __fadd_rn(acc\[r\]\[q\], __fmul_rn(as\[kk\]\[ty + r \* AX_GEMM_TX\], bs\[kk\]\[tx + q \* AX_GEMM_TX\]));' "$tmp/gk.cu" &&
    grep -q '^    ax_rc = ax_dev0_run(t_A, t_B, t_C, ax_stream);$' "$tmp/gk.cu" &&
    ! grep -q '^    if (ax_rc == 0)$' "$tmp/gk.cu" &&
    grep -q 'rc = ax_nccl_devop(0, [0-9]*, 2, &ax_dev0_cpb, &ax_dev0_cpb_sched, b, ax_dev0_mvb, st);' "$tmp/gk.cu" &&
    grep -q 'rc = ax_nccl_devop(0, [0-9]*, 0, &ax_dev0, &ax_dev0_sched, ax_dev0_part, c, st);' "$tmp/gk.cu"; then
    ok
else
    bad "compile --target cuda gemm_copy_k.axe: $(head -c 300 "$tmp/err")"
fi
# chunks(N) overlapped (axe_nccl_gemm_chunked): --explain says so; the
# trace of the first run (rank 0; once per process of the check) is
# the plan's interleaving: per chunk its rows of the local GEMM and its
# packing on the main stream, an event, the second stream's wait and its
# grouped ncclSend/ncclRecv, then the fold after the second stream's
# event; exact at chunks 1, 3 and 4 over several tiles (the example's
# own sizes at 1, 2, 4 and 8 ranks are run_ok's, above).
if "$AXE" compile "$EX/matmul_rs_overlap.axe" --target cuda --explain 2>"$tmp/err" >"$tmp/ex" &&
    grep -q "^  cuda: NCCL ncclSend/ncclRecv (grouped) in chunks(4), overlapped: " "$tmp/ex" &&
    ! grep -q "not overlapped" "$tmp/ex"; then
    ok
else
    bad "--explain of chunks on --target cuda: $(head -c 300 "$tmp/err")"
fi
chunk_trace() { # CHUNKS: the expected trace of one process
    local c
    echo "devop 0 ncclSend/ncclRecv (grouped, in chunks on a second stream) + ordered sum"
    for ((c = 0; c < $1; c++)); do
        printf 'devop 0 chunk %d %s\n' "$c" "gemm main" "$c" "pack main" "$c" "event main" \
            "$c" "wait comm" "$c" "sendrecv comm"
    done
    printf 'devop 0 fold %s\n' "event comm" "wait main" main
}
for spec in 2:3 4:1 4:4; do
    n=${spec%:*} ch=${spec#*:}
    run_ok "$EX/matmul_rs_overlap.axe" "$n" -D "P=$n" -D "CH=$ch" -D M=80 -D N=72 -D K=40
    chunk_trace "$ch" >"$tmp/want1"
    : >"$tmp/want"
    runs=$(($(wc -l <"$tmp/trace") / $(wc -l <"$tmp/want1")))
    for ((r = 0; r < runs; r++)); do cat "$tmp/want1" >>"$tmp/want"; done
    if [ "$runs" -ge 1 ] && cmp -s "$tmp/want" "$tmp/trace"; then
        ok
    else
        bad "chunks($ch) at $n ranks: the trace is not the plan's: $(diff "$tmp/want" "$tmp/trace" | head -5)"
    fi
done
# Its mutations: without the second stream's wait on a chunk's event
# (the sends would read the send buffer before the packing wrote it) or
# the main stream's wait before the fold, the emulation's stream order
# check fails the run naming the accesses; a band of rows one short
# leaves partial sums uncomputed; the fold's slice order reversed is no
# longer exact.
for m in "rc->cuda = (int)cudaStreamWaitEvent(c->comm, c->ev[ch], 0);|rc->cuda = 0;|ncclSend (a read on stream 1) is not ordered after a chunk's packing" \
    "rc.cuda = (int)cudaStreamWaitEvent(stream, c->ev[c->chunks], 0);|rc.cuda = 0;|the chunks' fold (a read on stream 0) is not ordered after ncclRecv"; do
    IFS='|' read -r from to why <<<"$m"
    printf '%s' "$from" >"$tmp/from"
    printf '%s' "$to" >"$tmp/to"
    MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh timeout 600 "$AXE" run \
        "$EX/matmul_rs_overlap.axe" -D P=2 --target cuda --emulate --ranks 2 --check --json \
        >"$tmp/out" 2>"$tmp/err"
    if grep -q '"pass":false' "$tmp/out" &&
        grep -q "device op 0 (line [0-9]*): NCCL: invalid usage (stream order: " "$tmp/err" &&
        grep -qF "$why" "$tmp/err"; then
        ok
    else
        bad "chunks without the wait '$from': $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
    fi
done
mutant "band[2 * q] = b0, band[2 * q + 1] = b1;" "band[2 * q] = b0, band[2 * q + 1] = b1 - 1;" \
    "$EX/matmul_rs_overlap.axe" 2 -D P=2 -D CH=3
# A move whose CUDA blocks along y all start at element 0 (the spread of
# one list block over blockIdx.y lost: found on the first GPU run, where a
# chunk's packing ran on one SM) leaves elements unmoved.
mutant "i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;" "i = threadIdx.x;" \
    "$EX/matmul_rs_overlap.axe" 2 -D P=2 -D CH=3 -D M=80 -D N=72 -D K=40
printf '%s' "qoff[i] = axe_mpi_kdev(p, i) * n;" >"$tmp/from"
printf '%s' "qoff[i] = axe_mpi_kdev(p, P - 1 - i) * n;" >"$tmp/to"
MUT_FROM=$tmp/from MUT_TO=$tmp/to AXE_RUN_EDIT=$tmp/edit.sh timeout 600 "$AXE" run \
    "$EX/matmul_rs_overlap.axe" -D P=4 --target cuda --emulate --ranks 4 --check --json \
    >"$tmp/out" 2>"$tmp/err"
if grep -q '"pass":true' "$tmp/out" && ! grep -q '"max_abs_err":0,' "$tmp/out"; then
    ok
else
    bad "the chunks' fold reversed: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
fi

# Runtime scalars in a mesh program (--arg): every rank's launches get
# them; a trip count and a float operand, two runs of one build, at 2 and
# 4 ranks; a changed value on its way to the segment's launch fails.
kernel_scalars_axe "$tmp/scalars.axe"
run_ok "$tmp/scalars.axe" 2 --arg T=3 --arg v=0.5
run_ok "$tmp/scalars.axe" 4 -D P=4 --arg T=0,2 --arg v=1,-2
MUT_CU=1 mutant "(t_A, t_B, s_T, s_v, 0L, ax_stream)" "(t_A, t_B, s_T, s_v + 1, 0L, ax_stream)" \
    "$tmp/scalars.axe" 2 --arg T=3 --arg v=0.5

# --bench: every rank runs the same batches (their stop agreed), the
# slowest rank's wall-clock seconds per run (meaningless numbers under
# the emulation), flops/s of a device gemm: every device's local GEMM,
# 2 Mloc Nloc Kloc each (here 2 x 2*16*16*16 = 16384 per run).
if timeout 600 "$AXE" run "$EX/matmul_rs_dev.axe" -D P=2 --target cuda --emulate \
    --ranks 2 --bench --check --json >"$tmp/out" 2>"$tmp/err" &&
    grep -q '"pass":true' "$tmp/out" &&
    grep -Eq '"seconds":[0-9.e+-]+,"flops_per_s":[0-9.e+]+' "$tmp/out" &&
    kernel_flops_are "$tmp/out" 16384 &&
    ! grep -q '"seconds":0,' "$tmp/out"; then
    ok
else
    bad "--bench --ranks 2 --target cuda: $(head -c 300 "$tmp/out") $(head -c 300 "$tmp/err")"
fi
if "$AXE" compile "$EX/allgather.axe" --target cuda >"$tmp/ag.cu" &&
    grep -q 'if (ax_mesh_stop(ax_sec >= 0.01 || runs >= 4194304L))' "$tmp/ag.cu" &&
    grep -q 'ax_mesh_max(ax_sec) / (double)runs' "$tmp/ag.cu" &&
    ! grep -q 'cudaEventRecord' "$tmp/ag.cu"; then
    ok
else
    bad "the cuda mesh harness's timing: $(grep -n 'ax_mesh' "$tmp/ag.cu" | head -5)"
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
