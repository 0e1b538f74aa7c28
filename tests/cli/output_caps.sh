#!/usr/bin/env bash
# trace and export --python on long unrolls, and validate -n below the file's count (issue 29):
#  - trace streams: -n 30000 of vshape4 (240,000 slices, 39 MB) stays under 250 MB of peak memory
#    (it took 486 MB at -n 30000 and 1.64 GB at -n 100000 when the trace was built whole), and
#    the streamed file holds every slice;
#  - trace and export --python refuse above their caps (2^24 slices, 2^22 instances) with one
#    line and exit 2, at once and without writing anything; below it the export imports back;
#  - validate -n N below the file's micro-batch count judges its first N only: a file whose last
#    micro-batch is broken is invalid whole and valid at -n 4.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tests=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sched=$tests/fixtures/vshape4_1f1b.json

# Peak resident memory (MB) and exit code of a command, stdout and stderr to $tmp/out, $tmp/err.
# ASan's quarantine of freed memory would count as the command's own: it is kept small here.
peak() {
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8 python3 - "$@" <<'PY'
import os, sys
pid = os.fork()
if pid == 0:
    out = os.open(os.environ["TMPOUT"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    err = os.open(os.environ["TMPERR"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.execv(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print(ru.ru_maxrss // 1024, os.waitstatus_to_exitcode(status))
PY
}
export TMPOUT=$tmp/out TMPERR=$tmp/err

# 1. trace streams.
read -r mb rc < <(peak "$tessel" trace "$sched" -n 30000 -o "$tmp/t.json")
echo "trace -n 30000: exit $rc, peak $mb MB, $(($(stat -c %s "$tmp/t.json") / 1000000)) MB written"
check_rc "trace -n 30000 ($(head -c 200 "$tmp/err"))" 0 "$rc"
[ "$mb" -lt 250 ]
check_status $? "trace -n 30000 under 250 MB" "it took $mb MB (the trace is held in memory)"
python3 - "$tmp/t.json" >"$tmp/py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
slices = [e for e in ev if e["ph"] == "X"]
if d.get("displayTimeUnit") != "ms" or len(slices) != 30000 * 8 or ev[0]["name"] != "process_name":
    print("%d slices, unit %s" % (len(slices), d.get("displayTimeUnit")))
    sys.exit(1)
if {e["args"]["micro"] for e in slices} != set(range(30000)):
    print("the micro-batches are not 0..29999")
    sys.exit(1)
PY
check_status $? "the streamed trace holds every slice" "$(cat "$tmp/py")"

# 2. The caps: one line, exit 2, nothing written, no time spent unrolling.
capped() { # what expected-words command...
  local what=$1 words=$2
  shift 2
  rm -f "$tmp/o.json"
  local rc
  timeout 20 "$tessel" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  check_rc "$what ($(head -c 200 "$tmp/err"))" 2 "$rc"
  [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$words" "$tmp/err"
  check_status $? "$what: one line naming the cap" "$(cat "$tmp/err")"
  [ ! -e "$tmp/o.json" ]
  check_status $? "$what: nothing written"
  echo "$what: $(cat "$tmp/err")"
}
capped "trace -n 1000000 of 24 slices a micro-batch" "more than the limit of 16777216 (2^24)" \
  trace "$tests/fixtures/runtime_mllm.json" -n 1000000 -o "$tmp/o.json"
capped "export --python -n 1000000" "more than the limit of 4194304 (2^22)" \
  export --python "$sched" -n 1000000 -o "$tmp/o.json"
# Below the cap the export is written block by block, and imports back.
timeout 60 "$tessel" export --python "$sched" -n 20000 -o "$tmp/py.json" 2>"$tmp/err"
check_status $? "export --python -n 20000" "$(cat "$tmp/err")"
timeout 60 "$tessel" import "$tmp/py.json" --placement vshape --ndevs 4 -o "$tmp/back.json" \
  2>"$tmp/err"
check_status $? "import of the streamed export" "$(cat "$tmp/err")"

# 3. validate -n below the count: the last micro-batch broken (its entries moved onto step 0; the
# repetend, which they would no longer fit, left out).
python3 - "$sched" "$tmp/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["repetend"]
last = d["nmicros"] - 1
for e in d["entries"]:
    if e["micro"] == last:
        e["step"] = 0
json.dump(d, open(sys.argv[2], "w"))
PY
expect_rc 1 "invalid: exclusivity" validate "$tmp/broken.json"
n=$(json_get "$sched" '["nmicros"] - 1')
"$tessel" validate "$tmp/broken.json" -n "$n" >"$tmp/out" 2>"$tmp/err"
check_status $? "validate -n $n: the first $n micro-batches are valid" "$(cat "$tmp/err")"
grep -q "valid ($n micro-batches" "$tmp/out"
check_status $? "validate -n $n says so" "$(cat "$tmp/out")"
echo "validate -n $n of a file whose micro-batch $n is broken: $(cat "$tmp/out")"
# Above the count, the file's own micro-batches are still judged first.
expect_rc 1 "invalid (in the file's micro-batches)" validate "$tmp/broken.json" -n 64
harness_end
