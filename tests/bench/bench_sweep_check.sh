#!/usr/bin/env bash
# How long `tessel sweep` takes to check a big spec (issue 29, item 8): a spec of 69,600 points
# (64,000 searches over five placements, two device counts, both variants, ten memories, eight k
# and twenty N; 5,600 baselines) through --dry-run, then a --resume of a folder that already
# records every point (each record matched to its point, the CSV rebuilt in spec order). It
# prints wall seconds per binary: give the binary built before a change as a second argument to
# see before and after side by side. A benchmark, not a test: it prints figures and asserts
# nothing (each run is killed after --kill seconds, default 300; exit 124 then).
#
# usage: tests/bench/bench_sweep_check.sh TESSEL_BINARY [TESSEL_BEFORE] [--kill S]
set -u
usage="usage: bench_sweep_check.sh TESSEL_BINARY [TESSEL_BEFORE] [--kill S]"
bins=()
kill=300
while [[ $# -gt 0 ]]; do
  case $1 in
    --kill) kill=${2:?--kill needs seconds}; shift ;;
    -*) echo "bench_sweep_check.sh: unknown option $1" >&2; exit 2 ;;
    *) bins+=("$1") ;;
  esac
  shift
done
[[ ${#bins[@]} -ge 1 ]] || { echo "$usage" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
memory='"none", 2, 4, 6, 8, 10, 12, 14, 16, 18'
nmicros='1, 2, 3, 4, 5, 6, 7, 8'
nbig=$(seq -s, 16 16 320)
nbase=$(seq -s, 1 200)
cat >"$tmp/spec.json" <<JSON
{"format": "tessel-sweep/1", "name": "big",
 "grid": [{"placements": ["vshape", "xshape", "mshape", "kshape", "nnshape"], "ndevs": [4, 8],
           "infer": [false, true], "memory": [$memory], "nmicros": [$nmicros],
           "methods": ["lazy", "fast"], "micro_batches": [$nbig]},
          {"placements": ["vshape"], "ndevs": [2, 3, 4, 5, 6, 7, 8], "infer": [false, true],
           "methods": ["gpipe", "1f1b"], "micro_batches": [$nbase]}]}
JSON
# seconds DESCRIPTION COMMAND...: one timed run, its exit code, its wall seconds
seconds() {
  local what=$1 t0 t1 rc
  shift
  t0=$(date +%s.%N)
  timeout "$kill" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
  rc=$?
  t1=$(date +%s.%N)
  awk -v w="$what" -v rc="$rc" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-40s exit %3d  %8.2f s\n", w, rc, b - a }'
}
for bin in "${bins[@]}"; do
  echo "== $bin"
  seconds "sweep --dry-run (69,600 points)" "$bin" sweep "$tmp/spec.json" --dry-run
  cp "$tmp/stdout" "$tmp/ids"
  echo "   $(wc -l <"$tmp/ids") ids listed"
  rm -rf "$tmp/out"
  mkdir "$tmp/out"
  awk '{printf "{\"id\": \"%s\", \"status\": \"ok\"}\n", $0}' "$tmp/ids" >"$tmp/out/results.jsonl"
  seconds "sweep --resume, every point recorded" "$bin" sweep "$tmp/spec.json" -o "$tmp/out" \
    --resume --quiet
done
