#!/usr/bin/env python3
"""Runs a schedule written by `tessel export --pytorch` with torch.distributed.pipelining.

usage: run_csv.py SCHEDULE.csv

One process per row (rank) on CPU with the gloo backend; every stage is a small linear layer.
The CSV is loaded as PyTorch loads a custom schedule (compute-only actions; PyTorch adds the
sends and receives), one training step runs, and every stage must end with gradients and the
last stage with one finite loss per micro-batch. Exit 0 on success, 1 on failure, 77 (skipped)
when PyTorch >= 2.5 is not importable.
"""
import csv
import os
import re
import sys
import tempfile

try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime
except ImportError:
    sys.exit(77)
if tuple(int(x) for x in re.findall(r"\d+", torch.__version__)[:2]) < (2, 5):
    sys.exit(77)

WIDTH, MB = 8, 2  # features, rows per micro-batch
ACTION = re.compile(r"^(\d+)([FIWB])(\d+)$")


def read_layout(path):
    """Rows of the CSV, the rank of each stage and the micro-batch count."""
    with open(path, newline="") as f:
        rows = [[c.strip() for c in row if c.strip()] for row in csv.reader(f)]
    rank_of, micro = {}, 0
    for rank, row in enumerate(rows):
        for cell in row:
            m = ACTION.match(cell)
            if not m:
                raise SystemExit(f"{path}: rank {rank}: '{cell}' is not a compute action")
            rank_of.setdefault(int(m.group(1)), rank)
            micro = max(micro, int(m.group(3)) + 1)
    return rows, rank_of, micro


def worker(rank, world, path, init, result):
    dist.init_process_group("gloo", rank=rank, world_size=world, init_method=init)
    _, rank_of, n_micro = read_layout(path)
    n_stages = max(rank_of) + 1
    stages, modules = [], []
    for s in sorted(k for k, r in rank_of.items() if r == rank):
        torch.manual_seed(s)
        mod = torch.nn.Linear(WIDTH, WIDTH)
        modules.append(mod)
        example = torch.zeros(MB, WIDTH)
        stages.append(PipelineStage(mod, s, n_stages, torch.device("cpu"),
                                    input_args=(example,), output_args=example))
    sched = _PipelineScheduleRuntime(stages, n_microbatches=n_micro,
                                     loss_fn=lambda out, tgt: ((out - tgt) ** 2).mean())
    sched._load_csv(path)
    torch.manual_seed(1234)
    x, y = torch.randn(n_micro * MB, WIDTH), torch.randn(n_micro * MB, WIDTH)
    losses = []
    has_first, has_last = rank_of[0] == rank, rank_of[n_stages - 1] == rank
    args = (x,) if has_first else ()
    sched.step(*args, target=y if has_last else None, losses=losses if has_last else None)
    ok = all(p.grad is not None and torch.isfinite(p.grad).all() for m in modules
             for p in m.parameters())
    if has_last:
        ok = ok and len(losses) == n_micro and all(torch.isfinite(l).all() for l in losses)
    result[rank] = 1 if ok else 0
    dist.destroy_process_group()


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    path = sys.argv[1]
    rows, _, _ = read_layout(path)
    with tempfile.TemporaryDirectory() as tmp:
        result = mp.Manager().dict()
        mp.spawn(worker, args=(len(rows), path, "file://" + os.path.join(tmp, "rdv"), result),
                 nprocs=len(rows), join=True)
    if sorted(result.values()) != [1] * len(rows):
        print(f"{path}: some rank ended without gradients or losses: {dict(result)}")
        return 1
    print(f"{path}: ran on {len(rows)} ranks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
