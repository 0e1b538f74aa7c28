"""The package gives the command line's answers, byte for byte where the command writes a file:
the same request through tessel.search and `tessel search -o FILE` writes the same schedule
(but for the wall-clock seconds of the search record, which differ from run to run of the
command line itself; modulo is left out: its latency_optimal flag depends on how far its
latency phase gets within its cap, which differs between two runs of the command line too), and every view and figure of that schedule is the command's."""

import json
import re

import pytest

import tessel

# The search record's wall-clock seconds: the one part of a schedule file that two runs of the
# same command do not share.
_SECONDS = re.compile(r'"search_seconds": \{[^}]*\}')


def _without_seconds(text):
    return _SECONDS.sub('"search_seconds": {}', text)


@pytest.mark.parametrize("name,ndevs,memory,method", [
    ("vshape", 4, 4, "auto"),
    ("vshape", 4, 4, "lazy"),
    ("xshape", 4, 6, "fast"),
    ("mshape", 4, 8, "fast"),
])
def test_search_writes_the_cli_bytes(cli, tmp_path, name, ndevs, memory, method):
    path = tmp_path / "cli.json"
    cli.run("search", "--placement", name, "--ndevs", ndevs, "--memory", memory, "--method",
            method, "-n", 32, "-o", path)
    s = tessel.search(tessel.Placement.from_builtin(name, ndevs), memory=memory, method=method,
                      n=32)
    want = path.read_text()
    assert _SECONDS.search(want), "the file has no search record"
    assert _without_seconds(s.text) == _without_seconds(want)
    mine = tmp_path / "py.json"
    s.save(mine)
    assert _without_seconds(mine.read_bytes().decode()) == _without_seconds(want)


def test_search_record_is_the_cli_json(cli):
    r = cli.run("search", "--placement", "vshape", "--ndevs", 4, "--memory", 4, "--json")
    want = json.loads(r.stdout)
    got = tessel.search(tessel.Placement.from_builtin("vshape", 4), memory=4).record
    for d in (want, got):
        d.pop("search_seconds")
    assert got == want
    assert got["makespan"] == 524


def test_baseline_bytes(cli, tmp_path):
    path = tmp_path / "b.json"
    cli.run("baseline", "zb-h1", "--placement", "vshape_zb", "--ndevs", 4, "-n", 12, "-o", path)
    s = tessel.baseline("zb-h1", tessel.Placement.from_builtin("vshape_zb", 4), n=12)
    assert s.text == path.read_text()


@pytest.fixture
def sched(cli, tmp_path):
    """A schedule file written by the command line, and the same file loaded in Python."""
    path = tmp_path / "s.json"
    cli.run("search", "--placement", "vshape", "--ndevs", 4, "--memory", 4, "--method", "lazy",
            "-o", path)
    return path, tessel.Schedule.load(path)


def test_views_are_the_cli_bytes(cli, tmp_path, sched):
    path, s = sched
    svg = tmp_path / "s.svg"
    cli.run("render", path, "-n", 8, "-o", svg)
    assert s.svg(n=8) == svg.read_text()
    csv = tmp_path / "s.csv"
    cli.run("export", "--pytorch", path, "-o", csv)
    assert s.to_pytorch_csv() == csv.read_text()
    py = tmp_path / "py.json"
    cli.run("export", "--python", path, "-o", py)
    assert s.to_python_tessel() == json.loads(py.read_text())
    out = tmp_path / "written.csv"
    assert s.to_pytorch_csv(path=out) == csv.read_text() == out.read_text()


def test_figures_are_the_cli_json(cli, sched):
    path, s = sched
    want = json.loads(cli.run("simulate", path, "-n", 64, "--json", "--noise", "0.1",
                              "--scale", "B3=2", "--comm-delay", "0.5").stdout)
    assert s.simulate(n=64, noise=0.1, scale={"B3": 2}, comm_delay=0.5) == want
    bound = json.loads(cli.run("bound", "--placement", "vshape", "--ndevs", 4, "-n", 128,
                               "--memory", 4, "--json").stdout)
    assert tessel.Placement.from_builtin("vshape", 4).bound(128, memory=4) == bound
    assert bound["lower_bound"] == 524
    v = s.validate(n=128)
    text = cli.run("validate", path, "-n", 128).stdout
    assert v["valid"] and v["micro_batches"] == 128
    assert "makespan %d, lower bound %d" % (v["makespan"], v["lower_bound"]) in text


def test_compare_rows_are_the_cli_csv(cli):
    import csv
    import io
    args = ("--placement", "vshape", "--ndevs", 4, "--memory", 4, "--methods",
            "1f1b,gpipe,lazy", "-n", 16)
    want = list(csv.DictReader(io.StringIO(cli.run("compare", *args, "--csv").stdout)))
    got = tessel.compare(tessel.Placement.from_builtin("vshape", 4), memory=4, n=16,
                         methods=["1f1b", "gpipe", "lazy"], as_frame=False)
    assert [r["method"] for r in got] == [r["method"] for r in want]
    for g, w in zip(got, want):
        assert str(g["makespan"]) == w["makespan"]
        assert str(g["lower_bound"]) == w["lower_bound"]
        assert " ".join(map(str, g["peak_memory"])) == w["peak_memory"]
        assert ("yes" if g["best"] else "") == w["best"]
        assert g["status"] == w["status"]


def test_placement_from_model_is_the_cli_file(cli, tmp_path):
    path = tmp_path / "m.json"
    cli.run("placement", "--model", "gpt3-1.3b", "--hardware", "a100-40gb", "--gpus", 4,
            "--strategy", "1f1b", "-o", path)
    p = tessel.placement_from_model("gpt3-1.3b", "a100-40gb", gpus=4, strategy="1f1b")
    assert p.to_dict() == json.loads(path.read_text())
    assert p.info["capacity"] == p.to_dict()["capacity"]


def test_model_is_the_cli_json(cli):
    want = json.loads(cli.run("model", "gpt3-1.3b", "--hardware", "a100-40gb", "--json").stdout)
    assert tessel.model("gpt3-1.3b", hardware="a100-40gb") == want


def test_pytorch_csv_import_is_the_cli_file(cli, tmp_path, sched):
    path, s = sched
    csv = tmp_path / "s.csv"
    s.to_pytorch_csv(path=csv)
    back = tmp_path / "back.json"
    cli.run("import", "--pytorch", csv, "--placement", "vshape", "--ndevs", 4, "-o", back)
    got = tessel.Schedule.from_pytorch_csv(csv, tessel.Placement.from_builtin("vshape", 4))
    assert got.text == back.read_text()
    assert got.summary()["makespan"] == s.summary(n=got.micro_batches)["makespan"]
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        tessel.Schedule.from_pytorch_csv(tmp_path / "missing.csv", got.placement)
