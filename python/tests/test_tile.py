# SPDX-License-Identifier: Apache-2.0
"""Axe layouts from Python against the Axe paper's definitions: the
S[...]/R[...] syntax, set semantics, canonicalize preserving the map, the
tile and direct-sum equations and slicing, on seeded random layouts
(oracle.py evaluates L(x) by brute force)."""

import itertools

import pytest

import axe
from axe import AxeError, R, S, TileLayout, laneid, warpid

import oracle


def test_paper_syntax_and_set_semantics():
    L = (S[(8, 2, 4, 2):(4 @ laneid, 1 @ warpid, 1 @ laneid, 1)]
         + R[2:4 @ warpid] + 5 @ warpid)
    text = ("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid] "
            "+ 5@warpid")
    assert str(L) == text and axe.layout(text) == L
    assert L.apply_set([0, 0], shape=[8, 16]) == [
        {"laneid": 0, "warpid": 5, "m": 0},
        {"laneid": 0, "warpid": 9, "m": 0}]
    assert L.apply(0) == {"laneid": 0, "warpid": 5, "m": 0}
    assert L.size() == 128 and L.get_scope() == ("thread", "cta")
    assert L.verify_well_formed()


def random_axe(rng):
    axes = ["m", "laneid", "warpid"]
    n = rng.randint(1, 4)
    shard = [(rng.randint(1, 4), rng.randint(0, 9), rng.choice(axes))
             for _ in range(n)]
    rep = [(rng.randint(1, 3), rng.randint(1, 5), rng.choice(axes))
           for _ in range(rng.randint(0, 1))]
    off = {rng.choice(axes): rng.randint(0, 5)}
    return TileLayout(shard, rep, off)


def test_canonicalize_preserves_map_and_is_idempotent():
    rng = oracle.seeded("canonicalize")
    for _ in range(200):
        L = random_axe(rng)
        C = L.canonicalize()
        assert oracle.same_axe_function(L, C), (L, C)
        assert C.canonicalize() == C
        assert oracle.axe_set(L, 3) == sorted(
            tuple(sorted((k, v) for k, v in p.items() if v))
            for p in L.apply_set(3))


def test_tile_equation():
    rng = oracle.seeded("tile")
    for _ in range(100):
        os_ = [rng.randint(1, 3), rng.randint(1, 3)]
        is_ = [rng.randint(1, 4), rng.randint(1, 4)]
        outer = TileLayout.row_major(os_)
        inner = TileLayout([(is_[0], rng.randint(1, 3) * is_[1], "m"),
                            (is_[1], 1, "m")])
        T = inner.tile(outer, os_, is_)
        span = inner.span()
        shape = [os_[0] * is_[0], os_[1] * is_[1]]
        for x0, x1, y0, y1 in itertools.product(range(os_[0]),
                                                range(os_[1]),
                                                range(is_[0]),
                                                range(is_[1])):
            got = T.apply(x0 * is_[0] + y0, x1 * is_[1] + y1, shape=shape)
            want = (outer.apply(x0, x1, shape=os_)["m"] * span +
                    inner.apply(y0, y1, shape=is_)["m"])
            assert got.get("m", 0) == want, (outer, inner, T)
        back = inner.is_tile_inner(T, shape, is_)
        assert back is not None and oracle.same_axe_function(
            back.canonicalize(), outer.canonicalize())


def test_paper_rules_and_tirx_switch():
    """The Axe paper's span, tile and tile-of by default; tirx=True gives
    TIRx's where they differ (issue 12 §1); a non-bool is a TypeError."""
    a = axe.layout("S[2:8] + R[2:1]")
    b = axe.layout("S[4:1]")
    assert str(b.tile(a, [2], [4])) == "S[(2,4):(32,1)] + R[2:4]"
    assert str(b.tile(a, [2], [4], tirx=True)) == "S[(2,4):(32,1)] + R[2:1]"
    assert axe.layout("S[4:-1]").span() == 4
    assert axe.layout("S[4:-1]").span(tirx=True) == -2
    assert axe.layout("S[8:1] + R[2:100] + 5").span() == 108
    assert axe.layout("S[8:1] + R[2:100] + 5").span(tirx=True) == 113
    off = axe.layout("S[4:1] + 2")
    t = off.tile(axe.layout("S[2:1] + 1"), [2], [4])
    assert str(t) == "S[8:1] + 6"
    assert str(off.tile(axe.layout("S[2:1] + 1"), [2], [4], tirx=True)) == \
        "S[(2,4):(6,1)] + 3"
    assert str(off.is_tile_inner(t, [8], [4])) == "S[2:1] + 1"
    assert off.is_tile_inner(t, [8], [4], tirx=True) is None
    assert str(axe.layout("S[2:1] + 1").is_tile_outer(t, [8], [2])) == \
        "S[4:1] + 2"
    for tirx in (False, True):
        t = b.tile(a, [2], [4], tirx=tirx)
        assert b.is_tile_inner(t, [8], [4], tirx=tirx) is not None
        assert a.is_tile_outer(t, [8], [2], tirx=tirx) is not None
    assert str(axe.layout("S[4:1] + 1").tile_to([8], [4])) == "S[8:1] + 1"
    assert str(axe.layout("S[4:1] + 1").tile_to([8], [4], tirx=True)) == \
        "S[(2,4):(5,1)] + 1"
    with pytest.raises(TypeError):
        b.span(tirx=1)


def test_intersect():
    """The paper's iter intersection, the tile intersection with tile=True
    (tirx=True: with TIRx's tile); no single iter is an AxeError."""
    p8, p4 = axe.layout("S[8:2@P]"), axe.layout("S[4:4@P]")
    assert str(p8.intersect(p4)) == "S[4:4@P]"
    assert str(p8.intersect(p4, tile=True)) == "S[1:1]"
    assert str(p8.intersect(p4, tirx=True)) == "S[1:1]"
    lanes = axe.layout("S[(8,8,4):(4@laneid,8,1@laneid)]")
    other = axe.layout("S[(2,8,4):(4@laneid,8,1@laneid)]")
    assert str(lanes.intersect(other, axis="laneid")) == "S[8:1@laneid]"
    assert str(lanes.intersect(other, axis="laneid", tile=True)) == \
        "S[4:1@laneid]"
    with pytest.raises(axe.AxeError) as e:
        axe.layout("S[(2,2):(8,1)]").intersect(axe.layout("S[(4,2):(4,1)]"))
    assert "no single iter" in str(e.value)
    with pytest.raises(TypeError):
        p8.intersect("S[4:4@P]")


def test_slice_and_direct_sum():
    L = axe.layout("S[(2,8,3,8):(192,8,64,1)]")
    s = L.slice([16, 24], [[0, 8], [8, 24]])
    assert s.canonicalize() == axe.layout("S[(8,2,8):(8,64,1)] + 64")
    for r, c in itertools.product(range(8), range(16)):
        assert (s.apply(r, c, shape=[8, 16])["m"] ==
                L.apply(r, c + 8, shape=[16, 24])["m"])
    a, b = axe.layout("S[(2,2):(8,2)]"), axe.layout("S[(2,2):(4,1)]")
    total = b.direct_sum(a, [2, 2], [2, 2])
    for a0, b0, a1, b1 in itertools.product(range(2), repeat=4):
        got = total.apply(a0, b0, a1, b1, shape=[2, 2, 2, 2])["m"]
        assert got == (a.apply(a0, a1, shape=[2, 2])["m"] +
                       b.apply(b0, b1, shape=[2, 2])["m"])
    assert b.is_direct_sum_right(total, [2, 2, 2, 2], [2, 2]) == a


def test_conversions_round_trip():
    rng = oracle.seeded("convert")
    for _ in range(100):
        c = oracle.random_layout(rng)
        A = TileLayout.from_cute(c)
        n = axe.cute.size(c)
        assert all(A.apply(i).get("m", 0) == oracle.value_of(c, i)
                   for i in range(n))
        assert axe.cute.coalesce(A.to_cute()) == axe.cute.coalesce(c)


@pytest.mark.parametrize("bad", [
    lambda: S[(8, 4):(1,)],
    lambda: TileLayout([(4, 1, "not an axis!")]),
    lambda: axe.layout("S[4:1@laneid] + 1@tx").verify_well_formed(),
    lambda: axe.layout("S[(4,8):(8,1)]").group([3, 5]),
    lambda: axe.layout("S[8:1]").apply(1, 2, 3),
    lambda: TileLayout([(1 << 62, 4, "m")]).span(),
])
def test_bad_input_raises_with_reason(bad):
    with pytest.raises(AxeError) as e:
        bad()
    assert e.value.reason
