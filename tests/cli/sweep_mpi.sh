#!/usr/bin/env bash
# tessel sweep --mpi under mpirun -np 3 (rank 0 coordinates, two worker ranks): the records equal
# those of a local run of the same spec (ids, statuses, results up to timing); kill -9 of one
# worker rank in the middle of a point: the job finishes with that point retried on the other
# rank; kill -9 of the whole job, then --resume: every point recorded exactly once. Also: --mpi
# without mpirun runs the sweep on its own.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$TESSEL" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
TESTS=$2
TMP=$(mktemp -d)
JOB_PIDS=
cleanup() { # the timeout process, its mpirun and the ranks under that
    for p in $JOB_PIDS; do
        for c in $(ps -o pid= --ppid "$p"); do kill -9 $(ps -o pid= --ppid "$c") "$c" 2>/dev/null; done
        kill -9 "$p" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT

MPIRUN=$(command -v mpirun) || { fail_case "mpirun found" "install OpenMPI"; harness_end; }
# --enable-recovery: Open MPI 4 keeps the job running when a rank dies (default: abort it all).
# timeout: a hang fails the test instead of holding up the whole test run.
MPI=(timeout 120 "$MPIRUN" -np 3 --oversubscribe --enable-recovery)
if [ "$(id -u)" = 0 ]; then
    MPI+=(--allow-run-as-root)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 # for the singleton run
fi
FAST=$TESTS/fixtures/sweep_mpi.json
SLOW=$TESTS/fixtures/sweep_mpi_slow.json

# Every point of SPEC recorded exactly once in OUTDIR, whole lines, CSV in step, schedules there,
# no scratch files; extra checks by name: noerror (no point is an error).
check_records() { # spec outdir [noerror]
    "$TESSEL" sweep "$1" --dry-run >"$TMP/ids" 2>/dev/null || { fail_case "dry-run $1"; return; }
    python3 - "$2" "$TMP/ids" "${3:-}" <<'PY'
import csv, json, os, sys
out, idfile, extra = sys.argv[1], sys.argv[2], sys.argv[3]
want = sorted(l.strip() for l in open(idfile) if l.strip())
raw = open(os.path.join(out, "results.jsonl"), "rb").read()
bad = []
if raw and not raw.endswith(b"\n"):
    bad.append("results.jsonl does not end with a whole line")
recs = [json.loads(l) for l in raw.decode().splitlines()]
ids = [r["id"] for r in recs]
for i in sorted(set(ids)):
    if ids.count(i) != 1:
        bad.append("point %s recorded %d times" % (i, ids.count(i)))
if sorted(set(ids)) != want:
    bad.append("recorded %s, expected %s" % (sorted(set(ids)), want))
for r in recs:
    if r["status"] == "ok" and not os.path.isfile(os.path.join(out, r["schedule"] or "-")):
        bad.append("%s: ok without its schedule file" % r["id"])
    if r.get("log") and not os.path.isfile(os.path.join(out, r["log"])):
        bad.append("%s: names a log that is not there" % r["id"])
    if extra == "noerror" and r["status"] == "error":
        bad.append("%s: error: %s" % (r["id"], r["message"]))
for sub in ("schedules", "logs"):
    left = [f for f in os.listdir(os.path.join(out, sub)) if ".part" in f or f.endswith(".out")]
    if left:
        bad.append("scratch files left: %s" % left)
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
if sorted(r["id"] for r in rows) != sorted(ids):
    bad.append("results.csv rows do not match results.jsonl")
for b in bad:
    print("FAIL", out, b)
sys.exit(1 if bad else 0)
PY
    check_status $? "records of $(basename "$2") are those of $(basename "$1")${3:+ ($3)}"
}

# The pids of mpirun's children (the ranks), and the one of them that is RANK.
ranks_of() { ps -o pid= --ppid "$1" | tr -d ' '; }
rank_pid() { # mpirun-pid rank
    for p in $(ranks_of "$1"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
    done
}
wait_for() { # seconds command...: polls every 0.1 s
    local n=$(($1 * 10)); shift
    while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
    return 1
}
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

# 1. The same records as a local run.
"$TESSEL" sweep "$FAST" -o "$TMP/local" -j 2 >"$TMP/local.out" 2>&1 || true
"${MPI[@]}" "$TESSEL" sweep "$FAST" -o "$TMP/mpi" --mpi --mpi-timeout 20 >"$TMP/mpi.out" 2>&1
rc=$?
check_status "$rc" "mpirun sweep" "exit $rc" "$(cat "$TMP/mpi.out")"
grep -q "on 2 worker ranks" "$TMP/mpi.out"; check_status $? "the summary names the 2 worker ranks"
check_records "$FAST" "$TMP/mpi"
python3 - "$TMP/local" "$TMP/mpi" <<'PY'
import json, sys
TIMING = {"wall_seconds", "search_seconds", "output", "solver_seconds"}
def load(d):
    recs = {}
    for l in open(d + "/results.jsonl"):
        r = json.loads(l)
        res = r.get("result") or {}
        recs[r["id"]] = (r["status"], {k: v for k, v in res.items() if k not in TIMING})
    return recs
a, b = load(sys.argv[1]), load(sys.argv[2])
bad = []
if sorted(a) != sorted(b):
    bad.append("ids differ: local %s, mpi %s" % (sorted(a), sorted(b)))
for i in sorted(set(a) & set(b)):
    if a[i][0] != b[i][0]:
        bad.append("%s: status %s locally, %s on MPI" % (i, a[i][0], b[i][0]))
    elif a[i][1] != b[i][1]:
        bad.append("%s: results differ: %s vs %s" % (i, a[i][1], b[i][1]))
if len(a) < 9 or not any(s == "infeasible" for s, _ in a.values()):
    bad.append("the local run is not the expected 9 points with an infeasible one")
for x in bad:
    print("FAIL", x)
sys.exit(1 if bad else 0)
PY
check_status $? "the MPI records equal the local ones"

# 2. kill -9 of worker rank 1 while it runs a point: rank 0 hears nothing from it for 5 s, puts
# its point back in the queue, and rank 2 runs it.
"${MPI[@]}" "$TESSEL" sweep "$SLOW" -o "$TMP/kill1" --mpi --mpi-timeout 5 >"$TMP/kill1.out" 2>&1 &
TIMEOUT_PID=$!
JOB_PIDS=$TIMEOUT_PID
mpirun_started() { MPIRUN_PID=$(ps -o pid= --ppid "$TIMEOUT_PID" | tr -d ' '); [ -n "$MPIRUN_PID" ]; }
wait_for 10 mpirun_started; check_status $? "mpirun starts"
busy_rank1() { R1=$(rank_pid "$MPIRUN_PID" 1); [ -n "$R1" ] && [ -n "$(ps -o pid= --ppid "$R1")" ]; }
if wait_for 30 busy_rank1; then
    kill -9 "$R1"
    wait "$TIMEOUT_PID"
    rc=$?
    JOB_PIDS=
    check_status "$rc" "sweep after kill -9 of rank 1" "exit $rc" "$(cat "$TMP/kill1.out")"
    grep -q "rank 1 silent for .*taken as dead; 1 of its points back in the queue" "$TMP/kill1.out"
    check_status $? "rank 0 reports rank 1 dead" "$(cat "$TMP/kill1.out")"
    check_records "$SLOW" "$TMP/kill1" noerror
else
    fail_case "rank 1 runs a point" "rank 1 never ran a point"
fi

# 3. kill -9 of the whole job (mpirun and every rank) after some points, then --resume.
"${MPI[@]}" "$TESSEL" sweep "$SLOW" -o "$TMP/kill" --mpi --mpi-timeout 20 >"$TMP/kill.out" 2>&1 &
TIMEOUT_PID=$!
JOB_PIDS=$TIMEOUT_PID
wait_for 10 mpirun_started; check_status $? "mpirun starts"
some_done() { [ "$(lines "$TMP/kill/results.jsonl")" -ge 2 ]; }
if wait_for 30 some_done; then
    PIDS="$MPIRUN_PID $(ranks_of "$MPIRUN_PID")"
    kill -9 $PIDS
    wait "$TIMEOUT_PID" 2>/dev/null
    JOB_PIDS=
    before=$(lines "$TMP/kill/results.jsonl")
    head -n "$before" "$TMP/kill/results.jsonl" >"$TMP/kill.before"
    # The points' processes die with their rank (parent-death signal).
    gone() { for p in $PIDS; do [ -d "/proc/$p" ] && return 1; done; return 0; }
    wait_for 10 gone; check_status $? "no rank outlives kill -9"
    "${MPI[@]}" "$TESSEL" sweep "$SLOW" -o "$TMP/kill" --mpi --resume >"$TMP/resume.out" 2>&1
    rc=$?
    check_status "$rc" "--resume after killing the job" "exit $rc" "$(cat "$TMP/resume.out")"
    check_records "$SLOW" "$TMP/kill"
    head -n "$before" "$TMP/kill/results.jsonl" | cmp -s - "$TMP/kill.before"
    check_status $? "--resume keeps the records made before the kill"
    [ "$before" -lt 6 ]
    check_status $? "the job is killed before it ends" "the job finished before it was killed (nothing left to resume)"
else
    fail_case "a point recorded within 30 s"
fi

# 4. --mpi without mpirun: a single rank runs the sweep itself. (Open MPI's start as a singleton
# leaks memory in components it unloads at MPI_Finalize, which LeakSanitizer cannot name for a
# suppression: leak checking is off for this one run under ASan.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    "$TESSEL" sweep "$FAST" -o "$TMP/single" --mpi -j 2 >"$TMP/single.out" 2>&1
rc=$?
check_status "$rc" "--mpi without mpirun" "exit $rc" "$(cat "$TMP/single.out")"
check_records "$FAST" "$TMP/single"

harness_end
