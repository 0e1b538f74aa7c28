"""The calls: search, baseline, compare, model, placement_from_model and plan, each the command
of that name run in this process by the C library."""

import ctypes
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import _lib
from ._lib import Progress
from ._ops import _request, _table
from .placement import Placement, _placement
from .schedule import Schedule

# A capacity: one for every device, one per device, or None (no limit).
Memory = Union[int, Sequence[int], None]


class CancelToken:
    """Cancels a search from another thread: pass it as search(..., cancel=token) and call
    token.cancel(); the search stops at its next check of the time limit (a solver call under
    way runs to its own timeout first) and raises Cancelled. One token per search."""

    def __init__(self) -> None:
        self._flag = ctypes.c_int(0)

    def cancel(self) -> None:
        self._flag.value = 1

    @property
    def cancelled(self) -> bool:
        return bool(self._flag.value)


def _keys(**kw):
    """Keyword arguments as the request's keys: the command line's flag names."""
    return {k.replace("_", "-"): v for k, v in kw.items() if v is not None}


_NONE: Any = object()


def search(placement: Placement, memory: Memory = _NONE, n: Optional[int] = None,
           method: str = "auto", time_limit: Optional[float] = None, k: Optional[int] = None,
           accept: Optional[float] = None, per_period: Optional[int] = None,
           effort: Optional[float] = None, gap: Optional[float] = None,
           seed: Optional[int] = None, candidates: Union[str, Sequence[str], None] = None,
           progress: Optional[Callable[[Progress], None]] = None,
           cancel: Optional[CancelToken] = None) -> Schedule:
    """`tessel search`: a schedule of placement within memory units per device: one capacity
    for every device, a list of one per device, None (no limit) or left out (the capacity the
    placement states); summarised at n micro-batches (default 128). method: auto (default),
    lazy, fast, full or modulo. candidates: the rows of auto's portfolio to run (names, a list
    or "a,b"; `tessel search --help` lists them). effort, gap, seed, time_limit, k, accept and
    per_period are the command line's options of those names. progress(Progress) is called
    during the search; cancel is a CancelToken. Returns a Schedule whose bytes are those of
    `tessel search -o FILE` for the same request."""
    req = _request("search", _placement(placement), method=method, n=n, time_limit=time_limit,
                   k=k, accept=accept, per_period=per_period, effort=effort, gap=gap,
                   seed=seed, candidates=candidates)
    if memory is not _NONE:
        req["memory"] = memory
    names = {row["key"]: py for py, row in _table("search").items()}
    reply = _lib.call("search", req, progress=progress, cancel=cancel, names=names)
    return Schedule(reply["schedule"], reply["summary"], where="search")


def operations() -> List[Dict[str, Any]]:
    """The operations with an option table (src/app/ops): one dict each, with where every front
    end offers it (cli, py, serve_path, serve_job), what it works on (subject) and its
    options."""
    return _lib.call("ops", {})["ops"]


def portfolio() -> List[Dict[str, str]]:
    """The rows of auto's portfolio in the order it runs them, each {name, doc}: the names
    search(candidates=...) takes."""
    return _lib.call("ops", {})["portfolio"]


def options(op: str = "search") -> List[Dict[str, Any]]:
    """The option table of an operation: one dict per option (its request field, Python keyword,
    command-line flag, type, range, help, the front ends that take it and why the others do
    not)."""
    for table in operations():
        if table["name"] == op:
            return table["options"]
    raise ValueError("no option table for the operation %r" % op)


def baseline(kind: str, placement: Placement, n: Optional[int] = None) -> Schedule:
    """`tessel baseline KIND`: the hand-made schedule of n micro-batches (default 128) by its
    published rule."""
    reply = _lib.call("baseline", _request("baseline", _placement(placement), kind=kind, n=n))
    return Schedule(reply["schedule"], reply["summary"], where=kind)


def baselines() -> List[Dict[str, Any]]:
    """The baseline kinds and what each fits (`tessel baseline --list`)."""
    return _lib.call("baseline", {})["baselines"]


def compare(placement: Placement, memory: Memory = _NONE, n: Optional[int] = None,
            methods: Union[str, Sequence[str], None] = None, time_limit: Optional[float] = None,
            effort: Optional[float] = None, gap: Optional[float] = None,
            seed: Optional[int] = None, as_frame: Optional[bool] = None) -> Any:
    """`tessel compare --csv` as rows: every baseline that fits, then every search method (or
    the names in methods: a list, or "a,b"), measured at n micro-batches (default 128) within
    memory (one capacity for every device, a list of one per device, None for no limit, or left
    out: the capacity the placement states). time_limit (default 60), effort, gap and seed are
    the command line's options of those names. One dict per row with the CSV's columns; a
    pandas DataFrame when pandas is installed (as_frame=None) or asked for (True)."""
    req = _request("compare", _placement(placement), n=n, methods=methods,
                   time_limit=time_limit, effort=effort, gap=gap, seed=seed)
    if memory is not _NONE:
        req["memory"] = memory
    rows = _lib.call("compare", req)["rows"]
    if as_frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if as_frame:
            raise
        return rows
    return pandas.DataFrame(rows)


def model(name: str, hardware: Optional[str] = None, micro_batch_size: Optional[int] = None,
          tensor_parallel: Optional[int] = None, seq: Optional[int] = None,
          recompute: bool = False, models_dir: Optional[str] = None) -> Dict[str, Any]:
    """`tessel model NAME --json`: the model's layers (and, on hardware, their times and
    memory)."""
    return _lib.call("model", _request(
        "model", {"name": name}, hardware=hardware, micro_batch_size=micro_batch_size,
        tensor_parallel=tensor_parallel, seq=seq, recompute=recompute, models_dir=models_dir))


def placement_from_model(model: str, hardware: str, gpus: int, strategy: str,
                         micro_batch_size: Optional[int] = None,
                         tensor_parallel: Optional[int] = None, seq: Optional[int] = None,
                         chunks: Optional[int] = None, micro_batches: Optional[int] = None,
                         slices: Optional[int] = None, max_span: Optional[int] = None,
                         recompute: bool = False, infer: bool = False,
                         efficiency: Optional[float] = None,
                         workspace_gb: Optional[float] = None,
                         param_bytes: Optional[float] = None,
                         first_stage_param_cap_gb: Optional[float] = None,
                         comm: Optional[str] = None,
                         models_dir: Optional[str] = None) -> Placement:
    """`tessel placement --model ...`: the placement derived from a model on gpus GPUs of a
    hardware profile by a strategy; its .info is the derivation's summary (--json). param_bytes,
    first_stage_param_cap_gb and comm ("overlap" or "sync") are the command line's options of
    those names."""
    reply = _lib.call("placement_from_model", _request(
        "model_placement", {}, model=model, hardware=hardware, gpus=gpus, strategy=strategy,
        micro_batch_size=micro_batch_size, tensor_parallel=tensor_parallel, seq=seq,
        chunks=chunks, micro_batches=micro_batches, slices=slices, max_span=max_span,
        recompute=recompute, infer=infer, efficiency=efficiency, workspace_gb=workspace_gb,
        param_bytes=param_bytes, first_stage_param_cap_gb=first_stage_param_cap_gb, comm=comm,
        models_dir=models_dir))
    return Placement._reply(reply, info=reply["summary"])


def plan(model: str, hardware: str, gpus: int, global_batch: int, seq: Optional[int] = None,
         micro_batch_size: Optional[int] = None, tensor_parallel: Optional[int] = None,
         pipeline: Optional[int] = None, virtual_stages: Optional[int] = None,
         zero: Optional[int] = None, recompute: Optional[str] = None,
         sequence_parallel: Optional[bool] = None, tp_across_nodes: bool = False,
         tp_comm_overlap: Optional[str] = None,
         context_parallel: Optional[int] = None, cp_comm: Optional[str] = None,
         expert_parallel: Optional[int] = None, expert_tensor_parallel: Optional[int] = None,
         first_stage_layers: Optional[int] = None, last_stage_layers: Optional[int] = None,
         framework: Optional[str] = None, grad_dtype: Optional[str] = None,
         grad_overlap: Optional[str] = None, headroom: Optional[float] = None,
         strategies: Optional[Sequence[str]] = None, precision: Optional[str] = None,
         attention: Optional[str] = None, fp8_scaling: Optional[str] = None,
         infer: bool = False, top: Optional[int] = None,
         search_top: Optional[int] = None,
         time_limit: Optional[float] = None, effort: Optional[float] = None,
         gap: Optional[float] = None, seed: Optional[int] = None,
         efficiency: Optional[float] = None, models_dir: Optional[str] = None,
         cancel: Optional[CancelToken] = None) -> Dict[str, Any]:
    """`tessel plan --json`: the plan space of a model on gpus GPUs searched with the cost model
    (tensor parallelism, pipeline, strategy, virtual stages, ZeRO, recomputation none, selective,
    full or adaptive, micro-batch size: each auto unless given), the best plans with a pipeline
    searched for their schedule, ranked (fitting plans first, by iteration time); seq replaces
    the model's tokens per sample. time_limit,
    effort, gap and seed are each schedule search's, as in search(); cancel, a CancelToken,
    stops the schedule searches (raises Cancelled). Each searched plan that fits carries its
    Placement and Schedule."""
    if strategies is not None and not isinstance(strategies, str):
        strategies = list(strategies)
    req = _request("plan", {}, model=model, hardware=hardware, gpus=gpus,
                   global_batch=global_batch, seq=seq, micro_batch_size=micro_batch_size,
                   tensor_parallel=tensor_parallel, pipeline=pipeline,
                   virtual_stages=virtual_stages, zero=zero, recompute=recompute,
                   sequence_parallel=sequence_parallel, tp_across_nodes=tp_across_nodes,
                   tp_comm_overlap=tp_comm_overlap, context_parallel=context_parallel, cp_comm=cp_comm,
                   expert_parallel=expert_parallel,
                   expert_tensor_parallel=expert_tensor_parallel,
                   first_stage_layers=first_stage_layers, last_stage_layers=last_stage_layers,
                   framework=framework, grad_dtype=grad_dtype,
                   grad_overlap=grad_overlap, headroom=headroom,
                   strategies=strategies, precision=precision, attention=attention,
                   fp8_scaling=fp8_scaling,
                   infer=infer, top=top,
                   search_top=search_top, time_limit=time_limit, effort=effort, gap=gap,
                   seed=seed, efficiency=efficiency, models_dir=models_dir)
    reply = _lib.call("plan", req, cancel=cancel)
    for p in reply["plans"]:
        pj, st = p.pop("placement_json", None), p.pop("schedule_text", None)
        if pj is not None:
            p["placement"] = Placement(_dict=pj)
            p["schedule"] = Schedule(st, where=p.get("name", "plan"))
    return reply
