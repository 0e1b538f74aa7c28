#!/usr/bin/env bash
# Wall time of one sweep spec run with `tessel sweep --mpi` at -np 1, 2, 3, ... (issue 16): rank 0
# coordinates, the other ranks run -j points each; -np 1 runs the sweep locally. One row per rank
# count: ranks, worker slots, wall seconds, speed-up over the first row, the sum of the points'
# own wall seconds, and the records' status counts. On one machine the ranks are oversubscribed
# and share its cores, so the speed-up is bounded by the cores left to the points.
#
# usage: tests/bench/bench_sweep_mpi.sh TESSEL_BINARY [SPEC] [--ranks "1 2 3"] [-j J]
set -u
tessel=${1:?usage: bench_sweep_mpi.sh TESSEL_BINARY [SPEC] [--ranks "1 2 3"] [-j J]}
shift
spec=$(dirname "$0")/../../experiments/memory-ablation.json
if [[ $# -gt 0 && $1 != -* ]]; then spec=$1; shift; fi
ranks="1 2 3"; jobs=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --ranks) ranks=${2:?}; shift ;;
    -j) jobs=${2:?}; shift ;;
    *) echo "bench_sweep_mpi.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
mpi=(mpirun --oversubscribe --enable-recovery)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "spec $spec, -j $jobs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%5s %6s %9s %8s %13s  %s\n' ranks slots wall_s speedup points_wall_s statuses
first=
for np in $ranks; do
  out=$tmp/np$np
  t0=$(date +%s.%N)
  "${mpi[@]}" -np "$np" "$tessel" sweep "$spec" -o "$out" --mpi -j "$jobs" --quiet \
    >"$tmp/log$np" 2>&1 || { echo "np $np failed:"; tail -5 "$tmp/log$np"; continue; }
  t1=$(date +%s.%N)
  wall=$(python3 -c "print('%.1f' % ($t1 - $t0))")
  first=${first:-$wall}
  slots=$(( np > 1 ? (np - 1) * jobs : jobs ))
  python3 - "$out/results.jsonl" "$np" "$slots" "$wall" "$first" <<'PY'
import collections, json, sys
path, np, slots, wall, first = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
recs = [json.loads(l) for l in open(path)]
st = collections.Counter(r["status"] for r in recs)
own = sum(r["wall_seconds"] or 0 for r in recs)
print("%5s %6s %9.1f %8.2f %13.1f  %s" % (np, slots, wall, first / wall, own,
      " ".join("%s %d" % kv for kv in sorted(st.items()))))
PY
done
