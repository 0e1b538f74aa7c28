#!/usr/bin/env bash
# auto never loses to a row of its own `tessel compare`, continued (tests/cli/auto_rows.sh has the
# first cases and the rest of the checks): nnshape and mshape of the quality matrix, kshape on 8
# devices, xshape, a V placement at V-Half's memory and a capacity per device, two at an effort
# that cuts lazy.
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/auto_rows.inc"

auto_rows_cases <<CASES
--placement:nnshape:--ndevs:8 10 32 1e6
--placement:mshape:--ndevs:8 10 32 1e6
--placement:kshape:--ndevs:8 4 16 2e5
--placement:xshape:--ndevs:4 6 12 3e5
--placement:vshape_v_zb:--ndevs:8 20 16 3e5
FIX/uneven6_placement.json 9,4,4,4,4,4 32 3e5
CASES
harness_end
