#!/usr/bin/env bash
# Schedule quality beyond the paper's regime: `tessel search --method auto` against the best
# hand-made schedule that fits, and against the lower bound, at the requested N within memory.
#
# usage: tests/bench/quality.sh TESSEL_BIN [TIME_LIMIT]   (TIME_LIMIT: seconds per case, 60)
#
# Cases:
#  - matrix: vshape, xshape, mshape, nnshape, kshape x D in {4, 8, 16, 32} x N in {8, 32, 128},
#    memory D + 2;
#  - tight: the same with the smallest capacity that works (fast's floor: one micro-batch alone)
#    plus 1;
#  - delay: vshape and mshape with a delay of 1 on every edge between different devices,
#    D x N as above, memory D + 2;
#  - v: the V placement with the B/W split (vshape_v_zb, F = B = W = 1) on D in {4, 8, 16}
#    (QUALITY_VDEVS), N in {D, 2D, 4D}, at the memory of ZB-V (2D chunks: 4D units), V-Half
#    ((D+2)/2 micro-batches: 4 units each) and V-Min ((D+4)/3 micro-batches); the shape column
#    names the memory (v-zb, v-half, v-min). Only with QUALITY_SETS naming it;
#  - small: where an exact search can finish: the five shapes x D in {4, 8} (QUALITY_SMALL_DEVS)
#    x N in {4, 8, 12} (QUALITY_SMALL_NS), at the tightest memory that works (the floor: one
#    micro-batch alone) and at D + 2. The proof column says how auto's answer is proven optimal:
#    `lb` (it meets the lower bound), `exact` (its exact search refused every shorter makespan),
#    or `-` (not proven; `cut` when the exact search ran out of effort, `clock` when the time
#    limit stopped it first: on a loaded machine). Only with QUALITY_SETS naming it;
#  - scale: the size people train at: interleaving (vshape_interleaved, 4 and 8 chunks) on 64 and
#    128 devices, vshape on 256, nnshape on 128 at memory 40, alphafold on 64, and placements
#    derived from GPT-3 175B on 64 and 128 A100s (zb and 1f1b, at the derived capacity), N up to
#    1024. The shape column names the chunks (vshape_interleaved-v4) or the model. Only with
#    QUALITY_SETS naming it.
# Per case: the lower bound (new, and the old load bound), the best fitting baseline, auto's
# makespan and wall seconds, its effort (solver units, the same on every machine), "cap" when
# the wall-clock cap cut it (then the result may differ between machines), and `rep`: how the
# kept schedule is written (its micro-batches per period, or `-` without repetend, when it holds
# exactly N micro-batches). Last lines: per set
# and over all, the cases where auto is worse than the best baseline, where it is strictly
# better, the cases the cap cut, how many kept schedules have a repetend of one micro-batch per
# period, of more, or none, and the geometric mean of makespan / LB (new
# and old). A figure-printing benchmark: it asserts nothing. QUALITY_SETS=matrix,tight,delay
# and QUALITY_SHAPES / QUALITY_DEVS / QUALITY_NS narrow the run. QUALITY_CAP=S keeps the effort
# of TIME_LIMIT (1.2e5 units a second) but moves the wall-clock cap to S seconds, so that a
# loaded machine gives the quiet machine's answers (only the seconds column differs).
set -u
tessel=${1:?usage: quality.sh TESSEL_BIN [TIME_LIMIT]}
limit=${2:-60}
cap=${QUALITY_CAP:-}
# QUALITY_EACH=CMD: for each case, run CMD SET SHAPE D N MEMORY PLACEMENT-ARGS... and print what
# it prints instead of the case's line, with no summary (tests/bench/deterministic_quality.sh)
each=${QUALITY_EACH:-}
if [[ -n $cap ]]; then
  budget=(--effort "$(python3 -c "print(int($limit * 120000))")" --time-limit "$cap")
else
  budget=(--time-limit "$limit")
fi
sets=${QUALITY_SETS:-matrix,tight,delay}
vdevs=${QUALITY_VDEVS:-4 8 16}
smalldevs=${QUALITY_SMALL_DEVS:-4 8}
smallns=${QUALITY_SMALL_NS:-4 8 12}
shapes=${QUALITY_SHAPES:-vshape xshape mshape nnshape kshape}
devs=${QUALITY_DEVS:-4 8 16 32}
ns=${QUALITY_NS:-8 32 128}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
baselines=$("$tessel" baseline --list | awk '{print $1}' | paste -sd, -)

# Placement args of a case: a built-in, or a file with cross-device delays of 1.
placement_args() { # shape D set
  if [[ $3 == delay ]]; then
    local f="$tmp/$1-$2-delay.json"
    if [[ ! -f $f ]]; then
      "$tessel" placement "$1" --ndevs "$2" | python3 -c '
import json, sys
p = json.load(sys.stdin)
dev = {b["id"]: set(b["devices"]) for b in p["blocks"]}
edges = []
for e in p.get("edges", []):
    a, b = (e[0], e[1]) if isinstance(e, list) else (e["from"], e["to"])
    x = e if isinstance(e, dict) else {"from": a, "to": b}
    if dev[a] != dev[b]:
        x = dict(x, delay=1)
    edges.append(x)
p["edges"] = edges
p["name"] = p["name"] + "_delay1"
json.dump(p, sys.stdout)' >"$f"
    fi
    echo "$f"
  else
    echo "--placement $1 --ndevs $2"
  fi
}

run_case() { # set shape D N
  local set=$1 shape=$2 D=$3 N=$4 mem
  local pa
  pa=$(placement_args "$shape" "$D" "$set")
  if [[ $set == scale ]]; then
    pa=$SCALE_PA mem=$SCALE_MEM
  elif [[ $set == v ]]; then
    pa="--placement vshape_v_zb --ndevs $D"
    case $shape in
      v-zb) mem=$((4 * D)) ;;
      v-half) mem=$((4 * ((D + 2) / 2))) ;;
      *) mem=$((4 * ((D + 4) / 3))) ;;
    esac
  elif [[ $set == tight || $set == small-floor ]]; then
    # shellcheck disable=SC2086
    mem=$("$tessel" search $pa --memory 0 --method fast --json 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin).get("min_memory") or "")')
    [[ -n $mem ]] || { echo "$set $shape $D $N - - - - - - no floor"; return; }
    [[ $set == tight ]] && mem=$((mem + 1))
    set=small
  else
    mem=$((D + 2))
  fi
  if [[ -n $each ]]; then
    # shellcheck disable=SC2086
    $each "$set" "$shape" "$D" "$N" "$mem" $pa
    return
  fi
  # shellcheck disable=SC2086
  "$tessel" bound $pa -n "$N" --memory "$mem" --json >"$tmp/b.json" 2>/dev/null
  # shellcheck disable=SC2086
  "$tessel" compare $pa -n "$N" --memory "$mem" --methods "$baselines" --csv \
    >"$tmp/c.csv" 2>/dev/null
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  "$tessel" search $pa -n "$N" --memory "$mem" --method auto "${budget[@]}" --json \
    >"$tmp/a.json" 2>/dev/null
  t1=$(date +%s.%N)
  python3 - "$set" "$shape" "$D" "$N" "$mem" "$tmp" "$t0" "$t1" <<'EOF'
import csv, json, sys
st, shape, D, N, mem, tmp, t0, t1 = sys.argv[1:]
b = json.load(open(f"{tmp}/b.json"))
lb, old = b["lower_bound"], b["terms"]["load"]
best, bname = None, "-"
for r in csv.DictReader(open(f"{tmp}/c.csv")):
    if r["fits"] == "yes" and r["makespan"]:
        mk = int(r["makespan"])
        if best is None or mk < best:
            best, bname = mk, r["method"]
try:
    a = json.load(open(f"{tmp}/a.json"))
    amk = a["makespan"] if a.get("feasible") else None
    src = (a.get("source") or "?") + ("+imp" if a.get("improved") else "")
    proof = ("lb" if amk is not None and amk <= lb else
             "exact" if a.get("exact") == "proven" and a.get("optimal") else
             "cut" if a.get("exact") == "cut" else
             "clock" if a.get("exact") else "-")
    effort = a.get("exact_effort")
    units, cut = a.get("effort", "-"), "cap" if a.get("timed_out") else "-"
    # the kept schedule's repetend as written: micro-batches per period, or - for none
    rep = str(a.get("per_period") or 1) if a.get("k") else "-"
except Exception:
    amk, src, proof, effort, units, cut, rep = None, "error", "-", None, "-", "-", "-"
wall = float(t1) - float(t0)
print(f"{st} {shape} {D} {N} {mem} {lb} {old} {bname} {best if best is not None else '-'} "
      f"{amk if amk is not None else '-'} {wall:.1f} {src} {b['binding']} {proof} "
      f"{effort if effort is not None else '-'} {units} {cut} {rep}")
EOF
}

# The scale set: one line per case (shape D N memory, then the placement's arguments); a model's
# placement is derived once into the scratch folder and searched at the capacity it states.
scale_cases() {
  local shape D N m
  while read -r shape D N m args; do
    if [[ $args == model:* ]]; then
      local f="$tmp/$shape-$D.json" spec=${args#model:}
      # shellcheck disable=SC2086
      "$tessel" placement --model ${spec//:/ } -o "$f" >/dev/null 2>&1 ||
        { echo "scale $shape $D $N - - - - - - no placement"; continue; }
      m=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["capacity"]; print(",".join(map(str,c)) if isinstance(c,list) else c)' "$f")
      args=$f
    fi
    SCALE_PA=$args SCALE_MEM=$m run_case scale "$shape" "$D" "$N"
  done <<'CASES'
vshape_interleaved-v4 64 256 320 --placement vshape_interleaved --ndevs 64 --chunks 4
vshape_interleaved-v8 64 512 576 --placement vshape_interleaved --ndevs 64 --chunks 8
vshape_interleaved-v4 128 256 640 --placement vshape_interleaved --ndevs 128 --chunks 4
vshape 256 1024 258 --placement vshape --ndevs 256
nnshape 128 512 40 --placement nnshape --ndevs 128
alphafold 64 256 66 --placement alphafold --ndevs 64
gpt3-175b-zb 128 1024 - model:gpt3-175b:--hardware:a100-80gb:--gpus:128:--tensor-parallel:2:--strategy:zb
gpt3-175b-1f1b 64 512 - model:gpt3-175b:--hardware:a100-80gb:--gpus:64:--tensor-parallel:2:--strategy:1f1b
CASES
}

all_cases() {
for set in ${sets//,/ }; do
  if [[ $set == small ]]; then
    for shape in $shapes; do
      for D in $smalldevs; do
        for N in $smallns; do
          run_case small-floor "$shape" "$D" "$N"
          run_case small "$shape" "$D" "$N"
        done
      done
    done
    continue
  fi
  if [[ $set == scale ]]; then
    scale_cases
    continue
  fi
  if [[ $set == v ]]; then
    for shape in v-zb v-half v-min; do
      for D in $vdevs; do
        for N in $D $((2 * D)) $((4 * D)); do
          run_case v "$shape" "$D" "$N"
        done
      done
    done
    continue
  fi
  for shape in $shapes; do
    [[ $set == delay && $shape != vshape && $shape != mshape ]] && continue
    for D in $devs; do
      for N in $ns; do
        run_case "$set" "$shape" "$D" "$N"
      done
    done
  done
done
}
if [[ -n $each ]]; then
  all_cases
  exit 0
fi
echo "# tessel search --method auto, time limit ${limit}s per case, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
all_cases | tee "$tmp/rows" | python3 -c '
import math, sys
rows = [l.split() for l in sys.stdin if l.strip()]
hdr = ["set", "shape", "D", "N", "mem", "LB", "LB_old", "baseline", "base_mk", "auto_mk",
       "auto_s", "kept", "binding", "proof", "effort", "units", "cap", "rep", "mk/LB", "vs_base"]
VS = hdr.index("vs_base")
CAP = hdr.index("cap")
REP = hdr.index("rep")
out = []
for r in rows:
    if len(r) < 18:
        out.append(r + [""] * (len(hdr) - len(r)))
        continue
    lb, base, amk = r[5], r[8], r[9]
    ratio = f"{int(amk) / int(lb):.3f}" if amk != "-" and int(lb) > 0 else "-"
    if amk == "-":
        vs = "no-auto"
    elif base == "-":
        vs = "only-auto"
    else:
        vs = "worse" if int(amk) > int(base) else ("better" if int(amk) < int(base) else "equal")
    out.append(r + [ratio, vs])
w = [max(len(h), *(len(x[i]) for x in out)) for i, h in enumerate(hdr)] if out else []
print("  ".join(h.rjust(w[i]) for i, h in enumerate(hdr)))
for x in out:
    print("  ".join(c.rjust(w[i]) for i, c in enumerate(x)))
def summary(name, sel):
    sel = [x for x in sel if len(x) == len(hdr)]
    worse = sum(x[VS] in ("worse", "no-auto") for x in sel)
    better = sum(x[VS] == "better" for x in sel)
    cut = sum(x[CAP] == "cap" for x in sel)
    r_new = [int(x[9]) / int(x[5]) for x in sel if x[9] != "-" and int(x[5]) > 0]
    r_old = [int(x[9]) / int(x[6]) for x in sel if x[9] != "-" and int(x[6]) > 0]
    g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
    slow = max((float(x[10]) for x in sel), default=0)
    print(f"SUMMARY {name}: {len(sel)} cases, auto worse than the best baseline in {worse}, "
          f"strictly better in {better}; geomean makespan/LB {g(r_new):.3f} "
          f"(old LB {g(r_old):.3f}); slowest case {slow:.1f} s; cut by the wall-clock cap in "
          f"{cut}")
    r1 = sum(x[REP] == "1" for x in sel)
    rk = sum(x[REP] not in ("1", "-") for x in sel)
    print(f"SUMMARY {name} repetends: the kept schedule is written with one micro-batch per "
          f"period in {r1}, with more in {rk}, without repetend in {len(sel) - r1 - rk}")
    if name == "small":
        lbp = sum(x[13] == "lb" for x in sel)
        exp = sum(x[13] == "exact" for x in sel)
        ecut = sum(x[13] == "cut" for x in sel)
        clock = sum(x[13] == "clock" for x in sel)
        print(f"SUMMARY small proofs: optimal proven in {lbp + exp} of {len(sel)} (meets the "
              f"lower bound {lbp}, exact search {exp}); exact search out of effort in {ecut}, "
              f"stopped by the time limit in {clock}, not run in "
              f"{len(sel) - lbp - exp - ecut - clock}")
print()
for s in ("matrix", "tight", "delay", "v", "small"):
    sub = [x for x in out if x[0] == s]
    if sub:
        summary(s, sub)
summary("all", out)
'
