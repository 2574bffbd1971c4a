# SPDX-License-Identifier: Apache-2.0
"""Bad input at the API boundary: an argument of the wrong type raises
TypeError naming the argument (never AttributeError or IndexError from
inside the package), a tuple nested past the library's capacity raises
AxeError CAPACITY (never RecursionError), and values outside an
operation's domain raise AxeError DOMAIN instead of a quiet answer."""

import pytest

import axe
import axe.cute as cute
from axe import AxeError
from axe import TileLayout
from axe.cute import ComposedLayout, Layout, Swizzle

L = Layout((4, 2), (1, 4))
CL = ComposedLayout(Swizzle(1, 0, 2), 0, Layout((4, 2)))


def deep(n, leaf=1):
    t = leaf
    for _ in range(n):
        t = (t,)
    return t


@pytest.mark.parametrize("call, what", [
    (lambda: cute.composition(None, L), "layoutA"),
    (lambda: cute.composition("4:1", L), "layoutA"),
    (lambda: ComposedLayout(None, 0, None), "layoutB"),
    (lambda: ComposedLayout(Swizzle(1, 1, 1), 0, None), "layoutA"),
    (lambda: ComposedLayout(L, 0, 5), "layoutA"),
    (lambda: Layout(None), "shape"),
    (lambda: Layout("4"), "shape"),
    (lambda: Layout(4, "1"), "stride"),
    (lambda: axe.layout(None), "text"),
    (lambda: axe.layout(b"4:1"), "text"),
    (lambda: cute.coalesce(None), "layout"),
    (lambda: cute.filter([4]), "layout"),
    (lambda: cute.right_inverse("4:1"), "layout"),
    (lambda: cute.left_inverse(3.0), "layout"),
    (lambda: cute.nullspace(None), "layout"),
    (lambda: cute.logical_divide(None, 2), "layoutA"),
    (lambda: cute.logical_product(None, 2), "layoutA"),
    (lambda: cute.blocked_product("x", 2), "layoutA"),
    (lambda: cute.complement(None), "layout"),
    (lambda: cute.logical_divide(L, "2"), "tiler"),
    # a swizzled ComposedLayout where only a plain Layout is meant (it
    # reached ctypes as the wrong struct: ctypes.ArgumentError)
    (lambda: cute.complement(CL, 16), "layout"),
    (lambda: cute.complement(CL, (16,)), "layout"),
    (lambda: cute.right_inverse(CL), "layout"),
    (lambda: cute.left_inverse(CL), "layout"),
    (lambda: cute.logical_divide(L, CL), "tiler"),
    (lambda: cute.zipped_divide(L, (CL,)), "tiler"),
    (lambda: cute.logical_product(L, CL), "tiler"),
    (lambda: cute.zipped_product(L, (CL,)), "tiler"),
    (lambda: cute.blocked_product(L, CL), "tiler"),
    (lambda: cute.raked_product(L, CL), "tiler"),
    (lambda: cute.make_layout(L, CL), "make_layout"),
])
def test_wrong_type_is_a_type_error(call, what):
    with pytest.raises(TypeError) as e:
        call()
    assert what in str(e.value), e.value


@pytest.mark.parametrize("call", [
    lambda: str(Layout(deep(2000))),
    lambda: repr(Layout(deep(2000), deep(2000))),
    lambda: Layout(deep(2000)).size(),
    lambda: cute.crd2idx(deep(2000, 0), deep(2000)),
    lambda: cute.idx2crd(0, deep(2000)),
    lambda: cute.flatten(deep(2000)),
    lambda: cute.product(deep(2000)),
    lambda: cute.prefix_product(deep(2000)),
    lambda: cute.shape_div(deep(2000), 1),
    lambda: cute.slice_(deep(2000, None), deep(2000)),
    lambda: Layout(deep(2000)) == Layout(deep(2000)),
    lambda: hash(Layout(deep(2000), deep(2000))),
    lambda: L(deep(2000, 0)),
])
def test_deep_nesting_is_capacity(call):
    with pytest.raises(AxeError) as e:
        call()
    assert e.value.status == "CAPACITY" and "nest" in e.value.reason


class _IntLike:
    """An int-like scalar (only __index__), as numpy's ints."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_tile_apply_negative_int_like_digit_is_domain():
    t = axe.layout("S[(4,8):(1@laneid,4@m)]")
    with pytest.raises(AxeError) as e:
        t.apply(0, _IntLike(-1))
    assert e.value.status == "DOMAIN"


def test_nesting_within_capacity_still_works():
    t = deep(15, 4)
    assert cute.size(Layout(t)) == 4 and cute.flatten(deep(50, 3)) == (3,)
    assert str(Layout(deep(3, 4))) == "(((4,),),):(((1,),),)"


@pytest.mark.parametrize("index", [-1, -100])
def test_tile_apply_negative_index_is_domain(index):
    t = axe.layout("S[(4,8):(1@laneid,4@m)]")
    assert t.apply(9) == {"laneid": 1, "m": 4}  # 9 = (1, 1), lexicographic
    for fn in (t.apply, t.apply_base, t.apply_set):
        with pytest.raises(AxeError) as e:
            fn(index)
        assert e.value.status == "DOMAIN", e.value
    with pytest.raises(AxeError) as e:
        t.apply(0, index)
    assert e.value.status == "DOMAIN", e.value


@pytest.mark.parametrize("max_idx", [-5, -1, 0])
def test_complement_nonpositive_max_idx_is_domain(max_idx):
    assert str(cute.complement(L, 16)) == "2:8"
    for a in (L, 4):
        with pytest.raises(AxeError) as e:
            cute.complement(a, max_idx)
        assert e.value.status == "DOMAIN", e.value


def test_index_ints_are_still_accepted():
    class Index:
        """An int-like (numpy's ints have __index__ too)."""

        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v
    assert cute.size(Layout(Index(4), Index(2))) == 4
    assert Layout(Index(4), Index(2))(3) == 6
    class NumpyInt(Index):
        """Like numpy's ints: equal to the int, a repr of its own."""

        def __eq__(self, other):
            return self.v == other

        def __hash__(self):
            return hash(self.v)

        def __repr__(self):
            return f"np.int64({self.v})"
    # equal layouts hash alike (the hash read the leaves' repr)
    n4 = NumpyInt(4)
    assert Layout((n4, 2), (1, n4)) == Layout((4, 2), (1, 4))
    assert hash(Layout((n4, 2), (1, n4))) == hash(Layout((4, 2), (1, 4)))
    # an int-like tiler and TileLayout index (were TypeError)
    assert cute.logical_divide(Layout(8, 1), Index(2)) == \
        cute.logical_divide(Layout(8, 1), 2)
    assert cute.logical_product(Layout(4, 1), Index(3)) == \
        cute.logical_product(Layout(4, 1), 3)
    t = axe.layout("S[(4,8):(1@laneid,4@m)]")
    assert t.apply(Index(9)) == t.apply(9) == {"laneid": 1, "m": 4}
    assert t.apply_set(Index(9)) == [{"laneid": 1, "m": 4}]
    with pytest.raises(AxeError) as e:
        t.apply(Index(-1))
    assert e.value.status == "DOMAIN", e.value


@pytest.mark.parametrize("cap", [0, 1])
def test_apply_set_capacity_of_a_replica_free_layout(cap):
    # a capacity of 0 wrote one point past the zero-length buffer (the
    # interpreter crashed later, in the garbage collector)
    t = axe.layout("S[(2,8):(1,2)]")
    if cap:
        assert t.apply_set(3, None, cap) == [{"m": 6}]  # (0, 3): 3*2
        return
    with pytest.raises(AxeError) as e:
        t.apply_set(3, None, cap)
    assert e.value.status == "CAPACITY", e.value


@pytest.mark.parametrize("call", [
    lambda t: t + axe.Stride(1, "a\x00b"),
    lambda t: axe.S[4:1 @ axe.Axis("laneid\x00zz")],
    lambda t: axe.axis_info("laneid\x00zz"),
    lambda t: t.size("laneid\x00zz"),
    lambda t: t.span("laneid\x00zz"),
    lambda t: t.backward({"laneid\x00zz": 4, "m": 1}),
    lambda t: axe.layout("m![A]", axes={"A\x00zz": 4}),
    lambda t: t.render(color_by="laneid\x00zz"),
    lambda t: t.render(title="a title\x00cut"),
    lambda t: axe.layout("m![A, B]", axes={"A": 4, "B": 8}).to_axe(
        ["A\x00x", "B"]),
])
def test_nul_in_an_axis_name_is_refused(call):
    # C reads a name up to its first NUL: "a\x00b" was the axis "a"
    t = axe.layout("S[(8,4):(4@laneid,1)]")
    with pytest.raises(AxeError) as e:
        call(t)
    assert e.value.status == "INVALID" and "NUL" in e.value.reason


def test_canonicalize_unknown_target_is_invalid():
    t = axe.layout("S[(8,4):(4@laneid,1)]")
    with pytest.raises(AxeError) as e:  # was KeyError
        t.canonicalize("cudaa")
    assert e.value.status == "INVALID" and "cuda" in e.value.reason


@pytest.mark.parametrize("datapath", ["AB", "", "laneid", "a\x00b", "Ω"])
def test_tmem_datapath_name_not_one_letter_is_invalid(datapath):
    # ctypes passed it as one C char: ctypes.ArgumentError
    with pytest.raises(AxeError) as e:
        TileLayout.tmem_datapath(datapath, 128, 64)
    assert e.value.status == "INVALID" and "datapath" in e.value.reason


# ---- issue 12 §3: the adversarial-testing defects -------------------------

@pytest.mark.parametrize("call, what", [
    (lambda: cute.recast_layout((4, 8), 8, 16), "layout"),
    (lambda: cute.recast_layout(None, 8, 16), "layout"),
    (lambda: axe.layout("S[8:1]", Swizzle(3, 3, 3)), "axes"),
    (lambda: axe.layout("m![A]", {"A": 4}, defs=[1]), "defs"),
    (lambda: axe.layout("m![A]", {"A": 4}, consts=7), "consts"),
    (lambda: axe.layout("m![A]", {"A": 4}, defs={"X": 5}), "def X"),
])
def test_wrong_type_is_a_type_error_12(call, what):
    with pytest.raises(TypeError) as e:
        call()
    assert what in str(e.value), e.value


@pytest.mark.parametrize("b", [deep(17, 2), deep(2, 2), (deep(16, 2), 2),
                               (CL, 2), (2, CL), deep(3, None)])
@pytest.mark.parametrize("kind", ["zipped", "tiled", "logical"])
def test_products_by_nested_tilers_raise_only_the_contract(kind, b):
    """A nested tiler (or one holding a ComposedLayout) gives a layout, a
    TypeError or an AxeError, never an IndexError from inside."""
    fn = getattr(cute, f"{kind}_product")
    for a in (L, Layout(2, 1), CL):
        try:
            r = fn(a, b)
        except (TypeError, AxeError):
            continue
        assert isinstance(r, (Layout, ComposedLayout))


def test_zipped_product_by_a_nested_tiler_is_hier_unzip():
    """pycute's zipped_product is hier_unzip(logical_product): by mode at
    every level. Worked by hand: logical_product(2:1, 2) = (2,2):(1,2),
    gathered ((2),(2)) one level down and once more at the top."""
    r = cute.zipped_product(Layout(2, 1), ((2,),))
    assert r == Layout((((2,),), ((2,),)), (((1,),), ((2,),)))
    assert cute.tiled_product(Layout(2, 1), ((2,),)) == Layout(
        (((2,),), (2,)), (((1,),), (2,)))


def test_tiler_with_more_modes_than_the_layout_is_incompatible():
    for fn in (cute.logical_product, cute.zipped_product,
               cute.tiled_product):
        with pytest.raises(AxeError) as e:
            fn(Layout(4), (2, 2))
        assert e.value.status == "INCOMPATIBLE" and "2 modes" in e.value.reason


@pytest.mark.parametrize("call", [
    lambda: axe.layout("S[8:1]\udc80"),
    lambda: axe.layout("(8\ud800):1"),
    lambda: axe.layout("m![A\udc80]", {"A": 4}),
    lambda: axe.layout("m![A]", {"A\udc80": 4}),
    lambda: axe.layout("axes![A = 4\udfff]"),
    lambda: axe.linear.LinearLayout.parse("\udc80"),
])
def test_lone_surrogate_is_a_syntax_error(call):
    with pytest.raises(AxeError) as e:
        call()
    assert e.value.status == "SYNTAX" and "surrogate" in e.value.reason


def test_lone_surrogate_offset_is_the_byte_offset():
    with pytest.raises(AxeError) as e:
        axe.layout("S[\u00e9\udc80")
    assert e.value.offset == 4  # "S[" and two bytes of é


@pytest.mark.parametrize("call", [
    lambda: cute.slice_(-2**63, Layout(8, 1)),
    lambda: cute.slice_((-2**63, None), Layout((8, 2))),
    lambda: cute.dice((None, -2**63), Layout((8, 2))),
    lambda: Layout(-2**63, 1).size(),
])
def test_int64_min_is_not_the_wildcard(call):
    """-2**63 is the library's code for `_`; from Python it is out of
    range, as in the notation (None is the wildcard)."""
    with pytest.raises(AxeError) as e:
        call()
    assert e.value.status == "OVERFLOW" and "out of range" in e.value.reason


def test_size_and_span_reasons():
    sw = axe.layout("Swizzle<3,3,3>(S[512:1])")
    for q in (sw.size, sw.span):
        with pytest.raises(AxeError) as e:
            q("m")
        assert e.value.status == "INVALID" and "swizzled" in e.value.reason
    with pytest.raises(AxeError) as e:
        axe.layout("S[512:1]").size("bad-axis")
    assert "not an axis name" in e.value.reason
    with pytest.raises(AxeError) as e:
        axe.layout("S[(4611686018427387904,4):(1,1)]").size()
    assert e.value.status == "OVERFLOW" and "int64" in e.value.reason
