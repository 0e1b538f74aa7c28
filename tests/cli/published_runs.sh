#!/usr/bin/env bash
# The cost model against the published runs of models/README.md: each prediction for the
# published configuration within 20 % of the published TFLOP/s per GPU, and tessel plan's own
# best plan predicted at least as fast (tests/cli/published_runs.py prints the table).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1; then
  skip_all "no solver in this build"
fi
python3 "$tests/cli/published_runs.py" "$tessel" "$tests/../models" "$tmp"
check_status $? "published runs within 20 % and tessel's best at least as fast"
harness_end
