#!/usr/bin/env bash
# Auto against the zero-bubble repository's own schedulers (sail-sg) at the peer's own memory:
# per problem (the V placement vshape_v_zb with F = B = W = 1, D devices, N micro-batches) and
# per memory level (the peak of the peer's V-Min, V-Half and ZB-V greedy on that problem,
# tests/fixtures/cm_peer_makespans.tsv, in vshape_v_zb's units), `tessel search --method auto`
# at that memory, its schedule checked by `tessel validate` (memory included), against the
# peer's makespan. Also the best of our hand-made baselines that fits (`tessel compare`).
#
# usage: tests/bench/bench_peer.sh TESSEL_BIN [TIME_LIMIT]   (TIME_LIMIT: seconds of effort per
#        search, 2 by default, 1.2e5 units a second; 0: auto's default effort, no limit given;
#        PEER_CAP: the wall-clock cap, 60 s;
#        PEER_FIXTURE: the table of the peer's figures; PEER_DEVS: only these D)
# One line per problem and level: D N level memory peer ours diff (ours - peer) base (the best
# fitting baseline's makespan and name) kept (the row auto kept) valid seconds. Last line:
# SUMMARY peer: problems=<n> ours_longer=<n> (a problem counts once when ours is longer than the
# peer's at any of its levels). A figure-printing benchmark: it asserts nothing.
set -u
tessel=${1:?usage: bench_peer.sh TESSEL_BIN [TIME_LIMIT]}
limit=${2:-2}
cap=${PEER_CAP:-60}
here=$(cd "$(dirname "$0")" && pwd)
fixture=${PEER_FIXTURE:-$here/../fixtures/cm_peer_makespans.tsv}
devs=${PEER_DEVS:-}
effort=$(python3 -c "print(int($limit * 120000))")
budget=(--effort "$effort" --time-limit "$cap")
[[ $effort == 0 ]] && budget=()
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
baselines=$("$tessel" baseline --list | awk '{print $1}' | paste -sd, -)

echo "# tessel search --method auto ${budget[*]:-(default effort)} against $(basename "$fixture"), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%3s %4s %-12s %4s %5s %5s %5s %5s %-12s %-16s %5s %7s\n' \
  D N level mem peer ours diff base base_kind kept valid seconds
grep -v '^#' "$fixture" | while read -r kind D N mk peak; do
  [[ -n $devs && " $devs " != *" $D "* ]] && continue
  t0=$(date +%s.%N)
  "$tessel" search --placement vshape_v_zb --ndevs "$D" -n "$N" --memory "$peak" --method auto \
    "${budget[@]}" --json -o "$tmp/s.json" >"$tmp/a.json" 2>"$tmp/a.err"
  t1=$(date +%s.%N)
  if "$tessel" validate "$tmp/s.json" -n "$N" --quiet >"$tmp/v.out" 2>&1; then valid=yes; else valid=NO; fi
  "$tessel" compare --placement vshape_v_zb --ndevs "$D" -n "$N" --memory "$peak" \
    --methods "$baselines" --csv >"$tmp/c.csv" 2>/dev/null
  python3 - "$kind" "$D" "$N" "$mk" "$peak" "$tmp" "$valid" "$t0" "$t1" <<'PY'
import csv, json, sys
kind, D, N, mk, peak, tmp, valid, t0, t1 = sys.argv[1:]
try:
    a = json.load(open(f"{tmp}/a.json"))
    ours = a["makespan"] if a.get("feasible") else None
    kept = a.get("source") or "?"
except Exception:
    ours, kept = None, "error"
best, bname = None, "-"
for r in csv.DictReader(open(f"{tmp}/c.csv")):
    if r["fits"] == "yes" and r["makespan"] and (best is None or int(r["makespan"]) < best):
        best, bname = int(r["makespan"]), r["method"]
diff = "-" if ours is None else str(ours - int(mk))
print(f"{D:>3} {N:>4} {kind:<12} {peak:>4} {mk:>5} {ours if ours is not None else '-':>5} "
      f"{diff:>5} {best if best is not None else '-':>5} {bname:<12} {kept:<16} {valid:>5} "
      f"{float(t1) - float(t0):7.1f}")
PY
done | tee "$tmp/rows"
python3 - "$tmp/rows" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
probs, longer, levels_longer, invalid = {}, set(), 0, 0
for r in rows:
    key = (r[0], r[1])
    probs[key] = 1
    if r[6] == "-" or int(r[6]) > 0:
        longer.add(key)
        levels_longer += 1
    if r[10] != "yes":
        invalid += 1
        longer.add(key)
print(f"SUMMARY peer levels: {len(rows)} levels, ours longer at {levels_longer}, "
      f"not valid at {invalid}")
print(f"SUMMARY peer: problems={len(probs)} ours_longer={len(longer)}")
PY
