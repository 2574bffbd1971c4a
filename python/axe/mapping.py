# SPDX-License-Identifier: Apache-2.0
"""Furiosa's mapping expressions (``m![...]`` over ``axes![...]``) from
Python, computed by libaxe's mapping layer (docs/notation.md, spec §5-§11).

A ``MappingExpression`` is an expression E over a table of named axes; its
map sends each buffer position p < |E| to a cell: an index (a dict
``{axis: coordinate}`` over the axes E mentions), a ``Padding`` cell, or
None past the end. Invariant: every object holds the library's parsed
struct, prints in Furiosa's Display form (``str``) and as ``m![...]``
(``repr`` notation), and every answer comes from the library (or raises
``AxeError`` with its reason).
"""

from __future__ import annotations

from ctypes import byref, c_bool, c_char_p, c_int, c_int64, pointer
from typing import (TYPE_CHECKING, Any, Dict, List, Mapping, Optional,
                    Sequence, Tuple, Union)

from . import _mlib as M
from ._lib import (AxeError, AxeLayout, call, check, i64, lib, name_bytes,
                   text_bytes)

if TYPE_CHECKING:
    from .tile import TileLayout

_ESC_MAX = 16

#: An axis table: a dict name -> size, an ``axes![...]`` text, or None.
Axes = Union[Mapping[str, int], str, None]
#: A cell of a map: an index {axis: coordinate}, a Padding, or None
#: (outside the expression).
Cell = Union[Dict[str, int], "Padding", None]
#: A tensor index: an ``i![...]`` text or a dict {axis: value}.
Index = Union[str, Mapping[str, int]]
#: An expression: a MappingExpression or its ``m![...]`` text.
Expr = Union["MappingExpression", str]


class Padding:
    """A padding cell of kind "top", "zero" or "bottom" (``#``, ``#{0}``,
    ``#{!}``): a buffer cell that holds no tensor element."""

    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Padding) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(("padding", self.kind))

    def __repr__(self) -> str:
        return f"Padding({self.kind!r})"


def parse_axes(text: str) -> Dict[str, int]:
    """The axis table of ``axes![NAME = SIZE, ...]`` as a dict (names
    unique, start with an uppercase letter, sizes >= 1)."""
    ax = M.MappingAxes()
    raw = text_bytes(text, "axes text")
    call(lib.axe_parse_mapping_axes, raw, len(raw), ax)
    return _axes_dict(ax)


def _axes_dict(ax):
    return {ax.name[k].value.decode(): ax.size[k] for k in range(ax.n)}


def _dict_arg(x, what):
    """The mapping "x" (None: empty) as a dict; TypeError for another
    type."""
    if x is None:
        return {}
    if not isinstance(x, Mapping):
        raise TypeError(f"{what} must be a dict (a mapping), not "
                        f"{type(x).__name__}")
    return dict(x)


def _axes_struct(axes):
    """The library's table of "axes": a dict name -> size, an
    ``axes![...]`` text, or None (no axes)."""
    if isinstance(axes, str):
        axes = parse_axes(axes)
    ax = M.MappingAxes()
    for name, size in _dict_arg(axes, "axes").items():
        call(lib.axe_mapping_axes_add, byref(ax), name_bytes(name),
             i64(size, f"size of axis {name}"))
    return ax


class _Env:
    """The parse environment: axes, ``defs`` (name -> m![...] text),
    ``consts`` (name -> int), primes (skewed axes such as B')."""

    def __init__(self, ax, defs=None, consts=None, primes=False):
        defs, consts = _dict_arg(defs, "defs"), _dict_arg(consts, "consts")
        if len(defs) > _ESC_MAX or len(consts) > _ESC_MAX:
            raise AxeError("CAPACITY", f"at most {_ESC_MAX} defs and consts")
        self.ax = ax
        self.keep = ([name_bytes(k, "def name") for k in defs] +
                     [name_bytes(v, f"def {k}") for k, v in defs.items()])
        dn = (c_char_p * max(1, len(defs)))(*self.keep[:len(defs)])
        dt = (c_char_p * max(1, len(defs)))(*self.keep[len(defs):])
        cn_raw = [name_bytes(k, "const name") for k in consts]
        self.keep += cn_raw
        cn = (c_char_p * max(1, len(consts)))(*cn_raw)
        cv = (c_int64 * max(1, len(consts)))(
            *[i64(v, f"const {k}") for k, v in consts.items()])
        self.arrays = (dn, dt, cn, cv)
        self.env = M.MappingEnv(pointer(ax), len(defs), dn, dt, len(consts),
                                cn, cv, primes)


def _cell_value(axes, mask, c):
    """The Python value of cell "c": a dict over the axes in "mask",
    a Padding, or None."""
    if c.kind == M.CELL_OUT_OF_BOUNDS:
        return None
    if c.kind == M.CELL_PADDING:
        return Padding(lib.axe_padding_kind_name(c.padding).decode())
    return {axes.name[k].value.decode(): c.coord[k] for k in range(axes.n)
            if mask >> k & 1}


def _used(m):
    root = lib.axe_mapping_root(byref(m))
    return sum(1 << k for k in range(m.axes.n)
               if lib.axe_mapping_uses_axis(byref(m), root, k))


def _parse(text, env):
    m = M.Mapping()
    raw = text_bytes(text, "mapping text")
    call(lib.axe_parse_mapping, raw, len(raw), byref(env.env), m)
    return m


def _printed_macro(m):
    return M.printed(lib.axe_print_mapping_macro, byref(m))


class MappingExpression:
    """A mapping expression E (``m![...]``) over its axis table.

    ``map(p)`` is E's decoded map (spec §5.2); ``size()`` is |E|, the
    number of buffer cells; two expressions are ``equivalent`` iff they
    have the same size and the same cell at every position (spec §8)."""

    __slots__ = ("m", "_env", "_skews")

    def __init__(self, text: str, axes: Axes = None,
                 defs: Optional[Mapping[str, str]] = None,
                 consts: Optional[Mapping[str, int]] = None,
                 derived: Optional[Mapping[str, str]] = None) -> None:
        """Parse ``m![...]`` over "axes" (a dict name -> size or an
        ``axes![...]`` text); "defs" name ``m![...]`` texts the expression
        may reference, "consts" integer constants; "derived" declares
        skewed axes ``{"B'": "B - A"}`` (doc-only, spec §11) whose
        coordinates ``map`` converts back to the base axis."""
        ax = _axes_struct(axes)
        self._skews = _read_skews(ax, derived or {})
        self._env = _Env(ax, defs, consts, primes=bool(self._skews))
        self.m = _parse(text, self._env)

    @classmethod
    def _of(cls, m, env=None):
        self = cls.__new__(cls)
        self.m, self._env, self._skews = m, env or _Env(m.axes), []
        return self

    @property
    def axes(self) -> Dict[str, int]:
        """The axis table: a dict name -> size."""
        return _axes_dict(self.m.axes)

    def size(self) -> int:
        """|E|: how many buffer cells the expression spans."""
        return lib.axe_mapping_size(byref(self.m))

    def __len__(self) -> int:
        return self.size()

    def map(self, i: int) -> Cell:
        """The cell at buffer position "i": a dict {axis: coordinate} over
        the axes E mentions, a Padding, or None when i is outside
        [0, |E|)."""
        c = M.MappingCell()
        call(lib.axe_mapping_map, byref(self.m), i64(i, "position"), c)
        mask = _used(self.m)
        for derived, base, by in self._skews:
            check(lib.axe_mapping_cell_unskew(byref(self.m.axes), derived,
                                              base, by, c), "unskew")
            if mask >> derived & 1:
                mask = mask & ~(1 << derived) | 1 << base
        return _cell_value(self.m.axes, mask, c)

    def index(self, index: Index) -> Cell:
        """The cell of ``i![A: 1, B: 7]`` (or a dict {axis: value}) over
        this expression's axes, as map() would return it."""
        ix = self._index(index)
        return _cell_value(self.m.axes, ix.used, ix.cell)

    def _index(self, index):
        if isinstance(index, dict):
            index = "i![" + ", ".join(
                f"{k}: {i64(v, k)}" for k, v in index.items()) + "]"
        ix = M.MappingIndex()
        raw = text_bytes(index, "index")
        call(lib.axe_parse_mapping_index, raw, len(raw),
             byref(self._env.env), ix)
        return ix

    def inverse(self, index: Index) -> List[int]:
        """Every buffer position p < |E| with map(p) equal to "index" (an
        ``i![...]`` text or a dict), ascending."""
        ix = self._index(index)
        cap = 1 << 16
        pos, n = (c_int64 * cap)(), c_int()
        call(lib.axe_mapping_inverse, byref(self.m), byref(ix.cell), pos,
             cap, byref(n))
        return list(pos[:n.value])

    def normalize(self) -> MappingExpression:
        """A simpler expression with the same map (equivalent to self)."""
        out = M.Mapping()
        call(lib.axe_mapping_normalize, byref(self.m), out)
        return MappingExpression._of(out, self._env)

    def equivalent(self, other: MappingExpression) -> bool:
        """Whether self and "other" have the same size and the same cell at
        every buffer position (the library bounds the positions it
        visits: AxeError CAPACITY beyond)."""
        out = c_bool()
        call(lib.axe_mapping_equivalent, byref(self.m), byref(other.m),
             byref(out))
        return out.value

    def tile_view(self, index: Expr, length: int,
                  write: bool = False) -> MappingExpression:
        """The view expression E2 of the tiles of "length" cells along the
        index expression "index" (spec §9); ``write`` asks for a mutable
        view (holes are bottom)."""
        out = M.Mapping()
        call(lib.axe_mapping_tile_view, byref(self.m),
             byref(self._sub(index).m), i64(length, "length"), write, out)
        return MappingExpression._of(out, self._env)

    def tile_view_at(self, index: Expr, length: int, start: int,
                     write: bool = False) -> Tuple[MappingExpression, Cell]:
        """The tile of "length" cells along "index" at logical coordinate
        "start" (spec §9's ``tile(start)``, as ``axe map tile-at``): the
        view expression E2 (tile_view's, the same at every start) and the
        offset I.map(start) (over the axes I names); view cell p holds
        E2.map(p) + offset where live. AxeError DOMAIN when start + length exceeds |I|."""
        out, off, ix = M.Mapping(), M.MappingCell(), self._sub(index)
        call(lib.axe_mapping_tile_view_at, byref(self.m), byref(ix.m),
             i64(length, "length"), i64(start, "start"), write, out, off)
        return (MappingExpression._of(out, self._env),
                _cell_value(self.m.axes, _used(ix.m), off))

    def tile(self, index: Expr, length: int, view: Optional[Expr] = None,
             start: int = 0, write: bool = False) -> TileView:
        """The tile of "length" cells along "index" starting at logical
        coordinate "start", seen through "view" (default: tile_view); the
        view is checked (spec §9) and AxeError says why it is not one."""
        index = self._sub(index)
        view = self.tile_view(index, length, write) if view is None \
            else self._sub(view)
        return TileView(self, index, i64(length, "length"), view,
                        i64(start, "start"), write)

    def _sub(self, e: Expr) -> MappingExpression:
        return e if isinstance(e, MappingExpression) else \
            MappingExpression._of(_parse(e, self._env), self._env)

    def to_axe(self, tensor_axes: Optional[Sequence[str]] = None,
               axis: str = "m", holes: bool = False) -> TileLayout:
        """The Axe layout L with L(tensor index) = the buffer positions
        holding it, on hardware axis "axis" (tensor_axes flattened first
        slowest, no name twice; default the axes the expression's normal
        form names, in table order, as the CLI). Padding fails unless
        "holes" (then it becomes holes in the span)."""
        return to_axe([(axis, self, 1, holes)], tensor_axes)

    @classmethod
    def from_axe(cls, layout: TileLayout, axes: Mapping[str, int],
                 holes: bool = False) -> MappingExpression:
        """The expression of Axe layout "layout" on the memory axis m over
        the tensor axes "axes" (dict, first slowest). Its points must be
        the positions 0 .. |E|-1, each once, unless "holes": then the
        positions it skips become padding (``S[(4,4):(8,1)]`` over A = 4,
        B = 4 is ``m![A, B # 8]``, as ``axe convert --to mapping
        --holes``), and ``to_axe(holes=True)`` gives the layout back."""
        out = M.Mapping()
        fn = lib.axe_mapping_from_layout_holes if holes else \
            lib.axe_mapping_from_layout
        call(fn, byref(layout._c), byref(_axes_struct(axes)), out)
        return cls._of(out)

    def notation(self) -> str:
        """``m![...]``: the expression in the macro's notation."""
        return _printed_macro(self.m)

    def __str__(self) -> str:
        return M.printed(lib.axe_print_mapping, byref(self.m))

    def __repr__(self) -> str:
        return f"axe.layout({self.notation()!r}, axes={self.axes!r})"


class TileView:
    """A validated tile view (spec §9): ``map(p)`` is E2.map(p) plus the
    offset of the tile's start where live, else E2's cell."""

    def __init__(self, source: MappingExpression, index: MappingExpression,
                 length: int, view: MappingExpression, start: int,
                 write: bool) -> None:
        self.source, self.index, self.view = source, index, view
        self.t = M.MappingTile(pointer(source.m), pointer(index.m), length,
                               pointer(view.m), start, write)
        self._off = M.MappingCell()
        call(lib.axe_mapping_tile_check, byref(self.t), self._off)
        self.offset = _cell_value(source.m.axes, _used(source.m), self._off)

    def size(self) -> int:
        """|E2|: the positions 0 .. size-1 that ``map`` answers."""
        return self.view.size()

    def map(self, p: int) -> Cell:
        """The view's cell at position "p" (the view was checked once, when
        it was made)."""
        c = M.MappingCell()
        call(lib.axe_mapping_tile_map_checked, byref(self.t), byref(self._off),
             i64(p, "position"), c)
        mask = _used(self.view.m) | _used(self.index.m)
        return _cell_value(self.source.m.axes, mask, c)


def _named_axes(exprs):
    """The axes the normal forms of "exprs" name (an expression's own when
    it does not normalize), in table order: spec §10's default tensor
    axes, as the CLI and batch choose them."""
    used, tables = set(), []
    for e in exprs:
        m, out = e.m, M.Mapping()
        if lib.axe_mapping_normalize(byref(m), out, None) == 0:
            m = out
        mask, table = _used(m), list(_axes_dict(m.axes))
        used |= {n for k, n in enumerate(table) if mask >> k & 1}
        tables.append(table)
    names: List[str] = []
    for table in tables:
        names += [n for n in table if n in used and n not in names]
    return names


def _tensor_names(tensor_axes):
    """The encoded "tensor_axes"; AxeError INVALID when one is named
    twice."""
    names = []
    for t in tensor_axes:
        b = name_bytes(t, "tensor axis")
        if b in names:
            raise AxeError("INVALID", f"tensor_axes names {t} twice")
        names.append(b)
    return names


def to_axe(parts: Sequence[Tuple[Any, ...]],
           tensor_axes: Optional[Sequence[str]] = None) -> TileLayout:
    """The Axe layout of a buffer split over hardware axes: "parts" are
    (axis, MappingExpression[, scale[, holes]]) summed per tensor index;
    "tensor_axes" names the tensor's axes, first slowest, each once
    (default: the axes the parts' normal forms name, in table order)."""
    from .tile import _wrap
    cp = (M.MappingPart * max(1, len(parts)))()
    keep = []
    for k, part in enumerate(parts):
        axis, e = part[0], part[1]
        keep.append(name_bytes(axis, "part axis"))
        cp[k] = M.MappingPart(pointer(e.m), keep[-1],
                              i64(part[2] if len(part) > 2 else 1, "scale"),
                              bool(part[3]) if len(part) > 3 else False)
    names = _tensor_names(_named_axes(p[1] for p in parts)
                          if tensor_axes is None else tensor_axes)
    out = AxeLayout()
    call(lib.axe_mapping_to_layout, cp, len(parts),
         (c_char_p * max(1, len(names)))(*names), len(names), out)
    return _wrap(out)


def _read_skews(ax, derived):
    """Add each derived axis ``"B'": "B - A"`` to "ax" with B's size;
    [(derived, base, by)] indices."""
    out = []
    for name, text in derived.items():
        base, _, by = (s.strip() for s in text.partition("-"))
        rb, ry = name_bytes(base), name_bytes(by)
        kb = lib.axe_mapping_axes_find(byref(ax), rb, len(rb))
        ky = lib.axe_mapping_axes_find(byref(ax), ry, len(ry))
        if kb < 0 or ky < 0:
            raise AxeError("INVALID", f"derived axis {name}: expected "
                           f"\"X - Y\" over declared axes, got {text!r}")
        call(lib.axe_mapping_axes_add, byref(ax), name_bytes(name),
             ax.size[kb])
        out.append((ax.n - 1, kb, ky))
    return out


class LinearCombination:
    """``$(e1:n1, ..., ed:nd)`` (doc-only, spec §11): position s relates
    to every tensor index t whose terms ek.map(sk) sum to it with
    s = sum sk*nk."""

    def __init__(self, text: str, axes: Axes = None,
                 defs: Optional[Mapping[str, str]] = None,
                 consts: Optional[Mapping[str, int]] = None) -> None:
        self._env = _Env(_axes_struct(axes), defs, consts)
        self.c = M.MappingLincomb()
        raw = text_bytes(text, "LinearCombination: text")
        call(lib.axe_parse_mapping_lincomb, raw, len(raw),
             byref(self._env.env), self.c)

    def size(self) -> int:
        """1 + sum (|ek| - 1) nk."""
        out = c_int64()
        check(lib.axe_mapping_lincomb_size(byref(self.c), byref(out)),
              "the size overflows")
        return out.value

    def map(self, s: int) -> List[Cell]:
        """The distinct tensor indices related to position "s"."""
        cap = 1024
        cells, n = (M.MappingCell * cap)(), c_int()
        call(lib.axe_mapping_lincomb_map, byref(self.c), i64(s, "position"),
             cells, cap, byref(n))
        mask = 0
        for k in range(self.c.n):
            mask |= _used(self.c.term[k])
        return [_cell_value(self._env.ax, mask, cells[k])
                for k in range(n.value)]

    def to_axe(self,
               tensor_axes: Optional[Sequence[str]] = None) -> TileLayout:
        """The Axe layout: tensor index t at buffer sum ek.map^-1 * nk
        (tensor_axes as in MappingExpression.to_axe; default the axes the
        terms' normal forms name)."""
        terms = [MappingExpression._of(self.c.term[k], self._env)
                 for k in range(self.c.n)]
        return to_axe([("m", t, self.c.scale[k]) for k, t in
                       enumerate(terms)], tensor_axes)
