# SPDX-License-Identifier: Apache-2.0
"""Differential test against NVIDIA's pycute (nvidia-cutlass 4.2.0.0,
installed with --no-deps): on seeded random layouts, coalesce, complement,
right_inverse, composition, logical_divide and logical_product of axe and
pycute are compared as functions. Where they differ the defining equation
(evaluated by oracle.py) decides who is right, and each such case is
printed. axe must be right whenever it answers, and may reject only where
pycute's answer (if any) is wrong. pycute's known defects are asserted."""

import pytest

import axe.cute as cute
from axe import AxeError
from axe.cute import Layout

import oracle

pycute = pytest.importorskip(
    "pycute", reason="pycute missing: pip install --no-deps "
    "nvidia-cutlass==4.2.0.0 (never `pip install pycute`)")

N = 250


def ev(lay, i):
    return oracle.value_of(lay, i)


def to_axe(p):
    return Layout(p.shape, p.stride)


def py_call(fn, *args):
    try:
        return to_axe(fn(*args))
    except Exception as e:  # pycute asserts or fails in arithmetic
        return e


def is_coalesce(a, r):
    n = cute.size(a)
    return (isinstance(r, Layout) and cute.size(r) == n and
            all(ev(r, i) == ev(a, i) for i in range(n)) and
            not any(isinstance(s, tuple) for s in oracle.leaves(r.shape)))


def is_complement(a, m, r):
    if not isinstance(r, Layout):
        return False
    image = {ev(a, i) for i in range(cute.size(a))}
    vals = [ev(r, j) for j in range(cute.size(r))]
    pair = cute.make_layout(a, r)
    full = [ev(pair, i) for i in range(cute.size(pair))]
    return (vals == sorted(set(vals)) and
            not any(v in image for v in vals[1:]) and
            len(set(full)) == len(full) and max(full) + 1 >= m)


def is_right_inverse(a, r):
    return isinstance(r, Layout) and all(
        ev(a, ev(r, k)) == k for k in range(cute.size(r)))


def is_composition(a, b, r):
    n = cute.size(b)
    return isinstance(r, Layout) and cute.size(r) == n and all(
        ev(r, i) == ev(a, ev(b, i)) for i in range(n))


def is_divide(a, b, r):
    nb = cute.size(b)
    return (isinstance(r, Layout) and cute.size(r[0]) == nb and
            all(ev(r, i) == ev(a, ev(b, i)) for i in range(nb)) and
            {ev(r, i) for i in range(cute.size(r))} ==
            {ev(a, i) for i in range(cute.size(r))})


def is_product(a, b, r):
    na = cute.size(a)
    n = na * cute.size(b)
    vals = [ev(r, i) for i in range(n)] if isinstance(r, Layout) else []
    return (isinstance(r, Layout) and cute.size(r) == n and
            all(vals[i] == ev(a, i) for i in range(na)) and
            len(set(vals)) == n)


def judge(name, args, ours, theirs, valid):
    """Compare; print and decide disagreements by "valid"."""
    ok_ours = not isinstance(ours, Exception) and valid(ours)
    ok_theirs = not isinstance(theirs, Exception) and valid(theirs)
    if isinstance(ours, Exception) and isinstance(theirs, Exception):
        return "both reject"
    same = (ok_ours and ok_theirs and cute.size(ours) == cute.size(theirs)
            and all(ev(ours, i) == ev(theirs, i)
                    for i in range(cute.size(ours))))
    if same:
        return "agree"
    print(f"{name}{args}: axe {ours} ({'valid' if ok_ours else 'INVALID'})"
          f", pycute {theirs} ({'valid' if ok_theirs else 'INVALID'})")
    assert isinstance(ours, Exception) or ok_ours, (name, args, ours)
    assert not isinstance(ours, Exception) or not ok_theirs, (
        name, args, "axe rejects a valid answer", theirs, ours)
    if ok_ours and ok_theirs:
        return "differ, both valid"
    return "axe right" if ok_ours else "both invalid/reject"


def run(name, rng, make, ours, theirs, valid):
    tally = {}
    for _ in range(N):
        args = make(rng)
        pargs = [pycute.Layout(x.shape, x.stride) if isinstance(x, Layout)
                 else x for x in args]
        try:
            mine = ours(*args)
        except AxeError as e:
            mine = e
        verdict = judge(name, args, mine, py_call(theirs, *pargs),
                        lambda r: valid(*args, r))
        tally[verdict] = tally.get(verdict, 0) + 1
    print(f"{name}: {tally}")
    return tally


def test_coalesce():
    rng = oracle.seeded("diff coalesce")
    run("coalesce", rng, lambda r: [oracle.random_layout(r)], cute.coalesce,
        pycute.coalesce, is_coalesce)


def test_complement():
    rng = oracle.seeded("diff complement")

    def make(r):
        a = oracle.random_compact(r)
        return [a, cute.cosize(a) * r.randint(1, 3)]
    run("complement", rng, make, cute.complement, pycute.complement,
        is_complement)


def test_right_inverse():
    rng = oracle.seeded("diff right_inverse")
    t = run("right_inverse", rng, lambda r: [oracle.random_layout(
        r, max_stride=6)], cute.right_inverse, pycute.right_inverse,
        lambda a, r: is_right_inverse(a, r))
    assert t.get("agree", 0) > 0


def test_composition():
    rng = oracle.seeded("diff composition")
    run("composition", rng, lambda r: [
        oracle.random_layout(r, max_stride=8),
        oracle.random_layout(r, max_leaves=2, max_stride=6)],
        cute.composition, pycute.composition, is_composition)


def test_logical_divide():
    rng = oracle.seeded("diff logical_divide")
    run("logical_divide", rng, lambda r: [
        Layout(r.choice([8, 12, 16, (4, 6), (8, 4)]), None),
        Layout(r.choice([2, 4]), r.choice([1, 2]))],
        cute.logical_divide, pycute.logical_divide, is_divide)


def test_logical_product():
    rng = oracle.seeded("diff logical_product")
    run("logical_product", rng, lambda r: [
        oracle.random_compact(r, 2), oracle.random_compact(r, 2)],
        cute.logical_product, pycute.logical_product, is_product)


def test_known_pycute_defects():
    # left_inverse of a layout whose image is not contiguous: pycute's
    # right_inverse(make_layout(a, complement(a))) is not a left inverse.
    a = Layout((3, 2), (2, 8))
    pl = pycute.left_inverse(pycute.Layout(a.shape, a.stride))
    assert any(pl(ev(a, k)) != k for k in range(6))
    li = cute.left_inverse(a)
    assert all(ev(li, ev(a, k)) == k for k in range(6))
    # composition reaching outside A's domain: CuTe continues along A's
    # last mode (here of extent 1, stride 7); pycute's coalesce drops it.
    a, b = Layout((2, 1), (2, 7)), Layout(6, 6)
    pr = pycute.composition(pycute.Layout(a.shape, a.stride),
                            pycute.Layout(6, 6))
    want = [ev(a, ev(b, i)) for i in range(6)]
    assert [pr(i) for i in range(6)] != want
    assert [ev(cute.composition(a, b), i) for i in range(6)] == want
    # logical_product with an integer tiler: pycute divides instead.
    pp = pycute.logical_product(pycute.Layout(4, 1), 3)
    assert pycute.size(pp) != 12
    r = cute.logical_product(Layout(4, 1), 3)
    assert cute.size(r) == 12 and is_product(Layout(4, 1), Layout(3, 1), r)


def test_dropin_example_prints_what_pycute_prints():
    import os
    import subprocess
    import sys
    import axe
    script = os.path.join(os.path.dirname(__file__), "..", "examples",
                          "pycute_dropin.py")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(axe.__file__)))
    ours = subprocess.run([sys.executable, script], env=env, check=True,
                          capture_output=True, text=True).stdout
    theirs = subprocess.run([sys.executable, script, "--pycute"], env=env,
                            check=True, capture_output=True, text=True).stdout
    assert ours == theirs and ours.count("\n") == 9
