#!/usr/bin/env python3
"""Simulated speed-up of Tessel's schedules over 1F1B, Chimera and GPipe: for each shape, the
replayed makespan of the baseline divided by that of the best Tessel schedule (lazy, fast or
modulo) on the same placement, 4 devices, training, N = 128. Uses the sweep of
experiments/baselines.json (runs or resumes it) and writes speedup.md and speedup.svg into
paper-artifacts/results.

    python3 paper-artifacts/speedup.py [--tessel BIN] [-j 2] [--time-limit S] [--no-run]
"""
import os

import sweeplib as L

SHAPES = ["vshape", "xshape", "kshape", "mshape", "nnshape"]
TESSEL = ["lazy", "fast", "modulo"]
AGAINST = ["gpipe", "1f1b", "chimera"]


def main():
    args, tessel, out, sweep = L.parse_args(__doc__, "baselines.json")
    recs = L.run_sweep(tessel, args.spec, sweep, args.jobs, args.time_limit, args.no_run)
    note = L.machine_note(sweep)

    rows, speed = [], {}
    for shape in SHAPES:
        best, why = None, []
        for m in TESSEL:
            got = L.find(recs, placement=shape, method=m, infer=False)
            if not got:
                continue
            r = got[0]
            rep = L.replay(tessel, sweep, r, r.get("micro_batches"))
            if rep is None:
                why.append("%s %s" % (m, L.status_cell(r, r.get("time_limit"))
                                      if r["status"] != "ok" else "replay failed"))
                continue
            if best is None or rep["makespan"] < best[1]:
                best = (m, rep["makespan"])
        row = [shape, "%s (%s)" % (best[0], L.fmt(best[1])) if best else
               "no schedule: " + ", ".join(why or ["not run"])]
        for b in AGAINST:
            got = L.find(recs, placement=shape, method=b, infer=False)
            if not got:
                row.append("does not fit")
                speed[(shape, b)] = None
                continue
            r = got[0]
            rep = L.replay(tessel, sweep, r, r.get("micro_batches"))
            if rep is None:
                row.append(L.status_cell(r, r.get("time_limit")))
                speed[(shape, b)] = r["status"]
            elif best is None:
                row.append("no Tessel schedule (%s: %s)" % (b, L.fmt(rep["makespan"])))
                speed[(shape, b)] = "no Tessel schedule"
            else:
                s = rep["makespan"] / best[1]
                row.append("%.3f× (%s / %s)" % (s, L.fmt(rep["makespan"]), L.fmt(best[1])))
                speed[(shape, b)] = s
        rows.append(row)
    table = L.md_table(["shape", "best Tessel schedule (replayed makespan)"]
                       + ["speed-up over %s" % b for b in AGAINST], rows)
    text = ("# Simulated speed-up over 1F1B, Chimera and GPipe\n\n"
            "4 devices, training, N = 128. Speed-up = replayed makespan of the baseline / replayed "
            "makespan of the best Tessel schedule on the same placement (`tessel simulate`). "
            "Tessel searched under memory 4 (vshape, xshape) or 6 (others); the baselines ignore "
            "memory, see bubbles.md for their peaks. *does not fit*: the baseline's rule does not "
            "apply to that placement.\n\n" + table + "\n" + note + "\n")
    L.write(os.path.join(out, "speedup.md"), text)

    def value(shape, b):
        return speed.get((shape, b))

    svg = L.bar_chart("Simulated speed-up of Tessel over the baselines, 4 devices, N = 128",
                      SHAPES, AGAINST, value, "speed-up (×)", baseline=1.0, note=note)
    L.write(os.path.join(out, "speedup.svg"), svg)


if __name__ == "__main__":
    main()
