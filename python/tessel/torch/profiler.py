"""Taking a profile in the process group, in rounds: each round times every action of every
module once (module i on rank i mod ranks, all ranks at once, so they contend as they will when
the pipeline runs), one ping-pong of each module's output between ranks 0 and 1, and one step
of a tiny pipeline and two GPipe steps of the modules (full and split backward) under
PyTorch's CSV runtime (calibrate.py). Medians over rounds make the profile. A caller may
interleave rounds with its own work (a benchmark's timed steps), so that the profile sees the
machine's load as that work does."""

import statistics
import time
from typing import Any, Callable, Optional, Sequence

import torch
import torch.distributed as dist

from .profile import Profile, _Probe, _sync, _to, default_device, global_rank


class _Transfers:
    """Ping-pongs of each module output between ranks 0 and 1: one per round each, and one of
    a one-element message, whose time is the runtime's (counted in the cost per action)."""

    def __init__(self, outs, group, device):
        self.outs, self.group, self.device = outs, group, device
        self.rank = dist.get_rank(group)
        self.active = dist.get_world_size(group) > 1 and self.rank < 2
        self.peer = global_rank(group, 1 - self.rank) if self.active else None
        self.bufs = [torch.zeros(o[0], dtype=o[1], device=device) if o else None for o in outs]
        self.tiny = torch.zeros(1, device=device)
        self.times = [[] for _ in outs]
        self.tiny_times = []

    def _one_way(self, buf):
        t0 = time.perf_counter()
        if self.rank == 0:
            dist.send(buf, self.peer, group=self.group)
            dist.recv(buf, self.peer, group=self.group)
        else:
            dist.recv(buf, self.peer, group=self.group)
            dist.send(buf, self.peer, group=self.group)
        _sync(self.device)
        return (time.perf_counter() - t0) / 2

    def round(self, keep):
        if not self.active:
            return
        t = self._one_way(self.tiny)
        if keep:
            self.tiny_times.append(t)
        for i, buf in enumerate(self.bufs):
            if buf is not None:
                t = self._one_way(buf)
                if keep:
                    self.times[i].append(t)

    def result(self):
        """Seconds per output beyond a tiny message's (rank 0's figures, on every rank)."""
        out = [0.0] * len(self.outs)
        if self.active:
            tiny = statistics.median(self.tiny_times)
            out = [max(0.0, statistics.median(t) - tiny) if t else 0.0 for t in self.times]
        if dist.get_world_size(self.group) > 1:
            box = [out]
            dist.broadcast_object_list(box, src=global_rank(self.group, 0), group=self.group)
            out = box[0]
        return out


class Profiler:
    """A profile taken in rounds: construct it on every rank, call round() as often as wanted
    (every rank the same number of times), then result(). Arguments as profile()'s."""

    def __init__(self, stages: Sequence[torch.nn.Module], sample: Any, target: Any,
                 loss_fn: Callable[[Any, Any], torch.Tensor],
                 device: Optional[torch.device] = None, group: Optional[Any] = None,
                 overhead_micro_batches: int = 8) -> None:
        if not stages:
            raise ValueError("stages: no stage modules given")
        self.stages, self.group = list(stages), group
        self.device = torch.device(device) if device is not None else default_device()
        self.distributed = dist.is_available() and dist.is_initialized()
        self.rank = dist.get_rank(group) if self.distributed else 0
        self.world = dist.get_world_size(group) if self.distributed else 1
        x, target = _to(sample, self.device), _to(target, self.device)
        inputs, outs = [], []
        # every rank runs the forward chain once, untimed, for each module's input
        with torch.no_grad():
            for i, mod in enumerate(self.stages):
                mod.to(self.device)
                inputs.append(x)
                x = mod(x)
                outs.append(None if i == len(stages) - 1 else (tuple(x.shape), x.dtype))
        n = len(self.stages)
        self.ids = [i for i in range(n) if i % self.world == self.rank]
        self.probes = [_Probe(self.stages[i], inputs[i], target, loss_fn, i == n - 1, i > 0,
                              self.device) for i in self.ids]
        self.transfers = _Transfers(outs, group, self.device) if self.distributed else None
        self.calibration = None
        if self.distributed:
            from .calibrate import Calibration
            self.calibration = Calibration(self.stages, inputs, target, loss_fn,
                                           overhead_micro_batches, self.device, group)
        self.rounds = 0

    def round(self, keep: bool = True) -> None:
        """One timing of everything (kept for the medians unless keep is False: a warm-up)."""
        for p in self.probes:
            p.run(keep)
        if self.distributed:
            dist.barrier(group=self.group)
            self.transfers.round(keep)
            self.calibration.round(keep)
        self.rounds += keep

    def reset(self) -> None:
        """Forgets the kept rounds: the next result() holds only rounds taken from now on (a
        benchmark keeps those taken between its timed steps)."""
        for p in self.probes:
            p.times = {k: [] for k in p.times}
        if self.transfers is not None:
            self.transfers.times = [[] for _ in self.transfers.times]
            self.transfers.tiny_times = []
        if self.calibration is not None:
            for steps in (self.calibration.tiny, self.calibration.gpipe, self.calibration.split):
                if steps is not None:
                    steps.times = []
        self.rounds = 0

    def result(self) -> Profile:
        """The Profile: medians of the kept rounds, every rank's modules gathered; the cost per
        action and the compute scale from the calibration steps."""
        if not self.rounds:
            raise ValueError("Profiler.result: no round kept")
        mine = dict(zip(self.ids, (p.result() for p in self.probes)))
        if self.distributed:
            parts = [None] * self.world
            dist.all_gather_object(parts, mine, group=self.group)
            for part in parts:
                mine.update(part)
            transfer = self.transfers.result()
        else:
            transfer = [0.0] * len(self.stages)
        prof = Profile([mine[i] for i in range(len(self.stages))], transfer, 0.0, self.world,
                       self.device.type, {"rounds": self.rounds})
        if self.calibration is not None:
            (prof.overhead_s, prof.compute_scale, prof.split_scale,
             prof.info["calibration"]) = self.calibration.fit(prof)
        return prof


def profile(stages: Sequence[torch.nn.Module], sample: Any, target: Any,
            loss_fn: Callable[[Any, Any], torch.Tensor], reps: int = 5, warmup: int = 2,
            device: Optional[torch.device] = None, group: Optional[Any] = None,
            overhead_micro_batches: int = 8) -> Profile:
    """The Profile of the stage modules (in pipeline order) for one micro-batch `sample` (the
    first module's input) and `target` (the loss's): warmup rounds, then reps rounds of
    Profiler (medians). Every rank of the process group (group, default the world's, when
    torch.distributed is initialised) calls it with the same modules and inputs; each rank's
    device is its GPU when CUDA is available, else the CPU (or `device`). The cost per action
    comes from a tiny pipeline and the compute scale from GPipe steps of the modules themselves
    (calibrate.py), each with overhead_micro_batches micro-batches. The modules are moved to
    the device; their gradients are left None. Without a process group, the modules are timed
    here, transfers and the cost per action are 0 and the compute scale 1."""
    p = Profiler(stages, sample, target, loss_fn, device, group, overhead_micro_batches)
    for i in range(warmup + reps):
        p.round(i >= warmup)
    return p.result()
