#!/usr/bin/env bash
# tessel baseline / compare / render / trace from the command line: exit codes, messages, and the
# files they write (counted: one SVG box group and one trace slice per instance).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for c in baseline compare render trace; do
  check "$c --help" "$tessel" "$c" --help >/dev/null
done

# 1F1B on vshape, 4 devices, 128 micro-batches: valid, and simulates to the bound 4N + 12.
s=$tmp/1f1b.json
check "baseline 1f1b" "$tessel" baseline 1f1b --placement vshape --ndevs 4 -n 128 -o "$s" >/dev/null
check "validate 1f1b" "$tessel" validate "$s" >/dev/null
sim=$("$tessel" simulate "$s" --json)
check "1f1b makespan 524" grep -q '"makespan": 524' <<<"$sim"
summary=$("$tessel" baseline gpipe --placement vshape --ndevs 4 -n 128 -o "$tmp/g.json" --json)
check "gpipe peak 128 on device 0" grep -q '"peak_memory": \[' <<<"$summary"
check "gpipe makespan 524" grep -q '"makespan": 524' <<<"$summary"
peak0=$(tr -d ' \n' <<<"$summary" | sed -n 's/.*"peak_memory":\[\([0-9]*\),.*/\1/p')
check "gpipe peak on device 0 is N" test "$peak0" = 128
# without -o the schedule itself goes to stdout
"$tessel" baseline zb-h1 --placement vshape_zb --ndevs 4 -n 16 >"$tmp/zb.json"
check "zb-h1 to stdout validates" "$tessel" validate "$tmp/zb.json" >/dev/null
check "interleaved" "$tessel" baseline interleaved --placement vshape_interleaved --ndevs 4 \
  --chunks 2 -n 16 -o "$tmp/il.json" >/dev/null
check "chimera" "$tessel" baseline chimera --placement xshape --ndevs 4 -n 16 -o "$tmp/ch.json" \
  >/dev/null

expect_rc 2 "fits xshape" baseline chimera --placement vshape --ndevs 4
expect_rc 2 "unknown baseline" baseline pipedream --placement vshape --ndevs 4
expect_rc 2 "multiple of the device count" baseline interleaved --placement vshape_interleaved \
  --ndevs 4 -n 6
expect_rc 2 "--json needs -o" baseline 1f1b --placement vshape --ndevs 4 --json
expect_rc 2 "missing the baseline KIND" baseline

# render: one instance group per instance (4 devices x 2 blocks x 128), one box each.
check "render" "$tessel" render "$s" -o "$tmp/v.svg"
n_inst=$(grep -o '<g class="inst"' "$tmp/v.svg" | wc -l)
n_box=$(grep -o 'class="box"' "$tmp/v.svg" | wc -l)
check "1024 instance groups (got $n_inst)" test "$n_inst" -eq 1024
check "1024 boxes (got $n_box)" test "$n_box" -eq 1024
check "svg closes" grep -q '</svg>' "$tmp/v.svg"
if command -v xmllint >/dev/null; then
  check "svg well-formed (xmllint)" xmllint --noout "$tmp/v.svg"
fi
# 32 devices, sharded blocks: more boxes than instance groups
check "baseline mshape 32" "$tessel" baseline 1f1b --placement mshape --ndevs 32 -n 64 \
  -o "$tmp/m32.json" >/dev/null
check "render mshape 32" "$tessel" render "$tmp/m32.json" -o "$tmp/m32.svg"
n_inst=$(grep -o '<g class="inst"' "$tmp/m32.svg" | wc -l)
n_box=$(grep -o 'class="box"' "$tmp/m32.svg" | wc -l)
# 64 micro-batches x (32 + 32 single-device blocks + 2 sharded ones)
check "mshape 32 groups (got $n_inst)" test "$n_inst" -eq $((64 * 66))
check "mshape 32 boxes (got $n_box)" test "$n_box" -eq $((64 * (64 + 2 * 32)))
# --png: a clear message when no converter can be found
PATH=/nonexistent-dir expect_rc 3 "librsvg2-bin" render "$s" -o "$tmp/np.svg" --png
expect_rc 2 "--png needs -o" render "$s" --png
expect_rc 2 "missing the schedule file" render

# trace: one slice per instance and device
check "trace" "$tessel" trace "$s" --unit-us 10 -o "$tmp/t.json"
n_x=$(grep -o '"ph": *"X"' "$tmp/t.json" | wc -l)
check "1024 trace slices (got $n_x)" test "$n_x" -eq 1024
if command -v python3 >/dev/null; then
  check "trace is JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/t.json"
fi
expect_rc 2 "--unit-us" trace "$s" --unit-us 0

# compare: baselines only (no solver needed), CSV has a header and one row per method
out=$("$tessel" compare --placement vshape --ndevs 4 --memory 4 --methods gpipe,1f1b,chimera --csv)
check "compare csv rows" test "$(wc -l <<<"$out")" -eq 4
# peak memory space-separated (as in the sweep's CSV); the shortest row that fits is marked best
check "compare 1f1b row" grep -q '^vshape,4,128,4,1f1b,baseline,,,,524,524,1.0000,0.0229,4 3 2 1,yes,yes,' \
  <<<"$out"
check "compare gpipe not best" grep -q ',gpipe,baseline,.*,no,,' <<<"$out"
check "compare gpipe does not fit memory 4" grep -q ',gpipe,baseline,.*,no,' <<<"$out"
check "compare chimera refused in its row" grep -q ',chimera,.*does not fit' <<<"$out"
table=$("$tessel" compare --placement xshape --ndevs 4 --memory none --methods gpipe,chimera)
check "compare table" grep -Eq '^[* ] chimera' <<<"$table"
check "compare table marks the best row" grep -Eq '^\* gpipe' <<<"$table"
# a search row goes through the child process that guards its time limit (or says the build
# has no solver)
out=$("$tessel" compare --placement vshape --ndevs 4 --memory 4 --methods 1f1b,modulo --csv \
  --time-limit 60)
check "compare with a search method: 3 lines" test "$(wc -l <<<"$out")" -eq 3
check "compare modulo row" grep -Eq ',modulo,search,.*(ok|unavailable)' <<<"$out"
if "$tessel" search --help >/dev/null 2>&1; then
  # N below the repetend's k: every row at exactly N, against the one bound at N within M
  out=$("$tessel" compare --placement vshape --ndevs 8 --memory 10 -n 3 --methods modulo,auto \
    --csv --time-limit 20)
  lb=$("$tessel" bound --placement vshape --ndevs 8 -n 3 --memory 10 --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["lower_bound"])')
  check "compare rows at N = 3" test "$(grep -c "^vshape,8,3,10,[a-z]*,search,.*,$lb,[0-9.]*,[0-9.]*," \
    <<<"$out")" -eq 2
  check "compare: no row measured at another N" bash -c '! grep -q "at N =" <<<"$1"' _ "$out"
  check "compare auto row" grep -q ',auto,search,.*kept' <<<"$out"
  # full too large for the solver: its greedy schedule is labelled as such, k and period blank
  out=$("$tessel" compare --placement mshape --ndevs 16 --memory 18 --methods full --csv \
    --time-limit 5)
  check "compare full greedy row" grep -q '^mshape,16,128,18,full (greedy),greedy,,,' <<<"$out"
fi
expect_rc 2 "--memory is required" compare --placement vshape --ndevs 4
expect_rc 2 "unknown method" compare --placement vshape --ndevs 4 --memory 4 --methods gpipe,foo

harness_end
