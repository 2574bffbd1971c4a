# SPDX-License-Identifier: Apache-2.0
"""Packed i4 tensors from Python (docs/python.md, "i4 tensors"): the
packing helpers against the storage rule written out by hand (element x
is nibble x % 2 of byte x // 2, low first, sign-extended), the check's
decoder against them over every byte, the i4 test kernels against numpy
(a pad nibble, rows of whole bytes, wrapping casts), gemm_f16_i4 and its
auto twin against a GEMM dequantized in numpy, the argument errors, and
the emulated CUDA target on the same buffers."""

import array
import os
import shutil

import pytest

from axe import kernel as K
from srctree import source

np = pytest.importorskip("numpy", reason="numpy is not installed "
                         "(pip install numpy)")


def by_hand(values):
    """The packed bytes of "values" by the rule, one element at a time."""
    out = bytearray((len(values) + 1) // 2)
    for x, v in enumerate(values):
        out[x // 2] |= (v & 0xF) << (4 * (x % 2))
    return bytes(out)


def test_pack_follows_the_rule():
    assert K.pack_i4(np.array([1, -2], np.int8)).tobytes() == b"\xe1"
    assert K.pack_i4([-8, 7, 0]).tobytes() == b"\x78\x00"  # pad nibble 0
    g = np.random.default_rng(0)
    for shape in [(1,), (7,), (4, 6), (3, 5), (2, 3, 8)]:
        v = g.integers(-8, 8, shape).astype(np.int8)
        p = K.pack_i4(v)
        assert p.dtype == np.uint8 and p.tobytes() == by_hand(
            v.reshape(-1).tolist())
        # rows of whole bytes keep their rows; otherwise one byte string
        want = shape[:-1] + (shape[-1] // 2,) if shape[-1] % 2 == 0 \
            else ((v.size + 1) // 2,)
        assert p.shape == want
        np.testing.assert_array_equal(K.unpack_i4(p, shape), v)
        np.testing.assert_array_equal(K.unpack_i4(p.view(np.int8), shape),
                                      v)


def test_decode_matches_unpack_on_every_byte():
    raw = bytes(range(256))
    got = K._i4.decode(raw, 512)
    assert got == K.unpack_i4(np.frombuffer(raw, np.uint8), 512).tolist()
    assert got[:4] == [0, 0, 1, 0] and got[-2:] == [-1, -1]
    assert got[2 * 0x87: 2 * 0x87 + 2] == [7, -8]  # low nibble first
    assert K._i4.decode(b"\x21", 1) == [1]


def test_pack_and_unpack_refusals():
    with pytest.raises(ValueError, match=r"pack_i4: element \[1, 0\] is 8, "
                       r"outside i4's range \[-8, 7\] \(2 such elements\)"):
        K.pack_i4(np.array([[0, 7], [8, -9]]))
    with pytest.raises(TypeError, match="takes integers .* not an array of "
                       "float32"):
        K.pack_i4(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match=r"shape \[5\] takes 3 bytes \(5 i4 "
                       r"elements, two per byte\), not 2"):
        K.unpack_i4(np.zeros(2, np.uint8), 5)
    with pytest.raises(TypeError, match="packed bytes .* not an array of "
                       "int32"):
        K.unpack_i4(np.zeros(2, np.int32), 4)
    with pytest.raises(ValueError, match="negative extent"):
        K.unpack_i4(np.zeros(0, np.uint8), (2, -1))


def wrap_i4(v):
    """i32 -> i4 as a cast does from integers: the low four bits."""
    return ((np.asarray(v, np.int64) + 8) % 16 - 8).astype(np.int8)


def test_i4_rule_kernel_against_numpy():
    """An odd length (a pad nibble) and a copy one element off parity."""
    k = K.compile(source("tests", "kernels", "i4_rule.axe"))
    assert [(t.dtype, t.shape) for t in k.tensors] == [
        ("i4", (37,)), ("i32", (37,)), ("i4", (37,))]
    x = np.random.default_rng(1).integers(-8, 8, 37).astype(np.int8)
    xp = K.pack_i4(x)
    assert xp.shape == (19,)
    y = np.zeros(37, np.int32)
    z = K.pack_i4(np.full(37, -3, np.int8))
    z[-1] |= 0xA0  # the pad nibble: the kernel leaves it
    k(xp, y, z)
    np.testing.assert_array_equal(y, x)
    zv = K.unpack_i4(z, 37)
    np.testing.assert_array_equal(zv[1:36], x[:35])
    assert zv[0] == -3 and zv[36] == -3 and z[-1] >> 4 == 0xA
    r = k(xp, y, z, check=True)
    assert r.max_abs_err == 0 and r.races_checked


@pytest.mark.parametrize("rows,cols", [(4, 64), (3, 10)])
def test_i4_cta_kernel_against_numpy(rows, cols):
    """Rows of whole bytes; i4 -> f16, f32 -> i4, i32 -> i4 (wrapping)."""
    k = K.compile(source("tests", "kernels", "i4_cta.axe"), R=rows, C=cols)
    x = np.random.default_rng(rows).integers(-8, 8, (rows, cols)).astype(
        np.int8)
    h = np.zeros((rows, cols), np.float16)
    y = np.zeros((rows, cols), np.int32)
    z = np.zeros((rows, cols // 2), np.uint8)
    w = np.zeros(rows * cols // 2, np.uint8)  # the 1-D form
    k(K.pack_i4(x), h, y, z, w, check=True)
    np.testing.assert_array_equal(h, x.astype(np.float16))
    np.testing.assert_array_equal(K.unpack_i4(z, (rows, cols)), x)
    np.testing.assert_array_equal(y, 2 * x.astype(np.int32))
    np.testing.assert_array_equal(K.unpack_i4(w, (rows, cols)), wrap_i4(2 * x))
    assert (wrap_i4(2 * x) != 2 * x).any()  # the wrap is seen


def gemm_f16_i4_inputs(g, m, n, k):
    a = g.uniform(-1, 1, (m, k)).astype(np.float16)
    b = g.integers(-8, 8, (n, k)).astype(np.int8)
    sc = g.uniform(-2, 2, (n, k // 32)).astype(np.float16)
    return a, b, sc


def gemm_f16_i4_numpy(a, b, sc):
    """C = A (B dequantized)^T: each weight cast to f16 and multiplied by
    its row's scale of its 32-wide K group in f16 (as the kernel does,
    rounded once to f16), the sum in float64."""
    deq = b.astype(np.float16) * np.repeat(sc, 32, axis=1)
    assert deq.dtype == np.float16
    return a.astype(np.float64) @ deq.astype(np.float64).T


@pytest.mark.parametrize("name", ["gemm_f16_i4.axe", "gemm_f16_i4_auto.axe"])
def test_gemm_f16_i4_against_numpy(name):
    """The hand-written kernel and its `layout auto` twin."""
    k = K.compile(source("examples", "kernels", name))
    g = np.random.default_rng(7)
    a, b, sc = gemm_f16_i4_inputs(g, 256, 128, 64)
    c = np.zeros((256, 128), np.float32)
    r = k(a, K.pack_i4(b), sc, c, check=True)
    assert r.max_abs_err == 0 and r.races_checked  # C is exact vs the ref
    want = gemm_f16_i4_numpy(a, b, sc)
    np.testing.assert_allclose(c, want, rtol=0, atol=1e-5 * np.abs(
        want).max())
    # the nibble order matters: swapped nibbles give another product
    p = K.pack_i4(b)
    k(a, (p >> 4) | (p << 4), sc, c)
    assert np.abs(c - want).max() > 1


def test_i4_argument_errors():
    k = K.compile(source("examples", "kernels", "gemm_f16_i4.axe"))
    a = np.zeros((256, 64), np.float16)
    sc = np.zeros((128, 2), np.float16)
    c = np.zeros((256, 128), np.float32)
    with pytest.raises(TypeError, match=r"argument B is i4\[128, 64\]: it "
                       r"takes a C-contiguous uint8 array of shape \(128, 32\) "
                       r"holding the 8192 elements packed two per byte "
                       r"\(axe.kernel.pack_i4\) or a 1-D buffer of 4096 bytes, "
                       r"not a int8 array of shape \(128, 64\)"):
        k(a, np.zeros((128, 64), np.int8), sc, c)
    with pytest.raises(TypeError, match=r"not a uint8 array of shape "
                       r"\(128, 64\)"):  # unpacked bytes: twice too many
        k(a, np.zeros((128, 64), np.uint8), sc, c)
    k(a, bytearray(4096), sc, c)  # any 1-D buffer of the bytes
    k(a, array.array("B", bytes(4096)), sc, c)
    assert not c.any()


@pytest.mark.skipif(shutil.which((os.environ.get("CXX") or "c++").split()[0])
                    is None, reason="no C++ compiler for the emulation")
def test_i4_on_the_cuda_emulation(tmp_path, monkeypatch):
    monkeypatch.setenv("AXE_KERNEL_CACHE", str(tmp_path))
    k = K.compile(source("tests", "kernels", "i4_cta.axe"), emulate=True,
                  R=2, C=10)
    x = np.random.default_rng(5).integers(-8, 8, (2, 10)).astype(np.int8)
    h, y = np.zeros((2, 10), np.float16), np.zeros((2, 10), np.int32)
    z, w = np.zeros((2, 5), np.uint8), np.zeros((2, 5), np.uint8)
    k(K.pack_i4(x), h, y, z, w, check=True)
    np.testing.assert_array_equal(K.unpack_i4(z, (2, 10)), x)
    np.testing.assert_array_equal(K.unpack_i4(w, (2, 10)), wrap_i4(2 * x))
    with pytest.raises(TypeError, match=r"argument X is i4\[2, 10\]: it "
                       r"takes a C-contiguous uint8 array of shape \(2, 5\)"):
        k(x, h, y, z, w)
