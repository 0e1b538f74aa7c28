#!/usr/bin/env bash
# tessel sweep: every bad spec is refused with exit 2 and a message naming the spec file and the
# place inside it, before any point runs (the output folder is not even created).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TESTS=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

bad() { # fixture, text the message must contain
    local name=$1 want=$2 out=$TMP/out-$1 rc
    "$TESSEL" sweep "$TESTS/fixtures/$name" -o "$out" -j 2 >"$TMP/stdout" 2>"$TMP/stderr"
    rc=$?
    [ "$rc" -eq 2 ]; check_status $? "$name: exit 2" "exit $rc" "$(cat "$TMP/stderr")"
    grep -qF -- "$name" "$TMP/stderr"
    check_status $? "$name: the message names the spec file" "$(cat "$TMP/stderr")"
    grep -qF -- "$want" "$TMP/stderr"
    check_status $? "$name: the message has '$want'" "$(cat "$TMP/stderr")"
    [ ! -e "$out" ]
    check_status $? "$name: no output folder (nothing ran before validation)"
}

bad sweep_bad_axis.json "grid: unknown axis 'memroy'"
bad sweep_empty_grid.json "grid.ndevs: empty list"
bad sweep_no_points.json "grid: empty list of grids"
bad sweep_bad_value.json "grid.memory[1]"
bad sweep_bad_point.json "points[0].nmicros"
bad sweep_unknown_placement.json "grid.placements[1]: unknown placement 'wshape'"
bad sweep_missing_file.json "no-such-placement.json"
bad sweep_bad_ndevs.json "not 5"
bad sweep_bad_method.json "unknown method 'greedy'"
bad sweep_bad_format.json "format"
bad sweep_bad_json.json "malformed JSON"
bad sweep_bad_baseline.json "grid: point 'xshape-d3-train-mnone-chimera': baseline 'chimera' does not fit"
# A point's options: the search's own fields, by its table (a build without the solver has no
# search to give them to, and says so).
if "$TESSEL" search --help 2>&1 | grep -q -- "--effort"; then
    for opt in '{"turbo": 1}|'"'turbo' is not one of search's options" \
        '{"memory": 3}|'"'memory' is not one of search's options" \
        '{"effort": "lots"}|effort expects a number' '5|expected an object of search'; do
        printf '{"format": "tessel-sweep/1", "grid": {"placements": ["vshape"], "ndevs": [4],
                 "options": %s}}' "${opt%%|*}" >"$TMP/opt.json"
        "$TESSEL" sweep "$TMP/opt.json" --dry-run >"$TMP/stdout" 2>"$TMP/stderr"
        rc=$?
        [ "$rc" -eq 2 ] && grep -qF -- "grid.options: ${opt#*|}" "$TMP/stderr"
        check_status $? "options ${opt%%|*}: exit 2 and '${opt#*|}'" "exit $rc" "$(cat "$TMP/stderr")"
    done
    printf '{"format": "tessel-sweep/1", "points": [{"placement": "vshape", "ndevs": 4,
             "method": "1f1b", "options": {"seed": 3}}]}' >"$TMP/opt.json"
    "$TESSEL" sweep "$TMP/opt.json" --dry-run >"$TMP/stdout" 2>"$TMP/stderr"
    [ $? -eq 2 ] && grep -qF "takes no search options" "$TMP/stderr"
    check_status $? "a baseline point with options: refused" "$(cat "$TMP/stderr")"
else
    printf '{"format": "tessel-sweep/1", "grid": {"placements": ["vshape"], "ndevs": [4],
             "options": {"seed": 3}}}' >"$TMP/opt.json"
    "$TESSEL" sweep "$TMP/opt.json" --dry-run >"$TMP/stdout" 2>"$TMP/stderr"
    [ $? -eq 2 ] && grep -qF "this build has no solver" "$TMP/stderr"
    check_status $? "options without a solver: refused" "$(cat "$TMP/stderr")"
fi

# --dry-run checks the whole spec too: a baseline that does not fit is refused, nothing listed.
"$TESSEL" sweep "$TESTS/fixtures/sweep_bad_baseline.json" --dry-run >"$TMP/stdout" 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && [ ! -s "$TMP/stdout" ] && grep -qF "does not fit" "$TMP/stderr"
check_status $? "dry-run of a misplaced baseline: exit 2, no ids, and the reason" "exit $rc" \
    "$(cat "$TMP/stdout" "$TMP/stderr")"

# Usage errors.
usage() { # expected text, arguments...
    local want=$1 rc
    shift
    "$TESSEL" sweep "$@" >"$TMP/stdout" 2>"$TMP/stderr"
    rc=$?
    [ "$rc" -eq 2 ] && grep -qF -- "$want" "$TMP/stderr"
    check_status $? "usage '$*': exit 2 and '$want'" "exit $rc" "$(cat "$TMP/stderr")"
}
usage "missing -o" "$TESTS/fixtures/sweep_small.json"
usage "--jobs" "$TESTS/fixtures/sweep_small.json" -o "$TMP/x" -j 0
usage "missing the spec" -o "$TMP/x"
usage "no-such-spec.json" "$TMP/no-such-spec.json" -o "$TMP/x"

# --help works and names the formats.
check "--help names the format" bash -c '"$1" sweep --help | grep -q "tessel-sweep/1"' _ "$TESSEL"

# --dry-run lists the expanded points: grids multiply, duplicates merge (a baseline ignores the
# memory axis, modulo and full the k axis), explicit points add.
cat >"$TMP/grid.json" <<'SPEC'
{"format": "tessel-sweep/1", "name": "dry",
 "grid": [{"placements": ["vshape", "xshape"], "ndevs": [4, 8], "infer": [true, false],
           "memory": [4, "none"], "methods": ["lazy", "fast"]},
          {"placements": ["vshape"], "ndevs": [4], "memory": [2, 4, 8], "methods": ["1f1b", "gpipe"],
           "micro_batches": [32]},
          {"placements": ["xshape"], "ndevs": [4], "memory": [4], "nmicros": [1, 2, 3],
           "methods": ["modulo", "full"]}],
 "points": [{"placement": "vshape", "ndevs": 4, "infer": true, "memory": 4, "method": "lazy"},
            {"placement": "kshape", "ndevs": 4, "memory": 6, "nmicros": 3, "method": "lazy",
             "micro_batches": 64}]}
SPEC
"$TESSEL" sweep "$TMP/grid.json" --dry-run >"$TMP/ids" 2>"$TMP/stderr"
check_status $? "dry-run" "$(cat "$TMP/stderr")"
# 2 placements x 2 ndevs x 2 infer x 2 memory x 2 methods = 32, + 2 baselines, + 2 (modulo and
# full without k), + 1 new point.
n=$(wc -l <"$TMP/ids")
[ "$n" -eq 37 ]; check_status $? "dry-run: 37 points" "$n points" "$(cat "$TMP/ids")"
check_eq "dry-run: no duplicate ids" 0 "$(sort "$TMP/ids" | uniq -d | wc -l)"
for id in vshape-d4-infer-m4-lazy xshape-d8-train-mnone-fast vshape-d4-train-mnone-1f1b-n32 \
    kshape-d4-train-m6-k3-lazy-n64 xshape-d4-train-m4-modulo xshape-d4-train-m4-full; do
    grep -qx -- "$id" "$TMP/ids"; check_status $? "dry-run: point $id" "$(cat "$TMP/ids")"
done

# Placement files: relative to the spec's folder, one point per file whatever the ndevs axis says
# (the file fixes its device count), checked before anything runs.
mkdir -p "$TMP/specs/pl"
"$TESSEL" placement vshape --ndevs 6 -o "$TMP/specs/pl/my.json"; check_rc "placement" 0 $?
printf '{"broken": ' >"$TMP/specs/pl/bad.json"
cat >"$TMP/specs/files.json" <<'SPEC'
{"format": "tessel-sweep/1",
 "grid": {"placements": ["pl/my.json", "vshape"], "ndevs": [4, 8], "memory": [6]}}
SPEC
(cd / && "$TESSEL" sweep "$TMP/specs/files.json" --dry-run) >"$TMP/ids" 2>"$TMP/stderr"
check_status $? "dry-run with a placement file" "$(cat "$TMP/stderr")"
check_eq "placement file points" "my-d6-train-m6-lazy vshape-d4-train-m6-lazy vshape-d8-train-m6-lazy " \
    "$(sort "$TMP/ids" | tr '\n' ' ')"
cat >"$TMP/specs/badfile.json" <<'SPEC'
{"format": "tessel-sweep/1", "grid": {"placements": ["pl/bad.json"]}}
SPEC
"$TESSEL" sweep "$TMP/specs/badfile.json" -o "$TMP/badfile" >/dev/null 2>"$TMP/stderr"
rc=$?
[ "$rc" -eq 2 ] && grep -q "badfile.json: grid.placements\[0\]: placement file '.*pl/bad.json'" "$TMP/stderr" &&
    [ ! -e "$TMP/badfile" ]
check_status $? "a malformed placement file refused" "exit $rc" "$(cat "$TMP/stderr")"

# Two 16-device memory lists that differ only in the last capacity are two points (issue 43: ids
# cut the lists at 31 characters and refused them as duplicates); a short list keeps its slug.
cat >"$TMP/specs/lists.json" <<'SPEC'
{"format": "tessel-sweep/1",
 "points": [{"placement": "vshape", "ndevs": 16, "memory": [20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,20]},
            {"placement": "vshape", "ndevs": 16, "memory": [20,20,20,20,20,20,20,20,20,20,20,20,20,20,20,21]},
            {"placement": "vshape", "ndevs": 4, "memory": [9,4,4,4]}]}
SPEC
"$TESSEL" sweep "$TMP/specs/lists.json" --dry-run >"$TMP/ids" 2>"$TMP/stderr"
check_status $? "two long lists that differ at the end" "$(cat "$TMP/stderr")"
check_eq "three points" 3 "$(sort -u "$TMP/ids" | wc -l)"
grep -qx "vshape-d4-train-m9_4_4_4-lazy" "$TMP/ids"; check_status $? "a short list's id" "$(cat "$TMP/ids")"

harness_end
