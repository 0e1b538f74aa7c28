#!/usr/bin/env bash
# tessel search: JSON summary keys, a schedule file that validates and unrolls, exit codes for
# infeasible memory (1) and bad usage (2), the time limit, progress lines, every method.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$tessel" search --help >"$tmp/help" 2>&1; check_rc "--help" 0 $?
grep -q -- "--memory" "$tmp/help"; check_status $? "--help names --memory"

# lazy, vshape train at memory 4: zero bubbles, the keys the sweeps read
"$tessel" search --placement vshape --ndevs 4 --memory 4 --nmicros 4 --json -o "$tmp/v.json" \
  >"$tmp/v.out" 2>"$tmp/v.err"
check_rc "lazy vshape" 0 $?
for key in method k period bubbles_per_repetend micro_batches makespan bubble_rate lower_bound \
           peak_memory load search_seconds optimal timed_out placement memory; do
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in j else 1)" \
    "$tmp/v.out" "$key"
  check_status $? "--json has $key"
done
check_eq "vshape bubbles" 0 "$(json_get "$tmp/v.out" "['bubbles_per_repetend']")"
check_eq "vshape makespan(128)" 524 "$(json_get "$tmp/v.out" "['makespan']")"
check_eq "seconds" True "$(json_get "$tmp/v.out" "['search_seconds']['total'] >= 0")"
[[ ! -s "$tmp/v.err" ]]; check_status $? "no progress without --progress on a pipe" "$(cat "$tmp/v.err")"
"$tessel" validate "$tmp/v.json" >/dev/null; check_rc "validate written schedule" 0 $?
for n in 4 5 17 128; do
  "$tessel" validate "$tmp/v.json" --micro-batches $n >/dev/null
  check_rc "unrolled to $n" 0 $?
done

# human summary and progress lines
"$tessel" search --placement kshape --ndevs 4 --memory 6 --method lazy --progress >"$tmp/k.out" 2>"$tmp/k.err"
check_rc "lazy kshape" 0 $?
grep -q "bubbles per repetend 0" "$tmp/k.out"; check_status $? "human summary" "$(cat "$tmp/k.out")"
grep -q "\[lazy\]" "$tmp/k.err"; check_status $? "--progress prints progress"

# every method on a small case, each schedule valid
for m in lazy fast full; do
  "$tessel" search --placement vshape --ndevs 2 --memory 3 --method $m --micro-batches 4 --json \
    -o "$tmp/m_$m.json" >"$tmp/m_$m.out"
  check_rc "method $m" 0 $?
  check_eq "method key $m" "$m" "$(json_get "$tmp/m_$m.out" "['method']")"
  "$tessel" validate "$tmp/m_$m.json" >/dev/null; check_rc "validate $m" 0 $?
done
"$tessel" search --placement vshape --ndevs 4 --infer --memory none --json >"$tmp/i.out"
check_rc "memory none" 0 $?
check_eq "memory none key" none "$(json_get "$tmp/i.out" "['memory']")"

# infeasible memory: exit 1, a message with the smallest capacity that works
"$tessel" search --placement vshape --ndevs 4 --memory 0 >/dev/null 2>"$tmp/x.err"
check_rc "infeasible memory" 1 $?
grep -q "needs 1" "$tmp/x.err"; check_status $? "infeasible message" "$(cat "$tmp/x.err")"
"$tessel" search --placement vshape --ndevs 4 --memory 0 --json >"$tmp/x.out" 2>/dev/null
check_rc "infeasible memory --json" 1 $?
check_eq "min_memory" 1 "$(json_get "$tmp/x.out" "['min_memory']")"

# time limit: the best so far, exit 0 (the full problem of 64 micro-batches cannot be proven in
# a tenth of a second; kshape, as xshape at memory 4 meets its bound at once since the warm-up
# term)
"$tessel" search --placement kshape --ndevs 4 --memory 6 --method full --micro-batches 64 \
  --time-limit 0.1 --json -o "$tmp/t.json" >"$tmp/t.out"
check_rc "time limit" 0 $?
check_eq "not optimal under a time limit" False "$(json_get "$tmp/t.out" "['optimal']")"
"$tessel" validate "$tmp/t.json" >/dev/null; check_rc "validate time-limited" 0 $?

# auto on xshape's paper case (4 devices, memory 4, N 128): the warm-up term proves full-greedy's
# 1030 optimal, so auto stops there (it ran modulo-x2, improve, lns and exact on a gap of 2 before,
# 3.7e6 units of effort); the rows after say why they did not run
"$tessel" search --placement xshape --ndevs 4 --memory 4 -n 128 --json >"$tmp/x4.out"
check_rc "auto xshape paper case" 0 $?
check_eq "xshape paper case: makespan" 1030 "$(json_get "$tmp/x4.out" "['makespan']")"
check_eq "xshape paper case: at the bound" "1030 True" \
  "$(json_get "$tmp/x4.out" "['lower_bound'], j['optimal']")"
check_eq "xshape paper case: proven by the bound" "meets the lower bound" \
  "$(json_get "$tmp/x4.out" "['optimal_by']")"
check_eq "xshape paper case: effort below 1e5 units" True "$(json_get "$tmp/x4.out" "['effort'] < 100000")"
check_eq "xshape paper case: rows skipped at the bound" "modulo-x2 improve exact lns" \
  "$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]))
print(" ".join(r["row"] for r in j["portfolio_rows"] if r["row"] in ("modulo-x2", "improve", "exact", "lns") and not r["ran"]))' "$tmp/x4.out")"

# bad usage: exit 2
"$tessel" search --placement vshape --ndevs 4 >/dev/null 2>&1; check_rc "no --memory" 2 $?
"$tessel" search --placement vshape --ndevs 4 --memory -3 >/dev/null 2>&1; check_rc "negative memory" 2 $?
"$tessel" search --placement vshape --ndevs 4 --memory 4 --method magic >/dev/null 2>&1; check_rc "bad method" 2 $?
"$tessel" search --placement nosuch --ndevs 4 --memory 4 >/dev/null 2>&1; check_rc "unknown placement" 2 $?
"$tessel" search "$tmp/missing.json" --memory 4 >/dev/null 2>&1; rc=$?
[[ $rc -eq 2 || $rc -eq 3 ]]; check_status $? "missing placement file" "exit $rc"
harness_end
