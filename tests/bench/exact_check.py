#!/usr/bin/env python3
"""The small-N set of tests/bench/quality.sh against an exact solver no one here wrote: per case,
CP-SAT's proven optimum (exact_cpsat.py), `tessel search --method auto`'s makespan, whether auto
says optimal and how (lb / exact / not), its exact search's status and effort, and the seconds.

usage: exact_check.py TESSEL_BIN [TIME_LIMIT]      (TIME_LIMIT: auto's, 10)
env:   EXACT_SHAPES, EXACT_DEVS ("4 8"), EXACT_NS ("4 8 12"): narrow the set;
       EXACT_CAP (300): auto's wall-clock cap (its effort stays TIME_LIMIT's, 1.2e5 units a
       second, so a loaded machine gives the quiet machine's answer);
       EXACT_CPSAT_LIMIT (120): CP-SAT's seconds per case; EXACT_CACHE: a JSON file of CP-SAT's
       answers, read and extended (CP-SAT's answer depends on the placement alone).
Every auto schedule at N is also checked by exact_cpsat.validate (plain Python, an independent
validator). A verdict other than `ok` or `open` (CP-SAT not proven) is a bug in one of the two.
A figure-printing benchmark: it exits 0 whatever it finds."""
import json
import os
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import exact_cpsat  # noqa: E402


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def floor_memory(tessel, shape, d):
    r = run([tessel, "search", "--placement", shape, "--ndevs", str(d), "--memory", "0",
             "--method", "fast", "--json"])
    try:
        return json.loads(r.stdout).get("min_memory")
    except ValueError:
        return None


def auto(tessel, pfile, n, mem, limit, cap, sched):
    t0 = time.time()
    r = run([tessel, "search", pfile, "-n", str(n), "--memory", str(mem), "--method", "auto",
             "--effort", str(int(limit * 120000)), "--time-limit", str(cap), "--json",
             "-o", sched])
    wall = time.time() - t0
    try:
        return json.loads(r.stdout), wall
    except ValueError:
        return {"error": r.stderr.strip()}, wall


def at_n(tessel, sched, n, blocks, edges):
    """The schedule at n as the record measures it: unrolled (`tessel trace -n`, which lists every
    instance's step), then replayed here: each device keeps its order, and every instance starts
    as soon as its devices and inputs allow. Keeping each device's order keeps its memory sums.
    {(block index, micro): start}, or None."""
    r = run([tessel, "trace", sched, "-n", str(n)])
    try:
        ev = [e["args"] for e in json.loads(r.stdout)["traceEvents"] if e.get("ph") == "X"]
    except (ValueError, KeyError):
        return None
    ids = {b[0]: i for i, b in enumerate(blocks)}
    plan = {(ids[a["block"]], a["micro"]): a["step"] for a in ev}
    ins = {}
    for src, dst, delay, dist in edges:
        for k in range(dist, n):
            ins.setdefault((dst, k), []).append(((src, k - dist), blocks[src][1] + delay))
    free, out = {}, {}
    for x in sorted(plan, key=lambda x: plan[x]):
        t = max([free.get(d, 0) for d in blocks[x[0]][3]] +
                [out[y] + lag for y, lag in ins.get(x, []) if y in out] + [0])
        out[x] = t
        for d in blocks[x[0]][3]:
            free[d] = t + blocks[x[0]][1]
    return out if len(out) == len(blocks) * n else None


def verdict(a, c, valid):
    if "makespan" not in a:
        return "no-auto"
    if not valid:
        return "BUG:auto-invalid"
    if "makespan" not in c:
        return "open"
    mk, opt = a["makespan"], c["makespan"]
    if mk < opt and c["proven"]:
        return "BUG:cpsat-above-a-valid-schedule"
    if not c["proven"]:
        return "open" if mk >= opt else "open(auto-better)"
    if a.get("optimal") and mk > opt:
        return "BUG:auto-claims-optimal"
    return "ok" if mk == opt else "auto-longer"


def main():
    tessel = sys.argv[1]
    limit = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    cap = os.environ.get("EXACT_CAP", "300")
    climit = float(os.environ.get("EXACT_CPSAT_LIMIT", "120"))
    shapes = os.environ.get("EXACT_SHAPES", "vshape xshape mshape nnshape kshape").split()
    devs = [int(x) for x in os.environ.get("EXACT_DEVS", "4 8").split()]
    ns = [int(x) for x in os.environ.get("EXACT_NS", "4 8 12").split()]
    cache_path = os.environ.get("EXACT_CACHE")
    cache = json.load(open(cache_path)) if cache_path and os.path.exists(cache_path) else {}
    tmp = tempfile.mkdtemp()
    hdr = ["shape", "D", "N", "mem", "LB", "cpsat", "c_proven", "c_bound", "c_s", "auto", "optimal",
           "proof", "exact", "exact_effort", "auto_s", "verdict"]
    rows = []
    print("  ".join(hdr), flush=True)
    for shape in shapes:
        for d in devs:
            pfile = os.path.join(tmp, f"{shape}{d}.json")
            with open(pfile, "w") as f:
                f.write(run([tessel, "placement", shape, "--ndevs", str(d)]).stdout)
            blocks, edges, nd, _ = exact_cpsat.read_placement(pfile)
            fl = floor_memory(tessel, shape, d)
            for n in ns:
                for mem in ([fl] if fl else []) + [d + 2]:
                    key = f"{shape} {d} {n} {mem}"
                    capl = [mem] * nd
                    if key not in cache:
                        cache[key] = exact_cpsat.solve(blocks, edges, nd, n, capl, climit, 2,
                                                       monotone=True)
                        cache[key].pop("starts", None)
                        if cache_path:
                            json.dump(cache, open(cache_path, "w"), indent=0)
                    c = cache[key]
                    sched = os.path.join(tmp, "s.json")
                    a, wall = auto(tessel, pfile, n, mem, limit, cap, sched)
                    fix = at_n(tessel, sched, n, blocks, edges) if "makespan" in a else None
                    # valid, and as long as the record says (no longer: the replay only tightens)
                    valid = fix is not None and exact_cpsat.validate(
                        blocks, edges, nd, n, capl, fix) is None and max(
                        fix[x] + blocks[x[0]][1] for x in fix) <= a["makespan"]
                    proof = ("lb" if "makespan" in a and a["makespan"] <= a["lower_bound"] else
                             "exact" if a.get("optimal") else "-")
                    row = [shape, d, n, mem, a.get("lower_bound", "-"), c.get("makespan", "-"),
                           "yes" if c["proven"] else "no", c.get("bound", "-"),
                           f"{c['seconds']:.1f}",
                           a.get("makespan", "-"), "yes" if a.get("optimal") else "no", proof,
                           a.get("exact") or "-", a.get("exact_effort", "-"),
                           f"{wall:.1f}", verdict(a, c, valid)]
                    rows.append(row)
                    print("  ".join(map(str, row)), flush=True)
    ok = sum(r[-1] == "ok" for r in rows)
    bugs = sum(r[-1].startswith("BUG") for r in rows)
    col = {h: i for i, h in enumerate(hdr)}
    cproven = sum(r[col["c_proven"]] == "yes" for r in rows)
    aopt = sum(r[col["optimal"]] == "yes" for r in rows)
    eq = sum(r[col["cpsat"]] == r[col["auto"]] for r in rows)
    ecut = sum(r[col["exact"]] in ("cut", "timed out") for r in rows)
    proof = col["proof"]
    print(f"SUMMARY exact check: {len(rows)} cases; CP-SAT proven in {cproven}; auto equals "
          f"CP-SAT's answer in {eq}; auto says optimal in {aopt} (lb "
          f"{sum(r[proof] == 'lb' for r in rows)}, exact {sum(r[proof] == 'exact' for r in rows)}); "
          f"auto's exact search cut in {ecut}; verdict ok in {ok}; bugs {bugs}")


if __name__ == "__main__":
    main()
