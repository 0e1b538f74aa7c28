#!/usr/bin/env python3
"""Memory ablation: what each method finds as the per-device memory grows from 1 unit to
unconstrained, on the five shapes, 4 devices, training, N = 128. Runs (or resumes)
experiments/memory-ablation.json and writes memory.md and memory.svg into paper-artifacts/results.

    python3 paper-artifacts/memory.py [--tessel BIN] [-j 2] [--time-limit S] [--no-run]
"""
import os

import sweeplib as L

SHAPES = ["vshape", "xshape", "kshape", "mshape", "nnshape"]
METHODS = ["lazy", "modulo", "fast"]


def main():
    args, tessel, out, sweep = L.parse_args(__doc__, "memory-ablation.json")
    recs = L.run_sweep(tessel, args.spec, sweep, args.jobs, args.time_limit, args.no_run)
    note = L.machine_note(sweep)
    mems = sorted({r["memory"] for r in recs.values() if isinstance(r["memory"], int)})
    mems = mems + (["none"] if any(r["memory"] == "none" for r in recs.values()) else [])

    def get(shape, m, mem):
        got = L.find(recs, placement=shape, method=m, memory=mem, infer=False)
        return got[0] if got else None

    rows = []
    for shape in SHAPES:
        for m in METHODS:
            row = [shape, m]
            for mem in mems:
                r = get(shape, m, mem)
                if r is None or r["status"] != "ok":
                    row.append(L.status_cell(r, r.get("time_limit") if r else None))
                    continue
                mk, lb = L.result(r, "makespan"), L.result(r, "lower_bound")
                row.append("%s (k %s, %s s)" % (L.fmt(mk / lb if lb else None),
                                                L.fmt(L.result(r, "k")),
                                                L.fmt(L.result(r, "search_seconds"), 2)))
            rows.append(row)
    table = L.md_table(["shape", "method"] + ["memory %s" % m for m in mems], rows)
    text = ("# Memory ablation\n\n"
            "4 devices, training, N = 128. Each cell: makespan of the schedule found / lower bound "
            "(1 = no bubble beyond the unavoidable warm-up and cool-down), the k of its repetend, "
            "and the search time. Too little memory for a shape is *infeasible*; a point without "
            "a figure says what happened to it.\n\n" + table + "\n" + note + "\n")
    L.write(os.path.join(out, "memory.md"), text)

    def value(shape, mem):
        best = None
        for m in METHODS:
            r = get(shape, m, mem)
            if r is not None and r["status"] == "ok" and L.result(r, "lower_bound"):
                v = L.result(r, "makespan") / L.result(r, "lower_bound")
                best = v if best is None else min(best, v)
        if best is None:
            st = {(get(shape, m, mem) or {}).get("status") for m in METHODS}
            return "infeasible" if "infeasible" in st else "no schedule"
        return best

    svg = L.line_chart("Best makespan / lower bound vs memory, 4 devices, N = 128", mems, SHAPES,
                       value, "memory per device (units)", "makespan / lower bound", note=note)
    L.write(os.path.join(out, "memory.svg"), svg)


if __name__ == "__main__":
    main()
