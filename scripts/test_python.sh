#!/usr/bin/env bash
# The Python package's tests (python/tests, pytest): builds a venv in
# build/pyenv, installs ./python into it (which builds libaxe with CMake and
# bundles it), pytest, numpy (for the kernel tests), jax (CPU, for the
# sharding comparison) and NVIDIA's pycute
# (nvidia-cutlass 4.2.0.0 with --no-deps; never the unrelated PyPI project
# `pycute`), then runs pytest
# from outside the source tree so the installed wheel is what is tested:
# once with the extension axe._fast (python3-dev is installed for it when
# root with apt) and once more with AXE_PY_BACKEND=ctypes.
# Without network, pytest must already be importable by python3; the
# pycute differential test is skipped with its reason if pycute is absent.
# Exit 77 (skip) if python3 has no venv module and it cannot be installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
venv=build/pyenv
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    # shellcheck source=scripts/ensure_tools.sh
    . scripts/ensure_tools.sh
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        apt-get install -y -qq --no-install-recommends python3-venv \
            >/dev/null || true
    fi
    python3 -c 'import venv, ensurepip' 2>/dev/null || {
        echo "test_python: python3 has no venv/ensurepip (apt install python3-venv); skipped"
        exit 77
    }
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py=$root/$venv/bin/python
# The extension axe._fast needs Python.h (Debian: python3-dev); without it
# the package installs with its ctypes backend only.
has_h='import os, sysconfig; p = sysconfig.get_paths()["include"]; exit(not os.path.exists(p + "/Python.h"))'
if ! "$py" -c "$has_h" && command -v apt-get >/dev/null 2>&1 &&
    [ "$(id -u)" -eq 0 ]; then
    apt-get install -y -qq --no-install-recommends python3-dev >/dev/null ||
        true
fi
expect=extension
"$py" -c "$has_h" || {
    expect=ctypes
    echo "test_python: no Python.h (apt install python3-dev); testing the ctypes backend only"
}
"$py" -m pip install -q --disable-pip-version-check setuptools wheel pytest ||
    echo "test_python: could not install setuptools/wheel/pytest with pip"
# mypy checks the package's type hints (python/tests/test_typing.py; that
# test is skipped with its reason when mypy cannot be installed).
"$py" -m pip install -q --disable-pip-version-check mypy ||
    echo "test_python: could not install mypy; the mypy check will be skipped"
# numpy: the arrays of the kernel tests (python/tests/test_kernel.py and
# the kernel examples of docs/python.md; skipped with the reason without).
"$py" -m pip install -q --disable-pip-version-check numpy ||
    echo "test_python: could not install numpy; the kernel tests will be skipped"
# jax (CPU only): python/tests/test_sharding.py compares axe.sharding's
# layouts with NamedSharding.devices_indices_map (skipped without it).
"$py" -m pip install -q --disable-pip-version-check jax ||
    echo "test_python: could not install jax; the JAX comparison will be skipped"
"$py" -m pip install -q --disable-pip-version-check --no-deps \
    nvidia-cutlass==4.2.0.0 ||
    echo "test_python: could not install nvidia-cutlass (pycute); the differential test will be skipped"
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation \
    --force-reinstall --no-deps ./python
cd "$venv"
export AXE_SHARED_DIR=${AXE_SHARED_DIR:-$root/../shared}
AXE_EXPECT_BACKEND=$expect \
    "$py" -m pytest -q -rs -p no:cacheprovider "$root/python/tests"
if [ "$expect" = extension ]; then
    echo "test_python: again with the ctypes fallback (AXE_PY_BACKEND=ctypes)"
    AXE_PY_BACKEND=ctypes AXE_EXPECT_BACKEND=ctypes \
        "$py" -m pytest -q -rs -p no:cacheprovider "$root/python/tests"
fi
