"""The cost model against published runs (models/README.md, "Published runs"): for each row the
prediction for the published configuration (what the source fixes, fixed) is within 20 % of the
published TFLOP/s per GPU, counted as the source counts FLOPs, and the best plan tessel plan finds
is predicted at least as fast. Prints the comparison as a Markdown table.
usage: published_runs.py TESSEL MODELS_DIR TMPDIR"""
import json, os, re, subprocess, sys

tessel, models, tmp = sys.argv[1:4]
text = open(os.path.join(models, "README.md")).read()
block = text.split("<!-- published-runs -->")[1]
rows = [l for l in block.splitlines() if l.startswith("|")][2:]
assert len(rows) >= 11, "fewer than 11 published runs in models/README.md"
cols = ["run", "hardware", "precision", "layers", "hidden", "heads", "vocab", "seq", "gpus", "T",
        "P", "v", "b", "sp", "zero", "batch", "recompute", "published", "counts", "source"]
failed = 0
out = ["| run | published TFLOP/s | predicted (published config) | error | best plan | best's "
       "iteration vs published config |", "| --- | --- | --- | --- | --- | --- |"]


def run(args):
    p = subprocess.run([tessel, "plan"] + args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit("tessel plan %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    plans = [x for x in json.loads(p.stdout)["plans"] if x["fits"]]
    return plans[0] if plans else None


for line in rows:
    c = dict(zip(cols, [x.strip() for x in line.strip("|").split("|")]))
    name = "run-" + re.sub(r"[^a-z0-9.]+", "-", c["run"].lower())
    model = {"format": "tessel-model/1", "name": name, "seq": int(c["seq"]),
             "strategies": ["1f1b", "interleaved", "zb"],
             "sections": [
                 {"kind": "embedding", "name": "embed", "vocab": int(c["vocab"]),
                  "hidden": int(c["hidden"]), "positions": int(c["seq"])},
                 {"kind": "transformer", "name": "layer", "count": int(c["layers"]),
                  "hidden": int(c["hidden"]), "heads": int(c["heads"])},
                 {"kind": "head", "name": "head", "vocab": int(c["vocab"]),
                  "hidden": int(c["hidden"]), "tied": True}]}
    path = os.path.join(tmp, name + ".json")
    json.dump(model, open(path, "w"))
    base = ["--models-dir", models, "--model", path, "--hardware", c["hardware"], "--gpus",
            c["gpus"], "--global-batch", c["batch"], "--precision", c["precision"],
            "--search-top", "0", "--json", "--top", "1"]
    # the published configuration ran: no headroom beyond the profile's workspace for it
    fixed = base + ["--headroom", "0", "--tensor-parallel", c["T"], "--pipeline", c["P"],
                    "--strategies", "interleaved" if c["v"] not in ("-", "1") else "1f1b,interleaved"]
    # what the source leaves out ("-") tessel chooses
    for flag, key in (("--virtual-stages", "v"), ("--micro-batch-size", "b"),
                      ("--recompute", "recompute"), ("--sequence-parallel", "sp"),
                      ("--zero", "zero")):
        if c[key] != "-":
            fixed += [flag, c[key]]
    p, best = run(fixed), run(base)
    if not p or not best:
        print("FAIL %s: no plan fits (published config: %s)" % (c["run"], bool(p)))
        failed += 1
        continue
    key = "counted_tflops_per_gpu" if c["counts"] == "with recomputation" else "tflops_per_gpu"
    pred, pub = p[key], float(c["published"])
    err = pred / pub - 1
    ok = abs(err) <= 0.20 and best["iteration_s"] <= p["iteration_s"] * (1 + 1e-9)
    failed += not ok
    out.append("| %s | %s | %.1f (%s) | %+.1f %% | %s | %.2f s vs %.2f s |" % (
        c["run"], c["published"], pred, p["name"], 100 * err, best["name"],
        best["iteration_s"], p["iteration_s"]))
    if not ok:
        print("FAIL %s: predicted %.1f vs published %.1f, best %.3f s vs %.3f s" % (
            c["run"], pred, pub, best["iteration_s"], p["iteration_s"]))
print("\n".join(out))
sys.exit(1 if failed else 0)
