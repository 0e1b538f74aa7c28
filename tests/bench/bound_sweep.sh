#!/usr/bin/env bash
# The bound terms' big sweep (issue 47): tests/solver/test_bound_exclusive and test_bound_cross
# run with --sweep, each exact search at 2e7 Z3 resource units, 100 times the tests' own. On a
# 2-core machine that took 18 and 6 minutes as tests; here it proves more optima (exclusive: 144
# of 160 cases against the test's 125; cross: 298 of 300 against 247), so that a bound term above
# an optimum only a long proof reaches shows here. It fails as the tests do, and ends with one
# SUMMARY line of their counts.
# CTest runs it as bench/bound_sweep (label bench; CI does not run it).
#   usage: tests/bench/bound_sweep.sh TEST_BOUND_EXCLUSIVE TEST_BOUND_CROSS
set -u
[[ $# -ge 1 ]] || { echo "usage: bound_sweep.sh TEST_BINARY..." >&2; exit 2; }
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
status=0; counts=()
for bin in "$@"; do
  start=$SECONDS
  "$bin" --sweep 2>&1 | tee "$tmp"
  rc=${PIPESTATUS[0]}
  # the test's own line of counts: "exclusive: 160 cases, exact effort ...: computed ..."
  line=$(grep -E '^[a-z]+: [0-9]+ cases' "$tmp" | tail -n 1)
  counts+=("${line:-$(basename "$bin"): no counts}, exit $rc, $((SECONDS - start)) s;")
  [[ $rc -eq 0 ]] || status=1
done
echo "SUMMARY bound sweep: ${counts[*]}"
exit $status
