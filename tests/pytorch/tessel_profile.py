#!/usr/bin/env python3
"""Measured per-stage times of a PyTorch model, and the Tessel placement they make.

  measure(modules, first_input, target, loss_fn, reps) -> profile
      Runs each stage module on its own (one process, in order, each stage fed the previous
      stage's output) and times, as the median of `reps` runs after one warm-up, its forward
      (the last stage's includes the loss), its input gradient I (autograd.grad of the output
      with respect to the input only) and its weight gradient W (autograd.grad with respect to
      the parameters), in microseconds (time.perf_counter, rounded to 0.1 us), and the bytes of
      its output activation. Stage 0's input is token ids: its I is 0.
  python3 tessel_profile.py PROFILE.json --layout linear|interleaved|v [--unit-us U] [-o FILE]
      The placement (tessel-placement/1) of the profile: stage s gets a forward block F<s>
      (span = its forward time), an input-gradient block B<s> and a weight-gradient block W<s>
      (vshape_zb's split), in units of U microseconds (default: the largest of the stage's
      times / 100), each span rounded to the nearest unit and at least 1. Memory is the output
      activation in MiB rounded up (at least 1): F<s> allocates it, B<s> frees half (rounded
      up), W<s> the rest. Stage s runs on rank s (linear; as many ranks as stages), s mod D
      (interleaved) or, for 2D stages, min(s, 2D-1-s) (v). The unit is printed on stderr.

Profile format ("tessel-profile/1"): {"format", "unit": "us", "stages": [{"forward_us",
"input_grad_us", "weight_grad_us", "activation_bytes"}]}.
"""
import json
import math
import statistics
import sys
import time


def _timed(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return round(statistics.median(times) * 1e6, 1)


def measure(modules, first_input, target, loss_fn, reps=5):
    import torch

    stages, x = [], first_input
    for s, mod in enumerate(modules):
        last = s == len(modules) - 1
        leaf = x.detach().requires_grad_(x.is_floating_point())

        def fwd():
            out = mod(leaf)
            return loss_fn(out, target) if last else out

        t_f = _timed(fwd, reps)
        out = mod(leaf)
        act = out.numel() * out.element_size()
        y = loss_fn(out, target) if last else out
        grad = None if last else torch.ones_like(y)
        params = [p for p in mod.parameters() if p.requires_grad]
        t_i = 0.0
        if leaf.requires_grad:
            t_i = _timed(lambda: torch.autograd.grad(y, [leaf], grad, retain_graph=True), reps)
        t_w = _timed(lambda: torch.autograd.grad(y, params, grad, retain_graph=True), reps)
        stages.append({"forward_us": t_f, "input_grad_us": t_i, "weight_grad_us": t_w,
                       "activation_bytes": act})
        x = out.detach()
    return {"format": "tessel-profile/1", "unit": "us", "stages": stages}


def rank_of(s, n_stages, ranks, layout):
    if layout == "linear":
        return s
    if layout == "interleaved":
        return s % ranks
    return min(s, n_stages - 1 - s)


def placement(profile, layout, unit_us=None, name=None):
    st = profile["stages"]
    n = len(st)
    ranks = {"linear": n, "interleaved": None, "v": n // 2}[layout]
    if layout == "interleaved":
        raise_if(n % 2, "interleaved needs an even stage count")
        ranks = n // 2
    if layout == "v":
        raise_if(n % 2, "v needs an even stage count")
    if unit_us is None:
        unit_us = max(max(x["forward_us"], x["input_grad_us"], x["weight_grad_us"]) for x in st)
        unit_us /= 100
    span = lambda t: max(1, round(t / unit_us))
    blocks, edges = [], []
    for s, x in enumerate(st):
        m = max(1, math.ceil(x["activation_bytes"] / 2**20))
        r = rank_of(s, n, ranks, layout)
        blocks.append({"id": f"F{s}", "kind": "forward", "span": span(x["forward_us"]),
                       "memory": m, "devices": [r]})
        x["_m"], x["_r"] = m, r
    for s in reversed(range(n)):
        x = st[s]
        blocks.append({"id": f"B{s}", "kind": "backward", "span": span(x["input_grad_us"]),
                       "memory": -((x["_m"] + 1) // 2), "devices": [x["_r"]]})
        blocks.append({"id": f"W{s}", "kind": "backward", "span": span(x["weight_grad_us"]),
                       "memory": -(x["_m"] // 2), "devices": [x["_r"]]})
        edges.append([f"B{s}", f"W{s}"])
        if s > 0:
            edges.append([f"B{s}", f"B{s - 1}"])
        del x["_m"], x["_r"]
    chain = [f"F{s}" for s in range(n)] + [f"B{n - 1}"]
    return {"format": "tessel-placement/1", "name": name or f"profiled_{layout}", "ndevs": ranks,
            "blocks": blocks, "chains": [chain], "edges": edges}, unit_us


def raise_if(cond, msg):
    if cond:
        raise SystemExit(f"tessel_profile.py: {msg}")


def main(argv):
    args = argv[1:]
    if not args or args[0].startswith("-"):
        raise SystemExit(__doc__)
    path, layout, unit, out = args[0], "linear", None, "-"
    rest = args[1:]
    while rest:
        if rest[0] == "--layout" and len(rest) > 1:
            layout = rest[1]
        elif rest[0] == "--unit-us" and len(rest) > 1:
            unit = float(rest[1])
        elif rest[0] == "-o" and len(rest) > 1:
            out = rest[1]
        else:
            raise SystemExit(__doc__)
        rest = rest[2:]
    raise_if(layout not in ("linear", "interleaved", "v"), f"unknown layout '{layout}'")
    try:
        with open(path) as f:
            prof = json.load(f)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"{path}: cannot read the profile: {exc}")
    raise_if(prof.get("format") != "tessel-profile/1", f"{path}: not a tessel-profile/1 file")
    p, unit = placement(prof, layout, unit)
    print(f"tessel_profile.py: 1 span unit = {unit:.1f} us", file=sys.stderr)
    text = json.dumps(p, indent=1) + "\n"
    if out == "-":
        sys.stdout.write(text)
    else:
        with open(out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
