# SPDX-License-Identifier: Apache-2.0
"""axe.cute against the defining equations on seeded random layouts
(oracle.py evaluates by brute force), pycute-compatible printing and
calling, and bad input raising AxeError instead of crashing."""

import pytest

import axe
import axe.cute as cute
from axe import AxeError
from axe.cute import Layout

import oracle

N = 300


def ev(lay, i):
    return oracle.value_of(lay, i)


def test_print_and_call_like_pycute():
    L = Layout((4, 8), (1, 4))
    assert str(L) == "(4, 8):(1, 4)"
    assert repr(L) == "Layout((4, 8),(1, 4))"
    assert L(5) == 5 and L((1, 2)) == 9 and L(1, 2) == 9
    assert str(L(None, 2)) == "(4,):(1,)"
    assert cute.size(L) == 32 and cute.cosize(L) == 32 and len(L) == 2
    assert str(Layout((2, 3))) == "(2, 3):(1, 2)"
    assert L[1] == Layout(8, 4)
    r = cute.composition(Layout((8, 8), (8, 1)),
                         Layout(((4, 8), 2), ((16, 1), 8)))
    assert str(r) == "((4, 8), 2):((2, 8), 1)"
    assert r.notation() == "((4,8),2):((2,8),1)"
    sw = cute.ComposedLayout(cute.Swizzle(3, 4, 3), 0,
                             Layout((8, 64), (64, 1)))
    assert str(sw) == "SW_3_4_3 o 0 o (8, 64):(64, 1)"
    assert sw.notation() == "Sw<3,4,3> o 0 o (8,64):(64,1)"


def test_coalesce_same_function():
    rng = oracle.seeded("coalesce")
    for _ in range(N):
        a = oracle.random_layout(rng)
        r = cute.coalesce(a)
        n = cute.size(a)
        assert cute.size(r) == n, (a, r)
        assert all(ev(r, i) == ev(a, i) for i in range(n)), (a, r)
        assert not any(isinstance(s, tuple) for s in
                       (r.shape if isinstance(r.shape, tuple) else ())), r


def test_composition_law():
    rng = oracle.seeded("composition")
    answered = 0
    for _ in range(N):
        a = oracle.random_layout(rng, max_stride=8)
        b = oracle.random_layout(rng, max_leaves=3, max_stride=6)
        try:
            r = cute.composition(a, b)
        except AxeError as e:
            assert e.status == "NOT_COMPOSABLE" or e.status == \
                "UNSUPPORTED", e
            assert e.reason
            continue
        answered += 1
        n = cute.size(b)
        assert cute.size(r) == n
        assert all(ev(r, i) == ev(a, ev(b, i)) for i in range(n)), (a, b, r)
    assert answered > N // 4


def test_complement_law():
    rng = oracle.seeded("complement")
    for _ in range(N):
        a = oracle.random_compact(rng)
        m = cute.cosize(a) * rng.randint(1, 3)
        r = cute.complement(a, m)
        image = {ev(a, i) for i in range(cute.size(a))}
        vals = [ev(r, j) for j in range(cute.size(r))]
        assert vals == sorted(vals) and len(set(vals)) == len(vals), (a, r)
        assert all(v not in image for v in vals[1:]), (a, r)
        pair = cute.make_layout(a, r)
        full = {ev(pair, i) for i in range(cute.size(pair))}
        assert len(full) == cute.size(pair) and max(full) + 1 >= m, (a, r)


def test_inverses():
    rng = oracle.seeded("inverses")
    for _ in range(N):
        a = oracle.random_compact(rng)
        ri = cute.right_inverse(a)
        assert all(ev(a, ev(ri, k)) == k for k in range(cute.size(ri)))
        li = cute.left_inverse(a)
        assert all(ev(li, ev(a, k)) == k for k in range(cute.size(a)))


def test_divide_and_product():
    rng = oracle.seeded("divide")
    for _ in range(N // 3):
        a = Layout(rng.choice([8, 16, 24, 32]), rng.choice([1, 2, 3]))
        b = Layout(rng.choice([2, 4]), rng.choice([1, 2]))
        try:
            d = cute.logical_divide(a, b)
        except AxeError as e:
            assert e.reason
            continue
        c = cute.complement(b, cute.size(a))
        n = cute.size(a)
        want = cute.make_layout(b, c)
        assert all(ev(d, i) == ev(a, ev(want, i)) for i in range(n))
        b1 = Layout(b.shape, 1)
        p = cute.logical_product(b1, Layout(3, 1))
        assert cute.size(p) == cute.size(b1) * 3
        assert all(ev(p, i) == i for i in range(cute.size(p)))


def test_slice_offset_law():
    L = Layout(((2, 4), 3), ((1, 2), 8))
    s, off = cute.slice_and_offset(((1, None), None), L)
    for x in range(cute.size(s)):
        c1 = x % 4
        c2 = x // 4
        assert L(((1, c1), c2)) == off + s(x)


@pytest.mark.parametrize("bad", [
    lambda: Layout((4, 8), (1,)).c,
    lambda: Layout((0, 8), (1, 4)).c,
    lambda: Layout(1 << 70, 1).c,
    lambda: Layout(tuple(range(1, 40)), tuple(range(1, 40))).c,
    lambda: cute.composition(Layout((4, 6, 8), (2, 3, 5)), Layout(6, 3)),
    lambda: cute.left_inverse(Layout((8, 4, 2), (13, 2, 1))),
    lambda: axe.layout("(4,8):(1,4"),
    lambda: axe.layout("S[(8,4):(1@,8)]"),
    lambda: axe.layout("(" * 500),
    lambda: cute.Swizzle(3, 4, 1),
    lambda: Layout((4, 8), (1, 4))((9, 9, 9)),
])
def test_bad_input_raises_with_reason(bad):
    with pytest.raises(AxeError) as e:
        bad()
    assert e.value.reason


def test_garbage_text_never_crashes():
    rng = oracle.seeded("garbage")
    alphabet = "()[]<>,:;@_ o+SRw0123456789-"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0,
                                                                       30)))
        try:
            axe.layout(text)
        except AxeError as e:
            assert e.status in ("SYNTAX", "OVERFLOW", "CAPACITY", "INVALID")


def _one_tuples(rng, shape, stride):
    """Wrap random subtrees of shape/stride in 1-tuples (both alike)."""
    if isinstance(shape, tuple):
        pairs = [_one_tuples(rng, s, d) for s, d in zip(shape, stride)]
        shape = tuple(s for s, _ in pairs)
        stride = tuple(d for _, d in pairs)
    if rng.random() < 0.4:
        return (shape,), (stride,)
    return shape, stride


def test_printed_one_tuples_parse_back():
    """What str() prints (Python's `(64,)` for a 1-tuple) parses back to
    the same layout, in axe.layout and wherever the C parser reads CuTe
    text (the tiler of composition)."""
    assert str(Layout((64,), (1,))) == "(64,):(1,)"
    assert axe.layout("(64,):(1,)") == Layout((64,), (1,))
    assert axe.layout("(64,)") == (64,)
    assert cute.composition(Layout(64, 1), axe.layout("<(8,):(2,)>")) == \
        cute.composition(Layout(64, 1), (Layout((8,), (2,)),))
    rng = oracle.seeded("one-tuples")
    for _ in range(N):
        a = oracle.random_layout(rng)
        shape, stride = _one_tuples(rng, a.shape, a.stride)
        b = Layout(shape, stride)
        assert axe.layout(str(b)) == b, str(b)
        assert axe.layout(b.notation()) == b, b.notation()
    for bad in ("(,):(,)", "(4,8,):(1,4,)", "(64,,):(1,,)"):
        with pytest.raises(AxeError):
            axe.layout(bad)


def _extend(lay, q):
    """"lay" on CuTe's extended domain up to q * size: its last leaf's
    extent times q."""
    shape, stride = list(cute.flatten(lay.shape)), list(
        cute.flatten(lay.stride))
    shape[-1] *= q
    return Layout(tuple(shape), tuple(stride))


def test_complement_extended_law():
    """complement(a, m, extended=True): the Table 7 rows of the CuTe
    paper; the same function as complement(a, m) on its size; on the
    extended domain up to q sizes, (a, R) is injective, R increasing and
    (compact strides) onto [0, q B), B = ceil(m / x) x with x the extent
    of a's largest-stride mode, computed here from a."""
    assert str(cute.complement(Layout((4, 8), (1, 4)), extended=True)) == \
        "1:32"
    assert str(cute.complement(Layout((4, 8), (1, 8)), extended=True)) == \
        "(2, 1):(4, 64)"
    assert str(cute.complement(Layout((4, 8), (1, 8)), (4, 32),
                               extended=True)) == "(2, 2):(4, 64)"
    with pytest.raises(TypeError):
        cute.complement(Layout(4, 1), 8, extended="yes")
    with pytest.raises(AxeError):
        cute.complement(Layout((2, 2), (1, 1)), extended=True)
    rng = oracle.seeded("complement-extended")
    for _ in range(N):
        gaps = rng.random() < 0.5
        a = oracle.random_compact(rng, gaps=gaps)
        m = rng.randint(1, 2 * cute.cosize(a) + 4)
        r = cute.complement(a, m, extended=True)
        c = cute.complement(a, m)
        assert cute.size(r) == cute.size(c), (a, m, r, c)
        assert all(ev(r, j) == ev(c, j) for j in range(cute.size(c)))
        modes = [(s, d) for s, d in zip(cute.flatten(a.shape),
                                        cute.flatten(a.stride))
                 if s > 1 and d != 0]
        x = max((s * d for s, d in modes), default=1)
        box = -(-m // x) * x
        image = [ev(a, i) for i in range(cute.size(a))]
        for q in (1, 2, 3):
            e = _extend(r, q)
            vals = [ev(e, j) for j in range(cute.size(e))]
            assert vals == sorted(set(vals)), (a, m, r, q)
            full = [u + v for v in vals for u in image]
            assert len(set(full)) == len(full), (a, m, r, q)
            assert max(full) < q * box, (a, m, r, q)
            if not gaps:
                assert set(full) == set(range(q * box)), (a, m, r, q)


def test_left_inverse_of_strides_that_do_not_divide():
    # (2,2):(2,3) has the image {0, 2, 3, 5}; (2,3):(1,1) maps it back.
    a = Layout((2, 2), (2, 3))
    r = cute.left_inverse(a)
    assert (r.shape, r.stride) == ((2, 3), (1, 1))
    assert [r(a(k)) for k in range(4)] == [0, 1, 2, 3]
    with pytest.raises(AxeError) as e:
        cute.left_inverse(Layout((4, 3), (2, 3)))
    assert "NOT_INJECTIVE" in str(e.value)
