# SPDX-License-Identifier: Apache-2.0
"""Build step of the axe package: configure and build libaxe with CMake
from the source tree this directory lies in (or $AXE_SOURCE_DIR), and put
the shared library inside the package, so the wheel works without the
source tree. The version is include/axe/version.h's."""

import os
import re
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("AXE_SOURCE_DIR", os.path.dirname(HERE))


def axe_version():
    with open(os.path.join(SOURCE, "include", "axe", "version.h")) as f:
        text = f.read()
    parts = [re.search(rf"#define AXE_VERSION_{p} +(\d+)", text).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


class BuildWithLibaxe(build_py):
    """build_py that also builds libaxe (Release) and copies it in."""

    def run(self):
        super().run()
        build = tempfile.mkdtemp(prefix="axe-cmake-")
        try:
            subprocess.check_call(["cmake", "-S", SOURCE, "-B", build,
                                   "-DCMAKE_BUILD_TYPE=Release"])
            subprocess.check_call(["cmake", "--build", build, "--target",
                                   "axe_shared", "--parallel", "2"])
            dest = os.path.join(self.build_lib, "axe", "libaxe.so")
            shutil.copyfile(os.path.realpath(os.path.join(build,
                                                          "libaxe.so")),
                            dest)
        finally:
            shutil.rmtree(build, ignore_errors=True)


class BinaryDistribution(Distribution):
    """The wheel carries a native library: platform-specific."""

    def has_ext_modules(self):
        return True


setup(version=axe_version(), cmdclass={"build_py": BuildWithLibaxe},
      distclass=BinaryDistribution)
