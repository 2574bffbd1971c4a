# SPDX-License-Identifier: Apache-2.0
"""Python ints that do not fit the C parameter they are passed to raise
AxeError OVERFLOW naming the argument; ctypes would otherwise truncate them
silently (Swizzle(3 + 2**32, 4, 3) used to build Sw<3,4,3>). One test per
call that takes a raw C int or int64 from the caller."""

import pytest

import axe
import axe.cute as cute
from axe import AxeError, TileLayout
from axe.cute import Layout

BIG32 = [1 << 31, -(1 << 31) - 1, 3 + (1 << 32)]
BIG64 = [1 << 63, -(1 << 63) - 1, 16 + (1 << 64)]


def overflows(fn, what):
    with pytest.raises(AxeError) as e:
        fn()
    assert e.value.status == "OVERFLOW" and what in e.value.reason, e.value


@pytest.mark.parametrize("v", BIG32 + BIG64)
def test_swizzle(v):
    assert cute.Swizzle(3, 4, 3)(65) == axe.layout("Sw<3,4,3>")(65)
    overflows(lambda: cute.Swizzle(v, 4, 3), "bits")
    overflows(lambda: cute.Swizzle(3, v, 3), "base")
    overflows(lambda: cute.Swizzle(3, 4, v), "shift")


@pytest.mark.parametrize("v", BIG64)
def test_recast_layout(v):
    a = Layout(8, 1)
    assert str(cute.recast_layout(a, 16, 8)) == "16:1"
    overflows(lambda: cute.recast_layout(a, v, 8), "old_bits")
    overflows(lambda: cute.recast_layout(a, 16, v), "new_bits")
    sw = axe.layout("Sw<3,4,3> o 0 o (8,64):(64,1)")
    overflows(lambda: cute.recast_layout(sw, v, 8), "old_bits")


@pytest.mark.parametrize("v", BIG32)
def test_get_path(v):
    overflows(lambda: cute.get(Layout((2, 3), (1, 2)), v), "mode index")


@pytest.mark.parametrize("v", BIG32)
def test_broadcast_permute(v):
    lay = axe.layout("S[(2,3):(3,1)]")
    overflows(lambda: lay.broadcast(2, v), "position")
    overflows(lambda: lay.permute_dims([v, 0]), "perm")
    overflows(lambda: lay.permute_by_groups([0, 1, v], [1, 0]), "seps")
    overflows(lambda: lay.permute_by_groups([0, 1, 2], [v, 0]), "perm")


@pytest.mark.parametrize("v", BIG32)
def test_tirx_constructors_int(v):
    overflows(lambda: TileLayout.tmem_datapath("A", 128, 64, v), "sub_slab")
    overflows(lambda: TileLayout.tmem_mma_operand("D", [128, 64], "f32",
                                                  128, cta_group=v),
              "cta_group")
    overflows(lambda: TileLayout.mma_shared("f16", v, [64, 64]),
              "swizzle_mode")


@pytest.mark.parametrize("v", BIG64)
def test_tirx_constructors_int64(v):
    overflows(lambda: TileLayout.tmem_datapath("A", v, 64), "rows")
    overflows(lambda: TileLayout.tmem_datapath("A", 128, v), "cols")
    overflows(lambda: TileLayout.tmem_mma_operand("D", [128, 64], "f32", v),
              "M")
    overflows(lambda: TileLayout.wg_local(v), "cols")
    overflows(lambda: TileLayout.wg_local(8, v), "rows")


@pytest.mark.parametrize("v", BIG64)
def test_mapping_ints(v):
    e = axe.layout("m![A, B]", axes={"A": 8, "B": 512})
    overflows(lambda: e.map(v), "position")
    overflows(lambda: axe.layout("m![A]", axes={"A": v}), "size of axis A")
    overflows(lambda: e.tile("m![B]", v), "length")
