#!/usr/bin/env bash
# auto never loses to a row of its own `tessel compare` (issue 23, part 2): its portfolio holds
# every fitting baseline, full's greedy start ("full (greedy)" in compare), fast, modulo and lazy,
# so on the issue's two hand-written placements its makespan at N is no longer than any row that
# fits: an 8-stage GPT whose first and last stages are heavier (embedding, LM head) at memory 4,
# and two encoder towers feeding a decoder on 6 devices at memory 6, N = 128. Then --gap: a
# search allowed a 50% gap returns as soon as a candidate is within it, and the record lists what
# it tried (portfolio, with each candidate's effort, and its seconds under search_seconds).
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compare's rows as CSV; prints "auto_makespan best_other_fitting_row_makespan best_row_name".
rows() { # placement memory N
  "$tessel" compare "$1" --memory "$2" -n "$3" --time-limit 600 --effort 1e6 --csv \
    >"$tmp/rows.csv" 2>"$tmp/rows.err" || { echo "compare exit $?: $(head -c 300 "$tmp/rows.err")"; return 1; }
  python3 - "$tmp/rows.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["makespan"]]
auto = [int(r["makespan"]) for r in rows if r["method"] == "auto"]
others = [(int(r["makespan"]), r["method"]) for r in rows if r["method"] != "auto" and r["fits"] == "yes"]
best = min(others)
print(auto[0] if auto else -1, best[0], best[1].replace(" ", "_"))
PY
}

for c in "gpt8_uneven 4 32" "two_tower6 6 128"; do
  read -r name mem n <<<"$c"
  out=$(rows "$fix/$name.json" "$mem" "$n") || { fail_case "$name: compare" "$out"; continue; }
  read -r auto best who <<<"$out"
  check "$name: auto ($auto) <= every fitting compare row (best $who: $best)" \
    test "$auto" -gt 0 -a "$auto" -le "$best"
done

# The greedy start is one of auto's candidates: on the GPT it is listed with its makespan.
"$tessel" search "$fix/gpt8_uneven.json" --memory 4 -n 32 --method auto --effort 1e6 \
  --time-limit 600 --json >"$tmp/gpt.json" 2>"$tmp/gpt.err"
check_status $? "gpt8_uneven: auto search" "$(head -c 300 "$tmp/gpt.err")"
check_eq "gpt8_uneven: the portfolio lists full's greedy start" yes \
  "$(json_get "$tmp/gpt.json" '["portfolio"]' | grep -q "'full-greedy'" && echo yes)"
check_eq "gpt8_uneven: a wall time for each candidate" \
  "$(json_get "$tmp/gpt.json" '["portfolio_tried"]')" \
  "$(json_get "$tmp/gpt.json" '["search_seconds"]["portfolio"].__len__()')"

# --gap 0.5: the first candidate within 50% of the bound ends the search before any solver.
"$tessel" search "$fix/gpt8_uneven.json" --memory 4 -n 32 --method auto --gap 0.5 \
  --time-limit 600 --json >"$tmp/gap.json" 2>"$tmp/gap.err"
check_status $? "gap: auto search" "$(head -c 300 "$tmp/gap.err")"
check_eq "gap: kept the greedy start, no search ran" "full-greedy fast:no" \
  "$(json_get "$tmp/gap.json" '["source"]') fast:$(json_get "$tmp/gap.json" '["portfolio"]' |
    grep -q "'fast'" && echo yes || echo no)"
# A kept schedule at N that repeats in its steady state is written with its repetend: vshape on 8
# devices at N = 64 keeps 1F1B (at the bound), and validate, show and export take it to N = 200.
"$tessel" search --placement vshape --ndevs 8 -n 64 --memory 10 --method auto --effort 1e6 \
  --time-limit 600 -o "$tmp/v.json" >/dev/null 2>"$tmp/v.err"
check_status $? "repetend: auto search" "$(head -c 300 "$tmp/v.err")"
check_eq "repetend: the kept baseline's steady state, period 4" 4 \
  "$(json_get "$tmp/v.json" '["repetend"]["period"]')"
"$tessel" validate "$tmp/v.json" -n 200 >"$tmp/v.out" 2>&1
check_status $? "repetend: validate -n 200" "$(cat "$tmp/v.out")"
"$tessel" show "$tmp/v.json" -n 200 >"$tmp/v.out" 2>&1
check_status $? "repetend: show -n 200" "$(tail -2 "$tmp/v.out")"
"$tessel" export --python "$tmp/v.json" -n 200 -o "$tmp/v.py" >"$tmp/v.out" 2>&1
check_status $? "repetend: export -n 200" "$(cat "$tmp/v.out")"
harness_end
