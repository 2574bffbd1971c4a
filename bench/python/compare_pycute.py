#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Compare axe-bench's suite with NVIDIA's pycute and with axe's Python
package on the same machine.

pycute is CUTLASS's Python reference of the CuTe layout algebra. It ships in
the nvidia-cutlass wheel; this script installs nothing, so install it first:

    pip install --no-deps nvidia-cutlass==4.2.0.0

(never `pip install pycute`: that is an unrelated project). The script times
pycute and axe through Python (`axe.cute`, the same calls, since axe.cute
has pycute's API) on the seven suite cases of axe-bench and on three more
operations that only the Python comparison times (left_inverse,
tiled_divide, tiled_product; pycute has no blocked_product or
raked_product) (timeit: the number of calls per repeat from autorange,
then the median over --repeats repeats), runs `AXE_BENCH --json --filter
suite`, and prints, per operation, pycute's time, axe-Python's, axe-C's
(suite only), and the ratios pycute/axe-python (target 10x, every
operation) and pycute/axe-C (target 200x, the suite), all from this one
run. axe is imported from the installed package, else from
python/ of this checkout (with libaxe from build/release or $AXE_LIBRARY;
the header line names the backend, "extension" or "ctypes"). Operands are
built once, outside the timed call, on both sides; --cpu-time times both
with the thread's CPU clock, which leaves out other processes on a loaded
machine. Exit status:
0, or 1 with --check if an operation misses the target or fails in axe, 2
on a usage or setup error (no pycute, axe-bench not runnable).

    python3 bench/python/compare_pycute.py --axe-bench build/release/axe-bench
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import timeit

TARGET = 200.0
TARGET_PY = 10.0


def suite_cases(pycute):
    """(op, text, thunk) for the seven suite cases, as in bench_cases.c."""
    L = pycute.Layout
    a_comp, b_comp = L((8, 8), (8, 1)), L(((4, 8), 2), ((16, 1), 8))
    a_cpl = L((4, 8), (1, 8))
    a_div, t_div = L((8, 16), (20, 1)), (L(4, 1), L(8, 2))
    a_co = L(((2, 2), (4, 2)), ((1, 8), (2, 16)))
    a_prod, b_prod = L((3, 4), (4, 1)), L((2, 5), (1, 2))
    a_zip, t_zip = L((128, 64), (64, 1)), (L(16, 1), L(8, 1))
    return [
        ("compose", "(8,8):(8,1) o ((4,8),2):((16,1),8)",
         lambda: pycute.composition(a_comp, b_comp)),
        ("complement", "(4,8):(1,8), 128",
         lambda: pycute.complement(a_cpl, 128)),
        ("logical_divide", "(8,16):(20,1) / <4:1, 8:2>",
         lambda: pycute.logical_divide(a_div, t_div)),
        ("coalesce", "((2,2),(4,2)):((1,8),(2,16))",
         lambda: pycute.coalesce(a_co)),
        ("right_inverse", "((2,2),(4,2)):((1,8),(2,16))",
         lambda: pycute.right_inverse(a_co)),
        ("logical_product", "(3,4):(4,1) x (2,5):(1,2)",
         lambda: pycute.logical_product(a_prod, b_prod)),
        ("zipped_divide", "(128,64):(64,1) / <16:1, 8:1>",
         lambda: pycute.zipped_divide(a_zip, t_zip)),
    ]


def extra_cases(pycute):
    """(op, text, thunk) for the operations timed in Python only."""
    L = pycute.Layout
    a_co = L(((2, 2), (4, 2)), ((1, 8), (2, 16)))
    a_zip, t_zip = L((128, 64), (64, 1)), (L(16, 1), L(8, 1))
    a_prod, t_prod = L((3, 4), (4, 1)), (L(2, 1), L(5, 1))
    return [
        ("left_inverse", "((2,2),(4,2)):((1,8),(2,16))",
         lambda: pycute.left_inverse(a_co)),
        ("tiled_divide", "(128,64):(64,1) / <16:1, 8:1>",
         lambda: pycute.tiled_divide(a_zip, t_zip)),
        ("tiled_product", "(3,4):(4,1) x <2:1, 5:1>",
         lambda: pycute.tiled_product(a_prod, t_prod)),
    ]


def time_pycute(thunk, repeats, cpu_time):
    """Median seconds per call of thunk (wall clock, or the thread's CPU
    clock if cpu_time)."""
    clock = time.thread_time if cpu_time else time.perf_counter
    timer = timeit.Timer(thunk, timer=clock)
    number, _ = timer.autorange()
    runs = timer.repeat(repeat=repeats, number=number)
    return statistics.median(runs) / number


def run_axe(path, quick, cpu_time):
    """{op: (ns or None, error)} from axe-bench --json --filter suite."""
    cmd = [path, "--json", "--filter", "suite"]
    cmd += ["--quick"] if quick else []
    cmd += ["--cpu-time"] if cpu_time else []
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    result = {}
    for line in out.stdout.splitlines():
        row = json.loads(line)
        if row.get("case") == "suite":
            result[row["op"]] = (row["ns"], row.get("error"))
    return result


def cpu_model():
    """The CPU's model name (Linux), else platform's guess."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--axe-bench", required=True, help="path to axe-bench")
    ap.add_argument("--repeats", type=int, default=7,
                    help="timeit repeats for pycute (median reported)")
    ap.add_argument("--quick", action="store_true",
                    help="pass --quick to axe-bench")
    ap.add_argument("--cpu-time", action="store_true",
                    help="time both sides with the thread's CPU clock "
                    "(a loaded machine)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if an operation misses a target")
    args = ap.parse_args()
    try:
        import pycute
    except ImportError:
        print("compare_pycute: no pycute; "
              "pip install --no-deps nvidia-cutlass==4.2.0.0", file=sys.stderr)
        return 2
    try:
        from importlib.metadata import version
        cutlass = version("nvidia-cutlass")
    except Exception:  # not installed as a distribution
        cutlass = "?"

    try:
        axe_cute = import_axe()
    except ImportError as e:
        print(f"compare_pycute: no axe package: {e}", file=sys.stderr)
        return 2
    try:
        axe = run_axe(args.axe_bench, args.quick, args.cpu_time)
    except (OSError, subprocess.CalledProcessError, ValueError) as e:
        print(f"compare_pycute: {args.axe_bench}: {e}", file=sys.stderr)
        return 2
    print(f"# {cpu_model()}, "
          f"Python {platform.python_version()}, nvidia-cutlass {cutlass}, "
          f"axe.cute backend {getattr(axe_cute, 'BACKEND', 'ctypes')}, "
          f"{'CPU' if args.cpu_time else 'wall'} clock, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'op':<16} {'pycute us':>10} {'axe-py us':>10} {'axe-C ns':>9} "
          f"{'py/axe-py':>10} {'py/axe-C':>9}  targets {TARGET_PY:.0f}x "
          f"{TARGET:.0f}x")
    missed = 0
    ours = {op: thunk for op, _, thunk in suite_cases(axe_cute)}
    for op, text, thunk in suite_cases(pycute):
        py_s = time_pycute(thunk, args.repeats, args.cpu_time)
        ax_s = time_pycute(ours[op], args.repeats, args.cpu_time)
        ns, err = axe.get(op, (None, "MISSING"))
        r_py = py_s / ax_s
        if ns is None:
            missed += 1
            print(f"{op:<16} {py_s * 1e6:>10.2f} {ax_s * 1e6:>10.2f} "
                  f"{err:>9} {r_py:>9.1f}x {'-':>9}  no  {text}")
            continue
        r_c = py_s * 1e9 / ns
        met = (r_py >= TARGET_PY, r_c >= TARGET)
        missed += not all(met)
        flags = " ".join("yes" if m else "NO" for m in met)
        print(f"{op:<16} {py_s * 1e6:>10.2f} {ax_s * 1e6:>10.2f} "
              f"{ns:>9.1f} {r_py:>9.1f}x {r_c:>8.0f}x  {flags:<7} {text}")
    print(f"# {7 - missed} of 7 suite operations meet both targets")
    extra_missed = 0
    ours = {op: thunk for op, _, thunk in extra_cases(axe_cute)}
    for op, text, thunk in extra_cases(pycute):
        py_s = time_pycute(thunk, args.repeats, args.cpu_time)
        ax_s = time_pycute(ours[op], args.repeats, args.cpu_time)
        r_py = py_s / ax_s
        met = r_py >= TARGET_PY
        extra_missed += not met
        print(f"{op:<16} {py_s * 1e6:>10.2f} {ax_s * 1e6:>10.2f} "
              f"{'-':>9} {r_py:>9.1f}x {'-':>9}  {'yes' if met else 'NO':<7} "
              f"{text}")
    n = len(extra_cases(pycute))
    print(f"# {n - extra_missed} of {n} Python-only operations meet the "
          f"{TARGET_PY:.0f}x target")
    return 1 if args.check and (missed or extra_missed) else 0


def import_axe():
    """axe.cute: installed, else this checkout's python/ directory."""
    try:
        import axe.cute
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.join(here, "..", "..", "python"))
        import axe.cute
    return axe.cute


if __name__ == "__main__":
    sys.exit(main())
