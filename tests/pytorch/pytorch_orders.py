#!/usr/bin/env python3
"""Writes the order each of PyTorch's built-in pipeline schedules generates, as a compute-only CSV.

usage: pytorch_orders.py OUTDIR [--ranks D] [-n N]

For GPipe, 1F1B, Interleaved1F1B, LoopedBFS, InterleavedZeroBubble, ZBVZeroBubble and DualPipeV
(two stages per rank for the multi-stage ones), the schedule class is constructed on stand-in
stages (the attributes its constructor reads: stage index, stage count, group size and rank), so
that it computes its pipeline_order without a process group and without running anything. Each
rank's row keeps the compute actions in order: idle slots and gradient reductions (REDUCE_GRAD,
WAIT_REDUCE_GRAD) are left out, and DualPipeV's overlapped pair (F;B)OVERLAP_F_B becomes its
two actions, forward first. OUTDIR/CLASS.csv gets each (CLASS as PyTorch names it, without the
Schedule prefix) and OUTDIR/vshape_interleaved_zb.json the placement InterleavedZeroBubble runs
on (stage s on rank s mod D, backward split into input and weight gradients), which has no
built-in.

Schedule1F1B's pipeline_order (2.15) numbers the last rank's forwards 1..N instead of 0..N-1 (its
warm-up count is 0 there and the steady loop increments before use); PyTorch's own validator
rejects that order. OUTDIR/1F1B.ir.csv keeps it as generated and 1F1B.csv renumbers that rank's
forwards in order, which is what Schedule1F1B's own step runs. A line on stdout says so.
"""
import csv
import json
import os
import sys
import types

import torch
from torch.distributed.pipelining import schedules as pts

CLASSES = [("GPipe", "ScheduleGPipe", 1), ("1F1B", "Schedule1F1B", 1),
           ("Interleaved1F1B", "ScheduleInterleaved1F1B", 2),
           ("LoopedBFS", "ScheduleLoopedBFS", 2),
           ("InterleavedZeroBubble", "ScheduleInterleavedZeroBubble", 2),
           ("ZBVZeroBubble", "ScheduleZBVZeroBubble", 2), ("DualPipeV", "ScheduleDualPipeV", 2)]


def stand_in(index, n_stages, ranks):
    return types.SimpleNamespace(stage_index=index, num_stages=n_stages, group_size=ranks,
                                 group_rank=0, submod=torch.nn.Identity(),
                                 stage_index_to_group_rank={}, is_first=index == 0,
                                 is_last=index == n_stages - 1)


def order(cls_name, per_rank, ranks, n):
    cls = getattr(pts, cls_name)
    if per_rank == 1:
        sched = cls(stand_in(0, ranks, ranks), n)
    else:
        sched = cls([stand_in(0, ranks * per_rank, ranks), stand_in(1, ranks * per_rank, ranks)], n)
    rows = []
    for rank in range(ranks):
        row = []
        for a in sched.pipeline_order[rank]:
            if a is None:
                continue
            for x in a.sub_actions or (a,):
                if x.computation_type in (pts.F, pts.B, pts.I, pts.W):
                    row.append(str(x))
        rows.append(row)
    return rows


def renumber_forwards(rows):
    """Each stage's forwards take micro-batches 0, 1, ... in the order they appear."""
    out = []
    for row in rows:
        seen, new = {}, []
        for cell in row:
            a = pts._Action.from_str(cell)
            if a.computation_type == pts.F:
                m = seen.get(a.stage_index, 0)
                seen[a.stage_index] = m + 1
                cell = f"{a.stage_index}F{m}"
            new.append(cell)
        out.append(new)
    return out


def interleaved_zb_placement(ranks, chunks):
    n_stages = ranks * chunks
    blocks, edges = [], []
    for s in range(n_stages):
        blocks.append({"id": f"F{s}", "kind": "forward", "span": 1, "memory": 2,
                       "devices": [s % ranks]})
    for s in reversed(range(n_stages)):
        for k in "BW":
            blocks.append({"id": f"{k}{s}", "kind": "backward", "span": 1, "memory": -1,
                           "devices": [s % ranks]})
        edges.append([f"B{s}", f"W{s}"])
        if s > 0:
            edges.append([f"B{s}", f"B{s - 1}"])
    chain = [f"F{s}" for s in range(n_stages)] + [f"B{n_stages - 1}"]
    return {"format": "tessel-placement/1", "name": "vshape_interleaved_zb", "ndevs": ranks,
            "blocks": blocks, "chains": [chain], "edges": edges}


def write(path, rows):
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    out, ranks, n = argv[1], 4, 8
    rest = argv[2:]
    while rest:
        if rest[0] == "--ranks":
            ranks = int(rest[1])
        elif rest[0] == "-n":
            n = int(rest[1])
        else:
            raise SystemExit(__doc__)
        rest = rest[2:]
    os.makedirs(out, exist_ok=True)
    for name, cls_name, per_rank in CLASSES:
        rows = order(cls_name, per_rank, ranks, n)
        if name == "1F1B":
            fixed = renumber_forwards(rows)
            if fixed != rows:
                write(os.path.join(out, "1F1B.ir.csv"), rows)
                print("1F1B: pipeline_order numbers a rank's forwards out of order "
                      "(kept in 1F1B.ir.csv); 1F1B.csv renumbers them 0..N-1 in run order")
                rows = fixed
        write(os.path.join(out, f"{name}.csv"), rows)
    with open(os.path.join(out, "vshape_interleaved_zb.json"), "w") as f:
        json.dump(interleaved_zb_placement(ranks, 2), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
