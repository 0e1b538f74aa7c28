#!/usr/bin/env bash
# Search benchmark: every paper case at 4 devices (k and memory of paper-cases.md) with each
# method; prints one table with the figures at N = 128 and the speed-up over the reference
# (the Python Tessel's time on this machine class, from paper-cases.md).
#
# usage: tests/bench/bench_search.sh TESSEL_BINARY [--full] [--time-limit S]
#   --full   also run the full-problem baseline (at N = 2k micro-batches, time-limited)
set -u
tessel=${1:?usage: bench_search.sh TESSEL_BINARY [--full] [--time-limit S]}
shift
full=0; limit=300
while [[ $# -gt 0 ]]; do
  case $1 in
    --full) full=1 ;;
    --time-limit) limit=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# case  train|infer  k  memory  reference-lazy-seconds  reference-fast-seconds (- when none)
cases="vshape train 4 4 2.9 -
vshape infer 4 none 0.6 -
xshape train 3 4 30 -
xshape infer 3 none 0.7 -
kshape train 3 6 6.4 1.2
kshape infer 2 none 0.8 -
mshape train 6 6 200 9.4
mshape infer 4 none 0.2 -
nnshape train 6 6 734 35
nnshape infer 6 none 1.0 -"

methods="lazy fast"; [[ $full -eq 1 ]] && methods="lazy fast full"
echo "# tessel search benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, time limit ${limit}s"
while read -r name mode k mem ref_lazy ref_fast; do
  infer=""; [[ $mode == infer ]] && infer=--infer
  for m in $methods; do
    n=128; extra=(--nmicros "$k")
    [[ $m == full ]] && { n=$((2 * k)); extra=(); }
    [[ $m == fast ]] && extra=()
    ref=-; [[ $m == lazy ]] && ref=$ref_lazy; [[ $m == fast ]] && ref=$ref_fast
    out="$tmp/$name-$mode-$m.json"
    "$tessel" search --placement "$name" --ndevs 4 $infer --memory "$mem" --method "$m" \
      "${extra[@]}" --micro-batches $n --time-limit "$limit" --json >"$out" 2>"$tmp/err"
    rc=$?
    echo "$name $mode $m $n $ref $rc $out"
  done
done <<<"$cases" >"$tmp/runs"

python3 - "$tmp/runs" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    name, mode, m, n, ref, rc, out = line.split()
    try:
        j = json.load(open(out))
    except Exception:
        j = {}
    case = f"{name} {mode}"
    if rc != "0" or not j.get("feasible", False):
        rows.append([case, m, "-", "-", "-", "-", "-", "-", "failed" if rc != "0" else "-", "-"])
        continue
    secs = j["search_seconds"]["total"]
    ratio = f"{float(ref) / secs:.0f}x" if ref != "-" and secs > 0 else "-"
    mk = str(j["makespan"]) + ("" if int(n) == 128 else f" (N={n})")
    opt = "" if j["period_optimal"] else "*"
    if j["timed_out"]:
        opt += " (time limit)"
    rep = m != "full"  # full has no repetend: its figures are the makespan at its own N
    rows.append([case, m, str(j["k"]) if rep else "-", str(j["period"]) if rep else "-",
                 (str(j["bubbles_per_repetend"]) if rep else "-") + opt,
                 mk, str(j["lower_bound"]), " ".join(map(str, j["peak_memory"])),
                 f"{secs:.4f}" if secs < 1 else f"{secs:.2f}", ratio])
head = ["case", "method", "k", "period", "bubbles", "makespan(128)", "LB(128)", "peak memory",
        "seconds", "vs reference"]
w = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
fmt = lambda r: "| " + " | ".join(c.ljust(w[i]) for i, c in enumerate(r)) + " |"
print(fmt(head))
print("|" + "|".join("-" * (x + 2) for x in w) + "|")
for r in rows:
    print(fmt(r))
print("\n* = not proven optimal; vs reference = reference seconds / our seconds (search time,")
print("  measured inside the process; the reference's lazy or fast time from paper-cases.md)")
PY
