#!/usr/bin/env python3
"""The Tessel authors' setups (issue 25), checked by hand arithmetic: two derived placements
(GPT on 4 V100s as mshape, and as the 1F1B baseline with its first stage capped at 21 GiB),
their parameters, per-GPU memory and spans, from the hyper-parameters alone; the refusals the
paper's scripts mark as out of memory; the communication modes; and paper_eval.py's table
generator, which must refuse to print a number for a failed plan.

    python3 paper_setups.py TESSEL MODELS_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

tessel, models = sys.argv[1], sys.argv[2]
fails = []


def check(name, ok, detail=""):
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail and not ok else ""))
    if not ok:
        fails.append(name)


def near(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def place(tmp, name, *args):
    path = os.path.join(tmp, name + ".json")
    p = subprocess.run([tessel, "placement", "--models-dir", models, "--hardware", "v100-32gb",
                        "-o", path, "--json"] + list(args), capture_output=True, text=True)
    if p.returncode:
        return p.returncode, p.stderr.strip(), None
    with open(path) as f:
        return 0, json.loads(p.stdout), json.load(f)


# GPT on 4 GPUs (evaluation/4gpu.sh): 32 layers, hidden 4096, 32 heads, sequence 2048,
# vocabulary 1,024,000; 8 bytes per parameter (fp16 weight, gradient, Adam m and v).
V, h, s, Lyr, B = 1024000, 4096, 2048, 32, 8
embed = V * h + s * h                    # token table + learned positions = 4,202,692,608
layer = 12 * h * h + 13 * h              # = 201,379,840
check("parameter arithmetic", embed == 4202692608 and layer == 201379840)
flops = 24 * s * h * h + 4 * s * s * h   # forward FLOPs of a layer, micro-batch 1
rate = 125e12 * 0.5                      # V100 FP16 peak at 50 %
t_layer = flops / rate                   # 14.2936 ms
# HBM (nvidia-smi's 32510 MiB on a V100-SXM2-32GB: 34.09 GB) less the profile's 3 GB workspace
usable = (34.09 - 3) * 1e9
GiB = 2 ** 30

with tempfile.TemporaryDirectory() as tmp:
    p = subprocess.run([tessel, "model", "paper-gpt-4", "--models-dir", models, "--json"],
                       capture_output=True, text=True)
    j = json.loads(p.stdout)
    check("model parameters = embedding + 32 layers", near(j["params"], embed + Lyr * layer),
          "%s vs %s" % (j["params"], embed + Lyr * layer))

    # (1) Tessel's mshape: the embedding sharded over 4 GPUs, 8 layers per stage.
    rc, info, pl = place(tmp, "mshape", "--model", "paper-gpt-4", "--gpus", "4", "--strategy",
                         "mshape", "--recompute", "--param-bytes", "8", "--comm", "overlap")
    check("mshape derives", rc == 0, str(info))
    if rc == 0:
        check("mshape stages start at layers 0, 8, 16, 24",
              info["stage_first_layers"] == ["layer0", "layer8", "layer16", "layer24"],
              str(info["stage_first_layers"]))
        state = embed * B / 4 + 8 * layer * B  # 8,405,385,216 + 12,888,309,760
        check("mshape weights and optimizer state per GPU = %.0f B" % state,
              near(info["state_bytes_max"], state), str(info["state_bytes_max"]))
        check("mshape capacity = 31.09 GB - state", near(info["capacity_bytes"], usable - state))
        unit = info["time_unit_s"]
        spans = {b["id"]: b["span"] for b in pl["blocks"]}
        # forward: 8 layers; backward with recomputation: forward again + 2 forwards' worth
        check("mshape F = round(8 x 14.29 ms / unit)", spans["F0"] == round(8 * t_layer / unit),
              "%s vs %s" % (spans["F0"], 8 * t_layer / unit))
        check("mshape B = round(3 x F)", spans["B0"] == round(3 * 8 * t_layer / unit),
              "%s vs %s" % (spans["B0"], 3 * 8 * t_layer / unit))
        # the sharded embedding: a gather and an all-reduce, overlapped: the shortest span
        check("mshape S1 span 1", spans["S1"] == 1 and spans["S1'"] == 1)
        mem = {b["id"]: b["memory"] for b in pl["blocks"]}
        act = 8 * 2 * s * h                  # recomputation keeps each layer's input, 2 s h bytes
        ua = info["memory_unit_bytes"][0]
        check("mshape F0 memory = ceil(8 x 2 s h / unit)", mem["F0"] == -(-act // ua),
              "%s vs %s" % (mem["F0"], act / ua))
        check("mshape B0 frees F0", mem["B0"] == -mem["F0"])

    # (2) the 1F1B baseline with its first stage capped at 21 GiB: one GPU cannot hold the
    # embedding (33.6 GB > 22.5 GB), two GPUs per stage can, with 7 layers beside it.
    rc, info, _ = place(tmp, "tp1", "--model", "paper-gpt-4", "--gpus", "4", "--strategy",
                        "1f1b", "--recompute", "--param-bytes", "8",
                        "--first-stage-param-cap-gb", "21")
    check("1f1b TP 1 refused (exit 1)", rc == 1, str(info))
    check("refusal names the embedding and the cap",
          rc == 1 and "embed alone holds 33.6 GB" in info and "cap of 22.5 GB" in info, str(info))
    k = int((21 * GiB - embed * B / 2) // (layer * B / 2))  # = 7
    check("hand cap arithmetic: 7 layers beside the embedding", k == 7)
    rc, info, pl = place(tmp, "tp2", "--model", "paper-gpt-4", "--gpus", "4", "--strategy",
                         "1f1b", "--tensor-parallel", "2", "--recompute", "--param-bytes", "8",
                         "--first-stage-param-cap-gb", "21", "--comm", "sync")
    check("1f1b TP 2 derives", rc == 0, str(info))
    if rc == 0:
        check("1f1b TP 2 stages start at embed, layer7",
              info["stage_first_layers"] == ["embed", "layer7"], str(info["stage_first_layers"]))
        state0 = (embed + 7 * layer) * B / 2   # 22,449,405,952 <= 21 GiB = 22,548,578,304
        check("1f1b first stage state per GPU = %.0f B" % state0,
              near(info["state_bytes_max"], state0) and state0 <= 21 * GiB)
        units = info["memory_unit_bytes"]
        # the other stage's GPUs: 25 layers over 2 GPUs; a unit is free memory / capacity
        check("1f1b second stage free memory = 31.09 GB - 25 x layer x 8 / 2",
              near(units[2] * info["capacity"], usable - 25 * layer * B / 2))
        unit = info["time_unit_s"]
        ar = 2 * (2 - 1) / 2 * (2 * s * h) / 150e9  # one ring all-reduce of 2 s h bytes over 2
        f1 = 25 * (t_layer / 2 + 2 * ar)             # 25 layers, half the compute, 2 all-reduces
        spans = {b["id"]: b["span"] for b in pl["blocks"]}
        check("1f1b F1 = round(25 x (7.15 ms + 2 all-reduces) / unit)",
              spans["F1"] == round(f1 / unit), "%s vs %s" % (spans["F1"], f1 / unit))

    # The paper's scripts mark GPT Chimera out of memory: two replicas of 10.6B parameters at
    # 8 bytes (170 GB) exceed 4 x 31.09 GB.
    rc, info, _ = place(tmp, "chim", "--model", "paper-gpt-4", "--gpus", "4", "--strategy",
                        "chimera", "--recompute", "--param-bytes", "8")
    check("GPT chimera out of memory (exit 1)", rc == 1 and "170 GB" in str(info), str(info))

    # Communication: the tp placement's blocks are sharded over 16 GPUs on two nodes; with
    # overlap the collectives leave the spans (forward 2 all-reduces per layer cross nodes).
    rc, a, pa = place(tmp, "tps", "--model", "paper-gpt-16", "--gpus", "16", "--strategy", "tp",
                      "--recompute", "--param-bytes", "8", "--comm", "sync")
    rc2, b, pb = place(tmp, "tpo", "--model", "paper-gpt-16", "--gpus", "16", "--strategy", "tp",
                       "--recompute", "--param-bytes", "8", "--comm", "overlap")
    if rc == 0 and rc2 == 0:
        h16, s16 = 8192, 2048
        ar16 = 2 * 15 / 16 * (2 * s16 * h16) / 12.5e9    # across nodes: 12.5 GB/s
        comm_f = 48 * 2 * ar16 + ar16                       # 48 layers x 2 + the embedding's
        fs = pa["blocks"][0]["span"] * a["time_unit_s"]
        fo = next(x for x in pb["blocks"] if x["id"] == "F")["span"] * b["time_unit_s"]
        check("tp 16: overlap moves the forward's cross-node all-reduces (%.2f s) out of the "
              "span" % comm_f, abs((fs - fo) - comm_f) < 0.03 * fs, "%s %s" % (fs, fo))
        edge = (pb.get("edges") or [None])[0]
        check("tp 16 overlap: the collective becomes the F -> B delay",
              edge is not None and abs(edge.get("delay", 0) * b["time_unit_s"] - comm_f) < 0.03 * fs,
              str(edge))
    else:
        check("tp on 16 GPUs derives", False, "%s %s" % (a, b))

# paper_eval.py's generator refuses to print a figure for a failed plan.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "paper-artifacts"))
import paper_eval as P  # noqa: E402

bad = P.Point("oom", None, "peak 300 of 200 memory units")
check("failed cell says OOM and why", P.cell(bad) == "**OOM**: peak 300 of 200 memory units", P.cell(bad))
try:
    P.cell(P.Point("oom", 12.5, "x"))
    check("a failed point carrying a time is refused", False)
except ValueError:
    check("a failed point carrying a time is refused", True)
try:
    P.cell(P.Point("ok", None))
    check("an ok point without a time is refused", False)
except ValueError:
    check("an ok point without a time is refused", True)
ok = P.Point("ok", 10.0)
check("no speed-up over a failed baseline", P.speedup(bad, ok) is None and
      P.speedup(ok, bad) is None and abs(P.speedup(P.Point("ok", 20.0), ok) - 2) < 1e-12)
row = {b: bad for b in P.BASELINES}
row.update(tessel=P.Point("no schedule", None, "infeasible"), sync=bad)
train = {(label, G): row for label, _ in P.FAMILIES for G in P.SIZES}
P.recipe = lambda name: {"global_batch": 128}
rows = "\n".join(t.split("\n", 2)[2] for t in (P.train_table(train), P.ablation_table(train)))
check("a table of failed plans holds no time, rate or speed-up",
      not re.search(r"\d s\b|\d/s|\dx", rows) and rows.count("OOM") == 8 * 5, rows[:400])

print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
