#!/usr/bin/env bash
# tessel plan's Megatron-LM arguments and torchtitan configuration against the frameworks' own
# argument rules (tests/cli/plan_launch.py), and the launch lines printed for the best plan.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1; tests=$2
models="$tests/../models"
if ! "$tessel" search --placement vshape --ndevs 2 --memory none >/dev/null 2>&1; then
  skip_all "no solver in this build"
fi
python3 "$tests/cli/plan_launch.py" "$tessel" "$models"
check_status $? "every plan's launch follows Megatron-LM's and torchtitan's argument rules"
out=$("$tessel" plan --models-dir "$models" --model llama3-8b --hardware h100-80gb --gpus 16 \
  --global-batch 64 --search-top 0 --top 1)
check_rc "plan prints" 0 $?
[[ $out == *"Megatron-LM: --num-layers 32 --seq-length 8192 --tensor-model-parallel-size"* ]]
check_status $? "the best plan's Megatron-LM arguments printed" "$out"
[[ $out == *"torchtitan"* ]]; check_status $? "the best plan's torchtitan line printed"
harness_end
