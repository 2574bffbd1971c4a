#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A typical pycute script, unchanged except for its import line: run it
with `--pycute` to use NVIDIA's pycute, without to use axe."""

import sys

if "--pycute" in sys.argv:
    import pycute
else:
    import axe.cute as pycute


Layout = pycute.Layout
# A 16x8 tile of a row-major 128x64 shared-memory buffer, split by 4x2.
smem = Layout((128, 64), (64, 1))
tiles = pycute.zipped_divide(smem, (Layout(16, 1), Layout(8, 1)))
print("tiles       ", tiles)
print("tile 3      ", tiles[0], "at offset", tiles(0, 3))
thr = Layout((4, 8), (8, 1))
print("composition ", pycute.composition(Layout((8, 8), (8, 1)), thr))
print("complement  ", pycute.complement(Layout((4, 8), (1, 8)), 128))
print("coalesce    ", pycute.coalesce(Layout(((2, 2), (4, 2)),
                                             ((1, 8), (2, 16)))))
print("right_inv   ", pycute.right_inverse(Layout((4, 8), (8, 1))))
print("product     ", pycute.logical_product(Layout((3, 4), (4, 1)),
                                              Layout((2, 5), (1, 2))))
print("size/cosize ", pycute.size(smem), pycute.cosize(smem))
print("slice       ", smem(5, None))
