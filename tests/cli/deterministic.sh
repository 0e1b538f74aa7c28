#!/usr/bin/env bash
# The same search gives the same schedule whatever the machine's load (issue 23, part 6): each
# case runs once on a quiet machine and once with a busy loop on another core, and the two
# schedule files must be identical byte for byte, but for the record's search_seconds (wall
# time, which differs by nature). Every method spends a deterministic effort (--effort: solver
# resource units and counted steps), and --time-limit is only a generous wall-clock cap here, far
# above what the effort takes even under a sanitizer: a run that the cap cuts says timed_out,
# and the case fails, since the result may then differ.
# Cases: auto (whose improvement phase runs: improve_moves > 0), modulo, lazy, fast and full, on
# several built-in placements; one auto case stops on its effort before the bound (effort_out).
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
busy=
cleanup() {
  [[ -n $busy ]] && kill "$busy" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"

# One run: the schedule file without its search_seconds object (taken out of the text as it is:
# the rest is compared as written). Prints the record's "timed_out effort improve_moves".
run() { # output args...
  local out=$1
  shift
  "$tessel" search "$@" --time-limit 600 -o "$out" >/dev/null 2>"$out.err" || {
    echo "exit $?: $(head -c 300 "$out.err")"
    return 1
  }
  python3 - "$out" <<'PY'
import json, sys
f = sys.argv[1]
text = open(f).read()
start = text.index('"search_seconds"')
end = text.index("}", start) + 1
open(f + ".cmp", "w").write(text[:start] + text[end:])
s = json.loads(text)["search"]
print(str(s["timed_out"]).lower(), s["effort"], s.get("improve_moves"), str(s["effort_out"]).lower())
PY
}

# name, then the search's arguments: quiet run, loaded run, compared.
det_case() {
  local name=$1 q l
  shift
  q=$(run "$tmp/$name.quiet.json" "$@") || { fail_case "$name quiet" "$q"; return; }
  (while :; do :; done) &
  busy=$!
  l=$(run "$tmp/$name.loaded.json" "$@")
  local rc=$?
  kill "$busy"
  wait "$busy" 2>/dev/null
  busy=
  ((rc == 0)) || { fail_case "$name loaded" "$l"; return; }
  read -r qt qe qm qo <<<"$q"
  check_eq "$name: not cut by the wall-clock cap" "false false" "$qt $(cut -d' ' -f1 <<<"$l")"
  check "$name: some effort spent ($qe)" test "$qe" -gt 0
  check "$name: the same file quiet and loaded" cmp -s "$tmp/$name.quiet.json.cmp" \
    "$tmp/$name.loaded.json.cmp"
  DET_MOVES=$qm DET_OUT=$qo
}

det_case auto-vshape_zb --placement vshape_zb --ndevs 4 -n 8 --memory 6 --method auto \
  --effort 1e6
check "auto-vshape_zb: the improvement phase ran ($DET_MOVES moves)" test "${DET_MOVES:-0}" -gt 0
det_case auto-nnshape --placement nnshape --ndevs 8 -n 32 --memory 10 --method auto --effort 1e6
check_eq "auto-nnshape: stopped by its effort, above the bound" true "$DET_OUT"
# --seed changes auto's improvement moves: the answer then differs from the default's, and the
# same seed gives the same file again
entries() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["entries"]))' "$1"; }
run "$tmp/seed7a.json" --placement nnshape --ndevs 8 -n 32 --memory 10 --method auto --effort 1e6 \
  --seed 7 >/dev/null && run "$tmp/seed7b.json" --placement nnshape --ndevs 8 -n 32 --memory 10 \
  --method auto --effort 1e6 --seed 7 >/dev/null
check "--seed 7: the same file twice" cmp -s "$tmp/seed7a.json.cmp" "$tmp/seed7b.json.cmp"
check "--seed 7: another schedule than the default seed's" test \
  "$(entries "$tmp/seed7a.json")" != "$(entries "$tmp/auto-nnshape.quiet.json")"
det_case modulo-mshape --placement mshape --ndevs 8 -n 16 --memory 10 --method modulo \
  --effort 1e6
det_case lazy-kshape --placement kshape --ndevs 4 -n 8 --memory 6 --method lazy --effort 1e6
det_case fast-xshape --placement xshape --ndevs 8 -n 16 --memory 10 --method fast --effort 1e6
det_case full-nnshape --placement nnshape --ndevs 4 -n 4 --memory 6 --method full --effort 5e5
harness_end
