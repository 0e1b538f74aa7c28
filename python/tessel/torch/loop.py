"""Closing the loop: run plans for a few steps, compare each measured median with its
prediction, and re-profile and re-search when the chosen plan is off by more than a threshold."""

from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from .plan import Plan, compare
from .profile import Profile
from .profiler import profile
from .runner import Runner


def measure(stages_fn: Callable[[], Sequence[torch.nn.Module]], plans: Sequence[Plan],
            loss_fn: Callable[[Any, Any], torch.Tensor], inputs: Any, target: Any,
            steps: int = 10, warmup: int = 2, **runner_kw) -> List[Dict[str, Any]]:
    """Each plan run for warmup + steps steps on fresh modules from stages_fn() (the same on
    every rank), gradients zeroed between steps; one Runner.report() per plan, in order, with
    its step times ("times_s"). Every rank calls it."""
    out = []
    sample = _micro(inputs, plans[0].n_microbatches)
    for plan in plans:
        runner = Runner(stages_fn(), plan, loss_fn, sample, **runner_kw)
        for _ in range(warmup + steps):
            runner.zero_grad()
            runner.step(inputs, target)
        rep = runner.report(skip=warmup)
        rep["times_s"] = runner.times[warmup:]
        out.append(rep)
    return out


def _micro(x, n):
    return x.tensor_split(n)[0] if isinstance(x, torch.Tensor) else x


def tune(stages_fn: Callable[[], Sequence[torch.nn.Module]],
         loss_fn: Callable[[Any, Any], torch.Tensor], inputs: Any, target: Any,
         n_microbatches: int = 8, memory=None, threshold: float = 0.10, steps: int = 10,
         warmup: int = 2, rounds: int = 2, reps: int = 5, time_limit: float = 30,
         prof: Optional[Profile] = None) -> Dict[str, Any]:
    """Profile, compare, run the fastest predicted plan for `steps` steps and compare its
    median with the prediction; while they differ by more than threshold (a fraction), profile
    again with twice the repetitions and search again, up to `rounds` rounds. Returns {"plan":
    the last plan, "rounds": [{"profile", "plans", "report"}, ...]}. Every rank calls it."""
    history = []
    for r in range(rounds):
        micro_x, micro_y = _micro(inputs, n_microbatches), _micro(target, n_microbatches)
        if prof is None or r > 0:
            prof = profile(stages_fn(), micro_x, micro_y, loss_fn, reps=reps * (2 ** r))
        plans = compare(prof, n_microbatches, memory, time_limit=time_limit)
        best = plans[0]
        report = measure(stages_fn, [best], loss_fn, inputs, target, steps, warmup)[0]
        history.append({"profile": prof, "plans": plans, "report": report})
        if abs(report["error"]) <= threshold:
            break
    return {"plan": history[-1]["plans"][0], "rounds": history}
