# SPDX-License-Identifier: Apache-2.0
"""ctypes view of libaxe's C ABI: the value structs, the prototypes and the
error mapping.

Every struct here mirrors one in include/axe/*.h field for field (the tests
check the sizes against the library by parsing and printing through them).
Invariant: a function is called with structs of these exact types, and a
nonzero status never escapes as a number: ``check`` turns it into an
``AxeError`` carrying the library's reason. Fast paths call without a
diagnostic and call once more with one only when the status is an error, so
the reason costs nothing on success (every library call is pure).
"""

from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_int,
                    c_int32, c_int64, c_long, c_size_t, c_uint8, c_uint32,
                    c_void_p)

TUPLE_MAX_LEAVES = 32
TUPLE_MAX_TOKENS = 96
TUPLE_MAX_DEPTH = 16
UNDERSCORE = -(1 << 63)
TILER_MAX = 8
TILER_MAX_TOKENS = 32
AXIS_NAME_MAX = 16
LAYOUT_MAX_SHARD = 32
LAYOUT_MAX_REPLICA = 8
LAYOUT_MAX_OFFSET = 8
LAYOUT_MAX_DIMS = 16
POINT_MAX_AXES = 16
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

STATUS_NAMES = {
    -1: "INVALID", -2: "SYNTAX", -3: "OVERFLOW", -4: "CAPACITY",
    -5: "NOT_COMPOSABLE", -6: "NOT_INJECTIVE", -7: "INCOMPATIBLE",
    -8: "DIVISIBILITY", -9: "DOMAIN", -10: "NO_MEMORY", -11: "UNSUPPORTED",
    -12: "UNKNOWN_OP", -13: "IO",
}


class AxeError(ValueError):
    """A status of libaxe with its reason: ``status`` is the status name
    ("NOT_COMPOSABLE"), ``reason`` the library's sentence, ``offset`` the
    byte offset into parsed text (-1 when not about text). Tracebacks
    name it ``axe.AxeError``, where users import it from."""

    __module__ = "axe"

    def __init__(self, status: str, reason: str, offset: int = -1) -> None:
        self.status = status
        self.reason = reason
        self.offset = offset
        where = f" at offset {offset}" if offset >= 0 else ""
        super().__init__(f"{status}: {reason}{where}")


class Diag(Structure):
    _fields_ = [("offset", c_long), ("message", c_char * 256)]


class Tuple(Structure):
    _fields_ = [("nleaf", c_uint8), ("ntok", c_uint8),
                ("tok", c_char * TUPLE_MAX_TOKENS),
                ("v", c_int64 * TUPLE_MAX_LEAVES)]


class CuteLayout(Structure):
    _fields_ = [("cshape", Tuple), ("cstride", c_int64 * TUPLE_MAX_LEAVES),
                ("cbasis", c_uint32 * TUPLE_MAX_LEAVES)]


class CutePoint(Structure):
    _fields_ = [("n", c_int), ("basis", c_uint32 * TUPLE_MAX_LEAVES),
                ("v", c_int64 * TUPLE_MAX_LEAVES)]


class CuteTiler(Structure):
    _fields_ = [("ntok", c_uint8), ("nelem", c_uint8),
                ("tok", c_char * TILER_MAX_TOKENS),
                ("elem", CuteLayout * TILER_MAX)]


class Swizzle(Structure):
    _fields_ = [("bits", c_int32), ("base", c_int32), ("shift", c_int32)]


OUTER_SWIZZLE, OUTER_LAYOUT = 0, 1


class CuteComposed(Structure):
    _fields_ = [("kind", c_int), ("swizzle", Swizzle), ("outer", CuteLayout),
                ("offset", Tuple), ("inner", CuteLayout)]


KIND_TUPLE, KIND_LAYOUT, KIND_TILER, KIND_SWIZZLE, KIND_COMPOSED = range(5)


class CuteObject(Structure):
    _fields_ = [("kind", c_int), ("tuple", Tuple), ("layout", CuteLayout),
                ("tiler", CuteTiler), ("swizzle", Swizzle),
                ("composed", CuteComposed)]


class Iter(Structure):
    _fields_ = [("extent", c_int64), ("stride", c_int64),
                ("axis", c_char * AXIS_NAME_MAX)]


class Offset(Structure):
    _fields_ = [("axis", c_char * AXIS_NAME_MAX), ("value", c_int64)]


class LayoutSwizzle(Structure):
    _fields_ = [("present", c_bool), ("inner", c_bool),
                ("per_element", c_int32), ("len", c_int32),
                ("atom", c_int32)]


class AxeLayout(Structure):
    _fields_ = [("nshard", c_uint8), ("nreplica", c_uint8),
                ("noffset", c_uint8), ("swizzle", LayoutSwizzle),
                ("shard", Iter * LAYOUT_MAX_SHARD),
                ("replica", Iter * LAYOUT_MAX_REPLICA),
                ("offset", Offset * LAYOUT_MAX_OFFSET)]


class Point(Structure):
    _fields_ = [("n", c_int),
                ("axis", (c_char * AXIS_NAME_MAX) * POINT_MAX_AXES),
                ("v", c_int64 * POINT_MAX_AXES)]


class AxisInfo(Structure):
    _fields_ = [("name", c_char * AXIS_NAME_MAX), ("kind", c_int),
                ("scope", c_int), ("subscope", c_int),
                ("registered", c_bool)]


MESH_MAX_AXES = 8
SHARDING_OP_MAX = 8


class AxeMesh(Structure):
    _fields_ = [("n", c_int), ("size", c_int64 * MESH_MAX_AXES),
                ("name", (c_char * AXIS_NAME_MAX) * MESH_MAX_AXES)]


class AxeSharding(Structure):
    _fields_ = [("ndims", c_int),
                ("naxes", ctypes.c_int8 * LAYOUT_MAX_DIMS),
                ("axis", (ctypes.c_int8 * MESH_MAX_AXES) * LAYOUT_MAX_DIMS),
                ("partial", ctypes.c_uint32),
                ("op", c_char * SHARDING_OP_MAX)]


KERNEL_NAME_MAX = 32
KERNEL_TARGET_MAX = 16
KERNEL_MAX_DEFINES = 16
KERNEL_MAX_FORCED = 8
KERNEL_MAX_DIMS = 8
RACE_MAX = 32
RACE_MAX_DIMS = 8
RACE_ITER_MAX = 64


class TrnModel(Structure):
    _fields_ = [(name, c_int64) for name in (
        "partitions", "sbuf_partition_bytes", "psum_partition_bytes",
        "psum_bank_bytes", "matmul_max_m", "matmul_max_n", "matmul_max_k",
        "matmul_fixed_cycles", "vector_fixed_cycles",
        "vector_elems_per_cycle", "dma_fixed_cycles", "dma_bytes_per_cycle")]


class KernelOptions(Structure):
    _fields_ = [("ndefines", c_int),
                ("define_name",
                 (c_char * KERNEL_NAME_MAX) * KERNEL_MAX_DEFINES),
                ("define_value", c_int64 * KERNEL_MAX_DEFINES),
                ("nforced", c_int),
                ("forced_op", (c_char * KERNEL_NAME_MAX) * KERNEL_MAX_FORCED),
                ("forced_schedule",
                 (c_char * KERNEL_NAME_MAX) * KERNEL_MAX_FORCED),
                ("target", c_char * KERNEL_TARGET_MAX), ("arch", c_int),
                ("naive", c_bool),
                ("trn", TrnModel)]


class KernelTensor(Structure):
    _fields_ = [("name", c_char * KERNEL_NAME_MAX), ("dtype", c_int),
                ("elems", c_int64), ("written", c_bool), ("ndim", c_int),
                ("shape", c_int64 * KERNEL_MAX_DIMS), ("row_major", c_bool),
                ("distributed", c_bool), ("local_elems", c_int64)]


class KernelScalar(Structure):
    _fields_ = [("name", c_char * KERNEL_NAME_MAX), ("dtype", c_int)]


class RaceAccess(Structure):
    _fields_ = [("thread", c_int64), ("cta", c_int64), ("line", c_int),
                ("write", c_bool), ("iter", c_char * RACE_ITER_MAX)]


class Race(Structure):
    _fields_ = [("tensor", c_char * KERNEL_NAME_MAX), ("ndim", c_int),
                ("index", c_int64 * RACE_MAX_DIMS), ("address", c_int64),
                ("first", RaceAccess), ("second", RaceAccess),
                ("cross_cta", c_bool), ("uninit", c_bool),
                ("count", c_int64), ("mesh", c_bool),
                ("device", c_int64)]


class RaceReport(Structure):
    _fields_ = [("count", c_int64), ("n", c_int), ("race", Race * RACE_MAX)]


def _find_library():
    """libaxe: $AXE_LIBRARY, else the copy bundled in this package, else a
    build tree of the source checkout this package lies in."""
    env = os.environ.get("AXE_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "libaxe.so")
    if os.path.exists(bundled):
        return bundled
    root = os.path.dirname(os.path.dirname(here))
    for preset in ("release", "dev"):
        cand = os.path.join(root, "build", preset, "libaxe.so")
        if os.path.exists(cand):
            return cand
    raise ImportError("libaxe.so not found: install the package with "
                      "`pip install ./python`, or set AXE_LIBRARY")


lib = ctypes.CDLL(_find_library())

P = POINTER
_T, _L, _D = P(Tuple), P(CuteLayout), P(Diag)
_TL, _A, _PT = P(CuteTiler), P(AxeLayout), P(Point)
_I64, _PI64, _PI = c_int64, P(c_int64), P(c_int)
_C = P(CuteComposed)

_PROTOS = {
    "axe_status_name": (c_char_p, [c_int]),
    "axe_version": (c_char_p, []),
    "axe_tuple_size": (c_int, [_T, _PI64]),
    "axe_tuple_crd2idx": (c_int, [_T, _T, _PI64]),
    "axe_cute_make": (c_int, [_T, _T, _L]),
    "axe_cute_make_col_major": (c_int, [_T, _L]),
    "axe_tuple_idx2crd": (c_int, [_I64, _T, _T]),
    "axe_cute_has_basis": (c_bool, [_L]),
    "axe_cute_size": (c_int, [_L, _PI64]),
    "axe_cute_cosize": (c_int, [_L, _PI64]),
    "axe_cute_get": (c_int, [_L, c_int, _L]),
    "axe_cute_flatten": (c_int, [_L, _L]),
    "axe_cute_get_path": (c_int, [_L, _PI, c_int, _L]),
    "axe_cute_complement_shape": (c_int, [_L, _T, _L, _D]),
    "axe_tuple_slice": (c_int, [_T, _T, _T, _D]),
    "axe_tuple_dice": (c_int, [_T, _T, _T, _D]),
    "axe_cute_eval": (c_int, [_L, _I64, _PI64]),
    "axe_cute_eval_crd": (c_int, [_L, _T, _PI64]),
    "axe_cute_eval_point": (c_int, [_L, _I64, P(CutePoint)]),
    "axe_cute_coalesce": (c_int, [_L, _L]),
    "axe_cute_coalesce_by": (c_int, [_L, _T, _L]),
    "axe_cute_coalesce_extended": (c_int, [_L, _L]),
    "axe_cute_filter": (c_int, [_L, _L]),
    "axe_cute_compose": (c_int, [_L, _L, _L, _D]),
    "axe_cute_compose_tiler": (c_int, [_L, _TL, _L, _D]),
    "axe_cute_complement": (c_int, [_L, _I64, _L, _D]),
    "axe_cute_complement_extended": (c_int, [_L, _I64, _L, _D]),
    "axe_cute_right_inverse": (c_int, [_L, _L, _D]),
    "axe_cute_left_inverse": (c_int, [_L, _L, _D]),
    "axe_cute_nullspace": (c_int, [_L, _L, _D]),
    "axe_cute_divide": (c_int, [c_int, _L, _TL, _L, _D]),
    "axe_cute_divide_layout": (c_int, [c_int, _L, _L, _L, _D]),
    "axe_cute_product": (c_int, [c_int, _L, _L, _L, _D]),
    "axe_cute_tile_to_shape": (c_int, [_L, _T, _T, _L, _D]),
    "axe_cute_slice": (c_int, [_L, _T, _L, P(CutePoint), _D]),
    "axe_cute_dice": (c_int, [_L, _T, _L, _D]),
    "axe_cute_recast": (c_int, [_L, _I64, _I64, _L, _D]),
    "axe_swizzle_make": (c_int, [c_int, c_int, c_int, P(Swizzle), _D]),
    "axe_swizzle_apply": (c_int64, [P(Swizzle), _I64]),
    "axe_cute_composed_eval_point": (c_int, [_C, _I64, P(CutePoint)]),
    "axe_cute_composed_size": (c_int, [_C, _PI64]),
    "axe_cute_composed_cosize": (c_int, [_C, _PI64]),
    "axe_cute_composed_with_inner": (c_int, [_C, _L, _C]),
    "axe_cute_composed_slice": (c_int, [_C, _T, _C, _D]),
    "axe_cute_composed_recast": (c_int, [_C, _I64, _I64, _C, _D]),
    "axe_parse_cute": (c_int, [c_char_p, c_size_t, P(CuteObject), _D]),
    "axe_print_cute_layout": (c_size_t, [_L, c_char_p, c_size_t]),
    "axe_print_cute_composed": (c_size_t, [_C, c_char_p, c_size_t]),
    "axe_print_swizzle": (c_size_t, [P(Swizzle), c_char_p, c_size_t]),
    "axe_print_cute_tiler": (c_size_t, [_TL, c_char_p, c_size_t]),
    "axe_parse_layout": (c_int, [c_char_p, c_size_t, _A, _D]),
    "axe_print_layout": (c_size_t, [_A, c_char_p, c_size_t]),
    "axe_layout_init": (None, [_A]),
    "axe_layout_push_shard": (c_int, [_A, _I64, _I64, c_char_p]),
    "axe_layout_push_replica": (c_int, [_A, _I64, _I64, c_char_p]),
    "axe_layout_add_offset": (c_int, [_A, c_char_p, _I64]),
    "axe_layout_row_major": (c_int, [_PI64, c_int, _A]),
    "axe_layout_size": (c_int, [_A, c_char_p, _PI64]),
    "axe_layout_span": (c_int, [_A, c_char_p, _PI64]),
    "axe_layout_span_rule": (c_int, [_A, c_char_p, c_int, _PI64]),
    "axe_layout_get_scope": (c_int, [_A, P(c_bool), _PI, _PI, _D]),
    "axe_layout_verify_well_formed": (c_int, [_A, _D]),
    "axe_layout_apply_base": (c_int, [_A, _I64, _PT, _D]),
    "axe_layout_apply_digits": (c_int, [_A, _PI64, c_int, _PT, _D]),
    "axe_layout_apply_shape": (c_int, [_A, _PI64, _PI64, c_int, _PT, _D]),
    "axe_layout_digits_of": (c_int, [_A, _PI64, _PI64, c_int, _PI64, _PI,
                                     _D]),
    "axe_layout_apply_set": (c_int, [_A, _PI64, _PI64, c_int, _PT, c_int,
                                     _PI, _D]),
    "axe_layout_backward": (c_int, [_A, _PT, c_bool, _PI64, P(c_bool), _D]),
    "axe_point_add": (c_int, [_PT, c_char_p, _I64]),
    "axe_layout_canonicalize": (c_int, [_A, c_int, _A, _D]),
    "axe_layout_normalize": (c_int, [_A, _A, _D]),
    "axe_layout_equal": (c_bool, [_A, _A]),
    "axe_layout_equivalent": (c_int, [_A, _A, P(c_bool), _D]),
    "axe_layout_group": (c_int, [_A, _PI64, c_int, _A, _PI, _D]),
    "axe_layout_group_many": (c_int, [_A, P(_PI64), _PI, c_int, _A,
                                      c_void_p, _D]),
    "axe_layout_tile": (c_int, [_A, _PI64, _A, _PI64, c_int, c_int, _A, _D]),
    "axe_layout_is_tile_inner": (c_int, [_A, _A, _PI64, _PI64, c_int, c_int,
                                         _A, P(c_bool), _D]),
    "axe_layout_is_tile_outer": (c_int, [_A, _A, _PI64, _PI64, c_int, c_int,
                                         _A, P(c_bool), _D]),
    "axe_layout_tile_to": (c_int, [_A, _PI64, _PI64, c_int, c_int, _A, _D]),
    "axe_layout_tile_rule": (c_int, [_A, _PI64, _A, _PI64, c_int, c_int,
                                     c_int, _A, _D]),
    "axe_layout_is_tile_inner_rule": (c_int, [_A, _A, _PI64, _PI64, c_int,
                                              c_int, c_int, _A, P(c_bool),
                                              _D]),
    "axe_layout_is_tile_outer_rule": (c_int, [_A, _A, _PI64, _PI64, c_int,
                                              c_int, c_int, _A, P(c_bool),
                                              _D]),
    "axe_layout_tile_to_rule": (c_int, [_A, _PI64, _PI64, c_int, c_int,
                                        c_int, _A, _D]),
    "axe_layout_intersect": (c_int, [_A, _A, c_char_p, c_int, _A, _D]),
    "axe_layout_intersect_iters_rule": (c_int, [_A, _A, c_char_p, c_int,
                                                c_int, _A, _D]),
    "axe_layout_slice": (c_int, [_A, _PI64, _PI64, _PI64, c_int, c_int, _A,
                                 P(c_bool), _D]),
    "axe_layout_direct_sum": (c_int, [_A, _PI64, _A, _PI64, c_int, _A, _D]),
    "axe_layout_is_direct_sum_right": (c_int, [_A, _A, _PI64, _PI64, c_int,
                                               _A, P(c_bool), _D]),
    "axe_layout_is_direct_sum_left": (c_int, [_A, _A, _PI64, _PI64, c_int,
                                              _A, P(c_bool), _D]),
    "axe_layout_from_cute": (c_int, [_L, _A, _D]),
    "axe_layout_to_cute": (c_int, [_A, _L, _D]),
    "axe_layout_from_cute_composed": (c_int, [_C, _A, _D]),
    "axe_layout_to_cute_composed": (c_int, [_A, _C, _D]),
    "axe_layout_storage": (c_int, [_A, _A, _D]),
    "axe_layout_pack": (c_int, [_A, _I64, _A, _D]),
    "axe_layout_unpack": (c_int, [_A, _I64, _A, _D]),
    "axe_layout_broadcast": (c_int, [_A, _I64, c_int, c_char_p, _A, _D]),
    "axe_layout_permute_dims": (c_int, [_A, _PI, c_int, _A, _D]),
    "axe_layout_permute_by_groups": (c_int, [_A, _PI, c_int, _PI, c_int, _A,
                                             _D]),
    "axe_layout_trainium": (c_int, [c_char_p, _PI64, c_int, _A, _D]),
    "axe_layout_to_psum": (c_int, [_A, _A, _D]),
    "axe_layout_tmem_datapath": (c_int, [c_char, _I64, _I64, c_int, _A, _D]),
    "axe_layout_tmem_mma_operand": (c_int, [c_char, _PI64, c_int, c_char_p,
                                            _I64, c_int, c_bool, _PI64, c_int,
                                            _A, _D]),
    "axe_layout_wg_local": (c_int, [_I64, _I64, _A, _D]),
    "axe_layout_mma_shared": (c_int, [c_char_p, c_int, _PI64, c_int, _A,
                                      _D]),
    "axe_parse_mesh": (c_int, [c_char_p, c_size_t, P(AxeMesh), _D]),
    "axe_print_mesh": (c_size_t, [P(AxeMesh), c_char_p, c_size_t]),
    "axe_parse_sharding": (c_int, [c_int, c_char_p, c_size_t, P(AxeMesh),
                                   c_int, P(AxeSharding), _D]),
    "axe_print_sharding": (c_size_t, [c_int, P(AxeSharding), P(AxeMesh),
                                      c_char_p, c_size_t]),
    "axe_sharding_to_layout": (c_int, [P(AxeSharding), P(AxeMesh), _PI64,
                                       c_int, _A, _D]),
    "axe_sharding_from_layout": (c_int, [c_int, _A, P(AxeMesh), _PI64,
                                         c_int, ctypes.c_uint32, c_char_p,
                                         P(AxeSharding), _D]),
    "axe_axis_lookup": (c_int, [c_char_p, P(AxisInfo), _D]),
    "axe_axis_declare": (c_int, [c_char_p, c_int, c_int, c_int, _D]),
    "axe_scope_name": (c_char_p, [c_int]),
    "axe_kernel_options_init": (None, [P(KernelOptions)]),
    "axe_kernel_options_define": (c_int, [P(KernelOptions), c_char_p,
                                          _I64]),
    "axe_program_compile_full": (c_int, [c_char_p, c_size_t,
                                         P(KernelOptions), c_void_p,
                                         P(c_void_p), _D, c_char_p,
                                         c_size_t, P(c_size_t)]),
    "axe_program_free": (None, [c_void_p]),
    "axe_program_name": (c_char_p, [c_void_p]),
    "axe_program_tensor_count": (c_int, [c_void_p]),
    "axe_program_tensor": (KernelTensor, [c_void_p, c_int]),
    "axe_program_scalar_count": (c_int, [c_void_p]),
    "axe_program_scalar": (KernelScalar, [c_void_p, c_int]),
    "axe_program_bind": (c_int, [c_void_p, _PI64, _D]),
    "axe_program_bind_f": (c_int, [c_void_p, P(ctypes.c_double), _D]),
    "axe_program_emit_c": (c_size_t, [c_void_p, c_char_p, c_char_p,
                                      c_size_t]),
    "axe_program_emit": (c_size_t, [c_void_p, c_char_p, c_char_p,
                                    c_size_t]),
    "axe_kernel_options_target": (c_int, [P(KernelOptions), c_char_p,
                                          c_char_p, _D]),
    "axe_program_target": (c_char_p, [c_void_p, P(c_char_p)]),
    "axe_program_work": (c_int64, [c_void_p]),
    "axe_program_reference": (c_int, [c_void_p, P(c_void_p), _D]),
    "axe_program_reference_races": (c_int, [c_void_p, P(c_void_p),
                                            P(RaceReport), _D]),
    "axe_race_text": (c_size_t, [P(Race), c_char_p, c_size_t]),
    "axe_dtype_name": (c_char_p, [c_int]),
    "axe_dtype_size": (c_int, [c_int]),
    "axe_dtype_storage": (c_int64, [c_int, c_int64]),
    "axe_e4m3_to_float": (ctypes.c_float, [c_uint8]),
    "axe_e5m2_to_float": (ctypes.c_float, [c_uint8]),
    "axe_dtype_tolerance": (c_int, [c_int, P(ctypes.c_double),
                                    P(ctypes.c_double)]),
}

for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def status_name(st):
    """The status name of code "st" ("NOT_COMPOSABLE")."""
    return STATUS_NAMES.get(st) or lib.axe_status_name(st).decode()


def fail(st, diag=None, what=None):
    """Raise the AxeError of status "st" with the reason in "diag" (or the
    status's own message when the library gave none)."""
    reason = diag.message.decode("utf-8", "replace") if diag else ""
    offset = diag.offset if diag else -1
    if not reason:
        reason = what or STATUS_NAMES.get(st, "error").lower()
    raise AxeError(status_name(st), reason, offset)


def raise_error(st, reason, offset=-1):
    """Raise the AxeError of status "st" with the library's "reason" (the
    extension axe._fast reports its failures through this)."""
    raise AxeError(status_name(st), reason or STATUS_NAMES.get(st, "error")
                   .lower(), offset)


def call(fn, *args):
    """fn(*args, diag): raise AxeError with the reason on a nonzero status.
    The last argument slot of "fn" is its diag."""
    diag = Diag()
    st = fn(*args, diag)
    if st:
        fail(st, diag)


def call_fast(fn, *args):
    """fn(*args, NULL); on failure repeat with a diag for the reason."""
    st = fn(*args, None)
    if st:
        call(fn, *args)
        fail(st)


def check(st, what):
    """Raise for a nonzero status of a function that takes no diag."""
    if st:
        fail(st, None, what)


def index_like(x):
    """Whether "x" is an int or an int-like scalar (numpy's ints)."""
    return isinstance(x, int) or (hasattr(type(x), "__index__") and
                                  not isinstance(x, (tuple, list)))


def text_bytes(text, what="text"):
    """"text" (a str) as UTF-8 for the library: TypeError for another
    type, AxeError SYNTAX at the byte offset of a lone surrogate (a str
    that is not Unicode text, which UTF-8 cannot encode)."""
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    try:
        return text.encode()
    except UnicodeEncodeError as e:
        at = len(text[:e.start].encode())
        raise AxeError("SYNTAX", f"{what} holds the lone surrogate "
                       f"U+{ord(text[e.start]):04X} at character {e.start}, "
                       "which is not Unicode text", at) from None


def name_bytes(name, what="axis name"):
    """"name" (a str) encoded for the library, which reads a name up to
    its first NUL: AxeError INVALID for a name holding one."""
    raw = text_bytes(name, what)
    if b"\0" in raw:
        raise AxeError("INVALID", f"{what} {name!r} contains a NUL "
                       "character")
    return raw


def i64(x, what="value"):
    """"x" as a Python int in int64 range (AxeError OVERFLOW otherwise)."""
    try:
        v = x.__index__()
    except AttributeError:
        raise TypeError(f"{what} must be an integer, not {type(x).__name__}")
    if v < INT64_MIN or v > INT64_MAX:
        raise AxeError("OVERFLOW", f"{what} {v} does not fit in 64 bits")
    return v


INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def i32(x, what="value"):
    """"x" as a Python int in C int range (AxeError OVERFLOW otherwise):
    for the parameters the library takes as a C int, which ctypes would
    otherwise truncate silently."""
    v = i64(x, what)
    if v < INT32_MIN or v > INT32_MAX:
        raise AxeError("OVERFLOW", f"{what} {v} does not fit in a C int")
    return v


def i32_array(values, what="value"):
    """A ctypes int array of "values" (each checked by i32)."""
    vals = [i32(v, what) for v in values]
    return (c_int * max(1, len(vals)))(*vals), len(vals)


def i64_array(values, what="value"):
    """A ctypes int64 array of "values" (each checked by i64)."""
    vals = [i64(v, what) for v in values]
    return (c_int64 * max(1, len(vals)))(*vals), len(vals)


def version() -> str:
    """The version string of the libaxe that was loaded."""
    return lib.axe_version().decode()
