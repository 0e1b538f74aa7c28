# A rank that cannot allocate its workload's matrices ends the job cleanly: exit 3 and one
# message naming the size it asked for, read before the workload's state is freed (before, the
# message read the freed state: a use-after-free on every rank, a garbage size without ASan).
. "$(dirname "$0")/mpi_common.inc"

# --size 16384: 1 GiB a matrix, and the dataflow workload asks for at least four of them at once
wrap=()
if grep -qa __asan_init "$RUN"; then
    # ASan reserves its shadow memory up front, so an address-space limit would stop it from
    # starting: its allocator refuses the large requests instead
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1"
    export ASAN_OPTIONS="$ASAN_OPTIONS:max_allocation_size_mb=512"
else
    # 3 GiB of address space: MPI starts, the matrices do not fit (none is ever touched)
    wrap=(bash -c 'ulimit -v "$1" && shift && exec "$@"' limit 3145728)
fi
"$MPIEXEC" $MPIFLAGS -np 4 "${wrap[@]}" "$RUN" --schedule "$FIX/runtime_kshape.json" \
    --size 16384 --timeout 30 >"$TMP/out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "expected exit 3, got $rc: $(head -3 "$TMP/out")"
want="^tessel-run: dataflow: rank [0-9] could not allocate 16384 x 16384 matrices"
[ "$(grep -c "$want" "$TMP/out")" = 1 ] ||
    fail "expected one message naming 16384 x 16384: $(grep -m3 "tessel-run" "$TMP/out")"
SANITIZER="ERROR: AddressSanitizer|runtime error"
! grep -qE "$SANITIZER" "$TMP/out" ||
    fail "sanitizer: $(grep -m3 -E "$SANITIZER|#[0-3] " "$TMP/out")"
finish
