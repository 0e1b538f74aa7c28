"""The notebook paper-artifacts/notebooks/explore.ipynb runs, cell by cell, and the two pictures
it writes are the ones committed beside it, which the README shows: a change that alters them
fails here until they are regenerated (python3 paper-artifacts/notebooks/run_notebook.py)."""

import os
import sys

from conftest import ROOT

NOTEBOOKS = os.path.join(ROOT, "paper-artifacts", "notebooks")
sys.path.insert(0, NOTEBOOKS)

import run_notebook  # noqa: E402


def test_notebook_runs_and_draws_the_readme_pictures(tmp_path):
    ns = run_notebook.run(os.path.join(NOTEBOOKS, "explore.ipynb"), str(tmp_path))
    # the sweep: the makespan never below the bound, and never growing with memory
    sweep = ns["sweep"]
    assert all(makespan >= bound for _, makespan, bound in sweep)
    assert all(a[1] >= b[1] for a, b in zip(sweep, sweep[1:]))
    for name in ("explore_schedule.svg", "explore_sweep.svg"):
        got = (tmp_path / name).read_text()
        assert got.lstrip().startswith(("<svg", "<?xml")), name
        with open(os.path.join(NOTEBOOKS, name)) as f:
            committed = f.read()
        assert got == committed, ("%s differs from the committed picture: rerun "
                                  "paper-artifacts/notebooks/run_notebook.py" % name)
