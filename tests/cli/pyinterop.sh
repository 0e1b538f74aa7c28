#!/usr/bin/env bash
# tessel import / export --python against the Python Tessel's real output (tests/fixtures/pytessel):
# every saved schedule imports and validates, its planned makespan is the reference's own unroll's
# and its replay the reference's schedule replayed as early as possible (expected.tsv, measured
# by running the reference); look-alike gids are resolved by the dependencies; a broken file is
# refused naming the dependency; every built-in at 4 devices survives export and import unchanged.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
fix=$2/fixtures/pytessel
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# same_schedule A B: the same instances at the same steps, and the same repetend
same_schedule() {
  python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda s: sorted((e['block'], e['micro'], e['step']) for e in s['entries'])
sys.exit(0 if key(a) == key(b) and a.get('repetend') == b.get('repetend') else 1)
PY
}

# 1. every fixture at every N the reference was measured at, and the usual path at 128
while IFS=$'\t' read -r file placement mode k memory n ref_plan ref_replay; do
  [[ $file == \#* ]] && continue
  infer=(); [[ $mode == infer ]] && infer=(--infer)
  what="$file at N=$n"
  "$tessel" import "$fix/$file" --placement "$placement" --ndevs 4 "${infer[@]}" -n "$n" \
    -o "$tmp/at.json" 2>"$tmp/err"
  check_rc "import $what" 0 $?
  "$tessel" validate "$tmp/at.json" >/dev/null; check_rc "validate $what" 0 $?
  "$tessel" simulate "$tmp/at.json" --json >"$tmp/sim.json"; check_rc "simulate $what" 0 $?
  read -r plan replay < <(json_get "$tmp/sim.json" "['planned_makespan'], j['makespan']")
  check_eq "$what planned makespan is the reference's" "$ref_plan" "$plan"
  check_eq "$what replayed makespan is the reference's" "$ref_replay.0" "$replay"
  if [[ $n == 128 ]]; then
    "$tessel" import "$fix/$file" --placement "$placement" --ndevs 4 "${infer[@]}" --memory "$memory" \
      -o "$tmp/d.json"
    check_rc "import $file (default, memory $memory)" 0 $?
    "$tessel" validate "$tmp/d.json" --micro-batches 128 >/dev/null; check_rc "validate $file at 128" 0 $?
    "$tessel" simulate "$tmp/d.json" --micro-batches 128 --json >"$tmp/sim.json"
    plan=$(json_get "$tmp/sim.json" "['planned_makespan']")
    check_eq "$file unrolled to 128: the reference's makespan" "$ref_plan" "$plan"
    [[ $(json_get "$tmp/d.json" "['repetend']['period']") -ge 1 ]]; check_status $? "$file repetend"
  fi
done <"$fix/expected.tsv"

# 2. look-alike gids numbered against the reference's order: the dependencies still decide
python3 - "$fix/xshape_train.json" "$tmp/swapped.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
swap = {0: 7, 7: 0, 1: 6, 6: 1}  # forward blocks of span 1 and memory 1 on devices 0 and 3
for b in j['blocks']:
    b['gid'] = swap.get(b['gid'], b['gid'])
json.dump(j, open(sys.argv[2], 'w'))
PY
"$tessel" import "$fix/xshape_train.json" --placement xshape --ndevs 4 -o "$tmp/x.json"
check_rc "import xshape" 0 $?
"$tessel" import "$tmp/swapped.json" --placement xshape --ndevs 4 -o "$tmp/xs.json"
check_rc "import xshape with swapped look-alike gids" 0 $?
check "swapped gids keep the schedule" same_schedule "$tmp/x.json" "$tmp/xs.json"

# 3. a moved block: B2 of micro-batch 1 (gid 5) three steps early, before B3/1 (gid 4) is done
python3 - "$fix/vshape_train.json" "$tmp/moved.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for b in j['blocks']:
    if b['gid'] == 5 and b['mid'] == 1:
        b['step'] -= 3
json.dump(j, open(sys.argv[2], 'w'))
PY
"$tessel" import "$tmp/moved.json" --placement vshape --ndevs 4 -o "$tmp/m.json" 2>"$tmp/err"
check_rc "moved block refused" 1 $?
grep -q "B2/1 (gid 5" "$tmp/err" && grep -q "B3/1 (gid 4" "$tmp/err"
check_status $? "moved block: the broken dependency is named" "$(cat "$tmp/err")"
[[ ! -e $tmp/m.json ]]; check_status $? "moved block: no schedule written"
# a memory capacity the schedule exceeds: not valid, exit 1
"$tessel" import "$fix/vshape_train.json" --placement vshape --ndevs 4 --memory 2 -o "$tmp/m.json" \
  2>"$tmp/err"
check_rc "memory 2 refused" 1 $?
grep -q "memory" "$tmp/err"; check_status $? "memory refusal names the memory" "$(cat "$tmp/err")"

# 4. export then import: unchanged, for every built-in at 4 devices (searched schedules, when
# the solver is built), and at an unrolled count
if "$tessel" search --placement vshape --ndevs 4 --memory none --method modulo -o "$tmp/s.json" \
     >/dev/null 2>&1; then
  for name in $("$tessel" placements | awk 'NR > 1 { print $1 }'); do
    for method in modulo fast; do
      what="$name ($method)"
      "$tessel" search --placement "$name" --ndevs 4 --memory none --method $method \
        --time-limit 20 -o "$tmp/s.json" >/dev/null 2>"$tmp/err"
      check_rc "search $what" 0 $?
      "$tessel" export --python "$tmp/s.json" -o "$tmp/py.json" 2>"$tmp/err"
      check_rc "export $what" 0 $?
      "$tessel" import "$tmp/py.json" --placement "$name" --ndevs 4 -o "$tmp/back.json" 2>"$tmp/err"
      check_rc "import exported $what" 0 $?
      check "round trip keeps $what" same_schedule "$tmp/s.json" "$tmp/back.json"
    done
  done
  "$tessel" search --placement kshape --ndevs 4 --memory none --method modulo -o "$tmp/s.json" \
    >/dev/null
  "$tessel" export --python "$tmp/s.json" -n 12 -o "$tmp/py.json"; check_rc "export -n 12" 0 $?
  check_eq "export -n 12 holds micro-batches 0-11" 11 \
    "$(json_get "$tmp/py.json" "['blocks'][0]['mid'] * 0 + max(b['mid'] for b in j['blocks'])")"
  "$tessel" import "$tmp/py.json" --placement kshape --ndevs 4 -o "$tmp/back.json"
  check_rc "import export -n 12" 0 $?
  check_eq "-n 12 round trip" 12 "$(json_get "$tmp/back.json" "['nmicros']")"
else
  echo "note: no solver built; the export round trip of searched schedules is skipped"
fi
# export of the imported reference schedule gives the reference's unroll back
"$tessel" export --python "$tmp/d.json" -o "$tmp/py.json"; check_rc "export an imported schedule" 0 $?

# 5. bad usage and input
"$tessel" export "$fix/../vshape4_1f1b.json" >/dev/null 2>&1; check_rc "export without a format" 2 $?
"$tessel" export --python "$fix/../vshape4_1f1b_n4.json" -o "$tmp/py.json" 2>"$tmp/err"
check_rc "export of a schedule without a repetend" 2 $?
grep -q "no repetend" "$tmp/err"; check_status $? "no-repetend message" "$(cat "$tmp/err")"
"$tessel" import "$fix/vshape_train.json" --placement vshape --ndevs 4 -n 2 >/dev/null 2>&1
check_rc "import -n below the file's micro-batches" 2 $?
python3 - "$fix/vshape_train.json" "$tmp/win.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j['repetend'] = [0, 20]  # holds several instances of a block
json.dump(j, open(sys.argv[2], 'w'))
PY
"$tessel" import "$tmp/win.json" --placement vshape --ndevs 4 >/dev/null 2>"$tmp/err"
check_rc "window with a block twice" 2 $?
grep -q "exactly one" "$tmp/err"; check_status $? "window message" "$(cat "$tmp/err")"
harness_end
