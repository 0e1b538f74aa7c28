"""auto's exact search against an exact solver no one here wrote (OR-tools CP-SAT, through
tests/bench/exact_cpsat.py, whose model is built from the placement file alone): on tiny cases
where the optimum lies above the lower bound, so that only the exact search can prove it, auto
must say `exact: proven` and optimal, its makespan must be CP-SAT's proven optimum, and its
schedule at N must pass a validator in plain Python. Without ortools: skipped, unless
TESSEL_REQUIRE_PYTEST=1 (CI, where .ci/install-deps python installs it)."""

import json
import os
import subprocess
import sys

import pytest

from conftest import TESTS

BENCH = os.path.join(TESTS, "bench")
sys.path.insert(0, BENCH)
import exact_check  # noqa: E402
import exact_cpsat  # noqa: E402

# (placement: a built-in on 4 devices or a fixture file, N, capacity): optimum above the bound
# (kshape at memory 2, once here, is now met by the bound's exclusive term, and xshape at memory
# 1 by its cross term)
CASES = [
    ("xshape", 2, "2"),
    ("xshape", 3, "2"),
    ("mshape", 4, "2"),
    ("vshape", 4, "2"),
    ("exact_tiny3.json", 3, "2,2,1"),
    ("exact_tiny3.json", 4, "2,2,1"),
]


def have_ortools():
    # CP-SAT runs in a child without the sanitizer runtimes that run.sh preloads for the
    # package's library: its own native code is not built for them
    r = subprocess.run([sys.executable, "-c", "import ortools.sat.python.cp_model"],
                       env=plain_env(), capture_output=True)
    return r.returncode == 0


def plain_env():
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


@pytest.fixture(scope="module")
def ortools():
    if not have_ortools():
        if os.environ.get("TESSEL_REQUIRE_PYTEST") == "1":
            pytest.fail("ortools is not importable (.ci/install-deps python installs it)")
        pytest.skip("ortools is not importable")


def placement_file(tessel_bin, name, tmp_path):
    if name.endswith(".json"):
        return os.path.join(TESTS, "fixtures", name)
    path = tmp_path / f"{name}4.json"
    r = subprocess.run([tessel_bin, "placement", name, "--ndevs", "4", "-o", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return str(path)


def cpsat(path, n, cap):
    r = subprocess.run([sys.executable, os.path.join(BENCH, "exact_cpsat.py"), path, "-n",
                        str(n), "--memory", cap, "--time-limit", "120", "--json"],
                       env=plain_env(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("name,n,cap", CASES)
def test_exact_search_equals_cpsat(ortools, tessel_bin, tmp_path, name, n, cap):
    path = placement_file(tessel_bin, name, tmp_path)
    ref = cpsat(path, n, cap)
    assert ref["proven"], ref
    sched = str(tmp_path / "s.json")
    # the effort of 20 s, the wall-clock cap far above it: the answer of any machine
    r = subprocess.run([tessel_bin, "search", path, "-n", str(n), "--memory", cap, "--method",
                        "auto", "--effort", "2400000", "--time-limit", "600", "--json", "-o",
                        sched], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    # the optimum is above the bound, so the proof can only be the exact search's
    assert ref["makespan"] > a["lower_bound"]
    assert a["exact"] == "proven" and a["optimal"], a
    assert a["makespan"] == ref["makespan"]
    blocks, edges, nd, _ = exact_cpsat.read_placement(path)
    caps = exact_cpsat.capacities(cap, nd)
    starts = exact_check.at_n(tessel_bin, sched, n, blocks, edges)
    assert starts is not None
    assert exact_cpsat.validate(blocks, edges, nd, n, caps, starts) is None
    assert max(t + blocks[b][1] for (b, _), t in starts.items()) == a["makespan"]


def test_validator_refuses(tessel_bin, tmp_path):
    """The plain validator can fail: an instance moved one step earlier (the replay starts each as early as it can), and a
    capacity one below the schedule's peak breaks memory."""
    path = os.path.join(TESTS, "fixtures", "exact_tiny3.json")
    blocks, edges, nd, _ = exact_cpsat.read_placement(path)
    sched = str(tmp_path / "s.json")
    r = subprocess.run([tessel_bin, "search", path, "-n", "3", "--memory", "3,2,1", "--method",
                        "auto", "--effort", "240000", "--time-limit", "600", "-o", sched],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    starts = exact_check.at_n(tessel_bin, sched, 3, blocks, edges)
    assert exact_cpsat.validate(blocks, edges, nd, 3, [3, 2, 1], starts) is None
    x = next(i for i, b in enumerate(blocks) if b[0] == "B")
    early = dict(starts)
    early[x, 1] -= 1
    assert exact_cpsat.validate(blocks, edges, nd, 3, [3, 2, 1], early) is not None
    assert "memory" in exact_cpsat.validate(blocks, edges, nd, 3, [3, 2, 0], starts)
