# SPDX-License-Identifier: Apache-2.0
"""Build step of the axe package: configure and build libaxe with CMake
from the C sources ($AXE_SOURCE_DIR, else csrc/ beside this file in an
sdist, else the repository this directory lies in), put the shared library
inside the package, so the wheel works without the source tree, and build
the extension axe._fast (the hot operations, linked statically against
libaxe). The version is include/axe/version.h's. An sdist carries the C
sources it needs in csrc/ (CMakeLists.txt, cmake/, include/, src/)."""

import os
import re
import shutil
import subprocess
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
#: What an sdist carries under csrc/: enough for CMake to build libaxe.
C_SOURCES = ("CMakeLists.txt", "cmake", "include", "src")
#: The CUDA emulation headers, copied into the package (axe/_cuda_emu/)
#: for axe.kernel.compile(..., emulate=True).
EMU_HEADERS = ("compiler_cuda_emu.h", "compiler_cuda_emu_atoms.h")


def find_source():
    """The directory holding libaxe's C sources; SystemExit saying where
    it looked otherwise."""
    tried = [os.environ.get("AXE_SOURCE_DIR"), os.path.join(HERE, "csrc"),
             os.path.dirname(HERE)]
    for d in tried:
        if d and os.path.isfile(os.path.join(d, "include", "axe",
                                             "version.h")):
            return d
    raise SystemExit(
        "axe: libaxe's C sources (CMakeLists.txt, include/axe/version.h, "
        "src/) are not in " + ", ".join(d for d in tried if d) +
        "; build from the repository's python/ directory, from an sdist "
        "made by this setup.py (it carries them in csrc/), or set "
        "AXE_SOURCE_DIR to a checkout of the repository")


SOURCE = find_source()


def axe_version():
    with open(os.path.join(SOURCE, "include", "axe", "version.h")) as f:
        text = f.read()
    parts = [re.search(rf"#define AXE_VERSION_{p} +(\d+)", text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def build_libaxe(build):
    """Configure and build libaxe (shared and static, Release) in "build";
    (path of libaxe.so, path of libaxe.a)."""
    gen = []
    if ("CMAKE_GENERATOR" not in os.environ and shutil.which("make") is None
            and shutil.which("ninja") is not None):
        gen = ["-G", "Ninja"]
    subprocess.check_call(["cmake", "-S", SOURCE, "-B", build,
                           "-DCMAKE_BUILD_TYPE=Release"] + gen)
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
            emu = os.path.join(dest, "_cuda_emu")
            os.makedirs(emu, exist_ok=True)
            for name in EMU_HEADERS:
                shutil.copyfile(os.path.join(SOURCE, "src", "compiler",
                                             "backend", "cuda", name),
                                os.path.join(emu, name))
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


class SdistWithC(sdist):
    """sdist that also copies libaxe's C sources into csrc/, so the sdist
    builds on its own."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for name in C_SOURCES:
            src = os.path.join(SOURCE, name)
            dst = os.path.join(base_dir, "csrc", name)
            if os.path.isdir(src):
                shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.o"))
            else:
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(src, dst)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: platform-specific."""

    def has_ext_modules(self):
        return True


setup(version=axe_version(),
      cmdclass={"build_ext": BuildWithLibaxe, "sdist": SdistWithC},
      ext_modules=[FAST], distclass=BinaryDistribution)
