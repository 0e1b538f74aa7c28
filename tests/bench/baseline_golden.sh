#!/usr/bin/env bash
# Every `tessel baseline` output over kinds x built-ins x D x N, for byte-for-byte comparison of
# two builds (a restructuring must not change one byte): each case leaves its schedule (--json
# -o), stdout, stderr and exit status in OUTDIR. Compare two runs with `diff -r DIR1 DIR2`.
#
# usage: tests/bench/baseline_golden.sh TESSEL_BINARY OUTDIR
set -u
t=${1:?usage: baseline_golden.sh TESSEL_BINARY OUTDIR}
out=${2:?usage: baseline_golden.sh TESSEL_BINARY OUTDIR}
mkdir -p "$out"
kinds=$("$t" baseline --list | awk '{print $1}')
pls="vshape xshape mshape nnshape kshape mllm vshape_interleaved vshape_zb vshape_v vshape_v_zb xshape_zb"
for k in $kinds; do for p in $pls; do for d in 2 4 8 16; do for n in 4 8 16 32 64 128; do
  f=$out/$k.$p.$d.$n
  "$t" baseline "$k" --placement "$p" --ndevs "$d" -n "$n" --json -o "$f.sched.json" >"$f.out" 2>"$f.err"
  echo $? >"$f.rc"
done; done; done; done
echo "$(ls "$out"/*.rc | wc -l) cases, $(ls "$out"/*.sched.json 2>/dev/null | wc -l) schedules in $out"
