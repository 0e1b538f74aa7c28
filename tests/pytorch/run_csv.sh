#!/usr/bin/env bash
# Schedules in PyTorch for real, on 4 ranks and 8 micro-batches:
#  - ours (gpipe, 1f1b, interleaved, looped-bfs, zb-h1, zb-h2, zb-v, dualpipev) and `search
#    --method auto` on vshape, vshape_zb, vshape_v_zb and vshape_interleaved are exported with
#    `tessel export --pytorch`;
#  - the order each PyTorch built-in schedule class generates (pytorch_orders.py) is imported with
#    `tessel import --pytorch`, validated, simulated and compared with our baseline of the same
#    name in one `tessel compare --schedule` table; the test prints by how many actions and by
#    how much makespan the two differ;
#  - every CSV of both then runs under PyTorch's _PipelineScheduleRuntime (run_csv.py: gloo, 4
#    processes; loss and gradients equal to the model without a pipeline), and a CSV PyTorch's
#    validator rejects must fail there.
# Python: $TESSEL_TORCH_PYTHON, else the project's .venv (`.ci/install-deps torch`), else python3.
# Exit 77 (skipped) without PyTorch >= 2.5, unless TESSEL_REQUIRE_TORCH=1 (CI), where it fails.
set -u
tessel=$1
if ! "$tessel" search --help 2>&1 | grep -q -- "--effort"; then
  echo "no solver in this build: the test exports searched schedules"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/torch_python.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
jobs=()
N=8

# placement arguments of each placement name
pl() {
  case $1 in
  vshape_interleaved) echo "--placement vshape_interleaved --ndevs 4 --chunks 2" ;;
  vshape_interleaved_zb) echo "--placement-file $tmp/pt/vshape_interleaved_zb.json" ;;
  *) echo "--placement $1 --ndevs 4" ;;
  esac
}
# compare and search take a placement file positionally
plc() { [[ $1 == vshape_interleaved_zb ]] && echo "$tmp/pt/vshape_interleaved_zb.json" || pl "$1"; }

# ours: kind:placement
for k in gpipe:vshape 1f1b:vshape interleaved:vshape_interleaved looped-bfs:vshape_interleaved \
  zb-h1:vshape_zb zb-h2:vshape_zb zb-v:vshape_v_zb dualpipev:vshape_v_zb; do
  kind=${k%%:*} p=${k##*:}
  # shellcheck disable=SC2046
  if "$tessel" baseline "$kind" $(pl "$p") -n $N -o "$tmp/$kind.json" >/dev/null &&
    "$tessel" export --pytorch "$tmp/$kind.json" -o "$tmp/$kind.csv"; then
    jobs+=("tessel-$kind=$tmp/$kind.csv")
  else
    echo "FAIL: baseline $kind on $p"; fail=1
  fi
done
# searched: placement:memory (the memory of the baseline it is usually compared with)
for k in vshape:4 vshape_zb:8 vshape_v_zb:16 vshape_interleaved:11; do
  p=${k%%:*} m=${k##*:}
  # shellcheck disable=SC2046
  if "$tessel" search $(plc "$p") --memory "$m" --method auto -n $N --time-limit 30 \
    -o "$tmp/auto-$p.json" >/dev/null && "$tessel" validate "$tmp/auto-$p.json" -n $N >/dev/null &&
    "$tessel" export --pytorch "$tmp/auto-$p.json" -n $N -o "$tmp/auto-$p.csv"; then
    jobs+=("tessel-auto-$p=$tmp/auto-$p.csv")
  else
    echo "FAIL: search auto on $p"; fail=1
  fi
done

# PyTorch's: class:placement:our baseline of the same name (auto where there is none):how many
# actions of its order stand elsewhere in ours (PyTorch 2.15 and ours at N = 8: none)
"$py" "$here/pytorch_orders.py" "$tmp/pt" --ranks 4 -n $N || { echo "FAIL: pytorch_orders.py"; exit 1; }
# actions at the same position of the same rank in two CSVs: how many differ
differ() {
  "$py" - "$1" "$2" <<'PY'
import sys
a, b = ([l.strip().split(",") for l in open(f)] for f in sys.argv[1:3])
print(sum(x != y for ra, rb in zip(a, b) for x, y in zip(ra, rb)) +
      sum(abs(len(ra) - len(rb)) for ra, rb in zip(a, b)))
PY
}
printf '\n%-22s %-22s %-12s %9s %9s %8s\n' "PyTorch class" placement ours "makespan" "ours" "differ"
for k in GPipe:vshape:gpipe:0 1F1B:vshape:1f1b:0 Interleaved1F1B:vshape_interleaved:interleaved:0 \
  LoopedBFS:vshape_interleaved:looped-bfs:0 InterleavedZeroBubble:vshape_interleaved_zb:auto:- \
  ZBVZeroBubble:vshape_v_zb:zb-v:0 DualPipeV:vshape_v_zb:dualpipev:0; do
  IFS=: read -r cls p ours want <<<"$k"
  j=$tmp/pt/$cls.json
  # shellcheck disable=SC2046
  if ! "$tessel" import --pytorch "$tmp/pt/$cls.csv" $(pl "$p") -o "$j" >/dev/null ||
    ! "$tessel" validate "$j" >/dev/null || ! "$tessel" simulate "$j" >/dev/null; then
    echo "FAIL: PyTorch's $cls does not import, validate and simulate on $p"; fail=1; continue
  fi
  # shellcheck disable=SC2046
  "$tessel" compare $(plc "$p") --memory none -n $N --methods "$ours" --time-limit 30 \
    --schedule "$cls=$j" --csv >"$tmp/cmp.csv" || { echo "FAIL: compare $cls"; fail=1; }
  ms_pt=$(awk -F, -v m="$cls" '$5 == m {print $10}' "$tmp/cmp.csv")
  ms_ours=$(awk -F, -v m="$ours" '$5 == m {print $10}' "$tmp/cmp.csv")
  [[ -n $ms_pt && -n $ms_ours ]] || { echo "FAIL: compare rows for $cls"; fail=1; continue; }
  d=-
  if [[ $ours != auto ]]; then
    "$tessel" export --pytorch "$j" -o "$tmp/pt/$cls.back.csv"
    d=$(differ "$tmp/pt/$cls.back.csv" "$tmp/$ours.csv")
  fi
  printf '%-22s %-22s %-12s %9s %9s %8s\n' "$cls" "$p" "$ours" "$ms_pt" "$ms_ours" "$d"
  [[ $d == "$want" ]] || { echo "FAIL: $cls: $d actions differ from $ours, not $want"; fail=1; }
  jobs+=("pytorch-$cls=$tmp/pt/$cls.csv")
done
echo "(makespan at N = $N in the placement's units; differ: actions at another place of the same"
echo " rank's order than in ours; DualPipeV's B on a split stage counts as its I and W)"
# PyTorch's own validator rejects its 1F1B order as generated (see pytorch_orders.py); so must
# tessel import, with a message naming the action
if [[ -f $tmp/pt/1F1B.ir.csv ]]; then
  err=$("$tessel" import --pytorch "$tmp/pt/1F1B.ir.csv" --placement vshape --ndevs 4 2>&1 >/dev/null)
  [[ $err == *"is missing"* ]] || { echo "FAIL: import of 1F1B's raw order: $err"; fail=1; }
fi

# PyTorch's runtime looks the loss of micro-batch i up at the i-th loss its last stage computed:
# a last stage that runs its forwards out of micro-batch order computes the wrong gradients (or
# stops), though the validator accepts it; export renames micro-batches so that it runs in order.
printf '0F0,0F1,0B1,0B0\n1F0,1F1,1B1,1B0\n2F0,2F1,2B1,2B0\n3F1,3F0,3B1,3B0\n' >"$tmp/swap.csv"
if "$py" "$here/run_csv.py" "swapped=$tmp/swap.csv" >"$tmp/swap.out" 2>&1; then
  echo "FAIL: a last stage out of micro-batch order passed run_csv.py"; cat "$tmp/swap.out"; fail=1
fi
if "$tessel" import --pytorch "$tmp/swap.csv" --placement vshape --ndevs 4 -o "$tmp/swap.json" &&
  "$tessel" export --pytorch "$tmp/swap.json" -o "$tmp/swap2.csv"; then
  jobs+=("tessel-renamed=$tmp/swap2.csv")
else
  echo "FAIL: import and export of the swapped CSV"; fail=1
fi

# Every CSV runs in PyTorch and computes what the model without a pipeline computes.
echo
TESSEL_TORCH_TIMEOUT=${TESSEL_TORCH_TIMEOUT:-300} "$py" "$here/run_csv.py" "${jobs[@]}" 2>"$tmp/err" ||
  { tail -20 "$tmp/err"; fail=1; }
# A CSV that PyTorch's validator rejects fails there: stage 3's backward before its forward.
printf '0F0,0F1,0B0,0B1\n1F0,1F1,1B0,1B1\n2F0,2F1,2B0,2B1\n3F0,3B1,3B0,3F1\n' >"$tmp/bad.csv"
if "$py" "$here/run_csv.py" "bad=$tmp/bad.csv" >"$tmp/bad.out" 2>&1 ||
  ! grep -q "PyTorch rejects it" "$tmp/bad.out"; then
  echo "FAIL: a CSV PyTorch's validator rejects passed run_csv.py"; cat "$tmp/bad.out"; fail=1
fi
exit $fail
