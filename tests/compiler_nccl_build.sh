#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The NCCL path of --target cuda built for GPUs (docs/compiler.md, "The
# NCCL path"; issue 14 §3): every examples/kernels/dist/*.axe (at -D P=2)
# and, for sm_90 only, every tests/kernels/dist/gemm_*.axe (device gemms:
# the copy first, f64, i32), storage_only (a shared and a register
# tensor, no segment launched), segments and loop_if (segments launched
# around device operators) and tests/kernels/dist/kept/*.axe (kept device
# loops and ifs; those with a param P at -D P=2 for both architectures)
# compiled with `axe compile --target cuda --arch ARCH` and its .cu built
# and linked by nvcc for sm_80 and sm_90 as `axe run --ranks N` builds it
# (-DAXE_KERNEL_MAIN, the runtimes beside it, MPI's flags from `mpicc
# --showme`, -lnccl) with -Werror all-warnings (ptxas's register spills
# too: -Xptxas -warn-spills; gemm_bf16_chunks and gemm_f16_trans for
# sm_80 as well) and the
# host compiler's -Wall -Wextra. Skipped (77) without nvcc, without NCCL (nccl.h next to
# nvcc's headers) or without OpenMPI (installed through
# scripts/ensure_tools.sh when missing). Last line: "N passed, N failed".
set -u

SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
if ! command -v "$NVCC" >/dev/null 2>&1; then
    echo "skipped: no nvcc"
    exit 77
fi
inc=$(dirname "$(command -v "$NVCC")")/../include
if [ ! -f "$inc/nccl.h" ] && [ ! -f /usr/include/nccl.h ]; then
    echo "skipped: no NCCL (nccl.h)"
    exit 77
fi
# shellcheck source=../scripts/ensure_tools.sh
. "$SRC/scripts/ensure_tools.sh"
if ! axe_ensure_tools mpicc >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1; then
    echo "skipped: no OpenMPI (mpicc) and it could not be installed"
    exit 77
fi
AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: no AXE_BIN"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$SRC/src/compiler/backend/mpi/compiler_mpi_rt.h" \
    "$SRC/src/compiler/backend/cuda/compiler_nccl_rt.h" "$tmp/"
pass=0
fail=0
read -r -a mpi_c <<<"$(mpicc --showme:compile)"
read -r -a mpi_l <<<"$(mpicc --showme:link)"
for f in "$SRC"/examples/kernels/dist/*.axe "$SRC"/tests/kernels/dist/gemm_*.axe \
    "$SRC"/tests/kernels/dist/{storage_only,segments,loop_if}.axe \
    "$SRC"/tests/kernels/dist/kept/*.axe; do
    n=$(basename "$f" .axe)
    d=(-D P=2)
    archs="sm_80 sm_90"
    grep -q "^param P " "$f" || d=() archs=sm_90 # a test kernel: one arch
    # the tensor-core kernels' [k][row] stages (.trans) and per-element
    # loads (gemm_f16_trans's B4: sm_80 spilled them unrolled)
    case $n in gemm_bf16_chunks | gemm_f16_trans) archs="sm_80 sm_90" ;; esac
    for arch in $archs; do
        if "$AXE" compile "$f" "${d[@]}" --target cuda --arch "$arch" \
            -o "$tmp/$n.cu" 2>"$tmp/$n.err" &&
            "$NVCC" -std=c++17 -O2 -arch="$arch" -Werror all-warnings -Xptxas -warn-spills \
                -Xcompiler -Wall,-Wextra -DAXE_KERNEL_MAIN -I"$tmp" "${mpi_c[@]}" \
                -o "$tmp/$n" "$tmp/$n.cu" -lnccl "${mpi_l[@]}" >>"$tmp/$n.err" 2>&1; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            echo "FAIL: $n for $arch: $(head -c 600 "$tmp/$n.err")"
        fi
    done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
