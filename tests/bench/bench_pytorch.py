#!/usr/bin/env python3
"""End-to-end benchmark: a Tessel schedule against PyTorch's built-in schedules, in PyTorch.

usage: .venv/bin/python tests/bench/bench_pytorch.py build/bin/tessel [--reps R] [--time-limit S]

CPU, 4 ranks, gloo, N = 8 micro-batches. The model is GPT-like: token embedding with a heavy
input MLP, 8 transformer layers (d = 128, 4 heads, T = 32, 2 sequences per micro-batch) and a
heavy head (LayerNorm, Linear to a 8192-word vocabulary, cross-entropy), cut into 8 stages: stage
0 = embedding + layer 0, stage s = layer s, stage 7 = layer 7 + head, so stages 0 and 7 are
heavier than the rest. GPipe and 1F1B (one stage per rank) run 4 stages, each two of those 8.

1. Each stage is profiled (tests/pytorch/tessel_profile.py: forward, input- and weight-gradient
   times, median of 5, microseconds; the 4-stage cut sums pairs) and the profile becomes three
   placements: 4 stages linear, 8 stages interleaved (s mod 4), 8 stages V (s and 7-s on a rank).
2. `tessel search --method auto --memory none -n 8` runs on the three placements; the schedule
   with the shortest makespan is exported with `tessel export --pytorch`.
3. The orders of PyTorch's built-in classes (tests/pytorch/pytorch_orders.py) are imported on
   their placements and simulated: `tessel simulate` gives every schedule's predicted makespan,
   times the span unit, the predicted iteration time.
4. One launch of 4 processes (one thread each) runs every schedule: 2 warm-up steps, then R
   (default 7) timed steps (a barrier before and after each step; the time is rank 0's) and
   prints the median iteration time of each, its ratio to the best PyTorch built-in and the
   prediction's error. It asserts nothing: it prints figures.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining import schedules as pts

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "pytorch"))
import tessel_profile  # noqa: E402

D, N, ROWS, T, DIM, VOCAB, LAYERS = 4, 8, 2, 32, 128, 8192, 8


class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = torch.nn.Embedding(VOCAB, DIM)
        self.pos = torch.nn.Parameter(torch.zeros(T, DIM))
        self.mlp = torch.nn.Sequential(torch.nn.Linear(DIM, 16 * DIM), torch.nn.GELU(),
                                       torch.nn.Linear(16 * DIM, DIM))

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
    return torch.nn.TransformerEncoderLayer(DIM, 4, 4 * DIM, dropout=0.0, batch_first=True)


def stages8():
    torch.manual_seed(0)
    mods = [torch.nn.Sequential(Embed(), layer())]
    mods += [layer() for _ in range(LAYERS - 2)]
    mods.append(torch.nn.Sequential(layer(), Head()))
    return mods


def stages_for(n_stages):
    mods = stages8()
    if n_stages == 8:
        return mods
    return [torch.nn.Sequential(mods[2 * i], mods[2 * i + 1]) for i in range(4)]


def loss_fn(logits, tgt):
    return torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1))


def batch():
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, VOCAB, (N * ROWS, T), generator=g)
    tgt = torch.randint(0, VOCAB, (N * ROWS, T), generator=g)
    return ids, tgt


def pipeline_stage(mod, s, n_stages):
    if s == 0:
        example = torch.zeros(ROWS, T, dtype=torch.long)
    else:
        example = torch.zeros(ROWS, T, DIM, requires_grad=True)
    width = VOCAB if s == n_stages - 1 else DIM
    out = torch.zeros(ROWS, T, width, requires_grad=True)
    return PipelineStage(mod, s, n_stages, torch.device("cpu"), input_args=(example,),
                         output_args=out)


# name, PyTorch class (None: the Tessel CSV), stages, layout (rank of stage s)
RUNS = [("GPipe", "ScheduleGPipe", 4, "linear"), ("1F1B", "Schedule1F1B", 4, "linear"),
        ("Interleaved1F1B", "ScheduleInterleaved1F1B", 8, "interleaved"),
        ("LoopedBFS", "ScheduleLoopedBFS", 8, "interleaved"),
        ("InterleavedZeroBubble", "ScheduleInterleavedZeroBubble", 8, "interleaved"),
        ("ZBVZeroBubble", "ScheduleZBVZeroBubble", 8, "v"),
        ("DualPipeV", "ScheduleDualPipeV", 8, "v")]


def make_schedule(rank, cls, n_stages, layout, csv_path):
    mods = stages_for(n_stages)
    mine = [s for s in range(n_stages)
            if tessel_profile.rank_of(s, n_stages, D, layout) == rank]
    stages = [pipeline_stage(mods[s], s, n_stages) for s in mine]
    if cls is None:
        sched = pts._PipelineScheduleRuntime(stages, n_microbatches=N, loss_fn=loss_fn)
        sched._load_csv(csv_path)
    elif n_stages == D:
        sched = getattr(pts, cls)(stages[0], n_microbatches=N, loss_fn=loss_fn)
    else:
        sched = getattr(pts, cls)(stages, n_microbatches=N, loss_fn=loss_fn)
    first = tessel_profile.rank_of(0, n_stages, D, layout) == rank
    last = tessel_profile.rank_of(n_stages - 1, n_stages, D, layout) == rank
    return sched, [mods[s] for s in mine], first, last


def worker(rank, runs, reps, init, result):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=D, init_method=init)
    ids, tgt = batch()
    for name, cls, n_stages, layout, csv_path in runs:
        sched, mods, first, last = make_schedule(rank, cls, n_stages, layout, csv_path)
        times = []
        for i in range(2 + reps):
            for m in mods:
                m.zero_grad(set_to_none=True)
            dist.barrier()
            t0 = time.perf_counter()
            try:
                sched.step(*((ids,) if first else ()), target=tgt if last else None)
            except Exception as exc:
                raise RuntimeError(f"{name}, step {i}: {exc}") from exc
            dist.barrier()
            if i >= 2:
                times.append(time.perf_counter() - t0)
        if rank == 0:
            result[name] = times
    dist.destroy_process_group()


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def makespan(tessel, sched):
    out = json.loads(run([tessel, "simulate", sched, "--json"]))
    return out["makespan"]


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    tessel, reps, limit = argv[1], 7, 60
    rest = argv[2:]
    while rest:
        if rest[0] == "--reps":
            reps = int(rest[1])
        elif rest[0] == "--time-limit":
            limit = int(rest[1])
        rest = rest[2:]
    torch.set_num_threads(1)
    tmp = tempfile.mkdtemp(prefix="bench-pytorch-")
    ids, tgt = batch()
    prof8 = tessel_profile.measure(stages8(), ids[:ROWS], tgt[:ROWS], loss_fn)
    # the 4-stage cut's stages are pairs of the 8: their times add up (one measurement for both)
    pairs = zip(prof8["stages"][0::2], prof8["stages"][1::2])
    prof4 = {"format": "tessel-profile/1", "unit": "us", "stages": [
        {k: a[k] + b[k] for k in ("forward_us", "input_grad_us", "weight_grad_us")} |
        {"activation_bytes": b["activation_bytes"]} for a, b in pairs]}
    print("profile (us, median of 5): stage  forward  input-grad  weight-grad")
    for s, x in enumerate(prof8["stages"]):
        print(f"  {s}  {x['forward_us']:9.1f} {x['input_grad_us']:9.1f} {x['weight_grad_us']:9.1f}")
    # one span unit for every placement, so that predictions compare
    unit = max(max(x["forward_us"], x["input_grad_us"], x["weight_grad_us"])
               for x in prof4["stages"] + prof8["stages"]) / 100
    places = {}
    for layout, prof in (("linear", prof4), ("interleaved", prof8), ("v", prof8)):
        p, _ = tessel_profile.placement(prof, layout, unit)
        places[layout] = os.path.join(tmp, f"{layout}.json")
        with open(places[layout], "w") as f:
            json.dump(p, f)
    print(f"1 span unit = {unit:.1f} us")
    # the search
    best = None
    for layout in ("linear", "interleaved", "v"):
        out = os.path.join(tmp, f"auto-{layout}.json")
        t0 = time.perf_counter()
        run([tessel, "search", places[layout], "--memory", "none", "--method", "auto", "-n",
             str(N), "--time-limit", str(limit), "-o", out])
        ms = makespan(tessel, out)
        print(f"auto on {layout}: makespan {ms} units ({time.perf_counter() - t0:.1f} s)")
        if best is None or ms < best[1]:
            best = (layout, ms, out)
    layout, _, sched = best
    csv_path = os.path.join(tmp, "tessel.csv")
    run([tessel, "export", "--pytorch", sched, "-n", str(N), "-o", csv_path])
    runs = [(n, c, k, l, None) for n, c, k, l in RUNS]
    runs.append((f"tessel auto ({layout})", None, 4 if layout == "linear" else 8, layout, csv_path))
    # predictions
    orders = os.path.join(tmp, "orders")
    run([sys.executable, os.path.join(HERE, "..", "pytorch", "pytorch_orders.py"), orders])
    predicted = {runs[-1][0]: makespan(tessel, sched) * unit}
    for name, _, _, lay, _ in runs[:-1]:
        j = os.path.join(orders, f"{name}.json")
        run([tessel, "import", "--pytorch", os.path.join(orders, f"{name}.csv"),
             "--placement-file", places[lay], "-o", j])
        predicted[name] = makespan(tessel, j) * unit
    with tempfile.TemporaryDirectory() as rdv:
        result = mp.Manager().dict()
        mp.spawn(worker, args=(runs, reps, "file://" + os.path.join(rdv, "rdv"), result),
                 nprocs=D, join=True)
        result = dict(result)
    med = {n: statistics.median(t) * 1e3 for n, t in result.items()}
    best_pt = min(med[n] for n, *_ in RUNS)
    print(f"\nD = {D}, N = {N}, median of {reps} steps, ms (one launch, gloo, 1 thread/rank)")
    print(f"{'schedule':28} {'measured':>9} {'/best PT':>8} {'predicted':>9} {'error':>7}")
    for name, *_ in runs:
        m, p = med[name], predicted[name] / 1e3
        print(f"{name:28} {m:9.1f} {m / best_pt:8.3f} {p:9.1f} {100 * (p - m) / m:+6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
