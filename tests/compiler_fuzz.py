# SPDX-License-Identifier: Apache-2.0
"""Mutation fuzzer of the kernel compiler through the CLI (run by
tests/compiler_fuzz.sh; usage there).

Each mutant is a kernel of examples/kernels/**/*.axe or
tests/kernels/**/*.axe with one to three token-level mutations (drop,
duplicate or swap a token; a number to 0, -1, 2^31, 2^31 - 1 or a huge
one; a dtype to i4, f16 or f32; a number inside a layout's strides to
another; a `sync;` deleted; a tensor renamed at one use; a region's range
made `:`, one element, open-ended, dropped or doubled; a loop's trip
count, device loops included, changed). Every mutant
goes through `axe compile` on each target (c, cuda, mpi, trn-sim) and
`axe synth`; the first mutants that compile on the C target (and whose
numbers did not grow, nor are of the 512^3 trn examples: small sizes)
also through `axe run --check`. Each command must end with status 0, or with
the CLI's error status (1 or 2) and a reason on its first stderr line;
never a signal, a sanitizer report, a timeout, an empty reason, nor a
failure that is the compiler's fault (the C compiler refusing the
generated code, the kernel program dying, a check failing without a
race). Findings are written as FILE.axe reproducers under the output
folder with the command and what was wrong."""

import os
import random
import re
import subprocess
import sys
import time

TOKEN = re.compile(r"#[^\n]*|\s+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"
                   r"[A-Za-z_][A-Za-z_0-9]*|//|->|<=|>=|==|!=|&&|\|\||.",
                   re.S)
DTYPES = ("f16", "bf16", "f32", "f64", "i8", "i32", "i4", "e4m3", "e5m2")
NUMBERS = ("0", "-1", "1", "3", "2147483648", "2147483647",
           "99999999999999999999", "65536")
STRIDES = ("0", "1", "2", "3", "7", "64", "1024")
# Mutants with a number made larger than these are compiled, not run:
# axe run accepts work up to 2^30 (minutes of the reference), not a hang.
SMALL = ("0", "-1", "1", "3")
# Kernels whose own sizes take minutes of --check under asan (the 512^3
# accelerator GEMM and attention): compiled, not run.
HEAVY = re.compile(r"/trn_(gemm|attention)")
TARGETS = ("c", "cuda", "mpi", "trn-sim")
# A region's ranges (not a layout's S[...] or R[...]), a loop's trips.
REGION = re.compile(r"\b(?![SR]\[)[A-Za-z_]\w*\[([^\[\]\n]*:[^\[\]\n]*)\]")
LOOP = re.compile(r"\bfor\s+\w+\s+in\s+range\(([^()\n]*(?:\([^()\n]*\))?[^()\n]*)\)")
TIMED_OUT = -999  # the exit status counted for a command that timed out
SANITIZER = re.compile(r"Sanitizer|runtime error:|LeakSanitizer|"
                       r"Segmentation fault|core dumped|Assertion .* failed")
# Reasons that are the compiler's fault, not the kernel's.
FAULT = re.compile(r"compiler failed on the generated|mpicc failed on the "
                   r"generated|nvcc failed on the generated|the kernel "
                   r"failed$|the kernel failed: .*(signal|Sanitizer)")


def tokens(text):
    """(start, end, kind) of each token: 'ws', 'num', 'id' or 'op'."""
    out = []
    for m in TOKEN.finditer(text):
        s = m.group()
        kind = ("ws" if s[0].isspace() or s[0] == "#" else
                "num" if s[0].isdigit() else
                "id" if s[0].isalpha() or s[0] == "_" else "op")
        out.append((m.start(), m.end(), kind))
    return out


def tensor_names(text):
    """Names declared as tensors (kernel parameters, shared, register)."""
    names = set(re.findall(r"\b([A-Za-z_]\w*)\s*:\s*(?:global\s+)?(?:"
                           + "|".join(DTYPES) + r")\s*\[", text))
    return sorted(names)


def in_layout(text, start):
    """Whether offset "start" is inside a layout's S[...] / R[...]."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    return re.search(r"\b[SR]\[[^\]]*$", before) is not None


def split_top(s):
    """"s" split at its commas outside parentheses: [(start, end)]."""
    parts, depth, a = [], 0, 0
    for i, c in enumerate(s):
        depth += c == "("
        depth -= c == ")"
        if c == "," and depth == 0:
            parts.append((a, i))
            a = i + 1
    return parts + [(a, len(s))]


def mutate_region(rng, text):
    """A region's range (not a layout's S[...]/R[...]) made ':' (the whole
    dimension), one element, a start past the end, dropped or doubled;
    or (None, None) when "text" has no region."""
    regions = [m.span(1) for m in REGION.finditer(text)]
    if not regions:
        return None, None
    a, b = rng.choice(regions)
    parts = split_top(text[a:b])
    p, q = rng.choice(parts)
    p, q = a + p, a + q
    v = rng.choice((" :", " 0:+1", " 1:", " :+2", "", text[p:q] + ", :"))
    if v == "" and q < b:  # drop the range and its comma
        q += 1
    elif v == "" and len(parts) > 1:
        p -= 1
    return text[:p] + v + text[q:], f"range {text[p:q].strip()!r} -> {v!r}"


def mutate_loop(rng, text):
    """A loop's trip count (device loops unroll it) to another, or (None,
    None) without loops."""
    loops = [m.span(1) for m in LOOP.finditer(text)]
    if not loops:
        return None, None
    a, b = rng.choice(loops)
    v = rng.choice(("0", "1", "2", "3", "P + 1", "257", "N"))
    return text[:a] + v + text[b:], f"trips {text[a:b]} -> {v}"


def mutate_once(rng, text):
    """One mutation of "text": (new text, what)."""
    toks = [t for t in tokens(text) if t[2] != "ws"]
    if not toks:
        return text, "none"
    kind = rng.choice(("drop", "dup", "swap", "num", "dtype", "stride",
                       "sync", "rename", "num", "stride", "region", "loop"))
    if kind in ("region", "loop"):
        new, what = (mutate_region if kind == "region" else
                     mutate_loop)(rng, text)
        if new is not None:
            return new, what
    if kind == "num":
        nums = [t for t in toks if t[2] == "num"]
        if nums:
            a, b, _ = rng.choice(nums)
            v = rng.choice(NUMBERS)
            return text[:a] + v + text[b:], f"number {text[a:b]} -> {v}"
    if kind == "stride":
        nums = [t for t in toks if t[2] == "num" and in_layout(text, t[0])]
        if nums:
            a, b, _ = rng.choice(nums)
            v = rng.choice(STRIDES)
            return text[:a] + v + text[b:], f"layout {text[a:b]} -> {v}"
    if kind == "dtype":
        dts = [t for t in toks if text[t[0]:t[1]] in DTYPES]
        if dts:
            a, b, _ = rng.choice(dts)
            v = rng.choice(("i4", "f16", "f32"))
            return text[:a] + v + text[b:], f"dtype {text[a:b]} -> {v}"
    if kind == "sync":
        syncs = [m.span() for m in re.finditer(r"\bsync\s*;", text)]
        if syncs:
            a, b = rng.choice(syncs)
            return text[:a] + text[b:], "sync deleted"
    if kind == "rename":
        names = tensor_names(text)
        uses = [t for t in toks if text[t[0]:t[1]] in names]
        if uses and names:
            a, b, _ = rng.choice(uses)
            v = rng.choice(names + ["Zz"])
            return text[:a] + v + text[b:], f"rename {text[a:b]} -> {v}"
    i = rng.randrange(len(toks))
    a, b, _ = toks[i]
    if kind == "dup":
        return text[:b] + " " + text[a:b] + text[b:], f"dup {text[a:b]!r}"
    if kind == "swap" and i + 1 < len(toks):
        c, d, _ = toks[i + 1]
        return (text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:],
                f"swap {text[a:b]!r} {text[c:d]!r}")
    return text[:a] + text[b:], f"drop {text[a:b]!r}"


def verdict(rc, out, err, timed_out):
    """None when the command behaved, else what was wrong."""
    if timed_out:
        return "timeout"
    if rc < 0 or rc > 2:
        return f"exit status {rc}" + (" (signal)" if rc < 0 or rc > 128
                                      else "")
    m = SANITIZER.search(err) or SANITIZER.search(out)
    if m:
        return f"sanitizer/crash text: {m.group()}"
    if rc == 0:
        return None
    failed = re.search(r"^check FAILED.*", out, re.M)
    if failed:  # axe run's verdict (stdout): a race is the kernel's fault
        if not re.search(r"racing accesses|^race|uninitialized", out, re.M):
            return f"check failed without a race: {failed.group()[:200]}"
        return None
    first = err.strip().split("\n")[0].strip() if err.strip() else ""
    if not first:
        return "error status with an empty reason"
    if FAULT.search(first):
        return f"the compiler's fault: {first[:200]}"
    return None


class Fuzz:
    def __init__(self, axe, out_dir, timeout):
        self.axe, self.out_dir, self.timeout = axe, out_dir, timeout
        self.commands = self.findings = 0
        self.status = {}

    def run(self, path, args, name, what):
        """One CLI command on the mutant at "path"; its exit status."""
        cmd = [self.axe] + args[:1] + [path] + args[1:]
        self.commands += 1
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               errors="replace", timeout=self.timeout)
            rc, out, err, late = p.returncode, p.stdout, p.stderr, False
        except subprocess.TimeoutExpired as e:
            rc, late = TIMED_OUT, True
            out = e.stdout.decode("utf-8", "replace") if e.stdout else ""
            err = e.stderr.decode("utf-8", "replace") if e.stderr else ""
        self.status[rc] = self.status.get(rc, 0) + 1
        bad = verdict(rc, out[-4000:], err, late)
        if bad:
            self.report(path, cmd, name, what, bad, err)
        return rc

    def report(self, path, cmd, name, what, bad, err):
        self.findings += 1
        base = os.path.join(self.out_dir, f"finding{self.findings}")
        with open(path) as src, open(base + ".axe", "w") as dst:
            dst.write(src.read())
        shown = " ".join(cmd[:2] + [base + ".axe"] + cmd[3:])
        with open(base + ".txt", "w") as f:
            f.write(f"{shown}\nfrom {name}: {what}\n{bad}\n{err[:3000]}\n")
        print(f"FAIL: {bad}: {shown} (from {name}: {what})", flush=True)


def sources(root):
    found = []
    for top in ("examples/kernels", "tests/kernels"):
        for d, _, files in os.walk(os.path.join(root, top)):
            found += [os.path.join(d, f) for f in files if f.endswith(".axe")]
    return sorted(found)


def main():
    axe, root, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    seed = int(os.environ.get("AXE_TEST_SEED", "1"))
    count = int(os.environ.get("AXE_FUZZ_COUNT", "300"))
    seconds = float(os.environ.get("AXE_FUZZ_SECONDS", "90"))
    runs = int(os.environ.get("AXE_FUZZ_RUNS", "20"))
    timeout = float(os.environ.get("AXE_FUZZ_TIMEOUT", "60"))
    rng = random.Random(seed)
    files = sources(root)
    if not files:
        print("skipped: no kernels found under examples/ and tests/")
        return 77
    fz = Fuzz(axe, out_dir, timeout)
    start, done, ran = time.monotonic(), 0, 0
    path = os.path.join(out_dir, "mutant.axe")
    for i in range(count):
        if time.monotonic() - start > seconds:
            break
        name = rng.choice(files)
        with open(name) as f:
            text = f.read()
        whats = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            text, what = mutate_once(rng, text)
            whats.append(what)
        what = f"mutant {i} (seed {seed}): " + "; ".join(whats)
        with open(path, "w") as f:
            f.write(text)
        rel = os.path.relpath(name, root)
        compiled = hung = False
        for tg in TARGETS:  # after a timeout the mutant's other commands
            if hung:        # would time out too: one finding is enough
                break
            rc = fz.run(path, ["compile", "--target", tg, "-o", os.devnull],
                        rel, what)
            compiled = compiled or (tg == "c" and rc == 0)
            hung = rc == TIMED_OUT
        if not hung:
            hung = fz.run(path, ["synth", "--json"], rel, what) == TIMED_OUT
        small = not any(w.startswith("number") and
                        w.split()[-1] not in SMALL for w in whats)
        if compiled and small and not hung and ran < runs and \
                "mesh" not in text and not HEAVY.search(rel):
            ran += 1
            fz.run(path, ["run", "--check"], rel, what)
        done += 1
    took = time.monotonic() - start
    codes = ", ".join(f"{k}: {v}" for k, v in sorted(fz.status.items()))
    print(f"fuzz: seed {seed}, {done} mutants of {len(files)} kernels, "
          f"{fz.commands} commands ({ran} axe run --check) in {took:.0f} s; "
          f"exit statuses {{{codes}}}; {fz.findings} findings")
    print(f"{fz.commands - fz.findings} passed, {fz.findings} failed")
    return 1 if fz.findings else 0


if __name__ == "__main__":
    sys.exit(main())
