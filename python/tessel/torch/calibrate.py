"""What a module measured alone misses inside a pipeline step, in two terms:

- the runtime's cost per action (its bookkeeping, posting and waiting on sends and receives): a
  tiny pipeline (one Linear + tanh per rank) under PyTorch's CSV runtime, its median step time
  over tessel's simulated makespan of the same order with every action one unit long;
- the compute scale (every rank computing at once, the caches shared with the micro-batches in
  flight, other work on the machine): GPipe steps of the user's own modules under the CSV
  runtime; the scale at which tessel's simulator, with that cost per action, predicts their
  median time; then the split scale, a further factor of input- and weight-gradient actions, from
  GPipe steps whose backward is split (I then W per micro-batch)."""

import os
import statistics
import tempfile
import time

import torch
import torch.distributed as dist
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime

from ..schedule import Schedule
from .layout import group_stages
from .profile import Profile, _sync, global_rank


def gpipe_csv(ranks: int, n_micro: int, split: bool = False) -> str:
    """GPipe on one stage per rank as a compute-only CSV: every forward, then every full
    backward (or input then weight gradient, when split), in micro-batch order."""
    back = ("%dI%d", "%dW%d") if split else ("%dB%d",)
    return "".join(",".join(["%dF%d" % (r, m) for m in range(n_micro)] +
                            [a % (r, m) for m in range(n_micro) for a in back]) + "\n"
                   for r in range(ranks))


def _cat(x, n):
    return torch.cat([x] * n) if isinstance(x, torch.Tensor) else x


def predicted_s(prof: Profile, csv_path: str, n_micro: int, unit_s: float,
                split: bool = False) -> float:
    """tessel's simulated seconds for the CSV (one stage per rank)."""
    from .place import place
    p = place(prof, "linear", split_backward=split, unit_s=unit_s)
    return Schedule.from_pytorch_csv(csv_path, p).simulate(n=n_micro)["makespan"] * unit_s


def _write(text):
    fd, path = tempfile.mkstemp(prefix="tessel-torch-", suffix=".csv")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    return path


class _Steps:
    """A pipeline schedule of one stage per rank, its steps timed from a barrier to a barrier;
    the gradients each leaves are cleared."""

    def __init__(self, mod, x, y, loss_fn, csv, n_micro, batch, target, device, group):
        self.rank, self.world = dist.get_rank(group), dist.get_world_size(group)
        self.mod, self.csv, self.device, self.group = mod, csv, device, group
        example = x.detach().requires_grad_(self.rank > 0 and x.is_floating_point())
        stage = PipelineStage(mod, self.rank, self.world, device, input_args=(example,),
                              output_args=y.detach().requires_grad_(y.is_floating_point()),
                              group=group)
        self.sched = _PipelineScheduleRuntime([stage], n_microbatches=n_micro, loss_fn=loss_fn)
        path = _write(csv)
        try:
            self.sched._load_csv(path)
        finally:
            os.unlink(path)
        self.args = (batch,) if self.rank == 0 else ()
        self.target = target if self.rank == self.world - 1 else None
        self.times = []

    def round(self, keep):
        dist.barrier(group=self.group)
        t0 = time.perf_counter()
        self.sched.step(*self.args, target=self.target)
        _sync(self.device)
        dist.barrier(group=self.group)
        if keep:
            self.times.append(time.perf_counter() - t0)
        self.mod.zero_grad(set_to_none=True)

    def median(self):
        """Rank 0's median step, on every rank."""
        box = [statistics.median(self.times)]
        dist.broadcast_object_list(box, src=global_rank(self.group, 0), group=self.group)
        return box[0]


def tiny_steps(n_micro, device, group):
    """The tiny pipeline: every forward, then each input and weight gradient."""
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    csv = "".join(",".join(["%dF%d" % (r, m) for m in range(n_micro)] +
                           [a % (r, m) for m in range(n_micro) for a in ("%dI%d", "%dW%d")])
                  + "\n" for r in range(world))
    torch.manual_seed(0)
    mod = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh()).to(device)
    x = torch.zeros(1, 4, device=device)
    batch = torch.randn(n_micro, 4, device=device)
    return _Steps(mod, x, x, lambda a, b: ((a - b) ** 2).mean(), csv, n_micro, batch, batch,
                  device, group)


def tiny_overhead(steps: _Steps, n_micro: int) -> float:
    """Seconds per action: the tiny pipeline's median step over its simulated makespan in
    unit-long actions."""
    from ..placement import Placement
    world = steps.world
    blocks = [("F%d" % s, "forward", 1, 0, [s]) for s in range(world)]
    blocks += [(k + str(s), "backward", 1, 0, [s]) for s in range(world) for k in "BW"]
    edges = [("F%d" % s, "F%d" % (s + 1)) for s in range(world - 1)]
    edges += [("B%d" % (s + 1), "B%d" % s) for s in range(world - 1)]
    edges += [("B%d" % s, "W%d" % s) for s in range(world)]
    edges.append(("F%d" % (world - 1), "B%d" % (world - 1)))
    path = _write(steps.csv)
    try:
        p = Placement("overhead", world, blocks=blocks, edges=edges)
        units = Schedule.from_pytorch_csv(path, p).simulate(n=n_micro)["makespan"]
    finally:
        os.unlink(path)
    return steps.median() / units


class Calibration:
    """The tiny pipeline and GPipe steps of the modules (cut linearly into one stage per rank;
    without an equal cut, no GPipe steps and a compute scale of 1), one step of each per
    round(); fit() gives the two terms."""

    def __init__(self, stages, inputs, target, loss_fn, n_micro, device, group):
        self.rank, self.world = dist.get_rank(group), dist.get_world_size(group)
        self.n_micro = n_micro
        self.tiny = tiny_steps(n_micro, device, group)
        self.gpipe, self.split, self.why = None, None, None
        try:
            mine = group_stages(len(stages), self.world)[self.rank]
        except ValueError as exc:
            self.why = str(exc)
            return
        mod = torch.nn.Sequential(*[stages[i] for i in mine])
        x = inputs[mine[0]]
        with torch.no_grad():
            y = mod(x)
        batch, tgt = _cat(inputs[0], n_micro), _cat(target, n_micro)
        self.gpipe, self.split = (
            _Steps(mod, x, y, loss_fn, gpipe_csv(self.world, n_micro, split), n_micro, batch,
                   tgt, device, group) for split in (False, True))

    def round(self, keep):
        self.tiny.round(keep)
        if self.gpipe is not None:
            self.gpipe.round(keep)
            self.split.round(keep)

    def fit(self, prof):
        """(overhead_s, compute_scale, split_scale, what was measured). Each scale is found by
        bisection in [0.25, 8] (the simulated step grows with it)."""
        o = tiny_overhead(self.tiny, self.n_micro)
        info = {"tiny_step_s": self.tiny.median(), "micro_batches": self.n_micro}
        if self.gpipe is None:
            info["gpipe"] = "skipped: " + self.why
            return o, 1.0, 1.0, info
        unit = max(max(s.forward_s, s.backward_s) for s in prof.stages) / 400

        def at(scale, split_scale=1.0):
            return Profile(prof.stages, prof.transfer_s, o, prof.ranks, prof.device,
                           compute_scale=scale, split_scale=split_scale)

        def bisect(steps, profile_at, split):
            measured = steps.median()
            path = _write(steps.csv)
            try:
                lo, hi = 0.25, 8.0
                for _ in range(24):
                    mid = (lo + hi) / 2
                    if predicted_s(profile_at(mid), path, self.n_micro, unit, split) < measured:
                        lo = mid
                    else:
                        hi = mid
            finally:
                os.unlink(path)
            return (lo + hi) / 2, measured

        scale, info["gpipe_measured_s"] = bisect(self.gpipe, at, False)
        split, info["gpipe_split_measured_s"] = bisect(self.split, lambda k: at(scale, k), True)
        info["steps"] = len(self.gpipe.times)
        return o, scale, split, info
