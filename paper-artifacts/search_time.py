#!/usr/bin/env python3
"""Search time: lazy (fixed k) vs full (one problem of N = k micro-batches) vs fast vs modulo on
the five shapes of the paper. Runs (or resumes) the sweep experiments/search-time.json, then writes
search-time.md (table) and search-time.svg (grouped bars, log scale) into paper-artifacts/results.

    python3 paper-artifacts/search_time.py [--tessel BIN] [-j 2] [--time-limit S] [--no-run]
"""
import os

import sweeplib as L

SHAPES = ["vshape", "xshape", "kshape", "mshape", "nnshape"]
KS = [1, 2, 4, 6]


def point(recs, shape, method, k):
    if method == "lazy":
        got = L.find(recs, placement=shape, method=method, nmicros=k, infer=False)
    elif method == "full":
        got = L.find(recs, placement=shape, method=method, micro_batches=k, infer=False)
    else:
        got = L.find(recs, placement=shape, method=method, infer=False)
    return got[0] if got else None


def seconds(r):
    if r is None or r.get("status") != "ok":
        return None
    s = L.result(r, "search_seconds")
    return s if isinstance(s, (int, float)) else r.get("wall_seconds")


def cell(r):
    if r is None or r.get("status") != "ok":
        return L.status_cell(r, r.get("time_limit") if r else None)
    s = seconds(r)
    b = L.result(r, "bubbles_per_repetend")
    if r["method"] == "full":
        return "%s s (makespan %s)" % (L.fmt(s), L.fmt(L.result(r, "makespan")))
    return "%s s (k %s, bubbles %s)" % (L.fmt(s), L.fmt(L.result(r, "k")), L.fmt(b))


def main():
    args, tessel, out, sweep = L.parse_args(__doc__, "search-time.json")
    recs = L.run_sweep(tessel, args.spec, sweep, args.jobs, args.time_limit, args.no_run)
    note = L.machine_note(sweep)

    rows = []
    for shape in SHAPES:
        for m in ("lazy", "full"):
            rows.append([shape, m] + [cell(point(recs, shape, m, k)) for k in KS] + [""])
        for m in ("fast", "modulo"):
            rows.append([shape, m] + [""] * len(KS) + [cell(point(recs, shape, m, None))])
    table = L.md_table(["shape", "method"] + ["k = %d (full: N = %d)" % (k, k) for k in KS]
                       + ["k chosen by the method"], rows)
    text = ("# Search time: lazy vs full vs fast vs modulo\n\n"
            "4 devices, training; memory 4 (vshape, xshape) or 6 (kshape, mshape, nnshape). "
            "Seconds of the search as it reports them (`search_seconds.total`). lazy searches the "
            "repetends of a fixed k; full solves one problem with all N = k micro-batches; fast "
            "and modulo choose k themselves. A point without a figure says what happened to it.\n\n"
            + table + "\n" + note + "\n")
    L.write(os.path.join(out, "search-time.md"), text)

    series = ["lazy k=%d" % k for k in KS] + ["full N=%d" % k for k in KS] + ["fast", "modulo"]

    def value(shape, s):
        m, _, k = s.partition(" ")
        r = point(recs, shape, m, int(k.split("=")[1]) if k else None)
        if r is None:
            return "not run"
        return seconds(r) if r.get("status") == "ok" else r.get("status")

    svg = L.bar_chart("Search time (s, log scale), 4 devices, training", SHAPES, series, value,
                      "seconds", log=True, note=note)
    L.write(os.path.join(out, "search-time.svg"), svg)


if __name__ == "__main__":
    main()
