# SPDX-License-Identifier: Apache-2.0
"""Packaging (python/_axe_build.py, python/setup.py): the sdist carries the
C sources it builds from, the build requirements add PyPI's cmake / ninja
only where PATH lacks them, and setup.py without the C sources stops with
a message saying what is missing. Needs the source tree (python/)."""

import os
import shutil
import subprocess
import sys
import tarfile

import pytest

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.path.isfile(os.path.join(PYDIR, "_axe_build.py")):
    pytest.skip("not run from the source tree (python/_axe_build.py)",
                allow_module_level=True)


def backend(hook, *args, path=None):
    """The result (repr) of _axe_build.<hook>(*args) run in python/."""
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    code = (f"import sys; sys.path.insert(0, '.'); import _axe_build; "
            f"print(repr(_axe_build.{hook}(*{args!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=PYDIR, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_sdist_carries_the_c_sources(tmp_path):
    name = eval(backend("build_sdist", str(tmp_path)))
    with tarfile.open(tmp_path / name) as tar:
        members = {m.split("/", 1)[1] for m in tar.getnames() if "/" in m}
    for need in ("pyproject.toml", "setup.py", "_axe_build.py",
                 "axe/_fast.c", "axe/py.typed", "csrc/CMakeLists.txt",
                 "csrc/include/axe/version.h", "csrc/src/cute/cute_compose.c",
                 "csrc/cmake/axe.pc.in"):
        assert need in members, need


def fake_tool(d, name, text):
    p = d / name
    p.write_text(f"#!/bin/sh\necho '{text}'\n")
    p.chmod(0o755)


def test_build_requires_add_cmake_and_ninja_only_when_missing(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    req = eval(backend("build_tools", path=str(empty)))
    assert req == ["cmake>=3.25", "ninja"]
    old = tmp_path / "old"
    old.mkdir()
    fake_tool(old, "cmake", "cmake version 3.10.2")
    fake_tool(old, "make", "GNU Make 4.3")
    assert eval(backend("build_tools", path=str(old))) == ["cmake>=3.25"]
    new = tmp_path / "new"
    new.mkdir()
    fake_tool(new, "cmake", "cmake version 3.28.3")
    fake_tool(new, "ninja", "1.11.1")
    assert eval(backend("build_tools", path=str(new))) == []
    full = eval(backend("get_requires_for_build_wheel", path=str(empty)))
    assert "cmake>=3.25" in full and "ninja" in full
    assert "cmake>=3.25" not in eval(
        backend("get_requires_for_build_wheel", path=str(new)))


def test_setup_without_c_sources_says_what_is_missing(tmp_path):
    alone = tmp_path / "pkg"
    alone.mkdir()
    shutil.copy(os.path.join(PYDIR, "setup.py"), alone)
    env = {k: v for k, v in os.environ.items() if k != "AXE_SOURCE_DIR"}
    out = subprocess.run([sys.executable, "setup.py", "--version"],
                         cwd=alone, env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "C sources" in out.stderr and "AXE_SOURCE_DIR" in out.stderr
