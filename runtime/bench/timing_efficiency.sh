#!/usr/bin/env bash
# Efficiency of the replay (simulated makespan from measured block times / measured makespan) with
# the timing workload on the CPU backend, for greedy schedules of vshape (1F1B), kshape and mshape
# on 4 ranks. Prints a table; no assertion (the figure depends on how loaded the machine is).
#
#   runtime/bench/timing_efficiency.sh BUILD_DIR [UNIT_US=2000] [MICRO_BATCHES=32] [ITERATIONS=5]
set -euo pipefail
build=${1:?usage: timing_efficiency.sh BUILD_DIR [UNIT_US] [MICRO_BATCHES] [ITERATIONS]}
unit=${2:-2000}
n=${3:-32}
iters=${4:-5}
export OPENBLAS_NUM_THREADS=1
flags="--oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "unit ${unit} us, ${n} micro-batches, ${iters} iterations, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-8s %12s %12s %12s %10s %10s\n' shape planned_ms median_wall predicted efficiency best_eff
for shape in vshape kshape mshape; do
    caps=6
    [ $shape = vshape ] && caps=4,3,2,1
    "$build/bin/rt_greedy" $shape 4 "$n" "$tmp/$shape.json" $caps
    mpirun $flags -np 4 "$build/bin/tessel-run" --schedule "$tmp/$shape.json" --workload timing \
        --unit-us "$unit" --iterations "$iters" --json >"$tmp/$shape.out"
    python3 - "$tmp/$shape.out" "$shape" <<'PY'
import json, sys, statistics
d = json.load(open(sys.argv[1]))
its = d["iterations"]
med = lambda k: statistics.median(i[k] for i in its)
print("%-8s %12.1f %12.1f %12.1f %10.3f %10.3f" % (sys.argv[2], its[0]["planned_s"] * 1e3,
      med("wall_s") * 1e3, med("predicted_s") * 1e3, med("efficiency"), max(i["efficiency"] for i in its)))
PY
done
