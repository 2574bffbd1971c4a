# SPDX-License-Identifier: Apache-2.0
"""Triton linear layouts from Python (include/axe/linear.h): a map over
F2 from named inputs to named outputs, ``out = XOR of basis[d][i] over the
set bits i of input d``. Invariant: the object holds the library's struct;
``str`` is Triton's text, which ``LinearLayout.parse`` reads back, and a
layout that is not bit-linear is refused with the library's reason.
"""

from __future__ import annotations

from ctypes import byref, c_int64
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from . import _mlib as M
from ._lib import AxeLayout, AxeError, call, check, i64_array, lib

if TYPE_CHECKING:
    from .tile import TileLayout


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
        raw = text.encode()
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
        """The Axe layout of this linear layout (inputs flattened, the
        first most major)."""
        from .tile import _wrap
        out = AxeLayout()
        call(lib.axe_linear_to_layout, byref(self.c), out)
        return _wrap(out)

    def __str__(self) -> str:
        return M.printed(lib.axe_print_linear, byref(self.c))

    def __repr__(self) -> str:
        return f"LinearLayout.parse({str(self)!r})"
