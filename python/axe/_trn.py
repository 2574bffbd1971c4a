# SPDX-License-Identifier: Apache-2.0
"""The trn-sim target of ``axe.kernel.compile`` (docs/python.md): the C
that the trn-sim backend emits for a core kernel (``axe_program_emit``),
with the accelerator simulator's header (``compiler_trn_sim.h``, as the
library embeds it: ``axe_runtime_header``) written in place of its
``#include``, built and loaded as the C target's code is. After each
launch the kernel's ``k_NAME_trn_error`` says whether the simulator
refused an access (the instruction and the limit) and
``k_NAME_trn_cycles`` gives the simulated cycles and, per engine, the
instructions and busy cycles.

Invariant: a launch the simulator refused raises AxeError ``TRN`` with
its message; a launch that ran leaves its cycles and engine counts on
the kernel.
"""

from __future__ import annotations

import ctypes
from typing import Any, Dict, NamedTuple, Tuple

from ._lib import AxeError, lib

#: The engines in the simulator's order (compiler_trn_sim.h).
ENGINES = ("tensor", "vector", "scalar", "dma_in", "dma_out")
HEADER = b"compiler_trn_sim.h"
INCLUDE = b'#include "compiler_trn_sim.h"'

lib.axe_runtime_header.restype = ctypes.c_void_p
lib.axe_runtime_header.argtypes = [ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_size_t)]


class Engine(NamedTuple):
    """One engine's part of a launch: its instructions and the cycles it
    was busy."""

    instructions: int
    busy: int


def with_header(c_text: bytes) -> bytes:
    """"c_text" with the simulator's header in place of its include (so
    the C builds alone, and its cache key covers the header)."""
    n = ctypes.c_size_t()
    p = lib.axe_runtime_header(HEADER, ctypes.byref(n))
    if not p or c_text.count(INCLUDE) != 1:
        raise AxeError("IO", "the trn-sim C includes compiler_trn_sim.h, "
                       "which this libaxe does not hold (rebuild the "
                       "package)" if not p else
                       "the trn-sim C does not include compiler_trn_sim.h "
                       "once")
    return c_text.replace(INCLUDE, ctypes.string_at(p, n.value))


def bind(so: Any, name: str) -> Tuple[Any, Any]:
    """The kernel's outcome functions: k_NAME_trn_error, k_NAME_trn_cycles."""
    err = getattr(so, f"k_{name}_trn_error")
    err.restype = ctypes.c_char_p
    err.argtypes = []
    cyc = getattr(so, f"k_{name}_trn_cycles")
    cyc.restype = ctypes.c_longlong
    cyc.argtypes = [ctypes.POINTER(ctypes.c_longlong)] * 2
    return err, cyc


def outcome(fns: Tuple[Any, Any], name: str) -> Tuple[int, Dict[str, Engine]]:
    """The last launch's cycles and engines; AxeError TRN when the
    simulator refused an access."""
    err, cyc = fns
    msg = err()
    if msg:
        e = AxeError("TRN", f"kernel {name}: {msg.decode('utf-8', 'replace')}")
        e.trn_error = msg.decode("utf-8", "replace")  # type: ignore
        raise e
    count = (ctypes.c_longlong * len(ENGINES))()
    busy = (ctypes.c_longlong * len(ENGINES))()
    cycles = int(cyc(count, busy))
    return cycles, {n: Engine(int(count[k]), int(busy[k]))
                    for k, n in enumerate(ENGINES)}
