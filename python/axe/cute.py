# SPDX-License-Identifier: Apache-2.0
"""CuTe layouts with pycute's names and argument orders, computed by libaxe.

``import axe.cute as pycute`` keeps a pycute script working: ``Layout``,
``make_layout``, ``size``, ``cosize``, ``coalesce``, ``filter``,
``composition``, ``complement``, ``right_inverse``, ``left_inverse``, the
divides and products, ``slice_``, ``Swizzle`` and ``ComposedLayout`` take
the same arguments (tuples of layouts as by-mode tilers, ``None`` to keep
a mode, an int ``n`` for ``n:1``) and layouts print as pycute prints them.
Unlike pycute every result satisfies its defining equation or the call
raises ``AxeError`` with the reason (pycute asserts or returns a wrong
layout in the cases docs/python.md lists).

A ``Layout`` holds its Python ``shape``/``stride`` tuples and the packed C
value; either is made from the other on first use, so results of the
algebra stay packed until printed or inspected. Invariant: both, when
present, denote the same layout.

Two backends compute the same results: the extension ``axe._fast`` (built
by ``pip install``; a Layout is then its C object, and the hot operations
are one METH_FASTCALL call each) and ctypes over libaxe.so (a Layout is
then a ctypes struct). ``BACKEND`` names the one in use; the extension is
used whenever it imports, unless ``AXE_PY_BACKEND=ctypes`` is set. Every
operation the extension does not handle (other operand kinds, errors of
the Python side) takes the ctypes path, so both give the same answers and
the same errors.
"""

from __future__ import annotations

import typing as _t
from typing import Any, Dict, Optional, Union

from ._convert import (ScaledBasis, basis_modes, decode_layout, decode_tuple,
                       encode_layout, encode_tiler, encode_tuple)
from ._lib import (AxeError, CuteComposed, CuteLayout, CutePoint, Tuple,
                   OUTER_LAYOUT, OUTER_SWIZZLE, TUPLE_MAX_DEPTH, call,
                   call_fast, check, i32, i32_array, i64, lib)
from ._lib import Swizzle as _CSwizzle
from ._lib import index_like
from ._lib import raise_error
from .render import Renderable
import ctypes
import functools
import operator
import os
import sys as _sys
import types as _types
from abc import ABC
from functools import reduce
from itertools import chain
from ctypes import c_int64, create_string_buffer

try:
    from . import _fast  # type: ignore[attr-defined]
except ImportError:  # not built (no compiler or Python.h): ctypes only
    _fast = None
if os.environ.get("AXE_PY_BACKEND") == "ctypes":
    _fast = None
BACKEND = "ctypes" if _fast is None else "extension"

#: An int or a nested tuple of them (a shape, a coordinate).
IntTuple = Union[int, _t.Tuple["IntTuple", ...]]
#: A stride: ints or ScaledBasis values (E<i>), nested like the shape.
StrideTuple = Union[int, ScaledBasis, _t.Tuple["StrideTuple", ...]]
#: A coordinate in which None keeps a mode (slice_, dice, profiles).
Coord = Union[int, None, _t.Tuple["Coord", ...]]
#: A CuTe layout: a Layout or a ComposedLayout.
LayoutArg = Union["Layout", "ComposedLayout"]
#: A tiler: a layout, an int n (n:1), a shape tuple, or a tuple of tilers
#: with None to keep a mode.
Tiler = Union["Layout", "ComposedLayout", int, None, _t.Tuple["Tiler", ...]]


def _unhandled(*args):
    return NotImplemented


if _fast is None:
    _Base = CuteLayout
    _f_coalesce = _f_filter = _f_right_inverse = _f_left_inverse = \
        _f_compose = _f_complement = _f_divide = _f_product = _unhandled

    def _view(layout):
        return layout
else:
    _Base = _fast.Layout  # type: ignore[misc]
    _f_coalesce, _f_filter = _fast.coalesce, _fast.filter
    _f_right_inverse, _f_left_inverse = (_fast.right_inverse,
                                         _fast.left_inverse)
    _f_compose, _f_complement = _fast.compose, _fast.complement
    _f_divide, _f_product = _fast.divide, _fast.product
    _view = CuteLayout.from_buffer
_new = _Base.__new__
_compose = lib.axe_cute_compose
_complement = lib.axe_cute_complement
_right_inverse = lib.axe_cute_right_inverse
_divide_layout = lib.axe_cute_divide_layout
_divide_tiler = lib.axe_cute_divide
_product_layout = lib.axe_cute_product

_coalesce = lib.axe_cute_coalesce

__all__ = [
    "AxeError", "ComposedLayout", "Layout", "LayoutBase", "ScaledBasis",
    "Swizzle", "blocked_product", "coalesce", "complement", "composition",
    "cosize", "crd2idx", "filter", "flat_divide", "flat_product",
    "idx2crd", "is_int", "is_layout", "is_tuple", "left_inverse",
    "logical_divide", "logical_product", "make_layout", "nullspace",
    "product", "raked_product", "right_inverse", "shape_div", "size",
    "slice_", "slice_and_offset", "tiled_divide", "tiled_product",
    "zipped_divide", "zipped_product", "flatten", "prefix_product",
    "coalesce_x", "dice", "get", "recast_layout", "tile_to_shape",
    "crd2crd", "elem_scale", "has_none", "hier_unzip", "inner_product",
    "shiftl", "shiftr", "signum", "tuple_max",
    # what `from pycute import *` gives besides its functions: its typing
    # ABC, the names its modules import, and its submodules (the end of
    # this file)
    "Integer", "ABC", "Union", "chain", "reduce", "int_tuple", "layout",
    "swizzle", "typing",
]

_DIV = {"logical": 0, "zipped": 1, "tiled": 2, "flat": 3}
_PROD = {"logical": 0, "zipped": 1, "tiled": 2, "flat": 3, "blocked": 4,
         "raked": 5}


_F = _t.TypeVar("_F", bound=_t.Callable[..., Any])


def _too_deep(what):
    return AxeError("CAPACITY", f"{what}: a tuple is nested too deeply "
                    f"(the library holds at most {TUPLE_MAX_DEPTH} levels)")


def _nesting_guard(fn: _F) -> _F:
    """"fn" with Python's RecursionError on a deeply nested tuple turned
    into AxeError CAPACITY."""
    @functools.wraps(fn)
    def guarded(*args, **kw):
        try:
            return fn(*args, **kw)
        except RecursionError:
            raise _too_deep(fn.__name__) from None
    return _t.cast(_F, guarded)


def _ints(t):
    """"t" with its int-like leaves (numpy's ints) as ints, so that equal
    layouts hash alike."""
    if isinstance(t, tuple):
        return tuple(_ints(e) for e in t)
    if hasattr(type(t), "__index__") and not isinstance(t, int):
        return operator.index(t)
    return t


def _need_layout(x, arg, op, types=None):
    """"x" if it is a Layout (or one of "types"); TypeError naming the
    argument "arg" of "op" otherwise."""
    if isinstance(x, types or Layout):
        return x
    kinds = " or ".join(t.__name__ for t in types or (Layout,))
    raise TypeError(f"{op}: {arg} must be a {kinds}, not "
                    f"{type(x).__name__} {x!r}")


def is_int(x: object) -> bool:
    """True for an integer (pycute's is_int)."""
    return isinstance(x, int)


def is_tuple(x: object) -> bool:
    """True for a tuple (pycute's is_tuple)."""
    return isinstance(x, tuple)


@_nesting_guard
def flatten(t: Union[IntTuple, LayoutArg]) -> Union[IntTuple, LayoutArg]:
    """The leaves of "t" as a flat tuple (an int n gives (n,), as in
    pycute); of a layout, the layout of its leaves (same function,
    depth <= 1)."""
    if isinstance(t, ComposedLayout):
        return t._with(flatten(t.layoutA))
    if isinstance(t, Layout):
        return _unary(lib.axe_cute_flatten, t)
    if not isinstance(t, tuple):
        return (t,)
    out: _t.List[Any] = []
    for e in t:
        if isinstance(e, tuple):
            out.extend(_t.cast(_t.Tuple[Any, ...], flatten(e)))
        else:
            out.append(e)
    return tuple(out)


@_nesting_guard
def product(t: IntTuple) -> int:
    """The product of the leaves of "t"."""
    if isinstance(t, tuple):
        r = 1
        for e in t:
            r *= product(e)
        return r
    return t


@_nesting_guard
def prefix_product(t: IntTuple, init: int = 1) -> IntTuple:
    """Exclusive prefix products congruent to "t" (compact column-major
    strides), starting at "init"; a tuple "init" of t's rank starts each
    mode at its own value (pycute)."""
    if isinstance(init, tuple):
        if not isinstance(t, tuple):
            raise AxeError("INCOMPATIBLE", f"prefix_product: init {init!r} "
                           f"is a tuple and {t!r} is not")
        _ranks(t, init, "prefix_product")
        return tuple(prefix_product(x, i) for x, i in zip(t, init))
    if isinstance(t, tuple):
        out = []
        for e in t:
            out.append(prefix_product(e, init))
            init = init * product(e)
        return tuple(out)
    return init


@_nesting_guard
def shape_div(a: IntTuple, b: IntTuple) -> IntTuple:
    """CuTe's shape_div: a/b if b divides a, 1 if a divides b (per leaf,
    congruent to "a"); AxeError DIVISIBILITY otherwise."""
    if isinstance(a, tuple):
        if isinstance(b, tuple):
            return tuple(shape_div(x, y) for x, y in zip(a, b))
        out = []
        for v in a:
            out.append(shape_div(v, b))
            b = shape_div(b, product(v))
        return tuple(out)
    if isinstance(b, tuple):
        return shape_div(a, product(b))
    if a % b and b % a:
        raise AxeError("DIVISIBILITY", f"{a} and {b} do not divide each "
                       "other")
    return (a + b - 1) // b


def signum(a: int) -> int:
    """-1, 0 or 1: the sign of "a"."""
    return (a > 0) - (a < 0)


def _ranks(a, b, op):
    if len(a) != len(b):
        raise AxeError("INCOMPATIBLE", f"{op}: {a!r} and {b!r} have "
                       f"different ranks ({len(a)} and {len(b)})")


@_nesting_guard
def inner_product(a: IntTuple, b: IntTuple) -> int:
    """The sum of a_i * b_i over the leaves of congruent "a" and "b"."""
    if isinstance(a, tuple):
        if not isinstance(b, tuple):
            raise AxeError("INCOMPATIBLE", f"inner_product: {a!r} is a "
                           f"tuple and {b!r} is not")
        _ranks(a, b, "inner_product")
        return sum(inner_product(x, y) for x, y in zip(a, b))
    if isinstance(b, tuple):
        raise AxeError("INCOMPATIBLE", f"inner_product: {b!r} is a tuple "
                       f"and {a!r} is not")
    return a * b


@_nesting_guard
def tuple_max(a: IntTuple) -> int:
    """The largest leaf of "a"."""
    if isinstance(a, tuple):
        return max(tuple_max(x) for x in a)
    return a


@_nesting_guard
def elem_scale(a: IntTuple, b: IntTuple) -> IntTuple:
    """"a" scaled leaf by leaf: by b's leaves for congruent tuples, by
    product(b) for an int "a" (a tuple "a" needs a tuple "b")."""
    if isinstance(a, tuple):
        if not isinstance(b, tuple):
            raise AxeError("INCOMPATIBLE", f"elem_scale: tuple {a!r} "
                           f"scaled by the int {b!r}")
        _ranks(a, b, "elem_scale")
        return tuple(elem_scale(x, y) for x, y in zip(a, b))
    return a * product(b)


@_nesting_guard
def has_none(a: Coord) -> bool:
    """True if a leaf of "a" is None."""
    return _has_none(a)


@_nesting_guard
def crd2crd(crd: IntTuple, dst_shape: IntTuple,
            src_shape: Optional[IntTuple] = None) -> IntTuple:
    """Coordinate "crd" (of "src_shape") as a coordinate of "dst_shape":
    by mode for congruent tuples, idx2crd for an int "crd", crd2idx in
    "src_shape" for a tuple "crd" and an int "dst_shape" (pycute's)."""
    if isinstance(crd, tuple):
        if isinstance(dst_shape, tuple):
            _ranks(crd, dst_shape, "crd2crd")
            return tuple(crd2crd(x, y) for x, y in zip(crd, dst_shape))
        if src_shape is None:
            raise AxeError("INVALID", f"crd2crd: coordinate {crd!r} into "
                           f"the int shape {dst_shape!r} needs src_shape")
        return _t.cast(int, crd2idx(crd, src_shape))
    if isinstance(dst_shape, tuple):
        return idx2crd(crd, dst_shape)
    if not 0 <= crd < dst_shape:
        raise AxeError("DOMAIN", f"crd2crd: coordinate {crd} is outside "
                       f"[0, {dst_shape})")
    return crd


def shiftr(a: int, s: int) -> int:
    """a >> s, or a << -s for negative "s" (pycute's; s = 0 gives a)."""
    return a >> s if s >= 0 else a << -s


def shiftl(a: int, s: int) -> int:
    """a << s, or a >> -s for negative "s" (pycute's; s = 0 gives a)."""
    return a << s if s >= 0 else a >> -s


class LayoutBase(Renderable):
    """Base of Layout and ComposedLayout (pycute's)."""

    __slots__ = ()


def is_layout(x: object) -> bool:
    """True for a Layout or ComposedLayout."""
    return isinstance(x, LayoutBase)


def _layout_of(c):
    """A Layout sharing nothing with struct "c" (a copy of its value)."""
    lay = _new(Layout)
    ctypes.memmove(ctypes.addressof(_view(lay)), ctypes.addressof(c),
                   ctypes.sizeof(CuteLayout))
    return lay


class Layout(_Base, LayoutBase):
    """The CuTe layout ``shape:stride``: L(c) = sum of c_i * d_i over the
    leaves, coordinates colexicographic (first mode fastest). ``stride``
    defaults to the compact column-major strides of ``shape``.

    A Layout *is* libaxe's packed value (a ctypes struct), so results of
    the algebra are returned without conversion; ``shape`` and ``stride``
    are decoded on first access, and a Layout made from Python tuples is
    packed on its first use in the algebra. With the extension, a Layout
    is axe._fast's object holding the same struct (``c`` is a ctypes view
    of it)."""

    if _fast is None:
        _packed = True
        _shape = None
        _stride = None
        _gen = 0
    else:
        __slots__ = ()

        @property
        def _as_parameter_(self):
            """ctypes passes the packed struct by reference."""
            return ctypes.byref(self.c)

    def __init__(self, _shape: IntTuple,
                 _stride: Optional[StrideTuple] = None) -> None:
        if not isinstance(_shape, (int, tuple)) and not hasattr(
                type(_shape), "__index__"):
            raise TypeError("Layout: shape must be an int or a tuple, not "
                            f"{type(_shape).__name__} {_shape!r}")
        if not isinstance(_stride, (int, tuple, ScaledBasis, type(None))) \
                and not hasattr(type(_stride), "__index__"):
            raise TypeError("Layout: stride must be an int, a ScaledBasis "
                            "or a tuple, not "
                            f"{type(_stride).__name__} {_stride!r}")
        self._shape = _shape
        self._stride = prefix_product(_shape) if _stride is None else _stride
        self._packed = False

    def _pack(self):
        encode_layout(self._shape, self._stride, _view(self))
        self._packed = True

    @property
    def c(self) -> CuteLayout:
        """The packed C value (this object, or the ctypes view of its
        struct; packed on first use)."""
        if not self._packed:
            self._pack()
        return _view(self)

    def _decode(self):
        self._shape, self._stride = decode_layout(_view(self))

    @property
    def shape(self) -> IntTuple:
        """The shape: an int or a nested tuple of ints; the domain is
        [0, product(shape))."""
        if self._shape is None:
            self._decode()
        return self._shape  # type: ignore[return-value]

    @shape.setter
    def shape(self, v: IntTuple) -> None:
        self.stride  # decode first
        self._shape, self._packed = v, False
        self._gen += 1

    @property
    def stride(self) -> StrideTuple:
        """The stride, congruent to the shape: L(c) = sum c_i * d_i."""
        if self._shape is None:
            self._decode()
        return self._stride  # type: ignore[return-value]

    @stride.setter
    def stride(self, v: StrideTuple) -> None:
        self.shape  # decode first
        self._stride, self._packed = v, False
        self._gen += 1

    @_nesting_guard
    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Layout) and self.shape == other.shape
                and self.stride == other.stride)

    @_nesting_guard
    def __hash__(self) -> int:
        return hash((repr(_ints(self.shape)), repr(_ints(self.stride))))

    def __len__(self) -> int:
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def __call__(self, *args: Any) -> Any:
        """L(coordinate) (an index, a coordinate tuple, or several
        coordinates); with a ``None`` in the coordinate, the slice."""
        crd = args[0] if len(args) == 1 else args
        if isinstance(crd, int):
            return self._eval_index(crd)
        try:
            none = _has_none(crd)
        except RecursionError:
            raise _too_deep("Layout.__call__") from None
        if none:
            return slice_(crd, self)
        out = c_int64()
        call(_eval_crd_diag, self.c, encode_tuple(crd), out)
        return out.value

    def _eval_index(self, idx):
        if lib.axe_cute_has_basis(self.c):
            pt = CutePoint()
            check(lib.axe_cute_eval_point(self.c, i64(idx, "index"), pt),
                  "index outside the layout")
            return _point_value(pt)
        out = c_int64()
        check(lib.axe_cute_eval(self.c, i64(idx, "index"), out),
              "the value overflows or the index is negative")
        return out.value

    def __getitem__(self, i: int) -> Layout:
        if not isinstance(self.shape, tuple):
            if i != 0:
                raise IndexError(f"mode {i} of a rank-1 layout")
            return Layout(self.shape, self.stride)
        return Layout(self.shape[i], self.stride[i])  # type: ignore[index]

    def size(self) -> int:
        """The size of the domain: the product of the shape."""
        return size(self)

    def cosize(self) -> int:
        """The size of the codomain (see ``cosize``)."""
        return cosize(self)

    def notation(self) -> str:
        """The canonical axe text (``(4,8):(1,4)``)."""
        return _print(lib.axe_print_cute_layout, self.c)

    @_nesting_guard
    def __str__(self) -> str:
        return f"{self.shape}:{self.stride}"

    @_nesting_guard
    def __repr__(self) -> str:
        return f"Layout({self.shape},{self.stride})"


if _fast is not None:
    _fast.setup(Layout, raise_error, ctypes.sizeof(CuteLayout))


def _eval_crd_diag(layout, crd, out, diag):
    st = lib.axe_cute_eval_crd(layout, crd, out)
    if st:
        diag.message = (b"coordinate is not weakly congruent to the shape "
                        b"or the value overflows")
        diag.offset = -1
    return st


def _point_value(pt):
    if pt.n == 0:
        return 0
    if pt.n == 1 and pt.basis[0] == 0:
        return pt.v[0]
    return tuple(ScaledBasis(pt.v[i], basis_modes(pt.basis[i]))
                 for i in range(pt.n))


def _print(fn, c):
    buf = create_string_buffer(256)
    n = fn(c, buf, 256)
    if n >= 256:
        buf = create_string_buffer(n + 1)
        fn(c, buf, n + 1)
    return buf.value.decode()


def _has_none(t):
    if isinstance(t, tuple):
        return any(_has_none(e) for e in t)
    return t is None


def make_layout(*layouts: Any) -> Layout:
    """The layout whose modes are "layouts" (or one iterable of them)."""
    if len(layouts) == 1 and not is_layout(layouts[0]):
        layouts = tuple(layouts[0])
    for x in layouts:
        _need_layout(x, "every mode", "make_layout")
    return Layout(tuple(x.shape for x in layouts),
                  tuple(x.stride for x in layouts))


def _need_modes(a, b, op):
    """AxeError INCOMPATIBLE unless layout "a" has a mode for each mode of
    the tuple tiler "b" (pycute asserts it)."""
    if len(a) < len(b):
        raise AxeError("INCOMPATIBLE", f"{op}: the tiler has {len(b)} modes, "
                       f"more than the {len(a)} of the layout")


def _as_layout(x, arg="layoutB (the tiler)", composed=True):
    """"x" as a layout (an int or shape: its compact layout); a
    ComposedLayout only where "composed" (TypeError naming "arg")."""
    if isinstance(x, Layout) or (composed and isinstance(x, LayoutBase)):
        return x
    if index_like(x):
        return Layout(x, 1)
    if isinstance(x, tuple):
        return Layout(x)
    kind = "layout" if composed else "Layout (not swizzled)"
    raise TypeError(f"{arg}: expected a {kind}, an int or a shape, not "
                    f"{type(x).__name__} {x!r}")


def size(layout: Union[LayoutArg, IntTuple]) -> int:
    """The size of the domain: the product of the shape (of an int tuple
    too)."""
    if isinstance(layout, ComposedLayout):
        return layout.size()
    if not isinstance(layout, Layout):
        return product(layout)
    out = c_int64()
    check(lib.axe_cute_size(layout.c, out), "the size overflows int64")
    return out.value


def cosize(layout: LayoutArg) -> int:
    """The size of the codomain: L(size - 1) + 1 for nonnegative integer
    strides, 1 + sum (s_i - 1) |d_i| in general."""
    if isinstance(layout, ComposedLayout):
        return layout.cosize()
    out = c_int64()
    check(lib.axe_cute_cosize(_as_layout(layout).c, out),
          "the cosize overflows int64")
    return out.value


def _unary(fn, layout):
    _need_layout(layout, "layout", fn.__name__)
    out = _new(Layout)
    st = fn(layout.c, out)
    if st:
        check(st, "no result")
    return out


def coalesce(layout: LayoutArg, profile: Optional[Coord] = None) -> LayoutArg:
    """The same function with depth <= 1 and the fewest modes; with a
    "profile", each mode it names is coalesced separately."""
    if profile is None:
        r = _f_coalesce(layout)
        if r is not NotImplemented:
            return r
    if profile is None and type(layout) is Layout:
        out = _new(Layout)
        if _coalesce(layout if layout._packed else layout.c, out):
            check(-1, "the layout does not coalesce")
        return out
    if isinstance(layout, ComposedLayout):
        return layout._with(coalesce(layout.layoutA, profile))
    if profile is None:
        return _unary(lib.axe_cute_coalesce, layout)
    out = _new(Layout)
    check(lib.axe_cute_coalesce_by(layout.c, encode_tuple(profile), out),
          f"profile {profile!r} does not fit the layout")
    return out


def filter(layout: LayoutArg, profile: Optional[Coord] = None) -> LayoutArg:
    """Drop size-1 and stride-0 modes, then coalesce: the same image
    without repetition; by mode with a "profile"."""
    if profile is None:
        r = _f_filter(layout)
        if r is not NotImplemented:
            return r
    if isinstance(profile, tuple):
        if len(layout) < len(profile):
            raise AxeError("INCOMPATIBLE", "the profile has more modes "
                           "than the layout")
        modes = [filter(layout[i], profile[i]) for i in range(len(profile))]
        modes += [layout[i] for i in range(len(profile), len(layout))]
        return make_layout(modes)
    return _unary(lib.axe_cute_filter, layout)


def composition(layoutA: Union[LayoutArg, Swizzle],
                layoutB: Tiler) -> Union[LayoutArg, Swizzle]:
    """A o B: R(i) = A(B(i)) for every i < size(B), R's shape compatible
    with B's; a tuple B composes by mode (``None`` keeps a mode). Raises
    NOT_COMPOSABLE with the violated condition when no layout equals it."""
    r = _f_compose(layoutA, layoutB)
    if r is not NotImplemented:
        return r
    _need_layout(layoutA, "layoutA", "composition",
                 (Layout, ComposedLayout, Swizzle))
    if layoutB is None:
        return layoutA
    if isinstance(layoutA, Swizzle):
        return ComposedLayout(layoutA, 0, _as_layout(layoutB))
    if isinstance(layoutA, ComposedLayout):
        return layoutA._with(composition(layoutA.layoutA, layoutB))
    if isinstance(layoutB, ComposedLayout):
        if not isinstance(layoutB.layoutB, Layout):
            raise AxeError("UNSUPPORTED", "a layout composed with a "
                           "swizzled layout has no representation")
        inner = _t.cast(Layout, composition(layoutA, layoutB.layoutB))
        return ComposedLayout(inner, layoutB.offset, layoutB.layoutA)
    out = _new(Layout)
    if type(layoutB) is Layout and type(layoutA) is Layout:
        if _compose(layoutA if layoutA._packed else layoutA.c,
                    layoutB if layoutB._packed else layoutB.c, out, None):
            call(_compose, layoutA, layoutB, out)
    elif isinstance(layoutB, tuple):
        call_fast(lib.axe_cute_compose_tiler, layoutA.c,
                  _tiler(layoutB), out)
    else:
        call_fast(lib.axe_cute_compose, layoutA.c, _as_layout(layoutB).c,
                  out)
    return out


_TILERS: Dict[int, Any] = {}


def _tiler(t):
    """The packed tiler of tuple "t", cached per tuple object while its
    layouts are unchanged (a setter bumps a layout's _gen)."""
    hit = _TILERS.get(id(t))
    if hit is not None and hit[0] is t and hit[1] == _gens(t):
        return hit[2]

    def elem(e):
        if isinstance(e, tuple):
            return tuple(elem(x) for x in e)
        return None if e is None else _as_layout(e, composed=False).c
    packed = encode_tiler(tuple(elem(e) for e in t))
    if len(_TILERS) >= 256:
        _TILERS.clear()
    _TILERS[id(t)] = (t, _gens(t), packed)
    return packed


def _gens(t):
    return tuple(_gens(e) if isinstance(e, tuple) else
                 (id(e), getattr(e, "_gen", 0)) for e in t)


def complement(layout: Union[Layout, IntTuple],
               max_idx: IntTuple = 1, extended: bool = False) -> Layout:
    """R strictly increasing with (layout, R) injective, R's values outside
    layout's image, filling layout's gaps up to max_idx rounded up to a
    multiple of the extent of layout's largest-stride mode (CuTe's
    complement); it covers that range only when each stride, in increasing
    order, is a multiple of size x stride of the mode before it. A shape
    "max_idx" means its size; for a scaled-basis layout only a rank-1
    shape is accepted (UNSUPPORTED otherwise, as the CLI and CuTe IR).
    With "extended" (the CuTe paper's Eqs. 28-29) R keeps its last mode
    even at extent 1, so it continues past its size on CuTe's extended
    domain: ``complement(Layout((4, 8), (1, 4)), 32, extended=True)`` is
    ``1:32``."""
    if type(max_idx) is int and max_idx < 1:
        raise AxeError("DOMAIN", f"complement: max_idx must be positive, "
                       f"not {max_idx}")
    if not isinstance(extended, bool):
        raise TypeError("complement: extended must be True or False, not "
                        f"{type(extended).__name__}")
    if extended:
        return _complement_extended(layout, max_idx)
    r = _f_complement(layout, max_idx)
    if r is not NotImplemented:
        return r
    out = _new(Layout)
    if type(layout) is Layout and type(max_idx) is int:
        max_idx = i64(max_idx, "max_idx")  # ctypes would truncate
        if _complement(layout if layout._packed else layout.c, max_idx, out,
                       None):
            call(_complement, layout, max_idx, out)
        return out
    if isinstance(max_idx, tuple):
        lay = _as_layout(layout, "layout", False)
        if len(max_idx) > 1 and lib.axe_cute_has_basis(lay.c):
            raise AxeError("UNSUPPORTED", "a cotarget shape per coordinate "
                           "of a scaled-basis layout is not supported; give "
                           "an integer")
        call(lib.axe_cute_complement_shape, lay.c, encode_tuple(max_idx), out)
        return out
    call_fast(_complement, _as_layout(layout, "layout", False).c,
              i64(max_idx, "max_idx"), out)
    return out


def _complement_extended(layout, max_idx):
    lay = _as_layout(layout, "layout", False)
    if isinstance(max_idx, tuple):
        if len(max_idx) > 1 and lib.axe_cute_has_basis(lay.c):
            raise AxeError("UNSUPPORTED", "a cotarget shape per coordinate "
                           "of a scaled-basis layout is not supported; give "
                           "an integer")
        for e in flatten(max_idx):  # type: ignore[union-attr]
            if i64(e, "max_idx extent") < 1:
                raise AxeError("DOMAIN", "complement: the cotarget's "
                               f"extents must be positive, not {e}")
        max_idx = size(max_idx)
    out = _new(Layout)
    call(lib.axe_cute_complement_extended, lay.c, i64(max_idx, "max_idx"),
         out)
    return out


def right_inverse(layout: Optional[Layout]) -> Optional[Layout]:
    """R with layout(R(k)) == k for every k < size(R), R as large as the
    contiguous part of the image starting at 0 allows."""
    r = _f_right_inverse(layout)
    if r is not NotImplemented:
        return r
    if layout is None:
        return None
    out = _new(Layout)
    if type(layout) is Layout:
        if _right_inverse(layout if layout._packed else layout.c, out, None):
            call(_right_inverse, layout, out)
        return out
    call_fast(_right_inverse, _as_layout(layout, "layout", False).c,
              out)
    return out


def left_inverse(layout: Optional[Layout]) -> Optional[Layout]:
    """R with R(layout(k)) == k for every k < size(layout) (layout
    injective; the image need not be contiguous)."""
    r = _f_left_inverse(layout)
    if r is not NotImplemented:
        return r
    if layout is None:
        return None
    out = _new(Layout)
    call_fast(lib.axe_cute_left_inverse,
              _as_layout(layout, "layout", False).c, out)
    return out


def nullspace(layout: Layout) -> Layout:
    """A layout K onto the indices k with layout(k) == 0."""
    _need_layout(layout, "layout", "nullspace")
    out = _new(Layout)
    call_fast(lib.axe_cute_nullspace, layout.c, out)
    return out


def _divide(kind, a, b):
    r = _f_divide(_DIV[kind], a, b)
    if r is not NotImplemented:
        return r
    _need_layout(a, "layoutA", f"{kind}_divide", (Layout, ComposedLayout))
    if b is None:
        return a
    if isinstance(a, ComposedLayout):
        return a._with(_divide(kind, a.layoutA, b))
    out = _new(Layout)
    if isinstance(b, tuple):
        call_fast(lib.axe_cute_divide, _DIV[kind], a.c, _tiler(b), out)
    else:
        call_fast(lib.axe_cute_divide_layout, _DIV[kind], a.c,
                  _as_layout(b, composed=False).c, out)
    return out


def logical_divide(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """A o (B, complement(B, size(A))): the tiles B of A and their layout;
    by mode for a tuple B."""
    return _divide("logical", layoutA, layoutB)


def zipped_divide(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_divide with the modes gathered as ((tiles), (rest))."""
    return _divide("zipped", layoutA, layoutB)


def tiled_divide(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_divide with the modes gathered as ((tiles), rest...)."""
    return _divide("tiled", layoutA, layoutB)


def flat_divide(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_divide with the modes gathered as (tiles..., rest...)."""
    return _divide("flat", layoutA, layoutB)


def _product(kind, a, b):
    r = _f_product(_PROD[kind], a, b)
    if r is not NotImplemented:
        return r
    _need_layout(a, "layoutA", f"{kind}_product", (Layout, ComposedLayout))
    if b is None:
        return a
    if isinstance(a, ComposedLayout):
        return a._with(_product(kind, a.layoutA, b))
    if isinstance(b, tuple) and kind == "logical":
        _need_modes(a, b, f"{kind}_product")
        modes = [_product(kind, a[i], b[i]) for i in range(len(b))]
        return make_layout(modes + [a[i] for i in range(len(b), len(a))])
    if isinstance(b, tuple) and kind in ("zipped", "tiled"):
        return _unzip_product(kind, a, b)
    out = _new(Layout)
    call_fast(lib.axe_cute_product, _PROD[kind], a.c,
              _as_layout(b, composed=False).c, out)
    return out


def _unzip_product(kind, a, b):
    """pycute's zipped_product (hier_unzip of logical_product, by mode at
    every level of a nested tiler) and tiled_product (its second mode
    unpacked)."""
    z = hier_unzip(logical_product, a, b)
    if kind == "zipped":
        return z
    return make_layout([z[0]] + [z[1][i] for i in range(len(z[1]))])


def logical_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """(A, complement(A, size(A) * cosize(B)) o B): A repeated in the
    pattern of B; by mode for a tuple B."""
    return _product("logical", layoutA, layoutB)


def zipped_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_product gathered as ((A), (B's repetitions))."""
    return _product("zipped", layoutA, layoutB)


def tiled_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_product gathered as ((A), repetitions...)."""
    return _product("tiled", layoutA, layoutB)


def flat_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """logical_product gathered as (A's modes..., repetitions...)."""
    return _product("flat", layoutA, layoutB)


def blocked_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """Mode i of the result is (A_i, B_i repeated): A's tile blocked in
    B's pattern (CuTe's blocked_product)."""
    return _product("blocked", layoutA, layoutB)


def raked_product(layoutA: LayoutArg, layoutB: Tiler) -> LayoutArg:
    """Mode i of the result is (B_i repeated, A_i): A's elements raked
    across B's pattern (CuTe's raked_product)."""
    return _product("raked", layoutA, layoutB)


@_nesting_guard
def slice_(crd: Coord, trg: Union[LayoutArg, IntTuple]) -> Any:
    """The modes of "trg" where coordinate "crd" is ``None``: for a layout
    L(crd filled with x) == offset + slice_(crd, L)(x); for an int tuple the
    entries at the ``None`` positions (pycute's slice_)."""
    if isinstance(trg, ComposedLayout):
        return trg._slice(crd)
    if not isinstance(trg, Layout):
        tup = Tuple()
        call(lib.axe_tuple_slice, encode_tuple(trg, True),
             encode_tuple(crd, True), tup)
        return decode_tuple(tup)
    out = _new(Layout)
    call(lib.axe_cute_slice, trg.c, encode_tuple(crd, True), out, None)
    return out


@_nesting_guard
def slice_and_offset(crd: Coord,
                     layout: LayoutArg) -> _t.Tuple[LayoutArg, Any]:
    """(slice_(crd, layout), layout(crd with None as 0))."""
    zero = _fill_none(crd)
    return slice_(crd, layout), layout(zero)


def _fill_none(t):
    if isinstance(t, tuple):
        return tuple(_fill_none(e) for e in t)
    return 0 if t is None else t


@_nesting_guard
def crd2idx(crd: IntTuple, shape: IntTuple,
            stride: Optional[StrideTuple] = None) -> Any:
    """The value of coordinate "crd" in ``shape:stride`` (stride: compact
    column-major by default)."""
    return Layout(shape, stride)(crd)


@_nesting_guard
def idx2crd(idx: IntTuple, shape: IntTuple,
            stride: Optional[IntTuple] = None) -> IntTuple:
    """The colexicographic coordinate of index "idx" in "shape" (the last
    mode absorbing an index >= size(shape), as in CuTe's paper); with a
    "stride", pycute's (idx // d) % s per leaf. A tuple "idx" is taken by
    mode."""
    if stride is not None or isinstance(idx, tuple):
        return _idx2crd_strided(idx, shape, prefix_product(shape)
                                if stride is None else stride,
                                stride is not None)
    t = encode_tuple(shape)
    out = Tuple()
    check(lib.axe_tuple_idx2crd(i64(idx, "index"), t, out),
          "the index is negative")
    return decode_tuple(out)


def _idx2crd_strided(idx, shape, stride, wrap):
    if isinstance(idx, tuple):
        if not isinstance(shape, tuple):
            raise AxeError("INCOMPATIBLE", f"idx2crd: index {idx!r} is a "
                           f"tuple and shape {shape!r} is not")
        _ranks(idx, shape, "idx2crd")
        _ranks(shape, stride, "idx2crd")
        if not wrap:
            return tuple(idx2crd(i, s) for i, s in zip(idx, shape))
        return tuple(_idx2crd_strided(i, s, d, wrap)
                     for i, s, d in zip(idx, shape, stride))
    if isinstance(shape, tuple):
        if not isinstance(stride, tuple):
            raise AxeError("INCOMPATIBLE", f"idx2crd: stride {stride!r} is "
                           f"not congruent to shape {shape!r}")
        _ranks(shape, stride, "idx2crd")
        return tuple(_idx2crd_strided(idx, s, d, wrap)
                     for s, d in zip(shape, stride))
    if idx < 0 or not isinstance(stride, int) or stride < 1:
        raise AxeError("DOMAIN", f"idx2crd: index {idx} or stride "
                       f"{stride!r} is not a nonnegative index over a "
                       "positive stride")
    return (idx // stride) % shape


def hier_unzip(splitter: _t.Callable[[Any, Any], Layout], layoutA: Layout,
               layoutB: Tiler) -> Layout:
    """"splitter" (logical_divide or logical_product) applied by mode and
    gathered as ((tiles...), (rest...)) (pycute's hier_unzip; None keeps a
    mode as (1:0, A_i))."""
    if layoutB is None:
        return make_layout(Layout(1, 0), layoutA)
    if isinstance(layoutB, tuple):
        _need_modes(layoutA, layoutB, "hier_unzip")
        split = [hier_unzip(splitter, layoutA[i], layoutB[i])
                 for i in range(len(layoutB))]
        rest = [x[1] for x in split] + [layoutA[i] for i in
                                        range(len(layoutB), len(layoutA))]
        return make_layout(make_layout([x[0] for x in split]),
                           make_layout(rest))
    return splitter(layoutA, layoutB)


class Swizzle:
    """Sw<B,M,S>: y = x ^ ((x & yyy) >> S), the B bits at M + max(0,S)
    xored into the B bits at M - min(0,S) (pycute's Swizzle(bits, base,
    shift)); an involution."""

    __slots__ = ("bits", "base", "shift", "_c")

    def __init__(self, bits: int, base: int, shift: int) -> None:
        self._c = _CSwizzle()
        call(lib.axe_swizzle_make, i32(bits, "bits"), i32(base, "base"),
             i32(shift, "shift"), self._c)
        self.bits, self.base, self.shift = bits, base, shift

    def __call__(self, offset: int) -> int:
        return lib.axe_swizzle_apply(self._c, i64(offset, "offset"))

    def size(self) -> int:
        """2^(bits + base + |shift|): the offsets the swizzle permutes."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def cosize(self) -> int:
        """Equal to size(): a swizzle is a bijection of [0, size)."""
        return self.size()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Swizzle) and
                (self.bits, self.base, self.shift) ==
                (other.bits, other.base, other.shift))

    def __hash__(self) -> int:
        return hash((self.bits, self.base, self.shift))

    def notation(self) -> str:
        """The canonical axe text (``Sw<3,4,3>``)."""
        return _print(lib.axe_print_swizzle, self._c)

    def __str__(self) -> str:
        return f"SW_{self.bits}_{self.base}_{self.shift}"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits},{self.base},{self.shift})"


class ComposedLayout(LayoutBase):
    """i -> layoutB(offset + layoutA(i)): ``layoutB`` a Swizzle or Layout,
    ``offset`` an int (or a coordinate of layoutB's domain); the algebra
    acts on layoutA (pycute's ComposedLayout(layoutB, offset, layoutA))."""

    __slots__ = ("layoutB", "offset", "layoutA")

    def __init__(self, layoutB: Union[Layout, Swizzle], offset: StrideTuple,
                 layoutA: Layout) -> None:
        _need_layout(layoutB, "layoutB", "ComposedLayout", (Layout, Swizzle))
        _need_layout(layoutA, "layoutA", "ComposedLayout")
        self.layoutB, self.offset, self.layoutA = layoutB, offset, layoutA
        self.c  # validates

    @property
    def c(self) -> CuteComposed:
        """The packed C value; AxeError unless B o offset o A is a
        well-formed composed layout."""
        c = CuteComposed()
        if isinstance(self.layoutB, Swizzle):
            c.kind = OUTER_SWIZZLE
            c.swizzle = self.layoutB._c
        else:
            c.kind = OUTER_LAYOUT
            c.outer = self.layoutB.c
        encode_tuple(self.offset, out=c.offset)
        out = CuteComposed()
        check(lib.axe_cute_composed_with_inner(c, self.layoutA.c, out),
              "not a well-formed composed layout: a swizzle needs an "
              "integer offset and integer inner strides, a layout outer an "
              "offset and inner strides that index its shape")
        return out

    def _with(self, inner):
        return ComposedLayout(self.layoutB, self.offset, inner)

    def _slice(self, crd):
        out = CuteComposed()
        call(lib.axe_cute_composed_slice, self.c, encode_tuple(crd, True),
             out)
        return _composed_of(out)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ComposedLayout) and
                self.layoutB == other.layoutB and
                self.offset == other.offset and self.layoutA == other.layoutA)

    def __len__(self) -> int:
        return len(self.layoutA)

    def __call__(self, *args: Any) -> Any:
        crd = args[0] if len(args) == 1 else args
        if _has_none(crd):
            return self._slice(crd)
        if not isinstance(crd, int):
            crd = Layout(self.layoutA.shape)(crd)
        pt = CutePoint()
        check(lib.axe_cute_composed_eval_point(self.c, i64(crd, "index"),
                                               pt),
              "index outside the layout or the value overflows")
        return _point_value(pt)

    def __getitem__(self, i: int) -> ComposedLayout:
        return ComposedLayout(self.layoutB, self.offset, self.layoutA[i])

    def size(self) -> int:
        """The size of the domain: size(layoutA)."""
        return size(self.layoutA)

    def cosize(self) -> int:
        """cosize(layoutA), as in CuTe: the extent of B's domain that the
        composition reaches (not the extent of its values)."""
        out = c_int64()
        check(lib.axe_cute_composed_cosize(self.c, out), "cosize overflows")
        return out.value

    def notation(self) -> str:
        """The canonical axe text (``Sw<3,4,3> o 0 o (8,64):(64,1)``)."""
        return _print(lib.axe_print_cute_composed, self.c)

    def __str__(self) -> str:
        return f"{self.layoutB} o {self.offset} o {self.layoutA}"

    def __repr__(self) -> str:
        return (f"ComposedLayout({self.layoutB!r},{self.offset!r},"
                f"{self.layoutA!r})")


def _composed_of(c):
    if c.kind == OUTER_SWIZZLE:
        sw = c.swizzle
        outer = Swizzle(sw.bits, sw.base, sw.shift)
    else:
        outer = _layout_of(c.outer)
    return ComposedLayout(outer, decode_tuple(c.offset),
                          _layout_of(c.inner))


def recast_layout(layout: LayoutArg, old_bits: int,
                  new_bits: int) -> LayoutArg:
    """The layout in units of "new_bits" of a layout in units of
    "old_bits" (CuTe's recast_layout)."""
    old_bits, new_bits = i64(old_bits, "old_bits"), i64(new_bits, "new_bits")
    _need_layout(layout, "layout", "recast_layout", (Layout, ComposedLayout))
    if isinstance(layout, ComposedLayout):
        comp = CuteComposed()
        call(lib.axe_cute_composed_recast, layout.c, old_bits, new_bits, comp)
        return _composed_of(comp)
    out = _new(Layout)
    call(lib.axe_cute_recast, layout.c, old_bits, new_bits, out)
    return out



def coalesce_x(layout: Layout) -> Layout:
    """coalesce that keeps the function on every index >= 0, also past
    size(layout) where evaluation continues along the last mode (CuTe's
    detail::coalesce_x; how composition reads its left operand)."""
    if isinstance(layout, ComposedLayout):
        return layout._with(coalesce_x(layout.layoutA))
    return _unary(lib.axe_cute_coalesce_extended, layout)


def get(layout: Union[LayoutArg, IntTuple], *path: int) -> Any:
    """CuTe's get<path...>: the mode at "path" (no negative indices; an
    index past a leaf is DOMAIN)."""
    if isinstance(layout, ComposedLayout):
        return layout._with(get(layout.layoutA, *path))
    arr, _ = i32_array(path, "mode index")
    out = _new(Layout)
    check(lib.axe_cute_get_path(_as_layout(layout).c, arr, len(path), out),
          f"mode path {list(path)} is outside the layout's profile")
    return out


def dice(crd: Coord, trg: Union[LayoutArg, IntTuple]) -> Any:
    """The modes of "trg" where coordinate "crd" is fixed (not ``None``):
    CuTe's dice, the complement of slice_."""
    if isinstance(trg, ComposedLayout):
        return trg._with(dice(crd, trg.layoutA))
    if isinstance(trg, Layout):
        out = _new(Layout)
        call(lib.axe_cute_dice, trg.c, encode_tuple(crd, True), out)
        return out
    tup = Tuple()
    call(lib.axe_tuple_dice, encode_tuple(trg, True), encode_tuple(crd, True),
         tup)
    return decode_tuple(tup)


def tile_to_shape(layout: LayoutArg, shape: IntTuple,
                  order: Optional[IntTuple] = None) -> LayoutArg:
    """"layout" replicated to cover "shape" (rounded up per mode), the
    repetitions in mode "order" (column-major by default)."""
    if isinstance(layout, ComposedLayout):
        return layout._with(tile_to_shape(layout.layoutA, shape, order))
    out = _new(Layout)
    call(lib.axe_cute_tile_to_shape, _as_layout(layout).c,
         encode_tuple(shape), None if order is None else encode_tuple(order),
         out)
    return out


class Integer(ABC):
    """pycute's typing ABC of integer-likes: ``isinstance(x, Integer)`` is
    true for int and its subclasses other than bool (and never for
    float), as ``pycute.typing.Integer``."""

    @classmethod
    def __subclasshook__(cls, c: type) -> bool:
        if c in [bool, float]:
            return False
        return issubclass(c, int)


_INT_TUPLE = ["Integer", "Union", "chain", "crd2crd", "crd2idx",
              "elem_scale", "flatten", "has_none", "idx2crd",
              "inner_product", "is_int", "is_tuple", "prefix_product",
              "product", "reduce", "shape_div", "signum", "slice_",
              "tuple_max"]
_LAYOUT = _INT_TUPLE + [
    "Layout", "LayoutBase", "coalesce", "complement", "composition",
    "cosize", "filter", "hier_unzip", "is_layout", "left_inverse",
    "logical_divide", "logical_product", "make_layout", "right_inverse",
    "size", "slice_and_offset", "tiled_divide", "tiled_product",
    "zipped_divide", "zipped_product"]


def _submodule(name: str, names: _t.List[str]) -> _types.ModuleType:
    """pycute's submodule "name" (``pycute.layout`` ...) as
    ``axe.cute.<name>``, holding this module's "names"; importable
    (``from axe.cute.layout import Layout``)."""
    mod = _types.ModuleType(f"{__name__}.{name}",
                            f"pycute.{name}'s names, from axe.cute.")
    for n in names:
        setattr(mod, n, globals()[n])
    _sys.modules[mod.__name__] = mod
    return mod


int_tuple = _submodule("int_tuple", _INT_TUPLE)
layout = _submodule("layout", _LAYOUT)
swizzle = _submodule("swizzle", _LAYOUT + ["ComposedLayout", "Swizzle",
                                           "shiftl", "shiftr"])
typing = _submodule("typing", ["ABC", "Integer"])
