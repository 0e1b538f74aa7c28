#!/usr/bin/env bash
# tessel plan's and tessel.torch's torchtitan job files read by torchtitan 0.2.2's own parser
# (titan_jobfile.py). usage: titan_jobfile.sh TESSEL LIBTESSEL
# torchtitan 0.2.2's files: $TESSEL_TORCHTITAN_JOBFILE, else .venv/torchtitan-0.2.2
# (`.ci/install-deps torch`); without them, or without PyTorch, skipped (77), failed instead
# with TESSEL_REQUIRE_TORCH=1.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/torch_python.sh"
site=${TESSEL_TORCHTITAN_JOBFILE:-$root/.venv/torchtitan-0.2.2}
if [[ ! -f $site/torchtitan/config/manager.py ]]; then
  echo "no torchtitan 0.2.2 at $site (.ci/install-deps torch installs it)"
  [[ ${TESSEL_REQUIRE_TORCH:-} == 1 ]] && exit 1
  exit 77
fi
lib=$2
. "$here/../sanitizer_preload.sh"
# (torchtitan's parser says its tokenizer's assets are missing: it reads no tokenizer here)
TESSEL_LIBRARY=$2 exec "$py" "$here/titan_jobfile.py" "$1" "$root/models" "$site"
