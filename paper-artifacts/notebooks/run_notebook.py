#!/usr/bin/env python3
"""Runs a notebook's code cells in order, in one namespace, without Jupyter: what CI does with
explore.ipynb so that it cannot rot (a cell that raises fails the run, naming the cell).

    python3 paper-artifacts/notebooks/run_notebook.py [NOTEBOOK] [--out DIR]

--out DIR is where the notebook writes its pictures (TESSEL_NOTEBOOK_OUT); the default is this
folder, whose explore_schedule.svg and explore_sweep.svg the README shows. Cell magics and shell
escapes (lines starting with % or !) are not supported: the notebook has none.
"""

import argparse
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def run(path, out):
    with open(path) as f:
        nb = json.load(f)
    os.environ["TESSEL_NOTEBOOK_OUT"] = out
    namespace = {"__name__": "__main__"}
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    for i, cell in enumerate(cells):
        source = "".join(cell["source"])
        try:
            exec(compile(source, "%s: code cell %d" % (os.path.basename(path), i + 1), "exec"),
                 namespace)
        except Exception:
            traceback.print_exc()
            raise SystemExit("%s: code cell %d failed" % (path, i + 1))
    return namespace


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook", nargs="?", default=os.path.join(HERE, "explore.ipynb"))
    ap.add_argument("--out", default=HERE)
    a = ap.parse_args()
    # the package of this checkout when it is not installed
    sys.path.append(os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
    run(a.notebook, a.out)
    print("%s: every code cell ran" % a.notebook)


if __name__ == "__main__":
    main()
