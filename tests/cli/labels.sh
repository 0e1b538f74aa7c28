#!/usr/bin/env bash
# A claim's words come from what proved it (issue 43): `optimal (meets the lower bound)` only when
# the makespan meets the bound, `optimal (the exact search refuted every shorter schedule)` when
# the exact search proved it above the bound (exact_tiny3 at memory 2, N 8: 97 against a bound of
# 90), in the text, in --json (optimal_by) and in compare's status; and a repetend without a
# bubble is not "period not proven minimal" (the quick start: vshape on 4 devices at memory 4).
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"

out=$("$tessel" search "$fix/exact_tiny3.json" --memory 2 -n 8 --time-limit 5 2>&1)
check_status $? "search exact_tiny3" "$out"
grep -q "makespan 97, lower bound 90" <<<"$out"; check_status $? "above the bound" "$out"
grep -q "optimal (the exact search refuted every shorter schedule)" <<<"$out"
check_status $? "the proof named: the exact search" "$out"
! grep -q "meets the lower bound" <<<"$out"; check_status $? "no claim of meeting the bound" "$out"
by=$("$tessel" search "$fix/exact_tiny3.json" --memory 2 -n 8 --time-limit 5 --json | get '["optimal_by"]')
check_eq "--json optimal_by" "the exact search refuted every shorter schedule" "$by"
by=$("$tessel" search "$fix/exact_tiny3.json" --memory 3 -n 8 --time-limit 5 --json | get '["optimal_by"]')
check_eq "--json optimal_by at the bound" "meets the lower bound" "$by"
row=$("$tessel" compare "$fix/exact_tiny3.json" --memory 2 -n 8 --time-limit 5 --methods auto --csv |
  python3 -c "import csv,sys; print([r['status'] for r in csv.DictReader(sys.stdin) if r['method']=='auto'][0])")
grep -q "the exact search refuted" <<<"$row"; check_status $? "compare's status names the proof" "$row"

out=$("$tessel" search --placement vshape --ndevs 4 --memory 4 2>&1)
grep -q "no bubble in the period" <<<"$out"; check_status $? "the quick start's period" "$out"
! grep -q "period not proven minimal" <<<"$out"; check_status $? "no doubt at 0 bubbles" "$out"
harness_end
