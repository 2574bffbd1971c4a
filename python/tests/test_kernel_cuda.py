# SPDX-License-Identifier: Apache-2.0
"""axe.kernel.compile(..., target="cuda") and emulate=True (docs/python.md,
"Kernels on the CUDA target"). The emulated kernels (the emitted .cu
built with $CXX against the CPU emulation) run here: results against
numpy's own softmax and a numpy tf32 GEMM, check=True against the
reference, a race and a gather out of bounds seen. The GPU path builds
with nvcc where it is installed; its launch errors are named (a
misaligned device pointer is refused by the launcher before any CUDA
call; on a machine without a GPU the launch reports the missing device);
with CuPy and a GPU, softmax runs on CuPy arrays. What is missing (nvcc,
CuPy, a device array) raises with the reason."""

import array
import os
import shutil
import sys

import pytest

import axe
from axe import kernel as K
from srctree import source

try:
    import numpy as np
except ImportError:
    np = None
numpy_needed = pytest.mark.skipif(np is None, reason="numpy is not "
                                  "installed (pip install numpy)")
CXX = (os.environ.get("CXX") or "c++").split()[0]
if shutil.which(CXX) is None:
    pytest.skip(f"no C++ compiler ({CXX}) for the emulation",
                allow_module_level=True)
NVCC = shutil.which((os.environ.get("NVCC") or "nvcc").split()[0])
nvcc_needed = pytest.mark.skipif(NVCC is None, reason="nvcc is not "
                                 "installed (the CUDA toolkit)")
#: A GPU is there (its device nodes): the fake-pointer launch is not run.
HAS_GPU = os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/dxg")
try:
    import cupy  # type: ignore[import-not-found]
    HAS_CUPY = True
except ImportError:
    cupy = None
    HAS_CUPY = False


@pytest.fixture(autouse=True, scope="module")
def cache(tmp_path_factory):
    """One shared-object cache for the module (an emulated build takes
    seconds; the cache is part of what is tested)."""
    d = tmp_path_factory.mktemp("cuda_cache")
    old = os.environ.get("AXE_KERNEL_CACHE")
    os.environ["AXE_KERNEL_CACHE"] = str(d)
    yield d
    if old is None:
        del os.environ["AXE_KERNEL_CACHE"]
    else:
        os.environ["AXE_KERNEL_CACHE"] = old


SCALE = """
param N = 256;
kernel scale(X: f32[N], Y: f32[N], a: f32) grid(N / 128) threads(128)
{
    register r: f32[1];
    thread copy(r, X[bx * 128 + tx : +1]);
    thread mul(r, r, a);
    thread copy(Y[bx * 128 + tx : +1], r);
}
"""


def test_emulated_without_numpy_and_its_errors():
    k = K.compile(SCALE, emulate=True)
    assert isinstance(k, K.CudaKernel)
    assert (k.target, k.arch) == ("cuda-emulated", "sm_80")
    assert "axe_launch_scale" in k.cu_source and k.so_path.endswith(".so")
    assert repr(k) == ("<axe.kernel.CudaKernel scale(X: f32[256], "
                       "Y: f32[256], a: f32) on cuda-emulated>")
    x = array.array("f", [i / 8 - 3 for i in range(256)])
    y = array.array("f", [0.0] * 256)
    assert k(x, y, a=0.5) is None
    assert list(y) == [v * 0.5 for v in x]  # exact: a power of two
    r = k(X=x, Y=y, a=3.0, check=True)
    assert r.max_abs_err == 0.0 and r.races_checked
    again = K.compile(SCALE, target="cuda-emulated")
    assert not again.built and again.so_path == k.so_path
    with pytest.raises(TypeError,
                       match="argument X is f32\\[256\\]: it takes"):
        k(array.array("d", [0.0] * 256), y, a=1.0)
    with pytest.raises(TypeError, match="the emulation runs synchronously"):
        k(x, y, a=1.0, stream=0)
    with pytest.raises(TypeError, match="no value for the runtime scalar a"):
        k(x, y)


@numpy_needed
def test_emulated_softmax_against_numpy():
    k = K.compile(source("examples", "kernels", "softmax.axe"), emulate=True,
                  ROWS=16, C=128)
    x = np.random.default_rng(0).standard_normal((16, 128)).astype(
        np.float32)
    y = np.empty_like(x)
    k(x, y)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    assert k(x, y, check=True).max_rel_err < 1e-5


def np_tf32(x):
    """cvt.rna.tf32.f32 of finite float32 values, from its definition:
    the nearest value with 10 mantissa bits, ties away from zero (numpy's
    float64 arithmetic: round the magnitude's mantissa at 2^-10)."""
    m, e = np.frexp(np.abs(x.astype(np.float64)))  # |x| = m 2^e, m in [.5, 1)
    r = np.floor(m * 2048 + 0.5) / 2048  # 11 significant bits, half up
    return (np.sign(x) * np.ldexp(r, e)).astype(np.float32)


@numpy_needed
def test_emulated_tf32_gemm_against_numpy():
    k = K.compile(source("tests", "kernels", "gemm_tf32.axe"), emulate=True)
    g = np.random.default_rng(3)
    a = g.uniform(-1, 1, (16, 16)).astype(np.float32)
    b = g.uniform(-1, 1, (16, 16)).astype(np.float32)
    outs = [np.zeros((32, 16), np.float32), np.zeros((32, 16), np.float32),
            np.zeros((16, 16), np.float32), np.zeros((16, 16), np.float32)]
    assert k(a, b, *outs, check=True).max_abs_err < 1e-5
    want = np_tf32(a).astype(np.float64) @ np_tf32(b).astype(np.float64).T
    full = a.astype(np.float64) @ b.astype(np.float64).T
    for c in (outs[0][:16], outs[0][16:], outs[1][:16], outs[1][16:],
              outs[2]):
        np.testing.assert_allclose(c, want, rtol=0, atol=2e-6)
    np.testing.assert_allclose(outs[3], full, rtol=0, atol=2e-6)
    assert np.abs(want - full).max() > 1e-4  # tf32 is seen


@numpy_needed
def test_emulated_errors_race_and_gather():
    k = K.compile(source("tests", "kernels", "wg_handoff_race.axe"),
                  emulate=True)
    a = np.random.default_rng(1).standard_normal((384, 64)).astype(
        np.float32)
    with pytest.raises(axe.CheckError, match="race"):
        k(a, np.zeros_like(a), check=True)
    k = K.compile(source("examples", "kernels", "embedding.axe"),
                  emulate=True, V=50, D=8)
    emb = np.random.default_rng(12).standard_normal((50, 8)).astype(
        np.float32)
    ids = np.array([3, 49, 0, 7], np.int32)
    out = np.zeros((4, 8), np.float32)
    k(emb, ids, out, T=4, check=True)
    np.testing.assert_array_equal(out, emb[ids])
    ids[2] = 50
    with pytest.raises(axe.AxeError, match=r"DOMAIN: kernel embedding: "
                       r"region of 'Emb' out of bounds at run time .*"
                       r"ids\[2\] = 50"):
        k(emb, ids, out, T=4)


def test_target_arguments():
    with pytest.raises(ValueError, match="target='metal'"):
        K.compile(SCALE, target="metal")
    with pytest.raises(ValueError, match="emulate=True runs the CUDA target"):
        K.compile(SCALE, target="c", emulate=True)
    with pytest.raises(ValueError, match="arch='sm_80' is for target='cuda'"):
        K.compile(SCALE, arch="sm_80")
    with pytest.raises(axe.AxeError, match="sm_70"):
        K.compile(SCALE, emulate=True, arch="sm_70")


def test_no_nvcc_is_explained(monkeypatch):
    monkeypatch.setenv("NVCC", "/nonexistent/nvcc")
    with pytest.raises(axe.AxeError, match="IO: target='cuda' builds the .cu "
                       "with nvcc, and '/nonexistent/nvcc' is not found"):
        K.compile(SCALE, target="cuda")


class Device:
    """A device array as __cuda_array_interface__ describes it (the
    pointer is never dereferenced by these tests)."""

    def __init__(self, shape, typestr="<f4", ptr=0, readonly=False,
                 strides=None):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": typestr, "data": (ptr, readonly),
            "strides": strides, "version": 3}


@nvcc_needed
def test_gpu_build_and_its_argument_errors():
    k = K.compile(source("examples", "kernels", "fig5_copy.axe"),
                  target="cuda", arch="sm_90")
    assert (k.target, k.arch) == ("cuda", "sm_90")
    shapes = [t.shape for t in k.tensors]
    # a misaligned pointer: refused by the launcher before any CUDA call
    with pytest.raises(axe.AxeError, match="CUDA: kernel fig5_copy: "
                       "axe_launch_fig5_copy: cudaErrorMisalignedAddress"):
        k(*[Device(s, ptr=4) for s in shapes])
    with pytest.raises(TypeError, match="target='cuda' takes device arrays"):
        k(*[array.array("f", [0.0]) for _ in shapes])
    with pytest.raises(TypeError, match="not a device array of typestr "
                       "'<f8'"):
        k(*[Device(s, "<f8") for s in shapes])
    with pytest.raises(TypeError, match="not C-contiguous"):
        k(*[Device(s, strides=(4, 4 * s[0])) for s in shapes])
    with pytest.raises(TypeError, match="the kernel writes it, and the "
                       "device array is read-only"):
        k(*[Device(s, ptr=256, readonly=True) for s in shapes])
    with pytest.raises(TypeError, match="stream=.*a cudaStream_t handle"):
        k(*[Device(s, ptr=256) for s in shapes], stream="s")


@nvcc_needed
@pytest.mark.skipif(HAS_GPU, reason="a GPU is here: the launch would run")
def test_gpu_i4_takes_its_packed_bytes():
    """An i4 tensor on the device is a uint8 array of its packed bytes
    (rows of whole bytes, or 1-D): accepted up to the launch."""
    k = K.compile(source("tests", "kernels", "i4_cta.axe"), target="cuda",
                  R=2, C=10)
    args = [Device((2, 5), "|u1", ptr=256), Device((2, 10), "<f2", ptr=512),
            Device((2, 10), "<i4", ptr=768), Device((10,), "|u1", ptr=1024),
            Device((2, 5), "|u1", ptr=1280)]
    with pytest.raises(axe.AxeError, match="no usable GPU here"):
        k(*args)
    args[0] = Device((2, 10), "|u1", ptr=256)
    with pytest.raises(TypeError, match=r"argument X: it takes a "
                       r"C-contiguous device uint8 array of shape \(2, 5\) "
                       r"holding the 20 elements packed two per byte"):
        k(*args)


@nvcc_needed
@pytest.mark.skipif(HAS_GPU, reason="a GPU is here: the launch would run")
def test_gpu_launch_without_a_gpu_is_explained():
    k = K.compile(SCALE, target="cuda")
    with pytest.raises(axe.AxeError, match="CUDA: kernel scale: "
                       "axe_launch_scale: cudaError.*no usable GPU here"):
        k(Device((256,), ptr=256), Device((256,), ptr=512), a=1.0)


@pytest.mark.skipif(HAS_CUPY, reason="CuPy is installed")
def test_dlpack_without_cupy_is_explained():
    class Tensor:
        def __dlpack__(self, stream=None):
            raise AssertionError("not read without CuPy")

    with pytest.raises(TypeError, match="CuPy is not installed"):
        K._cuda.device_array(Tensor(), "argument X")


@numpy_needed
@nvcc_needed
@pytest.mark.skipif(not (HAS_GPU and HAS_CUPY), reason="needs a GPU and "
                    "CuPy")
def test_gpu_softmax_on_cupy_arrays():
    k = K.compile(source("examples", "kernels", "softmax.axe"),
                  target="cuda", ROWS=16, C=128)
    x = np.random.default_rng(0).standard_normal((16, 128)).astype(
        np.float32)
    dx, dy = cupy.asarray(x), cupy.zeros((16, 128), cupy.float32)
    k(dx, dy)
    cupy.cuda.get_current_stream().synchronize()
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(cupy.asnumpy(dy),
                               e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    assert k(dx, dy, check=True).max_rel_err < 1e-5
    k(dx.toDlpack(), dy.toDlpack())  # DLPack capsules through CuPy
    assert sys.modules.get("cupy") is cupy
