#!/usr/bin/env python3
"""Device-count scaling: search time and schedule quality of fast, modulo and lazy on the five
shapes from 4 to 32 devices (inference and training, unconstrained memory, N = 128), with GPipe,
1F1B and Chimera for reference. Runs (or resumes) experiments/device-scaling.json and writes
scaling.md and scaling.svg into paper-artifacts/results.

    python3 paper-artifacts/scaling.py [--tessel BIN] [-j 2] [--time-limit S] [--no-run]
"""
import os

import sweeplib as L

SHAPES = ["vshape", "xshape", "kshape", "mshape", "nnshape"]
METHODS = ["fast", "modulo", "lazy", "gpipe", "1f1b", "chimera"]


def main():
    args, tessel, out, sweep = L.parse_args(__doc__, "device-scaling.json")
    recs = L.run_sweep(tessel, args.spec, sweep, args.jobs, args.time_limit, args.no_run)
    note = L.machine_note(sweep)
    devs = sorted({r["ndevs"] for r in recs.values()})

    def get(shape, infer, m, d):
        got = L.find(recs, placement=shape, method=m, ndevs=d, infer=infer)
        return got[0] if got else None

    rows = []
    for shape in SHAPES:
        for infer in (False, True):
            for m in METHODS:
                if all(get(shape, infer, m, d) is None for d in devs):
                    continue
                row = [shape, "inference" if infer else "training", m]
                for d in devs:
                    r = get(shape, infer, m, d)
                    if r is None or r["status"] != "ok":
                        row.append(L.status_cell(r, r.get("time_limit") if r else None))
                        continue
                    mk, lb = L.result(r, "makespan"), L.result(r, "lower_bound")
                    secs = L.result(r, "search_seconds")
                    row.append("%s%s" % (L.fmt(mk / lb if lb else None),
                                         "" if secs is None else " (%s s)" % L.fmt(secs, 2)))
                rows.append(row)
    table = L.md_table(["shape", "variant", "method"] + ["%d devices" % d for d in devs], rows)
    text = ("# Device-count scaling\n\n"
            "Unconstrained memory, N = 128. Each cell: makespan / lower bound of the schedule "
            "(searched schedules: as found; baselines: replayed), and the search time. A point "
            "without a figure says what happened to it.\n\n" + table + "\n" + note + "\n")
    L.write(os.path.join(out, "scaling.md"), text)

    series = ["%s %s" % (s, m) for s in SHAPES for m in ("fast", "modulo", "lazy")]

    def value(s, d):
        shape, m = s.split()
        r = get(shape, False, m, d)
        if r is None:
            return "not run"
        if r["status"] != "ok":
            return r["status"]
        return L.result(r, "search_seconds")

    dashes = {"fast": "", "modulo": "6 3", "lazy": "2 2"}

    def style(s):  # colour: the shape; dashes: the method
        shape, m = s.split()
        return L.PALETTE[SHAPES.index(shape)], dashes[m]

    svg = L.line_chart("Search time vs devices (s, log scale), training, no memory limit", devs,
                       series, value, "devices", "seconds", log=True, note=note, style=style)
    L.write(os.path.join(out, "scaling.svg"), svg)


if __name__ == "__main__":
    main()
