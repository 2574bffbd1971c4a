# SPDX-License-Identifier: Apache-2.0
"""Differential test against NVIDIA's pycute (nvidia-cutlass 4.2.0.0,
installed with --no-deps): on seeded random layouts (fixed default seed,
printed; AXE_TEST_SEED=N replays), coalesce, complement, right_inverse,
left_inverse, composition, logical_divide and logical_product of axe and
pycute are compared as functions, and the int-tuple helpers are compared
value for value.

Where the two differ, the defining property (evaluated by oracle.py)
decides who is right, and each such case is printed. A right inverse must
also be *maximal*: for an injective layout its size is the least value
not in the image; otherwise, of two valid right inverses the larger one
wins and the smaller is a defect. axe must be right whenever it answers,
and may reject only where pycute's answer (if any) is wrong. Every case
where pycute is wrong (invalid answer, assertion where axe is right, or a
smaller right inverse) must fall in one of the known defect classes of
PYCUTE_DEFECTS, each recognised by a predicate on the input; an
unclassified pycute failure fails the test, as does any axe failure."""

import pytest

import axe.cute as cute
from axe import AxeError
from axe.cute import Layout

import oracle

pycute = pytest.importorskip(
    "pycute", reason="pycute missing: pip install --no-deps "
    "nvidia-cutlass==4.2.0.0 (never `pip install pycute`)")

N = 300


def ev(lay, i):
    return oracle.value_of(lay, i)


def image(a, n=None):
    return [ev(a, i) for i in range(cute.size(a) if n is None else n)]


def to_axe(p):
    return Layout(p.shape, p.stride)


def to_py(x):
    if isinstance(x, Layout):
        return pycute.Layout(x.shape, x.stride)
    if isinstance(x, tuple):
        return tuple(to_py(e) for e in x)
    return x


class Garbage:
    """A pycute answer that is no layout (an extent 0, ...): wrong."""

    def __init__(self, p):
        self.text = str(p)

    def __repr__(self):
        return f"{self.text} (not a layout)"


def py_call(fn, *args):
    try:
        p = fn(*args)
    except Exception as e:  # pycute asserts or fails in arithmetic
        return e
    try:
        r = to_axe(p)
        cute.size(r)
        return r
    except AxeError:
        return Garbage(p)


# ---- the defining properties ----------------------------------------------

def is_coalesce(a, r):
    n = cute.size(a)
    return (cute.size(r) == n and image(r) == image(a) and
            not any(isinstance(s, tuple) for s in oracle.leaves(r.shape)))


def is_complement(a, m, r):
    """r increasing, v + r(j) distinct over a's distinct values v and all
    j (so (a, r) is injective when a is), reaching at least m - 1."""
    im = set(image(a))
    vals = image(r)
    full = [v + w for w in vals for v in im]
    return (vals == sorted(set(vals)) and len(set(full)) == len(full) and
            max(full) + 1 >= m)


def is_injective(a):
    vals = image(a)
    return len(set(vals)) == len(vals)


def least_missing(a):
    im, k = set(image(a)), 0
    while k in im:
        k += 1
    return k


def is_right_inverse(a, r):
    """a(r(k)) == k below size(r); for an injective layout with strides
    >= 0 also maximal: size(r) is the least value not in a's image."""
    if any(ev(a, ev(r, k)) != k for k in range(cute.size(r))):
        return False
    return not is_injective(a) or cute.size(r) == least_missing(a)


def is_left_inverse(a, r):
    return all(ev(r, ev(a, k)) == k for k in range(cute.size(a)))


def is_composition(a, b, r):
    n = cute.size(b)
    return cute.size(r) == n and all(
        ev(r, i) == ev(a, ev(b, i)) for i in range(n))


def is_divide(a, b, r):
    """r = a o (b, c) for a layout b: r's first mode is a o b and, for an
    injective b, r enumerates a's values."""
    if b is None:
        return r == a
    if isinstance(b, int):
        b = Layout(b, 1)
    if isinstance(b, tuple):
        return (len(r) == len(a) and
                all(is_divide(a[i], b[i], r[i]) for i in range(len(b))) and
                all(r[i] == a[i] for i in range(len(b), len(a))))
    nb = cute.size(b)
    return (cute.size(r[0]) == nb and
            all(ev(r, i) == ev(a, ev(b, i)) for i in range(nb)) and
            (not is_injective(b) or
             set(image(r)) == set(image(a, cute.size(r)))))


def is_product(a, b, r):
    """r = (a, c o b) with c an increasing map whose values, added to a's,
    stay distinct: r has two modes, the first of size(a), r(i) = a(i), r(i + na j) = a(i) + X(j) with X(j)
    ordered and repeated exactly as b(j)."""
    if isinstance(b, int):
        b = Layout(b, 1)
    na, nb = cute.size(a), cute.size(b)
    if cute.size(r) != na * nb or len(r) != 2 or cute.size(r[0]) != na:
        return False
    vals, bv = image(r), image(b)
    x = [vals[na * j] for j in range(nb)]
    if vals[:na] != image(a) or any(vals[i + na * j] != vals[i] + x[j]
                                    for j in range(nb) for i in range(na)):
        return False
    pairs = sorted(set(zip(bv, x)))
    keys = [p[0] for p in pairs]
    xs = [p[1] for p in pairs]
    sums = [v + y for y in xs for v in image(a)]
    return (len(set(keys)) == len(keys) and xs == sorted(set(xs)) and
            len(set(sums)) == len(sums))


# ---- pycute's known defects -------------------------------------------------
# A pycute failure must be explained by one of these classes; each is
# recognised on the input by re-walking pycute's algorithm (pycute 4.2.0's
# layout.py) and spotting the step that goes wrong.

DEFECTS = {
    "left-gaps": "left_inverse on a non-contiguous image: right_inverse((a, "
                 "complement(a))) is not a left inverse",
    "right-nonmax": "right_inverse non-maximal on a non-injective layout: "
                    "pycute stops at the first sorted stride that is not the "
                    "running product",
    "compose-outside": "composition outside A's domain: pycute coalesces A "
                       "first, changing A past size(A) where CuTe continues "
                       "along A's last mode",
    "compose-stride": "composition: pycute asserts stride divisibility "
                      "against every mode of coalesce(A), also modes that B "
                      "never crosses",
    "compose-shape": "composition without shape divisibility: pycute "
                     "truncates B's extent (rest_shape // new_shape) and "
                     "returns a smaller layout",
    "complement-overlap": "complement of overlapping or interleaved modes: "
                          "pycute returns extent 0 (stride // current_idx)",
    "product-int": "logical_product with an integer tiler: pycute calls "
                   "logical_divide",
}


def _image_has_gaps(a):
    vals = sorted(image(a))
    return vals != list(range(len(vals)))


def complement_flags(a):
    flags, cur = set(), 1
    pairs = zip(oracle.leaves(a.stride), oracle.leaves(a.shape))
    for d, s in sorted(pairs):
        if d == 0 or s == 1:
            continue
        if d < cur:
            flags.add("complement-overlap")
        cur = s * d
    return flags


def compose_flags(a, b):
    """The steps of pycute's composition(a, b) that go wrong."""
    if isinstance(b, int):
        b = Layout(b, 1)
    if isinstance(b, tuple):
        return set().union(*[compose_flags(a[i], e) for i, e in enumerate(b)
                             if e is not None])
    flags = set()
    if max(image(b)) >= cute.size(a):
        flags.add("compose-outside")
    sh = oracle.leaves(cute.coalesce(a).shape)[:-1]
    for s, d in zip(oracle.leaves(b.shape), oracle.leaves(b.stride)):
        for cs in sh if d else ():
            if cs % d and d % cs:
                flags.add("compose-stride")
                break
            new = min(max(1, cs // d), s)
            if s % new:
                flags.add("compose-shape")
            s, d = s // new, -(-d // cs)
    return flags


def divide_flags(a, b):
    """pycute: composition(a, (b, complement(b, size(a)))), by mode."""
    if b is None:
        return set()
    if isinstance(b, int):
        b = Layout(b, 1)
    if isinstance(b, tuple):
        return set().union(*[divide_flags(a[i], e) for i, e in enumerate(b)])
    flags = complement_flags(b)
    if flags:
        return flags
    c = to_axe(pycute.complement(to_py(b), cute.size(a)))
    return compose_flags(a, cute.make_layout(b, c))


def product_flags(a, b):
    """pycute: (a, composition(complement(a, size(a) cosize(b)), b))."""
    if isinstance(b, int):
        return {"product-int"}
    flags = complement_flags(a)
    if flags:
        return flags
    c = to_axe(pycute.complement(to_py(a), cute.size(a) * cute.cosize(b)))
    return compose_flags(c, b)


CLASSIFY = {
    "left_inverse": lambda a: {"left-gaps"} if _image_has_gaps(a) else set(),
    "right_inverse": lambda a: set() if is_injective(a) else {"right-nonmax"},
    "composition": compose_flags,
    "complement": lambda a, m: complement_flags(a),
    "logical_divide": divide_flags,
    "logical_product": product_flags,
}


def classify(name, args):
    """The known defects that explain pycute's failure on "args" ("; "
    joined), or None."""
    flags = CLASSIFY[name](*args) if name in CLASSIFY else set()
    return "; ".join(DEFECTS[f] for f in sorted(flags)) or None


def judge(name, args, ours, theirs, valid, larger_wins=False):
    """Compare; print and decide disagreements by "valid" (and, with
    "larger_wins", by size among valid answers); a pycute failure must be
    a known defect."""
    ok_ours = not isinstance(ours, Exception) and valid(ours)
    ok_theirs = isinstance(theirs, Layout) and valid(theirs)
    if isinstance(ours, Exception) and isinstance(theirs, Exception):
        return "both reject"
    if (ok_ours and ok_theirs and cute.size(ours) == cute.size(theirs) and
            image(ours) == image(theirs)):
        return "agree"
    print(f"{name}{args}: axe {ours} ({'valid' if ok_ours else 'INVALID'})"
          f", pycute {theirs} ({'valid' if ok_theirs else 'INVALID'})")
    assert isinstance(ours, Exception) or ok_ours, (
        name, args, "axe is wrong", ours)
    assert not isinstance(ours, Exception) or not ok_theirs, (
        name, args, "axe rejects a valid answer", theirs, ours)
    if ok_ours and ok_theirs:
        if not larger_wins or cute.size(ours) == cute.size(theirs):
            return "differ, both valid"
        assert cute.size(ours) > cute.size(theirs), (
            name, args, "axe's answer is smaller than pycute's", ours, theirs)
    pycute_wrong = not isinstance(theirs, Exception) or ok_ours
    if not pycute_wrong:
        return "axe rejects, pycute invalid"
    label = classify(name, args)
    print(f"    pycute defect: {label or 'UNCLASSIFIED'}")
    return label or "UNCLASSIFIED pycute failure"


def run(name, rng, make, ours, theirs, valid, larger_wins=False):
    tally = {}
    for _ in range(N):
        args = make(rng)
        try:
            mine = ours(*args)
        except AxeError as e:
            mine = e
        verdict = judge(name, args, mine, py_call(theirs, *map(to_py, args)),
                        lambda r: valid(*args, r), larger_wins)
        tally[verdict] = tally.get(verdict, 0) + 1
    print(f"{name}: {tally}")
    assert "UNCLASSIFIED pycute failure" not in tally, tally
    return tally


# ---- generators ---------------------------------------------------------------

def any_layout(r, max_leaves=4, max_extent=8, max_stride=24):
    """Compact, gapped-injective or arbitrary (stride 0, repeats), nested."""
    k = r.random()
    if k < 0.3:
        return oracle.random_compact(r, max_leaves, max_extent)
    if k < 0.6:
        return oracle.random_compact(r, max_leaves, max_extent, gaps=True)
    return oracle.random_layout(r, max_leaves, max_extent, max_stride)


def injective(r, max_leaves=4, max_extent=8):
    return oracle.random_compact(r, max_leaves, max_extent,
                                 gaps=r.random() < 0.5)


def test_coalesce():
    rng = oracle.seeded("diff coalesce")
    run("coalesce", rng, lambda r: [any_layout(r, 5)], cute.coalesce,
        pycute.coalesce, is_coalesce)


def test_complement():
    rng = oracle.seeded("diff complement")

    def make(r):
        a = injective(r) if r.random() < 0.8 else any_layout(r)
        return [a, r.choice([cute.cosize(a) * r.randint(1, 3),
                             r.randint(1, 2 * cute.cosize(a) + 1)])]
    run("complement", rng, make, cute.complement, pycute.complement,
        is_complement)


def test_right_inverse():
    rng = oracle.seeded("diff right_inverse")
    t = run("right_inverse", rng, lambda r: [any_layout(r)],
            cute.right_inverse, pycute.right_inverse, is_right_inverse,
            larger_wins=True)
    assert t.get("agree", 0) > N // 2


def test_right_inverse_is_maximal():
    # pycute's 1:0 and (6,2):(2,1) are right inverses, but not the largest:
    # the differential test must call them defects, and axe's larger ones
    # right. (2,6,5):(6,1,6) takes every value in [0, 36) (i1 + 6(i0 + i2)),
    # so 36 is the most a right inverse can cover, and axe's search finds it.
    for a, size in ((Layout((2, 5), (0, 1)), 5),
                    (Layout((2, 6, 5), (6, 1, 6)), 36)):
        ours = cute.right_inverse(a)
        theirs = to_axe(pycute.right_inverse(to_py(a)))
        assert cute.size(ours) == size and cute.size(theirs) < size
        assert judge("right_inverse", (a,), ours, theirs,
                     lambda r: is_right_inverse(a, r),
                     True) == DEFECTS["right-nonmax"]
        with pytest.raises(AssertionError):
            judge("right_inverse", (a,), Layout(1, 0), ours,
                  lambda r: is_right_inverse(a, r), True)
    # For an injective layout maximality is checked against the image.
    assert not is_right_inverse(Layout((4, 2), (1, 4)), Layout(4, 1))


def test_left_inverse():
    rng = oracle.seeded("diff left_inverse")
    run("left_inverse", rng, lambda r: [injective(r)], cute.left_inverse,
        pycute.left_inverse, is_left_inverse)


def test_composition():
    rng = oracle.seeded("diff composition")
    run("composition", rng, lambda r: [
        any_layout(r, 4, 8, 12), any_layout(r, 3, 6, 8)],
        cute.composition, pycute.composition, is_composition)


def random_tiler(r, a):
    """A layout of size at most size(a), an int, or a by-mode tuple."""
    k = r.random()
    if k < 0.2:
        return r.choice([1, 2, 3, 4, 6, 8])
    if k < 0.4 and isinstance(a.shape, tuple):
        return tuple(r.choice([None, random_tiler(r, a[i])])
                     for i in range(r.randint(1, len(a))))
    return any_layout(r, 2, 4, max(1, cute.size(a) // 2))


def test_logical_divide():
    rng = oracle.seeded("diff logical_divide")

    def make(r):
        a = any_layout(r, 4, 8, 12)
        return [a, random_tiler(r, a)]
    run("logical_divide", rng, make, cute.logical_divide,
        pycute.logical_divide, is_divide)


def test_logical_product():
    rng = oracle.seeded("diff logical_product")

    def make(r):
        a = injective(r, 3, 6)
        b = r.randint(1, 4) if r.random() < 0.2 else any_layout(r, 3, 4, 12)
        return [a, b]
    run("logical_product", rng, make, cute.logical_product,
        pycute.logical_product, is_product)


def test_known_pycute_defects():
    # left_inverse of a layout whose image is not contiguous: pycute's
    # right_inverse(make_layout(a, complement(a))) is not a left inverse.
    a = Layout((3, 2), (2, 8))
    pl = pycute.left_inverse(pycute.Layout(a.shape, a.stride))
    assert any(pl(ev(a, k)) != k for k in range(6))
    li = cute.left_inverse(a)
    assert all(ev(li, ev(a, k)) == k for k in range(6))
    # composition reaching outside A's domain: CuTe continues along A's
    # last mode (here of extent 1, stride 7); pycute's coalesce drops it.
    a, b = Layout((2, 1), (2, 7)), Layout(6, 6)
    pr = pycute.composition(pycute.Layout(a.shape, a.stride),
                            pycute.Layout(6, 6))
    want = [ev(a, ev(b, i)) for i in range(6)]
    assert [pr(i) for i in range(6)] != want
    assert [ev(cute.composition(a, b), i) for i in range(6)] == want
    # logical_product with an integer tiler: pycute divides instead.
    pp = pycute.logical_product(pycute.Layout(4, 1), 3)
    assert pycute.size(pp) != 12
    r = cute.logical_product(Layout(4, 1), 3)
    assert cute.size(r) == 12 and is_product(Layout(4, 1), Layout(3, 1), r)
    # the product of a non-compact A by a layout: pycute's answer has size
    # 8, not 12 (it truncates B's extent in the composition with
    # complement(4:2, 12) = (2,2):(1,8), whose first 3 values 0, 1, 8 no
    # layout of size 3 gives); axe refuses.
    pp = pycute.logical_product(pycute.Layout(4, 2), pycute.Layout(3, 1))
    assert pycute.size(pp) == 8
    with pytest.raises(AxeError) as e:
        cute.logical_product(Layout(4, 2), Layout(3, 1))
    assert e.value.status == "NOT_COMPOSABLE", e.value
    # pycute asserts stride divisibility on a mode B never crosses: 4:6 on
    # ((4,3),2):((3,1),12) reads A at 0, 6, 12, 18 = (2,2):(7,12).
    a = Layout(((4, 3), 2), ((3, 1), 12))
    with pytest.raises(AssertionError):
        pycute.composition(pycute.Layout(a.shape, a.stride),
                           pycute.Layout(4, 6))
    assert str(cute.composition(a, Layout(4, 6))) == "(2, 2):(7, 12)"
    # left inverses differ off the image: both are left inverses
    a = Layout((4, 2), (1, 16))
    pl = pycute.left_inverse(pycute.Layout(a.shape, a.stride))
    li = cute.left_inverse(a)
    assert str(pl) == "(4, 4, 2):(1, 8, 4)" and str(li) == "(16, 2):(1, 4)"
    assert all(pl(ev(a, k)) == k == ev(li, ev(a, k)) for k in range(8))


def test_dropin_example_prints_what_pycute_prints():
    import os
    import subprocess
    import sys
    import axe
    script = os.path.join(os.path.dirname(__file__), "..", "examples",
                          "pycute_dropin.py")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(
        os.path.dirname(axe.__file__)))
    ours = subprocess.run([sys.executable, script], env=env, check=True,
                          capture_output=True, text=True).stdout
    theirs = subprocess.run([sys.executable, script, "--pycute"], env=env,
                            check=True, capture_output=True, text=True).stdout
    assert ours == theirs and ours.count("\n") == 9


# ---- pycute's int-tuple helpers ----------------------------------------------

def random_tuple(r, depth=2, lo=1, hi=8):
    """An int or a nested tuple of ints in [lo, hi]."""
    if depth == 0 or r.random() < 0.35:
        return r.randint(lo, hi)
    return tuple(random_tuple(r, depth - 1, lo, hi)
                 for _ in range(r.randint(1, 3)))


def like(r, t, lo=0, hi=8):
    """A random tuple congruent to "t"."""
    if isinstance(t, tuple):
        return tuple(like(r, e, lo, hi) for e in t)
    return r.randint(lo, hi)


def same_or_both_fail(ours, theirs, *args):
    """ours(*args) == theirs(*args), or pycute fails and axe raises
    AxeError."""
    try:
        want = theirs(*args)
    except (AssertionError, TypeError, IndexError):
        with pytest.raises(AxeError):
            ours(*args)
        return "both reject"
    assert ours(*args) == want, (ours.__name__, args, want)
    return "agree"


INT_TUPLE_OPS = ["inner_product", "tuple_max", "elem_scale", "has_none",
                 "crd2crd", "shiftl", "shiftr", "signum", "idx2crd",
                 "crd2idx", "product", "prefix_product", "shape_div",
                 "flatten"]


@pytest.mark.parametrize("name", INT_TUPLE_OPS)
def test_int_tuple_helper(name):
    rng = oracle.seeded(f"diff {name}")
    ours, theirs = getattr(cute, name), getattr(pycute, name)
    tally = {}
    for _ in range(N):
        a = random_tuple(rng)
        sh = random_tuple(rng)
        k = rng.random()
        if name in ("inner_product", "elem_scale"):
            args = (a, like(rng, a) if k < 0.7 else sh)
        elif name == "tuple_max":
            args = (a,)
        elif name == "has_none":
            args = (rng.choice([a, like(rng, a, -1, 3)]),)
            args = (oracle_none(args[0]),)
        elif name == "crd2crd":
            src = random_tuple(rng)
            dst = rng.choice([src, cute.size(src), sh])
            args = (like(rng, src, 0, 1) if k < 0.5
                    else rng.randint(0, cute.size(dst) - 1), dst, src)
        elif name in ("shiftl", "shiftr"):
            args = (rng.randint(-1000, 1000),
                    rng.choice([-1, 1]) * rng.randint(1, 8))
        elif name == "signum":
            args = (rng.randint(-3, 3),)
        elif name == "idx2crd":
            n = cute.size(sh)
            idx = rng.randint(0, n - 1)
            args = ((idx, sh) if k < 0.3 else
                    (idx, sh, like(rng, sh, 1, 12)) if k < 0.8 else
                    (like(rng, sh, 0, 3), sh, like(rng, sh, 1, 12)))
        elif name == "crd2idx":
            args = (like(rng, sh, 0, 1), sh, like(rng, sh, 0, 12))
        elif name == "prefix_product":
            # an init congruent to "a" starts each mode (pycute; axe
            # multiplied the tuple: a tuple repeated 2**40 times)
            args = ((a,) if k < 0.3 else (a, rng.randint(1, 8)) if k < 0.5
                    else (a, like(rng, a, 1, 8)) if k < 0.85 else (a, sh))
        elif name == "shape_div":
            args = (a, rng.choice([1, 2, 4, like(rng, a, 1, 4)]))
        else:
            args = (a,)
        verdict = same_or_both_fail(ours, theirs, *args)
        tally[verdict] = tally.get(verdict, 0) + 1
    print(f"{name}: {tally}")
    assert tally.get("agree", 0) > N // 2


def oracle_none(t):
    """"t" with its negative leaves replaced by None."""
    if isinstance(t, tuple):
        return tuple(oracle_none(e) for e in t)
    return None if t < 0 else t


def test_prefix_product_by_mode_init():
    # worked by hand: mode i starts at init[i]
    assert cute.prefix_product((2, 3), (1, 5)) == (1, 5)
    assert cute.prefix_product(((2, 3), 4), (7, 1)) == ((7, 14), 1)
    assert cute.prefix_product(((2, 3), 4), 7) == ((7, 14), 42)
    for bad in [(4, (1, 2)), ((2, 3), (1, 2, 3)), ((2, 3), ((1, 2), 5))]:
        with pytest.raises(AxeError) as e:
            cute.prefix_product(*bad)
        assert e.value.status == "INCOMPATIBLE", e.value


def test_flatten_of_an_int_is_a_one_tuple():
    # pycute's flatten(5) is (5,); axe.cute's was 5.
    for t in (5, 0, (), (5,), ((1, (2,)), 3)):
        assert cute.flatten(t) == pycute.flatten(t), t
    assert cute.flatten(5) == (5,)


def test_shift_by_zero_and_idx2crd_past_the_end():
    # pycute's shiftl/shiftr(a, 0) recurse forever; axe gives a.
    assert cute.shiftl(5, 0) == 5 and cute.shiftr(5, 0) == 5
    # Past size(shape), the two-argument idx2crd lets the last mode absorb
    # the rest (CuTe's paper); pycute and the stride form wrap.
    assert cute.idx2crd(100, (2, 3)) == (0, 50)
    assert pycute.idx2crd(100, (2, 3)) == (0, 2)
    assert cute.idx2crd(100, (2, 3), (1, 2)) == (0, 2)


def test_hier_unzip():
    rng = oracle.seeded("diff hier_unzip")
    tally = {}
    for _ in range(N // 2):
        a = any_layout(rng, 4, 6, 12)
        b = random_tiler(rng, a)
        b = b if isinstance(b, tuple) else (b,)
        fn = rng.choice(["logical_divide", "logical_product"])
        try:
            mine = cute.hier_unzip(getattr(cute, fn), a, b)
        except AxeError as e:
            mine = e
        theirs = py_call(lambda *x: pycute.hier_unzip(
            getattr(pycute, fn), *x), to_py(a), to_py(b))
        if not isinstance(mine, Exception):
            gathered(fn, a, b, mine)
        if isinstance(mine, Exception) or not isinstance(theirs, Layout):
            verdict = "one rejects"
        elif (image(mine) == image(theirs) and
              cute.size(mine[0]) == cute.size(theirs[0])):
            verdict = "agree"
        else:
            print(f"hier_unzip({fn}, {a}, {b}): axe {mine}, pycute "
                  f"{theirs}")
            # pycute's splitter is wrong on some mode.
            valid = is_divide if fn == "logical_divide" else is_product
            assert any(not isinstance(p, Layout) or not valid(a[i], e, p)
                       for i, e in enumerate(b) if e is not None
                       for p in [py_call(getattr(pycute, fn), to_py(a[i]),
                                         to_py(e))]), (fn, a, b)
            verdict = "pycute's splitter wrong"
        tally[verdict] = tally.get(verdict, 0) + 1
    print(f"hier_unzip: {tally}")
    assert tally.get("agree", 0) > N // 8


def gathered(fn, a, b, r):
    """r = ((s_0[0], s_1[0], ...), (s_0[1], ..., rest of a)) with s_i =
    fn(a_i, b_i) (1:0 and a_i for a None b_i; gathered again for a tuple
    b_i)."""
    for i, e in enumerate(b):
        if isinstance(e, tuple):
            gathered(fn, a[i], e, cute.make_layout(r[0][i], r[1][i]))
            continue
        s = (cute.make_layout(Layout(1, 0), a[i]) if e is None
             else getattr(cute, fn)(a[i], e))
        assert r[0][i] == s[0] and r[1][i] == s[1], (fn, a, b, r, i, s)
    for i in range(len(b), len(a)):
        assert r[1][i] == a[i], (fn, a, b, r, i)


def _star(modname):
    ns = {}
    exec(f"from {modname} import *", ns)
    return {k: v for k, v in ns.items() if not k.startswith("__")}


def _integer_cases():
    import fractions

    class MyInt(int):
        pass

    cases = [0, 1, -5, 2**70, True, False, 1.0, float("nan"), "1", None,
             (1,), [1], fractions.Fraction(1), MyInt(3), 1j]
    try:
        import numpy
        cases += [numpy.int64(1), numpy.int32(2), numpy.float64(1.0)]
    except ImportError:
        pass
    return cases


def test_star_exports_match_pycute():
    """`from axe.cute import *` gives every name `from pycute import *`
    gives, with the same meaning: the names pycute imports (ABC, Union,
    chain, reduce) are the same objects, Integer classifies values as
    pycute's does, a submodule holds pycute's submodule's names (each the
    same object as at axe.cute's top level), and pycute's own functions
    and classes have axe counterparts (their behaviour is compared by the
    tests above)."""
    import inspect
    import axe.cute
    ours, theirs = _star("axe.cute"), _star("pycute")
    missing = sorted(set(theirs) - set(ours))
    assert not missing, missing
    for name, obj in theirs.items():
        mine = ours[name]
        if inspect.ismodule(obj):
            assert inspect.ismodule(mine), name
            sub = {k for k in vars(obj) if not k.startswith("_")}
            assert sub <= set(vars(mine)), (name, sub - set(vars(mine)))
            for k in sub:
                assert getattr(mine, k) is ours[k], (name, k)
            imported = __import__(f"axe.cute.{name}", fromlist=["_"])
            assert imported is mine
        elif not getattr(obj, "__module__", "").startswith("pycute"):
            assert mine is obj, name
        else:
            assert callable(mine) and inspect.isclass(mine) == \
                inspect.isclass(obj), name
    for v in _integer_cases():
        assert isinstance(v, axe.cute.Integer) == \
            isinstance(v, pycute.Integer), repr(v)
        assert issubclass(type(v), axe.cute.Integer) == \
            issubclass(type(v), pycute.Integer), repr(v)
    assert isinstance(1, axe.cute.typing.Integer)
    assert not isinstance(True, axe.cute.Integer)
