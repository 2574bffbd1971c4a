# SPDX-License-Identifier: Apache-2.0
"""Triton linear layouts from Python (include/axe/linear.h): a map over
F2 from named inputs to named outputs, ``out = XOR of basis[d][i] over the
set bits i of input d``. Invariant: the object holds the library's struct;
``str`` is Triton's text, which ``LinearLayout.parse`` reads back, and a
layout that is not bit-linear is refused with the library's reason.
Triton's distributed layouts (inputs ``register``, ``lane``, ``warp``,
``block``) convert to and from Axe layouts on ``reg``, ``laneid``,
``warpid``, ``cbx``, and Triton's shared layouts (inputs ``offset``,
``block``) to and from Axe layouts on one memory axis (``m``) and ``cbx``,
as ``axe convert --to triton`` / ``--to axe`` do.
"""

from __future__ import annotations

from ctypes import byref, c_int64
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from . import _mlib as M
from ._lib import (AxeError, AxeLayout, call, check, i64_array, lib,
                   text_bytes)

if TYPE_CHECKING:
    from .tile import TileLayout


_HW_INPUTS = ("register", "lane", "warp", "block")
_SHARED_INPUTS = ("offset", "block")


class LinearLayout:
    """A Triton linear layout: ``ins`` / ``outs`` are [(name, size)],
    ``apply(*x)`` the outputs of the inputs "x" (one per input)."""

    __slots__ = ("c",)

    def __init__(self, c: M.Linear) -> None:
        self.c = c

    @classmethod
    def parse(cls, text: str) -> LinearLayout:
        """Triton's text (`` - index=1 -> (0, 4)`` lines and ``where out
        dims are: [...]``); AxeError SYNTAX with the offset otherwise."""
        c = M.Linear()
        raw = text_bytes(text, "LinearLayout.parse: text")
        call(lib.axe_parse_linear, raw, len(raw), c)
        return cls(c)

    @classmethod
    def from_axe(cls, layout: TileLayout,
                 shape: Optional[Sequence[int]] = None) -> LinearLayout:
        """The linear layout of Axe layout "layout": inputs ``dim0``,
        ``dim1``, ... of "shape" (first most major) or one input
        ``index``; one output per axis. Exists iff the size is a power of
        two, there is no replica or offset and the map is bit-linear."""
        c = M.Linear()
        arr, n = i64_array(shape or [], "shape")
        call(lib.axe_linear_from_layout, byref(layout._c),
             arr if shape else None, n, c)
        return cls(c)

    @classmethod
    def from_axe_distributed(cls, layout: TileLayout,
                             shape: Optional[Sequence[int]] = None
                             ) -> LinearLayout:
        """Triton's distributed layout of Axe layout "layout" (``axe
        convert --to triton``): inputs ``register``, ``lane``, ``warp``,
        ``block`` (the axes ``reg``, ``laneid``, ``warpid``, ``cbx``; size
        1 when unused), outputs ``dim0``, ``dim1``, ... of "shape" (the
        logical index row-major, first most major; by default one dim of
        the layout's size), a replica bit a zero basis (broadcast). Exists
        iff the shards are bit-linear and shards plus replica bits are a
        bijection onto the hardware bits. A layout onto one memory axis
        (``m``, not ``reg``) and ``cbx`` gives Triton's shared layout:
        inputs ``offset`` and ``block``, a swizzle on ``m`` as XOR
        bases."""
        c = M.Linear()
        arr, n = i64_array(shape or [], "shape")
        call(lib.axe_linear_to_triton, byref(layout._c),
             arr if shape else None, n, c)
        return cls(c)

    @property
    def is_distributed(self) -> bool:
        """Whether this is a Triton distributed layout: at least one input
        and all among ``register``, ``lane``, ``warp``, ``block`` (then
        ``to_axe`` reads it as one, as ``axe convert --to axe`` does)."""
        return self.c.nin > 0 and all(
            name in _HW_INPUTS for name, _ in self.ins)

    @property
    def is_shared(self) -> bool:
        """Whether this is a Triton shared layout: an input ``offset``
        and all inputs among ``offset``, ``block`` (``to_axe`` then reads
        it onto ``m`` and ``cbx``)."""
        names = [name for name, _ in self.ins]
        return "offset" in names and all(
            name in _SHARED_INPUTS for name in names)

    def _dims(self, names, bits, n):
        return [(names[k].value.decode(), 1 << bits[k]) for k in range(n)]

    @property
    def ins(self) -> List[Tuple[str, int]]:
        """The inputs [(name, size)], each size a power of two."""
        return self._dims(self.c.in_name, self.c.in_bits, self.c.nin)

    @property
    def outs(self) -> List[Tuple[str, int]]:
        """The outputs [(name, size)], each size a power of two."""
        return self._dims(self.c.out_name, self.c.out_bits, self.c.nout)

    def apply(self, *x: int) -> Dict[str, int]:
        """The outputs (a dict name -> value) of the inputs "x"."""
        if len(x) != self.c.nin:
            raise AxeError("INVALID", f"{self.c.nin} inputs expected, got "
                           f"{len(x)}")
        arr, _ = i64_array(x, "input")
        out = (c_int64 * M.LINEAR_MAX_DIMS)()
        check(lib.axe_linear_apply(byref(self.c), arr, out),
              "an input is outside its dimension")
        return {name: out[k] for k, (name, _) in enumerate(self.outs)}

    def invert(self) -> LinearLayout:
        """The inverse (outputs become inputs); exists iff a bijection."""
        out = M.Linear()
        call(lib.axe_linear_invert, byref(self.c), out)
        return LinearLayout(out)

    def to_axe(self) -> TileLayout:
        """The Axe layout of this linear layout: ``to_axe_distributed()``
        when ``is_distributed`` or ``is_shared``, else the map of the
        bases (inputs flattened, the first most major), as ``axe convert
        --to axe``."""
        if self.is_distributed or self.is_shared:
            return self.to_axe_distributed()
        from .tile import _wrap
        out = AxeLayout()
        call(lib.axe_linear_to_layout, byref(self.c), out)
        return _wrap(out)

    def to_axe_distributed(self) -> TileLayout:
        """The Axe layout of this Triton distributed layout, from the
        logical index (row-major over the outputs) to ``reg``, ``laneid``,
        ``warpid``, ``cbx``; a zero basis ``lane=4 -> (0, 0)`` becomes the
        replica ``R[2:4@laneid]``. Exists iff the nonzero bases are a basis
        of the output bits and their inverse is an Axe layout. A shared
        layout (inputs ``offset``, ``block``) reads onto ``m`` and
        ``cbx``, a swizzle on ``m`` recognized."""
        from .tile import _wrap
        out = AxeLayout()
        call(lib.axe_linear_from_triton, byref(self.c), out)
        return _wrap(out)

    def __str__(self) -> str:
        return M.printed(lib.axe_print_linear, byref(self.c))

    def __repr__(self) -> str:
        return f"LinearLayout.parse({str(self)!r})"
