#!/usr/bin/env bash
# tessel bound: every term, the one that binds, and the memory term under --memory.
set -u
tessel=$1
fail=0
get() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(eval("j"+sys.argv[1]))' "$1"; }

# one micro-batch of mshape crosses 32 devices twice: far above N * load at N = 8
out=$("$tessel" bound --placement mshape --ndevs 32 -n 8 --json) || { echo "FAIL: bound"; fail=1; }
[[ $(get "['terms']['load']" <<<"$out") == 48 ]] || { echo "FAIL: load term"; fail=1; }
[[ $(get "['terms']['critical_path']" <<<"$out") == 130 ]] || { echo "FAIL: critical path"; fail=1; }
[[ $(get "['terms']['one_machine']" <<<"$out") == 158 ]] || { echo "FAIL: one-machine term"; fail=1; }
# S and S' stop all 32 devices: 2 x 8 steps of pauses on top of the V's own bound at N = 8
# (156, which GPipe meets); GPipe's mshape schedule takes 172 too, so 172 is exact
[[ $(get "['binding']" <<<"$out") == pauses ]] || { echo "FAIL: binding term"; fail=1; }
[[ $(get "['terms']['pauses']" <<<"$out") == 172 ]] || { echo "FAIL: pauses term"; fail=1; }
gp=$("$tessel" baseline gpipe --placement mshape --ndevs 32 -n 8 | "$tessel" simulate - --json | get "['planned_makespan']")
[[ $gp == 172 ]] || { echo "FAIL: gpipe on mshape 32 x 8 takes $gp, not the bound 172"; fail=1; }
[[ $(get "['lower_bound'] == max(v for v in j['terms'].values() if v is not None)" <<<"$out") \
  == True ]] || { echo "FAIL: the bound is the largest term"; fail=1; }
[[ $(get "['terms']['memory']" <<<"$out") == None ]] || { echo "FAIL: memory term without memory"; fail=1; }

# one unit of memory per device: one micro-batch at a time, the memory term binds
out=$("$tessel" bound --placement vshape --ndevs 4 -n 16 --memory 1 --json)
[[ $(get "['binding']" <<<"$out") == memory ]] || { echo "FAIL: memory binds"; fail=1; }
[[ $(get "['terms']['pauses']" <<<"$out") == None ]] || { echo "FAIL: pauses without a block on every device"; fail=1; }
[[ $(get "['lower_bound']" <<<"$out") == 256 ]] || { echo "FAIL: 16 sequential micro-batches"; fail=1; }
# the old bound is still there, and the text form names the binding term
"$tessel" bound --placement vshape --ndevs 4 -n 128 | grep -q "524 (load" ||
  { echo "FAIL: text form"; fail=1; }
"$tessel" bound --placement vshape --ndevs 4 -n 8 --memory x >/dev/null 2>&1
[[ $? -eq 2 ]] || { echo "FAIL: bad --memory"; fail=1; }
exit $fail
