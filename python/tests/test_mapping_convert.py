# SPDX-License-Identifier: Apache-2.0
"""Mapping expressions -> Axe layouts from Python, against the CLI (`axe
map convert`, `axe batch`): the default tensor axes are the axes the
expression's normal form names (spec §10, as the CLI), and a tensor-axes
list naming an axis twice is refused."""

import json
import os
import subprocess

import pytest

import axe
from axe import AxeError
from axe.mapping import LinearCombination, to_axe

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
AB = "axes![A = 8, B = 512]"


def cli():
    for cand in (os.environ.get("AXE_CLI"),
                 os.path.join(ROOT, "build", "dev", "axe"),
                 os.path.join(ROOT, "build", "release", "axe")):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.skip("no axe CLI (build/dev/axe; set AXE_CLI) to compare with")


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
