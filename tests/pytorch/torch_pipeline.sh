#!/usr/bin/env bash
# tessel.torch end to end (torch_pipeline_check.py) on R ranks, with the library of this build.
# usage: torch_pipeline.sh LIBTESSEL R
# Python: $TESSEL_TORCH_PYTHON, else the project's .venv (`.ci/install-deps torch`), else python3;
# skipped (77) without PyTorch >= 2.5, failed instead with TESSEL_REQUIRE_TORCH=1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
py=${TESSEL_TORCH_PYTHON:-}
[[ -z $py && -x $root/.venv/bin/python ]] && py=$root/.venv/bin/python
py=${py:-python3}
if ! "$py" -c 'import re, sys, torch
sys.exit(tuple(int(x) for x in re.findall(r"\d+", torch.__version__)[:2]) < (2, 5))' 2>/dev/null
then
  echo "no PyTorch >= 2.5 for $py (.ci/install-deps torch installs it)"
  [[ ${TESSEL_REQUIRE_TORCH:-} == 1 ]] && exit 1
  exit 77
fi
# A sanitizer build's library needs the sanitizer runtimes loaded first, as a python binary has
# none (tests/python/run.sh does the same): preloaded, leak checking off (the interpreter keeps
# memory to the end), so ASan still stops on any bad access and UBSan on undefined behaviour.
deps=$(ldd "$1")
if [[ $deps == *libasan* ]]; then
  pre=""
  for rt in libasan.so libubsan.so; do
    f=$(${CC:-cc} -print-file-name=$rt)
    [ -f "$f" ] && pre="$pre${pre:+:}$f"
  done
  export LD_PRELOAD=$pre ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
TESSEL_LIBRARY=$1 exec "$py" "$here/torch_pipeline_check.py" --ranks "$2"
