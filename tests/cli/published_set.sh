#!/usr/bin/env bash
# The cost model at every run of tests/fixtures/published_runs.tsv (issue 45): each expressible,
# and the share within +-15 % of the published throughput not below the floor of
# tests/cli/published_set.py (which prints the table and the SUMMARY line).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1; then
  skip_all "no solver in this build"
fi
python3 "$tests/cli/published_set.py" "$tessel" "$tests/../models" "$tmp" --check
check_status $? "every published run expressible, and the share within 15 % held"
# the profiles' Triton-kernel efficiency is the one llm-foundry's sequence sweeps give
python3 "$tests/bench/triton_attention_slope.py" --check "$tests/../models" >/dev/null
check_status $? "triton_attention_efficiency as derived from llm-foundry's sweeps"
harness_end
