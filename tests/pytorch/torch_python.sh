# Sourced by the PyTorch tests: sets py to a Python with PyTorch >= 2.5 ($TESSEL_TORCH_PYTHON,
# else the project's .venv from `.ci/install-deps torch`, else python3), or exits 77 (skipped;
# 1 with TESSEL_REQUIRE_TORCH=1). Needs root, the checkout's top folder.
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
