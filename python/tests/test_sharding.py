# SPDX-License-Identifier: Apache-2.0
"""axe.sharding: table rows written from the convention (docs/algebra.md
§33), refusals with their statuses, round trips, and a comparison with JAX
itself: for a few hundred random meshes (1-3 axes, at most 8 devices) and
PartitionSpecs, every device holds exactly the index slices of
``NamedSharding(mesh, spec).devices_indices_map(shape)`` on 8 forced CPU
devices, each element at its row-major offset in the slice (skipped with
the reason when jax cannot be imported)."""
import itertools
import os
import random

import pytest

import axe
import axe.sharding as sh

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")


def test_rows():
    assert str(sh.from_jax("P('x', None)", "x=2,y=4", [8, 16])) == \
        "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]"
    assert str(sh.from_jax(("x", None), {"x": 2, "y": 4}, [8, 16])) == \
        "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]"
    assert str(sh.from_jax("P(('x','y'), None)", "x=2,y=4", (8, 16))) == \
        "S[(2,4,16):(4@gpuid,1@gpuid,1)]"
    assert str(sh.from_dtensor("[Shard(0), Shard(1)]", [2, 2], [64, 128])) \
        == "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]"
    assert str(sh.from_dtensor(["Replicate()", "Shard(dim=1)"], [2, 4],
                               [8, 16])) == \
        "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]"
    assert str(sh.from_alpa("RS1", "2,2", [64, 128])) == \
        "S[(64,2,64):(64,1@gpuid,1)] + R[2:2@gpuid]"
    p = sh.from_dtensor("[Shard(0), Partial()]", "x=2,y=4", [8, 16])
    assert isinstance(p, sh.Partial) and p.op == "sum"
    assert str(p) == "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid] partial(sum)"
    assert sh.to_dtensor(p, "x=2,y=4", [8, 16]) == "[Shard(0), Partial()]"
    assert sh.to_dtensor(str(p), "x=2,y=4", [8, 16]) == \
        "[Shard(0), Partial()]"
    lay = axe.layout("S[(8,16):(1@gpuid,1)]")
    assert sh.to_jax(lay, "x=2,y=4", [8, 16]) == "P(('x', 'y'), None)"
    assert sh.to_dtensor(lay, "x=2,y=4", [8, 16]) == "[Shard(0), Shard(0)]"
    assert sh.to_alpa(lay, "x=2,y=4", [8, 16]) == "S01R"


def test_refusals():
    with pytest.raises(axe.AxeError) as e:
        sh.from_dtensor("[Replicate(), Shard(1)]", "x=2,y=4", [8, 10])
    assert e.value.status == "DIVISIBILITY"
    assert "dim 1 of extent 10" in e.value.reason
    assert "4 devices" in e.value.reason
    with pytest.raises(axe.AxeError) as e:
        sh.to_jax("S[(2,4,16):(16,4@gpuid,1)]", "x=2,y=4", [8, 16])
    assert e.value.status == "UNSUPPORTED"
    assert "interleaves devices" in e.value.reason
    with pytest.raises(axe.AxeError) as e:
        sh.to_jax(sh.Partial(axe.layout("S[(8,16):(16,1)] + R[8:1@gpuid]"),
                             "sum"), "x=8", [8, 16])
    assert "no pending reduction" in e.value.reason
    with pytest.raises(axe.AxeError) as e:
        sh.from_jax("P('z')", "x=2,y=4", [8, 16])
    assert e.value.status == "INVALID" and "no axis z" in e.value.reason
    with pytest.raises(axe.AxeError) as e:
        sh.from_jax("P('x'", "x=2", [8])
    assert e.value.status == "SYNTAX" and e.value.offset == 5
    with pytest.raises(TypeError):
        sh.from_jax("P('x')", 3.5, [8])
    with pytest.raises(TypeError):
        sh.from_jax("P('x')", "x=2", "8")


def _random_mesh(rng):
    names = rng.sample(["x", "y", "z", "data", "model"], rng.randint(1, 3))
    sizes, p = [], 1
    for _ in names:
        s = rng.randint(1, 8)
        while p * s > 8:
            s -= 1
        sizes.append(s)
        p *= s
    return names, sizes


def _random_spec(rng, names, sizes):
    """Entries per dim (None, a name or a tuple of names) and a shape
    divisible by them."""
    ndims = rng.randint(1, 3)
    dims = [[] for _ in range(ndims)]
    for a in names:
        d = rng.randint(-1, ndims - 1)
        if d >= 0:
            dims[d].append(a)
    shape, entries = [], []
    for axes in dims:
        rng.shuffle(axes)
        q = 1
        for a in axes:
            q *= sizes[names.index(a)]
        shape.append(q * rng.randint(1, 3))
        entries.append(None if not axes else
                       axes[0] if len(axes) == 1 and rng.random() < 0.5
                       else tuple(axes))
    return entries, shape


def _holdings(layout, shape):
    """device -> {coordinate: offset} from apply_set."""
    held = {}
    for crd in itertools.product(*(range(n) for n in shape)):
        for pt in layout.apply_set(list(crd), list(shape), cap=64):
            dev = held.setdefault(pt.get("gpuid", 0), {})
            assert crd not in dev
            dev[crd] = pt.get("m", 0)
    return held


def _jax_holdings(sharding, shape):
    """device id -> {coordinate: row-major offset in its slice}."""
    out = {}
    for dev, idx in sharding.devices_indices_map(tuple(shape)).items():
        ranges = [range(*sl.indices(n)) for sl, n in zip(idx, shape)]
        local = [len(r) for r in ranges]
        held = {}
        for crd in itertools.product(*ranges):
            off = 0
            for c, r, n in zip(crd, ranges, local):
                off = off * n + (c - r.start)
            held[crd] = off
        out[dev.id] = held
    return out


def test_against_jax():
    try:
        import jax
        import numpy as np
        from jax.sharding import Mesh, NamedSharding, PartitionSpec
    except Exception as e:  # noqa: BLE001 (jax absent or broken)
        pytest.skip(f"jax cannot be imported ({e})")
    devices = jax.devices()
    if len(devices) < 8:
        pytest.skip(f"jax sees {len(devices)} devices, not 8 (XLA_FLAGS "
                    "was set after jax started)")
    rng = random.Random(int(os.environ.get("AXE_TEST_SEED", "20261129")))
    for _ in range(300):
        names, sizes = _random_mesh(rng)
        entries, shape = _random_spec(rng, names, sizes)
        p = 1
        for s in sizes:
            p *= s
        mesh = Mesh(np.array(devices[:p]).reshape(sizes), tuple(names))
        spec = PartitionSpec(*entries)
        want = _jax_holdings(NamedSharding(mesh, spec), shape)
        lay = sh.from_jax(spec, mesh, shape)
        got = _holdings(lay, shape)
        assert got == want, f"{spec!r} over {mesh.shape} {shape}: {lay}"
        text = sh.to_jax(lay, mesh, shape)
        back = eval(text, {"P": PartitionSpec})  # our own printed text
        assert _jax_holdings(NamedSharding(mesh, back), shape) == want, text
        assert str(sh.from_jax(text, mesh, shape)) == str(lay)
