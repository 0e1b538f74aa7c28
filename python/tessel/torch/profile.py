"""Profiling the user's stage modules where they will run: per module, its forward, full
backward, input-gradient (I) and weight-gradient (W) times and its activation, parameter and
output bytes; per module output, the one-way transfer time between two ranks; and the runtime's
cost per action. Each time is a median of timed repetitions after warm-up, in seconds."""

import json
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
import torch.distributed as dist
from torch.distributed.pipelining._backward import (stage_backward, stage_backward_input,
                                                    stage_backward_weight)

FORMAT = "tessel-torch-profile/1"


@dataclass
class StageProfile:
    """One stage module: times in seconds, sizes in bytes. The last module's forward and
    backward include the loss. activation_bytes is what its forward saves for the backward."""
    forward_s: float
    backward_s: float
    input_grad_s: float
    weight_grad_s: float
    activation_bytes: int
    param_bytes: int
    output_bytes: int


@dataclass
class Profile:
    """The profile of a model's stage modules on `ranks` ranks of `device` (a kind: cpu, cuda).
    transfer_s[i] is the one-way time of module i's output (or its gradient) between two ranks,
    beyond the cost of a tiny message (which overhead_s holds); overhead_s is the runtime's
    cost per action (a forward, an input or weight gradient, a full backward), from a tiny
    pipeline run on every rank."""
    stages: List[StageProfile]
    transfer_s: List[float]
    overhead_s: float = 0.0
    ranks: int = 1
    device: str = "cpu"
    info: Dict[str, Any] = field(default_factory=dict)

    def merged(self, groups: Sequence[Sequence[int]]) -> "Profile":
        """The profile of pipeline stages that each run a group of consecutive modules: times
        and bytes add up; a group's output and transfer are those of its last module."""
        out = []
        for g in groups:
            xs = [self.stages[i] for i in g]
            out.append(StageProfile(*(sum(getattr(x, k) for x in xs) for k in (
                "forward_s", "backward_s", "input_grad_s", "weight_grad_s",
                "activation_bytes", "param_bytes")), xs[-1].output_bytes))
        return Profile(out, [self.transfer_s[g[-1]] for g in groups], self.overhead_s,
                       self.ranks, self.device, dict(self.info))

    def to_dict(self) -> Dict[str, Any]:
        d = asdict(self)
        d["format"] = FORMAT
        return d

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Profile":
        if d.get("format") != FORMAT:
            raise ValueError("profile: not a %s dict (format %r)" % (FORMAT, d.get("format")))
        return cls([StageProfile(**s) for s in d["stages"]], list(d["transfer_s"]),
                   d.get("overhead_s", 0.0), d.get("ranks", 1), d.get("device", "cpu"),
                   d.get("info", {}))

    def save(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)

    @classmethod
    def load(cls, path: str) -> "Profile":
        with open(path) as f:
            return cls.from_dict(json.load(f))

    def table(self) -> str:
        """A text table of the profile in milliseconds and KiB."""
        lines = ["module  forward  backward  input-grad  weight-grad  activ-KiB  param-KiB  "
                 "send-ms"]
        for i, (s, t) in enumerate(zip(self.stages, self.transfer_s)):
            lines.append("%6d %8.2f %9.2f %11.2f %12.2f %10.0f %10.0f %8.3f" % (
                i, 1e3 * s.forward_s, 1e3 * s.backward_s, 1e3 * s.input_grad_s,
                1e3 * s.weight_grad_s, s.activation_bytes / 1024, s.param_bytes / 1024, 1e3 * t))
        lines.append("overhead per action %.3f ms, %d ranks, %s" % (1e3 * self.overhead_s,
                                                                   self.ranks, self.device))
        return "\n".join(lines)


def default_device() -> torch.device:
    """This rank's GPU when CUDA is available (the local rank's, by the current device), else
    the CPU."""
    if torch.cuda.is_available():
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


def _sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _median_time(run, prep, reps, warmup, device):
    """Median seconds of run(prep()) over reps runs after warmup runs; prep is not timed."""
    times = []
    for i in range(warmup + reps):
        state = prep()
        _sync(device)
        t0 = time.perf_counter()
        run(state)
        _sync(device)
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _nbytes(t):
    return t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0


def _to(x, device):
    return x.to(device) if isinstance(x, torch.Tensor) else x


def measure_module(mod, x, target, loss_fn, last, needs_input_grad, reps=5, warmup=1,
                   device=None):
    """The StageProfile of one module on input x, as PyTorch's pipeline stage runs it: the
    backward by torch.distributed.pipelining's own stage_backward, stage_backward_input and
    stage_backward_weight; needs_input_grad is whether its input carries a gradient (every
    stage's but the first's)."""
    device = device or x.device
    params = [p for p in mod.parameters() if p.requires_grad]

    def forward(_=None):
        leaf = x.detach().requires_grad_(needs_input_grad and x.is_floating_point())
        out = mod(leaf)
        if last:
            return leaf, out, loss_fn(out, target), None
        return leaf, out, out, torch.ones_like(out)

    saved = {}
    # weights saved for the backward are parameter memory, counted once in param_bytes
    weights = {p.data_ptr() for p in mod.parameters()}

    def pack(t):
        if t.data_ptr() not in weights:
            saved[(t.data_ptr(), t.shape, t.dtype)] = _nbytes(t)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        _, out, _, _ = forward()
    out_bytes = _nbytes(out)
    del out

    def full(state):
        leaf, _, y, g = state
        stage_backward([y], None if g is None else [g], [leaf])

    def inputs(state):
        leaf, _, y, g = state
        return stage_backward_input([y], None if g is None else [g], [leaf], iter(params))

    def weights_prep():
        _, groups = inputs(forward())
        return groups

    t_f = _median_time(forward, lambda: None, reps, warmup, device)
    t_b = _median_time(full, forward, reps, warmup, device)
    t_i = _median_time(inputs, forward, reps, warmup, device)
    t_w = _median_time(lambda g: stage_backward_weight(iter(params), g), weights_prep, reps,
                       warmup, device)
    for p in params:
        p.grad = None
    return StageProfile(t_f, t_b, t_i, t_w, int(sum(saved.values())),
                        int(sum(_nbytes(p) for p in mod.parameters())), int(out_bytes))


def global_rank(group, r):
    """The world rank of rank r of group (None: the world's group)."""
    return r if group is None else dist.get_global_rank(group, r)


def _transfer_times(outs, group, device, reps, warmup):
    """One-way seconds of each module's output between ranks 0 and 1 of group (a ping-pong,
    half the round trip), less that of a one-element message: the part a size adds to a
    transfer. Every rank of group calls this; ranks beyond 1 wait. [0.0, ...] on one rank."""
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    if world < 2:
        return [0.0] * len(outs)
    peer = global_rank(group, 1 - rank) if rank < 2 else None

    def one_way(shape, dtype):
        buf = torch.zeros(shape, dtype=dtype, device=device)
        times = []
        for i in range(warmup + reps):
            t0 = time.perf_counter()
            if rank == 0:
                dist.send(buf, peer, group=group)
                dist.recv(buf, peer, group=group)
            elif rank == 1:
                dist.recv(buf, peer, group=group)
                dist.send(buf, peer, group=group)
            _sync(device)
            if i >= warmup:
                times.append((time.perf_counter() - t0) / 2)
        return statistics.median(times)

    out = []
    if rank < 2:
        tiny = one_way((1,), torch.float32)
        out = [0.0 if o is None else max(0.0, one_way(*o) - tiny) for o in outs]
    box = [out]
    dist.broadcast_object_list(box, src=global_rank(group, 0), group=group)
    return box[0]


def _overhead(group, device, n_micro, reps, warmup):
    """The runtime's seconds per action: a pipeline of one tiny Linear stage per rank runs
    n_micro micro-batches (all forwards, then each input and weight gradient) under PyTorch's CSV
    runtime; the median step time over the makespan tessel's simulator gives the same order with
    every action one unit long."""
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime
    import os
    import tempfile

    from ..placement import Placement
    from ..schedule import Schedule
    rank, world = dist.get_rank(group), dist.get_world_size(group)
    rows = [["%dF%d" % (r, m) for m in range(n_micro)] +
            [a % (r, m) for m in range(n_micro) for a in ("%dI%d", "%dW%d")]
            for r in range(world)]
    text = "".join(",".join(row) + "\n" for row in rows)
    torch.manual_seed(0)
    mod = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh()).to(device)
    example = torch.zeros(1, 4, device=device, requires_grad=rank > 0)
    stage = PipelineStage(mod, rank, world, device, input_args=(example,),
                          output_args=torch.zeros(1, 4, device=device, requires_grad=True),
                          group=group)
    sched = _PipelineScheduleRuntime([stage], n_microbatches=n_micro,
                                     loss_fn=lambda y, t: ((y - t) ** 2).mean())
    fd, path = tempfile.mkstemp(prefix="tessel-overhead-", suffix=".csv")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    try:
        sched._load_csv(path)
        x = torch.randn(n_micro, 4, device=device)
        times = []
        for i in range(warmup + reps):
            dist.barrier(group=group)
            t0 = time.perf_counter()
            sched.step(*((x,) if rank == 0 else ()), target=x if rank == world - 1 else None)
            _sync(device)
            dist.barrier(group=group)
            if i >= warmup:
                times.append(time.perf_counter() - t0)
        blocks = [("F%d" % s, "forward", 1, 0, [s]) for s in range(world)]
        blocks += [(k + str(s), "backward", 1, 0, [s]) for s in range(world) for k in "BW"]
        edges = [("F%d" % s, "F%d" % (s + 1)) for s in range(world - 1)]
        edges += [("B%d" % (s + 1), "B%d" % s) for s in range(world - 1)]
        edges += [("B%d" % s, "W%d" % s) for s in range(world)]
        edges.append(("F%d" % (world - 1), "B%d" % (world - 1)))
        p = Placement("overhead", world, blocks=blocks, edges=edges)
        units = Schedule.from_pytorch_csv(path, p).simulate(n=n_micro)["makespan"]
    finally:
        os.unlink(path)
    return statistics.median(times) / units


def profile(stages: Sequence[torch.nn.Module], sample: Any, target: Any,
            loss_fn: Callable[[Any, Any], torch.Tensor], reps: int = 5, warmup: int = 1,
            device: Optional[torch.device] = None, group: Optional[Any] = None,
            overhead_micro_batches: int = 8) -> Profile:
    """The Profile of the stage modules (in pipeline order) for one micro-batch `sample` (the
    first module's input) and `target` (the loss's). Every rank of the process group (group,
    default the world's, when torch.distributed is initialised) calls it with the same modules
    and inputs: module i is timed on rank i mod ranks, all at once, on each rank's device
    (default: its GPU when CUDA is available, else the CPU), so the ranks contend as they will
    when the pipeline runs; transfers are timed between ranks 0 and 1 and the cost per action
    on a tiny pipeline over every rank. The modules are moved to the device. Without a process
    group, everything is timed here and transfers and the cost per action are 0."""
    if not stages:
        raise ValueError("stages: no stage modules given")
    device = torch.device(device) if device is not None else default_device()
    distributed = dist.is_available() and dist.is_initialized()
    rank = dist.get_rank(group) if distributed else 0
    world = dist.get_world_size(group) if distributed else 1
    x, target = _to(sample, device), _to(target, device)
    inputs, outs = [], []
    # every rank runs the forward chain once, untimed, for each module's input
    with torch.no_grad():
        for i, mod in enumerate(stages):
            mod.to(device)
            inputs.append(x)
            x = mod(x)
            last = i == len(stages) - 1
            outs.append(None if last else (tuple(x.shape), x.dtype))
    mine = {}
    for i, mod in enumerate(stages):
        if i % world == rank:
            mine[i] = measure_module(mod, inputs[i], target, loss_fn, i == len(stages) - 1,
                                     i > 0, reps, warmup, device)
    if distributed:
        parts = [None] * world
        dist.all_gather_object(parts, mine, group=group)
        for part in parts:
            mine.update(part)
        transfer = _transfer_times(outs, group, device, reps, warmup)
        overhead = _overhead(group, device, overhead_micro_batches, reps, warmup)
    else:
        transfer, overhead = [0.0] * len(stages), 0.0
    return Profile([mine[i] for i in range(len(stages))], transfer, overhead, world,
                   device.type, {"reps": reps, "warmup": warmup})
