# SPDX-License-Identifier: Apache-2.0
"""Mapping expressions <-> Axe layouts and tiles at a start, from Python,
against the CLI (`axe map convert`, `axe convert --to mapping --holes`,
`axe map tile-at`, `axe batch`) and by brute force: the default tensor
axes are the axes the expression's normal form names (spec §10, as the
CLI), a tensor-axes list naming an axis twice is refused, a layout with
holes becomes an expression with padding whose map is the layout's, and
a tile's view plus its offset holds exactly the source cells whose index
digit lies in [start, start + len)."""

import json
import subprocess

import pytest

import axe
from axe import AxeError
from axe.mapping import LinearCombination, MappingExpression, Padding, to_axe

import oracle
from axecli import cli

AB = "axes![A = 8, B = 512]"


def run_cli(*args):
    """(exit status, stdout without the newline) of `axe ARGS`."""
    r = subprocess.run([cli(), *args], capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


def batch(op, args):
    req = json.dumps({"id": 1, "op": op, "args": args})
    r = subprocess.run([cli(), "batch"], input=req + "\n",
                       capture_output=True, text=True)
    return json.loads(r.stdout)


# ---- default tensor axes (spec §10) ----------------------------------------

CONVERT = ["m![B]", "m![A / 8, B]", "m![B, 2]", "m![B, A]",
           "m![B / 64, B % 32, B / 32 % 2]", "m![A, B]"]


def test_default_tensor_axes_are_those_the_normal_form_names():
    # A is declared but m![B] never reaches it: B alone is the tensor.
    e = axe.layout("m![B]", axes=AB)
    assert str(e.to_axe()) == "S[512:1]"
    assert str(axe.layout("m![A / 8, B]", axes=AB).to_axe()) == "S[512:1]"
    for text in CONVERT:
        rc, out = run_cli("map", "convert", "--axes", AB, text)
        assert rc == 0, (text, out)
        assert str(axe.layout(text, axes=AB).to_axe()) == out, text


def test_default_tensor_axes_with_holes_as_the_cli():
    text = "m![A, B # 1024]"
    rc, out = run_cli("map", "convert", "--holes", "--axes", AB, text)
    assert rc == 0 and out == "S[(8,512):(1024,1)]"
    assert str(axe.layout(text, axes=AB).to_axe(holes=True)) == out
    with pytest.raises(AxeError) as err:
        axe.layout(text, axes=AB).to_axe()
    assert err.value.status == "UNSUPPORTED"


def test_default_tensor_axes_of_parts_and_linear_combinations():
    axes = {"A": 4, "B": 8, "C": 2}
    parts = [("m", axe.layout("m![B]", axes=axes)),
             ("slice", axe.layout("m![A]", axes=axes))]
    want = batch("mapping.to_axe_multi",
                 {"axes": axes, "dims": [["m", "m![B]"],
                                         ["slice", "m![A]"]]})
    assert want["ok"] and str(to_axe(parts)) == want["result"]
    lc_axes = {"N": 5, "F": 3, "Z": 4}
    want = batch("mapping.lincomb_to_axe",
                 {"axes": lc_axes, "expr": "$(N:1, F:2)"})
    got = LinearCombination("$(N:1, F:2)", axes=lc_axes).to_axe()
    assert want["ok"] and str(got) == want["result"] == "S[(5,3):(1,2)]"


def test_tensor_axes_naming_an_axis_twice_are_refused():
    axes = {"A": 4, "B": 8}
    want = batch("mapping.to_axe",
                 {"axes": axes, "expr": "m![A, B]",
                  "tensor_axes": ["A", "B", "A"]})
    assert not want["ok"] and want["error"] == "INVALID"
    assert want["message"] == "args.tensor_axes names A twice"
    e = axe.layout("m![A, B]", axes=axes)
    calls = [lambda: e.to_axe(["A", "B", "A"]),
             lambda: to_axe([("m", e)], ["A", "B", "A"]),
             lambda: LinearCombination("$(A:1, B:4)", axes=axes).to_axe(
                 ["A", "B", "A"])]
    for call in calls:
        with pytest.raises(AxeError) as err:
            call()
        assert err.value.status == "INVALID"
        assert err.value.reason == "tensor_axes names A twice"


# ---- layouts with holes -> expressions with padding ------------------------

HOLES = [("S[(4,4):(8,1)]", {"A": 4, "B": 4}),
         ("S[4:2]", {"A": 4}),
         ("S[(4,4):(1,8)]", {"A": 4, "B": 4}),
         ("S[(2,3,4):(40,1,8)]", {"A": 2, "B": 3, "C": 4}),
         ("S[(8,512):(1,8)]", {"A": 8, "B": 512}),
         ("S[(4,2):(3,1)] + R[2:16]", {"A": 4, "B": 2}),
         ("S[(4,4):(1,1)]", {"A": 4, "B": 4}),
         ("S[4:2] + 1", {"A": 4})]


def axes_text(axes):
    return "axes![" + ", ".join(f"{k} = {v}" for k, v in axes.items()) + "]"


def flat(cell, axes):
    x = 0
    for name, size in axes.items():
        x = x * size + cell.get(name, 0)
    return x


def test_from_axe_with_holes_matches_the_cli():
    e = MappingExpression.from_axe(axe.layout("S[(4,4):(8,1)]"),
                                   {"A": 4, "B": 4}, holes=True)
    assert e.notation() == "m![A, B # 8]"
    with pytest.raises(AxeError):
        MappingExpression.from_axe(axe.layout("S[(4,4):(8,1)]"),
                                   {"A": 4, "B": 4})
    for text, axes in HOLES:
        rc, out = run_cli("convert", "--to", "mapping", "--holes", "--axes",
                          axes_text(axes), text)
        try:
            got = MappingExpression.from_axe(axe.layout(text), axes,
                                             holes=True)
        except AxeError as err:
            assert rc == 1, (text, out, err)
            continue
        assert rc == 0, (text, got)
        assert f"{got.notation()} over {axes_text(axes)}" == out, text


def test_from_axe_with_holes_keeps_the_map():
    converted = 0
    for text, axes in HOLES:
        lay = axe.layout(text)
        try:
            e = MappingExpression.from_axe(lay, axes, holes=True)
        except AxeError:
            continue
        held = {}
        for x in range(lay.size()):
            for q in oracle.axe_set(lay, x):
                held.setdefault(dict(q).get("m", 0), []).append(x)
        for p in range(e.size()):
            c = e.map(p)
            if isinstance(c, Padding):
                assert p not in held, (text, p, c)
            else:
                assert held.get(p) == [flat(c, axes)], (text, p, c)
        assert all(p < e.size() for p in held), text
        back = e.to_axe(list(axes), holes=True)
        assert oracle.same_axe_function(back, lay), (text, str(back))
        converted += 1
    assert converted >= 5


# ---- the tile at a start ---------------------------------------------------

# (axes, source, index, (axis, mu, n) of the index digit, len, start)
TILES = [(AB, "m![A, B]", "m![B / 32]", ("B", 32, 16), 2, 3),
         (AB, "m![B, A]", "m![A / 2 % 2]", ("A", 2, 2), 1, 1),
         (AB, "m![A, B]", "m![A]", ("A", 1, 8), 4, 4),
         ("axes![A = 8, B = 16]", "m![A, B, 2]", "m![B % 4]", ("B", 1, 4),
          2, 2),
         ("axes![A = 4, B = 16]", "m![B / 4, A, B % 4]", "m![B / 4]",
          ("B", 4, 4), 3, 1)]


def cell_key(c):
    """A live cell as a hashable key, zero coordinates dropped."""
    return tuple(sorted((k, v) for k, v in c.items() if v != 0))


def test_tile_view_at_matches_the_cli():
    e = axe.layout("m![A, B]", axes=AB)
    view, offset = e.tile_view_at("m![B / 32]", 2, 3)
    assert view.notation() == "m![A, B / 32 = 2 # 16, B % 32]"
    assert offset == {"B": 96}
    for axes, src, index, _, length, start in TILES:
        for write in (False, True):
            args = ["map", "tile-at", "--axes", axes, src, index,
                    str(length), str(start)]
            rc, out = run_cli(*(args[:2] + ["--write"] + args[2:]
                                if write else args))
            assert rc == 0, (src, index, out)
            want = json.loads(out)
            view, offset = axe.layout(src, axes=axes).tile_view_at(
                index, length, start, write=write)
            assert view.notation() == want["view"], (src, index)
            assert offset == want["offset"], (src, index)


def test_tile_view_at_holds_the_cells_of_its_range():
    for axes, src, index, (x, mu, n), length, start in TILES:
        e = axe.layout(src, axes=axes)
        view, offset = e.tile_view_at(index, length, start)
        assert view.size() == e.size()
        got = []
        for p in range(view.size()):
            c = view.map(p)
            if isinstance(c, dict):
                got.append({k: c.get(k, 0) + offset.get(k, 0)
                            for k in set(c) | set(offset)})
        want = [c for c in (e.map(p) for p in range(e.size()))
                if start <= c.get(x, 0) // mu % n < start + length]
        assert sorted(map(cell_key, got)) == sorted(map(cell_key, want)), \
            (src, index)


def test_tile_view_at_refuses_a_start_past_the_index():
    e = axe.layout("m![A, B]", axes=AB)
    rc, out = run_cli("map", "tile-at", "--axes", AB, "m![A, B]", "m![A]",
                      "4", "5")
    assert rc == 1
    with pytest.raises(AxeError) as err:
        e.tile_view_at("m![A]", 4, 5)
    assert err.value.status == "DOMAIN"
    assert "start 5 + len 4 exceeds the index size 8" in err.value.reason


def test_chains_over_a_composite_at_factor_boundaries_convert():
    """Issue 12: `map equal` proves m![[A, B] % 512, [A, B] / 512] equal
    to m![B, A]; it converts to that layout, in Python, the CLI and batch,
    and the layout holds every position (brute force)."""
    text = "m![[A, B] % 512, [A, B] / 512]"
    e = axe.layout(text, axes=AB)
    assert e.equivalent(axe.layout("m![B, A]", axes=AB))
    lay = e.to_axe()
    assert str(lay) == str(axe.layout("m![B, A]", axes=AB).to_axe())
    assert run_cli("map", "convert", "--axes", AB, text) == (0, str(lay))
    want = batch("mapping.to_axe", {"expr": text,
                                     "axes": {"A": 8, "B": 512}})
    assert want["ok"] and want["result"] == str(lay)
    for p in range(0, 4096, 37):
        cell = e.map(p)
        x = cell.get("A", 0) * 512 + cell.get("B", 0)
        assert lay.apply(x) == {"m": p}, (p, cell)
