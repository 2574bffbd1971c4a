# SPDX-License-Identifier: Apache-2.0
"""Triton distributed and shared layouts from Python (axe_linear_to_triton /
axe_linear_from_triton, docs/algebra.md §32): the hand-derived rows of
tests/test_mapping_convert.c (Triton's blocked layout sizePerThread
[1,4], threadsPerWarp [8,4], warpsPerCTA [2,2] on 16x32 and, with a
broadcast warp bit, on 8x32; the mma.m16n8 accumulator) print the texts
derived by hand, agree with `axe convert --to triton` / `--to axe`, and
convert back and forth; layouts with no Triton form, and Triton texts
with no Axe layout, are refused with the library's reason, the CLI's."""

import subprocess

import pytest

import axe
from axecli import cli
from axe import AxeError, LinearLayout


# By hand from Triton's definition (tests/test_mapping_convert.c).
BLOCKED_TEXT = (" - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n"
                " - lane=1 -> (0, 4)\n   lane=2 -> (0, 8)\n"
                "   lane=4 -> (1, 0)\n   lane=8 -> (2, 0)\n"
                "   lane=16 -> (4, 0)\n"
                " - warp=1 -> (0, 16)\n   warp=2 -> (8, 0)\n"
                " - block is a size 1 dimension\n"
                "where out dims are: [dim0 (size 16), dim1 (size 32)]")
BLOCKED_AXE = "S[(2,8,2,4,4):(2@warpid,4@laneid,1@warpid,1@laneid,1@reg)]"
MMA_TEXT = (" - register=1 -> (0, 1)\n   register=2 -> (8, 0)\n"
            " - lane=1 -> (0, 2)\n   lane=2 -> (0, 4)\n"
            "   lane=4 -> (1, 0)\n   lane=8 -> (2, 0)\n"
            "   lane=16 -> (4, 0)\n"
            " - warp is a size 1 dimension\n"
            " - block is a size 1 dimension\n"
            "where out dims are: [dim0 (size 16), dim1 (size 8)]")
MMA_AXE = "S[(2,8,4,2):(2@reg,4@laneid,1@laneid,1@reg)]"
MMA_AXE_MERGED = "S[(2,32,2):(2@reg,1@laneid,1@reg)]"  # lanes (8,4):(4,1)
BCAST_TEXT = (" - register=1 -> (0, 1)\n   register=2 -> (0, 2)\n"
              " - lane=1 -> (0, 4)\n   lane=2 -> (0, 8)\n"
              "   lane=4 -> (1, 0)\n   lane=8 -> (2, 0)\n"
              "   lane=16 -> (4, 0)\n"
              " - warp=1 -> (0, 16)\n   warp=2 -> (0, 0)\n"
              " - block is a size 1 dimension\n"
              "where out dims are: [dim0 (size 8), dim1 (size 32)]")
BCAST_AXE = "S[(8,2,4,4):(4@laneid,1@warpid,1@laneid,1@reg)] + R[2:2@warpid]"

# (Axe layout, shape, Triton text, the Axe layout the text converts to)
ROWS = [(BLOCKED_AXE, [16, 32], BLOCKED_TEXT, BLOCKED_AXE),
        (MMA_AXE, [16, 8], MMA_TEXT, MMA_AXE_MERGED),
        (BCAST_AXE, [8, 32], BCAST_TEXT, BCAST_AXE)]

# (Axe layout, shape, a piece of the reason)
NO_TRITON = [("S[(2,4):(1@m,1@laneid)]", [2, 4],
              "axis laneid beside a memory axis"),
             ("S[(2,4):(1@m,1@smem)]", [2, 4], "two axes are Triton's offset"),
             ("S[(2,4):(1,4)]", [2, 4], "some hardware input holds no"),
             ("S[8:2@laneid]", [2, 4], "some hardware input holds no element"),
             ("S[(2,2):(0@laneid,1@laneid)]", [2, 2], "two elements"),
             ("S[4:1@laneid] + R[2:1@laneid]", [2, 2], "shares bits"),
             ("S[4:1@laneid] + 1@laneid", [2, 2], "maps 0 to 0"),
             ("S[4:1@laneid]", [2, 4], "the shape has 8 elements"),
             ("S[8:1@laneid] + R[2:8]", None, "beside a memory axis")]

# (Triton text, a piece of the reason)
NO_AXE = [(" - register=1 -> (1)\n - lane=1 -> (1)\n"
           "where out dims are: [dim0 (size 2)]",
           "not a basis of the tensor's bits"),
          (" - lane=1 -> (1, 0)\n - block=1 -> (0, 1)\n"
           "where out dims are: [dim0 (size 2), dim1 (size 2)]",
           "disconnected scope chain"),
          (" - lane=1 -> (1, 1)\n   lane=2 -> (1, 0)\n"
           "where out dims are: [dim0 (size 2), dim1 (size 2)]",
           "bases on laneid share bits"),
          (" - offset=1 -> (0, 1)\n   offset=2 -> (0, 1)\n"
           "where out dims are: [dim0 (size 2), dim1 (size 2)]",
           "not a basis of the tensor's bits")]

# Triton shared layouts (inputs offset, block): (Axe layout, shape, the
# text derived by hand, the Axe layout the text converts to). The
# swizzle Swizzle<0,1,1> XORs offset bit 1 into bit 0: offset 2 holds
# the element (1, 1).
SHARED_ROWS = [
    ("S[(2,4):(4,1)]", [2, 4],
     " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (1, 0)\n"
     " - block is a size 1 dimension\n"
     "where out dims are: [dim0 (size 2), dim1 (size 4)]", "S[8:1]"),
    ("S[(2,4):(1@cbx,1)] + R[2:4]", [2, 4],
     " - offset=1 -> (0, 1)\n   offset=2 -> (0, 2)\n   offset=4 -> (0, 0)\n"
     " - block=1 -> (1, 0)\n"
     "where out dims are: [dim0 (size 2), dim1 (size 4)]",
     "S[(2,4):(1@cbx,1)] + R[2:4]"),
    ("Swizzle<0,1,1>(S[(2,2):(2,1)])", [2, 2],
     " - offset=1 -> (0, 1)\n   offset=2 -> (1, 1)\n"
     " - block is a size 1 dimension\n"
     "where out dims are: [dim0 (size 2), dim1 (size 2)]",
     "Swizzle<0,1,1>(S[4:1])")]


def run_cli(*args):
    """(exit status, stdout, stderr) of `axe ARGS`, the final newlines
    cut (Triton's text begins with a space, kept)."""
    r = subprocess.run([cli(), *args], capture_output=True, text=True)
    return r.returncode, r.stdout.rstrip("\n"), r.stderr.rstrip("\n")


def shape_arg(shape):
    return ["--shape", ",".join(map(str, shape))] if shape else []


@pytest.mark.parametrize("layout,shape,text,_", ROWS)
def test_to_triton_is_the_hand_derived_text(layout, shape, text, _):
    tri = LinearLayout.from_axe_distributed(axe.layout(layout), shape)
    assert str(tri) == text
    assert tri.is_distributed
    assert [n for n, _ in tri.ins] == ["register", "lane", "warp", "block"]


@pytest.mark.parametrize("layout,shape,text,_", ROWS)
def test_tile_layout_to_triton_is_the_same_text(layout, shape, text, _):
    assert str(axe.layout(layout).to_triton(shape)) == text


@pytest.mark.parametrize("layout,shape,text,_", ROWS)
def test_to_triton_agrees_with_the_cli(layout, shape, text, _):
    assert run_cli("convert", "--to", "triton", *shape_arg(shape),
                   layout) == (0, text, "")


@pytest.mark.parametrize("_,shape,text,back", ROWS)
def test_triton_text_to_axe_is_the_hand_derived_layout(_, shape, text, back):
    lin = LinearLayout.parse(text)
    assert lin.is_distributed
    assert str(lin.to_axe()) == back
    assert str(lin.to_axe_distributed()) == back
    assert run_cli("convert", "--to", "axe", text) == (0, back, "")


@pytest.mark.parametrize("layout,shape,text,_", ROWS)
def test_round_trips(layout, shape, text, _):
    # Axe -> Triton -> Axe is the same map (the text names it exactly),
    # and Triton -> Axe -> Triton the same text.
    back = LinearLayout.parse(text).to_axe()
    assert str(LinearLayout.from_axe_distributed(back, shape)) == text
    tri = LinearLayout.from_axe_distributed(axe.layout(layout), shape)
    assert str(LinearLayout.from_axe_distributed(tri.to_axe(), shape)) == text


def test_default_shape_is_one_dim_of_the_layout_size():
    lay = "S[(2,2):(1@bx,1@laneid)] + R[2:1@warpid]"
    tri = LinearLayout.from_axe_distributed(axe.layout(lay))
    assert [n for n, _ in tri.outs] == ["dim0"]
    assert tri.outs == [("dim0", 4)]
    assert tri.apply(0, 1, 1, 0) == {"dim0": 1}  # lane 1, warp 1: broadcast
    assert tri.apply(0, 0, 0, 1) == {"dim0": 2}  # block 1
    assert run_cli("convert", "--to", "triton", lay) == (0, str(tri), "")


def test_a_linear_layout_that_is_not_distributed_converts_as_before():
    lin = axe.layout("S[(4,8):(1@laneid,4)]").to_linear()
    assert not lin.is_distributed
    assert str(lin.to_axe()) == "S[(4,8):(1@laneid,4)]"
    with pytest.raises(AxeError) as e:
        lin.to_axe_distributed()
    assert e.value.status == "UNSUPPORTED"
    assert "input index is not register, lane, warp or block" in \
        e.value.reason


@pytest.mark.parametrize("layout,shape,piece", NO_TRITON)
def test_no_triton_layout_gives_the_library_reason(layout, shape, piece):
    with pytest.raises(AxeError) as e:
        LinearLayout.from_axe_distributed(axe.layout(layout), shape)
    assert piece in e.value.reason
    rc, out, err = run_cli("convert", "--to", "triton", *shape_arg(shape),
                           layout)
    assert (rc, out) == (1, "")
    assert err == (f"axe: convert: {e.value.reason} ({e.value.status})")


@pytest.mark.parametrize("text,piece", NO_AXE)
def test_no_axe_layout_gives_the_library_reason(text, piece):
    lin = LinearLayout.parse(text)
    assert lin.is_distributed or lin.is_shared
    with pytest.raises(AxeError) as e:
        lin.to_axe()
    assert piece in e.value.reason
    rc, out, err = run_cli("convert", "--to", "axe", text)
    assert (rc, out) == (1, "")
    assert err == (f"axe: convert: {e.value.reason} ({e.value.status})")


def test_shape_is_checked_as_integers():
    with pytest.raises(TypeError):
        LinearLayout.from_axe_distributed(axe.layout(MMA_AXE), [16, "8"])


@pytest.mark.parametrize("layout,shape,text,back", SHARED_ROWS)
def test_shared_layouts(layout, shape, text, back):
    """A layout onto a memory axis (and cbx) is Triton's shared layout,
    as the CLI gives it, and reads back to the same map."""
    tri = axe.layout(layout).to_triton(shape)
    assert str(tri) == text
    assert tri.is_shared and not tri.is_distributed
    assert [n for n, _ in tri.ins] == ["offset", "block"]
    assert run_cli("convert", "--to", "triton", *shape_arg(shape),
                   layout) == (0, text, "")
    lin = LinearLayout.parse(text)
    assert str(lin.to_axe()) == back
    assert run_cli("convert", "--to", "axe", text) == (0, back, "")
    assert str(axe.layout(back).to_triton(shape)) == text


def test_shared_swizzle_from_cute():
    """CuTe's Sw<3,4,3> o (8,64):(64,1) (a 128-byte swizzled fp16 tile)
    as a Triton shared layout: every offset holds the element the
    swizzled layout puts there (brute force), and it reads back."""
    lay = axe.layout("Sw<3,3,3> o 0 o (8,64):(64,1)")
    tile = axe.TileLayout.from_cute(lay)
    tri = tile.to_triton([64, 8])
    assert tri.is_shared
    for off in range(512):
        d = tri.apply(off, 0)
        x = d["dim0"] * 8 + d["dim1"]
        assert tile.apply(x) == {"m": off}, (off, d)
    assert str(tri.to_axe().to_triton([64, 8])) == str(tri)
