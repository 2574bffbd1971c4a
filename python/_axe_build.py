# SPDX-License-Identifier: Apache-2.0
"""The package's build backend: setuptools' (setuptools.build_meta), with
the build tools added to the build requirements only where the machine
lacks them: PyPI's ``cmake`` when no ``cmake`` >= 3.25 is on PATH, and
PyPI's ``ninja`` when there is neither ``make`` nor ``ninja`` (setup.py
then generates Ninja files). So ``pip install ./python`` works on a
machine without CMake, and uses the system's CMake where there is one."""

import re
import shutil
import subprocess

from setuptools import build_meta as _meta
from setuptools.build_meta import *  # noqa: F401,F403 (the PEP 517 hooks)

CMAKE_MIN = (3, 25)


def cmake_version(exe="cmake"):
    """(major, minor) of "exe" on PATH, or None."""
    path = shutil.which(exe)
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"version (\d+)\.(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def build_tools():
    """The PyPI packages the build needs because PATH lacks them."""
    need = []
    v = cmake_version()
    if v is None or v < CMAKE_MIN:
        need.append("cmake>=%d.%d" % CMAKE_MIN)
    if shutil.which("make") is None and shutil.which("ninja") is None:
        need.append("ninja")
    return need


def get_requires_for_build_wheel(config_settings=None):
    return _meta.get_requires_for_build_wheel(config_settings) + build_tools()


def get_requires_for_build_editable(config_settings=None):
    return (_meta.get_requires_for_build_editable(config_settings) +
            build_tools())
