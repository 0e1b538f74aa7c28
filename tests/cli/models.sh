#!/usr/bin/env bash
# tessel model and tessel placement --model: the per-layer table, the issue's three derived
# placements searched within their derived capacity, and the refusals (exit code and message).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
models="$tests/../models"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t() { "$tessel" "$@" --models-dir "$models"; }

t model >"$tmp/list"; check_rc "model list" 0 $?
grep -q "gpt3-175b" "$tmp/list" && grep -q "h200-141gb" "$tmp/list"; check_status $? "list"
t model gpt3-175b --json >"$tmp/m.json"; check_rc "model json" 0 $?
check_eq "175B parameter count" True \
  "$(json_get "$tmp/m.json" "['params']/175e9 > 0.99 and j['params']/175e9 < 1.01")"
check_eq "98 layers" 98 "$(json_get "$tmp/m.json" "['layers'].__len__()")"
t model gpt3-13b --hardware h100-80gb --micro-batch-size 2 >"$tmp/m.txt"; check_rc "model table" 0 $?
grep -q "fwd ms" "$tmp/m.txt"; check_status $? "time columns"

solver=1
"$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1 || solver=0
derive() { # derive NAME ARGS...: writes $tmp/NAME.json and $tmp/NAME.info
  local name=$1; shift
  t placement "$@" -o "$tmp/$name.json" --json >"$tmp/$name.info"
  check_rc "placement $name" 0 $?
  if [[ $solver == 1 ]]; then
    local cap; cap=$(json_get "$tmp/$name.info" "['capacity']")
    "$tessel" search "$tmp/$name.json" --memory "$cap" --method modulo --micro-batches 32 \
      --time-limit 20 --json -o "$tmp/$name.sched" >"$tmp/$name.out"
    check_rc "search $name" 0 $?
    check_eq "$name peak memory within $cap" True \
      "$(json_get "$tmp/$name.out" "['peak_memory'] and max(j['peak_memory']) <= $cap")"
    "$tessel" validate "$tmp/$name.sched" >/dev/null; check_rc "validate $name" 0 $?
  fi
}
derive g13 --model gpt3-13b --hardware a100-80gb --gpus 8 --strategy 1f1b
derive g175 --model gpt3-175b --hardware a100-80gb --gpus 64 --tensor-parallel 8 --strategy 1f1b
derive mt5 --model mt5 --hardware a100-80gb --gpus 8 --strategy mshape
if [[ $solver == 1 ]]; then # the capacity stated in the file is the search's default
  "$tessel" search "$tmp/g13.json" --method modulo --micro-batches 16 --json >"$tmp/cap.out"
  check_rc "search with the file's capacity" 0 $?
  check_eq "search takes the file's capacity" "$(json_get "$tmp/g13.info" "['capacity']")" \
    "$(json_get "$tmp/cap.out" "['memory']")"
fi
check_eq "capacity in the placement file" "$(json_get "$tmp/g13.info" "['capacity']")" \
  "$(json_get "$tmp/g13.json" "['capacity']")"
check_eq "memory units per GPU in the placement file" 8 \
  "$(json_get "$tmp/g13.json" "['units']['memory_bytes'].__len__()")"
check_eq "175B stages" 8 "$(json_get "$tmp/g175.info" "['stages']")"
check_eq "175B ndevs" 64 "$(json_get "$tmp/g175.json" "['ndevs']")"
check_eq "175B stage 0 spans devices 0-7" "[0, 1, 2, 3, 4, 5, 6, 7]" \
  "$(json_get "$tmp/g175.json" "['blocks'][0]['devices']")"
derive tp --model gpt3-1.3b --hardware h100-80gb --gpus 4 --strategy terapipe --slices 3
check_eq "terapipe slices" 2048 \
  "$(json_get "$tmp/tp.info" "['slice_tokens'].__len__() <= 3 and sum(j['slice_tokens'])")"

refuse() { # refuse RC NEEDLE ARGS...
  local rc=$1 needle=$2; shift 2
  err=$(t placement "$@" -o "$tmp/r.json" 2>&1 >/dev/null); check_rc "refuse $*" "$rc" $?
  [[ "$err" == *"$needle"* ]]; check_status $? "message of $*" "expected: $needle" "got: $err"
  [[ "$err" != *"Sanitizer"* && "$err" != *"runtime error"* ]]
  check_status $? "no sanitizer report: $*" "$err"
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
t model no-such-model >/dev/null 2>&1; check_rc "unknown model" 2 $?
harness_end
