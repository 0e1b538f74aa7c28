#!/usr/bin/env python3
"""Bubbles and makespan per shape: Tessel's schedules (lazy, fast, modulo) against the hand-made
baselines (GPipe, 1F1B, Chimera, interleaved 1F1B, ZB-H1) on the placements they fit, 4 devices,
training, N = 128. Runs (or resumes) experiments/baselines.json, replays every schedule with
`tessel simulate`, and writes bubbles.md and bubbles.svg into paper-artifacts/results.

    python3 paper-artifacts/bubbles.py [--tessel BIN] [-j 2] [--time-limit S] [--no-run]
"""
import os

import sweeplib as L

SHAPES = ["vshape", "xshape", "kshape", "mshape", "nnshape", "vshape_interleaved", "vshape_zb"]
METHODS = ["lazy", "fast", "modulo", "gpipe", "1f1b", "chimera", "interleaved", "zb-h1"]


def main():
    args, tessel, out, sweep = L.parse_args(__doc__, "baselines.json")
    recs = L.run_sweep(tessel, args.spec, sweep, args.jobs, args.time_limit, args.no_run)
    note = L.machine_note(sweep)

    rows, rate = [], {}
    for shape in SHAPES:
        for m in METHODS:
            got = L.find(recs, placement=shape, method=m, infer=False)
            if not got:
                continue  # the baseline does not fit this placement: not part of the study
            r = got[0]
            n = r.get("micro_batches")
            mem = r.get("memory")
            if r["status"] != "ok":
                rows.append([shape, m, mem, L.status_cell(r, r.get("time_limit"))] + [""] * 7)
                rate[(shape, m)] = r["status"]
                continue
            rep = L.replay(tessel, sweep, r, n)
            base = m in L.BASELINES
            planned = L.result(r, "planned_makespan") if base else L.result(r, "makespan")
            lb = L.result(r, "lower_bound")
            if rep is None:
                replayed, brate, ratio = "replay failed", "replay failed", ""
                rate[(shape, m)] = "replay failed"
            else:
                replayed = rep.get("makespan")
                brate = rep.get("bubble_rate")
                ratio = L.fmt(replayed / lb) if lb else "—"
                rate[(shape, m)] = 100.0 * brate
                brate = "%.1f %%" % (100.0 * brate)
            peak = L.result(r, "peak_memory")
            rows.append([shape, m, mem, "ok",
                         "—" if base else L.fmt(L.result(r, "k")),
                         "—" if base else L.fmt(L.result(r, "bubbles_per_repetend")),
                         L.fmt(planned), L.fmt(replayed), ratio, brate,
                         " ".join(str(x) for x in peak) if isinstance(peak, list) else "—"])
    table = L.md_table(["placement", "method", "memory", "status", "k", "bubbles / repetend",
                        "makespan (as found)", "makespan (replayed)", "replayed / lower bound",
                        "bubble rate (replayed)", "peak memory per device"], rows)
    text = ("# Bubbles and makespan against the hand-made schedules\n\n"
            "4 devices, training, N = 128 micro-batches. Tessel's methods search under the memory "
            "limit shown; the baselines follow their published rule and ignore memory (compare "
            "their peak memory). *As found*: the makespan of the timetable the command wrote; "
            "*replayed*: `tessel simulate`, each device running its order as early as its inputs "
            "allow. A point without a figure says what happened to it.\n\n"
            + table + "\n" + note + "\n")
    L.write(os.path.join(out, "bubbles.md"), text)

    def value(shape, m):
        return rate.get((shape, m))

    svg = L.bar_chart("Bubble rate of the replayed schedule (%), 4 devices, N = 128", SHAPES,
                      METHODS, value, "bubble rate (%)", note=note)
    L.write(os.path.join(out, "bubbles.svg"), svg)


if __name__ == "__main__":
    main()
