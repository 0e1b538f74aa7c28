"""The cost model at each published run of tests/fixtures/published_runs.tsv (issue 45): tessel
plan with the run's configuration fixed (what the source leaves out, '-', tessel chooses;
--headroom 0: the run ran), its predicted TFLOP/s per GPU counted as the source counts them
(Megatron-Bridge's rows, 'causal' in the fixture, as causal_tflops_per_gpu: its tables count a
causal attention core's pairs at half), against the published figure. Prints one row per run,
the distribution by GPU generation and framework, and a SUMMARY line; with --check, exits 1
unless every row is expressible (a plan fits) and at least FLOOR of them are within +-15 %. The
issue's target is 80 %; FLOOR is what the cost model reaches today (40 of 53, 75.5 %: 34 of 49
when llm-foundry's twelve FSDP runs and torchtitan's two H200 runs joined the set, 37 since
Megatron's optimizer passes, SC21's gradient reduction after the backward and torchtitan's
per-op recomputation and FlashAttention-2 were costed, 39 since Megatron-Bridge's rows are
counted as it counts them; 41 of 53 with Megatron-Bridge's four Qwen3 MoE rows, the two H100
ones within, the two B200 ones not; 40 of 53, 75.5 %, since the five Megatron-Bridge Llama rows
whose recipes overlap the tensor-parallel collectives are costed so, which puts B200's 405B at
1.16; models/README.md, "The published set", says which runs miss and why), so that a change
that loses ground fails.
With --best, instead: for each run, the best plan tessel plan finds by itself (only the model,
GPU, GPU count, global batch, sequence, precision and framework given; the default headroom),
against the best published run of the same GPU, precision and model class (dense up to 25B,
25-100B, over 100B; MoE), as the issue's best-plan criterion asks: not above it by more than
10 % unless the note says why. Compared as MFU: model FLOPs (3 forwards), a published figure
that counts the recomputed forward of full recomputation taken at 3/4 and a causal count scaled
to the full one; with the published MFU of runs outside the set whose configuration the source
does not give in full (BEST_MFU).
usage: published_set.py TESSEL MODELS_DIR TMPDIR [--check | --best]"""
import json, os, re, statistics, subprocess, sys

tessel, models, tmp = sys.argv[1:4]
check = "--check" in sys.argv[4:]
best = "--best" in sys.argv[4:]
FLOOR = 0.80
here = os.path.dirname(os.path.abspath(__file__))
lines = [l.rstrip("\n") for l in open(os.path.join(here, "..", "fixtures", "published_runs.tsv"))
         if not l.startswith("#")]
cols = lines[0].split("\t")
rows = [dict(zip(cols, l.split("\t"))) for l in lines[1:] if l.strip()]


def model_file(c):
    if c["model"] != "-":
        return c["model"]
    h, a, V = int(c["hidden"]), int(c["heads"]), int(c["vocab"])
    block = {"kind": "transformer", "name": "layer", "count": int(c["layers"]), "hidden": h,
             "heads": a, "ffn_matrices": int(c["ffn_matrices"])}
    for k in ("kv_heads", "ffn"):
        if c[k] != "-":
            block[k] = int(c[k])
    gpt = c["ffn_matrices"] == "2" and c["embedding"] != "rope-untied"
    if c["dropout"] == "off":
        block["dropout"] = False
    m = {"format": "tessel-model/1", "name": re.sub(r"[^a-z0-9.]+", "-", c["run"].lower()),
         "seq": int(c["seq"]), "strategies": ["1f1b", "interleaved"],
         "sections": [dict({"kind": "embedding", "name": "embed", "vocab": V, "hidden": h},
                           **({"positions": int(c["seq"])} if gpt else {}),
                           **({"dropout": False} if c["dropout"] == "off" else {})),
                      block,
                      {"kind": "head", "name": "head", "vocab": V, "hidden": h, "tied": gpt}]}
    path = os.path.join(tmp, m["name"] + ".json")
    json.dump(m, open(path, "w"))
    return path


def predict(c, auto=False):
    args = [tessel, "plan", "--models-dir", models, "--model", model_file(c), "--hardware",
            c["hardware"], "--gpus", c["gpus"], "--global-batch", c["global"], "--seq", c["seq"],
            "--precision", c["precision"], "--framework", c["framework"],
            "--search-top", "0", "--top", "1", "--json"]
    if c["grads"] != "-":
        args += ["--grad-dtype", c["grads"]]
    if c["grad_overlap"] != "-":
        args += ["--grad-overlap", c["grad_overlap"]]
    if c["attention"] != "-":
        args += ["--attention", c["attention"]]
    if c["fp8_scaling"] != "-":
        args += ["--fp8-scaling", c["fp8_scaling"]]
    if auto:
        return run_plan(c, args)
    args += ["--headroom", "0", "--tensor-parallel", c["T"],
            "--pipeline", c["P"], "--context-parallel", c["C"],
            "--strategies", "interleaved" if c["v"] not in ("-", "1") else "1f1b,interleaved"]
    if c["E"] not in ("-", "1"):
        args += ["--expert-parallel", c["E"]]
    if c["etp"] != "-":
        args += ["--expert-tensor-parallel", c["etp"]]
    if c["cp_comm"] != "-":
        args += ["--cp-comm", c["cp_comm"]]
    # only with the run's own T and sequence parallelism: the option needs both
    if c["tp_overlap"] != "-":
        args += ["--tp-comm-overlap", c["tp_overlap"]]
    for flag, key in (("--virtual-stages", "v"), ("--micro-batch-size", "b"),
                      ("--recompute", "recompute"), ("--sequence-parallel", "sp"),
                      ("--zero", "zero"), ("--first-stage-layers", "first"),
                      ("--last-stage-layers", "last")):
        if c[key] != "-":
            args += [flag, c[key]]
    return run_plan(c, args)


def run_plan(c, args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, p.stderr.strip()[-300:]
    j = json.loads(p.stdout)
    fit = [x for x in j["plans"] if x["fits"]]
    if not fit:
        refused = j["counts"]["refused_by"]
        return None, "; ".join("%s: %s" % (k, v["example"]) for k, v in refused.items())[:300]
    x = fit[0]
    key = {"recompute": "counted_tflops_per_gpu", "causal": "causal_tflops_per_gpu"}.get(
        c["counts"], "tflops_per_gpu")
    return x, x[key]


def model_class(c):
    if "deepseek" in c["run"].lower() or c["E"] not in ("-", "1"):
        return "MoE"
    size = float(re.search(r"(\d+(?:\.\d+)?)B", c["run"]).group(1))
    return "dense <=25B" if size <= 25 else "dense 25-100B" if size <= 100 else "dense >100B"


# Published model-FLOP TFLOP/s per GPU of runs whose full configuration is not in the set:
# Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models" (MLSys
# 2023), abstract: a 530B GPT on 2240 A100s at 54.2 % MFU with sequence parallelism and
# selective recomputation (x 312 TFLOP/s).
BEST_MFU = {("A100", "bf16", "dense >100B"): 0.542 * 312}


def model_tflops(c):
    """A published figure in model FLOPs: a count with full recomputation's forward at 3/4, a
    causal count scaled by the model's full count over its causal count (tessel plan's own
    figures of the two at the run's configuration: their ratio is the FLOPs', not a time)."""
    full = c["counts"] == "recompute" and c["recompute"] == "full"
    scale = 1
    if c["counts"] == "causal":
        x, _ = predict(c)
        scale = x["tflops_per_gpu"] / x["causal_tflops_per_gpu"]
    return float(c["published"]) * (0.75 if full else scale)


def best_plans():
    """The --best report: each run's own best plan against the best published of its class."""
    top, at = dict(BEST_MFU), {}
    for c in rows:
        k = (c["gen"], c["precision"], model_class(c))
        if model_tflops(c) > top.get(k, 0):
            top[k], at[k] = model_tflops(c), c
        elif k in BEST_MFU:
            at.pop(k, None)
    print("| run | GPU | precision | class | best published model TFLOP/s | best plan |"
          " predicted | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    worst = {}
    for c in rows:
        k = (c["gen"], c["precision"], model_class(c))
        x, val = predict(c, auto=True)
        val = x["tflops_per_gpu"] if x else val
        if x is None:
            print("| %s | %s | %s | %s | %.0f | none: %s | | |" % (c["run"], *k, top[k], val))
            continue
        ratio = val / top[k]
        worst[k] = max(worst.get(k, 0), ratio)
        print("| %s | %s | %s | %s | %.0f | %s | %.1f | %.3f |" % (
            c["run"], *k, top[k], x["name"], val, ratio))
    print()
    # the cost model at the best published run's own configuration: how much of the ratio is
    # the cost model's error there rather than the plan the search chose
    print("| GPU | precision | class | best published | highest best-plan ratio |"
          " predicted/published at its configuration |")
    print("| --- | --- | --- | --- | --- | --- |")
    for k in sorted(worst):
        own = "-"
        if k in at:
            _, val = predict(at[k])
            own = "%.3f" % (val / float(at[k]["published"]))
        print("| %s | %s | %s | %.0f | %.3f | %s |" % (*k, top[k], worst[k], own))
    over = sum(r > 1.10 for r in worst.values())
    print("SUMMARY: %d classes, %d with a best plan above the best published by more than 10 %%"
          % (len(worst), over))


if best:
    best_plans()
    sys.exit(0)
out, ratios, groups, missing = [], [], {}, []
print("| run | GPU | framework | published TFLOP/s | predicted | ratio | plan |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for c in rows:
    x, val = predict(c)
    if x is None:
        missing.append(c["run"])
        print("| %s | %s | %s | %s | not expressible: %s | | |" % (
            c["run"], c["gen"], c["framework"], c["published"], val))
        continue
    ratio = val / float(c["published"])
    ratios.append(ratio)
    groups.setdefault((c["gen"], c["framework"]), []).append(ratio)
    print("| %s | %s | %s | %s | %.1f | %.3f | %s |" % (
        c["run"], c["gen"], c["framework"], c["published"], val, ratio, x["name"]))
within = sum(abs(r - 1) <= 0.15 for r in ratios)
print()
print("| GPU | framework | runs | median predicted/published | min | max | within 15 % |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for (gen, fw), rs in sorted(groups.items()):
    print("| %s | %s | %d | %.3f | %.3f | %.3f | %d |" % (
        gen, fw, len(rs), statistics.median(rs), min(rs), max(rs),
        sum(abs(r - 1) <= 0.15 for r in rs)))
share = within / len(rows) if rows else 0
print("SUMMARY: %d published runs, %d expressible, %d within +-15 %% (%.1f %%), median ratio %.3f"
      % (len(rows), len(ratios), within, 100 * share,
         statistics.median(ratios) if ratios else float("nan")))
if check and (missing or share < FLOOR):
    print("FAIL: %s" % ("not expressible: " + ", ".join(missing) if missing
                        else "fewer than %.0f %% within 15 %%" % (100 * FLOOR)))
    sys.exit(1)
