#!/usr/bin/env bash
# Adversarial reruns of issue 29's start-up-stop and full-disk checks, at the sizes of its "done
# when" (not part of the default suite, which runs the same scripts at a few rounds):
#   startup-stop [N]  N jobs of tessel-run on 4 ranks (default 20), one rank SIGSTOPped at a
#                     random moment 0-1.5 s after launch: every job must end within --timeout + 5 s
#                     with a message naming a rank and a phase (tests/runtime/mpi_startup_stop.sh)
#   full-disk [N]     N sweeps (default 10) on a tmpfs with 4-23 pages of room: each stops with
#                     exit 3, records no point as an error, and after space is freed --resume
#                     records every point exactly once (tests/cli/sweep_full_disk.sh; needs root)
#   all               both, at their defaults
# Each prints one line per run and ends with its verdict; the exit status is 0 when all passed.
#
# usage: tests/bench/adversarial_runtime.sh BUILD_DIR [all | startup-stop [N] | full-disk [N]]
set -u
build=${1:?usage: adversarial_runtime.sh BUILD_DIR [all | startup-stop [N] | full-disk [N]]}
what=${2:-all}
count=${3:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tests=$(cd "$here/.." && pwd)
mpiexec=$(command -v mpiexec || command -v mpirun)

startup_stop() {
    [[ -n "$mpiexec" && -x "$build/bin/tessel-run" ]] || {
        echo "startup-stop: needs mpiexec and $build/bin/tessel-run" >&2
        return 2
    }
    TESSEL_STOP_RUNS=${1:-20} bash "$tests/runtime/mpi_startup_stop.sh" "$mpiexec" \
        "$build/bin/tessel-run" "$tests"
}

full_disk() {
    TESSEL_DISK_ROUNDS=${1:-10} bash "$tests/cli/sweep_full_disk.sh" "$build/bin/tessel" "$tests"
}

case $what in
startup-stop) startup_stop "$count" ;;
full-disk) full_disk "$count" ;;
all)
    rc=0
    startup_stop || rc=1
    full_disk || rc=1
    exit $rc
    ;;
*)
    echo "adversarial_runtime.sh: unknown check '$what' (all, startup-stop, full-disk)" >&2
    exit 2
    ;;
esac
