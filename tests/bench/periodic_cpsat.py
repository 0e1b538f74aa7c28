#!/usr/bin/env python3
"""Does a periodic schedule with R micro-batches per period of P steps fit the memory? Google
OR-tools' CP-SAT decides it on a model built here from the placement file alone (no tessel code),
so that a claim like "no schedule of this class beats 9 steps a micro-batch" rests on a solver we
did not write.

usage: periodic_cpsat.py PLACEMENT.json --per-period R --period P --memory C
                         [--time-limit S] [--workers W] [--json]

The class: micro-batch c + jR (c < R, j >= 0) runs block b at g[c][b] + jP, the same pattern every
period, as a steady state does. Blocks on every device ("shards") stop the whole machine, so the
model works in gap time, the time between shard steps: the period holds R x (the shards' steps)
shard steps and L = P - R x (the shards' steps) gap steps. In gap time, the other blocks of each
device do not overlap on the circle of length L, none runs across a boundary (a point where shard
steps stand: at most R x (shards) of them per period, one of them at 0 without loss of generality),
an edge between two of them waits for the source's span (and delay), and an edge path u -> shard ->
... -> v needs a boundary between the end of u and the start of v. Memory counts starts in gap
time, which keep their order in real time: on each device, at every gap step x, the running sum of
the deltas of every started instance is at most C. Shards must hold no memory. Without shards it is
the plain modulo problem on a circle of length P (blocks may wrap).

Every start lies within a horizon of periods (twice one micro-batch's serial length plus two
periods per unit of capacity), and `infeasible proven` is proven within it (the JSON says how
many periods). Prints `feasible` with the latency of one period's micro-batches, `infeasible`, or
`unknown`; exit 0 unless the input is bad (2). With --schedule FILE -n N, a feasible answer is
also written as a tessel-schedule/1 file of N micro-batches (the pattern repeated, each shard at
the first boundary after its inputs, or the last before its outputs), so that `tessel validate`
checks the model's answer and `tessel simulate` gives its makespan."""
import argparse
import json
import os
import sys


def fail(msg):
    print(f"periodic_cpsat: {msg}", file=sys.stderr)
    sys.exit(2)


def read_placement(path):
    """Blocks (id, span, memory, devices), edges (src, dst, delay) and the device count, read by
    exact_cpsat.py's reader (the same file format); distance edges are refused."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import exact_cpsat

    blocks, edges, nd, _ = exact_cpsat.read_placement(path)
    if any(e[3] != 0 for e in edges):
        fail(f"{path}: distance edges are not modelled here")
    return nd, blocks, [(a, b, dl) for a, b, dl, _ in edges]


def build(nd, blocks, edges, R, P, C, kmax=0):
    from ortools.sat.python import cp_model

    shard = [len(b[3]) == nd and nd > 1 for b in blocks]
    if any(s and b[2] != 0 for s, b in zip(shard, blocks)):
        fail("a block on every device holds memory: not modelled here")
    work = [i for i in range(len(blocks)) if not shard[i]]
    nsh = sum(shard)
    # shard steps per micro-batch: a shard longer than a step stops the machine that long
    L = P - R * sum(b[1] for s, b in zip(shard, blocks) if s)
    if L <= 0:
        return None, "infeasible proven (the shards alone fill the period)"
    # the horizon: every start within nper periods of the first; a verdict "infeasible" is
    # proven within it (printed). Twice the serial length of one micro-batch, plus two periods per
    # unit of capacity: an activation held that long would hold more than C micro-batches.
    nper = 4 + sum(b[1] for b in blocks) // max(1, L) * 2 + 2 * C
    H = L * nper
    m = cp_model.CpModel()
    g, q, r = {}, {}, {}
    K = R * nsh if kmax <= 0 else min(kmax, R * nsh)
    beta = [0] + [m.NewIntVar(0, L - 1, f"beta{k}") for k in range(1, K)] if nsh else []
    for k in range(1, len(beta) - 1):
        m.Add(beta[k] <= beta[k + 1])
    for c in range(R):
        for i in work:
            g[c, i] = m.NewIntVar(0, H, "")
            q[c, i] = m.NewIntVar(0, nper, "")
            r[c, i] = m.NewIntVar(0, L - 1, "")
            m.Add(g[c, i] == q[c, i] * L + r[c, i])
            if nsh:
                span = blocks[i][1]
                m.Add(r[c, i] + span <= L)
                for k in range(1, K):
                    before = m.NewBoolVar("")
                    m.Add(r[c, i] + span <= beta[k]).OnlyEnforceIf(before)
                    m.Add(r[c, i] >= beta[k]).OnlyEnforceIf(before.Not())

    def boundary_between(lo, hi):
        lits = []
        for k in range(K):
            lit, qq = m.NewBoolVar(""), m.NewIntVar(0, nper + 1, "")
            m.Add(qq * L + beta[k] >= lo).OnlyEnforceIf(lit)
            m.Add(qq * L + beta[k] <= hi).OnlyEnforceIf(lit)
            lits.append(lit)
        m.AddBoolOr(lits)

    # edges between work blocks, and work -> shard* -> work paths (one boundary each)
    succ = {}
    for a, b, dl in edges:
        succ.setdefault(a, []).append((b, dl))
    for c in range(R):
        for a in work:
            stack, seen = [(b, dl, False) for b, dl in succ.get(a, [])], set()
            while stack:
                b, dl, via = stack.pop()
                if shard[b]:
                    if b not in seen:
                        seen.add(b)
                        stack += [(x, dl + d2, True) for x, d2 in succ.get(b, [])]
                    continue
                end = g[c, a] + blocks[a][1] + dl
                if via:
                    boundary_between(end, g[c, b])
                else:
                    m.Add(g[c, b] >= end)
    first = work[0]
    # shifting a copy by whole periods relabels its micro-batches: copy 0's first block starts in
    # the first period, and each copy's no earlier than the one before and within a period of it
    m.Add(g[0, first] < L)
    for c in range(R):
        for i in work:
            m.Add(g[c, i] >= 0)
    for c in range(R - 1):
        m.Add(g[c + 1, first] >= g[c, first])
    if R > 1:
        m.Add(g[R - 1, first] - g[0, first] < L)
    for d in range(nd):
        on = [i for i in work if d in blocks[i][3]]
        ivs = []
        for c in range(R):
            for i in on:
                if nsh:
                    ivs.append(m.NewFixedSizeIntervalVar(r[c, i], blocks[i][1], ""))
                else:
                    for sh in (0, L):
                        s = m.NewIntVar(0, 2 * L, "")
                        m.Add(s == r[c, i] + sh)
                        ivs.append(m.NewFixedSizeIntervalVar(s, blocks[i][1], ""))
        m.AddNoOverlap(ivs)
        memb = [i for i in on if blocks[i][2] != 0]
        if not memb:
            continue
        if sum(blocks[i][2] for i in memb) != 0:
            fail(f"device {d} keeps memory from every micro-batch: no capacity holds")
        off = nper + 2
        for x in range(L):
            terms = []
            for c in range(R):
                for i in memb:
                    num = m.NewIntVar(0, (off + nper + 2) * L, "")
                    m.Add(num == x - g[c, i] + off * L)
                    k = m.NewIntVar(0, off + nper + 2, "")
                    m.AddDivisionEquality(k, num, L)
                    terms.append(blocks[i][2] * k)
            # each instance counts once per start at or before x; the offsets cancel (net zero)
            m.Add(sum(terms) <= C)
    end = m.NewIntVar(0, H + 1000, "end")
    for (c, i), v in g.items():
        m.Add(end >= v + blocks[i][1])
    m.Minimize(end - g[0, first])
    return m, {"g": g, "beta": beta, "L": L, "work": work, "shard": shard, "horizon": nper}


def unroll(p, blocks, edges, sol, R, n):
    """The feasible pattern as wall-time starts of n micro-batches: (block index, micro) -> step."""
    L, shard, g = sol["L"], sol["shard"], sol["g"]
    pts = sorted(set(sol["beta"]))
    preds, succs = {}, {}
    for a, b, dl in edges:
        preds.setdefault(b, []).append((a, dl))
        succs.setdefault(a, []).append(b)
    # topological order of the blocks, for shards that meet at one point
    indeg = {i: 0 for i in range(len(blocks))}
    for a, b, _ in edges:
        indeg[b] += 1
    topo, ready = [], [i for i in indeg if not indeg[i]]
    while ready:
        i = ready.pop(0)
        topo.append(i)
        for b in succs.get(i, []):
            indeg[b] -= 1
            if not indeg[b]:
                ready.append(b)
    rank = {b: k for k, b in enumerate(topo)}
    gap, at = {}, {}
    for m in range(n):
        c, j = m % R, m // R
        for i in range(len(blocks)):
            if not shard[i]:
                gap[i, m] = g[c, i] + j * L
    for m in range(n):
        for i in topo:
            if not shard[i]:
                continue
            ins = [gap[a, m] + blocks[a][1] if not shard[a] else at[a, m] for a, _ in preds.get(i, [])]
            outs = [gap[b, m] for b in succs.get(i, []) if not shard[b]]
            if ins:
                lo = max(ins)
                at[i, m] = min(y * L + b for y in (lo // L, lo // L + 1) for b in pts
                               if y * L + b >= lo)
            else:
                hi = min(outs)
                at[i, m] = max(y * L + b for y in (hi // L - 1, hi // L) for b in pts
                               if y * L + b <= hi)
    order = sorted(at, key=lambda k: (at[k], rank[k[0]], k[1]))
    wall, before = {}, 0
    shard_pts, shard_upto = [], []
    for k in order:
        wall[k] = at[k] + before
        before += blocks[k[0]][1]
        shard_pts.append(at[k])
        shard_upto.append(before)
    import bisect
    for k, x in gap.items():
        j = bisect.bisect_right(shard_pts, x)
        wall[k] = x + (shard_upto[j - 1] if j else 0)
    lo = min(wall.values())
    return {k: v - lo for k, v in wall.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("placement")
    ap.add_argument("--per-period", type=int, required=True, help="R micro-batches per period")
    ap.add_argument("--period", type=int, required=True, help="P steps per period")
    ap.add_argument("--memory", type=int, required=True, help="capacity of every device")
    ap.add_argument("--boundaries", type=int, default=0,
                    help="at most this many boundary points per period (0: every shard step its own)")
    ap.add_argument("--time-limit", type=float, default=120)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--schedule", help="write a feasible answer as a tessel-schedule/1 file")
    ap.add_argument("-n", type=int, default=0, help="micro-batches of --schedule")
    a = ap.parse_args()
    if a.per_period < 1 or a.period < 1:
        fail("--per-period and --period must be at least 1")
    try:
        from ortools.sat.python import cp_model
    except ImportError:
        fail("needs ortools (.ci/install-deps python installs it into .venv)")
    nd, blocks, edges = read_placement(a.placement)
    m, model = build(nd, blocks, edges, a.per_period, a.period, a.memory, a.boundaries)
    early = model if isinstance(model, str) else None
    res = {"per_period": a.per_period, "period": a.period, "memory": a.memory}
    if early:
        res["status"] = "infeasible"
        res["proven"] = True
    else:
        s = cp_model.CpSolver()
        s.parameters.max_time_in_seconds = a.time_limit
        s.parameters.num_workers = a.workers
        st = s.Solve(m)
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            res["status"] = "feasible"
            res["gap_latency"] = int(s.ObjectiveValue())
            res["gap_period"] = model["L"]
            res["boundaries"] = sorted({int(s.Value(b)) if not isinstance(b, int) else b
                                        for b in model["beta"]})
            res["gap_starts"] = {f"{c}:{blocks[i][0]}": int(s.Value(v))
                                 for (c, i), v in model["g"].items()}
            if a.schedule:
                if a.n < 1:
                    fail("--schedule needs -n N")
                sol = {"L": model["L"], "shard": model["shard"],
                       "beta": [int(s.Value(b)) if not isinstance(b, int) else b
                                for b in model["beta"]] or [0],
                       "g": {k: int(s.Value(v)) for k, v in model["g"].items()}}
                starts = unroll(a.placement, blocks, edges, sol, a.per_period, a.n)
                with open(a.placement) as f:
                    pl = json.load(f)
                entries = [{"block": blocks[i][0], "micro": m, "step": t}
                           for (i, m), t in sorted(starts.items(), key=lambda kv: kv[1])]
                with open(a.schedule, "w") as f:
                    json.dump({"format": "tessel-schedule/1", "placement": pl,
                               "memory": a.memory, "nmicros": a.n,
                               "search": {"method": "periodic_cpsat", "per_period": a.per_period,
                                          "period": a.period}, "entries": entries}, f)
        elif st == cp_model.INFEASIBLE:
            res["status"], res["proven"] = "infeasible", True
            res["horizon_periods"] = model["horizon"]
        else:
            res["status"] = "unknown"
    if a.json:
        print(json.dumps(res))
    elif res["status"] == "feasible":
        print(f"feasible: {a.per_period} per period {a.period} at memory {a.memory} "
              f"(gap-time latency {res['gap_latency']})")
    elif res["status"] == "infeasible":
        print(f"infeasible proven: no schedule of {a.per_period} per period {a.period} fits "
              f"memory {a.memory}" + (f" (starts within {res['horizon_periods']} periods)"
                                      if "horizon_periods" in res else ""))
    else:
        print(f"unknown within {a.time_limit:g} s")


if __name__ == "__main__":
    main()
