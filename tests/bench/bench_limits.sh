#!/usr/bin/env bash
# Limits on huge inputs (issue 14): every method at a short time limit on two placements far
# beyond the paper's sizes, printing wall seconds, maximum resident memory and the exit code.
# The goal is that each run ends within about a second of its limit and well under 4 GB,
# answering with its best schedule so far (exit 0) or a one-line refusal (exit 2).
#   vshape4096  the built-in vshape at 4096 devices, memory D + 2
#   chain20000  a chain of 10,000 forward then 10,000 backward blocks, round-robin on 8
#               devices (generated here), memory twice the per-device activation sum
# Each run writes its schedule (-o), so that the figures include reading the input and writing
# the output. A benchmark, not a test: it prints figures and asserts nothing.
#
# Each run is killed after --kill seconds (default 30; exit 137) and runs under a 8 GB address
# space limit, so that a run that ignores its limit cannot take the machine down.
#
# usage: tests/bench/bench_limits.sh TESSEL_BINARY [--time-limit S] [--kill S] [--methods LIST]
set -u
tessel=${1:?usage: bench_limits.sh TESSEL_BINARY [--time-limit S] [--methods LIST]}
shift
limit=5; kill=30; methods="auto lazy fast full modulo"
while [[ $# -gt 0 ]]; do
  case $1 in
    --time-limit) limit=${2:?--time-limit needs seconds}; shift ;;
    --kill) kill=${2:?--kill needs seconds}; shift ;;
    --methods) methods=${2:?--methods needs a list}; shift ;;
    *) echo "bench_limits.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -x /usr/bin/time ]] || { echo "bench_limits.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

python3 "$(dirname "$0")/../chain_placement.py" "$tmp/chain20000.json" 10000 8 chain20000

# case: the placement arguments and the memory
cases="vshape4096|--placement vshape --ndevs 4096|4098
chain20000|$tmp/chain20000.json|2500"

echo "# tessel search at --time-limit $limit, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
printf '%-11s %-7s %8s %10s %4s  %s\n' case method wall_s maxrss_MB exit "stderr (first line)"
while IFS='|' read -r name args mem; do
  for m in $methods; do
    rm -f "$tmp/schedule.json"
    # shellcheck disable=SC2086
    (ulimit -v 8388608; /usr/bin/time -v -o "$tmp/time" timeout -s KILL "$kill" "$tessel" search $args --memory "$mem" --method "$m" \
      --time-limit "$limit" --json -o "$tmp/schedule.json" >"$tmp/out" 2>"$tmp/err")
    rc=$?
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
                        for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.2f", s}' "$tmp/time")
    rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$tmp/time")
    msg=$(grep -v '^Command exited' "$tmp/err" | head -n 1 | cut -c1-90)
    printf '%-11s %-7s %8s %10s %4s  %s\n' "$name" "$m" "$wall" "$rss" "$rc" "$msg"
  done
done <<<"$cases"
