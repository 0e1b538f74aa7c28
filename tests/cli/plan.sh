#!/usr/bin/env bash
# tessel plan: the ranking (JSON and -o DIR files), the figures' relations (samples/s =
# G / iteration, MFU = TFLOP/s / peak, the breakdown adding up to the iteration time, in JSON and
# in --explain), the counts of the space search, plans that fit only with ZeRO or recomputation,
# T chosen without --tensor-parallel, the same answer twice, and bad requests (exit 2) and a
# request nothing fits (1).
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
  --strategies 1f1b,zb,interleaved --tensor-parallel 1 --pipeline 2 --top 200 --search-top 3 \
  --time-limit 1 --json -o "$tmp/out" >"$tmp/p.json" 2>"$tmp/p.err"
check_rc "plan json" 0 $?
python3 - "$tmp/p.json" "$tmp/out" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1])); out = sys.argv[2]
ok = [x for x in j["plans"] if x["fits"]]
assert len(ok) >= 3, "fewer than 3 plans fit"
assert [x["iteration_s"] for x in ok] == sorted(x["iteration_s"] for x in ok), "not ranked"
assert {x["strategy"] for x in ok} == {"1f1b", "zb", "interleaved"}, {x["strategy"] for x in ok}
c = j["counts"]
assert c["space"] == c["evaluated"] + c["pruned"] + c["refused"], c
assert c["searched"] == 3, c
searched = [x for x in ok if x["searched"]]
assert len(searched) == 3, len(searched)
for x in ok:
    assert abs(x["samples_per_s"] - 16 / x["iteration_s"]) < 1e-6 * x["samples_per_s"]
    assert abs(x["mfu"] - x["tflops_per_gpu"] / 312) < 1e-9
    assert x["micro_batches"] * x["replicas"] == 16
    assert x["pipeline"] == 2 and x["tensor_parallel"] == 1
    assert 0 < x["peak_memory_gb"] <= 80
    parts = sum(x["breakdown"].values())
    assert abs(parts - x["iteration_s"]) <= 1e-9 * x["iteration_s"], (parts, x["iteration_s"])
    assert x["lower_bound_s"] <= x["iteration_s"] * (1 + 1e-9)
for x in searched:
    assert x["makespan"] >= x["lower_bound"] > 0
    assert x["iteration_s"] <= x["searched_s"] * (1 + 1e-12)
    for ext in (".placement.json", ".schedule.json", ".svg", ".trace.json"):
        assert os.path.getsize(os.path.join(out, x["name"] + ext)) > 0, x["name"] + ext
assert json.load(open(os.path.join(out, "plans.json")))["plans"] == j["plans"]
assert open(os.path.join(out, "breakdown.svg")).read().count("<rect") >= 7 * 3
PY
check_status $? "ranking, figures, counts and files of the plans"
for f in "$tmp"/out/*.schedule.json; do
  "$tessel" validate "$f" >/dev/null; check_rc "$(basename "$f") validates" 0 $?
done

# --explain: the parts printed add up to the iteration time printed (to the printed digits)
p --model gpt3-13b --hardware a100-80gb --gpus 16 --global-batch 64 --search-top 0 --explain \
  >"$tmp/x.txt"; check_rc "plan --explain" 0 $?
python3 - "$tmp/x.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read().split("\n\n")[-1]
total = float(re.search(r": ([0-9.]+) s per iteration", t).group(1))
parts = [float(m) for m in re.findall(r"^  [a-zA-Z][^\n]*?\s([0-9.]+) s\s+[0-9.]+%$", t, re.M)]
assert len(parts) == 7, parts
assert abs(sum(parts) - total) <= 4e-4, (sum(parts), total)
PY
check_status $? "--explain parts add up"

# GPT-3 13B on 16 A100-80GB: a pipeline of 2 fits with ZeRO or recomputation, not without
p --model gpt3-13b --hardware a100-80gb --gpus 16 --global-batch 64 --pipeline 2 \
  --search-top 0 --json >"$tmp/13.json"; check_rc "13B pipeline 2" 0 $?
python3 - "$tmp/13.json" <<'PY'
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["plans"] if x["fits"]]
assert ok and all(x["pipeline"] == 2 for x in ok)
assert all(x["zero"] > 0 or x["recompute"] != "none" for x in ok)
PY
check_status $? "13B pipeline-2 plans need ZeRO or recomputation"
p --model gpt3-13b --hardware a100-80gb --gpus 16 --global-batch 64 --pipeline 2 --zero 0 \
  --recompute none --tensor-parallel 1 --search-top 0 >"$tmp/13n.txt"
check_rc "13B pipeline 2 without ZeRO or recomputation fits nothing" 1 $?
grep -q "refused, over memory" "$tmp/13n.txt"; check_status $? "refusal reason printed"

# GPT-3 175B on 64 GPUs: T chosen by the search
p --model gpt3-175b --hardware a100-80gb --gpus 64 --global-batch 256 --search-top 0 \
  --json >"$tmp/175.json"; check_rc "175B on 64 without --tensor-parallel" 0 $?
python3 -c "import json,sys; x=json.load(open(sys.argv[1]))['plans'][0]; assert x['fits'] and x['tensor_parallel'] > 1, x" \
  "$tmp/175.json"; check_status $? "175B's T > 1"
p --model gpt3-175b --hardware a100-80gb --gpus 64 --global-batch 256 --search-top 0 \
  --json >"$tmp/175b.json"
cmp -s "$tmp/175.json" "$tmp/175b.json"; check_status $? "the same answer twice"

p --model gpt3-1.3b --hardware a100-80gb --gpus 2 --global-batch 4 --strategies 1f1b \
  --time-limit 1 --infer >"$tmp/i.txt"; check_rc "plan infer" 0 $?
grep -q "inference" "$tmp/i.txt"; check_status $? "inference table"

bad() { # bad RC NEEDLE ARGS...
  local rc=$1 needle=$2; shift 2
  err=$(p "$@" 2>&1 >/dev/null); check_rc "plan $*" "$rc" $?
  [[ "$err" == *"$needle"* ]]; check_status $? "message of $*" "expected: $needle" "got: $err"
  # one line of message (usage errors add the usual "Try 'tessel plan --help'." hint)
  [[ $rc != 2 || $(grep -vc "^Try 'tessel plan --help'" <<<"$err") == 1 ]]
  check_status $? "one line for $*" "got: $err"
}
bad 2 "not a multiple of the micro-batch" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 10 --micro-batch-size 4
bad 2 "No such file" --model no-such --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "no-such-gpu" --model gpt3-13b --hardware no-such-gpu --gpus 8 --global-batch 8 --micro-batch-size 1
bad 2 "does not apply" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies kshape
bad 2 "unknown value 'most'" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --recompute most
bad 2 "peak_fp8_tflops" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --precision fp8
bad 2 "not a multiple of pipeline 3" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --pipeline 3
bad 2 "--zero" --model gpt3-13b --hardware a100-80gb --gpus 8 --global-batch 8 --zero 4
bad 1 "no plan fits" --model gpt3-175b --hardware a100-40gb --gpus 8 --global-batch 8 --micro-batch-size 1 --strategies 1f1b
# issue 43: at tens of thousands of micro-batches no schedule is searched (it took minutes and
# gigabytes at --time-limit 1): the closed form stands; below the cap the best plans are searched
got=$("$tessel" plan --model gpt3-1.3b --hardware a100-40gb --gpus 8 --global-batch 80000 \
  --micro-batch-size 1 --pipeline 8 --tensor-parallel 1 --zero 0 --time-limit 1 --strategies 1f1b \
  --json | get '["counts"]["searched"]')
check_eq "no schedule search at N = 80000" 0 "$got"
got=$("$tessel" plan --model gpt3-1.3b --hardware a100-40gb --gpus 8 --global-batch 64 \
  --micro-batch-size 1 --pipeline 8 --tensor-parallel 1 --zero 0 --time-limit 1 --strategies 1f1b \
  --search-top 1 --json | get '["counts"]["searched"]')
check_eq "a schedule search at N = 64" 1 "$got"
# --seq is the sequence length (not --sequence-parallel): 4x the tokens per sample, and with
# grouped-query attention (Llama 3 8B, 8 key/value heads) T = 16 is refused for the heads
p --model llama3-8b --hardware h100-80gb --gpus 8 --global-batch 8 --tensor-parallel 8 \
  --pipeline 1 --seq 32768 --search-top 0 --top 1 --json >"$tmp/seq.json"
check_rc "plan --seq" 0 $?
p --model llama3-8b --hardware h100-80gb --gpus 8 --global-batch 8 --tensor-parallel 8 \
  --pipeline 1 --search-top 0 --top 1 --json >"$tmp/seq8k.json"
check_eq "--seq reaches the model and the JSON" "32768 8192" \
  "$(json_get "$tmp/seq.json" "['seq']") $(json_get "$tmp/seq8k.json" "['seq']")"
check_eq "32K tokens per sample take longer than 8K (more than 4x: attention)" True \
  "$(python3 -c "import json; a=json.load(open('$tmp/seq.json'))['plans'][0]; b=json.load(open('$tmp/seq8k.json'))['plans'][0]; print(a['iteration_s'] > 4 * b['iteration_s'])")"
p --model llama3-8b --hardware h100-80gb --gpus 16 --global-batch 16 --tensor-parallel 16 \
  --tp-across-nodes --search-top 0 --json >"$tmp/kv.json"
check_rc "T 16 over 8 key/value heads: nothing fits" 1 $?
grep -q "8 key/value" "$tmp/kv.json"; check_status $? "the refusal names the key/value heads"
# --attention: the profile's fused kernel (H100) against unfused attention, which stores and
# moves the score matrix: slower and larger; --precision fp8 takes MFU against the FP8 peak
for a in fused unfused; do
  p --model llama3-8b --hardware h100-80gb --gpus 8 --global-batch 8 --tensor-parallel 8 \
    --pipeline 1 --recompute none --sequence-parallel on --attention $a --search-top 0 --top 1 \
    --json >"$tmp/attn-$a.json"
  check_rc "plan --attention $a" 0 $?
done
check_eq "unfused attention: slower and more memory than fused" True \
  "$(python3 -c "import json; f=json.load(open('$tmp/attn-fused.json'))['plans'][0]; u=json.load(open('$tmp/attn-unfused.json'))['plans'][0]; print(u['iteration_s'] > f['iteration_s'] and u['peak_memory_gb'] > f['peak_memory_gb'] + 5)")"
# --attention triton: llm-foundry's Triton kernel at the profile's triton_attention_efficiency
# (H100 0.17, under fa2's 0.35): the same plan slower, and no Megatron-LM line (no such backend);
# a profile without the figure (H200: not measured) is refused, naming the field
for a in fa2 triton; do
  p --model gpt3-13b --hardware h100-80gb --gpus 16 --global-batch 64 --framework fsdp \
    --tensor-parallel 1 --pipeline 1 --zero 3 --recompute none --micro-batch-size 2 \
    --attention $a --search-top 0 --top 1 --json >"$tmp/attn-$a.json"
  check_rc "plan --attention $a" 0 $?
done
check_eq "triton attention: the same plan, lower throughput than fa2; no Megatron line" True \
  "$(python3 -c "import json; f=json.load(open('$tmp/attn-fa2.json'))['plans'][0]; t=json.load(open('$tmp/attn-triton.json'))['plans'][0]; print(f['name'] == t['name'] and t['tflops_per_gpu'] < f['tflops_per_gpu'] and t['samples_per_s'] < f['samples_per_s'] and t['launch']['megatron'] is None and 'Triton' in t['launch']['megatron_why'] and f['launch']['megatron'] is not None)")"
p --model gpt3-13b --hardware h200-141gb --gpus 16 --global-batch 64 --attention triton \
  --search-top 0 --top 1 >"$tmp/triton-h200.txt" 2>&1
check_rc "plan --attention triton on a profile without the figure" 2 $?
grep -q "h200-141gb gives no triton_attention_efficiency" "$tmp/triton-h200.txt"
check_status $? "the refusal names the profile and the missing field"
p --model llama3-8b --hardware h100-80gb --gpus 8 --global-batch 8 --precision fp8 \
  --search-top 0 --top 1 --json >"$tmp/fp8.json"
check_eq "fp8: MFU against the FP8 peak" "1979 True" \
  "$(python3 -c "import json; j=json.load(open('$tmp/fp8.json')); x=j['plans'][0]; print('%g' % j['peak_tflops'], abs(x['mfu'] - x['tflops_per_gpu'] / 1979) < 1e-9)")"
# frameworks: Megatron ranks no ZeRO-2 and no ZeRO-3 with a pipeline, FSDP no pipeline;
# context parallelism at 128K tokens and expert parallelism of Mixtral are planned
for fw in megatron fsdp deepspeed; do
  p --model gpt3-13b --hardware a100-80gb --gpus 32 --global-batch 256 --framework $fw \
    --search-top 0 --top 100 --json >"$tmp/fw-$fw.json"
  check_rc "plan --framework $fw" 0 $?
done
python3 - "$tmp" <<'PY'
import json, sys
t = sys.argv[1]
def plans(fw): return [x for x in json.load(open("%s/fw-%s.json" % (t, fw)))["plans"] if x["fits"]]
for x in plans("megatron"):
    assert x["zero"] != 2 and not (x["zero"] == 3 and x["pipeline"] > 1), x["name"]
    assert x["strategy"] in ("1f1b", "interleaved", "no-pipeline"), x["name"]
    # 40 blocks, or 42 with the embedding and the loss counted as blocks
    assert x["pipeline"] == 1 or 40 % (x["pipeline"] * x["virtual_stages"]) == 0 or 42 % (x["pipeline"] * x["virtual_stages"]) == 0, x["name"]
assert all(x["pipeline"] == 1 for x in plans("fsdp"))
assert all(x["zero"] <= 1 for x in plans("deepspeed") if x["pipeline"] > 1)
assert all(x["strategy"] in ("1f1b", "no-pipeline") for x in plans("deepspeed"))
PY
check_status $? "each framework's rules hold over its ranking"
p --model llama3-8b --hardware h100-80gb --gpus 64 --global-batch 64 --seq 131072 \
  --search-top 0 --top 1 --json >"$tmp/cp.json"
check_rc "plan at 128K tokens" 0 $?
check_eq "128K tokens: context parallelism chosen" True \
  "$(json_get "$tmp/cp.json" "['plans'][0]['context_parallel'] > 1")"
p --model mixtral-8x7b --hardware h100-80gb --gpus 64 --global-batch 256 --seq 4096 \
  --expert-parallel 8 --search-top 0 --top 1 --json >"$tmp/ep.json"
check_rc "plan --expert-parallel 8" 0 $?
check_eq "expert parallelism in the plan" 8 "$(json_get "$tmp/ep.json" "['plans'][0]['expert_parallel']")"
harness_end
