#!/usr/bin/env bash
# More effort never gives a longer schedule than auto's default effort: above it, auto runs the
# default-effort request itself as its `default-effort` row and offers its answer to the pool
# (solver/portfolio/auto_rows.c). At or below the default the row says why it did not run.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$tessel" search --help 2>&1 | grep -q "no solver"; then
  skip_all "no solver in this build: nothing to test"
fi

# the V placement on 2 devices at memory 4, N = 2: no baseline or construction meets the bound
# (15), so the searches run; auto's default effort ends within a second, proving 17 minimal
# what the record says of the default-effort row (ran, or why not), and its candidate's makespan
row() { python3 -c 'import json,sys; j=json.load(sys.stdin); r=[x for x in j["portfolio_rows"] if x["row"] == "default-effort"][0]; print(r["ran"], r.get("why", ""))'; }
cand() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(*[c["makespan"] for c in j["portfolio"] if c["source"] == "default-effort"])'; }
pa=(--placement vshape_v_zb --ndevs 2 --memory 4 -n 2)
def=$("$tessel" search "${pa[@]}" --json)
check_rc "auto at the default effort" 0 $?
dmk=$(get "['makespan']" <<<"$def")
why=$(row <<<"$def")
grep -q "^False .*not above the default" <<<"$why"
check_status $? "the row does not run at the default" "$why"

# a little more than the default: the row runs, and its candidate is the default's answer
more=$("$tessel" search "${pa[@]}" --time-limit 61 --json -o "$tmp/more.json")
check_rc "auto at 61 s of effort" 0 $?
check_eq "the default-effort row ran" "True " "$(row <<<"$more")"
seed=$(cand <<<"$more")
check_eq "its candidate is the default's makespan" "$dmk" "$seed"
mk=$(get "['makespan']" <<<"$more")
((mk <= dmk)); check_status $? "more effort ($mk) not longer than the default's ($dmk)"
out=$("$tessel" validate "$tmp/more.json"); check_status $? "valid, memory included" "$out"

# the same request through --effort (units): the same answer
units=$("$tessel" search "${pa[@]}" --effort 7320000 --time-limit 600 --json)
check_eq "--effort above the default runs the row too" "True " "$(row <<<"$units")"
check_eq "the same answer" "$mk" "$(get "['makespan']" <<<"$units")"
harness_end
