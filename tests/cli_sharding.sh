#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `axe convert --from/--to jax|dtensor|alpa` and the batch ops
# `sharding.to_axe` / `sharding.from_axe` (issue 14 §1): table rows of
# specs and layouts written by hand from the convention (docs/cli.md),
# refusals with exit 1 (no answer) or 2 (usage, syntax) and one reason
# line, and the batch answers (null with a reason when no layout or spec
# exists). The library's laws are in tests/test_sharding.c. The last line
# is "N passed, N failed".
set -u

AXE=${AXE_BIN:-}
if [ -z "$AXE" ] || [ ! -x "$AXE" ]; then
    echo "skipped: AXE_BIN does not name the axe binary"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*"
}

# expect WANT_STDOUT ARGS...: exit 0 and exactly that line.
expect() {
    local want=$1 got
    shift
    got=$("$AXE" convert "$@" 2>"$tmp/err")
    if [ $? -eq 0 ] && [ "$got" = "$want" ] && [ ! -s "$tmp/err" ]; then
        ok
    else
        bad "convert $* gave '$got' ($(cat "$tmp/err")), want '$want'"
    fi
}

# refuse CODE WORDS ARGS...: exit CODE, nothing on stdout, one stderr line
# holding WORDS.
refuse() {
    local code=$1 words=$2 got rc
    shift 2
    got=$("$AXE" convert "$@" 2>"$tmp/err")
    rc=$?
    if [ $rc -eq "$code" ] && [ -z "$got" ] &&
        [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$words" "$tmp/err"; then
        ok
    else
        bad "convert $* exit $rc '$got' ($(cat "$tmp/err")), want $code '$words'"
    fi
}

m="--mesh x=2,y=4 --shape [8,16]"
# shellcheck disable=SC2086
{
    expect "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]" --from jax $m "P('x', None)"
    expect "S[(2,4,16):(4@gpuid,1@gpuid,1)]" --from jax $m "P(('x','y'), None)"
    expect "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]" --from jax $m "PartitionSpec(None, 'y')"
    expect "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid] partial(sum)" --from dtensor $m "[Shard(dim=0), Partial()]"
    expect "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]" --from dtensor $m "[Replicate(), Shard(1)]"
    expect "S[(2,32,2,64):(2@gpuid,64,1@gpuid,1)]" --from alpa --mesh 2,2 --shape 64,128 S0S1
    expect "S[(2,2,16,128):(2@gpuid,1@gpuid,128,1)]" --from alpa --mesh 2,2 --shape 64,128 S01R
    expect "S[(64,2,64):(64,1@gpuid,1)] + R[2:2@gpuid]" --from alpa --mesh 2,2 --shape 64,128 RS1
    expect "P('x', None)" --to jax $m "S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]"
    expect "P(('x', 'y'), None)" --to jax $m "S[(8,16):(1@gpuid,1)]"
    expect "[Shard(0), Shard(0)]" --to dtensor $m "S[(8,16):(1@gpuid,1)]"
    expect "[Shard(0), Partial()]" --to dtensor $m "S[(2,64):(4@gpuid,1)] + R[4:1@gpuid] partial(sum)"
    expect "S10R" --to alpa $m "S[(4,2,16):(1@gpuid,4@gpuid,1)]"
    expect "RS1" --to alpa $m "S[(8,4,4):(4,1@gpuid,1)] + R[2:4@gpuid]"

    refuse 1 "dim 1 of extent 10 does not split evenly over its 4 devices" \
        --from dtensor --mesh x=2,y=4 --shape "[8,10]" "[Replicate(), Shard(1)]"
    refuse 1 "interleaves devices within the dimension" --to jax $m "S[(2,4,16):(16,4@gpuid,1)]"
    refuse 1 "in mesh order only" --to dtensor $m "S[(4,2,16):(1@gpuid,4@gpuid,1)]"
    refuse 1 "no pending reduction" --to alpa $m "S[(2,64):(4@gpuid,1)] + R[4:1@gpuid] partial(sum)"
    refuse 1 "it replicates over none" --to dtensor $m "S[(8,16):(1@gpuid,1)] partial(sum)"
    refuse 1 "neither sharded nor replicated" --to jax $m "S[(2,64):(4@gpuid,1)]"
    refuse 2 "syntax error at offset 7" --from jax $m "P('x', Nonx)"
    refuse 2 "has no axis z" --from jax $m "P('z')"
    refuse 2 "need --shape" --from jax --mesh x=2 "P('x')"
    refuse 2 "need --mesh" --from jax --shape 8 "P('x')"
    refuse 2 "exclude each other" --from jax --to alpa $m "P('x')"
    refuse 2 "from must be jax, dtensor or alpa" --from flax $m "P('x')"
    refuse 2 "mesh: syntax error" --from jax --mesh "x=2,,y" --shape 8 "P('x')"
    refuse 2 "layout: syntax error" --to jax $m "S[(8,16):(1@gpuid,1]"
}

# Batch: one answer per line, null with a reason where no answer exists.
printf '%s\n' \
    '{"id":1,"op":"sharding.to_axe","args":{"from":"jax","spec":"P(\"x\", None)","mesh":"x=2,y=4","shape":[8,16]}}' \
    '{"id":2,"op":"sharding.from_axe","args":{"to":"dtensor","layout":"S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]","mesh":{"x":2,"y":4},"shape":[8,16]}}' \
    '{"id":3,"op":"sharding.to_axe","args":{"from":"dtensor","spec":"[Shard(1)]","mesh":"4","shape":[8,10]}}' \
    '{"id":4,"op":"sharding.from_axe","args":{"to":"jax","layout":"S[(2,4,16):(16,4@gpuid,1)]","mesh":"x=2,y=4","shape":[8,16]}}' \
    '{"id":5,"op":"sharding.to_axe","args":{"from":"alpa","spec":"S0","mesh":"2,2","shape":[8,16]}}' \
    '{"id":6,"op":"sharding.to_axe","args":{"from":"jax","spec":"P()","mesh":"x=2"}}' \
    '{"id":7,"op":"sharding.nope","args":{}}' |
    "$AXE" batch >"$tmp/out"
want='{"id":1,"ok":true,"result":"S[(2,4,16):(4@gpuid,16,1)] + R[4:1@gpuid]"}
{"id":2,"ok":true,"result":"[Shard(0), Replicate()]"}
{"id":3,"ok":true,"result":null,"reason":"dim 1 of extent 10 does not split evenly over its 4 devices (uneven shards, as torch.chunk makes them, have no Axe layout)"}
{"id":4,"ok":true,"result":null,"reason":"dim 0 interleaves devices within the dimension (a gpuid iter inside its m iters): no spec places blocks cyclically"}'
[ "$(head -4 "$tmp/out")" = "$want" ] && ok || bad "batch answers: $(head -4 "$tmp/out")"
sed -n 5p "$tmp/out" | grep -q '"ok":false,"error":"INVALID".*one R or S' && ok ||
    bad "batch alpa refusal: $(sed -n 5p "$tmp/out")"
sed -n 6p "$tmp/out" | grep -q '"error":"INVALID".*args.shape' && ok ||
    bad "batch missing shape: $(sed -n 6p "$tmp/out")"
sed -n 7p "$tmp/out" | grep -q '"error":"UNKNOWN_OP"' && ok ||
    bad "batch unknown op: $(sed -n 7p "$tmp/out")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
