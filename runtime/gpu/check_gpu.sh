#!/usr/bin/env bash
# The GPU check of tessel-run, for a machine with an NVIDIA GPU: builds with the CUDA backend,
# runs the runtime tests (the CUDA ones included), the GEMM benchmark against cuBLAS's peak, and
# the CUDA workloads with their checks. Prints everything; the last lines are a summary.
#
#   runtime/gpu/check_gpu.sh [BUILD_DIR]        (default build-gpu, from the repository root)
#
# A machine without MPI can bring it: put Debian's OpenMPI packages (openmpi-bin, libopenmpi3,
# libopenmpi-dev and their libraries: libpmix2, libhwloc15, libevent-*, libfabric1, libucx0, ...)
# unpacked with `dpkg -x PKG.deb DIR` into one folder and set MPI_ROOT=DIR before running this.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-gpu}
summary=()
note() { summary+=("$*"); echo "== $*"; }

if [ -n "${MPI_ROOT:-}" ]; then
    export PATH="$MPI_ROOT/usr/bin:$PATH"
    export LD_LIBRARY_PATH="$(find "$MPI_ROOT" -name '*.so*' -printf '%h\n' | sort -u | tr '\n' ':')${LD_LIBRARY_PATH:-}"
    export OPAL_PREFIX="$MPI_ROOT/usr"
    export CMAKE_PREFIX_PATH="$MPI_ROOT/usr:${CMAKE_PREFIX_PATH:-}"
    export OMPI_MCA_plm_rsh_agent=false # single node: no ssh
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1

nvidia-smi -L || note "nvidia-smi found no GPU"
mkdir -p "$build"
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 >"$build/check_gpu.cmake.log" 2>&1; then
    tail -30 "$build/check_gpu.cmake.log"
    note "configure FAILED"
    exit 1
fi
grep "tessel-run:" "$build/check_gpu.cmake.log"
if ! cmake --build "$build" -j "$(nproc)" --target tessel-run tessel-gemm-bench test_rt_plan test_rt_report rt_greedy >"$build/check_gpu.build.log" 2>&1; then
    tail -40 "$build/check_gpu.build.log"
    note "build FAILED"
    exit 1
fi
note "build ok"

(cd "$build" && ctest -R runtime --output-on-failure) && note "runtime tests passed" || note "runtime tests FAILED"

if [ -x "$build/bin/tessel-gemm-bench" ]; then
    "$build/bin/tessel-gemm-bench" 64 128 256 512 1024 2048 4096 8192 && note "GEMM benchmark ran (table above)"
else
    note "no tessel-gemm-bench: the CUDA backend was not built"
fi

run() { mpirun --oversubscribe -np "$1" "$build/bin/tessel-run" "${@:2}"; }
F=tests/fixtures
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
for w in dataflow train; do
    for s in vshape_1f1b kshape xshape; do
        if run 4 --schedule $F/runtime_$s.json --backend cuda --workload $w --check --iterations 3 --size 512; then
            note "cuda $w --check $s: ok ($ngpu GPU(s) for 4 ranks)"
        else
            note "cuda $w --check $s: FAILED"
        fi
    done
done
run 4 --schedule $F/runtime_vshape_1f1b.json --backend cuda --workload dataflow --size 4096 --iterations 3 --json &&
    note "cuda dataflow at size 4096: see the JSON above (throughput, efficiency)"
run 4 --schedule $F/runtime_kshape.json --backend cuda --workload timing --unit-us 2000 --iterations 3 &&
    note "cuda timing workload ran"
# tessel.torch end to end (tests/bench/bench_torch_pipeline.py): NCCL, one GPU per rank
py=${TESSEL_TORCH_PYTHON:-python3}
[ -x .venv/bin/python ] && [ -z "${TESSEL_TORCH_PYTHON:-}" ] && py=.venv/bin/python
if ! "$py" -c 'import torch' 2>/dev/null; then
    note "tessel.torch bench: no torch for $py"
elif cmake --build "$build" --target tessel_py >>"$build/check_gpu.build.log" 2>&1; then
    TESSEL_LIBRARY=$build/lib/libtessel.so "$py" tests/bench/bench_torch_pipeline.py \
        >"$build/bench_torch.log" 2>&1
    tail -25 "$build/bench_torch.log"
    note "tessel.torch bench: $(grep '^SUMMARY' "$build/bench_torch.log" || echo FAILED)"
else
    note "tessel.torch bench: libtessel (tessel_py) did not build"
fi
echo
echo "== summary"
printf '%s\n' "${summary[@]}"
