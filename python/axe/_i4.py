# SPDX-License-Identifier: Apache-2.0
"""Packed ``i4`` buffers for ``axe.kernel`` (docs/compiler.md, "i4"):
element x of an i4 tensor is nibble x % 2 of byte x // 2, the low nibble
first, a two's-complement value in [-8, 7]. ``pack_i4`` packs integers
(numpy) into those bytes, ``unpack_i4`` reads them back as int8, and
``decode`` gives the values of a buffer without numpy (the check).

Invariant: ``unpack_i4(pack_i4(a), a.shape)`` equals ``a`` for every
integer array ``a`` with elements in [-8, 7]; anything else is refused
with a reason naming the element.
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple, Union

#: The values an i4 element holds.
LOW, HIGH = -8, 7


def storage(n: int) -> int:
    """Bytes that hold "n" i4 elements: (n + 1) // 2."""
    return (n + 1) // 2


def packed_shape(shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """The shape of the packed bytes of an i4 array of "shape": the last
    extent halved when it is even (each row whole bytes), else the 1-D
    count of bytes."""
    if shape and shape[-1] % 2 == 0:
        return shape[:-1] + (shape[-1] // 2,)
    n = 1
    for e in shape:
        n *= e
    return (storage(n),)


def decode(raw: bytes, n: int) -> List[int]:
    """The first "n" i4 values held in "raw" (sign-extended nibbles)."""
    out: List[int] = []
    for b in raw[:storage(n)]:
        out.append((b & 0xF) - 16 * ((b >> 3) & 1))
        out.append((b >> 4) - 16 * (b >> 7))
    return out[:n]


def _numpy(what: str) -> Any:
    try:
        import numpy
    except ImportError:
        raise TypeError(f"{what} needs numpy") from None
    return numpy


def pack_i4(values: Any) -> Any:
    """The packed bytes (a numpy uint8 array of ``packed_shape``) of
    "values", an integer array-like (int8 in practice) whose elements are
    in [-8, 7]; ValueError naming the first element outside that range,
    TypeError for a non-integer array."""
    np = _numpy("axe.kernel.pack_i4")
    a = np.asarray(values)
    if a.dtype.kind not in "iu":
        raise TypeError(f"axe.kernel.pack_i4 takes integers in [{LOW}, "
                        f"{HIGH}] (an int8 array), not an array of {a.dtype}")
    bad = np.flatnonzero((a < LOW) | (a > HIGH))
    if bad.size:
        where = [int(i) for i in np.unravel_index(int(bad[0]), a.shape)]
        raise ValueError(f"axe.kernel.pack_i4: element {where} is "
                         f"{a.reshape(-1)[bad[0]]}, outside i4's range "
                         f"[{LOW}, {HIGH}] ({bad.size} such elements)")
    flat = (a.reshape(-1).astype(np.int16) & 0xF).astype(np.uint8)
    if flat.size % 2:
        flat = np.append(flat, np.uint8(0))
    packed = flat[0::2] | (flat[1::2] << 4)
    return packed.reshape(packed_shape(tuple(a.shape)))


def unpack_i4(packed: Any, shape: Union[int, Sequence[int]]) -> Any:
    """The i4 elements held in "packed" (a uint8 or int8 array-like, as
    ``pack_i4`` makes and a kernel writes) as a numpy int8 array of
    "shape" (an int: 1-D); ValueError when "packed" does not hold exactly
    the bytes of that many elements."""
    np = _numpy("axe.kernel.unpack_i4")
    dims = (int(shape),) if isinstance(shape, int) else \
        tuple(int(e) for e in shape)
    if any(e < 0 for e in dims):
        raise ValueError(f"axe.kernel.unpack_i4: shape {list(dims)} has a "
                         "negative extent")
    b = np.asarray(packed)
    if b.dtype not in (np.uint8, np.int8):
        raise TypeError("axe.kernel.unpack_i4 takes packed bytes (uint8 or "
                        f"int8), not an array of {b.dtype}")
    n = int(np.prod(dims, dtype=np.int64))
    if b.size != storage(n):
        raise ValueError(f"axe.kernel.unpack_i4: shape {list(dims)} "
                         f"takes {storage(n)} bytes ({n} i4 elements, two "
                         f"per byte), not {b.size}")
    raw = np.ascontiguousarray(b).view(np.uint8).reshape(-1)
    out = np.empty(2 * raw.size, np.int8)
    out[0::2] = (raw & 0xF).astype(np.int8)
    out[1::2] = (raw >> 4).astype(np.int8)
    out[out > HIGH] -= 16
    return out[:n].reshape(dims)
