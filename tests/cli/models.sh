#!/usr/bin/env bash
# tessel model and tessel placement --model: the per-layer table, the issue's three derived
# placements searched within their derived capacity, and the refusals (exit code and message).
set -u
tessel=$1; tests=$2
models="$tests/../models"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check DESCRIPTION EXPECTED_RC ACTUAL_RC
  if [[ $2 -ne $3 ]]; then echo "FAIL ($3 != $2): $1"; fail=1; fi
}
json_get() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j$2)" "$1"; }
t() { "$tessel" "$@" --models-dir "$models"; }

t model >"$tmp/list"; check "model list" 0 $?
grep -q "gpt3-175b" "$tmp/list" && grep -q "h200-141gb" "$tmp/list" || { echo "FAIL: list"; fail=1; }
t model gpt3-175b --json >"$tmp/m.json"; check "model json" 0 $?
[[ $(json_get "$tmp/m.json" "['params']/175e9 > 0.99 and j['params']/175e9 < 1.01") == True ]] ||
  { echo "FAIL: 175B parameter count"; fail=1; }
[[ $(json_get "$tmp/m.json" "['layers'].__len__()") == 98 ]] || { echo "FAIL: 98 layers"; fail=1; }
t model gpt3-13b --hardware h100-80gb --micro-batch-size 2 >"$tmp/m.txt"; check "model table" 0 $?
grep -q "fwd ms" "$tmp/m.txt" || { echo "FAIL: no time columns"; fail=1; }

solver=1
"$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1 || solver=0
derive() { # derive NAME ARGS...: writes $tmp/NAME.json and $tmp/NAME.info
  local name=$1; shift
  t placement "$@" -o "$tmp/$name.json" --json >"$tmp/$name.info"
  check "placement $name" 0 $?
  if [[ $solver == 1 ]]; then
    local cap; cap=$(json_get "$tmp/$name.info" "['capacity']")
    "$tessel" search "$tmp/$name.json" --memory "$cap" --method modulo --micro-batches 32 \
      --time-limit 20 --json -o "$tmp/$name.sched" >"$tmp/$name.out"
    check "search $name" 0 $?
    [[ $(json_get "$tmp/$name.out" "['peak_memory'] and max(j['peak_memory']) <= $cap") == True ]] ||
      { echo "FAIL: $name peak memory above $cap"; fail=1; }
    "$tessel" validate "$tmp/$name.sched" >/dev/null; check "validate $name" 0 $?
  fi
}
derive g13 --model gpt3-13b --hardware a100-80gb --gpus 8 --strategy 1f1b
derive g175 --model gpt3-175b --hardware a100-80gb --gpus 64 --tensor-parallel 8 --strategy 1f1b
derive mt5 --model mt5 --hardware a100-80gb --gpus 8 --strategy mshape
if [[ $solver == 1 ]]; then # the capacity stated in the file is the search's default
  "$tessel" search "$tmp/g13.json" --method modulo --micro-batches 16 --json >"$tmp/cap.out"
  check "search with the file's capacity" 0 $?
  [[ $(json_get "$tmp/cap.out" "['memory']") == $(json_get "$tmp/g13.info" "['capacity']") ]] ||
    { echo "FAIL: search did not take the file's capacity"; fail=1; }
fi
[[ $(json_get "$tmp/g13.json" "['capacity']") == $(json_get "$tmp/g13.info" "['capacity']") ]] ||
  { echo "FAIL: capacity not in the placement file"; fail=1; }
[[ $(json_get "$tmp/g13.json" "['units']['memory_bytes'].__len__()") == 8 ]] ||
  { echo "FAIL: memory units per GPU not in the placement file"; fail=1; }
[[ $(json_get "$tmp/g175.info" "['stages']") == 8 ]] || { echo "FAIL: 175B stages"; fail=1; }
[[ $(json_get "$tmp/g175.json" "['ndevs']") == 64 ]] || { echo "FAIL: 175B ndevs"; fail=1; }
[[ $(json_get "$tmp/g175.json" "['blocks'][0]['devices']") == "[0, 1, 2, 3, 4, 5, 6, 7]" ]] ||
  { echo "FAIL: 175B stage 0 spans devices 0-7"; fail=1; }
derive tp --model gpt3-1.3b --hardware h100-80gb --gpus 4 --strategy terapipe --slices 3
[[ $(json_get "$tmp/tp.info" "['slice_tokens'].__len__() <= 3 and sum(j['slice_tokens'])") == 2048 ]] ||
  { echo "FAIL: terapipe slices"; fail=1; }

refuse() { # refuse RC NEEDLE ARGS...
  local rc=$1 needle=$2; shift 2
  err=$(t placement "$@" -o "$tmp/r.json" 2>&1 >/dev/null); check "refuse $*" "$rc" $?
  [[ "$err" == *"$needle"* ]] || { echo "FAIL (message): $*"; echo "  expected: $needle"; echo "  got: $err"; fail=1; }
  [[ "$err" == *"Sanitizer"* || "$err" == *"runtime error"* ]] && { echo "FAIL (sanitizer): $*"; fail=1; }
}
refuse 1 "does not fit" --model gpt3-175b --hardware a100-80gb --gpus 8 --strategy 1f1b
refuse 1 "GB" --model gpt3-175b --hardware a100-80gb --gpus 8 --strategy 1f1b
refuse 2 "does not apply to model 'gpt3-13b'" --model gpt3-13b --hardware a100-80gb --gpus 8 --strategy kshape
refuse 2 "unknown strategy" --model gpt3-13b --hardware a100-80gb --gpus 8 --strategy vshape
refuse 1 "micro-batch" --model gpt3-13b --hardware a100-80gb --gpus 8 --strategy 1f1b --micro-batch-size 32
refuse 2 "malformed JSON" --model "$tests/bad/model_syntax.json" --hardware a100-80gb --gpus 8 --strategy 1f1b
refuse 2 "unknown section kind" --model "$tests/bad/model_kind.json" --hardware a100-80gb --gpus 8 --strategy 1f1b
refuse 2 "no-such-gpu" --model gpt3-13b --hardware no-such-gpu --gpus 8 --strategy 1f1b
refuse 2 "required" --model gpt3-13b --gpus 8 --strategy 1f1b
refuse 2 "--gpus" --model gpt3-13b --hardware a100-80gb --gpus 0 --strategy 1f1b
err=$(t model no-such-model 2>&1 >/dev/null); check "unknown model" 2 $?
exit $fail
