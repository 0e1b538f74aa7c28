"""Each call of the package on its own: placements built from Python, their dicts, searches
with progress, a search cancelled from another thread (while the GIL is free), concurrent
searches that do not share state, and the rows of compare."""

import json
import threading
import time

import pytest

import tessel

TWO = dict(name="two", ndevs=2,
           blocks=[("F0", "forward", 1, 1, [0]), ("F1", "forward", 1, 1, [1]),
                   ("B1", "backward", 2, -1, [1]), ("B0", "backward", 2, -1, [0])],
           chains=[["F0", "F1", "B1", "B0"]])


def test_placement_built_from_python():
    p = tessel.Placement(**TWO)
    assert (p.name, p.ndevs, [b["id"] for b in p.blocks]) == ("two", 2, ["F0", "F1", "B1", "B0"])
    d = p.to_dict()
    assert d["format"] == "tessel-placement/1"
    assert tessel.Placement.from_dict(d) == p
    d["blocks"][0]["span"] = 5  # a copy: the placement keeps its own
    assert p.blocks[0]["span"] == 1
    # LB(N) of a two-stage pipeline: the load 3N of a device plus its head and tail
    b = p.bound(10)
    assert b["lower_bound"] == 3 * 10 + 3 and b["binding"] == "load"
    s = tessel.search(p, memory=2, n=10)
    assert s.makespan >= b["lower_bound"]
    assert s.validate()["valid"]


def test_edges_with_delay_and_distance_round_trip(tmp_path):
    p = tessel.Placement("d", ndevs=2, blocks=TWO["blocks"],
                         edges=[("F0", "F1", 2), ("F1", "B1"), ("B1", "B0", 0),
                                {"from": "B0", "to": "F0", "distance": 1}])
    edges = p.to_dict()["edges"]
    assert {"from": "F0", "to": "F1", "delay": 2} in edges
    assert any(isinstance(e, dict) and e.get("distance") == 1 for e in edges)
    path = tmp_path / "d.json"
    p.save(path)
    assert tessel.Placement.from_file(path) == p


def test_builtins_and_baselines_are_listed():
    names = [b["name"] for b in tessel.placements()]
    assert "vshape" in names and "mshape" in names
    kinds = [b["name"] for b in tessel.baselines()]
    assert "1f1b" in kinds and "gpipe" in kinds


def test_search_done_when():
    assert tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4).makespan == 524


def test_schedule_figures_and_views():
    s = tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4, method="lazy")
    assert (s.makespan, s.bound, s.micro_batches) == (524, 524, 128)
    assert s.record["method"] == "lazy" and s.record["feasible"] is True
    assert s.placement == tessel.Placement.from_builtin("vshape", 4)
    assert s.svg().startswith("<svg") or s.svg().startswith("<?xml")
    assert s._repr_svg_() == s.svg()
    assert s.simulate(n=128)["makespan"] >= 524
    csv = s.to_pytorch_csv()
    assert csv.splitlines()[0].startswith("0F0")
    py = s.to_python_tessel()
    assert py["ndevs"] == 4 and py["repetend"]
    loaded = tessel.Schedule(s.text)
    assert loaded.summary(n=128)["makespan"] == 524


def test_progress_is_reported():
    seen = []
    tessel.search(tessel.Placement.from_builtin("xshape", 8), memory=10, method="lazy",
                  time_limit=30, progress=seen.append)
    assert seen, "no progress report"
    assert all(isinstance(x, tessel.Progress) and x.phase for x in seen)
    assert seen[-1].elapsed >= seen[0].elapsed


def test_an_error_in_progress_stops_the_search():
    def boom(_p):
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        tessel.search(tessel.Placement.from_builtin("xshape", 8), memory=10, method="lazy",
                      time_limit=30, progress=boom)


def test_cancel_from_another_thread():
    # nnshape on 8 devices at memory 10: auto runs for about 20 s without a cancel
    p = tessel.Placement.from_builtin("nnshape", 8)
    token = tessel.CancelToken()
    entered = threading.Event()

    def other():
        # This thread can run during the search only if the call released the GIL (there is no
        # progress callback to take it back): then it cancels, and the search raises Cancelled.
        # With the GIL held, the search would run to its end and return a schedule.
        entered.wait()
        time.sleep(0.3)
        token.cancel()

    t = threading.Thread(target=other)
    t.start()
    entered.set()
    with pytest.raises(tessel.Cancelled) as exc:
        tessel.search(p, memory=10, time_limit=60, cancel=token)
    t.join()
    assert str(exc.value) == "tessel search: cancelled"
    assert exc.value.status == 4 and token.cancelled
    # a fresh token: the next search is not cancelled
    assert tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4,
                         cancel=tessel.CancelToken()).makespan == 524


def test_concurrent_searches_share_nothing():
    reqs = [("vshape", 4, 4), ("xshape", 4, 6), ("mshape", 4, 8), ("vshape", 8, 8)]
    alone = [tessel.search(tessel.Placement.from_builtin(n, d), memory=m, method="lazy").makespan
             for n, d, m in reqs]
    got = [None] * len(reqs)

    def run(i):
        n, d, m = reqs[i]
        got[i] = tessel.search(tessel.Placement.from_builtin(n, d), memory=m,
                               method="lazy").makespan

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(reqs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == alone


def test_compare_rows():
    rows = tessel.compare(tessel.Placement.from_builtin("vshape", 4), memory=4, n=32,
                          methods=["gpipe", "1f1b", "lazy"], as_frame=False)
    by = {r["method"]: r for r in rows}
    assert by["1f1b"]["best"] and by["1f1b"]["makespan"] == by["1f1b"]["lower_bound"]
    assert by["gpipe"]["fits"] is False  # gpipe holds every micro-batch at once
    assert by["lazy"]["source"] == "search"
    json.dumps(rows)  # plain values only


def test_compare_frame_when_pandas_is_there():
    pandas = pytest.importorskip("pandas")
    df = tessel.compare(tessel.Placement.from_builtin("vshape", 4), memory=4, n=16,
                        methods=["1f1b"])
    assert isinstance(df, pandas.DataFrame) and list(df["method"]) == ["1f1b"]


def test_plan_ranks_with_files(cli):
    args = dict(gpus=4, global_batch=16, micro_batch_size=1, strategies=["1f1b"], time_limit=1,
                tensor_parallel=1, recompute="none", zero=0)
    r = tessel.plan("gpt3-1.3b", "a100-40gb", **args)
    want = json.loads(cli.run("plan", "--model", "gpt3-1.3b", "--hardware", "a100-40gb",
                              "--gpus", 4, "--global-batch", 16, "--micro-batch-size", 1,
                              "--strategies", "1f1b", "--time-limit", 1, "--tensor-parallel", 1,
                              "--recompute", "none", "--zero", 0, "--json").stdout)
    # the same plans, in the same order (the cost model decides the ranking here)
    assert [p["name"] for p in r["plans"]] == [p["name"] for p in want["plans"]]
    assert r["counts"]["space"] == want["counts"]["space"]
    searched = [p for p in r["plans"] if p["fits"] and p.get("searched")]
    assert searched, "no plan was searched"
    best = searched[0]
    assert isinstance(best["placement"], tessel.Placement)
    assert best["schedule"].validate()["valid"]
    assert best["schedule"].makespan == best["makespan"]
    # the message names the keyword, as Python takes it (the command line: --recompute)
    with pytest.raises(tessel.InvalidInput, match="plan: recompute: unknown value 'some'"):
        tessel.plan("gpt3-1.3b", "a100-40gb", gpus=4, global_batch=16, recompute="some")


def test_library_version():
    assert tessel.version() == tessel.__version__


def test_plan_cancel():
    # issue 43: tessel.plan had no cancel; a token set from another thread stops its schedule
    # searches and the call raises Cancelled
    token = tessel.CancelToken()
    threading.Timer(0.5, token.cancel).start()
    # DeepSpeed's balanced layout: Megatron's even one (issue 45) leaves a closed form the first
    # search beats at once, pruning the rest, where these searches run to their time limit
    with pytest.raises(tessel.Cancelled):
        tessel.plan("gpt3-1.3b", "a100-40gb", 8, 64, micro_batch_size=1, pipeline=8,
                    tensor_parallel=1, zero=0, strategies="1f1b,zb", search_top=4,
                    time_limit=600, framework="deepspeed", cancel=token)
