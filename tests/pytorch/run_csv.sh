#!/usr/bin/env bash
# Exports 1F1B, ZB-H1, ZB-V and a searched schedule on 4 devices as PyTorch's pipelining CSV and
# runs each with torch.distributed.pipelining (run_csv.py). Exit 77 (skipped) without PyTorch
# >= 2.5, as on Debian, which ships 1.13.
set -u
tessel=$1
here=$(cd "$(dirname "$0")" && pwd)
python3 - <<'PY' || exit 77
import re, sys
try:
    import torch
except ImportError:
    sys.exit(1)
sys.exit(0 if tuple(int(x) for x in re.findall(r"\d+", torch.__version__)[:2]) >= (2, 5) else 1)
PY
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() { # name, extra export arguments: exports $tmp/$name.json and runs the CSV
  local name=$1; shift
  "$tessel" export --pytorch "$tmp/$name.json" "$@" -o "$tmp/$name.csv" &&
    python3 "$here/run_csv.py" "$tmp/$name.csv" || { echo "FAIL: $name"; fail=1; }
}
"$tessel" baseline 1f1b --placement vshape --ndevs 4 -n 8 -o "$tmp/1f1b.json" >/dev/null
run 1f1b
"$tessel" baseline zb-h1 --placement vshape_zb --ndevs 4 -n 8 -o "$tmp/zb-h1.json" >/dev/null
run zb-h1
"$tessel" baseline zb-v --placement vshape_v_zb --ndevs 4 -n 8 -o "$tmp/zb-v.json" >/dev/null
run zb-v
if "$tessel" search --placement vshape --ndevs 4 --memory 3 -n 8 -o "$tmp/s.json" >/dev/null 2>&1
then
  run s
fi
exit $fail
