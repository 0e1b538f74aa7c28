#!/usr/bin/env python3
"""tessel.torch end to end: a GPT-like model on 2 ranks, PyTorch's schedule classes against
tessel's searched schedule, measured against predicted.

usage: bench_torch_pipeline.py [--steps S] [--rounds R] [--micro-batches N] [--rows B]
                               [--time-limit T] [--out FILE]

Two processes, one thread each (torch.set_num_threads(1)), gloo on the CPU; with CUDA and two
GPUs, NCCL and one GPU per rank (the model then takes --rows 64 sequences per micro-batch, not
2); with one GPU, the CPU (NCCL refuses two ranks on one GPU). The model: a token embedding with a
wide input MLP and one transformer layer (module 0), transformer layers (modules 1, 2) and one
layer with a head to a large vocabulary and the cross-entropy (module 3): the first and last
modules are the heavier. Linear schedules (GPipe, 1F1B) run 2 stages of 2 modules each;
Interleaved1F1B 4 stages (s mod 2); ZBVZeroBubble and DualPipeV 4 stages as a V.

1. A tessel.torch.Profiler in the process group: 2 warm-up rounds, then 5 (--reps) rounds
   (each: every action of every module once, a ping-pong of each output, a tiny pipeline step,
   GPipe steps of the modules with full and split backward); medians.
2. tessel.torch.compare on that first profile: tessel's auto on linear, interleaved and V (with
   split and full backward) and the PyTorch classes the installed torch has (those it lacks are
   named), all replayed in tessel's simulator: the predicted time per step.
3. Each PyTorch class and tessel's best plan run on fresh modules: 2 warm-up steps each, then
   10 (--rounds) rounds of 1 (--steps) step each, the schedules taking turns, and one profile
   round before each round: a change of the machine's load falls on all of them and on the
   profile. A step is timed from a barrier to a barrier.
4. The profile of those rounds alone (the closed loop: a profile taken where and when the steps
   ran) predicts every plan again (tessel.torch.repredict; tessel is also searched again on it).
   A table: measured median, spread (min..max), prediction and error, and the first profile's
   prediction and error; then the line
   SUMMARY torch: fastest=<name> tessel_over_fastest=<ratio> max_prediction_error=<percent>
   (the ratio of tessel's median to the fastest median; the largest |predicted - measured| /
   measured, of the final predictions). --out writes every figure as JSON. It asserts nothing.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import tessel.torch as tt  # noqa: E402

RANKS, T, DIM, HEADS, VOCAB, EMBED_MLP = 2, 64, 256, 4, 16384, 8
CLASSES = ["GPipe", "1F1B", "Interleaved1F1B", "ZBVZeroBubble", "DualPipeV"]


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, DIM)
        self.pos = torch.nn.Parameter(torch.zeros(T, DIM))
        self.mlp = torch.nn.Sequential(torch.nn.Linear(DIM, EMBED_MLP * DIM), torch.nn.GELU(),
                                       torch.nn.Linear(EMBED_MLP * DIM, DIM))

    def forward(self, ids):
        h = self.tok(ids) + self.pos
        return h + self.mlp(h)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm(DIM)
        self.out = torch.nn.Linear(DIM, VOCAB)

    def forward(self, h):
        return self.out(self.norm(h))


def layer():
    return torch.nn.TransformerEncoderLayer(DIM, HEADS, 4 * DIM, dropout=0.0, batch_first=True)


def modules():
    """The four stage modules, the same weights on every rank."""
    torch.manual_seed(0)
    return [torch.nn.Sequential(Embed(), layer()), torch.nn.Sequential(layer(), layer()),
            torch.nn.Sequential(layer(), layer()), torch.nn.Sequential(layer(), Head())]


def loss_fn(logits, tgt):
    return torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1))


def batch(n, rows):
    g = torch.Generator().manual_seed(1)
    return (torch.randint(0, VOCAB, (n * rows, T), generator=g),
            torch.randint(0, VOCAB, (n * rows, T), generator=g))


def worker(rank, args, init, result):
    torch.set_num_threads(1)
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(rank)
    dist.init_process_group("nccl" if cuda else "gloo", rank=rank, world_size=RANKS,
                            init_method=init)
    n = args.micro_batches
    x, y = batch(n, args.rows)
    t0 = time.perf_counter()
    profiler = tt.Profiler(modules(), x[:args.rows], y[:args.rows], loss_fn)
    # the first steps of anything run slower (the allocator grows, pages fault in)
    for _ in range(args.warmup):
        profiler.round(keep=False)
    for _ in range(args.reps):
        profiler.round()
    first = profiler.result()
    t_prof = time.perf_counter() - t0
    have = tt.pytorch_classes()
    names = [c for c in CLASSES if c in have["available"]]
    t0 = time.perf_counter()
    plans = tt.compare(first, n, classes=names, time_limit=args.time_limit)
    t_search = time.perf_counter() - t0
    run = [p for p in plans if p.kind == "pytorch"] + [p for p in plans if p.kind == "tessel"][:1]
    runners = [tt.Runner(modules(), p, loss_fn, x[:args.rows]) for p in run]
    for r in runners:
        for _ in range(args.warmup):
            r.zero_grad()
            r.step(x, y)
        r.times.clear()
    # the loop: a new profile, its rounds taken between the timed steps so that it sees the
    # load the steps see; then every plan is predicted again from it, and searched again
    profiler.reset()
    for _ in range(args.rounds):
        profiler.round()
        for r in runners:
            for _ in range(args.steps):
                r.zero_grad()
                r.step(x, y)
    final = profiler.result()
    again = [tt.repredict(p, final) for p in run]
    best_again = tt.compare(final, n, classes=[], time_limit=args.time_limit)[0]
    if rank == 0:
        measured = []
        for r, p in zip(runners, again):
            rep = r.report(skip=0)
            rep.update(times_s=r.times, stage_ranks=p.stage_ranks, predicted_s=p.predicted_s,
                       first_predicted_s=r.plan.predicted_s,
                       error=(p.predicted_s - rep["median_s"]) / rep["median_s"],
                       first_error=(r.plan.predicted_s - rep["median_s"]) / rep["median_s"])
            measured.append(rep)
        result["out"] = {
            "device": "cuda" if cuda else "cpu", "ranks": RANKS, "micro_batches": n,
            "rows": args.rows, "torch": torch.__version__, "missing": have["missing"],
            "profile_first": first.to_dict(), "profile": final.to_dict(),
            "profile_table": final.table(), "profile_s": t_prof, "search_s": t_search,
            "predicted_first": [{"name": p.name, "predicted_s": p.predicted_s,
                                 "stage_ranks": p.stage_ranks} for p in plans],
            "researched": {"name": best_again.name, "predicted_s": best_again.predicted_s},
            "measured": measured}
    dist.barrier()
    dist.destroy_process_group()


def summary(out):
    first_rounds = out["profile_first"]["info"]["rounds"]
    lines = ["final profile (%d rounds, taken between the timed steps):" % (
        out["profile"]["info"]["rounds"]), out["profile_table"], "",
        "first profile %.1f s (%d rounds), search and compare %.1f s; torch %s lacks: %s" % (
            out["profile_s"], first_rounds, out["search_s"], out["torch"],
            ", ".join(out["missing"]) or "none"),
        "predicted from the first profile by tessel's simulator (ms per step, %d micro-batches):"
        % out["micro_batches"]]
    for p in out["predicted_first"]:
        lines.append("  %-34s %9.1f  stage -> rank %s" % (p["name"], 1e3 * p["predicted_s"],
                                                        p["stage_ranks"]))
    lines.append("searched again on the final profile: %s, %.1f ms" % (
        out["researched"]["name"], 1e3 * out["researched"]["predicted_s"]))
    m = out["measured"]
    lines += ["", "%-34s %5s %8s %17s %9s %7s %9s %7s" % (
        "schedule (%s, %d ranks)" % (out["device"], out["ranks"]), "steps", "median",
        "spread (min..max)", "predicted", "error", "1st pred", "error")]
    for r in m:
        lines.append("%-34s %5d %8.1f %8.1f..%-8.1f %9.1f %+6.1f%% %9.1f %+6.1f%%" % (
            r["name"], r["steps"], 1e3 * r["median_s"], 1e3 * r["min_s"], 1e3 * r["max_s"],
            1e3 * r["predicted_s"], 100 * r["error"], 1e3 * r["first_predicted_s"],
            100 * r["first_error"]))
    fastest = min(m, key=lambda r: r["median_s"])
    tessel = [r for r in m if r["name"].startswith("tessel")][0]
    ratio = tessel["median_s"] / fastest["median_s"]
    within = tessel is fastest or tessel["median_s"] <= fastest["max_s"]
    lines.append("tessel: %s (median %.1f ms; the fastest, %s, spans %.1f..%.1f ms)" % (
        "the fastest" if tessel is fastest else
        "within the fastest's spread" if within else "outside the fastest's spread",
        1e3 * tessel["median_s"], fastest["name"], 1e3 * fastest["min_s"],
        1e3 * fastest["max_s"]))
    err = max(abs(r["error"]) for r in m)
    lines.append("SUMMARY torch: fastest=%s tessel_over_fastest=%.3f max_prediction_error=%.1f%%"
                 % (re.sub(r"[^A-Za-z0-9]+", "_", fastest["name"]).strip("_"), ratio, 100 * err))
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--micro-batches", type=int, default=8)
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--time-limit", type=float, default=30)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv[1:])
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if 0 < gpus < RANKS:
        # NCCL refuses two ranks on one GPU; the ranks, new processes, will see none
        print("bench_torch_pipeline.py: %d GPU(s) for %d ranks: the CPU and gloo instead"
              % (gpus, RANKS))
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
    if args.rows is None:
        args.rows = 64 if gpus >= RANKS else 2
    with tempfile.TemporaryDirectory() as tmp:
        result = mp.Manager().dict()
        mp.spawn(worker, args=(args, "file://" + os.path.join(tmp, "rdv"), result),
                 nprocs=RANKS, join=True)
        out = dict(result)["out"]
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    print(summary(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
