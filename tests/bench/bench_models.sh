#!/usr/bin/env bash
# Every model of models/ x every strategy it lists, derived on 8 GPUs (A100-80GB, micro-batch 1)
# and searched with --method modulo within the derived capacity (issue 11). One row each:
# model, strategy, blocks, time unit, time and memory rounding, capacity, period, k, makespan(N)
# / lower bound, whether the time limit cut it, and the search's wall seconds.
#
# usage: tests/bench/bench_models.sh TESSEL_BINARY [--time-limit S] [--gpus D] [--micro-batches N]
set -u
tessel=${1:?usage: bench_models.sh TESSEL_BINARY [--time-limit S] [--gpus D] [--micro-batches N]}
shift
limit=10; gpus=8; n=32
while [[ $# -gt 0 ]]; do
  case $1 in
    --time-limit) limit=${2:?}; shift ;;
    --gpus) gpus=${2:?}; shift ;;
    --micro-batches) n=${2:?}; shift ;;
    *) echo "bench_models.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf "%-11s %-12s %6s %10s %7s %7s %8s %7s %4s %14s %5s %8s\n" model strategy blocks unit_ms \
  t_err m_err capacity period k "makespan/LB" cut seconds
for f in "$here"/models/*.json; do
  m=$(basename "$f" .json)
  for s in $(python3 -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['strategies']))" "$f"); do
    if ! "$tessel" placement --model "$m" --hardware a100-80gb --gpus "$gpus" --strategy "$s" \
         --models-dir "$here/models" -o "$tmp/p.json" --json >"$tmp/i.json" 2>"$tmp/err"; then
      printf "%-11s %-12s refused: %s\n" "$m" "$s" "$(tail -1 "$tmp/err" | cut -c1-100)"
      continue
    fi
    start=$(date +%s.%N)
    "$tessel" search "$tmp/p.json" --method modulo --micro-batches "$n" --time-limit "$limit" \
      --json >"$tmp/s.json" 2>/dev/null
    rc=$?
    secs=$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" \
      "$start" "$(date +%s.%N)")
    python3 - "$tmp/i.json" "$tmp/s.json" "$tmp/p.json" "$m" "$s" "$rc" "$secs" <<'PY'
import json, sys
i = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[3]))
m, s, rc, secs = sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7]
head = "%-11s %-12s %6d %10.4g %6.2f%% %6.2f%% %8d" % (m, s, len(p["blocks"]), i["time_unit_s"] * 1e3,
       100 * i["time_error"], 100 * i["memory_error"], i["capacity"])
if rc:
    print(head, " no schedule (exit %d)" % rc, secs)
else:
    j = json.load(open(sys.argv[2]))
    print(head, "%7s %4s %14s %5s %8s" % (j.get("period"), j.get("k"),
          "%d/%d" % (j["makespan"], j["lower_bound"]), "yes" if j.get("timed_out") else "no", secs))
PY
  done
done
