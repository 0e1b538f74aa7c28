"""tessel serve's JSON API without a browser: answers agree with the command line, bad requests
get a 4xx with a one-line JSON error, searches are capped, time-limited and cancellable, and 1,000
malformed requests leave the server up and answering.

usage: api.py TESSEL"""
import json
import os
import random
import sys
import tempfile
import time
from serve_util import Server, cli, wait_job

TESSEL = sys.argv[1]
LONG = {"name": "xshape", "ndevs": 8}  # lazy with memory 5 runs to any time limit on it


def builtin(srv, name, ndevs):
    st, j = srv.request("POST", "/api/builtin", {"name": name, "ndevs": ndevs})
    assert st == 200, (st, j)
    return j["placement"]


def expect_error(srv, method, path, body, status, words, headers=None):
    st, j = srv.request(method, path, body, headers)
    assert st == status, (method, path, st, status, j)
    assert isinstance(j, dict) and isinstance(j.get("error"), str), (path, j)
    assert "\n" not in j["error"] and words in j["error"], (path, words, j["error"])


def check_bad_requests(srv, p):
    bad_memory = dict(placement=p, memory=[1, 2])
    cases = [
        ("POST", "/api/check", b'{"placement": {bad', 400, "invalid JSON at line 1"),
        ("POST", "/api/check", b"", 400, "invalid JSON"),
        ("POST", "/api/check", b"[1, 2]", 400, "expected a JSON object, got an array"),
        ("POST", "/api/check", b'{"file": "a", "file": "b"}', 400, "duplicate"),
        ("POST", "/api/check", {"placement": p, "colour": 1}, 400, "unknown field 'colour'"),
        ("POST", "/api/check", {"placement": p, "memory": -1}, 400, "memory"),
        ("POST", "/api/check", bad_memory, 400, "2 capacities for 4 devices"),
        ("POST", "/api/check", {"placement": p, "micro_batches": "x"}, 400, "micro_batches"),
        ("POST", "/api/check", {"memory": 4}, 400, "missing field 'placement'"),
        ("POST", "/api/builtin", {"name": "nosuch", "ndevs": 4}, 400, "unknown built-in"),
        ("POST", "/api/builtin", {"name": "vshape", "ndevs": 0}, 400, "ndevs"),
        # refused before a 78 MB placement is built into an answer (issue 43)
        ("POST", "/api/builtin", {"name": "vshape_interleaved", "ndevs": 4096, "chunks": 64}, 422,
         "more than the limit of 100000"),
        ("POST", "/api/baseline", {"placement": p, "kind": "bogus"}, 400, "unknown baseline"),
        ("POST", "/api/view", {"schedule": {"format": "nope"}}, 400, "format"),
        ("POST", "/api/jobs", {"job": "dance", "placement": p}, 400, "field 'job'"),
        ("POST", "/api/jobs", {"job": "search", "placement": p, "method": "magic"}, 400,
         "unknown method 'magic'"),
        ("POST", "/api/jobs", {"job": "search", "placement": p, "time_limit": 0}, 400, "time_limit"),
        ("POST", "/api/jobs", {"job": "whatif", "placement": p, "knob": "n", "values": []}, 400,
         "values"),
        ("POST", "/api/jobs", {"job": "compare", "placement": p, "methods": ["nope"]}, 400,
         "field 'methods': unknown method 'nope'"),
        ("GET", "/api/nowhere", None, 404, "no such API path"),
        ("GET", "/api/check", None, 405, "not allowed"),
        ("DELETE", "/api/info", None, 405, "not allowed"),
        ("GET", "/api/jobs/999", None, 404, "no such job"),
        ("GET", "/api/jobs/abc", None, 404, "no such API path"),
        ("GET", "/nothing.html", None, 404, "no such page"),
        ("POST", "/api/check", b"x" * (5 << 20), 413, "larger than the limit"),
    ]
    for method, path, body, status, words in cases:
        expect_error(srv, method, path, body, status, words)
    expect_error(srv, "GET", "/api/info", None, 403, "Host", {"Host": "evil.example:80"})
    print("bad requests: %d cases answered with the expected 4xx and message" % (len(cases) + 1))


def check_cli_message(srv, p):
    """A negative span: the API's message is the command line's, word for word."""
    bad = json.loads(json.dumps(p))
    bad["blocks"][2]["span"] = -3
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "placement.json"), "w") as f:
            json.dump(bad, f)
        rc, _, err = cli(TESSEL, "bound", "placement.json", "-n", "128", cwd=d)
    assert rc == 2 and err.startswith("tessel bound: "), (rc, err)
    st, j = srv.request("POST", "/api/check", {"placement": bad, "file": "placement.json"})
    assert st == 400 and j["error"] == err.strip()[len("tessel bound: "):], (st, j, err)
    # issue 43: without a file, no placement.json is blamed (a built-in's or model's has none)
    st, k = srv.request("POST", "/api/check", {"placement": bad})
    assert st == 400 and k["error"] == j["error"].replace("placement.json:", "placement:", 1), (st, k)
    print("negative span: %s; without a file: %s" % (j["error"], k["error"]))


def check_answers(srv, p):
    rc, out, _ = cli(TESSEL, "bound", "--placement", "vshape", "--ndevs", "4", "-n", "128", "--json")
    lb = json.loads(out)["lower_bound"]
    st, j = srv.request("POST", "/api/check", {"placement": p, "memory": 4})
    assert st == 200 and j["lower_bound"] == lb, (j, lb)
    st, j = srv.request("POST", "/api/check", {"placement": p, "memory": [4, 4, 5, 6]})
    assert st == 200, j
    # a capacity per device passes through to the search, as `--memory 6,4,4,2` does
    st, j = srv.request("POST", "/api/jobs", {"job": "search", "placement": p, "method": "fast",
                                              "memory": [6, 4, 4, 2], "micro_batches": 16})
    res = wait_job(srv, j["id"])
    assert res["state"] == "done", res
    rc, out, _ = cli(TESSEL, "search", "--placement", "vshape", "--ndevs", "4", "--memory",
                     "6,4,4,2", "--method", "fast", "-n", "16", "--json")
    got, want = res["result"]["summary"], json.loads(out)
    assert got["memory"] == [6, 4, 4, 2] and got["makespan"] == want["makespan"], (got, want)
    assert all(pk <= c for pk, c in zip(got["peak_memory"], [6, 4, 4, 2])), got["peak_memory"]
    assert res["result"]["schedule"]["memory"] == [6, 4, 4, 2], res["result"]["schedule"]["memory"]
    st, j = srv.request("POST", "/api/jobs", {"job": "search", "placement": p, "memory": 4})
    assert st == 200, j
    res = wait_job(srv, j["id"])
    assert res["state"] == "done", res
    rc, out, _ = cli(TESSEL, "search", "--placement", "vshape", "--ndevs", "4", "--memory", "4",
                     "--json")
    assert res["result"]["summary"]["makespan"] == json.loads(out)["makespan"], res["result"]
    sched = res["result"]["schedule"]
    st, v = srv.request("POST", "/api/view", {"schedule": sched, "timeline": "replayed"})
    assert st == 200 and v["valid"] and v["svg"].count('class="inst"') == 8 * 128, st
    assert len(v["memory"]["devices"]) == 4 and v["memory"]["capacity"] == [4] * 4
    st, t = srv.request("POST", "/api/trace", {"schedule": sched, "micro_batches": 8})
    assert st == 200 and len([e for e in t["traceEvents"] if e["ph"] == "X"]) == 8 * 8, st
    st, j = srv.request("POST", "/api/jobs", {"job": "compare", "placement": p, "memory": 4,
                                              "methods": ["1f1b", "lazy"], "time_limit": 10})
    rows = wait_job(srv, j["id"])["result"]["rows"]
    assert [r["method"] for r in rows] == ["1f1b", "lazy"] and all(r["lower_bound"] == lb
                                                                    for r in rows), rows
    st, j = srv.request("POST", "/api/jobs", {"job": "whatif", "placement": p, "knob": "memory",
                                              "values": [0, 4], "time_limit": 10})
    pts = wait_job(srv, j["id"])["result"]["points"]
    assert pts[0]["status"] != "ok" and pts[1]["status"] == "ok", pts  # memory 0 cannot hold a forward block
    print("answers: LB %d and search makespan %d as on the command line; compare, what-if, view, "
          "trace" % (lb, res["result"]["summary"]["makespan"]))


# The keys the explorer adds to `tessel search --json` for its summary line (TS_RESULTS_PAGE_KEYS
# in src/app/results/ts_results.h), and the one-word label the worker adds from the record
# (greedy, time limit, optimal, not proven optimal); `output` is the command line's alone (-o).
PAGE_KEYS = {"ratio", "fits", "seconds", "memory_searched", "label"}


def check_record_keys(srv, p):
    """The explorer's search record has the keys of `tessel search --json`, every statistic of
    the solver's list included, for every method; and a compare job's search rows carry the same
    record."""
    for method in ("lazy", "fast", "full", "modulo", "auto"):
        rc, out, err = cli(TESSEL, "search", "--placement", "vshape", "--ndevs", "4", "--memory",
                           "4", "--method", method, "-n", "8", "--time-limit", "20", "--json")
        assert rc == 0, (method, rc, err)
        want = json.loads(out)
        st, j = srv.request("POST", "/api/jobs", {"job": "search", "placement": p, "memory": 4,
                                                  "method": method, "micro_batches": 8,
                                                  "time_limit": 20})
        assert st == 200, j
        res = wait_job(srv, j["id"])
        assert res["state"] == "done", res
        got = res["result"]["summary"]
        extra = set(got) - set(want) - PAGE_KEYS
        missing = set(want) - {"output"} - set(got)
        assert not extra and not missing, (method, sorted(extra), sorted(missing))
        assert got["method"] == want["method"] == method, (got["method"], want["method"])
        assert got["makespan"] == want["makespan"], (method, got["makespan"], want["makespan"])
        assert set(got["search_seconds"]) == set(want["search_seconds"]), method
    st, j = srv.request("POST", "/api/jobs", {"job": "compare", "placement": p, "memory": 4,
                                              "methods": ["modulo"], "micro_batches": 8,
                                              "time_limit": 20})
    row = wait_job(srv, j["id"])["result"]["rows"][0]
    record = set(want) - {"output", "placement", "ndevs", "memory", "feasible"}
    assert record <= set(row), sorted(record - set(row))
    print("search record: the page's keys are `tessel search --json`'s (%d) plus %s, for every "
          "method" % (len(want), sorted(PAGE_KEYS)))


def check_jobs(srv):
    p8 = builtin(srv, LONG["name"], LONG["ndevs"])
    long_search = {"job": "search", "placement": p8, "memory": 5, "method": "lazy",
                   "time_limit": 120}
    st, j = srv.request("POST", "/api/jobs", long_search)
    assert st == 200, j
    expect_error(srv, "POST", "/api/jobs", long_search, 429, "the limit is 1")
    time.sleep(0.5)
    t0 = time.time()
    st, c = srv.request("POST", "/api/jobs/%d/cancel" % j["id"], b"")
    assert st == 200 and c["state"] == "cancelled", c
    while srv.children() and time.time() - t0 < 10:
        time.sleep(0.05)
    assert not srv.children(), "the cancelled worker is still there"
    print("cancel: worker gone %.2f s after the request" % (time.time() - t0))
    # A search's own time limit applies (the best found so far comes back, marked as cut).
    st, j = srv.request("POST", "/api/jobs", dict(long_search, time_limit=1))
    t0 = time.time()
    res = wait_job(srv, j["id"], 30)
    # cut by the effort the limit sets (effort_out) or by its wall-clock cap (timed_out)
    sm = res["result"]["summary"] if res["state"] == "done" else {}
    assert sm.get("timed_out") or sm.get("effort_out"), res.get("error")
    print("time limit 1 s: answer after %.2f s, cut by the limit" % (time.time() - t0))


def fuzz(srv, p):
    """1,000 malformed requests from a fixed seed: truncated, bit-flipped, spliced bodies."""
    rng = random.Random(7)
    valid = [json.dumps({"placement": p, "memory": 4}).encode(),
             json.dumps({"name": "vshape", "ndevs": 4}).encode()]
    paths = ["/api/check", "/api/builtin", "/api/view", "/api/baseline", "/api/jobs/1/cancel",
             "/api/model-placement"]
    seen = {}
    t0 = time.time()
    for i in range(1000):
        b = bytearray(rng.choice(valid))
        how = i % 4
        if how == 0:
            b = b[: rng.randrange(len(b))]
        elif how == 1:
            for _ in range(rng.randint(1, 8)):
                b[rng.randrange(len(b))] = rng.randrange(256)
        elif how == 2:
            k = rng.randrange(len(b))
            b = b[:k] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + b[k:]
        else:
            b = bytes(rng.randrange(256) for _ in range(rng.randint(0, 200)))
        st, j = srv.request("POST", rng.choice(paths), bytes(b))
        seen[st] = seen.get(st, 0) + 1
        assert st < 500, (st, j, bytes(b)[:200])
        assert st == 200 or (isinstance(j, dict) and "error" in j), (st, j)
    assert srv.alive()
    st, _ = srv.request("GET", "/api/info")
    assert st == 200
    print("1000 malformed requests in %.1f s: statuses %s; the server still answers" %
          (time.time() - t0, dict(sorted(seen.items()))))


def check_models(srv):
    """The model picker: the embedded descriptions derive the placement the command line writes,
    and a refusal carries the command line's message."""
    st, j = srv.request("GET", "/api/models")
    assert st == 200, (st, j)
    names = {m["name"]: m for m in j["models"]}
    assert "gpt3-13b" in names and "1f1b" in names["gpt3-13b"]["strategies"], j
    assert "a100-80gb" in [h["name"] for h in j["hardware"]], j
    args = ["--model", "gpt3-13b", "--hardware", "a100-80gb", "--gpus", "8", "--strategy", "1f1b"]
    rc, out, err = cli(TESSEL, "placement", *args)
    assert rc == 0, (rc, err)
    want = json.loads(out)
    body = {"model": "gpt3-13b", "hardware": "a100-80gb", "gpus": 8, "strategy": "1f1b"}
    st, j = srv.request("POST", "/api/model-placement", body)
    assert st == 200, (st, j)
    got = j["placement"]
    for key in ("ndevs", "blocks", "edges", "capacity"):
        assert got.get(key) == want.get(key), (key, got.get(key), want.get(key))
    assert j["info"]["capacity"] == want["capacity"], (j["info"], want["capacity"])
    # A strategy the model does not list, and GPUs that tensor parallelism does not divide: the
    # core's message, word for word.
    for change, flags in (({"strategy": "alphafold"}, ["--strategy", "alphafold"]),
                          ({"gpus": 6, "tensor_parallel": 4}, ["--gpus", "6",
                                                               "--tensor-parallel", "4"])):
        rc, _, err = cli(TESSEL, "placement", *args, *flags)
        assert rc != 0 and err.startswith("tessel placement: "), (rc, err)
        st, j = srv.request("POST", "/api/model-placement", dict(body, **change))
        assert st == 400 and j["error"] == err.strip()[len("tessel placement: "):], (st, j, err)
        print("model placement refused: %s" % j["error"])
    expect_error(srv, "POST", "/api/model-placement", dict(body, model="nosuch"), 400,
                 "unknown model 'nosuch' (known: ")
    expect_error(srv, "POST", "/api/model-placement", dict(body, hardware="tpu"), 400,
                 "unknown hardware 'tpu'")
    expect_error(srv, "POST", "/api/model-placement", dict(body, gpus=0), 400, "gpus")
    expect_error(srv, "POST", "/api/model-placement", {"model": "gpt3-13b"}, 400, "hardware")
    print("gpt3-13b on 8 x a100-80gb, 1f1b: %d blocks, capacity %d, as the command line derives"
          % (len(got["blocks"]), got["capacity"]))


def check_issue28(srv, p):
    """What the page's canvas timeline and compare table read (issue 28): a view without its SVG
    carries every instance; a compare row's bound is the command line's, within the memory; the
    what-if sweeps the time limit; a model for the device sweep must be an object."""
    st, b = srv.request("POST", "/api/baseline", {"placement": p, "kind": "1f1b", "micro_batches": 16})
    assert st == 200, b
    st, v = srv.request("POST", "/api/view", {"schedule": b["schedule"], "svg": False})
    assert st == 200 and v["svg"] is None and len(v["entries"]) == 3 * 8 * 16, st
    assert [x["id"] for x in v["blocks"]][:2] == ["F0", "F1"] and v["blocks"][0]["devices"] == [0]
    m8 = builtin(srv, "mshape", 8)
    st, j = srv.request("POST", "/api/jobs", {"job": "compare", "placement": m8, "memory": 8,
                                              "methods": ["1f1b"], "time_limit": 10})
    res = wait_job(srv, j["id"])["result"]
    rc, out, _ = cli(TESSEL, "compare", "--placement", "mshape", "--ndevs", "8", "--memory", "8",
                     "--methods", "1f1b", "--csv")
    want = out.splitlines()[1].split(",")
    assert res["lower_bound"] == int(want[10]) == res["rows"][0]["lower_bound"], (res, want)
    assert res["rows"][0]["from"] == "baseline" and res["bound_term"] == "pauses", res
    st, j = srv.request("POST", "/api/jobs", {"job": "whatif", "placement": p, "knob": "time_limit",
                                              "values": [1, 2], "memory": 4})
    pts = wait_job(srv, j["id"])["result"]["points"]
    assert [x["status"] for x in pts] == ["ok", "ok"], pts
    expect_error(srv, "POST", "/api/jobs", {"job": "whatif", "knob": "ndevs", "values": [4],
                                            "model": 3}, 400, "field 'model' must be an object")
    print("issue 28: view entries %d, compare bound %d (%s) as the CLI's, what-if over the time "
          "limit" % (len(v["entries"]) // 3, res["lower_bound"], res["bound_term"]))


def check_whatif_partial(srv):
    """A what-if stopped part way (cancelled here; the watchdog's cut is the same path) still
    answers with the points it finished (issue 43)."""
    m = builtin(srv, "mshape", 16)
    st, j = srv.request("POST", "/api/jobs", {"job": "whatif", "placement": m, "memory": 18,
                                              "micro_batches": 128, "knob": "time_limit",
                                              "values": [1, 600]})
    assert st == 200, j
    t0 = time.time()
    while time.time() - t0 < 60:
        st, s = srv.request("GET", "/api/jobs/%d" % j["id"])
        if s["state"] != "running" or (s.get("result") or {}).get("points"):
            break
        time.sleep(0.1)
    assert s["state"] == "running", s
    st, c = srv.request("POST", "/api/jobs/%d/cancel" % j["id"], {})
    done = wait_job(srv, j["id"])
    assert done["state"] == "cancelled", done
    pts = done["result"]["points"]
    assert done["result"]["partial"] and [x["value"] for x in pts] == [1], done["result"]
    assert pts[0]["status"] == "ok" and pts[0]["makespan"] >= pts[0]["lower_bound"], pts
    print("what-if cancelled after its first point: kept %d point (makespan %d)"
          % (len(pts), pts[0]["makespan"]))


def main():
    srv = Server(TESSEL, "--max-searches", "1")
    try:
        p = builtin(srv, "vshape", 4)
        check_bad_requests(srv, p)
        check_cli_message(srv, p)
        check_answers(srv, p)
        check_record_keys(srv, p)
        check_issue28(srv, p)
        check_whatif_partial(srv)
        check_models(srv)
        check_jobs(srv)
        fuzz(srv, p)
    finally:
        if srv.alive():
            srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
