#!/usr/bin/env python3
"""tessel plan's torchtitan settings read by torchtitan's own job-file parser (issue 45).

usage: titan_jobfile.py TESSEL MODELS_DIR TITAN_SITE

`tessel plan` writes a [parallelism] / [training] / [activation_checkpoint] job file, the
format of torchtitan's releases up to 0.2 (0.3.0 configures jobs by Python functions instead).
TITAN_SITE holds torchtitan 0.2.2's files (`.ci/install-deps torch` puts them under .venv,
apart from the 0.3.0 that tessel.torch's tests use). For the fitting plans of several rankings
(dense, MoE with expert parallelism, 128K tokens with context parallelism, FSDP, a pipeline
with uneven first and last stages), each plan's settings are written as a job file and parsed
by that release's ConfigManager (`--job.config_file`), which refuses a key it does not know;
every value must come back as written, every value of a field typed as a choice (a Literal)
must be one of its choices, and the schedule's name must be one torch's get_schedule_class
knows. The same for tessel.torch's torchtitan_config (its plans on a linear, V and 3-stages-a-
rank layout, from a profile made up here). torchtitan's package __init__ imports its tokenizers and datasets, which the parser does
not need: the package is entered without it (its modules are torchtitan's own files). Exit 0
when all pass, 1 otherwise."""
import json
import os
import subprocess
import sys
import tempfile
import types
import typing

tessel, models, site = sys.argv[1:4]
pkg = types.ModuleType("torchtitan")
pkg.__path__ = [os.path.join(site, "torchtitan")]
sys.modules["torchtitan"] = pkg
from torchtitan.config.manager import ConfigManager  # noqa: E402
from torch.distributed.pipelining.schedules import get_schedule_class  # noqa: E402

RUNS = [
    ("llama3-70b", "h100-80gb", 64, 128, []),
    ("mixtral-8x7b", "h100-80gb", 64, 256, ["--seq", "4096"]),
    ("llama3-8b", "h100-80gb", 64, 64, ["--seq", "131072"]),
    ("llama3-8b", "h100-80gb", 64, 64, ["--seq", "131072", "--cp-comm", "allgather"]),
    ("llama3-405b", "h100-80gb", 1024, 512, ["--first-stage-layers", "7",
                                             "--last-stage-layers", "7", "--pipeline", "16"]),
    ("gpt3-13b", "a100-80gb", 32, 256, ["--framework", "fsdp"]),
    ("llama3-8b", "h100-80gb", 16, 128, ["--framework", "fsdp", "--recompute", "full"]),
]


def toml_value(v):
    return json.dumps(v)


def check(settings, where):
    """The job file of settings through torchtitan's parser: a list of what went wrong."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        for section, kv in settings.items():
            f.write("[%s]\n" % section)
            f.writelines("%s = %s\n" % (k, toml_value(v)) for k, v in kv.items())
        path = f.name
    try:
        cfg = ConfigManager().parse_args(["--job.config_file", path])
    except BaseException as exc:  # its parser exits (SystemExit) on a key it does not know
        return ["%s: torchtitan refuses the job file: %r\n%s" % (where, exc, open(path).read())]
    finally:
        os.unlink(path)
    bad = []
    for section, kv in settings.items():
        obj = getattr(cfg, section)
        hints = typing.get_type_hints(type(obj))
        for k, v in kv.items():
            if getattr(obj, k) != v:
                bad.append("%s: [%s] %s is %r, written %r" % (where, section, k, getattr(obj, k), v))
            choices = typing.get_args(hints[k]) if typing.get_origin(hints[k]) is typing.Literal \
                else None
            if choices is not None and v not in choices:
                bad.append("%s: [%s] %s = %r is not one of %s" % (where, section, k, v, choices))
    try:
        get_schedule_class(settings["parallelism"]["pipeline_parallel_schedule"])
    except ValueError as exc:
        bad.append("%s: %s" % (where, exc))
    return bad


def torch_plans():
    """tessel.torch's settings for a few plans of a made-up profile: (where, settings)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import tessel.torch as tt
    prof = tt.Profile([tt.StageProfile(1e-3, 2e-3, 1e-3, 1e-3, 1000, 500, 64)] * 6,
                      [0.0] * 6, 0.0, 2)
    out = []
    for layout, modules in (("linear", 2), ("v", 4), ([0, 1, 0, 1, 0, 1], 6)):
        p = prof if modules == 6 else prof.merged([[i] for i in range(modules - 1)]
                                                  + [list(range(modules - 1, 6))])
        plan = tt.search(p, layout, 8, time_limit=5)
        out.append(("tessel.torch %s" % (layout,),
                    tt.torchtitan_keys(plan, "s.csv", microbatch_size=2, num_layers=10)))
    out.append(("tessel.torch GPipe", tt.torchtitan_keys(
        tt.plan.pytorch_plan(prof.merged([[0, 1, 2], [3, 4, 5]]), "GPipe", 8), "s.csv")))
    return out


def main():
    fails, checked = [], 0
    for where, settings in torch_plans():
        checked += 1
        fails += check(settings, where)
    for model, hw, gpus, batch, extra in RUNS:
        p = subprocess.run([tessel, "plan", "--models-dir", models, "--model", model,
                            "--hardware", hw, "--gpus", str(gpus), "--global-batch", str(batch),
                            "--search-top", "0", "--top", "10", "--json"] + extra,
                           capture_output=True, text=True)
        if p.returncode != 0:
            fails.append("%s %s: tessel plan exit %d: %s" % (model, extra, p.returncode,
                                                           p.stderr[-300:]))
            continue
        for x in json.loads(p.stdout)["plans"]:
            settings = x["launch"]["torchtitan"]
            if x["fits"] and settings is not None:
                checked += 1
                fails += check(settings, "%s %s" % (model, x["name"]))
    for f in fails:
        print("FAIL " + f)
    print("%s torchtitan 0.2.2's parser read %d plans' job files" % (
        "ok  " if not fails and checked else "FAIL", checked))
    return 1 if fails or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
