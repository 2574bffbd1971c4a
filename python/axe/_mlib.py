# SPDX-License-Identifier: Apache-2.0
"""ctypes view of libaxe's mapping-expression, linear-layout and render
ABI (include/axe/mapping.h, notation_mapping.h, linear.h, render.h).

Invariant: every struct mirrors its C definition field for field (the tests
check the layout by round trips through the library: parse, print, map),
and every function is called through ``_lib.call`` or ``_lib.check`` so a
nonzero status becomes an ``AxeError`` with the library's reason.
"""

from ctypes import (POINTER, Structure, c_bool, c_char, c_char_p, c_int,
                    c_int16, c_int64, c_size_t, c_uint8, c_uint32, c_void_p)

from ._lib import (AXIS_NAME_MAX, LAYOUT_MAX_DIMS, AxeLayout, CuteLayout,
                   Diag, lib)

MAPPING_MAX_AXES = 16
MAPPING_MAX_NODES = 96
MAPPING_NAME_MAX = 32
LINCOMB_MAX = 8
LINEAR_MAX_DIMS = 8
LINEAR_MAX_BITS = 32

CELL_INDEX, CELL_PADDING, CELL_OUT_OF_BOUNDS = 0, 1, 2


class MappingAxes(Structure):
    _fields_ = [("n", c_int),
                ("name", (c_char * MAPPING_NAME_MAX) * MAPPING_MAX_AXES),
                ("size", c_int64 * MAPPING_MAX_AXES)]


class MappingNode(Structure):
    _fields_ = [("op", c_uint8), ("kind", c_uint8), ("a", c_int16),
                ("b", c_int16), ("n", c_int64), ("size", c_int64)]


class Mapping(Structure):
    _fields_ = [("axes", MappingAxes), ("nnodes", c_int),
                ("node", MappingNode * MAPPING_MAX_NODES)]


class MappingCell(Structure):
    _fields_ = [("kind", c_int), ("padding", c_int),
                ("coord", c_int64 * MAPPING_MAX_AXES)]


class MappingEnv(Structure):
    _fields_ = [("axes", POINTER(MappingAxes)), ("ndefs", c_int),
                ("def_name", POINTER(c_char_p)),
                ("def_text", POINTER(c_char_p)), ("nconsts", c_int),
                ("const_name", POINTER(c_char_p)),
                ("const_value", POINTER(c_int64)), ("primes", c_bool)]


class MappingIndex(Structure):
    _fields_ = [("cell", MappingCell), ("used", c_uint32)]


class MappingTile(Structure):
    _fields_ = [("source", POINTER(Mapping)), ("index", POINTER(Mapping)),
                ("len", c_int64), ("view", POINTER(Mapping)),
                ("start", c_int64), ("write", c_bool)]


class MappingPart(Structure):
    _fields_ = [("expr", POINTER(Mapping)), ("axis", c_char_p),
                ("scale", c_int64), ("holes", c_bool)]


class MappingLincomb(Structure):
    _fields_ = [("n", c_int), ("term", Mapping * LINCOMB_MAX),
                ("scale", c_int64 * LINCOMB_MAX)]


class Linear(Structure):
    _fields_ = [("nin", c_int), ("nout", c_int),
                ("in_name", (c_char * AXIS_NAME_MAX) * LINEAR_MAX_DIMS),
                ("in_bits", c_int * LINEAR_MAX_DIMS),
                ("out_name", (c_char * AXIS_NAME_MAX) * LINEAR_MAX_DIMS),
                ("out_bits", c_int * LINEAR_MAX_DIMS),
                ("basis", ((c_int64 * LINEAR_MAX_DIMS) * LINEAR_MAX_BITS)
                 * LINEAR_MAX_DIMS)]


class RenderBuf(Structure):
    _fields_ = [("data", c_void_p), ("len", c_size_t), ("cap", c_size_t),
                ("status", c_int), ("alloc", c_void_p), ("ud", c_void_p)]


class RenderOptions(Structure):
    _fields_ = [("view", c_int), ("format", c_int), ("title", c_char_p),
                ("color_by", c_char_p), ("ndims", c_int),
                ("shape", c_int64 * LAYOUT_MAX_DIMS), ("colex", c_bool),
                ("elem_bytes", c_int64), ("has_access", c_bool),
                ("access", CuteLayout), ("alloc", c_void_p),
                ("ud", c_void_p)]


P = POINTER
_M, _AX, _CE, _D = P(Mapping), P(MappingAxes), P(MappingCell), P(Diag)
_ENV, _LIN, _A = P(MappingEnv), P(Linear), P(AxeLayout)
_I64, _PI64 = c_int64, P(c_int64)

_PROTOS = {
    "axe_mapping_axes_add": (c_int, [_AX, c_char_p, _I64, _D]),
    "axe_mapping_axes_find": (c_int, [_AX, c_char_p, c_size_t]),
    "axe_mapping_root": (c_int, [_M]),
    "axe_mapping_size": (c_int64, [_M]),
    "axe_mapping_uses_axis": (c_bool, [_M, c_int, c_int]),
    "axe_mapping_map": (c_int, [_M, _I64, _CE, _D]),
    "axe_mapping_inverse": (c_int, [_M, _CE, _PI64, c_int, P(c_int), _D]),
    "axe_mapping_equivalent": (c_int, [_M, _M, P(c_bool), _D]),
    "axe_mapping_normalize": (c_int, [_M, _M, _D]),
    "axe_mapping_tile_check": (c_int, [P(MappingTile), _CE, _D]),
    "axe_mapping_tile_map": (c_int, [P(MappingTile), _I64, _CE, _D]),
    "axe_mapping_tile_map_checked": (c_int, [P(MappingTile), _CE, _I64, _CE,
                                             _D]),
    "axe_mapping_tile_view": (c_int, [_M, _M, _I64, c_bool, _M, _D]),
    "axe_mapping_tile_view_at": (c_int, [_M, _M, _I64, _I64, c_bool, _M,
                                         _CE, _D]),
    "axe_mapping_to_layout": (c_int, [P(MappingPart), c_int, P(c_char_p),
                                      c_int, _A, _D]),
    "axe_mapping_from_layout": (c_int, [_A, _AX, _M, _D]),
    "axe_mapping_from_layout_holes": (c_int, [_A, _AX, _M, _D]),
    "axe_mapping_lincomb_size": (c_int, [P(MappingLincomb), _PI64]),
    "axe_mapping_lincomb_map": (c_int, [P(MappingLincomb), _I64, _CE, c_int,
                                        P(c_int), _D]),
    "axe_mapping_cell_unskew": (c_int, [_AX, c_int, c_int, c_int, _CE]),
    "axe_parse_mapping": (c_int, [c_char_p, c_size_t, _ENV, _M, _D]),
    "axe_parse_mapping_axes": (c_int, [c_char_p, c_size_t, _AX, _D]),
    "axe_parse_mapping_index": (c_int, [c_char_p, c_size_t, _ENV,
                                        P(MappingIndex), _D]),
    "axe_parse_mapping_lincomb": (c_int, [c_char_p, c_size_t, _ENV,
                                          P(MappingLincomb), _D]),
    "axe_print_mapping": (c_size_t, [_M, c_char_p, c_size_t]),
    "axe_print_mapping_macro": (c_size_t, [_M, c_char_p, c_size_t]),
    "axe_padding_kind_name": (c_char_p, [c_int]),
    "axe_linear_apply": (c_int, [_LIN, _PI64, _PI64]),
    "axe_linear_from_layout": (c_int, [_A, _PI64, c_int, _LIN, _D]),
    "axe_linear_invert": (c_int, [_LIN, _LIN, _D]),
    "axe_linear_to_layout": (c_int, [_LIN, _A, _D]),
    "axe_linear_to_triton": (c_int, [_A, _PI64, c_int, _LIN, _D]),
    "axe_linear_from_triton": (c_int, [_LIN, _A, _D]),
    "axe_print_linear": (c_size_t, [_LIN, c_char_p, c_size_t]),
    "axe_parse_linear": (c_int, [c_char_p, c_size_t, _LIN, _D]),
    "axe_render_buf_init": (None, [P(RenderBuf), c_void_p, c_void_p]),
    "axe_render_buf_free": (None, [P(RenderBuf)]),
    "axe_render_options_init": (None, [P(RenderOptions)]),
    "axe_render_layout": (c_int, [P(RenderOptions), _A, P(RenderBuf), _D]),
    "axe_render_tv": (c_int, [P(RenderOptions), P(CuteLayout), P(RenderBuf),
                              _D]),
}

for _name, (_res, _args) in _PROTOS.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def printed(fn, obj):
    """The text printer "fn" writes for "obj" (grown until it fits)."""
    cap = 4096
    while True:
        buf = (c_char * cap)()
        n = fn(obj, buf, cap)
        if n < cap:
            return buf.value.decode()
        cap = n + 1
