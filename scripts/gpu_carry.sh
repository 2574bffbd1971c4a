#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Prepares .gpu/ (git-ignored through .git/info/exclude) for a run of
# scripts/gpu_check.sh on a lent GPU machine that can install nothing:
#   .gpu/axe        the release build of this checkout (needs libc only)
#   .gpu/ompi/      this machine's OpenMPI (Debian's 4.1), relocated: its
#                   mpirun, plugins, help files, headers and the shared
#                   libraries they need past glibc, with an `mpicc` that
#                   answers --showme:compile / --showme:link for axe run
#   .gpu/nccl/      nccl.h, for a machine whose NCCL is a pip wheel only
#   .gpu/env.sh     sourced there first: OPAL_PREFIX, PMIX_*, MPICC,
#                   MPIRUN, PATH, LD_LIBRARY_PATH; NCCL from the image or
#                   the wheel (an nvcc wrapper adds its -I and -L)
# Then, on the device (the command the first GPU run used, docs/bench.md):
#   source .gpu/env.sh; AXE=$PWD/.gpu/axe bash scripts/gpu_check.sh
# carrying ".gpu" (about 20 MiB). The plugins that need fabric libraries
# (ucx, ofi, openib, psm, ...) are left out: one machine, shared memory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
G=$PWD/.gpu
B=$G/ompi
X=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$X")"
grep -qx '/.gpu/' "$X" 2>/dev/null || echo '/.gpu/' >>"$X"
if ! command -v orterun >/dev/null || ! command -v ompi_info >/dev/null; then
    echo "gpu_carry: OpenMPI is not installed (apt-get install openmpi-bin libopenmpi-dev)"
    exit 1
fi
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
rm -rf "$G"
mkdir -p "$B/bin" "$B/deplib" "$B/share" "$G/nccl/include"
cp build/release/axe "$G/axe"
git log -1 --format=%h >"$G/axe.commit"

# OpenMPI's directories as ompi_info names them, under $B as under /usr.
path() { ompi_info --path "$1" --parsable | sed -n "s/^path:$1:\(.*\)/\1/p"; }
prefix=$(path prefix)
libdir=$(path libdir)
pkglibdir=$(path pkglibdir)
incdir=$(path incdir)
mkdir -p "$B${pkglibdir#"$prefix"}" "$B${incdir#"$prefix"}"
cp -L "$(command -v orterun)" "$B/bin/mpirun"
cp -a "$(path pkgdatadir)" "$B/share/"
cp -a "$incdir/." "$B${incdir#"$prefix"}/"
skip='ucx|ofi|openib|psm|verbs|usnic|portals|lustre|gpfs|ime|hcoll|fca|mxm|cuda'
for f in "$pkglibdir"/*.so; do
    basename "$f" | grep -Eq "$skip" || cp -L "$f" "$B${pkglibdir#"$prefix"}/"
done
# PMIx (Debian builds OpenMPI against an external one, with its own dirs)
pmix=$(ldconfig -p | sed -n 's/.*libpmix\.so\.2 .*=> \(.*\)/\1/p' | head -1)
if [ -n "$pmix" ]; then
    pdir=$(dirname "$(readlink -f "$pmix")")
    for d in "$(dirname "$pdir")" "$pdir/pmix2" /usr/lib/x86_64-linux-gnu/pmix2; do
        if [ -d "$d/lib/pmix" ]; then
            mkdir -p "$B/pmix2/lib"
            cp -a "$d/lib/pmix" "$B/pmix2/lib/"
            [ -d "$d/share" ] && cp -a "$d/share" "$B/pmix2/"
            break
        fi
    done
fi
# The shared libraries past glibc and the C++ runtime, once each.
base='linux-vdso|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux|libstdc\+\+|libgcc_s'
libmpi=$(readlink -f "$libdir/libmpi.so")
for f in "$B/bin/mpirun" "$libmpi" "$B${pkglibdir#"$prefix"}"/*.so "$B"/pmix2/lib/pmix/*.so; do
    [ -e "$f" ] && ldd "$f" | awk '/=>/ { print $3 }'
done | sort -u | grep -Ev "$base" | while read -r l; do
    cp -L "$l" "$B/deplib/"
done
cp -L "$libmpi" "$B/deplib/libmpi.so.40"
ln -sf libmpi.so.40 "$B/deplib/libmpi.so"
inc=$B${incdir#"$prefix"}
cat >"$B/mpicc" <<EOF
#!/bin/sh
# The carried OpenMPI's flags (gpu_carry.sh): no compiler wrapper there.
B=\$(cd "\$(dirname "\$0")" && pwd)
I="-I\$B${incdir#"$prefix"} -I\$B${incdir#"$prefix"}/openmpi"
case "\$1" in
--showme:compile) echo "\$I" ;;
--showme:link) echo "-L\$B/deplib -lmpi" ;;
*) exec cc \$I "\$@" -L\$B/deplib -lmpi ;;
esac
EOF
chmod +x "$B/mpicc"
[ -d "$inc" ] || echo "gpu_carry: no headers at $inc"
nccl=$(echo '#include <nccl.h>' | cpp -I/usr/local/cuda/include -H -o /dev/null 2>&1 |
    sed -n 's/^\. \(.*nccl\.h\)$/\1/p' | head -1)
[ -n "$nccl" ] && cp "$nccl" "$G/nccl/include/"

cat >"$G/env.sh" <<'EOF'
# Sourced on the device machine before scripts/gpu_check.sh (written by
# scripts/gpu_carry.sh): the carried OpenMPI, relocated, and NCCL (the
# image's, or the pip wheel's library with the carried header).
G=$PWD/.gpu
B=$G/ompi
export OPAL_PREFIX=$B PMIX_PREFIX=$B/pmix2 PMIX_PKGDATADIR=$B/pmix2/share/pmix \
    PMIX_PKGLIBDIR=$B/pmix2/lib/pmix MPICC=$B/mpicc MPIRUN=$B/bin/mpirun
export PATH=$B:$B/bin:$PATH
export LD_LIBRARY_PATH=$B/deplib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
printf '#include <nccl.h>\nint main(void){int v;return ncclGetVersion(&v);}\n' >/tmp/nccl_t.cu
if nvcc -o /tmp/nccl_t /tmp/nccl_t.cu -lnccl >/tmp/nccl_t.log 2>&1; then
    echo "env: NCCL from the image"
else
    d=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null)
    inc=$d/include
    [ -e "$inc/nccl.h" ] || inc=$G/nccl/include
    mkdir -p /tmp/ncclib /tmp/nvccw && ln -sf "$d/lib/libnccl.so.2" /tmp/ncclib/libnccl.so
    real=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    printf '#!/bin/sh\nexec %s -I%s -L/tmp/ncclib "$@"\n' "$real" "$inc" >/tmp/nvccw/nvcc
    chmod +x /tmp/nvccw/nvcc
    export NVCC=/tmp/nvccw/nvcc LD_LIBRARY_PATH=$d/lib:$LD_LIBRARY_PATH
    $NVCC -o /tmp/nccl_t /tmp/nccl_t.cu -lnccl >>/tmp/nccl_t.log 2>&1 &&
        echo "env: NCCL from $d (header $inc)" || { echo "env: no NCCL"; tail -3 /tmp/nccl_t.log; }
fi
mpirun --allow-run-as-root --oversubscribe -np 1 true && echo "env: mpirun ok" ||
    echo "env: mpirun failed"
EOF
echo "gpu_carry: $(du -sh "$G" | cut -f1) in .gpu (axe at $(cat "$G/axe.commit"))"
