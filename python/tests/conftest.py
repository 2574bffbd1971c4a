# SPDX-License-Identifier: Apache-2.0
"""Make the tests' helpers (oracle.py) importable."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
