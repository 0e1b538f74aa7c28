#!/usr/bin/env bash
# Efficiency of the replay (simulated makespan from measured block times / measured makespan) with
# the timing workload on the CPU backend, on 4 ranks. Without schedule arguments it measures greedy
# schedules (rt_greedy, a test helper) of vshape (1F1B), kshape and mshape; with arguments, those
# schedule files, unrolled to MICRO_BATCHES when they have a repetend. Prints a table; no assertion
# (the figure depends on how loaded the machine is, so the load average is printed too).
#
#   runtime/bench/timing_efficiency.sh BUILD_DIR [UNIT_US=2000] [MICRO_BATCHES=32] [ITERATIONS=5] [SCHEDULE...]
set -euo pipefail
build=${1:?usage: timing_efficiency.sh BUILD_DIR [UNIT_US] [MICRO_BATCHES] [ITERATIONS] [SCHEDULE...]}
unit=${2:-2000}
n=${3:-32}
iters=${4:-5}
shift $(($# < 4 ? $# : 4))
export OPENBLAS_NUM_THREADS=1
flags="--oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
schedules=("$@")
if [ ${#schedules[@]} -eq 0 ]; then
    for shape in vshape kshape mshape; do
        caps=6
        [ $shape = vshape ] && caps=4,3,2,1
        "$build/bin/rt_greedy" $shape 4 "$n" "$tmp/greedy_$shape.json" $caps
        schedules+=("$tmp/greedy_$shape.json")
    done
fi
echo "unit ${unit} us, ${n} micro-batches, ${iters} iterations, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %11s %12s %12s %10s %9s\n' schedule planned_ms median_wall predicted efficiency best
for s in "${schedules[@]}"; do
    unroll=()
    grep -q '"repetend"' "$s" && unroll=(--micro-batches "$n")
    mpirun $flags -np 4 "$build/bin/tessel-run" --schedule "$s" "${unroll[@]}" --workload timing \
        --unit-us "$unit" --iterations "$iters" --json >"$tmp/out.json"
    python3 - "$tmp/out.json" "$(basename "$s" .json)" <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1]))
its = d["iterations"]
med = lambda k: statistics.median(i[k] for i in its)
print("%-28s %11.1f %12.1f %12.1f %10.3f %9.3f" % (sys.argv[2][:28], its[0]["planned_s"] * 1e3,
      med("wall_s") * 1e3, med("predicted_s") * 1e3, med("efficiency"), max(i["efficiency"] for i in its)))
PY
done
