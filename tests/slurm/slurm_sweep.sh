#!/usr/bin/env bash
# The Slurm batch script of docs/sweeps.md, run for real: starts munged, slurmctld and slurmd on this
# machine as a one-node cluster with 4 CPUs (its own config, ports, key and state in a scratch
# folder; the system's Slurm and munge setup is left alone), then
#   1. sbatch of the script of docs/sweeps.md shrunk to one node and a small spec: every point recorded once;
#   2. the same script on a slower spec, scancel midway, resubmitted (it passes --resume): every
#      point still recorded exactly once, the records made before the cancel unchanged;
#   3. srun --mpi=pmix --kill-on-bad-exit=0 -n 3 of the small spec: the same records as sbatch's;
#   4. the same srun on the slower spec, worker rank 1 killed with SIGKILL (Slurm then cancels the
#      step), and srun again with --resume: every point recorded once.
# Every daemon it started is stopped on exit. The daemons run as the user running the test (root
# in CI; any user works). As root it installs Slurm and munge (Debian packages slurmctld, slurmd,
# slurm-client, munge) when they are missing; it skips (exit 77) only when they are missing and it
# is not root.
# usage: slurm_sweep.sh TESSEL SOURCE_DIR
set -u
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$2" && pwd)
if ! "$TESSEL" search --help 2>&1 | grep -q -- "--effort"; then
    echo "SKIP no solver in this build: the sweep searches"
    exit 77
fi
PKGS=(slurmctld slurmd slurm-client munge)
fail=0
say() { echo "FAIL $*"; fail=1; }

have_slurm() {
    for p in munged slurmctld slurmd sbatch srun scancel squeue; do
        command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] || return 1
    done
}
if ! have_slurm; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP Slurm and munge are not installed and this is not root (apt-get install ${PKGS[*]})"
        exit 77
    fi
    echo "installing ${PKGS[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null 2>&1 ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null; } ||
        { echo "FAIL apt-get install ${PKGS[*]}"; exit 1; }
fi
export PATH=$PATH:/usr/sbin
ME=$(id -un)
# Open MPI's components, unloaded at MPI_Finalize, leave leaks that LeakSanitizer cannot name for a
# suppression (an orted-launched or PMIx rank has more of them than cli/sweep_mpi's): under ASan,
# leak checking is off here; cli/sweep_mpi checks the sweep's own leaks.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

TMP=$(mktemp -d)
chmod 755 "$TMP"
STARTED=
cleanup() { # jobs first, then the daemons this script started (by their pid files), then files
    if [ -n "$STARTED" ]; then
        scancel --full --quiet --user="$ME" 2>/dev/null
        sleep 1
        for f in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munge/munged.pid"; do
            [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
        done
        for _ in $(seq 50); do
            alive=0
            for f in "$TMP/slurmd.pid" "$TMP/slurmctld.pid" "$TMP/munge/munged.pid"; do
                [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && alive=1
            done
            [ $alive -eq 0 ] && break
            sleep 0.1
        done
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT
# Should this script be killed outright (a CTest timeout), a watchdog outside its process group
# still stops the jobs and the daemons once it is gone.
setsid bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done
    [ -d "$2" ] || exit 0
    SLURM_CONF=$2/slurm.conf scancel --full --quiet --user="$3"; sleep 2
    for f in "$2/slurmd.pid" "$2/slurmctld.pid" "$2/munge/munged.pid"; do
        [ -s "$f" ] && kill "$(cat "$f")"
    done
    sleep 2; rm -rf "$2"' watchdog $$ "$TMP" "$ME" </dev/null >/dev/null 2>&1 &
wait_for() { # seconds command...: polls every 0.2 s
    local n=$(($1 * 5)); shift
    while [ "$n" -gt 0 ]; do "$@" && return 0; sleep 0.2; n=$((n - 1)); done
    return 1
}
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

# Two free TCP ports for slurmctld and slurmd.
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
HOST=$(hostname -s)
mkdir -p "$TMP/munge" "$TMP/state" "$TMP/spool" "$TMP/log"
chmod 700 "$TMP/munge"
head -c 128 /dev/urandom >"$TMP/munge/munge.key"
chmod 600 "$TMP/munge/munge.key"
cat >"$TMP/slurm.conf" <<EOF
ClusterName=tessel-test
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=$ME
SlurmdUser=$ME
AuthType=auth/munge
AuthInfo=socket=$TMP/munge/socket
CredType=cred/munge
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/log/slurmctld.log
SlurmdLogFile=$TMP/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
KillWait=5
NodeName=tessel0 NodeHostname=$HOST NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=tessel Nodes=tessel0 Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF=$TMP/slurm.conf
STARTED=1
munged --force --key-file="$TMP/munge/munge.key" --socket="$TMP/munge/socket" \
    --log-file="$TMP/munge/munged.log" --pid-file="$TMP/munge/munged.pid" \
    --seed-file="$TMP/munge/munged.seed" || { echo "FAIL munged did not start"; exit 1; }
slurmctld -f "$SLURM_CONF" || { echo "FAIL slurmctld did not start"; cat "$TMP/log/slurmctld.log"; exit 1; }
slurmd -f "$SLURM_CONF" -N tessel0 || { echo "FAIL slurmd did not start"; cat "$TMP/log/slurmd.log"; exit 1; }
node_idle() { sinfo -h -n tessel0 -o %t 2>/dev/null | grep -qx idle; }
if ! wait_for 30 node_idle; then
    echo "FAIL the node did not come up idle"
    sinfo; tail -n 20 "$TMP/log/slurmctld.log" "$TMP/log/slurmd.log"
    exit 1
fi
echo "cluster up: $(sinfo -h -o '%P %D node(s) %c CPUs %t') (Slurm $(sinfo -V | cut -d' ' -f2))"

# Every point of SPEC recorded exactly once in OUTDIR, as whole lines, the CSV in step.
check() { # spec outdir what
    "$TESSEL" sweep "$1" --dry-run >"$TMP/ids" 2>/dev/null || { say "dry-run $1"; return; }
    python3 - "$2" "$TMP/ids" "$3" <<'PY' || fail=1
import csv, json, os, sys
out, idfile, what = sys.argv[1:4]
want = sorted(l.strip() for l in open(idfile) if l.strip())
bad = []
try:
    raw = open(os.path.join(out, "results.jsonl"), "rb").read()
except OSError as e:
    raw = b""
    bad.append(str(e))
if raw and not raw.endswith(b"\n"):
    bad.append("results.jsonl does not end with a whole line")
ids = [json.loads(l)["id"] for l in raw.decode().splitlines()]
twice = sorted(i for i in set(ids) if ids.count(i) != 1)
if twice:
    bad.append("recorded more than once: %s" % twice)
if sorted(set(ids)) != want:
    bad.append("recorded %d distinct points, expected %d" % (len(set(ids)), len(want)))
if not bad:
    rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
    if sorted(r["id"] for r in rows) != sorted(ids):
        bad.append("results.csv rows do not match results.jsonl")
for b in bad:
    print("FAIL %s: %s" % (what, b))
if not bad:
    print("ok %s: %d points, each recorded once" % (what, len(want)))
sys.exit(1 if bad else 0)
PY
}

# The batch script of docs/sweeps.md, shrunk: one node, 2 CPUs per task, the spec and output given here.
FAST=$SRC/tests/fixtures/sweep_mpi.json
SLOW=$SRC/tests/slurm/slow.json
awk '/^A Slurm batch script/ {f = 1} f && /^```sh/ {g = 1; next} g && /^```/ {exit} g' \
    "$SRC/docs/sweeps.md" >"$TMP/readme.sbatch"
batch() { # spec outdir > script
    sed -e 's/--nodes=16/--nodes=1/' -e 's/--cpus-per-task=32/--cpus-per-task=2/' \
        -e 's/--time=48:00:00/--time=00:10:00/' -e "s|tessel sweep |$TESSEL sweep |" \
        -e "s|experiments/memory-ablation.json|$1|" -e "s|\"\$HOME/sweeps/memory-ablation\"|$2|" \
        "$TMP/readme.sbatch"
}
batch "$FAST" "$TMP/fast" >"$TMP/fast.sbatch"
for want in "--nodes=1" "--cpus-per-task=2" "--time=00:10:00" "$TESSEL sweep $FAST -o $TMP/fast" \
    "--mpi -j \"\$SLURM_CPUS_PER_TASK\" --resume" "mpirun -np \$((SLURM_NNODES + 1))"; do
    grep -qF -- "$want" "$TMP/fast.sbatch" ||
        { say "the batch script of docs/sweeps.md changed (no '$want' after shrinking): update this test"; cat "$TMP/fast.sbatch"; exit 1; }
done
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# 1. sbatch: every point once.
t0=$SECONDS
if timeout 180 sbatch --wait --quiet -o "$TMP/fast.out" "$TMP/fast.sbatch" >/dev/null; then
    echo "sbatch (the script of docs/sweeps.md, $(basename "$FAST")):" \
        "$(grep -o '[0-9]*/[0-9]* points recorded[^;]*' "$TMP/fast.out"), $((SECONDS - t0)) s"
else
    say "sbatch of the script of docs/sweeps.md failed"; cat "$TMP/fast.out"
fi
check "$FAST" "$TMP/fast" "sbatch"

# 2. scancel midway, resubmit: every point still once, earlier records unchanged.
batch "$SLOW" "$TMP/slow" >"$TMP/slow.sbatch"
JOB=$(sbatch --parsable -o "$TMP/slow-%j.out" "$TMP/slow.sbatch")
some_done() { [ "$(lines "$TMP/slow/results.jsonl")" -ge 3 ]; }
if wait_for 60 some_done; then
    scancel "$JOB"
    job_gone() { [ -z "$(squeue -h -j "$JOB" 2>/dev/null)" ]; }
    wait_for 30 job_gone || say "job $JOB still in the queue 30 s after scancel"
    before=$(lines "$TMP/slow/results.jsonl")
    total=$("$TESSEL" sweep "$SLOW" --dry-run 2>/dev/null | wc -l)
    echo "scancel of job $JOB after $before of $total points"
    [ "$before" -lt "$total" ] || say "the job finished before scancel (nothing left to resume)"
    head -n "$before" "$TMP/slow/results.jsonl" >"$TMP/slow.before"
    if timeout 180 sbatch --wait --quiet -o "$TMP/slow-resume.out" "$TMP/slow.sbatch" >/dev/null; then
        echo "resubmitted: $(grep -o '[0-9]*/[0-9]* points recorded.*this run [0-9]* points' "$TMP/slow-resume.out")"
    else
        say "the resubmitted job failed"; cat "$TMP/slow-resume.out"
    fi
    check "$SLOW" "$TMP/slow" "scancel + resubmit"
    head -n "$before" "$TMP/slow/results.jsonl" | cmp -s - "$TMP/slow.before" ||
        say "the resubmitted job changed records made before scancel"
else
    say "job $JOB recorded fewer than 3 points within 60 s"; cat "$TMP"/slow-*.out
fi

# 3. srun launches the same sweep: rank 0 and two worker ranks, the records equal sbatch's.
SRUN=(timeout 120 srun --quiet --mpi=pmix --kill-on-bad-exit=0 -n 3 -c 1)
"${SRUN[@]}" "$TESSEL" sweep "$FAST" -o "$TMP/srun" --mpi -j 1 >"$TMP/srun.out" 2>&1 ||
    { say "srun sweep: exit $?"; cat "$TMP/srun.out"; }
grep -q "on 2 worker ranks" "$TMP/srun.out" ||
    { say "srun: the summary does not name 2 worker ranks"; cat "$TMP/srun.out"; }
echo "srun: $(grep -o '[0-9]*/[0-9]* points recorded.*worker ranks' "$TMP/srun.out")"
check "$FAST" "$TMP/srun" "srun"
python3 - "$TMP/fast" "$TMP/srun" <<'PY' || fail=1
import json, sys
def load(d):
    return {r["id"]: r["status"] for r in map(json.loads, open(d + "/results.jsonl"))}
a, b = load(sys.argv[1]), load(sys.argv[2])
if a != b:
    print("FAIL srun and sbatch records differ: %s vs %s" % (a, b))
    sys.exit(1)
print("ok srun: the same %d statuses as sbatch" % len(a))
PY

# 4. A worker rank killed under srun. Slurm 22.05's PMIx plugin cancels the whole step when it
# loses a rank, --kill-on-bad-exit=0 or not (Open MPI 4 of Debian 12 starts under srun only
# through PMIx): the sweep stops, and the same srun with --resume runs the rest, every point once.
"${SRUN[@]}" "$TESSEL" sweep "$SLOW" -o "$TMP/srunkill" --mpi -j 1 --mpi-timeout 5 \
    >"$TMP/srunkill.out" 2>&1 &
SRUN_PID=$!
rank1() { # the pid of the sweep's rank 1 (the step's task SLURM_PROCID=1)
    for p in $(pgrep -f -x "$TESSEL sweep $SLOW -o $TMP/srunkill --mpi -j 1 --mpi-timeout 5"); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_PROCID=1" && echo "$p"
    done
}
busy_rank1() { R1=$(rank1); [ -n "$R1" ] && [ -n "$(ps -o pid= --ppid "$R1")" ]; }
if wait_for 30 busy_rank1; then
    kill -9 "$R1"
    wait "$SRUN_PID"
    rc=$?
    before=$(lines "$TMP/srunkill/results.jsonl")
    echo "srun after SIGKILL of rank 1: exit $rc, $before points recorded;" \
        "$(grep -o 'STEP .* CANCELLED' "$TMP/srunkill.out" || grep -o 'rank 1 silent.*queue' "$TMP/srunkill.out")"
    "${SRUN[@]}" "$TESSEL" sweep "$SLOW" -o "$TMP/srunkill" --mpi -j 1 --resume \
        >"$TMP/srunresume.out" 2>&1 || { say "srun --resume: exit $?"; cat "$TMP/srunresume.out"; }
    echo "srun --resume: $(grep -o '[0-9]*/[0-9]* points recorded.*this run [0-9]* points' "$TMP/srunresume.out")"
    check "$SLOW" "$TMP/srunkill" "srun, rank 1 killed, then --resume"
else
    say "rank 1 never ran a point under srun"; kill "$SRUN_PID" 2>/dev/null; wait "$SRUN_PID"
    cat "$TMP/srunkill.out"
fi
exit $fail
