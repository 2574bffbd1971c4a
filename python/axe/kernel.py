# SPDX-License-Identifier: Apache-2.0
"""Kernels from Python: ``axe.kernel.compile(path_or_source, **params)``
compiles a kernel of the axe kernel language (docs/compiler.md) through
the C backend into a shared object, built once and cached, and returns a
``Kernel``: calling it with arrays (numpy arrays, anything with the
buffer protocol, or DLPack tensors when numpy is installed) runs the
kernel in this process and writes its outputs in place; ``check=True``
also runs the reference (``axe_program_reference_races``) on copies of
the inputs and raises ``axe.CheckError`` when an element differs beyond
the library's tolerance (``axe_dtype_tolerance``) or a race is found.

Invariant: a ``Kernel`` holds a compiled program and its loaded shared
object; every argument is checked against the program's signature
(dtype, shape, contiguity, writability, no overlap with an output)
before any C runs, so a wrong argument is a TypeError or ValueError,
never a crash. The generated C keeps its shared and register tensors in
static arrays, so calls into one shared object are serialized by a lock;
the cache is guarded by another.
"""

from __future__ import annotations

import ctypes
import math
import os
import shlex
import struct
import subprocess
import sys
import tempfile
import threading
from typing import (Any, Dict, List, NamedTuple, Optional, Sequence, Tuple,
                    Union)

from . import _cache, _cuda, _i4, _lib, _trn
from ._i4 import pack_i4, unpack_i4
from ._lib import AxeError, Diag, KernelOptions, KernelTensor, lib

#: The most work (``axe_program_work``) a ``check=True`` call accepts, as
#: ``axe run`` does: about a minute of the reference interpreter.
CHECK_MAX_WORK = 1 << 30
#: Compiler flags of the shared object (after ``$CC``); ``-lm`` follows
#: the source.
CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c99")
#: Mismatched elements listed per tensor in a CheckError (all are counted).
MISMATCHES_LISTED = 10

# The array element a dtype takes: struct format letters of the element
# kinds accepted ('e' float16, 'H' uint16 bit patterns, ...), and the
# format that decodes the buffer for the check. An i4 tensor takes its
# packed bytes (two elements per byte: pack_i4, unpack_i4).
_ACCEPTED = {"f16": ("e", "H"), "bf16": ("H",), "f32": ("f",),
             "f64": ("d",), "i8": ("b",), "i32": ("i",), "e4m3": ("B",),
             "e5m2": ("B",), "i4": ("B",)}
_KINDS = {"e": "float16", "f": "float32", "d": "float64", "b": "int8",
          "i": "int32", "B": "uint8", "H": "uint16", "?": "bool"}


class CheckError(AssertionError):
    """A ``check=True`` call whose outputs differ from the reference, or
    whose kernel races. ``mismatches`` lists ``Mismatch`` entries (at
    most MISMATCHES_LISTED per tensor, each tensor's total in
    ``counts``), ``races`` the race reports of the reference's detector
    (``race on T[3,5]: written by thread 7 (line 12), ...``),
    ``race_count`` the racing accesses found. An AssertionError: the
    kernel gave a wrong answer, its arguments were fine. The message
    names an element of a tensor that is not row-major by its buffer
    position (``P buffer element 17``; those tensors are in
    ``buffer_positions``)."""

    __module__ = "axe"

    def __init__(self, kernel: str, mismatches: List["Mismatch"],
                 counts: Dict[str, int], races: List[str],
                 race_count: int, buffer_positions: Sequence[str] = ()
                 ) -> None:
        self.kernel = kernel
        self.mismatches = mismatches
        self.counts = counts
        self.races = races
        self.race_count = race_count
        self.buffer_positions = list(buffer_positions)
        super().__init__(self._text())

    def _where(self, m: "Mismatch") -> str:
        """"Y[0, 5]", or "P buffer element 17"."""
        if m.tensor in self.buffer_positions:
            return f"{m.tensor} buffer element {m.coords[0]}"
        return f"{m.tensor}[{', '.join(map(str, m.coords))}]"

    def _text(self) -> str:
        parts = []
        for name, n in self.counts.items():
            shown = [m for m in self.mismatches if m.tensor == name]
            items = "; ".join(
                f"{self._where(m)} = {m.got!r}, reference {m.want!r}"
                for m in shown)
            more = ", ..." if n > len(shown) else ""
            parts.append(f"{name}: {n} element{'s' * (n != 1)} differ "
                         f"({items}{more})")
        parts += self.races
        if self.race_count > len(self.races):
            parts.append(f"{self.race_count} racing accesses in all")
        return f"kernel {self.kernel} failed its check: " + "; ".join(parts)


def _fields_repr(t: Any) -> str:
    """NamedTuple's repr, "Name(a=1, b=2)" (written out for the typing
    test, which wants the method annotated)."""
    items = ", ".join(f"{f}={getattr(t, f)!r}" for f in t._fields)
    return f"{type(t).__name__}({items})"


class Mismatch(NamedTuple):
    """One element that differs from the reference: the tensor, its
    logical index (row-major tensors) or its buffer position (a 1-tuple,
    other layouts), the kernel's value and the reference's."""

    tensor: str
    coords: Tuple[int, ...]
    got: float
    want: float

    def __repr__(self) -> str:
        return _fields_repr(self)


class CheckResult(NamedTuple):
    """What a passing ``check=True`` call measured: the largest absolute
    and relative errors over every parameter (as ``axe run --check``),
    and whether the race detector ran (it does not past
    ``AXE_RACE_MAX_ELEMS`` elements; the values were still compared)."""

    max_abs_err: float
    max_rel_err: float
    races_checked: bool

    def __repr__(self) -> str:
        return _fields_repr(self)


class Tensor(NamedTuple):
    """A tensor parameter of a kernel: name, dtype name ("f32"), logical
    shape, elements of its buffer, whether the kernel writes it, and
    whether the buffer is the plain row-major array of the shape."""

    name: str
    dtype: str
    shape: Tuple[int, ...]
    elems: int
    written: bool
    row_major: bool

    def __repr__(self) -> str:
        return _fields_repr(self)


_cache_lock = threading.Lock()
_loaded: Dict[str, Tuple[Any, threading.Lock]] = {}


def cache_dir() -> str:
    """Where shared objects are cached: $AXE_KERNEL_CACHE, else
    $XDG_CACHE_HOME/axe/kernels, else ~/.cache/axe/kernels."""
    d = os.environ.get("AXE_KERNEL_CACHE")
    if not d:
        base = (os.environ.get("XDG_CACHE_HOME") or
                os.path.join(os.path.expanduser("~"), ".cache"))
        d = os.path.join(base, "axe", "kernels")
    return d


def _compiler() -> List[str]:
    """$CC (default cc) as an argument list."""
    cc = shlex.split(os.environ.get("CC") or "cc")
    return cc or ["cc"]


def _build_so(c_text: bytes, key: str, directory: str, cc: List[str]) -> str:
    """Compile "c_text" into directory/KEY.so (written under a temporary
    name, then renamed, so a concurrent process never loads half a
    file); its path."""
    so = os.path.join(directory, key + ".so")
    fd, src = tempfile.mkstemp(suffix=".c", prefix=key + ".",
                               dir=directory)
    tmp = src[:-2] + ".so"
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(c_text)
        cmd = cc + list(CFLAGS) + ["-o", tmp, src, "-lm"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               errors="replace")
        except OSError as e:
            raise AxeError("IO", f"cannot run the C compiler {cc[0]!r} "
                           f"(set CC): {e.strerror}") from None
        if r.returncode != 0:
            raise AxeError("IO", f"the C compiler failed on the generated "
                           f"code ({' '.join(cmd)}): "
                           f"{(r.stderr or r.stdout).strip()[-2000:]}")
        os.replace(tmp, so)
        os.replace(src, os.path.join(directory, key + ".c"))
    finally:
        for leftover in (src, tmp):
            if os.path.exists(leftover):
                os.unlink(leftover)
    return so


def _load(c_text: bytes) -> Tuple[Any, threading.Lock, str, bool]:
    """The loaded shared object of "c_text" (built unless the cache has
    it), its call lock, its path and whether this call built it."""
    cc = _compiler()
    key = _cache.key("k_", (" ".join(cc), " ".join(CFLAGS), "-lm"), c_text)
    directory = cache_dir()
    return _cache.load(directory, key, _cache_lock, _loaded,
                       lambda: _build_so(c_text, key, directory, cc),
                       threading.Lock)


def _line_col(text: bytes, offset: int) -> Tuple[int, int]:
    """1-based line and byte column of "offset" in "text"."""
    start = text.rfind(b"\n", 0, offset) + 1
    return text.count(b"\n", 0, offset) + 1, offset - start + 1


def _read_source(path_or_source: Union[str, "os.PathLike[str]"]
                 ) -> Tuple[bytes, str]:
    """The kernel text and the name diagnostics give it: a str holding a
    newline or '{' is the source itself ("<source>"), any other str or a
    path-like names a file."""
    if isinstance(path_or_source, str) and ("\n" in path_or_source or
                                            "{" in path_or_source):
        return _lib.text_bytes(path_or_source, "kernel source"), "<source>"
    if not isinstance(path_or_source, (str, os.PathLike)):
        raise TypeError("compile takes a kernel's source text or the path "
                        "of a .axe file, not "
                        f"{type(path_or_source).__name__}")
    path = os.fspath(path_or_source)
    try:
        os.fsencode(path)
    except UnicodeEncodeError as e:
        raise AxeError("IO", f"the path {path!r} cannot be encoded for the "
                       f"file system ({e.reason})") from None
    with open(path, "rb") as f:
        return f.read(), path


def _options(params: Dict[str, Any]) -> KernelOptions:
    """The `-D NAME=VALUE` options of "params"."""
    o = KernelOptions()
    lib.axe_kernel_options_init(ctypes.byref(o))
    for name, value in params.items():
        if isinstance(value, bool) or not _lib.index_like(value):
            raise TypeError(f"param {name}={value!r}: a compile-time param "
                            "is an integer")
        v = _lib.i64(value, f"param {name}")
        st = lib.axe_kernel_options_define(
            ctypes.byref(o), _lib.name_bytes(name, "param name"), v)
        if st:
            raise AxeError(_lib.status_name(st),
                           f"param {name}: name longer than "
                           f"{_lib.KERNEL_NAME_MAX - 1} bytes" if st == -1
                           else f"param {name}: more than "
                           f"{_lib.KERNEL_MAX_DEFINES} params")
    return o


def _compile_program(text: bytes, where: str,
                     opts: KernelOptions) -> ctypes.c_void_p:
    """axe_program_compile_full: the program, or AxeError with
    WHERE:LINE:COL and the complete diagnostic (notes included)."""
    prog = ctypes.c_void_p()
    diag = Diag()
    full = ctypes.create_string_buffer(1 << 16)
    n = ctypes.c_size_t()
    st = lib.axe_program_compile_full(text, len(text), ctypes.byref(opts),
                                      None, ctypes.byref(prog),
                                      ctypes.byref(diag), full, len(full),
                                      ctypes.byref(n))
    if st == 0:
        return prog
    if n.value >= len(full):
        full = ctypes.create_string_buffer(n.value + 1)
        lib.axe_program_compile_full(text, len(text), ctypes.byref(opts),
                                     None, ctypes.byref(prog), None, full,
                                     len(full), None)
    reason = (full.value.decode("utf-8", "replace").rstrip("\n") or
              diag.message.decode("utf-8", "replace"))
    off = int(diag.offset)
    if not 0 <= off <= len(text):
        raise AxeError(_lib.status_name(st), f"{where}: {reason}")
    line, col = _line_col(text, off)
    err = AxeError(_lib.status_name(st), f"{where}:{line}:{col}: {reason}")
    err.offset = off  # after the message, which names the place already
    err.line, err.column = line, col  # type: ignore[attr-defined]
    raise err


def _format_kind(fmt: str) -> str:
    """The element letter of a native buffer format ('f' of '<f'), or ''
    for a non-native byte order or a compound format."""
    if fmt[:1] in "@=" or (fmt[:1] == "<" and sys.byteorder == "little") \
            or (fmt[:1] in ">!" and sys.byteorder == "big"):
        fmt = fmt[1:]
    return fmt if len(fmt) == 1 else ""


def _describe(mv: memoryview) -> str:
    """"float64 array of shape (8, 96)" for the error messages."""
    k = _format_kind(mv.format)
    if k and k in "bhilqnBHILQN":
        kind = f"{'u' * k.isupper()}int{mv.itemsize * 8}"
    else:
        kind = _KINDS.get(k, f"format {mv.format!r}")
    return f"{kind} array of shape {tuple(mv.shape or ())}"


def _as_buffer(obj: Any, what: str) -> memoryview:
    """A memoryview of "obj": the buffer protocol, else DLPack through
    numpy.from_dlpack."""
    try:
        return memoryview(obj)
    except TypeError:
        pass
    if hasattr(obj, "__dlpack__"):
        try:
            import numpy
        except ImportError:
            raise TypeError(f"{what}: a DLPack tensor needs numpy "
                            "(numpy.from_dlpack) to be read") from None
        try:
            arr: Any = numpy.from_dlpack(obj)
            return memoryview(arr)
        except (TypeError, ValueError, RuntimeError, BufferError) as e:
            raise TypeError(f"{what}: numpy.from_dlpack cannot read this "
                            f"tensor (a CPU tensor is needed): {e}") from None
    raise TypeError(f"{what}: an array with the buffer protocol or "
                    f"__dlpack__ is needed, not {type(obj).__name__}")


def _want_text(t: Tensor) -> str:
    """What tensor "t" takes, in words."""
    if t.dtype == "i4":
        n = _i4.storage(t.elems)
        shape = _i4.packed_shape(t.shape) if t.row_major else (n,)
        alt = f" or a 1-D buffer of {n} bytes" if len(shape) != 1 else ""
        return (f"a C-contiguous uint8 array of shape {shape} holding the "
                f"{t.elems} elements packed two per byte (axe.kernel."
                f"pack_i4){alt}")
    kinds = " or ".join(_KINDS[k] + (" (bit patterns)" if k in "HB" else "")
                        for k in _ACCEPTED[t.dtype])
    if t.row_major:
        alt = (f" or a 1-D buffer of {t.elems} elements"
               if len(t.shape) != 1 else "")
        return f"a C-contiguous {kinds} array of shape {t.shape}{alt}"
    return (f"a 1-D {kinds} buffer of {t.elems} elements (its layout is "
            f"not row-major: the buffer holds the layout's span)")


def _check_buffer(mv: memoryview, t: Tensor, what: str) -> None:
    """TypeError unless "mv" is what tensor "t" takes."""
    if t.dtype not in _ACCEPTED:
        raise AxeError("UNSUPPORTED", f"{what}: Python does not pass "
                       f"{t.dtype} tensors yet")
    shape = tuple(mv.shape or ())
    if t.dtype == "i4":  # packed: the bytes, or the rows' bytes
        ok_shape = shape == (_i4.storage(t.elems),) or (
            t.row_major and shape == _i4.packed_shape(t.shape))
    else:
        ok_shape = shape == (t.elems,) or (t.row_major and shape == t.shape)
    kind = _format_kind(mv.format)
    ok_kind = (kind in _ACCEPTED[t.dtype] and
               mv.itemsize == struct.calcsize(kind))
    if not (ok_shape and ok_kind):
        raise TypeError(f"{what} is {t.dtype}{list(t.shape)}: it takes "
                        f"{_want_text(t)}, not a {_describe(mv)}")
    if not mv.c_contiguous:
        raise TypeError(f"{what}: the array is not C-contiguous (copy it, "
                        "e.g. numpy.ascontiguousarray)")
    if t.written and mv.readonly:
        raise TypeError(f"{what}: the kernel writes {t.name}, but the "
                        "array is read-only")


_FP8: Dict[str, List[float]] = {}


def _fp8_table(dtype: str) -> List[float]:
    """The value of each of the 256 patterns of an fp8 dtype (the
    library's exact axe_e4m3_to_float / axe_e5m2_to_float)."""
    if dtype not in _FP8:
        to_float = getattr(lib, f"axe_{dtype}_to_float")
        _FP8[dtype] = [float(to_float(i)) for i in range(256)]
    return _FP8[dtype]


def _decode(dtype: str, raw: bytes, n: int) -> Sequence[float]:
    """The values of a buffer of "n" "dtype" elements, as Python
    numbers."""
    if dtype == "i4":
        return _i4.decode(raw, n)
    if dtype in ("e4m3", "e5m2"):
        table = _fp8_table(dtype)
        return [table[b] for b in raw]
    if dtype == "bf16":  # the 16 bits are the top half of a float32
        wide = bytearray(2 * len(raw))
        hi = 2 if sys.byteorder == "little" else 0
        wide[hi::4], wide[hi + 1::4] = raw[0::2], raw[1::2]
        raw, dtype = bytes(wide), "f32"
    fmt = _ACCEPTED[dtype][0]
    n = len(raw) // struct.calcsize(fmt)
    return struct.unpack(f"={n}{fmt}", raw)


def _matches(g: float, w: float, atol: float, rtol: float,
             scale: float) -> bool:
    """docs/compiler.md: both NaN, or the same infinity, or both finite
    within atol + rtol * scale."""
    if math.isnan(g) or math.isnan(w):
        return math.isnan(g) and math.isnan(w)
    if math.isinf(g) or math.isinf(w):
        return g == w
    return abs(g - w) <= atol + rtol * scale


def _unravel(i: int, t: Tensor) -> Tuple[int, ...]:
    """The logical index of buffer element "i" (a row-major tensor), or
    (i,) (any other layout)."""
    if not t.row_major:
        return (i,)
    idx = []
    for e in reversed(t.shape):
        idx.append(i % e)
        i //= e
    return tuple(reversed(idx))


class _Compare:
    """The comparison of every parameter with the reference, as `axe run
    --check` does (errors over the elements that are not matching
    non-finite pairs)."""

    def __init__(self) -> None:
        self.max_abs = 0.0
        self.max_rel = 0.0
        self.mismatches: List[Mismatch] = []
        self.counts: Dict[str, int] = {}

    def tensor(self, t: Tensor, got: bytes, want: bytes) -> None:
        if got == want:  # equal bit patterns: every element matches
            return
        atol, rtol = ctypes.c_double(), ctypes.c_double()
        _lib.check(lib.axe_dtype_tolerance(_DTYPE_CODES[t.dtype],
                                           ctypes.byref(atol),
                                           ctypes.byref(rtol)), "tolerance")
        g_vals = _decode(t.dtype, got, t.elems)
        w_vals = _decode(t.dtype, want, t.elems)
        scale = max((abs(w) for w in w_vals if math.isfinite(w)),
                    default=0.0)
        bad = 0
        for i, (g, w) in enumerate(zip(g_vals, w_vals)):
            ok = _matches(g, w, atol.value, rtol.value, scale)
            if ok and not (math.isfinite(g) and math.isfinite(w)):
                continue
            err = abs(g - w)
            rel = err / abs(w) if w != 0 and math.isfinite(w) else err
            if err > self.max_abs or math.isnan(err):
                self.max_abs = err
            if rel > self.max_rel or math.isnan(rel):
                self.max_rel = rel
            if not ok:
                bad += 1
                if bad <= MISMATCHES_LISTED:
                    self.mismatches.append(
                        Mismatch(t.name, _unravel(i, t), g, w))
        if bad:
            self.counts[t.name] = bad


#: dtype name -> the library's axe_dtype, for the dtypes seen so far.
_DTYPE_CODES: Dict[str, int] = {}


def _storage(t: Tensor) -> int:
    """Bytes of tensor "t"'s buffer (axe_dtype_storage: i4 packs two
    elements per byte)."""
    n: int = lib.axe_dtype_storage(_DTYPE_CODES[t.dtype], t.elems)
    return n


def _dtype_name(code: int) -> str:
    """The name of axe_dtype "code" ("f32"), remembered for the check."""
    name: str = lib.axe_dtype_name(code).decode()
    _DTYPE_CODES[name] = code
    return name


class Kernel:
    """A compiled kernel (``axe.kernel.compile``): ``name``, ``tensors``
    (its tensor parameters in order), ``scalars`` (its runtime scalars),
    ``c_source`` (the generated C) and ``so_path`` (the cached shared
    object). Call it with one array per tensor parameter, in order or by
    name, and each runtime scalar by name; ``check=True`` compares with
    the reference."""

    def __init__(self, prog: ctypes.c_void_p, c_text: bytes) -> None:
        """Load (building if needed) the shared object of "c_text", the C
        of "prog"; the Kernel owns "prog" once this returns."""
        self._init_program(prog)
        self.c_source: str = c_text.decode()
        so, self._call_lock, self.so_path, self.built = _load(c_text)
        self._so = so
        self._fn = getattr(so, "k_" + self.name)
        self._fn.restype = None
        n = lib.axe_program_tensor_count(prog)
        # void k_NAME(T *t_A, ..., int32_t s_M, double s_eps, ...): a
        # float scalar is a double (docs/compiler.md)
        self._fn.argtypes = ([ctypes.c_void_p] * n +
                             [ctypes.c_int32 if d == "i32" else
                              ctypes.c_double for d in self.scalar_dtypes])
        # const char *k_NAME_error(void): the first data-dependent start
        # of the last launch that was out of bounds (kernels with such
        # starts only; docs/compiler.md)
        try:
            self._error = getattr(so, f"k_{self.name}_error")
            self._error.restype = ctypes.c_char_p
            self._error.argtypes = []
        except AttributeError:
            self._error = None
        self._lock = threading.Lock()  # bind, launch and reference
        self._prog: Optional[ctypes.c_void_p] = prog

    def _init_program(self, prog: ctypes.c_void_p) -> None:
        """The name and the runtime scalars of "prog"."""
        self.name: str = lib.axe_program_name(prog).decode()
        #: "c", "cuda" or "cuda-emulated".
        self.target: str = "c"
        #: The runtime scalars (`M: i32`, `eps: f32`) in declaration
        #: order, and their dtypes ("i32", "f32", "f64", "f16", "bf16").
        self.scalars: List[str] = []
        self.scalar_dtypes: List[str] = []
        for i in range(lib.axe_program_scalar_count(prog)):
            sc = lib.axe_program_scalar(prog, i)
            self.scalars.append(sc.name.decode())
            self.scalar_dtypes.append(_dtype_name(sc.dtype))

    def __del__(self) -> None:
        prog = getattr(self, "_prog", None)
        if prog:
            lib.axe_program_free(prog)
            self._prog = None

    @property
    def tensors(self) -> List[Tensor]:
        """The tensor parameters in order (``Tensor``); a runtime extent
        at the scalars of the last call (0 before the first)."""
        out = []
        for i in range(lib.axe_program_tensor_count(self._prog)):
            k: KernelTensor = lib.axe_program_tensor(self._prog, i)
            out.append(Tensor(k.name.decode(), _dtype_name(k.dtype),
                              tuple(k.shape[:k.ndim]), int(k.elems),
                              bool(k.written), bool(k.row_major)))
        return out

    def tensors_at(self, **scalars: int) -> List[Tensor]:
        """The tensor parameters at the runtime scalars "scalars" (every
        one by name, as in a call): the shapes and elements a call with
        them takes."""
        with self._lock:
            kwargs: Dict[str, Any] = dict(scalars)
            self._bind(kwargs)
            if kwargs:
                raise TypeError(f"kernel {self.name} has no runtime scalar "
                                f"{next(iter(kwargs))!r}")
            return self.tensors

    def __repr__(self) -> str:
        sig = [f"{t.name}: {t.dtype}{list(t.shape)}" for t in self.tensors]
        sig += [f"{s}: {d}" for s, d in zip(self.scalars,
                                             self.scalar_dtypes)]
        on = "" if self.target == "c" else f" on {self.target}"
        return (f"<axe.kernel.{type(self).__name__} {self.name}"
                f"({', '.join(sig)}){on}>")

    def _bind(self, kwargs: Dict[str, Any]) -> List[Any]:
        """Take the runtime scalars out of "kwargs" and give them to the
        program (axe_program_bind, or axe_program_bind_f when a scalar is
        a float: AxeError DOMAIN for a value outside what the kernel
        allows, a float that is not finite in its dtype); their values in
        order (ints, and floats for the float scalars)."""
        values: List[Any] = []
        for name, dtype in zip(self.scalars, self.scalar_dtypes):
            if name not in kwargs:
                raise TypeError(f"kernel {self.name}: no value for the "
                                f"runtime scalar {name} (pass {name}=...)")
            v = kwargs.pop(name)
            if dtype != "i32":
                if isinstance(v, bool) or not isinstance(
                        v, (int, float)) and not hasattr(v, "__float__"):
                    raise TypeError(f"kernel {self.name}: runtime scalar "
                                    f"{name}={v!r}: a {dtype} is a number")
                values.append(float(v))
                continue
            if isinstance(v, bool) or not _lib.index_like(v):
                raise TypeError(f"kernel {self.name}: runtime scalar "
                                f"{name}={v!r}: an i32 is an integer")
            values.append(_lib.i64(v, f"runtime scalar {name}"))
        if values and all(d == "i32" for d in self.scalar_dtypes):
            _lib.call(lib.axe_program_bind, self._prog,
                      (ctypes.c_int64 * len(values))(*values))
        elif values:
            _lib.call(lib.axe_program_bind_f, self._prog,
                      (ctypes.c_double * len(values))(*map(float, values)))
        return values

    def _arguments(self, tensors: List[Tensor], arrays: Tuple[Any, ...],
                   kwargs: Dict[str, Any]) -> List[Any]:
        """One object per tensor parameter, from positions and names."""
        if len(arrays) > len(tensors):
            raise TypeError(f"kernel {self.name} takes {len(tensors)} "
                            f"arrays, {len(arrays)} given")
        objs: List[Any] = list(arrays) + [None] * (len(tensors) -
                                                  len(arrays))
        names = [t.name for t in tensors]
        for key, value in kwargs.items():
            if key not in names:
                raise TypeError(f"kernel {self.name} has no parameter "
                                f"{key!r} (tensors: {', '.join(names)}"
                                + "".join(f"; runtime scalar {s}"
                                          for s in self.scalars) + ")")
            i = names.index(key)
            if i < len(arrays):
                raise TypeError(f"kernel {self.name}: {key} given by "
                                "position and by name")
            objs[i] = value
        missing = [n for n, o in zip(names, objs) if o is None]
        if missing:
            raise TypeError(f"kernel {self.name}: no array for "
                            f"{', '.join(missing)}")
        return objs

    def _buffers(self, tensors: List[Tensor], objs: List[Any]
                 ) -> Tuple[List[Any], List[int]]:
        """Checked ctypes views of the arguments (a read-only input is
        copied) and their addresses; ValueError when an output overlaps
        another argument."""
        views, spans = [], []
        for t, obj in zip(tensors, objs):
            what = f"kernel {self.name}: argument {t.name}"
            mv = _as_buffer(obj, what)
            _check_buffer(mv, t, what)
            if mv.nbytes == 0:  # a runtime extent of 0: nothing to pass
                src: Any = bytearray()
            elif mv.readonly:
                src = bytearray(mv)
            else:
                src = mv.cast("B") if mv.ndim != 1 or mv.format != "B" \
                    else mv
            view = (ctypes.c_char * len(src)).from_buffer(src)
            views.append(view)
            spans.append((ctypes.addressof(view), len(src), t))
        for i, (a, n, t) in enumerate(spans):
            for b, m, u in spans[i + 1:]:
                if (t.written or u.written) and n and m and a < b + m \
                        and b < a + n:
                    raise ValueError(f"kernel {self.name}: {t.name} and "
                                     f"{u.name} share memory; the kernel "
                                     "writes one of them")
        return views, [a for a, _, _ in spans]

    def __call__(self, *arrays: Any, check: bool = False,
                 **kwargs: Any) -> Optional[CheckResult]:
        """Run the kernel on "arrays" (one per tensor parameter, in
        order, or by name) and the runtime scalars given by name
        (``M=100``), writing its outputs in place. With
        ``check=True``, also run the reference on copies of the inputs
        and raise CheckError on a mismatch or a race; return the
        CheckResult of a passing check (None without check)."""
        with self._lock:
            return self._launch(arrays, dict(kwargs), check)

    def _launch(self, arrays: Tuple[Any, ...], kwargs: Dict[str, Any],
                check: bool) -> Optional[CheckResult]:
        """__call__ under the program's lock (the scalars are bound into
        the program)."""
        scalars = self._bind(kwargs)
        tensors = self.tensors
        views, addrs = self._buffers(tensors,
                                     self._arguments(tensors, arrays, kwargs))
        if not check:
            self._run(addrs, scalars)
            return None
        work = lib.axe_program_work(self._prog)
        if work > CHECK_MAX_WORK:
            raise ValueError(f"kernel {self.name} does {work} element "
                             "operations, beyond check=True's limit of "
                             f"{CHECK_MAX_WORK} (as axe run); call it "
                             "without check")
        ref = [bytearray(v) for v in views]
        self._run(addrs, scalars)
        races, race_count, checked = self._reference(ref)
        cmp = _Compare()
        for t, v, r in zip(tensors, views, ref):
            cmp.tensor(t, bytes(v), bytes(r))
        if cmp.counts or race_count:
            raise CheckError(self.name, cmp.mismatches, cmp.counts, races,
                             race_count,
                             [t.name for t in tensors if not t.row_major])
        return CheckResult(cmp.max_abs, cmp.max_rel, checked)

    def _run(self, addrs: List[int], scalars: List[Any]) -> None:
        """One launch of the shared object; AxeError DOMAIN with the
        kernel's message when a data-dependent start was out of bounds
        (that operator instance was skipped, the rest ran)."""
        with self._call_lock:
            self._fn(*addrs, *scalars)
            err = self._error() if self._error is not None else None
        if err:
            raise AxeError("DOMAIN", f"kernel {self.name}: "
                           f"{err.decode('utf-8', 'replace')}")

    def _reference(self, bufs: List[bytearray]
                   ) -> Tuple[List[str], int, bool]:
        """Run the reference on "bufs" with race detection (without it
        past the detector's limits): the race texts, the racing accesses
        and whether races were looked for."""
        views = [(ctypes.c_char * len(b)).from_buffer(b) for b in bufs]
        ptrs = (ctypes.c_void_p * max(1, len(views)))(
            *[ctypes.addressof(v) for v in views])
        report = _lib.RaceReport()
        diag = Diag()
        st = lib.axe_program_reference_races(self._prog, ptrs,
                                             ctypes.byref(report),
                                             ctypes.byref(diag))
        if st == -4:  # CAPACITY: too large for the detector
            _lib.call(lib.axe_program_reference, self._prog, ptrs)
            return [], 0, False
        if st:
            _lib.fail(st, diag)
        texts = []
        buf = ctypes.create_string_buffer(512)
        for i in range(report.n):
            lib.axe_race_text(ctypes.byref(report.race[i]), buf, len(buf))
            texts.append(buf.value.decode("utf-8", "replace"))
        return texts, int(report.count), True


class CudaKernel(Kernel):
    """A kernel compiled for the CUDA target (``compile(...,
    target="cuda")`` or ``emulate=True``): ``name``, ``tensors``,
    ``scalars``, ``target`` ("cuda" or "cuda-emulated"), ``arch``
    ("sm_80"), ``cu_source`` (the emitted .cu) and ``so_path``. On a GPU
    it takes device arrays (``__cuda_array_interface__``: CuPy, ...; or
    DLPack through CuPy) and launches on ``stream`` (default: CuPy's
    current stream, else the default stream), asynchronously; emulated,
    it takes host arrays as the C target does. ``check=True`` compares
    with the reference (after a stream synchronize)."""

    def __init__(self, prog: ctypes.c_void_p, cu_text: bytes,
                 emulated: bool) -> None:
        self._init_program(prog)
        arch = ctypes.c_char_p()
        lib.axe_program_target(prog, ctypes.byref(arch))
        self.arch: str = (arch.value or b"").decode()
        self.target = "cuda-emulated" if emulated else "cuda"
        self.cu_source: str = cu_text.decode()
        so, self._call_lock, self.so_path, self.built = _cuda.build(
            cu_text, self.arch, emulated, cache_dir(), _cache_lock, _loaded)
        self._rt = _cuda.Runtime(so, emulated)
        self._fn = getattr(so, "axe_launch_" + self.name)
        self._fn.restype = ctypes.c_int
        n = lib.axe_program_tensor_count(prog)
        # int axe_launch_NAME(T *A, ..., int32_t M, double eps, ...,
        # cudaStream_t stream)
        self._fn.argtypes = ([ctypes.c_void_p] * n +
                             [ctypes.c_int32 if d == "i32" else
                              ctypes.c_double for d in self.scalar_dtypes] +
                             [ctypes.c_void_p])
        try:  # const char *axe_error_NAME(void): a start out of bounds
            self._error = getattr(so, f"axe_error_{self.name}")
            self._error.restype = ctypes.c_char_p
            self._error.argtypes = []
        except AttributeError:
            self._error = None
        self._lock = threading.Lock()
        self._prog = prog

    def __call__(self, *arrays: Any, check: bool = False, stream: Any = None,
                 **kwargs: Any) -> Optional[CheckResult]:
        """Run the kernel (see the class); a tensor named ``check`` or
        ``stream`` only by position."""
        with self._lock:
            scalars = self._bind(kwargs)
            tensors = self.tensors
            objs = self._arguments(tensors, arrays, kwargs)
            if self._rt.emulated:
                if stream is not None:
                    raise TypeError(f"kernel {self.name}: the emulation "
                                    "runs synchronously; it takes no "
                                    "stream")
                return self._emulated(tensors, objs, scalars, check)
            ptrs = []
            for t, obj in zip(tensors, objs):
                what = f"kernel {self.name}: argument {t.name}"
                cai = _cuda.device_array(obj, what)
                packed = t.dtype == "i4"  # a uint8 array of its bytes
                ptrs.append(_cuda.check_device(
                    cai, t.dtype,
                    _i4.packed_shape(t.shape) if packed else t.shape,
                    _storage(t) if packed else t.elems, t.written,
                    t.row_major,
                    _want_text(t).replace("C-contiguous ",
                                          "C-contiguous device "), what))
            return self._device(tensors, ptrs, scalars,
                                _cuda.stream_handle(stream), check)

    def _emulated(self, tensors: List[Tensor], objs: List[Any],
                  scalars: List[Any], check: bool) -> Optional[CheckResult]:
        """Host arrays through emulated device memory (cudaMalloc'd, so
        the race detector sees the global accesses)."""
        views, addrs = self._buffers(tensors, objs)
        with self._call_lock:  # the emulation's state is global
            return self._emulated_locked(tensors, views, addrs, scalars,
                                         check)

    def _emulated_locked(self, tensors: List[Tensor], views: List[Any],
                         addrs: List[int], scalars: List[Any],
                         check: bool) -> Optional[CheckResult]:
        rt, dev = self._rt, []
        try:
            for v, a in zip(views, addrs):
                d = rt.malloc(len(v))
                if not d:
                    raise AxeError("NO_MEMORY", f"kernel {self.name}: the "
                                   "emulation's cudaMalloc failed")
                dev.append(d)
                rt.check(self.name, rt.copy(d, a, len(v), _cuda.H2D),
                         "cudaMemcpy")
            result = self._device(tensors, dev, scalars, None, check)
            for t, v, a, d in zip(tensors, views, addrs, dev):
                if t.written and len(v):
                    rt.check(self.name, rt.copy(a, d, len(v), _cuda.D2H),
                             "cudaMemcpy")
            return result
        finally:
            for d in dev:
                rt.free(d)

    def _device(self, tensors: List[Tensor], ptrs: List[int],
                scalars: List[Any], stream: Optional[int],
                check: bool) -> Optional[CheckResult]:
        """The launch on device pointers "ptrs"; with "check", host copies
        of every argument before it, the outputs after a synchronize, the
        reference and the comparison."""
        rt = self._rt
        sizes = [_storage(t) for t in tensors]
        ref: List[bytearray] = []
        if check:
            work = lib.axe_program_work(self._prog)
            if work > CHECK_MAX_WORK:
                raise ValueError(f"kernel {self.name} does {work} element "
                                 "operations, beyond check=True's limit "
                                 f"of {CHECK_MAX_WORK} (as axe run); call "
                                 "it without check")
            rt.check(self.name, rt.sync(stream), "cudaStreamSynchronize")
            ref = [self._to_host(p, n) for p, n in zip(ptrs, sizes)]
        with self._call_lock:
            rc = self._fn(*ptrs, *scalars, stream)
            err = (self._error() if rc == _cuda.CUDA_ERROR_ASSERT and
                   self._error is not None else None)
            emu_races = rt.races() if rt.emulated else 0
        if err:
            raise AxeError("DOMAIN", f"kernel {self.name}: "
                           f"{err.decode('utf-8', 'replace')}")
        if rc != 0:
            e = rt.error(self.name, rc, f"axe_launch_{self.name}")
            if getattr(e, "cuda_error", "") in ("cudaErrorNoDevice",
                                                "cudaErrorInsufficientDriver"):
                e = AxeError("CUDA", e.reason + " -- no usable GPU here: "
                             "target='cuda' runs on a GPU; emulate=True "
                             "runs the same CUDA on the CPU")
            raise e
        if not check:
            return None
        rt.check(self.name, rt.sync(stream), "cudaStreamSynchronize")
        got = [self._to_host(p, n) for p, n in zip(ptrs, sizes)]
        races, race_count, checked = self._reference(ref)
        if emu_races:
            races.append(f"the emulation found {emu_races} racing "
                         "accesses (axe-emu-race lines on stderr)")
            race_count += emu_races
        cmp = _Compare()
        for t, g, r in zip(tensors, got, ref):
            cmp.tensor(t, bytes(g), bytes(r))
        if cmp.counts or race_count:
            raise CheckError(self.name, cmp.mismatches, cmp.counts, races,
                             race_count,
                             [t.name for t in tensors if not t.row_major])
        return CheckResult(cmp.max_abs, cmp.max_rel, checked)

    def _to_host(self, ptr: int, n: int) -> bytearray:
        buf = bytearray(n)
        if n:
            view = (ctypes.c_char * n).from_buffer(buf)
            self._rt.check(self.name,
                           self._rt.copy(ctypes.addressof(view), ptr, n,
                                         _cuda.D2H), "cudaMemcpy")
        return buf


class TrnKernel(Kernel):
    """A core kernel compiled for the accelerator simulator
    (``compile(..., target="trn-sim")``): called as a C-target kernel
    (host arrays, ``check=True``), it runs the engine instructions on the
    simulator, which checks every access against the machine model. After
    a call, ``cycles`` holds the simulated cycles and ``engines`` each
    engine's ``Engine(instructions, busy)`` (None and {} before the
    first); a refused access raises AxeError ``TRN``."""

    def __init__(self, prog: ctypes.c_void_p, c_text: bytes) -> None:
        super().__init__(prog, _trn.with_header(c_text))
        self.target = "trn-sim"
        self._trn = _trn.bind(self._so, self.name)
        self.cycles: Optional[int] = None
        self.engines: Dict[str, _trn.Engine] = {}

    def _run(self, addrs: List[int], scalars: List[Any]) -> None:
        with self._call_lock:
            self._fn(*addrs, *scalars)
            cycles, engines = _trn.outcome(self._trn, self.name)
        self.cycles, self.engines = cycles, engines


def _target_options(o: KernelOptions, target: Optional[str],
                    arch: Optional[str], emulate: bool) -> Optional[bool]:
    """Set the options' target; None for the C target, else whether the
    CUDA one is emulated."""
    if target not in (None, "c", "cuda", "cuda-emulated", "trn-sim"):
        raise ValueError(f"target={target!r}: 'c', 'cuda', "
                         "'cuda-emulated' or 'trn-sim'")
    if target == "trn-sim" and (arch is not None or emulate):
        raise ValueError("target='trn-sim' runs on the simulator: it takes "
                         "no arch and no emulate")
    if emulate and target == "c":
        raise ValueError("emulate=True runs the CUDA target on the CPU; "
                         "target='c' is the C backend (drop one)")
    emulated = emulate or target == "cuda-emulated"
    if target == "trn-sim":
        _lib.call(lib.axe_kernel_options_target, ctypes.byref(o), b"trn-sim",
                  None)
        return None
    if not emulated and target in (None, "c"):
        if arch is not None:
            raise ValueError(f"arch={arch!r} is for target='cuda'")
        return None
    diag = Diag()
    st = lib.axe_kernel_options_target(
        ctypes.byref(o), b"cuda",
        None if arch is None else _lib.name_bytes(arch, "arch"),
        ctypes.byref(diag))
    if st:
        _lib.fail(st, diag)
    return emulated


def compile(path_or_source: Union[str, "os.PathLike[str]"], *,
            target: Optional[str] = None, arch: Optional[str] = None,
            emulate: bool = False, **params: int) -> Kernel:
    """Compile a kernel (a .axe path, or its source text: a str holding a
    newline or '{') with the compile-time params ``-D NAME=VALUE`` given
    as keywords; AxeError with FILE:LINE:COL and the reason when the
    program is wrong; the shared object is built with $CC (default cc)
    once and cached (``cache_dir()``). ``target="cuda"`` (``arch``:
    "sm_80", ...) builds the emitted .cu with $NVCC into a
    ``CudaKernel`` that takes device arrays; ``emulate=True`` (or
    ``target="cuda-emulated"``) builds it with $CXX against the CPU
    emulation and takes host arrays; ``target="trn-sim"`` compiles a
    core kernel for the accelerator simulator (``TrnKernel``: host
    arrays, ``cycles`` and ``engines`` after each call)."""
    text, where = _read_source(path_or_source)
    opts = _options(params)
    emulated = _target_options(opts, target, arch, emulate)
    if emulated is False:
        _cuda.nvcc_command()  # what is missing, before compiling
    prog = _compile_program(text, where, opts)
    try:
        name = os.fsencode(os.path.basename(where))
        if emulated is not None or target == "trn-sim":
            n = lib.axe_program_emit(prog, name, None, 0)
            buf = ctypes.create_string_buffer(n + 1)
            lib.axe_program_emit(prog, name, buf, n + 1)
            if n == 0:
                raise AxeError("NO_MEMORY", "emitting the code ran out of "
                               "memory")
            if target == "trn-sim":
                return TrnKernel(prog, buf.value)
            return CudaKernel(prog, buf.value, bool(emulated))
        n = lib.axe_program_emit_c(prog, name, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        lib.axe_program_emit_c(prog, name, buf, n + 1)
        if n == 0:
            raise AxeError("NO_MEMORY", "emitting the C ran out of memory")
        return Kernel(prog, buf.value)
    except BaseException:
        lib.axe_program_free(prog)
        raise
