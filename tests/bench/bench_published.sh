#!/usr/bin/env bash
# The cost model against the published set (tests/fixtures/published_runs.tsv): one row per run,
# predicted against published TFLOP/s per GPU, the distribution per GPU generation and framework,
# and a SUMMARY line. usage: tests/bench/bench_published.sh [TESSEL]
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tessel=${1:-$here/../../build/bin/tessel}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 "$here/../cli/published_set.py" "$tessel" "$here/../../models" "$tmp"
