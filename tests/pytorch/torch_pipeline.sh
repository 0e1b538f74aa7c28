#!/usr/bin/env bash
# tessel.torch end to end (torch_pipeline_check.py) on R ranks, with the library of this build.
# usage: torch_pipeline.sh LIBTESSEL R
# Python: $TESSEL_TORCH_PYTHON, else the project's .venv (`.ci/install-deps torch`), else python3;
# skipped (77) without PyTorch >= 2.5, failed instead with TESSEL_REQUIRE_TORCH=1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/torch_python.sh"
# a sanitizer build's library: its runtimes preloaded
lib=$1
. "$here/../sanitizer_preload.sh"
TESSEL_LIBRARY=$1 exec "$py" "$here/torch_pipeline_check.py" --ranks "$2"
