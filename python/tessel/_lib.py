"""Finding and calling libtessel, the C library (src/app/pyapi/ts_pyapi.h), through ctypes.

One function, ts_py_call(op, request_json, hooks, &out), does everything: the request and the
reply are JSON, a failure is the command line's one-line message. ctypes releases the GIL for
the length of the call, so other threads run while a search does (and may cancel it).
"""

import ctypes
import json
import os
import re
import threading

from ._errors import InvalidInput, error_for

_PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_long,
                             ctypes.c_long, ctypes.c_long, ctypes.c_double)


class _Hooks(ctypes.Structure):
    _fields_ = [("progress", _PROGRESS), ("progress_ud", ctypes.c_void_p),
                ("cancel", ctypes.POINTER(ctypes.c_int))]


_LIBNAME = "libtessel.so"
_lock = threading.Lock()
_lib = None


def _candidates():
    """Where the library may be, first match wins: $TESSEL_LIBRARY, next to this file (where
    `pip install` puts it), then the build folders of the checkout this file sits in."""
    env = os.environ.get("TESSEL_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, _LIBNAME)
    root = os.path.dirname(os.path.dirname(here))
    for build in ("build", "build-asan"):
        yield os.path.join(root, build, "lib", _LIBNAME)


def checkout_version():
    """project(tessel VERSION x.y.z) of the checkout this file sits in ("0+unknown" without one)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        with open(os.path.join(root, "CMakeLists.txt")) as f:
            found = re.search(r"project\(\s*tessel\s+VERSION\s+([0-9.]+)", f.read())
    except OSError:
        found = None
    return found.group(1) if found else "0+unknown"


def library_path():
    """The path of the libtessel that `import tessel` uses."""
    for path in _candidates():
        if os.path.isfile(path):
            return path
    raise ImportError("tessel: cannot find %s: set TESSEL_LIBRARY to its path, or build it "
                      "(cmake --build build --target tessel_py) and reinstall the package"
                      % _LIBNAME)


def _load():
    global _lib
    with _lock:
        if _lib is None:
            lib = ctypes.CDLL(library_path())
            lib.ts_py_call.restype = ctypes.c_int
            lib.ts_py_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.POINTER(_Hooks), ctypes.POINTER(ctypes.c_void_p)]
            lib.ts_py_free.restype = None
            lib.ts_py_free.argtypes = [ctypes.c_void_p]
            lib.ts_py_version.restype = ctypes.c_char_p
            lib.ts_py_version.argtypes = []
            _lib = lib
        return _lib


def version():
    return _load().ts_py_version().decode()


class Progress:
    """One progress report of a search: the phase, candidates tried and to try (total None when
    unknown), the best bubbles so far (None while none) and the seconds since it began."""

    __slots__ = ("phase", "tried", "total", "best_bubbles", "elapsed")

    def __init__(self, phase, tried, total, best_bubbles, elapsed):
        self.phase, self.tried, self.total = phase, tried, total
        self.best_bubbles, self.elapsed = best_bubbles, elapsed

    def __repr__(self):
        return ("Progress(phase=%r, tried=%d, total=%r, best_bubbles=%r, elapsed=%.2f)"
                % (self.phase, self.tried, self.total, self.best_bubbles, self.elapsed))


# The most and least a request's integer may be: the library reads integers as 64-bit.
_INT_MAX, _INT_MIN = 2 ** 63 - 1, -2 ** 63


def _check_value(op, field, value):
    """Refuses what the library's JSON cannot carry, naming the caller's field: an integer beyond
    64 bits, a NUL inside a string (it would cut the string short)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and not _INT_MIN <= value <= _INT_MAX:
        raise InvalidInput("tessel %s: %s: %d is out of range (at most 2^63 - 1 in size)"
                           % (op, field, value), 2)
    if isinstance(value, str) and "\0" in value:
        raise InvalidInput("tessel %s: %s: the text holds a NUL character" % (op, field), 2)
    if isinstance(value, dict):
        for k, v in value.items():
            _check_value(op, "%s.%s" % (field, k), v)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_value(op, "%s[%d]" % (field, i), v)


def call(op, request, progress=None, cancel=None, names=None):
    """Runs operation op on the request (a dict) and returns the reply (a dict); raises the
    TesselError of the status with the command line's message. names maps a request's field to
    the caller's name for it (a keyword argument), for messages."""
    lib = _load()
    if cancel is not None and not isinstance(getattr(cancel, "_flag", None), ctypes.c_int):
        raise TypeError("cancel: expected a tessel.CancelToken, got %s" % type(cancel).__name__)
    if progress is not None and not callable(progress):
        raise TypeError("progress: expected a function, got %s" % type(progress).__name__)
    for key, value in request.items():
        _check_value(op, (names or {}).get(key, key), value)
    flag = cancel._flag if cancel is not None else ctypes.c_int(0)
    raised = []
    hooks = _Hooks()
    hooks.cancel = ctypes.pointer(flag)
    if progress is not None:
        def report(_ud, phase, tried, total, best, elapsed):
            try:
                progress(Progress(phase.decode(), tried, total or None,
                                  best if best >= 0 else None, elapsed))
            except BaseException as exc:  # stop the search and raise it after the call
                raised.append(exc)
                flag.value = 1
        # kept alive in this frame for the length of the call
        callback = _PROGRESS(report)
        hooks.progress = callback
    payload = json.dumps(request, allow_nan=False).encode()
    out = ctypes.c_void_p()
    status = lib.ts_py_call(op.encode(), payload, ctypes.byref(hooks), ctypes.byref(out))
    if not out.value:
        raise MemoryError("tessel: out of memory")
    try:
        text = ctypes.string_at(out.value).decode()
    finally:
        lib.ts_py_free(out)
    if raised:
        raise raised[0]
    if status:
        raise error_for(status, text)
    return json.loads(text)
