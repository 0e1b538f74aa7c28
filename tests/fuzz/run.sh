#!/usr/bin/env bash
# Runs every libFuzzer target of a TESSEL_FUZZ build for SECONDS each (a smoke test in CI; longer
# by hand), seeded from tests/fixtures, tests/bad and tests/fuzz/seeds. A crash, sanitizer report, broken invariant,
# timeout (10 s per input) or memory blow-up (2 GB) fails the run; the input that did it is left in
# BUILD/fuzz/artifacts/ and belongs in tests/bad once fixed.
#   tests/fuzz/run.sh BUILD [SECONDS] [TARGET...]
set -euo pipefail
build=${1:?usage: tests/fuzz/run.sh BUILD [SECONDS] [TARGET...]}
secs=${2:-60}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
tests=$(dirname "$here")
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then # every target built (fuzz_api_request only with `tessel serve`)
  for bin in "$build"/bin/fuzz_*; do [ -x "$bin" ] && targets+=("${bin##*/fuzz_}"); done
fi
mkdir -p "$build/fuzz/artifacts"
fail=0
for t in "${targets[@]}"; do
  corpus="$build/fuzz/corpus-$t"
  mkdir -p "$corpus"
  echo "== fuzz_$t for ${secs} s"
  if ! "$build/bin/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
       -dict="$here/json.dict" -artifact_prefix="$build/fuzz/artifacts/$t-" \
       -print_final_stats=1 "$corpus" "$tests/fixtures" "$tests/bad" "$here/seeds" \
       >"$build/fuzz/$t.log" 2>&1; then
    echo "FAIL: fuzz_$t (log: $build/fuzz/$t.log)"; tail -40 "$build/fuzz/$t.log"; fail=1
  fi
  grep -E "^#[0-9]+.*(DONE|pulse)" "$build/fuzz/$t.log" | tail -1 || true
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/fuzz/$t.log" || true
done
exit $fail
