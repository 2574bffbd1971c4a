# SPDX-License-Identifier: Apache-2.0
"""The CUDA target of ``axe.kernel.compile`` (docs/python.md): the `.cu`
that the CUDA backend emits (``axe_program_emit``), built into a shared
object with a small C++ shim and loaded with ctypes, then launched
through its host launcher ``axe_launch_NAME(device pointers..., runtime
scalars..., cudaStream_t)``.

- ``target="cuda"``: built by ``$NVCC`` (default ``nvcc``) for the
  program's architecture; called with device arrays: objects with
  ``__cuda_array_interface__`` (CuPy, Numba, PyTorch CUDA tensors), or
  DLPack tensors and capsules, read through ``cupy.from_dlpack`` (so they
  need CuPy). The launch is asynchronous on the stream as CUDA's are.
- ``emulate=True`` (``target="cuda-emulated"``): the same `.cu` built by
  ``$CXX`` (default ``c++``) against the CPU emulation headers
  (``compiler_cuda_emu.h``, shipped in the package), as ``axe run
  --target cuda --emulate`` does; called with host arrays (numpy, any
  buffer), which are copied into emulated device memory (so the
  emulation's race detector sees every global access), launched, and
  copied back.

Both go through the shim's ``cudaMalloc``/``cudaMemcpy``/
``cudaStreamSynchronize``, so ``check=True`` (host copies of every
argument before the launch, the reference on them, the outputs copied
back after a synchronize) is one code path for both.

Invariant: a CUDA error of the launcher (or of a copy) is an AxeError
``CUDA`` naming the error (``cudaErrorLaunchFailure: ...``; the
emulation adds its reason); a data-dependent start out of bounds is an
AxeError ``DOMAIN`` as on the C target; nothing is launched before every
argument was checked against the signature.
"""

from __future__ import annotations

import ctypes
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
from typing import Any, Dict, List, Optional, Tuple

from . import _cache
from ._lib import AxeError

#: The emulation headers (written beside the shim when it is built).
EMU_HEADERS = ("compiler_cuda_emu.h", "compiler_cuda_emu_atoms.h")
#: Compiler flags (after $NVCC or $CXX; the architecture follows nvcc's).
NVCC_FLAGS = ("-std=c++17", "-O2", "-shared", "-Xcompiler", "-fPIC")
EMU_FLAGS = ("-std=c++17", "-O1", "-fno-strict-aliasing", "-DAXE_CUDA_EMULATE",
             "-shared", "-fPIC")
#: cudaMemcpyKind values (the runtime's and the emulation's).
H2D, D2H = 1, 2
#: The launcher's code for a data-dependent start out of bounds.
CUDA_ERROR_ASSERT = 710

_SHIM = """#include "{cu}"
/* axe.kernel's access to the runtime the .cu was built against (the
 * CUDA runtime, or the emulation's). */
extern "C" {{
const char *axe_py_error_name(int e)
{{
    return cudaGetErrorName((cudaError_t)e);
}}
const char *axe_py_error_string(int e)
{{
    return cudaGetErrorString((cudaError_t)e);
}}
void *axe_py_malloc(size_t n)
{{
    void *p = nullptr;
    return cudaMalloc(&p, n > 0 ? n : 1) == cudaSuccess ? p : nullptr;
}}
int axe_py_free(void *p) {{ return (int)cudaFree(p); }}
int axe_py_copy(void *d, const void *s, size_t n, int kind)
{{
    return (int)cudaMemcpy(d, s, n, (cudaMemcpyKind)kind);
}}
int axe_py_sync(void *stream)
{{
    return (int)cudaStreamSynchronize((cudaStream_t)stream);
}}
#ifdef AXE_CUDA_EMULATE
const char *axe_py_emu_message(void) {{ return axe_emu::st().message; }}
long long axe_py_emu_races(void) {{ return axe_emu::st().last_races; }}
#endif
}}
"""


def _tool(var: str, default: str) -> List[str]:
    """$VAR (default "default") as an argument list."""
    cmd = shlex.split(os.environ.get(var) or default)
    return cmd or [default]


def nvcc_command() -> List[str]:
    """$NVCC, else nvcc; AxeError IO saying what is missing when it
    cannot be found."""
    cmd = _tool("NVCC", "nvcc")
    if shutil.which(cmd[0]) is None:
        raise AxeError("IO", f"target='cuda' builds the .cu with nvcc, and "
                       f"{cmd[0]!r} is not found (install the CUDA toolkit "
                       "or set NVCC); emulate=True runs the emitted CUDA on "
                       "the CPU instead")
    return cmd


def emu_header_dir() -> str:
    """The directory holding the emulation headers: the package's copy,
    else $AXE_SOURCE_DIR's or this source tree's."""
    here = os.path.dirname(os.path.abspath(__file__))
    tried = [os.path.join(here, "_cuda_emu")]
    for root in (os.environ.get("AXE_SOURCE_DIR"),
                 os.path.dirname(os.path.dirname(here))):
        if root:
            tried.append(os.path.join(root, "src", "compiler", "backend",
                                      "cuda"))
    for d in tried:
        if all(os.path.isfile(os.path.join(d, h)) for h in EMU_HEADERS):
            return d
    raise AxeError("IO", "emulate=True needs the CUDA emulation headers "
                   f"({', '.join(EMU_HEADERS)}), which are in none of "
                   f"{', '.join(tried)} (reinstall the package, or set "
                   "AXE_SOURCE_DIR to a checkout of the repository)")


def _run(cmd: List[str], what: str) -> None:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           errors="replace")
    except OSError as e:
        raise AxeError("IO", f"cannot run {cmd[0]!r} ({what}): "
                       f"{e.strerror}") from None
    if r.returncode != 0:
        raise AxeError("IO", f"{what} failed on the generated CUDA "
                       f"({' '.join(cmd)}): "
                       f"{(r.stderr or r.stdout).strip()[-2000:]}")


def build(cu: bytes, arch: str, emulate: bool, directory: str,
          lock: Any, loaded: Dict[str, Any]) -> Tuple[Any, Any, str, bool]:
    """The loaded shared object of the `.cu` text "cu" (built into
    "directory" unless it is cached there), its call lock, its path and
    whether this call built it. The cache key hashes the command, the
    flags, the shim, the .cu and, emulated, the headers."""
    if emulate:
        hdir = emu_header_dir()
        cmd = _tool("CXX", "c++") + list(EMU_FLAGS)
        extra = b"".join(open(os.path.join(hdir, h), "rb").read()
                         for h in EMU_HEADERS)
    else:
        cmd = nvcc_command() + list(NVCC_FLAGS) + [f"-arch={arch}"]
        extra = b""
    key = _cache.key("e_" if emulate else "g_", (" ".join(cmd), _SHIM),
                     cu + b"\0" + extra)
    # the call lock is reentrant: an emulated call holds it around its
    # copies, allocations and launch (the emulation's state is global)
    return _cache.load(directory, key, lock, loaded,
                       lambda: _build(cu, key, directory, cmd,
                                      hdir if emulate else None),
                       threading.RLock)


def _build(cu: bytes, key: str, directory: str, cmd: List[str],
           hdir: Optional[str]) -> None:
    """Compile the shim around "cu" in a fresh directory and rename the
    object to directory/KEY.so (the .cu beside it), so a concurrent
    process never loads half a file."""
    work = tempfile.mkdtemp(prefix=key + ".", dir=directory)
    try:
        with open(os.path.join(work, key + ".cu"), "wb") as f:
            f.write(cu)
        shim = os.path.join(work, "shim" + (".cpp" if hdir else ".cu"))
        with open(shim, "w") as f:
            f.write(_SHIM.format(cu=key + ".cu"))
        if hdir is not None:
            for name in EMU_HEADERS:
                shutil.copyfile(os.path.join(hdir, name),
                                os.path.join(work, name))
        tmp = os.path.join(work, key + ".so")
        _run(cmd + ["-I", work, "-o", tmp, shim],
             "the C++ compiler" if hdir else "nvcc")
        os.replace(tmp, os.path.join(directory, key + ".so"))
        os.replace(os.path.join(work, key + ".cu"),
                   os.path.join(directory, key + ".cu"))
    finally:
        shutil.rmtree(work, ignore_errors=True)


class Runtime:
    """The shim's functions in a loaded shared object."""

    def __init__(self, so: Any, emulated: bool) -> None:
        c = ctypes
        self.emulated = emulated
        self.name = so.axe_py_error_name
        self.name.restype, self.name.argtypes = c.c_char_p, [c.c_int]
        self.text = so.axe_py_error_string
        self.text.restype, self.text.argtypes = c.c_char_p, [c.c_int]
        self.malloc = so.axe_py_malloc
        self.malloc.restype, self.malloc.argtypes = c.c_void_p, [c.c_size_t]
        self.free = so.axe_py_free
        self.free.restype, self.free.argtypes = c.c_int, [c.c_void_p]
        self.copy = so.axe_py_copy
        self.copy.restype = c.c_int
        self.copy.argtypes = [c.c_void_p, c.c_void_p, c.c_size_t, c.c_int]
        self.sync = so.axe_py_sync
        self.sync.restype, self.sync.argtypes = c.c_int, [c.c_void_p]
        if emulated:
            self.message = so.axe_py_emu_message
            self.message.restype, self.message.argtypes = c.c_char_p, []
            self.races = so.axe_py_emu_races
            self.races.restype, self.races.argtypes = c.c_longlong, []

    def error(self, kernel: str, rc: int, what: str) -> AxeError:
        """AxeError CUDA for code "rc" of "what": the error's name, its
        text and, emulated, the emulation's reason."""
        name = (self.name(rc) or b"?").decode("utf-8", "replace")
        text = (self.text(rc) or b"").decode("utf-8", "replace")
        reason = f"kernel {kernel}: {what}: {name} ({text})"
        if self.emulated:
            msg = (self.message() or b"").decode("utf-8", "replace")
            if msg:
                reason += f": {msg}"
        err = AxeError("CUDA", reason)
        err.cuda_error = name  # type: ignore[attr-defined]
        return err

    def check(self, kernel: str, rc: int, what: str) -> None:
        if rc != 0:
            raise self.error(kernel, rc, what)


#: struct/typestr element letters a dtype takes on the device (the
#: __cuda_array_interface__ typestr without its byte order).
DEVICE_KINDS = {"f16": ("f2", "u2"), "bf16": ("u2",), "f32": ("f4",),
                "f64": ("f8",), "i8": ("i1",), "i32": ("i4",),
                "e4m3": ("u1",), "e5m2": ("u1",), "i4": ("u1",)}


def device_array(obj: Any, what: str) -> Dict[str, Any]:
    """The __cuda_array_interface__ of "obj" (a DLPack tensor or capsule
    through cupy.from_dlpack); TypeError saying what is needed."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is None and (hasattr(obj, "__dlpack__") or
                        type(obj).__name__ == "PyCapsule"):
        try:
            import cupy  # type: ignore[import-not-found]
        except ImportError:
            raise TypeError(f"{what}: a DLPack tensor is read through "
                            "cupy.from_dlpack, and CuPy is not installed "
                            "(pip install cupy-cuda12x), or pass an array "
                            "with __cuda_array_interface__") from None
        try:
            obj = cupy.from_dlpack(obj)
        except Exception as e:  # CuPy's errors vary by version
            raise TypeError(f"{what}: cupy.from_dlpack cannot read this "
                            f"tensor (a CUDA device tensor is needed): "
                            f"{e}") from None
        cai = obj.__cuda_array_interface__
    if not isinstance(cai, dict):
        raise TypeError(f"{what}: target='cuda' takes device arrays (CuPy "
                        "arrays, anything with __cuda_array_interface__, "
                        f"or DLPack tensors), not {type(obj).__name__}; "
                        "emulate=True takes host arrays")
    return cai


def check_device(cai: Dict[str, Any], dtype: str, shape: Tuple[int, ...],
                 elems: int, written: bool, row_major: bool, want: str,
                 what: str) -> int:
    """The device pointer of a checked __cuda_array_interface__: its
    element kind, C-contiguity, shape (the logical one when "row_major",
    else 1-D of "elems") and writability; TypeError saying what "want"
    is otherwise."""
    typestr = str(cai.get("typestr", ""))
    got_shape = tuple(int(n) for n in cai.get("shape", ()))
    kind = typestr[1:] if typestr[:1] in "<|=" else ""
    itemsize = int(kind[1:]) if kind[1:].isdigit() else 0
    strides = cai.get("strides")
    contiguous = strides is None
    if strides is not None:
        step, contiguous = itemsize, True
        for n, s in reversed(list(zip(got_shape, strides))):
            if n > 1 and s != step:
                contiguous = False
            step *= n
    ok_shape = (got_shape == shape and row_major) or \
        (len(got_shape) == 1 and got_shape[0] == elems)
    if kind not in DEVICE_KINDS[dtype] or not contiguous or not ok_shape:
        raise TypeError(f"{what}: it takes {want}, not a device array of "
                        f"typestr {typestr!r} and shape {got_shape}"
                        + ("" if contiguous else " (not C-contiguous)"))
    ptr, readonly = cai.get("data", (0, False))
    if written and readonly:
        raise TypeError(f"{what}: the kernel writes it, and the device "
                        "array is read-only")
    return int(ptr)


def stream_handle(stream: Any) -> Optional[int]:
    """A cudaStream_t from "stream": None (CuPy's current stream when
    CuPy is imported, else the default stream 0), an int handle, or an
    object with .ptr (CuPy) or .cuda_stream (PyTorch)."""
    if stream is None:
        import sys
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            return int(cupy.cuda.get_current_stream().ptr) or None
        return None
    for attr in ("ptr", "cuda_stream"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr)) or None
    if isinstance(stream, int) and not isinstance(stream, bool):
        return stream or None
    raise TypeError(f"stream={stream!r}: a cudaStream_t handle (an int), "
                    "or a stream object with .ptr or .cuda_stream")
