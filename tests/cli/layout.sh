#!/usr/bin/env bash
# The layout documentation agrees with the tree: every folder of src/ (but the explorer's page
# assets) has a README.md of 10 to 20 lines and a row in the layout table of the top README.md,
# and every row of that table names folders that exist.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
root=$(cd "$2/.." && pwd)
readme=$root/README.md
# the rows of the table under "## Layout": the first cell, its folders in backquotes
rows=$(awk '/^## Layout/ {on = 1; next} /^## / {on = 0} on && /^\| `/' "$readme" |
  cut -d'|' -f2 | grep -o '`[^`]*`' | tr -d '`')
check "the layout table has rows" test -n "$rows"
for dir in $rows; do
  check "layout row $dir exists" test -d "$root/$dir"
done
while IFS= read -r dir; do
  rel=${dir#"$root"/}
  check "$rel/README.md exists" test -f "$dir/README.md"
  n=$(wc -l 2>/dev/null <"$dir/README.md" || echo 0)
  [[ $n -ge 10 && $n -le 20 ]]; check_status $? "$rel/README.md has 10-20 lines" "$n lines"
  grep -qx -- "$rel/" <<<"$rows"; check_status $? "$rel/ has a row in the layout table"
done < <(find "$root/src" -mindepth 1 -type d -not -path "*/serve/assets" | sort)
harness_end
