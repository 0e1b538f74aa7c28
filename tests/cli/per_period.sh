#!/usr/bin/env bash
# tessel search --per-period R: lazy, fast and modulo on the R-fold placement, whose repetends
# run R micro-batches per period; the schedule is written at exactly N micro-batches.
set -u
tessel=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$tessel" search --help 2>&1 | grep -q "no solver"; then
  echo "no solver in this build: nothing to test"; exit 0
fi
get() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval("j"+sys.argv[1]))' "$1"; }

# xshape on 4 devices at memory 6: one micro-batch per period gives 262 at N = 32, two per
# period meet the lower bound (260) with period 16
one=$("$tessel" search --placement xshape --ndevs 4 --memory 6 --method modulo -n 32 --json)
two=$("$tessel" search --placement xshape --ndevs 4 --memory 6 --method modulo -n 32 \
  --per-period 2 --json -o "$tmp/two.json") || { echo "FAIL: modulo --per-period 2"; fail=1; }
[[ $(get "['per_period']" <<<"$two") == 2 ]] || { echo "FAIL: per_period key"; fail=1; }
[[ $(get "['per_period']" <<<"$one") == 1 ]] || { echo "FAIL: per_period key at 1"; fail=1; }
mk1=$(get "['makespan']" <<<"$one"); mk2=$(get "['makespan']" <<<"$two")
lb=$(get "['lower_bound']" <<<"$two")
((mk2 < mk1)) || { echo "FAIL: two per period ($mk2) not shorter than one ($mk1)"; fail=1; }
((mk2 >= lb)) || { echo "FAIL: $mk2 below the bound $lb"; fail=1; }
out=$("$tessel" validate "$tmp/two.json") || { echo "FAIL: invalid: $out"; fail=1; }
grep -q "32 micro-batches" <<<"$out" || { echo "FAIL: not 32 micro-batches: $out"; fail=1; }
grep -q "makespan $mk2," <<<"$out" || { echo "FAIL: file and summary differ: $out"; fail=1; }

# lazy and fast take it too, at an N that is not a multiple of R
for m in lazy fast; do
  "$tessel" search --placement vshape --ndevs 4 --memory 6 --method $m --per-period 3 -n 7 \
    -o "$tmp/$m.json" >/dev/null || { echo "FAIL: $m --per-period 3"; fail=1; }
  out=$("$tessel" validate "$tmp/$m.json") || { echo "FAIL: $m invalid: $out"; fail=1; }
  grep -q "7 micro-batches" <<<"$out" || { echo "FAIL: $m not 7 micro-batches: $out"; fail=1; }
done

# refused: auto and full, a range error, with --nmicros
for args in "--method auto --per-period 2" "--method full --per-period 2" \
  "--method modulo --per-period 9" "--method modulo --per-period 0" \
  "--method lazy --per-period 2 --nmicros 4"; do
  # shellcheck disable=SC2086
  err=$("$tessel" search --placement vshape --ndevs 4 --memory 6 $args 2>&1 >/dev/null)
  rc=$?
  [[ $rc == 2 && $err == *per-period* ]] || { echo "FAIL: $args: exit $rc, '$err'"; fail=1; }
done
exit $fail
