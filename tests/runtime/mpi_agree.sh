# Ranks started differently are refused before any buffer is sized: every rank compares its
# options and schedule with rank 0's, and the job ends with exit 2 and one message naming the
# option and both values, or both schedule files, within seconds (before, another --size aborted
# on a receive that overflowed, another --workload crashed, another schedule waited for --timeout).
# The same schedule from another path, laid out differently, is the same schedule.
. "$(dirname "$0")/mpi_common.inc"

# split N0 ARGS... -- ARGS...: ranks 0..N0-1 with the first arguments, the rest of 4 with the
# others (mpirun's MPMD form); output in $TMP/out, exit code in $rc, seconds in $took
split() {
    local n0=$1 a=()
    shift
    while [ "$1" != "--" ]; do
        a+=("$1")
        shift
    done
    shift
    local start
    start=$(date +%s)
    "$MPIEXEC" $MPIFLAGS -np "$n0" "$RUN" "${a[@]}" : -np $((4 - n0)) "$RUN" "$@" >"$TMP/out" 2>&1
    rc=$?
    took=$(($(date +%s) - start))
}
# refused PATTERN: exit 2, one message matching PATTERN, no compute, no sanitizer report, prompt
refused() {
    [ $rc -eq 2 ] || fail "expected exit 2, got $rc: $(head -3 "$TMP/out")"
    [ "$(grep -c "^tessel-run: $1" "$TMP/out")" = 1 ] ||
        fail "expected one message matching '$1': $(head -5 "$TMP/out")"
    ! grep -q "wall_ms" "$TMP/out" || fail "it computed before refusing"
    ! grep -qE "$SANITIZER" "$TMP/out" ||
    fail "sanitizer: $(grep -m3 -E "$SANITIZER|#[0-3] " "$TMP/out")"
    # --timeout 60 below: a job left to its deadline would take longer than this
    [ "$took" -lt 30 ] || fail "the refusal took $took s"
}
SANITIZER="ERROR: AddressSanitizer|runtime error"
K=$FIX/runtime_kshape.json
M=$FIX/runtime_mshape.json

split 1 --schedule "$K" --size 64 --timeout 60 -- --schedule "$K" --size 128 --timeout 60
refused "rank 1 was started with --size 128 but rank 0 with --size 64"
split 3 --schedule "$K" --timeout 60 -- --schedule "$K" --workload timing --timeout 60
refused "rank 3 was started with --workload timing but rank 0 with --workload dataflow"
split 2 --schedule "$K" --timeout 60 -- --schedule "$M" --timeout 60
refused "the schedule files differ: rank 2 replays .*runtime_mshape.json but rank 0 replays \
.*runtime_kshape.json"

# the same schedule on one line under another name (and another --timeout, which is not agreed
# on) replays and checks out
tr -d '\n' <"$K" >"$TMP/copy.json"
split 2 --schedule "$K" --check --timeout 60 -- --schedule "$TMP/copy.json" --check --timeout 90
[ $rc -eq 0 ] && grep -q "check: passed" "$TMP/out" ||
    fail "the same schedule from another file was refused ($rc): $(head -5 "$TMP/out")"
finish
