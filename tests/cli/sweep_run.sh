#!/usr/bin/env bash
# tessel sweep end to end: a small sweep with -j 2 records every point exactly once (and its
# schedules validate); a sweep killed with kill -9 midway leaves no worker running, and rerun with
# --resume ends with every point recorded exactly once; a torn last line is dropped; a point past
# its time limit is recorded as a timeout, an impossible one as infeasible; Ctrl-C stops cleanly.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$TESSEL" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
TESTS=$2
TMP=$(mktemp -d)
SWEEP_PID=
cleanup() {
    [ -n "$SWEEP_PID" ] && kill -9 "$SWEEP_PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

# Checks OUTDIR against SPEC: every line a whole JSON record, every point of the spec exactly
# once, statuses known, schedules present for ok points, no scratch files left, the CSV in step.
check_records() { # spec outdir
    "$TESSEL" sweep "$1" --dry-run >"$TMP/ids" 2>/dev/null || { fail_case "dry-run $1"; return; }
    python3 - "$2" "$TMP/ids" <<'PY'
import csv, json, os, sys
out, idfile = sys.argv[1], sys.argv[2]
want = [l.strip() for l in open(idfile) if l.strip()]
raw = open(os.path.join(out, "results.jsonl"), "rb").read()
bad = []
if raw and not raw.endswith(b"\n"):
    bad.append("results.jsonl does not end with a whole line")
recs = [json.loads(l) for l in raw.decode().splitlines()]
ids = [r["id"] for r in recs]
for i in set(ids):
    if ids.count(i) != 1:
        bad.append("point %s recorded %d times" % (i, ids.count(i)))
if sorted(set(ids)) != sorted(want):
    bad.append("recorded %s, expected %s" % (sorted(set(ids)), sorted(want)))
for r in recs:
    if r["status"] not in ("ok", "infeasible", "timeout", "error"):
        bad.append("%s: status %r" % (r["id"], r["status"]))
    if r["status"] == "ok":
        if not isinstance(r.get("result"), dict) or "makespan" not in r["result"]:
            bad.append("%s: ok without a summary" % r["id"])
        if not r.get("schedule") or not os.path.isfile(os.path.join(out, r["schedule"])):
            bad.append("%s: ok without its schedule file" % r["id"])
    elif r.get("message") in (None, ""):
        bad.append("%s: %s without a message" % (r["id"], r["status"]))
left = [f for f in os.listdir(os.path.join(out, "schedules")) if f.endswith(".part.json")]
left += [f for f in os.listdir(os.path.join(out, "logs")) if f.endswith(".out")]
if left:
    bad.append("scratch files left: %s" % left)
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
if sorted(r["id"] for r in rows) != sorted(ids):
    bad.append("results.csv rows do not match results.jsonl")
for b in bad:
    print("FAIL", out, b)
sys.exit(1 if bad else 0)
PY
    check_status $? "records of $(basename "$2") are those of $(basename "$1")"
}

status_of() { # outdir id
    python3 -c 'import json,sys
for l in open(sys.argv[1] + "/results.jsonl"):
    r = json.loads(l)
    if r["id"] == sys.argv[2]: print(r["status"])' "$1" "$2"
}

# 1. A small sweep with two workers.
SMALL=$TESTS/fixtures/sweep_small.json
"$TESSEL" sweep "$SMALL" -o "$TMP/small" -j 2 >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
check_status "$rc" "small sweep" "exit $rc" "$(cat "$TMP/stdout" "$TMP/stderr")"
check_records "$SMALL" "$TMP/small"
check_eq "kshape with memory 1 is infeasible" infeasible "$(status_of "$TMP/small" kshape-d4-train-m1-lazy-n16)"
for s in "$TMP"/small/schedules/*.json; do
    "$TESSEL" validate "$s" >/dev/null 2>&1; check_status $? "schedule $(basename "$s") validates"
done
# A finished folder is not overwritten by accident, and --resume has nothing left to do.
"$TESSEL" sweep "$SMALL" -o "$TMP/small" >/dev/null 2>&1
check_rc "a second sweep into a used folder without --resume is refused" 2 $?
"$TESSEL" sweep "$SMALL" -o "$TMP/small" --resume >"$TMP/stdout" 2>&1; check_rc "empty resume" 0 $?
grep -q "this run 0 points" "$TMP/stdout"; check_status $? "resume reruns no point" "$(cat "$TMP/stdout")"

# 2. A torn last line (as a kill in the middle of a write leaves) is dropped on --resume.
printf '{"id":"vshape-d4-infer-mnone-k1-lazy-n16","status":"o' >>"$TMP/small/results.jsonl"
"$TESSEL" sweep "$SMALL" -o "$TMP/small" --resume >"$TMP/stdout" 2>"$TMP/stderr"
check_rc "resume after a torn line" 0 $?
grep -q "dropped a torn last line" "$TMP/stderr"; check_status $? "torn line reported"
check_records "$SMALL" "$TMP/small"

# 3. kill -9 midway, then --resume.
# Training searches of about a second each: the kill lands while most points are still to run.
cat >"$TMP/kill.json" <<'SPEC'
{"format": "tessel-sweep/1", "name": "kill", "time_limit": 120,
 "grid": [{"placements": ["mshape"], "ndevs": [4], "memory": [6, 7, 8, 9], "nmicros": [5, 6],
           "methods": ["lazy"], "micro_batches": [32]},
          {"placements": ["kshape"], "ndevs": [4], "memory": [6, 8], "methods": ["full"],
           "micro_batches": [5, 6]},
          {"placements": ["nnshape"], "ndevs": [4], "memory": [6, 8], "nmicros": [4],
           "methods": ["lazy"], "micro_batches": [32]}]}
SPEC
total=14
"$TESSEL" sweep "$TMP/kill.json" -o "$TMP/kill" -j 2 --quiet >/dev/null 2>&1 &
SWEEP_PID=$!
for _ in $(seq 1 3000); do
    n=$(cat "$TMP/kill/results.jsonl" 2>/dev/null | wc -l)
    [ "$n" -ge 3 ] && break
    kill -0 "$SWEEP_PID" 2>/dev/null || break
    sleep 0.02
done
kill -9 "$SWEEP_PID" 2>/dev/null
wait "$SWEEP_PID" 2>/dev/null
SWEEP_PID=
n=$(wc -l <"$TMP/kill/results.jsonl")
[ "$n" -lt "$total" ]
check_status $? "the kill lands before the sweep ends" "the sweep finished before the kill ($n lines): the test spec is too light"
sleep 1
! pgrep -f -- "$TMP/kill/schedules" >/dev/null
check_status $? "no worker survives the killed sweep" "$(pgrep -af -- "$TMP/kill/schedules")"
"$TESSEL" sweep "$TMP/kill.json" -o "$TMP/kill" -j 2 --resume >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
check_status "$rc" "resume after kill -9" "exit $rc" "$(cat "$TMP/stdout" "$TMP/stderr")"
grep -q "$total/$total points recorded" "$TMP/stdout"; check_status $? "resume summary" "$(cat "$TMP/stdout")"
check_records "$TMP/kill.json" "$TMP/kill"

# 4. SIGINT (Ctrl-C) stops the sweep cleanly: exit 130, workers gone, only whole records kept.
"$TESSEL" sweep "$TMP/kill.json" -o "$TMP/int" -j 2 --quiet >/dev/null 2>"$TMP/stderr" &
SWEEP_PID=$!
for _ in $(seq 1 3000); do
    n=$(cat "$TMP/int/results.jsonl" 2>/dev/null | wc -l)
    [ "$n" -ge 2 ] && break
    kill -0 "$SWEEP_PID" 2>/dev/null || break
    sleep 0.02
done
kill -INT "$SWEEP_PID"
wait "$SWEEP_PID"
rc=$?
SWEEP_PID=
[ "$rc" -eq 130 ]; check_status $? "SIGINT: exit 130" "exit $rc" "$(cat "$TMP/stderr")"
grep -q "continue with --resume" "$TMP/stderr"; check_status $? "SIGINT: a hint to resume"
! pgrep -f -- "$TMP/int/schedules" >/dev/null; check_status $? "no worker survives SIGINT"
"$TESSEL" sweep "$TMP/kill.json" -o "$TMP/int" -j 2 --resume >/dev/null 2>&1; check_rc "resume after SIGINT" 0 $?
check_records "$TMP/kill.json" "$TMP/int"

# 5. A point past its time limit is a timeout, never a number.
cat >"$TMP/slow.json" <<'SPEC'
{"format": "tessel-sweep/1", "name": "slow",
 "points": [{"placement": "nnshape", "ndevs": 4, "memory": 6, "method": "full",
             "micro_batches": 16}]}
SPEC
"$TESSEL" sweep "$TMP/slow.json" -o "$TMP/slow" --time-limit 1 >/dev/null 2>&1
check_eq "a search cut at 1 s is a timeout" timeout "$(status_of "$TMP/slow" nnshape-d4-train-m6-full-n16)"

# 6. A point's options are the search's own: its flags from the search's table. A search that runs
# out of the effort its options give is a timeout that says so (timed_out false), and the point's id
# and record carry the options.
cat >"$TMP/opts.json" <<'SPEC'
{"format": "tessel-sweep/1", "name": "opts",
 "points": [{"placement": "nnshape", "ndevs": 4, "memory": 6, "method": "full",
             "micro_batches": 16, "options": {"effort": 2000}}],
 "grid": {"placements": ["vshape"], "ndevs": [4], "memory": [4], "methods": ["auto"],
          "micro_batches": [8], "options": {"candidates": ["1f1b", "memlist"], "seed": 7}}}
SPEC
"$TESSEL" sweep "$TMP/opts.json" -o "$TMP/opts" >/dev/null 2>&1; check_rc "a sweep with options" 0 $?
effort_id=$("$TESSEL" sweep "$TMP/opts.json" --dry-run 2>/dev/null | grep '^nnshape')
case "$effort_id" in nnshape-d4-train-m6-full-n16-o*) true ;; *) false ;; esac
check_status $? "the id ends with the options' hash" "$effort_id"
check_eq "out of effort: a timeout" timeout "$(status_of "$TMP/opts" "$effort_id")"
grep -F "\"$effort_id\"" "$TMP/opts/results.jsonl" | grep -qF 'stopped on its effort (--effort'
check_status $? "out of effort: the message says so" "$(cat "$TMP/opts/results.jsonl")"
grep -F '"vshape-d4-train-m4-auto-n8-o' "$TMP/opts/results.jsonl" |
    grep -qF '"not among the candidates the request names"'
check_status $? "the candidates reached the search" "$(cat "$TMP/opts/results.jsonl")"

harness_end
