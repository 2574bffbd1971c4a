# SPDX-License-Identifier: Apache-2.0
"""Conversions between Python values and libaxe's value structs.

Integer tuples are Python ints and (nested) tuples, as in pycute; a CuTe
coordinate's ``_`` is ``None``. A scaled-basis stride ``3@1`` is a
``ScaledBasis(3, (1,))``. Invariant: ``decode_tuple(encode_tuple(t)) == t``
for every tuple within capacity, and encoders never write a struct that
breaks the C invariants (capacity, int64 range, token balance): they raise
``AxeError`` instead, so no Python value reaches the library malformed.
"""

from ._lib import (UNDERSCORE, AxeError, CuteLayout, CuteTiler, Tuple,
                   TILER_MAX, TILER_MAX_TOKENS, TUPLE_MAX_DEPTH,
                   TUPLE_MAX_LEAVES, TUPLE_MAX_TOKENS, i64)


class ScaledBasis:
    """The scaled basis vector ``value@k0@...``: ``value`` times the unit
    vector E<modes...> (``modes`` outermost first, CuTe's E<k0,k1>, printed
    ``value@k1@k0`` as in CuTe)."""

    __slots__ = ("value", "modes")

    def __init__(self, value, modes):
        self.value = value
        self.modes = tuple(modes)

    def __eq__(self, other):
        return (isinstance(other, ScaledBasis) and self.value == other.value
                and self.modes == other.modes)

    def __hash__(self):
        return hash((self.value, self.modes))

    def __repr__(self):
        return f"{self.value}@" + "@".join(str(m) for m in
                                           reversed(self.modes))

    __str__ = __repr__


def _walk(t, tok, leaves, depth, none_ok):
    if isinstance(t, tuple):
        if depth >= TUPLE_MAX_DEPTH:
            raise AxeError("CAPACITY", f"tuple nested deeper than "
                           f"{TUPLE_MAX_DEPTH} levels")
        tok.append("(")
        for e in t:
            _walk(e, tok, leaves, depth + 1, none_ok)
        tok.append(")")
    elif t is None and none_ok:
        tok.append("x")
        leaves.append(UNDERSCORE)
    else:
        v = i64(t, "tuple element")
        if v == UNDERSCORE:
            raise AxeError("OVERFLOW", f"tuple element {v} is out of range: "
                           "elements are -2**63+1 to 2**63-1 (None is the "
                           "wildcard _)")
        tok.append("x")
        leaves.append(v)


def flatten_profile(t, none_ok=False):
    """(token string, leaves) of int tuple "t" in preorder."""
    if isinstance(t, list):
        t = tuple(t)
    tok, leaves = [], []
    _walk(t, tok, leaves, 0, none_ok)
    if len(tok) > TUPLE_MAX_TOKENS or len(leaves) > TUPLE_MAX_LEAVES:
        raise AxeError("CAPACITY", f"tuple {t!r} exceeds the capacity of "
                       f"{TUPLE_MAX_LEAVES} leaves / {TUPLE_MAX_TOKENS} "
                       "tokens")
    return "".join(tok), leaves


def encode_tuple(t, none_ok=False, out=None):
    """The Tuple struct of int tuple "t" (``None`` leaves are ``_`` when
    "none_ok")."""
    tok, leaves = flatten_profile(t, none_ok)
    out = out if out is not None else Tuple()
    out.ntok = len(tok)
    out.nleaf = len(leaves)
    out.tok = tok.encode()
    out.v[:len(leaves)] = leaves
    return out


def build(tok, leaves):
    """The nested tuple of token string "tok" over "leaves" (``_`` leaves
    become ``None``)."""
    stack = [[]]
    it = iter(leaves)
    for c in tok:
        if c == "(":
            stack.append([])
        elif c == ")":
            done = tuple(stack.pop())
            stack[-1].append(done)
        else:
            v = next(it)
            stack[-1].append(None if v == UNDERSCORE else v)
    return stack[0][0]


def decode_tuple(t):
    """The Python int tuple of Tuple struct "t"."""
    n = t.nleaf
    if t.ntok == 1:
        v = t.v[0]
        return None if v == UNDERSCORE else v
    return build(t.tok[:t.ntok].decode(), t.v[:n])


def _basis_code(modes):
    if not 1 <= len(modes) <= 3 or any(not 0 <= m <= 255 for m in modes):
        raise AxeError("INVALID", f"basis E<{modes}> needs 1 to 3 modes in "
                       "[0, 255]")
    code = len(modes) << 24
    for level, m in enumerate(modes):
        code |= m << (16 - 8 * level)
    return code


def basis_modes(code):
    """The modes (outermost first) of basis code "code"."""
    return tuple((code >> (16 - 8 * level)) & 0xff
                 for level in range(code >> 24))


def encode_layout(shape, stride, out=None):
    """The CuteLayout struct of ``shape:stride`` (strides congruent to the
    shape; ints or ScaledBasis); checked by the library's constructor."""
    stok, sleaves = flatten_profile(shape)
    dtok, dleaves = _flatten_strides(stride)
    if stok != dtok:
        raise AxeError("INCOMPATIBLE", f"stride {stride!r} is not congruent "
                       f"to shape {shape!r}")
    for s in sleaves:
        if s < 1:
            raise AxeError("INVALID", f"shape {shape!r} has an extent {s} "
                           "< 1")
    out = out if out is not None else CuteLayout()
    t = out.cshape
    t.ntok, t.nleaf, t.tok = len(stok), len(sleaves), stok.encode()
    t.v[:len(sleaves)] = sleaves
    for i, d in enumerate(dleaves):
        if isinstance(d, ScaledBasis):
            out.cstride[i] = i64(d.value, "stride")
            out.cbasis[i] = _basis_code(d.modes)
        else:
            out.cstride[i] = d
            out.cbasis[i] = 0
    return out


def _flatten_strides(stride):
    tok, leaves = [], []

    def walk(d, depth):
        if isinstance(d, (tuple, list)):
            if depth >= TUPLE_MAX_DEPTH:
                raise AxeError("CAPACITY", "stride nested too deeply")
            tok.append("(")
            for e in d:
                walk(e, depth + 1)
            tok.append(")")
        else:
            tok.append("x")
            leaves.append(d if isinstance(d, ScaledBasis)
                          else i64(d, "stride"))

    walk(stride, 0)
    return "".join(tok), leaves


def decode_layout(c):
    """(shape, stride) Python tuples of CuteLayout struct "c"."""
    t = c.cshape
    n = t.nleaf
    strides = c.cstride[:n]
    bases = c.cbasis[:n]
    if any(bases):
        strides = [ScaledBasis(s, basis_modes(b)) if b else s
                   for s, b in zip(strides, bases)]
    if t.ntok == 1:
        return t.v[0], strides[0]
    tok = t.tok[:t.ntok].decode()
    return build(tok, t.v[:n]), build(tok, strides)


def encode_tiler(elems):
    """The CuteTiler struct of a tuple whose leaves are CuteLayout structs
    or None (``_``); nested tuples nest."""
    out = CuteTiler()
    tok = []

    def walk(e):
        if isinstance(e, tuple):
            tok.append("[")
            for x in e:
                walk(x)
            tok.append("]")
        elif e is None:
            tok.append("_")
        else:
            if out.nelem >= TILER_MAX:
                raise AxeError("CAPACITY", f"a tiler holds at most "
                               f"{TILER_MAX} layouts")
            out.elem[out.nelem] = e
            out.nelem += 1
            tok.append("L")

    walk(tuple(elems))
    if len(tok) > TILER_MAX_TOKENS:
        raise AxeError("CAPACITY", "the tiler is nested too deeply")
    out.ntok = len(tok)
    out.tok = "".join(tok).encode()
    return out
