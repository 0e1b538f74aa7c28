#!/usr/bin/env bash
# Modulo search benchmark (issue 7): the paper cases at 4 devices (memory of paper-cases.md,
# inference unconstrained) and vshape, kshape, mshape, nnshape (training) at 32 devices with
# memory D + 2. One table: case, D, memory, period, load, optimal (period proven minimal),
# k, makespan(128) / LB(128), seconds. The makespan is what `tessel search` reports at
# N = 128 (each device's order replayed as early as possible); LB(N) is the core's lower bound.
#
# usage: tests/bench/bench_modulo.sh TESSEL_BINARY [--time-limit S] [--only4 | --only32]
#   --time-limit S   the search's time limit (default 60; the 32-device cases use all of it
#                    when a smaller period stays undecided)
set -u
tessel=${1:?usage: bench_modulo.sh TESSEL_BINARY [--time-limit S] [--only4 | --only32]}
shift
limit=60; sets="4 32"
while [[ $# -gt 0 ]]; do
  case $1 in
    --time-limit) limit=${2:?--time-limit needs seconds}; shift ;;
    --only4) sets="4" ;;
    --only32) sets="32" ;;
    *) echo "bench_modulo.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# case train|infer devices memory
cases4="vshape train 4 4
vshape infer 4 none
xshape train 4 4
xshape infer 4 none
kshape train 4 6
kshape infer 4 none
mshape train 4 6
mshape infer 4 none
nnshape train 4 6
nnshape infer 4 none"
cases32="vshape train 32 34
kshape train 32 34
mshape train 32 34
nnshape train 32 34"

echo "# tessel search --method modulo, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, time limit ${limit}s"
for set in $sets; do
  [[ $set == 4 ]] && cases=$cases4 || cases=$cases32
  while read -r name mode d mem; do
    infer=""; [[ $mode == infer ]] && infer=--infer
    out="$tmp/$name-$mode-$d.json"
    start=$(date +%s.%N)
    "$tessel" search --placement "$name" --ndevs "$d" $infer --memory "$mem" --method modulo \
      --micro-batches 128 --time-limit "$limit" --json >"$out" 2>"$tmp/err"
    rc=$?
    end=$(date +%s.%N)
    echo "$name $mode $d $mem $rc $start $end $out"
  done <<<"$cases"
done >"$tmp/runs"

python3 - "$tmp/runs" <<'PY'
import json, sys
print(f"{'case':<15} {'D':>3} {'mem':>5} {'period':>6} {'load':>5} {'optimal':>7} {'k':>3} "
      f"{'makespan/LB(128)':>18} {'ratio':>6} {'seconds':>8}")
for line in open(sys.argv[1]):
    name, mode, d, mem, rc, start, end, out = line.split()
    wall = float(end) - float(start)
    case = f"{name} {mode}"
    try:
        j = json.load(open(out))
    except Exception:
        j = None
    if rc != "0" or not j:
        print(f"{case:<15} {d:>3} {mem:>5} {'-':>6} {'-':>5} {'-':>7} {'-':>3} "
              f"{'no schedule (exit ' + rc + ')':>18} {'-':>6} {wall:8.2f}")
        continue
    load = max(j["load"]) if isinstance(j.get("load"), list) else j.get("load")
    mk, lb = j["makespan"], j["lower_bound"]
    print(f"{case:<15} {d:>3} {mem:>5} {j['period']:>6} {load:>5} {str(j['period_optimal']).lower():>7} "
          f"{j['k']:>3} {str(mk) + '/' + str(lb):>18} {mk / lb:6.3f} {wall:8.2f}")
PY
