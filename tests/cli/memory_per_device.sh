#!/usr/bin/env bash
# A capacity per device (--memory M0,M1,..., a placement file's "capacity" list): every method
# keeps each device within its own capacity, the bound takes each device's, a list of the wrong
# length is refused. The fixture is an uneven 6-stage pipeline: the first stage keeps 2 units
# per micro-batch in flight, the others 1, and the last stage is the slowest (load 8).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
pl=$tests/fixtures/uneven6_placement.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$tessel" search --help >/dev/null 2>&1; then
  skip_all "this build has no solver"
fi

# Prints the Python expression $1 of the JSON object j on stdin.
py() { python3 -c "import json, sys; j = json.load(sys.stdin); print($1)"; }

# Each device's peak within its own capacity, and above the smallest capacity somewhere (so the
# capacities were not pulled down to one): the summary of `tessel search --json` on stdin.
within='all(p <= c for p, c in zip(j["peak_memory"], j["memory"])) and max(j["peak_memory"]) > min(j["memory"])'

# --- every method, and the folded searches, within 9,3,3,3,3,3
for m in lazy fast full modulo auto lazy/2 fast/2 modulo/2; do
  meth=${m%/*}; extra=()
  [[ $m == */2 ]] && extra=(--per-period 2)
  out=$("$tessel" search "$pl" --memory 9,3,3,3,3,3 --method "$meth" "${extra[@]}" -n 16 \
    --time-limit 10 --json -o "$tmp/s.json" 2>"$tmp/err")
  check_rc "$m: found" 0 $?
  check_eq "$m: each device within its own capacity" True "$(py "$within" <<<"$out")"
  check_eq "$m: the schedule file keeps the capacities" "[9, 3, 3, 3, 3, 3]" \
    "$(json_get "$tmp/s.json" "['memory']")"
  "$tessel" validate -q "$tmp/s.json"
  check_status $? "$m: the schedule validates against them"
done

# --- at the lower bound: --memory 9 meets it with peaks 8 4 4 4 3 1, so 9,4,4,4,4,4 has a
# schedule there too; 4 for every device does not
out=$("$tessel" search "$pl" --memory 9,4,4,4,4,4 --method auto -n 32 --time-limit 20 --json)
check_rc "auto at 9,4,4,4,4,4" 0 $?
check_eq "auto at 9,4,4,4,4,4 meets the bound" "271 271 True" \
  "$(py "'%d %d %s' % (j['makespan'], j['lower_bound'], j['optimal'])" <<<"$out")"
check_eq "auto at 9,4,4,4,4,4 within each capacity" True \
  "$(py 'all(p <= c for p, c in zip(j["peak_memory"], j["memory"]))' <<<"$out")"
out=$("$tessel" search "$pl" --memory 4 --method auto -n 32 --time-limit 5 --json)
check_eq "4 on every device is far longer" True "$(py "j['makespan'] > 300" <<<"$out")"

# --- the bound takes each device's capacity
b() { "$tessel" bound "$pl" -n 32 --memory "$1" --json | py "$2"; }
check_eq "bound at 9,4,4,4,4,4: the load" "271 load" "$(b 9,4,4,4,4,4 "'%d %s' % (j['lower_bound'], j['binding'])")"
check_eq "bound at 4: the memory of device 0" "368 memory 0" \
  "$(b 4 "'%d %s %d' % (j['lower_bound'], j['binding'], j['binding_device'])")"
check_eq "bound at 4,9,9,9,9,9: device 0's capacity binds" "368 0" \
  "$(b 4,9,9,9,9,9 "'%d %d' % (j['lower_bound'], j['binding_device'])")"
check_eq "bound --json echoes the list" "[4, 9, 9, 9, 9, 9]" "$(b 4,9,9,9,9,9 "j['memory']")"

# --- a list of the wrong length: exit 2 with one line naming the count
for cmd in search bound compare; do
  expect_rc 2 "2 capacities for 6 devices" "$cmd" "$pl" --memory 9,9 -n 8
done
expect_rc 2 "is not a list of capacities" search "$pl" --memory 9,,4

# --- a placement file's capacity list: the search's default
python3 - "$pl" "$tmp/cap.json" "$tmp/short.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["capacity"] = [9, 4, 4, 4, 4, 4]
json.dump(p, open(sys.argv[2], "w"))
p["capacity"] = [9, 9]
json.dump(p, open(sys.argv[3], "w"))
PY
out=$("$tessel" search "$tmp/cap.json" --method fast -n 32 --json -o "$tmp/c.json")
check_rc "search takes the file's capacity list" 0 $?
check_eq "the file's capacities" "[9, 4, 4, 4, 4, 4]" "$(py "j['memory']" <<<"$out")"
check_eq "within the file's capacities" True \
  "$(py 'all(p <= c for p, c in zip(j["peak_memory"], j["memory"]))' <<<"$out")"
expect_rc 2 "short.json: field 'capacity' lists 2 capacities for 6 devices" \
  search "$tmp/short.json" --method fast
check_eq "the list is written back with the placement" "[9, 4, 4, 4, 4, 4]" \
  "$(json_get "$tmp/c.json" "['placement']['capacity']")"

# --- compare: fits judged per device, and the searches held to each device's capacity
"$tessel" compare "$pl" --memory 9,3,3,3,3,3 -n 16 --methods 1f1b,fast,auto --time-limit 5 \
  --csv >"$tmp/cmp.csv" 2>/dev/null
check_rc "compare with a list" 0 $?
check_eq "compare: 1f1b does not fit, the searches do" "1f1b:no fast:yes auto:yes" \
  "$(python3 -c "
import csv, sys
print(' '.join(r['method'] + ':' + r['fits'] for r in csv.DictReader(open(sys.argv[1]))))" "$tmp/cmp.csv")"
check_eq "compare: the capacities in the CSV" "9 3 3 3 3 3" \
  "$(python3 -c "
import csv, sys
print(next(csv.DictReader(open(sys.argv[1])))['memory'])" "$tmp/cmp.csv")"

# --- a sweep's memory axis may hold a list of one per device
# (a placement file of a spec is found from the spec's folder: give it whole)
abs_pl=$(cd "$(dirname "$pl")" && pwd)/$(basename "$pl")
cat >"$tmp/sweep.json" <<JSON
{"format": "tessel-sweep/1", "name": "caps",
 "grid": [{"placements": ["$abs_pl"], "memory": [4, [9, 3, 3, 3, 3, 3]], "methods": ["fast"],
           "micro_batches": [16]}],
 "points": [{"placement": "vshape", "ndevs": 4, "memory": [6, 4, 4, 2], "method": "fast"}]}
JSON
"$tessel" sweep "$tmp/sweep.json" --dry-run >"$tmp/ids" 2>"$tmp/err"
check_rc "sweep with capacity lists: dry run" 0 $?
check_eq "sweep ids name the lists" \
  "uneven6_placement-d6-train-m9_3_3_3_3_3-fast-n16 vshape-d4-train-m6_4_4_2-fast" \
  "$(grep -o '[a-z0-9_.-]*-m[0-9]*_[0-9_]*-fast[-n0-9]*' "$tmp/ids" | paste -sd' ')"
"$tessel" sweep "$tmp/sweep.json" -o "$tmp/sw" --quiet >/dev/null 2>"$tmp/err"
check_rc "sweep with capacity lists runs" 0 $?
check_eq "each point within its own capacities" "True True True" "$(python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
caps = lambda r: r['memory'] if isinstance(r['memory'], list) else [r['memory']] * r['ndevs']
print(' '.join(str(r['status'] == 'ok' and all(p <= c for p, c in zip(r['result']['peak_memory'], caps(r))))
               for r in sorted(rows, key=lambda r: r['id'])))" "$tmp/sw/results.jsonl")"
sed 's/\[9, 3, 3, 3, 3, 3\]/[9, 3]/' "$tmp/sweep.json" >"$tmp/sweep-short.json"
expect_rc 2 "memory lists 2 capacities for 6 devices" sweep "$tmp/sweep-short.json" --dry-run

harness_end
