#!/usr/bin/env bash
# compare ranks a row only once it is known to be a valid schedule of the compared placement at
# the table's N (issue 43: invalid files, a file whose spans were all set to 1 and an
# 8-micro-batch file in a table at N = 16 all got the best row's *, at 0.5-0.9 of the bound):
# an invalid file's row says why and has no figures; a file of another placement (spans set to
# 1) is refused naming the block that differs; a file measured at its own N is shown but not
# ranked, without a ratio to the table's bound; a row over the memory has no ratio to the bound
# within it; the R column gives a repetend's micro-batches per period (a 4-per-33 repetend is not
# 3.7 times worse than a 1-per-9).
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tests=$2
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tessel" baseline 1f1b --placement vshape --ndevs 4 -n 8 -o "$tmp/c8.json" >/dev/null
python3 - "$tmp/c8.json" "$tmp/span1.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for b in s["placement"]["blocks"]:
    b["span"] = 1
json.dump(s, open(sys.argv[2], "w"))
PY
"$tessel" compare --placement vshape --ndevs 4 --memory 4 -n 16 --methods 1f1b,gpipe \
  --schedule dup="$tests/bad/duplicate_instance.json" --schedule short="$tmp/c8.json" \
  --time-limit 1 --csv >"$tmp/rows.csv" 2>"$tmp/err"
check_status $? "compare with files" "$(cat "$tmp/err")"
row() { python3 -c "
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r['method'] == sys.argv[2]][0]
print(r[sys.argv[3]])" "$tmp/rows.csv" "$1" "$2"; }
check_eq "an invalid file: no makespan" "" "$(row dup makespan)"
grep -q "invalid: completeness" <<<"$(row dup status)"; check_status $? "an invalid file says why" "$(row dup status)"
check_eq "a file at its own N: not the best" "" "$(row short best)"
check_eq "a file at its own N: no ratio" "" "$(row short makespan_over_lb)"
check_eq "the best is 1f1b" "yes" "$(row 1f1b best)"
check_eq "over the memory: no ratio" "" "$(row gpipe makespan_over_lb)"
check_eq "1f1b's ratio" "1.0000" "$(row 1f1b makespan_over_lb)"
"$tessel" compare --placement vshape --ndevs 4 --memory 4 -n 16 --methods 1f1b \
  --schedule span1="$tmp/span1.json" >/dev/null 2>"$tmp/err"
check_rc "spans set to 1: refused" 2 $?
grep -q "block 4 ('B3': span 1" "$tmp/err"; check_status $? "the difference named" "$(cat "$tmp/err")"
"$tessel" compare --placement vshape --ndevs 4 --memory 4 -n 16 --methods modulo --time-limit 2 \
  --csv >"$tmp/rows.csv" 2>"$tmp/err"
check_eq "R of modulo's repetend" "1" "$(row modulo per_period)"
harness_end
