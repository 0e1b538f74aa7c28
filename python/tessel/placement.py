"""Placements: the blocks of one micro-batch and their dependencies, as the C library reads and
checks them (tessel-placement/1). A Placement holds the library's own dict of it."""

import copy
import errno
import json
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _lib

FORMAT = "tessel-placement/1"


def _block(b):
    """A block given as a dict, or as a tuple (id, kind, span, memory, devices) in the order of a
    placement file's keys."""
    if isinstance(b, dict):
        return dict(b)
    items = list(b)
    if len(items) != 5:
        raise TypeError("a block is a dict or (id, kind, span, memory, devices), got %r" % (b,))
    return {"id": items[0], "kind": items[1], "span": items[2], "memory": items[3],
            "devices": list(items[4])}


def _edge(x):
    """An edge given as (from, to), (from, to, delay[, distance]) or a dict."""
    if isinstance(x, dict):
        return dict(x)
    items = list(x)
    if len(items) == 2:
        return items
    if len(items) in (3, 4):
        e = {"from": items[0], "to": items[1], "delay": items[2]}
        if len(items) == 4:
            e["distance"] = items[3]
        return e
    raise TypeError("an edge is (from, to[, delay[, distance]]) or a dict, got %r" % (x,))


class Placement:
    """A placement checked by the library.

    Build one from Python with blocks and edges (or chains)::

        Placement("two", ndevs=2,
                  blocks=[("F0", "forward", 1, 1, [0]), ("F1", "forward", 1, 1, [1]),
                          ("B1", "backward", 2, -1, [1]), ("B0", "backward", 2, -1, [0])],
                  chains=[["F0", "F1", "B1", "B0"]])

    or take a built-in (from_builtin), a file (from_file) or a dict (from_dict).
    """

    def __init__(self, name: str = "placement", ndevs: int = 1,
                 blocks: Iterable[Union[Dict[str, Any], Sequence[Any]]] = (),
                 edges: Iterable[Union[Dict[str, Any], Sequence[Any]]] = (),
                 chains: Iterable[Sequence[str]] = (),
                 capacity: Union[int, Sequence[int], None] = None,
                 *, _dict: Optional[Dict[str, Any]] = None,
                 info: Optional[Dict[str, Any]] = None) -> None:
        if _dict is None:
            d = {"format": FORMAT, "name": name, "ndevs": ndevs,
                 "blocks": [_block(b) for b in blocks]}
            if edges:
                d["edges"] = [_edge(x) for x in edges]
            if chains:
                d["chains"] = [list(c) for c in chains]
            if capacity is not None:
                d["capacity"] = capacity
            _dict = _lib.call("placement", {"placement": d, "where": name})["placement"]
        self._dict = _dict
        # what the derivation found, for a placement derived from a model
        self.info = info
        self.warning = None

    @classmethod
    def _reply(cls, reply, info=None):
        p = cls(_dict=reply["placement"], info=info)
        p.warning = reply.get("warning")
        return p

    @classmethod
    def from_builtin(cls, name: str, ndevs: int, infer: bool = False,
                     chunks: Optional[int] = None) -> "Placement":
        """A built-in placement (`tessel placements`), as --placement NAME --ndevs D."""
        return cls._reply(_lib.call("placement", {"builtin": name, "ndevs": ndevs,
                                                  "infer": bool(infer), "chunks": chunks}))

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Placement":
        """A placement file (tessel-placement/1). A missing file raises FileNotFoundError, as
        open() does."""
        if not os.path.exists(str(path)):
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
        return cls._reply(_lib.call("placement", {"file": str(path)}))

    @classmethod
    def from_dict(cls, d: Dict[str, Any], where: str = "placement") -> "Placement":
        """A placement given as the dict of a placement file; where names it in messages."""
        return cls._reply(_lib.call("placement", {"placement": d, "where": where}))

    def to_dict(self) -> Dict[str, Any]:
        """The placement as the dict of a tessel-placement/1 file."""
        return copy.deepcopy(self._dict)

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        with open(path, "w") as f:
            json.dump(self._dict, f, indent=1)
            f.write("\n")

    @property
    def name(self) -> str:
        return self._dict["name"]

    @property
    def ndevs(self) -> int:
        return self._dict["ndevs"]

    @property
    def blocks(self) -> List[Dict[str, Any]]:
        return copy.deepcopy(self._dict["blocks"])

    def request(self) -> Dict[str, Any]:
        """The request keys that name this placement."""
        return {"placement": self._dict, "where": self.name}

    def bound(self, n: int, memory: Union[int, Sequence[int], None] = None) -> Dict[str, Any]:
        """LB(n), within memory when given (one capacity for every device, or a list of one per
        device): the dict of `tessel bound --json` (lower_bound, the term that binds, every
        term, the load per device)."""
        from ._ops import _request
        return _lib.call("bound", _request("bound", self.request(), n=n, memory=memory))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Placement) and self._dict == other._dict

    def __repr__(self) -> str:
        return "Placement(%r, ndevs=%d, blocks=%d)" % (self.name, self.ndevs,
                                                       len(self._dict["blocks"]))


def placements() -> List[Dict[str, Any]]:
    """The built-in placements: name, description, device counts, whether they take chunks."""
    return _lib.call("placements", {})["placements"]


def _placement(p):
    """The request of a Placement (the argument of every operation on one)."""
    if not isinstance(p, Placement):
        raise TypeError("expected a tessel.Placement, got %s" % type(p).__name__)
    return p.request()
