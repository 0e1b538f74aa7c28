#!/usr/bin/env python3
"""Does PyTorch's CSV runtime, which runs tessel's orders, cost more per step than PyTorch's own
schedule classes? The model of bench_torch_pipeline.py on 2 ranks (one thread each, gloo): 1F1B
and GPipe run by their classes and the same orders through the CSV runtime
(_PipelineScheduleRuntime), the four taking turns, --steps timed steps each after one warm-up.

usage: bench_torch_runtime.py [--steps S]

Prints each median and spread and the ratio CSV / class per order; asserts nothing. Last line:
SUMMARY runtime: csv_over_class_1F1B=<ratio> csv_over_class_GPipe=<ratio>"""
import argparse
import dataclasses
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

import bench_torch_pipeline as b  # noqa: E402
import tessel.torch as tt  # noqa: E402

ORDERS = ("1F1B", "GPipe")


def worker(rank, steps, init, result):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=b.RANKS, init_method=init)
    n, rows = 8, 2
    x, y = b.batch(n, rows)
    prof = tt.profile(b.modules(), x[:rows], y[:rows], b.loss_fn, reps=2, warmup=1)
    runners = []
    for cls in ORDERS:
        p = tt.plan.pytorch_plan(prof, cls, n)
        # kind "tessel": the Runner runs the plan's order from its CSV, not by the class
        for how, plan in (("class", p), ("csv", dataclasses.replace(p, kind="tessel"))):
            runners.append(((cls, how), tt.Runner(b.modules(), plan, b.loss_fn, x[:rows])))
    for _, r in runners:
        r.zero_grad()
        r.step(x, y)
        r.times.clear()
    for _ in range(steps):
        for _, r in runners:
            r.zero_grad()
            r.step(x, y)
    if rank == 0:
        result.update({key: list(r.times) for key, r in runners})
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=12)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        res = mp.Manager().dict()
        mp.spawn(worker, args=(args.steps, "file://" + os.path.join(tmp, "rdv"), res),
                 nprocs=b.RANKS, join=True)
        res = dict(res)
    med = {k: statistics.median(t) for k, t in res.items()}
    for (cls, how), t in sorted(res.items()):
        print("%-6s %-5s median %7.1f ms  spread %7.1f..%7.1f" % (
            cls, how, 1e3 * med[(cls, how)], 1e3 * min(t), 1e3 * max(t)))
    print("SUMMARY runtime: " + " ".join("csv_over_class_%s=%.3f" % (
        c, med[(c, "csv")] / med[(c, "class")]) for c in ORDERS))


if __name__ == "__main__":
    main()
