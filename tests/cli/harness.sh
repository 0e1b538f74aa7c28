# shellcheck shell=bash
# The harness every tests/cli/*.sh sources: numbered, named cases and one summary at the end.
# Each check is one case, numbered in the order it runs, so a failure names itself
#   case bound-2 (load term) failed: expected '48', got '47'
# and the last line counts them: "bound: 14 cases, 1 failed: bound-2". Contents:
#   check NAME CMD...            passes when CMD exits 0
#   check_rc NAME WANT GOT       passes when the exit status GOT is WANT
#   check_eq NAME WANT GOT       passes when the text GOT is WANT
#   check_status STATUS NAME [DETAIL...]  passes when STATUS is 0; STATUS comes first because
#                                it is read before the other words expand (their $(...) reset $?)
#   fail_case NAME [DETAIL...]   one case that failed outright
#   expect_rc CODE NEEDLE ARGS...  "$tessel" ARGS exits CODE, its stderr holds NEEDLE, no
#                                sanitizer report (the script names the binary: tessel=$1)
#   json_get FILE EXPR, get EXPR   print j EXPR of a JSON file, of JSON on stdin
#   skip_all REASON              nothing to test in this build: says why and exits 0
#   harness_end                  the summary; exits 1 when a case failed, or when none ran
# Source it first thing: . "$(dirname "${BASH_SOURCE[0]}")/harness.sh"

# The suite is the script's name: cases of tests/cli/bound.sh are bound-1, bound-2, ...
h_suite=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
h_cases=0
h_failed=""

# Starts a case: numbers it and leaves its id in h_id.
h_begin() {
  h_cases=$((h_cases + 1))
  h_id="$h_suite-$h_cases"
}

# Records the current case as failed with its name and the lines of detail.
h_fail() {
  local name=$1 line
  shift
  echo "case $h_id ($name) failed${1:+: $1}"
  shift
  for line in "$@"; do
    [[ -n "$line" ]] && sed 's/^/  /' <<<"$line"
  done
  h_failed="$h_failed $h_id"
}

check() {
  local name=$1
  shift
  h_begin
  "$@" || h_fail "$name" "command failed: $*"
}

check_rc() {
  h_begin
  [[ $2 -eq $3 ]] || h_fail "$1" "expected exit $2, got $3"
}

check_eq() {
  h_begin
  [[ "$3" == "$2" ]] || h_fail "$1" "expected '$2', got '$3'"
}

check_status() {
  local status=$1 name=$2
  shift 2
  h_begin
  [[ $status -eq 0 ]] || h_fail "$name" "$@"
}

fail_case() {
  local name=$1
  shift
  h_begin
  h_fail "$name" "$@"
}

expect_rc() {
  local code=$1 needle=$2 err rc
  shift 2
  # shellcheck disable=SC2154 # the sourcing script sets tessel
  err=$("${tessel:?expect_rc runs \$tessel: set tessel=\$1 first}" "$@" 2>&1 >/dev/null)
  rc=$?
  h_begin
  if [[ $rc -ne $code ]]; then
    h_fail "tessel $*" "exit $rc, expected $code" "stderr: $err"
  elif [[ "$err" != *"$needle"* ]]; then
    h_fail "tessel $*" "the message lacks '$needle'" "stderr: $err"
  elif [[ "$err" == *"Sanitizer"* || "$err" == *"runtime error"* ]]; then
    h_fail "tessel $*" "sanitizer report" "$err"
  fi
}

json_get() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j$2)" "$1"; }
get() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval("j"+sys.argv[1]))' "$1"; }

skip_all() {
  echo "$h_suite: skipped: $*"
  exit 0
}

harness_end() {
  local nfail
  nfail=$(wc -w <<<"$h_failed")
  if [[ $h_cases -eq 0 ]]; then
    echo "$h_suite: no case ran"
    exit 1
  fi
  echo "$h_suite: $h_cases cases, $nfail failed${h_failed:+:$h_failed}"
  [[ $nfail -eq 0 ]] || exit 1
  exit 0
}
