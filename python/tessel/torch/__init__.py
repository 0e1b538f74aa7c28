"""tessel.torch: from a PyTorch model cut into stage modules to a searched, running pipeline.

    import tessel.torch as tt
    prof = tt.profile(stages, sample, target, loss_fn)      # every rank, same process group
    plans = tt.compare(prof, n_microbatches=8)               # tessel's auto + PyTorch's classes
    runner = tt.Runner(stages, plans[0], loss_fn, sample)    # the fastest predicted
    for x, y in data:
        loss = runner.step(x, y)                             # the loss on the last stage's rank
    print(runner.report())                                   # measured against predicted
    tt.tune(make_stages, loss_fn, x, y)      # the loop: re-profile, re-search when it is off

profile() times each stage where it will run; place() makes a tessel Placement in measured units
(seconds quantised to a unit, memory in bytes); search() and compare() replay every schedule in
tessel's simulator; Runner runs one over torch.distributed.pipelining (PyTorch's classes by their
public API, tessel's schedules through the CSV runtime) and compares measured with predicted.
PyTorch (>= 2.5, with torch.distributed.pipelining) is needed by this module only.
"""

try:
    import torch as _torch
    from torch.distributed import pipelining as _pipelining  # noqa: F401
except ImportError as _exc:  # the rest of tessel works without torch
    raise ImportError("tessel.torch needs PyTorch >= 2.5 with torch.distributed.pipelining "
                      "(pip install torch): %s" % _exc) from _exc

from .layout import pipeline_ranks, group_stages
from .profile import Profile, StageProfile
from .profiler import Profiler, profile
from .place import place
from .plan import Plan, compare, pytorch_classes, repredict, search
from .runner import Runner
from .titan import torchtitan_args, torchtitan_config, torchtitan_keys
from .loop import measure, tune

__all__ = ["Profile", "StageProfile", "Profiler", "Plan", "Runner", "profile", "place",
           "search", "compare", "repredict", "pytorch_classes", "pipeline_ranks",
           "group_stages", "measure", "tune", "torchtitan_args", "torchtitan_config",
           "torchtitan_keys"]
