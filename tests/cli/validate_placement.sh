#!/usr/bin/env bash
# A command checks a placement file (issue 43: validate wanted a schedule, placement FILE asked for
# --ndevs): `tessel validate PLACEMENT` checks it as every command reads it and prints its
# figures (exit 0), refuses a bad one naming the problem (exit 2, as tests/bad/cases.tsv checks),
# and `tessel placement FILE` points to it.
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures
out=$("$tessel" validate "$fix/two_tower6.json" 2>&1)
check_status $? "a good placement file" "$out"
grep -q "a valid placement ('two_tower6': 6 devices, 12 blocks, 11 edges" <<<"$out"
check_status $? "its figures" "$out"
out=$("$tessel" validate "$fix/vshape4_1f1b.json" 2>&1)
grep -q "valid (5 micro-batches" <<<"$out"; check_status $? "a schedule file as before" "$out"
harness_end
