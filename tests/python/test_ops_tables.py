"""The operations layer's option tables against the three front ends (issue 42): every option of
every operation is taken by the command line (a flag in --help), by Python (a keyword of the
call) and by the explorer (a field its job request accepts), or its row says why not. Then one
request, three front ends: tessel.search, `tessel search -o` and the explorer's search write the
same schedule; tessel.placement_from_model, `tessel placement --model` and the explorer's model
placement derive the same placement; tessel.plan and `tessel plan --json` rank the same plans."""

import inspect
import json
import os
import re
import sys

import pytest

import tessel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "serve"))
from serve_util import Server, wait_job  # noqa: E402

# A value each option type takes, for the explorer's check that it accepts the field.
SAMPLE = {"int": 1, "number": 1.0, "text": "auto", "names": "memlist", "memory": 4, "flag": True,
          "texts": ["a=b.json"]}
# Where a field takes only some values of its type: (operation, field) -> a value it takes.
SAMPLE_FOR = {("compare", "methods"): "1f1b", ("baseline", "kind"): "1f1b",
              ("model_placement", "model"): "gpt3-1.3b",
              ("model_placement", "hardware"): "a100-40gb",
              ("model_placement", "strategy"): "1f1b", ("model_placement", "gpus"): 4,
              ("model_placement", "seq"): 1024, ("model_placement", "max_span"): 64,
              ("model_placement", "comm"): "overlap",
              ("model_placement", "first_stage_param_cap_gb"): 100,
              ("render", "timeline"): "replayed", ("trace", "timeline"): "replayed"}
# The fields a request to the explorer needs besides the one under test (compare: one quick row
# rather than every method; a memory where the table has one).
BASE_FOR = {"compare": {"methods": ["1f1b"]}, "baseline": {"kind": "1f1b"},
            "model_placement": {"model": "gpt3-1.3b", "hardware": "a100-40gb", "gpus": 4,
                                "strategy": "1f1b"}}


def tables():
    return tessel.operations()


def python_callable(path):
    """tessel.search, tessel.Schedule.validate, ...: the callable a table names."""
    obj = tessel
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def subject(kind):
    """What an operation works on, as a request to the explorer carries it."""
    p = tessel.Placement.from_builtin("vshape", 4)
    if kind == "placement":
        return {"placement": p.to_dict()}
    if kind == "schedule":
        return {"schedule": tessel.baseline("1f1b", p, n=8).to_dict()}
    return {}


@pytest.fixture(scope="module")
def server(tessel_bin):
    srv = Server(tessel_bin)
    yield srv
    srv.stop()


def test_every_row_says_where_it_is_not_taken():
    assert tables(), "no operation has a table"
    for t in tables():
        for front, where in (("cli", t["cli"]), ("python", t["py"]), ("serve", t["serve_path"])):
            if where is None:
                assert all(front not in row["fronts"] for row in t["options"]), (t["name"], front)
        for row in t["options"]:
            if set(row["fronts"]) != {"cli", "serve", "python"}:
                assert row["why_not"], (t["name"], row["key"])


def test_command_line_has_every_flag(cli):
    for t in tables():
        if not t["cli"]:
            continue
        help_text = cli.run(*t["cli"].split(), "--help").stdout
        for row in t["options"]:
            if "cli" in row["fronts"] and row["flag"]:
                assert "--" + row["flag"] in help_text, (t["name"], row["flag"])
            elif "cli" in row["fronts"]:
                # a key of the command's file (a sweep spec's point), listed by its help
                assert re.search(r"^  %s +" % row["key"], help_text, re.M), (t["name"], row["key"])
            if "cli" in row["fronts"] and row["short"]:
                assert "-%s, --%s" % (row["short"], row["flag"]) in help_text, row["flag"]
        # a cap is listed with its value (it is not an option of any front end)
        for row in t["options"]:
            if row["type"] == "cap":
                assert not row["fronts"] and row["min"] == row["max"], row["key"]
                value = re.escape("%.15g" % row["max"])
                assert re.search(r"^  %s +%s " % (row["key"], value), help_text, re.M), row["key"]
        # and nothing past 80 columns
        assert max(map(len, help_text.splitlines())) <= 80, t["name"]


def test_caps_are_listed_not_set(server):
    """The search's caps are rows every front end lists and none takes: the explorer refuses one
    as a field, Python as a keyword."""
    caps = [r for t in tables() if t["name"] == "search" for r in t["options"]
            if r["type"] == "cap"]
    assert len(caps) >= 40, len(caps)
    p = tessel.Placement.from_builtin("vshape", 4)
    st, j = server.request("POST", "/api/jobs", {"job": "search", "placement": p.to_dict(),
                                                 "memory": 4, "lazy_call": 1})
    assert st == 400 and "lazy_call" in json.dumps(j), (st, j)
    with pytest.raises(TypeError):
        tessel.search(p, memory=4, lazy_call=1)


def test_python_has_every_keyword():
    for t in tables():
        if not t["py"]:
            continue
        params = inspect.signature(python_callable(t["py"])).parameters
        for row in t["options"]:
            if "python" in row["fronts"]:
                assert row["py"] in params, (t["name"], row["py"])


def test_explorer_takes_every_field(server):
    for t in tables():
        if not t["serve_path"]:
            continue
        base = dict(subject(t["subject"]), **BASE_FOR.get(t["name"], {}))
        if any(row["key"] == "memory" and "serve" in row["fronts"] for row in t["options"]):
            base["memory"] = 4
        if t["serve_job"]:
            base["job"] = t["serve_job"]
        for row in t["options"]:
            if "serve" not in row["fronts"] or row["type"] == "hook":
                continue
            value = SAMPLE_FOR.get((t["name"], row["key"]), SAMPLE[row["type"]])
            body = dict(base, **{row["key"]: value})
            st, j = server.request("POST", t["serve_path"], body)
            assert st == 200, (t["name"], row["key"], st, j)
            if t["serve_job"]:
                wait_job(server, j["id"])
        # a field no row names is refused, naming it
        st, j = server.request("POST", t["serve_path"], dict(base, colour=1))
        assert st == 400 and "unknown field 'colour'" in j["error"], j


def strip(schedule):
    """A schedule file without what the clock decides (seconds)."""
    def walk(x):
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items() if "seconds" not in k}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x
    return walk(schedule)


def test_one_request_three_front_ends(cli, server, tmp_path):
    memory = [9, 4, 4, 4, 4, 4]
    p = tessel.Placement.from_builtin("vshape", 6)
    # a fixed effort (the time limit only a far cap), so that a slow build (ASan) gives the same
    ours = tessel.search(p, memory=memory, n=32, time_limit=600, effort=240000,
                         candidates=["1f1b", "memlist", "modulo", "improve"])
    out = tmp_path / "cli.json"
    cli.run("search", "--placement", "vshape", "--ndevs", 6, "--memory", "9,4,4,4,4,4", "-n", 32,
            "--time-limit", 600, "--effort", 240000, "--candidates", "1f1b,memlist,modulo,improve",
            "-o", out)
    mine = tmp_path / "py.json"
    ours.save(str(mine))
    # byte for byte, but the wall seconds (timing fields)
    ta, tb = (re.sub(r'("[a-z_]*seconds[a-z_]*": )(\{[^}]*\}|[-0-9.e+]+)', r"\1T", f.read_text())
              for f in (out, mine))
    assert ta == tb
    a = json.loads(out.read_text())
    # the explorer's search of the same request
    st, j = server.request("POST", "/api/jobs", {
        "job": "search", "placement": p.to_dict(), "memory": memory, "micro_batches": 32,
        "time_limit": 600, "effort": 240000, "candidates": ["1f1b", "memlist", "modulo", "improve"]})
    assert st == 200, j
    done = wait_job(server, j["id"])
    assert done["state"] == "done", done
    page = done["result"]["schedule"]
    # the page's placement is the one it sent (its own name), the rest is the search's
    assert strip(page)["entries"] == strip(a)["entries"]
    assert strip(page)["search"] == strip(a)["search"]
    assert done["result"]["summary"]["makespan"] == ours.makespan


def test_compare_one_request_three_front_ends(cli, server):
    """tessel.compare, `tessel compare --csv` and the explorer's compare job give the same rows
    for vshape on 6 devices at memory 9,3,3,3,3,3 (the bound and fits judged per device)."""
    memory = [9, 3, 3, 3, 3, 3]
    p = tessel.Placement.from_builtin("vshape", 6)
    ours = tessel.compare(p, memory=memory, n=16, methods="1f1b,gpipe,fast", time_limit=5,
                          as_frame=False)
    out = cli.run("compare", "--placement", "vshape", "--ndevs", 6, "--memory", "9,3,3,3,3,3",
                  "-n", 16, "--methods", "1f1b,gpipe,fast", "-t", 5, "--csv").stdout
    import csv
    import io
    want = list(csv.DictReader(io.StringIO(out)))
    st, j = server.request("POST", "/api/jobs", {
        "job": "compare", "placement": p.to_dict(), "memory": memory, "micro_batches": 16,
        "methods": "1f1b,gpipe,fast", "time_limit": 5})
    assert st == 200, j
    done = wait_job(server, j["id"])
    assert done["state"] == "done", done
    page = done["result"]["rows"]
    assert [r["method"] for r in ours] == [r["method"] for r in want] == [r["method"] for r in page]
    for o, w, g in zip(ours, want, page):
        assert str(o["makespan"]) == w["makespan"] == str(g["makespan"]), (o, w, g)
        assert str(o["lower_bound"]) == w["lower_bound"] == str(g["lower_bound"]), (o, w, g)
        assert ("yes" if o["fits"] else "no") == w["fits"] == ("yes" if g["fits"] else "no")
        assert o["status"] == w["status"] == g["status"], (o, w, g)
        assert w["memory"] == "9 3 3 3 3 3" and o["memory"] == memory
    assert [r["fits"] for r in ours] == [False, False, True]


def test_baseline_one_request_three_front_ends(cli, server, tmp_path):
    """tessel.baseline, `tessel baseline -o` and the explorer's baseline give the same schedule."""
    p = tessel.Placement.from_builtin("vshape", 4)
    out = tmp_path / "cli.json"
    cli.run("baseline", "1f1b", "--placement", "vshape", "--ndevs", 4, "-n", 8, "-o", out)
    mine = tmp_path / "py.json"
    tessel.baseline("1f1b", p, n=8).save(str(mine))
    assert out.read_text() == mine.read_text()
    st, j = server.request("POST", "/api/baseline", {"placement": p.to_dict(), "kind": "1f1b",
                                                     "micro_batches": 8})
    assert st == 200, j
    assert j["schedule"]["entries"] == json.loads(out.read_text())["entries"]
    st, j = server.request("POST", "/api/baseline", {"placement": p.to_dict(), "kind": "nope"})
    assert st == 400 and "request: field 'kind': unknown baseline 'nope'" in j["error"], j


def test_export_import_cli_and_python(cli, tmp_path):
    """`tessel export` and Schedule.export write the same bytes in both formats; `tessel import`
    and tessel.import_schedule read them back to the same schedule file; both refuse the same
    requests, naming the field each its own way."""
    p = tessel.Placement.from_builtin("vshape", 4)
    sched = tmp_path / "s.json"
    cli.run("search", "--placement", "vshape", "--ndevs", 4, "--memory", 4, "-n", 8, "-o", sched)
    s = tessel.Schedule.load(str(sched))
    for fmt, ext in (("pytorch", "csv"), ("python", "py.json")):
        out = tmp_path / ("cli." + ext)
        cli.run("export", sched, "--format", fmt, "-n", 12, "-o", out)
        assert s.export(fmt, n=12) == out.read_text(), fmt
        back = tmp_path / ("back-%s.json" % fmt)
        cli.run("import", out, "--placement", "vshape", "--ndevs", 4, "--format", fmt, "-o", back)
        mine = tessel.import_schedule(str(out), p, format=fmt)
        assert mine.text == back.read_text(), fmt
        assert mine.makespan is not None and mine.micro_batches >= 1
    # the shorthand is the same request
    short = tmp_path / "short.csv"
    cli.run("export", "--pytorch", sched, "-n", 12, "-o", short)
    assert short.read_text() == (tmp_path / "cli.csv").read_text()
    r = cli.run("export", sched, "--format", "xml", check=False)
    assert r.returncode == 2 and "--format 'xml' is not a format" in r.stderr, r.stderr
    with pytest.raises(tessel.InvalidInput, match="format 'xml' is not a format"):
        s.export("xml")
    r = cli.run("import", tmp_path / "cli.csv", "--placement", "vshape", "--ndevs", 4,
                "--pytorch", "-n", 3, check=False)
    assert r.returncode == 2 and "--micro-batches does not apply" in r.stderr, r.stderr
    with pytest.raises(tessel.InvalidInput, match="n does not apply"):
        tessel.import_schedule(str(tmp_path / "cli.csv"), p, format="pytorch", n=3)


def test_model_placement_three_front_ends(cli, server, tmp_path):
    """One model placement request, with the options Python and the explorer lacked before the
    table (param_bytes, comm, efficiency, workspace_gb): tessel.placement_from_model, `tessel
    placement --model -o FILE --json` and the explorer's model placement derive the same
    placement, and Python's summary is the command line's."""
    args = dict(model="gpt3-1.3b", hardware="a100-40gb", gpus=4, strategy="interleaved",
                chunks=2, micro_batches=8, param_bytes=8, comm="overlap", efficiency=0.5,
                workspace_gb=2)
    ours = tessel.placement_from_model(**args)
    out = tmp_path / "cli.json"
    flags = [x for key, value in args.items() for x in ("--" + key.replace("_", "-"), value)]
    info = json.loads(cli.run("placement", *flags, "-o", out, "--json").stdout)
    want = json.loads(out.read_text())
    assert ours.to_dict() == want and ours.info == info
    st, j = server.request("POST", "/api/model-placement", args)
    assert st == 200, j
    assert j["placement"] == want and j["info"]["capacity"] == info["capacity"]
    # a value the row refuses, named as each front end names it
    r = cli.run("placement", *flags, "--comm", "both", check=False)
    assert r.returncode == 2 and "--comm takes overlap or sync, not 'both'" in r.stderr
    with pytest.raises(tessel.InvalidInput, match="comm takes overlap or sync, not 'both'"):
        tessel.placement_from_model(**dict(args, comm="both"))
    st, j = server.request("POST", "/api/model-placement", dict(args, comm="both"))
    assert st == 400 and j["error"] == "request: field 'comm' takes overlap or sync, not 'both'"


def test_plan_cli_and_python(cli):
    """One plan request: tessel.plan and `tessel plan --json` rank the same plans with the same
    figures (the schedule searches' seconds aside); each search spends the effort it is given,
    so the answer is the machine's load's neither."""
    args = dict(model="gpt3-1.3b", hardware="a100-40gb", gpus=4, global_batch=16,
                micro_batch_size=1, tensor_parallel=1, pipeline=4, zero=0, strategies="1f1b,zb",
                recompute="none", sequence_parallel=False, top=4, search_top=2, time_limit=30,
                effort=50000, seed=7, efficiency=0.4)
    ours = tessel.plan(**args)
    flags = [x for key, value in args.items() for x in ("--" + key.replace("_", "-"), value)]
    flags = ["off" if value is False else value for value in flags]
    want = json.loads(cli.run("plan", *flags, "--json").stdout)
    assert ours["counts"]["searched"] == 2
    for p in ours["plans"] + want["plans"]:
        p.pop("placement", None), p.pop("schedule", None), p.pop("search_s")
    assert strip(ours) == strip(want)


def test_views_one_request_three_front_ends(cli, server, tests_dir, tmp_path):
    """show, render and trace of one schedule at N = 12, replayed: the command line's output is
    Python's, and the explorer's view and trace are the same."""
    path = os.path.join(tests_dir, "fixtures", "vshape4_1f1b.json")
    s = tessel.Schedule.load(path)
    assert cli.run("show", path, "-n", 12, "-w", 60, "--timeline", "replayed").stdout == \
        s.show(n=12, width=60, timeline="replayed")
    svg = s.svg(n=12, timeline="replayed", title="t", scale=3)
    assert cli.run("render", path, "-n", 12, "--timeline", "replayed", "--title", "t",
                   "--scale", 3).stdout == svg
    st, v = server.request("POST", "/api/view", {"schedule": s.to_dict(), "micro_batches": 12,
                                                 "timeline": "replayed", "title": "t",
                                                 "scale": 3})
    assert st == 200 and v["svg"] == svg and v["micro_batches"] == 12, st
    out = tmp_path / "trace.json"
    cli.run("trace", path, "-n", 12, "--timeline", "replayed", "-u", 1, "-o", out)
    trace = s.trace(n=12, timeline="replayed", unit_us=1)
    st, t = server.request("POST", "/api/trace", {"schedule": s.to_dict(), "micro_batches": 12,
                                                  "timeline": "replayed"})
    assert st == 200 and t == trace, st
    assert json.loads(out.read_text())["traceEvents"] == trace["traceEvents"]


def test_bound_one_request_three_front_ends(cli, server):
    """LB(128) of vshape on 4 devices within a capacity per device: `tessel bound --json`,
    Placement.bound and the explorer's check agree (the check now bounds within the memory)."""
    p = tessel.Placement.from_builtin("vshape", 4)
    want = json.loads(cli.run("bound", "--placement", "vshape", "--ndevs", 4, "-n", 128,
                              "--memory", "2,2,2,3", "--json").stdout)
    assert p.bound(128, memory=[2, 2, 2, 3]) == want and want["memory"] == [2, 2, 2, 3]
    st, j = server.request("POST", "/api/check", {"placement": p.to_dict(), "memory": [2, 2, 2, 3],
                                                  "micro_batches": 128})
    assert st == 200 and j["lower_bound"] == want["lower_bound"] > 524, (j, want)


def test_simulate_one_request(cli, tests_dir):
    path = os.path.join(tests_dir, "fixtures", "vshape4_1f1b.json")
    want = json.loads(cli.run("simulate", path, "-n", 16, "--json", "--scale", "B3=2",
                              "--scale", "F0=0.5", "--seed", 3, "--noise", 0.2).stdout)
    got = tessel.Schedule.load(path).simulate(n=16, scale={"B3": 2, "F0": 0.5}, seed=3, noise=0.2)
    assert got == want


def test_summary_raises_as_simulate_and_validate(tests_dir):
    """Issue 43: a count a schedule cannot be unrolled to (4 micro-batches, no repetend): summary
    raises as simulate and validate do, with the same words, instead of answering at its own
    N."""
    s = tessel.Schedule.load(os.path.join(tests_dir, "fixtures", "vshape4_1f1b_n4.json"))
    said = []
    for call in (s.summary, s.simulate, s.validate):
        with pytest.raises(tessel.InvalidInput) as exc:
            call(n=9)
        said.append(str(exc.value).split(": ", 1)[1])
    assert "no repetend" in said[0] and said[0] == said[1] == said[2], said
    assert s.summary(n=2)["micro_batches"] == 2


def test_messages_name_the_field_as_each_front_end_does(cli, server, tests_dir):
    path = os.path.join(tests_dir, "fixtures", "vshape4_1f1b.json")
    s = tessel.Schedule.load(path)
    _, line = cli.first_error_line("render", path, "--timeline", "sideways")
    assert line.endswith("--timeline must be planned or replayed"), line
    with pytest.raises(tessel.InvalidInput, match="^tessel render: timeline must be planned"):
        s.svg(timeline="sideways")
    st, j = server.request("POST", "/api/view", {"schedule": s.to_dict(), "timeline": "sideways"})
    assert st == 400 and j["error"] == "request: field 'timeline' must be planned or replayed"
    with pytest.raises(tessel.InvalidInput, match="scale: unknown block 'Z'"):
        s.simulate(scale={"Z": 2})
    with pytest.raises(tessel.InvalidInput, match="n must be between 1 and 1000000"):
        tessel.Placement.from_builtin("vshape", 4).bound(0)
