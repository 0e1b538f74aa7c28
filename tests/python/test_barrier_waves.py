"""The barrier-wave construction (src/core/construct/bwave.c) where memory sets the pace: nnshape on
128 devices at memory 40, N 512 (the scale set of tests/bench/quality.sh). `tessel search --method
auto` keeps it, within 1.10 of `tessel bound`, and the schedule it writes is checked by the plain
Python validator of tests/bench/exact_cpsat.py (DESIGN.md's rules, no tessel code): every instance
once, every dependency, no overlap on a device, every device within its memory."""

import json
import os
import subprocess
import sys

from conftest import TESTS

sys.path.insert(0, os.path.join(TESTS, "bench"))
import exact_cpsat  # noqa: E402


def test_nnshape_128_at_memory_40(tessel_bin, tmp_path):
    pl = str(tmp_path / "nn128.json")
    out = str(tmp_path / "s.json")
    r = subprocess.run([tessel_bin, "placement", "nnshape", "--ndevs", "128", "-o", pl],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([tessel_bin, "search", pl, "--memory", "40", "-n", "512", "--method",
                        "auto", "--time-limit", "10", "--json", "-o", out],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["source"] == "barrier-waves", rec["source"]
    r = subprocess.run([tessel_bin, "bound", pl, "--memory", "40", "-n", "512", "--json"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lb = json.loads(r.stdout)["lower_bound"]
    with open(out) as f:
        sched = json.load(f)
    blocks, edges, nd, _ = exact_cpsat.read_placement(pl)
    index = {b[0]: i for i, b in enumerate(blocks)}
    starts = {(index[x["block"]], x["micro"]): x["step"] for x in sched["entries"]}
    assert exact_cpsat.validate(blocks, edges, nd, 512, [40] * nd, starts) is None
    makespan = max(t + blocks[b][1] for (b, _), t in starts.items())
    assert makespan == rec["makespan"]
    # within 1.10 of the bound (8704), where modulo-x2 gave 10251 (1.178)
    assert lb <= makespan <= 1.10 * lb, (makespan, lb)
