"""PyTorch's own schedule classes: which the installed torch has, the layout each runs on, and
the order of actions each generates for a pipeline, as the compute-only CSV that tessel imports
and replays. Each class is constructed on stand-in stages (the attributes its constructor
reads), so nothing runs and no process group is needed."""

import types
from typing import Dict, List, NamedTuple, Tuple

import torch
from torch.distributed.pipelining import schedules as pts


class PyTorchClass(NamedTuple):
    name: str        # as PyTorch names it, without the Schedule prefix
    cls_name: str    # the attribute of torch.distributed.pipelining.schedules
    layout: str      # the layout it runs on: linear, interleaved (2 chunks) or v
    split: bool      # whether it splits the backward into input and weight gradients


CLASSES = [PyTorchClass("GPipe", "ScheduleGPipe", "linear", False),
           PyTorchClass("1F1B", "Schedule1F1B", "linear", False),
           PyTorchClass("Interleaved1F1B", "ScheduleInterleaved1F1B", "interleaved", False),
           PyTorchClass("LoopedBFS", "ScheduleLoopedBFS", "interleaved", False),
           PyTorchClass("InterleavedZeroBubble", "ScheduleInterleavedZeroBubble", "interleaved",
                        True),
           PyTorchClass("ZBVZeroBubble", "ScheduleZBVZeroBubble", "v", True),
           PyTorchClass("DualPipeV", "ScheduleDualPipeV", "v", True)]


def available() -> Tuple[List[PyTorchClass], List[str]]:
    """The classes the installed torch has, and the names of those it lacks."""
    have = [c for c in CLASSES if hasattr(pts, c.cls_name)]
    return have, [c.name for c in CLASSES if not hasattr(pts, c.cls_name)]


def by_name(name: str) -> PyTorchClass:
    for c in CLASSES:
        if name in (c.name, c.cls_name):
            return c
    raise ValueError("no PyTorch schedule class %r (known: %s)"
                     % (name, ", ".join(c.name for c in CLASSES)))


def _stand_in(index, n_stages, ranks):
    return types.SimpleNamespace(stage_index=index, num_stages=n_stages, group_size=ranks,
                                 group_rank=0, submod=torch.nn.Identity(),
                                 stage_index_to_group_rank={}, is_first=index == 0,
                                 is_last=index == n_stages - 1)


def _renumber_forwards(rows):
    """Each stage's forwards take micro-batches 0, 1, ... in the order they appear: the order
    Schedule1F1B's step runs, where its generated order (2.15) numbers the last rank's from 1."""
    out = []
    for row in rows:
        seen, new = {}, []
        for cell in row:
            a = pts._Action.from_str(cell)
            if a.computation_type == pts.F:
                m = seen.get(a.stage_index, 0)
                seen[a.stage_index] = m + 1
                cell = "%dF%d" % (a.stage_index, m)
            new.append(cell)
        out.append(new)
    return out


def order_csv(c: PyTorchClass, ranks: int, n_stages: int, n_micro: int) -> str:
    """The CSV of the compute actions class c runs for n_stages stages on ranks ranks and
    n_micro micro-batches: idle slots and gradient reductions left out, an overlapped pair
    (DualPipeV's F;B) written as its two actions, forward first."""
    cls = getattr(pts, c.cls_name)
    if c.layout == "linear":
        sched = cls(_stand_in(0, n_stages, ranks), n_micro)
    else:
        sched = cls([_stand_in(i, n_stages, ranks) for i in range(n_stages // ranks)], n_micro)
    kinds = (pts.F, pts.B, pts.I, pts.W)
    rows = []
    for rank in range(ranks):
        row = []
        for a in sched.pipeline_order[rank]:
            for x in (a.sub_actions or (a,)) if a is not None else ():
                if x.computation_type in kinds:
                    row.append(str(x))
        rows.append(row)
    if c.name == "1F1B":
        rows = _renumber_forwards(rows)
    return "".join(",".join(r) + "\n" for r in rows)


def builtin_orders(ranks: int, n_micro: int, chunks: int = 2,
                   names=None) -> Tuple[Dict[str, str], Dict[str, str]]:
    """The CSV of every available class (or of those named) for ranks ranks (chunks stages per
    rank for interleaved), and, for each class left out, why: the installed torch lacks it, or
    its constructor refuses the size (PyTorch's message)."""
    have, missing = available()
    out, skipped = {}, {n: "not in torch %s" % torch.__version__ for n in missing}
    for c in have:
        if names is not None and c.name not in names:
            continue
        n_stages = ranks * {"linear": 1, "interleaved": chunks, "v": 2}[c.layout]
        try:
            out[c.name] = order_csv(c, ranks, n_stages, n_micro)
        except Exception as exc:  # PyTorch's own check of the size (ValueError, AssertionError)
            skipped[c.name] = "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0])
    return out, skipped
