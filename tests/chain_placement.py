#!/usr/bin/env python3
"""Writes a long chain placement: N forward blocks then N backward blocks, round-robin on D
devices, each forward allocating one unit that its backward frees. Shared by the limits test
(tests/cli/limits.sh) and benchmark (tests/bench/bench_limits.sh).

usage: chain_placement.py OUT N D NAME"""
import json
import sys

out, n, d, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
blocks = [{"id": f"F{i}", "kind": "forward", "span": 1, "memory": 1, "devices": [i % d]}
          for i in range(n)]
blocks += [{"id": f"B{i}", "kind": "backward", "span": 1, "memory": -1, "devices": [i % d]}
           for i in reversed(range(n))]
edges = [[f"F{i}", f"F{i + 1}"] for i in range(n - 1)] + [[f"F{n - 1}", f"B{n - 1}"]]
edges += [[f"B{i}", f"B{i - 1}"] for i in range(n - 1, 0, -1)]
with open(out, "w") as f:
    json.dump({"format": "tessel-placement/1", "name": name, "ndevs": d, "blocks": blocks,
               "edges": edges}, f)
