# SPDX-License-Identifier: Apache-2.0
"""Files of the source tree the tests read (example and test kernels);
a test that needs one is skipped when the tests run outside the tree."""

import os

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def source(*parts):
    """The path ROOT/parts... (skips the calling test when it is absent)."""
    path = os.path.join(ROOT, *parts)
    if not os.path.exists(path):
        pytest.skip(f"{path} not found (tests run outside the source tree)")
    return path
