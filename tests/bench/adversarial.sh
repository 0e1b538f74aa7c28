#!/usr/bin/env bash
# The adversarial campaign's checks, rerun so that the next change can be held to them (issue 29).
# A benchmark, not part of the default suite: each check prints its figures and says PASS or FAIL;
# the exit status is the number of checks that failed.
#   slow-clients  200 and 1000 connections trickle a request one header line a second while
#                 normal requests are made: each normal request must be answered within 1 s,
#                 and the server must close every trickling connection (tests/serve/slow_clients.py)
#   startup-stop  SIGSTOP of a rank during tessel-run's start-up: the job ends within
#                 --timeout + 5 s with a message
#   full-disk     a sweep on a small full filesystem: no point recorded as an error for want
#                 of space, and --resume runs them once space is freed
# A hook is a function named check_NAME below; a check whose function is missing is reported as
# NOT YET and does not count as a failure.
#
# usage: tests/bench/adversarial.sh BUILD_DIR [CHECK...]   (default: every check)
set -u
build=${1:?usage: adversarial.sh BUILD_DIR [CHECK...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
tessel=$build/bin/tessel
[ -x "$tessel" ] || { echo "adversarial.sh: no $tessel (build first)" >&2; exit 2; }
checks=("$@")
[ ${#checks[@]} -eq 0 ] && checks=(slow-clients startup-stop full-disk)

check_slow_clients() {
    local ok=0
    for n in 200 1000; do
        echo "-- $n slow clients"
        python3 "$here/serve/slow_clients.py" "$tessel" --clients "$n" --max-latency 1 || ok=1
    done
    return $ok
}

# 20 start-up stops and 10 full-disk rounds, the sizes of issue 29's "done when"
# (tests/bench/adversarial_runtime.sh; full-disk needs root).
check_startup_stop() {
    bash "$here/bench/adversarial_runtime.sh" "$build" startup-stop 20
}

check_full_disk() {
    bash "$here/bench/adversarial_runtime.sh" "$build" full-disk 10
}

failed=0
for c in "${checks[@]}"; do
    fn=check_${c//-/_}
    echo "== $c"
    if ! declare -F "$fn" >/dev/null; then
        echo "NOT YET $c (no $fn in this script)"
    elif "$fn"; then
        echo "PASS $c"
    else
        echo "FAIL $c"
        failed=$((failed + 1))
    fi
done
exit $failed
