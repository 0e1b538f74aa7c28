#!/usr/bin/env bash
# tessel export --pytorch / import --pytorch: the compute-only action CSV that
# torch.distributed.pipelining loads (one row per rank, cells [stage][F|I|W|B][micro-batch] in run
# order), checked against lines written from PyTorch's documented format, and round trips.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
roundtrip() { # placement, ndevs, schedule file: export, import, export again: same rows
  "$tessel" export --pytorch "$3" -o "$tmp/a.csv" &&
    "$tessel" import --pytorch "$tmp/a.csv" --placement "$1" --ndevs "$2" -o "$tmp/b.json" &&
    "$tessel" export --pytorch "$tmp/b.json" -o "$tmp/b.csv" && cmp -s "$tmp/a.csv" "$tmp/b.csv"
}
well_formed() { # every cell an action of PyTorch's compute-only format, one row per device
  local rows
  rows=$(wc -l <"$1")
  [[ $rows -eq $2 ]] && ! tr ',' '\n' <"$1" | grep -Eqv '^[0-9]+[FIWB][0-9]+$'
}

check "export --help lists pytorch" bash -c "'$tessel' export --help | grep -q -- --pytorch"
check "import --help lists pytorch" bash -c "'$tessel' import --help | grep -q -- --pytorch"

# 1F1B on 4 stages, 8 micro-batches (PyTorch's Schedule1F1B order): rank r runs 3-r warm-up
# forwards, then one forward and one backward (B: full backward) until its forwards are done.
cat >"$tmp/want.csv" <<'CSV'
0F0,0F1,0F2,0F3,0B0,0F4,0B1,0F5,0B2,0F6,0B3,0F7,0B4,0B5,0B6,0B7
1F0,1F1,1F2,1B0,1F3,1B1,1F4,1B2,1F5,1B3,1F6,1B4,1F7,1B5,1B6,1B7
2F0,2F1,2B0,2F2,2B1,2F3,2B2,2F4,2B3,2F5,2B4,2F6,2B5,2F7,2B6,2B7
3F0,3B0,3F1,3B1,3F2,3B2,3F3,3B3,3F4,3B4,3F5,3B5,3F6,3B6,3F7,3B7
CSV
"$tessel" baseline 1f1b --placement vshape --ndevs 4 -n 8 -o "$tmp/1f1b.json" >/dev/null
check "1f1b export" "$tessel" export --pytorch "$tmp/1f1b.json" -o "$tmp/1f1b.csv"
check "1f1b rows as PyTorch's 1F1B" cmp "$tmp/1f1b.csv" "$tmp/want.csv"
check "1f1b round trip" roundtrip vshape 4 "$tmp/1f1b.json"
check "export -n unrolls" bash -c "'$tessel' export --pytorch '$tmp/1f1b.json' -n 8 | cmp - '$tmp/want.csv'"

# The zero-bubble kinds: I (input gradient) and W (weight gradient) on a split backward; the V
# placement puts stages r and 2D-1-r on rank r, as PyTorch's ZBVZeroBubble does.
for k in zb-h1:vshape_zb zb-v:vshape_v_zb dualpipev:vshape_v_zb looped-bfs:vshape_interleaved; do
  "$tessel" baseline "${k%%:*}" --placement "${k##*:}" --ndevs 4 -n 8 -o "$tmp/k.json" >/dev/null
  check "$k round trip" roundtrip "${k##*:}" 4 "$tmp/k.json"
  check "$k well formed" well_formed "$tmp/a.csv" 4
done
"$tessel" baseline zb-v --placement vshape_v_zb --ndevs 4 -n 8 -o "$tmp/v.json" >/dev/null
"$tessel" export --pytorch "$tmp/v.json" -o "$tmp/v.csv"
check "zb-v rank 0: stages 0 and 7 only" bash -c "! head -1 '$tmp/v.csv' | tr ',' '\n' | grep -Eqv '^[07][FIW][0-9]+$'"
check "zb-v uses I and W" bash -c "grep -q '7I0' '$tmp/v.csv' && grep -q '7W0' '$tmp/v.csv'"

# A searched schedule (when the solver is built in).
if "$tessel" search --placement vshape --ndevs 4 --memory 3 -n 8 -o "$tmp/s.json" >/dev/null 2>&1
then
  check "searched round trip" roundtrip vshape 4 "$tmp/s.json"
  check "searched well formed" well_formed "$tmp/a.csv" 4
fi

# Hand-written files in PyTorch's style (as its tests write them): blank cells are idle slots.
printf '0F0,,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n' >"$tmp/h.csv"
check "import hand-written" "$tessel" import --pytorch "$tmp/h.csv" --placement vshape --ndevs 2 \
  -o "$tmp/h.json"
check "hand-written order kept" bash -c "'$tessel' export --pytorch '$tmp/h.json' | cmp - <(printf '0F0,0F1,0B0,0B1\n1F0,1B0,1F1,1B1\n')"

# A full backward B of a stage the placement splits (PyTorch's DualPipeV writes both) is its I
# then its W.
printf '0F0,0B0\n1F0,1I0,1W0\n' >"$tmp/bw.csv"
check "B on a split stage imports" "$tessel" import --pytorch "$tmp/bw.csv" --placement vshape_zb \
  --ndevs 2 -o "$tmp/bw.json"
check "B on a split stage is I then W" bash -c "'$tessel' export --pytorch '$tmp/bw.json' | cmp - <(printf '0F0,0I0,0W0\n1F0,1I0,1W0\n')"

# Refusals: clear message, exit 2.
"$tessel" baseline chimera --placement xshape --ndevs 4 -n 4 -o "$tmp/x.json" >/dev/null
expect_rc 2 "not one pipeline of stages" export --pytorch "$tmp/x.json"
"$tessel" baseline 1f1b --placement mshape --ndevs 4 -n 4 -o "$tmp/m.json" >/dev/null
expect_rc 2 "runs on 4 devices" export --pytorch "$tmp/m.json"
printf '0F0,1UNSHARD,0B0\n1F0,1B0\n' >"$tmp/bad.csv"
expect_rc 2 "not a compute action" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
printf '0F0,0B0\n1F0,0B0\n' >"$tmp/bad.csv"
expect_rc 2 "rank 1 runs 0B0" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
printf '0F0,0B0\n1F0\n' >"$tmp/bad.csv"
expect_rc 2 "is missing" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
printf '0F0,0F0,0B0\n1F0,1B0\n' >"$tmp/bad.csv"
expect_rc 2 "appears twice" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
printf '0B0,0F0\n1F0,1B0\n' >"$tmp/bad.csv"
expect_rc 2 "cannot run" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
printf '0F0,0B0\n1F0,1B0\n2F0\n' >"$tmp/bad.csv"
expect_rc 2 "more rows" import --pytorch "$tmp/bad.csv" --placement vshape --ndevs 2
expect_rc 2 "cannot open" import --pytorch "$tmp/none.csv" --placement vshape --ndevs 2
expect_rc 2 "does not apply" import --pytorch "$tmp/h.csv" --placement vshape --ndevs 2 -n 4

harness_end
