#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# tests/kernel_lib.sh's own checks: the helpers the kernel test scripts
# rely on, run on small fixtures with planted faults (kernel_lib.sh is
# sourced, not run, so ctest does not list it; this script is its test).
set -u
# shellcheck disable=SC2034 # read by kernel_lib.sh
KERNEL_AXE_OPTIONAL=1
# shellcheck source=tests/kernel_lib.sh
. "$(dirname "$0")/kernel_lib.sh"
kernel_counts

# expect WHAT WANT GOT: one check.
expect() {
    if [ "$2" = "$3" ]; then ok; else bad "$1: want '$2', got '$3'"; fi
}

# Fixture kernel: syncs in code, in comments, one marked unneeded.
k=$tmp/k.axe
cat >"$k" <<'AXE'
kernel k(A: f32[4]) grid(1) threads(4) {
    sync;
    # sync; (a comment, not a statement)
    cta fill(A, 0);
    sync;  # unneeded sync: after-fill
        sync ;
}
AXE
expect "sync lines" "2 5 6" "$(kernel_sync_lines "$k" | tr '\n' ' ' | sed 's/ $//')"
expect "marker on line 5" "after-fill" "$(kernel_sync_mark "$k" 5)"
expect "no marker on line 2" "" "$(kernel_sync_mark "$k" 2)"
expect "no marker on a comment line" "" "$(kernel_sync_mark "$k" 3)"

# fails_of LIST: the failures kernel_sync_marks_listed counts on $k.
fails_of() {
    (
        pass=0 fail=0
        SRC=$tmp
        kernel_sync_marks_listed "$1" "$k" >/dev/null
        echo "$fail"
    )
}
expect "listed marker" 0 "$(fails_of "k.axe:after-fill")"
expect "marker not listed" 1 "$(fails_of "")"
expect "listed, no such marker" 2 "$(fails_of "k.axe:other")"
expect "listed twice (lines)" 0 \
    "$(fails_of "$(printf 'k.axe:after-fill\nk.axe:after-fill')")"

# kernel_flops_are: seconds x flops_per_s against the count.
j=$tmp/j.json
echo '{"pass":true,"seconds":0.5,"flops_per_s":32768}' >"$j"
kernel_flops_are "$j" 16384 && ok || bad "flops: 0.5 s x 32768/s is 16384"
kernel_flops_are "$j" 16385 && bad "flops: 16385 accepted for 16384" || ok
echo '{"pass":true,"seconds":0.5}' >"$j"
kernel_flops_are "$j" 16384 && bad "flops: accepted without flops_per_s" || ok

# kernel_need_compiler: a missing command skips (exit 77).
(kernel_need_compiler NO_SUCH_CC axe-no-such-compiler-here "fixture" >/dev/null)
expect "missing compiler skips" 77 "$?"
# kernel_check_run / kernel_exact_run on a stand-in axe that prints the
# verdict in $tmp/verdict and exits with $tmp/rc.
cat >"$tmp/axe" <<'SH'
#!/usr/bin/env bash
cat "$(dirname "$0")/verdict"
exit "$(cat "$(dirname "$0")/rc")"
SH
chmod +x "$tmp/axe"
# runs_of VERDICT RC: the failures of kernel_check_run, kernel_exact_run.
runs_of() {
    echo "$1" >"$tmp/verdict"
    echo "$2" >"$tmp/rc"
    (
        AXE=$tmp/axe pass=0 fail=0
        kernel_check_run "$k" -D N=4 >/dev/null
        kernel_exact_run "$k" >/dev/null
        echo "$fail"
    )
}
expect "exact pass" 0 "$(runs_of 'check passed: max_abs_err 0, max_rel_err 0' 0)"
expect "inexact pass" 1 "$(runs_of 'check passed: max_abs_err 1e-06, max_rel_err 0' 0)"
expect "json pass" 1 "$(runs_of '{"kernel":"k","pass":true}' 0)"
expect "exit 1" 2 "$(runs_of 'check passed: max_abs_err 0, max_rel_err 0' 1)"
expect "check failed" 2 "$(runs_of 'check FAILED: max_abs_err 1, max_rel_err 1' 0)"
echo 'check FAILED: x' >"$tmp/verdict"
out=$( (AXE=$tmp/axe SRC=$tmp pass=0 fail=0 kernel_check_run "$k" -D N=4) )
expect "failure names the run" "FAIL: axe run k.axe --check -D N=4 (check FAILED: x" \
    "$(printf "%s" "$out" | head -c 51)"

(PATH=/nonexistent kernel_need_python3 >/dev/null)
expect "missing python3 skips" 77 "$?"
# kernel_cli_or_finish ends with the counts when AXE is empty.
out=$( (AXE="" pass=3 fail=0 kernel_cli_or_finish) )
expect "no CLI: counts and exit" "3 passed, 0 failed (no AXE_BIN: the CLI runs skipped)" "$out"

# A statement that is no command (a typo'd helper name) fails once and
# names itself; the script goes on.
cat >"$tmp/typo.sh" <<SH
set -u
. "$SRC/tests/kernel_lib.sh"
kernel_counts
ok
chek_run k.axe -D N=4
ok
echo "\$pass passed, \$fail failed"
SH
out=$(KERNEL_AXE_OPTIONAL=1 bash "$tmp/typo.sh" 2>/dev/null)
expect "undefined helper" "FAIL: line 5: no such command (exit 127): chek_run k.axe -D N=4|2 passed, 1 failed" \
    "$(printf "%s" "$out" | paste -sd '|')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
