#!/usr/bin/env bash
# The quality benchmark's cases, each searched twice by auto at the benchmark's time limit: once
# quiet, once with a busy loop on another core; the schedule files are compared byte for byte
# but for search_seconds (wall time). Prints one line per case (same / DIFFERENT, and "cap" when
# the wall-clock cap cut either run, which is when a difference may come) and a summary line.
# A figure-printing benchmark (tests/cli/deterministic.sh is the suite's check, at a small effort).
#
# usage: tests/bench/deterministic_quality.sh TESSEL_BIN [TIME_LIMIT]   (10 s)
# QUALITY_SHAPES / QUALITY_DEVS / QUALITY_NS narrow the matrix (memory D + 2), as in quality.sh.
set -u
tessel=${1:?usage: deterministic_quality.sh TESSEL_BIN [TIME_LIMIT]}
limit=${2:-10}
shapes=${QUALITY_SHAPES:-vshape xshape mshape nnshape kshape}
devs=${QUALITY_DEVS:-4 8 16 32}
ns=${QUALITY_NS:-8 32 128}
tmp=$(mktemp -d)
busy=
trap '[[ -n $busy ]] && kill "$busy" 2>/dev/null; rm -rf "$tmp"' EXIT
# Runs one search into $1 and leaves $1.cmp (the file without search_seconds); prints timed_out.
one() {
  "$tessel" search --placement "$2" --ndevs "$3" -n "$4" --memory $(($3 + 2)) --method auto \
    --time-limit "$limit" -o "$1" >/dev/null 2>&1 || { echo error; return; }
  python3 - "$1" <<'PY'
import json, sys
f = sys.argv[1]
t = open(f).read()
a = t.index('"search_seconds"')
open(f + ".cmp", "w").write(t[:a] + t[t.index("}", a) + 1:])
print("cap" if json.loads(t)["search"]["timed_out"] else "-")
PY
}
same=0 diff=0 cut=0 n=0
for shape in $shapes; do
  for D in $devs; do
    for N in $ns; do
      q=$(one "$tmp/q.json" "$shape" "$D" "$N")
      (while :; do :; done) &
      busy=$!
      l=$(one "$tmp/l.json" "$shape" "$D" "$N")
      kill "$busy"
      wait "$busy" 2>/dev/null
      busy=
      n=$((n + 1))
      if cmp -s "$tmp/q.json.cmp" "$tmp/l.json.cmp"; then r=same; same=$((same + 1)); else r=DIFFERENT; diff=$((diff + 1)); fi
      [[ $q == cap || $l == cap ]] && cut=$((cut + 1))
      echo "$shape D=$D N=$N: $r (quiet $q, loaded $l)"
    done
  done
done
echo "SUMMARY: $n cases, $same identical quiet and loaded, $diff different; the cap cut $cut"
