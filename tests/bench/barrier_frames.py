#!/usr/bin/env python3
"""Exhaustive search of one class of periodic schedules for a nested chain with barriers.

usage: barrier_frames.py PLACEMENT.json --per-period R --period P --memory C
                         [--json] [--schedule FILE -n N]

The placements: one path of blocks; every block either runs on one device or on every device (a
"barrier", holding no memory, such as nnshape's S1, S2, S2', S1'); each device holds two
single-device blocks of the path, the first holding +a and the second -a, and the devices meet
the second blocks in the reverse order of the first (a V). nnshape and mshape are of this kind.

The class: R micro-batches per period of P steps. Each period starts with one block of the R x (the
barriers' steps) barrier steps, the rest is the segment where the devices run their own blocks (so
every barrier waits for no block in flight: the one-boundary class of periodic_cpsat.py's
--boundaries 1). Every device runs, once per period, the R first and R second blocks of its own at
fixed offsets of the segment (its pattern). Given the patterns, starting every block at the first
step of its offset after its input is best for every device's memory at once, so a device's window
(from its first block's start to its second's) is a sum of hops between neighbours on the chain.
The search goes from the last device of the V to the first, keeping per pattern the Pareto set of
window vectors (one per micro-batch of the period) that the memory of every device below admits: it
finds a schedule of the class whenever one exists, or proves that none does. With --schedule, the
answer is written as a tessel-schedule/1 file of N micro-batches for `tessel validate` and `tessel
simulate`.

It rests on our own reasoning, not on a solver: the one-boundary runs of periodic_cpsat.py (CP-SAT)
are the independent check of its answers."""
import argparse
import json
import os
import sys


def fail(msg):
    print(f"barrier_frames: {msg}", file=sys.stderr)
    sys.exit(2)


def read_chain(path):
    """(nd, blocks, chain of block indices, barrier flags); refuses what is not a barrier V."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import exact_cpsat

    blocks, edges, nd, _ = exact_cpsat.read_placement(path)
    succ, pred = {}, {}
    for a, b, dl, dist in edges:
        if dl or dist:
            fail(f"{path}: edges with a delay or distance are not modelled here")
        if a in succ or b in pred:
            fail(f"{path}: not a single path (block {blocks[a][0]} or {blocks[b][0]} branches)")
        succ[a], pred[b] = b, a
    heads = [i for i in range(len(blocks)) if i not in pred]
    if len(heads) != 1:
        fail(f"{path}: not a single path ({len(heads)} blocks without an input)")
    chain, i = [], heads[0]
    while i is not None:
        chain.append(i)
        i = succ.get(i)
    if len(chain) != len(blocks):
        fail(f"{path}: not a single path (a cycle or a separate part)")
    barrier = [len(b[3]) == nd and nd > 1 for b in blocks]
    for i, b in enumerate(blocks):
        if barrier[i] and b[2]:
            fail(f"{path}: barrier block {b[0]} holds memory")
        if not barrier[i] and len(b[3]) != 1:
            fail(f"{path}: block {b[0]} runs on {len(b[3])} of {nd} devices")
    if not any(barrier):
        fail(f"{path}: no block runs on every device (without barriers the class would stop "
             "blocks at the period's end for nothing; use periodic_cpsat.py)")
    work = [i for i in chain if not barrier[i]]
    D = len(work) // 2
    if len(work) != 2 * D or sorted(blocks[i][3][0] for i in work[:D]) != list(range(nd)):
        fail(f"{path}: every device must hold two single-device blocks")
    for k in range(D):
        f, s = blocks[work[k]], blocks[work[2 * D - 1 - k]]
        if f[3] != s[3] or f[2] < 0 or f[2] != -s[2]:
            fail(f"{path}: blocks {f[0]} and {s[0]} are not a nested pair (+a then -a)")
    return nd, blocks, chain, barrier, work


def patterns(L, R, s1, s2):
    """Every placement, in a segment of L steps, of R first blocks (span s1) and R second blocks
    (span s2), one of each per micro-batch class: tuples (first offsets, second offsets)."""
    out = []
    items = [(0, c) for c in range(R)] + [(1, c) for c in range(R)]

    def rec(pos, left, first, second):
        if not left:
            out.append((tuple(first), tuple(second)))
            return
        if pos >= L:
            return
        rec(pos + 1, left, first, second)
        for it in left:
            span = s1 if it[0] == 0 else s2
            if pos + span <= L:
                (first if it[0] == 0 else second)[it[1]] = pos
                rec(pos + span, [x for x in left if x != it], first, second)
                (first if it[0] == 0 else second)[it[1]] = None

    rec(0, items, [None] * R, [None] * R)
    return out


class Frame:
    def __init__(self, P, G):
        self.P, self.G = P, G

    def after(self, t, off):
        """The first start >= t at segment offset off (real step G + off of some period)."""
        r = self.G + off
        return t + (r - t) % self.P

    def after_barrier(self, t):
        """The first step >= t that follows a whole barrier block (block k sits at [kP, kP+G))."""
        k = -(-t // self.P)
        return k * self.P + self.G


def hop(fr, t, span, crosses, off):
    """Start of the next chain block at offset off after one started at t, through barriers."""
    t += span
    if crosses:
        t = max(t, fr.after_barrier(t))
    return fr.after(t, off)


def search(nd, blocks, chain, barrier, work, R, P, C):
    # a frame holds every barrier of its R micro-batches whole: their steps, not their count
    nbar = sum(blocks[i][1] for i in range(len(blocks)) if barrier[i])
    G = R * nbar
    L = P - G
    if L <= 0:
        return None, "the barriers alone fill the period"
    fr = Frame(P, G)
    D = len(work) // 2
    pos = {b: k for k, b in enumerate(chain)}

    def crosses(u, v):
        return any(barrier[x] for x in chain[pos[u] + 1:pos[v]])

    pats = []
    for k in range(D):
        f, s = blocks[work[k]], blocks[work[2 * D - 1 - k]]
        pats.append(patterns(L, R, f[1], s[1]))

    def mem_ok(k, pat, win):
        a = blocks[work[k]][2]
        for t in range(P):
            n = sum(w // P + (1 if (t - (G + f)) % P < w % P else 0) for f, w in zip(pat[0], win))
            if n * a > C:
                return False
        return True

    def rel(u, v, off_u, off_v, t0=None):
        # hop length from u at offset off_u to v at offset off_v (start to start)
        t = G + off_u if t0 is None else t0
        return hop(fr, t, blocks[u][1], crosses(u, v), off_v) - t

    # level k: {pattern index: {window vector: back pointer}}
    k = D - 1
    u, v = work[k], work[D]
    level = {}
    for i, pat in enumerate(pats[k]):
        win = tuple(rel(u, v, pat[0][c], pat[1][c]) for c in range(R))
        if mem_ok(k, pat, win):
            level[i] = {win: None}
    back = [level]
    for k in range(D - 2, -1, -1):
        u, un = work[k], work[k + 1]
        w2, w2p = work[2 * D - 1 - k], work[2 * D - 2 - k]
        nxt = {}
        for j, q in enumerate(pats[k]):
            best = {}
            for i, wins in level.items():
                p = pats[k + 1][i]
                ext = [rel(u, un, q[0][c], p[0][c]) + rel(w2p, w2, p[1][c], q[1][c])
                       for c in range(R)]
                for win in wins:
                    w = tuple(win[c] + ext[c] for c in range(R))
                    if any(all(a <= b for a, b in zip(x, w)) for x in best):
                        continue
                    if not mem_ok(k, q, w):
                        continue
                    best = {x: bp for x, bp in best.items()
                            if not all(a <= b for a, b in zip(w, x))}
                    best[w] = (i, win)
            if best:
                nxt[j] = best
        level = nxt
        back.append(level)
        if not level:
            return None, f"no pattern fits the memory of the device at position {k} of the V"
    back.reverse()
    j, win = min(((j, w) for j, ws in level.items() for w in ws), key=lambda x: (max(x[1]), x[1]))
    choice = [j]
    for k in range(0, D - 1):
        j, win = back[k][j][win]
        choice.append(j)
    return {"patterns": [pats[k][choice[k]] for k in range(D)], "frame": fr,
            "window": list(min((w for w in back[0][choice[0]]), key=lambda w: (max(w), w)))}, None


def starts_of(nd, blocks, chain, barrier, work, R, ans, n):
    """Real starts (block index, micro) -> step for n micro-batches of the periodic answer."""
    fr, pats, P, G = ans["frame"], ans["patterns"], ans["frame"].P, ans["frame"].G
    D = len(work) // 2
    nbar = sum(blocks[i][1] for i in range(len(blocks)) if barrier[i])
    slot = {}
    base = {}
    for c in range(R):
        t = None
        k = 0
        for x in chain:
            if barrier[x]:
                continue
            off = pats[k][0][c] if k < D else pats[2 * D - 1 - k][1][c]
            if t is None:
                t = G + off + P * 4 * D  # room for the barriers before the first block
            else:
                t = hop(fr, t, blocks[prev][1],
                        any(barrier[y] for y in chain[chain.index(prev) + 1:chain.index(x)]), off)
            base[c, x] = t
            prev = x
            k += 1
        # barriers: each in the block occurrence between its neighbours, at its own slot
        bi = 0
        for idx, x in enumerate(chain):
            if not barrier[x]:
                continue
            slot[c, x] = c * nbar + bi
            bi += blocks[x][1]
            before = [y for y in chain[:idx] if not barrier[y]]
            if before:
                y = before[-1]
                blk = fr.after_barrier(base[c, y] + blocks[y][1]) - G
            else:
                y = next(y for y in chain[idx:] if not barrier[y])
                blk = (base[c, y] - G) // P * P
            base[c, x] = blk + slot[c, x]
    out = {}
    for m in range(n):
        c, j = m % R, m // R
        for x in chain:
            out[x, m] = base[c, x] + j * P
    lo = min(out.values())
    return {k: v - lo for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("placement")
    ap.add_argument("--per-period", type=int, required=True, help="R micro-batches per period")
    ap.add_argument("--period", type=int, required=True, help="P steps per period")
    ap.add_argument("--memory", type=int, required=True, help="capacity of every device")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--schedule", help="write the answer as a tessel-schedule/1 file")
    ap.add_argument("-n", type=int, default=0, help="micro-batches of --schedule")
    a = ap.parse_args()
    if a.per_period < 1 or a.period < 1 or a.memory < 0:
        fail("--per-period and --period must be at least 1, --memory at least 0")
    if a.schedule and a.n < 1:
        fail("--schedule needs -n N")
    nd, blocks, chain, barrier, work = read_chain(a.placement)
    ans, why = search(nd, blocks, chain, barrier, work, a.per_period, a.period, a.memory)
    res = {"per_period": a.per_period, "period": a.period, "memory": a.memory,
           "status": "feasible" if ans else "infeasible"}
    if ans:
        res["first_device_window"] = ans["window"]
        if a.schedule:
            starts = starts_of(nd, blocks, chain, barrier, work, a.per_period, ans, a.n)
            with open(a.placement) as f:
                pl = json.load(f)
            entries = [{"block": blocks[i][0], "micro": m, "step": t}
                       for (i, m), t in sorted(starts.items(), key=lambda kv: (kv[1], kv[0]))]
            with open(a.schedule, "w") as f:
                json.dump({"format": "tessel-schedule/1", "placement": pl, "memory": a.memory,
                           "nmicros": a.n,
                           "search": {"method": "barrier_frames", "per_period": a.per_period,
                                      "period": a.period}, "entries": entries}, f)
    else:
        res["why"] = why
    if a.json:
        print(json.dumps(res))
    elif ans:
        print(f"feasible: {a.per_period} per period {a.period} at memory {a.memory}, "
              f"first device's windows {ans['window']}")
    else:
        print(f"infeasible in the class: {why}")


if __name__ == "__main__":
    main()
