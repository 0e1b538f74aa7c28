"""Placements in measured units: a profile and a layout make a tessel Placement whose spans are
the measured times (times the profile's compute_scale) plus the runtime's cost per action, in
units of unit_s seconds, whose
memory is in bytes (in a power-of-two multiple of bytes when the figures pass the format's
limit), and whose edges between ranks carry the measured transfer as a delay."""

import math
from typing import List, Optional, Sequence, Union

from ..placement import Placement
from .layout import Layout, group_stages, layout_name, pipeline_ranks
from .profile import Profile

# the placement format's limits (src/core/placement/ts_placement.h)
MAX_SPAN, MAX_MEMORY, MAX_DELAY = 1000000, 1000000000, 1000000
Memory = Union[int, Sequence[int], None]


def default_unit(profile: Profile, resolution: int = 50) -> float:
    """A span unit such that the longest action of one module (with the cost per action) is
    `resolution` units: finer units cost the search time, coarser ones lose precision."""
    longest = profile.compute_scale * max(max(s.forward_s, s.backward_s, s.input_grad_s,
                                              s.weight_grad_s) for s in profile.stages)
    longest += profile.overhead_s
    return max(longest / resolution, 1e-9)


def _capacities(memory: Memory, ranks: int, params: List[int], acts: List[int]):
    """Per-rank capacity in bytes left for activations (memory minus weights and gradients), or
    None. Raises ValueError naming `memory` when it is malformed or too small."""
    if memory is None:
        return None
    caps = [memory] * ranks if isinstance(memory, (int, float)) else list(memory)
    if len(caps) != ranks:
        raise ValueError("memory: %d capacities given for %d ranks" % (len(caps), ranks))
    left = []
    for r, cap in enumerate(caps):
        need = 2 * params[r] + acts[r]
        if cap < need:
            raise ValueError("memory: %d bytes on rank %d is too small: its stages' weights and "
                             "gradients (%d bytes) and one micro-batch's activations (%d bytes) "
                             "need %d" % (cap, r, 2 * params[r], acts[r], need))
        left.append(int(cap - 2 * params[r]))
    return left


def place(profile: Profile, layout: Layout = "linear", ranks: Optional[int] = None,
          chunks: int = 2, split_backward: bool = True, memory: Memory = None,
          unit_s: Optional[float] = None, name: Optional[str] = None) -> Placement:
    """The placement of the profiled modules under layout (see tessel.torch.layout) on ranks
    ranks (default: the profile's): the modules are cut into as many equal groups as the layout
    has stages; stage s gets F<s>, then B<s> (input gradient) and W<s> (weight gradient) when
    split_backward, else B<s> (full backward). memory: bytes per rank (one for all or a list),
    of which the weights and gradients of its stages are taken first. The result's .info holds
    unit_s, memory_unit (bytes per memory unit), stage_ranks, groups, layout and capacity."""
    ranks = ranks or profile.ranks
    stage_ranks = pipeline_ranks(layout, ranks, chunks)
    groups = group_stages(len(profile.stages), len(stage_ranks))
    prof = profile.merged(groups)
    unit_s = unit_s or default_unit(profile)
    o = profile.overhead_s
    params, acts = [0] * ranks, [0] * ranks
    for s, r in enumerate(stage_ranks):
        params[r] += prof.stages[s].param_bytes
        acts[r] += prof.stages[s].activation_bytes
    caps = _capacities(memory, ranks, params, acts)
    # bytes while they fit the format, else the smallest power of two that makes them fit
    biggest = max([sum(acts)] + (caps or []))
    munit = 1 << max(0, math.ceil(math.log2(max(biggest, 1) / MAX_MEMORY)))

    def span(t, scale=1.0):
        t *= profile.compute_scale * scale
        return min(MAX_SPAN, max(1, round((t + o) / unit_s)))

    def delay(s):
        return min(MAX_DELAY, round(prof.transfer_s[s] / unit_s))

    blocks, edges = [], []
    for s, (x, r) in enumerate(zip(prof.stages, stage_ranks)):
        blocks.append(("F%d" % s, "forward", span(x.forward_s),
                       math.ceil(x.activation_bytes / munit), [r]))
    n = len(stage_ranks)
    for s in reversed(range(n)):
        x, r, a = prof.stages[s], stage_ranks[s], math.ceil(prof.stages[s].activation_bytes / munit)
        if split_backward:
            k = profile.split_scale
            blocks.append(("B%d" % s, "backward", span(x.input_grad_s, k), -((a + 1) // 2), [r]))
            blocks.append(("W%d" % s, "backward", span(x.weight_grad_s, k), -(a // 2), [r]))
            edges.append(("B%d" % s, "W%d" % s))
        else:
            blocks.append(("B%d" % s, "backward", span(x.backward_s), -a, [r]))
    for s in range(n - 1):
        d = delay(s) if stage_ranks[s] != stage_ranks[s + 1] else 0
        edges.append(("F%d" % s, "F%d" % (s + 1), d, 0))
        edges.append(("B%d" % (s + 1), "B%d" % s, d, 0))
    edges.append(("F%d" % (n - 1), "B%d" % (n - 1)))
    cap = None if caps is None else [c // munit for c in caps]
    lname = layout_name(layout)
    p = Placement(name or "torch_%s%s" % (lname.replace(" ", "_"), "" if split_backward else "_b"),
                  ranks, blocks=blocks, edges=edges, capacity=cap)
    p.info = {"unit_s": unit_s, "memory_unit": munit, "stage_ranks": stage_ranks,
              "groups": groups, "layout": lname, "split_backward": split_backward,
              "capacity": cap}
    return p
