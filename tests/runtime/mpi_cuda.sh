# The CUDA backend under mpirun: the same checks as mpi_replay.sh on GPUs. Skips (exit 77) where
# there is no GPU or tessel-run was built without CUDA. With 4 ranks on fewer GPUs the backend
# stages collectives through MPI (and says so); with a GPU per rank it uses NCCL.
. "$(dirname "$0")/mpi_common.inc"

if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skipped: no GPU on this machine"
    exit 77
fi
mpi 4 --schedule "$FIX/runtime_vshape_1f1b.json" --backend cuda --workload dataflow --check
if grep -q "built without CUDA\|no CUDA device" "$TMP/out"; then
    echo "skipped: $(grep -m1 'tessel-run:' "$TMP/out")"
    exit 77
fi
[ $rc -eq 0 ] || { fail "vshape dataflow on cuda (rc $rc)"; cat "$TMP/out"; }
for s in vshape_1f1b kshape xshape mshape; do
    mpi 4 --schedule "$FIX/runtime_$s.json" --backend cuda --workload dataflow --check --size 256
    [ $rc -eq 0 ] && grep -q "check: passed" "$TMP/out" || { fail "$s dataflow on cuda (rc $rc)"; cat "$TMP/out"; }
    mpi 4 --schedule "$FIX/runtime_$s.json" --backend cuda --workload train --check --iterations 3
    [ $rc -eq 0 ] && grep -q "check: passed.*loss decreased" "$TMP/out" ||
        { fail "$s train on cuda (rc $rc)"; cat "$TMP/out"; }
    grep "backend cuda\|check:\|warning" "$TMP/out"
done
finish
