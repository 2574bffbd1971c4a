# SPDX-License-Identifier: Apache-2.0
"""Pictures of layouts from Python: the render layer of libaxe
(include/axe/render.h) called the way ``axe render`` calls it, so the text
returned equals what ``axe render LAYOUT --as VIEW --format FMT --shape S
--color-by AXIS`` prints for the same layout text. Invariant: the picture
comes from the library (every number drawn is the layout's apply_set of
the cell's element) or AxeError says why there is none (CAPACITY with a
suggestion to slice, DOMAIN, INVALID for an unknown color axis).
"""

from __future__ import annotations

import html
from ctypes import byref, string_at
from typing import TYPE_CHECKING, Any, Optional, Sequence, Union

from . import _mlib as M
from ._lib import LAYOUT_MAX_DIMS, AxeError, call, i64, lib, name_bytes

if TYPE_CHECKING:
    from .cute import ComposedLayout, Layout
    from .tile import TileLayout

VIEWS = {"grid": 0, "tv": 1, "axe": 0, "physical": 2, "banks": 3}
FORMATS = {"text": 0, "ansi": 1, "svg": 2, "tex": 3, "html": 4}
#: The tile shape of a picture: an int or a (nested) tuple of ints.
RenderShape = Union[int, Sequence[Any]]


def _pick(table, value, what):
    if value not in table:
        raise AxeError("INVALID", f"unknown {what} {value!r}; one of "
                       + ", ".join(table))
    return table[value]


def _flat(shape):
    if isinstance(shape, (tuple, list)):
        return [x for e in shape for x in _flat(e)]
    return [shape]


def _options(fmt, view, shape, color_by, title, elem_bytes, access):
    o = M.RenderOptions()
    lib.axe_render_options_init(byref(o))
    o.view, o.format = _pick(VIEWS, view, "view"), _pick(FORMATS, fmt,
                                                         "format")
    keep = [name_bytes(s, what) if s is not None else None
            for s, what in ((title, "title"), (color_by, "color_by"))]
    o.title, o.color_by = keep
    dims = _flat(shape) if shape is not None else []
    if len(dims) > LAYOUT_MAX_DIMS:
        raise AxeError("CAPACITY", f"shape has more than {LAYOUT_MAX_DIMS} "
                       "dims")
    o.ndims = len(dims)
    for k, d in enumerate(dims):
        o.shape[k] = i64(d, "shape")
    if elem_bytes is not None:
        o.elem_bytes = i64(elem_bytes, "elem_bytes")
    if access is not None:
        o.has_access, o.access = True, access.c
    return o, keep


def _cute_default_shape(layout):
    """CuTe layouts without a shape: (size of mode 0, the rest)."""
    from . import cute
    if not isinstance(layout.shape, tuple) or len(layout.shape) < 2:
        return None
    rows = cute.size(cute.get(layout, 0))
    return (rows, cute.size(layout) // rows)


def render(obj: Union[Layout, ComposedLayout, TileLayout], fmt: str = "svg",
           view: str = "grid", shape: Optional[RenderShape] = None,
           color_by: Optional[str] = None, title: Optional[str] = None,
           elem_bytes: Optional[int] = None,
           access: Optional[Layout] = None) -> str:
    """The picture of "obj" (a CuTe Layout, a ComposedLayout or a
    TileLayout) as text: fmt "svg", "html", "text", "ansi" or "tex"; view
    "grid" (alias "axe"), "tv" (a CuTe (T,V) -> index layout over the tile
    "shape"), "physical" or "banks" ("elem_bytes", "access": one warp's
    CuTe access layout). "title" defaults to the layout's notation."""
    from .cute import ComposedLayout
    from .tile import TileLayout
    cute_obj = not isinstance(obj, TileLayout)
    if cute_obj and shape is None:
        shape = _cute_default_shape(
            obj.layoutA if isinstance(obj, ComposedLayout) else obj)
    if title is None:
        title = str(obj) if isinstance(obj, TileLayout) else obj.notation()
    o, keep = _options(fmt, view, shape, color_by, title, elem_bytes, access)
    o.colex = cute_obj
    buf = M.RenderBuf()
    lib.axe_render_buf_init(byref(buf), None, None)
    try:
        if view == "tv":
            if type(obj).__name__ != "Layout":
                raise AxeError("INVALID", "view 'tv' draws a CuTe layout "
                               "(T,V) -> index, e.g. ((4,8),2):((16,1),8)")
            call(lib.axe_render_tv, byref(o),
                 byref(obj.c),  # type: ignore[union-attr]
                 byref(buf))
        else:
            lay = obj._c if isinstance(obj, TileLayout) \
                else TileLayout.from_cute(obj)._c
            call(lib.axe_render_layout, byref(o), byref(lay), byref(buf))
        return string_at(buf.data, buf.len).decode() if buf.len else ""
    finally:
        lib.axe_render_buf_free(byref(buf))


class Renderable:
    """Mixin of the layout classes: ``render`` and Jupyter's
    ``_repr_svg_`` (the static grid) and ``_repr_html_`` (the interactive
    page of ``render("html")`` in an iframe)."""

    __slots__ = ()

    def render(self, fmt: str = "svg", view: str = "grid",
               shape: Optional[RenderShape] = None,
               color_by: Optional[str] = None, title: Optional[str] = None,
               **kw: Any) -> str:
        """The picture of this layout as text (see ``render``): what ``axe
        render`` prints for the same layout and options."""
        return render(self, fmt, view, shape,  # type: ignore[arg-type]
                      color_by, title, **kw)

    def _repr_svg_(self) -> Optional[str]:
        """Jupyter's inline picture: the grid view as SVG (None, so Jupyter
        shows the text form, when the layout is too large to draw)."""
        try:
            return self.render("svg")
        except AxeError:
            return None

    def _repr_html_(self) -> Optional[str]:
        """Jupyter's interactive picture: the page of ``render("html")``
        (hover, find, views) in an iframe, so its script and element ids
        stay apart from the notebook's and from other outputs; None when
        the layout is too large to draw."""
        try:
            page = self.render("html")
        except AxeError:
            return None
        return (f'<iframe srcdoc="{html.escape(page, quote=True)}" '
                'style="width:100%;height:520px;border:0" '
                'title="axe render"></iframe>')
