#!/usr/bin/env bash
# `cmake --install` as a user meets it: install.sh SOURCE BUILD CC. Configures SOURCE afresh
# (tests and CUDA off), builds and installs into a temporary prefix, then from another folder,
# with nothing of the checkout on any path: the installed tessel searches a built-in (524 for
# vshape on 4 devices at memory 4), `tessel model gpt3-13b` reads the installed models, `tessel
# serve --port 0` answers GET /api/info; a ten-line C program (consumer/search.c) builds against
# the prefix with `pkg-config --cflags --libs tessel` and with a CMake project's
# find_package(Tessel), shared and static, and prints the same makespan.
# TESSEL_INSTALL_FROM_BUILD=1 installs BUILD (this build tree, already built) instead of building
# afresh: the same checks in seconds. Exit 77 (skipped) only when a tool it needs is missing.
set -euo pipefail
src=$(cd "$1" && pwd) build=$2 cc=$3
here=$(cd "$(dirname "$0")" && pwd)
for tool in cmake pkg-config curl "$cc"; do
  if ! command -v "$tool" >/dev/null; then
    echo "install: skipped, $tool is not installed"
    exit 77
  fi
done
tmp=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
prefix=$tmp/prefix
fail() { echo "install: FAILED: $*" >&2; exit 1; }

if [ "${TESSEL_INSTALL_FROM_BUILD:-0}" = 1 ]; then
  echo "== cmake --install $build --prefix PREFIX"
  cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "install"; }
else
  echo "== configure, build and install into a temporary prefix"
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$src" -B "$tmp/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$cc" \
    -DTESSEL_BUILD_TESTS=OFF -DTESSEL_CUDA=OFF -DCMAKE_INSTALL_PREFIX="$prefix" "${launcher[@]}" \
    >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "configure"; }
  cmake --build "$tmp/build" -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" >>"$tmp/build.log" 2>&1 ||
    { tail -50 "$tmp/build.log"; fail "build"; }
  cmake --install "$tmp/build" >>"$tmp/build.log" 2>&1 || { tail -20 "$tmp/build.log"; fail "install"; }
  rm -rf "$tmp/build"
fi
(cd "$prefix" && find . -type f -o -type l | grep -v '^./include/tessel/ts_\|^./share/tessel/models/' | sort)
for page in man1/tessel.1 man1/tessel-run.1; do
  [ -f "$prefix/share/man/$page" ] || fail "no $page in share/man"
done
echo "   + $(ls "$prefix/include/tessel" | wc -l) headers, $(find "$prefix/share/tessel/models" -name '*.json' | wc -l) model files"

# From a folder of its own, with the environment's pointers into the checkout cleared.
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
unset TESSEL_MODELS TESSEL_LIBRARY
t=$prefix/bin/tessel
echo "== tessel --version: $("$t" --version)"
"$t" search --placement vshape --ndevs 4 --memory 4 -o vshape4.json >search.out 2>&1 ||
  { cat search.out; fail "tessel search"; }
echo "== tessel search --placement vshape --ndevs 4 --memory 4: $(grep -m1 makespan search.out)"
grep -q "makespan 524," search.out || { cat search.out; fail "tessel search: no makespan 524"; }
"$t" model gpt3-13b >model.out 2>&1 || { cat model.out; fail "tessel model gpt3-13b"; }
echo "== tessel model gpt3-13b: $(head -1 model.out)"
grep -q "^gpt3-13b: GPT-3 13B" model.out || fail "tessel model gpt3-13b: unexpected output"
"$t" model >models.out 2>&1 || { cat models.out; fail "tessel model"; }
grep -q "models ($prefix/share/tessel/models)" models.out ||
  { cat models.out; fail "tessel model does not list the installed models folder"; }

if "$t" serve --help >/dev/null 2>&1; then
  "$t" serve --port 0 >serve.out 2>serve.err &
  server=$!
  url=
  for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.]*:[0-9]*/' serve.out || true)
    [ -n "$url" ] && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$url" ] || { cat serve.out serve.err; fail "tessel serve printed no address"; }
  info=$(curl -sf "${url}api/info") || fail "GET ${url}api/info"
  echo "== tessel serve --port 0: GET /api/info: ${info:0:100}"
  kill "$server"
  wait "$server" || true
  server=
else
  echo "== tessel serve: not built (no libmicrohttpd)"
fi

# The C program: through pkg-config (shared), then find_package(Tessel) (shared and static).
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name tessel.pc)")
flags=$(pkg-config --cflags --libs tessel)
echo "== pkg-config --cflags --libs tessel: $flags"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror "$here/consumer/search.c" $flags -o search-pc
libdir=$(pkg-config --variable=libdir tessel)
got=$(LD_LIBRARY_PATH=$libdir ./search-pc)
echo "   ./search-pc: $got"
[ "$got" = "makespan 524" ] || fail "the pkg-config build printed '$got'"

cmake -S "$here/consumer" -B consumer -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" \
  >consumer.log 2>&1 || { cat consumer.log; fail "find_package(Tessel)"; }
cmake --build consumer >>consumer.log 2>&1 || { cat consumer.log; fail "building against Tessel::"; }
echo "== find_package(Tessel): $(grep -o 'Tessel [0-9.]*, models in .*' consumer.log | sed "s|$prefix|PREFIX|")"
for exe in search search_static; do
  got=$(./consumer/$exe)
  echo "   consumer/$exe: $got"
  [ "$got" = "makespan 524" ] || fail "consumer/$exe printed '$got'"
done
echo "install: ok"
