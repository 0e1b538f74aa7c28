#!/usr/bin/env bash
# tessel export writes only what it can vouch for, at the N every command takes (issue 43):
# -n below the file's micro-batches exports the first N (as simulate and show take it; it was
# refused), and an invalid schedule (an action twice, one missing, a broken dependency, an
# overlap) is refused with exit 1 and nothing written, in both formats, where it wrote a CSV
# with exit 0 that `import --pytorch` then refused.
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tests=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tessel" baseline 1f1b --placement vshape_zb --ndevs 4 -n 8 -o "$tmp/b8.json" >/dev/null
check_status $? "baseline of 8 micro-batches"
"$tessel" export --pytorch "$tmp/b8.json" -n 4 -o "$tmp/b4.csv" 2>"$tmp/err"
check_status $? "export -n 4 of an 8-micro-batch schedule" "$(cat "$tmp/err")"
check_eq "the first 4 micro-batches" "0 1 2 3" \
  "$(tr ',' '\n' <"$tmp/b4.csv" | sed 's/^[0-9]*[A-Z]//' | sort -un | tr '\n' ' ' | sed 's/ $//')"
"$tessel" import --pytorch "$tmp/b4.csv" --placement vshape_zb --ndevs 4 -o "$tmp/back.json" \
  >/dev/null 2>"$tmp/err"
check_status $? "import takes it back" "$(cat "$tmp/err")"

for f in duplicate_instance missing_instance broken_dep overlap; do
  for fmt in pytorch python; do
    "$tessel" export --$fmt "$tests/bad/$f.json" -o "$tmp/$f.out" 2>"$tmp/err"
    check_rc "$f --$fmt: exit 1" 1 $?
    grep -q "invalid schedule, nothing written" "$tmp/err"; check_status $? "$f --$fmt: says why" "$(cat "$tmp/err")"
    [ ! -e "$tmp/$f.out" ]; check_status $? "$f --$fmt: nothing written"
  done
done
harness_end
