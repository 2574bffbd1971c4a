# SPDX-License-Identifier: Apache-2.0
"""Every case of ../shared/vectors/cute.jsonl and axe.jsonl through the
Python API, compared as vectors/README.md says (functions by brute-force
evaluation in oracle.py); mapping.jsonl runs in test_mapping.py."""

import json
import os

import pytest

import axe
import axe.cute as cute
from axe import AxeError, TileLayout
from axe.cute import Layout

import oracle

SHARED = os.environ.get("AXE_SHARED_DIR") or os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "shared")


def load(name):
    path = os.path.join(SHARED, "vectors", name)
    if not os.path.exists(path):
        pytest.skip(f"no shared vectors at {path} (set AXE_SHARED_DIR)")
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fmt(t):
    """An int tuple in the notation: `(2,(3,_))`."""
    if isinstance(t, tuple):
        return "(" + ",".join(fmt(e) for e in t) + ")"
    return "_" if t is None else str(t)


def as_layout(x):
    return Layout(x) if isinstance(x, (tuple, int)) else x


# ---- CuTe ops -------------------------------------------------------------

def _a(args):
    return axe.layout(args["a"])


def _b(args):
    return axe.layout(args["b"])


def _mode(obj, args):
    if "mode" not in args:
        return obj
    return cute.get(as_layout(obj), *args["mode"])


def op_size(args):
    a = _mode(_a(args), args)
    return cute.size(a)


def op_cosize(args):
    return cute.cosize(_mode(as_layout(_a(args)), args))


def op_complement(args):
    a = as_layout(_a(args))
    if "n" in args:
        return cute.complement(a, args["n"])
    if "b" in args:
        b = _b(args)
        if isinstance(b, tuple):
            return cute.complement(a, b)
        return cute.complement(a, cute.size(b))
    return cute.complement(a, cute.cosize(a))


def op_composition(args):
    a, b = _a(args), _b(args)
    if isinstance(b, int):
        b = Layout(b, 1)
    return cute.composition(as_layout(a), b)


def _product_b(b):
    return as_layout(b)


CUTE_OPS = {
    "size": op_size,
    "cosize": op_cosize,
    "coalesce": lambda a: cute.coalesce(as_layout(_a(a)),
                                        _b(a) if "b" in a else None),
    "coalesce_x": lambda a: cute.coalesce_x(as_layout(_a(a))),
    "filter": lambda a: cute.filter(as_layout(_a(a))),
    "flatten": lambda a: cute.flatten(_a(a)),
    "composition": op_composition,
    "complement": op_complement,
    "right_inverse": lambda a: cute.right_inverse(as_layout(_a(a))),
    "left_inverse": lambda a: cute.left_inverse(as_layout(_a(a))),
    "nullspace": lambda a: cute.nullspace(as_layout(_a(a))),
    "eval": lambda a: as_layout(_a(a))(_b(a)),
    "slice": lambda a: cute.slice_(_b(a), _a(a)),
    "dice": lambda a: cute.dice(_b(a), _a(a)),
    "recast_layout": lambda a: cute.recast_layout(_a(a), *a["n"]),
    "tile_to_shape": lambda a: cute.tile_to_shape(
        as_layout(_a(a)), _b(a), axe.layout(a["c"]) if "c" in a else None),
}
for _k in ("logical", "zipped", "tiled", "flat"):
    CUTE_OPS[f"{_k}_divide"] = (lambda f: lambda a: f(as_layout(_a(a)),
                                                      _b(a)))(
        getattr(cute, f"{_k}_divide"))
for _k in ("logical", "zipped", "tiled", "flat", "blocked", "raked"):
    CUTE_OPS[f"{_k}_product"] = (lambda f: lambda a: f(
        as_layout(_a(a)), _product_b(_b(a))))(getattr(cute,
                                                      f"{_k}_product"))


def check_cute(case, got):
    cmp, exp_text = case["cmp"], case.get("expect")
    a = case["args"].get("a")
    if cmp == "int":
        return got == exp_text
    if cmp == "exact":
        text = got.notation() if hasattr(got, "notation") else fmt(got)
        return text.replace(" ", "") == exp_text.replace(" ", "")
    exp = axe.layout(exp_text)
    if isinstance(exp, tuple):
        return same_tiler(got, exp)
    if cmp == "layout":
        return (oracle.profile(got) == oracle.profile(exp) and
                oracle.size_of(got) == oracle.size_of(exp) and
                oracle.same_function(got, exp, oracle.size_of(exp)))
    if cmp == "function":
        n = oracle.size_of(exp)
        return oracle.size_of(got) == n and oracle.same_function(got, exp, n)
    if cmp == "function_prefix":
        return oracle.same_function(got, exp, oracle.size_of(exp))
    src = as_layout(axe.layout(a))
    if cmp == "right_inverse":
        n = oracle.size_of(got)
        return n == oracle.size_of(exp) and all(
            oracle.value_of(src, oracle.value_of(got, k)) == k
            for k in range(n))
    if cmp == "left_inverse":
        return all(oracle.value_of(src, oracle.value_of(
            got, oracle.value_of(src, k))) == oracle.value_of(src, k)
            for k in range(oracle.size_of(src)))
    raise AssertionError(f"unknown cmp {cmp}")


def same_tiler(got, exp):
    """Tilers (tuples of layouts and None) equal element by element."""
    if isinstance(exp, tuple):
        return (isinstance(got, tuple) and len(got) == len(exp) and
                all(same_tiler(g, e) for g, e in zip(got, exp)))
    if exp is None or got is None:
        return exp is got
    n = oracle.size_of(exp)
    return oracle.size_of(got) == n and oracle.same_function(got, exp, n)


# Cases run but not counted, each with its reason (vectors/README.md);
# none, as in tests/test_vectors.c.
SKIP: dict = {}


def composition_verified(case, got):
    """A composition the references reject but that equals a(b(i))."""
    a = as_layout(axe.layout(case["args"]["a"]))
    b = axe.layout(case["args"]["b"])
    b = Layout(b, 1) if isinstance(b, int) else as_layout(b)
    n = oracle.size_of(b)
    return oracle.size_of(got) == n and all(
        oracle.value_of(got, i) == oracle.value_of(a, oracle.value_of(b, i))
        for i in range(n))


def run_cute(case):
    name = case["op"].split(".", 1)[1]
    fn = CUTE_OPS[name]
    if case.get("expect_error") or case["cmp"] == "error":
        try:
            got = fn(case["args"])
        except (AxeError, TypeError, IndexError) as e:
            return True, f"rejected: {e}"
        ok = name == "composition" and composition_verified(case, got)
        return ok, f"accepted: {got}"
    got = fn(case["args"])
    try:
        return check_cute(case, got), f"got {got!r}"
    except (AttributeError, TypeError) as e:
        return False, f"got {got!r}, which does not compare: {e}"


def test_cute_vectors():
    cases = load("cute.jsonl")
    failed = []
    for case in cases:
        if case["id"] in SKIP:
            print(f"skip {case['id']}: {SKIP[case['id']]}")
            continue
        try:
            ok, what = run_cute(case)
            ok = bool(ok)
        except (AxeError, TypeError, IndexError) as e:
            ok, what = False, f"error {type(e).__name__}: {e}"
        if not ok:
            failed.append(f"{case['id']} {case['op']} {case['args']} "
                          f"expect {case.get('expect')}: {what}")
    ran = len(cases) - len(SKIP)
    print(f"cute.jsonl: {ran - len(failed)}/{ran} passed, {len(SKIP)} "
          "skipped with a reason")
    assert not failed, "\n".join(failed)


# ---- Axe ops --------------------------------------------------------------

def L(args, key="layout"):
    return axe.layout(args[key])


def tgt(args):
    return args.get("target")


def tirx(args):
    return args.get("tirx", False)


def op_apply(args):
    lay = L(args)
    if "swizzle_inner" in args:
        per, blen, atom, _ = lay.swizzle
        lay = lay.with_swizzle(per, blen, atom, args["swizzle_inner"])
    if "shape" in args:
        return lay.apply(*args["coord"], shape=args["shape"])
    if len(args["coord"]) == 1:
        return lay.apply(args["coord"][0])
    return lay.apply(*args["coord"])


def op_parse(args):
    lay = axe.layout(args["text"])
    return {"shard": [list(i) for i in lay.shard],
            "replica": [list(i) for i in lay.replica],
            "offset": lay.offset}


def op_axis_info(args):
    info = axe.axis_info(args["axis"])
    return {"is_thread": info["kind"] == "thread",
            "is_memory": info["kind"] == "memory",
            "scope": info["scope"], "subscope": info["subscope"]}


def op_equal(args):
    a, b = L(args, "a"), L(args, "b")
    if args.get("canonicalize"):
        a, b = a.canonicalize(tgt(args)), b.canonicalize(tgt(args))
    return a == b


def op_group(args):
    lay, seps = L(args).group(args["shape"])
    return {"layout": lay, "seps": seps}


def op_group_many(args):
    lay, seps = L(args).group_many(args["shapes"])
    return {"layout": lay, "seps": seps}


def op_get_scope(args):
    scope = L(args).get_scope()
    return None if scope is None else list(scope)


def op_apply_set(args):
    return L(args).apply_set(args["coord"], shape=args.get("shape"))


AXE_OPS = {
    "apply": op_apply,
    "apply_set": op_apply_set,
    "apply_to_shape": lambda a: L(a).apply_to_shape(a["coord"], a["shape"]),
    "parse": op_parse,
    "axis_info": op_axis_info,
    "equal": op_equal,
    "get_scope": op_get_scope,
    "verify_well_formed": lambda a: L(a).verify_well_formed(),
    "canonicalize": lambda a: L(a).canonicalize(tgt(a)),
    "size": lambda a: L(a).size(a.get("axis")),
    "span": lambda a: L(a).span(a.get("axis"), tirx=tirx(a)),
    "group": op_group,
    "group_many": op_group_many,
    "tile": lambda a: L(a, "inner").tile(L(a, "outer"), a["outer_shape"],
                                         a["inner_shape"], tgt(a),
                                         tirx=tirx(a)),
    "is_tile_inner": lambda a: L(a, "inner").is_tile_inner(
        L(a, "tiled"), a["tiled_shape"], a["inner_shape"], tgt(a),
        tirx=tirx(a)),
    "is_tile_outer": lambda a: L(a, "outer").is_tile_outer(
        L(a, "tiled"), a["tiled_shape"], a["outer_shape"], tgt(a),
        tirx=tirx(a)),
    "tile_to": lambda a: L(a).tile_to(a["to_shape"], a["current_shape"],
                                      tgt(a), tirx=tirx(a)),
    "slice": lambda a: L(a).slice(a["shape"], a["region"], tgt(a)),
    "direct_sum": lambda a: L(a, "b").direct_sum(L(a, "a"), a["a_shape"],
                                                 a["b_shape"]),
    "is_direct_sum_right": lambda a: L(a, "b").is_direct_sum_right(
        L(a, "sum"), a["interleaved_shape"], a["b_shape"]),
    "is_direct_sum_left": lambda a: L(a, "a").is_direct_sum_left(
        L(a, "sum"), a["interleaved_shape"], a["a_shape"]),
    "permute_dims": lambda a: L(a).permute_dims(a["perm"]),
    "permute_by_groups": lambda a: L(a).permute_by_groups(a["seps"],
                                                          a["perm"]),
    "storage": lambda a: L(a).storage(),
    "pack": lambda a: L(a).pack(a["num"]),
    "unpack": lambda a: L(a).unpack(a["num"]),
    "broadcast": lambda a: L(a).broadcast(a["num"], a.get("position", -1),
                                          a.get("axis", "m")),
    "trainium": lambda a: TileLayout.trainium(a["annotation"], a["shape"]),
    "tmem_datapath_layout": lambda a: TileLayout.tmem_datapath(
        a["datapath"], a["rows"], a["cols"], a.get("sub_slab", 0)),
    "tmem_mma_operand_layout": lambda a: TileLayout.tmem_mma_operand(
        a["operand"], a["shape"], a["dtype"], a["M"], a.get("cta_group", 1),
        a.get("ws", False), a.get("group")),
    "wg_local_layout": lambda a: TileLayout.wg_local(a["cols"],
                                                     a.get("rows", 128)),
    "mma_shared_layout": lambda a: TileLayout.mma_shared(
        a["dtype"], a["swizzle_mode"], a["shape"]),
}


def struct_key(lay):
    if lay is None:
        return None
    rep = sorted(lay.replica)
    off = {k: v for k, v in lay.offset.items() if v}
    return (lay.swizzle, lay.shard, rep, off)


def point_key(p):
    return tuple(sorted((k, v) for k, v in p.items() if v))


def check_axe(case, got):
    cmp, exp = case["cmp"], case.get("expect")
    if cmp in ("int", "json"):
        return got == exp
    if cmp == "axe_point":
        return point_key(got) == point_key(exp)
    if cmp == "axe_points":
        return sorted(map(point_key, got)) == sorted(map(point_key, exp))
    if cmp == "axe_struct":
        return struct_key(got) == struct_key(
            None if exp is None else axe.layout(exp))
    if cmp == "axe_group":
        return (struct_key(got["layout"]) ==
                struct_key(axe.layout(exp["layout"])) and
                got["seps"] == exp["seps"])
    if cmp == "axe_function":
        if exp is None or got is None:
            return exp is None and got is None
        return oracle.same_axe_function(got, axe.layout(exp))
    raise AssertionError(f"unknown cmp {cmp}")


def run_axe(case):
    args = case["args"]
    fn = AXE_OPS[case["op"].split(".", 1)[1]]
    if case.get("expect_error") or case["cmp"] == "error":
        try:
            got = fn(args)
        except AxeError as e:
            return True, f"rejected: {e}"
        return False, f"accepted: {got}"
    got = fn(args)
    if args.get("canonicalize") and isinstance(got, TileLayout):
        got = got.canonicalize(tgt(args))
    return check_axe(case, got), f"got {got!r}"


def test_axe_vectors():
    cases = load("axe.jsonl")
    failed = []
    for case in cases:
        try:
            ok, what = run_axe(case)
        except (AxeError, TypeError, IndexError) as e:
            ok, what = False, f"error {type(e).__name__}: {e}"
        if not ok:
            failed.append(f"{case['id']} {case['op']} {case['args']} "
                          f"expect {case.get('expect')}: {what}")
    print(f"axe.jsonl: {len(cases) - len(failed)}/{len(cases)} passed")
    assert not failed, "\n".join(failed)


