# SPDX-License-Identifier: Apache-2.0
"""The `axe` command-line tool that tests compare the Python API with:
$AXE_CLI, else build/dev/axe, else build/release/axe; the test is skipped
when none exists."""

import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def cli():
    """The path of the axe binary (skips the calling test without one)."""
    for cand in (os.environ.get("AXE_CLI"),
                 os.path.join(ROOT, "build", "dev", "axe"),
                 os.path.join(ROOT, "build", "release", "axe")):
        if cand and os.access(cand, os.X_OK):
            return cand
    pytest.skip("no axe CLI (build/dev/axe; set AXE_CLI) to compare with")
