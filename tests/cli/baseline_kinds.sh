#!/usr/bin/env bash
# The registry of baseline kinds is what the command line reads: `baseline --list`, `compare` and
# the sweep spec all see the same kinds, the V and bidirectional ones included.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

list=$("$tessel" baseline --list | awk '{print $1}' | paste -sd' ' -)
check "--list names every kind" \
  test "$list" = "gpipe 1f1b interleaved chimera zb-h1 zb-h2 zb-v dualpipev dualpipe looped-bfs zb-v-defer v-half v-min"

# compare lists the kinds that fit (baselines only: no solver needed)
out=$("$tessel" compare --placement vshape_v_zb --ndevs 4 --memory 18 -n 16 --csv \
  --methods gpipe,1f1b,zb-v,dualpipev,dualpipe 2>&1)
check "compare V: zb-v row fits" grep -q ',zb-v,baseline,.*,yes,' <<<"$out"
check "compare V: dualpipev row fits" grep -q ',dualpipev,baseline,.*,yes,' <<<"$out"
out=$("$tessel" compare --placement xshape_zb --ndevs 4 --memory 10 -n 16 --csv \
  --methods dualpipe,gpipe 2>&1)
check "compare bidirectional: dualpipe row fits" grep -q ',dualpipe,baseline,.*,yes,' <<<"$out"

# the sweep spec takes the new kinds and names them all when a method is unknown
cat >"$tmp/ok.json" <<'JSON'
{"format": "tessel-sweep/1", "name": "kinds",
 "grid": [{"placements": ["vshape_v_zb"], "ndevs": [4], "methods": ["zb-v", "dualpipev"],
           "micro_batches": [8]},
          {"placements": ["vshape_zb"], "ndevs": [4], "methods": ["zb-h2"], "micro_batches": [8]}]}
JSON
quiet() { "$@" >/dev/null 2>&1; }
check "sweep spec with the new kinds" quiet "$tessel" sweep "$tmp/ok.json" -o "$tmp/out" --dry-run
sed 's/"zb-h2"/"zb-h3"/' "$tmp/ok.json" >"$tmp/bad.json"
err=$("$tessel" sweep "$tmp/bad.json" -o "$tmp/out2" --dry-run 2>&1)
check "sweep spec refuses an unknown kind" grep -q "looped-bfs" <<<"$err"
harness_end
