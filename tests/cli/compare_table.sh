#!/usr/bin/env bash
# compare's table is for people: on more than 12 devices its peak memory column shows the first 8
# and the last 4 devices with ".." between, and a line under the table says which; --csv gives
# every device. On 8 devices the column holds them all and no such line is printed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1

out=$("$tessel" compare --placement nnshape --ndevs 32 --memory 34 -n 32 --methods gpipe,1f1b 2>&1)
row=$(grep '^[* ] 1f1b ' <<<"$out")
check_eq "32 devices: 1f1b's peak memory, first 8 .. last 4" \
  "32 32 31 30 29 28 27 26 .. 4 3 2 1" "$(sed -E 's/^.*%  +//; s/ +yes .*$//' <<<"$row")"
check "32 devices: the line under the table names the devices shown" \
  grep -qx 'peak memory: devices 0-7 and 28-31 of 32 (--csv gives every device)' <<<"$out"
longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' <<<"$out")
check "32 devices: no line wider than 120 characters (got $longest)" test "$longest" -le 120

csv=$("$tessel" compare --placement nnshape --ndevs 32 --memory 34 -n 32 --methods 1f1b --csv 2>&1)
peaks=$(python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(len(r[0]["peak_memory"].split()))' <<<"$csv")
check_eq "32 devices: --csv gives every device's peak" 32 "$peaks"

out=$("$tessel" compare --placement nnshape --ndevs 8 --memory 10 -n 16 --methods 1f1b 2>&1)
row=$(grep '^[* ] 1f1b ' <<<"$out")
check_eq "8 devices: every device's peak" "9 8 7 6 4 3 2 1" \
  "$(sed -E 's/^.*%  +//; s/ +yes .*$//' <<<"$row")"
check "8 devices: no line about the devices shown" bash -c '! grep -q "^peak memory: devices" <<<"$1"' _ "$out"

harness_end
