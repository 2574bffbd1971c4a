#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The CUDA backend through the CLI ($AXE_BIN), without a GPU: the
# --target/--arch options (each refusal with its reason, exit 2); every
# kernel of examples/kernels/ and tests/kernels/ either compiles with
# `--target cuda` (the same text twice) or is refused with a reason (exit
# 1; the kernels listed in "refused" with the listed reason); with nvcc,
# every compiled .cu builds for sm_80 and sm_90 with warnings as errors,
# and the PTX of chosen kernels holds the instructions their schedules
# promise (a test that fails if the emitter silently falls back). Skipped
# (77) after the first part when nvcc is absent. Last line: "N passed, N
# failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
kernel_counts

# cli_row EXIT PATTERN ARGS...: axe compile ARGS exits EXIT and its
# stderr (or stdout when EXIT is 0) contains PATTERN.
cli_row() {
    local want=$1 pat=$2 rc
    shift 2
    "$AXE" compile "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" = "$want" ] && grep -qF -- "$pat" "$tmp/out" "$tmp/err"; then
        ok
    else
        bad "axe compile $* -> $rc ($(head -c 300 "$tmp/err" "$tmp/out"))"
    fi
}

K=$SRC/examples/kernels
cli_row 2 "'sm_75' is no architecture of target cuda (sm_80, sm_86, sm_89, sm_90)" \
    "$K/fig5_copy.axe" --target cuda --arch sm_75
cli_row 2 "target c has no architectures ('sm_80' given)" \
    "$K/fig5_copy.axe" --arch sm_80
cli_row 2 "unknown target 'ptx' (targets: c, cuda, mpi, trn-sim)" "$K/fig5_copy.axe" --target ptx
cli_row 0 "target cuda sm_90" "$K/fig5_copy.axe" --target cuda --arch sm_90
cli_row 0 "cuda sm_86: 16-byte vector loads and stores" \
    "$K/fig5_copy.axe" --target cuda --arch sm_86 --explain
cli_row 0 "rejected copy.smem: the source 'C' is not a distributed register" \
    "$K/fig5_copy.axe" --target cuda --explain
cli_row 0 "__shfl_xor_sync (shfl.sync.bfly) over lane masks" \
    "$SRC/tests/kernels/shuffle_sum_f32.axe" --target cuda --explain
cli_row 0 "cuda sm_80: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32, 16 atom tiles per warp, 2 K steps; A: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (16-byte rows along K); B: ldmatrix.sync.aligned.m8n8.x2.shared.b16" \
    "$K/gemm_mma.axe" --target cuda --explain
cli_row 0 "A: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 (16-byte rows along M); B: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 (16-byte rows along N)" \
    "$SRC/tests/kernels/gemm_mma_trans.axe" --target cuda --explain
cli_row 0 "A: per-thread loads (in global memory); B: per-thread loads (in global memory)" \
    "$SRC/tests/kernels/gemm_mma_global.axe" --target cuda --explain
cli_row 0 "cuda sm_80: f32 FMA on the m16n8k8 fragments in the order of K (tf32 mma.sync only when the kernel asks for it" \
    "$K/warp_mma.axe" --target cuda --explain
cli_row 0 "cuda sm_89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32, 16 atom tiles per warp, 1 K step; A: ldmatrix" \
    "$K/gemm_fp8.axe" --target cuda --arch sm_89 --explain
cli_row 1 "gemm on e4m3/e5m2 tensor cores (mma.sync m16n8k32 .e4m3/.e5m2) needs --arch sm_89 or later" \
    "$K/gemm_fp8.axe" --target cuda --arch sm_86

# flash_attention's P is the register A of gemm.mma_reg_a (its fragments
# are the thread's registers). Against the same kernel with P staged
# through a shared tile Ps (the form before mma_reg_a, rebuilt here), its
# .cu has one __syncthreads fewer in the K/V loop (emitted once, the
# last loop of the kernel) and no shared tile or store of P.
awk '/^ *shared Vs:/ { print; print "    shared Ps: f16[BM, BN] layout S[(BM, BN):(BN + 8, 1)];"; next }
     /^ *warp gemm\(o, p,$/ { print "        warp copy(Ps[warpid * 16 : +16, 0 : +BN], p);"
                              print "        sync;"
                              print "        warp gemm(o, Ps[warpid * 16 : +16, 0 : +BN],"; next }
     1' "$K/flash_attention.axe" >"$tmp/flash_ps.axe"
cli_row 0 "; A: the thread's registers (the A fragment's layout), packed per atom K tile; B: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 (16-byte rows along N)" \
    "$K/flash_attention.axe" --target cuda --explain
cli_row 0 "; A: ldmatrix.sync.aligned.m8n8.x4.shared.b16 (16-byte rows along K); B: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" \
    "$tmp/flash_ps.axe" --target cuda --explain
loop_syncs() { sed -n '/for (long v_j = 0/,$p' "$1" | grep -c '__syncthreads()'; }
if "$AXE" compile "$K/flash_attention.axe" --target cuda >"$tmp/fa.cu" &&
    "$AXE" compile "$tmp/flash_ps.axe" --target cuda >"$tmp/fa_ps.cu"; then
    n_reg=$(loop_syncs "$tmp/fa.cu")
    n_ps=$(loop_syncs "$tmp/fa_ps.cu")
    if [ "$n_reg" -eq 2 ] && [ "$n_ps" -eq 3 ] && ! grep -q 't_Ps' "$tmp/fa.cu" &&
        sed -n '/for (long v_j = 0/,$p' "$tmp/fa_ps.cu" | grep -q 'AXE_STV*(.*t_Ps,.* = .*t_p\['; then
        ok
    else
        bad "flash_attention: $n_reg __syncthreads in the K/V loop (staged P: $n_ps), t_Ps: $(grep -c 't_Ps' "$tmp/fa.cu")"
    fi
else
    bad "flash_attention: axe compile --target cuda failed ($(head -c 300 "$tmp/fa.cu" "$tmp/fa_ps.cu"))"
fi
# A vector copy into a 16-bit register writes whole 32-bit words
# (docs/compiler.md, "16-bit registers in words"): gemm_reg_a's A,
# loaded from global memory by 4-byte vectors, is 8 words per thread,
# each copied as word (ADDR) / 2, and its m16n8k16 A fragment registers
# are those words (before: a uint16_t array, each fragment register two
# halves packed).
if "$AXE" compile "$SRC/tests/kernels/gemm_reg_a.axe" --target cuda >"$tmp/ra.cu"; then
    n="$(grep -cF '__align__(16) uint32_t t_a[8] = {0}; /* two per 32-bit word */' "$tmp/ra.cu")"
    n="$n $(grep -c '__align__(16) uint16_t t_' "$tmp/ra.cu")"
    n="$n $(grep -c '\*(unsigned int \*)&t_a\[(0L + ax_i1 \* 2L + ax_i3 \* 4L + ax_i5 \* 1L) / 2L\] = AXE_LDV(unsigned int, t_A, ' "$tmp/ra.cu")"
    n="$n $(grep -c 'ax_a\[0\]\[[0-3]\] = t_a\[[0-7]L\];' "$tmp/ra.cu")"
    [ "$n" = "1 0 1 8" ] && ok || bad "gemm_reg_a's A in words: $n (want 1 0 1 8: the words, no uint16_t array, the vector copy, fragments as words)"
else
    bad "gemm_reg_a: axe compile --target cuda failed"
fi
# An i4 -> f16 register cast is emitted by bit tricks where each word of
# the f16 register takes two nibbles of one word of the i4 register
# (docs/compiler.md, "i4 to f16 by bit tricks"); h's element pairs j, j +
# 8 cross q's words, so that cast stays element by element, and says why.
cat >"$tmp/i4h.axe" <<'AXE'
kernel i4h(X: i4[32, 16], Y: f16[32, 16]) grid(1) threads(32)
{
    register q: i4[32, 16] layout S[(32, 16):(1@laneid, 1)];
    register h: f16[32, 16] layout S[(32, 16):(1@laneid, 1)];
    warp copy(q, X);
    warp cast(h, q);
    warp copy(Y, h);
}
AXE
sed '/register h/s/S\[(32, 16):(1@laneid, 1)\]/S[(32, 2, 8):(1@laneid, 1, 2)]/' \
    "$tmp/i4h.axe" >"$tmp/i4h_x.axe"
cli_row 0 "cast form: i4 -> f16 by bit tricks, each 32-bit word of two f16 from two nibbles of one word of the i4 register (prmt.b32, lop3.b32, fma.rn.f16x2; 8 words per thread)" \
    "$tmp/i4h.axe" --target cuda --explain
cli_row 0 "t_h[7L] = ax_i4h2(*(const uint32_t *)&t_q[4L], 6, 7);" "$tmp/i4h.axe" --target cuda
cli_row 0 "cast form: i4 -> f16 per element (the nibble sign-extended, converted to f16), not by bit tricks: the two halves of a 32-bit word of the f16 register come from different 32-bit words of the i4 register" \
    "$tmp/i4h_x.axe" --target cuda --explain
# The cast reads q by 32-bit words: an i4 register array is whole words
# (4 i4 per thread: 2 bytes, declared 4), read in bounds under ASan on
# the emulation (where c++ has it).
sed 's/16\]/4]/g; s/(32, 16)/(32, 4)/g' "$tmp/i4h.axe" >"$tmp/i4h4.axe"
cli_row 0 "uint8_t t_q[4] = {0};" "$tmp/i4h4.axe" --target cuda
if echo 'int main(){}' | "${CXX:-c++}" -fsanitize=address -x c++ - \
    -o "$tmp/asan" 2>/dev/null && "$tmp/asan"; then
    if (cd "$tmp" && CXX="${CXX:-c++} -fsanitize=address" "$AXE" run i4h4.axe \
        --target cuda --emulate --check) 2>&1 | grep -q "check passed"; then
        ok
    else
        bad "i4h4: the emulated cast under ASan"
    fi
fi
# A data-dependent start on an extent-1 dimension of the i4 operand keeps
# its run-time range check under the bit-trick cast.
cat >"$tmp/i4hd.axe" <<'AXE'
kernel i4hd(X: i4[1, 32, 8], Y: f16[1, 32, 8], I: i32[1]) grid(1) threads(32)
{
    register q: i4[1, 32, 8] layout S[(1, 32, 8):(0, 1@laneid, 1)];
    register h: f16[1, 32, 8] layout S[(1, 32, 8):(0, 1@laneid, 1)];
    warp copy(q, X);
    warp cast(h, q[I[0] : +1, 0 : +32, 0 : +8]);
    warp copy(Y, h);
}
AXE
cli_row 0 "if (ax_outside((long)t_I[0L], 1L - 1L)) {" "$tmp/i4hd.axe" --target cuda
cli_row 0 "ax_i4h2(" "$tmp/i4hd.axe" --target cuda
# f16 add, sub and mul into a register held in words, a word at a time
# (compiler_emit_half2.c): half2_ops.axe's six word operators, two each
# of ax_hmul2, ax_hadd2, ax_hsub2 (mul.rn.f16x2 ...), their operands
# words, ax_h2dup of the scalar and of the stride-0 scale, ax_h2pack of
# B's two elements, and o's two operators element by element (ax_f2h);
# gemm_f16_i4_regb's scale multiply is one ax_hmul2 per word of bf (the
# two scales packed) and converts no f16 to float and back.
words_count() {
    local w
    for w in "${@:2}"; do
        grep -v '^static ' "$1" | grep -oF "$w" | wc -l
    done | tr '\n' ' '
}
"$AXE" compile "$SRC/tests/kernels/half2_ops.axe" --target cuda \
    -o "$tmp/h2.cu" 2>"$tmp/err"
got=$(words_count "$tmp/h2.cu" 'ax_hmul2(' 'ax_hadd2(' 'ax_hsub2(' \
    'ax_h2dup(' 'ax_h2pack(' 'ax_f2h((float)' 'mul.rn.f16x2 %0')
[ "$got" = "2 2 2 2 1 2 1 " ] && ok || bad "half2_ops.axe word operators: $got"
# bf16 alike (bf16x2_ops.axe, compiler_cuda_half2.c): seven word
# operators (ax_bmul2 3, ax_badd2 2, ax_bsub2 2), o's two and the
# division element by element (ax_f2b); for sm_80 each helper is
# fma.rn.bf16x2 with the constant 1, -1 or -0 (add.bf16x2 ... need
# sm_90), for sm_90 add/sub/mul.rn.bf16x2 and no fma.
"$AXE" compile "$SRC/tests/kernels/bf16x2_ops.axe" --target cuda \
    -o "$tmp/b2.cu" 2>"$tmp/err"
got=$(words_count "$tmp/b2.cu" 'ax_bmul2(' 'ax_badd2(' 'ax_bsub2(' \
    'ax_h2dup(' 'ax_h2pack(' 'ax_f2b((float)' 'fma.rn.bf16x2 %0' \
    'rn_bf16x2(a, 0x3f803f80u, b)' 'rn_bf16x2(b, 0xbf80bf80u, a)' \
    'rn_bf16x2(a, b, 0x80008000u)' 'add.rn.bf16x2 %0')
[ "$got" = "3 2 2 3 1 3 1 1 1 1 0 " ] && ok || bad "bf16x2_ops.axe sm_80: $got"
"$AXE" compile "$SRC/tests/kernels/bf16x2_ops.axe" --target cuda \
    --arch sm_90 -o "$tmp/b2.cu" 2>"$tmp/err"
got=$(words_count "$tmp/b2.cu" 'ax_bmul2(' 'add.rn.bf16x2 %0' \
    'sub.rn.bf16x2 %0' 'mul.rn.bf16x2 %0' 'fma.rn.bf16x2')
[ "$got" = "3 1 1 1 0 " ] && ok || bad "bf16x2_ops.axe sm_90: $got"
# max, min and neg a word at a time (half2_minmax.axe): two each of
# ax_hmax2, ax_hmin2, ax_bmax2, ax_bmin2, one ax_hneg2 and ax_bneg2
# (a ^ 0x80008000), and the pair at the run-time start k * 4 (the words
# of a at (v_k * 4L + i) / 2) while k * 3's add stays per element.
"$AXE" compile "$SRC/tests/kernels/half2_minmax.axe" --target cuda \
    -o "$tmp/mm.cu" 2>"$tmp/err"
got=$(words_count "$tmp/mm.cu" 'ax_hmax2(' 'ax_hmin2(' 'ax_bmax2(' \
    'ax_bmin2(' 'ax_hneg2(' 'ax_bneg2(' 'max.f16x2 %0' 'min.bf16x2 %0' \
    'ax_hmul2(t_a[(0L + (v_k * 4L)' 'ax_st16(t_a, 0L + (v_k * 3L)')
[ "$got" = "2 2 2 2 1 1 1 1 1 1 " ] && ok || bad "half2_minmax.axe: $got"
# --explain's word form line: which instruction, or why element by
# element (half2_overlap's source overlapping the destination, its odd
# base; bf16x2_ops at sm_80 by fma.rn.bf16x2).
cli_row 0 "word form: two f16 of 'n' a 32-bit word at a time (max.f16x2)" \
    "$SRC/tests/kernels/half2_minmax.axe" --target cuda --explain
cli_row 0 "word form: two f16 of 'n' a 32-bit word at a time (the sign bits flipped)" \
    "$SRC/tests/kernels/half2_minmax.axe" --target cuda --explain
cli_row 0 "word form: two bf16 of 'z' a 32-bit word at a time (fma.rn.bf16x2 as a * b + -0: mul.rn.bf16x2 needs sm_90)" \
    "$SRC/tests/kernels/bf16x2_ops.axe" --target cuda --explain
cli_row 0 "word form: element by element: a source is the destination at another region" \
    "$SRC/tests/kernels/half2_overlap.axe" --target cuda --explain
cli_row 0 "word form: element by element: no loop of even extent walks the destination at stride 1" \
    "$SRC/tests/kernels/half2_overlap.axe" --target cuda --explain
# half2_overlap.axe's three operators are refused a word at a time (a
# source the destination at another region, an odd destination base, a
# loop of odd stride beside the pair loop): all three element by element.
"$AXE" compile "$SRC/tests/kernels/half2_overlap.axe" --target cuda \
    -o "$tmp/h2o.cu" 2>"$tmp/err"
got=$(words_count "$tmp/h2o.cu" 'ax_hadd2(' 'ax_hmul2(' 'ax_f2h((float)' \
    'uint32_t t_a[' 'uint32_t t_c[')
[ "$got" = "0 0 3 1 1 " ] && ok || bad "half2_overlap.axe refusals: $got"
"$AXE" compile "$K/gemm_f16_i4_regb.axe" --target cuda -o "$tmp/rb.cu" \
    2>"$tmp/err"
got=$(words_count "$tmp/rb.cu" 'ax_hmul2(t_bf[' 'ax_h2pack(AXE_LD(t_Sc' \
    'ax_f2h(' 'ax_h2f(' 'ax_i2 += 2L')
[ "$got" = "1 1 0 0 1 " ] && ok || bad "gemm_f16_i4_regb scale multiply: $got"
cli_row 0 "schedule gemm.thread_fma" "$K/gemm_mma.axe" --target cuda \
    --schedule gemm=thread_fma
cli_row 0 "k_fig5_copy_cta" "$K/fig5_copy.axe" --target c

# Dynamic shared memory above 48 KiB, up to the architecture's limit.
cli_row 0 "cudaFuncSetAttribute(" "$SRC/tests/kernels/reduce_tree.axe" \
    -D L=512 --target cuda
cli_row 0 "extern __shared__ __align__(128) unsigned char ax_dsmem[];" \
    "$SRC/tests/kernels/reduce_tree.axe" -D L=512 --target cuda --arch sm_86
cli_row 1 "bytes of shared memory (tensors at 16-byte offsets): a CTA on sm_86 has at most 101376" \
    "$SRC/tests/kernels/reduce_tree.axe" -D L=1024 --target cuda --arch sm_86
cli_row 0 "cudaFuncSetAttribute(" "$SRC/tests/kernels/reduce_tree.axe" \
    -D L=1024 --target cuda --arch sm_90
# Data-dependent starts: the C backend's message, formatted by the host.
cli_row 0 "region of 'Emb' out of bounds at run time (line 14): dimension 0 starts at %ld with length 1 but the extent is %ld; the start reads ids[%ld] = %ld" \
    "$K/embedding.axe" --target cuda
cli_row 0 'extern "C" const char *axe_error_embedding(void)' "$K/embedding.axe" \
    --target cuda
cli_row 0 "partials combined by an atomicCAS loop around fmaxf" \
    "$SRC/tests/kernels/kernel_reduce.axe" --target cuda --explain
cli_row 0 "cuda sm_80: cp.async.ca.shared.global, 4 bytes per access" \
    "$K/gemm.axe" --target cuda --explain
cli_row 0 "axe_ptx_cp_async_wait<0>(); /* the cp.async copies above are complete */" \
    "$K/transpose.axe" --target cuda
cli_row 0 "the warpgroup's named barrier bar.sync 1+wgid, 128" \
    "$SRC/tests/kernels/wg_reduce.axe" --target cuda --explain
# Multi-stage cp.async pipelines: the stage count from the kernel's
# buffers; each condition that fails is named (variants of
# gemm_pipelined.axe edited by sed).
cli_row 0 "pipeline over k: 2 stages, copy into 'As' at k % 2; the prologue issues tiles 0 to 0, iteration k issues tile k + 1 (when below the trip count) and commits one group, cp.async.wait_group 1 before the first sync after the copies" \
    "$K/gemm_pipelined.axe" --target cuda --explain
cli_row 0 "pipeline over k: 3 stages, copy into 'Bs' at k % 3" \
    "$K/gemm_pipelined.axe" -D STAGES=3 --target cuda --explain
cli_row 0 "axe_ptx_cp_async_wait<2>(); /* tile k complete" \
    "$K/gemm_pipelined.axe" -D STAGES=3 --target cuda
cli_row 0 "pipeline over k: 3 stages, copy into 'Xs' at k % 3" \
    "$SRC/tests/kernels/pipeline_regions.axe" --target cuda --explain
cli_row 0 "no pipeline over k: no cp.async copy into stage k % S of a shared tensor" \
    "$K/gemm_mma.axe" --target cuda --explain
# A read whose stage size differs from its copy's (plain and swizzled):
# no pipeline, and no wait_group 1 in the .cu.
for f in pipeline_stage_mismatch pipeline_stage_mismatch_swz; do
    cli_row 0 "no pipeline over k: op 2 addresses 'Xs' in stages of 32 elements, its copies in stages of 64 (the stages would overlap)" \
        "$SRC/tests/kernels/$f.axe" --target cuda --explain
    if "$AXE" compile "$SRC/tests/kernels/$f.axe" --target cuda >"$tmp/mm.cu" &&
        ! grep -q 'axe_ptx_cp_async_wait<[1-9]' "$tmp/mm.cu"; then
        ok
    else
        bad "$f: pipelined or not compiled"
    fi
done
# pipe_row PATTERN SED: gemm_pipelined.axe edited by SED is not pipelined,
# --explain says PATTERN, and the .cu waits with wait_group 0 only.
pipe_row() {
    sed "$2" "$K/gemm_pipelined.axe" >"$tmp/pipe.axe"
    cli_row 0 "no pipeline over k: $1" "$tmp/pipe.axe" --target cuda --explain
    if "$AXE" compile "$tmp/pipe.axe" --target cuda >"$tmp/pipe.cu" &&
        ! grep -q 'axe_ptx_cp_async_wait<[1-9]' "$tmp/pipe.cu"; then
        ok
    else
        bad "pipe_row '$2': pipelined or not compiled"
    fi
}
pipe_row "no sync after op 3, the last read of the stages" \
    '/gemm(acc/,/sync;/{/^        sync;/d}'
pipe_row "no sync between the copies into stages and op 3, which reads them" \
    '0,/^        sync;/{/^        sync;/d}'
pipe_row "op 3 reads 'As' other than affinely at stage k % 2" \
    's/gemm(acc, As.view(S\[(128, 32):(40, 1)\] + k/gemm(acc, As.view(S[(128, 32):(40, 1)] + (k + 1)/'
pipe_row "an access to 'As' leaves its stage of 5000 elements" \
    's/k % STAGES \* 5120/k % STAGES * 5000/g'
pipe_row "the source 'B' is written in the kernel" \
    's/^    cta fill(acc, 0);/&\n    cta fill(B[0 : +128, 0 : +32], 0);/'
pipe_row "'As' is accessed outside the loop body's own operators (1 times)" \
    's/^    cta fill(acc, 0);/&\n    cta copy(As.view(S[(128, 32):(40, 1)]), A[0 : +128, 0 : +32]);/'
pipe_row "copy into 'Bs' rotates over 3 stages, the first one over another count" \
    '/copy(Bs/s/k % STAGES \* 5120/k % 3 * 2560/'
pipe_row "the copies into stages are not consecutive statements (op 3)" \
    's/^        cta copy(Bs.view/        cta fill(acc, 0);\n&/'
pipe_row "the copies into 'As' use stages of 5120 and 4000 elements" \
    '/copy(Bs/s/Bs.view(S\[(128, 32):(40, 1)\] + k % STAGES \* 5120)/As.view(S[(128, 32):(40, 1)] + k % STAGES * 4000)/'
# Two stage tensors read by different operators: the last read of
# either (op 4, of Xs) needs the sync after it, not only the last read
# of the tensor found last (op 2, of Ys).
cat >"$tmp/two.axe" <<'AXE'
kernel two(X: f32[64, 8], Y: f32[64, 8], Z: f32[8, 8]) grid(1) threads(32)
{
    shared Xs: f32[16, 8];
    shared Ys: f32[16, 8];
    register r: f32[8, 8] layout S[(8, 8):(8, 1)];
    register acc: f32[8, 8] layout S[(8, 8):(8, 1)];
    for k in range(8) {
        warp copy(Xs[k % 2 * 8 : +8, 0 : +8], X[k * 8 : +8, 0 : +8]);
        warp copy(Ys[k % 2 * 8 : +8, 0 : +8], Y[k * 8 : +8, 0 : +8]);
        sync;
        thread copy(r, Ys[k % 2 * 8 : +8, 0 : +8]);
        thread add(acc, acc, r);
        sync;
        thread copy(r, Xs[k % 2 * 8 : +8, 0 : +8]);
        thread add(acc, acc, r);
    }
    if (tx == 0) {
        thread copy(Z, acc);
    }
}
AXE
cli_row 0 "no pipeline over k: no sync after op 4, the last read of the stages" \
    "$tmp/two.axe" --target cuda --explain
sed 's/^        thread add(acc, acc, r);$/&\n        sync;/' "$tmp/two.axe" >"$tmp/two_sync.axe"
cli_row 0 "pipeline over k: 2 stages, copy into 'Ys' at k % 2" \
    "$tmp/two_sync.axe" --target cuda --explain

# Kernels the CUDA backend refuses today, with the reason.
declare -A refused=(
    [gemm_fp8]="gemm on e4m3/e5m2 tensor cores (mma.sync m16n8k32 .e4m3/.e5m2) needs --arch sm_89 or later"
    [gemm_fp8_auto]="gemm on e4m3/e5m2 tensor cores (mma.sync m16n8k32 .e4m3/.e5m2) needs --arch sm_89 or later"
    [warp_mma_fp8]="gemm on e4m3/e5m2 tensor cores (mma.sync m16n8k32 .e4m3/.e5m2) needs --arch sm_89 or later"
)

compiled=()
for f in "$SRC"/examples/kernels/*.axe "$SRC"/tests/kernels/*.axe; do
    n=$(basename "$f" .axe)
    (cd "$(dirname "$f")" && "$AXE" compile "$n.axe" --target cuda) \
        >"$tmp/$n.cu" 2>"$tmp/$n.err"
    rc=$?
    if [ -n "${refused[$n]:-}" ]; then
        if [ "$rc" = 1 ] && grep -qF -- "${refused[$n]}" "$tmp/$n.err"; then
            ok
        else
            bad "$n: expected a refusal '${refused[$n]}', got $rc ($(head -c 300 "$tmp/$n.err"))"
        fi
        continue
    fi
    if [ "$rc" = 1 ] && grep -q "error: " "$tmp/$n.err"; then
        # a kernel added since this list: refused cleanly, not compiled
        echo "note: $n refused: $(head -1 "$tmp/$n.err" | head -c 200)"
        ok
        continue
    fi
    if [ "$rc" != 0 ]; then
        bad "$n: axe compile --target cuda exited $rc ($(head -c 300 "$tmp/$n.err"))"
        continue
    fi
    if (cd "$(dirname "$f")" && "$AXE" compile "$n.axe" --target cuda) |
        cmp -s - "$tmp/$n.cu"; then
        ok
    else
        bad "$n: the .cu differs between two runs"
    fi
    compiled+=("$n")
done

if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ] || exit 1
    echo "skipped: no nvcc (the .cu files were not built)"
    exit 77
fi

# Each .cu builds for sm_80 and sm_90 with every warning an error.
build() {
    "$NVCC" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra \
        -gencode arch=compute_80,code=sm_80 \
        -gencode arch=compute_90,code=sm_90 -c "$tmp/$1.cu" \
        -o "$tmp/$1.o" >"$tmp/$1.nv" 2>&1
}
for n in "${compiled[@]}"; do
    if build "$n"; then
        ok
    else
        bad "$n: nvcc: $(head -c 600 "$tmp/$n.nv")"
    fi
done

# The e4m3/e5m2 tensor-core kernels (refused below sm_89) build for sm_89
# and sm_90 from `--arch sm_89`.
for n in gemm_fp8 gemm_fp8_auto warp_mma_fp8; do
    f=$K/$n.axe
    [ -f "$f" ] || f=$SRC/tests/kernels/$n.axe
    if "$AXE" compile "$f" --target cuda --arch sm_89 >"$tmp/$n.cu" &&
        "$NVCC" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra \
            -gencode arch=compute_89,code=sm_89 \
            -gencode arch=compute_90,code=sm_90 -c "$tmp/$n.cu" \
            -o "$tmp/$n.o" >"$tmp/$n.nv" 2>&1; then
        ok
    else
        bad "$n (sm_89): $(head -c 600 "$tmp/$n.nv")"
    fi
done
# bf16 words at sm_90 (add.rn.bf16x2 ..., which sm_80 lacks) build for
# sm_90 from `--arch sm_90`.
if "$AXE" compile "$SRC/tests/kernels/bf16x2_ops.axe" --target cuda \
    --arch sm_90 >"$tmp/b90.cu" &&
    "$NVCC" -std=c++17 -Werror all-warnings -Xcompiler -Wall,-Wextra \
        -gencode arch=compute_90,code=sm_90 -c "$tmp/b90.cu" \
        -o "$tmp/b90.o" >"$tmp/b90.nv" 2>&1; then
    ok
else
    bad "bf16x2_ops (sm_90): $(head -c 600 "$tmp/b90.nv")"
fi

# ptx_has KERNEL ARCH [--schedule S | -D P=V]... REGEX...: the PTX of
# KERNEL (examples or tests) compiled with those options matches every
# REGEX; a REGEX written !RE must not match.
ptx_has() {
    local n=$1 arch=$2 f r opts=()
    shift 2
    while [ "${1:-}" = --schedule ] || [ "${1:-}" = -D ]; do
        opts+=("$1" "$2")
        shift 2
    done
    f=$K/$n.axe
    [ -f "$f" ] || f=$SRC/tests/kernels/$n.axe
    if ! "$AXE" compile "$f" --target cuda --arch "$arch" "${opts[@]}" >"$tmp/p.cu" ||
        ! "$NVCC" -arch="$arch" -ptx "$tmp/p.cu" -o "$tmp/p.ptx" 2>"$tmp/p.nv"; then
        bad "$n: no PTX ($(head -c 300 "$tmp/p.nv"))"
        return
    fi
    for r in "$@"; do
        if [ "${r#!}" != "$r" ]; then
            if grep -qE -- "${r#!}" "$tmp/p.ptx"; then
                bad "$n ($arch): the PTX has '${r#!}'"
            else
                ok
            fi
        elif grep -qE -- "$r" "$tmp/p.ptx"; then
            ok
        else
            bad "$n ($arch): the PTX has no '$r'"
        fi
    done
}
ptx_has fig5_copy sm_80 'ld\.global(\.nc)?\.v4\.' 'st\.global\.v4\.'
ptx_has fig5_copy sm_90 'ld\.global(\.nc)?\.v4\.' 'st\.global\.v4\.'
ptx_has shuffle_sum_f32 sm_80 'shfl\.sync\.bfly\.b32'
ptx_has softmax sm_90 'shfl\.sync\.bfly\.b32'
ptx_has sync_in_if sm_80 'bar\.sync'
ptx_has i4_vec sm_80 'cp\.async\.cg\.shared\.global \[%r[0-9]+\], \[%rd[0-9]+\], 16;' 'ld\.shared\.v4\.' 'st\.global\.v4\.'
ptx_has i4_ldsm sm_80 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' '!ld\.local'
ptx_has i4_ldsm_auto sm_90 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16'
ptx_has i4_ldsm_hexcute sm_90 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' '!ld\.local' '!st\.local'
ptx_has ldsm_f16_trans sm_80 'ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16' '!ld\.local' '!st\.local'
ptx_has ldsm_i8 sm_80 'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' '!ld\.local'
ptx_has bf16x2_ops sm_80 'fma\.rn\.bf16x2' '!(add|sub|mul)\.rn\.bf16x2'
ptx_has bf16x2_ops sm_90 'add\.rn\.bf16x2' 'sub\.rn\.bf16x2' \
    'mul\.rn\.bf16x2' '!fma\.rn\.bf16x2'
ptx_has half2_ops sm_80 'mul\.rn\.f16x2' 'add\.rn\.f16x2' 'sub\.rn\.f16x2'
ptx_has half2_minmax sm_80 'max\.f16x2' 'min\.f16x2' 'max\.bf16x2' \
    'min\.bf16x2'
ptx_has atomic_add_f32 sm_80 '(red|atom)\.global\.add\.f32'
# Collective and grid schedules: CTA barriers of reduce.tree, the
# warpgroup's named barrier (an id in a register, 128 threads) and the
# warp's, reduce.smem and copy.smem forced, argmax/argmin and i8
# butterflies, atomics of reduce.grid and gemm.split_k, the error record
# of data-dependent starts, dynamic shared memory above 48 KiB.
ptx_has row_reduce sm_80 'bar\.sync[[:space:]]+0;'
ptx_has wg_reduce sm_90 'bar\.sync[[:space:]]+%r[0-9]+, %r[0-9]+;' \
    'bar\.warp\.sync'
ptx_has wg_reduce sm_80 --schedule 'reduce#2=smem' --schedule 'reduce#4=smem' \
    'bar\.sync[[:space:]]+%r[0-9]+, %r[0-9]+;' 'bar\.warp\.sync'
ptx_has cta_reduce sm_80 --schedule 'reduce#1=smem' 'bar\.sync[[:space:]]+0;'
ptx_has restage sm_80 'bar\.sync[[:space:]]+0;'
ptx_has arg_reduce sm_80 'shfl\.sync\.bfly\.b32'
ptx_has arg_reduce sm_90 --schedule 'reduce#1=smem' 'bar\.warp\.sync'
ptx_has int_warp_sum sm_80 'shfl\.sync\.bfly\.b32'
ptx_has kernel_reduce sm_80 '(red|atom)\.global\.add\.f32' \
    '(red|atom)\.global\.add\.(s32|u32)' 'atom\.global\.cas\.b32'
ptx_has kernel_gemm sm_90 '(red|atom)\.global\.add\.f32'
ptx_has embedding sm_80 'atom\.global\.cas\.b64'
ptx_has gather_index sm_90 'atom\.global\.cas\.b64'
ptx_has reduce_tree sm_80 -D L=512 'bar\.sync[[:space:]]+0;'
# cp.async for global-to-shared copies: 4-byte elements of gemm.axe's
# padded tiles (.ca), 16-byte vectors of row_reduce's row (.cg), each
# operator's group committed and waited for before the sync.
ptx_has gemm sm_80 'cp\.async\.ca\.shared\.global \[%r[0-9]+\], \[%rd[0-9]+\], 4;' \
    'cp\.async\.commit_group' 'cp\.async\.wait_group 0;'
ptx_has row_reduce sm_90 'cp\.async\.cg\.shared\.global \[%r[0-9]+\], \[%rd[0-9]+\], 16;' \
    'cp\.async\.wait_group 0;'
# The pipelines: wait_group STAGES - 1 in the loop, 16-byte cp.async,
# ldmatrix from the stage (its offset k % STAGES * 5120 keeps 16-byte rows).
ptx_has gemm_pipelined sm_80 'cp\.async\.wait_group 1;' 'cp\.async\.wait_group 0;' \
    'cp\.async\.cg\.shared\.global \[%r[0-9]+\], \[%rd[0-9]+\], 16;' \
    'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' \
    'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32'
ptx_has gemm_pipelined sm_90 -D STAGES=3 'cp\.async\.wait_group 2;' \
    '!cp\.async\.wait_group 1;' 'ldmatrix\.sync\.aligned\.m8n8\.x2\.shared\.b16'
ptx_has pipeline_regions sm_80 'cp\.async\.wait_group 2;'
# Flash attention: both gemms on mma.sync with ldmatrix (V through
# .trans), the K/V pipeline, the quad butterflies of the row max and sum;
# at D 128 too, and its per-thread register loops unrolled (AXE_UNROLL).
ptx_has flash_attention sm_80 'cp\.async\.wait_group 1;' \
    'cp\.async\.cg\.shared\.global \[%r[0-9]+\], \[%rd[0-9]+\], 16;' \
    'ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16' \
    'ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16' \
    'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32' \
    'shfl\.sync\.bfly\.b32' 'ex2\.approx'
ptx_has flash_attention sm_90 -D SEQ=4096 -D D=128 'cp\.async\.wait_group 1;' \
    'ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16' \
    'mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32' \
    '!ld\.local' '!st\.local'
cli_row 0 "_Pragma(\"unroll\")" "$K/flash_attention.axe" --target cuda

# Tensor cores: the mma.sync of the dtypes, ldmatrix where the plan says.
MMA='mma\.sync\.aligned'
LDM='ldmatrix\.sync\.aligned\.m8n8'
ptx_has gemm_mma sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x4\.shared\.b16" "$LDM\.x2\.shared\.b16"
ptx_has gemm_mma sm_90 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x4\.shared\.b16" "$LDM\.x2\.shared\.b16"
ptx_has gemm_swizzle sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x4\.shared\.b16" "$LDM\.x2\.shared\.b16"
ptx_has gemm_mma_trans sm_80 "$MMA\.m16n8k16" "$LDM\.x4\.trans\.shared\.b16" \
    "$LDM\.x2\.trans\.shared\.b16"
# Per-thread vector loads where ldmatrix is not legal (the instruction
# choice): gemm_mma_pad's A by ld.shared.u32 (B by ldmatrix), gemm_mma_vec's
# A by .v4 and B by .v2; no 16-bit shared loads left.
ptx_has gemm_mma_pad sm_80 'ld\.shared\.(u|b)32' "$LDM\.x2\.shared\.b16" \
    '!ld\.shared\.(u|b)16'
ptx_has gemm_mma_vec sm_80 'ld\.shared\.v4\.(u|b)32' 'ld\.shared\.v2\.(u|b)32' \
    "!$LDM" '!ld\.shared\.(u|b)16'
ptx_has gemm_mma_vec sm_90 'ld\.shared\.v4\.(u|b)32' 'ld\.shared\.v2\.(u|b)32'
# m16n8k8 for an f16 gemm whose K slices (24) are no multiple of 16.
ptx_has gemm_k24 sm_80 "$MMA\.m16n8k8\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x2\.shared\.b16" "$LDM\.x1\.shared\.b16" "!$MMA\.m16n8k16"
ptx_has gemm_k24_bf16 sm_80 "$MMA\.m16n8k8\.row\.col\.f32\.bf16\.bf16\.f32" \
    "$LDM\.x2\.shared\.b16" "$LDM\.x1\.shared\.b16" "!$MMA\.m16n8k16"
# The same atom for a register A (gemm.mma_reg_a, K = 24).
ptx_has gemm_reg_a_k24 sm_80 "$MMA\.m16n8k8\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x1\.shared\.b16" "!$MMA\.m16n8k16"
# Register A over 2 x 4 warps (replicated over the 4 warps of C's
# columns): each warp packs its own A fragments, B by ldmatrix.
ptx_has gemm_reg_a_wn sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x2\.shared\.b16"
ptx_has gemm_reg_a_wn_auto sm_90 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32"
# Register B over 2 x 4 warps (gemm.mma_reg_b), A by ldmatrix.x4.
ptx_has gemm_reg_b_wn sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32" \
    "$LDM\.x4\.shared\.b16"
ptx_has gemm_reg_b_wn_auto sm_90 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32"
ptx_has gemm_mma_global sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32" \
    "!ldmatrix"
ptx_has gemm_i8 sm_80 "$MMA\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32" \
    "$LDM\.x4\.shared\.b16" "$LDM\.x2\.shared\.b16"
ptx_has gemm_fp8 sm_89 "$MMA\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32" \
    "$LDM\.x4\.shared\.b16"
ptx_has warp_mma_fp8 sm_90 "$MMA\.m16n8k32\.row\.col\.f32\.e4m3\.e4m3\.f32" \
    "$MMA\.m16n8k32\.row\.col\.f32\.e5m2\.e5m2\.f32" \
    "$MMA\.m16n8k32\.row\.col\.f32\.e4m3\.e5m2\.f32" \
    "$MMA\.m16n8k32\.row\.col\.f32\.e5m2\.e4m3\.f32"
ptx_has warp_mma_f16 sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32"
ptx_has warp_mma_bf16 sm_80 "$MMA\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32"
ptx_has warp_mma_i8 sm_80 "$MMA\.m16n8k32\.row\.col\.s32\.s8\.s8\.s32"
ptx_has warp_mma_f64 sm_80 "$MMA\.m8n8k4\.row\.col\.f64\.f64\.f64\.f64"
# f32 keeps f32 accuracy: FMA with shuffles, no tf32 mma.sync.
ptx_has warp_mma sm_80 'shfl\.sync\.idx\.b32' "!mma\.sync" "!tf32"
# tf32 when the kernel asks for it (gemm(C, A, B, tf32)): mma.sync m16n8k8
# .tf32 on fragments converted by cvt.rna.tf32.f32, for the warp's
# registers (mma_atom) and the CTA's shared operands (mma_smem), while its
# f32 gemm without tf32 keeps the shuffles and FMA; a thread gemm with
# tf32 rounds by the C helper (no mma.sync, no cvt).
ptx_has gemm_tf32 sm_80 "$MMA\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32" \
    'cvt\.rna\.tf32\.f32' 'shfl\.sync\.idx\.b32'
ptx_has gemm_tf32 sm_90 "$MMA\.m16n8k8\.row\.col\.f32\.tf32\.tf32\.f32" \
    'cvt\.rna\.tf32\.f32'
ptx_has tf32_round sm_80 "!mma\.sync" '!cvt\.rna\.tf32'
ptx_has warp_slices sm_90 'shfl\.sync\.idx\.b32' 'shfl\.sync\.bfly\.b32' \
    "!mma\.sync"

# ptxas -v of the GEMM examples: no spills and no stack frame (a register
# array indexed at run time lives in local memory), and registers per thread and
# shared bytes as tests/golden/cuda_ptxas.txt records them for the nvcc
# release named in its first line (another release: spills only, with a
# note). gemm_f16_i4_regb and its auto twin spilled 12 bytes on sm_80 (16
# on sm_90) at 128 registers until its 32 dequantized f16 were held two
# to a 32-bit register. AXE_PTXAS_REGEN=1 rewrites the golden.
ptxas_line() {
    local n=$1 arch=$2 label=${3:-$1} f
    shift 2
    [ $# -gt 0 ] && shift
    f=$K/$n.axe
    "$AXE" compile "$f" --target cuda --arch "$arch" "$@" >"$tmp/q.cu" &&
        "$NVCC" -arch="$arch" -Xptxas -v -c "$tmp/q.cu" -o "$tmp/q.o" \
            >"$tmp/q.nv" 2>&1 || return 1
    awk -v n="$label" -v a="$arch" '
        /ptxas info *: Used/ { for (i = 1; i <= NF; i++) {
            if ($(i + 1) == "registers,") r = $i
            if ($(i + 1) == "bytes" && $(i + 2) ~ /^smem/) m = $i } }
        /stack frame/ { for (i = 1; i <= NF; i++)
            if ($(i + 1) == "bytes" && $(i + 2) == "stack") st = $i }
        /spill stores/ { for (i = 1; i <= NF; i++) {
            if ($(i + 1) == "bytes" && $(i + 2) == "spill" && $(i + 3) == "stores,") ss = $i
            if ($(i + 1) == "bytes" && $(i + 2) == "spill" && $(i + 3) == "loads") sl = $i } }
        END { printf "%s %s registers %s smem %s stack %s spill_stores %s spill_loads %s\n",
                     n, a, r, (m == "" ? 0 : m), st, ss, sl }' "$tmp/q.nv"
}
golden=$SRC/tests/golden/cuda_ptxas.txt
release=$("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
: >"$tmp/ptxas.txt"
for ka in gemm:sm_80 gemm:sm_90 gemm_mma:sm_80 gemm_mma:sm_90 \
    gemm_pipelined:sm_80 gemm_pipelined:sm_90 gemm_i8:sm_80 \
    gemm_i8:sm_90 gemm_fp8:sm_89 gemm_fp8:sm_90 gemm_splitk:sm_80 \
    gemm_splitk:sm_90 warp_mma:sm_80 warp_mma:sm_90 warp_mma_f16:sm_80 \
    warp_mma_f16:sm_90 warp_slices:sm_80 warp_slices:sm_90 \
    gemm_f16_i4_regb:sm_80 gemm_f16_i4_regb:sm_90 \
    gemm_f16_i4_regb_auto:sm_80 gemm_f16_i4_regb_auto:sm_90; do
    if ! ptxas_line "${ka%%:*}" "${ka#*:}" >>"$tmp/ptxas.txt"; then
        bad "$ka: no ptxas report ($(head -c 300 "$tmp/q.nv"))"
    fi
done
# flash_attention at the issue's size (seq 4096), head dim 64 and 128:
# at D 128 its shared tiles pass 48 KiB, so they are dynamic (smem 0
# there); at D 64 they are 45 KiB, static.
for d in 64 128; do
    for arch in sm_80 sm_90; do
        ptxas_line flash_attention "$arch" "flash_attention_d$d" -D SEQ=4096 \
            -D D="$d" >>"$tmp/ptxas.txt" ||
            bad "flash_attention D=$d $arch: no ptxas report ($(head -c 300 "$tmp/q.nv"))"
    done
done
if grep -vq 'stack 0 spill_stores 0 spill_loads 0$' "$tmp/ptxas.txt"; then
    bad "spills or a stack frame (local memory): $(grep -v 'stack 0 spill_stores 0 spill_loads 0$' "$tmp/ptxas.txt")"
else
    ok
fi
if [ "${AXE_PTXAS_REGEN:-0}" = 1 ]; then
    { echo "# nvcc release $release: ptxas -v of the GEMM examples (tests/compiler_cuda.sh)"
      cat "$tmp/ptxas.txt"; } >"$golden"
elif [ "$(head -1 "$golden" | awk '{print $4}')" != "$release:" ]; then
    echo "note: nvcc release $release, golden of $(head -1 "$golden" | awk '{print $4}') registers and shared bytes not compared"
elif diff <(tail -n +2 "$golden") "$tmp/ptxas.txt" >"$tmp/ptxas.diff"; then
    ok
else
    bad "ptxas -v differs from $golden: $(cat "$tmp/ptxas.diff")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
