# SPDX-License-Identifier: Apache-2.0
"""axe.kernel: kernels compiled through the C backend and called on
arrays (docs/python.md, "Kernels"). Results are compared with numpy's own
softmax and matmul (never with the code under test), check=True with
the reference, and wrong arguments must raise TypeError/ValueError before
any C runs. Needs a C compiler; the tests on numpy arrays need numpy
(scripts/test_python.sh installs it), skipped with the reason
otherwise."""

import array
import ctypes
import math
import os
import shutil
import struct
import threading

import pytest

import axe
from axe import kernel as K
from srctree import source

try:
    import numpy as np
except ImportError:  # the tests on array.array and the errors still run
    np = None
numpy_needed = pytest.mark.skipif(np is None, reason="numpy is not "
                                  "installed (pip install numpy)")
if shutil.which((os.environ.get("CC") or "cc").split()[0]) is None:
    pytest.skip("no C compiler ($CC, default cc)", allow_module_level=True)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = os.path.join(ROOT, "examples", "kernels")


def example(name):
    return source("examples", "kernels", name)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    """A private shared-object cache per test."""
    d = tmp_path / "cache"
    monkeypatch.setenv("AXE_KERNEL_CACHE", str(d))
    return d


def rng(seed):
    return np.random.default_rng(seed)


def np_softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@numpy_needed
def test_softmax_matches_numpy():
    k = axe.kernel.compile(example("softmax.axe"), ROWS=12, C=160)
    assert [t.shape for t in k.tensors] == [(12, 160), (12, 160)]
    x = rng(1).standard_normal((12, 160)).astype(np.float32) * 4
    y = np.full_like(x, np.nan)
    assert k(x, y) is None
    np.testing.assert_allclose(y, np_softmax(x), rtol=2e-6, atol=1e-8)
    y2 = np.zeros_like(x)
    res = k(X=x, Y=y2, check=True)
    assert res.races_checked and res.max_abs_err < 1e-6
    np.testing.assert_array_equal(y, y2)


@numpy_needed
def test_gemm_matches_numpy():
    k = axe.kernel.compile(example("gemm.axe"), M=256, N=128, K=96)
    a = rng(2).standard_normal((256, 96)).astype(np.float32)
    b = rng(3).standard_normal((128, 96)).astype(np.float32)
    c = np.zeros((256, 128), np.float32)
    res = k(a, b, c, check=True)
    assert res.max_abs_err == 0  # gemm.thread_fma keeps k in order
    want = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-4)


@numpy_needed
def test_f16_softmax_takes_float16_and_bit_patterns():
    k = axe.kernel.compile(example("softmax_f16.axe"), ROWS=4, C=64)
    x = rng(4).standard_normal((4, 64)).astype(np.float16)
    y = np.zeros_like(x)
    k(x, y, check=True)
    np.testing.assert_allclose(y.astype(np.float64),
                               np_softmax(x.astype(np.float64)),
                               rtol=1e-2, atol=2e-3)
    y16 = np.zeros((4, 64), np.uint16)  # the same bits as uint16
    k(x.view(np.uint16), y16)
    np.testing.assert_array_equal(y16, y.view(np.uint16))


@numpy_needed
@pytest.mark.parametrize("defs", [dict(SEQ=128, D=64),
                                  dict(SEQ=192, D=32, BM=32, STAGES=3)])
def test_flash_attention_matches_numpy(defs):
    """The online softmax over key blocks is attention: softmax(Q K^T /
    sqrt(D)) V computed by numpy in float64 from the same f16 inputs;
    normwise within the rounding of P and O to f16."""
    k = axe.kernel.compile(example("flash_attention.axe"), **defs)
    n, d = defs["SEQ"], defs["D"]
    g = rng(5)
    q, kk, v = (g.standard_normal((n, d)).astype(np.float16)
                for _ in range(3))
    o = np.full((n, d), np.nan, np.float16)
    res = k(q, kk, v, o, check=True)
    assert res.races_checked
    s = q.astype(np.float64) @ kk.astype(np.float64).T / math.sqrt(d)
    want = np_softmax(s) @ v.astype(np.float64)
    err = np.linalg.norm(o.astype(np.float64) - want) / np.linalg.norm(want)
    assert err < 2e-3, err


def np_causal_attention(q, k, v):
    """softmax(Q K^T / sqrt(D) + M) V in float64, M[i, j] = -inf for j > i."""
    n, d = q.shape
    s = q.astype(np.float64) @ k.astype(np.float64).T / math.sqrt(d)
    s[np.triu_indices(n, 1)] = -np.inf
    return np_softmax(s) @ v.astype(np.float64)


CAUSAL_SKIP = "if (j * BN < bx * BM + BM) {"
CAUSAL_MASK = "warp select(s, keep, s, ninf.bcast(1, BN));"


@numpy_needed
@pytest.mark.parametrize("name", ["flash_attention_causal.axe",
                                  "flash_attention_causal_auto.axe"])
@pytest.mark.parametrize("defs", [dict(), dict(SEQ=120),
                                  dict(SEQ=100, D=32, BM=32, BN=32),
                                  dict(SEQ=192, BM=32, BN=64)])
def test_flash_attention_causal_matches_numpy(name, defs):
    """The causal kernel (skipped key blocks, the diagonal blocks masked
    to -inf) is causal attention computed by numpy in float64 from the
    same f16 inputs, at sizes that are multiples of the tiles and not
    (SEQ 120 and 100); normwise within the rounding of P and O to f16.
    Rows past SEQ are not written (O keeps its NaN padding check)."""
    k = axe.kernel.compile(example(name), **defs)
    n = defs.get("SEQ", 128)
    d = defs.get("D", 64)
    g = rng(7)
    q, kk, v = (g.standard_normal((n, d)).astype(np.float16)
                for _ in range(3))
    o = np.full((n, d), np.nan, np.float16)
    res = k(q, kk, v, o, check=True)
    assert res.races_checked
    want = np_causal_attention(q, kk, v)
    err = np.linalg.norm(o.astype(np.float64) - want) / np.linalg.norm(want)
    assert err < 2e-3, err


@numpy_needed
@pytest.mark.parametrize("old,new", [
    (CAUSAL_MASK, ""),  # the diagonal blocks unmasked
    (CAUSAL_SKIP, "if (j * BN < bx * BM) {"),  # the diagonal block skipped
    (CAUSAL_SKIP, "if (j * BN < bx * BM + BM + BN) {"),  # one block late
])
def test_flash_attention_causal_mutants_fail(old, new):
    """The numpy comparison above catches a kernel without the mask, one
    that skips the diagonal block and one that skips one block too late
    (the late block must then be masked whole: it is, by the same select,
    so that mutant stays causal and must still match)."""
    with open(example("flash_attention_causal.axe"), encoding="utf-8") as f:
        src = f.read()
    assert old in src
    k = axe.kernel.compile(src.replace(old, new), SEQ=128, BM=32, BN=32)
    g = rng(8)
    q, kk, v = (g.standard_normal((128, 64)).astype(np.float16)
                for _ in range(3))
    o = np.zeros((128, 64), np.float16)
    k(q, kk, v, o)
    want = np_causal_attention(q, kk, v)
    err = np.linalg.norm(o.astype(np.float64) - want) / np.linalg.norm(want)
    if new.endswith("+ BN) {"):
        assert err < 2e-3, err
    else:  # far off, or NaN (a row with no key left: 0 / 0)
        assert not err < 1e-2, err


BF16_SRC = """
kernel twice(X: bf16[4, 8], Y: bf16[4, 8]) grid(1) threads(32) {
    cta add(Y, X, X);
}
"""


@numpy_needed
def test_bf16_as_uint16_bit_patterns():
    k = axe.kernel.compile(BF16_SRC)
    vals = rng(5).standard_normal(32).astype(np.float32)
    bits = (vals.view(np.uint32) >> 16).astype(np.uint16).reshape(4, 8)
    y = np.zeros_like(bits)
    k(bits, y, check=True)
    got = (y.astype(np.uint32) << 16).view(np.float32)
    want = (bits.astype(np.uint32) << 16).view(np.float32) * 2
    np.testing.assert_array_equal(got, want)  # doubling is exact
    with pytest.raises(TypeError, match=r"uint16 \(bit patterns\)"):
        k(bits.view(np.float16), y)


@numpy_needed
def test_int_kernel_and_readonly_input():
    k = axe.kernel.compile("""
kernel sq(A: i32[6], B: i32[6]) grid(1) threads(6) { cta mul(B, A, A); }
""")
    a = np.array([3, -4, 0, 46341, 7, -1], np.int32)
    a.flags.writeable = False  # an input may be read-only
    b = np.zeros(6, np.int32)
    k(a, b, check=True)
    # 46341^2 wraps modulo 2^32 (docs/compiler.md)
    assert b.tolist() == [9, 16, 0, 46341 * 46341 - (1 << 32), 49, 1]
    with pytest.raises(TypeError, match="writes B, but the array is "
                       "read-only"):
        k(b.copy(), a)


def test_buffer_protocol_without_numpy_types():
    k = axe.kernel.compile("""
kernel inc(A: f64[2, 3], B: f64[2, 3]) grid(1) threads(1) {
    thread add(B, A, A);
}
""")
    a = array.array("d", [1, 2, 3, 4, 5, 6.5])
    b = array.array("d", [0] * 6)
    k(a, b, check=True)  # a 1-D buffer of the elements
    assert list(b) == [2, 4, 6, 8, 10, 13]
    b2 = bytearray(48)
    with pytest.raises(TypeError, match=r"float64 array of shape \(2, 3\) "
                       r"or a 1-D buffer of 6 elements, not a uint8 array "
                       r"of shape \(48,\)"):
        k(a, b2)


@numpy_needed
def test_dlpack_tensor():
    class OnlyDLPack:  # no buffer protocol: read through numpy.from_dlpack
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    k = axe.kernel.compile(example("softmax.axe"), ROWS=4, C=32)
    x = rng(6).standard_normal((4, 32)).astype(np.float32)
    y = np.zeros_like(x)
    k(OnlyDLPack(x), y, check=True)
    np.testing.assert_allclose(y, np_softmax(x), rtol=2e-6, atol=1e-8)
    with pytest.raises(TypeError, match="buffer protocol or __dlpack__"):
        k([1.0] * 128, y)


@numpy_needed
def test_wrong_arguments_are_type_errors():
    k = axe.kernel.compile(example("softmax.axe"), ROWS=4, C=32)
    x = np.zeros((4, 32), np.float32)
    y = np.zeros((4, 32), np.float32)
    cases = [
        ((x.astype(np.float64), y), r"X is f32\[4, 32\]: it takes a "
         r"C-contiguous float32 array of shape \(4, 32\) or a 1-D buffer of "
         r"128 elements, not a float64 array of shape \(4, 32\)"),
        ((x[:, :16].copy(), y), r"not a float32 array of shape \(4, 16\)"),
        ((x.astype(">f4"), y), r"not a format '>f' array"),
        ((np.zeros((32, 4), np.float32).T, y), "not C-contiguous"),
        ((x,), "no array for Y"),
        ((x, y, y), "takes 2 arrays, 3 given"),
    ]
    for args, msg in cases:
        with pytest.raises(TypeError, match=msg):
            k(*args)
    with pytest.raises(TypeError, match="has no parameter 'Z'"):
        k(x, Z=y)
    with pytest.raises(TypeError, match="X given by position and by name"):
        k(x, X=x, Y=y)
    with pytest.raises(ValueError, match="X and Y share memory"):
        k(x, x)
    with pytest.raises(ValueError, match="share memory"):
        big = np.zeros(200, np.float32)
        k(big[:128], big[64:192])


PADDED_SRC = """
kernel pad(A: f32[4, 8], P: f32[4, 8] layout S[(4, 8):(9, 1)])
    grid(1) threads(1) { thread copy(P, A); }
"""


@numpy_needed
def test_non_row_major_tensor_takes_its_span():
    k = axe.kernel.compile(PADDED_SRC)
    a_t, p_t = k.tensors
    assert (a_t.row_major, p_t.row_major, p_t.elems) == (True, False, 35)
    a = np.arange(32, dtype=np.float32).reshape(4, 8)
    with pytest.raises(TypeError, match=r"P is f32\[4, 8\]: it takes a 1-D "
                       r"float32 buffer of 35 elements \(its layout is not "
                       r"row-major"):
        k(a, np.zeros((4, 8), np.float32))
    p = np.full(35, -1, np.float32)
    k(a, p, check=True)
    assert p.reshape(-1)[:35].tolist() == [
        (r * 8 + c if c < 8 else -1.0)
        for r in range(4) for c in range(9)][:35]


@numpy_needed
def test_check_error_names_buffer_positions():
    """A tensor that is not row-major reports buffer positions: a copy
    into the padded P swapped for a kernel that also writes the pads."""
    k = axe.kernel.compile(PADDED_SRC)
    wide = axe.kernel.compile("""
kernel pad(A: f32[4, 8], P: f32[35]) grid(1) threads(1) {
    thread copy(P[0:32], A.view(S[32:1]));
}
""")
    k._fn = wide._fn  # P gets A's 32 values back to back: rows shift
    a = np.arange(1, 33, dtype=np.float32).reshape(4, 8)
    with pytest.raises(axe.CheckError) as e:
        k(a, np.zeros(35, np.float32), check=True)
    first = e.value.mismatches[0]
    # buffer element 8 is row 0's pad: the C wrote A[1, 0] = 9 there
    assert (first.tensor, first.coords, first.got, first.want) == (
        "P", (8,), 9.0, 0.0)
    assert e.value.buffer_positions == ["P"]
    assert "P buffer element 8 = 9.0, reference 0.0" in str(e.value)


def test_compile_errors_are_located():
    with pytest.raises(axe.AxeError) as e:
        axe.kernel.compile("kernel k(A: f32[4]) grid(1) threads(1) {\n"
                           "  thread copy(A, B);\n}\n")
    assert e.value.status == "SYNTAX"
    assert e.value.reason == "<source>:2:18: unknown tensor 'B'"
    assert (e.value.line, e.value.column, e.value.offset) == (2, 18, 58)
    assert str(e.value) == "SYNTAX: <source>:2:18: unknown tensor 'B'"
    with pytest.raises(axe.AxeError, match="softmax.axe:.*FOO"):
        axe.kernel.compile(example("softmax.axe"), FOO=3)
    path = example("softmax.axe")
    rows = [({"C": 1.5}, TypeError, "param C=1.5: a compile-time param is "
             "an integer"),
            ({"C": True}, TypeError, "param C=True"),
            ({"A" * 40: 3}, axe.AxeError, "INVALID: param A+: name longer "
             "than 31 bytes"),
            ({f"P{i}": 1 for i in range(17)}, axe.AxeError,
             "CAPACITY: param P16: more than 16 params"),
            ({"a\0b": 1}, axe.AxeError, "INVALID: param name .* contains a "
             "NUL"),
            ({"C": 1 << 70}, axe.AxeError, "OVERFLOW: param C"),
            ({"C": 0}, axe.AxeError, r"DOMAIN: .*softmax.axe:9:29: extent 0 "
             "is not positive")]
    for params, exc, msg in rows:
        with pytest.raises(exc, match=msg):
            axe.kernel.compile(path, **params)
    with pytest.raises(TypeError, match="not bytes"):
        axe.kernel.compile(b"kernel k() grid(1) threads(1) {}")
    import pathlib
    k = axe.kernel.compile(pathlib.Path(example("softmax.axe")), ROWS=4,
                           C=32)
    assert k.name == "softmax"
    with pytest.raises(FileNotFoundError):
        axe.kernel.compile("no/such/kernel.axe")
    with pytest.raises(TypeError, match="not int"):
        axe.kernel.compile(17)


def test_no_schedule_error_has_every_note():
    src = ("kernel k(A: global f32[64, 64], B: global f32[64, 64]) grid(1) "
           "threads(128) {\n    cta gemm(A, B, B);\n}\n")
    with pytest.raises(axe.AxeError) as e:
        axe.kernel.compile(src)
    lines = e.value.reason.split("\n")
    head = "<source>:2:9: no schedule for gemm: none of "
    assert lines[0].startswith(head) and len(lines) >= 4
    names = lines[0][len(head):].split(" applies")[0].split(", ")
    assert [x.split(":")[0] for x in lines[1:]] == [
        "gemm." + n for n in names]


def two_kernels():
    """Two kernels of one signature that compute different things."""
    relu = axe.kernel.compile("""
kernel f(X: f32[8, 16], Y: f32[8, 16]) grid(1) threads(32) {
    cta relu(Y, X);
}
""")
    neg = axe.kernel.compile("""
kernel g(X: f32[8, 16], Y: f32[8, 16]) grid(1) threads(32) {
    cta neg(Y, X);
}
""")
    return relu, neg


@numpy_needed
def test_check_error_on_a_wrong_answer():
    relu, neg = two_kernels()
    x = rng(7).standard_normal((8, 16)).astype(np.float32)
    y = np.zeros_like(x)
    relu(x, y, check=True)  # the honest pair passes
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    relu._fn = neg._fn  # the C now computes -X, the reference relu(X)
    y = np.zeros_like(x)
    with pytest.raises(axe.CheckError) as e:
        relu(x, y, check=True)
    err = e.value
    assert isinstance(err, AssertionError)
    np.testing.assert_array_equal(y, -x)  # the outputs are the C's
    nonzero = int(np.count_nonzero(x))
    assert err.counts == {"Y": nonzero} and err.race_count == 0
    assert len(err.mismatches) == K.MISMATCHES_LISTED
    first = err.mismatches[0]
    r, c = first.coords
    assert first.tensor == "Y" and first.got == -x[r, c]
    assert first.want == max(x[r, c], 0)
    assert f"Y: {nonzero} elements differ (Y[{r}, {c}] = " in str(err)


@numpy_needed
def test_check_error_on_a_race():
    k = axe.kernel.compile("""
param N = 64;
param T = 3;
kernel wg_handoff(A: f32[T * 128, N], B: f32[T * 128, N]) grid(1)
    threads(256)
{
    shared s: f32[128, N];
    for t in range(T) {
        if (wgid == 0) {
            warpgroup copy(s, A[t * 128 : +128, 0 : +N]);
        }
        if (wgid == 1) {
            warpgroup relu(B[t * 128 : +128, 0 : +N], s);
        }
        sync;
    }
}
""", N=32, T=1)
    a = rng(8).standard_normal((128, 32)).astype(np.float32)
    b = np.zeros_like(a)
    with pytest.raises(axe.CheckError) as e:
        k(a, b, check=True)
    assert e.value.mismatches == [] and e.value.race_count > 0
    assert e.value.races[0] == ("race on s[0,0]: written by thread 0 "
                                "(line 10), read by thread 128 (line 13), "
                                "no sync between")


def compare(dtype, got, want):
    """K._Compare on one 1-D tensor of Python values."""
    fmt = {"f32": "f", "f64": "d", "i32": "i", "f16": "e", "e4m3": "B"}[dtype]
    t = K.Tensor("T", dtype, (len(got),), len(got), True, True)
    K._dtype_name({"f16": 0, "f32": 2, "f64": 3, "i32": 5, "e4m3": 6}[dtype])
    c = K._Compare()
    c.tensor(t, struct.pack(f"={len(got)}{fmt}", *got),
             struct.pack(f"={len(want)}{fmt}", *want))
    return c.counts.get("T", 0)


def test_compare_rules():
    """docs/compiler.md's tolerances and non-finite rules, by hand: f32
    within 1e-6 + 1e-5 R (R the largest finite |ref|), integers exact, a
    NaN only against a NaN, an infinity only against itself."""
    inf, nan = float("inf"), float("nan")
    assert compare("f32", [100.0, 1.0], [100.0, 1.0009765625]) == 0
    assert compare("f32", [100.0, 1.0], [100.0, 1.0029296875]) == 1
    assert compare("f64", [1.0], [1.0 + 3e-12]) == 1
    assert compare("f64", [1.0], [1.0 + 1e-12]) == 0
    assert compare("i32", [5, 7], [5, 8]) == 1
    assert compare("f32", [nan, inf, -inf], [nan, inf, -inf]) == 0
    assert compare("f32", [nan, 1.0], [1.0, nan]) == 2
    assert compare("f32", [inf, -inf], [-inf, 3e38]) == 2
    assert compare("f16", [1.0, 2.0], [1.0, 2.0078125]) == 0
    assert compare("f16", [1.0, 2.0], [1.0, 2.03125]) == 1
    # e4m3 within 0.125 + 0.125 R: 1.0 (0x38) against 1.125 (0x39) and
    # 2.0 (0x40); 0x7f is e4m3's NaN
    assert compare("e4m3", [0x38], [0x39]) == 0
    assert compare("e4m3", [0x38], [0x40]) == 1
    assert compare("e4m3", [0x7F, 0x38], [0x7F, 0x7F]) == 1


def test_check_refuses_too_much_work():
    k = axe.kernel.compile("""
kernel busy(A: f32[2]) grid(1) threads(1024) {
    register r: f32[2];
    for i in range(1048576) { thread fill(r, 0); }
}
""")
    with pytest.raises(ValueError, match="beyond check=True's limit of "
                       "1073741824"):
        k(array.array("f", [0, 0]), check=True)


def test_shared_object_is_cached(cache, monkeypatch):
    path = example("softmax.axe")
    k1 = axe.kernel.compile(path, ROWS=4, C=32)
    assert k1.built and os.path.dirname(k1.so_path) == str(cache)
    assert os.path.exists(k1.so_path)
    k2 = axe.kernel.compile(path, ROWS=4, C=32)
    assert k2.so_path == k1.so_path and not k2.built
    k3 = axe.kernel.compile(path, ROWS=8, C=32)  # other C: another object
    assert k3.so_path != k1.so_path and k3.built

    def no_build(*args):
        raise AssertionError("the cached shared object was rebuilt")

    # A fresh process: nothing loaded, the file on disk is reused.
    monkeypatch.setattr(K, "_loaded", {})
    monkeypatch.setattr(K, "_build_so", no_build)
    k4 = axe.kernel.compile(path, ROWS=4, C=32)
    assert k4.so_path == k1.so_path and not k4.built
    x = array.array("f", [i / 16 - 4 for i in range(128)])
    y = array.array("f", [0] * 128)
    k4(x, y, check=True)
    row = [math.exp(v - x[31]) for v in x[:32]]
    assert abs(y[5] - row[5] / sum(row)) < 1e-7


def test_compiler_failure_is_reported(monkeypatch):
    monkeypatch.setenv("CC", "false")
    with pytest.raises(axe.AxeError, match="IO: the C compiler failed"):
        axe.kernel.compile(example("softmax.axe"), ROWS=4, C=32)
    monkeypatch.setenv("CC", "/no/such/compiler")
    with pytest.raises(axe.AxeError, match="cannot run the C compiler"):
        axe.kernel.compile(example("softmax.axe"), ROWS=4, C=32)


@numpy_needed
def test_threads_share_one_kernel():
    k = axe.kernel.compile(example("softmax.axe"), ROWS=8, C=64)
    xs = [rng(10 + i).standard_normal((8, 64)).astype(np.float32)
          for i in range(4)]
    ys = [np.zeros_like(x) for x in xs]

    def work(i):
        for _ in range(20):
            k(xs[i], ys[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(xs, ys):
        np.testing.assert_allclose(y, np_softmax(x), rtol=2e-6, atol=1e-8)


def test_program_is_freed_once():
    k = axe.kernel.compile(example("softmax.axe"), ROWS=4, C=32)
    prog = k._prog
    assert isinstance(prog, ctypes.c_void_p) and prog.value
    k.__del__()
    assert k._prog is None
    k.__del__()  # a second call is harmless


@numpy_needed
def test_runtime_scalars_one_build_many_sizes():
    k = axe.kernel.compile(example("tail_rows.axe"), N=48)
    assert k.scalars == ["M"] and k.built
    so = k.so_path
    for m in (100, 64, 1, 0):  # 100 and 1 leave a partial last CTA
        x = rng(m).standard_normal((m, 48)).astype(np.float32)
        y = np.full_like(x, np.nan)
        res = k(x, y, M=m, check=True)
        assert res.max_abs_err == 0
        np.testing.assert_array_equal(y, np.maximum(x, 0) * 2)
        assert [t.shape for t in k.tensors] == [(m, 48), (m, 48)]
    assert k.so_path == so
    assert repr(k) == ("<axe.kernel.Kernel tail_rows(X: f32[0, 48], "
                       "Y: f32[0, 48], M: i32)>")


def test_tensors_at_runtime_scalars():
    k = axe.kernel.compile(example("tail_rows.axe"), N=16)
    assert [t.shape for t in k.tensors_at(M=70)] == [(70, 16), (70, 16)]
    assert k.tensors_at(M=70)[0].elems == 70 * 16
    with pytest.raises(TypeError, match="no value for the runtime scalar M"):
        k.tensors_at()
    with pytest.raises(TypeError, match="has no runtime scalar 'Q'"):
        k.tensors_at(M=3, Q=4)


def random_array(t, g):
    """Random elements for tensor "t" as axe run fills them (floats in
    [-1, 1), i8 in [-50, 50], i32 in [-100, 100], i4 in [-8, 7] packed;
    fp8 patterns of magnitude below 2)."""
    shape = t.shape if t.row_major else (t.elems,)
    u = g.uniform(-1, 1, shape)
    floats = {"f32": np.float32, "f64": np.float64, "f16": np.float16}
    if t.dtype in floats:
        return u.astype(floats[t.dtype])
    if t.dtype == "bf16":
        return (u.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    if t.dtype == "i8":
        return g.integers(-50, 51, shape).astype(np.int8)
    if t.dtype == "i32":
        return g.integers(-100, 101, shape).astype(np.int32)
    if t.dtype == "i4":
        return axe.kernel.pack_i4(g.integers(-8, 8, shape).astype(np.int8))
    assert t.dtype in ("e4m3", "e5m2"), t.dtype
    return (g.integers(0, 0x40, shape) |
            (g.integers(0, 2, shape) << 7)).astype(np.uint8)


#: Index tensors of the examples, drawn in range (as axe run --range).
INDEX_RANGES = {("embedding.axe", "ids"): (0, 999)}
EXAMPLE_FILES = sorted(f for f in os.listdir(EXAMPLES)
                       if f.endswith(".axe")) if os.path.isdir(EXAMPLES) \
    else []


@numpy_needed
@pytest.mark.parametrize("name", EXAMPLE_FILES)
def test_every_example_passes_its_check(name):
    """Each example kernel from Python on random arrays, as `axe run
    --check` runs it (runtime scalars at 37, not a multiple of a tile)."""
    k = axe.kernel.compile(os.path.join(EXAMPLES, name))
    scalars = {s: 37 for s in k.scalars}
    g = rng(11)
    args = []
    for t in k.tensors_at(**scalars):
        if (name, t.name) in INDEX_RANGES:
            lo, hi = INDEX_RANGES[name, t.name]
            args.append(g.integers(lo, hi + 1, t.shape).astype(np.int32))
        else:
            args.append(random_array(t, g))
    k(*args, check=True, **scalars)


@numpy_needed
def test_gather_out_of_bounds_is_a_domain_error():
    k = axe.kernel.compile(example("embedding.axe"), V=50, D=8)
    emb = rng(12).standard_normal((50, 8)).astype(np.float32)
    ids = np.array([3, 49, 0, 7], np.int32)
    out = np.zeros((4, 8), np.float32)
    k(emb, ids, out, T=4, check=True)
    np.testing.assert_array_equal(out, emb[ids])
    ids[2] = 50
    for check in (False, True):
        out[:] = -1
        with pytest.raises(axe.AxeError, match=r"DOMAIN: kernel embedding: "
                           r"region of 'Emb' out of bounds at run time "
                           r"\(line \d+\): dimension 0 starts at 50 with "
                           r"length 1 but the extent is 50; the start reads "
                           r"ids\[2\] = 50"):
            k(emb, ids, out, T=4, check=check)
        np.testing.assert_array_equal(out[[0, 1, 3]], emb[ids[[0, 1, 3]]])
    ids[2] = 1  # the next launch clears the error
    k(emb, ids, out, T=4)
    np.testing.assert_array_equal(out, emb[ids])


@numpy_needed
def test_runtime_scalar_errors():
    k = axe.kernel.compile(example("tail_rows.axe"), N=32)
    x = np.zeros((40, 32), np.float32)
    y = np.zeros((40, 32), np.float32)
    with pytest.raises(TypeError, match="no value for the runtime scalar M "
                       r"\(pass M=...\)"):
        k(x, y)
    with pytest.raises(TypeError, match="runtime scalar M=40.0: an i32 is "
                       "an integer"):
        k(x, y, M=40.0)
    with pytest.raises(TypeError, match=r"X is f32\[41, 32\]: it takes a "
                       r"C-contiguous float32 array of shape \(41, 32\)"):
        k(x, y, M=41)  # the arrays hold 40 rows
    with pytest.raises(axe.AxeError, match="DOMAIN: .*-3 at launch"):
        k(x, y, M=-3)
    with pytest.raises(axe.AxeError, match="OVERFLOW"):
        k(x, y, M=1 << 70)
    with pytest.raises(TypeError, match="has no parameter 'N' .*runtime "
                       "scalar M"):
        k(x, y, M=40, N=3)
    k(x, y, M=40)  # the errors left nothing behind


@numpy_needed
def test_float_runtime_scalars():
    """`eps: f32` and `s: f16` given as keyword floats: fill reads them,
    rounded to their dtype; not finite, or not a number, is refused."""
    path = os.path.join(ROOT, "tests", "kernels", "layernorm_eps.axe")
    k = axe.kernel.compile(path)
    assert k.scalars == ["M", "eps", "s"]
    assert k.scalar_dtypes == ["i32", "f32", "f16"]
    for m, eps, sc in ((5, 1e-5, 1), (40, 0.5, 0.3)):
        x = rng(m).standard_normal((m, 24)).astype(np.float32)
        y = np.zeros_like(x)
        k(x, y, M=m, eps=eps, s=sc, check=True)
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        want = (x - mu) / np.sqrt(var + np.float32(eps)) * np.float16(sc)
        np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(axe.AxeError, match="DOMAIN: runtime scalar 's' = "
                       "70000 is not a finite f16"):
        k(x, y, M=40, eps=1e-5, s=70000.0)
    with pytest.raises(TypeError, match="runtime scalar eps='x': a f32 is "
                       "a number"):
        k(x, y, M=40, eps="x", s=1)
    assert repr(k).endswith("M: i32, eps: f32, s: f16)>")


@numpy_needed
def test_fp8_as_uint8_bit_patterns():
    """e4m3 (bias 7, largest 448, satfinite) and e5m2 patterns, worked
    out by hand from the OCP FP8 formats."""
    k = axe.kernel.compile("""
kernel q(X: f32[8], Q: e4m3[8], R: e5m2[8], Y: f32[8]) grid(1) threads(1) {
    thread cast(Q, X);
    thread cast(R, X);
    thread cast(Y, Q);
}
""")
    x = np.array([1, 2, -1, 448, 1000, 0, 0.5, 3], np.float32)
    q = np.zeros(8, np.uint8)
    r = np.zeros(8, np.uint8)
    y = np.zeros(8, np.float32)
    k(x, q, r, y, check=True)
    assert q.tolist() == [0x38, 0x40, 0xB8, 0x7E, 0x7E, 0x00, 0x30, 0x44]
    # e5m2: 448 = 1.75 * 2^8 -> 0 11000 11; 1000 rounds to 1024 = 2^10
    assert r.tolist() == [0x3C, 0x40, 0xBC, 0x5F, 0x64, 0x00, 0x38, 0x42]
    assert y.tolist() == [1, 2, -1, 448, 448, 0, 0.5, 3]
    with pytest.raises(TypeError, match=r"Q is e4m3\[8\]: it takes a "
                       r"C-contiguous uint8 \(bit patterns\) array"):
        k(x, q.view(np.int8), r, y)


def test_struct_mirrors_match_the_header(tmp_path):
    """_lib's ctypes mirrors of include/axe/kernel.h have the C sizes and
    field offsets (a field added in C without its mirror fails here)."""
    import subprocess
    from axe import _lib as L
    include = os.path.join(ROOT, "include")
    if not os.path.exists(os.path.join(include, "axe", "kernel.h")):
        pytest.skip(f"{include} not found (tests run outside the source "
                    "tree)")
    mirrors = {"axe_kernel_options": L.KernelOptions,
               "axe_kernel_tensor": L.KernelTensor,
               "axe_kernel_scalar": L.KernelScalar,
               "axe_race_access": L.RaceAccess, "axe_race": L.Race,
               "axe_race_report": L.RaceReport}
    lines = []
    for c, py in mirrors.items():
        lines.append(f'printf("{c} %zu\\n", sizeof({c}));')
        for f, _ in py._fields_:
            lines.append(f'printf("{c}.{f} %zu\\n", offsetof({c}, {f}));')
    src = tmp_path / "sizes.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n"
                   "#include \"axe/kernel.h\"\nint main(void) {\n" +
                   "\n".join(lines) + "\nreturn 0;\n}\n")
    exe = tmp_path / "sizes"
    cc = (os.environ.get("CC") or "cc").split()
    subprocess.run(cc + ["-I", include, "-o", str(exe), str(src)],
                   check=True)
    got = dict(line.rsplit(" ", 1) for line in subprocess.run(
        [str(exe)], capture_output=True, text=True,
        check=True).stdout.splitlines())
    for c, py in mirrors.items():
        assert int(got[c]) == ctypes.sizeof(py), c
        for f, _ in py._fields_:
            assert int(got[f"{c}.{f}"]) == getattr(py, f).offset, f"{c}.{f}"


def bf16_value(v):
    """float32 "v" rounded to bf16 (nearest, ties to even) as a float32."""
    u = int(np.array([v], np.float32).view(np.uint32)[0])
    u = ((u + 0x7fff + ((u >> 16) & 1)) >> 16) << 16
    return np.array([u], np.uint32).view(np.float32)[0]


@numpy_needed
def test_scalar_operands_match_numpy():
    """Literals and runtime scalars as operands (tests/kernels/
    scalar_ops.axe): each converts to the operator's dtype as a register
    filled with it would hold it, so Y (scalar operands) equals Z (filled
    registers) bit for bit; Y, G (f16), J (i32, wrapping) and P (i8) are
    compared with numpy."""
    path = os.path.join(ROOT, "tests", "kernels", "scalar_ops.axe")
    k = axe.kernel.compile(path)
    assert k.scalar_dtypes == ["i32", "f32", "f16", "i32", "bf16", "f64"]
    for m, eps, sc, lim, b, d in ((5, 1e-5, 0.3, 3, 1.5, 0.25),
                                  (40, 0.5, -2.0, 16, -0.7, 1e-3)):
        g = rng(m)
        x = g.uniform(-1, 1, (m, 16)).astype(np.float32)
        h = g.uniform(-1, 1, (m, 16)).astype(np.float16)
        i = g.integers(-2**31, 2**31, (m, 16)).astype(np.int32)
        y, z = np.zeros_like(x), np.zeros_like(x)
        gh, j = np.zeros_like(h), np.zeros_like(i)
        p = np.zeros((m, 16), np.int8)
        k(x, h, i, y, z, gh, j, p, M=m, eps=eps, scale=sc, lim=lim, b=b,
          d=d, check=True)
        assert np.array_equal(y.view(np.uint32), z.view(np.uint32))
        f = np.float32
        col = np.arange(16)[None, :]
        keep, pos = col < lim, x >= f(-0.25)
        w = (f(0.125) * (x + f(eps)) - f(d)) / f(np.float16(sc))
        w = np.minimum(f(bf16_value(b)), np.maximum(w, f(-2)))
        w = w * w + np.power(f(2), x) - f(lim)
        w = np.where(pos, np.where(keep, w, -np.inf), f(1e-3))
        np.testing.assert_allclose(y, w, rtol=1e-6)
        e16 = np.float16(f(eps))
        v = (h.astype(f) * f(np.float16(sc))).astype(np.float16)
        v = (v.astype(f) + f(e16)).astype(np.float16)
        v = (v.astype(f) - f(np.float16(0.1))).astype(np.float16)
        v = np.where(keep, v, np.float16(0.1))
        v = np.where(pos, np.float16(bf16_value(b)), v)
        assert np.array_equal(gh.view(np.uint16), v.view(np.uint16))
        wrap = (i.astype(np.int64) * 3 + lim + 2**31) % 2**32 - 2**31
        np.testing.assert_array_equal(j, np.maximum(wrap, -100000))
        want = np.broadcast_to(5 - (keep + 1) + (col == lim), p.shape)
        np.testing.assert_array_equal(p, want)
