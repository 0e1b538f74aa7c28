#!/usr/bin/env bash
# The Python package as a user installs it: wheel.sh SOURCE LIBRARY. Copies the checkout (its
# tracked and not-ignored files), makes a fresh virtual environment, runs `pip install ./python`
# in the copy, deletes the copy, and then, from /, with no TESSEL_* variable and no path into any
# checkout: `import tessel` takes the library inside the package, a search of vshape on 4 devices
# at memory 4 gives 524, tessel.model('gpt3-13b') reads the models inside the package, and
# __version__ is the library's version.
# The wheel takes LIBRARY (this build's libtessel, TESSEL_LIBRARY) by default, offline and in
# seconds; TESSEL_WHEEL_FROM_SOURCE=1 lets pip build it from the copy with CMake instead (minutes).
# No package registry is needed when one of these can build the wheel: the new environment itself
# (setuptools able to bdist_wheel: >= 70.1, or with the wheel package), then `pip install
# --no-build-isolation ./python`; else the checkout's .venv (as .ci/quickstart uses it), then `pip
# wheel --no-build-isolation ./python` there and `pip install --no-index` of that wheel in the new
# environment; else plain `pip install ./python`, which fetches setuptools. Exit 77 (skipped) only
# when python3 or its venv module is missing.
set -euo pipefail
src=$(cd "$1" && pwd) lib=$2
if ! command -v python3 >/dev/null || ! python3 -c "import venv, ensurepip" 2>/dev/null; then
  echo "wheel: skipped, python3 with its venv and ensurepip modules is not installed"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "wheel: FAILED: $*" >&2; exit 1; }

copy=$tmp/checkout
mkdir "$copy"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) |
    tar -xf - -C "$copy"
else
  tar -C "$src" --exclude='./build*' --exclude=./.venv -cf - . | tar -xf - -C "$copy"
fi
echo "== a copy of the checkout: $(find "$copy" -type f | wc -l) files"

python3 -m venv "$tmp/v"
v=$tmp/v/bin/python
builds_wheels() { "$1" -c "import setuptools.command.bdist_wheel" 2>/dev/null || "$1" -c "import setuptools, wheel" 2>/dev/null; }
unset TESSEL_LIBRARY TESSEL_BUILD_DIR TESSEL_MODELS PYTHONPATH
if [ "${TESSEL_WHEEL_FROM_SOURCE:-0}" = 1 ]; then
  what="libtessel built from the copy"
else
  export TESSEL_LIBRARY=$lib
  what="this build's libtessel"
fi
pip=(-m pip -q --disable-pip-version-check)
if builds_wheels "$v"; then
  echo "== pip install --no-build-isolation ./python, in the new environment ($what)"
  (cd "$copy" && "$v" "${pip[@]}" install --no-build-isolation ./python) >"$tmp/pip.log" 2>&1 ||
    { tail -40 "$tmp/pip.log"; fail "pip install ./python"; }
elif [ -x "$src/.venv/bin/python" ] && builds_wheels "$src/.venv/bin/python"; then
  echo "== pip wheel --no-build-isolation ./python with the checkout's .venv, pip install --no-index" \
       "of the wheel in the new environment ($what)"
  (cd "$copy" && "$src/.venv/bin/python" "${pip[@]}" wheel --no-deps --no-build-isolation \
     -w "$tmp/dist" ./python) >"$tmp/pip.log" 2>&1 || { tail -40 "$tmp/pip.log"; fail "pip wheel ./python"; }
  "$v" "${pip[@]}" install --no-index "$tmp"/dist/tessel-*.whl >>"$tmp/pip.log" 2>&1 ||
    { tail -40 "$tmp/pip.log"; fail "pip install the wheel"; }
  echo "   the wheel: $(cd "$tmp/dist" && ls tessel-*.whl), $("$v" -c 'import zipfile, glob, sys
z = zipfile.ZipFile(glob.glob(sys.argv[1] + "/tessel-*.whl")[0]).namelist()
print("%d files, %d models, libtessel.so %s" % (len(z), sum(n.startswith("tessel/models/") and
      n.endswith(".json") for n in z), "in" if "tessel/libtessel.so" in z else "MISSING"))' "$tmp/dist")"
else
  echo "== pip install ./python, in the new environment, build isolated ($what)"
  (cd "$copy" && "$v" "${pip[@]}" install ./python) >"$tmp/pip.log" 2>&1 ||
    { tail -40 "$tmp/pip.log"; fail "pip install ./python"; }
fi
unset TESSEL_LIBRARY
rm -rf "$copy"
[ ! -e "$copy" ] || fail "the copy is still there"

out=$(cd / && env -u PYTHONPATH -u TESSEL_MODELS -u TESSEL_LIBRARY "$tmp/v/bin/python" -c '
import importlib.util, os, sys, tessel
here = os.path.dirname(tessel.__file__)
assert importlib.util.find_spec("tessel.torch") is not None, "no tessel.torch in the wheel"
assert tessel.library_path() == os.path.join(here, "libtessel.so"), tessel.library_path()
s = tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4)
m = tessel.model("gpt3-13b")
assert tessel.__version__ == tessel.version(), (tessel.__version__, tessel.version())
print("tessel %s from site-packages: search(vshape, 4 devices, memory=4).makespan = %s; "
      "model(\"gpt3-13b\"): %d layers, %.3gB parameters" % (tessel.__version__, s.makespan,
      len(m["layers"]), m["params"] / 1e9))
sys.exit(0 if s.makespan == 524 and m["model"] == "gpt3-13b" else 1)
') || fail "the installed package: $out"
echo "== from /: $out"
echo "wheel: ok"
