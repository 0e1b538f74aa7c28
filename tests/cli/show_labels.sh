#!/usr/bin/env bash
# tessel show tells every block apart on its device (issue 43: a label was the first letter of
# the block's id, so two chunks' forwards on one device both printed F0): where two blocks of one
# device share a letter, a cell holds the block's id and its micro-batch (F0c1:0); elsewhere the
# letter stays (vshape's F0, B0).
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$tessel" baseline interleaved --placement vshape_interleaved --ndevs 2 --chunks 2 -n 4 \
  -o "$tmp/vi.json" >/dev/null
check_status $? "interleaved baseline"
out=$("$tessel" show "$tmp/vi.json" 2>&1)
for label in F0c0:0 F0c1:0 B0c0:0 B0c1:0 F1c0:3 B1c1:1; do
  grep -q "$label" <<<"$out"; check_status $? "label $label" "$out"
done
"$tessel" baseline 1f1b --placement vshape --ndevs 4 -n 4 -o "$tmp/v.json" >/dev/null
out=$("$tessel" show "$tmp/v.json" 2>&1)
grep -q "^dev 0   F0F1F2F3" <<<"$out"; check_status $? "letters where they tell blocks apart" "$out"
harness_end
