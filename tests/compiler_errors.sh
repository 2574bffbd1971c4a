#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Negative tests of the kernel compiler ($AXE_BIN compile): malformed
# programs exit 2, well-formed but wrong programs exit 1, each with exactly
# one diagnostic: `axe: FILE:LINE:COL: <kind>: <reason>`, the source line
# and a caret under the column (3 lines on stderr), never a crash; "no
# schedule" adds one `axe: FILE:LINE:COL: note: OP.NAME: reason` line per
# schedule (expect_notes). Each row gives the program body, the expected
# exit code, FILE:LINE:COL and a pattern of the reason. The last line is
# "N passed, N failed".
set -u

# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_counts

# expect CODE LINE:COL PATTERN <<< PROGRAM
# expect CODE LINE:COL PATTERN <<< PROGRAM (XARGS: more compile options).
expect() {
    local code=$1 loc=$2 pat=$3
    cat >"$tmp/k.axe"
    # shellcheck disable=SC2086
    (cd "$tmp" && timeout 60 "$AXE" compile k.axe ${XARGS:-} >"$tmp/out" 2>"$tmp/err")
    local rc=$?
    if [ $rc -eq "$code" ] && [ "$(wc -l <"$tmp/err")" = 3 ] &&
        head -1 "$tmp/err" | grep -qE -- "^axe: k\.axe:$loc: [a-z ]+: .*$pat" &&
        sed -n 3p "$tmp/err" | grep -qE '^ *\^$' && [ ! -s "$tmp/out" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: expected $code at $loc matching '$pat', got $rc:"
        cat "$tmp/err"
        sed 's/^/    | /' "$tmp/k.axe" | head -20
    fi
}

# expect_notes LINE:COL HEAD NOTE... <<< PROGRAM: exit 1, the error line
# ends with HEAD (literal), then the source line and the caret, then
# exactly one note line per NOTE, in order, each compared literally (the
# complete reason: nothing is cut; XARGS: more compile options).
expect_notes() {
    local loc=$1 head=$2 n=4 note
    shift 2
    cat >"$tmp/k.axe"
    # shellcheck disable=SC2086
    (cd "$tmp" && "$AXE" compile k.axe ${XARGS:-} >"$tmp/out" 2>"$tmp/err")
    local rc=$? ok=1
    [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" = $((3 + $#)) ] &&
        [ "$(head -1 "$tmp/err")" = "axe: k.axe:$loc: error: $head" ] &&
        sed -n 3p "$tmp/err" | grep -qE '^ *\^$' && [ ! -s "$tmp/out" ] || ok=0
    for note in "$@"; do
        [ "$(sed -n ${n}p "$tmp/err")" = "axe: k.axe:$loc: note: $note" ] || ok=0
        n=$((n + 1))
    done
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: expected notes at $loc: $head / $*, got $rc:"
        cat "$tmp/err"
    fi
}

# expect_split_pairs NOTE...: the kernel on stdin compiles, its copy runs
# as copy.split storing whole i4 bytes (the pairs dealt whole), and
# --explain gives each NOTE as the reason a schedule was rejected.
expect_split_pairs() {
    local note ok=1
    cat >"$tmp/k.axe"
    (cd "$tmp" && "$AXE" compile k.axe --explain >"$tmp/out" 2>&1) || ok=0
    grep -qxF '  chosen copy.split' "$tmp/out" &&
        grep -qF '    i4 stores: whole bytes' "$tmp/out" || ok=0
    for note in "$@"; do
        grep -qxF "  rejected $note" "$tmp/out" || ok=0
    done
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: expected copy.split of whole bytes, rejected: $*, got:"
        head -40 "$tmp/out"
    fi
}

H='kernel k(A: global f32[64, 64], B: global f32[64, 64]) grid(1) threads(128)'

# ---- distributed tensors (issue 14 §2): the mesh, placements, device operators
expect 1 1:10 "has a gpuid layout, but the program declares no mesh" <<<"kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)]) grid(1) threads(1) {}"
expect 1 2:10 "tensor 'A' has no placement on the mesh of 2 devices.*R\[2:1@gpuid\].*0@gpuid" <<<"mesh(2);
kernel k(A: f32[8], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {}"
expect 1 2:10 "do not cover each of the 4 devices exactly once: two coordinates reach one device" <<<"mesh(4);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)] + R[2:1@gpuid]) grid(1) threads(1) {}"
expect 1 2:10 "a device holds nothing \(iter 2:4@gpuid\)" <<<"mesh(4);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)] + R[2:4@gpuid]) grid(1) threads(1) {}"
expect 1 2:10 "reach 2 devices, but the mesh has 4" <<<"mesh(4);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)]) grid(1) threads(1) {}"
expect 1 2:10 "reach 4 devices, but the mesh has 2" <<<"mesh(2);
kernel k(A: f32[8] layout S[(4,2):(1@gpuid,1)]) grid(1) threads(1) {}"
expect 1 2:10 "lives on device 2, outside the mesh's devices 0 .. 1" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + 2@gpuid) grid(1) threads(1) {}"
expect 1 2:10 "has gpuid iters and a gpuid offset" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)] + 1@gpuid) grid(1) threads(1) {}"
expect 1 3:12 "tensor 'S' is shared: only global params are distributed" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    shared S: f32[8] layout S[(2,4):(1@gpuid,1)];
}"
# Loops and ifs around device operators are unrolled and folded at
# compile time, or kept (runtime trips and conditions): a condition on an
# id (devices would diverge), declarations inside, the unrolling bounds.
expect 1 3:9 "device operators under an if on the block/thread id 'bx': every device must take the same branch \\(the condition may read params, -D values, runtime scalars and the variables of loops around device operators\\)" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    if (bx == 0) {
        device copy(B, A);
    }
}"
expect 1 5:13 "under an if on the block/thread id 'tid_in_wg': every device must take the same branch" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(2) {
        cta fill(A, 1);
        if (i + tid_in_wg < 1) {
            cta fill(A, 2);
        } else {
            device copy(B, A);
        }
    }
}"
expect 1 3:9 "device operators under an if on the block/thread id 'bx': every device must take the same branch" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(2) threads(1) {
    if (n + bx > 0) {
        device copy(B, A);
    }
}"
# Kept device loops (a runtime trip count): a region start of a device
# operator on the kept loop's variable takes one plan per value, so it
# must take few (through 'X % C', a loop of few trips or an if bounding
# the variable: 'if (i < 5000)' is not few enough), each
# within its tensor (at most 64 values; kept ifs around it that admit
# none), a trip count that overflows; the variable is a scalar operand
# (an i32 value), not negated nor narrowed to i8, while another loop's
# variable inside a kept loop is none.
expect 1 4:23 "the region start 'i' reads the variable 'i' of a kept device loop of up to 2147483647 trips other than through 'X % C' \\(X a polynomial in it\\): one plan per value needs few values \\(write 'i % C' or bound it by an if, <= 4096\\)" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[2,8] layout S[(2,8):(1@gpuid,1)]) grid(1) threads(1) {
    for i in range(n) {
        device copy(B[i:+1, 0:+8], A);
    }
}"
expect 1 5:27 "the region start 'i' reads the variable 'i' of a kept device loop of up to 5000 trips" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8000,8] layout S[(8000,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n) {
        if (i < 5000) {
            device copy(B[i:+1, 0:+8], A);
        }
    }
}"
expect 1 4:29 "the region start 'i % 4 \\* 2' of 'B' \\(dim 0\\) is 2 at i = 1, outside \\[0, 1\\] \\(the extent 2 minus the length 1\\)" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[2,8] layout S[(2,8):(1@gpuid,1)]) grid(1) threads(1) {
    for i in range(n) {
        device copy(B[i % 4 * 2:+1, 0:+8], A);
    }
}"
# A start reading two kept loops' variables names both at the value.
expect 1 5:33 "the region start 'i % 2 \\+ j % 2' of 'B' \\(dim 0\\) is 2 at i = 1, j = 1, outside \\[0, 1\\]" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[2,8] layout S[(2,8):(1@gpuid,1)]) grid(1) threads(1) {
    for i in range(n) {
        for j in range(n) {
            device copy(B[i % 2 + j % 2:+1, 0:+8], A);
        }
    }
}"
expect 1 4:25 "the region starts of a device operator take more than 64 values \\(one exchange plan each\\)" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[128,8] layout S[(128,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n) {
        device copy(B[i % 100:+1, 0:+8], A);
    }
}"
expect 1 5:13 "device copy: the kept ifs around it admit no value of its region starts" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[2,8] layout S[(2,8):(1@gpuid,1)]) grid(1) threads(1) {
    for i in range(n) {
        if (i % 2 > 1) {
            device copy(B[i % 2:+1, 0:+8], A);
        }
    }
}"
# A loop whose trip count differs between CTAs (a grid-scope loop) cannot
# hold a device operator: every device must run it the same number of
# times (trip counts read runtime scalars only).
expect 1 3:20 "a trip count may read runtime scalars, not 'bx'" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(2) threads(1) {
    for i in range(n + bx) {
        device copy(B, A);
    }
}"
expect 1 3:20 "a trip count overflows 64-bit integers for some values of its runtime scalars" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n * n * n) {
        device copy(B, A);
    }
}"
expect 2 5:27 "'j' is an enclosing loop variable, not a tensor: an operand is a tensor region, or where the operator takes one a literal, a runtime scalar or a kept device loop's variable" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n) {
        for j in range(2) {
            cta add(A, A, j);
        }
        device copy(B, A);
    }
}"
expect 1 4:23 "a negated kept loop variable is not an operand \\(use sub, or neg on a register\\)" <<<"mesh(2);
kernel k(n: i32, A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n) {
        cta add(A, A, -i);
        device copy(B, A);
    }
}"
expect 1 4:23 "'i' is a kept device loop's variable \\(an i32 value\\), but add computes in i8 here: it is not narrowed \\(cast the tensors to i32\\)" <<<"mesh(2);
kernel k(n: i32, A: i8[8] layout S[8:1] + R[2:1@gpuid], B: i8[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(n) {
        cta add(A, A, i);
        device copy(B, A);
    }
}"
expect 1 4:9 "a tensor is declared outside the loops and ifs that hold device operators" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(2) {
        shared S: f32[8];
        device copy(B, A);
    }
}"
expect 1 4:9 "more than 256 device operators \(counted after unrolling the loops around them\)" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(300) {
        device copy(B, A);
    }
}"
expect 1 4:9 "unrolling the loops around device operators parses more than 16384 statements" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(2000000000) {
        if (i < 0) {
            device copy(B, A);
        }
    }
}"
expect 1 3:29 "a loop variable cannot be named 'i': an enclosing loop variable has that name" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    for i in range(2) { for i in range(2) {
        device copy(B, A);
    } }
}"
expect 1 2:5 "a device operator needs a mesh" <<<"kernel k(A: f32[8], B: f32[8]) grid(1) threads(1) {
    device copy(B, A);
}"
expect 1 3:5 "dim 0 of 'B' is 4, but dim 0 of 'A' is 8" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[4] layout S[4:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device copy(B, A);
}"
expect 1 3:5 "'B' is i32 but 'A' is f32" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: i32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device copy(B, A);
}"
# The planner's general case has a bound: its tabled digits' extents
# multiply to at most 4096 (AX_DIST_MAX_CELLS).
XARGS="--target mpi" expect 1 3:5 "dim 0: the iters of src and dst have no common refinement between weights 1 and 4098; no plan by digits exists \(a tabled digit of extent 4098, times the plan's other tabled digits' 1, is beyond the table bound 4096\)" <<<"mesh(2);
kernel k(A: f32[4098] layout S[(2,2049):(1@gpuid,1)], B: f32[4098] layout S[(2049,2):(1,1@gpuid)]) grid(1) threads(1) {
    device copy(B, A);
}"
expect 1 3:5 "dimension 2, but 'A' has 2" <<<"mesh(2);
kernel k(A: f32[2,8] layout S[(2,8):(1@gpuid,1)], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(B, A, sum, 2);
}"
expect 1 3:5 "'A' has one dimension; its result would have none" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(B, A, sum, 0);
}"
expect 1 3:5 "dim 0 of 'B' is 4, but dim 1 of 'A' is 8" <<<"mesh(2);
kernel k(A: f32[2,8] layout S[(2,8):(1@gpuid,1)], B: f32[4] layout S[4:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(B, A, sum, 0);
}"
expect 1 3:5 "the destination has the source's dims but the reduced one" <<<"mesh(2);
kernel k(A: f32[2,8] layout S[(2,8):(1@gpuid,1)], B: f32[2,4] layout S[(2,4):(4,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(B, A, sum, 0);
}"
expect 1 3:5 "device copy: the destination A and the source A overlap \(both hold A\[0:8\]\): two regions of one tensor in a device operator must be disjoint" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device copy(A, A);
}"
expect 1 3:5 "device reduce: 'A' is both the destination and the source" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(A, A, sum, 0);
}"
# Regions of distributed tensors at device scope: constant starts, inside
# the tensor, every dim given, a layout for the region; no view, mask or
# runtime start; the operands' shapes are the regions'.
DR='kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid], B: f32[8] layout S[8:1] + R[2:1@gpuid]'
expect 1 3:5 "device copy: dim 0 of 'B\[0:4\]' is 4, but dim 0 of 'A' is 8" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B[0:4], A);
}"
expect 1 3:17 "device operators take whole distributed tensors or regions of them, not views: write 'B' or a region 'B\[start:end, ...\]'" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B.view(S[8:1]), A);
}"
expect 1 3:19 "the start of dim 0 of the region of 'B' reads the runtime scalar 'n': a region start of a device operator is a constant \(params, -D values, unrolled loops' variables\) or reads kept device loops' variables only \(one exchange plan per value\)" <<<"mesh(2);
$DR, n: i32) grid(1) threads(1) {
    device copy(B[n:+4], A[0:+4]);
}"
expect 1 3:22 "the start of dim 0 of the region of 'B' reads the block/thread id 'bx'" <<<"mesh(2);
$DR) grid(2) threads(1) {
    device copy(B[bx * 4:+4], A[0:+4]);
}"
expect 1 3:19 "the start of dim 0 of the region of 'B' reads an element of tensor 'I'" <<<"mesh(2);
$DR, I: i32[2] layout S[2:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device copy(B[I[0]:+4], A[0:+4]);
}"
expect 1 3:17 "device copy: dim 0 of the region of 'B' is 6 : \+4, outside \[0, 8\)" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B[6:+4], A[0:+4]);
}"
expect 1 3:17 "device copy: the region of 'B' has 2 ranges, but 'B' has 1 dims" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B[0:+4, 0:+1], A[0:+4]);
}"
# ':' alone is a whole dimension: one past the tensor's dimensions, or a
# runtime extent (no length to write), is refused.
expect 1 3:25 "':' is the whole of dimension 1, but 'B' has 1 dimension\$" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B[0:+4, :], A[0:+4]);
}"
expect 1 2:19 "':' is the whole of dimension 0 of 'Y', whose extent is set at launch: write 'start : \+length'" <<<'kernel k(Y: global f32[T, 8], T: i32) grid(1) threads(1) {
    thread fill(Y[:, 0 : +8], 1.0); }'
expect 1 3:17 "device operators take whole distributed tensors or regions of them: 'B' is masked" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(B[0:+4 masked 0], A[0:+4]);
}"
expect 1 3:20 "device copy: the region A\[2:6\] has no layout \(A's sliced to it\): dim 0: no layout exists for region \[2, 6\)" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)], B: f32[4] layout S[4:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device copy(B, A[2:+4]);
}"
expect 1 3:5 "device copy: the destination A\[3:7\] and the source A\[0:4\] overlap \(both hold A\[3:4\]\)" <<<"mesh(2);
$DR) grid(1) threads(1) {
    device copy(A[3:+4], A[0:+4]);
}"
expect 1 4:17 "'S' is shared, not a distributed global param" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    shared S: f32[8];
    device copy(S, A);
}"
expect 2 3:25 "expected sum, max or min" <<<"mesh(2);
kernel k(A: f32[2,8] layout S[(2,8):(1@gpuid,1)], B: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device reduce(B, A, argmax, 0);
}"
# device gemm: dtypes and shapes (every placement is planned: A and B on
# two different devices are both copied to C's placement,
# tests/kernels/dist/gemm_copy_both.axe).
expect 1 3:5 "'C' is f16, 'A' f16 and 'B' f16: C, A and B are all f32, all f64 or all i32, or A and B both f16 or both bf16 with an f32 C" <<<"mesh(2);
kernel k(C: f16[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: f16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: f16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
# mixed precision: f16 or bf16 A and B alike, with an f32 C only
expect 1 3:5 "'C' is f32, 'A' f16 and 'B' bf16: C, A and B are all f32" <<<"mesh(2);
kernel k(C: f32[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: f16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: bf16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
expect 1 3:5 "'C' is f64, 'A' bf16 and 'B' bf16: C, A and B are all f32" <<<"mesh(2);
kernel k(C: f64[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: bf16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: bf16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
expect 1 3:5 "'C' is f32, 'A' f32 and 'B' f16: C, A and B are all f32" <<<"mesh(2);
kernel k(C: f32[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: f16[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
expect 1 3:5 "but 'C' is \[4,5\], 'A' \[4,8\] and 'B' \[4,8\]" <<<"mesh(2);
kernel k(C: f32[4,5] layout S[(4,5):(5,1)] + R[2:1@gpuid], A: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
expect 1 3:5 "'C' has 1 dims, 'A' 2 and 'B' 2" <<<"mesh(2);
kernel k(C: f32[32] layout S[32:1] + R[2:1@gpuid], A: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, B);
}"
expect 1 3:5 "'C' is both C and an operand" <<<"mesh(2);
kernel k(C: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], A: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A, C);
}"
expect 2 3:21 "expected ',' and B, found '\)'" <<<"mesh(2);
kernel k(C: f32[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid], B: f32[4,8] layout S[(4,8):(8,1)] + R[2:1@gpuid]) grid(1) threads(1) {
    device gemm(C, A);
}"
expect 1 3:33 "chunks\(0\): the number of chunks is in \[1, 1024\]" <<<"mesh(2);
kernel k(C: f32[4,4] layout S[(2,2,4):(1@gpuid,4,1)], A: f32[4,8] layout S[(4,2,4):(4,1@gpuid,1)], B: f32[4,8] layout S[(4,2,4):(4,1@gpuid,1)]) grid(1) threads(1) {
    device gemm(C, A, B) chunks(0);
}"
XARGS="--target mpi" expect 1 3:26 "chunks\(2\) overlaps the local GEMM with a reduce-scatter of its partial sums over all 2 devices, but C's layout makes it all-reduce \(drop chunks\)" <<<"mesh(2);
kernel k(C: f32[4,4] layout S[(4,4):(4,1)] + R[2:1@gpuid], A: f32[4,8] layout S[(4,2,4):(4,1@gpuid,1)], B: f32[4,8] layout S[(4,2,4):(4,1@gpuid,1)]) grid(1) threads(1) {
    device gemm(C, A, B) chunks(2);
}"
expect 2 3:12 "expected a device operator \(copy, reduce or gemm\), found 'fill'" <<<"mesh(2);
kernel k(A: f32[8] layout S[8:1] + R[2:1@gpuid]) grid(1) threads(1) {
    device fill(A, 1.0);
}"
expect 2 1:13 "all named .* or all unnamed" <<<"mesh(x = 2, 2);
kernel k() grid(1) threads(1) {}"
expect 2 1:13 "mesh axis 'x' is named twice" <<<"mesh(x = 2, x = 2);
kernel k() grid(1) threads(1) {}"
expect 1 1:6 "mesh extent 0 is not in \[1, 1024\]" <<<"mesh(0);
kernel k() grid(1) threads(1) {}"
expect 1 1:6 "mesh extent 2048 is not in" <<<"mesh(2048);
kernel k() grid(1) threads(1) {}"
expect 1 1:1 "the mesh has more than 1024 devices" <<<"mesh(64, 64);
kernel k() grid(1) threads(1) {}"
expect 2 2:1 "a program declares one mesh" <<<"mesh(2);
mesh(2);
kernel k() grid(1) threads(1) {}"
expect 1 1:14 "a mesh has at most 4 axes" <<<"mesh(2,2,2,2,2);
kernel k() grid(1) threads(1) {}"
expect 1 2:10 "replica iter 2:1@m is not on gpuid" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1)] + R[2:1]) grid(1) threads(1) {}"
expect 1 2:10 "shard iter 4:1@tx is not on gpuid or m" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(1@gpuid,1@tx)]) grid(1) threads(1) {}"
expect 1 2:10 "iter 2:-1@gpuid needs a positive stride" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(-1@gpuid,1)]) grid(1) threads(1) {}"
expect 1 2:10 "iter 2:0@gpuid needs a positive stride" <<<"mesh(2);
kernel k(A: f32[8] layout S[(2,4):(0@gpuid,1)]) grid(1) threads(1) {}"
expect 2 1:6 "unknown name 'N'" <<<"mesh(N);
kernel k() grid(1) threads(1) {}"

# ---- syntax (exit 2)
expect 2 1:1 "expected 'param', 'mesh' or 'kernel'" <<<'kernal k() grid(1) threads(1) {}'
expect 2 1:10 "expected a tensor name" <<<'kernel k(: f32[4]) grid(1) threads(1) {}'
expect 2 1:13 'expected a dtype' <<<'kernel k(A: f31[4]) grid(1) threads(1) {}'
expect 2 2:5 "expected a statement" <<<"$H {
    copy(A, B);
}"
expect 2 2:16 "expected ','" <<<"$H {
    cta copy(A B);
}"
expect 2 2:18 "expected '\\)' \\(2 operands\\)" <<<"$H {
    cta copy(A, B, A);
}"
expect 2 2:17 "unknown tensor 'C'" <<<"$H {
    cta copy(A, C);
}"
expect 2 2:16 "unknown name 'q'" <<<"$H {
    cta copy(A[q : +4, 0:64], B[0:4, 0:64]);
}"
expect 2 3:1 "expected '}', found the end of the file" <<<"$H {
    cta copy(A, B);"
expect 2 1:20 "unexpected character '\\$'" <<<'kernel k(A: global $f32[4]) grid(1) threads(1) {}'
expect 1 1:17 'integer does not fit in 64 bits' <<<'kernel k(A: f32[99999999999999999999]) grid(1) threads(1) {}'
# numbers with an exponent are fill values (1e-5), not integers; a float
# beyond double is refused at its token
expect 2 1:17 "expected an integer expression, found '1e2'" <<<'kernel k(A: f32[1e2]) grid(1) threads(1) {}'
expect 1 2:18 'number 1e999 is beyond the range of double' <<<'kernel k(A: f32[4]) grid(1) threads(1)
{ thread fill(A, 1e999); }'
expect 2 2:14 "'int' is reserved" <<<"$H {
    register int: f32[4];
}"
expect 2 2:1 'expected the end of the file \(one kernel per file\)' <<<"$H {}
kernel k2() grid(1) threads(1) {}"
expect 2 2:19 "expected ';'" <<<"$H {
    cta copy(A, B)
    cta copy(B, A);
}"
expect 2 2:36 "expected '\\]'" <<<"$H {
    register r: f32[4] layout S[4:1;
}"

# ---- semantic errors (exit 1)
expect 1 1:10 "the layout of 'A' has 32 elements but its shape has 64" <<<'kernel k(A: f32[8, 8] layout S[(8, 4):(4, 1)]) grid(1) threads(1) {}'
expect 1 1:10 "the layout of 'A' does not admit its shape" <<<'kernel k(A: f32[6, 4] layout S[(4, 6):(6, 1)]) grid(1) threads(1) {}'
expect 1 2:14 'does not cover each of the cta.s 128 threads exactly once: thread 8 holds no element' <<<"$H {
    register r: f32[16, 64] layout S[(16, 8, 8):(16@tx, 1@tx, 1)];
}"
expect 1 2:14 'covers 64 threads, but the cta has 128: thread 64 holds no element' <<<"$H {
    register r: f32[8, 64] layout S[(8, 8, 8):(8@tx, 1@tx, 1)];
}"
expect 1 2:14 'thread iters 16:1@tx and 16:8@tx overlap: thread 8 is reached by two coordinates, so it would hold two different elements in one register' <<<"$H {
    register r: f32[16, 64] layout S[(16, 16, 4):(8@tx, 1@tx, 1)];
}"
expect 1 2:14 'thread iters 16:1@tx and 2:1@tx overlap: thread 1 is reached by two coordinates' <<<"$H {
    register S: f32[16, 2] layout S[(16, 2):(1@tx, 1@tx)] + R[8:16@tx];
}"
expect 1 2:14 'iter 4:0@laneid has stride 0 on a thread axis: its 4 elements would share one register of one thread' <<<"$H {
    register r: f32[4, 32] layout S[(4, 32):(0@laneid, 1@laneid)];
}"
expect 1 2:14 "the thread axes of 'r' reach 256 threads, but the cta has 128" <<<"$H {
    register r: f32[256] layout S[256:1@tx];
}"
expect 1 2:14 'leaves the range \[0, 32\) of laneid' <<<"$H {
    register r: f32[64] layout S[64:1@laneid];
}"
# Huge strides on thread axes are refused by range, not wrapped around
# (the product extent x stride overflows int64).
expect 1 2:14 'leaves the range \[0, 32\) of laneid' <<<"$H {
    register r: f32[32, 2] layout S[(32, 2):(4611686018427387904@laneid, 1)];
}"
expect 1 2:14 'leaves the range \[0, 8\) of wgid' <<<"$H {
    register r: f32[2] layout S[2:1] + R[(2, 128):(144115188075855872@wgid, 1@tid_in_wg)];
}"
expect 1 2:14 "mixes thread axes tx and laneid" <<<"$H {
    register r: f32[4, 32, 1] layout S[(4, 32, 1):(32@tx, 1@laneid, 1)];
}"
expect 1 2:30 'region of .A. out of bounds: dimension 0 covers \[60, 68\) but the extent is 64' <<<"$H {
    cta copy(B[0:8, 0:64], A[60:68, 0:64]);
}"
expect 1 2:57 'region of .A. out of bounds: dimension 1 covers \[0, 70\)' <<<"$H {
    for i in range(3) { cta copy(B[0:1, 0:32], A[0:1, i * 19 : +32]); }
}"
expect 1 2:17 'operand shape differs from the destination.s in dimension 1 \(32 vs 64\)' <<<"$H {
    cta copy(A, B[0:64, 0:32]);
}"
expect 1 3:14 "'r' is a per-thread register" <<<"$H {
    register r: f32[2, 64];
    cta copy(r, A[0:2, 0:64]);
}"
expect 1 3:17 "'r' is distributed over the cta's threads; a thread-scope operator needs a per-thread register" <<<"$H {
    register r: f32[128, 2] layout S[(128, 2):(1@tx, 1)];
    thread copy(r, A[0:128, 0:2]);
}"
expect 1 2:28 "a cta-scope operator cannot use the id 'tx'" <<<"$H {
    cta copy(B[0:1, 0:64], A[tx % 64 : +1, 0:64]);
}"
expect 1 2:53 'the divisor of .//. must be a compile-time constant' <<<"$H {
    for i in range(4) { cta copy(B[0:1, 0:64], A[bx // i : +1, 0:64]); }
}"
expect 1 2:12 'exp needs a floating-point destination, not i32' <<<'kernel k(A: i32[4]) grid(1) threads(1) {
    thread exp(A, A);
}'
expect 1 2:20 "'B' is f64 but the destination is f32 \\(use cast\\)" <<<'kernel k(A: f32[4], B: f64[4]) grid(1) threads(1) {
    thread copy(A, B);
}'
expect 1 2:20 "view of 'A' out of bounds: it reaches elements \\[0, 67\\] of a buffer of 64" <<<'kernel k(A: f32[64], B: f32[2, 4]) grid(1) threads(2) {
    thread copy(B, A.view(S[(2, 4):(4, 1)] + tx * 60));
}'
# Offsets and region ends near 2^63 overflow: refused, never wrapped.
expect 1 2:20 "view of 'A': its offset overflows" <<<'kernel k(A: f32[8], B: f32[4]) grid(1) threads(1) {
    thread copy(B, A.view(S[4:1] + 9223372036854775807));
}'
expect 1 2:20 "view of 'A': its offset overflows" <<<'kernel k(A: f32[8], B: f32[4]) grid(1) threads(32) {
    thread copy(B, A.view(S[4:1] + 9223372036854775790 + tx));
}'
expect 1 2:22 "region of 'A': dimension 0 ends beyond 2\^63 \(start up to 9223372036854775807, length 1\)" <<<'kernel k(A: f32[8], B: f32[1]) grid(1) threads(1) {
    thread copy(B, A[9223372036854775807 : +1]);
}'
expect 1 3:17 "'s' is shared memory of one CTA; a kernel-scope operator takes global tensors only" <<<"$H {
    shared s: f32[64, 64];
    kernel copy(s, B);
}"
expect 1 2:17 "a kernel-scope operator cannot use the id 'bx' \\(it runs once for the whole kernel\\)" <<<"$H {
    kernel copy(A[bx : +1, 0:64], B[0:1, 0:64]);
}"
expect 1 3:16 "a kernel-scope operator under an if on the id 'by'" <<<"$H {
    if (by < 1) {
        kernel copy(A, B);
    }
}"
# atomic_add(dst, src): dst is a global f32 or i32 tensor (atomicAdd).
expect 1 3:20 "atomic_add updates a global tensor, but 's' is shared memory \\(combine values inside a CTA with reduce or add\\)" <<<"$H {
    shared s: f32[64, 64];
    cta atomic_add(s, B);
}"
expect 1 3:23 "atomic_add updates a global tensor, but 'r' is register memory" <<<"$H {
    register r: f32[1, 64];
    thread atomic_add(r, B[tx % 64 : +1, 0 : +64]);
}"
expect 1 2:23 "atomic_add needs an f32 or i32 destination \\(as atomicAdd\\), not f16 \\('A'\\)" <<<'kernel k(A: f16[4], B: f16[4]) grid(2) threads(4) {
    thread atomic_add(A, B);
}'
expect 1 2:23 "atomic_add needs an f32 or i32 destination \\(as atomicAdd\\), not f64" <<<'kernel k(A: f64[4], B: f64[4]) grid(2) threads(4) {
    kernel atomic_add(A, B);
}'
expect 1 2:26 "'B' is i32 but the destination is f32 \\(use cast\\)" <<<'kernel k(A: f32[4], B: i32[4]) grid(2) threads(4) {
    thread atomic_add(A, B);
}'
expect 2 2:27 "expected '\\)' \\(2 operands\\)" <<<'kernel k(A: f32[4], B: f32[4]) grid(2) threads(4) {
    thread atomic_add(A, B, B);
}'
# A replicated source would add once per replica: refused.
expect_notes 4:10 "no schedule for atomic_add: none of thread_loop, split applies (reasons below)" \
    "atomic_add.thread_loop: the binding operand 'a' is replicated over threads (replica iter 4:8@laneid): each replica would update 'G' in place again" \
    "atomic_add.split: 'a' is distributed: its layout binds elements to threads" \
    <<<'kernel k(A: f32[4, 8], G: f32[4, 8]) grid(1) threads(32) {
    register a: f32[4, 8] layout S[(4, 8):(8, 1@laneid)] + R[4:8@laneid];
    warp copy(a, A);
    warp atomic_add(G, a);
}'
# kernel-scope reduce and gemm: global operands; the destination is not
# a source (the grid's threads update it while others read it).
# (the self-overlap refusal, below; tests/kernels/self_grid.axe: apart).
expect 1 2:12 "reduce#0: its source A\[0:64, 0:64\] may overlap its destination a view of A, and the kernel's 128 threads would update it while others still read it; copy the source through another tensor first$" <<<"$H {
    kernel reduce(A.view(S[64:1]), A, sum, 1);
}"
expect 1 2:12 "gemm#0: its source A\[0:64, 0:64\] may overlap its destination A\[0:64, 0:64\], and the kernel's 128 threads would update it" <<<"$H {
    kernel gemm(A, B, A);
}"
expect 1 3:19 "'s' is shared memory of one CTA; a kernel-scope operator takes global tensors only" <<<"$H {
    shared s: f32[64];
    kernel reduce(s, A, max, 0);
}"
expect 1 2:19 "argmax needs a register destination .*'r' is global memory" <<<'kernel k(A: f32[4, 64], r: i32[4]) grid(2) threads(32) {
    kernel reduce(r, A, argmax, 1);
}'
expect 1 2:12 "reduce needs a source of at least 2 dimensions, not 1" <<<'kernel k(A: f32[64], r: f32[1]) grid(2) threads(32) {
    kernel reduce(r, A, sum, 0);
}'
expect 1 2:20 "'B' is bf16 but the destination is f16 \\(use cast\\)" <<<'kernel k(A: f16[4], B: bf16[4]) grid(1) threads(1) {
    thread copy(A, B);
}'
# gemm dtypes: A and B agree; C is theirs, or f32 for f16/bf16, i32 for
# i8 (an i8 C is defined too: it wraps, tests/kernels/gemm_i8_acc8.axe).
expect 1 2:23 "'B' is i32 but 'A' is i8: gemm's A and B have one dtype, or are e4m3 and e5m2 \\(use cast\\)" <<<'kernel k(A: i8[4, 4], B: i32[4, 4], C: i32[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
expect 1 2:20 "'A' is i8 but the destination is f32: a gemm accumulates in its inputs' dtype, f16 and bf16 also in f32, i8 also in i32, e4m3 and e5m2 only in f32 \\(use cast\\)" <<<'kernel k(A: i8[4, 4], B: i8[4, 4], C: f32[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
expect 1 2:20 "'A' is i32 but the destination is i8" <<<'kernel k(A: i32[4, 4], B: i32[4, 4], C: i8[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
# gemm(C, A, B, tf32): an f32 gemm only; tf32 is gemm's only option.
expect 1 2:26 "tf32 rounds an f32 gemm's inputs \\(mma.sync m16n8k8 .tf32\\), but 'C' is f32, 'A' f16 and 'B' f16: C, A and B must be f32" <<<'kernel k(A: f16[4, 8], B: f16[4, 8], C: f32[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B, tf32);
}'
expect 1 2:26 "but 'C' is f64, 'A' f64 and 'B' f64: C, A and B must be f32" <<<'kernel k(A: f64[4, 8], B: f64[4, 8], C: f64[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B, tf32);
}'
expect 2 2:26 "expected tf32 \\(the only option of gemm after its 3 operands\\), found 'f16'" <<<'kernel k(A: f32[4, 8], B: f32[4, 8], C: f32[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B, f16);
}'
expect 2 2:23 "expected '\\)' \\(3 operands\\), found ','" <<<'kernel k(A: f32[4, 8], B: f32[4, 8], C: f32[4, 4]) grid(1) threads(1) {
    thread add(C, C, C, tf32);
}'
# Swizzled layouts: shared tensors (and views of them) only, well-formed
# parameters, M + S + B <= 40, one swizzle around the whole layout; the
# CuTe spelling is named as unsupported; a swizzled view stays in bounds.
expect 1 1:10 "tensor 'A': a swizzled layout \\(Swizzle<M,B,S>\\) is supported on shared tensors only, not on a global tensor" <<<'kernel k(A: f32[8, 8] layout Swizzle<0, 3, 3>(S[(8, 8):(8, 1)])) grid(1) threads(1) {}'
expect 1 2:14 "tensor 'r': a swizzled layout \\(Swizzle<M,B,S>\\) is supported on shared tensors only, not on a register tensor" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    register r: f32[8, 8] layout Swizzle<0, 3, 3>(S[(8, 8):(8, 1)]);
    thread copy(r, A);
}'
expect 1 2:32 "Swizzle<0,4,3> is not well-formed: need S >= B and S \\+ B <= 62" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<0, 4, 3>(S[(8, 8):(8, 1)]);
}'
expect 1 2:46 "swizzle parameter S = 63 is not in \\[0, 62\\]" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<0, 3, 63>(S[(8, 8):(8, 1)]);
}'
expect 1 2:32 "the CuTe swizzle Sw<B,M,S> is not supported in a kernel layout: write the Axe notation Swizzle<M,B,S>\\(layout\\)" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Sw<3, 0, 3> o S[(8, 8):(8, 1)];
}'
expect 1 2:12 "tensor 's': Swizzle<30,6,6> moves address bits up to 42; a kernel supports M \\+ S \\+ B <= 40" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<30, 6, 6>(S[(8, 8):(8, 1)]);
}'
expect 2 2:32 "Swizzle<M,B,S>\\(...\\) can only wrap the whole layout" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<0, 3, 3>(Swizzle<0, 3, 3>(S[(8, 8):(8, 1)]));
}'
expect 2 2:49 "expected 'inner' or 'outer', found 'middle'" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<0, 3, 3, middle>(S[(8, 8):(8, 1)]);
}'
expect 1 3:17 "view of 's' out of bounds: it reaches elements \\[32, 991\\] of a buffer of 960" <<<'kernel k(A: f32[30, 32]) grid(1) threads(32) {
    shared s: f32[30, 32] layout Swizzle<0, 5, 5>(S[(30, 32):(32, 1)]);
    cta copy(A, s.view(Swizzle<0, 5, 5>(S[(30, 32):(32, 1)] + 32)));
}'
# Constructs a kernel does not support are named: a term after a
# swizzle, CuTe composition, dtypes other than the nine.
expect 2 2:65 "Swizzle<M,B,S>\\(...\\) wraps the whole layout: put this term inside its parentheses" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout Swizzle<0,3,3>(S[(8, 8):(8, 1)]) + 3;
}'
expect 1 2:49 "CuTe composition 'o' is not supported in a kernel layout" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: f32[8, 8] layout S[(8, 8):(8, 1)] o 2;
}'
expect 1 1:13 "the dtype 'u4' is not supported in kernels \\(f16, bf16, f32, f64, i8, i32, e4m3, e5m2, i4\\)" <<<'kernel k(A: u4[8, 8]) grid(1) threads(1) {}'
# packed i4 (docs/compiler.md): a swizzle must keep whole bytes (M >= 1)
expect 1 2:12 "'s' is packed i4: its swizzle Swizzle<0,2,3> moves element address bit 0, the nibble within a byte \\(an i4 swizzle needs M >= 1: whole bytes\\)" <<<'kernel k(A: i4[8, 8]) grid(1) threads(1) {
    shared s: i4[8, 8] layout Swizzle<0,2,3>(S[(8, 8):(8, 1)]);
}'
# ... and so must a view's swizzle that is stored through (M = 0 would
# swap the nibbles of the whole-byte stores; outer, it would xor bit 0
# into bit 3: races); a read through one is exact (compiler_i4.sh)
expect 1 6:14 "'q' is packed i4: its view's Swizzle<0,1,3> moves element address bit 0: a store through it splits or swaps a byte's nibbles \\(stores need M >= 1; Swizzle<M \\+ 1,B,S> swizzles bytes as Swizzle<M,B,S>; reads may have M = 0\\)" <<<'kernel k(X: i4[8, 8], Y: i4[8, 8]) grid(1) threads(32) {
    shared q: i4[8, 8] layout S[(8, 8):(8, 1)];
    register r: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    register t: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    cta copy(r, X);
    cta copy(q.view(Swizzle<0,1,3>(S[(8, 8):(8, 1)])), r);
    sync;
    cta copy(t, q);
    cta copy(Y, t);
}'
expect 1 5:14 "'q' is packed i4: its view's Swizzle<0,1,3,outer> moves element address bit 0: a store through it splits" <<<'kernel k(X: i4[8, 8]) grid(1) threads(32) {
    shared q: i4[8, 8] layout S[(8, 8):(8, 1)];
    register r: i4[8, 8] layout S[(8, 4, 2):(4@tx, 1@tx, 1)];
    cta copy(r, X);
    cta copy(q.view(Swizzle<0,1,3,outer>(S[(8, 8):(8, 1)])), r);
}'
# packed i4 staged through shared memory (copy.smem): the staged store
# must give each thread whole bytes; here thread t stores elements t and
# t + 4 alone (the reason says what the scratch is, not its internal name)
expect_notes 5:9 "no schedule for copy: none of vector, dma, thread_loop, split, smem applies (reasons below)" \
    "copy.vector: no scalar plan to vectorize ('r' holds element digit (dim 1, weight 4) on a different thread than the binding operand: thread ownership disagrees)" \
    "copy.dma: 'q' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: 'r' holds element digit (dim 1, weight 4) on a different thread than the binding operand: thread ownership disagrees" \
    "copy.split: 'q' is distributed: its layout binds elements to threads" \
    "copy.smem: staging the source fails: two threads write one byte of the i4 scratch of 'r': thread 1 writes element address 1 and thread 0 element address 0; a packed store rewrites its whole byte (give each thread whole bytes: pairs of elements x, x + 1 with x even)" <<<'kernel k(X: i4[1, 8]) grid(1) threads(4) {
    register r: i4[1, 8] layout S[(1, 2, 4):(0, 1, 1@tx)];
    register q: i4[1, 8] layout S[(1, 4, 2):(0, 1@tx, 1)];
    cta copy(r, X);
    cta copy(q, r);
    cta copy(X, q);
}'
# a region cut inside a dimension of several iters off their boundaries
# (X's rows are the iters (2, 8, 2, 8); a start of bx * 128 + 8 is not
# known to be a multiple of the 16 rows inside the iter of 8): no affine
# plan, and copy.vector names the operand, the dimension and why
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 32 cuts its iters off their boundaries: its start is not known to be a multiple of 16, the elements inside the iter it starts in (only of 8)" \
    "copy.dma: 'Bs' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'Bs' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(16384, 2048, 2, 4, 32, 1)]) grid(2) threads(128) {
    shared Bs: i4[128, 128] layout S[(8, 2, 8, 64, 2):(2048, 2, 4, 32, 1)];
    cta copy(Bs[0 : 32, 0 : 128], X[bx * 128 + 8 : +32, 0 : 128]);
}'
# a dynamic start that is a multiple of those 16 rows, 112 plus a
# multiple of 64 (48 plus a multiple of 64 inside the iter's run of 128:
# bx * 64 + 112 is 112, where its 32 rows run past 128, for bx = 0)
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 32 cuts its iters off their boundaries: its start is 48 plus a multiple of 64, so its region of 32 may cross the end of a run of 128" \
    "copy.dma: 'Bs' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'Bs' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(16384, 2048, 2, 4, 32, 1)]) grid(2) threads(128) {
    shared Bs: i4[128, 128] layout S[(8, 2, 8, 64, 2):(2048, 2, 4, 32, 1)];
    cta copy(Bs[0 : 32, 0 : 128], X[bx * 64 + 112 : +32, 0 : 128]);
}'
# a constant start not a multiple of the 16 rows inside the iter of 8
# (168 = 10.5 x 16); then one that is (112 = 7 x 16) but whose 32 rows
# would run past that iter's run of 8 x 16 (digit 7, + 2 > 8)
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 32 cuts its iters off their boundaries: its start 168 is not a multiple of 16, the elements inside the iter it starts in" \
    "copy.dma: 'F' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'F' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(16384, 2048, 2, 4, 32, 1)], F: i4[32, 128] layout S[(2, 2, 8, 64, 2):(2048, 2, 4, 32, 1)]) grid(1) threads(128) {
    cta copy(F, X[168 : +32, 0 : 128]);
}'
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 32 cuts its iters off their boundaries: from its start 112 it runs past 128, the end of the run of 128 it starts in" \
    "copy.dma: 'F' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'F' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(16384, 2048, 2, 4, 32, 1)], F: i4[32, 128] layout S[(2, 2, 8, 64, 2):(2048, 2, 4, 32, 1)]) grid(1) threads(128) {
    cta copy(F, X[112 : +32, 0 : 128]);
}'
# a dynamic start whose region (m = 2 of the iter of 8) needs the iters
# outside it compact: X's tiles are padded to 32768 > 8 x 2048
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 32 cuts its iters off their boundaries: its iters outside the region are not one compact run (a dynamic start's offset would not be a multiple of it)" \
    "copy.dma: 'F' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'F' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(32768, 2048, 2, 4, 32, 1)], F: i4[256, 128] layout S[(2, 8, 2, 8, 64, 2):(16384, 2048, 2, 4, 32, 1)]) grid(8) threads(128) {
    cta copy(F[bx * 32 : +32, 0 : 128], X[bx * 32 : +32, 0 : 128]);
}'
# a dynamic start whose iter's stride (2) is not a multiple of the 4
# elements inside it: its offset bx * 8 * 2 / 4 would need a division
expect_split_pairs \
    "copy.vector: 'X' dimension 0: the region of length 8 cuts its iters off their boundaries: the stride 2 of the iter the region starts in is not a multiple of 4, the elements inside it (a dynamic start's offset would need a division)" \
    "copy.dma: 'F' is packed i4: its copies run element by element (thread_loop, split), in whole-byte vectors (vector) or staged (smem)" \
    "copy.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "copy.smem: the destination 'F' is not a register distributed over the cta's threads" <<<'kernel k(X: i4[32, 2] layout S[(2, 4, 4, 2):(8, 2, 16, 1)], F: i4[32, 2]) grid(4) threads(32) {
    cta copy(F[bx * 8 : +8, 0 : 2], X[bx * 8 : +8, 0 : 2]);
}'
expect 1 2:15 "the dtype 'tf32' is not supported in kernels" <<<'kernel k(A: f32[8, 8]) grid(1) threads(1) {
    shared s: tf32[8, 8];
}'
# an fp8 gemm accumulates in f32 only (not in its own type, nor f16)
expect 1 2:17 "'C' is e4m3 but a gemm of e4m3 inputs accumulates in f32 \\(as mma.sync .e4m3 does\\)" <<<'kernel k(A: e4m3[4, 4], B: e4m3[4, 4], C: e4m3[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
expect 1 2:17 "'C' is f16 but a gemm of e5m2 inputs accumulates in f32" <<<'kernel k(A: e5m2[4, 4], B: e5m2[4, 4], C: f16[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
expect 1 2:23 "'B' is f16 but 'A' is e4m3: gemm's A and B have one dtype, or are e4m3 and e5m2 \\(use cast\\)" <<<'kernel k(A: e4m3[4, 4], B: f16[4, 4], C: f32[4, 4]) grid(1) threads(1) {
    thread gemm(C, A, B);
}'
expect 2 1:13 "expected a dtype \\(f16, bf16, f32, f64, i8, i32, e4m3, e5m2, i4\\)" <<<'kernel k(A: f7[4]) grid(1) threads(1) {}'
expect 1 1:37 'threads per CTA must lie in \[1, 1024\]' <<<'kernel k(A: f32[4]) grid(1) threads(2048) {}'
expect 1 1:10 "tensor 'A': axis 'q' is neither the memory axis m nor a thread axis" <<<'kernel k(A: f32[4] layout S[4:1@q]) grid(1) threads(1) {}'
expect 1 1:10 "tensor 'A' is global: only register layouts may use thread axis 'tx'" <<<'kernel k(A: f32[4] layout S[4:1@tx]) grid(1) threads(4) {}'
expect 1 3:16 'the destination of reduce needs the source.s shape without dimension 1 \(dimension 0: 4 vs 64\)' <<<"$H {
    register r: f32[4] layout S[4:1] + R[128:1@tx];
    cta reduce(r, A, sum, 1);
}"
expect 1 2:9 'reduce over dimension 2 of a 2-dimensional source$' <<<"$H {
    cta reduce(B, A, max, 2);
}"
expect 1 2:17 'a destination cannot be broadcast' <<<'kernel k(A: f32[4], B: f32[4, 4]) grid(1) threads(1) {
    thread copy(A.bcast(1, 4), B);
}'
expect 2 2:25 "expected sum, max, min, argmax or argmin, found 'mean'" <<<"$H {
    thread reduce(A, B, mean, 1);
}"
expect 1 2:12 'sqrt needs a floating-point destination, not i32' <<<'kernel k(A: i32[4]) grid(1) threads(1) {
    thread sqrt(A, A);
}'
expect_notes 2:9 "no schedule for reduce: none of thread_loop, warp_shuffle, tree, smem, grid applies (reasons below)" \
    "reduce.thread_loop: no register operand distributed over the cta's threads binds elements to threads" \
    "reduce.warp_shuffle: a butterfly runs over the lanes of one warp, not at cta scope" \
    "reduce.tree: shared scratch of 262144 bytes would bring the CTA to 262144 bytes, beyond 232448" \
    "reduce.smem: the destination 'C' is not a register distributed over the cta's threads" \
    "reduce.grid: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(B: f32[256, 256], C: f32[256]) grid(1) threads(32) {
    cta reduce(C, B, sum, 0);
}'
expect 1 2:12 'reduce needs a source of at least 2 dimensions, not 1' <<<'kernel k(B: f32[8], C: f32[8]) grid(1) threads(1) {
    thread reduce(C, B, sum, 0);
}'
expect_notes 3:9 "no schedule for reduce: none of thread_loop, warp_shuffle, tree, smem, grid applies (reasons below)" \
    "reduce.thread_loop: the reduced dimension 0 is spread over threads (digit (rank/1)%1024)" \
    "reduce.warp_shuffle: a butterfly runs over the lanes of one warp, not at cta scope" \
    "reduce.tree: shared scratch of 262144 bytes would bring the CTA to 262144 bytes, beyond 232448" \
    "reduce.smem: the destination 'C' is not a register distributed over the cta's threads" \
    "reduce.grid: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(C: f32[64]) grid(1) threads(1024) {
    register r: f32[1024, 64] layout S[(1024, 64):(1@tx, 1)];
    cta reduce(C, r, sum, 0);
}'
expect 1 3:19 'region of .B. out of bounds: dimension 0 covers \[0, 63\)' <<<'kernel k(B: f32[32, 8], C: f32[8]) grid(1) threads(32) {
    register r: f32[32, 8] layout S[(32, 8):(1@tx, 1)];
    cta copy(r, B[tx : +32, 0:8]);
}'
expect 1 2:9 'gemm shapes disagree: C \(64,64\), A \(64,64\), B \(32,64\)' <<<"$H {
    cta gemm(A, B, B[0:32, 0:64]);
}"
expect_notes 2:9 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'A' is not a whole register tensor distributed over the cta's threads" \
    "gemm.mma_reg_a: 'B' is in memory: mma_reg_a takes A from registers (mma_smem reads it from memory)" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: no register operand distributed over the cta's threads binds elements to threads" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" <<<"$H {
    cta gemm(A, B, B);
}"
# A plan bound by a source updates a memory destination in place once per
# thread holding the binding's element: replicas and K digits refused.
expect_notes 6:10 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: 'a' is not a tile of the A fragment [16, 8] S[(2,8,2,4):(1,4@laneid,2,1@laneid)]" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: 'c' is not a whole register tensor distributed over a warp's lanes" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: the binding operand 'a' is replicated over threads (replica iter 4:8@laneid): each replica would update 'c' in place again" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f32[4, 8], B: f32[4, 8]) grid(1) threads(32) {
    register a: f32[4, 8] layout S[(4, 8):(1, 1@laneid)] + R[4:8@laneid];
    shared c: f32[4, 4];
    warp copy(a, A);
    warp fill(c, 0.0);
    warp gemm(c, a, B);
}'
expect_notes 4:10 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: 'a' is not a tile of the A fragment [16, 8] S[(2,8,2,4):(1,4@laneid,2,1@laneid)]" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: 'C' is not a whole register tensor distributed over a warp's lanes" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: the threads of digit (rank/1)%32 would all accumulate into the same elements of 'C'" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f32[4, 32], B: f32[4, 32], C: f32[4, 4]) grid(1) threads(32) {
    register a: f32[4, 32] layout S[(4, 32):(1, 1@laneid)];
    warp copy(a, A);
    warp gemm(C, a, B);
}'
expect_notes 4:10 "no schedule for add: none of thread_loop, split applies (reasons below)" \
    "add.thread_loop: the binding operand 'a' is replicated over threads (replica iter 4:8@laneid): each replica would update 'G' in place again" \
    "add.split: 'a' is distributed: its layout binds elements to threads" \
    <<<'kernel k(A: f32[4, 8], G: f32[4, 8]) grid(1) threads(32) {
    register a: f32[4, 8] layout S[(4, 8):(8, 1@laneid)] + R[4:8@laneid];
    warp copy(a, A);
    warp add(G, G, a);
}'
# gemm.mma_reg_a: A's atom tiles must be held by the warps of C's rows
# (here C's rows of tiles are split over two warps, A's over one).
expect_notes 6:9 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: the atom tile (0, 0) of 'a' is held by warp 0 but C's tile (0, 1) by warp 1: each warp multiplies the A fragments it holds" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'a' holds element digit (dim 0, weight 16) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[64, 16], B: f16[16, 16], C: f32[64, 16]) grid(1) threads(128) {
    register a: f16[64, 16] layout S[(4, 2, 8, 2, 4, 2):(1@warpid, 2, 4@laneid, 4, 1@laneid, 1)];
    register c: f32[64, 16] layout S[(2, 2, 2, 8, 2, 4, 2):(2@warpid, 4, 2, 4@laneid, 1@warpid, 1@laneid, 1)];
    cta copy(a, A);
    cta fill(c, 0);
    cta gemm(c, a, B);
    cta copy(C, c);
}'
# A replicated over warps, but over the wrong ones: C's row 0 is on warps
# 0 and 1, A's row 0 on warps 0 and 2 (the holders named).
expect_notes 6:9 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: the atom tile (0, 0) of 'a' is held by warps 0, 2 but C's tile (0, 2) by warp 1: each warp multiplies the A fragments it holds" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'a' holds element digit (dim 0, weight 16) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[32, 16], B: f16[32, 16], C: f32[32, 32]) grid(1) threads(128) {
    register a: f16[32, 16] layout S[(2, 2, 8, 2, 4, 2):(1@warpid, 2, 4@laneid, 4, 1@laneid, 1)] + R[2:2@warpid];
    register c: f32[32, 32] layout S[(2, 2, 8, 2, 2, 4, 2):(2@warpid, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)];
    cta copy(a, A);
    cta fill(c, 0);
    cta gemm(c, a, B);
    cta copy(C, c);
}'
# gemm.mma_reg_a's capacity: a register A replicated over every lane and
# warp puts each element on 128 threads (apply_set takes at most 32
# points); thread_fma applies, so mma_reg_a is forced to show the reason.
XARGS="--schedule gemm=mma_reg_a" expect_notes 6:9 "no schedule for gemm (forced): mma_reg_a does not apply (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: 'a' puts an element on more than 32 threads (a register operand's element lies on one lane of each warp that holds its atom tile)" \
    "gemm.mma_reg_b: 'B' is in memory: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: applies, but is not the forced schedule" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[16, 16], B: f16[32, 16], C: f32[16, 32]) grid(1) threads(128) {
    register a: f16[16, 16] layout S[(16, 16):(16, 1)] + R[32:1@laneid] + R[4:1@warpid];
    register c: f32[16, 32] layout S[(2, 8, 4, 4, 2):(2, 4@laneid, 1@warpid, 1@laneid, 1)];
    cta copy(a, A);
    cta fill(c, 0);
    cta gemm(c, a, B);
    cta copy(C, c);
}'
# gemm.mma_reg_b, the mirror: B's tile row 2 is on warps 2 and 3, C's
# column of tiles 2 on warps 1 and 3.
expect_notes 6:9 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'b' is a register: B is read from shared or global memory (mma_reg_b takes B from registers, mma_atom A, B and C in one warp's)" \
    "gemm.mma_reg_a: 'A' is in memory: mma_reg_a takes A from registers (mma_smem reads it from memory)" \
    "gemm.mma_reg_b: the atom tile (2, 0) of 'b' is held by warps 2, 3 but C's tile (0, 2) by warp 1: each warp multiplies the B fragments it holds" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'b' holds element digit (dim 0, weight 16) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[32, 16], B: f16[32, 16], C: f32[32, 32]) grid(1) threads(128) {
    register b: f16[32, 16] layout S[(2, 2, 8, 2, 4, 2):(2@warpid, 4, 4@laneid, 2, 1@laneid, 1)] + R[2:1@warpid];
    register c: f32[32, 32] layout S[(2, 2, 8, 2, 2, 4, 2):(2@warpid, 2, 4@laneid, 1@warpid, 4, 1@laneid, 1)];
    cta copy(b, B);
    cta fill(c, 0);
    cta gemm(c, A, b);
    cta copy(C, c);
}'
# A register B whose registers are in any order is taken element by
# element (compiler_mma_regs.c), but each element must sit on the lane
# the fragment names: Hexcute's pairing of columns n, n + 1 in one
# register word puts column 1 on lane 0 (the atom tiles of mma_reg_b are
# contiguous in n: gemm_f16_i4_regb.axe pairs n, n + 8) ...
expect_notes 8:10 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: 'A' is not a whole register tensor distributed over a warp's lanes" \
    "gemm.mma_smem: 'bf' is a register: B is read from shared or global memory (mma_reg_b takes B from registers, mma_atom A, B and C in one warp's)" \
    "gemm.mma_reg_a: 'A' is in memory: mma_reg_a takes A from registers (mma_smem reads it from memory)" \
    "gemm.mma_reg_b: 'bf' is not a tile of the B fragment [8, 16] S[(8,2,4,2):(4@laneid,2,1@laneid,1)]: element (1, 0) is on lane 0, but the B fragment puts it on lane 4 (value 0 of atom tile (0, 0))" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'bf' holds element digit (dim 0, weight 1) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[16, 16], B: i4[16, 16], C: f32[16, 16]) grid(1) threads(32) {
    register bq: i4[16, 16] layout S[(8, 2, 2, 4, 2):(4@laneid, 1, 2, 1@laneid, 4)];
    register bf: f16[16, 16] layout S[(8, 2, 2, 4, 2):(4@laneid, 1, 2, 1@laneid, 4)];
    register c: f32[16, 16] layout S[(2, 8, 2, 4, 2):(2, 4@laneid, 4, 1@laneid, 1)];
    warp copy(bq, B);
    warp cast(bf, bq);
    warp fill(c, 0);
    warp gemm(c, A, bf);
    warp copy(C, c);
}'
# ... and a warp holds whole atom tiles (here k % 2 picks the warp).
expect_notes 6:9 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: an mma atom runs on one warp, not at cta scope" \
    "gemm.mma_smem: 'b' is a register: B is read from shared or global memory (mma_reg_b takes B from registers, mma_atom A, B and C in one warp's)" \
    "gemm.mma_reg_a: 'A' is in memory: mma_reg_a takes A from registers (mma_smem reads it from memory)" \
    "gemm.mma_reg_b: 'b' is not a tile of the B fragment [8, 16] S[(8,2,4,2):(4@laneid,2,1@laneid,1)]: elements (0, 0) and (0, 1) of atom tile (0, 0) are held by different warps: a warp holds whole atom tiles" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'b' holds element digit (dim 0, weight 16) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f16[32, 16], B: f16[8, 16], C: f32[32, 8]) grid(1) threads(64) {
    register b: f16[8, 16] layout S[(8, 2, 4, 2):(4@laneid, 1, 1@laneid, 1@warpid)];
    register c: f32[32, 8] layout S[(2, 2, 8, 4, 2):(1@warpid, 2, 4@laneid, 1@laneid, 1)];
    cta copy(b, B);
    cta fill(c, 0);
    cta gemm(c, A, b);
    cta copy(C, c);
}'
# (The whole of the longest reason: the one-line diag would cut it.)
expect_notes 6:10 "no schedule for gemm: none of mma_atom, mma_smem, mma_reg_a, mma_reg_b, tensor_engine, thread_fma, split_k applies (reasons below)" \
    "gemm.mma_atom: 'a' is not a tile of the A fragment [16, 8] S[(2,8,2,4):(1,4@laneid,2,1@laneid)]: dim 0: tiled iter (2,2@m) is not inner iter (2,1@m)" \
    "gemm.mma_smem: 'a' is a register: mma_smem reads A and B from shared or global memory (mma_reg_a takes A from registers)" \
    "gemm.mma_reg_a: 'b' is a register: B is read from shared or global memory (mma_reg_b takes B from registers, mma_atom A, B and C in one warp's)" \
    "gemm.mma_reg_b: 'a' is a register: mma_reg_b takes B from registers and A from memory" \
    "gemm.tensor_engine: not a core kernel (TensorEngine runs a core kernel's gemm)" \
    "gemm.thread_fma: 'b' holds element digit (dim 0, weight 1) on a different thread than the binding operand: thread ownership disagrees" \
    "gemm.split_k: not at kernel scope (it splits the reduced dimension over the grid's threads)" \
    <<<'kernel k(A: f32[16, 8]) grid(1) threads(32) {
    register a: f32[16, 8] layout S[(2,8,4,2):(2,4@laneid,1@laneid,1)];
    register b: f32[8, 8] layout S[(8,2,4):(4@laneid,1,1@laneid)];
    register c: f32[16, 8] layout S[(2,8,4,2):(2,4@laneid,1@laneid,1)];
    warp copy(a, A);
    warp gemm(c, a, b);
}'
# a sync inside an if on a thread id (not every thread would reach it);
# on bx, by, bz, loop variables and scalars it is accepted
# (tests/kernels/sync_in_if.axe)
expect 1 2:5 'a sync inside an if whose conditions read a thread id: not every thread of the CTA would reach the barrier' <<<"$H {
    if (tx < 64) { sync; }
}"
expect 1 2:19 'a sync inside an if whose conditions read a thread id' <<<"$H {
    if (bx < 1) { if (warpid == 0) { } else { sync; } }
}"
# An if on a thread id finer than the operator's scope: accepted when the
# condition is uniform over each instance (tests/kernels/uniform_if.axe),
# else the split instance is named with two neighbouring threads that
# disagree.
expect 1 2:24 "a cta-scope operator under a condition that splits the CTA \\(threads 0\\.\\.127\\): 'tx < 64' is true for thread 63 and false for thread 64" <<<"$H {
    if (tx < 64) { cta copy(A, B); }
}"
W='kernel k(A: f32[8, 32], B: f32[8, 32]) grid(2) threads(256)'
expect 1 2:27 "a warp-scope operator under a condition that splits warp 3 \\(threads 96\\.\\.127\\): 'tx >= 100' is false for thread 99 and true for thread 100" <<<"$W {
    if (tx >= 100) { warp copy(A, B); }
}"
expect 1 2:27 "splits warp 4 \\(threads 128\\.\\.159\\): 'tx <= 128' is true for thread 128 and false for thread 129" <<<"$W {
    if (tx <= 128) { warp copy(A, B); }
}"
expect 1 2:25 "splits warp 3 \\(threads 96\\.\\.127\\): 'tx > 96' is false for thread 96 and true for thread 97" <<<"$W {
    if (tx > 96) { warp copy(A, B); }
}"
expect 1 2:26 "splits warp 2 \\(threads 64\\.\\.95\\): 'tx == 70' is false for thread 69 and true for thread 70" <<<"$W {
    if (tx == 70) { warp copy(A, B); }
}"
expect 1 2:29 "splits warp 0 \\(threads 0\\.\\.31\\): 'laneid != 0' is false for thread 0 and true for thread 1" <<<"$W {
    if (laneid != 0) { warp copy(A, B); }
}"
expect 1 3:14 "splits warp 3 \\(threads 96\\.\\.127\\): 'tx < 100' is true for thread 99 and false for thread 100" <<<"$W {
    if (tx < 100) { } else {
        warp copy(A, B);
    }
}"
expect 1 3:37 "splits warp 1 \\(threads 32\\.\\.63\\) when i = 1: 'tx < 32 \\+ 8 \\* i' is true for thread 39 and false for thread 40" <<<"$W {
    for i in range(2) {
        if (tx < 32 + 8 * i) { warp copy(A, B); }
    }
}"
expect 1 2:31 "a warpgroup-scope operator under a condition that splits warpgroup 0 \\(threads 0\\.\\.127\\): 'tx >= 64' is false for thread 63 and true for thread 64" <<<"$W {
    if (tx >= 64) { warpgroup copy(A, B); }
}"
expect 1 2:45 "splits warpgroup 0 \\(threads 0\\.\\.127\\) when bx = 1: 'wid_in_wg \\+ 2 \\* bx < 4' is true for thread 63 and false for thread 64" <<<"$W {
    if (wid_in_wg + 2 * bx < 4) { warpgroup copy(A, B); }
}"
# Deciding takes one evaluation per thread and value of the other
# variables the condition reads: beyond 2^22 the operator is refused, and
# beyond 2^24 for the whole program (operators under the same conditions
# at the same scope are decided once: in the second row each if costs
# 2^22 evaluations, the first one's four operators together, so the fifth
# if, not the second, passes the program's budget).
expect 1 4:36 "cannot decide whether 'tx < i \\+ j' is uniform over each warp: it reads thread ids and variables of more than 4194304 combinations" <<<"$W {
    for i in range(100000) {
        for j in range(1000) {
            if (tx < i + j) { warp copy(A, B); }
        }
    }
}"
expect 1 7:33 "cannot decide whether 'tx < 32 \\* i' is uniform over each warp: the program's uniformity checks would pass 16777216 evaluations" <<<"kernel k(A: f32[8, 32], B: f32[8, 32]) grid(1) threads(64) {
    for i in range(65536) {
        if (tx < 32 * i) { warp copy(A, B); warp copy(A, B); warp copy(A, B); warp copy(A, B); }
        if (tx < 32 * i) { warp copy(A, B); warp copy(A, B); warp copy(A, B); warp copy(A, B); }
        if (tx < 32 * i) { warp copy(A, B); }
        if (tx < 32 * i) { warp copy(A, B); }
        if (tx < 32 * i) { warp copy(A, B); }
    }
}"
expect 2 2:15 'expected a comparison' <<<"$H {
    if (bx + 1) { cta copy(A, B); }
}"
expect 1 3:26 'region of .A. out of bounds: dimension 0 covers \[0, 65\)' <<<'kernel k(A: f32[64, 64], B: f32[64, 64]) grid(4) threads(64) {
    if (bx <= 1) {
        thread copy(A[tx + bx : +1, 0:64], B[0:1, 0:64]);
    }
}'
# A name means one thing: no param declared twice or named like an id, no
# loop variable named like a param, an id or an enclosing loop variable
# (the param would win: M was 4 in every iteration); sibling loops may
# share a name.
expect 1 4:9 "a loop variable cannot be named 'M': a param has that name" <<<'param M = 4;
kernel k(A: f32[8, 4], B: f32[8, 4]) grid(1) threads(1)
{
    for M in range(3) {
        thread copy(B[M : +1, 0 : +4], A[M : +1, 0 : +4]);
    }
}'
expect 1 2:7 "param 'M' is declared twice" <<<'param M = 4;
param M = 5;
kernel k() grid(1) threads(1) {}'
expect 1 1:7 "a param cannot be named 'tx': a block/thread id has that name" <<<'param tx = 4;
kernel k() grid(1) threads(1) {}'
expect 1 2:9 "a loop variable cannot be named 'bx': a block/thread id has that name" <<<'kernel k(A: f32[4]) grid(2) threads(1) {
    for bx in range(2) { thread fill(A[bx : +1], 1.0); }
}'
expect 1 3:13 "a loop variable cannot be named 'i': an enclosing loop variable has that name" <<<'kernel k(A: f32[4]) grid(1) threads(1) {
    for i in range(2) {
        for i in range(2) { thread fill(A[i : +1], 1.0); }
    }
}'

# Dead code (its conditions never hold: tests/kernels/dead_guards.axe) is
# not bounds-checked, but still type-checked: dtypes, shapes, scopes,
# affine starts.
expect 1 3:16 'exp needs a floating-point destination, not i32' <<<'kernel k(I: i32[4]) grid(3) threads(1) {
    if (bx >= 3) {
        thread exp(I[bx * 100 : +1], I[bx * 100 : +1]);
    }
}'
expect 1 3:39 'operand shape differs from the destination.s in dimension 0 \(2 vs 1\)' <<<'kernel k(A: f32[4]) grid(3) threads(1) {
    if (bx >= 3) {
        thread copy(A[bx * 100 : +1], A[bx : +2]);
    }
}'
expect 1 3:26 "a region start multiplies two run-time values \(bx, tx\)" <<<'kernel k(A: f32[4]) grid(3) threads(2) {
    if (bx * 2 + tx >= 6) {
        thread fill(A[bx * tx : +1], 1.0);
    }
}'
expect 1 3:32 "'r' is distributed over the warp's threads; a thread-scope operator needs a per-thread register" <<<'kernel k(A: f32[32]) grid(1) threads(32) {
    register r: f32[32] layout S[32:1@laneid];
    if (tx > 31) { thread fill(r, 1.0); }
}'
# Both sides of a condition are 64-bit integers for every value of the
# ids and loop variables, whatever the enclosing ifs allow.
expect 1 2:34 'integer overflow in the condition of this if, for some value of its ids and loop variables' <<<'kernel k(A: f32[4]) grid(3) threads(1) {
    if (bx * 4611686018427387904 + bx * 4611686018427387904 > 0) {
        thread fill(A, 1.0);
    }
}'
expect 1 4:46 'integer overflow in the condition of this if' <<<'kernel k(A: f32[4]) grid(1) threads(64) {
    for i in range(2) {
        if (i < 1) {
            if (tx < i * 9223372036854775807 + 2) { warp fill(A, 1.0); }
        }
    }
}'

# Region starts and view offsets are affine in the ids and loop variables
# (constant multiples, // and % by constants): no product of two of them.
expect 1 2:36 "a region start multiplies two run-time values \\(bx, tx\\); it must be affine" <<<"$H {
    thread copy(B[0:1, 0:64], A[bx * tx : +1, 0:64]);
}"
expect 1 3:52 "a view offset multiplies two run-time values \\(i, tx // 8\\); it must be affine" <<<'kernel k(A: f32[4096], B: f32[4]) grid(1) threads(32) {
    for i in range(4) {
        thread copy(B, A.view(S[4:1] + (2 * tx + i * (tx // 8))));
    }
}'

# Warp and warpgroup operators need whole warps (warpgroups): a partial
# last warp would read lanes that do not exist.
expect 1 3:10 'a warp-scope operator needs a multiple of 32 threads per CTA, not 48' <<<'kernel k(A: f32[2, 32]) grid(1) threads(48) {
    register r: f32[1, 32] layout S[(1, 32):(1, 1@laneid)];
    warp copy(r, A[warpid : +1, 0:32]);
}'
expect 1 3:10 'a warp-scope operator needs a multiple of 32 threads per CTA, not 16' <<<'kernel k(A: f32[1, 32]) grid(1) threads(16) {
    register r: f32[1, 32] layout S[(1, 32):(1, 1@laneid)];
    warp copy(r, A);
}'
expect 1 2:15 'a warpgroup-scope operator needs a multiple of 128 threads per CTA, not 64' <<<'kernel k(A: f32[128]) grid(1) threads(64) {
    warpgroup fill(A, 1.0);
}'

# ---- masks in tiles, new operators, reduce kinds (docs/compiler.md)
T='kernel k(A: f32[4, 8], I: i32[4, 8]) grid(1) threads(1)'
expect 1 3:22 "the predicate 'p' of select is f32; it must be i8" <<<"$T {
    register p: f32[4, 8];
    thread select(A, p, A, A);
}"
expect 1 3:25 "operand shape differs from the destination's in dimension 1 \(4 vs 8\)" <<<"$T {
    register p: i8[4, 8];
    thread select(A, p, A[0:4, 0:4], A);
}" 
expect 1 2:15 "lt writes an i8 predicate \(0 or 1\); 'A' is f32" <<<"$T {
    thread lt(A, A, A);
}"
expect 1 3:21 "'I' is i32 but the other operand is f32 \(use cast\)" <<<"$T {
    register p: i8[4, 8];
    thread ge(p, A, I);
}"
expect 1 3:19 "argmax writes an i32 index; 'k' is f32" <<<"$T {
    register k: f32[4];
    thread reduce(k, A, argmax, 1);
}"
expect 1 2:19 "argmin needs a register destination .* 'I' is global memory" <<<'kernel k(A: f32[4, 8], I: i32[4]) grid(1) threads(1) {
    thread reduce(I, A, argmin, 1);
}'
expect 1 2:12 "iota along dimension 2 of a 2-dimensional destination" <<<"$T {
    thread iota(I, 2, 0);
}"
expect 1 2:20 "dimension -1 outside \[0, 8\)" <<<"$T {
    thread iota(I, -1, 0);
}"
expect 1 3:23 "iota's values lie in \[121, 128\], beyond the integers that i8 holds exactly" <<<"$T {
    register b: i8[4, 8];
    thread iota(b, 1, 121);
}"
expect 1 3:23 "iota's values lie in \[-2049, -2042\], beyond the integers that f16 holds exactly \(\[-2048, 2048\]\)" <<<"$T {
    register h: f16[4, 8];
    thread iota(h, 1, -2049);
}"
expect 1 2:20 "a cta-scope operator cannot use the id 'tx'" <<<'kernel k(A: global f32[32]) grid(1) threads(32) {
    cta iota(A, 0, tx);
}'
expect 1 2:23 "iota's start multiplies two run-time values \(bx, bx\)" <<<'kernel k(A: global f32[32]) grid(4) threads(32) {
    cta iota(A, 0, bx * bx);
}'
expect 1 2:12 "log needs a floating-point destination, not i32" <<<"$T {
    thread log(I, I);
}"
expect 1 2:12 "pow needs a floating-point destination, not i32" <<<"$T {
    thread pow(I, I, I);
}"
expect 1 2:12 "gelu_tanh needs a floating-point destination, not i32" <<<"$T {
    thread gelu_tanh(I, I);
}"
expect 1 2:26 "the fill value is NaN \(infinity times 0\)" <<<"$T {
    thread fill(A, inf * 0);
}"
expect 2 2:20 "expected a number or inf, found 'nan'" <<<"$T {
    thread fill(A, nan);
}"
expect 2 2:21 "expected ',' and iota's start" <<<"$T {
    thread iota(I, 1);
}"
expect 2 2:26 "expected ',' \(4 operands\)" <<<"$T {
    thread select(A, A, A);
}"

# ---- resource limits of one CTA and of the grid (H100: 227 KiB of shared
# memory per CTA, 255 32-bit registers per thread, CUDA's grid limits).
expect 1 3:12 "shared memory of one CTA reaches 233472 bytes with 't', beyond the 232448 bytes \\(227 KiB\\)" <<<"$H {
    shared s: f32[128, 256];
    shared t: f64[128, 100];
}"
expect 1 2:14 "registers of one thread reach 1024 bytes with 'r', beyond 255 32-bit registers \\(1020 bytes\\)" <<<"$H {
    register r: f32[256];
}"
expect 1 3:14 "registers of one thread reach 1032 bytes with 'q'" <<<"$H {
    register r: f32[64, 128] layout S[(64, 128):(1, 1@tx)];
    register q: f64[97, 128] layout S[(97, 128):(1, 1@tx)];
}"
expect 1 1:26 'grid dimension 0 is 2147483648, beyond 2147483647' <<<'kernel k(A: f32[4]) grid(2147483648) threads(1) {}'
expect 1 1:29 'grid dimension 1 is 65536, beyond 65535' <<<'kernel k(A: f32[4]) grid(1, 65536) threads(1) {}'
expect 1 1:32 'grid dimension 2 is 70000, beyond 65535' <<<'kernel k(A: f32[4]) grid(1, 1, 70000) threads(1) {}'

# ---- limits: deep nesting is refused at the token that passes the limit
# (never a stack overflow); long flat input compiles in linear time.
rep() { head -c "$2" /dev/zero | tr '\0' "$1"; }
expect 1 1:267 'expression nested deeper than 256 levels' < <(
    printf 'param N = %s1%s;\n' "$(rep '(' 50000)" "$(rep ')' 50000)"
    echo 'kernel k() grid(1) threads(1) {}')
expect 1 1:267 'expression nested deeper than 256 levels' < <(
    printf 'param N = %s1;\n' "$(rep '-' 200000)"
    echo 'kernel k() grid(1) threads(1) {}')
expect 1 2:2308 'expression nested deeper than 256 levels' < <(
    printf '%s {\n    thread copy(A[tx%s : +1, 0:64], B[0:1, 0:64]);\n}\n' "$H" \
        "$(rep '+' 300 | sed 's/+/ + 0 * tx/g')")
expect 1 65:17 'blocks nested deeper than 64' < <(
    echo "$H {"
    for _ in $(seq 60000); do echo '    if (tx < 1) {'; done
    for _ in $(seq 60000); do echo '    }'; done
    echo '}')

# ---- runtime scalars (`M: i32`, docs/compiler.md "Runtime scalars")
R='kernel k(X: global f32[M, 8], Y: global f32[M, 8], M: i32) grid((M + 31) // 32) threads(32)'
# a linear runtime grid is a fact (bx < T, by < 2 * T): proved up to it,
# refused one past it
expect 1 2:22 "region of 'Y' may be out of bounds: dimension 0 covers \[bx \+ 1, bx \+ 1 \+ 1\), which may pass the runtime extent T" <<<'kernel k(Y: global f32[T, 8], T: i32) grid(T) threads(1) {
    thread fill(Y[bx + 1 : +1, 0 : +8], 1.0); }'
expect 1 2:19 "region of 'Y' may be out of bounds: dimension 0 covers \[by, by \+ 1\), which may pass the runtime extent T" <<<'kernel k(Y: global f32[T, 8], T: i32) grid(1, 2 * T) threads(1) {
    thread fill(Y[by : +1, 0 : +8], 1.0); }'
# an access that may pass the runtime extent: unguarded, or under a guard
# one element too weak (<=), or shifted by one row
expect 1 2:53 "region of 'X' may be out of bounds: dimension 0 covers \[bx \* 32 \+ tx, bx \* 32 \+ tx \+ 1\), which may pass the runtime extent M; guard it" <<<"$R {
    register r: f32[1, 8]; thread copy(r, X[bx * 32 + tx : +1, 0 : +8]); }"
expect 1 2:78 "may be out of bounds" <<<"$R {
    register r: f32[1, 8]; if (bx * 32 + tx <= M) { thread copy(r, X[bx * 32 + tx : +1, 0 : +8]); } }"
expect 1 2:82 "may be out of bounds" <<<"$R {
    register r: f32[1, 8]; if (bx * 32 + tx < M) { thread copy(r, X[bx * 32 + tx + 1 : +1, 0 : +8]); } }"
# the else branch of the guard is not in bounds
expect 1 2:107 "may be out of bounds" <<<"$R {
    register r: f32[1, 8]; if (bx * 32 + tx < M) { thread fill(r, 1.0); } else { thread copy(r, X[bx * 32 + tx : +1, 0 : +8]); } }"
# scaled guards (tests/kernels/scaled_guards.axe passes): one row too
# weak each; the else of an == that is not an end of the range; a
# condition that gives no fact is named in a note with why
S='kernel k(A: f32[5, 8], U: global f32[2 * T, 8], T: i32) grid(1) threads(128)'
expect 1 2:61 'region of .A. out of bounds: dimension 0 covers \[0, 6\) but the extent is 5' <<<"$S {
    for i in range(8) { if (2 * i + 1 < 12) { thread fill(A[i : +1, 0 : +8], 1.0); } } }"
expect 1 2:56 "region of 'U' may be out of bounds: dimension 0 covers \[2 \* i, 2 \* i \+ 2\)" <<<"$S {
    for i in range(16) { if (i <= T) { thread fill(U[2 * i : +2, 0 : +8], 1.0); } } }"
expect_notes 2:54 "region of 'A' out of bounds: dimension 0 covers [-1, 3) but the extent is 5" \
    "the condition 'warpid == 1' (its else) was not used: '!=' (or the else of '==') only removes an end of a variable's range" <<<"$S {
    if (warpid == 1) { } else { thread fill(A[warpid - 1 : +1, 0 : +8], 1.0); } }"
expect_notes 2:57 "region of 'A' out of bounds: dimension 0 covers [0, 8) but the extent is 5" \
    "the condition 'i * i < 25' was not used: it is not linear (//, %, a loaded value or a product)" <<<"$S {
    for i in range(8) { if (i * i < 25) { thread fill(A[i : +1, 0 : +8], 1.0); } } }"
# a start below 0 for some M
expect 1 2:77 "dimension 0 starts at M - 1, which may be negative" <<<"$R {
    register r: f32[1, 8]; if (tx == 0) { if (bx == 0) { thread copy(r, X[M - 1 : +1, 0 : +8]); } } }"
# runtime scalars where compile-time constants are needed
expect 1 2:21 "'M' is a runtime scalar \(given at launch\), but the extents of register tensor 'q' must be compile-time constants" <<<"$R {
    register q: f32[M, 4]; }"
expect 1 2:22 "'M' is a runtime scalar \(given at launch\), but the extents of shared tensor 'q'" <<<"$R {
    shared q: f32[4, M]; }"
expect 1 1:27 "'M' is a runtime scalar: only dimension 0 of a global tensor may have a runtime extent" <<<'kernel k(X: global f32[4, M], M: i32) grid(1) threads(1) {}'
expect 1 2:44 "'M' is a runtime scalar \(given at launch\), but a stride must be a compile-time constant" <<<"$R {
    register q: f32[2, 4] layout S[(2, 4):(M, 1)]; }"
expect 1 1:52 "'M' is a runtime scalar \(given at launch\), but the thread count must be a compile-time constant" <<<'kernel k(X: global f32[M], M: i32) grid(1) threads(M) {}'
expect 1 2:50 "'M' is a runtime scalar \(given at launch\), but a region length must be a compile-time constant" <<<"$R {
    register r: f32[1, 8]; thread copy(r, X[0 : +M, 0 : +8]); }"
expect 1 1:30 "'X' has a runtime extent, so its layout is row-major" <<<'kernel k(X: global f32[M, 4] layout S[(8, 4):(4, 1)], M: i32) grid(1) threads(1) {}'
expect 1 1:41 "a grid extent may read runtime scalars, not 'tx'" <<<'kernel k(X: global f32[M], M: i32) grid(M + tx) threads(1) {}'
expect 1 2:37 "'Y' has a runtime extent: an operand names a region of it" <<<"$R {
    register r: f32[1, 8]; cta copy(Y, X); }"
expect 1 2:31 "a kernel-scope operator needs compile-time extents and grid \('Y' has a runtime extent\)" <<<"$R {
    if (M >= 1) { kernel copy(Y[0 : +1, 0 : +8], X[0 : +1, 0 : +8]); } }"
expect 1 2:43 "'X' has a runtime extent: views of it are not supported" <<<"$R {
    register r: f32[1, 8]; thread copy(r, X.view(S[8:1])); }"
# a cta operator under a condition on tx and a runtime scalar: not decided
expect 1 2:75 "cannot decide whether 'tx < M' is uniform over each cta: it reads thread ids and the runtime scalar 'M', whose value is known only at launch" <<<"$R {
    register r: f32[32, 8] layout S[(32, 8):(1@tx, 1)]; if (tx < M) { cta fill(r, 1.0); } }"
# declarations: dtype, duplicates, clashes with params, ids, tensors, loops
expect 1 1:31 "runtime scalar 'M': only i32, f32, f64, f16 and bf16 scalars are supported" <<<'kernel k(X: global f32[4], M: i8) grid(1) threads(1) {}'
# a float scalar (`eps: f32`) is a value for fill: never an extent, a
# region start, a condition or a grid size; it fills float tensors only
expect 1 1:24 "'E' is a runtime f32 scalar: a value \(for \`fill\` and operator operands\), not an integer \(it cannot be an extent" <<<'kernel k(X: global f32[E], E: f32) grid(1) threads(1) {}'
expect 1 2:42 "'e' is a runtime f32 scalar: a value \(for \`fill\` and operator operands\), not an integer" <<<'kernel k(X: global f32[8], e: f32) grid(1) threads(1) {
    register r: f32[1]; thread copy(r, X[e : +1]); }'
expect 1 2:29 "'e' is a runtime f16 scalar: a value \(for \`fill\` and operator operands\), not an integer" <<<'kernel k(X: global f32[8], e: f16) grid(1) threads(1) {
    register r: f32[1]; if (e < 1) { thread copy(r, X[0 : +1]); } }'
expect 1 1:42 "'e' is a runtime bf16 scalar: a value \(for \`fill\` and operator operands\)" <<<'kernel k(X: global f32[8], e: bf16) grid(e) threads(1) {}'
expect 1 2:40 "'e' is a runtime float scalar: it can fill a float tensor only, and 'r' is i32" <<<'kernel k(X: global i32[8], e: f64) grid(1) threads(1) {
    register r: i32[1]; thread fill(r, e); }'
expect 2 1:36 "'M' is declared twice or names a block/thread id" <<<'kernel k(X: global f32[M], M: i32, M: i32) grid(1) threads(1) {}'
expect 2 1:28 "'bx' is declared twice or names a block/thread id" <<<'kernel k(X: global f32[4], bx: i32) grid(1) threads(1) {}'
expect 1 2:39 "'M' is a runtime i32 scalar: it fills i32 and float tensors \(not narrowed\), and 'r' is i8" <<<'kernel k(X: global i8[8], M: i32) grid(1) threads(1) {
    register r: i8[1]; thread fill(r, M); }'
expect 2 2:28 "'M' is a param and a runtime scalar" <<<'param M = 4;
kernel k(X: global f32[4], M: i32) grid(1) threads(1) {}'
expect 2 1:10 "'M' names a runtime scalar and a tensor" <<<'kernel k(M: global f32[4], M: i32) grid(1) threads(1) {}'
expect 2 2:9 "loop variable 'M' reuses a runtime scalar's name" <<<"$R {
    for M in range(2) { } }"

# an axis name past AXE_AXIS_NAME_MAX - 1 bytes, in an offset or a stride
# (the name was copied into a 16-byte buffer: a stack overflow found by
# fuzz_kernel)
expect 2 1:29 "axis name longer than 15 bytes" <<<'kernel k(A: f32[4] layout 1@tx66666666666666ridvoidthreads(4) {}'
expect 2 2:39 "axis name longer than 15 bytes" <<<'kernel k(A: f32[4]) grid(1) threads(32) {
    register r: f32[32] layout S[32:1@laneid0123456789abcdef]; }'

# ---- scalar operands (docs/compiler.md, "Scalar operands")
S='kernel k(X: global f32[8], I: global i32[8], B: global i8[8], H: global f16[8], e: f32, M: i32) grid(1) threads(1)'
expect 1 2:32 "both sources of add are scalars: at least one must be a tensor \(use fill for a constant\)" <<<"$S {
    register r: f32[8]; thread add(r, 1.0, e); }"
expect 1 2:31 "both sources of lt are scalars" <<<"$S {
    register p: i8[8]; thread lt(p, 1, M); }"
expect 1 2:48 "'e' is a runtime f32 scalar, but add computes in i32 here: a float scalar is no operand of an integer operator" <<<"$S {
    register r: i32[8]; thread add(r, I[0:+8], e); }"
expect 1 2:47 "'M' is a runtime i32 scalar, but max computes in i8 here: an i32 scalar is not narrowed" <<<"$S {
    register r: i8[8]; thread max(r, B[0:+8], M); }"
expect 1 2:46 "the literal 0.5 is not an integer, but lt computes in i32 here" <<<"$S {
    register p: i8[8]; thread lt(p, I[0:+8], 0.5); }"
expect 1 2:48 "the literal -inf is not an integer, but sub computes in i32 here" <<<"$S {
    register r: i32[8]; thread sub(r, I[0:+8], -inf); }"
expect 1 2:47 "the literal 300 lies outside i8's range \[-128, 127\], in which add computes here" <<<"$S {
    register r: i8[8]; thread add(r, B[0:+8], 300); }"
expect 1 2:37 "the literal -2147483649 lies outside i32's range" <<<"$S {
    register p: i8[8]; thread ge(p, -2147483649, I[0:+8]); }"
expect 1 2:48 "the literal 70000 exceeds the largest finite f16 \(65504\), in which mul computes here" <<<"$S {
    register r: f16[8]; thread mul(r, H[0:+8], 70000); }"
expect 1 2:48 "a negated runtime scalar is not an operand \(use sub, or neg on a register\)" <<<"$S {
    register r: f32[8]; thread add(r, X[0:+8], -e); }"
expect 1 2:40 "copy takes tensor operands only: a scalar \(a literal or a runtime scalar\) is an operand of the elementwise binary operators, pow, the comparisons and select's values" <<<"$S {
    register r: f32[8]; thread copy(r, 1.0); }"
expect 1 2:39 "exp takes tensor operands only" <<<"$S {
    register r: f32[8]; thread exp(r, e); }"
expect 1 2:37 "the destination of fill must be a tensor, not a scalar" <<<"$S {
    register r: f32[8]; thread fill(1.0, r); }"
expect 1 2:42 "select's predicate must be an i8 tensor, not a scalar" <<<"$S {
    register r: f32[8]; thread select(r, 1, r, 0.0); }"
expect 1 2:52 "atomic_add takes tensor operands only" <<<"$S {
    register r: f32[8]; kernel atomic_add(X[0:+8], e); }"
expect 2 2:49 "expected a number, inf, a param or a runtime scalar after '-'" <<<"$S {
    register r: f32[8]; thread add(r, X[0:+8], -); }"
expect 2 2:50 "expected '\)' \(3 operands\)" <<<"$S {
    register r: f32[8]; thread add(r, X[0:+8], 2 * e); }"
expect 2 3:42 "'i' is an enclosing loop variable, not a tensor: an operand is a tensor region, or where the operator takes one a literal, a runtime scalar or a kept device loop's variable" <<<"$S {
    register r: f32[8];
    for i in range(2) { thread add(r, r, i); } }"
expect 2 2:42 "'tx' is a block/thread id, not a tensor" <<<"$S {
    register r: f32[8]; thread max(r, r, tx); }"
# iota with a runtime start: refused unless the bounds proof shows its
# values inside the destination's exact integers, with the guard that would
expect 1 2:44 "iota's values lie in \[-2147483648, 2147483678\], beyond the integers that i32 holds exactly \(\[-2147483648, 2147483647\]\), and no enclosing condition proves them inside; guard it \(e.g. 'if \(M <= 2147483616\)'\)" <<<"$S {
    register c: i32[32]; thread iota(c, 0, M); }"
# (the guard narrows M to at most 2147483617, scaled into bounds)
expect 1 2:72 "iota's values lie in \[-2147483648, 2147483648\].*guard it \(e.g. 'if \(M <= 2147483616\)'\)" <<<"$S {
    register c: i32[32]; if (M + 31 <= 2147483648) { thread iota(c, 0, M); } }"
expect 1 3:69 "iota's values lie in \[0, 2147483647\], beyond the integers that f32 holds exactly \(\[-16777216, 16777216\]\), and no enclosing condition proves them inside; guard it \(e.g. 'if \(bx \* 32 <= 16777185\)'\)" <<<'kernel k(Y: global f32[M, 32], M: i32) grid((M + 31) // 32) threads(32) {
    register r: f32[32, 32] layout S[(32, 32):(1@tx, 1)];
    if (M <= 16777218) { if (bx * 32 + 32 <= M) { cta iota(r, 0, bx * 32); cta copy(Y[bx * 32 : +32, 0 : +32], r); } } }'
expect 1 2:57 "iota's values lie in \[-2147483648, 0\], beyond the integers that f16 holds exactly \(\[-2048, 2048\]\).*'if \(M >= -2048\)'" <<<"$S {
    register c: f16[1]; if (M <= 0) { thread iota(c, 0, M); } }"

# ---- data-dependent starts (`Emb[ids[t] : +1, ...]`)
G='kernel k(E: global f32[64, 8], ids: global i32[32], fx: global f32[32], Y: global f32[32, 8]) grid(1) threads(32)'
expect 1 2:9 "'ids\[...\]' reads a tensor element: allowed in a region start only" <<<"$G {
    if (ids[0] < 3) { } }"
expect 1 2:45 "a data-dependent start reads 'fx', which is f32: it must be i32 or i8" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[fx[tx] : +1, 0 : +8]); }"
expect 1 2:53 "a region start reads 2 tensor elements; at most one is supported" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[ids[tx] + ids[0] : +1, 0 : +8]); }"
expect 1 2:52 "region of 'ids' out of bounds: dimension 0 covers \[32, 64\)" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[ids[tx + 32] : +1, 0 : +8]); }"
expect 1 2:45 "'ids' has 1 dimensions but the element gives 2" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[ids[tx, 0] : +1, 0 : +8]); }"
expect 1 2:42 "ids\[ids\[0\]\]|reads a tensor element" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[ids[ids[0]] : +1, 0 : +8]); }"
expect 1 2:110 "a data-dependent start reads register 'q': only a per-thread register in a thread-scope operator" <<<"$G {
    register q: i32[32] layout S[32:1@tx]; register r: f32[32, 8] layout S[(32, 8):(1@tx, 1)]; cta copy(r, E[q[0] : +32, 0 : +8]); }"
expect 1 2:69 "a cta-scope operator cannot use the id 'tx'" <<<"$G {
    register r: f32[32, 8] layout S[(32, 8):(1@tx, 1)]; cta copy(r, E[ids[tx] : +32, 0 : +8]); }"
expect 1 2:53 "multiplies two run-time values \\(ids\\[tx\\], ids\\[0\\]\\)" <<<"$G {
    register r: f32[1, 8]; thread copy(r, E[ids[tx] * ids[0] : +1, 0 : +8]); }"
expect 1 3:24 "data-dependent starts are supported in copy, fill and elementwise operators, not in reduce" <<<"$G {
    register r: f32[1]; register s: f32[1, 8];
    thread reduce(r, E[ids[tx] : +1, 0 : +8], sum, 1); }"

# ---- masked regions (`A[r : +128 masked 0.0, ...]`)
expect 1 2:40 "'r' is a register: only regions of global and shared tensors may be masked" <<<"$G {
    register r: f32[1, 8]; thread copy(r[0 : +2 masked 0.0, 0 : +8], E[0 : +2, 0 : +8]); }"
expect 1 2:42 "masked regions are supported in copy, fill and elementwise operators, not in reduce" <<<"$G {
    register r: f32[1]; thread reduce(r, E[60 : +1, 0 : +9 masked 0.0], sum, 1); }"
expect 1 2:79 "the masked dimensions of one region need one fill value \(0, then 1\)" <<<"$G {
    register r: f32[2, 8]; thread copy(r, E[63 : +2 masked 0.0, 4 : +8 masked 1.0]); }"
expect 1 2:43 "the fill value 1e\+39 of 'E' is beyond the range of float" <<<"$G {
    register r: f32[2, 8]; thread copy(r, E[63 : +2 masked 1000000000000000000000000000000000000000.0, 0 : +8]); }"
expect 2 2:60 "expected the fill value of a masked dimension" <<<"$G {
    register r: f32[2, 8]; thread copy(r, E[63 : +2 masked x, 0 : +8]); }"
expect 1 2:65 "region of 'E' out of bounds: dimension 1 covers \[4, 12\)" <<<"$G {
    register r: f32[2, 8]; thread copy(r, E[63 : +2 masked 0.0, 4 : +8]); }"

# expect_ok SECONDS ARGS... <<< PROGRAM: compiles (exit 0) within SECONDS
# of CPU time (ulimit -t: a guard against super-linear work that does not
# depend on how loaded the machine is), and within 10x that of wall time
# (a guard against a hang that burns no CPU).
expect_ok() {
    local secs=$1
    shift
    cat >"$tmp/k.axe"
    if (cd "$tmp" && ulimit -t "$secs" &&
        timeout "$((secs * 10))" "$AXE" compile k.axe "$@" >"$tmp/out" 2>"$tmp/err"); then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: a long program did not compile within $secs s of CPU time: $(head -c 300 "$tmp/err")"
    fi
}

# ---- the mpi runtime's limits (docs/compiler.md, "The MPI backend") ----
# It runs exchange plans of at most 32 digits (compiler_mpi_rt.h's
# AXE_MPI_MAX_DIGITS, the backend's AX_MPI_MAX_DIGITS: the same number),
# the planner up to 64. The layouts below split the 33 (32) bits of
# their coordinates at alternate places (extent-4 iters offset by one
# bit, strides shuffled so no two iters merge): 33 digits are refused
# at compile time, 32 compile.
rt=$(sed -n 's/^#define AXE_MPI_MAX_DIGITS \([0-9]*\)$/\1/p' "$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h")
be=$(sed -n 's/^#define AX_MPI_MAX_DIGITS \([0-9]*\)$/\1/p' "$SRC/src/compiler/backend/mpi/compiler_mpi.h")
if [ "$rt" = 32 ] && [ "$be" = 32 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: the mpi runtime runs plans of '$rt' digits, the backend allows '$be'"
fi
XARGS="--target mpi" expect 1 5:5 "device copy \(line 5\): its exchange plan has 33 digits, beyond the mpi runtime's 32" <<<"mesh(1024);
kernel wide(A: i8[8589934592] layout S[(4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,2):(32768,1@gpuid,131072,16@gpuid,2048,64@gpuid,4,256@gpuid,512,4@gpuid,64,16,8192,1,524288,2097152,256)],
            B: i8[8589934592] layout S[(2,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4):(1024,64,16@gpuid,131072,1@gpuid,2097152,4@gpuid,4,64@gpuid,2048,256@gpuid,8192,256,32768,16,524288,1)])
    grid(1) threads(1) {
    device copy(B, A);
}"
expect_ok 20 --target mpi -o "$tmp/k.c" <<<"mesh(1024);
kernel wide(A: i8[4294967296] layout S[(4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4):(16384,1@gpuid,65536,16@gpuid,256,64@gpuid,1024,256@gpuid,1,4@gpuid,4,4096,16,64,262144,1048576)],
            B: i8[4294967296] layout S[(2,4,4,4,4,4,4,4,4,4,4,4,4,4,4,4,2):(512,32,16@gpuid,65536,1@gpuid,1048576,4@gpuid,2,64@gpuid,1024,256@gpuid,4096,128,16384,8,262144,1)])
    grid(1) threads(1) {
    device copy(B, A);
}"
if grep -q '^static const axe_mpi_plan ax_dev0 = {1024, 32, ' "$tmp/k.c"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: the 32-digit plan: $(grep -m1 'axe_mpi_plan ax_dev0' "$tmp/k.c")"
fi
# A constant sum of 300,000 terms folds as it is parsed.
expect_ok 20 < <(
    printf 'param N = 1%s;\n' "$(rep '+' 299999 | sed 's/+/+1/g')"
    echo 'kernel k(A: f32[N / 1000]) grid(1) threads(1) { thread fill(A, 1.0); }')
# 50,000 statements (and their --explain lines) in linear time.
for args in "" --explain; do
    # shellcheck disable=SC2086
    expect_ok 20 $args < <(
        echo "$H {"
        for _ in $(seq 50000); do echo '    cta copy(A, B);'; done
        echo '}')
done
# Uniformity is decided only where it is needed: a thread-scope operator,
# and a warp operator under a condition on warpid, compile at once under a
# condition whose variables have 10^8 combinations (refused above for a
# warp operator under tx).
expect_ok 10 <<<"$W {
    for i in range(100000) {
        for j in range(1000) {
            if (tx < i + j) { thread copy(A[0:1, 0:32], B[0:1, 0:32]); }
            if (warpid < i + j) { warp copy(A, B); }
        }
    }
}"

# A mesh program: --explain describes its device operators; the C target
# (one device) refuses to compile it and a run without --ranks refuses
# to run it, naming the way.
D=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/kernels/dist/paper_2x2.axe
if "$AXE" compile "$D" --explain >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^device op 0 (line 11): device copy(B, A)$' "$tmp/out" &&
    grep -q 'local shard on each device: f32\[32,64\] layout S\[(32,64):(128,1)\]' "$tmp/out" &&
    grep -q '^device op 1 (line 12): device copy(C, B)$' "$tmp/out" &&
    grep -q '^  collective all-gather in 2 groups of 2 devices: ' "$tmp/out" &&
    grep -q '^  bytes per device (transfer rule): at most 8192 sent, 8192 received$' "$tmp/out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: --explain of a mesh program: $(head -c 400 "$tmp/out" "$tmp/err")"
fi
if ! "$AXE" compile "$D" --target c >"$tmp/out" 2>"$tmp/err" && [ ! -s "$tmp/out" ] &&
    grep -q "declares a mesh of 4 devices: the c target runs one device (compile it with --target mpi or --target cuda" "$tmp/err"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: compile --target c of a mesh program: $(head -c 300 "$tmp/err")"
fi
# --target cuda compiles it for MPI + NCCL (tests/compiler_nccl.sh runs it)
# and --explain names the NCCL call of each device operator.
if "$AXE" compile "$D" --target cuda >"$tmp/out" 2>"$tmp/err" &&
    grep -q '#include "compiler_nccl_rt.h"' "$tmp/out" &&
    "$AXE" compile "$D" --target cuda --explain >"$tmp/out" 2>"$tmp/err" &&
    [ "$(grep -c '^  cuda: NCCL ncclSend/ncclRecv, one pair per peer' "$tmp/out")" = 2 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: compile --target cuda of a mesh program: $(head -c 300 "$tmp/err" "$tmp/out")"
fi
if ! "$AXE" run "$D" --check >"$tmp/out" 2>"$tmp/err" &&
    grep -q "declares a mesh of 4 devices: run it on that many ranks with --ranks 4" "$tmp/err" &&
    ! "$AXE" run "$D" --json >"$tmp/out" 2>/dev/null &&
    grep -q '"error":"UNSUPPORTED".*--ranks 4' "$tmp/out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: axe run of a mesh program: $(head -c 300 "$tmp/err" "$tmp/out")"
fi

# Core kernels and their scratchpads (docs/compiler.md, "The accelerator
# model"): where sbuf, psum and core scope belong, the model's partitions
# and capacities, the PSUM dtype; --trn sets a field of the model.
expect 2 3:5 "sbuf tensors belong to a core kernel" <<<"kernel k(A: global f32[4]) grid(1) threads(1)
{
    sbuf x: f32[4, 4];
}"
expect 2 3:5 "core scope belongs to a core kernel" <<<"kernel k(A: global f32[4]) grid(1) threads(1)
{
    core fill(A, 1.0);
}"
expect 2 3:5 "run at core scope .'core OP\(...\)'., not at thread scope" <<<"kernel k(A: global f32[4]) core
{
    thread fill(A, 1.0);
}"
expect 1 3:10 "sbuf tensor 'x' reaches partition 255, beyond the 128 partitions of the model" <<<"kernel k(A: global f32[4]) core
{
    sbuf x: f32[256, 4] layout S[(256,4):(1@P,1@F)];
    core fill(A, 1.0);
}"
XARGS="--trn partitions=64" expect 1 3:10 "sbuf tensor 'x' reaches partition 127, beyond the 64 partitions of the model" <<<"kernel k(A: global f32[4]) core
{
    sbuf x: f32[128, 4] layout S[(128,4):(1@P,1@F)];
    core fill(A, 1.0);
}"
XARGS="--trn sbuf_partition_bytes=1024" expect 1 3:10 "sbuf tensor 'x' spans 512 free elements of f32 per partition, beyond the 1024 bytes of an SBUF partition" <<<"kernel k(A: global f32[4]) core
{
    sbuf x: f32[128, 512];
    core fill(A, 1.0);
}"
expect 1 3:10 "psum tensor 'c' is f16: PSUM accumulates f32" <<<"kernel k(A: global f32[4]) core
{
    psum c: f16[128, 512];
    core fill(A, 1.0);
}"
expect 1 4:10 "PSUM partitions fill up with 'd': 16388 bytes per partition, beyond the model's 16384" <<<"kernel k(A: global f32[4]) core
{
    psum c: f32[128, 4096];
    psum d: f32[128, 1];
    core fill(A, 1.0);
}"
expect 1 4:18 "a view of sbuf tensor 'x' is not supported" <<<"kernel k(A: global f32[4]) core
{
    sbuf x: f32[4, 4];
    core copy(A, x.view(S[4:1]));
}"
# layout auto on scratchpads (docs/compiler.md, "Scratchpad tensors"): no
# P/F layout of x fits a partition (256 rows of 1 KiB); no layouts of a,
# b and c put the gemm on the TensorEngine (K = 256 is one factor, too
# many partitions for P and not on P on F); the failure is the operator's.
expect 1 3:10 "layout synthesis: no layout of scratchpad tensor 'x' over P and F fits the model \\(its dims split into 2 factors\\)" <<<"kernel k(A: global f32[256, 256]) core
{
    sbuf x: f32[256, 256] layout auto;
    core copy(x, A);
}"
expect 1 9:10 "layout synthesis: no scratchpad layouts fit gemm#2 \\(line 9\\): gemm.tensor_engine: step 2 \\(K intersection\\): K is not on P with stride 1 in A \\('a'\\)" <<<"kernel k(A: global f16[128, 256], C: global f32[128, 128]) core
{
    sbuf a: f16[128, 256] layout auto;
    sbuf b: f16[128, 256] layout auto;
    psum c: f32[128, 128] layout auto;
    sbuf o: f32[128, 128];
    core copy(a, A);
    core copy(b, A);
    core gemm(c, a, b);
    core copy(o, c);
    core copy(C, o);
}"
# The scratchpad search's bound counts the element visits of its checks:
# exp over 16384 elements at 1024 loop values is past it, refused at once
# (it took minutes before).
expect 1 3:10 "layout synthesis: the scratchpad search reached its bound \\(16777216 element visits of its operator checks, 4096 complete assignments\\) before an assignment of 'x'" <<<"kernel k(Y: global f32[4, 128, 64]) core
{
    psum x: f32[4, 128, 64] layout auto;
    sbuf o: f32[4, 128, 64];
    core fill(x, 1.0);
    for i in range(1024) {
        core exp(x[i % 2 * 2 : +2, 0:128, 0:64], x[i % 2 * 2 : +2, 0:128, 0:64]);
    }
    core copy(o, x);
    core copy(Y, o);
}"
# The reason of the engine that runs the operator's kind comes first
# (the message is capped): add's vector engine, not the scalar engine's
# "add is no activation".
expect 1 3:10 "layout synthesis: no layout of 'x' fits add#2 \\(line 8\\): add.vector: the region starts read more loops than 4" <<<"kernel k(X: global f32[128, 32], Y: global f32[128, 32]) core
{
    sbuf x: f32[128, 32] layout auto;
    sbuf y: f32[128, 32];
    core copy(x, X);
    core copy(y, X);
    for i in range(8192) {
        core add(y[i % 2 * 64 : +64, 0:32], y[i % 2 * 64 : +64, 0:32], x[i % 2 * 64 : +64, 0:32]);
    }
    core copy(Y, y);
}"
if ! "$AXE" compile "$SRC/tests/kernels/trn_scratch.axe" --trn lanes=4 >"$tmp/out" 2>"$tmp/err" &&
    grep -q "trn model: no field 'lanes'" "$tmp/err"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: --trn lanes=4: $(head -c 300 "$tmp/err")"
fi

# A target refuses a kind of kernel it never runs before dispatch looks
# at its operators (compiler_backend.h, "scope"): a core kernel on cuda
# and mpi, a cta kernel on trn-sim, for that reason and not for one of
# the operators' schedules (copy.dma "has no" schedule on cuda).
scope_refused() {
    local file=$1 target=$2 pat=$3
    if ! "$AXE" compile "$file" --target "$target" >"$tmp/out" 2>"$tmp/err" &&
        [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
        grep -q -- "$pat" "$tmp/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: --target $target of $file: expected '$pat', got: $(head -c 300 "$tmp/err")"
    fi
}
scope_refused "$SRC/tests/kernels/trn_sim_serial.axe" cuda \
    "error: kernel 'trn_sim_serial' is a core kernel (sbuf, psum): the cuda backend has no accelerator core"
scope_refused "$SRC/examples/kernels/trn_gemm.axe" cuda \
    "error: kernel 'trn_gemm' is a core kernel (sbuf, psum): the cuda backend has no accelerator core"
scope_refused "$SRC/tests/kernels/trn_sim_serial.axe" mpi \
    "error: kernel 'trn_sim_serial' is a core kernel (sbuf, psum): the mpi backend has no accelerator core"
scope_refused "$SRC/examples/kernels/gemm_mma.axe" mpi \
    "error: kernel 'gemm_mma' declares no mesh: the mpi target runs a program with a device mesh"
scope_refused "$SRC/examples/kernels/gemm_mma.axe" trn-sim \
    "error: kernel 'gemm_mma' is not a core kernel: the trn-sim target runs"

# Found by tests/compiler_fuzz.sh (each row once a hang, a crash or UB).
# A huge 'layout auto' register tile: the copy anchor's search skips the
# thread counts whose share passes a thread's registers (it counted runs
# up to 2^29 before), and the refusal copies the search's reason before
# formatting around it (it was formatted into itself: overlapping
# snprintf, a garbled message).
expect 1 3:14 "layout synthesis: no coalesced layout of 'o' for its anchor copy#1: no thread count dividing the cta's 128 threads deals the 68719476736 elements over the tensor's shape within a thread's 1020 bytes of registers$" <<<'kernel k(O: f32[2147483648, 32]) grid(1) threads(128)
{
    register o: f32[2147483648, 32] layout auto;
    cta fill(o, 0);
    cta copy(O, o);
}'
# A register layout whose memory iters overlap: two of a thread's
# elements in one register (the reference kept them apart, the generated
# C did not: `axe run --check` failed without a race). By count (8
# elements, span 7) and, where the count fits the span, by brute force;
# (3,2):(2,3), injective out of stride order, is accepted.
expect 1 2:14 "register layout of 'c' gives a thread 8 elements in 7 registers: two elements would share one register$" <<<'kernel k(A: f32[16, 16], C: f32[16, 16]) grid(1) threads(32) {
    register c: f32[16, 16] layout S[(2, 8, 2, 4, 2):(2, 4@laneid, 3, 1@laneid, 1)];
    warp copy(c, A);
    warp copy(C, c);
}'
expect 1 2:14 "register layout of 'r' puts two elements of a thread in register 0: its memory iters overlap \\(replicate with R\\[...\\] instead\\)$" <<<'kernel k(X: f32[2, 2], Y: f32[2, 2]) grid(1) threads(1) {
    register r: f32[2, 2] layout S[(2, 2):(0, 3)];
    thread copy(r, X);
    thread copy(Y, r);
}'
# An operator run by more than one thread whose source on its
# destination's tensor may overlap the destination: the threads would
# reorder the element-by-element reads and stores the reference runs
# (wrong answers before: max_abs_err 1.44 at warp scope, 1.61 swapped).
# Disjoint regions and in place stay allowed (tests/kernels/self_disjoint.axe).
OV='kernel w(X: f32[32, 4] layout S[(32, 4):(1, 32)], Y: f32[32, 4]) grid(1)'
expect 1 1:93 "copy#0: its source X\[0:16, 1:3\] may overlap its destination X\[8:24, 0:2\], and the warp's 32 threads would reorder its reads and stores \(the reference runs them element by element\); run it at thread scope or copy the source through another tensor first$" <<<"$OV threads(32) { warp copy(X[8:24, 0:2], X[0:16, 1:3]); }"
expect 1 1:93 "copy#0: its source X\[8:24, 0:2\] may overlap its destination X\[0:16, 1:3\], and the warp's 32 threads" <<<"$OV threads(32) { warp copy(X[0:16, 1:3], X[8:24, 0:2]); }"
expect 1 1:111 "copy#1: its source X\[0:16, 1:3\] may overlap its destination X\[8:24, 0:2\], and the cta's 64 threads" <<<"$OV threads(64) { thread copy(Y, X); cta copy(X[8:24, 0:2], X[0:16, 1:3]); }"
expect 1 1:92 "add#0: its source X\[0:16, 1:3\] may overlap its destination X\[8:24, 0:2\], and the cta's 64 threads" <<<"$OV threads(64) { cta add(X[8:24, 0:2], X[0:16, 1:3], Y[0:16, 0:2]); }"
# Regions apart in a dimension are disjoint only where the layout keeps
# distinct elements apart (tests/kernels/self_apart.axe): X[0:16, 1:2]
# and X[15:31, 0:1] of S[(32, 4):(1, 16)] share addresses 16..30.
expect 1 1:89 "copy#0: its source X\[15:31, 0:1\] may overlap its destination X\[0:16, 1:2\], and the warp's 32 threads" <<<'kernel w(X: f32[32, 4] layout S[(32, 4):(1, 16)], Y: f32[8]) grid(1) threads(32) { warp copy(X[0:16, 1:2], X[15:31, 0:1]); }'
# One view updated in place is refused when its destination stores an
# address twice (stride 0): the 32 threads would race on B[0].
expect 1 1:59 "add#0: its source a view of B may overlap its destination a view of B, and the cta's 32 threads" <<<'kernel w(A: f32[32], B: f32[1]) grid(1) threads(32) { cta add(B.view(S[32:0]), B.view(S[32:0]), A); }'
# Any destination whose strides are not injective, not only stride 0
# (R1's n1, n2: accepted before, --check reported write-write races): a
# view or a tensor laid out S[(4, 4):(1, 1)] puts 16 elements on 7 addresses.
expect 1 1:62 "add#0: its source a view of X may overlap its destination a view of X, and the cta's 16 threads would reorder" <<<'kernel w(X: f32[16], Y: f32[4, 4]) grid(1) threads(16) { cta add(X.view(S[(4, 4):(1, 1)]), X.view(S[(4, 4):(1, 1)]), Y); }'
expect 1 1:88 "add#0: its source X\[0:4, 0:4\] may overlap its destination X\[0:4, 0:4\], and the cta's 16 threads would reorder" <<<'kernel w(X: f32[4, 4] layout S[(4, 4):(1, 1)], Y: f32[4, 4]) grid(1) threads(16) { cta add(X, X, Y); }'
# The test is on the two operands' addresses alone, whatever the other
# operands: with a distributed register operand (no serial plan) it was
# skipped (max_abs_err 2.17, races). Reduce and gemm at any scope of more
# than one thread, not only the kernel's (a cta reduce: 0.245, races).
expect 1 4:9 "add#1: its source X\[0:16, 1:3\] may overlap its destination X\[8:24, 0:2\], and the cta's 2 threads would reorder" <<<'kernel w(X: f32[32, 4] layout S[(32, 4):(1, 32)], Y: f32[16, 2]) grid(1) threads(2) {
    register r: f32[16, 2] layout S[(16, 2):(1, 1@tx)];
    cta copy(r, Y);
    cta add(X[8:24, 0:2], X[0:16, 1:3], r);
}'
expect 1 1:51 "reduce#0: its source X\[0:32, 0:4\] may overlap its destination a view of X, and the cta's 32 threads would update it while others still read it" <<<'kernel w(X: f32[33, 4]) grid(1) threads(32) { cta reduce(X.view(S[4:1] + 4), X[0:32, 0:4], sum, 0); }'
# Dynamic starts are compared as linear forms (tests/kernels/self_affine.axe):
# i * 8 and (i + 1) * 4 differ by 4 - 4i, not a constant, so may overlap.
expect 1 3:13 "copy#0: its source X\[\(i \+ 1\) \* 4:\(i \+ 1\) \* 4 \+ 8, 2:4\] may overlap its destination X\[i \* 8:i \* 8 \+ 8, 2:4\]" <<<'kernel w(X: f32[32, 4] layout S[(32, 4):(1, 32)]) grid(1) threads(32) {
    for i in range(2) {
        cta copy(X[i * 8 : +8, 2:4], X[(i + 1) * 4 : +8, 2:4]);
    }
}'
# A register destination waits for its schedule: each thread's own
# elements in order are allowed (tests/kernels/self_regs.axe), staging
# the source first is not (max_abs_err 1.02 before).
XARGS="--schedule copy#1=smem" expect 1 4:9 "copy#1: its source q\[0:2, 0:7\] may overlap its destination q\[0:2, 1:8\], and copy.smem would reorder its reads and stores" <<<'kernel w(C: f32[2, 8], D: f32[2, 8]) grid(1) threads(2) {
    register q: f32[2, 8] layout S[(2, 8):(1@tx, 1)];
    cta copy(q, C);
    cta copy(q[0:2, 1:8], q[0:2, 0:7]);
    cta copy(D, q);
}'

cat >"$tmp/inj.axe" <<'AXE'
kernel k(X: f32[3, 2], Y: f32[3, 2]) grid(1) threads(1) {
    register r: f32[3, 2] layout S[(3, 2):(2, 3)];
    thread copy(r, X);
    thread copy(Y, r);
}
AXE
if timeout 120 "$AXE" run "$tmp/inj.axe" --check 2>&1 | grep -q '^check passed: max_abs_err 0,'; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL: the injective register layout S[(3, 2):(2, 3)] is not accepted and exact"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
