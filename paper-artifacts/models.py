#!/usr/bin/env python3
"""End-to-end comparison on real models, in simulation: for each of the paper's model families,
Tessel (the `auto` search) on the model-aware placement against the hand-made schedules on
theirs (GPipe and 1F1B on the 1F1B placement, interleaved 1F1B, Chimera, ZB-H1), all derived
from models/ for the same GPUs (A100-80GB), the same micro-batches and the same memory, for
training and for inference. Times are the schedules' makespans times each placement's time unit.
A hand-made schedule ignores memory limits: one above the derived capacity is listed as such and
not counted. Writes models.md and models.svg into paper-artifacts/results.

    python3 paper-artifacts/models.py [--tessel BIN] [--micro-batches N] [--time-limit S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import sweeplib as L

HW = "a100-80gb"
# family, model, GPUs, Tessel's model-aware strategy (None: the model has none; Tessel then
# searches the 1F1B placement)
FAMILIES = [
    ("GPT-3 13B", "gpt3-13b", 8, "mshape"),
    ("mT5-XXL", "mt5", 8, "mshape"),
    ("mT5-XXL (32 GPUs)", "mt5", 32, "mshape"),
    ("AlphaFold2", "alphafold2", 8, "alphafold"),
    ("FLAVA (multimodal)", "flava", 8, "kshape"),
    ("LLaVA-13B (multimodal)", "llava-13b", 8, "mllm"),
    ("Swin-L", "swin-l", 8, None),
]
# (label, baseline kind, strategy of its placement, placement micro-batches per real one)
BASELINES = [("GPipe", "gpipe", "1f1b", 1), ("1F1B", "1f1b", "1f1b", 1),
             ("interleaved", "interleaved", "interleaved", 1), ("Chimera", "chimera", "chimera", 2),
             ("ZB-H1", "zb-h1", "zb", 1)]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip().splitlines()[-1:] or [""]


def derive(tessel, tmp, model, gpus, strategy, infer):
    path = os.path.join(tmp, "%s-%d-%s%s.json" % (model, gpus, strategy, "-infer" if infer else ""))
    cmd = [tessel, "placement", "--model", model, "--hardware", HW, "--gpus", str(gpus),
           "--strategy", strategy, "-o", path, "--json"] + (["--infer"] if infer else [])
    rc, out, err = run(cmd)
    if rc:
        return None, err[0]
    return path, json.loads(out)


def baseline(tessel, tmp, model, gpus, kind, strategy, per, n, infer):
    path, info = derive(tessel, tmp, model, gpus, strategy, infer)
    if path is None:
        return "does not fit"
    rc, out, err = run([tessel, "baseline", kind, path, "--micro-batches", str(n // per),
                        "--json", "-o", path + ".sched"])
    if rc:
        return "not applicable"
    j = json.loads(out)
    if not infer and max(j["peak_memory"]) > info["capacity"]:
        return "over memory"
    return j["makespan"] * info["time_unit_s"]


def tessel_time(tessel, tmp, model, gpus, strategy, n, infer, limit):
    path, info = derive(tessel, tmp, model, gpus, strategy, infer)
    if path is None:
        return "does not fit", None
    rc, out, err = run([tessel, "search", path, "--method", "auto", "--micro-batches", str(n),
                        "--time-limit", str(limit), "--json", "-o", path + ".sched"])
    if rc:
        return "no schedule", None
    j = json.loads(out)
    return j["makespan"] * info["time_unit_s"], j.get("source")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tessel")
    ap.add_argument("--micro-batches", type=int, default=16)
    ap.add_argument("--time-limit", type=float, default=10)
    ap.add_argument("--out", default=os.path.join(L.ROOT, "paper-artifacts", "results"))
    args = ap.parse_args()
    tessel = L.find_tessel(args.tessel)
    n = args.micro_batches
    rows, speed = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for fam, model, gpus, aware in FAMILIES:
            with open(os.path.join(L.ROOT, "models", model + ".json")) as f:
                listed = json.load(f)["strategies"]
            for infer in (False, True):
                mode = "inference" if infer else "training"
                t, kept = tessel_time(tessel, tmp, model, gpus, aware or "1f1b", n, infer,
                                      args.time_limit)
                row = [fam, gpus, mode, "%s: %s s (%s)" % (aware or "1f1b", L.fmt(t), kept)
                       if kept else "%s: %s" % (aware or "1f1b", t)]
                for label, kind, strategy, per in BASELINES:
                    if strategy not in listed or (infer and kind != "gpipe"):
                        v = "not applicable" if infer else "not listed"
                    else:
                        v = baseline(tessel, tmp, model, gpus, kind, strategy, per, n, infer)
                    if isinstance(v, float) and isinstance(t, float):
                        speed[(fam, mode, label)] = v / t
                        row.append("%s s (%.2f×)" % (L.fmt(v), v / t))
                    else:
                        speed[(fam, mode, label)] = v
                        row.append(v if not isinstance(v, float) else "%s s" % L.fmt(v))
                rows.append(row)
                print(" | ".join(str(c) for c in row), file=sys.stderr)
    head = ["family", "GPUs", "mode", "Tessel (placement: time, kept)"] + \
           ["%s (speed-up of Tessel)" % b[0] for b in BASELINES]
    note = ("A100-80GB profile (312 TFLOP/s BF16 at 50 %%), micro-batch 1, N = %d micro-batches "
            "per iteration, `auto` with %g s per search; %s." % (n, args.time_limit, L.machine_note()))
    text = ("# Tessel on model-aware placements against hand-made schedules (simulation)\n\n" +
            note + "\n\nEach cell: the iteration (or inference batch) time in seconds and, in "
            "brackets, that time over Tessel's (above 1: Tessel is faster). Inference compares "
            "with GPipe only (1F1B, interleaving, Chimera and zero-bubble reorder backward passes)."
            "\n\n" + L.md_table(head, rows))
    L.write(os.path.join(args.out, "models.md"), text)
    groups = ["%s %s" % (f[0], m[:5]) for f in FAMILIES for m in ("training", "inference")]
    keys = {("%s %s" % (f[0], m[:5])): (f[0], m) for f in FAMILIES for m in ("training", "inference")}
    svg = L.bar_chart("Speed-up of Tessel (model-aware placement) over hand-made schedules",
                      groups, [b[0] for b in BASELINES],
                      lambda g, s: speed.get(keys[g] + (s,), "not run"),
                      "baseline time / Tessel time", note=note, baseline=1.0)
    L.write(os.path.join(args.out, "models.svg"), svg)


if __name__ == "__main__":
    main()
