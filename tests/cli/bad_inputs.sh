#!/usr/bin/env bash
# The bad-input corpus: every case must exit with its code and name the problem on stderr,
# never crash (a sanitizer report or a signal fails the case too). One case per line of
# tests/bad/cases.tsv.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# shellcheck disable=SC2034 # tessel: the binary expect_rc runs
tessel=$1; tests=$2
# a build without the solver answers every search and plan alike ("no solver"): those cases are
# left out
solver=1
"$tessel" search --help 2>&1 | grep -q -- "--effort" || solver=0
while IFS=$'\t' read -r code needle args; do
  [[ -z "$code" || "$code" == \#* ]] && continue
  [[ $solver == 0 && ($args == search* || $args == plan*) ]] && continue
  args=${args//\{D\}/$tests}
  # shellcheck disable=SC2086
  expect_rc "$code" "$needle" $args
done < "$tests/bad/cases.tsv"
harness_end
