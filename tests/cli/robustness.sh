#!/usr/bin/env bash
# Robustness of the views and of simulate: invalid schedules, one very late step, control
# characters in messages, and the simulator's options. Each check fails without its fix.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Runs tessel, keeping stdout, stderr and the exit code in $tmp/out, $tmp/err, $rc.
run() { timeout 60 "$tessel" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }

# --- views of an invalid schedule: drawn, the reason on stderr, exit 1
for cmd in show render trace; do
  run $cmd "$tests/bad/broken_dep.json"
  check_rc "$cmd on an invalid schedule" 1 "$rc"
  grep -q "invalid schedule: dependency" "$tmp/err"
  check_status $? "$cmd: the reason on stderr" "$(cat "$tmp/err")"
  [[ -s "$tmp/out" ]]; check_status $? "$cmd on an invalid schedule draws it"
done
run trace "$tests/bad/duplicate_instance.json"
[[ $rc -eq 1 ]] && grep -q "appears twice" "$tmp/err"
check_status $? "trace on duplicate instances" "rc $rc"

# --- one entry at step 2^31-1: show and render stay small and quick
python3 - "$tests/fixtures/vshape4_1f1b.json" "$tmp/late.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["entries"][-1]["step"] = 2147483647
json.dump(d, open(sys.argv[2], "w"))
PY
run show "$tmp/late.json"
check_status "$rc" "show of the late schedule" "exit $rc: $(cat "$tmp/err")"
size=$(wc -c <"$tmp/out")
[[ $size -lt 100000 ]]; check_status $? "show of the late schedule is small" "$size bytes"
grep -q "idle stretch" "$tmp/out"; check_status $? "show says that it left an idle stretch out"
run render "$tmp/late.json" -o "$tmp/late.svg"
check_status "$rc" "render of the late schedule" "exit $rc: $(cat "$tmp/err")"
size=$(wc -c <"$tmp/late.svg")
[[ $size -lt 2000000 ]]; check_status $? "render of the late schedule is small" "$size bytes"
run render "$tmp/late.json" -o "$tmp/late2.svg" --scale 1
[[ $rc -eq 2 ]] && grep -q "wider than" "$tmp/err"
check_status $? "render --scale 1 of the late schedule refused" "rc $rc"

# --- messages: control characters escaped, one line
run bound "$tests/bad/dup_id_control.json" -n 4
check_rc "control-character id" 2 "$rc"
[[ $(wc -l <"$tmp/err") -eq 1 ]]
check_status $? "control-character message is one line" "$(cat -A "$tmp/err")"
! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$tmp/err"
check_status $? "no raw control character in the message" "$(cat -A "$tmp/err")"
printf '{"format": "tessel-placement/1", "name": "\x01' >"$tmp/ctl.json"
run bound "$tmp/ctl.json" -n 4
[[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 ]]
check_status $? "JSON error near a control character" "rc $rc, $(cat -A "$tmp/err")"

# --- a device whose blocks free more than they allocate per micro-batch (+1 then -3): a warning
run bound "$tests/bad/memory_net_negative.json" -n 4
[[ $rc -eq 0 ]] && grep -q "warning: .*device 0: the memory of one micro-batch's blocks sums to -2" "$tmp/err"
check_status $? "negative memory sum warned" "rc $rc, $(cat "$tmp/err")"

# --- validate -n reports the cause (a broken dependency), not the duplicate it makes when unrolled
run validate "$tests/bad/moved_entry.json" -n 16
[[ $rc -eq 1 ]] && grep -q "dependency" "$tmp/err" && ! grep -q "appears twice" "$tmp/err"
check_status $? "validate -n 16 of a moved entry names the dependency" "rc $rc, $(cat "$tmp/err")"

# --- show tells mshape's S (and S') apart from F0
"$tessel" placement mshape --ndevs 4 -o "$tmp/mshape.json" &&
  "$tessel" baseline 1f1b "$tmp/mshape.json" -o "$tmp/mshape_sched.json" >/dev/null 2>&1 ||
  "$tessel" search "$tmp/mshape.json" --memory none --time-limit 5 -o "$tmp/mshape_sched.json" >/dev/null
run show "$tmp/mshape_sched.json"
grep -q "S0" "$tmp/out" && grep -q "F0" "$tmp/out"
check_status $? "show of mshape tells S from F"

# --- simulate: --comm-delay skips same-device edges; --scale scales the lower bound
"$tessel" placement vshape --ndevs 1 -o "$tmp/v1.json"
"$tessel" search "$tmp/v1.json" --memory none --time-limit 5 -o "$tmp/v1s.json" >/dev/null
mk() { "$tessel" simulate "$@" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["makespan"], d["lower_bound"])'; }
plain=$(mk "$tmp/v1s.json"); delayed=$(mk "$tmp/v1s.json" --comm-delay 5)
check_eq "--comm-delay leaves edges on one device alone" "$plain" "$delayed"
four=$(mk "$tests/fixtures/vshape4_1f1b.json"); four_d=$(mk "$tests/fixtures/vshape4_1f1b.json" --comm-delay 1)
python3 -c "import sys; a=float('$four'.split()[0]); b=float('$four_d'.split()[0]); sys.exit(0 if b > a else 1)"
check_status $? "--comm-delay delays edges between devices" "$four vs $four_d"
ids=$("$tessel" placement vshape --ndevs 4 | python3 -c 'import json,sys; print(" ".join("--scale %s=2" % b["id"] for b in json.load(sys.stdin)["blocks"]))')
# shellcheck disable=SC2086
scaled=$(mk "$tests/fixtures/vshape4_1f1b.json" $ids)
python3 -c "
import sys
m, lb = map(float, '$four'.split()); m2, lb2 = map(float, '$scaled'.split())
sys.exit(0 if abs(m2 - 2 * m) < 1e-9 and abs(lb2 - 2 * lb) < 1e-9 else 1)"
check_status $? "--scale 2 on every block doubles makespan and lower bound" "scaled $scaled, unscaled $four"

# --- --memory with a capacity per device (a search: not in a build without the solver)
if "$tessel" search --help 2>&1 | grep -q -- "--effort"; then
  run search --placement vshape --ndevs 4 --memory 8,8,8,4 --time-limit 5 -o "$tmp/mem.json"
  [[ $rc -eq 0 && ! -s "$tmp/err" ]]
  check_status $? "--memory 8,8,8,4: a capacity per device, nothing to say" \
    "rc $rc, $(cat "$tmp/err")"
  check_eq "the schedule records each device's capacity" "[8, 8, 8, 4]" \
    "$(json_get "$tmp/mem.json" "['memory']")"
  "$tessel" validate -q "$tmp/mem.json"
  check_status $? "the schedule of --memory 8,8,8,4 validates"
  run search --placement vshape --ndevs 4 --memory 8,,4
  check_rc "--memory 8,,4 refused" 2 "$rc"
fi

harness_end
