"""Search and compare in measured units: tessel's auto on a layout's placement, and PyTorch's own
classes on theirs, each replayed in tessel's simulator at the user's micro-batch count; a Plan
carries what a Runner needs and the predicted seconds per step."""

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import torch.distributed as dist

from ..api import search as _search
from ..placement import Placement
from ..schedule import Schedule
from .layout import Layout, layout_name
from .orders import available, builtin_orders, by_name
from .place import Memory, default_unit, place
from .profile import Profile, global_rank


@dataclass
class Plan:
    """A schedule for the profiled pipeline. kind is "tessel" (run from its CSV) or "pytorch"
    (pytorch_class run by its public API); predicted_s is the simulator's time per step;
    peak_bytes the simulated peak of activation memory per rank; fits whether it stays within
    the capacity the placement states (None: no limit)."""
    name: str
    kind: str
    placement: Placement
    schedule: Schedule
    n_microbatches: int
    predicted_s: float
    peak_bytes: List[int]
    fits: bool
    pytorch_class: Optional[str] = None
    info: Dict[str, Any] = field(default_factory=dict)

    @property
    def stage_ranks(self) -> List[int]:
        return list(self.placement.info["stage_ranks"])

    @property
    def groups(self) -> List[List[int]]:
        return [list(g) for g in self.placement.info["groups"]]

    @property
    def unit_s(self) -> float:
        return self.placement.info["unit_s"]

    def to_pytorch_csv(self, path: Optional[str] = None) -> str:
        """The compute-only CSV that PyTorch's runtime runs (for a PyTorch class, its order)."""
        if self.kind == "pytorch":
            text = self.info["csv"]
            if path:
                with open(path, "w") as f:
                    f.write(text)
            return text
        return self.schedule.to_pytorch_csv(path=path, n=self.n_microbatches)

    def __repr__(self) -> str:
        return "Plan(%r, predicted %.2f ms, peak %s bytes%s)" % (
            self.name, 1e3 * self.predicted_s, self.peak_bytes, "" if self.fits else ", too big")


def _plan(name, kind, p, s, n, cls=None, **info):
    sim = s.simulate(n=n)
    munit = p.info["memory_unit"]
    cap = p.info["capacity"]
    peak = [int(x) * munit for x in sim["peak_memory"]]
    fits = cap is None or all(x <= c for x, c in zip(sim["peak_memory"], cap))
    return Plan(name, kind, p, s, n, sim["makespan"] * p.info["unit_s"], peak, fits, cls, info)


def _agreed(fn, group=None):
    """fn() computed on the first rank and sent to every rank, so that all run one plan (a
    search cut by its time limit could differ between ranks); an exception there is raised on
    every rank."""
    if not (dist.is_available() and dist.is_initialized()):
        return fn()
    box = [None]
    if dist.get_rank(group) == 0:
        try:
            box[0] = (True, fn())
        except Exception as exc:  # raised again below, on every rank
            box[0] = (False, exc)
    dist.broadcast_object_list(box, src=global_rank(group, 0), group=group)
    ok, value = box[0]
    if not ok:
        raise value
    return value


def search(profile: Profile, layout: Layout = "v", n_microbatches: int = 8,
           memory: Memory = None, ranks: Optional[int] = None, chunks: int = 2,
           time_limit: float = 30, unit_s: Optional[float] = None,
           split_backward: bool = True, group: Optional[Any] = None) -> Plan:
    """tessel's auto on the placement of layout (see place()), within memory bytes per rank
    (one for all or a list; None: no limit), at n_microbatches; replayed in the simulator. With
    a process group, rank 0 searches and every rank gets its plan."""
    return _agreed(lambda: _tessel_plan(profile, layout, n_microbatches, memory, ranks, chunks,
                                        time_limit, unit_s, split_backward), group)


def _tessel_plan(profile, layout, n, memory, ranks, chunks, time_limit, unit_s, split):
    p = place(profile, layout, ranks, chunks, split, memory, unit_s or default_unit(profile))
    s = _search(p, memory=p.info["capacity"], n=n, time_limit=time_limit)
    return _plan("tessel auto (%s%s)" % (layout_name(layout), "" if split else ", full B"),
                 "tessel", p, s, n)


def pytorch_plan(profile: Profile, name: str, n_microbatches: int = 8, memory: Memory = None,
                 ranks: Optional[int] = None, unit_s: Optional[float] = None) -> Plan:
    """PyTorch's class `name` (e.g. "ZBVZeroBubble") on its layout, its generated order replayed
    in the simulator."""
    c = by_name(name)
    ranks = ranks or profile.ranks
    orders, skipped = builtin_orders(ranks, n_microbatches, names=[c.name])
    if c.name not in orders:
        raise ValueError("PyTorch's %s does not run %d micro-batches on %d ranks: %s"
                         % (c.name, n_microbatches, ranks, skipped.get(c.name, "unknown")))
    p = place(profile, c.layout, ranks, 2, c.split, memory, unit_s or default_unit(profile))
    fd, path = tempfile.mkstemp(prefix="tessel-torch-", suffix=".csv")
    with os.fdopen(fd, "w") as f:
        f.write(orders[c.name])
    try:
        s = Schedule.from_pytorch_csv(path, p)
    finally:
        os.unlink(path)
    return _plan(c.name, "pytorch", p, s, n_microbatches, c.cls_name, csv=orders[c.name])


def pytorch_classes() -> Dict[str, List[str]]:
    """{"available": the class names the installed torch has, "missing": those it lacks}."""
    have, missing = available()
    return {"available": [c.name for c in have], "missing": missing}


def compare(profile: Profile, n_microbatches: int = 8, memory: Memory = None,
            layouts: Sequence[Layout] = ("linear", "interleaved", "v"),
            classes: Optional[Sequence[str]] = None, ranks: Optional[int] = None,
            time_limit: float = 30, group: Optional[Any] = None) -> List[Plan]:
    """tessel's auto on each layout (with the backward split into input and weight gradients,
    and whole: "full B") and PyTorch's classes (default: every one the installed torch has and
    that runs this size) in one simulator with one span unit, sorted by
    predicted time per step, those that fit memory first. With a process group, rank 0 does
    the work and every rank gets the list."""
    def run():
        unit = default_unit(profile)
        plans = [_tessel_plan(profile, lay, n_microbatches, memory, ranks, 2, time_limit, unit,
                              split) for lay in layouts for split in (True, False)]
        names = classes if classes is not None else available_names(profile, ranks,
                                                                    n_microbatches)
        plans += [pytorch_plan(profile, n, n_microbatches, memory, ranks, unit) for n in names]
        return sorted(plans, key=lambda x: (not x.fits, x.predicted_s))
    return _agreed(run, group)


def available_names(profile: Profile, ranks: Optional[int], n_microbatches: int) -> List[str]:
    """The PyTorch classes that the installed torch has and that accept this size."""
    return list(builtin_orders(ranks or profile.ranks, n_microbatches)[0])


def repredict(plan: Plan, profile: Profile, memory: Memory = None) -> Plan:
    """The same plan (its order of actions, stage map and backward split, its span unit)
    replayed on the placement of another profile: what the loop does after re-profiling."""
    info = plan.placement.info
    p = place(profile, plan.stage_ranks, max(plan.stage_ranks) + 1,
              split_backward=info["split_backward"], memory=memory, unit_s=plan.unit_s)
    p.info["layout"] = info["layout"]
    fd, path = tempfile.mkstemp(prefix="tessel-torch-", suffix=".csv")
    os.close(fd)
    try:
        text = plan.to_pytorch_csv(path)
        s = Schedule.from_pytorch_csv(path, p)
    finally:
        os.unlink(path)
    extra = {"csv": text} if plan.kind == "pytorch" else {}
    return _plan(plan.name, plan.kind, p, s, plan.n_microbatches, plan.pytorch_class, **extra)
