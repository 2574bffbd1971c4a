# shellcheck shell=bash
# SPDX-License-Identifier: Apache-2.0
#
# The start the kernel test scripts share (tests/compiler_*.sh source it,
# `set -u` on): AXE, the axe binary $AXE_BIN as an absolute path (else
# "skipped", exit 77; with KERNEL_AXE_OPTIONAL=1 set before sourcing, AXE
# is empty instead and kernel_cli_or_finish ends the script where the CLI
# runs begin), and SRC, the source tree ($AXE_SOURCE_DIR, else the folder
# above this one). Then, as a script needs them:
#   kernel_need_compiler VAR DEFAULT WHAT: $VAR (else DEFAULT; its first
#     word a command) is exported, or the script is skipped (exit 77,
#     "skipped: no WHAT").
#   kernel_need_python3: python3 is there, or the script is skipped
#     (exit 77, "skipped: no python3").
#   kernel_counts: tmp (a folder removed on exit), pass and fail (0), ok
#     (one more passed) and bad MESSAGE (one more failed, "FAIL: MESSAGE");
#     from then on a statement of the script that exits 127 (no such
#     command: a typo'd or not yet defined helper) is a failure naming it.
#   kernel_mpi_start: OpenMPI (mpicc, mpirun) installed through
#     scripts/ensure_tools.sh when missing, else the script is skipped
#     (exit 77); mpirun_args, the flags every mpirun here takes
#     (--oversubscribe, and --allow-run-as-root as root).
#   kernel_rank_runs WHAT PROG WANT N...: PROG under mpirun at each N
#     ranks (5 minutes at most each) passes when it exits 0, prints no
#     FAIL and prints a line matching WANT (a grep pattern, "%n" in it
#     N; empty: any output), else "FAIL: WHAT at N ranks: " and its first errors.
#   kernel_cli_or_finish: where AXE is empty (KERNEL_AXE_OPTIONAL), the
#     counts so far and the script's exit ("the CLI runs skipped").
#   kernel_scalars_axe FILE: writes to FILE a mesh kernel with runtime
#     scalars (T: i32, a trip count; v: f32, an operand; -D P=N for N
#     devices), for the --arg runs of compiler_mpi.sh and compiler_nccl.sh.
#   kernel_count FILE START REGEX...: per thread, in the emitted kernel
#     FILE, the matches of each Python REGEX (one count each, printed in
#     order) on the lines that the first line containing START covers:
#     the body of the for loop it heads, else the rest of its block; each
#     line's matches times the trips of the for loops around it inside
#     that range (`for (long v = 0|ax_rank|ax_tid; v < NL; ...)`, by
#     indentation; blank and preprocessor lines skipped). Needs python3.
#     KERNEL_COUNT_FROM=0: only the loops from 0 count their trips (those
#     from ax_rank or ax_tid, the threads' shares, count once).
#   kernel_ways_compare TWIN HAND NAME...: one line comparing two `axe
#     synth --json` outputs (files) of an auto twin and of its hand-written
#     kernel (synthesized with its own auto tensors, so that its shared
#     accesses are reported on its written layouts): "NAME=LAYOUT ... |
#     OP:TENSOR:H:T ... | NH NT AUTO", the twin's layout of each NAME, then
#     for each access that HAND reports (sorted) its ways after synthesis
#     in HAND (H) and in TWIN (T; 99 where TWIN has none), then the number
#     of accesses of HAND and of TWIN and HAND's auto tensors (comma-
#     separated). Needs python3.
#   kernel_flops_are FILE WANT: the JSON line in FILE has "seconds" and
#     "flops_per_s" whose product is WANT (the flops counted per run)
#     within a relative 1e-6.
#   kernel_check_run FILE ARGS...: `axe run FILE --check ARGS` passes (ok,
#     else bad with the command, FILE under SRC, and its first output).
#   kernel_exact_run FILE ARGS...: the same with no error at all
#     ("check passed: max_abs_err 0, max_rel_err 0": operators that keep
#     the reference's order of operations).
#   kernel_sync_lines FILE: the line numbers of FILE's `sync;` statements
#     (not those in comments).
#   kernel_sync_mark FILE LINE: NAME where that line carries the marker
#     "# unneeded sync: NAME" (a sync the race tests expect a kernel not to
#     need), else nothing.
#   kernel_sync_marks_listed LIST FILE...: each marker of the FILEs is
#     listed in LIST (lines REL:NAME, REL the path under SRC) and each
#     listed one is on a sync of its file (ok, else bad: a marker that
#     appears or disappears fails).

AXE=${AXE_BIN:-}
# shellcheck disable=SC2034 # (the sourcing script's)
SRC=${AXE_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ -n "$AXE" ] && [ -x "$AXE" ]; then
    AXE=$(cd "$(dirname "$AXE")" && pwd)/$(basename "$AXE")
elif [ "${KERNEL_AXE_OPTIONAL:-0}" = 1 ]; then
    AXE=
else
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi

kernel_need_compiler() {
    local cmd=${!1:-$2}
    if ! command -v "${cmd%% *}" >/dev/null 2>&1; then
        echo "skipped: no $3 ($cmd)"
        exit 77
    fi
    printf -v "$1" '%s' "$cmd"
    export "${1?}"
}

kernel_need_python3() {
    if ! command -v python3 >/dev/null 2>&1; then
        echo "skipped: no python3"
        exit 77
    fi
}

kernel_counts() {
    tmp=$(mktemp -d)
    # shellcheck disable=SC2064
    trap "rm -rf '$tmp'" EXIT
    pass=0
    fail=0
    # a statement of the script that is no command (a typo'd helper name,
    # a helper used before its definition: bash says "command not found",
    # exit 127, and went on without counting the row) is a failure
    trap 'kernel_not_found $? "$LINENO" "$BASH_COMMAND"' ERR
}
ok() { pass=$((pass + 1)); }
# kernel_not_found STATUS LINE COMMAND (the ERR trap of the script's own
# statements; not inherited by functions): bad when STATUS is 127.
kernel_not_found() {
    [ "$1" -ne 127 ] || bad "line $2: no such command (exit 127): $3"
}
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

kernel_mpi_start() {
    # shellcheck source=../scripts/ensure_tools.sh
    . "$SRC/scripts/ensure_tools.sh"
    if ! axe_ensure_tools mpicc mpirun >/dev/null 2>&1 ||
        ! command -v mpicc >/dev/null 2>&1; then
        echo "skipped: no OpenMPI (mpicc, mpirun) and it could not be installed"
        exit 77
    fi
    mpirun_args=(--oversubscribe)
    [ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
}

kernel_rank_runs() {
    local what=$1 prog=$2 want=$3 n
    shift 3
    for n in "$@"; do
        if timeout 300 mpirun "${mpirun_args[@]}" -np "$n" "$prog" \
            >"$tmp/ranks.out" 2>&1 && ! grep -q FAIL "$tmp/ranks.out" &&
            { [ -z "$want" ] || grep -q -- "${want//%n/$n}" "$tmp/ranks.out"; }; then
            ok
        else
            bad "$what at $n ranks: $(grep -m3 -E 'FAIL|ERROR|rror' "$tmp/ranks.out")"
        fi
    done
}

kernel_cli_or_finish() {
    if [ -z "$AXE" ]; then
        echo "$pass passed, $fail failed (no AXE_BIN: the CLI runs skipped)"
        [ "$fail" -eq 0 ]
        exit
    fi
}

# kernel_run_verdict PATTERN WHAT FILE ARGS...: axe run --check of FILE
# prints a line matching PATTERN (grep -E) and exits 0.
kernel_run_verdict() {
    local pat=$1 what=$2 f=$3
    shift 3
    if "$AXE" run "$f" --check "$@" >"$tmp/run.out" 2>"$tmp/run.err" &&
        grep -qE -- "$pat" "$tmp/run.out"; then
        ok
    else
        bad "axe run ${f#"$SRC"/} --check $*$what ($(cat "$tmp/run.out" "$tmp/run.err" | head -c 400))"
    fi
}
kernel_check_run() {
    kernel_run_verdict '^check passed|"pass":true' "" "$@"
}
kernel_exact_run() {
    kernel_run_verdict '^check passed: max_abs_err 0, max_rel_err 0$' \
        " is not exact" "$@"
}

kernel_sync_lines() {
    grep -n '^[^#]*\bsync *;' "$1" | cut -d: -f1
}

kernel_sync_mark() {
    sed -n "$2{s/^[^#]*\bsync *; *# unneeded sync: \([A-Za-z0-9_-]*\).*/\1/p}" "$1"
}

kernel_sync_marks_listed() {
    local list=$1 f rel line name entry found
    shift
    found=
    for f in "$@"; do
        rel=${f#"$SRC"/}
        for line in $(kernel_sync_lines "$f"); do
            name=$(kernel_sync_mark "$f" "$line")
            [ -n "$name" ] || continue
            found="$found $rel:$name"
            if printf '%s\n' "$list" | grep -qxF "$rel:$name"; then
                ok
            else
                bad "$rel:$line is marked 'unneeded sync: $name' but not listed"
            fi
        done
    done
    for entry in $list; do
        if printf '%s\n' $found | grep -qxF "$entry"; then
            ok
        else
            bad "$entry is listed, but no sync of its file carries that marker"
        fi
    done
}

kernel_scalars_axe() {
    cat >"$1" <<'AXE'
param P = 2;
mesh(P);
kernel dist_scalars(T: i32, v: f32,
                    A: f32[8,4] layout S[(P,8 / P,4):(1@gpuid,4,1)],
                    B: f32[8,4] layout S[(8,4):(4,1)] + R[P:1@gpuid])
    grid(1) threads(2) {
    for i in range(T) {
        cta add(A, A, v);
        sync;
    }
    device copy(B, A);
}
AXE
}

kernel_flops_are() {
    sed -n 's/.*"seconds":\([0-9.e+-]*\),"flops_per_s":\([0-9.e+-]*\)}.*/\1 \2/p' "$1" |
        awk -v w="$2" 'NF == 2 { d = $1 * $2 / w - 1; ok = d < 1e-6 && d > -1e-6 }
            END { exit !ok }'
}

kernel_count() {
    KERNEL_COUNT_FROM=${KERNEL_COUNT_FROM:-0|ax_rank|ax_tid} python3 - "$@" <<'PY'
import os, re, sys
loop = re.compile(r'for \(long \w+ = (' + os.environ['KERNEL_COUNT_FROM'] +
                  r'); \w+ < (\d+)L; (?:\+\+\w+|\w+ \+= (\d+)L)\)')
pats = [re.compile(p) for p in sys.argv[3:]]
lines = open(sys.argv[1]).read().split('\n')
start = next(i for i, l in enumerate(lines) if sys.argv[2] in l)
ind0 = len(lines[start]) - len(lines[start].lstrip())
body = loop.search(lines[start]) is not None
stack, n = [], [0] * len(pats)
for l in lines[start + 1:]:
    if not l.strip() or l.lstrip().startswith('#'):
        continue
    ind = len(l) - len(l.lstrip())
    if ind < ind0 or (body and ind == ind0):
        break
    while stack and ind <= stack[-1][0]:
        stack.pop()
    mult = 1
    for _, trip in stack:
        mult *= trip
    for i, p in enumerate(pats):
        n[i] += mult * len(p.findall(l))
    m = loop.search(l)
    if m:
        stack.append((ind, -(-int(m.group(2)) // int(m.group(3) or 1))))
print(*n)
PY
}

kernel_ways_compare() {
    python3 - "$@" <<'PY'
import json, sys
t, h = (json.load(open(a)) for a in sys.argv[1:3])
out = [" ".join("%s=%s" % (n, t["tensors"].get(n)) for n in sys.argv[3:])]
tw = {(a["op"], a["tensor"]): a["ways_after"] for a in t["accesses"]}
hw = {(a["op"], a["tensor"]): a["ways_after"] for a in h["accesses"]}
out.append(" ".join("%s:%s:%d:%d" % (k[0], k[1], hw[k], tw.get(k, 99))
                    for k in sorted(hw)))
out.append("%d %d %s" % (len(hw), len(tw), ",".join(sorted(h["tensors"]))))
print(" | ".join(out))
PY
}
