# SPDX-License-Identifier: Apache-2.0
"""The public Python API keeps its type hints and docstrings: every public
function, method, property and constructor of axe.cute, axe.tile,
axe.mapping, axe.linear, axe.render, axe.kernel, ``axe.layout`` and
``AxeError``
annotates each parameter (except self/cls/*args/**kwargs) and its return,
every public non-dunder one has a docstring, and mypy (when installed)
finds no error in the package sources."""

import importlib
import inspect
import os
import subprocess
import sys

import pytest

import axe

MODULES = ["axe.cute", "axe.tile", "axe.mapping", "axe.linear",
           "axe.render", "axe.kernel"]
# Dunders that are part of the API (constructors, operators, protocols).
DUNDERS = {"__init__", "__call__", "__getitem__", "__eq__", "__hash__",
           "__len__", "__str__", "__repr__", "__add__", "__rmatmul__"}
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "axe")


def _members(cls):
    """(qualified name, function) of the API methods and properties of
    "cls" defined by the class itself."""
    for name, attr in vars(cls).items():
        if name.startswith("_") and name not in DUNDERS:
            continue
        if isinstance(attr, (staticmethod, classmethod)):
            attr = attr.__func__
        if isinstance(attr, property):
            for fn in (attr.fget, attr.fset):
                if fn is not None:
                    yield f"{cls.__name__}.{name}", fn
        elif inspect.isfunction(attr):
            yield f"{cls.__name__}.{name}", attr


def public_callables():
    """(qualified name, function) of every public callable under test."""
    out = []
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__",
                                               None) != modname:
                continue
            if inspect.isfunction(obj):
                out.append((f"{modname}.{name}", obj))
            elif inspect.isclass(obj):
                out += [(f"{modname}.{q}", f) for q, f in _members(obj)]
    # S[...] and R[...] (instances of a private class), axe.layout,
    # AxeError and version (defined in private modules).
    out += [(f"axe.tile.{q}", f) for q, f in _members(type(axe.S))]
    out += [("axe.layout", axe.layout), ("axe.version", axe.version)]
    out += [(f"axe.{q}", f) for q, f in _members(axe.AxeError)]
    return out


def missing_annotations(fn):
    """The names of the unannotated parts of "fn" ("return" for its
    return type)."""
    sig = inspect.signature(fn)
    missing = []
    for k, p in enumerate(sig.parameters.values()):
        if k == 0 and p.name in ("self", "cls"):
            continue
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.annotation is inspect.Parameter.empty:
            missing.append(p.name)
    if sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def test_checker_sees_a_missing_annotation():
    def bare(self, a, b: int, *args, **kw):
        pass

    def full(self, a: int, *args, **kw) -> None:
        pass

    assert missing_annotations(bare) == ["a", "return"]
    assert missing_annotations(full) == []


def test_callables_found():
    names = {q for q, _ in public_callables()}
    for q in ("axe.cute.composition", "axe.cute.Layout.__init__",
              "axe.cute.Layout.shape", "axe.tile.TileLayout.apply",
              "axe.tile._Maker.__getitem__", "axe.mapping.parse_axes",
              "axe.mapping.MappingExpression.map",
              "axe.linear.LinearLayout.parse", "axe.render.render",
              "axe.layout", "axe.AxeError.__init__"):
        assert q in names, q
    assert len(names) > 150


def test_public_api_is_annotated():
    bad = {q: m for q, f in public_callables()
           if (m := missing_annotations(f))}
    assert not bad, f"unannotated: {bad}"


def test_public_api_has_docstrings():
    documented = {}
    for q, f in public_callables():  # a property's doc is its getter's
        if f.__name__ not in DUNDERS:
            documented[q] = documented.get(q, False) or bool(f.__doc__)
    bad = sorted(q for q, ok in documented.items() if not ok)
    assert not bad, f"no docstring: {bad}"


def test_mypy_finds_no_error(tmp_path):
    try:
        import mypy  # noqa: F401
    except ImportError:
        pytest.skip("mypy is not installed (pip install mypy); the "
                    "annotations were checked by inspection only")
    src = os.path.normpath(SRC)
    if not os.path.isfile(os.path.join(src, "cute.py")):
        pytest.skip(f"no package sources at {src}")
    r = subprocess.run(
        [sys.executable, "-m", "mypy", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "mypy"), src],
        capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
