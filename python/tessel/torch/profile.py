"""Profiles: per stage module, its forward, full backward, input-gradient (I) and weight-gradient
(W) times and its activation, parameter and output bytes; per module output, the one-way
transfer time between two ranks; and the runtime's cost per action (seconds, bytes). The data,
and the timing of one module (_Probe); profiler.py takes them in a process group."""

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
    The first module's input_grad_s is 0 and its weight_grad_s its full backward, as PyTorch's
    first stage runs them.
    transfer_s[i] is the one-way time of module i's output (or its gradient) between two ranks,
    beyond the cost of a tiny message (which overhead_s holds); overhead_s is the runtime's
    cost per action (a forward, an input or weight gradient, a full backward), from a tiny
    pipeline run on every rank; compute_scale is how much slower the modules compute inside a
    pipeline step than alone (every rank computing at once, the caches shared with the
    micro-batches in flight, other work on the machine), fitted to GPipe steps of the modules
    (calibrate.py); split_scale is the further factor of the input- and weight-gradient
    actions, fitted to GPipe steps that split the backward. A placement's spans are
    compute_scale * time + overhead_s (times split_scale for I and W)."""
    stages: List[StageProfile]
    transfer_s: List[float]
    overhead_s: float = 0.0
    ranks: int = 1
    device: str = "cpu"
    info: Dict[str, Any] = field(default_factory=dict)
    compute_scale: float = 1.0
    split_scale: float = 1.0

    def merged(self, groups: Sequence[Sequence[int]]) -> "Profile":
        """The profile of pipeline stages that each run a group of consecutive modules: times
        and bytes add up; a group's output and transfer are those of its last module."""
        out = []
        for g in groups:
            xs = [self.stages[i] for i in g]
            out.append(StageProfile(*(sum(getattr(x, k) for x in xs) for k in (
                "forward_s", "backward_s", "input_grad_s", "weight_grad_s",
                "activation_bytes", "param_bytes")), xs[-1].output_bytes))
            if 0 in g:
                # the first stage runs no input gradient: its weight gradient is all the backward
                out[-1].input_grad_s, out[-1].weight_grad_s = 0.0, out[-1].backward_s
        return Profile(out, [self.transfer_s[g[-1]] for g in groups], self.overhead_s,
                       self.ranks, self.device, dict(self.info), self.compute_scale,
                       self.split_scale)

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
                   d.get("info", {}), d.get("compute_scale", 1.0), d.get("split_scale", 1.0))

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
        lines.append("overhead per action %.3f ms, compute in a pipeline x %.3f (I and W x %.3f "
                     "more), %d ranks, %s" % (1e3 * self.overhead_s, self.compute_scale,
                                              self.split_scale, self.ranks, self.device))
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


def _time_once(run, prep, device):
    """Seconds of run(prep()); prep is not timed."""
    state = prep()
    _sync(device)
    t0 = time.perf_counter()
    run(state)
    _sync(device)
    return time.perf_counter() - t0


def _nbytes(t):
    return t.numel() * t.element_size() if isinstance(t, torch.Tensor) else 0


def _to(x, device):
    return x.to(device) if isinstance(x, torch.Tensor) else x


class _Probe:
    """The timings of one module on input x, as PyTorch's pipeline stage runs it: forward (with
    the loss on the last), and the backward by torch.distributed.pipelining's own stage_backward,
    stage_backward_input and stage_backward_weight; needs_input_grad is whether its input
    carries a gradient (every stage's but the first's). Each run() times each action once."""

    def __init__(self, mod, x, target, loss_fn, last, needs_input_grad, device):
        self.mod, self.x, self.target, self.loss_fn = mod, x, target, loss_fn
        self.last, self.needs_input_grad, self.device = last, needs_input_grad, device
        self.params = [p for p in mod.parameters() if p.requires_grad]
        self.times = {"f": [], "b": [], "i": [], "w": []}
        saved = {}
        # weights saved for the backward are parameter memory, counted once in param_bytes
        weights = {p.data_ptr() for p in mod.parameters()}

        def pack(t):
            if t.data_ptr() not in weights:
                saved[(t.data_ptr(), t.shape, t.dtype)] = _nbytes(t)
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            _, out, _, _ = self.forward()
        self.out_bytes = _nbytes(out)
        self.act_bytes = int(sum(saved.values()))

    def forward(self, _=None):
        leaf = self.x.detach().requires_grad_(self.needs_input_grad and
                                              self.x.is_floating_point())
        out = self.mod(leaf)
        if self.last:
            return leaf, out, self.loss_fn(out, self.target), None
        return leaf, out, out, torch.ones_like(out)

    @staticmethod
    def full(state):
        leaf, _, y, g = state
        # as the stage calls it: the last stage's loss alone, the others' outputs with gradients
        stage_backward(y, None, [leaf]) if g is None else stage_backward((y,), (g,), [leaf])

    def inputs(self, state):
        leaf, _, y, g = state
        return stage_backward_input([y], None if g is None else [g], [leaf], iter(self.params))

    def run(self, keep):
        dev = self.device
        t = {"f": _time_once(self.forward, lambda: None, dev),
             "b": _time_once(self.full, self.forward, dev)}
        if self.needs_input_grad:
            t["i"] = _time_once(self.inputs, self.forward, dev)
            t["w"] = _time_once(lambda g: stage_backward_weight(iter(self.params), g),
                                lambda: self.inputs(self.forward())[1], dev)
        for p in self.params:
            p.grad = None
        if keep:
            for k, v in t.items():
                self.times[k].append(v)

    def result(self):
        med = {k: statistics.median(v) if v else 0.0 for k, v in self.times.items()}
        if not self.needs_input_grad:
            # the first stage skips its input gradient; its weight gradient is the full backward
            med["w"] = med["b"]
        return StageProfile(med["f"], med["b"], med["i"], med["w"], self.act_bytes,
                            int(sum(_nbytes(p) for p in self.mod.parameters())),
                            int(self.out_bytes))


def global_rank(group, r):
    """The world rank of rank r of group (None: the world's group)."""
    return r if group is None else dist.get_global_rank(group, r)
