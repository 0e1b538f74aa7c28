#!/usr/bin/env bash
# The documentation agrees with the program: every command that `tessel --help` lists has a page
# of docs/ that names it (the map below) and every long option of `tessel CMD --help` (and of
# `tessel placement --model M --help`, and `tessel-run --help` when it is built) appears in that
# page; README.md, the entrance, is at most 12 KB; and every relative link in README.md and
# docs/ (pictures included) leads to a file that exists, and its #anchor, when it has one, to a
# heading of that file.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1
root=$(cd "$2/.." && pwd)
# the docs describe the full build: without the solver the commands that need it print a stub
"$tessel" search --help 2>&1 | grep -q -- "--effort" || skip_all "no solver in this build"

# The page of each command. A new command gets a page (or a section of one) and a line here.
declare -A page=(
  [placements]=docs/cli.md
  [placement]=docs/cli.md
  [bound]=docs/cli.md
  [validate]=docs/cli.md
  [simulate]=docs/cli.md
  [import]=docs/cli.md
  [export]=docs/cli.md
  [search]=docs/search.md
  [baseline]=docs/baselines-compare-pictures.md
  [compare]=docs/baselines-compare-pictures.md
  [show]=docs/baselines-compare-pictures.md
  [render]=docs/baselines-compare-pictures.md
  [trace]=docs/baselines-compare-pictures.md
  [sweep]=docs/sweeps.md
  [serve]=docs/serve.md
  [model]=docs/models-and-plans.md
  [plan]=docs/models-and-plans.md
)

# The long options a help text names (--help itself aside: every command has it).
long_options() { grep -o -- '--[a-z][a-z0-9-]*' | grep -vx -- '--help' | sort -u; }

# check_page NAME PAGE HELP_TEXT: PAGE exists, names NAME, and holds every long option of HELP;
# and HELP itself is wrapped at 80 columns, as a terminal and the man pages want it.
check_page() {
  local name=$1 file=$root/$2 help=$3 opt
  local wide
  wide=$(awk 'length > 80' <<<"$help" | head -2)
  [[ -z $wide ]]; check_status $? "$name --help: within 80 columns" "$wide"
  check "$name: its page $2 exists" test -f "$file"
  [[ -f $file ]] || return
  grep -qE -- "$name([^a-z-]|\$)" "$file"
  check_status $? "$name: $2 names it" "no '$name' in $2"
  while IFS= read -r opt; do
    [[ -n $opt ]] || continue
    grep -qE -- "$opt([^a-z0-9-]|\$)" "$file"
    check_status $? "$name $opt: in $2" "'$name --help' lists $opt; $2 does not mention it"
  done < <(long_options <<<"$help")
}

# The commands `tessel --help` lists: the indented words under "Commands:".
commands=$("$tessel" --help 2>&1 | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on = 0}')
check "tessel --help lists commands" test -n "$commands"
for cmd in $commands; do
  if [[ -z ${page[$cmd]:-} ]]; then
    fail_case "$cmd: has a page" "tessel --help lists '$cmd', which has no page in the map of tests/cli/docs.sh"
    continue
  fi
  check_page "tessel $cmd" "${page[$cmd]}" "$("$tessel" "$cmd" --help 2>&1)"
done
check_page "tessel placement --model" docs/models-and-plans.md \
  "$("$tessel" placement --model M --help 2>&1)"
run=$(dirname "$tessel")/tessel-run
if [[ -x $run ]]; then
  check_page "tessel-run" docs/runtime.md "$("$run" --help 2>&1)"
fi

# The entrance stays an entrance.
size=$(wc -c <"$root/README.md")
[[ $size -le 12288 ]]; check_status $? "README.md is at most 12 KB" "$size bytes"

# Relative links and their anchors (GitHub's heading ids: lower case, punctuation dropped,
# spaces as hyphens, a repeated heading numbered -1, -2, ...).
mds=$(cd "$root" && { echo README.md; find docs -name '*.md' | sort; })
# shellcheck disable=SC2086 # one argument per file: the names hold no spaces
bad=$(python3 - "$root" $mds <<'PY'
import os, re, sys
root = sys.argv[1]
def text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()
cache = {}
def anchors(path):
    if path not in cache:
        seen, out, fence = {}, set(), False
        for line in text(path).split("\n"):
            if line.startswith("```"):
                fence = not fence
            m = None if fence else re.match(r"#{1,6} +(.*?) *#* *$", line)
            if m:
                slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                out.add(slug if n == 0 else "%s-%d" % (slug, n))
        cache[path] = out
    return cache[path]
for md in sys.argv[2:]:
    src = text(os.path.join(root, md))
    src = re.sub(r"```.*?```", "", src, flags=re.S)    # code blocks hold no links
    src = re.sub(r"`[^`\n]*`", "", src)                # nor code spans
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", src):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(root, os.path.dirname(md), path)) if path else os.path.join(root, md)
        if not os.path.exists(full):
            print("%s\t%s: no such file" % (md, target))
        elif anchor and full.endswith(".md") and anchor not in anchors(full):
            print("%s\t%s: no such heading" % (md, target))
PY
)
check_status $? "the link check ran (python3)"
for md in $mds; do
  mine=$(awk -F'\t' -v f="$md" '$1 == f {print $2}' <<<"$bad")
  [[ -z $mine ]]; check_status $? "links of $md resolve" "broken links:" "$mine"
done
# The man pages are the help texts: regenerated (docs/man/generate.sh) whenever one changes.
out=$(bash "$root/docs/man/generate.sh" "$tessel" --check 2>&1)
check_status $? "the man pages are the current help texts" "$out"
harness_end
