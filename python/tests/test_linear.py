# SPDX-License-Identifier: Apache-2.0
"""Triton linear layouts from Python on seeded random layouts with
power-of-two extents and strides: to_linear's apply equals the layout's
point computed by brute force (oracle.axe_set), the text parses back to the
same map, an invertible one's inverse undoes it, and layouts that are not
bit-linear are refused with the library's reason."""

import os
import random

import pytest

import axe
from axe import AxeError, LinearLayout

import oracle

SEED = int(os.environ.get("AXE_TEST_SEED", 20251125))  # fixed default
AXES = ["m", "laneid", "warpid"]


def random_layout(rng):
    iters = []
    for _ in range(rng.randint(1, 4)):
        iters.append(f"{1 << rng.randint(0, 3)}:"
                     f"{1 << rng.randint(0, 5)}@{rng.choice(AXES)}")
    ext = ",".join(s.split(":")[0] for s in iters)
    st = ",".join(s.split(":")[1] for s in iters)
    return axe.layout(f"S[({ext}):({st})]")


def point(lay, x):
    (pt,) = oracle.axe_set(lay, x)
    return {k: v for k, v in dict(pt).items() if v}


def bit_linear(lay):
    """Brute force: l(x) is the XOR of l(2^i) over the set bits of x."""
    n = lay.size()
    bases = [point(lay, 1 << i) for i in range(n.bit_length() - 1)]
    for x in range(n):
        want = {}
        for i, b in enumerate(bases):
            if x >> i & 1:
                for k, v in b.items():
                    want[k] = want.get(k, 0) ^ v
        if point(lay, x) != {k: v for k, v in want.items() if v}:
            return False
    return True


def test_linear_laws():
    print(f"AXE_TEST_SEED={SEED}")
    rng = random.Random(SEED)
    inverted = refused = 0
    for _ in range(200):
        lay = random_layout(rng)
        try:
            lin = lay.to_linear()
        except AxeError as e:
            assert e.status == "UNSUPPORTED" and not bit_linear(lay), \
                (str(lay), e)
            refused += 1
            continue
        assert bit_linear(lay), str(lay)
        back = LinearLayout.parse(str(lin))
        assert str(back) == str(lin)
        for x in range(lay.size()):
            want = point(lay, x)
            got = {k: v for k, v in lin.apply(x).items() if v}
            assert got == want, (str(lay), x, got, want)
            assert back.apply(x) == lin.apply(x)
        try:
            inv = lin.invert()
        except AxeError as e:
            assert e.status in ("NOT_INJECTIVE", "UNSUPPORTED", "INVALID"), e
            continue
        inverted += 1
        for x in range(lay.size()):
            out = lin.apply(x)
            assert inv.apply(*[out.get(n, 0) for n, _ in inv.ins]) == \
                {"index": x}, (str(lay), x)
    print(f"linear laws: 200 layouts, {refused} not bit-linear, "
          f"{inverted} inverted")


def test_linear_refusals():
    with pytest.raises(AxeError) as e:
        axe.layout("S[4:3]").to_linear()
    assert e.value.status == "UNSUPPORTED" and "bit-linear" in e.value.reason
    with pytest.raises(AxeError) as e:
        axe.layout("(24,24):(1,24)")
        axe.TileLayout.from_cute(axe.layout("(24,24):(1,24)")).to_linear()
    assert "power of two" in e.value.reason
    with pytest.raises(AxeError) as e:
        LinearLayout.parse(" - index=1 -> (0, ")
    assert e.value.status == "SYNTAX"
