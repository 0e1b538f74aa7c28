#!/usr/bin/env bash
# tessel plan: a small ranking (JSON and -o DIR files), the figures' relations (samples/s =
# G / iteration, MFU = TFLOP/s / peak), and bad requests (exit 2) and a request nothing fits (1).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
models="$tests/../models"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! "$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1; then
  skip_all "no solver in this build"
fi
p() { "$tessel" plan --models-dir "$models" "$@"; }

p --model gpt3-1.3b --hardware a100-80gb --gpus 4 --global-batch 16 --micro-batch-size 1 \
  --strategies 1f1b,zb,interleaved --time-limit 1 --json -o "$tmp/out" >"$tmp/p.json" 2>"$tmp/p.err"
check_rc "plan json" 0 $?
python3 - "$tmp/p.json" "$tmp/out" <<'PY'
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
check_status $? "ranking, figures and files of the plan"
for f in "$tmp"/out/*.schedule.json; do
  "$tessel" validate "$f" >/dev/null; check_rc "$(basename "$f") validates" 0 $?
done
p --model gpt3-1.3b --hardware a100-80gb --gpus 2 --global-batch 4 --micro-batch-size 1 \
  --strategies 1f1b --time-limit 1 --infer >"$tmp/i.txt"; check_rc "plan infer" 0 $?
grep -q "latency s" "$tmp/i.txt"; check_status $? "inference table has latency"

bad() { # bad RC NEEDLE ARGS...
  local rc=$1 needle=$2; shift 2
  err=$(p "$@" 2>&1 >/dev/null); check_rc "plan $*" "$rc" $?
  [[ "$err" == *"$needle"* ]]; check_status $? "message of $*" "expected: $needle" "got: $err"
}
bad 2 "not a multiple of the micro-batch" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 10 --micro-batch-size 4
bad 2 "No such file" --model no-such --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "no-such-gpu" --model gpt3-13b --hardware no-such-gpu --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "does not apply" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies kshape
bad 1 "no plan fits" --model gpt3-175b --hardware a100-40gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies 1f1b
harness_end
