#!/usr/bin/env bash
# tessel plan: a small ranking (JSON and -o DIR files), the figures' relations (samples/s =
# G / iteration, MFU = TFLOP/s / peak), and bad requests (exit 2) and a request nothing fits (1).
set -u
tessel=$1; tests=$2
models="$tests/../models"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if [[ $2 -ne $3 ]]; then echo "FAIL ($3 != $2): $1"; fail=1; fi; }
"$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1 ||
  { echo "no solver in this build: skipped"; exit 0; }
p() { "$tessel" plan --models-dir "$models" "$@"; }

p --model gpt3-1.3b --hardware a100-80gb --gpus 4 --global-batch 16 --micro-batch-size 1 \
  --strategies 1f1b,zb,interleaved --time-limit 1 --json -o "$tmp/out" >"$tmp/p.json" 2>"$tmp/p.err"
check "plan json" 0 $?
python3 - "$tmp/p.json" "$tmp/out" <<'PY' || fail=1
import json, os, sys
j = json.load(open(sys.argv[1])); out = sys.argv[2]
ok = [x for x in j["plans"] if x["fits"]]
assert len(ok) >= 3, "fewer than 3 plans fit"
assert [x["iteration_s"] for x in ok] == sorted(x["iteration_s"] for x in ok), "not ranked"
assert {x["strategy"] for x in ok} == {"1f1b", "zb", "interleaved"}
for x in ok:
    assert abs(x["samples_per_s"] - 16 / x["iteration_s"]) < 1e-6 * x["samples_per_s"]
    assert abs(x["mfu"] - x["tflops_per_gpu"] / 312) < 1e-9
    assert x["micro_batches"] * x["replicas"] == 16
    assert x["makespan"] >= x["lower_bound"] > 0
    assert 0 < x["peak_memory_gb"] <= 80
    assert abs(x["iteration_s"] - x["makespan"] * x["time_unit_s"] - x["dp_allreduce_s"]) < 1e-9
    base = os.path.join(out, "%s-p%d" % (x["strategy"], x["pipeline_gpus"]))
    for ext in (".placement.json", ".schedule.json", ".svg", ".trace.json"):
        assert os.path.getsize(base + ext) > 0, base + ext
assert json.load(open(os.path.join(out, "plans.json")))["plans"] == j["plans"]
PY
for f in "$tmp"/out/*.schedule.json; do
  "$tessel" validate "$f" >/dev/null || { echo "FAIL: $f does not validate"; fail=1; }
done
p --model gpt3-1.3b --hardware a100-80gb --gpus 2 --global-batch 4 --micro-batch-size 1 \
  --strategies 1f1b --time-limit 1 --infer >"$tmp/i.txt"; check "plan infer" 0 $?
grep -q "latency s" "$tmp/i.txt" || { echo "FAIL: inference table has no latency"; fail=1; }

bad() { # bad RC NEEDLE ARGS...
  local rc=$1 needle=$2; shift 2
  err=$(p "$@" 2>&1 >/dev/null); check "plan $*" "$rc" $?
  [[ "$err" == *"$needle"* ]] || { echo "FAIL (message): $*"; echo "  got: $err"; fail=1; }
}
bad 2 "not a multiple of the micro-batch" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 10 --micro-batch-size 4
bad 2 "No such file" --model no-such --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "no-such-gpu" --model gpt3-13b --hardware no-such-gpu --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "does not apply" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies kshape
bad 1 "no plan fits" --model gpt3-175b --hardware a100-40gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies 1f1b
exit $fail
