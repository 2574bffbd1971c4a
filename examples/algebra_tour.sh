#!/usr/bin/env bash
# The algebra, step by step: a walk through the CuTe paper's and CuTe
# documentation's worked examples, then the Axe paper's, with the axe CLI
# (examples/demo.sh, the README's demo, is the short tour of the whole
# system). Each step prints the command and its answer; a step whose answer
# is a refusal prints the reason. Run it as AXE=build/dev/axe bash
# examples/algebra_tour.sh; tests/algebra_tour.sh checks the answers.
set -uo pipefail
AXE=${AXE:-build/release/axe}

step() {
    printf '\n## %s\n' "$1"
    shift
    printf '$ axe'
    local a
    for a in "$@"; do
        case $a in
        *[!A-Za-z0-9_./-]*) printf " '%s'" "$a" ;;
        *) printf ' %s' "$a" ;;
        esac
    done
    printf '\n'
    "$AXE" "$@"
    local rc=$?
    [ "$rc" -le 1 ] || { echo "tour: unexpected exit $rc" >&2; exit 1; }
}

echo "axe $("$AXE" --version) -- the CuTe layout algebra, worked examples"

step "A layout maps coordinates to offsets: (3,(2,3)):(3,(12,1)) at (1,(1,2))" \
    cute eval "(3,(2,3)):(3,(12,1))" "(1,(1,2))"
step "Drawing a rank-2 layout (CuTe's print_layout)" \
    cute print "((2,2),(4,2)):((1,8),(2,16))"
step "Coalesce keeps the function and merges modes" \
    cute coalesce "(2,(1,6)):(1,(6,2))"
step "Coalesce by mode keeps the rank" \
    cute coalesce "(3,(4,5)):(8,(1,4))" "(1,1)"
step "Composition: (6,2):(8,2) o (4,3):(3,1)" \
    cute compose "(6,2):(8,2)" "(4,3):(3,1)"
step "Composition with a strided layout: 20:2 o (5,4):(4,1)" \
    cute compose "20:2" "(5,4):(4,1)"
step "Composition that pycute rejects but exists: (4,2,8):(3,12,97) o 3:3" \
    cute compose "(4,2,8):(3,12,97)" "3:3"
step "By-mode composition with a tiler" \
    cute compose "(12,(4,8)):(59,(13,1))" "<3:4, 8:2>"
step "A composition that has no layout, with the reason" \
    cute compose "(4,8):(2,1)" "33:5"
step "Complement: the layout that fills the gaps of (2,2):(1,6) up to 24" \
    cute complement "(2,2):(1,6)" 24
step "Complement of 4:2 up to 24" \
    cute complement "4:2" 24
step "Right inverse of a TV-like layout" \
    cute right-inverse "((2,2),(4,2)):((1,8),(2,16))"
step "Left inverse of a non-contiguous image: (4,8):(1,5)" \
    cute left-inverse "(4,8):(1,5)"
step "Logical divide: (4,2,3):(2,1,8) by 4:2" \
    cute divide "(4,2,3):(2,1,8)" "4:2"
step "Logical divide by a tiler: (8,16):(20,1) by <4:1, 8:2>" \
    cute divide "(8,16):(20,1)" "<4:1, 8:2>"
step "Zipped divide: 128x64 row-major tile into 16x8 tiles" \
    cute divide --zipped "(128,64):(64,1)" "<16:1, 8:1>"
step "Logical product: (2,2):(4,1) repeated 6 times" \
    cute product "(2,2):(4,1)" "6:1"
step "Blocked product (each element of B is a copy of A)" \
    cute product --blocked "(2,5):(5,1)" "(3,4):(1,3)"
step "Raked product (copies of A interleaved)" \
    cute product --raked "(2,5):(5,1)" "(3,4):(1,3)"
step "tile_to_shape rounds non-dividing targets up" \
    cute tile-to-shape "(3,3):(1,3)" "(5,8)"
step "Slicing: the column 2 of ((2,4),3):((1,2),8)" \
    cute slice "((2,4),3):((1,2),8)" "(_,2)"
step "The Ampere m16n8k16 accumulator TV layout: (thread, value) -> (m, n)" \
    cute print "((4,8),(2,2)):((32,1),(16,8))"
step "A swizzled 8x8 shared-memory tile: Sw<3,0,3> o 0 o (8,8):(8,1)" \
    cute print "Sw<3,0,3> o 0 o (8,8):(8,1)"
step "Vectorization: the longest common contiguous run of two layouts" \
    cute max-common-vector "(8,4):(1,8)" "(8,4):(1,16)"
step "Reinterpreting 16-bit elements as 32-bit ones" \
    cute recast "(8,4):(1,8)" 16 32
echo
echo "== The Axe paper: layouts over named hardware axes =="
TC="S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp"
step "§2.2 tensor-core tile: logical (2,9) lives on two warps (replica R[2:4@warp])" \
    apply "$TC" --shape "[8,16]" "[2,9]"
step "TIRx's base point of the same element (replicas ignored)" \
    apply --base "$TC" --shape "[8,16]" "[2,9]"
step "The 64x128 tensor on a 2x2 GPU mesh, fully sharded: element (40,100)" \
    apply "S[(2,32,2,64):(1@gpuid,128@m,2@gpuid,1@m)]" --shape "[64,128]" "[40,100]"
step "Sharded on rows, replicated on columns: every element lives on two GPUs" \
    apply "S[(2,32,128):(1@gpuid,128@m,1@m)] + R[2:2@gpuid]" --shape "[64,128]" "[40,100]"
step "Per-GPU memory footprint (span on m)" \
    span --axis m "S[(2,32,128):(1@gpuid,128@m,1@m)] + R[2:2@gpuid]"
step "Trainium SBUF: partitions P x free dim F" \
    apply "S[(2,128,512):(512@F,1@P,1@F)]" --shape "[2,128,512]" "[1,127,511]"
step "Canonical form: adjacent iters that continue each other fuse" \
    canon "S[(8,8,8,4,1,1):(512,64,8,2,1,1)]"
step "Grouping a layout by a logical shape (block boundaries)" \
    group "S[(4,8):(8,1)]" "[8,4]"
step "§3.3 tile: an 8x8 tile laid out 2x3 times (Kronecker product)" \
    tile "S[(2,3):(3,1)]" "[2,3]" "S[(8,8):(8,1)]" "[8,8]"
step "tile-of recovers the outer factor" \
    tile-of "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" "S[(8,8):(8,1)]" "[8,8]"
step "§3.3 slice: the region [0,8) x [8,24) of that tile" \
    slice "S[(2,8,3,8):(192,8,64,1)]" "[16,24]" "[[0,8],[8,24]]"
step "Appendix F: the direct sum (2,2):(8,2) + (2,2):(4,1)" \
    sum "S[(2,2):(8,2)]" "[2,2]" "S[(2,2):(4,1)]" "[2,2]"
step "Appendix F: no C has C (x) S[(2,2):(4,1)] == S[16:1] (exit 1, with the reason)" \
    tile-of "S[16:1]" "[4,4]" "S[(2,2):(4,1)]" "[2,2]"
step "A CuTe layout is an Axe layout on m with the modes reversed" \
    convert "((4,8),2):((16,1),8)"

echo
echo "tour: done"
