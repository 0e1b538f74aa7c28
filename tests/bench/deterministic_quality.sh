#!/usr/bin/env bash
# The quality benchmark's cases (tests/bench/quality.sh, every set QUALITY_SETS names: matrix, v,
# small, scale by default), each searched twice by auto: once as the machine is, once with a busy
# loop on another core; the schedule files are compared byte for byte but for search_seconds
# (wall time). Prints one line per case (same / DIFFERENT, and "cap" when the wall-clock cap cut
# either run, which is the only way a difference may come) and a summary line per set and over
# all, with the runs that went past the limit + 1 s (--time-limit bounds the whole request). A
# figure-printing benchmark (tests/cli/deterministic.sh is the suite's check).
#
# usage: tests/bench/deterministic_quality.sh TESSEL_BIN [TIME_LIMIT]   (10 s)
# DET_CAP=S: both runs spend TIME_LIMIT's effort (1.2e5 units a second) under a wall-clock cap
# of S seconds instead (a lifted cap: on a machine shared with other work, the runs then show
# whether the effort alone decides the schedule). Without it, the default: --time-limit
# TIME_LIMIT, the effort and the cap together, and the summary counts the cases the cap cut.
# QUALITY_SETS, QUALITY_SHAPES / QUALITY_DEVS / QUALITY_NS and the other QUALITY_ variables
# narrow the cases as in quality.sh.
set -u
if [[ ${1:-} == --one ]]; then
  # one case, run by quality.sh: --one TESSEL LIMIT CAP TMP SET SHAPE D N MEMORY PLACEMENT-ARGS...
  shift
  tessel=$1 limit=$2 cap=$3 tmp=$4 set=$5 shape=$6 D=$7 N=$8 mem=$9
  shift 9
  if [[ $cap != - ]]; then
    budget=(--effort "$(python3 -c "print(int($limit * 120000))")" --time-limit "$cap")
  else
    budget=(--time-limit "$limit")
  fi
  # Runs one search into $1 and leaves $1.cmp (the file without search_seconds); prints cap or -.
  one() {
    "$tessel" search "$@" -n "$N" --memory "$mem" --method auto "${budget[@]}" -o "$out" \
      >/dev/null 2>&1 || { echo error; return; }
    python3 - "$out" <<'PY'
import json, sys
f = sys.argv[1]
t = open(f).read()
a = t.index('"search_seconds"')
open(f + ".cmp", "w").write(t[:a] + t[t.index("}", a) + 1:])
print("cap" if json.loads(t)["search"]["timed_out"] else "-")
PY
  }
  out=$tmp/q.json
  t0=$(date +%s.%N)
  q=$(one "$@")
  t1=$(date +%s.%N)
  (while :; do :; done) &
  busy=$!
  out=$tmp/l.json
  l=$(one "$@")
  t2=$(date +%s.%N)
  kill "$busy"
  wait "$busy" 2>/dev/null
  if [[ $q == error || $l == error ]]; then
    r=error
  elif cmp -s "$tmp/q.json.cmp" "$tmp/l.json.cmp"; then
    r=same
  else
    r=DIFFERENT
  fi
  printf '%s %s %s %s %s %s %s %s %.1f %.1f\n' "$set" "$shape" "$D" "$N" "$mem" "$r" "$q" "$l" \
    "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
  exit 0
fi
tessel=${1:?usage: deterministic_quality.sh TESSEL_BIN [TIME_LIMIT]}
limit=${2:-10}
cap=${DET_CAP:--}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
echo "# auto twice per case (as the machine is, then with a busy loop on another core)," \
  "$( [[ $cap == - ]] && echo "--time-limit $limit" || echo "effort of ${limit} s, cap ${cap} s")," \
  "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
echo "# set shape D N memory result cap(quiet) cap(loaded) seconds(quiet) seconds(loaded)"
QUALITY_SETS=${QUALITY_SETS:-matrix,v,small,scale} \
  QUALITY_EACH="$here/deterministic_quality.sh --one $tessel $limit $cap $tmp" \
  "$here/quality.sh" "$tessel" "$limit" | tee "$tmp/rows"
python3 - "$tmp/rows" "$( [[ $cap == - ]] && echo "$limit" || echo "$cap")" <<'PY'
import sys
deadline = float(sys.argv[2])
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")]
rows = [r for r in rows if len(r) == 10]
def summary(name, sel):
    same = sum(r[5] == "same" for r in sel)
    diff = sum(r[5] == "DIFFERENT" for r in sel)
    err = sum(r[5] == "error" for r in sel)
    cut = sum("cap" in (r[6], r[7]) for r in sel)
    diffcut = sum(r[5] == "DIFFERENT" and "cap" in (r[6], r[7]) for r in sel)
    slow = max((max(float(r[8]), float(r[9])) for r in sel), default=0)
    late = sum(max(float(r[8]), float(r[9])) > deadline + 1 for r in sel)
    print(f"SUMMARY {name}: {len(sel)} cases, {same} identical quiet and loaded, {diff} different "
          f"({diffcut} of them cut by the cap), {err} errors; the cap cut {cut}; slowest run "
          f"{slow:.1f} s; over the limit + 1 s ({deadline + 1:g} s): {late}")
print()
for s in dict.fromkeys(r[0] for r in rows):
    summary(s, [r for r in rows if r[0] == s])
summary("all", rows)
PY
