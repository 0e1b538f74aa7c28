#!/usr/bin/env bash
# tessel search: JSON summary keys, a schedule file that validates and unrolls, exit codes for
# infeasible memory (1) and bad usage (2), the time limit, progress lines, every method.
set -u
tessel=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check DESCRIPTION EXPECTED_RC ACTUAL_RC
  if [[ $2 -ne $3 ]]; then echo "FAIL ($3 != $2): $1"; fail=1; fi
}
json_get() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j$2)" "$1"; }

"$tessel" search --help >"$tmp/help" 2>&1; check "--help" 0 $?
grep -q -- "--memory" "$tmp/help" || { echo "FAIL: --help names no --memory"; fail=1; }

# lazy, vshape train at memory 4: zero bubbles, the keys the sweeps read
"$tessel" search --placement vshape --ndevs 4 --memory 4 --nmicros 4 --json -o "$tmp/v.json" \
  >"$tmp/v.out" 2>"$tmp/v.err"
check "lazy vshape" 0 $?
for key in method k period bubbles_per_repetend micro_batches makespan bubble_rate lower_bound \
           peak_memory load search_seconds optimal timed_out placement memory; do
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if sys.argv[2] in j else 1)" \
    "$tmp/v.out" "$key" || { echo "FAIL: --json lacks $key"; fail=1; }
done
[[ $(json_get "$tmp/v.out" "['bubbles_per_repetend']") == 0 ]] || { echo "FAIL: vshape bubbles"; fail=1; }
[[ $(json_get "$tmp/v.out" "['makespan']") == 524 ]] || { echo "FAIL: vshape makespan(128) != 524"; fail=1; }
[[ $(json_get "$tmp/v.out" "['search_seconds']['total'] >= 0") == True ]] || { echo "FAIL: seconds"; fail=1; }
[[ -s "$tmp/v.err" ]] && { echo "FAIL: progress without --progress on a pipe"; cat "$tmp/v.err"; fail=1; }
"$tessel" validate "$tmp/v.json" >/dev/null; check "validate written schedule" 0 $?
for n in 4 5 17 128; do
  "$tessel" validate "$tmp/v.json" --micro-batches $n >/dev/null
  check "unrolled to $n" 0 $?
done

# human summary and progress lines
"$tessel" search --placement kshape --ndevs 4 --memory 6 --method lazy --progress >"$tmp/k.out" 2>"$tmp/k.err"
check "lazy kshape" 0 $?
grep -q "bubbles per repetend 0" "$tmp/k.out" || { echo "FAIL: human summary"; cat "$tmp/k.out"; fail=1; }
grep -q "\[lazy\]" "$tmp/k.err" || { echo "FAIL: --progress printed nothing"; fail=1; }

# every method on a small case, each schedule valid
for m in lazy fast full; do
  "$tessel" search --placement vshape --ndevs 2 --memory 3 --method $m --micro-batches 4 --json \
    -o "$tmp/m_$m.json" >"$tmp/m_$m.out"
  check "method $m" 0 $?
  [[ $(json_get "$tmp/m_$m.out" "['method']") == "$m" ]] || { echo "FAIL: method key $m"; fail=1; }
  "$tessel" validate "$tmp/m_$m.json" >/dev/null; check "validate $m" 0 $?
done
"$tessel" search --placement vshape --ndevs 4 --infer --memory none --json >"$tmp/i.out"
check "memory none" 0 $?
[[ $(json_get "$tmp/i.out" "['memory']") == none ]] || { echo "FAIL: memory none key"; fail=1; }

# infeasible memory: exit 1, a message with the smallest capacity that works
"$tessel" search --placement vshape --ndevs 4 --memory 0 >/dev/null 2>"$tmp/x.err"
check "infeasible memory" 1 $?
grep -q "needs 1" "$tmp/x.err" || { echo "FAIL: infeasible message"; cat "$tmp/x.err"; fail=1; }
"$tessel" search --placement vshape --ndevs 4 --memory 0 --json >"$tmp/x.out" 2>/dev/null
check "infeasible memory --json" 1 $?
[[ $(json_get "$tmp/x.out" "['min_memory']") == 1 ]] || { echo "FAIL: min_memory"; fail=1; }

# time limit: the best so far, exit 0 (the full problem of 64 micro-batches cannot be proven in
# a tenth of a second)
"$tessel" search --placement xshape --ndevs 4 --memory 4 --method full --micro-batches 64 \
  --time-limit 0.1 --json -o "$tmp/t.json" >"$tmp/t.out"
check "time limit" 0 $?
[[ $(json_get "$tmp/t.out" "['optimal']") == False ]] || { echo "FAIL: optimal under a time limit"; fail=1; }
"$tessel" validate "$tmp/t.json" >/dev/null; check "validate time-limited" 0 $?

# bad usage: exit 2
"$tessel" search --placement vshape --ndevs 4 >/dev/null 2>&1; check "no --memory" 2 $?
"$tessel" search --placement vshape --ndevs 4 --memory -3 >/dev/null 2>&1; check "negative memory" 2 $?
"$tessel" search --placement vshape --ndevs 4 --memory 4 --method magic >/dev/null 2>&1; check "bad method" 2 $?
"$tessel" search --placement nosuch --ndevs 4 --memory 4 >/dev/null 2>&1; check "unknown placement" 2 $?
"$tessel" search "$tmp/missing.json" --memory 4 >/dev/null 2>&1; rc=$?
[[ $rc -eq 2 || $rc -eq 3 ]] || { echo "FAIL ($rc): missing placement file"; fail=1; }
exit $fail
