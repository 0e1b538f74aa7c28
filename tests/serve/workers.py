"""tessel serve's search workers (fork, then exec of `tessel serve --worker`, the request on its
stdin): a 256-device placement posted inline and the same body padded to several MB reach the
worker intact and give the command line's makespan; jobs started while other threads of the server
are busy answering all finish; a worker program that cannot be started, or that exits without
reading its request, fails its job with the reason at once, and the server goes on answering.

usage: workers.py TESSEL"""
import concurrent.futures
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from serve_util import Server, cli, wait_job

TESSEL = sys.argv[1]
PAD = 3 << 20  # bytes of trailing whitespace: a body of several MB, under the 4 MiB limit


def builtin(srv, name, ndevs):
    st, j = srv.request("POST", "/api/builtin", {"name": name, "ndevs": ndevs})
    assert st == 200, (st, j)
    return j["placement"]


def check_large(srv):
    """vshape on 256 devices inline; then the same request followed by 3 MiB of spaces (valid JSON:
    the worker gets every byte, or its parse fails)."""
    p = builtin(srv, "vshape", 256)
    req = {"job": "search", "placement": p, "memory": "none", "method": "modulo",
           "micro_batches": 16, "time_limit": 30}
    rc, out, err = cli(TESSEL, "search", "--placement", "vshape", "--ndevs", "256", "--method",
                       "modulo", "--memory", "none", "-n", "16", "--time-limit", "30", "--json")
    assert rc == 0, (rc, err)
    want = json.loads(out)["makespan"]
    for body in (json.dumps(req).encode(), json.dumps(req).encode() + b" " * PAD):
        t0 = time.time()
        st, j = srv.request("POST", "/api/jobs", body)
        assert st == 200, (st, j)
        res = wait_job(srv, j["id"])
        assert res["state"] == "done", res
        sched = res["result"]["schedule"]
        assert sched["placement"]["ndevs"] == 256 and len(sched["placement"]["blocks"]) == 512
        assert res["result"]["summary"]["makespan"] == want, (res["result"]["summary"], want)
        print("vshape/256 inline, body %d bytes: done in %.2f s, makespan %d as on the command "
              "line" % (len(body), time.time() - t0, want))


def check_busy(srv):
    """12 short searches, two at a time, while two threads keep the server's other threads busy
    with answers (parsing, JSON, the allocator): each job ends 'done'."""
    p = builtin(srv, "vshape", 4)
    stop = threading.Event()
    answered = [0, 0]

    def hammer(k):
        while not stop.is_set():
            st, _ = srv.request("POST", "/api/check", {"placement": p, "memory": 4})
            assert st == 200, st
            answered[k] += 1

    def job(_):
        body = {"job": "search", "placement": p, "memory": 4, "method": "fast", "time_limit": 5}
        for _ in range(100):  # 429 while two run: wait for a free worker
            st, j = srv.request("POST", "/api/jobs", body)
            if st != 429:
                break
            time.sleep(0.05)
        assert st == 200, (st, j)
        return wait_job(srv, j["id"], 60)

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(4) as ex:
        load = [ex.submit(hammer, k) for k in range(2)]
        with concurrent.futures.ThreadPoolExecutor(2) as jx:
            states = [r["state"] for r in jx.map(job, range(12))]
        stop.set()
        for f in load:
            f.result()
    assert states == ["done"] * 12, states
    print("12 jobs started while %d other requests were answered: all done in %.1f s"
          % (sum(answered), time.time() - t0))


def check_failed_start(tmp):
    """--worker-exe: a missing file, a file without the execute bit, and a program that exits
    without reading the request (the server's write gets EPIPE)."""
    p = None
    noexec = os.path.join(tmp, "not-executable")
    with open(noexec, "w") as f:
        f.write("#!/bin/sh\n")
    cases = [(os.path.join(tmp, "no-such-worker"), "No such file or directory"),
             (noexec, "Permission denied"),
             (shutil.which("true"), "the worker ended without an answer (exit status 0)")]
    for exe, words in cases:
        srv = Server(TESSEL, "--worker-exe", exe)
        try:
            p = p or builtin(srv, "vshape", 4)
            body = json.dumps({"job": "search", "placement": p, "memory": 4}).encode() + b" " * PAD
            t0 = time.time()
            st, j = srv.request("POST", "/api/jobs", body)
            assert st == 200, (st, j)
            res = wait_job(srv, j["id"], 30)
            took = time.time() - t0
            assert res["state"] == "failed" and words in res.get("error", ""), (exe, res)
            assert "\n" not in res["error"], res
            st, _ = srv.request("GET", "/api/info")
            assert st == 200 and not srv.children(), (st, srv.children())
            print("worker %s: failed after %.2f s: %s" % (os.path.basename(exe), took,
                                                          res["error"]))
        finally:
            if srv.alive():
                srv.stop()


def main():
    srv = Server(TESSEL, "--max-searches", "2")
    try:
        check_large(srv)
        check_busy(srv)
    finally:
        err = srv.stop() if srv.alive() else ""
    # The workers write their stderr to the server's: a sanitizer report of one shows up here.
    assert "Sanitizer" not in err and "runtime error" not in err, err
    with tempfile.TemporaryDirectory() as tmp:
        check_failed_start(tmp)
    rc, _, err = cli(TESSEL, "serve", "--worker")
    assert rc == 2 and "internal mode" in err, (rc, err)
    return 0


if __name__ == "__main__":
    sys.exit(main())
