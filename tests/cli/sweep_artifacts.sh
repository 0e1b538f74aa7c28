#!/usr/bin/env bash
# The paper-artifact scripts on a recorded sweep: a point that timed out, was infeasible or failed
# shows as such in the table, never as a number; a torn last line of results.jsonl is ignored; the
# SVG is well-formed XML.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TESTS=$2
ROOT=$(cd "$TESTS/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

if ! command -v python3 >/dev/null; then
    echo "sweep_artifacts: python3 is not installed; the artifact scripts need it"
    exit 1
fi
export PYTHONDONTWRITEBYTECODE=1 # leave the source tree as it is
mkdir -p "$TMP/sweep"
cp "$TESTS/fixtures/sweep_artifacts.jsonl" "$TMP/sweep/results.jsonl"
python3 "$ROOT/paper-artifacts/search_time.py" --tessel "$TESSEL" --no-run --sweep "$TMP/sweep" \
    --out "$TMP/out" 2>"$TMP/stderr"
check_status $? "search_time.py" "$(cat "$TMP/stderr")"
md=$TMP/out/search-time.md
row() { grep "^| $1 | $2 |" "$md"; }
expect_row() { # shape method expected-row-text
    check_eq "row $1 $2" "$3" "$(row "$1" "$2")"
}
expect_row vshape lazy "| vshape | lazy | 0.11 s (k 1, bubbles 12) | timeout at 30 s (limit 300 s) | infeasible | error |  |"
expect_row vshape full "| vshape | full | 2e-05 s (makespan 16) | not run | not run | not run |  |"
expect_row vshape fast "| vshape | fast |  |  |  |  | 0.05 s (k 4, bubbles 1) |"
expect_row vshape modulo "| vshape | modulo |  |  |  |  | timeout at 371 s (limit 300 s) |"
# The torn last line names xshape lazy k = 1: it must not count.
expect_row xshape lazy "| xshape | lazy | not run | not run | not run | not run |  |"
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$TMP/out/search-time.svg"
check_status $? "search-time.svg is well-formed"
# The reasons are drawn, not bars: the timed-out lazy k = 2 point has no bar of 30.5 s.
grep -q ">timeout<" "$TMP/out/search-time.svg"; check_status $? "the plot shows the timeout"
! grep -q "lazy k=2: 30" "$TMP/out/search-time.svg"
check_status $? "the timed-out point is not drawn as a bar"
# Each table says where it comes from: the commit and the command.
grep -q "^Made at commit .* by \`python3 paper-artifacts/search_time.py .*--no-run" "$md"
check_status $? "search-time.md records its commit and command"
# --no-run without the raw records says what is missing and how to make them, without a traceback.
python3 "$ROOT/paper-artifacts/bubbles.py" --tessel "$TESSEL" --no-run --sweep "$TMP/none" \
    --out "$TMP/out" 2>"$TMP/stderr"
[[ $? -ne 0 ]]; check_status $? "bubbles.py --no-run without records fails"
grep -q "results.jsonl is missing.*tessel sweep" "$TMP/stderr" && ! grep -q Traceback "$TMP/stderr"
check_status $? "bubbles.py --no-run without records says what is missing" "$(cat "$TMP/stderr")"

harness_end
