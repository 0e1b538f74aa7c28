#!/usr/bin/env bash
# tessel sweep on a full disk (issue 29, item 4): on a small tmpfs that fills up midway, the sweep
# stops with exit 3 and one line naming the point whose output could not be written, and records
# no point as an error because of it; once space is freed, --resume runs the rest and every
# point is then recorded exactly once, none as an error, each ok point with its schedule.
# TESSEL_DISK_ROUNDS rounds (default 1; tests/bench/adversarial_runtime.sh asks for more), each
# with a random amount of room (4 to 23 pages) and 1 to 3 workers. Needs root (mount); skipped
# otherwise, or where this machine lets no one mount a tmpfs.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
TESSEL=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
"$TESSEL" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"
rounds=${TESSEL_DISK_ROUNDS:-1}
[ "$(id -u)" = 0 ] || skip_all "mounting a small tmpfs needs root"
TMP=$(mktemp -d)
MNT=$TMP/mnt
mkdir "$MNT"
cleanup() {
    mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
    rm -rf "$TMP"
}
trap cleanup EXIT
mount -t tmpfs -o size=2m tmpfs "$MNT" 2>"$TMP/mount.err" ||
    skip_all "cannot mount a tmpfs here: $(cat "$TMP/mount.err")"
umount "$MNT"
page=$(getconf PAGESIZE)

# 24 quick inference searches, each schedule about 2 KB (a page of the tmpfs)
cat >"$TMP/spec.json" <<'SPEC'
{"format": "tessel-sweep/1", "name": "disk",
 "grid": {"placements": ["vshape", "xshape"], "ndevs": [4], "infer": [true], "nmicros": [1, 2, 3],
          "methods": ["lazy"], "micro_batches": [16, 32, 64, 128]}}
SPEC
"$TESSEL" sweep "$TMP/spec.json" --dry-run >"$TMP/ids" 2>/dev/null

# every point once, none an error, ok points with their schedule, the CSV in step
check_records() { # outdir
    python3 - "$1" "$TMP/ids" <<'PY'
import csv, json, os, sys
out, idfile = sys.argv[1], sys.argv[2]
want = sorted(l.strip() for l in open(idfile) if l.strip())
recs = [json.loads(l) for l in open(os.path.join(out, "results.jsonl"))]
ids = [r["id"] for r in recs]
bad = ["%s recorded %d times" % (i, ids.count(i)) for i in sorted(set(ids)) if ids.count(i) > 1]
if sorted(set(ids)) != want:
    bad.append("recorded %d of the %d points" % (len(set(ids)), len(want)))
bad += ["%s: %s (%s)" % (r["id"], r["status"], r.get("message")) for r in recs if r["status"] != "ok"]
bad += ["%s: no schedule file" % r["id"] for r in recs
        if r["status"] == "ok" and not os.path.isfile(os.path.join(out, r["schedule"] or "-"))]
rows = list(csv.DictReader(open(os.path.join(out, "results.csv"))))
if sorted(r["id"] for r in rows) != sorted(ids):
    bad.append("results.csv rows do not match results.jsonl")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

for round in $(seq 1 "$rounds"); do
    room=$((4 + RANDOM % 20))
    jobs=$((1 + RANDOM % 3))
    mount -t tmpfs -o size=2m tmpfs "$MNT"
    # fill the file system, then give back `room` pages
    dd if=/dev/zero of="$MNT/filler" bs="$page" 2>/dev/null
    truncate -s "-$((room * page))" "$MNT/filler"
    out=$MNT/out
    "$TESSEL" sweep "$TMP/spec.json" -o "$out" -j "$jobs" --quiet >"$TMP/stdout" 2>"$TMP/stderr"
    rc=$?
    what="round $round ($room pages free, -j $jobs)"
    recorded=$( [ -f "$out/results.jsonl" ] && wc -l <"$out/results.jsonl" || echo 0)
    echo "$what: first run exit $rc, $recorded points recorded: $(head -c 300 "$TMP/stderr")"
    check_rc "$what: the sweep stops on the full disk with exit 3" 3 "$rc"
    [ "$(wc -l <"$TMP/stderr")" -eq 1 ]
    check_status $? "$what: one line on stderr" "$(cat "$TMP/stderr")"
    # the stop names a point when a worker hit the full disk, else the record that would not fit
    grep -qE "could not write its output|cannot append a record|cannot create|No space left" "$TMP/stderr"
    check_status $? "$what: the line says what could not be written" "$(cat "$TMP/stderr")"
    if [ -f "$out/results.jsonl" ]; then
        ! grep -q '"status":"error"' "$out/results.jsonl"
        check_status $? "$what: no point recorded as an error" "$(grep '"error"' "$out/results.jsonl")"
    fi
    rm -f "$MNT/filler"
    "$TESSEL" sweep "$TMP/spec.json" -o "$out" -j "$jobs" --resume --quiet >"$TMP/stdout" 2>"$TMP/stderr"
    rc=$?
    check_rc "$what: --resume after freeing space" 0 "$rc"
    report=$(check_records "$out")
    check_status $? "$what: every point recorded once after --resume, none an error" "$report" \
        "$(cat "$TMP/stderr")"
    umount "$MNT"
done
harness_end
