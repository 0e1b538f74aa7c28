#!/usr/bin/env python3
"""A 200-point memory x N sweep from Python (issue 27's target: at least 5x faster than the same
sweep through subprocess calls of the command line). Each point's makespan at N is found three
ways, and every way must give the command line's answer at every point:

  cli      `tessel search --placement P --ndevs D --memory M -n N --method X --json`, one
           subprocess per point, its JSON parsed (what a script does without the package);
  package  tessel.search(p, memory=M, n=N, method=X) per point, in this process;
  reuse    tessel.search once per memory, then the schedule's summary at each N (a repetend
           unrolls to any N: how the package is meant to sweep N; for methods whose schedule
           does not depend on N, which the answer check confirms).

Prints wall and CPU seconds of each (the CLI's CPU is its children's) and the ratios. A point's
search costs the same in the package and in the command line; what the package saves is the
process per point (start-up, loading Z3, printing and parsing), so the point-by-point ratio is
largest where searches are short, and wall-clock figures swing with the machine's load.

usage: tests/bench/bench_python_sweep.py TESSEL_BINARY [--placement NAME] [--ndevs D]
       [--methods fast,lazy]  (the library: TESSEL_LIBRARY, or the package's own search for it)"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "python"))
import tessel  # noqa: E402

MEMORIES = range(1, 11)                      # 10 capacities
NS = [8 * i for i in range(1, 21)]           # 20 micro-batch counts: 8 .. 160


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(fn):
    """(answers, wall seconds, CPU seconds of this process and its children)."""
    w0, c0, k0 = time.perf_counter(), time.process_time(), children_cpu()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0 + children_cpu() - k0


def by_cli(a, method, points):
    out = {}
    for m, n in points:
        r = subprocess.run([a.tessel, "search", "--placement", a.placement, "--ndevs",
                            str(a.ndevs), "--memory", str(m), "-n", str(n), "--method", method,
                            "--json"], capture_output=True, text=True, check=True)
        out[m, n] = json.loads(r.stdout)["makespan"]
    return out


def by_package(p, method, points):
    return {(m, n): tessel.search(p, memory=m, n=n, method=method).makespan for m, n in points}


def by_reuse(p, method, points):
    out = {}
    for m in sorted({m for m, _ in points}):
        s = tessel.search(p, memory=m, method=method)
        for n in sorted(n for mm, n in points if mm == m):
            out[m, n] = s.summary(n=n)["makespan"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessel")
    ap.add_argument("--placement", default="vshape")
    ap.add_argument("--ndevs", type=int, default=4)
    ap.add_argument("--methods", default="fast,lazy",
                    help="comma-separated search methods, one sweep each (default fast,lazy)")
    a = ap.parse_args()
    points = [(m, n) for m in MEMORIES for n in NS]
    p = tessel.Placement.from_builtin(a.placement, a.ndevs)
    print("sweep: %s on %d devices, %d points (memory %d..%d x N %d..%d)"
          % (a.placement, a.ndevs, len(points), MEMORIES[0], MEMORIES[-1], NS[0], NS[-1]))
    print("%-7s %-8s %9s %9s %10s %10s  %s" % ("method", "way", "wall s", "cpu s",
                                                "wall ratio", "cpu ratio", "answers"))
    for method in a.methods.split(","):
        want, cw, cc = timed(lambda: by_cli(a, method, points))
        print("%-7s %-8s %9.3f %9.3f %10s %10s  %s" % (method, "cli", cw, cc, "1.0x", "1.0x",
                                                       "(the reference)"))
        for way, fn in (("package", by_package), ("reuse", by_reuse)):
            got, w, c = timed(lambda: fn(p, method, points))
            differ = [pt for pt in points if got[pt] != want[pt]]
            print("%-7s %-8s %9.3f %9.3f %9.1fx %9.1fx  %s" % (
                method, way, w, c, cw / w, cc / c,
                "same at every point" if not differ else "differ at %s" % differ))
    print("target: the package >= 5x faster than the CLI")


if __name__ == "__main__":
    main()
