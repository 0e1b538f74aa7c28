"""Schedules: the text of a tessel-schedule/1 file (the bytes `tessel search -o FILE` writes)
with what the library measured of it, and the views and checks of the command line on it."""

import errno
import json
import os
import tempfile
from typing import Any, Dict, Optional, Union

from . import _lib
from ._ops import _request
from .placement import Placement, _placement


class Schedule:
    """A schedule. `record` is what the command line prints with --json for the call that made
    it (`tessel search --json`: method, the search's statistics and the figures at N; `tessel
    baseline --json`); `makespan` and `bound` are its figures at N."""

    def __init__(self, text: str, record: Optional[Dict[str, Any]] = None,
                 where: str = "schedule") -> None:
        self.text = text
        self._where = where
        self._record = record

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> "Schedule":
        """A schedule file, as it is."""
        with open(path) as f:
            return cls(f.read(), where=str(path))

    @classmethod
    def from_pytorch_csv(cls, path: Union[str, "os.PathLike[str]"], placement: Placement,
                         memory: Optional[int] = None) -> "Schedule":
        """`tessel import --pytorch`: torch.distributed.pipelining's compute-only action CSV at
        path as a schedule of placement (each rank's actions in the file's order, each as early
        as its inputs allow; a full backward B of a stage the placement splits is its I then
        its W), with memory recorded as every device's capacity when given."""
        return import_schedule(path, placement, format="pytorch", memory=memory)

    def _req(self, **kw):
        req = {"schedule": self.text, "where": self._where}
        req.update({k.replace("_", "-"): v for k, v in kw.items() if v is not None})
        return req

    def _op(self, op, table=None, **kw):
        """Operation op on this schedule: the keywords set under the fields of its table (of
        table's when given), as the C library's operations layer names them."""
        from ._ops import _request
        return _lib.call(op, _request(table or op, {"schedule": self.text, "where": self._where},
                                      **kw))

    @property
    def record(self) -> Dict[str, Any]:
        """The --json record of the call that made it; for a loaded file, its summary at its
        own micro-batches (micro_batches, makespan, bubble_rate, lower_bound, peak_memory, load,
        ratio, fits)."""
        if self._record is None:
            self._record = self.summary()
        return self._record

    @property
    def makespan(self) -> Optional[int]:
        return self.record["makespan"]

    @property
    def bound(self) -> Optional[int]:
        """The lower bound LB(N) at the record's N."""
        return self.record["lower_bound"]

    @property
    def micro_batches(self) -> int:
        return self.record["micro_batches"]

    def summary(self, n: Optional[int] = None) -> Dict[str, Any]:
        """Its figures at n micro-batches (default: its own), unrolled or cut and replayed as
        early as each device's order allows: `tessel compare`'s measure. A count it cannot be
        unrolled to raises, as simulate(n) and validate(n) do."""
        return self._op("summary", "simulate", n=n)

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.text)

    @property
    def placement(self) -> Placement:
        return Placement.from_dict(self.to_dict()["placement"], where=self._where)

    def simulate(self, n: Optional[int] = None, scale: Optional[Dict[str, float]] = None,
                 noise: float = 0.0, seed: int = 1, comm_delay: float = 0.0) -> Dict[str, Any]:
        """`tessel simulate --json`: replays each device's order with the spans as durations,
        scale {block id: factor}, seeded noise and a delay on edges between devices."""
        return self._op("simulate", n=n, scale=scale, noise=noise, seed=seed,
                        comm_delay=comm_delay)

    def validate(self, n: Optional[int] = None, monotone: bool = False,
                 ignore_memory: bool = False) -> Dict[str, Any]:
        """`tessel validate`: the figures of a valid schedule; raises NoAnswer with the first
        violation otherwise."""
        return self._op("validate", n=n, monotone=monotone, ignore_memory=ignore_memory)

    def show(self, n: Optional[int] = None, timeline: Optional[str] = None,
             width: Optional[int] = None) -> str:
        """`tessel show`: the text timeline (one row per device, with its figures) as a string;
        an invalid schedule is shown too. timeline: planned (default) or replayed."""
        return self._op("show", n=n, timeline=timeline, width=width)["text"]

    def trace(self, n: Optional[int] = None, timeline: Optional[str] = None,
              unit_us: Optional[float] = None) -> Dict[str, Any]:
        """`tessel trace`: the timeline as a Chrome trace (a dict with traceEvents), unit_us
        microseconds per time unit (default 1000); what the explorer's trace answers."""
        return self._op("trace", n=n, timeline=timeline, unit_us=unit_us)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the file, byte for byte what `tessel search -o` writes."""
        with open(path, "w", newline="") as f:
            f.write(self.text)

    def export(self, format: str, path: Union[str, "os.PathLike[str]", None] = None,
               n: Optional[int] = None) -> str:
        """`tessel export --format FORMAT`: the schedule in another tool's format ("pytorch":
        torch.distributed.pipelining's action CSV; "python": the Python Tessel's saved
        schedule), as text, and written to path when given; n as every command takes it. An
        invalid schedule raises NoAnswer and writes nothing."""
        if path is not None:
            self._op("export", format=format, path=str(path), n=n)
            with open(path) as f:
                return f.read()
        fd, tmp = tempfile.mkstemp(prefix="tessel-", suffix=".out")
        os.close(fd)
        try:
            self._op("export", format=format, path=tmp, n=n)
            with open(tmp) as f:
                return f.read()
        finally:
            os.unlink(tmp)

    def to_pytorch_csv(self, path: Union[str, "os.PathLike[str]", None] = None,
                       n: Optional[int] = None) -> str:
        """`tessel export --pytorch`: torch.distributed.pipelining's action CSV, as text (and
        written to path when given)."""
        return self.export("pytorch", path, n)

    def to_python_tessel(self, path: Union[str, "os.PathLike[str]", None] = None,
                         n: Optional[int] = None) -> Dict[str, Any]:
        """`tessel export --python`: the Python Tessel's saved schedule, as a dict (and written
        to path when given)."""
        return json.loads(self.export("python", path, n))

    def svg(self, n: Optional[int] = None, timeline: Optional[str] = None,
            scale: Optional[float] = None, title: Optional[str] = None) -> str:
        """`tessel render`: the SVG timeline (an invalid schedule is drawn too); timeline:
        planned (default) or replayed."""
        return self._op("render", n=n, timeline=timeline, scale=scale, title=title)["svg"]

    def _repr_svg_(self) -> str:
        return self.svg()

    def __repr__(self) -> str:
        r = self._record or {}
        return "Schedule(%s, makespan=%s, lower_bound=%s)" % (
            r.get("method") or r.get("baseline") or self._where, r.get("makespan"),
            r.get("lower_bound"))


def import_schedule(path: Union[str, "os.PathLike[str]"], placement: Placement,
                    format: Optional[str] = None, memory: Optional[int] = None,
                    n: Optional[int] = None) -> Schedule:
    """`tessel import`: the schedule another tool wrote at path, matched to placement and
    validated. format: "python" (default: a schedule the Python Tessel saved) or "pytorch"
    (torch.distributed.pipelining's compute-only CSV, as Schedule.to_pytorch_csv writes it);
    memory records (and checks) a per-device capacity; n: the Python Tessel's unroll at exactly n
    micro-batches. A missing file raises FileNotFoundError."""
    if not os.path.exists(os.fspath(path)):
        # as open() and Placement.from_file say it
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), os.fspath(path))
    req = _request("import", _placement(placement), path=os.fspath(path), format=format,
                   memory=memory, n=n)
    reply = _lib.call("import", req)
    return Schedule(reply["schedule"], where=os.fspath(path))
