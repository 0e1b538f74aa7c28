#!/usr/bin/env python3
"""Rows of tests/fixtures/cm_peer_makespans.tsv, made by the zero-bubble repository's own
schedulers (sail-sg/zero-bubble-pipeline-parallelism): zbv_greedy.py's V-Min and V-Half (the
pattern, then its two reorderings, as its create_schedule runs them) and zbv.py's ZB-V greedy
(its four fill settings, the one with the smallest bubble kept as its create_schedule keeps it,
at its default cap of 2D chunks), on the V placement with F = B = W = 1 and no communication
cost. makespan: the latest end over all passes of the schedule's own timing; peak: the largest
running memory of a device's order in vshape_v_zb's units (F +2, B -1, W -1).

usage: peer_cm_fixture.py PEER_CHECKOUT D:N [D:N ...]   (prints the fixture's rows)

Only the two scheduler files and graph.py are loaded, by path, so nothing of Megatron or
PyTorch is needed; nothing of the peer is kept here.
"""
import importlib.util
import sys
import types

PKG = "megatron.core.pipeline_parallel.zerobubble.scheduler"


def load(root, name):
    """The peer's module PKG.name, from its file, under its own name (its imports resolve)."""
    parts = PKG.split(".")
    for i in range(1, len(parts) + 1):
        pkg = sys.modules.setdefault(".".join(parts[:i]), types.ModuleType(".".join(parts[:i])))
        pkg.__path__ = []
    if name != "graph":
        load(root, "graph")
    full = f"{PKG}.{name}"
    if full not in sys.modules:
        path = f"{root}/{PKG.replace('.', '/')}/{name}.py"
        spec = importlib.util.spec_from_file_location(full, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[full] = mod
        spec.loader.exec_module(mod)
    return sys.modules[full]


def peak_of(orders):
    """Largest running memory over the devices' orders of (category 0 F / 1 B / 2 W) passes."""
    worst = 0
    for order in orders:
        cur = 0
        for cat in order:
            cur += (2, -1, -1)[cat]
            worst = max(worst, cur)
    return worst


def cm(root, D, N, config):
    zg = load(root, "zbv_greedy")
    g = zg.PipelineGraph(D, N, config, 1, 1, 1, 0)
    pattern = {"min": g.stable_pattern_v_min, "half": g.stable_pattern_v_half}[config](D)
    _, start, order = g.schedule_from_pattern(pattern, N, [1] * 6, do_reorder=True)
    makespan = max(t + 1 for dev in start for typ in dev for t in typ)
    return makespan, peak_of([[typ // 2 for typ, _ in dev] for dev in order])


def zbv(root, D, N):
    zv = load(root, "zbv")
    best = None
    for fill_b in (True, False):
        for fill_f in (True, False):
            g = zv.PipelineGraph(D, N, 1, 1, 1, 0, 2, -1, -1)
            sched, end, bubble = g.try_v_schedule(fill_b=fill_b, fill_f=fill_f)
            if best is None or bubble < best[2]:
                best = (sched, end, bubble)
    sched, end, _ = best
    return max(end), peak_of([[cat for cat, _, _ in dev] for dev in sched])


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    root = argv[1]
    for arg in argv[2:]:
        D, N = map(int, arg.split(":"))
        for kind, fn in (("v-min", lambda: cm(root, D, N, "min")),
                         ("v-half", lambda: cm(root, D, N, "half")),
                         ("zb-v-greedy", lambda: zbv(root, D, N))):
            mk, peak = fn()
            print(f"{kind} {D} {N} {mk} {peak}")


if __name__ == "__main__":
    main(sys.argv)
