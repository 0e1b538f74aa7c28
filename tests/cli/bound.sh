#!/usr/bin/env bash
# tessel bound: every term, the one that binds, and the memory term under --memory.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
tessel=$1

# one micro-batch of mshape crosses 32 devices twice: far above N * load at N = 8
out=$("$tessel" bound --placement mshape --ndevs 32 -n 8 --json)
check_rc "bound" 0 $?
check_eq "load term" 48 "$(get "['terms']['load']" <<<"$out")"
check_eq "critical path" 130 "$(get "['terms']['critical_path']" <<<"$out")"
check_eq "one-machine term" 158 "$(get "['terms']['one_machine']" <<<"$out")"
# S and S' stop all 32 devices: 2 x 8 steps of pauses on top of the V's own bound at N = 8
# (156, which GPipe meets); GPipe's mshape schedule takes 172 too, so 172 is exact
check_eq "binding term" pauses "$(get "['binding']" <<<"$out")"
check_eq "pauses term" 172 "$(get "['terms']['pauses']" <<<"$out")"
gp=$("$tessel" baseline gpipe --placement mshape --ndevs 32 -n 8 | "$tessel" simulate - --json | get "['planned_makespan']")
check_eq "gpipe on mshape 32 x 8 takes the bound 172" 172 "$gp"
check_eq "the bound is the largest term" True \
  "$(get "['lower_bound'] == max(v for v in j['terms'].values() if v is not None)" <<<"$out")"
check_eq "memory term without memory" None "$(get "['terms']['memory']" <<<"$out")"

# one unit of memory per device: one micro-batch at a time, the memory term binds
out=$("$tessel" bound --placement vshape --ndevs 4 -n 16 --memory 1 --json)
check_eq "memory binds" memory "$(get "['binding']" <<<"$out")"
check_eq "pauses without a block on every device" None "$(get "['terms']['pauses']" <<<"$out")"
check_eq "16 sequential micro-batches" 256 "$(get "['lower_bound']" <<<"$out")"
# the old bound is still there, and the text form names the binding term
"$tessel" bound --placement vshape --ndevs 4 -n 128 | grep -q "524 (load"
check_status $? "text form"
# kshape at memory 2: between M and M' a micro-batch fills every device, so those windows lie
# end to end, each followed by what frees device 0 again (B1, B0): 66, the proven optimum
out=$("$tessel" bound --placement kshape --ndevs 4 -n 8 --memory 2 --json)
check_eq "exclusive binds on kshape at memory 2" exclusive "$(get "['binding']" <<<"$out")"
check_eq "exclusive term" 66 "$(get "['terms']['exclusive']" <<<"$out")"
check_eq "the load term stays below" 52 "$(get "['terms']['load']" <<<"$out")"
check_eq "the memory term stays below" 40 "$(get "['terms']['memory']" <<<"$out")"
out=$("$tessel" bound --placement kshape --ndevs 4 -n 8 --json)
check_eq "exclusive term without memory" None "$(get "['terms']['exclusive']" <<<"$out")"
"$tessel" bound --help | grep -q "^  exclusive "
check_status $? "help lists the exclusive term"
# xshape at memory 1: device 0's windows and device 3's nest in each other's, so the two
# devices share at most 2N - 1 stretches of 3: 107, the proven optimum (each alone gives 84)
out=$("$tessel" bound --placement xshape --ndevs 4 -n 4 --memory 1 --json)
check_eq "cross binds on xshape at memory 1" cross "$(get "['binding']" <<<"$out")"
check_eq "cross term" 107 "$(get "['terms']['cross']" <<<"$out")"
check_eq "exclusive stays below" 84 "$(get "['terms']['exclusive']" <<<"$out")"
"$tessel" bound --help | grep -q "^  cross "
check_status $? "help lists the cross term"
# xshape's paper case at memory 4: device 1 idles 2 steps before its first backward can start
# (4 forwards fill 4 of the 6 steps), so 1 + 2 + 8N + 3 = 1030 at N = 128, where full-greedy and
# modulo reach it (the other terms: 1028)
out=$("$tessel" bound --placement xshape --ndevs 4 -n 128 --memory 4 --json)
check_eq "warmup binds on xshape at memory 4" warmup "$(get "['binding']" <<<"$out")"
check_eq "warmup term" 1030 "$(get "['terms']['warmup']" <<<"$out")"
check_eq "one_machine stays below" 1028 "$(get "['terms']['one_machine']" <<<"$out")"
"$tessel" bound --help | grep -q "^  warmup "
check_status $? "help lists the warmup term"
"$tessel" bound --placement vshape --ndevs 4 -n 8 --memory x >/dev/null 2>&1
check_rc "bad --memory" 2 $?
harness_end
