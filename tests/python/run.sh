#!/usr/bin/env bash
# The package's pytest suite (tests/python/test_*.py) on the library and the `tessel` binary of
# one build: run.sh LIBRARY TESSEL [PYTEST ARGS...]. Python is the project's .venv when there is
# one, else python3. Without pytest it is skipped (exit 77), unless TESSEL_REQUIRE_PYTEST=1 (CI),
# where that fails. A sanitizer build's library needs the sanitizer runtimes loaded first, as a
# python3 binary has none: they are preloaded, and leak checking is off (the interpreter itself
# keeps memory to the end), so ASan still stops on any bad access and UBSan on undefined behaviour.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=$1 bin=$2
shift 2
py=python3
[ -x "$root/.venv/bin/python" ] && py="$root/.venv/bin/python"
if ! "$py" -c "import pytest" 2>/dev/null; then
  if [ "${TESSEL_REQUIRE_PYTEST:-0}" = 1 ]; then
    echo "python: pytest is not importable by $py (.ci/install-deps python installs it)" >&2
    exit 1
  fi
  echo "python: skipped, pytest is not importable by $py"
  exit 77
fi
export TESSEL_LIBRARY=$lib TESSEL_BIN=$bin
. "$(dirname "${BASH_SOURCE[0]}")/../sanitizer_preload.sh"
cd "$here"
if [ $# -gt 0 ]; then
  exec "$py" -m pytest -q -p no:cacheprovider "$@"
fi
exec "$py" -m pytest -q -p no:cacheprovider "$here"
