#!/usr/bin/env python3
"""Response times of `tessel serve`'s API for everything but the search itself (issue 13's
target: within 200 ms on a 4-device built-in), measured from a client on the same machine.
Prints one row per call: median, 90th percentile and max over R repetitions, in ms.

usage: tests/bench/bench_serve.py TESSEL_BINARY [--ndevs D] [--repeat R]"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serve"))
from serve_util import Server, wait_job  # noqa: E402


def timed(srv, method, path, body=None):
    t0 = time.perf_counter()
    st, j = srv.request(method, path, body)
    ms = 1000 * (time.perf_counter() - t0)
    if st != 200:
        raise SystemExit("%s %s: %d %s" % (method, path, st, j))
    return ms, j


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tessel")
    ap.add_argument("--ndevs", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    srv = Server(a.tessel)
    try:
        _, b = timed(srv, "POST", "/api/builtin", {"name": "vshape", "ndevs": a.ndevs})
        p = b["placement"]
        _, j = timed(srv, "POST", "/api/jobs", {"job": "search", "placement": p,
                                                "memory": a.ndevs})
        sched = wait_job(srv, j["id"])["result"]["schedule"]
        calls = [
            ("GET /api/info", "GET", "/api/info", None),
            ("POST /api/builtin", "POST", "/api/builtin", {"name": "vshape", "ndevs": a.ndevs}),
            ("POST /api/check", "POST", "/api/check", {"placement": p, "memory": a.ndevs}),
            ("POST /api/baseline 1f1b", "POST", "/api/baseline", {"placement": p, "kind": "1f1b"}),
            ("POST /api/view planned", "POST", "/api/view", {"schedule": sched}),
            ("POST /api/view replayed", "POST", "/api/view",
             {"schedule": sched, "timeline": "replayed"}),
            ("POST /api/trace", "POST", "/api/trace", {"schedule": sched}),
            ("GET /api/jobs/ID", "GET", "/api/jobs/%d" % j["id"], None),
            ("GET /", "GET", "/", None),
            ("GET /app.js", "GET", "/app.js", None),
        ]
        print("vshape on %d devices, N = 128, %d repetitions (ms)" % (a.ndevs, a.repeat))
        print("%-26s %8s %8s %8s" % ("call", "median", "p90", "max"))
        for name, method, path, body in calls:
            ms = sorted(timed(srv, method, path, body)[0] for _ in range(a.repeat))
            print("%-26s %8.1f %8.1f %8.1f" % (name, statistics.median(ms),
                                                ms[int(0.9 * (len(ms) - 1))], ms[-1]))
    finally:
        srv.stop()


if __name__ == "__main__":
    main()
