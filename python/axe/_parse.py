# SPDX-License-Identifier: Apache-2.0
"""``axe.layout(text)``: one entry point for every notation, dispatching by
the text's form (docs/notation.md): an Axe layout (``S[...]``, ``R[...]``,
``Swizzle<...>(...)``) becomes a TileLayout; CuTe text becomes an int tuple,
a Layout, a tiler (a tuple of Layouts and None), a Swizzle or a
ComposedLayout. Invariant: the object returned prints back (``notation()``
or ``str``) to the canonical form of the text.
"""

from __future__ import annotations

from typing import Any, Mapping, Union

from ._convert import decode_tuple
from ._lib import (KIND_COMPOSED, KIND_LAYOUT, KIND_SWIZZLE, KIND_TILER,
                   AxeLayout, CuteObject, call, text_bytes)
from ._lib import lib


def _is_axe(text):
    t = text.lstrip()
    return t.startswith(("S[", "R[", "Swizzle<")) or (
        "@" in t and not t.startswith(("(", "[", "<")) and "[" in t)


def _tiler_value(t):
    from .cute import _layout_of
    stack = [[]]
    it = iter(range(t.nelem))
    for ch in t.tok[:t.ntok].decode():
        if ch == "[":
            stack.append([])
        elif ch == "]":
            done = tuple(stack.pop())
            stack[-1].append(done)
        elif ch == "_":
            stack[-1].append(None)
        else:
            stack[-1].append(_layout_of(t.elem[next(it)]))
    return stack[0][0]


def _mapping(text, axes, kw):
    from . import mapping
    t = text.lstrip()
    if t.startswith("axes!"):
        return mapping.parse_axes(text)
    if t.startswith("$("):
        return mapping.LinearCombination(text, axes, **kw)
    return mapping.MappingExpression(text, axes, **kw)


def layout(text: str, axes: Union[Mapping[str, int], str, None] = None,
           **kw: Any) -> Any:
    """The object "text" denotes, in any notation of DESIGN.md §4 that this
    build parses; AxeError SYNTAX with the byte offset otherwise.
    Mapping expressions (``m![...]``, ``$(...)``) are read over "axes" (a
    dict name -> size or an ``axes![...]`` text; keywords ``defs``,
    ``consts``, ``derived`` as in MappingExpression); ``axes![...]``
    alone gives its table as a dict."""
    from .cute import Swizzle, _composed_of, _layout_of
    from .tile import _wrap
    if not isinstance(text, str):
        raise TypeError(f"axe.layout: text must be a str, not "
                        f"{type(text).__name__} {text!r}")
    if axes is not None or kw or text.lstrip().startswith(
            ("m!", "axes!", "$(")):
        return _mapping(text, axes, kw)
    raw = text_bytes(text, "axe.layout: text")
    if _is_axe(text):
        out = AxeLayout()
        call(lib.axe_parse_layout, raw, len(raw), out)
        return _wrap(out)
    obj = CuteObject()
    call(lib.axe_parse_cute, raw, len(raw), obj)
    if obj.kind == KIND_LAYOUT:
        return _layout_of(obj.layout)
    if obj.kind == KIND_TILER:
        return _tiler_value(obj.tiler)
    if obj.kind == KIND_SWIZZLE:
        sw = obj.swizzle
        return Swizzle(sw.bits, sw.base, sw.shift)
    if obj.kind == KIND_COMPOSED:
        return _composed_of(obj.composed)

    return decode_tuple(obj.tuple)
