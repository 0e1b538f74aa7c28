"""Running a plan: each rank builds its pipeline stages from the user's stage modules and calls
step(); PyTorch's classes run by their public API, tessel's schedules through PyTorch's CSV
runtime (_PipelineScheduleRuntime._load_csv, which validates the order and adds the sends and
receives). The runner times each step and compares the median with the plan's prediction."""

import os
import statistics
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch
import torch.distributed as dist
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining import schedules as pts

from .plan import Plan
from .profile import _sync, _to, default_device
from .titan import torchtitan_config


class Runner:
    """One rank's part of a pipeline running `plan` on the user's stage modules (the full list,
    the same on every rank; every module goes to this rank's device for one forward that gives
    each stage's example input and output, then the rank runs only its stages' modules).
    sample is one micro-batch of the first module's input: its forward gives each stage's
    example input and output. Every rank of the process group constructs one and calls step()
    with the same batch."""

    def __init__(self, stages: Sequence[torch.nn.Module], plan: Plan,
                 loss_fn: Callable[[Any, Any], torch.Tensor], sample: Any,
                 device: Optional[torch.device] = None, group: Optional[Any] = None,
                 csv_path: Optional[str] = None) -> None:
        if not (dist.is_available() and dist.is_initialized()):
            raise RuntimeError("Runner needs torch.distributed initialised (one process per rank)")
        self.plan, self.group = plan, group
        self.rank, world = dist.get_rank(group), dist.get_world_size(group)
        ranks = plan.stage_ranks
        if max(ranks) + 1 != world:
            raise ValueError("plan: its layout has %d ranks, the process group %d"
                             % (max(ranks) + 1, world))
        n_modules = sum(len(g) for g in plan.groups)
        if len(stages) != n_modules:
            raise ValueError("stages: the plan was made for %d stage modules, got %d"
                             % (n_modules, len(stages)))
        self.device = torch.device(device) if device is not None else default_device()
        self.mine = [s for s, r in enumerate(ranks) if r == self.rank]
        self.modules = {s: self._module(stages, plan.groups[s]) for s in self.mine}
        self.first, self.last = ranks[0] == self.rank, ranks[-1] == self.rank
        self.times: List[float] = []
        self.csv_path = csv_path
        self.schedule = self._schedule(stages, loss_fn, sample)
        # a micro-batch's rows, torchtitan's pipeline_parallel_microbatch_size
        self.microbatch_rows = sample.shape[0] if isinstance(sample, torch.Tensor) \
            and sample.dim() > 0 else None

    def _module(self, stages, group):
        mod = stages[group[0]] if len(group) == 1 else torch.nn.Sequential(
            *[stages[i] for i in group])
        return mod.to(self.device)

    def _examples(self, stages, sample):
        """Each pipeline stage's example input and output, from a forward of one micro-batch
        through every module on this rank's device (as profile() runs it)."""
        x, out = _to(sample, self.device), {}
        with torch.no_grad():
            for s, group in enumerate(self.plan.groups):
                y = x
                for i in group:
                    y = stages[i].to(self.device)(y)
                out[s] = (x, y)
                x = y
        return out

    def _schedule(self, stages, loss_fn, sample):
        ex = self._examples(stages, sample)
        n_stages = len(self.plan.stage_ranks)
        # kept, so that another driver (torchtitan's schedule builder) can run the same stages
        self.stages: List[PipelineStage] = []
        built = self.stages
        for s in self.mine:
            x, y = ex[s]
            # a received activation needs its gradient to send it back: every stage but the first
            example = x.detach().requires_grad_(s > 0 and x.is_floating_point())
            built.append(PipelineStage(self.modules[s], s, n_stages, self.device,
                                       input_args=(example,),
                                       output_args=y.detach().requires_grad_(
                                           y.is_floating_point()),
                                       group=self.group))
        n = self.plan.n_microbatches
        if self.plan.kind == "pytorch":
            cls = getattr(pts, self.plan.pytorch_class)
            return cls(built[0] if len(built) == 1 and issubclass(cls, pts.PipelineScheduleSingle)
                       else built, n_microbatches=n, loss_fn=loss_fn)
        sched = pts._PipelineScheduleRuntime(built, n_microbatches=n, loss_fn=loss_fn)
        path = self.csv_path
        if path is None:
            fd, path = tempfile.mkstemp(prefix="tessel-rank%d-" % self.rank, suffix=".csv")
            os.close(fd)
        self.plan.to_pytorch_csv(path)
        try:
            sched._load_csv(path)
        finally:
            if self.csv_path is None:
                os.unlink(path)
        return sched

    def step(self, inputs: Any = None, target: Any = None) -> Optional[torch.Tensor]:
        """One training step on the whole batch (split into the plan's micro-batches): inputs
        are used on the first stage's rank, target on the last's; returns the mean loss over the
        micro-batches there, None elsewhere. Gradients accumulate in the modules (zero them and
        step the optimizer as usual). The step is timed from a barrier to a barrier."""
        losses: List[torch.Tensor] = []
        args = (_to(inputs, self.device),) if self.first else ()
        dist.barrier(group=self.group)
        t0 = time.perf_counter()
        self.schedule.step(*args, target=_to(target, self.device) if self.last else None,
                           losses=losses if self.last else None)
        _sync(self.device)
        dist.barrier(group=self.group)
        self.times.append(time.perf_counter() - t0)
        return torch.stack([l.detach() for l in losses]).mean() if self.last else None

    def parameters(self):
        """The parameters of this rank's stages (for its optimizer)."""
        return [p for m in self.modules.values() for p in m.parameters()]

    def zero_grad(self) -> None:
        for m in self.modules.values():
            m.zero_grad(set_to_none=True)

    def report(self, skip: int = 1) -> Dict[str, Any]:
        """Measured against predicted: the median and spread (min, max) of the step times after
        the first `skip`, the prediction and the error relative to the measured median."""
        t = self.times[skip:] or self.times
        if not t:
            raise ValueError("report: no step has run")
        med = statistics.median(t)
        return {"name": self.plan.name, "steps": len(t), "median_s": med, "min_s": min(t),
                "max_s": max(t), "predicted_s": self.plan.predicted_s,
                "error": (self.plan.predicted_s - med) / med}

    def write_csv(self, path: str) -> str:
        """Writes the plan's compute-only CSV to path (what _load_csv and torchtitan read)."""
        return self.plan.to_pytorch_csv(path)

    def torchtitan_config(self, csv_path: str, microbatch_size: Optional[int] = None,
                          num_layers: Optional[int] = None) -> str:
        """The torchtitan job's settings that run this plan (tessel.torch.titan); the
        micro-batch size is by default the rows of the sample this runner was given."""
        if microbatch_size is None:
            if self.microbatch_rows is None:
                raise ValueError("microbatch_size: the sample is not one tensor; give the "
                                 "micro-batch's size")
            microbatch_size = self.microbatch_rows
        return torchtitan_config(self.plan, csv_path, microbatch_size, num_layers)

