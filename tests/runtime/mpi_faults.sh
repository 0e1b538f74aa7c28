# Faults end the job: a wrong message makes the check fail, a rank that stops answering makes its
# peers time out with a message naming rank and instance, and killing a rank mid-run ends the
# whole job with a non-zero exit in under 10 seconds.
. "$(dirname "$0")/mpi_common.inc"

mpi 4 --schedule "$FIX/runtime_kshape.json" --workload dataflow --check --inject wrong-input
[ $rc -eq 1 ] || fail "a corrupted input should fail the check with exit 1, got $rc"
grep -q "check failed: rank [0-9], instance" "$TMP/out" || fail "no check failure message"

start=$(date +%s)
mpi 4 --schedule "$FIX/runtime_kshape.json" --workload timing --unit-us 100 --inject stall --timeout 2
took=$(($(date +%s) - start))
[ $rc -ne 0 ] || fail "a stalled rank should end the job non-zero"
grep -q "rank [0-9], instance .* timed out after 2 s" "$TMP/out" || { fail "no timeout message"; cat "$TMP/out"; }
[ $took -lt 10 ] || fail "the stalled job took $took s"

# kill -9 one rank of a long run (about 100 s if left alone)
"$MPIEXEC" $MPIFLAGS -np 4 "$RUN" --schedule "$FIX/runtime_vshape_1f1b.json" --workload timing \
    --unit-us 2000 --iterations 1000 --timeout 5 >"$TMP/kill.out" 2>&1 &
mp=$!
sleep 2
# the rank processes are mpirun's children; read /proc so that no extra tool is needed
children() {
    local f stat
    for f in /proc/[0-9]*/stat; do
        stat=$(cat "$f" 2>/dev/null) || continue
        stat=${stat##*) } # fields after the command name: state ppid ...
        set -- $stat
        [ "$2" = "$mp" ] && { f=${f#/proc/}; echo "${f%/stat}"; }
    done
}
victim=$(children | sort -n | sed -n 3p)
if [ -z "$victim" ]; then
    fail "no rank process found under mpirun $mp"
    kill $mp
else
    start=$(date +%s)
    kill -9 $victim
    deadline=$((start + 20))
    while kill -0 $mp 2>/dev/null && [ "$(date +%s)" -lt $deadline ]; do sleep 0.2; done
    if kill -0 $mp 2>/dev/null; then
        fail "the job still runs 20 s after a rank was killed"
        kill -9 $mp
    fi
    wait $mp
    krc=$?
    took=$(($(date +%s) - start))
    [ $krc -ne 0 ] || fail "killing a rank should end the job non-zero"
    [ $took -lt 10 ] || fail "the job took $took s to end after a rank was killed"
    echo "kill test: exit $krc after $took s"
fi
finish
