#!/usr/bin/env bash
# Kept schedules whose steady state repeats every P steps per R > 1 micro-batches are written
# with that repetend (per_period R, format tessel-schedule/2), so that show, export and validate
# take them to any N (issue 23, part 2): full's greedy start that auto keeps on the uneven GPT at
# memory 4 (R 4, period 150), and lazy, fast and modulo with --per-period 3 on the two-tower
# placement at memory 6, N = 128. At N + R, and at N + jR, the makespan grows by P per R; at the
# other counts the file is unrolled to the next such count and cut to its first N. Then files: a
# /1 file may not hold per_period, and the Python Tessel's format holds one micro-batch per
# repetend.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# makespan of FILE validated at -n N (exit status of validate on failure)
mk_at() {
  local out
  out=$("$tessel" validate "$1" -n "$2" 2>&1) || { echo "validate -n $2: $out" >&2; return 1; }
  sed -n 's/.*makespan \([0-9]*\),.*/\1/p' <<<"$out"
}

# FILE NAME [TOWER]: the file's repetend has R > 1; validate, show and export --pytorch work at
# N + 1, N + R and 2N (TOWER yes: a placement that PyTorch's CSV cannot express); the makespan grows by P at N + R and by jP at N + jR (jR nearest below N).
wide() {
  local f=$1 name=$2 tower=${3:-no} n per P mk0 n2 j out
  n=$(json_get "$f" '["nmicros"]')
  per=$(json_get "$f" '.get("repetend", {}).get("per_period", 1)')
  P=$(json_get "$f" '["repetend"]["period"]')
  check "$name: written with R > 1 micro-batches per period (R $per, period $P)" test "$per" -gt 1
  check_eq "$name: format" tessel-schedule/2 "$(json_get "$f" '["format"]')"
  mk0=$(mk_at "$f" "$n")
  j=$((n / per))
  n2=$((n + j * per))
  for m in $((n + 1)) $((n + per)) $((2 * n)) "$n2"; do
    out=$(mk_at "$f" "$m" 2>&1); check_status $? "$name: validate -n $m" "$out"
    out=$("$tessel" show "$f" -n "$m" 2>&1); check_status $? "$name: show -n $m" "$(tail -2 <<<"$out")"
    grep -q "$m micro-batches" <<<"$out"; check_status $? "$name: show -n $m shows $m" "$(head -1 <<<"$out")"
    out=$("$tessel" export --pytorch "$f" -n "$m" -o "$tmp/x.csv" 2>&1)
    local rc=$?
    # two towers are no one chain of stages for PyTorch's CSV: refused for that, as at N itself
    [[ $rc == 0 || ($tower == yes && $out == *"is not one pipeline of stages"*) ]]
    check_status $? "$name: export --pytorch -n $m" "$out"
  done
  check_eq "$name: makespan at N + R = N's + P" $((mk0 + P)) "$(mk_at "$f" $((n + per)))"
  check_eq "$name: makespan at N + ${j}R = N's + ${j}P" $((mk0 + j * P)) "$(mk_at "$f" "$n2")"
  out=$(mk_at "$f" $((n + 1))) && [[ $out -ge $mk0 && $out -le $((mk0 + P)) ]]
  check_status $? "$name: makespan at N + 1 between N's and N + R's" "$out"
  grep -q "$per micro-batches per period" <<<"$("$tessel" show "$f" -n "$((n + per))")"
  check_status $? "$name: show says $per micro-batches per period"
}

# auto keeps full's greedy start on the GPT within a 50% gap: it repeats 4 per period 150
"$tessel" search "$fix/gpt8_uneven.json" --memory 4 -n 32 --gap 0.5 --time-limit 600 --json \
  -o "$tmp/gpt.json" >"$tmp/gpt.out" 2>"$tmp/gpt.err"
check_status $? "gpt8_uneven: auto search" "$(head -c 300 "$tmp/gpt.err")"
check_eq "gpt8_uneven: kept full's greedy start" full-greedy "$(json_get "$tmp/gpt.out" '["source"]')"
check_eq "gpt8_uneven: the record's per_period and period" "4 150" \
  "$(json_get "$tmp/gpt.out" '["per_period"]') $(json_get "$tmp/gpt.out" '["period"]')"
wide "$tmp/gpt.json" gpt8_uneven

# --per-period 3 on the two towers: each method's schedule at N = 128 keeps its repetend
for m in modulo lazy fast; do
  "$tessel" search "$fix/two_tower6.json" --memory 6 -n 128 --method "$m" --per-period 3 \
    --effort 1.2e6 --time-limit 600 -o "$tmp/tt_$m.json" >/dev/null 2>"$tmp/tt.err"
  check_status $? "two_tower6 $m --per-period 3" "$(head -c 300 "$tmp/tt.err")"
  wide "$tmp/tt_$m.json" "two_tower6 $m --per-period 3" yes
done

# the hand-written fixture: 1F1B on vshape with micro-batches 2j and 2j + 1 swapping names, two per
# period 8, at N = 10 (makespan 52): 12 and 40 are its unrolls, 11 is 12 cut to 11
f=$fix/vshape4_pairs_per2.json
check_eq "fixture: makespans at 10, 12, 40" "52 60 172" \
  "$(mk_at "$f" 10) $(mk_at "$f" 12) $(mk_at "$f" 40)"
out=$(mk_at "$f" 11 2>&1); check_status $? "fixture: validate -n 11" "$out"
out=$("$tessel" simulate "$f" -n 41 --json 2>&1); check_status $? "fixture: simulate -n 41" "$out"

# a /1 file may not hold per_period; a list of the wrong length; the Python format refuses
python3 - "$tmp/gpt.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d1 = dict(d, format="tessel-schedule/1")
json.dump(d1, open(sys.argv[2] + "/v1.json", "w"))
mids = d["repetend"]["mids"]
first = next(iter(mids))
mids[first] = mids[first][:-1]
json.dump(d, open(sys.argv[2] + "/short.json", "w"))
PY
expect_rc 2 "repetend: 'per_period' 4 needs format 'tessel-schedule/2'" validate "$tmp/v1.json"
expect_rc 2 "must be a list of 4 micro-batches (per_period)" validate "$tmp/short.json"
expect_rc 2 "the repetend runs 4 micro-batches per period 150; the Python Tessel's format holds one" \
  export --python "$tmp/gpt.json" -o "$tmp/x.py"
harness_end
