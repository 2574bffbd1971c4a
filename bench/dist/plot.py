#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The plot of bench/dist for docs/bench.md ("Distributed exchanges").

Reads the table bench/dist/run.sh prints (lines `case ranks bytes
generated_us hand_us hand/generated naive_us path`; lines starting with
'#' and MISMATCH lines are skipped) and writes an SVG: per case and rank
count, one bar per size of hand_us / generated_us (>= 1: the generated
exchange was as fast or faster), on a log scale, with the issue's goals
(0.95 for one standard collective, 0.9 for the Alltoallv reshardings) as
lines. Python's standard library only.

    python3 bench/dist/plot.py RESULTS [OUT.svg]
"""
import math
import sys

CASES = ["allgather", "reduce_scatter", "allreduce", "bcast",
         "block_cyclic", "transpose"]
COLORS = ["#4c78a8", "#f58518", "#54a24b", "#b279a2"]
W, H = 880, 420
LEFT, RIGHT, TOP, BOTTOM = 60, 20, 40, 90
LO, HI = 0.1, 20.0  # ratio axis (log)


def read(path):
    """{(case, ranks): {bytes: ratio}} from run.sh's table."""
    rows = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            p = line.split()
            if not p or p[0].startswith("#") or len(p) < 8:
                continue
            if p[0] == "gemm_rs":  # (c): gemm_rs.sh's table, not plotted
                continue
            if p[0] not in CASES:
                raise SystemExit(f"{path}: unknown case {p[0]!r}")
            ratio = float(p[5])
            if ratio <= 0:
                raise SystemExit(f"{path}: ratio {p[5]} of {p[0]}")
            rows.setdefault((p[0], int(p[1])), {})[int(p[2])] = ratio
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def size_text(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def y_of(r):
    r = min(max(r, LO), HI)
    frac = (math.log(r) - math.log(LO)) / (math.log(HI) - math.log(LO))
    return TOP + (1 - frac) * (H - TOP - BOTTOM)


def svg(rows, title):
    ranks = sorted({k[1] for k in rows})
    sizes = sorted({b for v in rows.values() for b in v})
    groups = [(c, r) for c in CASES for r in ranks if (c, r) in rows]
    gw = (W - LEFT - RIGHT) / len(groups)
    bw = gw * 0.8 / len(sizes)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" '
           f'height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="18" text-anchor="middle" '
           f'font-size="13">{title}</text>']
    for t in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20):
        y = y_of(t)
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" '
                   f'y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{t:g}</text>')
    out.append(f'<text x="14" y="{(TOP + H - BOTTOM) / 2}" text-anchor='
               f'"middle" transform="rotate(-90 14 {(TOP + H - BOTTOM) / 2})">'
               'hand / generated (log)</text>')
    for i, (case, r) in enumerate(groups):
        x0 = LEFT + i * gw + gw * 0.1
        goal = 0.9 if case in ("block_cyclic", "transpose") else 0.95
        out.append(f'<line x1="{x0:.1f}" x2="{x0 + gw * 0.8:.1f}" '
                   f'y1="{y_of(goal):.1f}" y2="{y_of(goal):.1f}" '
                   'stroke="#d62728" stroke-dasharray="3,2"/>')
        for j, b in enumerate(sizes):
            v = rows[(case, r)].get(b)
            if v is None:
                continue
            y, y1 = y_of(v), y_of(1)
            out.append(f'<rect x="{x0 + j * bw:.1f}" y="{min(y, y1):.1f}" '
                       f'width="{bw * 0.9:.1f}" height="{abs(y1 - y):.1f}" '
                       f'fill="{COLORS[j % len(COLORS)]}">'
                       f'<title>{case} {r} ranks {size_text(b)}: '
                       f'{v:g}</title></rect>')
        out.append(f'<text x="{x0 + gw * 0.4:.1f}" y="{H - BOTTOM + 14}" '
                   f'text-anchor="middle">{r}</text>')
    for c in CASES:  # case names under their groups
        idx = [i for i, g in enumerate(groups) if g[0] == c]
        if idx:
            xm = LEFT + (idx[0] + idx[-1] + 1) / 2 * gw
            out.append(f'<text x="{xm:.1f}" y="{H - BOTTOM + 30}" '
                       f'text-anchor="middle">{c}</text>')
    out.append(f'<text x="{LEFT}" y="{H - BOTTOM + 14}" text-anchor="end">'
               'ranks</text>')
    y = H - 22
    for j, b in enumerate(sizes):
        x = LEFT + j * 110
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" '
                   f'fill="{COLORS[j % len(COLORS)]}"/>')
        out.append(f'<text x="{x + 14}" y="{y}">{size_text(b)}</text>')
    x = LEFT + len(sizes) * 110
    out.append(f'<line x1="{x}" x2="{x + 18}" y1="{y - 4}" y2="{y - 4}" '
               'stroke="#d62728" stroke-dasharray="3,2"/>')
    out.append(f'<text x="{x + 22}" y="{y}">goal (0.95 one collective, '
               '0.9 Alltoallv); bars start at 1</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) not in (2, 3):
        raise SystemExit("usage: plot.py RESULTS [OUT.svg]")
    text = svg(read(argv[1]), "bench/dist: generated exchange vs the same "
               "exchange by hand (µs ratio)")
    if len(argv) == 3:
        with open(argv[2], "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
