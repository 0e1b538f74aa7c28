# Sourced by the tests that load libtessel into a Python interpreter: when the library (the path
# in lib) is a sanitizer build's, the sanitizer runtimes are preloaded, as a python binary has
# none; leak checking off (the interpreter keeps memory to the end), so ASan still stops on any
# bad access and UBSan on undefined behaviour.
# Not `ldd | grep -q`: under pipefail, grep leaving at its first match can kill ldd with SIGPIPE
# mid-listing, the pipeline then fails, and the runtimes were not preloaded (about 1 run in 12).
deps=$(ldd "$lib")
if [[ $deps == *libasan* ]]; then
  pre=""
  for rt in libasan.so libubsan.so; do
    f=$(${CC:-cc} -print-file-name=$rt)
    [ -f "$f" ] && pre="$pre${pre:+:}$f"
  done
  export LD_PRELOAD=$pre ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
fi
