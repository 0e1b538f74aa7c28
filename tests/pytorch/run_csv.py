#!/usr/bin/env python3
"""Runs schedules written as PyTorch's compute-only pipelining CSV and checks what they compute.

usage: run_csv.py [--ranks R] NAME=SCHEDULE.csv ...

Every CSV must have R rows (default 4). First each is checked by PyTorch's own validator
(torch.distributed.pipelining.schedules._validate_schedule, as _load_csv calls it) and lowered
to sends and receives as the runtime lowers it: a CSV either rejects is a failure. Then one launch
of R processes (CPU, gloo backend) runs them one after the other under _PipelineScheduleRuntime:
each stage s is Linear(8, 8) + tanh in float64, its weights seeded by s; one training step of
N micro-batches of 2 rows each, N the largest micro-batch index + 1. The loss (mean over the
micro-batches, as PyTorch's default scale_grads averages) and every parameter gradient of every
stage must equal the same model run without a pipeline on the whole batch, within a relative
error of 1e-5 (norm of the difference over the norm of the reference). A line per schedule says
what was measured; exit 0 when every one passes, 1 otherwise, 77 (skipped) when PyTorch >= 2.5
is not importable and TESSEL_REQUIRE_TORCH is not 1 (with it set, a missing torch fails).
"""
import csv
import faulthandler
import os
import re
import sys
import tempfile

REQUIRE = os.environ.get("TESSEL_REQUIRE_TORCH") == "1"
try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining import schedules as pts
except ImportError as exc:
    print(f"run_csv.py: PyTorch is not importable ({exc})")
    sys.exit(1 if REQUIRE else 77)
if tuple(int(x) for x in re.findall(r"\d+", torch.__version__)[:2]) < (2, 5):
    print(f"run_csv.py: PyTorch {torch.__version__} is older than 2.5")
    sys.exit(1 if REQUIRE else 77)

WIDTH, ROWS, TOL = 8, 2, 1e-5


def read_actions(path):
    """The CSV as PyTorch's _load_csv reads it: rank -> list of actions (None for empty cells)."""
    with open(path, newline="") as f:
        return {r: [pts._Action.from_str(c) for c in row] for r, row in enumerate(csv.reader(f))}


def layout(actions):
    """Stage count, micro-batch count and the rank of each stage."""
    rank_of, micro = {}, 0
    for rank, row in actions.items():
        for a in row:
            if a is None:
                continue
            rank_of.setdefault(a.stage_index, rank)
            micro = max(micro, (a.microbatch_index or 0) + 1)
    return max(rank_of) + 1, micro, rank_of


def check_with_pytorch(path, ranks):
    """None when PyTorch's validator and lowering accept the CSV, else PyTorch's message."""
    try:
        actions = read_actions(path)
        n_stages, n_micro, rank_of = layout(actions)
        pts._validate_schedule(actions, ranks, n_stages, n_micro)
        lowered = {r: [a for a in row if a is not None] for r, row in actions.items()}
        pts._add_send_recv(lowered, stage_to_rank=lambda s: rank_of[s], num_stages=n_stages)
    except Exception as exc:  # PyTorch raises AssertionError, RuntimeError or ValueError
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    return None


def make_stage_module(s):
    torch.manual_seed(1000 + s)
    return torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()).double()


def loss_fn(out, tgt):
    return ((out - tgt) ** 2).mean()


def reference(n_stages, n_micro):
    """Loss and per-stage gradients of the model without a pipeline."""
    mods = [make_stage_module(s) for s in range(n_stages)]
    x, y = batch(n_micro)
    losses = []
    for xm, ym in zip(x.chunk(n_micro), y.chunk(n_micro)):
        h = xm
        for m in mods:
            h = m(h)
        losses.append(loss_fn(h, ym))
    loss = torch.stack(losses).mean()
    loss.backward()
    return loss.detach(), [[p.grad.clone() for p in m.parameters()] for m in mods]


def batch(n_micro):
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(n_micro * ROWS, WIDTH, generator=g, dtype=torch.float64)
    y = torch.randn(n_micro * ROWS, WIDTH, generator=g, dtype=torch.float64)
    return x, y


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


def run_one(rank, ranks, path):
    """Runs the CSV on this rank; returns (loss error or None, max gradient error)."""
    actions = read_actions(path)
    n_stages, n_micro, rank_of = layout(actions)
    ref_loss, ref_grads = reference(n_stages, n_micro)
    stages, mods = [], {}
    for s in sorted(k for k, r in rank_of.items() if r == rank):
        mods[s] = make_stage_module(s)
        # the example input's requires_grad becomes that of the received activations: every stage
        # but the first needs the gradient of its input to send it back
        example = torch.zeros(ROWS, WIDTH, dtype=torch.float64, requires_grad=s > 0)
        out = torch.zeros(ROWS, WIDTH, dtype=torch.float64, requires_grad=True)
        stages.append(PipelineStage(mods[s], s, n_stages, torch.device("cpu"),
                                    input_args=(example,), output_args=out))
    sched = pts._PipelineScheduleRuntime(stages, n_microbatches=n_micro, loss_fn=loss_fn)
    sched._load_csv(path)
    x, y = batch(n_micro)
    has_first, has_last = rank_of[0] == rank, rank_of[n_stages - 1] == rank
    losses = []
    sched.step(*((x,) if has_first else ()), target=y if has_last else None,
               losses=losses if has_last else None)
    grad_err = 0.0
    for s, m in mods.items():
        for p, g in zip(m.parameters(), ref_grads[s]):
            grad_err = max(grad_err, rel(p.grad, g) if p.grad is not None else float("inf"))
    loss_err = None
    if has_last:
        got = torch.stack([l.detach() for l in losses]).mean() if len(losses) == n_micro else None
        loss_err = rel(got, ref_loss) if got is not None else float("inf")
    return loss_err, grad_err


def worker(rank, ranks, jobs, init, result):
    dist.init_process_group("gloo", rank=rank, world_size=ranks, init_method=init)
    for name, path in jobs:
        # a schedule that deadlocks ends the launch with every rank's stack instead of hanging
        faulthandler.dump_traceback_later(int(os.environ.get("TESSEL_TORCH_TIMEOUT", "300")),
                                          exit=True)
        try:
            result[(name, rank)] = run_one(rank, ranks, path)
        except Exception as exc:
            # the other ranks wait on this one's messages: end the launch, naming the schedule
            print(f"FAIL {name} {path}: rank {rank}: {type(exc).__name__}: {exc}", flush=True)
            os._exit(1)
        # the next schedule starts when every rank has finished this one
        dist.barrier()
        faulthandler.cancel_dump_traceback_later()
    dist.destroy_process_group()


def main(argv):
    ranks = 4
    if len(argv) > 2 and argv[1] == "--ranks":
        ranks, argv = int(argv[2]), [argv[0]] + argv[3:]
    jobs = [a.split("=", 1) for a in argv[1:]]
    if not jobs or any(len(j) != 2 for j in jobs):
        raise SystemExit(__doc__)
    fail, runnable = 0, []
    for name, path in jobs:
        why = check_with_pytorch(path, ranks)
        if why:
            print(f"FAIL {name:28} {path}: PyTorch rejects it: {why}")
            fail = 1
        else:
            runnable.append((name, path))
    if runnable:
        with tempfile.TemporaryDirectory() as tmp:
            result = mp.Manager().dict()
            mp.spawn(worker, args=(ranks, runnable, "file://" + os.path.join(tmp, "rdv"), result),
                     nprocs=ranks, join=True)
            result = dict(result)
    print(f"{'schedule':33} {'stages':>6} {'N':>3} {'loss rel err':>12} {'grad rel err':>12}")
    for name, path in runnable:
        n_stages, n_micro, _ = layout(read_actions(path))
        per_rank = [result.get((name, r), "no result") for r in range(ranks)]
        errors = [x for x in per_rank if isinstance(x, str)]
        if errors:
            print(f"FAIL {name:28} {path}: {errors[0]}")
            fail = 1
            continue
        loss_err = max(x[0] for x in per_rank if x[0] is not None)
        grad_err = max(x[1] for x in per_rank)
        ok = loss_err <= TOL and grad_err <= TOL
        fail |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name:28} {n_stages:6} {n_micro:3} {loss_err:12.2e} "
              f"{grad_err:12.2e}")
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv))
