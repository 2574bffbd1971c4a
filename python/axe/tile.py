# SPDX-License-Identifier: Apache-2.0
"""Axe layouts over named hardware axes (the Axe paper; TIRx's TileLayout).

A layout maps a logical index x to the set L(x) = { D(x) + r + O : r in R }
of points over named axes: D the shard (iters (extent, stride, axis), the
first outermost, x unflattened lexicographically), R the replica, O the
offset. Write them as in the paper::

    from axe import S, R, laneid, warpid
    L = S[(8, 2, 4, 2):(4 @ laneid, 1 @ warpid, 1 @ laneid, 1)] \\
        + R[2:4 @ warpid] + 5 @ warpid

or parse the text with ``axe.layout("S[...] + R[...] + 5@warpid")``.
``apply``/``apply_base`` give TIRx's base point D(x) + O, ``apply_set``
the paper's whole set. Invariant: a TileLayout is an immutable wrapper of
libaxe's packed value; every method returns a new object.
"""

from __future__ import annotations

import operator
from ctypes import POINTER, pointer, c_bool, c_int, c_int64, cast, c_void_p
from ctypes import create_string_buffer
from typing import (TYPE_CHECKING, Any, Dict, Iterable, List, Mapping,
                    Optional, Sequence, Tuple, Union)

from ._lib import (LAYOUT_MAX_DIMS, AxeError, AxeLayout, AxisInfo, Point,
                   call, i32, i32_array, i64, i64_array, index_like, lib,
                   name_bytes, status_name)
from .render import Renderable

if TYPE_CHECKING:
    from .cute import ComposedLayout, Layout
    from .linear import LinearLayout

__all__ = ["Axis", "R", "S", "Stride", "TileLayout", "axis_info"]

_TARGETS = {None: 0, "none": 0, "cuda": 1}


def _target(target):
    """The library's code of fusion target "target" (AxeError INVALID for
    an unknown one)."""
    if not isinstance(target, (str, type(None))) or target not in _TARGETS:
        raise AxeError("INVALID", f"unknown target {target!r}; one of "
                       "None, 'none', 'cuda'")
    return _TARGETS[target]


def _tirx(tirx):
    """The library's rule for the "tirx" switch: False (the default) the
    Axe paper's definitions of span, tile and tile-of (Lemma C.1, Theorem
    C.2, Appendix D), True TIRx's where they differ (docs/algebra.md §18,
    §24, §25); a non-bool is a TypeError."""
    if not isinstance(tirx, bool):
        raise TypeError(f"tirx must be a bool, not {type(tirx).__name__}")
    return 1 if tirx else 0
_SCOPES = {-2: None, -1: "kernel", 2: "cluster", 3: "cta", 4: "warpgroup",
           5: "warp", 6: "thread"}

#: An axis: its name or an Axis object.
AxisName = Union[str, "Axis"]
#: An iter (extent, stride, axis) of a shard or replica.
Iter = Tuple[int, int, AxisName]
#: A shape or coordinate: an int or a sequence of ints (first outermost).
Shape = Union[int, Sequence[int]]


class Axis:
    """A named axis (``laneid``, ``m``, ``gpuid``, any identifier); ``4 @
    laneid`` is the stride 4 on it."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = str(name)

    def __rmatmul__(self, value: int) -> Stride:
        return Stride(value, self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Axis) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name


class Stride:
    """``value@axis``: a stride (inside S[...] / R[...]) or, added to a
    layout, an offset."""

    __slots__ = ("value", "axis")

    def __init__(self, value: int, axis: AxisName = "m") -> None:
        self.value = value
        self.axis = axis.name if isinstance(axis, Axis) else axis

    def __repr__(self) -> str:
        return f"{self.value}@{self.axis}"


def _iters(key):
    if not isinstance(key, slice) or key.step is not None:
        raise TypeError("write S[extents:strides], e.g. "
                        "S[(8,4):(4@laneid,1)]")
    ext, st = key.start, key.stop
    if not isinstance(ext, tuple):
        ext, st = (ext,), (st,)
    if not isinstance(st, tuple) or len(st) != len(ext):
        raise AxeError("INVALID", f"{len(ext)} extents but strides {st!r}")
    out = []
    for e, s in zip(ext, st):
        s = s if isinstance(s, Stride) else Stride(s)
        out.append((e, s.value, s.axis))
    return out


class _Maker:
    def __init__(self, replica: bool) -> None:
        self.replica = replica

    def __getitem__(self, key: slice) -> TileLayout:
        its = _iters(key)
        if self.replica:
            return TileLayout(shard=None, replica=its)
        return TileLayout(shard=its)


S = _Maker(False)
R = _Maker(True)


def _axis_arg(axis):
    if axis is None:
        return None
    return name_bytes(axis.name if isinstance(axis, Axis) else axis)


def _shape(values, what="shape"):
    if isinstance(values, int):
        values = (values,)
    arr, n = i64_array(values, what)
    if n > LAYOUT_MAX_DIMS:
        raise AxeError("CAPACITY", f"{what} has more than {LAYOUT_MAX_DIMS} "
                       "dims")
    return arr, n


def _nonnegative(coord):
    """AxeError DOMAIN if the index or a digit of "coord" is negative (as
    CuTe layouts reject a negative index)."""
    flat = coord[0] if len(coord) == 1 and not isinstance(
        coord[0], int) else coord
    for v in flat if isinstance(flat, (tuple, list)) else (flat,):
        if index_like(v) and operator.index(v) < 0:
            raise AxeError("DOMAIN", f"apply: coordinate {v} is negative")


def _decode_point(p):
    return {bytes(p.axis[i]).rstrip(b"\0").decode(): p.v[i]
            for i in range(p.n)}


def _name(raw):
    return bytes(raw).rstrip(b"\0").decode()


def _wrap(c):
    lay = TileLayout.__new__(TileLayout)
    lay._c = c
    return lay


def _wrap_found(c, found):
    return _wrap(c) if found.value else None


class TileLayout(Renderable):
    """An Axe layout: shard D, replica R, offset O and an optional TIRx
    swizzle. ``TileLayout(shard=[(extent, stride, axis), ...],
    replica=[...], offset={axis: value})``; axis names are strings or
    Axis objects."""

    __slots__ = ("_c",)

    def __init__(self, shard: Optional[Iterable[Iter]] = (),
                 replica: Optional[Iterable[Iter]] = (),
                 offset: Optional[Mapping[AxisName, int]] = None) -> None:
        self._c = c = AxeLayout()
        lib.axe_layout_init(c)
        for e, s, a in shard or ():
            self._push(lib.axe_layout_push_shard, e, s, a)
        for e, s, a in replica or ():
            self._push(lib.axe_layout_push_replica, e, s, a)
        for a, v in (offset or {}).items():
            st = lib.axe_layout_add_offset(c, _axis_arg(a), i64(v, "offset"))
            if st:
                raise AxeError("INVALID", f"cannot add offset {v}@{a}: bad "
                               "axis name or too many offsets")

    def _push(self, fn, e, s, a):
        a = a.name if isinstance(a, Axis) else a
        if fn(self._c, i64(e, "extent"), i64(s, "stride"), name_bytes(a)):
            raise AxeError("INVALID", f"cannot add iter ({e}, {s}@{a}): "
                           "bad axis name or too many iters")

    # ---- structure --------------------------------------------------------

    @property
    def shard(self) -> List[Tuple[int, int, str]]:
        """The shard iters [(extent, stride, axis), ...], outermost
        first."""
        c = self._c
        return [(i.extent, i.stride, _name(i.axis))
                for i in c.shard[:c.nshard]]

    @property
    def replica(self) -> List[Tuple[int, int, str]]:
        """The replica iters [(extent, stride, axis), ...]."""
        c = self._c
        return [(i.extent, i.stride, _name(i.axis))
                for i in c.replica[:c.nreplica]]

    @property
    def offset(self) -> Dict[str, int]:
        """The offset {axis: value}."""
        c = self._c
        return {_name(o.axis): o.value for o in c.offset[:c.noffset]}

    @property
    def swizzle(self) -> Optional[Tuple[int, int, int, bool]]:
        """None, or (per_element M, len B, atom S, inner) of TIRx's
        ComposeLayout."""
        sw = self._c.swizzle
        if not sw.present:
            return None
        return (sw.per_element, sw.len, sw.atom, bool(sw.inner))

    def with_swizzle(self, per_element: int, swizzle_len: int, atom_len: int,
                     swizzle_inner: bool = True) -> TileLayout:
        """TIRx's ComposeLayout(per_element, swizzle_len, atom_len, self,
        swizzle_inner): addr(m) = (f(m >> M) << M) + m mod 2^M; AxeError
        unless M >= 0, B >= 0, S >= B (TIRx's well-formedness)."""
        if per_element < 0 or swizzle_len < 0 or atom_len < swizzle_len:
            raise AxeError("INVALID", "The compose layout is not "
                           "well-formed: needs M >= 0, B >= 0, S >= B")
        c = AxeLayout()
        pointer(c)[0] = self._c
        sw = c.swizzle
        sw.present, sw.inner = True, bool(swizzle_inner)
        sw.per_element, sw.len, sw.atom = per_element, swizzle_len, atom_len
        return _wrap(c)

    def __add__(self, other: Union[TileLayout, Stride, int]) -> TileLayout:
        c = AxeLayout()
        pointer(c)[0] = self._c
        out = _wrap(c)
        if isinstance(other, TileLayout):
            if other._c.nshard:
                raise AxeError("INVALID", "only a replica R[...] or an "
                               "offset can be added to a layout")
            for e, s, a in other.replica:
                out._push(lib.axe_layout_push_replica, e, s, a)
            for a, v in other.offset.items():
                out._offset(a, v)
        elif isinstance(other, Stride):
            out._offset(other.axis, other.value)
        elif isinstance(other, int):
            out._offset("m", other)
        else:
            return NotImplemented
        return out

    def _offset(self, a, v):
        if lib.axe_layout_add_offset(self._c, name_bytes(a),
                                     i64(v, "offset")):
            raise AxeError("INVALID", f"cannot add offset {v}@{a}")

    # ---- text -------------------------------------------------------------

    def __str__(self) -> str:
        buf = create_string_buffer(512)
        n = lib.axe_print_layout(self._c, buf, 512)
        if n >= 512:
            buf = create_string_buffer(n + 1)
            lib.axe_print_layout(self._c, buf, n + 1)
        return buf.value.decode()

    def __repr__(self) -> str:
        return f"axe.layout({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        """Structural equality: shard in order, replicas as a multiset,
        offsets ignoring zeros, swizzle parameters."""
        return (isinstance(other, TileLayout) and
                bool(lib.axe_layout_equal(self._c, other._c)))

    def __hash__(self) -> int:
        return hash(str(self.canonicalize()))

    # ---- queries ----------------------------------------------------------

    def size(self, axis: Optional[AxisName] = None) -> int:
        """The product of the shard extents (on "axis" only if given)."""
        out = c_int64()
        st = lib.axe_layout_size(self._c, _axis_arg(axis), out)
        if st:
            self._quantity_fail(st, "size", axis)
        return out.value

    def span(self, axis: Optional[AxisName] = None, tirx: bool = False) -> int:
        """The paper's span (Lemma C.1): 1 + sum (e-1)|s| over the shard
        and replica iters on "axis", offset excluded; without an axis over
        all memory axes together. tirx=True: TIRx's, 1 + sum (e-1)s + the
        offset."""
        rule = _tirx(tirx)
        out = c_int64()
        st = lib.axe_layout_span_rule(self._c, _axis_arg(axis), rule, out)
        if st:
            self._quantity_fail(st, "span", axis)
        return out.value

    def _quantity_fail(self, st: int, what: str,
                       axis: Optional[AxisName]) -> None:
        """Raise the AxeError of status "st" of size() or span() (the
        library gives those no reason; the CLI's words)."""
        name = status_name(st)
        on = f" on axis {axis!r}" if axis is not None else ""
        if name == "OVERFLOW":
            raise AxeError(name, f"the {what}{on} of the layout overflows "
                           f"int64 (largest {(1 << 63) - 1})")
        if self._c.swizzle.present:
            raise AxeError(name, f"the {what}{on} of a swizzled layout is "
                           "not defined (the swizzle mixes the bits of the "
                           "whole offset); ask without an axis")
        raise AxeError(name, f"{axis!r} is not an axis name: 1 to 15 bytes "
                       "of [A-Za-z0-9_]")

    def get_scope(self) -> Optional[Tuple[Optional[str], Optional[str]]]:
        """(innermost subscope, outermost scope) of the thread axes of the
        shard, or None; raises with TIRx's reason when ill-formed."""
        has, sub, sc = c_bool(), c_int(), c_int()
        call(lib.axe_layout_get_scope, self._c, has, sub, sc)
        return (_SCOPES[sub.value], _SCOPES[sc.value]) if has.value else None

    def verify_well_formed(self) -> bool:
        """True, or raises AxeError with the reason it is ill-formed."""
        call(lib.axe_layout_verify_well_formed, self._c)
        return True

    # ---- the forward and backward maps ------------------------------------

    def apply(self, *coord: int,
              shape: Optional[Shape] = None) -> Dict[str, int]:
        """TIRx's apply (kept for TIRx compatibility; also ``apply_base``):
        the base point D(x) + O as {axis: value}, replicas ignored. The
        paper's whole set {D(x) + r + O : r in R} is ``apply_set``. One int
        is a linear index; several ints are one digit per shard iter; with
        "shape" the coordinate in that shape."""
        out = Point()
        if len(coord) == 1 and index_like(coord[0]):
            coord = (operator.index(coord[0]),)
        _nonnegative(coord)
        if shape is not None:
            crd, n = _shape(coord if len(coord) != 1 or isinstance(
                coord[0], int) else coord[0], "coordinate")
            shp, m = _shape(shape)
            if n != m:
                raise AxeError("INVALID", "The size of coord and shape "
                               "should be equal")
            call(lib.axe_layout_apply_shape, self._c, crd, shp, n, out)
        elif len(coord) == 1 and isinstance(coord[0], int):
            call(lib.axe_layout_apply_base, self._c, i64(coord[0], "index"),
                 out)
        else:
            digits = coord[0] if len(coord) == 1 else coord
            arr, n = i64_array(digits, "digit")
            call(lib.axe_layout_apply_digits, self._c, arr, n, out)
        return _decode_point(out)

    apply_base = apply

    def apply_set(self, coord: Shape, shape: Optional[Shape] = None,
                  cap: int = 4096) -> List[Dict[str, int]]:
        """The paper's set L(x) = { D(x) + r + O : r in R } as a list of
        {axis: value}, replicas in lexicographic order; "coord" a linear
        index, or a coordinate in "shape"."""
        if index_like(coord):
            coord = (operator.index(coord),)  # type: ignore[arg-type]
        _nonnegative(coord)
        crd, n = _shape(coord, "coordinate")
        shp = None
        if shape is not None:
            shp, m = _shape(shape)
            if m != n:
                raise AxeError("INVALID", "The size of coord and shape "
                               "should be equal")
        pts = (Point * cap)()
        count = c_int()
        call(lib.axe_layout_apply_set, self._c, crd, shp, n, pts, cap, count)
        return [_decode_point(pts[i]) for i in range(count.value)]

    def apply_to_shape(self, coord: Shape, shape: Shape) -> List[int]:
        """The per-shard-iter digits of "coord" in "shape"."""
        crd, n = _shape(coord, "coordinate")
        shp, m = _shape(shape)
        if n != m:
            raise AxeError("INVALID", "The size of coord and shape should "
                           "be equal")
        digits = (c_int64 * 32)()
        nd = c_int()
        call(lib.axe_layout_digits_of, self._c, crd, shp, n, digits, nd)
        return list(digits[:nd.value])

    def backward(self, point: Mapping[str, int],
                 with_replicas: bool = False) -> Optional[int]:
        """The smallest x whose base point (any point of L(x) with
        "with_replicas") is "point" ({axis: value}), or None."""
        p = Point()
        for a, v in point.items():
            if lib.axe_point_add(p, _axis_arg(a), i64(v)):
                raise AxeError("CAPACITY", "too many axes in the point")
        x, found = c_int64(), c_bool()
        call(lib.axe_layout_backward, self._c, p, with_replicas, x, found)
        return x.value if found.value else None

    # ---- the algebra ------------------------------------------------------

    def _unary(self, fn, *args):
        out = AxeLayout()
        call(fn, self._c, *args, out)
        return _wrap(out)

    def canonicalize(self, target: Optional[str] = None) -> TileLayout:
        """TIRx's canonical form: unit iters and zero offsets dropped,
        adjacent iters fused, replicas sorted (CUDA axis fusion with
        target="cuda"); same map, idempotent."""
        return self._unary(lib.axe_layout_canonicalize, _target(target))

    def normalize(self) -> TileLayout:
        """The paper's full normal form (canonicalize, then replica and
        offset normalized per axis)."""
        return self._unary(lib.axe_layout_normalize)

    def equivalent(self, other: TileLayout) -> bool:
        """True if both induce the same set-valued map on [0, size)."""
        out = c_bool()
        call(lib.axe_layout_equivalent, self._c, other._c, out)
        return out.value

    def group(self, shape: Shape) -> Tuple[TileLayout, List[int]]:
        """(grouped layout, seps): shard iters split so that dim d of
        "shape" owns the block shard[seps[d]:seps[d+1]]."""
        shp, n = _shape(shape)
        out, seps = AxeLayout(), (c_int * (n + 1))()
        call(lib.axe_layout_group, self._c, shp, n, out, seps)
        return _wrap(out), list(seps)

    def group_many(
            self, shapes: Sequence[Shape]
    ) -> Tuple[TileLayout, List[List[int]]]:
        """(layout, [seps per shape]) grouped by all "shapes" at once."""
        arrs = [_shape(s) for s in shapes]
        k = len(arrs)
        ptrs = (POINTER(c_int64) * max(1, k))(
            *[cast(a, POINTER(c_int64)) for a, _ in arrs])
        ns = (c_int * max(1, k))(*[n for _, n in arrs])
        seps = ((c_int * (LAYOUT_MAX_DIMS + 1)) * max(1, k))()
        out = AxeLayout()
        call(lib.axe_layout_group_many, self._c, ptrs, ns, k, out,
             cast(seps, c_void_p))
        return _wrap(out), [list(seps[i][:arrs[i][1] + 1]) for i in range(k)]

    def tile(self, outer: TileLayout, outer_shape: Shape, inner_shape: Shape,
             target: Optional[str] = None, tirx: bool = False) -> TileLayout:
        """outer ⊗ self (the paper's Theorem C.2; TIRx ``inner.tile(outer,
        outer_shape, inner_shape)`` with tirx=True): f(x||y) =
        f_outer(x) ⊙ span(self) + self(y), the outer's shard, replica and
        offset scaled (TIRx: its shard on the axes of self's shard)."""
        rule = _tirx(tirx)
        os_, n = _shape(outer_shape)
        is_, m = _shape(inner_shape)
        _same_rank(n, m, "Outer and inner shape size must match")
        out = AxeLayout()
        call(lib.axe_layout_tile_rule, outer._c, os_, self._c, is_, n,
             _target(target), rule, out)
        return _wrap(out)

    def is_tile_inner(self, tiled: TileLayout, tiled_shape: Shape,
                      inner_shape: Shape,
                      target: Optional[str] = None,
                      tirx: bool = False) -> Optional[TileLayout]:
        """C with tiled == C ⊗ self, or None (tile's rule, see tile)."""
        rule = _tirx(tirx)
        ts, n = _shape(tiled_shape)
        is_, m = _shape(inner_shape)
        _same_rank(n, m, "Tiled shape size must match inner shape size")
        out, found = AxeLayout(), c_bool()
        call(lib.axe_layout_is_tile_inner_rule, self._c, tiled._c, ts, is_, n,
             _target(target), rule, out, found)
        return _wrap_found(out, found)

    def is_tile_outer(self, tiled: TileLayout, tiled_shape: Shape,
                      outer_shape: Shape,
                      target: Optional[str] = None,
                      tirx: bool = False) -> Optional[TileLayout]:
        """C with tiled == self ⊗ C, or None (tile's rule, see tile)."""
        rule = _tirx(tirx)
        ts, n = _shape(tiled_shape)
        os_, m = _shape(outer_shape)
        _same_rank(n, m, "Tiled shape size must match outer shape size")
        out, found = AxeLayout(), c_bool()
        call(lib.axe_layout_is_tile_outer_rule, self._c, tiled._c, ts, os_, n,
             _target(target), rule, out, found)
        return _wrap_found(out, found)

    def tile_to(self, to_shape: Shape, current_shape: Shape,
                target: Optional[str] = None, tirx: bool = False) -> TileLayout:
        """self repeated up to "to_shape" (TIRx tile_to; tile's rule)."""
        rule = _tirx(tirx)
        ts, n = _shape(to_shape)
        cs, m = _shape(current_shape)
        _same_rank(n, m, "to_shape and current_shape must have the same "
                   "length")
        out = AxeLayout()
        call(lib.axe_layout_tile_to_rule, self._c, ts, cs, n, _target(target),
             rule, out)
        return _wrap(out)

    def intersect(self, other: TileLayout, axis: Optional[AxisName] = None,
                  target: Optional[str] = None, tile: bool = False,
                  tirx: bool = False) -> TileLayout:
        """The paper's iter intersection (§3.4): the single iter, as a
        layout S[e:s@a], producing exactly the values both shards produce
        (their iters on "axis" when given); S[1:1] when only 0 is common,
        AxeError INCOMPATIBLE when no single iter produces them. tile=True
        (or tirx=True, with TIRx's tile): the tile intersection, the
        largest layout I with self = C ⊗ I and other = C' ⊗ I."""
        if not isinstance(other, TileLayout):
            raise TypeError("other must be a TileLayout, not "
                            f"{type(other).__name__}")
        if not isinstance(tile, bool):
            raise TypeError(f"tile must be a bool, not {type(tile).__name__}")
        rule = _tirx(tirx)
        out = AxeLayout()
        if tile or tirx:
            call(lib.axe_layout_intersect_iters_rule, self._c, other._c,
                 _axis_arg(axis), _target(target), rule, out)
        else:
            call(lib.axe_layout_intersect, self._c, other._c, _axis_arg(axis),
                 _target(target), out)
        return _wrap(out)

    def slice(self, shape: Shape, region: Sequence[Tuple[int, int]],
              target: Optional[str] = None) -> Optional[TileLayout]:
        """The layout of the sub-region [[begin, end), ...] of "shape"
        (L restricted to it, re-indexed from 0), or None where no layout
        equals it."""
        shp, n = _shape(shape)
        if len(region) != n:
            raise AxeError("INVALID", "shape and region must have the same "
                           "length")
        begin, _ = i64_array([r[0] for r in region] or [0], "begin")
        end, _ = i64_array([r[1] for r in region] or [0], "end")
        out, found = AxeLayout(), c_bool()
        call(lib.axe_layout_slice, self._c, shp, begin, end, n,
             _target(target), out, found)
        return _wrap_found(out, found)

    def direct_sum(self, a: TileLayout, a_shape: Shape,
                   b_shape: Shape) -> TileLayout:
        """a + self over the interleaved domain (a0, b0, a1, b1, ...):
        sum(a0, b0, ...) = a(a_coord) + self(b_coord) (TIRx
        ``B.direct_sum(A, A_shape, B_shape)``)."""
        as_, n = _shape(a_shape)
        bs, m = _shape(b_shape)
        _same_rank(n, m, "Left and right shape size must match for direct "
                   "sum")
        out = AxeLayout()
        call(lib.axe_layout_direct_sum, a._c, as_, self._c, bs, n, out)
        return _wrap(out)

    def is_direct_sum_right(self, total: TileLayout, interleaved_shape: Shape,
                            b_shape: Shape) -> Optional[TileLayout]:
        """A with total == A + self, or None."""
        return self._recover_sum(lib.axe_layout_is_direct_sum_right, total,
                                 interleaved_shape, b_shape, "right_shape")

    def is_direct_sum_left(self, total: TileLayout, interleaved_shape: Shape,
                           a_shape: Shape) -> Optional[TileLayout]:
        """B with total == self + B, or None."""
        return self._recover_sum(lib.axe_layout_is_direct_sum_left, total,
                                 interleaved_shape, a_shape, "left_shape")

    def _recover_sum(self, fn, total, interleaved_shape, shape, what):
        il, n2 = _shape(interleaved_shape)
        shp, n = _shape(shape)
        _same_rank(n2, 2 * n, "Interleaved shape must have twice the rank "
                   f"of {what}")
        out, found = AxeLayout(), c_bool()
        call(fn, self._c, total._c, il, shp, n, out, found)
        return _wrap_found(out, found)

    # ---- TIRx helpers -------------------------------------------------------

    def storage(self) -> TileLayout:
        """The layout without its thread-axis iters and offsets."""
        return self._unary(lib.axe_layout_storage)

    def pack(self, n: int) -> TileLayout:
        """n contiguous elements become one."""
        return self._unary(lib.axe_layout_pack, i64(n, "n"))

    def unpack(self, n: int) -> TileLayout:
        """One element becomes n contiguous ones."""
        return self._unary(lib.axe_layout_unpack, i64(n, "n"))

    def broadcast(self, n: int, position: int = -1,
                  axis: AxisName = "m") -> TileLayout:
        """The broadcast iter (n, 0, axis) inserted at "position"."""
        return self._unary(lib.axe_layout_broadcast, i64(n, "n"),
                           i32(position, "position"), _axis_arg(axis))

    def permute_dims(self, perm: Sequence[int]) -> TileLayout:
        """Shard iter i of the result is shard iter perm[i]."""
        arr, _ = i32_array(perm, "perm")
        return self._unary(lib.axe_layout_permute_dims, arr, len(perm))

    def permute_by_groups(self, seps: Sequence[int],
                          perm: Sequence[int]) -> TileLayout:
        """The shard groups [seps[g], seps[g+1]) in the order "perm"."""
        s, _ = i32_array(seps, "seps")
        p, _ = i32_array(perm, "perm")
        return self._unary(lib.axe_layout_permute_by_groups, s, len(seps),
                           p, len(perm))

    def to_psum(self) -> TileLayout:
        """TIRx's to_psum (F iters moved onto the PSUM Bank axis)."""
        return self._unary(lib.axe_layout_to_psum)

    # ---- conversions --------------------------------------------------------

    def to_cute(self) -> Layout:
        """The CuTe layout of a layout on `m` / coordinate axes without
        replica, offset or swizzle (modes reversed: lex -> colex)."""
        from .cute import Layout, _new
        out = _new(Layout)
        call(lib.axe_layout_to_cute, self._c, out)
        return out

    def to_linear(self,
                  shape: Optional[Sequence[int]] = None) -> LinearLayout:
        """The Triton linear layout of this layout (axe.linear)."""
        from .linear import LinearLayout
        return LinearLayout.from_axe(self, shape)

    def to_triton(self,
                  shape: Optional[Sequence[int]] = None) -> LinearLayout:
        """Triton's distributed layout of this layout (``axe convert --to
        triton``; LinearLayout.from_axe_distributed): inputs register,
        lane, warp, block, outputs the dims of "shape"."""
        from .linear import LinearLayout
        return LinearLayout.from_axe_distributed(self, shape)

    @staticmethod
    def from_cute(layout: Union[Layout, ComposedLayout]) -> TileLayout:
        """The Axe layout of a CuTe layout (or swizzled composed layout)
        with the same map: leaves reversed, integer strides on `m`."""
        from .cute import ComposedLayout
        out = AxeLayout()
        if isinstance(layout, ComposedLayout):
            call(lib.axe_layout_from_cute_composed, layout.c, out)
        else:
            call(lib.axe_layout_from_cute, layout.c, out)
        return _wrap(out)

    # ---- constructors -------------------------------------------------------

    @staticmethod
    def row_major(shape: Shape) -> TileLayout:
        """S[shape:row-major strides] on `m`."""
        shp, n = _shape(shape)
        out = AxeLayout()
        if lib.axe_layout_row_major(shp, n, out):
            raise AxeError("OVERFLOW", f"row-major strides of {shape} "
                           "overflow")
        return _wrap(out)

    @staticmethod
    def trainium(annotation: str, shape: Shape) -> TileLayout:
        """TIRx TileLayout.trainium: P/F dims of "shape"."""
        shp, n = _shape(shape)
        out = AxeLayout()
        call(lib.axe_layout_trainium, annotation.encode(), shp, n, out)
        return _wrap(out)

    @staticmethod
    def tmem_datapath(datapath: str, rows: int, cols: int,
                      sub_slab: int = 0) -> TileLayout:
        """The TMEM layout of tcgen05 datapath 'A'..'G'."""
        if not isinstance(datapath, str):
            raise TypeError(f"datapath must be a str, not "
                            f"{type(datapath).__name__}")
        raw = datapath.encode()
        if len(raw) != 1 or raw == b"\0":
            raise AxeError("INVALID", f"tmem_datapath: unknown datapath "
                           f"{datapath!r}; supported: A B C D E F G")
        out = AxeLayout()
        call(lib.axe_layout_tmem_datapath, raw,
             i64(rows, "rows"), i64(cols, "cols"), i32(sub_slab, "sub_slab"),
             out)
        return _wrap(out)

    @staticmethod
    def tmem_mma_operand(operand: str, shape: Shape, dtype: str, M: int,
                         cta_group: int = 1, ws: bool = False,
                         group: Optional[Shape] = None) -> TileLayout:
        """The TMEM layout of tcgen05 MMA operand 'A' or 'D'."""
        shp, n = _shape(shape)
        grp, ng = _shape(group) if group else (None, 0)
        out = AxeLayout()
        call(lib.axe_layout_tmem_mma_operand, operand.encode(), shp, n,
             dtype.encode(), i64(M, "M"), i32(cta_group, "cta_group"), ws,
             grp, ng, out)
        return _wrap(out)

    @staticmethod
    def wg_local(cols: int, rows: int = 128) -> TileLayout:
        """S[(rows, cols):(1@tid_in_wg, 1)]."""
        out = AxeLayout()
        call(lib.axe_layout_wg_local, i64(cols, "cols"), i64(rows, "rows"),
             out)
        return _wrap(out)

    @staticmethod
    def mma_shared(dtype: str, swizzle_mode: int, shape: Shape) -> TileLayout:
        """The MMA shared-memory layout of "shape" for "dtype" and swizzle
        mode 0..3 (none, 32B, 64B, 128B)."""
        shp, n = _shape(shape)
        out = AxeLayout()
        call(lib.axe_layout_mma_shared, dtype.encode(),
             i32(swizzle_mode, "swizzle_mode"), shp, n, out)
        return _wrap(out)


def _same_rank(n, m, message):
    if n != m:
        raise AxeError("INVALID", message)


def axis_info(name: AxisName) -> Dict[str, Any]:
    """{"kind", "scope", "subscope", "registered"} of axis "name"."""
    info = AxisInfo()
    call(lib.axe_axis_lookup, _axis_arg(name), info)
    kinds = {0: "memory", 1: "thread", 2: "device"}
    return {"kind": kinds[info.kind], "scope": _SCOPES[info.scope],
            "subscope": _SCOPES[info.subscope],
            "registered": bool(info.registered)}

