"""The operations' option tables (src/app/ops), as the package's calls map their keyword
arguments onto a request's fields: below api.py, placement.py and schedule.py, which all use it."""

import functools

from . import _lib


@functools.lru_cache(maxsize=None)
def _table(op):
    """The option table of operation op (src/app/ops): its rows by Python keyword."""
    for table in _lib.call("ops", {})["ops"]:
        if table["name"] == op:
            return {row["py"]: row for row in table["options"] if "python" in row["fronts"]}
    raise KeyError(op)


def _request(op, request, **kw):
    """request with the keyword arguments set under their fields, as op's table names them;
    None leaves a field out."""
    table = _table(op)
    for name, value in kw.items():
        if value is not None and table[name]["type"] != "hook":
            request[table[name]["key"]] = value
    return request
