#!/usr/bin/env bash
# The Tessel authors' setups by hand arithmetic, and paper_eval.py's refusal to print a number
# for a failed plan (tests/cli/paper_setups.py).
set -u
tessel=$1; tests=$2
python3 "$tests/cli/paper_setups.py" "$tessel" "$tests/../models"
