#!/usr/bin/env bash
# tessel search --json: every method prints the same set of keys (they come from one statistics
# list), and the schedule file's search record has the same keys for every method too.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if "$tessel" search --help 2>&1 | grep -q "no solver"; then
  skip_all "no solver in this build: nothing to compare"
fi
for m in lazy fast full modulo; do
  "$tessel" search --placement vshape --ndevs 2 --memory 3 --method "$m" --micro-batches 4 \
    --time-limit 20 --json -o "$tmp/$m.sched" >"$tmp/$m.json" 2>"$tmp/$m.err"
  check_status $? "--method $m" "$(cat "$tmp/$m.err")"
done
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
methods = ["lazy", "fast", "full", "modulo"]
out, rec = {}, {}
for m in methods:
    try:
        out[m] = json.load(open(os.path.join(tmp, m + ".json")))
        rec[m] = json.load(open(os.path.join(tmp, m + ".sched")))["search"]
    except Exception as exc:
        print(f"FAIL: {m}: {exc}")
        sys.exit(1)
bad = False
for name, got in (("--json", out), ("schedule search record", rec)):
    ref = set(got["lazy"])
    for m in methods:
        if got[m].get("method") != m:
            print(f"FAIL: {name} of {m} says method {got[m].get('method')!r}")
            bad = True
        if set(got[m]) != ref:
            print(f"FAIL: {name} keys of {m} differ from lazy's: "
                  f"extra {sorted(set(got[m]) - ref)}, missing {sorted(ref - set(got[m]))}")
            bad = True
# The record is what --json prints of the search: its keys are all there.
for m in methods:
    missing = set(rec[m]) - {"options"} - set(out[m])
    if missing:
        print(f"FAIL: {m}: --json lacks the record's keys {sorted(missing)}")
        bad = True
sys.exit(1 if bad else 0)
PY
check_status $? "the same keys for every method"
harness_end
