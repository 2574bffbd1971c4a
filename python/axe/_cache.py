# SPDX-License-Identifier: Apache-2.0
"""The kernel cache that ``axe.kernel`` (C target) and ``axe._cuda``
(CUDA targets) share: a built kernel is ``DIRECTORY/KEY.so``, KEY a
prefix and the start of a SHA-256 over the build command and the source,
loaded once per process with ctypes.

Invariant: ``loaded`` maps the path of every shared object this process
loaded to (its CDLL, its call lock); a path is loaded only after its
build renamed it into place, so a concurrent process never loads half a
file.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
from typing import Any, Callable, Dict, Iterable, Tuple

from ._lib import AxeError


def key(prefix: str, parts: Iterable[str], payload: bytes) -> str:
    """PREFIX and 40 hex digits of SHA-256 over each of "parts" (a
    command, flags), each followed by a NUL, then "payload"."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() + b"\0")
    h.update(payload)
    return prefix + h.hexdigest()[:40]


def load(directory: str, key_: str, lock: Any, loaded: Dict[str, Any],
         build: Callable[[], object],
         new_lock: Callable[[], Any]) -> Tuple[Any, Any, str, bool]:
    """The loaded shared object DIRECTORY/KEY.so, its call lock (a fresh
    ``new_lock()`` when first loaded), its path and whether this call
    built it: ``build()`` runs, under "lock", when the file is missing."""
    with lock:
        so = os.path.join(directory, key_ + ".so")
        if so in loaded:
            return loaded[so] + (so, False)
        built = not os.path.exists(so)
        if built:
            try:
                os.makedirs(directory, exist_ok=True)
            except OSError as e:
                raise AxeError("IO", f"cannot create the kernel cache "
                               f"{directory!r} (set AXE_KERNEL_CACHE): "
                               f"{e.strerror}") from None
            build()
        try:
            entry = (ctypes.CDLL(so), new_lock())
        except OSError as e:
            raise AxeError("IO", f"cannot load the kernel {so!r} (delete "
                           f"it to rebuild it): {e}") from None
        loaded[so] = entry
        return entry + (so, built)
