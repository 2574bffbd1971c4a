# SPDX-License-Identifier: Apache-2.0
"""Brute-force evaluation that the tests check axe's answers against,
written from the definitions, independent of libaxe: CuTe layouts
(colexicographic coordinates, L(c) = sum c_i d_i, scaled bases as points),
swizzles, and Axe layouts (lexicographic unflattening, L(x) = {D(x) + r +
O}, TIRx's swizzle on `m`). Points are dicts without zero entries.
"""

import itertools
import os
import random
import zlib


from axe.cute import ComposedLayout, Layout, ScaledBasis, Swizzle


def seeded(name):
    """A Random seeded from $AXE_TEST_SEED, or else from a fixed default
    derived from "name" (so a run is deterministic); the seed is printed."""
    seed = int(os.environ.get("AXE_TEST_SEED", zlib.crc32(name.encode())))
    print(f"{name}: seed {seed} (AXE_TEST_SEED={seed} replays)")
    return random.Random(seed)


def leaves(t):
    if isinstance(t, tuple):
        return [x for e in t for x in leaves(e)]
    return [t]


def add_point(p, key, v):
    if v:
        p[key] = p.get(key, 0) + v
        if not p[key]:
            del p[key]


def cute_eval(shape, stride, idx):
    """L(idx) of ``shape:stride`` (idx colex-unflattened, the last leaf
    absorbing the rest); an int, or a point {modes: value} with scaled
    bases."""
    sh, st = leaves(shape), leaves(stride)
    p = {}
    for i, (s, d) in enumerate(zip(sh, st)):
        c = idx if i == len(sh) - 1 else idx % s
        idx = idx // s
        if isinstance(d, ScaledBasis):
            add_point(p, d.modes, c * d.value)
        else:
            add_point(p, (), c * d)
    if set(p) <= {()}:
        return p.get((), 0)
    return p


def swizzle(bits, base, shift, x):
    yyy = ((1 << bits) - 1) << (base + max(0, shift))
    y = x & yyy
    return x ^ (y >> shift if shift >= 0 else y << -shift)


def value_of(obj, idx):
    """obj(idx) for a Layout, a Swizzle or a ComposedLayout with a swizzle
    outer (a layout outer goes through the library's evaluation)."""
    if isinstance(obj, Layout):
        return cute_eval(obj.shape, obj.stride, idx)
    if isinstance(obj, Swizzle):
        return swizzle(obj.bits, obj.base, obj.shift, idx)
    if isinstance(obj.layoutB, Swizzle) and isinstance(obj.offset, int):
        v = cute_eval(obj.layoutA.shape, obj.layoutA.stride, idx)
        sw = obj.layoutB
        return swizzle(sw.bits, sw.base, sw.shift, obj.offset + v)
    return obj(idx)


def size_of(obj):
    if isinstance(obj, Swizzle):
        return obj.size()
    if isinstance(obj, ComposedLayout):
        return size_of(obj.layoutA)
    n = 1
    for s in leaves(obj.shape):
        n *= s
    return n


def same_function(a, b, n):
    return all(value_of(a, i) == value_of(b, i) for i in range(n))


def profile(obj):
    """The shape profile with rank-1 wrappers and size-1 leaves inside
    tuples removed (the vectors' `layout` comparison)."""
    if isinstance(obj, ComposedLayout):
        obj = obj.layoutA
    if isinstance(obj, Swizzle):
        return "sw"
    return _norm(obj.shape)


def _norm(t):
    if not isinstance(t, tuple):
        return t
    kids = [_norm(e) for e in t if not (isinstance(e, int) and e == 1)]
    if len(kids) == 1:
        return kids[0]
    return tuple(kids)


# ---- Axe layouts -------------------------------------------------------

def _addr(sw, m):
    per, blen, atom, inner = sw
    x, low = m >> per, m & ((1 << per) - 1)
    mask = (1 << blen) - 1
    if inner:
        x ^= (x & (mask << atom)) >> atom
    else:
        x ^= (x & mask) << atom
    return (x << per) + low


def axe_set(lay, x):
    """L(x) = {D(x) + r + O : r in R} as a sorted list of frozen points."""
    shard, rep, off = lay.shard, lay.replica, lay.offset
    base = {}
    for k in range(len(shard) - 1, -1, -1):
        e, s, a = shard[k]
        d = x if k == 0 else x % e
        x = x if k == 0 else x // e
        add_point(base, a, d * s)
    for a, v in off.items():
        add_point(base, a, v)
    out = []
    for r in itertools.product(*[range(e) for e, _, _ in rep]):
        p = dict(base)
        for (e, s, a), ri in zip(rep, r):
            add_point(p, a, ri * s)
        if lay.swizzle is not None:
            add_point(p, "m", _addr(lay.swizzle, p.get("m", 0)) -
                      p.get("m", 0))
        out.append(tuple(sorted(p.items())))
    return sorted(out)


def same_axe_function(a, b):
    n = a.size()
    return n == b.size() and all(axe_set(a, x) == axe_set(b, x)
                                 for x in range(n))


def random_layout(rng, max_leaves=4, max_extent=6, max_stride=40):
    """A random integer CuTe layout, at most "max_leaves" leaves, nested
    at random."""
    n = rng.randint(1, max_leaves)
    sh = [rng.randint(1, max_extent) for _ in range(n)]
    st = [rng.randint(0, max_stride) for _ in range(n)]
    shape, stride = _nest(rng, sh, st)
    return Layout(shape, stride)


def _nest(rng, sh, st):
    if len(sh) == 1 and rng.random() < 0.6:
        return sh[0], st[0]
    out_s, out_d, i = [], [], 0
    while i < len(sh):
        k = rng.randint(1, len(sh) - i)
        if k == len(sh) and i == 0:
            out_s.extend(sh)
            out_d.extend(st)
            break
        s, d = _nest(rng, sh[i:i + k], st[i:i + k])
        out_s.append(s)
        out_d.append(d)
        i += k
    return tuple(out_s), tuple(out_d)


def random_compact(rng, max_leaves=4, max_extent=5, gaps=False):
    """A random injective layout: a permutation of compact strides; with
    "gaps", each stride also multiplied by a random factor 1..3 (an
    injective layout whose image need not be contiguous)."""
    n = rng.randint(1, max_leaves)
    sh = [rng.randint(1, max_extent) for _ in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    st, acc = [0] * n, 1
    for i in order:
        if gaps:
            acc *= rng.randint(1, 3)
        st[i] = acc
        acc *= sh[i]
    shape, stride = _nest(rng, sh, st)
    return Layout(shape, stride)


