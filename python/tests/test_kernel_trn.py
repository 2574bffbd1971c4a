# SPDX-License-Identifier: Apache-2.0
"""axe.kernel on the accelerator simulator (compile(..., target="trn-sim"),
docs/python.md): a core kernel's GEMM against numpy (values exact: small
multiples of 1/8), its simulated cycles and per-engine counts against the
machine model's cycle table worked by hand (docs/compiler.md, "The
accelerator model"), check=True against the reference, and the refusals.
Needs a C compiler and numpy."""

import os
import shutil

import pytest

import axe
from axe import kernel as K

np = pytest.importorskip("numpy")
if shutil.which((os.environ.get("CC") or "cc").split()[0]) is None:
    pytest.skip("no C compiler ($CC, default cc)", allow_module_level=True)

# C += A B^T with K = 256 in two tiles of 128 on the partitions: the
# accumulator comes in through SBUF (a DMA, a vector move into PSUM), two
# pairs of tile DMAs and TensorEngine matmuls, and out the same way.
GEMM = '''
kernel small(A: global f16[128, 256], B: global f16[64, 256],
             C: global f32[128, 64]) core
{
    sbuf a: f16[128, 128] layout S[(128,128):(1@F,1@P)];
    sbuf b: f16[64, 128] layout S[(64,128):(1@F,1@P)];
    psum c: f32[128, 64];
    sbuf o: f32[128, 64];
    core copy(o, C);
    core copy(c, o);
    for ki in range(2) {
        core copy(a, A[0:128, ki * 128 : +128]);
        core copy(b, B[0:64, ki * 128 : +128]);
        core gemm(c, a, b);
    }
    core copy(o, c);
    core copy(C, o);
}
'''


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """A private shared-object cache per test."""
    monkeypatch.setenv("AXE_KERNEL_CACHE", str(tmp_path / "cache"))


def operands(seed):
    r = np.random.default_rng(seed)
    a = (r.integers(-16, 17, (128, 256)) / 8).astype(np.float16)
    b = (r.integers(-16, 17, (64, 256)) / 8).astype(np.float16)
    c = (r.integers(-64, 65, (128, 64)) / 8).astype(np.float32)
    return a, b, c


def test_gemm_against_numpy_and_cycles():
    k = K.compile(GEMM, target="trn-sim")
    assert isinstance(k, K.TrnKernel) and k.target == "trn-sim"
    assert "ax_trn_matmul" in k.c_source and k.cycles is None
    a, b, c = operands(1)
    want = c.astype(np.float64) + a.astype(np.float64) @ b.astype(
        np.float64).T
    k(a, b, c)
    assert np.array_equal(c.astype(np.float64), want)
    # The model's table (defaults): a matmul takes matmul_fixed_cycles
    # (64) + N (64 columns) = 128 cycles, a vector move
    # vector_fixed_cycles (64) + 64 elements per partition at 1 a cycle.
    assert k.engines["tensor"] == K._trn.Engine(2, 256)
    assert k.engines["vector"] == K._trn.Engine(2, 256)
    assert k.engines["scalar"] == K._trn.Engine(0, 0)
    assert k.engines["dma_in"].instructions >= 5
    assert k.engines["dma_out"].instructions >= 1
    assert k.cycles >= max(e.busy for e in k.engines.values())
    first = (k.cycles, dict(k.engines))
    k(*operands(2))  # every run of a kernel takes the same cycles
    assert (k.cycles, k.engines) == first


def test_check_against_reference():
    k = K.compile(GEMM, target="trn-sim")
    a, b, c = operands(3)
    result = k(A=a, B=b, C=c, check=True)
    assert result.max_abs_err == 0.0 and result.races_checked
    assert k.cycles > 0


def test_refusals():
    with pytest.raises(axe.AxeError, match="is not a core kernel"):
        K.compile("kernel k(A: f32[4]) grid(1) threads(1) "
                  "{ thread fill(A, 1.0); }", target="trn-sim")
    with pytest.raises(ValueError, match="no arch"):
        K.compile(GEMM, target="trn-sim", arch="sm_80")
    with pytest.raises(ValueError, match="'trn-sim'"):
        K.compile(GEMM, target="trn")
