"""tests/bench/barrier_frames.py, our exhaustive search of the one-boundary periodic class, against
a solver no one here wrote: OR-tools CP-SAT on periodic_cpsat.py's own model of the same class
(--boundaries 1). On each case both must say feasible, or both infeasible (CP-SAT with a proof);
and a schedule barrier_frames.py writes must pass `tessel validate` within the memory, with the
lower bound at or below its makespan. Without ortools: skipped, unless TESSEL_REQUIRE_PYTEST=1
(CI, where .ci/install-deps python installs it)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import TESTS
from test_exact_cpsat import ortools, plain_env  # noqa: F401 (a fixture)
from test_periodic_cpsat import periodic, placement

sys.path.insert(0, os.path.join(TESTS, "bench"))
import exact_cpsat  # noqa: E402

TOOL = os.path.join(TESTS, "bench", "barrier_frames.py")


def frames(path, per, period, mem, *extra):
    r = subprocess.run([sys.executable, TOOL, path, "--per-period", str(per), "--period",
                        str(period), "--memory", str(mem), "--json", *extra],
                       capture_output=True, text=True, env=plain_env())
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# (built-in, devices, memory, R, P): the edges of feasibility on both sides (mshape at memory 2
# needs 10 steps, at memory 4 7; nnshape at 8 devices and memory 10 fits 2 per 18, not 2 per 17)
CASES = [("mshape", 4, 2, 1, 9), ("mshape", 4, 2, 1, 10), ("mshape", 4, 4, 1, 6),
         ("mshape", 4, 4, 1, 7), ("nnshape", 4, 4, 1, 9), ("nnshape", 4, 5, 2, 18),
         ("nnshape", 8, 10, 2, 17), ("nnshape", 8, 10, 1, 9)]


@pytest.mark.parametrize("name,ndevs,mem,per,period", CASES)
def test_class_answer_matches_cpsat(ortools, tessel_bin, tmp_path, name, ndevs, mem, per,
                                    period):
    path = placement(tessel_bin, name, ndevs, tmp_path)
    ours = frames(path, per, period, mem)
    theirs = periodic(path, per, period, mem, "--boundaries", "1")
    assert ours["status"] == theirs["status"], (ours, theirs)
    if theirs["status"] == "infeasible":
        assert theirs["proven"]


# barriers of 2 and 3 steps (tests/fixtures/nnshape4_long_barriers.json): a frame holds their
# steps, not their count; at memory 2 the class needs 13 steps, at memory 4 11
LONG = [(2, 12), (2, 13), (4, 10), (4, 11)]


@pytest.mark.parametrize("mem,period", LONG)
def test_long_barriers_match_cpsat(ortools, tmp_path, mem, period):
    path = os.path.join(TESTS, "fixtures", "nnshape4_long_barriers.json")
    ours = frames(path, 1, period, mem)
    theirs = periodic(path, 1, period, mem, "--boundaries", "1")
    assert ours["status"] == theirs["status"], (ours, theirs)
    if theirs["status"] == "infeasible":
        assert theirs["proven"]
    else:
        out = str(tmp_path / "s.json")
        frames(path, 1, period, mem, "--schedule", out, "-n", "12")
        with open(out) as f:
            sched = json.load(f)
        blocks, edges, nd, _ = exact_cpsat.read_placement(path)
        index = {b[0]: i for i, b in enumerate(blocks)}
        starts = {(index[x["block"]], x["micro"]): x["step"] for x in sched["entries"]}
        assert exact_cpsat.validate(blocks, edges, nd, 12, [mem] * nd, starts) is None


def test_schedule_validates(ortools, tessel_bin, tmp_path):
    """nnshape on 8 devices at memory 10, 2 micro-batches per 18 steps: the written schedule is
    valid, within the memory, and not below the lower bound."""
    path = placement(tessel_bin, "nnshape", 8, tmp_path)
    out = str(tmp_path / "s.json")
    res = frames(path, 2, 18, 10, "--schedule", out, "-n", "32")
    assert res["status"] == "feasible"
    r = subprocess.run([tessel_bin, "validate", out], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run([tessel_bin, "simulate", out, "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sim = json.loads(r.stdout)
    assert max(sim["peak_memory"]) <= 10
    r = subprocess.run([tessel_bin, "bound", path, "-n", "32", "--memory", "10", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["lower_bound"] <= sim["makespan"]


def test_refuses_what_is_not_a_barrier_v(tessel_bin, tmp_path):
    """xshape (two chains) is not one path: one message naming the file, exit 2."""
    path = placement(tessel_bin, "xshape", 4, tmp_path)
    r = subprocess.run([sys.executable, TOOL, path, "--per-period", "1", "--period", "9",
                        "--memory", "4"], capture_output=True, text=True, env=plain_env())
    assert r.returncode == 2
    assert path in r.stderr and "path" in r.stderr
