# SPDX-License-Identifier: Apache-2.0
"""Rendering from Python equals `axe render` for the same layout text and
options (CuTe, swizzled composed and Axe layouts; text, svg, tex, html;
grid, tv, physical and banks views), Jupyter's _repr_svg_ is the SVG, and a
picture that cannot be drawn raises AxeError with the library's reason."""

import subprocess

import pytest

import axe
from axecli import cli
import axe.cute as cute
from axe import AxeError


CASES = [
    ("(4,8):(1,4)", {}),
    ("(4,8):(1,4)", {"fmt": "svg"}),
    ("((2,2),(4,2)):((1,8),(2,16))", {"fmt": "tex"}),
    ("((4,8),(2,2)):((32,1),(16,8))", {"view": "tv", "shape": (8, 16)}),
    ("((4,8),2):((16,1),8)", {"view": "tv", "shape": (8, 8),
                              "fmt": "svg"}),
    ("Sw<3,3,3> o 0 o (8,64):(64,1)", {"view": "banks", "fmt": "svg",
                                       "access": "32:8"}),
    ("Sw<3,4,3> o 0 o (8,64):(64,1)", {"fmt": "html"}),
    ("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp",
     {"shape": [8, 16], "color_by": "warp", "fmt": "svg"}),
    ("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp",
     {"shape": [8, 16], "color_by": "warp"}),
    ("S[(2,4,2,8):(1@gpuid,8,2@gpuid,1)]", {"shape": [8, 16],
                                             "view": "physical"}),
]


def cli_args(text, kw):
    args = [cli(), "render", text, "--color=never",
            "--format", kw.get("fmt", "text"), "--as", kw.get("view",
                                                             "grid")]
    if "shape" in kw:
        s = kw["shape"]
        args += ["--shape", ("(%s)" if isinstance(s, tuple) else "[%s]")
                 % ",".join(map(str, s))]
    if "color_by" in kw:
        args += ["--color-by", kw["color_by"]]
    if "access" in kw:
        args += ["--access", kw["access"]]
    return args


@pytest.mark.parametrize("text,kw", CASES)
def test_render_equals_cli(text, kw):
    want = subprocess.run(cli_args(text, kw), check=True,
                          capture_output=True, text=True).stdout
    obj = axe.layout(text)
    opts = dict(kw, fmt=kw.get("fmt", "text"), title=text)
    if "access" in opts:
        opts["access"] = axe.layout(opts["access"])
    assert obj.render(**opts) == want


def test_repr_svg():
    lay = cute.Layout((4, 8), (1, 4))
    svg = lay._repr_svg_()
    assert svg.startswith(("<?xml", "<svg")) and svg == lay.render("svg")
    assert ">28<" in svg and "(4,8):(1,4)" in svg
    t = axe.layout("S[(8,4):(4,1)]")
    assert t._repr_svg_() == t.render("svg")


def test_repr_html_is_the_interactive_page_in_an_iframe():
    import html
    import re
    for obj in (cute.Layout((4, 8), (1, 4)), axe.layout("S[(8,4):(4,1)]"),
                axe.layout("Sw<3,4,3> o 0 o (8,64):(64,1)")):
        frame = obj._repr_html_()
        m = re.fullmatch(r'<iframe srcdoc="([^"]*)" [^>]*></iframe>', frame)
        assert m, frame[:80]
        assert html.unescape(m.group(1)) == obj.render("html")
        assert "<script>" in obj.render("html")
    big = cute.Layout((512, 512), (1, 512))
    assert big._repr_html_() is None and big._repr_svg_() is None


def test_render_errors():
    with pytest.raises(AxeError) as e:
        axe.layout("S[(8,4):(4,1)]").render("svg", color_by="nosuchaxis")
    assert e.value.status == "INVALID"
    with pytest.raises(AxeError) as e:
        cute.Layout((512, 512), (1, 512)).render("text")
    assert e.value.status == "CAPACITY" and "slic" in e.value.reason
    with pytest.raises(AxeError) as e:
        axe.layout("S[(8,4):(4,1)]").render("png")
    assert e.value.status == "INVALID"
    with pytest.raises(AxeError):
        axe.layout("S[(8,4):(4,1)]").render("svg", view="tv")
