# SPDX-License-Identifier: Apache-2.0
"""The two backends of axe.cute: the extension axe._fast and ctypes.

scripts/test_python.sh runs the whole suite once per backend and sets
AXE_EXPECT_BACKEND, so a build that silently lost the extension fails here.
Under the extension, each of its operations is compared with the same
library function called through ctypes (independently of axe.cute's
dispatch) on seeded random operands: the same layout, or the same status
and reason; and operands it does not handle must come back NotImplemented
(axe.cute then takes the ctypes path) without crashing.
"""

import ctypes
import os

import pytest

import axe.cute as cute
from axe import AxeError
from axe._convert import decode_layout
from axe._lib import CuteLayout, Diag, lib, status_name
from axe.cute import Layout

import oracle

N = 300
fast = cute._fast
needs_fast = pytest.mark.skipif(fast is None, reason="axe.cute runs on "
                                "ctypes (AXE_PY_BACKEND=ctypes or no "
                                "extension); the fallback is what is tested")


def test_backend_is_the_expected_one():
    want = os.environ.get("AXE_EXPECT_BACKEND")
    if not want:
        pytest.skip("AXE_EXPECT_BACKEND not set")
    assert cute.BACKEND == want


def via_ctypes(fn, *args):
    """(shape, stride) of fn(*args, out, diag) called through ctypes, or
    (status name, reason) of its failure; "diag" left out when None."""
    out, diag = CuteLayout(), Diag()
    with_diag = fn not in (lib.axe_cute_coalesce, lib.axe_cute_filter)
    st = fn(*args, out, diag) if with_diag else fn(*args, out)
    if st:
        return ("error", status_name(st), diag.message.decode())
    return decode_layout(out)


def via_fast(fn, *args):
    try:
        r = fn(*args)
    except AxeError as e:
        return ("error", e.status, e.reason)
    assert type(r) is Layout and r._packed
    return (r.shape, r.stride)


def same(fast_result, ctypes_result):
    if ctypes_result[0] == "error" and fast_result[0] == "error":
        # the unary operations without a diagnostic carry axe.cute's text
        return fast_result[1] == ctypes_result[1] and (
            not ctypes_result[2] or fast_result[2] == ctypes_result[2])
    return fast_result == ctypes_result


@needs_fast
def test_extension_matches_the_library():
    rng = oracle.seeded("test_extension_matches_the_library")
    for _ in range(N):
        a = oracle.random_layout(rng)
        b = oracle.random_layout(rng, max_leaves=3)
        t = (oracle.random_compact(rng, 2), None, oracle.random_layout(rng))
        t = t[:rng.randint(1, 3)]
        cases = [
            (fast.coalesce, (a,), lib.axe_cute_coalesce, (a.c,)),
            (fast.filter, (a,), lib.axe_cute_filter, (a.c,)),
            (fast.right_inverse, (a,), lib.axe_cute_right_inverse, (a.c,)),
            (fast.left_inverse, (a,), lib.axe_cute_left_inverse, (a.c,)),
            (fast.compose, (a, b), lib.axe_cute_compose, (a.c, b.c)),
        ]
        n = rng.choice([1, 7, 64, 1000, 1 << 62])
        cases.append((fast.complement, (a, n), lib.axe_cute_complement,
                      (a.c, n)))
        for k in range(4):
            cases.append((fast.divide, (k, a, b),
                          lib.axe_cute_divide_layout, (k, a.c, b.c)))
            cases.append((fast.divide, (k, a, t), lib.axe_cute_divide,
                          (k, a.c, cute._tiler(t))))
        for k in range(6):
            cases.append((fast.product, (k, a, b), lib.axe_cute_product,
                          (k, a.c, b.c)))
        for ffn, fargs, cfn, cargs in cases:
            got, want = via_fast(ffn, *fargs), via_ctypes(cfn, *cargs)
            assert same(got, want), (ffn.__name__, fargs, got, want)


@needs_fast
def test_extension_unzip_product_matches_the_python_path():
    # zipped/tiled product by a flat tuple of >= 2 layouts is one call of
    # the extension; it must equal axe.cute's by-mode path (_unzip_product)
    # exactly, and leave every failure to that path.
    rng = oracle.seeded("test_extension_unzip_product")
    handled = 0
    for _ in range(N):
        a = oracle.random_layout(rng, 4, 5, 20)
        t = tuple(oracle.random_layout(rng, 2, 4, 8)
                  for _ in range(rng.randint(2, 3)))
        for kind in ("zipped", "tiled"):
            r = fast.product(cute._PROD[kind], a, t)
            try:
                want = cute._unzip_product(kind, a, t)
            except AxeError:
                assert r is NotImplemented, (kind, a, t, r)
                continue
            if r is not NotImplemented:
                handled += 1
                assert (r.shape, r.stride) == (want.shape, want.stride), (
                    kind, a, t, r, want)
    assert handled > N // 2
    a, b = Layout((3, 4), (4, 1)), Layout(2, 1)
    for t in ((b,), (b, None), (b, 2), (b, (b, b)), (b, b, b)):
        assert fast.product(cute._PROD["zipped"], a, t) is NotImplemented


@needs_fast
def test_extension_leaves_unhandled_operands_to_ctypes():
    a, b = Layout((8, 16), (20, 1)), Layout(4, 1)
    for r in (fast.coalesce(3), fast.right_inverse(None), fast.compose(a, 4),
              fast.compose(a, (b,)), fast.complement(a, 1 << 70),
              fast.complement(a, (4, 4)), fast.divide(0, a, (b, 4)),
              fast.divide(0, a, (b,) * 9), fast.product(0, a, (b,)),
              fast.divide(0, "x", b), fast.left_inverse(object())):
        assert r is NotImplemented
    # ... which the general path answers or refuses with the reason
    assert cute.logical_divide(a, (b, 4)) == cute.logical_divide(
        a, (b, Layout(4, 1)))
    with pytest.raises(AxeError, match="CAPACITY"):
        cute.logical_divide(a, (b,) * 9)
    with pytest.raises(AxeError, match="OVERFLOW"):
        cute.complement(a, 1 << 70)
    for bad in ((9, a, b), (-1, a, b), ("0", a, b)):
        with pytest.raises((ValueError, TypeError)):
            fast.divide(*bad)
    with pytest.raises(TypeError):
        fast.compose(a)
    with pytest.raises(TypeError):
        fast.setup(int, None, 0)


@needs_fast
def test_extension_packs_and_exposes_its_struct():
    a = Layout((4, 8), (1, 4))
    assert not a._packed
    r = cute.coalesce(a)
    assert a._packed and r._packed and str(r) == "32:1"
    a.shape = (4, 2)  # a setter makes the packed value stale
    assert not a._packed and a._gen == 1
    assert str(cute.coalesce(a)) == "8:1"
    assert ctypes.sizeof(a.c) == ctypes.sizeof(CuteLayout)
    assert bytes(memoryview(a))[:2] == bytes(a.c)[:2]
    bad = Layout((4, 8), (1,))  # not congruent: refused when packed
    with pytest.raises(AxeError, match="INCOMPATIBLE"):
        cute.coalesce(bad)
    with pytest.raises(AxeError, match="INCOMPATIBLE"):
        cute.logical_divide(a, (bad,))
    with pytest.raises(AxeError, match="NOT_COMPOSABLE.*divide"):
        cute.composition(Layout((4, 3), (1, 5)), Layout(6, 1))


@needs_fast
def test_extension_survives_garbage():
    junk = [None, 0, -1, 1 << 80, 1.5, "s", b"b", (), ((),), (None,),
            [1], {}, object(), Layout, cute.Swizzle(1, 1, 1),
            Layout((2, 2), (1, 2))]
    fns1 = (fast.coalesce, fast.filter, fast.right_inverse,
            fast.left_inverse)
    for x in junk:
        for f in fns1:
            try:
                f(x)
            except AxeError:
                pass
        for y in junk:
            for f, args in ((fast.compose, (x, y)), (fast.complement, (x, y)),
                            (fast.divide, (0, x, y)),
                            (fast.product, (1, x, y))):
                try:
                    f(*args)
                except (AxeError, TypeError, ValueError):
                    pass
