"""tessel: Tessel-C's schedule search, baselines, bounds, views and plans from Python.

Every call runs the C library in this process (the same functions as the `tessel` command, the
same answers), releases the GIL while it runs, and raises a TesselError carrying the command
line's one-line message when it fails::

    import tessel
    p = tessel.Placement.from_builtin("vshape", 4)
    s = tessel.search(p, memory=4)
    s.makespan        # 524, at N = 128
    s.svg()           # the picture (a notebook shows s itself)
"""

from ._errors import Cancelled, InvalidInput, NoAnswer, SystemFailure, TesselError
from ._lib import Progress, library_path, version
from .api import (CancelToken, baseline, baselines, compare, model, operations, options,
                  placement_from_model, plan, portfolio, search)
from .placement import Placement, placements
from .schedule import Schedule, import_schedule

try:
    # Written by setup.py into the installed package.
    from ._version import __version__
except ImportError:
    # Imported from a checkout: the version is project(VERSION) of its top CMakeLists.txt.
    from ._lib import checkout_version as _checkout_version
    __version__ = _checkout_version()

__all__ = [
    "Placement", "Schedule", "CancelToken", "Progress", "search", "baseline", "baselines",
    "compare", "import_schedule", "model", "operations", "options", "portfolio", "placement_from_model", "plan",
    "placements", "library_path", "version", "TesselError", "NoAnswer", "InvalidInput",
    "SystemFailure", "Cancelled",
]
