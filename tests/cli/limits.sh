#!/usr/bin/env bash
# Limits on huge inputs (issue 14): modulo refuses, quickly and in one line with exit 2, a schedule
# or a memory plan beyond its caps (solver/context/ts_search_ctx.h) instead of building it. Each
# check fails without its cap (the builds take minutes and GBs). Timings: bench_limits.sh.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { timeout 60 "$tessel" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
refused() { # what: exit 2, one line naming the cap, nothing on stdout
  [[ $rc -eq 2 ]]
  check_status $? "$1: exit 2" "exit $rc: $(head -c 300 "$tmp/err")"
  [[ $(wc -l <"$tmp/err") -eq 1 ]]
  check_status $? "$1: the refusal is one line" "$(cat "$tmp/err")"
  grep -q "too large for modulo: .*(cap [0-9]*)" "$tmp/err"
  check_status $? "$1: message names the cap" "$(cat "$tmp/err")"
  [[ ! -s "$tmp/out" ]]
  check_status $? "$1: wrote no schedule"
}

# k x blocks: the 4096-device vshape's schedule would hold 4096 x 8192 instances
run search --placement vshape --ndevs 4096 --memory 4098 --method modulo --time-limit 5
refused "vshape at 4096 devices"
grep -q "instances" "$tmp/err"
check_status $? "vshape at 4096 devices: the schedule's cap" "$(cat "$tmp/err")"

# the memory plan: 350 allocating x 350 freeing blocks on each of 2 devices
python3 "$2/chain_placement.py" "$tmp/chain.json" 700 2 chain
run search "$tmp/chain.json" --memory 700 --method modulo --time-limit 5
refused "a 1400-block chain on 2 devices"
grep -q "memory plan" "$tmp/err"
check_status $? "chain: the memory plan's cap" "$(cat "$tmp/err")"

# The period search reads the deadline inside its constructions (issue 29): mllm on 2 devices
# with one backward block of span 65536, where one constructed timetable costs seconds. Before,
# --time-limit 2 ran 14 s and said timed_out false; now the search stops at its limit, says so,
# and answers with the sequential timetable at the period bound.
"$tessel" placement mllm --ndevs 2 -o "$tmp/mllm.json"
python3 - "$tmp/mllm.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
b = next(b for b in p["blocks"] if b["id"] == "B1")
b["span"] = 65536
json.dump(p, open(sys.argv[1], "w"))
PY
start=$(date +%s%N)
run search "$tmp/mllm.json" --method modulo --memory none -n 8 --time-limit 2 --json \
  -o "$tmp/mllm_sched.json"
echo "modulo on the 65536-span mllm at --time-limit 2: $(( ($(date +%s%N) - start) / 1000000 )) ms"
check_rc "65536-span mllm: modulo answers" 0 "$rc"
# cut by the wall-clock cap (timed_out) or by the effort the limit sets (effort_out)
check_eq "65536-span mllm: cut by its limit" "True" \
  "$(get '["timed_out"] or j["effort_out"]' <"$tmp/out")"
run validate "$tmp/mllm_sched.json" -n 8
check_rc "65536-span mllm: the schedule is valid" 0 "$rc"

harness_end
