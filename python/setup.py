# SPDX-License-Identifier: Apache-2.0
"""Build step of the axe package: configure and build libaxe with CMake
from the source tree this directory lies in (or $AXE_SOURCE_DIR), and put
the shared library inside the package, so the wheel works without the
source tree, and build the extension axe._fast (the hot operations,
linked statically against libaxe). The version is include/axe/version.h's."""

import os
import re
import shutil
import subprocess
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("AXE_SOURCE_DIR", os.path.dirname(HERE))


def axe_version():
    with open(os.path.join(SOURCE, "include", "axe", "version.h")) as f:
        text = f.read()
    parts = [re.search(rf"#define AXE_VERSION_{p} +(\d+)", text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def build_libaxe(build):
    """Configure and build libaxe (shared and static, Release) in "build";
    (path of libaxe.so, path of libaxe.a)."""
    subprocess.check_call(["cmake", "-S", SOURCE, "-B", build,
                           "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", build, "--target",
                           "axe_shared", "axe_static", "--parallel", "2"])
    return (os.path.realpath(os.path.join(build, "libaxe.so")),
            os.path.join(build, "libaxe.a"))


class BuildWithLibaxe(build_ext):
    """build_ext that first builds libaxe with CMake, copies libaxe.so
    into the package (the ctypes layer) and links the extension axe._fast
    statically against libaxe.a. The extension is optional: if it does not
    compile (no Python.h), the package falls back to ctypes alone."""

    def run(self):
        build = tempfile.mkdtemp(prefix="axe-cmake-")
        try:
            shared, static = build_libaxe(build)
            dest = os.path.dirname(self.get_ext_fullpath("axe._fast"))
            os.makedirs(dest, exist_ok=True)
            shutil.copyfile(shared, os.path.join(dest, "libaxe.so"))
            for ext in self.extensions:
                ext.extra_objects = [static]
            super().run()
        finally:
            shutil.rmtree(build, ignore_errors=True)


FAST = Extension(
    "axe._fast", sources=["axe/_fast.c"],
    include_dirs=[os.path.join(SOURCE, "include")],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra"],
    libraries=["m"], optional=True)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: platform-specific."""

    def has_ext_modules(self):
        return True


setup(version=axe_version(), cmdclass={"build_ext": BuildWithLibaxe},
      ext_modules=[FAST], distclass=BinaryDistribution)
