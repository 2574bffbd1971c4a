# SPDX-License-Identifier: Apache-2.0
"""Brute-force bank counts for tests/compiler_synth.sh, independent of the
compiler: a shared layout's text as `axe synth` prints it
(`Swizzle<M,B,S>(S[(e0,e1,...):(s0,s1,...)])`, or without the swizzle;
every iter on the memory axis m), and warp-wide accesses given as the
logical coordinates of each lane's elements. The bank model of
docs/compiler.md ("Shared-memory bank conflicts"): 32 banks of 4 bytes;
lanes of up to 4 bytes in one phase of 32, of 8 bytes in 2 phases of 16,
of 16 bytes in 4 phases of 8; ways = the most distinct 4-byte words one
bank serves in one phase."""
import re


def parse_layout(text, shape):
    """The map (row, col, ...) -> element address of a layout's text."""
    text = text.replace(" ", "")
    sw = None
    m = re.fullmatch(r"Swizzle<(\d+),(\d+),(\d+)>\((.*)\)", text)
    if m:
        sw = tuple(int(v) for v in m.group(1, 2, 3))
        text = m.group(4)
    m = re.fullmatch(r"S\[\(?([\d,]+)\)?:\(?([\d,]+)\)?\]", text)
    if not m:
        raise ValueError("not a layout on m: " + text)
    ext = [int(v) for v in m.group(1).split(",")]
    std = [int(v) for v in m.group(2).split(",")]

    def addr(coord):
        x = 0
        for c, e in zip(coord, shape):
            x = x * e + c
        a = 0
        for e, s in zip(reversed(ext), reversed(std)):
            a += x % e * s
            x //= e
        if sw is not None:
            mm, b, s = sw
            a ^= ((a >> (mm + s)) & ((1 << b) - 1)) << mm
        return a

    return addr


def ways(addr, lanes, elem_bytes, vec=1, step=None, bits=None):
    """Ways of one access (counts' first)."""
    return counts(addr, lanes, elem_bytes, vec, step, bits)[0]


def counts(addr, lanes, elem_bytes, vec=1, step=None, bits=None):
    """Ways and wavefronts (the sum over phases of each phase's ways) of
    one access: lanes[t] the coordinate of lane t's first
    element (None: inactive); "vec" elements per lane along "step" (a
    coordinate increment), at consecutive addresses or an error. With
    "bits" (packed i4: 4) elements are that many bits: a lane's access
    is vec * bits / 8 bytes from byte (address * bits / 8), a lone
    nibble its byte."""
    bits = 8 * elem_bytes if bits is None else bits
    width = max(1, vec * bits // 8)
    per = 32 if width <= 4 else 128 // width
    worst = fronts = 0
    for p0 in range(0, 32, per):
        banks = {}
        for t in range(p0, p0 + per):
            if t >= len(lanes) or lanes[t] is None:
                continue
            first = addr(lanes[t])
            for e in range(1, vec):
                c = tuple(x + e * d for x, d in zip(lanes[t], step))
                if addr(c) != first + e:
                    raise ValueError("a vector is not contiguous")
            if bits < 8 and vec > 1 and first * bits % 8 != 0:
                raise ValueError("a packed vector starts inside a byte")
            b0 = first * bits // 8
            for w in range(b0 // 4, (b0 + width - 1) // 4 + 1):
                banks.setdefault(w % 32, set()).add(w)
        most = max([0] + [len(v) for v in banks.values()])
        worst = max(worst, most)
        fronts += most
    return worst, fronts
