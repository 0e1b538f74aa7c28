# Bad input ends every rank cleanly with one message and a non-zero exit, before any compute.
. "$(dirname "$0")/mpi_common.inc"

expect() { # expect CODE PATTERN: exit code and message of the last run, and no iteration ran
    [ $rc -eq "$1" ] || fail "expected exit $1, got $rc: $(head -3 "$TMP/out")"
    [ "$(grep -c "$2" "$TMP/out")" = 1 ] || fail "expected one message matching '$2': $(head -3 "$TMP/out")"
    ! grep -q "wall_ms" "$TMP/out" || fail "it computed before refusing"
}
mpi 4 --schedule "$FIX/runtime_bad_dependency.json" --workload dataflow --check
expect 1 "not a valid schedule.*F1/0 starts before F0/0"
mpi 3 --schedule "$FIX/runtime_kshape.json"
expect 2 "schedules 4 devices but the job has 3 ranks"
mpi 4 --schedule "$FIX/runtime_kshape.json" --bogus
expect 2 "unknown option '--bogus'"
mpi 4 --schedule "$FIX/runtime_kshape.json" --workload nonsense
expect 2 "expected dataflow, train or timing"
mpi 4 --schedule "$TMP/missing.json"
expect 2 "missing.json"
mpi 4 --schedule "$FIX/runtime_vshape_zb.json" --workload train
expect 2 "not mirror-shaped"
mpi 4 --schedule "$FIX/runtime_kshape.json" --micro-batches 12
expect 2 "cannot replay 12 micro-batches"
finish
