#!/usr/bin/env bash
# The README's first command (scripts/demo.sh runs this with AXE set to the
# release build's CLI): a one-minute tour of the whole system, from a
# layout to its picture to a kernel. Each step prints one line saying what
# it shows, the command, and its answer. tests/demo.sh checks the answers.
# The algebra, step by step, is examples/algebra_tour.sh.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
AXE=${AXE:-build/release/axe}

# Print "$ axe ARGS" with the arguments quoted where the shell needs it.
show() {
    printf '$ axe'
    local a
    for a in "$@"; do
        case $a in
        *[!A-Za-z0-9_./=,-]*) printf " '%s'" "$a" ;;
        *) printf ' %s' "$a" ;;
        esac
    done
}

# step WHAT ARGS...: the explanation, the command and its answer.
step() {
    printf '\n## %s\n' "$1"
    shift
    show "$@"
    printf '\n'
    "$AXE" "$@"
    local rc=$?
    [ "$rc" -eq 0 ] || { echo "demo: axe exited $rc" >&2; exit 1; }
}

# step_grep WHAT PATTERN ARGS...: the same, showing only the answer's lines
# that match PATTERN (grep -E), as the printed command says.
step_grep() {
    printf '\n## %s\n' "$1"
    local pattern=$2
    shift 2
    show "$@"
    printf " | grep -E '%s'\n" "$pattern"
    local out
    out=$("$AXE" "$@") || { echo "demo: axe exited $?" >&2; exit 1; }
    grep -E -- "$pattern" <<<"$out"
}

echo "$("$AXE" --version): tensor layouts, from a layout to its picture to a kernel"

echo
echo "== 1. The Axe paper's tensor-core tile (Figure 2)"
TC="S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
step "An 8x16 tile on warps, lanes and registers; R[2:4@warp] holds each element twice: (2,9) is on warps 6 and 10" \
    apply "$TC" --shape "[8,16]" "[2,9]"
step "Its row 0, a layout of its own" \
    slice "$TC" "[8,16]" "[[0,1],[0,16]]"
ROW=$("$AXE" slice "$TC" "[8,16]" "[[0,1],[0,16]]") || exit 1
step "Drawn from the hardware side: warps 5 and 9 hold columns 0-7, warps 6 and 10 columns 8-15" \
    render "$ROW" --shape "[1,16]" --as physical

echo
echo "== 2. One layout in four notations"
CUTE="((2,4),8):((1,16),2)"
step "A CuTe layout (colexicographic) as an Axe layout (lexicographic: the modes reversed)" \
    convert "$CUTE"
step "As a named-axis mapping expression" \
    convert --to mapping "$CUTE"
step "As a Triton linear layout: each input bit of the 8x8 tile to an offset bit" \
    convert --to linear --shape 8,8 "$CUTE"
step "And the mapping expression back to CuTe (the same function, flattened)" \
    convert --to cute --axes "axes![A = 8, B = 4, C = 2]" "m![B, A, C]"

echo
echo "== 3. A tensor sharded over a device mesh"
MESH="S[(2,2,4):(1@gpuid,4,1)] + R[2:2@gpuid]"
step "A 4x4 tensor on 4 GPUs: rows split over GPUs 0 and 1, replicated on GPUs 2 and 3; (3,1) is at m 5 on GPUs 1 and 3" \
    apply "$MESH" --shape "[4,4]" "[3,1]"
step "What each GPU stores at each memory offset m" \
    render "$MESH" --shape "[4,4]" --as physical

echo
echo "== 4. A kernel: row softmax, one warp per row (examples/kernels/softmax.axe);"
echo "   its row max has the layout S[1:1] + R[32:1@laneid], replicated on every lane"
step_grep "The compiler explains the schedule it chose for each operator (and why it rejected the others)" \
    '^op|chosen|butterfly' compile examples/kernels/softmax.axe --explain
step "Compiled to C, built, run, and checked against the reference semantics in three thread orders" \
    run examples/kernels/softmax.axe --check

echo
echo "demo: done (more: examples/algebra_tour.sh, docs/cli.md, docs/compiler.md)"
