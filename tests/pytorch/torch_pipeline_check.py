#!/usr/bin/env python3
"""tessel.torch end to end on R processes (gloo, CPU, float64): profile, search, run, compare.

usage: torch_pipeline_check.py --ranks R

Each rank builds the same 2R stage modules (Linear(8, 8) + tanh, weights seeded by the module's
index), profiles them with tessel.torch.profile (in the process group), and for each case below
searches a schedule with tessel.torch.search (or takes a PyTorch class with pytorch_plan), runs
one training step of N = 2R micro-batches with tessel.torch.Runner and checks that the loss
(on the last stage's rank) and every gradient of every module equal the model run without a
pipeline in one process (relative error <= 1e-9). Cases, on R ranks: the V layout (2R stages),
an explicit stage -> rank map (R = 2: [0, 0, 1, 1]; R = 4: [1, 0, 3, 2], stage 0 on rank 1),
linear (R stages of two modules each) and PyTorch's ZBVZeroBubble run by its class; then
tessel.torch.tune runs once (every rank must choose the same plan and time 2 steps); on 4 ranks,
linear and tune are left out (the 2-rank launch runs them), to keep the launch short. Before the
launch, errors are checked without any process: a wrong stage count, a map naming a rank out of
range or leaving one idle, too little memory (ValueError naming the argument), and `import
tessel` without torch (works) and `import tessel.torch` without it (an ImportError that says
what is missing); within a memory limit, GPipe does not fit and compare()'s first plan does;

torchtitan (its release 0.3.0, installed by `.ci/install-deps torch`): for each case, the
settings tessel.torch.torchtitan_keys gives are read by torchtitan's own code: its
ParallelismConfig and TrainingConfig take them, its stage count (_get_pipeline_metadata) and
stage -> rank map (_get_pp_rank_to_stage_indices_mapping) are the plan's, and the schedule its
_build_pipeline_schedule makes from them (the CSV, for tessel's) runs one step on the plan's
stages with the same loss and gradients (torchtitan sums the micro-batches' gradients); an
explicit map that is neither a loop nor a V is refused with a ValueError. These are private
functions of torchtitan, pinned by its version. Exit 0 when all pass, 1 otherwise, 77 when
torch is not importable (1 with TESSEL_REQUIRE_TORCH=1); without torchtitan its part is skipped
(a failure with TESSEL_REQUIRE_TORCH=1).
"""
import faulthandler
import os
import types
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
try:
    import torch
    import torch.distributed as dist
    import torch.multiprocessing as mp
except ImportError as exc:
    print("torch_pipeline_check.py: PyTorch is not importable (%s)" % exc)
    sys.exit(1 if os.environ.get("TESSEL_REQUIRE_TORCH") == "1" else 77)
import tessel.torch as tt  # noqa: E402

try:
    from torchtitan.config import ParallelismConfig, TrainingConfig
    from torchtitan.distributed import pipeline_parallel as titan_pp
except ImportError as _exc:
    titan_pp, TITAN_MISSING = None, str(_exc)

WIDTH, ROWS, TOL = 8, 2, 1e-9


def modules(n):
    mods = []
    for i in range(n):
        torch.manual_seed(100 + i)
        mods.append(torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()).double())
    return mods


def loss_fn(out, tgt):
    return ((out - tgt) ** 2).mean()


def batch(n_micro):
    g = torch.Generator().manual_seed(7)
    return (torch.randn(n_micro * ROWS, WIDTH, generator=g, dtype=torch.float64),
            torch.randn(n_micro * ROWS, WIDTH, generator=g, dtype=torch.float64))


def reference(n_modules, n_micro):
    mods = modules(n_modules)
    x, y = batch(n_micro)
    losses = []
    for xm, ym in zip(x.chunk(n_micro), y.chunk(n_micro)):
        h = xm
        for m in mods:
            h = m(h)
        losses.append(loss_fn(h, ym))
    loss = torch.stack(losses).mean()
    loss.backward()
    return loss.detach(), [[p.grad.clone() for p in m.parameters()] for m in mods]


def rel(a, b):
    return float((a - b).norm() / max(float(b.norm()), 1e-30))


def cases(ranks):
    explicit = [0, 0, 1, 1] if ranks == 2 else [1, 0, 3, 2]
    linear = [("tessel linear", "linear")] if ranks == 2 else []
    return [("tessel v", "v"), ("tessel map %s" % explicit, explicit)] + linear + [
        ("PyTorch ZBVZeroBubble", None)]


def titan_check(plan, n_modules, x, y, rank, tmp):
    """torchtitan's code on the settings tessel gives for the plan (see the module's docstring):
    ("refused", message) for a map torchtitan cannot place, else ("ran", loss error, largest
    gradient error) against the model run without a pipeline."""
    ranks = plan.stage_ranks
    csv = os.path.join(tmp, "titan-rank%d.csv" % rank)
    try:
        keys = tt.torchtitan_keys(plan, csv, num_layers=n_modules)
    except ValueError as exc:
        return ("refused", str(exc))
    args = tt.torchtitan_args(plan, csv, num_layers=n_modules)
    if args != ["--%s.%s=%s" % (sec, k, v) for sec, kv in keys.items() for k, v in kv.items()]:
        raise AssertionError("the command line %s is not the settings %s" % (args, keys))
    par, train = ParallelismConfig(**keys["parallelism"]), TrainingConfig(**keys["training"])
    p = par.pipeline_parallel_degree
    n_stages = titan_pp._get_pipeline_metadata(types.SimpleNamespace(pp=p), par,
                                               types.SimpleNamespace(layers=[0] * n_modules))[0]
    if n_stages != len(ranks):
        raise AssertionError("torchtitan makes %d stages of %s, the plan has %d"
                             % (n_stages, keys, len(ranks)))
    for r in range(p):
        got = list(titan_pp._get_pp_rank_to_stage_indices_mapping(
            r, p, par.pipeline_parallel_schedule, n_stages))
        if got != [s for s, q in enumerate(ranks) if q == r]:
            raise AssertionError("torchtitan puts stages %s on rank %d, the plan %s"
                                 % (got, r, ranks))
    if plan.kind == "tessel":
        plan.to_pytorch_csv(csv)
    mods = modules(n_modules)
    runner = tt.Runner(mods, plan, loss_fn, x[:ROWS], device="cpu")
    # the runner's job file takes the micro-batch's rows from its sample
    conf = runner.torchtitan_config(csv)
    for want in ("pipeline_parallel_microbatch_size = %d" % ROWS,
                 "local_batch_size = %d" % (ROWS * plan.n_microbatches)):
        if want not in conf:
            raise AssertionError("the runner's torchtitan settings lack %r:\n%s" % (want, conf))
    sched = titan_pp._build_pipeline_schedule(
        parallelism=par, local_batch_size=train.local_batch_size, stages=runner.stages,
        loss_fn=lambda out, tgt: (loss_fn(out, tgt), None))
    losses = []
    dist.barrier()
    sched.step(*((x,) if runner.first else ()), target=y if runner.last else None,
               losses=losses if runner.last else None)
    ref_loss, ref_grads = reference(n_modules, plan.n_microbatches)
    # torchtitan's schedule sums the micro-batches' gradients (scale_grads=False)
    err = max(rel(p_.grad / plan.n_microbatches, g) if p_.grad is not None else float("inf")
              for s in runner.mine for i in plan.groups[s]
              for p_, g in zip(mods[i].parameters(), ref_grads[i]))
    loss_err = rel(torch.stack(losses).mean(), ref_loss) if runner.last else None
    return ("ran", loss_err, err)


def worker(rank, ranks, init, result):
    torch.set_num_threads(1)
    faulthandler.dump_traceback_later(120, exit=True)
    dist.init_process_group("gloo", rank=rank, world_size=ranks, init_method=init)
    n_modules, n_micro = 2 * ranks, 2 * ranks
    ref_loss, ref_grads = reference(n_modules, n_micro)
    x, y = batch(n_micro)
    prof = tt.profile(modules(n_modules), x[:ROWS], y[:ROWS], loss_fn, reps=1, warmup=0,
                      device="cpu", overhead_micro_batches=2)
    for name, layout in cases(ranks):
        mods = modules(n_modules)
        if layout is None:
            plan = tt.plan.pytorch_plan(prof, "ZBVZeroBubble", n_micro)
        else:
            plan = tt.search(prof, layout, n_micro, time_limit=10)
        runner = tt.Runner(mods, plan, loss_fn, x[:ROWS], device="cpu")
        loss = runner.step(x, y)
        err = 0.0
        for s in runner.mine:
            for i in plan.groups[s]:
                for p, g in zip(mods[i].parameters(), ref_grads[i]):
                    err = max(err, rel(p.grad, g) if p.grad is not None else float("inf"))
        loss_err = rel(loss, ref_loss) if loss is not None else None
        result[(name, rank)] = (loss_err, err, plan.stage_ranks, plan.predicted_s)
        dist.barrier()
        if titan_pp is not None:
            result[("titan " + name, rank)] = titan_check(plan, n_modules, x, y, rank,
                                                          os.path.dirname(init[len("file://"):]))
            dist.barrier()
    # the loop, once: profile, compare, run the fastest predicted, measured against predicted
    if ranks == 2:
        tune_once(n_modules, n_micro, x, y, rank, result)
    dist.destroy_process_group()


def tune_once(n_modules, n_micro, x, y, rank, result):
    tuned = tt.tune(lambda: modules(n_modules), loss_fn, x, y, n_micro, steps=2, warmup=1,
                    rounds=1, reps=1, time_limit=10)
    rep = tuned["rounds"][0]["report"]
    result[("tune", rank)] = (tuned["plan"].name, rep["steps"], rep["median_s"],
                              rep["predicted_s"])


def check_errors():
    """The errors a user meets before any process starts; a list of failures."""
    fails = []
    prof = tt.Profile([tt.StageProfile(1e-3, 2e-3, 1e-3, 1e-3, 1000, 500, 64)] * 4,
                      [0.0] * 4, 0.0, 2)
    for what, call, word in [
            ("3 stages on 2 ranks", lambda: tt.place(prof.merged([[0], [1], [2, 3]]), "v"),
             "stages"),
            ("a rank out of range", lambda: tt.place(prof, [0, 1, 2, 1]), "layout"),
            ("an idle rank", lambda: tt.place(prof, [0, 0, 0, 0]), "layout"),
            ("an unknown layout", lambda: tt.place(prof, "zigzag"), "layout"),
            ("memory too small", lambda: tt.place(prof, "v", memory=2000), "memory"),
            ("memory for 3 ranks", lambda: tt.place(prof, "v", memory=[10**6] * 3), "memory")]:
        try:
            call()
            fails.append("%s: no error" % what)
        except ValueError as exc:
            if not str(exc).startswith(word):
                fails.append("%s: the message does not name %r: %s" % (what, word, exc))
    code = ("import sys; sys.modules['torch'] = None; import tessel; "
            "print(tessel.Placement.from_builtin('vshape', 2).ndevs)\n"
            "try:\n    import tessel.torch\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python")))
    lines = out.stdout.splitlines()
    if out.returncode or len(lines) != 2 or lines[0] != "2" or "needs PyTorch" not in lines[1]:
        fails.append("without torch: exit %d, %r %s" % (out.returncode, out.stdout, out.stderr))
    return fails


def check_memory():
    """Within a memory limit: GPipe, which holds every micro-batch's activations, does not fit,
    the first plan compare() returns fits, and its simulated peak stays within the capacity."""
    act, par = 1000, 500
    prof = tt.Profile([tt.StageProfile(1e-3, 2e-3, 1e-3, 1e-3, act, par, 64)] * 4,
                      [0.0] * 4, 1e-4, 2)
    # a rank of the linear layout holds two modules: weights and gradients 2 * 2 * par, and
    # room for 3 micro-batches' activations of its stage (2 * act each)
    memory = 4 * par + 3 * 2 * act
    plans = tt.compare(prof, 8, memory=memory, time_limit=10)
    by = {p.name: p for p in plans}
    fails = []
    if by["GPipe"].fits:
        fails.append("GPipe fits %d bytes with a peak of %s" % (memory, by["GPipe"].peak_bytes))
    best = plans[0]
    cap = [c * best.placement.info["memory_unit"] for c in best.placement.info["capacity"]]
    if not best.fits or any(pk > c for pk, c in zip(best.peak_bytes, cap)):
        fails.append("%s: peak %s over the capacity %s" % (best.name, best.peak_bytes, cap))
    print("%-4s memory %d bytes per rank: first plan %s (peak %s), GPipe %s" % (
        "ok" if not fails else "FAIL", memory, best.name, best.peak_bytes,
        "does not fit" if not by["GPipe"].fits else "fits"))
    return fails


def check_titan_counts():
    """Without processes: a plan of 3 stages per rank in a loop, which torchtitan makes only when
    told pipeline_parallel_layers_per_stage: without num_layers a ValueError that asks for it;
    with it, torchtitan's own count and map are the plan's."""
    if titan_pp is None:
        return []
    prof = tt.Profile([tt.StageProfile(1e-3, 2e-3, 1e-3, 1e-3, 1000, 500, 64)] * 6,
                      [0.0] * 6, 0.0, 2)
    plan = tt.search(prof, [0, 1, 0, 1, 0, 1], 6, time_limit=5)
    fails = []
    try:
        tt.torchtitan_keys(plan, "s.csv")
        fails.append("6 stages on 2 ranks without num_layers: no error")
    except ValueError as exc:
        if "num_layers" not in str(exc):
            fails.append("6 stages without num_layers: %s" % exc)
    for layers in (10, 16, 30):
        par = ParallelismConfig(**tt.torchtitan_keys(plan, "s.csv",
                                                     num_layers=layers)["parallelism"])
        n = titan_pp._get_pipeline_metadata(types.SimpleNamespace(pp=2), par,
                                            types.SimpleNamespace(layers=[0] * layers))[0]
        maps = [list(titan_pp._get_pp_rank_to_stage_indices_mapping(
            r, 2, par.pipeline_parallel_schedule, n)) for r in range(2)]
        if n != 6 or maps != [[0, 2, 4], [1, 3, 5]]:
            fails.append("%d layers: torchtitan makes %d stages, %s" % (layers, n, maps))
    print("%-4s torchtitan: 6 stages on 2 ranks (layers per stage for 10, 16, 30 layers)"
          % ("ok" if not fails else "FAIL"))
    return fails


def report_titan(ranks, result):
    """torchtitan's part, one line per case: a map it cannot place must be refused (the explicit
    maps here are neither a loop nor a V), every other case must run as the reference."""
    if titan_pp is None:
        print("%s torchtitan is not importable (%s): its part is skipped" % (
            "FAIL" if os.environ.get("TESSEL_REQUIRE_TORCH") == "1" else "skip", TITAN_MISSING))
        return ["torchtitan"] if os.environ.get("TESSEL_REQUIRE_TORCH") == "1" else []
    fails = []
    for name, layout in cases(ranks):
        rows = [result.get(("titan " + name, r)) for r in range(ranks)]
        explicit = isinstance(layout, list)
        if any(r is None for r in rows):
            ok, what = False, "a rank gave no result"
        elif explicit:
            ok = all(r[0] == "refused" and "neither" in r[1] for r in rows)
            what = "refused: " + rows[0][1] if ok else "not refused: %s" % (rows,)
        else:
            ok = all(r[0] == "ran" and r[2] <= TOL and (r[1] is None or r[1] <= TOL)
                     for r in rows)
            what = "torchtitan's schedule: loss and gradients as without a pipeline (%s)" % (
                ", ".join("%.1e" % r[2] for r in rows) if all(r[0] == "ran" for r in rows)
                else rows)
        if not ok:
            fails.append("torchtitan " + name)
        print("%-4s torchtitan %-23s %s" % ("ok" if ok else "FAIL", name, what))
    return fails


def main(argv):
    ranks = int(argv[2]) if len(argv) > 2 and argv[1] == "--ranks" else 2
    fails = check_errors() + check_memory() + check_titan_counts()
    for f in fails:
        print("FAIL errors: " + f)
    print("errors before the launch: 7 checked" if not fails else "")
    with tempfile.TemporaryDirectory() as tmp:
        result = mp.Manager().dict()
        mp.spawn(worker, args=(ranks, "file://" + os.path.join(tmp, "rdv"), result),
                 nprocs=ranks, join=True)
        result = dict(result)
    print("%-28s %-26s %12s %12s %10s" % ("case (%d ranks)" % ranks, "stage -> rank",
                                          "loss rel err", "grad rel err", "predicted"))
    for name, _ in cases(ranks):
        rows = [result.get((name, r)) for r in range(ranks)]
        if any(r is None for r in rows):
            print("FAIL %s: a rank gave no result" % name)
            fails.append(name)
            continue
        loss_err = max(r[0] for r in rows if r[0] is not None)
        grad_err = max(r[1] for r in rows)
        ok = loss_err <= TOL and grad_err <= TOL
        if not ok:
            fails.append(name)
        print("%-4s %-23s %-26s %12.2e %12.2e %8.2fms" % ("ok" if ok else "FAIL", name,
                                                          rows[0][2], loss_err, grad_err,
                                                          1e3 * rows[0][3]))
    fails += report_titan(ranks, result)
    if ranks != 2:
        return 1 if fails else 0
    tuned = [result.get(("tune", r)) for r in range(ranks)]
    ok = all(t is not None and t[0] == tuned[0][0] and t[1] == 2 and t[2] > 0 for t in tuned)
    if not ok:
        fails.append("tune")
    print("%-4s tune: %s on every rank, 2 steps, median %.1f ms, predicted %.1f ms" % (
        "ok" if ok else "FAIL", tuned[0][0] if tuned[0] else None,
        1e3 * (tuned[0][2] if tuned[0] else 0), 1e3 * (tuned[0][3] if tuned[0] else 0)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
