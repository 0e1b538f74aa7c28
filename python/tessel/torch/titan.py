"""torchtitan's settings that run a plan. torchtitan (checked against its release 0.3.0, in
torchtitan/distributed/pipeline_parallel.py) builds the stages and the schedule itself, by rules
these settings must meet:
- the schedule's name goes through torch's get_schedule_class, which knows the PyTorch classes
  and PipelineScheduleSingle / PipelineScheduleMulti, not _PipelineScheduleRuntime; when a CSV
  is given, the schedule is _PipelineScheduleRuntime whatever the name, and the name only decides
  how the stages are counted and placed;
- stages go to ranks in a loop (stage s on rank s mod P), or as a V (rank r holds r and 2P-1-r)
  when the name is ZBVZeroBubble or DualPipeV; no other map can be written;
- a single-stage name makes P stages, any other 2P, unless pipeline_parallel_layers_per_stage is
  set: then ceil((layers + 2) / layers_per_stage) stages (the embedding and the head each count
  as a layer: first/last_stage_less_layers default to 1);
- micro-batches = training.local_batch_size / pipeline_parallel_microbatch_size."""

import math
from typing import Any, Dict, List, Optional

from torch.distributed.pipelining.schedules import PipelineScheduleSingle, get_schedule_class

from .plan import Plan

# torchtitan's two styles of stage placement (see the module's docstring)
_V_CLASSES = ("ZBVZeroBubble", "DualPipeV")


def _style(ranks: List[int]) -> Optional[str]:
    p = max(ranks) + 1
    if all(r == s % p for s, r in enumerate(ranks)):
        return "loop"
    if len(ranks) == 2 * p and ranks == list(range(p)) + list(range(p - 1, -1, -1)):
        return "v"
    return None


def _layers_per_stage(num_layers: int, n_stages: int) -> Optional[int]:
    """The pipeline_parallel_layers_per_stage for which torchtitan makes n_stages stages."""
    for lps in range(1, num_layers + 3):
        if math.ceil((num_layers + 2) / lps) == n_stages:
            return lps
    return None


def torchtitan_keys(plan: Plan, csv_path: str, microbatch_size: int = 1,
                    num_layers: Optional[int] = None) -> Dict[str, Dict[str, Any]]:
    """The [parallelism] and [training] settings of a torchtitan job that runs the plan, as
    {"parallelism": {...}, "training": {...}}. num_layers (the transformer layers of the
    torchtitan model) is needed only when the plan's stage count is not the one torchtitan makes
    by default for the schedule's name. ValueError when torchtitan cannot place the plan's stages
    (a map neither a loop nor a V) or cannot make its stage count."""
    ranks = plan.stage_ranks
    p, n_stages = max(ranks) + 1, len(ranks)
    style = _style(ranks)
    if plan.kind == "pytorch":
        name = plan.pytorch_class.replace("Schedule", "", 1)
        want = "v" if name in _V_CLASSES else "loop"
        if style != want:
            raise ValueError("plan %s: torchtitan places %s's stages as a %s, the plan has stage "
                             "-> rank %s" % (plan.name, name, want, ranks))
    elif style == "v":
        # the name that makes torchtitan place the stages as a V; the CSV gives the order
        name = "ZBVZeroBubble"
    elif style == "loop":
        name = "PipelineScheduleSingle" if n_stages == p else "PipelineScheduleMulti"
    else:
        raise ValueError("plan %s: torchtitan places stages in a loop (stage s on rank s mod %d) "
                         "or as a V; the plan's stage -> rank map %s is neither"
                         % (plan.name, p, ranks))
    par: Dict[str, Any] = {"pipeline_parallel_degree": p,
                           "pipeline_parallel_schedule": name,
                           "pipeline_parallel_microbatch_size": microbatch_size}
    if plan.kind != "pytorch":
        par["pipeline_parallel_schedule_csv"] = csv_path
    default = p if issubclass(get_schedule_class(name), PipelineScheduleSingle) else 2 * p
    if n_stages != default:
        if num_layers is None:
            raise ValueError("plan %s: %d stages, where torchtitan makes %d for %s; give "
                             "num_layers (the model's transformer layers) to set "
                             "pipeline_parallel_layers_per_stage" % (plan.name, n_stages,
                                                                      default, name))
        lps = _layers_per_stage(num_layers, n_stages)
        if lps is None:
            raise ValueError("plan %s: no pipeline_parallel_layers_per_stage makes %d stages of "
                             "%d layers (+ embedding and head)" % (plan.name, n_stages,
                                                                    num_layers))
        par["pipeline_parallel_layers_per_stage"] = lps
    return {"parallelism": par,
            "training": {"local_batch_size": plan.n_microbatches * microbatch_size}}


def _value(v: Any) -> str:
    return '"%s"' % v if isinstance(v, str) else str(v)


def torchtitan_config(plan: Plan, csv_path: str, microbatch_size: int = 1,
                      num_layers: Optional[int] = None) -> str:
    """torchtitan_keys as the sections of a job file (TOML, the releases before 0.3.0), with a
    comment giving the stage count and map."""
    keys = torchtitan_keys(plan, csv_path, microbatch_size, num_layers)
    lines = ["# %d stages, stage -> rank %s, %d micro-batches per step"
             % (len(plan.stage_ranks), plan.stage_ranks, plan.n_microbatches)]
    for section, kv in keys.items():
        lines.append("[%s]" % section)
        lines += ["%s = %s" % (k, _value(v)) for k, v in kv.items()]
    return "\n".join(lines) + "\n"


def torchtitan_args(plan: Plan, csv_path: str, microbatch_size: int = 1,
                    num_layers: Optional[int] = None) -> List[str]:
    """torchtitan_keys as its command line's overrides (--parallelism.KEY=VALUE), which its
    releases from 0.1.0 on read, beside --module and --config."""
    keys = torchtitan_keys(plan, csv_path, microbatch_size, num_layers)
    return ["--%s.%s=%s" % (section, k, v) for section, kv in keys.items()
            for k, v in kv.items()]
