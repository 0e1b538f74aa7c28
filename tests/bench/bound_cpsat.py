#!/usr/bin/env python3
"""Every term of `tessel bound` against CP-SAT's proven optimum (exact_cpsat.py, an exact solver
that shares no code with tessel) on small built-in cases: a term above a proven optimum is a bug.

usage: bound_cpsat.py TESSEL_BIN          (run with a Python that has OR-tools: the venv)
env:   BOUND_SHAPES ("vshape xshape kshape mshape nnshape"), BOUND_DEVS ("3 4"),
       BOUND_NS ("2 3 4 6"), BOUND_CAPS ("2 3 4 5"): the cases (a capacity no schedule fits is
       skipped); BOUND_CPSAT_LIMIT (30): CP-SAT's seconds per case, on 1 worker.
Per case: the bound, the term that binds, CP-SAT's answer and a verdict (`ok`, `tight` when the
bound equals the proven optimum, `open` when CP-SAT did not prove it, `BUG` when a term is above
the optimum). Last line: SUMMARY bound_cpsat: cases, proven, tight, the cases where the warm-up
term is above every other term (and how many of them are tight), bugs. Exits 1 on a bug."""
import json
import os
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import exact_cpsat  # noqa: E402


def main():
    tessel = sys.argv[1]
    shapes = os.environ.get("BOUND_SHAPES", "vshape xshape kshape mshape nnshape").split()
    devs = [int(x) for x in os.environ.get("BOUND_DEVS", "3 4").split()]
    ns = [int(x) for x in os.environ.get("BOUND_NS", "2 3 4 6").split()]
    caps = [int(x) for x in os.environ.get("BOUND_CAPS", "2 3 4 5").split()]
    limit = float(os.environ.get("BOUND_CPSAT_LIMIT", "30"))
    cases = proven = tight = warm = warm_tight = bugs = 0
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            for d in devs:
                pf = os.path.join(tmp, f"{shape}-{d}.json")
                if subprocess.run([tessel, "placement", shape, "--ndevs", str(d), "-o", pf],
                                  capture_output=True).returncode != 0:
                    continue  # a count the shape is not built on (kshape, nnshape: even)
                blocks, edges, nd, _ = exact_cpsat.read_placement(pf)
                for n in ns:
                    for c in caps:
                        r = subprocess.run([tessel, "bound", "--placement", shape, "--ndevs",
                                            str(d), "-n", str(n), "--memory", str(c), "--json"],
                                           capture_output=True, text=True)
                        if r.returncode != 0:
                            continue
                        b = json.loads(r.stdout)
                        terms = {k: v for k, v in b["terms"].items() if v is not None}
                        s = exact_cpsat.solve(blocks, edges, nd, n, [c] * nd, limit, 1)
                        if s["status"] == "infeasible":
                            continue
                        cases += 1
                        w = terms.get("warmup", -1)
                        above = w > max((v for k, v in terms.items() if k != "warmup"),
                                        default=-1)
                        warm += above
                        verdict = "open"
                        if s.get("proven"):
                            proven += 1
                            opt = s["makespan"]
                            high = [k for k, v in terms.items() if v > opt]
                            if high:
                                verdict = "BUG " + ",".join(high)
                                bugs += 1
                            elif b["lower_bound"] == opt:
                                verdict = "tight"
                                tight += 1
                                warm_tight += above
                            else:
                                verdict = "ok"
                        print(f"{shape} D={d} N={n} mem={c}: bound {b['lower_bound']} "
                              f"({b['binding']}), warmup {w if w >= 0 else '-'}, cp-sat "
                              f"{s.get('makespan', '-')} {'proven' if s.get('proven') else ''}"
                              f" -> {verdict}", flush=True)
    print(f"SUMMARY bound_cpsat: cases={cases} proven={proven} tight={tight} "
          f"warmup_above_others={warm} (tight {warm_tight}) bugs={bugs}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
