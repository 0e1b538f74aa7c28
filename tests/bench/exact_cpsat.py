#!/usr/bin/env python3
"""An exact solver for tessel's scheduling problem that shares no code with tessel: Google
OR-tools' CP-SAT on a model built here from the placement file alone.

usage: exact_cpsat.py PLACEMENT.json -n N [--memory C | C0,C1,...] [--time-limit S]
                      [--workers W] [--monotone] [--json]

The problem, as DESIGN.md states it: every instance (block, micro-batch 0..N-1) gets a start >= 0
and occupies [start, start + span) on each of its block's devices; no two instances overlap on a
device; an edge a -> b (delay l, distance d) needs start(b, m) >= start(a, m - d) + span(a) + l for
m >= d; on each device the running sum of memory deltas (each applied at its block's start, from
0) never exceeds that device's capacity; the makespan is the last end. CP-SAT minimises it:
intervals, one no-overlap per device (a block on several devices is in each of theirs), and one
reservoir per device (level starts at 0, changes at the starts, at most the capacity, no floor).

Since no two instances on a device start at the same step, a reservoir's "level at every time" is
the validator's running sum in start order. --monotone adds start(b, m) <= start(b, m + 1), which
loses no optimum (sorting each block's starts keeps every edge, load and memory sum) but is the
same argument tessel's own model rests on, so the check runs without it unless asked.

Prints `optimum M proven` or `best M not proven` (or `infeasible proven`, `unknown`), or one JSON
object with --json. Exit 0 unless the input is bad (2)."""
import argparse
import json
import sys


def fail(msg):
    print(f"exact_cpsat: {msg}", file=sys.stderr)
    sys.exit(2)


def read_placement(path):
    """Blocks (id, span, memory, devices), edges (src, dst, delay, distance), ndevs, capacity."""
    try:
        with open(path) as f:
            p = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(p, dict) or not str(p.get("format", "")).startswith("tessel-placement/"):
        fail(f"{path}: not a tessel placement (field 'format')")
    nd = p.get("ndevs")
    blocks = p.get("blocks")
    if not isinstance(nd, int) or nd < 1 or not isinstance(blocks, list) or not blocks:
        fail(f"{path}: fields 'ndevs' and 'blocks' are required")
    idx, out = {}, []
    for i, b in enumerate(blocks):
        try:
            bid, span, mem, devs = b["id"], int(b["span"]), int(b.get("memory", 0)), b["devices"]
        except (KeyError, TypeError, ValueError):
            fail(f"{path}: blocks[{i}]: needs id, span, devices")
        if span <= 0 or not devs or any(not 0 <= d < nd for d in devs) or bid in idx:
            fail(f"{path}: blocks[{i}] ('{bid}'): bad span, devices or duplicate id")
        idx[bid] = len(out)
        out.append((bid, span, mem, sorted(set(devs))))
    edges = []
    for i, e in enumerate(p.get("edges", [])):
        if isinstance(e, list) and len(e) == 2:
            e = {"from": e[0], "to": e[1]}
        if not isinstance(e, dict) or e.get("from") not in idx or e.get("to") not in idx:
            fail(f"{path}: edges[{i}]: unknown block")
        edges.append((idx[e["from"]], idx[e["to"]], int(e.get("delay", 0)),
                      int(e.get("distance", 0))))
    for i, c in enumerate(p.get("chains", [])):
        if any(x not in idx for x in c):
            fail(f"{path}: chains[{i}]: unknown block")
        edges += [(idx[a], idx[b], 0, 0) for a, b in zip(c, c[1:])]
    return out, edges, nd, p.get("capacity")


def capacities(arg, nd):
    """None (unconstrained) or one capacity per device from an int, a list or 'a,b,c'."""
    if arg is None:
        return None
    if isinstance(arg, str):
        arg = [int(x) for x in arg.split(",")]
    if isinstance(arg, int):
        arg = [arg]
    if len(arg) == 1:
        arg = arg * nd
    if len(arg) != nd:
        fail(f"--memory: {len(arg)} capacities for {nd} devices")
    return [int(c) for c in arg]


def validate(blocks, edges, nd, n, cap, starts):
    """None when starts ({(block index, micro): step}) is a valid schedule of n micro-batches
    within cap (None: unconstrained), else the first problem found, in words. Plain Python, as
    DESIGN.md states validity: no CP-SAT, no tessel."""
    if set(starts) != {(b, k) for b in range(len(blocks)) for k in range(n)}:
        return "not every instance once"
    for src, dst, delay, dist in edges:
        for k in range(dist, n):
            if starts[dst, k] < starts[src, k - dist] + blocks[src][1] + delay:
                return f"dependency {blocks[src][0]}/{k - dist} -> {blocks[dst][0]}/{k}"
    per_dev = [[] for _ in range(nd)]
    for (b, k), t in starts.items():
        for d in blocks[b][3]:
            per_dev[d].append((t, b))
    for d in range(nd):
        on = sorted(per_dev[d])
        level = 0
        for i, (t, b) in enumerate(on):
            if i and t < on[i - 1][0] + blocks[on[i - 1][1]][1]:
                return f"overlap on device {d} at step {t}"
            level += blocks[b][2]
            if cap is not None and level > cap[d]:
                return f"memory on device {d} at step {t}: {level} > {cap[d]}"
    return None


def solve(blocks, edges, nd, n, cap, time_limit=60.0, workers=2, monotone=False):
    """{status: optimal|feasible|infeasible|unknown, makespan, bound, proven, starts}."""
    from ortools.sat.python import cp_model

    m = cp_model.CpModel()
    horizon = sum(s * n for _, s, _, _ in blocks) + sum(l * n for _, _, l, _ in edges)
    start, itv = {}, {}
    for b, (_, span, _, _) in enumerate(blocks):
        for k in range(n):
            s = m.NewIntVar(0, horizon, f"s{b}_{k}")
            start[b, k] = s
            itv[b, k] = m.NewFixedSizeIntervalVar(s, span, f"i{b}_{k}")
    for src, dst, delay, dist in edges:
        for k in range(dist, n):
            m.Add(start[dst, k] >= start[src, k - dist] + blocks[src][1] + delay)
    if monotone:
        for b in range(len(blocks)):
            for k in range(n - 1):
                m.Add(start[b, k] <= start[b, k + 1])
    for d in range(nd):
        on = [(b, k) for b in range(len(blocks)) if d in blocks[b][3] for k in range(n)]
        m.AddNoOverlap([itv[x] for x in on])
        if cap is not None:
            mem = [x for x in on if blocks[x[0]][2] != 0]
            floor = -sum(abs(blocks[b][2]) for b, _ in mem) - 1
            m.AddReservoirConstraint([start[x] for x in mem], [blocks[x[0]][2] for x in mem],
                                     floor, cap[d])
    h = m.NewIntVar(0, horizon + max(s for _, s, _, _ in blocks), "H")
    for (b, k), s in start.items():
        m.Add(h >= s + blocks[b][1])
    m.Minimize(h)
    sv = cp_model.CpSolver()
    sv.parameters.max_time_in_seconds = time_limit
    sv.parameters.num_workers = workers
    st = sv.Solve(m)
    names = {cp_model.OPTIMAL: "optimal", cp_model.FEASIBLE: "feasible",
             cp_model.INFEASIBLE: "infeasible"}
    res = {"status": names.get(st, "unknown"), "proven": st in (cp_model.OPTIMAL,
                                                                  cp_model.INFEASIBLE),
           "seconds": round(sv.WallTime(), 3)}
    if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        res["makespan"] = int(sv.ObjectiveValue())
        res["bound"] = int(sv.BestObjectiveBound())
        res["starts"] = {f"{blocks[b][0]}/{k}": int(sv.Value(s)) for (b, k), s in start.items()}
    return res


def main():
    ap = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    ap.add_argument("placement")
    ap.add_argument("-n", "--micro-batches", type=int, required=True)
    ap.add_argument("--memory", help="one capacity, or one per device (a,b,...); default: the "
                                     "placement's 'capacity', else unconstrained")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--monotone", action="store_true")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    blocks, edges, nd, pcap = read_placement(a.placement)
    if a.micro_batches < 1:
        fail("-n: at least 1 micro-batch")
    cap = capacities(a.memory if a.memory is not None else pcap, nd)
    r = solve(blocks, edges, nd, a.micro_batches, cap, a.time_limit, a.workers, a.monotone)
    if a.json:
        print(json.dumps(r))
    elif r["status"] == "infeasible":
        print("infeasible proven")
    elif "makespan" not in r:
        print("unknown")
    else:
        print(f"{'optimum' if r['proven'] else 'best'} {r['makespan']} "
              f"{'proven' if r['proven'] else 'not proven'} (bound {r['bound']}, "
              f"{r['seconds']} s)")


if __name__ == "__main__":
    main()
