# SPDX-License-Identifier: Apache-2.0
"""Sharding specs <-> Axe layouts (docs/algebra.md §33, docs/python.md).

JAX ``PartitionSpec``, PyTorch DTensor placements and Alpa's ``S0R``
notation over a device mesh, converted by libaxe (include/axe/sharding.h)::

    import axe.sharding as sh
    sh.from_jax("P('x', None)", "x=2,y=4", [8, 16])
    # S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]
    sh.to_dtensor(layout, {"x": 2, "y": 4}, [8, 16])  # '[Shard(0), Replicate()]'

The convention: device ids row-major over the mesh axes in the order given
(as ``jax.sharding.Mesh(np.array(devices).reshape(shape), names)`` numbers
them), on the device axis ``gpuid``; each device's shard dense row-major
from ``m = 0``. A mesh is ``"x=2,y=4"``, a dict ``{"x": 2, "y": 4}``, a
list of sizes (axes named ``"0"``, ``"1"``, ...) or a ``jax.sharding.Mesh``
(its ``shape``). Specs are text, or the objects themselves (a
``PartitionSpec``, a list of DTensor placements), read through their
``repr``. A DTensor ``Partial`` has no placement of its own: ``from_dtensor``
then returns ``Partial(layout, op)``, printed ``layout partial(sum)``.
Every failure raises ``AxeError`` with the library's reason (an uneven
shard: DIVISIBILITY; a layout no spec expresses: UNSUPPORTED).
"""

from __future__ import annotations

from ctypes import create_string_buffer
from typing import Any, Mapping, NamedTuple, Sequence, Union

from ._lib import (AxeLayout, AxeMesh, AxeSharding, AxeError, call,
                   i64_array, lib, text_bytes)
from .tile import TileLayout, _wrap

__all__ = ["Partial", "from_jax", "from_dtensor", "from_alpa", "to_jax",
           "to_dtensor", "to_alpa"]

_JAX, _DTENSOR, _ALPA = 0, 1, 2


class Partial(NamedTuple):
    """A DTensor with a pending reduction: where its elements are (a
    layout whose replicas hold partial values) and the reduction ("sum",
    "avg", "max", "min" or "product")."""

    layout: TileLayout
    op: str

    def __str__(self) -> str:
        return f"{self.layout} partial({self.op})"


MeshLike = Union[str, Mapping[str, int], Sequence[int], Any]
LayoutLike = Union[TileLayout, Partial, str]


def _mesh(mesh: MeshLike) -> AxeMesh:
    shape = getattr(mesh, "shape", None)
    if not isinstance(mesh, (str, Mapping)) and isinstance(shape, Mapping):
        mesh = shape
    if isinstance(mesh, Mapping):
        text = ",".join(f"{k}={int(v)}" for k, v in mesh.items())
    elif isinstance(mesh, str):
        text = mesh
    elif isinstance(mesh, Sequence):
        text = ",".join(str(int(v)) for v in mesh)
    else:
        raise TypeError("mesh must be a str 'x=2,y=4', a dict, a list of "
                        f"sizes or a jax Mesh, not {type(mesh).__name__}")
    raw = text_bytes(text, "mesh")
    out = AxeMesh()
    call(lib.axe_parse_mesh, raw, len(raw), out)
    return out


def _shape(shape: Sequence[int]):
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise TypeError("shape must be a sequence of ints, not "
                        f"{type(shape).__name__}")
    return i64_array(shape, "shape")


def _spec_text(fmt: int, spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if fmt == _JAX and isinstance(spec, (tuple, list)):
        return "P(" + ", ".join(repr(e) for e in spec) + ")"
    if fmt == _DTENSOR and isinstance(spec, (tuple, list)):
        return "[" + ", ".join(e if isinstance(e, str) else repr(e)
                               for e in spec) + "]"
    return repr(spec)


def _from(fmt: int, spec: Any, mesh: MeshLike, shape: Sequence[int]):
    m = _mesh(mesh)
    arr, n = _shape(shape)
    raw = text_bytes(_spec_text(fmt, spec), "spec")
    s = AxeSharding()
    call(lib.axe_parse_sharding, fmt, raw, len(raw), m, n, s)
    out = AxeLayout()
    call(lib.axe_sharding_to_layout, s, m, arr, n, out)
    lay = _wrap(out)
    if s.partial:
        return Partial(lay, s.op.decode())
    return lay


def from_jax(spec: Any, mesh: MeshLike, shape: Sequence[int]) -> TileLayout:
    """The layout of a JAX ``PartitionSpec`` (``"P('x', None)"``, a
    ``PartitionSpec`` or a tuple of its entries) over "mesh"."""
    return _from(_JAX, spec, mesh, shape)


def from_dtensor(placements: Any, mesh: MeshLike, shape: Sequence[int]
                 ) -> Union[TileLayout, Partial]:
    """The layout of DTensor placements (``"[Shard(0), Replicate()]"`` or
    a list of placements), a ``Partial`` when one is pending."""
    return _from(_DTENSOR, placements, mesh, shape)


def from_alpa(spec: str, mesh: MeshLike, shape: Sequence[int]) -> TileLayout:
    """The layout of Alpa's ``S0R`` / ``S01R`` / ``RS1`` notation."""
    return _from(_ALPA, spec, mesh, shape)


def _layout(layout: LayoutLike):
    from ._parse import layout as parse
    op = None
    if isinstance(layout, Partial):
        op = layout.op
        layout = layout.layout
    elif isinstance(layout, str) and layout.rstrip().endswith(")") and \
            " partial(" in layout:
        text, _, rest = layout.rpartition(" partial(")
        layout, op = text, rest.rstrip()[:-1]
    if isinstance(layout, str):
        layout = parse(layout)
    if not isinstance(layout, TileLayout):
        raise TypeError("layout must be an Axe layout (TileLayout, its "
                        f"text or a Partial), not {type(layout).__name__}")
    return layout, op


def _to(fmt: int, layout: LayoutLike, mesh: MeshLike,
        shape: Sequence[int]) -> str:
    lay, op = _layout(layout)
    m = _mesh(mesh)
    arr, n = _shape(shape)
    s = AxeSharding()
    opb = None if op is None else text_bytes(op, "partial op")
    call(lib.axe_sharding_from_layout, fmt, lay._c, m, arr, n,
         0xFFFFFFFF if op is not None else 0, opb, s)
    buf = create_string_buffer(1024)
    if lib.axe_print_sharding(fmt, s, m, buf, len(buf)) >= len(buf):
        raise AxeError("CAPACITY", "the spec's text is over 1023 bytes")
    return buf.value.decode()


def to_jax(layout: LayoutLike, mesh: MeshLike, shape: Sequence[int]) -> str:
    """The JAX ``PartitionSpec`` text of "layout" (``"P('x', None)"``)."""
    return _to(_JAX, layout, mesh, shape)


def to_dtensor(layout: LayoutLike, mesh: MeshLike,
               shape: Sequence[int]) -> str:
    """The DTensor placements of "layout"; a ``Partial`` (or a text ending
    in `` partial(sum)``) makes every replicated mesh axis ``Partial``."""
    return _to(_DTENSOR, layout, mesh, shape)


def to_alpa(layout: LayoutLike, mesh: MeshLike, shape: Sequence[int]) -> str:
    """Alpa's notation of "layout" (``"S0R"``)."""
    return _to(_ALPA, layout, mesh, shape)
