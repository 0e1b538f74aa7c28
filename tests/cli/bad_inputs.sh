#!/usr/bin/env bash
# The bad-input corpus: every case must exit with its code and name the problem on stderr,
# never crash (a sanitizer report or a signal fails the case too).
set -u
tessel=$1; tests=$2
fail=0; n=0
while IFS=$'\t' read -r code needle args; do
  [[ -z "$code" || "$code" == \#* ]] && continue
  n=$((n + 1))
  args=${args//\{D\}/$tests}
  # shellcheck disable=SC2086
  err=$("$tessel" $args 2>&1 >/dev/null); rc=$?
  if [[ $rc -ne $code ]]; then
    echo "FAIL ($rc != $code): tessel $args"; echo "  stderr: $err"; fail=1
  elif [[ "$err" != *"$needle"* ]]; then
    echo "FAIL (message): tessel $args"; echo "  expected: $needle"; echo "  stderr:   $err"; fail=1
  elif [[ "$err" == *"Sanitizer"* || "$err" == *"runtime error"* ]]; then
    echo "FAIL (sanitizer): tessel $args"; echo "$err"; fail=1
  fi
done < "$tests/bad/cases.tsv"
echo "$n bad-input cases checked"
exit $fail
