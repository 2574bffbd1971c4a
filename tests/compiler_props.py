# SPDX-License-Identifier: Apache-2.0
"""Property test of dispatch: random register layouts, with and without
replicas, in small kernels of copy, reduce (both dims, sum and max),
elementwise updates (in registers and in place in global memory, reading
a broadcast reduce result) and gemm into global memory, at warp and cta
scope. For every kernel, each operator's schedules that dispatch accepts
(`axe compile --explain`: "chosen" and "also applies") are forced in turn
with `--schedule OP#N=NAME`, and `axe run --check` must pass: every
accepted schedule gives the reference result. Kernels that sema refuses
(or with an operator no schedule accepts) are counted, not failed.

Usage: compiler_props.py AXE [COUNT]; the seed is printed, AXE_TEST_SEED=N
replays it. The last line is "N passed, N failed".
"""
import os
import random
import re
import subprocess
import sys
import tempfile


def bit_blocks(labels):
    """Runs of equal labels over the rank bits: (label, first bit, bits)."""
    out, k = [], 0
    while k < len(labels):
        j = k
        while j < len(labels) and labels[j] == labels[k]:
            j += 1
        out.append((labels[k], k, j - k))
        k = j
    return out


def two_adic(x):
    n = 0
    while x % 2 == 0:
        x //= 2
        n += 1
    return n


def mem_pieces(rng, n):
    """"n" as one or two factors (outer first), none of them 1."""
    if n == 1:
        return []
    divs = [d for d in range(2, n) if n % d == 0]
    if divs and rng.random() < 0.4:
        d = rng.choice(divs)
        return [d, n // d]
    return [n]


def layout_text(rng, dims, thread_bits, axis, rep):
    """A layout of shape "dims" whose dim i uses the rank bits labelled i in
    "thread_bits" (label 'p': a replica), the rest of each extent on
    memory with a random order of compact strides."""
    blocks = bit_blocks(thread_bits)
    iters = []  # per dim: list of [extent, stride or None, axis or None]
    for d, n in enumerate(dims):
        tb = [b for b in blocks if b[0] == d]
        th = 1
        for b in tb:
            th *= 1 << b[2]
        its = [[1 << b[2], 1 << b[1], axis] for b in tb]
        its += [[e, None, None] for e in mem_pieces(rng, n // th)]
        rng.shuffle(its)
        if not its:
            its = [[1, 0, None]]
        iters.append(its)
    mem = [it for its in iters for it in its if it[1] is None]
    order = list(range(len(mem)))
    rng.shuffle(order)
    stride = 1
    for k in order:
        mem[k][1] = stride
        stride *= mem[k][0]
    flat = [it for its in iters for it in its]
    ext = ",".join(str(it[0]) for it in flat)
    st = ",".join(str(it[1]) + ("@" + it[2] if it[2] else "") for it in flat)
    text = "S[(%s):(%s)]" % (ext, st)
    reps = [b for b in blocks if b[0] == "p"]
    if reps and rep:
        text += " + R[(%s):(%s)]" % (
            ",".join(str(1 << b[2]) for b in reps),
            ",".join("%d@%s" % (1 << b[1], axis) for b in reps))
    return text


def random_bits(rng, t, caps):
    """Labels of "t" rank bits: at most caps[d] bits for dim d, the rest
    replicas ('p'), in random order."""
    labels = []
    for d, cap in enumerate(caps):
        labels += [d] * rng.randint(0, min(cap, t - len(labels)))
    labels += ["p"] * (t - len(labels))
    rng.shuffle(labels)
    return labels


def reduced_bits(rng, bits, keep):
    """The bits of a reduce destination: the source's bits of dim "keep"
    stay (as dim 0), the others become replicas, or (sometimes) every bit
    a replica, or a fresh random assignment."""
    u = rng.random()
    if u < 0.45:
        return [0 if b == keep else "p" for b in bits]
    if u < 0.65:
        return ["p"] * len(bits)
    return None


def make_kernel(rng, scope):
    t = 5 if scope == "warp" else rng.choice([5, 6])
    axis = "laneid" if scope == "warp" else "tx"
    threads = 64 if scope == "warp" else 1 << t
    inst = "warpid" if scope == "warp" else "bx"
    grid = 1 if scope == "warp" else 2
    R = rng.choice([2, 4, 8, 16, 3, 6, 12])
    C = rng.choice([2, 4, 8, 16, 32, 3, 6, 12, 24])
    while R * C > 384:
        C //= 2
    N = rng.choice([1, 2, 3])
    caps = [two_adic(R), two_adic(C)]
    rb = random_bits(rng, t, caps)
    rep_r = rng.random() < 0.7
    if not rep_r and "p" in rb:
        rep_r = True  # a layout must reach every thread
    L_r = layout_text(rng, [R, C], rb, axis, rep_r)
    mb = reduced_bits(rng, rb, 0) or random_bits(rng, t, [caps[0]])
    nb = reduced_bits(rng, rb, 1) or random_bits(rng, t, [caps[1]])
    L_m = layout_text(rng, [R], mb, axis, True)
    L_n = layout_text(rng, [C], nb, axis, True)
    qb = rb if rng.random() < 0.4 else random_bits(rng, t, caps)
    L_q = layout_text(rng, [R, C], qb, axis, True)
    k1, k0 = rng.choice(["sum", "max"]), rng.choice(["sum", "max"])
    upd = rng.choice(["add", "mul", "max", "sub"])
    rows = "%s * %d : +%d" % (inst, R, R)
    cols = "%s * %d : +%d" % (inst, C, C)
    NI = 2
    sh_rows = rows if scope == "warp" else "0 : +%d" % R
    sh_R = NI * R if scope == "warp" else R
    return """# %s scope, seed-generated
kernel prop(X: f32[%d, %d], Y: f32[%d], Z: f32[%d], W: f32[%d, %d],
            V: f32[%d], Bt: f32[%d, %d], G: f32[%d, %d])
    grid(%d) threads(%d)
{
    register r: f32[%d, %d] layout %s;
    register m: f32[%d] layout %s;
    register n: f32[%d] layout %s;
    register q: f32[%d, %d] layout %s;
    shared sh: f32[%d, %d];
    %s copy(r, X[%s, 0 : +%d]);
    %s reduce(m, r, %s, 1);
    %s copy(Y[%s], m);
    %s reduce(n, r, %s, 0);
    %s copy(Z[%s], n);
    %s copy(q, r);
    %s %s(q, q, r);
    %s sub(q, q, m.bcast(1, %d));
    %s copy(W[%s, 0 : +%d], q);
    %s copy(sh[%s, 0 : +%d], r);
    sync;
    %s %s(W[%s, 0 : +%d], W[%s, 0 : +%d], r);
    %s reduce(m, sh[%s, 0 : +%d], %s, 1);
    %s copy(V[%s], m);
    %s gemm(G[%s, 0 : +%d], r, Bt);
}
""" % (scope, NI * R, C, NI * R, NI * C, NI * R, C, NI * R, N, C, NI * R, N,
       grid, threads, R, C, L_r, R, L_m, C, L_n, R, C, L_q, sh_R, C,
       scope, rows, C, scope, k1, scope, rows, scope, k0, scope, cols,
       scope, scope, upd, scope, C, scope, rows, C, scope, sh_rows, C,
       scope, upd, rows, C, rows, C, scope, sh_rows, C, k1, scope, rows,
       scope, rows, N)


def accepted(axe, path, text):
    """Per operator number, the schedules dispatch accepts, after deleting
    the operators for which none applies; None when the kernel does not
    compile for another reason."""
    while True:
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([axe, "compile", path, "--explain"],
                           capture_output=True, text=True)
        if p.returncode == 0:
            break
        m = re.match(r"axe: [^:]*:(\d+):\d+: error: no schedule for",
                     p.stderr)
        if m is None:
            return None, text
        lines = text.split("\n")
        del lines[int(m.group(1)) - 1]
        text = "\n".join(lines)
    ops, cur = {}, None
    for line in p.stdout.splitlines():
        m = re.match(r"op (\d+) \(line \d+\): \w+ (\w+)\(", line)
        if m:
            cur = int(m.group(1))
            ops[cur] = (m.group(2), [])
            continue
        m = re.match(r"  (chosen|also applies) (\w+)\.(\w+)", line)
        if m and cur is not None:
            ops[cur][1].append(m.group(3))
    return ops, text


def run_one(axe, path, case, text, forced, passed, failed):
    """axe run --check with the "forced" schedules must pass."""
    args = []
    for f in forced:
        args += ["--schedule", f]
    p = subprocess.run([axe, "run", path, "--check", "--seed", str(case)] +
                       args, capture_output=True, text=True)
    if p.returncode == 0 and "check passed" in p.stdout:
        return passed + 1, failed
    print("FAIL: case %d, %s\n%s%s%s" % (case, " ".join(args), p.stdout,
                                         p.stderr, text))
    return passed, failed + 1


def main():
    axe = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    seed = int(os.environ.get("AXE_TEST_SEED", random.randrange(1 << 30)))
    print("seed %d (AXE_TEST_SEED=%d replays)" % (seed, seed))
    rng = random.Random(seed)
    passed = failed = refused = runs = 0
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "prop.axe")
    for case in range(count):
        text = make_kernel(rng, rng.choice(["warp", "cta"]))
        ops, text = accepted(axe, path, text)
        if ops is None:
            refused += 1
            continue
        width = max(len(s) for _, s in ops.values())
        for k in range(width):
            forced = ["%s#%d=%s" % (op, i, scheds[k % len(scheds)])
                      for i, (op, scheds) in sorted(ops.items())
                      if len(scheds) > 1]
            for chunk in range(0, max(len(forced), 1), 8):
                runs += 1
                passed, failed = run_one(axe, path, case, text,
                                         forced[chunk:chunk + 8],
                                         passed, failed)
    os.remove(path)
    os.rmdir(tmp)
    print("%d kernels: %d refused by the compiler, %d runs" %
          (count, refused, runs))
    if count - refused < count // 2:
        failed += 1
        print("FAIL: fewer than half of the kernels compile")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
