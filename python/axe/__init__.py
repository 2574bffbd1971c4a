# SPDX-License-Identifier: Apache-2.0
"""axe: tensor layouts from Python, computed by libaxe (the C library).

* ``axe.cute``: CuTe layouts with pycute's API (``import axe.cute as
  pycute`` is a drop-in).
* ``axe.TileLayout``, ``axe.S``, ``axe.R`` and the axes (``laneid``, ...):
  Axe layouts over named hardware axes (TIRx's TileLayout).
* ``axe.layout(text)``: any notation of the project (docs/notation.md)
  parsed into the matching object.
* ``axe.kernel.compile(path_or_source, **params)``: a kernel of the axe
  kernel language, built through the C backend and callable on arrays
  (``check=True`` compares with the reference, ``axe.CheckError``).

Every operation either returns a result that satisfies its defining
property or raises ``AxeError`` with the library's reason.
"""

from ._lib import AxeError, version
from ._parse import layout
from .cute import ComposedLayout, Layout, ScaledBasis, Swizzle
from .tile import R, S, Axis, Stride, TileLayout, axis_info
from .linear import LinearLayout
from .mapping import MappingExpression, Padding
from . import kernel, sharding
from .kernel import CheckError

__all__ = ["AxeError", "Axis", "ComposedLayout", "Layout", "R", "S",
           "ScaledBasis", "Stride", "Swizzle", "TileLayout", "axis_info",
           "layout", "version", "LinearLayout", "MappingExpression",
           "Padding", "kernel", "sharding", "CheckError"]

_AXES = ("m", "laneid", "warpid", "tx", "bx", "by", "bz", "cbx", "cby",
         "cbz", "wgid", "tid_in_wg", "wid_in_wg", "lane", "warp", "reg",
         "gpuid", "device", "P", "F", "Bank", "TCol", "TLane", "Col", "Lane")
for _a in _AXES:
    globals()[_a] = Axis(_a)
__all__ += list(_AXES)
del _a
